"""pfs-plot compare: grouped bars, phases x configurations (pfs-compare's
table as a chart): a bar per column of each phase, min-max whiskers over
the repetitions; metadata phases on an axis of their own in files/s."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple

import matplotlib.pyplot as plt

from ..common import Usage
from ..names import UNITS, phase_name
from ..table import ColumnKey, Data, Table, build_table, is_meta, selection_from_args
from .common import (cycle_colours, default_prefix, describe_runs, fit_labels, legend_outside, pick_unit, rate_axis,
                     reps_text, save, unit_axis_label, value_text, wrap)

# (unit: a UNITS key, "files/s", or None for utilization and seconds; scale; phases)
Group = Tuple[Optional[str], float, List[str]]
LEGEND_TITLE = {"label": "configuration", "ranks": "ranks", "threads": "threads", "run": "run"}


def _groups(data: Data, a: argparse.Namespace, table: Table, keys: Sequence[ColumnKey]) -> List[Group]:
    """The axes: data phases in the unit asked for, metadata phases in files/s."""
    groups: List[Group] = []
    data_ph = [p for p in table.phases if not is_meta(p, data)]
    meta_ph = [p for p in table.phases if is_meta(p, data)]
    if data_ph:
        if a.value in ("utilization", "seconds"):
            groups.append((None, 1.0, data_ph))
        else:
            unit = pick_unit(a.units, [v for p in data_ph for k in keys for v in table.cells.get((p, k), [])])
            groups.append((unit, UNITS[unit][0], data_ph))
    if meta_ph:
        groups.append(("files/s", 1.0, meta_ph))
    return groups


def _bars(ax: Any, table: Table, keys: Sequence[ColumnKey], group: Group) -> Tuple[List[float], List[Any]]:
    """A bar per column of each phase, its value above it when there are
    few; returns the values plotted and the labels."""
    _, scale, phases = group
    width = 0.8 / len(keys)
    cyc = cycle_colours()
    plotted: List[float] = []
    labels = []
    for j, k in enumerate(keys):
        xs, means, lo, hi = [], [], [], []
        for i, p in enumerate(phases):
            v = [x / scale for x in table.cells.get((p, k), [])]
            if not v:
                continue
            m = sum(v) / len(v)
            xs.append(i - 0.4 + width * (j + 0.5))
            means.append(m)
            lo.append(m - min(v))
            hi.append(max(v) - m)
            plotted += [min(v), max(v)]
        bars = ax.bar(xs, means, width=width * 0.92, yerr=[lo, hi], capsize=3, color=cyc[j % len(cyc)],
                      edgecolor="black", linewidth=0.5, label=table.titles[k], error_kw={"linewidth": 0.8})
        if len(keys) * len(phases) <= 24:
            for b, m, h in zip(bars, means, hi):
                labels.append(ax.annotate(value_text(m), (b.get_x() + b.get_width() / 2, m + h),
                                          textcoords="offset points", xytext=(0, 3), ha="center",
                                          fontsize=7, rotation=90 if len(keys) > 3 else 0, va="bottom"))
    return plotted, labels


def _axis(ax: Any, a: argparse.Namespace, group: Group, plotted: List[float]) -> None:
    unit, _, phases = group
    ax.set_xticks(range(len(phases)))
    ax.set_xticklabels([phase_name(p, a.names) for p in phases])
    if unit == "files/s":
        rate_axis(ax, plotted, "metadata rate (files/s)")
    elif unit is None:
        ax.set_ylabel({"utilization": "utilization (stream busy time / (streams x phase time))",
                       "seconds": "phase time (s)"}[a.value])
    else:
        ax.set_ylabel(unit_axis_label({"bandwidth": "aggregate bandwidth",
                                       "stonewall": "stonewall bandwidth"}[a.value], unit))
    if ax.get_yscale() == "log":
        ax.set_ylim(min(x for x in plotted if x > 0) / 2.0, ax.get_ylim()[1])
    else:
        ax.set_ylim(0, ax.get_ylim()[1])
    ax.grid(True, axis="y", alpha=0.3)


def plot_compare(data: Data, a: argparse.Namespace) -> List[str]:
    rows = selection_from_args(data, a)
    by = a.by or "label"
    if by == "rep":
        raise Usage("pfs-plot compare --by rep: the bars would be single repetitions; use pfs-compare --by rep")
    table = build_table(data, rows, by, a.value, a.label)
    for w in table.warnings:
        sys.stderr.write("pfs-plot: warning: %s\n" % w)
    keys = [k for k in table.columns if k != "__mean__"]
    groups = _groups(data, a, table, keys)
    fig, axes = plt.subplots(1, len(groups), figsize=(max(5.5, 1.2 + 0.55 * len(keys) * len(table.phases)), 4.6),
                             squeeze=False, gridspec_kw={"width_ratios": [len(g[2]) for g in groups]})
    labels: Dict[Any, List[Any]] = {}
    for group, ax in zip(groups, axes[0]):
        plotted, labels[ax] = _bars(ax, table, keys, group)
        _axis(ax, a, group, plotted)
    legend_outside(axes[0, -1], title=LEGEND_TITLE[by], fontsize=8)
    ns = {len(v) for v in table.cells.values()}
    fig.suptitle(a.title or wrap("; ".join([describe_runs(data, rows), reps_text(ns)] + table.notes), 90),
                 fontsize=9)
    fig.tight_layout()
    for ax in axes[0]:
        fit_labels(fig, ax, labels[ax])
    prefix = a.output or default_prefix(data.path, "compare")
    return save(fig, prefix, a.formats, a.dpi)
