#!/bin/bash
# Several nodes, faked on this machine (tests/lib/fakenodes.sh): round-robin
# placement in the report and the results file, per-node bytes, --reorder
# across nodes, uneven placement warnings, and the launcher scripts/pfsrun
# with PBS_NODEFILE, --clients, --hostfile and Slurm variables, plus the PBS
# job scripts run through it with a fake PBS_NODEFILE.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
PY=/usr/bin/python3          # has h5py; the pyenv python3 on PATH does not
PFSRUN=$PFS_SRC/scripts/pfsrun
BIN=$(readlink -f "$PFSBENCH")
D=$T/data
mkdir -p "$D"
FAKENODES_DIR=$T
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_NTASKS SLURM_JOB_ID PBS_NODEFILE PBS_JOBID

run_nodes() { fakenodes_pfs "$1" 60 "${@:2}"; }  # run_nodes NP ARGS...

RR=(-x PFSBENCH_PLACEMENT=round-robin)

# ---- 4 nodes x 2 ranks, round-robin --------------------------------------
fakenodes_setup 4 2
FAKENODES_EXTRA=("${RR[@]}")
run_nodes 8 -d "$D" -t 64k -b 1m -i 2 -v -o "$T/rr.h5"
check "4x2: pfsbench exits 0" rc_is 0
check "4x2: report says 8 ranks on 4 nodes, 2 per node" has "ranks        8 on 4 nodes (2 per node)"
check "4x2: -v placement table has rank r on node r mod 4 (host node<r mod 4 + 1>)" placement_is 4
check "4x2: no round-robin warning" hasnt "round-robin placement was asked for"
check "4x2: no uneven-placement warning" hasnt "uneven placement"
pycheck "4x2: results file: nodes 4, ranks 8, rank r on node r mod 4, round-robin asked" nodes round_robin "$T/rr.h5"
pycheck "4x2: per-node bytes add up to the total in every phase and repetition" nodes node_bytes "$T/rr.h5"

# ---- --reorder: every rank reads what another node wrote ----------------
run_nodes 8 -d "$D" -t 64k -b 1m -C -v -o "$T/reorder.h5"
check "reorder 4x2: pfsbench exits 0" rc_is 0
check "reorder 4x2: report names the shift" has "reorder: rank r reads the data of rank (r+1) mod 8, on another node"
pycheck "reorder 4x2: reads_from_node != node for every rank, shift 1" nodes reorder "$T/reorder.h5"

# Block placement (--map-by slot): the shift comes from the real placement
# (2 = ranks per node), and the round-robin request is flagged.
FAKENODES_MAP=slot run_nodes 8 -d "$D" -t 64k -b 1m -C -v -o "$T/block.h5"
check "block 4x2: pfsbench exits 0" rc_is 0
check "block 4x2: reorder shift 2" has "reorder: rank r reads the data of rank (r+2) mod 8, on another node"
check "block 4x2: warns that round-robin was asked for but not given" has "warning      round-robin placement was asked for, but rank r is not on node r mod 4"
pycheck "block 4x2: reads_from_node != node for every rank" nodes block "$T/block.h5"

# ---- --reorder-nodes N (IOR's -Q N): what the ranks N nodes on wrote -----
# Block 4x2: 3 nodes on is shift 6; pfsbench ior -C -Q 2 -W, round-robin: shift 2, every byte checked.
FAKENODES_MAP=slot run_nodes 8 -d "$D" -t 64k -b 1m -C --reorder-nodes 3 --verify -o "$T/q3.h5"
check "block 4x2 --reorder-nodes 3: exits 0, names the shift" \
    eval 'rc_is 0 && has "reorder: rank r reads the data of rank (r+6) mod 8, 3 nodes on"'
if $PY "$PFS_SRC/tests/mpi/check_reorder_nodes.py" "$T/q3.h5" 3 6 >"$T/py" 2>&1; then
    ok "block 4x2 --reorder-nodes 3: each rank reads node+3 (shift 6)"
else bad "block 4x2 --reorder-nodes 3: placement"; cat "$T/py"; fi
run_nodes 8 ior -w -r -W -C -Q 2 -F -b 1m -t 64k -o "$D/q2" -- -o "$T/q2.h5"
check "ior -C -Q 2 -W on 4x2: exits 0, the equivalent has --reorder-nodes 2" \
    eval 'rc_is 0 && has "pfsbench: equivalent: pfsbench -d $D --file-name $D/q2 -t 64k -b 1m -F -p write,read -C --reorder-nodes 2 --verify --format ior -o $T/q2.h5"'
if $PY "$PFS_SRC/tests/mpi/check_reorder_nodes.py" "$T/q2.h5" 2 2 >"$T/py" 2>&1; then
    ok "ior -C -Q 2 on 4x2 round-robin: each rank reads node+2 (shift 2), verified"
else bad "ior -C -Q 2: placement"; cat "$T/py"; fi

# ---- --reorder-seed S (IOR's -Z -X S): a seeded permutation ------------
# Block 4x2: every reader on another node, each byte checked as its source's.
FAKENODES_MAP=slot run_nodes 8 -d "$D" -t 64k -b 1m -C --reorder-seed 5 --verify -o "$T/z5.h5"
check "block 4x2 --reorder-seed 5: exits 0, every reader on another node" \
    eval 'rc_is 0 && has "reorder: rank r reads the data of a rank on another node, a permutation of seed 5"'
pycheck "block 4x2 --reorder-seed 5: reads_from_rank is seed 5's permutation, each on another node" \
    reorder_seed sources "$T/z5.h5" 5 away

# ---- uneven placement ---------------------------------------------------
fakenodes_setup 3 3
run_nodes 8 -d "$D" -t 64k -b 1m -v -o "$T/uneven.h5"
check "3 nodes, 8 ranks: pfsbench exits 0" rc_is 0
check "3 nodes, 8 ranks: report says uneven" has "ranks        8 on 3 nodes (uneven, about 2 per node)"
check "3 nodes, 8 ranks: uneven-placement warning" has "warning      uneven placement: nodes hold different rank counts"
check "3 nodes, 8 ranks: still round-robin (no round-robin warning)" hasnt "round-robin placement was asked for"
check "3 nodes, 8 ranks: -v table has rank r on node r mod 3" placement_is 3
pycheck "3 nodes, 8 ranks: results file says 3 nodes, node bytes 3:3:2 blocks, sum = total" nodes uneven "$T/uneven.h5"

fakenodes_hostfile "$T/unequal" 2 3 1
FAKENODES_HOSTFILE=$T/unequal FAKENODES_MAP=slot run_nodes 4 -d "$D" -t 64k -b 1m -v --no-results
check "slots 3+1, --map-by slot: pfsbench exits 0" rc_is 0
check "slots 3+1, --map-by slot: uneven-placement warning" has "warning      uneven placement: nodes hold different rank counts"
check "slots 3+1, --map-by slot: round-robin warning" has "warning      round-robin placement was asked for, but rank r is not on node r mod 2"
fakenodes_setup 4 2
FAKENODES_EXTRA=()

# ---- pfsrun: dry runs ---------------------------------------------------
printf 'node1\nnode1\nnode2\nnode2\nnode3\nnode3\nnode4\nnode4\n' >"$T/pbs_nodefile"
RC=0
PBS_NODEFILE=$T/pbs_nodefile "$PFSRUN" --dry-run -d "$D" -t 64k --label "two words" >"$T/out" 2>"$T/err" || RC=$?
want="mpirun -np 8 --map-by node --host node1:2,node2:2,node3:2,node4:2 -x PFSBENCH_PLACEMENT=round-robin $BIN -d $D -t 64k --label 'two words'"
check "pfsrun --dry-run, PBS_NODEFILE: exits 0" rc_is 0
check "pfsrun --dry-run, PBS_NODEFILE: prints the mpirun line (all slots, round-robin)" [ "$(cat "$T/out")" = "$want" ]
check "pfsrun --dry-run, PBS_NODEFILE: the launch line is on stderr" grep -qxF "pfsrun: launch: $want" "$T/err"

# IOzone -+m client lists: host, working directory, path to iozone. pfsbench's ranks share one
# directory: the list's becomes -d (after `--` for an iozone line); lists whose directories
# differ, or are named on some lines only, are refused unless -d is given, which wins
# (the seeds' recipe iozone-pvfs2 gives -d with such a list).
printf '# host, working directory, path to iozone\nnode1 %s /usr/bin/iozone\nnode2 %s /usr/bin/iozone\nnode3 %s /usr/bin/iozone\n\nnode1 %s /usr/bin/iozone\n' \
    "$D" "$D" "$D" "$D" >"$T/clients"
printf 'node1 /mnt/pfs/c1 /usr/bin/iozone\nnode2 /mnt/pfs/c2 /usr/bin/iozone\n' >"$T/clients-differ"
printf 'node1 /mnt/pfs/c1 /usr/bin/iozone\nnode2\n' >"$T/clients-partial"
printf 'node1\nnode2\n' >"$T/clients-hosts"
RC=0
"$PFSRUN" --clients "$T/clients" -n 3 --mpirun-args "--oversubscribe --bind-to none" --dry-run -t 64k >"$T/out" 2>"$T/err" || RC=$?
want="mpirun -np 3 --map-by node --host node1:2,node2:1,node3:1 -x PFSBENCH_PLACEMENT=round-robin --oversubscribe --bind-to none $BIN -t 64k -d $D"
check "pfsrun --dry-run --clients: exits 0" rc_is 0
check "pfsrun --dry-run --clients: first column as host, a slot per line, the list's directory as -d" [ "$(cat "$T/out")" = "$want" ]
RC=0
"$PFSRUN" --clients "$T/clients" --dry-run -- -d "$D" >"$T/out" 2>"$T/err" || RC=$?
check "pfsrun --clients without -n: one rank per client line" grep -q "^mpirun -np 4 " "$T/out"
check "pfsrun --clients with the list's own -d: passed once" grep -q " $BIN -d $D\$" "$T/out"
RC=0
"$PFSRUN" --clients "$T/clients" --dry-run -- iozone -i 0 -t 4 >"$T/out" 2>"$T/err" || RC=$?
check "pfsrun --clients with an iozone line: the directory after --" grep -q " $BIN iozone -i 0 -t 4 -- -d $D\$" "$T/out"
RC=0
"$PFSRUN" --clients "$T/clients-hosts" --dry-run -d "$D" >"$T/out" 2>"$T/err" || RC=$?
check "pfsrun --clients, hosts alone: -d as given" grep -q "^mpirun -np 2 .* $BIN -d $D\$" "$T/out"
for list in clients clients-partial clients-differ; do
    RC=0
    "$PFSRUN" --clients "$T/$list" --dry-run -- -d "$T" -t 64k >"$T/out" 2>"$T/err" || RC=$?
    check "pfsrun --clients $list and a -d of its own: that -d wins, once" grep -q " $BIN -d $T -t 64k\$" "$T/out"
    check "pfsrun --clients $list and a -d of its own: says the column is not used" \
        grep -qF "pfsrun: -d $T given: the client list's directory column is not used" "$T/err"
done
RC=0
"$PFSRUN" --clients "$T/clients-partial" --dry-run -- iozone -i 0 -t 2 -d 5 -- -d "$T" >"$T/out" 2>"$T/err" || RC=$?
check "pfsrun --clients with an iozone line: its -- -d wins, IOzone's own -d is not a directory" \
    grep -q " $BIN iozone -i 0 -t 2 -d 5 -- -d $T\$" "$T/out"

RC=0
"$PFSRUN" --hostfile "$FAKENODES_HOSTFILE" --dry-run -d "$D" >"$T/out" 2>"$T/err" || RC=$?
check "pfsrun --dry-run --hostfile: passes the hostfile, -n = its slots" \
    [ "$(cat "$T/out")" = "mpirun -np 8 --map-by node --hostfile $FAKENODES_HOSTFILE -x PFSBENCH_PLACEMENT=round-robin $BIN -d $D" ]

RC=0
SLURM_JOB_NODELIST='node[1-4]' SLURM_TASKS_PER_NODE='2(x4)' SLURM_NTASKS=8 "$PFSRUN" --srun --dry-run -d "$D" >"$T/out" 2>"$T/err" || RC=$?
check "pfsrun --dry-run --srun in a Slurm allocation: srun cyclic over 4 nodes" \
    [ "$(cat "$T/out")" = "srun --mpi=pmix --distribution=cyclic -N 4 -n 8 --export=ALL,PFSBENCH_PLACEMENT=round-robin $BIN -d $D" ]
RC=0
SLURM_JOB_NODELIST='node[1-4]' SLURM_TASKS_PER_NODE='2(x4)' "$PFSRUN" -n 6 --dry-run -d "$D" >"$T/out" 2>"$T/err" || RC=$?
check "pfsrun --dry-run in a Slurm allocation: mpirun --map-by node, allocation from Slurm" \
    [ "$(cat "$T/out")" = "mpirun -np 6 --map-by node -x PFSBENCH_PLACEMENT=round-robin $BIN -d $D" ]
check "pfsrun --show-slots in a Slurm allocation" \
    [ "$(SLURM_JOB_NODELIST='n[01-03]' SLURM_TASKS_PER_NODE='3,2(x2)' "$PFSRUN" --show-slots 2>&1)" = 7 ]

# pfsbench says which of its options take a value (--list-options=json):
# a value that looks like a pfsrun option stays
# pfsbench's, for every such option (--stall-warn was missing from a hand list).
RC=0
PBS_NODEFILE=$T/pbs_nodefile "$PFSRUN" --dry-run -d "$D" --label -n --stall-warn -n -t 64k >"$T/out" 2>"$T/err" || RC=$?
check "pfsrun --dry-run: values of pfsbench's options (--label -n, --stall-warn -n) stay pfsbench's" \
    grep -qE -- "-np 8 .* -d $D --label -n --stall-warn -n -t 64k\$" "$T/out"

# ---- pfsrun: bad usage exits 2 with a message ----------------------------
usage_error() {  # usage_error WHAT MESSAGE_PART ARGS... (env via env(1) in ARGS)
    local what=$1 msg=$2
    shift 2
    RC=0
    "$@" >"$T/out" 2>"$T/err" || RC=$?
    if [ "$RC" -eq 2 ] && grep -qF -- "$msg" "$T/err"; then ok "$what"; else bad "$what (rc $RC)"; fi
}
usage_error "pfsrun -n 0" "-n: '0' is not a whole number" "$PFSRUN" -n 0 -d "$D"
usage_error "pfsrun without -n and without nodes" "-n RANKS is needed" "$PFSRUN" -d "$D"
usage_error "pfsrun --srun outside Slurm" "--srun works inside a Slurm allocation only" "$PFSRUN" --srun -n 2 -d "$D"
usage_error "pfsrun --clients missing file" "is not a readable file" "$PFSRUN" --clients "$T/nope" -d "$D"
usage_error "pfsrun without pfsbench options" "no pfsbench options given" env PBS_NODEFILE="$T/pbs_nodefile" "$PFSRUN"
usage_error "pfsrun with a bad PFSBENCH" "is not an executable file" env PFSBENCH="$T/nope" "$PFSRUN" -n 2 -d "$D"
usage_error "pfsrun --clients whose directories differ" "every line must name the same one" \
    "$PFSRUN" --clients "$T/clients-differ" -t 64k
usage_error "pfsrun --clients naming a directory on some lines" "give it on every line or on none" \
    "$PFSRUN" --clients "$T/clients-partial" -t 64k
usage_error "pfsrun --clients with directories and an ior line" "give that tool its directory" \
    "$PFSRUN" --clients "$T/clients" -- ior -w
usage_error "pfsrun --hostfile and --clients" "give one node source" "$PFSRUN" --hostfile "$FAKENODES_HOSTFILE" --clients "$T/clients" -d "$D"

# ---- pfsrun: a real run over the fake nodes of a PBS_NODEFILE -------------
RC=0
PBS_NODEFILE=$T/pbs_nodefile timeout 90 "$PFSRUN" --mpirun-args "$FAKENODES_MPIRUN_ARGS_STRING" -- \
    -d "$D" -t 64k -b 1m -C -v -o "$T/pfsrun.h5" >"$T/out" 2>"$T/err" || RC=$?
check "pfsrun over 4 fake PBS nodes: exits 0" rc_is 0
check "pfsrun over 4 fake PBS nodes: rank r on node r mod 4" placement_is 4
check "pfsrun over 4 fake PBS nodes: no round-robin warning" hasnt "round-robin placement was asked for"
pycheck "pfsrun over 4 fake PBS nodes: results say 4 nodes, round-robin asked, reads from other nodes" nodes pfsrun "$T/pfsrun.h5"

# ---- pfsrun: a real iozone run from a client list of the 4 fake nodes, in the list's directory
mkdir -p "$T/clients-dir" "$T/clients-cwd"
printf 'node%d %s /usr/bin/iozone\n' 1 "$T/clients-dir" 2 "$T/clients-dir" 3 "$T/clients-dir" 4 "$T/clients-dir" >"$T/clients-real"
RC=0
(cd "$T/clients-cwd" && timeout 90 "$PFSRUN" --clients "$T/clients-real" --mpirun-args "$FAKENODES_MPIRUN_ARGS_STRING" -- \
    iozone -i 0 -r 64k -s 256k -t 4 -- -o "$T/clients.h5") >"$T/out" 2>"$T/err" || RC=$?
check "pfsrun --clients, iozone over 4 fake nodes: exits 0" rc_is 0
check "pfsrun --clients, iozone: the run worked in the list's directory, on 4 nodes" \
    "$PY" "$PFS_SRC/tests/mpi/check_run_dir.py" "$T/clients.h5" "$T/clients-dir" 4
check "pfsrun --clients, iozone: nothing left in the working directory or the list's" test -z "$(ls -A "$T/clients-cwd")$(ls -A "$T/clients-dir")"
check "pfsrun --clients, iozone -t 4: IOzone's lines hold the run's figures" \
    "$PY" "$PFS_SRC/tests/mpi/check_iozone_lines.py" "$T/out" "$T/clients.h5" 4

# ---- the PBS job scripts, with a fake PBS_NODEFILE -------------------------
for j in pfsbench.pbs sweep.pbs pfsbench.slurm sweep.slurm; do
    check "jobs/$j: bash -n" bash -n "$PFS_SRC/jobs/$j"
done
RC=0
env PBS_NODEFILE="$T/pbs_nodefile" PBS_JOBID=42.fakepbs PBS_O_WORKDIR="$T" PFSRUN="$PFSRUN" \
    PFSRUN_MPIRUN_ARGS="$FAKENODES_MPIRUN_ARGS_STRING" PFS_DIR="$T/pbsdir" PFS_ARGS="-t 64k -b 1m -v" \
    PFS_RESULTS="$T/pbs.h5" timeout 90 bash "$PFS_SRC/jobs/pfsbench.pbs" >"$T/out" 2>"$T/err" || RC=$?
check "jobs/pfsbench.pbs: exits 0" rc_is 0
check "jobs/pfsbench.pbs: launched through pfsrun with the node file" grep -qF "pfsrun: launch: mpirun -np 8 --map-by node --host node1:2,node2:2,node3:2,node4:2" "$T/err"
check "jobs/pfsbench.pbs: rank r on node r mod 4" placement_is 4
pycheck "jobs/pfsbench.pbs: results in PFS_RESULTS, 4 nodes, label pbs-<job id>" nodes pbs "$T/pbs.h5"

RC=0
env PBS_NODEFILE="$T/pbs_nodefile" PBS_O_WORKDIR="$T" PFSRUN="$PFSRUN" \
    PFSRUN_MPIRUN_ARGS="$FAKENODES_MPIRUN_ARGS_STRING" PFS_DIR="$T/pbsdir" PFS_TOTAL=1m PFS_ARGS="-t 64k" \
    PFS_RESULTS="$T/sweep.h5" timeout 100 bash "$PFS_SRC/jobs/sweep.pbs" >"$T/out" 2>"$T/err" || RC=$?
check "jobs/sweep.pbs: points 1 2 4 8" grep -qF "ranks 1 2 4 8; total 1m per point" "$T/out"
for n in 1 2 4 8; do
    check "jobs/sweep.pbs: point $n launched with -np $n and --label sweep-$n" \
        grep -qE "^pfsrun: launch: mpirun -np $n --map-by node .* --total 1m -t 64k -o $T/sweep.h5 --label sweep-$n\$" "$T/err"
done
check "jobs/sweep.pbs: exits 0" rc_is 0
pycheck "jobs/sweep.pbs: one results file, a run per point, fixed total divided by ranks" nodes sweep "$T/sweep.h5"

# ---- the I/O engines across nodes (issue 17): 2 nodes x 2 ranks, -C reads
# another node's data, each engine's bytes read = bytes written, verified.
# The engines are the sections of one job file (one MPI job over the fake
# nodes), each a run of its own in $T/eng.h5.
fakenodes_setup 2 2
FAKENODES_EXTRA=()
ENGINES=("uring:api = uring,iodepth = 8" "mmap:api = mmap" "hdf5:api = hdf5"
    "hdf5-coll:api = hdf5,shared,collective" "mpiio-coll:api = mpiio,shared,collective")
eng_job() {  # eng_job NAME...: the job file of those engines
    local e n
    printf '[global]\ndir = %s\ntransfer = 64k\nblock = 1m\nphases = write,read\nreorder\nverify\n' "$D"
    for n in "$@"; do
        for e in "${ENGINES[@]}"; do
            [ "${e%%:*}" = "$n" ] && printf '[%s]\n%s\n' "$n" "${e#*:}" | tr , '\n'
        done
    done
}
names=(uring mmap hdf5 hdf5-coll mpiio-coll)
eng_job "${names[@]}" >"$T/eng.job"
# eng_run: the job over the fake nodes (a timeout for the five runs)
eng_run() { RC=0; fakenodes_mpirun 4 300 "$PFSBENCH" -f "$T/eng.job" -o "$T/eng.h5" -q >"$T/out" 2>"$T/err" || RC=$?; }
eng_run
if [ "$RC" -eq 2 ] && grep -q "io_uring" "$T/err"; then
    echo "# -a uring --iodepth 8: io_uring not usable on this kernel"
    names=(mmap hdf5 hdf5-coll mpiio-coll)
    eng_job "${names[@]}" >"$T/eng.job"
    rm -f "$T/eng.h5"
    eng_run
fi
check "engines on 2 fake nodes: the job exits 0 (reads verified across nodes)" rc_is 0
RUN_ATTRS="api nodes reorder_shift" list_runs "$T/eng.h5"
for n in "${names[@]}"; do
    run_of "$n"
    api=${n%-coll}
    check "engine $n on 2 fake nodes: run complete (${RUN[1]:-no run})" [ "${RUN[1]:-}" = complete ]
    check "engine $n on 2 fake nodes: api recorded, 2 nodes, bytes read = bytes written (${RUN[*]:3})" \
        [ "${RUN[*]:3:4}" = "write=$((4 << 20)) read=$((4 << 20)) api=$api nodes=2" ]
    shift_of=${RUN[7]:-reorder_shift=(none)}
    shift_of=${shift_of#reorder_shift=}
    check "engine $n on 2 fake nodes: -C, reads from another node (reorder_shift $shift_of)" \
        test "$shift_of" != 0 -a "$shift_of" != "(none)"
    check "engine $n on 2 fake nodes: no data file left" [ -z "$(ls -A "$D" | grep -F "pfsbench.${RUN[2]:-none}.")" ]
done
check "engines on 2 fake nodes: no data file left" [ -z "$(ls -A "$D")" ]

pycheck "node_hosts: each node's host, in node order, for the per-node datasets" nodes node_hosts "$T/rr.h5"

finish
