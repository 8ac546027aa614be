"""One schema (issue 26): the tools take the field names of the per-stream
times and of /summary from the file's own compound types, so pfs-results
--raw shows every field pfsbench wrote (stonewall_transfers, cpu_user and
cpu_sys were dropped by a copied list), and a field added later shows
without a change to the tools."""
from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from typing import List

import h5py
import numpy as np

from conftest import PYDIR, raw_rows
from pfsbench.text import text

# What pfs-results --raw puts before the file's fields (docs/results-format.md).
RAW_KEYS = ["phase", "rep", "stream", "rank", "thread", "node", "host"]
# The /summary columns that pfs-results --csv names otherwise (with their unit).
CSV_NAMES = {"transfer": "transfer_bytes", "block": "block_bytes", "bandwidth": "bandwidth_bytes_per_s",
             "stonewall_bandwidth": "stonewall_bandwidth_bytes_per_s", "rate": "rate_ops_per_s"}


def _results(*args: str) -> tuple:
    """(exit status, stdout, stderr) of pfs-results ARGS, as the console script runs it."""
    code = "import sys; from pfsbench.cli.results import main; sys.exit(main())"
    r = subprocess.run([sys.executable, "-c", code] + list(args), env=dict(os.environ, PYTHONPATH=PYDIR),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return r.returncode, r.stdout, r.stderr


def _times_fields(path: str, run: int) -> List[str]:
    with h5py.File(path, "r") as f:
        g = f["runs/%06d/phases" % run]
        names = {tuple(g[p]["times"].dtype.names) for p in g}
    assert len(names) == 1
    return list(names.pop())


def test_raw_shows_every_field_of_the_times(files):
    fields = _times_fields(files["new"], 1)
    assert {"stonewall_transfers", "cpu_user", "cpu_sys"} <= set(fields)  # what pfsbench writes today
    rc, out, err = _results(files["new"], "--run", "1", "--raw", "--csv")
    assert rc == 0 and err == ""
    table = list(csv.DictReader(io.StringIO(out)))
    assert list(table[0]) == RAW_KEYS + fields
    # Every value is the file's: stream 3 of the write's repetition 1.
    with h5py.File(files["new"], "r") as f:
        rec = f["runs/000001/phases/00_write/times"][1, 3]
    row = next(r for r in table if r["phase"] == "write" and r["rep"] == "1" and r["stream"] == "3")
    for k in fields:
        assert float(row[k]) == float(rec[k]), k
    # The text table has the same columns, and the file's own units under it.
    rc, out, err = _results(files["new"], "--run", "1", "--raw")
    lines = out.splitlines()
    assert rc == 0 and lines[0].split() == RAW_KEYS + fields
    with h5py.File(files["new"], "r") as f:
        units = text(f["runs/000001/phases/00_write/times"].attrs["units"])
    assert lines[-1] == "units: " + units and "cpu_user, cpu_sys" in units


def test_a_field_added_to_the_times_is_shown(files, tmp_path):
    """A file whose times hold a field no tool knows (as the next pfsbench
    may write): --raw shows it, under its own name, with its values."""
    path = str(tmp_path / "more.h5")
    shutil.copy(files["new"], path)
    with h5py.File(path, "r+") as f:
        pg = f["runs/000002/phases/00_write"]
        old = pg["times"][()]
        new = np.zeros(old.shape, dtype=old.dtype.descr + [("queue_depth_max", "<u4")])
        for k in old.dtype.names:
            new[k] = old[k]
        new["queue_depth_max"] = np.arange(old.size, dtype=np.uint32).reshape(old.shape) + 7
        attrs = dict(pg["times"].attrs)
        del pg["times"]
        pg.create_dataset("times", data=new)
        pg["times"].attrs.update(attrs)
    rows = raw_rows(path, 2)
    write = [r for r in rows if r["phase"] == "write"]
    assert [r["queue_depth_max"] for r in write] == list(range(7, 7 + len(write)))
    assert all("queue_depth_max" not in r for r in rows if r["phase"] != "write")
    rc, out, err = _results(path, "--run", "2", "--raw", "--csv")
    table = list(csv.DictReader(io.StringIO(out)))
    assert rc == 0 and list(table[0])[-1] == "queue_depth_max"
    assert [r["queue_depth_max"] for r in table if r["phase"] == "read"] == [""] * (len(table) - len(write))


def test_summary_csv_has_every_column_of_the_file(files):
    with h5py.File(files["new"], "r") as f:
        names = list(f["summary"].dtype.names)
    rc, out, err = _results(files["new"], "--csv")
    head = out.splitlines()[0].split(",")
    assert rc == 0 and "stonewall_rate" in names
    assert [k for k in names if CSV_NAMES.get(k, k) not in head] == []
    assert head[:head.index("warmup") + 1] == [  # the named columns stay where they were
        "run", "run_id", "label", "status", "phase", "rep", "ranks", "nodes", "transfer_bytes", "block_bytes", "bytes",
        "seconds", "bandwidth_bytes_per_s", "bandwidth_MiB_per_s", "utilization", "stonewall_bandwidth_bytes_per_s",
        "threads", "streams", "kind", "ops", "rate_ops_per_s", "warmup"]
