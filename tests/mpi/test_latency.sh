#!/bin/bash
# Latency and time (issue 16), measured against operations of known length:
# the stall shim (tests/lib/stall.c) makes every pwrite (or pread) sleep a
# known time before it works, so each transfer's latency is that time plus
# the call itself. Checked from the results file:
#   - the histogram counts every transfer, open and close (sums = ops);
#   - p50 and min are no less than the programmed delay and p50 is within
#     the delay plus the sleep's overshoot on a loaded VM;
#   - per node, the histograms add up to the run's;
#   - the time series' bytes and operations add up to the phase's, and no
#     interval holds more operations than the delay allows;
#   - a second rank's histogram is merged in (2 ranks, one of them delayed:
#     the run's p99 is the delayed rank's, its p10 the fast one's);
#   - %CPU stays within 100 with --verify (the pattern's CPU is out of the
#     window, as its time is out of the span), and in phases of a few ms;
#   - --interval is refused outside 0.01..3600 s (exit 2, nothing made).
. "$(dirname "$0")/lib.sh"
: "${PFS_STALL_LIB:?set PFS_STALL_LIB to the stall shim (ctest does)}"
D=$T/data
R=$T/results.h5
mkdir -p "$D"
PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB"

# delayed NP SECS CALL RANK ARGS...: pfsbench with every CALL sleeping SECS on RANK ('*': all).
delayed() {
    local np=$1 secs=$2 call=$3 rank=$4
    shift 4
    local env=(env LD_PRELOAD="$PRELOAD" PFS_STALL_SECS="$secs" PFS_STALL_CALL="$call" PFS_STALL_COUNT=1000000)
    [ "$rank" = "*" ] || env+=(PFS_STALL_RANK="$rank")
    RC=0
    "${env[@]}" timeout 120 mpirun -np "$np" $(one_rank_exit "$np") --oversubscribe --bind-to none "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" || RC=$?
}

# 1 rank, 60 writes of 4 KiB, each 2 ms longer than it would be.
delayed 1 0.002 pwrite '*' -d "$D" -t 4k -b 240k -p write,read --interval 0.05 -o "$R" -q
check "2 ms per write: exit 0" [ "$RC" -eq 0 ]
pycheck "2 ms per write: counts, percentiles and the time series" latency delay "$R"

# 2 ranks, only rank 1 delayed by 50 ms: the run's histogram holds both.
# Each delayed write takes 50 ms or more (the sleep); the undelayed ones,
# on tmpfs (no journal, no dirty-page throttling), are split from them at
# 25 ms, so a fast write counts as slow only if the machine holds it up
# 25 ms (a 5 ms delay and a 1 ms split failed when one write was held up
# 1 ms: a preemption by the other ctest slot, the sanitizers).
S=$(mktemp -d /dev/shm/pfslat.XXXXXX)
trap 'rm -rf "$T" "$S"' EXIT
delayed 2 0.05 pwrite 1 -d "$S" -t 4k -b 200k -p write --interval 0.05 -o "$R" -q
check "2 ranks, rank 1 at 50 ms: exit 0" [ "$RC" -eq 0 ]
pycheck "2 ranks: the run's histogram is the merge of both ranks'" latency merge "$R"
rm -rf "$S"

# The report prints the latency table with the delay in it.
delayed 1 0.002 pwrite '*' -d "$D" -t 4k -b 40k -p write --format json -o "$R"
check "json: exit 0" [ "$RC" -eq 0 ]
pycheck "json: the latency object of the write row holds the delay" latency json "$T/out"

# %CPU never passes 100 (issue 26): with --verify the pattern's CPU leaves
# the CPU window as its wall time leaves the span (main: 2,150% on the null
# backend with 2 threads, 238% through pfsbench ior -W -R), and a stream is
# never counted more CPU than its span (a stat of a few ms showed 100.3%).
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
cpu_ok() {
    local what=$1
    shift
    if [ "$RC" -eq 0 ] && "$PY" "$SRC/tests/mpi/check_cpu.py" "$@" >"$T/py" 2>&1; then
        ok "$what: $(cat "$T/py")"
    else
        bad "$what"; echo "--- python"; cat "$T/py"
    fi
}
S=$(mktemp -d /dev/shm/pfscpu.XXXXXX)
trap 'rm -rf "$T" "$S"' EXIT
run_mpi 1 120 -d "$S" --api null -t 1m -b 256m -p write --verify --threads 2 --format json -o "$T/cpu.h5"
cpu_ok "--verify on the null backend, 2 threads: %CPU within 100" "$T/out" "$T/cpu.h5" "$SRC"
run_mpi 1 120 ior -a POSIX -t 1m -b 64m -w -r -W -R -o "$S/iorf" -- --format json --no-results
cpu_ok "pfsbench ior -W -R: %CPU within 100" "$T/out"
run_mpi 1 120 -d "$S" -p create,stat,delete -n 300 --format json --no-results
cpu_ok "metadata phases of a few ms: %CPU within 100" "$T/out"
rm -rf "$S"

for bad in 0.001 3601 abc; do
    run_mpi 1 60 -d "$D" --interval "$bad" -o "$T/bad.h5"
    check "--interval $bad: exit 2" [ "$RC" -eq 2 ]
    check "--interval $bad: names the option" grep -q -- "--interval" "$T/err"
    check "--interval $bad: no results file" [ ! -e "$T/bad.h5" ]
done
finish
