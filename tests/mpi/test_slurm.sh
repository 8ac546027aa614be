#!/bin/bash
# A real Slurm with 4 fake nodes on this machine (tests/slurm/fakeslurm.sh):
# jobs/pfsbench.slurm through pfsrun with mpirun and with srun, and
# jobs/sweep.slurm, each checked for round-robin placement over 4 nodes in the
# report and the results file. Every daemon started here is stopped on exit.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"    # the Open MPI environment for root and this VM
. "$PFS_TESTS/slurm/fakeslurm.sh"
PY=/usr/bin/python3
export PFSRUN=$PFS_SRC/scripts/pfsrun
D=$T/data
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_NTASKS SLURM_JOB_ID PBS_NODEFILE

if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null; then
    echo "skip - needs root and slurmctld, slurmd, sbatch (Debian: slurm-wlm slurmctld slurmd slurm-client)"
    finish
    exit
fi

slurm_logs() { echo "--- slurm logs"; tail -n 15 "$T"/slurm/log/*.log 2>/dev/null; }

# submit NAME TIMEOUT_S SBATCH_ARGS... : sbatch, wait under a deadline; the job's
# output in $T/out, sbatch's stderr in $T/err, the job id in JOB, the final
# state in STATE, the wait status in RC.
submit() {
    local name=$1 to=$2
    shift 2
    RC=0 JOB="" STATE=""
    JOB=$(timeout 30 sbatch --parsable -o "$T/$name.out" "$@" 2>"$T/err") || RC=$?
    if [ "$RC" -eq 0 ] && [ -n "$JOB" ]; then
        STATE=$(fakeslurm_wait "$JOB" "$to") || RC=$?
    fi
    cp "$T/$name.out" "$T/out" 2>/dev/null || : >"$T/out"
    [ "$RC" -eq 0 ] || { echo "job $JOB: $STATE"; slurm_logs; }
}
state_ok() { [ "$RC" -eq 0 ] && [ "${STATE%% *}" = COMPLETED ]; }

mkdir -p "$T/slurm"
if fakeslurm_start 4 4 "$T/slurm"; then
    ok "Slurm with 4 fake nodes started"
else
    bad "Slurm with 4 fake nodes started"
    slurm_logs
    finish
    exit
fi
check "sinfo: node1..node4 idle" [ "$(sinfo -h -N -t idle -o %N | sort -u | tr '\n' ' ')" = "node1 node2 node3 node4 " ]

# The Open MPI options for fake nodes under Slurm: mpirun starts its daemons
# with srun, so no rsh agent; ranks talk over loopback.
export PFSRUN_MPIRUN_ARGS="--bind-to none --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo"

# ---- jobs/pfsbench.slurm with mpirun; a script argument goes to pfsbench ---
PFS_DIR=$D PFS_ARGS="-t 64k -b 1m -v -C" PFS_RESULTS=$T/mpirun.h5 \
    submit mpirun 90 -N 4 --ntasks-per-node=2 "$PFS_SRC/jobs/pfsbench.slurm" -i 2
check "pfsbench.slurm (mpirun): job completed with exit code 0" state_ok
check "pfsbench.slurm (mpirun): launched by pfsrun with mpirun --map-by node" has "pfsrun: launch: mpirun -np 8 --map-by node -x PFSBENCH_PLACEMENT=round-robin"
check "pfsbench.slurm (mpirun): report says 8 ranks on 4 nodes" has "ranks        8 on 4 nodes (2 per node)"
check "pfsbench.slurm (mpirun): -v table has rank r on node r mod 4" placement_is 4
check "pfsbench.slurm (mpirun): no round-robin warning" hasnt "round-robin placement was asked for"
pycheck "pfsbench.slurm (mpirun): results: 4 nodes round-robin, reads from other nodes, -i 2 from the script argument, label slurm-<job>" \
    slurm mpirun "$T/mpirun.h5" "$JOB"

# ---- the same with srun --mpi=pmix --distribution=cyclic ------------------
PFS_DIR=$D PFS_ARGS="-t 64k -b 1m -v" PFS_RESULTS=$T/srun.h5 PFSRUN_OPTS=--srun \
    submit srun 90 -N 4 --ntasks-per-node=2 "$PFS_SRC/jobs/pfsbench.slurm"
check "pfsbench.slurm (srun): job completed with exit code 0" state_ok
check "pfsbench.slurm (srun): launched by pfsrun with srun cyclic" has "pfsrun: launch: srun --mpi=pmix --distribution=cyclic -N 4 -n 8 --export=ALL,PFSBENCH_PLACEMENT=round-robin"
check "pfsbench.slurm (srun): -v table has rank r on node r mod 4" placement_is 4
pycheck "pfsbench.slurm (srun): results: nodes == 4, rank r on node r mod 4" slurm srun "$T/srun.h5"

# ---- jobs/sweep.slurm: 1 2 4 8 ranks into one results file -----------------
PFS_DIR=$D PFS_TOTAL=1m PFS_ARGS="-t 64k" PFS_RESULTS=$T/sweep.h5 \
    submit sweep 110 -N 4 --ntasks-per-node=2 "$PFS_SRC/jobs/sweep.slurm"
check "sweep.slurm: job completed with exit code 0" state_ok
check "sweep.slurm: points 1 2 4 8" has "ranks 1 2 4 8; total 1m per point"
pycheck "sweep.slurm: a run per point, fixed total divided by the ranks, on min(ranks, 4) nodes" slurm sweep "$T/sweep.h5"

# ---- the I/O engines in a batch job (issue 17): uring, mmap and hdf5 through pfsrun
for eng in uring mmap hdf5; do
    PFS_DIR=$D PFS_ARGS="-a $eng -t 64k -b 1m -p write,read --verify" PFS_RESULTS=$T/eng-$eng.h5 \
        submit "eng-$eng" 90 -N 2 --ntasks-per-node=2 "$PFS_SRC/jobs/pfsbench.slurm"
    if [ "$eng" = uring ] && grep -q "io_uring" "$T/out" 2>/dev/null && ! state_ok; then
        echo "# -a uring: io_uring not usable on this kernel"
        continue
    fi
    check "pfsbench.slurm -a $eng: job completed with exit code 0" state_ok
    pycheck "pfsbench.slurm -a $eng: results say api $eng on 2 nodes" slurm engine "$T/eng-$eng.h5" "$eng"
done

fakeslurm_stop
check "every Slurm daemon stopped" [ -z "$(for p in /proc/[0-9]*; do c=$(cat "$p/comm" 2>/dev/null); case $c in slurmctld|slurmd|slurmstepd) tr '\0' '\n' 2>/dev/null <"$p/environ" | grep -qxF "SLURM_CONF=$T/slurm/slurm.conf" && echo "${p#/proc/}";; esac; done)" ]
finish
