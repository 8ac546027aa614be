"""pfs-plot targets on a real run whose one storage target is slow: two
fake nodes (each its own local target, HOST:DEVICE), node2's pwrite
delayed by the delay shim (slow_host.sh), so node2's target is the one
flagged in the write phase. The chart names each target and the flagged
one; a run without targets (metadata phases only) is one clear message,
exit 2, and no file."""
import os
import subprocess
import xml.etree.ElementTree as ET

import pytest

import pfsbench
from conftest import ENV, PYDIR, SRC, pfsbench_binary

HERE = os.path.dirname(os.path.abspath(__file__))
PNG = b"\x89PNG\r\n\x1a\n"


def delay_lib():
    p = os.environ.get("PFS_DELAY_LIB") or os.path.join(SRC, "build", "tests", "libpfs_delay.so")
    return p if os.path.isfile(p) else None


@pytest.fixture(scope="module")
def slow_file(tmp_path_factory):
    """Run 1: write, read, 2 repetitions, 2 ranks on each of node1 and
    node2, node2's pwrite 4 ms slower; run 2: create, stat only."""
    binary, lib = pfsbench_binary(), delay_lib()
    if binary is None or lib is None:
        pytest.skip("no pfsbench binary or delay shim: build with cmake, or set PFSBENCH and PFS_DELAY_LIB")
    t = tmp_path_factory.mktemp("targets")
    (t / "data").mkdir()
    out = str(t / "tg.h5")
    env = dict(ENV, PFS_DELAY_LIB=lib, PFS_DELAY_SECS="0.004")
    fake = ["bash", os.path.join(SRC, "tests", "lib", "fakenodes.sh"), "2", "2", "120", "--"]
    for args in (["-p", "write,read", "-t", "64k", "-b", "1m", "-i", "2"], ["-p", "create,stat", "-n", "10"]):
        r = subprocess.run(fake + [os.path.join(HERE, "slow_host.sh"), "node2", binary, "-d", str(t / "data"),
                                   "-o", out, "-q"] + args, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if r.returncode != 0 and "unshare" in r.stdout:
            pytest.skip("fake nodes need root (unshare --uts): %s" % r.stdout.strip()[-200:])
        assert r.returncode == 0, r.stdout
    return out


def plot(*args):
    r = subprocess.run(["timeout", "120", "/usr/bin/python3", "-m", "pfsbench.cli.plot", "targets"] + list(args),
                       cwd=PYDIR, env=dict(ENV, MPLBACKEND="Agg"), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    return r.returncode, r.stdout, r.stderr


def svg_text(path):
    """Every text of the SVG (svg.fonttype none: text stays text), parsed as XML."""
    return " ".join("".join(e.itertext()) for e in ET.parse(path).iter() if e.tag.endswith("text"))


def test_chart_names_targets_and_the_slow_one(slow_file, tmp_path):
    with pfsbench.open(slow_file) as r:
        tg = r.run(1).targets()
    write = tg[tg.phase == "write"]
    slow = sorted(set(write[write.slow == 1]["name"]))
    assert len(slow) == 1 and slow[0].startswith("node2:"), write[["rep", "name", "bandwidth", "slow"]]
    rc, out, err = plot(slow_file, "--run", "1", "-o", str(tmp_path / "tg"))
    assert rc == 0, err
    assert out.split() == ["wrote", str(tmp_path / "tg.png"), "wrote", str(tmp_path / "tg.svg")]
    with open(tmp_path / "tg.png", "rb") as f:
        assert f.read(8) == PNG
    words = svg_text(tmp_path / "tg.svg")
    for name in set(tg["name"]):
        assert name in words, name
    assert "write: slow: %s (rep " % slow[0] in words
    for what in ("p99 transfer latency (s)", "bandwidth over busy time", "slow target (flagged)",
                 "the median target", "x the median: slow below", "read: "):
        assert what in words, what


def test_phase_and_rep(slow_file, tmp_path):
    rc, _, err = plot(slow_file, "--run", "1", "--phase", "write", "--rep", "1", "-o", str(tmp_path / "w.svg"))
    assert rc == 0, err
    words = svg_text(tmp_path / "w.svg")
    assert "write: " in words and "read: " not in words
    rc, _, err = plot(slow_file, "--run", "1", "--phase", "delete", "-o", str(tmp_path / "x.svg"))
    assert rc == 2 and err.count("\n") == 1 and "phases with targets are read, write" in err, err
    assert not os.path.exists(tmp_path / "x.svg")


def test_run_without_targets(slow_file, tmp_path):
    rc, out, err = plot(slow_file, "--run", "2", "-o", str(tmp_path / "none"))
    assert rc == 2 and out == "" and "Traceback" not in err, err
    assert err == "pfs-plot: error: run 2 has no storage targets: it has no data phase, or its file was " \
                  "written before pfsbench recorded them\n"
    assert os.listdir(tmp_path) == []


def test_report_page_has_the_chart(slow_file, tmp_path):
    """pfs-report draws the chart for a run with more than one known target
    (as the text report prints its table), not for the metadata-only run."""
    from pfsbench.cli.report import main
    out = str(tmp_path / "page.html")
    assert main([slow_file, "-o", out]) == 0
    with open(out, encoding="utf-8") as f:
        page = f.read()
    assert "run 1: storage targets by p99 and bandwidth over busy time, slow ones marked" in page
    assert "run 2: storage targets" not in page and "not drawn" not in page
