#!/bin/bash
# Issue 25, items 4 and 5: results files edited with h5py, made from a real
# one by tests/mpi/hostile_results.py. Each file that cannot take a new run
# (attributes as arrays or of other types, /summary contiguous or of a fixed
# size or of other field types, /runs not a group, ...) is refused before
# the benchmark: exit 2 with its reason, no crash, no data file, the file
# byte for byte, nothing new beside it (no lock file). Each that can (a run
# group deleted, an older or wider /summary, the repair results-format.md
# gives) takes the run as the largest number in use + 1, its old rows kept.
# Item 8: a run refused with exit 2 after the results check leaves no
# results lock file behind.
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
ulimit -c 0
ARGS=(-t 64k -b 256k -p write)
mkdir -p "$T/d0" "$T/corpus"
says_once() { [ "$(grep -c 'pfsbench: error' "$T/err")" -eq 1 ] && grep -qF -- "$1" "$T/err"; }

# ---- a real file with runs 000001 and 000002, and the corpus made from it ----
run_mpi 1 60 -d "$T/d0" "${ARGS[@]}" -o "$T/base.h5" --label one </dev/null
run_mpi 1 60 -d "$T/d0" "${ARGS[@]}" -o "$T/base.h5" --label two </dev/null
check "base: two runs recorded" grep -q "results .*/runs/000002 (complete)" "$T/out"
if ! "$PY" "$HERE/hostile_results.py" make "$T/base.h5" "$T/corpus" >"$T/cases" 2>"$T/py"; then
    bad "hostile_results.py made the corpus"
    cat "$T/py"
fi
mapfile -t CASES <"$T/cases"
check "the corpus has refusals and appends (${#CASES[@]} cases)" [ "$(grep -c "	refuse	" "$T/cases")" -ge 20 -a \
    "$(grep -c "	append	" "$T/cases")" -ge 10 ]

# ---- each case on 2 ranks ----
for line in "${CASES[@]}"; do
    IFS=$'\t' read -r case verdict words <<<"$line"
    W=$T/w/$case E=$T/e/$case
    mkdir -p "$W" "$E"
    cp "$T/corpus/$case.h5" "$W/r.h5"
    sum=$(sha256sum <"$W/r.h5")
    run_mpi 2 60 -d "$E" "${ARGS[@]}" -o "$W/r.h5" </dev/null
    check "$case: no crash" not grep -qiE "signal|segmentation|sanitizer|traceback" "$T/err"
    check "$case: no data file left" [ -z "$(ls -A "$E")" ]
    if [ "$verdict" = refuse ]; then
        check "$case: exit 2 (got $RC)" [ "$RC" -eq 2 ]
        check "$case: one message saying '$words'" says_once "$words"
        check "$case: no measurement printed" not grep -qE '^write +[0-9]+ ' "$T/out"
        check "$case: the file byte for byte" [ "$(sha256sum <"$W/r.h5")" = "$sum" ]
        check "$case: nothing new beside it" [ "$(ls -A "$W")" = r.h5 ]
    else
        check "$case: exit 0 (got $RC)" [ "$RC" -eq 0 ]
        check "$case: recorded as $words" grep -qF "results      $W/r.h5 $words (complete)" "$T/out"
        check "$case: the old rows kept, the new ones numbered $words" \
            "$PY" "$HERE/hostile_results.py" appended "$W/r.h5" "$T/corpus/$case.h5" "$words"
    fi
done

# ---- a refusal after the results check leaves no results lock file ----
# The run lock's name is a directory: exit 2 at the run lock, which comes
# after rank 0 checked the results path (4778fdb left .new.h5.lock there).
mkdir -p "$T/rl/d/pfsbench.X.lock" "$T/rl/res"
run_mpi 2 60 -d "$T/rl/d" --run-id X "${ARGS[@]}" -o "$T/rl/res/new.h5" </dev/null
check "refused at the run lock: exit 2 (got $RC)" [ "$RC" -eq 2 ]
check "refused at the run lock: nothing in the results directory" [ -z "$(ls -A "$T/rl/res")" ]
cp "$T/base.h5" "$T/rl/res/old.h5"
run_mpi 2 60 -d "$T/rl/d" --run-id X "${ARGS[@]}" -o "$T/rl/res/old.h5" </dev/null
check "refused at the run lock, existing file: nothing new beside it" [ "$(ls -A "$T/rl/res")" = old.h5 ]

finish
