#!/bin/bash
# What makes a number trustworthy: verification, stonewalling with wear-out,
# random order, O_DIRECT, cache dropping, and the MPI-IO backend.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
run_id_of() { sed -n 's/.*read them again with --run-id \([A-Za-z0-9_-]*\)).*/\1/p' "$T/out"; }

# --- verification: a correct file passes, one corrupted byte is found at its offset
run_mpi 2 60 -d "$D" -t 64k -b 1m -p write,read --verify -k --no-results
check "verify: clean write+read passes" [ "$RC" -eq 0 ]
id=$(run_id_of)
run_mpi 2 60 -d "$D" -t 64k -b 1m -p read --verify --run-id "$id" --no-results
check "verify: a second run reading the kept files passes" [ "$RC" -eq 0 ]
corrupt_byte "$D/pfsbench.$id.1" 300001
run_mpi 2 60 -d "$D" -t 64k -b 1m -p read --verify --run-id "$id" --no-results
check "verify: one corrupted byte fails the run with exit 1" [ "$RC" -eq 1 ]
check "verify: the path, the byte offset and the writer are named" \
    grep -q "rank 1 on .*: verify $D/pfsbench.$id.1 at offset 300001: 1 mismatching 8-byte words in data written by rank 1, read by rank 1; first at byte 300001: expected 0x[0-9a-f]*, found 0x[0-9a-f]*" "$T/err"
check "verify: the kept files of the earlier run are left alone (2 and their status)" [ "$(ls "$D" | wc -l)" -eq 3 ]
rm -f "$D"/pfsbench.*

# --- random order writes every byte exactly once (checked by a sequential verified read)
run_mpi 2 60 -d "$D" -t 16k -b 1m --random --verify -p write,read -k --no-results
check "random: verified write+read" [ "$RC" -eq 0 ]
id=$(run_id_of)
run_mpi 2 60 -d "$D" -t 16k -b 1m --verify -p read --run-id "$id" --no-results
check "random: a sequential verified read of the randomly written files passes" [ "$RC" -eq 0 ]
check "random: files are full size" [ "$(stat -c %s "$D"/pfsbench."$id".[0-9]* | sort -u)" = 1048576 ]
rm -f "$D"/pfsbench.*

# --- stonewall with wear-out: every file holds the same whole transfers, reads cover them
S=/dev/shm/pfstest.$$
mkdir -p "$S"
run_mpi 2 120 -d "$S" -t 1m -b 8g -D 0.2 -p write,read --verify -k --no-results
check "stonewall: exit 0" [ "$RC" -eq 0 ]
id=$(run_id_of)
sizes=$(stat -c %s "$S"/pfsbench."$id".[0-9]* | sort -u)
check "stonewall: both files have one size ($sizes)" [ "$(echo "$sizes" | wc -l)" -eq 1 ]
check "stonewall: cut short, in whole transfers" [ "$sizes" -lt $((8 << 30)) ]
check "stonewall: cut short, in whole transfers (2)" [ $((sizes % 1048576)) -eq 0 ]
check "stonewall: both bandwidths reported" grep -q "(up to the stonewall)" "$T/out"
# The read of the same run has the stonewall too: it covers what was written
# unless it hit the stonewall itself (a slow moment of a shared machine).
rb=$(awk '$1=="read" && $2 ~ /^[0-9]+$/ && NF==10 {print $10}' "$T/out")
if awk '$1=="read" && NF>=9 {getline n; exit !(n ~ /up to the stonewall/)}' "$T/out"; then
    echo "# the read reached the stonewall too ($rb bytes read)"
else
    check "stonewall: the read covers what was written ($rb bytes)" [ "$rb" = $((2 * sizes)) ]
fi
# Without a stonewall, a verified read of the kept files, as large as they
# are, checks every byte written (wear-out wrote whole, correct transfers).
run_mpi 2 120 -d "$S" -t 1m -b "$sizes" -p read --verify --run-id "$id" --no-results
check "stonewall: a verified read of every byte written passes" [ "$RC" -eq 0 ]
check "stonewall: ... and read all of it" grep -qE "^read +1 .* $((2 * sizes))$" "$T/out"
rm -rf "$S"

# --- O_DIRECT: aligned sizes run on ext4, misaligned are refused before any I/O
run_mpi 2 60 -d "$D" --direct -t 64k -b 1m -p write,read --verify --no-results
check "direct: aligned run on $(stat -f -c %T "$D") passes" [ "$RC" -eq 0 ]
check "direct: the header says O_DIRECT" grep -q "O_DIRECT" "$T/out"
run_refused 2 60 -d "$D" --direct -t 1000 -b 8000 --no-results
check "direct: a misaligned transfer exits 2" [ "$RC" -eq 2 ]
check "direct: the message names the alignment" grep -q "direct needs transfer and block to be multiples of" "$T/err"
check "direct: nothing created" [ -z "$(ls -A "$D")" ]

# --- drop caches before reads
run_mpi 2 60 -d "$D" -t 64k -b 1m --drop-caches --no-results
check "drop-caches: exit 0" [ "$RC" -eq 0 ]
if [ "$(id -u)" -eq 0 ]; then
    check "drop-caches: says what it did (root: drop_caches on the node)" grep -q "drop_caches written on 1 of 1 nodes" "$T/out"
else
    check "drop-caches: says what it did" grep -q "posix_fadvise(DONTNEED)" "$T/out"
fi
check "drop-caches: no cache warning" not grep -q "served from the page cache" "$T/out"

# --- MPI-IO: the same bytes as POSIX, collective shared file, hints
mkdir -p "$T/p" "$T/m"
for mode in "" "--shared" "--shared --layout strided"; do
    # shellcheck disable=SC2086
    run_mpi 4 60 -d "$T/p" $mode -t 16k -b 64k --run-id same -k --no-results -p write
    # shellcheck disable=SC2086
    run_mpi 4 60 -d "$T/m" $mode -t 16k -b 64k --run-id same -k --no-results -p write -a mpiio
    check "mpiio '$mode': exit 0" [ "$RC" -eq 0 ]
    same=1
    for f in "$T"/p/pfsbench.same.*; do cmp -s "$f" "$T/m/$(basename "$f")" || same=0; done
    check "mpiio '$mode': byte-identical to posix" [ "$same" -eq 1 ]
    rm -f "$T"/p/* "$T"/m/*
done
run_mpi 4 60 -d "$D" -a mpiio --shared --collective -t 16k -b 256k -p write,read --verify --no-results \
    --hint romio_cb_write=enable --hint cb_buffer_size=1048576
check "mpiio collective shared: verified write+read, 4 ranks" [ "$RC" -eq 0 ]
run_mpi 4 60 -d "$D" -a mpiio --shared --collective -t 16k -b 16m -D 0.05 -p write,read --verify --no-results
check "mpiio collective with a stonewall: no hang, verified" [ "$RC" -eq 0 ]
run_refused 2 60 -d "$D" -a mpiio --hint striping_factor=four --no-results
check "mpiio: a bad hint value exits 2" [ "$RC" -eq 2 ]
check "mpiio: a bad hint value exits 2 (2)" grep -q "striping_factor: 'four' is not a positive whole number" "$T/err"
run_mpi 2 60 -d "$D" -a mpiio --hint made_up_hint=1 -t 64k -b 256k --no-results
check "mpiio: an unknown hint is reported" grep -q "hint 'made_up_hint=1' is not one pfsbench knows" "$T/out"
check "all runs cleaned up" [ -z "$(ls -A "$D")" ]

# --direct where the file system refuses O_DIRECT (ramfs): open(2) makes the
# file before it fails with EINVAL; pfsbench must leave nothing behind.
mkdir -p "$T/ramfs"
RC=0
timeout 120 unshare --mount --propagation private sh -c \
    'mount -t ramfs pfstest "$1" || exit 99; d=$1; left=$2; bin=$3; shift 3
     mpirun -np 2 --oversubscribe --bind-to none "$bin" -d "$d" "$@"; rc=$?
     ls -A "$d" >"$left"; exit $rc' \
    sh "$T/ramfs" "$T/left" "$PFSBENCH" --direct -t 64k -b 1m --no-results >"$T/out" 2>"$T/err" || RC=$?
if [ "$RC" -eq 99 ]; then
    echo "# no ramfs mount here (not root?): the refusal of O_DIRECT is not checked"
else
    check "posix --direct on ramfs: exit 1, the open named" [ "$RC" -eq 1 ] && grep -q "open for writing" "$T/err"
    check "posix --direct on ramfs: no file left behind" [ ! -s "$T/left" ]
fi
finish
