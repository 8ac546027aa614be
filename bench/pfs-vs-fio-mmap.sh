#!/bin/bash
# pfs-vs-fio-mmap.sh: pfsbench's mmap engine (--api mmap) against fio's
# (ioengine=mmap) and against pfsbench's own POSIX engine, on the same work:
# 1 MiB sequential transfers, one rank / one job, a file of SIZE on /dev/shm,
# in alternating order, both bound to the same CPU (taskset -c).
#
# Cells (A vs B, the ratio is A/B):
#   fio    pfsbench -a mmap -t 1m -b SIZE -e -p write,rewrite,read
#          vs fio --ioengine=mmap --bs=1m --size=SIZE (write with end_fsync=1, then read)
#          fio lays its file out (fallocate + ftruncate) before its timed write, so its write
#          overwrites an allocated file: pfsbench's rewrite is the same work and is compared
#          with it (row "rewrite"); pfsbench's write makes a new file and sizes it with
#          fallocate inside its timed open (row "write", against the same fio write)
#   posix  pfsbench -a mmap vs pfsbench -a posix, same command otherwise (write, rewrite, read)
# Round 1 runs A first, round 2 B first, and so on; round 0 is an untimed warm-up.
# Prints per cell and operation the median of each tool (MiB/s = 2^20 B/s), the
# median of the per-round ratios A/B and their spread (min-max).
#
# usage: bench/pfs-vs-fio-mmap.sh [options]
#   -r N      rounds (default 4; an even count, so each tool goes first equally often)
#   -s SIZE   bytes per file (default 1g)
#   -c CPU    the CPU both tools are bound to (default 1; "none": no binding)
#   -C LIST   cells to run, comma-separated (default fio,posix)
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
ROUNDS=4 SIZE=1g CPU=1 CELLS=fio,posix OUT="" TO=300

BENCH_NAME=pfs-vs-fio-mmap
. "$here/lib.sh"

while getopts "r:s:c:C:o:T:h" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; s) SIZE=$OPTARG ;; c) CPU=$OPTARG ;; C) CELLS=$OPTARG ;; o) OUT=$OPTARG ;;
    T) TO=$OPTARG ;; h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done


[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "-r takes a positive count"
bytes "$SIZE" >/dev/null || die "bad size '$SIZE'"
[ $(($(bytes "$SIZE") % 1048576)) -eq 0 ] || die "-s must be a multiple of 1 MiB (the transfer)"
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH)"
"$PFSBENCH" --help 2>/dev/null | grep -q mmap || die "$PFSBENCH has no --api mmap"
command -v fio >/dev/null || die "fio is not installed (Debian: apt-get install fio)"
fio --enghelp 2>/dev/null | grep -qw mmap || die "this fio has no mmap engine"
command -v mpirun >/dev/null || die "mpirun is not on PATH"
[ -d /dev/shm ] && [ -w /dev/shm ] || die "/dev/shm is not a writable directory"
BIND=()
if [ "$CPU" != none ]; then
    command -v taskset >/dev/null || die "taskset (util-linux) is needed for -c"
    BIND=(taskset -c "$CPU")
fi
IFS=, read -ra CELL <<<"$CELLS"
for c in "${CELL[@]}"; do
    case $c in fio | posix) ;; *) die "unknown cell '$c'" ;; esac
done

if [ -z "$OUT" ]; then OUT=$(mktemp -d /tmp/pfs-vs-fio-mmap.XXXXXX); else mkdir -p "$OUT" || die "cannot make $OUT"; fi
mkdir -p "$OUT/logs"
CSV=$OUT/results.csv
echo "round,order,cell,tool,op,mibs,load1" >"$CSV"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_btl_vader_single_copy_mechanism=none
M=$(mktemp -d /dev/shm/pfs-vs-fio-mmap.XXXXXX) || die "cannot make a work directory in /dev/shm"
trap 'rm -rf "$M"' EXIT
trap 'exit 130' INT TERM
FAILED=0



run_pfs() { pfs_mibs "$1" -d "$M" -a "$2" -t 1m -b "$SIZE" -e -p write,rewrite,read; }
run_fio() {
    # shellcheck disable=SC2016
    fio_mibs "$1" --rewrite --directory="$M" --filename_format='pvfm.$jobnum' --ioengine=mmap --bs=1m --size="$(bytes "$SIZE")" \
        --invalidate=0 --name=write --rw=write --end_fsync=1 --name=read --stonewall --rw=read --unlink=1
}

# cell_tools CELL: "A B" (the tools compared, A/B)
cell_tools() { case $1 in fio) echo "mmap fio" ;; posix) echo "mmap posix" ;; esac; }

# launch ROUND ORDER CELL TOOL: one measured launch, its rows in the CSV
launch() {
    local round=$1 order=$2 cell=$3 tool=$4 log res load
    log="$OUT/logs/r$round-$cell-$tool"
    case $tool in
    mmap | posix) res=$(run_pfs "$log" "$tool") ;; fio) res=$(run_fio "$log") ;;
    esac || { echo "pfs-vs-fio-mmap: $tool failed in $cell (round $round); see $log" >&2; FAILED=1; return 1; }
    read -r load _ </proc/loadavg
    while read -r op mibs; do
        [ "$round" -gt 0 ] && echo "$round,$order,$cell,$tool,$op,$mibs,$load" >>"$CSV"
        printf 'round %d/%d %-6s %-6s %-8s %9.1f MiB/s  load %s\n' "$round" "$ROUNDS" "$cell" "$tool" "$op" \
            "$mibs" "$load" >&2
    done <<<"$res"
}

{
    echo "pfs-vs-fio-mmap: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) cores, kernel $(uname -r)"
    echo "command: $0 $*"
    echo "pfsbench: $PFSBENCH ($("$PFSBENCH" --version 2>/dev/null | head -1)); fio: $(fio --version)"
    echo "/dev/shm, 1 MiB sequential, file $SIZE, rounds $ROUNDS, cpu $CPU"
} | tee "$OUT/header.txt"

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
pairs = {"fio": ("mmap", "fio", "pfsbench mmap / fio mmap"),
         "posix": ("mmap", "posix", "pfsbench mmap / pfsbench posix")}
ops = ["write", "rewrite", "read"]
v = {}
for r in rows:
    v.setdefault((r["cell"], r["op"]), {}).setdefault(r["tool"], {})[int(r["round"])] = float(r["mibs"])
print()
print("medians over rounds, MiB/s = 2^20 B/s; ratio = median of per-round A/B")
print("(fio's write overwrites a file it laid out untimed: it is the B of both pfsbench's write and rewrite)")
hdr = "%-6s %-8s %11s %11s %7s %7s %7s %3s  %s" % ("cell", "op", "A MiB/s", "B MiB/s", "ratio", "min", "max", "n", "A / B")
print(hdr)
print("-" * len(hdr))
order = list(pairs)
for (cell, op) in sorted(v, key=lambda k: (order.index(k[0]), ops.index(k[1]))):
    a, b, what = pairs[cell]
    A, B = v[(cell, op)].get(a, {}), v[(cell, op)].get(b, {})
    rr = [A[i] / B[i] for i in sorted(set(A) & set(B)) if B[i] > 0]
    if not rr:
        continue
    ma, mb = statistics.median(A.values()), statistics.median(B.values())
    print("%-6s %-8s %11.1f %11.1f %7.3f %7.3f %7.3f %3d  %s" % (cell, op, ma, mb, statistics.median(rr), min(rr),
          max(rr), len(rr), what))
EOF
echo "raw results: $CSV; logs: $OUT/logs"
[ "$FAILED" -eq 0 ] || { echo "pfs-vs-fio-mmap: some launches failed (see above)" >&2; exit 1; }
exit 0
