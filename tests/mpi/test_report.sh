#!/bin/bash
# pfs-report on a real file (2 ranks, two runs, the first labelled with
# markup) loaded in headless Chromium: no console message (the check is
# shown to see one, on a control page), the DOM Chromium built holds no
# script, fetches nothing, shows the label as text and each repetition's
# figure as the file holds it, every embedded PNG decodes, the screenshot is
# not blank; a run that does not exist and a file that is no results file:
# exit 2, nothing written. Skipped (77) where chromium is not installed
# (scripts/install-deps.sh installs it).
. "$PFS_TESTS/mpi/lib.sh"
S=$(dirname "$PFSBENCH")      # the pfs-* commands CMake writes beside pfsbench
CHROMIUM=$(command -v chromium || true)
[ -n "$CHROMIUM" ] || { echo "SKIP: no chromium (scripts/install-deps.sh installs it)"; exit 77; }
export MPLBACKEND=Agg
D=$T/data
mkdir -p "$D"
LABEL='<script>alert(1)</script> & <b>co</b>'
WIDTH=1280

# report ARGS... : pfs-report; stdout in $T/out, stderr in $T/err, status in RC.
report() {
    RC=0
    timeout 120 "$PY" "$S/pfs-report" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
# browse ARGS... URL : headless Chromium with a profile of its own, its log in $T/chromium.log.
browse() {
    timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
        --user-data-dir="$T/profile" --enable-logging=stderr --v=0 "$@" 2>"$T/chromium.log"
}

run_mpi 2 120 -d "$D" -p write,read,create,stat -t 64k -b 1m -n 20 -i 2 -o "$T/r.h5" --label "$LABEL" -q
check "run 1 (2 ranks, 2 repetitions): exit 0" [ "$RC" -eq 0 ]
run_mpi 2 120 -d "$D" -p write,read -t 64k -b 512k -o "$T/r.h5" --label second -q
check "run 2: exit 0" [ "$RC" -eq 0 ]

report "$T/r.h5"
check "pfs-report FILE: exit 0" [ "$RC" -eq 0 ]
check "pfs-report FILE: writes FILE.html and says so" sh -c "[ -s '$T/r.html' ] && grep -qxF 'wrote $T/r.html' '$T/out'"

browse --dump-dom "file://$T/r.html" >"$T/dom.html"
check "Chromium loads the page (--dump-dom)" grep -q "reps-run1" "$T/dom.html"
pycheck "no console message while loading it" report console "$T/chromium.log"
pycheck "the DOM: no script, nothing fetched, PNGs decode, the label as text, the run's figures" \
    report dom "$T/dom.html" "$T/r.h5" "$LABEL"
browse --hide-scrollbars --window-size=$WIDTH,3000 --screenshot="$T/shot.png" "file://$T/r.html" >/dev/null
check "Chromium's screenshot written" [ -s "$T/shot.png" ]
pycheck "the screenshot is not blank" report screenshot "$T/shot.png" $WIDTH

# The control: the same log of a page that does write to the console.
printf '<!DOCTYPE html><title>c</title><script>console.error("pfs-report-control")</script>\n' >"$T/control.html"
browse --dump-dom "file://$T/control.html" >/dev/null
pycheck "the console check sees a console.error (control page)" report console_seen "$T/chromium.log"

report "$T/r.h5" 9 -o "$T/nine.html"
check "a run that does not exist: exit 2, nothing written" sh -c "[ $RC -eq 2 ] && [ ! -e '$T/nine.html' ]"
check "... one line naming it" grep -q "^pfs-report: error: .*9" "$T/err"
echo "not HDF5" >"$T/not.h5"
report "$T/not.h5"
check "not a results file: exit 2, nothing written" sh -c "[ $RC -eq 2 ] && [ ! -e '$T/not.html' ]"
finish
