#!/usr/bin/python3
"""scale-fit.py: least-squares fits of scale-mpi.sh's measurements against
ranks N and nodes K, and what they give at 1k, 10k and 100k ranks (issue 19;
docs/performance.md "Scale").

usage: bench/scale-fit.py RESULTS.csv [RESULTS.csv ...]
       bench/scale-fit.py --formula N K NINT   (the bytes formula alone, for scale-mpi.sh)

Every row of every file is one point (N, K). Each figure is fitted, by
ordinary least squares over the points, as a sum of terms: a constant, N and
K, or log2 N where a binomial collective brings rank 0 that many messages. A
term the points cannot tell apart from the others is said so. The
extrapolation is only as good as the form. The bytes into rank 0 per phase
are not fitted: the code's formula (scale-mpi.sh prints it) is compared with
each point, and extrapolated with 60 latency intervals (a minute a phase).
"""
import csv
import math
import sys

import numpy as np


def lg(x):
    return math.ceil(math.log2(x)) if x > 1 else 0


ONE = ("1", lambda n, k: 1.0)
N = ("N", lambda n, k: n)
K = ("K", lambda n, k: k)
LOGN = ("log2 N", lambda n, k: lg(n))


def rank0_bytes(n, k, nint):
    """Bytes rank 0 receives per phase, from the message sizes in src/mpi
    (scale-mpi.sh's formula, binomial reduce trees)."""
    blk, rec, tg = 131888 + 512 * 576, 17952 + 40 * nint, 16 + 18088
    return (280 * (n - 1) + blk * lg(-(-n // k)) + blk * lg(k) + rec * (k - 1) + 32 * lg(k) + 12 * lg(n)
            + tg * (-(-n // k) - 1 + k - 1))


FIGURES = [
    # column, what, unit, terms
    ("own_other_mib", "own memory, max over ranks but 0", "MiB", [ONE, N, K]),
    ("own_other_mib", "the same, in log2 N", "MiB", [ONE, LOGN, K]),
    ("comms_other_mib", "Open MPI's communicators, ranks but 0", "MiB", [ONE, N, K]),
    ("pfs_other_mib", "own less communicators, ranks but 0", "MiB", [ONE, N, K]),
    ("own_rank0_mib", "own memory, rank 0", "MiB", [ONE, N, K]),
    ("own_rank0_mib", "the same, in log2 N", "MiB", [ONE, LOGN, K]),
    ("comms_rank0_mib", "Open MPI's communicators, rank 0", "MiB", [ONE, N, K]),
    ("pfs_rank0_mib", "own less communicators, rank 0", "MiB", [ONE, N, K]),
    ("startup_beyond_s", "start-up and end beyond a trivial MPI program", "s", [ONE, N, K]),
    ("rank0_bytes_startup", "bytes into rank 0 outside the phases", "B", [ONE, N, K]),
    ("rank0_msgs_startup", "messages into rank 0 outside the phases", "msgs", [ONE, LOGN, K]),
    ("prog_per_interval", "progress reports at rank 0 per interval", "msgs", [ONE, N, K]),
    ("prog_most", "progress reports at rank 0, most in one interval", "msgs", [ONE, N, K]),
]
TARGETS = [(1000, 20), (10000, 200), (100000, 2000)]


def num(v):
    return float(v) if v not in ("", "nan", None) else float("nan")


def points(paths):
    rows = []
    for p in paths:
        with open(p, newline="") as f:
            for r in csv.DictReader(f):
                r = {k: num(v) for k, v in r.items()}
                ti = r.get("prog_intervals", float("nan"))
                r["prog_per_interval"] = r["prog_reports"] / ti if ti > 0 else float("nan")
                for who in ("other", "rank0"):
                    r[f"pfs_{who}_mib"] = r.get(f"own_{who}_mib", float("nan")) - r.get(f"comms_{who}_mib", float("nan"))
                rows.append(r)
    return rows


def fit(rows, col, terms):
    pts = [(r["N"], r["nodes"], r[col]) for r in rows if np.isfinite(r.get(col, float("nan")))]
    if len(pts) < len(terms):
        return None
    a = np.array([[f(n, k) for _, f in terms] for n, k, _ in pts], dtype=float)
    y = np.array([v for _, _, v in pts])
    coef, _, rank, _ = np.linalg.lstsq(a, y, rcond=None)
    pred = a @ coef
    ss = float(np.sum((y - y.mean()) ** 2))
    r2 = 1 - float(np.sum((y - pred) ** 2)) / ss if ss > 0 else 1.0
    return coef, r2, rank, float(np.max(np.abs(y - pred)))


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[1])
        return 0 if len(argv) >= 2 else 2
    if argv[1] == "--formula":
        if len(argv) != 5 or not all(a.isdigit() and int(a) > 0 for a in argv[2:]):
            print("scale-fit: --formula takes N K NINT, positive integers", file=sys.stderr)
            return 2
        print(rank0_bytes(int(argv[2]), int(argv[3]), int(argv[4])))
        return 0
    rows = points(argv[1:])
    if not rows:
        print("scale-fit: no points", file=sys.stderr)
        return 2
    print("points (N x K): " + " ".join(f"{n}x{k}" for n, k in sorted({(int(r["N"]), int(r["nodes"])) for r in rows})))
    print(f"{'figure':52} {'fit':52} {'R2':>6} {'max res':>9}" + "".join(f" {f'{n // 1000}k x {k}':>11}" for n, k in TARGETS))
    ratios = [r["rank0_bytes_phase_measured"] / rank0_bytes(r["N"], r["nodes"], 1) for r in rows
              if r["N"] > 1 and np.isfinite(r.get("rank0_bytes_phase_measured", float("nan")))]
    if ratios:
        print(f"{'bytes into rank 0 per phase (B)':52} {'formula; measured / formula ' + f'{min(ratios):.3f}-{max(ratios):.3f}':52}"
              f" {'':6} {'':9}" + "".join(f" {rank0_bytes(n, k, 60):11.4g}" for n, k in TARGETS))
    for col, what, unit, terms in FIGURES:
        label = f"{what} ({unit})"
        f = fit(rows, col, terms)
        if f is None:
            print(f"{label:52} (too few points)")
            continue
        coef, r2, rank, res = f
        form = " + ".join(f"{c:.4g}" + ("" if name == "1" else f" ({name})") for (name, _), c in zip(terms, coef))
        line = f"{label:52} {form:52} {r2:6.3f} {res:9.4g}"
        line += "".join(f" {sum(c * fn(n, k) for (_, fn), c in zip(terms, coef)):11.4g}" for n, k in TARGETS)
        if rank < len(terms):
            line += "  (terms not told apart by these points)"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
