#!/bin/bash
# Trust, round three (issue 25 item 3, issue 26): the watchdog ends a run,
# not the job. Inside a job file, a concurrent group or a rank sweep, a run
# whose rank stalls (the stall shim holds a call in the kernel, or stops the
# process) is recorded failed, the ranks that answer go on, the healthy
# sections are recorded whole, and the job's last line counts the sections
# that completed; exit 3. A plain run still ends the job (exit 3), and its
# record names a stopped rank 0.
#   A  a job file, rank 1 stalls in section 2: section 3 runs on 2 ranks;
#   B  the same with rank 0 stalling: the others give up on it, the job's
#      coordinator finds it silent, section 3 runs on ranks 1 and 2;
#   C  a concurrent group, a non-leader of one section stalls: the other
#      section completes, the stalled one is recorded failed; --format json
#      gives one array of the three runs;
#   D  the same with that section's rank 0 stalling;
#   E  a rank sweep 2,3,4 whose rank 1 stalls at the first point: point 3
#      runs on the 3 ranks left, point 4 cannot (named);
#   F  a job whose rank 0 is stopped (SIGSTOP) and continued after the job
#      went on: it records its section, naming itself, and parks;
#   G  a plain run whose rank 0 is stopped past --timeout: the record names
#      rank 0, not "a rank stalled inside MPI" (issue 26).
. "$(dirname "$0")/lib.sh"
: "${PFS_STALL_LIB:?set PFS_STALL_LIB to the stall shim (ctest does)}"
D=$T/data
R=$T/results.h5
mkdir -p "$D/a" "$D/b" "$D/s"
PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB"
trap 'pkill -KILL -f "^$PFSBENCH .*$T/" 2>/dev/null; rm -rf "$T"' EXIT

# stalled NP RANK PATH ARGS...: pfsbench with RANK's first fsync on a file
# under PATH held (120 s, longer than the test waits), in the background.
stalled() {
    local np=$1 rank=$2 path=$3
    shift 3
    env LD_PRELOAD="$PRELOAD" PFS_STALL_SECS=120 PFS_STALL_CALL=fsync PFS_STALL_RANK="$rank" PFS_STALL_PATH="$path" \
        PFS_STALL_MARK="$T/mark" ${STOP:+PFS_STALL_STOP=1} \
        timeout 150 mpirun -np "$np" $(one_rank_exit "$np") --oversubscribe --bind-to none "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" &
    BG=$!
}
wait_rc() { RC=0; wait "$BG" || RC=$?; }
# runs_are 'label status ranks' ...: the results file holds exactly these runs (any order).
runs_are() { "$PY" "$PFS_TESTS/mpi/trust_jobs_check.py" runs "$R" "$@"; }
error_of() { "$PY" "$PFS_TESTS/mpi/trust_jobs_check.py" error "$R" "$1"; }
last_line() { grep '^pfsbench: ' "$T/err" | tail -1; }
# leftovers DIR RANK: nothing of the runs left in DIR, or only the stalled rank's file, pointed to --clean.
leftovers() {
    local left
    left=$(find "$1" -type f -name 'pfsbench.*' | grep -v "\.$2\$" || true)
    [ -z "$left" ] && { [ -z "$(find "$1" -type f -name 'pfsbench.*')" ] || grep -q "pfsbench --clean -d" "$T/err"; }
}
# pid_of R: the pid of this test's rank R (Open MPI puts the rank in its environment)
pid_of() {
    for p in $(pgrep -f "^$PFSBENCH -f $T/" || true); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && echo "$p"
    done
}

cat >"$T/seq.job" <<EOF
[global]
dir = $D
transfer = 64k
block = 256k
timeout = 2
[first]
phases = write,read
[stall]
dir = $D/s
phases = write
fsync
[last]
phases = write,read
EOF

# A: rank 1 stalls in section [stall].
stalled 3 1 "$D/s/" -f "$T/seq.job" -o "$R" -q
wait_rc
check "A: exit 3" [ "$RC" -eq 3 ]
check "A: the last line counts 2 of 3 sections completed" [ "$(last_line)" = "pfsbench: job $T/seq.job: 2 of 3 sections completed, 1 failed" ]
check "A: [stall] failed, [last] ran on the 2 ranks left" runs_are "first complete 3" "stall failed 3" "last complete 2"
check "A: the record names rank 1" sh -c 'case "$1" in "watchdog: 1 rank did not finish write (repetition 0) within 2 s: rank 1 on "*) exit 0;; esac; exit 1' sh "$(error_of stall)"
check "A: the job says it ends without MPI_Finalize" grep -q "1 of 3 ranks were lost; the job ends without MPI_Finalize" "$T/err"
check "A: no data file left but the stalled rank's, pointed to --clean" leftovers "$D" 1
rm -rf "$R" "$D"/s/* "$D"/pfsbench.*

# B: rank 0 stalls in [stall]: ranks 1 and 2 give up on it, and go on.
stalled 3 0 "$D/s/" -f "$T/seq.job" -o "$R" -q
wait_rc
check "B: exit 3" [ "$RC" -eq 3 ]
check "B: the last line counts 2 of 3 sections completed" [ "$(last_line)" = "pfsbench: job $T/seq.job: 2 of 3 sections completed, 1 failed" ]
check "B: [stall] failed, [last] ran on the 2 ranks left" runs_are "first complete 3" "stall failed 3" "last complete 2"
check "B: the record names rank 0, blocked in fsync" sh -c 'case "$1" in "watchdog: rank 0 on "*"blocked "*" in fsync "*) exit 0;; esac; exit 1' sh "$(error_of stall)"
check "B: the others gave up on rank 0, and the job found it silent" \
    sh -c 'grep -q "rank 0 (.*) has not answered: this rank leaves the run" "$1" && grep -q "left out of the job (rank 0)" "$1"' sh "$T/err"
rm -rf "$R" "$D"/s/* "$D"/pfsbench.*

cat >"$T/conc.job" <<EOF
[global]
transfer = 64k
timeout = 2
[healthy]
concurrent = g
dir = $D/a
block = 2m
reps = 8
phases = write,read
[stalls]
concurrent = g
dir = $D/b
block = 256k
phases = write
fsync
[after]
dir = $D
block = 256k
phases = write
EOF
# C: 4 ranks on one node: [healthy] gets ranks 0 and 1, [stalls] 2 and 3; rank 3 stalls.
stalled 4 3 "$D/b/" -f "$T/conc.job" -o "$R" -q --format json
wait_rc
check "C: exit 3" [ "$RC" -eq 3 ]
check "C: the last line counts 2 of 3 sections completed" [ "$(last_line)" = "pfsbench: job $T/conc.job: 2 of 3 sections completed, 1 failed" ]
check "C: [healthy] complete, [stalls] failed, [after] on the 3 ranks left" runs_are "healthy complete 2" "stalls failed 2" "after complete 3"
check "C: [healthy] measured every repetition" "$PY" "$PFS_TESTS/mpi/trust_jobs_check.py" reps "$R" healthy 8
check "C: the record names the section's rank 1" sh -c 'case "$1" in *"within 2 s: rank 1 on "*) exit 0;; esac; exit 1' sh "$(error_of stalls)"
check "C: stdout is one JSON array of the 3 runs" "$PY" "$PFS_TESTS/mpi/trust_jobs_check.py" json "$T/out" "healthy complete" "stalls failed" "after complete"
check "C: [healthy]'s files are gone" [ -z "$(find "$D/a" -type f)" ]
rm -rf "$R" "$D"/a/* "$D"/b/* "$D"/pfsbench.*

# D: the same with [stalls]'s rank 0 (world rank 2) stalling.
stalled 4 2 "$D/b/" -f "$T/conc.job" -o "$R" -q
wait_rc
check "D: exit 3" [ "$RC" -eq 3 ]
check "D: [healthy] complete, [stalls] failed, [after] on the 3 ranks left" runs_are "healthy complete 2" "stalls failed 2" "after complete 3"
check "D: the record names the section's rank 0" sh -c 'case "$1" in "watchdog: rank 0 on "*"blocked "*) exit 0;; esac; exit 1' sh "$(error_of stalls)"
check "D: the last line counts 2 of 3 sections completed" [ "$(last_line)" = "pfsbench: job $T/conc.job: 2 of 3 sections completed, 1 failed" ]
rm -rf "$R" "$D"/a/* "$D"/b/* "$D"/pfsbench.*

# E: a rank sweep; rank 1 (in the first point: ranks 0 and 1) stalls.
stalled 4 1 "$D/" -d "$D" -t 64k -b 256k -p write -e --timeout 2 --ranks 2,3,4 --label sw -o "$R" -q
wait_rc
check "E: exit 3" [ "$RC" -eq 3 ]
check "E: point 2 failed, point 3 ran on 3 ranks, point 4 did not run" runs_are "sw:n=2 failed 2" "sw:n=3 complete 3"
check "E: point 4 is named as not run" grep -q "point 3 of 3 needs 4 ranks, 3 are left: not run" "$T/err"
check "E: the last line counts 1 of 3 points completed" [ "$(last_line)" = "pfsbench: rank sweep sw: 1 of 3 points completed, 1 failed, 1 not run (too few ranks left)" ]
rm -rf "$R" "$D"/pfsbench.*

# F: rank 0 stops itself in [stall]'s fsync; once the job went on without it,
# it is continued: it records [stall], naming itself, and parks. The job waits
# for it (a lost rank that answers has recorded what it had) before it ends.
STOP=1 stalled 3 0 "$D/s/" -f "$T/seq.job" -o "$R" -q
for _ in $(seq 600); do grep -q "left out of the job (rank 0)" "$T/err" && break; sleep 0.1; done
kill -CONT "$(pid_of 0)"
wait_rc
check "F: exit 3" [ "$RC" -eq 3 ]
check "F: [stall] recorded failed by the stopped rank 0, [last] on 2 ranks" runs_are "first complete 3" "stall failed 3" "last complete 2"
check "F: the record names rank 0 as stopped" sh -c 'case "$1" in "watchdog: rank 0 on "*"did not run for "*"(stopped, or its node froze)"*) exit 0;; esac; exit 1' sh "$(error_of stall)"
check "F: the last line counts 2 of 3 sections completed" [ "$(last_line)" = "pfsbench: job $T/seq.job: 2 of 3 sections completed, 1 failed" ]
rm -rf "$R" "$D"/s/* "$D"/pfsbench.*

# G: a plain run; rank 0 stops itself in its fsync for 7 s, past --timeout 6
# (the others give up at 13 s): the record names rank 0 (issue 26).
rm -f "$T/mark"
env LD_PRELOAD="$PRELOAD" PFS_STALL_SECS=1 PFS_STALL_STOP=1 PFS_STALL_CALL=fsync PFS_STALL_RANK=0 PFS_STALL_PATH="$D/" \
    PFS_STALL_MARK="$T/mark" timeout 150 mpirun -np 3 --oversubscribe --bind-to none "$PFSBENCH" -d "$D" -t 64k -b 256k \
    -e -p write --timeout 6 -o "$R" >"$T/out" 2>"$T/err" &
BG=$!
for _ in $(seq 600); do [ -e "$T/mark" ] && break; sleep 0.1; done
sleep 7
for p in $(pgrep -f "^$PFSBENCH -d $D " || true); do kill -CONT "$p"; done
wait_rc
check "G: a plain run still ends the job with exit 3" [ "$RC" -eq 3 ]
check "G: the record names rank 0 as stopped" sh -c 'case "$1" in "watchdog: rank 0 on "*"did not run for "*) exit 0;; esac; exit 1' sh "$(error_of '')"
check "G: ... and not a rank stalled inside MPI" sh -c 'case "$1" in *"stalled inside MPI"*) exit 1;; esac; exit 0' sh "$(error_of '')"
finish
