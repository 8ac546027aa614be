"""Damaged runs: what a reader needs of a run group, checked before it is read.

A run group with a missing or unreadable attribute or dataset, an attribute
of the wrong type, or a dataset whose shape does not match the run's
repetitions, streams and nodes is damaged: every view leaves it out and
names it once, with what is wrong. Things a file of an older pfsbench lacks
(threads, streams, kind, ops, rate) are not damage.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

import h5py
import numpy as np

from .h5file import as_int, attr, why
from .text import display, plain, text

# (where, what is wrong): one damaged thing, as every view reports it.
Problem = Tuple[str, str]

# What every reader needs of a run group, in every version of the format.
REQUIRED_STR_ATTRS = ("run_id", "status")
# Optional; read as text, or as whole numbers, when present.
OPTIONAL_STR_ATTRS = ("start_time", "end_time", "label", "command_line", "dir", "fs_type", "error", "warnings",
                      "fs_mount_type", "fs_source", "fs_mount_point", "fs_options", "fs_layout")
# Options the tools read (pfs-compare's configurations and per-char rows,
# pfs-plot's titles, pfs-io500's rules), checked so that a hostile value is a
# damaged run, named, and not a crash in a tool: as text, whole numbers or
# real numbers.
OPTION_STR_ATTRS = ("config", "api", "mode", "layout", "phases", "dirs", "order", "hints")
OPTION_INT_ATTRS = ("transfer", "block", "total", "files", "file_size", "warmup", "fsync", "keep", "direct",
                    "drop_caches", "verify", "random", "reorder", "collective")
OPTION_NUM_ATTRS = ("straggler", "deadline")
# The columns of /summary the views read: those since the first format
# must be there; those added since (SUMMARY_LATER) are read when there.
# Every other column is shown under its own name, unchecked.
SUMMARY_FIELDS = ("run", "run_id", "label", "status", "phase", "rep", "ranks", "nodes", "transfer", "block",
                  "bytes", "seconds", "bandwidth", "utilization", "stonewall_bandwidth", "threads", "ops", "rate",
                  "warmup")
SUMMARY_LATER = ("threads", "ops", "rate", "warmup")
SUMMARY_REQUIRED = tuple(k for k in SUMMARY_FIELDS if k not in SUMMARY_LATER)
# The columns of /summary that hold text; every other column of SUMMARY_FIELDS holds a number.
SUMMARY_TEXT = ("run_id", "label", "status", "phase")
# Per-phase datasets and their shape, in repetitions (R), streams (S), nodes (N).
PHASE_SHAPES = (("times", "RS"), ("bandwidth", "R"), ("seconds", "R"), ("bytes", "R"), ("utilization", "R"),
                ("stonewall_bandwidth", "R"), ("ops", "R"), ("rate", "R"), ("stream_bandwidth", "RS"),
                ("node_bandwidth", "RN"), ("node_bytes", "RN"), ("node_seconds", "RN"), ("node_straggler", "RN"),
                ("node_rate", "RN"))


def _int_attr(obj: Any, name: str, out: List[str], required: bool = True, minimum: int = 0) -> Optional[int]:
    v, err = attr(obj, name)
    if err:
        if required or "missing" not in err:
            out.append(err)
        return None
    try:
        n = as_int(v)
    except ValueError as e:
        out.append("attribute '%s': %s" % (name, e))
        return None
    if n < minimum:
        out.append("attribute '%s' is %d, below %d" % (name, n, minimum))
        return None
    return n


def _num_attr(obj: Any, name: str, out: List[str]) -> None:
    """Appends what is wrong with optional attribute name of obj when it is
    there and not one real number (an int or a float, not a bool)."""
    v, err = attr(obj, name)
    if err:
        if "missing" not in err:
            out.append(err)
        return
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.reshape(())[()]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        out.append("attribute '%s': %s is not a number" % (name, display(repr(plain(v)))))


def _arrays(obj: Any, out: List[str]) -> Set[str]:
    """The names of obj's attributes that are arrays of other than one
    element (pfsbench writes every attribute of a run or phase group as one
    value), each appended to out; an attribute that cannot be read is left
    to the checks of the attributes a reader needs."""
    bad = set()
    for name in obj.attrs.keys():
        v, err = attr(obj, name)
        if err is None and isinstance(v, np.ndarray) and v.size != 1:
            out.append("attribute '%s' is an array of shape %s, where pfsbench writes one value" % (name, v.shape))
            bad.add(name)
    return bad


def _str_attr(obj: Any, name: str, out: List[str], required: bool = True) -> None:
    v, err = attr(obj, name)
    if err:
        if required or "missing" not in err:
            out.append(err)
        return
    if isinstance(v, np.ndarray) and v.shape != ():
        out.append("attribute '%s' is an array of shape %s, not text" % (name, v.shape))
    elif not isinstance(v, (str, bytes, np.bytes_, np.ndarray)):
        out.append("attribute '%s' is %r, not text" % (name, v))


def _dataset(grp: Any, name: str, out: List[str], required: bool = True,
             path: Optional[str] = None) -> Optional[h5py.Dataset]:
    """The dataset name in grp (an h5py.Dataset, not read), or None; path
    names it in messages (default: name)."""
    path = path or name
    try:
        if name not in grp:
            if required:
                out.append("dataset '%s' is missing" % path)
            return None
        d = grp[name]
    except Exception as e:
        out.append("'%s' cannot be opened (%s)" % (path, why(e)))
        return None
    if not isinstance(d, h5py.Dataset):
        out.append("'%s' is not a dataset" % path)
        return None
    return d


def _phase_reps(pg: Any, where: str, out: List[str]) -> Tuple[bool, Optional[int]]:
    """(readable, repetitions or None when the attribute is missing) of phase group pg."""
    reps, err = attr(pg, "repetitions")
    if err and "missing" not in err:
        out.append("%s: %s" % (where, err))
    try:
        return True, None if err else as_int(reps)
    except ValueError as e:
        out.append("%s: attribute 'repetitions': %s" % (where, e))
        return False, None


def _check_phase(pg: Any, pname: str, streams: Optional[int], ranks: int, nodes: int, out: List[str]) -> None:
    """Appends to out what is wrong with phase group pg (phases/pname)."""
    where = "phases/" + pname
    own: List[str] = []
    bad = _arrays(pg, own)
    for k in ("phase", "kind"):
        if k not in bad:
            _str_attr(pg, k, own, required=False)
    if "index" not in bad:
        _int_attr(pg, "index", own, required=False)
    out += ["%s: %s" % (where, x) for x in own]
    if "repetitions" in bad:
        return
    readable, reps = _phase_reps(pg, where, out)
    if not readable:
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
    _check_shapes(pg, where, {"R": reps, "S": width, "N": nodes}, out)


def _check_shapes(pg: Any, where: str, dims: Dict[str, int], out: List[str]) -> None:
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


def _check_attrs(g: Any, out: List[str]) -> Tuple[Optional[int], Optional[int], Optional[int]]:
    """Checks the run group's attributes; (ranks, nodes, streams), each None when not known."""
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
    if "reps" not in bad and text(attr(g, "reps")[0]) != "auto":  # --reps auto stores the word
        _int_attr(g, "reps", out, required=False)
    for k in ("fs_block_size",) + OPTION_INT_ATTRS:
        if k not in bad:
            _int_attr(g, k, out, required=False)
    for k in OPTION_NUM_ATTRS:
        if k not in bad:
            _num_attr(g, k, out)
    if streams is None and threads is not None and ranks is not None:
        streams = ranks * threads
    return ranks, nodes, streams


def check_run(g: Any) -> List[str]:
    """What is wrong with run group g, as a list of phrases (empty when the
    run reads): required attributes (run_id, status, ranks, nodes) missing,
    unreadable or of the wrong type; the placement (one row per rank) or the
    phases missing; a phase's times missing; a dataset whose shape does not
    match the run's repetitions, streams and nodes. Things a file written
    by an older pfsbench lacks (threads, streams, kind, ops, rate) are not
    problems."""
    out: List[str] = []
    try:
        if not isinstance(g, h5py.Group):
            return ["not a group"]
        ranks, nodes, streams = _check_attrs(g, out)
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
        out.append("cannot be read (%s)" % why(e))
    return out


def damaged(f: h5py.File, problems: List[Problem]) -> Set[int]:
    """The numbers of the damaged groups under /runs, each with what is
    wrong appended to problems (as is a group whose name is no number)."""
    bad: Set[int] = set()
    if "runs" not in f:
        return bad
    for name in sorted(f["runs"].keys()):
        try:
            num = int(name)
        except ValueError:
            problems.append(("/runs/%s" % name, "not a run (its name is not a number)"))
            continue
        what = check_run(f["runs"][name])
        if what:
            bad.add(num)
            problems.append(("run /runs/%s" % name, "; ".join(what)))
    return bad


def check_summary(data: np.ndarray[Any, Any]) -> Optional[str]:
    """What is wrong with the /summary table data (None when it reads):
    a column of SUMMARY_REQUIRED missing, not one row per record, or a
    column of SUMMARY_FIELDS of the wrong type (more than one value a row,
    a number for text or text for a number). Columns a view does not read
    are not looked at."""
    names: Sequence[str] = data.dtype.names or ()
    missing = [k for k in SUMMARY_REQUIRED if k not in names]
    if missing:
        return "it lacks the columns %s" % ", ".join(missing)
    if data.ndim != 1:
        return "it has shape %s, not one row per record" % (data.shape,)
    out = []
    for k in SUMMARY_FIELDS:
        if k not in names or data.dtype.fields is None:
            continue
        t = data.dtype.fields[k][0]
        is_text = k in SUMMARY_TEXT
        if t.shape != ():
            out.append("column '%s' holds arrays of shape %s, not one value a row" % (k, t.shape))
        elif is_text and t.kind not in "OSU":
            out.append("column '%s' is %s, not text" % (k, t))
        elif not is_text and t.kind not in "iuf":
            out.append("column '%s' is %s, not a number" % (k, t))
    return "; ".join(out) or None
