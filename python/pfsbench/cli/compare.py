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
--format text, md (Markdown) or csv.

Exit status: 0 done, 2 bad input (not a results file, nothing selected).

It is also the module pfs-plot builds on (selection, grouping, units):
pfsbench.cli.compare.
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import math
import re
import sys

from . import configs
from . import results as pfs_results


class Usage(Exception):
    """Bad input: the message says what to do instead. Exit status 2."""


# ---- units ----

# name: (bytes/s per unit, label, explanation)
UNITS = {
    "KB": (1024.0, "KB/s", "KB = 1024 bytes, as gpfsperf, IOzone and bonnie++ print K/sec"),
    "KiB": (1024.0, "KiB/s", "KiB = 1024 bytes"),
    "MiB": (1048576.0, "MiB/s", "MiB = 2^20 bytes"),
    "GiB": (1073741824.0, "GiB/s", "GiB = 2^30 bytes"),
    "MB": (1e6, "MB/s", "MB = 10^6 bytes"),
    "GB": (1e9, "GB/s", "GB = 10^9 bytes"),
}


def unit_named(name):
    """The UNITS key for a user's spelling: KB, kb, KB/s, mib, GB/s ..."""
    s = name.strip()
    if s.lower().endswith("/s"):
        s = s[:-2]
    for k in UNITS:
        if k.lower() == s.lower():
            return k
    raise Usage("unknown unit '%s'; use one of %s" % (name, ", ".join(UNITS)))


def auto_unit(max_bytes_per_s):
    """MiB/s, or GiB/s once the largest value passes 10 GiB/s."""
    return "GiB" if max_bytes_per_s >= 10 * 1073741824.0 else "MiB"


# ---- phases ----

# Which phases are metadata phases (files/s) is not kept here: the results
# file says it (each phase group's `kind`, which Data reads with the summary
# rows), else pfsbench --list-options=json (pfs_results.phase_kind).

# How each tool of the seeds names pfsbench's phases.
PHASE_NAMES = {
    "pfsbench": {},
    # IOzone -i0 -i1: "Initial write", "Rewrite", "Read", "Re-read".
    "iozone": {"write": "Initial write", "rewrite": "Rewrite", "read": "Read", "reread": "Re-read"},
    # gpfsperf: create writes a new file, write overwrites an existing one.
    "gpfsperf": {"write": "Create", "rewrite": "Write", "read": "Read", "reread": "Re-read"},
    # bonnie++: Sequential Output Per Chr (putc: a write of --api stdio) / Block
    # / Rewrite, Sequential Input Per Chr (getc: a read of --api stdio) /
    # Block, Random Seeks (seeks/s), Sequential Create: Create, Read (a stat of
    # each file), Delete.
    "bonnie": {"write@stdio": "Sequential Output Per Chr", "write": "Block output", "rewrite": "Rewrite",
               "read@stdio": "Sequential Input Per Chr", "read": "Block input", "reread": "Block input again",
               "seeks": "Random Seeks", "create": "Create", "stat": "Read (stat)", "read-files": "Read files",
               "delete": "Delete"},
}

# The data phases of an --api stdio run (one putc or getc per byte) are rows
# of their own, "PHASE@stdio", beside the block phases of other APIs.
PER_CHAR_API = "stdio"
# Data phases judged by their rate, as bonnie++ prints its seeks: /sec.
RATE_PHASES = {"seeks": "seeks/s"}
DATA_PHASES = ("write", "rewrite", "read", "reread")


def base_phase(phase):
    """The pfsbench phase of a table row: 'write' for 'write@stdio'."""
    return phase.split("@", 1)[0]


def phase_order(phases, names):
    """bonnie++'s order of its rows (Per Chr output, Block, Rewrite, Per Chr
    input, Block, the file phases) with --names bonnie; else as given."""
    if names != "bonnie":
        return list(phases)
    order = list(PHASE_NAMES["bonnie"])
    return sorted(phases, key=lambda p: (order.index(p) if p in order else len(order), phases.index(p)))


def is_meta(phase, data=None):
    """True for a metadata phase (a rate in files/s): the kind data's file
    gives phase, when data is given and says; else pfs_results' rule."""
    kind = data.kinds.get(phase) if data is not None else None
    return pfs_results.is_metadata(phase, kind)


def phase_name(phase, names="pfsbench"):
    named = PHASE_NAMES.get(names, {}).get(phase)
    if named:
        return named
    if "@" in phase:  # write@stdio -> "write (stdio)", or iozone's name for write, then (stdio)
        base, api = phase.split("@", 1)
        return "%s (%s)" % (PHASE_NAMES.get(names, {}).get(base, base), api)
    return phase


# ---- labels of pfs-sweep ----

SWEEP_LABEL = re.compile(r"^(?P<id>[A-Za-z0-9._+-]+):n=(?P<n>[0-9]+)(?::t=(?P<t>[0-9]+))?$")


def parse_sweep_label(label):
    """(sweep id, ranks, threads or None) for a pfs-sweep label 'ID:n=N' or
    'ID:n=N:t=T'; None for any other label."""
    m = SWEEP_LABEL.match(label or "")
    if not m:
        return None
    return m.group("id"), int(m.group("n")), int(m.group("t")) if m.group("t") else None


# ---- the data ----

class Data:
    """The summary rows and run attributes of a results file, read once."""

    def __init__(self, path):
        self.path = path
        try:
            with pfs_results.open_results(path) as f:
                # Warm-up repetitions (--warmup) are stored but left out, as pfsbench's statistics leave them.
                self.rows = [r for r in pfs_results.summary_rows(f) if not r.get("warmup")]
                self.runs = {r["run"]: r for r in pfs_results.runs(f)}
                # run -> its configuration (configs.run_options): what tells runs apart.
                self.options = {n: configs.run_options(a) for n, a in self.runs.items()}
                self._add_cpu(pfs_results.latency_rows(f, problems=[]))
                self._per_char()
        except pfs_results.NotResultsFile as e:
            raise Usage(str(e))
        # phase -> "data" or "metadata", as the file's rows say (first appearance).
        self.kinds = {}
        for r in self.rows:
            self.kinds.setdefault(r["phase"], r["kind"])

    def _add_cpu(self, lat):
        """Each summary row's cpu_percent (bonnie++'s %CP: user + sys CPU of
        all streams / (seconds x streams) x 100), None where the file has no
        CPU. Rows and phase groups come in the same order within a run."""
        queue = {}
        for r in lat:
            queue.setdefault((r["run"], r["phase"], r["rep"]), []).append(r["cpu_percent"])
        for r in self.rows:
            q = queue.get((r["run"], r["phase"], r["rep"]))
            r["cpu_percent"] = q.pop(0) if q else None

    def _per_char(self):
        """The data phases of --api stdio runs renamed PHASE@stdio (bonnie++'s
        Per Chr rows); after _add_cpu, which matches rows by phase."""
        for r in self.rows:
            if r["phase"] in DATA_PHASES and self.runs.get(r["run"], {}).get("api") == PER_CHAR_API:
                r["phase"] = "%s@%s" % (r["phase"], PER_CHAR_API)

    def sweeps(self):
        """The pfs-sweep ids in the file, in order of first appearance."""
        out = []
        for r in self.rows:
            p = parse_sweep_label(r["label"])
            if p and p[0] not in out:
                out.append(p[0])
        return out

    def labels(self):
        out = []
        for r in self.rows:
            if r["label"] not in out:
                out.append(r["label"])
        return out


def select(data, sweep=None, labels=None, runs=None, phases=None, include_failed=False):
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
        for w in runs:
            w = str(w)
            if w.isdigit():
                want.add(int(w))
            else:
                want.update(n for n, a in data.runs.items() if a.get("run_id") == w)
        rows = [r for r in rows if r["run"] in want]
    if phases:
        rows = [r for r in rows if r["phase"] in phases or base_phase(r["phase"]) in phases]
    return rows


def label_order(rows, patterns):
    """Labels in the order of the patterns given, each pattern's labels in
    order of first appearance; without patterns, first appearance."""
    seen = []
    for r in rows:
        if r["label"] not in seen:
            seen.append(r["label"])
    if not patterns:
        return seen
    out = []
    for p in patterns:
        for lab in seen:
            if fnmatch.fnmatchcase(lab, p) and lab not in out:
                out.append(lab)
    return out


# ---- values ----

VALUES = ("bandwidth", "stonewall", "utilization", "seconds")


def value(data, row, what="bandwidth"):
    """The number a cell averages, in base units: bytes/s for data phases'
    bandwidths, files/s for metadata phases, a fraction for utilization,
    seconds. None when the row has none (a stonewall bandwidth without a
    stonewall)."""
    if what == "utilization":
        return row["utilization"]
    if what == "seconds":
        return row["seconds"]
    if pfs_results.is_metadata(row["phase"], row.get("kind")) or base_phase(row["phase"]) in RATE_PHASES:
        return meta_rate(data, row)
    if what == "stonewall":
        return row["stonewall_bandwidth"] if row["stonewall_bandwidth"] > 0 else None
    return row["bandwidth"]


def meta_rate(data, row):
    """Files per second of a metadata phase: the rate pfsbench stored (all
    streams' files over the phase time)."""
    return None if row.get("rate") is None else float(row["rate"])


def unit_of(phase, what, unit, data=None):
    """(scale, label) for a row of phase: what a base-unit value is divided by."""
    if what == "utilization":
        return 1.0, "fraction"
    if what == "seconds":
        return 1.0, "s"
    if is_meta(phase, data):
        return 1.0, "files/s"
    if base_phase(phase) in RATE_PHASES:
        return 1.0, RATE_PHASES[base_phase(phase)]
    return UNITS[unit][0], UNITS[unit][1]


# ---- the table ----

BY = ("label", "ranks", "threads", "rep", "run")


def column_key(data, row, by):
    if by == "label":
        return row["label"]
    if by == "ranks":
        return row["ranks"]
    if by == "threads":
        return row.get("threads", 1)
    if by == "rep":
        return row["rep"]
    return row["run"]


def column_title(data, by, key):
    if by == "label":
        return key if key else "(no label)"
    if by == "rep":
        return "rep %d" % key
    if by == "run":
        lab = data.runs.get(key, {}).get("label", "")
        return "run %d%s" % (key, " %s" % lab if lab else "")
    return str(key)


class Table:
    """phases x columns of value lists, in display order."""

    def __init__(self, phases, columns, titles, cells, with_mean):
        self.phases = phases        # phase names in order of first appearance
        self.columns = columns      # column keys
        self.titles = titles        # column key -> title
        self.cells = cells          # (phase, key) -> [values in base units]
        self.with_mean = with_mean  # a last column: the mean over all columns (by rep or run)
        self.cpu = {}               # (phase, key) -> [%CPU per stream, where the file has it]
        self.notes = []             # sentences for the title: how the columns were made
        self.warnings = []          # what the tool says on stderr: columns that average configurations


def split_unlabelled(data: Data, rows: list) -> tuple[dict, dict, list[str]]:
    """--by label: the column key of each unlabelled row (by its run), its
    columns' titles and the notes for the table's title. Unlabelled runs of
    one configuration keep the one "" column ("(no label)"); of several, a
    column each, keyed ("", configuration) and titled by the options in
    which it differs from the commonest values ("(no label)" for the column
    that holds them all)."""
    found: dict = {}  # configuration key -> its options (in the order the run stored them)
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


def mixed_columns(data: Data, rows: list, key: dict, by: str, titles: dict) -> list[str]:
    """A warning for each column whose rows come from runs of more than one
    configuration; key: each row's column key, by its index in rows;
    titles: each column key's heading."""
    columns: dict = {}  # column key -> configuration key -> (options, run numbers)
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


def build_table(data, rows, by, what="bandwidth", label_patterns=None):
    if not rows:
        raise Usage("no rows selected (see pfs-results FILE --runs for the labels and statuses in the file)")
    if by == "rep":
        rs = sorted({r["run"] for r in rows})
        if len(rs) > 1:
            raise Usage("--by rep needs the rows of one run; the selection holds runs %s (add --run N, or use "
                        "--by run)" % ", ".join(str(x) for x in rs))
    phases = []
    for r in rows:
        if r["phase"] not in phases:
            phases.append(r["phase"])
    cells, cpu = {}, {}
    keys = []
    split, split_titles, notes = split_unlabelled(data, rows) if by == "label" else ({}, {}, [])
    row_key = {}
    for i, r in enumerate(rows):
        k = split.get(r["run"], "") if by == "label" and r["label"] == "" and split else column_key(data, r, by)
        row_key[i] = k
        if k not in keys:
            keys.append(k)
        v = value(data, r, what)
        if v is not None:
            cells.setdefault((r["phase"], k), []).append(v)
            if r.get("cpu_percent") is not None:
                cpu.setdefault((r["phase"], k), []).append(r["cpu_percent"])
    if by == "label":
        # The unlabelled configurations take the place of the "" label, in order of first appearance.
        split_keys = [k for k in keys if isinstance(k, tuple)]
        keys = [x for lab in label_order(rows, label_patterns) for x in (split_keys if lab == "" and split else [lab])]
    elif by in ("ranks", "threads", "rep", "run"):
        keys.sort()
    titles = {k: split_titles.get(k) or column_title(data, by, k) for k in keys}
    t = Table(phases, keys, titles, cells, by in ("rep", "run"))
    t.cpu = cpu
    t.notes = notes
    if by in ("label", "ranks", "threads"):  # a column of one run (rep, run) is one configuration
        t.warnings = mixed_columns(data, rows, row_key, by, titles)
    if t.with_mean:
        for p in phases:
            allv = [v for k in keys for v in cells.get((p, k), [])]
            if allv:
                cells[(p, "__mean__")] = allv
            allc = [v for k in keys for v in cpu.get((p, k), [])]
            if allc:
                cpu[(p, "__mean__")] = allc
        t.columns = keys + ["__mean__"]
        t.titles["__mean__"] = "mean"
    return t


STATS = ("mean", "min", "max", "median", "n")


def stat(values, name):
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


def reps_phrase(table):
    ns = sorted({len(v) for k, v in table.cells.items() if k[1] != "__mean__"})
    if not ns:
        return "no values"
    if len(ns) == 1:
        return "%d value%s per cell" % (ns[0], "" if ns[0] == 1 else "s")
    return "%d to %d values per cell" % (ns[0], ns[-1])


def render(data, table, by, what, unit, stats, fmt, names="pfsbench", transpose=False, precision=None,
           title=None, out=None):
    """Prints the table: fmt text, md or csv."""
    out = sys.stdout if out is None else out
    digits = precision if precision is not None else (3 if what == "utilization" else
                                                      4 if what == "seconds" else 2)
    units = {p: unit_of(p, what, unit, data) for p in table.phases}
    labels = sorted({u[1] for u in units.values()})
    one_unit = labels[0] if len(labels) == 1 else None

    def number(v, st):
        if v is None:
            return "-"
        if st == "n":
            return str(v)
        return "%.*f" % (digits, v)

    def cell_values(p, k):
        vals = table.cells.get((p, k), [])
        scale = units[p][0]
        return [stat([v / scale for v in vals], s) if s != "n" else stat(vals, "n") for s in stats]

    def text_cell(p, k):
        vals = table.cells.get((p, k))
        if not vals:
            return "-"
        got = cell_values(p, k)
        if stats == ["mean", "min", "max"] or stats == ["median", "min", "max"]:
            if len(vals) == 1:
                return number(got[0], stats[0])
            return "%s (%s..%s)" % (number(got[0], stats[0]), number(got[1], "min"), number(got[2], "max"))
        return " / ".join(number(g, s) for g, s in zip(got, stats))

    what_text = {"bandwidth": "aggregate bandwidth", "stonewall": "stonewall bandwidth",
                 "utilization": "utilization (stream busy time / (streams x phase time); a stream is a rank, "
                                "or a thread of one)",
                 "seconds": "phase time (last close end - first open start)"}[what]
    by_text = {"label": "configuration (label)", "ranks": "ranks", "threads": "threads per rank",
               "rep": "repetition, and the mean of all", "run": "run, and the mean of all"}[by]
    phase_title = lambda p: phase_name(p, names) + ("" if one_unit else " [%s]" % units[p][1])
    col_titles = [table.titles[k] for k in table.columns]
    # bonnie++ prints %CP beside each K/sec: the mean %CPU per stream, where the file has it
    # (text and Markdown; the CSV keeps its columns).
    with_cp = names == "bonnie" and bool(table.cpu) and fmt != "csv"

    def cp(p, k):
        v = stat(table.cpu.get((p, k), []), "mean")
        return None if v is None else round(v)

    if fmt == "csv":
        w = csv.writer(out, lineterminator="\n")
        if not transpose:
            head = ["phase"]
            for k in table.columns:
                for s in stats:
                    head.append(colname_csv(by, table.titles[k], s, stats, None if s == "n" else one_unit))
                if with_cp:
                    head.append("%s %%CP" % table.titles[k])
            if not one_unit:
                head.insert(1, "unit")
            w.writerow(head)
            for p in table.phases:
                line = [phase_name(p, names)]
                if not one_unit:
                    line.append(units[p][1])
                for k in table.columns:
                    line += [("" if v is None else repr(v)) for v in cell_values(p, k)]
                    if with_cp:
                        line.append("" if cp(p, k) is None else cp(p, k))
                w.writerow(line)
        else:
            head = [by]
            for p in table.phases:
                for s in stats:
                    head.append(colname_csv(None, phase_name(p, names), s, stats,
                                            None if s == "n" else units[p][1]))
                if with_cp:
                    head.append("%s %%CP" % phase_name(p, names))
            w.writerow(head)
            for k in table.columns:
                line = [table.titles[k]]
                for p in table.phases:
                    line += [("" if v is None else repr(v)) for v in cell_values(p, k)]
                    if with_cp:
                        line.append("" if cp(p, k) is None else cp(p, k))
                w.writerow(line)
        return

    stat_text = stats[0] if stats in (["mean", "min", "max"], ["median", "min", "max"]) else "/".join(stats)
    range_text = " (min..max)" if stats in (["mean", "min", "max"], ["median", "min", "max"]) else ""
    if what in ("bandwidth", "stonewall") and any(is_meta(p, data) for p in table.phases):
        what_text = ("metadata rate (files per second, all streams)" if all(is_meta(p, data) for p in table.phases)
                     else what_text + " (data phases) and rate (metadata phases)")
    unit_text = (" and ".join("%s (%s)" % (UNITS[unit][1], UNITS[unit][2]) if l == UNITS[unit][1] else l
                           for l in labels))
    unit_text = {"fraction": "as a fraction", "s": "in seconds"}.get(unit_text, "in " + unit_text)
    head_line = title or "%s, %s%s over repetitions, %s; columns: %s; %s" % (
        what_text, stat_text, range_text, unit_text, by_text, reps_phrase(table))
    if not title:
        head_line += "".join("; " + n for n in table.notes)

    def with_cps(cells, pks):
        """cells, each followed by its %CP when with_cp; pks: the (phase, key) of each."""
        if not with_cp:
            return cells
        out = []
        for c, (p, k) in zip(cells, pks):
            out += [c, "-" if cp(p, k) is None else "%d" % cp(p, k)]
        return out

    if not transpose:
        corner = ("[%s] " % one_unit if one_unit else "") + "phase \\ " + by
        header = [corner] + with_cps(col_titles, [(None, None)] * len(col_titles))
        body = [[phase_title(p)] + with_cps([text_cell(p, k) for k in table.columns], [(p, k) for k in table.columns])
                for p in table.phases]
    else:
        corner = by + " \\ phase"
        heads = ["%s [%s]" % (phase_name(p, names), units[p][1]) for p in table.phases]
        header = [corner] + with_cps(heads, [(None, None)] * len(heads))
        body = [[table.titles[k]] + with_cps([text_cell(p, k) for p in table.phases], [(p, k) for p in table.phases])
                for k in table.columns]
    if with_cp:
        header = [h if i == 0 or i % 2 == 1 else "%CP" for i, h in enumerate(header)]
        head_line += "; %CP = CPU (user + sys) of all streams / (phase time x streams) x 100, as bonnie++'s"

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


def colname_csv(by, title, st, stats, unit):
    name = title if by in (None, "label", "rep", "run") else "%s=%s" % (by, title)
    if title == "mean" and by in ("rep", "run") and len(stats) > 1:
        name = "all"
    if len(stats) > 1:
        name += " " + st
    if unit:
        name += " [%s]" % unit
    return name


def md_escape(s):
    return s.replace("|", "\\|")


# ---- command line ----

def add_selection_args(ap):
    g = ap.add_argument_group("selection (complete runs only, unless --include-failed)")
    g.add_argument("--sweep", metavar="ID", help="the runs of pfs-sweep --id ID (labels ID:n=N)")
    g.add_argument("--label", metavar="PATTERN", action="append",
                   help="runs whose label is PATTERN (shell wildcards: 'sweep-*'); repeatable, and the "
                        "order given is the column order")
    g.add_argument("--run", metavar="N", action="append", help="run number or run id; repeatable")
    g.add_argument("--phases", metavar="LIST", help="comma list of phases to show (default: all, in run order)")
    g.add_argument("--include-failed", action="store_true",
                   help="also the completed repetitions of failed or interrupted runs")


def default_by(rows, sweep):
    """threads for a thread sweep, ranks for a rank sweep, else label."""
    if sweep is None:
        return "label"
    if any((parse_sweep_label(r["label"]) or (0, 0, None))[2] for r in rows):
        return "threads"
    return "ranks"


def selection_from_args(data, a):
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


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="pfs-compare", allow_abbrev=False,
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
    ap.add_argument("--units", default="MiB", help="KB (1024 B, the seeds' KB/s), KiB, MiB (default), GiB, "
                                                   "MB or GB (decimal)")
    ap.add_argument("--value", choices=VALUES, default="bandwidth",
                    help="what the cells hold (default bandwidth; stonewall: the stonewall bandwidth)")
    ap.add_argument("--stats", default="mean",
                    help="comma list of mean, min, max, median, n (default mean); mean,min,max prints "
                         "'mean (min..max)'")
    ap.add_argument("--minmax", action="store_true", help="the same as --stats mean,min,max")
    ap.add_argument("--names", choices=sorted(PHASE_NAMES), default="pfsbench",
                    help="phase names as that tool prints them (iozone: Initial write, Rewrite, Read, Re-read; "
                         "gpfsperf: Create, Write, Read; bonnie: Block output, Rewrite, Block input, ...)")
    ap.add_argument("--format", choices=("text", "md", "csv"), default="text")
    ap.add_argument("--precision", type=int, metavar="N", help="decimals (default 2)")
    a = ap.parse_args(argv)
    try:
        unit = unit_named(a.units)
        stats = ["mean", "min", "max"] if a.minmax else [s.strip() for s in a.stats.split(",") if s.strip()]
        for s in stats:
            if s not in STATS:
                raise Usage("--stats: unknown statistic '%s'; use %s" % (s, ", ".join(STATS)))
        if not stats:
            raise Usage("--stats: give at least one of %s" % ", ".join(STATS))
        data = Data(a.file)
        rows = selection_from_args(data, a)
        by = a.by or default_by(rows, a.sweep)
        table = build_table(data, rows, by, a.value, a.label)
        for w in table.warnings:
            sys.stderr.write("pfs-compare: warning: %s\n" % w)
        table.phases = phase_order(table.phases, a.names)
        render(data, table, by, a.value, unit, stats, a.format, names=a.names, transpose=a.transpose,
               precision=a.precision)
    except Usage as e:
        sys.stderr.write("pfs-compare: error: %s\n" % e)
        return 2
    except BrokenPipeError:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
