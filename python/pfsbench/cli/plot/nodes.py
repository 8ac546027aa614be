"""pfs-plot nodes: the per-node bandwidth of one run, a panel per data
phase, a bar per node and repetition, stragglers red and hatched below
the dashed line (the --straggler fraction of the repetition's median node)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Dict, List, Optional, Tuple

import matplotlib.pyplot as plt
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from ...reader import Run
from ..common import Usage
from ..names import UNITS, phase_name
from ..table import Data
from .common import default_prefix, describe_runs, dummy_row, pick_run, pick_unit, save, unit_axis_label, wrap

# (phase, node_bandwidth [rep][node], node_straggler [rep][node] or None)
NodePhase = Tuple[str, Any, Optional[Any]]


def _phases(run: Run, data: Data, a: argparse.Namespace) -> List[NodePhase]:
    """The data phases (of --phases) with per-node bandwidth; the metadata ones named on stderr."""
    want = [p for p in a.phases.split(",") if p] if a.phases else None
    phases, meta = [], []
    for p in run.phases:
        pg = p.group
        if want and p.phase not in want or "node_bandwidth" not in pg or p.reps == 0:
            continue
        if p.kind == "metadata":
            meta.append(p.phase)
            continue
        phases.append((p.phase, pg["node_bandwidth"][()], pg["node_straggler"][()] if "node_straggler" in pg
                       else None))
    if meta:
        sys.stderr.write("pfs-plot: per-node bandwidth is for data phases; left out %s\n" % ", ".join(meta))
    if not phases:
        raise Usage("run %d has no per-node bandwidth of a data phase%s"
                    % (run.number, " among " + a.phases if a.phases else ""))
    return phases


def _reps(a: argparse.Namespace, ph: str, nb: Any) -> List[int]:
    if a.rep is None:
        return list(range(nb.shape[0]))
    if a.rep < 0 or a.rep >= nb.shape[0]:
        raise Usage("--rep %d: phase %s has repetitions 0..%d" % (a.rep, ph, nb.shape[0] - 1))
    return [a.rep]


def _panel(ax: Any, a: argparse.Namespace, phase: NodePhase, hosts: Dict[int, str], factor: float, scale: float,
           unit: str, rep_handles: Dict[int, Any]) -> int:
    """One phase's bars; returns how many are stragglers."""
    ph, nb, st = phase
    nnodes = nb.shape[1]
    reps = _reps(a, ph, nb)
    width = 0.8 / len(reps)
    cmap = plt.get_cmap("Blues")
    n_strag = 0
    for j, rep in enumerate(reps):
        xs = [n - 0.4 + width * (j + 0.5) for n in range(nnodes)]
        vals = [float(v) / scale for v in nb[rep]]
        flags = [bool(st[rep][n]) if st is not None else False for n in range(nnodes)]
        colour = cmap(0.45 + 0.5 * (j + 1) / len(reps)) if len(reps) > 1 else "#1f77b4"
        bars = ax.bar(xs, vals, width=width * 0.92, color=[("#d62728" if fl else colour) for fl in flags],
                      edgecolor="black", linewidth=0.5, label="rep %d" % rep)
        for b, fl in zip(bars, flags):
            if fl:
                b.set_hatch("//")
                n_strag += 1
        rep_handles.setdefault(rep, Patch(facecolor=colour, edgecolor="black", linewidth=0.5, label="rep %d" % rep))
        live = sorted(v for v in vals)
        med = (live[len(live) // 2] if len(live) % 2 else (live[len(live) // 2 - 1] + live[len(live) // 2]) / 2)
        ax.hlines([factor * med] * nnodes, [x - width / 2 for x in xs], [x + width / 2 for x in xs],
                  colors="black", linestyles="dashed", linewidth=1.0)
    ax.set_xticks(range(nnodes))
    ax.set_xticklabels(["node %d\n%s" % (n, hosts.get(n, "?")) for n in range(nnodes)])
    ax.set_ylabel(unit_axis_label("node bandwidth", unit))
    ax.set_title("%s" % phase_name(ph, a.names), loc="left", fontsize=9, fontweight="bold")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.12)
    ax.grid(True, axis="y", alpha=0.3)
    return n_strag


def _legend(fig: Any, rep_handles: Dict[int, Any], factor: float) -> None:
    handles = [rep_handles[k] for k in sorted(rep_handles)]
    handles.append(Line2D([0], [0], color="black", linestyle="dashed", linewidth=1.0,
                          label="%.2f x the median node of the repetition" % factor))
    handles.append(Patch(facecolor="#d62728", hatch="//", edgecolor="black", label="straggler (below the line)"))
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 4), fontsize=8, bbox_to_anchor=(0.5, 0.0))


def _title(data: Data, run: Run, attrs: Dict[str, Any]) -> str:
    lab = attrs.get("label", "")
    rows = [r for r in data.rows if r["run"] == run.number and r["kind"] != "metadata"] or [dummy_row(attrs)]
    return "run %d%s: per-node bandwidth (bytes of the node's ranks / their first open to last close)\n%s" % (
        run.number, " (%s)" % lab if lab else "", wrap("%d ranks, %s" % (int(attrs.get("ranks", 0)),
                                                                        describe_runs(data, rows))))


def plot_nodes(data: Data, a: argparse.Namespace) -> List[str]:
    if a.run and len(a.run) > 1:
        raise Usage("pfs-plot nodes shows one run; give one --run")
    run = pick_run(data, a.run[0] if a.run else None)
    attrs = data.runs[run.number]
    factor = float(attrs.get("straggler", 0.8))
    phases = _phases(run, data, a)
    unit = pick_unit(a.units, [float(x) for _, nb, _ in phases for x in nb.ravel()])
    nnodes = phases[0][1].shape[1]
    fig, axes = plt.subplots(len(phases), 1, figsize=(max(6.0, 1.0 + 0.9 * nnodes), 2.9 * len(phases) + 0.6),
                             squeeze=False)
    rep_handles: Dict[int, Any] = {}
    n_strag = sum(_panel(ax, a, ph, run.hosts, factor, UNITS[unit][0], unit, rep_handles)
                  for ph, ax in zip(phases, axes[:, 0]))
    _legend(fig, rep_handles, factor)
    fig.suptitle(a.title or _title(data, run, attrs), fontsize=9)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    prefix = a.output or default_prefix(data.path, "nodes-run%d" % run.number)
    paths = save(fig, prefix, a.formats, a.dpi)
    sys.stderr.write("pfs-plot: run %d: %d straggler bar%s\n" % (run.number, n_strag, "" if n_strag == 1 else "s"))
    return paths

