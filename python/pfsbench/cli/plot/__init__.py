"""pfs-plot: charts from a pfsbench results file, as PNG and SVG (pfsbench.cli.plot).

    pfs-plot sweep   FILE [--sweep ID | --label PATTERN]   bandwidth vs ranks (log2), a line per phase,
                                                            min-max bars over repetitions
    pfs-plot nodes   FILE [--run N]                         per-node bandwidth of one run, stragglers marked
    pfs-plot compare FILE [--label PATTERN ...]             grouped bars: phases x configurations (labels)
    pfs-plot timeline FILE [--run N] [--iops]               bandwidth (and ops/s) per node over time, phases
                                                            shaded, stragglers in red/orange
    pfs-plot latency FILE [--run N ...] [--phase P]         latency CDF (log x), a line per phase, node
                     [--per phase|node|run]                 (--per node) or run; p50/p99/p99.9 marked
    pfs-plot load    FILE [--run N]                         --rate-sweep's curve: response p50/p99/p99.9
                                                            against the achieved rate, the knee marked
    pfs-plot targets FILE [--run N] [--phase P] [--rep R]  each storage target's p99 latency and bandwidth
                                                            over its busy time, a row per data phase, the
                                                            slow-flagged targets red and named

Each writes PREFIX.png and PREFIX.svg (-o PREFIX; --formats png,svg), or
one file with -o OUT.png / OUT.svg / OUT.pdf, and prints their names;
timeline and latency also write the plotted series with --data-csv FILE. Only complete runs count, unless --include-failed.
Units: --units MiB (default: MiB/s, GiB/s past 10 GiB/s), KB (1024 bytes,
the seeds' KB/s), KiB, GiB, or decimal MB, GB; metadata phases in files/s.
Ticks are engineering numbers on every chart (200k, 1.5M; time in s with
m, µ: ticks.py), never a 1e6 multiplier or offset.

Exit status: 0 done, 2 bad input.

A module per chart family (sweep, nodes, bars, timeline, latency, load, targets), each
over pfsbench.open() through table.Data; common.py holds what they share.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Dict, List, Optional, Sequence

from . import common  # noqa: F401  (first: it sets matplotlib's backend and style)
from ..common import Usage, run_main
from ..names import PHASE_NAMES
from ..table import PLOT_VALUES, Data, add_selection_args
from .bars import plot_compare
from .latency import plot_latency
from .load import plot_load
from .nodes import plot_nodes
from .sweep import plot_sweep
from .targets import plot_targets
from .timeline import plot_timeline

PROG = "pfs-plot"
CHARTS: Dict[str, Callable[[Data, argparse.Namespace], List[str]]] = {
    "sweep": plot_sweep, "nodes": plot_nodes, "compare": plot_compare, "timeline": plot_timeline,
    "latency": plot_latency, "load": plot_load, "targets": plot_targets}
HELPS = {"sweep": "aggregate bandwidth vs ranks (log2 x), a line per phase, min-max bars",
         "nodes": "per-node bandwidth of one run, stragglers marked",
         "compare": "grouped bars: phases x configurations (labels)",
         "timeline": "bandwidth per node over time of one run, phases shaded, stragglers highlighted",
         "latency": "latency CDF (log x) from the histograms, a line per phase, node or run",
         "load": "--rate-sweep's response p50/p99/p99.9 against the achieved rate, the knee marked",
         "targets": "each storage target's p99 latency and bandwidth over its busy time, the slow-flagged marked"}
RUN_HELP = "run number or id (default: the last complete run)"
REP_HELP = "only repetition R (from 0, as the report numbers them; default: %s)"


def _chart_args(p: argparse.ArgumentParser, name: str) -> None:
    """The options of one chart, before those every chart has."""
    if name == "nodes":
        p.add_argument("--run", metavar="N", action="append", help=RUN_HELP)
        p.add_argument("--phases", metavar="LIST", help="comma list of phases (default: all data phases)")
        p.add_argument("--rep", type=int, metavar="R", help=REP_HELP % "all")
    elif name == "load":
        p.add_argument("--run", metavar="N", action="append", help=RUN_HELP)
    elif name == "targets":
        p.add_argument("--run", metavar="N", action="append", help=RUN_HELP)
        p.add_argument("--phase", metavar="NAME", help="only this data phase (default: every data phase)")
        p.add_argument("--rep", type=int, metavar="R", help=REP_HELP % "all")
    elif name == "timeline":
        p.add_argument("--run", metavar="N", action="append", help=RUN_HELP)
        p.add_argument("--iops", action="store_true", help="a second panel: operations/s per node")
    elif name == "latency":
        p.add_argument("--run", metavar="N", action="append", help=RUN_HELP + "; several compare runs")
        p.add_argument("--phase", metavar="NAME", help="only this phase (default: all; with --per node or "
                                                       "run the first)")
        p.add_argument("--per", choices=("phase", "node", "run"),
                       help="a line per phase (default with one run), node, or run (default with several)")
        p.add_argument("--kind", default="op", help="op (the phase's own operation; default), open, fsync "
                                                    "or close")
        p.add_argument("--rep", type=int, metavar="R", help=REP_HELP % "all merged")
        p.add_argument("--no-tail", action="store_true",
                       help="the CDF only, without the panel of the tail (1 - CDF, log y) below it")
    else:
        add_selection_args(p)
        p.add_argument("--value", choices=PLOT_VALUES, default="bandwidth", help="what to plot (default bandwidth)")
    if name == "sweep":
        p.add_argument("--x", choices=("ranks", "threads", "streams"),
                       help="the x axis (default: threads for a thread sweep, else ranks)")
    if name == "compare":
        p.add_argument("--by", choices=("label", "ranks", "threads", "run"), help="the bars of each phase (default label)")
    if name in ("timeline", "latency"):
        p.add_argument("--data-csv", metavar="FILE", help="also write the plotted series as CSV")
    if name not in ("latency", "load"):
        p.add_argument("--units", default="auto",
                       help="MiB, GiB, KB (1024 B, the seeds'), KiB, MB, GB (decimal); default auto: MiB/s, "
                            "GiB/s past 10 GiB/s")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=PROG, allow_abbrev=False,
                                 description="Charts (PNG and SVG) from a pfsbench results file.")
    sub = ap.add_subparsers(dest="chart", metavar="CHART")
    sub.required = True
    for name in CHARTS:
        p = sub.add_parser(name, help=HELPS[name], description=HELPS[name], allow_abbrev=False)
        p.add_argument("file", help="a pfsbench results file")
        _chart_args(p, name)
        p.add_argument("--names", choices=sorted(PHASE_NAMES), default="pfsbench",
                       help="phase names as that tool prints them")
        p.add_argument("--title", help="the chart's title instead of the generated one")
        p.add_argument("-o", "--output", metavar="PREFIX",
                       help="write PREFIX.png and PREFIX.svg, or just OUT.png / OUT.svg / OUT.pdf "
                            "(default: <results stem>-%s...)" % name)
        p.add_argument("--formats", default="png,svg", help="comma list of png, svg, pdf (default png,svg)")
        p.add_argument("--dpi", type=int, default=120, help="PNG resolution (default 120)")
    return ap


def _formats(a: argparse.Namespace) -> None:
    """--formats as a list, each checked."""
    a.formats = [x.strip().lower() for x in a.formats.split(",") if x.strip()]
    for x in a.formats:
        if x not in ("png", "svg", "pdf"):
            raise Usage("--formats: '%s' is not png, svg or pdf" % x)
    if not a.formats:
        raise Usage("--formats: give at least one of png, svg, pdf")


def chart(data: Data, argv: Sequence[str]) -> List[str]:
    """One chart of data's file, as pfs-plot CHART FILE ARGS would draw it:
    argv is [CHART, ARGS...] (FILE is data's); returns the paths written.
    For a tool that has the file open already (pfs-report)."""
    path = os.path.join(".", data.path) if data.path.startswith("-") else data.path  # not an option
    a = _parser().parse_args([argv[0], path] + list(argv[1:]))
    _formats(a)
    return CHARTS[a.chart](data, a)


def _plot(a: argparse.Namespace) -> int:
    _formats(a)
    with Data(a.file, PROG) as data:
        paths = CHARTS[a.chart](data, a)
    for p in paths:
        print("wrote %s" % p)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    a = _parser().parse_args(argv)
    return run_main(PROG, lambda: _plot(a))
