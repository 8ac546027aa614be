"""pfs-plot timeline: bandwidth (and with --iops operations/s) per node
over the time of one run, from its time series: a step per interval, the
phases as bands, a node drawn as a straggler in the phases where pfsbench
flagged it, the stored slowest operations (--exemplars) as ticks at their
start on the bottom panel's top edge; above MANY_NODES nodes, thin grey lines, the p10-p90 band and
the median node."""

from __future__ import annotations

import argparse
import sys
import warnings
from typing import Any, Dict, List, Tuple

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.transforms import blended_transform_factory

from ...h5file import interval_edges
from ...reader import Run
from ..common import Usage
from ..names import UNITS, phase_name
from ..table import Data
from .common import (MANY_NODES, MUTED, OLD_FILE, WARM, default_prefix, pick_run, pick_unit, run_title, save,
                     unit_axis_label, wrap, write_csv)

Seg = Dict[str, Any]  # one repetition of one phase: its intervals' edges, bytes and ops per node, stragglers


def _segments(run: Run) -> List[Seg]:
    """The repetitions that have a time series, in time order; the phases without one named on stderr."""
    segs, missing = [], []
    for p in run.phases:
        pg = p.group
        if p.reps == 0:
            continue
        if "timeseries" not in pg:
            missing.append(p.phase)
            continue
        for rname in sorted(k for k in pg["timeseries"].keys() if k.startswith("rep_")):
            tg = pg["timeseries"][rname]
            rep = int(rname[4:])
            b, o = tg["bytes"][()], tg["ops"][()]
            if b.ndim != 2 or b.shape[0] == 0:
                continue
            # The intervals' true edges: the first from the phase's first open, the last to its
            # last close; the phase's band is that span, never an interval's grid edge past it.
            lo, hi = interval_edges(tg, pg, rep)
            st = pg["node_straggler"][rep] if "node_straggler" in pg and rep < pg["node_straggler"].shape[0] \
                else None
            segs.append({"phase": p.phase, "rep": rep, "reps": p.reps, "t0": float(lo[0]),
                         "dt": float(tg.attrs["interval"]), "lo": lo, "hi": hi, "bytes": b.astype(float),
                         "ops": o.astype(float), "start": float(lo[0]), "end": float(hi[-1]), "straggler": st})
    if not segs:
        raise Usage("run %d has no time series (timeseries/rep_NNN in its phase groups): %s" % (run.number, OLD_FILE))
    if missing:
        sys.stderr.write("pfs-plot: run %d: no time series in %s (left out)\n" % (run.number, ", ".join(missing)))
    segs.sort(key=lambda s: float(s["t0"]))
    return segs


def _stragglers(segs: List[Seg], K: int) -> Dict[int, List[str]]:
    """{node: the phases (and repetitions) in which it was a straggler}."""
    strag_in: Dict[int, List[str]] = {k: [] for k in range(K)}
    for s in segs:
        if s["straggler"] is not None:
            for k in range(min(K, len(s["straggler"]))):
                if s["straggler"][k]:
                    name = s["phase"] + (" #%d" % s["rep"] if s["reps"] > 1 else "")
                    if name not in strag_in[k]:
                        strag_in[k].append(name)
    return strag_in


def _series(segs: List[Seg], K: int, T0: float) -> Tuple[Any, Any, Any, Any]:
    """(X, bandwidth, ops/s, straggling): one polyline per node, a flat step
    over each interval, a gap (NaN) between phases; straggling says where
    pfsbench flagged the node (drawn warm there, muted elsewhere)."""
    xs: List[Any] = []
    bw: List[Any] = []
    ops: List[Any] = []
    sm: List[Any] = []
    for s in segs:
        n, kk = s["bytes"].shape
        span = s["hi"] - s["lo"]
        per_s = np.where(span > 0, 1.0 / np.where(span > 0, span, 1.0), np.nan)[:, None]
        xs.append(np.column_stack([s["lo"] - T0, s["hi"] - T0]).ravel())
        xs.append([np.nan])
        flag = np.zeros(K, dtype=bool)
        if s["straggler"] is not None:
            flag[:min(K, len(s["straggler"]))] = np.asarray(s["straggler"][:K]) != 0
        sm.append(np.tile(flag, (2 * n + 1, 1)))
        for dst, src in ((bw, s["bytes"]), (ops, s["ops"])):
            v = np.zeros((n, K))
            v[:, :kk] = src * per_s
            dst.append(np.repeat(v, 2, axis=0))
            dst.append(np.full((1, K), np.nan))
    return np.concatenate(xs), np.vstack(bw), np.vstack(ops), np.vstack(sm)


def _bands(ax: Any, segs: List[Seg], T0: float) -> None:
    """The phases: alternating light bands."""
    for i, s in enumerate(segs):
        lo = s["start"] - T0
        hi = s["end"] - T0
        if i + 1 < len(segs):
            hi = min(hi, segs[i + 1]["start"] - T0)
        ax.axvspan(lo, hi, color=("#e4eaf2" if i % 2 == 0 else "#f1efe6"), zorder=0, linewidth=0)


def _many(ax: Any, X: Any, Y: Any, SM: Any, strag_in: Dict[int, List[str]], legend: bool) -> List[Any]:
    """Every node thin and grey, the p10-p90 band and the median node; the legend's handles."""
    K = Y.shape[1]
    with warnings.catch_warnings():  # the NaN gaps between phases: all-NaN rows
        warnings.simplefilter("ignore", RuntimeWarning)
        p10, med, p90 = (np.nanpercentile(Y, q, axis=1) for q in (10, 50, 90))
    for k in range(K):
        ax.plot(X, Y[:, k], color="#9a9a9a", linewidth=0.35, alpha=0.35, zorder=1, rasterized=True)
    ax.fill_between(X, p10, p90, color="#4c72b0", alpha=0.28, linewidth=0, zorder=2)
    ax.plot(X, med, color="#1a1a1a", linewidth=1.4, zorder=4)
    ns = [k for k in range(K) if strag_in[k]]
    for k in ns:  # node k's line only where it straggled, joined across phases by NaN gaps
        ax.plot(X, np.where(SM[:, k], Y[:, k], np.nan), color=WARM[0], linewidth=0.8, alpha=0.85, zorder=3,
                rasterized=len(ns) > 50)
    if not legend:
        return []
    handles = [Line2D([0], [0], color="#9a9a9a", linewidth=0.8, label="each node (%d)" % K),
               Patch(facecolor="#4c72b0", alpha=0.28, label="p10-p90 across nodes"),
               Line2D([0], [0], color="#1a1a1a", linewidth=1.4, label="median node")]
    if ns:
        handles.append(Line2D([0], [0], color=WARM[0], linewidth=1.0,
                              label="a straggler, in the phases\nwhere it was one (%d node%s)" % (
                                  len(ns), "" if len(ns) == 1 else "s")))
    return handles


def _each(ax: Any, X: Any, Y: Any, SM: Any, strag_in: Dict[int, List[str]], hosts: Dict[int, str],
          legend: bool) -> List[Any]:
    """A line per node, and a warm one over it where it straggled; the legend's handles."""
    handles, wi = [], 0
    for k in range(Y.shape[1]):
        line, = ax.plot(X, Y[:, k], color=MUTED[k % len(MUTED)], linewidth=1.1, zorder=2,
                        label="node %d (%s)" % (k, hosts.get(k, "?")))
        handles.append(line)
        if strag_in[k]:
            sl, = ax.plot(X, np.where(SM[:, k], Y[:, k], np.nan), color=WARM[wi % len(WARM)], linewidth=2.0,
                          zorder=3, label="node %d straggling\n(%s)" % (k, ", ".join(strag_in[k])))
            wi += 1
            handles.append(sl)
    return handles if legend else []


def _exemplars(ax: Any, run: Run, T0: float) -> List[Any]:
    """The stored slowest operations (--exemplars) as ticks on the panel's top
    edge at their start; the slowest of each repetition taller. Legend handles."""
    ex = run.exemplars(as_frame=False)
    if len(ex["start_s"]) == 0:
        return []
    tr = blended_transform_factory(ax.transData, ax.transAxes)
    x = ex["start_s"] + run.t0 - T0
    first = np.ones(len(x), dtype=bool)
    first[1:] = (ex["index"][1:] != ex["index"][:-1]) | (ex["rep"][1:] != ex["rep"][:-1])
    ax.plot(x[~first], np.full(int((~first).sum()), 1.0), transform=tr, marker="|", markersize=7,
            color="#555555", linestyle="none", clip_on=False, zorder=6)
    ax.plot(x[first], np.full(int(first.sum()), 1.0), transform=tr, marker="v", markersize=6, color=WARM[0],
            linestyle="none", clip_on=False, zorder=7)
    return [Line2D([0], [0], color=WARM[0], marker="v", linestyle="none", markersize=6,
                   label="slowest operation of a repetition"),
            Line2D([0], [0], color="#555555", marker="|", linestyle="none", markersize=7,
                   label="the others kept (--exemplars)")]


def _frame(ax: Any, what: str, Y: Any, segs: List[Seg], T0: float, unit: str) -> None:
    top = float(np.nanmax(Y)) if np.isfinite(Y).any() else 0.0
    ax.set_ylim(0, top * 1.06 if top > 0 else 1.0)
    ax.set_xlim(0, max(s["end"] for s in segs) - T0)
    ax.grid(True, axis="y", alpha=0.35)
    ax.set_axisbelow(True)
    if what == "bw":
        ax.set_ylabel(unit_axis_label("bandwidth per node", unit))
    else:
        ax.set_ylabel("operations per node (ops/s)\ntransfers; files in metadata phases")


def _phase_names(ax0: Any, segs: List[Seg], T0: float, names: str) -> List[Any]:
    """The phases' names above the top panel, each over its band."""
    tr = blended_transform_factory(ax0.transData, ax0.transAxes)
    texts = []
    for i, s in enumerate(segs):
        hi = s["end"] - T0 if i + 1 == len(segs) else min(s["end"], segs[i + 1]["start"]) - T0
        name = phase_name(s["phase"], names) + (" #%d" % s["rep"] if s["reps"] > 1 else "")
        texts.append(ax0.annotate(name, ((s["start"] - T0 + hi) / 2, 1.0), xycoords=tr, xytext=(0, 3),
                                  textcoords="offset points", ha="center", va="bottom", fontsize=8,
                                  color="#333333", annotation_clip=False))
    return texts


def _label_rows(fig: Any, texts: List[Any], step_pt: float) -> int:
    """Stacks the phase labels above the axes in as few rows as keep them
    apart; returns the number of rows."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    pad = 4.0
    ends: List[float] = []  # the right end (px) of the last label in each row
    for t in sorted(texts, key=lambda t: float(t.get_window_extent(r).x0)):
        bb = t.get_window_extent(r)
        row = next((i for i, e in enumerate(ends) if bb.x0 >= e + pad), None)
        if row is None:
            row = len(ends)
            ends.append(bb.x1)
        else:
            ends[row] = bb.x1
        t.xyann = (0, 3 + row * step_pt)
    return max(1, len(ends))


def _write_data(path: str, run: int, segs: List[Seg], hosts: Dict[int, str], T0: float) -> None:
    """--data-csv: the plotted series, a row per interval and node."""
    out = []
    for s in segs:
        n, kk = s["bytes"].shape
        for i in range(n):
            span = s["hi"][i] - s["lo"][i]
            for k in range(kk):
                out.append([run, s["phase"], s["rep"], i, k, hosts.get(k, ""),
                            "%.6f" % (s["lo"][i] - T0), "%.6f" % (s["hi"][i] - T0),
                            int(s["bytes"][i, k]), int(s["ops"][i, k]),
                            "%.6g" % (s["bytes"][i, k] / span) if span > 0 else "",
                            "%.6g" % (s["ops"][i, k] / span) if span > 0 else "",
                            int(bool(s["straggler"][k])) if s["straggler"] is not None else ""])
    write_csv(path, ["run", "phase", "rep", "interval", "node", "host", "t_start_s", "t_end_s", "bytes", "ops",
                     "bytes_per_s", "ops_per_s", "straggler"], out)


def plot_timeline(data: Data, a: argparse.Namespace) -> List[str]:
    if a.run and len(a.run) > 1:
        raise Usage("pfs-plot timeline shows one run; give one --run")
    run = pick_run(data, a.run[0] if a.run else None)
    segs = _segments(run)
    T0 = min(s["start"] for s in segs)
    K = max(s["bytes"].shape[1] for s in segs)
    strag_in = _stragglers(segs, K)
    X, BW, OPS, SM = _series(segs, K, T0)
    unit = pick_unit(a.units, [float(np.nanmax(BW))] if np.isfinite(BW).any() else [])
    panels = [("bw", BW / UNITS[unit][0])] + ([("ops", OPS)] if a.iops else [])
    fig, axes = plt.subplots(len(panels), 1, figsize=(10.0, 3.9 * len(panels) + 0.4), sharex=True, squeeze=False)
    axes = axes[:, 0]
    handles: List[Any] = []
    for pi, ((what, Y), ax) in enumerate(zip(panels, axes)):
        _bands(ax, segs, T0)
        handles += (_many(ax, X, Y, SM, strag_in, pi == 0) if K > MANY_NODES
                    else _each(ax, X, Y, SM, strag_in, run.hosts, pi == 0))
        _frame(ax, what, Y, segs, T0, unit)
    handles += _exemplars(axes[-1], run, T0)
    axes[-1].set_xlabel("time since the run's first phase started (s)")
    texts = _phase_names(axes[0], segs, T0, a.names)
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 0.93), fontsize=8,
               title="nodes", title_fontsize=8, frameon=False)
    fig.tight_layout()
    rows = _label_rows(fig, texts, 10.5)
    what = "bandwidth%s per node over time" % (" and operations" if a.iops else "")
    axes[0].set_title(a.title or "%s\n%s" % (run_title(data, run.number, what), wrap(
        "each step: what the node completed in one interval (%s s) / the interval's overlap with the phase; "
        "bands: phases, first open to last close" % "/".join("%g" % d for d in sorted({s["dt"] for s in segs})))),
        fontsize=9, pad=6 + 10.5 * rows)
    fig.tight_layout()
    if a.data_csv:
        _write_data(a.data_csv, run.number, segs, run.hosts, T0)
    prefix = a.output or default_prefix(data.path, "timeline-run%d" % run.number)
    return save(fig, prefix, a.formats, a.dpi)
