"""check_rep_delay.py FILE DELAY REPS: the last run of results file FILE
ran REPS repetitions with --rep-delay DELAY, and its stored times show it.

The run's rep_delay attribute is DELAY; between the last close of
repetition r-1 (over every phase) and the first open of repetition r lie
at least DELAY seconds, and not absurdly more (DELAY + 60): the sleep is
between repetitions, outside every phase's timed span (which starts at
its first open). Prints each gap.
"""
import sys

import h5py
import numpy as np


def spans(run: h5py.Group, reps: int) -> list[tuple[float, float]]:
    """(first open, last close) of each repetition over all its phases."""
    lo = [np.inf] * reps
    hi = [-np.inf] * reps
    for pg in run["phases"].values():
        times = pg["times"][()]
        assert times.shape[0] == reps, (pg.name, times.shape)
        for r in range(reps):
            lo[r] = min(lo[r], float(times[r]["open_start"].min()))
            hi[r] = max(hi[r], float(times[r]["close_end"].max()))
    return list(zip(lo, hi))


def main() -> int:
    path, delay, reps = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    with h5py.File(path, "r") as f:
        run = f["runs"][sorted(f["runs"])[-1]]
        assert float(run.attrs["rep_delay"]) == delay, run.attrs["rep_delay"]
        sp = spans(run, reps)
    gaps = [sp[r][0] - sp[r - 1][1] for r in range(1, reps)]
    for r, g in enumerate(gaps, 1):
        assert delay <= g < delay + 60, "repetition %d starts %.3f s after %d ends, want >= %g" % (r, g, r - 1, delay)
    print("gaps between repetitions: %s s" % ", ".join("%.3f" % g for g in gaps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
