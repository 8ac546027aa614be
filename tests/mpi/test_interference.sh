#!/bin/bash
# Interference in a concurrent group (issue 30): `interference = 1` runs
# each section alone on its share of the ranks, then all together, every
# run recorded; the together runs hold, per phase, together/alone of the
# bandwidth and op p99, Jain's index over the sections, and each section's
# qos verdict. On 4 ranks, a checkpoint writer and a reader (write, read):
#   - 4 runs, in order: ckpt alone, reader alone, ckpt and reader together;
#   - the stored ratios are the stored figures' (h5py), Jain's index the
#     formula over each section's mean bandwidth ratio;
#   - a qos that cannot hold (p99<1ns) fails, one that must hold passes,
#     both said in the text report;
#   - the same job as JSON: each document's "interference" member;
#   - a section that runs no phase gives no ratio (said; NaN), its qos is
#     unknown, and Jain's index is over the other section alone;
#   - interference or qos outside a group, and a malformed qos: one line
#     from rank 0, exit 2, no results file.
. "$(dirname "$0")/lib.sh"
D=$T/data
R=$T/results.h5
mkdir -p "$D/a" "$D/b"

cat >"$T/i.job" <<JOB
[global]
transfer = 64k
block = 4m
reps = 1

[ckpt]
concurrent = mix
interference = 1
qos = bw>=0.001%,p99<1000s
dir = $D/a
phases = write
fsync

[reader]
concurrent = mix
qos = p99<1ns
dir = $D/b
phases = write,read
JOB
run_mpi 4 120 -f "$T/i.job" -o "$R"
check "an interference group: exit 0" [ "$RC" -eq 0 ]
check "each section alone, announced" [ "$(grep -c 'concurrent = mix: interference: section [a-z]* alone' "$T/err")" -eq 2 ]
check "then together, announced" grep -q 'sections ckpt,reader at once (interference: together)' "$T/err"
check "the headings say alone" [ "$(grep -c '^== section [a-z]* (concurrent = mix, alone)' "$T/out")" -eq 2 ]
check "the headings say together" [ "$(grep -c '^== section [a-z]* (concurrent = mix, together)' "$T/out")" -eq 2 ]
check "the ratios printed" grep -q '^interference mix \[reader\] read: bandwidth together/alone [0-9.]* (' "$T/out"
check "Jain's index printed by both" [ "$(grep -c "^interference mix: Jain's fairness index [0-9.]* over 2 sections (their mean bandwidth ratios)" "$T/out")" -eq 2 ]
check "a qos that must hold passes" grep -q '^qos          \[ckpt\] bw>=0.001%,p99<1000s: pass$' "$T/out"
check "a qos that cannot hold fails, saying why" grep -q '^qos          \[reader\] p99<1ns: FAIL (write: p99 ' "$T/out"
pycheck "alone and together recorded; ratios, Jain and qos from the stored figures" interference group "$R"

run_mpi 4 120 -f "$T/i.job" --format json --no-results
check "the same job as JSON: exit 0" [ "$RC" -eq 0 ]
cp "$T/out" "$T/out.json"
pycheck "each document's interference member; its ratios the documents' own" interference json "$T/out.json"

# A section that runs no phase (its run id names no kept files): it gives no
# ratio, says so, its qos is unknown, and Jain's index is over the other.
printf '[global]\nblock = 1m\ntransfer = 64k\nreps = 1\n[w]\nconcurrent = g\ninterference = 1\ndir = %s/a\nphases = write\n[r]\nconcurrent = g\nqos = bw>=50%%\ndir = %s/a\nrun-id = nothere\nphases = read\n' "$D" "$D" >"$T/half.job"
run_refused 4 120 -f "$T/half.job" -o "$T/half.h5"
check "a section that ran no phase: its status (2)" [ "$RC" -eq 2 ]
check "a section that ran no phase: no ratio, said" grep -q '^interference g \[r\]: no ratio: the together run ran no phase$' "$T/out"
check "a section that ran no phase: its qos unknown" grep -q '^qos          \[r\] bw>=50%: unknown (no phase ran)$' "$T/out"
pycheck "a section that ran no phase: left out of Jain's index" interference half "$T/half.h5"

# Bad input: refused before anything runs, one line, exit 2, no file. The
# three start side by side.
refuse() { # NAME JOBTEXT: started
    printf '%b' "$2" >"$T/$1.job"
    par "$1" run_refused 2 60 -f "$T/$1.job" -o "$T/bad.$1.h5"
}
refused() { # NAME EXPECTED-LINE: its checks
    par_wait "$1"
    check "$1: exit 2" [ "$RC" -eq 2 ]
    check "$1: no results file, no data file" [ ! -e "$T/bad.$1.h5" -a -z "$(find "$D" -type f)" ]
    check "$1: one line" [ "$(grep -c '^pfsbench: error: ' "$T/err")" -eq 1 ]
    check "$1: saying why" grep -qF "$2" "$T/err"
}
refuse alone "[global]\ndir = $D\nblock = 1m\n[a]\ninterference = 1\n"
refuse qosbad "[global]\ndir = $D\nblock = 1m\n[a]\nconcurrent = g\ninterference = 1\nqos = bw>95%\n[b]\nconcurrent = g\n"
refuse qosonly "[global]\ndir = $D\nblock = 1m\n[a]\nconcurrent = g\nqos = p99<5ms\n[b]\nconcurrent = g\n"
refused alone "alone.job:4: section [a]: interference outside a concurrent group"
refused qosbad "qosbad.job:7: qos = bw>95%: 'bw>95%': a target is bw>=P% or p99<DURATION"
refused qosonly "qosonly.job:4: section [a]: qos without interference"
finish
