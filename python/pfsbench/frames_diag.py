"""The diagnosis frames of a results file: each phase's slowest operations
(`exemplars`), its storage targets (`targets`) and their latency histograms
(`target_latency`), and the key columns every
per-phase frame begins with. frames.py lists them; this module uses none of
its names."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Protocol, Tuple

import numpy as np

from .text import text

if TYPE_CHECKING:
    from .reader import Phase, Run

Spec = List[Tuple[str, str]]
KEY: Spec = [("run", "i8"), ("phase", "O"), ("index", "i8"), ("kind", "O")]
# The job's slowest operations (--exemplars): the file's `exemplars` fields, start as start_s (run-relative).
EXEMPLAR_COLUMNS: Spec = KEY + [("rep", "i8"), ("rank", "i8"), ("host", "O"), ("thread", "i8"), ("op", "O"), ("file", "i8"),
                           ("offset", "u8"), ("length", "u8"), ("target", "i8"), ("target_name", "O"),
                                 ("start_s", "f8"), ("duration_ns", "i8")]
# A data phase's storage targets: the file's `targets` rows, one per repetition and target.
TARGET_COLUMNS: Spec = KEY + [("rep", "i8"), ("target", "i8"), ("name", "O"), ("bytes", "i8"), ("ops", "i8"),
                              ("busy_s", "f8"), ("bandwidth", "f8"), ("p50_ns", "f8"), ("p99_ns", "f8"),
                              ("max_ns", "f8"), ("p99_ratio", "f8"), ("bandwidth_ratio", "f8"), ("slow", "i8")]
# Each target row's histogram (the file's `target_latency` [row][bucket]): its non-empty buckets.
TARGET_HIST_COLUMNS: Spec = KEY + [("rep", "i8"), ("target", "i8"), ("name", "O"), ("bucket", "i8"),
                                   ("bucket_lo", "u8"), ("bucket_hi", "u8"), ("count", "i8")]


class Rows(Protocol):
    """What a frame's fill adds its rows to (frames.Columns)."""

    def add(self, n: int, **cols: Any) -> None: ...


def key(run: Run, p: Phase) -> Dict[str, Any]:
    return {"run": run.number, "phase": p.phase, "index": p.index, "kind": p.kind}


def exemplars(run: Run, cols: Rows) -> None:
    """Each phase's `exemplars` rows as stored (every repetition's, slowest
    first), their start relative to the run's start."""
    for p in run.phases:
        pg = p.group
        if p.reps == 0 or "exemplars" not in pg or pg["exemplars"].ndim != 1:
            continue
        ex = pg["exemplars"][()]
        names = ex.dtype.names or ()
        if len(ex) == 0:
            continue
        d: Dict[str, Any] = dict(key(run, p))
        for k in ("rep", "rank", "thread", "file", "offset", "length", "target", "duration_ns"):
            if k in names:
                d[k] = ex[k]
        for k in ("host", "op", "target_name"):
            if k in names:
                d[k] = np.array([text(x) for x in ex[k]], dtype=object)
        if "start" in names:
            d["start_s"] = ex["start"] - run.t0
        cols.add(len(ex), **d)


def target_rows(rep: Any) -> Any:
    """Each row's number among its repetition's rows (what an exemplar's
    target names)."""
    out = np.zeros(len(rep), dtype="i8")
    for i in range(1, len(rep)):
        out[i] = out[i - 1] + 1 if rep[i] == rep[i - 1] else 0
    return out


def targets(run: Run, cols: Rows) -> None:
    """Each data phase's `targets` rows as stored (every repetition's)."""
    for p in run.phases:
        pg = p.group
        if p.reps == 0 or "targets" not in pg or pg["targets"].ndim != 1 or len(pg["targets"]) == 0:
            continue
        t = pg["targets"][()]
        names = t.dtype.names or ()
        d: Dict[str, Any] = dict(key(run, p))
        for k in ("rep", "bytes", "ops", "busy_s", "bandwidth", "p50_ns", "p99_ns", "max_ns", "p99_ratio",
                  "bandwidth_ratio", "slow"):
            if k in names:
                d[k] = t[k]
        if "rep" in names:
            d["target"] = target_rows(t["rep"])
        if "name" in names:
            d["name"] = np.array([text(x) for x in t["name"]], dtype=object)
        cols.add(len(t), **d)


def target_hists(run: Run, cols: Rows) -> None:
    """Each data phase's `target_latency` rows: a row per target row of
    `targets` and non-empty bucket, with the bucket's edges (ns)."""
    for p in run.phases:
        pg = p.group
        if p.reps == 0 or "target_latency" not in pg or "targets" not in pg or "latency_bucket_lo" not in pg:
            continue
        t, h = pg["targets"][()], pg["target_latency"][()]
        if h.ndim != 2 or len(t) != h.shape[0] or len(t) == 0:
            continue
        lo, hi = pg["latency_bucket_lo"][()], pg["latency_bucket_hi"][()]
        g, b = np.nonzero(h)
        d: Dict[str, Any] = dict(key(run, p), bucket=b, bucket_lo=lo[b].astype(np.uint64),
                                 bucket_hi=hi[b].astype(np.uint64), count=h[g, b].astype(np.int64))
        names = t.dtype.names or ()
        if "rep" in names:
            d["rep"] = t["rep"][g]
            d["target"] = target_rows(t["rep"])[g]
        if "name" in names:
            d["name"] = np.array([text(x) for x in t["name"][g]], dtype=object)
        cols.add(len(b), **d)
