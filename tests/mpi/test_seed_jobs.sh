#!/bin/bash
# The seeds' experiments as job files (jobs/*.job, issue 20), each run at a
# small size through its ${PFS_...} variables in one MPI job: the runs the
# seed's table needs are there, labelled as docs/recipes.md says, and the
# tables come out of pfs-compare. Also ${NAME} expansion: a name without a
# default that is not set is refused with its line, exit 2, nothing made.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
JOBS=$PFS_SRC/jobs
labels() { "$PY" -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(' '.join(f['runs'][k].attrs['label'] for k in sorted(f['runs'])))" "$1"; }

# seed 000: replicate / no-replicate
RC=0; PFS_DIR=$D PFS_SIZE=1m timeout 120 mpirun -np 1 "${ONE_RANK[@]}" --bind-to none "$PFSBENCH" -f "$JOBS/gpfsperf-compare.job" -o "$T/g.h5" -q >"$T/out" 2>"$T/err" || RC=$?
check "gpfsperf-compare.job: exit 0" [ "$RC" -eq 0 ]
check "gpfsperf-compare.job: the two configurations" [ "$(labels "$T/g.h5")" = "replicate no-replicate" ]
"$(dirname "$PFSBENCH")/pfs-compare" "$T/g.h5" --names gpfsperf --units KB >"$T/tab" 2>&1
check "gpfsperf-compare.job: pfs-compare prints Create/Read/Write per configuration" grep -q "^Create" "$T/tab"

# seed 000, section 3 as ranks: pow2 over 2 ranks = 1, 2
RC=0; PFS_DIR=$D PFS_TOTAL=2m timeout 120 mpirun -np 2 --bind-to none "$PFSBENCH" -f "$JOBS/gpfsperf-threads.job" -o "$T/t.h5" -q >"$T/out" 2>"$T/err" || RC=$?
check "gpfsperf-threads.job: exit 0" [ "$RC" -eq 0 ]
check "gpfsperf-threads.job: points 1 and 2" [ "$(labels "$T/t.h5")" = "gpfsperf-ranks:n=1 gpfsperf-ranks:n=2" ]

# seed 002: two layouts x 1 and N clients, 3 repetitions each
mkdir -p "$D/simple_stripe" "$D/twod_stripe"
RC=0; PFS_DIR=$D PFS_BLOCK=512k PFS_CLIENTS=2 timeout 180 mpirun -np 2 --bind-to none "$PFSBENCH" -f "$JOBS/iozone-pvfs2.job" -o "$T/p.h5" -q >"$T/out" 2>"$T/err" || RC=$?
check "iozone-pvfs2.job: exit 0" [ "$RC" -eq 0 ]
check "iozone-pvfs2.job: layout:n=1 and :n=2 for both layouts" \
    [ "$(labels "$T/p.h5")" = "simple_stripe:n=1 simple_stripe:n=2 twod_stripe:n=1 twod_stripe:n=2" ]
"$(dirname "$PFSBENCH")/pfs-compare" "$T/p.h5" --by rep --label simple_stripe:n=2 --names iozone --units KB >"$T/tab" 2>&1
check "iozone-pvfs2.job: the seed's table, three runs and their mean" grep -qE "rep [0-9] +rep [0-9] +rep [0-9] +mean" "$T/tab"

# seed 003: block phases and the metadata pair, with %CP
RC=0; PFS_DIR=$D PFS_SIZE=2m PFS_FILES=20 PFS_CONFIG=cfq timeout 180 mpirun -np 2 --bind-to none "$PFSBENCH" -f "$JOBS/bonnie-lustre.job" -o "$T/b.h5" -q >"$T/out" 2>"$T/err" || RC=$?
check "bonnie-lustre.job: exit 0" [ "$RC" -eq 0 ]
check "bonnie-lustre.job: block, sequential and random files" [ "$(labels "$T/b.h5")" = "cfq cfq:sequential cfq:random" ]
"$(dirname "$PFSBENCH")/pfs-compare" "$T/b.h5" --names bonnie --units KB >"$T/tab" 2>&1
check "bonnie-lustre.job: pfs-compare prints bonnie's %CP" grep -q "%CP" "$T/tab"

# seed 004: the PixStor sweep, total fixed and divided
RC=0; PFS_DIR=$D PFS_TOTAL=4m PFS_TRANSFER=64k timeout 120 mpirun -np 2 --bind-to none "$PFSBENCH" -f "$JOBS/pixstor.job" -o "$T/x.h5" -q >"$T/out" 2>"$T/err" || RC=$?
check "pixstor.job: exit 0" [ "$RC" -eq 0 ]
check "pixstor.job: points pixstor:n=1 and n=2" [ "$(labels "$T/x.h5")" = "pixstor:n=1 pixstor:n=2" ]
check "no data file left by any job" [ -z "$(find "$D" -type f)" ]

# ${NAME} without a default, not set: its line named, exit 2, nothing made.
printf '[global]\ndir = %s\n[a]\nblock = ${PFS_UNSET_FOR_TEST}\n' "$D" >"$T/unset.job"
RC=0; env -u PFS_UNSET_FOR_TEST timeout 60 mpirun -np 1 "${ONE_RANK[@]}" --bind-to none "$PFSBENCH" -f "$T/unset.job" -o "$T/u.h5" >"$T/out" 2>"$T/err" || RC=$?
check "an unset \${NAME}: exit 2" [ "$RC" -eq 2 ]
check "an unset \${NAME}: its line named" grep -q 'unset.job:4: ${PFS_UNSET_FOR_TEST} is not set' "$T/err"
check "an unset \${NAME}: nothing made" [ ! -e "$T/u.h5" ]
finish
