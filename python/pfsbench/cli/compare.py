"""pfs-compare: the seeds' comparison tables from a pfsbench results file (pfsbench.cli.compare).

    pfs-compare FILE --by label                 phases x configurations (the run labels)
    pfs-compare FILE --sweep ID                 phases x rank counts of a pfs-sweep sweep
    pfs-compare FILE --by rep --label L         phases x repetitions of one run, and their mean
    pfs-compare FILE --by label --transpose     configurations x phases (bonnie++'s shape)

Each cell is the mean over the repetitions (of every complete run in the
selection that falls in that cell); --stats mean,min,max adds the range.
A cell never averages configurations it can tell apart: runs without a
label are a column per configuration (the options each run stored, see
configs.py), headed by the options in which it differs from the commonest
values (the title says which those are); a column that does hold runs of
several configurations (one label given to different options, or a rank
count's column) is named in a warning on stderr, with what differs.
Units are always printed: --units KB (1 KB = 1024 bytes, the seeds' KB/s),
KiB, MiB (default), GiB, or decimal MB, GB. Metadata phases (create, stat,
read-files, find, delete) are rates in files/s, as pfsbench stored them.
--value picks the figure: bandwidth (default), stonewall, utilization,
seconds, iops (the phase's ops / its seconds, ops/s), p50, p99, p999 (the
percentiles of the phase's own operation that latency_summary stores; in
ns, us, ms or s: --units, else the largest unit in which the smallest
is at least 1), cpu
(%CPU: user + sys CPU of all streams / (seconds x streams) x 100). A file
that did not record the figure asked for is refused, never filled in.
--format text, md (Markdown) or csv.

Exit status: 0 done, 2 bad input (not a results file, nothing selected).

The model (selection, grouping, values) is table.py, shared with
pfs-plot compare; units and phase names are names.py.
"""

from __future__ import annotations

import argparse
import csv
import sys
from typing import Any, List, Optional, Sequence, TextIO, Tuple

from .common import Usage, run_main
from .names import PHASE_NAMES, UNITS, phase_name, phase_order, unit_named
from .table import (BY, LATENCY_KEYS, STATS, VALUES, ColumnKey, Data, Table, add_selection_args, build_table,
                    check_recorded, default_by, is_meta, reps_phrase, selection_from_args, stat, time_unit, unit_of)

PROG = "pfs-compare"
RANGE_STATS = (["mean", "min", "max"], ["median", "min", "max"])
WHAT_TEXT = {"bandwidth": "aggregate bandwidth", "stonewall": "stonewall bandwidth",
             "utilization": "utilization (stream busy time / (streams x phase time); a stream is a rank, "
                            "or a thread of one)",
             "seconds": "phase time (last close end - first open start)",
             "iops": "operations per second (the phase's ops / its seconds; ops: transfers, or files in "
                     "metadata phases)",
             "p50": "median (p50) latency of the phase's own operation (latency_summary, op)",
             "p99": "p99 latency of the phase's own operation (latency_summary, op)",
             "p999": "p99.9 latency of the phase's own operation (latency_summary, op)",
             "cpu": "%CPU (user + sys CPU s of all streams / (phase s x streams) x 100, bonnie++'s %CP)"}
# --value: the one unit its cells are in (--units is refused with it)
FIXED_UNIT = {"iops": "ops/s (files/s in metadata phases)", "cpu": "percent"}
BY_TEXT = {"label": "configuration (label)", "ranks": "ranks", "threads": "threads per rank",
           "rep": "repetition, and the mean of all", "run": "run, and the mean of all"}


class Render:
    """The table as text, Markdown or CSV: its cells in the units asked
    for, with the statistics asked for, and bonnie++'s %CP beside each
    cell with --names bonnie where the file has CPU (text and Markdown)."""

    def __init__(self, data: Data, table: Table, by: str, what: str, unit: str, stats: List[str], fmt: str,
                 names: str, precision: Optional[int]) -> None:
        self.data, self.table, self.by, self.what, self.stats, self.names = data, table, by, what, stats, names
        self.unit = unit
        self.digits = precision if precision is not None else (3 if what == "utilization" else
                                                               4 if what == "seconds" else
                                                               1 if what == "cpu" else 2)
        self.units = {p: unit_of(p, what, unit, data) for p in table.phases}
        self.labels = sorted({u[1] for u in self.units.values()})
        self.one_unit = self.labels[0] if len(self.labels) == 1 else None
        self.with_cp = names == "bonnie" and bool(table.cpu) and fmt != "csv" and what != "cpu"

    def number(self, v: Optional[float], st: str) -> str:
        if v is None:
            return "-"
        if st == "n":
            return str(v)
        return "%.*f" % (self.digits, v)

    def cell_values(self, p: str, k: ColumnKey) -> List[Optional[float]]:
        vals = self.table.cells.get((p, k), [])
        scale = self.units[p][0]
        return [stat([v / scale for v in vals], s) if s != "n" else stat(vals, "n") for s in self.stats]

    def text_cell(self, p: str, k: ColumnKey) -> str:
        vals = self.table.cells.get((p, k))
        if not vals:
            return "-"
        got = self.cell_values(p, k)
        if self.stats in RANGE_STATS:
            if len(vals) == 1:
                return self.number(got[0], self.stats[0])
            return "%s (%s..%s)" % (self.number(got[0], self.stats[0]), self.number(got[1], "min"),
                                    self.number(got[2], "max"))
        return " / ".join(self.number(g, s) for g, s in zip(got, self.stats))

    def cp(self, p: str, k: ColumnKey) -> Optional[int]:
        """bonnie++'s %CP of a cell: the mean %CPU per stream, where the file has it."""
        v = stat(self.table.cpu.get((p, k), []), "mean")
        return None if v is None else round(v)

    def csv_line(self, pairs: Sequence[Tuple[str, ColumnKey]]) -> List[Any]:
        line: List[Any] = []
        for p, k in pairs:
            line += [("" if v is None else repr(v)) for v in self.cell_values(p, k)]
            if self.with_cp:
                line.append("" if self.cp(p, k) is None else self.cp(p, k))
        return line

    def write_csv(self, out: TextIO, transpose: bool) -> None:
        t, w = self.table, csv.writer(out, lineterminator="\n")
        if not transpose:
            head = ["phase"]
            for k in t.columns:
                head += [colname_csv(self.by, t.titles[k], s, self.stats, None if s == "n" else self.one_unit)
                         for s in self.stats] + (["%s %%CP" % t.titles[k]] if self.with_cp else [])
            if not self.one_unit:
                head.insert(1, "unit")
            w.writerow(head)
            for p in t.phases:
                unit = [] if self.one_unit else [self.units[p][1]]
                w.writerow([phase_name(p, self.names)] + unit + self.csv_line([(p, k) for k in t.columns]))
            return
        head = [self.by]
        for p in t.phases:
            head += [colname_csv(None, phase_name(p, self.names), s, self.stats, None if s == "n" else self.units[p][1])
                     for s in self.stats] + (["%s %%CP" % phase_name(p, self.names)] if self.with_cp else [])
        w.writerow(head)
        for k in t.columns:
            w.writerow([t.titles[k]] + self.csv_line([(p, k) for p in t.phases]))

    def head_line(self, title: Optional[str]) -> str:
        """The line above the table: what its cells are, in which units, over what."""
        if title:
            return title
        what_text = WHAT_TEXT[self.what]
        stat_text = self.stats[0] if self.stats in RANGE_STATS else "/".join(self.stats)
        range_text = " (min..max)" if self.stats in RANGE_STATS else ""
        metas = [is_meta(p, self.data) for p in self.table.phases]
        if self.what in ("bandwidth", "stonewall") and any(metas):
            what_text = ("metadata rate (files per second, all streams)" if all(metas)
                         else what_text + " (data phases) and rate (metadata phases)")
        u = UNITS.get(self.unit, ("", "", ""))
        unit_text = " and ".join("%s (%s)" % (u[1], u[2]) if lab == u[1] else lab for lab in self.labels)
        unit_text = {"fraction": "as a fraction", "s": "in seconds", "%": "in percent",
                     "us": "in us (microseconds)"}.get(unit_text, "in " + unit_text)
        line = "%s, %s%s over repetitions, %s; columns: %s; %s" % (
            what_text, stat_text, range_text, unit_text, BY_TEXT[self.by], reps_phrase(self.table))
        return line + "".join("; " + n for n in self.table.notes)

    def with_cps(self, cells: List[str], pks: Sequence[Tuple[Optional[str], Optional[ColumnKey]]]) -> List[str]:
        """cells, each followed by its %CP when with_cp; pks: the (phase, key) of each."""
        if not self.with_cp:
            return cells
        out = []
        for c, (p, k) in zip(cells, pks):
            v = self.cp(p, k) if p is not None else None
            out += [c, "-" if v is None else "%d" % v]
        return out

    def grid(self, transpose: bool) -> Tuple[List[str], List[List[str]]]:
        """(header, body) of the text and Markdown tables."""
        t = self.table
        if not transpose:
            corner = ("[%s] " % self.one_unit if self.one_unit else "") + "phase \\ " + self.by
            cols = [t.titles[k] for k in t.columns]
            header = [corner] + self.with_cps(cols, [(None, None)] * len(cols))
            body = [[self.phase_title(p)] + self.with_cps([self.text_cell(p, k) for k in t.columns],
                                                          [(p, k) for k in t.columns]) for p in t.phases]
        else:
            heads = ["%s [%s]" % (phase_name(p, self.names), self.units[p][1]) for p in t.phases]
            header = [self.by + " \\ phase"] + self.with_cps(heads, [(None, None)] * len(heads))
            body = [[t.titles[k]] + self.with_cps([self.text_cell(p, k) for p in t.phases], [(p, k) for p in t.phases])
                    for k in t.columns]
        if self.with_cp:
            header = [h if i == 0 or i % 2 == 1 else "%CP" for i, h in enumerate(header)]
        return header, body

    def phase_title(self, p: str) -> str:
        return phase_name(p, self.names) + ("" if self.one_unit else " [%s]" % self.units[p][1])


def render(data: Data, table: Table, by: str, what: str, unit: str, stats: List[str], fmt: str,
           names: str = "pfsbench", transpose: bool = False, precision: Optional[int] = None,
           title: Optional[str] = None, out: Optional[TextIO] = None) -> None:
    """Prints the table: fmt text, md or csv."""
    out = sys.stdout if out is None else out
    r = Render(data, table, by, what, unit, stats, fmt, names, precision)
    if fmt == "csv":
        r.write_csv(out, transpose)
        return
    head_line = r.head_line(title)
    if r.with_cp:
        head_line += "; %CP = CPU (user + sys) of all streams / (phase time x streams) x 100, as bonnie++'s"
    header, body = r.grid(transpose)
    if fmt == "md":
        out.write("%s\n\n" % head_line)
        out.write("| " + " | ".join(md_escape(h) for h in header) + " |\n")
        out.write("|---" + "|---:" * (len(header) - 1) + "|\n")
        for line in body:
            out.write("| " + " | ".join(md_escape(c) for c in line) + " |\n")
        return
    out.write(head_line + "\n")
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]
    for line in [header] + body:
        cells = [line[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(line[1:], widths[1:])]
        out.write("  ".join(cells).rstrip() + "\n")


def colname_csv(by: Optional[str], title: str, st: str, stats: Sequence[str], unit: Optional[str]) -> str:
    name = title if by in (None, "label", "rep", "run") else "%s=%s" % (by, title)
    if title == "mean" and by in ("rep", "run") and len(stats) > 1:
        name = "all"
    if len(stats) > 1:
        name += " " + st
    if unit:
        name += " [%s]" % unit
    return name


def md_escape(s: str) -> str:
    return s.replace("|", "\\|")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog=PROG, allow_abbrev=False,
        description="Print phases x configurations, ranks or repetitions from a pfsbench results file, "
                    "as text, Markdown or CSV, with units.",
        epilog="Examples: pfs-compare r.h5 --by label --units KB  |  pfs-compare r.h5 --sweep pixstor --units GB  "
               "|  pfs-compare r.h5 --by rep --label simple_stripe --names iozone --units KB")
    ap.add_argument("file", help="a pfsbench results file")
    add_selection_args(ap)
    ap.add_argument("--by", choices=BY,
                    help="the columns: label (configurations), ranks, threads, rep (repetitions of one run, and "
                         "their mean), run (and their mean). Default: ranks (threads) with --sweep of a rank "
                         "(thread) sweep, else label")
    ap.add_argument("--transpose", action="store_true", help="columns as rows: one row per configuration, "
                                                              "one column per phase (bonnie++'s shape)")
    ap.add_argument("--units", help="bandwidths: KB (1024 B, the seeds' KB/s), KiB, MiB (default), GiB, MB or GB "
                                    "(decimal); latencies (--value p50, p99, p999): ns, us, ms or s (default: "
                                    "the largest unit in which the smallest value is at least 1)")
    ap.add_argument("--value", choices=VALUES, default="bandwidth",
                    help="what the cells hold (default bandwidth; stonewall: the stonewall bandwidth; iops: "
                         "ops/s, the phase's operations over its time; p50, p99, p999: latency percentiles of "
                         "the phase's own operation; cpu: %%CPU of the streams; utilization; seconds)")
    ap.add_argument("--stats", default="mean",
                    help="comma list of mean, min, max, median, n (default mean); mean,min,max prints "
                         "'mean (min..max)'")
    ap.add_argument("--minmax", action="store_true", help="the same as --stats mean,min,max")
    ap.add_argument("--names", choices=sorted(PHASE_NAMES), default="pfsbench",
                    help="phase names as that tool prints them (iozone: Initial write, Rewrite, Read, Re-read; "
                         "gpfsperf: Create, Write, Read; bonnie: Block output, Rewrite, Block input, ...)")
    ap.add_argument("--format", choices=("text", "md", "csv"), default="text")
    ap.add_argument("--precision", type=int, metavar="N", help="decimals (default 2)")
    return ap


def _stats(a: argparse.Namespace) -> List[str]:
    stats = ["mean", "min", "max"] if a.minmax else [s.strip() for s in a.stats.split(",") if s.strip()]
    for s in stats:
        if s not in STATS:
            raise Usage("--stats: unknown statistic '%s'; use %s" % (s, ", ".join(STATS)))
    if not stats:
        raise Usage("--stats: give at least one of %s" % ", ".join(STATS))
    return stats


def _unit(a: argparse.Namespace, table: Table) -> str:
    """The UNITS (TIME_UNITS, for a latency) key of the table's cells; --units
    with a value that has a fixed unit is refused, not ignored."""
    if a.value in LATENCY_KEYS:
        return time_unit(a.units, [v for vs in table.cells.values() for v in vs])
    if a.units is not None and a.value in FIXED_UNIT:
        raise Usage("--units: --value %s is always in %s" % (a.value, FIXED_UNIT[a.value]))
    return unit_named(a.units or "MiB")


def _compare(a: argparse.Namespace) -> int:
    stats = _stats(a)
    with Data(a.file, PROG) as data:
        rows = selection_from_args(data, a)
        check_recorded(data, rows, a.value)
        by = a.by or default_by(rows, a.sweep)
        table = build_table(data, rows, by, a.value, a.label)
        unit = _unit(a, table)
        for w in table.warnings:
            sys.stderr.write("%s: warning: %s\n" % (PROG, w))
        table.phases = phase_order(table.phases, a.names)
        render(data, table, by, a.value, unit, stats, a.format, names=a.names, transpose=a.transpose,
               precision=a.precision)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    a = _parser().parse_args(argv)
    return run_main(PROG, lambda: _compare(a))


if __name__ == "__main__":
    sys.exit(main())
