#!/bin/bash
# --format json|csv own stdout (valid, nothing else mixed in, failed runs too;
# a job file or a rank sweep prints one JSON array of its runs and one CSV
# header); --units labels every figure; -C applies to stat and read-files
# across nodes.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
PY=/usr/bin/python3

run_mpi 2 60 -d "$D" -t 64k -b 256k -p write,read,create,stat -n 20 -i 2 --format json -o "$T/r.h5" --label 'a "quoted" label'
check "json: exit 0" [ "$RC" -eq 0 ]
check "json: stdout is one valid JSON document with every phase and repetition" $PY "$PFS_TESTMPI/format_checks.py" json "$T/out"
check "json: the results line went to stderr" grep -q "^results .*/runs/000001 (complete)" "$T/err"

# A failed run still gives valid JSON, with its status and error.
run_in_tmpfs size=1m 2 -t 64k -b 1m --no-results --format json
check "json, failed run: exit 1" [ "$RC" -eq 1 ]
check "json, failed run: valid JSON with status failed and the error" $PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["status"] == "failed" and "No space left on device" in d["error"] else 1)' "$T/out"

run_mpi 2 60 -d "$D" -t 64k -b 256k -p write,read -i 3 --format csv --no-results --units GB
check "csv: exit 0" [ "$RC" -eq 0 ]
check "csv: a header and 6 rows, in GB/s" $PY "$PFS_TESTMPI/format_checks.py" csv "$T/out"

# A job file and a rank sweep: one JSON document (an array of runs) and one
# CSV header, not one per run (issue 25). [gone] reads a run nobody kept: it is
# refused when it starts (exit 2, no run), and the array holds the others.
printf '[global]\ndir = %s\ntransfer = 64k\nblock = 256k\n[one]\nphases = write\n[two]\nphases = write,read\n[gone]\nphases = read\nrun-id = nosuch\n' "$D" >"$T/f.job"
run_refused 2 60 -f "$T/f.job" --no-results --format json
check "job, json: exit 2 (the refused section's)" [ "$RC" -eq 2 ]
check "job, json: stdout is one array of the two runs" \
    $PY "$PFS_TESTS/mpi/trust_jobs_check.py" json "$T/out" "one complete" "two complete"
run_mpi 2 60 -f "$T/f.job" --no-results --format csv
check "job, csv: one header, then a row per phase and repetition of each run" $PY "$PFS_TESTMPI/format_checks.py" job_csv "$T/out"
run_mpi 4 60 -d "$D" -t 64k -b 256k --ranks 1,2,4 --label pts --no-results --format json
check "sweep, json: one array, a run per point" $PY "$PFS_TESTS/mpi/trust_jobs_check.py" json "$T/out" \
    "pts:n=1 complete" "pts:n=2 complete" "pts:n=4 complete"
printf '[global]\ndir = %s\n[a]\nformat = json\n[b]\nformat = csv\n' "$D" >"$T/mixed.job"
run_refused 2 60 -f "$T/mixed.job" --no-results
check "job whose sections print different formats: exit 2 before any runs" [ "$RC" -eq 2 ]
check "job whose sections print different formats: said" grep -q "section \\[b\\]: --format csv, where the sections before it print json" "$T/err"

for u in MiB KB MB GB; do
    run_mpi 1 60 -d "$D" -t 64k -b 256k --no-results --units $u
    check "--units $u: the column says $u/s" grep -qE "^phase +rep +$u/s " "$T/out"
done
run_mpi 1 60 -d "$D" --no-results --units kb
check "--units kb (wrong case): exit 2" [ "$RC" -eq 2 ]

# -C with metadata on 2 fake nodes: stat and read-files visit another node's files.
if [ -f "$PFS_TESTS/lib/fakenodes.sh" ]; then
    . "$PFS_TESTS/lib/fakenodes.sh"
    RC=0
    fakenodes_run 2 2 60 "$PFSBENCH" -d "$D" -p create,stat,read-files,delete -n 50 --dirs per-rank -C \
        -o "$T/c.h5" >"$T/out" 2>"$T/err" || RC=$?
    check "-C metadata on 2 nodes: exit 0" [ "$RC" -eq 0 ]
    check "-C metadata: every rank read from another node" $PY -c '
import h5py, sys
p = h5py.File(sys.argv[1], "r")["runs/000001/placement"][:]
sys.exit(0 if all(r["node"] != r["reads_from_node"] for r in p) else 1)' "$T/c.h5"
    check "-C metadata: nothing left" [ -z "$(ls -A "$D")" ]
    # -C with --verify: each rank reads, and checks, the pattern another node's rank wrote.
    RC=0
    fakenodes_run 2 2 60 "$PFSBENCH" -d "$D" -t 64k -b 512k -p write,read -C --verify --threads 2 \
        -o "$T/v.h5" >"$T/out" 2>"$T/err" || RC=$?
    check "-C --verify on 2 nodes, 2 threads a rank: every byte read checks out" [ "$RC" -eq 0 ]
    check "-C --verify: the reads went to the other node" grep -q "reorder: rank r reads the data of rank (r+1) mod 4, on another node" "$T/out"
fi
# The live progress line: forced with --progress, on stderr, at most once a
# second after 2 s; stdout keeps only the report (valid JSON here). A create
# of many empty files on ext4 makes a phase of a few seconds that takes no space.
run_mpi 2 120 -d "$D" -p create -n 40000 --progress --no-results --format json
check "progress: exit 0" [ "$RC" -eq 0 ]
if [ "$($PY -c 'import json,sys; print(int(json.load(open(sys.argv[1]))["phases"][0]["repetitions"][0]["seconds"] > 3))' "$T/out")" = 1 ]; then
    check "progress: lines on stderr with percent, files/s and ETA" grep -qE "^create +[0-9.]+% +[0-9.]+ files/s  ETA [0-9]+ s$" "$T/err"
else
    echo "# the create took under 3 s here: the progress line was not due"
fi
check "progress: stdout is still valid JSON" $PY -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out"
run_mpi 2 120 -d "$D" -p create -n 20000 --no-results
check "progress: off when stdout is not a terminal" not grep -q ETA "$T/err"
check "progress: the files are gone" [ -z "$(ls -A "$D")" ]
finish
