#!/bin/bash
# pfs-latency-cost.sh: what timing every transfer costs (issue 16).
#
# Three tools do the same work in the same rounds, on one rank, file per
# process, write then read (bench/pfs-vs-fio.sh's method and fio command):
#   new  pfsbench as built (PFSBENCH): one clock read, a histogram insert and
#        a time-series slot add per transfer (src/core/stream.c);
#   old  pfsbench built from 819cac7 (-C), the commit before the latency was
#        wired through the run: the same loop with no per-transfer clock read;
#   fio  --ioengine=psync with pfs-vs-fio.sh's flags.
# Each launch is
#   mpirun -np 1 --bind-to none setsid -w BIN -d DIR -t T -b B -p write,read -e --no-results -q
#   fio ... --bs=T --size=B --numjobs=1 --name=write --rw=write --end_fsync=1
#           --name=read --stonewall --rw=read --unlink=1
# and before each one a scratch file of B bytes is written and deleted in DIR
# (the VM returns freed memory to its host; see docs/performance.md). The
# order of the three tools goes through all 6 permutations, one per round, so
# with a multiple of 6 rounds each tool runs first, second and third equally
# often. With -N 1 (default) each round also runs new and old with --api null
# (no file system: transfers that do nothing), 4 KiB x 4M transfers, whose
# difference is the timing's cost per transfer in ns. With -R N each round
# also runs new and old (alternating which first) with the repetitions inside
# one launch, -t 4k -b 256m -p write,read -e -i N, and takes the median
# phase bandwidth over the N repetitions of each launch: bursts of load from
# other users hit single repetitions, not the whole launch, so this resolves
# a few percent where the single-shot rounds swing by tens of percent.
#
# Prints per transfer size and phase the median MiB/s of each tool, the
# medians of the per-round ratios new/old and new/fio with their min-max over
# rounds, and the verdicts against the issue's goals: new/fio >= 0.97 (4 KiB),
# >= 0.98 (1 MiB, 16 MiB); new/old >= 0.97 (4 KiB), >= 0.99 (1 MiB).
#
# usage: bench/pfs-latency-cost.sh [options]
#   -r N       rounds (default 12; a multiple of 6 balances the order)
#   -d DIR     target directory (default /dev/shm)
#   -t LIST    transfer sizes (default 4k,1m,16m)
#   -b SPEC    block: one size, or T=B pairs (default 4k=256m,1m=1g,16m=1g)
#   -O BIN     the old pfsbench (default: build commit -C under /tmp/pfs-nolat-COMMIT)
#   -C COMMIT  the commit to build for -O (default 819cac7)
#   -N 0|1     the --api null cells (default 1)
#   -R N       the in-launch repetition cells, N repetitions (default 0: none)
#   -W N       untimed warm-up launches of each tool first (default 1)
#   -T SECS    timeout of each launch (default 300)
#   -o DIR     keep results.csv, logs and summary.txt in DIR (default: new /tmp dir)
#   -s DIR     print the tables of a run kept with -o DIR, run nothing
#   -q         no per-launch progress lines
# environment: PFSBENCH (default build-perf/pfsbench next to bench/, else build/pfsbench).
# Exit status: 0 when every launch worked (goals met or not), 1 when one failed, 2 for bad usage.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
if [ -z "${PFSBENCH:-}" ]; then
    PFSBENCH=$repo/build-perf/pfsbench
    [ -x "$PFSBENCH" ] || PFSBENCH=$repo/build/pfsbench
fi
ROUNDS=12 TARGET=/dev/shm XFERS=4k,1m,16m BLOCKS=4k=256m,1m=1g,16m=1g OLD="" COMMIT=819cac7 NULLS=1
WARMUP=1 TO=300 OUT="" ONLY="" QUIET=0 REPS=0

BENCH_NAME=pfs-latency-cost
. "$here/lib.sh"

summarize() {
/usr/bin/python3 - "$1/results.csv" "$1/header.txt" <<'EOF'
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print(open(sys.argv[2]).read().rstrip())
def size_key(s):
    m = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    return int(s[:-1]) * m[s[-1].lower()] if s[-1].lower() in m else int(s)
cells = {}
for r in rows:
    for op in ("write", "read"):
        cells.setdefault((r["api"], r["transfer"], r["block"], op), {}).setdefault(r["tool"], {})[int(r["round"])] = \
            float(r[op + "_mibs"])
def ratios(a, b):
    rr = [a[i] / b[i] for i in sorted(set(a) & set(b)) if b[i] > 0]
    return rr
def fmt(rr):
    return "%6.3f %6.3f-%-6.3f" % (st.median(rr), min(rr), max(rr)) if rr else "%20s" % "-"
print()
print("posix on the target: medians over rounds, MiB/s = 2^20 B/s; ratios: median of the per-round ratios, min-max")
hdr = "%-5s %-5s %-6s %10s %10s %10s  %-20s %-20s %-20s %3s  %s" % (
    "xfer", "block", "op", "new", "old", "fio", "new/old", "new/fio", "old/fio", "n", "goals")
print(hdr)
print("-" * len(hdr))
for k in sorted((k for k in cells if k[0] == "posix"), key=lambda k: (size_key(k[1]), k[3] != "write")):
    c = cells[k]
    new, old, fio = c.get("new", {}), c.get("old", {}), c.get("fio", {})
    no, nf, of = ratios(new, old), ratios(new, fio), ratios(old, fio)
    small = size_key(k[1]) <= 4096
    goals = []
    if nf:
        g = 0.97 if small else 0.98
        goals.append("new/fio %s (>= %.2f)" % ("met" if st.median(nf) >= g else "MISSED", g))
    if no and size_key(k[1]) in (4096, 1 << 20):
        g = 0.97 if small else 0.99
        goals.append("cost %s (new/old >= %.2f)" % ("met" if st.median(no) >= g else "MISSED", g))
    med = lambda d: "%10.1f" % st.median(d.values()) if d else "%10s" % "-"
    print("%-5s %-5s %-6s %s %s %s  %s %s %s %3d  %s" % (k[1], k[2], k[3], med(new), med(old), med(fio),
          fmt(no), fmt(nf), fmt(of), len(no or nf), "; ".join(goals)))
reps = [k for k in cells if k[0] == "reps"]
if reps:
    print()
    print("in-launch repetitions (-i N, the median over them per launch): medians over rounds, MiB/s; new/old per round")
    hdr = "%-5s %-5s %-6s %10s %10s  %-20s %3s  %s" % ("xfer", "block", "op", "new", "old", "new/old", "n", "goal")
    print(hdr)
    print("-" * len(hdr))
    for k in sorted(reps, key=lambda k: (size_key(k[1]), k[3] != "write")):
        c = cells[k]
        new, old = c.get("new", {}), c.get("old", {})
        no = ratios(new, old)
        med = lambda d: "%10.1f" % st.median(d.values()) if d else "%10s" % "-"
        g = 0.97 if size_key(k[1]) <= 4096 else 0.99
        goal = "cost %s (new/old >= %.2f)" % ("met" if no and st.median(no) >= g else "MISSED", g) if no else ""
        print("%-5s %-5s %-6s %s %s  %s %3d  %s" % (k[1], k[2], k[3], med(new), med(old), fmt(no), len(no), goal))
nulls = [k for k in cells if k[0] == "null"]
if nulls:
    print()
    print("--api null (no file system): ns per transfer = transfer / bandwidth; median over rounds, min-max")
    hdr = "%-5s %-5s %-6s %-22s %-22s %-22s %3s" % ("xfer", "block", "op", "new ns", "old ns", "new-old ns", "n")
    print(hdr)
    print("-" * len(hdr))
    for k in sorted(nulls, key=lambda k: (size_key(k[1]), k[3] != "write")):
        c = cells[k]
        t = size_key(k[1])
        ns = {tool: {i: t / (v * 1048576.0) * 1e9 for i, v in c.get(tool, {}).items() if v > 0} for tool in ("new", "old")}
        d = [ns["new"][i] - ns["old"][i] for i in sorted(set(ns["new"]) & set(ns["old"]))]
        f = lambda v: "%6.2f (%.2f-%.2f)" % (st.median(v), min(v), max(v)) if v else "-"
        print("%-5s %-5s %-6s %-22s %-22s %-22s %3d" % (k[1], k[2], k[3], f(list(ns["new"].values())),
              f(list(ns["old"].values())), f(d), len(d)))
EOF
}

while getopts "r:d:t:b:O:C:N:R:W:T:o:s:qh" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; d) TARGET=$OPTARG ;; t) XFERS=$OPTARG ;; b) BLOCKS=$OPTARG ;; O) OLD=$OPTARG ;;
    C) COMMIT=$OPTARG ;; N) NULLS=$OPTARG ;; R) REPS=$OPTARG ;; W) WARMUP=$OPTARG ;; T) TO=$OPTARG ;; o) OUT=$OPTARG ;;
    s) ONLY=$OPTARG ;; q) QUIET=1 ;; h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done

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
    touch "$ONLY/header.txt" 2>/dev/null
    summarize "$ONLY"
    exit 0
fi
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "-r takes a positive count"
[[ $WARMUP =~ ^[0-9]+$ ]] || die "-W takes a count"
[[ $NULLS =~ ^[01]$ ]] || die "-N takes 0 or 1"
[[ $REPS =~ ^[0-9]+$ ]] || die "-R takes a count"
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH)"
for c in fio mpirun setsid; do command -v $c >/dev/null || die "$c is not on PATH"; done
[ -d "$TARGET" ] && [ -w "$TARGET" ] || die "target '$TARGET' is not a writable directory"
IFS=, read -ra TS <<<"$XFERS"
maxb=0
for t in "${TS[@]}"; do
    tb=$(bytes "$t") || die "bad transfer size '$t'"
    b=$(block_for "$t") || die "-b gives no block for transfer size $t"
    bb=$(bytes "$b") || die "bad block size '$b'"
    [ $((bb % tb)) -eq 0 ] || die "block $b is not a multiple of transfer $t"
    [ "$bb" -gt "$maxb" ] && maxb=$bb
done
avail=$(($(df -Pk "$TARGET" | awk 'NR==2 {print $4}') * 1024))
[ "$avail" -gt $((maxb + maxb / 4)) ] || die "target $TARGET has $((avail >> 20)) MiB free, needs $((maxb >> 20)) MiB + 25%"

# The old binary: commit COMMIT, exported with git archive (HEAD and the
# working tree of this checkout are not touched) and built RelWithDebInfo.
if [ -z "$OLD" ]; then
    src=/tmp/pfs-nolat-$COMMIT
    OLD=$src/build/pfsbench
    if [ ! -x "$OLD" ]; then
        git -C "$repo" rev-parse --verify -q "$COMMIT^{commit}" >/dev/null || die "no commit $COMMIT in $repo"
        echo "pfs-latency-cost: building $COMMIT in $src" >&2
        rm -rf "$src" && mkdir -p "$src" || die "cannot make $src"
        git -C "$repo" archive "$COMMIT" | tar -x -C "$src" || die "git archive $COMMIT failed"
        { cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
            cmake --build "$src/build" -j2 --target pfsbench; } >"$src/build.log" 2>&1 ||
            die "building $COMMIT failed; see $src/build.log"
    fi
fi
[ -x "$OLD" ] || die "no old pfsbench at $OLD"

if [ -z "$OUT" ]; then OUT=$(mktemp -d /tmp/pfs-latency-cost.XXXXXX); else mkdir -p "$OUT" || die "cannot make $OUT"; fi
mkdir -p "$OUT/logs"
CSV=$OUT/results.csv
echo "round,order,api,transfer,block,tool,write_mibs,read_mibs,load1,unix_time" >"$CSV"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_btl_vader_single_copy_mechanism=none
W=$(mktemp -d "$TARGET/pfs-latency-cost.XXXXXX") || die "cannot make a work directory in $TARGET"
trap 'rm -rf "$W"' EXIT
trap 'exit 130' INT TERM
FAILED=0
say() { [ "$QUIET" -eq 1 ] || echo "$*" >&2; }

scratch() {
    dd if=/dev/zero of="$W/scratch" bs=1M count="$1" iflag=count_bytes status=none
    rm -f "$W/scratch"
}

# run_pfs BIN API T B LOG: prints "WRITE_MIBS READ_MIBS" (api reps: -i REPS, the median over them)
run_pfs() {
    local bin=$1 api=$2 t=$3 b=$4 log=$5 n=1
    [ "$api" = reps ] && api=posix n=$REPS
    timeout "$TO" mpirun -np 1 --bind-to none setsid -w "$bin" -a "$api" -d "$W" -t "$t" -b "$b" \
        -p write,read -e -i "$n" --no-results -q >"$log" 2>&1 || { echo "pfsbench exited $?" >>"$log"; return 1; }
    awk -v want="$(bytes "$b")" -v n="$n" '$2 == n && NF == 10 && ($1 == "write" || $1 == "read") {
            if ($10 != want) bad = 1; bw[$1] = $5 }
         END { if (bad || !("write" in bw) || !("read" in bw)) exit 1; print bw["write"], bw["read"] }' "$log"
}
run_new() { run_pfs "$PFSBENCH" "$@"; }
run_old() { run_pfs "$OLD" "$@"; }

# run_fio API T B LOG: bench/pfs-vs-fio.sh's command at one job
run_fio() {
    local t=$2 b=$3 log=$4
    # shellcheck disable=SC2016
    timeout "$TO" fio --output-format=json --output="$log.json" --directory="$W" \
        --filename_format='pvf.$jobnum' --ioengine=psync --fallocate=none --invalidate=0 \
        --create_on_open=1 --mem_align=4096 --fadvise_hint=0 --scramble_buffers=0 \
        --bs="$(bytes "$t")" --size="$(bytes "$b")" --numjobs=1 --group_reporting \
        --name=write --rw=write --end_fsync=1 \
        --name=read --stonewall --rw=read --unlink=1 >"$log" 2>&1 || { echo "fio exited $?" >>"$log"; return 1; }
    /usr/bin/python3 - "$log.json" "$(bytes "$b")" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
bw = {}
for j in d["jobs"]:
    op = j["jobname"]
    s = j[op]
    if j.get("error", 0) or s["io_bytes"] != want or s["runtime"] <= 0:
        sys.exit("fio %s: error %s, %d of %d bytes" % (op, j.get("error"), s["io_bytes"], want))
    bw[op] = s["io_bytes"] / (s["runtime"] / 1000.0) / 1048576.0
print("%.2f %.2f" % (bw["write"], bw["read"]))
EOF
}

# launch TOOL ROUND ORDER API T B
launch() {
    local tool=$1 round=$2 order=$3 api=$4 t=$5 b=$6 res load log
    log="$OUT/logs/r${round}-${tool}-${api}-t${t}"
    [ "$api" = null ] || scratch "$(bytes "$b")"
    [ "$api" = reps ] && log=$log-i$REPS
    read -r load _ </proc/loadavg
    if ! res=$(run_$tool "$api" "$t" "$b" "$log"); then
        echo "pfs-latency-cost: $tool failed (api $api t=$t b=$b); see $log" >&2
        FAILED=1
        rm -f "$W"/pvf.* "$W"/pfsbench.*
        return 1
    fi
    [ "$round" -gt 0 ] || return 0
    echo "$round,$order,$api,$t,$b,$tool,${res% *},${res#* },$load,$(date +%s)" >>"$CSV"
    say "$(printf 'round %2d/%d %-5s t=%-4s %-4s write %10.1f read %10.1f MiB/s  load %s' \
        "$round" "$ROUNDS" "$api" "$t" "$tool" "${res% *}" "${res#* }" "$load")"
}

{
    echo "pfs-latency-cost: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) cores, target $TARGET ($(stat -f -c %T "$TARGET"))"
    echo "command: $0 $*"
    echo "new: $PFSBENCH; old: $OLD (commit $COMMIT unless -O); $(fio --version)"
    echo "rounds $ROUNDS, transfers $XFERS, blocks $BLOCKS, 1 rank, null cells: $NULLS, in-launch repetitions: $REPS"
} >"$OUT/header.txt"

PERMS=("new old fio" "fio new old" "old fio new" "fio old new" "new fio old" "old new fio")
for ((i = 0; i < WARMUP; i++)); do
    for tool in new old fio; do launch $tool 0 0 posix "${TS[0]}" "$(block_for "${TS[0]}")"; done
done
for ((round = 1; round <= ROUNDS; round++)); do
    echo "round $round $(cat /proc/loadavg)" >>"$OUT/loadavg.log"
    read -ra order <<<"${PERMS[$(((round - 1) % 6))]}"
    for t in "${TS[@]}"; do
        for i in "${!order[@]}"; do launch "${order[$i]}" "$round" $((i + 1)) posix "$t" "$(block_for "$t")"; done
    done
    if [ "$NULLS" = 1 ]; then
        if [ $((round % 2)) -eq 1 ]; then nord=(new old); else nord=(old new); fi
        for i in 0 1; do launch "${nord[$i]}" "$round" $((i + 1)) null 4k 16g; done
    fi
    if [ "$REPS" -gt 0 ]; then
        if [ $((round % 2)) -eq 1 ]; then nord=(old new); else nord=(new old); fi
        for i in 0 1; do launch "${nord[$i]}" "$round" $((i + 1)) reps 4k 256m; done
    fi
done
echo "end $(cat /proc/loadavg)" >>"$OUT/loadavg.log"

summarize "$OUT" | tee "$OUT/summary.txt"
echo "raw results: $CSV; logs: $OUT/logs; load: $OUT/loadavg.log"
[ "$FAILED" -eq 0 ] || { echo "pfs-latency-cost: some launches failed (see above)" >&2; exit 1; }
exit 0
