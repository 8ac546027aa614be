"""Units, phase names and sweep labels, as pfs-compare and pfs-plot print them.

The units are the tools' own: they read results files where no pfsbench
may be installed. pfsbench's `--list-options=json` "units" are a subset of
UNITS with the same values (tests/mpi/test_sweep_plot.sh checks that).
Which phases are metadata phases (files/s) is not kept here: the results
file says it (each phase group's `kind`, which pfsbench.rows reads with the
summary rows).
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

from .common import Usage

# ---- units ----

# name: (bytes/s per unit, label, explanation)
UNITS: Dict[str, Tuple[float, str, str]] = {
    "KB": (1024.0, "KB/s", "KB = 1024 bytes, as gpfsperf, IOzone and bonnie++ print K/sec"),
    "KiB": (1024.0, "KiB/s", "KiB = 1024 bytes"),
    "MiB": (1048576.0, "MiB/s", "MiB = 2^20 bytes"),
    "GiB": (1073741824.0, "GiB/s", "GiB = 2^30 bytes"),
    "MB": (1e6, "MB/s", "MB = 10^6 bytes"),
    "GB": (1e9, "GB/s", "GB = 10^9 bytes"),
}


def unit_named(name: str) -> str:
    """The UNITS key for a user's spelling: KB, kb, KB/s, mib, GB/s ..."""
    s = name.strip()
    if s.lower().endswith("/s"):
        s = s[:-2]
    for k in UNITS:
        if k.lower() == s.lower():
            return k
    raise Usage("unknown unit '%s'; use one of %s" % (name, ", ".join(UNITS)))


def auto_unit(max_bytes_per_s: float) -> str:
    """MiB/s, or GiB/s once the largest value passes 10 GiB/s."""
    return "GiB" if max_bytes_per_s >= 10 * 1073741824.0 else "MiB"


# ---- phases ----

# How each tool of the seeds names pfsbench's phases.
PHASE_NAMES: Dict[str, Dict[str, str]] = {
    "pfsbench": {},
    # IOzone -i0 -i1: "Initial write", "Rewrite", "Read", "Re-read".
    "iozone": {"write": "Initial write", "rewrite": "Rewrite", "read": "Read", "reread": "Re-read"},
    # gpfsperf: create writes a new file, write overwrites an existing one.
    "gpfsperf": {"write": "Create", "rewrite": "Write", "read": "Read", "reread": "Re-read"},
    # bonnie++: Sequential Output Per Chr (putc: a write of --api stdio) / Block
    # / Rewrite, Sequential Input Per Chr (getc: a read of --api stdio) /
    # Block, Random Seeks (seeks/s), Sequential Create: Create, Read (a stat of
    # each file), Delete.
    "bonnie": {"write@stdio": "Sequential Output Per Chr", "write": "Block output", "rewrite": "Rewrite",
               "read@stdio": "Sequential Input Per Chr", "read": "Block input", "reread": "Block input again",
               "seeks": "Random Seeks", "create": "Create", "stat": "Read (stat)", "read-files": "Read files",
               "delete": "Delete"},
}

# The data phases of an --api stdio run (one putc or getc per byte) are rows
# of their own, "PHASE@stdio", beside the block phases of other APIs.
PER_CHAR_API = "stdio"
# Data phases judged by their rate, as bonnie++ prints its seeks: /sec.
RATE_PHASES = {"seeks": "seeks/s"}


def base_phase(phase: str) -> str:
    """The pfsbench phase of a table row: 'write' for 'write@stdio'."""
    return phase.split("@", 1)[0]


def phase_order(phases: Sequence[str], names: str) -> List[str]:
    """bonnie++'s order of its rows (Per Chr output, Block, Rewrite, Per Chr
    input, Block, the file phases) with --names bonnie; else as given."""
    if names != "bonnie":
        return list(phases)
    order = list(PHASE_NAMES["bonnie"])
    return sorted(phases, key=lambda p: (order.index(p) if p in order else len(order), list(phases).index(p)))


def phase_name(phase: str, names: str = "pfsbench") -> str:
    """phase as the tool names prints it (PHASE_NAMES), PHASE@API as 'NAME (API)'."""
    named = PHASE_NAMES.get(names, {}).get(phase)
    if named:
        return named
    if "@" in phase:  # write@stdio -> "write (stdio)", or iozone's name for write, then (stdio)
        base, api = phase.split("@", 1)
        return "%s (%s)" % (PHASE_NAMES.get(names, {}).get(base, base), api)
    return phase


# ---- labels of pfs-sweep ----

SWEEP_LABEL = re.compile(r"^(?P<id>[A-Za-z0-9._+-]+):n=(?P<n>[0-9]+)(?::t=(?P<t>[0-9]+))?$")


def parse_sweep_label(label: Optional[str]) -> Optional[Tuple[str, int, Optional[int]]]:
    """(sweep id, ranks, threads or None) for a pfs-sweep label 'ID:n=N' or
    'ID:n=N:t=T'; None for any other label."""
    m = SWEEP_LABEL.match(label or "")
    if not m:
        return None
    return m.group("id"), int(m.group("n")), int(m.group("t")) if m.group("t") else None


