#!/bin/bash
# Progress reports aggregated per node on fake nodes (tests/lib/fakenodes.sh),
# 3 nodes x 2 ranks mapped by node and by slot: 6 ranks spin the null backend
# for 4 s while rank 0 counts the reports it receives per interval (the
# PFSBENCH_DEBUG_PROGRESS test hook). The counts depend on every rank being
# scheduled each interval, so ctest runs this test alone (PROCESSORS 64);
# the rest of the topology checks are test_scale_topology's, beside others.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
D=$T/data
mkdir -p "$D"
FAKENODES_DIR=$T
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_NTASKS SLURM_JOB_ID PBS_NODEFILE PBS_JOBID

run_nodes() { fakenodes_pfs "$1" 90 "${@:2}"; }  # run_nodes NP ARGS...

fakenodes_setup 3 2
# The hook's line: "rank 0 received R reports in I intervals (at most M in
# one), L after the last, from S senders; N nodes, P ranks".
progress_ok() {
    awk '/^pfsbench: debug: progress: / {
            r = $7; i = $10; s = $(NF - 5); n = $(NF - 3); seen = 1
            ok = i >= 2 && s == n && n == 3 && r <= (n + 1) * i && r >= s * (i - 1)
         }
         END { exit !(seen && ok) }' "$T/err"
}
for map in node slot; do
    FAKENODES_EXTRA=(-x PFSBENCH_DEBUG_PROGRESS=1)
    FAKENODES_MAP=$map run_nodes 6 -d "$D" -a null -t 4k -b 64g -D 4 -p write --progress --no-results
    FAKENODES_EXTRA=()
    check "progress by $map: exits 0" rc_is 0
    check "progress by $map: the line shows" err_has "ETA"
    check "progress by $map: rank 0 hears 3 senders (one per node), at most nodes + 1 reports per interval, and all but one interval's worth" progress_ok
done
grep '^pfsbench: debug: progress' "$T/err"

finish
