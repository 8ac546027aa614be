"""The checks tests/mpi/test_iorscript.sh makes on `pfsbench ior -f SCRIPT`:

    iorscript_checks.py runs RESULTS SCRIPT BLOCK XFER...
        the results file holds one complete run per test, in order, labelled
        run1, run2 ..., each a section of the job SCRIPT, with its transfer
        size (XFER, one per test), BLOCK per rank, every repetition moving
        ranks x BLOCK bytes in ranks x BLOCK / XFER transfers per phase
    iorscript_checks.py output STDOUT XFER...
        stdout holds one IOR-shaped report per test, in order: its command
        line labelled runK, its xfersize line, and its Results rows (each
        repetition's write then read) in IOR's xfer(KiB) column
"""
import os
import sys
from typing import List

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def runs(results: str, script: str, block: str, *xfers: str) -> None:
    with h5py.File(results, "r") as f:
        names = sorted(f["runs"])
        assert len(names) == len(xfers), "%d runs, want %d" % (len(names), len(xfers))
        for k, (name, xfer) in enumerate(zip(names, xfers)):
            g = f["runs"][name]
            label = "run%d" % (k + 1)
            assert text(g.attrs["status"]) == "complete", (name, text(g.attrs["status"]))
            assert text(g.attrs["label"]) == label, (name, text(g.attrs["label"]))
            assert text(g.attrs["job_section"]) == label, (name, text(g.attrs["job_section"]))
            assert text(g.attrs["job_file"]) == script, (name, text(g.attrs["job_file"]))
            assert int(g.attrs["transfer"]) == int(xfer), (name, int(g.attrs["transfer"]), xfer)
            assert int(g.attrs["block"]) == int(block), (name, int(g.attrs["block"]), block)
            nranks = int(g.attrs["ranks"])
            phases = [text(g["phases"][p].attrs["phase"]) for p in sorted(g["phases"])]
            assert phases == ["write", "read"], (name, phases)
            for p in sorted(g["phases"]):
                nbytes = [int(x) for x in g["phases"][p]["bytes"][()]]
                ops = [int(x) for x in g["phases"][p]["ops"][()]]
                assert len(nbytes) == 2, (name, p, nbytes)
                assert all(b == nranks * int(block) for b in nbytes), (name, p, nbytes)
                assert all(o == nranks * int(block) // int(xfer) for o in ops), (name, p, ops)
            print(name, label, xfer, "ok")


def output(stdout: str, *xfers: str) -> None:
    with open(stdout) as fh:
        lines = [ln.rstrip("\n") for ln in fh]
    starts = [i for i, ln in enumerate(lines) if ln.startswith("Command line        : ")]
    assert len(starts) == len(xfers), "%d reports, want %d" % (len(starts), len(xfers))
    for k, (i, xfer) in enumerate(zip(starts, xfers)):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        report: List[str] = lines[i:end]
        assert report[0].endswith(" --label=run%d" % (k + 1)), report[0]
        kib = int(xfer) / 1024
        assert "xfersize            : %.2f KiB" % kib in report, (k, [ln for ln in report if "xfersize" in ln])
        rows = [ln for ln in report if ln[:10] in ("write     ", "read      ") and ln[10:11].isdigit()]
        assert [ln.split()[0] for ln in rows] == ["write", "read", "write", "read"], rows
        assert all(float(ln[55:65]) == kib for ln in rows), rows
        print("report", k + 1, xfer, "ok")


if __name__ == "__main__":
    sys.exit(dispatch({"runs": runs, "output": output}, sys.argv))
