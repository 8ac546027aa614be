#!/usr/bin/python3
"""A corpus of results files edited with h5py, as a careful adversary or an
unlucky user would (issue 25, items 4 and 5), for test_results_hostile.sh.

    hostile_results.py make BASE OUTDIR
    hostile_results.py appended FILE BEFORE NAME

make: BASE is a real results file holding runs 000001 and 000002. Each
case is a copy of it, edited, written as OUTDIR/CASE.h5; one line per case
goes to stdout: CASE, a tab, what pfsbench must do with it, a tab, WORDS:

    refuse   exit 2 before any I/O, the message holding WORDS
    append   the run appended as WORDS (e.g. /runs/000003)

appended: exit 0 when FILE is BEFORE with run NAME appended: its group
complete, BEFORE's /summary rows unchanged, then NAME's, numbered as it.
"""
import shutil
import sys
from typing import Any, Callable, Dict, List, Optional, Tuple

import h5py
import numpy as np

VSTR = h5py.string_dtype("utf-8")
ASCII_VSTR = h5py.string_dtype("ascii")

Edit = Callable[[h5py.File], None]
TEXT = ("run_id", "label", "status", "phase")


def field_type(dtype: "np.dtype[Any]", name: str) -> "np.dtype[Any]":
    fields = dtype.fields
    assert fields is not None, dtype
    return fields[name][0]


def rewrite_summary(f: h5py.File, dtype: "Optional[np.dtype[Any]]" = None, **create: object) -> None:
    """/summary again with the same rows, created with the given options
    (e.g. contiguous: no chunks, no maxshape) and perhaps another type."""
    rows = f["summary"][()]
    del f["summary"]
    if dtype is not None:
        new = np.zeros(rows.shape, dtype=dtype)
        for name in dtype.names or ():
            if name not in (rows.dtype.names or ()):
                pass  # a new field: zero
            elif field_type(dtype, name) == field_type(rows.dtype, name):
                new[name] = rows[name]
            elif field_type(dtype, name).kind == "O":  # text now: the old values as text
                new[name] = [str(x) for x in rows[name]]
            # else: a field changed to a type its old values do not fit stays zero
        rows = new
    f.create_dataset("summary", data=rows, **create)


def reshape_summary(drop: Tuple[str, ...] = (), extra: "List[Tuple[str, np.dtype[Any]]]" = []) -> Edit:
    """/summary without the fields drop, with the fields extra at its end."""
    def edit(f: h5py.File) -> None:
        old = f["summary"].dtype
        fields = [(n, field_type(old, n)) for n in old.names if n not in drop] + extra
        rewrite_summary(f, np.dtype(fields), chunks=(2,), maxshape=(None,))
    return edit


def summary_field_as(name: str, new: "np.dtype[Any] | str") -> Edit:
    def edit(f: h5py.File) -> None:
        old = f["summary"].dtype
        fields = [(n, (new if n == name else field_type(old, n))) for n in old.names]
        rewrite_summary(f, np.dtype(fields), chunks=(2,), maxshape=(None,))
    return edit


def fixed_strings(f: h5py.File) -> None:
    """All four text fields fixed-length (as an older pfsbench wrote): appendable."""
    old = f["summary"].dtype
    text = {"run_id": "S64", "label": "S128", "status": "S16", "phase": "S16"}
    fields = [(n, text.get(n, field_type(old, n))) for n in old.names]
    rows = f["summary"][()]
    new = np.zeros(rows.shape, dtype=np.dtype(fields))
    for n in old.names:
        new[n] = [x if isinstance(x, bytes) else str(x).encode() for x in rows[n]] if n in text else rows[n]
    del f["summary"]
    f.create_dataset("summary", data=new, chunks=(2,), maxshape=(None,))


def set_attr(name: str, value: object, dtype: object = None) -> Edit:
    def edit(f: h5py.File) -> None:
        del f.attrs[name]
        if dtype is None:
            f.attrs[name] = value
        else:
            f.attrs.create(name, value, dtype=dtype)
    return edit


def delete(path: str) -> Edit:
    def edit(f: h5py.File) -> None:
        del f[path]
    return edit


def sequence(*edits: Edit) -> Edit:
    def edit(f: h5py.File) -> None:
        for e in edits:
            e(f)
    return edit


def replace(path: str, make: Callable[[h5py.File, str], object]) -> Edit:
    """path deleted, then made again by make(f, path)."""
    def edit(f: h5py.File) -> None:
        del f[path]
        make(f, path)
    return edit


def add(path: str, make: Callable[[h5py.File, str], object]) -> Edit:
    def edit(f: h5py.File) -> None:
        make(f, path)
    return edit


def array(f: h5py.File, path: str) -> None:
    f[path] = np.arange(3)


def group(f: h5py.File, path: str) -> None:
    f.create_group(path)


def soft_link(target: str) -> Callable[[h5py.File, str], None]:
    def make(f: h5py.File, path: str) -> None:
        f[path] = h5py.SoftLink(target)
    return make


def external(f: h5py.File, path: str) -> None:
    f[path] = h5py.ExternalLink("elsewhere.h5", path)


def move(path: str, to: str) -> Edit:
    def edit(f: h5py.File) -> None:
        f.move(path, to)
    return edit


def grid(f: h5py.File, path: str) -> None:
    f[path] = np.zeros((2, 2))


def growing_ints(f: h5py.File, path: str) -> None:
    f.create_dataset(path, shape=(0,), maxshape=(None,), dtype="i4")


def delete_attr(name: str) -> Edit:
    def edit(f: h5py.File) -> None:
        del f.attrs[name]
    return edit


def summary_run_at(value: int) -> Edit:
    def edit(f: h5py.File) -> None:
        rows = f["summary"][()]
        rows["run"][-1] = value
        f["summary"][...] = rows
    return edit


# (case, edit, verdict, words): the words the message must hold.
CASES: List[Tuple[str, Edit, str, str]] = [
    # Item 5: attributes of the wrong shape or type, read today into a buffer for one.
    ("format-array", set_attr("format", ["pfsbench-results"] * 3, VSTR), "refuse", "attribute 'format'"),
    ("format-fixed-array", set_attr("format", np.array([b"pfsbench-results"] * 3, dtype="S16")), "refuse",
     "attribute 'format'"),
    ("format-int", set_attr("format", 7), "refuse", "attribute 'format'"),
    ("format-empty", set_attr("format", h5py.Empty("S16")), "refuse", "attribute 'format'"),
    ("version-array", set_attr("format_version", np.array([1, 1, 1], dtype=np.int64)), "refuse",
     "attribute 'format_version'"),
    ("version-2d", set_attr("format_version", np.ones((2, 2), dtype=np.int64)), "refuse",
     "attribute 'format_version'"),
    ("version-string", set_attr("format_version", "1", VSTR), "refuse", "attribute 'format_version'"),
    ("version-float", set_attr("format_version", 1.0), "refuse", "attribute 'format_version'"),
    ("version-empty", set_attr("format_version", h5py.Empty("i8")), "refuse", "attribute 'format_version'"),
    ("version-missing", delete_attr("format_version"), "refuse",
     "no attribute 'format_version'"),
    ("version-future", set_attr("format_version", 99), "refuse", "version 99"),
    # Item 4: what made the append fail after the benchmark.
    ("summary-contiguous", rewrite_summary, "refuse", "contiguous"),
    ("summary-fixed-size", lambda f: rewrite_summary(f, chunks=(2,)), "refuse", "cannot grow"),
    ("summary-2d", replace("summary", grid), "refuse", "/summary"),
    ("summary-group", replace("summary", group), "refuse", "/summary"),
    ("summary-not-compound", replace("summary", growing_ints), "refuse", "/summary"),
    ("summary-bandwidth-text", summary_field_as("bandwidth", VSTR), "refuse", "'bandwidth'"),
    ("summary-label-int", summary_field_as("label", "i4"), "refuse", "'label'"),
    ("summary-run-uint8", summary_field_as("run", "u1"), "refuse",
     "field 'run' of its /summary holds 8-bit unsigned integers"),
    ("summary-bytes-int32", summary_field_as("bytes", "i4"), "refuse",
     "field 'bytes' of its /summary holds 32-bit integers"),
    ("summary-rep-float64", summary_field_as("rep", "f8"), "append", "/runs/000003"),
    ("summary-mixed-strings", summary_field_as("label", "S128"), "refuse", "'label'"),
    ("summary-lzf", lambda f: rewrite_summary(f, chunks=(2,), maxshape=(None,), compression="lzf"), "refuse",
     "filter"),
    ("summary-softlink", replace("summary", soft_link("/runs/000001/placement")), "refuse", "/summary"),
    ("summary-run-max", summary_run_at(2**31 - 1), "refuse", "run number"),
    ("runs-dataset", replace("runs", array), "refuse", "/runs"),
    ("runs-external", replace("runs", external), "refuse", "/runs is an external link"),
    ("runs-dangling", replace("runs", soft_link("/gone")), "refuse", "/runs is a soft link to nothing"),
    ("summary-external", replace("summary", external), "refuse", "/summary is an external link"),
    # Still appendable: the next run is the largest number in use + 1.
    ("run-deleted", delete("runs/000001"), "append", "/runs/000003"),
    ("runs-foreign-name", add("runs/notes", group), "append", "/runs/000003"),
    ("runs-member-dataset", add("runs/000007", array), "append", "/runs/000008"),
    ("runs-softlink", sequence(move("runs", "runs_moved"), add("runs", soft_link("/runs_moved"))), "append",
     "/runs/000003"),
    ("runs-member-softlink", add("runs/000009", soft_link("/runs/000001")), "append", "/runs/000010"),
    ("last-run-deleted", delete("runs/000002"), "append", "/runs/000003"),
    ("summary-deleted", delete("summary"), "append", "/runs/000003"),
    ("summary-fixed-strings", fixed_strings, "append", "/runs/000003"),
    ("summary-ascii-strings", sequence(*(summary_field_as(n, ASCII_VSTR) for n in TEXT)), "append", "/runs/000003"),
    ("summary-extra-field", reshape_summary(extra=[("note", np.dtype("f8"))]), "append", "/runs/000003"),
    ("summary-fewer-fields", reshape_summary(drop=("ops", "rate", "warmup")), "append", "/runs/000003"),
    ("summary-odd-rows", lambda f: rewrite_summary(f, chunks=(3,), maxshape=(None,)), "append", "/runs/000003"),
    ("version-int32", set_attr("format_version", np.int32(1)), "append", "/runs/000003"),
    ("format-ascii", set_attr("format", "pfsbench-results", ASCII_VSTR), "append", "/runs/000003"),
]


def repair(f: h5py.File) -> None:
    """The repair docs/results-format.md gives, word for word."""
    rows, units = f["summary"][()], dict(f["summary"].attrs)
    del f["summary"]
    f.create_dataset("summary", data=rows, maxshape=(None,)).attrs.update(units)  # chunked, extendible, unfiltered
    f.attrs["format_version"] = np.int64(1)


CASES.append(("summary-repaired", sequence(rewrite_summary, set_attr("format_version", "1", VSTR), repair), "append",
              "/runs/000003"))


def make(base: str, out: str) -> int:
    with h5py.File(base, "r") as f:
        if sorted(f["runs"]) != ["000001", "000002"]:
            print(f"{base}: needs runs 000001 and 000002, has {sorted(f['runs'])}", file=sys.stderr)
            return 2
    seen: Dict[str, bool] = {}
    for case, edit, verdict, words in CASES:
        assert case not in seen, case
        seen[case] = True
        path = f"{out}/{case}.h5"
        shutil.copyfile(base, path)
        with h5py.File(path, "r+") as f:
            edit(f)
        print(f"{case}\t{verdict}\t{words}")
    return 0


def appended(path: str, before: str, name: str) -> int:
    """path is before with run name appended: its group complete, the old
    rows of /summary as they were, then the new run's, numbered as its name."""
    number = int(name.rsplit("/", 1)[1])
    with h5py.File(before, "r") as old, h5py.File(path, "r") as new:
        g = new[name]
        status = g.attrs["status"]
        if (status.decode() if isinstance(status, bytes) else status) != "complete":
            print(f"{name}: status {status!r}", file=sys.stderr)
            return 1
        had = old["summary"][()] if "summary" in old else None
        rows = new["summary"][()]
        n = 0 if had is None else len(had)
        for field in ("run", "bandwidth"):
            if had is not None and field in (rows.dtype.names or ()) and list(rows[field][:n]) != list(had[field]):
                print(f"/summary's {field} column changed in its first {n} rows", file=sys.stderr)
                return 1
        runs = list(rows["run"][n:])
        if not runs or runs != [number] * len(runs):
            print(f"the new rows' run numbers are {runs}, not {number}", file=sys.stderr)
            return 1
    return 0


def main(argv: List[str]) -> int:
    if len(argv) == 4 and argv[1] == "make":
        return make(argv[2], argv[3])
    if len(argv) == 5 and argv[1] == "appended":
        return appended(argv[2], argv[3], argv[4])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
