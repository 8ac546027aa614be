#!/bin/sh
# Installs what pfsbench needs to build and test on Debian 12 (bookworm).
# Safe to run again: apt-get skips what is already there.
set -e
PKGS="build-essential cmake pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools \
libcmocka-dev python3 python3-h5py python3-numpy python3-matplotlib python3-pandas python3-pytest python3-mypy util-linux procps \
slurm-wlm slurmctld slurmd slurm-client valgrind clang libclang-rt-14-dev fio e2fsprogs \
glusterfs-server glusterfs-client liburing-dev strace time chromium \
ceph-mon ceph-mgr ceph-osd ceph-mds ceph-fuse radosgw ceph-common libs3-2 iproute2 \
librados-dev libcephfs-dev libs3-dev libaio-dev libglusterfs-dev zlib1g-dev"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
# No daemon may start from an install: the Ceph and GlusterFS packages (and
# smartmontools and lvm2, which ceph-osd pulls in) would otherwise start
# their services where an init system runs them. The tests start their own
# servers on loopback (tests/lib). A policy-rc.d that refuses every start
# (101) is put in place for the install, unless one is there already.
POLICY=/usr/sbin/policy-rc.d
if [ ! -e "$POLICY" ]; then
    printf '#!/bin/sh\n# pfsbench install-deps.sh: no service starts during the install\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
    $SUDO chmod 755 "$POLICY"
    trap '$SUDO rm -f "$POLICY"' EXIT
fi
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
