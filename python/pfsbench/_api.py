"""pfsbench.open(): a results file as Run objects and pandas DataFrames.

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

import os

import numpy as np

from . import reader as R

LAT_KINDS = R.LAT_KINDS
LAT_FIELDS = ("count", "sum_ns", "min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "mean_ns")
TS_FIELDS = ("bytes", "ops", "p50_ns", "p99_ns", "max_ns")
MISSING = object()

# Column specs: (name, dtype); dtype "i8", "u8", "f8", "O" (str), "?" (True/False/NaN: pandas "boolean").
# The page cache's byte counts are f8: a phase that reads has no dirty figure, one that writes no
# resident figure (NaN), so the columns are never whole integers.
_KEY = [("run", "i8"), ("phase", "O"), ("index", "i8"), ("kind", "O")]
SUMMARY_COLUMNS = [("run", "i8"), ("run_id", "O"), ("label", "O"), ("status", "O"), ("phase", "O"), ("index", "i8"),
                   ("kind", "O"), ("rep", "i8"), ("warmup", "?"), ("ranks", "i8"), ("nodes", "i8"), ("threads", "i8"),
                   ("streams", "i8"), ("transfer", "i8"), ("block", "i8"), ("bytes", "i8"), ("seconds", "f8"),
                   ("bandwidth", "f8"), ("bandwidth_mib", "f8"), ("utilization", "f8"),
                   ("stonewall_bandwidth", "f8"), ("stonewall_rate", "f8"), ("ops", "i8"), ("rate", "f8"), ("iops", "f8"),
                   ("reps_measured", "i8"), ("ci95_half_width", "f8"), ("ci95_percent", "f8"), ("ci_target_met", "?"),
                   ("start_s", "f8"), ("end_s", "f8"), ("p50_ns", "f8"), ("p90_ns", "f8"), ("p99_ns", "f8"),
                   ("p999_ns", "f8"), ("max_ns", "f8"), ("mean_ns", "f8"), ("cpu_user", "f8"), ("cpu_sys", "f8"),
                   ("cpu_percent", "f8"), ("cache_method", "O"), ("cache_bytes", "f8"), ("cache_resident", "f8"),
                   ("cache_resident_fraction", "f8"), ("cache_dirty_method", "O"), ("cache_dirty_probed", "f8"),
                   ("cache_dirty", "f8"), ("cache_dirty_fraction", "f8")]
NODES_COLUMNS = _KEY + [("rep", "i8"), ("node", "i8"), ("host", "O"), ("ranks", "i8"), ("node_bytes", "i8"),
                        ("node_ops", "i8"), ("node_seconds", "f8"), ("node_bandwidth", "f8"),
                        ("node_bandwidth_mib", "f8"), ("node_rate", "f8"), ("node_straggler", "?"),
                        ("p50_ns", "f8"), ("p99_ns", "f8"), ("max_ns", "f8"), ("cpu_user", "f8"),
                        ("cpu_sys", "f8"), ("node_cache_bytes", "f8"), ("node_cache_resident", "f8"),
                        ("node_cache_resident_fraction", "f8"), ("node_cache_dirty_probed", "f8"),
                        ("node_cache_dirty", "f8"), ("node_cache_dirty_fraction", "f8")]
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
PLACEMENT_COLUMNS = [("run", "i8"), ("rank", "i8"), ("node", "i8"), ("host", "O"), ("clock_correction", "f8"),
                     ("clock_uncertainty", "f8"), ("reads_from_rank", "i8"), ("reads_from_node", "i8"),
                     ("cpu_affinity", "O"), ("cpus", "i8"), ("numa_nodes", "O")]


def _pandas(what):
    try:
        import pandas
    except ImportError as e:
        raise ImportError("pfsbench: %s() makes a pandas DataFrame, and pandas is not installed (Debian: apt install "
                          "python3-pandas); %s(as_frame=False) gives the same columns as a dict of numpy arrays"
                          % (what, what)) from e
    return pandas


class _Cols:
    """Columns gathered in blocks of n rows, then joined once."""

    def __init__(self, spec):
        self.spec = spec
        self.parts = {name: [] for name, _ in spec}

    def add(self, n, **cols):
        """One block of n rows: each column an array of n, a scalar for all
        n, or absent (MISSING / not given: NaN)."""
        if n <= 0:
            return
        for name, dt in self.spec:
            v = cols.get(name, MISSING)
            if v is MISSING or v is None:
                a = np.full(n, np.nan, dtype=object if dt == "O" else float)
            else:
                a = np.asarray(v)
                if a.ndim == 0:
                    a = np.full(n, a[()], dtype=a.dtype)
                a = a.ravel()
                if a.shape[0] != n:
                    raise ValueError("column %s: %d values for %d rows" % (name, a.shape[0], n))
            self.parts[name].append(a)

    def arrays(self):
        out = {}
        for name, dt in self.spec:
            parts = self.parts[name]
            if dt == "O":
                a = np.concatenate([p.astype(object) for p in parts]) if parts else np.empty(0, dtype=object)
            elif dt == "?":
                a = np.concatenate([p.astype(float) for p in parts]) if parts else np.empty(0, dtype=float)
            else:
                missing = any(p.dtype.kind == "f" and np.isnan(p).any() for p in parts)
                want = np.dtype("f8") if missing or dt == "f8" else np.dtype(dt)
                a = np.concatenate([p.astype(want) for p in parts]) if parts else np.empty(0, dtype=want)
            out[name] = a
        return out

    def result(self, what, as_frame):
        arrays = self.arrays()
        if not as_frame:
            return arrays
        pd = _pandas(what)
        cols = {}
        for name, dt in self.spec:
            a = arrays[name]
            if dt == "?":
                cols[name] = pd.array([None if np.isnan(x) else bool(x) for x in a], dtype="boolean")
            else:
                cols[name] = a
        return pd.DataFrame(cols, columns=[name for name, _ in self.spec])


def _nan_where(a, cond):
    a = np.asarray(a, dtype=float).copy()
    a[cond] = np.nan
    return a


def _text(v):
    return R._text(v)


# The page-cache probe's methods, as the times' cache_method and dirty_method store them.
CACHE_METHODS = ("", "cachestat", "mincore", "unknown", "bypassed")


def _cache(pg, reps, prefix):
    """A phase's page-cache figures ([rep] for prefix "", [rep][node] for
    "node_"): bytes probed and resident before a read, probed and dirty at a
    write's close, and the fractions; what the file lacks is left out (NaN)."""
    d = {}
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
                d[k] = _text(pg.attrs[k])
    return d


class _Phase:
    __slots__ = ("group", "phase", "index", "kind", "reps")

    def __init__(self, group, phase, index, kind, reps):
        self.group, self.phase, self.index, self.kind, self.reps = group, phase, index, kind, reps

    def __repr__(self):
        return "<phase %02d_%s (%s), %d repetition%s>" % (self.index, self.phase, self.kind, self.reps,
                                                          "" if self.reps == 1 else "s")


class Run:
    """One run of a results file (/runs/NNNNNN): number, name (the group's
    path), run_id, label, status, attrs (every attribute, strings decoded),
    ranks, nodes, threads, streams, hosts ({node: host}), phases, t0; and
    the frames of Results for this run alone."""

    def __init__(self, results, number, group):
        self._results = results
        self._g = group
        self.number = number
        self.name = group.name
        self.attrs = {}
        for k in group.attrs.keys():
            v, err = R._attr(group, k)
            if err is None:
                self.attrs[k] = R._plain(v)
        a = self.attrs
        self.run_id = str(a.get("run_id", ""))
        self.label = str(a.get("label", ""))
        self.status = str(a.get("status", ""))
        self.ranks = int(a.get("ranks", 0))
        self.nodes = int(a.get("nodes", 0))
        pl = group["placement"][()] if "placement" in group else None
        self._placement = pl
        self.threads = R._threads_of(group, pl, None)
        self.streams = int(a["streams"]) if "streams" in a else self.ranks * self.threads
        self.hosts = {}
        self._rank_node = np.zeros(0, dtype=np.int64)
        self._rank_host = np.zeros(0, dtype=object)
        if pl is not None:
            self._rank_node = pl["node"].astype(np.int64)
            self._rank_host = np.array([_text(h) for h in pl["host"]], dtype=object)
            for n, h in zip(self._rank_node, self._rank_host):
                self.hosts.setdefault(int(n), h)
        self._phases = None
        self._t0 = None

    def __repr__(self):
        return "<pfsbench.Run %d %s %s%s: %d ranks on %d nodes, %s>" % (
            self.number, self.run_id, self.status, " '%s'" % self.label if self.label else "", self.ranks,
            self.nodes, ",".join(p.phase for p in self.phases) or "no phases")

    @property
    def phases(self):
        """The phase groups in -p order (objects with phase, index, kind, reps, group)."""
        if self._phases is None:
            out = []
            g = self._g
            for pname in sorted(g["phases"].keys()) if "phases" in g else ():
                pg = g["phases"][pname]
                phase = _text(pg.attrs.get("phase", pname.split("_", 1)[-1]))
                head = pname.split("_", 1)[0]
                index = int(pg.attrs["index"]) if "index" in pg.attrs else (int(head) if head.isdigit() else len(out))
                kind = R.phase_kind(phase, pg.attrs["kind"] if "kind" in pg.attrs else None)
                if "repetitions" in pg.attrs:
                    reps = int(pg.attrs["repetitions"])
                else:
                    reps = pg["times"].shape[0] if "times" in pg else 0
                out.append(_Phase(pg, phase, index, kind, reps))
            self._phases = out
        return self._phases

    @property
    def t0(self):
        """The run's start, s since the epoch on rank 0's clock: the earliest
        open_start of any stream (its first phase's first open), which is
        also where that phase's first time-series interval starts (an older
        file's grid may start earlier: then there); NaN when the run recorded
        no phase."""
        if self._t0 is None:
            cands = []
            for p in self.phases:
                pg = p.group
                if p.reps and "times" in pg:
                    t = pg["times"]["open_start"]
                    t = t[t > 0]
                    if t.size:
                        cands.append(float(t.min()))
                if "timeseries" in pg:
                    for k in pg["timeseries"].keys():
                        tg = pg["timeseries"][k]
                        if k.startswith("rep_") and "t0" in tg.attrs and "bytes" in tg and tg["bytes"].shape[0]:
                            cands.append(float(R.ts_edges(tg)[0][0]))
            self._t0 = min(cands) if cands else float("nan")
        return self._t0

    def _stream_nodes(self, width):
        """(rank, thread, node, host) arrays for `width` streams."""
        th = max(1, self.threads)
        s = np.arange(width)
        rank = s // th
        known = rank < len(self._rank_node)
        node = np.where(known, self._rank_node[np.minimum(rank, max(len(self._rank_node) - 1, 0))]
                        if len(self._rank_node) else -1, -1)
        host = np.array([self._rank_host[r] if k else "" for r, k in zip(rank, known)], dtype=object)
        return rank, s % th, node.astype(np.int64), host

    def _key(self, p):
        return {"run": self.number, "phase": p.phase, "index": p.index, "kind": p.kind}

    # ---- the frames, into a _Cols ----

    def _summary(self, cols):
        a = self.attrs
        base = {"run": self.number, "run_id": self.run_id, "label": self.label, "status": self.status,
                "ranks": self.ranks, "nodes": self.nodes, "threads": self.threads, "streams": self.streams,
                "transfer": int(a.get("transfer", 0)), "block": int(a.get("block", 0))}
        t0 = self.t0
        for p in self.phases:
            pg, R_ = p.group, p.reps
            if R_ == 0:
                continue
            d = dict(base, phase=p.phase, index=p.index, kind=p.kind, rep=np.arange(R_))
            for k in ("bytes", "seconds", "bandwidth", "utilization", "ops", "rate"):
                if k in pg:
                    d[k] = pg[k][()][:R_]
            for k in ("stonewall_bandwidth", "stonewall_rate"):
                if k in pg:
                    v = pg[k][()][:R_].astype(float)
                    d[k] = _nan_where(v, v <= 0)
            if "bandwidth" in d:
                d["bandwidth_mib"] = d["bandwidth"] / R.MIB
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
            d.update(self._ci(pg, R_))
            u, s = self._cpu(pg, R_)
            if u is not None:
                d["cpu_user"], d["cpu_sys"] = u.sum(axis=1), s.sum(axis=1)
                if "seconds" in d:
                    sec = np.asarray(d["seconds"], dtype=float)
                    denom = sec * self.streams
                    d["cpu_percent"] = np.where(denom > 0, (d["cpu_user"] + d["cpu_sys"]) / np.where(denom > 0, denom, 1)
                                                * 100.0, np.nan)
            d.update(_cache(pg, R_, ""))
            cols.add(R_, **d)

    @staticmethod
    def _ci(pg, reps):
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

    def _cpu(self, pg, reps):
        """(user, sys) CPU s per [rep][node], from the datasets or the times' fields; (None, None)."""
        if "cpu_user" in pg and "cpu_sys" in pg:
            return pg["cpu_user"][()][:reps].astype(float), pg["cpu_sys"][()][:reps].astype(float)
        if "times" in pg and pg["times"].dtype.names and "cpu_user" in pg["times"].dtype.names:
            t = pg["times"][()][:reps]
            _, _, node, _ = self._stream_nodes(t.shape[1])
            K = max(self.nodes, int(node.max()) + 1 if node.size else 0)
            u, s = np.zeros((reps, K)), np.zeros((reps, K))
            for k in range(K):
                u[:, k] = t["cpu_user"][:, node == k].sum(axis=1)
                s[:, k] = t["cpu_sys"][:, node == k].sum(axis=1)
            return u, s
        return None, None

    def _nodes(self, cols):
        for p in self.phases:
            pg, R_ = p.group, p.reps
            if R_ == 0 or "node_bytes" not in pg and "node_bandwidth" not in pg:
                continue
            ref = pg["node_bandwidth"] if "node_bandwidth" in pg else pg["node_bytes"]
            K = ref.shape[1]
            n = R_ * K
            d = dict(self._key(p), rep=np.repeat(np.arange(R_), K), node=np.tile(np.arange(K), R_))
            d["host"] = np.tile(np.array([self.hosts.get(k, "") for k in range(K)], dtype=object), R_)
            d["ranks"] = np.tile(np.array([int((self._rank_node == k).sum()) for k in range(K)]), R_)
            for k in ("node_bytes", "node_seconds", "node_bandwidth", "node_rate"):
                if k in pg:
                    d[k] = pg[k][()][:R_]
            if "node_bandwidth" in d:
                d["node_bandwidth_mib"] = np.asarray(d["node_bandwidth"], dtype=float) / R.MIB
            if "node_straggler" in pg:
                d["node_straggler"] = (pg["node_straggler"][()][:R_] != 0).astype(float)
            if "times" in pg:
                t = pg["times"][()][:R_]
                _, _, snode, _ = self._stream_nodes(t.shape[1])
                ops = np.zeros((R_, K), dtype=np.int64)
                for k in range(K):
                    ops[:, k] = t["transfers"][:, snode == k].sum(axis=1)
                d["node_ops"] = ops
            if "node_latency_summary" in pg:
                ls = pg["node_latency_summary"][()][:R_]
                none = ls["count"] == 0
                for f in ("p50_ns", "p99_ns", "max_ns"):
                    d[f] = _nan_where(ls[f], none)
            u, s = self._cpu(pg, R_)
            if u is not None and u.shape[1] == K:
                d["cpu_user"], d["cpu_sys"] = u, s
            d.update({k: v for k, v in _cache(pg, R_, "node_").items() if np.shape(v)[1:] == (K,)})
            cols.add(n, **d)

    def _streams(self, cols):
        t0 = self.t0
        for p in self.phases:
            pg, R_ = p.group, p.reps
            if R_ == 0 or "times" not in pg:
                continue
            t = pg["times"][()][:R_]
            S = t.shape[1]
            rank, thread, node, host = self._stream_nodes(S)
            d = dict(self._key(p), rep=np.repeat(np.arange(R_), S), stream=np.tile(np.arange(S), R_),
                     rank=np.tile(rank, R_), thread=np.tile(thread, R_), node=np.tile(node, R_),
                     host=np.tile(host, R_))
            names = t.dtype.names
            for k in ("open_start", "open_end", "xfer_end", "close_end", "stonewall_end"):
                if k in names:
                    v = t[k].astype(float)
                    d[k] = _nan_where(v - t0, v <= 0)
            for k in ("verify_seconds", "bytes", "transfers", "stonewall_bytes", "stonewall_transfers", "verify_errors",
                      "cpu_user", "cpu_sys"):
                if k in names:
                    d[k] = t[k]
            if "cache_method" in names:
                cm, dm = t["cache_method"], t["dirty_method"]
                d["cache_method"] = np.array([CACHE_METHODS[m] if 0 <= m < len(CACHE_METHODS) else "?"
                                              for m in cm.ravel()], dtype=object)
                d["dirty_method"] = np.array([CACHE_METHODS[m] if 0 <= m < len(CACHE_METHODS) else "?"
                                              for m in dm.ravel()], dtype=object)
                measured = (cm == 1) | (cm == 2) | (dm == 1)
                d["cache_bytes"] = _nan_where(t["cache_bytes"], ~measured)
                d["cache_resident"] = _nan_where(t["cache_resident"], ~((cm == 1) | (cm == 2)))
                d["cache_dirty"] = _nan_where(t["cache_dirty"], dm != 1)
            if "open_start" in d and "close_end" in d:
                sec = d["close_end"] - d["open_start"]
                d["seconds"] = sec
                if "stream_bandwidth" in pg and pg["stream_bandwidth"].shape == t.shape:
                    d["bandwidth"] = pg["stream_bandwidth"][()][:R_]
                elif "bytes" in d:
                    d["bandwidth"] = _nan_where(t["bytes"].astype(float) / np.where(sec > 0, sec, 1), ~(sec > 0))
            cols.add(R_ * S, **d)

    def _latency(self, cols, per_node):
        for p in self.phases:
            pg, R_ = p.group, p.reps
            name = "node_latency_summary" if per_node else "latency_summary"
            if R_ == 0 or name not in pg:
                continue
            ls = pg[name][()][:R_]
            W = ls.shape[1]
            d = dict(self._key(p), rep=np.repeat(np.arange(R_), W))
            if per_node:
                d["op_kind"] = "op"
                d["node"] = np.tile(np.arange(W), R_)
                d["host"] = np.tile(np.array([self.hosts.get(k, "") for k in range(W)], dtype=object), R_)
            else:
                kinds = _text(pg.attrs["latency_kinds"]).split(",") if "latency_kinds" in pg.attrs else LAT_KINDS
                d["op_kind"] = np.tile(np.array(list(kinds)[:W] + [""] * (W - len(kinds)), dtype=object), R_)
            none = ls["count"] == 0
            for f in LAT_FIELDS:
                d[f] = ls[f] if f in ("count", "sum_ns") else _nan_where(ls[f], none)
            cols.add(R_ * W, **d)

    def _hist(self, cols, per_node):
        for p in self.phases:
            pg, R_ = p.group, p.reps
            name = "node_latency" if per_node else "latency"
            if R_ == 0 or name not in pg or "latency_bucket_lo" not in pg:
                continue
            lo, hi = pg["latency_bucket_lo"][()], pg["latency_bucket_hi"][()]
            h = pg[name][()][:R_]
            rep, w, b = np.nonzero(h)
            d = dict(self._key(p), rep=rep, bucket=b, bucket_lo=lo[b].astype(np.uint64),
                     bucket_hi=hi[b].astype(np.uint64), count=h[rep, w, b].astype(np.int64))
            if per_node:
                d["op_kind"] = "op"
                d["node"] = w
                d["host"] = np.array([self.hosts.get(int(k), "") for k in w], dtype=object)
            else:
                kinds = _text(pg.attrs["latency_kinds"]).split(",") if "latency_kinds" in pg.attrs else LAT_KINDS
                d["op_kind"] = np.array([kinds[k] if k < len(kinds) else "" for k in w], dtype=object)
            cols.add(len(b), **d)

    def _timeline(self, cols):
        t0 = self.t0
        for p in self.phases:
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
                lo, hi = R.ts_edges(tg, pg, rep)
                i = np.repeat(np.arange(n), K)
                ts, te = np.repeat(lo - t0, K), np.repeat(hi - t0, K)
                span = te - ts
                d = dict(self._key(p), rep=rep, interval=i, node=np.tile(np.arange(K), n),
                         t_start_s=ts, t_end_s=te, interval_s=span)
                d["host"] = np.tile(np.array([self.hosts.get(k, "") for k in range(K)], dtype=object), n)
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

    def _placement_rows(self, cols):
        pl = self._placement
        if pl is None or len(pl) == 0:
            return
        names = pl.dtype.names
        d = {"run": self.number, "host": self._rank_host}
        for k in ("rank", "node", "clock_correction", "clock_uncertainty", "reads_from_rank", "reads_from_node"):
            if k in names:
                d[k] = pl[k]
        for k in ("cpu_affinity", "numa_nodes"):
            if k in names:
                v = np.array([_text(x) for x in pl[k]], dtype=object)
                v[v == ""] = np.nan
                d[k] = v
        if "cpus" in names:
            d["cpus"] = _nan_where(pl["cpus"], pl["cpus"] < 0)
        cols.add(len(pl), **d)

    # ---- public ----

    def summary(self, as_frame=True):
        """One row per phase and repetition; see Results.summary."""
        return _frame(SUMMARY_COLUMNS, [self], "summary", as_frame, lambda r, c: r._summary(c))

    def nodes(self, as_frame=True):
        """One row per phase, repetition and node; see Results.nodes."""
        return _frame(NODES_COLUMNS, [self], "nodes", as_frame, lambda r, c: r._nodes(c))

    def streams(self, as_frame=True):
        """One row per phase, repetition and stream; see Results.streams."""
        return _frame(STREAMS_COLUMNS, [self], "streams", as_frame, lambda r, c: r._streams(c))

    def latency(self, hist=False, per_node=False, as_frame=True):
        """Latency per phase, repetition and kind; see Results.latency."""
        return _latency_frame([self], hist, per_node, as_frame)

    def timeline(self, as_frame=True):
        """The time series, per phase, repetition, interval and node; see Results.timeline."""
        return _frame(TIMELINE_COLUMNS, [self], "timeline", as_frame, lambda r, c: r._timeline(c))

    def placement(self, as_frame=True):
        """One row per rank; see Results.placement."""
        return _frame(PLACEMENT_COLUMNS, [self], "placement", as_frame, lambda r, c: r._placement_rows(c))


def _frame(spec, runs, what, as_frame, fill):
    cols = _Cols(spec)
    for r in runs:
        if r._results._closed:
            raise ValueError("pfsbench: %s(): %s is closed (use the frames inside the with block, or keep the "
                             "Results open)" % (what, r._results.path))
        fill(r, cols)
    return cols.result(what, as_frame)


def _latency_frame(runs, hist, per_node, as_frame):
    if hist:
        spec = NODE_HIST_COLUMNS if per_node else HIST_COLUMNS
        return _frame(spec, runs, "latency", as_frame, lambda r, c: r._hist(c, per_node))
    spec = NODE_LATENCY_COLUMNS if per_node else LATENCY_COLUMNS
    return _frame(spec, runs, "latency", as_frame, lambda r, c: r._latency(c, per_node))


class Results:
    """An open pfsbench results file (pfsbench.open(path)); a context
    manager, closed on exit or by close(). runs: the readable runs, in order
    (a damaged run is left out, and named in problems and a warning)."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self._closed = False
        self._f = R.open_results(self.path)
        self.attrs = {k: R._plain(v) for k, v in self._f.attrs.items()}
        self.problems = []
        try:
            bad = R._damaged(self._f, self.problems)
            self.runs = []
            if "runs" in self._f:
                for name in sorted(self._f["runs"].keys()):
                    if name.isdigit() and int(name) not in bad:
                        self.runs.append(Run(self, int(name), self._f["runs"][name]))
        except Exception:
            self._f.close()
            raise
        if self.problems:
            import warnings
            for where, what in self.problems:
                warnings.warn("pfsbench: %s: %s; skipped" % (where, what), stacklevel=3)

    def close(self):
        self._closed = True
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self):
        return iter(self.runs)

    def __len__(self):
        return len(self.runs)

    def __repr__(self):
        return "<pfsbench.Results %s: %d run%s>" % (self.path, len(self.runs), "" if len(self.runs) == 1 else "s")

    def run(self, which):
        """The run named by which: its number (1, "000001"), path ("/runs/000001") or run id."""
        g = R.find_run(self._f, which)
        for r in self.runs:
            if r.name == g.name:
                return r
        raise R.NoSuchRun("run %s is damaged and was skipped (see .problems)" % g.name)

    def summary(self, as_frame=True):
        """One row per run, phase and repetition: run, run_id, label, status,
        phase, index, kind, rep, ranks, nodes, threads, streams, transfer,
        block, bytes, seconds, bandwidth (bytes/s), bandwidth_mib,
        utilization, stonewall_bandwidth (NaN without a stonewall), ops, rate
        (ops/s; files/s in a metadata phase), iops (ops / seconds), start_s
        and end_s (the repetition's first open and last close, relative to
        the run's start), p50_ns .. mean_ns of the phase's own operation
        (the op kind), cpu_user and cpu_sys (s, all streams), cpu_percent
        (bonnie++'s %CP), warmup (True for a --warmup repetition: stored,
        left out of the statistics), and the phase's reps_measured,
        ci95_half_width (the 95% confidence interval of the mean bandwidth,
        bytes/s, or of the rate in a metadata phase; NaN for one measured
        repetition), ci95_percent (of the mean) and ci_target_met (--reps
        auto: whether it came within --ci; NaN with a fixed --reps); the
        page cache, probed outside the timed region: cache_method (how:
        cachestat, mincore, unknown, bypassed with --direct, or joined by "+";
        "" when the phase reads nothing), cache_bytes (bytes of the files it
        read, probed before it) and cache_resident (of them, in the page
        cache of their node), cache_resident_fraction; cache_dirty_method,
        cache_dirty_probed (bytes it wrote, probed after its close),
        cache_dirty (of them, dirty or under write-back) and
        cache_dirty_fraction (NaN where not measured)."""
        return _frame(SUMMARY_COLUMNS, self.runs, "summary", as_frame, lambda r, c: r._summary(c))

    def nodes(self, as_frame=True):
        """One row per run, phase, repetition and node: host (from the
        placement), ranks on it, node_bytes, node_ops, node_seconds,
        node_bandwidth (bytes/s), node_bandwidth_mib, node_rate (ops/s),
        node_straggler (pandas boolean), p50_ns, p99_ns, max_ns of the node's
        operations, cpu_user and cpu_sys (s, the node's streams), and the
        node's page-cache figures: node_cache_bytes, node_cache_resident,
        node_cache_resident_fraction, node_cache_dirty_probed,
        node_cache_dirty, node_cache_dirty_fraction (as summary's)."""
        return _frame(NODES_COLUMNS, self.runs, "nodes", as_frame, lambda r, c: r._nodes(c))

    def streams(self, as_frame=True):
        """The raw `times` of every stream: one row per run, phase,
        repetition and stream, with rank, thread, node and host; open_start,
        open_end, xfer_end, close_end, stonewall_end (s relative to the run's
        start; stonewall_end NaN where the stream did not reach a stonewall),
        verify_seconds, bytes, transfers, stonewall_bytes, stonewall_transfers
        (files, in create), verify_errors,
        seconds (close_end - open_start), bandwidth (bytes/s), cpu_user and
        cpu_sys (s; NaN in files written before they were recorded),
        cache_method and dirty_method (how its page cache was probed, as
        summary's), cache_bytes, cache_resident, cache_dirty (bytes; NaN
        where not measured)."""
        return _frame(STREAMS_COLUMNS, self.runs, "streams", as_frame, lambda r, c: r._streams(c))

    def latency(self, hist=False, per_node=False, as_frame=True):
        """latency_summary: one row per run, phase, repetition and op_kind
        (op: the phase's own operation, a transfer or a file; open, fsync,
        close) with count, sum_ns, min_ns, p50_ns, p90_ns, p99_ns, p999_ns,
        max_ns, mean_ns (NaN where count is 0). per_node=True: the op kind per
        node (node_latency_summary), with node and host. hist=True: the
        histograms in long form, one row per non-empty bucket: bucket,
        bucket_lo, bucket_hi (ns, inclusive; 2^64-1 for the last), count.
        Empty for files written before latencies were recorded."""
        return _latency_frame(self.runs, hist, per_node, as_frame)

    def timeline(self, as_frame=True):
        """The time series: one row per run, phase, repetition, interval and
        node: t_start_s and t_end_s (relative to the run's start: where the
        interval truly starts and ends; the first starts at the repetition's
        first open, the last ends at its last close, so both are partial),
        interval_s (t_end_s - t_start_s: the interval's overlap with the
        phase), host, bytes, ops, bandwidth (bytes/s) and iops (bytes and ops
        over interval_s), p50_ns, p99_ns, max_ns (NaN where the node completed
        nothing). An edge interval that would overlap the phase by less than
        a quarter of --interval is joined to its neighbour; a phase shorter
        than one interval is one (unless a --ramp moved its start across a
        grid edge). Empty for files written before the time series was
        recorded."""
        return _frame(TIMELINE_COLUMNS, self.runs, "timeline", as_frame, lambda r, c: r._timeline(c))

    def placement(self, as_frame=True):
        """One row per run and rank: node, host, clock_correction,
        clock_uncertainty, reads_from_rank, reads_from_node, cpu_affinity,
        cpus, numa_nodes (NaN where not recorded)."""
        return _frame(PLACEMENT_COLUMNS, self.runs, "placement", as_frame, lambda r, c: r._placement_rows(c))


def open(path):  # noqa: A001  (pfsbench.open, as h5py.File and pandas.read_* read a path)
    """Opens a pfsbench results file read-only: a Results. Raises
    pfsbench.NotResultsFile for a path that is not one (or of a format
    version this reader does not know)."""
    return Results(path)

