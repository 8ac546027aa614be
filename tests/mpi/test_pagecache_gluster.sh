#!/bin/bash
# The page cache, measured on a real distributed file system: a 2-brick
# GlusterFS volume (tests/lib/glusterfs.sh) mounted by two FUSE clients,
# each with its own page cache. A kept write through client A; then reads
# of its files: through client B (a second client: nothing of it cached,
# near 0%), through A (the writer's cache holds what it wrote, near 100%),
# through B again (now B's cache holds it), and through A after
# --drop-caches (near 0%). Exits 77 (skipped, said loudly) without root,
# FUSE or the gluster packages.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/glusterfs.sh"
CHECK="$PY $PFS_TESTS/mpi/pagecache_check.py"
R=$T/r.h5

RC=0
gl_start 2 || RC=$?
[ "$RC" -eq 77 ] && exit 77
[ "$RC" -eq 0 ] || { echo "FAIL - glusterfs: the volume did not start (rc $RC)"; exit 1; }
gl_mount "$T/c" 2 || { echo "FAIL - glusterfs: the clients did not mount"; exit 1; }
A=${GL_MOUNTS[0]}/pc B=${GL_MOUNTS[1]}/pc
mkdir -p "$A"

run_mpi 2 120 -d "$A" -t 1m -b 16m -p write -k --run-id glpc -o "$R"
check "write through A, kept: exit 0" [ "$RC" -eq 0 ]
check "write through A: probed for dirty pages" $CHECK "$R" 0 dirty ge 0 --method cachestat
check "the same files through B" [ -f "$B/pfsbench.glpc.0" ] && [ -f "$B/pfsbench.glpc.1" ]

run_mpi 2 120 -d "$B" -t 1m -b 16m -p read --run-id glpc -o "$R"
check "read through B: exit 0" [ "$RC" -eq 0 ]
check "read through B, a second client: <= 5% resident" $CHECK "$R" 0 resident le 0.05 --method cachestat
check "read through B: no read page-cache warning" not grep -q "^warning      read 0: .*page cache" "$T/out"

run_mpi 2 120 -d "$A" -t 1m -b 16m -p read --run-id glpc -o "$R"
check "read through A, the writer: >= 90% resident" $CHECK "$R" 0 resident ge 0.9 --method cachestat
check "read through A: the warning names the node's cache" grep -qE "^warning      read 0: (9[0-9]|100)% of the bytes were in node 0's page cache before the phase" "$T/out"

run_mpi 2 120 -d "$B" -t 1m -b 16m -p read --run-id glpc -o "$R"
check "read through B again: now >= 90% resident in B's cache" $CHECK "$R" 0 resident ge 0.9 --method cachestat

run_mpi 2 120 -d "$A" -t 1m -b 16m -p read --run-id glpc --drop-caches -o "$R"
check "read through A after --drop-caches: <= 5% resident" $CHECK "$R" 0 resident le 0.05 --method cachestat

rm -f "$A"/pfsbench.glpc.*
finish
