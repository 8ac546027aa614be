"""The checks tests/mpi/test_slurm.sh makes on the results files of the
Slurm job scripts run under a fake Slurm:

    slurm_checks.py CHECK RESULTS [ARGS...]

exits 0 when the check holds, else raises an AssertionError naming what
differs. Each looks at run 000001 (sweep at every run).

  mpirun RESULTS JOB   4 nodes round-robin, reads from other nodes, -i 2, label slurm-JOB
  srun RESULTS         nodes 4, rank r on node r mod 4
  sweep RESULTS        a run per point, fixed total divided by the ranks, on min(ranks, 4) nodes
  engine RESULTS API   api API on 2 nodes, 4 MiB read
"""
import os
import sys
from typing import List, Tuple

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def mpirun(path: str, job: str) -> None:
    r = h5py.File(path, "r")["runs/000001"]
    a = r.attrs
    assert a["nodes"] == 4 and a["ranks"] == 8 and a["round_robin_asked"] == 1, dict(a)
    assert a["reps"] == 2, a["reps"]
    assert a["label"] == "slurm-" + job, a["label"]
    p = r["placement"][()]
    for x in p:
        assert int(x["node"]) == int(x["rank"]) % 4 and x["host"].decode() == "node%d" % (int(x["rank"]) % 4 + 1), x
        assert int(x["reads_from_node"]) != int(x["node"]), x


def srun(path: str) -> None:
    r = h5py.File(path, "r")["runs/000001"]
    assert r.attrs["nodes"] == 4 and r.attrs["ranks"] == 8, dict(r.attrs)
    assert [int(x["node"]) for x in r["placement"][()]] == [0, 1, 2, 3, 0, 1, 2, 3]


def sweep(path: str) -> None:
    runs = h5py.File(path, "r")["runs"]
    got: List[Tuple[int, str, int, int]] = sorted(
        (int(g.attrs["ranks"]), g.attrs["label"], int(g.attrs["block"]), int(g.attrs["nodes"])) for g in runs.values())
    want = [(n, "sweep-%d" % n, (1 << 20) // n, min(n, 4)) for n in (1, 2, 4, 8)]
    assert got == want, (got, want)


def engine(path: str, api: str) -> None:
    r = h5py.File(path, "r")["runs/000001"]
    assert r.attrs["api"] == api and int(r.attrs["nodes"]) == 2, dict(r.attrs)
    assert int(r["phases"]["01_read"]["bytes"][0]) == 4 << 20


if __name__ == "__main__":
    sys.exit(dispatch({"mpirun": mpirun, "srun": srun, "sweep": sweep, "engine": engine}, sys.argv))
