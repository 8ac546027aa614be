"""check_reorder_nodes.py RESULTS N SHIFT: the last run of results file
RESULTS ran -C --reorder-nodes N (IOR's -C -Q N) complete, with reorder
shift SHIFT, and its placement has every rank reading what the rank SHIFT
on wrote, on node (its node + N) mod nodes, never its own; its read
phases moved as many bytes as its writes. Prints the placement.
"""
import sys

import h5py


def text(v: object) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def main() -> int:
    path, away, shift = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with h5py.File(path, "r") as f:
        run = f["runs"][sorted(f["runs"])[-1]]
        assert text(run.attrs["status"]) == "complete", text(run.attrs["status"])
        assert int(run.attrs["reorder"]) == 1 and int(run.attrs["reorder_nodes"]) == away, dict(run.attrs)
        assert int(run.attrs["reorder_shift"]) == shift, int(run.attrs["reorder_shift"])
        nodes, ranks = int(run.attrs["nodes"]), int(run.attrs["ranks"])
        rows = run["placement"][()]
        moved = {text(pg.attrs["phase"]): int(pg["bytes"][()].sum()) for pg in run["phases"].values()}
    assert moved["read"] == moved["write"] > 0, moved
    seen = []
    for x in rows:
        r, node = int(x["rank"]), int(x["node"])
        src, src_node = int(x["reads_from_rank"]), int(x["reads_from_node"])
        assert src == (r + shift) % ranks, (r, src, shift)
        assert src_node == (node + away) % nodes != node, (r, node, src_node, away)
        seen.append("%d@%d<-%d@%d" % (r, node, src, src_node))
    print(" ".join(seen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
