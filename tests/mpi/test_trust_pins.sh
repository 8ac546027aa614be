#!/bin/bash
# Issue 25, items 1, 7 and 8: the directories a run works in are held open
# and every name of the run is resolved from them, so a directory swapped
# or repointed while a call is under way (the stall shim holds the call
# there) changes nothing outside the run; the run ends with exit 1 naming
# the directory, and its clean-up lists what it could not reach.
#   - pfsbench.ID.md swapped for a link to a kept run's directory during
#     the create: not one kept file is touched;
#   - a symlinked -d repointed during the create: the run's files leave the
#     old target, nothing lands in the new one;
#   - a --depth tree directory swapped for a link: nothing behind the link
#     is touched, the files this run cannot reach any more are named;
#   - a kept run's directory swapped for another holding the same names
#     during a delete over kept metadata: those are untouched;
#   - a blocked metadata call is named by its small file, not by a data
#     file the run never makes.
# Each failed on 4778fdb.
. "$(dirname "$0")/lib.sh"
: "${PFS_STALL_LIB:?set PFS_STALL_LIB to the stall shim (ctest does)}"
D=$T/data
mkdir -p "$D"
PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}$PFS_STALL_LIB"
# stalled NP CALL NAME ARGS...: pfsbench with rank 0's CALL on the name NAME
# held until $T/go exists (at most 60 s), in the background; PID in BG.
# NOFILE, when set, is the descriptor limit it runs under.
stalled() {
    local np=$1 call=$2 name=$3
    shift 3
    rm -f "$T/mark" "$T/go"
    env LD_PRELOAD="$PRELOAD" PFS_STALL_SECS=60 PFS_STALL_CALL="$call" PFS_STALL_NAME="$name" PFS_STALL_RANK=0 \
        PFS_STALL_MARK="$T/mark" PFS_STALL_UNTIL="$T/go" \
        sh -c 'ulimit -n "$1" && shift && exec "$@"' sh "${NOFILE:-$(ulimit -n)}" \
        timeout 120 mpirun -np "$np" $(one_rank_exit "$np") --oversubscribe --bind-to none "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" &
    BG=$!
}
wait_rc() { RC=0; wait "$BG" || RC=$?; }
wait_mark() { for _ in $(seq 600); do [ -e "$T/mark" ] && return 0; sleep 0.05; done; return 1; }
release() { : >"$T/go"; }
# what a directory holds: names and contents, one line per file
inventory() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0r sha256sum); }

# 1. The run's metadata directory swapped for a link to a kept run's
# directory while rank 0's create of f.0.50 is under way.
run_mpi 2 60 -d "$D" -p create -n 100 --file-size 16 -k --run-id kept$$ --no-results
K=$D/pfsbench.kept$$.md
check "kept run: 200 files" [ "$(find "$K" -type f | wc -l)" -eq 200 ]
inventory "$K" >"$T/kept.before"
stalled 2 create f.0.50 -d "$D" -p create,stat,delete -n 100 --file-size 16 --run-id swap$$ --no-results
wait_mark
mv "$D/pfsbench.swap$$.md" "$T/moved"
ln -s "$K" "$D/pfsbench.swap$$.md"
release
wait_rc
check "md dir swapped for a link: exit 1" [ "$RC" -eq 1 ]
check "md dir swapped for a link: not one of the kept run's files is gone or changed" \
    cmp -s "$T/kept.before" <(inventory "$K")
check "md dir swapped for a link: the link is left as it is" [ "$(readlink "$D/pfsbench.swap$$.md")" = "$K" ]
check "md dir swapped for a link: the directory is named" \
    grep -q "the directory $D/pfsbench.swap$$.md: no longer the directory this run made: moved or replaced during the run (its name now leads to a symbolic link)" "$T/err"
check "md dir swapped for a link: the directory it left is listed, where it is now" \
    grep -q "left behind: the directory this run made as $D/pfsbench.swap$$.md, moved or replaced during the run; it is now $T/moved, emptied through the run's own descriptor" "$T/err"
check "md dir swapped for a link: its own files were removed through its descriptor" [ -z "$(ls -A "$T/moved")" ]
rm -f "$D/pfsbench.swap$$.md"
rmdir "$T/moved"

# 2. A symlinked -d repointed while the create of f.0.10 is under way: the
# run's data and small files were made in the old target, stay there
# until its clean-up removes them through its descriptors; the new target
# gets nothing.
mkdir -p "$T/a" "$T/b"
echo untouched >"$T/b/victim"
ln -s "$T/a" "$T/link"
stalled 2 create f.0.10 -d "$T/link" -t 64k -b 256k -p write,create,stat,delete,read -n 40 --run-id rep$$ --no-results
wait_mark
ln -sfn "$T/b" "$T/link"
release
wait_rc
check "-d repointed: exit 1" [ "$RC" -eq 1 ]
check "-d repointed: named" \
    grep -q "the directory $T/link: no longer the directory this run opened as -d: moved or replaced during the run (its name now leads to another directory)" "$T/err"
check "-d repointed: the old target is left as it was (its files removed)" [ -z "$(ls -A "$T/a")" ]
check "-d repointed: the new target holds only what it held" [ "$(ls -A "$T/b")" = victim ]
rm -rf "$T/a" "$T/b" "$T/link"

# 3. A --depth tree's directory swapped for a link while the create of
# f.0.10 (in node d.0.1) is under way; behind the link, files named like
# the run's. The run holds the tree's directories open (as many as its
# descriptor limit allows): the creates go on in the one it made, the
# check before the next phase ends the run. Under a limit too low to hold
# any (NOFILE=256), each call opens its directory beneath the stream's and
# meets the link: that create fails, and the files behind the moved
# directory, out of reach now, are listed.
tree_case() {
    local what=$1
    stalled 1 create f.0.10 -d "$D" -p mkdir,create,delete,rmdir --depth 1 --branch 2 -n 30 --dirs per-rank \
        --run-id tree$$ --no-results
    wait_mark
    S=$D/pfsbench.tree$$.md/s0
    mv "$S/d.0.1" "$T/aside"
    mkdir "$T/victim"
    for i in 1 4 7 10 13 16; do echo precious >"$T/victim/f.0.$i"; done
    inventory "$T/victim" >"$T/victim.before"
    ln -s "$T/victim" "$S/d.0.1"
    release
    wait_rc
    check "$what: exit 1" [ "$RC" -eq 1 ]
    check "$what: the files behind the link are untouched" cmp -s "$T/victim.before" <(inventory "$T/victim")
}
tree_case "tree dir swapped for a link"
check "tree dir swapped for a link: the directory is named" \
    grep -q "the directory $S/d.0.1: no longer the directory this run made: moved or replaced during the run (its name now leads to a symbolic link)" "$T/err"
check "tree dir swapped for a link: the directory it left is listed, where it is now, emptied" \
    grep -q "left behind: the directory this run made as $S/d.0.1, moved or replaced during the run; it is now $T/aside, emptied" "$T/err"
check "tree dir swapped for a link: and it is empty" [ -z "$(ls -A "$T/aside")" ]
rm -rf "$D"/pfsbench.* "$T/aside" "$T/victim"
NOFILE=256 tree_case "tree dir swapped for a link, no directory held"
# f.0.10's create had its directory open before the swap: it lands in the
# moved directory; f.0.13, the next in d.0.1, meets the link.
check "tree dir swapped for a link, no directory held: the next create there is named, and why" \
    grep -q "create $S/d.0.1/f.0.13: a directory on its way is a symbolic link" "$T/err"
check "tree dir swapped for a link, no directory held: the files it cannot reach are listed as left" \
    grep -q "left behind 4 small files in $S: a directory on its way is a symbolic link" "$T/err"
check "tree dir swapped for a link, no directory held: and they are there" \
    [ "$(ls "$T/aside" | sort -V | tr '\n' ' ')" = "f.0.1 f.0.4 f.0.7 f.0.10 " ]
rm -rf "$D"/pfsbench.* "$T/aside" "$T/victim"

# 4. Over kept metadata: its directory swapped, during a delete, for
# another holding files of the same names.
run_mpi 1 60 -d "$D" -p create -n 60 -k --run-id kd$$ --no-results -q
KD=$D/pfsbench.kd$$.md
stalled 1 unlink f.0.20 -d "$D" -p delete -n 60 --run-id kd$$ --no-results
wait_mark
mv "$KD" "$T/kmoved"
mkdir "$KD"
for i in $(seq 0 59); do echo precious >"$KD/f.0.$i"; done
release
wait_rc
check "kept dir swapped during a delete: exit 1, named" \
    sh -c "[ $RC -eq 1 ] && grep -q 'the directory $KD: no longer the directory this run checked' '$T/err'"
check "kept dir swapped during a delete: the 60 files under its name are untouched" \
    [ "$(grep -lx precious "$KD"/f.0.* | wc -l)" -eq 60 ]
check "kept dir swapped during a delete: the kept files went, through the descriptor" [ -z "$(ls -A "$T/kmoved")" ]
rm -rf "$KD" "$T/kmoved"

# 5. A metadata call blocked past --timeout is named by its small file.
stalled 2 create f.0.5 -d "$D" -p create,delete -n 20 --timeout 2 --run-id wd$$ --no-results
wait_rc
check "blocked create: the watchdog ends the run (exit 3)" [ "$RC" -eq 3 ]
check "blocked create: it names the small file, not a data file" \
    grep -qE "watchdog: rank 0 on [^ ]+ blocked [0-9.]+ s in create $D/pfsbench.wd$$.md/f.0.5" "$T/err"
pkill -KILL -f "^$PFSBENCH -d $D" || true
finish
