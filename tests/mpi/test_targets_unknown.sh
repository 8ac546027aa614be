#!/bin/bash
# Storage targets where no provider can tell them: a run on an overlay
# mount (a private mount namespace; no provider serves overlay) goes on,
# says why once (one warning, from rank 0, though 4 streams on 2 ranks
# looked up 8 files) and puts every byte on the one target "unknown", which
# the exemplars name and which is never flagged slow; a run on the null
# backend (no files) has the same one target and no warning. Exits 77
# (skipped, said loudly) where overlay cannot be mounted.
. "$PFS_TESTS/mpi/lib.sh"

mkdir -p "$T/lower" "$T/upper" "$T/work" "$T/ov"
if ! unshare --mount --propagation private sh -c \
    'mount -t overlay pfstest -o "lowerdir=$1,upperdir=$2,workdir=$3" "$4"' sh "$T/lower" "$T/upper" "$T/work" "$T/ov" \
    2>"$T/err"; then
    echo "SKIP: overlay cannot be mounted here: $(cat "$T/err")" >&2
    exit 77
fi
RC=0
timeout 120 unshare --mount --propagation private sh -c \
    'mount -t overlay pfstest -o "lowerdir=$1,upperdir=$2,workdir=$3" "$4" || exit 99; shift 4
     mpirun -np 2 --oversubscribe --bind-to none "$@"' \
    sh "$T/lower" "$T/upper" "$T/work" "$T/ov" "$PFSBENCH" -d "$T/ov" --threads 2 -b 1m -t 64k -p write,read \
    -o "$T/ov.h5" >"$T/out" 2>"$T/err" || RC=$?
check "overlay: exit 0" [ "$RC" -eq 0 ]
check "overlay: why, said once" [ "$(grep -c "storage targets unknown: no target provider for file-system type 'overlay'" \
    "$T/out")" -eq 1 ]
pycheck "overlay: every byte on the one target unknown, never slow; the exemplars name it" targets_unknown \
    unknown "$T/ov.h5"

run_mpi 2 60 -a null -d "$T" --threads 2 -b 1m -t 64k -p write,read -o "$T/null.h5"
check "null backend: exit 0" [ "$RC" -eq 0 ]
check "null backend: no word on the targets" not grep -q "storage targets" "$T/out" "$T/err"
pycheck "null backend: every byte on the one target unknown" targets_unknown unknown "$T/null.h5"
finish
