#!/bin/bash
# pfs-rate-vs-fio.sh: pfsbench's open-loop --rate against fio's rate_iops on
# the same work: 4 KiB random reads of the same files, psync, 1 and 2 ranks
# (fio: numjobs, each job its rank's file and the per-stream rate), with
# --direct / direct=1 on a disk file system (default /var/tmp) and without
# on /dev/shm.
#
# Setup (untimed): pfsbench writes each rank's file once and keeps it
#   mpirun -np N pfsbench -d W -p write -t 1m -b SIZE -k --run-id ID --no-results -q
# Then two stages of interleaved rounds (bench/lib.sh's bench_rounds: in
# round r the launches start with the r-th and go round), each launch
#   mpirun -np N pfsbench -d W -p read --random -t 4k -b SIZE --run-id ID --runtime DUR \
#       [--direct] [--rate R --arrivals fixed|poisson] --no-results --format json
#   fio --name=rr --filename_format=W/pfsbench.ID.\$jobnum --numjobs=N --group_reporting \
#       --rw=randread --bs=4k --size=SIZE --ioengine=psync --invalidate=0 --time_based \
#       --runtime=DUR [--direct=1] [--rate_iops=R --rate_process=linear|poisson] --output-format=json
# 1. peak: closed loop (pfsbench, fio) and pfsbench with --rate 1e9 per stream
#    (far above any peak: the pacing runs and never waits), per target and N.
#    The peak of a cell is pfsbench's closed-loop median.
# 2. paced: 30%, 60% and 90% of that peak for the job (R per stream and per
#    fio job: that / N, rounded), fixed (fio rate_process=linear) and poisson
#    arrivals; and the stall: 1 rank on disk at 60% fixed with the stall shim
#    (tests/lib/stall.c) holding the first pread of the file for -H seconds,
#    in pfsbench and in fio (the shim acts in MPI ranks only, so fio gets
#    OMPI_COMM_WORLD_RANK=0).
# Prints (bench/rate_figures.py) per cell: offered, pfsbench's and fio's
# achieved rate and their ratios to the offered, pfsbench's service p50/p99
# against fio's clat p50/p99, pfsbench's response p99 (fio has none from the
# intended start); the stall's response p99 against what coordinated-omission
# correction predicts; and closed loop against --rate 1e9.
# Targets: achieved within 1% of offered; service p50 and p99 within 10% of fio's.
#
# usage: bench/pfs-rate-vs-fio.sh [options]
#   -r N       rounds of each stage (default 3)
#   -d DIR     disk directory, read with O_DIRECT (default /var/tmp)
#   -m DIR     memory directory, read without (default /dev/shm)
#   -s SIZE    each rank's file (default 64m)
#   -D SECS    each launch's --runtime, whole seconds (default 1)
#   -H SECS    the stall's hold (default 0.2)
#   -T SECS    timeout of each launch (default 120)
#   -o DIR     keep results, logs and summary.txt in DIR (default: new /tmp dir)
#   -S DIR     print the tables of a run kept with -o DIR, run nothing
# environment: PFSBENCH (default build-perf/pfsbench next to bench/, else build/pfsbench),
#   PFS_STALL_LIB (default the build's tests/libpfs_stall.so).
# Exit status: 0 when every launch worked (targets met or not), 1 when one failed, 2 for bad usage.
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
if [ -z "${PFSBENCH:-}" ]; then
    PFSBENCH=$repo/build-perf/pfsbench
    [ -x "$PFSBENCH" ] || PFSBENCH=$repo/build/pfsbench
fi
STALL_LIB=${PFS_STALL_LIB:-$(dirname "$PFSBENCH")/tests/libpfs_stall.so}
ROUNDS=3 DISK=/var/tmp SHM=/dev/shm SIZE=64m DUR=1 HOLD=0.2 TO=120 OUT="" ONLY=""

BENCH_NAME=pfs-rate-vs-fio
. "$here/lib.sh"
figures() { /usr/bin/python3 "$here/rate_figures.py" "$@"; }

while getopts "r:d:m:s:D:H:T:o:S:h" o; do
    case $o in
    r) ROUNDS=$OPTARG ;; d) DISK=$OPTARG ;; m) SHM=$OPTARG ;; s) SIZE=$OPTARG ;; D) DUR=$OPTARG ;;
    H) HOLD=$OPTARG ;; T) TO=$OPTARG ;; o) OUT=$OPTARG ;; S) ONLY=$OPTARG ;; h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
    esac
done
if [ -n "$ONLY" ]; then
    [ -f "$ONLY/paced/results.txt" ] && [ -f "$ONLY/params" ] || die "no results in '$ONLY'"
    read -r HOLD DUR <"$ONLY/params"
    figures summary "$ONLY" "$HOLD" "$DUR"
    exit 0
fi
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "-r takes a positive count"
[[ $DUR =~ ^[1-9][0-9]*$ ]] || die "-D takes whole seconds"
[[ $HOLD =~ ^[0-9]*\.?[0-9]+$ ]] || die "-H takes seconds"
SB=$(bytes "$SIZE") || die "bad size '$SIZE'"
[ -x "$PFSBENCH" ] || die "no pfsbench at $PFSBENCH (set PFSBENCH)"
[ -e "$STALL_LIB" ] || die "no stall shim at $STALL_LIB (set PFS_STALL_LIB)"
for c in fio mpirun; do command -v $c >/dev/null || die "$c is not on PATH"; done
for d in "$DISK" "$SHM"; do [ -d "$d" ] && [ -w "$d" ] || die "'$d' is not a writable directory"; done
case $(stat -f -c %T "$DISK") in tmpfs | ramfs) die "$DISK is in memory: O_DIRECT needs a disk file system" ;; esac

if [ -z "$OUT" ]; then OUT=$(mktemp -d /tmp/pfs-rate-vs-fio.XXXXXX); else mkdir -p "$OUT" || die "cannot make $OUT"; fi
mkdir -p "$OUT/peak" "$OUT/paced" "$OUT/setup"
echo "$HOLD $DUR" >"$OUT/params"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_base_warn_component_unused=0 OMPI_MCA_btl_vader_single_copy_mechanism=none
WD=$(mktemp -d "$DISK/pfs-rate-vs-fio.XXXXXX") || die "cannot make a directory in $DISK"
WS=$(mktemp -d "$SHM/pfs-rate-vs-fio.XXXXXX") || { rm -rf "$WD"; die "cannot make a directory in $SHM"; }
trap 'rm -rf "$WD" "$WS"' EXIT
trap 'exit 130' INT TERM
declare -A PEAK

dir_of() { if [ "$1" = disk ]; then echo "$WD"; else echo "$WS"; fi; }

# The files: each rank's, written once by pfsbench (incompressible bytes) and kept.
for tgt in disk shm; do
    for n in 1 2; do
        timeout "$TO" mpirun -np $n --bind-to none "$PFSBENCH" -d "$(dir_of $tgt)" -p write -t 1m -b "$SIZE" -e -k \
            --run-id "rv$n-$$" --no-results -q >"$OUT/setup/$tgt-$n" 2>&1 ||
            die "writing the files failed; see $OUT/setup/$tgt-$n"
    done
done

# run NAME LOG: a launch named TOOL-TARGET-RANKS-LOAD-ARRIVALS (LOAD: closed,
# max, or a percentage of the peak; ARRIVALS: fixed, poisson, stall or x),
# printing "METRIC VALUE" lines (rate_figures.py, and "off" for a paced one)
run() {
    local tool tgt n load arr w id per=0 rc=0
    IFS=- read -r tool tgt n load arr <<<"$1"
    w=$(dir_of "$tgt") id=rv$n-$$
    local -a env=(env) pa=() fa=()
    [ "$tgt" = disk ] && pa+=(--direct) fa+=(--direct=1)
    case $load in
    closed) ;;
    max) pa+=(--rate 1000000000) ;;
    *) per=$(((PEAK[$tgt-$n] * load / 100 + n / 2) / n))
       [ "$per" -gt 0 ] || per=1
       case $arr in
       poisson) pa+=(--rate "$per" --arrivals poisson) fa+=(--rate_iops="$per" --rate_process=poisson) ;;
       *) pa+=(--rate "$per" --arrivals fixed) fa+=(--rate_iops="$per" --rate_process=linear) ;;
       esac ;;
    esac
    [ "$arr" = stall ] && env+=(LD_PRELOAD="$STALL_LIB" PFS_STALL_CALL=pread PFS_STALL_SECS="$HOLD" PFS_STALL_PATH="$w/")
    if [ "$tool" = pfs ]; then
        timeout "$TO" "${env[@]}" mpirun -np "$n" --bind-to none "$PFSBENCH" -d "$w" -p read --random -t 4k \
            -b "$SIZE" --run-id "$id" --runtime "$DUR" --no-results --format json "${pa[@]}" >"$2.json" 2>"$2" || rc=$?
    else
        [ "$arr" = stall ] && env+=(OMPI_COMM_WORLD_RANK=0)
        timeout "$TO" "${env[@]}" fio --name=rr --filename_format="$w/pfsbench.$id.\$jobnum" --numjobs="$n" \
            --group_reporting --rw=randread --bs=4k --size="$SB" --ioengine=psync --invalidate=0 --time_based \
            --runtime="$DUR" "${fa[@]}" --output-format=json --output="$2.json" >"$2" 2>&1 || rc=$?
    fi
    [ "$rc" -eq 0 ] || { echo "$tool exited $rc" >>"$2"; return 1; }
    figures "$tool" "$2.json" || return 1
    [ "$per" -eq 0 ] || echo "off $((per * n))"
}

{
    echo "pfs-rate-vs-fio: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "command: $0 $*"
    echo "pfsbench: $PFSBENCH ($(git -C "$repo" rev-parse --short HEAD 2>/dev/null)); $(fio --version)"
    echo "disk: $WD ($(findmnt -n -o FSTYPE -T "$DISK" | tail -1) on $(findmnt -n -o SOURCE -T "$DISK" | tail -1), O_DIRECT); memory: $WS; files of $SIZE per rank; 4 KiB random reads, psync; --runtime $DUR s; $ROUNDS rounds"
} | tee "$OUT/header.txt"

FAILED=0
names=()
for tgt in disk shm; do
    for n in 1 2; do names+=("pfs-$tgt-$n-closed-x" "pfs-$tgt-$n-max-x" "fio-$tgt-$n-closed-x"); done
done
bench_rounds "$ROUNDS" run "$OUT/peak" "${names[@]}" || FAILED=1
for tgt in disk shm; do
    for n in 1 2; do
        PEAK[$tgt-$n]=$(bench__of "$OUT/peak" "pfs-$tgt-$n-closed-x" ach | cut -d' ' -f2 | bench__med | awk '{ printf "%d", $1 }')
        [ -n "${PEAK[$tgt-$n]}" ] || die "no closed-loop peak for $tgt x$n (see $OUT/peak)"
        echo "peak $tgt x$n: ${PEAK[$tgt-$n]} ops/s"
    done
done

names=()
for tgt in disk shm; do
    for n in 1 2; do
        for load in 30 60 90; do
            for arr in fixed poisson; do names+=("pfs-$tgt-$n-$load-$arr" "fio-$tgt-$n-$load-$arr"); done
        done
    done
done
names+=(pfs-disk-1-60-stall fio-disk-1-60-stall)
bench_rounds "$ROUNDS" run "$OUT/paced" "${names[@]}" || FAILED=1

{
    cat "$OUT/header.txt"
    echo
    figures summary "$OUT" "$HOLD" "$DUR"
} | tee "$OUT/summary.txt"
echo "logs: $OUT"
[ "$FAILED" -eq 0 ] || { echo "pfs-rate-vs-fio: some launches failed (see above)" >&2; exit 1; }
exit 0
