#!/bin/bash
# pfs-cephfs-vs-fuse.sh: pfsbench's --api cephfs (libcephfs in each process)
# against its posix backend through a ceph-fuse mount of the same file
# system, on one Ceph cluster started on this machine by tests/lib/ceph.sh
# (a monitor, a manager, 3 BlueStore OSDs on sparse files, an MDS, all on
# loopback; CephFS mounted by one ceph-fuse client), stopped when the
# comparison ends.
#
# The same work through each: a file per process in one directory of the
# mount, sequential transfers of -t bytes, a block of -b bytes per process,
# written and fsync'ed at the end of the write (-e), the page cache of each
# file dropped before the read (--drop-caches: ceph-fuse's pages in the
# kernel; libcephfs's own object cache, `client oc size` 64 MiB in the
# harness's conf, stays), then read, then removed:
#   mpirun -np N pfsbench -a cephfs -d MNT/pfs -t T -b B -p write,read -e --drop-caches --no-results -q
#   mpirun -np N pfsbench -a posix  -d MNT/pfs ... (the same, through ceph-fuse)
# Rounds are interleaved (bench_rounds, bench/lib.sh): round r starts with
# the r-th of the two, so each goes first in every other round. Prints every
# round's MiB/s, each one's median, and the median (min-max) of the
# per-round ratios cephfs/fuse. MiB/s = 2^20 bytes/s.
#
# usage: bench/pfs-cephfs-vs-fuse.sh [options]
#   -r N      rounds (default 5)
#   -n N      processes (ranks; default 1)
#   -t SIZE   transfer size (default 1m)
#   -b SIZE   block per process (default 256m)
#   -T SECS   timeout of each launch (default 300)
#   -o DIR    keep the logs and results.txt in DIR (default: a new directory
#             under /tmp, printed at the end)
# environment: PFSBENCH (default build/pfsbench beside bench/).
# Needs root, /dev/fuse and the Ceph packages; exits 77 when the harness
# cannot start a cluster, like the tests. One cluster at a time: it waits
# for the harness's lock while a Ceph test runs.
# Exit status: 0 when every launch worked, 1 when one failed, 2 for bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
export PFSBENCH=${PFSBENCH:-$root/build/pfsbench}
ROUNDS=5 NP=1 XFER=1m BLOCK=256m TO=300 OUT=""
BENCH_NAME=pfs-cephfs-vs-fuse
. "$here/lib.sh"
while getopts "r:n:t:b:T:o:h" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; n) NP=$OPTARG ;; t) XFER=$OPTARG ;; b) BLOCK=$OPTARG ;;
    T) TO=$OPTARG ;; o) OUT=$OPTARG ;;
    h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ && $NP =~ ^[1-9][0-9]*$ ]] || die "-r and -n take positive counts"
bytes "$XFER" >/dev/null && bytes "$BLOCK" >/dev/null || die "-t and -b take sizes (1m, 256m)"
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH)"
"$PFSBENCH" --help | grep -q "^  cephfs  *not built" && die "$PFSBENCH was built without --api cephfs"
[ -n "$OUT" ] || OUT=$(mktemp -d /tmp/pfscephfsbench.XXXXXX)
mkdir -p "$OUT" || die "cannot make $OUT"
T=$(mktemp -d /tmp/pfscephfsdir.XXXXXX)
trap 'rm -rf "$T"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck source=../tests/lib/ceph.sh
. "$root/tests/lib/ceph.sh"
ceph_start || exit $?
ceph_mount "$T/m" || { ceph_stop; exit 1; }
M=$T/m/pfs
mkdir "$M"
echo "# Ceph $(ceph --version | awk '{ print $3 }'): CephFS $CEPH_FS, 3 OSDs in $CEPH_SCRATCH (HEALTH_OK after $CEPH_T_UP s), ceph-fuse at $T/m" | tee "$OUT/header.txt"
echo "# $NP process(es), transfer $XFER, block $BLOCK per process, $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/header.txt"

# run_api NAME LOG: "write MIBS" and "read MIBS" of one launch (cephfs: -a
# cephfs; fuse: -a posix through the mount)
run_api() {
    local a=cephfs
    [ "$1" = fuse ] && a=posix
    timeout "$TO" mpirun -np "$NP" --oversubscribe --bind-to none "$PFSBENCH" -a "$a" -d "$M" -t "$XFER" \
        -b "$BLOCK" -p write,read -e --drop-caches --no-results -q >"$2" 2>&1 ||
        { echo "pfsbench exited $?" >>"$2"; return 1; }
    awk '($1 == "write" || $1 == "read") && NF == 10 { print $1, $5; n++ } END { exit n != 2 }' "$2"
}

APIS=(cephfs fuse)
rc=0
bench_rounds "$ROUNDS" run_api "$OUT" "${APIS[@]}" || rc=1
left=$(find "$M" -mindepth 1 | wc -l)
[ "$left" -eq 0 ] || { echo "files left on CephFS: $left" >&2; rc=1; }
ceph_stop || rc=1

bench_summary "$OUT" "write read" "cephfs fuse" "cephfs/fuse"
echo "# logs in $OUT"
exit $rc
