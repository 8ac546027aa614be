#!/bin/bash
# pfs-vs-fio-rados.sh: pfsbench's --api rados against fio's rados engine, on
# one Ceph cluster started on this machine by tests/lib/ceph.sh (a monitor, a
# manager, 3 BlueStore OSDs on sparse files, all on loopback; its pool
# pfs_rados), stopped when the comparison ends.
#
# The same work for each tool: an object per process, sequential transfers
# of -t bytes with -q in flight, -b bytes per process, written, then read,
# then removed:
#   mpirun -np N pfsbench -a rados --rados-pool POOL -d DIR -t T -b B --iodepth Q
#       -p write,read --no-results -q
#   fio --ioengine=rados --pool=POOL --clientname=admin --conf=CEPH_CONF
#       --filename_format=fio.$jobnum --bs=T --size=B --numjobs=N --iodepth=Q --group_reporting
#       --name=write --rw=write --name=read --stonewall --rw=read --unlink=1
# (RADOS acknowledges a write once every replica holds it: neither tool has
# anything to fsync.) fio 3.33's rados engine leaves its objects in spite of
# --unlink=1: the script removes them (rados rm fio.J) after each launch,
# outside fio's timing. Rounds are interleaved: round r starts with the r-th
# tool of the two, so each goes first in every other round. Prints every
# round's MiB/s, each tool's median, and the median (min-max) of the
# per-round ratios pfsbench/fio. MiB/s = 2^20 bytes/s.
#
# usage: bench/pfs-vs-fio-rados.sh [options]
#   -r N      rounds (default 5)
#   -n N      processes: pfsbench ranks = fio numjobs (default 1)
#   -t SIZE   transfer size (default 4m)
#   -b SIZE   bytes per process, one object (default 64m; an object may not
#             pass the OSDs' osd_max_object_size, 128 MiB)
#   -q N      transfers in flight per process (default 1)
#   -T SECS   timeout of each launch (default 300)
#   -o DIR    keep the logs and results.txt in DIR (default: a new directory
#             under /tmp, printed at the end)
# environment: PFSBENCH (default build/pfsbench beside bench/).
# Needs root, the Ceph packages and fio with its rados engine; exits 77 when
# the harness cannot start a cluster, like the tests. One cluster at a time:
# it waits for the harness's lock while a Ceph test runs.
# Exit status: 0 when every launch worked, 1 when one failed, 2 for bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
export PFSBENCH=${PFSBENCH:-$root/build/pfsbench}
ROUNDS=5 NP=1 XFER=4m BLOCK=64m DEPTH=1 TO=300 OUT=""
BENCH_NAME=pfs-vs-fio-rados
. "$here/lib.sh"
while getopts "r:n:t:b:q:T:o:h" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; n) NP=$OPTARG ;; t) XFER=$OPTARG ;; b) BLOCK=$OPTARG ;; q) DEPTH=$OPTARG ;;
    T) TO=$OPTARG ;; o) OUT=$OPTARG ;;
    h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ && $NP =~ ^[1-9][0-9]*$ && $DEPTH =~ ^[1-9][0-9]*$ ]] ||
    die "-r, -n and -q take positive counts"
bytes "$XFER" >/dev/null && bytes "$BLOCK" >/dev/null || die "-t and -b take sizes (4m, 64m)"
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH)"
"$PFSBENCH" --help | grep -q "^  rados  *not built" && die "$PFSBENCH was built without --api rados"
fio --enghelp 2>/dev/null | grep -qx '[[:space:]]*rados' || die "this fio has no rados engine"
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/pfsradosbench.XXXXXX)
mkdir -p "$OUT" || die "cannot make $OUT"
T=$(mktemp -d /tmp/pfsradosdir.XXXXXX)
trap 'rm -rf "$T"' EXIT
BIND=()
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck source=../tests/lib/ceph.sh
. "$root/tests/lib/ceph.sh"
ceph_start || exit $?
P=$CEPH_POOL
echo "# Ceph $(ceph --version | awk '{ print $3 }'), $(fio --version): pool $P, 3 OSDs in $CEPH_SCRATCH (HEALTH_OK after $CEPH_T_UP s)" | tee "$OUT/header.txt"
echo "# $NP process(es), transfer $XFER, $BLOCK per process, iodepth $DEPTH, $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/header.txt"

# run_tool TOOL LOG: "write MIBS" and "read MIBS" of one launch of TOOL
run_tool() {
    case $1 in
    pfsbench)
        timeout "$TO" mpirun -np "$NP" --oversubscribe --bind-to none "$PFSBENCH" -a rados --rados-pool "$P" -d "$T" \
            -t "$XFER" -b "$BLOCK" --iodepth "$DEPTH" -p write,read --no-results -q >"$2" 2>&1 ||
            { echo "pfsbench exited $?" >>"$2"; return 1; }
        awk '($1 == "write" || $1 == "read") && NF == 10 { print $1, $5; n++ } END { exit n != 2 }' "$2" ;;
    fio)
        fio_mibs "$2" --ioengine=rados --pool="$P" --clientname=admin --conf="$CEPH_CONF" \
            --filename_format='fio.$jobnum' --bs="$XFER" \
            --size="$BLOCK" --numjobs="$NP" --iodepth="$DEPTH" --group_reporting \
            --name=write --rw=write --name=read --stonewall --rw=read --unlink=1
        local frc=$? j
        for ((j = 0; j < NP; j++)); do timeout 30 rados -p "$P" rm "fio.$j" 2>/dev/null; done
        return $frc ;;
    esac
}

TOOLS=(pfsbench fio)
rc=0
bench_rounds "$ROUNDS" run_tool "$OUT" "${TOOLS[@]}" || rc=1
left=$(timeout 30 rados -p "$P" ls 2>&1 | sort | tr '\n' ' ')
[ -z "$left" ] || { echo "objects left in the pool: $left" >&2; rc=1; }
ceph_stop || rc=1

bench_summary "$OUT" "write read" "pfsbench fio" "pfsbench/fio"
echo "# logs in $OUT"
exit $rc
