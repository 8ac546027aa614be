"""The checks tests/mpi/test_traps.sh makes on the last run of a results
file:

    traps_checks.py CHECK RESULTS [ARGS...]

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  collective RESULTS           -a mpiio -c: the run is collective
  warnings RESULTS TEXT...     each TEXT is in the run's warnings attribute
  deadline RESULTS             the -D warning is in the run's warnings attribute
"""
import os
import sys
from typing import Any

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def last_run(path: str) -> Any:
    f = h5py.File(path, "r")
    return f["runs"][sorted(f["runs"])[-1]]


def collective(path: str) -> None:
    r = last_run(path)
    assert int(r.attrs["collective"]) == 1, dict(r.attrs)
    assert r.attrs["api"] in ("mpiio", b"mpiio"), r.attrs["api"]


def warnings(path: str, *want: str) -> None:
    w = text(last_run(path).attrs["warnings"])
    for x in want:
        assert x in w, (x, w)


def deadline(path: str) -> None:
    w = last_run(path).attrs["warnings"]
    assert "-D/--deadline does nothing" in text(w), w


if __name__ == "__main__":
    sys.exit(dispatch({"collective": collective, "warnings": warnings, "deadline": deadline}, sys.argv))
