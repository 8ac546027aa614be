"""The checks tests/mpi/test_ceph_rados.sh makes on the results files of
runs through --api rados:

    ceph_rados_checks.py CHECK RESULTS [ARGS...]

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  res RESULTS           (prints) the last run's api and status, then
                        PHASE=BYTES/OPS for each phase in the run's order
  counted RESULTS       in each phase of the last run, the latency histogram
                        counts every transfer once, and one open and one close
                        per stream
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import check_counted, dispatch, last_run, phase_totals  # noqa: E402


def res(path: str) -> None:
    print(phase_totals(path, api=True))


def counted(path: str, streams: str) -> None:
    with h5py.File(path, "r") as f:
        r = last_run(f)
        for name in sorted(r["phases"]):
            check_counted(r["phases"][name], name, int(streams))


if __name__ == "__main__":
    sys.exit(dispatch({"res": res, "counted": counted}, sys.argv))
