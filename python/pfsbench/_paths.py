"""Where the tools look for their neighbours (pfsrun, pfsbench).

The scripts were found beside each other: pfs-sweep runs the pfsrun beside
it, pfs-results asks the pfsbench beside it or in ../build. As package
modules they look in the same places: the directory of the launcher that
started them (scripts/ of a checkout, or the bin/ a `cmake --install` put
them in; scripts/pfs-* set SCRIPT_DIR), the directory of the running
command (a console script's bin/), and a checkout's scripts/ above this
package (python/pfsbench -> scripts/).
"""

import os
import sys

# Set by the scripts/pfs-* launchers to their own directory.
SCRIPT_DIR = None

_PACKAGE = os.path.dirname(os.path.realpath(__file__))


def tool_dirs():
    """The directories to look in, first first, without repeats."""
    out = []
    if SCRIPT_DIR:
        out.append(SCRIPT_DIR)
    argv0 = sys.argv[0] if sys.argv and sys.argv[0] not in ("", "-c", "-m") else ""
    if argv0 and os.path.basename(argv0).startswith("pfs-"):
        out.append(os.path.dirname(os.path.realpath(argv0)))
    checkout = os.path.join(os.path.dirname(os.path.dirname(_PACKAGE)), "scripts")
    if os.path.isdir(checkout):
        out.append(checkout)
    seen, dirs = set(), []
    for d in out:
        d = os.path.realpath(d)
        if d not in seen:
            seen.add(d)
            dirs.append(d)
    return dirs


def script_dir():
    """The first of tool_dirs() (for messages), or this package's directory."""
    d = tool_dirs()
    return d[0] if d else _PACKAGE
