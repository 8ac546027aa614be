"""The results file as HDF5: its format check, its runs by number or id,
and attributes read without trusting them.

pfsbench.open() (reader.Results) is the only caller outside this package's
reader; the tools never open a results file themselves.
"""

from __future__ import annotations

import io
import os
from typing import Any, Optional, Tuple

import h5py
import numpy as np
import numpy.typing as npt

from .text import display, plain, text

FORMAT = "pfsbench-results"
VERSION = 1


class NotResultsFile(Exception):
    """The path is not a pfsbench results file this reader understands."""


class NoSuchRun(Exception):
    """The file has no run of that number or id."""


def why(e: BaseException) -> str:
    """An exception as 'Type: message' (or 'Type' when it has none)."""
    return "%s: %s" % (type(e).__name__, e) if str(e) else type(e).__name__


def attr(obj: Any, name: str) -> Tuple[Any, Optional[str]]:
    """(value, None) or (None, what is wrong) for attribute name of obj."""
    try:
        if name not in obj.attrs:
            return None, "attribute '%s' is missing" % name
        return obj.attrs[name], None
    except Exception as e:  # a garbled attribute can fail in HDF5, h5py or the decoder
        return None, "attribute '%s' cannot be read (%s)" % (name, why(e))


def as_int(v: Any) -> int:
    """v as an int when it is one whole number (a scalar, or a 1-element array)."""
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.reshape(())[()]
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise ValueError("%r is not a whole number" % (v,))
    return int(v)


def open_h5(path: str, view: Optional[io.RawIOBase] = None) -> h5py.File:
    """Opens path read-only as an h5py.File after checking it is a pfsbench
    results file of a version this reader knows. Raises NotResultsFile.
    view: the file's bytes to read instead (lock.JournalView)."""
    if view is not None:
        return _checked(h5py.File(view, "r"), path)
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
    return _checked(f, path)


def _checked(f: h5py.File, path: str) -> h5py.File:
    try:
        _check_format(f, path)
    except BaseException:
        f.close()
        raise
    return f


def _root_attr(f: h5py.File, name: str, path: str) -> Any:
    """Root attribute name of f, None when absent; NotResultsFile when it
    cannot be read or is an array (pfsbench writes each as one value)."""
    try:
        if name not in f.attrs:
            return None
        v = f.attrs[name]
    except Exception as e:  # a garbled attribute can fail in HDF5, h5py or the decoder
        raise NotResultsFile("'%s': its %s attribute cannot be read (%s), so it is not a pfsbench results file "
                             "this reader can trust" % (path, name, why(e)))
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
                             "not text)" % (path, display(repr(plain(fmt)))))
    fmt = text(fmt) if fmt is not None else None
    if fmt != FORMAT:
        raise NotResultsFile("'%s' is an HDF5 file but not a pfsbench results file (format attribute %s)"
                             % (path, "missing" if fmt is None else display(repr(fmt))))
    raw = _root_attr(f, "format_version", path)
    if raw is None:
        ver = 0
    else:
        try:
            ver = as_int(raw)
        except ValueError:
            raise NotResultsFile("'%s' has results format version %s, not a whole number; this reader knows "
                                 "versions 1..%d" % (path, display(repr(plain(raw))), VERSION))
    if ver < 1 or ver > VERSION:
        raise NotResultsFile("'%s' has results format version %d; this reader knows versions 1..%d"
                             % (path, ver, VERSION))


def find_run(f: h5py.File, which: object) -> h5py.Group:
    """The /runs group named by which: a number (1, "000001"), a path
    ("/runs/000001") or a run id. Raises NoSuchRun."""
    key = str(which).strip()
    runs_g = f["runs"] if "runs" in f else None
    if runs_g is None:
        raise NoSuchRun("the file holds no runs")
    if key.startswith("/runs/"):
        key = key[len("/runs/"):]
    if key.isdigit():
        name = "%06d" % int(key)
        if name in runs_g:
            return runs_g[name]
    for name in sorted(runs_g.keys()):
        v, err = attr(runs_g[name], "run_id")
        if err is None and text(v) == str(which).strip():
            return runs_g[name]
    raise NoSuchRun("no run '%s' in the file (it has %d: see --runs)" % (str(which).strip(), len(runs_g)))


def run_number(g: h5py.Group) -> int:
    """The number of run group g (/runs/000003: 3)."""
    return int(g.name.rsplit("/", 1)[1])


def interval_edges(tg: Any, pg: Any = None, rep: Optional[int] = None) -> Tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """(start, end): where each interval of the time-series group tg starts
    and ends, s since the epoch on rank 0's clock; an interval's rates are
    its bytes and ops over end - start. pfsbench stores them (the `start`
    and `end` datasets): the first interval starts at the phase's first
    open, the last ends at its last close, the others lie on the grid t0 +
    k x interval. A file from before has only the grid: its edges are
    clipped here to the phase's span, read from the phase group pg's times
    of repetition rep when given."""
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
