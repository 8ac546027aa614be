#!/bin/sh
# The whole test suite: installs what it needs (Debian 12), builds pfsbench,
# runs the unit and MPI tests with ctest, then again built with
# AddressSanitizer and UndefinedBehaviorSanitizer (skip that second pass with
# PFS_TEST_SANITIZERS=0). Extra arguments go to both ctest runs.
#
# Both passes run three times as many tests at once as the machine has cores
# (PFS_TEST_JOBS overrides it): most tests wait more than they compute, and
# tests/CMakeLists.txt gives those that keep a core busy three slots, keeps the
# tests that share a service apart (RESOURCE_LOCK) and runs a test that needs
# the machine to itself alone (PROCESSORS). The sanitizer pass runs the tests labelled sanitize: the
# unit tests and the MPI tests that drive pfsbench's C code on paths of their
# own (tests/CMakeLists.txt says which are left out, and why).
set -e
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cores=$(nproc)
jobs=${PFS_TEST_JOBS:-$((3 * cores))}

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$cores"
# The sanitizer build compiles during the first pass, at the lowest CPU
# priority: most tests there wait, and it takes only the cores they leave
# idle (a minute of CPU, 30-40 s on 2 cores when it ran before the pass).
sanitizers=${PFS_TEST_SANITIZERS:-1}
if [ "$sanitizers" != 0 ]; then
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPFS_SANITIZE=ON >/dev/null
    nice -n 19 cmake --build build-asan -j"$cores" >build-asan/build.log 2>&1 &
    asan_build=$!
fi
rc=0
(cd build && ctest -j"$jobs" --output-on-failure "$@") || rc=$?

if [ "$sanitizers" != 0 ]; then
    brc=0
    wait "$asan_build" || brc=$?
    cat build-asan/build.log
    [ "$rc" -eq 0 ] || exit "$rc"
    [ "$brc" -eq 0 ] || { echo "test.sh: the sanitizer build failed (exit $brc)" >&2; exit "$brc"; }
    (cd build-asan && ctest -j"$jobs" -L sanitize --output-on-failure "$@")
fi
exit "$rc"
