"""The check tests/mpi/test_python.sh makes with the pfsbench package on
a results file of --warmup and --reps auto runs:

    python_checks.py open SRC_PYTHON RESULTS

imports pfsbench from SRC_PYTHON and exits 0 when pfsbench.open's summary
and the rows views carry warmup, reps_measured, ci95_* and ci_target_met as
stored; else raises an AssertionError naming what differs.
"""
import math
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def open_check(src: str, path: str) -> None:
    sys.path.insert(0, src)
    import pfsbench
    from pfsbench import damage, rows as views
    with pfsbench.open(path) as res:
        s = res.summary(as_frame=False)
        one = [i for i in range(len(s["run"])) if s["run"][i] == 1 and s["phase"][i] == "write"]
        assert [s["warmup"][i] for i in one] == [1, 0, 0, 0], s["warmup"]
        assert all(s["reps_measured"][i] == 3 for i in one)
        h5 = h5py.File(path, "r")
        pg = h5["runs"]["000001"]["phases"]["00_write"]
        assert all(s["ci95_half_width"][i] == pg.attrs["ci95_half_width"] > 0 for i in one)
        assert all(math.isnan(s["ci_target_met"][i]) for i in one)  # a fixed --reps: no target
        two = [i for i in range(len(s["run"])) if s["run"][i] == 2]
        assert len(two) == 1 and math.isnan(s["ci95_percent"][two[0]]) and s["reps_measured"][two[0]] == 1
        try:
            import pandas  # noqa: F401
            f = res.summary()
            assert str(f["warmup"].dtype) == "boolean" and f["warmup"].sum() == 2
        except ImportError:
            pass
    rows = views.summary_rows(pfsbench.open(path))
    assert sorted(r["warmup"] for r in rows if r["run"] == 1) == [0, 0, 0, 0, 0, 0, 1, 1]
    # a run of --reps auto (its reps attribute is the word) reads, not damaged
    assert damage.check_run(h5py.File(path, "r")["runs"]["000003"]) == []
    assert len([r for r in rows if r["run"] == 3]) == 3
    with pfsbench.open(path) as res:
        s = res.summary(as_frame=False)
        three = [i for i in range(len(s["run"])) if s["run"][i] == 3]
        assert len(three) == 3 and all(s["reps_measured"][i] == 3 for i in three)
        assert all(s["ci_target_met"][i] in (0.0, 1.0) for i in three)


if __name__ == "__main__":
    sys.exit(dispatch({"open": open_check}, sys.argv))
