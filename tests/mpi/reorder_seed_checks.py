"""The checks tests/mpi/test_reorder_seed.sh makes on runs with -C --reorder-seed S:

    reorder_seed_checks.py sources RESULTS SEED [away]

exits 0 when the last run of RESULTS is complete with reorder_seed SEED, its reads
moved what its writes did, and its placement table has each rank reading the data of
the rank the permutation of SEED over that placement names (src/core/reorder.c's
pfs_reorder_random, written again here from its comments), never its own (with away:
each on another node than its writer); else raises
an AssertionError naming what differs.
"""
import os
import sys
from typing import List

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from h5pattern import mix  # noqa: E402
from runs import dispatch, text  # noqa: E402


def draw(seed: int, i: int, n: int) -> int:
    return mix(seed ^ mix(i + 1)) % n


def shuffle(v: List[int], lo: int, hi: int, seed: int, k: List[int]) -> None:
    for i in range(hi - lo - 1, 0, -1):
        j = draw(seed, k[0], i + 1)
        k[0] += 1
        v[lo + i], v[lo + j] = v[lo + j], v[lo + i]


def grouped(node: List[int], seed: int, first_big: bool) -> "tuple[List[int], int]":
    nnodes = max(node) + 1
    k = [0]
    nodes = list(range(nnodes))
    count = [node.count(n) for n in range(nnodes)]
    shuffle(nodes, 0, nnodes, seed, k)
    big = 0
    for n in range(1, nnodes):
        big = n if count[nodes[n]] > count[nodes[big]] else big
    if first_big:
        nodes[0], nodes[big] = nodes[big], nodes[0]
        big = 0
    order: List[int] = []
    for n in nodes:
        start = len(order)
        order += [r for r in range(len(node)) if node[r] == n]
        shuffle(order, start, len(order), seed, k)
    return order, count[nodes[big]]


def permutation(node: List[int], seed: int) -> List[int]:
    n = len(node)
    if n < 2:
        return list(range(n))
    order, m = grouped(node, seed, False)
    if 2 * m <= n:
        k = m + draw(seed ^ 0x5A5A5A5A, 0, n - 2 * m + 1)
    elif m < n:
        order, _ = grouped(node, seed, True)
        k = n - m
    else:
        k = 1 + draw(seed ^ 0x5A5A5A5A, 0, n - 1)
    src = [0] * n
    for i in range(n):
        src[order[i]] = order[(i + k) % n]
    return src


def sources(results: str, seed: str, away: str = "") -> None:
    with h5py.File(results, "r") as f:
        run = f["runs"][sorted(f["runs"])[-1]]
        assert text(run.attrs["status"]) == "complete", text(run.attrs["status"])
        assert int(run.attrs["reorder"]) == 1 and int(run.attrs["reorder_seed"]) == int(seed), dict(run.attrs)
        rows = run["placement"][()]
        moved = {text(pg.attrs["phase"]): int(pg["bytes"][()].sum()) for pg in run["phases"].values()}
    assert moved["read"] == moved["write"] > 0, moved
    node = [int(x["node"]) for x in sorted(rows, key=lambda x: int(x["rank"]))]
    got = [int(x["reads_from_rank"]) for x in sorted(rows, key=lambda x: int(x["rank"]))]
    want = permutation(node, int(seed))
    assert got == want, "reads_from_rank %s, the permutation of seed %s over nodes %s: %s" % (got, seed, node, want)
    assert all(got[r] != r for r in range(len(got))), got
    for x in rows:
        assert int(x["reads_from_node"]) == node[int(x["reads_from_rank"])], x
        assert not away or int(x["reads_from_node"]) != int(x["node"]), x


if __name__ == "__main__":
    sys.exit(dispatch({"sources": sources}, sys.argv))
