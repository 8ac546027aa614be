#!/bin/bash
# --api gfapi (GlusterFS through libgfapi) on a 2-brick volume of this
# machine (tests/lib/glusterfs.sh), with -d on its FUSE mount: write and
# read with --verify at 2 ranks, a file per process and shared, and the
# bytes seen through the FUSE mount equal to the bytes the results file
# reports (and read back right through FUSE by --api posix --verify); a byte
# corrupted through FUSE between a kept write and a read-only --verify run
# is caught and named; a link planted for a kept file is not followed;
# nothing is left after a run without -k, and what -k
# keeps --clean lists and removes; an existing
# --file-name is refused (exit 2, untouched); the server's own error (root
# squashed: EACCES) named with rank, host, path and offset; the metadata
# phases on a --depth tree, both directory modes, with --threads: the small
# files seen through FUSE as many and as large as reported, a kept tree
# worked on again and removed, nothing left; what it cannot do refused
# before anything is made: -d off a GlusterFS mount, another --gfapi-volume,
# --direct, an unreachable server, find (it walks through FUSE). The latency histograms
# and time series count every transfer.
# A pfsbench built without libgfapi (-DPFS_WITH_GFAPI=OFF) is checked for
# its refusal alone. Exits 77 (skipped, said loudly) where the harness
# cannot start a volume (no root, FUSE or gluster packages).
. "$(dirname "$0")/lib.sh"
. "$PFS_TESTS/lib/glusterfs.sh"
mkdir -p "$T/local"
CHK=gfapi
# run_id_of: the kept run's id, from its report
run_id_of() { sed -n 's/.*read them again with --run-id \([A-Za-z0-9_-]*\)).*/\1/p' "$T/out"; }
# fuse_bytes DIR ID: the bytes of the run's data files, read through the FUSE mount
fuse_bytes() { cat "$1"/pfsbench."$2".[0-9s]* 2>/dev/null | wc -c; }
cond() { eval "$1"; } # check's command for a compound condition
reported() { "$PY" "$PFS_TESTMPI/gfapi_checks.py" bytes "$1" "$2" 2>&1; } # reported RESULTS PHASE
refused() { # refused WHAT DIR: exit 2, one error line naming WHAT, nothing made in DIR
    check "$1: exit 2" [ "$RC" -eq 2 ]
    check "$1: says why ($(head -c 300 "$T/err"))" grep -q -- "$2" "$T/err"
    check "$1: nothing created" [ -z "$(ls -A "$3")" ]
}

# --- built without libgfapi: refused by name, exit 2, nothing made
if "$PFSBENCH" --help | grep -q "^  gfapi  *not built: "; then
    run_refused 2 60 -d "$T/local" -a gfapi --no-results
    refused "not built" "error: --api gfapi: this pfsbench was built without it (libglusterfs-dev at build time)" "$T/local"
    echo "# --api gfapi is not built here: only its refusal was checked"
    finish
    exit
fi

# --- a module: pfsbench itself does not map libgfapi, only a run choosing gfapi loads it
check "pfsbench is not linked with libgfapi ($(ldd "$PFSBENCH" | grep -c gfapi) lines)" not grep -q gfapi <(ldd "$PFSBENCH")
check "libpfs_gfapi.so beside pfsbench links libgfapi" grep -q libgfapi <(ldd "$(dirname "$PFSBENCH")/libpfs_gfapi.so")

# --- -d off a GlusterFS mount: refused before anything is made (no volume needed)
run_refused 2 60 -d "$T/local" -a gfapi -o "$T/r.h5"
refused "-d on a local file system" "--api gfapi: -d $T/local is not on a GlusterFS FUSE mount" "$T/local"
check "-d on a local file system: no results file" [ ! -e "$T/r.h5" ]

RC=0
gl_start 2 || RC=$?
[ "$RC" -eq 77 ] && exit 77
[ "$RC" -eq 0 ] || { echo "FAIL - glusterfs: the volume did not start (rc $RC)"; exit 1; }
gl_mount "$T/m" || { echo "FAIL - glusterfs: the client did not mount"; exit 1; }
M=${GL_MOUNTS[0]}
echo "# volume $GL_VOL on $GL_HOST, mounted at $M; glusterd up ${GL_T_UP} s, volume ${GL_T_CREATE} s, mount ${GL_T_MOUNT} s"

# Each gfapi run ends in glfs_fini, which waits for the client's 10-second
# call-bail timer (libgfapi's, not configurable): 10-12 s a run, whatever
# it does. So the runs that touch different directories go side by side,
# four at a time (par), in three batches; the root-squash run, which sets
# an option of the whole volume, runs alone.
# --- write and read with --verify at 2 ranks; the bytes through FUSE = the bytes reported
# (batch 1, with the two runs without -k further down)
for mode in "" --shared; do
    D=$M/d${mode:+s}
    mkdir "$D"
    # shellcheck disable=SC2086
    par "w${mode}" run_mpi 2 120 -d "$D" -a gfapi -t 64k -b 2m -p write,read --verify -k $mode -o "$T/r${mode}.h5" -q
done
mkdir "$M/clean" "$M/clean2"
par clean run_mpi 2 120 -d "$M/clean" -a gfapi -t 64k -b 1m -p write,rewrite,read,reread,seeks --seeks 64 --verify --no-results -q
par clean2 run_mpi 2 120 -d "$M/clean2" -a gfapi -t 64k -b 1m -p write,read --shared --threads 2 --verify --no-results -q
for mode in "" --shared; do
    what="${mode:-file per process}"
    D=$M/d${mode:+s}
    par_wait "w${mode}"
    check "$what: write,read --verify: exit 0" [ "$RC" -eq 0 ]
    id=$(run_id_of)
    want=$((2 * 2 * 1024 * 1024))
    r=$T/r${mode}.h5
    check "$what: write reported $want bytes ($(reported "$r" write))" [ "$(reported "$r" write)" = "$want" ]
    check "$what: read reported $want bytes ($(reported "$r" read))" [ "$(reported "$r" read)" = "$want" ]
    check "$what: $want bytes seen through FUSE ($(fuse_bytes "$D" "$id"))" [ "$(fuse_bytes "$D" "$id")" = "$want" ]
    pycheck "$what: api gfapi, every transfer in the histograms and time series" $CHK counted "$r"
    # shellcheck disable=SC2086
    run_mpi 2 90 -d "$D" -a posix -t 64k -b 2m -p read --verify $mode --run-id "$id" --no-results -q
    check "$what: read back through FUSE (--api posix --verify): exit 0 ($(head -c 200 "$T/err"))" [ "$RC" -eq 0 ]
done

# --- nothing left after a run without -k (every data phase, file per process and shared)
par_wait clean
check "without -k: exit 0" [ "$RC" -eq 0 ]
check "without -k: nothing left ($(ls -A "$M/clean"))" [ -z "$(ls -A "$M/clean")" ]
par_wait clean2
check "without -k, shared, --threads 2: exit 0" [ "$RC" -eq 0 ]
check "without -k, shared, --threads 2: nothing left ($(ls -A "$M/clean2"))" [ -z "$(ls -A "$M/clean2")" ]

# --- batch 2: a byte corrupted through FUSE between a kept write and a
# read-only --verify run; a -k write for --clean; a --depth tree made and
# kept; the metadata phases with --dirs shared
D=$M/d
id=$(ls "$D" | sed -n 's/^pfsbench\.\(.*\)\.kept$/\1/p' | head -n 1)
corrupt_byte "$D/pfsbench.$id.1" 70000
par corrupt run_mpi 2 120 -d "$D" -a gfapi -t 64k -b 2m -p read --verify --run-id "$id" --no-results -q
D=$M/clean
par kept run_mpi 2 120 -d "$D" -a gfapi -t 64k -b 1m -p write -k --no-results -q
mkdir "$M/md" "$M/md-shared" "$M/md-per-rank"
par md run_mpi 2 120 -d "$M/md" -a gfapi -p mkdir,create,stat,read-files -n 21 --depth 2 --branch 2 --file-size 4k -k -o "$T/md.h5" -q
# md_dirs DIRS: the metadata phases with --dirs DIRS and --threads 2, in $M/md-DIRS
md_dirs() {
    par "md-$1" run_mpi 2 120 -d "$M/md-$1" -a gfapi -p mkdir,create,stat,read-files,delete,rmdir -n 20 --depth 1 --branch 3 \
        --dirs "$1" --threads 2 --file-size 10 -o "$T/md-$1.h5" -q
}
md_dirs_checks() {
    par_wait "md-$1"
    got=$("$PY" "$PFS_TESTMPI/gfapi_checks.py" res "$T/md-$1.h5" 2>&1)
    check "metadata --dirs $1 --threads 2: exit 0, 80 files ($got)" cond '[ "$RC" -eq 0 ] && [[ "$got" == *" create=800/80 "* ]]'
    check "metadata --dirs $1 --threads 2: nothing left ($(ls -A "$M/md-$1"))" [ -z "$(ls -A "$M/md-$1")" ]
}
md_dirs shared

D=$M/d
par_wait corrupt
check "corrupted byte: the --verify run fails (exit 1)" [ "$RC" -eq 1 ]
check "corrupted byte: named with rank, host, file and offset" \
    grep -q "rank 1 on $(hostname): verify $D/pfsbench.$id.1 at offset 70000: " "$T/err"

# --- what -k keeps, --clean finds (listed, then removed with --yes)
D=$M/clean
par_wait kept
kid=$(run_id_of)
run_mpi 1 60 -d "$D" --clean
check "--clean: lists the kept files of the gfapi run" \
    cond '[ "$(grep -c "^leftover $D/pfsbench.$kid\.[01k]" "$T/out")" -eq 3 ]'
run_mpi 1 60 -d "$D" --clean --yes
check "--clean --yes: exit 0, nothing left ($(ls -A "$D"))" cond '[ "$RC" -eq 0 ] && [ -z "$(ls -A "$D")" ]'

# --- an existing name is refused, the file untouched
echo "someone else's data" >"$D/theirs"
sum=$(md5sum <"$D/theirs")
run_refused 2 60 -d "$D" -a gfapi -t 64k -b 1m -p write --shared --file-name "$D/theirs" --no-results
check "existing --file-name: exit 2" [ "$RC" -eq 2 ]
check "existing --file-name: untouched" [ "$(md5sum <"$D/theirs")" = "$sum" ]
check "existing --file-name: nothing else made ($(ls -A "$D"))" [ "$(ls -A "$D")" = theirs ]
rm -f "$D/theirs"

# --- metadata phases on a --depth tree: the small files through FUSE as reported
D=$M/md
par_wait md
got=$("$PY" "$PFS_TESTMPI/gfapi_checks.py" res "$T/md.h5" 2>&1)
check "metadata, kept: exit 0, 6 dirs, 42 files of 4 KiB made, stat'ed and read ($got)" \
    cond '[ "$RC" -eq 0 ] && [ "$got" = "complete mkdir=0/6 create=172032/42 stat=0/42 read-files=172032/42" ]'
md=$(ls -d "$D"/pfsbench.*.md)
mdid=$(basename "$md" .md)
mdid=${mdid#pfsbench.}
check "metadata, kept: 42 files of 4096 bytes and 6 directories seen through FUSE" \
    cond '[ "$(find "$md" -type f -name "f.*" -size 4096c | wc -l)" -eq 42 ] && [ "$(find "$md" -mindepth 1 -type d | wc -l)" -eq 6 ]'
md_dirs_checks shared

# --- the server's own error: root squashed, the kept files (root's, 0644)
# cannot be written (alone: the option is the whole volume's)
D=$M/d
chmod 1777 "$D"
gl_cli volume set "$GL_VOL" server.root-squash on >/dev/null
run_mpi 2 90 -d "$D" -a gfapi -t 64k -b 2m -p rewrite --run-id "$id" --no-results -q
gl_cli volume set "$GL_VOL" server.root-squash off >/dev/null
chmod 0755 "$D"
check "root squashed: the rewrite fails" [ "$RC" -ne 0 ]
check "root squashed: EACCES from the server, with rank, host, path and offset" \
    grep -q "rank 0 on $(hostname): write $D/pfsbench.$id.0 at offset 0: Permission denied (errno 13)" "$T/err"
check "root squashed: the files are as they were" [ "$(cat "$D/pfsbench.$id.0" | wc -c)" -eq $((2 << 20)) ]

# --- batch 3: a link planted in place of a kept file (the backend's lookup
# never follows it); the kept tree worked on again; --dirs per-rank
mv "$D/pfsbench.$id.0" "$T/m/moved.0"
ln -s "pfsbench.$id.1" "$D/pfsbench.$id.0"
sum=$(md5sum <"$D/pfsbench.$id.1")
par link run_mpi 2 120 -d "$D" -a gfapi -t 64k -b 2m -p read --run-id "$id" --no-results -q
par mdagain run_mpi 2 120 -d "$M/md" -a gfapi -p stat,delete,rmdir -n 21 --depth 2 --branch 2 --file-size 4k --run-id "$mdid" -o "$T/md.h5" -q
md_dirs per-rank
par_wait link
check "planted link: the read fails" [ "$RC" -ne 0 ]
check "planted link: named as a link, not followed" \
    grep -q "rank 0 on $(hostname): open for reading $D/pfsbench.$id.0: not a regular file (a symbolic link)" "$T/err"
check "planted link: its target untouched" [ "$(md5sum <"$D/pfsbench.$id.1")" = "$sum" ]
rm -f "$T/m/moved.0"
rm -rf "${M:?}/d" "${M:?}/ds"
D=$M/md
par_wait mdagain
got=$("$PY" "$PFS_TESTMPI/gfapi_checks.py" res "$T/md.h5" 2>&1)
check "metadata, the kept tree again: stat, delete, rmdir ($got)" \
    cond '[ "$RC" -eq 0 ] && [ "$got" = "complete stat=0/42 delete=0/42 rmdir=0/6" ]'
check "metadata, the kept tree again: nothing left ($(ls -A "$D"))" [ -z "$(ls -A "$D")" ]
md_dirs_checks per-rank

# --- refused before anything is made
run_refused 2 60 -d "$D" -a gfapi --gfapi-volume other_vol -o "$T/r2.h5"
refused "another --gfapi-volume" "--gfapi-volume other_vol, but -d $D is on a mount of volume $GL_VOL" "$D"
run_refused 2 60 -d "$D" -a gfapi --direct -o "$T/r2.h5"
refused "--direct" "--direct is not available with --api gfapi" "$D"
run_refused 2 60 -d "$D" -a gfapi --gfapi-port 1 -o "$T/r2.h5"
refused "an unreachable server" "--api gfapi: volume $GL_VOL on .*:1: glfs_init: " "$D"
run_refused 2 60 -d "$D" -a gfapi -p create,find -n 10 -o "$T/r2.h5"
refused "find" "--phases find with --api gfapi: find walks the directories with readdir and lstat, which would go through the mount, not libgfapi" "$D"
check "refusals: no results file" [ ! -e "$T/r2.h5" ]

finish
