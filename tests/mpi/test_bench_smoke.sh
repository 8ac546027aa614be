#!/bin/bash
# Smoke test of the benchmarks of pfsbench itself (bench/, docs/performance.md)
# at tiny sizes: pfs-vs-fio.sh (1 round, 1 and 2 ranks, 4 KiB and 1 MiB
# transfers, blocks of 256 KiB and 2 MiB), the results-writer bench with a
# small synthetic run, pfs-overheads.sh -s, and scale-mpi.sh with scale-fit.py
# at 1 and 2 ranks. Checks that each runs and prints its tables; the figures
# themselves mean nothing at these sizes (but for scale-mpi's byte counts).
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
BENCH_BIN=${BENCH_BIN:-$(dirname "$PFSBENCH")/bench}
export PFSBENCH BENCH_BIN PFS_RESULTS="$(dirname "$PFSBENCH")/pfs-results"
# Data on tmpfs when there is one (as the real runs), else in the test's dir.
S=$(mktemp -d /dev/shm/pfsbenchsmoke.XXXXXX 2>/dev/null) || S=$(mktemp -d "$T/data.XXXXXX")
trap 'rm -rf "$T" "$S"' EXIT

for b in bench_results bench_memcpy bench_reduce bench_mpi_init; do
    check "$b is built in $BENCH_BIN" [ -x "$BENCH_BIN/$b" ]
done

# ---- pfs-vs-fio.sh ----
if command -v fio >/dev/null; then
    RC=0
    timeout 50 bash "$SRC/bench/pfs-vs-fio.sh" -r 1 -n 1,2 -t 4k,1m -b 4k=256k,1m=2m -m 4m -W 0 -q -d "$S" \
        -o "$T/pvf" >"$T/out" 2>"$T/err" || RC=$?
    check "pfs-vs-fio: exit 0" [ "$RC" -eq 0 ]
    check "pfs-vs-fio: prints the table header" grep -q "^target .* tool MiB/s .* fio MiB/s .* ratio" "$T/out"
    # 2 rank counts x 2 transfer sizes x write/read, each a row with three numbers and a ratio.
    rows=$(grep -cE " [12] +(4k|1m) +(256k|2m) +(write|read) +pfs +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +1 " "$T/out")
    check "pfs-vs-fio: 8 result rows (2 ranks x 2 sizes x 2 ops), got $rows" [ "$rows" -eq 8 ]
    check "pfs-vs-fio: memcpy ceiling printed for 1 and 2 processes" \
        [ "$(grep -c '^memcpy ceiling:' "$T/out")" -eq 2 ]
    check "pfs-vs-fio: memcpy rows for both sizes" [ "$(grep -cE '^(4_KiB|1_MiB) +[0-9.]+ +[0-9.]+$' "$T/out")" -eq 4 ]
    check "pfs-vs-fio: the targets line" grep -qE "^targets \(pfsbench\): [0-9]+ met, [0-9]+ missed" "$T/out"
    check "pfs-vs-fio: results.csv has 8 launches (4 cells x 2 tools)" \
        [ "$(tail -n +2 "$T/pvf/results.csv" 2>/dev/null | wc -l)" -eq 8 ]
    check "pfs-vs-fio: load logged per round" grep -q "^round 1 " "$T/pvf/loadavg.log"
    check "pfs-vs-fio: no work directory left behind" [ -z "$(ls "$S")" ]
else
    bad "fio is not installed (scripts/install-deps.sh installs it); pfs-vs-fio.sh needs it"
fi
RC=0
bash "$SRC/bench/pfs-vs-fio.sh" -r 0 >"$T/out" 2>"$T/err" || RC=$?
check "pfs-vs-fio: -r 0 is refused with exit 2" [ "$RC" -eq 2 ]
check "pfs-vs-fio: and says why" grep -q "positive" "$T/err"

# ---- the results-writer bench ----
RC=0
timeout 30 "$BENCH_BIN/bench_results" -n 64 -N 4 -i 2 -a 2 -d "$T" >"$T/out" 2>"$T/err" || RC=$?
check "bench_results: exit 0" [ "$RC" -eq 0 ]
check "bench_results: names the run size" grep -q "^results writer: 64 ranks on 4 nodes x 4 phases x 2 reps = 512 rank records" "$T/out"
check "bench_results: one row per append" [ "$(grep -cE '^[12] +[0-9.]+ +[0-9.]+$' "$T/out")" -eq 2 ]
check "bench_results: leaves nothing behind" [ -z "$(ls -d "$T"/pfs_bench_results.* 2>/dev/null)" ]
RC=0
"$BENCH_BIN/bench_results" -n 4 -N 8 >"$T/out" 2>"$T/err" || RC=$?
check "bench_results: more nodes than ranks is refused" [ "$RC" -eq 2 ]

# ---- pfs-overheads.sh, small ----
# About 15 mpirun launches of up to 4 ranks: 19 s under ASan on an idle
# 2-core box, twice that beside another test; 180 s stays under ctest's 300.
RC=0
timeout 180 bash "$SRC/bench/pfs-overheads.sh" -s -d "$S" -o "$T/ovh" >"$T/out" 2>"$T/err" || RC=$?
check "pfs-overheads -s: exit 0" [ "$RC" -eq 0 ]
check "pfs-overheads: memory rows (ranks 1, 2, 4 x with/without results)" \
    [ "$(grep -cE '^[124] +1m (no-results|results) +[0-9]+ +[0-9]+ +-?[0-9.]+ +(met|MISSED)$' "$T/out")" -eq 6 ]
check "pfs-overheads: start-up ratio" grep -qE "^ratio first I/O / trivial MPI_Init +[0-9.]+ +(met|MISSED)" "$T/out"
check "pfs-overheads: results writer in /tmp and in the data dir" [ "$(grep -c '^results writer: 64 ranks' "$T/out")" -eq 2 ]
check "pfs-overheads: reductions, plain and watched" [ "$(grep -c '^reductions: 4 ranks' "$T/out")" -eq 2 ]
check "pfs-overheads: gap between phases from real raw times" grep -qE "^pfsbench at 4 ranks, 20 phases: gap between phases .* (met|MISSED)" "$T/out"
check "pfs-overheads: no work directory left behind" [ -z "$(ls "$S")" ]

# ---- scale-mpi.sh and scale-fit.py, 1 and 2 ranks on fake nodes ----
# 9 launches of 1-2 ranks (two with a 3 s phase): the columns are there,
# and the figures that do not depend on timing are what the code says.
RC=0
timeout 200 bash "$SRC/bench/scale-mpi.sh" -n 1,2 -R 1 -P 3 -d "$S" -o "$T/scale" >"$T/out" 2>"$T/err" || RC=$?
check "scale-mpi: exit 0" [ "$RC" -eq 0 ]
check "scale-mpi: a row for 1 and for 2 ranks" [ "$(grep -cE '^ +[12] +[12] \| ' "$T/out")" -eq 2 ]
csvrow() { awk -F, -v n="$1" 'NR == 1 {for (i = 1; i <= NF; i++) col[$i] = i} NR > 1 && $1 == n {print $col["'"$2"'"]}' "$T/scale/results.csv"; }
check "scale-mpi: 2 ranks on 2 nodes, bytes into rank 0 per phase measured within 1% of computed" \
    awk -v m="$(csvrow 2 rank0_bytes_phase_measured)" -v c="$(csvrow 2 rank0_bytes_phase_computed)" \
    'BEGIN {exit !(c > 0 && m >= 0.99 * c && m <= 1.01 * c)}'
check "scale-mpi: 2 ranks on 2 nodes, one progress sender, and its reports reach rank 0" \
    sh -c "[ '$(csvrow 2 prog_senders)' = 1 ] && [ '$(csvrow 2 prog_reports)' -ge 1 ]"
check "scale-mpi: memory columns filled" sh -c "[ -n '$(csvrow 2 own_other_mib)' ] && [ -n '$(csvrow 2 comms_other_mib)' ]"
check "scale-mpi: no work directory left behind" [ -z "$(ls "$S")" ]
RC=0
/usr/bin/python3 "$SRC/bench/scale-fit.py" "$T/scale/results.csv" >"$T/out" 2>"$T/err" || RC=$?
check "scale-fit: exit 0" [ "$RC" -eq 0 ]
check "scale-fit: the points and the bytes formula against them" \
    sh -c "grep -q '^points (N x K): 1x1 2x2$' '$T/out' && grep -qE '^bytes into rank 0 per phase .* measured / formula 1\.0' '$T/out'"
check "scale-fit: 2 points are too few for 3 terms" grep -q "own memory, rank 0 (MiB) *(too few points)" "$T/out"

finish
