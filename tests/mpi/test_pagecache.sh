#!/bin/bash
# The page cache, measured (cachestat, else mincore, else unknown): before a
# read, how much of what each stream reads was in its node's page cache;
# after a write without -e, how much was still dirty. Checked against what
# the test set up, on ext4 (a directory under /tmp): a read right after the
# write finds it cached (near 100%), one after --drop-caches does not (near
# 0%); --direct says "bypassed"; tmpfs is named as memory; with -C across
# fake nodes of one machine (one kernel, one page cache) the data is still
# cached and the warning says so; the fallbacks (cachestat taken away, then
# mincore too) measure the same or fall back to the size rule.
#
# Races: another test's --drop-caches empties the machine's cache; only in
# the milliseconds between this run's write and its read could it lower a
# "near 100%" figure.
. "$(dirname "$0")/lib.sh"
: "${PFS_NOCACHE_LIB:?set PFS_NOCACHE_LIB to the nocache shim (ctest does)}"
CHECK="$PY $(dirname "$0")/pagecache_check.py"
D=$T/data
R=$T/r.h5
mkdir -p "$D"
[ "$(stat -f -c %T "$D")" = ext2/ext3 ] || { echo "SKIP: $D is not ext4 ($(stat -f -c %T "$D"))"; exit 77; }

# --- ext4, a read right after the write: near 100% resident, named in the warning
run_mpi 2 60 -d "$D" -t 1m -b 16m -p write,read -o "$R" -v
check "ext4 cached: exit 0" [ "$RC" -eq 0 ]
check "ext4 cached: the read's bytes were resident (>= 90%, every node)" $CHECK "$R" 1 resident ge 0.9 --method cachestat
check "ext4 cached: the write was probed for dirty pages" $CHECK "$R" 0 dirty ge 0 --method cachestat
check "ext4 cached: the row's line (-v)" grep -qE "^ +page cache: (9[0-9]|100)\.[0-9]% of 32\.0 MiB resident before the read \(cachestat\)$" "$T/out"
check "ext4 cached: the warning, measured" grep -qE "^warning      read 0: (9[0-9]|100)% of the bytes were in node 0's page cache before the phase \(host [^,]+, cachestat\); use --direct, --drop-caches or -C across nodes$" "$T/out"
check "ext4 cached: no size rule any more" not grep -q "less than twice the node's" "$T/out"

# --- --drop-caches: near 0%, no line, no warning
run_mpi 2 60 -d "$D" -t 1m -b 16m -p write,read --drop-caches -o "$R"
check "ext4 dropped: exit 0" [ "$RC" -eq 0 ]
check "ext4 dropped: the read's bytes were not resident (<= 5%, every node)" $CHECK "$R" 1 resident le 0.05 --method cachestat
check "ext4 dropped: no line" not grep -q 'resident before the read' "$T/out"
check "ext4 dropped: no read page-cache warning" not grep -q "^warning      read 0: .*page cache" "$T/out"

# --- -e: nothing dirty to look at: not probed; JSON and CSV carry the same figures as the file
run_mpi 2 60 -d "$D" -t 1m -b 16m -p write,read -e --format json -o "$R"
check "json: exit 0" [ "$RC" -eq 0 ]
check "-e: the write is not probed" $CHECK "$R" 0 dirty --method ""
check "json: the figures the file holds" $PY "$(dirname "$0")/pagecache_outputs.py" json "$T/out" "$R"
run_mpi 2 60 -d "$D" -t 1m -b 16m -p write,read --format csv -o "$R"
check "csv: the figures the file holds" $PY "$(dirname "$0")/pagecache_outputs.py" csv "$T/out" "$R"

# --- --direct: bypassed, no figure, no warning
run_mpi 2 60 -d "$D" -t 1m -b 16m -p write,read --direct -o "$R"
check "direct: exit 0" [ "$RC" -eq 0 ]
check "direct: the read says bypassed" $CHECK "$R" 1 resident --method bypassed
check "direct: the write says bypassed" $CHECK "$R" 0 dirty --method bypassed
check "direct: no page-cache line or warning" not grep -q "page cache" "$T/out"

# --- a kept run read again later: the cache the write left, measured (a reread's truth)
run_mpi 2 60 -d "$D" -t 1m -b 16m -p write -k --no-results
id=$(sed -n 's/.*read them again with --run-id \([A-Za-z0-9_-]*\)).*/\1/p' "$T/out")
run_mpi 2 60 -d "$D" -t 1m -b 16m -p read --run-id "$id" -o "$R"
check "kept: the later read found the kept files cached" $CHECK "$R" 0 resident ge 0.9 --method cachestat
rm -f "$D"/pfsbench.*

# --- fallbacks: without cachestat, mincore measures the same; without either, unknown and the size rule
nocache() {
    local mode=$1
    shift
    RC=0
    env LD_PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_NOCACHE_LIB" PFS_NOCACHE="$mode" \
        timeout 60 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
nocache cachestat -d "$D" -t 1m -b 16m -p write,read -o "$R"
check "no cachestat: exit 0" [ "$RC" -eq 0 ]
check "no cachestat: mincore measures the read (>= 90%)" $CHECK "$R" 1 resident ge 0.9 --method mincore
check "no cachestat: dirty pages cannot be told" $CHECK "$R" 0 dirty --method unknown
nocache cachestat -d "$D" -t 1m -b 16m -p write,read --drop-caches -o "$R"
check "no cachestat, dropped: mincore measures <= 5%" $CHECK "$R" 1 resident le 0.05 --method mincore
nocache all -d "$D" -t 1m -b 16m -p write,read -o "$R"
check "neither: exit 0" [ "$RC" -eq 0 ]
check "neither: unknown" $CHECK "$R" 1 resident --method unknown
check "neither: the size rule stands in, saying so" grep -q "^warning      read 0: the page cache could not be measured here (neither cachestat nor mincore), and its reads may be served from it: 32 MiB per node is less than twice the node's" "$T/out"

# --- tmpfs: named as memory
if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
    S=/dev/shm/pfstest_pc.$$
    mkdir -p "$S"
    run_mpi 2 60 -d "$S" -t 1m -b 16m -p write,read --drop-caches -o "$R"
    check "tmpfs: exit 0" [ "$RC" -eq 0 ]
    check "tmpfs: every byte resident, --drop-caches or not" $CHECK "$R" 1 resident ge 1.0 --method cachestat
    check "tmpfs: named as a file system in memory" grep -q "^warning      read 0: $S is tmpfs, a file system in memory: every byte read comes from memory (100% resident), and --direct or --drop-caches cannot change that" "$T/out"
    rm -rf "$S"
fi

# --- -C across fake nodes of one machine: one kernel, so still cached; the drop empties it
. "$PFS_TESTS/lib/fakenodes.sh"
fn() {
    RC=0
    FAKENODES_DIR=$T fakenodes_run 2 1 90 "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" || RC=$?
}
fn -d "$D" -t 1m -b 16m -p write,read -C -o "$R"
check "fake nodes -C: exit 0" [ "$RC" -eq 0 ]
check "fake nodes -C: each node read another's data, still cached (one page cache)" $CHECK "$R" 1 resident ge 0.9 --method cachestat
check "fake nodes -C: the warning names the node and leaves -C out" grep -qE "^warning      read 0: (9[0-9]|100)% of the bytes were in node [01]'s page cache before the phase \(host node[12], cachestat\), and 2 of 2 nodes had 10% or more; use --direct or --drop-caches$" "$T/out"
fn -d "$D" -t 1m -b 16m -p write,read -C --drop-caches -o "$R"
check "fake nodes -C --drop-caches: <= 5% on every node" $CHECK "$R" 1 resident le 0.05 --method cachestat
finish
