# shellcheck shell=bash
# bench/lib.sh: what the benchmark scripts share (sourced, not run).
# Set BENCH_NAME (the script's name in messages) before sourcing.
#   usage                   the script's header from "# usage:" to "# Exit status"
#   die MSG                 MSG on stderr, exit 2
#   bytes N[kmgt]           N in bytes (1024-based); status 1 for a malformed size
#   pfs_mibs LOG ARGS...    pfsbench on one rank (under $TO seconds and ${BIND[@]});
#                           prints "OP MIBS" per data phase of its summary (rwmix: both
#                           directions together)
#   fio_mibs LOG [--rewrite|--mix] ARGS...  fio's jobs (JSON); prints "OP MIBS" per job
#                           (io_bytes / runtime; jobs named w* write, others read;
#                           --mix: "rwmix", read and write bytes together);
#                           --rewrite: each write again as "rewrite" (against
#                           pfsbench's rewrite of an allocated file)
#   bench_rounds ROUNDS RUN OUT NAME...  interleaved rounds: in round r, RUN NAME LOG for
#                           each NAME, starting with the r-th and going round (so each
#                           goes first once in every #NAME rounds); RUN prints "OP MIBS"
#                           lines, kept in OUT/results.txt as "ROUND NAME OP MIBS";
#                           status 1 when a launch failed (the others still run)
#   bench_summary OUT OPS NAMES RATIOS  the table of OUT/results.txt (also in
#                           OUT/summary.txt): per op of OPS, each NAME's median MiB/s,
#                           then for each A/B of RATIOS the median (min-max) of the
#                           per-round ratios A/B

usage() { sed -n '/^# usage:/,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "${BENCH_NAME:-bench}: $*" >&2; exit 2; }

bytes() {
    local s=${1,,} m=1
    case $s in
    *k) m=1024 s=${s%k} ;; *m) m=$((1 << 20)) s=${s%m} ;;
    *g) m=$((1 << 30)) s=${s%g} ;; *t) m=$((1 << 40)) s=${s%t} ;;
    esac
    [[ $s =~ ^[0-9]+$ ]] || return 1
    echo $((s * m))
}

pfs_mibs() {
    local log=$1
    shift
    timeout "$TO" "${BIND[@]}" mpirun -np 1 --bind-to none "$PFSBENCH" --no-results -q "$@" >"$log" 2>&1 ||
        { echo "pfsbench exited $?" >>"$log"; return 1; }
    awk '($1 == "write" || $1 == "rewrite" || $1 == "read" || $1 == "rwmix") && NF == 10 { print $1, $5; n++ }
         END { exit n == 0 }' "$log"
}

fio_mibs() {
    local log=$1 rw=
    shift
    case ${1:-} in --rewrite | --mix) rw=$1; shift ;; esac
    timeout "$TO" "${BIND[@]}" fio --output-format=json --output="$log.json" "$@" >"$log" 2>&1 ||
        { echo "fio exited $?" >>"$log"; return 1; }
    python3 "$(dirname "${BASH_SOURCE[0]}")/fio_mibs.py" "$log.json" $rw
}

bench_rounds() {
    local rounds=$1 run=$2 out=$3 r k n name rc=0
    shift 3
    local -a names=("$@")
    n=${#names[@]}
    : >"$out/results.txt"
    for ((r = 0; r < rounds; r++)); do
        for ((k = 0; k < n; k++)); do
            name=${names[$(((r + k) % n))]}
            if ! "$run" "$name" "$out/$name.$r.log" >"$out/cur.txt"; then
                echo "round $((r + 1)) $name: failed ($out/$name.$r.log)" >&2
                rc=1
                continue
            fi
            awk -v r=$((r + 1)) -v t="$name" '{ print r, t, $1, $2 }' "$out/cur.txt" >>"$out/results.txt"
            echo "round $((r + 1)) $name: $(tr '\n' ' ' <"$out/cur.txt")(load $(cut -d' ' -f1 /proc/loadavg))"
        done
    done
    return $rc
}

bench__med() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# bench__of OUT NAME OP: "ROUND MIBS" of NAME's OP in each round
bench__of() { awk -v t="$2" -v o="$3" '$2 == t && $3 == o { print $1, $4 }' "$1/results.txt"; }
# bench__ratios OUT A B OP: A/B of OP in each round both have, sorted
bench__ratios() {
    join <(bench__of "$1" "$2" "$4" | sort) <(bench__of "$1" "$3" "$4" | sort) |
        awk '$3 > 0 { printf "%.3f\n", $2 / $3 }' | sort -g
}

bench_summary() {
    local out=$1 ops=$2 cols=$3 qs=$4 op n q a line
    {
        echo
        line=$(printf "%-6s" op)
        for n in $cols; do line+=$(printf " %14s" "$n"); done
        for q in $qs; do line+=$(printf " %24s" "$q"); done
        echo "$line"
        for op in $ops; do
            line=$(printf "%-6s" "$op")
            for n in $cols; do line+=$(printf " %14.1f" "$(bench__of "$out" "$n" "$op" | cut -d' ' -f2 | bench__med)"); done
            for q in $qs; do
                a=$(bench__ratios "$out" "${q%/*}" "${q#*/}" "$op")
                line+=$(printf " %24s" "$(echo "$a" | bench__med) ($(echo "$a" | head -n1)-$(echo "$a" | tail -n1))")
            done
            echo "$line"
        done
        echo "medians over rounds, MiB/s = 2^20 B/s; ratios: the median of the per-round ratios (min-max)"
    } | tee "$out/summary.txt"
}
