#!/bin/bash
# docs/recipes.md, run: every recipe block the doc marks (<!-- recipe NAME:
# run|job|table KEY -->) is extracted and run as written, at tiny scale (its
# variables set to a temp directory, megabytes, fake nodes), and each table
# block must print the seed's shape: its rows, columns and units. Recipes
# that need a pfsbench feature (", needs --threads", ", needs create") run
# once `pfsbench --help` lists it, and say "skip" until then.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
PY=/usr/bin/python3
DOC=$PFS_SRC/docs/recipes.md
export PFSBENCH=$(readlink -f "$PFSBENCH")
export PATH="$(dirname "$PFSBENCH"):$PFS_SRC/scripts:$PATH"  # pfs-* (CMake writes them beside pfsbench), pfsrun
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_NTASKS SLURM_JOB_ID PBS_NODEFILE PBS_JOBID
unset PFSRUN_SRUN_ARGS DIR SIZE TOTAL MAX RESULTS CLIENTS NCLIENTS BLOCK LAYOUTS NPROC CONFIG FILES
LOCAL_MPI="--oversubscribe --bind-to none"
W=$T/work
mkdir -p "$W" "$T/r"
cd "$W" || exit 1

# ---- the blocks of the doc ------------------------------------------------
"$PY" "$PFS_TESTMPI/recipes_checks.py" extract "$DOC" "$T/r" >"$T/index" 2>"$T/err"
check "recipes.md: every recipe marker has its sh block" test -s "$T/index"
KNOWN="bonnie-block bonnie-meta gpfsperf-compare gpfsperf-ranks gpfsperf-threads iozone-pvfs2 pixstor pixstor-slurm"
check "recipes.md: the recipes are the ones this test knows (add a case here for a new one)" \
    [ "$(awk '{print $1}' "$T/index" | sort -u | tr '\n' ' ')" = "$KNOWN " ]

HELP=$("$PFSBENCH" --help 2>/dev/null)
# has_feature NEEDS: pfsbench --help lists it (--threads; create: the metadata phases).
has_feature() {
    case $1 in
        -) return 0 ;;
        create) grep -q -- "--files" <<<"$HELP" && grep -qE -- "--phases.*create" <<<"$HELP" ;;
        *) grep -qE -- "(^|[ ,])$1([ ,]|$)" <<<"$HELP" ;;
    esac
}
needs_of() { awk -v n="$1" '$1 == n && $2 == "run" {print $3}' "$T/index"; }
# runnable NAME: the recipe's feature is there, else a "skip" line and status 1.
runnable() {
    local need
    need=$(needs_of "$1")
    if has_feature "${need:--}"; then return 0; fi
    echo "skip - recipe $1: needs pfsbench $need, which this pfsbench's --help does not list yet (planned)"
    return 1
}

# run_block NAME VAR=VALUE... : the recipe's run block, as written, under bash -eu
# and timeout, with the variables set; output in $T/out, status in RC.
run_block() {
    local name=$1
    shift
    RC=0
    env "$@" timeout -k 5 150 bash -eu "$T/r/$name.run.sh" >"$T/out" 2>&1 || RC=$?
}
# table NAME KEY VAR=VALUE... : a table block; stdout in $T/out, stderr in $T/err.
table() {
    local name=$1 key=$2
    shift 2
    RC=0
    env "$@" timeout 120 bash -eu "$T/r/$name.table.$key.sh" >"$T/out" 2>"$T/err" || RC=$?
    cp "$T/out" "$T/table.$name.$key"
}
rc_is() { [ "$RC" -eq "$1" ]; }

# shape UNIT COLUMNS ROWS : the text table in $T/out has UNIT in its title,
# the columns (|-separated) after its corner cell, the rows (|-separated) in
# order, and a number in every cell ("-" nowhere).
shape() {
    "$PY" "$PFS_TESTMPI/recipes_checks.py" shape "$1" "$2" "$3" "$T/out" >"$T/py" 2>&1 || { cat "$T/py"; return 1; }
}

# ---- 1. gpfsperf: replicated or not ---------------------------------------
V=(DIR="$T/d1" SIZE=4m RESULTS="$W/gpfsperf.h5" PFSRUN_MPIRUN_ARGS="$LOCAL_MPI")
run_block gpfsperf-compare "${V[@]}"
check "gpfsperf-compare: the two runs complete" rc_is 0
table gpfsperf-compare compare "${V[@]}"
check "gpfsperf-compare: Create/Read/Write x replicate/no-replicate in KB/s (seed 000, Compare)" \
    shape "KB/s" "replicate|no-replicate" "Create|Read|Write"

# ---- 2. gpfsperf: 1..N ranks, then threads --------------------------------
V=(DIR="$T/d2" TOTAL=4m MAX=4 RESULTS="$W/gpfsperf-mt.h5" PFSRUN_MPIRUN_ARGS="$LOCAL_MPI")
run_block gpfsperf-ranks "${V[@]}"
check "gpfsperf-ranks: the sweep 1, 2, 4 completes" rc_is 0
table gpfsperf-ranks sweep "${V[@]}"
check "gpfsperf-ranks: Create/Read/Write x 1 2 4 in KB/s (seed 000, Multi-thread)" \
    shape "KB/s" "1|2|4" "Create|Read|Write"
if runnable gpfsperf-threads; then
    V=(DIR="$T/d2t" TOTAL=4m MAX=4 RESULTS="$W/gpfsperf-th.h5" PFSRUN_MPIRUN_ARGS="$LOCAL_MPI")
    run_block gpfsperf-threads "${V[@]}"
    check "gpfsperf-threads: the thread sweep 1, 2, 4 completes" rc_is 0
    table gpfsperf-threads sweep "${V[@]}"
    check "gpfsperf-threads: Create/Read/Write x 1 2 4 threads in KB/s" shape "KB/s" "1|2|4" "Create|Read|Write"
fi

# ---- 3. IOzone, PVFS2: 1 and 4 clients (4 fake nodes), two layouts --------
printf 'node1 /scratch /usr/bin/iozone\nnode2 /scratch /usr/bin/iozone\nnode3\nnode4  # a comment\n' >"$W/clients.txt"
V=(DIR="$T/d3" CLIENTS="$W/clients.txt" NCLIENTS=4 BLOCK=1m RESULTS="$W/pvfs2.h5"
   PFSRUN_MPIRUN_ARGS="$FAKENODES_MPIRUN_ARGS_STRING")
run_block iozone-pvfs2 "${V[@]}"
check "iozone-pvfs2: 2 layouts x (1, 4 clients) complete" rc_is 0
check "iozone-pvfs2: 4 clients round-robin over the 4 hosts of the client list" \
    grep -q "pfsrun: 4 ranks round-robin over 4 nodes from the client list" "$T/out"
table iozone-pvfs2 runs "${V[@]}"
check "iozone-pvfs2: Initial write/Rewrite/Read/Re-read x rep 0-2 and mean in KB/s (seed 002)" \
    shape "KB/s" "rep 0|rep 1|rep 2|mean" "Initial write|Rewrite|Read|Re-read"
table iozone-pvfs2 layouts "${V[@]}"
check "iozone-pvfs2: the phases x the two layouts" \
    shape "KB/s" "simple_stripe:n=4|twod_stripe:n=4" "Initial write|Rewrite|Read|Re-read"
table iozone-pvfs2 clients "${V[@]}"
check "iozone-pvfs2: the phases x 1 and 4 clients, mean (min..max)" \
    shape "KB/s" "1|4" "Initial write|Rewrite|Read|Re-read"

# ---- 4, 5. bonnie++: block phases, two configurations; metadata -----------
V=(DIR="$T/d4" SIZE=4m NPROC=2 RESULTS="$W/lustre.h5" PFSRUN_MPIRUN_ARGS="$LOCAL_MPI")
run_block bonnie-block "${V[@]}" CONFIG=deadline
check "bonnie-block: CONFIG=deadline completes" rc_is 0
run_block bonnie-block "${V[@]}" CONFIG=cfq
check "bonnie-block: CONFIG=cfq completes" rc_is 0
table bonnie-block rows "${V[@]}"
check "bonnie-block: a row per configuration, Block output/Rewrite/Block input in KB/s (seed 003)" \
    shape "KB/s" "Block output [KB/s]|%CP|Rewrite [KB/s]|%CP|Block input [KB/s]|%CP" "deadline|cfq"
if runnable bonnie-meta; then
    V=(DIR="$T/d5" FILES=64 NPROC=2 RESULTS="$W/lustre-meta.h5" PFSRUN_MPIRUN_ARGS="$LOCAL_MPI")
    run_block bonnie-meta "${V[@]}"
    check "bonnie-meta: sequential and random runs complete" rc_is 0
    table bonnie-meta rows "${V[@]}"
    check "bonnie-meta: a row per order, Create/Read (stat)/Delete in files/s (seed 003)" \
        shape "files/s" "Create [files/s]|%CP|Read (stat) [files/s]|%CP|Delete [files/s]|%CP" "deadline:sequential|deadline:random"
fi

# ---- 6. PixStor: the sweep over 2 fake nodes from a thread list ----------
printf 'node1\nnode2\nnode1\nnode2\n' >"$W/threadlist"
V=(DIR="$T/d6" CLIENTS="$W/threadlist" TOTAL=64m MAX=4 RESULTS="$W/pixstor.h5"
   PFSRUN_MPIRUN_ARGS="$FAKENODES_MPIRUN_ARGS_STRING")
run_block pixstor "${V[@]}"
check "pixstor: the sweep 1, 2, 4 completes" rc_is 0
check "pixstor: one status line per point" [ "$(grep -cE '^pfs-sweep: \[[123]/3\] n=[124] .* MiB/s' "$T/out")" -eq 3 ]
table pixstor sweep "${V[@]}"
check "pixstor: write/read x 1 2 4 in GB/s (seed 004)" shape "GB/s" "1|2|4" "write|read"
table pixstor plot "${V[@]}"
check "pixstor: pfs-plot wrote pixstor.png and pixstor.svg" \
    [ "$(cat "$T/out")" = "$(printf 'wrote pixstor.png\nwrote pixstor.svg')" ]
check "pixstor: the PNG is a PNG" "$PY" "$PFS_TESTMPI/recipes_checks.py" png "$W/pixstor.png"
check "pixstor: the chart's axis says GB/s" grep -qF "(GB/s = 10^9 B/s)" "$W/pixstor.svg"

# ---- 6b. The PixStor job script under a real Slurm (4 fake-node tasks) ----
if [ "$(id -u)" -ne 0 ] || ! command -v slurmctld >/dev/null || ! command -v sbatch >/dev/null; then
    echo "skip - recipe pixstor-slurm: needs root and Slurm (slurmctld, slurmd, sbatch)"
else
    . "$PFS_TESTS/slurm/fakeslurm.sh"
    mkdir -p "$T/slurm"
    if fakeslurm_start 2 2 "$T/slurm"; then
        submit() {
            local name=$1
            shift
            RC=0
            JOB=$(env "$@" timeout 30 sbatch --parsable -N 2 --ntasks-per-node=2 --time=5 -o "$T/$name.out" \
                "$T/r/pixstor-slurm.job.sh" 2>"$T/err") || RC=$?
            [ "$RC" -eq 0 ] && STATE=$(fakeslurm_wait "$JOB" 120) || RC=1
            cp "$T/$name.out" "$T/out" 2>/dev/null || : >"$T/out"
            [ "$RC" -eq 0 ] || { echo "job ${JOB:-?}: ${STATE:-}"; tail -n 20 "$T/out" "$T"/slurm/log/*.log; }
        }
        V=(DIR="$T/d6s" TOTAL=64m RESULTS="$W/pixstor-slurm.h5"
           PFSRUN_MPIRUN_ARGS="--bind-to none --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo")
        submit slurm1 "${V[@]}"
        check "pixstor-slurm: the job completes" rc_is 0
        check "pixstor-slurm: --max from the allocation: points 1 2 4" grep -q "ranks 1 2 4; total 64 MiB per point" "$T/out"
        check "pixstor-slurm: all 3 points ran" grep -q "3 of 3 points complete" "$T/out"
        submit slurm2 "${V[@]}"
        check "pixstor-slurm: resubmitted, the job completes" rc_is 0
        check "pixstor-slurm: resubmitted, it resumes: nothing left to run" grep -q "0 of 3 points to run (3 complete in the file)" "$T/out"
        table pixstor sweep RESULTS="$W/pixstor-slurm.h5"
        check "pixstor-slurm: write/read x 1 2 4 in GB/s" shape "GB/s" "1|2|4" "write|read"
        fakeslurm_stop
    else
        bad "pixstor-slurm: Slurm with 2 fake nodes started"
        tail -n 15 "$T"/slurm/log/*.log
    fi
fi

finish
