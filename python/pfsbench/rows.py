"""The results as plain dicts, for the tools: views over pfsbench.open()'s Results.

summary_rows() is the /summary table, runs() each run's attributes,
raw_times() and raw_rows() a run's per-stream times, latency_rows() and
timeseries_rows() the latency, CPU and time series per phase. Units are
the file's: bytes, s, bytes/s, ops/s (files/s in a metadata phase), ns;
MiB = 2^20 bytes. Text is str, each byte that is not UTF-8 as U+FFFD
(lossless=True keeps it as a surrogate escape, which text.display shows
as \\xNN). A file written before threads and metadata phases existed
reads the same: threads is then 1, and ops and rate are None. Field
names are the file's own: a field pfsbench adds is in every row under its
own name, with no change here.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from .damage import Problem, check_summary
from .h5file import as_int, interval_edges, why
from .reader import MIB, Phase, Results, Run, phase_kind
from .text import plain, text

Row = Dict[str, Any]

# What raw_rows puts before the fields of the file's times.
RAW_KEYS = ("phase", "rep", "stream", "rank", "thread", "node", "host")
# The kinds of latency_summary's second axis, as latency_rows names its keys.
LAT_KINDS = ("op", "open", "fsync", "close", "response", "read", "write")
# What a file written before the response kind has (no latency_kinds attribute names it).
LAT_STATS = ("count", "min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "mean_ns")
TS_FIELDS = ("run", "phase", "rep", "interval", "t_start_s", "t_end_s", "node", "bytes", "ops", "p50_ns", "p99_ns",
             "max_ns")


def _summary_row(rec: Any, names: Sequence[str], lossless: bool, run: Run) -> Row:
    """One record of /summary as a dict: the file's columns, then what the
    views derive (bandwidth_mib, stonewall_bandwidth_mib, streams, kind)
    and what a table of an older file lacks (threads 1, ops and rate None,
    warmup from the run's own attribute)."""
    row = {k: plain(rec[k], lossless) for k in names}
    row["bandwidth_mib"] = row["bandwidth"] / MIB
    row["stonewall_bandwidth_mib"] = row["stonewall_bandwidth"] / MIB
    row.setdefault("threads", 1)
    row.setdefault("ops", None)
    row.setdefault("rate", None)
    if "warmup" not in row:  # a table from before the field: the run's own attribute says
        row["warmup"] = int(as_int(row["rep"]) < as_int(run.attrs.get("warmup", 0)))
    row["streams"] = row["ranks"] * row["threads"]
    row["kind"] = run.phase_kinds().get(str(row["phase"])) or phase_kind(row["phase"])
    return row


def summary_rows(res: Results, lossless: bool = False, problems: Optional[List[Problem]] = None) -> List[Row]:
    """The /summary table as a list of dicts: every column the file's table
    has, plus bandwidth_mib (MiB/s), stonewall_bandwidth_mib, streams
    (ranks x threads) and kind ("data" or "metadata", as the run's phase
    group says). warmup is 1 for a warm-up repetition (--warmup: stored,
    left out of the statistics). Rows of damaged runs, or of runs without a
    group, are left out; what cannot be read goes to problems."""
    problems = [] if problems is None else problems
    if "summary" not in res.file:
        return []
    try:
        data = res.file["summary"][()]
        wrong = check_summary(data)
        if wrong:
            raise ValueError(wrong)
    except Exception as e:
        problems.append(("/summary", "cannot be read (%s)" % why(e)))
        return []
    runs = {r.number: r for r in res.runs}
    known = res.numbers()
    rows, orphans = [], set()
    for i, rec in enumerate(data):
        try:
            n = as_int(plain(rec["run"]))
            if n not in runs:
                if n not in res.damaged and n not in known:
                    orphans.add(n)
                continue
            rows.append(_summary_row(rec, data.dtype.names, lossless, runs[n]))
        except Exception as e:
            problems.append(("/summary row %d" % i, "cannot be read (%s)" % why(e)))
    for n in sorted(orphans):
        problems.append(("run /runs/%06d" % n, "summary rows but no group /runs/%06d" % n))
    return rows


def runs(res: Results, lossless: bool = False) -> List[Row]:
    """One dict per readable run, in order: every attribute of its group
    under its own name, run (its number) and name (the group's path)."""
    out = []
    for r in res.runs:
        d = r.attributes(lossless)
        d["run"] = r.number
        d["name"] = r.name
        out.append(d)
    return out


def raw_times(run: Run, lossless: bool = False) -> List[Row]:
    """The raw per-stream times of a run: one dict per phase, with phase,
    index, repetitions, kind ("data" or "metadata"), times (structured
    array [rep][stream], the fields the file's compound type has, s on
    rank 0's clock / bytes / counts; stream = rank x threads + thread),
    units (the times dataset's own units attribute, "" when it has none),
    bandwidth (bytes/s per rep), ops and rate (per rep, ops/s: files/s in a
    metadata phase; None in files written before they existed), placement
    (structured array, one row per rank), threads (per rank) and streams
    (ranks x threads)."""
    out = []
    for p in run.phases:
        pg = p.group
        out.append({
            "group": pg.name, "phase": p.name(lossless), "index": p.index, "repetitions": p.reps,
            "times": pg["times"][()] if "times" in pg else None,
            "units": text(pg["times"].attrs.get("units", ""), lossless) if "times" in pg else "",
            "bandwidth": pg["bandwidth"][()] if "bandwidth" in pg else None,
            "placement": run.placement_table, "kind": p.kind,
            "ops": pg["ops"][()] if "ops" in pg else None, "rate": pg["rate"][()] if "rate" in pg else None,
            "threads": run.threads, "streams": run.streams})
    return out


def phase_raw_rows(ph: Row, lossless: bool = False) -> List[Row]:
    """The rows of raw_rows for one phase of raw_times."""
    t, pl = ph["times"], ph["placement"]
    if t is None:
        return []
    fields = [k for k in (t.dtype.names or ()) if k not in RAW_KEYS]  # a field named as a key cannot shadow it
    th = ph.get("threads", 1) or 1
    rows = []
    for rep in range(t.shape[0]):
        for stream in range(t.shape[1]):
            rank = stream // th
            known = pl is not None and rank < len(pl)
            row = {"phase": ph["phase"], "rep": rep, "stream": stream, "rank": rank, "thread": stream % th,
                   "node": int(pl["node"][rank]) if known else -1,
                   "host": plain(pl["host"][rank], lossless) if known else ""}
            rec = t[rep, stream]
            for k in fields:
                row[k] = plain(rec[k], lossless)
            rows.append(row)
    return rows


def raw_rows(run: Run, lossless: bool = False) -> List[Row]:
    """raw_times flattened: one dict per phase, repetition and stream, with
    the keys RAW_KEYS (stream, and the rank (stream // threads) and thread
    (stream % threads) it belongs to, that rank's node and host; with one
    thread per rank, stream = rank and thread = 0), then every field of the
    file's times, under the field's own name, in the file's order."""
    return [r for ph in raw_times(run, lossless) for r in phase_raw_rows(ph, lossless)]


def _cpu_of(run: Run, pg: Any, rep: int, seconds: float) -> Tuple[Optional[float], ...]:
    """(user s, sys s, %CPU) of one repetition: the per-node cpu_user and
    cpu_sys datasets, else the times' fields; %CPU is bonnie++'s %CP, (user
    + sys) / (seconds x streams) x 100. (None, None, None) when not recorded."""
    if "cpu_user" in pg and "cpu_sys" in pg:
        u, s = float(np.sum(pg["cpu_user"][rep])), float(np.sum(pg["cpu_sys"][rep]))
    elif "times" in pg and pg["times"].dtype.names and "cpu_user" in pg["times"].dtype.names:
        t = pg["times"][rep]
        u, s = float(np.sum(t["cpu_user"])), float(np.sum(t["cpu_sys"]))
    else:
        return None, None, None
    streams = int(run.group.attrs["streams"]) if "streams" in run.group.attrs else pg["times"].shape[1]
    pct = (u + s) / (seconds * streams) * 100.0 if seconds > 0 and streams > 0 else 0.0
    return u, s, pct


def _latency_row(run: Run, p: Phase, rep: int, lossless: bool, summ: Any) -> Row:
    pg = p.group
    seconds = float(pg["seconds"][rep]) if "seconds" in pg else 0.0
    ops = int(pg["ops"][rep]) if "ops" in pg else None
    r: Row = {"run": run.number, "phase": p.name(lossless), "rep": rep, "kind": p.kind, "ops": ops,
              "seconds": seconds, "iops": ops / seconds if ops is not None and seconds > 0 else None}
    r["cpu_user_s"], r["cpu_sys_s"], r["cpu_percent"] = _cpu_of(run, pg, rep, seconds)
    for k, kind in enumerate(LAT_KINDS):
        for fld in LAT_STATS:
            r["%s_%s" % (kind, fld)] = plain(summ[rep, k][fld]) if summ is not None and k < summ.shape[1] else None
    return r


def latency_rows(runs: Sequence[Run], lossless: bool = False) -> List[Row]:
    """One dict per run, phase and repetition: run, phase, rep, kind, ops,
    seconds, iops (ops/s), cpu_user_s, cpu_sys_s, cpu_percent, and per kind
    of LAT_KINDS (op: the phase's own operation) <kind>_count, _min_ns,
    _p50_ns, _p90_ns, _p99_ns, _p999_ns, _max_ns, _mean_ns. The latency
    keys are None for a phase (or a file) that recorded none, the CPU keys
    for a file written before CPU was recorded."""
    rows = []
    for run in runs:
        for p in run.phases:
            summ = p.group["latency_summary"][()] if "latency_summary" in p.group else None
            rows += [_latency_row(run, p, rep, lossless, summ) for rep in range(p.reps)]
    return rows


def timeseries_rows(runs: Sequence[Run]) -> Iterator[Row]:
    """The time series, one dict per run, phase, repetition, interval and
    node (keys TS_FIELDS; t_start_s and t_end_s where the interval starts
    and ends (h5file.interval_edges), on rank 0's clock, s since the epoch;
    latencies in ns, 0 where the node completed nothing). Nothing for files
    written before the time series was recorded."""
    for run in runs:
        for p in run.phases:
            pg = p.group
            for rname in sorted(k for k in pg["timeseries"].keys() if k.startswith("rep_")) \
                    if "timeseries" in pg else ():
                yield from _interval_rows(run.number, p.phase, pg, rname)


def _interval_rows(num: int, phase: str, pg: Any, rname: str) -> Iterator[Row]:
    tg = pg["timeseries"][rname]
    cols = {k: tg[k][()] for k in ("bytes", "ops", "p50_ns", "p99_ns", "max_ns")}
    n, nodes = cols["bytes"].shape if cols["bytes"].ndim == 2 else (0, 0)
    rep = int(rname[4:])
    start, end = interval_edges(tg, pg, rep)
    for i in range(n):
        for node in range(nodes):
            yield {"run": num, "phase": phase, "rep": rep, "interval": i, "t_start_s": float(start[i]),
                   "t_end_s": float(end[i]), "node": node, "bytes": int(cols["bytes"][i, node]),
                   "ops": int(cols["ops"][i, node]), "p50_ns": float(cols["p50_ns"][i, node]),
                   "p99_ns": float(cols["p99_ns"][i, node]), "max_ns": float(cols["max_ns"][i, node])}
