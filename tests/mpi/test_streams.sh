#!/bin/bash
# Threads per rank (gpfsperf -th): streams = ranks x threads, each with its
# own file (or its own part of the shared file), timed and reduced per stream.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
PY=/usr/bin/python3
run_id_of() { sed -n 's/.*read them again with --run-id \([A-Za-z0-9_-]*\)).*/\1/p' "$T/out"; }
bytes_of() { awk -v p="$1" '$1==p && NF==10 && $2 ~ /^[0-9]+$/ {print $10}' "$T/out" | head -1; }

for shape in "1 8" "2 4"; do
    set -- $shape
    np=$1 th=$2
    run_mpi "$np" 60 -d "$D" --threads "$th" -t 64k -b 512k -p write,read -k -o "$T/r$np.h5" --verify
    check "$np x $th: exit 0" [ "$RC" -eq 0 ]
    id=$(run_id_of)
    check "$np x $th: $((np * th)) files, one per stream" [ "$(ls "$D" | grep -c "^pfsbench\.$id\.[0-9]*$")" -eq $((np * th)) ]
    check "$np x $th: every file is 512 KiB" [ "$(stat -c %s "$D"/pfsbench."$id".[0-9]* | sort -u)" = 524288 ]
    check "$np x $th: bytes reported = bytes on disk" [ "$(bytes_of write)" = $((np * th * 524288)) ]
    check "$np x $th: the header counts the streams" grep -q "$th threads per rank: $((np * th)) streams" "$T/out"
    check "$np x $th: per-stream rows, their bandwidths and the threads in the results file" $PY "$PFS_TESTMPI/streams_checks.py" streams "$T/r$np.h5" "$np" "$th"
    rm -f "$D"/pfsbench.*
done

# One shared file divided among all streams, segmented and strided, verified.
for layout in segmented strided; do
    run_mpi 2 60 -d "$D" --threads 3 --shared --layout $layout -t 16k -b 64k -p write,read --verify -k --no-results
    check "shared $layout 2 x 3: verified" [ "$RC" -eq 0 ]
    id=$(run_id_of)
    check "shared $layout 2 x 3: one file of 6 x 64 KiB" [ "$(stat -c %s "$D/pfsbench.$id.shared")" = 393216 ]
    # the same file read by 6 ranks x 1 thread sees the same layout: streams are ranks there
    run_mpi 6 60 -d "$D" --shared --layout $layout -t 16k -b 64k -p read --verify --run-id "$id" --no-results
    check "shared $layout: 6 ranks x 1 thread read what 2 x 3 wrote" [ "$RC" -eq 0 ]
    rm -f "$D"/pfsbench.*
done

# --total divides by streams.
run_mpi 2 60 -d "$D" --threads 4 --total 8m -t 256k --no-results -p write
check "--total divides by streams: 1 MiB per stream" grep -q "block 1 MiB per stream, total 8 MiB" "$T/out"
run_refused 2 60 -d "$D" --threads 3 --total 8m -t 256k --no-results -p write
check "--total not divisible by 6 streams: exit 2" [ "$RC" -eq 2 ]
check "... and says streams" grep -q "does not divide by 6 streams" "$T/err"
run_mpi 2 60 -d "$D" --threads 2 -a mpiio --no-results
check "threads with MPI-IO: exit 2 with the reason" grep -q "MPI_THREAD_MULTIPLE" "$T/err"

# A stonewall with threads: the streams of a rank meet, the ranks agree, all wear out.
S=/dev/shm/pfstest.$$
mkdir -p "$S"
run_mpi 2 120 -d "$S" --threads 3 -t 1m -b 4g -D 0.2 -p write,read --verify -k --no-results
check "stonewall with threads: exit 0" [ "$RC" -eq 0 ]
id=$(run_id_of)
check "stonewall with threads: all 6 files have one size" [ "$(stat -c %s "$S"/pfsbench."$id".[0-9]* | sort -u | wc -l)" -eq 1 ]
rm -rf "$S"

# Other options with threads: fsync, O_DIRECT, random order, metadata phases.
run_mpi 2 60 -d "$D" --threads 3 -t 64k -b 512k -e --direct --random --verify -p write,rewrite,read,create,stat,read-files,delete \
    -n 30 --file-size 1k --dirs per-rank --order random -o "$T/mix.h5"
check "threads with fsync, direct, random, verify and metadata: exit 0" [ "$RC" -eq 0 ]
check "... metadata counted per stream: 6 x 30 files" $PY -c '
import h5py, sys
f = h5py.File(sys.argv[1], "r")
s = f["summary"]
ops = {p.decode(): int(o) for p, o in zip(s["phase"], s["ops"])}
sys.exit(0 if all(ops[p] == 180 for p in ("create", "stat", "read-files", "delete")) else 1)' "$T/mix.h5"
check "... nothing left" [ -z "$(ls -A "$D")" ]

# A failure in one thread: a full tmpfs; the rank and the thread are named, nothing hangs.
run_in_tmpfs size=3m 2 --threads 4 -t 64k -b 1m --no-results
check "ENOSPC in a thread: exit 1" [ "$RC" -eq 1 ]
check "ENOSPC in a thread: rank and thread named" \
    grep -qE "pfsbench: error: rank [01] thread [0-3] on [^ ]+: write .*/pfsbench\.[^ ]+\.[0-7] at offset [0-9]+: No space left on device" "$T/err"
check "ENOSPC in a thread: the full file system is left empty" [ ! -s "$T/left" ]
finish
