"""pfs-plot targets: a data phase's storage targets (Run.targets) as two
bar panels sharing the target axis, a row of them per data phase: each
target's p99 transfer latency and its bandwidth over its busy time (bytes
/ its transfers' durations summed over the streams). A bar per target and
repetition; the targets flagged slow (the stragglers' rule: bandwidth below
--straggler x the median target's) red and hatched and named in the
panel's title; the median target's value dashed, the flag's threshold
dotted; targets pfsbench could not name ("unknown") grey, not judged. An
axis whose values span more than LOG_SPAN is logarithmic."""

from __future__ import annotations

import argparse
from typing import Any, Dict, List, Sequence, Tuple

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ..common import Usage
from ..names import UNITS, phase_name
from ..table import Data
from .common import LOG_SPAN, default_prefix, pick_run, pick_unit, run_title, save, unit_axis_label, wrap

SLOW = "#d62728"
UNJUDGED = "#bbbbbb"
Rows = Dict[str, Any]  # Run.targets(as_frame=False), or a phase's share of it


def _select(rows: Rows, mask: Any) -> Rows:
    return {k: v[mask] for k, v in rows.items()}


def _phases(rows: Rows, a: argparse.Namespace, run: int) -> List[Rows]:
    """The rows of each data phase the chart shows (--phase, --rep), in the run's order."""
    if len(rows["index"]) == 0:
        raise Usage("run %d has no storage targets: it has no data phase, or its file was written before "
                    "pfsbench recorded them" % run)
    out = []
    for i in sorted(set(int(x) for x in rows["index"])):
        ph = _select(rows, rows["index"] == i)
        if a.phase and str(ph["phase"][0]) != a.phase:
            continue
        if a.rep is not None:
            reps = sorted(set(int(r) for r in ph["rep"]))
            if a.rep not in reps:
                raise Usage("--rep %d: %s has repetitions %s" % (a.rep, ph["phase"][0], ",".join(map(str, reps))))
            ph = _select(ph, ph["rep"] == a.rep)
        out.append(ph)
    if not out:
        names = sorted(set(str(p) for p in rows["phase"]))
        raise Usage("--phase %s: run %d's phases with targets are %s" % (a.phase, run, ", ".join(names)))
    return out


def _median(value: Any, ratio: Any) -> float:
    """The median target's value, as pfsbench judged it: value / ratio of any judged row."""
    ok = np.isfinite(ratio) & (ratio > 0)
    return float(value[ok][0] / ratio[ok][0]) if ok.any() else float("nan")


def _bars(ax: Any, ph: Rows, col: str, scale: float, names: Sequence[str], factor: float) -> None:
    """One panel: a bar per target and repetition, the median's (and on
    the bandwidth panel the flag's threshold) as short lines across each
    repetition's bars."""
    reps = sorted(set(int(r) for r in ph["rep"]))
    height = 0.8 / len(reps)
    cmap = plt.get_cmap("Blues")
    for j, rep in enumerate(reps):
        r = _select(ph, ph["rep"] == rep)
        y = np.array([names.index(str(n)) for n in r["name"]]) - 0.4 + height * (j + 0.5)
        base = cmap(0.45 + 0.5 * (j + 1) / len(reps)) if len(reps) > 1 else "#1f77b4"
        colours = [SLOW if s else UNJUDGED if not np.isfinite(q) else base
                   for s, q in zip(r["slow"], r["bandwidth_ratio"])]
        bars = ax.barh(y, r[col] / scale, height=height * 0.9, color=colours, edgecolor="black", linewidth=0.5)
        for b, s in zip(bars, r["slow"]):
            if s:
                b.set_hatch("//")
            if len(reps) > 1:  # which repetition: the slow bars are all one colour
                ax.annotate("#%d" % rep, (b.get_width(), b.get_y() + b.get_height() / 2), xytext=(2, 0),
                            textcoords="offset points", va="center", fontsize=6)
        med = _median(r[col], r["p99_ratio" if col == "p99_ns" else "bandwidth_ratio"]) / scale
        lo, hi = y - height / 2, y + height / 2
        if np.isfinite(med):  # else no target was judged (all unknown)
            ax.vlines([med] * len(y), lo, hi, colors="black", linestyles="dashed", linewidth=1.0)
        if np.isfinite(med) and col == "bandwidth":
            ax.vlines([factor * med] * len(y), lo, hi, colors="black", linestyles="dotted", linewidth=1.0)
    pos = [float(v) / scale for v in ph[col] if v > 0]
    if pos and max(pos) / min(pos) > LOG_SPAN:  # one slow target would squeeze the others to nothing
        ax.set_xscale("log")
        ax.set_xlim(min(pos) / 2, max(pos) * 3)
    else:
        ax.set_xlim(0, ax.get_xlim()[1] * 1.08)  # room for the repetitions' labels
    ax.set_yticks(range(len(names)))
    ax.set_ylim(len(names) - 0.5, -0.5)  # the first target on top
    ax.grid(True, axis="x", alpha=0.3)


def _xlabel(ax: Any, text: str) -> None:
    ax.set_xlabel(text + ("  [log scale]" if ax.get_xscale() == "log" else ""))


def _slow_text(ph: Rows) -> str:
    """The flagged targets as the report names them: 'slow: NAME (p99 3.1 x
    the median target)', with the repetitions when the chart shows several."""
    seen: Dict[str, Tuple[float, List[int]]] = {}
    for n, s, q, rep in zip(ph["name"], ph["slow"], ph["p99_ratio"], ph["rep"]):
        if s:
            worst, reps = seen.setdefault(str(n), (float(q), []))
            seen[str(n)] = (max(worst, float(q)), reps + [int(rep)])
    if not seen:
        return "no slow target"
    many = len(set(int(r) for r in ph["rep"])) > 1
    return "slow: " + "; ".join("%s (%sp99 %s%.1f x the median target)"
                                % (n, "rep %s: " % ", ".join(map(str, r)) if many else "",
                                   "up to " if len(r) > 1 else "", q) for n, (q, r) in seen.items())


def _legend(fig: Any, factor: float) -> None:
    handles = [Patch(facecolor="#1f77b4", edgecolor="black", linewidth=0.5,
                     label="target (#R: repetition R, darker later)"),
               Patch(facecolor=SLOW, hatch="//", edgecolor="black", linewidth=0.5, label="slow target (flagged)"),
               Patch(facecolor=UNJUDGED, edgecolor="black", linewidth=0.5, label="unknown (not judged)"),
               Line2D([0], [0], color="black", linestyle="dashed", linewidth=1.0, label="the median target"),
               Line2D([0], [0], color="black", linestyle="dotted", linewidth=1.0,
                      label="%.2f x the median: slow below" % factor)]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=8, bbox_to_anchor=(0.5, 0.0))


def plot_targets(data: Data, a: argparse.Namespace) -> List[str]:
    if a.run and len(a.run) > 1:
        raise Usage("pfs-plot targets shows one run; give one --run")
    run = pick_run(data, a.run[0] if a.run else None)
    phases = _phases(run.targets(as_frame=False), a, run.number)
    factor = float(data.runs[run.number].get("straggler", 0.8))
    unit = pick_unit(a.units, [float(x) for ph in phases for x in ph["bandwidth"]])
    heights = [max(1.6, 0.32 * len(set(ph["name"])) * max(1.0, 0.6 * len(set(ph["rep"])))) + 0.7 for ph in phases]
    width = max(len(str(n)) for ph in phases for n in ph["name"])
    fig, axes = plt.subplots(len(phases), 2, figsize=(8.5 + 0.06 * width, sum(heights) + 1.6), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ph, (left, right) in zip(phases, axes):
        names = list(dict.fromkeys(str(n) for n in ph["name"]))
        _bars(left, ph, "p99_ns", 1e9, names, factor)
        _bars(right, ph, "bandwidth", UNITS[unit][0], names, factor)
        left.set_yticklabels(names)
        right.set_yticklabels([])
        _xlabel(left, "p99 transfer latency (s)")
        _xlabel(right, unit_axis_label("bandwidth over busy time", unit))
        left.set_title(wrap("%s: %s" % (phase_name(str(ph["phase"][0]), a.names), _slow_text(ph)), 110),
                       loc="left", fontsize=9, fontweight="bold")
    _legend(fig, factor)
    fig.suptitle(a.title or run_title(data, run.number, "storage targets: p99 latency and bandwidth over each "
                                      "target's busy time"), fontsize=9)
    fig.tight_layout(rect=(0, 0.09 if len(phases) == 1 else 0.05, 1, 1))
    return save(fig, a.output or default_prefix(data.path, "targets-run%d" % run.number), a.formats, a.dpi)
