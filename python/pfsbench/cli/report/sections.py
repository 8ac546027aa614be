"""The tables of one run, read from its groups through pfsbench.open():
the header, the repetitions (pfsbench's text report's rows), the summary
over repetitions (its summary's columns), the latency per operation kind,
the figures per node with the stragglers, and the warnings stored with the
run. Data phases in MiB/s (2^20 bytes/s), metadata phases in files/s."""

from __future__ import annotations

import math
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from ... import rows as R
from ...reader import MIB, Phase, Run
from ...text import text
from ..common import size_text
from ..results import file_system
from .page import esc, key_values, table, tag

REPS_HEADER = ["phase", "rep", "MiB/s|files/s", "IOPS", "seconds", "util", "slowest / fastest node", "tags"]
SUMMARY_HEADER = ["phase", "reps", "mean", "+-", "median", "min", "max", "stddev", "mean s", "bytes|files"]
LATENCY_HEADER = ["phase", "rep", "kind", "count", "min", "p50", "p90", "p99", "p99.9", "max", "mean"]
NODES_HEADER = ["phase", "rep", "node", "host", "ranks", "bytes|files", "seconds", "MiB/s|files/s", "straggler"]
LATENCY_NOTE = ("microseconds (us), from submission to completion; op: the phase's own operation (a transfer; a "
                "file in a metadata phase); p50 .. p99.9 nearest-rank within 1/128")
UNITS_NOTE = ("MiB/s = 2^20 bytes/s, for data phases; files/s for metadata phases; seconds = last close end - "
              "first open start over all streams; util = stream busy time / (streams x seconds); "
              "IOPS = transfers / seconds")


def _ds(p: Phase, name: str) -> Optional[Any]:
    """Phase p's dataset `name` as an array, None when the file has none."""
    return p.group[name][()] if name in p.group else None


def _warmup(p: Phase) -> int:
    return int(p.group.attrs.get("warmup", 0))


def _scale(p: Phase) -> Tuple[float, str]:
    """(divisor, unit) of the phase's figure: MiB/s of bandwidth, or files/s of rate."""
    return (1.0, "files/s") if p.kind == "metadata" else (MIB, "MiB/s")


def _figure(p: Phase) -> Optional[Any]:
    """The phase's figure per repetition in base units: bandwidth (bytes/s), or rate (files/s)."""
    return _ds(p, "rate" if p.kind == "metadata" else "bandwidth")


def _num(v: float, meta: bool) -> str:
    """A figure as pfsbench prints it: files/s with 1 decimal, MiB/s with 2."""
    return ("%.1f" if meta else "%.2f") % v


def header(run: Run) -> str:
    a = run.attrs
    sizes = "transfer %s, block %s per stream, total %s" % (
        size_text(a.get("transfer", 0)), size_text(a.get("block", 0)), size_text(a.get("total", 0)))
    pairs = [("command", str(a.get("command_line", ""))), ("run id", run.run_id), ("status", run.status),
             ("label", run.label or "-"), ("date", "%s .. %s" % (a.get("start_time", "?"), a.get("end_time", "?"))),
             ("ranks", "%d x %d thread%s = %d streams" % (run.ranks, run.threads, "" if run.threads == 1 else "s",
                                                          run.streams)),
             ("nodes", "%d: %s" % (run.nodes, ", ".join(run.hosts[k] for k in sorted(run.hosts)) or "-")),
             ("file system", "%s, directory %s" % (file_system(a), a.get("dir", "?"))),
             ("API", "%s, %s%s" % (a.get("api", "?"), a.get("mode", "?"),
                                   ", %s" % a["layout"] if a.get("mode") == "shared" and a.get("layout") else "")),
             ("sizes", sizes), ("phases", "%s x %s repetitions%s" % (
                 a.get("phases", ""), a.get("reps", "?"),
                 ", %s warm-up" % a["warmup"] if int(a.get("warmup", 0) or 0) else "")),
             ("pfsbench", "%s %s" % (a.get("pfsbench_version", ""), a.get("git_revision", "")))]
    if any(p.kind == "metadata" for p in run.phases):
        pairs.insert(-1, ("metadata", "%s files per stream of %s, %s directory, %s order" % (
            a["files"], size_text(a.get("file_size", 0)), a.get("dirs", "?"), a.get("order", "?"))))
    return key_values(pairs, "head-run%d" % run.number)


def _slow_fast(p: Phase, rep: int, div: float, unit: str) -> str:
    v = _ds(p, "node_rate" if p.kind == "metadata" else "node_bandwidth")
    if v is None or rep >= v.shape[0] or v.shape[1] == 0:
        return "-"
    row = v[rep].astype(float)
    lo, hi = int(np.argmin(row)), int(np.argmax(row))
    meta = p.kind == "metadata"
    return "node %d %s / node %d %s %s" % (lo, _num(row[lo] / div, meta), hi, _num(row[hi] / div, meta), unit)


def repetitions(run: Run) -> str:
    """A row per phase and repetition, as pfsbench's report prints them."""
    cells, classes = [], []
    for p in run.phases:
        fig, sec, util, rate = _figure(p), _ds(p, "seconds"), _ds(p, "utilization"), _ds(p, "rate")
        strag = _ds(p, "node_straggler")
        div, unit = _scale(p)
        meta = p.kind == "metadata"
        for rep in range(p.reps):
            tags = (["warm-up"] if rep < _warmup(p) else []) + (
                ["STRAGGLER"] if strag is not None and rep < strag.shape[0] and strag[rep].any() else [])
            cells.append([p.name(), str(rep), "-" if fig is None else _num(float(fig[rep]) / div, meta),
                          "-" if meta or rate is None else "%.1f" % float(rate[rep]),
                          "-" if sec is None else "%.4f" % float(sec[rep]),
                          "-" if util is None else "%.3f" % float(util[rep]), _slow_fast(p, rep, div, unit),
                          " ".join(tags)])
            classes.append("straggler" if "STRAGGLER" in tags else "warmup" if tags else "")
    return table(REPS_HEADER, cells, [False, True, True, True, True, True, False, False], "reps-run%d" % run.number,
                 classes)


def _summary_row(p: Phase) -> Optional[List[str]]:
    fig, sec = _figure(p), _ds(p, "seconds")
    w = _warmup(p)
    if fig is None or p.reps <= w:
        return None
    div, _ = _scale(p)
    meta = p.kind == "metadata"
    v = fig[w:p.reps].astype(float) / div
    n = len(v)
    ci = float(p.group.attrs.get("ci95_percent", math.nan))
    amount = _ds(p, "ops" if meta else "bytes")
    return [p.name(), str(n), "%.2f" % v.mean(), "%.1f%%" % ci if math.isfinite(ci) else "n/a",
            "%.2f" % float(np.median(v)), "%.2f" % v.min(), "%.2f" % v.max(),
            "%.2f" % float(np.std(v, ddof=1)) if n > 1 else "n/a",
            "-" if sec is None else "%.4f" % float(sec[w:p.reps].mean()),
            "-" if amount is None else str(int(amount[p.reps - 1]))]


def summary(run: Run) -> str:
    """pfsbench's summary over repetitions: the measured ones (warm-up left out)."""
    rows = [r for r in (_summary_row(p) for p in run.phases) if r is not None]
    return table(SUMMARY_HEADER, rows, [False] + [True] * 9, "summary-run%d" % run.number)


def latency(run: Run) -> Optional[str]:
    """Per phase, repetition and kind of operation that happened: count and
    percentiles in microseconds; None when the run recorded none."""
    cells = []
    for p in run.phases:
        s = _ds(p, "latency_summary")
        if s is None:
            continue
        kinds = text(p.group.attrs.get("latency_kinds", ",".join(R.LAT_KINDS))).split(",")
        for rep in range(min(p.reps, s.shape[0])):
            for k, kind in enumerate(kinds[:s.shape[1]]):
                e = s[rep, k]
                if int(e["count"]) == 0:
                    continue
                cells.append([p.name(), str(rep), kind, str(int(e["count"]))] + [
                    "%.1f" % (float(e[f]) / 1e3) for f in ("min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns",
                                                           "max_ns", "mean_ns")])
    if not cells:
        return None
    return table(LATENCY_HEADER, cells, [False, True, False] + [True] * 8, "latency-run%d" % run.number)


def _node_rows(run: Run, p: Phase) -> Tuple[List[List[str]], List[str], List[str]]:
    """(cells, row classes, straggler words) of one phase's nodes."""
    fig = _ds(p, "node_rate" if p.kind == "metadata" else "node_bandwidth")
    if fig is None or p.reps == 0:
        return [], [], []
    amount, sec, strag = _ds(p, "node_bytes"), _ds(p, "node_seconds"), _ds(p, "node_straggler")
    if p.kind == "metadata":
        amount = None  # node_bytes of a metadata phase: the files' bytes, not the figure's amount
    div, unit = _scale(p)
    cells, classes, words = [], [], []
    for rep in range(min(p.reps, fig.shape[0])):
        for k in range(fig.shape[1]):
            flagged = strag is not None and bool(strag[rep][k])
            host = run.hosts.get(k, "?")
            cells.append([p.name(), str(rep), str(k), host, str(int((run.rank_node == k).sum())),
                          "-" if amount is None else str(int(amount[rep][k])),
                          "-" if sec is None else "%.4f" % float(sec[rep][k]),
                          _num(float(fig[rep][k]) / div, p.kind == "metadata"), "yes" if flagged else "no"])
            classes.append("straggler" if flagged else "")
            if flagged:
                words.append("%s rep %d: node %d (%s) %s %s" % (p.name(), rep, k, host,
                                                                _num(float(fig[rep][k]) / div, p.kind == "metadata"),
                                                                unit))
    return cells, classes, words


def nodes(run: Run) -> Optional[str]:
    """The figures per node and repetition, stragglers marked and listed."""
    cells: List[List[str]] = []
    classes: List[str] = []
    words: List[str] = []
    for p in run.phases:
        c, k, w = _node_rows(run, p)
        cells, classes, words = cells + c, classes + k, words + w
    if not cells:
        return None
    lead = ("stragglers (below %s x the median node of the repetition): %s" % (run.attrs.get("straggler", "?"),
                                                                              "; ".join(words))
            if words else "no straggler: every node within %s x the median node" % run.attrs.get("straggler", "?"))
    return tag("p", esc(lead), "bad" if words else None) + table(
        NODES_HEADER, cells, [False, True, True, False, True, True, True, True, False], "nodes-run%d" % run.number,
        classes)


def warnings(run: Run) -> List[str]:
    """The run's error (unless complete) and the warnings pfsbench stored with it, a line each."""
    out = []
    if run.status != "complete" and run.attrs.get("error"):
        out.append("error: %s" % run.attrs["error"])
    out += [w for w in str(run.attrs.get("warnings", "")).split("\n") if w.strip()]
    return out


def warning_list(lines: Sequence[str], ident: str) -> str:
    if not lines:
        return tag("p", "none stored with the run", ident=ident)
    return tag("ul", "".join(tag("li", esc(w)) for w in lines), "warnings", ident)
