"""Checks a run's page-cache figures in a results file, for test_pagecache*.sh.

    pagecache_check.py RESULTS PHASE FIGURE OP VALUE [--method M] [--run N]

PHASE is the phase's index in -p; FIGURE resident (before a read) or dirty
(at a write's close); OP ge or le: the run's fraction and every node's must
be >= (or <=) VALUE. --method: the phase's method attribute must be M
("bypassed", "cachestat", "mincore", "unknown", or "" for not probed; then
no figure may be stored, and OP VALUE are not read). The figures must agree
with each other: the per-node datasets add up to the run's, the streams'
times to both, and pfsbench.open()'s frames say the same. Exit 0 or 1 with
what differs.
"""

import argparse
import os
import sys
from typing import List

import numpy as np

sys.path.insert(0, os.path.join(os.environ.get("PFS_SRC", os.path.join(os.path.dirname(__file__), "..", "..")),
                                "python"))
import h5py  # noqa: E402
import pfsbench  # noqa: E402

# The times' method codes (pfs/pagecache.h).
MEASURED = {"resident": (1, 2), "dirty": (1,)}
FIELDS = {"resident": ("cache_bytes", "cache_resident", "cache_method"),
          "dirty": ("cache_dirty_probed", "cache_dirty", "cache_dirty_method")}


def check(path: str, index: int, figure: str, op: str, value: float, method: str, run: int) -> List[str]:
    bad: List[str] = []
    with h5py.File(path, "r") as f:
        names = sorted(f["runs"])
        g = f["runs"][names[run - 1 if run > 0 else len(names) + run]]
        pname = [k for k in g["phases"] if int(g["phases"][k].attrs["index"]) == index][0]
        pg = g["phases"][pname]
        whole_k, part_k, meth_k = FIELDS[figure]
        got = pg.attrs[meth_k]
        got = got.decode() if isinstance(got, bytes) else str(got)
        if method is not None and got != method:
            bad.append("%s: %s is '%s', not '%s'" % (pname, meth_k, got, method))
        if method is not None and method not in ("cachestat", "mincore"):
            if whole_k in pg or "node_" + whole_k in pg:
                bad.append("%s: %s stored, though nothing was measured" % (pname, whole_k))
            return bad
        whole, part = pg[whole_k][()], pg[part_k][()]
        nwhole, npart = pg["node_" + whole_k][()], pg["node_" + part_k][()]
        if not (nwhole.sum(axis=1) == whole).all() or not (npart.sum(axis=1) == part).all():
            bad.append("%s: the nodes' %s do not add up to the run's" % (pname, part_k))
        t = pg["times"][()]
        m = t["cache_method" if figure == "resident" else "dirty_method"]
        ok = np.isin(m, MEASURED[figure])
        sw = np.where(ok, t["cache_bytes"], 0).sum(axis=1)
        sp = np.where(ok, t["cache_resident" if figure == "resident" else "cache_dirty"], 0).sum(axis=1)
        if not (sw == whole).all() or not (sp == part).all():
            bad.append("%s: the streams' times (%s / %s) differ from %s (%s / %s)" % (pname, sp, sw, part_k, part,
                                                                                      whole))
        fracs = [("run", part / np.where(whole > 0, whole, 1))]
        fracs += [("node %d" % k, npart[:, k] / np.where(nwhole[:, k] > 0, nwhole[:, k], 1))
                  for k in range(nwhole.shape[1])]
        for who, x in fracs:
            if not (x >= value if op == "ge" else x <= value).all():
                bad.append("%s: %s's %s fraction %s is not %s %g" % (pname, who, figure, x, op, value))
    # The frames read the same file: the same fractions.
    with pfsbench.open(path) as r:
        s = r.summary()
        rows = s[(s["run"] == s["run"].max() if run < 0 else s["run"] == run) & (s["index"] == index)]
        col = "cache_resident_fraction" if figure == "resident" else "cache_dirty_fraction"
        want = part / np.where(whole > 0, whole, 1)
        if not np.allclose(rows[col].to_numpy(dtype=float), want):
            bad.append("summary()'s %s %s differs from the file's %s" % (col, rows[col].tolist(), want))
    return bad


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("results")
    ap.add_argument("phase", type=int)
    ap.add_argument("figure", choices=("resident", "dirty"))
    ap.add_argument("op", choices=("ge", "le"), nargs="?", default="ge")
    ap.add_argument("value", type=float, nargs="?", default=0.0)
    ap.add_argument("--method")
    ap.add_argument("--run", type=int, default=-1, help="the run's number from 1; -1: the last")
    a = ap.parse_args()
    bad = check(a.results, a.phase, a.figure, a.op, a.value, a.method, a.run)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
