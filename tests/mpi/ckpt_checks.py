"""The checks tests/mpi/test_ckpt.sh makes on the checkpoint phases' results:

    ckpt_checks.py figures RESULTS PHASES BYTES
    ckpt_checks.py rank_files RESULTS DIR RUN_ID
    ckpt_checks.py geometry RESULTS TP PP DP ZERO

figures: the run's phases are PHASES (comma-separated), each moved BYTES bytes (the
checkpoint's size) over its streams, its seconds are the first open to the last close
and its bandwidth bytes / seconds. rank_files: with --ckpt-layout rank, the bytes each
rank's stream saved are the size of its file DIR/pfsbench.RUN_ID.ckpt.<rank>. geometry:
the run's attributes ckpt_tp, ckpt_pp, ckpt_dp and ckpt_zero are the degrees given. Each raises
an AssertionError naming what differs.
"""
import os
import sys
from typing import List

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, one_run_attrs, text  # noqa: E402


def tiny_bytes() -> int:
    """The tiny preset's size by hand (include/pfs/ckpt.h: 6 layers of 50,000 parameters,
    an embedding of 12,345 and a head of 12,346; 2 + 12 bytes per parameter)."""
    return (6 * 50000 + 12345 + 12346) * (2 + 12)


def figures(path: str, phases: str, nbytes: str) -> None:
    want: List[str] = phases.split(",")
    with h5py.File(path, "r") as f:
        ph = f["runs/000001/phases"]
        names = sorted(ph)
        assert [text(ph[n].attrs["phase"]) for n in names] == want, names
        for n in names:
            g = ph[n]
            t = g["times"][0]
            assert int(g["bytes"][0]) == int(nbytes), (n, int(g["bytes"][0]), nbytes)
            assert int(sum(t["bytes"])) == int(nbytes), (n, list(t["bytes"]))
            span = float(max(t["close_end"]) - min(t["open_start"]))
            sec = float(g["seconds"][0])
            assert sec > 0 and abs(sec - span) <= 1e-6 * max(span, 1e-3), (n, sec, span)
            bw = float(g["bandwidth"][0])
            assert abs(bw * sec - int(nbytes)) <= 1e-6 * int(nbytes), (n, bw, sec)
            assert int(sum(t["verify_errors"])) == 0, (n, list(t["verify_errors"]))


def rank_files(path: str, d: str, run_id: str) -> None:
    with h5py.File(path, "r") as f:
        ph = f["runs/000001/phases"]
        g = ph[[n for n in ph if n.endswith("_ckpt-save")][0]]
        saved = [int(b) for b in g["times"][0]["bytes"]]
    sizes = [os.path.getsize(os.path.join(d, "pfsbench.%s.ckpt.%d" % (run_id, r))) for r in range(len(saved))]
    assert saved == sizes, (saved, sizes)
    assert sum(sizes) == tiny_bytes(), (sum(sizes), tiny_bytes())


def geometry(path: str, tp: str, pp: str, dp: str, zero: str) -> None:
    a = one_run_attrs(path)
    got = [a["ckpt_tp"], a["ckpt_pp"], a["ckpt_dp"], a["ckpt_zero"]]
    assert got == [tp, pp, dp, zero], got


if __name__ == "__main__":
    sys.exit(dispatch({"figures": figures, "rank_files": rank_files, "geometry": geometry}, sys.argv))
