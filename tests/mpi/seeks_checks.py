"""The check tests/mpi/test_seeks.sh makes on run 000001's seeks phase:

    seeks_checks.py seeks RESULTS

exits 0 when stream 0 did 501 seeks and stream 1 500, the phase is a data
phase and its rate is the seeks over the phase's time; else raises an
AssertionError naming what differs.
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def seeks(path: str) -> None:
    f = h5py.File(path, "r")
    ph = f["runs/000001/phases"]
    g = ph[[n for n in ph if n.endswith("_seeks")][0]]
    t = g["times"][0]
    assert list(t["transfers"]) == [501, 500], t["transfers"]
    assert g.attrs["kind"] in (b"data", "data"), g.attrs["kind"]
    rate, sec = float(g["rate"][0]), float(g["seconds"][0])
    assert abs(rate * sec - 1001) < 1e-6 * 1001, (rate, sec)


if __name__ == "__main__":
    sys.exit(dispatch({"seeks": seeks}, sys.argv))
