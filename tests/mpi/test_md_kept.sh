#!/bin/bash
# Issue 20: create-only, stat-only and remove-only runs over metadata an
# earlier run kept (mdtest's -C, -T, -r in separate runs): -k keeps the
# files, the tree and the directories; --run-id works on them; every stream
# first checks that they are there and its own; what a run over them did not
# make stays unless its phases remove it.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
N=300
TREE="--depth 2 --branch 2 --dirs per-rank"
id=kept$$

# --- mkdir and create, kept
run_mpi 2 60 -d "$D" -p mkdir,create -n $N $TREE -k --run-id $id --no-results
check "create-only: exit 0" [ "$RC" -eq 0 ]
check "create-only: says what it kept and how to reuse it" \
    grep -qF "kept metadata $D/pfsbench.$id.md/ (work on it again with --run-id $id -n $N" "$T/out"
check "create-only: 2 x $N files kept" [ "$(find "$D/pfsbench.$id.md" -type f | wc -l)" -eq $((2 * N)) ]
check "create-only: 2 trees of 6 directories kept" [ "$(find "$D/pfsbench.$id.md" -mindepth 2 -type d | wc -l)" -eq 12 ]
check "create-only: the run's lock is gone" [ ! -e "$D/pfsbench.$id.lock" ]

# --- stat, read-files and find over them: untouched; find's "new" is the kept run's start
run_mpi 2 60 -d "$D" -p stat,read-files,find -n $N $TREE --run-id $id --no-results
check "stat-only: exit 0" [ "$RC" -eq 0 ]
check "stat-only: find examined every kept file, and matched those named *01* (101, 201 per stream)" \
    grep -qE "^ +$((2 * N)) files examined, 4 matched" "$T/out"
check "stat-only: nothing removed" [ "$(find "$D/pfsbench.$id.md" -type f | wc -l)" -eq $((2 * N)) ]
check "stat-only: no 'kept' line (nothing kept by this run)" not grep -q "^kept" "$T/out"

# --- options that do not match the kept run: named before any phase, from
# its status (pfsbench.ID.kept: every stream's count of files)
check "create-only: its status says what every stream created" \
    grep -qxF "files 300" "$D/pfsbench.$id.kept"
run_refused 2 60 -d "$D" -p stat -n $((N + 1)) $TREE --run-id $id --no-results
check "-n larger than kept: exit 2, the -n to give named" \
    sh -c "[ $RC -eq 2 ] && grep -q 'run $id kept $N small files in each of its 2 streams .*; give -n $N to work on exactly them' '$T/err'"
run_refused 2 60 -d "$D" -p delete -n $N $TREE --run-id $id -i 2 --no-results
check "a repeated delete of kept files: exit 2" [ "$RC" -eq 2 ]
check "... says the second repetition would find none" grep -q "the second repetition would find none" "$T/err"
run_refused 2 60 -d "$D" -p mkdir,stat -n $N $TREE --run-id $id --no-results
check "mkdir over kept files: exit 2" [ "$RC" -eq 2 ]
check "still all there" [ "$(find "$D/pfsbench.$id.md" -type f | wc -l)" -eq $((2 * N)) ]

# --- more kept than the options say: a file past -n, a stream past ranks x threads
run_refused 2 60 -d "$D" -p stat -n $((N - 1)) $TREE --run-id $id --no-results
check "-n smaller than kept: exit 2, named" \
    sh -c "[ $RC -eq 2 ] && grep -q 'give -n $N to work on exactly them' '$T/err'"
run_mpi 1 60 -d "$D" -p stat -n $N $TREE --run-id $id --no-results
check "fewer streams than kept: exit 2, named" \
    sh -c "[ $RC -eq 2 ] && grep -q 'this run has 1 stream (1 rank x 1 thread); run it with 2 streams' '$T/err'"
# A tree kept without a status (an older pfsbench's): -n as given, the set-up's probe checks it
mv "$D/pfsbench.$id.kept" "$T/status"
run_mpi 2 60 -d "$D" -p stat -n $((N + 1)) $TREE --run-id $id --no-results
check "no status, -n larger than kept: exit 1, the missing file and the options to give named" \
    sh -c "[ $RC -eq 1 ] && grep -qE 'the kept metadata of run $id: .*/f\.[01]\.$N: No such file or directory; give the -n, --depth' '$T/err'"
run_mpi 1 60 -d "$D" -p stat -n $N $TREE --run-id $id --no-results
check "no status, fewer streams than kept: exit 1, named" \
    sh -c "[ $RC -eq 1 ] && grep -q 'the kept run had more streams than this one' '$T/err'"
mv "$T/status" "$D/pfsbench.$id.kept"
# --- a link planted in the middle of the kept tree: refused before any phase, nothing behind it touched
mid=$(find "$D/pfsbench.$id.md/s1" -mindepth 2 -maxdepth 2 -type d | sort | head -1)
mkdir "$T/victim" && mv "$mid"/* "$T/victim/" && rmdir "$mid" && ln -s "$T/victim" "$mid"
nv=$(ls "$T/victim" | wc -l)
run_mpi 2 60 -d "$D" -p delete,rmdir -n $N $TREE --run-id $id --no-results
check "a link inside the kept tree: exit 1, named" \
    sh -c "[ $RC -eq 1 ] && grep -q '$mid: not a directory' '$T/err'"
check "... the $nv files behind it untouched" [ "$(ls "$T/victim" | wc -l)" -eq "$nv" ]
rm "$mid" && mkdir "$mid" && mv "$T/victim"/* "$mid/" && chmod 0755 "$mid"
chmod g+w "$D/pfsbench.$id.md/s0"
run_mpi 2 60 -d "$D" -p stat -n $N $TREE --run-id $id --no-results
check "a kept directory its group can write: exit 1, named" \
    sh -c "[ $RC -eq 1 ] && grep -q 's0: writable by its group or others' '$T/err'"
chmod g-w "$D/pfsbench.$id.md/s0"
run_refused 2 60 -d "$D" -p create -n 100 -D 5 --order random -k --no-results
check "-k with a stonewalled create in random order: exit 2" [ "$RC" -eq 2 ]

# --- remove-only: delete and rmdir empty everything, then the directories go
run_mpi 2 60 -d "$D" -p delete,rmdir -n $N $TREE --run-id $id --no-results
check "remove-only: exit 0" [ "$RC" -eq 0 ]
check "remove-only: the directory is as before the first run" [ -z "$(ls -A "$D")" ]

# --- mdtest's one shared tree (--dirs shared): kept, stat'ed, removed
run_mpi 2 60 -d "$D" -p mkdir,create -n 40 --depth 1 --branch 3 -k --run-id t$id --no-results -q
check "shared tree kept: exit 0, 3 directories, 80 files" \
    sh -c "[ $RC -eq 0 ] && [ \"\$(find '$D/pfsbench.t$id.md' -mindepth 1 -type d | wc -l)\" -eq 3 ] && [ \"\$(find '$D/pfsbench.t$id.md' -type f | wc -l)\" -eq 80 ]"
run_mpi 2 60 -d "$D" -p stat-dirs,stat,delete,rmdir -n 40 --depth 1 --branch 3 --run-id t$id --no-results
check "shared tree over the kept one: exit 0, all gone" sh -c "[ $RC -eq 0 ] && [ -z \"\$(ls -A '$D')\" ]"
check "shared tree: stat-dirs counts its 3 directories once" grep -qE "^stat-dirs +1 .* 3$" "$T/out"

# --- not its own: a link in the kept run's place, or another user's directory
run_mpi 1 60 -d "$D" -p create -n 20 -k --run-id l$id --no-results -q
mkdir "$T/elsewhere"
mv "$D/pfsbench.l$id.md" "$T/elsewhere/victim"
ln -s "$T/elsewhere/victim" "$D/pfsbench.l$id.md"
run_mpi 1 60 -d "$D" -p delete -n 20 --run-id l$id --no-results
check "a link in the kept directory's place: exit 1" [ "$RC" -eq 1 ]
check "... named: not a directory" grep -q "the kept metadata of run l$id: $D/pfsbench.l$id.md: not a directory" "$T/err"
check "... the files behind the link untouched" [ "$(ls "$T/elsewhere/victim" | wc -l)" -eq 20 ]
check "... the link untouched" [ -L "$D/pfsbench.l$id.md" ]
rm "$D/pfsbench.l$id.md"
mv "$T/elsewhere/victim" "$D/pfsbench.l$id.md"
if chown nobody "$D/pfsbench.l$id.md" 2>/dev/null; then
    run_mpi 1 60 -d "$D" -p delete -n 20 --run-id l$id --no-results
    check "another user's directory: exit 1, named" \
        sh -c "[ $RC -eq 1 ] && grep -q 'owned by uid [0-9]*, not this user' '$T/err'"
    check "... its files untouched" [ "$(ls "$D/pfsbench.l$id.md" | wc -l)" -eq 20 ]
    chown "$(id -u)" "$D/pfsbench.l$id.md"
fi
# a create into a kept run's directory without a tree is a fresh create: refused, nothing touched
run_mpi 1 60 -d "$D" -p create -n 20 --run-id l$id --no-results
check "create with a kept run's id and no tree: exit 1 (mkdir: File exists)" \
    sh -c "[ $RC -eq 1 ] && grep -q 'mkdir $D/pfsbench.l$id.md: File exists' '$T/err'"
check "... the kept files untouched" [ "$(ls "$D/pfsbench.l$id.md" | wc -l)" -eq 20 ]
run_mpi 1 60 -d "$D" -p delete -n 20 --run-id l$id --no-results -q
check "delete-only of the shared directory: exit 0, all gone" sh -c "[ $RC -eq 0 ] && [ -z \"\$(ls -A '$D')\" ]"

# --- the same through mdtest's own options: -C -K, then -T, then -r
run_mpi 2 60 mdtest -C -F -u -n 40 -K -d "$D" -- --run-id m$id --no-results
check "mdtest -C -K: exit 0, kept" sh -c "[ $RC -eq 0 ] && [ \"\$(find '$D/pfsbench.m$id.md' -type f | wc -l)\" -eq 80 ]"
run_mpi 2 60 mdtest -T -F -u -n 40 -d "$D" -- --run-id m$id --no-results
check "mdtest -T over them: exit 0" [ "$RC" -eq 0 ]
check "mdtest -T: translated to a stat-only run" grep -q "equivalent: pfsbench -d $D -p stat -n 40 --dirs per-rank --format mdtest --run-id m$id" "$T/out"
run_refused 2 60 mdtest -T -F -u -n 40 -d "$D"
check "mdtest -T without a run id: the tree a -C without -r leaves in -d, none here: exit 2, says so" \
    sh -c "[ $RC -eq 2 ] && grep -q -- '--run-id mdtest: no run kept metadata in $D' '$T/err'"
run_mpi 2 60 mdtest -r -F -u -n 40 -d "$D" -- --run-id m$id --no-results
check "mdtest -r: exit 0, all gone" sh -c "[ $RC -eq 0 ] && [ -z \"\$(ls -A '$D')\" ]"

# --- another --file-size than the kept run's: stat, read-files and find check each file's size
# (find matched 0 of them, silently, on 4778fdb): refused before anything is made, naming the size
run_mpi 1 60 -d "$D" -p create -n 30 --file-size 100 -k --run-id fs$id --no-results -q
run_mpi 1 60 -d "$D" -p find -n 30 --run-id fs$id -o "$T/fs.h5"
check "find over kept files with another --file-size: exit 2, the kept run's size named" \
    sh -c "[ $RC -eq 2 ] && grep -q -- '--file-size 0 does not match the kept metadata of run fs$id: its files are 100 bytes' '$T/err'"
check "... no results file, no lock left" sh -c "[ ! -e '$T/fs.h5' ] && [ ! -e '$D/pfsbench.fs$id.lock' ]"
run_mpi 1 60 -d "$D" -p find,delete -n 30 --file-size 100 --run-id fs$id --no-results
check "... with the kept run's --file-size: find examines all 30, then they go" \
    sh -c "[ $RC -eq 0 ] && grep -qE '^ +30 files examined' '$T/out' && [ -z \"\$(ls -A '$D')\" ]"

# --- a stonewalled create keeps fewer files than -n: the message names the -n to give
run_mpi 2 120 -d "$D" -p create -n 1000000 -D 0.3 -k --run-id s$id --no-results
kn=$(sed -n "s/^kept metadata .* -n \([0-9]*\),.*/\1/p" "$T/out")
check "stonewalled create kept: exit 0, -n named ($kn)" sh -c "[ $RC -eq 0 ] && [ -n '$kn' ] && [ '$kn' -lt 1000000 ]"
run_mpi 2 60 -d "$D" -p stat,delete -n "$kn" --run-id s$id --no-results
check "... a run with that -n works on all of them and removes them" sh -c "[ $RC -eq 0 ] && [ -z \"\$(ls -A '$D')\" ]"

# --- ... and its status says what every stream made (the wear-out's count), so later runs
# given the create's own -n (IO500's sections: mdtest -T, -E, -r with the -n of the -C) work on
# exactly those files, say so once, and the delete leaves nothing, the status included
run_mpi 2 120 -d "$D" -p create -n 1000000 -D 0.05 -k --run-id w$id --no-results
kw=$(sed -n "s/^kept metadata .* -n \([0-9]*\),.*/\1/p" "$T/out")
check "stonewalled create kept: exit 0, cut short ($kw files per stream)" \
    sh -c "[ $RC -eq 0 ] && [ -n '$kw' ] && [ '$kw' -lt 1000000 ]"
check "... its status: -n 1000000 asked, $kw made by every stream" \
    sh -c "grep -qxF 'files_asked 1000000' '$D/pfsbench.w$id.kept' && grep -qxF 'files $kw' '$D/pfsbench.w$id.kept'"
check "... 2 x $kw files in its tree" [ "$(find "$D/pfsbench.w$id.md" -type f | wc -l)" -eq $((2 * kw)) ]
run_mpi 2 60 -d "$D" -p stat,read-files,find -n 1000000 --run-id w$id -o "$T/w.h5"
check "stat, read-files, find with the create's -n: exit 0 (got $RC)" [ "$RC" -eq 0 ]
check "... says once that it works on the $kw files per stream the status names" \
    [ "$(grep -c "create was stopped by its stonewall: it kept $kw small files per stream, not -n 1000000" "$T/out")" -eq 1 ]
pycheck "... on exactly the 2 x $kw files: stat, read-files and find's ops" md_kept ops "$T/w.h5" \
    stat=$((2 * kw)) read-files=$((2 * kw)) find=$((2 * kw))
run_refused 2 60 -d "$D" -p stat -n 999999 --run-id w$id --no-results
check "another -n: exit 2, both -n named" \
    sh -c "[ $RC -eq 2 ] && grep -q 'give -n 1000000 (the kept run.s) or -n $kw to work on exactly them' '$T/err'"
run_refused 2 60 -d "$D" -p create -n 10 -k --run-id w$id --no-results
check "a kept create under the run id of a status: exit 2, nothing touched" \
    sh -c "[ $RC -eq 2 ] && grep -q 'needs a run id of its own' '$T/err' && [ \"\$(find '$D/pfsbench.w$id.md' -type f | wc -l)\" -eq $((2 * kw)) ]"
run_mpi 2 60 -d "$D" -p delete -n 1000000 --run-id w$id -o "$T/w.h5"
check "delete with the create's -n: exit 0 (got $RC)" [ "$RC" -eq 0 ]
pycheck "... removed exactly the 2 x $kw files" md_kept ops "$T/w.h5" delete=$((2 * kw))
check "... the tree and its status are gone: the directory is empty" [ -z "$(ls -A "$D")" ]
finish
