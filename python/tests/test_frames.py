"""pfsbench.open() and its DataFrames, against the HDF5 datasets of real runs."""
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

import pfsbench
from pfsbench import frames
from pfsbench.text import text

pd = pytest.importorskip("pandas", reason="the DataFrame tests need pandas (apt install python3-pandas)")

PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def spec_dtype(dt):
    return {"i8": "int64", "u8": "uint64", "f8": "float64", "O": "object", "?": "boolean"}[dt]


def check_columns(df, spec, ints_may_be_float=False):
    assert list(df.columns) == [n for n, _ in spec]
    for name, dt in spec:
        want = spec_dtype(dt)
        got = str(df[name].dtype)
        if ints_may_be_float and dt == "i8" and got == "float64":
            continue
        assert got == want, (name, got, want)


def phase_groups(f, run):
    g = f["runs/%06d/phases" % run]
    return [(int(g[k].attrs["index"]), g[k]) for k in sorted(g)]


def test_open_and_runs(files):
    with pfsbench.open(files["new"]) as r:
        assert [x.number for x in r.runs] == [1, 2] and len(r) == 2
        with h5py.File(files["new"], "r") as f:
            for run in r.runs:
                g = f[run.name]
                assert run.run_id == g.attrs["run_id"] and run.status == "complete"
                assert run.attrs["command_line"] == g.attrs["command_line"]
                assert all(not isinstance(v, bytes) for v in run.attrs.values())
        assert r.runs[0].label == "first" and r.runs[1].label == "second \u00e9"
        assert r.runs[0].threads == 2 and r.runs[0].streams == 8
        assert r.run("000002") is r.runs[1] and r.run(r.runs[0].run_id) is r.runs[0]
        with pytest.raises(pfsbench.NoSuchRun):
            r.run(9)
        assert [p.phase for p in r.runs[1].phases] == ["write", "read", "read"]
        assert not np.isnan(r.runs[0].t0)
    with pytest.raises(ValueError, match="closed"):  # closed with the with block
        r.runs[0].summary()


def test_not_a_results_file(tmp_path):
    p = tmp_path / "x.h5"
    with h5py.File(p, "w") as f:
        f.attrs["format"] = "other"
    with pytest.raises(pfsbench.NotResultsFile):
        pfsbench.open(str(p))
    with pytest.raises(pfsbench.NotResultsFile):
        pfsbench.open(str(tmp_path / "missing.h5"))


def test_summary(files):
    with pfsbench.open(files["new"]) as r, h5py.File(files["new"], "r") as f:
        s = r.summary()
        check_columns(s, frames.SUMMARY_COLUMNS)
        assert len(s) == 4 * 2 + 3
        assert s["label"].tolist()[-1] == "second \u00e9"
        for run in (1, 2):
            for index, pg in phase_groups(f, run):
                rows = s[(s.run == run) & (s["index"] == index)].sort_values("rep")
                assert rows["phase"].unique().tolist() == [pg.attrs["phase"]]
                assert rows["bytes"].tolist() == pg["bytes"][()].tolist()
                assert rows["ops"].tolist() == pg["ops"][()].tolist()
                np.testing.assert_array_equal(rows["bandwidth"].to_numpy(), pg["bandwidth"][()])
                np.testing.assert_array_equal(rows["seconds"].to_numpy(), pg["seconds"][()])
        summ = f["summary"][()]  # /summary has the same rows in the same order
        assert s["bytes"].tolist() == summ["bytes"].tolist() and s["rep"].tolist() == summ["rep"].tolist()
        assert s["phase"].tolist() == [x.decode() for x in summ["phase"]]
        assert s.stonewall_bandwidth.isna().all()  # no -D: NaN, not 0
        assert s.p50_ns.notna().all() and (s.p50_ns <= s.p99_ns).all() and s.cpu_percent.notna().all()
        assert (s[s.run == 1].kind.tolist() == ["data"] * 4 + ["metadata"] * 4)
        assert (s.end_s > s.start_s).all()
        # Each run's times are relative to its start (Run.t0): its earliest recorded instant, the first open
        # of any stream or the first time-series interval's start, whichever the file puts first. Nothing
        # is before it, and one of them is exactly at it.
        tl = r.timeline()
        for run in (1, 2):
            firsts = (s[s.run == run].start_s.min(), tl[tl.run == run].t_start_s.min())
            assert min(firsts) == 0 and all(x >= 0 for x in firsts), (run, firsts)
            # the first phase's first repetition starts the run: the others come after it
            assert s[(s.run == run) & (s["index"] == 0) & (s.rep == 0)].start_s.iloc[0] == 0
            assert (s[s.run == run].start_s.iloc[1:] > 0).all()
        one = r.runs[1].summary()
        assert one["index"].tolist() == [0, 1, 2] and (one.run == 2).all()


def test_nodes(files):
    with pfsbench.open(files["new"]) as r, h5py.File(files["new"], "r") as f:
        n = r.nodes()
        check_columns(n, frames.NODES_COLUMNS)
        hosts = {int(p["node"]): p["host"].decode() for p in f["runs/000001/placement"][()]}
        assert n[n.run == 1].groupby("node").host.first().to_dict() == hosts
        if files["fake_nodes"]:
            assert hosts == {0: "node1", 1: "node2"}
        s = r.summary()
        for (run, index, rep), g in n.groupby(["run", "index", "rep"]):
            row = s[(s.run == run) & (s["index"] == index) & (s.rep == rep)].iloc[0]
            assert g.node_bytes.sum() == row.bytes and g.node_ops.sum() == row.ops
            assert g.ranks.sum() == row.ranks
        for index, pg in phase_groups(f, 1):
            got = n[(n.run == 1) & (n["index"] == index)].sort_values(["rep", "node"])
            np.testing.assert_array_equal(got.node_bandwidth.to_numpy(), pg["node_bandwidth"][()].ravel())
            assert got.node_straggler.tolist() == [bool(x) for x in pg["node_straggler"][()].ravel()]
            np.testing.assert_allclose(got.cpu_user.to_numpy(), pg["cpu_user"][()].ravel())
        assert n.p50_ns.notna().all()


def test_streams(files):
    with pfsbench.open(files["new"]) as r, h5py.File(files["new"], "r") as f:
        t = r.streams()
        check_columns(t, frames.STREAMS_COLUMNS)
        one = t[t.run == 1]
        assert len(one) == 4 * 2 * 8
        assert one[["stream", "rank", "thread"]].drop_duplicates().values.tolist() == \
            [[s, s // 2, s % 2] for s in range(8)]
        pl = f["runs/000001/placement"][()]
        for _, x in one.drop_duplicates("rank").iterrows():
            assert x.node == pl["node"][x["rank"]] and x.host == pl["host"][x["rank"]].decode()
        assert (one.close_end >= one.open_start).all()
        # relative to the run's start, the earliest instant it recorded (its first open, or a time-series
        # interval's start if one were earlier): no stream opened before it, and the first open is
        # exactly at it unless an interval started first
        first_interval = r.timeline().query("run == 1").t_start_s.min()
        assert one.open_start.min() >= 0 and min(one.open_start.min(), first_interval) == 0.0
        run0 = r.runs[0]
        raw = f["runs/000001/phases/00_write/times"][()]
        w = one[one.phase == "write"].sort_values(["rep", "stream"])
        np.testing.assert_allclose(w.close_end.to_numpy() + run0.t0, raw["close_end"].ravel(), rtol=0, atol=1e-6)
        assert w["bytes"].tolist() == raw["bytes"].ravel().tolist()
        assert t.stonewall_end.isna().all() and t.cpu_user.notna().all()


def test_latency(files):
    with pfsbench.open(files["new"]) as r:
        lat = r.latency()
        check_columns(lat, frames.LATENCY_COLUMNS)
        s = r.summary()
        op = lat[lat.op_kind == "op"].merge(s, on=["run", "index", "rep"], suffixes=("", "_s"))
        assert len(op) == len(s) and (op["count"] == op["ops"]).all()
        assert set(lat.op_kind) == {"op", "open", "fsync", "close", "response", "read", "write"}
        empty = lat[lat["count"] == 0]
        assert len(empty) > 0 and empty[["min_ns", "p50_ns", "p99_ns", "max_ns", "mean_ns"]].isna().all().all()
        full = lat[lat["count"] > 0]
        assert full[["min_ns", "p50_ns", "p99_ns", "max_ns"]].notna().all().all()
        h = r.latency(hist=True)
        check_columns(h, frames.HIST_COLUMNS)
        sums = h.groupby(["run", "index", "rep", "op_kind"])["count"].sum()
        for _, x in lat.iterrows():
            assert sums.get((x.run, x["index"], x.rep, x.op_kind), 0) == x["count"]
        assert (h["count"] > 0).all() and (h.bucket_lo <= h.bucket_hi).all()
        pn = r.latency(per_node=True)
        check_columns(pn, frames.NODE_LATENCY_COLUMNS)
        ops = pn.groupby(["run", "index", "rep"])["count"].sum()
        assert all(ops[(x.run, x["index"], x.rep)] == x.ops for _, x in s.iterrows())
        hn = r.latency(hist=True, per_node=True)
        check_columns(hn, frames.NODE_HIST_COLUMNS)
        assert hn["count"].sum() == s.ops.sum() and set(hn.host) == set(r.runs[0].hosts.values())


def test_timeline(files):
    with pfsbench.open(files["new"]) as r:
        tl = r.timeline()
        check_columns(tl, frames.TIMELINE_COLUMNS)
        s = r.summary()
        got = tl.groupby(["run", "index", "rep"])[["bytes", "ops"]].sum()
        for _, x in s.iterrows():
            assert got.loc[(x.run, x["index"], x.rep), "bytes"] == x["bytes"]
            assert got.loc[(x.run, x["index"], x.rep), "ops"] == x.ops
        assert tl.t_start_s.min() >= 0 and (tl.t_end_s - tl.t_start_s == tl.interval_s).all()
        # The intervals' true edges: each repetition's first interval starts at its first open and its last
        # ends at its last close (the same stored instants, so exactly); they meet; none is longer than the
        # interval and a quarter (a sliver joined to its neighbour; the first also by as much as it starts
        # before the grid's origin, the last arrival at the start agreement, where another node's corrected
        # clock put an open), and the rates are over that length.
        with h5py.File(files["new"], "r") as f:
            for (run, index, rep), g in tl.groupby(["run", "index", "rep"]):
                g = g.sort_values(["interval", "node"])
                row = s[(s.run == run) & (s["index"] == index) & (s.rep == rep)].iloc[0]
                assert g.t_start_s.iloc[0] == row.start_s and g.t_end_s.iloc[-1] == row.end_s, (run, index, rep)
                edges = g.drop_duplicates("interval")
                assert (edges.t_start_s.to_numpy()[1:] == edges.t_end_s.to_numpy()[:-1]).all()
                pg = [p for _, p in phase_groups(f, run) if int(p.attrs["index"]) == index][0]
                ts = pg["timeseries/rep_%03d" % rep]
                dt = float(ts.attrs["interval"])
                early = max(0.0, float(ts.attrs["t0"]) - float(ts["start"][0]))
                bound = 1.25 * dt + np.where(g.interval == 0, early, 0.0) + 1e-6
                assert (g.interval_s > 0).all() and (g.interval_s.to_numpy() <= bound).all(), (run, index, rep)
                np.testing.assert_allclose(g.bandwidth.to_numpy(), g["bytes"].to_numpy() / g.interval_s.to_numpy())
        idle = tl[tl.ops == 0]
        assert idle[["p50_ns", "p99_ns", "max_ns"]].isna().all().all()
        assert tl[tl.ops > 0][["p50_ns", "p99_ns", "max_ns"]].notna().all().all()
        assert set(tl[tl.run == 1].host) == set(r.runs[0].hosts.values())


def test_exemplars(files):
    """min(16, operations) per phase and repetition, slowest first, within the
    repetition's span, each on its rank's host; run 1 has 2 threads per rank."""
    with pfsbench.open(files["new"]) as r:
        ex = r.exemplars()
        check_columns(ex, frames.EXEMPLAR_COLUMNS)
        ops = r.latency().groupby(["run", "index", "rep"])["count"].sum()
        s = r.summary().set_index(["run", "index", "rep"])
        hosts = {(int(x.run), int(x["rank"])): x.host for _, x in r.placement().iterrows()}
        got = ex.groupby(["run", "index", "rep"])
        assert len(got) == len(s) == len(ops)
        for key, g in got:
            assert len(g) == min(16, int(ops.loc[key])), key
            d = g.duration_ns.tolist()
            assert d == sorted(d, reverse=True) and d[0] > 0, key
            row = s.loc[key]
            assert (g.start_s >= row.start_s - 0.01).all() and (g.start_s <= row.end_s).all(), key
            assert all(hosts[(key[0], int(k))] == h for k, h in zip(g["rank"], g.host)), key
            assert set(g.op) <= {row.phase, "open", "fsync", "close"}, (key, set(g.op))
        assert set(ex[ex.run == 1].thread) <= {0, 1}
        # a data phase's exemplar names a row of its repetition's targets; a metadata one none
        names = {(int(t.run), int(t["index"]), int(t.rep), int(t.target)): t["name"]
                 for _, t in r.targets().iterrows()}
        for _, e in ex.iterrows():
            k = (int(e.run), int(e["index"]), int(e.rep), int(e.target))
            assert (e.target == -1 and e.kind == "metadata") or names[k] == e.target_name, (k, e.target_name)
        assert ex.dtypes["duration_ns"] == np.int64
        raw = r.exemplars(as_frame=False)
        assert sorted(raw) == sorted(name for name, _ in frames.EXEMPLAR_COLUMNS)


def test_targets(files):
    """Every data phase's repetitions have targets whose bytes add up to the
    repetition's; a local file system's target is its node's device
    (HOST:DEVICE), so each node of the run has its own."""
    with pfsbench.open(files["new"]) as r:
        tg = r.targets()
        check_columns(tg, frames.TARGET_COLUMNS)
        s = r.summary()
        data = s[s.kind == "data"].set_index(["run", "index", "rep"])
        got = tg.groupby(["run", "index", "rep"])["bytes"].sum()
        assert len(data) > 0 and sorted(got.index) == sorted(data.index)
        for key, b in got.items():
            assert int(b) == int(data.loc[key].bytes), key
        assert (tg.busy_s > 0).all() and (tg.bandwidth > 0).all() and set(tg.slow) <= {0, 1}
        hosts = {int(run): set(g.host) for run, g in r.placement().groupby("run")}
        for (run, index, rep), g in tg.groupby(["run", "index", "rep"]):
            assert g.target.tolist() == list(range(len(g))), (run, index, rep)
            assert {n.split(":")[0] for n in g["name"]} == hosts[int(run)], (run, list(g["name"]))


def test_target_latency(files):
    """target_latency() is the file's target_latency dataset exactly: each
    row of targets (run, phase, repetition, target) has its non-empty
    buckets, with the phase's bucket edges, and its counts add up to the
    row's ops."""
    with pfsbench.open(files["new"]) as r, h5py.File(files["new"], "r") as f:
        th = r.target_latency()
        check_columns(th, frames.TARGET_HIST_COLUMNS)
        tg = r.targets().set_index(["run", "index", "rep", "target"])
        assert len(th) > 0
        seen = 0
        for run in sorted(set(th.run)):
            for index, pg in phase_groups(f, int(run)):
                if "target_latency" not in pg:
                    continue
                h, t = pg["target_latency"][()], pg["targets"][()]
                lo, hi = pg["latency_bucket_lo"][()], pg["latency_bucket_hi"][()]
                mine = th[(th.run == run) & (th["index"] == index)]
                for g in range(h.shape[0]):
                    rep = int(t["rep"][g])
                    target = int((t["rep"][:g] == rep).sum())
                    rows = mine[(mine.rep == rep) & (mine.target == target)].sort_values("bucket")
                    b = np.nonzero(h[g])[0]
                    assert rows.bucket.tolist() == b.tolist(), (run, g)
                    assert rows["count"].tolist() == h[g][b].tolist(), (run, g)
                    assert rows.bucket_lo.tolist() == lo[b].tolist() and rows.bucket_hi.tolist() == hi[b].tolist()
                    assert set(rows["name"]) == {text(t["name"][g])}, (run, g)
                    assert int(rows["count"].sum()) == int(tg.loc[(run, index, rep, target)].ops)
                    seen += len(rows)
        assert seen == len(th)


def test_placement(files):
    with pfsbench.open(files["new"]) as r:
        p = r.placement()
        check_columns(p, frames.PLACEMENT_COLUMNS)
        assert p[p.run == 1]["rank"].tolist() == [0, 1, 2, 3]
        assert p.cpus.isna().sum() == (p.cpu_affinity.isna()).sum()


def test_old_file(files):
    with pfsbench.open(files["old"]) as r:
        assert len(r.runs) == 2 and not r.problems
        s = r.summary()
        check_columns(s, frames.SUMMARY_COLUMNS, ints_may_be_float=True)
        with pfsbench.open(files["new"]) as n:
            assert s["bytes"].tolist() == n.summary()["bytes"].tolist()
        for c in ("ops", "rate", "iops", "p50_ns", "p99_ns", "cpu_user", "cpu_sys", "cpu_percent"):
            assert s[c].isna().all(), c
        assert str(s.ops.dtype) == "float64"
        for what in ("latency", "timeline", "exemplars", "targets", "target_latency"):
            df = getattr(r, what)()
            assert len(df) == 0 and len(df.columns) > 0, what
        assert len(r.latency(hist=True)) == 0 and len(r.latency(per_node=True)) == 0
        nd = r.nodes()
        assert nd[["node_rate", "p50_ns", "cpu_user", "cpu_sys"]].isna().all().all() and nd.node_bytes.notna().all()
        st = r.streams()
        assert st.cpu_user.isna().all() and st.open_start.notna().all()
        pl = r.placement()
        assert pl[["cpu_affinity", "cpus", "numa_nodes"]].isna().all().all() and pl.host.notna().all()


NO_PANDAS = """
import sys
sys.modules["pandas"] = None          # as if pandas were not installed
import pfsbench
r = pfsbench.open(sys.argv[1])
try:
    r.summary()
except ImportError as e:
    assert "pandas" in str(e) and "as_frame=False" in str(e), e
else:
    raise SystemExit("summary() without pandas did not raise")
cols = r.summary(as_frame=False)
assert cols["bytes"].dtype.kind == "i" and len(cols["bytes"]) == 11
assert len(r.timeline(as_frame=False)["bytes"]) > 0
print("ok")
"""


def test_without_pandas(files):
    env = dict(os.environ, PYTHONPATH=PYDIR)
    out = subprocess.run([sys.executable, "-c", NO_PANDAS, files["new"]], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stdout


def test_readme_one_liner(files, tmp_path):
    """The README's check: PYTHONPATH=python python3 -c "... print(pfsbench.open('r.h5').summary())"."""
    os.symlink(files["new"], str(tmp_path / "r.h5"))
    env = dict(os.environ, PYTHONPATH=PYDIR)
    out = subprocess.run([sys.executable, "-c", "import pfsbench; print(pfsbench.open('r.h5').summary())"],
                         cwd=str(tmp_path), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         universal_newlines=True)
    assert out.returncode == 0, out.stdout
    lines = out.stdout.splitlines()
    ncol = len(frames.SUMMARY_COLUMNS)
    assert lines[0].split()[:2] == ["run", "run_id"] and "[11 rows x %d columns]" % ncol in out.stdout


def test_summary_mix(tmp_path):
    """rwmix: each direction's columns, exact and adding up; NaN in the
    write phase before it."""
    from conftest import ENV, pfsbench_binary
    binary = pfsbench_binary()
    if binary is None:
        pytest.skip("no pfsbench binary")
    d = tmp_path / "data"
    d.mkdir()
    out = str(tmp_path / "m.h5")
    args = ["timeout", "120", "mpirun", "-np", "2", "--bind-to", "none", binary, "-d", str(d), "-t", "4k", "-b",
            "400k", "-p", "write,rwmix", "--random", "--rwmix", "70", "-o", out, "-q"]
    r = subprocess.run(args, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    assert r.returncode == 0, r.stdout
    with pfsbench.open(out) as res:
        s = res.summary()
    check_columns(s, frames.SUMMARY_COLUMNS)
    w, m = s[s.phase == "write"].iloc[0], s[s.phase == "rwmix"].iloc[0]
    assert (m["read_ops"], m["write_ops"]) == (140, 60)
    assert m["read_rate"] + m["write_rate"] == pytest.approx(m["rate"], rel=1e-12)
    assert m["read_bandwidth"] + m["write_bandwidth"] == pytest.approx(m["bandwidth"], rel=1e-12)
    assert m["read_p99_ns"] > 0 and m["write_p99_ns"] > 0
    assert all(np.isnan(w[k]) for k in ("read_ops", "write_rate", "read_p99_ns"))
