"""The checks tests/mpi/test_md_kept.sh makes on a results file:

    md_kept_checks.py ops RESULTS PHASE=N ...

ops: the last run of the file ran each PHASE named, once, on exactly N
items (its ops dataset), so a run over a kept tree worked on the files
the kept run made, no more, no fewer. Raises an AssertionError naming
what differs.
"""
import os
import sys
from typing import Dict, List

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def ops(path: str, *want: str) -> None:
    with h5py.File(path, "r") as f:
        run = f["runs"][max(f["runs"], key=int)]
        got: Dict[str, List[int]] = {text(g.attrs["phase"]): [int(x) for x in g["ops"][()]]
                                     for g in run["phases"].values()}
        assert text(run.attrs["status"]) == "complete", text(run.attrs["status"])
    for w in want:
        phase, n = w.split("=")
        assert got.get(phase) == [int(n)], (phase, got.get(phase), int(n))


if __name__ == "__main__":
    sys.exit(dispatch({"ops": ops}, sys.argv))
