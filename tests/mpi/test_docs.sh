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
# A phase is its ops in src/core/phases/ and a line of the registry: every
# phase --help lists has its row in usage.md, and no code elsewhere tests
# which phase it runs (docs/engine.md, "Phases as data").
phases=$(sed -n 's/.*--phases LIST .*a comma list of //p' "$T/help" | tr ',' ' ')
check "--help's -p line lists the phases" [ "$(echo $phases | wc -w)" -ge 13 ]
for ph in $phases; do
    check "docs/usage.md's phase table has $ph" grep -q "^| \`$ph\` |" "$PFS_SRC/docs/usage.md"
done
grep -rn 'PFS_PH_[A-Z]' "$PFS_SRC/src" | grep -v "^$PFS_SRC/src/core/phases/" >"$T/identity"
check "no code outside src/core/phases tests a phase's identity" [ ! -s "$T/identity" ]
check "the README names the test command and the demo" grep -q "scripts/test.sh" "$PFS_SRC/README.md"
check ".ci/run calls the README's test command" grep -q "scripts/test.sh" "$PFS_SRC/.ci/run"
finish
