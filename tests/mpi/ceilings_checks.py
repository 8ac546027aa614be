"""The checks tests/mpi/test_ceilings.sh makes on --ceilings: the results
file read back with h5py, the text report and the JSON report.

    ceilings_checks.py CHECK ARGS...

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  stored H5 NODES          /runs/N/ceilings: NODES rows, hosts node1.., every rate > 0
  shares H5 NODES          each data repetition's percentages = 100 x bandwidth / the
                           run's ceilings, which are the sums over the nodes (exact)
  text H5 OUT              the line under each data row (-v) says the stored figures
  summary H5 OUT           the line under each data phase's summary row says its mean's
                           shares of the stored ceilings (to the 0.1% printed)
  meta_none H5             metadata phases have no ceiling datasets
  memory H5 ONE ALL        within 1/8x-8x of bench_memcpy's output (one process,
                           and one per CPU against the nodes' all-core sum)
  network H5 LOOP          the nodes' summed rate within 1/8x-8x of ceiling_probe loop's
  json OUT NODES           the JSON report's ceilings and shares
  one_node H5              one node: network NaN, memory binds
  none H5                  nothing of the ceilings stored
  frames H5 NODES          pfsbench.open's ceilings() and summary() say what the file holds
                           (NODES 0: a run without --ceilings, no rows and NaN)
"""
import json
import math
import os
import re
import sys
from typing import Any, Dict, List, Tuple

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import pfsbench  # noqa: E402
from runs import dispatch, text  # noqa: E402

MIB = 1048576.0
FACTOR = 8.0  # the machine is shared and loaded: never a tight bound
PERCENTS = ("memory_ceiling_percent", "network_ceiling_percent", "binding_ceiling")


def _run(f: h5py.File) -> Any:
    runs = list(f["runs"].values())
    assert len(runs) == 1, len(runs)
    return runs[0]


def _data_phases(run: Any) -> List[Tuple[str, Any]]:
    return [(n, g) for n, g in sorted(run["phases"].items()) if text(g.attrs["kind"]) == "data"]


def _rows(run: Any) -> List[Dict[str, Any]]:
    c = run["ceilings"][()]
    return [{k: (text(r[k]) if k == "host" else r[k]) for k in c.dtype.names} for r in c]


def _sum(values: List[float]) -> float:
    """Left to right, as the C loop adds them: the same double."""
    s = 0.0
    for v in values:
        s += v
    return s


def stored(path: str, nodes: str) -> None:
    with h5py.File(path, "r") as f:
        rows = _rows(_run(f))
    assert [r["host"] for r in rows] == ["node%d" % (i + 1) for i in range(int(nodes))], rows
    assert [r["node"] for r in rows] == list(range(int(nodes))), rows
    for r in rows:
        assert r["memcpy_one_core"] > 0 and r["memcpy_all_cores"] > 0 and r["network"] > 0, r


def shares(path: str, nodes: str) -> None:
    with h5py.File(path, "r") as f:
        run = _run(f)
        rows = _rows(run)
        mem, net = float(run.attrs["ceiling_memory"]), float(run.attrs["ceiling_network"])
        assert len(rows) == int(nodes), rows
        assert mem == _sum([float(r["memcpy_all_cores"]) for r in rows]), (mem, rows)
        assert net == _sum([float(r["network"]) for r in rows]), (net, rows)
        phases = _data_phases(run)
        assert [n for n, _ in phases] == ["00_write", "01_read"], phases
        for name, g in phases:
            bw = g["bandwidth"][()]
            mp, np_, b = (g[k][()] for k in PERCENTS)
            assert len(bw) == len(mp) == len(np_) == len(b) == 2, name
            for i, x in enumerate(bw):
                assert mp[i] == 100.0 * float(x) / mem, (name, i, mp[i], x, mem)
                assert np_[i] == 100.0 * float(x) / net, (name, i, np_[i], x, net)
                assert b[i] == (2 if net < mem else 1), (name, i, b[i], mem, net)


LINE = re.compile(r"^(\w+) +(\d+) ceilings: [\d.]+ \S+ is ([\d.]+)% of the clients' memory ceiling( \(binding\))?, "
                  r"(?:([\d.]+)% of their network ceiling( \(binding\))?|network: one node)$")


def text_lines(path: str, out: str) -> None:
    with open(out, encoding="utf-8") as fo:
        got = [m for m in (LINE.match(ln.rstrip("\n")) for ln in fo) if m]
    with h5py.File(path, "r") as f:
        want = []
        for name, g in _data_phases(_run(f)):
            mp, np_, b = (g[k][()] for k in PERCENTS)
            for i in range(len(mp)):
                want.append((name.split("_", 1)[1], str(i), "%.1f" % mp[i], b[i] == 1, "%.1f" % np_[i], b[i] == 2))
    have = [(m[1], m[2], m[3], m[4] is not None, m[5], m[6] is not None) for m in got]
    assert sorted(have) == sorted(want), (have, want)


SUMMARY = re.compile(r"^ +ceilings: the mean at ([\d.]+)% of the clients' memory ceiling( \(binding\))?, "
                     r"(?:([\d.]+)% of their network ceiling( \(binding\))?|network: one node)$")


def summary(path: str, out: str) -> None:
    with open(out, encoding="utf-8") as fo:
        got = [m for m in (SUMMARY.match(ln.rstrip("\n")) for ln in fo) if m]
    with h5py.File(path, "r") as f:
        run = _run(f)
        mem, net = float(run.attrs["ceiling_memory"]), float(run.attrs["ceiling_network"])
        phases = _data_phases(run)
        assert len(got) == len(phases), (got, phases)
        for m, (name, g) in zip(got, phases):
            mean = float(np.mean(g["bandwidth"][()][int(g.attrs["warmup"]):]))
            assert abs(float(m[1]) - 100.0 * mean / mem) <= 0.051, (name, m[0], mean, mem)
            if math.isnan(net):
                assert m[3] is None and m[2] is not None, (name, m[0])
                continue
            assert abs(float(m[3]) - 100.0 * mean / net) <= 0.051, (name, m[0], mean, net)
            assert (m[4] is not None) == (net < mem) and (m[2] is not None) == (net >= mem), (name, m[0])


def meta_none(path: str) -> None:
    with h5py.File(path, "r") as f:
        for name, g in _run(f)["phases"].items():
            if text(g.attrs["kind"]) != "data":
                assert not any(k in g for k in PERCENTS), name


def _bench(out: str) -> float:
    """bench_memcpy's into and from columns as one copy rate (both ways), bytes/s."""
    with open(out, encoding="utf-8") as f:
        for ln in f:
            w = ln.split()
            if w and w[0] == "1_MiB":
                a, b = float(w[1]), float(w[2])
                return MIB * 2.0 / (1.0 / a + 1.0 / b)
    raise AssertionError("no 1_MiB line in %s" % out)


def _within(a: float, b: float, what: str) -> None:
    assert a > 0 and b > 0 and b / FACTOR <= a <= b * FACTOR, "%s: %.4g vs %.4g bytes/s" % (what, a, b)


def memory(path: str, one: str, allc: str) -> None:
    with h5py.File(path, "r") as f:
        rows = _rows(_run(f))
    b1, ball = _bench(one), _bench(allc)
    print("bench one core %.0f MiB/s, all %.0f MiB/s" % (b1 / MIB, ball / MIB))
    for r in rows:
        print("%s one core %.0f, all cores %.0f MiB/s" % (r["host"], r["memcpy_one_core"] / MIB,
                                                          r["memcpy_all_cores"] / MIB))
        _within(float(r["memcpy_one_core"]), b1, "%s one core" % r["host"])
    # The fake nodes share this machine's cores and measured at once: together they had all of them.
    _within(_sum([float(r["memcpy_all_cores"]) for r in rows]), ball, "all cores, nodes summed")


def network(path: str, loop: str) -> None:
    with h5py.File(path, "r") as f:
        rows = _rows(_run(f))
    with open(loop, encoding="utf-8") as fl:
        rates = [float(ln.split()[3]) * MIB for ln in fl if ln.startswith("node ")]
    assert len(rates) == len(rows) == 2, (rates, rows)
    _within(_sum([float(r["network"]) for r in rows]), _sum(rates), "network, nodes summed")


def json_report(out: str, nodes: str) -> None:
    with open(out, encoding="utf-8") as f:
        j = json.load(f)
    c = j["ceilings"]
    assert [n["host"] for n in c["nodes"]] == ["node%d" % (i + 1) for i in range(int(nodes))], c
    for n in c["nodes"]:
        for k in ("memcpy_one_core_bytes_per_s", "memcpy_all_cores_bytes_per_s", "network_bytes_per_s"):
            assert n[k] > 0, (k, n)
    mem, net = c["memory_bytes_per_s"], c["network_bytes_per_s"]
    assert mem == _sum([n["memcpy_all_cores_bytes_per_s"] for n in c["nodes"]]), c
    for p in j["phases"]:
        for r in p["repetitions"]:
            if p["kind"] != "data":
                assert "memory_ceiling_percent" not in r, (p["phase"], r)
                continue
            bw = r["bandwidth_bytes_per_s"]
            assert r["memory_ceiling_percent"] == 100.0 * bw / mem, r
            assert r["network_ceiling_percent"] == 100.0 * bw / net, r
            assert r["binding_ceiling"] == ("network" if net < mem else "memory"), r
        sm = p.get("summary", {})
        if p["kind"] == "data":
            mean = sm["mean"] * j["unit_bytes_per_s"]
            assert math.isclose(sm["memory_ceiling_percent"], 100.0 * mean / mem, rel_tol=1e-9), sm
            assert math.isclose(sm["network_ceiling_percent"], 100.0 * mean / net, rel_tol=1e-9), sm
            assert sm["binding_ceiling"] == ("network" if net < mem else "memory"), sm
        else:
            assert "memory_ceiling_percent" not in sm, sm


def one_node(path: str) -> None:
    with h5py.File(path, "r") as f:
        run = _run(f)
        rows = _rows(run)
        assert len(rows) == 1 and rows[0]["memcpy_all_cores"] > 0 and math.isnan(rows[0]["network"]), rows
        assert math.isnan(float(run.attrs["ceiling_network"])), run.attrs["ceiling_network"]
        mem = float(run.attrs["ceiling_memory"])
        assert mem == float(rows[0]["memcpy_all_cores"]), (mem, rows)
        for name, g in _data_phases(run):
            mp, np_, b = (g[k][()] for k in PERCENTS)
            assert all(math.isnan(x) for x in np_) and all(x == 1 for x in b), name
            assert all(mp[i] == 100.0 * float(x) / mem for i, x in enumerate(g["bandwidth"][()])), name


def none(path: str) -> None:
    with h5py.File(path, "r") as f:
        run = _run(f)
        assert "ceilings" not in run and "ceiling_memory" not in run.attrs, list(run)
        for name, g in run["phases"].items():
            assert not any(k in g for k in PERCENTS), name


def _same(a: Any, b: Any) -> bool:
    """Equal arrays of floats, NaN where the other has NaN."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return x.shape == y.shape and bool(np.all((x == y) | (np.isnan(x) & np.isnan(y))))


def frames(path: str, nodes: str) -> None:
    with pfsbench.open(path) as r:
        c = r.ceilings(as_frame=False)
        s = r.summary(as_frame=False)
    with h5py.File(path, "r") as f:
        run = _run(f)
        rows = _rows(run) if int(nodes) else []
        assert list(c["host"]) == [x["host"] for x in rows], (c, rows)
        for k in ("memcpy_one_core", "memcpy_all_cores", "network"):
            assert _same(c[k], [x[k] for x in rows]), k
        if rows:
            assert _same(c["ceiling_memory"], [run.attrs["ceiling_memory"]] * len(rows)), c
            assert _same(c["ceiling_network"], [run.attrs["ceiling_network"]] * len(rows)), c
        for i, ph in enumerate(s["phase"]):
            g = run["phases"]["%02d_%s" % (s["index"][i], ph)]
            rep = int(s["rep"][i])
            for k in ("memory_ceiling_percent", "network_ceiling_percent"):
                want = g[k][rep] if k in g else np.nan
                assert _same([s[k][i]], [want]), (ph, rep, k, s[k][i], want)
            b = s["binding_ceiling"][i]
            want_b = {1: "memory", 2: "network"}[int(g["binding_ceiling"][rep])] if "binding_ceiling" in g else None
            assert b == want_b if want_b else isinstance(b, float) and math.isnan(b), (ph, rep, b, want_b)


if __name__ == "__main__":
    sys.exit(dispatch({"stored": stored, "shares": shares, "text": text_lines, "meta_none": meta_none,
                       "memory": memory, "network": network, "json": json_report, "one_node": one_node,
                       "none": none, "frames": frames, "summary": summary}, sys.argv))
