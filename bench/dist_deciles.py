"""Hits per tenth of a file, from fio's I/O log or bench_load's output
(bench/dist-vs-fio.sh).

    python3 bench/dist_deciles.py fio IOLOG BLOCKS BS
        fio's write_iolog (version 3): "pos" and "hot" lines as bench_load
        deciles prints them: the fraction of the I/Os per tenth of the file
        by position, and per tenth of its blocks ranked by their hits.
    python3 bench/dist_deciles.py strace TRACE BLOCKS BS
        the same from strace's pread64 calls of BS bytes on the file read
        most (pfsbench's data file: dist-vs-fio.sh -r).
    python3 bench/dist_deciles.py compare NAME FIO PFS
        two such outputs side by side, the differences in points of the
        hits (percent of all I/Os) and relative to fio's, and the largest.
"""
import re
import sys
from typing import Dict, List


def fio_hits(path: str, blocks: int, bs: int) -> List[int]:
    hits: Dict[int, int] = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 5 and p[2] in ("read", "write"):
                b = int(p[3]) // bs
                hits[b] = hits.get(b, 0) + 1
    out = [0] * blocks
    for b, c in hits.items():
        if b >= blocks:
            sys.exit("dist_deciles: offset of block %d beyond %d blocks" % (b, blocks))
        out[b] = c
    return out


def strace_hits(path: str, blocks: int, bs: int) -> List[int]:
    call = re.compile(r"pread64\((\d+), .*, (\d+), (\d+)\)\s+= (\d+)$")
    by_fd: Dict[str, List[int]] = {}
    with open(path) as f:
        for line in f:
            m = call.search(line.rstrip("\n"))
            if m and int(m.group(2)) == bs and int(m.group(4)) == bs:
                by_fd.setdefault(m.group(1), []).append(int(m.group(3)) // bs)
    if not by_fd:
        sys.exit("dist_deciles: no pread64 of %d bytes in %s" % (bs, path))
    out = [0] * blocks
    for b in max(by_fd.values(), key=len):
        if b >= blocks:
            sys.exit("dist_deciles: offset of block %d beyond %d blocks" % (b, blocks))
        out[b] += 1
    return out


def deciles(hits: List[int]) -> Dict[str, List[float]]:
    n, total = len(hits), sum(hits)
    pos = [0.0] * 10
    for b, c in enumerate(hits):
        pos[b * 10 // n] += c
    ranked = sorted(hits, reverse=True)
    hot = [0.0] * 10
    for b, c in enumerate(ranked):
        hot[b * 10 // n] += c
    return {"pos": [x / total for x in pos], "hot": [x / total for x in hot]}


def read_lines(path: str) -> Dict[str, List[float]]:
    out: Dict[str, List[float]] = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if p and p[0] in ("pos", "hot") and len(p) == 11:
                out[p[0]] = [float(x) for x in p[1:]]
    if set(out) != {"pos", "hot"}:
        sys.exit("dist_deciles: %s lacks a pos or hot line" % path)
    return out


def compare(name: str, fio: Dict[str, List[float]], pfs: Dict[str, List[float]]) -> None:
    for kind in ("hot", "pos"):
        print("%s, by %s (percent of the I/Os per tenth):" % (name, "hits" if kind == "hot" else "position"))
        print("  tenth  " + " ".join("%7d" % (i + 1) for i in range(10)))
        print("  fio    " + " ".join("%7.3f" % (100 * x) for x in fio[kind]))
        print("  pfs    " + " ".join("%7.3f" % (100 * x) for x in pfs[kind]))
        d = [100 * (b - a) for a, b in zip(fio[kind], pfs[kind])]
        r = ["%7.1f" % (100 * (b / a - 1)) if a > 0 else "      -" for a, b in zip(fio[kind], pfs[kind])]
        print("  diff   " + " ".join("%7.3f" % x for x in d) + "   points; largest %.3f" % max(abs(x) for x in d))
        print("  rel %  " + " ".join(r))


def main(argv: List[str]) -> None:
    if len(argv) == 5 and argv[1] in ("fio", "strace"):
        count = fio_hits if argv[1] == "fio" else strace_hits
        dec = deciles(count(argv[2], int(argv[3]), int(argv[4])))
        for kind in ("pos", "hot"):
            print(kind + " " + " ".join("%.6f" % x for x in dec[kind]))
    elif len(argv) == 5 and argv[1] == "compare":
        compare(argv[2], read_lines(argv[3]), read_lines(argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
