#!/bin/bash
# --rate-sweep (issue 30): a latency-load curve in one launch, on tmpfs
# with 2 ranks, every pwrite held 1 ms by the delay shim (a stream's
# closed-loop ceiling under 1000/s, whatever the machine does):
#   - a list of rates runs a repetition per point, each offered exactly
#     its rate (for the job: 2 streams); the two points above the ceiling
#     queue (their response p99 bounded from below by the arithmetic of
#     200 transfers of at least 1 ms each, scheduled faster), the knee is
#     found no later than the first of them (a noisy low-load point may
#     put it earlier: the machine's, not the code's) and its rate between
#     its two points', the report prints the curve;
#   - Results.load() (the Python frame) has the file's curve and knee, and
#     pfs-plot load draws it (a PNG, the knee's rate in the SVG);
#   - percentages run a closed-loop repetition first, then each point at
#     exactly that percentage of what it achieved (JSON: the rate_sweep
#     member, its points and knee);
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
for n in both reps mixed meta; do
    par_wait $n
    check "--rate-sweep refusal $n: exit 2" [ "$RC" -eq 2 ]
    check "--rate-sweep refusal $n: one message" [ "$(grep -c 'pfsbench' "$T/err")" -eq 1 ]
    check "--rate-sweep refusal $n: nothing created" [ -z "$(ls -A "$T/par.$n/d" 2>/dev/null)" ]
done

# delayed N ARGS...: 2 ranks, each pwrite held 1 ms.
delayed() {
    RC=0
    env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_DELAY_LIB" PFS_DELAY_CALL=pwrite PFS_DELAY_SECS=0.001 \
        timeout 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$S" -t 4k -b 800k -p write "$@" \
        >"$T/out" 2>"$T/err" || RC=$?
}

# 200 transfers a stream at 100, 200, 3000 and 6000 per stream: the last
# two queue, their p99 at least 132 and 165 ms (rate_sweep_checks.py's
# queue_p99), so the knee holds while a low-load p99 stays under 66 ms.
delayed --rate-sweep 100,200,3000,6000 -o "$R"
check "rates: exit 0" [ "$RC" -eq 0 ]
check "rates: the report's curve" grep -q "^latency against load (--rate-sweep 100,200,3000,6000" "$T/out"
check "rates: a row per point" [ "$(sed -n '/^latency against load/,/^knee/p' "$T/out" | grep -c '^write ')" -eq 4 ]
check "rates: the knee's line" grep -qE "^knee       write: p99 left 2 x its lowest-load [0-9.]+ us at [0-9.]+ ops/s achieved, between repetitions [0-2] and [1-2]$" "$T/out"
check "rates: no summary over repetitions" not grep -q "^summary over repetitions" "$T/out"
pycheck "rates: a point per rate, offered exactly, the queue's p99 from below, the knee" rate_sweep \
    rates "$R" 200,400,6000,12000 200 0.001
pycheck "rates: Results.load() holds the file's curve and knee" rate_sweep frame "$R"
RC=0
timeout 120 "$PY" "$(dirname "$PFSBENCH")/pfs-plot" load "$R" -o "$T/load" >"$T/out" 2>"$T/err" || RC=$?
check "pfs-plot load: exit 0" [ "$RC" -eq 0 ]
check "pfs-plot load: a PNG" [ "$(head -c 8 "$T/load.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
pycheck "pfs-plot load: the knee's rate in the SVG" rate_sweep svg "$R" "$T/load.svg"

# Percentages of a closed-loop first repetition, in JSON.
delayed --rate-sweep 50%,200% --format json --no-results
check "percentages: exit 0" [ "$RC" -eq 0 ]
pycheck "percentages: closed loop first, each point that share of it exactly" rate_sweep pct "$T/out" 50,200
finish
