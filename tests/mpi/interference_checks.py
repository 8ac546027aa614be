"""The checks tests/mpi/test_interference.sh makes on the results file of a
job whose concurrent group has `interference = 1`:

    interference_checks.py CHECK RESULTS

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  group RESULTS   each section alone then together; the together runs' ratios, Jain's
                  index and qos verdicts as computed here from the stored figures
  half RESULTS    a section that ran no phase: the other's together run, Jain's index over it
                  alone (1), its ratio its own
  json OUT        the same job's --format json: each run's "interference" member, the
                  ratios those of the documents' own phase means
"""
import json as jsonlib
import math
import os
import sys
from typing import Any, Dict, List

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def p99(ph: Any) -> float:
    """The phase's op p99 (ns): one measured repetition, so its latency_summary row."""
    kinds = text(ph.attrs["latency_kinds"]).split(",")
    return float(ph["latency_summary"][0, kinds.index("op")]["p99_ns"])


def close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=0.0)


def group(path: str) -> None:
    f = h5py.File(path, "r")
    runs = [f["runs"][k] for k in sorted(f["runs"])]
    got = [(text(r.attrs["label"]), text(r.attrs["interference"])) for r in runs]
    assert got == [("ckpt", "alone"), ("reader", "alone"), ("ckpt", "together"), ("reader", "together")], got
    for r in runs:
        assert text(r.attrs["status"]) == "complete", text(r.attrs["error"])
        assert text(r.attrs["concurrent_group"]) == "mix"
    alone = {text(r.attrs["label"]): r for r in runs[:2]}
    xs: List[float] = []
    verdicts: Dict[str, str] = {}
    for tog in runs[2:]:
        name = text(tog.attrs["label"])
        al = alone[name]
        ratios = []
        for p in sorted(tog["phases"]):
            t, a = tog["phases"][p], al["phases"][p]
            want_bw = t.attrs["bandwidth_mean"] / a.attrs["bandwidth_mean"]
            want_p99 = p99(t) / p99(a)
            assert close(t.attrs["interference_bw_ratio"], want_bw), (name, p, t.attrs["interference_bw_ratio"], want_bw)
            assert close(t.attrs["interference_p99_ratio"], want_p99), (name, p, t.attrs["interference_p99_ratio"],
                                                                        want_p99)
            assert math.isnan(a.attrs["interference_bw_ratio"])   # only the together run holds ratios
            ratios.append(want_bw)
        xs.append(sum(ratios) / len(ratios))
        verdicts[name] = text(tog.attrs["qos_result"])
        assert text(al.attrs["qos_result"]) == "" and math.isnan(al.attrs["interference_jain"])
    jain = sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))
    for tog in runs[2:]:
        assert close(tog.attrs["interference_jain"], jain), (tog.attrs["interference_jain"], jain, xs)
        assert int(tog.attrs["interference_jain_sections"]) == 2
    assert verdicts == {"ckpt": "pass", "reader": "fail"}, verdicts
    assert text(runs[3].attrs["qos"]) == "p99<1ns" and text(runs[3].attrs["qos_detail"]).startswith("write: p99 ")


def half(path: str) -> None:
    f = h5py.File(path, "r")
    runs = [f["runs"][k] for k in sorted(f["runs"])]
    got = [(text(r.attrs["label"]), text(r.attrs["interference"])) for r in runs]
    assert got == [("w", "alone"), ("w", "together")], got   # [r] stopped before its record
    al, tog = runs[0]["phases"]["00_write"], runs[1]["phases"]["00_write"]
    want = tog.attrs["bandwidth_mean"] / al.attrs["bandwidth_mean"]
    assert close(tog.attrs["interference_bw_ratio"], want), (tog.attrs["interference_bw_ratio"], want)
    assert runs[1].attrs["interference_jain"] == 1.0 and int(runs[1].attrs["interference_jain_sections"]) == 1
    assert text(runs[1].attrs["qos_result"]) == ""   # [w] has no qos


def json(path: str) -> None:
    with open(path) as fh:
        docs: List[Dict[str, Any]] = jsonlib.load(fh)
    got = [(d["label"], d["interference"]["round"]) for d in docs]
    assert got == [("ckpt", "alone"), ("reader", "alone"), ("ckpt", "together"), ("reader", "together")], got
    alone = {d["label"]: d for d in docs[:2]}
    xs: List[float] = []
    for d in docs[2:]:
        ifr, al = d["interference"], alone[d["label"]]
        ratios = []
        for ph, a, r in zip(d["phases"], al["phases"], ifr["phases"]):
            want = ph["summary"]["mean"] / a["summary"]["mean"]
            assert r["phase"] == ph["phase"] and math.isclose(r["bw_ratio"], want, rel_tol=1e-9), (r, want)
            assert r["p99_ratio"] is not None and r["p99_ratio"] > 0, r
            ratios.append(want)
        xs.append(sum(ratios) / len(ratios))
        assert "jain" not in al["interference"], al["interference"]
    jain = sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))
    for d in docs[2:]:
        assert math.isclose(d["interference"]["jain"], jain, rel_tol=1e-9), (d["interference"]["jain"], jain)
    assert docs[2]["interference"]["qos_result"] == "pass" and docs[3]["interference"]["qos_result"] == "fail"


if __name__ == "__main__":
    sys.exit(dispatch({"group": group, "half": half, "json": json}, sys.argv))
