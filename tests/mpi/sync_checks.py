"""The check tests/mpi/test_sync.sh makes on the last run of a results
file written with --sync dsync --fsync-every 4 and an fsync the delay shim
holds 50 ms longer:

    sync_checks.py fsync RESULTS

exits 0 when the fsyncs are counted and timed as fsync, not as the
transfers, inside the phase's time; else raises an AssertionError naming
what differs.
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def fsync(path: str) -> None:
    f = h5py.File(path, "r")
    run = f["runs"][sorted(f["runs"])[-1]]
    assert run.attrs["fsync_every"] == 4, dict(run.attrs)
    sync = run.attrs["sync"]
    assert text(sync) == "dsync", sync
    w = run["phases"]["00_write"]
    kinds = text(w.attrs["latency_kinds"]).split(",")
    fs, op = kinds.index("fsync"), kinds.index("op")
    lat = w["latency"][0]
    assert lat[op].sum() == 16 and lat[fs].sum() == 4, lat.sum(axis=1)
    s = w["latency_summary"][0]
    assert s[fs]["count"] == 4 and s[fs]["min_ns"] >= 50e6, s[fs]
    assert s[op]["p50_ns"] < 50e6, s[op]                # the transfers do not carry the fsync's time
    assert w["seconds"][0] >= 4 * 0.05, w["seconds"][0]  # the fsyncs are inside the timed region
    r = run["phases"]["01_read"]["latency_summary"][0]
    assert r[fs]["count"] == 0, r[fs]


if __name__ == "__main__":
    sys.exit(dispatch({"fsync": fsync}, sys.argv))
