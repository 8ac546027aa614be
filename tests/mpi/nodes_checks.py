"""The checks tests/mpi/test_nodes.sh makes on the results files of runs
over fake nodes:

    nodes_checks.py CHECK RESULTS

exits 0 when the check holds, else raises an AssertionError naming what
differs. Each looks at run 000001 (the sweeps at every run).

  round_robin   nodes 4, ranks 8, rank r on node r mod 4, round-robin asked
  node_bytes    per-node bytes add up to the total in every phase and repetition
  reorder       -C: reads_from_node != node for every rank, shift 1
  block         --map-by slot: shift 2, ranks in blocks, reads from other nodes
  uneven        3 nodes, 8 ranks: node bytes 3:3:2 blocks, sum = total
  pfsrun        4 nodes, round-robin asked, reads from other nodes
  pbs           jobs/pfsbench.pbs: 4 nodes, label pbs-42.fakepbs
  sweep         jobs/sweep.pbs: a run per point, fixed total divided by ranks
  node_hosts    each node's host, in node order, for the per-node datasets
"""
import os
import sys
from typing import List, Tuple

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def round_robin(path: str) -> None:
    f = h5py.File(path, "r")
    r = f["runs/000001"]
    assert r.attrs["nodes"] == 4 and r.attrs["ranks"] == 8, dict(r.attrs)
    assert r.attrs["round_robin_asked"] == 1
    p = r["placement"][()]
    assert len(p) == 8
    for row in p:
        rank, node, host = int(row["rank"]), int(row["node"]), row["host"].decode()
        assert node == rank % 4 and host == "node%d" % (rank % 4 + 1), (rank, node, host)


def node_bytes(path: str) -> None:
    f = h5py.File(path, "r")
    r = f["runs/000001"]
    n = 0
    for name, ph in r["phases"].items():
        nb, b = ph["node_bytes"][()], ph["bytes"][()]
        assert nb.shape == (2, 4), (name, nb.shape)
        for rep in range(nb.shape[0]):
            assert int(nb[rep].sum()) == int(b[rep]) == 8 << 20, (name, rep, nb[rep], b[rep])
            assert all(int(x) == 2 << 20 for x in nb[rep]), (name, rep, nb[rep])
            n += 1
    assert n == 4, n


def reorder(path: str) -> None:
    f = h5py.File(path, "r")
    r = f["runs/000001"]
    assert r.attrs["reorder_shift"] == 1, r.attrs["reorder_shift"]
    p = r["placement"][()]
    node = {int(x["rank"]): int(x["node"]) for x in p}
    for x in p:
        assert int(x["reads_from_node"]) != int(x["node"]), x
        assert int(x["reads_from_rank"]) == (int(x["rank"]) + 1) % 8, x
        assert int(x["reads_from_node"]) == node[int(x["reads_from_rank"])], x


def block(path: str) -> None:
    r = h5py.File(path, "r")["runs/000001"]
    assert r.attrs["reorder_shift"] == 2 and r.attrs["nodes"] == 4
    p = r["placement"][()]
    assert [int(x["node"]) for x in p] == [0, 0, 1, 1, 2, 2, 3, 3], p
    assert all(int(x["reads_from_node"]) != int(x["node"]) for x in p), p


def uneven(path: str) -> None:
    r = h5py.File(path, "r")["runs/000001"]
    assert r.attrs["nodes"] == 3 and r.attrs["ranks"] == 8
    assert "uneven placement" in r.attrs["warnings"], r.attrs["warnings"]
    for name, ph in r["phases"].items():
        nb, b = ph["node_bytes"][()][0], ph["bytes"][()][0]
        assert [int(x) for x in nb] == [3 << 20, 3 << 20, 2 << 20], (name, nb)
        assert int(nb.sum()) == int(b), (name, nb, b)


def pfsrun(path: str) -> None:
    r = h5py.File(path, "r")["runs/000001"]
    assert r.attrs["nodes"] == 4 and r.attrs["ranks"] == 8 and r.attrs["round_robin_asked"] == 1, dict(r.attrs)
    assert all(int(x["reads_from_node"]) != int(x["node"]) for x in r["placement"][()])


def pbs(path: str) -> None:
    r = h5py.File(path, "r")["runs/000001"]
    assert r.attrs["nodes"] == 4 and r.attrs["ranks"] == 8, dict(r.attrs)
    assert r.attrs["label"] == "pbs-42.fakepbs", r.attrs["label"]


def sweep(path: str) -> None:
    runs = h5py.File(path, "r")["runs"]
    got: List[Tuple[int, str, int, int, int]] = sorted(
        (int(g.attrs["ranks"]), g.attrs["label"], int(g.attrs["total"]), int(g.attrs["block"]), int(g.attrs["nodes"]))
        for g in runs.values())
    want = [(n, "sweep-%d" % n, 1 << 20, (1 << 20) // n, min(n, 4)) for n in (1, 2, 4, 8)]
    assert got == want, (got, want)


def node_hosts(path: str) -> None:
    r = h5py.File(path, "r")["runs/000001"]
    assert [h.decode() for h in r["node_hosts"][()]] == ["node1", "node2", "node3", "node4"], r["node_hosts"][()]
    assert r["phases/00_write/node_bytes"].shape[1] == len(r["node_hosts"])


if __name__ == "__main__":
    sys.exit(dispatch({"round_robin": round_robin, "node_bytes": node_bytes, "reorder": reorder, "block": block,
                       "uneven": uneven, "pfsrun": pfsrun, "pbs": pbs, "sweep": sweep, "node_hosts": node_hosts},
                      sys.argv))
