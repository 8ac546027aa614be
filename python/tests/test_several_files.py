"""pfsbench.open() of several files (a list, or several paths): the frames
over every run of every file, each row naming its file; and runs_frame(),
one row per run, checked against the run groups' attributes read with h5py."""
import subprocess

import h5py
import numpy as np
import pytest

import pfsbench
from conftest import ENV, pfsbench_binary

pd = pytest.importorskip("pandas")

FRAMES = ("summary", "nodes", "streams", "latency", "timeline", "placement", "runs_frame", "targets", "target_latency")


@pytest.fixture(scope="module")
def second(tmp_path_factory):
    """A second real file: one run of 2 ranks, write and read, label 'other'."""
    binary = pfsbench_binary()
    if binary is None:
        pytest.skip("no pfsbench binary: build it (cmake -S . -B build && cmake --build build) or set PFSBENCH")
    t = tmp_path_factory.mktemp("second")
    (t / "data").mkdir()
    out = str(t / "s.h5")
    r = subprocess.run(["timeout", "120", "mpirun", "-np", "2", "--oversubscribe", "--bind-to", "none", binary,
                        "-d", str(t / "data"), "-t", "16k", "-b", "256k", "-p", "write,read", "-o", out, "-q",
                        "--label", "other"], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    assert r.returncode == 0, r.stdout
    return out


def _attrs(path):
    """[(run number, {attribute: value})] of the file, with h5py."""
    out = []
    with h5py.File(path, "r") as f:
        for name in sorted(f["runs"]):
            a = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f["runs"][name].attrs.items()}
            out.append((int(name), a))
    return out


def test_list_and_paths_are_one_set(files, second):
    for opened in (pfsbench.open([files["new"], second]), pfsbench.open(files["new"], second),
                   pfsbench.open((files["new"], second), warn=False)):
        with opened as rs:
            assert isinstance(rs, pfsbench.ResultsSet)
            assert rs.paths == [files["new"], second] and len(rs) == 3
            assert [(r.results.path, r.number) for r in rs.runs] == [(files["new"], 1), (files["new"], 2),
                                                                     (second, 1)]
    with pfsbench.open(files["new"]) as one:  # one path: a Results, as before
        assert isinstance(one, pfsbench.Results)
    with pytest.raises(TypeError, match="warn is a keyword"):
        pfsbench.open(files["new"], False)
    with pytest.raises(pfsbench.NotResultsFile):
        pfsbench.open([files["new"], __file__])


def test_runs_frame_from_the_files(files, second):
    with pfsbench.open([files["new"], second]) as rs:
        f = rs.runs_frame()
    want = [(p, n, a) for p in (files["new"], second) for n, a in _attrs(p)]
    assert len(f) == 3
    assert f["file"].tolist() == [p for p, _, _ in want] and f["run"].tolist() == [n for _, n, _ in want]
    for i, (p, n, a) in enumerate(want):
        row = f.iloc[i]
        for k in ("run_id", "label", "status", "phases", "api", "mode", "command_line", "config", "fs_type"):
            assert row[k] == a[k], k
        for k in ("ranks", "nodes", "threads", "streams", "transfer", "block", "total", "files"):
            assert row[k] == int(a[k]), k
        assert row["start_time"] == pd.Timestamp(a["start_time"]) and row["start_time"].tzname() == "UTC"
        assert row["end_time"] >= row["start_time"]
    assert f["label"].tolist() == ["first", "second \u00e9", "other"]
    assert f["phases"].tolist() == ["write,read,create,stat", "write,read,read", "write,read"]
    assert f["threads"].tolist() == [2, 1, 1] and f["transfer"].tolist() == [65536, 65536, 16384]
    assert str(f["start_time"].dtype) == "datetime64[ns, UTC]"


def test_frames_are_each_files_with_file_first(files, second):
    """Every frame of the set is the single files' frames, in order, with
    file before their columns; the summary's figures are /summary's."""
    with pfsbench.open([files["new"], second]) as rs, pfsbench.open(files["new"]) as a, \
            pfsbench.open(second) as b:
        for name in FRAMES:
            got = getattr(rs, name)()
            parts = [getattr(a, name)(), getattr(b, name)()]
            assert got.columns[0] == "file"
            cols = [c for c in parts[0].columns if c != "file"]
            assert list(got.columns[1:]) == cols, name
            assert got["file"].tolist() == [files["new"]] * len(parts[0]) + [second] * len(parts[1]), name
            assert len(parts[1]) > 0, name
            for j, (path, part) in enumerate(zip((files["new"], second), parts)):
                mine = got[got["file"] == path].reset_index(drop=True)
                pd.testing.assert_frame_equal(mine[cols], part[cols], check_dtype=False)
        s = rs.summary()
        for path in (files["new"], second):
            with h5py.File(path, "r") as h:
                summ = h["summary"][()]
            mine = s[s["file"] == path]
            assert mine["bandwidth"].tolist() == summ["bandwidth"].tolist()
            assert mine["run"].tolist() == summ["run"].tolist()
        assert rs.latency(hist=True)["file"].nunique() == 2


def test_files_of_different_ages(files):
    """A file without latencies beside one with: NaN where the old one has none."""
    with pfsbench.open([files["new"], files["old"]]) as rs:
        s = rs.summary()
        lat = rs.latency()
        d = rs.summary(as_frame=False)
    old = s[s["file"] == files["old"]]
    assert len(old) == len(s) / 2 and old["p99_ns"].isna().all() and old["cpu_percent"].isna().all()
    assert s[s["file"] == files["new"]]["p99_ns"].notna().any()
    assert set(lat["file"]) == {files["new"]}
    assert isinstance(d["file"], np.ndarray) and d["file"][0] == files["new"] and d["file"][-1] == files["old"]
