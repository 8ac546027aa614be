"""The checks tests/mpi/test_segments.sh makes on a kept shared file written in IOR's segments:

    segments_checks.py owners DIR RESULTS RUN NSTREAMS SEGMENTS SEGMENT

exits 0 when the shared file of run RUN (its number in RESULTS, which gives the run id)
in DIR is NSTREAMS x SEGMENTS x SEGMENT bytes and each SEGMENT bytes at (k x NSTREAMS + r)
x SEGMENT hold exactly the --verify pattern stream r writes there (src/core/core.c's
pfs_pattern_word: the run id's seed, the writer, the offset); else raises an
AssertionError naming the first piece whose bytes are not its writer's.
"""
import os
import sys
from typing import Any

import h5py
import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from h5pattern import mix, pattern  # noqa: E402
from runs import dispatch, text  # noqa: E402


def owners(d: str, results: str, run: str, nstreams: str, segments: str, segment: str) -> None:
    n, s, seg = int(nstreams), int(segments), int(segment)
    with h5py.File(results, "r") as f:
        rid = text(f["runs/%06d" % int(run)].attrs["run_id"])
    path = os.path.join(d, "pfsbench.%s.shared" % rid)
    size = os.path.getsize(path)
    assert size == n * s * seg, "%s: %d bytes, wanted %d x %d x %d" % (path, size, n, s, seg)
    seed = 0x5046534245
    for ch in rid:
        seed = mix(seed ^ ord(ch))

    def writer(o: NDArray[Any]) -> NDArray[Any]:
        return (o // np.uint64(seg)) % np.uint64(n)

    want = pattern(seed, size, writer)
    with open(path, "rb") as fh:
        got = fh.read()
    for p in range(n * s):
        k, r = divmod(p, n)
        piece = slice(p * seg, (p + 1) * seg)
        if got[piece] != want[piece]:
            others = [w for w in range(n) if got[piece] == pattern(seed, size, lambda o: o * 0 + np.uint64(w))[piece]]
            raise AssertionError("bytes %d..%d (segment %d of stream %d) are not stream %d's pattern; they are "
                                 "stream(s) %s's" % (p * seg, (p + 1) * seg, k, r, r, others or "nobody"))


if __name__ == "__main__":
    sys.exit(dispatch({"owners": owners}, sys.argv))
