# shellcheck shell=bash
# ceph.sh: a Ceph cluster on this machine, from nothing, for tests.
#
# Source it (bash) from a test:
#     . tests/lib/ceph.sh
#     ceph_start || exit $?          # mon, mgr, 3 OSDs, MDS, CephFS, radosgw; 77 = skip
#     ceph_mount "$T/a"              # a ceph-fuse client mounted at $T/a
#     ceph_mount "$T/c" 2            # two more clients: $T/c/1 and $T/c/2
#     ceph_cli health                # the ceph CLI against this cluster
#     rados -p "$CEPH_POOL" ls       # CEPH_CONF is exported: librados tools find it
#     . "$CEPH_S3_ENV"               # S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY, S3_HOSTNAME
#     ceph_osd_pid 1                 # OSD 1's PID (OSD ids 0 .. 2)
#     ceph_stop || echo leftovers    # also run by the EXIT trap ceph_start sets
#
# or run it:  bash tests/lib/ceph.sh start [MOUNTDIR [NCLIENTS]]
#             bash tests/lib/ceph.sh status
#             bash tests/lib/ceph.sh stop [SCRATCH]
#
# In a test: ceph_start_or_skip (the cluster, or exit 77 / 1); a backend's
# test's other steps are in tests/mpi/ceph_lib.sh.
#
# How: every daemon runs in the foreground (-f, no systemd) under setsid, its
# PID recorded, on one ceph.conf in a scratch directory /tmp/pfsceph.XXXXXX
# that puts its data, run directory (admin sockets), logs and crash reports
# there. Everything binds to 127.0.0.1: the monitor on 3300 (msgr2) and 6789
# (msgr1), the manager, OSDs and MDS in 6800-7300, radosgw on 7480. The ports
# are fixed, so there is one cluster per machine at a time (a lock). The OSDs
# are BlueStore on sparse files in the scratch directory (memstore would keep
# every byte in memory, once per replica). Authentication is off (auth none;
# radosgw then needs `ms mon client mode = crc`); the S3 user's keys are made
# by radosgw-admin and kept in a file of mode 0600 ($CEPH_S3_ENV), never on
# a command line. Teardown is by PID, in the order radosgw, clients, MDS,
# OSDs, manager, monitor, then a check that no process, mount or listening
# port of the cluster is left.
#
# Skips: ceph_start returns 77 (and prints "SKIP: Ceph tests not run: WHY")
# when not root, /dev/fuse or a Ceph binary is missing, less than
# CEPH_MIN_MEM_MB of memory is available, a port it needs is taken, or another
# test held the cluster lock for CEPH_LOCK_WAIT seconds. A cluster that does
# not come up is a failure (1), with the log lines that say why.
#
# Exported after ceph_start / ceph_mount:
#     CEPH_SCRATCH CEPH_CONF CEPH_FSID CEPH_FS CEPH_POOL CEPH_S3_ENV CEPH_RGW_URL
#     CEPH_OSD_PIDS[i]    ceph-osd PIDs, OSD i (0 .. 2)
#     CEPH_MOUNTS[i]      mount points made by ceph_mount, in order
#     CEPH_CLIENT_PIDS[i] their ceph-fuse PIDs
#     CEPH_T_MON CEPH_T_OSD CEPH_T_RGW CEPH_T_UP CEPH_T_MOUNT CEPH_T_STOP
#                         seconds: monitor answering, OSDs up, radosgw
#                         answering, start to ready (HEALTH_OK, PGs clean),
#                         mounts, teardown

CEPH_PORTS="3300 6789 7480"          # monitor msgr2 and msgr1, radosgw
CEPH_RGW_PORT=7480
CEPH_NOSD=3
CEPH_FS=cephfs                       # the file system
CEPH_POOL=pfs_rados                  # a pool for the tests' own objects
CEPH_START_WAIT=${CEPH_START_WAIT:-60}    # seconds for each step to come up
CEPH_HEALTH_WAIT=${CEPH_HEALTH_WAIT:-90}  # seconds for the last step: ready
CEPH_CLI_TIMEOUT=${CEPH_CLI_TIMEOUT:-30}  # seconds for one ceph command
CEPH_MIN_MEM_MB=${CEPH_MIN_MEM_MB:-2048}  # its test peaked at 754 MB here
CEPH_LOCK=/usr/bin/ceph-mon               # the flock is on the packaged binary
# The manager modules Ceph 16 cannot run without ("always on"); the optional
# ones are not even loaded.
CEPH_MGR_MODULES="balancer crash devicehealth orchestrator pg_autoscaler progress rbd_support status telemetry volumes"
CEPH_T_MON='' CEPH_T_OSD='' CEPH_T_RGW='' CEPH_T_UP='' CEPH_T_MOUNT='' CEPH_T_STOP=''
CEPH_OSD_PIDS=() CEPH_MOUNTS=() CEPH_CLIENT_PIDS=()
CEPH_SCRATCH=${CEPH_SCRATCH:-}
PATH=$PATH:/usr/sbin:/sbin
CEPH_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

ceph__now() { date +%s.%N; }
ceph__since() { awk -v a="$1" -v b="$(ceph__now)" 'BEGIN { printf "%.2f", b - a }'; }
ceph__log() { echo "ceph: $*" >&2; }
# CEPH_SKIP_REASON keeps the why for a caller that prints its own summary.
ceph_skip() { echo "SKIP: Ceph tests not run: $*" >&2; export CEPH_SKIP_REASON="$*"; }

# ceph_cli ARGS...: the ceph CLI against this cluster, bounded.
ceph_cli() {
    timeout -k 5 "$CEPH_CLI_TIMEOUT" ceph -c "$CEPH_SCRATCH/ceph.conf" --connect-timeout 20 "$@" {CEPH_LOCKFD}<&-
}

# ceph__is_ours PROGRAM: PROGRAM (a base name) is one of Ceph's own, the
# only programs the harness ever signals.
ceph__is_ours() {
    case $1 in ceph-mon | ceph-mgr | ceph-osd | ceph-mds | ceph-fuse | radosgw | radosgw-admin | ceph | rados) return 0 ;; esac
    return 1
}

# Processes of this harness: every one whose command line names the scratch
# directory's ceph.conf (each is started with -c CONF), or whose PID a pid
# file holds; live ones only (zombies are gone, only not yet reaped).
ceph__pids() {
    local s=${1:-$CEPH_SCRATCH} p f args prog st
    {
        pgrep -f -- "$s/ceph.conf" || true
        for f in "$s"/pids/*.pid; do
            [ -s "$f" ] && cat "$f" 2>/dev/null
        done
    } | sort -un | while read -r p; do
        [ -n "$p" ] && [ -r "/proc/$p/cmdline" ] || continue
        # The program from the command line, not comm (the daemons rename
        # their main thread); the ceph CLI is a Python script.
        args=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)
        prog=${args%% *}
        case ${prog##*/} in python3*) prog=${args#* } prog=${prog%% *} ;; esac
        ceph__is_ours "${prog##*/}" || continue
        case $args in *"$s/ceph.conf"*) ;; *) grep -qx "$p" "$s"/pids/*.pid 2>/dev/null || continue ;; esac
        st=$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)
        [ "$st" = Z ] || echo "$p"
    done
}

# ceph__pid NAME: the live PID the harness recorded for daemon NAME (mon.a,
# osd.1, client.m3 ...), or nothing.
ceph__pid() {
    local p
    p=$(cat "$CEPH_SCRATCH/pids/$1.pid" 2>/dev/null) || return 1
    [ -n "$p" ] && [ -d "/proc/$p" ] && [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" != Z ] && echo "$p"
}
ceph_osd_pid() { ceph__pid "osd.$1"; }

# ceph__mounted DIR: DIR is a mount point in /proc/mounts.
ceph__mounted() { awk -v d="$1" '$2 == d { f = 1 } END { exit !f }' /proc/mounts; }

# ceph__listening PORT: something listens on TCP PORT (any address).
ceph__listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }

# ceph_listeners: "ADDR:PORT PID" of every listening TCP socket of the
# harness's processes (for the check that all are on loopback).
ceph_listeners() {
    local pids p
    pids=$(ceph__pids)
    [ -n "$pids" ] || return 0
    ss -Hltnp 2>/dev/null | while read -r _ _ _ local _ users; do
        for p in $pids; do
            case $users in *"pid=$p,"*) echo "$local $p" ;; esac
        done
    done
}

# Paths outside the scratch directory the packages made; a daemon that
# wrote there (a setting missed) is reported, not cleaned up blindly.
CEPH_GLOBAL_DIRS="/var/run/ceph /var/log/ceph /var/lib/ceph /etc/ceph"

ceph__unlock() {
    [ -n "${CEPH_LOCKFD:-}" ] || return 0
    flock -u "$CEPH_LOCKFD" 2>/dev/null
    exec {CEPH_LOCKFD}<&-
    CEPH_LOCKFD=
}

# ceph__reap_stale: stop the clusters of tests that died without their EXIT
# trap (SIGKILL, a ctest timeout): their owner PID is gone.
ceph__reap_stale() {
    local d owner
    for d in /tmp/pfsceph.*; do
        [ -f "$d/state" ] || continue
        owner=$(sed -n 's/^CEPH_OWNER=//p' "$d/state")
        [ "$owner" = manual ] && continue
        [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null && continue
        ceph__log "reaping a stale cluster in $d (its test, pid $owner, is gone)"
        (CEPH_SCRATCH=$d; ceph_stop) || true
    done
}

# ceph__spawn NAME PROGRAM ARGS...: start one daemon in the foreground of
# its own session, its output in log/NAME.out, its PID in pids/NAME.pid.
# The process writes its own PID before it becomes the daemon (exec): with
# job control on, setsid forks and $! would be setsid's, not the daemon's.
ceph__spawn() {
    local name=$1 pf=$CEPH_SCRATCH/pids/$1.pid i
    shift
    setsid sh -c 'echo $$ >"$0" && exec "$@"' "$pf" "$@" </dev/null >"$CEPH_SCRATCH/log/$name.out" 2>&1 {CEPH_LOCKFD}<&- &
    # Out of the job table: bash would report the MDS's SIGKILL at the stop.
    disown "$!" 2>/dev/null
    for ((i = 0; i < 100; i++)); do [ -s "$pf" ] && return 0; sleep 0.02; done
    ceph__log "$name did not start"
    return 1
}

# ceph__wait SECONDS WHAT CMD...: run CMD every 0.2 s until it succeeds,
# for at most SECONDS of wall time (a CLI call itself can take a second).
ceph__wait() {
    local limit=$1 what=$2 end
    shift 2
    end=$(($(date +%s) + limit))
    while [ "$(date +%s)" -lt "$end" ]; do
        "$@" >/dev/null 2>&1 && return 0
        sleep 0.2
    done
    ceph__log "$what did not happen within $limit s"
    return 1
}

# ceph__alive NAME: the daemon NAME the harness started still runs.
ceph__alive() { ceph__pid "$1" >/dev/null; }

# ceph__fail WHAT LOG...: report a start that went wrong, with the last lines
# of the logs that say why, and stop what was started. Returns 1.
ceph__fail() {
    local what=$1 f
    shift
    ceph__log "FAILED: $what"
    for f in "$@"; do
        [ -s "$f" ] && { ceph__log "--- ${f#"$CEPH_SCRATCH"/}"; tail -n 8 "$f" | sed 's/^/ceph:   /' >&2; }
    done
    ceph_stop >/dev/null
    return 1
}

# ceph__conf: the cluster's configuration, in the scratch directory.
ceph__conf() {
    local s=$CEPH_SCRATCH
    cat >"$s/ceph.conf" <<EOF
[global]
fsid = $CEPH_FSID
mon initial members = a
mon host = [v2:127.0.0.1:3300,v1:127.0.0.1:6789]
public addr = 127.0.0.1
public network = 127.0.0.1/32
cluster network = 127.0.0.1/32
ms bind ipv6 = false
# No cephx: nothing leaves loopback. radosgw loops on authentication and
# never opens its port unless the monitor connection is crc only.
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc
# Only cephx clients reclaim a global id; with auth none the default (allow)
# is a standing health warning.
auth allow insecure global id reclaim = false
run dir = $s/run
crash dir = $s/crash
log file = $s/log/\$name.log
mon cluster log file = $s/log/\$cluster.\$channel.log
# One host, three OSDs: replicas go to OSDs, and one OSD's report is enough
# to mark another down (else OSDs on one host are never marked down).
osd crush chooseleaf type = 0
mon osd min down reporters = 1
mon osd reporter subtree level = osd
osd pool default size = 2
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool delete = true
# Each map change waits this long before it is proposed (1 s by default):
# start-up is a few dozen of them.
paxos propose interval = 0.1
# The machine's disk is shared with everything else: do not turn its
# fullness into a health warning.
mon data avail warn = 2
mon data avail crit = 1
# None of the manager's optional modules (restful, iostat and nfs by
# default); the monitor reads this when it makes the first manager map.
mgr initial modules =
# Memory: the machine is shared; the defaults would let the daemons grow
# to several GiB each.
mon memory target = 268435456
osd memory target = 536870912
osd memory cache min = 67108864
mds cache memory limit = 134217728
[mon]
mon data = $s/mon/\$cluster-\$id
[mgr]
mgr data = $s/mgr/\$cluster-\$id
# The always-on modules that would act by themselves, idle: device health
# scraping (it makes a pool and runs smartctl) and the balancer.
mgr/devicehealth/enable_monitoring = false
mgr/balancer/active = false
# Only the always-on modules are there to load: loading every module the
# package ships took 12 of the manager's 15 s to become active here.
mgr module path = $s/mgr/modules
[osd]
osd data = $s/osd/\$cluster-\$id
osd objectstore = bluestore
bluestore block size = 10737418240
bluestore block create = true
[mds]
mds data = $s/mds/\$cluster-\$id
[client]
# Clients (ceph CLI, rados, ceph-fuse, radosgw) each get their own admin
# socket: two ceph-fuse mounts as client.admin would fight over one.
admin socket = $s/run/\$cluster-\$name.\$pid.asok
log file = $s/log/\$name.\$pid.log
client oc size = 67108864
client oc max dirty = 33554432
[client.rgw.gw]
rgw frontends = beast endpoint=127.0.0.1:$CEPH_RGW_PORT
rgw data = $s/rgw
rgw thread pool size = 16
EOF
}

# ceph_start: the whole cluster, to HEALTH_OK. Returns 0, 77 (skip; the
# reason is printed) or 1 (a real failure; what was started is stopped).
ceph_start() {
    local t0 t1 b p mem i d
    CEPH_SKIP_REASON=''
    [ "$(id -u)" -eq 0 ] || { ceph_skip "not root (the daemons' ports and FUSE mounts need root)"; return 77; }
    [ -c /dev/fuse ] || { ceph_skip "/dev/fuse is missing"; return 77; }
    for b in ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse radosgw radosgw-admin ceph rados monmaptool uuidgen ss; do
        command -v "$b" >/dev/null 2>&1 || { ceph_skip "$b is not installed (scripts/install-deps.sh installs it: ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse radosgw ceph-common iproute2)"; return 77; }
    done
    mem=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
    [ "${mem:-0}" -ge "$CEPH_MIN_MEM_MB" ] || { ceph_skip "only ${mem:-?} MB of memory available, the cluster needs $CEPH_MIN_MEM_MB"; return 77; }
    # One cluster at a time on this machine (the ports are fixed): a second
    # test waits for the first, bounded. The flock is on a packaged file,
    # so none is made for it; it goes with the descriptor.
    if [ -z "${CEPH_LOCKFD:-}" ]; then
        exec {CEPH_LOCKFD}<"$CEPH_LOCK" || { ceph_skip "cannot open $CEPH_LOCK"; return 77; }
        if ! flock -n "$CEPH_LOCKFD"; then
            ceph__log "another Ceph test holds the cluster lock; waiting up to ${CEPH_LOCK_WAIT:-300} s"
            flock -w "${CEPH_LOCK_WAIT:-300}" "$CEPH_LOCKFD" || {
                ceph_skip "another Ceph test held the cluster for ${CEPH_LOCK_WAIT:-300} s"
                ceph__unlock
                return 77
            }
        fi
    fi
    ceph__reap_stale
    for p in $CEPH_PORTS; do
        if ceph__listening "$p"; then
            ceph_skip "port $p is taken ($(ss -Hltnp "sport = :$p" 2>/dev/null | head -n 1)); one Ceph cluster per machine"
            ceph__unlock
            return 77
        fi
    done
    CEPH_SCRATCH=$(mktemp -d /tmp/pfsceph.XXXXXX) || return 1
    CEPH_SCRATCH_MINE=$CEPH_SCRATCH
    CEPH_CONF=$CEPH_SCRATCH/ceph.conf
    CEPH_FSID=$(uuidgen)
    CEPH_S3_ENV=$CEPH_SCRATCH/s3.env
    CEPH_RGW_URL=http://127.0.0.1:$CEPH_RGW_PORT
    CEPH_OSD_PIDS=() CEPH_MOUNTS=() CEPH_CLIENT_PIDS=()
    mkdir -p "$CEPH_SCRATCH"/{run,log,crash,pids,mon,mgr,osd,mds,rgw} || return 1
    for d in $CEPH_GLOBAL_DIRS; do
        find "$d" -mindepth 1 2>/dev/null >>"$CEPH_SCRATCH/global.before"
    done
    cat >"$CEPH_SCRATCH/state" <<EOF
CEPH_OWNER=${CEPH_OWNER:-$$}
CEPH_FSID=$CEPH_FSID
EOF
    ceph__conf || return 1
    export CEPH_SCRATCH CEPH_CONF CEPH_FSID CEPH_FS CEPH_POOL CEPH_S3_ENV CEPH_RGW_URL
    if [ -z "${CEPH_NO_TRAP:-}" ]; then
        # Chain, not replace, the EXIT trap the test library set (it removes $T).
        local prev
        prev=$(trap -p EXIT)
        prev=${prev#trap -- }
        prev=${prev% EXIT}
        eval "CEPH__PREV_TRAP=$prev"
        trap 'ceph__exit_trap' EXIT
        trap 'exit 143' TERM
        trap 'exit 130' INT
        trap 'exit 129' HUP
    fi

    # The monitor, from a monmap that names it on loopback.
    t0=$(ceph__now)
    monmaptool --create --fsid "$CEPH_FSID" --addv a '[v2:127.0.0.1:3300,v1:127.0.0.1:6789]' \
        "$CEPH_SCRATCH/monmap" >"$CEPH_SCRATCH/log/monmap.out" 2>&1 ||
        { ceph__fail "monmaptool" "$CEPH_SCRATCH/log/monmap.out"; return 1; }
    mkdir -p "$CEPH_SCRATCH/mon/ceph-a"
    ceph-mon -c "$CEPH_CONF" -i a --mkfs --monmap "$CEPH_SCRATCH/monmap" >"$CEPH_SCRATCH/log/mon-mkfs.out" 2>&1 ||
        { ceph__fail "ceph-mon --mkfs" "$CEPH_SCRATCH/log/mon-mkfs.out"; return 1; }
    ceph__spawn mon.a ceph-mon -c "$CEPH_CONF" -i a -f
    ceph__wait "$CEPH_START_WAIT" "the monitor answering" ceph_cli mon stat ||
        { ceph__fail "the monitor did not answer" "$CEPH_SCRATCH/log/mon.a.log" "$CEPH_SCRATCH/log/mon.a.out"; return 1; }
    CEPH_T_MON=$(ceph__since "$t0")
    # The manager first: it is the slowest to come up (its Python modules).
    mkdir -p "$CEPH_SCRATCH/mgr/ceph-x" "$CEPH_SCRATCH/mgr/modules"
    for b in $CEPH_MGR_MODULES mgr_module.py mgr_util.py; do
        ln -s "/usr/share/ceph/mgr/$b" "$CEPH_SCRATCH/mgr/modules/$b" || return 1
    done
    ceph__spawn mgr.x ceph-mgr -c "$CEPH_CONF" -i x -f
    # BlueStore on a sparse file for each OSD, made in parallel while the
    # monitor takes the batch below (mkfs is most of an OSD's start; the
    # OSD needs its id only when it boots).
    t1=$(ceph__now)
    local -a uuids=()
    for ((i = 0; i < CEPH_NOSD; i++)); do uuids+=("$(uuidgen)"); done
    for ((i = 0; i < CEPH_NOSD; i++)); do
        mkdir -p "$CEPH_SCRATCH/osd/ceph-$i"
        ceph-osd -c "$CEPH_CONF" -i "$i" --mkfs --osd-uuid "${uuids[i]}" >"$CEPH_SCRATCH/log/osd.$i-mkfs.out" 2>&1 {CEPH_LOCKFD}<&- &
        echo "$!" >"$CEPH_SCRATCH/pids/mkfs.$i.pid"
    done
    # The OSDs' ids (new OSDs get 0, 1, 2), and the pools (before any
    # client, radosgw included, would make its own with other settings; the
    # manager's device-health module makes its pool whether monitoring is on
    # or not, and a pool made after the cluster is ready leaves it unclean
    # for a moment): the monitor takes all of it in one CLI call.
    ceph__batch "${uuids[@]/#/osd new }" \
        "osd pool create cephfs_metadata" "osd pool create cephfs_data" \
        "osd pool create device_health_metrics 1" "osd pool application enable device_health_metrics mgr_devicehealth" \
        "fs new $CEPH_FS cephfs_metadata cephfs_data" \
        "osd pool create $CEPH_POOL" "osd pool application enable $CEPH_POOL rados" \
        "osd pool create .rgw.root" "osd pool create default.rgw.control" "osd pool create default.rgw.meta" \
        "osd pool create default.rgw.log" "osd pool create default.rgw.buckets.index" \
        "osd pool create default.rgw.buckets.data" "osd pool create default.rgw.buckets.non-ec" \
        "osd pool application enable .rgw.root rgw" "osd pool application enable default.rgw.control rgw" \
        "osd pool application enable default.rgw.meta rgw" "osd pool application enable default.rgw.log rgw" \
        "osd pool application enable default.rgw.buckets.index rgw" \
        "osd pool application enable default.rgw.buckets.data rgw" \
        "osd pool application enable default.rgw.buckets.non-ec rgw" ||
        { ceph__fail "creating the pools" "$CEPH_SCRATCH/log/batch.out"; return 1; }
    # The OSDs, each once its BlueStore is made.
    for ((i = 0; i < CEPH_NOSD; i++)); do
        wait "$(cat "$CEPH_SCRATCH/pids/mkfs.$i.pid")" ||
            { ceph__fail "ceph-osd --mkfs of osd.$i" "$CEPH_SCRATCH/log/osd.$i-mkfs.out" "$CEPH_SCRATCH/log/osd.$i.log"; return 1; }
        rm -f "$CEPH_SCRATCH/pids/mkfs.$i.pid"
        ceph__spawn "osd.$i" ceph-osd -c "$CEPH_CONF" -i "$i" -f
    done
    mkdir -p "$CEPH_SCRATCH/mds/ceph-a"
    ceph__spawn mds.a ceph-mds -c "$CEPH_CONF" -i a -f
    ceph__wait "$CEPH_START_WAIT" "$CEPH_NOSD OSDs up" ceph__osds_up ||
        { ceph__fail "the OSDs did not come up" "$CEPH_SCRATCH"/log/osd.*.log; return 1; }
    CEPH_T_OSD=$(ceph__since "$t1")
    CEPH_OSD_PIDS=()
    for ((i = 0; i < CEPH_NOSD; i++)); do CEPH_OSD_PIDS+=("$(ceph_osd_pid "$i")"); done

    # The gateway, once its pools can take writes, and its S3 user.
    t1=$(ceph__now)
    mkdir -p "$CEPH_SCRATCH/rgw/ceph-gw"
    ceph__spawn client.rgw.gw radosgw -c "$CEPH_CONF" -n client.rgw.gw -f
    ceph__wait "$CEPH_START_WAIT" "radosgw answering on 127.0.0.1:$CEPH_RGW_PORT" ceph__rgw_answers ||
        { ceph__fail "radosgw did not answer" "$CEPH_SCRATCH/log/client.rgw.gw.out" "$(ls -t "$CEPH_SCRATCH"/log/client.rgw.gw.*.log 2>/dev/null | head -n 1)"; return 1; }
    ceph__s3_user || { ceph__fail "making the S3 user" "$CEPH_SCRATCH/log/s3user.err"; return 1; }
    CEPH_T_RGW=$(ceph__since "$t1")

    ceph__wait "$CEPH_HEALTH_WAIT" "HEALTH_OK" ceph__ready ||
        { ceph__fail "not ready within $CEPH_HEALTH_WAIT s: $(cat "$CEPH_SCRATCH/log/ready.out")" "$CEPH_SCRATCH/log/mgr.x.log"; return 1; }
    CEPH_T_UP=$(ceph__since "$t0")
    ceph__log "cluster $CEPH_FSID up in $CEPH_SCRATCH: HEALTH_OK after $CEPH_T_UP s (monitor $CEPH_T_MON s, OSDs $CEPH_T_OSD s, radosgw $CEPH_T_RGW s); OSD pids ${CEPH_OSD_PIDS[*]}"
    return 0
}

# ceph__batch CMD...: several ceph commands in one CLI process (its
# interactive mode reads them from stdin); each that fails is an error.
ceph__batch() {
    printf '%s\n' "$@" | ceph_cli >"$CEPH_SCRATCH/log/batch.out" 2>&1 || return 1
    ! grep -qiE '^Error|EINVAL|ENOENT|EPERM' "$CEPH_SCRATCH/log/batch.out"
}

ceph__osds_up() {
    local n
    n=$(ceph_cli osd stat 2>/dev/null | sed -n 's/.* \([0-9]*\) up.*/\1/p')
    [ "${n:-0}" -eq "$CEPH_NOSD" ]
}

# ceph__ready: HEALTH_OK, an active manager, every OSD up and in, the MDS
# active and every placement group active+clean (tests/lib/ceph_ready.py);
# what is missing goes to log/ready.out.
ceph__ready() {
    ceph_cli status --format json 2>&1 | /usr/bin/python3 "$CEPH_LIB/ceph_ready.py" "$CEPH_NOSD" >"$CEPH_SCRATCH/log/ready.out"
}

# radosgw answers an anonymous GET / with an XML bucket list (bash's
# /dev/tcp: no HTTP client needed).
ceph__rgw_answers() {
    ceph__alive client.rgw.gw || return 2
    timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0" && printf "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" >&3 && cat <&3' \
        "$CEPH_RGW_PORT" 2>/dev/null | grep -q ListAllMyBucketsResult
}

# ceph__s3_user: a user made by radosgw-admin, which generates its keys;
# they go from its output (a file, not a pipe ps could show) into
# $CEPH_S3_ENV, mode 0600, as libs3's variables.
ceph__s3_user() {
    local out=$CEPH_SCRATCH/s3user.json ak sk
    (umask 077 && timeout -k 5 60 radosgw-admin -c "$CEPH_CONF" user create --uid=pfsbench --display-name=pfsbench \
        >"$out" 2>"$CEPH_SCRATCH/log/s3user.err" {CEPH_LOCKFD}<&-) || return 1
    ak=$(sed -n 's/.*"access_key": "\([^"]*\)".*/\1/p' "$out" | head -n 1)
    sk=$(sed -n 's/.*"secret_key": "\([^"]*\)".*/\1/p' "$out" | head -n 1)
    rm -f "$out"
    [ -n "$ak" ] && [ -n "$sk" ] || { echo "no keys in radosgw-admin's answer" >>"$CEPH_SCRATCH/log/s3user.err"; return 1; }
    (umask 077 && printf 'export S3_ACCESS_KEY_ID=%s\nexport S3_SECRET_ACCESS_KEY=%s\nexport S3_HOSTNAME=127.0.0.1:%s\n' \
        "$ak" "$sk" "$CEPH_RGW_PORT" >"$CEPH_S3_ENV")
}

ceph__exit_trap() {
    local rc=$?
    if [ -n "$CEPH_SCRATCH" ] && [ -d "$CEPH_SCRATCH" ]; then
        ceph_stop || { echo "FAIL - ceph: teardown left things behind (see above)"; [ "$rc" -eq 0 ] && rc=1; }
    fi
    eval "${CEPH__PREV_TRAP:-}"
    exit "$rc"
}

# ceph_mount DIR [N]: one ceph-fuse client mounted at DIR, or with N, N
# clients at DIR/1 .. DIR/N. Each is its own process (its own caches), as a
# client on another node would be. Returns 1 when one does not come up.
ceph_mount() {
    local dir=$1 n=${2:-} i m t0 k name
    local -a list=()
    if [ -z "$n" ]; then list=("$dir"); else for ((i = 1; i <= n; i++)); do list+=("$dir/$i"); done; fi
    t0=$(ceph__now)
    for m in "${list[@]}"; do
        mkdir -p "$m" || return 1
        k=$(($(cat "$CEPH_SCRATCH/mounts" 2>/dev/null | wc -l) + 1))
        name=client.m$k
        printf '%s\t%s\n' "$m" "$name" >>"$CEPH_SCRATCH/mounts"
        ceph__spawn "$name" ceph-fuse -c "$CEPH_CONF" -f "$m"
        for ((i = 0; i < 200; i++)); do
            ceph__mounted "$m" && timeout 10 stat -f "$m" >/dev/null 2>&1 && break
            ceph__alive "$name" || break
            sleep 0.1
        done
        ceph__mounted "$m" || { ceph__log "$m did not mount: $(tail -n 3 "$CEPH_SCRATCH/log/$name.out" | tr '\n' ' ')"; return 1; }
        CEPH_MOUNTS+=("$m")
        CEPH_CLIENT_PIDS+=("$(ceph__pid "$name")")
    done
    CEPH_T_MOUNT=$(ceph__since "$t0")
    ceph__log "mounted ${list[*]} in ${CEPH_T_MOUNT} s (ceph-fuse pids ${CEPH_CLIENT_PIDS[*]})"
}

# ceph__term SECONDS NAME...: SIGTERM the daemons NAME (as recorded), wait
# up to SECONDS for them to go, then SIGKILL what is left.
ceph__term() {
    local limit=$1 n p w pids=''
    shift
    for n in "$@"; do p=$(ceph__pid "$n") && pids="$pids $p"; done
    [ -n "$pids" ] || return 0
    kill -CONT $pids 2>/dev/null
    kill -TERM $pids 2>/dev/null
    for ((w = 0; w < limit * 10; w++)); do
        for p in $pids; do [ -d "/proc/$p" ] && [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" != Z ] && break; p=; done
        [ -z "$p" ] && return 0
        sleep 0.1
    done
    kill -KILL $pids 2>/dev/null
    sleep 0.2
}

# ceph_stop [SCRATCH]: stop radosgw, unmount every client, stop the MDS,
# the OSDs, the manager and the monitor, each by its PID; then end anything
# else of the cluster, remove the scratch directory and check that no
# process, mount or listening port of it is left. Returns 1 (and says what)
# when something is. Safe to call twice.
ceph_stop() {
    local s=${1:-$CEPH_SCRATCH} t0 m name p left=0 pids d e i
    local -a names=()
    [ -n "$s" ] && [ -d "$s" ] || return 0
    case $s in /tmp/pfsceph.*) ;; *) ceph__log "refusing to stop '$s': not a harness scratch directory"; return 1 ;; esac
    t0=$(ceph__now)
    local CEPH_SCRATCH=$s
    # A stopped OSD would block the unmount (and the MDS's shutdown).
    pids=$(ceph__pids "$s")
    [ -n "$pids" ] && kill -CONT $pids 2>/dev/null
    ceph__term 5 client.rgw.gw
    if [ -f "$s/mounts" ]; then
        tac "$s/mounts" | while IFS=$'\t' read -r m name; do
            if ceph__mounted "$m"; then
                timeout -k 2 15 umount "$m" 2>/dev/null || timeout -k 2 10 umount -l "$m" ||
                    ceph__log "could not unmount $m"
            fi
        done
        # ceph-fuse ends by itself once unmounted.
        mapfile -t names < <(cut -f2 "$s/mounts")
        ceph__term 5 "${names[@]}"
    fi
    # The MDS would wait for its journal to flush to the OSDs: no need.
    ceph__term 1 mds.a
    names=()
    for ((i = 0; i < CEPH_NOSD; i++)); do names+=("osd.$i"); done
    ceph__term 10 "${names[@]}"
    ceph__term 5 mgr.x
    ceph__term 5 mon.a
    # Whatever else of the cluster runs (a CLI, radosgw-admin, mkfs).
    for i in 1 2; do
        pids=$(ceph__pids "$s")
        [ -z "$pids" ] && break
        kill -CONT $pids 2>/dev/null
        kill -TERM $pids 2>/dev/null
        sleep 1
        pids=$(ceph__pids "$s")
        [ -n "$pids" ] && kill -KILL $pids 2>/dev/null && sleep 0.3
    done
    # Mounts whose client died underneath still need the umount.
    if [ -f "$s/mounts" ]; then
        while IFS=$'\t' read -r m name; do
            ceph__mounted "$m" && { umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; }
        done <"$s/mounts"
    fi
    CEPH_T_STOP=$(ceph__since "$t0")
    # The checks: no process, no mount, no port, nothing written outside.
    pids=$(ceph__pids "$s")
    if [ -n "$pids" ]; then
        left=1
        for p in $pids; do ceph__log "LEFTOVER process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"; done
    fi
    if [ -f "$s/mounts" ]; then
        while IFS=$'\t' read -r m name; do
            ceph__mounted "$m" && { left=1; ceph__log "LEFTOVER mount $m"; }
        done <"$s/mounts"
    fi
    for p in $CEPH_PORTS; do
        ceph__listening "$p" && { left=1; ceph__log "LEFTOVER listener on port $p: $(ss -Hltnp "sport = :$p" | head -n 1)"; }
    done
    if [ -f "$s/global.before" ]; then
        for d in $CEPH_GLOBAL_DIRS; do
            while IFS= read -r e; do
                grep -qxF "$e" "$s/global.before" && continue
                left=1
                ceph__log "LEFTOVER $e (made while the cluster ran, outside its scratch directory)"
            done < <(find "$d" -mindepth 1 2>/dev/null)
        done
    fi
    rm -rf "$s" 2>/dev/null
    [ -e "$s" ] && { left=1; ceph__log "LEFTOVER $s (could not remove it)"; }
    ceph__log "stopped the cluster in ${CEPH_T_STOP} s$([ "$left" -ne 0 ] && echo ', with LEFTOVERS')"
    # This shell's own cluster is down: let the next test have the ports.
    [ "$s" = "${CEPH_SCRATCH_MINE:-}" ] && ceph__unlock
    return "$left"
}

# ceph_start_or_skip: the cluster, or the test ends: exit 77 (skipped, the
# reason said) or 1 (it did not start).
ceph_start_or_skip() {
    local rc=0
    ceph_start || rc=$?
    [ "$rc" -eq 77 ] && exit 77
    [ "$rc" -eq 0 ] || { echo "FAIL - ceph: the cluster did not start (rc $rc)"; exit 1; }
    echo "# the cluster: HEALTH_OK after ${CEPH_T_UP} s"
}

# Run as a script: ceph.sh start|stop|status.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -u
    case ${1:-} in
        start)
            CEPH_NO_TRAP=1 CEPH_OWNER=manual
            ceph_start || exit $?
            if [ -n "${2:-}" ]; then ceph_mount "$2" ${3:+"$3"} || { ceph_stop; exit 1; }; fi
            echo "CEPH_SCRATCH=$CEPH_SCRATCH"
            echo "CEPH_CONF=$CEPH_CONF"
            echo "CEPH_S3_ENV=$CEPH_S3_ENV"
            echo "CEPH_OSD_PIDS=(${CEPH_OSD_PIDS[*]})"
            echo "CEPH_MOUNTS=(${CEPH_MOUNTS[*]})"
            echo "stop it with: bash $0 stop $CEPH_SCRATCH"
            ;;
        stop)
            rc=0
            if [ -n "${2:-}" ]; then ceph_stop "$2" || rc=1; else
                for d in /tmp/pfsceph.*; do [ -f "$d/state" ] && { ceph_stop "$d" || rc=1; }; done
            fi
            exit $rc
            ;;
        status)
            for d in /tmp/pfsceph.*; do
                [ -f "$d/state" ] || continue
                CEPH_SCRATCH=$d
                echo "$d: processes: $(ceph__pids "$d" | tr '\n' ' ')"
                [ -f "$d/mounts" ] && cut -f1 "$d/mounts" | while read -r m; do
                    ceph__mounted "$m" && echo "  mounted $m" || echo "  not mounted $m"
                done
                ceph_cli -s 2>/dev/null | sed 's/^/  /'
            done
            ;;
        *)
            echo "usage: $0 start [MOUNTDIR [NCLIENTS]] | stop [SCRATCH] | status" >&2
            exit 2
            ;;
    esac
fi
