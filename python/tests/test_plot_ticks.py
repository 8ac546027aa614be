"""Every pfs-plot chart has engineering tick labels: each chart type is
rendered to PNG (Agg) from a real file, and the tick texts of its axes,
read off the drawn figure, have no 1e6 multiplier, offset or exponent, and
say k, M, G for values from 1000 up, the number the tick stands for."""
import re
import subprocess

import matplotlib
import pytest

matplotlib.use("Agg")

from conftest import ENV, pfsbench_binary  # noqa: E402
from pfsbench.cli import plot  # noqa: E402
from pfsbench.cli.plot import common, ticks  # noqa: E402

PREFIX = {"T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3, "": 1.0, "m": 1e-3, "\u00b5": 1e-6, "n": 1e-9}
TICK = re.compile(r"^(-?[0-9]+(?:\.[0-9]+)?)([TGMk\u00b5mn]?)$")
CHARTS = {
    "sweep": ["sweep", "--sweep", "eng", "--units", "KB"],
    "sweep-seconds": ["sweep", "--sweep", "eng", "--value", "seconds"],
    "compare": ["compare", "--units", "KB"],
    "nodes": ["nodes", "--run", "2", "--units", "KB"],
    "timeline": ["timeline", "--run", "2", "--iops", "--units", "KB"],
    "latency": ["latency", "--run", "2"],
    "targets": ["targets", "--run", "2", "--units", "KB"],
}


@pytest.fixture(scope="module")
def sweep_file(tmp_path_factory):
    """Two runs, 1 and 2 ranks (labels eng:n=1, eng:n=2: a sweep), write,
    read, create, stat, 2 repetitions."""
    binary = pfsbench_binary()
    if binary is None:
        pytest.skip("no pfsbench binary: build it (cmake -S . -B build && cmake --build build) or set PFSBENCH")
    t = tmp_path_factory.mktemp("ticks")
    (t / "data").mkdir()
    out = str(t / "sw.h5")
    for n in (1, 2):
        r = subprocess.run(["timeout", "120", "mpirun", "-np", str(n), "--oversubscribe", "--bind-to", "none", binary,
                            "-d", str(t / "data"), "-t", "64k", "-b", "2m", "-p", "write,read,create,stat", "-n",
                            "50", "-i", "2", "-o", out, "-q", "--label", "eng:n=%d" % n], env=ENV,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        assert r.returncode == 0, r.stdout
    return out


def _axes_of(fig):
    """[(axis label, scale, offset text, [(tick value, text)], names?, time?)]
    of every axis of the drawn figure, ticks within the view only; time: in
    seconds with SI prefixes (an axis shared with a time axis has no label)."""
    fig.canvas.draw()
    out = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            pairs = []
            for which in ("major", "minor"):
                locs = axis.get_majorticklocs() if which == "major" else axis.get_minorticklocs()
                tks = axis.get_major_ticks(len(locs)) if which == "major" else axis.get_minor_ticks(len(locs))
                for v, tk in zip(locs, tks):
                    if lo - 1e-12 * abs(lo) <= v <= hi + 1e-12 * abs(hi) and tk.label1.get_text():
                        pairs.append((float(v), tk.label1.get_text()))
            fmt = axis.get_major_formatter()
            names = not isinstance(fmt, ticks.EngFormatter)
            out.append((axis.get_label().get_text(), axis.get_scale(), axis.get_offset_text().get_text(), pairs,
                        names, not names and fmt.prefixes_below_one))
    return out


def _render(monkeypatch, tmp_path, path, args):
    seen = []
    close = common.plt.close

    def keep(fig=None):
        if fig is not None and not isinstance(fig, str):
            seen.append(_axes_of(fig))
        return close(fig)

    monkeypatch.setattr(common.plt, "close", keep)
    png = str(tmp_path / (args[0] + ".png"))
    assert plot.main([args[0], path] + args[1:] + ["-o", png]) == 0
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert len(seen) == 1
    return seen[0]


@pytest.mark.parametrize("chart", sorted(CHARTS))
def test_engineering_ticks(sweep_file, monkeypatch, tmp_path, chart):
    axes = _render(monkeypatch, tmp_path, sweep_file, CHARTS[chart])
    prefixed = 0
    for label, scale, offset, pairs, names, time in axes:
        assert not time or label in ("", ) or "(s" in label, (chart, label)
        assert offset == "", (chart, label, offset)
        for v, text in pairs:
            assert "e+" not in text and "e-" not in text and "\\times" not in text, (chart, label, text)
            if names:  # phases, nodes: names, not numbers
                assert not TICK.match(text) or float(TICK.match(text).group(1)) == v, (chart, label, text)
                continue
            if text.startswith("$10^{"):  # a log axis of fractions below 10^-4
                assert v == pytest.approx(10.0 ** int(text[5:-2]), rel=1e-9)
                continue
            m = TICK.match(text)
            assert m, (chart, label, text)
            got = float(m.group(1)) * PREFIX[m.group(2)]
            if time:  # time: in seconds with SI prefixes; the data may be in another unit
                assert m.group(2) in ("", "m", "\u00b5", "n", "k")
            else:
                assert got == pytest.approx(v, rel=1e-3, abs=1e-12), (chart, label, text, v)
                if abs(v) >= 1000:
                    assert m.group(2) in ("k", "M", "G", "T"), (chart, label, text)
                    prefixed += 1
                else:
                    assert m.group(2) == ""
    if chart in ("sweep", "compare", "nodes", "timeline", "targets"):  # KB/s of a real run: thousands and up
        assert prefixed > 0, chart
    labels = [a[0] for a in axes]
    if chart == "latency":
        lat = [a for a in axes if a[0].startswith("latency (s, log scale)")]
        assert lat and any(t.endswith("\u00b5") or t.endswith("m") for a in lat for _, t in a[3])
    if chart == "targets":  # p99 in seconds with SI prefixes (the label says "[log scale]" when it is)
        lat = [a for a in axes if a[0].startswith("p99 transfer latency (s)")]
        assert lat and all(a[5] for a in lat) and any(t[-1] in "\u00b5m" for a in lat for _, t in a[3])
    if chart == "timeline":
        assert "time since the run's first phase started (s)" in labels
    if chart == "sweep-seconds":
        secs = [a for a in axes if a[0] == "phase time (s)"]
        assert secs and any(t.endswith("m") for a in secs for _, t in a[3])


def test_eng_text():
    e = ticks.eng_text
    assert [e(0), e(1500), e(2e6), e(-3e9), e(1024), e(250), e(0.25), e(1)] == \
        ["0", "1.5k", "2M", "-3G", "1.024k", "250", "0.25", "1"]
    assert [e(0.0025, True), e(3e-6, True), e(4e-8, True), e(1.5, True)] == ["2.5m", "3\u00b5", "40n", "1.5"]
    assert [e(1e-4), e(1e-5), e(2e-6)] == ["0.0001", "$10^{-5}$", "$2{\\times}10^{-6}$"]
