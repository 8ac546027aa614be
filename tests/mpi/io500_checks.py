"""The checks tests/mpi/test_io500.sh makes on jobs/io500.job's results
file and on pfs-io500's JSON of it:

    io500_checks.py order RESULTS EASY_FILES HARD_FILES EASY_BLOCK
    io500_checks.py score RESULTS JSON
    io500_checks.py cut RESULTS FILES

order: the runs are IO500's phases in IO500's order, one section each,
each running its one pfsbench phase; find examined every file of both
mdtest trees; ior-rnd4K-easy-read read all of ior-easy's kept bytes in
4 KiB transfers, random, two nodes away. score: every phase's value, the
bandwidth and metadata means and the score are IO500's arithmetic on the
stored bytes, ops and seconds (find: both trees' files over both times;
rnd4K in no mean). cut: both mdtest creates (-n FILES) were stopped by
the stonewall, short of FILES per stream, and every later section over
each tree (find, stat, read, delete) completed on exactly the files its
create made. Each raises an AssertionError naming what differs.
"""
import json
import math
import os
import sys
from typing import Any, Dict, List, Tuple

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402

# IO500's standard phases in its order (io500's src/phase-definitions.h): (section, pfsbench phase)
ORDER = [("ior-easy-write", "write"), ("mdtest-easy-write", "create"), ("ior-hard-write", "write"),
         ("mdtest-hard-write", "create"), ("find-mdtest-easy", "find"), ("find-mdtest-hard", "find"),
         ("ior-easy-read", "read"), ("mdtest-easy-stat", "stat"), ("ior-hard-read", "read"),
         ("mdtest-hard-stat", "stat"), ("mdtest-easy-delete", "delete"), ("mdtest-hard-read", "read-files"),
         ("mdtest-hard-delete", "delete"), ("ior-rnd4K-easy-read", "read")]


def by_label(f: h5py.File) -> Dict[str, Any]:
    return {text(f["runs"][k].attrs["label"]): f["runs"][k] for k in f["runs"]}


def phase_of(run: Any) -> Any:
    groups = list(run["phases"].values())
    assert len(groups) == 1, (text(run.attrs["label"]), [text(g.attrs["phase"]) for g in groups])
    return groups[0]


def order(path: str, easy_files: str, hard_files: str, easy_block: str) -> None:
    f = h5py.File(path, "r")
    runs = [f["runs"][k] for k in sorted(f["runs"], key=int)]
    got = [(text(r.attrs["label"]), text(phase_of(r).attrs["phase"])) for r in runs]
    assert got == ORDER, got
    assert all(text(r.attrs["status"]) == "complete" for r in runs)
    r = by_label(f)
    streams = int(r["ior-easy-write"].attrs["streams"])
    ne, nh = int(easy_files), int(hard_files)
    assert list(phase_of(r["find-mdtest-easy"])["ops"][()]) == [streams * ne]
    assert list(phase_of(r["find-mdtest-hard"])["ops"][()]) == [streams * nh]
    # find's matches: the names f.<stream>.<i> holding "01" (every file of its size, made after the run's start)
    matched = int(phase_of(r["find-mdtest-hard"])["find_matched"][()][0])
    assert matched == sum("01" in "f.%d.%d" % (s, i) for s in range(streams) for i in range(nh)), matched
    rnd = r["ior-rnd4K-easy-read"]
    assert int(rnd.attrs["transfer"]) == 4096 and int(rnd.attrs["random"]) == 1, dict(rnd.attrs)
    assert int(rnd.attrs["reorder_nodes"]) == 2 and int(rnd.attrs["reorder"]) == 1
    g = phase_of(rnd)
    assert list(g["bytes"][()]) == [streams * int(easy_block)], g["bytes"][()]
    assert list(g["ops"][()]) == [streams * int(easy_block) // 4096], g["ops"][()]
    # The later sections work on the files the writes kept: the same run id.
    for later, write in (("ior-easy-read", "ior-easy-write"), ("ior-rnd4K-easy-read", "ior-easy-write"),
                         ("ior-hard-read", "ior-hard-write"), ("mdtest-easy-stat", "mdtest-easy-write"),
                         ("mdtest-hard-read", "mdtest-hard-write"), ("find-mdtest-easy", "mdtest-easy-write")):
        assert text(r[later].attrs["run_id"]) == text(r[write].attrs["run_id"]), later


def figure(run: Any, ior: bool) -> Tuple[float, float]:
    g = phase_of(run)
    secs = g["seconds"][()]
    moved = g["bytes"][()] if ior else g["ops"][()]
    return sum(moved[i] / secs[i] for i in range(len(secs))) / len(secs) / (2**30 if ior else 1000), secs[0]


def score(path: str, json_path: str) -> None:
    r = by_label(h5py.File(path, "r"))
    with open(json_path) as jf:
        j = json.load(jf)
    bw: List[float] = []
    md: List[float] = []
    for lab, _ in ORDER:
        if lab.startswith("find"):
            continue
        v = figure(r[lab], lab.startswith("ior"))[0]
        assert abs(j["phases"][lab]["value"] - v) <= 1e-9 * v, (lab, j["phases"][lab], v)
        if lab.startswith("ior-rnd4K"):
            assert j["phases"][lab]["scored"] is False
            continue
        (bw if lab.startswith("ior") else md).append(v)
    fe, fh = phase_of(r["find-mdtest-easy"]), phase_of(r["find-mdtest-hard"])
    find = (fe["ops"][0] + fh["ops"][0]) / (fe["seconds"][0] + fh["seconds"][0]) / 1000
    assert abs(j["phases"]["find"]["value"] - find) <= 1e-9 * find, (j["phases"]["find"], find)
    md.append(find)
    assert len(bw) == 4 and len(md) == 8, (bw, md)
    gb = math.exp(sum(map(math.log, bw)) / 4)
    gm = math.exp(sum(map(math.log, md)) / 8)
    assert abs(j["bw"] - gb) <= 1e-9 * gb, (j["bw"], gb)
    assert abs(j["md"] - gm) <= 1e-9 * gm, (j["md"], gm)
    assert abs(j["score"] - math.sqrt(gb * gm)) <= 1e-9 * j["score"], (j["score"], gb, gm)
    assert not any(n.startswith("phase order") for n in j["notes"]), j["notes"]


def cut(path: str, files: str) -> None:
    with h5py.File(path, "r") as f:
        r = by_label(f)
        assert all(text(g.attrs["status"]) == "complete" for g in r.values())
        streams = int(r["mdtest-easy-write"].attrs["streams"])
        for tree, later in (("easy", ("find-mdtest-easy", "mdtest-easy-stat", "mdtest-easy-delete")),
                            ("hard", ("find-mdtest-hard", "mdtest-hard-stat", "mdtest-hard-read",
                                      "mdtest-hard-delete"))):
            made = [int(x) for x in phase_of(r["mdtest-%s-write" % tree])["ops"][()]]
            assert len(made) == 1 and 0 < made[0] < streams * int(files), (tree, made)
            assert made[0] % streams == 0, (tree, made)  # the wear-out: every stream the same count
            for lab in later:
                assert [int(x) for x in phase_of(r[lab])["ops"][()]] == made, (lab, phase_of(r[lab])["ops"][()], made)


if __name__ == "__main__":
    sys.exit(dispatch({"order": order, "score": score, "cut": cut}, sys.argv))
