#!/bin/bash
# Issue 18: the native command line's traps for IOR, mdtest and IOzone users,
# on real ranks. A letter means what IOR means or is refused naming
# pfsbench's equivalent (exit 2, one message from rank 0, nothing created);
# options that do nothing in the chosen phases, tiny transfers and hours of
# transfers are warned of on stderr and in the results file's warnings.
. "$(dirname "$0")/lib.sh"
D=$T/data
R=$T/results.h5
mkdir -p "$D" "$T/cwd"
cd "$T/cwd" || exit 1

# nothing_made WHAT: no file in DIR, no results file, no testfile beside it
nothing_made() {
    check "$1: nothing created in DIR" [ -z "$(ls -A "$D")" ]
    check "$1: no results file" [ ! -e "$R" ]
    check "$1: no file in the working directory" [ -z "$(ls -A "$T/cwd")" ]
    check "$1: no testfile" [ ! -e "$T/testfile" ]
}
one_message() {
    check "$1: one message from rank 0" [ "$(grep -c 'pfsbench: error' "$T/err")" -eq 1 ]
}

# ---- -o names the results file: IOR's test file path is refused ----------
run_refused 2 60 -d "$D" -t 64k -b 256k -o "$T/testfile"
check "-o testfile: exit 2" [ "$RC" -eq 2 ]
check "-o testfile: says -o is the HDF5 results file and IOR's -o is --file-name" \
    grep -qF -- "-o names pfsbench's HDF5 results file; IOR's -o test file path is --file-name PATH here (or pfsbench ior -o PATH); give a name ending in .h5" "$T/err"
check "-o testfile: no file named testfile" [ ! -e "$T/testfile" ]
one_message "-o testfile"
nothing_made "-o testfile"
run_mpi 2 60 -d "$D" -t 64k -b 256k -o "$T/r.hdf5" -q
check "-o r.hdf5: exit 0" [ "$RC" -eq 0 ]
check "-o r.hdf5: the results file is made" [ -s "$T/r.hdf5" ]
rm -f "$T/r.hdf5"

# ---- -c is IOR's collective --------------------------------------------
run_refused 2 60 -d "$D" -t 64k -b 256k -c --no-results
check "-c with posix: exit 2" [ "$RC" -eq 2 ]
check "-c with posix: --collective needs --api mpiio" grep -q -- "--collective needs --api mpiio" "$T/err"
check "-c with posix: says -c is IOR's --collective" grep -qF -- "-c is IOR's --collective" "$T/err"
one_message "-c with posix"
check "-c with posix: nothing created" [ -z "$(ls -A "$D")" ]
run_mpi 2 60 -d "$D" -a mpiio --shared -c -t 64k -b 256k -o "$R" -q
check "-a mpiio --shared -c: exit 0" [ "$RC" -eq 0 ]
pycheck "-a mpiio -c: the run is collective" traps collective "$R"
rm -f "$R"
run_mpi 2 60 -d "$D" -t 64k -b 256k --include-close --no-results -q
check "--include-close (long only): exit 0" [ "$RC" -eq 0 ]

# ---- -T is IOR's time limit: refused; --threads are threads ---------------
run_refused 2 60 -d "$D" -t 64k -b 256k -T 10 -o "$R"
check "-T 10: exit 2" [ "$RC" -eq 2 ]
check "-T 10: names -D and --threads" \
    grep -qF "IOR's -T is a time limit in minutes (pfsbench: -D SECS, the stonewall); threads per rank are --threads N" "$T/err"
check "-T 10: no 'unexpected argument' for its value" not grep -q "unexpected argument" "$T/err"
one_message "-T 10"
nothing_made "-T 10"
run_mpi 1 60 -d "$D" -t 64k -b 256k --threads 2 --no-results -q
check "--threads 2: exit 0" [ "$RC" -eq 0 ]

# ---- -a POSIX / -a MPIIO: any case --------------------------------------
for api in POSIX MPIIO Posix; do
    run_mpi 2 60 -d "$D" -a $api -t 64k -b 256k --no-results -q
    check "-a $api: exit 0" [ "$RC" -eq 0 ]
done

# ---- every unknown option at once, with IOR's, mdtest's and IOzone's meanings
run_refused 2 60 -d "$D" -w -r -W -R -z -s 4 -Y -g -Q 1 -E -O stoneWallingWearOut=1 -N 4 -u --treads 2 -o "$R"
check "IOR letters: exit 2" [ "$RC" -eq 2 ]
one_message "IOR letters"
check "IOR letters: says how many" grep -q "14 problems with the options" "$T/err"
while IFS='|' read -r opt want; do
    check "IOR letters: $opt: $want" grep -qF -- "  unknown option '$opt': $want" "$T/err"
done <<'EOF'
-w|IOR's write phase: use -p write (or pfsbench ior ... for IOR's command line)
-r|IOR's read phase: use -p read
-W|IOR's check write: --verify
-R|IOR's check read: --verify
-z|IOR's random offsets: --random
-s|IOR's segment count: --segments N, with -b N x IOR's -b
-Y|IOR's fsync per write: --fsync-every 1 (-e is fsync at close)
-g|IOR's intra-test barriers: always on in pfsbench
-Q|IOR's task per node offset: -C reads another node's data
-E|IOR's use existing file: -p read --file-name PATH
-O|IOR's -O options: see pfsbench ior
-N|mdtest/IOR task count: mpirun -np
-u|mdtest's unique dir per task: --dirs per-rank
--treads|did you mean --threads?
EOF

check "IOR letters: one line each, under the one header" [ "$(grep -c "^  unknown option '" "$T/err")" -eq 14 ]
nothing_made "IOR letters"

# ---- a flood of unknown letters: a repeat is told once, at most 16 lines ----
run_mpi 1 60 -d "$D" -wwwKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKwwwwwwel1 -ABFGHJLMPSUVXZ --no-results
check "flood: exit 2" [ "$RC" -eq 2 ]
one_message "flood"
check "flood: '-K' told once" [ "$(grep -c "unknown option '-K'" "$T/err")" -eq 1 ]
check "flood: at most 16 problem lines and a count of the rest" \
    sh -c '[ "$(grep -c "^  unknown option" "$1")" -le 16 ] && grep -qE "^  and [0-9]+ more$" "$1"' sh "$T/err"
check "flood: no empty line in the message" not sh -c "sed -n '/^pfsbench: error/,/^---/p' '$T/err' | grep -q '^\$'"

# ---- warnings: on stderr from rank 0 and in the results file ---------------
# IOzone's -t 4 is a 4-byte transfer here; -n without a metadata phase;
# --verify and --drop-caches without a read; -C without a reading phase.
run_mpi 2 120 -d "$D" -t 4 -b 4k -p write -n 1000 --verify --drop-caches -C -o "$R" -q
check "warnings: exit 0" [ "$RC" -eq 0 ]
W1="-t 4 is a transfer of 4 bytes per I/O call; IOzone's -t (a thread count) is --threads N"
W2="-n/--files does nothing without a metadata phase"
W3="--verify without a read phase in -p checks nothing: the writes write its checkable pattern anyway"
W4="--drop-caches does nothing without a read phase"
W5="-C/--reorder does nothing without a phase that reads"
for w in "$W1" "$W2" "$W3" "$W4" "$W5"; do
    check "warning on stderr: $w" grep -qF -- "pfsbench: warning: $w" "$T/err"
    check "warning said once (rank 0): $w" [ "$(grep -cF -- "$w" "$T/err")" -eq 1 ]
done
pycheck "warnings: in the results file's warnings attribute" traps warnings "$R" "$W1" "$W2" "$W3" "$W4" "$W5"
rm -f "$R"
run_mpi 2 60 -d "$D" -p mkdir,stat-dirs,rmdir --depth 2 --branch 2 -D 5 -o "$R" -q
check "-D with directory phases only: exit 0" [ "$RC" -eq 0 ]
check "-D with directory phases only: warned" grep -qF "pfsbench: warning: -D/--deadline does nothing without a phase it stops in -p" "$T/err"
pycheck "-D with directory phases only: stored" traps deadline "$R"
rm -f "$R"
# hours of transfers: --api null moves nothing; -D stops it at once
run_mpi 1 60 -d "$D" -a null -t 1k -b 1t -p write -D 0.2 --no-results -q
check "1e9 transfers: exit 0" [ "$RC" -eq 0 ]
check "1e9 transfers: warned of hours" grep -qF "pfsbench: warning: 1073741824 transfers per stream (-b 1 TiB / -t 1 KiB) will take hours" "$T/err"
# a plain run warns of none of these
run_mpi 2 60 -d "$D" -t 64k -b 256k -p write,read,create,stat,delete -n 10 --verify -C -D 5 --no-results -q
check "plain run: exit 0" [ "$RC" -eq 0 ]
check "plain run: no parser warning" not grep -qE "does nothing|checks nothing|will take hours|IOzone's -t" "$T/err"
finish
