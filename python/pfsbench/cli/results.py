"""pfs-results: read a pfsbench HDF5 results file (pfsbench.cli.results).

    pfs-results FILE                  the summary table (one row per phase and repetition): MiB/s for
                                      data phases, files/s for metadata phases; warmup yes marks a
                                      --warmup repetition (stored, left out of the statistics)
    pfs-results FILE --csv            the same as CSV, in base units (bytes, s, bytes/s, ops/s) plus MiB/s,
                                      warmup 1 or 0 last
    pfs-results FILE --runs           one line per run: number, run id, status, start, label, ranks, nodes,
                                      threads, file system (mount type, source, layout), command; with
                                      --csv also every fs_* attribute
    pfs-results FILE --run N          the summary rows of run N only (N: 1, 000001, /runs/000001 or a run id)
    pfs-results FILE --run N --raw    the raw per-stream times of run N (add --csv for CSV); a stream is
                                      rank x threads + thread, its rank and thread are shown beside it
    pfs-results FILE --latency        per run, phase and repetition: operations, p50, p99, p99.9 and max
                                      latency, IOPS, %CPU (add --csv for CSV in ns; --run N for one run)
    pfs-results FILE --timeseries OUT the time series as CSV into OUT (- for stdout): run, phase, rep,
                                      interval, t_start_s, t_end_s (the interval's true edges: the
                                      first from the phase's first open, the last to its last close),
                                      node, bytes, ops, p50_ns, p99_ns, max_ns

Exit status: 0 done (also when some runs were damaged and skipped), 1 the file
holds runs but none of those asked for could be read, 2 bad input (not a
pfsbench results file, no such run).

Damaged runs: a run group with a missing or unreadable attribute or
dataset, or a dataset of the wrong shape, is skipped in every view, with
one line on stderr naming it and what is wrong:
    pfs-results: run /runs/000003: attribute 'ranks' is missing; skipped
The other runs print as usual.

Text from the file (labels, hosts, paths, errors, the command line) is
printed escaped, so nothing in it can act on a terminal: control
characters as \\n, \\t, \\xNN or \\uXXXX, a byte that is not UTF-8 as
\\xNN (0x80..0xFF), a backslash as \\\\.  CSV output keeps the text as it
is, with each byte that is not UTF-8 replaced by U+FFFD.

Run it as pfs-results (installed), or from a checkout as
`python3 -m pfsbench results` (PYTHONPATH=python). The dicts it prints
are pfsbench.rows' views of pfsbench.open(); for DataFrames,
pfsbench.open("results.h5").summary() (docs/python.md). The schema is in
docs/results-format.md.
"""

from __future__ import annotations

import argparse
import csv
import sys
from typing import Any, Iterable, List, Optional, Sequence, TextIO

from .. import rows as R
from ..damage import Problem
from ..h5file import NoSuchRun, NotResultsFile, find_run, run_number, why
from ..reader import MIB, Results, Run, is_metadata, phase_kind
from ..text import clean, display
from .common import escape_output, report_problems, size_text

PROG = "pfs-results"
Row = R.Row


# ---- printing ----

def _table(out: TextIO, header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]

    def line(cells: Sequence[str]) -> str:
        parts = [c.rjust(w) if right[i] else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(parts).rstrip()

    out.write(line(header) + "\n")
    for r in rows:
        out.write(line(r) + "\n")


def _row_is_metadata(r: Row) -> bool:
    return is_metadata(r["phase"], r.get("kind"))


def _files_per_s(r: Row) -> str:
    """A metadata row's rate (files/s) as pfsbench prints it, else "-"."""
    if not _row_is_metadata(r):
        return "-"
    rate = r.get("rate")
    if rate is None:  # no rate column: ops / seconds cannot be known either
        return "?"
    return "%.1f" % rate


def print_summary(rows: Sequence[Row], out: Optional[TextIO] = None) -> None:
    """The table: data phases in MiB/s (files/s is -), metadata phases in
    files/s (MiB/s is -), each rounded as pfsbench's report rounds it; the
    last column, warmup, says yes for a --warmup repetition (stored, left
    out of every statistic), no for a measured one."""
    out = sys.stdout if out is None else out
    header = ["run", "label", "status", "phase", "rep", "ranks", "threads", "nodes", "transfer", "block", "bytes",
              "seconds", "MiB/s", "files/s", "util", "stonewall MiB/s", "warmup"]
    right = [True, False, False, False, True, True, True, True, True, True, True, True, True, True, True, True,
             False]
    cells = []
    for r in rows:
        meta = _row_is_metadata(r)
        cells.append([
            str(r["run"]), display(r["label"]) or "-", display(r["status"]), display(r["phase"]), str(r["rep"]),
            str(r["ranks"]),
            str(r.get("threads", 1)), str(r["nodes"]), size_text(r["transfer"]), size_text(r["block"]), str(r["bytes"]),
            "%.4f" % r["seconds"], "-" if meta else "%.2f" % (r["bandwidth"] / MIB), _files_per_s(r),
            "%.3f" % r["utilization"],
            "%.2f" % (r["stonewall_bandwidth"] / MIB) if r["stonewall_bandwidth"] > 0 else "-",
            "yes" if r.get("warmup") else "no",
        ])
    _table(out, header, cells, right)
    out.write("units: MiB/s = 2^20 bytes/s, for data phases; files/s = files created, stat'ed, read or deleted "
              "per second by all streams, for metadata phases (find: files examined)\n"
              "       seconds = last close end - first open start over all streams; bytes moved by all streams; "
              "util = stream busy time / (streams x seconds); streams = ranks x threads\n"
              "       warmup yes = a --warmup repetition: stored, left out of the statistics\n")


# The keys of summary_rows that print_summary_csv's named columns show (under
# their CSV names), and those summary_rows derives from them.
SUMMARY_SHOWN = frozenset(("run", "run_id", "label", "status", "phase", "rep", "ranks", "nodes", "transfer",
                           "block", "bytes", "seconds", "bandwidth", "utilization", "stonewall_bandwidth",
                           "threads", "streams", "kind", "ops", "rate", "warmup", "bandwidth_mib",
                           "stonewall_bandwidth_mib"))


def print_summary_csv(rows: Sequence[Row], out: Optional[TextIO] = None) -> None:
    """The summary as CSV, full precision. The columns after
    stonewall_bandwidth_bytes_per_s came with threads and metadata phases:
    threads (per rank), streams (ranks x threads), kind (data or metadata),
    ops (transfers, or files in a metadata phase) and rate_ops_per_s
    (files/s in a metadata phase); ops and rate are empty for a file written
    before they existed. Last comes warmup: 1 for a --warmup repetition
    (stored, left out of the statistics), 0 for a measured one. After it,
    every other field the file's /summary holds (stonewall_rate ...), under
    its own name, in the file's order."""
    out = sys.stdout if out is None else out
    cols = ["run", "run_id", "label", "status", "phase", "rep", "ranks", "nodes", "transfer_bytes",
            "block_bytes", "bytes", "seconds", "bandwidth_bytes_per_s", "bandwidth_MiB_per_s", "utilization",
            "stonewall_bandwidth_bytes_per_s", "threads", "streams", "kind", "ops", "rate_ops_per_s", "warmup"]
    extra = []
    for r in rows:
        extra += [k for k in r if k not in SUMMARY_SHOWN and k not in extra]
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols + extra)
    for r in rows:
        threads = r.get("threads", 1)
        w.writerow([r["run"], clean(r["run_id"]), clean(r["label"]), clean(r["status"]), clean(r["phase"]), r["rep"],
                    r["ranks"], r["nodes"],
                    r["transfer"], r["block"], r["bytes"], repr(r["seconds"]), repr(r["bandwidth"]),
                    repr(r["bandwidth"] / MIB), repr(r["utilization"]), repr(r["stonewall_bandwidth"]),
                    threads, r.get("streams", r["ranks"] * threads),
                    phase_kind(r["phase"], r.get("kind")),
                    "" if r.get("ops") is None else r["ops"], "" if r.get("rate") is None else repr(r["rate"]),
                    1 if r.get("warmup") else 0] +
                   [repr(r[k]) if isinstance(r.get(k), float) else clean(r.get(k, "")) for k in extra])



# The file system's provenance, as --runs --csv adds it after the command line.
FS_FIELDS = ("fs_type", "fs_mount_type", "fs_source", "fs_mount_point", "fs_options", "fs_layout", "fs_block_size")


def file_system(d: Row) -> str:
    """The run's file system in a few words: the mount's own type and its
    source ("fuse.glusterfs 127.0.0.1:/vol"), statfs's name for a file
    written before the mount type was recorded, then the layout facts in
    brackets when there are any; "-" when nothing is known."""
    t = str(d.get("fs_mount_type") or d.get("fs_type") or "")
    src = str(d.get("fs_source") or "")
    words = [t] if t else []
    if src and src not in ("none", t) and d.get("fs_mount_type"):
        words.append(src)
    if d.get("fs_layout"):
        words.append("[%s]" % d["fs_layout"])
    return " ".join(words) or "-"


def print_runs(rs: Sequence[Row], out: Optional[TextIO] = None, as_csv: bool = False) -> None:
    out = sys.stdout if out is None else out
    header = ["run", "run_id", "status", "start_time", "label", "ranks", "nodes", "threads", "file_system",
              "command_line"]
    cells = [[str(d["run"]), str(d.get("run_id", "")), str(d.get("status", "")), str(d.get("start_time", "")),
              str(d.get("label", "")), str(d.get("ranks", "")), str(d.get("nodes", "")), str(d.get("threads", 1)),
              file_system(d), str(d.get("command_line", ""))] for d in rs]
    if as_csv:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(header[:8] + header[9:] + list(FS_FIELDS))
        w.writerows([[clean(x) for x in c[:8] + c[9:]] + [clean(str(d.get(k, ""))) for k in FS_FIELDS]
                     for c, d in zip(cells, rs)])
        return
    for c in cells:
        c[:] = [display(x) for x in c]
        c[4] = c[4] or "-"
    _table(out, header, cells, [True, False, False, False, False, True, True, True, False, False])


def raw_columns(rows: Sequence[Row]) -> List[str]:
    """RAW_KEYS, then every other key of rows in order of first appearance:
    the fields of the file's own times (raw_rows), whatever they are."""
    cols = list(R.RAW_KEYS)
    for r in rows:
        cols += [k for k in r if k not in cols]
    return cols


def print_raw(rows: Sequence[Row], out: Optional[TextIO] = None, as_csv: bool = False, units: str = "") -> None:
    """One line per phase, repetition and stream: RAW_KEYS, then every field
    the file's times hold (a field a phase lacks is empty); units: the
    times' own units attribute, printed under the table."""
    out = sys.stdout if out is None else out
    cols = raw_columns(rows)
    if as_csv:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow([repr(r[c]) if isinstance(r.get(c), float) else clean(r.get(c, "")) for c in cols])
        return
    cells = []
    for r in rows:
        c = [display(r["phase"]), str(r["rep"]), str(r.get("stream", r["rank"])), str(r["rank"]),
             str(r.get("thread", 0)), str(r["node"]), display(r["host"])]
        for k in cols[len(R.RAW_KEYS):]:
            v = r.get(k, "")
            c.append("%.9f" % v if isinstance(v, float) else display(str(v)))
        cells.append(c)
    _table(out, [display(c) for c in cols], cells,
           [False, True, True, True, True, True, False] + [True] * (len(cols) - len(R.RAW_KEYS)))
    out.write("units: %s\n" % (display(units) if units else "the file states none (docs/results-format.md "
                                                               "has them); stream = rank x threads + thread"))


def _us(ns: Optional[float]) -> str:
    return "-" if ns is None else "%.1f" % (ns / 1e3)


def print_latency(rows: Sequence[Row], out: Optional[TextIO] = None, as_csv: bool = False) -> None:
    """The latency table: per run, phase and repetition the phase's own
    operations (count, p50, p99, p99.9, max in us), IOPS and %CPU; with
    as_csv every kind's figures in ns."""
    out = sys.stdout if out is None else out
    if as_csv:
        cols = ["run", "phase", "rep", "kind", "ops", "seconds", "iops", "cpu_percent", "cpu_user_s", "cpu_sys_s"] + \
               ["%s_%s" % (k, fl) for k in R.LAT_KINDS for fl in R.LAT_STATS]
        w = csv.writer(out, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow(["" if r.get(c) is None else (repr(r[c]) if isinstance(r[c], float) else clean(r[c]))
                        for c in cols])
        return
    header = ["run", "phase", "rep", "ops", "p50 us", "p99 us", "p99.9 us", "max us", "IOPS", "%CPU"]
    cells = [[str(r["run"]), display(r["phase"]), str(r["rep"]),
              "-" if r["op_count"] is None else str(r["op_count"]), _us(r["op_p50_ns"]), _us(r["op_p99_ns"]),
              _us(r["op_p999_ns"]), _us(r["op_max_ns"]), "-" if r["iops"] is None else "%.1f" % r["iops"],
              "-" if r["cpu_percent"] is None else "%.1f" % r["cpu_percent"]] for r in rows]
    _table(out, header, cells, [True, False, True, True, True, True, True, True, True, True])
    out.write("units: latencies of the phase's own operation (a transfer; a file in a metadata phase) in us, "
              "nearest-rank within 1/128; IOPS = ops / seconds; %CPU = (user + sys CPU s of all streams) / "
              "(seconds x streams) x 100; - : not recorded\n")


def write_timeseries(rows: Iterable[Row], dest: str) -> int:
    """The time series rows (rows.timeseries_rows) as CSV (TS_FIELDS) into
    path dest, or stdout for "-"; returns the number of rows."""
    out = sys.stdout if dest == "-" else open(dest, "w", newline="")
    try:
        w = csv.writer(out, lineterminator="\n")
        w.writerow(R.TS_FIELDS)
        n = 0
        for r in rows:
            w.writerow([repr(r[c]) if isinstance(r[c], float) else clean(r[c]) for c in R.TS_FIELDS])
            n += 1
        return n
    finally:
        if out is not sys.stdout:
            out.close()


EPILOG = """exit status: 0 done, also when damaged runs were skipped; 1 the file holds runs
but none of those asked for could be read; 2 bad input (not a pfsbench results
file, no such run).

A damaged run (an attribute or dataset missing or unreadable, a dataset of the
wrong shape) is skipped with one line on stderr:
  pfs-results: run /runs/000003: attribute 'ranks' is missing; skipped
Text from the file is printed escaped (\\n, \\xNN, \\uXXXX; a byte that is not
UTF-8 as \\xNN), so nothing in it acts on the terminal; CSV keeps the text, with
bytes that are not UTF-8 as U+FFFD."""


def _picked(res: Results, which: Optional[str], problems: List[Problem]) -> List[Run]:
    """The runs a view shows: run `which` (none when it is damaged, its
    problems appended), else every readable run (every damaged one's
    problems appended)."""
    if which is None:
        problems += res.problems
        return res.runs
    run, damage = res.lookup(which)
    problems += damage
    return [run] if run is not None else []


def _summary_view(res: Results, a: argparse.Namespace, problems: List[Problem]) -> bool:
    if "summary" in res.file:
        problems += res.problems
    rows = R.summary_rows(res, True, problems)
    if a.run is not None:
        g = find_run(res.file, a.run)
        rows = [r for r in rows if r["run"] == run_number(g)]
        # Only the run asked for is worth a word (and /summary's own damage).
        problems[:] = [p for p in problems if p[0] == "run " + g.name or not p[0].startswith("run ")]
    if a.csv:
        print_summary_csv(rows)
    else:
        print_summary(rows)
    return bool(rows) or not problems


def _view(res: Results, a: argparse.Namespace, problems: List[Problem]) -> bool:
    """Prints the view asked for; returns whether anything could be read
    (or there was nothing to read)."""
    if a.runs:
        problems += res.problems
        rs = R.runs(res, True)
        print_runs(rs, as_csv=a.csv)
        return bool(rs) or not res.numbers()
    if a.timeseries is not None:
        write_timeseries(R.timeseries_rows(_picked(res, a.run, problems)), a.timeseries)
        return not problems
    if a.latency:
        rows = R.latency_rows(_picked(res, a.run, problems), True)
        print_latency(rows, as_csv=a.csv)
        return bool(rows) or not problems
    if a.raw:
        phases = [ph for run in _picked(res, a.run, problems) for ph in R.raw_times(run, True)]
        units = [ph["units"] for ph in phases if ph["units"]]
        print_raw([r for ph in phases for r in R.phase_raw_rows(ph, True)], as_csv=a.csv,
                  units=units[0] if units else "")
        return not problems
    return _summary_view(res, a, problems)


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog=PROG, description="Read a pfsbench HDF5 results file.",
                                 epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file", help="a pfsbench results file (pfsbench -o FILE)")
    ap.add_argument("--csv", action="store_true", help="CSV instead of an aligned table")
    ap.add_argument("--runs", action="store_true", help="list the runs")
    ap.add_argument("--run", metavar="N", help="only run N (number, /runs/NNNNNN or run id)")
    ap.add_argument("--raw", action="store_true",
                    help="with --run: the raw per-stream times (stream = rank x threads + thread)")
    ap.add_argument("--latency", action="store_true",
                    help="latency (p50, p99, p99.9, max), IOPS and %%CPU per phase and repetition")
    ap.add_argument("--timeseries", metavar="CSV",
                    help="write the time series (per interval and node) as CSV to CSV (- for stdout)")
    return ap


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = _parser()
    a = ap.parse_args(argv)
    if sum(bool(x) for x in (a.runs, a.raw, a.latency, a.timeseries is not None)) > 1:
        ap.error("--runs, --raw, --latency and --timeseries are separate views; give one")
    if a.raw and a.run is None:
        ap.error("--raw needs --run N")
    if a.runs and (a.run is not None or a.raw):
        ap.error("--runs lists every run; give it without --run/--raw")
    escape_output()
    problems: List[Problem] = []
    try:
        with Results(a.file, warn=False) as res:
            read = _view(res, a, problems)
    except (NotResultsFile, NoSuchRun) as e:
        sys.stderr.write("%s: error: %s\n" % (PROG, display(str(e))))
        return 2
    except BrokenPipeError:
        return 0
    except Exception as e:  # damage below what check_run looks at: one line, not a traceback
        problems.append((display(a.file), "cannot be read (%s)" % why(e)))
        read = False
    finally:
        sys.stdout.flush()
    report_problems(PROG, problems)
    return 0 if read else 1


if __name__ == "__main__":
    sys.exit(main())
