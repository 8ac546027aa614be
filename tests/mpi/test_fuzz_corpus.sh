#!/bin/bash
# The fuzz targets under libFuzzer (AddressSanitizer and UBSan): the option
# and size parser (fuzz_config) and the results file's structure check
# (fuzz_results), each with its committed corpus replayed once, then a
# 10-second fuzzing run from a copy of it. Skipped where clang has no
# libFuzzer. No MPI here: scripts/fuzz.sh builds the targets.
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
TESTS=${PFS_TESTS:-$SRC/tests}

# The sanitizer test environment (PFS_SANITIZE=ON) preloads a library and sets
# LSan suppressions meant for Open MPI; the fuzz target wants neither.
unset LD_PRELOAD LSAN_OPTIONS
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

CC=${CC:-}
if [ -z "$CC" ]; then
    for c in clang clang-14; do command -v "$c" >/dev/null && { CC=$c; break; }; done
fi
probe() {
    printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' >"$T/probe.c"
    "$CC" -fsanitize=fuzzer,address,undefined "$T/probe.c" -o "$T/probe" 2>/dev/null
}
if [ -z "$CC" ] || ! probe; then
    echo "skip - no clang with libFuzzer (-fsanitize=fuzzer); install clang and libclang-rt-dev"
    finish
    exit
fi
export CC

build_target() { bash "$SRC/scripts/fuzz.sh" --build-only "$T/bin" >"$T/out" 2>"$T/err"; }
check "the fuzz targets build ($CC)" build_target

# fuzz_one NAME CORPUS: replay CORPUS through fuzz_NAME, then fuzz 10 s from a copy.
fuzz_one() {
    local name=$1 corpus=$2 fz=$T/bin/fuzz_$1 extra=()
    [ "$name" = results ] && extra=(-max_len=256 -len_control=0)
    if [ ! -x "$fz" ]; then
        bad "$name: the target was built"
        return
    fi
    local n
    n=$(ls "$corpus" | wc -l)
    check "$name: the committed corpus has inputs ($n)" [ "$n" -ge 10 ]
    check "$name: the committed corpus stays small (<= 40 files, no file over 8 KiB)" \
        [ "$n" -le 40 -a -z "$(find "$corpus" -type f -size +8k)" ]

    # Replay: each committed input once, no mutation.
    RC=0
    timeout 60 "$fz" "$corpus"/* >"$T/out" 2>"$T/err" || RC=$?
    check "$name: replay of the corpus: every input runs clean" [ "$RC" -eq 0 ]
    check "$name: replay of the corpus: $n inputs executed" [ "$(grep -c '^Executed ' "$T/err")" -eq "$n" ]

    # 10 seconds of fuzzing, seeded from a copy (the committed corpus never grows).
    rm -rf "$T/corpus" "$T/artifacts"
    mkdir -p "$T/corpus" "$T/artifacts"
    cp "$corpus"/* "$T/corpus/"
    RC=0
    timeout 60 "$fz" -max_total_time=10 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 "${extra[@]}" \
        -artifact_prefix="$T/artifacts/" "$T/corpus" >"$T/out" 2>"$T/err" || RC=$?
    check "$name: 10 s of fuzzing: no crash, leak, timeout or broken promise" [ "$RC" -eq 0 -a -z "$(ls -A "$T/artifacts")" ]
    grep -E '^stat::number_of_executed_units' "$T/err" | sed 's/^/    /'
    grep -E 'broken promise' "$T/err" | sed 's/^/    /'
    for f in "$T"/artifacts/*; do
        [ -e "$f" ] || continue
        echo "    finding $(basename "$f"), bytes as od -c shows them:"
        od -c "$f" | head -20 | sed 's/^/    /'
    done
    check "$name: the committed corpus is untouched" [ "$(ls "$corpus" | wc -l)" -eq "$n" ]
}

fuzz_one config "$TESTS/fuzz/corpus"
# The results file's structure check: every seed is named by its verdict,
# and the replay must give each that verdict still (PFS_FUZZ_VERBOSE).
fuzz_one results "$TESTS/fuzz/corpus_results"
if [ -x "$T/bin/fuzz_results" ]; then
    wrong=""
    for f in "$TESTS"/fuzz/corpus_results/*; do
        v=$(PFS_FUZZ_VERBOSE=1 timeout 30 "$T/bin/fuzz_results" -runs=1 "$f" 2>&1 | grep -E '^(accepted|refused)' | head -1)
        case ${f##*/} in
        accepted-next-*) [ "$v" = "accepted: the next run is ${f##*/accepted-next-}" ] || wrong="$wrong ${f##*/}" ;;
        refused-*) [ "${v%%:*}" = "refused (-1)" ] || wrong="$wrong ${f##*/}" ;;
        esac
    done
    check "results: each seed still gets the verdict its name says${wrong:+ (not:$wrong)}" [ -z "$wrong" ]
fi
finish
