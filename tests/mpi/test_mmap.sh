#!/bin/bash
# --api mmap (a MAP_SHARED mapping and a memcpy per transfer): the bytes on
# disk are the bytes reported for file per process and both shared layouts,
# sequential and random, at 1, 2 and 4 ranks; verification finds a corrupted
# byte; a file shorter than the mapping reads short instead of SIGBUS; the
# stonewall's wear-out leaves equal files of whole transfers; threads; -e
# (msync); a full file system fails the open (fallocate), naming rank and
# path, nothing left; ramfs (no fallocate) sized by ftruncate; what it cannot
# do refused with exit 2 before anything is made; the report and the results
# file say api mmap.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
run_id_of() { sed -n 's/.*read them again with --run-id \([A-Za-z0-9_-]*\)).*/\1/p' "$T/out"; }
# bytes_of PHASE: the bytes column of PHASE's summary row
bytes_of() { awk -v p="$1" '$1 == p && $2 ~ /^[0-9]+$/ && NF == 10 {print $10}' "$T/out"; }
# ondisk ID: the bytes in the run's data files
ondisk() { cat "$D"/pfsbench."$1".[0-9s]* 2>/dev/null | wc -c; }

# --- bytes on disk = bytes reported: ranks x mode x order, each read back
# verified. Per rank count the cases are the sections of one job file (one
# MPI job), each a run of its own, its files kept under its run id; stderr
# holds the job's line as each section starts, and nothing else may follow it.
# section_err LABEL: what stderr has between LABEL's start line and the next job line.
section_err() {
    awk -v s="section [$1] " 'index($0, "pfsbench: job ") == 1 { on = index($0, s) > 0; next } on' "$T/err"
}
for np in 1 2 4; do
    {
        printf '[global]\ndir = %s\napi = mmap\ntransfer = 16k\nblock = 256k\nphases = write,read\nverify\nkeep\n' "$D"
        for mode in fpp segmented strided; do
            for order in seq random; do
                printf '[%s-%s]\n' $mode $order
                [ "$mode" != fpp ] && printf 'shared\n'
                [ "$mode" = strided ] && printf 'layout = strided\n'
                [ "$order" = random ] && printf 'random\n'
            done
        done
    } >"$T/mmap.job"
    run_job "$np" 300 "$T/mmap.job" -q
    check "np=$np: the job of every mode and order exits 0 (got $RC)" [ "$RC" -eq 0 ]
    for mode in fpp segmented strided; do
        for order in seq random; do
            what="np=$np $mode $order"
            run_of "$mode-$order"
            id=${RUN[2]:-none}
            want=$((np * 256 * 1024))
            check "$what: run complete with --verify (${RUN[1]:-no run})" [ "${RUN[1]:-}" = complete ]
            check "$what: write reported $want bytes" [ "${RUN[3]:-}" = "write=$want" ]
            check "$what: $want bytes on disk ($(ondisk "$id"))" [ "$(ondisk "$id")" = "$want" ]
            check "$what: read reported $want bytes" [ "${RUN[4]:-}" = "read=$want" ]
            check "$what: nothing on stderr" [ -z "$(section_err "$mode-$order")" ]
        done
    done
    rm -f "$D"/pfsbench.*
done

# --- two repetitions of write,rewrite,read,reread with -e (msync): the truncate and the sizing again
run_mpi 2 60 -d "$D" -a mmap -t 64k -b 1m -p write,rewrite,read,reread -i 2 -e --verify -k --no-results -v
id=$(run_id_of)
check "-e -i 2: exit 0" [ "$RC" -eq 0 ]
check "-e -i 2: every file is 1 MiB" [ "$(stat -c %s "$D"/pfsbench."$id".[0-9]* | sort -u)" = 1048576 ]
for ph in write rewrite read reread; do
    check "-e -i 2: $ph reported the bytes on disk" [ "$(bytes_of $ph)" = "$(ondisk "$id")" ]
done
check "-e -i 2 -v: the msync is timed as the fsync of each write" \
    [ "$(grep -cE '^(write|rewrite) +[01] fsync +2 ' "$T/out")" -eq 4 ]
rm -f "$D"/pfsbench.*

# --- verification: one corrupted byte is found, named with path, offset and writer
run_mpi 2 60 -d "$D" -a mmap -t 64k -b 1m -p write -k --verify --no-results
check "verify: the write exits 0" [ "$RC" -eq 0 ]
id=$(run_id_of)
run_mpi 2 60 -d "$D" -a mmap -t 64k -b 1m -p read --verify --run-id "$id" --no-results -q
check "verify: the clean files read back with exit 0" [ "$RC" -eq 0 ]
corrupt_byte "$D/pfsbench.$id.1" 300001
run_mpi 2 60 -d "$D" -a mmap -t 64k -b 1m -p read --verify --run-id "$id" --no-results -q
check "verify: one corrupted byte fails the read with exit 1" [ "$RC" -eq 1 ]
check "verify: the path, the offset and the writer are named" \
    grep -q "rank 1 on .*: verify $D/pfsbench.$id.1 at offset 300001: 1 mismatching 8-byte words in data written by rank 1, read by rank 1" "$T/err"

# --- a file shorter than the mapping: a short read at its end, no SIGBUS, the file untouched
truncate -s 300000 "$D/pfsbench.$id.1"
run_mpi 2 60 -d "$D" -a mmap -t 64k -b 1m -p read --run-id "$id" --no-results -q
check "short file: exit 1 (not a signal)" [ "$RC" -eq 1 ]
check "short file: the short read named at its offset" \
    grep -q "rank 1 on .*: read $D/pfsbench.$id.1 at offset 300000: short read: the file ends early (37856 of 65536 bytes)" "$T/err"
check "short file: not extended by the read" [ "$(stat -c %s "$D/pfsbench.$id.1")" = 300000 ]
rm -f "$D"/pfsbench.*

# --- stonewall with wear-out (file per process): equal files of whole transfers, read back verified
run_mpi 2 120 -d "$D" -a mmap -t 64k -b 2g -D 0.2 -p write,read --verify -k --no-results
check "stonewall: exit 0" [ "$RC" -eq 0 ]
id=$(run_id_of)
sizes=$(stat -c %s "$D"/pfsbench."$id".[0-9]* | sort -u)
check "stonewall: both files have one size ($sizes)" [ "$(echo "$sizes" | wc -l)" -eq 1 ]
check "stonewall: cut short" [ "$sizes" -lt $((2 << 30)) ]
check "stonewall: in whole transfers" [ $((sizes % 65536)) -eq 0 ]
check "stonewall: bytes reported = bytes on disk" [ "$(bytes_of write)" = "$(ondisk "$id")" ]
check "stonewall: no blocks past the size" [ "$(du -B1 -c "$D"/pfsbench."$id".[0-9]* | tail -1 | cut -f1)" -le $((2 * sizes + 2 * 1048576)) ]
check "stonewall: the bandwidth up to the stonewall is reported" grep -q "(up to the stonewall)" "$T/out"
run_mpi 2 120 -d "$D" -a mmap -t 64k -b "$sizes" -p read --verify --run-id "$id" --no-results -q
check "stonewall: a verified read of every byte written passes" [ "$RC" -eq 0 ]
rm -f "$D"/pfsbench.*

# --- threads: each stream maps its own file, or the shared file on its own
for mode in "" --shared; do
    run_mpi 2 60 -d "$D" -a mmap --threads 2 -t 16k -b 256k --random $mode -p write,read --verify -k --no-results
    id=$(run_id_of)
    check "threads 2 ${mode:-fpp}: exit 0" [ "$RC" -eq 0 ]
    check "threads 2 ${mode:-fpp}: 4 streams, all bytes written and read" \
        [ "$(bytes_of write) $(bytes_of read) $(ondisk "$id")" = "1048576 1048576 1048576" ]
    rm -f "$D"/pfsbench.*
done

# --- ENOSPC on a 4 MiB tmpfs: the fallocate at open fails, rank and path named, nothing left
run_in_tmpfs size=4m 4 -a mmap -t 64k -b 2m --no-results
check "ENOSPC fpp: exit 1, no hang, no signal" [ "$RC" -eq 1 ]
check "ENOSPC fpp: rank, path and errno named" \
    grep -qE "pfsbench: error: rank [0-3] on [^ ]+: open for writing .*/pfsbench\.[^ ]+\.[0-3]: No space left on device \(errno 28\)" "$T/err"
check "ENOSPC fpp: every file of the run removed" [ ! -s "$T/left" ]
run_in_tmpfs size=4m 4 -a mmap --shared -t 64k -b 2m --no-results
check "ENOSPC shared: exit 1, no hang, no signal" [ "$RC" -eq 1 ]
check "ENOSPC shared: rank, path and errno named" \
    grep -qE "pfsbench: error: rank [0-3] on [^ ]+: open for writing .*/pfsbench\.[^ ]+\.shared: No space left on device \(errno 28\)" "$T/err"
check "ENOSPC shared: the shared file removed" [ ! -s "$T/left" ]

# --- ramfs has no fallocate: the file is sized with ftruncate, and cut back all the same
mkdir -p "$T/ramfs"
RC=0
timeout 120 unshare --mount --propagation private sh -c \
    'mount -t ramfs pfstest "$1" || exit 99; d=$1; left=$2; bin=$3; shift 3
     mpirun -np 2 --oversubscribe --bind-to none "$bin" -d "$d" "$@"; rc=$?
     ls -A "$d" >"$left"; exit $rc' \
    sh "$T/ramfs" "$T/left" "$PFSBENCH" -a mmap -t 64k -b 1m -p write,read --verify --no-results \
    >"$T/out" 2>"$T/err" || RC=$?
if [ "$RC" -eq 99 ]; then
    echo "# no ramfs mount here (not root?): the ftruncate path is not checked"
else
    check "ramfs: exit 0" [ "$RC" -eq 0 ]
    check "ramfs: all bytes written and read" [ "$(bytes_of write) $(bytes_of read)" = "2097152 2097152" ]
    check "ramfs: nothing left behind" [ ! -s "$T/left" ]
fi

# --- refused with exit 2 before anything is made (side by side: par)
i=0
for args in "--direct" "--shared -D 1" "--iodepth 4" "--collective"; do
    i=$((i + 1))
    mkdir -p "$T/ref.$i"
    # shellcheck disable=SC2086
    par "ref$i" run_refused 2 120 -d "$T/ref.$i" -a mmap $args -o "$T/ref.$i.h5"
done
i=0
for args in "--direct" "--shared -D 1" "--iodepth 4" "--collective"; do
    i=$((i + 1))
    par_wait "ref$i"
    check "mmap with '$args': exit 2" [ "$RC" -eq 2 ]
    check "mmap with '$args': exactly one message" [ "$(grep -c 'pfsbench: error' "$T/err")" -eq 1 ]
    check "mmap with '$args': no data file made" [ -z "$(ls -A "$T/ref.$i")" ]
    check "mmap with '$args': no results file made" [ ! -e "$T/ref.$i.h5" ]
    case $args in
    --direct) check "--direct: refused for mmap" grep -q -- "--direct .*--api mmap" "$T/err" ;;
    "--shared -D 1") check "--shared -D: says why" grep -q -- "--api mmap cannot stonewall (-D) a --shared file" "$T/err" ;;
    esac
done

# --- the report and the results file say api mmap
run_mpi 2 60 -d "$D" -a mmap -t 16k -b 256k -o "$T/r.h5"
check "results: exit 0" [ "$RC" -eq 0 ]
check "report: api mmap" grep -q "^access .*api mmap, sequential" "$T/out"
pycheck "results: runs/*/attrs api mmap" mmap results "$T/r.h5"
check "results: no data file left" [ -z "$(ls -A "$D")" ]

finish
