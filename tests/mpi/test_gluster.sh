#!/bin/bash
# pfsbench on a real distributed file system: a 2-brick GlusterFS distribute
# volume on this machine (tests/lib/glusterfs.sh), mounted by two FUSE
# clients. The data phases in every mode and the metadata phases, with the
# bytes counted on the BRICKS against what the results file says; ranks of
# two fake nodes on two different clients (reads of the other client's data);
# a checkpoint saved on 4 ranks and restored on 2, and 2 on 4, across the
# two clients; two clients appending to one results file at once; a brick
# killed mid-write; --clean after killed ranks; a brick stopped mid-phase
# and during the cache drop under --timeout; a brick stopped 3 s without --timeout (a warning);
# the report and the results file name the mount as it is (fuse.glusterfs,
# its source); stat rates through the creating client and through the other.
# Exits 77 (skipped, said loudly) without root, FUSE or the gluster packages.
. "$PFS_TESTS/mpi/lib.sh"
. "$PFS_TESTS/lib/fakenodes.sh"
. "$PFS_TESTS/lib/glusterfs.sh"
T_BEGIN=$(date +%s.%N)
BIN=$(readlink -f "$PFSBENCH")

RC=0
gl_start 2 || RC=$?
[ "$RC" -eq 77 ] && exit 77
[ "$RC" -eq 0 ] || { echo "FAIL - glusterfs: the volume did not start (rc $RC)"; exit 1; }
# A stopped brick blocks its clients until the ping timeout (42 s by
# default); 15 s keeps the SIGSTOP test short and still well past --timeout 5.
GL_PING=15
gl_cli volume set "$GL_VOL" network.ping-timeout "$GL_PING" >/dev/null || echo "note: could not set network.ping-timeout"
# How long a job blocked on a stopped brick may take to end: the client gives
# up at the ping timeout, which fired 15-40 s after the stop here (a second
# ping period and more under load; a bound of 20 s once failed at 25.6 s), so
# two ping timeouts and a minute for the rest. The wait for the job is the same.
STOP_BOUND=$((2 * GL_PING + 60))
gl_mount "$T/c" 2 || { echo "FAIL - glusterfs: the clients did not mount"; exit 1; }
A=${GL_MOUNTS[0]} B=${GL_MOUNTS[1]}
echo "# timings: glusterd up ${GL_T_UP} s, volume create+start ${GL_T_CREATE} s, 2 mounts ${GL_T_MOUNT} s"
check "mount type is fuse.glusterfs in /proc/mounts" \
    awk -v a="$A" -v b="$B" '($2 == a || $2 == b) && $3 == "fuse.glusterfs" { n++ } END { exit n != 2 }' /proc/mounts
check "the two clients are two FUSE connections (different st_dev)" [ "$(stat -c %d "$A")" != "$(stat -c %d "$B")" ]

# ---- helpers ---------------------------------------------------------------
# brick_files: "SIZE BRICK NAME" for every pfsbench data file on the bricks
# (DHT link files, mode ---------T and empty, are pointers, not data; a kept
# run's status, pfsbench.ID.kept, is not data either).
brick_files() {
    local b
    for b in "${GL_BRICKS[@]}"; do
        find "$b" -path "$b/.glusterfs" -prune -o -type f -name 'pfsbench.*' ! -name '*.kept' ! -perm -1000 -printf "%s $b %P\n"
    done
}
brick_bytes() { brick_files | awk '{ s += $1 } END { print s + 0 }'; }
brick_nfiles() { brick_files | wc -l; }
# each file is whole on one brick: no name on two bricks
brick_once() { [ -z "$(brick_files | awk '{ print $3 }' | sort | uniq -d)" ]; }
# res FILE: status and bytes of each phase of the last run, "complete write=N read=N ..."
res() {
    "$PY" "$PFS_TESTMPI/gluster_checks.py" res "$1"
}
# data_case WHAT NP NFILES BYTES ARGS...: a run on client A with -k; exit 0, every
# phase moved BYTES, the bricks hold NFILES files of BYTES in all, each whole on
# one brick; then the files are removed through client B (the other client).
data_case() {
    local what=$1 np=$2 nf=$3 bytes=$4 got want d
    shift 4
    d=$A/$(echo "$what" | tr -c 'a-z0-9\n' '_')
    mkdir -p "$d"
    rm -f "$T/r.h5"
    run_mpi "$np" 90 -d "$d" -k -o "$T/r.h5" -q "$@"
    check "$what: exit 0" [ "$RC" -eq 0 ]
    got=$(res "$T/r.h5" 2>&1)
    want="complete"
    for p in "${PH[@]}"; do want="$want $p=$bytes/$NOPS"; done
    check "$what: results: every phase moved $bytes bytes ($got)" [ "$got" = "$want" ]
    check "$what: bricks hold $nf files, $bytes bytes ($(brick_nfiles) files, $(brick_bytes) bytes)" \
        cond '[ "$(brick_nfiles)" -eq "$nf" ] && [ "$(brick_bytes)" -eq "$bytes" ]'
    check "$what: each file whole on one brick" brick_once
    echo "# $what: files per brick: $(brick_files | awk '{ n[$2]++ } END { for (b in n) printf "%s:%d ", b, n[b] }')"
    rm -rf "${B:?}/${d#"$A"/}"
    check "$what: removed through the other client, bricks empty" [ "$(brick_nfiles)" -eq 0 ]
}
PH=(write rewrite read reread)
# nruns_of FILE: how many runs the results file holds (or why it cannot say)
nruns_of() { "$PY" -c "import h5py, sys; print(len(h5py.File(sys.argv[1], 'r')['runs']))" "$1" 2>&1 | tail -n 1; }
# cond 'SHELL CONDITION': check's command for a compound condition
cond() { eval "$1"; }
NOPS=""     # filled per case: transfers of each phase, as the results file counts them

# ---- data phases: bytes on the bricks = bytes in the results file ----------
P=write,rewrite,read,reread
NOPS=128 data_case "file per process, 4 ranks" 4 4 $((4 << 20)) -t 32k -b 1m -p $P
NOPS=96 data_case "shared segmented, 3 ranks" 3 1 $((3 << 20)) -t 32k -b 1m -p $P --shared --layout segmented
NOPS=96 data_case "shared strided, 3 ranks" 3 1 $((3 << 20)) -t 32k -b 1m -p $P --shared --layout strided
NOPS=64 data_case "O_DIRECT through FUSE, 2 ranks" 2 2 $((4 << 20)) -t 64k -b 2m -p $P --direct
NOPS=64 data_case "--verify, 2 ranks" 2 2 $((2 << 20)) -t 32k -b 1m -p $P --verify
NOPS=64 data_case "--random, 2 ranks" 2 2 $((2 << 20)) -t 32k -b 1m -p $P --random
NOPS=128 data_case "--threads 2, 2 ranks" 2 4 $((4 << 20)) -t 32k -b 1m -p $P --threads 2
NOPS=64 data_case "MPI-IO independent, file per process" 2 2 $((2 << 20)) -t 32k -b 1m -p $P --api mpiio
NOPS=64 data_case "MPI-IO independent, shared" 2 1 $((2 << 20)) -t 32k -b 1m -p $P --api mpiio --shared
NOPS=64 data_case "MPI-IO collective, shared" 2 1 $((2 << 20)) -t 32k -b 1m -p $P --api mpiio --shared --collective
NOPS=64 data_case "--drop-caches, 2 ranks" 2 2 $((2 << 20)) -t 32k -b 1m -p $P --drop-caches

# ---- what the file system is: the mount's own type and source --------------
# statfs says "fuse"; the report and the results file must say what the
# mount table says (fs_type stays statfs's, for existing readers).
mkdir -p "$A/prov"
rm -f "$T/r.h5"
run_mpi 1 60 -d "$A/prov" -t 64k -b 256k -p write -o "$T/r.h5"
GL_SRC=$(awk -v m="$A" '$5 == m { for (i = 7; $i != "-"; i++); print $(i + 2) }' /proc/self/mountinfo | tail -n 1)
echo "# mountinfo source of client A: $GL_SRC; $(grep '^target' "$T/out")"
check "provenance: the target line names fuse.glusterfs and the source ($GL_SRC)" \
    grep -qxF "target       $A/prov (fuse.glusterfs, $GL_SRC)" "$T/out"
pycheck "provenance: the results file: fs_type fuse, fs_mount_type fuse.glusterfs, fs_source, fs_mount_point, fs_options" \
    gluster provenance "$T/r.h5" "$GL_SRC" "$A"
check "provenance: pfs-results --runs shows it" grep -qF "fuse.glusterfs $GL_SRC" <("$(dirname "$PFSBENCH")/pfs-results" "$T/r.h5" --runs)
rm -rf "${A:?}/prov"

# The stonewall: the wear-out leaves files of equal size, and the bricks hold
# exactly the bytes the results file says were written.
mkdir -p "$A/sw"
rm -f "$T/r.h5"
run_mpi 2 90 -d "$A/sw" -k -o "$T/r.h5" -q -t 1m -b 8g -p write -D 1
got=$(res "$T/r.h5" 2>&1)
wbytes=$(echo "$got" | sed -n 's/.* write=\([0-9]*\)\/.*/\1/p')
check "stonewall -D 1: exit 0, stopped early ($got)" cond '[ "$RC" -eq 0 ] && [ -n "$wbytes" ] && [ "$wbytes" -gt 0 ] && [ "$wbytes" -lt $((16 << 30)) ]'
check "stonewall -D 1: bricks hold what the results say ($(brick_bytes) vs ${wbytes:-?})" [ "$(brick_bytes)" = "${wbytes:-x}" ]
check "stonewall -D 1: wear-out: both files the same size" [ "$(brick_files | awk '{ print $1 }' | sort -u | wc -l)" -eq 1 ]
rm -rf "${A:?}/sw"

# ---- metadata phases, both directory modes ---------------------------------
for dirs in shared per-rank; do
    mkdir -p "$A/md-$dirs"
    rm -f "$T/r.h5"
    run_mpi 2 90 -d "$A/md-$dirs" -o "$T/r.h5" -q -p create,stat,read-files,delete --files 25 --file-size 4k --dirs "$dirs"
    got=$(res "$T/r.h5" 2>&1)
    check "metadata --dirs $dirs: exit 0, 50 files per phase, 200 KiB created and read ($got)" \
        cond '[ "$RC" -eq 0 ] && [ "$got" = "complete create=204800/50 stat=0/50 read-files=204800/50 delete=0/50" ]'
    check "metadata --dirs $dirs: nothing left on the bricks or the mount" \
        cond '[ "$(brick_nfiles)" -eq 0 ] && [ -z "$(ls -A "$A/md-$dirs")" ]'
done

# ---- two fake nodes, each on its own client --------------------------------
# An rsh agent like tests/lib/fake-rsh, plus a private mount namespace per
# node in which that node's client is bind-mounted on one common path $X:
# ranks of node1 reach the volume through client A, ranks of node2 through
# client B, with the same -d. The namespaces (and the binds) die with the job.
X=$T/pernode
mkdir -p "$X"
cat >"$T/gl-rsh" <<EOF
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
case \$host in node1) m=$A ;; node2) m=$B ;; *) echo "gl-rsh: no client for \$host" >&2; exit 255 ;; esac
exec unshare --uts --mount --propagation private /bin/sh -c \
    'hostname "\$1" && mount --bind "\$2" "\$3" && stat -c %d "\$3" >"\$4" || exit 255; shift 4; exec /bin/sh -c "\$*"' \
    gl-rsh "\$host" "\$m" "$X" "$T/dev.\$host" "\$@"
EOF
chmod +x "$T/gl-rsh"
fakenodes_setup 2 2
RC=0
timeout -k 5 90 mpirun -np 4 --hostfile "$FAKENODES_HOSTFILE" --map-by node -x PFSBENCH_PLACEMENT=round-robin \
    --mca plm_rsh_agent "$T/gl-rsh" --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo \
    --oversubscribe --bind-to none "$BIN" -d "$X" -t 64k -b 2m -p write,read -C --verify -k -v -o "$T/xn.h5" \
    >"$T/out" 2>"$T/err" || RC=$?
check "2 nodes x 2 ranks, node1 on client A, node2 on client B: exit 0" [ "$RC" -eq 0 ]
check "2 nodes: node1's ranks saw client A, node2's client B" \
    cond '[ "$(cat "$T/dev.node1" 2>/dev/null)" = "$(stat -c %d "$A")" ] && [ "$(cat "$T/dev.node2" 2>/dev/null)" = "$(stat -c %d "$B")" ]'
check "2 nodes: placement rank r on node r mod 2" placement_is 2
check "2 nodes: -C reads what the other node (the other client) wrote" has "on another node"
got=$(res "$T/xn.h5" 2>&1)
check "2 nodes: results: 8 MiB written and read back verified across clients ($got)" \
    [ "$got" = "complete write=8388608/128 read=8388608/128" ]
check "2 nodes: bricks hold 4 files, 8 MiB" cond '[ "$(brick_nfiles)" -eq 4 ] && [ "$(brick_bytes)" -eq 8388608 ]'
pycheck "2 nodes: per-node bytes 4 MiB each" gluster node_bytes "$T/xn.h5"
rm -rf "${A:?}"/pfsbench.*

# xnp NP ARGS...: NP ranks round-robin over the two fake nodes, each node
# on its own client (as above), -d on the common path.
xnp() {
    local np=$1
    shift
    RC=0
    timeout -k 5 90 mpirun -np "$np" --hostfile "$FAKENODES_HOSTFILE" --map-by node -x PFSBENCH_PLACEMENT=round-robin \
        --mca plm_rsh_agent "$T/gl-rsh" --mca oob_tcp_if_include lo --mca btl_tcp_if_include lo \
        --oversubscribe --bind-to none "$BIN" -d "$X" "$@" >"$T/out" 2>"$T/err" || RC=$?
}

# Issue 32: checkpoints on a real distributed file system, resharded both
# ways across the two clients: the tiny preset (TP 1 x PP 2, 4,545,674
# bytes) saved on 4 ranks and restored on 2, saved on 2 and restored on 4,
# every byte verified; each restore's readers read shards the other
# node's client wrote.
TINY=4545674
for way in 4:2:1x2x2 2:4:1x2x1; do
    IFS=: read -r nsave nrest saved <<<"$way"
    what="checkpoint $nsave -> $nrest ranks on 2 clients"
    xnp "$nsave" -t 64k -p ckpt-save --ckpt tiny --verify -k --run-id "G$nsave" -o "$T/cs$nsave.h5" -q
    check "$what: the save: exit 0" [ "$RC" -eq 0 ]
    check "$what: the bricks hold the checkpoint's $TINY bytes, each file on one brick" \
        cond '[ "$(brick_bytes)" -eq $TINY ] && brick_once'
    pycheck "$what: the save moved $TINY bytes" ckpt figures "$T/cs$nsave.h5" ckpt-save $TINY
    xnp "$nrest" -t 64k -p ckpt-restore --ckpt tiny --ckpt-saved "$saved" --run-id "G$nsave" --verify \
        -o "$T/cr$nsave.h5" -q
    check "$what: the restore, --verify: exit 0" [ "$RC" -eq 0 ]
    pycheck "$what: the restore read every byte once" ckpt figures "$T/cr$nsave.h5" ckpt-restore $TINY
    rm -rf "${A:?}"/pfsbench.*
done

# Metadata caches: stat and read-files right after a create through the same
# client can be answered by that client's attribute and entry caches (1 s
# by default); with -C across the two nodes they go through the other one.
# The rates are printed (they vary with timing); the warning is checked.
xnode() { xnp 4 "$@"; }
md_rate() { awk -v p="$1" '/^summary/ { exit } $1 == p && $2 ~ /^[0-9]+$/ { printf "%s%.0f", n++ ? "," : "", $3 }' "$T/out"; }
MD=(-p "create,stat,read-files,delete" --files 200 --file-size 4k --dirs per-rank -i 2 --no-results)
xnode "${MD[@]}"
same_rc=$RC same_stat=$(md_rate stat) same_read=$(md_rate read-files)
check "metadata, 2 nodes, no -C: exit 0" [ "$same_rc" -eq 0 ]
check "metadata, 2 nodes, no -C: warned that stat and read-files may be cache hits of this client" \
    grep -qE "^warning +stat and read-files rates may be cache hits of this client: .*fuse.glusterfs.*-C reads on another node's client" "$T/out"
# One repetition with -C: in a second one the names deleted and created
# again within the client's 1 s entry timeout can resolve, through the other
# client, to the deleted file (open works, read gives ENOENT) — the file
# system's cache, seen here once in a few runs; docs/glusterfs-testing.md.
xnode "${MD[@]:0:8}" -i 1 --no-results -C
other_rc=$RC other_stat=$(md_rate stat) other_read=$(md_rate read-files)
check "metadata, 2 nodes, -C: exit 0" [ "$other_rc" -eq 0 ]
check "metadata, 2 nodes, -C: stat and read-files on the other client, no cache warning" \
    cond 'grep -q "stat and read-files reordered" "$T/out" && ! grep -q "may be cache hits" "$T/out"'
echo "# metadata, 4 ranks on 2 fake nodes, 200 files of 4 KiB per rank, per-rank dirs, 2 reps (1 with -C): stat files/s same client ${same_stat:-?}, other client (-C) ${other_stat:-?}; read-files same ${same_read:-?}, other ${other_read:-?}"
check "2 nodes: no bind mount left on $X" not gl__mounted "$X"

# ---- two clients append to one results file on the volume at once ---------
# The results lock must cross clients (a directory flock does not on FUSE):
# 6 pairs of runs, one through each client, every run must land.
mkdir -p "$A/app"
ls "$B/app" >/dev/null
RES=app/results.h5
napp_rc=0
for i in 1 2 3 4 5 6; do
    timeout -k 5 60 "$BIN" -d "$A/app" -t 64k -b 256k -p write -q -o "$A/$RES" --label "A$i" >"$T/appA.$i" 2>&1 &
    pa=$!
    timeout -k 5 60 "$BIN" -d "$B/app" -t 64k -b 256k -p write -q -o "$B/$RES" --label "B$i" >"$T/appB.$i" 2>&1 &
    pb=$!
    wait "$pa" || napp_rc=$((napp_rc + 1))
    wait "$pb" || napp_rc=$((napp_rc + 1))
done
# Read it after the clients' 1 s entry and attribute caches have expired: a
# client that cached the name of a file the other client has since renamed
# over can fail the open with ENOENT. Through both clients, and on the bricks.
sleep 1.5
nruns=$(nruns_of "$A/$RES")
nruns_b=$(nruns_of "$B/$RES")
on_bricks=$(for b in "${GL_BRICKS[@]}"; do find "$b" -path "$b/.glusterfs" -prune -o -type f -name results.h5 ! -perm -1000 -printf "%s "; done)
echo "# cross-client append: $napp_rc of 12 runs exited non-zero; the results file: $nruns runs through A, $nruns_b through B; on the bricks: ${on_bricks:-none} bytes"
cat "$T"/appA.* "$T"/appB.* | grep -v -e '^ *$' -e '^phase ' -e '^summary ' -e '^write ' | sort | uniq -c >"$T/err"
: >"$T/out"
check "cross-client append: 12 runs exit 0 ($napp_rc did not)" [ "$napp_rc" -eq 0 ]
check "cross-client append: all 12 runs landed in the results file ($nruns through A, $nruns_b through B)" cond '[ "$nruns" = 12 ] && [ "$nruns_b" = 12 ]'
rm -rf "${A:?}/app"

# ---- helpers for the fault tests -------------------------------------------
# err_of FILE: "status: error" of the last run
err_of() {
    "$PY" -c 'import sys, h5py
f = h5py.File(sys.argv[1], "r"); r = f["runs"][sorted(f["runs"])[-1]]
print("%s: %s" % (r.attrs["status"], r.attrs["error"]))' "$1" 2>&1 | tail -n 1
}
start_bg() {
    local np=$1
    shift
    T_RUN=$(date +%s.%N)
    timeout -k 5 120 mpirun -np "$np" $(one_rank_exit "$np") --oversubscribe --bind-to none "$PFSBENCH" "$@" >"$T/out" 2>"$T/err" &
    BG=$!
}
wait_bg() { RC=0; wait "$BG" || RC=$?; ELAPSED=$(awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'); }
# brick_with RUNID: the number (1..n) of a brick holding a non-empty file of that
# run, waiting up to 30 s for one to appear
brick_with() {
    local i w
    for ((w = 0; w < 300; w++)); do
        for ((i = 1; i <= GL_NBRICKS; i++)); do
            [ -n "$(find "${GL_BRICKS[i - 1]}" -path '*/.glusterfs' -prune -o -type f -name "pfsbench.$1.*" -size +4M -print -quit)" ] &&
                { echo "$i"; return 0; }
        done
        sleep 0.1
    done
    return 1
}
# revive PID: restart a brick killed as PID. glusterd takes a brick whose
# pid file names a process still in /proc (a zombie not yet reaped by init)
# for running, so wait for it to go first; then `volume start force`, until
# gluster says every brick is online and both clients create files again.
revive() {
    local dead=$1 i k m ok=0
    for ((i = 0; i < 100; i++)); do [ -e "/proc/$dead" ] || break; sleep 0.1; done
    for ((i = 0; i < 60; i++)); do
        if [ $((i % 10)) -eq 0 ]; then gl_cli volume start "$GL_VOL" force >/dev/null 2>&1; fi
        [ "$(gl_cli volume status "$GL_VOL" 2>/dev/null | grep -c '^Brick .* Y ')" -eq "$GL_NBRICKS" ] || { sleep 0.3; continue; }
        ok=1
        for m in "$A" "$B"; do
            for k in 1 2 3 4 5 6 7 8; do ( : >"$m/probe.$k" ) 2>/dev/null || ok=0; done
        done
        [ "$ok" -eq 1 ] && break
        sleep 0.3
    done
    rm -f "$A"/probe.*
    GL_BRICK_PIDS=()
    for ((i = 1; i <= GL_NBRICKS; i++)); do GL_BRICK_PIDS+=("$(gl_brick_pid "$i")"); done
    [ "$ok" -eq 1 ]
}

# ---- a brick SIGKILLed mid-write -------------------------------------------
mkdir -p "$A/kill"
start_bg 2 -d "$A/kill" -t 1m -b 1g -p write --run-id glkill -o "$T/kill.h5"
K=$(brick_with glkill) || K=
KP=
if [ -n "$K" ]; then
    KP=$(gl_brick_pid "$K")
    kill -KILL "$KP"
    T_KILL=$(date +%s.%N)
    wait_bg "$T_KILL"
    echo "# brick $K killed: pfsbench exited $RC after $ELAPSED s"
    check "brick killed: all ranks exit 1 (rc $RC)" [ "$RC" -eq 1 ]
    check "brick killed: within 60 s ($ELAPSED s)" awk -v e="$ELAPSED" 'BEGIN { exit !(e < 60) }'
    check "brick killed: stderr names the errno" grep -qE "Transport endpoint is not connected|ENOTCONN|Input/output error|EIO" "$T/err"
    check "brick killed: the run is recorded failed" [ "$(res "$T/kill.h5" 2>&1 | cut -d' ' -f1)" = failed ]
    grep '^pfsbench' "$T/err" | sed 's/^/#   /'
    echo "#   recorded: $(err_of "$T/kill.h5")"
else
    bad "brick killed: no data of the run appeared on a brick"
    wait_bg "$T_RUN"
fi
check "brick killed: the brick comes back (volume start force), both clients write again" revive "${KP:-0}"
# What the failed run could not remove (its files on the dead brick) must be
# named, with a pointer to --clean (issue 13: clean-up failures are never silent).
left=$(ls -A "$A/kill" 2>/dev/null | tr '\n' ' ')
echo "# brick killed: left on the volume after the brick came back: ${left:-nothing}"
check "brick killed: files the clean-up could not remove are reported with a pointer to --clean" \
    cond '[ -z "$left" ] || grep -q -- "--clean" "$T/err"'
rm -rf "${A:?}/kill"

# ---- --clean on the volume after the ranks were SIGKILLed -------------------
mkdir -p "$A/clean"
start_bg 2 -d "$A/clean" -t 1m -b 1g -p write --run-id glclean --no-results
brick_with glclean >/dev/null || true
for p in $(pgrep -f "^$PFSBENCH -d $A/clean"); do kill -KILL "$p"; done
wait_bg "$T_RUN"
check "killed ranks: mpirun ends, non-zero, well before its timeout (rc $RC, $ELAPSED s)" \
    cond '[ "$RC" -ne 0 ] && awk -v e="$ELAPSED" "BEGIN { exit !(e < 60) }"'
ndata() { find "$1" -maxdepth 1 -regex '.*/pfsbench\.glclean\.[0-9]+' 2>/dev/null | wc -l; }
check "killed ranks: their 2 data files are left on the volume" [ "$(ndata "$A/clean")" -eq 2 ]
RC=0; timeout 60 "$PFSBENCH" --clean -d "$A/clean" >"$T/out" 2>"$T/err" || RC=$?
check "--clean lists the 2 leftover data files on the volume, removes nothing" \
    cond '[ "$RC" -eq 0 ] && grep -q "^leftover .*/pfsbench.glclean.0 " "$T/out" && grep -q "^leftover .*/pfsbench.glclean.1 " "$T/out" && [ "$(ndata "$A/clean")" -eq 2 ]'
RC=0; timeout 60 "$PFSBENCH" --clean --yes -d "$B/clean" >"$T/out" 2>"$T/err" || RC=$?
check "--clean --yes through the other client removes them" \
    cond '[ "$RC" -eq 0 ] && [ -z "$(ls -A "$B/clean")" ] && [ -z "$(ls -A "$A/clean")" ]'
check "--clean --yes: the bricks hold no pfsbench file" [ "$(brick_nfiles)" -eq 0 ]
rm -rf "${A:?}/clean"

# ---- a brick SIGSTOPped mid-phase, --timeout 5 -----------------------------
# Expected (issue 13): the watchdog fires (exit 3) naming the stall within
# about 5 s, records the run once and ends the job. Every rank may be
# blocked in write() on the stopped brick; those calls end only with the
# client's ping timeout (15 s here; it fired 15-40 s after the stop).
mkdir -p "$A/stop"
start_bg 2 -d "$A/stop" -t 1m -b 1g -p write --run-id glstop --timeout 5 -o "$T/stop.h5"
K=$(brick_with glstop) || K=
if [ -n "$K" ]; then
    SP=$(gl_brick_pid "$K")
    kill -STOP "$SP"
    T_STOP=$(date +%s.%N)
    # bounded: wait at most STOP_BOUND s for pfsbench to end, then the brick is let go
    WD=
    for ((w = 0; w < STOP_BOUND * 10; w++)); do
        kill -0 "$BG" 2>/dev/null || break
        [ -z "$WD" ] && grep -q "watchdog" "$T/err" &&
            WD=$(awk -v a="$T_STOP" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        sleep 0.1
    done
    [ -z "$WD" ] && grep -q "watchdog" "$T/err" && WD=never-before-the-exit
    STOPPED=$(awk -v a="$T_STOP" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    kill -CONT "$SP" 2>/dev/null
    wait_bg "$T_STOP"
    [ "$w" -ge $((STOP_BOUND * 10)) ] && echo "# brick stopped: pfsbench still ran after $STOP_BOUND s; the brick was continued"
    ELAPSED=$STOPPED
    echo "# brick $K stopped: the first watchdog message after ${WD:-never} s; pfsbench exited $RC after $ELAPSED s; stderr:"
    grep '^pfsbench' "$T/err" | sed 's/^/#   /'
    echo "#   recorded: $(err_of "$T/stop.h5")"
    check "brick stopped, --timeout 5: the watchdog speaks within 15 s (${WD:-never})" \
        cond '[ -n "$WD" ] && awk -v e="$WD" "BEGIN { exit !(e + 0 == e && e < 15) }"'
    check "brick stopped, --timeout 5: and names the blocked call" grep -qE "watchdog: rank [0-9]+ on .* blocked .* in write" "$T/err"
    check "brick stopped, --timeout 5: the job ends with exit 3 (rc $RC)" [ "$RC" -eq 3 ]
    # The job itself cannot end before the client answers: a process blocked
    # in a FUSE request the server already has cannot exit (the kernel waits
    # uninterruptibly for the answer), so the ranks go when the client gives
    # up on the brick (its ping timeout, 15 s here, took 15-40 s). pfsbench's
    # part is done at the watchdog: message, record, its files; the bound is
    # the loop's STOP_BOUND s.
    check "brick stopped, --timeout 5: the job ends once the client gives up on the brick ($ELAPSED s < $STOP_BOUND s)" awk -v e="$ELAPSED" -v m="$STOP_BOUND" 'BEGIN { exit !(e < m) }'
    check "brick stopped: recorded failed, naming the watchdog" sh -c 'case "$1" in *watchdog*) exit 0;; esac; exit 1' sh "$(err_of "$T/stop.h5")"
    check "brick stopped: the run is recorded once ($(nruns_of "$T/stop.h5") runs in its results file)" [ "$(nruns_of "$T/stop.h5")" = 1 ]
else
    bad "brick stopped: no data of the run appeared on a brick"
    wait_bg "$T_RUN"
fi
check "brick stopped: the volume serves both clients again" revive 0
rm -rf "${A:?}/stop"

# ---- a brick SIGSTOPped during the cache drop, --timeout 5 -----------------
# --drop-caches before the read: each rank fdatasyncs its file, then the
# node's lowest rank syncs and writes drop_caches. The stall shim holds each
# rank's first fdatasync 1 s and leaves a mark as it begins: the brick with
# the run's data is stopped then, so the real fdatasync (and what follows)
# meet a stopped server, in the step before the read phase.
PRELOAD="${LD_PRELOAD:+$LD_PRELOAD:}${PFS_STALL_LIB:-}"
if [ -n "${PFS_STALL_LIB:-}" ] && [ -e "$PFS_STALL_LIB" ]; then
    mkdir -p "$A/dstop"
    rm -f "$T/mark"
    T_RUN=$(date +%s.%N)
    env LD_PRELOAD="$PRELOAD" PFS_STALL_SECS=1 PFS_STALL_CALL=fdatasync PFS_STALL_MARK="$T/mark" \
        timeout -k 5 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$A/dstop" -t 1m -b 8m \
        -p write,read --drop-caches --timeout 5 --run-id gldrop -o "$T/drop.h5" >"$T/out" 2>"$T/err" &
    BG=$!
    for ((w = 0; w < 300; w++)); do [ -e "$T/mark" ] && break; kill -0 "$BG" 2>/dev/null || break; sleep 0.1; done
    K=$(brick_with gldrop) || K=
    if [ -e "$T/mark" ] && [ -n "$K" ]; then
        SP=$(gl_brick_pid "$K")
        kill -STOP "$SP"
        T_STOP=$(date +%s.%N)
        WD=
        for ((w = 0; w < STOP_BOUND * 10; w++)); do # bounded: STOP_BOUND s, then the brick is let go
            kill -0 "$BG" 2>/dev/null || break
            [ -z "$WD" ] && grep -q "watchdog" "$T/err" &&
                WD=$(awk -v a="$T_STOP" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
            sleep 0.1
        done
        STOPPED=$(awk -v a="$T_STOP" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
        kill -CONT "$SP" 2>/dev/null
        wait_bg "$T_STOP"
        echo "# brick $K stopped in the cache drop: the first watchdog message after ${WD:-never} s; pfsbench exited $RC after $STOPPED s; stderr:"
        grep '^pfsbench' "$T/err" | sed 's/^/#   /'
        echo "#   recorded: $(err_of "$T/drop.h5")"
        check "brick stopped in the cache drop, --timeout 5: the watchdog speaks within 15 s (${WD:-never})" \
            cond '[ -n "$WD" ] && awk -v e="$WD" "BEGIN { exit !(e + 0 == e && e < 15) }"'
        check "brick stopped in the cache drop: the step is named (the preparation of read)" \
            grep -qE "watchdog: rank [0-9]+ on .* blocked .*during the preparation of read \(repetition 0\)" "$T/err"
        check "brick stopped in the cache drop: exit 3 (rc $RC), the job gone within $STOP_BOUND s ($STOPPED s)" \
            cond '[ "$RC" -eq 3 ] && awk -v e="$STOPPED" -v m="$STOP_BOUND" "BEGIN { exit !(e < m) }"'
        check "brick stopped in the cache drop: recorded failed, once, naming the watchdog" \
            cond 'case "$(err_of "$T/drop.h5")" in failed:*watchdog*) [ "$(nruns_of "$T/drop.h5")" = 1 ];; *) false;; esac'
    else
        kill -TERM "$BG" 2>/dev/null
        wait_bg "$T_RUN"
        bad "brick stopped in the cache drop: the drop never began or no data on a brick (mark: $([ -e "$T/mark" ] && echo yes || echo no))"
    fi
    check "brick stopped in the cache drop: the volume serves both clients again" revive 0
    rm -rf "${A:?}/dstop"
else
    bad "brick stopped in the cache drop: PFS_STALL_LIB (the stall shim) is not set; ctest sets it"
fi

# ---- a brick stopped 3 s, no --timeout: a long-blocked call is a warning ----
mkdir -p "$A/lb"
start_bg 2 -d "$A/lb" -t 1m -b 512m -p write --run-id gllb --stall-warn 1 -o "$T/lb.h5"
K=$(brick_with gllb) || K=
if [ -n "$K" ]; then
    SP=$(gl_brick_pid "$K")
    kill -STOP "$SP"
    sleep 3
    kill -CONT "$SP"
    wait_bg "$T_RUN"
    LB=$(grep -m 1 "long-blocked call" "$T/out")
    echo "# brick $K stopped 3 s without --timeout: pfsbench exited $RC after $ELAPSED s; ${LB:-no long-blocked warning}"
    check "brick stopped 3 s, no --timeout: the run completes or fails, no hang (rc $RC, $ELAPSED s)" \
        cond '[ "$RC" -eq 0 ] || [ "$RC" -eq 1 ]'
    check "brick stopped 3 s: the report warns of the long-blocked call" \
        grep -qE "^warning +long-blocked call: rank [0-9]+ on [^ ]+ was blocked [0-9.]+ s in " "$T/out"
    check "brick stopped 3 s: blocked at least 2 s, as long as the stop (${LB:-none})" \
        awk '/long-blocked call/ { for (i = 1; i < NF; i++) if ($i == "blocked" && $(i + 1) + 0 >= 2) f = 1 } END { exit !f }' "$T/out"
    check "brick stopped 3 s: and the results file has the warning" \
        sh -c 'case "$1" in *"long-blocked call: rank "*) exit 0;; esac; exit 1' sh \
        "$("$PY" -c 'import sys, h5py; f = h5py.File(sys.argv[1], "r"); print(f["runs"][sorted(f["runs"])[-1]].attrs["warnings"])' "$T/lb.h5" 2>&1)"
else
    kill -CONT "$(gl_brick_pid 1)" "$(gl_brick_pid 2)" 2>/dev/null
    bad "brick stopped 3 s: no data of the run appeared on a brick"
    wait_bg "$T_RUN"
fi
rm -rf "${A:?}/lb"

# ---- teardown: nothing left -------------------------------------------------
S=$GL_SCRATCH
gl_stop && ok "teardown: no process, mount or scratch state left (${GL_T_STOP} s)" || bad "teardown left things behind"
check "teardown: no glusterd/glusterfsd/glusterfs process of the volume" [ -z "$(gl__pids "$S" "$GL_VOL")" ]
check "teardown: no mount of the volume in /proc/mounts" not grep -q "$GL_VOL" /proc/mounts
echo "# timings: glusterd up ${GL_T_UP} s, create+start ${GL_T_CREATE} s, mounts ${GL_T_MOUNT} s, teardown ${GL_T_STOP} s; whole test $(awk -v a="$T_BEGIN" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s"
finish
