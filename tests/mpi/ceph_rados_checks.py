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
from runs import dispatch, text  # noqa: E402


def last_run(f: h5py.File) -> h5py.Group:
    return f["runs"][sorted(f["runs"])[-1]]


def res(path: str) -> None:
    with h5py.File(path, "r") as f:
        r = last_run(f)
        out = [text(r.attrs["api"]), text(r.attrs["status"])]
        for name in sorted(r["phases"]):
            p = r["phases"][name]
            b = int(p["bytes"][()].sum()) if "bytes" in p else 0
            o = int(p["ops"][()].sum()) if "ops" in p else 0
            out.append("%s=%d/%d" % (name.split("_", 1)[1], b, o))
        print(" ".join(out))


def counted(path: str, streams: str) -> None:
    with h5py.File(path, "r") as f:
        r = last_run(f)
        for name in sorted(r["phases"]):
            g = r["phases"][name]
            lat, ops = g["latency"][()], g["ops"][()]
            for k in range(int(g.attrs["repetitions"])):
                assert lat[k][0].sum() == ops[k] > 0, (name, k, int(lat[k][0].sum()), int(ops[k]))
                assert lat[k][1].sum() == int(streams) and lat[k][3].sum() == int(streams), (name, k, "opens/closes")


if __name__ == "__main__":
    sys.exit(dispatch({"res": res, "counted": counted}, sys.argv))
