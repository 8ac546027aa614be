#!/bin/bash
# Issue 20: transfers that are not a multiple of 4 KiB (IO500's ior-hard
# 47,008 bytes) work in every engine and layout: file per process, one
# shared file in segments and strided, sequential and --random, collective
# MPI-IO and HDF5, io_uring with several in flight. Every byte is verified
# on the read, the files hold exactly the bytes written, and one corrupted
# byte at an offset inside a transfer (not at a 4 KiB boundary) is named.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
X=47008
N=8
run_id_of() { sed -n 's/^pfsbench .*  run \([^ ]*\) .*/\1/p' "$T/out" | head -1; }
ondisk() { stat -c %s "$D"/pfsbench."$1".[0-9s]* | awk '{ s += $1 } END { print s + 0 }'; }

# Every engine x layout x order: the cases are the sections of one job file
# (one MPI job), each a run of its own in the results file, its files kept
# under its run id.
{
    printf '[global]\ndir = %s\ntransfer = %s\nblock = %s\nphases = write,read\nverify\nkeep\n' "$D" $X $((X * N))
    for api in posix mpiio uring mmap hdf5 stdio; do
        for lay in fpp shared strided; do
            for order in seq random; do
                printf '[%s-%s-%s]\napi = %s\n' $api $lay $order $api
                [ "$api" = uring ] && printf 'iodepth = 4\n'
                [ "$lay" != fpp ] && printf 'shared\n'
                [ "$lay" = strided ] && printf 'layout = strided\n'
                [ "$order" = random ] && printf 'random\n'
            done
        done
    done
} >"$T/odd.job"
run_job 2 600 "$T/odd.job" -q
check "every engine, layout and order: the job exits 0 (got $RC)" [ "$RC" -eq 0 ]
for api in posix mpiio uring mmap hdf5 stdio; do
    for lay in fpp shared strided; do
        for order in seq random; do
            what="$api $lay $order"
            run_of "$api-$lay-$order"
            check "$what: run complete (${RUN[1]:-no run})" [ "${RUN[1]:-}" = complete ]
            id=${RUN[2]:-none}
            if [ "$api" != hdf5 ]; then
                check "$what: the files hold the $((2 * X * N)) bytes written" [ "$(ondisk "$id")" -eq $((2 * X * N)) ]
            fi
            check "$what: write and read each moved $((2 * X * N)) bytes" \
                [ "${RUN[*]:3}" = "write=$((2 * X * N)) read=$((2 * X * N))" ]
        done
    done
done
rm -f "$D"/pfsbench.*

# Collective MPI-IO and HDF5 with the odd size, strided in one shared file.
for api in mpiio hdf5; do
    run_mpi 2 120 -d "$D" -a $api --collective -t $X -b $((X * N)) --shared --layout strided -p write,read --verify --no-results -q
    check "$api --collective strided: exit 0 (got $RC)" [ "$RC" -eq 0 ]
    check "$api --collective strided: nothing left" [ -z "$(ls -A "$D")" ]
done

# A byte inside rank 1's third transfer of the strided shared file: rank 1's
# transfer k lies at (2k + 1) x 47008, so byte 5 of k = 2 is at 5 x 47008 + 5.
run_mpi 2 120 -d "$D" -t $X -b $((X * N)) --shared --layout strided -p write --verify -k --no-results -q
id=$(run_id_of)
[ -n "$id" ] || id=$(ls "$D" | sed -n 's/^pfsbench\.\(.*\)\.shared$/\1/p')
off=$((5 * X + 5))
corrupt_byte "$D/pfsbench.$id.shared" $off
run_mpi 2 120 -d "$D" -t $X -b $((X * N)) --shared --layout strided -p read --verify --run-id "$id" --no-results -q
check "corrupted strided: exit 1" [ "$RC" -eq 1 ]
check "corrupted strided: rank 1 names the file and the byte's offset" \
    grep -q "rank 1 on .*: verify $D/pfsbench.$id.shared at offset $off: 1 mismatching 8-byte words in data written by rank 1" "$T/err"
rm -f "$D"/pfsbench.*
finish
