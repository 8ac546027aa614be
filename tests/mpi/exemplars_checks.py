"""The checks tests/mpi/test_exemplars.sh makes on the results file's
`exemplars` datasets (--exemplars K):

    exemplars_checks.py CHECK ARGS...

  slowest H5 SECS   the write phase's slowest exemplar is rank 1's stalled
                    write (offset 64 KiB, >= SECS); 16 rows, sorted
  count H5 K        every phase and repetition has min(K, ops) rows, sorted
  json OUT H5       --format json's exemplars are the file's rows
  none H5           no exemplar in any phase, latencies recorded
"""
import json
import os
import sys
from typing import Any, Dict, List

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text  # noqa: E402


def _run(f: h5py.File) -> Any:
    runs = list(f["runs"].values())
    assert len(runs) == 1, len(runs)
    return runs[0]


def _ops(pg: Any, rep: int) -> int:
    """Every operation the repetition timed: the latency summaries' counts over the kinds."""
    return int(pg["latency_summary"][rep]["count"].sum())


def _rows_of(pg: Any, rep: int) -> Any:
    ex = pg["exemplars"][()]
    return ex[ex["rep"] == rep]


def _sorted_desc(rows: Any, what: str) -> None:
    d = [int(x) for x in rows["duration_ns"]]
    assert d == sorted(d, reverse=True), "%s: not slowest first: %s" % (what, d)


def slowest(h5: str, secs: str) -> None:
    with h5py.File(h5, "r") as f:
        run = _run(f)
        pg = run["phases/00_write"]
        rows = _rows_of(pg, 0)
        ops = _ops(pg, 0)
        assert ops == 36, ops
        assert len(rows) == min(16, ops) == len(pg["exemplars"]), (len(rows), ops)
        _sorted_desc(rows, "write")
        top = rows[0]
        host1 = [text(p["host"]) for p in run["placement"][()] if int(p["rank"]) == 1][0]
        got = (int(top["rank"]), text(top["host"]), text(top["op"]), int(top["file"]), int(top["offset"]),
               int(top["length"]), int(top["target"]))
        # target 0: the one row of the phase's target table (the shared
        # file lies on one local file system)
        assert got == (1, host1, "write", -1, 65536, 4096, 0), got
        assert int(top["duration_ns"]) >= float(secs) * 1e9, int(top["duration_ns"])
        assert int(rows[1]["duration_ns"]) < float(secs) * 1e9, "another operation as slow: %s" % rows[1]
        # within the repetition's span, as the times hold it (rank 1's open .. its close)
        t = pg["times"][0]
        start, end = float(t["open_start"][1]), float(t["close_end"][1])
        assert start <= float(top["start"]) <= end, (start, float(top["start"]), end)
        assert float(top["start"]) + int(top["duration_ns"]) * 1e-9 <= end + 0.001
        rd = run["phases/01_read"]
        rrows = _rows_of(rd, 0)
        assert len(rrows) == min(16, _ops(rd, 0)), len(rrows)
        _sorted_desc(rrows, "read")
        assert set(text(o) for o in rrows["op"]) <= {"read", "open", "close"}


def count(h5: str, k: str) -> None:
    with h5py.File(h5, "r") as f:
        run = _run(f)
        assert int(run.attrs["exemplars"]) == int(k), run.attrs["exemplars"]
        phases = list(run["phases"].values())
        assert len(phases) == 3, len(phases)
        for pg in phases:
            reps = int(pg.attrs["repetitions"])
            assert reps == 2, reps
            total = 0
            for rep in range(reps):
                rows = _rows_of(pg, rep)
                ops = _ops(pg, rep)
                what = "%s rep %d" % (pg.name, rep)
                assert ops > 0 and len(rows) == min(int(k), ops), (what, len(rows), ops)
                _sorted_desc(rows, what)
                assert set(int(r) for r in rows["rank"]) == {0, 1}, what
                total += len(rows)
            assert len(pg["exemplars"]) == total
        meta = run["phases/01_create"]["exemplars"][()]
        assert set(text(o) for o in meta["op"]) == {"create"}
        # a metadata operation's offset is its file's number: 0 .. 4 of each stream
        assert sorted(int(o) for o in meta[meta["rep"] == 0]["offset"]) == sorted(list(range(5)) * 2)


def _as_dicts(rows: Any) -> List[Dict[str, Any]]:
    out = []
    for r in rows:
        d: Dict[str, Any] = {}
        for name in rows.dtype.names:
            v = r[name]
            d[name] = text(v) if isinstance(v, bytes) else v.item() if isinstance(v, np.generic) else v
        out.append(d)
    return out


def json_out(out: str, h5: str) -> None:
    with open(out) as fo:
        doc = json.load(fo)
    with h5py.File(h5, "r") as f:
        run = _run(f)
        for p, (pg, jp) in enumerate(zip(run["phases"].values(), doc["phases"])):
            for rep, jr in enumerate(jp["repetitions"]):
                want = _as_dicts(_rows_of(pg, rep))
                got = jr["exemplars"]
                assert len(got) == len(want) > 0, (p, rep, len(got), len(want))
                for g, w in zip(got, want):
                    assert list(g) == list(w), (list(g), list(w))
                    for key in w:
                        same = abs(g[key] - w[key]) <= 1e-6 if isinstance(w[key], float) else g[key] == w[key]
                        assert same, (p, rep, key, g[key], w[key])


def none(h5: str) -> None:
    with h5py.File(h5, "r") as f:
        run = _run(f)
        assert int(run.attrs["exemplars"]) == 0
        for pg in run["phases"].values():
            assert len(pg["exemplars"]) == 0, len(pg["exemplars"])
            assert _ops(pg, 0) > 0


if __name__ == "__main__":
    sys.exit(dispatch({"slowest": slowest, "count": count, "json": json_out, "none": none}, sys.argv))
