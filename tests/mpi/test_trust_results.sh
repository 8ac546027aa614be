#!/bin/bash
# Issue 13, "no result is ever lost", the results file part, with real
# pfsbench runs: a full results directory (ENOSPC) exits 1 with the real
# errno and leaves the old file byte for byte; a symlinked results file is
# appended to its target and stays a link; an immutable or append-only
# results file or directory is refused with exit 2 before any data file is
# made; 8 concurrent runs into one file all land; and, where GlusterFS can be
# started here (tests/lib/glusterfs.sh), two FUSE clients appending to one
# file at once all land (the directory flock of old lost runs there), and a
# reader holding the file open on one client never delays the other's
# append (it copies the file instead of writing under the reader).
. "$(dirname "$0")/lib.sh"
TESTS=${PFS_TESTS:-$(cd "$(dirname "$0")/.." && pwd)}
ulimit -c 0
D=$T/data
mkdir -p "$D"
# chattr'ed files cannot be removed: clear the flags before lib.sh's rm -rf.
trap 'chattr -R -i -a "$T" 2>/dev/null; rm -rf "$T"' EXIT
ARGS=(-t 64k -b 256k -p write,read)

nruns() { "$PY" -c 'import h5py,sys; print(len(h5py.File(sys.argv[1],"r")["runs"]))' "$1" 2>/dev/null || echo -1; }
no_copies() { [ -z "$(ls -A "$1" | grep '\.tmp\.')" ]; }

# ---- a results file to start from ----
run_mpi 1 60 -d "$D" "${ARGS[@]}" -o "$T/base.h5" --label base
check "base run: exit 0" [ "$RC" -eq 0 ]
SIZE=$(stat -c %s "$T/base.h5")

# ---- ENOSPC while appending: exit 1, the errno named, the old file kept ----
# A tmpfs holding the results file with room for less than the append's
# undo journal (13 KiB for this file, beside the 4 KiB lock file: the
# journal's write fails), then room for the journal but not the new run's
# 190 KiB (the write into the file fails and is undone from the journal).
for room in 8 64; do
    kb=$((SIZE / 1024 + room))
    mkdir -p "$T/full"
    RC=0
    timeout 120 unshare --mount --propagation private sh -c '
        mount -t tmpfs -o size="$1"k pfstest "$2" || exit 99
        cp "$3" "$2/r.h5"; sha256sum <"$2/r.h5" >"$4.before"
        mpirun -np 1 $8 --oversubscribe --bind-to none "$5" -d "$6" $7 -o "$2/r.h5"; rc=$?
        sha256sum <"$2/r.h5" >"$4.after"; ls -A "$2" >"$4.left"; exit $rc' \
        sh "$kb" "$T/full" "$T/base.h5" "$T/enospc" "$PFSBENCH" "$D" "${ARGS[*]}" "${ONE_RANK[*]}" >"$T/out" 2>"$T/err" || RC=$?
    what="ENOSPC (${kb} KiB tmpfs, file $SIZE bytes)"
    check "$what: exit 1 (got $RC)" [ "$RC" -eq 1 ]
    check "$what: the message names 'No space left on device'" grep -q "No space left on device" "$T/err"
    check "$what: no SIGSEGV" not grep -qiE "segmentation|signal 11" "$T/err"
    check "$what: the old file is byte for byte what it was" cmp -s "$T/enospc.before" "$T/enospc.after"
    check "$what: no temporary copy left" not grep -q '\.tmp\.' "$T/enospc.left"
done

# ---- a symlinked results file: the target grows, the link stays a link ----
mkdir -p "$T/real"
cp "$T/base.h5" "$T/real/r.h5"
ln -s real/r.h5 "$T/link.h5"
run_mpi 1 60 -d "$D" "${ARGS[@]}" -o "$T/link.h5" --label via-link
check "symlink: exit 0" [ "$RC" -eq 0 ]
check "symlink: still a symlink" [ -L "$T/link.h5" ]
check "symlink: still pointing at real/r.h5" [ "$(readlink "$T/link.h5")" = real/r.h5 ]
check "symlink: the target holds both runs" [ "$(nruns "$T/real/r.h5")" -eq 2 ]
check "symlink: no copy left beside the link or the target" sh -c "! ls -A '$T' '$T/real' | grep -q '\.tmp\.'"

# ---- immutable / append-only: refused with exit 2, nothing created ----
if mkdir -p "$T/flag" && touch "$T/flag/probe" && chattr +i "$T/flag/probe" 2>/dev/null; then
    chattr -i "$T/flag/probe"
    rm -f "$T/flag/probe"
    for flag in i a; do
        for what in file dir; do
            W=$T/flag/$what-$flag
            E=$T/flag/data-$what-$flag
            mkdir -p "$W" "$E"
            cp "$T/base.h5" "$W/r.h5"
            sum=$(sha256sum <"$W/r.h5")
            if [ "$what" = file ]; then chattr +$flag "$W/r.h5"; else chattr +$flag "$W"; fi
            run_refused 2 60 -d "$E" "${ARGS[@]}" -o "$W/r.h5"
            words=immutable
            [ "$flag" = a ] && words=append-only
            check "chattr +$flag $what: exit 2 (got $RC)" [ "$RC" -eq 2 ]
            check "chattr +$flag $what: the message says $words" grep -q "$words" "$T/err"
            check "chattr +$flag $what: no data file made" [ -z "$(ls -A "$E")" ]
            check "chattr +$flag $what: no measurement printed" not grep -qE '^(write|read) +[0-9]+ ' "$T/out"
            chattr -$flag "$W" "$W/r.h5" 2>/dev/null
            check "chattr +$flag $what: the file is untouched" [ "$(sha256sum <"$W/r.h5")" = "$sum" ]
            check "chattr +$flag $what: nothing new beside it" [ "$(ls -A "$W")" = r.h5 ]
        done
    done
else
    echo "# skipped: chattr +i does not work on $T's file system"
fi

# ---- 8 concurrent runs into one file: all 8 land ----
FC=$T/conc/r.h5
mkdir -p "$T/conc"
for i in 1 2 3 4 5 6 7 8; do
    mkdir -p "$D/c$i"
    (timeout 90 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none "$PFSBENCH" -d "$D/c$i" "${ARGS[@]}" -o "$FC" \
        --label "conc-$i" >"$T/out.c$i" 2>"$T/err.c$i"; echo $? >"$T/rc.c$i") &
done
wait
n_ok=0
for i in 1 2 3 4 5 6 7 8; do [ "$(cat "$T/rc.c$i")" = 0 ] && n_ok=$((n_ok + 1)); done
check "8 concurrent: all exit 0 ($n_ok)" [ "$n_ok" -eq 8 ]
check "8 concurrent: 8 runs in the file" [ "$(nruns "$FC")" -eq 8 ]
check "8 concurrent: 8 distinct labels" [ "$("$PY" -c 'import h5py,sys; f=h5py.File(sys.argv[1],"r"); print(len({f["runs"][g].attrs["label"] for g in f["runs"]}))' "$FC")" -eq 8 ]
check "8 concurrent: no copy left" no_copies "$T/conc"

# ---- two FUSE clients of one GlusterFS volume, appending at once ----
# Each mount is its own client with its own lock table for directory flocks;
# locks on the regular lock file go to the bricks and exclude across them.
GL=$TESTS/lib/glusterfs.sh
if [ -r "$GL" ] && [ "${PFS_SKIP_GLUSTER:-0}" != 1 ]; then
    . "$GL"
    if gl_start 1 >"$T/gl.log" 2>&1 && gl_mount "$T/gc" 2 >>"$T/gl.log" 2>&1; then
        A=${GL_MOUNTS[0]} B=${GL_MOUNTS[1]}
        mkdir -p "$A/res" "$D/ga" "$D/gb"
        for k in 1 2 3; do
            pids=()
            for x in a b; do
                M=$A
                [ $x = b ] && M=$B
                (timeout 90 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none "$PFSBENCH" -d "$D/g$x" "${ARGS[@]}" \
                    -o "$M/res/r.h5" --label "gl-$x-$k" >"$T/out.g$x$k" 2>"$T/err.g$x$k"; echo $? >"$T/rc.g$x$k") &
                pids+=($!)
            done
            # only these two: a bare wait would also wait for the volume's daemons
            wait "${pids[@]}"
        done
        n_ok=$(cat "$T"/rc.g* | grep -c '^0$')
        check "GlusterFS, 2 clients x 3 rounds: all 6 exit 0 ($n_ok)" [ "$n_ok" -eq 6 ]
        for f in "$T"/rc.g*; do
            g=${f##*/rc.}
            [ "$(cat "$f")" = 0 ] && continue
            echo "# run $g exited $(cat "$f"); its stderr (pfsbench's lines):"
            grep '^pfsbench' "$T/err.$g" | sed 's/^/#   /'
            echo "# the volume's last errors:"
            grep -h '\] E \[' "$GL_SCRATCH"/log/*.log "$GL_SCRATCH"/log/*/*.log 2>/dev/null | tail -n 8 | cut -c1-300 | sed 's/^/#   /'
        done
        # The other client may still hold the name of the file the last rename
        # replaced (its entry cache lives 1 s): read after that, through both.
        sleep 1.5
        na=$(nruns "$A/res/r.h5" 2>&1) nb=$(nruns "$B/res/r.h5" 2>&1)
        check "GlusterFS: all 6 runs in the file, seen from both clients ($na, $nb)" [ "$na,$nb" = "6,6" ]
        check "GlusterFS: no copy left" no_copies "$A/res"
        # A reader on client A holds the file open (pfsbench.open: the
        # reader lock, byte 1 of the lock file, on the bricks) while client
        # B appends: the lock crosses clients, so B copies the file rather
        # than write under the reader, at once; A still reads what it
        # opened. With the reader gone, B's next run goes in place.
        CK=$PFS_TESTMPI/journal_checks.py
        export PYTHONPATH=${PFS_SRC:-$TESTS/..}/python
        "$PY" "$CK" digest "$A/res/r.h5" "$T/gl.want"
        "$PY" "$CK" reader_during "$A/res/r.h5" "$T/gl.opened" "$T/gl.go" "$T/gl.got" >"$T/py.gl" 2>&1 &
        pr=$!
        for _ in $(seq 300); do [ -s "$T/gl.opened" ] && break; sleep 0.2; done
        rc=0
        timeout 90 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none "$PFSBENCH" -d "$D/gb" "${ARGS[@]}" \
            -o "$B/res/r.h5" --label gl-during >"$T/out.gd" 2>"$T/err.gd" || rc=$?
        check "GlusterFS, a reader open on client A: B's run exits 0 ($rc), without waiting" \
            sh -c "[ $rc -eq 0 ] && ! grep -q 'waiting .* so far' '$T/err.gd'"
        check "GlusterFS, a reader open on client A: B copied the file because readers have it open" \
            grep -q "copied .* because readers have it open" "$T/err.gd"
        touch "$T/gl.go"
        wait "$pr"
        check "GlusterFS, a reader open on client A: it still read the 6 runs it opened, exactly" \
            sh -c "[ -s '$T/gl.want' ] && cmp -s '$T/gl.want' '$T/gl.got'"
        rc=0
        timeout 90 mpirun -np 1 "${ONE_RANK[@]}" --oversubscribe --bind-to none "$PFSBENCH" -d "$D/gb" "${ARGS[@]}" \
            -o "$B/res/r.h5" --label gl-after >"$T/out.ga" 2>"$T/err.ga" || rc=$?
        check "GlusterFS, the reader gone: B's next run exits 0 ($rc), in place (no copy said)" \
            sh -c "[ $rc -eq 0 ] && ! grep -q 'readers have it open' '$T/err.ga'"
        sleep 1.5
        na=$(nruns "$A/res/r.h5" 2>&1) nb=$(nruns "$B/res/r.h5" 2>&1)
        check "GlusterFS: all 8 runs in the file, seen from both clients ($na, $nb)" [ "$na,$nb" = "8,8" ]
        gl_stop >>"$T/gl.log" 2>&1 || echo "# GlusterFS stop left something: $(tail -3 "$T/gl.log")"
    else
        echo "# skipped: GlusterFS cross-client append (gl_start/gl_mount failed or skipped: $(grep -m1 -i 'skip\|error' "$T/gl.log"))"
        gl_stop >/dev/null 2>&1 || true
    fi
else
    echo "# skipped: GlusterFS cross-client append (no tests/lib/glusterfs.sh, or PFS_SKIP_GLUSTER=1)"
fi

finish
