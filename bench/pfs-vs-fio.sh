#!/bin/bash
# pfs-vs-fio.sh: pfsbench against fio doing exactly the same work, side by
# side, in alternating order, with the memcpy ceiling measured in the same run.
#
# Each cell (target directory x ranks x transfer size) is one pfsbench launch
#   mpirun -np N pfsbench -d DIR -t T -b B -p write,read -e --no-results -q
# and one fio launch of the same work, file per process:
#   fio --ioengine=psync --fallocate=none --invalidate=0 --create_on_open=1
#       --mem_align=4096 --fadvise_hint=0 --scramble_buffers=0
#       --bs=T --size=B --numjobs=N --group_reporting
#       --name=write --rw=write --end_fsync=1
#       --name=read --stonewall --rw=read --unlink=1
# (docs/performance.md says why each flag is there). Each rank runs in its own
# session (setsid -w), as each fio job does (see -S). Round 1 runs pfsbench
# first and fio second, round 2 the other way round, and so on. Before every
# launch, of either tool, a scratch file of the launch's total size is written
# and deleted in the target (this VM hands freed memory back to its host about
# 1.5 s after it is freed, and writes that must fetch it again run at a third
# of the speed), and /proc/loadavg is logged.
#
# Prints, per cell and operation, the median bandwidth of each tool, the
# median of the per-round ratios pfsbench/fio and their spread (min-max), and
# the verdict against the targets of docs/performance.md (/dev/shm only).
# MiB/s = 2^20 bytes/s.
#
# usage: bench/pfs-vs-fio.sh [options]
#   -r N       rounds (default 6; at least 5 for numbers you quote, and an even
#              count, so that each tool goes first equally often)
#   -d DIRS    target directories, comma-separated (default /dev/shm;
#              add /tmp for the coarse check on ext4)
#   -n LIST    rank counts = fio numjobs (default 1,2)
#   -t LIST    transfer sizes (default 4k,1m,16m)
#   -b SPEC    block per rank: one size for all, or T=B pairs
#              (default 4k=1g,1m=2g,16m=2g: 0.3-1 s per measurement here)
#   -m SIZE    memcpy region per process (default 256m); 0 skips the ceiling
#   -W N       untimed warm-up launches of each tool first (default 1)
#   -o DIR     keep the logs, results.csv and summary.txt in DIR
#              (default: a new directory under /tmp, printed at the end)
#   -F OPTS    extra fio options, appended (e.g. "--scramble_buffers=1")
#   -P OPTS    extra mpirun options
#   -T SECS    timeout of each launch (default 300)
#   -S 0|1     1 (default): start every pfsbench rank in its own session
#              (setsid -w), as fio starts every job (fio calls setsid()); with
#              autogroup scheduling (sched_autogroup_enabled=1) a session is a
#              scheduling group, so without this, under CPU contention from other
#              sessions, fio's N jobs get N shares and pfsbench's N ranks one
#   -X BIN     a second pfsbench binary (a candidate change) measured in the
#              same rounds as a third tool, "pfs2" (order pfs pfs2 fio, then
#              reversed); its ratios to fio are printed too
#   -q         no per-launch progress lines
#   -s DIR     print the tables of an earlier run kept with -o DIR, run nothing
# environment: PFSBENCH (default BUILD/pfsbench, BUILD = build-perf next to
# bench/), BENCH_BIN (default the bench/ directory beside PFSBENCH).
# Exit status: 0 when every launch worked (targets met or not), 1 when a
# launch failed, 2 for bad usage.
set -u

here=$(cd "$(dirname "$0")" && pwd)
PFSBENCH=${PFSBENCH:-$(dirname "$here")/build-perf/pfsbench}
BENCH_BIN=${BENCH_BIN:-$(dirname "$PFSBENCH")/bench}
ROUNDS=6 TARGETS=/dev/shm RANKS=1,2 XFERS=4k,1m,16m BLOCKS=4k=1g,1m=2g,16m=2g
MEMREGION=256m WARMUP=1 OUT="" FIO_EXTRA="" MPI_EXTRA="" TO=300 QUIET=0 PFS2="" SETSID=1 ONLY=""

BENCH_NAME=pfs-vs-fio
. "$here/lib.sh"

# summarize DIR: the tables from DIR/results.csv, DIR/memcpy.txt, DIR/header.txt
summarize() {
python3 - "$1/results.csv" "$1/memcpy.txt" "$1/header.txt" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(open(sys.argv[3]).read().rstrip())
# Targets (docs/performance.md), /dev/shm only: the median of a cell's
# per-round ratios >= 0.97 (4 KiB) or >= 0.98 (1 MiB, 16 MiB), and no 1 MiB
# or 16 MiB cell below 0.93.
def target(fstype, t):
    if fstype != "tmpfs":
        return None
    return 0.97 if t.lower() in ("4k", "4096") else 0.98
cells = {}
for r in rows:
    for op in ("write", "read"):
        k = (r["target"], r["fstype"], int(r["ranks"]), r["transfer"], r["block"], op)
        cells.setdefault(k, {}).setdefault(r["tool"], {})[int(r["round"])] = float(r[op + "_mibs"])
def size_key(s):
    m = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    return int(s[:-1]) * m[s[-1].lower()] if s[-1].lower() in m else int(s)
hdr = "%-9s %-5s %5s %-5s %-5s %-6s %-5s %10s %10s %7s %7s %7s %3s  %s" % (
    "target", "fs", "ranks", "xfer", "block", "op", "tool", "tool MiB/s", "fio MiB/s", "ratio", "min", "max", "n",
    "verdict")
print()
print("medians over rounds, MiB/s = 2^20 B/s; ratio = median of the per-round ratios tool/fio, min and max over rounds")
print(hdr)
print("-" * len(hdr))
met = missed = 0
big, below, nbig = [], 0, 0
tools = [t for t in ("pfs", "pfs2") if any(r["tool"] == t for r in rows)]
for k in sorted(cells, key=lambda k: (k[0], k[2], size_key(k[3]), k[5] != "write")):
    c = cells[k]
    f = c.get("fio", {})
    for tool in tools:
        p = c.get(tool, {})
        rounds = sorted(set(p) & set(f))
        ratios = [p[i] / f[i] for i in rounds if f[i] > 0]
        if not ratios:
            continue
        mr = statistics.median(ratios)
        verdict = ""
        tg = target(k[1], k[3])
        if tg:
            ok = mr >= tg
            if tool == "pfs":
                met += ok
                missed += not ok
                if tg == 0.98:
                    big.append(mr)
                    below += sum(x < 0.93 for x in ratios)
                    nbig += len(ratios)
            verdict = ("met" if ok else "MISSED") + " (>= %.2f)" % tg
        print("%-9s %-5s %5d %-5s %-5s %-6s %-5s %10.1f %10.1f %7.3f %7.3f %7.3f %3d  %s" % (
            k[0], k[1], k[2], k[3], k[4], k[5], tool, statistics.median(p.values()), statistics.median(f.values()),
            mr, min(ratios), max(ratios), len(ratios), verdict))
mem = open(sys.argv[2]).read().strip()
if mem:
    print()
    print(mem)
print()
print("targets (pfsbench): %d met, %d missed" % (met, missed))
if big:
    print("1 MiB and 16 MiB cells: lowest median ratio %.3f: %s (none < 0.93); single rounds below 0.93: %d of %d"
          % (min(big), "met" if min(big) >= 0.93 else "MISSED", below, nbig))
EOF
}

while getopts "r:d:n:t:b:m:W:o:F:P:T:X:S:s:qh" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; d) TARGETS=$OPTARG ;; n) RANKS=$OPTARG ;; t) XFERS=$OPTARG ;;
    b) BLOCKS=$OPTARG ;; m) MEMREGION=$OPTARG ;; W) WARMUP=$OPTARG ;; o) OUT=$OPTARG ;;
    F) FIO_EXTRA=$OPTARG ;; P) MPI_EXTRA=$OPTARG ;; T) TO=$OPTARG ;; X) PFS2=$OPTARG ;; S) SETSID=$OPTARG ;; s) ONLY=$OPTARG ;; q) QUIET=1 ;;
    h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done

# bytes N[kmgt] (1024-based)
# block_for T: the block per rank for transfer size T, from -b
block_for() {
    local t=$1 pair
    if [[ $BLOCKS != *=* ]]; then echo "$BLOCKS"; return; fi
    IFS=, read -ra pairs <<<"$BLOCKS"
    for pair in "${pairs[@]}"; do
        [ "$(bytes "${pair%%=*}")" = "$(bytes "$t")" ] && { echo "${pair#*=}"; return; }
    done
    return 1
}

if [ -n "$ONLY" ]; then
    [ -f "$ONLY/results.csv" ] || die "no results.csv in '$ONLY'"
    touch "$ONLY/memcpy.txt" "$ONLY/header.txt" 2>/dev/null
    summarize "$ONLY"
    exit 0
fi
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "-r takes a positive count"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "-W takes a count"
[[ $SETSID =~ ^[01]$ ]] || die "-S takes 0 or 1"
WRAP=()
if [ "$SETSID" = 1 ]; then
    command -v setsid >/dev/null || die "setsid (util-linux) is needed for -S 1"
    WRAP=(setsid -w)
fi
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH or build build-perf)"
[ -z "$PFS2" ] || [ -x "$PFS2" ] || die "no pfsbench at $PFS2 (-X)"
command -v fio >/dev/null || die "fio is not installed (Debian: apt-get install fio)"
command -v mpirun >/dev/null || die "mpirun is not on PATH"
command -v python3 >/dev/null || die "python3 is needed for the summary"
IFS=, read -ra TGT <<<"$TARGETS"
IFS=, read -ra NPS <<<"$RANKS"
IFS=, read -ra TS <<<"$XFERS"
for np in "${NPS[@]}"; do [[ $np =~ ^[1-9][0-9]*$ ]] || die "bad rank count '$np'"; done
maxtotal=0
for t in "${TS[@]}"; do
    tb=$(bytes "$t") || die "bad transfer size '$t'"
    b=$(block_for "$t") || die "-b gives no block for transfer size $t"
    bb=$(bytes "$b") || die "bad block size '$b'"
    [ $((bb % tb)) -eq 0 ] || die "block $b is not a multiple of transfer $t"
    for np in "${NPS[@]}"; do [ $((np * bb)) -gt "$maxtotal" ] && maxtotal=$((np * bb)); done
done
for d in "${TGT[@]}"; do
    [ -d "$d" ] && [ -w "$d" ] || die "target '$d' is not a writable directory"
    avail=$(($(df -Pk "$d" | awk 'NR==2 {print $4}') * 1024))
    [ "$avail" -gt $((maxtotal + maxtotal / 4)) ] ||
        die "target $d has $((avail >> 20)) MiB free; the largest launch needs $((maxtotal >> 20)) MiB + 25%"
done

if [ -z "$OUT" ]; then OUT=$(mktemp -d /tmp/pfs-vs-fio.XXXXXX); else mkdir -p "$OUT" || die "cannot make $OUT"; fi
mkdir -p "$OUT/logs"
CSV=$OUT/results.csv
echo "round,order,target,fstype,ranks,transfer,block,tool,write_mibs,read_mibs,load1,load5,load15,unix_time" >"$CSV"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_btl_vader_single_copy_mechanism=none

WORK=()
cleanup() { for w in "${WORK[@]}"; do rm -rf "$w"; done; }
trap cleanup EXIT
trap 'exit 130' INT TERM
for d in "${TGT[@]}"; do
    w=$(mktemp -d "$d/pfs-vs-fio.XXXXXX") || die "cannot make a work directory in $d"
    WORK+=("$w")
done
workdir_of() { local i; for i in "${!TGT[@]}"; do [ "${TGT[$i]}" = "$1" ] && echo "${WORK[$i]}"; done; }

FAILED=0
say() { [ "$QUIET" -eq 1 ] || echo "$*" >&2; }

# scratch DIR BYTES: write and delete a file of BYTES, so that the launch
# right after finds the memory it needs already in the guest.
scratch() {
    dd if=/dev/zero of="$1/scratch" bs=1M count="$2" iflag=count_bytes status=none
    rm -f "$1/scratch"
}

# run_pfs DIR NP T B LOG [BIN]: prints "WRITE_MIBS READ_MIBS"
run_pfs() {
    local dir=$1 np=$2 t=$3 b=$4 log=$5 bin=${6:-$PFSBENCH} over=""
    [ "$np" -gt 2 ] && over=--oversubscribe
    # shellcheck disable=SC2086
    timeout "$TO" mpirun -np "$np" $over --bind-to none $MPI_EXTRA "${WRAP[@]}" "$bin" -d "$dir" -t "$t" -b "$b" \
        -p write,read -e --no-results -q >"$log" 2>&1 || { echo "pfsbench exited $?" >>"$log"; return 1; }
    local want=$((np * $(bytes "$b")))
    awk -v want="$want" '$2 == "1" && NF == 10 && ($1 == "write" || $1 == "read") {
            if ($10 != want) bad = 1; bw[$1] = $5 }
         END { if (bad || !("write" in bw) || !("read" in bw)) exit 1; print bw["write"], bw["read"] }' "$log"
}

run_pfs2() { run_pfs "$@" "$PFS2"; }

# run_fio DIR NP T B LOG: prints "WRITE_MIBS READ_MIBS"
run_fio() {
    local dir=$1 np=$2 t=$3 b=$4 log=$5
    # shellcheck disable=SC2086,SC2016
    timeout "$TO" fio --output-format=json --output="$log.json" --directory="$dir" \
        --filename_format='pvf.$jobnum' --ioengine=psync --fallocate=none --invalidate=0 \
        --create_on_open=1 --mem_align=4096 --fadvise_hint=0 --scramble_buffers=0 \
        --bs="$(bytes "$t")" --size="$(bytes "$b")" --numjobs="$np" --group_reporting $FIO_EXTRA \
        --name=write --rw=write --end_fsync=1 \
        --name=read --stonewall --rw=read --unlink=1 >"$log" 2>&1 || { echo "fio exited $?" >>"$log"; return 1; }
    python3 - "$log.json" $((np * $(bytes "$b"))) <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
bw = {}
for j in d["jobs"]:
    op = j["jobname"]
    s = j[op]
    if j.get("error", 0) or s["io_bytes"] != want or s["runtime"] <= 0:
        sys.exit("fio %s: error %s, %d of %d bytes" % (op, j.get("error"), s["io_bytes"], want))
    # runtime is in ms: io_bytes / runtime is fio's own bw, in full precision.
    bw[op] = s["io_bytes"] / (s["runtime"] / 1000.0) / 1048576.0
print("%.2f %.2f" % (bw["write"], bw["read"]))
EOF
}

# launch TOOL ROUND ORDER TARGET NP T: one measured launch, one CSV row
launch() {
    local tool=$1 round=$2 order=$3 target=$4 np=$5 t=$6 b w fs res load
    b=$(block_for "$t")
    w=$(workdir_of "$target")
    fs=$(findmnt -n -o FSTYPE -T "$target" 2>/dev/null | tail -1)
    [ -n "$fs" ] || fs=$(stat -f -c %T "$target")
    local log
    log="$OUT/logs/r${round}-${tool}-$(basename "$target")-np${np}-t${t}"
    scratch "$w" $((np * $(bytes "$b")))
    read -r load < /proc/loadavg
    if res=$(run_$tool "$w" "$np" "$t" "$b" "$log"); then :; else
        echo "pfs-vs-fio: $tool failed (np=$np t=$t b=$b on $target); see $log" >&2
        FAILED=1
        rm -f "$w"/pvf.* "$w"/pfsbench.*
        return 1
    fi
    [ "$round" -gt 0 ] || return 0
    set -- $load
    local wr=${res% *} rd=${res#* }
    echo "$round,$order,$target,$fs,$np,$t,$b,$tool,$wr,$rd,$1,$2,$3,$(date +%s)" >>"$CSV"
    say "$(printf 'round %d/%d %-9s np=%d t=%-4s %-8s write %9.1f read %9.1f MiB/s  load %s' \
        "$round" "$ROUNDS" "$target" "$np" "$t" "$tool" "$wr" "$rd" "$1")"
}

{
    echo "pfs-vs-fio: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) cores"
    echo "command: $0 $*"
    echo "pfsbench: $PFSBENCH ($("$PFSBENCH" --version 2>/dev/null | head -1))"
    [ -z "$PFS2" ] || echo "pfs2: $PFS2 ($("$PFS2" --version 2>/dev/null | head -1))"
    echo "fio: $(fio --version)"
    echo "rounds $ROUNDS, targets $TARGETS, ranks $RANKS, transfers $XFERS, blocks $BLOCKS, ranks in own session: $SETSID"
    echo "autogroup: $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo n/a)"
} >"$OUT/header.txt"

# The memcpy ceiling, in the same run, 1 and (when asked for) more processes.
: >"$OUT/memcpy.txt"
if [ "$(bytes "$MEMREGION")" != 0 ]; then
    [ -x "$BENCH_BIN/bench_memcpy" ] || die "no $BENCH_BIN/bench_memcpy (build the bench targets or set BENCH_BIN)"
    for np in "${NPS[@]}"; do
        "$BENCH_BIN/bench_memcpy" -s "$MEMREGION" -t "$XFERS" -j "$np" >>"$OUT/memcpy.txt" || FAILED=1
    done
fi

TOOLS=(pfs fio)
[ -n "$PFS2" ] && TOOLS=(pfs pfs2 fio)
REVERSED=()
for ((i = ${#TOOLS[@]} - 1; i >= 0; i--)); do REVERSED+=("${TOOLS[$i]}"); done
for ((i = 0; i < WARMUP; i++)); do
    for target in "${TGT[@]}"; do
        for tool in "${TOOLS[@]}"; do launch "$tool" 0 0 "$target" "${NPS[0]}" "${TS[0]}"; done
    done
done

for ((round = 1; round <= ROUNDS; round++)); do
    echo "round $round $(cat /proc/loadavg)" >>"$OUT/loadavg.log"
    for target in "${TGT[@]}"; do
        for np in "${NPS[@]}"; do
            for t in "${TS[@]}"; do
                if [ $((round % 2)) -eq 1 ]; then order=("${TOOLS[@]}"); else order=("${REVERSED[@]}"); fi
                for i in "${!order[@]}"; do launch "${order[$i]}" "$round" $((i + 1)) "$target" "$np" "$t"; done
            done
        done
    done
done
echo "end $(cat /proc/loadavg)" >>"$OUT/loadavg.log"

summarize "$OUT" | tee "$OUT/summary.txt"
echo "raw results: $CSV; logs: $OUT/logs; load: $OUT/loadavg.log"
[ "$FAILED" -eq 0 ] || { echo "pfs-vs-fio: some launches failed (see above)" >&2; exit 1; }
exit 0
