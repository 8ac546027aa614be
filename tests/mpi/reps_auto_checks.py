"""The checks tests/mpi/test_reps_auto.sh makes on the results file, the
JSON and CSV reports and --list-options=json of --reps auto, --ci,
--max-reps and --warmup runs:

    reps_auto_checks.py CHECK ARGS...

exits 0 when the check holds, else raises an AssertionError naming what
differs (phase_is prints what differs and exits 1).

  phase_is RESULTS KEY=VALUE...       the last run's write phase has those attributes
                                      (VALUE a number, nan, or >NUMBER)
  steady RESULTS     the last run: reps attribute 'auto', the stored config says reps=auto
  cap RESULTS        the last run: the --max-reps warning is stored
  warmup RESULTS     the last run: stored statistics are over the measured reps only
  json OUT           warm-up flags, reps and interval in the JSON report
  json_one OUT       one measured rep: the interval is null, not 0
  csv OUT            is_warmup, reps_measured and ci95 columns
  options OUT        --list-options=json: reps takes auto; ci, max-reps, warmup
"""
import csv
import json
import math
import os
import sys
from typing import List

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def _last(f: h5py.File) -> h5py.Group:
    """The file's last run: each case of the test checks the run it just made
    (a case tried again on a loaded machine appends another)."""
    runs = f["runs"]
    return runs[sorted(runs)[-1]]


def phase_is(path: str, *checks: str) -> None:
    g = _last(h5py.File(path, "r"))
    pg = g["phases"]["00_write"]
    a = dict(pg.attrs)
    bad: List[str] = []
    for c in checks:
        k, v = c.split("=", 1)
        got = a.get(k)
        if v == "nan":
            ok = got is not None and math.isnan(float(got))
        elif v.startswith(">"):
            ok = got is not None and float(got) > float(v[1:])
        else:
            ok = got is not None and float(got) == float(v)
        if not ok:
            bad.append("%s: %r, not %s" % (k, got, v))
    if bad:
        print("; ".join(bad))
        sys.exit(1)


def steady(path: str) -> None:
    g = _last(h5py.File(path, "r"))
    r = text(g.attrs["reps"])
    assert r == "auto", r
    conf = text(g.attrs["config"])
    assert "\nreps=auto\n" in conf and "\nmax_reps=20\n" in conf and "\nwarmup=0\n" in conf, conf
    assert abs(float(g["phases"]["00_write"].attrs["ci95_percent"])) < 20


def cap(path: str) -> None:
    w = text(_last(h5py.File(path, "r")).attrs["warnings"])
    assert "--reps auto stopped at --max-reps 4 without the target" in w, w


def warmup(path: str) -> None:
    f = h5py.File(path, "r")
    g = _last(f)
    pg = g["phases"]["00_write"]
    bw, flag = pg["bandwidth"][()], pg["warmup"][()]
    assert list(flag) == [1, 1, 0, 0, 0], flag
    assert int(g.attrs["warmup"]) == 2
    m = bw[flag == 0]
    assert abs(pg.attrs["bandwidth_mean"] - m.mean()) <= 1e-9 * m.mean(), (pg.attrs["bandwidth_mean"], m.mean())
    assert abs(pg.attrs["bandwidth_mean"] - bw.mean()) > 0.05 * m.mean(), "the warm-up reps are not slower"
    assert abs(pg.attrs["bandwidth_median"] - np.median(m)) <= 1e-9 * m.mean()
    assert abs(pg.attrs["bandwidth_stddev"] - m.std(ddof=1)) <= 1e-6 * m.mean()
    # the interval, recomputed: t(0.975, 2) = 4.302652730
    half = 4.302652730 * m.std(ddof=1) / np.sqrt(3)
    assert abs(pg.attrs["ci95_half_width"] - half) <= 1e-6 * m.mean(), (pg.attrs["ci95_half_width"], half)
    assert abs(pg.attrs["ci95_percent"] - 100 * half / m.mean()) < 1e-6
    s = f["summary"][()]
    s = s[s["run"] == int(g.name.rsplit("/", 1)[1])]
    assert list(s["warmup"]) == [1, 1, 0, 0, 0] and list(s["rep"]) == [0, 1, 2, 3, 4], s


def json_out(out: str) -> None:
    with open(out) as f:
        d = json.load(f)
    assert d["config"]["warmup"] == 2 and d["config"]["reps"] == 3, d["config"]
    p = d["phases"][0]
    assert [r["warmup"] for r in p["repetitions"]] == [True, True, False, False, False]
    assert [r["rep"] for r in p["repetitions"]] == [0, 1, 2, 3, 4]
    s = p["summary"]
    assert s["reps"] == 3 and s["warmup"] == 2 and s["target_met"] is None, s
    bw = [r["bandwidth"] for r in p["repetitions"][2:]]
    assert abs(s["mean"] - sum(bw) / 3) < 1e-9 * s["mean"], (s["mean"], bw)
    assert s["ci95_percent"] > 0 and s["ci95_half_width"] > 0


def json_one(out: str) -> None:
    with open(out) as f:
        s = json.load(f)["phases"][0]["summary"]
    assert s["reps"] == 1 and s["ci95_percent"] is None and s["ci95_half_width"] is None and s["stddev"] is None, s


def csv_out(out: str) -> None:
    with open(out) as f:
        rows = list(csv.DictReader(f))
    assert [r["is_warmup"] for r in rows] == ["1", "0", "0"], rows
    assert all(r["reps_measured"] == "2" and float(r["ci95_percent"]) >= 0 and r["target_met"] == "" for r in rows)
    assert rows[0]["warmup"] == "1" and rows[0]["reps"] == "2"


def options(out: str) -> None:
    with open(out) as f:
        o = {x["long"]: x for x in json.load(f)["options"]}
    assert o["reps"]["words"] == ["auto"] and o["reps"]["default"] == 1
    assert o["ci"]["default"] == 5 and o["ci"]["min"] == 0.1 and o["ci"]["max"] == 100 and o["ci"]["unit"] == "percent"
    assert o["max-reps"]["default"] == 20 and o["max-reps"]["min"] == 2
    assert o["warmup"]["default"] == 0 and o["warmup"]["key"] == "warmup"


if __name__ == "__main__":
    sys.exit(dispatch({"phase_is": phase_is, "steady": steady, "cap": cap, "warmup": warmup, "json": json_out,
                       "json_one": json_one, "csv": csv_out, "options": options}, sys.argv))
