#!/bin/bash
# Issue 20, bonnie++'s random seeks: the seeks phase reads one transfer at a
# uniformly drawn place of each stream's data, --seeks over all streams, and
# writes every 10th back in place (changed as --rmw changes it, unless
# --verify checks every read); its figure is seeks/s.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
run_id_of() { ls "$D" | sed -n 's/^pfsbench\.\(.*\)\.\(0\|shared\)$/\1/p' | head -1; }
R=$T/s.h5

# --- 2 ranks, 1001 seeks: 501 and 500, every read verified
run_mpi 2 60 -d "$D" -t 64k -b 4m -p write,seeks --seeks 1001 --verify -o "$R"
check "2 ranks: exit 0" [ "$RC" -eq 0 ]
check "2 ranks: the report gives the seeks/s and what a seek is" \
    grep -qE "^ +[0-9.]+ +seeks/s +\(1001 seeks of 65536 B, every 10th written back\)" "$T/out"
check "2 ranks: the bytes read are 1001 transfers" grep -qE "^seeks +1 .* $((1001 * 65536))$" "$T/out"
rate=$(sed -n 's/^ *\([0-9.]*\) *seeks\/s *(1001 seeks.*/\1/p' "$T/out")
check "2 ranks: the summary gives the seeks/s too, the row's for one repetition ($rate)" \
    grep -qE "^ +mean $rate seeks/s, median $rate seeks/s$" "$T/out"
check "2 ranks: nothing left" [ -z "$(ls -A "$D")" ]
pycheck "2 ranks: stream 0 did 501 seeks, stream 1 500; the rate is seeks / the phase's time" seeks seeks "$R"

# --- without --verify, every 10th seek changes one byte in 4 KiB of its
# transfer and writes it back: 4000 seeks over a file of 16 transfers write
# back 400, which hit every transfer (a miss has odds 16 x (15/16)^400, about
# 1e-10), so a verified read finds exactly 16 x 16 changed words
run_mpi 1 60 -d "$D" -t 64k -b 1m -p write --verify -k --no-results -q
id=$(run_id_of)
check "dirty: the file is written and kept" [ -n "$id" ] && [ -f "$D/pfsbench.$id.0" ]
run_mpi 1 60 -d "$D" -t 64k -b 1m -p seeks --seeks 4000 --run-id "$id" -k --no-results -q
check "dirty: seeks over the kept file: exit 0" [ "$RC" -eq 0 ]
check "dirty: the file keeps its size" [ "$(stat -c %s "$D/pfsbench.$id.0")" -eq 1048576 ]
run_mpi 1 60 -d "$D" -t 64k -b 1m -p read --verify --run-id "$id" -k --no-results -q
check "dirty: the verified read fails" [ "$RC" -eq 1 ]
check "dirty: 256 changed words, one per 4 KiB of every transfer" grep -q ": 256 mismatching 8-byte words" "$T/err"

# --- the exact calls, where strace is: 100 reads, 10 writes back
rm -f "$D"/pfsbench.*
if command -v strace >/dev/null; then
    run_mpi 1 60 -d "$D" -t 1m -b 8m -p write --verify -k --no-results -q
    id=$(run_id_of)
    RC=0
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 120 strace -f -qq -e trace=pread64,pwrite64 \
        -o "$T/st" "$PFSBENCH" -d "$D" -t 1m -b 8m -p seeks --seeks 100 --run-id "$id" --verify -k --no-results -q \
        >"$T/out" 2>"$T/err" || RC=$?
    check "strace: exit 0" [ "$RC" -eq 0 ]
    check "strace: 100 reads of 1 MiB" [ "$(grep -cE 'pread64\(.*, 1048576, [0-9]+\) += 1048576' "$T/st")" -eq 100 ]
    check "strace: 10 writes back, each at a place just read" sh -c '
        n=0; for off in $(grep -oE "pwrite64\(.*, 1048576, [0-9]+\)" "$1" | grep -oE "[0-9]+\)$" | tr -d ")"); do
            grep -qE "pread64\(.*, 1048576, $off\)" "$1" || exit 1; n=$((n + 1)); done; [ $n -eq 10 ]' sh "$T/st"
    check "strace: every place is a transfer of the 8 MiB file" \
        sh -c '! grep -oE "p(read|write)64\(.*, 1048576, [0-9]+\)" "$1" | grep -oE "[0-9]+\)$" | tr -d ")" |
               awk "\$1 % 1048576 || \$1 >= 8388608 { bad = 1 } END { exit !bad }"' sh "$T/st"
else
    echo "# strace not found: the call counts are not checked here"
fi
rm -f "$D"/pfsbench.*

# --- a short file: the seek's read is named at its offset, nothing extended
run_mpi 1 60 -d "$D" -t 64k -b 1m -p write -k --no-results -q
id=$(run_id_of)
truncate -s 100000 "$D/pfsbench.$id.0"
run_mpi 1 60 -d "$D" -t 64k -b 1m -p seeks --seeks 200 --run-id "$id" -k --no-results -q
check "short file: exit 1" [ "$RC" -eq 1 ]
check "short file: the short read of a seek named with path and offset" \
    grep -qE "rank 0 on .*: read \(seeks\) $D/pfsbench.$id.0 at offset [0-9]+: short read" "$T/err"
check "short file: not extended" [ "$(stat -c %s "$D/pfsbench.$id.0")" -eq 100000 ]
rm -f "$D"/pfsbench.*

# --- bonnie++'s shape: 3 seekers in one shared file; every engine that can.
# One job file per rank count: 3 threads of one rank, and 3 ranks for
# MPI-IO and HDF5 (not thread-safe here: one stream per rank); each engine
# a section, a run of its own.
seek_job() {  # seek_job API...: the job file
    local api
    printf '[global]\ndir = %s\nshared\ntransfer = 64k\nblock = 1m\nphases = write,seeks\nseeks = 300\n' "$D"
    for api in "$@"; do
        printf '[%s]\napi = %s\n' "$api" "$api"
        # null reads bring back nothing to check (refused)
        [ "$api" = null ] || printf 'verify\n'
    done
}
seek_job posix mmap stdio uring null >"$T/seeks1.job"
run_job 1 300 "$T/seeks1.job" --threads 3 -q
check "3 threads in one rank: the job exits 0 (got $RC)" [ "$RC" -eq 0 ]
cp "$T/runs" "$T/runs1"
seek_job mpiio hdf5 >"$T/seeks3.job"
run_job 3 300 "$T/seeks3.job" -q
check "3 ranks: the job exits 0 (got $RC)" [ "$RC" -eq 0 ]
cat "$T/runs1" >>"$T/runs"
for api in posix mmap stdio uring mpiio hdf5 null; do
    v=--verify
    [ "$api" = null ] && v=
    run_of "$api"
    check "--api $api, 3 seekers in the shared file${v:+, verified}: complete (${RUN[1]:-no run})" [ "${RUN[1]:-}" = complete ]
    check "--api $api: nothing left" [ -z "$(ls -A "$D" | grep -F "pfsbench.${RUN[2]:-none}.")" ]
done
check "every engine: nothing left" [ -z "$(ls -A "$D")" ]

# --- -D stops seeks without a wear-out: never more than --seeks (shares of 2 and 1, the wall far off)
run_mpi 2 60 -d "$D" -t 4k -b 1m -p write,seeks --seeks 3 -D 30 --no-results
check "-D 30, --seeks 3 on 2 ranks: exit 0, exactly 3 seeks" \
    sh -c "[ $RC -eq 0 ] && grep -qE '\(3 seeks of 4096 B, every 10th written back\)' '$T/out'"

# --- refusals and warnings
run_mpi 3 60 -d "$D" -t 4k -b 64k -p write,seeks --seeks 1 --no-results -q
check "--seeks below the streams: warned" grep -q "seeks 1 over 3 streams: 2 of them do no seek" "$T/err"
run_mpi 1 60 -d "$D" -t 4k -b 64k -p write,seeks --seeks 10 --runtime 0.2 --no-results -q
check "--seeks with --runtime: warned" grep -q "seeks does nothing with --runtime" "$T/err"
mkdir -p "$T/ref1" "$T/ref2"
par ref1 run_mpi 1 120 -d "$T/ref1" -p seeks --no-results
par ref2 run_refused 2 120 -d "$T/ref2" -a mpiio --collective -p write,seeks --no-results
par_wait ref1
check "seeks without a write or --run-id: exit 2" [ "$RC" -eq 2 ]
check "... says so" grep -q "seeks before any write overwrites files of an earlier run" "$T/err"
par_wait ref2
check "seeks with --collective: exit 2" [ "$RC" -eq 2 ]
check "... names both" grep -q "the seeks phase and --collective both given" "$T/err"
check "refusals: nothing made" [ -z "$(ls -A "$D")$(ls -A "$T/ref1")$(ls -A "$T/ref2")" ]
run_mpi 1 60 -d "$D" -t 64k -b 1m -p write,read --seeks 10 --no-results -q
check "--seeks without a seeks phase: warned" grep -q "seeks does nothing without a seeks phase" "$T/err"
run_mpi 1 60 -d "$D" -a null -p write,seeks --verify --no-results -q
check "--api null --verify with a read: exit 2, named" sh -c "[ $RC -eq 2 ] && grep -q 'verify with --api null' '$T/err'"
finish
