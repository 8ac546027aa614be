"""check_run_dir.py FILE DIR NODES: the last run of results file FILE
worked in DIR (its `dir` attribute) on NODES nodes, and is complete.
Prints the run's directory and nodes.
"""
import sys

import h5py


def text(v: object) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def main() -> int:
    path, want_dir, want_nodes = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with h5py.File(path, "r") as f:
        run = f["runs"][sorted(f["runs"])[-1]]
        got_dir, nodes, status = text(run.attrs["dir"]), int(run.attrs["nodes"]), text(run.attrs["status"])
    assert status == "complete", status
    assert got_dir == want_dir, "the run worked in %s, want %s" % (got_dir, want_dir)
    assert nodes == want_nodes, "%d nodes, want %d" % (nodes, want_nodes)
    print("run in %s on %d nodes" % (got_dir, nodes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
