"""The results file's lock and undo journal, as pfsbench's append keeps
them (docs/results-format.md, "Integrity"): the reader holds a shared lock
on .NAME.lock beside the file while the file is open, so that it never
reads an append's commit half-done, and an append waits for it. An append
that died mid-commit left a complete journal (.NAME.tmp.HOST.PID, first
bytes PFSJRNL1): the reader reads the old file through it (the journal's
bytes over the file's), writing nothing; the next pfsbench to append or
check the file undoes it on disk. An incomplete journal means the file
was never touched.
"""

from __future__ import annotations

import errno
import fcntl
import io
import os
import struct
from typing import Any, List, Optional, Tuple

MAGIC = b"PFSJRNL1"
END = b"PFSJEND1"
HEAD = struct.Struct("=8sQQQQ")  # magic, old size, new size, inode, ranges
REC = struct.Struct("=QQ")  # offset, length
FNV0 = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK = (1 << 64) - 1
# What a file system that takes no locks answers.
NO_LOCKS = (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL)


class Unrecovered(Exception):
    """An interrupted append's journal this reader may not undo."""


def _fnv(h: int, data: bytes) -> int:
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK
    return h


def _beside(path: str) -> Tuple[str, str]:
    """(directory, name) of the file path names, a symlink followed."""
    real = os.path.realpath(path)
    return os.path.dirname(real), os.path.basename(real)


def _journals(d: str, base: str) -> List[str]:
    """The entries .BASE.tmp.* in d that begin as a journal."""
    out = []
    prefix = ".%s.tmp." % base
    try:
        names = os.listdir(d)
    except OSError:
        return []
    for n in names:
        if not n.startswith(prefix):
            continue
        try:
            with open(os.path.join(d, n), "rb") as j:
                if j.read(8) == MAGIC:
                    out.append(os.path.join(d, n))
        except OSError:
            continue
    return out


def _complete(data: bytes) -> Optional[Tuple[int, int, List[Tuple[int, int, int]]]]:
    """(old size, inode, [(offset, length, where in data)]) of a complete
    journal, None for an incomplete one (its file was never touched)."""
    if len(data) < HEAD.size + 16:
        return None
    magic, old_eof, _new_eof, ino, nrec = HEAD.unpack_from(data, 0)
    if magic != MAGIC:
        return None
    at = HEAD.size
    recs = []
    for _ in range(nrec):
        if at + REC.size + 16 > len(data):
            return None
        off, n = REC.unpack_from(data, at)
        at += REC.size
        if n > len(data) - at - 16 or off + n > old_eof:
            return None
        recs.append((off, n, at))
        at += n
    if at + 16 != len(data) or data[at + 8:at + 16] != END:
        return None
    if struct.unpack_from("=Q", data, at)[0] != _fnv(FNV0, data[:at]):
        return None
    return old_eof, ino, recs


class JournalView(io.RawIOBase):
    """The file as the undo of a complete journal would leave it (its old
    bytes over the file's, cut to its old size), read without writing:
    what h5py opens while an interrupted append waits for pfsbench to undo
    it. Only under the shared lock: no writer changes the file meanwhile."""

    def __init__(self, path: str, data: bytes, old_eof: int, recs: List[Tuple[int, int, int]]) -> None:
        super().__init__()
        self._f = open(path, "rb")
        self._data = data
        self._size = old_eof
        self._recs = recs
        self._pos = 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, pos: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + pos)
        return self._pos

    def readinto(self, b: Any) -> int:
        view = memoryview(b).cast("B")
        start, end = self._pos, min(self._pos + len(view), self._size)
        if end <= start:
            return 0
        self._f.seek(start)
        got = self._f.readinto(view[:end - start]) or 0
        view[got:end - start] = bytes(end - start - got)  # a cut file reads as zeros past its end
        for off, n, at in self._recs:
            lo, hi = max(off, start), min(off + n, end)
            if lo < hi:
                view[lo - start:hi - start] = self._data[at + lo - off:at + hi - off]
        self._pos = end
        return end - start

    def close(self) -> None:
        self._f.close()
        super().close()


def _view(path: str, journals: List[str]) -> "JournalView":
    """The old file behind the one complete journal among journals;
    Unrecovered when there are several (an undo failed before)."""
    if len(journals) > 1:
        raise Unrecovered("'%s' has %d journals of interrupted appends beside it (%s): pfsbench undoes one at a "
                          "time, and undoing failed before; see 'Repairing a results file' in "
                          "docs/results-format.md" % (path, len(journals), ", ".join(journals)))
    with open(journals[0], "rb") as j:
        data = j.read()
    done = _complete(data)
    if done is None:
        raise Unrecovered("the journal %s of '%s' changed under the lock" % (journals[0], path))
    old_eof, ino, recs = done
    if os.stat(path).st_ino != ino:
        raise Unrecovered("the journal %s of an interrupted append belongs to another file than '%s' is now "
                          "(replaced since); if it was replaced on purpose, remove the journal" % (journals[0], path))
    return JournalView(path, data, old_eof, recs)


def _complete_journals(d: str, base: str) -> List[str]:
    out = []
    for j in _journals(d, base):
        try:
            with open(j, "rb") as f:
                if _complete(f.read()) is not None:
                    out.append(j)
        except OSError:
            continue
    return out


def hold_shared(path: str) -> Tuple[Optional[int], Optional[JournalView]]:
    """A descriptor of path's lock file holding a shared lock (close it to
    let appends go on; None when there is no lock file: no pfsbench ever
    appended there), and, where an append died mid-commit, the old file
    to read instead of path (JournalView). Waits while an append commits.
    Unrecovered when the journal cannot be read as the old file."""
    d, base = _beside(path)
    lock = os.path.join(d, ".%s.lock" % base)
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as e:
        if e.errno == errno.ENOENT:
            return None, None
        raise Unrecovered("cannot open the lock file %s of '%s': %s" % (lock, path, e.strerror))
    try:
        fcntl.lockf(fd, fcntl.LOCK_SH)
    except OSError as e:
        os.close(fd)
        if e.errno not in NO_LOCKS:
            raise Unrecovered("cannot take a shared lock on %s to read '%s': %s" % (lock, path, e.strerror))
        fd = -1  # a file system without locks (where pfsbench does not append): read as it is
    try:
        pending = _complete_journals(d, base)
        return (fd if fd >= 0 else None), _view(path, pending) if pending else None
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise
