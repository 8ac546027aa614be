"""The charts of pfs-report: pfs-plot's own (pfsbench.cli.plot.chart), each
drawn as a PNG in a temporary directory and embedded in the page. A run
gets those its data allow: per-node bandwidth (a data phase with per-node
figures), the timeline (a time series), the latency CDF (histograms with
operations), the storage targets (a data phase with more than one known
target, as the text report's table); several complete runs also the comparison by run and, for
each pfs-sweep among them, the sweep. What pfs-plot says on stderr while
drawing becomes the chart's caption."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import warnings
from typing import List, Sequence, Tuple

from ...reader import Run
from ...text import text
from ..common import Usage
from ..names import parse_sweep_label
from ..plot import chart
from ..table import Data
from .page import esc, image, tag

DPI = "90"
# (pfs-plot's chart, what the caption calls it)
RUN_CHARTS = (("nodes", "per-node bandwidth, stragglers marked"),
              ("timeline", "bandwidth and operations per node over time"),
              ("latency", "latency CDF per phase, and its tail"),
              ("targets", "storage targets by p99 and bandwidth over busy time, slow ones marked"))


def _applies(run: Run, name: str) -> bool:
    """Whether the run holds what chart `name` draws."""
    groups = [p.group for p in run.phases if p.reps > 0]
    if name == "nodes":
        return any(p.kind == "data" and "node_bandwidth" in p.group for p in run.phases if p.reps > 0)
    if name == "timeline":
        return any("timeseries" in g and len(g["timeseries"]) > 0 for g in groups)
    if name == "targets":
        return any(len({text(n) for n in g["targets"]["name"]} - {"unknown"}) > 1
                   for g in groups if "targets" in g and g["targets"].ndim == 1 and len(g["targets"]) > 0)
    return any("latency_summary" in g and "latency" in g and int(g["latency_summary"]["count"][:, 0].sum()) > 0
               for g in groups)


def draw(data: Data, args: Sequence[str], alt: str, caption: str) -> str:
    """A figure of pfs-plot ARGS (a PNG); a note when pfs-plot finds nothing to draw."""
    with tempfile.TemporaryDirectory(prefix="pfs-report.") as d:
        out = os.path.join(d, "chart.png")
        said = io.StringIO()
        try:
            with contextlib.redirect_stderr(said), warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                chart(data, list(args) + ["-o", out, "--dpi", DPI])
        except Usage as e:
            return tag("p", esc("%s: not drawn: %s" % (caption, e)), "note")
        with open(out, "rb") as f:
            png = f.read()
    notes = "; ".join([x.replace("pfs-plot: ", "", 1) for x in said.getvalue().splitlines()] +
                      ["matplotlib: %s" % w.message for w in caught])
    return image(png, alt, caption + (" (%s)" % notes if notes else ""))


def run_charts(data: Data, run: Run) -> List[str]:
    """The figures of one run that apply to it."""
    out = []
    for name, what in RUN_CHARTS:
        if _applies(run, name):
            extra = ["--iops"] if name == "timeline" else []
            out.append(draw(data, [name, "--run", str(run.number)] + extra, "%s of run %d" % (name, run.number),
                            "run %d: %s" % (run.number, what)))
    return out


def several_charts(data: Data, runs: Sequence[Run]) -> List[Tuple[str, str]]:
    """(title, figure) of the charts over several runs: the complete runs
    side by side, and each pfs-sweep they hold; none for one run."""
    done = [str(r.number) for r in runs if r.status == "complete"]
    if len(done) < 2:
        return []
    picked = [w for n in done for w in ("--run", n)]
    out = [("the runs side by side", draw(data, ["compare", "--by", "run"] + picked, "comparison of runs",
                                          "aggregate bandwidth (and files/s) per phase, a bar per run"))]
    sweeps = {(parse_sweep_label(r.label) or ("",))[0] for r in runs if r.status == "complete"} - {""}
    for sweep in [s for s in data.sweeps() if s in sweeps]:
        out.append(("sweep %s" % sweep, draw(data, ["sweep", "--sweep", sweep] + picked, "sweep %s" % sweep,
                                              "sweep %s: bandwidth against ranks" % sweep)))
    return out
