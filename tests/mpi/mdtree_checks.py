"""The check tests/mpi/test_mdtree.sh makes on a directory tree run:

    mdtree_checks.py tree RESULTS DEPTH BRANCH

exits 0 when the first run stores depth DEPTH, branch BRANCH, leaf_only 0
and the summary names the tree's phases in order; else raises an
AssertionError naming what differs.
"""
import os
import sys

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def tree(path: str, depth: str, branch: str) -> None:
    f = h5py.File(path, "r")
    a = f["runs"][sorted(f["runs"])[0]].attrs
    assert int(a["depth"]) == int(depth) and int(a["branch"]) == int(branch) and int(a["leaf_only"]) == 0, dict(a)
    names = [text(x) for x in f["summary"]["phase"]]
    assert names == ["mkdir", "stat-dirs", "create", "stat", "read-files", "find", "delete", "rmdir"], names


if __name__ == "__main__":
    sys.exit(dispatch({"tree": tree}, sys.argv))
