#!/bin/bash
# The documentation says what the program does: the man page is what
# --help says (regenerated and compared), and docs/usage.md names every option.
. "$(dirname "$0")/lib.sh"
PY=/usr/bin/python3
$PY "$PFS_SRC/scripts/gen-man.py" "$PFSBENCH" "$T/pfsbench.1"
check "docs/pfsbench.1 is what --help says (regenerate with scripts/gen-man.py)" \
    diff -u "$PFS_SRC/docs/pfsbench.1" "$T/pfsbench.1"
"$PFSBENCH" --help >"$T/help"
for o in $(grep -oE '^ +(-[A-Za-z], )?--[a-z-]+' "$T/help" | grep -oE -- '--[a-z-]+'); do
    check "docs/usage.md documents $o" grep -q -- "$o" "$PFS_SRC/docs/usage.md"
done
check "the README names the test command and the demo" grep -q "scripts/test.sh" "$PFS_SRC/README.md"
check ".ci/run calls the README's test command" grep -q "scripts/test.sh" "$PFS_SRC/.ci/run"
finish
