"""The results file as h5py users meet it (issue 18): text as UTF-8
variable-length strings that come back as str through the package (bytes
or str from h5py alike), a non-ASCII label that round-trips, NaN where a
statistic of one measured repetition is absent, a file of an older
pfsbench (fixed-length /summary and placement strings) that still reads
and takes new runs, and pfs-results' warmup column."""
import csv
import io
import math
import os
import re
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

import pfsbench
from conftest import _run, raw_rows, run_rows, summary_rows
from pfsbench import reader
from pfsbench.text import text

PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

LABEL = "second \u00e9"
SUMMARY_TEXT = ("run_id", "label", "status", "phase")
PLACEMENT_TEXT = ("host", "cpu_affinity", "numa_nodes")


def _is_vlen_utf8(dt):
    info = h5py.check_string_dtype(dt)
    return info is not None and info.length is None and info.encoding == "utf-8"


def test_text_fields_are_vlen_utf8(files):
    with h5py.File(files["new"], "r") as f:
        s = f["summary"]
        for k in SUMMARY_TEXT:
            assert _is_vlen_utf8(s.dtype.fields[k][0]), k
        for name in ("000001", "000002"):
            g = f["runs"][name]
            for k in PLACEMENT_TEXT:
                assert _is_vlen_utf8(g["placement"].dtype.fields[k][0]), (name, k)
            assert _is_vlen_utf8(g["node_hosts"].dtype)
        raw = f["summary"][()]
        labels = {text(x) for x in raw["label"]}
        assert labels == {"first", LABEL}


def test_text_comes_back_as_str(files):
    rows = summary_rows(files["new"])
    assert all(isinstance(r[k], str) for r in rows for k in SUMMARY_TEXT)
    assert sorted({r["label"] for r in rows}) == ["first", LABEL]
    assert [r["label"] for r in run_rows(files["new"])] == ["first", LABEL]
    raw = raw_rows(files["new"], 2)
    assert raw and all(isinstance(r["host"], str) and r["host"] for r in raw)
    with pfsbench.open(files["new"]) as res:
        s = res.summary(as_frame=False)
        assert set(s["label"]) == {"first", LABEL}
        p = res.placement(as_frame=False) if hasattr(res, "placement") else None
        if p is not None:
            assert all(isinstance(h, str) for h in p["host"])


@pytest.mark.parametrize("v", [b"second \xc3\xa9", "second \u00e9", np.bytes_(b"second \xc3\xa9"),
                               np.array(b"second \xc3\xa9")])
def test_text_decodes_bytes_and_str(v):
    assert text(v) == LABEL


def test_one_measured_rep_statistics_are_nan(files):
    """Run 2 did each phase once: no spread, so stddev and the CI are NaN
    (absent), never 0; run 1's two repetitions have them."""
    with h5py.File(files["new"], "r") as f:
        for pg in f["runs/000002/phases"].values():
            assert math.isnan(pg.attrs["bandwidth_stddev"]) and math.isnan(pg.attrs["ci95_half_width"])
            assert pg.attrs["bandwidth_mean"] == pg["bandwidth"][0]
        for pg in f["runs/000001/phases"].values():
            assert np.isfinite(pg.attrs["bandwidth_stddev"])
            if reader.phase_kind(pg.attrs["phase"], pg.attrs["kind"]) == "metadata":
                assert np.isfinite(pg.attrs["rate_stddev"])


def _to_fixed(grp, name, sizes, drop=()):
    """Rewrites dataset name of grp as an older pfsbench wrote it: the text
    fields fixed-length ASCII of the given sizes, fields in drop absent."""
    ds = grp[name]
    data, attrs, maxshape, chunks = ds[()], dict(ds.attrs), ds.maxshape, ds.chunks
    fields = [(k, "S%d" % sizes[k] if k in sizes else data.dtype.fields[k][0]) for k in data.dtype.names
              if k not in drop]
    old = np.zeros(data.shape, dtype=fields)
    for k, _ in fields:
        old[k] = [text(x).encode() for x in data[k]] if k in sizes else data[k]
    del grp[name]
    grp.create_dataset(name, data=old, maxshape=maxshape, chunks=chunks)
    for k, v in attrs.items():
        grp[name].attrs[k] = v


@pytest.fixture(scope="module")
def old_file(files, tmp_path_factory):
    """files["new"] as a pfsbench before issue 18 wrote it (fixed-length
    strings; a /summary without warmup and stonewall_rate), then a run with
    a warm-up repetition and a one-repetition metadata phase appended by
    this pfsbench."""
    t = tmp_path_factory.mktemp("oldfmt")
    path = str(t / "old.h5")
    shutil.copy(files["new"], path)
    with h5py.File(path, "r+") as f:
        _to_fixed(f, "summary", {"run_id": 64, "label": 128, "status": 16, "phase": 16},
                  drop=("warmup", "stonewall_rate"))
        for g in f["runs"].values():
            _to_fixed(g, "placement", {"host": 64, "cpu_affinity": 48, "numa_nodes": 12})
    before = summary_rows(path)
    d = t / "data"
    d.mkdir()
    _run(["-d", str(d), "-t", "64k", "-b", "256k", "-p", "write,create", "-n", "5", "-i", "1", "--warmup", "1",
          "-o", path, "--label", "third \u00e9"], d, [])
    return path, before


def test_old_file_keeps_its_rows_and_takes_a_run(old_file):
    path, before = old_file
    with h5py.File(path, "r") as f:
        assert h5py.check_string_dtype(f["summary"].dtype.fields["label"][0]).length == 128  # still the old table
        assert sorted(f["runs"]) == ["000001", "000002", "000003"]
        assert _is_vlen_utf8(f["runs/000003/placement"].dtype.fields["host"][0])
        assert h5py.check_string_dtype(f["runs/000001/placement"].dtype.fields["host"][0]).length == 64
    rows = summary_rows(path)
    assert rows[:len(before)] == before  # not one older row changed, none lost
    new = rows[len(before):]
    assert [(r["run"], r["phase"], r["rep"], r["warmup"]) for r in new] == \
        [(3, "write", 0, 1), (3, "write", 1, 0), (3, "create", 0, 1), (3, "create", 1, 0)]
    assert all(r["label"] == "third \u00e9" and isinstance(r["run_id"], str) for r in new)
    assert all(isinstance(r["host"], str) and r["host"] for run in (1, 3) for r in raw_rows(path, run))
    with pfsbench.open(path) as res:
        assert set(res.summary(as_frame=False)["label"]) == {"first", LABEL, "third \u00e9"}


def test_warmup_with_one_measured_rep_is_nan(old_file):
    path, _ = old_file
    with h5py.File(path, "r") as f:
        for pg in f["runs/000003/phases"].values():
            assert int(pg.attrs["warmup"]) == 1 and int(pg.attrs["reps_measured"]) == 1
            assert pg.attrs["bandwidth_mean"] == pg["bandwidth"][1]
            assert math.isnan(pg.attrs["bandwidth_stddev"])
        assert math.isnan(f["runs/000003/phases/01_create"].attrs["rate_stddev"])
        assert f["runs/000003/phases/01_create"].attrs["rate_mean"] == f["runs/000003/phases/01_create/rate"][1]


def _out(*args):
    """What pfs-results prints (its printers write to the sys.stdout of
    import time, so it runs as a program)."""
    r = subprocess.run([sys.executable, "-c", "import sys; from pfsbench.cli.results import main; sys.exit(main())"]
                       + list(args), env=dict(os.environ, PYTHONPATH=PYDIR), stdout=subprocess.PIPE,
                       universal_newlines=True)
    assert r.returncode == 0
    return r.stdout


def test_pfs_results_warmup_column(old_file):
    path, _ = old_file
    lines = _out(path, "--run", "3").splitlines()
    assert lines[0].split()[-1] == "warmup"
    cells = [re.split(r" {2,}", ln.strip()) for ln in lines[1:5]]
    assert [(c[3], c[4], c[-1]) for c in cells] == [("write", "0", "yes"), ("write", "1", "no"),
                                                      ("create", "0", "yes"), ("create", "1", "no")]
    assert any(ln.strip().startswith("warmup yes") for ln in lines)
    rows = list(csv.DictReader(io.StringIO(_out(path, "--run", "3", "--csv"))))
    assert [(r["phase"], r["rep"], r["warmup"]) for r in rows] == [("write", "0", "1"), ("write", "1", "0"),
                                                                    ("create", "0", "1"), ("create", "1", "0")]
    assert list(csv.reader(io.StringIO(_out(path, "--csv"))))[0][-1] == "warmup"
