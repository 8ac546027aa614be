#!/bin/bash
# The HDF5 results file from real runs: what pfsbench prints equals what it
# stored, the stored bandwidth equals the raw per-rank times it came from,
# runs accumulate, a crash while writing loses nothing, concurrent runs both
# land, and a bad -o path is refused before any I/O. The file is read back
# with pfs-results and, independently, with h5py and h5dump.
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
PR=$(dirname "$PFSBENCH")/pfs-results
export PYTHONPATH=$SRC/python  # the package, for the checks below
D=$T/data
mkdir -p "$D"
ulimit -c 0 # the crash test aborts rank 0: no core file in the build tree

MPIRUN_BASE=(mpirun --oversubscribe --bind-to none)

# pycheck SCRIPT ARGS...: runs a Python check that prints "PASS what" or
# "FAIL what" lines; each line counts as one check.
pycheck() {
    local line
    while IFS= read -r line; do
        case $line in
            PASS\ *) ok "${line#PASS }" ;;
            FAIL\ *) FAILS=$((FAILS + 1)); echo "FAIL - ${line#FAIL }" ;;
            *) echo "    $line" ;;
        esac
    done < <("$PY" "$@" 2>&1 || echo "FAIL python check $1 exited non-zero")
}

run_id_in() { sed -n 's/^pfsbench [^ ]*  run \([^ ]*\)  .*/\1/p' "$1" | head -1; }

# ---- the independent checker (h5py, numpy; nothing from pfs-results) ----
cat >"$T/verify.py" <<'EOF'
"""verify.py FILE RUN REPORT RANKS NODES BLOCK LABEL PR_TABLE PR_RAW_CSV PR_CSV THREADS FILES FILE_SIZE

Timings are per stream: stream s = rank x THREADS + thread, on the node of
its rank. Data phases are judged by bandwidth (MiB/s), metadata phases
(create, stat, read-files, delete; FILES files per stream of FILE_SIZE
bytes) by their rate in files/s."""
import csv, math, re, sys
import h5py, numpy as np

MIB = 1048576.0
META = ("create", "stat", "read-files", "delete")
path, run, report, ranks, nodes, block, label, pr_table, pr_raw, pr_csv, threads, files, fsize = sys.argv[1:14]
run, ranks, nodes, block, threads, files, fsize = int(run), int(ranks), int(nodes), int(block), int(threads), \
    int(files), int(fsize)
streams = ranks * threads
fails = 0


def check(ok, what, detail=""):
    global fails
    print(("PASS " if ok else "FAIL ") + "run %d: %s%s" % (run, what, "" if ok else " (%s)" % detail))
    fails += 0 if ok else 1


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def close(a, b, rel=1e-12):
    return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=1e-300)


f = h5py.File(path, "r")
check(s(f.attrs["format"]) == "pfsbench-results" and int(f.attrs["format_version"]) == 1,
      "root attributes format=pfsbench-results, format_version=1")
g = f["runs/%06d" % run]
rep_text = open(report).read()
check(s(g.attrs["run_id"]) in rep_text.split("\n")[0], "run_id %s is the report's" % s(g.attrs["run_id"]))
check(s(g.attrs["status"]) == "complete", "status complete", s(g.attrs["status"]))
check(int(g.attrs["ranks"]) == ranks and int(g.attrs["nodes"]) == nodes, "ranks %d, nodes %d" % (ranks, nodes),
      "%s %s" % (g.attrs["ranks"], g.attrs["nodes"]))
check(int(g.attrs["threads"]) == threads and int(g.attrs["streams"]) == streams,
      "threads %d, streams %d = ranks x threads" % (threads, streams),
      "%s %s" % (g.attrs["threads"], g.attrs["streams"]))
check(s(g.attrs["label"]) == label, "label %r" % label, s(g.attrs["label"]))
check("-o" in s(g.attrs["command_line"]) and int(g.attrs["block"]) == block, "command line and block stored")
check(int(g.attrs["interrupt_signal"]) == 0 and float(g.attrs["timeout"]) == 0, "interrupt_signal 0, timeout 0")
if files:
    check(int(g.attrs["files"]) == files and int(g.attrs["file_size"]) == fsize and
          s(g.attrs["dirs"]) in ("shared", "per-rank") and s(g.attrs["order"]) in ("sequential", "random"),
          "files %d, file_size %d, dirs and order stored" % (files, fsize))
check(re.search(r"^results +%s /runs/%06d \(complete\)$" % (re.escape(path), run), rep_text, re.M) is not None,
      "the report names /runs/%06d" % run)
if threads > 1:
    check(re.search(r"^ranks +%d on .*, %d threads per rank: %d streams$" % (ranks, threads, streams), rep_text,
                    re.M) is not None, "the report says %d threads per rank: %d streams" % (threads, streams))

pl = g["placement"][()]
check(len(pl) == ranks and list(pl["rank"]) == list(range(ranks)), "placement has one row per rank")
check(len(set(pl["node"].tolist())) == nodes and len(set(pl["host"].tolist())) == nodes,
      "placement spans %d node(s)" % nodes, str(pl["host"]))
# A stream runs on its rank's node: rank = stream // threads.
stream_node = pl["node"][np.arange(streams) // threads]

summary = f["summary"][()]
mine = summary[summary["run"] == run]
by_key = {(s(r["phase"]), int(r["rep"])): r for r in mine}
kinds = {}

# Raw per-stream times -> every derived figure, independently.
for pname in sorted(g["phases"]):
    pg = g["phases"][pname]
    ph = s(pg.attrs["phase"])
    meta = ph in META
    kinds[ph] = meta
    reps = int(pg.attrs["repetitions"])
    check(s(pg.attrs["kind"]) == ("metadata" if meta else "data"), "%s kind %s" % (ph, s(pg.attrs["kind"])))
    t = pg["times"][()]
    check(t.shape == (reps, streams), "%s times is [rep][stream] %s" % (ph, (reps, streams)), str(t.shape))
    for k in range(reps):
        tk = t[k]
        nbytes = int(tk["bytes"].sum())
        nops = int(tk["transfers"].sum())
        secs = float(tk["close_end"].max() - tk["open_start"].min())
        bw = nbytes / secs
        if meta:
            want_bytes = files * fsize * streams if ph in ("create", "read-files") else 0
            check(nops == files * streams == int(pg["ops"][k]) and (tk["transfers"] == files).all(),
                  "%s rep %d ops = files x streams = %d, %d per stream" % (ph, k, files * streams, files),
                  "%s %s" % (pg["ops"][k], tk["transfers"]))
            check(nbytes == want_bytes == int(pg["bytes"][k]), "%s rep %d bytes = %d" % (ph, k, want_bytes),
                  str(nbytes))
        else:
            check(nbytes == streams * block == int(pg["bytes"][k]), "%s rep %d bytes = streams x block" % (ph, k))
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
        row = by_key.get((ph, k))
        check(row is not None and row["bandwidth"] == pg["bandwidth"][k] and int(row["bytes"]) == nbytes and
              int(row["ranks"]) == ranks and int(row["nodes"]) == nodes and s(row["label"]) == label and
              int(row["threads"]) == threads and int(row["ops"]) == nops and row["rate"] == pg["rate"][k],
              "%s rep %d summary row equals the phase data (threads, ops, rate too)" % (ph, k))
    stats = ("rate", pg["rate"][()]) if meta else ("bandwidth", pg["bandwidth"][()])
    v = stats[1]
    check(close(pg.attrs[stats[0] + "_mean"], v.mean()) and pg.attrs[stats[0] + "_min"] == v.min() and
          pg.attrs[stats[0] + "_max"] == v.max() and close(pg.attrs[stats[0] + "_median"], float(np.median(v))) and
          (len(v) < 2 or close(pg.attrs[stats[0] + "_stddev"], float(np.std(v, ddof=1)), 1e-9)),
          "%s %s_min/max/mean/median/stddev attributes" % (ph, stats[0]))
    check(meta == ("rate_mean" in pg.attrs), "%s: rate_* attributes only in a metadata phase" % ph)

check(len(mine) == sum(int(g["phases"][p].attrs["repetitions"]) for p in g["phases"]),
      "summary rows of run %d: one per phase and repetition" % run, str(len(mine)))

# The report as printed: every row's MiB/s, KB/s, seconds, util to its
# precision; metadata rows: files/s, seconds, util.
rowre = re.compile(r"^(write|rewrite|read|reread) +(\d+) +([\d.]+) +(\d+) +([\d.]+) +([\d.]+)  node ", re.M)
printed = rowre.findall(rep_text)
metare = re.compile(r"^(create|stat|read-files|delete) +(\d+) +([\d.]+) +files/s +([\d.]+) +([\d.]+)  node .* "
                    r"files/s", re.M)
printed_meta = metare.findall(rep_text)
check(len(printed) + len(printed_meta) == len(mine), "the report has %d rows" % len(mine),
      "%d + %d" % (len(printed), len(printed_meta)))
for ph, k, mibs, kbs, secs, util in printed:
    r = by_key.get((ph, int(k)))
    if r is None:
        check(False, "report row %s %s in the file" % (ph, k))
        continue
    want = ("%.2f" % (r["bandwidth"] / MIB), "%.0f" % (r["bandwidth"] / 1024), "%.4f" % r["seconds"],
            "%.3f" % r["utilization"])
    check((mibs, kbs, secs, util) == want, "printed %s %s: %s MiB/s %s KB/s %s s util %s = file's" %
          (ph, k, mibs, kbs, secs, util), "file: %s" % (want,))
for ph, k, rate, secs, util in printed_meta:
    r = by_key.get((ph, int(k)))
    if r is None:
        check(False, "report row %s %s in the file" % (ph, k))
        continue
    want = ("%.1f" % r["rate"], "%.4f" % r["seconds"], "%.3f" % r["utilization"])
    check((rate, secs, util) == want, "printed %s %s: %s files/s %s s util %s = file's" % (ph, k, rate, secs, util),
          "file: %s" % (want,))
# The report's summary over repetitions against the stored statistics.
sumre = re.compile(r"^(write|rewrite|read|reread|create|stat|read-files|delete) +(\d+) +([\d.]+) +([\d.]+) +"
                   r"([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +(\d+)$", re.M)
nsum = 0
for ph, n, mn, mx, mean, med, sd, _, nb in sumre.findall(rep_text):
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

# pfs-results' table, columns found by its header (cells are 2+ spaces
# apart): MiB/s for data phases, files/s for metadata phases, each = file's
# and = what pfsbench printed.
prrows = {}
header = None
for line in open(pr_table):
    if line.startswith("run "):
        header = re.split(r" {2,}", line.strip())
    elif header and line.strip()[:1].isdigit():
        w = dict(zip(header, re.split(r" {2,}", line.strip())))
        prrows[(int(w["run"]), w["phase"], int(w["rep"]))] = w
check(header is not None and "threads" in header and "MiB/s" in header and "files/s" in header,
      "pfs-results table has threads, MiB/s and files/s columns", str(header))
ok = header is not None
for (ph, k), r in by_key.items():
    w = prrows.get((run, ph, k), {})
    ok &= w.get("seconds") == "%.4f" % r["seconds"] and w.get("threads") == str(threads)
    if ph in META:
        ok &= w.get("MiB/s") == "-" and w.get("files/s") == "%.1f" % r["rate"]
    else:
        ok &= w.get("MiB/s") == "%.2f" % (r["bandwidth"] / MIB) and w.get("files/s") == "-"
check(ok and len(by_key) > 0, "pfs-results table: threads, seconds and MiB/s (data) or files/s (metadata) of every "
      "row = file's")
ok = all(prrows.get((run, ph, int(k)), {}).get("MiB/s") == mibs for ph, k, mibs, *_ in printed)
check(ok, "pfs-results table MiB/s = the figures pfsbench printed")
ok = all(prrows.get((run, ph, int(k)), {}).get("files/s") == rate for ph, k, rate, *_ in printed_meta)
check(ok, "pfs-results table files/s = the figures pfsbench printed (%d metadata rows)" % len(printed_meta))

# pfs-results --csv: threads, streams, kind, ops and rate of every row of this run.
crows = [x for x in csv.DictReader(open(pr_csv)) if int(x["run"]) == run]
ok = len(crows) == len(by_key)
for x in crows:
    r = by_key.get((x["phase"], int(x["rep"])))
    ok &= r is not None and int(x["threads"]) == threads and int(x["streams"]) == streams and \
        x["kind"] == ("metadata" if x["phase"] in META else "data") and int(x["ops"]) == int(r["ops"]) and \
        float(x["rate_ops_per_s"]) == r["rate"] and float(x["bandwidth_bytes_per_s"]) == r["bandwidth"]
check(ok, "pfs-results --csv: threads, streams, kind, ops, rate_ops_per_s of every row = file's")

# pfs-results --raw --csv: the raw times round-trip, per stream, and give
# back the bandwidth and the rate.
raw = list(csv.DictReader(open(pr_raw)))
check(len(raw) == sum(g["phases"][p]["times"].shape[0] * streams for p in g["phases"]),
      "pfs-results --raw: one line per phase, repetition and stream", str(len(raw)))
ok = len(raw) > 0
for x in raw:
    st, rk = int(x["stream"]), int(x["rank"])
    ok &= rk == st // threads and int(x["thread"]) == st % threads and int(x["node"]) == int(pl["node"][rk]) \
        and x["host"] == s(pl["host"][rk])
check(ok, "pfs-results --raw: stream = rank x %d + thread; node and host are the rank's" % threads)
ok = True
for (ph, k), r in by_key.items():
    sel = [x for x in raw if x["phase"] == ph and int(x["rep"]) == k]
    b = sum(int(x["bytes"]) for x in sel)
    o = sum(int(x["transfers"]) for x in sel)
    span = max(float(x["close_end"]) for x in sel) - min(float(x["open_start"]) for x in sel)
    ok &= len(sel) == streams and sorted(int(x["stream"]) for x in sel) == list(range(streams))
    ok &= close(b / span, r["bandwidth"]) and close(o / span, r["rate"])
check(ok, "pfs-results --raw times give back every stored bandwidth and rate")
sys.exit(0)
EOF

# run_and_read NP FILE LABEL RUN NODES [extra pfsbench args]: one real run, then every check above.
# RR_PHASES (default write,read), RR_THREADS (1), RR_FILES (0: no -n) and
# RR_FILE_SIZE (0) change the run.
run_and_read() {
    local np=$1 file=$2 label=$3 run=$4 nodes=$5
    shift 5
    local phases=${RR_PHASES:-write,read} threads=${RR_THREADS:-1} files=${RR_FILES:-0} fsize=${RR_FILE_SIZE:-0}
    local args=(-d "$D" -t 256k -b 1m -p "$phases" -i 3 -o "$file" --label "$label")
    [ "$threads" -gt 1 ] && args+=(--threads "$threads")
    [ "$files" -gt 0 ] && args+=(-n "$files" --file-size "$fsize")
    if [ "$nodes" -gt 1 ]; then
        RC=0
        fakenodes_run "$nodes" $((np / nodes)) 60 "$PFSBENCH" "${args[@]}" "$@" >"$T/out" 2>"$T/err" || RC=$?
    else
        run_mpi "$np" 60 "${args[@]}" "$@"
    fi
    check "$label: exit 0" [ "$RC" -eq 0 ]
    cp "$T/out" "$T/report.$label"
    "$PR" "$file" >"$T/pr.$label" 2>&1
    check "$label: pfs-results exits 0" [ $? -eq 0 ]
    "$PR" "$file" --csv >"$T/csv.$label" 2>&1
    check "$label: pfs-results --csv exits 0" [ $? -eq 0 ]
    "$PR" "$file" --run "$run" --raw --csv >"$T/raw.$label" 2>&1
    check "$label: pfs-results --run $run --raw --csv exits 0" [ $? -eq 0 ]
    "$PR" "$file" --run "$run" --raw >"$T/rawtable.$label" 2>&1
    check "$label: pfs-results --run $run --raw exits 0" [ $? -eq 0 ]
    pycheck "$T/verify.py" "$file" "$run" "$T/report.$label" "$np" "$nodes" 1048576 "$label" \
        "$T/pr.$label" "$T/raw.$label" "$T/csv.$label" "$threads" "$files" "$fsize"
    check "$label: no data files left" [ -z "$(ls -A "$D")" ]
}

# ---- 1 rank, then 4 ranks (2 fake nodes x 2 when this machine can fake nodes) ----
run_and_read 1 "$T/one.h5" one 1 1

NODES4=1
if [ -f "$SRC/tests/lib/fakenodes.sh" ] && unshare --uts true 2>/dev/null; then
    . "$SRC/tests/lib/fakenodes.sh"
    FAKENODES_DIR=$T
    NODES4=2
else
    echo "# fake nodes unavailable (needs tests/lib/fakenodes.sh and root): 4 ranks on one node"
fi
run_and_read 4 "$T/four.h5" four 1 $NODES4
check "four: pfs-results table shows ranks 4, threads 1 and nodes $NODES4" \
    grep -qE "^ +1 +four +complete +write +0 +4 +1 +$NODES4 " "$T/pr.four"

# ---- 2 ranks x 2 threads (one rank on each of 2 fake nodes when possible),
# data and metadata phases: timings per stream, files/s for metadata ----
RR_THREADS=2 RR_FILES=50 RR_FILE_SIZE=4096 RR_PHASES=write,read,create,stat,read-files,delete \
    run_and_read 2 "$T/threads.h5" threads 1 $NODES4
check "threads: pfs-results table shows ranks 2, threads 2 and nodes $NODES4" \
    grep -qE "^ +1 +threads +complete +write +0 +2 +2 +$NODES4 " "$T/pr.threads"
check "threads: pfs-results shows metadata rows in files/s, MiB/s -" \
    grep -qE "^ +1 +threads +complete +create +0 +2 +2 .* - +[0-9]+\.[0-9] +[0-9.]+ +- +no$" "$T/pr.threads"
check "threads: the table's legend explains files/s" grep -q "files/s = files created, stat'ed, read or deleted" \
    "$T/pr.threads"
check "threads: pfs-results --raw labels columns stream, rank, thread" \
    grep -qE "^phase +rep +stream +rank +thread +node +host " "$T/rawtable.threads"
"$PR" "$T/threads.h5" --runs >"$T/runs.threads"
check "threads: pfs-results --runs shows 2 ranks, 2 threads" grep -qE "^ +1 .* threads +2 +$NODES4 +2 " \
    "$T/runs.threads"

# ---- three runs into one file ----
F3=$T/three.h5
run_and_read 2 "$F3" first 1 1
"$PR" "$F3" --run 1 --csv >"$T/run1.before"
run_and_read 1 "$F3" second 2 1
run_and_read 2 "$F3" third 3 1
"$PR" "$F3" --run 1 --csv >"$T/run1.after"
check "three runs: run 1 unchanged by later runs" cmp -s "$T/run1.before" "$T/run1.after"
"$PR" "$F3" --runs >"$T/runs.txt"
check "three runs: pfs-results --runs lists 3 runs" [ "$(grep -cE '^ +[123] ' "$T/runs.txt")" -eq 3 ]
check "three runs: --runs shows labels and command lines in order" \
    "$PY" -c 'import sys; L=open(sys.argv[1]).read().split("\n")[1:4]; sys.exit(not all(l.split()[4]==x and "pfsbench" in l for l,x in zip(L,["first","second","third"])))' "$T/runs.txt"
pycheck /dev/stdin "$F3" <<'EOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
print(("PASS" if sorted(f["runs"]) == ["000001", "000002", "000003"] else "FAIL"), "three runs: groups 000001..000003")
runs = f["summary"]["run"]
print(("PASS" if list(runs) == [1] * 6 + [2] * 6 + [3] * 6 else "FAIL"), "three runs: 18 summary rows, 6 per run, in order")
ids = [f["runs"][g].attrs["run_id"] for g in sorted(f["runs"])]
print(("PASS" if len(set(ids)) == 3 else "FAIL"), "three runs: three distinct run ids")
EOF
check "three runs: h5dump reads the file" sh -c "h5dump -H '$F3' >/dev/null"

# ---- the views pfs-results prints (pfsbench.rows over pfsbench.open) ----
pycheck /dev/stdin "$PR" "$F3" <<'EOF'
import sys
import pfsbench
from pfsbench import damage, reader, rows as m
res = pfsbench.open(sys.argv[2])
rows = m.summary_rows(res)
ok = len(rows) == 18 and all(isinstance(r, dict) for r in rows) and rows[0]["label"] == "first" \
    and isinstance(rows[0]["bandwidth"], float) and abs(rows[0]["bandwidth_mib"] * 1048576 - rows[0]["bandwidth"]) < 1e-3
print(("PASS" if ok else "FAIL"), "rows.summary_rows() gives 18 dicts")
runs = m.runs(res)
print(("PASS" if [r["run"] for r in runs] == [1, 2, 3] and runs[2]["label"] == "third" else "FAIL"), "runs() lists 3 runs")
raw = m.raw_times(res.run(2))
print(("PASS" if len(raw) == 2 and raw[0]["times"].shape == (3, 1) else "FAIL"), "raw_times(run 2): 2 phases, [3][1] times")
print(("PASS" if all(k in r for r in rows for k in damage.SUMMARY_FIELDS) and rows[0]["threads"] == 1 and
       rows[0]["streams"] == rows[0]["ranks"] and rows[0]["kind"] == "data" else "FAIL"),
      "summary_rows(): every SUMMARY_FIELDS key; threads 1, streams = ranks, kind data")
rr = m.raw_rows(res.run(3))
print(("PASS" if len(rr) == 12 and all(r["stream"] == r["rank"] and r["thread"] == 0 for r in rr) else "FAIL"),
      "raw_rows(run 3): one thread per rank, stream = rank")
EOF
pycheck /dev/stdin "$PR" "$T/threads.h5" <<'EOF'
import sys
import pfsbench
from pfsbench import damage, reader, rows as m
res = pfsbench.open(sys.argv[2])
rows = m.summary_rows(res)
meta = [r for r in rows if r["kind"] == "metadata"]
ok = len(rows) == 18 and len(meta) == 12 and all(r["threads"] == 2 and r["streams"] == 4 for r in rows) \
    and all(r["ops"] == 200 and abs(r["rate"] * r["seconds"] - 200) < 1e-6 for r in meta) \
    and all(reader.is_metadata(r["phase"]) == (r["kind"] == "metadata") for r in rows)
print(("PASS" if ok else "FAIL"), "module, threads run: summary_rows() threads 2, streams 4, metadata ops 200, rate = ops/s")
raw = m.raw_times(res.run(1))
ok = len(raw) == 6 and all(p["times"].shape == (3, 4) and p["threads"] == 2 and p["streams"] == 4 for p in raw) \
    and [p["kind"] for p in raw] == ["data"] * 2 + ["metadata"] * 4 and all(len(p["rate"]) == 3 for p in raw)
print(("PASS" if ok else "FAIL"), "module, threads run: raw_times() [3][4] times, threads, streams, kind, rate")
rr = m.raw_rows(res.run(1))
ok = len(rr) == 6 * 3 * 4 and [(r["stream"], r["rank"], r["thread"]) for r in rr[:4]] == \
    [(0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 1, 1)]
print(("PASS" if ok else "FAIL"), "module, threads run: raw_rows() streams 0..3 = rank 0 thread 0..1, rank 1 thread 0..1")
EOF

# ---- a file written before threads and metadata phases: no threads, ops,
# rate in /summary, no threads/streams attributes, no ops/rate datasets ----
pycheck /dev/stdin "$T/four.h5" "$T/old.h5" <<'EOF'
import shutil, sys
import h5py, numpy as np
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:
    s = f["summary"][()]
    keep = [n for n in s.dtype.names if n not in ("threads", "ops", "rate")]
    old = np.zeros(len(s), dtype=[(n, s.dtype[n]) for n in keep])
    for n in keep:
        old[n] = s[n]
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
EOF
"$PR" "$T/old.h5" >"$T/pr.old" 2>&1
check "old file: pfs-results exits 0" [ $? -eq 0 ]
check "old file: the table equals the new file's (threads 1)" cmp -s "$T/pr.old" "$T/pr.four"
"$PR" "$T/old.h5" --csv >"$T/csv.old" 2>&1
check "old file: pfs-results --csv exits 0" [ $? -eq 0 ]
check "old file: --csv has threads 1, kind data, ops and rate empty" \
    "$PY" -c 'import csv,sys; r=list(csv.DictReader(open(sys.argv[1]))); sys.exit(not (len(r) == 6 and all(x["threads"] == "1" and x["kind"] == "data" and x["ops"] == "" and x["rate_ops_per_s"] == "" for x in r)))' "$T/csv.old"
"$PR" "$T/old.h5" --run 1 --raw --csv >"$T/raw.old" 2>&1
check "old file: --raw --csv equals the new file's" cmp -s "$T/raw.old" "$T/raw.four"

# ---- crash while writing the results: the file keeps every earlier run, and no partial one ----
sum_before=$(sha256sum <"$F3")
RC=0
timeout 60 "${MPIRUN_BASE[@]}" -np 2 -x PFSBENCH_TEST_CRASH_IN_RESULTS=1 "$PFSBENCH" -d "$D" -t 256k -b 1m \
    -p write,read -o "$F3" --label crash >"$T/out" 2>"$T/err" || RC=$?
crash_id=$(run_id_in "$T/out")
check "crash: pfsbench dies (status $RC)" [ "$RC" -ne 0 -a "$RC" -ne 2 -a "$RC" -ne 124 ]
check "crash: rank 0 died of abort() in the results writer" grep -q "signal 6" "$T/err"
check "crash: it got as far as measuring (run id $crash_id)" [ -n "$crash_id" ]
check "crash: the results file is byte for byte what it was" [ "$(sha256sum <"$F3")" = "$sum_before" ]
check "crash: h5dump opens the file" sh -c "h5dump -H '$F3' >/dev/null"
"$PR" "$F3" --runs >"$T/runs.txt" 2>&1
check "crash: pfs-results --runs still lists the 3 earlier runs" [ "$(grep -cE '^ +[0-9]+ ' "$T/runs.txt")" -eq 3 ]
pycheck /dev/stdin "$F3" "$crash_id" <<'EOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
ids = [f["runs"][g].attrs["run_id"] for g in f["runs"]]
print(("PASS" if len(ids) == 3 else "FAIL"), "crash: h5py sees 3 runs")
print(("PASS" if sys.argv[2] not in ids and sys.argv[2].encode() not in [bytes(x) for x in f["summary"]["run_id"]] else "FAIL"),
      "crash: the crashed run is neither a group nor a summary row")
print(("PASS" if len(f["summary"]) == 18 else "FAIL"), "crash: 18 summary rows, as before")
EOF
# A crash on the very first run into a new name leaves no results file at all.
RC=0
timeout 60 "${MPIRUN_BASE[@]}" -np 1 -x PFSBENCH_TEST_CRASH_IN_RESULTS=1 "$PFSBENCH" -d "$D" -t 256k -b 1m \
    -p write -o "$T/new.h5" >"$T/out" 2>"$T/err" || RC=$?
check "crash on a new file: pfsbench dies" grep -q "signal 6" "$T/err"
check "crash on a new file: no results file appears" [ ! -e "$T/new.h5" ]
check "crash: its temporary copy is left beside the file" [ "$(ls -A "$T" | grep -c '^\.three\.h5\.tmp\.')" -ge 1 ]
run_mpi 1 60 -d "$D" -t 256k -b 1m -p write -o "$F3" --label after-crash
check "after the crash: the next run lands as /runs/000004" grep -q "^results .* /runs/000004 (complete)" "$T/out"
check "after the crash: the next run removed the dead writer's copy" [ "$(ls -A "$T" | grep -c '^\.three\.h5\.tmp\.')" -eq 0 ]

# ---- two runs started at the same moment into one file: both land ----
FC=$T/concurrent.h5
mkdir -p "$D/a" "$D/b"
for x in a b; do
    (timeout 60 "${MPIRUN_BASE[@]}" -np 2 "$PFSBENCH" -d "$D/$x" -t 256k -b 1m -p write,read -i 2 -o "$FC" \
        --label "conc-$x" >"$T/out.$x" 2>"$T/err.$x"; echo $? >"$T/rc.$x") &
done
wait
for x in a b; do
    check "concurrent $x: exit 0" [ "$(cat "$T/rc.$x")" = 0 ]
    check "concurrent $x: results line" grep -qE "^results .* /runs/00000[12] \(complete\)" "$T/out.$x"
done
pycheck /dev/stdin "$FC" "$(run_id_in "$T/out.a")" "$(run_id_in "$T/out.b")" <<'EOF'
import sys, h5py
f = h5py.File(sys.argv[1], "r")
ids = sorted(f["runs"][g].attrs["run_id"] for g in f["runs"])
print(("PASS" if sorted(f["runs"]) == ["000001", "000002"] else "FAIL"), "concurrent: two groups")
print(("PASS" if ids == sorted(sys.argv[2:4]) else "FAIL"), "concurrent: they are the two runs (%s)" % ", ".join(ids))
s = f["summary"]
print(("PASS" if len(s) == 8 and sorted(set(s["run"].tolist())) == [1, 2] else "FAIL"), "concurrent: 8 summary rows")
EOF
check "concurrent: no temporary copies left" [ -z "$(ls -A "$T" | grep '^\.concurrent\.h5\.tmp\.')" ]

# ---- bad results paths: exit 2 before any I/O, no data file made ----
E=$T/empty
mkdir -p "$E" "$T/adir" "$T/adir.h5"
echo "some notes" >"$T/notes.txt"
echo "some notes" >"$T/notes.h5"
"$PY" -c 'import h5py,sys; h5py.File(sys.argv[1], "w").attrs["format"] = "h5bench"' "$T/other.h5"
cp "$T/notes.txt" "$T/notes.orig"
cp "$T/notes.h5" "$T/notes-h5.orig"
cp "$T/other.h5" "$T/other.orig"
# (adir and notes.txt fail the name check, .h5 names the checks of what is there)
for bad in "$T/adir" "$T/notes.txt" "$T/adir.h5" "$T/notes.h5" "$T/other.h5" "$T/no/such/dir/r.h5" /proc/self/r.h5; do
    run_mpi 2 30 -d "$E" -t 256k -b 1m -p write,read -o "$bad"
    check "bad -o $bad: exit 2" [ "$RC" -eq 2 ]
    check "bad -o $bad: the error names the path" grep -qF "$bad" "$T/err"
    check "bad -o $bad: no data file made" [ -z "$(ls -A "$E")" ]
    check "bad -o $bad: no measurement printed" not grep -qE '^(write|read) +[0-9]+ ' "$T/out"
done
check "bad -o: the text file is untouched" cmp -s "$T/notes.txt" "$T/notes.orig"
check "bad -o: the text file named .h5 is untouched" cmp -s "$T/notes.h5" "$T/notes-h5.orig"
check "bad -o: the other HDF5 file is untouched" cmp -s "$T/other.h5" "$T/other.orig"
check "bad -o: the missing directory was not made" [ ! -e "$T/no" ]
check "bad -o: nothing new beside the text file" [ -z "$(ls -A "$T" | grep -E '^\.(notes|other)')" ]

# ---- pfs-results refuses what is not a results file, with exit 2 ----
for bad in "$T/notes.txt" "$T/other.h5" "$T/adir" "$T/missing.h5"; do
    RC=0
    "$PR" "$bad" >"$T/out" 2>"$T/err" || RC=$?
    check "pfs-results $bad: exit 2" [ "$RC" -eq 2 ]
    check "pfs-results $bad: says it is not a pfsbench results file" \
        grep -qE "not a pfsbench results file|not an HDF5 file|does not exist|is a directory" "$T/err"
done
RC=0
"$PR" "$F3" --run 99 >"$T/out" 2>"$T/err" || RC=$?
check "pfs-results --run 99: exit 2, no such run" [ "$RC" -eq 2 ]

finish
