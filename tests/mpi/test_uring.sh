#!/bin/bash
# --api uring (io_uring through liburing) with --iodepth: the bytes on disk
# are the bytes reported in every mode, order and depth; verification finds a
# corrupted byte; the stonewall's wear-out leaves equal files; O_DIRECT where
# the file system has it and a clean refusal where it has not; threads; a full
# file system named; --iodepth refused with a synchronous backend; the report
# and the results file say api uring and the depth.
# Skips (exit 77) only when this kernel has no usable io_uring.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
run_id_of() { sed -n 's/.*read them again with --run-id \([A-Za-z0-9_-]*\)).*/\1/p' "$T/out"; }
# bytes_of PHASE: the bytes column of PHASE's summary row
bytes_of() { awk -v p="$1" '$1 == p && $2 ~ /^[0-9]+$/ && NF == 10 {print $10}' "$T/out"; }

# --- io_uring usable here? Anything else than the backend's own refusal is a failure.
run_mpi 1 60 -d "$D" -a uring -t 4k -b 64k --no-results -q
if [ "$RC" -eq 2 ] && grep -q -- "--api uring: .*io_uring" "$T/err"; then
    echo "# skipped: $(grep -o -- '--api uring: .*' "$T/err" | head -1)"
    exit 77
fi
check "probe: a small uring run works" [ "$RC" -eq 0 ]

# --- bytes on disk = bytes reported: ranks x mode x order x depth, then a
# verified read. Per rank count the cases are the sections of one job file
# (one MPI job), each a run of its own, its files kept under its run id.
for np in 1 2 4; do
    {
        printf '[global]\ndir = %s\napi = uring\ntransfer = 16k\nblock = 512k\nphases = write,read\nverify\nkeep\n' "$D"
        for mode in fpp shared; do
            for order in seq random; do
                for qd in 1 8 32; do
                    printf '[%s-%s-%s]\niodepth = %s\n' $mode $order $qd $qd
                    [ "$mode" = shared ] && printf 'shared\n'
                    [ "$order" = random ] && printf 'random\n'
                done
            done
        done
    } >"$T/uring.job"
    run_job "$np" 300 "$T/uring.job" -q
    check "np=$np: the job of every mode, order and depth exits 0 (got $RC)" [ "$RC" -eq 0 ]
    for mode in fpp shared; do
        for order in seq random; do
            for qd in 1 8 32; do
                what="np=$np $mode $order iodepth=$qd"
                run_of "$mode-$order-$qd"
                id=${RUN[2]:-none}
                want=$((np * 512 * 1024))
                if [ "$mode" = shared ]; then
                    ondisk=$(stat -c %s "$D/pfsbench.$id.shared" 2>/dev/null)
                else
                    ondisk=$(cat "$D"/pfsbench."$id".[0-9s]* 2>/dev/null | wc -c)
                fi
                check "$what: run complete with --verify (${RUN[1]:-no run})" [ "${RUN[1]:-}" = complete ]
                check "$what: write reported $want bytes" [ "${RUN[3]:-}" = "write=$want" ]
                check "$what: $want bytes on disk ($ondisk)" [ "$ondisk" = "$want" ]
                check "$what: read reported $want bytes" [ "${RUN[4]:-}" = "read=$want" ]
            done
        done
    done
    rm -f "$D"/pfsbench.*
done

# --- verification: written with uring, one byte corrupted, read with uring: exit 1, named
run_mpi 2 60 -d "$D" -a uring --iodepth 8 -t 64k -b 1m -p write -k --verify --no-results
check "verify: the write exits 0" [ "$RC" -eq 0 ]
id=$(run_id_of)
run_mpi 2 60 -d "$D" -a uring --iodepth 8 -t 64k -b 1m -p read --verify --run-id "$id" --no-results -q
check "verify: the clean file reads back with exit 0" [ "$RC" -eq 0 ]
corrupt_byte "$D/pfsbench.$id.1" 300001
run_mpi 2 60 -d "$D" -a uring --iodepth 8 -t 64k -b 1m -p read --verify --run-id "$id" --no-results -q
check "verify: one corrupted byte fails the read with exit 1" [ "$RC" -eq 1 ]
check "verify: the path, the offset and the writer are named" \
    grep -q "rank 1 on .*: verify $D/pfsbench.$id.1 at offset 300001: 1 mismatching 8-byte words in data written by rank 1, read by rank 1" "$T/err"
rm -f "$D"/pfsbench.*

# --- stonewall with wear-out: equal files of whole transfers
S=/dev/shm/pfstest.uring.$$
mkdir -p "$S"
run_mpi 2 120 -d "$S" -a uring --iodepth 16 -t 1m -b 8g -D 0.2 -p write,read --verify -k --no-results
check "stonewall: exit 0" [ "$RC" -eq 0 ]
id=$(run_id_of)
sizes=$(stat -c %s "$S"/pfsbench."$id".[0-9]* | sort -u)
check "stonewall: both files have one size ($sizes)" [ "$(echo "$sizes" | wc -l)" -eq 1 ]
check "stonewall: cut short" [ "$sizes" -lt $((8 << 30)) ]
check "stonewall: in whole transfers" [ $((sizes % 1048576)) -eq 0 ]
check "stonewall: the bandwidth up to the stonewall is reported" grep -q "(up to the stonewall)" "$T/out"
run_mpi 2 120 -d "$S" -a uring --iodepth 16 -t 1m -b "$sizes" -p read --verify --run-id "$id" --no-results -q
check "stonewall: a verified read of every byte written passes" [ "$RC" -eq 0 ]
rm -rf "$S"

# --- O_DIRECT: on a file system that has it (ext4 here; not tmpfs), and refused where it has not (ramfs)
DD=""
for cand in "$T" /var/tmp; do
    fs=$(stat -f -c %T "$cand")
    if [ "$fs" != tmpfs ] && [ "$fs" != ramfs ]; then DD=$(mktemp -d "$cand/uring-direct.XXXXXX"); break; fi
done
if [ -n "$DD" ]; then
    run_mpi 2 60 -d "$DD" -a uring --iodepth 8 --direct -t 64k -b 1m --random -p write,read --verify --no-results
    check "direct on $(stat -f -c %T "$DD"): exit 0" [ "$RC" -eq 0 ]
    check "direct: the header says O_DIRECT and the depth" grep -q "api uring, iodepth 8, O_DIRECT" "$T/out"
    rm -rf "$DD"
else
    echo "# no file system with O_DIRECT found for the direct check"
fi
mkdir -p "$T/ramfs"
RC=0
timeout 120 unshare --mount --propagation private sh -c \
    'mount -t ramfs pfstest "$1" || exit 99; d=$1; left=$2; bin=$3; shift 3
     mpirun -np 2 --oversubscribe --bind-to none "$bin" -d "$d" "$@"; rc=$?
     ls -A "$d" >"$left"; exit $rc' \
    sh "$T/ramfs" "$T/left" "$PFSBENCH" -a uring --iodepth 4 --direct -t 64k -b 1m --no-results \
    >"$T/out" 2>"$T/err" || RC=$?
if [ "$RC" -eq 99 ]; then
    echo "# no ramfs mount here (not root?): the refusal of O_DIRECT is not checked"
else
    check "direct on ramfs: exit 1" [ "$RC" -eq 1 ]
    check "direct on ramfs: the rank, the path and O_DIRECT named" \
        grep -qE "pfsbench: error: rank [01] on [^ ]+: open for writing .*/pfsbench\.[^ ]+\.[01]: this file system does not support O_DIRECT" "$T/err"
    check "direct on ramfs: no file left behind" [ ! -s "$T/left" ]
fi

# --- threads: one ring per open file, never shared
run_mpi 2 60 -d "$D" -a uring --iodepth 8 --threads 2 -t 16k -b 512k --random -p write,read --verify --no-results
check "threads 2: exit 0" [ "$RC" -eq 0 ]
check "threads 2: 4 streams, all bytes written and read" [ "$(bytes_of write) $(bytes_of read)" = "2097152 2097152" ]

# --- ENOSPC on a 4 MiB tmpfs: exit 1 naming rank and path, nothing left behind
run_in_tmpfs size=4m 4 -a uring --iodepth 8 -t 64k -b 2m --no-results
check "ENOSPC: exit 1, no hang" [ "$RC" -eq 1 ]
check "ENOSPC: rank, path, offset and errno named" \
    grep -qE "pfsbench: error: rank [0-3] on [^ ]+: write .*/pfsbench\.[^ ]+\.[0-3] at offset [0-9]+: No space left on device \(errno 28\)" "$T/err"
check "ENOSPC: every file of the run removed" [ ! -s "$T/left" ]

# --- --iodepth with a synchronous backend: exit 2, naming the one that has it, nothing made
run_refused 2 60 -d "$D" -a posix --iodepth 4 --no-results
check "iodepth with posix: exit 2" [ "$RC" -eq 2 ]
check "iodepth with posix: names --api uring" grep -q -- "--iodepth above 1 needs --api uring (not available with --api posix)" "$T/err"
check "iodepth with posix: nothing created" [ -z "$(ls -A "$D")" ]
run_mpi 1 60 -d "$D" -a uring --iodepth 0 --no-results
check "iodepth 0: exit 2" [ "$RC" -eq 2 ]

# --- the report and the results file say api uring and the depth
run_mpi 2 60 -d "$D" -a uring --iodepth 32 -t 16k -b 512k -o "$T/r.h5"
check "results: exit 0" [ "$RC" -eq 0 ]
check "report: api uring, iodepth 32" grep -q "^access .*api uring, iodepth 32," "$T/out"
pycheck "results: runs/*/attrs api uring, iodepth 32" uring results "$T/r.h5"
run_mpi 1 60 -d "$D" -a posix -t 16k -b 512k --no-results
check "report: no iodepth with a synchronous backend" not grep -q "iodepth" "$T/out"

# --- each transfer goes to the kernel as it is given (fio's default): a
# queue refilled only at the next reap ran 10-20% below fio's at depth 32.
# 100 writes at depth 8: 100 calls that submit one each.
submitted_as_given uring io_uring_enter

finish
