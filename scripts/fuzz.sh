#!/bin/bash
# Fuzz pfsbench with libFuzzer: its option and size parser (src/core/config.c),
# or the results file's structure check (src/results/image.c).
#
#   scripts/fuzz.sh [SECONDS]            build, then fuzz for SECONDS (default 180)
#   scripts/fuzz.sh --build-only DIR     build DIR/fuzz_config and DIR/fuzz_results and
#                                        stop (the ctest replay uses this)
#
# The targets, built with clang -fsanitize=fuzzer,address,undefined:
#   config   tests/fuzz/fuzz_config.c with the MPI-free core only; corpus
#            tests/fuzz/corpus/
#   results  tests/fuzz/fuzz_results.c with the core and the results module's
#            check and schema (HDF5 from pkg-config, not instrumented); corpus
#            tests/fuzz/corpus_results/
# The committed corpus seeds the run from a copy in a temporary directory:
# what libFuzzer adds to that copy is thrown away, the committed corpus never
# grows by itself (add an input there by hand when it is worth keeping).
#
# Environment:
#   FUZZ_OUT=DIR         where crash-*/leak-*/timeout-* reproducers go and the
#                        grown corpus is kept (default: a new /tmp/pfsfuzz.* directory)
#   FUZZ_TARGET=NAME     config (default) or results
#   FUZZ_JOBS=N          parallel fuzzing processes (default 1)
#   PFS_FUZZ_STRICT=0    do not require printable error messages (see fuzz_config.c)
#   CC=clang-14          the compiler (default: clang, else clang-14)
# Extra libFuzzer flags may follow `--`, e.g. scripts/fuzz.sh 60 -- -max_len=512
#
# Exit status: 0 nothing found, 1 libFuzzer found a crash, leak or timeout
# (the reproducer's path is printed), 2 the target could not be built.
# Reproduce a finding with: DIR/fuzz_TARGET CRASH_FILE; minimise it with
# DIR/fuzz_TARGET -minimize_crash=1 -runs=100000 CRASH_FILE.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)

build() { # build OUTDIR: OUTDIR/fuzz_config and OUTDIR/fuzz_results, or exit 2
    local out=$1 cc=${CC:-}
    if [ -z "$cc" ]; then
        if command -v clang >/dev/null; then cc=clang; else cc=clang-14; fi
    fi
    mkdir -p "$out"
    local rev
    rev=$(git -C "$SRC" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    local flags=(-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
        -I"$SRC/include" -DPFS_VERSION='"fuzz"' -DPFS_GIT_REV="\"$rev\"")
    # The harness and the MPI-free core (the parser reads the option and
    # phase tables, the file names and the backend registry): libc, libm
    # and pthreads, no MPI, no HDF5; no optional backend (their lines parse
    # and are refused: "built without it").
    # Compiled once for both targets, a folder of objects per source folder
    # (core, phases and backends share file names): objs FOLDER SOURCES...
    local core=()
    objs() {
        local d=$out/obj/$1
        shift
        rm -rf "$d" && mkdir -p "$d" && (cd "$d" && "$cc" "${flags[@]}" -c "$@") && core+=("$d"/*.o)
    }
    if ! { objs core "$SRC"/src/core/*.c && objs phases "$SRC"/src/core/phases/*.c &&
        objs backends "$SRC"/src/backends/{backend,registry,hdf5_options,posix,null,mmap,stdio}.c; } 2>"$out/build.log"; then
        echo "fuzz.sh: could not build the MPI-free core of the fuzz targets with $cc:" >&2
        cat "$out/build.log" >&2
        exit 2
    fi
    if ! "$cc" "${flags[@]}" "$SRC/tests/fuzz/fuzz_config.c" "${core[@]}" -lm -lpthread \
        -o "$out/fuzz_config" 2>>"$out/build.log"; then
        echo "fuzz.sh: could not build the fuzz target fuzz_config with $cc:" >&2
        cat "$out/build.log" >&2
        exit 2
    fi
    # The structure check and the schema it checks against, with the core
    # (the schema writes a run's figures): image.c, the append's file
    # driver (overlay.c) and every writer of the file (src/results/*_h5.c,
    # so a writer added there is built in too);
    # HDF5 as the build finds it.
    local h5
    if ! h5=$(pkg-config --cflags --libs hdf5 2>"$out/build.log") ||
        ! "$cc" "${flags[@]}" -I"$SRC/src/results" "$SRC/tests/fuzz/fuzz_results.c" "$SRC"/src/results/image.c \
            "$SRC"/src/results/overlay.c "$SRC"/src/results/*_h5.c \
            "${core[@]}" $h5 -lm \
            -lpthread -o "$out/fuzz_results" 2>>"$out/build.log"; then
        echo "fuzz.sh: could not build the fuzz target fuzz_results with $cc:" >&2
        cat "$out/build.log" >&2
        exit 2
    fi
}

if [ "${1:-}" = "--build-only" ]; then
    [ $# -ge 2 ] || { echo "usage: $0 --build-only DIR" >&2; exit 2; }
    build "$2"
    echo "$2/fuzz_config $2/fuzz_results"
    exit 0
fi

SECS=180
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    SECS=$1
    shift
fi
[ "${1:-}" = "--" ] && shift
case $SECS in ''|*[!0-9]*) echo "usage: $0 [SECONDS] [-- LIBFUZZER_FLAGS...]" >&2; exit 2 ;; esac

TARGET=${FUZZ_TARGET:-config}
case $TARGET in
config) CORPUS=$SRC/tests/fuzz/corpus ;;
results) CORPUS=$SRC/tests/fuzz/corpus_results ;;
*) echo "fuzz.sh: FUZZ_TARGET is config or results, not '$TARGET'" >&2; exit 2 ;;
esac
OUT=${FUZZ_OUT:-$(mktemp -d /tmp/pfsfuzz.XXXXXX)}
mkdir -p "$OUT/corpus" "$OUT/artifacts"
build "$OUT/bin"
# Seed from a copy: libFuzzer writes new inputs into its first corpus directory.
cp "$CORPUS"/* "$OUT/corpus/"

# Sanitizer settings of the surrounding shell (the ctest sanitizer build sets
# LD_PRELOAD and LSan suppressions for Open MPI) do not apply to this target.
unset LD_PRELOAD LSAN_OPTIONS
export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

echo "fuzz.sh: fuzzing fuzz_$TARGET for ${SECS}s; corpus $OUT/corpus, findings in $OUT/artifacts"
RC=0
jobs=${FUZZ_JOBS:-1}
extra=()
[ "$jobs" -gt 1 ] && extra=(-fork="$jobs" -ignore_crashes=0)
# The results target's input is a list of choices; 256 of them build any file it can.
[ "$TARGET" = results ] && extra+=(-max_len=256 -len_control=0)
"$OUT/bin/fuzz_$TARGET" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$OUT/artifacts/" "${extra[@]}" "$@" "$OUT/corpus" 2>&1 | tee "$OUT/fuzz.log" || RC=$?
found=$(ls "$OUT/artifacts" 2>/dev/null || true)
if [ -n "$found" ] || [ "$RC" -ne 0 ]; then
    echo "fuzz.sh: FINDINGS (libFuzzer exit $RC):"
    for f in $found; do echo "  $OUT/artifacts/$f"; done
    echo "fuzz.sh: reproduce with $OUT/bin/fuzz_$TARGET FILE"
    exit 1
fi
echo "fuzz.sh: nothing found in ${SECS}s ($(ls "$OUT/corpus" | wc -l) inputs in the grown corpus $OUT/corpus)"
exit 0
