"""The check tests/mpi/test_uring.sh makes on the results file:

    uring_checks.py results RESULTS

exits 0 when the one run says api uring, iodepth 32, else raises an
AssertionError naming what differs.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, one_run_attrs  # noqa: E402


def results(path: str) -> None:
    a = one_run_attrs(path)
    assert a["api"] == "uring", a["api"]
    assert int(a["iodepth"]) == 32, a["iodepth"]


if __name__ == "__main__":
    sys.exit(dispatch({"results": results}, sys.argv))
