"""pfs-report (pfsbench.cli.report): the page's tables against the results
file read back with h5py, the charts that apply embedded as PNGs that
decode, text of the file escaped, nothing fetched, and the refusals (exit
2, nothing written)."""
import base64
import io
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout
from html.parser import HTMLParser

import h5py
import numpy as np
import pytest

pytest.importorskip("matplotlib")
from pfsbench.cli import report  # noqa: E402
from pfsbench.cli.common import size_text  # noqa: E402

MIB = 1048576.0
HOSTILE = '<script>alert("x")</script> & <img src=x onerror=alert(1)>'


class Page(HTMLParser):
    """The page's tables (id -> rows of cell text), images, links and tags."""

    def __init__(self, doc):
        super().__init__(convert_charrefs=True)
        self.tables, self.imgs, self.refs, self.tags, self.items = {}, [], [], [], {}
        self._table = self._row = self._cell = self._list = None
        self.feed(doc)

    def handle_starttag(self, t, attrs):
        a = dict(attrs)
        self.tags.append((t, a))
        self.refs += [v for k, v in attrs if k in ("src", "href")]
        if t == "table":
            self._table = self.tables.setdefault(a.get("id"), [])
        elif t == "tr" and self._table is not None:
            self._row = []
            self._table.append(self._row)
        elif t in ("td", "th") and self._row is not None:
            self._cell = []
        elif t == "img":
            self.imgs.append(a)
        elif t == "ul":
            self._list = self.items.setdefault(a.get("id"), [])
        elif t == "li" and self._list is not None:
            self._cell = []

    def handle_endtag(self, t):
        if t in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif t == "li" and self._cell is not None:
            self._list.append("".join(self._cell))
            self._cell = None
        elif t == "table":
            self._table = self._row = None
        elif t == "ul":
            self._list = None

    def handle_data(self, d):
        if self._cell is not None:
            self._cell.append(d)


def make(path, *runs, out=None):
    """pfs-report PATH RUNS -o OUT: (exit status, the page parsed or None, stderr)."""
    out = out or os.path.splitext(path)[0] + ".html"
    err = io.StringIO()
    with redirect_stdout(io.StringIO()), redirect_stderr(err):
        rc = report.main([path] + list(runs) + ["-o", out])
    doc = open(out, encoding="utf-8").read() if os.path.exists(out) else None
    return rc, doc, err.getvalue()


@pytest.fixture(scope="module")
def page(files, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("report") / "r.html")
    rc, doc, err = make(files["new"], out=out)
    assert rc == 0, err
    return doc, Page(doc)


def phases(path, run):
    with h5py.File(path, "r") as f:
        g = f["runs/%06d/phases" % run]
        return [(n, dict(g[n].attrs), {k: g[n][k][()] for k in g[n] if isinstance(g[n][k], h5py.Dataset)})
                for n in sorted(g)]


def figure(attrs, ds, rep):
    meta = attrs["kind"] in ("metadata", b"metadata")
    return "%.1f" % ds["rate"][rep] if meta else "%.2f" % (ds["bandwidth"][rep] / MIB)


def test_repetitions_hold_the_files_figures(files, page):
    _, p = page
    for run in (1, 2):
        rows = p.tables["reps-run%d" % run][1:]
        want = [(a["phase"], str(rep), figure(a, ds, rep), "%.4f" % ds["seconds"][rep], "%.3f" % ds["utilization"][rep])
                for _, a, ds in phases(files["new"], run) for rep in range(int(a["repetitions"]))]
        assert [(r[0], r[1], r[2], r[4], r[5]) for r in rows] == want


def test_summary_holds_the_phase_statistics(files, page):
    _, p = page
    rows = p.tables["summary-run1"][1:]
    assert [r[0] for r in rows] == ["write", "read", "create", "stat"]
    for r, (_, a, ds) in zip(rows, phases(files["new"], 1)):
        meta = a["kind"] == "metadata"
        scale = 1.0 if meta else MIB
        key = "rate" if meta else "bandwidth"
        assert r[1] == str(a["reps_measured"])
        assert r[2:4] == ["%.2f" % (a[key + "_mean"] / scale), "%.1f%%" % a["ci95_percent"]]
        assert r[4:8] == ["%.2f" % (a[key + s] / scale) for s in ("_median", "_min", "_max", "_stddev")]
        assert r[9] == str(ds["ops" if meta else "bytes"][-1])


def test_latency_per_kind(files, page):
    _, p = page
    rows = p.tables["latency-run1"][1:]
    want = []
    for _, a, ds in phases(files["new"], 1):
        s = ds["latency_summary"]
        for rep in range(s.shape[0]):
            for k, kind in enumerate(a["latency_kinds"].split(",")):
                e = s[rep, k]
                if e["count"]:
                    want.append([a["phase"], str(rep), kind, str(e["count"]), "%.1f" % (e["p50_ns"] / 1e3)])
    assert [r[:4] + [r[5]] for r in rows] == want and any(r[2] == "fsync" for r in rows)  # -e times fsync


def test_nodes_and_stragglers(files, page):
    _, p = page
    rows = p.tables["nodes-run1"][1:]
    with h5py.File(files["new"], "r") as f:
        hosts = [h.decode() if isinstance(h, bytes) else h for h in f["runs/000001/node_hosts"][()]]
    want = []
    for _, a, ds in phases(files["new"], 1):
        meta = a["kind"] == "metadata"
        v = ds["node_rate" if meta else "node_bandwidth"]
        for rep in range(v.shape[0]):
            for k in range(v.shape[1]):
                want.append([a["phase"], str(rep), str(k), hosts[k],
                             "%.1f" % v[rep, k] if meta else "%.2f" % (v[rep, k] / MIB),
                             "yes" if ds["node_straggler"][rep, k] else "no"])
    assert [r[:4] + r[7:9] for r in rows] == want


def test_header(files, page):
    _, p = page
    head = dict(p.tables["head-run2"])
    with h5py.File(files["new"], "r") as f:
        a = f["runs/000002"].attrs
        assert head["command"] == a["command_line"] and head["run id"] == a["run_id"]
        assert head["label"] == "second \u00e9" and head["ranks"].startswith("%d x 1 thread" % a["ranks"])
        assert head["sizes"] == "transfer 64 KiB, block 512 KiB per stream, total %s" % size_text(int(a["total"]))


def run_charts(files):
    """The charts pfs-report draws for a run of the files fixture: on fake
    nodes each node's device is a target of its own, so targets too."""
    return ("nodes", "timeline", "latency") + (("targets",) if files["fake_nodes"] else ())


def test_every_chart_that_applies_decodes(files, page):
    import matplotlib.image as mpimg
    _, p = page
    alts = sorted(i["alt"] for i in p.imgs)
    assert alts == sorted(["comparison of runs"] + ["%s of run %d" % (c, r) for r in (1, 2)
                                                     for c in run_charts(files)])
    for i in p.imgs:
        head = "data:image/png;base64,"
        assert i["src"].startswith(head)
        px = mpimg.imread(io.BytesIO(base64.b64decode(i["src"][len(head):], validate=True)), format="png")
        assert px.shape[0] > 100 and px.shape[1] > 100 and np.ptp(px) > 0


def test_self_contained(page):
    doc, p = page
    assert all(r.startswith("data:image/png;base64,") or r.startswith("#") for r in p.refs)
    assert not any(t in ("script", "link", "iframe", "object") for t, _ in p.tags)
    assert not any(k.startswith("on") for _, a in p.tags for k in a)
    assert "default-src 'none'" in doc


def test_old_file_charts_that_apply(files, tmp_path):
    rc, doc, err = make(files["old"], out=str(tmp_path / "old.html"))
    assert rc == 0, err
    p = Page(doc)
    # No histograms, no time series: those charts are left out, not failed.
    assert sorted(i["alt"] for i in p.imgs) == ["comparison of runs", "nodes of run 1", "nodes of run 2"]
    assert "latency-run1" not in p.tables and len(p.tables["reps-run1"]) == 9


@pytest.fixture(scope="module")
def hostile(files, tmp_path_factory):
    """A copy whose run 1 has markup in its label and warnings, and whose run 2 is damaged."""
    path = str(tmp_path_factory.mktemp("hostile") / "hostile.h5")
    shutil.copy(files["new"], path)
    with h5py.File(path, "r+") as f:
        f["runs/000001"].attrs["label"] = HOSTILE
        f["runs/000001"].attrs["warnings"] = "w1 <b>bold</b>\nw2 & \x1b[31mred"
        del f["runs/000002"].attrs["ranks"]
    return path


def test_text_escaped_damaged_run_named(hostile):
    err = io.StringIO()
    with redirect_stdout(io.StringIO()) as out, redirect_stderr(err):
        assert report.main([hostile]) == 0  # the default output: FILE with .html for .h5
    page_path = os.path.splitext(hostile)[0] + ".html"
    assert out.getvalue() == "wrote %s\n" % page_path
    doc = open(page_path, encoding="utf-8").read()
    assert "<script" not in doc.lower() and "<img src=x" not in doc and "<b>" not in doc
    p = Page(doc)
    assert dict(p.tables["head-run1"])["label"] == HOSTILE
    assert p.items["warnings-run1"] == ["w1 <b>bold</b>", "w2 & \\x1b[31mred"]
    assert "reps-run1" in p.tables and "reps-run2" not in p.tables
    assert p.items["problems"] == ["run /runs/000002: attribute 'ranks' is missing; skipped"]
    assert "run /runs/000002: attribute 'ranks' is missing; skipped" in err.getvalue()


def test_only_damaged_runs_asked_for(hostile, tmp_path):
    rc, doc, _ = make(hostile, "2", out=str(tmp_path / "two.html"))
    assert rc == 1 and doc is None and not os.listdir(str(tmp_path))


def test_runs_picked(files, tmp_path):
    with h5py.File(files["new"], "r") as f:
        rid = f["runs/000002"].attrs["run_id"]
    rc, doc, _ = make(files["new"], rid, out=str(tmp_path / "two.html"))
    p = Page(doc)
    assert rc == 0 and "reps-run2" in p.tables and "reps-run1" not in p.tables
    assert sorted(i["alt"] for i in p.imgs) == sorted("%s of run 2" % c for c in run_charts(files))


def test_refusals_write_nothing(files, tmp_path):
    out = tmp_path / "x.html"
    rc, doc, err = make(files["new"], "9", out=str(out))
    assert rc == 2 and doc is None and "error" in err and not os.listdir(tmp_path)
    bad = tmp_path / "not.h5"
    bad.write_text("not HDF5")
    rc, doc, err = make(str(bad), out=str(out))
    assert rc == 2 and doc is None and err.startswith("pfs-report: error:")
    assert sorted(os.listdir(tmp_path)) == ["not.h5"]
    size = os.path.getsize(files["new"])
    with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()) as err:
        assert report.main([files["new"], "-o", files["new"]]) == 2
    assert "that is the results file" in err.getvalue() and os.path.getsize(files["new"]) == size
