#!/bin/bash
# Tail exemplars (issue 29, --exemplars K): the job's K slowest operations
# of each phase and repetition, read back from the results file.
#   - one write made slow on purpose (the stall shim holds rank 1's first
#     pwrite, at offset 64 KiB of the shared file, 0.5 s) is the slowest
#     exemplar: its rank, host, offset, length, op, file and a duration of
#     at least the stall; exactly min(K, ops) rows, slowest first;
#   - with K above the operations, every operation is one (min(K, ops)),
#     per repetition and phase (data and metadata), and --format json's
#     "exemplars" are the results file's rows;
#   - --exemplars 0 stores none (latency still recorded) and -v prints no
#     table;
#   - --exemplars -1, 65 and abc: exit 2, one message naming the option,
#     nothing created.
. "$(dirname "$0")/lib.sh"
: "${PFS_STALL_LIB:?set PFS_STALL_LIB to the stall shim (ctest does)}"
S=$(mktemp -d /dev/shm/pfsex.XXXXXX)
trap 'rm -rf "$T" "$S"' EXIT
PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB"

# 2 ranks on one shared file, 16 writes of 4 KiB each: rank 1's first
# (offset 64 KiB, segmented) stalls 0.5 s; K is the default, 16, of 36
# operations (32 transfers, 2 opens, 2 closes).
RC=0
env LD_PRELOAD="$PRELOAD" PFS_STALL_CALL=pwrite PFS_STALL_SECS=0.5 PFS_STALL_RANK=1 PFS_STALL_COUNT=1 \
    PFS_STALL_PATH="$S" timeout 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$S" --shared \
    -t 4k -b 64k -p write,read -o "$T/slow.h5" -v >"$T/out" 2>"$T/err" || RC=$?
check "a stalled write: exit 0" [ "$RC" -eq 0 ]
pycheck "the stalled write is the slowest exemplar; 16 of 36, sorted" exemplars slowest "$T/slow.h5" 0.5
check "-v prints the exemplars' table" has "slowest operations of each repetition, job-wide (--exemplars 16)"

# K 64 above every phase's operations, 2 repetitions, data and metadata.
run_mpi 2 120 -d "$S" -t 4k -b 32k -p write,create,stat -n 5 -i 2 --exemplars 64 --format json -o "$T/all.h5"
check "--exemplars 64: exit 0" [ "$RC" -eq 0 ]
pycheck "--exemplars 64: every operation, per phase and repetition" exemplars count "$T/all.h5" 64
pycheck "--exemplars 64: the JSON's exemplars are the file's" exemplars json "$T/out" "$T/all.h5"

run_mpi 2 120 -d "$S" -t 4k -b 32k -p write --exemplars 0 -o "$T/none.h5" -v
check "--exemplars 0: exit 0" [ "$RC" -eq 0 ]
pycheck "--exemplars 0: no exemplar stored, latency still recorded" exemplars none "$T/none.h5"
check "--exemplars 0: no table with -v" hasnt "slowest operations of each repetition"

mkdir -p "$T/bad"
for v in -1 65 abc; do
    par "$v" run_refused 2 60 -d "$T/bad" --exemplars "$v" -o "$T/bad/r.h5"
done
for v in -1 65 abc; do
    par_wait "$v"
    check "--exemplars $v: exit 2" [ "$RC" -eq 2 ]
    check "--exemplars $v: one message naming it" [ "$(grep -c -- "--exemplars" "$T/err")" -eq 1 ]
    check "--exemplars $v: nothing created" [ -z "$(ls -A "$T/bad")" ]
done
finish
