#!/bin/sh
# Installs what pfsbench needs to build and test on Debian 12 (bookworm).
# Safe to run again: apt-get skips what is already there.
set -e
PKGS="build-essential cmake pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev hdf5-tools \
libcmocka-dev python3 python3-h5py python3-numpy python3-matplotlib python3-pandas python3-pytest util-linux procps \
slurm-wlm slurmctld slurmd slurm-client valgrind clang libclang-rt-14-dev fio e2fsprogs \
glusterfs-server glusterfs-client liburing-dev strace time"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
