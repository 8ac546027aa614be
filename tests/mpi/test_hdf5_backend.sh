#!/bin/bash
# --api hdf5 (the module libpfs_hdf5.so): at 1, 2 and 4 ranks, file per
# process and --shared (segmented, strided), independent and --collective,
# each file holds one 1-D uint8 dataset of the bytes reported, and h5py
# reads back exactly the bytes --verify's pattern says; a byte corrupted
# through h5py fails a verified read (exit 1); --hdf5-chunk and --hdf5-align
# change the file; the --hdf5-* options are refused with another --api, and
# --threads, --direct, --iodepth with hdf5 (exit 2, nothing made); the trust
# rules (a file there is never reused, a symlink never followed); a missing
# module is one message, exit 2; the stonewall; the results file's api.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
run_id_of() { sed -n 's/.*read them again with --run-id \([A-Za-z0-9_-]*\)).*/\1/p' "$T/out"; }
# bytes_of PHASE: the bytes column of PHASE's summary row
bytes_of() { awk -v p="$1" '$1 == p && $2 ~ /^[0-9]+$/ && NF == 10 {print $10}' "$T/out"; }
empty_dir() { [ -z "$(ls -A "$D")" ]; }

# h5check WHAT DIR ID NSTREAMS BLOCK TRANSFER MODE(fpp|segmented|strided):
# queues a check that every file's dataset "data" is 1-D uint8 of the right
# size and holds the pattern; h5checks_done runs the queue in one Python
# (tests/lib/h5pattern.py) and reports each as a check of its own.
h5check() {
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$T/h5cases"
}
h5checks_done() {
    local st what why
    "$PY" "$PFS_TESTLIB/h5pattern.py" "$T/h5cases" >"$T/h5checked" 2>&1
    while IFS=$'\t' read -r st what why; do
        case $st in
            ok) ok "$what" ;;
            bad) bad "$what: $why" ;;
            *) bad "h5pattern.py: $st $what $why" ;;
        esac
    done <"$T/h5checked"
    check "h5pattern.py checked every queued run" [ "$(grep -c '^ok' "$T/h5checked")" -eq "$(wc -l <"$T/h5cases")" ]
    rm -rf "$T"/h5case.*
}

# --- bytes in the datasets = bytes reported, and they are the pattern. Per
# rank count the cases are the sections of one job file (one MPI job), each
# a run of its own, its files kept under its run id.
for np in 1 2 4; do
    c=$T/h5case.$np
    mkdir -p "$c"
    {
        printf '[global]\ndir = %s\napi = hdf5\ntransfer = 16k\nblock = 256k\nphases = write,read\nverify\nkeep\n' "$c"
        for mode in fpp segmented strided; do
            for coll in independent collective; do
                printf '[%s-%s]\n' $mode $coll
                [ "$mode" != fpp ] && printf 'shared\nlayout = %s\n' $mode
                [ "$coll" = collective ] && printf 'collective\n'
            done
        done
    } >"$T/h5.job"
    run_job "$np" 300 "$T/h5.job" -q
    check "np=$np: the job of every layout, independent and collective, exits 0 (got $RC)" [ "$RC" -eq 0 ]
    for mode in fpp segmented strided; do
        for coll in independent collective; do
            what="np=$np $mode $coll"
            run_of "$mode-$coll"
            want=$((np * 256 * 1024))
            check "$what: run complete with --verify (${RUN[1]:-no run})" [ "${RUN[1]:-}" = complete ]
            check "$what: write and read reported $want bytes" [ "${RUN[*]:3}" = "write=$want read=$want" ]
            h5check "$what: h5py reads datasets of $want bytes holding the pattern" "$c" "${RUN[2]:-none}" "$np" 262144 16384 "$mode"
        done
    done
done

# --- repetitions: a write again starts from an empty file (the same inode), a rewrite, fsync = H5Fflush
for mode in "" --shared; do
    c=$T/h5case.rep${mode:-fpp}
    mkdir -p "$c"
    run_mpi 2 60 -d "$c" -a hdf5 -t 64k -b 512k $mode -p write,rewrite,read -i 2 -e --verify -k --no-results
    check "${mode:-fpp} -i 2 write,rewrite,read -e: exit 0" [ "$RC" -eq 0 ]
    id=$(run_id_of)
    h5check "${mode:-fpp} -i 2: still the pattern" "$c" "$id" 2 524288 65536 "$([ -n "$mode" ] && echo segmented || echo fpp)"
done
h5checks_done

# --- verification: one byte of the raw dataset corrupted through h5py is found
for mode in "" --shared; do
    run_mpi 2 60 -d "$D" -a hdf5 -t 64k -b 1m $mode -p write --verify -k --no-results
    id=$(run_id_of)
    f=$(ls "$D"/pfsbench."$id".[0-9s]* | tail -1)
    pycheck "${mode:-fpp} corrupt: h5py flips byte 300001 of the dataset" hdf5_backend corrupt "$f"
    run_mpi 2 60 -d "$D" -a hdf5 -t 64k -b 1m $mode -p read --verify --run-id "$id" --no-results -q
    check "${mode:-fpp} corrupt: the verified read exits 1" [ "$RC" -eq 1 ]
    check "${mode:-fpp} corrupt: the mismatch is named at its offset" \
        grep -q "verify $f at offset 300001: 1 mismatching 8-byte words" "$T/err"
    rm -f "$D"/pfsbench.*
done

# --- the options change the file
run_mpi 2 60 -d "$D" -a hdf5 -t 256k -b 4m --shared --hdf5-chunk 1m -p write,read --verify -k --no-results
check "--hdf5-chunk 1m: exit 0" [ "$RC" -eq 0 ]
pycheck "--hdf5-chunk 1m: the dataset is chunked in 1 MiB" hdf5_backend chunk "$D/pfsbench.$(run_id_of).shared"
rm -f "$D"/pfsbench.*
run_mpi 2 60 -d "$D" -a hdf5 -t 256k -b 4m --hdf5-align 1m -p write,read --verify -k --no-results
check "--hdf5-align 1m: exit 0" [ "$RC" -eq 0 ]
pycheck "--hdf5-align 1m: the data start at a multiple of 1 MiB" hdf5_backend align "$D/pfsbench.$(run_id_of).0"
rm -f "$D"/pfsbench.*
run_mpi 2 60 -d "$D" -a hdf5 -t 256k -b 4m --shared --collective --hdf5-chunk 512k --hdf5-align 1m \
    --hdf5-mdc-size 4m --hdf5-coll-metadata --hint romio_cb_write=enable -p write,read --verify -k --no-results
check "all the options and a hint, shared collective: exit 0" [ "$RC" -eq 0 ]
pycheck "chunk 512k aligned to 1m: every chunk starts at a multiple of 1 MiB" hdf5_backend chunk_align "$D/pfsbench.$(run_id_of).shared"
rm -f "$D"/pfsbench.*

# --- refused before anything is made (exit 2, one message, the directory empty)
# refused WHAT PATTERN ARGS...: started side by side, each in a directory of
# its own (par), checked by refusals_done.
NREF=0
refused() {
    NREF=$((NREF + 1))
    REF_WHAT[NREF]=$1 REF_PAT[NREF]=$2
    shift 2
    mkdir -p "$T/ref.$NREF"
    par "ref$NREF" run_refused 2 120 -d "$T/ref.$NREF" "$@" --no-results
}
refusals_done() {
    local i what
    for ((i = 1; i <= NREF; i++)); do
        par_wait "ref$i"
        what=${REF_WHAT[i]}
        check "$what: exit 2" [ "$RC" -eq 2 ]
        check "$what: says so" grep -q -- "${REF_PAT[i]}" "$T/err"
        check "$what: nothing made" [ -z "$(ls -A "$T/ref.$i")" ]
    done
}
refused "--hdf5-chunk with posix" "--hdf5-chunk is an option of --api hdf5 (not available with --api posix)" --hdf5-chunk 1m
refused "--hdf5-align with mpiio" "--hdf5-align is an option of --api hdf5 (not available with --api mpiio)" -a mpiio --hdf5-align 1m
refused "--hdf5-coll-metadata with uring" "--hdf5-coll-metadata is an option of --api hdf5" -a uring --hdf5-coll-metadata
refused "--hdf5-mdc-size with the default api" "--hdf5-mdc-size is an option of --api hdf5" --hdf5-mdc-size 2m
refused "--threads 2 with hdf5" "--threads with --api hdf5: HDF5 is not thread-safe" -a hdf5 --threads 2
refused "--direct with hdf5" "--direct is not available with --api hdf5" -a hdf5 --direct -t 4k -b 64k
refused "--iodepth with hdf5" "--iodepth above 1 needs --api uring" -a hdf5 --iodepth 4
refused "a chunk over the block" "--hdf5-chunk 2 MiB: a chunk must be" -a hdf5 -b 1m --hdf5-chunk 2m
refused "a metadata cache too large" "--hdf5-mdc-size: HDF5's metadata cache takes 1k to 128m" -a hdf5 --hdf5-mdc-size 1g
refusals_done

# --- the module missing: one message, exit 2, nothing made
cp "$PFSBENCH" "$T/pfsbench-alone"
RC=0
timeout 30 mpirun -np 2 --oversubscribe --bind-to none "$T/pfsbench-alone" -d "$D" -a hdf5 --no-results >"$T/out" 2>"$T/err" || RC=$?
check "no module: exit 2" [ "$RC" -eq 2 ]
check "no module: one message naming libpfs_hdf5.so" [ "$(grep -c "error: --api hdf5: cannot load its module (.*libpfs_hdf5.so" "$T/err")" -eq 1 ]
check "no module: nothing made" empty_dir

# --- trust: a file there is never reused; a kept file replaced by a symlink is never followed
run_mpi 1 30 -d "$D" -a hdf5 -p write -t 64k -b 256k --run-id planted --no-results
check "planted: a first run (kept nothing) exits 0" [ "$RC" -eq 0 ]
echo "someone else's" >"$D/pfsbench.planted.0"
run_mpi 1 30 -d "$D" -a hdf5 -p write -t 64k -b 256k --run-id planted --no-results
check "planted file: exit 1" [ "$RC" -eq 1 ]
check "planted file: never reused" grep -q "already there; pfsbench never reuses a file it did not create" "$T/err"
check "planted file: its bytes kept" [ "$(cat "$D/pfsbench.planted.0")" = "someone else's" ]
rm -f "$D"/pfsbench.*
echo "victim" >"$T/victim"
for mode in "" --shared; do
    run_mpi 2 30 -d "$D" -a hdf5 -p write -t 64k -b 256k $mode -k --no-results
    id=$(run_id_of)
    f=$(ls "$D"/pfsbench."$id".[0-9s]* | tail -1)
    rm -f "$f" && ln -s "$T/victim" "$f"
    run_mpi 2 30 -d "$D" -a hdf5 -p read -t 64k -b 256k $mode --run-id "$id" --no-results
    check "${mode:-fpp} symlink: the read exits 1" [ "$RC" -eq 1 ]
    check "${mode:-fpp} symlink: named not a regular file" grep -q "not a regular file" "$T/err"
    check "${mode:-fpp} symlink: the victim is untouched" [ "$(cat "$T/victim")" = "victim" ]
    rm -f "$D"/pfsbench.*
done

# --- stonewall: the write stops, wears out to one count, and the read of what was written verifies
S=$(mktemp -d /dev/shm/pfstest.hdf5.XXXXXX)
RC=0
timeout 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$S" -a hdf5 -t 1m -b 2g -D 0.2 \
    -p write,read --verify --no-results >"$T/out" 2>"$T/err" || RC=$?
check "stonewall: exit 0" [ "$RC" -eq 0 ]
check "stonewall: the bandwidth up to the stonewall is reported" grep -q "(up to the stonewall)" "$T/out"
w=$(bytes_of write)
check "stonewall: cut short, in whole transfers ($w)" \
    [ "$w" -lt $((4 << 30)) ] && [ $((w % 1048576)) -eq 0 ]
# The read has its own stonewall: it covers what was written unless it hit
# the stonewall itself (a slow moment of a shared machine; as in test_io).
if awk '$1=="read" && NF>=9 {getline n; exit !(n ~ /up to the stonewall/)}' "$T/out"; then
    echo "# the read reached the stonewall too ($(bytes_of read) bytes read)"
else
    check "stonewall: read as written ($w)" [ "$(bytes_of read)" = "$w" ]
fi
check "stonewall: nothing left" [ -z "$(ls -A "$S")" ]
# Every byte a stonewalled write wrote verifies, whatever the read's own
# stonewall does: kept files, then a verified read without a stonewall with
# the kept run's -b, which reads exactly the w/2 bytes each rank wrote (the
# kept run's status, pfsbench.ID.kept, says how many), no byte more.
run_mpi 2 120 -d "$S" -a hdf5 -t 1m -b 2g -D 0.2 -p write --verify -k --no-results
w=$(bytes_of write)
id=$(run_id_of)
check "stonewall, kept: cut short, in whole transfers ($w)" \
    test "$RC" -eq 0 -a "${w:-0}" -gt 0 -a "${w:-0}" -lt $((4 << 30)) -a $((${w:-1} % 1048576)) -eq 0
run_mpi 2 120 -d "$S" -a hdf5 -t 1m -b 2g -p read --verify --run-id "$id" --no-results
check "stonewall: a verified read of the kept datasets passes" [ "$RC" -eq 0 ]
check "stonewall: ... and reads exactly what was written ($w)" [ "$(bytes_of read)" = "$w" ]
rm -rf "$S"

# --- the report and the results file say api hdf5, and the options are stored
run_mpi 2 60 -d "$D" -a hdf5 -t 16k -b 512k --shared --hdf5-chunk 64k -o "$T/r.h5"
check "results: exit 0" [ "$RC" -eq 0 ]
check "report: api hdf5" grep -q "^access .*api hdf5," "$T/out"
check "results: the data files are removed" empty_dir
pycheck "results: runs/*/attrs api hdf5, hdf5_chunk 65536" hdf5_backend results "$T/r.h5"

finish
