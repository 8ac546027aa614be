"""pfs-plot latency: latency CDFs (log x) from the histograms pfsbench
stores, a line per phase, per node (--per node) or per run (several
--run); p50, p99 and p99.9 marked as pfsbench reports them, the stored
slowest operations (--exemplars) as ticks on the top edge; below, the
tail (1 - CDF, log y) unless --no-tail."""

from __future__ import annotations

import argparse
import math
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D

from ... import rows as R
from ...reader import Phase, Run
from ...text import text
from ..common import Usage
from ..names import phase_name
from ..table import Data
from .common import MANY_NODES, MUTED, OLD_FILE, WARM, cycle_colours, default_prefix, pick_run, run_title, save, \
    style, wrap, write_csv

Series = Dict[str, Any]  # one line: name, run, phase, node, h (histogram), min, max (ns), straggler, ...
QUANTILES = (0.5, 0.99, 0.999)
MARKER = {0.5: "o", 0.99: "s", 0.999: "^"}


def quantile(h: Any, q: float, lo: Any, hi: Any, mn: float, mx: float) -> float:
    """pfsbench's quantile of a histogram (include/pfs/hist.h): the bucket
    at nearest rank ceil(q x count), its midpoint clamped to [min, max]."""
    count = int(h.sum())
    x = q * count
    r = round(x)
    rank = r if abs(x - r) <= 1e-9 * max(r, 1) else math.ceil(x)
    rank = min(max(int(rank), 1), count)
    i = int(np.searchsorted(np.cumsum(h), rank))
    m = (float(lo[i]) + float(hi[i])) / 2
    return min(max(m, mn), mx)


def cdf(h: Any, lo: Any, hi: Any, mn: float, mx: float) -> Tuple[Any, Any, Any]:
    """The CDF's points: (min, 0), then each bucket's upper edge (the largest
    ns it holds) with the fraction of operations at or below it, the last
    at the exact max. x in ns, cumulative counts, fractions."""
    nz = np.nonzero(h)[0]
    first, last = int(nz[0]), int(nz[-1])
    c = np.cumsum(h[first:last + 1]).astype(np.int64)
    x = hi[first:last + 1].astype(float)
    x[-1] = mx
    x = np.concatenate([[mn], x])
    c = np.concatenate([[0], c])
    return x, c, c / float(c[-1])


def _node_series(run: Run, p: Phase, rr: List[int]) -> List[Series]:
    """--per node: a line per node that completed operations of the phase."""
    pg = p.group
    if "node_latency" not in pg:
        raise Usage("run %d %s has no per-node histograms: %s" % (run.number, p.phase, OLD_FILE))
    nh = pg["node_latency"][rr[0]:rr[-1] + 1].sum(axis=0)
    ns = pg["node_latency_summary"][rr[0]:rr[-1] + 1]
    st = pg["node_straggler"][rr[0]:rr[-1] + 1].any(axis=0) if "node_straggler" in pg else None
    out = []
    for k in range(nh.shape[0]):
        cnt = ns["count"][:, k] > 0
        if not cnt.any():
            continue
        out.append({"name": "node %d (%s)" % (k, run.hosts.get(k, "?")), "run": run.number, "phase": p.phase,
                    "node": k, "h": nh[k], "min": float(ns["min_ns"][:, k][cnt].min()),
                    "max": float(ns["max_ns"][:, k][cnt].max()), "straggler": bool(st[k]) if st is not None else False})
    return out


def _phases(run: Run, a: argparse.Namespace, per: str, notes: List[str]) -> List[Phase]:
    """The run's recorded phases the chart shows (--phase; with --per node or run, the first)."""
    groups = [p for p in run.phases if p.reps > 0]
    if not groups:
        raise Usage("run %d has no recorded phases" % run.number)
    if not any("latency" in p.group for p in groups):
        raise Usage("run %d has no latency histograms: %s" % (run.number, OLD_FILE))
    names = [p.phase for p in groups]
    if a.phase and a.phase not in names:
        raise Usage("--phase %s: run %d has %s" % (a.phase, run.number, ", ".join(names)))
    if per != "phase" and not a.phase:
        a.phase = names[0]
        notes.append("--per %s: phase %s (give --phase for another)" % (per, a.phase))
    return [p for p in groups if not a.phase or p.phase == a.phase]


def _exemplars(pg: Any, phase: str, kind: str, rr: List[int]) -> Any:
    """The durations (ns) of the phase's stored exemplars (--exemplars) of the
    kind shown, in repetitions rr; empty for a file without them. The op
    kind is the phase's transfers: in rwmix (a phase with read_ops) its reads
    and writes, whose exemplars are named so."""
    if "exemplars" not in pg or pg["exemplars"].ndim != 1 or len(pg["exemplars"]) == 0:
        return np.empty(0)
    ex = pg["exemplars"][()]
    want = {kind} if kind != "op" else {phase, "read", "write"} if "read_ops" in pg else {phase}
    keep = np.array([text(o) in want for o in ex["op"]], dtype=bool) & np.isin(ex["rep"], rr)
    return ex["duration_ns"][keep].astype(float)


def _run_series(data: Data, run: Run, a: argparse.Namespace, per: str, ki: int, notes: List[str],
                edges: List[Any]) -> List[Series]:
    """The lines of one run; edges gets the histograms' bucket edges (lo, hi)."""
    series: List[Series] = []
    for p in _phases(run, a, per, notes):
        pg = p.group
        if "latency" not in pg:
            notes.append("run %d %s: no latency histogram (left out)" % (run.number, p.phase))
            continue
        if a.rep is not None and not 0 <= a.rep < p.reps:
            raise Usage("--rep %d: run %d %s has repetitions 0..%d" % (a.rep, run.number, p.phase, p.reps - 1))
        rr = [a.rep] if a.rep is not None else list(range(p.reps))
        edges[:] = [pg["latency_bucket_lo"][()].astype(np.uint64), pg["latency_bucket_hi"][()].astype(np.uint64)]
        if per == "node":
            series += _node_series(run, p, rr)
        h = pg["latency"][rr[0]:rr[-1] + 1, ki].sum(axis=0)
        sm = pg["latency_summary"][rr[0]:rr[-1] + 1, ki]
        cnt = sm["count"] > 0
        if not cnt.any():
            continue
        lab = data.runs.get(run.number, {}).get("label", "")
        name = phase_name(p.phase, a.names) if per == "phase" else (
            "all nodes" if per == "node" else "run %d%s" % (run.number, " (%s)" % lab if lab else ""))
        series.append({"name": name, "run": run.number, "phase": p.phase, "node": "", "h": h,
                       "min": float(sm["min_ns"][cnt].min()), "max": float(sm["max_ns"][cnt].max()),
                       "straggler": False, "merged": per == "node",
                       "ex": _exemplars(pg, p.phase, a.kind, rr)})
    return series


def _per(a: argparse.Namespace) -> Tuple[int, str]:
    """(the index of --kind in the histograms, what a line is: phase, node or run)."""
    if a.kind not in R.LAT_KINDS:
        raise Usage("--kind %s: one of %s" % (a.kind, ", ".join(R.LAT_KINDS)))
    per = a.per or ("run" if a.run and len(a.run) > 1 else "phase")
    if per != "run" and a.run and len(a.run) > 1:
        raise Usage("--per %s shows one run; several --run compare runs (--per run)" % per)
    if per == "node" and a.kind != "op":
        raise Usage("--per node: the file keeps per-node histograms of the op kind only")
    return R.LAT_KINDS.index(a.kind), per


def _all_series(data: Data, a: argparse.Namespace, ki: int, per: str) -> List[Series]:
    """Every line of the chart, each with its CDF (x, c, y), count and quantiles (q)."""
    notes: List[str] = []
    edges: List[Any] = []
    series: List[Series] = []
    for run in [pick_run(data, w) for w in (a.run or [None])]:
        series += _run_series(data, run, a, per, ki, notes, edges)
    for n in notes:
        sys.stderr.write("pfs-plot: %s\n" % n)
    if not series:
        raise Usage("no %s operations recorded in the runs and phases chosen%s" % (
            a.kind, " (fsync is timed with -e and --fsync-every N)" if a.kind == "fsync" else ""))
    lo, hi = edges
    for s in series:
        s["x"], s["c"], s["y"] = cdf(s["h"], lo, hi, s["min"], s["max"])
        s["count"] = int(s["c"][-1])
        s["q"] = [(q, quantile(s["h"], q, lo, hi, s["min"], s["max"])) for q in QUANTILES]
    return series


def _assign(axes: Sequence[Any], series: List[Series], per: str, many: bool, div: float) -> List[Series]:
    """Each line's colour and width (stragglers warm, other nodes muted); with
    many nodes, each node drawn here thin and grey. Returns the lines that
    get percentile marks."""
    marked: List[Series] = []
    cyc = cycle_colours()
    mi = wi = 0
    for i, s in enumerate(series):
        if per == "node" and not s.get("merged"):
            if many:
                c, lw, z = (WARM[0], 0.8, 3) if s["straggler"] else ("#9a9a9a", 0.4, 1)
                for axx, yy in zip(axes, (s["y"], 1.0 - s["y"])):
                    axx.plot(s["x"] / div, yy, color=c, linewidth=lw, alpha=0.6 if not s["straggler"] else 0.9,
                             zorder=z, rasterized=True)
                continue
            if s["straggler"]:
                s["colour"], s["lw"] = WARM[wi % len(WARM)], 1.7
                wi += 1
            else:
                s["colour"], s["lw"] = MUTED[mi % len(MUTED)], 1.3
                mi += 1
        elif s.get("merged"):
            s["colour"], s["lw"] = "#1a1a1a", 1.8 if many else 1.2
            s["ls"] = "-" if many else (0, (4, 2))
        elif per == "phase":
            s["colour"], s["lw"] = style(s["phase"], i)[0], 1.6
        else:
            s["colour"], s["lw"] = cyc[len(marked) % len(cyc)], 1.6
        marked.append(s)
    return marked


class Units:
    """The latency axis' unit: ms when every p50 is 1 ms or more, else us."""

    def __init__(self, series: List[Series]) -> None:
        p50s = sorted(s["q"][0][1] for s in series)
        self.div, self.name = (1e6, "ms") if p50s[0] >= 1e6 else (1e3, "\u00b5s")

    def text(self, ns: float) -> str:
        x = ns / self.div
        return "%.3g" % x if x < 1000 else "{:,.0f}".format(x)


def _draw(ax: Any, axt: Optional[Any], marked: List[Series], u: Units) -> Tuple[List[Any], List[Any]]:
    """The marked lines, on the CDF and the tail, with their p50, p99 and
    p99.9 (labelled when there are few lines); (legend handles, labels)."""
    handles, ann = [], []
    for s in marked:
        tag = "%s  (%s ops%s): p50 %s, p99 %s, p99.9 %s %s" % (
            s["name"], "{:,}".format(s["count"]), ", straggler" if s["straggler"] else "",
            u.text(s["q"][0][1]), u.text(s["q"][1][1]), u.text(s["q"][2][1]), u.name)
        line, = ax.plot(s["x"] / u.div, s["y"], color=s["colour"], linewidth=s["lw"], linestyle=s.get("ls", "-"),
                        zorder=4, label=tag)
        handles.append(line)
        if axt is not None:  # the same CDF as the fraction above each latency, log y: the tail apart
            axt.plot(s["x"] / u.div, 1.0 - s["y"], color=s["colour"], linewidth=s["lw"], linestyle=s.get("ls", "-"),
                     zorder=4)
        if len(s.get("ex", ())):  # the slowest operations stored: ticks on the CDF's top edge
            ax.plot(s["ex"] / u.div, np.ones(len(s["ex"])), marker="|", markersize=10, markeredgewidth=1.2,
                    color=s["colour"], linestyle="none", zorder=6, clip_on=False)
        for q, x in s["q"]:
            # p50 labelled on the CDF; p99 and p99.9, which the CDF squeezes under 1.0, on the tail panel.
            on = axt if axt is not None and q > 0.5 else ax
            yq = 1.0 - q if on is axt else q
            for axx, yy in ((ax, q), (axt, 1.0 - q)) if axt is not None else ((ax, q),):
                axx.plot([x / u.div], [yy], marker=MARKER[q], markersize=4.5, color=s["colour"],
                         markeredgecolor="white", markeredgewidth=0.6, zorder=5, linestyle="none")
            if len(marked) <= 6:
                ann.append(on.annotate("p%s %s" % ("%g" % (q * 100), u.text(x)), (x / u.div, yq), xytext=(5, -3),
                                       textcoords="offset points", ha="left", va="top", fontsize=7,
                                       color=s["colour"], zorder=6,
                                       bbox=dict(boxstyle="square,pad=0.1", facecolor="white", alpha=0.75,
                                                 linewidth=0)))
    return handles, ann


def _legend_extra(handles: List[Any], node_lines: List[Series], many: bool, exemplars: int) -> None:
    if many:
        ns = sum(1 for s in node_lines if s["straggler"])
        handles.insert(0, Line2D([0], [0], color="#9a9a9a", linewidth=0.8, label="each node (%d)" % len(node_lines)))
        if ns:
            handles.insert(1, Line2D([0], [0], color=WARM[0], linewidth=1.0, label="straggler nodes (%d)" % ns))
    handles.append(Line2D([0], [0], color="#555555", marker="o", linestyle="none", markersize=4.5,
                          label="markers: p50 (circle), p99 (square), p99.9 (triangle)"))
    if exemplars:
        handles.append(Line2D([0], [0], color="#555555", marker="|", linestyle="none", markersize=10,
                              label="ticks at the top: the %d slowest operations stored (--exemplars)" % exemplars))


def _axes(ax: Any, axt: Optional[Any], series: List[Series], u: Units) -> None:
    ax.set_xscale("log")
    xmin = min(float(s["x"][0]) for s in series) / u.div
    xmax = max(float(s["x"][-1]) for s in series) / u.div
    ax.set_xlim(xmin / 1.5, xmax * 1.5)
    if axt is not None:
        axt.set_yscale("log")
        # Down past 1/count, and past 10^-3, so that the p99.9 marks sit inside the panel.
        axt.set_ylim(min(0.3 / max(s["count"] for s in series), 3e-4), 1.0)
        axt.grid(True, which="major", alpha=0.35)
        axt.grid(True, which="minor", axis="x", alpha=0.12)
        axt.set_ylabel("fraction of operations > latency\n(the tail, log scale)")
    ax.set_ylim(0, 1.02)
    ax.set_yticks([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", axis="x", alpha=0.12)
    (axt if axt is not None else ax).set_xlabel("latency (%s, log scale), from submission to completion" % u.name)
    ax.tick_params(labelbottom=True)
    ax.set_ylabel("fraction of operations \u2264 latency")


def _title(data: Data, a: argparse.Namespace, per: str, series: List[Series]) -> str:
    what = "%s latency CDF%s" % ("transfer/file-operation" if a.kind == "op" else a.kind,
                                 {"phase": ", a line per phase", "node": " of %s, a line per node" % a.phase,
                                  "run": " of %s, a line per run" % a.phase}[per])
    reps = "repetition %d" % a.rep if a.rep is not None else "all repetitions merged"
    runs = sorted({s["run"] for s in series})
    title = run_title(data, series[0]["run"], what) if len(runs) == 1 else \
        "runs %s: %s\n" % (", ".join(str(r) for r in runs), what)
    return "%s\n%s" % (title.rstrip("\n"), wrap(
        "%s; CDF points at each histogram bucket's upper edge (exact fraction \u2264 it; buckets 1/64 of a power "
        "of two), the last at the exact max; p50/p99/p99.9 as pfsbench reports them (bucket midpoints)"
        % reps, 110))


def spread(fig: Any, ann: List[Any]) -> None:
    """Moves the percentile labels down until none overlaps another."""
    if not ann:
        return
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    to_pt = 72.0 / fig.dpi
    for t in ann:  # a label that would cross the right frame goes left of its mark
        if t.get_window_extent(r).x1 > t.axes.get_window_extent(r).x1 - 2:
            t.set_horizontalalignment("right")
            t.xyann = (-5, t.xyann[1])
    fig.canvas.draw()
    placed: List[Any] = []
    for t in sorted(ann, key=lambda t: -float(t.get_window_extent(r).y1)):
        for _ in range(40):
            bb = t.get_window_extent(r)
            hit = next((p for p in placed if bb.overlaps(p)), None)
            if hit is None:
                break
            dx, dy = t.xyann
            t.xyann = (dx, dy - (bb.y1 - hit.y0 + 1) * to_pt)
        placed.append(t.get_window_extent(r))


def _write_data(path: str, series: List[Series]) -> None:
    """--data-csv: each line's CDF points and its quantiles."""
    out: List[List[Any]] = []
    for s in series:
        for x, c, y in zip(s["x"], s["c"], s["y"]):
            out.append([s["name"], s["run"], s["phase"], s["node"], "edge", "%.0f" % x, int(c), "%.9g" % y])
        for q, x in s["q"]:
            out.append([s["name"], s["run"], s["phase"], s["node"], "p%g" % (q * 100), "%.1f" % x, "", q])
        for x in s.get("ex", ()):
            out.append([s["name"], s["run"], s["phase"], s["node"], "exemplar", "%.0f" % x, "", ""])
    write_csv(path, ["series", "run", "phase", "node", "point", "x_ns", "cum_count", "fraction"], out)


def plot_latency(data: Data, a: argparse.Namespace) -> List[str]:
    ki, per = _per(a)
    series = _all_series(data, a, ki, per)
    u = Units(series)
    if not a.no_tail:
        fig, (ax, axt) = plt.subplots(2, 1, figsize=(8.6, 7.6), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    else:
        fig, ax = plt.subplots(figsize=(8.6, 5.0))
        axt = None
    node_lines = [s for s in series if per == "node" and not s.get("merged")]
    many = len(node_lines) > MANY_NODES
    marked = _assign([ax] + ([axt] if axt is not None else []), series, per, many, u.div)
    handles, ann = _draw(ax, axt, marked, u)
    _legend_extra(handles, node_lines, many, sum(len(s.get("ex", ())) for s in marked))
    _axes(ax, axt, series, u)
    ax.set_title(a.title or _title(data, a, per, series), fontsize=9)
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), fontsize=8, frameon=False,
               ncol=1 if len(handles) <= 8 else 2)
    fig.tight_layout()
    spread(fig, ann)
    if a.data_csv:
        _write_data(a.data_csv, series)
    prefix = a.output or default_prefix(data.path, "latency-run%d" % series[0]["run"])
    return save(fig, prefix, a.formats, a.dpi)
