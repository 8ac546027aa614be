"""The tools as package modules, run the three ways a user runs them: the
console script's main() (pip's pfs-* commands), `python3 -m pfsbench TOOL`
from a checkout, and the pfs-* wrappers cmake writes into the build
directory (the same template `cmake --install` installs): the same output
every way."""
import io
import os
import subprocess
import sys
from contextlib import redirect_stdout

import pytest

import pfsbench
from conftest import pfsbench_binary
from pfsbench import rows
from pfsbench.cli import results
from pfsbench.cli.common import size_text
from pfsbench.text import text

PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What PYTHONPATH a checkout needs; the wrappers need none.
BARE = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}


def _run(cmd, env):
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return r.returncode, r.stdout


def script(name, *args):
    """What the pfs-NAME cmake wrote beside build/pfsbench prints, run as a command, without PYTHONPATH."""
    binary = pfsbench_binary()
    path = os.path.join(os.path.dirname(binary), name) if binary else ""
    if not os.access(path, os.X_OK):
        pytest.skip("no %s beside the pfsbench binary: build with cmake" % name)
    return _run([path] + list(args), BARE)


def module_out(tool, *args):
    """What the console script pfs-TOOL (pfsbench.cli.TOOL:main) prints."""
    code = "import sys; from pfsbench.cli.%s import main; sys.exit(main())" % tool
    return _run([sys.executable, "-c", code] + list(args), dict(os.environ, PYTHONPATH=PYDIR))


def dispatch_out(tool, *args):
    """What `python3 -m pfsbench TOOL` prints from a checkout."""
    return _run([sys.executable, "-m", "pfsbench", tool] + list(args), dict(os.environ, PYTHONPATH=PYDIR))


@pytest.mark.parametrize("args", [[], ["--csv"], ["--runs"], ["--latency"], ["--run", "2", "--raw"]])
def test_results_same_output(files, args):
    out = module_out("results", files["new"], *args)
    assert out == dispatch_out("results", files["new"], *args)
    assert out == script("pfs-results", files["new"], *args)


def test_compare_same_output(files):
    args = [files["new"], "--by", "label", "--units", "KB"]
    out = module_out("compare", *args)
    assert out == dispatch_out("compare", *args)
    assert out == script("pfs-compare", *args)


def test_bad_file_exit_2(tmp_path):
    assert results.main([str(tmp_path / "none.h5")]) == 2
    assert dispatch_out("results", str(tmp_path / "none.h5"))[0] == 2
    assert dispatch_out("nosuchtool")[0] == 2
    assert script("pfs-results", str(tmp_path / "none.h5"))[0] == 2


def test_views_of_the_one_reader(files):
    with pfsbench.open(files["new"]) as r:
        summary = rows.summary_rows(r)
    assert len(summary) == 11 and text(b"x") == "x" and size_text(1 << 20) == "1 MiB"


def test_plot_and_sweep(files, tmp_path):
    pytest.importorskip("matplotlib")
    from pfsbench.cli import plot, sweep
    out = str(tmp_path / "tl.png")
    assert plot.main(["timeline", files["new"], "--run", "1", "-o", out]) == 0 and os.path.getsize(out) > 0
    with pytest.raises(SystemExit) as e:
        with redirect_stdout(io.StringIO()) as buf:
            sweep.main(["--help"])
    assert e.value.code == 0 and buf.getvalue().startswith("usage: pfs-sweep")


def test_entry_points_declared():
    text_ = open(os.path.join(PYDIR, "pyproject.toml")).read()
    for tool in ("results", "compare", "plot", "sweep", "io500", "report"):
        assert 'pfs-%s = "pfsbench.cli.%s:main"' % (tool, tool) in text_
