#!/bin/bash
# pfs-plot timeline and latency on real runs (two fake nodes, 2 ranks each):
# PNG and SVG (by -o's extension) and both from a prefix, valid files (PNG
# signature, SVG parsed as XML, its text: units and phase names), the
# plotted series (--data-csv) against the results file (the timeline's bytes
# and ops sum to each phase's, per node too; each step is an interval's bytes
# over its overlap with the phase, and the steps span the phase from its
# first open to its last close; each CDF rises to 1.0 with its
# count = the phase's ops, percentiles = pfsbench's summary, the stored slowest
# operations as ticks), several runs
# compared, 1 node per line, and a file from before latencies and time series
# (datasets deleted in a copy): a clear message and exit 2, no traceback.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
PY=/usr/bin/python3          # has h5py and matplotlib; the pyenv python3 on PATH does not
S=$(dirname "$PFSBENCH")      # the pfs-* commands CMake writes beside pfsbench
export MPLBACKEND=Agg
D=$T/data
mkdir -p "$D"
R=$T/r.h5

# bench ARGS... : pfsbench on 4 ranks over 2 fake nodes, under timeout.
bench() {
    fakenodes_setup 2 2
    RC=0
    fakenodes_mpirun 4 90 "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
# plot ARGS... : pfs-plot; stdout in $T/out, stderr in $T/err, status in RC.
plot() {
    RC=0
    timeout 120 "$PY" "$S/pfs-plot" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg() { "$PY" "$PFS_TESTMPI/plot_latency_checks.py" svg "$1"; }
svg_has() { grep -qF -- "$2" "$1"; }
no_traceback() { ! grep -q "Traceback" "$T/err"; }

bench -d "$D" -t 64k -b 4m -p write,read,create,stat,delete -n 60 -i 2 -e --interval 0.02 -o "$R" --label first
check "run 1 (2 nodes, 4 ranks, 2 repetitions): exit 0" rc_is 0
bench -d "$D" -t 64k -b 2m -p write,read -i 1 --interval 0.02 -o "$R" --label second
check "run 2: exit 0" rc_is 0

# ---- timeline ----
plot timeline "$R" --run 1 --iops -o "$T/tl.png" --data-csv "$T/tl.csv"
check "timeline -o X.png: exit 0" rc_is 0
check "timeline -o X.png: prints the one file it wrote" [ "$(cat "$T/out")" = "wrote $T/tl.png" ]
check "timeline PNG is a PNG" is_png "$T/tl.png"
check "timeline -o X.png: no SVG beside it" [ ! -e "$T/tl.svg" ]
plot timeline "$R" --run 1 -o "$T/tl.svg"
check "timeline -o X.svg: exit 0" rc_is 0
check "timeline SVG parses as XML" is_svg "$T/tl.svg"
check "timeline SVG: the unit on the y axis" svg_has "$T/tl.svg" "MiB/s = 2^20 B/s"
check "timeline SVG: the x axis in seconds" svg_has "$T/tl.svg" "time since the run's first phase started (s)"
check "timeline SVG: the phases labelled (repetitions numbered)" \
    sh -c "grep -qF 'write #1' '$T/tl.svg' && grep -qF 'delete #0' '$T/tl.svg'"
check "timeline SVG: a legend entry per node, with its host" \
    sh -c "grep -qF 'node 0 (node1)' '$T/tl.svg' && grep -qF 'node 1 (node2)' '$T/tl.svg'"
check "timeline SVG: the stored slowest operations marked" svg_has "$T/tl.svg" "slowest operation of a repetition"
plot timeline "$R" -o "$T/last"
check "timeline -o PREFIX: PNG and SVG of the last run" \
    sh -c "[ \"\$(cat '$T/out')\" = \"wrote $T/last.png
wrote $T/last.svg\" ]"
check "timeline without --run: run 2 (its title)" svg_has "$T/last.svg" "run 2 (second)"

pycheck "timeline CSV: per phase, repetition and node, bytes and ops sum to the results file's" plot_latency timeline "$R" "$T/tl.csv"

# ---- latency ----
plot latency "$R" --run 1 -o "$T/lat.png" --data-csv "$T/lat.csv"
check "latency -o X.png: exit 0" rc_is 0
check "latency PNG is a PNG" is_png "$T/lat.png"
plot latency "$R" --run 1 -o "$T/lat.svg"
check "latency SVG parses as XML" is_svg "$T/lat.svg"
check "latency SVG: the unit and log scale on the x axis" svg_has "$T/lat.svg" "s, log scale), from submission to completion"
check "latency SVG: p50, p99 and p99.9 labelled" \
    sh -c "grep -qE '>p50 [0-9.,]+<' '$T/lat.svg' && grep -qE '>p99 [0-9.,]+<' '$T/lat.svg' && grep -qE '>p99.9 [0-9.,]+<' '$T/lat.svg'"
check "latency SVG: says where the CDF steps are" svg_has "$T/lat.svg" "bucket's upper edge"

pycheck "latency CSV: a CDF per phase ending at 1.0 with count = ops, percentiles = pfsbench's" plot_latency latency "$R" "$T/lat.csv"
pycheck "latency CSV: each phase's stored exemplars as its ticks" plot_latency exemplars "$R" "$T/lat.csv"
check "latency SVG: the exemplars' ticks in the legend" svg_has "$T/lat.svg" "slowest operations stored (--exemplars)"
plot latency "$R" --run 1 --rep 0 -o "$T/rep1.svg" --data-csv "$T/rep1.csv"
check "latency --rep 0: exit 0" rc_is 0
pycheck "latency --rep 0: p50, p99, p99.9 = latency_summary of repetition 0" plot_latency rep0 "$R" "$T/rep1.csv"

plot latency "$R" --run 1 --per node --phase read -o "$T/node.svg" --data-csv "$T/node.csv"
check "latency --per node: exit 0" rc_is 0
check "latency --per node: a line per node and all nodes" \
    sh -c "grep -qF 'node 0 (node1)' '$T/node.svg' && grep -qF 'node 1 (node2)' '$T/node.svg' && grep -qF 'all nodes' '$T/node.svg'"
pycheck "latency --per node: each node's CDF ends at 1.0 with its count = node_latency's" plot_latency per_node "$R" "$T/node.csv"

plot latency "$R" --run 1 --run 2 --phase write -o "$T/runs.svg"
check "latency --run 1 --run 2: exit 0" rc_is 0
check "latency, two runs: a line per run, with its label" \
    sh -c "grep -qF 'run 1 (first)' '$T/runs.svg' && grep -qF 'run 2 (second)' '$T/runs.svg'"
plot latency "$R" --kind fsync --run 1 -o "$T/fsync.png"
check "latency --kind fsync (-e): exit 0" rc_is 0
plot latency "$R" --kind fsync --run 2 -o "$T/fsync2.png"
check "latency --kind fsync of a run without -e: exit 2, says why" sh -c "[ $RC -eq 2 ] && grep -qF 'fsync is timed with -e' '$T/err'"
plot latency "$R" --phase nosuch
check "latency --phase nosuch: exit 2, lists the phases" sh -c "[ $RC -eq 2 ] && grep -qF 'run 2 has write, read' '$T/err'"
plot timeline "$R" --run 1 -o "$T/nodir/x.png"
check "timeline into a missing directory: exit 2" rc_is 2

# ---- a results file from before these datasets ----
cp "$R" "$T/old.h5"
"$PY" "$PFS_TESTMPI/plot_latency_checks.py" make_old "$T/old.h5"
for sub in "timeline" "latency" "latency --per node" "latency --run 1 --run 2"; do
    # shellcheck disable=SC2086
    plot $sub "$T/old.h5" -o "$T/old.png"
    check "older file, $sub: exit 2" rc_is 2
    check "older file, $sub: says the file has no latency/time series" err_has "before pfsbench recorded latencies and time series"
    check "older file, $sub: no traceback" no_traceback
    check "older file, $sub: no chart" [ ! -e "$T/old.png" ]
done
finish
