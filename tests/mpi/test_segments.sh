#!/bin/bash
# IOR's segments (issue 28): `pfsbench ior -s 3 -b 64k -t 16k` at 2 ranks is
# --shared --segments 3 over a block of 192k, and the shared file it keeps
# holds, from its bytes, segment k of rank r at (k x 2 + r) x 64k (IOR's
# layout), every byte the --verify pattern of that rank, in a file of
# 3 x 2 x 64k; natively the same with 2 threads a rank and --random. A
# block that does not split into the segments, or segments with --layout
# strided: exit 2, nothing made.
. "$(dirname "$0")/lib.sh"

# --- IOR's line: -W writes and reads back with --verify, -k keeps the file
mkdir -p "$T/ior"
RC=0
# (no -o: pfsbench's own file names in the working directory, pfsbench.ID.shared)
(cd "$T/ior" && timeout 120 mpirun -np 2 --oversubscribe --bind-to none "$PFSBENCH" ior -s 3 -b 64k -t 16k -W -k) \
    >"$T/out" 2>"$T/err" || RC=$?
check "ior -s 3 -b 64k -t 16k -W: exit 0, every byte read back verified" [ "$RC" -eq 0 ]
check "ior -s 3: the equivalent is --shared --segments 3 over -b 192k" \
    grep -qE "^pfsbench: equivalent: pfsbench -d \. -t 16k -b 192k --shared --segments 3 -p write,read" \
    "$T/out" "$T/err"
pycheck "ior -s 3: rank r's segment k at (k x 2 + r) x 64k, in a file of 3 x 2 x 64k" \
    segments owners "$T/ior" "$T/ior/pfsbench-results.h5" 1 2 3 65536

# --- natively, 2 ranks x 2 threads (4 streams), in a random order: the same layout
D=$T/native
mkdir -p "$D"
run_mpi 2 120 -d "$D" --shared --segments 3 -t 16k -b 96k --threads 2 --random --verify -k -p write,read \
    -o "$T/native.h5"
check "--segments 3 --threads 2 --random: exit 0, every byte read back verified" [ "$RC" -eq 0 ]
check "the report says the segments" grep -q "^access  *one shared file, segmented, 3 segments," "$T/out"
pycheck "--segments 3, 4 streams: stream r's segment k at (k x 4 + r) x 32k, in a file of 3 x 4 x 32k" \
    segments owners "$D" "$T/native.h5" 1 4 3 32768

# --- refused before anything is made
E=$T/empty
mkdir -p "$E"
par split run_refused 2 120 -d "$E" --shared --segments 5 -t 16k -b 192k -o "$E/r.h5"
par strided run_refused 2 120 -d "$E" --shared --segments 3 --layout strided -t 16k -b 192k -o "$E/r.h5"
par_wait split
check "a block of 12 transfers in 5 segments: exit 2" [ "$RC" -eq 2 ]
check "and says why" grep -q "does not split into 5 segments of whole transfers" "$T/err"
par_wait strided
check "--segments with --layout strided: exit 2" [ "$RC" -eq 2 ]
check "and says why" grep -q "\-\-segments 3 and --layout strided both given" "$T/err"
check "nothing made" [ -z "$(ls -A "$E")" ]
finish
