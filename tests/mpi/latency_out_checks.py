"""The checks tests/mpi/test_latency_out.sh makes on the latency, IOPS,
CPU and time series figures in every output of a real run:

    latency_out_checks.py CHECK ARGS...

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  h5 RESULTS             latency, node_latency and the time series add up to the ops and bytes
  json OUT               iops, cpu, latency per kind and the slowest node in every repetition
  csv OUT                the old columns first, then iops, lat_*_us and cpu_percent
  timeseries CSV RESULTS pfs-results --timeseries: bytes per interval and node add up
  make_old RESULTS       latency, time series and CPU datasets removed (an older file)
"""
import csv
import json
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def h5(results: str) -> None:
    run = h5py.File(results, "r")["runs/000001"]
    K = int(run.attrs["nodes"])
    for name in ("00_write", "01_read", "02_create"):
        g = run["phases"][name]
        R = int(g.attrs["repetitions"])
        assert g.attrs["latency_kinds"] == "op,open,fsync,close,response,read,write", g.attrs["latency_kinds"]
        lat, nl, ops, byts = g["latency"][()], g["node_latency"][()], g["ops"][()], g["bytes"][()]
        assert lat.shape == (R, 7, len(g["latency_bucket_lo"])) and nl.shape[:2] == (R, K), (lat.shape, nl.shape)
        summ = g["latency_summary"][()]
        for r in range(R):
            assert lat[r][0].sum() == ops[r] > 0, (name, r, lat[r][0].sum(), ops[r])
            assert nl[r].sum() == ops[r], (name, r, nl[r].sum(), ops[r])
            assert summ[r, 0]["count"] == ops[r] and \
                summ[r, 0]["min_ns"] <= summ[r, 0]["p50_ns"] <= summ[r, 0]["p99_ns"] <= summ[r, 0]["max_ns"]
            ts = g["timeseries/rep_%03d" % r]
            n = int(ts.attrs["intervals"])
            assert ts["bytes"].shape == (n, K) and n >= 1 and ts.attrs["interval"] > 0
            assert ts["bytes"][()].sum() == byts[r], (name, r, ts["bytes"][()].sum(), byts[r])
            assert ts["ops"][()].sum() == ops[r] and ts["run_hist"][()].sum() == ops[r]
            for d in ("bytes", "ops", "p50_ns", "p99_ns", "max_ns", "run_hist"):
                assert "units" in ts[d].attrs, d
        if name == "00_write":  # -e: one fsync per file, and one open and one close
            assert (lat[:, 1].sum(axis=1) == 2).all() and (lat[:, 2].sum(axis=1) == 2).all() and \
                (lat[:, 3].sum(axis=1) == 2).all()
        for d in ("latency", "latency_summary", "node_latency", "node_latency_summary", "cpu_user", "cpu_sys",
                  "latency_bucket_lo", "latency_bucket_hi"):
            assert "units" in g[d].attrs, d
        assert g["cpu_user"].shape == (R, K) and {"cpu_user", "cpu_sys"} <= set(g["times"].dtype.names)
        assert np.allclose(g["cpu_user"][()].sum(axis=1), g["times"]["cpu_user"].sum(axis=1))


def json_out(out: str) -> None:
    with open(out) as f:
        d = json.load(f)
    for p in d["phases"]:
        for r in p["repetitions"]:
            assert abs(r["iops"] - r["ops"] / r["seconds"]) <= 1e-6 * r["iops"]
            assert r["cpu_percent"] >= 0 and r["cpu_user_s"] >= 0 and r["cpu_sys_s"] >= 0
            lat = r["latency"]
            assert set(lat) == {"op", "open", "fsync", "close", "response", "read", "write"} and lat["op"]["count"] == r["ops"]
            op = lat["op"]
            assert op["min_ns"] <= op["p50_ns"] <= op["p90_ns"] <= op["p99_ns"] <= op["p999_ns"] <= op["max_ns"]
            assert r["slowest_node"] == 0 and r["slowest_node_p99_ns"] > 0


def csv_out(out: str) -> None:
    with open(out) as f:
        rows = list(csv.reader(f))
    head = rows[0]
    assert head.index("fs_layout") < head.index("iops") < head.index("lat_p50_us") < head.index("cpu_percent"), head
    for row in rows[1:]:
        r = dict(zip(head, row))
        assert len(row) == len(head)
        assert int(r["lat_count"]) == int(r["ops"]) == 32
        assert 0 < float(r["lat_min_us"]) <= float(r["lat_p50_us"]) <= float(r["lat_p99_us"]) <= float(r["lat_max_us"])
        assert abs(float(r["iops"]) - float(r["ops_per_s"])) <= 1e-6 * float(r["iops"])
        assert float(r["cpu_percent"]) >= 0


def timeseries(csv_path: str, results: str) -> None:
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    assert rows and list(rows[0]) == ["run", "phase", "rep", "interval", "t_start_s", "t_end_s", "node", "bytes", "ops",
                                      "p50_ns", "p99_ns", "max_ns"], list(rows[0]) if rows else rows
    g = h5py.File(results, "r")["runs/000001/phases"]
    for name, ph in (("00_write", "write"), ("01_read", "read")):
        for r in range(2):
            got = sum(int(x["bytes"]) for x in rows if x["phase"] == ph and x["rep"] == str(r))
            assert got == g[name]["bytes"][r], (ph, r, got)
            ts, tm = g[name]["timeseries/rep_%03d" % r], g[name]["times"][r]
            mine = [x for x in rows if x["phase"] == ph and x["rep"] == str(r)]
            for x in mine:  # each interval's true edges, as stored
                i = int(x["interval"])
                assert float(x["t_start_s"]) == ts["start"][i] and float(x["t_end_s"]) == ts["end"][i], x
            # the first starts at the phase's first open, the last ends at its last close
            assert min(float(x["t_start_s"]) for x in mine) == tm["open_start"].min(), ph
            assert max(float(x["t_end_s"]) for x in mine) == tm["close_end"].max(), ph


def make_old(results: str) -> None:
    f = h5py.File(results, "r+")
    for g in f["runs/000001/phases"].values():
        for d in ("latency", "latency_summary", "node_latency", "node_latency_summary", "latency_bucket_lo",
                  "latency_bucket_hi", "cpu_user", "cpu_sys", "timeseries"):
            del g[d]


if __name__ == "__main__":
    sys.exit(dispatch({"h5": h5, "json": json_out, "csv": csv_out, "timeseries": timeseries, "make_old": make_old},
                      sys.argv))
