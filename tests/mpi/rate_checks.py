"""The checks tests/mpi/test_rate.sh makes on runs paced by --rate:

    rate_checks.py CHECK ARGS...

exits 0 when the check holds, else raises an AssertionError naming what
differs. Each looks at the last run of its results file.

  achieved RESULTS OFFERED [TOL]  every phase: offered_rate is OFFERED (ops/s
                             for the job), the schedule's rate is within TOL of
                             it (0 by default: fixed arrivals; poisson ones
                             carry their spread) and the achieved rate within
                             2% of the schedule's
  stall RESULTS RATE STALL   one transfer of one of 2 streams stalled STALL s
                             at RATE ops/s per stream: the response p99 rises
                             by what coordinated-omission correction predicts,
                             the service p99 does not
  short RESULTS              the achieved rate fell short: rate_short is 1
  same A B C                 poisson: the runs A and B (the same --run-id, so
                             the same seed) give every stream the same last
                             intended start (times' due_last, exact ns); run C
                             (another run id) gives others
  frames RESULTS OFFERED     pfsbench.open()'s summary frame has the offered
                             and achieved rates and the response percentiles
"""
import math
import os
import sys
from typing import Any, List

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import pfsbench  # noqa: E402
from runs import dispatch  # noqa: E402

OP, RESP = 0, 4  # latency kinds: op (service time), response


def phases(path: str) -> List[Any]:
    f = h5py.File(path, "r")
    run = f["runs"][sorted(f["runs"])[-1]]
    return [run["phases"][n] for n in sorted(run["phases"])]


def achieved(path: str, offered: str, tol: str = "0") -> None:
    want, t = float(offered), float(tol)
    for g in phases(path):
        assert g.attrs["latency_kinds"] == "op,open,fsync,close,response,read,write", g.attrs["latency_kinds"]
        o, r, s_ = float(g["offered_rate"][0]), float(g["rate"][0]), float(g["scheduled_rate"][0])
        assert o == want, (g.name, o, want)
        # fixed: n transfers a stream over n periods and stream i's offset of i/N of one
        assert abs(s_ - o) <= max(t, 0.001) * o, (g.name, "scheduled", s_, "offered", o, "tolerance", t)
        assert abs(r - s_) <= 0.02 * s_, (g.name, "achieved", r, "scheduled", s_, "offered", o)
        assert int(g["rate_short"][0]) == 0, g.name
        lat = g["latency"][0]
        ops = int(g["ops"][0])
        assert lat[OP].sum() == ops and lat[RESP].sum() == ops, (lat[OP].sum(), lat[RESP].sum(), ops)
        s = g["latency_summary"][0]
        assert s[RESP]["p50_ns"] >= s[OP]["p50_ns"] * 0.9, (s[RESP], s[OP])


def stall(path: str, rate: str, secs: str) -> None:
    """With a fixed rate R per stream and one transfer held S seconds, the
    transfers due during the stall (S x R of them) wait for it: the k-th
    after it is answered about S - k / R after its intended start. Of N
    transfers in all, the slowest 1% (ceil(0.01 N)) are then all from the
    stall, so the response p99 is about S - ceil(0.01 N) / R; the service
    times hold one slow transfer, under 1%, so their p99 stays small."""
    g = phases(path)[0]
    R, S = float(rate), float(secs)
    n = int(g["ops"][0])
    expect = S - math.ceil(0.01 * n) / R
    s = g["latency_summary"][0]
    resp, serv = s[RESP]["p99_ns"] * 1e-9, s[OP]["p99_ns"] * 1e-9
    assert resp >= 0.9 * expect, ("response p99", resp, "expected about", expect)
    assert resp <= expect + 0.1, ("response p99", resp, "not absurdly above", expect)
    assert serv < 0.1 * S, ("service p99", serv, "stall", S)
    assert s[OP]["max_ns"] * 1e-9 >= S, ("the stalled transfer's service time", s[OP]["max_ns"])
    assert s[RESP]["max_ns"] >= s[OP]["max_ns"], (s[RESP]["max_ns"], s[OP]["max_ns"])


def short(path: str) -> None:
    g = phases(path)[0]
    assert int(g["rate_short"][0]) == 1, int(g["rate_short"][0])
    assert float(g["rate"][0]) < 0.98 * float(g["offered_rate"][0]), (g["rate"][0], g["offered_rate"][0])


def kept_up(path: str) -> None:
    for g in phases(path):
        assert int(g["rate_short"][0]) == 0, (g.name, "short", float(g["rate"][0]), float(g["scheduled_rate"][0]))


def due_last(path: str) -> List[int]:
    return [int(v) for v in phases(path)[0]["times"][0]["due_last"]]


def same(a: str, b: str, c: str) -> None:
    da, db, dc = due_last(a), due_last(b), due_last(c)
    assert all(v > 0 for v in da), da
    assert da == db, ("the same seed", da, db)
    assert all(x != z for x, z in zip(da, dc)), ("another seed", da, dc)


def frames(path: str, offered: str) -> None:
    s = pfsbench.open(path).summary()
    last = s[s.run == s.run.max()]
    assert len(last) > 0
    for _, r in last.iterrows():
        assert r["offered_rate"] == float(offered), r["offered_rate"]
        assert abs(r["rate"] - r["offered_rate"]) <= 0.02 * r["offered_rate"], (r["rate"], r["offered_rate"])
        assert r["offered_bandwidth"] == r["offered_rate"] * r["transfer"], r["offered_bandwidth"]
        assert not bool(r["rate_short"]), r["rate_short"]
        assert r["response_p99_ns"] >= r["response_p50_ns"] > 0, (r["response_p50_ns"], r["response_p99_ns"])
        assert r["submit_lag_max_ns"] >= r["submit_lag_mean_ns"] >= 0, (r["submit_lag_mean_ns"], r["submit_lag_max_ns"])


if __name__ == "__main__":
    sys.exit(dispatch({"achieved": achieved, "stall": stall, "short": short, "kept_up": kept_up, "frames": frames,
                              "same": same}, sys.argv))
