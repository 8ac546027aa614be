#!/bin/bash
# IOR's stonewall status file (-O stoneWallingStatusFile=S, pfsbench's
# --stonewall-file): a stonewalled write (-D 1 with a block far too large
# to finish) records in S the transfers each stream reached; a later,
# separate read of the same -b with S reads exactly those (the results
# files' bytes, read back with h5py, equal), where a read without S is
# refused as the files are short. S is IOR's format, so a file IOR wrote
# ("N", no newline) works too. A write never goes over an S already there,
# and a hostile S is refused: exit 2, one message, nothing read or made.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
NP=2
B=16g
XFER=1048576
one_error() { [ "$(grep -c '^pfsbench: error' "$T/err")" -eq 1 ]; }
ior() { run_mpi "$NP" 120 ior "$@"; }

ior -w -k -F -D 1 -t 1m -b $B -O stoneWallingWearOut=1 -O stoneWallingStatusFile="$T/sw" -o "$D/f" -- -o "$T/w.h5"
check "stonewalled write with S: exit 0" [ "$RC" -eq 0 ]
check "S holds one decimal number" grep -qxE '[0-9]+' "$T/sw"
N=$(cat "$T/sw")
check "each file holds S's transfers" [ "$(stat -c %s "$D/f.00000000")" = $((N * XFER)) ]
ior -r -k -F -t 1m -b $B -O stoneWallingStatusFile="$T/sw" -o "$D/f" -- -o "$T/r.h5"
check "read with S: exit 0" [ "$RC" -eq 0 ]
pycheck "read with S: exactly the write's bytes, which stopped early" swfile same_bytes "$T/w.h5" "$T/r.h5" "$T/sw" \
    $XFER $((16 << 30)) $NP

ior -r -k -F -t 1m -b $B -o "$D/f" -- --no-results
check "read without S of the short files: exit 2" [ "$RC" -eq 2 ]
check "read without S: one message naming the sizes" sh -c "grep -q 'holds $((N * XFER)) bytes' '$T/err'"

# IOR's own format: "%lld", no newline; fewer than the files hold.
printf 3 >"$T/ior_sw"
ior -r -k -F -t 1m -b $B -O stoneWallingStatusFile="$T/ior_sw" -o "$D/f" -- -o "$T/r3.h5"
check "read with IOR's S (3, no newline): exit 0" [ "$RC" -eq 0 ]
pycheck "read with IOR's S: 3 transfers per stream" swfile read_bytes "$T/r3.h5" $((3 * XFER * NP))

# A write never goes over an S already there: refused before any file is made.
ior -w -k -F -D 1 -t 1m -b 4m -O stoneWallingStatusFile="$T/sw" -o "$D/g" -- --no-results
check "write with an S already there: exit 2, one message" sh -c "[ $RC -eq 2 ] && grep -q 'already there' '$T/err'"
check "write with an S already there: S unchanged, no data file" sh -c "[ \"\$(cat '$T/sw')\" = '$N' ] && [ ! -e '$D/g.00000000' ]"
check "write with an S already there: one error" one_error

# Hostile status files: refused, exit 2, one message each.
printf '12abc' >"$T/h1"
printf -- '-5' >"$T/h2"
printf '0\n' >"$T/h3"
printf '99999999999999999999999\n' >"$T/h4"
printf '1\0002' >"$T/h5"
head -c 100 /dev/zero | tr '\0' 7 >"$T/h6"
ln -s "$T/sw" "$T/h7"
printf '999999\n' >"$T/h8"
for h in h1 h2 h3 h4 h5 h6 h7 h8; do
    ior -r -k -F -t 1m -b $B -O stoneWallingStatusFile="$T/$h" -o "$D/f" -- --no-results
    check "hostile S $h: exit 2, one message" sh -c "[ $RC -eq 2 ] && grep -q 'stonewall-file' '$T/err'"
    check "hostile S $h: one error" one_error
done
finish
