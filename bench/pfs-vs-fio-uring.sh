#!/bin/bash
# pfs-vs-fio-uring.sh: pfsbench's io_uring engine (--api uring --iodepth N)
# against fio's (ioengine=io_uring iodepth=N) on the same work, one rank /
# one job, in alternating order, both bound to the same CPU (taskset -c).
#
# Cells (A vs B, the ratio is A/B):
#   rand-qd32  4 KiB random O_DIRECT reads of one SIZE file on a disk (not tmpfs), every
#              block once in a random order, stopping after SECS if not done by then:
#              pfsbench -a uring --iodepth 32 -p read --random -D SECS
#              vs fio --ioengine=io_uring --iodepth=32 --rw=randread --runtime=SECS --norandommap
#              (uniform offsets, as in pfsbench's permutation; fio's random map picks the next
#              free block once a pick was used, more and more sequential towards the end: it
#              read 468 MiB/s here against 430 with --norandommap, same file, same engine)
#   rand-qd1   the same at depth 1: pfsbench -a uring --iodepth 1 vs fio --ioengine=psync
#   seq-qd8    1 MiB sequential O_DIRECT write (fsync at the end) then read of SEQ bytes on
#              the disk: pfsbench -a uring --iodepth 8 -e vs fio io_uring iodepth=8 end_fsync=1
#   shm-qd1    1 MiB buffered write then read of SHM bytes on /dev/shm:
#              pfsbench -a uring --iodepth 1 vs pfsbench -a posix (same command otherwise)
#   shm-qd8    the same, -a uring --iodepth 8 vs -a posix
# The random cells read one file pfsbench wrote once (untimed, -k --run-id pvfu),
# both tools the same file. Round 1 runs A first, round 2 B first, and so on.
# Prints per cell and operation the median of each tool (MiB/s; IOPS for 4 KiB),
# the median of the per-round ratios A/B and their spread (min-max). MiB/s = 2^20 B/s.
#
# usage: bench/pfs-vs-fio-uring.sh [options]
#   -r N      rounds (default 4; an even count, so each tool goes first equally often)
#   -d DIR    the disk directory (default: the first of /var/tmp, /tmp, $HOME not on tmpfs)
#   -s SIZE   the random cells' file (default 1g)
#   -D SECS   the random cells' longest launch (default 5; depth 32 reads 1 GiB in less here)
#   -S SIZE   the sequential cell's bytes (default 1g)
#   -m SIZE   the /dev/shm cells' bytes (default 1g)
#   -c CPU    the CPU both tools are bound to (default 1; "none": no binding)
#   -C LIST   cells to run, comma-separated (default rand-qd32,rand-qd1,seq-qd8,shm-qd1,shm-qd8)
#   -o DIR    keep logs, results.csv and summary.txt in DIR (default: a new dir under /tmp)
#   -T SECS   timeout of each launch (default 300)
# environment: PFSBENCH (default build-perf/pfsbench beside bench/, else build/pfsbench)
# Exit status: 0 when every launch worked, 1 when one failed, 2 for bad usage.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
if [ -z "${PFSBENCH:-}" ]; then
    PFSBENCH=$top/build-perf/pfsbench
    [ -x "$PFSBENCH" ] || PFSBENCH=$top/build/pfsbench
fi
ROUNDS=4 DISK="" RSIZE=1g SECS=5 SEQ=1g SHM=1g CPU=1 OUT="" TO=300
CELLS=rand-qd32,rand-qd1,seq-qd8,shm-qd1,shm-qd8

BENCH_NAME=pfs-vs-fio-uring
. "$here/lib.sh"

while getopts "r:d:s:D:S:m:c:C:o:T:h" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; d) DISK=$OPTARG ;; s) RSIZE=$OPTARG ;; D) SECS=$OPTARG ;; S) SEQ=$OPTARG ;;
    m) SHM=$OPTARG ;; c) CPU=$OPTARG ;; C) CELLS=$OPTARG ;; o) OUT=$OPTARG ;; T) TO=$OPTARG ;;
    h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done

fstype() { stat -f -c %T "$1"; }

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "-r takes a positive count"
[[ $SECS =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "-D takes seconds"
for v in "$RSIZE" "$SEQ" "$SHM"; do bytes "$v" >/dev/null || die "bad size '$v'"; done
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH)"
command -v fio >/dev/null || die "fio is not installed (Debian: apt-get install fio)"
fio --enghelp 2>/dev/null | grep -qw io_uring || die "this fio has no io_uring engine"
command -v mpirun >/dev/null || die "mpirun is not on PATH"
BIND=()
if [ "$CPU" != none ]; then
    command -v taskset >/dev/null || die "taskset (util-linux) is needed for -c"
    BIND=(taskset -c "$CPU")
fi
if [ -z "$DISK" ]; then
    for d in /var/tmp /tmp "${HOME:-/root}"; do
        [ -d "$d" ] && [ -w "$d" ] && [ "$(fstype "$d")" != tmpfs ] && { DISK=$d; break; }
    done
    [ -n "$DISK" ] || die "no directory off tmpfs found for the O_DIRECT cells; give -d DIR"
fi
[ -d "$DISK" ] && [ -w "$DISK" ] || die "'$DISK' is not a writable directory"
[ "$(fstype "$DISK")" != tmpfs ] || die "$DISK is on tmpfs: the O_DIRECT cells need a disk"
IFS=, read -ra CELL <<<"$CELLS"
for c in "${CELL[@]}"; do
    case $c in rand-qd32 | rand-qd1 | seq-qd8 | shm-qd1 | shm-qd8) ;; *) die "unknown cell '$c'" ;; esac
done

if [ -z "$OUT" ]; then OUT=$(mktemp -d /tmp/pfs-vs-fio-uring.XXXXXX); else mkdir -p "$OUT" || die "cannot make $OUT"; fi
mkdir -p "$OUT/logs"
CSV=$OUT/results.csv
echo "round,order,cell,tool,op,mibs,iops,load1" >"$CSV"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_btl_vader_single_copy_mechanism=none
W=$(mktemp -d "$DISK/pfs-vs-fio-uring.XXXXXX") || die "cannot make a work directory in $DISK"
M=$(mktemp -d /dev/shm/pfs-vs-fio-uring.XXXXXX) || die "cannot make a work directory in /dev/shm"
trap 'rm -rf "$W" "$M"' EXIT
trap 'exit 130' INT TERM
FAILED=0



RFILE=$W/pfsbench.pvfu.0
rand_pfs() { pfs_mibs "$1" -d "$W" -a uring --iodepth "$2" -t 4k -b "$RSIZE" --direct --random -p read --run-id pvfu -D "$SECS"; }
rand_fio() {
    local eng=io_uring
    [ "$2" = 1 ] && eng=psync
    fio_mibs "$1" --name=r --filename="$RFILE" --readonly --ioengine=$eng --iodepth="$2" --direct=1 --rw=randread \
        --bs=4k --size="$(bytes "$RSIZE")" --runtime="$SECS" --randrepeat=0 --invalidate=0 --norandommap
}
seq_pfs() { pfs_mibs "$1" -d "$W" -a uring --iodepth 8 -t 1m -b "$SEQ" --direct -e -p write,read; }
seq_fio() {
    # shellcheck disable=SC2016
    fio_mibs "$1" --directory="$W" --filename_format='pvfu-seq.$jobnum' --ioengine=io_uring --iodepth=8 --direct=1 \
        --bs=1m --size="$(bytes "$SEQ")" --fallocate=none --invalidate=0 --create_on_open=1 --mem_align=4096 \
        --name=write --rw=write --end_fsync=1 --name=read --stonewall --rw=read --unlink=1
}
shm_pfs() { pfs_mibs "$1" -d "$M" -a uring --iodepth "$2" -t 1m -b "$SHM" -e -p write,read; }
shm_posix() { pfs_mibs "$1" -d "$M" -a posix -t 1m -b "$SHM" -e -p write,read; }

# cell_tools CELL: "A B" (the tools compared, A/B)
cell_tools() { case $1 in rand-*|seq-*) echo "pfs fio" ;; shm-*) echo "uring posix" ;; esac; }

# launch ROUND ORDER CELL TOOL: one measured launch, its rows in the CSV
launch() {
    local round=$1 order=$2 cell=$3 tool=$4 log res load qd=${3##*-qd}
    log="$OUT/logs/r$round-$cell-$tool"
    case $cell/$tool in
    rand-*/pfs) res=$(rand_pfs "$log" "$qd") ;; rand-*/fio) res=$(rand_fio "$log" "$qd") ;;
    seq-*/pfs) res=$(seq_pfs "$log") ;; seq-*/fio) res=$(seq_fio "$log") ;;
    shm-*/uring) res=$(shm_pfs "$log" "$qd") ;; shm-*/posix) res=$(shm_posix "$log") ;;
    esac || { echo "pfs-vs-fio-uring: $tool failed in $cell (round $round); see $log" >&2; FAILED=1; return 1; }
    read -r load _ </proc/loadavg
    while read -r op mibs; do
        local iops=""
        [[ $cell == rand-* ]] && iops=$(awk -v m="$mibs" 'BEGIN { printf "%.0f", m * 256 }')
        [ "$round" -gt 0 ] && echo "$round,$order,$cell,$tool,$op,$mibs,$iops,$load" >>"$CSV"
        printf 'round %d/%d %-9s %-6s %-5s %9.1f MiB/s %s  load %s\n' "$round" "$ROUNDS" "$cell" "$tool" "$op" \
            "$mibs" "${iops:+$iops IOPS}" "$load" >&2
    done <<<"$res"
}

{
    echo "pfs-vs-fio-uring: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) cores, kernel $(uname -r)"
    echo "command: $0 $*"
    echo "pfsbench: $PFSBENCH ($("$PFSBENCH" --version 2>/dev/null | head -1)); fio: $(fio --version)"
    echo "disk $DISK ($(fstype "$DISK")), rounds $ROUNDS, random file $RSIZE for $SECS s, seq $SEQ, shm $SHM, cpu $CPU"
} | tee "$OUT/header.txt"

if [[ $CELLS == *rand-* ]]; then
    echo "making the random cells' file $RFILE ($RSIZE, untimed)" >&2
    pfs_mibs "$OUT/logs/make-rfile" -d "$W" -a uring --iodepth 8 -t 1m -b "$RSIZE" --direct -e -p write -k \
        --run-id pvfu >/dev/null || die "could not write $RFILE; see $OUT/logs/make-rfile"
fi
for c in "${CELL[@]}"; do # one untimed warm-up of each tool
    for tool in $(cell_tools "$c"); do launch 0 0 "$c" "$tool"; done
done
for ((round = 1; round <= ROUNDS; round++)); do
    for c in "${CELL[@]}"; do
        read -r a b <<<"$(cell_tools "$c")"
        if [ $((round % 2)) -eq 1 ]; then launch "$round" 1 "$c" "$a"; launch "$round" 2 "$c" "$b"
        else launch "$round" 1 "$c" "$b"; launch "$round" 2 "$c" "$a"; fi
    done
done

python3 - "$CSV" <<'EOF' | tee "$OUT/summary.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pairs = {"rand-qd32": ("pfs", "fio", "pfsbench uring qd32 / fio io_uring qd32"),
         "rand-qd1": ("pfs", "fio", "pfsbench uring qd1 / fio psync"),
         "seq-qd8": ("pfs", "fio", "pfsbench uring qd8 / fio io_uring qd8"),
         "shm-qd1": ("uring", "posix", "pfsbench uring qd1 / pfsbench posix"),
         "shm-qd8": ("uring", "posix", "pfsbench uring qd8 / pfsbench posix")}
v = {}
for r in rows:
    v.setdefault((r["cell"], r["op"]), {}).setdefault(r["tool"], {})[int(r["round"])] = float(r["mibs"])
print()
print("medians over rounds, MiB/s = 2^20 B/s (4 KiB cells: IOPS = MiB/s x 256); ratio = median of per-round A/B")
hdr = "%-9s %-5s %11s %11s %9s %9s %7s %7s %7s %3s  %s" % ("cell", "op", "A MiB/s", "B MiB/s", "A IOPS", "B IOPS",
                                                      "ratio", "min", "max", "n", "A / B")
print(hdr)
print("-" * len(hdr))
order = list(pairs)
for (cell, op) in sorted(v, key=lambda k: (order.index(k[0]), k[1] != "write")):
    a, b, what = pairs[cell]
    A, B = v[(cell, op)].get(a, {}), v[(cell, op)].get(b, {})
    rr = [A[i] / B[i] for i in sorted(set(A) & set(B)) if B[i] > 0]
    if not rr:
        continue
    ma, mb = statistics.median(A.values()), statistics.median(B.values())
    iops = lambda m: "%9.0f" % (m * 256) if cell.startswith("rand") else "%9s" % "-"
    print("%-9s %-5s %11.1f %11.1f %s %s %7.3f %7.3f %7.3f %3d  %s" % (cell, op, ma, mb, iops(ma), iops(mb),
          statistics.median(rr), min(rr), max(rr), len(rr), what))
EOF
echo "raw results: $CSV; logs: $OUT/logs"
[ "$FAILED" -eq 0 ] || { echo "pfs-vs-fio-uring: some launches failed (see above)" >&2; exit 1; }
exit 0
