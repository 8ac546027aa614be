"""The check tests/mpi/test_uring.sh makes on the results file:

    uring_checks.py results RESULTS

exits 0 when the one run says api uring, iodepth 32, else raises an
AssertionError naming what differs.
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def results(path: str) -> None:
    with h5py.File(path, "r") as f:
        runs = list(f["runs"].values())
        assert len(runs) == 1, len(runs)
        a = runs[0].attrs
        api = text(a["api"])
        assert api == "uring", api
        assert int(a["iodepth"]) == 32, a["iodepth"]


if __name__ == "__main__":
    sys.exit(dispatch({"results": results}, sys.argv))
