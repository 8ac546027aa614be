"""The checks tests/mpi/test_ior_files.sh makes on the results files of
`pfsbench ior -r -o PATH` runs (issue 28: IOR's file paths honoured):

    ior_files_checks.py read_only RESULTS BYTES REPS

exits 0 when the last run of RESULTS is complete, has one data phase, a
read, whose every repetition (REPS) moved BYTES; else raises an
AssertionError naming what differs.
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def read_only(path: str, nbytes: str, reps: str) -> None:
    with h5py.File(path, "r") as f:
        run = f["runs"][sorted(f["runs"])[-1]]
        assert text(run.attrs["status"]) == "complete", text(run.attrs["status"])
        phases = [text(g.attrs["phase"]) for g in run["phases"].values()]
        assert phases == ["read"], phases
        got = [int(b) for b in next(iter(run["phases"].values()))["bytes"][()]]
    assert got == [int(nbytes)] * int(reps), (got, nbytes, reps)


if __name__ == "__main__":
    sys.exit(dispatch({"read_only": read_only}, sys.argv))
