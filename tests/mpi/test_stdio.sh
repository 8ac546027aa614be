#!/bin/bash
# --api stdio (bonnie++'s per-char phases: putc/getc through stdio):
#   - -t 1k -b 64k write,read --verify passes on 2 ranks: the bytes are right;
#   - stdio's buffer: strace counts a handful of write(2)/read(2) calls on
#     each data file (~ 64 KiB / 4096), not one per byte nor per transfer;
#   - the report's latency table (-v) has a %CPU for the write and the read;
#   - -t 1 works (a byte per transfer), --random and --rmw too;
#   - --direct, --iodepth 4, --collective are refused: exit 2, one message;
#   - pfs-compare --names bonnie over a stdio run and a posix run prints the
#     seed's rows: Sequential Output Per Chr, Block output, Rewrite,
#     Sequential Input Per Chr, Block input, in that order, with %CP.
. "$(dirname "$0")/lib.sh"
D=$T/data
R=$T/results.h5
mkdir -p "$D"

run_mpi 2 60 -d "$D" --api stdio -t 1k -b 64k -p write,read --verify --no-results -v
check "stdio: a verified write and read of 1 KiB transfers pass" [ "$RC" -eq 0 ]
check "stdio -v: the write's latency row has a %CPU" grep -qE "^write +0 write +128 ( +[0-9.]+){6} (us|ms|s) +[0-9.]+$" "$T/out"
check "stdio -v: the read's too" grep -qE "^read +0 read +128 ( +[0-9.]+){6} (us|ms|s) +[0-9.]+$" "$T/out"

if command -v strace >/dev/null; then
    rm -f "$T"/st.*
    RC=0
    timeout 120 mpirun -np 2 --oversubscribe --bind-to none sh -c \
        'o=$1 b=$2; shift 2; ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" exec strace -f -qq -y -e trace=write,read -o "$o.$OMPI_COMM_WORLD_RANK" "$b" "$@"' \
        sh "$T/st" "$PFSBENCH" -d "$D" --api stdio -t 1k -b 64k -p write,read --no-results >"$T/out" 2>"$T/err" || RC=$?
    check "stdio under strace: passes" [ "$RC" -eq 0 ]
    n() { grep -cE "^[0-9]+ +$2\([0-9]+<$D/pfsbench\.[^.>]+\.[0-9]+>" "$T/st.$1"; }
    for r in 0 1; do
        w=$(n $r write) rd=$(n $r read)
        check "stdio: rank $r's 64 KiB went out in $w write(2) calls (buffered: 1..20, not 64 or 65536)" \
            [ "$w" -ge 1 ] && [ "$w" -le 20 ]
        check "stdio: and came back in $rd read(2) calls (1..21)" [ "$rd" -ge 1 ] && [ "$rd" -le 21 ]
    done
else
    echo "# strace is not installed: the system-call counts are skipped"
fi

run_mpi 1 60 -d "$D" --api stdio -t 1 -b 8k -p write,read --verify --no-results
check "stdio: -t 1 (a byte per transfer) verified" [ "$RC" -eq 0 ]
run_mpi 2 60 -d "$D" --api stdio -t 4k -b 256k --random -p write,read --verify --no-results
check "stdio: random order verified" [ "$RC" -eq 0 ]
run_mpi 2 60 -d "$D" --api stdio -t 4k -b 256k --threads 2 -p write,read --verify --no-results
check "stdio: two threads per rank, each its own FILE, verified" [ "$RC" -eq 0 ]

for opt in "--direct" "--iodepth 4" "--collective"; do
    run_refused 2 60 -d "$D" --api stdio -t 4k -b 64k -p write $opt --no-results
    check "stdio: $opt is refused with exit 2" [ "$RC" -eq 2 ]
    check "stdio: $opt: one message" [ "$(grep -c -- "${opt%% *}.*stdio" "$T/err")" -eq 1 ]
done
check "stdio: the refusals made nothing" [ -z "$(ls -A "$D")" ]

# --- pfs-compare --names bonnie: the seed's rows
run_mpi 1 60 -d "$D" --api stdio -t 1k -b 64k -p write,read --label first -o "$R"
check "stdio: a per-char run stored" [ "$RC" -eq 0 ]
run_mpi 1 60 -d "$D" -t 16k -b 64k -p write,rewrite,read --rmw --label first -o "$R"
check "posix: a block run stored" [ "$RC" -eq 0 ]
RC=0
timeout 120 "$(dirname "$PFSBENCH")/pfs-compare" "$R" --names bonnie --units KB >"$T/out" 2>"$T/err" || RC=$?
check "pfs-compare --names bonnie exits 0" [ "$RC" -eq 0 ]
check "pfs-compare --names bonnie: the seed's rows in its order, with %CP" \
    [ "$(sed -nE 's/^(Sequential Output Per Chr|Block output|Rewrite|Sequential Input Per Chr|Block input) +[0-9.]+ +[0-9]+$/\1/p' "$T/out" | paste -sd'|')" \
        = "Sequential Output Per Chr|Block output|Rewrite|Sequential Input Per Chr|Block input" ]
RC=0
timeout 120 "$(dirname "$PFSBENCH")/pfs-compare" "$R" --phases write >"$T/out" 2>"$T/err" || RC=$?
check "pfs-compare: --phases write selects both, the stdio one as 'write (stdio)'" \
    sh -c "[ $RC -eq 0 ] && grep -qE '^write \(stdio\) +[0-9.]+$' '$T/out' && grep -qE '^write +[0-9.]+$' '$T/out'"

# --- jobs/bonnie-perchar.job: the seed's whole data row from one job file
RC=0
PFS_DIR=$D PFS_SIZE=2m PFS_CHAR_SIZE=1m PFS_SEEK_BLOCK=2m timeout 180 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" \
    -f "$PFS_SRC/jobs/bonnie-perchar.job" -o "$T/j.h5" -q >"$T/out" 2>"$T/err" || RC=$?
check "bonnie-perchar.job: exit 0" [ "$RC" -eq 0 ]
"$(dirname "$PFSBENCH")/pfs-compare" "$T/j.h5" --names bonnie --units KB --transpose >"$T/out" 2>&1
check "bonnie-perchar.job: pfs-compare --transpose has the five columns with %CP" \
    grep -qE "^label .*Sequential Output Per Chr \[KB/s\] +%CP +Block output \[KB/s\] +%CP +Rewrite \[KB/s\] +%CP +Sequential Input Per Chr \[KB/s\] +%CP +Block input \[KB/s\] +%CP +Random Seeks \[seeks/s\] +%CP" "$T/out"
check "bonnie-perchar.job: the seeks row (its own label) has its seeks/s and %CP" \
    grep -qE "^deadline:seeks +- +- +[0-9.]+ +[0-9]+ +- +- +- +- +- +- +[0-9.]+ +[0-9]+$" "$T/out"
finish
