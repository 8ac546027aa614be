"""The checks tests/mpi/test_runtime.sh makes on the last run of a
results file after --runtime and --ramp runs:

    runtime_checks.py CHECK RESULTS [ARGS...]

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  timed RESULTS SECS BLOCK TRANSFER [together]   phases last SECS s or more and wrap
                          around the block (with together: the streams need not each
                          last SECS, a collective run's spans)
  same_calls RESULTS      every rank made the same number of calls
  ramp RESULTS N          --ramp: fewer transfers stored than the N written, the spans
                          start after the ramp
"""
import os
import sys
from typing import Any

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def last_run(path: str) -> Any:
    f = h5py.File(path, "r")
    return f["runs"][sorted(f["runs"])[-1]]


def timed(path: str, secs_s: str, block_s: str, xfer_s: str, how: str = "") -> None:
    secs, block, xfer = float(secs_s), int(block_s), int(xfer_s)
    together = how == "together"
    run = last_run(path)
    for name, ph in run["phases"].items():
        s = float(ph["seconds"][0])
        assert secs <= s < secs + 30, (name, s)
        t = ph["times"][0]
        assert (t["bytes"] > block).all(), (name, t["bytes"], block)
        assert (t["bytes"] == t["transfers"] * xfer).all(), name
        assert (t["verify_errors"] == 0).all(), name
        assert together or (t["close_end"] - t["open_start"] >= secs).all(), (name, t["close_end"] - t["open_start"])


def same_calls(path: str) -> None:
    run = last_run(path)
    for name, ph in run["phases"].items():
        t = ph["times"][0]["transfers"]
        assert len(set(t)) == 1, (name, t)


def ramp(path: str, n_s: str) -> None:
    n = int(n_s)
    run = last_run(path)
    w, r = run["phases"]["00_write"], run["phases"]["01_read"]
    tw, tr = w["times"][0][0], r["times"][0][0]
    stored = int(tw["transfers"])
    assert 0 < stored < n, (stored, n)
    assert n - stored <= 1.0 / 0.005 + 2, (n, stored)  # the ramp's: each write takes 5 ms or more
    assert int(tw["bytes"]) == stored * 65536
    assert int(w["ops"][0]) == stored and int(w["latency"][0][0].sum()) == stored
    assert int(w["latency"][0][1].sum()) == 0  # the open is in the ramp
    # runtime - ramp: 2 s, give or take a loaded VM
    assert 1.5 <= float(w["seconds"][0]) < 2 + 30, float(w["seconds"][0])
    assert float(tr["open_start"]) - float(tw["close_end"]) >= 1.0, (tr["open_start"], tw["close_end"])
    assert int(tr["transfers"]) > 0


if __name__ == "__main__":
    sys.exit(dispatch({"timed": timed, "same_calls": same_calls, "ramp": ramp}, sys.argv))
