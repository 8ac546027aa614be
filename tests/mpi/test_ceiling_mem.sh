#!/bin/bash
# The memory ceiling (pfs_ceiling_memory, src/core/ceiling.c) held against
# bench/bench_memcpy run the same way: one core against one process, all
# cores (threads) against one process per CPU (-j). Within a wide factor:
# the machine is loaded, so no tight timing.
. "$PFS_TESTS/mpi/lib.sh"
: "${PFS_CEILING_PROBE:?set PFS_CEILING_PROBE to the ceiling_probe binary (ctest does)}"
: "${PFS_BENCH_MEMCPY:?set PFS_BENCH_MEMCPY to bench_memcpy (ctest does; the bench directory builds it)}"
NCPU=$(nproc --all)
within() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { exit !(a > 0 && b > 0 && a <= f * b && b <= f * a) }'; }
# word NAME: the number after NAME on the probe's "mem" line.
word() { awk -v w="$1" '$1 == "mem" { for (i = 2; i < NF; i++) if ($i == w) print $(i + 1) }' "$T/out"; }

RC=0
timeout 120 "$PFS_CEILING_PROBE" mem >"$T/out" 2>"$T/err" || RC=$?
check "probe mem: exits 0" [ "$RC" -eq 0 ]
check "probe mem: one thread per online CPU ($NCPU)" [ "$(word threads)" = "$NCPU" ]
check "probe mem: 1 MiB copies over 32 MiB regions" [ "$(word transfer) $(word region)" = "1048576 33554432" ]
REGION=$(word region)
cp "$T/out" "$T/probe.out"

# bench_memcpy with the probe's shapes: its into/from columns, MiB/s.
timeout 120 "$PFS_BENCH_MEMCPY" -s "${REGION}" -t 1m -r 5 >"$T/one" 2>&1
timeout 120 "$PFS_BENCH_MEMCPY" -s "${REGION}" -t 1m -r 5 -j "$NCPU" >"$T/all" 2>&1
B1=($(awk '$1 == "1_MiB" { print $2, $3 }' "$T/one"))
BA=($(awk '$1 == "1_MiB" { print $2, $3 }' "$T/all"))
cat "$T/probe.out" "$T/one" "$T/all" | sed 's/^/# /'
cp "$T/probe.out" "$T/out"
check "one core, write direction: within a factor 8 of bench_memcpy ($(word one_into) vs ${B1[0]:-none})" \
    within "$(word one_into)" "${B1[0]:-0}" 8
check "one core, read direction: within a factor 8 of bench_memcpy ($(word one_from) vs ${B1[1]:-none})" \
    within "$(word one_from)" "${B1[1]:-0}" 8
check "all cores, write direction: within a factor 8 of bench_memcpy -j $NCPU ($(word all_into) vs ${BA[0]:-none})" \
    within "$(word all_into)" "${BA[0]:-0}" 8
check "all cores, read direction: within a factor 8 of bench_memcpy -j $NCPU ($(word all_from) vs ${BA[1]:-none})" \
    within "$(word all_from)" "${BA[1]:-0}" 8

# Two threads asked for: two, whatever the machine has.
timeout 120 "$PFS_CEILING_PROBE" mem 2 >"$T/out" 2>"$T/err" || RC=$?
check "probe mem 2: two threads" [ "$(word threads)" = 2 ]
finish
