"""The comparison tables' model, shared by pfs-compare and pfs-plot: a
results file's summary rows read once (Data), the rows a selection keeps,
the value each cell averages, and phases x columns of values (Table).

Each cell is the mean over the repetitions (of every complete run in the
selection that falls in that cell). A cell never averages configurations
it can tell apart: runs without a label are a column per configuration
(configs.py); a column that does hold runs of several configurations is
named in a warning.
"""

from __future__ import annotations

import argparse
import fnmatch
import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import rows as R
from ..reader import is_metadata
from . import configs
from .common import Usage, open_results
from .names import PER_CHAR_API, RATE_PHASES, UNITS, base_phase, parse_sweep_label

Row = R.Row


class Data:
    """The summary rows and run attributes of a results file, read once
    through pfsbench.open(); results: the open Results (close() or with)."""

    def __init__(self, path: str, prog: str) -> None:
        self.path = path
        problems: List[Any] = []
        self.results = open_results(path, prog, problems)
        try:
            # Warm-up repetitions (--warmup) are stored but left out, as pfsbench's statistics leave them.
            summary = R.summary_rows(self.results, problems=problems)
        finally:
            from .common import report_problems
            report_problems(prog, problems)
        self.rows: List[Row] = [r for r in summary if not r.get("warmup")]
        self.runs: Dict[int, Row] = {r["run"]: r for r in R.runs(self.results)}
        # run -> its configuration (configs.run_options): what tells runs apart.
        self.options = {n: configs.run_options(a) for n, a in self.runs.items()}
        self._add_latency(R.latency_rows(self.results.runs))
        self._per_char()
        # phase -> "data" or "metadata", as the file's rows say (first appearance).
        self.kinds: Dict[str, str] = {}
        for r in self.rows:
            self.kinds.setdefault(r["phase"], r["kind"])

    def close(self) -> None:
        self.results.close()

    def __enter__(self) -> "Data":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _add_latency(self, lat: Sequence[Row]) -> None:
        """Each summary row's cpu_percent (bonnie++'s %CP: user + sys CPU of
        all streams / (seconds x streams) x 100) and the latency percentiles
        of the phase's own operation (latency_summary's op kind: op_p50_ns,
        op_p99_ns, op_p999_ns); None where the file has none (CPU and
        latencies came in issues 16 and 17; a phase with no operation has a
        count of 0). Rows and phase groups come in the same order within a run."""
        queue: Dict[Tuple[Any, ...], List[Row]] = {}
        for r in lat:
            queue.setdefault((r["run"], r["phase"], r["rep"]), []).append(r)
        for r in self.rows:
            q = queue.get((r["run"], r["phase"], r["rep"]))
            got = q.pop(0) if q else {}
            r["cpu_percent"] = got.get("cpu_percent")
            counted = bool(got.get("op_count"))
            for k in LATENCY_KEYS.values():
                r[k] = float(got[k]) if counted and got.get(k) is not None else None

    def _per_char(self) -> None:
        """The data phases of --api stdio runs renamed PHASE@stdio (bonnie++'s
        Per Chr rows), but those judged by their rate (seeks); after _add_latency,
        which matches rows by phase."""
        for r in self.rows:
            if r["kind"] == "data" and r["phase"] not in RATE_PHASES \
                    and self.runs.get(r["run"], {}).get("api") == PER_CHAR_API:
                r["phase"] = "%s@%s" % (r["phase"], PER_CHAR_API)

    def sweeps(self) -> List[str]:
        """The pfs-sweep ids in the file, in order of first appearance."""
        out: List[str] = []
        for r in self.rows:
            p = parse_sweep_label(r["label"])
            if p and p[0] not in out:
                out.append(p[0])
        return out

    def labels(self) -> List[str]:
        out: List[str] = []
        for r in self.rows:
            if r["label"] not in out:
                out.append(r["label"])
        return out


def is_meta(phase: str, data: Optional[Data] = None) -> bool:
    """True for a metadata phase (a rate in files/s): the kind data's file
    gives phase, when data is given and says; else pfsbench's."""
    kind = data.kinds.get(phase) if data is not None else None
    return is_metadata(phase, kind)


def select(data: Data, sweep: Optional[str] = None, labels: Optional[Sequence[str]] = None,
           runs: Optional[Sequence[object]] = None, phases: Optional[Sequence[str]] = None,
           include_failed: bool = False) -> List[Row]:
    """The summary rows that pass every filter given, in file order.
    sweep: a pfs-sweep id; labels: exact labels or shell patterns ('sweep-*');
    runs: run numbers or run ids; phases: phase names. Only complete runs
    unless include_failed."""
    rows = data.rows
    if not include_failed:
        rows = [r for r in rows if r["status"] == "complete"]
    if sweep is not None:
        rows = [r for r in rows if (parse_sweep_label(r["label"]) or (None,))[0] == sweep]
    if labels:
        rows = [r for r in rows if any(fnmatch.fnmatchcase(r["label"], p) for p in labels)]
    if runs:
        want = set()
        for given in runs:
            w = str(given)
            if w.isdigit():
                want.add(int(w))
            else:
                want.update(n for n, a in data.runs.items() if a.get("run_id") == w)
        rows = [r for r in rows if r["run"] in want]
    if phases:
        rows = [r for r in rows if r["phase"] in phases or base_phase(r["phase"]) in phases]
    return rows


def label_order(rows: Sequence[Row], patterns: Optional[Sequence[str]]) -> List[str]:
    """Labels in the order of the patterns given, each pattern's labels in
    order of first appearance; without patterns, first appearance."""
    seen: List[str] = []
    for r in rows:
        if r["label"] not in seen:
            seen.append(r["label"])
    if not patterns:
        return seen
    out: List[str] = []
    for p in patterns:
        for lab in seen:
            if fnmatch.fnmatchcase(lab, p) and lab not in out:
                out.append(lab)
    return out


# ---- values ----

VALUES = ("bandwidth", "stonewall", "utilization", "seconds", "iops", "p50", "p99", "p999", "cpu")
# What pfs-plot's sweep and compare charts draw (their axes know these).
PLOT_VALUES = VALUES[:4]
# --value NAME -> the summary row's key (Data._add_latency) of that percentile, in ns.
LATENCY_KEYS = {"p50": "op_p50_ns", "p99": "op_p99_ns", "p999": "op_p999_ns"}
# name: (ns per unit, label)
TIME_UNITS: Dict[str, Tuple[float, str]] = {"ns": (1.0, "ns"), "us": (1e3, "us"), "ms": (1e6, "ms"), "s": (1e9, "s")}


def value(data: Data, row: Row, what: str = "bandwidth") -> Optional[float]:
    """The number a cell averages, in base units: bytes/s for data phases'
    bandwidths, files/s for metadata phases, a fraction for utilization,
    seconds, ops/s for iops (the phase's ops over its seconds), ns for a
    latency percentile of the phase's own operation, percent for cpu. None
    when the row has none (a stonewall bandwidth without a stonewall; ops,
    latency or CPU in a file written before they were recorded)."""
    if what == "utilization":
        return float(row["utilization"])
    if what == "seconds":
        return float(row["seconds"])
    if what == "iops":
        ops, sec = row.get("ops"), float(row["seconds"])
        return None if ops is None or sec <= 0 else float(ops) / sec
    if what in LATENCY_KEYS:
        v = row.get(LATENCY_KEYS[what])
        return None if v is None else float(v)
    if what == "cpu":
        return None if row.get("cpu_percent") is None else float(row["cpu_percent"])
    if is_metadata(row["phase"], row.get("kind")) or base_phase(row["phase"]) in RATE_PHASES:
        return meta_rate(data, row)
    if what == "stonewall":
        return float(row["stonewall_bandwidth"]) if row["stonewall_bandwidth"] > 0 else None
    return float(row["bandwidth"])


MISSING_VALUE = {"iops": "operation counts (the phase groups' ops dataset)",
                 "p50": "latencies (the phase groups' latency_summary)", "p99": "latencies (the phase groups' "
                 "latency_summary)", "p999": "latencies (the phase groups' latency_summary)",
                 "cpu": "CPU times (the phase groups' cpu_user and cpu_sys, or the times' fields of that name)"}


def check_recorded(data: Data, rows: Sequence[Row], what: str) -> None:
    """Usage when no row of the selection has a value of what: the file
    (of an older pfsbench) did not record it, and a table of '-' would say
    nothing."""
    if what in MISSING_VALUE and all(value(data, r, what) is None for r in rows):
        raise Usage("--value %s: %s holds no %s for the runs selected (a pfsbench from before they were "
                    "recorded wrote it); nothing is computed in their place" % (what, data.path, MISSING_VALUE[what]))


def time_unit(arg: Optional[str], values_ns: Sequence[float]) -> str:
    """The TIME_UNITS key for a latency table: arg (ns, us, ms, s) when
    given, else the largest unit in which the smallest value is at least 1
    (so that no cell rounds to 0.00)."""
    if arg is not None:
        s = arg.strip().lower().replace("\u00b5s", "us")
        if s not in TIME_UNITS:
            raise Usage("--units %s: a latency is in ns, us, ms or s" % arg)
        return s
    pos = [v for v in values_ns if v > 0]
    low = min(pos) if pos else 0.0
    for name in ("s", "ms", "us"):
        if low >= TIME_UNITS[name][0]:
            return name
    return "ns"


def meta_rate(data: Data, row: Row) -> Optional[float]:
    """Files per second of a metadata phase: the rate pfsbench stored (all
    streams' files over the phase time)."""
    return None if row.get("rate") is None else float(row["rate"])


def unit_of(phase: str, what: str, unit: str, data: Optional[Data] = None) -> Tuple[float, str]:
    """(scale, label) for a row of phase: what a base-unit value is divided
    by; unit: a UNITS key, or a TIME_UNITS key for a latency."""
    if what == "utilization":
        return 1.0, "fraction"
    if what == "seconds":
        return 1.0, "s"
    if what == "cpu":
        return 1.0, "%"
    if what in LATENCY_KEYS:
        return TIME_UNITS[unit]
    if is_meta(phase, data):
        return 1.0, "files/s"
    if base_phase(phase) in RATE_PHASES:
        return 1.0, RATE_PHASES[base_phase(phase)]
    if what == "iops":
        return 1.0, "ops/s"
    return UNITS[unit][0], UNITS[unit][1]


# ---- the table ----

BY = ("label", "ranks", "threads", "rep", "run")


# A column's key: a label, a rank, thread, repetition or run number, or ("", a
# configuration) for unlabelled runs of one configuration; one kind per table.
ColumnKey = Any


def column_key(data: Data, row: Row, by: str) -> ColumnKey:
    if by == "label":
        return row["label"]
    if by == "ranks":
        return row["ranks"]
    if by == "threads":
        return row.get("threads", 1)
    if by == "rep":
        return row["rep"]
    return row["run"]


def column_title(data: Data, by: str, key: Any) -> str:
    if by == "label":
        return str(key) if key else "(no label)"
    if by == "rep":
        return "rep %d" % key
    if by == "run":
        lab = data.runs.get(key, {}).get("label", "")
        return "run %d%s" % (key, " %s" % lab if lab else "")
    return str(key)


class Table:
    """phases x columns of value lists, in display order."""

    def __init__(self, phases: List[str], columns: List[ColumnKey], titles: Dict[ColumnKey, str],
                 cells: Dict[Tuple[str, ColumnKey], List[float]], with_mean: bool) -> None:
        self.phases = phases        # phase names in order of first appearance
        self.columns = columns      # column keys
        self.titles = titles        # column key -> title
        self.cells = cells          # (phase, key) -> [values in base units]
        self.with_mean = with_mean  # a last column: the mean over all columns (by rep or run)
        self.cpu: Dict[Tuple[str, ColumnKey], List[float]] = {}               # (phase, key) -> [%CPU per stream, where the file has it]
        self.notes: List[str] = []             # sentences for the title: how the columns were made
        self.warnings: List[str] = []          # what the tool says on stderr: columns that average configurations


def split_unlabelled(data: Data, rows: Sequence[Row]) -> Tuple[Dict[int, ColumnKey], Dict[ColumnKey, str], List[str]]:
    """--by label: the column key of each unlabelled row (by its run), its
    columns' titles and the notes for the table's title. Unlabelled runs of
    one configuration keep the one "" column ("(no label)"); of several, a
    column each, keyed ("", configuration) and titled by the options in
    which it differs from the commonest values ("(no label)" for the column
    that holds them all)."""
    found: Dict[configs.Key, configs.Options] = {}  # configuration key -> its options (in the order the run stored them)
    for r in rows:
        o = data.options.get(r["run"], {})
        if r["label"] == "":
            found.setdefault(configs.key_of(o), o)
    if len(found) < 2:
        return {}, {}, []
    order, opts = list(found), list(found.values())
    keys = configs.differing(opts)
    common = configs.commonest(opts, keys)
    key_of_run = {r["run"]: ("", configs.key_of(data.options.get(r["run"], {}))) for r in rows if r["label"] == ""}
    titles = {("", k): configs.departure(o, common, keys) or "(no label)" for k, o in zip(order, opts)}
    note = ("runs without a label: a column per configuration (the options each run stored), headed by the "
            "options in which it differs from the commonest (%s)%s" % (
                configs.words(common, keys), ", which the (no label) column has"
                if "(no label)" in titles.values() else ""))
    return key_of_run, titles, [note]


def mixed_columns(data: Data, rows: Sequence[Row], key: Dict[int, ColumnKey], by: str,
                  titles: Dict[ColumnKey, str]) -> List[str]:
    """A warning for each column whose rows come from runs of more than one
    configuration; key: each row's column key, by its index in rows;
    titles: each column key's heading."""
    columns: Dict[ColumnKey, Dict[configs.Key, Tuple[configs.Options, List[int]]]] = {}  # column key -> configuration key -> (options, run numbers)
    for i, r in enumerate(rows):
        o = data.options.get(r["run"], {})
        opts, runs = columns.setdefault(key[i], {}).setdefault(configs.key_of(o), (o, []))
        if r["run"] not in runs:
            runs.append(r["run"])
    out = []
    for k, col in columns.items():
        name = repr(titles[k]) if by == "label" else "%s=%s" % (by, titles[k])
        w = configs.mixed_warning(name, list(col.values()))
        if w:
            out.append(w)
    return out


def _cells(data: Data, rows: Sequence[Row], by: str, what: str, split: Dict[int, ColumnKey], table: Table,
           row_key: Dict[int, ColumnKey]) -> None:
    """Fills table's columns (in order of first appearance), cells and %CPU from rows."""
    for i, r in enumerate(rows):
        k = split.get(r["run"], "") if by == "label" and r["label"] == "" and split else column_key(data, r, by)
        row_key[i] = k
        if k not in table.columns:
            table.columns.append(k)
        v = value(data, r, what)
        if v is not None:
            table.cells.setdefault((r["phase"], k), []).append(v)
            if r.get("cpu_percent") is not None:
                table.cpu.setdefault((r["phase"], k), []).append(r["cpu_percent"])


def _add_mean(t: Table) -> None:
    """A last column, "mean", of every column's values (--by rep or run)."""
    for p in t.phases:
        allv = [v for k in t.columns for v in t.cells.get((p, k), [])]
        if allv:
            t.cells[(p, "__mean__")] = allv
        allc = [v for k in t.columns for v in t.cpu.get((p, k), [])]
        if allc:
            t.cpu[(p, "__mean__")] = allc
    t.columns = t.columns + ["__mean__"]
    t.titles["__mean__"] = "mean"


def build_table(data: Data, rows: Sequence[Row], by: str, what: str = "bandwidth",
                label_patterns: Optional[Sequence[str]] = None) -> Table:
    """phases x columns (by: label, ranks, threads, rep, run) of the values of rows."""
    if not rows:
        raise Usage("no rows selected (see pfs-results FILE --runs for the labels and statuses in the file)")
    if by == "rep":
        rs = sorted({r["run"] for r in rows})
        if len(rs) > 1:
            raise Usage("--by rep needs the rows of one run; the selection holds runs %s (add --run N, or use "
                        "--by run)" % ", ".join(str(x) for x in rs))
    phases: List[str] = []
    for r in rows:
        if r["phase"] not in phases:
            phases.append(r["phase"])
    split, split_titles, notes = split_unlabelled(data, rows) if by == "label" else ({}, {}, [])
    t = Table(phases, [], {}, {}, by in ("rep", "run"))
    row_key: Dict[int, ColumnKey] = {}
    _cells(data, rows, by, what, split, t, row_key)
    keys = t.columns
    if by == "label":
        # The unlabelled configurations take the place of the "" label, in order of first appearance.
        split_keys: List[ColumnKey] = [k for k in keys if isinstance(k, tuple)]
        keys = [x for lab in label_order(rows, label_patterns)
                for x in (split_keys if lab == "" and split else [lab])]
    elif by in ("ranks", "threads", "rep", "run"):
        keys.sort()
    t.columns = keys
    t.titles = {k: split_titles.get(k) or column_title(data, by, k) for k in keys}
    t.notes = notes
    if by in ("label", "ranks", "threads"):  # a column of one run (rep, run) is one configuration
        t.warnings = mixed_columns(data, rows, row_key, by, t.titles)
    if t.with_mean:
        _add_mean(t)
    return t


STATS = ("mean", "min", "max", "median", "n")


def stat(values: Sequence[float], name: str) -> Optional[float]:
    if not values:
        return None
    if name == "mean":
        return math.fsum(values) / len(values)
    if name == "min":
        return min(values)
    if name == "max":
        return max(values)
    if name == "n":
        return len(values)
    s = sorted(values)
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2.0


def reps_phrase(table: Table) -> str:
    ns = sorted({len(v) for k, v in table.cells.items() if k[1] != "__mean__"})
    if not ns:
        return "no values"
    if len(ns) == 1:
        return "%d value%s per cell" % (ns[0], "" if ns[0] == 1 else "s")
    return "%d to %d values per cell" % (ns[0], ns[-1])


# ---- command line ----

def add_selection_args(ap: argparse.ArgumentParser) -> None:
    g = ap.add_argument_group("selection (complete runs only, unless --include-failed)")
    g.add_argument("--sweep", metavar="ID", help="the runs of pfs-sweep --id ID (labels ID:n=N)")
    g.add_argument("--label", metavar="PATTERN", action="append",
                   help="runs whose label is PATTERN (shell wildcards: 'sweep-*'); repeatable, and the "
                        "order given is the column order")
    g.add_argument("--run", metavar="N", action="append", help="run number or run id; repeatable")
    g.add_argument("--phases", metavar="LIST", help="comma list of phases to show (default: all, in run order)")
    g.add_argument("--include-failed", action="store_true",
                   help="also the completed repetitions of failed or interrupted runs")


def default_by(rows: Sequence[Row], sweep: Optional[str]) -> str:
    """threads for a thread sweep, ranks for a rank sweep, else label."""
    if sweep is None:
        return "label"
    if any((parse_sweep_label(r["label"]) or (0, 0, None))[2] for r in rows):
        return "threads"
    return "ranks"


def selection_from_args(data: Data, a: argparse.Namespace) -> List[Row]:
    phases = [p for p in a.phases.split(",") if p] if a.phases else None
    if a.sweep is not None and a.sweep not in data.sweeps():
        known = data.sweeps()
        raise Usage("no sweep '%s' in %s (%s)" % (a.sweep, data.path,
                    "its sweeps: " + ", ".join(known) if known else "it holds no pfs-sweep runs"))
    rows = select(data, sweep=a.sweep, labels=a.label, runs=a.run, phases=phases,
                  include_failed=a.include_failed)
    if not rows:
        raise Usage("nothing in %s matches the selection (its labels: %s; see pfs-results %s --runs)"
                    % (data.path, ", ".join(repr(x) for x in data.labels()) or "none", data.path))
    return rows


