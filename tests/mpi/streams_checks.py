"""The check tests/mpi/test_streams.sh makes on the results file of a
--threads run:

    streams_checks.py streams RESULTS RANKS THREADS

exits 0 when the write phase has a row per stream (RANKS x THREADS) of
512 KiB each, the summary says the ranks and threads, and each stream's
bandwidth is its bytes over its own span; 1 otherwise.
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def streams(path: str, ranks: str, threads: str) -> None:
    f = h5py.File(path, "r")
    np_, th = int(ranks), int(threads)
    r = f["runs/000001"]
    t = r["phases/00_write/times"]
    ok = t.shape == (1, np_ * th) and int(r.attrs["threads"]) == th and int(r.attrs["streams"]) == np_ * th
    ok = ok and all(int(b) == 524288 for b in t["bytes"][0])
    ok = ok and int(f["summary"]["threads"][0]) == th and int(f["summary"]["ranks"][0]) == np_
    tt = t[0]
    sb = r["phases/00_write/stream_bandwidth"][0]
    ok = ok and len(sb) == np_ * th and all(abs(b - x["bytes"] / (x["close_end"] - x["open_start"])) <= 1e-9 * b
                                           for b, x in zip(sb, tt))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    sys.exit(dispatch({"streams": streams}, sys.argv))
