#!/bin/bash
# Issue 30, skewed offsets: --random-dist (fio's random_distribution) draws
# the offsets of the read after a full write from the seeded distribution,
# with replacement; what the file system saw (each rank's pread64 and
# pwrite64 calls, by strace) follows it, exactly as the run's seed draws it;
# without it --random stays a permutation. Data content: --buffer-compress
# and --dedupe (fio's buffer_compress_percentage, dedupe_percentage) give
# files that zlib compresses to about the share asked for and whose 4 KiB
# transfers repeat exactly as asked; --verify still checks every byte
# (tests/mpi/dist_checks.py).
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
    check "zipf:1.2: the report's access line says it" grep -q "^access .*, random order, random offsets drawn zipf:1.2" "$T/out"
    pycheck "zipf:1.2: one full write, then reads skewed as the run's seed draws them" dist skewed "$T/zipf" \
        "$T/zipf.h5" "$BENCH_LOAD" zipf:1.2 1024 4096
    cat "$T/py"
    traced plain -t 4k -b 4m -p write,read --random --verify --no-results
    check "no --random-dist: exit 0" [ "$RC" -eq 0 ]
    pycheck "no --random-dist: --random writes and reads every transfer once" dist permutation "$T/plain" 1024 4096
else
    echo "# strace or $BENCH_LOAD not found: the calls are not checked here"
fi
# a write the stonewall cuts (each pwrite 1 ms longer: tens of 1024 by -D 0.05) leaves holes;
# the skewed read draws only where it wrote, each byte verified
RC=0
env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_DELAY_LIB" PFS_DELAY_CALL=pwrite PFS_DELAY_SECS=0.001 \
    timeout 60 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$D" -t 4k -b 4m -p write,read --random \
    --random-dist zipf:1.2 -D 0.05 --verify -o "$T/cut.h5" -q >"$T/out" 2>"$T/err" || RC=$?
check "a write cut by -D, then a zipf:1.2 read: exit 0, every read verified" [ "$RC" -eq 0 ]
pycheck "... the write was cut short and the read read as many" dist cut "$T/cut.h5" 1024
check "nothing left" [ -z "$(ls -A "$D")" ]

# --- data content: 1024 transfers of 4 KiB per file, kept and measured; a
# section per content, one job
kept() { echo "$D/pfsbench.$1.$2"; } # kept RUN_ID RANK: the file of rank RANK's stream
run_id_of() { ls "$D" | sed -n 's/^pfsbench\.\(.*\)\.kept$/\1/p' | head -1; }
printf '[global]\ndir = %s\ntransfer = 4k\nblock = 4m\nphases = write,read\nverify\nkeep\n' "$D" >"$T/content.job"
printf '[plain]\n[c50]\nbuffer-compress = 50\n[d50]\ndedupe = 50\n' >>"$T/content.job"
run_job 2 120 "$T/content.job" -q
check "content job: exit 0, every byte of every section verified (got $RC)" [ "$RC" -eq 0 ]
run_of plain
pycheck "plain: today's pattern does not compress (zlib: above 0.99)" dist compressed "$(kept "${RUN[2]:-none}" 0)" 0.99 1.01
run_of c50
for r in 0 1; do
    pycheck "--buffer-compress 50: file $r compresses to 0.50 (zlib: within 0.47..0.55)" dist compressed \
        "$(kept "${RUN[2]:-none}" $r)" 0.47 0.55
    cat "$T/py"
done
run_of d50
for r in 0 1; do
    pycheck "--dedupe 50: file $r, exactly 50 of each 100 transfers repeat another" dist repeats \
        "$(kept "${RUN[2]:-none}" $r)" 4096 50
    cat "$T/py"
done
rm -f "$D"/pfsbench.*
# a shared file: the duplicates span both ranks' parts (one key for the file)
run_mpi 2 60 -d "$D" --shared -t 4k -b 2m -p write,read --buffer-compress 30 --dedupe 25 --verify -k --no-results
check "--shared, 30/25: exit 0, every byte verified" [ "$RC" -eq 0 ]
check "--shared, 30/25: the access line says the content" grep -q "^access .*, content 30% compressible 25% duplicate$" "$T/out"
f=$(ls "$D"/pfsbench.*.shared)
pycheck "--shared --dedupe 25: exactly 25 of each 100 transfers repeat another" dist repeats "$f" 4096 25
id=$(run_id_of)
check "the kept status records the content" sh -c "grep -qx 'buffer_compress 30' '$D/pfsbench.$id.kept' &&
    grep -qx 'dedupe 25' '$D/pfsbench.$id.kept'"
run_refused 2 60 -d "$D" --shared -t 4k -b 2m -p read --verify --run-id "$id" -k --no-results -q
check "a verified read of them without the content: exit 2, naming it" sh -c "[ $RC -eq 2 ] &&
    grep -q 'written with --buffer-compress 30 --dedupe 25; --verify expects that content: give them' '$T/err'"
# a byte of a chunk's zeros and one of a repeated transfer's pattern, changed: both caught
corrupt_byte "$f" $((4096 * 7 + 3000))
corrupt_byte "$f" $((4096 * 600 + 17))
run_mpi 2 60 -d "$D" --shared -t 4k -b 2m -p read --buffer-compress 30 --dedupe 25 --verify --run-id "$id" -k \
    --no-results -q
check "a corrupted byte: the verified read fails (exit 1)" [ "$RC" -eq 1 ]
check "... the zero byte, by rank 0 at its offset" \
    grep -q "rank 0 on .*offset $((4096 * 7 + 3000)): 1 mismatching 8-byte words" "$T/err"
check "... the repeated transfer's byte, by rank 1 at its offset" \
    grep -q "rank 1 on .*offset $((4096 * 600 + 17)): 1 mismatching 8-byte words" "$T/err"
check "... the options said what to expect: no warning that they do nothing" not grep -q "does nothing" "$T/err"
rm -f "$D"/pfsbench.*

# seeks draws its offsets from it too; a bad spec is refused, nothing made
run_mpi 2 60 -d "$D" -t 4k -b 1m -p write,seeks --seeks 2000 --random-dist pareto:0.2 --verify --no-results -q
check "seeks, pareto:0.2, verified: exit 0" [ "$RC" -eq 0 ]
par zipf1 run_refused 2 60 -d "$D" -p write,read --random --random-dist zipf:1 --no-results
par t1000 run_refused 2 60 -d "$D" -t 1000 -b 100000 -p write --buffer-compress 50 --no-results
par_wait zipf1
check "zipf:1: exit 2" [ "$RC" -eq 2 ]
check "... one message, the spec's" [ "$(grep -c 'random-dist "zipf:1"' "$T/err")" -eq 1 ]
par_wait t1000
check "--buffer-compress 50 with -t 1000: exit 2, named" \
    sh -c "[ $RC -eq 2 ] && grep -q 'the dedupe unit (1000 bytes) must be a multiple of 8 and, with compression' '$T/err'"
check "refusals: nothing made" [ -z "$(ls -A "$D")" ]
finish
