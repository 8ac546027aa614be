"""The checks tests/mpi/test_trust_output.sh makes on pfsbench's and
pfs-results' output when the label and directory hold hostile bytes:

    trust_output_checks.py CHECK ARGS...

exits 0 when the check holds, else raises an AssertionError naming what
differs (or a UnicodeDecodeError for output that is not UTF-8). The label
and directory as sent come hex-encoded in LABEL_BYTES_HEX and DIR_BYTES_HEX.

  json OUT                      valid UTF-8, parses strictly, label and dir as sent
  csv OUT                       valid UTF-8, 4 records of the header's width
  text OUT                      UTF-8 without control bytes but newlines
  failed OUT                    the failed run's JSON parses, its error says ENOSPC
  command_line RESULTS PFSBENCH DIR LABEL   the stored line splits back into the argv
  pfs_results OUT OPTIONS       UTF-8, no control bytes outside CSV quotes
  damage RESULTS COPY           (not a check) COPY has runs 2..6 damaged five ways
  damage_all RESULTS COPY       (not a check) COPY has every run and /summary damaged
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def fix(hexs: str) -> str:
    """Bytes given as hex as JSON and CSV must show them: each byte that is not UTF-8 as U+FFFD."""
    return bytes.fromhex(hexs).decode("utf-8", "replace")


def read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def json_out(out: str) -> None:
    raw = read(out)
    text = raw.decode("utf-8")  # strict: raises on anything that is not UTF-8
    d = json.loads(text, strict=True)
    assert d["label"] == fix(os.environ["LABEL_BYTES_HEX"]), repr(d["label"])
    assert d["dir"] == fix(os.environ["DIR_BYTES_HEX"]), repr(d["dir"])
    assert not any(b < 0x20 and b != 0x0A for b in raw) and b"\x1b" not in raw, "a raw control byte"
    assert "\x1b[31m" in d["label"]  # the ESC is kept, escaped as \u001b
    if "command_line" in d:
        assert "--label" in d["command_line"]


def csv_out(out: str) -> None:
    text = read(out).decode("utf-8")
    rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    assert len(rows) == 5, rows
    assert all(len(r) == len(rows[0]) for r in rows), [len(r) for r in rows]
    label = fix(os.environ["LABEL_BYTES_HEX"])
    col = rows[0].index("label")
    assert all(r[col] == label for r in rows[1:]), repr(rows[1][col])


def text_out(out: str) -> None:
    raw = read(out)
    raw.decode("utf-8")
    assert not any(b < 0x20 and b != 0x0A or b == 0x7F for b in raw), "a raw control byte"


def failed(out: str) -> None:
    d = json.loads(read(out).decode("utf-8"), strict=True)
    assert d["status"] == "failed" and "No space left on device" in d["error"], d["error"]


def command_line(results: str, pfsbench: str, d: str, label: str) -> None:
    f = h5py.File(results, "r")
    attr = f["runs/000003"].attrs["command_line"]
    stored: bytes = attr.encode("utf-8", "surrogateescape") if isinstance(attr, str) else bytes(attr)
    want = [os.fsencode(a) for a in (pfsbench, "-d", d, "-t", "64k", "-b", "256k", "-p", "write",
                                     "--label", label, "-v", "-o", results)]
    # A quoted line holds no raw control byte; one that does would run its
    # second line as a command, so it is refused before any shell sees it.
    assert not any(b < 0x20 or b == 0x7F for b in stored), "stored line holds raw control bytes: %r" % stored
    stored.decode("utf-8")
    words = subprocess.run([b"bash", b"-c", b"printf '%s\\0' " + stored], capture_output=True, check=True).stdout
    got = words.split(b"\0")[:-1]
    assert got == want, (got, want)


def pfs_results(out: str, options: str) -> None:
    raw = read(out)
    raw.decode("utf-8")
    if "--csv" not in options:
        assert not any(b < 0x20 and b != 0x0A or b == 0x7F for b in raw), "a raw control byte"


def damage(results: str, copy: str) -> None:
    shutil.copy(results, copy)
    with h5py.File(copy, "r+") as f:
        r = f["runs"]
        del r["000002"].attrs["ranks"]                          # an attribute missing
        del r["000003/phases/00_write/times"]                   # a dataset missing
        del r["000004/phases/01_read/bandwidth"]                # a dataset of the wrong shape
        r["000004/phases/01_read"].create_dataset("bandwidth", data=np.zeros(7))
        r["000005"].attrs["nodes"] = "garbage"                  # an attribute garbled
        del r["000006/placement"]                               # the placement missing
        r["000006"].create_dataset("placement", data=np.zeros((2, 3)))


def damage_all(results: str, copy: str) -> None:
    shutil.copy(results, copy)
    with h5py.File(copy, "r+") as f:
        for name in ("000001", "000007"):
            del f["runs"][name].attrs["status"]
        del f["summary"]
        f.create_dataset("summary", data=np.arange(4))


if __name__ == "__main__":
    sys.exit(dispatch({"json": json_out, "csv": csv_out, "text": text_out, "failed": failed,
                       "command_line": command_line, "pfs_results": pfs_results, "damage": damage,
                       "damage_all": damage_all}, sys.argv))
