# fakeslurm.sh: a real Slurm (22.05) with K fake nodes on this one machine,
# for tests. Needs root (unshare --uts, hostname, SlurmUser=root).
#
# Source it (bash):
#     . tests/slurm/fakeslurm.sh
#     fakeslurm_start 4 4 [DIR]     # 4 nodes (node1..node4) of 4 CPUs; all state under DIR
#     id=$(sbatch --parsable -N 4 ...)   # SLURM_CONF points at DIR/slurm.conf
#     fakeslurm_wait "$id" 60       # "COMPLETED 0:0"; status 0 when it completed with 0
#     fakeslurm_stop                # also run by the EXIT trap fakeslurm_start adds
#
# or run it:  bash tests/slurm/fakeslurm.sh K [CPUS] -- COMMAND...
#             (starts Slurm, runs COMMAND with SLURM_CONF set, stops Slurm)
#
# How: one slurmctld, and per node `slurmd -N nodeK` inside its own
# `unshare --uts` with the hostname set to nodeK, each on its own port, with
# %n in the spool, pid, log and TmpFS paths so they do not collide. No munge
# (auth/none, cred/none), no cgroups (proctrack/linuxproc, task/none).
# Every daemon is started here and stopped by its PID.

FAKESLURM_PIDS=()
FAKESLURM_DIR=""
FAKESLURM_OWN_DIR=0

# A free TCP port range of $1 ports, from a random start (tests may run side by side).
fakeslurm_ports() {
    local n=$1 base i used tries
    used=$(ss -Htan 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u)
    for ((tries = 0; tries < 50; tries++)); do
        base=$((20000 + RANDOM % 30000))
        for ((i = 0; i < n; i++)); do
            grep -qx "$((base + i))" <<<"$used" && continue 2
        done
        echo "$base"
        return 0
    done
    return 1
}

fakeslurm_log() { echo "fakeslurm: $*" >&2; }

# fakeslurm_start K [CPUS] [DIR]: write DIR/slurm.conf, start the daemons, wait
# until all K nodes are idle (at most FAKESLURM_START_TIMEOUT s, default 30).
# Sets and exports SLURM_CONF. Returns non-zero (and stops what it started)
# when Slurm does not come up; the logs are in DIR/log.
fakeslurm_start() {
    local k=$1 cpus=${2:-4} dir=${3:-}
    if [ -z "$dir" ]; then
        dir=$(mktemp -d /tmp/fakeslurm.XXXXXX) || return 1
        FAKESLURM_OWN_DIR=1
    fi
    FAKESLURM_DIR=$dir
    local i base ctl_host
    base=$(fakeslurm_ports $((k + 1))) || { fakeslurm_log "no free ports"; return 1; }
    ctl_host=$(hostname -s)
    mkdir -p "$dir/state" "$dir/log" "$dir/run" || return 1
    for ((i = 1; i <= k; i++)); do mkdir -p "$dir/spool/node$i" "$dir/tmp/node$i"; done
    : >"$dir/plugstack.conf"
    {
        echo "# A fake cluster on one machine, made by tests/slurm/fakeslurm.sh"
        echo "ClusterName=pfsfake"
        echo "SlurmctldHost=$ctl_host(127.0.0.1)"
        echo "SlurmctldPort=$base"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "AuthType=auth/none"
        echo "CredType=cred/none"
        echo "MpiDefault=pmix"
        echo "ProctrackType=proctrack/linuxproc"
        echo "TaskPlugin=task/none"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_CPU"
        echo "SchedulerType=sched/builtin"
        echo "SlurmdParameters=config_overrides"
        echo "PlugStackConfig=$dir/plugstack.conf"
        echo "StateSaveLocation=$dir/state"
        echo "SlurmdSpoolDir=$dir/spool/%n"
        echo "SlurmctldPidFile=$dir/run/slurmctld.pid"
        echo "SlurmdPidFile=$dir/run/slurmd-%n.pid"
        echo "SlurmctldLogFile=$dir/log/slurmctld.log"
        echo "SlurmdLogFile=$dir/log/slurmd-%n.log"
        echo "TmpFS=$dir/tmp/%n"
        echo "ReturnToService=2"
        echo "AccountingStorageType=accounting_storage/none"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "JobCompType=jobcomp/none"
        echo "MailProg=/bin/true"
        echo "SlurmctldTimeout=30"
        echo "SlurmdTimeout=60"
        echo "InactiveLimit=0"
        echo "KillWait=5"
        echo "MinJobAge=300"
        for ((i = 1; i <= k; i++)); do
            echo "NodeName=node$i NodeHostname=node$i NodeAddr=127.0.0.1 Port=$((base + i)) CPUs=$cpus RealMemory=1000 State=UNKNOWN"
        done
        echo "PartitionName=pfs Nodes=node[1-$k] Default=YES MaxTime=INFINITE State=UP"
    } >"$dir/slurm.conf"
    export SLURM_CONF=$dir/slurm.conf

    # Stop the daemons on exit, then run whatever EXIT trap was there before.
    FAKESLURM_PREV_TRAP=""
    eval "$(trap -p EXIT | sed -n "s/^trap -- \(.*\) EXIT\$/FAKESLURM_PREV_TRAP=\1/p")"
    trap 'fakeslurm_stop; eval "$FAKESLURM_PREV_TRAP"' EXIT
    slurmctld -D -c -f "$SLURM_CONF" >>"$dir/log/slurmctld.out" 2>&1 &
    FAKESLURM_PIDS+=($!)
    for ((i = 1; i <= k; i++)); do
        # unshare execs sh, sh execs slurmd: $! is slurmd's PID.
        unshare --uts /bin/sh -c 'hostname "$1" && exec slurmd -D -N "$1" -f "$2"' fakeslurm "node$i" "$SLURM_CONF" \
            >>"$dir/log/slurmd-node$i.out" 2>&1 &
        FAKESLURM_PIDS+=($!)
    done
    local waited=0 limit=${FAKESLURM_START_TIMEOUT:-30} idle
    while :; do
        idle=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | sort -u | wc -l)
        [ "$idle" -ge "$k" ] && break
        if [ "$waited" -ge $((limit * 10)) ]; then
            fakeslurm_log "only $idle of $k nodes idle after ${limit}s; logs in $dir/log"
            sinfo -N >&2 2>&1 || true
            tail -n 20 "$dir"/log/*.log >&2 2>/dev/null || true
            fakeslurm_stop
            return 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    fakeslurm_log "up: $k nodes, $cpus CPUs each, slurmctld port $base, SLURM_CONF=$SLURM_CONF ($(awk "BEGIN{print $waited/10}") s)"
}

# fakeslurm_stop: cancel what is still queued or running, then stop every
# daemon started above, by PID (TERM, then KILL after 5 s).
fakeslurm_stop() {
    [ ${#FAKESLURM_PIDS[@]} -eq 0 ] && return 0
    local p i
    # Jobs first, so that no slurmstepd is left behind by its slurmd.
    if [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null)" ]; then
        timeout 5 scancel -p pfs >/dev/null 2>&1 || true
        for ((i = 0; i < 100; i++)); do
            [ -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] && break
            sleep 0.1
        done
    fi
    for p in "${FAKESLURM_PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for ((i = 0; i < 50; i++)); do
        local alive=0
        for p in "${FAKESLURM_PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive -eq 0 ] && break
        sleep 0.1
    done
    for p in "${FAKESLURM_PIDS[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
    for p in "${FAKESLURM_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    FAKESLURM_PIDS=()
    # A slurmstepd of this cluster (it inherited our SLURM_CONF from its
    # slurmd) that outlived its slurmd: give it a moment, then stop it by PID.
    local d left
    for ((i = 0; i < 50; i++)); do
        left=""
        for d in /proc/[0-9]*; do
            [ "$(cat "$d/comm" 2>/dev/null)" = slurmstepd ] || continue
            if tr '\0' '\n' 2>/dev/null <"$d/environ" | grep -qxF "SLURM_CONF=$FAKESLURM_DIR/slurm.conf"; then
                left+=" ${d#/proc/}"
            fi
        done
        [ -z "$left" ] && break
        sleep 0.1
    done
    if [ -n "$left" ]; then
        fakeslurm_log "stopping leftover slurmstepd:$left"
        for p in $left; do kill -KILL "$p" 2>/dev/null || true; done
    fi
    if [ "$FAKESLURM_OWN_DIR" = 1 ] && [ -n "$FAKESLURM_DIR" ] && [ -z "${FAKESLURM_KEEP:-}" ]; then
        rm -rf "$FAKESLURM_DIR"
    fi
}

# fakeslurm_wait JOBID TIMEOUT_S: wait (polling every 0.2 s, each query under
# `timeout`) until the job ends. Prints its final state and exit code
# ("COMPLETED 0:0"); returns 0 when it completed with exit code 0, 1 when it
# ended otherwise, 124 when it ran past TIMEOUT_S (it is then cancelled).
fakeslurm_wait() {
    local id=$1 limit=$2 i info state code
    for ((i = 0; i < limit * 5; i++)); do
        info=$(timeout 5 scontrol show job -o "$id" 2>/dev/null)
        state=$(sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' <<<"$info")
        code=$(sed -n 's/.* ExitCode=\([0-9:]*\).*/\1/p' <<<"$info")
        case $state in
            PENDING|CONFIGURING|RUNNING|COMPLETING|SUSPENDED|REQUEUED|RESIZING|"") ;;
            *)
                echo "$state $code"
                [ "$state" = COMPLETED ] && [ "$code" = 0:0 ]
                return
                ;;
        esac
        sleep 0.2
    done
    echo "TIMEOUT ${state:-unknown}"
    timeout 5 scancel "$id" >/dev/null 2>&1 || true
    return 124
}

# Run as a script: fakeslurm.sh K [CPUS] -- COMMAND...
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -u
    if [ $# -lt 2 ]; then
        echo "usage: $0 NODES [CPUS] -- COMMAND [ARGS...]   (FAKESLURM_KEEP=1 keeps the state dir)" >&2
        exit 2
    fi
    k=$1 cpus=4
    shift
    if [ "$1" != "--" ]; then cpus=$1; shift; fi
    [ "${1:-}" = "--" ] && shift
    [ $# -gt 0 ] || { echo "$0: no command given" >&2; exit 2; }
    fakeslurm_start "$k" "$cpus" || exit 1
    "$@"
    rc=$?
    fakeslurm_stop
    exit $rc
fi
