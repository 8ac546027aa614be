"""The checks tests/mpi/test_gluster.sh makes on results files of runs
on a GlusterFS FUSE mount:

    gluster_checks.py CHECK RESULTS [ARGS...]

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  res RESULTS       (prints, for the script to compare) the last run's status, then
                    PHASE=BYTES/OPS per phase, one figure per repetition joined by commas
  provenance RESULTS SOURCE MOUNT   fs_type fuse, fs_mount_type fuse.glusterfs,
                    fs_source SOURCE, fs_mount_point MOUNT, fs_options allow_other
  node_bytes RESULTS  2 nodes: 4 MiB per node in every phase
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def res(path: str) -> None:
    f = h5py.File(path, "r")
    r = f["runs"][sorted(f["runs"])[-1]]
    out = [r.attrs["status"]]
    for name in sorted(r["phases"]):
        p = r["phases"][name]
        b = [int(x) for x in p["bytes"][()]] if "bytes" in p else []
        o = [int(x) for x in p["ops"][()]] if "ops" in p else []
        out.append("%s=%s/%s" % (name.split("_", 1)[1], ",".join(map(str, b)), ",".join(map(str, o))))
    print(" ".join(out))


def provenance(path: str, source: str, mount: str) -> None:
    a = h5py.File(path, "r")["runs/000001"].attrs

    def s(k: str) -> str:
        return text(a[k])

    assert s("fs_type") == "fuse", s("fs_type")
    assert s("fs_mount_type") == "fuse.glusterfs", s("fs_mount_type")
    assert s("fs_source") == source, s("fs_source")
    assert s("fs_mount_point") == mount, s("fs_mount_point")
    assert "allow_other" in s("fs_options").split(","), s("fs_options")
    assert s("fs_layout") == "", s("fs_layout")
    assert int(a["fs_block_size"]) > 0


def node_bytes(path: str) -> None:
    r = h5py.File(path, "r")["runs/000001"]
    for name, ph in r["phases"].items():
        assert [int(x) for x in ph["node_bytes"][0]] == [4 << 20, 4 << 20], (name, ph["node_bytes"][()])


if __name__ == "__main__":
    sys.exit(dispatch({"res": res, "provenance": provenance, "node_bytes": node_bytes}, sys.argv))
