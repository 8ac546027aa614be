"""The checks tests/mpi/test_targets_unknown.sh makes on a results file of
a write,read run whose storage targets no provider could tell:

    targets_unknown_checks.py unknown RESULTS

  unknown RESULTS  each phase and repetition: one target, "unknown",
                   holding the phase's bytes and transfers, not slow; every
                   exemplar of the phase names it (row 0)
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, last_run, text  # noqa: E402


def unknown(path: str) -> None:
    with h5py.File(path, "r") as f:
        run = last_run(f)
        for name in sorted(run["phases"]):
            g = run["phases"][name]
            t = g["targets"][()]
            assert len(t) == len(g["bytes"]), (name, len(t))
            for rep, row in enumerate(t):
                assert int(row["rep"]) == rep and text(row["name"]) == "unknown", (name, row)
                assert int(row["bytes"]) == int(g["bytes"][rep]) > 0, (name, rep, row)
                assert int(row["ops"]) == int(g["ops"][rep]), (name, rep, row)
                assert int(row["slow"]) == 0, (name, row)
            ex = g["exemplars"][()]
            assert len(ex) > 0 and all(int(e["target"]) == 0 and text(e["target_name"]) == "unknown" for e in ex), \
                (name, [(int(e["target"]), text(e["target_name"])) for e in ex])


if __name__ == "__main__":
    sys.exit(dispatch({"unknown": unknown}, sys.argv))
