#!/bin/bash
# Fuzz pfsbench's option and size parser (src/core/config.c) with libFuzzer.
#
#   scripts/fuzz.sh [SECONDS]            build, then fuzz for SECONDS (default 180)
#   scripts/fuzz.sh --build-only DIR     build DIR/fuzz_config and stop (the ctest replay uses this)
#
# The target is tests/fuzz/fuzz_config.c linked with the MPI-free core only,
# built with clang -fsanitize=fuzzer,address,undefined. The committed corpus
# (tests/fuzz/corpus/) seeds the run from a copy in a temporary directory:
# what libFuzzer adds to that copy is thrown away, the committed corpus never
# grows by itself (add an input there by hand when it is worth keeping).
#
# Environment:
#   FUZZ_OUT=DIR         where crash-*/leak-*/timeout-* reproducers go and the
#                        grown corpus is kept (default: a new /tmp/pfsfuzz.* directory)
#   FUZZ_JOBS=N          parallel fuzzing processes (default 1)
#   PFS_FUZZ_STRICT=0    do not require printable error messages (see fuzz_config.c)
#   CC=clang-14          the compiler (default: clang, else clang-14)
# Extra libFuzzer flags may follow `--`, e.g. scripts/fuzz.sh 60 -- -max_len=512
#
# Exit status: 0 nothing found, 1 libFuzzer found a crash, leak or timeout
# (the reproducer's path is printed), 2 the target could not be built.
# Reproduce a finding with: DIR/fuzz_config CRASH_FILE; minimise it with
# DIR/fuzz_config -minimize_crash=1 -runs=100000 CRASH_FILE.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)

build() { # build OUTDIR: OUTDIR/fuzz_config, or exit 2
    local out=$1 cc=${CC:-}
    if [ -z "$cc" ]; then
        if command -v clang >/dev/null; then cc=clang; else cc=clang-14; fi
    fi
    mkdir -p "$out"
    local rev
    rev=$(git -C "$SRC" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
    # The harness and the MPI-free core (the parser reads the option and
    # phase tables, the file names and the backend registry): libc, libm
    # and pthreads, no MPI, no HDF5.
    if ! "$cc" -g -O1 -fno-omit-frame-pointer \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -I"$SRC/include" -DPFS_VERSION='"fuzz"' -DPFS_GIT_REV="\"$rev\"" \
        "$SRC/tests/fuzz/fuzz_config.c" "$SRC"/src/core/*.c -luring -lm -lpthread \
        -o "$out/fuzz_config" 2>"$out/build.log"; then
        echo "fuzz.sh: could not build the fuzz target with $cc:" >&2
        cat "$out/build.log" >&2
        exit 2
    fi
}

if [ "${1:-}" = "--build-only" ]; then
    [ $# -ge 2 ] || { echo "usage: $0 --build-only DIR" >&2; exit 2; }
    build "$2"
    echo "$2/fuzz_config"
    exit 0
fi

SECS=180
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
    SECS=$1
    shift
fi
[ "${1:-}" = "--" ] && shift
case $SECS in ''|*[!0-9]*) echo "usage: $0 [SECONDS] [-- LIBFUZZER_FLAGS...]" >&2; exit 2 ;; esac

OUT=${FUZZ_OUT:-$(mktemp -d /tmp/pfsfuzz.XXXXXX)}
mkdir -p "$OUT/corpus" "$OUT/artifacts"
build "$OUT/bin"
# Seed from a copy: libFuzzer writes new inputs into its first corpus directory.
cp "$SRC"/tests/fuzz/corpus/* "$OUT/corpus/"

# Sanitizer settings of the surrounding shell (the ctest sanitizer build sets
# LD_PRELOAD and LSan suppressions for Open MPI) do not apply to this target.
unset LD_PRELOAD LSAN_OPTIONS
export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

echo "fuzz.sh: fuzzing for ${SECS}s; corpus $OUT/corpus, findings in $OUT/artifacts"
RC=0
jobs=${FUZZ_JOBS:-1}
extra=()
[ "$jobs" -gt 1 ] && extra=(-fork="$jobs" -ignore_crashes=0)
"$OUT/bin/fuzz_config" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$OUT/artifacts/" "${extra[@]}" "$@" "$OUT/corpus" 2>&1 | tee "$OUT/fuzz.log" || RC=$?
found=$(ls "$OUT/artifacts" 2>/dev/null || true)
if [ -n "$found" ] || [ "$RC" -ne 0 ]; then
    echo "fuzz.sh: FINDINGS (libFuzzer exit $RC):"
    for f in $found; do echo "  $OUT/artifacts/$f"; done
    echo "fuzz.sh: reproduce with $OUT/bin/fuzz_config FILE"
    exit 1
fi
echo "fuzz.sh: nothing found in ${SECS}s ($(ls "$OUT/corpus" | wc -l) inputs in the grown corpus $OUT/corpus)"
exit 0
