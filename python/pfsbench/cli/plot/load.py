"""pfs-plot load: --rate-sweep's latency-load curve of one run, a panel per
data phase: the response time's p50, p99 and p99.9 (log y) against the
achieved rate, points that fell more than 2% short of their offered rate
hollow, the closed-loop point (percentages' first) apart as a cross, and
the knee marked: where p99 crossed 2 x its lowest-load value (dotted)."""

from __future__ import annotations

import argparse
from typing import Any, List

import matplotlib.pyplot as plt
import numpy as np

from ..common import Usage
from ..names import phase_name
from ..table import Data
from .common import default_prefix, legend_outside, pick_run, run_title, save

LINES = (("p50_ns", "p50", "#1f77b4"), ("p99_ns", "p99", "#d62728"), ("p999_ns", "p99.9", "#7f7f7f"))


def _panel(ax: Any, rows: Any, names: str) -> None:
    """One phase's curve from its rows of Results.load (a dict of arrays)."""
    paced = rows["offered_rate"] > 0
    order = np.argsort(rows["offered_rate"][paced])
    x = rows["rate"][paced][order]
    short = rows["rate_short"][paced][order] > 0
    for col, label, colour in LINES:
        y = rows[col][paced][order] * 1e-9
        ax.plot(x, y, "-", color=colour, linewidth=1.2, label=label)
        ax.scatter(x[~short], y[~short], color=colour, s=22, zorder=3)
        ax.scatter(x[short], y[short], facecolors="white", edgecolors=colour, s=22, zorder=3)
        if (~paced).any():
            ax.scatter(rows["rate"][~paced], rows[col][~paced] * 1e-9, marker="x", color=colour, s=30, zorder=3)
    base, found = float(rows["knee_base_p99_ns"][0]), bool(rows["knee_found"][0])
    if base > 0:
        ax.axhline(2 * base * 1e-9, color="#d62728", linestyle=":", linewidth=0.9, label="2 x the lowest load's p99")
    if found:
        k = float(rows["knee_rate"][0])
        ax.axvline(k, color="black", linestyle="--", linewidth=1.0, label="knee: %.4g ops/s" % k)
    ax.set_yscale("log")
    ax.set_xlabel("achieved rate (ops/s)")
    ax.set_ylabel("response time (s)")
    ax.set_title(phase_name(str(rows["phase"][0]), names) + ("" if found else " (no knee)"), loc="left",
                 fontsize=9, fontweight="bold")
    ax.grid(True, which="both", alpha=0.3)
    legend_outside(ax, fontsize=7)


def plot_load(data: Data, a: argparse.Namespace) -> List[str]:
    if a.run and len(a.run) > 1:
        raise Usage("pfs-plot load shows one run; give one --run")
    run = pick_run(data, a.run[0] if a.run else None)
    rows = run.load(as_frame=False)
    idx = sorted(set(int(i) for i in rows["index"]))
    if not idx:
        raise Usage("run %d has no latency-load curve (a run of --rate-sweep has one)" % run.number)
    fig, axes = plt.subplots(len(idx), 1, figsize=(8.5, 3.6 * len(idx) + 0.8), squeeze=False)
    for i, ax in zip(idx, axes[:, 0]):
        _panel(ax, {k: v[rows["index"] == i] for k, v in rows.items()}, a.names)
    fig.suptitle(a.title or run_title(data, run.number, "response time against load (--rate-sweep; x: closed "
                                      "loop, hollow: short of the offered rate)"), fontsize=9)
    fig.tight_layout()
    return save(fig, a.output or default_prefix(data.path, "load-run%d" % run.number), a.formats, a.dpi)
