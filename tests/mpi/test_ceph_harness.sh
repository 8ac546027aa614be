#!/bin/bash
# A real Ceph cluster on this machine (tests/lib/ceph.sh): one monitor, one
# manager, three BlueStore OSDs, an MDS, radosgw, all on 127.0.0.1; CephFS
# mounted by two ceph-fuse clients. The cluster comes up HEALTH_OK and
# listens on loopback only; pfsbench's POSIX backend runs the data matrix
# on CephFS (every layout, --direct, --verify, --threads 2, MPI-IO), with
# the bytes counted in RADOS (the data pool's objects of each file) against
# what the results file says; the metadata phases; two fake nodes, each on
# its own client, reading the other's data with -C --verify; the results
# name the file system (fuse.ceph-fuse) and its layout; objects go in and
# out through rados and through S3 (libs3's s3 tool against radosgw); an
# OSD stopped mid-write is named by the watchdog; and the teardown leaves
# no process, mount or port. Exits 77 (skipped, said loudly) without root,
# FUSE or the Ceph packages.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
. "$PFS_TESTS/lib/ceph.sh"
T_BEGIN=$(date +%s.%N)
BIN=$(readlink -f "$PFSBENCH")
HERE=$PFS_TESTS/mpi
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
cond() { eval "$1"; }

ceph_start_or_skip
check "the cluster is HEALTH_OK" [ "$(ceph_cli health 2>&1)" = HEALTH_OK ]
ceph_cli mgr module ls --format json >"$T/mods" 2>&1
check "the manager runs none of its optional modules" grep -q '"enabled_modules": *\[\]' "$T/mods"
ceph_listeners >"$T/listen"
echo "# listening: $(awk '{ print $1 }' "$T/listen" | sort -u | tr '\n' ' ')"
check "every listening socket of the cluster is on 127.0.0.1 ($(wc -l <"$T/listen") sockets)" \
    cond '[ -s "$T/listen" ] && ! grep -qv "^127\.0\.0\.1:" "$T/listen"'
check "the monitor listens on 127.0.0.1:3300 and :6789, radosgw on :7480" \
    cond 'grep -q "^127.0.0.1:3300 " "$T/listen" && grep -q "^127.0.0.1:6789 " "$T/listen" && grep -q "^127.0.0.1:7480 " "$T/listen"'
check "the S3 keys are in a file of mode 0600" [ "$(stat -c %a "$CEPH_S3_ENV")" = 600 ]
# shellcheck source=/dev/null
. "$CEPH_S3_ENV"
keys_in_cmdlines() { grep -lsF -e "$S3_ACCESS_KEY_ID" -e "$S3_SECRET_ACCESS_KEY" /proc/[0-9]*/cmdline; }
check "no command line holds the S3 keys" not keys_in_cmdlines

ceph_mount "$T/c" 2 || { echo "FAIL - ceph: the clients did not mount"; exit 1; }
A=${CEPH_MOUNTS[0]} B=${CEPH_MOUNTS[1]}
echo "# timings: monitor ${CEPH_T_MON} s, OSDs ${CEPH_T_OSD} s, radosgw ${CEPH_T_RGW} s, HEALTH_OK after ${CEPH_T_UP} s, 2 mounts ${CEPH_T_MOUNT} s"
check "mount type is fuse.ceph-fuse in /proc/mounts" \
    awk -v a="$A" -v b="$B" '($2 == a || $2 == b) && $3 == "fuse.ceph-fuse" { n++ } END { exit n != 2 }' /proc/mounts
check "the two clients are two FUSE connections (different st_dev)" [ "$(stat -c %d "$A")" != "$(stat -c %d "$B")" ]

# ---- helpers ---------------------------------------------------------------
res() { "$PY" "$HERE/ceph_results.py" phases "$1" 2>&1 | tail -n 1; }
nruns_of() { "$PY" "$HERE/ceph_results.py" nruns "$1" 2>&1 | tail -n 1; }
err_of() { "$PY" "$HERE/ceph_results.py" error "$1" 2>&1 | tail -n 1; }
# rados_of DIR: "FILES OBJECTS BYTES" the data pool holds for the pfsbench
# data files in DIR (not a kept run's status file), once client A has
# flushed them (sync fsyncs each).
rados_of() {
    local f inos=()
    for f in "$1"/pfsbench.*; do
        [ -f "$f" ] && [ "${f%.kept}" = "$f" ] || continue
        sync "$f"
        inos+=("$(stat -c %i "$f")")
    done
    [ ${#inos[@]} -gt 0 ] || { echo "0 0 0"; return; }
    "$PY" "$HERE/ceph_objects.py" cephfs_data "${inos[@]}" 2>&1 | tail -n 1
}
# gone_from_rados INO...: the data pool holds no object of these inodes
# within 20 s (the MDS purges a removed file's objects in the background).
gone_from_rados() {
    local w r
    for ((w = 0; w < 40; w++)); do
        r=$("$PY" "$HERE/ceph_objects.py" cephfs_data "$@" 2>&1 | tail -n 1)
        [ "$r" = "0 0 0" ] && return 0
        sleep 0.5
    done
    echo "# still in RADOS after 20 s: $r"
    return 1
}
# data_case WHAT NFILES BYTES ARGS...: 2 ranks on client A with -k; exit 0,
# every phase moved BYTES; the data pool holds NFILES files of BYTES in all;
# then the files are removed through client B (their inodes are kept in
# REMOVED, to check once that the MDS purged their objects).
data_case() {
    local what=$1 nf=$2 bytes=$3 got want d
    shift 3
    d=$A/$(echo "$what" | tr -c 'a-z0-9\n' '_')
    mkdir -p "$d"
    rm -f "$T/r.h5"
    run_mpi 2 90 -d "$d" -k -o "$T/r.h5" -q "$@"
    check "$what: exit 0" [ "$RC" -eq 0 ]
    got=$(res "$T/r.h5")
    want="complete"
    for p in "${PH[@]}"; do want="$want $p=$bytes/$NOPS"; done
    check "$what: results: every phase moved $bytes bytes ($got)" [ "$got" = "$want" ]
    got=$(rados_of "$d")
    check "$what: RADOS holds $nf files, $bytes bytes (files objects bytes: $got)" \
        cond '[ "${got%% *}" = "$nf" ] && [ "${got##* }" = "$bytes" ]'
    mapfile -t -O "${#REMOVED[@]}" REMOVED < <(stat -c %i "$d"/pfsbench.* 2>/dev/null)
    rm -rf "${B:?}/${d#"$A"/}"
    check "$what: removed through the other client" cond '[ ! -e "$d" ] && [ ! -e "$B/${d#"$A"/}" ]'
}
REMOVED=()
PH=(write rewrite read reread)
P=write,rewrite,read,reread

# ---- data phases: bytes in RADOS = bytes in the results file ---------------
T0=$(date +%s.%N)
NOPS=64 data_case "file per process" 2 $((2 << 20)) -t 32k -b 1m -p $P
NOPS=64 data_case "shared segmented" 1 $((2 << 20)) -t 32k -b 1m -p $P --shared --layout segmented
NOPS=64 data_case "shared strided" 1 $((2 << 20)) -t 32k -b 1m -p $P --shared --layout strided
NOPS=64 data_case "O_DIRECT through ceph-fuse" 2 $((4 << 20)) -t 64k -b 2m -p $P --direct
NOPS=64 data_case "--verify" 2 $((2 << 20)) -t 32k -b 1m -p $P --verify
NOPS=128 data_case "--threads 2" 4 $((4 << 20)) -t 32k -b 1m -p $P --threads 2
NOPS=64 data_case "MPI-IO collective, shared" 1 $((2 << 20)) -t 32k -b 1m -p $P --api mpiio --shared --collective
check "data phases: the objects of the ${#REMOVED[@]} removed files are purged from RADOS" gone_from_rados "${REMOVED[@]}"
echo "# data matrix: $(since "$T0") s"

# ---- what the file system is: type, source and layout in the provenance ----
mkdir -p "$A/prov"
rm -f "$T/r.h5"
run_mpi 2 60 -d "$A/prov" -t 64k -b 256k -p write -o "$T/r.h5"
SRC=$(awk -v m="$A" '$5 == m { for (i = 7; $i != "-"; i++); print $(i + 2) }' /proc/self/mountinfo | tail -n 1)
echo "# $(grep '^target' "$T/out"); $(grep '^fs layout' "$T/out")"
check "provenance: the target line names fuse.ceph-fuse and the source ($SRC)" \
    grep -qxF "target       $A/prov (fuse.ceph-fuse, $SRC)" "$T/out"
check "provenance: the report gives CephFS's layout" \
    grep -qE "^fs layout +stripe_unit=[0-9]+ stripe_count=[0-9]+ object_size=[0-9]+ pool=cephfs_data$" "$T/out"
got=$("$PY" "$HERE/ceph_results.py" fs "$T/r.h5" "$A" "$SRC" 2>&1 | tail -n 1)
check "provenance: the results file: fs_type fuse, fs_mount_type fuse.ceph-fuse, source, mount point, layout ($got)" \
    "$PY" "$HERE/ceph_results.py" fs "$T/r.h5" "$A" "$SRC"
rm -rf "${A:?}/prov"

# ---- metadata phases --------------------------------------------------------
for dirs in shared per-rank; do
    mkdir -p "$A/md-$dirs"
    rm -f "$T/r.h5"
    run_mpi 2 90 -d "$A/md-$dirs" -o "$T/r.h5" -q -p create,stat,read-files,delete --files 25 --file-size 4k --dirs "$dirs"
    got=$(res "$T/r.h5")
    check "metadata --dirs $dirs: exit 0, 50 files per phase, 200 KiB created and read ($got)" \
        cond '[ "$RC" -eq 0 ] && [ "$got" = "complete create=204800/50 stat=0/50 read-files=204800/50 delete=0/50" ]'
    check "metadata --dirs $dirs: nothing left, seen through the other client" \
        cond '[ -z "$(ls -A "$A/md-$dirs")" ] && [ -z "$(ls -A "$B/md-$dirs")" ]'
    rm -rf "${A:?}/md-$dirs"
done

# ---- two fake nodes, each on its own client, -C ----------------------------
# An rsh agent like tests/lib/fake-rsh, plus a private mount namespace per
# node in which that node's client is bind-mounted on one common path $X:
# node1's rank reaches CephFS through client A, node2's through client B,
# with the same -d. The namespaces (and the binds) die with the job.
X=$T/pernode
mkdir -p "$X"
cat >"$T/ceph-rsh" <<EOF
#!/bin/bash
while [ \$# -gt 0 ]; do
    case \$1 in
        --) shift; break ;;
        -[BbcDEeFIiJLlmOopQRSWw]) shift; [ \$# -gt 0 ] && shift ;;
        -*) shift ;;
        *) break ;;
    esac
done
host=\${1##*@}; shift
case \$host in node1) m=$A ;; node2) m=$B ;; *) echo "ceph-rsh: no client for \$host" >&2; exit 255 ;; esac
exec unshare --uts --mount --propagation private /bin/sh -c \
    'hostname "\$1" && mount --bind "\$2" "\$3" && stat -c %d "\$3" >"\$4" || exit 255; shift 4; exec /bin/sh -c "\$*"' \
    ceph-rsh "\$host" "\$m" "$X" "$T/dev.\$host" "\$@"
EOF
chmod +x "$T/ceph-rsh"
fakenodes_setup 2 1
RC=0
timeout -k 5 90 mpirun -np 2 --hostfile "$FAKENODES_HOSTFILE" --map-by node -x PFSBENCH_PLACEMENT=round-robin \
    --mca plm_rsh_agent "$T/ceph-rsh" --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo \
    --oversubscribe --bind-to none "$BIN" -d "$X" -t 64k -b 2m -p write,read -C --verify -k -v -o "$T/xn.h5" \
    >"$T/out" 2>"$T/err" || RC=$?
check "2 nodes x 1 rank, node1 on client A, node2 on client B: exit 0" [ "$RC" -eq 0 ]
check "2 nodes: node1's rank saw client A, node2's client B" \
    cond '[ "$(cat "$T/dev.node1" 2>/dev/null)" = "$(stat -c %d "$A")" ] && [ "$(cat "$T/dev.node2" 2>/dev/null)" = "$(stat -c %d "$B")" ]'
check "2 nodes: -C reads what the other node (the other client) wrote" has "on another node"
got=$(res "$T/xn.h5")
check "2 nodes: results: 4 MiB written and read back verified across clients ($got)" \
    [ "$got" = "complete write=4194304/64 read=4194304/64" ]
got=$(rados_of "$A")
check "2 nodes: RADOS holds 2 files, 4 MiB ($got)" [ "$got" = "2 2 4194304" ]
check "2 nodes: no bind mount left on $X" not ceph__mounted "$X"
rm -rf "${A:?}"/pfsbench.*

# ---- objects through RADOS and through S3 ----------------------------------
head -c $((3 << 20)) /dev/urandom >"$T/obj"
RC=0
timeout 60 rados -p "$CEPH_POOL" put pfsobj "$T/obj" >"$T/out" 2>"$T/err" &&
    timeout 60 rados -p "$CEPH_POOL" get pfsobj "$T/obj.rados" >>"$T/out" 2>>"$T/err" || RC=$?
check "rados: put and get of a 3 MiB object, the same bytes back" cond '[ "$RC" -eq 0 ] && cmp -s "$T/obj" "$T/obj.rados"'
check "rados: the pool says it holds the object's 3 MiB" \
    grep -q "size $((3 << 20))$" <(timeout 30 rados -p "$CEPH_POOL" stat pfsobj 2>&1)
timeout 30 rados -p "$CEPH_POOL" rm pfsobj
# libs3's s3 exits 0 on errors: ERROR on stderr is the failure (-r 0: no retries).
s3do() { RC=0; timeout 60 s3 -u -r 0 "$@" >"$T/out" 2>"$T/err" || RC=$?; [ "$RC" -eq 0 ] && ! grep -q ERROR "$T/err"; }
check "S3: create a bucket" s3do create pfsbucket
check "S3: put a 3 MiB object" s3do put pfsbucket/obj filename="$T/obj"
check "S3: get it back, the same bytes" cond 's3do get pfsbucket/obj filename="$T/obj.s3" && cmp -s "$T/obj" "$T/obj.s3"'
# radosgw keeps an object this small whole in its head object, in the data pool.
got=$(timeout 30 rados -p default.rgw.buckets.data ls 2>&1 | grep '_obj$' | head -n 1)
check "S3: the object's 3 MiB are in RADOS, in radosgw's data pool ($got)" \
    grep -q "size $((3 << 20))$" <(timeout 30 rados -p default.rgw.buckets.data stat "$got" 2>&1)
check "S3: a missing key is an error the test can see (ERROR on stderr)" \
    cond '! s3do get pfsbucket/nokey filename="$T/nokey" && grep -q "ERROR: ErrorNoSuchKey" "$T/err"'
check "S3: delete the object and the bucket" cond 's3do delete pfsbucket/obj && s3do delete pfsbucket'

# ---- an OSD SIGSTOPped mid-write, --timeout 5 ------------------------------
# A stopped OSD blocks the CephFS clients with no error until the monitor
# marks it down (about 25 s here). With 1 GiB a rank and fsync at close the
# writes block once ceph-fuse's dirty limit (32 MiB here) fills. The
# watchdog must name the blocked write within 15 s and record the run;
# then the OSD is continued (whether or not it was marked down meanwhile),
# the blocked calls return, and the job ends with exit 3.
mkdir -p "$A/stop"
T_RUN=$(date +%s.%N)
timeout -k 5 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$A/stop" -t 1m -b 1g -p write -e \
    --timeout 5 --run-id cephstop -o "$T/stop.h5" >"$T/out" 2>"$T/err" &
BG=$!
for ((w = 0; w < 300; w++)); do
    [ "$(stat -c %s "$A/stop/pfsbench.cephstop.0" 2>/dev/null || echo 0)" -gt $((8 << 20)) ] && break
    kill -0 "$BG" 2>/dev/null || break
    sleep 0.1
done
SP=$(ceph_osd_pid 1)
if [ "$w" -lt 300 ] && kill -0 "$BG" 2>/dev/null && [ -n "$SP" ]; then
    kill -STOP "$SP"
    T_STOP=$(date +%s.%N)
    WD=
    # bounded: 20 s for the watchdog and the record, then the OSD goes on
    for ((w = 0; w < 200; w++)); do
        kill -0 "$BG" 2>/dev/null || break
        [ -z "$WD" ] && grep -q "watchdog" "$T/err" && WD=$(since "$T_STOP")
        grep -q "the run is recorded" "$T/err" && break
        sleep 0.1
    done
    HELD=$(since "$T_STOP")
    kill -CONT "$SP"
    RC=0
    wait "$BG" || RC=$?
    ENDED=$(since "$T_STOP")
    echo "# osd.1 stopped: the first watchdog message after ${WD:-never} s; the OSD continued after $HELD s; pfsbench exited $RC after $ENDED s; stderr:"
    grep '^pfsbench' "$T/err" | sed 's/^/#   /'
    echo "#   recorded: $(err_of "$T/stop.h5")"
    check "OSD stopped, --timeout 5: the watchdog speaks within 15 s (${WD:-never})" \
        cond '[ -n "$WD" ] && awk -v e="$WD" "BEGIN { exit !(e < 15) }"'
    check "OSD stopped, --timeout 5: and names the blocked write and its file" \
        grep -qE "watchdog: rank [0-9]+ on .* blocked .* in write $A/stop/pfsbench.cephstop.[01]" "$T/err"
    check "OSD stopped, --timeout 5: the job ends with exit 3 (rc $RC)" [ "$RC" -eq 3 ]
    check "OSD stopped: recorded failed, once, naming the watchdog" \
        cond 'case "$(err_of "$T/stop.h5")" in failed:*watchdog*) [ "$(nruns_of "$T/stop.h5")" = 1 ];; *) false;; esac'
else
    kill -TERM "$BG" 2>/dev/null
    wait "$BG"
    bad "OSD stopped: the write never reached 8 MiB, or pfsbench ended first, or osd.1 has no process"
fi
check "OSD stopped: the cluster comes back to HEALTH_OK (all OSDs up, every PG clean)" \
    ceph__wait 90 "HEALTH_OK after the stop" ceph__ready
echo "# after the stop: $(cat "$CEPH_SCRATCH/log/ready.out" 2>/dev/null) ready after $(since "$T_RUN") s from the run's start"
rm -rf "${A:?}/stop"

# ---- teardown: nothing left -------------------------------------------------
S=$CEPH_SCRATCH
ceph_stop && ok "teardown: no process, mount, port or scratch state left (${CEPH_T_STOP} s)" || bad "teardown left things behind"
check "teardown: no process of the cluster" [ -z "$(ceph__pids "$S")" ]
check "teardown: no ceph-fuse mount in /proc/mounts" not grep -q "fuse.ceph-fuse" /proc/mounts
check "teardown: nothing listens on 3300, 6789 or 7480" cond '! ceph__listening 3300 && ! ceph__listening 6789 && ! ceph__listening 7480'
echo "# timings: HEALTH_OK after ${CEPH_T_UP} s, teardown ${CEPH_T_STOP} s; whole test $(since "$T_BEGIN") s"
finish
