"""runs.py RESULTS [ATTR ...]: the runs of a results file, one line each, for the shell tests.

    LABEL STATUS RUN_ID PHASE=BYTES ... ATTR=VALUE ...

in the file's order: the run's label (a job file's section name), its status (complete,
failed, ...), its run id, then for each phase its bytes moved, one figure per repetition
joined by commas ("write=1048576 read=1048576"), then each run attribute named on the
command line ("api=mmap"). A job file's sections are runs of their own, so one MPI job can
stand for many launches and each still be checked on its own.

The tests' check modules (tests/mpi/*_checks.py) import text, one_run_attrs, dispatch,
last_run, phase_totals and check_counted from here.
"""
import sys
from typing import Callable, Dict, List

import h5py


def text(v: object) -> str:
    """An HDF5 string attribute (bytes or str) as str; anything else through str()."""
    return v.decode() if isinstance(v, bytes) else str(v)


def one_run_attrs(path: str) -> Dict[str, str]:
    """The attributes of the one run in the results file at path, each as text() gives it
    (an integer attribute as its digits); raises an AssertionError when the file holds
    another number of runs."""
    with h5py.File(path, "r") as f:
        runs = list(f["runs"].values())
        assert len(runs) == 1, len(runs)
        return {k: text(v) for k, v in runs[0].attrs.items()}


def last_run(f: h5py.File) -> h5py.Group:
    """The run numbered last in an open results file."""
    return f["runs"][sorted(f["runs"])[-1]]


def phase_totals(path: str, api: bool = False) -> str:
    """The last run's status (after its api when asked), then PHASE=BYTES/OPS for each
    phase in the run's order, summed over its repetitions: "complete write=N/M ..."."""
    with h5py.File(path, "r") as f:
        r = last_run(f)
        out = ([text(r.attrs["api"])] if api else []) + [text(r.attrs["status"])]
        for name in sorted(r["phases"]):
            p = r["phases"][name]
            b = int(p["bytes"][()].sum()) if "bytes" in p else 0
            o = int(p["ops"][()].sum()) if "ops" in p else 0
            out.append("%s=%d/%d" % (name.split("_", 1)[1], b, o))
        return " ".join(out)


def check_counted(g: h5py.Group, name: str, streams: int) -> None:
    """A data phase's latency records count what it moved, each repetition: every transfer
    once in the op histogram and in the nodes' histograms, one open and one close per
    stream timed, the time series' bytes and operations adding up to the phase's."""
    lat, nl, ops, byts = g["latency"][()], g["node_latency"][()], g["ops"][()], g["bytes"][()]
    for r in range(int(g.attrs["repetitions"])):
        assert lat[r][0].sum() == ops[r] > 0, (name, r, int(lat[r][0].sum()), int(ops[r]))
        assert nl[r].sum() == ops[r], (name, r, int(nl[r].sum()), int(ops[r]))
        assert lat[r][1].sum() == streams and lat[r][3].sum() == streams, (name, r, "opens and closes")
        ts = g["timeseries/rep_%03d" % r]
        assert ts["bytes"][()].sum() == byts[r], (name, r, int(ts["bytes"][()].sum()), int(byts[r]))
        assert ts["ops"][()].sum() == ops[r], (name, r, int(ts["ops"][()].sum()), int(ops[r]))


def dispatch(checks: Dict[str, Callable[..., None]], argv: List[str]) -> int:
    """A check module's main: argv[1] names the check, the rest are its arguments.
    The check raises (an AssertionError naming what differs) when it fails; 0 when
    it returns, 2 for a name that is no check."""
    if len(argv) < 2 or argv[1] not in checks:
        print("usage: %s CHECK ARGS...; the checks: %s" % (argv[0], " ".join(sorted(checks))), file=sys.stderr)
        return 2
    checks[argv[1]](*argv[2:])
    return 0


def main() -> int:
    with h5py.File(sys.argv[1], "r") as f:
        for name in sorted(f["runs"]):
            g = f["runs"][name]
            words = [text(g.attrs["label"]) or "-", text(g.attrs["status"]), text(g.attrs["run_id"])]
            phases = g["phases"] if "phases" in g else {}  # a run that failed before its first phase has none
            for ph in sorted(phases):
                if "bytes" not in phases[ph]:
                    continue
                b = phases[ph]["bytes"][()]
                words.append("%s=%s" % (ph.split("_", 1)[1], ",".join(str(int(x)) for x in b)))
            for a in sys.argv[2:]:
                words.append("%s=%s" % (a, text(g.attrs[a]) if a in g.attrs else "(none)"))
            print(" ".join(words))
    return 0


if __name__ == "__main__":
    sys.exit(main())
