"""The checks tests/mpi/test_targets_slow.sh makes on the results file of
a write,read run (2 repetitions, file per stream, -k) on a 3-brick
GlusterFS distribute volume with one brick paused in bursts:

    targets_slow_checks.py CHECK RESULTS [ARGS...]

BRICK arguments are NAME=DIR: a brick's target name (HOST:BRICKPATH) and
the directory on the brick that mirrors the run's -d.

  bytes RESULTS BLOCK BRICK...  every repetition of every phase: each
                  brick's bytes are BLOCK x the run's data files it holds,
                  and the targets' bytes add up to the phase's
  began RESULTS T  the bursts began (T, s since the epoch) before
                  repetition 1's first open
  flagged RESULTS NAME  repetition 1 of write and of read: NAME's slow is
                  1, every other target's 0
  exemplars RESULTS BRICK...  every exemplar's target_name is the brick
                  holding its stream's file
  tail RESULTS NAME  repetition 1 of each phase: its slowest transfer is on
                  NAME (which of the 32 exemplars after it are on which brick
                  is no test: the one client's queue delays every brick's
                  transfers while one is paused)
"""
import os
import sys
from typing import Dict, List

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, last_run, text  # noqa: E402


def _bricks(args: List[str]) -> Dict[str, str]:
    return dict(a.split("=", 1) for a in args)


def _holder(run: h5py.Group, bricks: Dict[str, str]) -> Dict[int, str]:
    """Each stream's data file: the brick whose directory holds its data
    (a regular file, not a DHT link file of mode ---------T)."""
    rid = text(run.attrs["run_id"])
    out: Dict[int, str] = {}
    for name, d in bricks.items():
        for f in os.listdir(d):
            st = os.stat(os.path.join(d, f))
            if f.startswith("pfsbench.%s." % rid) and not st.st_mode & 0o1000:
                tail = f.rsplit(".", 1)[1]
                if tail.isdigit():
                    assert int(tail) not in out, "stream %s's file on two bricks" % tail
                    out[int(tail)] = name
    return out


def _data_phases(run: h5py.Group) -> List[h5py.Group]:
    return [run["phases"][n] for n in sorted(run["phases"])]


def bytes_(path: str, block: str, *args: str) -> None:
    bricks = _bricks(list(args))
    with h5py.File(path, "r") as f:
        run = last_run(f)
        holder = _holder(run, bricks)
        streams = int(run.attrs["streams"])
        assert sorted(holder) == list(range(streams)), (sorted(holder), streams)
        for g in _data_phases(run):
            t = g["targets"][()]
            for rep in range(len(g["bytes"])):
                rows = t[t["rep"] == rep]
                got = {text(r["name"]): int(r["bytes"]) for r in rows}
                want = {n: int(block) * sum(1 for h in holder.values() if h == n) for n in bricks}
                want = {n: b for n, b in want.items() if b}
                assert got == want, (g.name, rep, got, want)
                assert sum(got.values()) == int(g["bytes"][rep]), (g.name, rep, sum(got.values()))


def began(path: str, t: str) -> None:
    with h5py.File(path, "r") as f:
        run = last_run(f)
        first = min(float(x) for x in run["phases/00_write/times"][1]["open_start"])
        assert float(t) < first, ("the bursts began at", float(t), "repetition 1 at", first)


def flagged(path: str, name: str) -> None:
    with h5py.File(path, "r") as f:
        for g in _data_phases(last_run(f)):
            t = g["targets"][()]
            rows = t[t["rep"] == 1]
            slow = {text(r["name"]): int(r["slow"]) for r in rows}
            assert slow.get(name) == 1 and sum(slow.values()) == 1, (g.name, slow,
                                                                     [(text(r["name"]), float(r["bandwidth"]),
                                                                       float(r["p99_ns"])) for r in rows])


def exemplars(path: str, *args: str) -> None:
    with h5py.File(path, "r") as f:
        run = last_run(f)
        holder = _holder(run, _bricks(list(args)))
        n = 0
        for g in _data_phases(run):
            t = g["targets"][()]
            for e in g["exemplars"][()]:
                rows = t[t["rep"] == e["rep"]]
                assert 0 <= int(e["target"]) < len(rows), (g.name, e)
                assert text(rows[int(e["target"])]["name"]) == text(e["target_name"]), (g.name, e)
                assert text(e["target_name"]) == holder[int(e["file"])], (g.name, e, holder[int(e["file"])])
                n += 1
        assert n > 0


def tail(path: str, name: str) -> None:
    with h5py.File(path, "r") as f:
        for g in _data_phases(last_run(f)):
            op = g.name.rsplit("_", 1)[1]
            ex = [e for e in g["exemplars"][()] if int(e["rep"]) == 1 and text(e["op"]) == op]
            names = [text(e["target_name"]) for e in ex]  # slowest first
            assert names and names[0] == name, (g.name, names)


if __name__ == "__main__":
    sys.exit(dispatch({"bytes": bytes_, "began": began, "flagged": flagged, "exemplars": exemplars, "tail": tail},
                      sys.argv))
