"""Engineering tick labels for every chart of pfs-plot: eng_axes(fig), which
save() calls on each figure before it writes it.

A number axis gets 200k, 1.5M, 2G instead of matplotlib's 1e6 multiplier or
offset text (there is none left); small numbers stay decimals (0.25), and
below 10^-4 (a log axis of fractions) powers of ten. An axis whose label
names a time unit in parentheses, "(s)", "(ms, log scale)", "(\u00b5s ...", is
put in seconds with SI prefixes on each tick (250m, 10\u00b5, 1.5k), its label
rewritten to say s: one rule for linear and log axes (no one unit suits a
log axis' decades), and the values a chart writes beside its points, in
the chart's own unit, never disagree with a rescaled axis. Axes of names
(phases, nodes: set_xticklabels makes a FixedFormatter, or in matplotlib
3.6 a FuncFormatter over the names) and hidden labels (NullFormatter) are
left as they are: the charts set no FuncFormatter of their own.
"""

from __future__ import annotations

import math
import re
from typing import Any, List, Optional, Tuple

from matplotlib.ticker import FixedFormatter, Formatter, FuncFormatter, NullFormatter

BIG: Tuple[Tuple[float, str], ...] = ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"))
SMALL: Tuple[Tuple[float, str], ...] = ((1e-3, "m"), (1e-6, "\u00b5"), (1e-9, "n"))
# A time unit in an axis label: "(s)", "(ms, log scale)", "(\u00b5s ...".
TIME_UNIT = re.compile(r"\((ns|\u00b5s|us|ms|s)(?=[,)\s])")
SECONDS = {"ns": 1e-9, "\u00b5s": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def _digits(x: float) -> str:
    """x (at most 1000 in magnitude, at least 10^-4) in up to 4 significant digits, no exponent."""
    s = "%.4g" % x
    return s if "e" not in s else "{:f}".format(x).rstrip("0").rstrip(".")


def eng_text(v: float, prefixes_below_one: bool = False) -> str:
    """A tick's text: k, M, G, T from 1000 up; below 1, m, \u00b5, n when
    prefixes_below_one (a quantity in seconds), else a decimal, and under
    10^-4 a power of ten ($10^{-5}$)."""
    if v == 0 or not math.isfinite(v):
        return "0" if v == 0 else ""
    a = abs(v)
    for f, p in BIG:
        if a >= f * (1 - 5e-5):
            return _digits(v / f) + p
    if a >= 1 - 5e-5:
        return _digits(v)
    if prefixes_below_one:
        for f, p in SMALL:
            if a >= f * (1 - 5e-5):
                return _digits(v / f) + p
        return _digits(v / 1e-9) + "n"
    if a >= 1e-4:
        return _digits(v)
    e = math.floor(math.log10(a) + 1e-9)
    m = v / 10 ** e
    if abs(m - round(m)) < 1e-6 and round(m) == 1:
        return "$10^{%d}$" % e
    return "$%s{\\times}10^{%d}$" % (_digits(m), e)


class EngFormatter(Formatter):  # type: ignore[misc]  # matplotlib ships no types
    """eng_text of value x factor; minor=True labels a log axis' minor ticks
    only while its view spans less than a decade (no major tick to read)."""

    def __init__(self, factor: float = 1.0, prefixes_below_one: bool = False, minor: bool = False) -> None:
        self.factor, self.prefixes_below_one, self.minor = factor, prefixes_below_one, minor

    def __call__(self, x: float, pos: Optional[int] = None) -> str:
        if self.minor:
            lo, hi = sorted(float(v) for v in self.axis.get_view_interval())
            if lo <= 0 or hi / lo >= 10:
                return ""
        return eng_text(float(x) * self.factor, self.prefixes_below_one)

    def get_offset(self) -> str:
        return ""


def _time_axis(axis: Any, label: str, m: "re.Match[str]") -> None:
    """An axis in a time unit: in s, with SI prefixes; its label says s."""
    base = SECONDS[m.group(1)]
    axis.set_major_formatter(EngFormatter(base, True))
    if axis.get_scale() == "log":
        axis.set_minor_formatter(EngFormatter(base, True, minor=True))
    axis.set_label_text(label[:m.start(1)] + "s" + label[m.end(1):])


def _number_axis(axis: Any) -> None:
    axis.set_major_formatter(EngFormatter())
    if axis.get_scale() == "log":
        axis.set_minor_formatter(EngFormatter(minor=True))


def eng_axes(fig: Any) -> None:
    """Engineering tick labels on every number axis of fig (see the module's
    text); axes with a time unit first, so that an axis shared with one
    (sharex) takes its formatter from it."""
    todo: List[Tuple[int, Any]] = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            todo.append((0 if TIME_UNIT.search(axis.get_label().get_text()) else 1, axis))
    for _, axis in sorted(todo, key=lambda t: t[0]):
        if isinstance(axis.get_major_formatter(), (FixedFormatter, FuncFormatter, NullFormatter, EngFormatter)):
            continue
        label = axis.get_label().get_text()
        m = TIME_UNIT.search(label)
        if m:
            _time_axis(axis, label, m)
        else:
            _number_axis(axis)
        axis.get_offset_text().set_visible(False)
