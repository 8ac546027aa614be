"""check_series.py FILE PHASE LOG [SRC]: the time series of PHASE (its first
repetition, in the last run of results file FILE) against the truth.

The truth is what the delay shim (tests/lib/delay.c, PFS_DELAY_LOG=LOG)
wrote when each delayed call ended: LOG.<rank> holds one line per call,
"<realtime s> <bytes>". Checked:
  - the stored edges (timeseries/rep_000 start and end) are the phase's
    intervals: the grid t0 + k x interval cut to the phase's span (its
    first open to its last close, from the stored times), an edge interval
    that overlaps the phase by less than a quarter of the interval joined
    to its neighbour; the same edges in pfsbench.open(FILE).timeline();
  - every interval's bandwidth and ops/s in the frame, per node, the first
    and the last included, are within 5% of the truth: the bytes and calls
    the log puts inside the interval over the interval's length.
LOG "-": no log; the phase must be shorter than one interval and its one
point must be the phase's own rate per node (bytes, or files, over the
phase's time). SRC: the source tree, for the pfsbench package (python/).
"""
import glob
import math
import os
import sys
from typing import Any, Dict, List, Tuple

import h5py
import numpy as np
from numpy.typing import NDArray

SLIVER = 0.25  # include/pfs/hist.h PFS_TS_SLIVER
TOLERANCE = 0.05


def true_edges(t0: float, dt: float, lo: float, hi: float) -> Tuple[NDArray[Any], NDArray[Any]]:
    """The intervals a phase from lo to hi should have on the grid t0 + k dt."""
    k0 = max(0, math.floor((lo - t0) / dt))
    k1 = max(k0, math.ceil((hi - t0) / dt) - 1)
    if k0 < k1 and t0 + (k0 + 1) * dt - lo < SLIVER * dt:
        k0 += 1
    if k1 > k0 and hi - (t0 + k1 * dt) < SLIVER * dt:
        k1 -= 1
    inner = [t0 + k * dt for k in range(k0 + 1, k1 + 1)]
    return np.array([lo] + inner), np.array(inner + [hi])


def logged(prefix: str, ranks: List[int], own: Dict[int, float]) -> Tuple[NDArray[Any], NDArray[Any]]:
    """(times, bytes) of the calls the shim logged on these ranks, on the
    span's clock: less the rank's own work (verify_seconds: here the storage
    targets' lookup after the open, before any transfer), which the phase's
    ends and its series leave out."""
    t, b = [], []
    for r in ranks:
        path = "%s.%d" % (prefix, r)
        assert os.path.exists(path), "no log %s (was the shim preloaded?)" % path
        for line in open(path):
            a, n = line.split()
            t.append(float(a) - own[r])
            b.append(int(n))
    return np.array(t), np.array(b)


def near(got: float, want: float, what: str) -> float:
    """Asserts got within TOLERANCE of want; returns how far off, relative."""
    assert abs(got - want) <= TOLERANCE * want, "%s: %.6g, the truth %.6g (%.1f%% off)" % (
        what, got, want, 100.0 * (got - want) / want if want else float("inf"))
    return abs(got - want) / want if want else 0.0


def main() -> int:
    path, phase, prefix = sys.argv[1], sys.argv[2], sys.argv[3]
    src = sys.argv[4] if len(sys.argv) > 4 else os.path.join(os.path.dirname(__file__), "..", "..")
    sys.path.insert(0, os.path.join(src, "python"))
    import pfsbench

    with h5py.File(path, "r") as f:
        run = f["runs"][sorted(f["runs"])[-1]]
        pg = next(g for g in run["phases"].values() if g.attrs["phase"] in (phase, phase.encode()))
        index = int(pg.attrs["index"])
        tm = pg["times"][0]
        lo, hi = float(tm["open_start"].min()), float(tm["close_end"].max())
        tg = pg["timeseries/rep_000"]
        t0, dt = float(tg.attrs["t0"]), float(tg.attrs["interval"])
        start, end = tg["start"][()], tg["end"][()]
        want_s, want_e = true_edges(t0, dt, lo, hi)
        assert start[0] == lo and end[-1] == hi, ("the phase's span", start[0], lo, end[-1], hi)
        assert len(start) == len(want_s), ("intervals", list(start - lo), list(want_s - lo))
        assert np.allclose(start, want_s, rtol=0, atol=1e-6) and np.allclose(end, want_e, rtol=0, atol=1e-6), \
            (list(start - lo), list(want_s - lo), list(end - lo), list(want_e - lo))
        assert (start[1:] == end[:-1]).all(), "intervals that do not meet"
        placement = run["placement"][()]
        node_of = {int(p["rank"]): int(p["node"]) for p in placement}
        nb = pg["node_bytes"][0]
        node_ops = {k: int(sum(tm["transfers"][s] for s in range(len(tm)) if node_of[s] == k))
                    for k in range(len(nb))}
        own = {s: float(tm["verify_seconds"][s]) for s in range(len(tm))}
        threads = len(tm) // len(placement)
        assert threads == 1, "one stream per rank: the log is per rank"
    with pfsbench.open(path) as res:
        tl = res.runs[-1].timeline()
        tl = tl[(tl["index"] == index) & (tl.rep == 0)].sort_values(["interval", "node"])
        t0run = res.runs[-1].t0
    for k in sorted(set(tl.node)):
        mine = tl[tl.node == k].sort_values("interval")
        a, b = mine.t_start_s.to_numpy() + t0run, mine.t_end_s.to_numpy() + t0run
        assert np.allclose(a, want_s, rtol=0, atol=2e-6) and np.allclose(b, want_e, rtol=0, atol=2e-6), \
            ("the frame's edges", k, list(a - lo), list(want_s - lo))
        if prefix == "-":
            assert len(mine) == 1, "a phase shorter than one interval: one point, not %d" % len(mine)
            x = mine.iloc[0]
            near(float(x.bandwidth), nb[k] / (hi - lo), "node %d: the one point's bandwidth" % k)
            near(float(x.iops), node_ops[k] / (hi - lo), "node %d: the one point's ops/s" % k)
            continue
        t, n = logged(prefix, [r for r, node in node_of.items() if node == k], own)
        inside = (t >= lo) & (t <= hi)
        assert n[inside].sum() == nb[k], ("the log holds the node's bytes", n[inside].sum(), nb[k])
        worst = 0.0
        for i, (s, e) in enumerate(zip(want_s, want_e)):
            sel = (t >= s) & ((t < e) if i + 1 < len(want_s) else (t <= e))
            x = mine.iloc[i]
            what = "node %d interval %d of %d [%.4f, %.4f) s" % (k, i, len(want_s), s - lo, e - lo)
            worst = max(worst, near(float(x.bandwidth), n[sel].sum() / (e - s), what + " bandwidth"),
                        near(float(x.iops), sel.sum() / (e - s), what + " ops/s"))
        print("node %d: %d intervals %s s, each within %.2f%% of the logged rate" % (
            k, len(mine), " ".join("[%.3f, %.3f)" % (s - lo, e - lo) for s, e in zip(want_s, want_e)), 100 * worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
