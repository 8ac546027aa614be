#!/bin/bash
# The text report's shape (issue 28): what scripts/demo.sh runs (its own
# arguments, read from the script: 2 ranks, write,rewrite,read,reread, 3
# repetitions, -e, --ceilings) prints at most 40 lines besides the ceilings'
# (one line before the phases, one under each phase's summary row):
#   - the header (ranks, target, api, sizes, phases; --label printed);
#   - a row per phase and repetition with MiB/s and IOPS;
#   - a latency row per phase over its repetitions, merged, each in its own
#     unit; per repetition, open/fsync/close and the slowest node only -v;
#   - the summary last (then only the results line), each phase's share of
#     the memory ceiling under its row;
#   - -q: exactly the summary and the kept files' line, whose run id a
#     scripted read then takes;
#   - a metadata run's columns in files/s, its latencies in their own unit.
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
D=$T/data
mkdir -p "$D"

# The demo's arguments after -d "$dir" (its -o file aside).
read -r -a DEMO <<<"$(sed -n 's/.*build\/pfsbench -d "$dir" \(.*\) \\$/\1/p' "$SRC/scripts/demo.sh")"
check "the demo's arguments read from scripts/demo.sh" \
    [ "${DEMO[*]}" = "-t 1m -b 64m -p write,rewrite,read,reread -i 3 -e --ceilings" ]

run_mpi 2 240 -d "$D" "${DEMO[@]}" -o "$T/demo.h5"
cp "$T/out" "$T/demo.out"
n=$(grep -cv '^ceilings  \|^ \+ceilings: ' "$T/demo.out")
echo "# the demo's report: $n lines besides the ceilings'"
check "demo: exit 0" [ "$RC" -eq 0 ]
check "demo: the report fits in 40 lines besides the ceilings' ($n)" [ "$n" -le 40 ]
check "demo: the ceilings: one node's memory, no network, before the phases" \
    grep -qE '^ceilings +memory [0-9.]+ MiB/s \(memcpy, all cores of [^;]+; one core [0-9.]+\), no network between clients \(one node\)$' "$T/out"
check "demo: each phase's share of the memory ceiling under its summary row" \
    [ "$(grep -cE "^ +ceilings: the mean at [0-9.]+% of the clients' memory ceiling \(binding\), network: one node$" "$T/out")" -eq 4 ]
check "demo: the header says what ran" sh -c "grep -qE '^ranks +2 on 1 node' '$T/out' && grep -qF 'target       $D ' '$T/out' &&
    grep -qE '^access .*, api posix, ' '$T/out' && grep -qE '^sizes +transfer 1 MiB, block 64 MiB per rank, total 128 MiB; MiB/s = 2\^20 bytes/s$' '$T/out' &&
    grep -qE '^phases +write,rewrite,read,reread x 3 repetitions$' '$T/out'"
check "demo: no label line without --label" not grep -q '^label' "$T/out"
check "demo: the columns: MiB/s and IOPS" grep -qE '^phase +rep +MiB/s +IOPS +seconds +util  slowest / fastest node$' "$T/out"
check "demo: 12 rows (4 phases x 3 repetitions), each with MiB/s and IOPS" \
    [ "$(grep -cE '^(write|rewrite|read|reread) +[0-2] +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9] +[0-9.]+ +[0-9.]+  node ' "$T/out")" -eq 12 ]
check "demo: the latency table's head" grep -qE '^latency +op +count +min +p50 +p90 +p99 +p99\.9 +max$' "$T/out"
check "demo: a latency row per phase, 3 x 128 transfers merged, in its own unit" \
    [ "$(grep -cE '^(write|rewrite|read|reread) +(write|rewrite|read|reread) +384( +[0-9.]+){6} (us|ms|s)$' "$T/out")" -eq 4 ]
check "demo: no open, fsync or close rows without -v" not grep -qE '^[a-z]+ +([0-9]+ +)?(open|fsync|close) ' "$T/out"
check "demo: no per-repetition latency or slowest node without -v" \
    not grep -qE '^[a-z]+ +[0-9]+ +(write|rewrite|read|reread) +128 |slowest node|latency per repetition' "$T/out"
check "demo: the latency table, then the summary, last: 4 rows, their ceilings and the results line" \
    awk '/^latency +op / { l = NR } /^summary over repetitions/ { s = NR } END { exit !(l && s > l && NR == s + 10) }' "$T/out"
check "demo: the summary's rows" \
    [ "$(tail -n 9 "$T/out" | grep -cE '^(write|rewrite|read|reread) +3 +[0-9.]+ +([0-9.]+%|n/a) ')" -eq 4 ]
check "demo: the results line at the end" sh -c "tail -n 1 '$T/out' | grep -qE '^results +$T/demo.h5 /runs/000001 \(complete\)$'"

# -v: per repetition, open, fsync, close and the slowest node; the timed region.
run_mpi 2 120 -d "$D" -t 1m -b 4m -p write,read -i 2 -e --no-results -v --label 'ost 4'
check "-v: exit 0" [ "$RC" -eq 0 ]
check "-v: the label, second" sh -c "sed -n 2p '$T/out' | grep -qx 'label        ost 4'"
check "-v: the timed region" grep -qE '^timed region open \.\. transfers \.\. fsync \.\. close' "$T/out"
check "-v: write's fsync merged over 2 repetitions (2 ranks x 2)" grep -qE '^write +fsync +4( +[0-9.]+){6} (us|ms|s)$' "$T/out"
check "-v: per repetition: write 1's fsync, read 0's open" \
    sh -c "grep -qE '^write +1 fsync +2 ' '$T/out' && grep -qE '^read +0 open +2 ' '$T/out'"
check "-v: the slowest node lines" [ "$(grep -cE '^ +slowest node p99 [0-9.]+ (us|ms|s): node 0 ' "$T/out")" -eq 4 ]

# -q: the summary and the kept line, nothing else; a scripted read takes the id.
run_mpi 2 120 -d "$D" -t 1m -b 4m -p write,rewrite -i 2 -k -q --no-results
cp "$T/out" "$T/q.out"
check "-q: exit 0" [ "$RC" -eq 0 ]
check "-q: 5 lines: the summary's title, head, 2 rows, the kept line" [ "$(wc -l <"$T/q.out")" -eq 5 ]
check "-q: the summary first" sh -c "head -n 2 '$T/q.out' | tr '\n' '|' | grep -qE '^summary over repetitions [^|]*\|phase +reps +mean '"
check "-q: its rows" [ "$(grep -cE '^(write|rewrite) +2 +[0-9.]+ ' "$T/q.out")" -eq 2 ]
check "-q: the kept line last" sh -c "tail -n 1 '$T/q.out' | grep -qE '^kept data files $D/pfsbench\.[^ ]+\.\*, 4 transfers .*--run-id [^ )]+\)$'"
id=$(sed -n 's/.*read them again with --run-id \([^ )]*\)).*/\1/p' "$T/q.out")
run_mpi 2 120 -d "$D" -t 1m -b 4m -p read --run-id "$id" -q --no-results
check "-q: a read of the kept files by the id it printed ($id)" sh -c "[ $RC -eq 0 ] && grep -qE '^read +1 ' '$T/out'"
rm -rf "${D:?}"/* 

# A metadata run: files/s, no MiB/s, KB/s or IOPS; a stat of microseconds in us.
run_mpi 2 120 -d "$D" -p create,stat,delete -n 50 --no-results
check "metadata: exit 0" [ "$RC" -eq 0 ]
check "metadata: the columns in files/s" grep -qE '^phase +rep +files/s +seconds +util  slowest / fastest node$' "$T/out"
check "metadata: no MiB/s, KB/s or IOPS" not grep -qE 'MiB/s|KB/s|IOPS' "$T/out"
check "metadata: each row in files/s" [ "$(grep -cE '^(create|stat|delete) +0 +[0-9.]+ +- +[0-9.]+ .* files/s$' "$T/out")" -eq 3 ]
check "metadata: stat's latency row in its own unit, never 0.00" \
    grep -qE '^stat +stat +100 +[0-9.]+ +([1-9][0-9.]*|0\.0*[1-9][0-9]*)( +[0-9.]+){4} (us|ms|s)$' "$T/out"
check "metadata: the summary says files/s" grep -q '^summary over repetitions (aggregate files/s;' "$T/out"
finish
