# bench/lib.sh: what the benchmark scripts share (sourced, not run).
# Set BENCH_NAME (the script's name in messages) before sourcing.
#   usage                   the script's header from "# usage:" to "# Exit status"
#   die MSG                 MSG on stderr, exit 2
#   bytes N[kmgt]           N in bytes (1024-based); status 1 for a malformed size
#   pfs_mibs LOG ARGS...    pfsbench on one rank (under $TO seconds and ${BIND[@]});
#                           prints "OP MIBS" per data phase of its summary
#   fio_mibs LOG [--rewrite] ARGS...  fio's jobs (JSON); prints "OP MIBS" per job
#                           (io_bytes / runtime; jobs named w* write, others read);
#                           --rewrite: each write again as "rewrite" (against
#                           pfsbench's rewrite of an allocated file)

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
    awk '($1 == "write" || $1 == "rewrite" || $1 == "read") && NF == 10 { print $1, $5; n++ } END { exit n == 0 }' "$log"
}

fio_mibs() {
    local log=$1 rw=
    shift
    [ "${1:-}" = --rewrite ] && { rw=--rewrite; shift; }
    timeout "$TO" "${BIND[@]}" fio --output-format=json --output="$log.json" "$@" >"$log" 2>&1 ||
        { echo "fio exited $?" >>"$log"; return 1; }
    python3 "$(dirname "${BASH_SOURCE[0]}")/fio_mibs.py" "$log.json" $rw
}
