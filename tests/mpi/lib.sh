# Shared helpers for the MPI integration tests (sourced, not run).
# Every mpirun runs under `timeout`; each test works in its own temp dir,
# removed on exit.
set -u
: "${PFSBENCH:?set PFSBENCH to the pfsbench binary (ctest does)}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Quiet Open MPI's own chatter about missing interfaces on this VM.
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_btl_vader_single_copy_mechanism=none
# Every MPI_Init opened the PSM and PSM2 MTLs (Omni-Path) to find no
# hardware before taking ob1, the PML every run here uses: 0.2 s of a
# 2-rank launch (0.3 s under the sanitizers). Debian's
# openmpi-mca-params.conf leaves out ofi already (mtl = ^ofi); so does
# this, with those two. The PML chosen is the same (ob1), and pml
# monitoring (bench/scale-mpi.sh) still wraps it.
export OMPI_MCA_mtl=^ofi,psm,psm2
# tests/lib: the shims' sources, the harnesses and the small checkers.
PFS_TESTLIB=$(cd "$(dirname "${BASH_SOURCE[0]}")/../lib" && pwd)
T=$(mktemp -d /tmp/pfstest.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILS=0
PASSES=0

# run_mpi NP TIMEOUT_S ARGS... : pfsbench on NP ranks, stdout in $T/out, stderr in $T/err, status in RC.
run_mpi() {
    local np=$1 to=$2
    shift 2
    RC=0
    timeout "$to" mpirun -np "$np" $(one_rank_exit "$np") --oversubscribe --bind-to none "$PFSBENCH" "$@" \
        >"$T/out" 2>"$T/err" || RC=$?
}

# one_rank_exit NP: mpirun's options for NP ranks. An mpirun whose rank
# exits non-zero signals the job's ranks CONT, TERM, KILL a second apart
# before it exits itself (odls_base_sigkill_timeout, 1 s): 2 s idle after
# every refusal. With one rank there is no other rank still writing its
# last output to wait for (that rank is the one that exited), so the wait
# goes: a 1-rank refusal took 2.5 s, 0.5 s with it. Word-split on purpose.
# ONE_RANK: the same options as an array, for a line of its own that starts
# one rank ("${ONE_RANK[@]}").
# A run the test expects refused (exit 2) needs no grace at any NP: every
# rank returns its status through MPI_Finalize, whose fence holds each one
# until all have written their last output (stdout is a terminal, line
# buffered; stderr unbuffered), so no rank is left writing when mpirun
# signals. run_refused marks such a run; a 2-rank refusal took 1.4-2.6 s,
# 0.4-0.8 s with it. Runs that fail otherwise keep the grace: a watchdog or
# a lost rank exits without MPI_Finalize while rank 0 still records the run.
ONE_RANK=(--mca odls_base_sigkill_timeout 0)
one_rank_exit() {
    [ "$1" = 1 ] || [ "${PFS_REFUSAL:-}" = 1 ] && echo "${ONE_RANK[*]}"
    return 0
}
# run_refused NP TIMEOUT_S ARGS... : run_mpi for a run expected to exit 2.
run_refused() { PFS_REFUSAL=1 run_mpi "$@"; }

# run_in_tmpfs OPTS NP ARGS... : pfsbench on NP ranks with -d on a fresh tmpfs
# (mount options OPTS, e.g. size=4m or size=64m,nr_inodes=3) in a private
# mount namespace, so a full file system leaves no mount behind. Output as
# run_mpi; `ls -A` of the tmpfs after the run goes to $T/left.
run_in_tmpfs() {
    local opts=$1 np=$2
    shift 2
    mkdir -p "$T/tmpfs"
    RC=0
    timeout 120 unshare --mount --propagation private sh -c \
        'mount -t tmpfs -o "$1" pfstest "$2" || exit 99; d=$2; np=$3; left=$4; bin=$5; one=$6; shift 6
         mpirun -np "$np" $one --oversubscribe --bind-to none "$bin" -d "$d" "$@"; rc=$?
         ls -A "$d" >"$left"; exit $rc' \
        sh "$opts" "$T/tmpfs" "$np" "$T/left" "$PFSBENCH" "$(one_rank_exit "$np")" "$@" >"$T/out" 2>"$T/err" || RC=$?
}

# Independent runs side by side. An mpirun of several ranks whose ranks
# exit non-zero spends 2 s idle after they are gone (see one_rank_exit;
# a refusal, run_refused, does not). Started together, a batch of them
# waits those seconds once.
# At most PAR_MAX (4) at a time: each still costs CPU to start, and under
# the sanitizers nine at once on a loaded 2-core machine outlasted their
# 30 s timeouts. Give them timeouts for a crowd (120 s).
#   par NAME FUNC ARGS...   FUNC ARGS (run_mpi, run_in_tmpfs, ...) in the
#                           background, with its own out, err, left and RC
#   par_wait NAME           waits for it: its status in RC, its stdout in
#                           $T/out, its stderr in $T/err (for has, check ...)
declare -A PAR_PID=()
par() {
    local name=$1
    shift
    while [ "$(jobs -rp | wc -l)" -ge "${PAR_MAX:-4}" ]; do
        wait -n || true
    done
    mkdir -p "$T/par.$name"
    (
        T=$T/par.$name
        RC=0
        "$@"
        echo "$RC" >"$T/rc"
    ) </dev/null &
    PAR_PID[$name]=$!
}
par_wait() {
    local dir=$T/par.$1
    wait "${PAR_PID[$1]}" || true
    RC=$(cat "$dir/rc" 2>/dev/null || echo 255)
    cp "$dir/out" "$T/out" 2>/dev/null || : >"$T/out"
    cp "$dir/err" "$T/err" 2>/dev/null || : >"$T/err"
}

# Debian's python3 has h5py; the pyenv python3 that may come first on PATH does not.
PY=/usr/bin/python3
# A matrix of small runs as one MPI job: a job file (pfsbench -f) whose
# sections are the cases, each a run of its own in the results file. An
# mpirun start-up costs a second or two on a loaded 2-core machine; a
# section half a second.
#   run_job NP TIMEOUT_S JOBFILE ARGS...  runs it (stdout $T/out, stderr $T/err,
#       status RC) with results in $T/job.h5, then list_runs "$T/job.h5"
#   list_runs RESULTS  writes $T/runs: one line per run (tests/lib/runs.py:
#       label, status, run id, each phase's bytes, then the run attributes
#       named in RUN_ATTRS, e.g. RUN_ATTRS="api nodes")
#   run_of LABEL   that run's words in RUN: ${RUN[1]} the status, ${RUN[2]} the
#                  run id, then PHASE=BYTES, ATTR=VALUE; empty when there is none
run_job() {
    local np=$1 to=$2 job=$3
    shift 3
    rm -f "$T/job.h5"
    run_mpi "$np" "$to" -f "$job" -o "$T/job.h5" "$@"
    list_runs "$T/job.h5"
}
list_runs() {
    # shellcheck disable=SC2086
    "$PY" "$PFS_TESTLIB/runs.py" "$1" ${RUN_ATTRS:-} >"$T/runs" 2>&1 || true
}
run_of() {
    # shellcheck disable=SC2207
    RUN=($(awk -v l="$1" '$1 == l' "$T/runs"))
}

# The tests' Python checks: tests/mpi/NAME_checks.py, one module per script
# (test_NAME.sh), a function per check: no Python in the scripts' heredocs.
PFS_TESTMPI=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# pycheck WHAT NAME CHECK ARGS... : check CHECK of tests/mpi/NAME_checks.py
# passes when it exits 0 (a failing one prints why, after "--- python").
# submitted_as_given API CALL: an async backend hands each transfer to the
# kernel as it is given (fio's default), not at the next reap: under
# strace, 100 writes of 4 KiB at depth 8 through API make at least 100
# CALLs (io_submit, io_uring_enter) of one transfer each. Without strace,
# says so.
submitted_as_given() {
    if ! command -v strace >/dev/null; then
        echo "# strace not found: the submissions are not counted here"
        return
    fi
    RC=0
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 timeout 120 strace -f -qq -e trace="$2" -o "$T/st" \
        "$PFSBENCH" -d "$D" -a "$1" --iodepth 8 -t 4k -b 400k -p write --no-results -q >"$T/out" 2>"$T/err" || RC=$?
    check "submitted as given: exit 0" [ "$RC" -eq 0 ]
    local n
    n=$(grep -cE "^([0-9]+ +)?$2\\([^,]*, 1, " "$T/st")
    check "submitted as given: 100 $2 calls of one transfer each ($n)" [ "$n" -ge 100 ]
}
pycheck() {
    local what=$1 module=$PFS_TESTMPI/${2}_checks.py
    shift 2
    if "$PY" "$module" "$@" >"$T/py" 2>&1; then ok "$what"; else bad "$what"; echo "--- python"; cat "$T/py"; fi
}
# placement_is K: the -v table in $T/out has rank r on node r mod K, host node(r mod K + 1).
placement_is() {
    awk -v k="$1" '
        /^placement \(rank node host/ { on = 1; next }
        on && NF == 0 { on = 0 }
        on { n++; r = $1; if ($2 != r % k || $3 != "node" (r % k + 1)) bad = 1 }
        END { exit (n == 0 || bad) }' "$T/out"
}
# corrupt_byte FILE OFFSET: complement the byte at OFFSET in place, so the file
# differs there whatever the byte was (writing a fixed byte matches the data
# pattern once in 256 runs, and the "corruption" is then no change at all).
corrupt_byte() {
    local b
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    [ -n "$b" ] || { echo "corrupt_byte: $1 has no byte at offset $2" >&2; return 1; }
    printf "\\$(printf %03o $((255 - b)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
has() { grep -qF -- "$1" "$T/out"; }
err_has() { grep -qF -- "$1" "$T/err"; }
rc_is() { [ "$RC" -eq "$1" ]; }
hasnt() { ! grep -qF -- "$1" "$T/out"; }

ok() { PASSES=$((PASSES + 1)); echo "ok - $*"; }
bad() { FAILS=$((FAILS + 1)); echo "FAIL - $*"; echo "--- stdout"; cat "$T/out" 2>/dev/null; echo "--- stderr"; cat "$T/err" 2>/dev/null; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }
not() { ! "$@"; }
finish() { echo "$PASSES passed, $FAILS failed"; [ "$FAILS" -eq 0 ]; }
