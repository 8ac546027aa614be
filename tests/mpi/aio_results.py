"""aio_results.py FILE DEPTH: the one run of results file FILE was made by
--api aio at --iodepth DEPTH, and its latency histograms and time series
count what its phases moved: every transfer once in the `op` histogram
(and per node), the time series' bytes and operations adding up to the
phase's, one open and one close per stream timed. Exit 0, or an
AssertionError naming what differs (tests/mpi/test_aio.sh calls it)."""
import sys

import h5py


def text(v: object) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def check_phase(g: h5py.Group, name: str, streams: int) -> None:
    reps = int(g.attrs["repetitions"])
    lat, nl, ops, byts = g["latency"][()], g["node_latency"][()], g["ops"][()], g["bytes"][()]
    for r in range(reps):
        assert lat[r][0].sum() == ops[r] > 0, (name, r, int(lat[r][0].sum()), int(ops[r]))
        assert nl[r].sum() == ops[r], (name, r, int(nl[r].sum()), int(ops[r]))
        assert lat[r][1].sum() == streams and lat[r][3].sum() == streams, (name, r, "opens and closes")
        ts = g["timeseries/rep_%03d" % r]
        assert ts["bytes"][()].sum() == byts[r], (name, r, int(ts["bytes"][()].sum()), int(byts[r]))
        assert ts["ops"][()].sum() == ops[r], (name, r, int(ts["ops"][()].sum()), int(ops[r]))


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
            check_phase(run["phases"][name], name, streams)


if __name__ == "__main__":
    main()
