#!/bin/bash
# scale-mpi.sh: what pfsbench costs per rank and at rank 0 as the rank count
# grows, on fake nodes (tests/lib/fakenodes.sh), with small I/O (issue 19;
# docs/performance.md "Scale").
#
# For each rank count N (nodes K = min(N, -K), round-robin, --map-by node):
#   memory    every rank's VmHWM (max RSS, /usr/bin/time %M around each rank)
#             of pfsbench -t 64k -b 256k -p write,read --no-results -q and of
#             bench_mpi_init at the same N and K; own = pfsbench - trivial -
#             the 64 KiB transfer buffer. Rank 0 and the others apart. And
#             bench_mpi_init -c (the communicators pfsbench builds, one
#             collective on each): comms = that - trivial, Open MPI's cost of
#             those communicators, which own includes.
#   start-up  end-to-end wall time of mpirun pfsbench minus that of mpirun
#             bench_mpi_init at the same N and K (the launch, MPI_Init and
#             MPI_Finalize cancel; what is left is pfsbench's own start-up,
#             two 256 KiB phases and its end), alternating, median of -R rounds
#   bytes     received by rank 0 per phase, computed from the message sizes
#             in src/mpi (phases.c, latency.c): see the formula printed; and
#             measured with Open MPI's pml monitoring (every point-to-point
#             message, collectives' included): (run with -i 3 - run with -i 1) / 4
#             phases; start-up = the -i 1 run less its 2 phases
#   progress  messages reaching rank 0 per progress interval, measured: one
#             time-based write phase (--runtime -P seconds) with the progress
#             line forced, rank 0 counting the reports it takes
#             (PFSBENCH_DEBUG_PROGRESS=1: mean and most per interval, and from
#             how many senders), and checked with pml monitoring: messages into
#             rank 0 in that run less those of the same run without --progress
#             (= the reports + one final message per sender)
# A rank count whose launch fails or passes -T seconds is reported and the
# larger ones are skipped.
#
# usage: bench/scale-mpi.sh [-n LIST] [-K NODES] [-R ROUNDS] [-P S] [-M] [-d DIR] [-T S] [-o OUT]
#   -n LIST   rank counts (default 1,2,4,8,16,32,64,128)
#   -K NODES  fake nodes at most (default 16)
#   -R N      rounds of the start-up pair (default 3)
#   -P S      seconds of the progress runs' write phase (default 5)
#   -M        memory only (the other columns empty)
#   -d DIR    data directory (default /dev/shm)
#   -T S      limit per launch, seconds (default 180)
#   -o OUT    keep logs and results.csv there (default a new directory under /tmp)
# environment: PFSBENCH (default build-scale/pfsbench beside bench/), BENCH_BIN
# (default the bench/ directory beside PFSBENCH).
# Needs root (unshare --uts, for the fake nodes), /usr/bin/time, /usr/bin/python3 and numpy.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
PFSBENCH=${PFSBENCH:-$top/build-scale/pfsbench}
BENCH_BIN=${BENCH_BIN:-$(dirname "$PFSBENCH")/bench}
LIST=1,2,4,8,16,32,64,128 KMAX=16 ROUNDS=3 PSECS=5 MEMONLY=0 DIR=/dev/shm LIMIT=180 OUT=""
usage() { sed -n '/^# usage:/,/^# Needs root/p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "scale-mpi: $*" >&2; exit 2; }
while getopts "n:K:R:P:Md:T:o:h" o; do
    case $o in
    n) LIST=$OPTARG ;; K) KMAX=$OPTARG ;; R) ROUNDS=$OPTARG ;; P) PSECS=$OPTARG ;; M) MEMONLY=1 ;; d) DIR=$OPTARG ;; T) LIMIT=$OPTARG ;;
    o) OUT=$OPTARG ;; h) usage; exit 0 ;; *) usage >&2; exit 2 ;;
    esac
done
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH"
[ -x "$BENCH_BIN/bench_mpi_init" ] || die "no $BENCH_BIN/bench_mpi_init"
[ -x /usr/bin/time ] || die "/usr/bin/time is needed"
[ -d "$DIR" ] && [ -w "$DIR" ] || die "'$DIR' is not a writable directory"
if [ -z "$OUT" ]; then OUT=$(mktemp -d /tmp/scale-mpi.XXXXXX); else mkdir -p "$OUT" || die "cannot make $OUT"; fi
W=$(mktemp -d "$DIR/scale-mpi.XXXXXX") || die "cannot make a work directory in $DIR"
trap 'rm -rf "$W"' EXIT
# shellcheck source=../tests/lib/fakenodes.sh
. "$top/tests/lib/fakenodes.sh"
FAKENODES_DIR=$W

PFSARGS=(-t 64k -b 256k -p write,read --no-results -q)
now() { date +%s.%N; }
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

# launch N K TAG PROGRAM ARGS...: one mpirun over K fake nodes; prints its wall seconds.
launch() {
    local n=$1 k=$2 tag=$3 t0 t1 rc
    shift 3
    fakenodes_hostfile "$W/hostfile" "$k" $(((n + k - 1) / k))
    FAKENODES_HOSTFILE=$W/hostfile
    t0=$(now)
    fakenodes_mpirun "$n" "$LIMIT" "$@" >"$OUT/$tag.log" 2>&1
    rc=$?
    t1=$(now)
    [ $rc -eq 0 ] || { echo "scale-mpi: $tag exited $rc (see $OUT/$tag.log)" >&2; return 1; }
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f\n", b - a}'
}

# A rank under /usr/bin/time: its max RSS (VmHWM) in $1.RANK, KiB.
MEMWRAP=(sh -c 'exec /usr/bin/time -f %M -o "$0.$OMPI_COMM_WORLD_RANK" "$@"')

echo "N,nodes,trivial_rank0_kib,trivial_other_kib,pfs_rank0_kib,pfs_other_kib,own_rank0_mib,own_other_mib,trivial_s,pfs_s,startup_beyond_s,rank0_bytes_phase_computed,rank0_bytes_phase_measured,rank0_msgs_phase,rank0_bytes_startup,rank0_msgs_startup,prog_reports,prog_intervals,prog_most,prog_senders,prog_pml_extra_msgs,comms_rank0_kib,comms_other_kib,comms_rank0_mib,comms_other_mib" \
    >"$OUT/results.csv"
printf "%6s %5s | %10s %10s %8s %8s | %9s %9s %8s | %9s %9s %6s | %9s %6s | %8s %5s %7s %6s\n" ranks nodes "own r0 MiB" "own max MiB" "comms r0" "others" \
    "trivial s" "pfsbench s" "beyond s" "r0 B/ph" "measured" "msgs" "r0 B s-u" "msgs" "prog/int" "most" "senders" "pml"
IFS=, read -ra NS <<<"$LIST"
for n in "${NS[@]}"; do
    k=$((n < KMAX ? n : KMAX))
    # Memory: one launch of each, every rank wrapped.
    rm -f "$W"/mem.*
    launch "$n" "$k" "mem-trivial-$n" "${MEMWRAP[@]}" "$W/mem.t" "$BENCH_BIN/bench_mpi_init" >/dev/null || break
    launch "$n" "$k" "mem-comms-$n" "${MEMWRAP[@]}" "$W/mem.c" "$BENCH_BIN/bench_mpi_init" -c >/dev/null || break
    mkdir -p "$W/d"
    launch "$n" "$k" "mem-pfs-$n" "${MEMWRAP[@]}" "$W/mem.p" "$PFSBENCH" -d "$W/d" "${PFSARGS[@]}" >/dev/null || break
    rm -rf "$W/d"
    mem() { # mem PREFIX rank0|other: KiB (max over the others)
        if [ "$2" = rank0 ]; then tail -n 1 "$1.0"; else
            for f in "$1".*; do [ "$f" = "$1.0" ] || tail -n 1 "$f"; done | sort -n | tail -n 1; fi
    }
    t0k=$(mem "$W/mem.t" rank0) p0k=$(mem "$W/mem.p" rank0)
    tok=$(mem "$W/mem.t" other) pok=$(mem "$W/mem.p" other)
    [ -n "$tok" ] || tok=$t0k
    [ -n "$pok" ] || pok=$p0k
    own0=$(awk -v p="$p0k" -v t="$t0k" 'BEGIN {printf "%.2f", (p - t - 64) / 1024}')
    own=$(awk -v p="$pok" -v t="$tok" 'BEGIN {printf "%.2f", (p - t - 64) / 1024}')
    c0k=$(mem "$W/mem.c" rank0) cok=$(mem "$W/mem.c" other)
    [ -n "$cok" ] || cok=$c0k
    com0=$(awk -v c="$c0k" -v t="$t0k" 'BEGIN {printf "%.2f", (c - t) / 1024}')
    com=$(awk -v c="$cok" -v t="$tok" 'BEGIN {printf "%.2f", (c - t) / 1024}')
    if [ "$MEMONLY" -eq 1 ]; then
        echo "$n,$k,$t0k,$tok,$p0k,$pok,$own0,$own,,,,,,,,,,,,,,$c0k,$cok,$com0,$com" >>"$OUT/results.csv"
        printf "%6d %5d | %10s %10s %8s %8s |\n" "$n" "$k" "$own0" "$own" "$com0" "$com"
        continue
    fi
    # Bytes and messages into rank 0, measured (pml monitoring, Open MPI).
    monrx() { # monrx PREFIX: bytes msgs that ranks other than 0 sent to rank 0
        cat "$1".*.prof 2>/dev/null | awk -F'\t' '($1 == "E" || $1 == "I") && $3 == 0 && $2 != 0 {b += int($4); m += int($5)}
            END {printf "%d %d\n", b, m}'
    }
    for i in 1 3; do
        rm -f "$W"/mon.$i.*
        mkdir -p "$W/d"
        FAKENODES_EXTRA=(--mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3
            --mca pml_monitoring_filename "$W/mon.$i")
        launch "$n" "$k" "mon-$n-$i" "$PFSBENCH" -d "$W/d" "${PFSARGS[@]}" -i $i >/dev/null || break 2
        FAKENODES_EXTRA=()
        rm -rf "$W/d"
    done
    read -r b1 m1 <<<"$(monrx "$W/mon.1")"
    read -r b3 m3 <<<"$(monrx "$W/mon.3")"
    bph=$(((b3 - b1) / 4)) mph=$(((m3 - m1) / 4))
    bsu=$((b1 - 2 * bph)) msu=$((m1 - 2 * mph))
    # Progress: the same time-based write phase without and with --progress.
    for pr in 0 1; do
        rm -f "$W"/monp.$pr.*
        mkdir -p "$W/d"
        FAKENODES_EXTRA=(-x PFSBENCH_DEBUG_PROGRESS=1 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3
            --mca pml_monitoring_filename "$W/monp.$pr")
        launch "$n" "$k" "prog-$n-$pr" "$PFSBENCH" -d "$W/d" -t 64k -b 256k -p write --runtime "$PSECS" --no-results -q \
            $([ $pr -eq 1 ] && echo --progress) >/dev/null || break 2
        FAKENODES_EXTRA=()
        rm -rf "$W/d"
    done
    read -r _ mp0 <<<"$(monrx "$W/monp.0")"
    read -r _ mp1 <<<"$(monrx "$W/monp.1")"
    # "rank 0 received R reports in T intervals (at most M in one), L after the last, from S senders"
    read -r prec pint pmost psend <<<"$(sed -n 's/.*progress: rank 0 received \([0-9]*\) reports in \([0-9]*\) intervals (at most \([0-9]*\) in one), [0-9]* after the last, from \([0-9]*\) senders.*/\1 \2 \3 \4/p' "$OUT/prog-$n-1.log")"
    [ -n "${psend:-}" ] || { echo "scale-mpi: no progress count in $OUT/prog-$n-1.log" >&2; break; }
    pmean=$(awk -v r="$prec" -v t="$pint" 'BEGIN {if (t > 0) printf "%.2f", r / t; else print "nan"}')
    # Start-up: alternating pairs.
    : >"$W/tt" && : >"$W/tp"
    ok=1
    for ((r = 1; r <= ROUNDS; r++)); do
        for which in $([ $((r % 2)) -eq 1 ] && echo "t p" || echo "p t"); do
            if [ "$which" = t ]; then
                s=$(launch "$n" "$k" "trivial-$n-$r" "$BENCH_BIN/bench_mpi_init") || { ok=0; break; }
                echo "$s" >>"$W/tt"
            else
                mkdir -p "$W/d"
                s=$(launch "$n" "$k" "pfs-$n-$r" "$PFSBENCH" -d "$W/d" "${PFSARGS[@]}") || { ok=0; break; }
                rm -rf "$W/d"
                echo "$s" >>"$W/tp"
            fi
        done
        [ $ok -eq 1 ] || break
    done
    [ $ok -eq 1 ] || break
    tt=$(median <"$W/tt") tp=$(median <"$W/tp")
    beyond=$(awk -v a="$tp" -v b="$tt" 'BEGIN {printf "%.4f", a - b}')
    # Rank 0 per phase (see the formula below), bytes; progress messages per interval.
    # The formula is scale-fit.py's, which compares it with the measurements.
    b0=$(/usr/bin/python3 "$here/scale-fit.py" --formula "$n" "$k" 1) || die "scale-fit.py --formula failed"
    echo "$n,$k,$t0k,$tok,$p0k,$pok,$own0,$own,$tt,$tp,$beyond,$b0,$bph,$mph,$bsu,$msu,$prec,$pint,$pmost,$psend,$((mp1 - mp0)),$c0k,$cok,$com0,$com" \
        >>"$OUT/results.csv"
    printf "%6d %5d | %10s %10s %8s %8s | %9s %9s %8s | %9s %9s %6s | %9s %6s | %8s %5s %7s %6s\n" "$n" "$k" "$own0" "$own" "$com0" "$com" "$tt" "$tp" \
        "$beyond" "$b0" "$bph" "$mph" "$bsu" "$msu" "$pmean" "$pmost" "$psend" $((mp1 - mp0))
done
cat <<'EOF'

rank 0 B: bytes rank 0 receives per phase (phases.c, latency.c), 1 thread per rank,
  280 (N - 1)              the times gather (sizeof(struct pfs_times) = 280 per stream)
  + 426800 ceil(log2 ppn)  the node's Ireduce of latency blocks (131888 + 512 x 576) on rank 0's node,
                           as a binomial tree (rank 0's children; a chain: 1 block, linear: ppn - 1)
  + 426800 ceil(log2 K)    the leaders' Ireduce of node blocks to rank 0 (the same; Open MPI 4.1
                           chose a binomial tree at 2, 8, 16 leaders and a chain at 4)
  + (17952 + 40 nint)(K-1) the leaders' Igather of node records (histogram + nint slots of 40 B)
  + 18104 (ppn - 1 + K - 1) the storage targets' tables (targets.c): each rank's, then each node's,
                           gathered whole (one target here, `unknown` of the null backend: a
                           16-byte count and an 18088-byte entry, name + bytes + histogram)
  + small: the agreements (ints), the leaders' 32-byte interval and span allreduce
  (nint = 1 for these sub-second phases; 60 for a minute at the default 1 s interval)
own: pfsbench's max RSS less bench_mpi_init's and the 64 KiB buffer (rank 0; the most of the others);
  comms: bench_mpi_init -c's less bench_mpi_init's (Open MPI's share of own: the communicators)
measured: pml monitoring, per phase; r0 B s-u / msgs: into rank 0 during start-up and the end
prog/int, most: progress reports rank 0 took per 1 s interval (mean, and the most in one) in a
  --runtime write phase with --progress (progress.c: one sender per node, at most one report each
  per interval: the goal is <= nodes); senders: how many sent it one; pml: messages into rank 0
  in that run less the same run without --progress (the reports, late ones and one final each)
EOF
echo "logs and results.csv in $OUT"
