#!/bin/bash
# pfs-binding.sh: what the CPU binding costs small O_DIRECT reads (issue 17).
#
# One rank reads a 256 MiB file on a real disk in 4 KiB transfers, random
# order, O_DIRECT, each cell once per round, the cells' order rotated from
# round to round (interleaved, so a slow minute of this shared VM hits every
# cell alike):
#   pfs-core   mpirun -np 1 --bind-to core BIN -d DIR -t 4k -b 256m -p read --direct --random
#                     -k --run-id ID --no-results --format csv
#   pfs-none   the same under --bind-to none
#   fio-core   taskset -c CORE fio --name=r --filename=FILE --rw=randread --bs=4k --size=256m
#                     --direct=1 --ioengine=psync --numjobs=1 --output-format=json
#              (CORE: the CPU mpirun bound pfs-core to, read from pfsbench -v's placement table)
#   fio-none   the same without taskset
#   pfs-irq, fio-irq   both pinned (taskset -c, pfsbench with --bind-to none inside) to the
#              CPU the disk's interrupt is delivered to (/proc/irq/N/effective_affinity_list
#              of the disk's virtio "req" vector), when that is known and not CORE
# and, when `pfsbench --help` lists uring, the first four again with
# `-a uring --iodepth 32` / `--ioengine=io_uring --iodepth=32`.
# The file is written once (1 MiB transfers, kept) and read by every cell.
#
# Prints per cell the median IOPS (min-max) and the ratios of the medians:
# core/none for pfsbench and for fio.
#
# usage: bench/pfs-binding.sh [options]
#   -r N       rounds (default 4)
#   -d DIR     target directory on a real disk (default /var/tmp; tmpfs is refused)
#   -T SECS    timeout of each launch (default 120)
#   -o DIR     keep results.csv and summary.txt in DIR (default: new /tmp dir)
# environment: PFSBENCH (default build/pfsbench next to bench/).
# Exit status: 0 when every launch worked, 1 when one failed, 2 for bad usage.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
PFSBENCH=${PFSBENCH:-$repo/build/pfsbench}
ROUNDS=4 TARGET=/var/tmp TO=120 OUT=""
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_btl_vader_single_copy_mechanism=none

usage() { sed -n '/^# usage:/,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "pfs-binding: $*" >&2; exit 2; }
while getopts "r:d:T:o:h" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; d) TARGET=$OPTARG ;; T) TO=$OPTARG ;; o) OUT=$OPTARG ;;
    h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH)"
command -v fio >/dev/null || die "fio is not installed"
fstype=$(stat -f -c %T "$TARGET") || die "no directory $TARGET"
case $fstype in tmpfs | ramfs) die "$TARGET is $fstype: O_DIRECT reads need a real disk" ;; esac
OUT=${OUT:-$(mktemp -d /tmp/pfs-binding.XXXXXX)}
mkdir -p "$OUT"
D=$(mktemp -d "$TARGET/pfs-binding.XXXXXX")
ID=bind$$
FILE=$D/pfsbench.$ID.0
trap 'rm -rf "$D"' EXIT

# The disk's interrupt CPU: the virtio device behind the target's block device.
irq_cpu() {
    local dev blk v
    dev=$(df --output=source "$TARGET" | tail -1)
    blk=$(basename "$(readlink -f "$dev")")
    blk=$(lsblk -no pkname "/dev/$blk" 2>/dev/null | head -1)
    [ -n "$blk" ] || blk=$(basename "$(readlink -f "$dev")")
    v=$(basename "$(readlink -f "/sys/block/$blk/device" 2>/dev/null)")
    local irq
    irq=$(awk -v v="$v-req" '$NF ~ "^" v { sub(":", "", $1); print $1; exit }' /proc/interrupts)
    [ -n "$irq" ] && cat "/proc/irq/$irq/effective_affinity_list" 2>/dev/null
    [ -n "$irq" ] && echo "# interrupts: $(grep "^ *$irq:" /proc/interrupts | tr -s ' ')" >>"$OUT/header.txt"
}

# pfs_iops COMMAND... : the read's ops/s from pfsbench's CSV
pfs_iops() {
    timeout "$TO" "$@" --no-results --format csv 2>>"$OUT/log" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "ops_per_s") c = i; next }
                        $4 == "read" { print $c }'
}
fio_iops() {
    timeout "$TO" "$@" --name=r --filename="$FILE" --rw=randread --bs=4k --size=256m --direct=1 --numjobs=1 \
        --output-format=json 2>>"$OUT/log" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["read"]["iops"])'
}
PREAD=(-d "$D" -t 4k -b 256m -p read --direct --random -k --run-id "$ID")

cell() {
    case $1 in
    pfs-core) pfs_iops mpirun -np 1 --bind-to core "$PFSBENCH" "${PREAD[@]}" ;;
    pfs-none) pfs_iops mpirun -np 1 --bind-to none "$PFSBENCH" "${PREAD[@]}" ;;
    pfs-irq) pfs_iops taskset -c "$IRQ" mpirun -np 1 --bind-to none "$PFSBENCH" "${PREAD[@]}" ;;
    fio-core) fio_iops taskset -c "$CORE" fio --ioengine=psync ;;
    fio-none) fio_iops fio --ioengine=psync ;;
    fio-irq) fio_iops taskset -c "$IRQ" fio --ioengine=psync ;;
    uring-pfs-core) pfs_iops mpirun -np 1 --bind-to core "$PFSBENCH" "${PREAD[@]}" -a uring --iodepth 32 ;;
    uring-pfs-none) pfs_iops mpirun -np 1 --bind-to none "$PFSBENCH" "${PREAD[@]}" -a uring --iodepth 32 ;;
    uring-fio-core) fio_iops taskset -c "$CORE" fio --ioengine=io_uring --iodepth=32 ;;
    uring-fio-none) fio_iops fio --ioengine=io_uring --iodepth=32 ;;
    esac
}

{
    echo "# $(date -u +%FT%TZ) $(uname -r), $(nproc) CPUs, $TARGET: $fstype ($(df --output=source "$TARGET" | tail -1))"
    echo "# pfsbench $PFSBENCH, $(fio --version)"
} >"$OUT/header.txt"
# The file, and the core mpirun binds one rank to (pfsbench's own record).
timeout "$TO" mpirun -np 1 --bind-to core "$PFSBENCH" -d "$D" -t 1m -b 256m -p write -k --run-id "$ID" \
    --no-results -v >"$OUT/setup.txt" 2>>"$OUT/log" || { cat "$OUT/setup.txt" "$OUT/log"; exit 1; }
CORE=$(awk '/^placement \(rank node host .*affinity/ { getline; print $7; exit }' "$OUT/setup.txt")
IRQ=$(irq_cpu)
echo "# --bind-to core put the rank on CPU $CORE; the disk's interrupts go to CPU ${IRQ:-?}" >>"$OUT/header.txt"
CELLS=(pfs-core pfs-none fio-core fio-none)
[ -n "$IRQ" ] && [ "$IRQ" != "$CORE" ] && CELLS+=(pfs-irq fio-irq)
"$PFSBENCH" --help | grep -q 'uring' && CELLS+=(uring-pfs-core uring-pfs-none uring-fio-core uring-fio-none)
cat "$OUT/header.txt"

echo "round,cell,iops" >"$OUT/results.csv"
fails=0
n=${#CELLS[@]}
for ((r = 0; r < ROUNDS; r++)); do
    for ((i = 0; i < n; i++)); do
        c=${CELLS[$(((i + r) % n))]}
        v=$(cell "$c")
        if [ -z "$v" ]; then
            fails=1
            echo "round $r $c: failed (see $OUT/log)" >&2
            continue
        fi
        echo "$r,$c,$v" >>"$OUT/results.csv"
        printf 'round %d %-16s %10.0f IOPS\n' "$r" "$c" "$v"
    done
done

/usr/bin/python3 - "$OUT/results.csv" <<'EOF' | tee "$OUT/summary.txt"
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
for r in rows:
    by.setdefault(r["cell"], []).append(float(r["iops"]))
med = {c: st.median(v) for c, v in by.items()}
print("\n| cell | rounds | median IOPS | min - max |")
print("|---|---:|---:|---:|")
for c, v in by.items():
    print("| %s | %d | %.0f | %.0f - %.0f |" % (c, len(v), med[c], min(v), max(v)))
print()
for a, b in [("pfs-core", "pfs-none"), ("fio-core", "fio-none"), ("pfs-irq", "pfs-none"), ("fio-irq", "fio-none"),
             ("pfs-core", "fio-core"), ("pfs-none", "fio-none"),
             ("uring-pfs-core", "uring-pfs-none"), ("uring-fio-core", "uring-fio-none")]:
    if a in med and b in med:
        print("%s / %s = %.3f" % (a, b, med[a] / med[b]))
EOF
echo "kept in $OUT"
exit $fails
