"""The check tests/mpi/test_frontends.sh makes on a front end's run and
the equivalent native run:

    frontends_checks.py same FRONT_END_RESULTS NATIVE_RESULTS PHASE=FIGURE...

exits 0 (printing the phases) when each file holds one complete run, the
two have the same configuration and the same phases, and each phase moved
FIGURE (bytes; ops for a metadata phase) in every repetition; else exits
with the difference.
"""
import os
import sys
from typing import List, Tuple

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text as s  # noqa: E402

Phase = Tuple[str, str, int, List[int], List[int]]


def load(path: str) -> Tuple[str, List[Phase]]:
    f = h5py.File(path, "r")
    runs = sorted(f["runs"])
    assert len(runs) == 1, "%s: %d runs" % (path, len(runs))
    g = f["runs"][runs[0]]
    assert s(g.attrs["status"]) == "complete", s(g.attrs["status"])
    ph: List[Phase] = []
    for name in sorted(g["phases"]):
        pg = g["phases"][name]
        ph.append((s(pg.attrs["phase"]), s(pg.attrs["kind"]), int(pg.attrs["repetitions"]),
                   [int(x) for x in pg["bytes"][()]], [int(x) for x in pg["ops"][()]]))
    return s(g.attrs["config"]), ph


def same(front_end: str, native: str, *figures: str) -> None:
    cfe, pfe = load(front_end)
    cnat, pnat = load(native)
    if cfe != cnat:
        sys.exit("configs differ:\n%s\n---\n%s" % (cfe, cnat))
    if pfe != pnat:
        sys.exit("phases differ:\n%s\n%s" % (pfe, pnat))
    want = dict(a.split("=") for a in figures)
    got = [p[0] for p in pfe]
    if got != list(want):
        sys.exit("phases %s, want %s" % (got, list(want)))
    for name, kind, reps, nbytes, ops in pfe:
        fig = ops if kind == "metadata" else nbytes
        if any(x != int(want[name]) for x in fig) or len(fig) != reps:
            sys.exit("%s: %s %s, want %s per repetition" % (name, kind, fig, want[name]))
    print(pfe)


if __name__ == "__main__":
    sys.exit(dispatch({"same": same}, sys.argv))
