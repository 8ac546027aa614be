"""The DataFrames of pfsbench.open(): one function per frame, each
filling its columns from one run.

Every frame has one row per observation, in the file's units (bytes, s,
bytes/s, ops/s, ns), and these leading columns: run (the run's number),
phase, index (the phase's position in -p, which tells apart two phases of
one name), kind ("data" or "metadata") and, where it applies, rep (from 0).
Text is str (UTF-8; a byte that is not UTF-8 as U+FFFD). What the file does
not hold (a dataset an older pfsbench did not write, a latency of a kind with
no operations, an interval in which a node completed nothing, a stonewall
time without a stonewall) is NaN, never 0; an integer column that has a
missing value becomes float64. Times of day are seconds relative to the
run's start (Run.t0, s since the epoch on rank 0's clock: the first open of
its first phase, where its first time-series interval also starts).

pandas is needed for the frames only, and imported when one is asked for;
every frame method also takes as_frame=False and then returns a dict of
numpy arrays (column name -> array) without pandas.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .columns import MISSING, Arr, Columns, Spec
from .frames_diag import KEY as _KEY
from .frames_diag import (EXEMPLAR_COLUMNS, TARGET_COLUMNS, TARGET_HIST_COLUMNS, exemplars as _exemplars, key as _key,
                          target_hists as _target_hists, targets as _targets)
from .h5file import interval_edges
from .load import LOAD_COLUMNS, load_rows
from .text import text

if TYPE_CHECKING:
    from .reader import Phase, Run

MIB = 1048576.0
# The kinds of latency_summary's second axis (op: the phase's own operation),
# for a file whose phase group does not name them in latency_kinds.
LAT_KINDS = ("op", "open", "fsync", "close")
LAT_FIELDS = ("count", "sum_ns", "min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "mean_ns")
TS_FIELDS = ("bytes", "ops", "p50_ns", "p99_ns", "max_ns")

# Column specs: (name, dtype); dtype "i8", "u8", "f8", "O" (str), "?" (True/False/NaN: pandas "boolean").
# The page cache's byte counts are f8: a phase that reads has no dirty figure, one that writes no
# resident figure (NaN), so the columns are never whole integers.
SUMMARY_COLUMNS: Spec = [("run", "i8"), ("run_id", "O"), ("label", "O"), ("status", "O"), ("phase", "O"), ("index", "i8"),
                   ("kind", "O"), ("rep", "i8"), ("warmup", "?"), ("ranks", "i8"), ("nodes", "i8"), ("threads", "i8"),
                   ("streams", "i8"), ("transfer", "i8"), ("block", "i8"), ("bytes", "i8"), ("seconds", "f8"),
                   ("bandwidth", "f8"), ("bandwidth_mib", "f8"), ("utilization", "f8"),
                   ("stonewall_bandwidth", "f8"), ("stonewall_rate", "f8"), ("ops", "i8"), ("rate", "f8"), ("iops", "f8"),
                   ("reps_measured", "i8"), ("ci95_half_width", "f8"), ("ci95_percent", "f8"), ("ci_target_met", "?"),
                   ("start_s", "f8"), ("end_s", "f8"), ("p50_ns", "f8"), ("p90_ns", "f8"), ("p99_ns", "f8"),
                   ("p999_ns", "f8"), ("max_ns", "f8"), ("mean_ns", "f8"), ("cpu_user", "f8"), ("cpu_sys", "f8"),
                   ("cpu_percent", "f8"), ("cache_method", "O"), ("cache_bytes", "f8"), ("cache_resident", "f8"),
                   ("cache_resident_fraction", "f8"), ("cache_dirty_method", "O"), ("cache_dirty_probed", "f8"),
                   ("cache_dirty", "f8"), ("cache_dirty_fraction", "f8"),
                   ("memory_ceiling_percent", "f8"), ("network_ceiling_percent", "f8"), ("binding_ceiling", "O"),
                   ("offered_rate", "f8"), ("offered_bandwidth", "f8"), ("scheduled_rate", "f8"), ("rate_short", "?"),
                   ("submit_lag_mean_ns", "f8"), ("submit_lag_max_ns", "f8"), ("response_p50_ns", "f8"),
                   ("response_p99_ns", "f8"), ("response_p999_ns", "f8"),
                   ("cpu_seconds_per_gib", "f8"), ("train_au", "f8"), ("train_au_min", "f8"), ("train_au_pass", "?"),
                   ("train_samples_per_s", "f8"), ("read_ops", "f8"), ("write_ops", "f8"), ("read_rate", "f8"),
                   ("write_rate", "f8"), ("read_bandwidth", "f8"), ("write_bandwidth", "f8"), ("read_p99_ns", "f8"),
                   ("write_p99_ns", "f8")]
NODES_COLUMNS = _KEY + [("rep", "i8"), ("node", "i8"), ("host", "O"), ("ranks", "i8"), ("node_bytes", "i8"),
                        ("node_ops", "i8"), ("node_seconds", "f8"), ("node_bandwidth", "f8"),
                        ("node_bandwidth_mib", "f8"), ("node_rate", "f8"), ("node_straggler", "?"),
                        ("p50_ns", "f8"), ("p99_ns", "f8"), ("max_ns", "f8"), ("cpu_user", "f8"),
                        ("cpu_sys", "f8"), ("node_cache_bytes", "f8"), ("node_cache_resident", "f8"),
                        ("node_cache_resident_fraction", "f8"), ("node_cache_dirty_probed", "f8"),
                        ("node_cache_dirty", "f8"), ("node_cache_dirty_fraction", "f8"), ("node_train_au", "f8")]
STREAMS_COLUMNS = _KEY + [("rep", "i8"), ("stream", "i8"), ("rank", "i8"), ("thread", "i8"), ("node", "i8"),
                          ("host", "O"), ("open_start", "f8"), ("open_end", "f8"), ("xfer_end", "f8"),
                          ("close_end", "f8"), ("stonewall_end", "f8"), ("verify_seconds", "f8"), ("bytes", "i8"),
                          ("transfers", "i8"), ("stonewall_bytes", "i8"), ("stonewall_transfers", "i8"),
                          ("verify_errors", "i8"),
                          ("seconds", "f8"), ("bandwidth", "f8"), ("cpu_user", "f8"), ("cpu_sys", "f8"),
                          ("cache_method", "O"), ("cache_bytes", "f8"), ("cache_resident", "f8"),
                          ("dirty_method", "O"), ("cache_dirty", "f8")]
LATENCY_COLUMNS = _KEY + [("rep", "i8"), ("op_kind", "O")] + [(f, "i8" if f in ("count", "sum_ns") else "f8")
                                                             for f in LAT_FIELDS]
NODE_LATENCY_COLUMNS = LATENCY_COLUMNS[:6] + [("node", "i8"), ("host", "O")] + LATENCY_COLUMNS[6:]
HIST_COLUMNS = _KEY + [("rep", "i8"), ("op_kind", "O"), ("bucket", "i8"), ("bucket_lo", "u8"), ("bucket_hi", "u8"),
                       ("count", "i8")]
NODE_HIST_COLUMNS = HIST_COLUMNS[:6] + [("node", "i8"), ("host", "O")] + HIST_COLUMNS[6:]
TIMELINE_COLUMNS = _KEY + [("rep", "i8"), ("interval", "i8"), ("t_start_s", "f8"), ("t_end_s", "f8"),
                           ("interval_s", "f8"), ("node", "i8"), ("host", "O"), ("bytes", "i8"), ("ops", "i8"),
                           ("bandwidth", "f8"), ("iops", "f8"), ("p50_ns", "f8"), ("p99_ns", "f8"),
                           ("max_ns", "f8")]
# One row per run: where it came from, what it was, the options that shape what it measured
# ("T": a time of day, ISO 8601 text in the file; a pandas Timestamp (UTC) in a frame).
RUN_ATTRS: Spec = [("ranks", "i8"), ("nodes", "i8"), ("threads", "i8"), ("streams", "i8"), ("phases", "O"),
                   ("reps", "O"), ("warmup", "i8"), ("api", "O"), ("mode", "O"), ("layout", "O"), ("order", "O"),
                   ("transfer", "i8"), ("block", "i8"), ("total", "i8"), ("files", "i8"), ("depth", "i8"),
                   ("iodepth", "i8"), ("direct", "i8"), ("fsync", "i8"), ("collective", "i8"), ("random", "i8"),
                   ("dir", "O"), ("fs_type", "O"), ("fs_mount_point", "O"), ("host_rank0", "O"),
                   ("pfsbench_version", "O"), ("git_revision", "O"), ("command_line", "O"), ("config", "O")]
RUNS_COLUMNS: Spec = [("file", "O"), ("run", "i8"), ("run_id", "O"), ("label", "O"), ("status", "O"),
                      ("start_time", "T"), ("end_time", "T")] + RUN_ATTRS
# --ceilings: one row per run and node, bytes/s (network NaN with one node).
CEILINGS_COLUMNS: Spec = [("run", "i8"), ("node", "i8"), ("host", "O"), ("memcpy_one_core", "f8"),
                          ("memcpy_all_cores", "f8"), ("network", "f8"), ("ceiling_memory", "f8"),
                          ("ceiling_network", "f8")]
BINDING = {1: "memory", 2: "network"}
PLACEMENT_COLUMNS: Spec = [("run", "i8"), ("rank", "i8"), ("node", "i8"), ("host", "O"), ("clock_correction", "f8"),
                     ("clock_uncertainty", "f8"), ("reads_from_rank", "i8"), ("reads_from_node", "i8"),
                     ("cpu_affinity", "O"), ("cpus", "i8"), ("numa_nodes", "O")]


def _nan_where(a: Any, cond: Any) -> Arr:
    out: Arr = np.asarray(a, dtype=float).copy()
    out[cond] = np.nan
    return out


# The page-cache probe's methods, as the times' cache_method and dirty_method store them.
CACHE_METHODS = ("", "cachestat", "mincore", "unknown", "bypassed")


def _cache(pg: Any, reps: int, prefix: str) -> Dict[str, Any]:
    """A phase's page-cache figures ([rep] for prefix "", [rep][node] for
    "node_"): bytes probed and resident before a read, probed and dirty at a
    write's close, and the fractions; what the file lacks is left out (NaN)."""
    d: Dict[str, Any] = {}
    for k in ("cache_bytes", "cache_resident", "cache_dirty_probed", "cache_dirty"):
        if prefix + k in pg:
            d[prefix + k] = pg[prefix + k][()][:reps]
    for part, whole in (("cache_resident", "cache_bytes"), ("cache_dirty", "cache_dirty_probed")):
        if prefix + part in d:
            w = np.asarray(d[prefix + whole], dtype=float)
            d[prefix + part + "_fraction"] = _nan_where(np.asarray(d[prefix + part], dtype=float)
                                                        / np.where(w > 0, w, 1), ~(w > 0))
    if not prefix:
        for k in ("cache_method", "cache_dirty_method"):
            if k in pg.attrs:
                d[k] = text(pg.attrs[k])
    return d


def _stream_cache(t: Any) -> Dict[str, Any]:
    """A phase's per-stream page-cache fields from its times (NaN where not measured)."""
    cm, dm = t["cache_method"], t["dirty_method"]
    measured = (cm == 1) | (cm == 2) | (dm == 1)
    return {"cache_method": np.array([CACHE_METHODS[m] if 0 <= m < len(CACHE_METHODS) else "?"
                                      for m in cm.ravel()], dtype=object),
            "dirty_method": np.array([CACHE_METHODS[m] if 0 <= m < len(CACHE_METHODS) else "?"
                                      for m in dm.ravel()], dtype=object),
            "cache_bytes": _nan_where(t["cache_bytes"], ~measured),
            "cache_resident": _nan_where(t["cache_resident"], ~((cm == 1) | (cm == 2))),
            "cache_dirty": _nan_where(t["cache_dirty"], dm != 1)}


# ---- one function per frame: each adds its rows of one run ----


def _summary(run: Run, cols: Columns) -> None:
    a = run.attrs
    base: Dict[str, Any] = {"run": run.number, "run_id": run.run_id, "label": run.label, "status": run.status,
                            "ranks": run.ranks, "nodes": run.nodes, "threads": run.threads,
                            "streams": run.streams, "transfer": int(a.get("transfer", 0)),
                            "block": int(a.get("block", 0))}
    t0 = run.t0
    for p in run.phases:
        pg, R_ = p.group, p.reps
        if R_ == 0:
            continue
        d: Dict[str, Any] = dict(base, phase=p.phase, index=p.index, kind=p.kind, rep=np.arange(R_))
        for k in ("bytes", "seconds", "bandwidth", "utilization", "ops", "rate"):
            if k in pg:
                d[k] = pg[k][()][:R_]
        for k in ("stonewall_bandwidth", "stonewall_rate"):
            if k in pg:
                v = pg[k][()][:R_].astype(float)
                d[k] = _nan_where(v, v <= 0)
        if "bandwidth" in d:
            d["bandwidth_mib"] = d["bandwidth"] / MIB
        if "ops" in d and "seconds" in d:
            sec = np.asarray(d["seconds"], dtype=float)
            d["iops"] = np.where(sec > 0, np.asarray(d["ops"], dtype=float) / np.where(sec > 0, sec, 1), np.nan)
        if "times" in pg:
            t = pg["times"][()][:R_]
            os_ = np.where(t["open_start"] > 0, t["open_start"], np.nan)
            ce = np.where(t["close_end"] > 0, t["close_end"], np.nan)
            d["start_s"] = np.nanmin(os_, axis=1) - t0 if t.size else MISSING
            d["end_s"] = np.nanmax(ce, axis=1) - t0 if t.size else MISSING
        if "latency_summary" in pg:
            ls = pg["latency_summary"][()][:R_, 0]
            none = ls["count"] == 0
            for f in ("p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "mean_ns"):
                d[f] = _nan_where(ls[f], none)
        d.update(_ci(pg, R_))
        u, s = _cpu(run, pg, R_)
        if u is not None and s is not None:
            d["cpu_user"], d["cpu_sys"] = u.sum(axis=1), s.sum(axis=1)
            if "seconds" in d:
                sec = np.asarray(d["seconds"], dtype=float)
                denom = sec * run.streams
                d["cpu_percent"] = np.where(denom > 0, (d["cpu_user"] + d["cpu_sys"]) / np.where(denom > 0, denom, 1)
                                            * 100.0, np.nan)
        d.update(_cache(pg, R_, ""))
        d.update(_shares(pg, R_))
        d.update(_paced(pg, R_))
        d.update(_train(pg, R_))
        d.update(_mixed(pg, R_))
        cols.add(R_, **d)


def _shares(pg: Any, reps: int) -> Dict[str, Any]:
    """--ceilings: a data repetition's bandwidth as a percentage of the
    clients' memory and network ceilings, and the binding one's name (NaN
    where not measured: a metadata phase, a run without --ceilings)."""
    d: Dict[str, Any] = {}
    for k in ("memory_ceiling_percent", "network_ceiling_percent"):
        if k in pg:
            d[k] = pg[k][()][:reps].astype(float)
    if "binding_ceiling" in pg:
        d["binding_ceiling"] = np.array([BINDING.get(int(b), np.nan) for b in pg["binding_ceiling"][()][:reps]],
                                        dtype=object)
    return d


def _paced(pg: Any, reps: int) -> Dict[str, Any]:
    """--rate: the job's offered rate (ops/s, bytes/s; the achieved are
    rate and bandwidth), what its schedule offered for the transfers made
    (poisson arrivals: with their spread), whether the achieved fell more
    than 2% short of that, the
    submissions' lag and the response times' percentiles (NaN without
    --rate, and in files written before it)."""
    d: Dict[str, Any] = {}
    if "offered_rate" not in pg:
        return d
    d["offered_rate"] = pg["offered_rate"][()][:reps].astype(float)
    d["offered_bandwidth"] = pg["offered_bandwidth"][()][:reps].astype(float)
    d["scheduled_rate"] = pg["scheduled_rate"][()][:reps].astype(float)
    d["rate_short"] = pg["rate_short"][()][:reps].astype(bool)
    d["submit_lag_mean_ns"] = pg["submit_lag_mean"][()][:reps].astype(float)
    d["submit_lag_max_ns"] = pg["submit_lag_max"][()][:reps].astype(float)
    kinds = text(pg.attrs["latency_kinds"]).split(",") if "latency_kinds" in pg.attrs else list(LAT_KINDS)
    if "latency_summary" in pg and "response" in kinds:
        ls = pg["latency_summary"][()][:reps, kinds.index("response")]
        for f in ("p50_ns", "p99_ns", "p999_ns"):
            d["response_" + f] = _nan_where(ls[f], ls["count"] == 0)
    return d


def _mixed(pg: Any, reps: int) -> Dict[str, Any]:
    """A phase that draws reads and writes (rwmix): each direction's
    operations, rate, bandwidth and service-time p99 (NaN in other phases,
    whose rows have no direction of their own)."""
    d: Dict[str, Any] = {}
    if "read_ops" not in pg:
        return d
    for k in ("read_ops", "write_ops", "read_rate", "write_rate", "read_bandwidth", "write_bandwidth"):
        d[k] = pg[k][()][:reps].astype(float)
    kinds = text(pg.attrs["latency_kinds"]).split(",") if "latency_kinds" in pg.attrs else list(LAT_KINDS)
    for k in ("read", "write"):
        if "latency_summary" in pg and k in kinds:
            ls = pg["latency_summary"][()][:reps, kinds.index(k)]
            d[k + "_p99_ns"] = _nan_where(ls["p99_ns"], ls["count"] == 0)
    return d


def _train(pg: Any, reps: int) -> Dict[str, Any]:
    """Client CPU seconds per GiB (every phase of a file that has them), and a
    train phase's accelerator utilisation, its lowest accelerator's, whether it
    passed the gate and samples/s (NaN in other phases)."""
    d: Dict[str, Any] = {}
    for k in ("cpu_seconds_per_gib", "train_au", "train_au_min", "train_samples_per_s"):
        if k in pg:
            d[k] = pg[k][()][:reps].astype(float)
    if "train_au_pass" in pg:
        d["train_au_pass"] = (pg["train_au_pass"][()][:reps] != 0).astype(float)
    return d


def _ci(pg: Any, reps: int) -> Dict[str, Any]:
    """A repetition's warm-up flag and its phase's 95% interval (the
    phase's figure: bandwidth, rate in a metadata phase; NaN for one
    measured repetition); ci_target_met NaN without --reps auto. A file
    from before --warmup: no warm-up, every repetition measured."""
    a = pg.attrs
    flag = pg["warmup"][()][:reps].astype(bool) if "warmup" in pg else np.zeros(reps, dtype=bool)
    met = int(a["ci_target_met"]) if "ci_target_met" in a else -1
    return {"warmup": flag,
            "reps_measured": int(a["reps_measured"]) if "reps_measured" in a else reps - int(flag.sum()),
            "ci95_half_width": float(a["ci95_half_width"]) if "ci95_half_width" in a else MISSING,
            "ci95_percent": float(a["ci95_percent"]) if "ci95_percent" in a else MISSING,
            "ci_target_met": MISSING if met < 0 else bool(met)}


def _cpu(run: Run, pg: Any, reps: int) -> Tuple[Optional[Arr], Optional[Arr]]:
    """(user, sys) CPU s per [rep][node], from the datasets or the times' fields; (None, None)."""
    if "cpu_user" in pg and "cpu_sys" in pg:
        return pg["cpu_user"][()][:reps].astype(float), pg["cpu_sys"][()][:reps].astype(float)
    if "times" in pg and pg["times"].dtype.names and "cpu_user" in pg["times"].dtype.names:
        t = pg["times"][()][:reps]
        _, _, node, _ = run.stream_nodes(t.shape[1])
        K = max(run.nodes, int(node.max()) + 1 if node.size else 0)
        u, s = np.zeros((reps, K)), np.zeros((reps, K))
        for k in range(K):
            u[:, k] = t["cpu_user"][:, node == k].sum(axis=1)
            s[:, k] = t["cpu_sys"][:, node == k].sum(axis=1)
        return u, s
    return None, None


def _nodes(run: Run, cols: Columns) -> None:
    for p in run.phases:
        pg, R_ = p.group, p.reps
        if R_ == 0 or "node_bytes" not in pg and "node_bandwidth" not in pg:
            continue
        ref = pg["node_bandwidth"] if "node_bandwidth" in pg else pg["node_bytes"]
        K = ref.shape[1]
        n = R_ * K
        d: Dict[str, Any] = dict(_key(run, p), rep=np.repeat(np.arange(R_), K), node=np.tile(np.arange(K), R_))
        d["host"] = np.tile(np.array([run.hosts.get(k, "") for k in range(K)], dtype=object), R_)
        d["ranks"] = np.tile(np.array([int((run.rank_node == k).sum()) for k in range(K)]), R_)
        for k in ("node_bytes", "node_seconds", "node_bandwidth", "node_rate"):
            if k in pg:
                d[k] = pg[k][()][:R_]
        if "node_bandwidth" in d:
            d["node_bandwidth_mib"] = np.asarray(d["node_bandwidth"], dtype=float) / MIB
        if "node_straggler" in pg:
            d["node_straggler"] = (pg["node_straggler"][()][:R_] != 0).astype(float)
        if "node_train_au" in pg:
            d["node_train_au"] = pg["node_train_au"][()][:R_].astype(float)
        if "times" in pg:
            t = pg["times"][()][:R_]
            _, _, snode, _ = run.stream_nodes(t.shape[1])
            ops = np.zeros((R_, K), dtype=np.int64)
            for j in range(K):
                ops[:, j] = t["transfers"][:, snode == j].sum(axis=1)
            d["node_ops"] = ops
        if "node_latency_summary" in pg:
            ls = pg["node_latency_summary"][()][:R_]
            none = ls["count"] == 0
            for f in ("p50_ns", "p99_ns", "max_ns"):
                d[f] = _nan_where(ls[f], none)
        u, s = _cpu(run, pg, R_)
        if u is not None and u.shape[1] == K:
            d["cpu_user"], d["cpu_sys"] = u, s
        d.update({k: v for k, v in _cache(pg, R_, "node_").items() if np.shape(v)[1:] == (K,)})
        cols.add(n, **d)


def _streams(run: Run, cols: Columns) -> None:
    t0 = run.t0
    for p in run.phases:
        pg, R_ = p.group, p.reps
        if R_ == 0 or "times" not in pg:
            continue
        t = pg["times"][()][:R_]
        S = t.shape[1]
        rank, thread, node, host = run.stream_nodes(S)
        d: Dict[str, Any] = dict(_key(run, p), rep=np.repeat(np.arange(R_), S), stream=np.tile(np.arange(S), R_),
                 rank=np.tile(rank, R_), thread=np.tile(thread, R_), node=np.tile(node, R_),
                 host=np.tile(host, R_))
        names = t.dtype.names or ()
        for k in ("open_start", "open_end", "xfer_end", "close_end", "stonewall_end"):
            if k in names:
                v = t[k].astype(float)
                d[k] = _nan_where(v - t0, v <= 0)
        for k in ("verify_seconds", "bytes", "transfers", "stonewall_bytes", "stonewall_transfers", "verify_errors",
                  "cpu_user", "cpu_sys"):
            if k in names:
                d[k] = t[k]
        if "cache_method" in names:
            d.update(_stream_cache(t))
        if "open_start" in d and "close_end" in d:
            sec = d["close_end"] - d["open_start"]
            d["seconds"] = sec
            if "stream_bandwidth" in pg and pg["stream_bandwidth"].shape == t.shape:
                d["bandwidth"] = pg["stream_bandwidth"][()][:R_]
            elif "bytes" in d:
                d["bandwidth"] = _nan_where(t["bytes"].astype(float) / np.where(sec > 0, sec, 1), ~(sec > 0))
        cols.add(R_ * S, **d)


def _latency(run: Run, cols: Columns, per_node: bool) -> None:
    for p in run.phases:
        pg, R_ = p.group, p.reps
        name = "node_latency_summary" if per_node else "latency_summary"
        if R_ == 0 or name not in pg:
            continue
        ls = pg[name][()][:R_]
        W = ls.shape[1]
        d: Dict[str, Any] = dict(_key(run, p), rep=np.repeat(np.arange(R_), W))
        if per_node:
            d["op_kind"] = "op"
            d["node"] = np.tile(np.arange(W), R_)
            d["host"] = np.tile(np.array([run.hosts.get(k, "") for k in range(W)], dtype=object), R_)
        else:
            kinds = text(pg.attrs["latency_kinds"]).split(",") if "latency_kinds" in pg.attrs else LAT_KINDS
            d["op_kind"] = np.tile(np.array(list(kinds)[:W] + [""] * (W - len(kinds)), dtype=object), R_)
        none = ls["count"] == 0
        for f in LAT_FIELDS:
            d[f] = ls[f] if f in ("count", "sum_ns") else _nan_where(ls[f], none)
        cols.add(R_ * W, **d)


def _hist(run: Run, cols: Columns, per_node: bool) -> None:
    for p in run.phases:
        pg, R_ = p.group, p.reps
        name = "node_latency" if per_node else "latency"
        if R_ == 0 or name not in pg or "latency_bucket_lo" not in pg:
            continue
        lo, hi = pg["latency_bucket_lo"][()], pg["latency_bucket_hi"][()]
        h = pg[name][()][:R_]
        rep, w, b = np.nonzero(h)
        d: Dict[str, Any] = dict(_key(run, p), rep=rep, bucket=b, bucket_lo=lo[b].astype(np.uint64),
                 bucket_hi=hi[b].astype(np.uint64), count=h[rep, w, b].astype(np.int64))
        if per_node:
            d["op_kind"] = "op"
            d["node"] = w
            d["host"] = np.array([run.hosts.get(int(k), "") for k in w], dtype=object)
        else:
            kinds = text(pg.attrs["latency_kinds"]).split(",") if "latency_kinds" in pg.attrs else LAT_KINDS
            d["op_kind"] = np.array([kinds[k] if k < len(kinds) else "" for k in w], dtype=object)
        cols.add(len(b), **d)


def _timeline(run: Run, cols: Columns) -> None:
    t0 = run.t0
    for p in run.phases:
        pg = p.group
        if p.reps == 0 or "timeseries" not in pg:
            continue
        for rname in sorted(k for k in pg["timeseries"].keys() if k.startswith("rep_")):
            tg = pg["timeseries"][rname]
            if "bytes" not in tg or tg["bytes"].ndim != 2:
                continue
            n, K = tg["bytes"].shape
            if n == 0 or K == 0:
                continue
            rep = int(rname[4:])
            lo, hi = interval_edges(tg, pg, rep)
            i = np.repeat(np.arange(n), K)
            ts, te = np.repeat(lo - t0, K), np.repeat(hi - t0, K)
            span = te - ts
            d: Dict[str, Any] = dict(_key(run, p), rep=rep, interval=i, node=np.tile(np.arange(K), n),
                     t_start_s=ts, t_end_s=te, interval_s=span)
            d["host"] = np.tile(np.array([run.hosts.get(k, "") for k in range(K)], dtype=object), n)
            ops = tg["ops"][()].ravel() if "ops" in tg else None
            for k in TS_FIELDS:
                if k in tg:
                    v = tg[k][()].ravel()
                    d[k] = _nan_where(v, ops == 0) if k.endswith("_ns") and ops is not None else v
            some = span > 0  # an interval of no length (a phase that took none): no rate
            per_s = np.where(some, 1.0 / np.where(some, span, 1.0), np.nan)
            if "bytes" in d:
                d["bandwidth"] = d["bytes"] * per_s
            if ops is not None:
                d["iops"] = ops * per_s
            cols.add(n * K, **d)


def _placement_rows(run: Run, cols: Columns) -> None:
    pl = run.placement_table
    if pl is None or len(pl) == 0:
        return
    names = pl.dtype.names or ()
    d: Dict[str, Any] = {"run": run.number, "host": run.rank_host}
    for k in ("rank", "node", "clock_correction", "clock_uncertainty", "reads_from_rank", "reads_from_node"):
        if k in names:
            d[k] = pl[k]
    for k in ("cpu_affinity", "numa_nodes"):
        if k in names:
            v = np.array([text(x) for x in pl[k]], dtype=object)
            v[v == ""] = np.nan
            d[k] = v
    if "cpus" in names:
        d["cpus"] = _nan_where(pl["cpus"], pl["cpus"] < 0)
    cols.add(len(pl), **d)


def _ceilings(run: Run, cols: Columns) -> None:
    """--ceilings: each node's memory-copy and network rates, and the run's
    sums (the clients' ceilings) repeated on its rows."""
    if "ceilings" not in run.group:
        return
    c = run.group["ceilings"][()]
    names = c.dtype.names or ()
    d: Dict[str, Any] = {"run": run.number, "host": np.array([text(h) for h in c["host"]], dtype=object)}
    for k in ("node", "memcpy_one_core", "memcpy_all_cores", "network"):
        if k in names:
            d[k] = c[k]
    for k in ("ceiling_memory", "ceiling_network"):
        d[k] = float(run.attrs.get(k, np.nan))
    cols.add(len(c), **d)


def _runs(run: Run, cols: Columns) -> None:
    """One row: the run's file (its path as opened), number, id, label,
    status, start and end, and RUN_ATTRS (NaN where the run lacks one)."""
    a = run.attrs
    d: Dict[str, Any] = {"file": run.results.path, "run": run.number, "run_id": run.run_id, "label": run.label,
                         "status": run.status, "ranks": run.ranks, "nodes": run.nodes, "threads": run.threads,
                         "streams": run.streams}
    for k in ("start_time", "end_time"):
        if isinstance(a.get(k), str) and a[k]:
            d[k] = a[k]
    for k, dt in RUN_ATTRS:
        if k in d or k not in a:
            continue
        v = a[k]
        if dt == "O":
            d[k] = str(v)
        elif isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool):
            d[k] = int(v)
    cols.add(1, **d)


# what: (columns, fill, name in messages)
FRAMES: Dict[str, Tuple[Spec, Callable[[Run, Columns], None], str]] = {
    "summary": (SUMMARY_COLUMNS, _summary, "summary"),
    "nodes": (NODES_COLUMNS, _nodes, "nodes"),
    "streams": (STREAMS_COLUMNS, _streams, "streams"),
    "latency": (LATENCY_COLUMNS, lambda r, c: _latency(r, c, False), "latency"),
    "node_latency": (NODE_LATENCY_COLUMNS, lambda r, c: _latency(r, c, True), "latency"),
    "hist": (HIST_COLUMNS, lambda r, c: _hist(r, c, False), "latency"),
    "node_hist": (NODE_HIST_COLUMNS, lambda r, c: _hist(r, c, True), "latency"),
    "timeline": (TIMELINE_COLUMNS, _timeline, "timeline"),
    "exemplars": (EXEMPLAR_COLUMNS, _exemplars, "exemplars"),
    "targets": (TARGET_COLUMNS, _targets, "targets"),
    "target_latency": (TARGET_HIST_COLUMNS, _target_hists, "target_latency"),
    "placement": (PLACEMENT_COLUMNS, _placement_rows, "placement"),
    "ceilings": (CEILINGS_COLUMNS, _ceilings, "ceilings"),
    "runs": (RUNS_COLUMNS, _runs, "runs_frame"),
    "load": (LOAD_COLUMNS, load_rows, "load"),
}


def latency_kind(hist: bool, per_node: bool) -> str:
    """The FRAMES key of latency(hist, per_node)."""
    return ("node_" if per_node else "") + ("hist" if hist else "latency")


def frame(what: str, runs: Sequence[Run], as_frame: bool) -> Any:
    """Frame what (a FRAMES key) of runs: a pandas DataFrame, or with
    as_frame False a dict of numpy arrays."""
    spec, fill, name = FRAMES[what]
    cols = Columns(spec)
    for r in runs:
        if r.results.closed:
            raise ValueError("pfsbench: %s(): %s is closed (use the frames inside the with block, or keep the "
                             "Results open)" % (name, r.results.path))
        fill(r, cols)
    return cols.result(name, as_frame)


def frame_of_files(what: str, files: Sequence[Tuple[str, Sequence[Run]]], as_frame: bool) -> Any:
    """Frame what over several files' runs, files: (path, runs) each, with a
    first column, file, saying which file each row came from."""
    spec, _, name = FRAMES[what]
    cols = Columns(spec if spec[0][0] == "file" else [("file", "O")] + spec)
    for path, runs in files:
        arrays = frame(what, runs, False)
        n = len(arrays[spec[0][0]])
        cols.add(n, **dict(arrays, file=np.full(n, path, dtype=object)))
    return cols.result(name, as_frame)
