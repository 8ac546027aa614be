#!/bin/bash
# pfs-sweep, pfs-plot and pfs-compare on real runs: a 1,2,4-rank
# sweep into one results file, resuming (done points skipped, a changed
# command refused), launcher options through to pfsrun (two fake nodes),
# valid PNG and SVG files, and tables whose cells are the summary means.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
PY=/usr/bin/python3          # has h5py and matplotlib; the pyenv python3 on PATH does not
S=$(dirname "$PFSBENCH")      # the pfs-* commands CMake writes beside pfsbench
export PYTHONPATH=$PFS_SRC/python  # the package, for the checks below
export PFSBENCH=$(readlink -f "$PFSBENCH")
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE SLURM_NTASKS SLURM_JOB_ID PBS_NODEFILE PBS_JOBID
unset PFSRUN_MPIRUN_ARGS PFSRUN_SRUN_ARGS
D=$T/data
mkdir -p "$D"
LOCAL="--oversubscribe --bind-to none"
R=$T/s.h5

# sweep ARGS... : pfs-sweep under timeout; stdout+stderr in $T/out, status in
# RC, the end of the newest sweep log (pfsbench's output) in $T/err.
sweep() {
    RC=0
    timeout -k 5 150 "$PY" "$S/pfs-sweep" "$@" >"$T/out" 2>&1 || RC=$?
    local log
    log=$(ls -t "$T"/*.log 2>/dev/null | head -n 1)
    if [ -n "$log" ]; then tail -n 60 "$log" >"$T/err"; else : >"$T/err"; fi
}
# tool NAME ARGS... : pfs-plot or pfs-compare; stdout in $T/out, stderr in $T/err, status in RC.
tool() {
    local t=$1
    shift
    RC=0
    timeout 120 "$PY" "$S/$t" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
hasre() { grep -qE -- "$1" "$T/out"; }
count_is() { [ "$(grep -cE -- "$1" "$T/out")" -eq "$2" ]; }
nruns_is() { [ "$("$PY" "$S/pfs-results" "$R" --runs | tail -n +2 | wc -l)" -eq "$1" ]; }

# ---- a sweep, interrupted after 2 points and resumed ---------------------
sweep --total 1m --max 2 --reps 2 -o "$R" --id t1 --mpirun-args "$LOCAL" -- -d "$D" -t 64k -p write,read
check "first part (1,2 ranks) exits 0" rc_is 0
check "one status line per point, with MiB/s" count_is '^pfs-sweep: \[[12]/2\] n=[12] .*MiB/s' 2
check "the status line after the first point has an ETA" hasre '^pfs-sweep: \[1/2\] n=1 .* ETA [0-9.]+s$'
check "2 runs in the file" nruns_is 2

sweep --total 1m --max 4 --reps 2 -o "$R" --id t1 --mpirun-args "$LOCAL" -- -d "$D" -t 64k -p write,read
check "resume to 4 ranks exits 0" rc_is 0
check "resume: the plan says 2 of 3 points are in the file" has "1 of 3 points to run (2 complete in the file)"
check "resume: n=1 skipped" hasre '^pfs-sweep: \[1/3\] n=1  complete in the file \(run 1\), skipped$'
check "resume: n=2 skipped" hasre '^pfs-sweep: \[2/3\] n=2  complete in the file \(run 2\), skipped$'
check "resume: n=4 run as run 3" hasre '^pfs-sweep: \[3/3\] n=4  256 KiB/rank .* run 3 '
check "3 runs in the file" nruns_is 3

sweep --total 1m --max 4 --reps 2 -o "$R" --id t1 --mpirun-args "$LOCAL" -- -d "$D" -t 64k -p write,read
check "a complete sweep again: exits 0" rc_is 0
check "a complete sweep again: runs nothing" has "0 of 3 points to run (3 complete in the file)"
check "a complete sweep again: still 3 runs" nruns_is 3

pycheck "runs 1-3: labels t1:n=N, N ranks, complete, 2 reps of write and read, total 1 MiB each" sweep_plot runs "$R"

sweep --total 1m --max 4 --reps 2 -o "$R" --id t1 --mpirun-args "$LOCAL" -- -d "$D" -t 64k -p write,read -e
check "same id, other pfsbench options: exit 2" rc_is 2
check "same id, other pfsbench options: says so and shows both command lines" has "already has n=1, n=2, n=4 complete with other pfsbench options"
check "same id, other pfsbench options: nothing run" nruns_is 3

sweep --total 1m --max 4 --reps 2 -o "$R" --id t1 --force --mpirun-args "$LOCAL" -- -d "$D" -t 64k -p write,read -e
check "--force: the complete points count as done" has "0 of 3 points to run (3 complete in the file)"

sweep --total 1m --max 8 -o "$R" --id t2 --mpirun-args "$LOCAL" -- -d "$D" -t 256k
check "--total that does not divide at 8 ranks: exit 2 before any run" rc_is 2
check "--total that does not divide: names the point" has "at the point 8 (1 MiB / 8 ranks = 128 KiB per rank); make the total a multiple of 2 MiB"
check "--total that does not divide: nothing run" nruns_is 3

sweep --block 64k --max 2 -o "$R" --id t2 --dry-run --mpirun-args "$LOCAL" -- -d "$D" -t 64k
check "--dry-run exits 0" rc_is 0
check "--dry-run: the launch line of n=2 with its label" hasre 'n=2  would run: mpirun -np 2 .* -b 64k -i 1 -o .*/s.h5 --label t2:n=2$'
check "--dry-run: nothing run" nruns_is 3

sweep --block 64k --max 2 --id t2 --dry-run --mpirun-args "$LOCAL" -- -d "$D" -t 64k -i3 -o "$R"
check "-i3 and -o FILE after -- are the sweep's --reps and results file" hasre 'n=2  would run: mpirun .* -i 3 -o .*/s.h5 --label t2:n=2$'

# The refusals: each a pfs-sweep of its own, started side by side (par);
# none may run a point.
i=0
for bad_args in "--label x" "-n 4" "-n4" "--run-id x" "--no-results"; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    par "args$i" sweep --block 64k --max 2 -o "$R" --id t3 -- -d "$D" $bad_args
done
par badid sweep --block 64k --max 2 -o "$R" --id 'bad:id' -- -d "$D"
par nosize sweep --max 2 -o "$R" --id t3 -- -d "$D"
# Sizes as pfsbench reads them (its --list-options=json when it has one):
# what pfsbench refuses, the sweep refuses before any point runs.
i=0
for bad_size in 4mb 1.5g " 4m" 0 5000000t; do
    i=$((i + 1))
    par "total$i" sweep --total "$bad_size" --max 2 -o "$R" --id t4 -- -d "$D"
    par "size$i" sweep --block 64k --max 2 -o "$R" --id t4 -- -d "$D" -t "$bad_size"
done
i=0
for bad_args in "--label x" "-n 4" "-n4" "--run-id x" "--no-results"; do
    i=$((i + 1))
    par_wait "args$i"
    check "refuses the option it sets itself: $bad_args" rc_is 2
done
par_wait badid
check "refuses an id with ':'" rc_is 2
par_wait nosize
check "refuses a sweep without --total or --block" rc_is 2
i=0
for bad_size in 4mb 1.5g " 4m" 0 5000000t; do
    i=$((i + 1))
    par_wait "total$i"
    check "refuses --total '$bad_size' as pfsbench does" rc_is 2
    check "refuses --total '$bad_size': says it is not a size" grep -q "is not a size" "$T/out"
    par_wait "size$i"
    check "refuses -t '$bad_size' as pfsbench does" rc_is 2
done
check "the refusals ran nothing" nruns_is 3

# ---- a point that fails (ENOSPC on a 3 MiB tmpfs) is run again on resume --
mkdir -p "$T/small"
RC=0
timeout -k 5 150 unshare --mount --propagation private sh -c 'mount -t tmpfs -o size=3m x "$1" && shift && exec "$@"' \
    sh "$T/small" "$PY" "$S/pfs-sweep" --block 1m --max 4 -o "$T/fail.h5" --id f --mpirun-args "$LOCAL" \
    -- -d "$T/small" -t 64k -p write >"$T/out" 2>&1 || RC=$?
check "3 MiB file system, 4 x 1 MiB: the sweep exits 1" rc_is 1
check "the failed point says so, with the run's status" hasre '^pfs-sweep: \[3/3\] n=4  FAILED \(exit 1, run 3 failed\)'
check "the failed point shows pfsbench's error" hasre '^    \| pfsbench: .*(No space|ENOSPC)'
check "the summary names the failed point" has "2 of 3 points complete in $T/fail.h5 (labels f:n=N); failed: 4"
sweep --block 1m --max 4 -o "$T/fail.h5" --id f --mpirun-args "$LOCAL" -- -d "$T/small" -t 64k -p write
check "resumed with room: exit 0" rc_is 0
check "resumed: only the failed point runs" has "1 of 3 points to run (2 complete in the file)"
check "resumed: n=4 complete as run 4" hasre '^pfs-sweep: \[3/3\] n=4  4 MiB total .* run 4 '

# ---- stopping a point: --point-timeout, and Ctrl-C (SIGINT) ----------------
# Both reach the ranks through mpirun (as SIGUSR1), so the run is recorded as
# interrupted, its files are removed, and the point is not done for a resume.
mkdir -p "$T/long"
LONG=(--block 256m --points 1 --id long --mpirun-args "$LOCAL" -- -d "$T/long" -t 1m -p write,read -e -i 200)
sweep -o "$T/long.h5" --point-timeout 1 "${LONG[@]}"
check "--point-timeout 1: exit 1" rc_is 1
check "--point-timeout 1: the point is reported stopped, its run interrupted" \
    has "FAILED (stopped after --point-timeout 1 s, run 1 interrupted)"
check "--point-timeout 1: the data files are gone" [ -z "$(ls -A "$T/long")" ]
# started_in DIR: wait (at most 30 s) until pfsbench has made a file in DIR.
started_in() { local i; for ((i = 0; i < 300; i++)); do [ -n "$(ls -A "$1")" ] && return 0; sleep 0.1; done; return 1; }
RC=0
timeout -k 5 120 "$PY" "$S/pfs-sweep" -o "$T/long.h5" "${LONG[@]}" >"$T/out" 2>&1 &
SWEEP_PID=$!
started_in "$T/long" && kill -INT "$SWEEP_PID"
wait "$SWEEP_PID" || RC=$?
check "SIGINT: pfs-sweep exits 130" rc_is 130
check "SIGINT: says how to resume" has "interrupted by signal 2; run the same command again to resume"
check "SIGINT: the run is recorded as interrupted" \
    [ "$("$PY" "$S/pfs-results" "$T/long.h5" --runs | awk '$1 == 2 {print $3}')" = interrupted ]
check "SIGINT: no pfsbench left running" not pgrep -f "$PFSBENCH -d $T/long"
check "SIGINT: the data files are gone" [ -z "$(ls -A "$T/long")" ]
sweep -o "$T/long.h5" --dry-run "${LONG[@]}"
check "after the interruptions the point is still to run" has "1 of 1 point to run"

# ---- launcher options reach pfsrun: 2 fake nodes, --hostfile ------------
fakenodes_hostfile "$T/hosts" 2 1
sweep --block 128k --max 2 -o "$T/nodes.h5" --id fn --hostfile "$T/hosts" --mpirun-args "$FAKENODES_MPIRUN_ARGS_STRING" \
    -- -d "$D" -t 64k -p write,read -i 2
check "fake nodes: sweep exits 0" rc_is 0
pycheck "fake nodes: n=2 ran on 2 nodes (node1, node2), n=1 on 1" sweep_plot nodes "$T/nodes.h5"

# ---- pfs-plot --------------------------------------------------------------
# valid_png FILE / valid_svg FILE
valid_png() { "$PY" "$PFS_TESTMPI/sweep_plot_checks.py" png "$1"; }
valid_svg() { "$PY" "$PFS_TESTMPI/sweep_plot_checks.py" svg "$1"; }

tool pfs-plot sweep "$R" --sweep t1 -o "$T/sweep" --units MiB
check "plot sweep exits 0" rc_is 0
check "plot sweep names the files it wrote" has "wrote $T/sweep.png"
check "plot sweep: PNG signature, IHDR, over 10 KB" valid_png "$T/sweep.png"
check "plot sweep: SVG parses as XML with an svg root" valid_svg "$T/sweep.svg"
svg_has() { grep -qF -- "$2" "$1"; }
check "plot sweep: SVG has the axis unit" svg_has "$T/sweep.svg" "aggregate bandwidth (MiB/s = 2^20 B/s)"
check "plot sweep: SVG has the log2 rank axis" svg_has "$T/sweep.svg" "[log2 scale]"
check "plot sweep: SVG has a line per phase" svg_has "$T/sweep.svg" ">write<"
check "plot sweep: SVG has a line per phase (read)" svg_has "$T/sweep.svg" ">read<"
tool pfs-plot sweep "$R" -o "$T/sweep-default" --units KB
check "plot sweep: the only sweep is the default; --units KB" rc_is 0
check "plot sweep --units KB: axis in KB/s" svg_has "$T/sweep-default.svg" "(KB/s = 1024 B/s)"

tool pfs-plot compare "$R" --label 't1:n=1' --label 't1:n=4' -o "$T/cmp" --formats png
check "plot compare exits 0" rc_is 0
check "plot compare: PNG" valid_png "$T/cmp.png"
check "plot compare --formats png: no SVG" not test -e "$T/cmp.svg"

# Stragglers planted in copies (real ones come and go on a shared VM): one
# in strag.h5, which the chart must mark (hatched bar, count on stderr), and
# none in clean.h5.
cp "$T/nodes.h5" "$T/strag.h5"
cp "$T/nodes.h5" "$T/clean.h5"
"$PY" "$PFS_TESTMPI/sweep_plot_checks.py" plant "$T/strag.h5" "$T/clean.h5"
tool pfs-plot nodes "$T/strag.h5" -o "$T/nodes"
check "plot nodes (last complete run) exits 0" rc_is 0
check "plot nodes: counts the planted straggler" grep -qx "pfs-plot: run 2: 1 straggler bar" "$T/err"
check "plot nodes: PNG" valid_png "$T/nodes.png"
check "plot nodes: SVG" valid_svg "$T/nodes.svg"
# hatched N SVG: N hatched shapes besides the legend's sample
hatched() { [ "$(grep -o 'url(#h[0-9a-f]*)' "$2" | wc -l)" -eq $(($1 + 1)) ]; }
check "plot nodes: the straggler bar is hatched" hatched 1 "$T/nodes.svg"
check "plot nodes: hosts on the axis" grep -q "node2" "$T/nodes.svg"
tool pfs-plot nodes "$T/clean.h5" --run 2 -o "$T/nodes-clean" --formats svg
check "plot nodes: no stragglers, no hatched bar" hatched 0 "$T/nodes-clean.svg"
check "plot nodes: no stragglers, 0 counted" grep -qx "pfs-plot: run 2: 0 straggler bars" "$T/err"
tool pfs-plot nodes "$T/nodes.h5" --run 9 -o "$T/x"
check "plot nodes: a run that is not there: exit 2" rc_is 2
tool pfs-plot sweep "$T/data" -o "$T/x"
check "plot: not a results file: exit 2" rc_is 2
tool pfs-plot sweep "$R" --sweep nope -o "$T/x"
check "plot: unknown sweep: exit 2, names the sweeps there" grep -q "its sweeps: t1" "$T/err"

# ---- pfs-compare -----------------------------------------------------------
# means_check FORMAT UNIT_SCALE ARGS... : the table's cells are the summary means.
means_check() {
    local fmt=$1 scale=$2
    shift 2
    tool pfs-compare "$@"
    rc_is 0 && "$PY" "$PFS_TESTMPI/sweep_plot_checks.py" means "$fmt" "$scale" "$R" "$T/out" >"$T/py" 2>&1 || { cat "$T/py"; return 1; }
}
check "compare --sweep (text, MiB/s): phases x ranks 1 2 4, cells = summary means" \
    means_check text 1048576 "$R" --sweep t1
check "compare --sweep --format csv: full-precision means, ranks=N [MiB/s] columns" \
    means_check csv 1048576 "$R" --sweep t1 --format csv
check "compare --sweep --format csv --units KB: means / 1024" \
    means_check csv 1024 "$R" --sweep t1 --format csv --units KB
check "compare --sweep --format csv --units GB/s: decimal" \
    means_check csv 1e9 "$R" --sweep t1 --format csv --units GB/s
check "compare --sweep --format md --units KB: a Markdown table" \
    means_check md 1024 "$R" --sweep t1 --format md --units KB

tool pfs-compare "$R" --label 't1:*' --format csv --stats mean,min,max --units MiB
pycheck "compare --by label --stats mean,min,max (csv): 3 labels x 3 stats, min <= mean <= max = the reps" sweep_plot stats "$T/out" "$R"

tool pfs-compare "$R" --by rep --label 't1:n=4' --names iozone --units KB
pycheck "compare --by rep --names iozone: Initial write/Read x rep 0, rep 1, mean" sweep_plot by_rep "$T/out"
tool pfs-compare "$R" --by rep --sweep t1
check "compare --by rep over several runs: exit 2, says to pick a run" grep -q "needs the rows of one run" "$T/err"

tool pfs-compare "$R" --label 't1:*' --transpose --names bonnie --units KB --format csv
pycheck "compare --transpose --names bonnie: a row per configuration, Block output/Block input columns in KB/s" sweep_plot transpose "$T/out"

tool pfs-compare "$R" --sweep t1 --value utilization --format csv
pycheck "compare --value utilization: fractions in (0, 1]" sweep_plot utilization "$T/out"

tool pfs-compare "$T/data"
check "compare: a directory, not a results file: exit 2" rc_is 2
tool pfs-compare "$R" --sweep nope
check "compare: unknown sweep: exit 2" rc_is 2
tool pfs-compare "$R" --units furlongs
check "compare: unknown unit: exit 2, lists the units" grep -q "use one of KB, KiB, MiB, GiB, MB, GB" "$T/err"

# ---- phase kinds: from the file, else pfsbench ----------------------------
# A metadata run: pfs-compare and pfs-results take each phase's kind from its
# group's `kind` attribute; a copy without those attributes reads the same
# through pfsbench --list-options=json.
M=$T/m.h5
mkdir -p "$D/m"
run_mpi 2 120 -d "$D/m" -t 64k -b 256k -p write,read,create,stat,read-files,delete -n 8 -o "$M" --label md
check "metadata run for the kind checks exits 0" rc_is 0
"$PY" "$PFS_TESTMPI/sweep_plot_checks.py" strip_kinds "$M" "$T/m-old.h5"
# kinds_same FILE [ENV...]: pfs-compare --csv and pfs-results --csv of FILE, run under ENV, as of $M with ours.
kinds_same() {
    local f=$1 want
    shift
    want=$("$PY" "$S/pfs-compare" "$M" --by label --format csv --minmax && "$PY" "$S/pfs-results" "$M" --csv) || return 1
    [ "$(env "$@" "$PY" "$S/pfs-compare" "$f" --by label --format csv --minmax &&
         env "$@" "$PY" "$S/pfs-results" "$f" --csv)" = "$want" ]
}
check "kinds: pfs-compare and pfs-results need no pfsbench when the file says the kinds" \
    kinds_same "$M" PFSBENCH=/nonexistent PATH=/usr/bin:/bin
check "kinds: a file without kind attributes reads the same through pfsbench" kinds_same "$T/m-old.h5"
tool pfs-compare "$M" --by label
check "kinds: metadata phases in files/s" hasre '^create \[files/s\] '
check "kinds: data phases in MiB/s" hasre '^write \[MiB/s\] '
pycheck "kinds: the file's kind wins; the package's kinds and pfs-compare's units agree with pfsbench" sweep_plot kinds "$M"


# ---- charts a report accepts (issue 18) --------------------------------
# A metadata-only run: titles say what the metadata phases did, not a
# transfer size; rates spanning more than 30x go on a log axis that says so;
# -o NAME.png writes NAME.png for every chart; repetitions numbered from 0.
MO=$T/mo.h5
mkdir -p "$D/mo"
run_mpi 2 120 -d "$D/mo" -p create,stat,delete --files 50 -i 2 -o "$MO" --label mo
check "metadata-only run exits 0" rc_is 0
tool pfs-plot compare "$MO" --label mo -o "$T/mo-cmp" --formats svg
check "metadata-only compare: the title names the files per stream" svg_has "$T/mo-cmp.svg" "50 empty files per stream"
check "metadata-only compare: no transfer size in the title" not svg_has "$T/mo-cmp.svg" "transfer "
pycheck "metadata rates: a log axis ([log scale]) exactly when they span more than 30x" sweep_plot log_axis "$MO" "$T/mo-cmp.svg"
for sub in sweep compare nodes timeline latency; do
    extra=()
    [ "$sub" = sweep ] && extra=(--sweep t1)
    [ "$sub" = compare ] && extra=(--label t1:n=1 --label t1:n=4)
    rm -f "$T/one.png" "$T/one.png.png"
    tool pfs-plot "$sub" "$R" "${extra[@]}" -o "$T/one.png"
    check "plot $sub -o one.png: writes one.png, not one.png.png" \
        sh -c "test -s '$T/one.png' && ! test -e '$T/one.png.png'"
done
tool pfs-plot nodes "$R" --rep 0 -o "$T/rep0" --formats svg
check "plot nodes --rep 0: the first repetition, labelled rep 0" svg_has "$T/rep0.svg" "rep 0"
tool pfs-plot nodes "$R" --rep 2 -o "$T/rep2" --formats svg
check "plot nodes --rep 2 of 2 repetitions: refused, says repetitions 0..1" grep -q "repetitions 0\.\.1" "$T/err"

finish
