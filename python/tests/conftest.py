"""Fixtures: real results files made with build/pfsbench (or $PFSBENCH).

The runs go over two fake nodes (tests/lib/fakenodes.sh: host names node1
and node2; needs root for unshare --uts), else plain mpirun on this host.
Every test that needs a file is skipped, saying why, when no pfsbench
binary is there.
"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
PYDIR = os.path.dirname(HERE)
SRC = os.path.dirname(PYDIR)
sys.path.insert(0, PYDIR)

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
           OMPI_MCA_btl_base_warn_component_unused="0", OMPI_MCA_btl_vader_single_copy_mechanism="none")


def summary_rows(path):
    """pfsbench.rows.summary_rows of the file at path."""
    import pfsbench
    from pfsbench import rows
    with pfsbench.open(path, warn=False) as r:
        return rows.summary_rows(r)


def run_rows(path):
    """pfsbench.rows.runs of the file at path."""
    import pfsbench
    from pfsbench import rows
    with pfsbench.open(path, warn=False) as r:
        return rows.runs(r)


def raw_rows(path, run):
    """pfsbench.rows.raw_rows of run `run` of the file at path."""
    import pfsbench
    from pfsbench import rows
    with pfsbench.open(path, warn=False) as r:
        return rows.raw_rows(r.run(run))


def pfsbench_binary():
    p = os.environ.get("PFSBENCH") or os.path.join(SRC, "build", "pfsbench")
    return p if os.path.isfile(p) and os.access(p, os.X_OK) else None


def _run(args, d, log):
    """pfsbench ARGS on 2 fake nodes x 2 ranks, else 4 ranks here; True on fake nodes."""
    binary = pfsbench_binary()
    fake = ["bash", os.path.join(SRC, "tests", "lib", "fakenodes.sh"), "2", "2", "120", "--", binary] + args
    r = subprocess.run(fake, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    log.append(r.stdout)
    if r.returncode == 0:
        return True
    plain = ["timeout", "120", "mpirun", "-np", "4", "--oversubscribe", "--bind-to", "none", binary] + args
    r = subprocess.run(plain, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    log.append(r.stdout)
    if r.returncode != 0:
        pytest.fail("pfsbench failed:\n%s" % "\n".join(log))
    return False


@pytest.fixture(scope="session")
def files(tmp_path_factory):
    """{"new": path, "old": path, "fake_nodes": bool}: run 1 (write, read,
    create, stat, 2 repetitions, 2 threads per rank, -e) and run 2 (write,
    read, read) in one file; "old" is a copy without what pfsbench added in
    issues 16 and 17 (latency, time series, CPU, affinity), without the
    ops and rate datasets and without issue 29's exemplars and targets."""
    if pfsbench_binary() is None:
        pytest.skip("no pfsbench binary: build it (cmake -S . -B build && cmake --build build) or set PFSBENCH")
    t = tmp_path_factory.mktemp("pfsbench")
    d = t / "data"
    d.mkdir()
    new = str(t / "r.h5")
    log = []
    fake = _run(["-d", str(d), "--threads", "2", "-t", "64k", "-b", "1m", "-p", "write,read,create,stat", "-n", "10",
                 "-i", "2", "-e", "-o", new, "--label", "first"], d, log)
    _run(["-d", str(d), "-t", "64k", "-b", "512k", "-p", "write,read,read", "-o", new, "--label", "second \u00e9"],
         d, log)
    old = str(t / "old.h5")
    shutil.copy(new, old)
    make_old(old)
    return {"new": new, "old": old, "fake_nodes": fake}


def _drop_fields(grp, name, fields):
    data = grp[name][()]
    keep = [f for f in data.dtype.names if f not in fields]
    new = np.empty(data.shape, dtype=[(f, data.dtype.fields[f][0]) for f in keep])
    for f in keep:
        new[f] = data[f]
    attrs = dict(grp[name].attrs)
    del grp[name]
    grp.create_dataset(name, data=new)
    for k, v in attrs.items():
        grp[name].attrs[k] = v


def make_old(path):
    """Deletes, in place, what a file of an older pfsbench lacks."""
    with h5py.File(path, "r+") as f:
        for rname, g in f["runs"].items():
            _drop_fields(g, "placement", ("cpu_affinity", "cpus", "numa_nodes"))
            for pname, pg in g["phases"].items():
                for k in list(pg.keys()):
                    if k.startswith("latency") or k.startswith("node_latency") or k in (
                            "timeseries", "cpu_user", "cpu_sys", "ops", "rate", "node_rate", "exemplars",
                            "targets", "target_latency"):
                        del pg[k]
                if "latency_kinds" in pg.attrs:
                    del pg.attrs["latency_kinds"]
                _drop_fields(pg, "times", ("cpu_user", "cpu_sys"))
