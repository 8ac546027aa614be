#!/bin/bash
# The Python package (python/pfsbench): its pytest suite, on real results
# files made with this build's pfsbench ($PFSBENCH), over two fake nodes.
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$SRC" || exit 1
if PFSBENCH=$PFSBENCH "$PY" -m pytest -q -p no:cacheprovider python/tests >"$T/out" 2>&1; then
    ok "python/tests: $(tail -n 1 "$T/out")"
else
    bad "python/tests (pytest)"
fi

# --warmup and --reps auto's columns: a warm-up repetition flagged, the
# phase's interval beside each row, NaN where there is none; pfs-compare's
# mean leaves the warm-up out.
D=$T/data
mkdir -p "$D"
run_mpi 2 120 -d "$D" -p write,read -t 64k -b 256k -i 3 --warmup 1 -o "$T/w.h5" -q
check "warmup run: exit 0" [ "$RC" -eq 0 ]
run_mpi 1 120 -d "$D" -p write -t 64k -b 256k -i 1 -o "$T/w.h5" -q
check "one-rep run: exit 0" [ "$RC" -eq 0 ]
run_mpi 1 120 -d "$D" -p write -t 64k -b 256k -i auto --max-reps 3 --ci 100 -o "$T/w.h5" -q
check "auto run: exit 0" [ "$RC" -eq 0 ]
pycheck "pfsbench.open: warmup, reps_measured, ci95_*, ci_target_met" python open "$SRC/python" "$T/w.h5"
RC=0
"$(dirname "$PFSBENCH")/pfs-results" "$T/w.h5" >"$T/res" 2>&1 || RC=$?
N=$(grep -cE '^ +3 ' "$T/res")
check "pfs-results lists the auto run's 3 repetitions" [ "$RC" -eq 0 -a "$N" -eq 3 ]
if "$(dirname "$PFSBENCH")/pfs-compare" "$T/w.h5" --by rep --run 1 --format csv >"$T/cmp" 2>&1; then
    check "pfs-compare --by rep: the warm-up repetition 0 is no column" grep -q "^phase,rep 1 \[MiB/s\],rep 2 \[MiB/s\],rep 3 \[MiB/s\],mean" "$T/cmp"
else
    bad "pfs-compare --by rep"; cat "$T/cmp"
fi
finish
