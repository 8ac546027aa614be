#!/bin/bash
# --rate-sweep (issue 30): a latency-load curve in one launch, on tmpfs
# with 2 ranks, every pwrite held 1 ms by the delay shim (a stream's
# closed-loop ceiling under 1000/s, whatever the machine does):
#   - a list of rates runs a repetition per point, each offered exactly
#     its rate (for the job: 2 streams); the two points above the ceiling
#     queue (their response p99 bounded from below by the arithmetic of
#     800 transfers of at least 1 ms each, scheduled faster), the knee is
#     found no later than the first of them (a noisy low-load point may
#     put it earlier: the machine's, not the code's) and its rate between
#     its two points', the report prints the curve;
#   - Results.load() (the Python frame) has the file's curve and knee, and
#     pfs-plot load draws it (a PNG, the knee's rate in the SVG);
#   - percentages run a closed-loop repetition first, then each point at
#     exactly that percentage of what it achieved (JSON: the rate_sweep
#     member, its points and knee);
#   - --latency-target runs a closed-loop repetition, then exactly the
#     rates the search picks from the points before (replayed in
#     rate_sweep_checks.py), stops when it is done, and stores its answer
#     (which rates meet the bound is the machine's: not asserted); the
#     report's header says "up to" its 11 repetitions (a sweep's: its count);
#   - bad input is refused from rank 0 with exit 2 and nothing created.
. "$(dirname "$0")/lib.sh"
: "${PFS_DELAY_LIB:?set PFS_DELAY_LIB to the delay shim (ctest does)}"
S=$(mktemp -d /dev/shm/pfssweep.XXXXXX)
trap 'rm -rf "$T" "$S"' EXIT
R=$T/results.h5

refuse() { mkdir -p "$T/d"; run_mpi 2 120 -d "$T/d" -t 4k -b 64k "$@"; }
par both refuse --rate-sweep 100,200 --rate 100
par reps refuse --rate-sweep 100,200 -i 3
par mixed refuse --rate-sweep 20%,200
par meta refuse --rate-sweep 100 -p create
par goal refuse --latency-target p98=2ms -p write
par two refuse --latency-target p99=2ms -p write,read
for n in both reps mixed meta goal two; do
    par_wait $n
    check "--rate-sweep refusal $n: exit 2" [ "$RC" -eq 2 ]
    check "--rate-sweep refusal $n: one message" [ "$(grep -c 'pfsbench' "$T/err")" -eq 1 ]
    check "--rate-sweep refusal $n: nothing created" [ -z "$(ls -A "$T/par.$n/d" 2>/dev/null)" ]
done

# delayed BLOCK ARGS...: 2 ranks writing BLOCK each, each pwrite held 1 ms.
delayed() {
    local b=$1
    shift
    RC=0
    env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_DELAY_LIB" PFS_DELAY_CALL=pwrite PFS_DELAY_SECS=0.001 \
        timeout 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$S" -t 4k -b "$b" -p write "$@" \
        >"$T/out" 2>"$T/err" || RC=$?
}

# 800 transfers a stream at 250, 500, 4000 and 8000 per stream: the last
# two queue, their p99 at least 594 and 693 ms (rate_sweep_checks.py's
# queue_p99), so the knee holds while a low-load p99 stays under 297 ms
# (this loaded VM's hold-ups, counted in every response due during them,
# have put it at 100 ms).
delayed 3200k --rate-sweep 250,500,4000,8000 -o "$R"
check "rates: exit 0" [ "$RC" -eq 0 ]
check "rates: the header's repetitions, one per point" grep -qx "phases       write x 4 repetitions" "$T/out"
check "rates: the report's curve" grep -q "^latency against load (--rate-sweep 250,500,4000,8000" "$T/out"
check "rates: a row per point" [ "$(sed -n '/^latency against load/,/^knee/p' "$T/out" | grep -c '^write ')" -eq 4 ]
check "rates: the knee's line" grep -qE "^knee       write: p99 left 2 x its lowest-load [0-9.]+ us at [0-9.]+ ops/s achieved, between repetitions [0-2] and [1-2]$" "$T/out"
check "rates: no summary over repetitions" not grep -q "^summary over repetitions" "$T/out"
pycheck "rates: a point per rate, offered exactly, the queue's p99 from below, the knee" rate_sweep \
    rates "$R" 500,1000,8000,16000 800 0.001
pycheck "rates: Results.load() holds the file's curve and knee" rate_sweep frame "$R"
RC=0
timeout 120 "$PY" "$(dirname "$PFSBENCH")/pfs-plot" load "$R" -o "$T/load" >"$T/out" 2>"$T/err" || RC=$?
check "pfs-plot load: exit 0" [ "$RC" -eq 0 ]
check "pfs-plot load: a PNG" [ "$(head -c 8 "$T/load.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
pycheck "pfs-plot load: the knee's rate in the SVG" rate_sweep svg "$R" "$T/load.svg"

# Percentages of a closed-loop first repetition, in JSON.
delayed 800k --rate-sweep 50%,200% --format json --no-results
check "percentages: exit 0" [ "$RC" -eq 0 ]
pycheck "percentages: closed loop first, each point that share of it exactly" rate_sweep pct "$T/out" 50,200
# The search, p99 within 4 ms, 20 transfers a stream (its lowest rate, 1%
# of the peak, about 9 a stream per second: 2.3 s).
delayed 80k --latency-target p99=4ms -o "$T/target.h5"
check "target: exit 0" [ "$RC" -eq 0 ]
check "target: the header's repetitions, the most the search runs" grep -qx "phases       write x up to 11 \
repetitions (a closed-loop one, then at most 10 rates of --latency-target's search)" "$T/out"
check "target: the answer's line" grep -qE "^target     write: p99=4ms met (at up to [0-9.]+ ops/s offered \(repetition [0-9]+\)|at none of the [0-9]+ rates)" "$T/out"
pycheck "target: the rates the search chose, its stop and its answer" rate_sweep target "$T/target.h5" 4e6
finish
