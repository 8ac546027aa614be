#!/bin/bash
# --fsync-every N and --sync none|dsync|sync, seen from the system calls:
#   - each rank runs under strace (-y names the file of each fd), so the
#     fsyncs on each data file are counted: with -t 64k -b 1m (16 transfers)
#     --fsync-every 4 is exactly 4 per stream per write phase, 5 with -e, 3
#     (+1 with -e) with --fsync-every 5 (the last partial group gets none of
#     its own), none in a read phase; the same with --api uring at --iodepth
#     4 (drained before each fsync), msync with --api mmap, MPI-IO on a
#     file per process and on the shared file with --collective;
#   - every fsync is timed as an operation of its own: the phase's fsync
#     histogram counts them (report and results file), and with the stall
#     shim making each fsync 20 ms longer their latency holds the delay, the
#     transfers' does not, and the phase's time includes them;
#   - --sync dsync / sync open the data files for writing with O_DSYNC /
#     O_SYNC (strace -e openat), reading opens without;
#   - the backends that cannot are refused with exit 2, one message from
#     rank 0 naming the way out, nothing made;
#   - the results file's fsync_every and sync attributes.
. "$(dirname "$0")/lib.sh"
: "${PFS_STALL_LIB:?set PFS_STALL_LIB to the stall shim (ctest does)}"
D=$T/data
R=$T/results.h5
mkdir -p "$D"
SHM=$(mktemp -d /dev/shm/pfstest.sync.XXXXXX)
trap 'rm -rf "$T" "$SHM"' EXIT
if ! command -v strace >/dev/null; then
    echo "SKIP: strace is not installed (apt-get install strace); the fsync and open counts need it"
    exit 77
fi

# traced NP CALLS ARGS...: pfsbench on NP ranks, each under strace -f -y -e trace=CALLS into $T/st.RANK.
traced() {
    local np=$1 calls=$2
    shift 2
    rm -f "$T"/st.*
    RC=0
    timeout 120 mpirun -np "$np" --oversubscribe --bind-to none sh -c \
        'c=$1 o=$2 b=$3; shift 3; ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" exec strace -f -qq -y -e trace="$c" -o "$o.$OMPI_COMM_WORLD_RANK" "$b" "$@"' \
        sh "$calls" "$T/st" "$PFSBENCH" -d "$D" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
# calls RANK CALL: how many CALLs rank RANK made on a data file of this run (pfsbench.ID.N, not the lock).
calls() { grep -cE "^[0-9]+ +$2\([0-9]+<$D/pfsbench\.[^.>]+\.[0-9]+>" "$T/st.$1"; }
# opens RANK: the flags of rank RANK's opens of its data files (relative to the descriptor of DIR), one line each.
opens() { grep -E "openat\([0-9]+<$D>, \"pfsbench\.[^.\"]+\.[0-9]+\"" "$T/st.$1" | sed 's/.*", \([A-Z_|]*\).*/\1/'; }
# lat_count PHASE KIND: the count column of the report's latency row of repetition 0 (-v).
lat_count() { awk -v p="$1" -v k="$2" '$1 == p && $3 == k && NF == 12 {print $4}' "$T/out"; }
# each_rank NP CALL N: every one of NP ranks made N CALLs on its data files.
each_rank() {
    local np=$1 call=$2 want=$3 r
    for ((r = 0; r < np; r++)); do
        [ "$(calls $r "$call")" = "$want" ] || return 1
    done
}
# msyncs RANK: rank RANK's msync calls (they name an address, not a file).
msyncs() { grep -c '^[0-9]* *msync(' "$T/st.$1"; }

# --- posix, 2 ranks: 4 per write phase, none in read; -e adds its one at close
traced 2 fsync,fdatasync -t 64k -b 1m -p write,rewrite,read --fsync-every 4 --no-results -v
check "posix --fsync-every 4: exit 0" [ "$RC" -eq 0 ]
check "posix --fsync-every 4: 8 fsyncs per rank over write and rewrite (16 transfers each)" each_rank 2 fsync 8
check "posix --fsync-every 4: no fdatasync" each_rank 2 fdatasync 0
check "posix --fsync-every 4: the report's fsync row counts 2 ranks x 4 per write phase" \
    [ "$(lat_count write fsync)/$(lat_count rewrite fsync)/$(lat_count read fsync)" = "8/8/" ]
traced 2 fsync -t 64k -b 1m -p write,read --fsync-every 4 -e --no-results -v
check "posix --fsync-every 4 -e: 5 fsyncs per rank" each_rank 2 fsync 5
check "posix --fsync-every 4 -e: the report counts them all as fsync" [ "$(lat_count write fsync)" = 10 ]
traced 1 fsync -t 64k -b 1m -p write --fsync-every 5 --no-results
check "posix --fsync-every 5: 3 fsyncs (the last partial group gets none)" each_rank 1 fsync 3
traced 1 fsync -t 64k -b 1m -p write --fsync-every 5 -e --no-results
check "posix --fsync-every 5 -e: 3 + -e's 1" each_rank 1 fsync 4
traced 1 fsync -t 64k -b 1m -p write --fsync-every 16 --no-results
check "posix --fsync-every 16 (= every transfer of the block): 1" each_rank 1 fsync 1
traced 1 fsync -t 64k -b 1m -p write --no-results
check "posix without --fsync-every or -e: no fsync" each_rank 1 fsync 0
traced 2 fsync -t 64k -b 1m -p write --fsync-every 4 --threads 2 --no-results
check "posix --threads 2: exit 0" [ "$RC" -eq 0 ]
check "posix --threads 2: 8 fsyncs per rank (4 per stream, 2 streams)" each_rank 2 fsync 8

# --- uring at depth 4: the queue is drained before each fsync, and the bytes are right
traced 2 fsync -a uring --iodepth 4 -t 64k -b 1m -p write,read --fsync-every 4 -e --verify --no-results -v
if grep -q "io_uring" "$T/err" && [ "$RC" -eq 2 ]; then
    echo "skip - uring: io_uring is not available here"
else
    check "uring --iodepth 4 --fsync-every 4 -e --verify: exit 0" [ "$RC" -eq 0 ]
    check "uring: 5 fsyncs per rank" each_rank 2 fsync 5
    check "uring: the report counts 10" [ "$(lat_count write fsync)" = 10 ]
fi

# --- mmap: msync every 4 transfers; the files keep their size and verify
traced 2 msync,fsync -a mmap -t 64k -b 1m -p write,read --fsync-every 4 --verify -k --no-results
check "mmap --fsync-every 4 --verify: exit 0" [ "$RC" -eq 0 ]
check "mmap: 4 msyncs per rank, no fsync" [ "$(msyncs 0)/$(msyncs 1)/$(calls 0 fsync)" = "4/4/0" ]
check "mmap: every file is 1 MiB" [ "$(stat -c %s "$D"/pfsbench.*.[01] | sort -u)" = 1048576 ]
rm -f "$D"/pfsbench.*

# --- MPI-IO: a file per process syncs alone, the shared file with --collective
traced 2 fsync -a mpiio -t 64k -b 1m -p write --fsync-every 4 --no-results -v
check "mpiio file per process --fsync-every 4: exit 0" [ "$RC" -eq 0 ]
check "mpiio file per process: at least 4 fsyncs per rank (MPI_File_sync)" \
    [ "$(calls 0 fsync)" -ge 4 -a "$(calls 1 fsync)" -ge 4 ]
check "mpiio file per process: the report counts 2 x 4 MPI_File_sync" [ "$(lat_count write fsync)" = 8 ]
run_mpi 2 120 -d "$D" -a mpiio --shared --collective -t 64k -b 1m -p write,read --fsync-every 4 -e --verify --no-results -v
check "mpiio --shared --collective --fsync-every 4 -e: exit 0" [ "$RC" -eq 0 ]
check "mpiio --shared --collective: the report counts 2 x 5 MPI_File_sync" [ "$(lat_count write fsync)" = 10 ]

# --- timed as operations of their own: each fsync 50 ms longer (the stall
# shim). On a tmpfs: O_DSYNC and fsync cost nothing there, so the delay is
# all an fsync takes, and a transfer's latency is a copy, far below it
# however loaded the machine (on a disk shared with other tests an O_DSYNC
# write alone took tens of ms at times).
RC=0
env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB" \
    PFS_STALL_SECS=0.05 PFS_STALL_CALL=fsync PFS_STALL_COUNT=1000 \
    timeout 120 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none "$PFSBENCH" -d "$SHM" -t 64k -b 1m -p write,read \
    --fsync-every 4 --sync dsync -o "$R" -q >"$T/out" 2>"$T/err" || RC=$?
check "fsync 50 ms longer: exit 0" [ "$RC" -eq 0 ]
pycheck "fsync 50 ms longer: counted and timed as fsync, not as the transfers; inside the phase's time" sync fsync "$R"

# --- --sync: O_DSYNC / O_SYNC on the opens for writing only
traced 2 openat -t 64k -b 256k -p write,rewrite,read --sync dsync --no-results
check "--sync dsync: exit 0" [ "$RC" -eq 0 ]
check "--sync dsync: rank 0's write and rewrite opens carry O_DSYNC" \
    [ "$(opens 0 | grep -c 'O_WRONLY.*O_DSYNC')" -eq 2 ]
check "--sync dsync: rank 1's too" [ "$(opens 1 | grep -c 'O_WRONLY.*O_DSYNC')" -eq 2 ]
check "--sync dsync: no O_SYNC, and the read open has neither" \
    [ "$(opens 0 | grep -c 'O_SYNC')/$(opens 0 | grep 'O_RDONLY' | grep -c 'DSYNC')" = "0/0" ]
traced 1 openat -t 64k -b 256k -p write,read --sync sync --no-results
check "--sync sync: the write's open carries O_SYNC" [ "$(opens 0 | grep -c 'O_WRONLY.*|O_SYNC')" -eq 1 ]
traced 1 openat -t 64k -b 256k -p write --no-results
check "--sync none (default): no O_DSYNC or O_SYNC" [ "$(opens 0 | grep -c 'SYNC')" -eq 0 ]
traced 1 openat -a uring -t 64k -b 256k -p write --sync dsync --no-results
if [ "$RC" -eq 0 ]; then
    check "uring --sync dsync: O_DSYNC" [ "$(opens 0 | grep -c 'O_DSYNC')" -eq 1 ]
fi

# --- refusals: exit 2, one line from rank 0, nothing made
# refused WHAT PATTERN ARGS...: started side by side (par), each with a
# directory and a results path of its own; refusals_done checks them.
NREF=0
refused() {
    NREF=$((NREF + 1))
    REF_WHAT[NREF]=$1 REF_PAT[NREF]=$2
    shift 2
    mkdir -p "$T/ref.$NREF"
    par "ref$NREF" run_refused 2 120 -d "$T/ref.$NREF" -t 64k -b 256k -p write -o "$T/bad.$NREF.h5" "$@"
}
refusals_done() {
    local i what
    for ((i = 1; i <= NREF; i++)); do
        par_wait "ref$i"
        what=${REF_WHAT[i]}
        check "$what: exit 2" [ "$RC" -eq 2 ]
        check "$what: one message, from rank 0" [ "$(grep -c -- "${REF_PAT[i]}" "$T/err")" -eq 1 ]
        check "$what: nothing made" [ -z "$(ls -A "$T/ref.$i")" -a ! -e "$T/bad.$i.h5" ]
    done
}
refused "mmap --sync dsync" "error: --sync dsync is not available with --api mmap: .*--fsync-every" -a mmap --sync dsync
refused "mpiio --sync sync" "error: --sync sync needs --api .*posix.* (not available with --api mpiio)" \
    -a mpiio --sync sync
refused "mpiio --shared --fsync-every 2" \
    "error: --fsync-every on the --shared file with --api mpiio needs --collective" \
    -a mpiio --shared --fsync-every 2
if "$PFSBENCH" --help 2>/dev/null | grep -q hdf5; then
    refused "hdf5 --sync dsync" "error: --sync dsync needs --api .*(not available with --api hdf5)" -a hdf5 --sync dsync
    refused "hdf5 --shared --fsync-every 2" \
        "error: --fsync-every on the --shared file with --api hdf5 needs --collective" \
        -a hdf5 --shared --fsync-every 2
fi
refusals_done
finish
