"""check_short.py FILE [PHASE]: the short-phase warning of the last run of
results file FILE against its own stored times.

For every phase and repetition, recomputed from the times and the
placement: the phase's time, the spread of its streams' starts, its
aggregate and each node's own rate (bytes, or files in a metadata phase,
over the node's own span). The run's warnings must hold "<phase> rep <r>:
too short to measure: <seconds>" (the first such repetition of the phase)
exactly when the time is under 10x the start spread or the aggregate under
half the slowest node's rate, with the figures as %.4g. PHASE: that phase
must be one of them (the case the test set up). Prints each phase's
verdict.
"""
import sys
from typing import Any, Tuple

import h5py
import numpy as np

FACTOR, FRAC = 10.0, 0.5  # include/pfs/core.h PFS_SKEW_FACTOR, PFS_SKEW_NODE_FRAC


def text(v: object) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def short(t: Any, node: Any, meta: bool) -> Tuple[bool, float, float]:
    """(short?, seconds, start skew) of one repetition's times."""
    lo, hi = t["open_start"].min(), t["close_end"].max()
    sec = hi - lo
    skew = t["open_start"].max() - lo
    amount = (t["transfers"] if meta else t["bytes"]).astype(float)
    agg = amount.sum() / sec if sec > 0 else 0.0
    rates = []
    for k in sorted(set(node)):
        mine = node == k
        span = t["close_end"][mine].max() - t["open_start"][mine].min()
        if span > 0 and amount[mine].sum() > 0:
            rates.append(amount[mine].sum() / span)
    near = 0 < sec < FACTOR * skew
    below = bool(rates) and agg < FRAC * min(rates)
    return near or below, sec, skew


def main() -> int:
    f = h5py.File(sys.argv[1], "r")
    run = f["runs"][sorted(f["runs"])[-1]]
    warnings = text(run.attrs["warnings"])
    threads = int(run.attrs["threads"]) if "threads" in run.attrs else 1
    rank_node = run["placement"]["node"][()]
    seen = []
    for pg in run["phases"].values():
        phase, reps = text(pg.attrs["phase"]), int(pg.attrs["repetitions"])
        meta = text(pg.attrs["kind"]) == "metadata"
        times = pg["times"][()]
        node = np.repeat(rank_node, threads)[:times.shape[1]]
        verdicts = [short(times[r], node, meta) for r in range(reps)]
        first = next((r for r in range(reps) if verdicts[r][0]), None)
        said = "%s rep " % phase in warnings and "too short to measure" in warnings
        if first is None:
            assert "%s rep " % phase not in warnings, (phase, warnings)
            seen.append("%s: measured" % phase)
            continue
        _, sec, skew = verdicts[first]
        want = "%s rep %d: too short to measure: %.4g s" % (phase, first, sec)
        assert said and want in warnings, (want, warnings)
        assert "the streams started %.4g s apart" % skew in warnings, (skew, warnings)
        seen.append("%s: too short (%.4g s, starts %.4g s apart)" % (phase, sec, skew))
    if len(sys.argv) > 2:
        assert any(s.startswith(sys.argv[2] + ": too short") for s in seen), seen
    print("; ".join(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
