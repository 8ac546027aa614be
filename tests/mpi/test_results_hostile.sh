#!/bin/bash
# Issue 25, items 4 and 5: results files edited with h5py, made from a real
# one by tests/mpi/hostile_results.py. Each file that cannot take a new run
# (attributes as arrays or of other types, /summary contiguous or of a fixed
# size or of other field types, /runs not a group, ...) is refused before
# the benchmark: exit 2 with its reason, no crash, no data file, the file
# byte for byte, nothing new beside it (no lock file). Each that can (a run
# group deleted, an older or wider /summary, the repair results-format.md
# gives) takes the run as the largest number in use + 1, its old rows kept.
# Item 8: a run refused with exit 2 after the results check leaves no
# results lock file behind. Item 7: the lock file names its holder (host,
# pid, run id), and a run waiting for the lock says so every 30 s, naming it.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
ulimit -c 0
ARGS=(-t 64k -b 256k -p write)
mkdir -p "$T/d0" "$T/corpus"
says_once() { [ "$(grep -c 'pfsbench: error' "$T/err")" -eq 1 ] && grep -qF -- "$1" "$T/err"; }

# ---- a real file with runs 000001 and 000002, and the corpus made from it ----
run_mpi 1 60 -d "$T/d0" "${ARGS[@]}" -o "$T/base.h5" --label one </dev/null
run_mpi 1 60 -d "$T/d0" "${ARGS[@]}" -o "$T/base.h5" --label two </dev/null
check "base: two runs recorded" grep -q "results .*/runs/000002 (complete)" "$T/out"
if ! "$PY" "$HERE/hostile_results.py" make "$T/base.h5" "$T/corpus" >"$T/cases" 2>"$T/py"; then
    bad "hostile_results.py made the corpus"
    cat "$T/py"
fi
mapfile -t CASES <"$T/cases"
check "the corpus has refusals and appends (${#CASES[@]} cases)" [ "$(grep -c "	refuse	" "$T/cases")" -ge 20 -a \
    "$(grep -c "	append	" "$T/cases")" -ge 10 ]

# ---- item 7: a run waiting for another's lock says so, naming it ----
# Run A holds the lock: the stall shim holds the fsync of its copy (its
# first fsync: -p write without -e makes none) until B, appending to the
# same file, has said at 30 s whom it waits for. No clock is raced: the
# script waits for the line (up to 150 s), then lets A go. Both start here,
# in directories of their own, and B's 30 s pass while the cases below run;
# the wait for the line and the checks are at the end.
: "${PFS_STALL_LIB:?set PFS_STALL_LIB to the stall shim (ctest does)}"
L=$T/lw
mkdir -p "$L/a" "$L/b" "$L/res"
cp "$T/base.h5" "$L/res/r.h5"
timeout 240 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none -x LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB" -x PFS_STALL_SECS=200 \
    -x PFS_STALL_UNTIL="$L/go" -x PFS_STALL_MARK="$L/held" "$PFSBENCH" -d "$L/a" "${ARGS[@]}" -o "$L/res/r.h5" \
    --label holder >"$L/out.a" 2>"$L/err.a" </dev/null &
pa=$!
for _ in $(seq 600); do [ -e "$L/held" ] && break; sleep 0.2; done
ida=$(awk '/^pfsbench .* run /{print $4; exit}' "$L/out.a")
timeout 240 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none "$PFSBENCH" -d "$L/b" "${ARGS[@]}" -o "$L/res/r.h5" \
    --label waiter >"$L/out.b" 2>"$L/err.b" </dev/null &
pb=$!

# ---- each case ----
refusals=0
for line in "${CASES[@]}"; do
    IFS=$'\t' read -r case verdict words <<<"$line"
    W=$T/w/$case E=$T/e/$case
    mkdir -p "$W" "$E"
    cp "$T/corpus/$case.h5" "$W/r.h5"
    sum=$(sha256sum <"$W/r.h5")
    # The first three refusals on 2 ranks (every rank exits 2, rank 1 says
    # nothing), the rest and the appends on 1 (rank 0 checks and appends
    # alone).
    if [ "$verdict" = refuse ] && [ $((refusals++)) -lt 3 ]; then
        run_refused 2 60 -d "$E" "${ARGS[@]}" -o "$W/r.h5" </dev/null
    else
        run_mpi 1 60 -d "$E" "${ARGS[@]}" -o "$W/r.h5" </dev/null
    fi
    check "$case: no crash" not grep -qiE "signal|segmentation|sanitizer|traceback" "$T/err"
    check "$case: no data file left" [ -z "$(ls -A "$E")" ]
    if [ "$verdict" = refuse ]; then
        check "$case: exit 2 (got $RC)" [ "$RC" -eq 2 ]
        check "$case: one message saying '$words'" says_once "$words"
        check "$case: no measurement printed" not grep -qE '^write +[0-9]+ ' "$T/out"
        check "$case: the file byte for byte" [ "$(sha256sum <"$W/r.h5")" = "$sum" ]
        check "$case: nothing new beside it" [ "$(ls -A "$W")" = r.h5 ]
    else
        check "$case: exit 0 (got $RC)" [ "$RC" -eq 0 ]
        check "$case: recorded as $words" grep -qF "results      $W/r.h5 $words (complete)" "$T/out"
        check "$case: the old rows kept, the new ones numbered $words" \
            "$PY" "$HERE/hostile_results.py" appended "$W/r.h5" "$T/corpus/$case.h5" "$words"
    fi
done

# ---- a refusal after the results check leaves no results lock file ----
# The run lock's name is a directory: exit 2 at the run lock, which comes
# after rank 0 checked the results path (4778fdb left .new.h5.lock there).
mkdir -p "$T/rl/d/pfsbench.X.lock" "$T/rl/res"
run_refused 2 60 -d "$T/rl/d" --run-id X "${ARGS[@]}" -o "$T/rl/res/new.h5" </dev/null
check "refused at the run lock: exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "refused at the run lock: nothing in the results directory" [ -z "$(ls -A "$T/rl/res")" ]
cp "$T/base.h5" "$T/rl/res/old.h5"
run_refused 2 60 -d "$T/rl/d" --run-id X "${ARGS[@]}" -o "$T/rl/res/old.h5" </dev/null
check "refused at the run lock, existing file: nothing new beside it" [ "$(ls -A "$T/rl/res")" = old.h5 ]

# ---- item 7: the lock holder's line, written by a real run ----
# Rank 0 aborts under the lock (the crash hook): its line stays in the lock
# file, naming this host (as the temporary copy names it), the pid the
# copy's name carries, and the run id the report printed.
cp "$T/base.h5" "$T/rl/res/held.h5"
RC=0
timeout 60 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none -x PFSBENCH_TEST_CRASH_IN_RESULTS=1 "$PFSBENCH" -d "$T/d0" \
    "${ARGS[@]}" -o "$T/rl/res/held.h5" >"$T/out" 2>"$T/err" </dev/null || RC=$?
id=$(awk '/^pfsbench .* run /{print $4; exit}' "$T/out")
copy=$(ls -A "$T/rl/res" | grep '^\.held\.h5\.tmp\.' | head -1)
host_pid=${copy#.held.h5.tmp.}
check "holder: the crashed run left its copy and its line ($copy)" [ -n "$id" -a -n "$copy" ]
check "holder: the lock file says '${host_pid%.*} ${host_pid##*.} $id'" \
    [ "$(cat "$T/rl/res/.held.h5.lock")" = "${host_pid%.*} ${host_pid##*.} $id" ]

# ---- item 7: a run waiting for another's lock says so, naming it ----
# (A and B started before the cases: B's 30 s pass while they run.)
for _ in $(seq 300); do grep -q "pfsbench: waiting" "$L/err.b" && break; sleep 0.5; done
touch "$L/go"
wait "$pa" "$pb"
check "lock wait: A held it (run $ida)" [ -e "$L/held" -a -n "$ida" ]
check "lock wait: B said it waits 30 s for pid .. on this host, run $ida" \
    grep -qE "^pfsbench: waiting 30 s so far for the lock on .*/\.r\.h5\.lock \(held by pid [0-9]+ on [^ ]+, run $ida\) to append the run" "$L/err.b"
check "lock wait: both runs recorded" [ "$(grep -c '^results .*(complete)' "$L/out.a" "$L/out.b" | awk -F: '{s += $2} END {print s}')" -eq 2 ]
check "lock wait: the lock file is empty again" [ ! -s "$L/res/.r.h5.lock" ]

finish
