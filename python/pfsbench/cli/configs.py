"""Configurations of runs, for pfs-compare and pfs-plot compare.

A run's configuration is what it stored of its options: every key=value
line of its `config` attribute (each resolved option, defaults included),
less NOT_CONFIGURATION, plus its rank and node counts (run attributes, not
options). Two runs of one configuration measured the same thing, so their
repetitions may be averaged; runs of two configurations may not, whatever
their labels say. The functions here say which options differ between
configurations and name a group of runs by them.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from ..text import display

# Options that choose how many samples are taken, what is flagged or where
# the record goes, not what one sample measures: runs that differ only in
# these are one configuration. `label` is the user's own name for the
# configuration, compared separately.
NOT_CONFIGURATION = frozenset(("label", "results", "reps", "ci", "max_reps", "warmup", "timeout", "stall_warn",
                               "interval", "straggler"))
# Run attributes, not options, that are part of what a run measured.
RUN_SHAPE = ("ranks", "nodes")

Options = Dict[str, str]
Key = Tuple[Tuple[str, str], ...]


def run_options(attrs: Mapping[str, object]) -> Options:
    """The configuration of a run from its attributes (pfsbench.rows.runs):
    ranks, nodes, then the options of its `config` text in their order,
    less NOT_CONFIGURATION. A run without a readable `config` (text) has
    only ranks and nodes."""
    opts: Options = {k: str(attrs[k]) for k in RUN_SHAPE if k in attrs}
    text = attrs.get("config")
    if isinstance(text, str):
        for line in text.splitlines():
            k, sep, v = line.partition("=")
            k = k.strip()
            if sep and k and k not in NOT_CONFIGURATION:
                opts.setdefault(k, v)
    return opts


def key_of(opts: Options) -> Key:
    """A hashable key, equal for equal configurations."""
    return tuple(sorted(opts.items()))


def differing(configs: Sequence[Options]) -> List[str]:
    """The options whose value is not the same in every configuration (one
    a configuration lacks counts as a value of its own), in order of first
    appearance."""
    order: List[str] = []
    for c in configs:
        order += [k for k in c if k not in order]
    return [k for k in order if len({c.get(k) for c in configs}) > 1]


def commonest(configs: Sequence[Options], keys: Sequence[str]) -> Dict[str, Optional[str]]:
    """Each key's most common value over configs; of equally common ones,
    the first to appear."""
    out: Dict[str, Optional[str]] = {}
    for k in keys:
        counts: Dict[Optional[str], int] = {}
        for c in configs:
            counts[c.get(k)] = counts.get(c.get(k), 0) + 1
        out[k] = max(counts, key=lambda v: counts[v])  # max keeps the first of equal counts
    return out


def words(opts: Mapping[str, Optional[str]], keys: Sequence[str]) -> str:
    """'key=value key=value' for keys ('key unset' where opts lacks one),
    escaped as pfs-results escapes text (a value is the user's text, a
    directory name may hold anything)."""
    return " ".join(display("%s=%s" % (k, opts[k]) if k in opts else "%s unset" % k) for k in keys)


def departure(opts: Options, common: Mapping[str, Optional[str]], keys: Sequence[str]) -> str:
    """words() of the keys in which opts differs from common; "" for none.
    Two different configurations never get the same text: they differ in
    some key, and at most one of them holds its common value there."""
    return words(opts, [k for k in keys if opts.get(k) != common[k]])


def mixed_warning(column: str, groups: Sequence[Tuple[Options, List[int]]]) -> Optional[str]:
    """The warning for a column whose cells average runs of more than one
    configuration: groups holds each configuration and its run numbers, in
    order. None when there is one configuration."""
    if len(groups) < 2:
        return None
    keys = differing([c for c, _ in groups])
    parts = ["%s %s: %s" % ("run" if len(rs) == 1 else "runs", ", ".join(str(n) for n in rs), words(c, keys))
             for c, rs in groups]
    return ("column %s averages runs of %d configurations (%s); give each configuration its own --label to "
            "see them apart" % (column, len(groups), "; ".join(parts)))
