#!/bin/bash
# Issue 20, the IO500-shaped suite: jobs/io500-style.job at a small size
# (its variables), then pfs-io500's score checked against a hand computation
# from the stored datasets (bytes, ops, seconds per repetition), and the
# rules it must say were not met.
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
JOB=$SRC/jobs/io500-style.job
IO500=$(dirname "$PFSBENCH")/pfs-io500
D=$T/data
mkdir -p "$D"
R=$T/io500.h5

export PFS_DIR=$D PFS_EASY_BLOCK=4m PFS_EASY_FILES=200 PFS_HARD_BLOCK=$((47008 * 64)) PFS_HARD_FILES=120
run_mpi 2 120 -f "$JOB" -o "$R"
check "the job runs: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "four runs, one per workload" [ "$("$PY" -c 'import h5py,sys; print(len(h5py.File(sys.argv[1],"r")["runs"]))' "$R")" -eq 4 ]
check "nothing left in the data directory" [ -z "$(ls -A "$D")" ]

RC=0
"$PY" "$IO500" "$R" >"$T/out" 2>"$T/err" || RC=$?
check "pfs-io500: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "pfs-io500: says first that it is not an IO500 result" sh -c "head -1 '$T/out' | grep -q 'NOT AN IO500 RESULT'"
check "pfs-io500: 12 phase lines" [ "$(grep -c '^\[RESULT\]' "$T/out")" -eq 12 ]
check "pfs-io500: a find line in kIOPS" grep -qE '^\[RESULT\] find +[0-9.]+ kIOPS : time' "$T/out"
check "pfs-io500: the metadata figure includes find" grep -q "7 mdtest phases and find" "$T/out"
check "pfs-io500: no 'no find' note left" not grep -qi "no find" "$T/out"
for rule in "find: walks the mdtest-hard run's files only" "IO500 requires at least 300 s" \
    "one node, so no read came from another node"; do
    check "pfs-io500: names the rule not met: $rule" grep -qF "$rule" "$T/out"
done
check "pfs-io500: the job's stonewall is IO500's (-D 300): not listed" not grep -q "ior-easy: stonewall" "$T/out"
check "pfs-io500: the mdtest sections' stonewall is IO500's (-W 300): not listed" not grep -q "mdtest-.*stonewall" "$T/out"
check "pfs-io500: no shape complaint for the job's own shapes" not grep -q "IO500's is .*(-t\|IO500's is .*(-F\|IO500's is .*(-u" "$T/out"

"$PY" "$IO500" "$R" --format json >"$T/json" 2>>"$T/err"
pycheck "the score is IO500's arithmetic on the stored bytes, ops and seconds" io500 score "$R" "$T/json"

# Another shape, under a prefix: the sections renamed x-..., ior-easy's transfer 1 MiB.
sed -e 's/^\[\([im]\)/[x-\1/' -e 's/^transfer = 2m/transfer = 1m/' "$JOB" >"$T/x.job"
run_mpi 2 120 -f "$T/x.job" -o "$R"
check "the renamed job runs: exit 0 (got $RC)" [ "$RC" -eq 0 ]
RC=0
"$PY" "$IO500" "$R" --prefix x- >"$T/out" 2>"$T/err" || RC=$?
check "pfs-io500 --prefix x-: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "pfs-io500 --prefix x-: scores the x- runs (5..8)" grep -q "runs ior-easy 5, mdtest-easy 6, ior-hard 7, mdtest-hard 8" "$T/out"
check "pfs-io500: names a transfer that is not IO500's" grep -qF "ior-easy: transfer 1048576, IO500's is 2097152 (-t 2m)" "$T/out"

# A workload missing: exit 2 and the label named.
run_mpi 1 60 -d "$D" -t 64k -b 256k -o "$T/one.h5" --label ior-easy
RC=0
"$PY" "$IO500" "$T/one.h5" >"$T/out" 2>"$T/err" || RC=$?
check "a file without mdtest-easy: exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "a file without mdtest-easy: names the missing labels" grep -q "no run labelled mdtest-easy, ior-hard, mdtest-hard" "$T/err"
finish
