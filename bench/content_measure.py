"""How a file compresses and deduplicates (bench/content-vs-fio.sh).

    python3 bench/content_measure.py FILE UNIT

Prints one line: the file's size, its size compressed by zlib at level 6 in
independent 1 MiB pieces (as a block store compresses records, not a whole
stream) over its size, and the fraction of its UNIT-byte units that repeat
an earlier unit byte for byte (what a deduplicating store would not keep).
"""
import hashlib
import sys
import zlib
from typing import Set


def measure(path: str, unit: int) -> str:
    size = packed = units = repeats = 0
    seen: Set[bytes] = set()
    with open(path, "rb") as f:
        while True:
            piece = f.read(1 << 20)
            if not piece:
                break
            size += len(piece)
            packed += len(zlib.compress(piece, 6))
            for i in range(0, len(piece) - unit + 1, unit):
                h = hashlib.sha1(piece[i : i + unit]).digest()
                units += 1
                if h in seen:
                    repeats += 1
                else:
                    seen.add(h)
    if size == 0 or units == 0:
        sys.exit("content_measure: %s is empty or shorter than a unit" % path)
    return "bytes %d compressed %.4f repeats %.4f" % (size, packed / size, repeats / units)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(measure(sys.argv[1], int(sys.argv[2])))
