#!/bin/bash
# --ceilings end to end (issue 29): on 2 fake nodes (tests/lib/fakenodes.sh),
# each node's memory-copy and network rates stored with the run, present and
# positive, within a broad factor of bench_memcpy and of a plain MPI
# Isend/Irecv loop (ceiling_probe loop) run by this script (the machine is shared and
# loaded: a factor 8, as test_ceiling_*.sh; here the same ring measured
# 716 to 3776 MiB/s three times in a row); each data phase's percentages equal its
# bandwidth over the stored ceilings (exact arithmetic); the same in --format
# json; one node has no network ceiling; a run without --ceilings stores and
# prints none; pfsbench.open's frames read them. The checks are
# tests/mpi/ceilings_checks.py.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
: "${PFS_CEILING_PROBE:?set PFS_CEILING_PROBE to the ceiling_probe binary (ctest does)}"
: "${PFS_BENCH_MEMCPY:?set PFS_BENCH_MEMCPY to bench_memcpy (ctest does; the bench directory builds it)}"
FAKENODES_DIR=$T
fakenodes_setup 2 2
NCPU=$(nproc --all)
# fake NP ARGS...: pfsbench on NP ranks round-robin over the 2 fake nodes, as run_mpi.
fake() {
    local np=$1
    shift
    RC=0
    fakenodes_mpirun "$np" 120 "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
ARGS=(-b 4m -t 1m -i 2 -p write,read,create,delete --files 20)

# ---- what to hold the ceilings against, measured first, one at a time ----
timeout 60 "$PFS_BENCH_MEMCPY" -s 32m -t 1m -r 5 >"$T/bench1" 2>&1
timeout 60 "$PFS_BENCH_MEMCPY" -s 32m -t 1m -r 5 -j "$NCPU" >"$T/benchall" 2>&1
# The ceiling's shape: 4 MiB messages, 4 in flight each way, 8 rounds (128 MiB per node).
fakenodes_mpirun 2 60 "$PFS_CEILING_PROBE" loop 4096 8 4 >"$T/loop" 2>&1
sed 's/^/# /' "$T/bench1" "$T/benchall" "$T/loop"

# ---- 4 ranks on 2 fake nodes, --ceilings: the text report and the file -----
mkdir "$T/d"
fake 4 -d "$T/d" "${ARGS[@]}" --ceilings -v -o "$T/c.h5"
check "2 nodes --ceilings: exits 0" [ "$RC" -eq 0 ]
grep '^ceilings\|ceilings:' "$T/out" | sed 's/^/# /'
check "2 nodes: the report prints the clients' ceilings" \
    grep -qE "^ceilings +memory [0-9.]+ MiB/s \(memcpy, all cores\), network [0-9.]+ MiB/s .*summed over 2 nodes$" "$T/out"
check "2 nodes -v: a line per node, node1 and node2" \
    bash -c 'grep -qE "^ceilings +node 0 node1: memcpy one core" "$1" && grep -qE "^ceilings +node 1 node2: " "$1"' _ "$T/out"
pycheck "2 nodes: ceilings stored per node (node1, node2), each rate > 0" ceilings stored "$T/c.h5" 2
pycheck "2 nodes: each data repetition's percentages = bandwidth / stored ceilings, the binding one the lower" \
    ceilings shares "$T/c.h5" 2
pycheck "2 nodes -v: the report's line under each data row says the stored percentages and binding" \
    ceilings text "$T/c.h5" "$T/out"
pycheck "2 nodes: the line under each data phase's summary row: its mean's shares and binding" \
    ceilings summary "$T/c.h5" "$T/out"
pycheck "2 nodes: metadata phases have no ceiling percentages" ceilings meta_none "$T/c.h5"
pycheck "2 nodes: pfsbench.open's ceilings() and summary() read them as stored" ceilings frames "$T/c.h5" 2
pycheck "2 nodes: memory within 1/8x-8x of bench_memcpy (one core each node, all cores summed)" \
    ceilings memory "$T/c.h5" "$T/bench1" "$T/benchall"
pycheck "2 nodes: network within 1/8x-8x of a plain MPI loop of the same shape (nodes summed)" \
    ceilings network "$T/c.h5" "$T/loop"

# ---- side by side: JSON, one node, no --ceilings ------------------------------
mkdir "$T/dj" "$T/d1" "$T/dn"
par json fake 2 -d "$T/dj" "${ARGS[@]}" --ceilings --format json --no-results
par one run_mpi 2 120 -d "$T/d1" "${ARGS[@]}" --ceilings -o "$T/one.h5"
par none fake 4 -d "$T/dn" "${ARGS[@]}" -o "$T/none.h5"
par_wait json
check "json: exits 0" [ "$RC" -eq 0 ]
pycheck "json: ceilings per node, and each data repetition's shares = bandwidth / ceiling" ceilings json "$T/out" 2
par_wait one
check "1 node --ceilings: exits 0" [ "$RC" -eq 0 ]
check "1 node: no network between clients, said, not invented" \
    grep -qE "^ceilings +memory [0-9.]+ MiB/s \(memcpy, all cores of [^;]+; one core [0-9.]+\), no network between clients \(one node\)$" "$T/out"
check "1 node: no per-repetition lines without -v, a line per data phase's summary: memory binds, network: one node" \
    bash -c '[ "$(grep -c "memory ceiling (binding), network: one node$" "$1")" = 2 ] && ! grep -q " ceilings: [0-9]" "$1"' _ "$T/out"
pycheck "1 node: those lines say the mean's share of the stored ceiling" ceilings summary "$T/one.h5" "$T/out"
pycheck "1 node: stored, network NaN, memory binds" ceilings one_node "$T/one.h5"
par_wait none
check "no --ceilings: exits 0" [ "$RC" -eq 0 ]
check "no --ceilings: no ceiling line" not grep -qi "ceiling" "$T/out"
pycheck "no --ceilings: nothing stored" ceilings none "$T/none.h5"
pycheck "no --ceilings: pfsbench.open's ceilings() has no rows, summary() NaN" ceilings frames "$T/none.h5" 0
finish
