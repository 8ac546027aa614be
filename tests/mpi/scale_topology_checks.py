"""The checks tests/mpi/test_scale_topology.sh makes on run 000001 of a
results file:

    scale_topology_checks.py CHECK RESULTS [ARGS...]

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  clocks RESULTS NODE...   the placement's node column is NODE..., every rank of a
                           node has its node's first rank's clock correction and
                           uncertainty (rank 0's node: exactly 0), hosts node1.. by node
  first_failure RESULTS ERR   the stored error is ERR's first failure, "of 3"
  alias RESULTS            one name on two runtime nodes: ranks 0, 1, 4, 5 on node 0
                           (node1), 2, 3 on node 1 (node2), shift 0
"""
import os
import sys
from typing import Dict, Tuple

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def clocks(path: str, *nodes: str) -> None:
    r = h5py.File(path, "r")["runs/000001"]
    want = [int(x) for x in nodes]
    p = r["placement"][()]
    assert [int(x["node"]) for x in p] == want, p
    assert r.attrs["nodes"] == max(want) + 1, dict(r.attrs)
    first: Dict[int, Tuple[float, float]] = {}
    for x in p:
        n = int(x["node"])
        assert x["host"].decode() == "node%d" % (n + 1), x
        k = (float(x["clock_correction"]), float(x["clock_uncertainty"]))
        first.setdefault(n, k)
        assert first[n] == k, (n, first[n], k)
    assert first[0] == (0.0, 0.0), first[0]


def first_failure(path: str, err: str) -> None:
    e = text(h5py.File(path, "r")["runs/000001"].attrs["error"])
    with open(err) as f:
        first = [line for line in f if "(the first failure)" in line][0]
    msg = first[len("pfsbench: error: "):-len(" (the first failure)\n")]
    assert e == msg + " (the first of 3 ranks that failed)", (e, msg)


def alias(path: str) -> None:
    r = h5py.File(path, "r")["runs/000001"]
    p = r["placement"][()]
    assert [int(x["node"]) for x in p] == [0, 0, 1, 1, 0, 0], p
    assert [x["host"].decode() for x in p] == ["node1", "node1", "node2", "node2", "node1", "node1"], p
    assert r.attrs["reorder_shift"] == 0, r.attrs["reorder_shift"]
    c = [(float(x["clock_correction"]), float(x["clock_uncertainty"])) for x in p]
    assert c[0] == c[1] == c[4] == c[5] == (0.0, 0.0) and c[2] == c[3], c


if __name__ == "__main__":
    sys.exit(dispatch({"clocks": clocks, "first_failure": first_failure, "alias": alias}, sys.argv))
