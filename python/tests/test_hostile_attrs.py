"""Hostile results files (issue 25, item 8): a file pfsbench wrote, then
edited with h5py so that an attribute is text where a number belongs, a
number where text belongs, or an array where pfsbench writes one value.
Every tool says so in one message (exit 2 for the file's own format
attributes; the run skipped, with a line naming the attribute, for a run's)
and never ends in a traceback."""
from __future__ import annotations

import os
import shutil
import warnings
from typing import Callable, List

import h5py
import numpy as np
import pytest

import pfsbench
from pfsbench.cli import compare, results

STR = h5py.string_dtype()


def _copy(files: dict, tmp_path, edit: Callable[[h5py.File], None]) -> str:
    path = str(tmp_path / "hostile.h5")
    shutil.copy(files["new"], path)
    with h5py.File(path, "r+") as f:
        edit(f)
    return path


def _set(where: str, name: str, value) -> Callable[[h5py.File], None]:
    def edit(f: h5py.File) -> None:
        obj = f[where]
        del obj.attrs[name]
        if isinstance(value, np.ndarray) and value.dtype.kind == "U":
            obj.attrs.create(name, value.astype(object), dtype=STR)
        else:
            obj.attrs[name] = value
    return edit


def _first_phase(f: h5py.File) -> str:
    return "/runs/000001/phases/" + sorted(f["runs/000001/phases"].keys())[0]


# The file's own format attributes: one message, exit 2, from every tool.
ROOT = [
    pytest.param(_set("/", "format_version", "one"), "format version 'one', not a whole number", id="version-text"),
    pytest.param(_set("/", "format_version", np.array([1, 1, 1])), "format_version attribute is an array of shape (3,)",
                 id="version-array"),
    pytest.param(_set("/", "format_version", 1.5), "format version 1.5, not a whole number", id="version-float"),
    pytest.param(_set("/", "format", np.array(["pfsbench-results"] * 3)), "format attribute is an array of shape (3,)",
                 id="format-array"),
    pytest.param(_set("/", "format", 7), "format attribute 7, not text", id="format-number"),
]


def _tools(path: str, out_dir: str) -> List[tuple]:
    """(name, callable returning an exit status) for each tool and view."""
    out = [("pfs-results " + " ".join(v), lambda v=v: results.main([path] + v))
           for v in ([], ["--csv"], ["--runs"], ["--latency"], ["--run", "1", "--raw"], ["--timeseries", "-"])]
    out += [("pfs-compare " + " ".join(v), lambda v=v: compare.main([path] + v)) for v in ([], ["--by", "run"])]
    try:
        import matplotlib  # noqa: F401
        from pfsbench.cli import plot
        out += [("pfs-plot " + " ".join(v), lambda v=v: plot.main(v[:1] + [path] + v[1:] + ["-o", os.path.join(
            out_dir, v[0] + ".png")])) for v in (["compare"], ["sweep", "--label", "*"], ["nodes", "--run", "2"])]
    except ImportError:
        pass
    return out


@pytest.mark.parametrize("edit,says", ROOT)
def test_hostile_format_attributes(files, tmp_path, capsys, edit, says):
    path = _copy(files, tmp_path, edit)
    for name, tool in _tools(path, str(tmp_path)):
        assert tool() == 2, name
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1, (name, err)
    with pytest.raises(pfsbench.NotResultsFile, match="not a|array"):
        pfsbench.open(path)


# A run's attributes: that run is skipped, named; the other run is still shown.
RUN = [
    pytest.param(_set("/runs/000001", "api", np.array(["posix", "stdio", "x"])), "'api'", id="api-array"),
    pytest.param(_set("/runs/000001", "mode", np.array([1, 2])), "'mode'", id="mode-array"),
    pytest.param(_set("/runs/000001", "config", np.array([1, 2, 3])), "'config'", id="config-array"),
    pytest.param(_set("/runs/000001", "config", 5), "'config'", id="config-number"),
    pytest.param(_set("/runs/000001", "total", "lots"), "'total'", id="total-text"),
    pytest.param(_set("/runs/000001", "transfer", 65536.5), "'transfer'", id="transfer-float"),
    pytest.param(_set("/runs/000001", "fsync", "yes"), "'fsync'", id="fsync-text"),
    pytest.param(_set("/runs/000001", "straggler", "most"), "'straggler'", id="straggler-text"),
    pytest.param(_set("/runs/000001", "fs_block_size", np.array([4096, 4096])), "'fs_block_size'",
                 id="fs-block-size-array"),
    pytest.param(_set("/runs/000001", "seed", np.array([1, 2])), "'seed'", id="seed-array"),
    pytest.param(lambda f: _set(_first_phase(f), "index", "first")(f), "'index'", id="phase-index-text"),
    pytest.param(lambda f: _set(_first_phase(f), "phase", np.array(["write", "read"]))(f), "'phase'",
                 id="phase-name-array"),
]


@pytest.mark.parametrize("edit,says", RUN)
def test_hostile_run_attributes(files, tmp_path, capsys, edit, says):
    path = _copy(files, tmp_path, edit)
    for name, tool in _tools(path, str(tmp_path)):
        rc = tool()
        err = capsys.readouterr().err
        assert "/runs/000001" in err and says in err, (name, err)
        assert rc in (0, 1, 2), name
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with pfsbench.open(path) as r:
            assert [x.number for x in r.runs] == [2] and says in r.problems[0][1]
            assert set(r.summary()["run"]) == {2}


def test_hostile_summary_column(files, tmp_path, capsys):
    """/summary rewritten with phase as a number and label as an array per
    row: the table is refused in one line, nothing crashes."""
    def edit(f: h5py.File) -> None:
        old = f["summary"][()]
        dt = [(n, (np.int32 if n == "phase" else (np.int32, (2,)) if n == "label" else old.dtype.fields[n][0]))
              for n in old.dtype.names]
        new = np.zeros(old.shape, dtype=dt)
        for n in old.dtype.names:
            if n not in ("phase", "label"):
                new[n] = old[n]
        del f["summary"]
        f.create_dataset("summary", data=new, maxshape=(None,), chunks=True)
    path = _copy(files, tmp_path, edit)
    for name, tool in _tools(path, str(tmp_path)):
        rc = tool()
        err = capsys.readouterr().err
        if not any(view in name for view in ("--runs", "--latency", "--raw", "--timeseries")):  # these read no /summary
            assert "/summary" in err and "column 'phase' is int32, not text" in err and \
                "column 'label' holds arrays of shape (2,)" in err, (name, err)
        assert rc in (0, 1, 2), name
