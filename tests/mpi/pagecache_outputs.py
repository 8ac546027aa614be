"""The page-cache figures of --format json or csv against the results file
of the same run, for test_pagecache.sh.

    pagecache_outputs.py json|csv OUTPUT RESULTS

Every phase and repetition: the same method, bytes probed, resident and
dirty bytes (JSON: also each node's). Exit 0, or 1 with what differs.
"""

import csv
import json
import sys
from typing import Dict, List, Optional, Tuple

import h5py


def from_file(path: str) -> Dict[Tuple[str, int], Dict[str, object]]:
    """(phase, rep) -> the figures the results file's last run holds."""
    out: Dict[Tuple[str, int], Dict[str, object]] = {}
    with h5py.File(path, "r") as f:
        g = f["runs"][sorted(f["runs"])[-1]]
        for k in g["phases"]:
            pg = g["phases"][k]
            phase = pg.attrs["phase"]
            phase = phase.decode() if isinstance(phase, bytes) else str(phase)
            for rep in range(int(pg.attrs["repetitions"])):
                d: Dict[str, object] = {}
                for a in ("cache_method", "cache_dirty_method"):
                    v = pg.attrs[a]
                    d[a] = v.decode() if isinstance(v, bytes) else str(v)
                for ds in ("cache_bytes", "cache_resident", "cache_dirty_probed", "cache_dirty"):
                    d[ds] = int(pg[ds][rep]) if ds in pg else None
                    d["node_" + ds] = [int(x) for x in pg["node_" + ds][rep]] if "node_" + ds in pg else None
                out[(phase, rep)] = d
    return out


def num(s: str) -> Optional[int]:
    return int(s) if s != "" else None


def check_json(text: str, want: Dict[Tuple[str, int], Dict[str, object]]) -> List[str]:
    bad: List[str] = []
    doc = json.loads(text)
    for p in doc["phases"]:
        for r in p["repetitions"]:
            w, pc = want[(p["phase"], r["rep"])], r["page_cache"]
            if pc is None:  # not probed: no method, no figure
                if w["cache_method"] or w["cache_dirty_method"] or w["cache_bytes"] is not None:
                    bad.append("json %s %d: page_cache is null, the file says %r" % (p["phase"], r["rep"], w))
                continue
            got = {"cache_method": pc["method"] or "", "cache_dirty_method": pc["dirty_method"] or "",
                   "cache_bytes": pc["bytes"], "cache_resident": pc["resident_bytes"],
                   "cache_dirty_probed": pc["dirty_probed_bytes"], "cache_dirty": pc["dirty_bytes"],
                   "node_cache_bytes": [n["bytes"] for n in pc["nodes"]],
                   "node_cache_resident": [n["resident_bytes"] for n in pc["nodes"]],
                   "node_cache_dirty_probed": [n["dirty_probed_bytes"] for n in pc["nodes"]],
                   "node_cache_dirty": [n["dirty_bytes"] for n in pc["nodes"]]}
            for k, v in got.items():
                if k.startswith("node_") and w[k] is None:
                    v = None if all(x is None for x in v) else v
                if v != w[k]:
                    bad.append("json %s %d: %s is %r, the file says %r" % (p["phase"], r["rep"], k, v, w[k]))
    return bad


def check_csv(text: str, want: Dict[Tuple[str, int], Dict[str, object]]) -> List[str]:
    bad: List[str] = []
    for row in csv.DictReader(text.splitlines()):
        w = want[(row["phase"], int(row["rep"]))]
        got = {"cache_method": row["cache_method"], "cache_dirty_method": row["cache_dirty_method"],
               "cache_bytes": num(row["cache_bytes"]), "cache_resident": num(row["cache_resident_bytes"]),
               "cache_dirty_probed": num(row["cache_dirty_probed_bytes"]),
               "cache_dirty": num(row["cache_dirty_bytes"])}
        for k, v in got.items():
            if v != w[k]:
                bad.append("csv %s %s: %s is %r, the file says %r" % (row["phase"], row["rep"], k, v, w[k]))
    return bad


def main() -> int:
    fmt, output, results = sys.argv[1:4]
    with open(output, encoding="utf-8") as f:
        text = f.read()
    want = from_file(results)
    bad = check_json(text, want) if fmt == "json" else check_csv(text, want)
    if not want:
        bad.append("the results file holds no phase")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
