#!/bin/bash
# --runtime SECS (fio's time_based + runtime) and --ramp SECS (fio's
# ramp_time) on small blocks, checked from the results file:
#   - a time-based phase lasts at least SECS (and not absurdly longer on
#     this loaded VM) and moves more than one block: its transfers wrap;
#   - the same with --random, a --shared strided file, --threads, --api
#     uring --iodepth 4, mmap and collective MPI-IO (every rank the same
#     count of transfers);
#   - --verify after time-based writes and reads finds every byte right;
#   - --ramp: the stored transfers are fewer than the pwrites the file got
#     (counted by strace, each one slowed by the stall shim), and the read's
#     span starts at least the ramp after the write's close;
#   - a ramp that outlasts the work is no measurement: the run fails (exit 1);
#   - --runtime with -D, a ramp not shorter than the runtime, and a ramp
#     with one transfer per stream: exit 2.
. "$(dirname "$0")/lib.sh"
: "${PFS_STALL_LIB:?set PFS_STALL_LIB to the stall shim (ctest does)}"
D=$T/data
R=$T/results.h5
mkdir -p "$D"

# timed WHAT SECS BLOCK TRANSFER [together]: every data phase of the last
# run in $R lasted SECS .. SECS + 30 (the upper bound only says "not absurdly
# longer": a loaded VM under the sanitizers) and each stream moved more than its
# block; each stream's span is SECS or more, except with "together"
# (collective: the ranks stop at once when the first one's runtime is over).
timed() {
    pycheck "$1: phases last $2 s or more and wrap around the block" runtime timed "$R" "$2" "$3" "$4" "${5:-}"
}

run_mpi 2 60 -d "$D" -t 64k -b 256k --runtime 1 -p write,read -o "$R" -q
check "--runtime 1: exit 0" [ "$RC" -eq 0 ]
timed "--runtime 1" 1 262144 65536

# With --verify a phase's wall time is its runtime and the pattern's work
# besides (taken out of the timing, so out of the runtime too): 4-12 times
# the runtime, most with mmap, whose copies are cheap next to the pattern.
# Half a second (a quarter with mmap) still wraps each block many times.

run_mpi 2 60 -d "$D" -t 16k -b 256k --runtime 0.5 --random -p write,read --verify -o "$R" -q
check "--random --verify: exit 0" [ "$RC" -eq 0 ]
timed "--random --verify" 0.5 262144 16384

run_mpi 2 60 -d "$D" -t 16k -b 128k --runtime 0.5 --shared --layout strided --threads 2 -p write,rewrite,read --verify -o "$R" -q
check "shared strided, 2 threads, --verify: exit 0" [ "$RC" -eq 0 ]
timed "shared strided, 2 threads, --verify" 0.5 131072 16384

run_mpi 1 60 -d "$D" -a uring -t 4k -b 64k --no-results -q
if [ "$RC" -eq 2 ] && grep -q -- "--api uring: .*io_uring" "$T/err"; then
    echo "# skipped uring: $(grep -o -- '--api uring: .*' "$T/err" | head -1)"
else
    run_mpi 2 60 -d "$D" -a uring --iodepth 4 -t 16k -b 128k --runtime 0.5 -p write,read --verify -o "$R" -q
    check "uring --iodepth 4 --verify: exit 0" [ "$RC" -eq 0 ]
    timed "uring --iodepth 4 --verify" 0.5 131072 16384
fi

run_mpi 2 60 -d "$D" -a mmap -t 16k -b 128k --runtime 0.25 -p write,read --verify -o "$R" -q
check "mmap --verify: exit 0" [ "$RC" -eq 0 ]
timed "mmap --verify" 0.25 131072 16384

# -b 64k: wrapping needs only 5 collective calls in the second (2 ranks on
# a shared, loaded VM under the sanitizers made fewer than the 9 of -b 128k).
run_mpi 2 60 -d "$D" -a mpiio --shared --collective -t 16k -b 64k --runtime 1 -p write,read --verify -o "$R" -q
check "mpiio --collective --verify: exit 0" [ "$RC" -eq 0 ]
timed "mpiio --collective --verify" 1 65536 16384 together
pycheck "mpiio --collective: every rank made the same number of calls" runtime same_calls "$R"

# --ramp 1 --runtime 3, one rank, each 64 KiB pwrite slowed by 5 ms; strace
# (LeakSanitizer off: it refuses to run under ptrace)
# counts the pwrites of 64 KiB the file really got.
RC=0
env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB" PFS_STALL_SECS=0.005 PFS_STALL_CALL=pwrite \
    PFS_STALL_COUNT=1000000 timeout 120 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none \
    strace -f -qq -e trace=pwrite64 -e signal=none -o "$T/strace" \
    "$PFSBENCH" -d "$D" -t 64k -b 256k --runtime 3 --ramp 1 -p write,read -o "$R" -q >"$T/out" 2>"$T/err" || RC=$?
check "--ramp 1 --runtime 3: exit 0" [ "$RC" -eq 0 ]
N=$(grep -c ', 65536, [0-9]*) = 65536$' "$T/strace" || true)
check "strace counted the write phase's pwrites ($N)" [ "${N:-0}" -gt 10 ]
pycheck "--ramp: fewer transfers stored than written, the spans start after the ramp" runtime ramp "$R" "$N"

# A ramp longer than the work: no measurement, so no 0 MiB/s row: the run
# fails naming --ramp, its write has no repetition, /summary no row.
run_mpi 1 60 -d "$D" -t 64k -b 256k --ramp 3 -p write -o "$R" -q
check "--ramp outlasting the block: exit 1" [ "$RC" -eq 1 ]
check "--ramp outlasting the block: the error names the ramp" grep -q "pfsbench: error: .*--ramp 3 s outlasted the work of every stream" "$T/err"
check "--ramp outlasting the block: recorded as failed, no repetition, no row" [ "$("$PY" -c 'import h5py, sys
f = h5py.File(sys.argv[1], "r"); name = sorted(f["runs"])[-1]; run = f["runs"][name]
print(run.attrs["status"], run["phases"]["00_write"].attrs["repetitions"], sum(f["summary"]["run"] == int(name)))' "$R")" = "failed 0 0" ]

# Refusals: exit 2 with one message, nothing made.
par none1 run_mpi 1 120 -d "$T/none1" -t 64k -b 256k --runtime 2 -D 1 -p write
par none2 run_mpi 1 120 -d "$T/none2" -t 64k -b 256k --runtime 1 --ramp 1 -p write
par_wait none1
check "--runtime with -D: exit 2, one message" [ "$RC" -eq 2 -a "$(grep -c -- '--runtime' "$T/err")" -eq 1 ]
par_wait none2
check "--ramp not shorter than --runtime: exit 2, one message" [ "$RC" -eq 2 -a "$(grep -c -- '--ramp' "$T/err")" -eq 1 ]
run_mpi 1 60 -d "$T/none3" -t 64k -b 64k --ramp 1 -p write
check "--ramp with one transfer per stream: exit 2, one message" [ "$RC" -eq 2 -a "$(grep -c -- '--ramp' "$T/err")" -eq 1 ]
check "refusals made nothing" not test -e "$T/none1" -o -e "$T/none2" -o -e "$T/none3"

finish
