#!/bin/bash
# Issue 32, checkpoints: ckpt-save writes each rank's shards of --ckpt's
# checkpoint (fsync before close, timed), ckpt-restore reads back exactly the
# ranges each rank's shard needs, from this run's save or a kept one of
# another world size (--run-id, --ckpt-saved), --verify checking every byte.
# The tiny preset: TP 1 x PP 2, ZeRO 1, 4,545,674 bytes (ckpt_checks.py works
# it out by hand).
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
TINY=4545674
sum_sizes() { stat -c %s "$@" | awk '{ n += $1 } END { print n + 0 }'; }

# --- save and restore at 4 ranks in each layout, every byte verified; -k
# leaves the files, whose sizes add up to the checkpoint's
for layout in shard rank shared; do
    R=$T/$layout.h5
    run_mpi 4 60 -d "$D" -t 64k -p ckpt-save,ckpt-restore --ckpt tiny --ckpt-layout $layout --verify -k \
        --run-id "L$layout" -o "$R" -q
    check "$layout: save and restore at 4 ranks, --verify: exit 0" [ "$RC" -eq 0 ]
    files=$(ls "$D" | grep -c "^pfsbench\.L$layout\.ckpt\.")
    want=$( [ $layout = shard ] && echo 6 || { [ $layout = rank ] && echo 4 || echo 1; })
    check "$layout: $want files (got $files)" [ "$files" -eq "$want" ]
    check "$layout: the files hold the checkpoint's $TINY bytes" \
        [ "$(sum_sizes "$D"/pfsbench.L$layout.ckpt.*)" -eq $TINY ]
    pycheck "$layout: each phase moved $TINY bytes, first open to last close" ckpt figures "$R" \
        ckpt-save,ckpt-restore $TINY
done
pycheck "rank: each rank saved its own file's bytes" ckpt rank_files "$T/rank.h5" "$D" Lrank
rm -f "$D"/pfsbench.*

# --- without -k nothing is left; 8 ranks, ZeRO 3 (weights split too)
run_mpi 8 60 -d "$D" -t 64k -p ckpt-save,ckpt-restore --ckpt tiny-zero3 --verify -o "$T/z3.h5"
check "8 ranks, tiny-zero3: exit 0" [ "$RC" -eq 0 ]
check "8 ranks: the report names the checkpoint and its degrees (DP from the rank count)" \
    grep -q "^checkpoint   tiny-zero3: $TINY bytes (4.34 MiB), 324691 parameters x 14 B; TP 2 x PP 1 x DP 4, ZeRO 3; a file per shard, 16 files; restore spread" "$T/out"
check "8 ranks: the report names each phase's slowest rank" \
    [ "$(grep -cE "^ +slowest rank [0-7]: [0-9.]+ s \([0-9]+% of the phase's first open to last close\)$" "$T/out")" -eq 2 ]
pycheck "8 ranks: the results store the degrees the run resolved" ckpt geometry "$T/z3.h5" 2 1 4 3
check "8 ranks: a phase too short to measure asks for a larger checkpoint, not -b" \
    not grep -q "give each stream more work (-b, or --runtime)" "$T/out"
check "8 ranks: nothing left" [ -z "$(ls -A "$D")" ]
pycheck "8 ranks: each phase moved the checkpoint's bytes" ckpt figures "$T/z3.h5" ckpt-save,ckpt-restore $TINY

# --- reshard 4 -> 2: a kept save of 1x2x2 read by 1x2x1, read only
run_mpi 4 60 -d "$D" -t 64k -p ckpt-save --ckpt tiny --verify -k --run-id R42 --no-results -q
check "4 -> 2: the save at 4 ranks: exit 0" [ "$RC" -eq 0 ]
before=$(cd "$D" && stat -c '%n %s %Y' pfsbench.R42.*)
run_mpi 2 60 -d "$D" -t 64k -p ckpt-restore --ckpt tiny --ckpt-saved 1x2x2 --run-id R42 --verify -o "$T/r42.h5" -q
check "4 -> 2: the restore at 2 ranks, --verify: exit 0" [ "$RC" -eq 0 ]
pycheck "4 -> 2: the restore read every byte once" ckpt figures "$T/r42.h5" ckpt-restore $TINY
check "4 -> 2: the kept files are as they were" [ "$(cd "$D" && stat -c '%n %s %Y' pfsbench.R42.*)" = "$before" ]
run_mpi 2 60 -d "$D" -t 64k -p ckpt-restore --ckpt tiny --ckpt-saved 1x2x2 --ckpt-restore each --run-id R42 \
    --verify -o "$T/r42e.h5" -q
check "4 -> 2, each replica its own copy: exit 0" [ "$RC" -eq 0 ]

# --- a changed byte in a kept shard is caught and named
printf 'X' | dd of="$D/pfsbench.R42.ckpt.3" bs=1 seek=1000 conv=notrunc 2>/dev/null
run_mpi 2 60 -d "$D" -t 64k -p ckpt-restore --ckpt tiny --ckpt-saved 1x2x2 --run-id R42 --verify --no-results -q
check "corrupt: exit 1" [ "$RC" -eq 1 ]
check "corrupt: the mismatch named in file 3 at byte 1000" \
    grep -q "pfsbench.R42.ckpt.3 at offset 1000: 1 mismatching 8-byte words" "$T/err"

# --- --clean knows the checkpoint's files: lists the 6, removes them with --yes
RC=0; timeout 60 "$PFSBENCH" --clean -d "$D" >"$T/out" 2>&1 || RC=$?
check "--clean: lists the 6 kept checkpoint files" [ "$(grep -c "^leftover $D/pfsbench.R42.ckpt.[0-5] " "$T/out")" -eq 6 ]
RC=0; timeout 60 "$PFSBENCH" --clean -d "$D" --yes >"$T/out" 2>&1 || RC=$?
check "--clean --yes: exit 0" [ "$RC" -eq 0 ]
check "--clean --yes: nothing left" [ -z "$(ls -A "$D")" ]

# --- reshard 2 -> 4: a kept save of 1x2x1 read by 1x2x2, and by 2x2x1
run_mpi 2 60 -d "$D" -t 64k -p ckpt-save --ckpt tiny --verify -k --run-id R24 --no-results -q
check "2 -> 4: the save at 2 ranks: exit 0" [ "$RC" -eq 0 ]
run_mpi 4 60 -d "$D" -t 64k -p ckpt-restore --ckpt tiny --ckpt-saved 1x2x1 --run-id R24 --verify -o "$T/r24.h5" -q
check "2 -> 4: the restore at 4 ranks, --verify: exit 0" [ "$RC" -eq 0 ]
pycheck "2 -> 4: the restore read every byte once" ckpt figures "$T/r24.h5" ckpt-restore $TINY
run_mpi 4 60 -d "$D" -t 64k -p ckpt-restore --ckpt tiny --ckpt-tp 2 --ckpt-saved 1x2x1 --run-id R24 --verify \
    -o "$T/r24t.h5" -q
check "2 -> 4 over TP 2: exit 0" [ "$RC" -eq 0 ]
pycheck "2 -> 4 over TP 2: every byte once" ckpt figures "$T/r24t.h5" ckpt-restore $TINY
rm -f "$D"/pfsbench.*

# --- degrees that do not make the rank count: exit 2, one message, nothing made
run_refused 4 60 -d "$D" -p ckpt-save --ckpt tiny --ckpt-dp 3 -o "$T/bad.h5"
check "bad geometry: exit 2" [ "$RC" -eq 2 ]
check "bad geometry: one message naming the product" \
    [ "$(grep -c 'TP 1 x PP 2 x DP 3 is not the 4 ranks of this run' "$T/err")" -eq 1 ]
check "bad geometry: no file made" [ -z "$(ls -A "$D")" ]
check "bad geometry: no results file" [ ! -e "$T/bad.h5" ]

# --- --api null reads nothing back: a verified restore is refused as a read is
run_refused 2 60 -d "$D" -p ckpt-save,ckpt-restore --ckpt tiny -a null --verify --no-results
check "null: exit 2" [ "$RC" -eq 2 ]
check "null: the refusal of --verify" grep -q -- "--verify with --api null: its reads bring back no data" "$T/err"
finish
