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
(cd build && ctest -j"$jobs" --output-on-failure "$@")

if [ "${PFS_TEST_SANITIZERS:-1}" != 0 ]; then
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPFS_SANITIZE=ON >/dev/null
    cmake --build build-asan -j"$cores"
    (cd build-asan && ctest -j"$jobs" -L sanitize --output-on-failure "$@")
fi
