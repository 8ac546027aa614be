#!/bin/bash
# pfs-vs-fio-gluster.sh: bench/pfs-vs-fio.sh with its target on a real
# distributed file system: a 2-brick GlusterFS volume started on this machine
# by tests/lib/glusterfs.sh (bricks on loopback, one FUSE client), stopped
# when the comparison ends. Same semantics for both tools (file per process,
# the given transfer size, fsync inside the write, then a read; interleaved
# rounds, each tool first in every other round); see bench/pfs-vs-fio.sh.
#
# usage: bench/pfs-vs-fio-gluster.sh [pfs-vs-fio.sh options, except -d]
#   default options: -r 6 -n 1,2 -t 1m -b 512m -m 0
# environment: PFSBENCH (default build-perf/pfsbench), GL_MOUNT_OPTS (extra
# glusterfs client options, e.g. "--attribute-timeout=0 --entry-timeout=0").
# Needs root, /dev/fuse and the gluster packages (scripts/install-deps.sh);
# exits 77 when they are missing, like the tests. One volume at a time: it
# waits for the harness's lock when a GlusterFS test is running.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
export PFSBENCH=${PFSBENCH:-$root/build-perf/pfsbench}
[ -x "$PFSBENCH" ] || { echo "pfs-vs-fio-gluster: no pfsbench at $PFSBENCH (set PFSBENCH)" >&2; exit 2; }
[ $# -gt 0 ] || set -- -r 6 -n 1,2 -t 1m -b 512m -m 0
for a in "$@"; do [ "$a" = -d ] && { echo "pfs-vs-fio-gluster: -d is the volume's mount here" >&2; exit 2; }; done
T=$(mktemp -d /tmp/pfsglbench.XXXXXX)
trap 'rm -rf "$T"' EXIT
# shellcheck source=../tests/lib/glusterfs.sh
. "$root/tests/lib/glusterfs.sh"
gl_start 2 || exit $?
gl_mount "$T/gl" || exit 1
mkdir -p "$T/gl/bench"
echo "# GlusterFS $(glusterfs --version | head -n 1 | awk '{ print $2 }'): volume $GL_VOL, 2 bricks in $GL_SCRATCH, mounted at $T/gl ($(awk -v m="$T/gl" '$2 == m { print $3, $1, $4 }' /proc/mounts))"
bash "$here/pfs-vs-fio.sh" -d "$T/gl/bench" "$@"
rc=$?
gl_stop || rc=1
exit $rc
