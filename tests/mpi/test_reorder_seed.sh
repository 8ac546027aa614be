#!/bin/bash
# -C --reorder-seed S (IOR's -Z -X S, issue 28) at 4 ranks on one node:
# each rank reads, and --verify checks every byte of, the data of the rank
# the seeded permutation names (never its own); the results file's
# reads_from_rank is that permutation (tests/mpi/reorder_seed_checks.py
# computes it again), the same for `pfsbench ior -Z -X S` as natively, for
# a file per process and the shared file with 2 threads a rank; the run
# warns that on one node the data read is its node's.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"

run_mpi 4 120 -d "$D" -t 16k -b 64k -C --reorder-seed 7 --verify -p write,read -o "$T/fpp.h5"
check "file per process, seed 7: exit 0, every byte read verified as its source's" [ "$RC" -eq 0 ]
check "the run says the order is the seed's, within one node" \
    grep -q "reorder-seed 7 on one node: each rank reads another rank's data, of its own node" "$T/out" "$T/err"
check "the report's access line says so" grep -q "reads reordered at random" "$T/out"
pycheck "file per process, seed 7: reads_from_rank is the permutation of seed 7, no rank its own" \
    reorder_seed sources "$T/fpp.h5" 7

run_mpi 4 120 -d "$D" -t 16k -b 64k --shared --threads 2 -C --reorder-seed 11 --verify -p write,read -o "$T/sh.h5"
check "shared, 2 threads a rank, seed 11: exit 0, every byte read verified" [ "$RC" -eq 0 ]
pycheck "shared, seed 11: reads_from_rank is the permutation of seed 11" reorder_seed sources "$T/sh.h5" 11

mkdir -p "$T/ior"
RC=0
(cd "$T/ior" && timeout 120 mpirun -np 4 --oversubscribe --bind-to none "$PFSBENCH" ior -w -W -Z -X 7 -F \
    -b 64k -t 16k) >"$T/out" 2>"$T/err" || RC=$?
check "ior -Z -X 7: exit 0, the check read verified" [ "$RC" -eq 0 ]
check "ior -Z -X 7: the equivalent is -C --reorder-seed 7" grep -q "^pfsbench: equivalent: .* -C --reorder-seed 7" \
    "$T/out" "$T/err"
pycheck "ior -Z -X 7: the sources are seed 7's permutation" reorder_seed sources "$T/ior/pfsbench-results.h5" 7
check "no data file left" [ -z "$(ls -A "$D")$(ls -A "$T/ior" | grep '^pfsbench\.')" ]
finish
