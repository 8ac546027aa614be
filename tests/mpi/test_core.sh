#!/bin/bash
# The core on real ranks and real files: sizes on disk, bytes reported,
# shared-file layouts, clean-up, bad options, and an I/O failure on one rank.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"

run_id_of() { sed -n 's/.*read them again with --run-id \([A-Za-z0-9_-]*\)).*/\1/p' "$T/out"; }
bytes_of() { awk -v p="$1" '$1==p && $2 ~ /^[0-9]+$/ && NF==10 {print $10}' "$T/out" | head -1; }

# 1, 2 and 4 ranks, file per process, kept: each file is exactly one block and
# the bytes reported equal the bytes on disk.
for np in 1 2 4; do
    run_mpi $np 60 -d "$D" -t 64k -b 1m -p write,rewrite,read,reread -i 2 -e -k --no-results
    check "fpp np=$np exits 0" [ "$RC" -eq 0 ]
    id=$(run_id_of)
    n=$(ls "$D" | grep -c "^pfsbench\.$id\.[0-9]*$")
    check "fpp np=$np: $np files" [ "$n" -eq "$np" ]
    sizes=$(stat -c %s "$D"/pfsbench."$id".[0-9]* | sort -u)
    check "fpp np=$np: every file is 1 MiB" [ "$sizes" = "1048576" ]
    ondisk=$(stat -c %s "$D"/pfsbench."$id".[0-9]* | awk '{s+=$1} END {print s}')
    for ph in write rewrite read reread; do
        check "fpp np=$np: $ph bytes reported = bytes on disk ($ondisk)" [ "$(bytes_of $ph)" = "$ondisk" ]
    done
    check "fpp np=$np: 8 rows (4 phases x 2 reps)" [ "$(grep -cE '^(write|rewrite|read|reread) +[01] +[0-9]' "$T/out")" -eq 8 ]
    check "fpp np=$np: nothing on stderr" [ ! -s "$T/err" ]
    rm -f "$D"/pfsbench."$id".*
done

# Without --keep, exactly the files of this run go, a stranger's file stays.
echo keep-me > "$D/pfsbench.someone-else.0"
run_mpi 2 60 -d "$D" -t 64k -b 256k --no-results
check "no --keep: exit 0" [ "$RC" -eq 0 ]
check "no --keep: only the stranger's file is left" [ "$(ls "$D")" = "pfsbench.someone-else.0" ]
rm -f "$D/pfsbench.someone-else.0"

# Shared file, segmented and strided: one file of ranks x block, and each
# rank's data where the layout puts it (verified by a second run reading it).
for layout in segmented strided; do
    run_mpi 4 60 -d "$D" --shared --layout $layout -t 16k -b 64k --verify -k --no-results
    check "shared $layout: exit 0" [ "$RC" -eq 0 ]
    id=$(run_id_of)
    check "shared $layout: one file of 256 KiB" [ "$(stat -c %s "$D/pfsbench.$id.shared" 2>/dev/null)" = 262144 ]
    # rank 1's first transfer: segmented at 1*64k, strided at 1*16k. Check with the pattern
    # of a 1-rank read of the whole file under the other layout: it must fail.
    run_mpi 4 60 -d "$D" --shared --layout $layout -t 16k -b 64k -p read --verify --run-id "$id" --no-results
    check "shared $layout: read back with the same layout verifies" [ "$RC" -eq 0 ]
    other=strided; [ $layout = strided ] && other=segmented
    run_mpi 4 60 -d "$D" --shared --layout $other -t 16k -b 64k -p read --verify --run-id "$id" --no-results
    check "shared $layout: read back as $other fails verification" [ "$RC" -eq 1 ]
    check "shared $layout: the failure names the verification" grep -q "verify" "$T/err"
    check "shared $layout: the kept file is still there after a read-only run" [ -f "$D/pfsbench.$id.shared" ]
    rm -f "$D/pfsbench.$id.shared" "$D/pfsbench.$id.kept"
done

# Bad input: one message from rank 0, exit 2, nothing created. The
# refusals run side by side (par), each with a directory and a results
# path of its own.
BAD=("-t 3m -b 4m" "-t 1mb" "-p write,sing" "--total 1m -b 1m" "-i 0" "--bogus")
CAPS=("--collective" "--hint striping_factor=2")
for i in "${!BAD[@]}"; do
    mkdir -p "$T/bad.$i"
    # shellcheck disable=SC2086
    par "bad$i" run_refused 4 120 -d "$T/bad.$i" ${BAD[i]} -o "$T/bad.$i.h5"
done
# What a backend cannot do is refused by its capability flags, naming the one that can.
for i in "${!CAPS[@]}"; do
    mkdir -p "$T/cap.$i"
    # shellcheck disable=SC2086
    par "cap$i" run_refused 2 120 -d "$T/cap.$i" ${CAPS[i]} -o "$T/cap.$i.h5"
done
par total run_refused 3 120 -d "$D" --total 1m -t 64k --no-results
par nodir run_refused 2 120 -d "$D/nope" --no-results
for i in "${!BAD[@]}"; do
    args=${BAD[i]}
    par_wait "bad$i"
    check "bad '$args': exit 2" [ "$RC" -eq 2 ]
    check "bad '$args': exactly one message" [ "$(grep -c 'pfsbench: error' "$T/err")" -eq 1 ]
    check "bad '$args': no files made" [ -z "$(ls -A "$T/bad.$i")" ]
    check "bad '$args': no files made (2)" [ ! -e "$T/bad.$i.h5" ]
done
for i in "${!CAPS[@]}"; do
    args=${CAPS[i]}
    par_wait "cap$i"
    check "posix with '$args': exit 2" [ "$RC" -eq 2 ]
    check "posix with '$args': names --api mpiio" grep -q "needs --api mpiio (not available with --api posix)" "$T/err"
    check "posix with '$args': no files made" [ -z "$(ls -A "$T/cap.$i")" -a ! -e "$T/cap.$i.h5" ]
done
par_wait total
check "total not divisible by 3 ranks: exit 2" [ "$RC" -eq 2 ]
check "total not divisible: says so" grep -q "does not divide by 3 ranks" "$T/err"
par_wait nodir
check "missing dir: exit 2 and named" [ "$RC" -eq 2 ]
check "missing dir: exit 2 and named (2)" grep -q "does not exist" "$T/err"
check "the refusals made nothing in the run directory" [ -z "$(ls -A "$D")" ]

# A file of this run's name already there (a planted link) is never followed or reused.
ln -s /etc/passwd "$D/pfsbench.planted.1"
run_mpi 2 60 -d "$D" --run-id planted -t 64k -b 256k --no-results
check "planted symlink: exit 1" [ "$RC" -eq 1 ]
check "planted symlink: rank 1 and the path named" grep -q "rank 1 on .*pfsbench.planted.1" "$T/err"
check "planted symlink: the link is untouched and rank 0's file removed" [ "$(ls "$D")" = "pfsbench.planted.1" ]
rm -f "$D/pfsbench.planted.1"

# An I/O failure: a 4 MiB tmpfs in a private mount namespace fills up. Every
# rank stops, rank 0 names the failing rank, host, path, offset and errno.
run_in_tmpfs size=4m 4 -t 64k -b 2m --no-results
check "ENOSPC: exit 1, no hang" [ "$RC" -eq 1 ]
check "ENOSPC: rank, host, path, offset and errno named" \
    grep -qE "pfsbench: error: rank [0-3] on [^ ]+: write .*/pfsbench\.[^ ]+\.[0-3] at offset [0-9]+: No space left on device \(errno 28\)" "$T/err"
check "ENOSPC: every file of the run removed" [ ! -s "$T/left" ]

finish
