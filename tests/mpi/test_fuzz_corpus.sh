#!/bin/bash
# The option and size parser under libFuzzer (AddressSanitizer and UBSan):
# the committed corpus replayed once, then a 20-second fuzzing run from a
# copy of it. Skipped where clang has no libFuzzer. No MPI here: the target
# links the MPI-free core only (scripts/fuzz.sh builds it).
. "$(dirname "$0")/lib.sh"
SRC=${PFS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
TESTS=${PFS_TESTS:-$SRC/tests}
CORPUS=$TESTS/fuzz/corpus

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
check "the fuzz target builds ($CC)" build_target
FZ=$T/bin/fuzz_config
if [ ! -x "$FZ" ]; then
    finish
    exit
fi

n=$(ls "$CORPUS" | wc -l)
check "the committed corpus has inputs ($n)" [ "$n" -ge 10 ]
check "the committed corpus stays small (<= 40 files, no file over 8 KiB)" \
    [ "$n" -le 40 -a -z "$(find "$CORPUS" -type f -size +8k)" ]

# Replay: each committed input once, no mutation.
RC=0
timeout 60 "$FZ" "$CORPUS"/* >"$T/out" 2>"$T/err" || RC=$?
check "replay of the corpus: every input runs clean" [ "$RC" -eq 0 ]
check "replay of the corpus: $n inputs executed" [ "$(grep -c '^Executed ' "$T/err")" -eq "$n" ]

# 20 seconds of fuzzing, seeded from a copy (the committed corpus never grows).
mkdir -p "$T/corpus" "$T/artifacts"
cp "$CORPUS"/* "$T/corpus/"
RC=0
timeout 60 "$FZ" -max_total_time=20 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$T/artifacts/" "$T/corpus" >"$T/out" 2>"$T/err" || RC=$?
check "20 s of fuzzing: no crash, leak, timeout or broken promise" [ "$RC" -eq 0 -a -z "$(ls -A "$T/artifacts")" ]
grep -E '^stat::number_of_executed_units' "$T/err" | sed 's/^/    /'
for f in "$T"/artifacts/*; do
    [ -e "$f" ] || continue
    echo "    finding $(basename "$f"), bytes as od -c shows them:"
    od -c "$f" | head -20 | sed 's/^/    /'
done
check "the committed corpus is untouched" [ "$(ls "$CORPUS" | wc -l)" -eq "$n" ]
finish
