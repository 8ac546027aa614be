#!/bin/bash
# dist-vs-fio.sh: pfsbench's offset distributions against fio's (issue 30).
#
# usage: bench/dist-vs-fio.sh [-b BLOCKS] [-n DRAWS] [-r DIR] [SPEC...]
#
# For each SPEC (fio's random_distribution syntax; default zipf:1.2
# zipf:0.8 pareto:0.2 normal:5), fio 3.x draws DRAWS 4 KiB random reads
# over BLOCKS blocks with --ioengine=null (no I/O, no file: only its offset
# generator runs) and logs every offset (--write_iolog); bench_load draws as
# many blocks with pfsbench's generator (src/core/dist.c, scrambled as fio
# always is). Both are counted per tenth of the file by position and per
# tenth of the blocks ranked by their hits, and the tenths compared.
#   fio --name=d --filename=DIR/f --size=BLOCKS*4k --io_size=DRAWS*4k --bs=4k
#       --rw=randread --ioengine=null --randrepeat=1 --random_distribution=SPEC
#       --write_iolog=DIR/iolog
# By hits is the distribution's shape; by position depends, in both tools,
# on where the scrambling puts the few hottest blocks (fio: a seed from its
# file name and job number), so it is shown, not matched.
# BUILD (default build) holds bench_load.
# Exit status: 0, or 2 on bad usage or a tool that failed.
set -euo pipefail
BENCH_NAME=dist-vs-fio.sh
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$HERE/../build}
BLOCKS=262144 DRAWS=1048576 RUN_DIR=
while getopts b:n:r:h o; do
    case $o in
    b) BLOCKS=$OPTARG ;; n) DRAWS=$OPTARG ;; r) RUN_DIR=$OPTARG ;; *) usage; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- zipf:1.2 zipf:0.8 pareto:0.2 normal:5
[ -x "$BUILD/bench/bench_load" ] || die "no $BUILD/bench/bench_load: build first"
command -v fio >/dev/null || die "no fio"
if [ -n "$RUN_DIR" ]; then
    [ "$DRAWS" = "$BLOCKS" ] || die "-r: pfsbench's read draws once per block: give -n $BLOCKS"
    [ -d "$RUN_DIR" ] || die "-r $RUN_DIR: no such directory"
    [ -x "$BUILD/pfsbench" ] || die "no $BUILD/pfsbench: build first"
    command -v strace >/dev/null || die "-r: no strace"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo "fio $(fio --version), $BLOCKS blocks of 4 KiB, $DRAWS draws"
for spec in "$@"; do
    timeout 300 fio --name=d --filename="$TMP/f" --size=$((BLOCKS * 4))k --io_size=$((DRAWS * 4))k --bs=4k \
        --rw=randread --ioengine=null --randrepeat=1 --random_distribution="$spec" \
        --write_iolog="$TMP/iolog" >"$TMP/fio.out" 2>&1 || { cat "$TMP/fio.out" >&2; die "fio failed on $spec"; }
    /usr/bin/python3 "$HERE/dist_deciles.py" fio "$TMP/iolog" "$BLOCKS" 4096 >"$TMP/fio.dec"
    if [ -n "$RUN_DIR" ]; then
        timeout 600 mpirun -np 1 --bind-to none strace -f -qq -e trace=pread64 -o "$TMP/st" "$BUILD/pfsbench" \
            -d "$RUN_DIR" -t 4k -b $((BLOCKS * 4))k -p write,read --random --random-dist "$spec" --no-results -q \
            >"$TMP/pfs.out" 2>&1 || { cat "$TMP/pfs.out" >&2; die "pfsbench failed on $spec"; }
        /usr/bin/python3 "$HERE/dist_deciles.py" strace "$TMP/st" "$BLOCKS" 4096 >"$TMP/pfs.dec"
        rm -f "$TMP/st"
    else
        "$BUILD/bench/bench_load" deciles "$spec" "$BLOCKS" "$DRAWS" 1 >"$TMP/pfs.dec" || die "bench_load failed on $spec"
    fi
    /usr/bin/python3 "$HERE/dist_deciles.py" compare "$spec" "$TMP/fio.dec" "$TMP/pfs.dec"
    rm -f "$TMP/iolog"
done
