"""The checks tests/mpi/test_dist.sh makes, from what the file system saw (strace's
pread64 and pwrite64 calls of each rank, TRACE.RANK) and from the results file:

    dist_checks.py skewed TRACE RESULTS BENCH_LOAD SPEC BLOCKS XFER
        the run stored SPEC; each of the 2 ranks wrote its BLOCKS transfers of XFER
        bytes once each (the write lays the file out in full) and read BLOCKS
        transfers drawn with replacement, only at transfers of its file, the
        hottest tenth of them taking at least 60% of the reads (a permutation: 10%);
        rank 0's hits, ranked, are exactly SPEC's seeded draws as bench_load
        deciles draws them for the run's seed (stream 0: the file of writer 0)
    dist_checks.py permutation TRACE BLOCKS XFER
        without a distribution each rank wrote and read every transfer once
    dist_checks.py cut RESULTS BLOCKS
        the run's write stopped (stonewall) below BLOCKS transfers per stream, the
        same count in each, and its read read that many
    dist_checks.py compressed FILE LO HI
        zlib (level 6, gzip's default) compresses FILE to between LO and HI of its size
    dist_checks.py repeats FILE UNIT PCT
        in every whole group of 100 UNIT-byte units of FILE, exactly PCT units repeat
        another (100 - PCT distinct contents), and no unit repeats one of another group

Each exits 0 when the check holds; else raises an AssertionError naming what differs.
"""
import hashlib
import os
import re
import subprocess
import sys
import zlib
from collections import Counter
from typing import Dict, List

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, one_run_attrs  # noqa: E402

CALL = re.compile(r"(pread64|pwrite64)\((\d+), .*, (\d+), (\d+)\)\s+= (-?\d+)$")


def offsets(trace: str, call: str, xfer: int) -> List[int]:
    """The offsets of the whole XFER-byte calls `call` made on the data file: the
    descriptor with the most of them (the results file's calls are few and other)."""
    by_fd: Dict[str, List[int]] = {}
    with open(trace) as f:
        for line in f:
            m = CALL.search(line.rstrip("\n"))
            if m and m.group(1) == call and int(m.group(3)) == xfer:
                assert int(m.group(5)) == xfer, line
                by_fd.setdefault(m.group(2), []).append(int(m.group(4)))
    assert by_fd, "no %s of %d bytes in %s" % (call, xfer, trace)
    return max(by_fd.values(), key=len)


def tenths(hits: List[int]) -> List[int]:
    """The hits of each tenth of the blocks ranked by their hits, hottest first."""
    ranked = sorted(hits, reverse=True)
    out = [0] * 10
    for i, h in enumerate(ranked):
        out[i * 10 // len(ranked)] += h
    return out


def block_hits(offs: List[int], blocks: int, xfer: int) -> List[int]:
    c = Counter(offs)
    for o in c:
        assert o % xfer == 0 and 0 <= o < blocks * xfer, "offset %d is no transfer of the file" % o
    return [c.get(b * xfer, 0) for b in range(blocks)]


def once_each(trace: str, call: str, blocks: int, xfer: int) -> None:
    hits = block_hits(offsets(trace, call, xfer), blocks, xfer)
    assert hits == [1] * blocks, "%s: %s not every transfer once: %s" % (trace, call, Counter(hits))


def skewed(trace: str, results: str, bench_load: str, spec: str, blocks: str, xfer: str) -> None:
    n, x = int(blocks), int(xfer)
    attrs = one_run_attrs(results)
    assert attrs["random_dist"] == spec and attrs["random"] == "1", (attrs["random_dist"], attrs["random"])
    for r in (0, 1):
        once_each("%s.%d" % (trace, r), "pwrite64", n, x)
        offs = offsets("%s.%d" % (trace, r), "pread64", x)
        assert len(offs) == n, "rank %d: %d reads, not %d" % (r, len(offs), n)
        hot = tenths(block_hits(offs, n, x))
        print("rank %d: reads per tenth of the blocks ranked by hits: %s" % (r, hot))
        assert hot[0] >= 0.6 * n, "rank %d: the hottest tenth took %d of %d reads" % (r, hot[0], n)
        assert len(set(offs)) < 0.6 * n, "rank %d: %d distinct of %d reads" % (r, len(set(offs)), n)
        if r:
            continue
        out = subprocess.run([bench_load, "deciles", spec, blocks, blocks, "1", attrs["seed"]], check=True,
                             capture_output=True, text=True).stdout
        line = [ln for ln in out.splitlines() if ln.startswith("hot ")][0]
        want = [round(float(v) * n) for v in line.split()[1:]]
        assert hot == want, "rank 0: %s, seed %s's draws give %s" % (hot, attrs["seed"], want)


def permutation(trace: str, blocks: str, xfer: str) -> None:
    for r in (0, 1):
        for call in ("pwrite64", "pread64"):
            once_each("%s.%d" % (trace, r), call, int(blocks), int(xfer))


def cut(results: str, blocks: str) -> None:
    with h5py.File(results, "r") as f:
        ph = f["runs/000001/phases"]
        per = {}
        for op in ("write", "read"):
            g = ph[[n for n in ph if n.endswith("_" + op)][0]]
            per[op] = [int(x) for x in g["times"][0]["transfers"]]
    print("transfers per stream: %s" % per)
    w = per["write"]
    assert len(set(w)) == 1 and 0 < w[0] < int(blocks), "write: %s of %s" % (w, blocks)
    assert per["read"] == w, per


def compressed(path: str, lo: str, hi: str) -> None:
    with open(path, "rb") as f:
        data = f.read()
    ratio = len(zlib.compress(data, 6)) / len(data)
    print("%s: %d bytes, compressed to %.4f of them" % (path, len(data), ratio))
    assert float(lo) <= ratio <= float(hi), "%s compresses to %.4f, not within [%s, %s]" % (path, ratio, lo, hi)


def repeats(path: str, unit: str, pct: str) -> None:
    u = int(unit)
    with open(path, "rb") as f:
        data = f.read()
    units = [hashlib.sha256(data[i:i + u]).digest() for i in range(0, len(data) // u * u, u)]
    assert len(units) >= 100, "%s: %d units of %d bytes, not a whole group" % (path, len(units), u)
    groups = len(units) // 100
    seen: Dict[bytes, int] = {}
    for i, h in enumerate(units):
        assert seen.setdefault(h, i // 100) == i // 100, "%s: unit %d repeats one of group %d" % (path, i, seen[h])
    for g in range(groups):
        distinct = len(set(units[100 * g:100 * g + 100]))
        assert distinct == 100 - int(pct), "%s: group %d has %d distinct units, not %d" % (
            path, g, distinct, 100 - int(pct))
    print("%s: %d units of %d bytes, %d repeat another (%.1f%%)" % (
        path, len(units), u, len(units) - len(set(units)), 100 * (len(units) - len(set(units))) / len(units)))


if __name__ == "__main__":
    sys.exit(dispatch({"skewed": skewed, "permutation": permutation, "cut": cut, "compressed": compressed,
                       "repeats": repeats}, sys.argv))
