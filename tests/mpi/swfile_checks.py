"""The checks tests/mpi/test_swfile.sh makes on a stonewalled write and its
read-back through a stonewall status file (IOR's stoneWallingStatusFile):

    swfile_checks.py same_bytes WRITE.h5 READ.h5 STATUS XFER BLOCK STREAMS
    swfile_checks.py read_bytes READ.h5 BYTES

same_bytes: the write stopped early (STATUS's count below BLOCK / XFER),
the write phase moved STATUS's count x XFER x STREAMS bytes, and the read
phase of READ.h5 exactly as many. read_bytes: the read phase moved BYTES.
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def phase_bytes(path: str, name: str) -> int:
    with h5py.File(path, "r") as f:
        run = f["runs"][sorted(f["runs"])[-1]]
        assert text(run.attrs["status"]) == "complete", text(run.attrs["status"])
        phases = {text(g.attrs["phase"]): g for g in run["phases"].values()}
        assert list(phases) == [name], list(phases)
        got = [int(b) for b in phases[name]["bytes"][()]]
    assert len(got) == 1, got
    return got[0]


def same_bytes(write: str, read: str, status: str, xfer: str, block: str, streams: str) -> None:
    with open(status) as s:
        count = int(s.read())
    assert 0 < count < int(block) // int(xfer), (count, block, xfer)
    wrote = phase_bytes(write, "write")
    assert wrote == count * int(xfer) * int(streams), (wrote, count)
    got = phase_bytes(read, "read")
    assert got == wrote, (got, wrote)


def read_bytes(read: str, nbytes: str) -> None:
    got = phase_bytes(read, "read")
    assert got == int(nbytes), (got, nbytes)


if __name__ == "__main__":
    sys.exit(dispatch({"same_bytes": same_bytes, "read_bytes": read_bytes}, sys.argv))
