#!/bin/bash
# `cmake --install` gives working pfs-* commands: each runs the Python
# package installed beside it (share/pfsbench/python), from any directory
# and without PYTHONPATH; pfs-sweep finds the pfsbench and pfsrun installed
# with it; a DESTDIR install (packaging) finds its package too.
. "$PFS_TESTS/mpi/lib.sh"
BUILD=$(dirname "$(readlink -f "$PFSBENCH")")
PY=/usr/bin/python3
unset PYTHONPATH
mkdir -p "$T/d"

cmake --install "$BUILD" --prefix "$T/inst" >"$T/out" 2>"$T/err"
check "cmake --install --prefix: exit 0" [ $? -eq 0 ]
for t in results compare plot sweep io500 report; do
    check "bin/pfs-$t installed, executable" test -x "$T/inst/bin/pfs-$t"
done
check "the package installed in share/pfsbench/python" test -f "$T/inst/share/pfsbench/python/pfsbench/reader.py"

run_mpi 1 60 -d "$T/d" -t 64k -b 256k -p write,read -o "$T/r.h5" -q --label installed
check "a run to read: exit 0" [ "$RC" -eq 0 ]
(cd / && "$T/inst/bin/pfs-results" "$T/r.h5") >"$T/out" 2>"$T/err"
check "installed pfs-results reads it, run from /" grep -qE "^ +1 +installed +complete +write " "$T/out"
check "installed pfs-results imports the installed package" \
    sh -c "cd / && '$PY' -v '$T/inst/bin/pfs-results' --help 2>&1 | grep -qE '^# code object from $T/inst/bin/\.\./share/pfsbench/python/pfsbench/__init__\.py$'"
(cd / && "$T/inst/bin/pfs-compare" "$T/r.h5" --format csv) >"$T/out" 2>"$T/err"
check "installed pfs-compare: a CSV row per phase" sh -c "grep -q '^write,' '$T/out' && grep -q '^read,' '$T/out'"

# pfs-sweep with neither PFSBENCH nor the build on PATH: the pfsbench and
# pfsrun beside it.
(cd / && env -u PFSBENCH PATH=/usr/bin:/bin "$T/inst/bin/pfs-sweep" --block 64k --max 2 -o "$T/s.h5" --dry-run \
    -- -d "$T/d" -t 64k) >"$T/out" 2>"$T/err"
check "installed pfs-sweep --dry-run: exit 0" [ $? -eq 0 ]
check "installed pfs-sweep runs the installed pfsbench" grep -qF "would run: mpirun -np 2 " "$T/out"
check "... found beside it" grep -qF " $T/inst/bin/pfsbench -d $T/d" "$T/out"

DESTDIR=$T/dest cmake --install "$BUILD" --prefix /opt/pfs >"$T/out" 2>"$T/err"
check "DESTDIR install: exit 0" [ $? -eq 0 ]
(cd / && "$T/dest/opt/pfs/bin/pfs-results" "$T/r.h5" --runs) >"$T/out" 2>"$T/err"
check "DESTDIR install: its pfs-results finds its package" grep -qE "^ +1 .* installed " "$T/out"
finish
