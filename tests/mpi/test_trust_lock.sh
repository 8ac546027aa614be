#!/bin/bash
# Issue 25, items 2 and 8: the run's lock is the lock. Each race is held
# open with the stall shim at flock (between a process's open of the lock
# file and its flock) and at fsync (a live run, mid-phase):
#   - a run that made the lock file but lost the flock to a second run of
#     the same id leaves the file (the second run's lock) alone, so a
#     --clean meanwhile leaves the live run's files;
#   - a stale lock removed by --clean between a run's open and its flock:
#     the run locks a fresh file (its flock of the removed one locks
#     nothing anyone can see), so a --clean meanwhile leaves its files;
#   - --clean's own flock of a lock file replaced under it (the dead run's
#     lock removed, a live run of that id started): the live run's files stay;
#   - no inode for the lock file: exit 1 (the file system failed), not 2.
# Each failed on 4778fdb.
. "$(dirname "$0")/lib.sh"
: "${PFS_STALL_LIB:?set PFS_STALL_LIB to the stall shim (ctest does)}"
D=$T/data
mkdir -p "$D"
PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB"
# bg TAG CALLS ARGS...: pfsbench (1 rank) with CALLS held on rank 0 (the
# first 3 such calls), each until $T/go.TAG.CALL exists (at most 90 s),
# $T/mark.TAG.CALL made when it starts; in the background, PID in BG_TAG,
# output in $T/out.TAG and $T/err.TAG.
bg() {
    local tag=$1 calls=$2
    shift 2
    rm -f "$T/mark.$tag".* "$T/go.$tag".*
    env LD_PRELOAD="$PRELOAD" PFS_STALL_SECS=90 PFS_STALL_CALL="$calls" PFS_STALL_RANK=0 PFS_STALL_COUNT=3 \
        PFS_STALL_MARK="$T/mark.$tag.%s" PFS_STALL_UNTIL="$T/go.$tag.%s" \
        timeout 120 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none "$PFSBENCH" "$@" >"$T/out.$tag" 2>"$T/err.$tag" &
    eval "BG_$tag=$!"
}
wait_bg() { RC=0; wait "$1" || RC=$?; }
wait_for() { for _ in $(seq 900); do [ -e "$1" ] && return 0; sleep 0.05; done; echo "no $1" >&2; return 1; }
go() { : >"$T/go.$1"; }
W="-t 64k -b 256k -e -p write --no-results"

# 1. A makes the lock file, and is held before its flock; B (same id) opens
# it and takes the flock; A, let go, loses it. A must not remove B's lock.
bg A flock -d "$D" $W --run-id one$$
wait_for "$T/mark.A.flock"
bg B fsync -d "$D" $W --run-id one$$
wait_for "$T/mark.B.fsync"
go A.flock
wait_bg "$BG_A"
check "lost the flock: refused with exit 2" [ "$RC" -eq 2 ]
check "lost the flock: says the id is in use" grep -q "run id one$$ is in use by a live run" "$T/err.A"
check "lost the flock: the lock file B holds is still there" [ -e "$D/pfsbench.one$$.lock" ]
run_mpi 1 60 --clean --yes -d "$D"
check "lost the flock: --clean leaves the live run's data file" [ -e "$D/pfsbench.one$$.0" ]
check "lost the flock: --clean says the run is live" grep -q "pfsbench.one$$.0: in use by a live run" "$T/out"
go B.fsync
wait_bg "$BG_B"
check "lost the flock: the live run finishes (exit 0)" [ "$RC" -eq 0 ]
# B locked a file it did not make: it leaves it, --clean takes it away.
check "lost the flock: only the lock file is left" [ "$(ls -A "$D")" = "pfsbench.one$$.lock" ]
run_mpi 1 60 --clean --yes -d "$D"
check "lost the flock: --clean removes it" [ -z "$(ls -A "$D")" ]

# 2. A stale lock: A opens it and is held before its flock; --clean removes
# it meanwhile; A's flock then holds an inode no name leads to.
: >"$D/pfsbench.two$$.lock"
bg A flock,fsync -d "$D" $W --run-id two$$
wait_for "$T/mark.A.flock"
run_mpi 1 60 --clean --yes -d "$D"
check "stale lock: --clean removes it" grep -q "removed  $D/pfsbench.two$$.lock" "$T/out"
go A.flock
wait_for "$T/mark.A.fsync"
check "stale lock removed under the run: it locked a fresh lock file" [ -e "$D/pfsbench.two$$.lock" ]
run_mpi 1 60 --clean --yes -d "$D"
check "stale lock removed under the run: --clean leaves its data file" [ -e "$D/pfsbench.two$$.0" ]
go A.fsync
wait_bg "$BG_A"
check "stale lock removed under the run: exit 0, nothing left" sh -c "[ $RC -eq 0 ] && [ -z \"\$(ls -A '$D')\" ]"

# 3. --clean (C) opens a dead run's lock and is held before its flock; a
# second --clean removes the dead run's files and lock; a live run of that
# id starts (L, held in its fsync); C, let go, flocks the removed inode.
echo dead >"$D/pfsbench.three$$.0"
: >"$D/pfsbench.three$$.lock"
bg C flock --clean --yes -d "$D"
wait_for "$T/mark.C.flock"
run_mpi 1 60 --clean --yes -d "$D"
check "a lock replaced under --clean: the second --clean removed the dead run's files" [ -z "$(ls -A "$D")" ]
bg L fsync -d "$D" $W --run-id three$$
wait_for "$T/mark.L.fsync"
go C.flock
wait_bg "$BG_C"
check "a lock replaced under --clean: exit 0" [ "$RC" -eq 0 ]
check "a lock replaced under --clean: the live run's data file stays" [ -e "$D/pfsbench.three$$.0" ]
check "a lock replaced under --clean: and its lock" [ -e "$D/pfsbench.three$$.lock" ]
go L.fsync
wait_bg "$BG_L"
check "a lock replaced under --clean: the live run finishes (exit 0), nothing left" \
    sh -c "[ $RC -eq 0 ] && [ -z \"\$(ls -A '$D')\" ]"

# 4. No inode for the lock file: the file system failed, not the input.
run_in_tmpfs size=1m,nr_inodes=1 1 -p write -t 64k -b 256k --no-results
check "no inode for the lock file: exit 1" [ "$RC" -eq 1 ]
check "no inode for the lock file: says so" grep -q "cannot make the run's lock file .*pfsbench\..*\.lock: No space left on device" "$T/err"
finish
