#!/bin/bash
# What the live progress line costs: the same run with and without
# --progress, alternating the order each round (A B, then B A), on /dev/shm
# where the file system is fastest and overhead shows most. Prints the
# median bandwidth of each and the median and spread of the per-round
# ratios progress/plain.
#
# usage: bench/progress-cost.sh [PFSBENCH] [ROUNDS] [BLOCK] [TRANSFER] [RANKS]
set -euo pipefail
PFS=${1:-$(dirname "$0")/../build/pfsbench}
ROUNDS=${2:-5}
BLOCK=${3:-4g}
XFER=${4:-64k}
NP=${5:-2}
DIR=$(mktemp -d /dev/shm/pfs-progress.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

one() { # one run: prints "write_MiBps read_MiBps"
    # Write and delete a scratch file of the run's size first: this VM gives
    # freed memory back to its host lazily, which slows the next large write.
    dd if=/dev/zero of="$DIR/scratch" bs=1M count=$(( $(numfmt --from=iec "${BLOCK^^}") * NP / 1048576 )) status=none
    rm -f "$DIR/scratch"
    timeout 600 mpirun -np "$NP" --oversubscribe --bind-to none "$PFS" -d "$DIR" -t "$XFER" -b "$BLOCK" \
        -p write,read --no-results --format csv "$@" 2>/dev/null |
        awk -F, 'NR>1 {printf "%s ", $15} END {print ""}'
}

echo "# pfsbench $("$PFS" --version | awk '{print $2}'), $NP ranks, block $BLOCK, transfer $XFER, $ROUNDS rounds, /dev/shm"
echo "round order          plain_w   plain_r  progress_w progress_r  loadavg"
: >"$DIR/rows"
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then
        a=$(one); b=$(one --progress); order="plain,progress"
    else
        b=$(one --progress); a=$(one); order="progress,plain"
    fi
    echo "$r $order $a $b $(cut -d' ' -f1 /proc/loadavg)" | tee -a "$DIR/rows" |
        awk '{printf "%-5s %-15s %9.1f %9.1f %10.1f %10.1f  %s\n", $1, $2, $3, $4, $5, $6, $7}'
done
/usr/bin/python3 - "$DIR/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for i, name in ((0, "write"), (1, "read")):
    plain = [float(r[2 + i]) for r in rows]
    prog = [float(r[4 + i]) for r in rows]
    ratios = [p / q for p, q in zip(prog, plain)]
    print("%-5s median MiB/s: plain %.1f, progress %.1f; ratio progress/plain: median %.3f (min %.3f, max %.3f)"
          % (name, statistics.median(plain), statistics.median(prog), statistics.median(ratios), min(ratios), max(ratios)))
PY
