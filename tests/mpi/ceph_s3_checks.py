"""The checks tests/mpi/test_ceph_s3.sh makes on runs through --api s3:

    ceph_s3_checks.py CHECK ARGS...

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  res RESULTS            (prints) the last run's api and status, then
                         PHASE=BYTES/OPS for each phase in the run's order
  counted RESULTS N      in each phase of the last run, the latency histogram
                         counts every transfer once, one open and one close
                         per stream (N streams)
  no_keys RESULTS KEYFILE  no key of KEYFILE (S3_ACCESS_KEY_ID=...,
                         S3_SECRET_ACCESS_KEY=... lines) is in the results
                         file's bytes, nor in any attribute or string dataset
                         h5py reads back; the run's stored config names the
                         api
"""
import os
import sys
from typing import List

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import check_counted, dispatch, last_run, phase_totals, text  # noqa: E402


def res(path: str) -> None:
    print(phase_totals(path, api=True))


def counted(path: str, streams: str) -> None:
    with h5py.File(path, "r") as f:
        r = last_run(f)
        for name in sorted(r["phases"]):
            check_counted(r["phases"][name], name, int(streams))


def keys_of(keyfile: str) -> List[str]:
    keys = []
    with open(keyfile) as f:
        for line in f:
            line = line.strip()
            if line.startswith("export "):
                line = line[len("export "):]
            name, _, value = line.partition("=")
            if name in ("S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"):
                keys.append(value)
    assert len(keys) == 2 and all(keys), "no keys in %s" % keyfile
    return keys


def no_keys(path: str, keyfile: str) -> None:
    keys = keys_of(keyfile)
    with open(path, "rb") as raw:
        data = raw.read()
    for k in keys:
        assert k.encode() not in data, "a key is in the bytes of %s" % path
    seen: List[str] = []

    def visit(name: str, obj: object) -> None:
        if isinstance(obj, (h5py.Group, h5py.Dataset)):
            for a, v in obj.attrs.items():
                seen.append("%s@%s=%s" % (name, a, text(v) if isinstance(v, (bytes, str)) else str(v)))
        if isinstance(obj, h5py.Dataset) and obj.dtype.kind in "OSU":
            seen.append(str(np.asarray(obj[()]).tolist()))

    with h5py.File(path, "r") as f:
        f.visititems(visit)
        config = text(last_run(f).attrs["config"]) if "config" in last_run(f).attrs else " ".join(seen)
    blob = "\n".join(seen)
    for k in keys:
        assert k not in blob, "a key is in an attribute or dataset of %s" % path
    assert "s3" in config, "the stored config does not name the api: %s" % config[:300]


if __name__ == "__main__":
    sys.exit(dispatch({"res": res, "counted": counted, "no_keys": no_keys}, sys.argv))
