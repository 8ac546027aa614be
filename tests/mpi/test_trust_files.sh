#!/bin/bash
# Trust: pfsbench never modifies a file that is not this run's, never hangs
# on a call blocked in the kernel, cleans up what it made and only that.
# Each check here failed on the code before issue 13.
#   - a symlink (or another file) swapped in between phases, for each
#     backend and layout: refused, the victim keeps its bytes;
#   - a FIFO in place of a kept file: refused at once, no hang;
#   - a reused run id with the watchdog: the earlier run's kept file stays,
#     and the recorded cause is the first failure (EEXIST on rank 0);
#   - --clean leaves a live run's files alone, and other users' files;
#   - --verify with 1- and 12-byte transfers catches a zeroed file;
#   - a huge valid record size is refused up front (exit 2, nothing made);
#   - a metadata run of -n 100000000 that fails early cleans up at once;
#   - a rank blocked in a system call: the watchdog thread names it, also
#     when it is rank 0, also during the cache drop; without --timeout the
#     long-blocked call is a warning;
#   - SIGHUP: recorded as interrupted, files removed, exit 129;
#   - SIGPIPE (`| head` without mpirun between): the same, exit 141.
. "$(dirname "$0")/lib.sh"
: "${PFS_STALL_LIB:?set PFS_STALL_LIB to the stall shim (ctest does)}"
D=$T/data
R=$T/results.h5
mkdir -p "$D"
PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB"
sum() { sha256sum "$1" | cut -d' ' -f1; }
status_of() { "$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(f['runs'][sys.argv[2]].attrs['status'])" "$R" "$1"; }
error_of() { "$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(f['runs'][sys.argv[2]].attrs['error'])" "$R" "$1"; }
warnings_of() { "$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(f['runs'][sys.argv[2]].attrs['warnings'])" "$R" "$1"; }
last_run() { "$PY" -c "import h5py,sys; print(sorted(h5py.File(sys.argv[1],'r')['runs'])[-1])" "$R"; }
# stalled NP SECS CALL RANK ARGS...: pfsbench with CALL blocking SECS on RANK
# (all ranks when RANK is '*'), in the background; PID in BG. The stall ends
# early once $T/go exists (release: touch it when the checks made during the
# stall are done).
stalled() {
    local np=$1 secs=$2 call=$3 rank=$4
    shift 4
    local env=(env LD_PRELOAD="$PRELOAD" PFS_STALL_SECS="$secs" PFS_STALL_CALL="$call" PFS_STALL_MARK="$T/mark" PFS_STALL_UNTIL="$T/go")
    [ "$rank" = "*" ] || env+=(PFS_STALL_RANK="$rank")
    rm -f "$T/mark" "$T/go"
    "${env[@]}" timeout 120 mpirun -np "$np" $(one_rank_exit "$np") --oversubscribe --bind-to none "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" &
    BG=$!
}
wait_rc() { RC=0; wait "$BG" || RC=$?; }
wait_mark() { for _ in $(seq 300); do [ -e "$T/mark" ] && return 0; sleep 0.05; done; return 1; }
release() { : >"$T/go"; }
echo precious >"$T/victim"
V=$(sum "$T/victim")

# 1. A symlink to a victim swapped in for the data file while the first
# write is in its fsync (the shim holds it there); the next phase's open,
# truncate or rewrite must refuse it. One case per backend and layout.
swap_case() {
    local what=$1 file=$2
    shift 2
    stalled 2 2 fsync 0 -d "$D" -t 64k -b 256k -e --no-results --run-id "swap$$" "$@"
    wait_mark
    mv "$D/$file" "$T/aside"
    ln -s "$T/victim" "$D/$file"
    release
    wait_rc
    check "$what: exit 1" [ "$RC" -eq 1 ]
    check "$what: the victim keeps its bytes" [ "$(sum "$T/victim")" = "$V" ]
    check "$what: the link is still a link" [ -L "$D/$file" ]
    check "$what: the refusal says why" grep -q "no longer the file this run created" "$T/err"
    rm -f "$D/$file" "$T/aside"
    check "$what: nothing else is left" [ -z "$(ls -A "$D")" ]
}
swap_case "posix --shared, write then write (the truncate)" "pfsbench.swap$$.shared" --shared -p write,write
swap_case "posix --shared, write then read" "pfsbench.swap$$.shared" --shared -p write,read
swap_case "posix file per process, write then rewrite" "pfsbench.swap$$.0" -p write,rewrite
swap_case "posix file per process, write then write (O_TRUNC)" "pfsbench.swap$$.0" -p write,write
swap_case "mpiio file per process, write then write" "pfsbench.swap$$.0" --api mpiio -p write,write
swap_case "mpiio --shared, write then rewrite" "pfsbench.swap$$.shared" --api mpiio --shared -p write,rewrite
swap_case "mpiio --shared --collective, write then read" "pfsbench.swap$$.shared" --api mpiio --shared --collective -p write,read

# Another regular file renamed over ours (no link involved): left untouched.
stalled 1 2 fsync 0 -d "$D" -t 64k -b 256k -e --no-results --run-id "ren$$" -p write,write
wait_mark
cp "$T/victim" "$T/other"
mv "$T/other" "$D/pfsbench.ren$$.0"
release
wait_rc
check "a file renamed over ours: exit 1, and it keeps its bytes" [ "$RC" -eq 1 ]
check "a file renamed over ours: exit 1, and it keeps its bytes (2)" [ "$(sum "$D/pfsbench.ren$$.0")" = "$V" ]
check "a file renamed over ours: the clean-up leaves it too" grep -q "could not remove .*pfsbench.ren$$.0: it is no longer the file this run created" "$T/err"
rm -f "$D"/pfsbench.*

# 2. A FIFO where a kept file should be: refused at once, never a hang
# (its status says a kept run of one stream left it).
mkfifo "$D/pfsbench.fifo$$.0"
printf 'pfsbench kept run, format 1\nstreams 1\nranks 1\nthreads 1\nshared 0\nlayout segmented\ntransfer 65536\nblock 262144\ntransfers 4\n' >"$D/pfsbench.fifo$$.kept"
t0=$(date +%s)
run_mpi 1 30 -d "$D" -t 64k -b 256k -p read --run-id "fifo$$" --no-results
check "FIFO: exit 1 within seconds" [ "$RC" -eq 1 ]
check "FIFO: exit 1 within seconds (2)" [ $(($(date +%s) - t0)) -lt 20 ]
check "FIFO: named as a FIFO" grep -q "pfsbench.fifo$$.0: not a regular file (a FIFO)" "$T/err"
run_mpi 1 30 -d "$D" -t 64k -b 256k -p read --run-id "fifo$$" --drop-caches --no-results
check "FIFO with --drop-caches: exit 1, no hang" [ "$RC" -eq 1 ]
rm -f "$D/pfsbench.fifo$$.0" "$D/pfsbench.fifo$$.kept"

# 3. A reused run id under the watchdog. Run A keeps pfsbench.ID.0; run B
# (2 ranks) reuses the id: rank 0's create fails with EEXIST, rank 1 stalls
# in fsync, the watchdog fires. A's file must stay, and B's record must name
# rank 0's EEXIST as the first failure.
run_mpi 1 60 -d "$D" -t 64k -b 256k -p write -k --run-id "reuse$$" -o "$R"
check "reused run id: the kept run lands" [ "$RC" -eq 0 ]
K=$(sum "$D/pfsbench.reuse$$.0")
stalled 2 20 fsync 1 -d "$D" -t 64k -b 256k -p write -e --timeout 2 --run-id "reuse$$" -o "$R"
wait_rc
check "reused run id: the watchdog ends the run (exit 3)" [ "$RC" -eq 3 ]
check "reused run id: the kept file of the earlier run is still there, unchanged" [ "$(sum "$D/pfsbench.reuse$$.0")" = "$K" ]
check "reused run id: the record names rank 0's EEXIST first" \
    sh -c 'case "$1" in "rank 0 on "*"open for writing "*"pfsbench.reuse'"$$"'.0: File exists"*"then the watchdog"*) exit 0;; esac; exit 1' sh "$(error_of "$(last_run)")"
pkill -KILL -f "^$PFSBENCH -d $D" || true
rm -f "$D"/pfsbench.*

# 4. --clean and a live run: its files (and lock) are left alone, the run
# then finishes normally. A run killed with SIGKILL leaves a stale lock,
# which --clean removes with the files. The live run is held in its fsync
# until --clean has looked (a fixed stall of a few seconds could end first
# when --clean's own MPI start-up is slow: sanitizers, a busy machine).
stalled 2 90 fsync 0 -d "$D" -t 64k -b 256k -e -o "$R" --run-id "live$$"
wait_mark
run_mpi 1 60 --clean --yes -d "$D"
check "--clean on a live run: exit 0" [ "$RC" -eq 0 ]
check "--clean on a live run: says the run is live" grep -q "pfsbench.live$$.0: in use by a live run" "$T/out"
check "--clean on a live run: its files are still there" [ -e "$D/pfsbench.live$$.0" ]
check "--clean on a live run: its files are still there (2)" [ -e "$D/pfsbench.live$$.1" ]
check "--clean on a live run: its files are still there (3)" [ -e "$D/pfsbench.live$$.lock" ]
release
wait_rc
check "--clean on a live run: the run finishes (exit 0)" [ "$RC" -eq 0 ]
check "--clean on a live run: and removes its files and lock itself" [ -z "$(ls -A "$D")" ]
stalled 2 30 fsync '*' -d "$D" -t 64k -b 256k -e --no-results --run-id "dead$$"
wait_mark
pkill -KILL -f "^$PFSBENCH -d $D"
wait_rc
check "a killed run leaves its files and its lock" [ -e "$D/pfsbench.dead$$.lock" ]
run_mpi 1 60 --clean --yes -d "$D"
check "--clean removes a dead run's files and its stale lock" [ -z "$(ls -A "$D")" ]
# another user's leftover
echo x >"$D/pfsbench.other$$.0"
chown 4321:4321 "$D/pfsbench.other$$.0"
run_mpi 1 60 --clean --yes -d "$D"
check "--clean leaves another user's file" [ -e "$D/pfsbench.other$$.0" ]
check "--clean leaves another user's file (2)" grep -q "owned by uid 4321, not you; add --any-owner" "$T/out"
run_mpi 1 60 --clean --yes --any-owner -d "$D"
check "--clean --any-owner removes it" [ ! -e "$D/pfsbench.other$$.0" ]
run_mpi 1 60 -d "$D" --any-owner --no-results
check "--any-owner without --clean: exit 2" [ "$RC" -eq 2 ]

# A live run's id cannot be reused while it runs (held in its fsync until
# the second run has tried).
stalled 1 90 fsync 0 -d "$D" -t 64k -b 256k -e --no-results --run-id "busy$$"
wait_mark
B1=$BG
run_mpi 1 60 -d "$D" -t 64k -b 256k --no-results --run-id "busy$$"
check "a live run's id: refused with exit 2" [ "$RC" -eq 2 ]
check "a live run's id: says who holds it" grep -q "run id busy$$ is in use by a live run" "$T/err"
release
BG=$B1; wait_rc
check "a live run's id: the live run is not disturbed" [ "$RC" -eq 0 ]
check "a live run's id: nothing left" [ -z "$(ls -A "$D")" ]

# 5. --verify checks every byte: 1- and 12-byte transfers of a zeroed file.
for t in 1 12; do
    b=$((t * 16))
    run_mpi 1 60 -d "$D" -t "$t" -b "$b" -p write -k --verify --run-id "v$t$$" --no-results
    run_mpi 1 60 -d "$D" -t "$t" -b "$b" -p read --verify --run-id "v$t$$" --no-results
    check "verify -t $t: the intact file passes" [ "$RC" -eq 0 ]
    dd if=/dev/zero of="$D/pfsbench.v$t$$.0" bs="$b" count=1 conv=notrunc status=none
    run_mpi 1 60 -d "$D" -t "$t" -b "$b" -p read --verify --run-id "v$t$$" --no-results
    check "verify -t $t: a zeroed file fails (exit 1)" [ "$RC" -eq 1 ]
    check "verify -t $t: the mismatch is named" grep -qE "verify $D/pfsbench.v$t$$.0 at offset [0-9]+: [0-9]+ mismatching" "$T/err"
    rm -f "$D/pfsbench.v$t$$.0" "$D/pfsbench.v$t$$.kept"
done

# 6. A valid but huge combination: refused before anything is made.
run_mpi 1 60 -d "$D" --threads 512 -i 1000000 -t 4k -b 4k -o "$T/huge.h5"
check "--threads 512 -i 1000000: exit 2" [ "$RC" -eq 2 ]
check "--threads 512 -i 1000000: says how much and what to lower" grep -q "the run's records need .* GiB on rank 0 .*lower -i/--reps, --threads" "$T/err"
check "--threads 512 -i 1000000: nothing created" [ -z "$(ls -A "$D")" ]
check "--threads 512 -i 1000000: no results file" [ ! -e "$T/huge.h5" ]

# 7. A metadata run of -n 100000000 that runs out of inodes after a few
# dozen files: its clean-up costs what it made, not what it asked for.
t0=$(date +%s%N)
run_in_tmpfs size=16m,nr_inodes=64 2 -p create,delete -n 100000000 --no-results
t1=$(date +%s%N)
check "-n 100000000 out of inodes: exit 1" [ "$RC" -eq 1 ]
check "-n 100000000 out of inodes: over in seconds ($(((t1 - t0) / 1000000)) ms)" [ $(((t1 - t0) / 1000000000)) -lt 30 ]
check "-n 100000000 out of inodes: nothing left" [ ! -s "$T/left" ]

# 8. Calls blocked in the kernel.
# Every rank blocked in fsync (a storage server that stopped answering):
# no rank is at an agreement, yet the watchdog fires within the limit (30 s
# for start-up and teardown under the sanitizers; the stall is 60 s).
t0=$(date +%s)
stalled 2 60 fsync '*' -d "$D" -t 64k -b 256k -e --timeout 2 -o "$R" --run-id "blk$$"
wait_rc
check "every rank blocked in fsync: exit 3" [ "$RC" -eq 3 ]
check "every rank blocked in fsync: within 30 s" [ $(($(date +%s) - t0)) -lt 30 ]
check "every rank blocked in fsync: rank 0 names itself, the call and the path" \
    grep -qE "watchdog: rank 0 on [^ ]+ blocked [0-9.]+ s in fsync $D/pfsbench.blk$$.0, during write \(repetition 0\)" "$T/err"
check "every rank blocked in fsync: recorded as failed, saying rank 0 was blocked" \
    sh -c 'case "$1" in "watchdog: rank 0 on "*" blocked "*" in fsync "*) exit 0;; esac; exit 1' sh "$(error_of "$(last_run)")"
check "every rank blocked in fsync: recorded as failed (2)" [ "$(status_of "$(last_run)")" = failed ]
check "every rank blocked in fsync: rank 0's file and the lock are removed" [ ! -e "$D/pfsbench.blk$$.0" ]
check "every rank blocked in fsync: rank 0's file and the lock are removed (2)" [ ! -e "$D/pfsbench.blk$$.lock" ]
pkill -KILL -f "^$PFSBENCH -d $D" || true
rm -f "$D"/pfsbench.*
# Blocked in the cache drop (sync), the step before a read phase.
stalled 2 30 sync '*' -d "$D" -t 64k -b 256k --drop-caches --timeout 2 -o "$R" --run-id "drop$$"
wait_rc
check "blocked in the cache drop: exit 3" [ "$RC" -eq 3 ]
check "blocked in the cache drop: the step is named" grep -q "during the preparation of read (repetition 0)" "$T/err"
pkill -KILL -f "^$PFSBENCH -d $D" || true
rm -f "$D"/pfsbench.*
# A phase longer than --timeout that makes progress is not a stall: the
# thread counts transfers, not the phase's age (1 rank: no agreement watches).
# Every write is made 10 ms long by the shim, on tmpfs (no disk whose latency
# spikes could make one transfer outlast the limit): 256 writes, a phase of
# 2.6 s or more against --timeout 1, each transfer 1/100 of it.
S=$(mktemp -d /dev/shm/pfstrust.XXXXXX)
trap 'rm -rf "$T" "$S"' EXIT
t0=$(date +%s%N)
RC=0
env LD_PRELOAD="$PRELOAD" PFS_STALL_SECS=0.01 PFS_STALL_CALL=pwrite PFS_STALL_COUNT=1000000 \
    timeout 60 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none "$PFSBENCH" -d "$S" -t 4k -b 1m -p write --timeout 1 --no-results \
    >"$T/out" 2>"$T/err" || RC=$?
t1=$(date +%s%N)
check "a busy phase past --timeout ($(((t1 - t0) / 1000000)) ms): exit 0, no watchdog" [ "$RC" -eq 0 ]
check "a busy phase past --timeout: no watchdog message" not grep -q watchdog "$T/err"
check "a busy phase past --timeout: the phase outlasted it" awk '$1 == "write" && $2 == "0" {exit !($5 > 2.5)}' "$T/out"
rm -rf "$S"
# Without --timeout: the run completes, the long-blocked call is a warning.
stalled 2 1.5 fsync 1 -d "$D" -t 64k -b 256k -e --stall-warn 0.5 -o "$R"
wait_rc
check "a long-blocked call without --timeout: exit 0" [ "$RC" -eq 0 ]
check "a long-blocked call without --timeout: warned in the report" grep -qE "warning +long-blocked call: rank 1 on [^ ]+ was blocked [12]\.[0-9] s in fsync $D/pfsbench\.[^ ]+\.1, in write \(repetition 0\)" "$T/out"
check "a long-blocked call without --timeout: and in the results file" \
    sh -c 'case "$1" in *"long-blocked call: rank 1 on "*) exit 0;; esac; exit 1' sh "$(warnings_of "$(last_run)")"
check "a long-blocked call without --timeout: files removed" [ -z "$(ls -A "$D")" ]

# 10. Messages name an offset only where one applies and errno only where the
# system gave one: an MPI-IO write into a full file system is a short write
# with what MPI said; a create that finds the name taken has no offset.
run_in_tmpfs size=1m 2 -t 64k -b 1m --api mpiio --no-results
check "MPI-IO ENOSPC: exit 1" [ "$RC" -eq 1 ]
check "MPI-IO ENOSPC: a short write with MPI's words, no invented errno" \
    grep -qE "rank [01] on [^ ]+: write [^ ]+ at offset [0-9]+: short write: [0-9]+ of 65536 bytes: MPI_File_write_at[^(]*$" "$T/err"
: >"$D/pfsbench.taken$$.0"
run_mpi 1 60 -d "$D" -t 64k -b 256k --no-results --run-id "taken$$"
check "EEXIST: no offset in the message" grep -q "open for writing $D/pfsbench.taken$$.0: File exists (errno 17)" "$T/err"
rm -f "$D/pfsbench.taken$$.0"

# 9. SIGHUP (an ssh connection dropped): like SIGTERM.
stalled 2 3 fsync 0 -d "$D" -t 64k -b 256k -e -i 1000 -o "$R"
wait_mark
pkill -HUP -f "^$PFSBENCH -d $D"
wait_rc
check "SIGHUP: exit 129" [ "$RC" -eq 129 ]
check "SIGHUP: recorded as interrupted" [ "$(status_of "$(last_run)")" = interrupted ]
check "SIGHUP: files removed" [ -z "$(ls -A "$D")" ]

# 9b. A pipe closed by its reader (`| head`), rank 0 writing straight into it
# (no mpirun between): like SIGHUP. Without the handler: exit 141 with the
# data file and its lock left and nothing recorded.
n0=$("$PY" -c "import h5py,sys; print(len(h5py.File(sys.argv[1],'r')['runs']))" "$R")
timeout 120 "$PFSBENCH" -d "$D" -t 64k -b 256k -e -i 100000 -o "$R" | head -1 >"$T/head"
RC=${PIPESTATUS[0]}
check "SIGPIPE: exit 141" [ "$RC" -eq 141 ]
check "SIGPIPE: the reader got the header" grep -q "^pfsbench .* run " "$T/head"
check "SIGPIPE: recorded as interrupted" [ "$(status_of "$(last_run)")" = interrupted ]
check "SIGPIPE: one run more in the results file" \
    [ "$("$PY" -c "import h5py,sys; print(len(h5py.File(sys.argv[1],'r')['runs']))" "$R")" -eq $((n0 + 1)) ]
check "SIGPIPE: files removed" [ -z "$(ls -A "$D")" ]
finish
