"""The figures of bench/pfs-rate-vs-fio.sh: one launch's, and the tables.

    python3 bench/rate_figures.py pfs PFSBENCH.json   (pfsbench --format json)
    python3 bench/rate_figures.py fio FIO.json        (fio --group_reporting)
    python3 bench/rate_figures.py summary OUT STALL_S DUR_S

pfs and fio print "METRIC VALUE" lines (bench/lib.sh's bench_rounds keeps
them as "ROUND NAME METRIC VALUE" in OUT/*/results.txt): ach (achieved ops/s
for the job), p50, p99, max (service time, us: pfsbench's transfer kind,
fio's clat_ns), and pfsbench's r99 (response time p99 from the intended
start, us) and arr (what its arrivals offered, ops/s). Exit status 1, with
why, when a launch failed or moved nothing.

summary prints the tables from OUT/peak/results.txt and OUT/paced/results.txt
(the launch names are TOOL-TARGET-RANKS-LOAD-ARRIVALS, see the script).
"""
import json
import statistics
import sys
from typing import Dict, List, Optional, Tuple

Runs = Dict[str, Dict[int, Dict[str, float]]]  # name -> round -> metric -> value


def pfs(path: str) -> None:
    d = json.load(open(path))
    r = d["phases"][0]["repetitions"][0]
    op, resp = r["latency"]["op"], r["latency"]["response"]
    if d["status"] != "complete" or op["count"] <= 0:
        sys.exit("pfsbench: status %s, %d transfers" % (d["status"], op["count"]))
    print("ach %.3f" % r["iops"])
    print("p50 %.2f\np99 %.2f\nmax %.2f" % (op["p50_ns"] / 1e3, op["p99_ns"] / 1e3, op["max_ns"] / 1e3))
    if "rate" in r and resp["count"] > 0:
        print("r99 %.2f" % (resp["p99_ns"] / 1e3))
        print("arr %.3f" % r["rate"]["scheduled_ops_per_s"])


def fio(path: str) -> None:
    j = json.load(open(path))["jobs"][0]
    s = j["read"]
    c = s["clat_ns"]
    if j.get("error", 0) or s["total_ios"] <= 0:
        sys.exit("fio: error %s, %d reads" % (j.get("error"), s["total_ios"]))
    p = c["percentile"]
    print("ach %.3f" % s["iops"])
    print("p50 %.2f\np99 %.2f\nmax %.2f" % (p["50.000000"] / 1e3, p["99.000000"] / 1e3, c["max"] / 1e3))


def load(path: str) -> Runs:
    runs: Runs = {}
    with open(path) as f:
        for line in f:
            rnd, name, metric, value = line.split()
            runs.setdefault(name, {}).setdefault(int(rnd), {})[metric] = float(value)
    return runs


def med(runs: Runs, name: str, metric: str) -> Optional[float]:
    v = [m[metric] for m in runs.get(name, {}).values() if metric in m]
    return statistics.median(v) if v else None


def ratio(runs: Runs, a: str, am: str, b: str, bm: str) -> Tuple[Optional[float], str]:
    """The median of the per-round ratios a/b, and "(min-max)"."""
    ra, rb = runs.get(a, {}), runs.get(b, {})
    v = sorted(ra[k][am] / rb[k][bm] for k in ra if k in rb and am in ra[k] and bm in rb[k] and rb[k][bm] > 0)
    if not v:
        return None, ""
    return statistics.median(v), "(%.3f-%.3f)" % (v[0], v[-1])


def fmt(x: Optional[float], spec: str = "%.1f") -> str:
    return "n/a" if x is None else spec % x


def full_speed(peak: Runs, cells: List[Tuple[str, str]]) -> None:
    print("At full speed: pfsbench closed loop, pfsbench --rate 1e9 (far above the peak), fio closed loop")
    print("%-8s %10s %10s %14s %9s %9s %9s %9s %10s" % ("cell", "closed/s", "rate1e9/s", "1e9/closed",
          "p50 cl", "p50 1e9", "p99 cl", "p99 1e9", "fio/s"))
    for tgt, n in cells:
        c, m, f = "pfs-%s-%s-closed-x" % (tgt, n), "pfs-%s-%s-max-x" % (tgt, n), "fio-%s-%s-closed-x" % (tgt, n)
        r, span = ratio(peak, m, "ach", c, "ach")
        print("%-8s %10s %10s %14s %9s %9s %9s %9s %10s" % (
            "%s x%s" % (tgt, n), fmt(med(peak, c, "ach"), "%.0f"), fmt(med(peak, m, "ach"), "%.0f"),
            fmt(r, "%.3f") + " " + span, fmt(med(peak, c, "p50")), fmt(med(peak, m, "p50")),
            fmt(med(peak, c, "p99")), fmt(med(peak, m, "p99")), fmt(med(peak, f, "ach"), "%.0f")))
    print()


def paced_row(paced: Runs, key: str, misses: List[str]) -> None:
    p, f = "pfs-" + key, "fio-" + key
    off = med(paced, p, "off")
    pa, pspan = ratio(paced, p, "ach", p, "off")
    # poisson: against what its arrivals offered (n of them span +-1/sqrt(n))
    pr, _ = ratio(paced, p, "ach", p, "arr") if key.endswith("poisson") else (None, "")
    fa, fspan = ratio(paced, f, "ach", f, "off")
    r50, _ = ratio(paced, p, "p50", f, "p50")
    r99, _ = ratio(paced, p, "p99", f, "p99")
    got = pr if pr is not None else pa
    if got is not None and abs(got - 1) > 0.01:
        misses.append("%s: pfsbench achieved %.3f of %s" % (key, got, "its arrivals" if pr else "offered"))
    for what, r in (("p50", r50), ("p99", r99)):
        if r is not None and abs(r - 1) > 0.10:
            misses.append("%s: service %s pfsbench/fio %.3f" % (key, what, r))
    print("%-22s %8s %8s %-19s %6s %8s %-19s %7s %7s %5s %7s %7s %5s %8s %4s" % (
        key, fmt(off, "%.0f"), fmt(med(paced, p, "ach"), "%.0f"), fmt(pa, "%.3f") + " " + pspan,
        "" if pr is None else "%.3f" % pr,
        fmt(med(paced, f, "ach"), "%.0f"), fmt(fa, "%.3f") + " " + fspan,
        fmt(med(paced, p, "p50")), fmt(med(paced, f, "p50")), fmt(r50, "%.2f"),
        fmt(med(paced, p, "p99")), fmt(med(paced, f, "p99")), fmt(r99, "%.2f"),
        fmt(med(paced, p, "r99")), "n/a"))


def stall(peak: Runs, paced: Runs, secs: float, dur: float) -> None:
    base, st = "disk-1-60-fixed", "disk-1-60-stall"
    mu = med(peak, "pfs-disk-1-closed-x", "ach")
    rate = med(paced, "pfs-" + st, "off")
    if mu is None or rate is None:
        return
    s = 1.0 / mu
    rho = rate * s
    # Fixed arrivals at rate, each transfer s long, the first held secs: the
    # transfers due in the hold queue behind it and the queue drains at
    # 1/s - rate, so the k-th waits secs + (k+1)s - k/rate. Their waits fall
    # linearly from secs, and the fraction q of all rate x dur transfers
    # that waits longest waits at least secs + s - q x dur x (1 - rho).
    pred = (secs + s - 0.01 * dur * (1 - rho)) * 1e6
    print("The stall: the first pread held %.0f ms (tests/lib/stall.c), 1 rank on disk, fixed arrivals at 60%%"
          " (%.0f ops/s, rho %.2f of the %.0f ops/s peak), %.0f s" % (secs * 1e3, rate, rho, mu, dur))
    print("%-22s %12s %12s %12s %12s %12s" % ("", "pfs svc p99", "pfs resp p99", "pfs svc max",
          "fio clat p99", "fio clat max"))
    for label, key in (("without the stall", base), ("with the stall", st)):
        p, f = "pfs-" + key, "fio-" + key
        print("%-22s %12s %12s %12s %12s %12s" % (label, fmt(med(paced, p, "p99")), fmt(med(paced, p, "r99")),
              fmt(med(paced, p, "max")), fmt(med(paced, f, "p99")), fmt(med(paced, f, "max"))))
    print("%-22s %12s %12s" % ("predicted (see below)", "", fmt(pred)))
    print("predicted response p99 = hold + 1/peak - 0.01 x runtime x (1 - rho): the transfers due during the hold"
          " and the backlog after it wait linearly less, and the slowest 1% of all wait at least that")
    print()


def summary(out: str, secs: float, dur: float) -> None:
    peak, paced = load(out + "/peak/results.txt"), load(out + "/paced/results.txt")
    cells = sorted({(k.split("-")[1], k.split("-")[2]) for k in peak})
    full_speed(peak, cells)
    print("Paced: medians over rounds; ops/s for the job; service times (pfsbench from submission, fio's clat)"
          " and pfsbench's response time (from the intended start) in us; ratios the median of the per-round"
          " ratios (min-max)")
    print("%-22s %8s %8s %-19s %6s %8s %-19s %7s %7s %5s %7s %7s %5s %8s %4s" % (
        "target-ranks-%-arrivals", "offered", "pfs", "pfs/offered", "/arr", "fio", "fio/offered", "pfs p50", "fio p50",
        "ratio", "pfs p99", "fio p99", "ratio", "pfs resp", "fio"))
    misses: List[str] = []
    keys = sorted({k.split("-", 1)[1] for k in paced if not k.endswith("stall")},
                  key=lambda k: (k.split("-")[0], int(k.split("-")[1]), k.split("-")[3], int(k.split("-")[2])))
    for key in keys:
        paced_row(paced, key, misses)
    print("fio has no response time from the intended start (its lat is slat + clat, from submission): n/a")
    print()
    stall(peak, paced, secs, dur)
    n = len(keys)
    ach = sum(1 for m in misses if " achieved " in m)
    p50 = sum(1 for m in misses if " p50 " in m)
    p99 = sum(1 for m in misses if " p99 " in m)
    fio_ok = sum(1 for k in keys if abs((ratio(paced, "fio-" + k, "ach", "fio-" + k, "off")[0] or 0) - 1) <= 0.01)
    print("targets, cells met of %d: pfsbench's achieved within 1%% of offered (poisson: of its arrivals) %d "
          "(fio's within 1%% of offered: %d), its service p50 within 10%% of fio's %d, p99 %d"
          % (n, n - ach, fio_ok, n - p50, n - p99))
    for m in misses:
        print("  missed: " + m)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "pfs":
        pfs(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] == "fio":
        fio(sys.argv[2])
    elif len(sys.argv) == 5 and sys.argv[1] == "summary":
        summary(sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
