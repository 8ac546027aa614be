"""The checks tests/mpi/test_gfapi.sh makes on the results files of runs
through --api gfapi:

    gfapi_checks.py CHECK RESULTS [ARGS...]

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  bytes RESULTS PHASE   (prints) the bytes PHASE moved in the last run, summed
                        over its repetitions
  res RESULTS           (prints) the last run's status, then PHASE=BYTES/OPS for
                        each phase in the run's order, summed over its repetitions
  counted RESULTS       the last run says api gfapi, and in each phase its
                        latency histograms count every transfer once (and per
                        node), its time series add up to the phase's bytes and
                        operations, one open and one close per stream timed
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import check_counted, dispatch, last_run, phase_totals, text  # noqa: E402


def phase_of(run: h5py.Group, phase: str) -> h5py.Group:
    names = [n for n in run["phases"] if n.split("_", 1)[1] == phase]
    assert len(names) == 1, (phase, list(run["phases"]))
    return run["phases"][names[0]]


def bytes_(path: str, phase: str) -> None:
    with h5py.File(path, "r") as f:
        print(int(phase_of(last_run(f), phase)["bytes"][()].sum()))


def res(path: str) -> None:
    print(phase_totals(path))


def counted(path: str) -> None:
    with h5py.File(path, "r") as f:
        run = last_run(f)
        assert text(run.attrs["api"]) == "gfapi", text(run.attrs["api"])
        streams = int(run.attrs["streams"])
        names = list(run["phases"])
        assert len(names) >= 2, names
        for name in names:
            check_counted(run["phases"][name], name, streams)


if __name__ == "__main__":
    sys.exit(dispatch({"bytes": bytes_, "res": res, "counted": counted}, sys.argv))
