"""The check tests/mpi/test_io500.sh makes on pfs-io500's JSON against
the results file it scored:

    io500_checks.py score RESULTS JSON

exits 0 when every phase's value, the bandwidth and metadata means and the
score are IO500's arithmetic on the stored bytes, ops and seconds, and find
examined and matched what it should; else raises an AssertionError naming
what differs.
"""
import json
import math
import os
import sys
from typing import Any, Dict, List

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def score(path: str, json_path: str) -> None:
    f = h5py.File(path, "r")
    with open(json_path) as jf:
        j = json.load(jf)
    want = {"ior-easy-write": ("ior-easy", "write"), "ior-easy-read": ("ior-easy", "read"),
            "ior-hard-write": ("ior-hard", "write"), "ior-hard-read": ("ior-hard", "read"),
            "mdtest-easy-write": ("mdtest-easy", "create"), "mdtest-easy-stat": ("mdtest-easy", "stat"),
            "mdtest-easy-delete": ("mdtest-easy", "delete"), "mdtest-hard-write": ("mdtest-hard", "create"),
            "mdtest-hard-stat": ("mdtest-hard", "stat"), "mdtest-hard-read": ("mdtest-hard", "read-files"),
            "mdtest-hard-delete": ("mdtest-hard", "delete"), "find": ("mdtest-hard", "find")}
    runs: Dict[str, Any] = {}
    for k in f["runs"]:
        runs[text(f["runs"][k].attrs["label"])] = f["runs"][k]
    bw: List[float] = []
    md: List[float] = []
    for name, (lab, ph) in want.items():
        g = [p for p in runs[lab]["phases"].values() if text(p.attrs["phase"]) == ph][0]
        secs = g["seconds"][()]
        if name.startswith("ior"):
            v = sum(g["bytes"][()][i] / secs[i] for i in range(len(secs))) / len(secs) / 2**30
            bw.append(v)
        else:
            v = sum(g["ops"][()][i] / secs[i] for i in range(len(secs))) / len(secs) / 1000
            md.append(v)
        got = j["phases"][name]["value"]
        assert abs(got - v) <= 1e-9 * v, (name, got, v)
    gb = math.exp(sum(map(math.log, bw)) / 4)
    assert len(md) == 8, md
    gm = math.exp(sum(map(math.log, md)) / 8)
    assert abs(j["bw"] - gb) <= 1e-9 * gb, (j["bw"], gb)
    assert abs(j["md"] - gm) <= 1e-9 * gm, (j["md"], gm)
    assert abs(j["score"] - math.sqrt(gb * gm)) <= 1e-9 * j["score"], (j["score"], gb, gm)
    assert j["md_phases"] == "7 mdtest phases and find", j["md_phases"]
    # find examined every mdtest-hard file once; matched: the names f.<stream>.<i> holding "01", all 3901 bytes.
    g = [p for p in runs["mdtest-hard"]["phases"].values() if p.attrs["phase"] in (b"find", "find")][0]
    n = 120
    assert list(g["ops"][()]) == [2 * n], g["ops"][()]
    assert list(g["find_matched"][()]) == [sum("01" in "f.%d.%d" % (s, i) for s in range(2) for i in range(n))]


if __name__ == "__main__":
    sys.exit(dispatch({"score": score}, sys.argv))
