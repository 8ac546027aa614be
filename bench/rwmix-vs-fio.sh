#!/bin/bash
# rwmix-vs-fio.sh: pfsbench's rwmix phase against fio's randrw with
# rwmixread on the same file: 4 KiB O_DIRECT transfers, 70% reads, uniform
# random offsets, one rank / one job bound to one CPU, at queue depth 1
# (pfsbench -a posix vs fio psync) and 32 (pfsbench -a aio --iodepth 32 vs
# fio libaio iodepth=32), each launch SECS long, in passes over the file
# that visit each 4 KiB block once in a random order:
#   pfsbench -p rwmix --run-id pvfm --random --rwmix 70 -t 4k --direct --runtime SECS
#   fio --rw=randrw --rwmixread=70 --bs=4k --direct=1 --runtime=SECS --time_based
# (fio's random map: each block once a pass, as pfsbench's permutation;
# random offsets with replacement would hit blocks again, which the
# virtual disk's host may cache, and time-based runs that stop at the end
# of one pass or not would not move the same work).
# Both read and write the one SIZE file pfsbench wrote first (untimed for
# this script: -k --run-id pvfm). The figure is the bytes of both
# directions over the launch's time. Rounds are interleaved (bench/lib.sh's
# bench_rounds): each tool goes first in every other round.
#
# usage: bench/rwmix-vs-fio.sh [options]
#   -r N      rounds (default 4)
#   -d DIR    a directory on a disk, not tmpfs (default /var/tmp)
#   -s SIZE   the file (default 256m)
#   -D SECS   each launch's length (default 3)
#   -c CPU    the CPU both tools are bound to (default 1; "none": no binding)
#   -o DIR    keep logs, results.txt and summary.txt in DIR (default: a new dir under /tmp)
#   -T SECS   timeout of each launch (default 120)
# environment: PFSBENCH (default build-perf/pfsbench beside bench/, else build/pfsbench)
# Exit status: 0 when every launch worked, 1 when one failed, 2 for bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
if [ -z "${PFSBENCH:-}" ]; then
    PFSBENCH=$top/build-perf/pfsbench
    [ -x "$PFSBENCH" ] || PFSBENCH=$top/build/pfsbench
fi
ROUNDS=4 DISK=/var/tmp SIZE=256m SECS=3 CPU=1 OUT="" TO=120
BENCH_NAME=rwmix-vs-fio
. "$here/lib.sh"
while getopts "r:d:s:D:c:o:T:h" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; d) DISK=$OPTARG ;; s) SIZE=$OPTARG ;; D) SECS=$OPTARG ;; c) CPU=$OPTARG ;;
    o) OUT=$OPTARG ;; T) TO=$OPTARG ;; h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "-r takes a positive count"
[[ $SECS =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "-D takes seconds"
bytes "$SIZE" >/dev/null || die "bad size '$SIZE'"
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH)"
command -v fio >/dev/null || die "fio is not installed (Debian: apt-get install fio)"
[ -d "$DISK" ] && [ -w "$DISK" ] || die "'$DISK' is not a writable directory"
[ "$(stat -f -c %T "$DISK")" != tmpfs ] || die "$DISK is on tmpfs: O_DIRECT needs a disk"
BIND=()
[ "$CPU" != none ] && BIND=(taskset -c "$CPU")
if [ -z "$OUT" ]; then OUT=$(mktemp -d /tmp/rwmix-vs-fio.XXXXXX); else mkdir -p "$OUT" || die "cannot make $OUT"; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_base_warn_component_unused=0
W=$(mktemp -d "$DISK/rwmix-vs-fio.XXXXXX") || die "cannot make a work directory in $DISK"
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
F=$W/pfsbench.pvfm.0
pfs_mibs "$OUT/layout.log" -d "$W" -t 1m -b "$SIZE" -p write -e -k --run-id pvfm >/dev/null ||
    die "could not lay the file out ($OUT/layout.log)"

# run NAME LOG: pfs-qdN or fio-qdN, "rwmix MIBS"
run() {
    local qd=${1##*-qd}
    case $1 in
    pfs-qd1) pfs_mibs "$2" -d "$W" -a posix -t 4k -b "$SIZE" --direct --random -p rwmix --rwmix 70 --run-id pvfm -k \
        --runtime "$SECS" ;;
    pfs-*) pfs_mibs "$2" -d "$W" -a aio --iodepth "$qd" -t 4k -b "$SIZE" --direct --random -p rwmix --rwmix 70 \
        --run-id pvfm -k --runtime "$SECS" ;;
    fio-*)
        local eng=libaio
        [ "$qd" = 1 ] && eng=psync
        fio_mibs "$2" --mix --name=m --filename="$F" --ioengine=$eng --iodepth="$qd" --direct=1 --rw=randrw \
            --rwmixread=70 --bs=4k --size="$(bytes "$SIZE")" --runtime="$SECS" --time_based --randrepeat=0 \
            --invalidate=0 ;;
    esac
}
rc=0
bench_rounds "$ROUNDS" run "$OUT" pfs-qd1 fio-qd1 pfs-qd32 fio-qd32 || rc=1
bench_summary "$OUT" "rwmix" "pfs-qd1 fio-qd1 pfs-qd32 fio-qd32" "pfs-qd1/fio-qd1 pfs-qd32/fio-qd32"
exit $rc
