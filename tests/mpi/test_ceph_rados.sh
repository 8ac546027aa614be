#!/bin/bash
# --api rados (Ceph RADOS through librados) against a real cluster of this
# machine (tests/lib/ceph.sh: mon, mgr, 3 BlueStore OSDs), 2 ranks: an
# object per stream, written, rewritten and read with --verify at --iodepth
# 8, two repetitions (the second empties and rewrites the objects it made)
# and kept (-k): the pool holds exactly those objects, and their sizes
# (rados stat) add up to the bytes a repetition reports; a byte of a
# kept object changed between the write and a read-only --verify run
# (rados put --offset) is caught and named; an object already in the pool
# under a name the run would make is refused (exclusive create), named
# with rados's error, and left byte for byte as it was, while the object
# the other rank made in that run is removed (the shared object's name
# alike, refused and left intact); one shared object, --threads 2, without
# -k: nothing left in the pool; the primary OSD of rank 0's object
# stopped mid-write: named by the watchdog (exit 3, rank 0's object
# removed), the cluster healthy again once it goes on; what it cannot do
# refused (exit 2, nothing made) before any cluster is needed: no --rados-pool, a metadata phase;
# and a pool the cluster does not have, named with the call that failed.
# --api cephfs (CephFS through libcephfs) on the same cluster (one start
# for both native clients), 2 ranks, in a directory of a ceph-fuse mount:
# every data phase with --verify, -i 2, -k: ceph-fuse shows the files and
# their bytes are what a repetition reports; a byte changed through
# ceph-fuse is caught by a read-only --verify run at its offset; a file
# there before the run under a name it would make is refused (O_EXCL),
# left byte for byte, and the other rank's file removed; the metadata
# phases (a --depth 2 tree, 4 KiB files read back) with --threads 2 and
# no -k leave nothing; an OSD stopped in a 1 GiB write (--timeout 5):
# the watchdog names the rank, its host, the write and the file, exit 3,
# rank 0's file removed, the cluster healthy again once the OSD goes on
# (before the rados runs' own stopped OSD); refused with exit 2 and nothing made: a conf that
# is not there, a cluster that does not answer, find (it walks through
# the mount), -d off CephFS, -d the ceph-fuse mount point itself.
# A pfsbench built without librados (-DPFS_WITH_RADOS=OFF) is checked for
# its refusal alone (without libcephfs: --api cephfs's refusal). Exits 77 (skipped, said loudly) where the harness
# cannot start a cluster (no root, FUSE or Ceph packages).
. "$(dirname "$0")/lib.sh"
. "$PFS_TESTMPI/ceph_lib.sh"
ceph_test_begin

ceph_not_built_or rados librados-dev librados

# --- refused before anything is made (no cluster needed)
run_refused 2 60 -d "$T/d" -a rados --no-results
refused "no --rados-pool" "--api rados needs --rados-pool POOL"
run_refused 2 60 -d "$T/d" -a rados --rados-pool p -p create,stat,delete --no-results
refused "a metadata phase" "--phases create with --api rados: create works on small files and directories"
run_mpi 1 60 -d "$T/d" -a rados --clean
refused "--clean, no --rados-pool" "--clean with --api rados (a dead run's objects too): --api rados needs --rados-pool POOL"

# --- --api cephfs refused before anything is made (no cluster needed; run
# while the cluster starts, checked after): a conf that is not there, a
# cluster that does not answer (a monitor on a closed port, the conf's own
# 3 s mount timeout), a phase that walks the directories through the mount
CF_BUILT=1
"$PFSBENCH" --help | grep -q "^  cephfs  *not built: " && CF_BUILT=0
if [ "$CF_BUILT" = 1 ]; then
    printf '[global]\nmon host = 127.0.0.1:1\nclient mount timeout = 3\nauth client required = none\n' >"$T/nomon.conf"
    par noconf run_refused 2 120 -d "$T/d" -a cephfs --cephfs-conf "$T/none.conf" -p write,read -o "$T/r.h5"
    par nomon run_refused 2 120 -d "$T/d" -a cephfs --cephfs-conf "$T/nomon.conf" -p write,read -o "$T/r.h5"
    par walks run_refused 2 120 -d "$T/d" -a cephfs -p create,find,delete --no-results
else
    run_refused 2 60 -d "$T/d" -a cephfs --no-results
    refused "cephfs not built" "error: --api cephfs: this pfsbench was built without it (libcephfs-dev at build time)"
fi

ceph_start_or_skip
if [ "$CF_BUILT" = 1 ]; then
    par_wait noconf
    refused "cephfs, a conf that is not there" \
        "--api cephfs: root /, client admin, conf $T/none.conf: ceph_conf_read_file: No such file or directory"
    par_wait nomon
    refused "cephfs, no cluster answers" "--api cephfs: root /, client admin, conf $T/nomon.conf: ceph_mount: Connection timed out"
    check "cephfs refusals: no results file" [ ! -e "$T/r.h5" ]
    par_wait walks
    refused "cephfs, a phase that walks" "--phases find with --api cephfs: find walks the directories with readdir and lstat"
fi
P=$CEPH_POOL
R=(-a rados --rados-pool "$P" -t 64k -b 1m)
pool_ls() { timeout 30 rados -p "$P" ls 2>&1 | sort | tr '\n' ' '; }
pool_bytes() { # the sizes of OBJ... in the pool, summed
    local o n=0
    for o in "$@"; do n=$((n + $(timeout 30 rados -p "$P" stat "$o" 2>&1 | sed -n 's/.* size \([0-9]*\)$/\1/p'))); done
    echo "$n"
}
res() { "$PY" "$PFS_TESTMPI/ceph_rados_checks.py" res "$T/r.h5" 2>&1 | tail -n 1; }

# --- a pool that is not there: each rank connects before anything is made
run_refused 2 90 -d "$T/d" -a rados --rados-pool nosuchpool -o "$T/r.h5"
refused "a pool that is not there" "--api rados: pool nosuchpool, client admin, conf $CEPH_CONF: rados_ioctx_create (does the pool exist?): No such file or directory"
check "a pool that is not there: no results file" [ ! -e "$T/r.h5" ]

# --- an object per stream, --iodepth 8, --verify, -k: the pool holds them
T0=$(date +%s.%N)
run_mpi 2 90 -d "$T/d" "${R[@]}" -p write,rewrite,read,reread --verify --iodepth 8 -i 2 -k --run-id nn -o "$T/r.h5"
check "per stream, --iodepth 8 --verify -i 2 -k: exit 0 ($(head -c 300 "$T/err"))" [ "$RC" -eq 0 ]
got=$(res)
check "per stream: every phase moved 2 x 2 MiB in 2 x 32 transfers ($got)" \
    [ "$got" = "rados complete write=4194304/64 rewrite=4194304/64 read=4194304/64 reread=4194304/64" ]
pycheck "per stream: the latency histograms count every transfer, an open and a close per stream" \
    ceph_rados counted "$T/r.h5" 2
got=$(pool_ls)
check "per stream, -k: the pool holds the 2 objects kept ($got)" [ "$got" = "pfsbench.nn.0 pfsbench.nn.1 " ]
got=$(pool_bytes pfsbench.nn.0 pfsbench.nn.1)
check "per stream: rados stat says 2097152 bytes, as a repetition in the results file ($got)" [ "$got" = 2097152 ]

# --- a byte of a kept object changed, then a read-only --verify run
timeout 30 rados -p "$P" get pfsbench.nn.1 "$T/o1"
corrupt_byte "$T/o1" 300000
dd if="$T/o1" of="$T/byte" bs=1 skip=300000 count=1 status=none
timeout 30 rados -p "$P" put pfsbench.nn.1 "$T/byte" --offset 300000
run_mpi 2 90 -d "$T/d" "${R[@]}" -p read --verify --run-id nn -o "$T/r.h5"
check "a changed byte: the --verify read fails (rc $RC)" [ "$RC" -ne 0 ]
check "a changed byte: named with the object and its offset ($(grep -m1 verif "$T/err" | head -c 300))" \
    grep -qF "verify $T/d/pfsbench.nn.1 at offset 300000: 1 mismatching" "$T/err"
got=$(pool_ls)
check "a read-only run removes nothing it did not make ($got)" [ "$got" = "pfsbench.nn.0 pfsbench.nn.1 " ]
timeout 30 rados -p "$P" rm pfsbench.nn.0
timeout 30 rados -p "$P" rm pfsbench.nn.1

# --- an object already there under a name the run would make
head -c 100000 /dev/urandom >"$T/pre"
timeout 30 rados -p "$P" put pfsbench.col.1 "$T/pre"
run_mpi 2 90 -d "$T/d" "${R[@]}" -p write,read --run-id col -o "$T/r.h5"
check "a name already in the pool: the run fails (rc $RC)" [ "$RC" -ne 0 ]
check "a name already in the pool: named with the object, the pool and rados's error ($(grep -m1 col.1 "$T/err" | head -c 300))" \
    grep -qF "object pfsbench.col.1 in pool $P: exclusive create: File exists" "$T/err"
timeout 30 rados -p "$P" get pfsbench.col.1 "$T/post"
check "a name already in the pool: the object is left byte for byte as it was" cmp -s "$T/pre" "$T/post"
got=$(pool_ls)
check "a name already in the pool: the object rank 0 made is removed, the other left ($got)" \
    [ "$got" = "pfsbench.col.1 " ]
timeout 30 rados -p "$P" rm pfsbench.col.1
timeout 30 rados -p "$P" put pfsbench.cos.shared "$T/pre"
run_mpi 2 90 -d "$T/d" "${R[@]}" -p write --shared --run-id cos -o "$T/r.h5"
check "the shared object's name already in the pool: refused, named (rc $RC; $(grep -m1 cos "$T/err" | head -c 300))" \
    cond '[ "$RC" -ne 0 ] && grep -qF "object pfsbench.cos.shared in pool $P: exclusive create: File exists" "$T/err"'
timeout 30 rados -p "$P" get pfsbench.cos.shared "$T/post"
check "the shared object's name already in the pool: left byte for byte as it was" cmp -s "$T/pre" "$T/post"
timeout 30 rados -p "$P" rm pfsbench.cos.shared

# --- one shared object, no -k: nothing left
run_mpi 2 90 -d "$T/d" "${R[@]}" -p write,read --shared --verify --iodepth 8 --threads 2 --run-id sh -o "$T/r.h5"
check "shared object, --iodepth 8 --verify --threads 2: exit 0 ($(head -c 300 "$T/err"))" [ "$RC" -eq 0 ]
got=$(res)
check "shared object: 4 streams' 4 MiB written and read ($got)" [ "$got" = "rados complete write=4194304/64 read=4194304/64" ]
got=$(pool_ls)
check "shared object, no -k: nothing left in the pool ($got)" [ -z "$got" ]
echo "# runs: $(since "$T0") s"

# --- a run killed (SIGKILL, every rank) mid-write leaves its objects and
# its lock, whose last line holds the run's token, the mark the run set on
# each object it made: --clean lists and removes exactly those; objects of
# the same run id it did not make (rados put: no mark; one with another
# run's mark) are named and left byte for byte, and so is the lock until
# --clean is told the pool.
T0=$(date +%s.%N)
timeout -k 5 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$T/d" "${R[@]}" -b 120m -t 1m -p write \
    --run-id kl --no-results >"$T/out" 2>"$T/err" &
BG=$!
obj_size() { timeout 10 rados -p "$P" stat "$1" 2>/dev/null | sed -n 's/.* size \([0-9]*\)$/\1/p'; }
both_written() { [ "$(obj_size pfsbench.kl.0)" -gt 0 ] 2>/dev/null && [ "$(obj_size pfsbench.kl.1)" -gt 0 ] 2>/dev/null; }
kill_ranks_when both_written
check "killed run: both ranks were writing when killed ($(echo $RANKS))" cond '[ "$(echo "$RANKS" | wc -w)" = 2 ]'
got=$(pool_ls)
check "killed run: its 2 objects are left in the pool ($got)" [ "$got" = "pfsbench.kl.0 pfsbench.kl.1 " ]
check "killed run: its lock names the backend and a token ($(tail -n 1 "$T/d/pfsbench.kl.lock"))" \
    grep -qE "^objects rados [0-9a-f]{16}$" "$T/d/pfsbench.kl.lock"
head -c 100000 /dev/urandom >"$T/pre"
timeout 30 rados -p "$P" put pfsbench.kl.7 "$T/pre"
timeout 30 rados -p "$P" put pfsbench.kl.shared "$T/pre"
timeout 30 rados -p "$P" setxattr pfsbench.kl.shared pfsbench.run 0123456789abcdef
run_mpi 1 60 -d "$T/d" --clean --yes
check "--clean --yes without --api rados: the lock is kept, saying what to add ($(grep -m1 kept "$T/out"))" \
    cond '[ "$RC" -eq 0 ] && grep -qF "kept     $T/d/pfsbench.kl.lock: run kl'"'"'s objects (--api rados) are looked at with --api rados and its options" "$T/out" && [ -e "$T/d/pfsbench.kl.lock" ]'
run_mpi 1 60 -d "$T/d" -a rados --rados-pool "$P" --clean
check "--clean -a rados: lists the run's 2 objects, exit 0 ($(tail -n 1 "$T/out"))" \
    cond '[ "$RC" -eq 0 ] && grep -q "^leftover object pfsbench.kl.0 in pool $P (" "$T/out" && grep -q "^leftover object pfsbench.kl.1 in pool $P (" "$T/out" && grep -q "^2 pfsbench objects marked with its run.s token; add --yes" "$T/out"'
check "--clean -a rados: names the objects it cannot prove and leaves them" \
    cond 'grep -q "^skipped  object pfsbench.kl.7 in pool $P: it has no pfsbench.run mark" "$T/out" && grep -q "^skipped  object pfsbench.kl.shared in pool $P: its pfsbench.run mark is another run" "$T/out"'
got=$(pool_ls)
check "--clean -a rados without --yes: removes nothing ($got)" [ "$got" = "pfsbench.kl.0 pfsbench.kl.1 pfsbench.kl.7 pfsbench.kl.shared " ]
run_mpi 1 60 -d "$T/d" -a rados --rados-pool "$P" --clean --yes
check "--clean --yes -a rados: exit 0, 2 removed ($(tail -n 1 "$T/out"))" \
    cond '[ "$RC" -eq 0 ] && [ "$(grep -c "^removed  object pfsbench.kl.[01] in pool $P (" "$T/out")" = 2 ] && grep -q "^2 pfsbench objects marked with its run.s token, removed" "$T/out"'
got=$(pool_ls)
check "--clean --yes -a rados: exactly the run's objects are gone ($got)" [ "$got" = "pfsbench.kl.7 pfsbench.kl.shared " ]
check "--clean --yes -a rados: and its lock ($(ls -A "$T/d" | tr '\n' ' '))" [ -z "$(ls -A "$T/d")" ]
for o in pfsbench.kl.7 pfsbench.kl.shared; do
    timeout 30 rados -p "$P" get "$o" "$T/post"
    check "--clean --yes -a rados: $o is left byte for byte" cmp -s "$T/pre" "$T/post"
    timeout 30 rados -p "$P" rm "$o"
done
echo "# a killed run cleaned: $(since "$T0") s"

# --- --api cephfs (libcephfs) in a directory of a ceph-fuse mount of the
# same file system, through which the run's directories are made and its
# files seen
if [ "$CF_BUILT" = 1 ]; then
T0=$(date +%s.%N)
ceph_mount "$T/m"
D=$T/m/cf
mkdir "$D"
CF=(-a cephfs -t 64k -b 1m)
run_refused 2 90 -d "$T/d" "${CF[@]}" -p write --no-results
refused "cephfs, -d not on CephFS" "--api cephfs: -d $T/d is not on a CephFS mount (it is on /"
run_refused 2 90 -d "$T/m" "${CF[@]}" -p write --no-results
check "cephfs, -d the ceph-fuse mount's root: exit 2, named ($(head -c 300 "$T/err"))" \
    cond '[ "$RC" -eq 2 ] && grep -qF -- "--api cephfs: -d $T/m is the root of its ceph-fuse mount" "$T/err"'
check "cephfs, -d the mount's root: nothing made ($(ls -A "$T/m" | tr '\n' ' '))" [ "$(ls -A "$T/m")" = cf ]

# A file of a name the run would make, there before it: refused, left byte
# for byte as it was, and the file the other rank made removed.
head -c 100000 /dev/urandom >"$T/pre"
cp "$T/pre" "$D/pfsbench.cx.1"
run_mpi 2 90 -d "$D" "${CF[@]}" -p write,read --run-id cx -o "$T/r.h5"
check "cephfs, a name already there: the run fails, named ($(grep -m1 cx.1 "$T/err" | head -c 300))" \
    cond '[ "$RC" -ne 0 ] && grep -qF "open for writing $D/pfsbench.cx.1: File exists" "$T/err"'
check "cephfs, a name already there: the file is left byte for byte as it was" cmp -s "$T/pre" "$D/pfsbench.cx.1"
check "cephfs, a name already there: rank 0's file removed, the other left ($(ls -A "$D" | tr '\n' ' '))" \
    [ "$(ls -A "$D")" = pfsbench.cx.1 ]
rm "$D/pfsbench.cx.1"

# Every data phase with --verify, two repetitions, kept: the files seen
# through ceph-fuse hold the bytes a repetition reports.
run_mpi 2 90 -d "$D" "${CF[@]}" -p write,rewrite,read,reread --verify -i 2 -k --interval 60 --run-id cf -o "$T/r.h5"
check "cephfs, --verify -i 2 -k: exit 0 ($(head -c 300 "$T/err"))" [ "$RC" -eq 0 ]
got=$(res)
check "cephfs: every phase moved 2 x 2 MiB in 2 x 32 transfers ($got)" \
    [ "$got" = "cephfs complete write=4194304/64 rewrite=4194304/64 read=4194304/64 reread=4194304/64" ]
pycheck "cephfs: the latency histograms count every transfer, an open and a close per stream" \
    ceph_rados counted "$T/r.h5" 2
for ph in write read; do
    check "cephfs: the $ph's time series is one interval at the phase's rate per node" \
        "$PY" "$PFS_TESTMPI/check_series.py" "$T/r.h5" "$ph" - "$PFS_TESTMPI/../.."
done
got=$(cd "$D" && ls -A | tr '\n' ' ')
check "cephfs, -k: ceph-fuse shows the 2 files kept and the status file ($got)" \
    [ "$got" = "pfsbench.cf.0 pfsbench.cf.1 pfsbench.cf.kept " ]
got=$(($(stat -c %s "$D/pfsbench.cf.0") + $(stat -c %s "$D/pfsbench.cf.1")))
check "cephfs: ceph-fuse says 2097152 bytes, as a repetition in the results file ($got)" [ "$got" = 2097152 ]

# A byte changed through ceph-fuse, then a read-only --verify run.
corrupt_byte "$D/pfsbench.cf.1" 300000
run_mpi 2 90 -d "$D" "${CF[@]}" -p read --verify --run-id cf --no-results
check "cephfs, a changed byte: the --verify read fails (rc $RC)" [ "$RC" -ne 0 ]
check "cephfs, a changed byte: named with the file and its offset ($(grep -m1 verif "$T/err" | head -c 300))" \
    grep -qF "verify $D/pfsbench.cf.1 at offset 300000: 1 mismatching" "$T/err"
check "cephfs, a read-only run removes nothing ($(ls -A "$D" | tr '\n' ' '))" \
    [ "$(ls -A "$D" | tr '\n' ' ')" = "pfsbench.cf.0 pfsbench.cf.1 pfsbench.cf.kept " ]
rm "$D"/pfsbench.cf.*

# The data phases on one shared file and the metadata phases (a --depth 2
# tree, files of 4 KiB read back), --threads 2, no -k: nothing left.
run_mpi 2 90 -d "$D" "${CF[@]}" -n 10 --file-size 4k --depth 2 --threads 2 --shared \
    -p write,read,mkdir,create,stat,read-files,delete,rmdir --verify --run-id md -o "$T/r.h5"
check "cephfs, --shared, metadata phases, --threads 2: exit 0 ($(head -c 300 "$T/err"))" [ "$RC" -eq 0 ]
got=$(res)
check "cephfs: 4 streams' data, 2 dirs and 40 files of 4 KiB each way ($got)" \
    [ "$got" = "cephfs complete write=4194304/64 read=4194304/64 mkdir=0/2 create=163840/40 stat=0/40 read-files=163840/40 delete=0/40 rmdir=0/2" ]
check "cephfs, no -k: nothing left ($(ls -A "$D" | tr '\n' ' '))" [ -z "$(ls -A "$D")" ]
echo "# cephfs runs: $(since "$T0") s"

# An OSD SIGSTOPped mid-write, --timeout 5. libcephfs buffers a rank's
# writes and blocks them once its dirty limit (32 MiB: the conf's client
# oc max dirty) is held by objects whose flush waits: a 1 GiB file is 256
# objects of 4 MiB, about 2 in 3 of which have the stopped OSD among their
# 2 replicas. Once the second object is in the data pool (the writes flow)
# the OSD stops; the watchdog names the rank, its host, the blocked write
# and the file; the OSD goes on once rank 0 has recorded the run, and the
# job ends with exit 3, rank 0's file removed, the cluster healthy again.
T0=$(date +%s.%N)
timeout -k 5 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$D" "${CF[@]}" -t 1m -b 1g -p write -e \
    --timeout 5 --run-id cfstop -o "$T/stop.h5" >"$T/out" 2>"$T/err" &
BG=$!
flowing() { # the second object of rank 0's file is in the data pool
    local ino
    ino=$(stat -c %i "$D/pfsbench.cfstop.0" 2>/dev/null) || return 1
    timeout 10 rados -p cephfs_data stat "$(printf '%x.%08x' "$ino" 1)" >/dev/null 2>&1
}
stop_osd_mid_write 1 flowing
if [ "$STOPPED" = 1 ]; then
    check "cephfs, OSD stopped, --timeout 5: the watchdog speaks within 15 s (${WD:-never})" \
        cond '[ -n "$WD" ] && awk -v e="$WD" "BEGIN { exit !(e < 15) }"'
    check "cephfs, OSD stopped: the watchdog names the rank, its host, the blocked write and the file" \
        grep -qE "watchdog: rank [01] on $(hostname) blocked [0-9.]+ s in write $D/pfsbench.cfstop.[01], during write" "$T/err"
    check "cephfs, OSD stopped: the job ends with exit 3 (rc $RC)" [ "$RC" -eq 3 ]
    got=$(ls -A "$D" | tr '\n' ' ')
    check "cephfs, OSD stopped: rank 0's file is removed; what is left the warning covers ($got)" \
        cond '[[ " $got" != *" pfsbench.cfstop.0 "* ]] && { [ -z "$(ls -A "$D" | grep -v "^pfsbench.cfstop.lock$")" ] || grep -q "the other ranks. data files, if they had created any, may be left behind" "$T/err"; }'
else
    bad "cephfs, OSD stopped: the file's second object never reached the pool, or pfsbench ended first, or osd.1 has no process"
fi
# What rank 1 may have left stays: its client's caps on it are held until
# the MDS times out the dead client's session (60 s), so an unlink through
# ceph-fuse would wait for that; the teardown takes the file system whole.
T1=$(date +%s.%N)
check "cephfs, OSD stopped: the cluster is back to HEALTH_OK (all OSDs up, every PG clean)" \
    ceph__wait 90 "HEALTH_OK after the stop" ceph__ready
echo "# cephfs, a stopped OSD: $(since "$T0") s (HEALTH_OK after $(since "$T1") s)"
fi

# --- an OSD SIGSTOPped mid-write, --timeout 5: the watchdog names the
# rank, its host, the blocked write and its object, as rados's own errors
# name it (object and pool: the path in -d is no file); once the OSD goes
# on, the job ends with exit 3 and rank 0's watchdog has removed what it
# made. The OSD stopped is the primary of rank 0's object, so its writes
# wait for it whichever 2 of the 3 OSDs hold the object.
T0=$(date +%s.%N)
OSD=$(ceph_cli osd map "$P" pfsbench.stop.0 --format json 2>/dev/null | sed -n 's/.*"acting_primary": *\([0-9]*\).*/\1/p')
timeout -k 5 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$T/d" "${R[@]}" -b 120m -t 1m -p write \
    --timeout 5 --run-id stop -o "$T/stop.h5" >"$T/out" 2>"$T/err" &
BG=$!
obj_size() { timeout 10 rados -p "$P" stat "$1" 2>/dev/null | sed -n 's/.* size \([0-9]*\)$/\1/p'; }
flowing() { [ "$(obj_size pfsbench.stop.0)" -gt $((4 << 20)) ] 2>/dev/null; }
stop_osd_mid_write "${OSD:-1}" flowing
if [ "$STOPPED" = 1 ]; then
    check "OSD stopped, --timeout 5: the watchdog speaks within 15 s (${WD:-never})" \
        cond '[ -n "$WD" ] && awk -v e="$WD" "BEGIN { exit !(e < 15) }"'
    check "OSD stopped: the watchdog names the rank, its host, the blocked write, the object and its pool" \
        grep -qE "watchdog: rank [01] on $(hostname) blocked [0-9.]+ s in write object pfsbench.stop.[01] in pool $P, during write" "$T/err"
    check "OSD stopped: the job ends with exit 3 (rc $RC)" [ "$RC" -eq 3 ]
    # Rank 0's watchdog removes what its stream made (a write still queued
    # behind the stop must not make it anew); the job ends with it, so the
    # other rank's may stay, which the warning says.
    got=$(pool_ls)
    check "OSD stopped: rank 0's object is removed; what is left the warning covers ($got)" \
        cond '[[ " $got" != *" pfsbench.stop.0 "* ]] && { [ -z "$got" ] || grep -q "the other ranks. data files, if they had created any, may be left behind" "$T/err"; }'
else
    bad "OSD stopped: the object never reached 4 MiB, or pfsbench ended first, or osd.${OSD:-?} has no process (osd map said '${OSD}')"
fi
check "OSD stopped: the cluster is back to HEALTH_OK (all OSDs up, every PG clean)" \
    ceph__wait 90 "HEALTH_OK after the stop" ceph__ready
echo "# rados, a stopped OSD: $(since "$T0") s"

ceph_test_end
