"""What every chart of pfs-plot shares: matplotlib's set-up, saving, axes
and units, the runs' description in a title, and value labels that stay
readable."""

from __future__ import annotations

import csv
import math
import os
import textwrap
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FixedLocator, NullLocator  # noqa: E402

from ...h5file import NoSuchRun  # noqa: E402
from ...reader import Run, is_metadata  # noqa: E402
from ..common import Usage, size_text  # noqa: E402
from ..names import UNITS, auto_unit, unit_named  # noqa: E402
from ..table import Data, Row  # noqa: E402
from .ticks import eng_axes  # noqa: E402

# The same file from the same data, byte for byte: no date, fixed ids.
matplotlib.rcParams["svg.hashsalt"] = "pfsbench"
# Text stays text in the SVG: searchable, and editable in a drawing program.
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["font.size"] = 9

PHASE_STYLE = {  # colour, marker
    "write": ("#1f77b4", "o"), "rewrite": ("#17becf", "s"), "read": ("#d62728", "^"),
    "reread": ("#ff7f0e", "v"), "create": ("#2ca02c", "o"), "stat": ("#9467bd", "s"),
    "read-files": ("#8c564b", "^"), "find": ("#bcbd22", "D"), "delete": ("#7f7f7f", "v"),
    "mkdir": ("#e377c2", "P"), "stat-dirs": ("#aec7e8", "X"), "rmdir": ("#98df8a", "*"),
}
OLD_FILE = ("it was written before pfsbench recorded latencies and time series (files from then have no "
            "latency, node_latency or timeseries datasets); run the benchmark again with this pfsbench")
# Lines of nodes that were not stragglers: muted; stragglers: warm.
MUTED = ("#4c72b0", "#55a868", "#8172b2", "#64b5cd", "#937860", "#8c8c8c", "#2a9d8f", "#6a7fdb", "#9a9a50",
         "#5f8fa0", "#7d6a8c", "#4d6d5a")
WARM = ("#d62728", "#ff7f0e", "#c51b7d", "#e6ab02", "#8c2d04", "#f768a1")
MANY_NODES = 12  # above this: thin grey nodes, a p10-p90 band and the median instead of a legend per node
LOG_SPAN = 30.0  # a rate axis whose positive values span more than this factor is logarithmic


def cycle_colours() -> List[str]:
    return list(plt.rcParams["axes.prop_cycle"].by_key()["color"])


def style(phase: str, i: int) -> Tuple[str, str]:
    """(colour, marker) of phase, the i-th line of its chart."""
    if phase in PHASE_STYLE:
        return PHASE_STYLE[phase]
    cyc = cycle_colours()
    return cyc[i % len(cyc)], "o"


def save(fig: Any, prefix: str, formats: Sequence[str], dpi: int = 120) -> List[str]:
    """Writes fig as PREFIX.FORMAT for each format (or, for -o OUT.png /
    OUT.svg / OUT.pdf, that one file) and closes it; returns the paths.
    Every number axis gets engineering tick labels first (ticks.eng_axes)."""
    given = prefix
    stem, ext = os.path.splitext(prefix)
    if ext.lower() in (".png", ".svg", ".pdf"):  # -o OUT.png: that one file, its format by the extension
        prefix, formats = stem, [ext.lower()[1:]]
    d = os.path.dirname(prefix)
    if d and not os.path.isdir(d):
        plt.close(fig)
        raise Usage("-o %s: directory '%s' does not exist" % (given, d))
    eng_axes(fig)
    out = []
    for fmt in formats:
        path = "%s.%s" % (prefix, fmt)
        who = "pfsbench pfs-plot (matplotlib %s)" % matplotlib.__version__
        meta: Dict[str, Optional[str]] = {"Date": None} if fmt == "svg" else {"Creator": who, "CreationDate": None} if fmt == "pdf" \
            else {"Software": who}
        fig.savefig(path, format=fmt, dpi=dpi, metadata=meta, bbox_inches="tight")
        out.append(path)
    plt.close(fig)
    return out


def pick_unit(arg: Optional[str], values_bytes_per_s: Sequence[float]) -> str:
    if arg and arg.lower() != "auto":
        return unit_named(arg)
    return auto_unit(max(values_bytes_per_s) if values_bytes_per_s else 0)


def unit_axis_label(what: str, unit: str) -> str:
    """The y axis label with its unit spelled out."""
    lab = UNITS[unit][1]
    base = {"MiB/s": "2^20 B/s", "GiB/s": "2^30 B/s", "KB/s": "1024 B/s", "KiB/s": "1024 B/s",
            "MB/s": "10^6 B/s", "GB/s": "10^9 B/s"}[lab]
    return "%s (%s = %s)" % (what, lab, base)


def log2_axis(ax: Any, xs: Sequence[float]) -> None:
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(xs))
    ax.xaxis.set_minor_locator(NullLocator())
    if len(xs) == 1:
        ax.set_xlim(xs[0] / 2.0, xs[0] * 2.0)
    else:
        ax.set_xlim(min(xs) / 1.4, max(xs) * 1.4)


def _common_attrs(data: Data, runs: Sequence[int]) -> Dict[str, Any]:
    """The attributes every one of runs has with the same value."""
    each = [data.runs.get(n, {}) for n in runs]
    # repr: an attribute of a hostile file may be an array, which == would not reduce to one answer
    return {k: v for k, v in each[0].items() if all(repr(x.get(k)) == repr(v) for x in each[1:])}


def _data_words(data: Data, runs: Sequence[int], drows: Sequence[Row], a: Dict[str, Any]) -> List[str]:
    """What the data phases did: access, transfer, sizes, fsync, caches."""
    parts = []
    if "mode" in a:
        parts.append("one shared file" if a["mode"] == "shared" else "N clients to N files")
    tr = sorted({r["transfer"] for r in drows})
    parts.append("transfer %s" % "/".join(size_text(t) for t in tr))
    totals = sorted({int(data.runs.get(n, {}).get("total", 0)) for n in runs})
    blocks = sorted({r["block"] for r in drows})
    if len(totals) == 1 and len(blocks) > 1:
        parts.append("total %s per point" % size_text(totals[0]))
    elif len(blocks) == 1:
        threads = {r.get("threads", 1) for r in drows}
        parts.append("%s per %s" % (size_text(blocks[0]), "rank" if threads == {1} else "stream"))
    for k, words in (("fsync", "fsync timed"), ("direct", "O_DIRECT"), ("drop_caches", "caches dropped before reads"),
                     ("reorder", "reads from another node (-C)")):
        if str(a.get(k, "0")) in ("1", "True"):
            parts.append(words)
    return parts


def _meta_words(data: Data, runs: Sequence[int], a: Dict[str, Any], with_data: bool) -> List[str]:
    """What the metadata phases did: files per stream, their size, the directories."""
    parts = []
    files = sorted({int(data.runs.get(n, {}).get("files", 0)) for n in runs} - {0})
    size = int(a.get("file_size", 0) or 0)
    dirs = str(a.get("dirs", ""))
    if files:
        parts.append("%s %sfiles per stream%s" % ("/".join(str(n) for n in files), "" if size else "empty ",
                                                  " of %s each" % size_text(size) if size else ""))
    if dirs:
        parts.append("a directory per stream" if dirs.startswith("per") else "one shared directory")
    if str(a.get("order", "")) == "random":
        parts.append("names in random order")
    if str(a.get("reorder", "0")) in ("1", "True") and not with_data:
        parts.append("stat and read-files from another node (-C)")
    return parts


def describe_runs(data: Data, rows: Sequence[Row]) -> str:
    """A line on what the runs of rows have in common: file system, then
    what their data phases did (access, transfer, sizes, fsync, caches) and
    what their metadata phases did (files per stream, their size, the
    directories), each only when the rows have such phases. A fact the
    runs do not all share is left out (pfs-compare's columns name it)."""
    runs = sorted({r["run"] for r in rows})
    a = _common_attrs(data, runs)
    md = [is_metadata(r["phase"], r.get("kind")) if "phase" in r else False for r in rows]
    drows = [r for r, m in zip(rows, md) if not m]
    parts = ["%s" % a["fs_type"]] if a.get("fs_type") else []
    if drows:
        parts += _data_words(data, runs, drows, a)
    if any(md):
        parts += _meta_words(data, runs, a, bool(drows))
    nodes = sorted({r["nodes"] for r in rows})
    parts.append("%s node%s" % ("/".join(str(n) for n in nodes), "" if nodes == [1] else "s"))
    return ", ".join(parts)


def value_text(m: float) -> str:
    """A bar's or a peak's value: 2 decimals below 100, 1 below 10,000, then whole numbers with commas."""
    if abs(m) >= 10000:
        return "{:,.0f}".format(m)
    return "%.*f" % (1 if abs(m) >= 100 else 2, m)


def rate_axis(ax: Any, values: Iterable[Optional[float]], label: str) -> bool:
    """The y axis of a rate (files/s, or bandwidth): logarithmic when its
    positive values span more than LOG_SPAN, so that create's bars still
    show beside stat's; the label says which. Ticks: save()'s eng_axes.
    Returns True when logarithmic."""
    pos = [float(v) for v in values if v is not None and v > 0]
    log = bool(pos) and max(pos) / min(pos) > LOG_SPAN
    if log:
        ax.set_yscale("log")
        label += "  [log scale]"
    ax.set_ylabel(label)
    return log


def fit_labels(fig: Any, ax: Any, texts: Sequence[Any], rotate: bool = True) -> None:
    """Keeps value labels readable: turns them upright (90 degrees) when any
    two overlap, and raises the top of the y axis until every label lies
    inside the frame."""
    texts = [t for t in texts if t.get_text()]
    if not texts:
        return
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    if rotate:
        bbs = [t.get_window_extent(r) for t in texts]
        if any(bbs[i].overlaps(bbs[j]) for i in range(len(bbs)) for j in range(i + 1, len(bbs))):
            for t in texts:
                t.set_rotation(90)
    log = ax.get_yscale() == "log"
    for _ in range(6):
        fig.canvas.draw()
        box = ax.get_window_extent(r)
        top = max(t.get_window_extent(r).y1 for t in texts)
        if top <= box.y1 - 3:
            break
        frac = (top + 6 - box.y0) / max(box.height, 1.0)
        y0, y1 = ax.get_ylim()
        if log:
            l0, l1 = math.log10(y0), math.log10(y1)
            ax.set_ylim(y0, 10 ** (l0 + (l1 - l0) * frac))
        else:
            ax.set_ylim(y0, y0 + (y1 - y0) * frac)


def legend_outside(ax: Any, **kw: Any) -> Any:
    """The legend right of the axes, where it hides no bar, point or label."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def reps_text(ns: Iterable[int], bars: bool = True) -> str:
    """'mean of 3 repetitions, bars: min-max'; one repetition has no range to show."""
    ns = sorted(ns)
    if not ns:
        return "no repetitions"
    if ns == [1]:
        return "1 repetition each (no range to show)"
    what = "mean of %d repetitions" % ns[0] if len(ns) == 1 else "mean of %d-%d repetitions" % (ns[0], ns[-1])
    return what + (", bars: min-max" if bars else "")


def wrap(text: str, width: int = 100) -> str:
    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False))


def default_prefix(results: str, what: str) -> str:
    stem = os.path.splitext(os.path.basename(results))[0]
    return "%s-%s" % (stem, what)


def dummy_row(attrs: Dict[str, Any]) -> Row:
    """A summary row of what a run's attributes say, for describe_runs of a run without rows."""
    return {"run": 0, "transfer": int(attrs.get("transfer", 0)), "block": int(attrs.get("block", 0)),
            "nodes": int(attrs.get("nodes", 0))}


def pick_run(data: Data, which: Optional[str]) -> Run:
    """Run `which`, else the last complete run (else the last run)."""
    runs = sorted(data.runs)
    if not runs:
        raise Usage("%s holds no runs" % data.path)
    if which is None:
        done = [n for n in runs if data.runs[n].get("status") == "complete"]
        which = str((done or runs)[-1])
    try:
        run, problems = data.results.lookup(which)
    except NoSuchRun as e:
        raise Usage(str(e))
    if run is None:
        raise Usage("run %s is damaged: %s" % (which, "; ".join(what for _, what in problems)))
    return run


def run_title(data: Data, run: int, what: str) -> str:
    attrs = data.runs.get(run, {})
    lab = attrs.get("label", "")
    rows = [r for r in data.rows if r["run"] == run] or [dummy_row(attrs)]
    return "run %d%s: %s\n%s" % (run, " (%s)" % lab if lab else "", what,
                                 wrap("%d ranks, %s" % (int(attrs.get("ranks", 0)), describe_runs(data, rows))))


def write_csv(path: str, header: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    d = os.path.dirname(path)
    if d and not os.path.isdir(d):
        raise Usage("--data-csv %s: directory '%s' does not exist" % (path, d))
    with open(path, "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(header)
        w.writerows(rows)
