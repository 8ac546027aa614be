"""The tools as package modules: the same output as scripts/pfs-*, and the
scripts still load as modules by path."""
import importlib.machinery
import importlib.util
import io
import os
import subprocess
import sys
from contextlib import redirect_stdout

import pytest

from pfsbench.cli import results

PYDIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPTS = os.path.join(os.path.dirname(PYDIR), "scripts")


def script(name, *args):
    r = subprocess.run([sys.executable, os.path.join(SCRIPTS, name)] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True)
    return r.returncode, r.stdout


def module_out(tool, *args):
    """What the console script pfs-TOOL (pfsbench.cli.TOOL:main) prints, run without scripts/."""
    code = "import sys; from pfsbench.cli.%s import main; sys.exit(main())" % tool
    r = subprocess.run([sys.executable, "-c", code] + list(args), env=dict(os.environ, PYTHONPATH=PYDIR),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return r.returncode, r.stdout


@pytest.mark.parametrize("args", [[], ["--csv"], ["--runs"], ["--latency"], ["--run", "2", "--raw"]])
def test_results_same_output(files, args):
    assert module_out("results", files["new"], *args) == script("pfs-results", files["new"], *args)


def test_compare_same_output(files):
    args = [files["new"], "--by", "label", "--units", "KB"]
    assert module_out("compare", *args) == script("pfs-compare", *args)


def test_bad_file_exit_2(tmp_path):
    assert results.main([str(tmp_path / "none.h5")]) == 2
    assert script("pfs-results", str(tmp_path / "none.h5"))[0] == 2


def test_scripts_load_as_modules(files):
    loader = importlib.machinery.SourceFileLoader("pr_by_path", os.path.join(SCRIPTS, "pfs-results"))
    spec = importlib.util.spec_from_loader("pr_by_path", loader)
    m = importlib.util.module_from_spec(spec)
    loader.exec_module(m)
    rows = m.summary_rows(files["new"])
    assert len(rows) == 11 and m._text(b"x") == "x" and m._size(1 << 20) == "1 MiB"


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
    text = open(os.path.join(PYDIR, "pyproject.toml")).read()
    for tool, mod in (("results", "results"), ("compare", "compare"), ("plot", "plot"), ("sweep", "sweep")):
        assert 'pfs-%s = "pfsbench.cli.%s:main"' % (tool, mod) in text
