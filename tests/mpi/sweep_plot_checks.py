"""The checks tests/mpi/test_sweep_plot.sh makes on pfs-sweep's results
files and on pfs-plot's and pfs-compare's output:

    sweep_plot_checks.py CHECK ARGS...

exits 0 when the check holds, else raises an AssertionError naming what
differs. The pfsbench package comes from PYTHONPATH (the script sets it).

  runs RESULTS              runs 1-3 of the t1 sweep: labels, ranks, reps, sizes
  nodes RESULTS             the fake-node sweep: n=1 on node1, n=2 on node1, node2
  png FILE / svg FILE       a valid PNG over 10 KB / an SVG that parses
  plant STRAG CLEAN         (not a check) one straggler in STRAG, none in CLEAN
  means FMT SCALE RESULTS OUT   pfs-compare's table cells are the summary means
  stats OUT RESULTS         --stats mean,min,max: each cell what the reps give
  by_rep OUT                --by rep --names iozone: rep 0, rep 1, their mean
  transpose OUT             --transpose --names bonnie: a row per configuration
  utilization OUT           --value utilization: fractions in (0, 1]
  strip_kinds FILE COPY     (not a check) COPY is FILE without `kind` attributes
  kinds RESULTS             the file's kind wins; kinds and units agree with pfsbench
  log_axis RESULTS SVG      a log axis exactly when the rates span more than 30x
"""
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from typing import Dict, List, Tuple

import h5py

import pfsbench
import pfsbench.rows as pr
from pfsbench import binary
from pfsbench.cli import names, table as pc
from pfsbench.text import text as ptext

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def runs(results: str) -> None:
    res = pfsbench.open(results)
    rs = pr.runs(res)
    assert [(r["label"], r["ranks"], r["status"]) for r in rs] == \
        [("t1:n=1", 1, "complete"), ("t1:n=2", 2, "complete"), ("t1:n=4", 4, "complete")], rs
    rows = pr.summary_rows(res)
    for n in (1, 2, 4):
        mine = [r for r in rows if r["ranks"] == n]
        assert sorted((r["phase"], r["rep"]) for r in mine) == \
            [("read", 0), ("read", 1), ("write", 0), ("write", 1)], mine
        assert all(r["bytes"] == 1 << 20 and r["block"] == (1 << 20) // n for r in mine), mine


def nodes(results: str) -> None:
    f = h5py.File(results, "r")
    got: Dict[str, Tuple[int, List[str]]] = {}
    for name, g in f["runs"].items():
        hosts = sorted({h.decode() for h in g["placement"][()]["host"]})
        got[g.attrs["label"]] = (int(g.attrs["nodes"]), hosts)
    assert got == {"fn:n=1": (1, ["node1"]), "fn:n=2": (2, ["node1", "node2"])}, got


def png(path: str) -> None:
    with open(path, "rb") as f:
        b = f.read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n", b[:8]
    assert len(b) > 10000, len(b)
    assert b[12:16] == b"IHDR"


def svg(path: str) -> None:
    root = ET.parse(path).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    assert len(list(root.iter())) > 50


def plant(strag: str, clean: str) -> None:
    for path, planted in ((strag, True), (clean, False)):
        with h5py.File(path, "r+") as f:
            for name, g in f["runs"].items():
                for ph in ("00_write", "01_read"):
                    s = g["phases/%s/node_straggler" % ph]
                    a = s[()]
                    a[:] = 0
                    if planted and ph == "00_write" and g.attrs["label"] == "fn:n=2":
                        a[1, 1] = 1
                    s[...] = a


def means(fmt: str, scale_s: str, results: str, out_path: str) -> None:
    scale = float(scale_s)
    with open(out_path) as f:
        out = f.read()
    rows = [r for r in pr.summary_rows(pfsbench.open(results)) if r["label"].startswith("t1:")]

    def mean(phase: str, n: int) -> float:
        v = [float(r["bandwidth"]) for r in rows if r["phase"] == phase and r["ranks"] == n]
        assert len(v) == 2, v
        return sum(v) / len(v) / scale

    lines = out.splitlines()
    if fmt == "csv":
        t = list(csv.reader(io.StringIO(out)))
        unit = {1048576.0: "MiB/s", 1024.0: "KB/s", 1e9: "GB/s"}[scale]
        assert t[0] == ["phase"] + ["ranks=%d [%s]" % (n, unit) for n in (1, 2, 4)], t[0]
        assert [r[0] for r in t[1:]] == ["write", "read"], t
        for r in t[1:]:
            for n, cell in zip((1, 2, 4), r[1:]):
                want = mean(r[0], n)
                assert abs(float(cell) - want) <= 1e-9 * want, (r[0], n, cell, want)
    elif fmt == "text":
        assert "MiB/s (MiB = 2^20 bytes)" in lines[0] and "mean" in lines[0], lines[0]
        assert re.split(r"\s{2,}", lines[1]) == ["[MiB/s] phase \\ ranks", "1", "2", "4"], lines[1]
        body = [re.split(r"\s{2,}", line) for line in lines[2:]]
        assert [b[0] for b in body] == ["write", "read"], body
        for b in body:
            for n, cell in zip((1, 2, 4), b[1:]):
                assert cell == "%.2f" % mean(b[0], n), (b, n, cell, mean(b[0], n))
    else:  # md
        assert "KB/s (KB = 1024 bytes" in lines[0], lines[0]
        assert lines[1] == "", lines
        assert lines[2] == "| [KB/s] phase \\ ranks | 1 | 2 | 4 |", lines[2]
        assert lines[3] == "|---|---:|---:|---:|", lines[3]
        body = [[c.strip() for c in line.strip("|").split("|")] for line in lines[4:]]
        assert [b[0] for b in body] == ["write", "read"], body
        for b in body:
            for n, cell in zip((1, 2, 4), b[1:]):
                assert cell == "%.2f" % mean(b[0], n), (b, n, cell)
    print("ok")


def stats(out: str, results: str) -> None:
    with open(out) as f:
        t = list(csv.reader(f))
    labels = ["t1:n=1", "t1:n=2", "t1:n=4"]
    assert t[0] == ["phase"] + ["%s %s [MiB/s]" % (lb, s) for lb in labels for s in ("mean", "min", "max")], t[0]
    rows = pr.summary_rows(pfsbench.open(results))
    for r in t[1:]:
        for i, lb in enumerate(labels):
            v = [float(x["bandwidth_mib"]) for x in rows if x["label"] == lb and x["phase"] == r[0]]
            got = [float(c) for c in r[1 + 3 * i:4 + 3 * i]]
            want = [sum(v) / len(v), min(v), max(v)]
            assert all(abs(a - b) <= 1e-9 * b for a, b in zip(got, want)), (r[0], lb, got, want)


def by_rep(out: str) -> None:
    with open(out) as f:
        lines = f.read().splitlines()
    assert "KB/s" in lines[0] and "repetition, and the mean of all" in lines[0], lines[0]
    assert re.split(r"\s{2,}", lines[1]) == ["[KB/s] phase \\ rep", "rep 0", "rep 1", "mean"], lines[1]
    body = [re.split(r"\s{2,}", line) for line in lines[2:]]
    assert [b[0] for b in body] == ["Initial write", "Read"], body
    for b in body:
        a, c, m = (float(x) for x in b[1:])
        assert abs((a + c) / 2 - m) <= 0.011, b


def transpose(out: str) -> None:
    with open(out) as f:
        t = list(csv.reader(f))
    assert t[0] == ["label", "Block output [KB/s]", "Block input [KB/s]"], t[0]
    assert [r[0] for r in t[1:]] == ["t1:n=1", "t1:n=2", "t1:n=4"], t


def utilization(out: str) -> None:
    with open(out) as f:
        t = list(csv.reader(f))
    assert t[0][1] == "ranks=1 [fraction]", t[0]
    assert all(0 < float(c) <= 1.0 for r in t[1:] for c in r[1:]), t


def strip_kinds(path: str, copy: str) -> None:
    shutil.copy(path, copy)
    with h5py.File(copy, "r+") as f:
        f.visititems(lambda n, o: o.attrs.__delitem__("kind") if "kind" in o.attrs else None)


def kinds(results: str) -> None:
    table = json.loads(subprocess.run([os.environ["PFSBENCH"], "--list-options=json"], stdout=subprocess.PIPE,
                                      check=True, universal_newlines=True).stdout)
    assert binary.phase_kinds() == {p["name"]: p["kind"] for p in table["phases"]}
    for u in table["units"]:
        assert names.UNITS[u["name"]][:2] == (float(u["bytes_per_second"]), u["label"]), u
    t = tempfile.mkdtemp()
    f2 = os.path.join(t, "k.h5")
    shutil.copy(results, f2)
    with h5py.File(f2, "r+") as f:   # a file that calls stat a data phase: its rows say so
        for n, g in f["runs/000001/phases"].items():
            if ptext(g.attrs["phase"]) == "stat":
                g.attrs["kind"] = "data"
    got = {r["phase"]: r["kind"] for r in pr.summary_rows(pfsbench.open(f2))}
    assert got == {"write": "data", "read": "data", "create": "metadata", "stat": "data",
                   "read-files": "metadata", "delete": "metadata"}, got
    assert [p["kind"] for p in pr.raw_times(pfsbench.open(f2).run(1))][3] == "data"
    assert not pc.is_meta("stat", pc.Data(f2, "pfs-compare")) and pc.is_meta("stat")
    shutil.rmtree(t)


def log_axis(results: str, svg_path: str) -> None:
    f = h5py.File(results, "r")
    vals = [float(x) for g in f["runs/000001/phases"].values() for x in g["rate"][()]]
    with open(svg_path) as s:
        text = s.read()
    assert ("[log scale]" in text) == (max(vals) / min(vals) > 30), (vals, "[log scale]" in text)


if __name__ == "__main__":
    sys.exit(dispatch({"runs": runs, "nodes": nodes, "png": png, "svg": svg, "plant": plant, "means": means,
                       "stats": stats, "by_rep": by_rep, "transpose": transpose, "utilization": utilization,
                       "strip_kinds": strip_kinds, "kinds": kinds, "log_axis": log_axis}, sys.argv))
