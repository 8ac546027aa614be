#!/bin/bash
# A phase too short to measure (issue 26): on 4 fake nodes a stat phase of
# one file per stream lasts a few tens of microseconds of work, while the
# nodes leave the opening agreement (over TCP) further apart than that:
# main printed its aggregate as a measurement. Now the row is followed by a
# warning with the measured skew, and the run's warnings (results file,
# JSON) hold it once per phase. check_short.py recomputes both criteria
# (time under 10x the spread of the streams' starts; aggregate under half
# the slowest node's own rate) from the stored times and holds the warnings
# to them, phase by phase, so a phase that measured well must not warn.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../lib/fakenodes.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
D=$T/data
mkdir -p "$D"
fakenodes_setup 4 1
RC=0
fakenodes_mpirun 4 120 "$PFSBENCH" -d "$D" -p create,stat,delete -n 1 -o "$T/r.h5" >"$T/out" 2>"$T/err" || RC=$?
check "4 fake nodes, one file per stream: exit 0" [ "$RC" -eq 0 ]
check "the stat row is followed by its warning, with the skew" \
    awk '/^stat +0 / { row = 1 } row && /^warning +stat rep 0: too short to measure: [0-9.e-]+ s.*the streams started [0-9.e-]+ s apart/ { ok = 1 } END { exit !ok }' "$T/out"
if "$PY" "$SRC/tests/mpi/check_short.py" "$T/r.h5" stat >"$T/py" 2>&1; then
    ok "results file: a warning for exactly the phases that were too short: $(cat "$T/py")"
else
    bad "results file: the warnings against the stored times"; cat "$T/py"
fi

# JSON: the warning with the run's (and on stderr, stdout being the JSON's).
RC=0
fakenodes_mpirun 4 120 "$PFSBENCH" -d "$D" -p create,stat,delete -n 1 --format json --no-results \
    >"$T/out" 2>"$T/err" || RC=$?
check "JSON: exit 0" [ "$RC" -eq 0 ]
check "JSON: the stat warning is in the warnings list" \
    "$PY" -c 'import json, sys; w = json.load(open(sys.argv[1]))["warnings"]; sys.exit(not any(x.startswith("stat rep 0: too short to measure") for x in w))' "$T/out"
check "JSON: and on stderr" grep -q "^pfsbench: warning: stat rep 0: too short to measure" "$T/err"

# A phase that ran long enough against its skew says nothing.
run_mpi 2 120 -d "$D" -t 1m -b 64m -p write -o "$T/long.h5"
check "2 ranks, 64 MiB each: exit 0" [ "$RC" -eq 0 ]
if "$PY" "$SRC/tests/mpi/check_short.py" "$T/long.h5" >"$T/py" 2>&1; then
    ok "a long write: warned only if its own times say so: $(cat "$T/py")"
else
    bad "a long write: the warnings against the stored times"; cat "$T/py"
fi
finish
