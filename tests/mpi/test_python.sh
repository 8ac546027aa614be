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
finish
