#!/bin/bash
# Issue 28, jobs/io500.job: one section per IO500 phase in IO500's order,
# the writes kept and read, stat'ed, found and deleted by later sections,
# ior-rnd4K-easy-read over ior-easy's kept files, the kept data removed by
# the last sections. At a small size (its variables), 2 ranks: the phases
# ran in IO500's order (the results file), nothing is left in the data
# directory, and pfs-io500's score is IO500's arithmetic on the stored
# datasets (bytes, ops, seconds per repetition) with no phase-order rule
# listed; the same job with ior-easy's read moved next to its write is
# listed as out of order; with a stonewall that cuts the mdtest creates
# short of -n, every later section works on the files they made.
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
JOB=$SRC/jobs/io500.job
IO500=$(dirname "$PFSBENCH")/pfs-io500
D=$T/data
mkdir -p "$D"
R=$T/io500.h5

export PFS_DIR=$D PFS_EASY_BLOCK=4m PFS_EASY_FILES=200 PFS_HARD_BLOCK=$((47008 * 64)) PFS_HARD_FILES=120
export PFS_RUN_ID=t$$
run_mpi 2 180 -f "$JOB" -o "$R"
check "the job runs: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "the job: 18 of 18 sections completed" grep -q "job $JOB: 18 of 18 sections completed" "$T/err"
pycheck "the runs are IO500's phases in IO500's order; find over both trees; rnd4K over ior-easy's files" \
    io500 order "$R" 200 120 $((4 << 20))
check "the clean sections removed the kept data files" grep -q "^removed  $D/pfsbench.t$$-ior-easy.kept" "$T/out"
check "the mdtest clean sections found nothing left (the deletes removed the trees)" [ "$(grep -c "^0 pfsbench files, 0 bytes removed" "$T/out")" -eq 2 ]
check "nothing left in the data directory" [ -z "$(ls -A "$D")" ]

RC=0
"$PY" "$IO500" "$R" >"$T/out" 2>"$T/err" || RC=$?
check "pfs-io500: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "pfs-io500: says first that it is not an IO500 result" sh -c "head -1 '$T/out' | grep -q 'NOT AN IO500 RESULT'"
check "pfs-io500: 12 scored phase lines" [ "$(grep -c '^\[RESULT\]' "$T/out")" -eq 12 ]
check "pfs-io500: rnd4K in IO500's unscored line" grep -qE '^\[      \] ior-rnd4K-easy-read +[0-9.]+ GiB/s : time' "$T/out"
check "pfs-io500: a find line in kIOPS" grep -qE '^\[RESULT\] find +[0-9.]+ kIOPS : time' "$T/out"
check "pfs-io500: the metadata figure includes find" grep -q "7 mdtest phases and find" "$T/out"
check "pfs-io500: no phase-order rule (the job runs IO500's order)" not grep -q "phase order" "$T/out"
check "pfs-io500: no find rule (find walks both trees)" not grep -q "^  - find" "$T/out"
for rule in "ior-easy-write ran" "IO500 requires at least 300 s" \
    "ior-rnd4K-easy-read: one node, so no read came from another node"; do
    check "pfs-io500: names the rule not met: $rule" grep -qF "$rule" "$T/out"
done
check "pfs-io500: the job's stonewalls are IO500's (-D/-W 300): not listed" not grep -q "stonewall" "$T/out"
check "pfs-io500: no shape complaint for the job's own shapes" not grep -q "IO500's is .*(-" "$T/out"

"$PY" "$IO500" "$R" --format json >"$T/json" 2>>"$T/err"
pycheck "the score is IO500's arithmetic on the stored bytes, ops and seconds" io500 score "$R" "$T/json"

# The same job under a prefix, ior-easy's transfer 1 MiB, and its read moved next to its write
# (each workload's phases back to back, as the io500-style job ran them): listed.
mkdir -p "$T/sec"
awk -v d="$T/sec" '/^\[/ {f = d "/" substr($0, 2, length($0) - 2)} f {print > f} !f {print > d "/head"}' "$JOB"
(cd "$T/sec" && cat head global ior-easy-write ior-easy-read mdtest-easy-write ior-hard-write mdtest-hard-write \
    find-mdtest-easy find-mdtest-hard mdtest-easy-stat ior-hard-read mdtest-hard-stat mdtest-easy-delete \
    mdtest-hard-read mdtest-hard-delete ior-rnd4K-easy-read ior-easy-clean ior-hard-clean mdtest-easy-clean \
    mdtest-hard-clean) |
    sed -e 's/^\[\([im]\)/[x-\1/' -e 's/^\[find/[x-find/' -e 's/^transfer = 2m/transfer = 1m/' >"$T/x.job"
run_mpi 2 180 -f "$T/x.job" -o "$R"
check "the reordered job runs: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "the reordered job: nothing left in the data directory" [ -z "$(ls -A "$D")" ]
RC=0
"$PY" "$IO500" "$R" --prefix x- >"$T/out" 2>"$T/err" || RC=$?
check "pfs-io500 --prefix x-: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "pfs-io500 --prefix x-: scores the x- runs (15..28)" grep -q "runs 15..28;" "$T/out"
check "pfs-io500: names the order found" grep -qF "phase order: the sections ran as ior-easy-write, ior-easy-read, mdtest-easy-write" "$T/out"
check "pfs-io500: names a transfer that is not IO500's" grep -qF "ior-easy-write: transfer 1048576, IO500's is 2097152 (-t 2m)" "$T/out"

# IO500's real size, where the stonewall stops the mdtest creates (-n 1000000, a 0.05 s
# stonewall): the later sections work on the files each create made, as its kept status says.
PFS_STONEWALL=0.05 PFS_EASY_FILES=1000000 PFS_HARD_FILES=1000000 PFS_RUN_ID=c$$ run_mpi 2 180 -f "$JOB" -o "$T/cut.h5"
check "the job with its creates cut by the stonewall: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "... 18 of 18 sections completed" grep -q "job $JOB: 18 of 18 sections completed" "$T/err"
check "... the stat sections say they work on what the creates kept" \
    [ "$(grep -c "create was stopped by its stonewall: it kept [0-9]* small files per stream, not -n 1000000" "$T/out")" -ge 2 ]
pycheck "... both creates cut short; find, stat, read and delete on exactly the files they made" \
    io500 cut "$T/cut.h5" 1000000
check "... nothing left in the data directory" [ -z "$(ls -A "$D")" ]

# A phase missing: exit 2 and the labels named.
run_mpi 1 60 -d "$D" -t 64k -b 256k -o "$T/one.h5" --label ior-easy-write
RC=0
"$PY" "$IO500" "$T/one.h5" >"$T/out" 2>"$T/err" || RC=$?
check "a file without mdtest-easy-write: exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "a file without mdtest-easy-write: names the missing labels" grep -q "no run labelled mdtest-easy-write, ior-hard-write, mdtest-hard-write, find-mdtest-easy" "$T/err"
finish
