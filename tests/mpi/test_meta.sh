#!/bin/bash
# Metadata phases (bonnie++ -n, mdtest): create, stat, read-files, delete;
# shared and per-rank directories, sequential and random order.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
PY=/usr/bin/python3
ops_in() { $PY -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(' '.join(str(int(x)) for x in f['summary']['ops']))" "$1"; }

for np in 1 4; do
    for dirs in shared per-rank; do
        for order in sequential random; do
            R=$T/m.$np.$dirs.$order.h5
            run_mpi $np 60 -d "$D" -p create,stat,read-files,delete -n 200 --dirs $dirs --order $order -o "$R"
            check "np=$np $dirs $order: exit 0" [ "$RC" -eq 0 ]
            check "np=$np $dirs $order: the directory is as it was" [ -z "$(ls -A "$D")" ]
            check "np=$np $dirs $order: 4 rows in files/s" [ "$(grep -cE '^(create|stat|read-files|delete) +0 .* files/s' "$T/out")" -eq 4 ]
            want="$((np * 200)) $((np * 200)) $((np * 200)) $((np * 200))"
            check "np=$np $dirs $order: ops in the results = files made ($want)" [ "$(ops_in "$R")" = "$want" ]
        done
    done
done

# Small content, read back; a repeated create without delete starts afresh.
run_mpi 2 60 -d "$D" -p create,read-files -n 50 --file-size 4k -i 3 --no-results
check "file-size 4k, 3 reps without delete: exit 0" [ "$RC" -eq 0 ]
check "... 100 files created per rep, 3 reps" grep -qE "^create +3 .* 100$" "$T/out"
check "... and nothing left" [ -z "$(ls -A "$D")" ]

# Data and metadata phases in one run.
run_mpi 2 60 -d "$D" -t 64k -b 256k -p write,read,create,stat,delete -n 20 --no-results
check "data then metadata phases: exit 0 and clean" [ "$RC" -eq 0 ]
check "data then metadata phases: nothing left" [ -z "$(ls -A "$D")" ]

# The stonewall for metadata (mdtest -W, with its wear-out): create stops at
# -D, every stream continues to the largest count any reached, and stat,
# read-files and delete work on exactly those files. A million files per
# stream cannot be made in 0.3 s here (that is 3.3 M creates/s per stream).
for order in sequential random; do
    R=$T/sw.$order.h5
    run_mpi 3 120 -d "$D" -p create,stat,read-files,delete -n 1000000 -D 0.3 --dirs per-rank --order $order -o "$R"
    check "stonewall $order: exit 0" [ "$RC" -eq 0 ]
    check "stonewall $order: the create's figure up to the stonewall is printed" \
        grep -qE "^ +[0-9.]+ +files/s +\(up to the stonewall: [0-9]+ files\)" "$T/out"
    check "stonewall $order: the directory is as it was" [ -z "$(ls -A "$D")" ]
    pycheck "stonewall $order: every stream made the same count, cut short; the later phases did exactly those" meta stonewall "$R"
done
# The mdtest-shaped report says it as mdtest does: a line per iteration with
# the streams' counts at the stonewall, and the "File create (stonewall)" rows.
run_mpi 2 120 -d "$D" -p create,delete -n 1000000 -D 0.3 -i 2 --format mdtest -o "$T/swmd.h5"
check "stonewall, --format mdtest: exit 0" [ "$RC" -eq 0 ]
pycheck "stonewall, --format mdtest: mdtest's stonewall lines and rows, the results file's counts" \
    meta mdtest_stonewall "$T/out" "$T/swmd.h5"
# A create that ends before the stonewall is not cut, and says nothing of one.
run_mpi 2 60 -d "$D" -p create,delete -n 50 -D 60 --no-results
check "stonewall not reached: exit 0" [ "$RC" -eq 0 ]
check "stonewall not reached: all 100 files made" grep -qE "^create +1 .* 100$" "$T/out"
check "stonewall not reached: no figure up to it" not grep -q "up to the stonewall" "$T/out"
# mdtest's own -W is the same stonewall.
run_mpi 2 120 mdtest -F -C -T -r -n 1000000 -W 1 -d "$D" -- --no-results --format text # the text report's stonewall line
check "mdtest -W 1: exit 0" [ "$RC" -eq 0 ]
check "mdtest -W 1: translated to -D 1" grep -q "equivalent: pfsbench -d $D -p create,stat,delete -n 1000000 -D 1" "$T/out"
check "mdtest -W 1: cut at the stonewall" grep -q "up to the stonewall: [0-9]* files" "$T/out"
check "mdtest -W 1: the directory is as it was" [ -z "$(ls -A "$D")" ]

# --api null: the phases "make" nothing, and no directory either.
run_mpi 2 60 -d "$D" -a null -p create,stat,read-files,delete -n 100 --no-results -q
check "--api null metadata phases: exit 0, nothing made" sh -c "[ $RC -eq 0 ] && [ -z \"\$(ls -A '$D')\" ]"
run_mpi 2 60 -d "$D" -a null -p mkdir,create,delete,rmdir --depth 2 -n 30 --no-results -q
check "--api null with a tree: exit 0, nothing made" sh -c "[ $RC -eq 0 ] && [ -z \"\$(ls -A '$D')\" ]"

# Order rules and a stale leftover.
run_refused 2 60 -d "$D" -p stat,create --no-results
check "stat before create: exit 2" [ "$RC" -eq 2 ]
mkdir "$D/pfsbench.stale.md"
run_mpi 2 60 -d "$D" -p create,delete --run-id stale --no-results
check "a leftover directory of that run id: exit 1, named with EEXIST" grep -q "mkdir $D/pfsbench.stale.md: File exists" "$T/err"
check "... and left alone" [ -d "$D/pfsbench.stale.md" ]
rmdir "$D/pfsbench.stale.md"

# Out of inodes on a tiny tmpfs: fails cleanly naming the rank; no hang, no leftovers.
run_in_tmpfs size=16m,nr_inodes=64 4 -p create,stat,delete -n 100 --dirs per-rank --no-results
check "out of inodes: exit 1" [ "$RC" -eq 1 ]
check "out of inodes: rank, host, path and errno named" \
    grep -qE "rank [0-3] on [^ ]+: create .*/pfsbench\.[^ ]+\.md/s[0-3]/f\.[0-3]\.[0-9]+: No space left on device \(errno 28\)" "$T/err"
check "out of inodes: every file and directory of the run removed" [ ! -s "$T/left" ]
finish
