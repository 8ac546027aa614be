"""The checks tests/mpi/test_find.sh makes on the find phase's figures in
pfsbench's JSON and CSV output and its --list-options=json:

    find_checks.py CHECK OUT [MATCHED]

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  json OUT MATCHED   -i 2: each find repetition examined 2020 and matched MATCHED
  csv OUT MATCHED    find_matched MATCHED on the find row, empty elsewhere
  options OUT        --list-options=json: find is a metadata phase
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def json_out(out: str, matched: str) -> None:
    with open(out) as f:
        j = json.load(f)
    ph = [p for p in j["phases"] if p["phase"] == "find"][0]
    reps = ph["repetitions"]
    assert len(reps) == 2, reps
    for r in reps:
        assert r["ops"] == 2020 and r["find_examined"] == 2020 and r["find_matched"] == int(matched), r
    assert all("find_matched" not in r for p in j["phases"] if p["phase"] != "find" for r in p["repetitions"])


def csv_out(out: str, matched: str) -> None:
    with open(out) as f:
        rows = list(csv.DictReader(f))
    got = {r["phase"]: r["find_matched"] for r in rows}
    assert got == {"create": "", "find": matched, "delete": ""}, got


def options(out: str) -> None:
    with open(out) as f:
        j = json.load(f)
    ph = {p["name"]: p for p in j["phases"]}
    assert ph["find"]["kind"] == "metadata", ph["find"]


if __name__ == "__main__":
    sys.exit(dispatch({"json": json_out, "csv": csv_out, "options": options}, sys.argv))
