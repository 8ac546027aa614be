#!/bin/bash
# `pfsbench ior -f SCRIPT` (issue 28): an IOR script of two RUNs, on 2
# ranks, is one job: exit 0, a results file (read with h5py) with two runs
# labelled run1 and run2 and their transfer sizes, the options kept from
# RUN to RUN and the command line's before -f in both, and an IOR-shaped
# report per RUN, in order; a bad script exits 2, naming each bad line
# once, and creates nothing.
. "$(dirname "$0")/lib.sh"

NP=2
D=$T/data
mkdir -p "$D" "$T/run" "$T/refused"

# in_dir DIR CMD...: run CMD with DIR as the working directory (stdout/stderr/RC as run_mpi).
in_dir() {
    local dir=$1
    shift
    RC=0
    (cd "$dir" && timeout 120 mpirun -np "$NP" --oversubscribe --bind-to none "$@") >"$T/out" 2>"$T/err" || RC=$?
}

cat >"$T/two.ior" <<EOF_SCRIPT
# IOR's grammar: nothing before IOR START counts
IOR START
    api=POSIX
    testFile=$D/f
    blockSize=256k, transferSize=64k     # two on a line
    filePerProc=1
    writeFile=1
    readFile=1
    repetitions=2
RUN
    transferSize=256k
RUN
IOR STOP
EOF_SCRIPT
in_dir "$T/run" "$PFSBENCH" ior -e -f "$T/two.ior"
check "ior -e -f two.ior: exit 0 (rc $RC)" test "$RC" -eq 0
check "run1's equivalent: line 10's RUN, 64k, -e from the command line" \
    has "pfsbench: equivalent [run1] ($T/two.ior:10): pfsbench -d $D --file-name $D/f -t 64k -b 256k -F -p write,read -i 2 -e --format ior --label=run1"
check "run2's equivalent: line 12's RUN, transferSize=256k, the rest kept" \
    has "pfsbench: equivalent [run2] ($T/two.ior:12): pfsbench -d $D --file-name $D/f -t 256k -b 256k -F -p write,read -i 2 -e --format ior --label=run2"
check "testFile (line 4) names the files: no note for it" test "$(grep -c "^pfsbench: note: ior $T/two.ior:4: testFile=" "$T/err")" -eq 0
check "one job of two sections" grep -q "pfsbench: job $T/two.ior: 2 of 2 sections completed" "$T/err"
pycheck "the results file: run1 and run2, 64k and 256k transfers, 2 x 256k per phase and repetition" \
    iorscript runs "$T/run/pfsbench-results.h5" "$T/two.ior" 262144 65536 262144
pycheck "stdout: an IOR-shaped report per RUN, in order, with its xfer column" \
    iorscript output "$T/out" 65536 262144
check "the data files are gone (no -k)" test -z "$(ls -A "$D")"

# Refused: every bad line once (blockSize breaks both tests), exit 2, nothing made.
cat >"$T/bad.ior" <<'EOF_SCRIPT'
IOR START
    multiFile=0, useFileView=0
    blockSize=1x
    uniqueDir=1
    noSuchKey=3
RUN
    transferSize=1m
RUN
IOR STOP
EOF_SCRIPT
in_dir "$T/refused" "$PFSBENCH" ior -w -f "$T/bad.ior"
check "a bad script: exit 2 (rc $RC)" test "$RC" -eq 2
check "blockSize=1x: named at line 3, once" test "$(grep -c "^pfsbench: error: ior $T/bad.ior:3: blockSize=1x (IOR's -b): '1x' is not a size" "$T/err")" -eq 1
check "uniqueDir=1: line 4, -u's reason" grep -q "^pfsbench: error: ior $T/bad.ior:4: uniqueDir=1 (IOR's -u): a directory per task" "$T/err"
check "noSuchKey: line 5" grep -q "^pfsbench: error: ior $T/bad.ior:5: noSuchKey: not an IOR script key" "$T/err"
check "multiFile=0, useFileView=0 (IOR's defaults): not refused" not grep -q "bad.ior:2:" "$T/err"
check "three errors in all" test "$(grep -c "^pfsbench: error: " "$T/err")" -eq 3
check "nothing runs, nothing is created" test -z "$(ls -A "$T/refused")$(ls -A "$D")"
finish
