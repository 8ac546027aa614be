"""The check tests/mpi/test_meta.sh makes on run 000001 of a metadata run
stopped by the stonewall (-D) in its create phase:

    meta_checks.py stonewall RESULTS

exits 0 when every stream made the same count, cut short, and the later
phases did exactly those; else raises an AssertionError naming what differs.
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def stonewall(path: str) -> None:
    f = h5py.File(path, "r")
    ph = f["runs/000001/phases"]
    names = sorted(ph)
    t = {n.split("_", 1)[1]: ph[n]["times"][0] for n in names}
    c = t["create"]["transfers"]
    assert len(set(c)) == 1 and 0 < c[0] < 1000000, c
    for n in ("stat", "read-files", "delete"):
        assert list(t[n]["transfers"]) == list(c), (n, t[n]["transfers"], c)
    sw = t["create"]["stonewall_transfers"]
    assert all(0 < x <= c[0] for x in sw), sw
    assert sum(t["create"]["stonewall_end"] > 0) >= 1
    rows = {r["phase"].decode(): r for r in f["summary"][()]}
    assert rows["create"]["stonewall_rate"] > 0 and rows["stat"]["stonewall_rate"] == 0, rows
    assert rows["create"]["ops"] == 3 * c[0], rows["create"]["ops"]


if __name__ == "__main__":
    sys.exit(dispatch({"stonewall": stonewall}, sys.argv))
