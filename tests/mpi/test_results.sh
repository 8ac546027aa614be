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

# run_and_read NP FILE LABEL RUN NODES [extra pfsbench args]: one real run, then every check of
# results_checks.py verify (the independent checker: h5py, numpy; nothing from pfs-results).
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
    pycheck "$PFS_TESTMPI/results_checks.py" verify "$file" "$run" "$T/report.$label" "$np" "$nodes" 1048576 "$label" \
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
    "$PY" "$PFS_TESTMPI/results_checks.py" runs_txt "$T/runs.txt"
pycheck "$PFS_TESTMPI/results_checks.py" three "$F3"
check "three runs: h5dump reads the file" sh -c "h5dump -H '$F3' >/dev/null"

# ---- the views pfs-results prints (pfsbench.rows over pfsbench.open) ----
pycheck "$PFS_TESTMPI/results_checks.py" rows "$PR" "$F3"
pycheck "$PFS_TESTMPI/results_checks.py" rows_threads "$PR" "$T/threads.h5"

# ---- a file written before threads and metadata phases: no threads, ops,
# rate in /summary, no threads/streams attributes, no ops/rate datasets ----
pycheck "$PFS_TESTMPI/results_checks.py" make_old "$T/four.h5" "$T/old.h5"
"$PR" "$T/old.h5" >"$T/pr.old" 2>&1
check "old file: pfs-results exits 0" [ $? -eq 0 ]
check "old file: the table equals the new file's (threads 1)" cmp -s "$T/pr.old" "$T/pr.four"
"$PR" "$T/old.h5" --csv >"$T/csv.old" 2>&1
check "old file: pfs-results --csv exits 0" [ $? -eq 0 ]
check "old file: --csv has threads 1, kind data, ops and rate empty" \
    "$PY" "$PFS_TESTMPI/results_checks.py" old_csv "$T/csv.old"
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
pycheck "$PFS_TESTMPI/results_checks.py" crash "$F3" "$crash_id"
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
pycheck "$PFS_TESTMPI/results_checks.py" concurrent "$FC" "$(run_id_in "$T/out.a")" "$(run_id_in "$T/out.b")"
check "concurrent: no temporary copies left" [ -z "$(ls -A "$T" | grep '^\.concurrent\.h5\.tmp\.')" ]

# ---- bad results paths: exit 2 before any I/O, no data file made ----
E=$T/empty
mkdir -p "$E" "$T/adir" "$T/adir.h5"
echo "some notes" >"$T/notes.txt"
echo "some notes" >"$T/notes.h5"
"$PY" "$PFS_TESTMPI/results_checks.py" other "$T/other.h5"
cp "$T/notes.txt" "$T/notes.orig"
cp "$T/notes.h5" "$T/notes-h5.orig"
cp "$T/other.h5" "$T/other.orig"
# (adir and notes.txt fail the name check, .h5 names the checks of what is there)
for bad in "$T/adir" "$T/notes.txt" "$T/adir.h5" "$T/notes.h5" "$T/other.h5" "$T/no/such/dir/r.h5" /proc/self/r.h5; do
    run_refused 2 30 -d "$E" -t 256k -b 1m -p write,read -o "$bad"
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
