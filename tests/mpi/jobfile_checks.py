"""The checks tests/mpi/test_jobfile.sh makes on the results file of job
files (pfsbench -f):

    jobfile_checks.py CHECK RESULTS [ARGS...]

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  sections RESULTS JOB   3 sections: 3 runs, labels, the job's text, globals and own words
  native RESULTS         the last run (the stored command line, run natively) moved the
                         same bytes and ops in the same phases as the first
  failing RESULTS        a failing section: not recorded, the others complete
"""
import os
import sys
from typing import Any, List

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def all_runs(path: str) -> List[Any]:
    f = h5py.File(path, "r")
    return [f["runs"][k] for k in sorted(f["runs"])]


def sections(path: str, job: str) -> None:
    with open(job) as j:
        text = j.read()
    runs = all_runs(path)
    assert len(runs) == 3, len(runs)
    assert [r.attrs["label"] for r in runs] == ["seq", "shared-strided", "md"]
    assert [r.attrs["job_section"] for r in runs] == ["seq", "shared-strided", "md"]
    for r in runs:
        assert r.attrs["job_text"] == text
        assert r.attrs["job_file"] == job
        assert r.attrs["status"] == "complete", r.attrs["status"]
        assert r.attrs["transfer"] == 65536            # [global]
    seq, sh, md = runs
    assert seq.attrs["fsync"] == 1 and sh.attrs["fsync"] == 0
    assert sh.attrs["mode"] == "shared" and sh.attrs["layout"] == "strided"
    assert seq.attrs["block"] == 1 << 20 and sh.attrs["block"] == 512 << 10   # the section's word wins
    assert list(md["phases"]) == ["00_create", "01_stat", "02_delete"]
    assert md.attrs["files"] == 50


def native(path: str) -> None:
    runs = all_runs(path)
    a, b = runs[0], runs[-1]
    assert list(a["phases"]) == list(b["phases"])
    for p in a["phases"]:
        assert (a["phases"][p]["bytes"][()] == b["phases"][p]["bytes"][()]).all(), p
        assert (a["phases"][p]["ops"][()] == b["phases"][p]["ops"][()]).all(), p


def failing(path: str) -> None:
    st = [(r.attrs["label"], r.attrs["status"]) for r in all_runs(path)]
    assert st == [("first", "complete"), ("last", "complete")], st


if __name__ == "__main__":
    sys.exit(dispatch({"sections": sections, "native": native, "failing": failing}, sys.argv))
