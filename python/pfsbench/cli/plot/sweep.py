"""pfs-plot sweep: bandwidth (or rate) against ranks, threads or streams, on
a log2 axis: a line per phase, min-max bars over the repetitions, the peak
marked; metadata phases on a panel of their own in files/s."""

from __future__ import annotations

import argparse
import functools
from typing import Any, Callable, Dict, List, Optional, Sequence, Set

import matplotlib.pyplot as plt

from ...reader import is_metadata
from ..common import Usage
from ..names import UNITS, phase_name
from ..table import Data, Row, selection_from_args, value
from .common import (default_prefix, describe_runs, fit_labels, legend_outside, log2_axis, pick_unit, rate_axis,
                     reps_text, save, style, unit_axis_label, value_text, wrap)

X_LABELS = {"ranks": "ranks (MPI processes, round-robin over the nodes)", "threads": "threads per rank",
            "streams": "streams (ranks x threads)"}
WHAT = {"bandwidth": "aggregate bandwidth", "stonewall": "stonewall bandwidth"}


def _rows(data: Data, a: argparse.Namespace) -> List[Row]:
    """The rows chosen: --sweep, --label or --run; the file's only sweep without them."""
    if a.sweep is None and not a.label and not a.run:
        sw = data.sweeps()
        if len(sw) == 1:
            a.sweep = sw[0]
        else:
            raise Usage("say which runs: --sweep ID (%s) or --label PATTERN"
                        % ("sweeps in the file: " + ", ".join(sw) if sw else "the file holds no pfs-sweep runs"))
    return selection_from_args(data, a)


def _x_kind(rows: Sequence[Row], given: Optional[str]) -> str:
    """What the x axis counts: --x, else threads when the runs vary them at fixed ranks, else ranks."""
    if given is not None:
        return given
    fixed_ranks = len({r["ranks"] for r in rows}) == 1
    return "threads" if fixed_ranks and len({r.get("threads", 1) for r in rows}) > 1 else "ranks"


def _x(xkind: str, r: Row) -> int:
    """A row's x: its ranks, threads per rank or streams (ranks x threads)."""
    if xkind == "ranks":
        return int(r["ranks"])
    t = int(r.get("threads", 1))
    return t if xkind == "threads" else int(r["ranks"]) * t


def _line(ax: Any, data: Data, a: argparse.Namespace, rs: Sequence[Row], ph: str, i: int, nphases: int,
          scale: float, xval: Callable[[Row], int], reps: Set[int]) -> Dict[str, Any]:
    """One phase's line: its mean per x with min-max bars, dodged beside
    the other phases'; returns what it plotted and its peak's label."""
    by_x: Dict[int, List[float]] = {}
    for r in rs:
        if r["phase"] == ph:
            v = value(data, r, a.value)
            if v is not None:
                by_x.setdefault(xval(r), []).append(v / scale)
    xs = sorted(by_x)
    if not xs:
        return {"plotted": [], "peak": None}
    mean = [sum(by_x[x]) / len(by_x[x]) for x in xs]
    lo = [m - min(by_x[x]) for m, x in zip(mean, xs)]
    hi = [max(by_x[x]) - m for m, x in zip(mean, xs)]
    reps.update(len(by_x[x]) for x in xs)
    colour, marker = style(ph, i)
    # Phases side by side at each point, so that their bars do not hide each other.
    dodge = 2 ** ((i - (nphases - 1) / 2.0) * 0.045)
    xd = [x * dodge for x in xs]
    ax.errorbar(xd, mean, yerr=[lo, hi], color=colour, marker=marker, capsize=4, linewidth=1.6,
                markersize=5, label=phase_name(ph, a.names))
    plotted = [m - lw for m, lw in zip(mean, lo)] + [m + h for m, h in zip(mean, hi)]
    peak = None
    k = max(range(len(xs)), key=lambda j: mean[j])
    if len(xs) > 1:
        last = k == len(xs) - 1  # at the right end the label goes left of the point, inside the frame
        peak = ax.annotate("peak " + value_text(mean[k]), (xd[k], mean[k] + hi[k]), textcoords="offset points",
                           xytext=(-6 if last else 7, 4), ha="right" if last else "left", va="bottom", color=colour,
                           fontsize=8)
    return {"plotted": plotted, "peak": peak}


def _label_axes(ax: Any, a: argparse.Namespace, kind: str, unit: str, plotted: List[float], xkind: str,
                xs_all: List[int]) -> None:
    log2_axis(ax, xs_all)
    ax.grid(True, which="major", alpha=0.3)
    ax.set_xlabel(X_LABELS[xkind] + "  [log2 scale]")
    if a.value == "utilization":
        ax.set_ylabel("utilization (stream busy time / (streams x phase time))")
    elif a.value == "seconds":
        ax.set_ylabel("phase time (s)")
    elif kind == "meta":
        rate_axis(ax, plotted, "metadata rate (files/s)")
    else:
        ax.set_ylabel(unit_axis_label(WHAT[a.value], unit))
    if ax.get_yscale() != "log":
        ax.set_ylim(bottom=0)
    legend_outside(ax, title="phase")


def plot_sweep(data: Data, a: argparse.Namespace) -> List[str]:
    rows = _rows(data, a)
    xkind = _x_kind(rows, a.x)
    xval = functools.partial(_x, xkind)
    # Each row's kind as its run's file says it.
    data_rows = [r for r in rows if not is_metadata(r["phase"], r.get("kind"))]
    meta_rows = [r for r in rows if is_metadata(r["phase"], r.get("kind"))]
    unit = pick_unit(a.units, [value(data, r, a.value) or 0 for r in data_rows])
    panels = [(p, rs) for p, rs in (("data", data_rows), ("meta", meta_rows)) if rs]
    fig, axes = plt.subplots(len(panels), 1, figsize=(7.5, 4.6 * len(panels)), squeeze=False)
    xs_all = sorted({xval(r) for r in rows})
    reps: Set[int] = set()
    peaks: Dict[Any, List[Any]] = {}
    for (kind, rs), ax in zip(panels, axes[:, 0]):
        plain = kind == "meta" or a.value in ("utilization", "seconds")
        scale = 1.0 if plain else UNITS[unit][0]
        phases: List[str] = []
        for r in rs:
            if r["phase"] not in phases:
                phases.append(r["phase"])
        lines = [_line(ax, data, a, rs, ph, i, len(phases), scale, xval, reps) for i, ph in enumerate(phases)]
        peaks[ax] = [x["peak"] for x in lines if x["peak"] is not None]
        _label_axes(ax, a, kind, unit, [v for x in lines for v in x["plotted"]], xkind, xs_all)
    name = "sweep " + a.sweep if a.sweep is not None else ", ".join(a.label or []) or "runs " + ", ".join(a.run)
    axes[0, 0].set_title(a.title or "%s\n%s" % (name, wrap("%s; %s" % (describe_runs(data, rows), reps_text(reps)))))
    fig.tight_layout()
    for ax in axes[:, 0]:
        fit_labels(fig, ax, peaks[ax], rotate=False)
    prefix = a.output or default_prefix(data.path, "sweep-" + (a.sweep if a.sweep is not None else "selection"))
    return save(fig, prefix, a.formats, a.dpi)
