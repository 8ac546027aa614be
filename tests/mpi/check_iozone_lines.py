"""check_iozone_lines.py OUT FILE PROCS: the IOzone throughput-mode lines
that `pfsbench iozone -t PROCS` printed on stdout (OUT) hold the figures of
the last run of results file FILE.

For each data phase (write: "initial writers", rewrite: "rewriters", read:
"readers", reread: "re-readers") and repetition, one block: children see
the sum of the streams' stream_bandwidth, the parent the phase's
bandwidth, min/max/avg per process those of stream_bandwidth, min xfer the
fewest bytes of a stream (times.bytes); kB is 1024 bytes, two decimals.
Prints the blocks checked.
"""
import re
import sys

import h5py
import numpy as np

TESTS = {"write": "initial writers", "rewrite": "rewriters", "read": "readers", "reread": "re-readers"}
LINE = re.compile(r"^\t(Children see throughput for +(\d+) ([a-z -]+?)|Parent sees throughput for +(\d+) ([a-z -]+?)"
                  r"|Min throughput per process|Max throughput per process|Avg throughput per process|Min xfer)"
                  r" \t+= +([0-9.]+) (kB/sec|kB) ?$")


def blocks(text: str) -> list[list[tuple[str, float]]]:
    """The printed blocks, each its six (label, value) lines in order."""
    out: list[list[tuple[str, float]]] = []
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        if m.group(1).startswith("Children"):
            out.append([])
        out[-1].append((m.group(1), float(m.group(6))))
    return out


def expected(run: h5py.Group, procs: int) -> list[list[tuple[str, float]]]:
    """The blocks the results file's figures call for, in phase order."""
    want: list[list[tuple[str, float]]] = []
    for name in sorted(run["phases"]):
        pg = run["phases"][name]
        phase = pg.attrs["phase"]
        test = TESTS[phase.decode() if isinstance(phase, bytes) else str(phase)]
        warm = pg["warmup"][()]
        for rep in range(pg["bandwidth"].shape[0]):
            if warm[rep]:
                continue
            bw = np.asarray(pg["stream_bandwidth"][rep], dtype=float) / 1024
            want.append([("Children see throughput for %2d %s" % (procs, test), float(bw.sum())),
                         ("Parent sees throughput for %2d %s" % (procs, test), float(pg["bandwidth"][rep]) / 1024),
                         ("Min throughput per process", float(bw.min())),
                         ("Max throughput per process", float(bw.max())),
                         ("Avg throughput per process", float(bw.mean())),
                         ("Min xfer", float(pg["times"][rep]["bytes"].min()) / 1024)])
    return want


def main() -> int:
    out, path, procs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with open(out, encoding="utf-8") as f:
        got = blocks(f.read())
    with h5py.File(path, "r") as h:
        run = h["runs"][sorted(h["runs"])[-1]]
        assert len(run["phases"]) >= 1
        want = expected(run, procs)
    assert len(got) == len(want), "%d blocks printed, %d in the results file" % (len(got), len(want))
    for g, w in zip(got, want):
        assert [x[0] for x in g] == [x[0] for x in w], (g, w)
        for (label, v), (_, x) in zip(g, w):
            assert abs(v - x) <= 0.005 + 1e-12 * x, "%s: printed %.2f, the results file %.4f" % (label, v, x)
    print("%d IOzone blocks match the results file: %s" % (len(got), "; ".join(g[0][0] for g in got)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
