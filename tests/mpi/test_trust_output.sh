#!/bin/bash
# Output stays valid whatever the input (issue 13, section 4): a label with
# bytes that are not UTF-8 and an ESC sequence, a DIR whose name holds a
# space, a newline and a 0xff byte, and an error message naming such a DIR
# give JSON that json.loads parses strictly, CSV the csv module reads, both
# valid UTF-8, and a text report with no raw control bytes; the stored
# command line splits back into the argv it came from; pfs-results prints
# all of it escaped and, on a damaged copy of the file, names each damaged
# run in one line, prints the others and never shows a traceback.
. "$(dirname "$0")/lib.sh"
PR=$(dirname "$PFSBENCH")/pfs-results
D=$T/"d ir$(printf '\n\377')x"
mkdir -p "$D"
LABEL=$(printf 'a\377\376b\033[31m "q",\\ \342\202')
# What JSON and CSV must make of them: each byte that is not UTF-8 as U+FFFD.
export LABEL_BYTES_HEX=$(printf '%s' "$LABEL" | od -An -tx1 | tr -d ' \n')
export DIR_BYTES_HEX=$(printf '%s' "$D" | od -An -tx1 | tr -d ' \n')
F=$T/r.h5

# ---- JSON ----
run_mpi 2 60 -d "$D" -t 64k -b 256k -p write,read --label "$LABEL" --format json -o "$F"
check "json: exit 0" [ "$RC" -eq 0 ]
pycheck "json: valid UTF-8, parses strictly, label and dir as sent with bad bytes as U+FFFD, no raw controls" \
    trust_output json "$T/out"

# ---- CSV ----
run_mpi 2 60 -d "$D" -t 64k -b 256k -p write,read -i 2 --label "$LABEL" --format csv -o "$F"
check "csv: exit 0" [ "$RC" -eq 0 ]
pycheck "csv: valid UTF-8, 4 records of the header's width, the label one field" trust_output csv "$T/out"

# ---- the text report: the DIR escaped, nothing a terminal would act on ----
run_mpi 2 60 -d "$D" -t 64k -b 256k -p write --label "$LABEL" -v -o "$F"
check "text: exit 0" [ "$RC" -eq 0 ]
check "text: the target line shows the DIR escaped" grep -qF 'd ir\n\xffx (' "$T/out"
pycheck "text: stdout is UTF-8 without control bytes but newlines" trust_output text "$T/out"

# ---- a failed run whose error names such a DIR: still valid JSON ----
W=$T/"full$(printf '\033\377')"
mkdir -p "$W"
RC=0
timeout 120 unshare --mount --propagation private sh -c \
    'mount -t tmpfs -o size=1m pfstest "$1" || exit 99; d=$1; shift
     exec mpirun -np 2 --oversubscribe --bind-to none "$@" -d "$d" -t 64k -b 1m -p write,read --format json' \
    sh "$W" "$PFSBENCH" -o "$T/failed.h5" >"$T/out" 2>"$T/err" || RC=$?
check "failed run: exit 1" [ "$RC" -eq 1 ]
pycheck "failed run: JSON valid UTF-8 and parses, the error says ENOSPC" trust_output failed "$T/out"

"$PR" "$T/failed.h5" >"$T/pr" 2>"$T/pr.err"
RC=$?
check "failed run: pfs-results reads it (no phase done is no damage)" \
    sh -c "[ $RC -eq 0 ] && [ ! -s '$T/pr.err' ]"

# ---- the stored command line splits back into the argv it came from ----
# (Fails until src/mpi/run.c stores pfs_cmdline_join()'s line.)
pycheck "command line: bash splits the stored line back into the argv given" trust_output command_line "$F" "$PFSBENCH" "$D" "$LABEL"

# ---- pfs-results prints it all escaped ----
"$PR" "$F" >"$T/pr" 2>"$T/pr.err"
check "pfs-results: exit 0" [ $? -eq 0 ]
check "pfs-results: no traceback" not grep -q Traceback "$T/pr.err"
check "pfs-results: the label shown escaped" grep -qF 'a\xff\xfeb\x1b[31m "q",\\ \xe2\x82' "$T/pr"
for v in "--runs" "--csv" "--runs --csv" "--run 3 --raw" "--run 3 --raw --csv"; do
    # shellcheck disable=SC2086
    "$PR" "$F" $v >"$T/pr" 2>"$T/pr.err"
    check "pfs-results $v: exit 0, no traceback" [ $? -eq 0 -a ! -s "$T/pr.err" ]
    pycheck "pfs-results $v: UTF-8, no control bytes outside CSV quotes" trust_output pfs_results "$T/pr" "$v"
done

# ---- a damaged copy: each damaged run named once, the others still print ----
for i in 4 5 6 7; do
    run_mpi 1 60 -d "$D" -t 64k -b 128k -p write,read --label "run$i" -o "$F"
done
check "five more runs: exit 0" [ "$RC" -eq 0 ]
pycheck "damage: a copy with runs 2..6 damaged five ways" trust_output damage "$F" "$T/bad.h5"
"$PR" "$T/bad.h5" >"$T/pr" 2>"$T/pr.err"
RC=$?
check "damaged: exit 0 (runs 1 and 7 read)" [ "$RC" -eq 0 ]
check "damaged: no traceback" not grep -q Traceback "$T/pr.err"
check "damaged: one line per damaged run on stderr, nothing else" [ "$(wc -l <"$T/pr.err")" -eq 5 ]
check "damaged: run 2 named, its missing attribute said" \
    grep -qx "pfs-results: run /runs/000002: attribute 'ranks' is missing; skipped" "$T/pr.err"
check "damaged: run 3 named, its missing dataset said" \
    grep -qx "pfs-results: run /runs/000003: dataset 'phases/00_write/times' is missing; skipped" "$T/pr.err"
check "damaged: run 4 named, its wrong shape said" grep -qx \
    "pfs-results: run /runs/000004: dataset 'phases/01_read/bandwidth' has shape (7,) where (1,) was expected; skipped" \
    "$T/pr.err"
check "damaged: run 5 named, its garbled attribute said" \
    grep -qE "^pfs-results: run /runs/000005: attribute 'nodes': .*garbage.* is not a whole number; skipped$" "$T/pr.err"
check "damaged: run 6 named, its placement's shape said" grep -qE \
    "^pfs-results: run /runs/000006: dataset 'placement' has shape \(2, 3\) where \(1,\) was expected; skipped$" \
    "$T/pr.err"
check "damaged: runs 1 and 7 still print, 2..6 do not" \
    sh -c "[ \"\$(awk '\$1 ~ /^[0-9]+\$/ {print \$1}' '$T/pr' | sort -u | tr '\n' ' ')\" = '1 7 ' ]"
"$PR" "$T/bad.h5" --runs >"$T/pr" 2>"$T/pr.err"
RC=$?
check "damaged --runs: exit 0, runs 1 and 7 listed, 5 lines on stderr" \
    sh -c "[ $RC -eq 0 ] && [ \"\$(grep -cE '^ +[17] ' '$T/pr')\" -eq 2 ] && [ \"\$(wc -l <'$T/pr.err')\" -eq 5 ]"
"$PR" "$T/bad.h5" --csv >"$T/pr" 2>"$T/pr.err"
RC=$?
check "damaged --csv: exit 0, 5 lines on stderr, no traceback" \
    sh -c "[ $RC -eq 0 ] && [ \"\$(wc -l <'$T/pr.err')\" -eq 5 ] && ! grep -q Traceback '$T/pr.err'"
"$PR" "$T/bad.h5" --run 3 --raw >"$T/pr" 2>"$T/pr.err"
RC=$?
check "damaged --run 3 --raw: exit 1 (nothing read), its one line, no traceback" \
    sh -c "[ $RC -eq 1 ] && [ \"\$(wc -l <'$T/pr.err')\" -eq 1 ] && grep -q '^pfs-results: run /runs/000003: .*; skipped$' '$T/pr.err' && ! grep -q Traceback '$T/pr.err'"
"$PR" "$T/bad.h5" --run 7 >"$T/pr" 2>"$T/pr.err"
RC=$?
check "damaged --run 7: exit 0, its rows, no word about the other runs" \
    sh -c "[ $RC -eq 0 ] && [ ! -s '$T/pr.err' ] && grep -qE '^ +7 +run7 ' '$T/pr'"
"$PR" "$T/bad.h5" --run 7 --raw >"$T/pr" 2>"$T/pr.err"
RC=$?
check "damaged --run 7 --raw: exit 0, its rows" sh -c "[ $RC -eq 0 ] && grep -q '^write ' '$T/pr'"

# Every run damaged, and a /summary that is not a table: exit 1, one line each.
pycheck "damage: every run and the summary" trust_output damage_all "$T/bad.h5" "$T/worse.h5"
"$PR" "$T/worse.h5" >"$T/pr" 2>"$T/pr.err"
RC=$?
check "all damaged: exit 1" [ "$RC" -eq 1 ]
check "all damaged: no traceback" not grep -q Traceback "$T/pr.err"
check "all damaged: 7 run lines and the summary's" \
    sh -c "[ \"\$(grep -c '^pfs-results: run /runs/00000[1-7]: .*; skipped$' '$T/pr.err')\" -eq 7 ] && grep -q '^pfs-results: /summary: cannot be read' '$T/pr.err'"
finish
