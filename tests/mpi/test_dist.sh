#!/bin/bash
# Issue 30, skewed offsets: --random-dist (fio's random_distribution) draws
# the offsets of the read after a full write from the seeded distribution,
# with replacement; what the file system saw (each rank's pread64 and
# pwrite64 calls, by strace) follows it, exactly as the run's seed draws it;
# without it --random stays a permutation (tests/mpi/dist_checks.py).
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
BENCH_LOAD=$(dirname "$PFSBENCH")/bench/bench_load
# traced NAME ARGS...: pfsbench on 2 ranks, each under strace (its calls in $T/NAME.RANK)
traced() {
    local name=$1
    shift
    RC=0
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 60 mpirun -np 2 --oversubscribe --bind-to none \
        sh -c 'exec strace -f -qq -e trace=pread64,pwrite64 -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' "$T/$name" \
        "$PFSBENCH" -d "$D" "$@" >"$T/out" 2>"$T/err" || RC=$?
}

if command -v strace >/dev/null && [ -x "$BENCH_LOAD" ]; then
    # 1024 transfers of 4 KiB per rank, each read verified
    traced zipf -t 4k -b 4m -p write,read --random --random-dist zipf:1.2 --verify -o "$T/zipf.h5"
    check "zipf:1.2: exit 0, every read verified (the reads meet only written data)" [ "$RC" -eq 0 ]
    pycheck "zipf:1.2: one full write, then reads skewed as the run's seed draws them" dist skewed "$T/zipf" \
        "$T/zipf.h5" "$BENCH_LOAD" zipf:1.2 1024 4096
    cat "$T/py"
    traced plain -t 4k -b 4m -p write,read --random --verify --no-results
    check "no --random-dist: exit 0" [ "$RC" -eq 0 ]
    pycheck "no --random-dist: --random writes and reads every transfer once" dist permutation "$T/plain" 1024 4096
else
    echo "# strace or $BENCH_LOAD not found: the calls are not checked here"
fi
check "nothing left" [ -z "$(ls -A "$D")" ]

# seeks draws its offsets from it too; a bad spec is refused, nothing made
run_mpi 2 60 -d "$D" -t 4k -b 1m -p write,seeks --seeks 2000 --random-dist pareto:0.2 --verify --no-results -q
check "seeks, pareto:0.2, verified: exit 0" [ "$RC" -eq 0 ]
run_mpi 2 60 -d "$D" -p write,read --random --random-dist zipf:1 --no-results
check "zipf:1: exit 2" [ "$RC" -eq 2 ]
check "... one message, the spec's" [ "$(grep -c 'random-dist "zipf:1"' "$T/err")" -eq 1 ]
check "refusal: nothing made" [ -z "$(ls -A "$D")" ]
finish
