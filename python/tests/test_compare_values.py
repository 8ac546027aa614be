"""pfs-compare --value iops, p50, p99, p999, cpu: each cell is the file's
own figure (read here with h5py from the phase groups' datasets), with its
unit in the header; a file without the figure is refused."""
import csv
import io
import math

import h5py
import pytest

from pfsbench.cli import compare

LAT_FIELD = {"p50": "p50_ns", "p99": "p99_ns", "p999": "p999_ns"}


def _run(capsys, *args):
    rc = compare.main(list(args))
    out, err = capsys.readouterr()
    return rc, out, err


def _expected(path, run, value):
    """{(phase, rep): value} of run, from the phase groups with h5py: ops /
    seconds, latency_summary[rep][op] in ns, (cpu_user + cpu_sys) / (seconds
    x streams) x 100."""
    out = {}
    with h5py.File(path, "r") as f:
        g = f["runs"]["%06d" % run]
        streams = int(g.attrs["streams"])
        for name, pg in g["phases"].items():
            phase = name.split("_", 1)[1]
            for rep in range(pg["seconds"].shape[0]):
                sec = float(pg["seconds"][rep])
                if value == "iops":
                    v = float(pg["ops"][rep]) / sec
                elif value == "cpu":
                    v = (float(pg["cpu_user"][rep].sum()) + float(pg["cpu_sys"][rep].sum())) / (sec * streams) * 100
                else:
                    kinds = pg.attrs["latency_kinds"]
                    kinds = (kinds.decode() if isinstance(kinds, bytes) else kinds).split(",")
                    v = float(pg["latency_summary"][rep, kinds.index("op")][LAT_FIELD[value]])
                out[(phase, rep)] = v
    return out


@pytest.mark.parametrize("value,unit", [("iops", None), ("p50", "ns"), ("p99", "ns"), ("p999", "ns"),
                                        ("cpu", None)])
def test_values_are_the_files(files, capsys, value, unit):
    args = [files["new"], "--by", "rep", "--run", "1", "--value", value, "--format", "csv"]
    rc, out, err = _run(capsys, *(args + (["--units", unit] if unit else [])))
    assert rc == 0, err
    want = _expected(files["new"], 1, value)
    lines = list(csv.reader(io.StringIO(out)))
    head = lines[0]
    if value == "iops":  # data and metadata phases: a unit column
        assert head[:2] == ["phase", "unit"] and head[2:] == ["rep 0", "rep 1", "mean"]
        units = {ln[0]: ln[1] for ln in lines[1:]}
        assert units == {"write": "ops/s", "read": "ops/s", "create": "files/s", "stat": "files/s"}
        body = {ln[0]: ln[2:] for ln in lines[1:]}
    else:
        u = {"cpu": "%"}.get(value, unit)
        assert head == ["phase", "rep 0 [%s]" % u, "rep 1 [%s]" % u, "mean [%s]" % u]
        body = {ln[0]: ln[1:] for ln in lines[1:]}
    assert sorted(body) == ["create", "read", "stat", "write"]
    for phase, cells in body.items():
        for rep in (0, 1):
            assert float(cells[rep]) == pytest.approx(want[(phase, rep)], rel=1e-12), (phase, rep)
        assert float(cells[2]) == pytest.approx((want[(phase, 0)] + want[(phase, 1)]) / 2, rel=1e-12)
        assert all(float(c) > 0 for c in cells)


def test_latency_unit_in_header(files, capsys):
    """The text table says its unit: the one asked for, or the largest in
    which the smallest cell is at least 1."""
    rc, out, err = _run(capsys, files["new"], "--run", "1", "--value", "p99", "--units", "ms")
    assert rc == 0, err
    assert out.startswith("p99 latency of the phase's own operation (latency_summary, op), mean over "
                          "repetitions, in ms;")
    assert out.splitlines()[1].startswith("[ms] phase \\ label")
    rc, out, err = _run(capsys, files["new"], "--run", "1", "--value", "p50", "--format", "csv")
    assert rc == 0, err
    unit = out.splitlines()[0].split("[")[1].rstrip("]")
    want = _expected(files["new"], 1, "p50")
    cells = [float(ln.split(",")[1]) for ln in out.splitlines()[1:]]
    assert unit in ("ns", "us", "ms", "s") and min(cells) >= 1
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}[unit]
    if unit != "s":
        bigger = {"ns": 1e3, "us": 1e6, "ms": 1e9}[unit]
        assert min(want.values()) < bigger  # the next unit up would make a cell < 1
    got = dict(zip([ln.split(",")[0] for ln in out.splitlines()[1:]], cells))
    for phase, v in got.items():
        mean = (want[(phase, 0)] + want[(phase, 1)]) / 2 / scale
        assert math.isclose(v, mean, rel_tol=1e-12)


def test_refused_where_the_file_lacks_it(files, capsys):
    """A file without CPU times or latencies: one clear line, exit 2, no table."""
    for value, what in (("cpu", "holds no CPU times"), ("p99", "holds no latencies")):
        rc, out, err = _run(capsys, files["old"], "--value", value)
        assert rc == 2 and out == ""
        assert err.startswith("pfs-compare: error: --value %s: " % value) and what in err, err
        assert err.count("\n") == 1
    rc, out, err = _run(capsys, files["new"], "--value", "cpu", "--units", "GiB")
    assert rc == 2 and out == "" and "--value cpu is always in percent" in err
    rc, out, err = _run(capsys, files["new"], "--value", "p99", "--units", "MiB")
    assert rc == 2 and out == "" and "a latency is in ns, us, ms or s" in err
