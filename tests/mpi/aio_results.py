"""aio_results.py FILE DEPTH: the one run of results file FILE was made by
--api aio at --iodepth DEPTH, and its latency histograms and time series
count what its phases moved: every transfer once in the `op` histogram
(and per node), the time series' bytes and operations adding up to the
phase's, one open and one close per stream timed. Exit 0, or an
AssertionError naming what differs (tests/mpi/test_aio.sh calls it)."""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import check_counted, text  # noqa: E402


def main() -> None:
    path, depth = sys.argv[1], int(sys.argv[2])
    with h5py.File(path, "r") as f:
        runs = list(f["runs"].values())
        assert len(runs) == 1, len(runs)
        run = runs[0]
        a = run.attrs
        assert text(a["api"]) == "aio", text(a["api"])
        assert int(a["iodepth"]) == depth, int(a["iodepth"])
        streams = int(a["streams"])
        names = list(run["phases"])
        assert len(names) >= 2, names
        for name in names:
            check_counted(run["phases"][name], name, streams)


if __name__ == "__main__":
    main()
