#!/bin/bash
# --rmw (bonnie++'s Rewrite: read a chunk, dirty it, seek back, write it),
# seen from the system calls and the data:
#   - each rank under strace: with --rmw every transfer of the rewrite is a
#     pread64 and then a pwrite64 of the same length at the same offset, on
#     a file opened O_RDWR; without it the rewrite only writes;
#   - the rewrite's bytes are the bytes written (one transfer's worth each);
#   - --verify with --rmw: the read checks the write's pattern and writes it
#     back, so the read phase after it checks too; one byte corrupted in a
#     kept file is found by a later run's verified --rmw rewrite;
#   - without --verify one byte in every 4 KiB changed (the file differs
#     from the pattern there and nowhere else);
#   - mmap and uring at --iodepth 1 do it too; uring --iodepth 4 is refused
#     (exit 2, one message from rank 0, nothing made).
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
if ! command -v strace >/dev/null; then
    echo "SKIP: strace is not installed (apt-get install strace); the pread/pwrite order needs it"
    exit 77
fi
run_id_of() { sed -n 's/.*read them again with --run-id \([A-Za-z0-9_-]*\)).*/\1/p' "$T/out"; }

# traced NP ARGS...: pfsbench on NP ranks, each under strace -f -y into $T/st.RANK.
traced() {
    local np=$1
    shift
    rm -f "$T"/st.*
    RC=0
    timeout 120 mpirun -np "$np" --oversubscribe --bind-to none sh -c \
        'o=$1 b=$2; shift 2; ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" exec strace -f -qq -y -e trace=openat,pread64,pwrite64 -o "$o.$OMPI_COMM_WORLD_RANK" "$b" "$@"' \
        sh "$T/st" "$PFSBENCH" -d "$D" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
# The data-file calls of rank R from the rewrite's O_RDWR open on: "pread64 OFF LEN" / "pwrite64 OFF LEN".
rewrite_calls() {
    awk -v d="$D/pfsbench" '
        index($0, "openat(") && index($0, d) && !index($0, ".lock") { on = index($0, "O_RDWR") > 0; next }
        on' "$T/st.$1" |
        sed -nE "s#^[0-9]+ +(pread64|pwrite64)\([0-9]+<$D/pfsbench\.[^.>]+\.[0-9]+>.*, ([0-9]+), ([0-9]+)\) = [0-9]+\$#\1 \3 \2#p"
}
# pairs_ok R N: rank R's rewrite is N (pread OFF LEN, pwrite OFF LEN) pairs, each at one offset.
pairs_ok() {
    rewrite_calls "$1" | awk -v n="$2" '
        NR % 2 == 1 { if ($1 != "pread64") bad = 1; off = $2; len = $3 }
        NR % 2 == 0 { if ($1 != "pwrite64" || $2 != off || $3 != len) bad = 1; else pairs++; seen[off] = 1 }
        END { for (o in seen) k++; exit !(bad == 0 && NR == 2 * n && pairs == n && k == n) }'
}
# data_calls R CALL: how many CALLs rank R made on a data file (not the lock).
data_calls() { grep -cE "^[0-9]+ +$2\([0-9]+<$D/pfsbench\.[^.>]+\.[0-9]+>" "$T/st.$1"; }

# --- the order of the calls, per rank
traced 2 -t 64k -b 1m -p write,rewrite,read --rmw --no-results
check "rmw: the run passes" [ "$RC" -eq 0 ]
check "rmw: rank 0's rewrite is 16 preads each followed by a pwrite at its offset" pairs_ok 0 16
check "rmw: rank 1's too" pairs_ok 1 16
check "rmw: the rewrite opens its file read-write" grep -q "openat([0-9]*<$D>, \"pfsbench\.[^\"]*\", O_RDWR" "$T/st.0"
check "rmw: the rewrite's bytes are those written (1 MiB per rank)" \
    grep -qE "^rewrite +1 +[0-9.]+ +n/a +[0-9.]+ +[0-9.]+ +[0-9.]+ +n/a +[0-9.]+ +2097152$" "$T/out"

traced 2 -t 64k -b 1m -p write,rewrite --no-results
check "no rmw: the run passes" [ "$RC" -eq 0 ]
check "no rmw: the rewrite reads nothing" [ "$(data_calls 0 pread64)" -eq 0 ]
check "no rmw: it writes 16 transfers per phase" [ "$(data_calls 0 pwrite64)" -eq 32 ]

# --- --verify: the pattern survives, a corrupted byte is found
run_mpi 2 60 -d "$D" -t 64k -b 1m -p write,rewrite,read --rmw --verify --no-results
check "rmw --verify: write, rewrite, read all pass" [ "$RC" -eq 0 ]
run_mpi 2 60 -d "$D" -t 64k -b 1m -p write --verify -k --no-results
id=$(run_id_of)
check "rmw --verify: kept files of a verified write" [ -n "$id" ] && [ "$RC" -eq 0 ]
corrupt_byte "$D/pfsbench.$id.1" 200003
run_mpi 2 60 -d "$D" -t 64k -b 1m -p rewrite --rmw --verify --run-id "$id" -k --no-results
check "rmw --verify: a corrupted byte fails the rewrite with exit 1" [ "$RC" -eq 1 ]
check "rmw --verify: its offset and writer are named" \
    grep -q "verify $D/pfsbench.$id.1 at offset 200003: 1 mismatching 8-byte words in data written by rank 1" "$T/err"
rm -f "$D"/pfsbench.*

# --- without --verify: one byte in every 4 KiB changed
run_mpi 1 60 -d "$D" -t 64k -b 256k -p write --verify -k --no-results
id=$(run_id_of)
cp "$D/pfsbench.$id.0" "$T/before"
run_mpi 1 60 -d "$D" -t 64k -b 256k -p rewrite --rmw --run-id "$id" -k --no-results
check "rmw: a rewrite of kept files passes" [ "$RC" -eq 0 ]
check "rmw: exactly one byte in every 4 KiB changed, at its start" \
    [ "$(cmp -l "$T/before" "$D/pfsbench.$id.0" | awk '($1 - 1) % 4096 == 0 { n++ } END { print n, NR }')" = "64 64" ]
rm -f "$D"/pfsbench.*

# --- collective: a short read would skip a collective write and hang the others
run_refused 2 60 -d "$D" -a mpiio --shared --collective -t 64k -b 256k -p write,rewrite --rmw --no-results
check "rmw: with --collective refused with exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "rmw: with --collective, one message" [ "$(grep -c -- "--rmw and --collective both given" "$T/err")" -eq 1 ]
check "rmw: with --collective, nothing made" [ -z "$(ls -A "$D")" ]

# --- other backends
run_mpi 2 60 -d "$D" --api mmap -t 64k -b 1m -p write,rewrite,read --rmw --verify --no-results
check "rmw: --api mmap with --verify passes" [ "$RC" -eq 0 ]
run_mpi 1 60 -d "$D" -a uring -t 4k -b 64k --no-results -q
if ! { [ "$RC" -eq 2 ] && grep -q -- "--api uring: .*io_uring" "$T/err"; }; then
    run_mpi 1 60 -d "$D" --api uring -t 64k -b 256k -p write,rewrite,read --rmw --verify --no-results
    check "rmw: --api uring --iodepth 1 (its read and write in turn) with --verify passes" [ "$RC" -eq 0 ]
    run_refused 2 60 -d "$D" --api uring --iodepth 4 -t 64k -b 1m -p write,rewrite --rmw --no-results
    check "rmw: uring --iodepth 4 is refused with exit 2" [ "$RC" -eq 2 ]
    check "rmw: one message, naming the way out" \
        [ "$(grep -c -- "--rmw with --iodepth above 1 is not available with --api uring.*use --iodepth 1" "$T/err")" -eq 1 ]
    check "rmw: the refusal made nothing" [ -z "$(ls -A "$D")" ]
else
    echo "# io_uring unavailable here: its --rmw checks skipped"
fi
run_mpi 2 60 -d "$D" --api stdio -t 64k -b 1m -p write,rewrite,read --rmw --verify --no-results
check "rmw: --api stdio with --verify passes" [ "$RC" -eq 0 ]
check "rmw: nothing left behind" [ -z "$(ls -A "$D")" ]
finish
