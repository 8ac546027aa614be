"""pfs-compare and pfs-plot compare never average configurations they can
tell apart (issue 26): unlabelled runs are a column per configuration (the
options each run stored), headed by the options that differ; a label given
to runs of different options is named in a warning. The runs are real
pfsbench runs, two ranks each, into one results file."""
from __future__ import annotations

import csv
import io
import math
import os
import subprocess
import sys
from typing import Dict, List

import pytest

from conftest import ENV, PYDIR, pfsbench_binary, run_rows, summary_rows
from pfsbench.cli import configs

# (label, options): the six unlabelled configurations (runs 1-7: file
# per process twice, 47,008-byte strided, collective MPI-IO, verify+random,
# a kept write and the read of its files), then a label over two transfer
# sizes (8, 9) and a label over one configuration run with -i 1 and -i 2
# (10, 11), which is not a different configuration.
RUNS = [
    ("", ["-t", "64k", "-b", "1m"]),
    ("", ["-t", "64k", "-b", "1m"]),
    ("", ["--shared", "--layout", "strided", "-t", "47008", "-b", "470080"]),
    ("", ["--shared", "--api", "mpiio", "--collective", "-t", "64k", "-b", "1m"]),
    ("", ["--verify", "--random", "-t", "64k", "-b", "1m"]),
    ("", ["-t", "64k", "-b", "1m", "-k", "--run-id", "cfgkept", "-p", "write"]),
    ("", ["-t", "64k", "-b", "1m", "--run-id", "cfgkept", "-p", "read"]),
    ("mixed", ["-t", "64k", "-b", "1m"]),
    ("mixed", ["-t", "32k", "-b", "1m"]),
    ("same", ["-t", "64k", "-b", "1m"]),
    ("same", ["-t", "64k", "-b", "1m", "-i", "2"]),
]
UNLABELLED = [str(n) for n in range(1, 8)]


@pytest.fixture(scope="module")
def cfg_file(tmp_path_factory) -> str:
    binary = pfsbench_binary()
    if binary is None:
        pytest.skip("no pfsbench binary: build it (cmake -S . -B build && cmake --build build) or set PFSBENCH")
    t = tmp_path_factory.mktemp("configs")
    d = t / "data"
    d.mkdir()
    out = str(t / "c.h5")
    for label, opts in RUNS:
        args = ["timeout", "120", "mpirun", "-np", "2", "--oversubscribe", "--bind-to", "none", binary, "-d", str(d),
                "-o", out, "-q"] + (["--label", label] if label else []) + opts
        r = subprocess.run(args, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        assert r.returncode == 0, r.stdout
    return out


def _compare(*args: str) -> tuple:
    """(exit status, stdout, stderr) of pfs-compare ARGS, run as the console script runs it."""
    code = "import sys; from pfsbench.cli.compare import main; sys.exit(main())"
    r = subprocess.run([sys.executable, "-c", code] + list(args), env=dict(os.environ, PYTHONPATH=PYDIR),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return r.returncode, r.stdout, r.stderr


def _bandwidths(path: str, runs: List[int], phase: str) -> List[float]:
    return [r["bandwidth"] / 1048576.0 for r in summary_rows(path) if r["run"] in runs and r["phase"] == phase]


def test_unlabelled_runs_are_a_column_per_configuration(cfg_file):
    sel = [x for n in UNLABELLED for x in ("--run", n)]
    rc, out, err = _compare(cfg_file, *sel, "--format", "csv", "--stats", "mean,n")
    assert rc == 0 and err == ""
    table = list(csv.reader(io.StringIO(out)))
    head = table[0]
    assert head == ["phase",
                    "(no label) mean [MiB/s]", "(no label) n",
                    "mode=shared layout=strided transfer=47008 block=470080 total=940160 mean [MiB/s]",
                    "mode=shared layout=strided transfer=47008 block=470080 total=940160 n",
                    "mode=shared api=mpiio collective=1 mean [MiB/s]", "mode=shared api=mpiio collective=1 n",
                    "verify=1 random=1 mean [MiB/s]", "verify=1 random=1 n",
                    "phases=write keep=1 mean [MiB/s]", "phases=write keep=1 n",
                    "phases=read mean [MiB/s]", "phases=read n"], head
    rows = {r[0]: r[1:] for r in table[1:]}
    # Each cell holds its own configuration's runs only: runs 1 and 2 in (no label), one run in each other.
    assert rows["write"][1::2] == ["2", "1", "1", "1", "1", ""]
    assert rows["read"][1::2] == ["2", "1", "1", "1", "", "1"]
    for phase in ("write", "read"):
        want = _bandwidths(cfg_file, [1, 2], phase)
        assert math.isclose(float(rows[phase][0]), sum(want) / 2, rel_tol=1e-12)
        assert math.isclose(float(rows[phase][2]), _bandwidths(cfg_file, [3], phase)[0], rel_tol=1e-12)
    # The text table says what the (no label) column is.
    rc, out, err = _compare(cfg_file, *sel)
    assert rc == 0 and "headed by the options in which it differs from the commonest (mode=file-per-process " \
        "layout=segmented transfer=65536 block=1048576 total=2097152 phases=write,read keep=0 verify=0 random=0 " \
        "api=posix collective=0), which the (no label) column has" in out.splitlines()[0]


def test_one_unlabelled_configuration_keeps_its_column(cfg_file):
    rc, out, err = _compare(cfg_file, "--run", "1", "--run", "2", "--format", "csv", "--stats", "n")
    assert rc == 0 and err == "" and out.splitlines() == ["phase,(no label)", "write,2", "read,2"]


def test_a_label_over_two_configurations_warns(cfg_file):
    rc, out, err = _compare(cfg_file, "--label", "mixed", "--label", "same")
    assert rc == 0
    assert err == ("pfs-compare: warning: column 'mixed' averages runs of 2 configurations (run 8: transfer=65536; "
                   "run 9: transfer=32768); give each configuration its own --label to see them apart\n"), err
    # -i 1 and -i 2 of one configuration ("same") are one configuration: no word, three values.
    rc, out, err = _compare(cfg_file, "--label", "same", "--format", "csv", "--stats", "n")
    assert rc == 0 and err == "" and out.splitlines()[1] == "write,3"


def test_by_ranks_warns_of_the_configurations_it_averages(cfg_file):
    rc, out, err = _compare(cfg_file, "--run", "1", "--run", "3", "--by", "ranks")
    assert rc == 0 and err.startswith("pfs-compare: warning: column ranks=2 averages runs of 2 configurations "
                                      "(run 1: mode=file-per-process layout=segmented transfer=65536 ")


def test_plot_compare_names_each_configuration(cfg_file, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from pfsbench.cli import plot
    svg = str(tmp_path / "c.svg")
    sel = [x for n in UNLABELLED + ["8", "9"] for x in ("--run", n)]
    assert plot.main(["compare", cfg_file] + sel + ["-o", svg]) == 0
    err = capsys.readouterr().err
    assert "pfs-plot: warning: column 'mixed' averages runs of 2 configurations" in err
    text = open(svg).read()
    for heading in ("mode=shared api=mpiio collective=1", "verify=1 random=1", "phases=write keep=1", "phases=read",
                    "(no label)", "mixed"):
        assert ">%s<" % heading in text, heading


def test_configuration_of_a_run(cfg_file):
    runs: Dict[int, dict] = {r["run"]: r for r in run_rows(cfg_file)}
    o = configs.run_options(runs[11])
    # ranks and nodes first, then the stored options, less those that only set how many samples are taken.
    assert list(o)[:3] == ["ranks", "nodes", "dir"] and o["ranks"] == "2" and o["transfer"] == "65536"
    assert not set(o) & configs.NOT_CONFIGURATION and "reps" not in o
    assert configs.key_of(o) == configs.key_of(configs.run_options(runs[10]))
    assert configs.key_of(o) != configs.key_of(configs.run_options(runs[9]))
    assert configs.run_options({"ranks": 4, "config": 5}) == {"ranks": "4"}
