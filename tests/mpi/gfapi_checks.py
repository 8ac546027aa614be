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
from runs import dispatch, text  # noqa: E402


def last_run(f: h5py.File) -> h5py.Group:
    return f["runs"][sorted(f["runs"])[-1]]


def phase_of(run: h5py.Group, phase: str) -> h5py.Group:
    names = [n for n in run["phases"] if n.split("_", 1)[1] == phase]
    assert len(names) == 1, (phase, list(run["phases"]))
    return run["phases"][names[0]]


def bytes_(path: str, phase: str) -> None:
    with h5py.File(path, "r") as f:
        print(int(phase_of(last_run(f), phase)["bytes"][()].sum()))


def res(path: str) -> None:
    with h5py.File(path, "r") as f:
        r = last_run(f)
        out = [text(r.attrs["status"])]
        for name in sorted(r["phases"]):
            p = r["phases"][name]
            b = int(p["bytes"][()].sum()) if "bytes" in p else 0
            o = int(p["ops"][()].sum()) if "ops" in p else 0
            out.append("%s=%d/%d" % (name.split("_", 1)[1], b, o))
        print(" ".join(out))


def check_phase(g: h5py.Group, name: str, streams: int) -> None:
    reps = int(g.attrs["repetitions"])
    lat, nl, ops, byts = g["latency"][()], g["node_latency"][()], g["ops"][()], g["bytes"][()]
    for r in range(reps):
        assert lat[r][0].sum() == ops[r] > 0, (name, r, int(lat[r][0].sum()), int(ops[r]))
        assert nl[r].sum() == ops[r], (name, r, int(nl[r].sum()), int(ops[r]))
        assert lat[r][1].sum() == streams and lat[r][3].sum() == streams, (name, r, "opens and closes")
        ts = g["timeseries/rep_%03d" % r]
        assert ts["bytes"][()].sum() == byts[r], (name, r, int(ts["bytes"][()].sum()), int(byts[r]))
        assert ts["ops"][()].sum() == ops[r], (name, r, int(ts["ops"][()].sum()), int(ops[r]))


def counted(path: str) -> None:
    with h5py.File(path, "r") as f:
        run = last_run(f)
        assert text(run.attrs["api"]) == "gfapi", text(run.attrs["api"])
        streams = int(run.attrs["streams"])
        names = list(run["phases"])
        assert len(names) >= 2, names
        for name in names:
            check_phase(run["phases"][name], name, streams)


if __name__ == "__main__":
    sys.exit(dispatch({"bytes": bytes_, "res": res, "counted": counted}, sys.argv))
