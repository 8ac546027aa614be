#!/bin/sh
# The default benchmark on this machine: installs what it needs (Debian 12),
# builds pfsbench, and runs 2 ranks on a temporary directory on local disk.
set -e
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
dir=$(mktemp -d "${TMPDIR:-/tmp}/pfsbench-demo.XXXXXX")
trap 'rm -rf "$dir"' EXIT
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The data files go with the temporary directory; the results file stays
# here, for build/pfs-results pfsbench-demo.h5 (each demo appends a run).
# --ceilings: the node's memory-copy rate first, untimed, and each phase
# read as a share of it.
timeout 300 mpirun -np 2 --oversubscribe build/pfsbench -d "$dir" -t 1m -b 64m -p write,rewrite,read,reread -i 3 -e --ceilings \
    -o pfsbench-demo.h5 "$@"
