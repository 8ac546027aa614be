"""--rate-sweep's latency-load curve as a frame (Results.load()): one row
per run, data phase and repetition of a sweep (or of --latency-target's
search), with the phase's knee (and the search's answer) repeated on its
rows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict

import numpy as np

from .columns import Columns, Spec
from .text import text

if TYPE_CHECKING:
    from .reader import Run

LOAD_COLUMNS: Spec = [("run", "i8"), ("phase", "O"), ("index", "i8"), ("rep", "i8"), ("offered_rate", "f8"),
                      ("rate", "f8"), ("rate_short", "?"), ("p50_ns", "f8"), ("p99_ns", "f8"), ("p999_ns", "f8"),
                      ("knee_found", "?"), ("knee_rate", "f8"), ("knee_below_rep", "i8"), ("knee_above_rep", "i8"),
                      ("knee_base_p99_ns", "f8"), ("knee_saturated_rep", "i8"), ("latency_target", "O"),
                      ("target_rate", "f8"), ("target_rep", "i8")]
KNEE_ATTRS = (("knee_rate", "knee_rate"), ("knee_below_rep", "knee_below_rep"),
              ("knee_above_rep", "knee_above_rep"), ("knee_base_p99_ns", "knee_base_p99"),
              ("knee_saturated_rep", "knee_saturated_rep"), ("target_rate", "target_rate"),
              ("target_rep", "target_rep"))


def load_rows(run: Run, cols: Columns) -> None:
    """The phases of run with a curve (load_p99 and knee_found: a run of
    --rate-sweep); a closed-loop point's offered_rate is 0."""
    for p in run.phases:
        pg, n = p.group, p.reps
        if n == 0 or "load_p99" not in pg or "knee_found" not in pg.attrs:
            continue
        d: Dict[str, Any] = {"run": run.number, "phase": p.phase, "index": p.index, "rep": np.arange(n),
                             "offered_rate": pg["offered_rate"][:n], "rate": pg["rate"][:n],
                             "p50_ns": pg["load_p50"][:n], "p99_ns": pg["load_p99"][:n],
                             "p999_ns": pg["load_p999"][:n], "knee_found": bool(int(pg.attrs["knee_found"]))}
        if "rate_short" in pg:
            d["rate_short"] = pg["rate_short"][:n].astype(bool)
        for col, attr in KNEE_ATTRS:
            if attr in pg.attrs:
                d[col] = float(pg.attrs[attr])
        if "latency_target" in pg.attrs:
            d["latency_target"] = text(pg.attrs["latency_target"])
        cols.add(n, **d)
