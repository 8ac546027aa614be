#!/bin/bash
# pfs-overheads.sh: what pfsbench costs besides the I/O it measures.
#
#   memory     max RSS of every rank (/usr/bin/time %M), pfsbench against a
#              trivial MPI program (bench_mpi_init) at the same rank count;
#              pfsbench's own = pfsbench - trivial - the transfer buffer
#   start-up   from launch (mpirun started) to pfsbench's first timed open
#              (min open_start in the results file), against launch to the
#              last rank returning from MPI_Init in the trivial program,
#              alternating, median of the rounds; and launch-to-exit of
#              `pfsbench --version` against the trivial program
#   results    bench_results: the HDF5 writer on a synthetic 1024 ranks x 4
#              phases x 10 reps (first append = new file, then appends)
#   reductions bench_reduce at R ranks (plain and --timeout agreements), and
#              the real gaps between phases of pfsbench at R ranks: min
#              open_start of a phase - max close_end of the one before, from
#              the raw times in the results file
#
# usage: bench/pfs-overheads.sh [options]
#   -n N      ranks for the start-up and memory runs (default 16)
#   -R N      ranks for the reductions (default 64; oversubscribed)
#   -r N      start-up rounds (default 5)
#   -d DIR    data directory (default /dev/shm)
#   -t LIST   transfer sizes for the memory runs (default 1m,16m,64m)
#   -B ARGS   arguments for bench_results (default: its own, 1024x4x10, 3 appends)
#   -o DIR    keep logs and summary.txt in DIR (default: a new directory under /tmp)
#   -s        small: -n 4 -R 4 -r 1 -t 1m -B "-n 64 -N 4 -i 2 -a 2" (the smoke test)
# environment: PFSBENCH (default build-perf/pfsbench beside bench/), BENCH_BIN
# (default the bench/ directory beside PFSBENCH), PFS_RESULTS (default the
# pfs-results CMake writes beside PFSBENCH).
# Exit status: 0 when every measurement ran, 1 when one failed, 2 bad usage.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
PFSBENCH=${PFSBENCH:-$(dirname "$here")/build-perf/pfsbench}
BENCH_BIN=${BENCH_BIN:-$(dirname "$PFSBENCH")/bench}
PFS_RESULTS=${PFS_RESULTS:-$(dirname "$PFSBENCH")/pfs-results}
NP=16 RNP=64 ROUNDS=5 DIR=/dev/shm XFERS=1m,16m,64m BRARGS="" OUT=""

BENCH_NAME=pfs-overheads
. "$here/lib.sh"
while getopts "n:R:r:d:t:B:o:sh" o; do
    case $o in
    n) NP=$OPTARG ;; R) RNP=$OPTARG ;; r) ROUNDS=$OPTARG ;; d) DIR=$OPTARG ;; t) XFERS=$OPTARG ;;
    B) BRARGS=$OPTARG ;; o) OUT=$OPTARG ;;
    s) NP=4 RNP=4 ROUNDS=1 XFERS=1m BRARGS="-n 64 -N 4 -i 2 -a 2" ;;
    h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
for v in "$NP" "$RNP" "$ROUNDS"; do [[ $v =~ ^[1-9][0-9]*$ ]] || die "counts must be positive integers"; done
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH"
for b in bench_mpi_init bench_results bench_reduce; do
    [ -x "$BENCH_BIN/$b" ] || die "no $BENCH_BIN/$b (build the bench targets or set BENCH_BIN)"
done
[ -x /usr/bin/time ] || die "/usr/bin/time is needed (Debian: apt-get install time)"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "'$DIR' is not a writable directory"
command -v python3 >/dev/null || die "python3 is needed"
[ -x "$PFS_RESULTS" ] || die "no pfs-results at $PFS_RESULTS (set PFS_RESULTS)"
"$PFS_RESULTS" --help >/dev/null 2>&1 || die "$PFS_RESULTS does not run (it needs python3-h5py)"

if [ -z "$OUT" ]; then OUT=$(mktemp -d /tmp/pfs-overheads.XXXXXX); else mkdir -p "$OUT" || die "cannot make $OUT"; fi
W=$(mktemp -d "$DIR/pfs-overheads.XXXXXX") || die "cannot make a work directory in $DIR"
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_btl_vader_single_copy_mechanism=none
FAILED=0
fail() { echo "pfs-overheads: $*" >&2; FAILED=1; }
mpi() { # mpi NP TIMEOUT CMD...
    local np=$1 to=$2
    shift 2
    timeout "$to" mpirun -np "$np" --oversubscribe --bind-to none "$@"
}
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# first_io FILE: min open_start over the first phase of run 1 (epoch s)
first_io() {
    "$PFS_RESULTS" "$1" --run 1 --raw --csv |
        python3 -c 'import csv,sys; r=list(csv.DictReader(sys.stdin)); print("%.6f" % min(float(x["open_start"]) for x in r if x["rep"] == "0" and x["phase"] == r[0]["phase"]))'
}

S=$OUT/summary.txt
{
    echo "pfs-overheads: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "pfsbench: $PFSBENCH ($("$PFSBENCH" --version 2>/dev/null | head -1)); data in $DIR"
} | tee "$S"

# ---- memory ----
{
    echo
    echo "memory: max RSS per rank (KiB, max over ranks); own = pfsbench - trivial MPI program - transfer buffer"
    printf '%-6s %-9s %13s %13s %10s  %s\n' ranks transfer "trivial KiB" "pfsbench KiB" "own MiB" "target: own <= 16 MiB"
} | tee -a "$S"
rss_of() { # rss_of NP LABEL CMD...: the largest %M over ranks, KiB
    local np=$1 label=$2
    shift 2
    rm -f "$W"/rss.*
    mpi "$np" 120 sh -c '/usr/bin/time -f %M -o "$0/rss.$OMPI_COMM_WORLD_RANK" "$@"' "$W" "$@" \
        >"$OUT/mem-$label.log" 2>&1 || { fail "memory run $label failed (see $OUT/mem-$label.log)"; echo 0; return; }
    cat "$W"/rss.* | sort -n | tail -1
}
IFS=, read -ra TS <<<"$XFERS"
for np in 1 2 "$NP"; do
    base=$(rss_of "$np" "trivial-np$np" "$BENCH_BIN/bench_mpi_init")
    for t in "${TS[@]}"; do
        tb=$(bytes "$t")
        for res in no-results results; do
            args=(--no-results)
            [ $res = results ] && args=(-o "$W/mem.h5")
            rm -f "$W/mem.h5"
            p=$(rss_of "$np" "pfs-np$np-$t-$res" "$PFSBENCH" -d "$W" -t "$t" -b $((tb * 4)) -p write,read -e -i 2 -q "${args[@]}")
            own=$(awk -v p="$p" -v b="$base" -v t="$tb" 'BEGIN {printf "%.1f", (p - b - t / 1024) / 1024}')
            v=$(awk -v o="$own" 'BEGIN {print (o <= 16 ? "met" : "MISSED")}')
            printf '%-6s %-9s %13s %13s %10s  %s\n' "$np" "$t $res" "$base" "$p" "$own" "$v" | tee -a "$S"
        done
    done
done

# ---- start-up ----
{
    echo
    echo "start-up at $NP ranks, $ROUNDS rounds alternating (seconds from launch; medians)"
} | tee -a "$S"
: >"$OUT/startup.csv"
for ((r = 1; r <= ROUNDS; r++)); do
    for who in $( ((r % 2)) && echo "pfs triv pver tver" || echo "tver pver triv pfs"); do
        case $who in
        pfs)
            rm -f "$W/st.h5"
            t0=$(date +%s.%N)
            if mpi "$NP" 120 "$PFSBENCH" -d "$W" -t 4k -b 4k -p write -o "$W/st.h5" -q >"$OUT/startup-pfs.log" 2>&1; then
                t1=$(first_io "$W/st.h5") || { fail "cannot read $W/st.h5"; continue; }
                echo "pfs_first_io,$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}')" >>"$OUT/startup.csv"
            else fail "pfsbench start-up run failed (see $OUT/startup-pfs.log)"; fi ;;
        triv)
            t0=$(date +%s.%N)
            if mpi "$NP" 120 "$BENCH_BIN/bench_mpi_init" -b >"$OUT/startup-triv.log" 2>&1; then
                awk -v a="$t0" '$1 == "init_done_max" {printf "trivial_init_done,%.4f\n", $2 - a}
                    $1 == "init_barrier_max" {printf "trivial_init_barrier,%.4f\n", $2 - a}' "$OUT/startup-triv.log" >>"$OUT/startup.csv"
            else fail "trivial start-up run failed"; fi ;;
        pver)
            t0=$(date +%s.%N)
            mpi "$NP" 120 "$PFSBENCH" --version >/dev/null 2>&1 || fail "pfsbench --version failed"
            echo "pfs_version_wall,$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.4f", b - a}')" >>"$OUT/startup.csv" ;;
        tver)
            t0=$(date +%s.%N)
            mpi "$NP" 120 "$BENCH_BIN/bench_mpi_init" >/dev/null 2>&1 || fail "trivial run failed"
            echo "trivial_wall,$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.4f", b - a}')" >>"$OUT/startup.csv" ;;
        esac
    done
done
m() { grep "^$1," "$OUT/startup.csv" | cut -d, -f2 | median; }
pf=$(m pfs_first_io) ti=$(m trivial_init_done) tb=$(m trivial_init_barrier) pv=$(m pfs_version_wall) tw=$(m trivial_wall)
{
    printf '%-52s %8s s\n' "launch -> last rank out of MPI_Init (trivial)" "$ti"
    printf '%-52s %8s s\n' "launch -> every rank past MPI_Init + barrier (trivial)" "$tb"
    printf '%-52s %8s s\n' "launch -> first timed open (pfsbench)" "$pf"
    awk -v p="$pf" -v t="$ti" 'BEGIN {if (p + 0 > 0 && t + 0 > 0) printf "%-52s %8.3f    %s\n", "ratio first I/O / trivial MPI_Init", p / t, (p / t <= 1.10 ? "met (<= 1.10)" : "MISSED (<= 1.10)"); else print "ratio first I/O / trivial MPI_Init: not measured"}'
    printf '%-52s %8s s\n' "launch -> exit, trivial MPI program" "$tw"
    printf '%-52s %8s s\n' "launch -> exit, pfsbench --version" "$pv"
} | tee -a "$S"

# ---- results writer ----
{
    echo
    echo "results writer (bench_results $BRARGS) in /tmp and in $DIR"
} | tee -a "$S"
for d in /tmp "$DIR"; do
    # shellcheck disable=SC2086
    "$BENCH_BIN/bench_results" -d "$d" $BRARGS 2>&1 | tee -a "$S" || fail "bench_results in $d failed"
done
awk '$1 == "1" && NF == 3 {print ($2 < 1.0 ? "first append " $2 " s: met (< 1 s)" : "first append " $2 " s: MISSED (< 1 s)")}' "$S" | tee -a "$S"

# ---- reductions ----
{
    echo
    echo "reductions at $RNP ranks (oversubscribed on $(nproc) cores)"
} | tee -a "$S"
for mode in "" -w; do
    # shellcheck disable=SC2086
    mpi "$RNP" 300 "$BENCH_BIN/bench_reduce" -i 30 $mode 2>&1 | tee -a "$S" || fail "bench_reduce $mode failed"
done
rm -f "$W/gap.h5"
if mpi "$RNP" 300 "$PFSBENCH" -d "$W" -t 4k -b 4k -p write,read -i 10 -o "$W/gap.h5" -q >"$OUT/gap.log" 2>&1; then
    "$PFS_RESULTS" "$W/gap.h5" --run 1 --raw --csv | python3 -c '
import csv, statistics, sys
rows = list(csv.DictReader(sys.stdin))
span = {}
order = []
for r in rows:
    k = (int(r["rep"]), r["phase"])
    if k not in span:
        span[k] = [float("inf"), float("-inf")]
    span[k][0] = min(span[k][0], float(r["open_start"]))
    span[k][1] = max(span[k][1], float(r["close_end"]))
phases = []
for r in rows:
    if r["phase"] not in phases:
        phases.append(r["phase"])
seq = sorted(span, key=lambda k: (k[0], phases.index(k[1])))
gaps = [1e3 * (span[b][0] - span[a][1]) for a, b in zip(seq, seq[1:])]
gaps.sort()
print("pfsbench at %s ranks, %d phases: gap between phases (last close -> next first open) median %.3f ms, "
      "p90 %.3f ms, max %.3f ms: %s" % (sys.argv[1], len(seq), statistics.median(gaps),
      gaps[int(0.9 * (len(gaps) - 1) + 0.5)], gaps[-1], "met (< 50 ms)" if statistics.median(gaps) < 50 else "MISSED (< 50 ms)"))
' "$RNP" | tee -a "$S"
else
    fail "pfsbench at $RNP ranks failed (see $OUT/gap.log)"
fi

echo "logs and summary: $OUT"
[ "$FAILED" -eq 0 ] || exit 1
exit 0
