"""check_ior_shape.py ior|mdtest STDOUT RESULTS: the stdout of `pfsbench
ior` (--format ior) or `pfsbench mdtest` (--format mdtest) has IOR's or
mdtest's line shapes, and its numbers are the last run's in results file
RESULTS (read with h5py) within the printed rounding.

Shape: every line a grep or IO500's scripts read is re-printed from the
numbers parsed out of it with IOR's and mdtest's own printf formats
(IOR's 10-wide fields with 6, 2 or 0 decimals, the summary's %10.2f ...
%9.1f %3s %6d; mdtest's %14.3f) and must come out byte for byte the same.
Prints what it checked.
"""
import re
import sys

import h5py
import numpy as np
import numpy.typing as npt

MIB = 1048576.0
Arr = npt.NDArray[np.float64]
IOR_RESULTS_HEAD = ("access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)"
                    "   total(s)   iter")
IOR_RESULTS_RULE = ("------    ---------  ----       ----------  ---------- ---------  --------   --------   --------"
                    "   --------   ----")
IOR_SUMMARY_HEAD = ("Operation   Max(MiB)   Min(MiB)  Mean(MiB)     StdDev   Max(OPs)   Min(OPs)  Mean(OPs)     StdDev"
                    "    Mean(s) Stonewall(s) Stonewall(MiB) Test# #Tasks tPN reps fPP reord reordoff reordrand seed"
                    " segcnt   blksiz    xsize aggs(MiB)   API RefNum")
MD_HEAD = "   Operation                      Max            Min           Mean        Std Dev"
MD_RULE = "   ---------                      ---            ---           ----        -------"


def text(v: object) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def phases(results: str) -> dict[str, dict[str, Arr]]:
    """The last run's phases: name -> its per-repetition arrays."""
    out: dict[str, dict[str, Arr]] = {}
    with h5py.File(results, "r") as f:
        run = f["runs"][sorted(f["runs"])[-1]]
        assert text(run.attrs["status"]) == "complete", run.attrs["status"]
        for pg in run["phases"].values():
            figs = {k: np.asarray(pg[k][()], dtype=float) for k in ("bandwidth", "rate", "seconds")}
            figs.update(ior_parts(pg["times"][()]))
            figs.update(ior_stonewall(pg["times"][()]))
            out[text(pg.attrs["phase"])] = figs
    return out


def ior_parts(times: npt.NDArray[np.void]) -> dict[str, Arr]:
    """IOR's open(s), wr/rd(s) and close(s) of each repetition from the streams' times ([rep][stream]): each
    part's latest end minus its earliest start over the streams (IOR's ReduceIterResults); and its IOPS."""
    def span(start: str, end: str) -> Arr:
        return np.asarray(times[end].max(axis=1) - times[start].min(axis=1), dtype=float)
    parts = {"open": span("open_start", "open_end"), "wrrd": span("open_end", "xfer_end"),
             "close": span("xfer_end", "close_end")}
    # IOR's IOPS: every stream's transfers over the wr/rd part (its accessTime), not over total(s).
    ops = np.asarray(times["transfers"].sum(axis=1), dtype=float)
    parts["iops"] = np.divide(ops, parts["wrrd"], out=np.zeros_like(ops), where=parts["wrrd"] > 0)
    return parts


def ior_stonewall(times: npt.NDArray[np.void]) -> dict[str, Arr]:
    """Each repetition's stonewall from the streams' times ([rep][stream]), as pfs_phase_reduce takes it:
    the seconds from the first open to the last stream's stop (a stream that ended before it: its close),
    and the bytes every stream had done then; both 0 where no stream stopped at it."""
    secs, nbytes = [], []
    for row in times:
        stopped = row["stonewall_end"] > 0
        end = max([float(row["stonewall_end"].max())] + [float(x) for x in row["close_end"][~stopped]])
        s = end - float(row["open_start"].min()) if stopped.any() else 0.0
        hit = s > 0 and int(row["stonewall_transfers"].sum()) > 0
        secs.append(s if hit else 0.0)
        nbytes.append(float(row["stonewall_bytes"].sum()) if hit else 0.0)
    return {"sw_seconds": np.asarray(secs, dtype=float), "sw_bytes": np.asarray(nbytes, dtype=float)}


def near(got: float, want: float, decimals: int, what: str) -> None:
    """got was printed with decimals places: within half a unit of the last one (and a relative 1e-9)."""
    tol = 0.5 * 10.0 ** -decimals + 1e-9 * abs(want)
    assert abs(got - want) <= tol, "%s: printed %r, the results file has %r" % (what, got, want)


def pp(v: float) -> str:
    """IOR's 10-wide left-justified number: 6 decimals below 1, 2 below 3600, else none."""
    return "%-10.*f" % (6 if v < 1 else 2 if v < 3600 else 0, v)


def decimals(v: float) -> int:
    return 6 if v < 1 else 2 if v < 3600 else 0


def ior_field(s: str) -> float:
    return -1.0 if s.strip() == "-" else float(s)


def ior_results(lines: list[str], ph: dict[str, dict[str, Arr]], block: int, xfer: int) -> int:
    i = lines.index("Results: ")
    assert lines[i + 1] == "" and lines[i + 2] == IOR_RESULTS_HEAD and lines[i + 3] == IOR_RESULTS_RULE, lines[i:i + 4]
    rows = [ln for ln in lines[i + 4:] if ln[:10] in ("write     ", "read      ") and ln[10:11].isdigit()]
    reps = len(ph["write"]["bandwidth"])
    want_order = [(p, r) for r in range(reps) for p in ("write", "read")]
    assert len(rows) == len(want_order), rows
    for ln, (p, rep) in zip(rows, want_order):
        f = [ln[10:20], ln[21:31], ln[32:42], ln[44:54], ln[55:65], ln[66:76], ln[77:87], ln[88:98], ln[99:109]]
        v = [ior_field(x) for x in f]
        it = int(ln[110:])
        seps = [ln[20], ln[31], ln[42:44], ln[54], ln[65], ln[76], ln[87], ln[98], ln[109]]
        again = "%-10s" % p + "".join((pp(x) if x >= 0 else "   -      ") + s for x, s in zip(v, seps)) + "%-4d" % it
        assert again == ln, "IOR's shape:\n%r\n%r" % (ln, again)
        assert ln.split()[0] == p and it == rep, (ln, p, rep)
        near(v[0], ph[p]["bandwidth"][rep] / MIB, decimals(v[0]), "%s rep %d bw(MiB/s)" % (p, rep))
        near(v[1], ph[p]["iops"][rep], decimals(v[1]), "%s rep %d IOPS" % (p, rep))
        near(v[3], block / 1024, decimals(v[3]), "block(KiB)")
        near(v[4], xfer / 1024, decimals(v[4]), "xfer(KiB)")
        for x, part in zip(v[5:8], ("open", "wrrd", "close")):
            near(x, ph[p][part][rep], decimals(x), "%s rep %d %s(s)" % (p, rep, part))
        near(v[8], ph[p]["seconds"][rep], decimals(v[8]), "%s rep %d total(s)" % (p, rep))
    return len(rows)


def ior_max(lines: list[str], ph: dict[str, dict[str, Arr]]) -> None:
    for p, key in (("write", "Max Write: "), ("read", "Max Read:  ")):
        got = [ln for ln in lines if ln.startswith(key)]
        assert len(got) == 1, (key, got)
        m = re.fullmatch(re.escape(key) + r"(\d+\.\d\d) MiB/sec \((\d+\.\d\d) MB/sec\)", got[0])
        assert m, got[0]
        near(float(m.group(1)), float(ph[p]["bandwidth"].max()) / MIB, 2, key + "MiB/sec")
        near(float(m.group(2)), float(ph[p]["bandwidth"].max()) / 1e6, 2, key + "MB/sec")


def sample_sd(v: Arr) -> float:
    return float(np.std(v, ddof=1)) if len(v) > 1 else 0.0


def ior_summary(lines: list[str], ph: dict[str, dict[str, Arr]], ntasks: int, block: int, xfer: int) -> None:
    i = lines.index("Summary of all tests:")
    assert lines[i + 1] == IOR_SUMMARY_HEAD, lines[i + 1]
    assert len(IOR_SUMMARY_HEAD.split()) == 27
    for p, ln in zip(("write", "read"), lines[i + 2:i + 4]):
        t = ln.split()
        assert len(t) == 27 and t[0] == p, ln
        x = [float(v) for v in t[1:10]]
        ints = [int(v) for v in t[12:22]]
        sw = (float(t[10]), float(t[11])) if t[10] != "NA" else None
        again = ("%-9s " % p + "".join("%10.2f " % v for v in x[:8]) + "%10.5f " % x[8]
                 + ("%10.2f %13.2f " % sw if sw else "%10s %13s " % ("NA", "NA"))
                 + "%5d %6d %3d %4d %3d %5d %8d %9d %4d %6d " % tuple(ints)
                 + "%8d %8d %9.1f %3s %6d" % (int(t[22]), int(t[23]), float(t[24]), t[25], int(t[26])))
        assert again == ln, "IOR's shape:\n%r\n%r" % (ln, again)
        bw, rate, sec = ph[p]["bandwidth"], ph[p]["rate"], ph[p]["seconds"]
        for got, want, what in zip(x, [bw.max() / MIB, bw.min() / MIB, bw.mean() / MIB, sample_sd(bw) / MIB,
                                       rate.max(), rate.min(), rate.mean(), sample_sd(rate), sec.mean()],
                                   ["Max(MiB)", "Min(MiB)", "Mean(MiB)", "StdDev", "Max(OPs)", "Min(OPs)",
                                    "Mean(OPs)", "StdDev(OPs)", "Mean(s)"]):
            near(got, float(want), 5 if what == "Mean(s)" else 2, "%s %s" % (p, what))
        ior_summary_stonewall(p, sw, ph[p]["sw_seconds"], ph[p]["sw_bytes"], ntasks)
        assert ints[1] == ntasks and ints[3] == len(bw), (ln, ntasks)
        assert int(t[22]) == block and int(t[23]) == xfer and t[25] == "POSIX", ln


def ior_summary_stonewall(p: str, sw: tuple[float, float] | None, secs: Arr, nbytes: Arr, ntasks: int) -> None:
    """IOR's Stonewall(s) and Stonewall(MiB) (its PrintLongSummaryOneOperation): over the repetitions the
    stonewall stopped, the mean seconds to it and the mean task's MiB by then over the seconds summed; NA
    when it stopped none."""
    hit = secs > 0
    if not hit.any():
        assert sw is None, "%s: Stonewall columns %r, but no repetition was stopped" % (p, sw)
        return
    assert sw is not None, "%s: Stonewall columns NA, but %d repetitions were stopped" % (p, int(hit.sum()))
    near(sw[0], float(secs[hit].mean()), 2, "%s Stonewall(s)" % p)
    near(sw[1], float(nbytes[hit].sum()) / ntasks / float(secs[hit].sum()) / MIB, 2, "%s Stonewall(MiB)" % p)


def md_tables(lines: list[str], ph: dict[str, dict[str, Arr]]) -> int:
    names = {"File creation": "create", "File stat": "stat", "File read": "read-files", "File removal": "delete",
             "Tree creation": None, "Tree removal": None}
    reps = len(ph["create"]["rate"])
    n = 0
    for kind, key in (("rate", "rate"), ("time", "seconds")):
        i = lines.index("SUMMARY %s: (of %d iterations)" % (kind, reps))
        assert lines[i - 1] == "" and lines[i + 1] == MD_HEAD and lines[i + 2] == MD_RULE, lines[i - 1:i + 3]
        rows = lines[i + 3:i + 3 + len(names)]
        for ln, (name, p) in zip(rows, names.items()):
            m = re.fullmatch(r"   (.{26}):((?: +\d+\.\d{3}){4})", ln)
            assert m and m.group(1).rstrip() == name, (ln, name)
            v = [float(x) for x in m.group(2).split()]
            again = "   %-26s:" % name + "".join(" %14.3f" % x for x in v)
            assert again == ln, "mdtest's shape:\n%r\n%r" % (ln, again)
            a = ph[p][key] if p else np.zeros(1)
            for got, want, what in zip(v, [a.max(), a.min(), a.mean(), sample_sd(a)], ["Max", "Min", "Mean", "Std Dev"]):
                near(got, float(want), 3, "%s %s %s" % (kind, name, what))
            n += 1
    return n


def main() -> int:
    kind, stdout, results = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(stdout, encoding="utf-8") as f:
        lines = f.read().split("\n")
    ph = phases(results)
    if kind == "ior":
        ntasks, block, xfer = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
        n = ior_results(lines, ph, block, xfer)
        ior_max(lines, ph)
        ior_summary(lines, ph, ntasks, block, xfer)
        stopped = [p for p in ("write", "read") if (ph[p]["sw_seconds"] > 0).any()]
        print("IOR shape: %d Results rows, Max Write/Read, 2 summary lines (stonewall numbers: %s); numbers as in %s"
              % (n, ",".join(stopped) or "none", results))
    else:
        n = md_tables(lines, ph)
        print("mdtest shape: %d SUMMARY rows (rate and time); numbers as in %s" % (n, results))
    assert not re.search(r"\b(nan|inf)\b", "\n".join(lines)), "a number printed as nan or inf"
    return 0


if __name__ == "__main__":
    sys.exit(main())
