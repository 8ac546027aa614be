#!/bin/bash
# The find phase (IO500's find, pfind): -p create,find,delete. Every file is
# examined once over all streams (a directory per stream, or the shared one
# split by the names' stream), and the files matching IO500's criteria
# (name *01*, size --file-size, not older than the run's start) are counted:
# checked against the count computed from the names f.<stream>.<i>.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"

# want_matched STREAMS N: how many names f.<s>.<i> (s < STREAMS, i < N) hold "01".
want_matched() { "$PY" -c 'import sys; S, n = int(sys.argv[1]), int(sys.argv[2]); print(sum("01" in "f.%d.%d" % (s, i) for s in range(S) for i in range(n)))' "$1" "$2"; }
# find_in R RUN: "ops matched criteria" of the find phase of run RUN in results file R.
find_in() {
    "$PY" -c 'import h5py, sys
f = h5py.File(sys.argv[1], "r")
g = [p for p in f["runs"][sys.argv[2]]["phases"].values() if p.attrs["phase"] in (b"find", "find")][0]
c = g.attrs["find_criteria"]
print(" ".join(str(int(x)) for x in g["ops"][()]), " ".join(str(int(x)) for x in g["find_matched"][()]),
      c.decode() if isinstance(c, bytes) else c)' "$1" "$2"
}

R=$T/find.h5
run=0
for case in "1 1 shared sequential 1500 3901" "4 1 shared random 1200 3901" "4 1 per-rank sequential 1100 0" \
    "2 2 shared sequential 1300 100" "2 2 per-rank random 1020 4k"; do
    set -- $case
    np=$1 th=$2 dirs=$3 order=$4 n=$5 size=$6
    S=$((np * th))
    bytes=$size
    [ "$size" = 4k ] && bytes=4096
    run_mpi "$np" 90 -d "$D" -p create,find,delete -n "$n" --file-size "$size" --threads "$th" --dirs "$dirs" \
        --order "$order" -o "$R"
    run=$((run + 1))
    name="np=$np threads=$th $dirs $order n=$n size=$size"
    want=$(want_matched "$S" "$n")
    check "$name: exit 0" [ "$RC" -eq 0 ]
    check "$name: nothing left" [ -z "$(ls -A "$D")" ]
    check "$name: a find row in files/s" grep -qE "^find +0 .* files/s" "$T/out"
    check "$name: $((S * n)) examined, $want matched, in the report" \
        grep -qF "$((S * n)) files examined, $want matched (name *01*, $bytes bytes, not older than the run's start)" "$T/out"
    check "$name: stored: ops $((S * n)), find_matched $want" \
        [ "$(find_in "$R" "$(printf %06d $run)")" = "$((S * n)) $want name contains 01, a regular file of $bytes bytes, modified at or after the run's start" ]
done

# Two repetitions, JSON and CSV: the count per repetition.
run_mpi 2 90 -d "$D" -p create,find,delete -n 1010 --file-size 3901 -i 2 --format json --no-results
check "-i 2 JSON: exit 0 and clean" [ "$RC" -eq 0 -a -z "$(ls -A "$D")" ]
want=$(want_matched 2 1010)
pycheck "-i 2 JSON: each find repetition examined 2020 and matched $want" find json "$T/out" "$want"
run_mpi 2 90 -d "$D" -p create,find,delete -n 1010 --file-size 3901 --format csv --no-results
pycheck "CSV: find_matched $want on the find row, empty elsewhere" find csv "$T/out" "$want"

# A find after a delete finds nothing: every count 0, still no failure.
run_mpi 2 60 -d "$D" -p create,delete,find -n 50 --no-results
check "find after delete: exit 0, 0 examined, 0 matched" grep -qF "0 files examined, 0 matched" "$T/out"
check "find after delete: clean" [ -z "$(ls -A "$D")" ]

# Bad input: one message from rank 0, exit 2, nothing created.
run_refused 2 60 -d "$D" -p find,create -n 10 --no-results
check "find before create: exit 2" [ "$RC" -eq 2 ]
check "find before create: one message" [ "$(grep -c "find needs create before it" "$T/err")" -eq 1 ]
run_refused 2 60 -d "$D" -a null -p create,find,delete -n 10 --no-results
check "find with --api null: exit 2" [ "$RC" -eq 2 ]
check "find with --api null: one message naming posix" \
    [ "$(grep -c "find walks the directories with readdir and lstat.*use --api posix for find" "$T/err")" -eq 1 ]
check "bad input: nothing created" [ -z "$(ls -A "$D")" ]

# Where phases are listed: --help and --list-options=json.
run_mpi 1 30 --help
check "--help lists find" grep -q "read-files,find,delete" "$T/out"
run_mpi 1 30 --list-options=json
pycheck "--list-options=json: find, a metadata phase" find options "$T/out"
finish
