# glusterfs.sh: a GlusterFS volume on this machine, from nothing, for tests.
#
# Source it (bash) from a test:
#     . tests/lib/glusterfs.sh
#     gl_start 2 || exit $?          # glusterd + a 2-brick distribute volume; 77 = skip
#     gl_mount "$T/a"                # a FUSE client mounted at $T/a
#     gl_mount "$T/c" 2              # two more clients: $T/c/1 and $T/c/2
#     ... "${GL_BRICKS[@]}" "${GL_MOUNTS[@]}" "$(gl_brick_pid 1)" ...
#     gl_stop || echo leftovers      # also run by the EXIT trap gl_start sets
#
# or run it:  bash tests/lib/glusterfs.sh start [NBRICKS [MOUNTDIR [NCLIENTS]]]
#             bash tests/lib/glusterfs.sh status
#             bash tests/lib/glusterfs.sh stop [SCRATCH]
#
# How: glusterd runs in the foreground (-N, no systemd) on a copy of
# /etc/glusterfs/glusterd.vol whose working directory, run directory, CLI
# socket and log directory all point into a scratch directory
# /tmp/pfsgl.XXXXXX, and whose listener (and, through glusterd, every brick's)
# is bound to 127.0.0.1. The volume (pfsgl_XXXXXX, unique per start) has its
# bricks in the scratch directory. Each gl_mount is a separate glusterfs FUSE
# client process: its own page cache, attribute cache and flock table.
# Everything the harness needs to tear down is written into the scratch
# directory (state, mounts), so `stop` works from another shell too, and a
# start reaps the scratch directories of earlier tests that were killed.
#
# Skips: gl_start returns 77 (and prints "SKIP: GlusterFS tests not run: WHY")
# when not root, /dev/fuse or the gluster binaries are missing, the host name
# does not resolve to loopback, port 24007 is taken (glusterd's bricks only
# find a glusterd on its default port), or glusterd does not answer in time.
#
# Exported after gl_start / gl_mount:
#     GL_SCRATCH GL_VOL GL_HOST GL_NBRICKS
#     GL_BRICKS[i]       brick directories (i = 0 .. n-1; brick k is GL_BRICKS[k-1])
#     GL_BRICK_PIDS[i]   glusterfsd PIDs, same order (gl_brick_pid K re-reads one)
#     GL_MOUNTS[i]       mount points made by gl_mount, in order
#     GL_CLIENT_PIDS[i]  their glusterfs client PIDs
#     GL_T_UP GL_T_CREATE GL_T_MOUNT GL_T_STOP   seconds each step took

GL_PORT=24007
GL_START_WAIT=${GL_START_WAIT:-30}    # seconds for glusterd to answer the CLI
GL_CLI_TIMEOUT=${GL_CLI_TIMEOUT:-60}  # seconds for one gluster command
GL_T_UP='' GL_T_CREATE='' GL_T_MOUNT='' GL_T_STOP=''
GL_BRICKS=() GL_BRICK_PIDS=() GL_MOUNTS=() GL_CLIENT_PIDS=()
GL_SCRATCH=${GL_SCRATCH:-}
PATH=$PATH:/usr/sbin:/sbin

gl__now() { date +%s.%N; }
gl__since() { awk -v a="$1" -v b="$(gl__now)" 'BEGIN { printf "%.2f", b - a }'; }
gl__log() { echo "glusterfs: $*" >&2; }
# GL_SKIP_REASON keeps the why for a caller that prints its own summary.
gl_skip() { echo "SKIP: GlusterFS tests not run: $*" >&2; export GL_SKIP_REASON="$*"; }

# gl_cli ARGS...: the gluster CLI against this harness's glusterd, bounded.
gl_cli() {
    timeout -k 5 "$GL_CLI_TIMEOUT" gluster --mode=script --glusterd-sock="$GL_SCRATCH/run/glusterd.socket" \
        --log-file="$GL_SCRATCH/log/cli.log" "$@"
}

# Processes of this harness: every gluster binary whose command line names the
# scratch directory (glusterd, bricks, self-heal daemon: their run and log
# paths are there), or this volume (clients), or whose PID a pid file holds.
# Zombies are not counted: they are gone, only not yet reaped.
gl__pids() {
    local s=${1:-$GL_SCRATCH} vol=${2:-$GL_VOL} p f comm st
    {
        pgrep -f -- "$s/" || true
        [ -n "$vol" ] && { pgrep -f -- "--volfile-id[= ]$vol( |$)" || true; }
        for f in "$s"/*.pid "$s"/clients/*.pid "$s"/run/vols/*/*.pid "$s"/run/*/*.pid; do
            [ -s "$f" ] && cat "$f" 2>/dev/null
        done
    } | sort -un | while read -r p; do
        [ -n "$p" ] && [ -r "/proc/$p/comm" ] || continue
        comm=$(cat "/proc/$p/comm" 2>/dev/null) || continue
        case $comm in glusterd | glusterfs | glusterfsd | glfs_*) ;; *) continue ;; esac
        st=$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)
        [ "$st" = Z ] || echo "$p"
    done
}

# gl__mounted DIR: DIR is a mount point in /proc/mounts.
gl__mounted() { awk -v d="$1" '$2 == d { f = 1 } END { exit !f }' /proc/mounts; }

# gl__other_glusterd: a live (not zombie) glusterd runs on this machine.
gl__other_glusterd() {
    local p
    for p in $(pgrep -x glusterd); do
        [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" = Z ] || return 0
    done
    return 1
}

gl__port_busy() {
    if command -v ss >/dev/null 2>&1; then
        ss -Hltn "sport = :$GL_PORT" 2>/dev/null | grep -q .
    else
        (exec 3<>"/dev/tcp/127.0.0.1/$GL_PORT") 2>/dev/null
    fi
}

# Paths outside the scratch directory that glusterd 10 creates whatever its
# working directory (brick sockets, snaps, geo-replication, ss_brick, logs).
GL_GLOBAL_DIRS="/var/run/gluster /var/lib/glusterd /var/log/glusterfs"

gl__unlock() {
    [ -n "${GL_LOCKFD:-}" ] || return 0
    flock -u "$GL_LOCKFD" 2>/dev/null
    exec {GL_LOCKFD}<&-
    GL_LOCKFD=
}

# gl__reap_stale: stop the harness instances of tests that died without
# their EXIT trap (SIGKILL, a ctest timeout): their owner PID is gone.
gl__reap_stale() {
    local d owner
    for d in /tmp/pfsgl.*; do
        [ -f "$d/state" ] || continue
        owner=$(sed -n 's/^GL_OWNER=//p' "$d/state")
        [ "$owner" = manual ] && continue
        [ -n "$owner" ] && kill -0 "$owner" 2>/dev/null && continue
        gl__log "reaping a stale volume in $d (its test, pid $owner, is gone)"
        (GL_SCRATCH=$d; gl_stop) || true
    done
}

# gl_start NBRICKS: glusterd, then a distribute volume of NBRICKS bricks,
# started. Returns 0, 77 (skip; the reason is printed) or 1 (a real failure;
# what was started is stopped again).
gl_start() {
    local n=${1:-2} t0 i b pid host addr
    GL_SKIP_REASON=''
    [ "$(id -u)" -eq 0 ] || { gl_skip "not root (glusterd and FUSE mounts need root)"; return 77; }
    [ -c /dev/fuse ] || { gl_skip "/dev/fuse is missing"; return 77; }
    for b in glusterd gluster glusterfs glusterfsd; do
        command -v "$b" >/dev/null 2>&1 || { gl_skip "$b is not installed (scripts/install-deps.sh installs glusterfs-server glusterfs-client)"; return 77; }
    done
    host=$(hostname)
    addr=$(getent ahostsv4 "$host" 2>/dev/null | awk 'NR == 1 { print $1 }')
    case $addr in
        127.*) ;;
        *) gl_skip "host name $host resolves to '${addr:-nothing}', not loopback (bricks must stay on 127.0.0.1)"; return 77 ;;
    esac
    # One volume at a time on this machine (the port is fixed): a second test
    # (ctest -j, another checkout) waits for the first, bounded, instead of
    # failing. The lock is an flock on the packaged volfile, so no file is
    # made for it; it goes with the descriptor, closed in gl_stop or at exit.
    if [ -z "${GL_LOCKFD:-}" ]; then
        exec {GL_LOCKFD}</etc/glusterfs/glusterd.vol || { gl_skip "cannot open /etc/glusterfs/glusterd.vol"; return 77; }
        if ! flock -n "$GL_LOCKFD"; then
            gl__log "another GlusterFS test holds the volume lock; waiting up to ${GL_LOCK_WAIT:-150} s"
            flock -w "${GL_LOCK_WAIT:-150}" "$GL_LOCKFD" || {
                gl_skip "another GlusterFS test held the volume for ${GL_LOCK_WAIT:-150} s"
                gl__unlock
                return 77
            }
        fi
    fi
    gl__reap_stale
    if gl__port_busy; then
        gl_skip "port $GL_PORT is taken (another glusterd runs: $(pgrep -a glusterd | head -1))"
        gl__unlock
        return 77
    fi
    GL_HOST=$host GL_NBRICKS=$n
    GL_SCRATCH=$(mktemp -d /tmp/pfsgl.XXXXXX) || return 1
    GL_VOL=pfsgl_${GL_SCRATCH##*.}
    GL_SCRATCH_MINE=$GL_SCRATCH
    mkdir -p "$GL_SCRATCH"/{wd,run,log,clients} || return 1
    for d in $GL_GLOBAL_DIRS; do
        ls -A "$d" 2>/dev/null | sed "s#^#$d/#" >>"$GL_SCRATCH/global.before"
    done
    cat >"$GL_SCRATCH/state" <<EOF
GL_OWNER=${GL_OWNER:-$$}
GL_VOL=$GL_VOL
GL_HOST=$GL_HOST
GL_NBRICKS=$n
EOF
    sed -e "s#^\( *option working-directory\).*#\1 $GL_SCRATCH/wd#" \
        -e "s#^\( *option transport.socket.listen-port\).*#\1 $GL_PORT#" \
        -e "/^end-volume/i\\    option run-directory $GL_SCRATCH/run\n    option glusterd-sockfile $GL_SCRATCH/run/glusterd.socket\n    option transport.socket.bind-address 127.0.0.1\n    option cluster-test-mode $GL_SCRATCH/log" \
        /etc/glusterfs/glusterd.vol >"$GL_SCRATCH/glusterd.vol" || return 1

    t0=$(gl__now)
    setsid glusterd -N -f "$GL_SCRATCH/glusterd.vol" -p "$GL_SCRATCH/glusterd.pid" \
        -l "$GL_SCRATCH/log/glusterd.log" </dev/null >"$GL_SCRATCH/log/glusterd.out" 2>&1 {GL_LOCKFD}<&- &
    pid=$!
    echo "$pid" >"$GL_SCRATCH/glusterd.pid"
    i=0
    until gl_cli volume list >/dev/null 2>&1; do
        if ! kill -0 "$pid" 2>/dev/null || [ "$i" -ge $((GL_START_WAIT * 5)) ]; then
            gl_skip "glusterd did not answer within ${GL_START_WAIT} s (log: $(tail -n 3 "$GL_SCRATCH/log/glusterd.log" 2>/dev/null | tr '\n' ' '))"
            gl_stop >/dev/null 2>&1
            return 77
        fi
        sleep 0.2
        i=$((i + 1))
    done
    GL_T_UP=$(gl__since "$t0")

    t0=$(gl__now)
    GL_BRICKS=()
    for ((i = 1; i <= n; i++)); do
        mkdir -p "$GL_SCRATCH/brick$i"
        GL_BRICKS+=("$GL_SCRATCH/brick$i")
    done
    # storage.reserve 0: the bricks share this machine's disk with the rest
    # of the suite, and the default (1% of the disk kept free) would turn a
    # moment of low space elsewhere into ENOSPC on the volume.
    if ! gl_cli volume create "$GL_VOL" "${GL_BRICKS[@]/#/$GL_HOST:}" force >"$GL_SCRATCH/log/create.out" 2>&1 ||
        ! gl_cli volume set "$GL_VOL" storage.reserve 0 >>"$GL_SCRATCH/log/create.out" 2>&1 ||
        ! gl_cli volume start "$GL_VOL" >>"$GL_SCRATCH/log/create.out" 2>&1; then
        gl__log "volume create/start failed: $(cat "$GL_SCRATCH/log/create.out")"
        gl_stop
        return 1
    fi
    # The bricks are up when each has a process (and gluster says online).
    GL_BRICK_PIDS=()
    for ((i = 1; i <= n; i++)); do
        b=
        for ((w = 0; w < 100; w++)); do
            b=$(gl_brick_pid "$i") && [ -n "$b" ] && break
            sleep 0.1
        done
        [ -n "$b" ] || { gl__log "brick $i has no process"; gl_stop; return 1; }
        GL_BRICK_PIDS+=("$b")
    done
    GL_T_CREATE=$(gl__since "$t0")
    export GL_SCRATCH GL_VOL GL_HOST GL_NBRICKS
    gl__log "volume $GL_VOL: $n bricks in $GL_SCRATCH, brick pids ${GL_BRICK_PIDS[*]}; glusterd up in ${GL_T_UP} s, create+start ${GL_T_CREATE} s"
    if [ -z "${GL_NO_TRAP:-}" ]; then
        # Chain, not replace, the EXIT trap the test library set (it removes $T).
        local prev
        prev=$(trap -p EXIT)
        prev=${prev#trap -- }
        prev=${prev% EXIT}
        eval "GL__PREV_TRAP=$prev"
        # shellcheck disable=SC2064
        trap 'gl__exit_trap' EXIT
        trap 'exit 143' TERM
        trap 'exit 130' INT
        trap 'exit 129' HUP
    fi
    return 0
}

gl__exit_trap() {
    local rc=$?
    if [ -n "$GL_SCRATCH" ] && [ -d "$GL_SCRATCH" ]; then
        gl_stop || { echo "FAIL - glusterfs: teardown left things behind (see above)"; [ "$rc" -eq 0 ] && rc=1; }
    fi
    eval "${GL__PREV_TRAP:-}"
    exit "$rc"
}

# gl_brick_pid K: the PID of brick K's glusterfsd (K from 1), or nothing.
gl_brick_pid() {
    local p
    for p in $(pgrep -f -- "glusterfsd .*--brick-name $GL_SCRATCH/brick$1( |$)"); do
        [ "$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)" = Z ] || { echo "$p"; return 0; }
    done
    return 1
}

# gl_mount DIR [N]: one client mounted at DIR, or with N, N clients mounted at
# DIR/1 .. DIR/N. Each is its own glusterfs process. Returns 1 when a mount
# does not come up in 20 s.
gl_mount() {
    local dir=$1 n=${2:-} i m t0 k pf log
    local -a list=()
    if [ -z "$n" ]; then list=("$dir"); else for ((i = 1; i <= n; i++)); do list+=("$dir/$i"); done; fi
    t0=$(gl__now)
    for m in "${list[@]}"; do
        mkdir -p "$m" || return 1
        k=$(($(cat "$GL_SCRATCH/mounts" 2>/dev/null | wc -l) + 1))
        pf=$GL_SCRATCH/clients/c$k.pid log=$GL_SCRATCH/log/client$k.log
        printf '%s\t%s\n' "$m" "$pf" >>"$GL_SCRATCH/mounts"
        timeout -k 5 30 glusterfs --volfile-server="$GL_HOST" --volfile-id="$GL_VOL" -p "$pf" -l "$log" \
            ${GL_MOUNT_OPTS:-} "$m" {GL_LOCKFD}<&- || { gl__log "glusterfs client for $m failed"; return 1; }
        for ((i = 0; i < 200; i++)); do
            gl__mounted "$m" && timeout 10 stat -f "$m" >/dev/null 2>&1 && [ -s "$pf" ] && break
            sleep 0.1
        done
        gl__mounted "$m" || { gl__log "$m did not mount: $(tail -n 3 "$log" | tr '\n' ' ')"; return 1; }
        GL_MOUNTS+=("$m")
        GL_CLIENT_PIDS+=("$(cat "$pf")")
    done
    GL_T_MOUNT=$(gl__since "$t0")
    gl__log "mounted ${list[*]} in ${GL_T_MOUNT} s (client pids ${GL_CLIENT_PIDS[*]})"
}

# gl_stop [SCRATCH]: unmount every client, stop and delete the volume, end
# every process of this harness by PID, remove the scratch directory and what
# glusterd created outside it; then check that nothing is left. Returns 1
# (and says what) when something is. Safe to call twice.
gl_stop() {
    local s=${1:-$GL_SCRATCH} t0 m pf p i left=0 pids vol socks d e
    [ -n "$s" ] && [ -d "$s" ] || return 0
    case $s in /tmp/pfsgl.*) ;; *) gl__log "refusing to stop '$s': not a harness scratch directory"; return 1 ;; esac
    t0=$(gl__now)
    vol=$(sed -n 's/^GL_VOL=//p' "$s/state" 2>/dev/null)
    local GL_SCRATCH=$s GL_VOL=$vol
    # A stopped brick or client would block the unmount and the volume stop.
    pids=$(gl__pids "$s" "$vol")
    [ -n "$pids" ] && kill -CONT $pids 2>/dev/null
    # The brick sockets live in /var/run/gluster whatever the run directory.
    socks=$(for p in $pids; do tr '\0' '\n' <"/proc/$p/cmdline" 2>/dev/null | grep -A1 -x -- -S | grep '^/'; done)
    if [ -f "$s/mounts" ]; then
        tac "$s/mounts" | while IFS=$'\t' read -r m pf; do
            gl__mounted "$m" || continue
            timeout -k 2 15 umount "$m" 2>/dev/null || timeout -k 2 10 umount -l "$m" ||
                gl__log "could not unmount $m"
        done
    fi
    if [ -S "$s/run/glusterd.socket" ] && [ -n "$vol" ] && [ -f "$s/glusterd.pid" ] &&
        kill -0 "$(cat "$s/glusterd.pid")" 2>/dev/null; then
        GL_CLI_TIMEOUT=30 gl_cli volume stop "$vol" force >/dev/null 2>&1
        GL_CLI_TIMEOUT=30 gl_cli volume delete "$vol" >/dev/null 2>&1
    fi
    # glusterd first (it would restart what dies), then everything else.
    for i in 1 2; do
        pids=$(gl__pids "$s" "$vol")
        [ -z "$pids" ] && break
        if [ -f "$s/glusterd.pid" ]; then kill -TERM "$(cat "$s/glusterd.pid")" 2>/dev/null; fi
        kill -CONT $pids 2>/dev/null
        kill -TERM $pids 2>/dev/null
        for ((w = 0; w < 50; w++)); do
            [ -z "$(gl__pids "$s" "$vol")" ] && break
            sleep 0.1
        done
        pids=$(gl__pids "$s" "$vol")
        [ -n "$pids" ] && kill -KILL $pids 2>/dev/null && sleep 0.3
    done
    # Mounts whose client died underneath (ENOTCONN) still need the umount.
    if [ -f "$s/mounts" ]; then
        while IFS=$'\t' read -r m pf; do
            gl__mounted "$m" && { umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null; }
        done <"$s/mounts"
    fi
    # What glusterd made outside the scratch directory: the brick sockets,
    # and (when no other glusterd runs) whatever is new in its global dirs.
    for p in $socks; do case $p in /var/run/gluster/*.socket | /run/gluster/*.socket) rm -f "$p" ;; esac; done
    # Only names glusterd 10 is known to make are removed; anything else new
    # is reported as left behind (never removed blindly).
    if [ -f "$s/global.before" ]; then
        for d in $GL_GLOBAL_DIRS; do
            while IFS= read -r e; do
                grep -qxF "$d/$e" "$s/global.before" && continue
                gl__other_glusterd && continue    # another glusterd's, perhaps
                case $d/$e in
                    /var/run/gluster/snaps | /var/run/gluster/*.socket | /var/lib/glusterd/geo-replication | \
                        /var/lib/glusterd/ss_brick | /var/log/glusterfs/cli.log | /var/log/glusterfs/*.log)
                        rm -rf "${d:?}/$e" ;;
                    *) left=1; gl__log "LEFTOVER $d/$e (made while the volume ran)" ;;
                esac
            done < <(find "$d" -mindepth 1 -maxdepth 1 -printf '%f\n' 2>/dev/null)
        done
    fi
    GL_T_STOP=$(gl__since "$t0")
    # The checks: no process, no mount, no scratch directory.
    pids=$(gl__pids "$s" "$vol")
    if [ -n "$pids" ]; then
        left=1
        for p in $pids; do gl__log "LEFTOVER process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"; done
    fi
    if [ -f "$s/mounts" ]; then
        while IFS=$'\t' read -r m pf; do
            gl__mounted "$m" && { left=1; gl__log "LEFTOVER mount $m"; }
        done <"$s/mounts"
    fi
    if [ -n "$vol" ] && grep -qE "[: ]/?$vol " /proc/mounts; then left=1; gl__log "LEFTOVER mount of $vol: $(grep "$vol" /proc/mounts)"; fi
    rm -rf "$s" 2>/dev/null
    [ -e "$s" ] && { left=1; gl__log "LEFTOVER $s (could not remove it)"; }
    gl__log "stopped $vol in ${GL_T_STOP} s$([ "$left" -ne 0 ] && echo ', with LEFTOVERS')"
    # This shell's own volume is down: let the next test have the port.
    [ "$s" = "${GL_SCRATCH_MINE:-}" ] && gl__unlock
    return "$left"
}

# Run as a script: glusterfs.sh start|stop|status.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -u
    case ${1:-} in
        start)
            GL_NO_TRAP=1 GL_OWNER=manual
            gl_start "${2:-2}" || exit $?
            if [ -n "${3:-}" ]; then gl_mount "$3" ${4:+"$4"} || { gl_stop; exit 1; }; fi
            echo "GL_SCRATCH=$GL_SCRATCH"
            echo "GL_VOL=$GL_VOL"
            echo "GL_BRICKS=(${GL_BRICKS[*]})"
            echo "GL_BRICK_PIDS=(${GL_BRICK_PIDS[*]})"
            echo "GL_MOUNTS=(${GL_MOUNTS[*]})"
            echo "stop it with: bash $0 stop $GL_SCRATCH"
            ;;
        stop)
            rc=0
            if [ -n "${2:-}" ]; then gl_stop "$2" || rc=1; else
                for d in /tmp/pfsgl.*; do [ -f "$d/state" ] && { gl_stop "$d" || rc=1; }; done
            fi
            exit $rc
            ;;
        status)
            for d in /tmp/pfsgl.*; do
                [ -f "$d/state" ] || continue
                GL_SCRATCH=$d GL_VOL=$(sed -n 's/^GL_VOL=//p' "$d/state")
                echo "$d: volume $GL_VOL, processes: $(gl__pids "$d" "$GL_VOL" | tr '\n' ' ')"
                [ -f "$d/mounts" ] && cut -f1 "$d/mounts" | while read -r m; do
                    gl__mounted "$m" && echo "  mounted $m" || echo "  not mounted $m"
                done
                gl_cli volume status "$GL_VOL" 2>/dev/null | sed 's/^/  /'
            done
            ;;
        *)
            echo "usage: $0 start [NBRICKS [MOUNTDIR [NCLIENTS]]] | stop [SCRATCH] | status" >&2
            exit 2
            ;;
    esac
fi
