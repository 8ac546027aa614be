"""ceph_results.py WHAT RESULTS [ARGS]: facts of a results file for test_ceph_harness.sh.

  phases RESULTS           "STATUS name=BYTES/OPS ..." of the last run, the
                           phases in name order (the byte and op counts of
                           every stream, comma-separated)
  nruns RESULTS            how many runs the file holds
  error RESULTS            "STATUS: ERROR" of the last run
  warnings RESULTS         the last run's warnings attribute
  fs RESULTS MOUNT SOURCE  checks the last run's file-system provenance: a
                           ceph-fuse mount (fs_type fuse, fs_mount_type
                           fuse.ceph-fuse, fs_source SOURCE, fs_mount_point
                           MOUNT) and a CephFS layout; prints the layout
Each prints one line; fs exits 1 (naming the attribute) when one is wrong.
"""
import sys
from typing import Any, List

import h5py


def text(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def last_run(path: str) -> Any:
    f = h5py.File(path, "r")
    return f["runs"][sorted(f["runs"])[-1]]


def phases(path: str) -> str:
    r = last_run(path)
    out: List[str] = [text(r.attrs["status"])]
    for name in sorted(r["phases"]):
        p = r["phases"][name]
        b = [str(int(x)) for x in p["bytes"][()]] if "bytes" in p else []
        o = [str(int(x)) for x in p["ops"][()]] if "ops" in p else []
        out.append("%s=%s/%s" % (name.split("_", 1)[1], ",".join(b), ",".join(o)))
    return " ".join(out)


def fs(path: str, mount: str, source: str) -> int:
    a = last_run(path).attrs
    want = {"fs_type": "fuse", "fs_mount_type": "fuse.ceph-fuse", "fs_source": source, "fs_mount_point": mount}
    bad = ["%s=%r (want %r)" % (k, text(a[k]), v) for k, v in want.items() if text(a[k]) != v]
    layout = text(a["fs_layout"])
    fields = dict(kv.split("=", 1) for kv in layout.split() if "=" in kv)
    for k in ("stripe_unit", "stripe_count", "object_size"):
        if not fields.get(k, "").isdigit() or int(fields[k]) <= 0:
            bad.append("fs_layout %r has no %s" % (layout, k))
    if fields.get("pool") != "cephfs_data":
        bad.append("fs_layout %r does not name the data pool cephfs_data" % layout)
    if int(a["fs_block_size"]) <= 0:
        bad.append("fs_block_size %s" % a["fs_block_size"])
    print("; ".join(bad) if bad else "fs_mount_type %s, fs_source %s, fs_layout %s" % (
        text(a["fs_mount_type"]), text(a["fs_source"]), layout))
    return 1 if bad else 0


def main() -> int:
    what, path = sys.argv[1], sys.argv[2]
    if what == "phases":
        print(phases(path))
    elif what == "nruns":
        print(len(h5py.File(path, "r")["runs"]))
    elif what == "error":
        r = last_run(path)
        print("%s: %s" % (text(r.attrs["status"]), text(r.attrs["error"])))
    elif what == "warnings":
        print(text(last_run(path).attrs["warnings"]))
    elif what == "fs":
        return fs(path, sys.argv[3], sys.argv[4])
    else:
        print("unknown request %s" % what)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
