#!/bin/bash
# Rank sweeps inside one job (--ranks, issue 20), on 2 fake nodes with 2
# ranks each placed by slot (ranks 0,1 on node1, 2,3 on node2), so that a
# round-robin choice differs from the first k ranks:
#   - one run per point, labelled ID:n=K, with K ranks recorded;
#   - the ranks of a point are taken round-robin across nodes (2 ranks: one
#     on each node, world ranks 0 and 2);
#   - with --total fixed the block is divided per point;
#   - a point that cannot resolve (--total not divisible) is refused before
#     anything runs (exit 2, nothing made); a bad list is refused;
#   - a job-file section can be a sweep (its name is the id);
#   - --ranks with -k --run-id, or with --run-id of a kept run to read: exit 2
#     before anything runs (every point would share one run's files);
#   - a rank that waits while a point runs has the run's signal handlers:
#     SIGUSR1 through mpirun stops the point (recorded interrupted), exit 138;
#   - pfs-compare reads the points as it reads pfs-sweep's.
. "$(dirname "$0")/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
D=$T/data
R=$T/results.h5
mkdir -p "$D"
fakenodes_setup 2 2
sweep() { RC=0; FAKENODES_MAP=slot fakenodes_mpirun 4 180 "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" || RC=$?; }

sweep -d "$D" --total 8m -t 64k --ranks pow2 --label easy -o "$R" -q
check "pow2 sweep: exit 0" [ "$RC" -eq 0 ]
check "pow2 sweep: each point announced" [ "$(grep -c 'rank sweep easy: .*(point' "$T/err")" -eq 3 ]
check "pow2 sweep: the last line counts the points" [ "$(tail -1 "$T/err")" = "pfsbench: rank sweep easy: 3 of 3 points completed" ]
check "pow2 sweep: no data file left" [ -z "$(ls -A "$D")" ]
pycheck "pow2 sweep: runs, labels, ranks, round-robin placement, block per point" rank_sweep pow2 "$R"
"$(dirname "$PFSBENCH")/pfs-compare" "$R" --by ranks >"$T/cmp" 2>&1
check "pfs-compare reads the sweep by ranks (columns 1, 2, 4)" grep -qE "ranks +1 +2 +4$" "$T/cmp"

sweep -d "$D" --total 8m -t 64k --ranks 1,3 -o "$T/bad.h5"
check "a point --total does not divide: exit 2" [ "$RC" -eq 2 ]
check "a point --total does not divide: named" grep -q -- "--ranks point 3" "$T/err"
check "a point --total does not divide: nothing made" [ ! -e "$T/bad.h5" ] && [ -z "$(ls -A "$D")" ]
sweep -d "$D" -t 64k -b 1m --ranks 1,9 -o "$T/bad.h5"
check "a point above the job's ranks: exit 2" [ "$RC" -eq 2 ] && grep -q "from 1 to 4" "$T/err"

# One run id for every point: refused before the first (a mixed kept set otherwise).
sweep -d "$D" -t 64k -b 256k --ranks 1,2 -k --run-id kept$$ -o "$T/bad.h5"
check "--ranks with -k --run-id: exit 2" [ "$RC" -eq 2 ]
check "--ranks with -k --run-id: says why" grep -q -- "--ranks with -k and --run-id kept$$: every point would keep its files under that one id" "$T/err"
check "--ranks with -k --run-id: nothing made" [ ! -e "$T/bad.h5" ] && [ -z "$(ls -A "$D")" ]
sweep -d "$D" -t 64k -b 256k --ranks 1,2 -p read --run-id kept$$ -o "$T/bad.h5"
check "--ranks reading a kept run: exit 2, said" [ "$RC" -eq 2 ] && grep -q "every point would read that kept run" "$T/err"

# SIGUSR1 to mpirun while point 1 (rank 0 alone) runs: rank 1 waits, and must
# not die of it. The point is recorded interrupted; the sweep stops, 138.
rm -f "$R"
RC=0
timeout 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$D" -t 1m -b 1m -i 1000000 -p write --ranks 1,2 \
    --label usr1 -q -o "$R" >"$T/out" 2>"$T/err" &
BG=$!
for _ in $(seq 600); do ls "$D"/pfsbench.*.0 >/dev/null 2>&1 && break; sleep 0.1; done
pkill -USR1 -f "^mpirun -np 2 --oversubscribe --bind-to none $PFSBENCH -d $D "
wait "$BG" || RC=$?
check "SIGUSR1 during a point with a waiting rank: exit 138" [ "$RC" -eq 138 ]
check "SIGUSR1: the point is recorded interrupted, the next did not run" \
    grep -q "rank sweep usr1: 0 of 2 points completed, 1 failed, 1 not run (interrupted)" "$T/err"
pycheck "SIGUSR1: the point's run is in the results file, interrupted" rank_sweep interrupted "$R"
check "SIGUSR1: no data file left" [ -z "$(ls -A "$D")" ]

cat >"$T/sweep.job" <<EOF
[global]
dir = $D
transfer = 64k
block = 1m
[scaling]
ranks = 1,4
phases = write,read
[single]
phases = write
EOF
rm -f "$R"
sweep -f "$T/sweep.job" -o "$R" -q
check "a sweep in a job file: exit 0" [ "$RC" -eq 0 ]
pycheck "a sweep in a job file: the section's name is the sweep's id" rank_sweep job "$R"
finish
