#!/bin/sh
# The whole test suite: installs what it needs (Debian 12), builds pfsbench,
# runs the unit and MPI tests with ctest, then again built with
# AddressSanitizer and UndefinedBehaviorSanitizer (skip that second pass with
# PFS_TEST_SANITIZERS=0). Extra arguments go to both ctest runs.
set -e
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
jobs=$(nproc)

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
(cd build && ctest --output-on-failure --timeout 600 "$@")

if [ "${PFS_TEST_SANITIZERS:-1}" != 0 ]; then
    cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DPFS_SANITIZE=ON >/dev/null
    cmake --build build-asan -j"$jobs"
    # The job scripts, valgrind, the fuzzer (its own sanitizers), the
    # benchmark smoke run, the docs check and the GlusterFS and Ceph tests
    # (file-system behaviour, mostly fault waits) gain nothing from a second pass.
    (cd build-asan && ctest --output-on-failure --timeout 900 -E 'slurm|valgrind|fuzz|bench|docs|recipes|sweep|gluster|ceph' "$@")
fi
