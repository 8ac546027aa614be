"""h5pattern.py CASES: checks the files of --api hdf5 runs (tests/mpi/test_hdf5_backend.sh).

CASES has one line per run, tab-separated: WHAT DIR RUN_ID NSTREAMS BLOCK TRANSFER MODE,
MODE one of fpp, segmented, strided. Every file of the run holds one dataset "data", 1-D
uint8 of the run's bytes, holding exactly the pattern --verify writes (src/core/stream.c's
pfs_pattern_fill: a word per 8 bytes, mixed from the run id's seed, the writer and the
offset). Prints "ok<TAB>WHAT" or "bad<TAB>WHAT<TAB>why" per line; one process for all the
runs, so h5py and numpy are loaded once.
"""
import sys
from typing import Any, Callable, List, Tuple

import h5py
import numpy as np
from numpy.typing import NDArray

M = (1 << 64) - 1


def mix(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & M
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
    return x ^ (x >> 31)


def vmix(x: NDArray[Any]) -> NDArray[Any]:
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def pattern(seed: int, size: int, writer_of_word: Callable[[NDArray[Any]], NDArray[Any]]) -> bytes:
    off = np.arange(0, size, 8, dtype=np.uint64)
    w = writer_of_word(off).astype(np.uint64)
    with np.errstate(over="ignore"):
        words = vmix(np.uint64(seed) ^ (w << np.uint64(40)) ^ (off * np.uint64(0x9E3779B97F4A7C15)))
    return words.astype("<u8").tobytes()


def files_of(d: str, rid: str, n: int, block: int, t: int,
             mode: str) -> List[Tuple[str, int, Callable[[NDArray[Any]], NDArray[Any]]]]:
    if mode == "fpp":
        return [(f"{d}/pfsbench.{rid}.{s}", block, (lambda s: lambda o: np.full(o.shape, s))(s)) for s in range(n)]
    shared = f"{d}/pfsbench.{rid}.shared"
    if mode == "segmented":
        return [(shared, n * block, lambda o: o // np.uint64(block))]
    return [(shared, n * block, lambda o: (o // np.uint64(t)) % np.uint64(n))]


def check(d: str, rid: str, n: int, block: int, t: int, mode: str) -> str:
    seed = 0x5046534245
    for ch in rid:
        seed = mix(seed ^ ord(ch))
    for path, size, writer in files_of(d, rid, n, block, t, mode):
        with h5py.File(path, "r") as f:
            ds = f["data"]
            if ds.shape != (size,) or ds.dtype != np.uint8:
                return f"{path}: shape {ds.shape}, type {ds.dtype}; wanted ({size},) uint8"
            if ds[()].tobytes() != pattern(seed, size, writer):
                return f"{path}: not the pattern"
    return ""


def main() -> int:
    bad = 0
    for line in open(sys.argv[1]):
        what, d, rid, n, block, t, mode = line.rstrip("\n").split("\t")
        try:
            why = check(d, rid, int(n), int(block), int(t), mode)
        except (OSError, KeyError, ValueError) as e:
            why = f"{type(e).__name__}: {e}"
        print(f"bad\t{what}\t{why}" if why else f"ok\t{what}")
        bad += bool(why)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
