#!/bin/bash
# pfs-vs-fio-gfapi.sh: pfsbench's --api gfapi against fio's gfapi engine and
# against pfsbench's posix backend through the FUSE mount, on one 2-brick
# GlusterFS volume started on this machine by tests/lib/glusterfs.sh (bricks
# on loopback, one FUSE client), stopped when the comparison ends.
#
# The same work for each tool: a file per process, sequential transfers of
# -t bytes, a block of -b bytes per process, written and fsync'ed at the end
# of the write, then read, then removed:
#   mpirun -np N pfsbench -a gfapi -d MNT/pfs -t T -b B -p write,read -e --no-results -q
#   fio --ioengine=gfapi --volume=VOL --brick=HOST --filename_format=/fio/f.$jobnum
#       --bs=T --size=B --numjobs=N --group_reporting --fallocate=none
#       --invalidate=0 --create_on_open=1
#       --name=write --rw=write --end_fsync=1 --name=read --stonewall --rw=read --unlink=1
#   mpirun -np N pfsbench -a posix -d MNT/pfs ... (the same, through FUSE)
# Rounds are interleaved: round r starts with the r-th tool of the three and
# goes round, so each tool goes first once in three rounds. Prints every
# round's MiB/s, each tool's median, and the medians (min-max) of the
# per-round ratios pfsbench-gfapi/fio-gfapi and pfsbench-gfapi/pfsbench-FUSE.
# MiB/s = 2^20 bytes/s.
#
# usage: bench/pfs-vs-fio-gfapi.sh [options]
#   -r N      rounds (default 3)
#   -n N      processes: pfsbench ranks = fio numjobs (default 1)
#   -t SIZE   transfer size (default 1m)
#   -b SIZE   block per process (default 256m)
#   -T SECS   timeout of each launch (default 300)
#   -o DIR    keep the logs and results.txt in DIR (default: a new directory
#             under /tmp, printed at the end)
# environment: PFSBENCH (default build/pfsbench beside bench/).
# Needs root, /dev/fuse, the gluster packages and fio with its gfapi engine;
# exits 77 when the harness cannot start a volume, like the tests. One volume
# at a time: it waits for the harness's lock while a GlusterFS test runs.
# Exit status: 0 when every launch worked, 1 when one failed, 2 for bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
export PFSBENCH=${PFSBENCH:-$root/build/pfsbench}
ROUNDS=3 NP=1 XFER=1m BLOCK=256m TO=300 OUT=""
BENCH_NAME=pfs-vs-fio-gfapi
. "$here/lib.sh"
while getopts "r:n:t:b:T:o:h" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; n) NP=$OPTARG ;; t) XFER=$OPTARG ;; b) BLOCK=$OPTARG ;; T) TO=$OPTARG ;; o) OUT=$OPTARG ;;
    h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ && $NP =~ ^[1-9][0-9]*$ ]] || die "-r and -n take positive counts"
bytes "$XFER" >/dev/null && bytes "$BLOCK" >/dev/null || die "-t and -b take sizes (1m, 256m)"
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH)"
"$PFSBENCH" --help | grep -q "^  gfapi  *not built" && die "$PFSBENCH was built without --api gfapi"
fio --enghelp 2>/dev/null | grep -qx '[[:space:]]*gfapi' || die "this fio has no gfapi engine"
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/pfsgfapibench.XXXXXX)
mkdir -p "$OUT" || die "cannot make $OUT"
T=$(mktemp -d /tmp/pfsgfapimnt.XXXXXX)
trap 'rm -rf "$T"' EXIT
BIND=()
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck source=../tests/lib/glusterfs.sh
. "$root/tests/lib/glusterfs.sh"
gl_start 2 || exit $?
gl_mount "$T/gl" || exit 1
M=${GL_MOUNTS[0]}
SRC=$(awk -v m="$M" '$5 == m { for (i = 7; $i != "-"; i++); print $(i + 2) }' /proc/self/mountinfo | tail -n 1)
HOST=${SRC%%:*}
mkdir "$M/pfs" "$M/fio"
echo "# GlusterFS $(glusterfs --version | head -n 1 | awk '{ print $2 }'), $(fio --version): volume $GL_VOL from $HOST, 2 bricks in $GL_SCRATCH, mounted at $M" | tee "$OUT/header.txt"
echo "# $NP process(es), transfer $XFER, block $BLOCK per process, $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/header.txt"

# pfs_run LOG API: "write MIBS" and "read MIBS" of pfsbench on NP ranks
pfs_run() {
    timeout "$TO" mpirun -np "$NP" --oversubscribe --bind-to none "$PFSBENCH" -a "$2" -d "$M/pfs" -t "$XFER" \
        -b "$BLOCK" -p write,read -e --no-results -q >"$1" 2>&1 || { echo "pfsbench exited $?" >>"$1"; return 1; }
    awk '($1 == "write" || $1 == "read") && NF == 10 { print $1, $5; n++ } END { exit n != 2 }' "$1"
}
# run_tool TOOL LOG: "write MIBS" and "read MIBS" of one launch of TOOL
run_tool() {
    case $1 in
    pfs-gfapi) pfs_run "$2" gfapi ;;
    pfs-fuse) pfs_run "$2" posix ;;
    fio-gfapi)
        fio_mibs "$2" --ioengine=gfapi --volume="$GL_VOL" --brick="$HOST" --filename_format='/fio/f.$jobnum' \
            --bs="$XFER" --size="$BLOCK" --numjobs="$NP" --group_reporting --fallocate=none --invalidate=0 \
            --create_on_open=1 --name=write --rw=write --end_fsync=1 --name=read --stonewall --rw=read --unlink=1 ;;
    esac
}

TOOLS=(pfs-gfapi fio-gfapi pfs-fuse)
rc=0
bench_rounds "$ROUNDS" run_tool "$OUT" "${TOOLS[@]}" || rc=1
left=$(ls -A "$M/pfs" "$M/fio" | grep -v ':$' | grep -c .)
[ "$left" -eq 0 ] || { echo "files left on the volume: $left" >&2; rc=1; }
gl_stop || rc=1

bench_summary "$OUT" "write read" "pfs-gfapi fio-gfapi pfs-fuse" "pfs-gfapi/fio-gfapi pfs-gfapi/pfs-fuse"
echo "# logs in $OUT"
exit $rc
