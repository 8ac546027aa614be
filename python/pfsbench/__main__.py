"""python3 -m pfsbench TOOL [ARGS...]: the tools of a checkout (PYTHONPATH=python) or
of an installed package, under the names `cmake --install` and pip give them:

    python3 -m pfsbench results FILE     # pfs-results FILE
    python3 -m pfsbench compare FILE     # pfs-compare ...; plot, sweep, io500, report likewise
"""

import importlib
import sys
from typing import List, Optional

TOOLS = ("results", "compare", "plot", "sweep", "io500", "report")


def main(argv: Optional[List[str]] = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args or args[0] not in TOOLS:
        sys.stderr.write("usage: python3 -m pfsbench {%s} [ARGS...] (each takes --help)\n" % ",".join(TOOLS))
        return 0 if args and args[0] in ("-h", "--help") else 2
    tool = importlib.import_module("pfsbench.cli." + args[0])
    return int(tool.main(args[1:]))


if __name__ == "__main__":
    sys.exit(main())
