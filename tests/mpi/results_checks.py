"""The checks tests/mpi/test_results.sh makes on results files, with h5py
and numpy and, where it says so, the pfsbench package (from PYTHONPATH):

    results_checks.py CHECK ARGS...

Each check prints a line "PASS what" or "FAIL what (detail)" per thing it
checks (the script counts each line); the exit status is 0 unless the
check itself breaks. The one-line checks (runs_txt, old_csv) exit 1 instead.

  verify FILE RUN REPORT RANKS NODES BLOCK LABEL PR_TABLE PR_RAW_CSV PR_CSV THREADS FILES FILE_SIZE
                     the independent checker (nothing from pfs-results): every
                     figure of run RUN from its raw times, against the report
                     and pfs-results' table, --csv and --raw --csv
  three FILE         three runs into one file
  rows PR FILE       pfsbench.rows over the three-run file
  rows_threads PR FILE   the same over the 2 ranks x 2 threads run
  make_old FILE COPY     COPY is FILE as written before threads and metadata phases
  crash FILE RUN_ID      the crashed run left no trace
  concurrent FILE ID_A ID_B  both concurrent runs landed
  runs_txt RUNS      pfs-results --runs: labels first, second, third and command lines
  old_csv CSV        the old file's --csv: threads 1, kind data, ops and rate empty
  other FILE         (not a check) FILE is an HDF5 file of another program
"""
import csv
import math
import re
import shutil
import sys
import os
from typing import Any, Dict, List, Tuple

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from runs import dispatch, text as s  # noqa: E402

MIB = 1048576.0
META = ("create", "stat", "read-files", "delete")


def close(a: Any, b: Any, rel: float = 1e-12) -> bool:
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-300)


def said(ok: bool, what: str) -> None:
    print(("PASS" if ok else "FAIL"), what)


class Verify:
    """Timings are per stream: stream s = rank x THREADS + thread, on the node of
    its rank. Data phases are judged by bandwidth (MiB/s), metadata phases
    (create, stat, read-files, delete; FILES files per stream of FILE_SIZE
    bytes) by their rate in files/s."""

    def __init__(self, argv: Tuple[str, ...]) -> None:
        (self.path, run, self.report, ranks, nodes, block, self.label, self.pr_table, self.pr_raw, self.pr_csv,
         threads, files, fsize) = argv[:13]
        self.run, self.ranks, self.nodes, self.block = int(run), int(ranks), int(nodes), int(block)
        self.threads, self.files, self.fsize = int(threads), int(files), int(fsize)
        self.streams = self.ranks * self.threads
        self.fails = 0
        self.f = h5py.File(self.path, "r")
        self.g = self.f["runs/%06d" % self.run]
        with open(self.report) as r:
            self.rep_text = r.read()
        self.pl = self.g["placement"][()]
        summary = self.f["summary"][()]
        self.mine = summary[summary["run"] == self.run]
        self.by_key: Dict[Tuple[str, int], Any] = {(s(r["phase"]), int(r["rep"])): r for r in self.mine}
        self.printed: List[Tuple[str, ...]] = []
        self.printed_meta: List[Tuple[str, ...]] = []

    def check(self, ok: bool, what: str, detail: str = "") -> None:
        print(("PASS " if ok else "FAIL ") + "run %d: %s%s" % (self.run, what, "" if ok else " (%s)" % detail))
        self.fails += 0 if ok else 1

    def attributes(self) -> None:
        f, g, check = self.f, self.g, self.check
        ranks, nodes, threads, streams, files, fsize = \
            self.ranks, self.nodes, self.threads, self.streams, self.files, self.fsize
        check(s(f.attrs["format"]) == "pfsbench-results" and int(f.attrs["format_version"]) == 1,
              "root attributes format=pfsbench-results, format_version=1")
        check(s(g.attrs["run_id"]) in self.rep_text.split("\n")[0], "run_id %s is the report's" % s(g.attrs["run_id"]))
        check(s(g.attrs["status"]) == "complete", "status complete", s(g.attrs["status"]))
        check(int(g.attrs["ranks"]) == ranks and int(g.attrs["nodes"]) == nodes, "ranks %d, nodes %d" % (ranks, nodes),
              "%s %s" % (g.attrs["ranks"], g.attrs["nodes"]))
        check(int(g.attrs["threads"]) == threads and int(g.attrs["streams"]) == streams,
              "threads %d, streams %d = ranks x threads" % (threads, streams),
              "%s %s" % (g.attrs["threads"], g.attrs["streams"]))
        check(s(g.attrs["label"]) == self.label, "label %r" % self.label, s(g.attrs["label"]))
        check(re.search(r"^label +%s$" % re.escape(self.label), self.rep_text, re.M) is not None,
              "the report prints the label %r" % self.label)
        check("-o" in s(g.attrs["command_line"]) and int(g.attrs["block"]) == self.block,
              "command line and block stored")
        check(int(g.attrs["interrupt_signal"]) == 0 and float(g.attrs["timeout"]) == 0, "interrupt_signal 0, timeout 0")
        if files:
            check(int(g.attrs["files"]) == files and int(g.attrs["file_size"]) == fsize and
                  s(g.attrs["dirs"]) in ("shared", "per-rank") and s(g.attrs["order"]) in ("sequential", "random"),
                  "files %d, file_size %d, dirs and order stored" % (files, fsize))
        check(re.search(r"^results +%s /runs/%06d \(complete\)$" % (re.escape(self.path), self.run), self.rep_text,
                        re.M) is not None, "the report names /runs/%06d" % self.run)
        if threads > 1:
            check(re.search(r"^ranks +%d on .*, %d threads per rank: %d streams$" % (ranks, threads, streams),
                            self.rep_text, re.M) is not None,
                  "the report says %d threads per rank: %d streams" % (threads, streams))
        pl = self.pl
        check(len(pl) == ranks and list(pl["rank"]) == list(range(ranks)), "placement has one row per rank")
        check(len(set(pl["node"].tolist())) == nodes and len(set(pl["host"].tolist())) == nodes,
              "placement spans %d node(s)" % nodes, str(pl["host"]))

    def repetition(self, pg: Any, ph: str, meta: bool, k: int, tk: Any, stream_node: Any) -> None:
        """Raw per-stream times -> every derived figure of repetition k, independently."""
        check, streams, files, nodes = self.check, self.streams, self.files, self.nodes
        nbytes = int(tk["bytes"].sum())
        nops = int(tk["transfers"].sum())
        secs = float(tk["close_end"].max() - tk["open_start"].min())
        bw = nbytes / secs
        if meta:
            want_bytes = files * self.fsize * streams if ph in ("create", "read-files") else 0
            check(nops == files * streams == int(pg["ops"][k]) and (tk["transfers"] == files).all(),
                  "%s rep %d ops = files x streams = %d, %d per stream" % (ph, k, files * streams, files),
                  "%s %s" % (pg["ops"][k], tk["transfers"]))
            check(nbytes == want_bytes == int(pg["bytes"][k]), "%s rep %d bytes = %d" % (ph, k, want_bytes),
                  str(nbytes))
        else:
            check(nbytes == streams * self.block == int(pg["bytes"][k]), "%s rep %d bytes = streams x block" % (ph, k))
            check(nops == int(pg["ops"][k]), "%s rep %d ops = transfers of all streams" % (ph, k))
        check(close(pg["seconds"][k], secs) and close(pg["bandwidth"][k], bw),
              "%s rep %d bandwidth = bytes / (max close_end - min open_start)" % (ph, k),
              "%r vs %r" % (pg["bandwidth"][k], bw))
        check(close(pg["rate"][k], nops / secs) and close(pg["rate"][k], pg["ops"][k] / pg["seconds"][k]),
              "%s rep %d rate = ops / seconds" % (ph, k), "%r vs %r" % (pg["rate"][k], nops / secs))
        busy = float((tk["close_end"] - tk["open_start"]).sum())
        check(close(pg["utilization"][k], busy / (streams * secs), 1e-9),
              "%s rep %d utilization = busy / (streams x seconds)" % (ph, k))
        nb = pg["node_bytes"][k]
        ok_nodes = int(nb.sum()) == nbytes and len(nb) == nodes
        for n in range(nodes):
            sel = tk[stream_node == n]
            span = float(sel["close_end"].max() - sel["open_start"].min())
            ok_nodes &= int(sel["bytes"].sum()) == int(nb[n])
            ok_nodes &= close(pg["node_seconds"][k][n], span)
            ok_nodes &= close(pg["node_bandwidth"][k][n], int(nb[n]) / span)
            ok_nodes &= close(pg["node_rate"][k][n], int(sel["transfers"].sum()) / span)
        check(ok_nodes, "%s rep %d per-node bytes add up to %d, node spans and rates from the raw times of each "
              "node's streams" % (ph, k, nbytes), "%s" % nb)
        row = self.by_key.get((ph, k))
        check(row is not None and row["bandwidth"] == pg["bandwidth"][k] and int(row["bytes"]) == nbytes and
              int(row["ranks"]) == self.ranks and int(row["nodes"]) == nodes and s(row["label"]) == self.label and
              int(row["threads"]) == self.threads and int(row["ops"]) == nops and row["rate"] == pg["rate"][k],
              "%s rep %d summary row equals the phase data (threads, ops, rate too)" % (ph, k))

    def phases(self) -> None:
        g, check = self.g, self.check
        # A stream runs on its rank's node: rank = stream // threads.
        stream_node = self.pl["node"][np.arange(self.streams) // self.threads]
        for pname in sorted(g["phases"]):
            pg = g["phases"][pname]
            ph = s(pg.attrs["phase"])
            meta = ph in META
            reps = int(pg.attrs["repetitions"])
            check(s(pg.attrs["kind"]) == ("metadata" if meta else "data"), "%s kind %s" % (ph, s(pg.attrs["kind"])))
            t = pg["times"][()]
            check(t.shape == (reps, self.streams), "%s times is [rep][stream] %s" % (ph, (reps, self.streams)),
                  str(t.shape))
            for k in range(reps):
                self.repetition(pg, ph, meta, k, t[k], stream_node)
            stats = ("rate", pg["rate"][()]) if meta else ("bandwidth", pg["bandwidth"][()])
            v = stats[1]
            check(close(pg.attrs[stats[0] + "_mean"], v.mean()) and pg.attrs[stats[0] + "_min"] == v.min() and
                  pg.attrs[stats[0] + "_max"] == v.max() and
                  close(pg.attrs[stats[0] + "_median"], float(np.median(v))) and
                  (len(v) < 2 or close(pg.attrs[stats[0] + "_stddev"], float(np.std(v, ddof=1)), 1e-9)),
                  "%s %s_min/max/mean/median/stddev attributes" % (ph, stats[0]))
            check(meta == ("rate_mean" in pg.attrs), "%s: rate_* attributes only in a metadata phase" % ph)
        check(len(self.mine) == sum(int(g["phases"][p].attrs["repetitions"]) for p in g["phases"]),
              "summary rows of run %d: one per phase and repetition" % self.run, str(len(self.mine)))

    def report_rows(self) -> None:
        """The report as printed: every row's MiB/s, IOPS, seconds, util to its
        precision; metadata rows: files/s (no IOPS of their own), seconds, util."""
        check, rep_text, by_key = self.check, self.rep_text, self.by_key
        rowre = re.compile(r"^(write|rewrite|read|reread) +(\d+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+)  node ", re.M)
        self.printed = printed = rowre.findall(rep_text)
        metare = re.compile(r"^(create|stat|read-files|delete) +(\d+) +([\d.]+) +- +([\d.]+) +([\d.]+)  node .* "
                            r"files/s", re.M)
        self.printed_meta = printed_meta = metare.findall(rep_text)
        check(len(printed) + len(printed_meta) == len(self.mine), "the report has %d rows" % len(self.mine),
              "%d + %d" % (len(printed), len(printed_meta)))
        for ph, k, mibs, iops, secs, util in printed:
            r = by_key.get((ph, int(k)))
            if r is None:
                check(False, "report row %s %s in the file" % (ph, k))
                continue
            want: Tuple[str, ...] = ("%.2f" % (r["bandwidth"] / MIB), "%.1f" % r["rate"],
                                     "%.4f" % r["seconds"], "%.3f" % r["utilization"])
            check((mibs, iops, secs, util) == want, "printed %s %s: %s MiB/s %s IOPS %s s util %s = file's" %
                  (ph, k, mibs, iops, secs, util), "file: %s" % (want,))
        for ph, k, rate, secs, util in printed_meta:
            r = by_key.get((ph, int(k)))
            if r is None:
                check(False, "report row %s %s in the file" % (ph, k))
                continue
            want = ("%.1f" % r["rate"], "%.4f" % r["seconds"], "%.3f" % r["utilization"])
            check((rate, secs, util) == want,
                  "printed %s %s: %s files/s %s s util %s = file's" % (ph, k, rate, secs, util), "file: %s" % (want,))

    def report_summary(self) -> None:
        """The report's summary over repetitions against the stored statistics."""
        g, check = self.g, self.check
        sumre = re.compile(r"^(write|rewrite|read|reread|create|stat|read-files|delete) +(\d+) +([\d.]+) +[\d.]+% +"
                           r"([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +(\d+)$", re.M)
        nsum = 0
        for ph, n, mean, med, mn, mx, sd, _, nb in sumre.findall(self.rep_text):
            pg = [g["phases"][p] for p in g["phases"] if s(g["phases"][p].attrs["phase"]) == ph][0]
            meta = ph in META
            ok = int(n) == int(pg.attrs["repetitions"])
            for txt, key in ((mn, "min"), (mx, "max"), (mean, "mean"), (med, "median"), (sd, "stddev")):
                ok &= abs(float(txt) - (pg.attrs["rate_" + key] if meta else pg.attrs["bandwidth_" + key] / MIB)) \
                    <= 0.005 + 1e-9
            check(ok, "printed summary for %s (min max mean median stddev %s) = file's %s_* attributes" %
                  (ph, "files/s" if meta else "MiB/s", "rate" if meta else "bandwidth"))
            nsum += 1
        check(nsum == len(g["phases"]), "the report's summary has a line per phase", str(nsum))

    def pfs_results_table(self) -> None:
        """pfs-results' table, columns found by its header (cells are 2+ spaces
        apart): MiB/s for data phases, files/s for metadata phases, each = file's
        and = what pfsbench printed."""
        check, run = self.check, self.run
        prrows: Dict[Tuple[int, str, int], Dict[str, str]] = {}
        header = None
        with open(self.pr_table) as table:
            for line in table:
                if line.startswith("run "):
                    header = re.split(r" {2,}", line.strip())
                elif header and line.strip()[:1].isdigit():
                    w = dict(zip(header, re.split(r" {2,}", line.strip())))
                    prrows[(int(w["run"]), w["phase"], int(w["rep"]))] = w
        check(header is not None and "threads" in header and "MiB/s" in header and "files/s" in header,
              "pfs-results table has threads, MiB/s and files/s columns", str(header))
        ok = header is not None
        for (ph, k), r in self.by_key.items():
            w = prrows.get((run, ph, k), {})
            ok &= w.get("seconds") == "%.4f" % r["seconds"] and w.get("threads") == str(self.threads)
            if ph in META:
                ok &= w.get("MiB/s") == "-" and w.get("files/s") == "%.1f" % r["rate"]
            else:
                ok &= w.get("MiB/s") == "%.2f" % (r["bandwidth"] / MIB) and w.get("files/s") == "-"
        check(ok and len(self.by_key) > 0, "pfs-results table: threads, seconds and MiB/s (data) or files/s "
              "(metadata) of every row = file's")
        ok = all(prrows.get((run, ph, int(k)), {}).get("MiB/s") == mibs for ph, k, mibs, *_ in self.printed)
        check(ok, "pfs-results table MiB/s = the figures pfsbench printed")
        ok = all(prrows.get((run, ph, int(k)), {}).get("files/s") == rate for ph, k, rate, *_ in self.printed_meta)
        check(ok, "pfs-results table files/s = the figures pfsbench printed (%d metadata rows)" %
              len(self.printed_meta))

    def pfs_results_csv(self) -> None:
        """pfs-results --csv: threads, streams, kind, ops and rate of every row of this run."""
        with open(self.pr_csv) as c:
            crows = [x for x in csv.DictReader(c) if int(x["run"]) == self.run]
        ok = len(crows) == len(self.by_key)
        for x in crows:
            r = self.by_key.get((x["phase"], int(x["rep"])))
            ok &= r is not None and int(x["threads"]) == self.threads and int(x["streams"]) == self.streams and \
                x["kind"] == ("metadata" if x["phase"] in META else "data") and int(x["ops"]) == int(r["ops"]) and \
                float(x["rate_ops_per_s"]) == r["rate"] and float(x["bandwidth_bytes_per_s"]) == r["bandwidth"]
        self.check(ok, "pfs-results --csv: threads, streams, kind, ops, rate_ops_per_s of every row = file's")

    def pfs_results_raw(self) -> None:
        """pfs-results --raw --csv: the raw times round-trip, per stream, and give
        back the bandwidth and the rate."""
        g, check, streams, threads, pl = self.g, self.check, self.streams, self.threads, self.pl
        with open(self.pr_raw) as c:
            raw = list(csv.DictReader(c))
        check(len(raw) == sum(g["phases"][p]["times"].shape[0] * streams for p in g["phases"]),
              "pfs-results --raw: one line per phase, repetition and stream", str(len(raw)))
        ok = len(raw) > 0
        for x in raw:
            st, rk = int(x["stream"]), int(x["rank"])
            ok &= rk == st // threads and int(x["thread"]) == st % threads and int(x["node"]) == int(pl["node"][rk]) \
                and x["host"] == s(pl["host"][rk])
        check(ok, "pfs-results --raw: stream = rank x %d + thread; node and host are the rank's" % threads)
        ok = True
        for (ph, k), r in self.by_key.items():
            sel = [x for x in raw if x["phase"] == ph and int(x["rep"]) == k]
            b = sum(int(x["bytes"]) for x in sel)
            o = sum(int(x["transfers"]) for x in sel)
            span = max(float(x["close_end"]) for x in sel) - min(float(x["open_start"]) for x in sel)
            ok &= len(sel) == streams and sorted(int(x["stream"]) for x in sel) == list(range(streams))
            ok &= close(b / span, r["bandwidth"]) and close(o / span, r["rate"])
        check(ok, "pfs-results --raw times give back every stored bandwidth and rate")


def verify(*argv: str) -> None:
    v = Verify(argv)
    v.attributes()
    v.phases()
    v.report_rows()
    v.report_summary()
    v.pfs_results_table()
    v.pfs_results_csv()
    v.pfs_results_raw()


def three(path: str) -> None:
    f = h5py.File(path, "r")
    said(sorted(f["runs"]) == ["000001", "000002", "000003"], "three runs: groups 000001..000003")
    runs = f["summary"]["run"]
    said(list(runs) == [1] * 6 + [2] * 6 + [3] * 6, "three runs: 18 summary rows, 6 per run, in order")
    ids = [f["runs"][g].attrs["run_id"] for g in sorted(f["runs"])]
    said(len(set(ids)) == 3, "three runs: three distinct run ids")


def rows(pr: str, path: str) -> None:
    import pfsbench
    from pfsbench import damage, rows as m
    res = pfsbench.open(path)
    rs = m.summary_rows(res)
    ok = len(rs) == 18 and all(isinstance(r, dict) for r in rs) and rs[0]["label"] == "first" \
        and isinstance(rs[0]["bandwidth"], float) and abs(rs[0]["bandwidth_mib"] * 1048576 - rs[0]["bandwidth"]) < 1e-3
    said(ok, "rows.summary_rows() gives 18 dicts")
    runs = m.runs(res)
    said([r["run"] for r in runs] == [1, 2, 3] and runs[2]["label"] == "third", "runs() lists 3 runs")
    raw = m.raw_times(res.run(2))
    said(len(raw) == 2 and raw[0]["times"].shape == (3, 1), "raw_times(run 2): 2 phases, [3][1] times")
    said(all(k in r for r in rs for k in damage.SUMMARY_FIELDS) and rs[0]["threads"] == 1 and
         rs[0]["streams"] == rs[0]["ranks"] and rs[0]["kind"] == "data",
         "summary_rows(): every SUMMARY_FIELDS key; threads 1, streams = ranks, kind data")
    rr = m.raw_rows(res.run(3))
    said(len(rr) == 12 and all(r["stream"] == r["rank"] and r["thread"] == 0 for r in rr),
         "raw_rows(run 3): one thread per rank, stream = rank")


def rows_threads(pr: str, path: str) -> None:
    import pfsbench
    from pfsbench import reader, rows as m
    res = pfsbench.open(path)
    rs = m.summary_rows(res)
    meta = [r for r in rs if r["kind"] == "metadata"]
    ok = len(rs) == 18 and len(meta) == 12 and all(r["threads"] == 2 and r["streams"] == 4 for r in rs) \
        and all(r["ops"] == 200 and abs(r["rate"] * r["seconds"] - 200) < 1e-6 for r in meta) \
        and all(reader.is_metadata(r["phase"]) == (r["kind"] == "metadata") for r in rs)
    said(ok, "module, threads run: summary_rows() threads 2, streams 4, metadata ops 200, rate = ops/s")
    raw = m.raw_times(res.run(1))
    ok = len(raw) == 6 and all(p["times"].shape == (3, 4) and p["threads"] == 2 and p["streams"] == 4 for p in raw) \
        and [p["kind"] for p in raw] == ["data"] * 2 + ["metadata"] * 4 and all(len(p["rate"]) == 3 for p in raw)
    said(ok, "module, threads run: raw_times() [3][4] times, threads, streams, kind, rate")
    rr = m.raw_rows(res.run(1))
    ok = len(rr) == 6 * 3 * 4 and [(r["stream"], r["rank"], r["thread"]) for r in rr[:4]] == \
        [(0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 1, 1)]
    said(ok, "module, threads run: raw_rows() streams 0..3 = rank 0 thread 0..1, rank 1 thread 0..1")


def make_old(path: str, copy: str) -> None:
    shutil.copy(path, copy)
    with h5py.File(copy, "r+") as f:
        sm = f["summary"][()]
        keep = [n for n in sm.dtype.names if n not in ("threads", "ops", "rate")]
        old = np.zeros(len(sm), dtype=[(n, sm.dtype[n]) for n in keep])
        for n in keep:
            old[n] = sm[n]
        units = f["summary"].attrs["units"]
        del f["summary"]
        f.create_dataset("summary", data=old, maxshape=(None,), chunks=True).attrs["units"] = units
        for g in f["runs"].values():
            for a in ("threads", "streams", "files", "file_size", "dirs", "order", "timeout", "interrupt_signal"):
                del g.attrs[a]
            for pg in g["phases"].values():
                del pg.attrs["kind"]
                for d in ("ops", "rate", "node_rate"):
                    del pg[d]
    print("PASS made an old-style file")


def crash(path: str, crash_id: str) -> None:
    f = h5py.File(path, "r")
    ids = [f["runs"][g].attrs["run_id"] for g in f["runs"]]
    said(len(ids) == 3, "crash: h5py sees 3 runs")
    said(crash_id not in ids and crash_id.encode() not in [bytes(x) for x in f["summary"]["run_id"]],
         "crash: the crashed run is neither a group nor a summary row")
    said(len(f["summary"]) == 18, "crash: 18 summary rows, as before")


def concurrent(path: str, id_a: str, id_b: str) -> None:
    f = h5py.File(path, "r")
    ids = sorted(f["runs"][g].attrs["run_id"] for g in f["runs"])
    said(sorted(f["runs"]) == ["000001", "000002"], "concurrent: two groups")
    said(ids == sorted([id_a, id_b]), "concurrent: they are the two runs (%s)" % ", ".join(ids))
    sm = f["summary"]
    said(len(sm) == 8 and sorted(set(sm["run"].tolist())) == [1, 2], "concurrent: 8 summary rows")


def runs_txt(path: str) -> None:
    with open(path) as f:
        lines = f.read().split("\n")[1:4]
    sys.exit(not all(ln.split()[4] == x and "pfsbench" in ln for ln, x in zip(lines, ["first", "second", "third"])))


def old_csv(path: str) -> None:
    with open(path) as f:
        r = list(csv.DictReader(f))
    sys.exit(not (len(r) == 6 and all(x["threads"] == "1" and x["kind"] == "data" and x["ops"] == "" and
                                      x["rate_ops_per_s"] == "" for x in r)))


def other(path: str) -> None:
    h5py.File(path, "w").attrs["format"] = "h5bench"


if __name__ == "__main__":
    sys.exit(dispatch({"verify": verify, "three": three, "rows": rows, "rows_threads": rows_threads,
                       "make_old": make_old, "crash": crash, "concurrent": concurrent, "runs_txt": runs_txt,
                       "old_csv": old_csv, "other": other}, sys.argv))
