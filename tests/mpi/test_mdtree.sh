#!/bin/bash
# The metadata phases on a directory tree (mdtest -z/-b/-L): --depth,
# --branch, --leaf-only; the directory phases mkdir, stat-dirs, rmdir and
# their counts (sum of branch^k, k = 1 .. depth, per stream's tree); the
# files spread over the tree; the order rules; clean-up of exactly what
# the run made.
. "$(dirname "$0")/lib.sh"
D=$T/data
mkdir -p "$D"
ops_in() { $PY -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); print(' '.join(str(int(x)) for x in f['summary']['ops']))" "$1"; }

ALL=mkdir,stat-dirs,create,stat,read-files,find,delete,rmdir
# np, dirs, depth, branch, files: ops = dirs for the three directory phases, files for the others;
# with --dirs shared one tree for all streams (mdtest without -u), so its directories count once.
for spec in "2 per-rank 2 3 26" "4 shared 1 2 9" "1 per-rank 3 1 5" "2 shared 2 2 7"; do
    set -- $spec
    np=$1 dirs=$2 depth=$3 br=$4 n=$5
    nd=0 lvl=1
    for ((k = 1; k <= depth; k++)); do lvl=$((lvl * br)); nd=$((nd + lvl)); done
    R=$T/t.$np.$dirs.$depth.$br.h5
    run_mpi $np 60 -d "$D" -p $ALL --depth $depth --branch $br -n $n --dirs $dirs --file-size 100 -o "$R"
    what="np=$np --dirs $dirs --depth $depth --branch $br -n $n"
    check "$what: exit 0" [ "$RC" -eq 0 ]
    check "$what: the directory is as it was" [ -z "$(ls -A "$D")" ]
    d=$((np * nd)) f=$((np * n)) tree="a tree per stream"
    [ "$dirs" = shared ] && d=$nd tree="one tree for all streams, made by stream 0,"
    want="$d $d $f $f $f $f $f $d"
    check "$what: ops in the results ($want)" [ "$(ops_in "$R")" = "$want" ]
    check "$what: 3 rows in dirs/s" [ "$(grep -cE '^(mkdir|stat-dirs|rmdir) +0 .* dirs/s' "$T/out")" -eq 3 ]
    check "$what: the header names the tree" grep -q "$tree of depth $depth, branch $br: $nd directories, files in every directory" "$T/out"
    pycheck "$what: the results file stores depth, branch, leaf_only and the phases by name" mdtree tree "$R" "$depth" "$br"
done

# Where things go, seen under strace: mkdir parents first, every directory
# of the tree holds the same number of a stream's files (or the leaves only
# with --leaf-only), rmdir deepest first.
if command -v strace >/dev/null; then
    traced() {
        rm -f "$T"/st.*
        RC=0
        timeout 120 mpirun -np 2 --oversubscribe --bind-to none sh -c \
            'o=$1 b=$2; shift 2; ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" exec strace -y -f -qq -e trace=mkdir,mkdirat,rmdir,unlinkat,openat -o "$o.$OMPI_COMM_WORLD_RANK" "$b" "$@"' \
            sh "$T/st" "$PFSBENCH" -d "$D" "$@" >"$T/out" 2>"$T/err" || RC=$?
        # The calls are relative to directory descriptors (openat(7</d/x>, "f.0.3", ...)): -y names
        # the descriptor's directory, joined here to the name; unlinkat(..., AT_REMOVEDIR) is an rmdir.
        sed -E -i 's#^([0-9]+ +)([a-z0-9]+)\([0-9]+<([^>]*)>, "([^"]*)"#\1\2("\3/\4"#;
                   s#^([0-9]+ +)unlinkat(\("[^"]*"), AT_REMOVEDIR\)#\1rmdir\2)#' "$T"/st.*
    }
    # per-directory file counts of rank R's creates: "COUNT" lines, sorted, unique
    spread() { grep -E 'O_CREAT' "$T/st.$1" | grep -oE '"[^"]*/f\.[0-9]+\.[0-9]+"' | sed -E 's#/f\.[^/]*"$##' | sort | uniq -c | awk '{print $1}' | sort -u | tr '\n' ' '; }
    dirs_with_files() { grep -E 'O_CREAT' "$T/st.$1" | grep -oE '"[^"]*/f\.[0-9]+\.[0-9]+"' | sed -E 's#/f\.[^/]*"$##' | sort -u | wc -l; }
    levels() { grep -E "^[0-9]+ +$1(at)?\(" "$T/st.0" | grep -oE '"[^"]*d\.[0-9]+\.[0-9]+"' | awk -F'/d\\.' '{print NF - 1}' | tr '\n' ' '; }
    traced -p mkdir,create,delete,rmdir --depth 2 --branch 2 -n 14 --dirs per-rank --no-results
    check "strace: exit 0" [ "$RC" -eq 0 ]
    check "strace: 7 directories (the stream's and its 6) hold rank 0's files" [ "$(dirs_with_files 0)" -eq 7 ]
    check "strace: 2 files in each" [ "$(spread 0)" = "2 " ]
    check "strace: rank 1 too" [ "$(spread 1)" = "2 " ]
    check "strace: mkdir parents first" [ "$(levels mkdir)" = "1 1 2 2 2 2 " ]
    check "strace: rmdir deepest first" [ "$(levels rmdir)" = "2 2 2 2 1 1 " ]
    traced -p mkdir,create,stat,delete,rmdir --depth 2 --branch 2 --leaf-only -n 8 --order random --no-results
    check "strace --leaf-only: exit 0" [ "$RC" -eq 0 ]
    check "strace --leaf-only: the 4 leaves hold the files, 2 each" [ "$(dirs_with_files 0) $(spread 0)" = "4 2 " ]
    check "strace --leaf-only: only leaves (depth 2)" [ -z "$(grep -E 'O_CREAT' "$T/st.0" | grep -oE '"[^"]*/f\.[0-9]+\.[0-9]+"' | grep -vE '/d\.0\.[0-9]+/d\.0\.[0-9]+/f\.')" ]
    check "strace --leaf-only: nothing left" [ -z "$(ls -A "$D")" ]
    # --dirs shared: mdtest's one tree, which rank 0 makes and removes; rank 1's files go in it
    traced -p mkdir,create,delete,rmdir --depth 2 --branch 2 -n 14 --dirs shared --no-results
    check "strace shared tree: exit 0" [ "$RC" -eq 0 ]
    check "strace shared tree: rank 0 makes its 6 directories, parents first" [ "$(levels mkdir)" = "1 1 2 2 2 2 " ]
    check "strace shared tree: rank 1 makes and removes none" [ "$(grep -cE '^[0-9]+ +(mkdir|rmdir)(at)?\(.*/d\.[0-9]+\.[0-9]+"' "$T/st.1")" -eq 0 ]
    check "strace shared tree: rank 1's files in the 7 directories of stream 0's tree, 2 each" \
        [ "$(dirs_with_files 1) $(spread 1)" = "7 2 " ]
    check "strace shared tree: ... named d.0.J" [ -z "$(grep -E 'O_CREAT' "$T/st.1" | grep -oE '"[^"]*/f\.1\.[0-9]+"' | grep -E '/d\.1\.')" ]
    check "strace shared tree: rank 0 removes the tree, deepest first" [ "$(levels rmdir)" = "2 2 2 2 1 1 " ]
    check "strace shared tree: nothing left" [ -z "$(ls -A "$D")" ]
else
    echo "SKIP: strace is not installed; the placement checks need it"
fi

# -C: stat and read-files in another stream's tree; random order.
for dirs in per-rank shared; do
    run_mpi 2 60 -d "$D" -p mkdir,create,stat,read-files,delete,rmdir --depth 2 --branch 2 -n 21 --file-size 10 \
        --dirs $dirs -C --order random --no-results
    check "-C --order random --dirs $dirs: exit 0, nothing left" [ "$RC" -eq 0 -a -z "$(ls -A "$D")" ]
done

# Repetitions: mkdir..rmdir each time.
run_mpi 2 60 -d "$D" -p mkdir,create,delete,rmdir --depth 1 --branch 4 -n 10 -i 2 --no-results
check "-i 2: exit 0" [ "$RC" -eq 0 ]
check "-i 2: 2 mkdir repetitions of the one shared tree's 4 directories" grep -qE "^mkdir +2 .* 4$" "$T/out"
check "-i 2: nothing left" [ -z "$(ls -A "$D")" ]

# Clean-up removes exactly what the run made: files and tree with no delete or rmdir phase.
run_mpi 2 60 -d "$D" -p mkdir,create,stat --depth 2 --branch 2 -n 10 --dirs per-rank --no-results
check "no delete, no rmdir: exit 0" [ "$RC" -eq 0 ]
check "no delete, no rmdir: the clean-up left nothing" [ -z "$(ls -A "$D")" ]
run_mpi 2 60 -d "$D" -p mkdir,stat-dirs --depth 3 --branch 2 --no-results
check "directories only: exit 0, nothing left" [ "$RC" -eq 0 -a -z "$(ls -A "$D")" ]
touch "$D/mine"
run_mpi 2 60 -d "$D" -p mkdir,create,delete,rmdir --depth 1 --branch 2 -n 4 --no-results
check "a file of someone else's stays" [ "$RC" -eq 0 -a "$(ls -A "$D")" = "mine" ]
rm -f "$D/mine"

# --clean knows a crashed run's trees (d.<stream>.<node>) and removes them; a foreign entry keeps the directory.
mkdir -p "$D/pfsbench.crash.md/s0/d.0.1/d.0.3" "$D/pfsbench.crash.md/d.1.2"
touch "$D/pfsbench.crash.md/s0/d.0.1/d.0.3/f.0.7" "$D/pfsbench.crash.md/d.1.2/f.1.0" "$D/pfsbench.crash.md/f.1.1"
mkdir -p "$D/pfsbench.other.md/d.0.1"
touch "$D/pfsbench.other.md/d.0.1/notours"
RC=0
timeout 60 "$PFSBENCH" --clean -d "$D" --yes >"$T/out" 2>"$T/err" || RC=$?
check "--clean --yes: the crashed run's trees are gone" [ ! -e "$D/pfsbench.crash.md" ]
check "--clean --yes: a tree holding a foreign file stays" [ -e "$D/pfsbench.other.md/d.0.1/notours" ]
rm -rf "$D"/pfsbench.other.md

# Bad input: one message, exit 2, nothing made.
for bad in "-p create,delete --depth 2|needs mkdir before it" "-p mkdir,rmdir|needs --depth 1 or more" \
    "-p mkdir,create,rmdir --depth 1|needs delete between them" "-p mkdir,create,delete --depth 1 -i 2|end the list with rmdir" \
    "-p mkdir --depth 40|--depth" "-p mkdir --depth 9 --branch 100|more than 100000000 directories"; do
    args=${bad%%|*} want=${bad#*|}
    run_refused 2 60 -d "$D" $args --no-results
    check "'$args': exit 2" [ "$RC" -eq 2 ]
    check "'$args': one message naming it" [ "$(grep -c "^pfsbench: error" "$T/err")" -eq 1 -a -n "$(grep -F -- "$want" "$T/err")" ]
    check "'$args': nothing created" [ -z "$(ls -A "$D")" ]
done
run_mpi 1 60 -d "$D" -p create,delete --branch 3 -n 4 --no-results
check "--branch without --depth: warned of" grep -q "branch does nothing without --depth" "$T/err"

finish
