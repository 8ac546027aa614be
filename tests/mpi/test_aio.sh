#!/bin/bash
# --api aio (Linux native AIO through libaio) with --iodepth: the bytes on
# disk are the bytes reported, buffered and O_DIRECT, in every mode, order
# and depth; verification finds a corrupted byte and names its offset; the
# stonewall's wear-out leaves equal files; --direct's alignment refused
# before anything is made, and O_DIRECT refused where the file system has
# none; threads; a full file system named with its errno; --rmw above depth
# 1 refused; the latency histograms and time series count every transfer;
# the report and the results file say api aio and the depth.
# A pfsbench built without libaio (-DPFS_WITH_AIO=OFF) is checked for its
# refusal alone; so is a kernel without native AIO.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
run_id_of() { sed -n 's/.*read them again with --run-id \([A-Za-z0-9_-]*\)).*/\1/p' "$T/out"; }
# bytes_of PHASE: the bytes column of PHASE's summary row
bytes_of() { awk -v p="$1" '$1 == p && $2 ~ /^[0-9]+$/ && NF == 10 {print $10}' "$T/out"; }
# ondisk ID: the bytes in the run's data files
ondisk() { cat "$D"/pfsbench."$1".[0-9s]* 2>/dev/null | wc -c; }

# --- built without libaio: --api aio refused by name, exit 2, nothing made
if "$PFSBENCH" --help | grep -q "^  aio  *not built: "; then
    run_refused 2 60 -d "$D" -a aio --iodepth 4 --no-results
    check "not built: exit 2" [ "$RC" -eq 2 ]
    check "not built: says so, naming libaio-dev" \
        grep -q -- "error: --api aio: this pfsbench was built without it (libaio-dev at build time)" "$T/err"
    check "not built: nothing created" [ -z "$(ls -A "$D")" ]
    echo "# --api aio is not built here: only its refusal was checked"
    finish
    exit
fi

# --- native AIO usable here? Anything else than the backend's own refusal is a failure.
run_mpi 1 60 -d "$D" -a aio -t 4k -b 64k --no-results -q
if [ "$RC" -eq 2 ] && grep -q -- "--api aio: .*\(io_setup\|native AIO\)" "$T/err"; then
    check "no native AIO: nothing created" [ -z "$(ls -A "$D")" ]
    echo "# native AIO is not usable here, only its refusal was checked: $(grep -o -- '--api aio: .*' "$T/err" | head -1)"
    finish
    exit
fi
check "probe: a small aio run works" [ "$RC" -eq 0 ]

# --- bytes on disk = bytes reported, buffered: ranks x mode x order x depth, read back verified
for np in 1 2 4; do
    for mode in "" --shared; do
        for order in "" --random; do
            for qd in 1 32; do
                what="buffered np=$np ${mode:-fpp} ${order:-seq} iodepth=$qd"
                # shellcheck disable=SC2086
                run_mpi "$np" 60 -d "$D" -a aio --iodepth "$qd" -t 16k -b 512k $mode $order \
                    -p write,read --verify -k --no-results
                want=$((np * 512 * 1024))
                got=$(ondisk "$(run_id_of)")
                check "$what: exit 0 with --verify" [ "$RC" -eq 0 ]
                check "$what: write reported $want bytes" [ "$(bytes_of write)" = "$want" ]
                check "$what: $want bytes on disk ($got)" [ "$got" = "$want" ]
                check "$what: read reported $want bytes" [ "$(bytes_of read)" = "$want" ]
                rm -f "$D"/pfsbench.*
            done
        done
    done
done

# --- the same with O_DIRECT (here on $(stat -f -c %T "$D")): file per process and both shared layouts
for np in 1 2; do
    for mode in "" --shared "--shared --layout strided"; do
        for qd in 1 8 32; do
            [ "$np" = 1 ] && [ -n "$mode" ] && continue
            what="direct np=$np ${mode:-fpp} random iodepth=$qd"
            # shellcheck disable=SC2086
            run_mpi "$np" 60 -d "$D" -a aio --direct --iodepth "$qd" -t 64k -b 1m $mode --random \
                -p write,read --verify -k --no-results
            want=$((np * 1024 * 1024))
            got=$(ondisk "$(run_id_of)")
            check "$what: exit 0 with --verify" [ "$RC" -eq 0 ]
            check "$what: the header says O_DIRECT and the depth" grep -q "api aio, iodepth $qd, O_DIRECT" "$T/out"
            check "$what: $want bytes on disk ($got) and reported" \
                [ "$got $(bytes_of write) $(bytes_of read)" = "$want $want $want" ]
            rm -f "$D"/pfsbench.*
        done
    done
done

# --- verification: written with aio, one byte corrupted, read with aio (buffered, then O_DIRECT): exit 1, named
run_mpi 2 60 -d "$D" -a aio --iodepth 8 -t 64k -b 1m -p write -k --verify --no-results
check "verify: the write exits 0" [ "$RC" -eq 0 ]
id=$(run_id_of)
run_mpi 2 60 -d "$D" -a aio --iodepth 8 -t 64k -b 1m -p read --verify --run-id "$id" --no-results -q
check "verify: the clean file reads back with exit 0" [ "$RC" -eq 0 ]
corrupt_byte "$D/pfsbench.$id.1" 300001
for direct in "" --direct; do
    # shellcheck disable=SC2086
    run_mpi 2 60 -d "$D" -a aio --iodepth 8 $direct -t 64k -b 1m -p read --verify --run-id "$id" --no-results -q
    check "verify${direct:+ $direct}: one corrupted byte fails the read with exit 1" [ "$RC" -eq 1 ]
    check "verify${direct:+ $direct}: the path, the offset and the writer are named" \
        grep -q "rank 1 on .*: verify $D/pfsbench.$id.1 at offset 300001: 1 mismatching 8-byte words in data written by rank 1, read by rank 1" "$T/err"
done
rm -f "$D"/pfsbench.*

# --- stonewall with wear-out: equal files of whole transfers
S=/dev/shm/pfstest.aio.$$
mkdir -p "$S"
run_mpi 2 120 -d "$S" -a aio --iodepth 16 -t 1m -b 8g -D 0.2 -p write,read --verify -k --no-results
check "stonewall: exit 0" [ "$RC" -eq 0 ]
id=$(run_id_of)
sizes=$(stat -c %s "$S"/pfsbench."$id".[0-9]* | sort -u)
check "stonewall: both files have one size ($sizes)" [ "$(echo "$sizes" | wc -l)" -eq 1 ]
check "stonewall: cut short" [ "$sizes" -lt $((8 << 30)) ]
check "stonewall: in whole transfers" [ $((sizes % 1048576)) -eq 0 ]
check "stonewall: the bandwidth up to the stonewall is reported" grep -q "(up to the stonewall)" "$T/out"
run_mpi 2 120 -d "$S" -a aio --iodepth 16 -t 1m -b "$sizes" -p read --verify --run-id "$id" --no-results -q
check "stonewall: a verified read of every byte written passes" [ "$RC" -eq 0 ]
rm -rf "$S"

# --- --direct's alignment: refused before anything is made
run_refused 2 60 -d "$D" -a aio --iodepth 4 --direct -t 1000 -b 8000 --no-results
check "direct, -t 1000: exit 2" [ "$RC" -eq 2 ]
check "direct, -t 1000: the alignment named" grep -q -- "--direct needs transfer and block to be multiples of [0-9]* bytes on $D" "$T/err"
check "direct, -t 1000: nothing created" [ -z "$(ls -A "$D")" ]
run_mpi 1 60 -d "$D" -a aio --direct -t 6k -b 12k --no-results
check "direct, -t 6k: exit 2" [ "$RC" -eq 2 ]
check "direct, -t 6k: the alignment named" grep -q -- "--direct needs transfer and block to be multiples of" "$T/err"
check "direct, -t 6k: nothing created" [ -z "$(ls -A "$D")" ]

# --- O_DIRECT where the file system has none (ramfs): the open fails, named, nothing left behind
mkdir -p "$T/ramfs"
RC=0
timeout 120 unshare --mount --propagation private sh -c \
    'mount -t ramfs pfstest "$1" || exit 99; d=$1; left=$2; bin=$3; shift 3
     mpirun -np 2 --oversubscribe --bind-to none "$bin" -d "$d" "$@"; rc=$?
     ls -A "$d" >"$left"; exit $rc' \
    sh "$T/ramfs" "$T/left" "$PFSBENCH" -a aio --iodepth 4 --direct -t 64k -b 1m --no-results \
    >"$T/out" 2>"$T/err" || RC=$?
if [ "$RC" -eq 99 ]; then
    echo "# no ramfs mount here (not root?): the refusal of O_DIRECT is not checked"
else
    check "direct on ramfs: exit 1" [ "$RC" -eq 1 ]
    check "direct on ramfs: the rank, the path and O_DIRECT named" \
        grep -qE "pfsbench: error: rank [01] on [^ ]+: open for writing .*/pfsbench\.[^ ]+\.[01]: this file system does not support O_DIRECT" "$T/err"
    check "direct on ramfs: no file left behind" [ ! -s "$T/left" ]
fi

# --- threads: one AIO context per open file, never shared
run_mpi 2 60 -d "$D" -a aio --iodepth 8 --threads 2 -t 16k -b 512k --random -p write,read --verify --no-results
check "threads 2: exit 0" [ "$RC" -eq 0 ]
check "threads 2: 4 streams, all bytes written and read" [ "$(bytes_of write) $(bytes_of read)" = "2097152 2097152" ]

# --- ENOSPC on a 4 MiB tmpfs: exit 1 naming rank, path, offset and errno, nothing left behind
run_in_tmpfs size=4m 4 -a aio --iodepth 8 -t 48k -b 1536k --no-results
check "ENOSPC: exit 1, no hang" [ "$RC" -eq 1 ]
check "ENOSPC: rank, path, offset and errno named" \
    grep -qE "pfsbench: error: rank [0-3] on [^ ]+: write .*/pfsbench\.[^ ]+\.[0-3] at offset [0-9]+: No space left on device \(errno 28\)" "$T/err"
check "ENOSPC: every file of the run removed" [ ! -s "$T/left" ]

# --- what a depth cannot mean: --rmw above 1 refused; at depth 1 it works; --iodepth with posix names both
run_mpi 1 60 -d "$D" -a aio --iodepth 4 -p write,rewrite --rmw --no-results
check "rmw at depth 4: exit 2" [ "$RC" -eq 2 ]
check "rmw at depth 4: says why" grep -q -- "--rmw with --iodepth above 1 is not available with --api aio" "$T/err"
check "rmw at depth 4: nothing created" [ -z "$(ls -A "$D")" ]
run_mpi 1 60 -d "$D" -a aio -t 64k -b 1m -p write,rewrite,read --rmw --verify --no-results
check "rmw at depth 1: exit 0, verified" [ "$RC" -eq 0 ]
run_refused 2 60 -d "$D" -a posix --iodepth 4 --no-results
check "iodepth with posix: exit 2" [ "$RC" -eq 2 ]
check "iodepth with posix: names uring and aio" \
    grep -q -- "--iodepth above 1 needs --api uring (not available with --api posix); --api aio has it too" "$T/err"
check "iodepth with posix: nothing created" [ -z "$(ls -A "$D")" ]

# --- --sync dsync: each write through O_DSYNC
run_mpi 2 60 -d "$D" -a aio --iodepth 8 --sync dsync -t 64k -b 1m -p write,read --verify --no-results
check "sync dsync: exit 0" [ "$RC" -eq 0 ]
check "sync dsync: the header says O_DSYNC" grep -q "api aio, iodepth 8, O_DSYNC" "$T/out"

# --- the report, the results file, the latency histograms and the time series
run_mpi 2 60 -d "$D" -a aio --iodepth 32 -t 16k -b 2m --random -p write,read -o "$T/r.h5"
check "results: exit 0" [ "$RC" -eq 0 ]
check "report: api aio, iodepth 32" grep -q "^access .*api aio, iodepth 32," "$T/out"
check "report: a latency row per phase" sh -c "grep -qE '^write +write +256 ' '$T/out' && grep -qE '^read +read +256 ' '$T/out'"
check "results: api aio, iodepth 32, every transfer in the histograms and the time series" \
    "$PY" "$(dirname "$0")/aio_results.py" "$T/r.h5" 32

# --- each transfer goes to the kernel as it is given (fio's default): a
# queue refilled only at the next reap ran 10-20% below fio's at depth 32.
# 100 writes at depth 8: 100 calls that submit one each.
submitted_as_given aio io_submit

finish
