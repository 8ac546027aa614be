"""pfsbench and pfsrun as the tools find them, and what pfsbench says of itself.

The package keeps no copy of pfsbench's phases, options, sizes or exit
codes: where it needs them it asks `pfsbench --list-options=json` (started
without mpirun: a singleton MPI process), once per process.

Where the tools look: $PFSBENCH, then PATH, then beside the command that
runs them (the bin/ a `cmake --install` or a pip install put pfs-* in, or
the build directory whose pfs-* wrappers run a checkout's package), then a
checkout's scripts/ and build/ above this package (python/pfsbench ->
scripts/pfsrun, build/pfsbench).
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
from typing import Any, Dict, List, Optional

_PACKAGE = os.path.dirname(os.path.realpath(__file__))


def tool_dirs() -> List[str]:
    """The directories pfsrun and pfsbench are looked for in, first first,
    without repeats: the running pfs-* command's own, a checkout's scripts/."""
    out = []
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] not in ("", "-c", "-m") else ""
    if argv0 and os.path.basename(argv0).startswith("pfs-"):
        out.append(os.path.dirname(os.path.realpath(argv0)))
    checkout = os.path.join(os.path.dirname(os.path.dirname(_PACKAGE)), "scripts")
    if os.path.isdir(checkout):
        out.append(checkout)
    dirs: List[str] = []
    for d in (os.path.realpath(x) for x in out):
        if d not in dirs:
            dirs.append(d)
    return dirs


def _executable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)


def which(name: str) -> Optional[str]:
    """The first executable file name on PATH, None when there is none."""
    for d in os.environ.get("PATH", "").split(os.pathsep):
        q = os.path.join(d, name)
        if _executable(q):
            return q
    return None


def find_pfsbench() -> Optional[str]:
    """pfsbench as pfsrun finds it: $PFSBENCH (a path, or a name on PATH),
    pfsbench on PATH, beside the tools, their ../build/pfsbench; None when
    none is there."""
    p = os.environ.get("PFSBENCH")
    if p:
        return p if "/" in p else which(p)
    q = which("pfsbench")
    if q:
        return q
    for d in tool_dirs():
        for c in (os.path.join(d, "pfsbench"), os.path.join(d, "..", "build", "pfsbench")):
            if _executable(c):
                return os.path.realpath(c)
    return None


def find_pfsrun() -> Optional[str]:
    """pfsrun beside the tools (the bin/ they were installed into, a
    checkout's scripts/), else on PATH; None when none is there."""
    for d in tool_dirs():
        p = os.path.join(d, "pfsrun")
        if _executable(p):
            return p
    return which("pfsrun")


def tool_place() -> str:
    """Where the tools looked, for a message: the first of tool_dirs(), or this package."""
    d = tool_dirs()
    return d[0] if d else _PACKAGE


@functools.lru_cache(maxsize=None)
def list_options(binary: Optional[str] = None) -> Optional[Dict[str, Any]]:
    """pfsbench's --list-options=json (options, phases, units, sizes,
    exit_codes ...) of binary, else of find_pfsbench(); None when no
    pfsbench is found or it does not answer. Asked once per binary."""
    binary = binary or find_pfsbench()
    if not binary:
        return None
    try:
        r = subprocess.run([binary, "--list-options=json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           stdin=subprocess.DEVNULL, timeout=60, universal_newlines=True)
        table = json.loads(r.stdout) if r.returncode == 0 else None
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return table if isinstance(table, dict) else None


KINDS = ("data", "metadata")


def phase_kinds() -> Dict[str, str]:
    """{phase: "data" or "metadata"} as pfsbench says it (its phases'
    kind); {} when no pfsbench answers."""
    table = list_options()
    try:
        return {str(p["name"]): str(p["kind"]) for p in table["phases"] if p.get("kind") in KINDS} if table else {}
    except (KeyError, TypeError, AttributeError):
        return {}


def exit_code(table: Dict[str, Any], meaning: str) -> int:
    """The exit status pfsbench documents for meaning ("bad input" ...) in its table."""
    for c in table.get("exit_codes", ()):
        if c.get("meaning") == meaning:
            return int(c["code"])
    raise KeyError("pfsbench's --list-options=json names no exit status for %r" % meaning)
