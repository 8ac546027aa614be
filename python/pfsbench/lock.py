"""The results file's locks and undo journal, as pfsbench's append keeps
them (docs/results-format.md, "Integrity"). The lock file .NAME.lock
beside the file carries two byte-range locks: byte 0, the writer lock,
which appends hold exclusively, and byte 1, the reader lock, which a
reader holds shared while the file is open. An append never waits for
readers: it writes into the file in place only when it gets the reader
lock exclusively, and otherwise adds its run to a copy renamed over the
file, so a reader keeps reading the file it opened, unchanged. A reader
waits only while an append writes in place. An append that died
mid-commit left a complete journal (.NAME.tmp.HOST.PID, first bytes
PFSJRNL1): the reader reads the old file through it (the journal's bytes
over the file's), writing nothing; the next pfsbench to append or check
the file undoes it on disk. An incomplete journal means the file was
never touched.
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
WRITER, READER = 0, 1  # the locks' bytes in the lock file
# What stops a reader from making the lock file: it reads without a lock.
CANNOT_MAKE = (errno.EACCES, errno.EPERM, errno.EROFS)
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


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
    it. Only under the reader lock: the undo, like any write into the file
    in place, waits for it."""

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


def _lock_shared(fd: int, byte: int) -> None:
    """A shared lock on byte of fd, waited for. An OFD lock where there are
    (Linux, 64-bit): it belongs to this open file, so that closing another
    descriptor of the lock file in this process (another Results of the
    same file) keeps it; else a classic POSIX lock, as lockf takes."""
    cmd = getattr(fcntl, "F_OFD_SETLKW", None)
    if cmd is not None and struct.calcsize("P") == 8:
        # struct flock: l_type, l_whence, l_start, l_len, l_pid (0 for OFD)
        arg = struct.pack("@hhqqi4x", fcntl.F_RDLCK, os.SEEK_SET, byte, 1, 0)
        try:
            fcntl.fcntl(fd, cmd, arg)
            return
        except OSError as e:
            if e.errno != errno.EINVAL:  # EINVAL: a kernel without OFD locks
                raise
    fcntl.lockf(fd, fcntl.LOCK_SH, 1, byte)


def _is_hdf5(path: str) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(8) == HDF5_SIGNATURE
    except OSError:
        return False


def _open_lock(path: str, lock: str) -> Optional[int]:
    """The lock file; where no pfsbench has appended yet, made (empty, with
    the results file's mode) beside an HDF5 file, so that the next append
    sees this reader. None where it is missing and is not made (not an
    HDF5 file, which the open refuses; a directory this reader may not
    write to)."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(lock, flags)
    except OSError as e:
        if e.errno != errno.ENOENT:
            raise Unrecovered("cannot open the lock file %s of '%s': %s" % (lock, path, e.strerror))
    if not _is_hdf5(path):
        return None
    try:
        return os.open(lock, flags | os.O_CREAT, os.stat(path).st_mode & 0o666)
    except OSError as e:
        if e.errno in CANNOT_MAKE or e.errno == errno.ENOENT:
            return None
        raise Unrecovered("cannot make the lock file %s of '%s': %s" % (lock, path, e.strerror))


def hold_shared(path: str) -> Tuple[Optional[int], Optional[JournalView]]:
    """A descriptor of path's lock file holding the reader lock shared
    (close it to let go; None where there is no lock file and none can be
    made, or the file system takes no locks), and, where an append died
    mid-commit, the old file to read instead of path (JournalView). Waits
    only while an append writes into the file in place; appends never wait
    for it. Unrecovered when the journal cannot be read as the old file."""
    d, base = _beside(path)
    lock = os.path.join(d, ".%s.lock" % base)
    fd = _open_lock(path, lock)
    if fd is not None:
        try:
            _lock_shared(fd, READER)
        except OSError as e:
            os.close(fd)
            if e.errno not in NO_LOCKS:
                raise Unrecovered("cannot take the reader lock on %s to read '%s': %s" % (lock, path, e.strerror))
            fd = None  # a file system without locks (where pfsbench does not append): read as it is
    try:
        pending = _complete_journals(d, base)
        return fd, _view(path, pending) if pending else None
    except BaseException:
        if fd is not None:
            os.close(fd)
        raise
