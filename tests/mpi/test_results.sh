#!/bin/bash
# The HDF5 results file from real runs: what pfsbench prints equals what it
# stored, the stored bandwidth equals the raw per-rank times it came from,
# runs accumulate, a crash while writing loses nothing, concurrent runs both
# land, and a bad -o path is refused before any I/O. The file is read back
# with scripts/pfs-results and, independently, with h5py and h5dump.
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
PR=$SRC/scripts/pfs-results
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
"""verify.py FILE RUN REPORT RANKS NODES BLOCK LABEL PR_TABLE PR_RAW_CSV"""
import csv, math, re, sys
import h5py, numpy as np

MIB = 1048576.0
path, run, report, ranks, nodes, block, label, pr_table, pr_raw = sys.argv[1:10]
run, ranks, nodes, block = int(run), int(ranks), int(nodes), int(block)
fails = 0


def check(ok, what, detail=""):
    global fails
    print(("PASS " if ok else "FAIL ") + "run %d: %s%s" % (run, what, "" if ok else " (%s)" % detail))
    fails += 0 if ok else 1


def s(v):
    return v.decode() if isinstance(v, bytes) else str(v)


f = h5py.File(path, "r")
check(s(f.attrs["format"]) == "pfsbench-results" and int(f.attrs["format_version"]) == 1,
      "root attributes format=pfsbench-results, format_version=1")
g = f["runs/%06d" % run]
rep_text = open(report).read()
check(s(g.attrs["run_id"]) in rep_text.split("\n")[0], "run_id %s is the report's" % s(g.attrs["run_id"]))
check(s(g.attrs["status"]) == "complete", "status complete", s(g.attrs["status"]))
check(int(g.attrs["ranks"]) == ranks and int(g.attrs["nodes"]) == nodes, "ranks %d, nodes %d" % (ranks, nodes),
      "%s %s" % (g.attrs["ranks"], g.attrs["nodes"]))
check(s(g.attrs["label"]) == label, "label %r" % label, s(g.attrs["label"]))
check("-o" in s(g.attrs["command_line"]) and int(g.attrs["block"]) == block, "command line and block stored")
check(re.search(r"^results +%s /runs/%06d \(complete\)$" % (re.escape(path), run), rep_text, re.M) is not None,
      "the report names /runs/%06d" % run)

pl = g["placement"][()]
check(len(pl) == ranks and list(pl["rank"]) == list(range(ranks)), "placement has one row per rank")
check(len(set(pl["node"].tolist())) == nodes and len(set(pl["host"].tolist())) == nodes,
      "placement spans %d node(s)" % nodes, str(pl["host"]))

summary = f["summary"][()]
mine = summary[summary["run"] == run]
by_key = {(s(r["phase"]), int(r["rep"])): r for r in mine}

# Raw per-rank times -> every derived figure, independently.
nphases = 0
for pname in sorted(g["phases"]):
    pg = g["phases"][pname]
    ph = s(pg.attrs["phase"])
    reps = int(pg.attrs["repetitions"])
    nphases += 1
    t = pg["times"][()]
    check(t.shape == (reps, ranks), "%s times is [rep][rank] %s" % (ph, (reps, ranks)), str(t.shape))
    for k in range(reps):
        tk = t[k]
        nbytes = int(tk["bytes"].sum())
        secs = float(tk["close_end"].max() - tk["open_start"].min())
        bw = nbytes / secs
        check(nbytes == ranks * block == int(pg["bytes"][k]), "%s rep %d bytes = ranks x block" % (ph, k))
        check(math.isclose(pg["seconds"][k], secs, rel_tol=1e-12) and
              math.isclose(pg["bandwidth"][k], bw, rel_tol=1e-12),
              "%s rep %d bandwidth = bytes / (max close_end - min open_start)" % (ph, k),
              "%r vs %r" % (pg["bandwidth"][k], bw))
        busy = float((tk["close_end"] - tk["open_start"]).sum())
        check(math.isclose(pg["utilization"][k], busy / (ranks * secs), rel_tol=1e-9),
              "%s rep %d utilization = busy / (ranks x seconds)" % (ph, k))
        nb = pg["node_bytes"][k]
        ok_nodes = int(nb.sum()) == nbytes and len(nb) == nodes
        for n in range(nodes):
            sel = tk[pl["node"] == n]
            span = float(sel["close_end"].max() - sel["open_start"].min())
            ok_nodes &= int(sel["bytes"].sum()) == int(nb[n])
            ok_nodes &= math.isclose(pg["node_seconds"][k][n], span, rel_tol=1e-12)
            ok_nodes &= math.isclose(pg["node_bandwidth"][k][n], int(nb[n]) / span, rel_tol=1e-12)
        check(ok_nodes, "%s rep %d per-node bytes add up to %d, node spans from raw times" % (ph, k, nbytes),
              "%s" % nb)
        row = by_key.get((ph, k))
        check(row is not None and row["bandwidth"] == pg["bandwidth"][k] and int(row["bytes"]) == nbytes and
              int(row["ranks"]) == ranks and int(row["nodes"]) == nodes and s(row["label"]) == label,
              "%s rep %d summary row equals the phase data" % (ph, k))
    bws = pg["bandwidth"][()]
    check(math.isclose(pg.attrs["bandwidth_mean"], bws.mean(), rel_tol=1e-12) and
          pg.attrs["bandwidth_min"] == bws.min() and pg.attrs["bandwidth_max"] == bws.max() and
          math.isclose(pg.attrs["bandwidth_median"], float(np.median(bws)), rel_tol=1e-12),
          "%s bandwidth_min/max/mean/median attributes" % ph)

check(len(mine) == sum(int(g["phases"][p].attrs["repetitions"]) for p in g["phases"]),
      "summary rows of run %d: one per phase and repetition" % run, str(len(mine)))

# The report as printed: every row's MiB/s, KB/s, seconds, util to its precision.
rowre = re.compile(r"^(write|rewrite|read|reread) +(\d+) +([\d.]+) +(\d+) +([\d.]+) +([\d.]+)  node ", re.M)
printed = rowre.findall(rep_text)
check(len(printed) == len(mine), "the report has %d rows" % len(mine), str(len(printed)))
for ph, k, mibs, kbs, secs, util in printed:
    r = by_key.get((ph, int(k)))
    if r is None:
        check(False, "report row %s %s in the file" % (ph, k))
        continue
    want = ("%.2f" % (r["bandwidth"] / MIB), "%.0f" % (r["bandwidth"] / 1024), "%.4f" % r["seconds"],
            "%.3f" % r["utilization"])
    check((mibs, kbs, secs, util) == want, "printed %s %s: %s MiB/s %s KB/s %s s util %s = file's" %
          (ph, k, mibs, kbs, secs, util), "file: %s" % (want,))
# The report's summary over repetitions against the stored statistics.
sumre = re.compile(r"^(write|rewrite|read|reread) +(\d+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +([\d.]+) +"
                   r"([\d.]+) +(\d+)$", re.M)
for ph, n, mn, mx, mean, med, sd, _, nb in sumre.findall(rep_text):
    pg = [g["phases"][p] for p in g["phases"] if s(g["phases"][p].attrs["phase"]) == ph][0]
    ok = int(n) == int(pg.attrs["repetitions"])
    for txt, key in ((mn, "min"), (mx, "max"), (mean, "mean"), (med, "median"), (sd, "stddev")):
        ok &= abs(float(txt) - pg.attrs["bandwidth_" + key] / MIB) <= 0.005 + 1e-9
    check(ok, "printed summary for %s (min max mean median stddev MiB/s) = file's bandwidth_* attributes" % ph)

# pfs-results' table: its MiB/s figures are the file's, to the same precision.
prrows = {}
for line in open(pr_table):
    w = line.split()
    if len(w) == 16 and w[0].isdigit():
        prrows[(int(w[0]), w[3], int(w[4]))] = w
ok = True
for (ph, k), r in by_key.items():
    w = prrows.get((run, ph, k))
    ok &= w is not None and w[13] == "%.2f" % (r["bandwidth"] / MIB) and w[12] == "%.4f" % r["seconds"]
check(ok and len(by_key) > 0, "pfs-results table: MiB/s and seconds of every row = file's")
ok = all(w[13] == mibs for ph, k, mibs, *_ in printed for w in [prrows.get((run, ph, int(k)), [""] * 16)])
check(ok, "pfs-results table MiB/s = the figures pfsbench printed")

# pfs-results --raw --csv: the raw times round-trip, and give back the bandwidth.
raw = list(csv.DictReader(open(pr_raw)))
check(len(raw) == sum(g["phases"][p]["times"].shape[0] * ranks for p in g["phases"]),
      "pfs-results --raw: one line per phase, repetition and rank", str(len(raw)))
ok = True
for (ph, k), r in by_key.items():
    sel = [x for x in raw if x["phase"] == ph and int(x["rep"]) == k]
    b = sum(int(x["bytes"]) for x in sel)
    span = max(float(x["close_end"]) for x in sel) - min(float(x["open_start"]) for x in sel)
    ok &= len(sel) == ranks and math.isclose(b / span, r["bandwidth"], rel_tol=1e-12)
check(ok, "pfs-results --raw times give back every stored bandwidth")
sys.exit(0)
EOF

# run_and_read NP FILE LABEL RUN NODES [extra pfsbench args]: one real run, then every check above.
run_and_read() {
    local np=$1 file=$2 label=$3 run=$4 nodes=$5
    shift 5
    if [ "$nodes" -gt 1 ]; then
        RC=0
        fakenodes_run "$nodes" $((np / nodes)) 60 "$PFSBENCH" -d "$D" -t 256k -b 1m -p write,read -i 3 \
            -o "$file" --label "$label" "$@" >"$T/out" 2>"$T/err" || RC=$?
    else
        run_mpi "$np" 60 -d "$D" -t 256k -b 1m -p write,read -i 3 -o "$file" --label "$label" "$@"
    fi
    check "$label: exit 0" [ "$RC" -eq 0 ]
    cp "$T/out" "$T/report.$label"
    "$PR" "$file" >"$T/pr.$label" 2>&1
    check "$label: pfs-results exits 0" [ $? -eq 0 ]
    "$PR" "$file" --run "$run" --raw --csv >"$T/raw.$label" 2>&1
    check "$label: pfs-results --run $run --raw --csv exits 0" [ $? -eq 0 ]
    pycheck "$T/verify.py" "$file" "$run" "$T/report.$label" "$np" "$nodes" 1048576 "$label" \
        "$T/pr.$label" "$T/raw.$label"
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
check "four: pfs-results table shows ranks 4 and nodes $NODES4" \
    grep -qE "^ +1 +four +complete +write +0 +4 +$NODES4 " "$T/pr.four"

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

# ---- pfs-results as a module ----
pycheck /dev/stdin "$PR" "$F3" <<'EOF'
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("pfs_results", sys.argv[1])
spec = importlib.util.spec_from_loader("pfs_results", loader)
m = importlib.util.module_from_spec(spec)
loader.exec_module(m)
rows = m.summary_rows(sys.argv[2])
ok = len(rows) == 18 and all(isinstance(r, dict) for r in rows) and rows[0]["label"] == "first" \
    and isinstance(rows[0]["bandwidth"], float) and abs(rows[0]["bandwidth_mib"] * 1048576 - rows[0]["bandwidth"]) < 1e-3
print(("PASS" if ok else "FAIL"), "pfs-results imports as a module; summary_rows() gives 18 dicts")
runs = m.runs(sys.argv[2])
print(("PASS" if [r["run"] for r in runs] == [1, 2, 3] and runs[2]["label"] == "third" else "FAIL"), "runs() lists 3 runs")
raw = m.raw_times(sys.argv[2], 2)
print(("PASS" if len(raw) == 2 and raw[0]["times"].shape == (3, 1) else "FAIL"), "raw_times(run 2): 2 phases, [3][1] times")
EOF

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
mkdir -p "$E" "$T/adir"
echo "some notes" >"$T/notes.txt"
"$PY" -c 'import h5py,sys; h5py.File(sys.argv[1], "w").attrs["format"] = "h5bench"' "$T/other.h5"
cp "$T/notes.txt" "$T/notes.orig"
cp "$T/other.h5" "$T/other.orig"
for bad in "$T/adir" "$T/notes.txt" "$T/other.h5" "$T/no/such/dir/r.h5" /proc/self/r.h5; do
    run_mpi 2 30 -d "$E" -t 256k -b 1m -p write,read -o "$bad"
    check "bad -o $bad: exit 2" [ "$RC" -eq 2 ]
    check "bad -o $bad: the error names the path" grep -qF "$bad" "$T/err"
    check "bad -o $bad: no data file made" [ -z "$(ls -A "$E")" ]
    check "bad -o $bad: no measurement printed" not grep -qE '^(write|read) +[0-9]+ ' "$T/out"
done
check "bad -o: the text file is untouched" cmp -s "$T/notes.txt" "$T/notes.orig"
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
