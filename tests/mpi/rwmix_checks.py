"""The checks tests/mpi/test_rwmix.sh makes on the rwmix phase of run
000001 of a results file:

    rwmix_checks.py exact RESULTS        2 streams of 100 4 KiB transfers, --rwmix 70
    rwmix_checks.py sized RESULTS        the same with --bssplit 4k/50:1k/30:512/20
    rwmix_checks.py same RESULTS RESULTS two runs of one run id drew the same
    rwmix_checks.py corrupt FILE         changes byte 100 of every 4 KiB of FILE
    rwmix_checks.py csv REPORT           --format csv of write,rwmix --rwmix 70: the mix's columns
    rwmix_checks.py ticks RESULTS CSV    pfs-plot latency's data CSV: rwmix's exemplar ticks

each exits 0 when what it checks holds; else raises an AssertionError
naming what differs.
"""
import os
import sys
from typing import Any

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch  # noqa: E402


def _phase(path: str, name: str = "rwmix") -> Any:
    f = h5py.File(path, "r")
    ph = f["runs/000001/phases"]
    return ph[[n for n in ph if n.endswith("_" + name)][0]]


def _kind(g: Any, kind: str) -> int:
    kinds = g.attrs["latency_kinds"]
    kinds = (kinds.decode() if isinstance(kinds, bytes) else str(kinds)).split(",")
    return int(g["latency_summary"][0, kinds.index(kind)]["count"])


def exact(path: str) -> None:
    """Exactly 70 of every 100 transfers are reads: per stream, in the
    aggregate, in the histograms; the rates add up."""
    g = _phase(path)
    t = g["times"][0]
    assert list(t["transfers"]) == [100, 100], t["transfers"]
    assert list(t["read_transfers"]) == [70, 70], t["read_transfers"]
    assert list(t["read_bytes"]) == [70 * 4096, 70 * 4096], t["read_bytes"]
    assert int(g["read_ops"][0]) == 140 and int(g["write_ops"][0]) == 60, (g["read_ops"][0], g["write_ops"][0])
    assert int(g["read_bytes"][0]) == 140 * 4096 and int(g["write_bytes"][0]) == 60 * 4096
    assert (_kind(g, "op"), _kind(g, "read"), _kind(g, "write")) == (200, 140, 60)
    rate, rr, wr = float(g["rate"][0]), float(g["read_rate"][0]), float(g["write_rate"][0])
    assert abs(rr + wr - rate) <= 1e-9 * rate, (rr, wr, rate)
    assert abs(rr / rate - 0.7) < 1e-9, (rr, rate)
    bw, rb, wb = float(g["bandwidth"][0]), float(g["read_bandwidth"][0]), float(g["write_bandwidth"][0])
    assert abs(rb + wb - bw) <= 1e-9 * bw, (rb, wb, bw)
    # the write phase before it has no mix figures, and no read or write kind
    w = _phase(path, "write")
    assert "read_ops" not in w, list(w)
    assert _kind(w, "read") == 0 and _kind(w, "write") == 0


def sized(path: str) -> None:
    """Each stream's 100 transfers are 50 of 4 KiB, 30 of 1 KiB and 20 of
    512 bytes, whatever their direction; the read phase after it too."""
    for name in ("rwmix", "read"):
        g = _phase(path, name)
        t = g["times"][0]
        want = 50 * 4096 + 30 * 1024 + 20 * 512
        assert list(t["transfers"]) == [100, 100], (name, t["transfers"])
        assert list(t["bytes"]) == [want, want], (name, t["bytes"], want)
    g = _phase(path, "write")  # the write lays the block out in -t
    assert list(g["times"][0]["bytes"]) == [409600, 409600], g["times"][0]["bytes"]


def same(a: str, b: str) -> None:
    """One run id, one sequence of draws: each stream's reads and bytes."""
    ta, tb = _phase(a)["times"][0], _phase(b)["times"][0]
    for k in ("read_transfers", "read_bytes", "bytes"):
        assert list(ta[k]) == list(tb[k]), (k, ta[k], tb[k])


def corrupt(path: str) -> None:
    with open(path, "r+b") as f:
        size = os.fstat(f.fileno()).st_size
        for off in range(100, size, 4096):
            f.seek(off)
            c = f.read(1)
            f.seek(off)
            f.write(bytes([c[0] ^ 0xFF]))


def csv_out(path: str) -> None:
    """The rwmix row's read and write rates and bandwidths (the newest
    columns, at the row's end) add up to its own; the write row's are
    empty."""
    import csv
    rows = {r["phase"]: r for r in csv.DictReader(open(path))}
    m, w = rows["rwmix"], rows["write"]
    rate = float(m["ops_per_s"])
    rr, wr = float(m["read_ops_per_s"]), float(m["write_ops_per_s"])
    assert abs(rr + wr - rate) <= 1e-6 * rate and abs(rr / rate - 0.7) < 1e-6, (rr, wr, rate)
    bw = float(m["bandwidth_bytes_per_s"])
    rb, wb = float(m["read_bandwidth_bytes_per_s"]), float(m["write_bandwidth_bytes_per_s"])
    assert abs(rb + wb - bw) <= 1e-6 * bw, (rb, wb, bw)
    assert all(w[k] == "" for k in ("read_ops_per_s", "write_bandwidth_bytes_per_s")), w
    head = open(path).readline().rstrip("\n").split(",")
    assert head[-4:] == ["read_ops_per_s", "write_ops_per_s", "read_bandwidth_bytes_per_s",
                         "write_bandwidth_bytes_per_s"], head[-6:]


def ticks(path: str, csv_path: str) -> None:
    """pfs-plot latency's op line of rwmix carries its stored exemplars, the
    reads' and the writes' (named so), as ticks; the write phase's its own."""
    import csv
    rows = list(csv.DictReader(open(csv_path)))
    for name, ops in (("rwmix", ("read", "write")), ("write", ("write",))):
        ex = _phase(path, name)["exemplars"][()]
        want = sorted(int(e["duration_ns"]) for e in ex if e["op"].decode() in ops)
        got = sorted(int(float(r["x_ns"])) for r in rows if r["series"] == name and r["point"] == "exemplar")
        assert want and got == want, (name, got, want)


if __name__ == "__main__":
    sys.exit(dispatch({"exact": exact, "sized": sized, "same": same, "corrupt": corrupt, "csv": csv_out,
                       "ticks": ticks}, sys.argv))
