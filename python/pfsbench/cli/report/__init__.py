"""pfs-report: a results file as one HTML page to share (pfsbench.cli.report).

    pfs-report FILE [RUNS...] [-o OUT.html]

One self-contained file (default: FILE with .html for its extension,
results.h5 -> results.html): per run its header (command, run id, status,
label, date, ranks and threads, nodes and hosts, file system, API, sizes,
phases), the repetitions and the summary over them as pfsbench's text report
prints them, the latency per kind of operation, the figures per node with
the stragglers, the warnings stored with the run, and pfs-plot's charts that
apply (per-node bandwidth, timeline, latency CDF, storage targets; for several complete runs
the runs side by side and each pfs-sweep among them), each a PNG embedded as
a data: URI. No script, nothing fetched: the page opens anywhere, mailed or
archived. Text from the file is HTML-escaped (a label "<script>" shows as
those characters), with control characters shown as \\n, \\xNN.

RUNS: run numbers, /runs/NNNNNN or run ids, as pfs-results --run takes them
(default: every run). Exit status: 0 written (also when damaged runs were
skipped, each named on stderr and on the page), 1 none of the runs asked
for could be read (nothing written), 2 bad input (not a results file, no
such run, an output that is the results file; nothing written).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from typing import List, Optional, Sequence

from ...damage import Problem
from ...h5file import NoSuchRun
from ...reader import Run
from ..common import Usage, escape_output, run_main
from ..table import Data
from . import charts, sections
from .page import esc, page, tag

PROG = "pfs-report"


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=PROG, allow_abbrev=False,
                                 description="A pfsbench results file as one self-contained HTML page: the runs' "
                                             "header, tables, warnings and charts.")
    ap.add_argument("file", help="a pfsbench results file (pfsbench -o FILE)")
    ap.add_argument("runs", nargs="*", metavar="RUN",
                    help="run number, /runs/NNNNNN or run id (default: every run)")
    ap.add_argument("-o", "--output", metavar="OUT",
                    help="the page to write (default: FILE with .html for its extension)")
    return ap


def _pick(data: Data, which: Sequence[str], problems: List[Problem]) -> List[Run]:
    """The runs asked for, in the order given (every readable run without
    RUNS); a damaged one's problems go to problems."""
    if not which:
        problems += data.results.problems
        return list(data.results.runs)
    out: List[Run] = []
    for w in which:
        try:
            run, damage = data.results.lookup(w)
        except NoSuchRun as e:
            raise Usage(str(e))
        problems += damage
        if run is not None and run not in out:
            out.append(run)
    return out


def _run_section(data: Data, run: Run) -> List[str]:
    n = run.number
    title = "run %d%s" % (n, ": " + run.label if run.label else "")
    parts = [tag("h2", esc(title), ident="run%d" % n), sections.header(run),
             tag("h3", "warnings"), sections.warning_list(sections.warnings(run), "warnings-run%d" % n),
             tag("h3", "repetitions"), sections.repetitions(run), tag("p", esc(sections.UNITS_NOTE), "units"),
             tag("h3", "summary over repetitions"),
             tag("p", esc("aggregate MiB/s|files/s of the measured repetitions (warm-up left out); +-: the 95% "
                          "confidence interval of the mean, in percent of it"), "units"),
             sections.summary(run)]
    lat = sections.latency(run)
    if lat is not None:
        parts += [tag("h3", "latency per operation kind"),
                  tag("p", esc(sections.LATENCY_NOTE), "units"), lat]
    nodes = sections.nodes(run)
    if nodes is not None:
        parts += [tag("h3", "per node"), nodes]
    figs = charts.run_charts(data, run)
    if figs:
        parts += [tag("h3", "charts")] + figs
    return parts


def _document(data: Data, runs: Sequence[Run], problems: Sequence[Problem]) -> str:
    name = os.path.basename(data.path)
    body = [tag("h1", esc("pfsbench report: %s" % name)),
            tag("p", esc("%d run%s of %s" % (len(runs), "" if len(runs) == 1 else "s", data.path)))]
    if problems:
        body.append(tag("ul", "".join(tag("li", esc("%s: %s; skipped" % (w, what))) for w, what in problems),
                        "warnings", "problems"))
    body.append(tag("ul", "".join(tag("li", '<a href="#run%d">%s</a>' % (r.number, esc(
        "run %d %s %s%s" % (r.number, r.run_id, r.status, ": " + r.label if r.label else "")))) for r in runs)))
    for title, fig in charts.several_charts(data, runs):
        body += [tag("h2", esc(title)), fig]
    for r in runs:
        body += _run_section(data, r)
    return page("pfsbench report: %s" % name, body)


def _output(a: argparse.Namespace) -> str:
    out = str(a.output or os.path.splitext(a.file)[0] + ".html")
    if os.path.exists(out) and os.path.exists(a.file) and os.path.samefile(out, a.file):
        raise Usage("-o %s: that is the results file" % out)
    d = os.path.dirname(out)
    if d and not os.path.isdir(d):
        raise Usage("-o %s: directory '%s' does not exist" % (out, d))
    return out


def _write(out: str, doc: str) -> None:
    """The page, whole or not at all: written beside OUT, then renamed."""
    fd, tmp = tempfile.mkstemp(prefix=".pfs-report.", suffix=".html", dir=os.path.dirname(out) or ".")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(doc)
        os.chmod(tmp, 0o644)
        os.replace(tmp, out)
    except BaseException:
        os.unlink(tmp)
        raise


def _report(a: argparse.Namespace) -> int:
    out = _output(a)
    problems: List[Problem] = []
    with Data(a.file, PROG) as data:
        runs = _pick(data, a.runs, problems)  # Data named every damaged run on stderr
        if not runs and not problems:
            raise Usage("%s holds no runs" % a.file)
        if not runs:
            sys.stderr.write("%s: none of the runs asked for could be read; nothing written\n" % PROG)
            return 1
        doc = _document(data, runs, problems)
    _write(out, doc)
    print("wrote %s" % out)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    a = _parser().parse_args(argv)
    escape_output()
    return run_main(PROG, lambda: _report(a))
