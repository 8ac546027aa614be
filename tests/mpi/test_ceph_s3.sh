#!/bin/bash
# --api s3 (S3 through libs3) against the Ceph harness's RADOS gateway
# (tests/lib/ceph.sh: radosgw on 127.0.0.1:7480, its user's keys in a file
# of mode 0600), 2 ranks: an object per stream, written and rewritten by one
# streamed PUT each, read and reread by ranged GETs with --verify, two
# repetitions, kept (-k):
# the bucket holds exactly those objects and their sizes (s3 list) add up
# to the bytes a repetition reports; the keys, read from --s3-key-file, are
# in no process's command line during the run nor in the results file; an
# object changed between the write and a read-only --verify run (put back
# by the s3 tool with the same metadata) is caught at its offset, and one
# put back without pfsbench's metadata is refused as not the run's; an
# object already in the bucket under a name the run would make is refused
# (the HEAD before the PUT), named, and left byte for byte as it was, while
# the object the other rank made is removed; --threads 2 without -k leaves
# nothing in the bucket; a bucket that is not there is named with the S3
# status (exit 2, nothing made). Refused before any server is needed (exit
# 2, nothing made): no --s3-bucket, a metadata phase, --shared, --random
# writes, a key file others can read. A pfsbench built without libs3
# (-DPFS_WITH_S3=OFF) is checked for its refusal alone. Exits 77 (skipped,
# said loudly) where the harness cannot start a cluster.
. "$(dirname "$0")/lib.sh"
. "$PFS_TESTMPI/ceph_lib.sh"
ceph_test_begin

ceph_not_built_or s3 libs3-dev libs3

# --- refused before anything is made (no server needed; one rank: an
# mpirun with a rank that exits 2 waits 2 s more at 2 ranks)
S=(-a s3 --s3-endpoint 127.0.0.1:1)
run_mpi 1 60 -d "$T/d" -a s3 --no-results
refused "no --s3-bucket" "--api s3 needs --s3-bucket BUCKET"
run_mpi 1 60 -d "$T/d" "${S[@]}" --s3-bucket b -p create,stat,delete --no-results
refused "a metadata phase" "--phases create with --api s3: create works on small files and directories"
run_mpi 1 60 -d "$T/d" "${S[@]}" --s3-bucket b -p write --shared --no-results
refused "--shared" "--shared with --api s3: an S3 object cannot be written at offsets"
run_mpi 1 60 -d "$T/d" "${S[@]}" --s3-bucket b -p write,read --random --no-results
refused "--random writes" "--random with a write phase and --api s3: an S3 object is written by one PUT"
export S3_HOSTNAME=$(printf 'h%.0s' {1..64}).example:80
run_mpi 1 60 -d "$T/d" -a s3 --s3-bucket b --no-results
refused "an S3_HOSTNAME too long" "--api s3: S3_HOSTNAME is longer than the 63 bytes --s3-endpoint takes"
unset S3_HOSTNAME
printf 'S3_ACCESS_KEY_ID=a\nS3_SECRET_ACCESS_KEY=b\n' >"$T/k644"
chmod 644 "$T/k644"
run_mpi 1 60 -d "$T/d" "${S[@]}" --s3-bucket b --s3-key-file "$T/k644" --no-results
refused "a key file others can read" "--s3-key-file $T/k644: mode 644: a file of keys must be a regular file only its owner can read"

ceph_start_or_skip
# The keys stay in their file; the s3 tool reads them from its environment.
s3do() { RC=0; (. "$CEPH_S3_ENV" && timeout 60 s3 -u -r 0 "$@") >"$T/s3out" 2>"$T/s3err" || RC=$?; [ "$RC" -eq 0 ] && ! grep -q ERROR "$T/s3err"; }
B=pfsb
check "the s3 tool makes the bucket" s3do create "$B"
K=(-a s3 --s3-bucket "$B" --s3-endpoint "127.0.0.1:$CEPH_RGW_PORT" --s3-key-file "$CEPH_S3_ENV")
R=("${K[@]}" -t 64k -b 1m)
bucket_ls() { # KEY=SIZE of each object in the bucket (s3 list, then s3 head's Content-Length)
    local k out=
    s3do list "$B" || { echo "list failed"; return; }
    for k in $(awk '$1 ~ /^pfsbench/ { print $1 }' "$T/s3out" | sort); do
        s3do head "$B/$k"
        out+="$k=$(sed -n 's/^Content-Length: *//p' "$T/s3out" | tr -d '\r') "
    done
    echo "${out% }"
}
res() { "$PY" "$PFS_TESTMPI/ceph_s3_checks.py" res "$T/r.h5" 2>&1 | tail -n 1; }

# --- a bucket that is not there: each rank asks before anything is made
run_refused 2 90 -d "$T/d" "${K[@]}" --s3-bucket nosuchbucket -o "$T/r.h5"
refused "a bucket that is not there" "--api s3: bucket nosuchbucket at 127.0.0.1:$CEPH_RGW_PORT (http): S3_test_bucket: S3 status ErrorNoSuchBucket"
check "a bucket that is not there: no results file" [ ! -e "$T/r.h5" ]

# --- an object per stream, --verify, -i 2, -k, the keys from the file;
# meanwhile every process's command line is read for the keys.
T0=$(date +%s.%N)
# The keys go to grep as a pattern file (printf is a builtin), so that
# grep's own command line does not hold them.
keys_in_cmdlines() { (. "$CEPH_S3_ENV" && grep -lsaF -f <(printf '%s\n' "$S3_ACCESS_KEY_ID" "$S3_SECRET_ACCESS_KEY") /proc/[0-9]*/cmdline); }
timeout -k 5 90 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$T/d" "${R[@]}" -p write,rewrite,read,reread \
    --verify -i 2 -k --run-id nn -o "$T/r.h5" >"$T/out" 2>"$T/err" &
BG=$!
SEEN=0 LOOKS=0
while kill -0 "$BG" 2>/dev/null; do
    keys_in_cmdlines >/dev/null && SEEN=1
    LOOKS=$((LOOKS + 1))
    sleep 0.05
done
RC=0
wait "$BG" || RC=$?
check "per stream, --verify -i 2 -k: exit 0 ($(head -c 300 "$T/err"))" [ "$RC" -eq 0 ]
check "no process's command line held the keys during the run ($LOOKS looks)" [ "$SEEN" -eq 0 ]
got=$(res)
check "per stream: every phase moved 2 x 2 MiB in 2 x 32 transfers ($got)" \
    [ "$got" = "s3 complete write=4194304/64 rewrite=4194304/64 read=4194304/64 reread=4194304/64" ]
pycheck "per stream: the latency histograms count every transfer, an open and a close per stream" \
    ceph_s3 counted "$T/r.h5" 2
pycheck "the keys are in no byte of the results file; its config names the api" \
    ceph_s3 no_keys "$T/r.h5" "$CEPH_S3_ENV"
got=$(bucket_ls)
check "-k: the bucket holds the 2 objects kept, 1 MiB each: a repetition's 2 MiB ($got)" \
    [ "$got" = "pfsbench.nn.0=1048576 pfsbench.nn.1=1048576" ]

# --- an object changed between the write and a read-only --verify run:
# the s3 tool puts it back with one byte changed and pfsbench's metadata.
s3do head "$B/pfsbench.nn.1"
TOK=$(sed -n 's/^ *x-amz-meta-pfsbench-id: *//p' "$T/s3out" | tr -d '\r')
check "the object carries pfsbench's token ($TOK)" [ "${#TOK}" -eq 16 ]
s3do get "$B/pfsbench.nn.1" filename="$T/o1"
corrupt_byte "$T/o1" 300000
s3do put "$B/pfsbench.nn.1" filename="$T/o1" "x-amz-meta-pfsbench-id=$TOK"
run_mpi 2 90 -d "$T/d" "${R[@]}" -p read --verify --run-id nn -o "$T/r.h5"
check "a changed byte: the --verify read fails (rc $RC)" [ "$RC" -ne 0 ]
check "a changed byte: named with the object and its offset ($(grep -m1 verif "$T/err" | head -c 300))" \
    grep -qF "verify $T/d/pfsbench.nn.1 at offset 300000: 1 mismatching" "$T/err"
s3do put "$B/pfsbench.nn.1" filename="$T/o1"
run_mpi 2 90 -d "$T/d" "${R[@]}" -p read --verify --run-id nn -o "$T/r.h5"
check "an object put back without pfsbench's metadata: refused as not the run's (rc $RC; $(grep -m1 nn.1 "$T/err" | head -c 300))" \
    cond '[ "$RC" -ne 0 ] && grep -qF "object pfsbench.nn.1 in bucket $B at 127.0.0.1:$CEPH_RGW_PORT: open:" "$T/err" && grep -qF "not an object pfsbench made, left alone" "$T/err"'
got=$(bucket_ls)
check "read-only runs remove nothing they did not make ($got)" \
    [ "$got" = "pfsbench.nn.0=1048576 pfsbench.nn.1=1048576" ]
s3do delete "$B/pfsbench.nn.0"
s3do delete "$B/pfsbench.nn.1"

# --- an object already there under a name the run would make
head -c 100000 /dev/urandom >"$T/pre"
s3do put "$B/pfsbench.col.1" filename="$T/pre"
run_mpi 2 90 -d "$T/d" "${R[@]}" -p write,read --run-id col -o "$T/r.h5"
check "a name already in the bucket: the run fails (rc $RC)" [ "$RC" -ne 0 ]
check "a name already in the bucket: named with the object, the bucket and the HEAD ($(grep -m1 col.1 "$T/err" | head -c 300))" \
    grep -qF "object pfsbench.col.1 in bucket $B at 127.0.0.1:$CEPH_RGW_PORT: HEAD before the PUT: File exists" "$T/err"
s3do get "$B/pfsbench.col.1" filename="$T/post"
check "a name already in the bucket: the object is left byte for byte as it was" cmp -s "$T/pre" "$T/post"
got=$(bucket_ls)
check "a name already in the bucket: the object rank 0 made is removed, the other left ($got)" \
    [ "$got" = "pfsbench.col.1=100000" ]
s3do delete "$B/pfsbench.col.1"

# --- --threads 2, no -k, the keys from the environment: nothing left
(. "$CEPH_S3_ENV" && export S3_ACCESS_KEY_ID S3_SECRET_ACCESS_KEY &&
    run_mpi 2 90 -d "$T/d" -a s3 --s3-bucket "$B" -t 64k -b 1m -p write,read --verify --threads 2 --run-id th -o "$T/r.h5" &&
    echo "$RC" >"$T/rc")
check "--threads 2, keys from the environment: exit 0 ($(head -c 300 "$T/err"))" [ "$(cat "$T/rc")" = 0 ]
got=$(res)
check "--threads 2: 4 streams' 4 MiB written and read ($got)" [ "$got" = "s3 complete write=4194304/64 read=4194304/64" ]
got=$(bucket_ls)
check "--threads 2, no -k: nothing left in the bucket ($got)" [ -z "$got" ]
echo "# runs: $(since "$T0") s"
# --- a run killed (SIGKILL, every rank) mid-write leaves its objects (the
# empty PUT at the open carries the run's token beside the object's) and
# its lock, whose last line holds the token: --clean -a s3 lists and
# removes exactly those; objects of the run's names it did not make (no
# mark; another run's mark) are named and left byte for byte.
T0=$(date +%s.%N)
timeout -k 5 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$T/d" "${K[@]}" -t 1m -b 200m -p write \
    --run-id kl --no-results >"$T/out" 2>"$T/err" &
BG=$!
both_made() { s3do list "$B" && grep -q "^pfsbench.kl.0 " "$T/s3out" && grep -q "^pfsbench.kl.1 " "$T/s3out"; }
kill_ranks_when both_made
check "killed run: both ranks were writing when killed ($(echo $RANKS))" cond '[ "$(echo "$RANKS" | wc -w)" = 2 ]'
got=$(bucket_ls)
check "killed run: its 2 objects are left in the bucket ($got)" cond '[ "$(echo "$got" | grep -o "pfsbench.kl.[01]=" | tr "\n" " ")" = "pfsbench.kl.0= pfsbench.kl.1= " ]'
check "killed run: its lock names the backend and a token ($(tail -n 1 "$T/d/pfsbench.kl.lock"))" \
    grep -qE "^objects s3 [0-9a-f]{16}$" "$T/d/pfsbench.kl.lock"
head -c 100000 /dev/urandom >"$T/pre"
s3do put "$B/pfsbench.kl.7" filename="$T/pre"
s3do put "$B/pfsbench.kl.shared" filename="$T/pre" "x-amz-meta-pfsbench-run=0123456789abcdef"
run_mpi 1 60 -d "$T/d" "${K[@]}" --clean
check "--clean -a s3: lists the run's 2 objects, exit 0 ($(tail -n 1 "$T/out"))" \
    cond '[ "$RC" -eq 0 ] && grep -q "^leftover object pfsbench.kl.0 in bucket $B (" "$T/out" && grep -q "^leftover object pfsbench.kl.1 in bucket $B (" "$T/out" && grep -q "^2 pfsbench objects marked with its run.s token; add --yes" "$T/out"'
check "--clean -a s3: names the objects it cannot prove and leaves them" \
    cond 'grep -q "^skipped  object pfsbench.kl.7 in bucket $B: it has no x-amz-meta-pfsbench-run" "$T/out" && grep -q "^skipped  object pfsbench.kl.shared in bucket $B: its x-amz-meta-pfsbench-run is another run" "$T/out"'
run_mpi 1 60 -d "$T/d" "${K[@]}" --clean --yes
check "--clean --yes -a s3: exit 0, 2 removed ($(tail -n 1 "$T/out"))" \
    cond '[ "$RC" -eq 0 ] && [ "$(grep -c "^removed  object pfsbench.kl.[01] in bucket $B (" "$T/out")" = 2 ] && grep -q "^2 pfsbench objects marked with its run.s token, removed" "$T/out"'
got=$(bucket_ls)
check "--clean --yes -a s3: exactly the run's objects are gone ($got)" [ "$got" = "pfsbench.kl.7=100000 pfsbench.kl.shared=100000" ]
check "--clean --yes -a s3: and its lock ($(ls -A "$T/d" | tr '\n' ' '))" [ -z "$(ls -A "$T/d")" ]
for o in pfsbench.kl.7 pfsbench.kl.shared; do
    s3do get "$B/$o" filename="$T/post"
    check "--clean --yes -a s3: $o is left byte for byte" cmp -s "$T/pre" "$T/post"
    s3do delete "$B/$o"
done
echo "# a killed run cleaned: $(since "$T0") s"

# --- radosgw SIGSTOPped mid-write, --timeout 5: the watchdog names the
# rank, its host, the blocked write and its object as the backend's own
# errors name it (object, bucket, endpoint: the path in -d is no file);
# radosgw goes on as soon as the watchdog has spoken (the clean-up's HEAD
# would otherwise wait out libs3's 15 s), and the job ends with exit 3.
T0=$(date +%s.%N)
timeout -k 5 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" -d "$T/d" "${K[@]}" -t 1m -b 400m -p write \
    --timeout 5 --run-id stop -o "$T/stop.h5" >"$T/out" 2>"$T/err" &
BG=$!
both_made() { s3do list "$B" && grep -q "^pfsbench.stop.0 " "$T/s3out" && grep -q "^pfsbench.stop.1 " "$T/s3out"; }
STOP_UNTIL=watchdog stop_daemon_mid_write client.rgw.gw both_made
if [ "$STOPPED" = 1 ]; then
    check "radosgw stopped, --timeout 5: the watchdog speaks within 15 s (${WD:-never})" \
        cond '[ -n "$WD" ] && awk -v e="$WD" "BEGIN { exit !(e < 15) }"'
    check "radosgw stopped: the watchdog names the rank, its host, the blocked write, the object, bucket and endpoint" \
        grep -qE "watchdog: rank [01] on $(hostname) blocked [0-9.]+ s in write object pfsbench.stop.[01] in bucket $B at 127.0.0.1:$CEPH_RGW_PORT, during write" "$T/err"
    check "radosgw stopped: the job ends with exit 3 (rc $RC)" [ "$RC" -eq 3 ]
else
    bad "radosgw stopped: the objects were never listed, or pfsbench ended first, or radosgw has no process"
fi
check "radosgw stopped: it answers again" s3do list "$B"
for k in pfsbench.stop.0 pfsbench.stop.1; do s3do delete "$B/$k"; done
rm -f "$T/d"/pfsbench.stop.*
echo "# s3, a stopped radosgw: $(since "$T0") s"
check "the s3 tool removes the empty bucket" s3do delete "$B"

ceph_test_end
