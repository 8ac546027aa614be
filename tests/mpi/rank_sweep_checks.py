"""The checks tests/mpi/test_rank_sweep.sh makes on the results file of
a rank sweep:

    rank_sweep_checks.py CHECK RESULTS

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  pow2 RESULTS         runs easy:n=1,2,4: ranks, round-robin placement, block per point
  interrupted RESULTS  SIGUSR1: the point's run is in the file, interrupted
  job RESULTS          a sweep in a job file: the section's name is the sweep's id
"""
import os
import sys
from typing import Any, List

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def all_runs(path: str) -> List[Any]:
    f = h5py.File(path, "r")
    return [f["runs"][k] for k in sorted(f["runs"])]


def pow2(path: str) -> None:
    runs = all_runs(path)
    assert [r.attrs["label"] for r in runs] == ["easy:n=1", "easy:n=2", "easy:n=4"], [r.attrs["label"] for r in runs]
    assert [int(r.attrs["ranks"]) for r in runs] == [1, 2, 4]
    assert [int(r.attrs["nodes"]) for r in runs] == [1, 2, 2]
    assert [int(r.attrs["block"]) for r in runs] == [8 << 20, 4 << 20, 2 << 20]
    hosts = [[h.decode() for h in r["placement"]["host"]] for r in runs]
    assert hosts[1] == ["node1", "node2"], hosts       # round-robin: one rank on each node
    assert sorted(hosts[2]) == ["node1", "node1", "node2", "node2"]
    for r in runs:
        for p in r["phases"]:
            assert int(r["phases"][p]["bytes"][0]) == 8 << 20, p   # --total fixed


def interrupted(path: str) -> None:
    st = [(r.attrs["label"], r.attrs["status"]) for r in all_runs(path)]
    assert st == [("usr1:n=1", "interrupted")], st


def job(path: str) -> None:
    runs = all_runs(path)
    assert [(r.attrs["label"], int(r.attrs["ranks"])) for r in runs] == \
        [("scaling:n=1", 1), ("scaling:n=4", 4), ("single", 4)], [(r.attrs["label"], int(r.attrs["ranks"])) for r in runs]
    assert all(r.attrs["job_section"] in ("scaling", "single") for r in runs)


if __name__ == "__main__":
    sys.exit(dispatch({"pow2": pow2, "interrupted": interrupted, "job": job}, sys.argv))
