#!/bin/bash
# Latency, IOPS, CPU and the time series from a real 2-rank run, in every
# output: the text report's latency table, JSON, CSV, the results file
# (checked with h5py against the phase's own counts and bytes), pfs-results
# --latency and --timeseries, pfs-compare --names bonnie's %CP; and a file
# without these datasets (an older run) still reads.
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
PR=$(dirname "$PFSBENCH")/pfs-results
PC=$(dirname "$PFSBENCH")/pfs-compare
D=$T/data
mkdir -p "$D"

# ---- text (-v): the tables before the summary, one screen wide ----
run_mpi 2 60 -d "$D" -t 64k -b 1m -p write,read,create -n 20 -i 2 -e -o "$T/r.h5" -v
check "text: exit 0" [ "$RC" -eq 0 ]
check "text: the latency tables come before the summary, which comes last" \
    awk '/^latency    op / { l = NR } /^latency per repetition/ { r = NR } /^summary over repetitions/ { s = NR }
         s && /^latency/ { bad = 1 } END { exit !(l && r && s > r && r > l && !bad) }' "$T/out"
check "text: merged over the 2 repetitions: write's transfers, fsync, read's open, create's files, each with a unit" \
    sh -c "grep -qE '^write +write +64( +[0-9.]+){6} (us|ms|s)$' '$T/out' && grep -qE '^write +fsync +4 .* (us|ms|s)$' '$T/out' &&
           grep -qE '^read +open +4 .* (us|ms|s)$' '$T/out' && grep -qE '^create +create +80 .* (us|ms|s)$' '$T/out'"
check "text -v: rows per repetition for the transfers, open, fsync and close of write, and the files of create" \
    sh -c "grep -qE '^write +0 write +32 ' '$T/out' && grep -qE '^write +1 fsync +2 ' '$T/out' &&
           grep -qE '^read +0 open +2 ' '$T/out' && grep -qE '^create +1 create +40 ' '$T/out'"
check "text -v: the slowest node's p99 and the CPU seconds" grep -qE '^ +slowest node p99 [0-9.]+ (us|ms|s): node 0 .*CPU user [0-9.]+ s, sys [0-9.]+ s$' "$T/out"
check "text: the latency tables and the summary within 100 columns" \
    awk '/^latency    op / { s = 1 } /^results / { s = 0 } s && length($0) > 100 { bad = 1 } END { exit bad }' "$T/out"

# ---- the results file, against the phase's own counts ----
pycheck "h5: latency, node_latency and the time series add up to the phase's ops and bytes" latency_out h5 "$T/r.h5"

# ---- JSON and CSV carry the new fields ----
run_mpi 2 60 -d "$D" -t 64k -b 1m -p write,read -i 2 --no-results --format json
check "json: exit 0" [ "$RC" -eq 0 ]
pycheck "json: iops, cpu, latency per kind and the slowest node in every repetition" latency_out json "$T/out"
run_mpi 2 60 -d "$D" -t 64k -b 1m -p write,read -i 2 --no-results --format csv
check "csv: exit 0" [ "$RC" -eq 0 ]
pycheck "csv: the old columns first, then iops, lat_*_us and cpu_percent" latency_out csv "$T/out"

# ---- pfs-results and pfs-compare ----
RC=0
"$PY" "$PR" "$T/r.h5" --timeseries "$T/ts.csv" >"$T/out" 2>"$T/err" || RC=$?
check "pfs-results --timeseries: exit 0" [ "$RC" -eq 0 ]
pycheck "pfs-results --timeseries: rows per interval and node whose bytes add up to the phases'" latency_out timeseries "$T/ts.csv" "$T/r.h5"
RC=0
"$PY" "$PR" "$T/r.h5" --latency >"$T/out" 2>"$T/err" || RC=$?
check "pfs-results --latency: exit 0, a row per phase and repetition" \
    sh -c "[ $RC -eq 0 ] && [ \$(grep -cE '^ +1 +(write|read|create) +[01] +[0-9]+ +[0-9.]+' '$T/out') -eq 6 ]"
RC=0
"$PY" "$PC" "$T/r.h5" --names bonnie --units KB --transpose --phases write,read >"$T/out" 2>"$T/err" || RC=$?
check "pfs-compare --names bonnie: %CP beside K/sec" \
    sh -c "[ $RC -eq 0 ] && grep -qE '^label .*Block output \[KB/s\] +%CP +Block input \[KB/s\] +%CP' '$T/out' &&
           grep -qE '^\(no label\) +[0-9.]+ +[0-9]+ +[0-9.]+ +[0-9]+$' '$T/out'"

# ---- an older file, without these datasets, still reads ----
cp "$T/r.h5" "$T/old.h5"
pycheck "old file: latency, time series and CPU datasets removed" latency_out make_old "$T/old.h5"
RC=0
"$PY" "$PR" "$T/old.h5" --latency >"$T/out" 2>"$T/err" || RC=$?
check "old file: --latency exits 0 with - for what was not recorded" \
    sh -c "[ $RC -eq 0 ] && grep -qE '^ +1 +write +0 +- +- ' '$T/out' && [ ! -s '$T/err' ]"
RC=0
"$PY" "$PR" "$T/old.h5" --timeseries - >"$T/out" 2>"$T/err" || RC=$?
check "old file: --timeseries writes the header alone" sh -c "[ $RC -eq 0 ] && [ \$(wc -l <'$T/out') -eq 1 ]"
RC=0
"$PY" "$PR" "$T/old.h5" >"$T/out" 2>"$T/err" || RC=$?
check "old file: the summary reads as before" sh -c "[ $RC -eq 0 ] && grep -qE '^ +1 .* write ' '$T/out'"
finish
