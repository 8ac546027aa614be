"""The checks tests/mpi/test_results_journal.sh makes, with h5py and the
pfsbench package (from PYTHONPATH):

    journal_checks.py CHECK ARGS...

  grow FILE N OUT        (not a check) OUT is FILE with its one run copied
                         to runs 1..N (groups and /summary rows), the way a
                         campaign's file grows, without N real runs
  runs FILE N            h5py (no lock) lists N runs, numbered 1..N, and
                         /summary holds rows of exactly those
  reader FILE N          pfsbench.open(FILE) (the lock taken, an interrupted
                         append undone) lists N runs
  lock_held FILE         another process holds the write lock on FILE's
                         lock file (a shared lock cannot be taken now)
  reader_holds FILE MARK GO  pfsbench.open(FILE) held open: MARK made once
                         it is open, closed when GO appears
  reader_during FILE MARK GO OUT  pfsbench.open(FILE) held open: MARK made
                         once it is open; when GO appears, what it reads
                         through that same handle (digest below) into OUT
  digest FILE OUT        what pfsbench.open(FILE) reads, opened afresh: the
                         number of runs, the summary's rows and every
                         dataset's values, as one sha256, into OUT
  peak_flat SMALL BIG    the append's peak memory (the test hook's line in
                         each stderr) grew by less than a quarter of what
                         the file grew by
"""
import fcntl
import hashlib
import os
import re
import sys
import time
from typing import Tuple

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402

import pfsbench  # noqa: E402


def grow(path: str, n: str, out: str) -> None:
    k = int(n)
    with h5py.File(path, "r") as src, h5py.File(out, "w") as f:
        for a, v in src.attrs.items():
            f.attrs[a] = v
        runs = f.create_group("runs")
        rows = src["summary"][()]
        assert set(int(r) for r in rows["run"]) == {1}, "FILE must hold one run"
        table = f.create_dataset("summary", shape=(0,), maxshape=(None,), dtype=src["summary"].dtype,
                                 chunks=src["summary"].chunks)
        for i in range(1, k + 1):
            src.copy(src["runs/000001"], runs, name="%06d" % i)
            more = rows.copy()
            more["run"] = i
            table.resize((table.shape[0] + len(more),))
            table[-len(more):] = more


def runs(path: str, n: str) -> None:
    with h5py.File(path, "r") as f:
        names = sorted(f["runs"])
        want = ["%06d" % i for i in range(1, int(n) + 1)]
        assert names == want, "runs %s, not 1..%s" % (names, n)
        seen = set(int(r) for r in f["summary"]["run"])
        assert seen == set(range(1, int(n) + 1)), "/summary has rows of runs %s" % sorted(seen)


def reader(path: str, n: str) -> None:
    with pfsbench.open(path) as r:
        assert len(r.runs) == int(n), "pfsbench.open lists %d runs, not %s" % (len(r.runs), n)


def lock_held(path: str) -> None:
    real = os.path.realpath(path)
    lock = os.path.join(os.path.dirname(real), ".%s.lock" % os.path.basename(real))
    fd = os.open(lock, os.O_RDONLY)
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH | fcntl.LOCK_NB, 1, 0)  # byte 0: the writer lock
    except OSError:
        return
    finally:
        os.close(fd)
    raise AssertionError("nobody holds the write lock on %s" % lock)


def reader_holds(path: str, mark: str, go: str) -> None:
    with pfsbench.open(path) as r:
        with open(mark, "w") as m:
            m.write("%d\n" % len(r.runs))
        for _ in range(3000):  # the script lets it go; 300 s at most
            if os.path.exists(go):
                break
            time.sleep(0.1)


def _digest(r: "pfsbench.Results") -> str:
    h = hashlib.sha256()
    h.update(b"%d runs;" % len(r.runs))
    rows = r.summary(as_frame=False)
    h.update(repr([(k, rows[k].tolist()) for k in sorted(rows)]).encode())

    def one(name: str, obj: object) -> None:
        if isinstance(obj, h5py.Dataset):
            h.update(name.encode() + repr(obj[()].tolist()).encode())
    r.file.visititems(one)
    return "%d %s" % (len(r.runs), h.hexdigest())


def reader_during(path: str, mark: str, go: str, out: str) -> None:
    with pfsbench.open(path) as r:
        with open(mark, "w") as m:
            m.write("%d\n" % len(r.runs))
        for _ in range(3000):  # the script lets it go; 300 s at most
            if os.path.exists(go):
                break
            time.sleep(0.1)
        got = _digest(r)
    with open(out, "w") as f:
        f.write(got + "\n")


def digest(path: str, out: str) -> None:
    with pfsbench.open(path) as r:
        got = _digest(r)
    with open(out, "w") as f:
        f.write(got + "\n")


def _peak(err: str) -> Tuple[int, int]:
    with open(err) as f:
        m = re.search(r"append peak (\d+) kB above \d+ kB, file (\d+) bytes", f.read())
    assert m, "no peak line in %s" % err
    return int(m.group(1)), int(m.group(2))


def peak_flat(small: str, big: str) -> None:
    (p1, s1), (p2, s2) = _peak(small), _peak(big)
    grew_kb = (s2 - s1) / 1024.0
    print("append peak: %d kB at %d bytes, %d kB at %d bytes (file grew %.0f kB)" % (p1, s1, p2, s2, grew_kb))
    assert grew_kb > 4096, "the big file is only %.0f kB bigger: no measure" % grew_kb
    assert p2 - p1 < grew_kb / 4, "the peak grew by %d kB, as the file did (%.0f kB)" % (p2 - p1, grew_kb)


if __name__ == "__main__":
    sys.exit(dispatch({"grow": grow, "runs": runs, "reader": reader, "lock_held": lock_held,
                       "reader_holds": reader_holds, "reader_during": reader_during, "digest": digest,
                       "peak_flat": peak_flat}, sys.argv))
