#!/bin/bash
# Issue 27: an append costs the run, not the file. An existing results
# file takes a run in place, through an undo journal: rank 0's memory for
# the append stays flat as the file grows (a 10-run and a 200-run file);
# a crash at each step of the commit leaves, once the next lock holder
# (pfsbench's check or an append) has undone it, the old file byte for
# byte, which pfsbench.open reads through the journal before that; a
# reader during a stalled append sees the old file (h5py, no lock) or
# waits for the new one (pfsbench.open, only while the commit writes);
# and a reader holding the file open never delays an append: the run is
# added to a copy renamed over the file instead.
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
export PYTHONPATH=$SRC/python # the package, for the checks
ulimit -c 0                   # the crash hook aborts rank 0
D=$T/data
mkdir -p "$D"
ARGS=(-t 64k -b 256k -p write)
CK=$PFS_TESTMPI/journal_checks.py
journals() { ls -A "$T" | grep -c "^\.$1\.tmp\." || true; }

run_mpi 1 60 -d "$D" "${ARGS[@]}" -o "$T/base.h5" --label base
check "base run: exit 0" [ "$RC" -eq 0 ]
"$PY" "$CK" grow "$T/base.h5" 10 "$T/r10.h5" && "$PY" "$CK" grow "$T/base.h5" 200 "$T/r200.h5"
check "grown: 10 and 200 runs" sh -c "'$PY' '$CK' runs '$T/r10.h5' 10 && '$PY' '$CK' runs '$T/r200.h5' 200"

# ---- (a) rank 0's memory for the append: flat as the file grows ----
for n in 10 200; do
    RC=0
    timeout 60 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none -x PFSBENCH_TEST_APPEND_PEAK=1 "$PFSBENCH" -d "$D" \
        "${ARGS[@]}" -o "$T/r$n.h5" >"$T/out" 2>"$T/err.$n" || RC=$?
    check "memory, $n runs: exit 0, appended as run $((n + 1))" \
        sh -c "[ $RC -eq 0 ] && grep -q '^results .* /runs/0*$((n + 1)) (complete)' '$T/out'"
    pycheck "memory, $n runs: h5py reads $((n + 1)) runs" journal runs "$T/r$n.h5" $((n + 1))
    check "memory, $n runs: no journal left" [ "$(journals "r$n.h5")" -eq 0 ]
done
pycheck "memory: the append's peak grows by under a quarter of the file's growth" \
    journal peak_flat "$T/err.10" "$T/err.200"
cat "$T/py"

# ---- (b) a crash at each step of the commit, then the next lock holder ----
# journal: in the middle of writing the journal (incomplete: the file never
# touched); journaled: the journal durable, the file untouched; half: half
# of the new bytes in the file; written: all of them, the journal not yet
# removed. Undone by pfsbench's check (a run refused at its run lock,
# after the check) or by the next append; pfsbench.open reads the old file
# through the journal, writing nothing.
mkdir -p "$T/rl/pfsbench.X.lock" # the run lock's name is a directory: exit 2 after the results check
cp "$T/base.h5" "$T/ten.h5"
"$PY" "$CK" grow "$T/base.h5" 10 "$T/ten.h5"
sum=$(sha256sum <"$T/ten.h5")
for step in journal journaled half written; do
    for by in check reader append; do
        W=$T/c-$step-$by.h5
        cp "$T/ten.h5" "$W"
        RC=0
        timeout 60 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none -x PFSBENCH_TEST_CRASH_IN_RESULTS=$step "$PFSBENCH" \
            -d "$D" "${ARGS[@]}" -o "$W" --label crash >"$T/out" 2>"$T/err" || RC=$?
        what="crash at '$step', undone by the $by"
        check "$what: rank 0 died of abort() in the commit" grep -q "signal 6" "$T/err"
        check "$what: its journal is left" [ "$(journals "$(basename "$W")")" -eq 1 ]
        if [ "$step" = half ] || [ "$step" = written ]; then
            check "$what: the file was written into" [ "$(sha256sum <"$W")" != "$sum" ]
        fi
        case $by in
        check)
            run_mpi 1 60 -d "$T/rl" --run-id X "${ARGS[@]}" -o "$W"
            check "$what: the refused run exits 2" [ "$RC" -eq 2 ]
            check "$what: the file is byte for byte the old one" [ "$(sha256sum <"$W")" = "$sum" ] ;;
        reader)
            pycheck "$what: pfsbench.open lists the 10 old runs" journal reader "$W" 10
            check "$what: ... and leaves the journal to pfsbench" [ "$(journals "$(basename "$W")")" -eq 1 ]
            run_mpi 1 60 -d "$T/rl" --run-id X "${ARGS[@]}" -o "$W"
            check "$what: then the check makes it byte for byte the old one" [ "$(sha256sum <"$W")" = "$sum" ] ;;
        append)
            run_mpi 1 60 -d "$D" "${ARGS[@]}" -o "$W" --label after
            check "$what: the next run lands as run 11" grep -q "^results .* /runs/000011 (complete)" "$T/out" ;;
        esac
        n=10
        [ "$by" = append ] && n=11
        pycheck "$what: h5py reads runs 1..$n" journal runs "$W" $n
        check "$what: no journal left" [ "$(journals "$(basename "$W")")" -eq 0 ]
        rm -f "$W"
    done
done

# ---- (c) readers during a stalled append ----
# The stall shim holds the journal's fsync (the append's first: -p write
# without -e makes none): the file is untouched, h5py without the lock
# reads the old one, the write lock is held. Then it holds the file's own
# fsync (its new bytes written, not yet durable): pfsbench.open waits for
# the commit and lists the new run.
: "${PFS_STALL_LIB:?set PFS_STALL_LIB to the stall shim (ctest does)}"
cp "$T/ten.h5" "$T/s.h5"
timeout 120 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none -x LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB" -x PFS_STALL_SECS=100 \
    -x PFS_STALL_UNTIL="$T/go" -x PFS_STALL_MARK="$T/held" "$PFSBENCH" -d "$D" "${ARGS[@]}" -o "$T/s.h5" \
    --label stalled >"$T/out.s" 2>"$T/err.s" </dev/null &
pa=$!
for _ in $(seq 600); do [ -e "$T/held" ] && break; sleep 0.2; done
check "stalled at the journal's fsync: the journal is there" [ -e "$T/held" -a "$(journals s.h5)" -eq 1 ]
check "stalled: the file is byte for byte the old one" [ "$(sha256sum <"$T/s.h5")" = "$sum" ]
pycheck "stalled: h5py (no lock) reads the 10 old runs" journal runs "$T/s.h5" 10
pycheck "stalled: the append holds the write lock" journal lock_held "$T/s.h5"
touch "$T/go"
wait "$pa"
check "stalled: the run lands as run 11" grep -q "^results .* /runs/000011 (complete)" "$T/out.s"
rm -f "$T/go" "$T/held"
timeout 120 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none -x LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB" -x PFS_STALL_SECS=100 \
    -x PFS_STALL_PATH=/s.h5 -x PFS_STALL_UNTIL="$T/go" -x PFS_STALL_MARK="$T/held" "$PFSBENCH" -d "$D" \
    "${ARGS[@]}" -o "$T/s.h5" --label stalled2 >"$T/out.s" 2>"$T/err.s" </dev/null &
pa=$!
for _ in $(seq 600); do [ -e "$T/held" ] && break; sleep 0.2; done
check "stalled at the file's fsync: the journal is there" [ -e "$T/held" -a "$(journals s.h5)" -eq 1 ]
"$PY" "$CK" reader_holds "$T/s.h5" "$T/opened" "$T/done" >"$T/py.r" 2>&1 &
pr=$!
pycheck "stalled: the append holds the write lock (pfsbench.open waits for it)" journal lock_held "$T/s.h5"
check "stalled: pfsbench.open has not opened the file" [ ! -e "$T/opened" ]
touch "$T/go"
for _ in $(seq 600); do [ -s "$T/opened" ] && break; sleep 0.2; done
check "released: pfsbench.open lists the new run (12)" [ "$(cat "$T/opened" 2>/dev/null)" = 12 ]
touch "$T/done"
wait "$pa" "$pr"
check "released: the run lands as run 12" grep -q "^results .* /runs/000012 (complete)" "$T/out.s"
pycheck "released: h5py reads runs 1..12" journal runs "$T/s.h5" 12

# ---- (d) a reader holding the file open never delays an append ----
# pfsbench.open keeps the file open (its shared reader lock held) while a
# run appends: the run lands at once, as a copy renamed over the file (the
# reader keeps the old inode), and says so; the reader, through its open
# handle, still reads exactly the old file. With no reader the next run
# goes in place again. made: a file pfsbench appended to before (its lock
# file there); new: a file no pfsbench touched yet (the reader makes the
# lock file, so that the append sees it).
for how in made new; do
    W=$T/rd-$how.h5
    cp "$T/ten.h5" "$W"
    n=10
    if [ $how = made ]; then
        run_mpi 1 60 -d "$D" "${ARGS[@]}" -o "$W" --label first
        n=11
    fi
    "$PY" "$CK" digest "$W" "$T/rd.want"
    ino0=$(stat -c %i "$W")
    rm -f "$T/rd.opened" "$T/rd.go" "$T/rd.got"
    "$PY" "$CK" reader_during "$W" "$T/rd.opened" "$T/rd.go" "$T/rd.got" >"$T/py.rd" 2>&1 &
    pr=$!
    for _ in $(seq 600); do [ -s "$T/rd.opened" ] && break; sleep 0.2; done
    check "$how: pfsbench.open has the file open ($n runs), its lock file there" \
        [ "$(cat "$T/rd.opened" 2>/dev/null)" = $n -a -f "$T/.rd-$how.h5.lock" ]
    t0=$(date +%s)
    run_mpi 1 60 -d "$D" "${ARGS[@]}" -o "$W" --label during
    took=$(($(date +%s) - t0))
    echo "$how: append with a reader open: exit $RC after $took s"
    check "$how, reader open: the run exits 0" [ "$RC" -eq 0 ]
    check "$how, reader open: the run lands as run $((n + 1))" \
        grep -q "^results .* /runs/0*$((n + 1)) (complete)" "$T/out"
    check "$how, reader open: it never waited for a lock" not grep -q "waiting .* so far" "$T/err"
    check "$how, reader open: done in under 30 s ($took s)" [ "$took" -lt 30 ]
    check "$how, reader open: it says it copied the file because readers have it open" \
        grep -q "copied .*rd-$how.h5.* because readers have it open" "$T/err"
    check "$how, reader open: the file was replaced (a new inode), not written in place" \
        [ "$(stat -c %i "$W")" != "$ino0" ]
    check "$how, reader open: no copy or journal left" [ "$(journals "rd-$how.h5")" -eq 0 ]
    pycheck "$how, reader open: h5py reads runs 1..$((n + 1)) in the new file" journal runs "$W" $((n + 1))
    pycheck "$how, reader open: a fresh pfsbench.open lists $((n + 1)) runs" journal reader "$W" $((n + 1))
    touch "$T/rd.go"
    wait "$pr"
    cat "$T/py.rd"
    check "$how, reader open: through its open handle it still reads the old file exactly" \
        sh -c "[ -s '$T/rd.want' ] && cmp -s '$T/rd.want' '$T/rd.got'"
    ino1=$(stat -c %i "$W")
    run_mpi 1 60 -d "$D" "${ARGS[@]}" -o "$W" --label alone
    check "$how, no reader: the next run lands as run $((n + 2))" \
        grep -q "^results .* /runs/0*$((n + 2)) (complete)" "$T/out"
    check "$how, no reader: written in place (the same inode), nothing said" \
        sh -c "[ '$(stat -c %i "$W")' = '$ino1' ] && ! grep -q 'readers have it open' '$T/err'"
done

finish
