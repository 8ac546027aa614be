#!/bin/bash
# Per-target figures on a real 3-brick GlusterFS distribute volume
# (tests/lib/glusterfs.sh) with one brick made slow: pfsbench writes and
# reads 12 files (2 ranks x 6 threads, 16 MiB each, --direct: every
# transfer reaches a brick, none is the client's cache; -k keeps them), and
# as soon as the files exist the brick holding most of them (the first of
# equals) is paused in bursts (its glusterfsd SIGSTOPped 200 ms of every
# 300 ms by a background loop, SIGCONTed at the end). Its second repetition runs wholly
# under the bursts (the check holds the loop's start against the phase's
# first open): 2 s between the repetitions (--rep-delay, untimed) give the
# loop time to find the files and the brick on a loaded machine (a CI run's
# began 21 ms after repetition 1 without it). The checks (targets_slow_checks.py) hold each brick's
# figures against the bricks' own directories: every brick's bytes are its
# files' (the files it holds x the block), they add up to the phase's; the
# slow brick, and it alone, is flagged in the second repetition's write and
# read, named in the text report's "slow target" line; every exemplar names
# the brick holding its file, and in the second repetition the slowest
# transfer (--exemplars 32) is on the slow brick. Exits 77 (skipped, said loudly) without
# root, FUSE or the gluster packages.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/glusterfs.sh"

RC=0
gl_start 3 || RC=$?
[ "$RC" -eq 77 ] && exit 77
[ "$RC" -eq 0 ] || { echo "FAIL - glusterfs: the volume did not start (rc $RC)"; exit 1; }
gl_mount "$T/m" || { echo "FAIL - glusterfs: the client did not mount"; exit 1; }
M=${GL_MOUNTS[0]}
mkdir "$M/d"

# slow_brick: waits (up to 20 s) for the run's 12 data files on the bricks,
# picks the brick holding most of them, writes its number and the instant
# its bursts begin to $T/slow, then pauses it 200 ms of every 300 ms until
# killed (its last act a SIGCONT).
slow_brick() {
    local k best=0 n most=-1 pid t_end=$((SECONDS + 20))
    while :; do
        n=0
        for k in 1 2 3; do
            n=$((n + $(find "${GL_BRICKS[k - 1]}/d" -maxdepth 1 -name 'pfsbench.*.[0-9]*' -type f ! -perm -1000 | wc -l)))
        done
        [ "$n" -ge 12 ] && break
        [ "$SECONDS" -ge "$t_end" ] && { echo "none" >"$T/slow"; return 1; }
        sleep 0.01
    done
    for k in 1 2 3; do
        n=$(find "${GL_BRICKS[k - 1]}/d" -maxdepth 1 -name 'pfsbench.*.[0-9]*' -type f ! -perm -1000 | wc -l)
        [ "$n" -gt "$most" ] && { most=$n; best=$k; }
    done
    pid=$(gl_brick_pid "$best") || { echo "none" >"$T/slow"; return 1; }
    trap 'kill -CONT "$pid" 2>/dev/null; exit 0' TERM
    echo "$best $(date +%s.%N)" >"$T/slow.new" && mv "$T/slow.new" "$T/slow"
    while :; do
        kill -STOP "$pid"
        sleep 0.2
        kill -CONT "$pid"
        sleep 0.1
    done
}
slow_brick &
SLOWER=$!

run_mpi 2 120 -d "$M/d" --threads 6 -b 16m -t 1m -p write,read -i 2 --rep-delay 2 --direct -k --exemplars 32 -o "$T/r.h5"
kill -TERM "$SLOWER" 2>/dev/null
wait "$SLOWER" 2>/dev/null
for k in 1 2 3; do p=$(gl_brick_pid "$k") && kill -CONT "$p" 2>/dev/null; done
check "write,read on the volume, one brick slowed: exit 0" [ "$RC" -eq 0 ]
read -r SLOW SLOW_T <"$T/slow" || SLOW=none
check "a brick holding files was slowed ($SLOW)" [ "$SLOW" != none ]
[ "$SLOW" = none ] && { cat "$T/err"; finish; exit 1; }
B="$GL_HOST:${GL_BRICKS[SLOW - 1]}"
echo "# slow brick $SLOW ($B); files per brick: $(for b in "${GL_BRICKS[@]}"; do
    find "$b/d" -maxdepth 1 -name 'pfsbench.*.[0-9]*' -type f ! -perm -1000 | wc -l; done | paste -sd' ')"
sed -n '/^phase  /,/^$/p' "$T/out" | grep -v '^warning' | sed 's/^/# /'
BRICKS=()
for b in "${GL_BRICKS[@]}"; do BRICKS+=("$GL_HOST:$b=$b/d"); done
pycheck "each brick's bytes are its files' and add up to the phase's" targets_slow bytes "$T/r.h5" 16777216 "${BRICKS[@]}"
pycheck "the bursts began before repetition 1" targets_slow began "$T/r.h5" "$SLOW_T"
pycheck "repetition 1: the slow brick alone is flagged, in write and read" targets_slow flagged "$T/r.h5" "$B"
pycheck "every exemplar names the brick holding its file" targets_slow exemplars "$T/r.h5" "${BRICKS[@]}"
pycheck "repetition 1: the slowest transfer is the slow brick's" targets_slow tail "$T/r.h5" "$B"
check "the report names the slow target" grep -q "slow target: .*${GL_BRICKS[SLOW - 1]##*/}: p99 " "$T/out"
finish
