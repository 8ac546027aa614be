#!/bin/bash
# pfs-vs-hdf5.sh: pfsbench -a hdf5 against bench_hdf5_direct (the same
# H5Fcreate/H5Dcreate/H5Dwrite/H5Fclose, H5Fopen/H5Dread calls and nothing
# else: what an application's own loop reaches), and against pfsbench -a
# posix on the same bytes (what going through HDF5 costs), file per process
# and shared (segmented), in interleaved rounds: round k runs the three tools
# in the order hdf5, direct, posix when k is odd, reversed when even. Before
# every launch a scratch file of the launch's total size is written and
# deleted in the target (this VM hands freed memory back to its host, and
# writes that must fetch it again run slower; see pfs-vs-fio.sh).
#
# Prints per mode and operation the median MiB/s of each tool and the
# median (min-max) of the per-round ratios hdf5/direct (the goal: >= 0.98)
# and hdf5/posix. MiB/s = 2^20 bytes/s.
#
# usage: bench/pfs-vs-hdf5.sh [-r ROUNDS] [-d DIR] [-n RANKS] [-t TRANSFER] [-b BLOCK] [-o OUTDIR]
#   defaults: -r 5 -d /dev/shm -n 2 -t 1m -b 1g (block per rank)
# environment: PFSBENCH (default build/pfsbench beside bench/), BENCH_BIN
# (default the bench/ directory beside PFSBENCH).
set -u
here=$(cd "$(dirname "$0")" && pwd)
PFSBENCH=${PFSBENCH:-$(dirname "$here")/build/pfsbench}
BENCH_BIN=${BENCH_BIN:-$(dirname "$PFSBENCH")/bench}
ROUNDS=5 DIR=/dev/shm NP=2 XFER=1m BLOCK=1g OUT=""
while getopts "r:d:n:t:b:o:h" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; d) DIR=$OPTARG ;; n) NP=$OPTARG ;; t) XFER=$OPTARG ;; b) BLOCK=$OPTARG ;; o) OUT=$OPTARG ;;
    *) sed -n '/^# usage:/,/^# (default the bench/p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
    esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_base_warn_component_unused=0
bytes() { local v=${1%[kmgKMG]} u=${1: -1}; case $u in k|K) echo $((v << 10)) ;; m|M) echo $((v << 20)) ;; g|G) echo $((v << 30)) ;; *) echo "$1" ;; esac; }
T=$(bytes "$XFER") B=$(bytes "$BLOCK")
OUT=${OUT:-$(mktemp -d /tmp/pfs-vs-hdf5.XXXXXX)}
mkdir -p "$OUT"
W=$(mktemp -d "$DIR/pfs-vs-hdf5.XXXXXX")
trap 'rm -rf "$W"' EXIT
CSV=$OUT/results.csv
echo "round,mode,tool,op,mibs" >"$CSV"
MPI=(timeout 300 mpirun -np "$NP" --oversubscribe --bind-to none)

scratch() { dd if=/dev/zero of="$W/scratch" bs=1M count=$((NP * B >> 20)) status=none; rm -f "$W/scratch"; }

# launch ROUND MODE TOOL: one measurement, its write and read MiB/s into the CSV
launch() {
    local r=$1 mode=$2 tool=$3 sh=() log=$OUT/$1.$2.$3.log
    [ "$mode" = shared ] && sh=(--shared)
    scratch
    case $tool in
    direct) "${MPI[@]}" "$BENCH_BIN/bench_hdf5_direct" "$W" "$mode" "$T" "$B" >"$log" 2>&1 ;;
    *) "${MPI[@]}" "$PFSBENCH" -d "$W" -a "$tool" -t "$T" -b "$B" "${sh[@]}" -p write,read --no-results -q >"$log" 2>&1 ;;
    esac || { echo "pfs-vs-hdf5: $tool $mode failed (round $r), see $log" >&2; exit 1; }
    if [ "$tool" = direct ]; then
        awk -v r="$r" -v m="$mode" '{print r "," m ",direct," $1 "," $2}' "$log" >>"$CSV"
    else
        awk -v r="$r" -v m="$mode" -v t="$tool" '($1 == "write" || $1 == "read") && NF == 10 {print r "," m "," t "," $1 "," $5}' "$log" >>"$CSV"
    fi
}

start=$(date +%s)
echo "# $(date -u +%FT%TZ) $(uname -n): $NP ranks, -t $XFER -b $BLOCK per rank, $DIR, $ROUNDS rounds; load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/header.txt"
for r in $(seq 1 "$ROUNDS"); do
    tools="hdf5 direct posix"
    [ $((r % 2)) -eq 0 ] && tools="posix direct hdf5"
    for mode in fpp shared; do
        for tool in $tools; do launch "$r" "$mode" "$tool"; done
    done
    echo "# round $r done ($(($(date +%s) - start)) s, load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
/usr/bin/python3 - "$CSV" <<'EOF' | tee "$OUT/summary.txt"
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
v = {}
for x in rows:
    v[(x["mode"], x["op"], x["tool"], x["round"])] = float(x["mibs"])
rounds = sorted({x["round"] for x in rows}, key=int)
print(f"{'mode':7} {'op':6} {'hdf5':>9} {'direct':>9} {'posix':>9}   {'hdf5/direct (min-max)':24} {'hdf5/posix (min-max)':22}")
for mode in ("fpp", "shared"):
    for op in ("write", "read"):
        med = {t: st.median(v[(mode, op, t, r)] for r in rounds) for t in ("hdf5", "direct", "posix")}
        def ratio(a, b):
            q = [v[(mode, op, a, r)] / v[(mode, op, b, r)] for r in rounds]
            return f"{st.median(q):.3f} ({min(q):.3f}-{max(q):.3f})"
        print(f"{mode:7} {op:6} {med['hdf5']:9.1f} {med['direct']:9.1f} {med['posix']:9.1f}   "
              f"{ratio('hdf5', 'direct'):24} {ratio('hdf5', 'posix'):22}")
EOF
echo "# logs, results.csv, summary.txt in $OUT ($(($(date +%s) - start)) s)"
