#!/bin/bash
# Job files (-f JOBFILE, issue 20): several runs in one MPI job.
#   - every section runs, in order, as a run of its own in the same results
#     file, labelled with its name, with the job file's text stored;
#   - [global] lines apply to the sections after them; a section's own word
#     wins; the command line's options apply to every section;
#   - every error in the file is told at once with its file and line, exit
#     2, nothing created; so is every section a run would refuse before it
#     makes anything (a missing directory or results folder, --direct sizes,
#     memory), in whatever section it is (issue 25: the third section's was
#     found after the first two ran);
#   - a failing section is recorded and the next ones still run (exit status
#     of the first failure), unless --stop-on-error;
#   - a section's stored command line, run natively, does the same work.
. "$(dirname "$0")/lib.sh"
D=$T/data
R=$T/results.h5
mkdir -p "$D"

cat >"$T/ok.job" <<EOF
# two data runs and a metadata run
[global]
dir = $D
transfer = 64k
block = 1m

[seq]
phases = write,read
fsync

[shared-strided]
shared
layout = strided
phases = write,read
block = 512k

; small files
[md]
phases = create,stat,delete
files = 50
EOF
run_mpi 2 120 -f "$T/ok.job" -o "$R" -q
check "3 sections: exit 0" [ "$RC" -eq 0 ]
check "3 sections: each announced" [ "$(grep -c 'section \[' "$T/err")" -eq 3 ]
check "3 sections: no data file left" [ -z "$(ls -A "$D")" ]
pycheck "3 sections: 3 runs, labels, the job's text, globals and own words" jobfile sections "$R" "$T/ok.job"

# The stored command line of a section, run natively, does the same work.
cmd=$("$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(f['runs'][sorted(f['runs'])[0]].attrs['command_line'])" "$R")
# shellcheck disable=SC2086
run_mpi 2 120 ${cmd#pfsbench }
check "the stored command line runs natively: exit 0" [ "$RC" -eq 0 ]
pycheck "the native run moved the same bytes in the same phases" jobfile native "$R"

# Every error at once, with file and line; nothing made.
cat >"$T/bad.job" <<EOF
transfer = 1m
[global]
dir = $D
trnasfer = 64k
[a]
fsync = yes
[a]
[b]
help
EOF
run_refused 2 60 -f "$T/bad.job" -o "$T/bad.h5"
check "bad job file: exit 2" [ "$RC" -eq 2 ]
for l in 1 4 6 7 9; do
    check "bad job file: line $l named" grep -q "bad.job:$l: " "$T/err"
done
check "bad job file: nothing created" [ ! -e "$T/bad.h5" ] && [ -z "$(ls -A "$D")" ]
cat >"$T/bad2.job" <<EOF
[global]
dir = $D
[a]
block = 1mb
[b]
transfer = 3m
block = 4m
EOF
run_refused 2 60 -f "$T/bad2.job" -o "$T/bad.h5"
check "sections that do not parse: exit 2" [ "$RC" -eq 2 ]
check "sections that do not parse: the option's line and section" grep -q "bad2.job:4: section \[a\]: --block" "$T/err"
check "sections that do not parse: the second section too" grep -q "bad2.job:5: section \[b\]" "$T/err"
check "sections that do not parse: nothing created" [ ! -e "$T/bad.h5" ]
# What a run checks on the file system, for every section, before the first runs.
mkdir -p "$T/keep"
cat >"$T/late.job" <<EOF
[global]
dir = $D
transfer = 64k
block = 256k
[one]
phases = write,read
[two]
phases = write
[nodir]
dir = $T/missing
[noresults]
results = $T/nowhere/r.h5
[misaligned]
direct
transfer = 1000
block = 2000
[huge]
threads = 512
reps = 1000000
EOF
run_refused 2 60 -f "$T/late.job" -o "$T/keep/late.h5"
check "a later section's missing directory: exit 2" [ "$RC" -eq 2 ]
check "a later section's missing directory: its line and section" grep -q "late.job:9: section \\[nodir\\]: target directory '$T/missing' does not exist" "$T/err"
check "a results folder that is missing: named" grep -q "late.job:11: section \\[noresults\\]: the directory of results path '$T/nowhere/r.h5' does not exist" "$T/err"
check "--direct sizes: named" grep -q "late.job:13: section \\[misaligned\\]: --direct needs transfer and block to be multiples" "$T/err"
check "records past half the memory: named" grep -q "late.job:17: section \\[huge\\]: the run's records need" "$T/err"
check "nothing ran: no results file, no data file" [ ! -e "$T/keep/late.h5" ] && [ -z "$(ls -A "$D")" ]
check "nothing ran: no section was announced" not grep -q "section \\[one\\] (1 of" "$T/err"
# A section that reads what an earlier one keeps passes those checks: the
# kept files are checked when that section starts.
printf '[global]\ndir = %s\ntransfer = 64k\nblock = 256k\n[w]\nphases = write\nkeep\nrun-id = later1\n[r]\nphases = read\nrun-id = later1\n' "$D" >"$T/later.job"
run_mpi 2 60 -f "$T/later.job" --no-results
check "a section reading what an earlier one keeps: exit 0" [ "$RC" -eq 0 ]
rm -f "$D"/pfsbench.later1.*
run_mpi 1 60 -f "$T/nosuch.job"
check "a missing job file: exit 2, named" [ "$RC" -eq 2 ] && grep -q "nosuch.job" "$T/err"
run_mpi 1 60 -d "$D" --stop-on-error
check "--stop-on-error without -f: exit 2" [ "$RC" -eq 2 ]

# A section that fails (it reads files no run kept: refused before it
# starts, exit 2, nothing made, nothing recorded); the next runs.
cat >"$T/fail.job" <<EOF
[global]
dir = $D
transfer = 64k
block = 256k
[first]
phases = write
[broken]
phases = read
run-id = nosuchrun
[last]
phases = write,read
EOF
rm -f "$R"
run_refused 2 120 -f "$T/fail.job" -o "$R" -q
check "a failing section: exit 2 (its status)" [ "$RC" -eq 2 ]
check "a failing section: the last line counts it" [ "$(grep '^pfsbench: ' "$T/err" | tail -1)" = "pfsbench: job $T/fail.job: 2 of 3 sections completed, 1 failed" ]
check "a failing section: the unknown run id named" grep -q "error: --run-id nosuchrun: no run kept data files in $D" "$T/err"
pycheck "a failing section: not recorded, the others complete" jobfile failing "$R"
rm -f "$R"
run_refused 2 120 -f "$T/fail.job" --stop-on-error -o "$R" -q
check "--stop-on-error: exit 2" [ "$RC" -eq 2 ]
check "--stop-on-error: the last section did not run" grep -q "1 of 3 sections completed, 1 failed, 1 not run (--stop-on-error)" "$T/err"
check "--stop-on-error: no data file left" [ -z "$(ls -A "$D")" ]
# A plain fio job file (issue 28): fio's keys, its size units (1m = 2^20)
# and its comments after a value, run as it is.
F=$T/fio
mkdir -p "$F"
cat >"$T/plain.fio" <<EOF
; fio's own syntax: sizes per job, 2 jobs each
[global]
bs=1m
size=16m        # per job: pfsbench's block per stream
numjobs=2       ; two streams per rank
directory=$F
direct=1
ioengine=psync
group_reporting

[seq-write]
rw=write
unlink=0

[seq-read]
stonewall
rw=read
EOF
run_mpi 2 120 -f "$T/plain.fio" -o "$T/fio.h5" -q
check "a plain fio job file: exit 0" [ "$RC" -eq 0 ]
if "$PY" "$(dirname "$0")/fio_job_check.py" "$T/fio.h5" "$F" 2 >"$T/py" 2>&1; then
    ok "a plain fio job file: its sizes, jobs, engine and phases, the kept files"
else
    bad "a plain fio job file: its sizes, jobs, engine and phases, the kept files"
    cat "$T/py"
fi
rm -f "$F"/pfsbench.*
# fio's keys pfsbench cannot honour: each named with why, at once; nothing made.
cat >"$T/bad.fio" <<EOF
[global]
directory=$F
[mixed]
rwmixwrite=30
ioengine=posixaio
bs=4KiB
verify_pattern=0xff
filename=/dev/sdb
verify=md5
fsync=1 # fio's: after every write
block = 16m  # pfsbench's own key, with a comment
EOF
run_refused 2 60 -f "$T/bad.fio" -o "$T/badfio.h5"
check "refused fio keys: exit 2" [ "$RC" -eq 2 ]
check "rwmixwrite: refused with why" grep -q "bad.fio:4: fio's \`rwmixwrite\` has no pfsbench meaning: pfsbench's rwmix is the reads' share" "$T/err"
check "ioengine=posixaio: refused with why" grep -q "bad.fio:5: fio's \`ioengine = posixaio\` (aio_read/aio_write) has no pfsbench backend" "$T/err"
check "bs=4KiB: fio reads it 1000-based, refused" grep -q "bad.fio:6: fio's \`bs = 4KiB\` is not a size: fio reads 'KiB' as 1000-based" "$T/err"
check "verify_pattern: no pfsbench meaning" grep -q "bad.fio:7: fio's \`verify_pattern\` has no pfsbench meaning" "$T/err"
check "filename: no pfsbench meaning" grep -q "bad.fio:8: fio's \`filename\` has no pfsbench meaning: pfsbench names its own files" "$T/err"
check "verify=md5: fio's, refused with why" grep -q "bad.fio:9: fio's \`verify = md5\` checksums blocks" "$T/err"
check "fsync=1 and block = 16m # ...: taken (no error on lines 10, 11)" not grep -qE "bad.fio:1[01]:" "$T/err"
check "refused fio keys: nothing created" [ ! -e "$T/badfio.h5" ] && [ -z "$(ls -A "$F")" ]
# fio's mix: rw=randrw with rwmixread is write,rwmix with --random --rwmix
cat >"$T/mix.fio" <<EOF
[oltp]
directory=$F
rw=randrw
rwmixread=70
bs=4k
size=400k
EOF
run_mpi 1 60 -f "$T/mix.fio" --no-results
check "rw=randrw, rwmixread=70: write then rwmix, 70 reads of 100" \
    sh -c '[ "$1" -eq 0 ] && grep -qE "^ +mix: reads 70\.0% \(70, " "$2"' sh "$RC" "$T/out"
finish
