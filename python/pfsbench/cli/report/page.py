"""The page of pfs-report: HTML pieces that escape every text they are
given, and the page around them (its own style, no script, nothing
fetched: a Content-Security-Policy that allows only inline style and data:
images, so that even a text that escaped escaping could not run or load
anything)."""

from __future__ import annotations

import base64
import html
from typing import Any, List, Optional, Sequence

from ...text import display

CSS = """
body { font-family: sans-serif; font-size: 14px; margin: 1.5em auto; max-width: 1200px; color: #1a1a1a;
       padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.25em; border-bottom: 1px solid #ccc; padding-bottom: .2em;
       margin-top: 2em; } h3 { font-size: 1.05em; margin-top: 1.4em; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: 13px; }
th, td { border: 1px solid #d0d0d0; padding: 2px 7px; text-align: left; vertical-align: top; }
th { background: #eef1f5; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
table.head th { text-align: right; background: none; border: none; padding-right: 1em; white-space: nowrap; }
table.head td { border: none; font-family: monospace; word-break: break-all; }
tr.straggler td { background: #fde2e2; } tr.warmup td { color: #777; }
ul.warnings li { background: #fff4d6; margin: .3em 0; padding: .2em .5em; font-family: monospace;
       white-space: pre-wrap; word-break: break-word; }
p.units { color: #555; font-size: 12px; } p.note { color: #555; font-size: 12px; white-space: pre-wrap; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #e0e0e0; }
figcaption { color: #555; font-size: 12px; }
.bad { color: #b00000; font-weight: bold; }
"""
POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def esc(v: Any) -> str:
    """Text of the file for the page: control characters and bytes that are
    not UTF-8 made visible as pfs-results shows them (\\n, \\xNN), then
    HTML-escaped (<, >, &, both quotes)."""
    return html.escape(display(v if isinstance(v, str) else str(v)), quote=True)


def tag(name: str, body: str, cls: Optional[str] = None, ident: Optional[str] = None) -> str:
    """<name class id>body</name>; body is HTML already (escape text with esc)."""
    attrs = "".join(' %s="%s"' % (k, html.escape(v, quote=True)) for k, v in (("class", cls), ("id", ident)) if v)
    return "<%s%s>%s</%s>" % (name, attrs, body, name)


def table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[bool], ident: str,
          row_classes: Optional[Sequence[str]] = None) -> str:
    """A table of text cells (each escaped here); numeric columns right-aligned."""
    head = "".join(tag("th", esc(h)) for h in header)
    body: List[str] = []
    for i, r in enumerate(rows):
        cells = "".join(tag("td", esc(c), "n" if numeric[j] else None) for j, c in enumerate(r))
        body.append(tag("tr", cells, row_classes[i] if row_classes and row_classes[i] else None))
    return tag("table", tag("thead", tag("tr", head)) + tag("tbody", "".join(body)), ident=ident)


def key_values(pairs: Sequence[Sequence[str]], ident: str) -> str:
    """A two-column table of (name, value) text."""
    return tag("table", "".join(tag("tr", tag("th", esc(k)) + tag("td", esc(v))) for k, v in pairs), "head", ident)


def image(png: bytes, alt: str, caption: str) -> str:
    """A PNG embedded as a data: URI, with its caption."""
    src = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return tag("figure", '<img src="%s" alt="%s">' % (src, esc(alt)) + tag("figcaption", esc(caption)))


def page(title: str, body: Sequence[str]) -> str:
    """The whole document: one file, its style inline, no script."""
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta http-equiv="Content-Security-Policy" content="%s">' % POLICY,
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>%s</title>" % esc(title),
        "<style>%s</style>" % CSS,
        "</head>",
        "<body>"] + list(body) + ["</body>", "</html>", ""])
