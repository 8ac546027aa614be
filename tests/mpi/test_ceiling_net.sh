#!/bin/bash
# The network ceiling (src/mpi/ceiling.c) on fake nodes (tests/lib/fakenodes.sh),
# held against a plain MPI bandwidth loop run the same way: every node named
# once, the job's figure within a wide factor of the loop's (the machine is
# loaded: no tight timing), only the communicator it is given measured, one
# node giving no figure, and a leader without memory failing on every rank
# without a hang.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
: "${PFS_CEILING_PROBE:?set PFS_CEILING_PROBE to the ceiling_probe binary (ctest does)}"
PROBE=$PFS_CEILING_PROBE
FAKENODES_DIR=$T

# probe NP MODE ARGS... : the probe on NP ranks over $FAKENODES_HOSTFILE, round-robin.
probe() {
    local np=$1
    shift
    RC=0
    fakenodes_mpirun "$np" 90 "$PROBE" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
# field WORD [FILE]: the number after WORD on the "job" line.
field() { awk -v w="$1" '$1 == "job" { for (i = 1; i < NF; i++) if ($i == w) print $(i + 1) }' "${2:-$T/out}"; }
# nodes_named K: K "node" lines naming node1..nodeK once each, each rate > 0.
nodes_named() {
    awk -v k="$1" '$1 == "node" { n++; seen[$3]++; if ($4 <= 0) bad = 1 }
        END { for (i = 1; i <= k; i++) if (seen["node" i] != 1) bad = 1; exit (n != k || bad) }' "$T/out"
}
# within A B F: A and B both > 0 and within a factor F of each other.
within() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { exit !(a > 0 && b > 0 && a <= f * b && b <= f * a) }'; }

# ---- 4 nodes x 2 ranks: the library, then the plain loop --------------------
fakenodes_setup 4 2
probe 8 net 4096 8 # 8 rounds of 4 messages of 4 MiB: 128 MiB each way per node
check "4x2 net: exits 0" rc_is 0
check "4x2 net: 4 nodes" grep -qx "nodes 4" "$T/out"
check "4x2 net: every node named once (node1..node4), each with a rate" nodes_named 4
check "4x2 net: 128 MiB per node" [ "$(field bytes)" = 134217728 ]
NET=$(field job)
check "4x2 net: rank 1 has the job's figure too" grep -qx "rank1 nodes 4 job $NET" "$T/out"
check "4x2 net: min <= median <= max" \
    awk -v a="$(field min)" -v b="$(field median)" -v c="$(field max)" 'BEGIN { exit !(a > 0 && a <= b && b <= c) }'
cp "$T/out" "$T/net.out"
probe 8 loop 4096 32 # the same 128 MiB per node, one blocking MPI_Sendrecv at a time
check "4x2 loop: exits 0" rc_is 0
check "4x2 loop: 4 nodes" grep -qx "nodes 4" "$T/out"
LOOP=$(awk '$1 == "job" { print $2 }' "$T/out")
echo "# network ceiling: job $NET MiB/s; plain MPI_Sendrecv loop $LOOP MiB/s"
check "4x2: the ceiling is within a factor 8 of the plain loop ($NET vs $LOOP MiB/s)" within "$NET" "$LOOP" 8

# ---- a communicator without node4's ranks: only 3 nodes measured ------------
probe 8 net-sub 1024 2
check "sub-communicator: exits 0" rc_is 0
check "sub-communicator: 3 nodes, node1..node3, not node4" \
    bash -c 'grep -qx "nodes 3" "$1" && ! grep -q " node4 " "$1"' _ "$T/out"
check "sub-communicator: every node named once" nodes_named 3

# ---- one node: no network to measure -----------------------------------------
fakenodes_setup 1 2
probe 2 net 1024 2
check "1 node: exits 0, nodes 1, job 0" bash -c 'grep -qx "nodes 1" "$1" && grep -q "^job 0.0 " "$1"' _ "$T/out"

# ---- a leader that cannot allocate: every rank fails, no hang ----------------
# 64 receive buffers of ~2 GiB: 128 GiB, more than memory and swap here
# (one allocation past them is refused under the kernel's default overcommit).
MEMSWAP=$(awk '/^(MemTotal|SwapTotal):/ { s += $2 } END { print int(s / 1048576) }' /proc/meminfo)
if [ "$MEMSWAP" -lt 100 ] && [ "$(cat /proc/sys/vm/overcommit_memory)" != 1 ]; then
    fakenodes_setup 2 2
    # (under AddressSanitizer, malloc must be let to fail rather than abort)
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1 probe 4 net 2097151 1 64
    check "no memory: exits 1 (not a timeout, not a hang)" rc_is 1
    check "no memory: rank 0 names the rank that could not allocate" \
        grep -q "^error: network ceiling: rank 0 could not allocate" "$T/out"
else
    echo "# no-memory case not run: ${MEMSWAP} GiB of memory and swap, overcommit $(cat /proc/sys/vm/overcommit_memory)"
fi
finish
