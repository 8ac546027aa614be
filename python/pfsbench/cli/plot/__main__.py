"""python3 -m pfsbench.cli.plot: pfs-plot."""
import sys

from . import main

sys.exit(main())
