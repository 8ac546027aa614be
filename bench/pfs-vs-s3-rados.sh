#!/bin/bash
# pfs-vs-s3-rados.sh: the same bytes through pfsbench's --api s3 (S3 through
# libs3, to the RADOS gateway) and --api rados (librados, straight to the
# OSDs), on one Ceph cluster started on this machine by tests/lib/ceph.sh (a
# monitor, a manager, 3 BlueStore OSDs on sparse files, radosgw on
# 127.0.0.1:7480, all on loopback), stopped when the comparison ends: what the
# gateway costs.
#
# The same work for each: an object per process, sequential transfers of -t
# bytes, -b bytes per process, written, then read, then removed:
#   mpirun -np N pfsbench -a s3 --s3-bucket B --s3-endpoint 127.0.0.1:7480
#       --s3-key-file S3_ENV -d DIR -t T -b B -p write,read --no-results -q
#   mpirun -np N pfsbench -a rados --rados-pool pfs_rados -d DIR -t T -b B
#       -p write,read --no-results -q
# An S3 write is one streamed PUT per object (a request per object, each -t a
# piece of it); a rados write is a rados_aio_write per transfer, waited for;
# a read is a ranged GET per transfer against a rados_read per transfer. The
# bucket is made by libs3's s3 tool, its keys read from the harness's s3.env
# (mode 0600; never on a command line). Rounds are interleaved: round r
# starts with the r-th of the two, so each goes first in every other round.
# Prints every round's MiB/s, each api's median, and the median (min-max)
# of the per-round ratios s3/rados. MiB/s = 2^20 bytes/s.
#
# usage: bench/pfs-vs-s3-rados.sh [options]
#   -r N      rounds (default 5)
#   -n N      processes (ranks; default 1)
#   -t SIZE   transfer size (default 4m)
#   -b SIZE   bytes per process, one object (default 64m; a RADOS object may
#             not pass the OSDs' osd_max_object_size, 128 MiB)
#   -T SECS   timeout of each launch (default 300)
#   -o DIR    keep the logs and results.txt in DIR (default: a new directory
#             under /tmp, printed at the end)
# environment: PFSBENCH (default build/pfsbench beside bench/).
# Needs root, the Ceph packages (radosgw) and libs3's s3 tool; exits 77 when
# the harness cannot start a cluster, like the tests. One cluster at a time:
# it waits for the harness's lock while a Ceph test runs.
# Exit status: 0 when every launch worked, 1 when one failed, 2 for bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
export PFSBENCH=${PFSBENCH:-$root/build/pfsbench}
ROUNDS=5 NP=1 XFER=4m BLOCK=64m TO=300 OUT=""
BENCH_NAME=pfs-vs-s3-rados
. "$here/lib.sh"
while getopts "r:n:t:b:T:o:h" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; n) NP=$OPTARG ;; t) XFER=$OPTARG ;; b) BLOCK=$OPTARG ;;
    T) TO=$OPTARG ;; o) OUT=$OPTARG ;;
    h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ && $NP =~ ^[1-9][0-9]*$ ]] || die "-r and -n take positive counts"
bytes "$XFER" >/dev/null && bytes "$BLOCK" >/dev/null || die "-t and -b take sizes (4m, 64m)"
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH)"
for a in s3 rados; do
    "$PFSBENCH" --help | grep -q "^  $a  *not built" && die "$PFSBENCH was built without --api $a"
done
command -v s3 >/dev/null || die "no s3 tool (libs3-2)"
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/pfss3bench.XXXXXX)
mkdir -p "$OUT" || die "cannot make $OUT"
T=$(mktemp -d /tmp/pfss3dir.XXXXXX)
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck source=../tests/lib/ceph.sh
. "$root/tests/lib/ceph.sh"
ceph_start || exit $?
P=$CEPH_POOL B=pfsbench-bench
# libs3's s3 exits 0 on errors: ERROR on stderr is the failure.
s3do() { (. "$CEPH_S3_ENV" && timeout 60 s3 -u -r 0 "$@") >"$T/s3.out" 2>&1 && ! grep -q ERROR "$T/s3.out"; }
s3do create "$B" || { cat "$T/s3.out" >&2; ceph_stop; die "cannot make the bucket $B"; }
echo "# Ceph $(ceph --version | awk '{ print $3 }'): pool $P and radosgw on 127.0.0.1:$CEPH_RGW_PORT (bucket $B), 3 OSDs in $CEPH_SCRATCH (HEALTH_OK after $CEPH_T_UP s)" | tee "$OUT/header.txt"
echo "# $NP process(es), transfer $XFER, $BLOCK per process, $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/header.txt"

# run_api API LOG: "write MIBS" and "read MIBS" of one launch through API
run_api() {
    local a
    case $1 in
    s3) a=(-a s3 --s3-bucket "$B" --s3-endpoint "127.0.0.1:$CEPH_RGW_PORT" --s3-key-file "$CEPH_S3_ENV") ;;
    rados) a=(-a rados --rados-pool "$P") ;;
    esac
    timeout "$TO" mpirun -np "$NP" --oversubscribe --bind-to none "$PFSBENCH" "${a[@]}" -d "$T" \
        -t "$XFER" -b "$BLOCK" -p write,read --no-results -q >"$2" 2>&1 ||
        { echo "pfsbench exited $?" >>"$2"; return 1; }
    awk '($1 == "write" || $1 == "read") && NF == 10 { print $1, $5; n++ } END { exit n != 2 }' "$2"
}

APIS=(s3 rados)
rc=0
bench_rounds "$ROUNDS" run_api "$OUT" "${APIS[@]}" || rc=1
left=$(timeout 30 rados -p "$P" ls 2>&1 | sort | tr '\n' ' ')
[ -z "$left" ] || { echo "objects left in the pool: $left" >&2; rc=1; }
s3do list "$B" && grep -q '^pfsbench' "$T/s3.out" && { echo "objects left in the bucket: $(grep '^pfsbench' "$T/s3.out")" >&2; rc=1; }
s3do delete "$B" || { echo "cannot delete the bucket $B" >&2; rc=1; }
ceph_stop || rc=1

bench_summary "$OUT" "write read" "s3 rados" "s3/rados"
echo "# logs in $OUT"
exit $rc
