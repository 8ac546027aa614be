"""Text from a results file: as str, for a terminal, for CSV.

HDF5 hands text over as bytes, numpy bytes or str (h5py gives attributes
as str with surrogate escapes for bytes that are not UTF-8). text() makes
each a str: a byte that is not UTF-8 becomes U+FFFD, or with lossless=True
stays a surrogate escape, which display() shows as \\xNN.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import numpy as np


def text(v: Any, lossless: bool = False) -> str:
    """An HDF5 string (bytes, numpy bytes, str, a 0-d array of one) as str.
    Bytes that are not UTF-8 become U+FFFD, or with lossless surrogate
    escapes, which display() shows as \\xNN."""
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).decode("utf-8", "surrogateescape" if lossless else "replace")
    if isinstance(v, np.ndarray) and v.shape == ():
        return text(v[()], lossless)
    s = str(v)
    if not lossless and any("\udc80" <= c <= "\udcff" for c in s):
        return s.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return s


def plain(v: Any, lossless: bool = False) -> Any:
    """A numpy scalar as the Python number or str it holds; anything else as it is."""
    if isinstance(v, (bytes, np.bytes_, str)):
        return text(v, lossless)
    if isinstance(v, np.generic):
        return v.item()
    return v


# Code points that reorder or hide what a terminal shows, beyond the controls.
_FORMAT_UNSAFE = {0x2028, 0x2029} | set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A))
_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\"}


def display(v: Any) -> str:
    """Text for a terminal, as pfsbench's text report writes it: what a
    terminal would act on shown visibly (\\n \\t \\r, \\xNN below 0x80,
    \\uXXXX), a byte that is not UTF-8 as \\xNN (0x80..0xFF), a backslash
    as \\\\; printable text, accented and CJK included, unchanged."""
    out = []
    for c in v if isinstance(v, str) else text(v, True):
        o = ord(c)
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif 0xDC80 <= o <= 0xDCFF:  # a byte that was not UTF-8
            out.append("\\x%02x" % (o - 0xDC00))
        elif unicodedata.category(c) in ("Cc", "Cs") or o in _FORMAT_UNSAFE:
            out.append("\\x%02x" % o if o < 0x80 else "\\u%04x" % o)
        else:
            out.append(c)
    return "".join(out)


def clean(v: Any) -> Any:
    """Text with each byte that is not UTF-8 (a surrogate escape) as U+FFFD,
    for output that must be valid UTF-8 (CSV); anything else as it is."""
    return text(v) if isinstance(v, (str, bytes, np.bytes_)) else v
