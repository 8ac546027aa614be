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
# -k: nothing left in the pool; an OSD stopped mid-write named by the
# watchdog (exit 3, rank 0's object removed); what it cannot do refused (exit 2, nothing
# made) before any cluster is needed: no --rados-pool, a metadata phase;
# and a pool the cluster does not have, named with the call that failed.
# A pfsbench built without librados (-DPFS_WITH_RADOS=OFF) is checked for
# its refusal alone. Exits 77 (skipped, said loudly) where the harness
# cannot start a cluster (no root, FUSE or Ceph packages).
. "$(dirname "$0")/lib.sh"
. "$PFS_TESTS/lib/ceph.sh"
ceph_test_begin

ceph_not_built_or rados librados-dev librados

# --- refused before anything is made (no cluster needed)
run_mpi 2 60 -d "$T/d" -a rados --no-results
refused "no --rados-pool" "--api rados needs --rados-pool POOL"
run_mpi 2 60 -d "$T/d" -a rados --rados-pool p -p create,stat,delete --no-results
refused "a metadata phase" "--phases create with --api rados: create works on small files and directories"

ceph_start_or_skip
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
run_mpi 2 90 -d "$T/d" -a rados --rados-pool nosuchpool -o "$T/r.h5"
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

# --- an OSD SIGSTOPped mid-write, --timeout 5: the watchdog names the
# blocked write and its object's file name; once the OSD goes on, the job
# ends with exit 3 and rank 0's watchdog has removed what it made.
# 3 OSDs, 3 replicas: every write waits for the stopped one.
run_mpi_bg() {
    timeout -k 5 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$T/d" "${R[@]}" -b 120m -t 1m -p write \
        --timeout 5 --run-id stop -o "$T/stop.h5" >"$T/out" 2>"$T/err" &
    BG=$!
}
obj_size() { timeout 10 rados -p "$P" stat "$1" 2>/dev/null | sed -n 's/.* size \([0-9]*\)$/\1/p'; }
run_mpi_bg
for ((w = 0; w < 200; w++)); do
    [ "$(obj_size pfsbench.stop.0)" -gt $((4 << 20)) ] 2>/dev/null && break
    kill -0 "$BG" 2>/dev/null || break
    sleep 0.05
done
SP=$(ceph_osd_pid 1)
if [ "$w" -lt 200 ] && kill -0 "$BG" 2>/dev/null && [ -n "$SP" ]; then
    kill -STOP "$SP"
    T_STOP=$(date +%s.%N)
    WD=
    for ((w = 0; w < 200; w++)); do # bounded: 20 s, then the OSD goes on
        [ -z "$WD" ] && grep -q "watchdog" "$T/err" && WD=$(since "$T_STOP")
        grep -q "the run is recorded" "$T/err" && break
        kill -0 "$BG" 2>/dev/null || break
        sleep 0.1
    done
    kill -CONT "$SP"
    RC=0
    wait "$BG" || RC=$?
    echo "# osd.1 stopped: the watchdog spoke after ${WD:-never} s; pfsbench exited $RC $(since "$T_STOP") s after the stop"
    grep '^pfsbench' "$T/err" | sed 's/^/#   /'
    check "OSD stopped, --timeout 5: the watchdog speaks within 15 s (${WD:-never})" \
        cond '[ -n "$WD" ] && awk -v e="$WD" "BEGIN { exit !(e < 15) }"'
    check "OSD stopped: and names the blocked write and its object's name" \
        grep -qE "watchdog: rank [0-9]+ on .* blocked .* in write $T/d/pfsbench.stop.[01]" "$T/err"
    check "OSD stopped: the job ends with exit 3 (rc $RC)" [ "$RC" -eq 3 ]
    # Rank 0's watchdog removes what its stream made (a write still queued
    # behind the stop must not make it anew); the job ends with it, so the
    # other rank's may stay, which the warning says.
    got=$(pool_ls)
    check "OSD stopped: rank 0's object is removed; what is left the warning covers ($got)" \
        cond '[[ " $got" != *" pfsbench.stop.0 "* ]] && { [ -z "$got" ] || grep -q "the other ranks. data files, if they had created any, may be left behind" "$T/err"; }'
else
    kill -TERM "$BG" 2>/dev/null
    wait "$BG"
    bad "OSD stopped: the object never reached 4 MiB, or pfsbench ended first, or osd.1 has no process"
fi

ceph_test_end
