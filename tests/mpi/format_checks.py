"""The checks tests/mpi/test_format.sh makes on pfsbench's --format json
and --format csv output:

    format_checks.py CHECK OUT

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  json OUT       one valid JSON document with every phase and repetition
  csv OUT        a header and 6 rows, in GB/s
  job_csv OUT    a job's CSV: one header, then a row per phase and repetition of each run
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def json_out(out: str) -> None:
    with open(out) as f:
        d = json.load(f)
    assert d["status"] == "complete" and d["ranks"] == 2 and d["label"] == 'a "quoted" label'
    assert [p["phase"] for p in d["phases"]] == ["write", "read", "create", "stat"]
    for p in d["phases"]:
        assert len(p["repetitions"]) == 2
        for r in p["repetitions"]:
            assert r["seconds"] > 0
            if p["kind"] == "data":
                assert r["bytes"] == 2 * 256 * 1024
                assert abs(r["bandwidth_bytes_per_s"] - r["bytes"] / r["seconds"]) < 1e-6 * r["bandwidth_bytes_per_s"]
            else:
                assert r["ops"] == 40 and p["summary"]["unit"] == "files/s"


def csv_out(out: str) -> None:
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6, len(rows)
    for r in rows:
        bw = float(r["bandwidth_bytes_per_s"])
        assert abs(float(r["bandwidth_GBps"]) - bw / 1e9) <= 1e-6 * bw / 1e9
        assert abs(float(r["KBps"]) - bw / 1024) <= 1e-6 * bw / 1024
        assert int(r["bytes"]) == 2 * 256 * 1024


def job_csv(out: str) -> None:
    with open(out) as f:
        lines = f.read().splitlines()
    assert sum(line.startswith("run_id,") for line in lines) == 1, lines
    rows = list(csv.DictReader(lines))
    assert [(r["label"], r["phase"]) for r in rows] == [("one", "write"), ("two", "write"), ("two", "read")], rows


if __name__ == "__main__":
    sys.exit(dispatch({"json": json_out, "csv": csv_out, "job_csv": job_csv}, sys.argv))
