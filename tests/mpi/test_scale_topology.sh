#!/bin/bash
# The node-aware topology on fake nodes (tests/lib/fakenodes.sh), 3 nodes x 2
# ranks mapped by node and by slot: the placement, node count and hosts as
# test_nodes.sh expects them, one clock correction per node, the failures
# reduced to a count and the first by time, the progress line by default
# where mpirun itself writes to a terminal (a pty from script(1)) and not
# where its output goes to files, and the split by name where two runtime
# nodes carry one host name.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
D=$T/data
mkdir -p "$D"
FAKENODES_DIR=$T
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_NTASKS SLURM_JOB_ID PBS_NODEFILE PBS_JOBID

run_nodes() { fakenodes_pfs "$1" 90 "${@:2}"; }  # run_nodes NP ARGS...

# clocks_per_node FILE NODES... : the placement's node column is NODES, and
# every rank of a node has its node's first rank's correction and uncertainty
# (rank 0's node: exactly 0), the hosts node1.. by node.
clocks_per_node() {
    "$PY" "$PFS_TESTMPI/scale_topology_checks.py" clocks "$@"
}

fakenodes_setup 3 2
for map in node slot; do
    if [ $map = node ]; then nodes="0 1 2 0 1 2" shift=1; else nodes="0 0 1 1 2 2" shift=2; fi
    FAKENODES_MAP=$map run_nodes 6 -d "$D" -t 64k -b 1m -C -v -o "$T/$map.h5"
    check "3x2 by $map: exits 0" rc_is 0
    check "3x2 by $map: 6 ranks on 3 nodes, 2 per node" has "ranks        6 on 3 nodes (2 per node)"
    check "3x2 by $map: reorder shift $shift" has "reorder: rank r reads the data of rank (r+$shift) mod 6, on another node"
    [ $map = node ] && check "3x2 by node: -v table has rank r on node r mod 3, host node<r mod 3 + 1>" placement_is 3
    check "3x2 by $map: results file: nodes $nodes, hosts, one clock correction per node" clocks_per_node "$T/$map.h5" $nodes
done

# ---- failures: a count and the first by time -------------------------------
for n in 1 3 4; do : >"$D/pfsbench.fail3.$n"; done
FAKENODES_MAP=slot run_nodes 6 -d "$D" -t 64k -b 1m --run-id fail3 -o "$T/fail.h5"
check "3 ranks fail: exit 1" rc_is 1
check "3 ranks fail: three error lines, one per failed rank" [ "$(grep -c '^pfsbench: error: rank [134] on node[123]: open for writing' "$T/err")" = 3 ]
check "3 ranks fail: the first line is the first failure" \
    sh -c "grep '^pfsbench: error: rank' '$T/err' | head -1 | grep -q 'File exists (errno 17).*(the first failure)\$'"
check "3 ranks fail: no 'more ranks failed' line" not err_has "more rank"
pycheck "3 ranks fail: the results file records the first failure, of 3" scale_topology first_failure "$T/fail.h5" "$T/err"
rm -f "$D"/pfsbench.fail3.*

# More failed ranks than are named: 17 of 18 (3 nodes x 6), 16 named.
fakenodes_setup 3 6
for n in $(seq 1 17); do : >"$D/pfsbench.fail17.$n"; done
run_nodes 18 -d "$D" -t 64k -b 64k --run-id fail17 --no-results
check "17 of 18 ranks fail: exit 1" rc_is 1
check "17 of 18 ranks fail: 16 named" [ "$(grep -c '^pfsbench: error: rank [0-9]* on node[123]: open for writing' "$T/err")" = 16 ]
check "17 of 18 ranks fail: and 1 more" err_has "pfsbench: error: ... and 1 more rank failed"
rm -f "$D"/pfsbench.fail17.*
fakenodes_setup 3 2

# ---- progress by default where mpirun writes to a terminal ------------------
cat >"$T/launch.sh" <<LAUNCH
. "$PFS_TESTS/lib/fakenodes.sh"
FAKENODES_HOSTFILE=$FAKENODES_HOSTFILE FAKENODES_MAP=slot fakenodes_mpirun 6 90 "$PFSBENCH" -d "$D" -a null -t 4k -b 64g -D 3 -p write --no-results
LAUNCH
RC=0
script -qfec "bash $T/launch.sh" "$T/typescript" >/dev/null 2>&1 </dev/null || RC=$?
check "pty: mpirun in a pseudo-terminal exits 0" rc_is 0
check "pty: the progress line shows, redrawn in place" grep -qaE $'\r\033\\[Kwrite +[0-9.]+% .* ETA [0-9]+ s' "$T/typescript"
check "pty: the report follows" grep -qaE 'write +0 +[0-9.]+ ' "$T/typescript"
RC=0
bash "$T/launch.sh" >"$T/out" 2>"$T/err" </dev/null || RC=$?
check "files: exits 0" rc_is 0
check "files: no progress line on stdout or stderr" not grep -q "ETA" "$T/out" "$T/err"
check "files: the report is there" has "write         0 "

# ---- two runtime nodes, one host name: the nodes are the names -------------
# The ranks of fake node 3 run renamed node1 (their daemon stays node3), so
# shared memory says 3 nodes and the names 2; the names win, as before.
# (Over TCP alone: Open MPI's shared-memory transport trips over a renamed
# rank, with the old pfsbench too.)
cat >"$T/as-node1" <<'WRAP'
#!/bin/bash
if [ "$(hostname)" = node3 ]; then exec unshare --uts /bin/sh -c 'hostname node1 && exec "$@"' sh "$@"; fi
exec "$@"
WRAP
chmod +x "$T/as-node1"
RC=0
FAKENODES_MAP=slot fakenodes_mpirun 6 90 --mca btl self,tcp "$T/as-node1" "$PFSBENCH" -d "$D" -t 64k -b 1m -v -C -o "$T/alias.h5" \
    >"$T/out" 2>"$T/err" || RC=$?
check "one name on two runtime nodes: exits 0" rc_is 0
check "one name on two runtime nodes: 6 ranks on 2 nodes" has "ranks        6 on 2 nodes"
check "one name on two runtime nodes: uneven, and no shift puts every reader on another node" \
    sh -c "grep -qF 'uneven placement' '$T/out' && grep -qF -- '--reorder on one node' '$T/out'"
pycheck "one name on two runtime nodes: ranks 0, 1, 4, 5 on node 0 (node1), 2, 3 on node 1 (node2), shift 0" scale_topology alias "$T/alias.h5"

finish
