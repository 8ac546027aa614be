#!/bin/bash
# `pfsbench ior|mdtest|iozone ARGS` (issue 18): their usual lines at 2 ranks
# (printing IOR's and mdtest's own output shapes, issue 28)
# with small sizes print "pfsbench: equivalent: ..." and run; the printed
# line, pasted, run natively, gives a results file with the same config, the
# same phases and the same bytes and operations per phase and repetition
# (read with h5py); a refused option exits 2, names every bad option, and
# creates nothing.
. "$(dirname "$0")/lib.sh"

NP=2
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
D=$T/data
mkdir -p "$D"

# in_dir DIR CMD...: run CMD with DIR as the working directory (stdout/stderr/RC as run_mpi).
in_dir() {
    local dir=$1
    shift
    mkdir -p "$dir"
    RC=0
    (cd "$dir" && timeout 120 mpirun -np "$NP" --oversubscribe --bind-to none "$@") >"$T/out" 2>"$T/err" || RC=$?
}

# pyfile WHAT SCRIPT ARGS...: a check script of tests/mpi passes.
pyfile() {
    local what=$1 script=$2
    shift 2
    if "$PY" "$SRC/tests/mpi/$script" "$@" >"$T/py" 2>&1; then ok "$what: $(tail -1 "$T/py")"; else bad "$what"; cat "$T/py"; fi
}

# compare NAME EXPECT...: the results files of $T/NAME/fe and $T/NAME/native hold one run each with
# the same config, phases, bytes and ops; EXPECT: phase=bytes or phase=ops (metadata) per phase.
compare() {
    local name=$1
    shift
    pycheck "$name: the equivalent run natively moves the same bytes and ops per phase" \
        frontends same "$T/$name/fe/pfsbench-results.h5" "$T/$name/native/pfsbench-results.h5" "$@"
}

# case_run NAME EXPECTED_NATIVE_RE TOOL ARGS...: run the tool's line (its stdout and stderr kept in
# $T/NAME/fe.out, fe.err), then its printed equivalent natively (the native run's report on stdout).
case_run() {
    local name=$1 want=$2
    shift 2
    in_dir "$T/$name/fe" "$PFSBENCH" "$@"
    cp "$T/out" "$T/$name/fe.out"
    cp "$T/err" "$T/$name/fe.err"
    local line
    line=$(sed -n 's/^pfsbench: equivalent: //p' "$T/out" "$T/err") # on stderr with --format json|csv
    if [ "$RC" -ne 0 ] || [ -z "$line" ]; then
        bad "$name: pfsbench $* runs and prints its equivalent (rc $RC)"
        return
    fi
    ok "$name: runs and prints: $line"
    if [[ "$line" =~ $want ]]; then ok "$name: the equivalent is $want"; else bad "$name: equivalent '$line' !~ $want"; fi
    eval "set -- $line"
    shift
    # The tool's -k files (ior -o PATH: --file-name PATH): the native run makes them anew, and refuses them there.
    local fn
    fn=$(sed -n 's/.* --file-name \([^ ]*\).*/\1/p' <<<"$line")
    [ -z "$fn" ] || rm -f -- "$fn" "$fn".[0-9]*
    in_dir "$T/$name/native" "$PFSBENCH" "$@"
    if [ "$RC" -eq 0 ] && hasnt "pfsbench: equivalent:"; then ok "$name: the equivalent runs natively"; else bad "$name: native rc $RC"; fi
}

# ---- IOR: IO500's ior-easy and ior-hard, small; -W with segments and repetitions
mkdir -p "$D/ior-easy" "$D/ior-hard" "$D/ior-w"
case_run ior-easy "^pfsbench -d $D/ior-easy --file-name $D/ior-easy/file -t 1m -b 4m -F -p write,read -e -k -C -D 300 --format ior\$" \
    ior -w -r -C -Q 1 -g -G 1234 -k -e -t 1m -b 4m -F -o "$D/ior-easy/file" -O stoneWallingWearOut=1 -D 300
compare ior-easy write=$((2 * 4 << 20)) read=$((2 * 4 << 20))
# (-O stoneWallingStatusFile, --stonewall-file: test_swfile.sh)
check "ior-easy: the note names -G (-o is --file-name: no note)" \
    test "$(grep -c "^pfsbench: note: ior -[GoO]: " "$T/ior-easy/fe.err")" -eq 1

case_run ior-hard "--shared --layout strided" \
    ior -w -r -C -Q 1 -g -G 27 -k -e -t 47008 -b 47008 -s 20 -o "$D/ior-hard/file" -O stoneWallingWearOut=1 -D 300
compare ior-hard write=$((2 * 20 * 47008)) read=$((2 * 20 * 47008))

case_run ior-check "-p write,read -i 2 --verify" ior -a POSIX -w -W -F -s 4 -b 64k -t 16k -i 2 -o "$D/ior-w/f"
compare ior-check write=$((2 * 4 * 65536)) read=$((2 * 4 * 65536))

# -Y (fsync after every write) is --fsync-every 1: one fsync per transfer, beside -e's at close
mkdir -p "$D/ior-y"
case_run ior-fsync "^pfsbench -d $D/ior-y --file-name $D/ior-y/f -t 64k -b 256k -F -p write -e --fsync-every 1 -v --format text\$" \
    ior -w -e -Y -F -b 256k -t 64k -o "$D/ior-y/f" -v -- --format text
compare ior-fsync write=$((2 * 4 * 65536))
check "ior -Y -v: 4 fsyncs per rank and -e's 1, timed (the report's fsync row: 2 x 5)" \
    test "$(awk '$1 == "write" && $3 == "fsync" && NF == 12 {print $4}' "$T/ior-fsync/fe.out")" = 10

# ---- mdtest: the default phases, and mdtest-hard's shape (3,901-byte files, -N 1, repeated)
mkdir -p "$D/md" "$D/md-hard"
case_run mdtest-all "^pfsbench -d $D/md -p create,stat,read-files,delete -n 40 --format mdtest\$" mdtest -F -n 40 -d "$D/md"
compare mdtest-all create=80 stat=80 read-files=80 delete=80
case_run mdtest-hard "--file-size 3901 --dirs per-rank -C -i 2 --rep-delay 1 --format mdtest\$" \
    mdtest -n 30 -u -w 3901 -e 3901 -P -N 1 -F -i 2 -p 1 -d "$D/md-hard"
compare mdtest-hard create=60 stat=60 read-files=60 delete=60
pyfile "mdtest -p 1 -i 2: a second or more between the iterations" check_rep_delay.py "$T/mdtest-hard/fe/pfsbench-results.h5" 1 2
# ---- mdtest's phases in separate runs over one tree, as IO500 runs them: -C without -r keeps the
# tree in -d (pfsbench.mdtest.md), -T and -E work on it, -r removes it
mkdir -p "$D/md-seq"
for ph in -C -T -E -r; do
    in_dir "$T/md-seq$ph" "$PFSBENCH" mdtest "$ph" -F -n 20 -w 100 -e 100 -d "$D/md-seq"
    [ "$ph" != -C ] || check "mdtest -C: keeps its tree under one name in -d, and says so" \
        grep -q "pfsbench keeps its own as $D/md-seq/pfsbench.mdtest.md" "$T/err"
    check "mdtest $ph -F -n 20 -d md-seq: exit 0 (rc $RC), its SUMMARY rate table" \
        test "$RC" -eq 0 -a -n "$(grep '^SUMMARY rate:' "$T/out")"
    want=40
    [ "$ph" = -r ] && want=0
    check "mdtest $ph: $want files of 100 bytes in md-seq's tree after it" \
        test "$(find "$D/md-seq" -path "*/pfsbench.mdtest.md/*" -type f -size 100c | wc -l)" -eq "$want" \
        -a "$(find "$D/md-seq" -path "*/pfsbench.mdtest.md/*" -type f | wc -l)" -eq "$want"
done
check "mdtest -r: nothing left in md-seq" test -z "$(ls -A "$D/md-seq")"
# ---- mdtest's tree: -z 2 -b 2 -I 2 (2 files in each of the 7 directories of a rank's tree), and -D (its 6 directories alone)
mkdir -p "$D/md-tree" "$D/md-dirs"
case_run mdtest-tree "^pfsbench -d $D/md-tree -p mkdir,create,stat,read-files,delete,rmdir -n 14 --depth 2 --branch 2 --dirs per-rank --format mdtest\$" \
    mdtest -F -u -z 2 -b 2 -I 2 -d "$D/md-tree"
compare mdtest-tree mkdir=12 create=28 stat=28 read-files=28 delete=28 rmdir=12
case_run mdtest-dirs "^pfsbench -d $D/md-dirs -p mkdir,stat-dirs,rmdir --depth 2 --branch 2 --dirs per-rank --format mdtest\$" \
    mdtest -D -u -z 2 -b 2 -d "$D/md-dirs"
compare mdtest-dirs mkdir=12 stat-dirs=12 rmdir=12
check "mdtest trees: nothing left" test -z "$(ls -A "$D/md-tree")$(ls -A "$D/md-dirs")"
# ---- mdtest's -n rounded as mdtest does (10 over 1 + 3 directories: 2 each, 8); no -n: mdtest's 0, the tree alone;
# -D -I 5 at -z 0: each rank's 5 directories
mkdir -p "$D/md-round" "$D/md-default" "$D/md-ditems"
case_run mdtest-round "^pfsbench -d $D/md-round -p mkdir,create,stat,read-files,delete,rmdir -n 8 --depth 1 --branch 3 --dirs per-rank --format mdtest\$" \
    mdtest -F -u -z 1 -b 3 -n 10 -d "$D/md-round"
compare mdtest-round mkdir=6 create=16 stat=16 read-files=16 delete=16 rmdir=6
check "mdtest -n 10 -z 1 -b 3: the note says 10 / 4 = 2 in each, 8" \
    grep -q "^pfsbench: note: mdtest -n: 10 over the 4 directories .* = 2 in each, so 8 files per process" "$T/mdtest-round/fe.err"
case_run mdtest-default "^pfsbench -d $D/md-default -p mkdir,rmdir --depth 2 --branch 2 --dirs per-rank --format mdtest\$" \
    mdtest -F -u -z 2 -b 2 -d "$D/md-default"
compare mdtest-default mkdir=12 rmdir=12
case_run mdtest-ditems "^pfsbench -d $D/md-ditems -p mkdir,stat-dirs,rmdir --depth 1 --branch 5 --dirs per-rank --format mdtest\$" \
    mdtest -D -u -I 5 -d "$D/md-ditems"
compare mdtest-ditems mkdir=10 stat-dirs=10 rmdir=10
check "mdtest rounding, default, -D -I: nothing left" test -z "$(ls -A "$D/md-round")$(ls -A "$D/md-default")$(ls -A "$D/md-ditems")"
# ---- mdtest -f 1 -l 2: a run at 1 rank and one at 2, in the one job (--ranks 1,2)
mkdir -p "$D/md-sweep"
in_dir "$T/md-sweep" "$PFSBENCH" mdtest -F -C -r -n 6 -f 1 -l 2 -d "$D/md-sweep"
check "mdtest -f 1 -l 2: runs, its equivalent has --ranks 1,2" \
    test "$RC" -eq 0 -a -n "$(grep "^pfsbench: equivalent: pfsbench -d $D/md-sweep -p create,delete -n 6 --format mdtest --ranks 1,2\$" "$T/out")"
pyfile "mdtest -f 1 -l 2: two runs, 6 and 12 files" check_md_sweep.py "$T/md-sweep/pfsbench-results.h5" 1,2 6 create delete

# ---- IOzone: seed 002's line (4g made 4m) and seed 004's without its client list; -t 4 on 2 ranks is --threads 2
mkdir -p "$D/iz"
case_run iozone-002 "^pfsbench -d \\. -t 256k -b 4m -p write,rewrite,read,reread --iozone-lines\$" iozone -i 0 -i 1 -r 256k -s 4m -t 2
compare iozone-002 write=$((2 * 4 << 20)) rewrite=$((2 * 4 << 20)) read=$((2 * 4 << 20)) reread=$((2 * 4 << 20))
case_run iozone-004 "^pfsbench -d $D/iz -t 1m -b 4m -p write,read --threads 2 --include-close -e -k --iozone-lines\$" \
    iozone -i0 -i1 -c -e -w -r 1M -s 4m -t 4 -+n -F "$D/iz/a" "$D/iz/b" "$D/iz/c" "$D/iz/d"
compare iozone-004 write=$((4 * 4 << 20)) read=$((4 * 4 << 20))
pyfile "iozone -t 4: the native equivalent (--iozone-lines) prints the same IOzone lines" \
    check_iozone_lines.py "$T/out" "$T/iozone-004/native/pfsbench-results.h5" 4

# ---- IOR's and mdtest's own output (issue 28): IOR's Results rows, Max Write/Read and summary,
# mdtest's SUMMARY tables, line for line in those tools' shapes, every number the results file's
mkdir -p "$D/ior-shape" "$D/md-shape"
case_run ior-shape "^pfsbench -d $D/ior-shape --file-name $D/ior-shape/f -t 64k -b 256k -F -p write,read -i 2 --format ior\$" \
    ior -w -r -i 2 -t 64k -b 256k -F -o "$D/ior-shape/f"
pyfile "pfsbench ior -w -r -i 2: IOR's output shape, the results file's numbers" check_ior_shape.py ior \
    "$T/ior-shape/fe.out" "$T/ior-shape/fe/pfsbench-results.h5" "$NP" 262144 65536
check "pfsbench ior: grep -E '^(write|read) ' finds the 4 Results rows and 2 summary lines" \
    test "$(grep -cE '^(write|read) ' "$T/ior-shape/fe.out")" -eq 6
# IOR's AIO backend: its --aio.max-pending as --iodepth, each transfer submitted as given (granularity 1)
if ! "$PFSBENCH" --help | grep -q "^  aio  *not built: "; then
    mkdir -p "$D/ior-aio"
    case_run ior-aio "^pfsbench -d $D/ior-aio --file-name $D/ior-aio/f -t 64k -b 1m -F -p write,read -k --api aio --iodepth 16 --format ior\$" \
        ior -w -r -k -a AIO --aio.max-pending 16 --aio.granularity 1 -t 64k -b 1m -F -o "$D/ior-aio/f"
    check "ior-aio: IOR's write and read rows" test "$(grep -cE '^(write|read) ' "$T/ior-aio/fe.out")" -eq 4
fi
# IOR's Stonewall(s) and Stonewall(MiB) with -D (its wear-out): an 8g block the 0.2 s stonewall stops
mkdir -p "$D/ior-sw"
in_dir "$T/ior-sw" "$PFSBENCH" -d "$D/ior-sw" -t 1m -b 8g -F -p write,read -i 2 -D 0.2 --format ior
cp "$T/out" "$T/ior-sw.out"
check "--format ior -D 0.2: runs (rc $RC)" test "$RC" -eq 0
pyfile "--format ior -D 0.2 -i 2: IOR's Stonewall columns, the results file's stonewall" check_ior_shape.py ior \
    "$T/ior-sw.out" "$T/ior-sw/pfsbench-results.h5" "$NP" 8589934592 1048576
check "--format ior -D 0.2: the write's Stonewall columns are numbers" \
    grep -qE '^write( +[0-9.]+){9} +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2} ' "$T/ior-sw.out"
rm -rf "$D/ior-sw"
case_run md-shape "^pfsbench -d $D/md-shape -p create,stat,read-files,delete -n 20 -i 2 --format mdtest\$" \
    mdtest -F -n 20 -i 2 -d "$D/md-shape"
pyfile "pfsbench mdtest -n 20 -i 2: mdtest's SUMMARY tables, the results file's numbers" check_ior_shape.py mdtest \
    "$T/md-shape/fe.out" "$T/md-shape/fe/pfsbench-results.h5"

# ---- IOzone's throughput-mode lines after the report (-t N), the figures the results file holds
pyfile "iozone -t 2: IOzone's Children/Parent/Min/Max/Avg/Min xfer lines hold the results file's figures" \
    check_iozone_lines.py "$T/iozone-002/fe.out" "$T/iozone-002/fe/pfsbench-results.h5" 2
pyfile "iozone -t 4 on 2 ranks (-T 2): 4 processes in the lines" \
    check_iozone_lines.py "$T/iozone-004/fe.out" "$T/iozone-004/fe/pfsbench-results.h5" 4

# ---- --rep-delay (IOR's -d): every rank sleeps between repetitions, outside the timed phases
mkdir -p "$D/delay"
in_dir "$T/delay" "$PFSBENCH" -d "$D/delay" -t 64k -b 256k -F -i 3 --rep-delay 1 -q
check "--rep-delay 1 -i 3: runs" test "$RC" -eq 0
pyfile "--rep-delay 1: a second or more between repetitions in the stored times" check_rep_delay.py \
    "$T/delay/pfsbench-results.h5" 1 3

# ---- IOR's -d, -A and its JSON summary in a file: --rep-delay, --label refnum=N, --format json to the file
mkdir -p "$D/ior-sum" "$D/empty"
case_run ior-summary "^pfsbench -d $D/ior-sum --file-name $D/ior-sum/f -t 64k -b 256k -F -p write,read -i 2 --rep-delay 1 --label refnum=42 --format json\$" \
    ior -w -r -F -b 256k -t 64k -i 2 -d 1 -A 42 -O summaryFormat=JSON -O summaryFile="$D/ior-sum.json" -o "$D/ior-sum/f"
compare ior-summary write=$((2 * 256 << 10)) read=$((2 * 256 << 10))
pyfile "ior -O summaryFile: the JSON report of the run, labelled refnum=42" check_ior_summary.py \
    "$D/ior-sum.json" "$T/ior-summary/fe/pfsbench-results.h5" refnum=42
check "ior -O summaryFile: nothing of the report on stdout" test ! -s "$T/ior-summary/fe.out"
pyfile "ior -d 1: a second or more between the repetitions" check_rep_delay.py "$T/ior-summary/fe/pfsbench-results.h5" 1 2
# An existing summary file is not overwritten (IOR would): exit 2, it stays as it was, nothing made.
echo keep >"$D/ior-sum.old"
in_dir "$T/refuse-sum" "$PFSBENCH" ior -w -F -O summaryFile="$D/ior-sum.old" -o "$D/empty/f"
check "ior -O summaryFile=EXISTING: exit 2 naming it" test "$RC" -eq 2 -a -n "$(grep "error: ior -O summaryFile=.*ior-sum.old: File exists" "$T/err")"
check "ior -O summaryFile=EXISTING: the file is untouched, nothing made" \
    test "$(cat "$D/ior-sum.old")" = keep -a -z "$(ls -A "$D/empty")$(ls -A "$T/refuse-sum")"
# A run the native checks refuse leaves no summary file behind.
in_dir "$T/refuse-sum2" "$PFSBENCH" ior -w -F -O summaryFile="$T/sum.txt" -o "$D/nowhere/f"
check "ior -O summaryFile with a missing -o directory: exit 2, no summary file left" test "$RC" -eq 2 -a ! -e "$T/sum.txt"

# ---- refusals: exit 2, every bad option named, nothing made (no data, no results file)
mkdir -p "$D/empty"
in_dir "$T/refuse1" "$PFSBENCH" iozone -i0 -i1 -c -e -w -r 16M -s 4m -t 2 -+n -+m "$T/threadlist" -F "$D/empty/f1" "$D/empty/f2"
check "iozone -+m (seed 004's client list): exit 2" test "$RC" -eq 2
check "iozone -+m: names it and points to mpirun's hostfile" grep -q "error: iozone -+m: .*hostfile" "$T/err"
check "iozone -+m: nothing made" test -z "$(ls -A "$D/empty")$(ls -A "$T/refuse1")"

in_dir "$T/refuse2" "$PFSBENCH" ior -w -E -T 5 -u -b 2m -t 1m -o "$D/empty/f"
check "ior -E -T -u: exit 2" test "$RC" -eq 2
check "ior: all three refusals at once, one line each" test "$(grep -c "^pfsbench: error: ior -[ETu]: " "$T/err")" -eq 3
check "ior: refusals print no equivalent" hasnt "pfsbench: equivalent:"
check "ior: nothing made" test -z "$(ls -A "$D/empty")$(ls -A "$T/refuse2")"

in_dir "$T/refuse3" "$PFSBENCH" mdtest -D -W 300 -z 2 -n 10 -d "$D/empty"
check "mdtest -D -W -z -n: exit 2, two refusals (-W with -D, -n with -D)" test "$RC" -eq 2 -a "$(grep -c "^pfsbench: error: mdtest -[Wn]: " "$T/err")" -eq 2
check "mdtest: nothing made" test -z "$(ls -A "$D/empty")$(ls -A "$T/refuse3")"

# A missing directory: the native check refuses it (exit 2, nothing made).
in_dir "$T/refuse4" "$PFSBENCH" ior -w -F -o "$D/nowhere/file"
check "ior -o in a missing directory: exit 2 naming it" test "$RC" -eq 2 -a -n "$(grep "nowhere" "$T/err")"

# ---- a link named pfsbench-ior is the front end too; native options after --
ln -s "$PFSBENCH" "$T/pfsbench-ior"
in_dir "$T/link" "$T/pfsbench-ior" -w -r -F -b 1m -t 256k -o "$D/ior-w/g" -- --no-results --label via-link
check "pfsbench-ior: runs, the equivalent carries the options after --" \
    grep -q "^pfsbench: equivalent: pfsbench -d $D/ior-w --file-name $D/ior-w/g -t 256k -b 1m -F -p write,read --format ior --no-results --label via-link\$" "$T/out"
check "pfsbench-ior: no results file" test ! -e "$T/link/pfsbench-results.h5"


# ---- each front end's --help lists what it translates and what it refuses, and why
for tool in ior mdtest iozone; do
    for h in --help -h; do
        in_dir "$T/help-$tool" "$PFSBENCH" "$tool" $h
        check "$tool $h: exit 0, its usage on stdout" \
            test "$RC" -eq 0 -a -n "$(grep "^usage: mpirun -np N pfsbench $tool " "$T/out")"
        check "$tool $h: nothing made" test -z "$(ls -A "$T/help-$tool")"
    done
done
in_dir "$T/help-ior" "$PFSBENCH" ior --help
check "ior --help: -F and -Q among the translated options" grep -q "^translated:.* -F .*-Q" "$T/out"
check "ior --help: -u refused with its reason" grep -q "^  -u .*a directory per task" "$T/out"
check "ior --help: -d, -A, -E, -m, -f, -Z and -X among the translated options" grep -qE "^ .* -d -A -E -Z -X -m -f( |$)" "$T/out"
check "ior --help: the backends' own options among the translated ones" grep -qE "^ +--aio.max-pending --aio.granularity$" "$T/out"
check "ior --help: a key on the command line refused with its reason" grep -q "^  --S3-libs3.access-key a key on the command line" "$T/out"
check "pfsbench --help names the front ends" grep -q "pfsbench ior|mdtest|iozone" <("$PFSBENCH" --help)

finish
