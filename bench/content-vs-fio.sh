#!/bin/bash
# content-vs-fio.sh: pfsbench's compressible and deduplicable contents
# against fio's (issue 30).
#
# usage: bench/content-vs-fio.sh [-d DIR] [-s SIZE] [-r] [COMPRESS/DEDUPE...]
#
# For each pair (default 0/0 50/0 70/0 90/0 0/25 0/50 50/50), fio writes
# SIZE (default 64m) sequentially in 64 KiB blocks to a new file in DIR
# (default /tmp) with buffer_compress_percentage=COMPRESS (omitted at 0)
# and dedupe_percentage=DEDUPE; bench_load writes SIZE of
# pfsbench's content (src/core/content.c) with the same percentages and a
# 64 KiB dedupe unit (fio's unit: the block). Both files are measured by
# bench/content_measure.py: zlib level 6 over 1 MiB pieces, and the
# fraction of 64 KiB units that repeat an earlier one.
#   fio --name=c --filename=DIR/fio.N --size=SIZE --bs=64k --rw=write
#       --ioengine=psync --buffer_compress_percentage=C --dedupe_percentage=D
# -r: pfsbench itself writes its file instead of bench_load (one rank):
#   mpirun -np 1 pfsbench -d DIR -t 64k -b SIZE -p write --buffer-compress C
#       --dedupe D -k --no-results -q
# BUILD (default build) holds bench_load and pfsbench. The files are removed
# at the end.
# Exit status: 0, or 2 on bad usage or a tool that failed.
set -euo pipefail
BENCH_NAME=content-vs-fio.sh
. "$(dirname "$0")/lib.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${BUILD:-$HERE/../build}
DIR=/tmp SIZE=64m RUN=
while getopts d:s:rh o; do
    case $o in
    d) DIR=$OPTARG ;; s) SIZE=$OPTARG ;; r) RUN=1 ;; *) usage; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 0/0 50/0 70/0 90/0 0/25 0/50 50/50
BYTES=$(bytes "$SIZE") || die "bad size $SIZE"
[ -x "$BUILD/bench/bench_load" ] || die "no $BUILD/bench/bench_load: build first"
command -v fio >/dev/null || die "no fio"
WORK=$(mktemp -d "$DIR/content-vs-fio.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
echo "fio $(fio --version), $SIZE in 64 KiB blocks; compressed: zlib -6 per MiB / size; repeats: 64 KiB units"
printf '%-9s %-12s %-12s %-12s %-12s\n' "C/D" "fio compr." "pfs compr." "fio repeats" "pfs repeats"
for pair in "$@"; do
    c=${pair%/*} d=${pair#*/}
    [[ $c =~ ^[0-9]+$ && $d =~ ^[0-9]+$ ]] || die "bad pair $pair (COMPRESS/DEDUPE)"
    opts=(--dedupe_percentage="$d")
    [ "$c" -gt 0 ] && opts+=(--buffer_compress_percentage="$c")
    timeout 300 fio --name=c --filename="$WORK/fio.$c.$d" --size="$SIZE" --bs=64k --rw=write --ioengine=psync \
        "${opts[@]}" >"$WORK/fio.out" 2>&1 || { cat "$WORK/fio.out" >&2; die "fio failed on $pair"; }
    if [ -n "$RUN" ]; then
        mkdir "$WORK/run"
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 300 mpirun -np 1 --bind-to none \
            "$BUILD/pfsbench" -d "$WORK/run" -t 64k -b "$BYTES" -p write --buffer-compress "$c" --dedupe "$d" -k \
            --no-results -q >"$WORK/pfs.out" 2>&1 || { cat "$WORK/pfs.out" >&2; die "pfsbench failed on $pair"; }
        mv "$WORK"/run/pfsbench.*.0 "$WORK/pfs.$c.$d"
        rm -rf "$WORK/run"
    else
        "$BUILD/bench/bench_load" content "$c" "$d" 65536 "$BYTES" >"$WORK/pfs.$c.$d" || die "bench_load failed on $pair"
    fi
    read -r _ _ _ fc _ fr < <(/usr/bin/python3 "$HERE/content_measure.py" "$WORK/fio.$c.$d" 65536)
    read -r _ _ _ pc _ pr < <(/usr/bin/python3 "$HERE/content_measure.py" "$WORK/pfs.$c.$d" 65536)
    printf '%-9s %-12s %-12s %-12s %-12s\n' "$pair" "$fc" "$pc" "$fr" "$pr"
    rm -f "$WORK/fio.$c.$d" "$WORK/pfs.$c.$d"
done
