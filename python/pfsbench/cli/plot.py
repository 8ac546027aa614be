"""pfs-plot: charts from a pfsbench results file, as PNG and SVG (pfsbench.cli.plot).

    pfs-plot sweep   FILE [--sweep ID | --label PATTERN]   bandwidth vs ranks (log2), a line per phase,
                                                            min-max bars over repetitions
    pfs-plot nodes   FILE [--run N]                         per-node bandwidth of one run, stragglers marked
    pfs-plot compare FILE [--label PATTERN ...]             grouped bars: phases x configurations (labels)
    pfs-plot timeline FILE [--run N] [--iops]               bandwidth (and ops/s) per node over time, phases
                                                            shaded, stragglers in red/orange
    pfs-plot latency FILE [--run N ...] [--phase P]         latency CDF (log x), a line per phase, node
                     [--per phase|node|run]                 (--per node) or run; p50/p99/p99.9 marked

Each writes PREFIX.png and PREFIX.svg (-o PREFIX; --formats png,svg), or
one file with -o OUT.png / OUT.svg / OUT.pdf, and prints their names;
timeline and latency also write the plotted series with --data-csv FILE. Only complete runs count, unless --include-failed.
Units: --units MiB (default: MiB/s, GiB/s past 10 GiB/s), KB (1024 bytes,
the seeds' KB/s), KiB, GiB, or decimal MB, GB; metadata phases in files/s.

Exit status: 0 done, 2 bad input.
"""

import argparse
import math
import os
import sys
import textwrap
import warnings

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter, NullLocator  # noqa: E402

from . import compare as pc  # noqa: E402

pfs_results = pc.pfs_results
Usage = pc.Usage

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


def style(phase, i):
    if phase in PHASE_STYLE:
        return PHASE_STYLE[phase]
    cyc = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return cyc[i % len(cyc)], "o"


def save(fig, prefix, formats, dpi=120):
    given = prefix
    stem, ext = os.path.splitext(prefix)
    if ext.lower() in (".png", ".svg", ".pdf"):  # -o OUT.png: that one file, its format by the extension
        prefix, formats = stem, [ext.lower()[1:]]
    d = os.path.dirname(prefix)
    if d and not os.path.isdir(d):
        plt.close(fig)
        raise Usage("-o %s: directory '%s' does not exist" % (given, d))
    out = []
    for fmt in formats:
        path = "%s.%s" % (prefix, fmt)
        who = "pfsbench pfs-plot (matplotlib %s)" % matplotlib.__version__
        meta = {"Date": None} if fmt == "svg" else {"Creator": who, "CreationDate": None} if fmt == "pdf" \
            else {"Software": who}
        fig.savefig(path, format=fmt, dpi=dpi, metadata=meta, bbox_inches="tight")
        out.append(path)
    plt.close(fig)
    return out


def pick_unit(arg, values_bytes_per_s):
    if arg and arg.lower() != "auto":
        return pc.unit_named(arg)
    return pc.auto_unit(max(values_bytes_per_s) if values_bytes_per_s else 0)


def unit_axis_label(what, unit):
    """The y axis label with its unit spelled out."""
    lab = pc.UNITS[unit][1]
    base = {"MiB/s": "2^20 B/s", "GiB/s": "2^30 B/s", "KB/s": "1024 B/s", "KiB/s": "1024 B/s",
            "MB/s": "10^6 B/s", "GB/s": "10^9 B/s"}[lab]
    return "%s (%s = %s)" % (what, lab, base)


def log2_axis(ax, xs):
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(xs))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: "%d" % round(v)))
    ax.xaxis.set_minor_locator(NullLocator())
    if len(xs) == 1:
        ax.set_xlim(xs[0] / 2.0, xs[0] * 2.0)
    else:
        ax.set_xlim(min(xs) / 1.4, max(xs) * 1.4)


def fmt_size(n):
    return pfs_results._size(n)


def describe_runs(data, rows):
    """A line on what the runs of rows have in common: file system, then
    what their data phases did (access, transfer, sizes, fsync, caches) and
    what their metadata phases did (files per stream, their size, the
    directories), each only when the rows have such phases. A fact the
    runs do not all share is left out (pfs-compare's columns name it)."""
    runs = sorted({r["run"] for r in rows})
    each = [data.runs.get(n, {}) for n in runs]
    # repr: an attribute of a hostile file may be an array, which == would not reduce to one answer
    a = {k: v for k, v in each[0].items() if all(repr(x.get(k)) == repr(v) for x in each[1:])}
    is_md = lambda r: pfs_results.is_metadata(r["phase"], r.get("kind")) if "phase" in r else False
    drows = [r for r in rows if not is_md(r)]
    mrows = [r for r in rows if is_md(r)]
    parts = []
    if a.get("fs_type"):
        parts.append("%s" % a["fs_type"])
    flag = lambda k: str(a.get(k, "0")) in ("1", "True")
    if drows:
        if "mode" in a:
            parts.append("one shared file" if a["mode"] == "shared" else "N clients to N files")
        tr = sorted({r["transfer"] for r in drows})
        parts.append("transfer %s" % "/".join(fmt_size(t) for t in tr))
        totals = sorted({int(data.runs.get(n, {}).get("total", 0)) for n in runs})
        blocks = sorted({r["block"] for r in drows})
        if len(totals) == 1 and len(blocks) > 1:
            parts.append("total %s per point" % fmt_size(totals[0]))
        elif len(blocks) == 1:
            threads = {r.get("threads", 1) for r in drows}
            parts.append("%s per %s" % (fmt_size(blocks[0]), "rank" if threads == {1} else "stream"))
        if flag("fsync"):
            parts.append("fsync timed")
        if flag("direct"):
            parts.append("O_DIRECT")
        if flag("drop_caches"):
            parts.append("caches dropped before reads")
        if flag("reorder"):
            parts.append("reads from another node (-C)")
    if mrows:
        files = sorted({int(data.runs.get(n, {}).get("files", 0)) for n in runs} - {0})
        size = int(a.get("file_size", 0) or 0)
        dirs = str(a.get("dirs", ""))
        if files:
            parts.append("%s %sfiles per stream%s" % ("/".join(str(n) for n in files), "" if size else "empty ",
                                                      " of %s each" % fmt_size(size) if size else ""))
        if dirs:
            parts.append("a directory per stream" if dirs.startswith("per") else "one shared directory")
        if str(a.get("order", "")) == "random":
            parts.append("names in random order")
        if flag("reorder") and not drows:
            parts.append("stat and read-files from another node (-C)")
    nodes = sorted({r["nodes"] for r in rows})
    parts.append("%s node%s" % ("/".join(str(n) for n in nodes), "" if nodes == [1] else "s"))
    return ", ".join(parts)


LOG_SPAN = 30.0  # a rate axis whose positive values span more than this factor is logarithmic


def _num_tick(v, _pos=None):
    """A tick without matplotlib's offset or 1e6 multiplier: 200,000; 0.5."""
    if v == 0:
        return "0"
    if abs(v) >= 10 or float(v).is_integer():
        return "{:,.0f}".format(v)
    return "%g" % v


def value_text(m):
    """A bar's or a peak's value: 2 decimals below 100, 1 below 10,000, then whole numbers with commas."""
    if abs(m) >= 10000:
        return "{:,.0f}".format(m)
    return "%.*f" % (1 if abs(m) >= 100 else 2, m)


def rate_axis(ax, values, label):
    """The y axis of a rate (files/s, or bandwidth): logarithmic when its
    positive values span more than LOG_SPAN, so that create's bars still
    show beside stat's; the label says which. Ticks in plain numbers.
    Returns True when logarithmic."""
    pos = [float(v) for v in values if v is not None and v > 0]
    log = bool(pos) and max(pos) / min(pos) > LOG_SPAN
    if log:
        ax.set_yscale("log")
        ax.yaxis.set_minor_formatter(NullFormatter())
        label += "  [log scale]"
    ax.yaxis.set_major_formatter(FuncFormatter(_num_tick))
    ax.set_ylabel(label)
    return log


def fit_labels(fig, ax, texts, rotate=True):
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


def legend_outside(ax, **kw):
    """The legend right of the axes, where it hides no bar, point or label."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **kw)


def reps_text(ns, bars=True):
    """'mean of 3 repetitions, bars: min-max'; one repetition has no range to show."""
    ns = sorted(ns)
    if not ns:
        return "no repetitions"
    if ns == [1]:
        return "1 repetition each (no range to show)"
    what = "mean of %d repetitions" % ns[0] if len(ns) == 1 else "mean of %d-%d repetitions" % (ns[0], ns[-1])
    return what + (", bars: min-max" if bars else "")


# ---- sweep: bandwidth vs ranks ----

def plot_sweep(data, a):
    if a.sweep is None and not a.label and not a.run:
        sw = data.sweeps()
        if len(sw) == 1:
            a.sweep = sw[0]
        else:
            raise Usage("say which runs: --sweep ID (%s) or --label PATTERN"
                        % ("sweeps in the file: " + ", ".join(sw) if sw else "the file holds no pfs-sweep runs"))
    rows = pc.selection_from_args(data, a)
    xkind = a.x
    if xkind is None:  # what the runs vary: threads at fixed ranks, else ranks
        fixed_ranks = len({r["ranks"] for r in rows}) == 1
        xkind = "threads" if fixed_ranks and len({r.get("threads", 1) for r in rows}) > 1 else "ranks"

    def xval(r):
        if xkind == "ranks":
            return r["ranks"]
        t = r.get("threads", 1)
        return t if xkind == "threads" else r["ranks"] * t

    # Each row's kind as its run's file says it (pfs_results.phase_kind).
    data_rows = [r for r in rows if not pfs_results.is_metadata(r["phase"], r.get("kind"))]
    meta_rows = [r for r in rows if pfs_results.is_metadata(r["phase"], r.get("kind"))]
    unit = pick_unit(a.units, [pc.value(data, r, a.value) or 0 for r in data_rows])
    panels = [(p, rs) for p, rs in (("data", data_rows), ("meta", meta_rows)) if rs]
    fig, axes = plt.subplots(len(panels), 1, figsize=(7.5, 4.6 * len(panels)), squeeze=False)
    xs_all = sorted({xval(r) for r in rows})
    reps = set()
    for (kind, rs), ax in zip(panels, axes[:, 0]):
        plain = kind == "meta" or a.value in ("utilization", "seconds")
        scale = 1.0 if plain else pc.UNITS[unit][0]
        peaks, plotted = [], []
        phases = []
        for r in rs:
            if r["phase"] not in phases:
                phases.append(r["phase"])
        for i, ph in enumerate(phases):
            by_x = {}
            for r in rs:
                if r["phase"] == ph:
                    v = pc.value(data, r, a.value)
                    if v is not None:
                        by_x.setdefault(xval(r), []).append(v / scale)
            xs = sorted(by_x)
            if not xs:
                continue
            mean = [sum(by_x[x]) / len(by_x[x]) for x in xs]
            lo = [m - min(by_x[x]) for m, x in zip(mean, xs)]
            hi = [max(by_x[x]) - m for m, x in zip(mean, xs)]
            reps.update(len(by_x[x]) for x in xs)
            colour, marker = style(ph, i)
            # Phases side by side at each point, so that their bars do not hide each other.
            dodge = 2 ** ((i - (len(phases) - 1) / 2.0) * 0.045)
            xd = [x * dodge for x in xs]
            ax.errorbar(xd, mean, yerr=[lo, hi], color=colour, marker=marker, capsize=4, linewidth=1.6,
                        markersize=5, label=pc.phase_name(ph, a.names))
            plotted += [m - l for m, l in zip(mean, lo)] + [m + h for m, h in zip(mean, hi)]
            k = max(range(len(xs)), key=lambda j: mean[j])
            if len(xs) > 1:
                last = k == len(xs) - 1  # at the right end the label goes left of the point, inside the frame
                peaks.append(ax.annotate("peak " + value_text(mean[k]), (xd[k], mean[k] + hi[k]),
                                         textcoords="offset points", xytext=(-6 if last else 7, 4),
                                         ha="right" if last else "left", va="bottom", color=colour, fontsize=8))
        log2_axis(ax, xs_all)
        ax.grid(True, which="major", alpha=0.3)
        xl = {"ranks": "ranks (MPI processes, round-robin over the nodes)", "threads": "threads per rank",
              "streams": "streams (ranks x threads)"}[xkind]
        ax.set_xlabel(xl + "  [log2 scale]")
        if a.value == "utilization":
            ax.set_ylabel("utilization (stream busy time / (streams x phase time))")
        elif a.value == "seconds":
            ax.set_ylabel("phase time (s)")
        elif kind == "meta":
            rate_axis(ax, plotted, "metadata rate (files/s)")
        else:
            ax.set_ylabel(unit_axis_label({"bandwidth": "aggregate bandwidth",
                                           "stonewall": "stonewall bandwidth"}[a.value], unit))
        if ax.get_yscale() != "log":
            ax.set_ylim(bottom=0)
        legend_outside(ax, title="phase")
        ax._pfs_peaks = peaks
    name = "sweep " + a.sweep if a.sweep is not None else ", ".join(a.label or []) or "runs " + ", ".join(a.run)
    axes[0, 0].set_title(a.title or "%s\n%s" % (name, wrap("%s; %s" % (describe_runs(data, rows), reps_text(reps)))))
    fig.tight_layout()
    for ax in axes[:, 0]:
        fit_labels(fig, ax, ax._pfs_peaks, rotate=False)
    prefix = a.output or default_prefix(data.path, "sweep-" + (a.sweep if a.sweep is not None else "selection"))
    return save(fig, prefix, a.formats, a.dpi)


# ---- nodes: per-node bandwidth of one run ----

def plot_nodes(data, a):
    runs = sorted(data.runs)
    if not runs:
        raise Usage("%s holds no runs" % data.path)
    if a.run:
        if len(a.run) > 1:
            raise Usage("pfs-plot nodes shows one run; give one --run")
        which = a.run[0]
    else:
        done = [n for n in runs if data.runs[n].get("status") == "complete"]
        which = str((done or runs)[-1])
    import h5py  # noqa: F401  (pfs_results needs it too)
    with pfs_results.open_results(data.path) as f:
        try:
            g = pfs_results.find_run(f, which)
        except pfs_results.NoSuchRun as e:
            raise Usage(str(e))
        run = int(g.name.rsplit("/", 1)[1])
        attrs = data.runs[run]
        factor = float(attrs.get("straggler", 0.8))
        hosts = {}
        if "placement" in g:
            for row in g["placement"][()]:
                hosts.setdefault(int(row["node"]), pfs_results._text(row["host"]))
        phases = []
        want = [p for p in a.phases.split(",") if p] if a.phases else None
        for pname in sorted(g["phases"].keys()):
            pg = g["phases"][pname]
            ph = pfs_results._text(pg.attrs.get("phase", pname.split("_", 1)[-1]))
            if want and ph not in want:
                continue
            if "node_bandwidth" not in pg or int(pg.attrs.get("repetitions", 0)) == 0:
                continue
            nb = pg["node_bandwidth"][()]
            st = pg["node_straggler"][()] if "node_straggler" in pg else None
            # The kind as the phase group says it (else pfsbench's).
            is_md = pfs_results.is_metadata(ph, pg.attrs["kind"] if "kind" in pg.attrs else data.kinds.get(ph))
            phases.append((ph, nb, st, is_md))
    meta = [p[0] for p in phases if p[3]]
    phases = [p[:3] for p in phases if not p[3]]
    if meta:
        sys.stderr.write("pfs-plot: per-node bandwidth is for data phases; left out %s\n" % ", ".join(meta))
    if not phases:
        raise Usage("run %d has no per-node bandwidth of a data phase%s"
                    % (run, " among " + a.phases if a.phases else ""))
    unit = pick_unit(a.units, [float(x) for _, nb, _ in phases for x in nb.ravel()])
    scale = pc.UNITS[unit][0]
    nnodes = phases[0][1].shape[1]
    fig, axes = plt.subplots(len(phases), 1, figsize=(max(6.0, 1.0 + 0.9 * nnodes), 2.9 * len(phases) + 0.6),
                             squeeze=False)
    n_strag = 0
    for (ph, nb, st), ax in zip(phases, axes[:, 0]):
        reps = list(range(nb.shape[0]))
        if a.rep is not None:
            if a.rep < 0 or a.rep >= nb.shape[0]:
                raise Usage("--rep %d: phase %s has repetitions 0..%d" % (a.rep, ph, nb.shape[0] - 1))
            reps = [a.rep]
        width = 0.8 / len(reps)
        cmap = plt.get_cmap("Blues")
        rep_handles = {}
        for j, rep in enumerate(reps):
            xs = [n - 0.4 + width * (j + 0.5) for n in range(nnodes)]
            vals = [float(v) / scale for v in nb[rep]]
            flags = [bool(st[rep][n]) if st is not None else False for n in range(nnodes)]
            colour = cmap(0.45 + 0.5 * (j + 1) / len(reps)) if len(reps) > 1 else "#1f77b4"
            bars = ax.bar(xs, vals, width=width * 0.92, color=[("#d62728" if fl else colour) for fl in flags],
                          edgecolor="black", linewidth=0.5, label="rep %d" % rep)
            for b, fl in zip(bars, flags):
                if fl:
                    b.set_hatch("//")
                    n_strag += 1
            rep_handles.setdefault(rep, Patch(facecolor=colour, edgecolor="black", linewidth=0.5,
                                              label="rep %d" % rep))
            live = sorted(v for v in vals)
            med = (live[len(live) // 2] if len(live) % 2 else (live[len(live) // 2 - 1] + live[len(live) // 2]) / 2)
            ax.hlines([factor * med] * nnodes, [x - width / 2 for x in xs], [x + width / 2 for x in xs],
                      colors="black", linestyles="dashed", linewidth=1.0)
        ax.set_xticks(range(nnodes))
        ax.set_xticklabels(["node %d\n%s" % (n, hosts.get(n, "?")) for n in range(nnodes)])
        ax.set_ylabel(unit_axis_label("node bandwidth", unit))
        ax.set_title("%s" % pc.phase_name(ph, a.names), loc="left", fontsize=9, fontweight="bold")
        ax.set_ylim(0, ax.get_ylim()[1] * 1.12)
        ax.grid(True, axis="y", alpha=0.3)
    handles = [rep_handles[k] for k in sorted(rep_handles)]
    handles.append(Line2D([0], [0], color="black", linestyle="dashed", linewidth=1.0,
                          label="%.2f x the median node of the repetition" % factor))
    handles.append(Patch(facecolor="#d62728", hatch="//", edgecolor="black", label="straggler (below the line)"))
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 4), fontsize=8,
               bbox_to_anchor=(0.5, 0.0))
    lab = attrs.get("label", "")
    fig.suptitle(a.title or "run %d%s: per-node bandwidth (bytes of the node's ranks / their first open to "
                 "last close)\n%s" % (run, " (%s)" % lab if lab else "", wrap(
                     "%d ranks, %s" % (int(attrs.get("ranks", 0)), describe_runs(
                         data, [r for r in data.rows if r["run"] == run
                                and not pfs_results.is_metadata(r["phase"], r.get("kind"))] or [dummy_row(attrs)])))),
                 fontsize=9)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    prefix = a.output or default_prefix(data.path, "nodes-run%d" % run)
    paths = save(fig, prefix, a.formats, a.dpi)
    sys.stderr.write("pfs-plot: run %d: %d straggler bar%s\n" % (run, n_strag, "" if n_strag == 1 else "s"))
    return paths


def dummy_row(attrs):
    return {"run": 0, "transfer": int(attrs.get("transfer", 0)), "block": int(attrs.get("block", 0)),
            "nodes": int(attrs.get("nodes", 0))}


# ---- compare: grouped bars ----

def plot_compare(data, a):
    rows = pc.selection_from_args(data, a)
    by = a.by or "label"
    if by == "rep":
        raise Usage("pfs-plot compare --by rep: the bars would be single repetitions; use pfs-compare --by rep")
    table = pc.build_table(data, rows, by, a.value, a.label)
    for w in table.warnings:
        sys.stderr.write("pfs-plot: warning: %s\n" % w)
    keys = [k for k in table.columns if k != "__mean__"]
    groups = []  # (unit label, scale, phases)
    data_ph = [p for p in table.phases if not pc.is_meta(p, data)]
    meta_ph = [p for p in table.phases if pc.is_meta(p, data)]
    if data_ph:
        if a.value in ("utilization", "seconds"):
            groups.append((None, 1.0, data_ph))
        else:
            unit = pick_unit(a.units, [v for p in data_ph for k in keys for v in table.cells.get((p, k), [])])
            groups.append((unit, pc.UNITS[unit][0], data_ph))
    if meta_ph:
        groups.append(("files/s", 1.0, meta_ph))
    fig, axes = plt.subplots(1, len(groups), figsize=(max(5.5, 1.2 + 0.55 * len(keys) * len(table.phases)), 4.6),
                             squeeze=False, gridspec_kw={"width_ratios": [len(g[2]) for g in groups]})
    cyc = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    labels = {}
    for (unit, scale, phases), ax in zip(groups, axes[0]):
        width = 0.8 / len(keys)
        labels[ax] = []
        plotted = []
        for j, k in enumerate(keys):
            xs, means, lo, hi = [], [], [], []
            for i, p in enumerate(phases):
                v = [x / scale for x in table.cells.get((p, k), [])]
                if not v:
                    continue
                m = sum(v) / len(v)
                xs.append(i - 0.4 + width * (j + 0.5))
                means.append(m)
                lo.append(m - min(v))
                hi.append(max(v) - m)
                plotted += [min(v), max(v)]
            bars = ax.bar(xs, means, width=width * 0.92, yerr=[lo, hi], capsize=3, color=cyc[j % len(cyc)],
                          edgecolor="black", linewidth=0.5, label=table.titles[k], error_kw={"linewidth": 0.8})
            if len(keys) * len(phases) <= 24:
                for b, m, h in zip(bars, means, hi):
                    labels[ax].append(ax.annotate(value_text(m), (b.get_x() + b.get_width() / 2, m + h),
                                                  textcoords="offset points", xytext=(0, 3), ha="center",
                                                  fontsize=7, rotation=90 if len(keys) > 3 else 0, va="bottom"))
        ax.set_xticks(range(len(phases)))
        ax.set_xticklabels([pc.phase_name(p, a.names) for p in phases])
        if unit == "files/s":
            rate_axis(ax, plotted, "metadata rate (files/s)")
        elif unit is None:
            ax.set_ylabel({"utilization": "utilization (stream busy time / (streams x phase time))",
                           "seconds": "phase time (s)"}[a.value])
        else:
            ax.set_ylabel(unit_axis_label({"bandwidth": "aggregate bandwidth",
                                           "stonewall": "stonewall bandwidth"}[a.value], unit))
        if ax.get_yscale() == "log":
            ax.set_ylim(min(x for x in plotted if x > 0) / 2.0, ax.get_ylim()[1])
        else:
            ax.set_ylim(0, ax.get_ylim()[1])
        ax.grid(True, axis="y", alpha=0.3)
    legend_outside(axes[0, -1], title={"label": "configuration", "ranks": "ranks", "threads": "threads",
                                       "run": "run"}[by], fontsize=8)
    ns = {len(v) for v in table.cells.values()}
    fig.suptitle(a.title or wrap("; ".join([describe_runs(data, rows), reps_text(ns)] + table.notes), 90),
                 fontsize=9)
    fig.tight_layout()
    for ax in axes[0]:
        fit_labels(fig, ax, labels[ax])
    prefix = a.output or default_prefix(data.path, "compare")
    return save(fig, prefix, a.formats, a.dpi)


# ---- timeline and latency: the time series and histograms of issue 16 ----

OLD_FILE = ("it was written before pfsbench recorded latencies and time series (files from then have no "
            "latency, node_latency or timeseries datasets); run the benchmark again with this pfsbench")
# Lines of nodes that were not stragglers: muted; stragglers: warm.
MUTED = ("#4c72b0", "#55a868", "#8172b2", "#64b5cd", "#937860", "#8c8c8c", "#2a9d8f", "#6a7fdb", "#9a9a50",
         "#5f8fa0", "#7d6a8c", "#4d6d5a")
WARM = ("#d62728", "#ff7f0e", "#c51b7d", "#e6ab02", "#8c2d04", "#f768a1")
MANY_NODES = 12  # above this: thin grey nodes, a p10-p90 band and the median instead of a legend per node


def _pick_run(data, f, which):
    """(run number, group): run `which`, else the last complete run."""
    runs = sorted(data.runs)
    if not runs:
        raise Usage("%s holds no runs" % data.path)
    if which is None:
        done = [n for n in runs if data.runs[n].get("status") == "complete"]
        which = str((done or runs)[-1])
    try:
        g = pfs_results.find_run(f, which)
    except pfs_results.NoSuchRun as e:
        raise Usage(str(e))
    return int(g.name.rsplit("/", 1)[1]), g


def _phase_groups(g):
    """(phase, group, is metadata, repetitions) of each phase group, in order."""
    out = []
    for pname in sorted(g["phases"].keys()) if "phases" in g else ():
        pg = g["phases"][pname]
        ph = pfs_results._text(pg.attrs.get("phase", pname.split("_", 1)[-1]))
        md = pfs_results.is_metadata(ph, pg.attrs["kind"] if "kind" in pg.attrs else None)
        out.append((ph, pg, md, int(pg.attrs.get("repetitions", 0))))
    return out


def _hosts(g):
    hosts = {}
    if "placement" in g:
        for row in g["placement"][()]:
            hosts.setdefault(int(row["node"]), pfs_results._text(row["host"]))
    return hosts


def _run_title(data, run, what):
    attrs = data.runs.get(run, {})
    lab = attrs.get("label", "")
    rows = [r for r in data.rows if r["run"] == run] or [dummy_row(attrs)]
    return "run %d%s: %s\n%s" % (run, " (%s)" % lab if lab else "", what,
                                 wrap("%d ranks, %s" % (int(attrs.get("ranks", 0)), describe_runs(data, rows))))


def _write_csv(path, header, rows):
    import csv
    d = os.path.dirname(path)
    if d and not os.path.isdir(d):
        raise Usage("--data-csv %s: directory '%s' does not exist" % (path, d))
    with open(path, "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(header)
        w.writerows(rows)


def _label_rows(fig, ax, texts, step_pt):
    """Stacks the phase labels above the axes in as few rows as keep them
    apart; returns the number of rows."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    pad = 4.0
    ends = []  # the right end (px) of the last label in each row
    for t in sorted(texts, key=lambda t: t.get_window_extent(r).x0):
        bb = t.get_window_extent(r)
        row = next((i for i, e in enumerate(ends) if bb.x0 >= e + pad), None)
        if row is None:
            row = len(ends)
            ends.append(bb.x1)
        else:
            ends[row] = bb.x1
        t.xyann = (0, 3 + row * step_pt)
    return max(1, len(ends))


def plot_timeline(data, a):
    from matplotlib.transforms import blended_transform_factory
    if a.run and len(a.run) > 1:
        raise Usage("pfs-plot timeline shows one run; give one --run")
    with pfs_results.open_results(data.path) as f:
        run, g = _pick_run(data, f, a.run[0] if a.run else None)
        hosts = _hosts(g)
        segs, missing = [], []
        groups = _phase_groups(g)
        for ph, pg, md, reps in groups:
            if reps == 0:
                continue
            if "timeseries" not in pg:
                missing.append(ph)
                continue
            for rname in sorted(k for k in pg["timeseries"].keys() if k.startswith("rep_")):
                tg = pg["timeseries"][rname]
                rep = int(rname[4:])
                b, o = tg["bytes"][()], tg["ops"][()]
                if b.ndim != 2 or b.shape[0] == 0:
                    continue
                # The intervals' true edges: the first from the phase's first open, the last to its
                # last close; the phase's band is that span, never an interval's grid edge past it.
                lo, hi = pfs_results.ts_edges(tg, pg, rep)
                dt = float(tg.attrs["interval"])
                st = pg["node_straggler"][rep] if "node_straggler" in pg and rep < pg["node_straggler"].shape[0] \
                    else None
                segs.append({"phase": ph, "rep": rep, "reps": reps, "md": md, "t0": float(lo[0]), "dt": dt,
                             "lo": lo, "hi": hi, "bytes": b.astype(float), "ops": o.astype(float),
                             "start": float(lo[0]), "end": float(hi[-1]),
                             "straggler": st, "phase_bytes": int(pg["bytes"][rep]) if "bytes" in pg else None})
    if not segs:
        raise Usage("run %d has no time series (timeseries/rep_NNN in its phase groups): %s" % (run, OLD_FILE))
    if missing:
        sys.stderr.write("pfs-plot: run %d: no time series in %s (left out)\n" % (run, ", ".join(missing)))
    segs.sort(key=lambda s: s["t0"])
    T0 = min(s["start"] for s in segs)
    K = max(s["bytes"].shape[1] for s in segs)
    strag_in = {k: [] for k in range(K)}
    for s in segs:
        if s["straggler"] is not None:
            for k in range(min(K, len(s["straggler"]))):
                if s["straggler"][k]:
                    name = s["phase"] + (" #%d" % s["rep"] if s["reps"] > 1 else "")
                    if name not in strag_in[k]:
                        strag_in[k].append(name)
    # One polyline per node: a flat step over each interval, a gap (NaN) between phases.
    # A node is drawn as a straggler in the phases where pfsbench flagged it (SM), muted elsewhere.
    xs, bw, ops, sm = [], [], [], []
    for s in segs:
        n, kk = s["bytes"].shape
        span = s["hi"] - s["lo"]
        per_s = np.where(span > 0, 1.0 / np.where(span > 0, span, 1.0), np.nan)[:, None]
        xs.append(np.column_stack([s["lo"] - T0, s["hi"] - T0]).ravel())
        xs.append([np.nan])
        flag = np.zeros(K, dtype=bool)
        if s["straggler"] is not None:
            flag[:min(K, len(s["straggler"]))] = np.asarray(s["straggler"][:K]) != 0
        sm.append(np.tile(flag, (2 * n + 1, 1)))
        for dst, src in ((bw, s["bytes"]), (ops, s["ops"])):
            v = np.zeros((n, K))
            v[:, :kk] = src * per_s
            dst.append(np.repeat(v, 2, axis=0))
            dst.append(np.full((1, K), np.nan))
    X = np.concatenate(xs)
    BW, OPS, SM = np.vstack(bw), np.vstack(ops), np.vstack(sm)

    def flagged(Y, k):  # node k's line only where it straggled, joined across phases by NaN gaps
        return np.where(SM[:, k], Y[:, k], np.nan)
    unit = pick_unit(a.units, [float(np.nanmax(BW))] if np.isfinite(BW).any() else [])
    scale = pc.UNITS[unit][0]
    panels = [("bw", BW / scale)] + ([("ops", OPS)] if a.iops else [])
    fig, axes = plt.subplots(len(panels), 1, figsize=(10.0, 3.9 * len(panels) + 0.4), sharex=True, squeeze=False)
    axes = axes[:, 0]
    many = K > MANY_NODES
    handles = []
    for pi, ((what, Y), ax) in enumerate(zip(panels, axes)):
        # The phases: alternating light bands.
        for i, s in enumerate(segs):
            lo = s["start"] - T0
            hi = s["end"] - T0
            if i + 1 < len(segs):
                hi = min(hi, segs[i + 1]["start"] - T0)
            ax.axvspan(lo, hi, color=("#e4eaf2" if i % 2 == 0 else "#f1efe6"), zorder=0, linewidth=0)
        if many:
            with warnings.catch_warnings():  # the NaN gaps between phases: all-NaN rows
                warnings.simplefilter("ignore", RuntimeWarning)
                p10, med, p90 = (np.nanpercentile(Y, q, axis=1) for q in (10, 50, 90))
            for k in range(K):
                ax.plot(X, Y[:, k], color="#9a9a9a", linewidth=0.35, alpha=0.35, zorder=1, rasterized=True)
            ax.fill_between(X, p10, p90, color="#4c72b0", alpha=0.28, linewidth=0, zorder=2)
            ax.plot(X, med, color="#1a1a1a", linewidth=1.4, zorder=4)
            ns = [k for k in range(K) if strag_in[k]]
            for j, k in enumerate(ns):
                ax.plot(X, flagged(Y, k), color=WARM[0], linewidth=0.8, alpha=0.85, zorder=3,
                        rasterized=len(ns) > 50)
            if pi == 0:
                handles = [Line2D([0], [0], color="#9a9a9a", linewidth=0.8, label="each node (%d)" % K),
                           Patch(facecolor="#4c72b0", alpha=0.28, label="p10-p90 across nodes"),
                           Line2D([0], [0], color="#1a1a1a", linewidth=1.4, label="median node")]
                if ns:
                    handles.append(Line2D([0], [0], color=WARM[0], linewidth=1.0,
                                          label="a straggler, in the phases\nwhere it was one (%d node%s)" % (
                                              len(ns), "" if len(ns) == 1 else "s")))
        else:
            wi = 0
            for k in range(K):
                line, = ax.plot(X, Y[:, k], color=MUTED[k % len(MUTED)], linewidth=1.1, zorder=2,
                                label="node %d (%s)" % (k, hosts.get(k, "?")))
                if pi == 0:
                    handles.append(line)
                if strag_in[k]:
                    sl, = ax.plot(X, flagged(Y, k), color=WARM[wi % len(WARM)], linewidth=2.0, zorder=3,
                                  label="node %d straggling\n(%s)" % (k, ", ".join(strag_in[k])))
                    wi += 1
                    if pi == 0:
                        handles.append(sl)
        top = float(np.nanmax(Y)) if np.isfinite(Y).any() else 0.0
        ax.set_ylim(0, top * 1.06 if top > 0 else 1.0)
        ax.set_xlim(0, max(s["end"] for s in segs) - T0)
        ax.grid(True, axis="y", alpha=0.35)
        ax.set_axisbelow(True)
        if what == "bw":
            ax.set_ylabel(unit_axis_label("bandwidth per node", unit))
        else:
            ax.set_ylabel("operations per node (ops/s)\ntransfers; files in metadata phases")
    axes[-1].set_xlabel("time since the run's first phase started (s)")
    # Phase names above the top panel, in rows where they would collide.
    ax0 = axes[0]
    tr = blended_transform_factory(ax0.transData, ax0.transAxes)
    texts = []
    for i, s in enumerate(segs):
        hi = s["end"] - T0 if i + 1 == len(segs) else min(s["end"], segs[i + 1]["start"]) - T0
        name = pc.phase_name(s["phase"], a.names) + (" #%d" % s["rep"] if s["reps"] > 1 else "")
        texts.append(ax0.annotate(name, ((s["start"] - T0 + hi) / 2, 1.0), xycoords=tr, xytext=(0, 3),
                                  textcoords="offset points", ha="center", va="bottom", fontsize=8,
                                  color="#333333", annotation_clip=False))
    dts = sorted({s["dt"] for s in segs})
    what = ("bandwidth%s per node over time" % (" and operations" if a.iops else ""))
    fig.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 0.93), fontsize=8,
               title="nodes", title_fontsize=8, frameon=False)
    fig.tight_layout()
    rows = _label_rows(fig, ax0, texts, 10.5)
    ax0.set_title(a.title or "%s\n%s" % (_run_title(data, run, what), wrap(
        "each step: what the node completed in one interval (%s s) / the interval's overlap with the phase; "
        "bands: phases, first open to last close" %
        "/".join("%g" % d for d in dts))), fontsize=9, pad=6 + 10.5 * rows)
    fig.tight_layout()
    if a.data_csv:
        out = []
        for s in segs:
            n, kk = s["bytes"].shape
            for i in range(n):
                span = s["hi"][i] - s["lo"][i]
                for k in range(kk):
                    out.append([run, s["phase"], s["rep"], i, k, hosts.get(k, ""),
                                "%.6f" % (s["lo"][i] - T0), "%.6f" % (s["hi"][i] - T0),
                                int(s["bytes"][i, k]), int(s["ops"][i, k]),
                                "%.6g" % (s["bytes"][i, k] / span) if span > 0 else "",
                                "%.6g" % (s["ops"][i, k] / span) if span > 0 else "",
                                int(bool(s["straggler"][k])) if s["straggler"] is not None else ""])
        _write_csv(a.data_csv, ["run", "phase", "rep", "interval", "node", "host", "t_start_s", "t_end_s", "bytes",
                                "ops", "bytes_per_s", "ops_per_s", "straggler"], out)
    prefix = a.output or default_prefix(data.path, "timeline-run%d" % run)
    return save(fig, prefix, a.formats, a.dpi)


def _quantile(h, q, lo, hi, mn, mx):
    """pfsbench's quantile of a histogram (include/pfs/hist.h): the bucket
    at nearest rank ceil(q x count), its midpoint clamped to [min, max]."""
    count = int(h.sum())
    x = q * count
    r = round(x)
    rank = r if abs(x - r) <= 1e-9 * max(r, 1) else math.ceil(x)
    rank = min(max(int(rank), 1), count)
    i = int(np.searchsorted(np.cumsum(h), rank))
    m = (float(lo[i]) + float(hi[i])) / 2
    return min(max(m, mn), mx)


def _cdf(h, lo, hi, mn, mx):
    """The CDF's points: (min, 0), then each bucket's upper edge (the largest
    ns it holds) with the fraction of operations at or below it, the last
    at the exact max. x in ns, cumulative counts, fractions."""
    nz = np.nonzero(h)[0]
    first, last = int(nz[0]), int(nz[-1])
    c = np.cumsum(h[first:last + 1]).astype(np.int64)
    x = hi[first:last + 1].astype(float)
    x[-1] = mx
    x = np.concatenate([[mn], x])
    c = np.concatenate([[0], c])
    return x, c, c / float(c[-1])


def plot_latency(data, a):
    kinds = pfs_results.LAT_KINDS
    if a.kind not in kinds:
        raise Usage("--kind %s: one of %s" % (a.kind, ", ".join(kinds)))
    ki = kinds.index(a.kind)
    per = a.per or ("run" if a.run and len(a.run) > 1 else "phase")
    if per != "run" and a.run and len(a.run) > 1:
        raise Usage("--per %s shows one run; several --run compare runs (--per run)" % per)
    if per == "node" and a.kind != "op":
        raise Usage("--per node: the file keeps per-node histograms of the op kind only")
    series = []  # dicts: name, run, phase, node, h, min, max, straggler
    lo = hi = None
    notes = []
    with pfs_results.open_results(data.path) as f:
        picks = [_pick_run(data, f, w) for w in (a.run or [None])]
        for run, g in picks:
            groups = [x for x in _phase_groups(g) if x[3] > 0]
            if not groups:
                raise Usage("run %d has no recorded phases" % run)
            if not any("latency" in pg for _, pg, _, _ in groups):
                raise Usage("run %d has no latency histograms: %s" % (run, OLD_FILE))
            names = [ph for ph, _, _, _ in groups]
            if a.phase and a.phase not in names:
                raise Usage("--phase %s: run %d has %s" % (a.phase, run, ", ".join(names)))
            if per != "phase" and not a.phase:
                a.phase = names[0]
                notes.append("--per %s: phase %s (give --phase for another)" % (per, a.phase))
            hosts = _hosts(g)
            for ph, pg, md, reps in groups:
                if a.phase and ph != a.phase:
                    continue
                if "latency" not in pg:
                    notes.append("run %d %s: no latency histogram (left out)" % (run, ph))
                    continue
                if a.rep is not None and not 0 <= a.rep < reps:
                    raise Usage("--rep %d: run %d %s has repetitions 0..%d" % (a.rep, run, ph, reps - 1))
                rr = [a.rep] if a.rep is not None else list(range(reps))
                lo = pg["latency_bucket_lo"][()].astype(np.uint64)
                hi = pg["latency_bucket_hi"][()].astype(np.uint64)
                name = pc.phase_name(ph, a.names)
                if per == "node":
                    if "node_latency" not in pg:
                        raise Usage("run %d %s has no per-node histograms: %s" % (run, ph, OLD_FILE))
                    nh = pg["node_latency"][rr[0]:rr[-1] + 1].sum(axis=0)
                    ns = pg["node_latency_summary"][rr[0]:rr[-1] + 1]
                    st = pg["node_straggler"][rr[0]:rr[-1] + 1].any(axis=0) if "node_straggler" in pg else None
                    for k in range(nh.shape[0]):
                        cnt = ns["count"][:, k] > 0
                        if not cnt.any():
                            continue
                        series.append({"name": "node %d (%s)" % (k, hosts.get(k, "?")), "run": run, "phase": ph,
                                       "node": k, "h": nh[k], "min": float(ns["min_ns"][:, k][cnt].min()),
                                       "max": float(ns["max_ns"][:, k][cnt].max()),
                                       "straggler": bool(st[k]) if st is not None else False})
                h = pg["latency"][rr[0]:rr[-1] + 1, ki].sum(axis=0)
                sm = pg["latency_summary"][rr[0]:rr[-1] + 1, ki]
                cnt = sm["count"] > 0
                if not cnt.any():
                    continue
                lab = data.runs.get(run, {}).get("label", "")
                s = {"name": name if per == "phase" else ("all nodes" if per == "node" else
                                                          "run %d%s" % (run, " (%s)" % lab if lab else "")),
                     "run": run, "phase": ph, "node": "", "h": h, "min": float(sm["min_ns"][cnt].min()),
                     "max": float(sm["max_ns"][cnt].max()), "straggler": False, "merged": per == "node"}
                series.append(s)
    for n in notes:
        sys.stderr.write("pfs-plot: %s\n" % n)
    if not series:
        raise Usage("no %s operations recorded in the runs and phases chosen%s" % (
            a.kind, " (fsync is timed with -e and --fsync-every N)" if a.kind == "fsync" else ""))
    for s in series:
        s["x"], s["c"], s["y"] = _cdf(s["h"], lo, hi, s["min"], s["max"])
        s["count"] = int(s["c"][-1])
        s["q"] = [(q, _quantile(s["h"], q, lo, hi, s["min"], s["max"])) for q in (0.5, 0.99, 0.999)]
    p50s = sorted(q[0][1] for q in (s["q"] for s in series))
    div, uname = (1e6, "ms") if p50s[0] >= 1e6 else (1e3, "\u00b5s")

    def v(ns):
        x = ns / div
        return "%.3g" % x if x < 1000 else "{:,.0f}".format(x)

    tail = not a.no_tail
    if tail:
        fig, (ax, axt) = plt.subplots(2, 1, figsize=(8.6, 7.6), sharex=True, gridspec_kw={"height_ratios": [3, 2]})
    else:
        fig, ax = plt.subplots(figsize=(8.6, 5.0))
        axt = None
    axes = [ax] + ([axt] if tail else [])
    node_lines = [s for s in series if per == "node" and not s.get("merged")]
    many = len(node_lines) > MANY_NODES
    marked = []  # the series that get percentile marks
    cyc = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    mi = wi = 0
    handles = []
    for i, s in enumerate(series):
        if per == "node" and not s.get("merged"):
            if many:
                c, lw, z = (WARM[0], 0.8, 3) if s["straggler"] else ("#9a9a9a", 0.4, 1)
                for axx, yy in zip(axes, (s["y"], 1.0 - s["y"])):
                    axx.plot(s["x"] / div, yy, color=c, linewidth=lw, alpha=0.6 if not s["straggler"] else 0.9,
                             zorder=z, rasterized=True)
                continue
            if s["straggler"]:
                c, lw = WARM[wi % len(WARM)], 1.7
                wi += 1
            else:
                c, lw = MUTED[mi % len(MUTED)], 1.3
                mi += 1
            s["colour"], s["lw"] = c, lw
            marked.append(s)
        elif s.get("merged"):
            s["colour"], s["lw"] = "#1a1a1a", 1.8 if many else 1.2
            s["ls"] = "-" if many else (0, (4, 2))
            marked.append(s)
        elif per == "phase":
            s["colour"], s["lw"] = style(s["phase"], i)[0], 1.6
            marked.append(s)
        else:
            s["colour"], s["lw"] = cyc[len(marked) % len(cyc)], 1.6
            marked.append(s)
    label_marks = len(marked) <= 6
    marker = {0.5: "o", 0.99: "s", 0.999: "^"}
    ann = []
    for s in marked:
        tag = "%s  (%s ops%s): p50 %s, p99 %s, p99.9 %s %s" % (
            s["name"], "{:,}".format(s["count"]), ", straggler" if s["straggler"] else "",
            v(s["q"][0][1]), v(s["q"][1][1]), v(s["q"][2][1]), uname)
        line, = ax.plot(s["x"] / div, s["y"], color=s["colour"], linewidth=s["lw"], linestyle=s.get("ls", "-"),
                        zorder=4, label=tag)
        handles.append(line)
        if tail:  # the same CDF as the fraction above each latency, log y: the tail apart
            axt.plot(s["x"] / div, 1.0 - s["y"], color=s["colour"], linewidth=s["lw"], linestyle=s.get("ls", "-"),
                     zorder=4)
        for q, x in s["q"]:
            # p50 labelled on the CDF; p99 and p99.9, which the CDF squeezes under 1.0, on the tail panel.
            on = axt if tail and q > 0.5 else ax
            yq = 1.0 - q if on is axt else q
            for axx, yy in ((ax, q), (axt, 1.0 - q)) if tail else ((ax, q),):
                axx.plot([x / div], [yy], marker=marker[q], markersize=4.5, color=s["colour"],
                         markeredgecolor="white", markeredgewidth=0.6, zorder=5, linestyle="none")
            if label_marks:
                ann.append(on.annotate("p%s %s" % ("%g" % (q * 100), v(x)), (x / div, yq), xytext=(5, -3),
                                       textcoords="offset points", ha="left", va="top", fontsize=7,
                                       color=s["colour"], zorder=6,
                                       bbox=dict(boxstyle="square,pad=0.1", facecolor="white", alpha=0.75,
                                                 linewidth=0)))
    if many:
        ns = sum(1 for s in node_lines if s["straggler"])
        handles.insert(0, Line2D([0], [0], color="#9a9a9a", linewidth=0.8, label="each node (%d)" % len(node_lines)))
        if ns:
            handles.insert(1, Line2D([0], [0], color=WARM[0], linewidth=1.0,
                                     label="straggler nodes (%d)" % ns))
    handles.append(Line2D([0], [0], color="#555555", marker="o", linestyle="none", markersize=4.5,
                          label="markers: p50 (circle), p99 (square), p99.9 (triangle)"))
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: "%g" % x if x < 1e4 else "{:,.0f}".format(x)))
    xmin = min(float(s["x"][0]) for s in series) / div
    xmax = max(float(s["x"][-1]) for s in series) / div
    ax.set_xlim(xmin / 1.5, xmax * 1.5)
    if tail:
        axt.set_yscale("log")
        # Down past 1/count, and past 10^-3, so that the p99.9 marks sit inside the panel.
        axt.set_ylim(min(0.3 / max(s["count"] for s in series), 3e-4), 1.0)
        axt.grid(True, which="major", alpha=0.35)
        axt.grid(True, which="minor", axis="x", alpha=0.12)
        axt.set_ylabel("fraction of operations > latency\n(the tail, log scale)")
        axt.yaxis.set_major_formatter(FuncFormatter(
            lambda y, _: "%g" % y if y >= 1e-4 else "$10^{%d}$" % round(math.log10(y))))
    ax.set_ylim(0, 1.02)
    ax.set_yticks([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0])
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", axis="x", alpha=0.12)
    axes[-1].set_xlabel("latency (%s, log scale), from submission to completion" % uname)
    ax.tick_params(labelbottom=True)
    ax.set_ylabel("fraction of operations \u2264 latency")
    what = "%s latency CDF%s" % ("transfer/file-operation" if a.kind == "op" else a.kind,
                                 {"phase": ", a line per phase", "node": " of %s, a line per node" % a.phase,
                                  "run": " of %s, a line per run" % a.phase}[per])
    reps_text = "repetition %d" % a.rep if a.rep is not None else "all repetitions merged"
    first_run = series[0]["run"]
    title = _run_title(data, first_run, what) if len({s["run"] for s in series}) == 1 else \
        "runs %s: %s\n" % (", ".join(str(r) for r in sorted({s["run"] for s in series})), what)
    ax.set_title(a.title or "%s\n%s" % (title.rstrip("\n"), wrap(
        "%s; CDF points at each histogram bucket's upper edge (exact fraction \u2264 it; buckets 1/64 of a power "
        "of two), the last at the exact max; p50/p99/p99.9 as pfsbench reports them (bucket midpoints)"
        % reps_text, 110)), fontsize=9)
    fig.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), fontsize=8, frameon=False,
               ncol=1 if len(handles) <= 8 else 2)
    fig.tight_layout()
    _spread(fig, ann)
    if a.data_csv:
        out = []
        for s in series:
            for x, c, y in zip(s["x"], s["c"], s["y"]):
                out.append([s["name"], s["run"], s["phase"], s["node"], "edge", "%.0f" % x, int(c), "%.9g" % y])
            for q, x in s["q"]:
                out.append([s["name"], s["run"], s["phase"], s["node"], "p%g" % (q * 100), "%.1f" % x, "", q])
        _write_csv(a.data_csv, ["series", "run", "phase", "node", "point", "x_ns", "cum_count", "fraction"], out)
    prefix = a.output or default_prefix(data.path, "latency-run%d" % first_run)
    return save(fig, prefix, a.formats, a.dpi)


def _spread(fig, ann):
    """Moves the percentile labels down until none overlaps another."""
    if not ann:
        return
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    to_pt = 72.0 / fig.dpi
    for t in ann:  # a label that would cross the right frame goes left of its mark
        if t.get_window_extent(r).x1 > t.axes.get_window_extent(r).x1 - 2:
            t.set_horizontalalignment("right")
            t.xyann = (-5, t.xyann[1])
    fig.canvas.draw()
    placed = []
    for t in sorted(ann, key=lambda t: -t.get_window_extent(r).y1):
        for _ in range(40):
            bb = t.get_window_extent(r)
            hit = next((p for p in placed if bb.overlaps(p)), None)
            if hit is None:
                break
            dx, dy = t.xyann
            t.xyann = (dx, dy - (bb.y1 - hit.y0 + 1) * to_pt)
        placed.append(t.get_window_extent(r))


def wrap(text, width=100):
    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False))


def default_prefix(results, what):
    stem = os.path.splitext(os.path.basename(results))[0]
    return "%s-%s" % (stem, what)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="pfs-plot", allow_abbrev=False,
                                 description="Charts (PNG and SVG) from a pfsbench results file.")
    sub = ap.add_subparsers(dest="chart", metavar="CHART")
    sub.required = True
    helps = {"sweep": "aggregate bandwidth vs ranks (log2 x), a line per phase, min-max bars",
             "nodes": "per-node bandwidth of one run, stragglers marked",
             "compare": "grouped bars: phases x configurations (labels)",
             "timeline": "bandwidth per node over time of one run, phases shaded, stragglers highlighted",
             "latency": "latency CDF (log x) from the histograms, a line per phase, node or run"}
    for name in ("sweep", "nodes", "compare", "timeline", "latency"):
        p = sub.add_parser(name, help=helps[name], description=helps[name], allow_abbrev=False)
        p.add_argument("file", help="a pfsbench results file")
        if name == "nodes":
            p.add_argument("--run", metavar="N", action="append", help="run number or id (default: the last "
                                                                        "complete run)")
            p.add_argument("--phases", metavar="LIST", help="comma list of phases (default: all data phases)")
            p.add_argument("--rep", type=int, metavar="R", help="only repetition R (from 0, as the report numbers them; default: all)")
        elif name == "timeline":
            p.add_argument("--run", metavar="N", action="append", help="run number or id (default: the last "
                                                                        "complete run)")
            p.add_argument("--iops", action="store_true", help="a second panel: operations/s per node")
        elif name == "latency":
            p.add_argument("--run", metavar="N", action="append",
                           help="run number or id (default: the last complete run); several compare runs")
            p.add_argument("--phase", metavar="NAME", help="only this phase (default: all; with --per node or "
                                                           "run the first)")
            p.add_argument("--per", choices=("phase", "node", "run"),
                           help="a line per phase (default with one run), node, or run (default with several)")
            p.add_argument("--kind", default="op", help="op (the phase's own operation; default), open, fsync "
                                                        "or close")
            p.add_argument("--rep", type=int, metavar="R", help="only repetition R (from 0, as the report numbers them; default: all merged)")
            p.add_argument("--no-tail", action="store_true",
                           help="the CDF only, without the panel of the tail (1 - CDF, log y) below it")
        else:
            pc.add_selection_args(p)
            p.add_argument("--value", choices=pc.VALUES, default="bandwidth",
                           help="what to plot (default bandwidth)")
        if name == "sweep":
            p.add_argument("--x", choices=("ranks", "threads", "streams"),
                           help="the x axis (default: threads for a thread sweep, else ranks)")
        if name == "compare":
            p.add_argument("--by", choices=("label", "ranks", "threads", "run"),
                           help="the bars of each phase (default label)")
        if name in ("timeline", "latency"):
            p.add_argument("--data-csv", metavar="FILE", help="also write the plotted series as CSV")
        if name != "latency":
            p.add_argument("--units", default="auto",
                           help="MiB, GiB, KB (1024 B, the seeds'), KiB, MB, GB (decimal); default auto: MiB/s, "
                                "GiB/s past 10 GiB/s")
        p.add_argument("--names", choices=sorted(pc.PHASE_NAMES), default="pfsbench",
                       help="phase names as that tool prints them")
        p.add_argument("--title", help="the chart's title instead of the generated one")
        p.add_argument("-o", "--output", metavar="PREFIX",
                       help="write PREFIX.png and PREFIX.svg, or just OUT.png / OUT.svg / OUT.pdf "
                            "(default: <results stem>-%s...)" % name)
        p.add_argument("--formats", default="png,svg", help="comma list of png, svg, pdf (default png,svg)")
        p.add_argument("--dpi", type=int, default=120, help="PNG resolution (default 120)")
    a = ap.parse_args(argv)
    try:
        a.formats = [x.strip().lower() for x in a.formats.split(",") if x.strip()]
        for x in a.formats:
            if x not in ("png", "svg", "pdf"):
                raise Usage("--formats: '%s' is not png, svg or pdf" % x)
        if not a.formats:
            raise Usage("--formats: give at least one of png, svg, pdf")
        data = pc.Data(a.file)
        paths = {"sweep": plot_sweep, "nodes": plot_nodes, "compare": plot_compare, "timeline": plot_timeline,
                 "latency": plot_latency}[a.chart](data, a)
    except Usage as e:
        sys.stderr.write("pfs-plot: error: %s\n" % e)
        return 2
    for p in paths:
        print("wrote %s" % p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
