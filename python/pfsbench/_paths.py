"""Where the tools look for their neighbours (pfsrun, pfsbench).

pfs-sweep runs the pfsrun beside it, pfs-results asks the pfsbench beside
it or in ../build: they look in the directory of the running pfs-* command
(the bin/ a `cmake --install` or pip put it in, or the build directory
whose pfs-* run a checkout's package), and a checkout's scripts/ above this
package (python/pfsbench -> scripts/).
"""

import os
import sys

_PACKAGE = os.path.dirname(os.path.realpath(__file__))


def tool_dirs():
    """The directories to look in, first first, without repeats."""
    out = []
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
