"""The checks tests/mpi/test_rate_sweep.sh makes on runs of --rate-sweep:

    rate_sweep_checks.py CHECK ARGS...

exits 0 when the check holds, else raises an AssertionError naming what
differs. Each looks at the last run of its results file.

  rates RESULTS OFFERED N DELAY  the write phase has a repetition per rate
                             of OFFERED (comma list, ops/s for the job) and
                             offered_rate is exactly each; N transfers a
                             stream, each held at least DELAY s: a point
                             offered above 1 / DELAY per stream has a
                             response p99 at least what its queue makes it
                             (the 99th percentile transfer's lateness); the
                             knee is found, its point above no later than
                             the first point over that ceiling, at a rate
                             between its two points
  frame RESULTS              pfsbench.open(RESULTS).load() has a row per
                             repetition with the file's offered and
                             achieved rates, load percentiles and knee
  svg RESULTS SVG            pfs-plot load's SVG names the knee's rate
  target RESULTS BOUND_NS    --latency-target p99=BOUND: repetition 0 closed
                             loop, each later one offered exactly the rate
                             the search (replayed here over the stored
                             points: knee.c's bisection from the peak, 5%,
                             2% shortfall, at most 10) chose after the
                             ones before; the run stopped when it was done;
                             target_rate and target_rep are its answer, in
                             Results.load() too
  pct JSON PCTS              a --format json report: repetition 0 closed
                             loop (no rate member), then one per PCT
                             (comma list) offered exactly PCT% of what
                             repetition 0 achieved; the rate_sweep member
                             has a point per repetition and its knee
"""
import json
import math
import os
import sys
from typing import Any, Dict, List, Optional, Tuple

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import pfsbench  # noqa: E402
from runs import dispatch  # noqa: E402

RESP = 4  # the response kind of the latency datasets


def write_phase(path: str) -> Any:
    f = h5py.File(path, "r")
    run = f["runs"][sorted(f["runs"])[-1]]
    return run["phases"][sorted(run["phases"])[0]]


def queue_p99(n: int, per_stream: float, delay: float) -> float:
    """The least response time of the transfer at the 99th percentile of a
    stream's n, each taking at least delay s, the k-th due at k / rate: it
    ends at least (k + 1) x delay after the start."""
    k = int(0.99 * n) - 1
    return (k + 1) * delay - k / per_stream


def rates(path: str, offered: str, n: str, delay: str) -> None:
    want = [float(x) for x in offered.split(",")]
    g = write_phase(path)
    assert int(g.attrs["repetitions"]) == len(want), (g.attrs["repetitions"], want)
    got = [float(x) for x in g["offered_rate"][:]]
    assert got == want, (got, want)
    ceiling = 2 / float(delay)  # two streams
    p99 = [float(s[RESP]["p99_ns"]) * 1e-9 for s in g["latency_summary"][:]]
    for o, q in zip(want, p99):
        if o > ceiling:
            least = queue_p99(int(n), o / 2, float(delay))
            assert q >= least, ("p99", q, "below the queue's", least, "at", o)
    assert int(g.attrs["knee_found"]) == 1, dict(g.attrs)
    below, above = int(g.attrs["knee_below_rep"]), int(g.attrs["knee_above_rep"])
    first_above = min(i for i, o in enumerate(want) if o > ceiling)
    assert 0 <= below < above <= first_above, (below, above, first_above)
    rate = [float(x) for x in g["rate"][:]]
    assert rate[below] <= float(g.attrs["knee_rate"]) <= rate[above], (rate, dict(g.attrs))


def frame(path: str) -> None:
    g = write_phase(path)
    with pfsbench.open(path) as r:
        rows = r.load(as_frame=False)
    n = int(g.attrs["repetitions"])
    assert len(rows["rep"]) == n and list(rows["rep"]) == list(range(n)), rows["rep"]
    for col, ds in (("offered_rate", "offered_rate"), ("rate", "rate"), ("p50_ns", "load_p50"),
                    ("p99_ns", "load_p99"), ("p999_ns", "load_p999")):
        assert np.array_equal(rows[col], g[ds][:]), (col, rows[col], g[ds][:])
    assert all(bool(x) for x in rows["knee_found"]), rows["knee_found"]
    assert all(float(x) == float(g.attrs["knee_rate"]) for x in rows["knee_rate"]), rows["knee_rate"]
    assert all(int(x) == int(g.attrs["knee_above_rep"]) for x in rows["knee_above_rep"])


def svg(path: str, chart: str) -> None:
    rate = float(write_phase(path).attrs["knee_rate"])
    with open(chart) as f:
        doc = f.read()
    assert "knee: %.4g ops/s" % rate in doc, ("knee: %.4g ops/s" % rate, "not in", chart)


Point = Tuple[float, float, float]  # offered, achieved, p99 (ns)


def search(pts: List[Point], peak: float, bound: float) -> Tuple[Optional[float], float, int]:
    """knee.c's pfs_lat_search as pfs_target_step sets it: the next rate
    (None: done), the best rate that met the bound and its index."""
    def meets(p: Point) -> bool:
        return p[0] > 0 and p[1] >= 0.98 * p[0] and p[2] <= bound
    hi = min([p[0] for p in pts if p[0] > 0 and not meets(p)], default=math.inf)
    ok = [(p[0], i) for i, p in enumerate(pts) if meets(p) and p[0] < hi]
    lo, best = max(ok, default=(0.0, -1))
    if len(pts) >= 10:
        return None, lo, best
    if math.isinf(hi):
        return (None if lo >= peak * 0.95 else peak), lo, best
    if (lo == 0 and hi <= peak / 100) or hi - lo <= 0.05 * hi:
        return None, lo, best
    return max(0.5 * (lo + hi), peak / 100), lo, best


def target(path: str, bound_ns: str) -> None:
    g = write_phase(path)
    n = int(g.attrs["repetitions"])
    off = [float(x) for x in g["offered_rate"][:n]]
    ach = [float(x) for x in g["rate"][:n]]
    p99 = [float(x) for x in g["load_p99"][:n]]
    assert 2 <= n <= 11 and off[0] == 0, (n, off)
    pts = [(off[k], ach[k], p99[k]) for k in range(1, n)]
    for k in range(1, n):
        nxt, _, _ = search(pts[:k - 1], ach[0], float(bound_ns))
        assert nxt is not None and abs(nxt - off[k]) <= 1e-12 * nxt, ("rep", k, "offered", off[k], "search", nxt)
    nxt, lo, best = search(pts, ach[0], float(bound_ns))
    assert nxt is None, ("the search wanted", nxt, "after", n, "repetitions")
    assert int(g.attrs["target_rep"]) == (best + 1 if best >= 0 else -1), (dict(g.attrs), best)
    if best >= 0:
        assert float(g.attrs["target_rate"]) == lo, (dict(g.attrs), lo)
    else:
        assert math.isnan(float(g.attrs["target_rate"])), dict(g.attrs)
    with pfsbench.open(path) as r:
        rows = r.load(as_frame=False)
    assert len(rows["rep"]) == n and set(rows["latency_target"]) == {"p99=%gms" % (float(bound_ns) / 1e6)}, rows
    assert all(int(x) == int(g.attrs["target_rep"]) for x in rows["target_rep"]), rows["target_rep"]


def pct(report: str, pcts: str) -> None:
    want = [float(x) for x in pcts.split(",")]
    with open(report) as f:
        doc = json.load(f)
    ph: Dict[str, Any] = doc["phases"][0]
    reps: List[Dict[str, Any]] = ph["repetitions"]
    assert len(reps) == len(want) + 1, len(reps)
    assert "rate" not in reps[0], reps[0].keys()
    sweep = ph["rate_sweep"]
    base = sweep["points"][0]["achieved_ops_per_s"]
    assert base > 0 and sweep["points"][0]["offered_ops_per_s"] == 0, sweep["points"][0]
    assert len(sweep["points"]) == len(want) + 1, sweep["points"]
    for i, p in enumerate(want):
        o = reps[i + 1]["rate"]["offered_ops_per_s"]
        assert abs(o - base * p / 100) <= 1e-9 * o, (i + 1, o, base, p)
        assert sweep["points"][i + 1]["offered_ops_per_s"] == o, (sweep["points"][i + 1], o)
    assert set(sweep["knee"]) == {"found", "rate_ops_per_s", "below_rep", "above_rep", "base_p99_ns",
                                  "saturated_rep"}, sweep["knee"]


if __name__ == "__main__":
    sys.exit(dispatch({"rates": rates, "frame": frame, "svg": svg, "target": target, "pct": pct}, sys.argv))
