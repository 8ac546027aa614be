"""The checks tests/mpi/test_plot_latency.sh makes on pfs-plot's plotted
series (--data-csv) against the results file:

    plot_latency_checks.py CHECK ARGS...

exits 0 when the check holds, else raises an AssertionError naming what
differs. Each looks at run 1 of RESULTS.

  timeline RESULTS CSV   per phase, repetition and node, bytes and ops sum to the file's
  latency RESULTS CSV    a CDF per phase ending at 1.0, count = ops, ends = min and max
  rep0 RESULTS CSV       --rep 0: p50, p99, p99.9 = latency_summary of repetition 0
  per_node RESULTS CSV   --per node: each node's CDF ends at 1.0 with node_latency's count
  svg FILE               an XML file with an svg root (exit 1 otherwise)
  make_old RESULTS       (not a check) deletes the latency, time series and CPU datasets
"""
import csv
import os
import sys
import xml.etree.ElementTree as ET
from typing import Dict, List, Set, Tuple

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def read_csv(path: str) -> List[Dict[str, str]]:
    with open(path) as f:
        return list(csv.DictReader(f))


def timeline(results: str, csv_path: str) -> None:
    rows = read_csv(csv_path)
    ph = h5py.File(results, "r")["runs/000001/phases"]
    seen: Set[Tuple[str, int]] = set()
    for g in ph.values():
        name = text(g.attrs["phase"])
        for rep in range(int(g.attrs["repetitions"])):
            rs = [r for r in rows if r["phase"] == name and int(r["rep"]) == rep]
            assert rs, (name, rep)
            seen.add((name, rep))
            assert sum(int(r["bytes"]) for r in rs) == int(g["bytes"][rep]), (name, rep)
            assert sum(int(r["ops"]) for r in rs) == int(g["ops"][rep]), (name, rep)
            for k in range(g["node_bytes"].shape[1]):
                assert sum(int(r["bytes"]) for r in rs if int(r["node"]) == k) == int(g["node_bytes"][rep][k]), \
                    (name, k)
            ts = g["timeseries/rep_%03d" % rep]
            dt = float(ts.attrs["interval"])
            lo, hi = ts["start"][()], ts["end"][()]
            tm = g["times"][rep]
            first = min(float(r["t_start_s"]) for r in rs)
            last = max(float(r["t_end_s"]) for r in rs)
            # the band and the steps end where the phase does: first open to last close, on the plot's axis
            assert abs((last - first) - (tm["close_end"].max() - tm["open_start"].min())) < 2e-6, (name, rep)
            # the first interval starts at the first open: before the grid's origin t0 (the last arrival
            # at the start agreement) only when another node's corrected clock put its open there
            early = max(0.0, float(ts.attrs["t0"]) - lo[0])
            for r in rs:  # the plotted rate is the interval's bytes / its overlap with the phase
                i = int(r["interval"])
                span = hi[i] - lo[i]
                assert 0 < span <= 1.25 * dt + (early if i == 0 else 0) + 1e-9, (r, span, early)
                assert abs(float(r["bytes_per_s"]) - int(r["bytes"]) / span) <= \
                    1e-5 * max(1.0, int(r["bytes"]) / span), r
                assert abs(float(r["t_end_s"]) - float(r["t_start_s"]) - span) < 2e-6, r
                assert r["straggler"] == str(int(g["node_straggler"][rep][int(r["node"])])), r
    assert len(seen) == 10, seen
    t = [float(r["t_start_s"]) for r in rows]
    assert min(t) == 0, min(t)   # x: since the run's first phase started, where its first interval starts
    starts: Dict[Tuple[str, int], float] = {}
    for r in rows:
        starts.setdefault((r["phase"], int(r["rep"])), float(r["t_start_s"]))
    order = sorted(starts, key=lambda k: starts[k])
    assert order[0] == ("write", 0), order   # the phases one after another on one axis


def latency(results: str, csv_path: str) -> None:
    rows = read_csv(csv_path)
    ph = h5py.File(results, "r")["runs/000001/phases"]
    for g in ph.values():
        name = text(g.attrs["phase"])
        e = [r for r in rows if r["series"] == name and r["point"] == "edge"]
        assert e, name
        fr = [float(r["fraction"]) for r in e]
        cnt = [int(r["cum_count"]) for r in e]
        x = [float(r["x_ns"]) for r in e]
        assert fr[0] == 0 and fr[-1] == 1.0, (name, fr[0], fr[-1])
        assert all(b >= a for a, b in zip(fr, fr[1:])) and all(b >= a for a, b in zip(x, x[1:])), name
        assert cnt[-1] == int(g["ops"][()].sum()), (name, cnt[-1], g["ops"][()])
        summ = g["latency_summary"][()]
        assert x[0] == min(summ[r, 0]["min_ns"] for r in range(len(summ))), name
        assert x[-1] == max(summ[r, 0]["max_ns"] for r in range(len(summ))), name


def exemplars(results: str, csv_path: str) -> None:
    """Each phase's line carries its stored exemplars of the phase's own
    operation, every repetition's, as ticks (the CSV's exemplar points)."""
    rows = read_csv(csv_path)
    ph = h5py.File(results, "r")["runs/000001/phases"]
    for g in ph.values():
        name = text(g.attrs["phase"])
        ex = g["exemplars"][()]
        want = sorted(int(e["duration_ns"]) for e in ex if text(e["op"]) == name)
        got = sorted(int(float(r["x_ns"])) for r in rows if r["series"] == name and r["point"] == "exemplar")
        assert want and got == want, (name, got, want)


def rep0(results: str, csv_path: str) -> None:
    rows = read_csv(csv_path)
    ph = h5py.File(results, "r")["runs/000001/phases"]
    for g in ph.values():
        name = text(g.attrs["phase"])
        s = g["latency_summary"][0, 0]
        got = {r["point"]: float(r["x_ns"]) for r in rows if r["series"] == name and r["point"] != "edge"}
        want = {"p50": s["p50_ns"], "p99": s["p99_ns"], "p99.9": s["p999_ns"]}
        assert all(abs(got[k] - want[k]) <= 0.5 for k in want), (name, got, want)
        e = [r for r in rows if r["series"] == name and r["point"] == "edge"]
        assert int(e[-1]["cum_count"]) == int(g["ops"][0]) == int(s["count"]), name


def per_node(results: str, csv_path: str) -> None:
    rows = read_csv(csv_path)
    g = h5py.File(results, "r")["runs/000001/phases/01_read"]
    nl = g["node_latency"][()]
    for k in range(nl.shape[1]):
        e = [r for r in rows if r["node"] == str(k) and r["point"] == "edge"]
        assert float(e[-1]["fraction"]) == 1.0 and int(e[-1]["cum_count"]) == int(nl[:, k].sum()), k


def svg(path: str) -> None:
    r = ET.parse(path).getroot()
    sys.exit(not r.tag.endswith("svg"))


def make_old(results: str) -> None:
    f = h5py.File(results, "r+")
    for run in f["runs"].values():
        for g in run["phases"].values():
            for k in ("latency", "latency_bucket_lo", "latency_bucket_hi", "latency_summary", "node_latency",
                      "node_latency_summary", "timeseries", "cpu_user", "cpu_sys", "exemplars"):
                if k in g:
                    del g[k]


if __name__ == "__main__":
    sys.exit(dispatch({"timeline": timeline, "latency": latency, "rep0": rep0, "per_node": per_node, "svg": svg,
                       "exemplars": exemplars,
                       "make_old": make_old}, sys.argv))
