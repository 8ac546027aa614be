"""pfsbench.open(): the one reader of pfsbench results files.

    with pfsbench.open("results.h5") as r:     # a Results
        r.runs                                  # the readable runs (Run), in order
        r.problems                              # [(where, what)] of the damaged runs left out
        r.summary(), r.nodes(), ...             # DataFrames (frames.py)
        pfsbench.rows.summary_rows(r)           # the same as plain dicts (rows.py), for the tools

Every tool of the package reads results files through it. Units are the
file's: bytes, s, bytes/s, ops/s (files/s in a metadata phase), ns. A
run group found damaged (damage.py) is left out of runs and named in
problems. The schema is docs/results-format.md; field names are taken from
the file's own compound types, never from a list kept here.
"""

from __future__ import annotations

import os
import warnings
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Set, Tuple, TypeVar, Union, overload

import h5py
import numpy as np
import numpy.typing as npt

from . import binary, frames
from .damage import Problem, damaged
from .h5file import NoSuchRun, NotResultsFile, attr, find_run, interval_edges, open_h5
from .lock import Unrecovered, hold_shared
from .text import plain, text

if TYPE_CHECKING:
    from .several import ResultsSet

MIB = 1048576.0
Frame = Any  # a pandas DataFrame, or with as_frame=False a dict of numpy arrays


def phase_kind(phase: Any, kind: Any = None) -> str:
    """"metadata" or "data" for phase: kind when the file gave one (each
    phase group's `kind` attribute), else what pfsbench says of the phase
    (--list-options=json). A phase group without the attribute was written
    before metadata phases existed (they came with it), so with no pfsbench
    to ask it is a data phase."""
    k = text(kind) if kind is not None else None
    if k in binary.KINDS:
        return str(k)
    return binary.phase_kinds().get(text(phase), "data")


def is_metadata(phase: Any, kind: Any = None) -> bool:
    """True for a metadata phase (create, stat, read-files, find, delete;
    mkdir, stat-dirs, rmdir in directories/s), judged by its rate in files/s
    rather than a bandwidth; kind: the kind the file gives it (phase_kind)."""
    return phase_kind(phase, kind) == "metadata"


class Phase:
    """One phase group of a run (/runs/NNNNNN/phases/II_NAME): group (the
    h5py group), phase (its name), index (its position in -p, which tells
    apart two phases of one name), kind ("data" or "metadata"), reps (the
    repetitions it recorded)."""

    __slots__ = ("group", "phase", "index", "kind", "reps")

    def __init__(self, group: h5py.Group, position: int) -> None:
        a = group.attrs
        gname = group.name.rsplit("/", 1)[1]
        head = gname.split("_", 1)[0]
        self.group = group
        self.phase = text(a.get("phase", gname.split("_", 1)[-1]))
        self.index = int(a["index"]) if "index" in a else (int(head) if head.isdigit() else position)
        self.kind = phase_kind(self.phase, a["kind"] if "kind" in a else None)
        self.reps = int(a["repetitions"]) if "repetitions" in a else (
            group["times"].shape[0] if "times" in group else 0)

    def name(self, lossless: bool = False) -> str:
        """The phase's name; lossless keeps bytes that are not UTF-8 as surrogate escapes."""
        return text(self.group.attrs.get("phase", self.group.name.rsplit("/", 1)[1].split("_", 1)[-1]), lossless)

    def __repr__(self) -> str:
        return "<phase %02d_%s (%s), %d repetition%s>" % (self.index, self.phase, self.kind, self.reps,
                                                          "" if self.reps == 1 else "s")


class Run:
    """One run of a results file (/runs/NNNNNN): number, name (the group's
    path), group (the h5py group), run_id, label, status, attrs (every
    attribute, strings decoded), ranks, nodes, threads, streams, hosts
    ({node: host}), placement_table (the placement dataset's records, or
    None), phases, t0; and the frames of Results for this run alone, but
    nodes() and streams(), whose names on a Run are its node and stream
    counts (select the run's rows of Results.nodes() and streams())."""

    def __init__(self, results: "Results", number: int, group: h5py.Group) -> None:
        self.results = results
        self.group = group
        self.number = number
        self.name: str = group.name
        self.attrs = self.attributes()
        a = self.attrs
        self.run_id = str(a.get("run_id", ""))
        self.label = str(a.get("label", ""))
        self.status = str(a.get("status", ""))
        self.ranks = int(a.get("ranks", 0))
        self.nodes = int(a.get("nodes", 0))
        # A file written before threads existed has one thread per rank.
        self.threads = max(1, int(a.get("threads", 1)))
        self.streams = int(a["streams"]) if "streams" in a else self.ranks * self.threads
        pl = group["placement"][()] if "placement" in group else None
        self.placement_table: Optional[npt.NDArray[Any]] = pl
        self.hosts: Dict[int, str] = {}
        self.rank_node = np.zeros(0, dtype=np.int64)
        self.rank_host = np.zeros(0, dtype=object)
        if pl is not None:
            self.rank_node = pl["node"].astype(np.int64)
            self.rank_host = np.array([text(h) for h in pl["host"]], dtype=object)
            for n, h in zip(self.rank_node, self.rank_host):
                self.hosts.setdefault(int(n), h)
        self._phases: Optional[List[Phase]] = None
        self._t0: Optional[float] = None

    def attributes(self, lossless: bool = False) -> Dict[str, Any]:
        """Every attribute of the run group, as Python numbers and str (an
        attribute that cannot be read is left out); lossless keeps bytes
        that are not UTF-8 as surrogate escapes."""
        out = {}
        for k in self.group.attrs.keys():
            v, err = attr(self.group, k)
            if err is None:
                out[k] = plain(v, lossless)
        return out

    def __repr__(self) -> str:
        return "<pfsbench.Run %d %s %s%s: %d ranks on %d nodes, %s>" % (
            self.number, self.run_id, self.status, " '%s'" % self.label if self.label else "", self.ranks,
            self.nodes, ",".join(p.phase for p in self.phases) or "no phases")

    @property
    def phases(self) -> List[Phase]:
        """The phase groups in -p order (Phase: phase, index, kind, reps, group)."""
        if self._phases is None:
            g = self.group
            names = sorted(g["phases"].keys()) if "phases" in g else []
            self._phases = [Phase(g["phases"][n], i) for i, n in enumerate(names)]
        return self._phases

    def phase_kinds(self) -> Dict[str, str]:
        """{phase name: kind} of this run's phases (the first group of a name says)."""
        out: Dict[str, str] = {}
        for p in self.phases:
            out.setdefault(p.phase, p.kind)
        return out

    @property
    def t0(self) -> float:
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
                for k, tg in pg["timeseries"].items() if "timeseries" in pg else ():
                    if k.startswith("rep_") and "t0" in tg.attrs and "bytes" in tg and tg["bytes"].shape[0]:
                        cands.append(float(interval_edges(tg)[0][0]))
            self._t0 = min(cands) if cands else float("nan")
        return self._t0

    def stream_nodes(self, width: int) -> Tuple[npt.NDArray[Any], ...]:
        """(rank, thread, node, host) arrays for `width` streams (stream =
        rank x threads + thread); node -1 and host "" past the placement."""
        th = max(1, self.threads)
        s = np.arange(width)
        rank = s // th
        known = rank < len(self.rank_node)
        node = np.where(known, self.rank_node[np.minimum(rank, max(len(self.rank_node) - 1, 0))]
                        if len(self.rank_node) else -1, -1)
        host = np.array([self.rank_host[r] if k else "" for r, k in zip(rank, known)], dtype=object)
        return rank, s % th, node.astype(np.int64), host

    def summary(self, as_frame: bool = True) -> Frame:
        """One row per phase and repetition; see Results.summary."""
        return frames.frame("summary", [self], as_frame)

    def latency(self, hist: bool = False, per_node: bool = False, as_frame: bool = True) -> Frame:
        """Latency per phase, repetition and kind; see Results.latency."""
        return frames.frame(frames.latency_kind(hist, per_node), [self], as_frame)

    def timeline(self, as_frame: bool = True) -> Frame:
        """The time series, per phase, repetition, interval and node; see Results.timeline."""
        return frames.frame("timeline", [self], as_frame)

    def placement(self, as_frame: bool = True) -> Frame:
        """One row per rank; see Results.placement."""
        return frames.frame("placement", [self], as_frame)

    def ceilings(self, as_frame: bool = True) -> Frame:
        """One row per node (none without --ceilings); see Results.ceilings."""
        return frames.frame("ceilings", [self], as_frame)

    def load(self, as_frame: bool = True) -> Frame:
        """One row per data phase and repetition of a --rate-sweep; see Results.load."""
        return frames.frame("load", [self], as_frame)

    def exemplars(self, as_frame: bool = True) -> Frame:
        """The slowest operations of each phase and repetition; see Results.exemplars."""
        return frames.frame("exemplars", [self], as_frame)

    def targets(self, as_frame: bool = True) -> Frame:
        """The storage targets of each data phase and repetition; see Results.targets."""
        return frames.frame("targets", [self], as_frame)

    def target_latency(self, as_frame: bool = True) -> Frame:
        """Each storage target's latency histogram; see Results.target_latency."""
        return frames.frame("target_latency", [self], as_frame)


_Held = TypeVar("_Held", bound="RunsHeld")


class RunsHeld:
    """What Results and ResultsSet share: runs, iterated and counted, and a
    context manager that calls close() on exit."""

    runs: List[Run]

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self: _Held) -> _Held:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Run]:
        return iter(self.runs)

    def __len__(self) -> int:
        return len(self.runs)


class Results(RunsHeld):
    """An open pfsbench results file (pfsbench.open(path)); a context
    manager, closed on exit or by close(). runs: the readable runs, in order
    (a damaged run is left out, and named in problems and, unless
    warn=False, a warning). file: the h5py.File, open read-only."""

    def __init__(self, path: "os.PathLike[str] | str", warn: bool = True) -> None:
        self.path = os.fspath(path)
        self.closed = False
        # The reader lock, held until close(): an append that finds it held
        # adds its run to a copy renamed over the file instead of writing
        # into it, so the file never changes under this reader, and the
        # append never waits for it.
        # An append that died mid-commit: the old file, read through its
        # journal (view), until pfsbench undoes it on disk.
        try:
            self._lock, self._view = hold_shared(self.path)
        except Unrecovered as e:
            raise NotResultsFile(str(e))
        try:
            self.file = open_h5(self.path, self._view)
        except BaseException:
            self._unlock()
            raise
        self.problems: List[Problem] = []
        try:
            self.attrs = {k: plain(v) for k, v in self.file.attrs.items()}
            self.damaged: Set[int] = damaged(self.file, self.problems)
            self.runs: List[Run] = []
            for name in sorted(self.file["runs"].keys()) if "runs" in self.file else ():
                if name.isdigit() and int(name) not in self.damaged:
                    self.runs.append(Run(self, int(name), self.file["runs"][name]))
        except Exception:
            self.file.close()
            self._unlock()
            raise
        if warn:
            for where, what in self.problems:
                warnings.warn("pfsbench: %s: %s; skipped" % (where, what), stacklevel=3)

    def close(self) -> None:
        self.closed = True
        self.file.close()
        self._unlock()

    def _unlock(self) -> None:
        if self._view is not None:
            self._view.close()
            self._view = None
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def __repr__(self) -> str:
        return "<pfsbench.Results %s: %d run%s>" % (self.path, len(self.runs), "" if len(self.runs) == 1 else "s")

    def numbers(self) -> Set[int]:
        """The numbers of every run group in the file, damaged ones included."""
        try:
            return {int(n) for n in self.file["runs"].keys() if n.isdigit()} if "runs" in self.file else set()
        except Exception:
            return set()

    def lookup(self, which: object) -> Tuple[Optional[Run], List[Problem]]:
        """(the run named by which, []) or, for a damaged run, (None, its
        problems). which: its number (1, "000001"), path ("/runs/000001")
        or run id. Raises NoSuchRun."""
        g = find_run(self.file, which)
        for r in self.runs:
            if r.name == g.name:
                return r, []
        return None, [p for p in self.problems if p[0] == "run " + g.name]

    def run(self, which: object) -> Run:
        """The run named by which: its number (1, "000001"), path ("/runs/000001") or run id."""
        r, _ = self.lookup(which)
        if r is None:
            raise NoSuchRun("run %s is damaged and was skipped (see .problems)" % find_run(self.file, which).name)
        return r

    def summary(self, as_frame: bool = True) -> Frame:
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
        cache_dirty_fraction (NaN where not measured); with --ceilings, a
        data phase's memory_ceiling_percent and network_ceiling_percent
        (100 x bandwidth / the clients' ceiling; NaN without one) and
        binding_ceiling ("memory" or "network", NaN without)."""
        return frames.frame("summary", self.runs, as_frame)

    def nodes(self, as_frame: bool = True) -> Frame:
        """One row per run, phase, repetition and node: host (from the
        placement), ranks on it, node_bytes, node_ops, node_seconds,
        node_bandwidth (bytes/s), node_bandwidth_mib, node_rate (ops/s),
        node_straggler (pandas boolean), p50_ns, p99_ns, max_ns of the node's
        operations, cpu_user and cpu_sys (s, the node's streams), and the
        node's page-cache figures: node_cache_bytes, node_cache_resident,
        node_cache_resident_fraction, node_cache_dirty_probed,
        node_cache_dirty, node_cache_dirty_fraction (as summary's)."""
        return frames.frame("nodes", self.runs, as_frame)

    def streams(self, as_frame: bool = True) -> Frame:
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
        return frames.frame("streams", self.runs, as_frame)

    def latency(self, hist: bool = False, per_node: bool = False, as_frame: bool = True) -> Frame:
        """latency_summary: one row per run, phase, repetition and op_kind
        (op: the phase's own operation, a transfer or a file; open, fsync,
        close) with count, sum_ns, min_ns, p50_ns, p90_ns, p99_ns, p999_ns,
        max_ns, mean_ns (NaN where count is 0). per_node=True: the op kind per
        node (node_latency_summary), with node and host. hist=True: the
        histograms in long form, one row per non-empty bucket: bucket,
        bucket_lo, bucket_hi (ns, inclusive; 2^64-1 for the last), count.
        Empty for files written before latencies were recorded."""
        return frames.frame(frames.latency_kind(hist, per_node), self.runs, as_frame)

    def timeline(self, as_frame: bool = True) -> Frame:
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
        return frames.frame("timeline", self.runs, as_frame)

    def exemplars(self, as_frame: bool = True) -> Frame:
        """The job's --exemplars slowest operations: one row per run, phase,
        repetition and operation, slowest first within each repetition:
        rank, host, thread, op (the phase's name for its own operations,
        else open, fsync or close), file (the stream whose data file; -1 the
        shared one; in a metadata phase the stream whose files, offset then
        the file's number), offset, length (bytes), target (the row of its
        repetition's targets; -1: none), target_name, start_s (relative to
        the run's start, as timeline's t_start_s) and duration_ns. Empty for
        files written before they were recorded and runs with --exemplars 0."""
        return frames.frame("exemplars", self.runs, as_frame)

    def targets(self, as_frame: bool = True) -> Frame:
        """A data phase's storage targets: one row per run, phase,
        repetition and target: target (its number in the repetition, as
        exemplars' target), name, bytes, ops, busy_s (its transfers'
        durations summed over the streams), bandwidth (bytes / busy_s),
        p50_ns, p99_ns, max_ns, p99_ratio and bandwidth_ratio (to the
        median target's) and slow (1: flagged by the stragglers' rule).
        Empty for files written before they were recorded."""
        return frames.frame("targets", self.runs, as_frame)

    def target_latency(self, as_frame: bool = True) -> Frame:
        """The histogram of each row of targets(): one row per run, phase,
        repetition, target and non-empty bucket: target (as targets'),
        name, bucket, bucket_lo and bucket_hi (the bucket's edges, ns, as
        hist()'s) and count (its transfers). Empty for files written
        before they were recorded."""
        return frames.frame("target_latency", self.runs, as_frame)

    def runs_frame(self, as_frame: bool = True) -> Frame:
        """One row per run: file (the path as opened), run, run_id, label,
        status, start_time and end_time (pandas Timestamps, UTC; ISO 8601
        text with as_frame=False), ranks, nodes, threads, streams, phases
        (the -p list), reps, warmup, api, mode, layout, order, transfer,
        block, total (bytes), files, depth, iodepth, direct, fsync,
        collective, random, dir, fs_type, fs_mount_point, host_rank0,
        pfsbench_version, git_revision, command_line and config (every
        resolved option, one key=value a line); NaN where the run lacks one."""
        return frames.frame("runs", self.runs, as_frame)

    def placement(self, as_frame: bool = True) -> Frame:
        """One row per run and rank: node, host, clock_correction,
        clock_uncertainty, reads_from_rank, reads_from_node, cpu_affinity,
        cpus, numa_nodes (NaN where not recorded)."""
        return frames.frame("placement", self.runs, as_frame)

    def ceilings(self, as_frame: bool = True) -> Frame:
        """--ceilings: one row per run and node (no rows for a run without
        it): node, host, memcpy_one_core and memcpy_all_cores (bytes/s, both
        copy directions together), network (bytes/s sent to the next node
        while receiving from the previous; NaN with one node), and the run's
        ceiling_memory and ceiling_network (the clients' ceilings: the sums
        over the nodes; network NaN with one node)."""
        return frames.frame("ceilings", self.runs, as_frame)

    def load(self, as_frame: bool = True) -> Frame:
        """--rate-sweep's latency-load curve: one row per run, data phase and
        repetition of a sweep (none for other runs): offered_rate (ops/s for
        the job, 0 for a closed-loop point), rate (achieved), rate_short,
        p50_ns, p99_ns, p999_ns (the response time's; a closed-loop point's
        from submission), and the phase's knee on each of its rows:
        knee_found, knee_rate (achieved ops/s where p99 crossed 2 x its
        lowest-load value knee_base_p99_ns; NaN without), knee_below_rep,
        knee_above_rep, knee_saturated_rep (-1: none); with --latency-target
        (whose points these are too) latency_target, target_rate (the largest
        offered rate that met it; NaN: none) and target_rep (-1: none)."""
        return frames.frame("load", self.runs, as_frame)


PathArg = Union[str, "os.PathLike[str]"]


@overload
def open(path: PathArg, *, warn: bool = ...) -> Results: ...  # noqa: A001, E704


@overload
def open(path: Union[List[PathArg], Tuple[PathArg, ...]], *more: PathArg,  # noqa: A001, E704
         warn: bool = ...) -> "ResultsSet": ...


@overload
def open(path: PathArg, second: PathArg, /, *more: PathArg, warn: bool = ...) -> "ResultsSet": ...  # noqa: A001, E704


def open(path: Union[PathArg, List[PathArg], Tuple[PathArg, ...]], *more: PathArg,  # noqa: A001  (as h5py.File)
         warn: bool = True) -> "Results | ResultsSet":
    """Opens a pfsbench results file read-only: a Results. Raises
    pfsbench.NotResultsFile for a path that is not one (or of a format
    version this reader does not know). A damaged run is left out of its
    runs, named in its problems and, unless warn is False, in a warning.

    Several files, as a list (open([a, b])) or as several paths (open(a,
    b)), give a ResultsSet: the same frames over every run of every file,
    each row with a first column, file, naming the file it came from."""
    if isinstance(path, (list, tuple)) or more:
        from .several import ResultsSet
        paths = (list(path) if isinstance(path, (list, tuple)) else [path]) + list(more)
        return ResultsSet(paths, warn)
    return Results(path, warn)
