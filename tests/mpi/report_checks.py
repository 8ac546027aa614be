"""The checks tests/mpi/test_report.sh makes on pfs-report's page as
headless Chromium loaded it:

    report_checks.py CHECK ARGS...

exits 0 when the check holds, else raises an AssertionError naming what
differs.

  console LOG                 Chromium's log (--enable-logging=stderr) holds no console message
  console_seen LOG            (the control) it holds the control page's console.error
  dom DOM RESULTS LABEL       the DOM Chromium built (--dump-dom): no script element, nothing
                              fetched, every image a PNG that decodes, run 1's label as text,
                              each repetition's MiB/s or files/s as the file holds it
  screenshot PNG WIDTH        Chromium's screenshot decodes, is WIDTH wide and is not blank
"""
import base64
import io
import os
import sys
from html.parser import HTMLParser
from typing import Dict, List, Optional, Tuple

import h5py
import matplotlib.image as mpimg
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402

MIB = 1048576.0
PNG = "data:image/png;base64,"


class Dom(HTMLParser):
    """Tags with their attributes, and the cells of each table by id."""

    def __init__(self, doc: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: List[Tuple[str, Dict[str, Optional[str]]]] = []
        self.tables: Dict[str, List[List[str]]] = {}
        self._rows: Optional[List[List[str]]] = None
        self._cell: Optional[List[str]] = None
        self.feed(doc)

    def handle_starttag(self, tag: str, attrs: List[Tuple[str, Optional[str]]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "table":
            self._rows = self.tables.setdefault(a.get("id") or "", [])
        elif tag == "tr" and self._rows is not None:
            self._rows.append([])
        elif tag in ("td", "th") and self._rows is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._rows:
            self._rows[-1].append("".join(self._cell))
            self._cell = None
        elif tag == "table":
            self._rows = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _console_lines(log: str) -> List[str]:
    with open(log, errors="replace") as f:
        return [ln.rstrip() for ln in f if ":CONSOLE" in ln]


def console(log: str) -> None:
    lines = _console_lines(log)
    assert not lines, "console messages while loading the page:\n" + "\n".join(lines)


def console_seen(log: str) -> None:
    lines = _console_lines(log)
    assert any("pfs-report-control" in ln for ln in lines), "the control's console.error was not logged: " \
        "the console check would see nothing"


def _images(dom: Dom) -> int:
    imgs = [a for t, a in dom.tags if t == "img"]
    assert len(imgs) >= 4, "%d images (run 1: nodes, timeline, latency; the comparison)" % len(imgs)
    for a in imgs:
        src = a.get("src") or ""
        assert src.startswith(PNG), "an image that is no embedded PNG: %.60s" % src
        px = mpimg.imread(io.BytesIO(base64.b64decode(src[len(PNG):], validate=True)), format="png")
        assert px.shape[0] > 100 and px.shape[1] > 100 and float(np.ptp(px)) > 0, "image %s: %s, blank" % (
            a.get("alt"), px.shape)
    return len(imgs)


def _figures(results: str) -> List[List[str]]:
    """(phase, rep, MiB/s or files/s) of run 1, as the file holds them."""
    out = []
    with h5py.File(results, "r") as f:
        for _, g in sorted(f["runs/000001/phases"].items()):
            meta = text(g.attrs["kind"]) == "metadata"
            for rep in range(int(g.attrs["repetitions"])):
                out.append([text(g.attrs["phase"]), str(rep), "%.1f" % g["rate"][rep] if meta
                            else "%.2f" % (g["bandwidth"][rep] / MIB)])
    return out


def dom(path: str, results: str, label: str) -> None:
    with open(path, encoding="utf-8") as f:
        d = Dom(f.read())
    assert not [t for t, _ in d.tags if t in ("script", "link", "iframe", "object", "embed")], "active elements"
    refs = [v or "" for _, a in d.tags for k, v in a.items() if k in ("src", "href")]
    assert all(r.startswith(PNG) or r.startswith("#") for r in refs), "fetches %s" % [r[:40] for r in refs]
    n = _images(d)
    head = dict((r[0], r[1]) for r in d.tables["head-run1"])
    assert head["label"] == label, "label shown as %r" % head["label"]
    got = [r[:3] for r in d.tables["reps-run1"][1:]]
    want = _figures(results)
    assert got == want, "repetitions table %s, the file %s" % (got, want)
    print("%d images decoded, %d rows of figures match" % (n, len(want)))


def screenshot(path: str, width: str) -> None:
    px = mpimg.imread(path, format="png")
    assert px.shape[1] == int(width), "screenshot %s wide" % (px.shape,)
    rgb = px[:, :, :3]
    ink = float((rgb.min(axis=2) < 0.9).mean())
    colours = len(np.unique((rgb * 15).round().reshape(-1, 3), axis=0))
    assert ink > 0.02 and colours > 20, "blank: %.3f of the pixels drawn, %d colours" % (ink, colours)
    print("%.3f of the pixels drawn, %d colours" % (ink, colours))


if __name__ == "__main__":
    sys.exit(dispatch({"console": console, "console_seen": console_seen, "dom": dom, "screenshot": screenshot},
                      sys.argv))
