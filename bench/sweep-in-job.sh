#!/bin/bash
# A rank sweep in one MPI job (pfsbench --ranks pow2) against pfs-sweep's
# one mpirun launch per point, the same points and work: wall time of the
# whole sweep for each, interleaved rounds, medians and the ratio. The work
# per point is small on purpose, so start-up dominates, as it does at
# thousands of ranks on a real cluster.
#   bench/sweep-in-job.sh [-n MAX_RANKS] [-r ROUNDS] [-d DIR]
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/.." && pwd)
PFSBENCH=${PFSBENCH:-$SRC/build/pfsbench}
MAX=16 ROUNDS=3 DIR=/dev/shm/pfs-sweep-bench
while getopts n:r:d: o; do
    case $o in
    n) MAX=$OPTARG ;; r) ROUNDS=$OPTARG ;; d) DIR=$OPTARG ;;
    *) echo "usage: $0 [-n MAX_RANKS] [-r ROUNDS] [-d DIR]" >&2; exit 2 ;;
    esac
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_base_warn_component_unused=0
export PFSRUN_MPIRUN_ARGS="--oversubscribe --bind-to none" PFSBENCH
mkdir -p "$DIR"
OUT=$(mktemp -d /tmp/sweep-bench.XXXXXX)
WORK=(-d "$DIR" -t 64k -p write,read)
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>"$OUT/err" || { cat "$OUT/err" >&2; exit 1; }; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
injob() { rm -f "$OUT/a.h5"; secs timeout 900 mpirun -np "$MAX" --oversubscribe --bind-to none "$PFSBENCH" "${WORK[@]}" --total 16m --ranks pow2 -o "$OUT/a.h5" -q; }
perpoint() { rm -f "$OUT/b.h5"; secs timeout 900 "$(dirname "$PFSBENCH")/pfs-sweep" --max "$MAX" --total 16m -o "$OUT/b.h5" -- "${WORK[@]}"; }
: >"$OUT/rounds"
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) -eq 1 ]; then a=$(injob); b=$(perpoint); else b=$(perpoint); a=$(injob); fi
    echo "$a $b" >>"$OUT/rounds"
    printf 'round %d: in one job %.2f s, one launch per point %.2f s\n' "$r" "$a" "$b"
done
/usr/bin/python3 - "$OUT/rounds" "$MAX" <<'PY'
import sys, statistics as st
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
a = st.median(r[0] for r in rows); b = st.median(r[1] for r in rows)
pts = [1]
while pts[-1] * 2 <= int(sys.argv[2]): pts.append(pts[-1] * 2)
print(f"points {pts}; medians over {len(rows)} rounds: in one job {a:.2f} s, one launch per point {b:.2f} s; "
      f"ratio {a / b:.3f} (per-round {min(r[0] / r[1] for r in rows):.3f}-{max(r[0] / r[1] for r in rows):.3f})")
PY
rm -rf "$OUT" "$DIR"
