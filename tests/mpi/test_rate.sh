#!/bin/bash
# Open-loop rates (--rate, issue 30), on tmpfs with 2 ranks:
#   - a slow pace is not a stall to the stall watchdog (--timeout)
#   - at a modest fixed rate the achieved rate is within 2% of the offered
#     (synchronously, and through aio at --iodepth 4)
#     (a Poisson one within 2% of what its arrivals offered, which is within
#     4 sigma of the offered), per stream and for the job (split over the
#     streams), and
#     every transfer has a service and a response time;
#   - Poisson arrivals are the seed's: two runs with one --run-id give every
#     stream the same intended starts (the last one, stored exactly), a
#     third with another run id other ones;
#   - a 200 ms stall of one pwrite (the stall shim) at a fixed rate raises
#     the response-time p99 by what coordinated-omission correction
#     predicts (computed in rate_checks.py from the rate and the stall),
#     while the service-time p99 does not;
#   - an unreachable rate is reported short (the warning line, rate_short);
#   - bad input is refused from rank 0 with exit 2 and nothing created.
. "$(dirname "$0")/lib.sh"
: "${PFS_STALL_LIB:?set PFS_STALL_LIB to the stall shim (ctest does)}"
S=$(mktemp -d /dev/shm/pfsrate.XXXXXX)
trap 'rm -rf "$T" "$S"' EXIT
R=$T/results.h5

# Refusals first, side by side: each one message, exit 2, nothing made.
refuse() { mkdir -p "$T/d"; run_mpi 2 120 -d "$T/d" -t 4k -b 64k "$@"; }
par zero refuse --rate 0
par word refuse --rate fast
par arr refuse --rate 100 --arrivals bursty
par meta refuse --rate 100 -p create
par wall refuse --rate 100 -D 1
for n in zero word arr meta wall; do
    par_wait $n
    check "--rate refusal $n: exit 2" [ "$RC" -eq 2 ]
    check "--rate refusal $n: one message" [ "$(grep -c 'pfsbench' "$T/err")" -eq 1 ]
    check "--rate refusal $n: nothing created" [ -z "$(ls -A "$T/par.$n/d" 2>/dev/null)" ]
done

# rated NP ARGS...: run_mpi NP 120 ARGS, run again (3 tries in all) while
# the results say the achieved rate fell short of the schedule: on a
# machine loaded past what the ranks need (a CI pass beside helpers' builds:
# 1396 of 2000 ops/s), the shortfall is real and said; the checks below are
# of the figures when the ranks kept up. The try is said in the log.
rated() {
    local np=$1 try
    shift
    for try in 1 2 3; do
        run_mpi "$np" 120 "$@"
        { [ "$RC" -ne 0 ] || "$PY" "$PFS_TESTMPI/rate_checks.py" kept_up "$R" >/dev/null 2>&1; } && return 0
        echo "# try $try fell short of its rate (the machine is loaded); again"
    done
}

# 1000 transfers per stream at 500/s: about 2 s a phase, so that a rank
# held up 40 ms by the loaded machine near a phase's end (its span is
# the phase's time) stays within the 2% (1 s phases once measured 2.6%).
rated 2 -d "$S" -t 4k -b 4000k -p write,read --rate 500 -o "$R" -q
check "fixed 500/s per stream: exit 0" [ "$RC" -eq 0 ]
pycheck "fixed 500/s per stream: achieved within 2% of 1000/s" rate achieved "$R" 1000
pycheck "fixed 500/s per stream: the Python summary frame's rates" rate frames "$R" 1000
rated 2 -d "$S" -t 4k -b 2000k -p write --rate 1000 --rate-scope job --arrivals poisson -o "$R"
check "poisson 1000/s for the job: exit 0" [ "$RC" -eq 0 ]
check "poisson: the latency table has the response row" grep -q "^write      response  " "$T/out"
check "poisson: the report gives offered and achieved" grep -q "rate: offered 1000.0 ops/s (3.91 MiB/s; its arrivals [0-9.]* ops/s), achieved" "$T/out"
# 500 Poisson arrivals per stream span 1 s +- 4.5% (1 / sqrt(500)): their
# rate within 4 sigma of the offered, the achieved within 2% of theirs.
pycheck "poisson 1000/s for the job: achieved within 2% of its arrivals'" rate achieved "$R" 1000 0.18

# --ramp: what the schedule offered is judged over the measured span only
# (the ramp's transfers count nowhere, nor does its time).
rated 2 -d "$S" -t 4k -b 400k -p write --rate 1000 --runtime 1 --ramp 0.3 -o "$R" -q
check "--runtime 1 --ramp 0.3 at 1000/s: exit 0" [ "$RC" -eq 0 ]
# Each stream's ramp ends on its own clock, so the streams' measured counts
# differ by their start skew x the rate (1997.2 against 2000 on a loaded
# machine: 702 and 700 transfers); the ramp's own span counted would be 30%.
pycheck "--ramp: the schedule's rate is the offered (within 2%), the achieved within 2% of it" \
    rate achieved "$R" 2000 0.02

# An async queue: transfers issued on time while others are in flight,
# the queue polled between intended starts (where libaio was built in).
if ! "$PFSBENCH" --help | grep -q "^  aio  *not built: "; then
    rated 2 -d "$S" -t 4k -b 4000k -p write --api aio --iodepth 4 --rate 1000 -o "$R" -q
    check "aio at depth 4, 1000/s per stream: exit 0" [ "$RC" -eq 0 ]
    pycheck "aio at depth 4: achieved within 2% of 2000/s, a response time per transfer" rate achieved "$R" 2000
fi

# The seed's schedule: 100 Poisson arrivals per stream at 2000/s, thrice.
for r in a b c; do
    mkdir -p "$S/$r"
    par $r run_mpi 2 120 -d "$S/$r" -t 4k -b 400k -p write --rate 2000 --arrivals poisson \
        --run-id "$([ $r = c ] && echo rateC || echo rateAB)" -o "$T/$r.h5" -q
done
for r in a b c; do
    par_wait $r
    check "poisson run $r: exit 0" [ "$RC" -eq 0 ]
done
pycheck "poisson: the same seed gives the same intended starts, another seed others" rate same \
    "$T/a.h5" "$T/b.h5" "$T/c.h5"

# The stall: rank 1's first pwrite on the data held 200 ms, at 1000/s per stream.
RC=0
env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB" PFS_STALL_SECS=0.2 PFS_STALL_CALL=pwrite \
    PFS_STALL_RANK=1 PFS_STALL_COUNT=1 PFS_STALL_PATH="$S" \
    timeout 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$S" -t 4k -b 4000k -p write \
    --rate 1000 -o "$R" -q >"$T/out" 2>"$T/err" || RC=$?
check "stall at 1000/s: exit 0" [ "$RC" -eq 0 ]
pycheck "stall: response p99 as predicted, service p99 not raised" rate stall "$R" 1000 0.2

# Unreachable: a billion 4 KiB writes a second.
run_mpi 2 120 -d "$S" -t 4k -b 400k -p write --rate 1e9 -o "$R"
check "unreachable rate: exit 0" [ "$RC" -eq 0 ]
check "unreachable rate: the warning line" grep -q "^warning      write 0: achieved .* short of the offered" "$T/out"
pycheck "unreachable rate: rate_short" rate short "$R"

# A slow pace under the stall watchdog: one rank, a transfer every 2 s,
# --timeout 1. Waiting 2 s for the schedule is no call blocked 2 s (the
# stall thread named a "blocked write" after 1 s and ended the job, exit 3,
# before the waits counted as progress). With more ranks --timeout also
# bounds the phase itself (rank 0 names the ranks not done within it).
run_mpi 1 60 -d "$S" -t 4k -b 8k -p write --rate 0.5 --timeout 1 --no-results
check "0.5/s under --timeout 1: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "0.5/s under --timeout 1: no watchdog message" not grep -q "watchdog" "$T/err"
finish
