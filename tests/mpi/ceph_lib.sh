# shellcheck shell=bash
# ceph_lib.sh: what the tests of a backend against the Ceph harness
# (tests/mpi/test_ceph_*.sh) share. Source it after tests/mpi/lib.sh (check,
# ok, bad, finish, run_mpi); it sources tests/lib/ceph.sh (the cluster:
# ceph_start_or_skip, ceph_mount ...):
#     ceph_test_begin                    since, cond, refused; $T/d
#     ceph_not_built_or API NEEDS LIB    the refusal alone where API is not built
#     ceph_start_or_skip                 the cluster, or exit 77 / 1
#     ceph_test_end                      the teardown checked, timings, finish
#     kill_ranks_when READY...           SIGKILL a background run's ranks once READY holds
#     stop_osd_mid_write OSD READY...    SIGSTOP an OSD mid-write until the watchdog speaks
#     stop_daemon_mid_write NAME READY... the same for another daemon (radosgw)
. "$PFS_TESTS/lib/ceph.sh"

# ceph_test_begin: what every such test starts with: T_BEGIN, since START
# (seconds since, one decimal), cond EXPR (check's compound condition),
# $T/d (the run's -d) and refused WHAT TEXT (exit 2, one error line with
# TEXT, nothing made in -d).
ceph_test_begin() {
    T_BEGIN=$(date +%s.%N)
    since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
    cond() { eval "$1"; }
    refused() {
        check "$1: exit 2" [ "$RC" -eq 2 ]
        check "$1: says why ($(head -c 300 "$T/err"))" grep -qF -- "$2" "$T/err"
        check "$1: nothing created" [ -z "$(ls -A "$T/d")" ]
    }
    mkdir -p "$T/d"
}

# ceph_not_built_or API NEEDS LIB: a pfsbench built without API's library
# is checked for its refusal alone (exit 2 naming NEEDS, nothing made) and
# the test ends there; else checks that pfsbench itself does not link LIB
# (the backend is a module).
ceph_not_built_or() {
    if "$PFSBENCH" --help | grep -q "^  $1  *not built: "; then
        run_mpi 2 60 -d "$T/d" -a "$1" --no-results
        refused "not built" "error: --api $1: this pfsbench was built without it ($2 at build time)"
        echo "# --api $1 is not built here: only its refusal was checked"
        finish
        exit
    fi
    check "pfsbench is not linked with $3 (a module)" not grep -q "$3" <(ldd "$PFSBENCH")
}

# ceph_test_end: the teardown checked (nothing left), the timings, finish.
ceph_test_end() {
    ceph_stop && ok "teardown: nothing left (${CEPH_T_STOP} s)" || bad "teardown left things behind"
    echo "# timings: HEALTH_OK after ${CEPH_T_UP} s, teardown ${CEPH_T_STOP} s; whole test $(since "$T_BEGIN") s"
    finish
}

# stop_osd_mid_write OSD READY...: with a run in the background ($BG, its
# stderr $T/err), once the command READY... holds (bounded: 15 s) SIGSTOP
# osd.OSD (its PID from the harness) until the watchdog has spoken and
# rank 0 has recorded the run (bounded: 20 s), then SIGCONT it and wait for
# the run. Sets RC (the run's exit), WD (seconds from the stop to the
# watchdog's first word; empty: never) and STOPPED (1: stopped; 0: READY
# never held, the run ended first, or osd.OSD has no process).
stop_osd_mid_write() {
    local osd=$1
    shift
    stop_daemon_mid_write "osd.$osd" "$@"
}

# stop_daemon_mid_write NAME READY...: the same for the harness's daemon
# NAME (osd.1, client.rgw.gw: radosgw); with STOP_UNTIL=watchdog it goes on
# as soon as the watchdog has spoken (the clean-up then finds it back).
stop_daemon_mid_write() {
    local name=$1 sp w t
    shift
    STOPPED=0 WD=
    for ((w = 0; w < 300; w++)); do
        "$@" && break
        kill -0 "$BG" 2>/dev/null || break
        sleep 0.05
    done
    sp=$(ceph__pid "$name")
    if [ "$w" -lt 300 ] && kill -0 "$BG" 2>/dev/null && [ -n "$sp" ]; then
        kill -STOP "$sp"
        t=$(date +%s.%N)
        STOPPED=1
        for ((w = 0; w < 200; w++)); do
            [ -z "$WD" ] && grep -q "watchdog" "$T/err" && WD=$(since "$t")
            [ -n "$WD" ] && [ "${STOP_UNTIL:-}" = watchdog ] && break
            grep -q "the run is recorded" "$T/err" && break
            kill -0 "$BG" 2>/dev/null || break
            sleep 0.1
        done
        kill -CONT "$sp"
    else
        kill -TERM "$BG" 2>/dev/null
    fi
    RC=0
    wait "$BG" || RC=$?
    [ "$STOPPED" = 1 ] && echo "# $name stopped: the watchdog spoke after ${WD:-never} s; the run exited $RC $(since "$t") s after the stop"
    grep '^pfsbench' "$T/err" | sed 's/^/#   /'
}

# kill_ranks_when READY...: with a run in the background ($BG), once the
# command READY... holds (bounded: 15 s) SIGKILL every pfsbench process
# under it (its ranks, by PID: no clean-up runs), then wait for it. Sets
# RANKS (the PIDs killed; empty: READY never held, or the run ended first).
kill_ranks_when() {
    local w p
    for ((w = 0; w < 300; w++)); do
        "$@" && break
        kill -0 "$BG" 2>/dev/null || break
        sleep 0.05
    done
    kids() { local k; for k in $(pgrep -P "$1"); do echo "$k"; kids "$k"; done; }
    RANKS=$(for p in $(kids "$BG"); do [ "$(cat "/proc/$p/comm" 2>/dev/null)" = pfsbench ] && echo "$p"; done)
    [ -n "$RANKS" ] && kill -KILL $RANKS
    wait "$BG"
}
