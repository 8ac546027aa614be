#!/bin/bash
# The time series at its edges (issue 26), against operations of known
# duration: the delay shim (tests/lib/delay.c) makes every pwrite take
# 1 ms or more and logs when each one ended, and check_series.py holds
# every interval, the first and the last partial ones included, to the
# log: the stored edges are the grid cut to the phase (first open to last
# close), and each interval's bandwidth and ops/s, per node, are within 5%
# of the bytes and calls the log puts inside it over its length. A phase
# shorter than one interval is one point at the phase's own rate (a data
# phase, and a stat phase of a few ms that main showed at 1/100 of it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/fakenodes.sh"
DELAY=${PFS_DELAY_LIB:-$(dirname "${PFS_STALL_LIB:?set PFS_DELAY_LIB or PFS_STALL_LIB (ctest does)}")/libpfs_delay.so}
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
CHECK="$SRC/tests/mpi/check_series.py"
D=$T/data
mkdir -p "$D"
PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$DELAY"

# paced NP NAME ARGS...: pfsbench with every pwrite taking 1 ms more, logged to $T/NAME.<rank>.
paced() {
    local np=$1 name=$2
    shift 2
    RC=0
    env LD_PRELOAD="$PRELOAD" PFS_DELAY_CALL=pwrite PFS_DELAY_SECS=0.001 PFS_DELAY_LOG="$T/$name" \
        timeout 120 mpirun -np "$np" $(one_rank_exit "$np") --oversubscribe --bind-to none "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
# series WHAT FILE PHASE LOG: check_series.py's verdict.
series() {
    local what=$1
    shift
    if "$PY" "$CHECK" "$@" "$SRC" >"$T/py" 2>&1; then ok "$what: $(tr "\n" " " <"$T/py")"; else bad "$what"; echo "--- python"; cat "$T/py"; fi
}

# 1 rank, 1300 writes of 4 KiB at 1 ms or more: about 1.3 s over 0.5 s
# intervals, the last one partial (0.3 s; it was divided by 0.5 s).
paced 1 one -d "$D" -t 4k -b 5200k -p write --interval 0.5 -o "$T/one.h5" -q
check "1 rank, paced writes: exit 0" [ "$RC" -eq 0 ]
series "1 rank: every interval, the last partial one too, within 5% of the logged rate" "$T/one.h5" write "$T/one"

# 2 ranks on one node: the node's series is both ranks' together.
paced 2 two -d "$D" -t 4k -b 2600k -p write --interval 0.25 -o "$T/two.h5" -q
check "2 ranks, paced writes: exit 0" [ "$RC" -eq 0 ]
series "2 ranks: the node's intervals within 5% of both logs" "$T/two.h5" write "$T/two"

# A phase shorter than one interval: one point, at the phase's rate.
paced 1 short -d "$D" -t 4k -b 600k -p write --interval 1 -o "$T/short.h5" -q
check "a 0.15 s phase: exit 0" [ "$RC" -eq 0 ]
series "a phase shorter than one interval: one point within 5% of the log" "$T/short.h5" write "$T/short"
series "a phase shorter than one interval: the point is the phase's own rate" "$T/short.h5" write -

# A stat phase of a few milliseconds (main: 1/100 of its rate, its files
# over a whole second).
run_mpi 1 120 -d "$D" -p create,stat,delete -n 500 --interval 1 -o "$T/md.h5" -q
check "create,stat,delete: exit 0" [ "$RC" -eq 0 ]
series "a short stat phase: its one point is its files/s" "$T/md.h5" stat -

# 2 fake nodes, one rank each: each node's series against its own rank's log.
fakenodes_setup 2 1
FAKENODES_EXTRA=(-x LD_PRELOAD="$PRELOAD" -x PFS_DELAY_CALL=pwrite -x PFS_DELAY_SECS=0.001 -x PFS_DELAY_LOG="$T/nodes")
RC=0
fakenodes_mpirun 2 120 "$PFSBENCH" -d "$D" -t 4k -b 6m -p write --interval 0.5 -o "$T/nodes.h5" -q \
    >"$T/out" 2>"$T/err" || RC=$?
check "2 fake nodes, paced writes: exit 0" [ "$RC" -eq 0 ]
series "2 fake nodes: each node's intervals within 5% of its log" "$T/nodes.h5" write "$T/nodes"
finish
