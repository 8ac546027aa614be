"""Checks test_trust_jobs.sh (and test_format.sh) make on a results file or
on a job's JSON: exit 0 when the check holds, 1 with the reason otherwise.

  runs FILE 'label status ranks' ...   the file holds exactly these runs
  error FILE LABEL                     print the error of the run labelled so
  reps FILE LABEL N                    every phase of that run measured N repetitions
  json OUT 'label status' ...          OUT is one JSON array of exactly these runs
"""
import json
import sys
from typing import List

import h5py


def runs(path: str) -> List[h5py.Group]:
    f = h5py.File(path, "r")
    return [f["runs"][k] for k in sorted(f["runs"])]


def text(v: object) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def by_label(path: str, label: str) -> h5py.Group:
    found = [r for r in runs(path) if text(r.attrs["label"]) == label]
    if len(found) != 1:
        raise SystemExit(f"{len(found)} runs labelled {label!r} in {path}")
    return found[0]


def check_runs(path: str, want: List[str]) -> str:
    have = sorted(f"{text(r.attrs['label'])} {text(r.attrs['status'])} {int(r.attrs['ranks'])}" for r in runs(path))
    return "" if have == sorted(want) else f"runs {have}, wanted {sorted(want)}"


def check_reps(path: str, label: str, n: int) -> str:
    r = by_label(path, label)
    got = {p: int(r["phases"][p].attrs["reps_measured"]) for p in r["phases"]}
    return "" if got and all(v == n for v in got.values()) else f"repetitions {got}, wanted {n} each"


def check_json(out: str, want: List[str]) -> str:
    with open(out) as f:
        doc = json.load(f)  # one document: a second one after it would not parse
    if not isinstance(doc, list):
        return f"a {type(doc).__name__}, not an array"
    have = sorted(f"{d['label']} {d['status']}" for d in doc)
    return "" if have == sorted(want) else f"runs {have}, wanted {sorted(want)}"


def main(argv: List[str]) -> int:
    what, path, rest = argv[1], argv[2], argv[3:]
    if what == "error":
        print(text(by_label(path, rest[0]).attrs["error"]))
        return 0
    if what == "runs":
        why = check_runs(path, rest)
    elif what == "reps":
        why = check_reps(path, rest[0], int(rest[1]))
    elif what == "json":
        why = check_json(path, rest)
    else:
        why = f"no check {what!r}"
    if why:
        print(why, file=sys.stderr)
    return 1 if why else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
