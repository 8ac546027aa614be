"""pfsbench.reader: the one loader of pfsbench HDF5 results files.

Every tool of the package (pfs-results, pfs-compare, pfs-plot, pfs-sweep)
and the DataFrame API of pfsbench.open() read results files through these
functions: open_results() checks the format and its version, check_run()
finds damaged runs, summary_rows(), runs(), raw_times(), raw_rows(),
latency_rows() and timeseries_rows() return plain dicts and numpy arrays.

Units everywhere in the returned data are the file's: bytes, seconds,
bytes/s and ops/s (files/s in a metadata phase: create, stat, read-files,
find, delete).  MiB = 2^20 bytes.  The schema is in docs/results-format.md.
Files written before threads and metadata phases existed read the same:
threads is then 1, and ops and rate are None.  Text is returned as str,
with each byte that is not UTF-8 as U+FFFD (lossless=True keeps such bytes
as surrogate escapes, as h5py returns them; display() shows them escaped).
Runs found damaged (check_run) are left out; each problem goes to the
problems list when one is given, else to stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata

import h5py
import numpy as np

from . import _paths

FORMAT = "pfsbench-results"
VERSION = 1
MIB = 1048576.0

SUMMARY_FIELDS = ("run", "run_id", "label", "status", "phase", "rep", "ranks", "nodes", "transfer", "block",
                  "bytes", "seconds", "bandwidth", "utilization", "stonewall_bandwidth", "threads", "ops", "rate",
                  "warmup")
# A phase's kind: "metadata" (judged by its rate in files/s) or "data" (it
# moves data and is judged by its bandwidth). It is taken from, first found:
#   1. the results file: the `kind` attribute pfsbench writes on each
#      /runs/NNNNNN/phases/II_NAME group (summary rows take their run's);
#   2. pfsbench itself: the "phases" of `pfsbench --list-options=json`, asked
#      once, only when the file does not say (see find_pfsbench for where);
#   3. "data": a phase group without the attribute was written before
#      metadata phases existed (they came with it).
KINDS = ("data", "metadata")
RUN_FIELDS = ("run", "name", "run_id", "status", "start_time", "end_time", "label", "ranks", "nodes",
              "command_line")
# The per-stream times' fields are not listed here: every reader takes them
# from the compound type the file holds (raw_times, raw_rows), so a field
# pfsbench adds is shown without a change here.
RAW_KEYS = ("phase", "rep", "stream", "rank", "thread", "node", "host")


class NotResultsFile(Exception):
    """The path is not a pfsbench results file this reader understands."""


class NoSuchRun(Exception):
    """The file has no run of that number or id."""


# ---- reading ----

def _text(v, lossless=False):
    """An HDF5 string (bytes, numpy bytes, str) as str. Bytes that are not
    UTF-8 become U+FFFD, or with lossless surrogate escapes (h5py gives
    attributes that way already), which display() shows as \\xNN."""
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).decode("utf-8", "surrogateescape" if lossless else "replace")
    if isinstance(v, np.ndarray) and v.shape == ():
        return _text(v[()], lossless)
    v = str(v)
    if not lossless and any("\udc80" <= c <= "\udcff" for c in v):
        return v.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return v


def _plain(v, lossless=False):
    """A numpy scalar as the Python number or str it holds."""
    if isinstance(v, (bytes, np.bytes_, str)):
        return _text(v, lossless)
    if isinstance(v, np.generic):
        return v.item()
    return v


# Code points that reorder or hide what a terminal shows, beyond the controls.
_FORMAT_UNSAFE = {0x2028, 0x2029} | set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))


def display(v):
    """Text for a terminal, as pfsbench's text report writes it: what a
    terminal would act on shown visibly (\\n \\t \\r, \\xNN below 0x80,
    \\uXXXX), a byte that is not UTF-8 as \\xNN (0x80..0xFF), a backslash
    as \\\\; printable text, accented and CJK included, unchanged."""
    out = []
    for c in v if isinstance(v, str) else _text(v, True):
        o = ord(c)
        if c == "\\":
            out.append("\\\\")
        elif 0xDC80 <= o <= 0xDCFF:  # a byte that was not UTF-8
            out.append("\\x%02x" % (o - 0xDC00))
        elif c in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[c])
        elif unicodedata.category(c) in ("Cc", "Cs") or o in _FORMAT_UNSAFE:
            out.append("\\x%02x" % o if o < 0x80 else "\\u%04x" % o)
        else:
            out.append(c)
    return "".join(out)


def clean(v):
    """Text with each byte that is not UTF-8 (a surrogate escape) as U+FFFD,
    for output that must be valid UTF-8 (CSV)."""
    return _text(v) if isinstance(v, (str, bytes, np.bytes_)) else v


def find_pfsbench():
    """pfsbench as pfsrun and pfs-sweep find it: $PFSBENCH, pfsbench on PATH,
    beside the tools (scripts/ of a checkout, or the bin/ they were
    installed into), their ../build/pfsbench; None when none is there."""
    p = os.environ.get("PFSBENCH")
    if p:
        return p if "/" in p else _which(p)
    q = _which("pfsbench")
    if q:
        return q
    for d in _paths.tool_dirs():
        for c in (os.path.join(d, "pfsbench"), os.path.join(d, "..", "build", "pfsbench")):
            if os.path.isfile(c) and os.access(c, os.X_OK):
                return os.path.realpath(c)
    return None


def _which(name):
    for d in os.environ.get("PATH", "").split(os.pathsep):
        q = os.path.join(d, name)
        if os.path.isfile(q) and os.access(q, os.X_OK):
            return q
    return None


_PFSBENCH_KINDS = None


def pfsbench_kinds():
    """{phase: kind} as pfsbench says it (the "phases" of its
    --list-options=json, started without mpirun); {} when no pfsbench is
    found or it does not answer. Asked once per process."""
    global _PFSBENCH_KINDS
    if _PFSBENCH_KINDS is None:
        _PFSBENCH_KINDS = {}
        binary = find_pfsbench()
        if binary:
            try:
                r = subprocess.run([binary, "--list-options=json"], stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, timeout=30,
                                   universal_newlines=True)
                if r.returncode == 0:
                    _PFSBENCH_KINDS = {str(p["name"]): str(p["kind"]) for p in json.loads(r.stdout)["phases"]
                                       if p.get("kind") in KINDS}
            except (OSError, subprocess.SubprocessError, ValueError, KeyError, TypeError):
                _PFSBENCH_KINDS = {}
    return _PFSBENCH_KINDS


def phase_kind(phase, kind=None):
    """"metadata" or "data" for phase: kind when the file gave one ("data"
    or "metadata"), else what pfsbench says, else "data" (a group without
    the attribute predates metadata phases)."""
    kind = _text(kind) if kind is not None else None
    if kind in KINDS:
        return kind
    name = _text(phase)
    k = pfsbench_kinds().get(name)
    if k in KINDS:
        return k
    return "data"


def is_metadata(phase, kind=None):
    """True for a metadata phase (create, stat, read-files, find, delete; mkdir,
    stat-dirs, rmdir in directories/s), whose figure is its rate in files/s
    rather than a bandwidth; kind: the kind
    the file gives the phase, when it does (see phase_kind)."""
    return phase_kind(phase, kind) == "metadata"


def _row_is_metadata(r):
    return is_metadata(r["phase"], r.get("kind"))


def _run_kinds(f, run):
    """{phase: kind} from the `kind` attributes of run's phase groups (only
    the phases whose group has one)."""
    out = {}
    try:
        g = f["runs"]["%06d" % run]
        if "phases" not in g:
            return out
        for pname in g["phases"].keys():
            pg = g["phases"][pname]
            if "kind" in pg.attrs:
                k = _text(pg.attrs["kind"])
                if k in KINDS:
                    out.setdefault(_text(pg.attrs.get("phase", pname.split("_", 1)[-1])), k)
    except Exception:  # a damaged group: its rows fall back to pfsbench's kinds
        pass
    return out


def open_results(path):
    """Opens path read-only as an h5py.File after checking it is a pfsbench
    results file of a version this reader knows. Raises NotResultsFile."""
    if not os.path.exists(path):
        raise NotResultsFile("'%s' does not exist" % path)
    if os.path.isdir(path):
        raise NotResultsFile("'%s' is a directory, not a pfsbench results file" % path)
    try:
        is_hdf5 = h5py.is_hdf5(path)
    except OSError as e:
        raise NotResultsFile("cannot read '%s': %s" % (path, e))
    if not is_hdf5:
        raise NotResultsFile("'%s' is not an HDF5 file, so not a pfsbench results file" % path)
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise NotResultsFile("cannot open '%s' with HDF5: %s" % (path, e))
    try:
        _check_format(f, path)
    except BaseException:
        f.close()
        raise
    return f


def _root_attr(f: h5py.File, name: str, path: str) -> object:
    """Root attribute name of f, None when absent; NotResultsFile when it
    cannot be read or is an array (pfsbench writes each as one value)."""
    try:
        if name not in f.attrs:
            return None
        v = f.attrs[name]
    except Exception as e:  # a garbled attribute can fail in HDF5, h5py or the decoder
        raise NotResultsFile("'%s': its %s attribute cannot be read (%s), so it is not a pfsbench results file "
                             "this reader can trust" % (path, name, _why(e)))
    if isinstance(v, np.ndarray) and v.shape != ():
        raise NotResultsFile("'%s': its %s attribute is an array of shape %s, where pfsbench writes one value, "
                             "so it is not a pfsbench results file" % (path, name, v.shape))
    return v


def _check_format(f: h5py.File, path: str) -> None:
    """Raises NotResultsFile unless f's root says format pfsbench-results
    (one string) and a format_version (one whole number) in 1..VERSION."""
    fmt = _root_attr(f, "format", path)
    if fmt is not None and not isinstance(fmt, (str, bytes, np.bytes_)):
        raise NotResultsFile("'%s' is an HDF5 file but not a pfsbench results file (format attribute %s, "
                             "not text)" % (path, display(repr(_plain(fmt)))))
    fmt = _text(fmt) if fmt is not None else None
    if fmt != FORMAT:
        raise NotResultsFile("'%s' is an HDF5 file but not a pfsbench results file (format attribute %s)"
                             % (path, "missing" if fmt is None else display(repr(fmt))))
    raw = _root_attr(f, "format_version", path)
    if raw is None:
        ver = 0
    else:
        try:
            ver = _as_int(raw)
        except ValueError:
            raise NotResultsFile("'%s' has results format version %s, not a whole number; this reader knows "
                                 "versions 1..%d" % (path, display(repr(_plain(raw))), VERSION))
    if ver < 1 or ver > VERSION:
        raise NotResultsFile("'%s' has results format version %d; this reader knows versions 1..%d"
                             % (path, ver, VERSION))


class _Opened:
    """Accepts a path or an open h5py.File; closes only what it opened."""

    def __init__(self, src):
        self.src = src
        self.f = None

    def __enter__(self):
        if isinstance(self.src, h5py.File):
            return self.src
        self.f = open_results(self.src)
        return self.f

    def __exit__(self, *exc):
        if self.f is not None:
            self.f.close()


# ---- damaged runs ----

# What every reader needs of a run group, in every version of the format.
REQUIRED_STR_ATTRS = ("run_id", "status")
REQUIRED_INT_ATTRS = ("ranks", "nodes")
# Optional; read as text, or as whole numbers, when present.
OPTIONAL_STR_ATTRS = ("start_time", "end_time", "label", "command_line", "dir", "fs_type", "error", "warnings",
                      "fs_mount_type", "fs_source", "fs_mount_point", "fs_options", "fs_layout")
OPTIONAL_INT_ATTRS = ("threads", "streams", "reps", "fs_block_size")
# Options the tools read (pfs-compare's configurations and per-char rows,
# pfs-plot's titles, pfs-io500's rules), checked so that a hostile value is a
# damaged run, named, and not a crash in a tool: as text, whole numbers or
# real numbers.
OPTION_STR_ATTRS = ("config", "api", "mode", "layout", "phases", "dirs", "order", "hints")
OPTION_INT_ATTRS = ("transfer", "block", "total", "files", "file_size", "warmup", "fsync", "keep", "direct",
                    "drop_caches", "verify", "random", "reorder", "collective")
OPTION_NUM_ATTRS = ("straggler", "deadline")
SUMMARY_REQUIRED = tuple(k for k in SUMMARY_FIELDS if k not in ("threads", "ops", "rate", "warmup"))
# The columns of /summary that hold text; every other column of SUMMARY_FIELDS holds a number.
SUMMARY_TEXT = ("run_id", "label", "status", "phase")
# Per-phase datasets and their shape, in repetitions (R), streams (S), nodes (N).
PHASE_SHAPES = (("times", "RS"), ("bandwidth", "R"), ("seconds", "R"), ("bytes", "R"), ("utilization", "R"),
                ("stonewall_bandwidth", "R"), ("ops", "R"), ("rate", "R"), ("stream_bandwidth", "RS"),
                ("node_bandwidth", "RN"), ("node_bytes", "RN"), ("node_seconds", "RN"), ("node_straggler", "RN"),
                ("node_rate", "RN"))


def _problem(problems, where, what):
    """One damaged thing: into the caller's list, or onto stderr."""
    if problems is None:
        sys.stderr.write("pfs-results: %s: %s; skipped\n" % (display(where), display(what)))
    else:
        problems.append((where, what))


def _attr(obj, name):
    """(value, None) or (None, what is wrong) for attribute name of obj."""
    try:
        if name not in obj.attrs:
            return None, "attribute '%s' is missing" % name
        return obj.attrs[name], None
    except Exception as e:  # a garbled attribute can fail in HDF5, h5py or the decoder
        return None, "attribute '%s' cannot be read (%s)" % (name, _why(e))


def _why(e):
    return "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__


def _as_int(v):
    """v as an int when it is one whole number (a scalar, or a 1-element array)."""
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.reshape(())[()]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise ValueError("%r is not a whole number" % (v,))
    return int(v)


def _int_attr(obj, name, problems_list, required=True, minimum=0):
    v, err = _attr(obj, name)
    if err:
        if required or "missing" not in err:
            problems_list.append(err)
        return None
    try:
        n = _as_int(v)
    except ValueError as e:
        problems_list.append("attribute '%s': %s" % (name, e))
        return None
    if n < minimum:
        problems_list.append("attribute '%s' is %d, below %d" % (name, n, minimum))
        return None
    return n


def _num_attr(obj, name: str, problems_list: list) -> None:
    """Appends what is wrong with optional attribute name of obj when it is
    there and not one real number (an int or a float, not a bool)."""
    v, err = _attr(obj, name)
    if err:
        if "missing" not in err:
            problems_list.append(err)
        return
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.reshape(())[()]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        problems_list.append("attribute '%s': %s is not a number" % (name, display(repr(_plain(v)))))


def _arrays(obj, problems_list: list) -> set:
    """The names of obj's attributes that are arrays of other than one
    element (pfsbench writes every attribute of a run or phase group as one
    value), each appended to problems_list; an attribute that cannot be read
    is left to the checks of the attributes a reader needs."""
    bad = set()
    for name in obj.attrs.keys():
        v, err = _attr(obj, name)
        if err is None and isinstance(v, np.ndarray) and v.size != 1:
            problems_list.append("attribute '%s' is an array of shape %s, where pfsbench writes one value"
                                 % (name, v.shape))
            bad.add(name)
    return bad


def _str_attr(obj, name, problems_list, required=True):
    v, err = _attr(obj, name)
    if err:
        if required or "missing" not in err:
            problems_list.append(err)
        return
    if isinstance(v, np.ndarray) and v.shape != ():
        problems_list.append("attribute '%s' is an array of shape %s, not text" % (name, v.shape))
    elif not isinstance(v, (str, bytes, np.bytes_, np.ndarray)):
        problems_list.append("attribute '%s' is %r, not text" % (name, v))


def _dataset(grp, name, problems_list, required=True, path=None):
    """The dataset name in grp (an h5py.Dataset, not read), or None; path
    names it in messages (default: name)."""
    path = path or name
    try:
        if name not in grp:
            if required:
                problems_list.append("dataset '%s' is missing" % path)
            return None
        d = grp[name]
    except Exception as e:
        problems_list.append("'%s' cannot be opened (%s)" % (path, _why(e)))
        return None
    if not isinstance(d, h5py.Dataset):
        problems_list.append("'%s' is not a dataset" % path)
        return None
    return d


def _check_phase(pg, pname, streams, ranks, nodes, out):
    """Appends to out what is wrong with phase group pg (phases/pname)."""
    where = "phases/" + pname
    own = []
    bad = _arrays(pg, own)
    for k in ("phase", "kind"):
        if k not in bad:
            _str_attr(pg, k, own, required=False)
    if "index" not in bad:
        _int_attr(pg, "index", own, required=False)
    out += ["%s: %s" % (where, x) for x in own]
    if "repetitions" in bad:
        return
    reps, err = _attr(pg, "repetitions")
    if err and "missing" not in err:
        out.append("%s: %s" % (where, err))
    try:
        reps = None if err else _as_int(reps)
    except ValueError as e:
        out.append("%s: attribute 'repetitions': %s" % (where, e))
        return
    # A phase that recorded no repetition (a failed or interrupted run) has
    # no datasets at all.
    times = _dataset(pg, "times", out, required=reps != 0, path=where + "/times")
    if times is None:
        return
    if reps is None:
        reps = times.shape[0] if len(times.shape) == 2 else -1
    # A file written before the streams attribute: any multiple of the ranks.
    width = streams if streams is not None else (times.shape[1] if len(times.shape) == 2 and ranks
                                                 and times.shape[1] % ranks == 0 else ranks)
    dims = {"R": reps, "S": width, "N": nodes}
    for name, shape in PHASE_SHAPES:
        d = _dataset(pg, name, out, required=False, path="%s/%s" % (where, name))
        if d is None:
            continue
        want = tuple(dims[c] for c in shape)
        if d.shape != want:
            out.append("dataset '%s/%s' has shape %s where %s was expected" % (where, name, d.shape, want))
        elif name == "times" and (d.dtype.names is None or not {"open_start", "close_end", "bytes"}
                                  <= set(d.dtype.names)):
            out.append("dataset '%s/times' lacks the fields open_start, close_end and bytes" % where)


def check_run(g):
    """What is wrong with run group g, as a list of phrases (empty when the
    run reads): required attributes (run_id, status, ranks, nodes) missing,
    unreadable or of the wrong type; the placement (one row per rank) or the
    phases missing; a phase's times missing; a dataset whose shape does not
    match the run's repetitions, streams and nodes. Things a file written
    by an older pfsbench lacks (threads, streams, kind, ops, rate) are not
    problems."""
    out = []
    try:
        if not isinstance(g, h5py.Group):
            return ["not a group"]
        bad = _arrays(g, out)  # each named once, here; the checks below skip them
        for k in REQUIRED_STR_ATTRS:
            if k not in bad:
                _str_attr(g, k, out)
        for k in OPTIONAL_STR_ATTRS + OPTION_STR_ATTRS:
            if k not in bad:
                _str_attr(g, k, out, required=False)
        ranks = _int_attr(g, "ranks", out, minimum=1) if "ranks" not in bad else None
        nodes = _int_attr(g, "nodes", out, minimum=1) if "nodes" not in bad else None
        threads = _int_attr(g, "threads", out, required=False, minimum=1) if "threads" not in bad else None
        streams = _int_attr(g, "streams", out, required=False, minimum=1) if "streams" not in bad else None
        if "reps" not in bad and _text(_attr(g, "reps")[0]) != "auto":  # --reps auto stores the word
            _int_attr(g, "reps", out, required=False)
        for k in ("fs_block_size",) + OPTION_INT_ATTRS:
            if k not in bad:
                _int_attr(g, k, out, required=False)
        for k in OPTION_NUM_ATTRS:
            if k not in bad:
                _num_attr(g, k, out)
        if streams is None and threads is not None and ranks is not None:
            streams = ranks * threads
        pl = _dataset(g, "placement", out)
        if pl is not None and ranks is not None:
            if pl.shape != (ranks,):
                out.append("dataset 'placement' has shape %s where (%d,) was expected" % (pl.shape, ranks))
            elif pl.dtype.names is None or not {"node", "host"} <= set(pl.dtype.names):
                out.append("dataset 'placement' lacks the fields node and host")
        if "phases" not in g or not isinstance(g["phases"], h5py.Group):
            out.append("group 'phases' is missing")
        elif ranks is not None and nodes is not None:
            for pname in sorted(g["phases"].keys()):
                _check_phase(g["phases"][pname], pname, streams, ranks, nodes, out)
    except Exception as e:  # a file damaged below h5py's checks
        out.append("cannot be read (%s)" % _why(e))
    return out


def _damaged(f, problems):
    """{run number: problems} for every damaged group under /runs, each
    reported once."""
    bad = {}
    if "runs" not in f:
        return bad
    for name in sorted(f["runs"].keys()):
        try:
            num = int(name)
        except ValueError:
            _problem(problems, "/runs/%s" % name, "not a run (its name is not a number)")
            continue
        what = check_run(f["runs"][name])
        if what:
            bad[num] = what
            _problem(problems, "run /runs/%s" % name, "; ".join(what))
    return bad


def _run_numbers(f):
    try:
        return {int(n) for n in f["runs"].keys() if n.isdigit()} if "runs" in f else set()
    except Exception:
        return set()


def _summary_types(dtype: np.dtype) -> list:
    """What is wrong with the types of /summary's columns that the readers
    use (SUMMARY_FIELDS): one value a row, text in SUMMARY_TEXT, a number
    in the others. Columns a reader does not know are not looked at."""
    out = []
    for k in SUMMARY_FIELDS:
        if k not in dtype.names:
            continue
        t = dtype.fields[k][0]
        text = k in SUMMARY_TEXT
        if t.shape != ():
            out.append("column '%s' holds arrays of shape %s, not one value a row" % (k, t.shape))
        elif text and t.kind not in "OSU":
            out.append("column '%s' is %s, not text" % (k, t))
        elif not text and t.kind not in "iuf":
            out.append("column '%s' is %s, not a number" % (k, t))
    return out


def summary_rows(src, lossless=False, problems=None):
    """The /summary table as a list of dicts (keys SUMMARY_FIELDS plus
    bandwidth_mib: bandwidth in MiB/s, stonewall_bandwidth_mib, streams:
    ranks x threads, kind: "data" or "metadata"). Base units: bytes, s,
    bytes/s; rate in ops/s (files/s for a metadata phase). warmup is 1 for a
    warm-up repetition (--warmup: stored, left out of the statistics; from the
    run's warmup attribute where the table, appended to a file made before
    the field, lacks it). In a file written before these columns existed,
    threads is 1, ops and rate are None and warmup is 0.
    Rows of damaged runs, or of runs without a group, are left out."""
    with _Opened(src) as f:
        if "summary" not in f:
            return []
        bad = _damaged(f, problems)
        known = _run_numbers(f)
        try:
            data = f["summary"][()]
            names = data.dtype.names or ()
            missing = [k for k in SUMMARY_REQUIRED if k not in names]
            if data.ndim != 1 or missing:
                raise ValueError("it lacks the columns %s" % ", ".join(missing) if missing
                                 else "it has shape %s, not one row per record" % (data.shape,))
            wrong = _summary_types(data.dtype)
            if wrong:
                raise ValueError("; ".join(wrong))
        except Exception as e:
            _problem(problems, "/summary", "cannot be read (%s)" % _why(e))
            return []
        rows, orphans, kinds, warm = [], set(), {}, {}
        for i, rec in enumerate(data):
            try:
                row = {k: _plain(rec[k], lossless) for k in names}
                run = _as_int(row["run"])
                if run in bad:
                    continue
                if run not in known:
                    orphans.add(run)
                    continue
                row["bandwidth_mib"] = row["bandwidth"] / MIB
                row["stonewall_bandwidth_mib"] = row["stonewall_bandwidth"] / MIB
                row.setdefault("threads", 1)
                row.setdefault("ops", None)
                row.setdefault("rate", None)
                if "warmup" not in row:  # a table from before the field: the run's own attribute says
                    if run not in warm:
                        warm[run] = _as_int(f["runs"]["%06d" % run].attrs.get("warmup", 0))
                    row["warmup"] = int(_as_int(row["rep"]) < warm[run])
                row["streams"] = row["ranks"] * row["threads"]
                if run not in kinds:
                    kinds[run] = _run_kinds(f, run)
                row["kind"] = phase_kind(row["phase"], kinds[run].get(_text(row["phase"])))
            except Exception as e:
                _problem(problems, "/summary row %d" % i, "cannot be read (%s)" % _why(e))
                continue
            rows.append(row)
        for run in sorted(orphans):
            _problem(problems, "run /runs/%06d" % run, "summary rows but no group /runs/%06d" % run)
        return rows


def runs(src, lossless=False, problems=None):
    """One dict per /runs group, in order: RUN_FIELDS plus every other
    attribute of the group under its own name. Damaged runs are left out."""
    out = []
    with _Opened(src) as f:
        if "runs" not in f:
            return out
        bad = _damaged(f, problems)
        for name in sorted(f["runs"].keys()):
            if not name.isdigit() or int(name) in bad:
                continue
            g = f["runs"][name]
            d = {}
            for k in g.attrs.keys():
                v, err = _attr(g, k)
                if err is None:  # an optional attribute that cannot be read is only left out
                    d[k] = _plain(v, lossless)
            d["run"] = int(name)
            d["name"] = g.name
            out.append(d)
    return out


def find_run(f, which):
    """The /runs group named by which: a number (1, "000001"), a path
    ("/runs/000001") or a run id. Raises NoSuchRun."""
    which = str(which).strip()
    runs_g = f["runs"] if "runs" in f else None
    if runs_g is None:
        raise NoSuchRun("the file holds no runs")
    key = which[len("/runs/"):] if which.startswith("/runs/") else which
    if key.isdigit():
        name = "%06d" % int(key)
        if name in runs_g:
            return runs_g[name]
    for name in sorted(runs_g.keys()):
        v, err = _attr(runs_g[name], "run_id")
        if err is None and _text(v) == which:
            return runs_g[name]
    raise NoSuchRun("no run '%s' in the file (it has %d: see --runs)" % (which, len(runs_g)))


def _threads_of(g, placement, times=None):
    """Threads per rank of run group g: its `threads` attribute, or (a file
    written before threads existed) 1, or what the times' width says."""
    if "threads" in g.attrs:
        return max(1, int(g.attrs["threads"]))
    if times is not None and placement is not None and len(placement) > 0 and times.ndim == 2 \
            and times.shape[1] % len(placement) == 0:
        return max(1, times.shape[1] // len(placement))
    return 1


def raw_times(src, which, lossless=False, problems=None):
    """The raw per-stream times of one run: a list of dicts, one per phase,
    with phase, index, repetitions, kind ("data" or "metadata"), times
    (structured array [rep][stream], the fields the file's compound type
    has, s on rank 0's clock / bytes / counts; stream = rank x threads +
    thread, so with one thread per rank the column is the rank), units (the
    times dataset's own units attribute, "" when it has none), bandwidth
    (bytes/s per rep), ops and
    rate (per rep, ops/s: files/s in a metadata phase; None in files written
    before they existed), placement (structured array, one row per rank),
    threads (per rank) and streams (ranks x threads). A damaged run gives
    an empty list (and its problems)."""
    with _Opened(src) as f:
        g = find_run(f, which)
        what = check_run(g)
        if what:
            _problem(problems, "run %s" % g.name, "; ".join(what))
            return []
        placement = g["placement"][()] if "placement" in g else None
        out = []
        if "phases" not in g:
            return out
        for pname in sorted(g["phases"].keys()):
            pg = g["phases"][pname]
            phase = _text(pg.attrs.get("phase", pname.split("_", 1)[-1]), lossless)
            times = pg["times"][()] if "times" in pg else None
            threads = _threads_of(g, placement, times)
            ranks = int(g.attrs["ranks"]) if "ranks" in g.attrs else (len(placement) if placement is not None else 0)
            d = {
                "group": pg.name,
                "phase": phase,
                "index": int(pg.attrs.get("index", -1)),
                "repetitions": int(pg.attrs.get("repetitions", 0)),
                "times": times,
                "units": _text(pg["times"].attrs.get("units", ""), lossless) if "times" in pg else "",
                "bandwidth": pg["bandwidth"][()] if "bandwidth" in pg else None,
                "placement": placement,
                "kind": phase_kind(phase, pg.attrs["kind"] if "kind" in pg.attrs else None),
                "ops": pg["ops"][()] if "ops" in pg else None,
                "rate": pg["rate"][()] if "rate" in pg else None,
                "threads": threads,
                "streams": int(g.attrs["streams"]) if "streams" in g.attrs else ranks * threads,
            }
            out.append(d)
        return out


def raw_rows(src, which, lossless=False, problems=None):
    """raw_times flattened: one dict per phase, repetition and stream, with
    the keys RAW_KEYS (stream, and the rank (stream // threads) and thread
    (stream % threads) it belongs to, that rank's node and host; with one
    thread per rank, stream = rank and thread = 0), then every field of the
    file's times, under the field's own name, in the file's order."""
    rows = []
    for ph in raw_times(src, which, lossless, problems):
        rows += phase_raw_rows(ph, lossless)
    return rows


def phase_raw_rows(ph: dict, lossless: bool = False) -> list:
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
                   "host": _text(pl["host"][rank], lossless) if known else ""}
            rec = t[rep, stream]
            for k in fields:
                row[k] = _plain(rec[k], lossless)
            rows.append(row)
    return rows


# ---- latency, CPU and time series (files written before them have none) ----

LAT_KINDS = ("op", "open", "fsync", "close")
TS_FIELDS = ("run", "phase", "rep", "interval", "t_start_s", "t_end_s", "node", "bytes", "ops", "p50_ns", "p99_ns",
             "max_ns")


def ts_edges(tg, pg=None, rep=None):
    """(start, end): numpy arrays of where each interval of the time-series
    group tg starts and ends, s since the epoch on rank 0's clock; an
    interval's rates are its bytes and ops over end - start. pfsbench stores
    them (the `start` and `end` datasets): the first interval starts at the
    phase's first open, the last ends at its last close, the others lie on
    the grid t0 + k x interval. A file from before has only the grid: its
    edges are clipped here to the phase's span, read from the phase group
    pg's times of repetition rep when given (the last interval then ends
    at the phase's end, not the grid's)."""
    if "start" in tg and "end" in tg:
        return tg["start"][()].astype(float), tg["end"][()].astype(float)
    n = tg["bytes"].shape[0] if "bytes" in tg else 0
    t0, dt = float(tg.attrs["t0"]), float(tg.attrs["interval"])
    start = t0 + np.arange(n) * dt
    end = start + dt
    if n and pg is not None and rep is not None and "times" in pg and rep < pg["times"].shape[0]:
        t = pg["times"][rep]
        opened, closed = t["open_start"][t["open_start"] > 0], t["close_end"][t["close_end"] > 0]
        if opened.size and closed.size:
            lo, hi = float(opened.min()), float(closed.max())
            start, end = np.clip(start, lo, hi), np.clip(end, lo, hi)
            start[0], end[-1] = lo, max(hi, lo)
    return start, end


def _run_groups(f, which, problems):
    """(number, group) of every readable run, or of run `which` only."""
    if which is not None:
        g = find_run(f, which)
        what = check_run(g)
        if what:
            _problem(problems, "run %s" % g.name, "; ".join(what))
            return []
        return [(int(g.name.rsplit("/", 1)[1]), g)]
    bad = _damaged(f, problems)
    return [(int(n), f["runs"][n]) for n in sorted(f["runs"].keys()) if n.isdigit() and int(n) not in bad] \
        if "runs" in f else []


def _cpu_of(g, pg, rep, seconds):
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
    streams = int(g.attrs["streams"]) if "streams" in g.attrs else pg["times"].shape[1]
    pct = (u + s) / (seconds * streams) * 100.0 if seconds > 0 and streams > 0 else 0.0
    return u, s, pct


def latency_rows(src, which=None, lossless=False, problems=None):
    """One dict per run, phase and repetition: run, phase, rep, kind, ops,
    seconds, iops (ops/s), cpu_user_s, cpu_sys_s, cpu_percent, and per kind
    of LAT_KINDS (op: the phase's own operation) <kind>_count, _min_ns,
    _p50_ns, _p90_ns, _p99_ns, _p999_ns, _max_ns, _mean_ns. The latency
    keys are None for a phase (or a file) that recorded none, the CPU keys
    for a file written before CPU was recorded."""
    rows = []
    with _Opened(src) as f:
        for num, g in _run_groups(f, which, problems):
            if "phases" not in g:
                continue
            for pname in sorted(g["phases"].keys()):
                pg = g["phases"][pname]
                phase = _text(pg.attrs.get("phase", pname.split("_", 1)[-1]), lossless)
                reps = int(pg.attrs.get("repetitions", 0))
                summ = pg["latency_summary"][()] if "latency_summary" in pg else None
                for rep in range(reps):
                    seconds = float(pg["seconds"][rep]) if "seconds" in pg else 0.0
                    ops = int(pg["ops"][rep]) if "ops" in pg else None
                    r = {"run": num, "phase": phase, "rep": rep,
                         "kind": phase_kind(phase, pg.attrs["kind"] if "kind" in pg.attrs else None),
                         "ops": ops, "seconds": seconds,
                         "iops": ops / seconds if ops is not None and seconds > 0 else None}
                    r["cpu_user_s"], r["cpu_sys_s"], r["cpu_percent"] = _cpu_of(g, pg, rep, seconds)
                    for k, kind in enumerate(LAT_KINDS):
                        for fld in ("count", "min_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns", "mean_ns"):
                            r["%s_%s" % (kind, fld)] = _plain(summ[rep, k][fld]) if summ is not None else None
                    rows.append(r)
    return rows


def timeseries_rows(src, which=None, problems=None):
    """The time series, one dict per run, phase, repetition, interval and
    node (keys TS_FIELDS; t_start_s and t_end_s where the interval starts
    and ends (ts_edges), on rank 0's clock, s since the epoch; latencies in
    ns, 0 where the node completed nothing). Nothing for files written
    before the time series was recorded."""
    with _Opened(src) as f:
        for num, g in _run_groups(f, which, problems):
            for pname in sorted(g["phases"].keys()) if "phases" in g else ():
                pg = g["phases"][pname]
                if "timeseries" not in pg:
                    continue
                phase = _text(pg.attrs.get("phase", pname.split("_", 1)[-1]))
                for rname in sorted(k for k in pg["timeseries"].keys() if k.startswith("rep_")):
                    tg = pg["timeseries"][rname]
                    cols = {k: tg[k][()] for k in ("bytes", "ops", "p50_ns", "p99_ns", "max_ns")}
                    n, nodes = cols["bytes"].shape if cols["bytes"].ndim == 2 else (0, 0)
                    start, end = ts_edges(tg, pg, int(rname[4:]))
                    for i in range(n):
                        for node in range(nodes):
                            yield {"run": num, "phase": phase, "rep": int(rname[4:]), "interval": i,
                                   "t_start_s": float(start[i]), "t_end_s": float(end[i]), "node": node,
                                   "bytes": int(cols["bytes"][i, node]), "ops": int(cols["ops"][i, node]),
                                   "p50_ns": float(cols["p50_ns"][i, node]),
                                   "p99_ns": float(cols["p99_ns"][i, node]),
                                   "max_ns": float(cols["max_ns"][i, node])}
