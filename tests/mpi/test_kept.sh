#!/bin/bash
# Kept runs read back (IO500's write-then-read): a kept write (-k) leaves
# DIR/pfsbench.ID.kept, its status, beside its data files (and
# kept_transfers in the results file): what each stream's file holds. A
# later run over it (--run-id ID) with the same -b reads exactly that, after
# a stonewall too, or in pieces of a -t that divides the kept one (a file
# per stream); another -b, fewer or more streams, another -t: refused
# before the start (exit 2, nothing made), naming the kept run's shape and
# what to give. An unknown run id: exit 2, nothing made. --clean knows the
# status file; --clean --run-id (a job's clean section too) removes that
# run's files alone.
. "$(dirname "$0")/lib.sh"
D=$T/data
R=$T/r.h5
mkdir -p "$D"
run_id_of() { sed -n 's/.*read them again with --run-id \([A-Za-z0-9_-]*\)).*/\1/p' "$T/out"; }
bytes_of() { awk -v p="$1" '$1 == p && $2 ~ /^[0-9]+$/ && NF == 10 {print $10}' "$T/out" | head -1; }
# nothing_made: DIR holds exactly what it held before (its listing in $T/before), and no results file.
nothing_made() { [ "$(ls -A "$D")" = "$(cat "$T/before")" ] && [ ! -e "$R" ]; }

# --- a stonewalled write, kept: every stream's file holds the same whole transfers, and the status says how many
S=$(mktemp -d /dev/shm/pfstest.kept.XXXXXX)
run_mpi 2 120 -d "$S" -t 1m -b 8g -D 0.2 -p write --verify -k -o "$R"
check "stonewalled write: exit 0" [ "$RC" -eq 0 ]
id=$(run_id_of)
size=$(stat -c %s "$S/pfsbench.$id.0")
n=$((size / 1048576))
check "stonewalled write: cut short ($n transfers of 1 MiB)" [ "$n" -gt 0 ] && [ "$size" -lt $((8 << 30)) ]
check "the status file, beside the data files" [ -f "$S/pfsbench.$id.kept" ]
check "the status says what each stream holds" grep -qx "transfers $n" "$S/pfsbench.$id.kept"
check "the status says the shape" sh -c "grep -qx 'streams 2' '$S/pfsbench.$id.kept' && grep -qx 'block 8589934592' '$S/pfsbench.$id.kept' && grep -qx 'transfer 1048576' '$S/pfsbench.$id.kept'"
check "the report says it" grep -q "kept data files $S/pfsbench.$id.\*, $n transfers of 1048576 bytes in each stream's file or segment, as pfsbench.$id.kept says (read them again with --run-id $id)" "$T/out"
check "the results file says it" $PY -c "import h5py, sys; f = h5py.File('$R', 'r'); g = f['runs'][sorted(f['runs'])[-1]]; sys.exit(int(g.attrs['kept_transfers']) != $n)"
rm -f "$R"

# --- read back with the same -b: exactly what was written, every byte verified, no short read
run_mpi 2 120 -d "$S" -t 1m -b 8g -p read --verify --run-id "$id" --no-results
check "read with the kept -b: exit 0" [ "$RC" -eq 0 ]
check "read with the kept -b: exactly the bytes written ($((2 * size)))" [ "$(bytes_of read)" = $((2 * size)) ]
# ... and the same with threads: 1 rank x 2 threads is 2 streams, as the kept run's 2 ranks x 1 thread
run_mpi 1 120 -d "$S" -t 1m -b 8g --threads 2 -p read --verify --run-id "$id" --no-results
check "read as 1 rank x 2 threads: the same 2 streams, exit 0" [ "$RC" -eq 0 ]

# --- refused before the start, nothing made: another -b, fewer or more streams, another -t
ls -A "$S" >"$T/before"
refused() {
    local what=$1 msg=$2
    shift 2
    run_refused "$@" -o "$R"
    check "$what: exit 2" [ "$RC" -eq 2 ]
    check "$what: one message naming the kept run and what to give" \
        sh -c "[ \"\$(grep -c 'pfsbench: error' '$T/err')\" -eq 1 ] && grep -qF -- \"$msg\" '$T/err'"
    check "$what: nothing made" sh -c "[ \"\$(ls -A '$S')\" = \"\$(cat '$T/before')\" ] && [ ! -e '$R' ]"
}
shape="run $id kept 2 streams (2 ranks x 1 thread), a file per stream, -t 1m -b 8g: $n transfers ($n MiB) in each stream's file"
refused "another -b" "$shape; give -b 8g (the kept run's) to read exactly what it wrote" 2 60 -d "$S" -t 1m -b 1g -p read --run-id "$id"
refused "fewer streams" "$shape; this run has 1 stream (1 rank x 1 thread): it would read a part of them; run it with 2 streams" 1 60 -d "$S" -t 1m -b 8g -p read --run-id "$id"
refused "more streams" "$shape; this run has 4 streams (4 ranks x 1 thread): it would read files no stream wrote" 4 60 -d "$S" -t 1m -b 8g -p read --run-id "$id"
refused "a larger -t" "$shape; give -t 1m or a -t that divides it" 2 60 -d "$S" -t 2m -b 8g -p read --run-id "$id"
refused "a shared file asked" "$shape; give no --shared" 2 60 -d "$S" -t 1m -b 8g --shared -p read --run-id "$id"
# A -b of exactly what each file holds reads it all too (a file per stream: -b moves no offset).
run_mpi 2 120 -d "$S" -t 1m -b "$size" -p read --verify --run-id "$id" --no-results
check "read with -b = what each holds: exit 0, every byte" [ "$RC" -eq 0 ] && [ "$(bytes_of read)" = $((2 * size)) ]
# A -t that divides the kept one (IO500's rnd4K: 4 KiB reads of 2 MiB writes): the same bytes,
# in a random order, verified.
run_mpi 2 120 -d "$S" -t 4k -b 8g -p read --random --verify --run-id "$id" -o "$R"
check "read in 4 KiB pieces, random: exit 0, every byte" [ "$RC" -eq 0 ] && [ "$(bytes_of read)" = $((2 * size)) ]
rm -f "$R"
rm -rf "$S"

# --- a shared segmented file, kept without a stonewall, read back; the rewrite and seeks over it too
run_mpi 2 60 -d "$D" --shared -t 64k -b 1m -p write -k --verify --no-results
id=$(run_id_of)
check "shared kept: the status" grep -qx "shared 1" "$D/pfsbench.$id.kept"
run_mpi 2 60 -d "$D" --shared -t 64k -b 1m -p read,rewrite,read --verify --run-id "$id" --no-results
check "shared kept: read, rewrite, read back: exit 0" [ "$RC" -eq 0 ]
check "shared kept: every byte read" [ "$(bytes_of read)" = $((2 << 20)) ]
ls -A "$D" >"$T/before"
run_refused 2 60 -d "$D" --shared -t 64k -b 512k -p read --run-id "$id" -o "$R"
check "shared kept, -b 512k: exit 2 (the segments lie at the kept -b)" [ "$RC" -eq 2 ] && grep -qF "one shared file, layout segmented, -t 64k -b 1m: 16 transfers (1 MiB) in each stream's segment; give -b 1m" "$T/err"
check "shared kept, -b 512k: nothing made" nothing_made

# --- --clean --run-id: that run's files alone; a job's section does it (clean, yes, run-id)
run_mpi 1 60 -d "$D" -t 64k -b 256k -p write -k --run-id other --no-results
run_mpi 1 60 -d "$D" --clean --run-id other
check "--clean --run-id other: lists its data file and status" sh -c "grep -q '^leftover $D/pfsbench.other.0 ' '$T/out' && grep -q '^leftover $D/pfsbench.other.kept ' '$T/out'"
check "--clean --run-id other: not the other run's" not grep -q "pfsbench.$id" "$T/out"
printf '[global]\ndir = %s\n[gone]\nclean\nyes\nrun-id = other\n' "$D" >"$T/clean.job"
run_mpi 1 60 -f "$T/clean.job" --no-results
check "a job's clean section: exit 0" [ "$RC" -eq 0 ]
check "a job's clean section: run other's files removed" sh -c "[ ! -e '$D/pfsbench.other.0' ] && [ ! -e '$D/pfsbench.other.kept' ]"
check "a job's clean section: the other run's kept files stay" [ -e "$D/pfsbench.$id.kept" ]
printf '[global]\ndir = %s\n[all]\nclean\nyes\n' "$D" >"$T/clean.job"
run_mpi 1 60 -f "$T/clean.job" --no-results
check "a job's clean section without run-id: exit 2, named" [ "$RC" -eq 2 ] && grep -q "section \[all\]: clean without run-id" "$T/err"
check "a job's clean section without run-id: nothing removed" [ -e "$D/pfsbench.$id.kept" ]

# --- --clean lists the status with the data files, and --yes removes it
run_mpi 1 60 -d "$D" --clean
check "--clean lists the status" grep -q "^leftover $D/pfsbench.$id.kept " "$T/out"
run_mpi 1 60 -d "$D" --clean --yes
check "--clean --yes removes it" [ -z "$(ls -A "$D")" ]

# --- an unknown run id: exit 2, nothing made; data files without a status: exit 2, named
: >"$T/before"
run_refused 2 60 -d "$D" -t 64k -b 1m -p read --run-id nosuchrun -o "$R"
check "unknown run id: exit 2" [ "$RC" -eq 2 ]
check "unknown run id: one message" grep -qF "error: --run-id nosuchrun: no run kept data files in $D (there is no $D/pfsbench.nosuchrun.kept); a run keeps them with -k" "$T/err"
check "unknown run id: nothing made" nothing_made
run_refused 2 60 -d "$D" -p stat --run-id nosuchrun -n 10 -o "$R"
check "unknown run id, metadata: exit 2, nothing made" [ "$RC" -eq 2 ] && nothing_made
check "unknown run id, metadata: named" grep -qF "error: --run-id nosuchrun: no run kept metadata in $D" "$T/err"
run_mpi 2 60 -d "$D" -t 64k -b 1m -p write -k --run-id nostatus --no-results
rm -f "$D/pfsbench.nostatus.kept"
ls -A "$D" >"$T/before"
run_refused 2 60 -d "$D" -t 64k -b 1m -p read --run-id nostatus -o "$R"
check "data files without their status: exit 2, nothing made" [ "$RC" -eq 2 ] && nothing_made
check "data files without their status: named" grep -qF "error: --run-id nostatus: $D/pfsbench.nostatus.0 is there but not $D/pfsbench.nostatus.kept" "$T/err"
rm -f "$D"/pfsbench.*

# --- a run that failed keeps no status: its files' contents are not known
run_in_tmpfs size=4m 2 -t 64k -b 4m -p write -k --no-results
check "a failed kept write: exit 1" [ "$RC" -eq 1 ]
check "a failed kept write: no status" not grep -q "\.kept$" "$T/left"
finish
