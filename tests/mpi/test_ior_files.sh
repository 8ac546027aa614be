#!/bin/bash
# IOR's file paths honoured (issue 28): `pfsbench ior -o PATH` writes PATH
# (-F: PATH.00000000, PATH.00000001), and a later, separate `ior -r -o PATH`
# (IOR's and IO500's write-then-read in two jobs) reads it with no --run-id,
# as it reads a file IOR itself wrote (here one dd wrote). A read-only run
# leaves the files exactly as they were (size, mtime, bytes), with or
# without -k. A write over a file there is refused before anything is
# made: exit 2, one message saying why and what to do, the file
# byte-identical. A read of a file missing or too short: exit 2 naming the
# path and the sizes. Without -k a write's files go at the end, as
# pfsbench's own names do.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
NP=2
# snap FILE...: size, mtime (ns) and bytes' digest of each, for "left untouched".
snap() { stat -c '%n %s %.9Y' "$@" && sha256sum "$@"; }
# one_error: rank 0's one message, and no other rank's.
one_error() { [ "$(grep -c '^pfsbench: error' "$T/err")" -eq 1 ]; }
# only_names NAME...: DIR holds these names and pfsbench's kept-status files, nothing else.
only_names() { [ "$(ls -A "$D" | grep -v '^pfsbench\.[A-Za-z0-9_-]*\.kept$' | tr '\n' ' ')" = "$* " ]; }
ior() { run_mpi "$NP" 120 ior "$@"; }

# ---- a shared file: written with -k (POSIX), read back in a separate run (MPIIO), then without -k
ior -a POSIX -w -k -e -t 64k -b 1m -o "$D/f" -- --no-results
check "ior -w -k -o DIR/f: exit 0" [ "$RC" -eq 0 ]
check "ior -w -k -o DIR/f: IOR's 'Max Write:' line" grep -q "^Max Write: " "$T/out"
check "ior -w -k -o DIR/f: the file is DIR/f, 2 x 1 MiB" [ "$(stat -c %s "$D/f")" = $((2 << 20)) ]
check "ior -w -k -o DIR/f: no other data file" only_names f
check "ior -w -k -o DIR/f: the kept line names DIR/f and how to read it" grep -qF "kept data files $D/f, 16 transfers of 65536 bytes in each stream's file or segment (read them again with -p read --file-name $D/f)" "$T/out" "$T/err"
snap "$D/f" >"$T/f.before"
ior -a MPIIO -r -k -t 64k -b 1m -o "$D/f" -- -o "$T/r1.h5"
check "ior -r -k -o DIR/f (MPIIO, another job): exit 0, no --run-id" [ "$RC" -eq 0 ]
check "ior -r -k -o DIR/f: IOR's 'Max Read:' line" grep -q "^Max Read: " "$T/out"
pycheck "ior -r -o DIR/f: one read phase of every byte (2 MiB)" ior_files read_only "$T/r1.h5" $((2 << 20)) 1
check "ior -r -k -o DIR/f: the file untouched (size, mtime, bytes)" diff "$T/f.before" <(snap "$D/f")
ior -r -i 2 -C -t 256k -b 512k -o "$D/f" -- --no-results
check "ior -r -i 2 -C -o DIR/f without -k: exit 0" [ "$RC" -eq 0 ]
check "ior -r without -k: the note says pfsbench never removes it" grep -qF "ior -o: $D/f: IOR would remove it after reading (no -k); pfsbench never removes a file it did not create" "$T/err"
check "ior -r without -k: the file is still there, untouched" diff "$T/f.before" <(snap "$D/f")

# ---- a file per process: IOR's PATH.00000000 naming (MPIIO write, -i 2), read back with POSIX and -C
ior -a MPIIO -w -k -F -i 2 -t 64k -b 256k -o "$D/g" -- --no-results
check "ior -w -k -F -o DIR/g: exit 0" [ "$RC" -eq 0 ]
check "ior -w -k -F: DIR/g.00000000 and DIR/g.00000001, 256 KiB each, no DIR/g" \
    sh -c "[ \$(stat -c %s '$D/g.00000000') = 262144 ] && [ \$(stat -c %s '$D/g.00000001') = 262144 ] && [ ! -e '$D/g' ]"
check "ior -w -k -F: no other data file" only_names f g.00000000 g.00000001
snap "$D/g.00000000" "$D/g.00000001" >"$T/g.before"
ior -a POSIX -r -F -C -i 2 -t 64k -b 256k -o "$D/g" -- -o "$T/r2.h5"
check "ior -r -F -C -o DIR/g: exit 0" [ "$RC" -eq 0 ]
check "ior -r -F -C: 'Max Read:'" grep -q "^Max Read: " "$T/out"
pycheck "ior -r -F -i 2: each repetition read both files (2 x 256 KiB)" ior_files read_only "$T/r2.h5" $((2 << 18)) 2
check "ior -r -F: both files untouched" diff "$T/g.before" <(snap "$D/g.00000000" "$D/g.00000001")

# ---- IOR's own files (written here by dd): read, never changed
# -W writes --verify's pattern, a later job's -R checks it: the pattern follows the files' name
ior -w -W -k -F -t 64k -b 256k -o "$D/v" -- --no-results
check "ior -w -W -k -F -o DIR/v: exit 0" [ "$RC" -eq 0 ]
ior -r -R -F -t 64k -b 256k -o "$D/v" -- --no-results
check "ior -r -R -F -o DIR/v in another job: exit 0, every byte checked (rc $RC)" [ "$RC" -eq 0 ]
check "ior -r -R: no mismatch reported" hasnt "mismatch"
ior -r -R -F -t 64k -b 256k -o "$D/g" -- --no-results
check "ior -r -R over files written without -W: exit 1, the mismatch named" \
    sh -c "[ $RC -eq 1 ] && grep -q 'g.0000000[01]' '$T/err'"
rm -f "$D"/v.0000000[01]

dd if=/dev/urandom of="$D/ior.dat" bs=64k count=40 status=none
dd if=/dev/urandom of="$D/iorF.00000000" bs=64k count=8 status=none
dd if=/dev/urandom of="$D/iorF.00000001" bs=64k count=8 status=none
snap "$D/ior.dat" "$D/iorF.00000000" "$D/iorF.00000001" >"$T/ior.before"
ior -r -E -t 64k -b 1m -o "$D/ior.dat" -- -o "$T/r3.h5"
check "ior -r -E -o (a file IOR wrote): exit 0" [ "$RC" -eq 0 ]
pycheck "ior -r -E: read 2 MiB of its 2.5 MiB" ior_files read_only "$T/r3.h5" $((2 << 20)) 1
ior -r -E -F -e -t 64k -b 512k -o "$D/iorF" -- --no-results
check "ior -r -E -F -o (IOR's -F files): exit 0" [ "$RC" -eq 0 ]
check "IOR's files: untouched" diff "$T/ior.before" <(snap "$D/ior.dat" "$D/iorF.00000000" "$D/iorF.00000001")

# ---- -m (multiFile): a file set per repetition, IOR's PATH.REP and PATH.00000000.REP
ior -w -k -m -i 2 -t 64k -b 256k -o "$D/mf" -- --no-results
check "ior -w -k -m -i 2 -o DIR/mf: exit 0, DIR/mf.0 and DIR/mf.1 of 512 KiB, no DIR/mf" \
    sh -c "[ $RC -eq 0 ] && [ \$(stat -c %s '$D/mf.0') = 524288 ] && [ \$(stat -c %s '$D/mf.1') = 524288 ] && [ ! -e '$D/mf' ]"
ior -w -k -m -F -i 2 -t 64k -b 256k -o "$D/mg" -- --no-results
check "ior -w -k -m -F -i 2: exit 0, DIR/mg.0000000[01].[01]" \
    sh -c "[ $RC -eq 0 ] && [ \"\$(cd '$D' && ls -d mg*)\" = \"\$(printf 'mg.00000000.0\nmg.00000000.1\nmg.00000001.0\nmg.00000001.1')\" ]"
snap "$D"/mf.* "$D"/mg.* >"$T/m.before"
ior -r -m -F -C -i 2 -t 64k -b 256k -o "$D/mg" -- -o "$T/r4.h5"
check "ior -r -m -F -C -i 2: exit 0" [ "$RC" -eq 0 ]
pycheck "ior -r -m -F -i 2: each repetition read its own files (2 x 256 KiB)" ior_files read_only "$T/r4.h5" $((2 << 18)) 2
ior -r -m -i 2 -t 64k -b 256k -o "$D/mf" -- --no-results
check "ior -r -m -i 2 -o DIR/mf: exit 0" [ "$RC" -eq 0 ]
check "ior -r -m: the files untouched" diff "$T/m.before" <(snap "$D"/mf.* "$D"/mg.*)
ior -w -r -m -F -i 2 -t 64k -b 256k -o "$D/mh" -- --no-results
check "ior -w -r -m -F -i 2 without -k: exit 0, every repetition's files gone" sh -c "[ $RC -eq 0 ] && ! ls '$D' | grep -q '^mh'"
ior -r -m -i 3 -t 64k -b 256k -o "$D/mf" -- --no-results
check "ior -r -m -i 3 over 2 kept repetitions: exit 2 naming DIR/mf.2" \
    sh -c "[ $RC -eq 2 ] && grep -qF -- '--file-name: $D/mf.2: No such file or directory' '$T/err'"

# ---- refusals: exit 2, one message, nothing made, the files byte-identical
ls -A "$D" >"$T/listing"
snap "$D/f" "$D/g.00000000" "$D/g.00000001" >"$T/all.before"
# refused WHAT MESSAGE ior|native ARGS...: a run of `pfsbench ior ARGS` or `pfsbench ARGS`.
refused() {
    local what=$1 msg=$2 kind=$3
    shift 3
    if [ "$kind" = ior ]; then ior "$@" -- -o "$T/no.h5"; else run_mpi "$NP" 120 "$@" -o "$T/no.h5"; fi
    check "$what: exit 2" [ "$RC" -eq 2 ]
    check "$what: one message from rank 0" one_error
    check "$what: it says: $msg" grep -qF -- "$msg" "$T/err"
    check "$what: nothing made, nothing changed" sh -c "[ \"\$(ls -A '$D')\" = \"\$(cat '$T/listing')\" ] && [ ! -e '$T/no.h5' ]"
}
why="pfsbench never writes over a file it did not create; remove it first, or, for a Lustre layout, set the directory's default layout (lfs setstripe -c N $D), which the new files inherit (as IO500 does)"
refused "ior -w -o over DIR/f" "$D/f is already there: $why" ior -w -t 64k -b 1m -o "$D/f"
refused "ior -w -F -o over DIR/g.*" "$D/g.00000000 is already there (and 1 more of this run's names): $why" ior -w -F -t 64k -b 256k -o "$D/g"
refused "ior -w -E" "ior -E: writes into an existing file: pfsbench never writes over a file it did not create" ior -w -E -o "$D/f"
refused "ior -r of a file too short" "--file-name: $D/g.00000000 holds 262144 bytes; this run reads 1048576 bytes of it" ior -r -F -t 64k -b 1m -o "$D/g"
refused "ior -r of a missing file" "--file-name: $D/nope: No such file or directory" ior -r -o "$D/nope"
refused "a rewrite of files there" "--file-name: rewrite before any write would write into files this run did not create" native -p rewrite -t 64k -b 1m --file-name "$D/f" --shared
refused "a sweep keeping one --file-name" "--ranks with -k and --file-name $D/s: every point would keep its files under that one name" native --ranks 1,2 -k --file-name "$D/s" -t 64k -b 256k
# -m's names grow with the repetition: the 11th's (REP 10) is one character
# past NAME_MAX (255) where the first ten fit. Refused before anything is
# made, not found by the create after ten repetitions of writes.
long=$(printf '%0244d' 0)
refused "-m names past NAME_MAX" "--file-name $D/$long: this run cannot make $D/$long.00000000.10: File name too long" native -p write --file-per-rep -i 11 -t 4k -b 16k --file-name "$D/$long"
# -m's repetition after a PATH of pfsbench's own form makes pfsbench.ID.REP
# (-F: pfsbench.00000000.REP, run 00000000's stream REP), names --clean
# removes as a dead run's leftovers, from under a live run too.
owns="would have a name pfsbench gives its own files, which pfsbench --clean removes; choose another name"
refused "-m --shared named pfsbench.x" "--file-name $D/pfsbench.x: the data file $D/pfsbench.x.0 $owns" native -p write --shared --file-per-rep -i 2 -t 4k -b 16k --file-name "$D/pfsbench.x"
refused "ior -m -F -o DIR/pfsbench" "--file-name $D/pfsbench: the data file $D/pfsbench.00000000.0 $owns" ior -w -m -F -t 4k -b 16k -o "$D/pfsbench"
# -o naming a data file: a read-only run would append its results to the
# file it reads (here a pfsbench results file, as h5 files IOR wrote can
# be); a -k write would run to the end and fail making its results.
cp "$T/r1.h5" "$T/res.h5"
snap "$T/res.h5" >"$T/res.before"
run_refused "$NP" 120 -p read --shared -t 4k -b 4k --file-name "$T/res.h5" -o "$T/res.h5"
check "-o the data file of a read: exit 2, one message" sh -c "[ $RC -eq 2 ] && [ \"\$(grep -c '^pfsbench: error' '$T/err')\" -eq 1 ]"
check "-o the data file of a read: it says so" grep -qF -- "--file-name $T/res.h5: the data file $T/res.h5 is the results file (-o $T/res.h5)" "$T/err"
check "-o the data file of a read: the file untouched" diff "$T/res.before" <(snap "$T/res.h5")
run_refused "$NP" 120 -p write -k --shared -t 4k -b 4k --file-name "$D/w.h5" -o "$D//w.h5"
check "-o the data file of a -k write: exit 2, nothing made" sh -c "[ $RC -eq 2 ] && [ \"\$(ls -A '$D')\" = \"\$(cat '$T/listing')\" ]"
check "-o the data file of a -k write: it says so" grep -qF -- "the data file $D/w.h5 is the results file (-o $D//w.h5)" "$T/err"
check "after the refusals: every file byte-identical" diff "$T/all.before" <(snap "$D/f" "$D/g.00000000" "$D/g.00000001")

# ---- native --file-name without -k: the run's files go at the end, as pfsbench's own names do
run_mpi "$NP" 120 -p write,read -F -t 64k -b 256k --file-name "$D/n" --no-results
check "--file-name DIR/n -F without -k: exit 0" [ "$RC" -eq 0 ]
check "--file-name without -k: DIR/n.* removed, the others left" sh -c "[ \"\$(ls -A '$D')\" = \"\$(cat '$T/listing')\" ]"
# Metadata phases alone: no data file to look for or make, a warning says --file-name does nothing.
run_mpi 1 120 -p create,delete -n 3 --file-name "$D/m" --no-results
check "--file-name with metadata phases only: exit 0, the warning" \
    sh -c "[ $RC -eq 0 ] && grep -qF 'warning: --file-name does nothing without a data phase' '$T/err'"
check "no run left a lock behind" not sh -c "ls -A '$D' | grep -q '\\.lock\$'"
finish
