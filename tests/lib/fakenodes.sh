# fakenodes.sh: run MPI programs across K fake nodes on this one machine.
#
# Source it (bash):
#     . tests/lib/fakenodes.sh
#     fakenodes_setup 4 2                  # node1..node4, 2 slots each
#     fakenodes_run 4 2 60 "$PFSBENCH" -d DIR -v     # 8 ranks, --map-by node, timeout 60 s
#     fakenodes_hostfile FILE 2 3 1        # node1 slots=3, node2 slots=1
#     FAKENODES_HOSTFILE=FILE FAKENODES_MAP=slot fakenodes_mpirun 4 60 PROGRAM ...
#     "${FAKENODES_MPIRUN_ARGS[@]}"        # the mca options, for your own mpirun line
#     FAKENODES_MPIRUN_ARGS_STRING         # the same, as one string (pfsrun --mpirun-args)
#
# or run it:  bash tests/lib/fakenodes.sh K R [TIMEOUT_S] -- PROGRAM ARGS...
#
# How: a hostfile lists node1..nodeK; mpirun "logs in" to them with
# tests/lib/fake-rsh (--mca plm_rsh_agent), which runs the Open MPI daemon
# locally inside `unshare --uts` with the hostname set to the node's name.
# Every rank then sees its fake node in gethostname()/MPI_Get_processor_name(),
# MPI_Comm_split_type(SHARED) splits by fake node, and ranks talk TCP over
# loopback (oob/btl tcp on lo). Needs root for unshare --uts.

FAKENODES_LIB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FAKENODES_AGENT=$FAKENODES_LIB/fake-rsh

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Open MPI's chatter about unused interfaces, and CMA across namespaces;
# the Omni-Path MTLs left unprobed (tests/mpi/lib.sh says why).
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_mtl=^ofi,psm,psm2

# The mpirun options that make the fake nodes work (besides the hostfile).
FAKENODES_MPIRUN_ARGS=(--mca plm_rsh_agent "$FAKENODES_AGENT"
    --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo
    --oversubscribe --bind-to none)
FAKENODES_MPIRUN_ARGS_STRING="${FAKENODES_MPIRUN_ARGS[*]}"

# fakenodes_hostfile FILE K SLOTS... : write a hostfile node1..nodeK. One SLOTS
# value is used for every node; K values give each node its own.
fakenodes_hostfile() {
    local file=$1 k=$2 i s
    shift 2
    : >"$file" || return 1
    for ((i = 1; i <= k; i++)); do
        if [ $# -ge $i ]; then s=${!i}; else s=$1; fi
        echo "node$i slots=$s" >>"$file"
    done
}

# fakenodes_setup K SLOTS [DIR]: make DIR/hostfile (default DIR: $T when the
# test library set it, else a new temp dir) and set FAKENODES_HOSTFILE.
fakenodes_setup() {
    local k=$1 slots=$2 dir=${3:-${T:-}}
    if [ -z "$dir" ]; then
        dir=$(mktemp -d /tmp/fakenodes.XXXXXX) || return 1
    fi
    FAKENODES_DIR=$dir
    FAKENODES_HOSTFILE=$dir/hostfile
    fakenodes_hostfile "$FAKENODES_HOSTFILE" "$k" "$slots"
}

# fakenodes_mpirun NP TIMEOUT_S PROGRAM [ARGS...]: NP ranks over the nodes of
# $FAKENODES_HOSTFILE (from fakenodes_setup or fakenodes_hostfile), mapped
# --map-by $FAKENODES_MAP (default node: round-robin), the whole mpirun under
# `timeout`. Extra mpirun options can come in the array FAKENODES_EXTRA
# (e.g. -x VAR=value). The status is mpirun's (124: timed out).
# Each launch has a session directory base of its own (orte_tmpdir_base,
# which mpirun hands to the fake nodes' daemons): in /tmp they would share
# /tmp/ompi.nodeK.UID with every other test's launch at once, and one
# daemon's making it raced another's removing it (a CI run: "mkdir
# /tmp/ompi.node2.0: File exists", orte_init failed, the test's run lost).
fakenodes_mpirun() {
    local np=$1 to=$2 base rc=0
    shift 2
    base=$(mktemp -d /tmp/fnompi.XXXXXX) || return 1
    timeout -k 5 "$to" mpirun -np "$np" --hostfile "$FAKENODES_HOSTFILE" --map-by "${FAKENODES_MAP:-node}" \
        "${FAKENODES_MPIRUN_ARGS[@]}" --mca orte_tmpdir_base "$base" ${FAKENODES_EXTRA[@]+"${FAKENODES_EXTRA[@]}"} \
        "$@" || rc=$?
    rm -rf -- "$base"
    return "$rc"
}

# fakenodes_pfs NP TIMEOUT_S ARGS...: pfsbench ($PFSBENCH) on NP ranks of the
# fake nodes set up last; stdout in $T/out, stderr in $T/err, status in RC.
fakenodes_pfs() {
    local np=$1 to=$2
    shift 2
    RC=0
    fakenodes_mpirun "$np" "$to" "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" || RC=$?
}

# fakenodes_run K R TIMEOUT_S PROGRAM [ARGS...]: K*R ranks on node1..nodeK
# (R slots each), round-robin (--map-by node), under `timeout`.
fakenodes_run() {
    local k=$1 r=$2 to=$3
    shift 3
    fakenodes_setup "$k" "$r" "${FAKENODES_DIR:-}" || return 1
    fakenodes_mpirun $((k * r)) "$to" "$@"
}

# Run as a script: fakenodes.sh K R [TIMEOUT_S] -- PROGRAM ARGS...
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -u
    if [ $# -lt 3 ]; then
        echo "usage: $0 NODES RANKS_PER_NODE [TIMEOUT_S] -- PROGRAM [ARGS...]" >&2
        exit 2
    fi
    k=$1 r=$2 to=120
    shift 2
    if [ "$1" != "--" ]; then to=$1; shift; fi
    [ "${1:-}" = "--" ] && shift
    if [ $# -eq 0 ]; then echo "$0: no program given" >&2; exit 2; fi
    FAKENODES_DIR=$(mktemp -d /tmp/fakenodes.XXXXXX)
    trap 'rm -rf "$FAKENODES_DIR"' EXIT
    fakenodes_run "$k" "$r" "$to" "$@"
fi
