#!/bin/bash
# Concurrent groups in a job file (issue 20): sections with one
# `concurrent = TAG` run at the same time, each on its share of the nodes,
# each with its own phases, barriers and figures, and a record of the window
# in which all ran together. On 3 fake nodes x 2 ranks:
#   - [ckpt] share 2 gets 2 nodes (4 ranks), [randread] 1 node, at once;
#   - each is a complete run of its own (ranks, nodes, label, group attrs);
#   - their phase spans overlap in time, and the recorded overlap is > 0 and
#     no longer than either run;
#   - a group with more sections than ranks is refused before anything runs;
#   - sections of one group must follow each other;
#   - after the group the next plain section runs on every rank.
. "$(dirname "$0")/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
D=$T/data
R=$T/results.h5
mkdir -p "$D/a" "$D/b"
fakenodes_setup 3 2
runf() { RC=0; FAKENODES_MAP=slot fakenodes_mpirun "$1" 180 "$PFSBENCH" -f "$2" -o "$R" -q >"$T/out" 2>"$T/err" || RC=$?; }

cat >"$T/c.job" <<JOB
[global]
transfer = 64k
# a few repetitions, so that each section's phases outlast the other's set-up
reps = 4

[ckpt]
concurrent = mix
share = 2
dir = $D/a
block = 8m
phases = write,read
fsync

[randread]
concurrent = mix
dir = $D/b
transfer = 4k
block = 8m
random
phases = write,read

[after]
dir = $D
reps = 1
block = 1m
phases = write
JOB
runf 6 "$T/c.job"
check "a concurrent group then a plain section: exit 0" [ "$RC" -eq 0 ]
check "the group is announced once" [ "$(grep -c 'concurrent = mix: sections ckpt,randread at once' "$T/err")" -eq 1 ]
check "no data file left" [ -z "$(find "$D" -type f)" ]
# whole SECTION: its report (-q: the summary) follows its heading whole,
# no line of the other section's inside it.
whole() {
    awk -v h="== section $1 (concurrent = mix), label $1 ==" '
        $0 == h { f = 1; n++; next }
        f == 1 && /^summary over repetitions/ { f = 2; next }
        f == 2 && /^phase +reps +mean / { f = 3; next }
        f == 3 && /^write +4 / { f = 4; next }
        f == 4 && /^read +4 / { ok = 1 }
        f && !ok { f = 0 }
        END { exit !(ok && n == 1) }' "$T/out"
}
check "[ckpt]'s report whole, under one heading naming it, the group and the label" whole ckpt
check "[randread]'s too" whole randread
check "the plain section after the group has no heading" [ "$(grep -c '^== section ' "$T/out")" -eq 2 ]
pycheck "each section a run on its share; the overlap recorded" concurrent group "$R"

# A section's directory missing is refused before anything runs (exit 2, no
# results file: every section is checked first). One that stops before its
# phases for a reason only its run finds (its run id held by a live run):
# the other still runs and records no overlap, nobody waits forever, and the
# job's status is that section's (2).
printf '[global]\nblock = 1m\ntransfer = 64k\n[ok]\nconcurrent = h\ndir = %s\nphases = write\n[nodir]\nconcurrent = h\ndir = %s/missing\nphases = write\n' "$D" "$D" >"$T/half.job"
rm -f "$R"
runf 6 "$T/half.job"
check "a section of a group without its directory: exit 2 before any runs" [ "$RC" -eq 2 ] && [ ! -e "$R" ]
check "a section of a group without its directory: named" grep -q "half.job:8: section \\[nodir\\]: target directory '$D/missing' does not exist" "$T/err"
printf '[global]\nblock = 1m\ntransfer = 64k\n[ok]\nconcurrent = h\ndir = %s\nphases = write\n[held]\nconcurrent = h\ndir = %s\nrun-id = held1\nphases = write\n' "$D" "$D" >"$T/held.job"
exec {held}>"$D/pfsbench.held1.lock" # this shell holds the run's lock, as a live run of that id would
flock "$held"
runf 6 "$T/held.job"
exec {held}>&-
rm -f "$D/pfsbench.held1.lock"
check "a section of a group whose run id is held: exit 2, no hang" [ "$RC" -eq 2 ]
check "a section of a group whose run id is held: named" grep -q "run id held1 is in use by a live run" "$T/err"
pycheck "a section of a group whose run id is held: the other ran, with no overlap recorded" concurrent held "$R"

printf '[global]\ndir = %s\nblock = 1m\n[a]\nconcurrent = g\n[b]\nconcurrent = g\n[c]\nconcurrent = g\n' "$D" >"$T/many.job"
RC=0; timeout 60 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -f "$T/many.job" -o "$T/bad.h5" >"$T/out" 2>"$T/err" || RC=$?
check "3 concurrent sections on 2 ranks: exit 2, nothing made" [ "$RC" -eq 2 ] && [ ! -e "$T/bad.h5" ]
check "3 concurrent sections on 2 ranks: said" grep -q "concurrent = g has 3 sections but the job 2 ranks" "$T/err"
printf '[global]\ndir = %s\nblock = 1m\n[a]\nconcurrent = g\n[x]\n[b]\nconcurrent = g\n' "$D" >"$T/split.job"
RC=0; timeout 60 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -f "$T/split.job" -o "$T/bad.h5" >"$T/out" 2>"$T/err" || RC=$?
check "a group split by another section: exit 2, its line" [ "$RC" -eq 2 ] && grep -q "split.job:7: section \[b\]: concurrent = g again" "$T/err"
finish
