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
pycheck "pfsbench.open: warmup, reps_measured, ci95_*, ci_target_met" "$SRC/python" "$T/w.h5" <<'EOF'
import math, sys
sys.path.insert(0, sys.argv[1])
import h5py
import numpy as np
import pfsbench
from pfsbench import damage, rows as views
with pfsbench.open(sys.argv[2]) as res:
    s = res.summary(as_frame=False)
    one = [i for i in range(len(s["run"])) if s["run"][i] == 1 and s["phase"][i] == "write"]
    assert [s["warmup"][i] for i in one] == [1, 0, 0, 0], s["warmup"]
    assert all(s["reps_measured"][i] == 3 for i in one)
    h5 = h5py.File(sys.argv[2], "r")
    pg = h5["runs"]["000001"]["phases"]["00_write"]
    assert all(s["ci95_half_width"][i] == pg.attrs["ci95_half_width"] > 0 for i in one)
    assert all(math.isnan(s["ci_target_met"][i]) for i in one)  # a fixed --reps: no target
    two = [i for i in range(len(s["run"])) if s["run"][i] == 2]
    assert len(two) == 1 and math.isnan(s["ci95_percent"][two[0]]) and s["reps_measured"][two[0]] == 1
    try:
        import pandas  # noqa: F401
        f = res.summary()
        assert str(f["warmup"].dtype) == "boolean" and f["warmup"].sum() == 2
    except ImportError:
        pass
rows = views.summary_rows(pfsbench.open(sys.argv[2]))
assert sorted(r["warmup"] for r in rows if r["run"] == 1) == [0, 0, 0, 0, 0, 0, 1, 1]
# a run of --reps auto (its reps attribute is the word) reads, not damaged
assert damage.check_run(h5py.File(sys.argv[2], "r")["runs"]["000003"]) == []
assert len([r for r in rows if r["run"] == 3]) == 3
with pfsbench.open(sys.argv[2]) as res:
    s = res.summary(as_frame=False)
    three = [i for i in range(len(s["run"])) if s["run"][i] == 3]
    assert len(three) == 3 and all(s["reps_measured"][i] == 3 for i in three)
    assert all(s["ci_target_met"][i] in (0.0, 1.0) for i in three)
EOF
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
