#!/bin/bash
# pfs-latency-vs-fio.sh: pfsbench's latency percentiles against fio's on the
# same work (issue 16): 4 KiB random O_DIRECT reads, psync, one rank, of the
# same file, on a disk file system (default /var/tmp, ext4 here).
#
# Setup (untimed): pfsbench writes the file once and keeps it,
#   mpirun -np 1 pfsbench -d W -p write -t 1m -b SIZE -e -k --run-id ID --no-results -q
# leaving W/pfsbench.ID.0. Then, alternating which goes first, each round runs
#   mpirun -np 1 --bind-to none setsid -w pfsbench -d W -p read --random --direct -t 4k -b SIZE \
#       --run-id ID --no-results --format json
#   fio --name=randread --filename=W/pfsbench.ID.0 --rw=randread --bs=4k --size=SIZE --direct=1 \
#       --ioengine=psync --invalidate=0 --fadvise_hint=0 --mem_align=4096 --output-format=json
# Both read every 4 KiB block of the file once, in a random order (pfsbench:
# a seeded permutation; fio: its random map). pfsbench's figures are the
# phase's "latency" "op" object (each pread, completion to completion in the
# closed loop); fio's are read.clat_ns (its percentile "50.000000" etc.) and
# mean. Prints the medians over rounds of p50, p90, p99, p99.9, mean and IOPS
# for each, and the median of the per-round ratios pfsbench/fio (min-max).
# Goal: p50 and p99 within 10%.
#
# usage: bench/pfs-latency-vs-fio.sh [options]
#   -r N       rounds (default 4, even: each tool first equally often)
#   -d DIR     directory on the file system to test (default /var/tmp)
#   -s SIZE    file size = bytes read per launch (default 256m: ~11 s per launch here; 1g for the full file)
#   -t SIZE    transfer (default 4k)
#   -W N       untimed warm-up launches of each tool (default 1)
#   -T SECS    timeout of each launch (default 600)
#   -o DIR     keep results.csv, logs and summary.txt in DIR (default: new /tmp dir)
#   -S DIR     print the tables of a run kept with -o DIR, run nothing
#   -q         no per-launch progress lines
# environment: PFSBENCH (default build-perf/pfsbench next to bench/, else build/pfsbench).
# Exit status: 0 when every launch worked (goal met or not), 1 when one failed, 2 for bad usage.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
if [ -z "${PFSBENCH:-}" ]; then
    PFSBENCH=$repo/build-perf/pfsbench
    [ -x "$PFSBENCH" ] || PFSBENCH=$repo/build/pfsbench
fi
ROUNDS=4 TARGET=/var/tmp SIZE=256m XFER=4k WARMUP=1 TO=600 OUT="" ONLY="" QUIET=0

BENCH_NAME=pfs-latency-vs-fio
. "$here/lib.sh"

summarize() {
/usr/bin/python3 - "$1/results.csv" "$1/header.txt" <<'EOF'
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(open(sys.argv[2]).read().rstrip())
by = {}
for r in rows:
    by.setdefault(r["tool"], {})[int(r["round"])] = r
pfs, fio = by.get("pfs", {}), by.get("fio", {})
rounds = sorted(set(pfs) & set(fio))
print()
print("medians over %d rounds; latencies in us; ratio = median of the per-round ratios pfsbench/fio, min-max" % len(rounds))
hdr = "%-8s %10s %10s  %-22s %s" % ("", "pfsbench", "fio", "ratio (min-max)", "goal")
print(hdr)
print("-" * 64)
ok = True
for col, name, scale in (("p50_ns", "p50", 1e-3), ("p90_ns", "p90", 1e-3), ("p99_ns", "p99", 1e-3),
                         ("p999_ns", "p99.9", 1e-3), ("mean_ns", "mean", 1e-3), ("iops", "IOPS", 1),
                         ("count", "ops", 1)):
    a = [float(pfs[i][col]) for i in rounds]
    b = [float(fio[i][col]) for i in rounds]
    rr = [x / y for x, y in zip(a, b) if y > 0]
    if not rr:
        continue
    goal = ""
    if name in ("p50", "p99"):
        m = st.median(rr)
        good = 0.9 <= m <= 1.1
        ok &= good
        goal = "%s (within 10%%)" % ("met" if good else "MISSED")
    print("%-8s %10.1f %10.1f  %6.3f (%.3f-%.3f)    %s" % (name, st.median(a) * scale, st.median(b) * scale,
          st.median(rr), min(rr), max(rr), goal))
EOF
}

while getopts "r:d:s:t:W:T:o:S:qh" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; d) TARGET=$OPTARG ;; s) SIZE=$OPTARG ;; t) XFER=$OPTARG ;; W) WARMUP=$OPTARG ;;
    T) TO=$OPTARG ;; o) OUT=$OPTARG ;; S) ONLY=$OPTARG ;; q) QUIET=1 ;; h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done


if [ -n "$ONLY" ]; then
    [ -f "$ONLY/results.csv" ] || die "no results.csv in '$ONLY'"
    touch "$ONLY/header.txt" 2>/dev/null
    summarize "$ONLY"
    exit 0
fi
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "-r takes a positive count"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "-W takes a count"
SB=$(bytes "$SIZE") || die "bad size '$SIZE'"
TB=$(bytes "$XFER") || die "bad transfer '$XFER'"
[ $((SB % TB)) -eq 0 ] || die "size $SIZE is not a multiple of the transfer $XFER"
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH)"
for c in fio mpirun setsid; do command -v $c >/dev/null || die "$c is not on PATH"; done
[ -d "$TARGET" ] && [ -w "$TARGET" ] || die "target '$TARGET' is not a writable directory"
FS=$(findmnt -n -o FSTYPE -T "$TARGET" 2>/dev/null | tail -1)
[ -n "$FS" ] || FS=$(stat -f -c %T "$TARGET")
case $FS in tmpfs | ramfs) die "$TARGET is $FS: O_DIRECT needs a disk file system (e.g. /var/tmp on ext4)" ;; esac
avail=$(($(df -Pk "$TARGET" | awk 'NR==2 {print $4}') * 1024))
[ "$avail" -gt $((SB + SB / 4)) ] || die "target $TARGET has $((avail >> 20)) MiB free, needs $((SB >> 20)) MiB + 25%"

if [ -z "$OUT" ]; then OUT=$(mktemp -d /tmp/pfs-latency-vs-fio.XXXXXX); else mkdir -p "$OUT" || die "cannot make $OUT"; fi
mkdir -p "$OUT/logs"
CSV=$OUT/results.csv
echo "round,order,tool,count,p50_ns,p90_ns,p99_ns,p999_ns,mean_ns,iops,load1,unix_time" >"$CSV"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_btl_vader_single_copy_mechanism=none
W=$(mktemp -d "$TARGET/pfs-latency-vs-fio.XXXXXX") || die "cannot make a work directory in $TARGET"
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
ID=latvsfio-$$
FILE=$W/pfsbench.$ID.0
FAILED=0
say() { [ "$QUIET" -eq 1 ] || echo "$*" >&2; }

# The file both tools read: written once by pfsbench (incompressible bytes) and kept.
timeout "$TO" mpirun -np 1 --bind-to none "$PFSBENCH" -d "$W" -p write -t 1m -b "$SIZE" -e -k --run-id "$ID" \
    --no-results -q >"$OUT/logs/setup-write" 2>&1 || die "writing the file failed; see $OUT/logs/setup-write"
[ "$(stat -c %s "$FILE" 2>/dev/null)" = "$SB" ] || die "the kept file $FILE is not $SB bytes"

# run_pfs LOG: prints "COUNT P50 P90 P99 P999 MEAN IOPS" (ns)
run_pfs() {
    timeout "$TO" mpirun -np 1 --bind-to none setsid -w "$PFSBENCH" -d "$W" -p read --random --direct -t "$XFER" \
        -b "$SIZE" --run-id "$ID" --no-results --format json >"$1.json" 2>"$1" ||
        { echo "pfsbench exited $?" >>"$1"; return 1; }
    /usr/bin/python3 - "$1.json" "$((SB / TB))" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = d["phases"][0]["repetitions"][0]
op = r["latency"]["op"]
if d["status"] != "complete" or op["count"] != int(sys.argv[2]):
    sys.exit("pfsbench: status %s, %d of %s reads" % (d["status"], op["count"], sys.argv[2]))
print(op["count"], op["p50_ns"], op["p90_ns"], op["p99_ns"], op["p999_ns"], op["mean_ns"], r["iops"])
EOF
}

# run_fio LOG: the same figures from fio's read.clat_ns
run_fio() {
    timeout "$TO" fio --name=randread --filename="$FILE" --rw=randread --bs="$TB" --size="$SB" --direct=1 \
        --ioengine=psync --invalidate=0 --fadvise_hint=0 --mem_align=4096 \
        --output-format=json --output="$1.json" >"$1" 2>&1 || { echo "fio exited $?" >>"$1"; return 1; }
    /usr/bin/python3 - "$1.json" "$((SB / TB))" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"][0]
s = j["read"]
c = s["clat_ns"]
p = c["percentile"]
if j.get("error", 0) or s["total_ios"] != int(sys.argv[2]):
    sys.exit("fio: error %s, %d of %s reads" % (j.get("error"), s["total_ios"], sys.argv[2]))
print(s["total_ios"], p["50.000000"], p["90.000000"], p["99.000000"], p["99.900000"], c["mean"], s["iops"])
EOF
}

launch() {
    local tool=$1 round=$2 order=$3 res load log
    log="$OUT/logs/r${round}-${tool}"
    read -r load _ </proc/loadavg
    if ! res=$(run_$tool "$log"); then
        echo "pfs-latency-vs-fio: $tool failed; see $log" >&2
        FAILED=1
        return 1
    fi
    [ "$round" -gt 0 ] || return 0
    set -- $res
    echo "$round,$order,$tool,$1,$2,$3,$4,$5,$6,$7,$load,$(date +%s)" >>"$CSV"
    say "$(printf 'round %d/%d %-4s p50 %8.1f p99 %8.1f p99.9 %8.1f us  IOPS %7.0f  load %s' "$round" "$ROUNDS" \
        "$tool" "$(echo "$2/1000" | bc -l)" "$(echo "$4/1000" | bc -l)" "$(echo "$5/1000" | bc -l)" "$7" "$load")"
}

{
    echo "pfs-latency-vs-fio: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) cores"
    echo "command: $0 $*"
    echo "pfsbench: $PFSBENCH; $(fio --version)"
    echo "file: $FILE ($SIZE, $FS, $(findmnt -n -o SOURCE -T "$TARGET" 2>/dev/null)); $XFER random O_DIRECT reads, psync, 1 rank"
    echo "rounds $ROUNDS, warm-up launches $WARMUP per tool"
} >"$OUT/header.txt"

for ((i = 0; i < WARMUP; i++)); do launch pfs 0 0; launch fio 0 0; done
for ((round = 1; round <= ROUNDS; round++)); do
    if [ $((round % 2)) -eq 1 ]; then order=(pfs fio); else order=(fio pfs); fi
    for i in 0 1; do launch "${order[$i]}" "$round" $((i + 1)); done
done

summarize "$OUT" | tee "$OUT/summary.txt"
echo "raw results: $CSV; logs: $OUT/logs"
[ "$FAILED" -eq 0 ] || { echo "pfs-latency-vs-fio: some launches failed (see above)" >&2; exit 1; }
exit 0
