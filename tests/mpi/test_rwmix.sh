#!/bin/bash
# Issue 30, mixes: the rwmix phase draws each transfer a read or a write
# from the run's seed, exactly --rwmix reads in every 100, and counts and
# times each direction apart; --bssplit draws each transfer's size, exactly
# as given in every 100. The writes put the pattern back, so --verify checks
# every read, and what the reads found and the writes restored is exact.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
MIX=(-t 4k -b 400k --random --rwmix 70)

# --- 2 ranks, 100 transfers each: 70 reads and 30 writes per stream
run_mpi 2 60 -d "$D" "${MIX[@]}" -p write,rwmix --verify --run-id mixa -o "$T/a.h5"
check "70/30: exit 0" rc_is 0
check "70/30: the report's mix line" grep -qE "^ +mix: reads 70\.0% \(140, [0-9.]+ ops/s, .*\), writes 30\.0% \(60, " "$T/out"
check "70/30: the latency table has each direction" \
    sh -c 'grep -qE "^rwmix +read +140 " "$1" && grep -qE "^rwmix +write +60 " "$1" && grep -qE "^rwmix +rwmix +200 " "$1"' \
    sh "$T/out"
check "70/30: nothing left" [ -z "$(ls -A "$D")" ]
pycheck "70/30: reads, writes, bytes and histograms exact per stream; the rates add up" rwmix exact "$T/a.h5"
timeout 120 "$PY" "$(dirname "$PFSBENCH")/pfs-plot" latency "$T/a.h5" -o "$T/lat.svg" --data-csv "$T/lat.csv" >/dev/null 2>&1
pycheck "70/30: pfs-plot latency's rwmix line has the reads' and writes' exemplars as ticks" rwmix ticks "$T/a.h5" "$T/lat.csv"
run_mpi 2 60 -d "$D" "${MIX[@]}" -p write,rwmix --run-id mixa -o "$T/b.h5" -q
pycheck "70/30: the same run id draws the same reads again" rwmix same "$T/a.h5" "$T/b.h5"
run_mpi 2 60 -d "$D" "${MIX[@]}" -p write,rwmix --no-results --format csv
pycheck "70/30 CSV: each direction's rate and bandwidth at the row's end, adding up" rwmix csv "$T/out"
# IOR's table has no row for rwmix: said at the start, on stderr; stdout keeps IOR's shape
run_mpi 1 60 -d "$D" "${MIX[@]}" -p write,rwmix --no-results --format ior
check "--format ior: warned that rwmix has no row" err_has "warning: --format ior has no row for rwmix: IOR's tables show write and read"
check "--format ior: IOR's write row, no rwmix row" sh -c 'grep -qE "^write +[0-9.]+ " "$1" && ! grep -q "^rwmix" "$1"' sh "$T/out"

# --- every read checked, every write the pattern: a byte changed in each
# 4 KiB of the kept files; rwmix finds the 70 its reads met, and a read
# after it finds those 70 again (the 30 it wrote are whole again)
run_mpi 2 60 -d "$D" "${MIX[@]}" -p write --verify --run-id mixc -k --no-results -q
for f in "$D"/pfsbench.mixc.0 "$D"/pfsbench.mixc.1; do "$PY" "$PFS_TESTMPI/rwmix_checks.py" corrupt "$f"; done
run_mpi 2 60 -d "$D" "${MIX[@]}" -p rwmix --verify --run-id mixc -k --no-results -q
check "corrupt: rwmix's reads fail the check (exit 1)" rc_is 1
check "corrupt: 70 mismatching words, one per read" err_has ": 70 mismatching 8-byte words"
run_mpi 2 60 -d "$D" -t 4k -b 400k -p read --verify --run-id mixc -k --no-results -q
check "corrupt: the read after it finds the 70 left, not 100" err_has ": 70 mismatching 8-byte words"
rm -f "$D"/pfsbench.mixc.*

# --- --bssplit: the sizes of rwmix and read, exact per 100; the write in -t
run_mpi 2 60 -d "$D" "${MIX[@]}" -p write,rwmix,read --bssplit 4k/50:1k/30:512/20 --verify -o "$T/s.h5"
check "bssplit: exit 0" rc_is 0
pycheck "bssplit: 50 x 4 KiB + 30 x 1 KiB + 20 x 512 B per stream, the write whole" rwmix sized "$T/s.h5"

# --- an async queue: directions per transfer at --iodepth 8
run_mpi 1 60 -d "$D" "${MIX[@]}" -p write,rwmix -a aio --iodepth 8 --direct --verify --no-results
if rc_is 2 && err_has "aio"; then
    echo "# --api aio not built or --direct not here: $(head -1 "$T/err")"
else
    check "aio depth 8: exit 0, verified" rc_is 0
    check "aio depth 8: 70 reads of 100" grep -qE "^ +mix: reads 70\.0% \(70, " "$T/out"
fi

# --- refusals (exit 2, nothing made) and warnings
run_mpi 1 30 -d "$D" -p write,rwmix -t 4k --bssplit 8k/100 --no-results
check "refused: a size above -t" sh -c '[ "$1" -eq 2 ] && grep -q "8192 bytes is larger than -t" "$2"' sh "$RC" "$T/err"
run_mpi 1 30 -d "$D" -p write,rwmix --bssplit 4k/50:1k/40 --no-results
check "refused: percentages of 90" sh -c '[ "$1" -eq 2 ] && grep -q "add up to 90, not 100" "$2"' sh "$RC" "$T/err"
run_mpi 1 30 -d "$D" -p write,rwmix --rwmix 101 --no-results
check "refused: --rwmix 101" sh -c '[ "$1" -eq 2 ] && grep -q "rwmix" "$2"' sh "$RC" "$T/err"
run_mpi 1 30 -d "$D" -p write,rwmix -a mpiio --shared --collective --no-results
check "refused: rwmix with --collective" sh -c '[ "$1" -eq 2 ] && grep -q "rwmix phase and --collective" "$2"' sh "$RC" "$T/err"
check "refused: nothing made" [ -z "$(ls -A "$D")" ]
run_mpi 1 30 -d "$D" -t 4k -b 40k -p write,read --rwmix 30 --no-results
check "warned: --rwmix without rwmix" err_has "--rwmix does nothing without the rwmix phase"
run_mpi 1 30 -d "$D" -t 4k -b 40k -p write --bssplit 4k/50:1k/50 --no-results
check "warned: --bssplit with a write alone" err_has "--bssplit does nothing here"
run_mpi 1 30 -d "$D" -t 4k -b 40k -p write,rwmix --random-dist zipf:1.2 --no-results
check "warned: --random-dist without --random draws nothing in rwmix" err_has "--random-dist does nothing here"
# --- without -t, --bssplit's largest size is the slot (fio ignores bs with
# bssplit); --verify says it checks the bytes read, not whole slots
run_mpi 1 30 -d "$D" -b 400k -p write,rwmix --random --bssplit 4k/50:1k/50 --verify --no-results
check "bssplit without -t: exit 0, -t is its largest size" \
    sh -c '[ "$1" -eq 0 ] && grep -q "^sizes .*transfer 4 KiB, block 400 KiB" "$2"' sh "$RC" "$T/out"
check "bssplit: verify says every byte read, part of a slot" \
    grep -q "^verify       every byte read (--bssplit: a transfer smaller than -t reads part of its slot)" "$T/out"
finish
