#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs what building and testing rbd-volume needs on Debian 12. Idempotent.
set -euo pipefail

packages=(
	# build
	meson ninja-build pkg-config g++
	libtomlplusplus-dev libexpected-dev libmount-dev libblkid-dev libssl-dev
	libcryptsetup-dev
	# tests, lint, sanitizers and the fuzzer
	libgtest-dev libgmock-dev
	# every shell script is checked (scripts/shellcheck.sh)
	shellcheck
	# the integration suite: filesystems and the signatures it must never format
	util-linux e2fsprogs xfsprogs btrfs-progs cryptsetup-bin fdisk lvm2
	# unit files are checked with systemd-analyze verify, the bus policy with
	# xmllint and a private dbus-daemon
	systemd dbus libxml2-utils
	# the system suite and the demo: systemd booted in systemd-nspawn
	systemd-container
	# Ceph: the librbd adapter, and a throw-away test cluster with rbd-fuse
	librados-dev librbd-dev ceph-mon ceph-osd ceph-mgr ceph-common rbd-fuse iproute2
	# the kernel suite: Debian's kernel under qemu (software emulation), its
	# modules found with kmod, the rbd-nbd driver; the kernel, busybox-static
	# and udev are fetched by name (apt-get download) when it first runs
	qemu-system-x86 kmod rbd-nbd
	# ceph-csi's data keys, wrapped apart from our C++ (tests/kernel/ceph_csi_key.py)
	python3-cryptography
	# rbd-volume-csi: gRPC and protobuf (the csi feature)
	libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
	clang clang-format libclang-rt-14-dev
	# the clang build links with lld: 28 programs in 22 CPU-seconds, not 72
	lld-14
	# clang-tidy 22 (bookworm-security): it skips system headers, and lints
	# every file in half the CPU time clang-tidy 14 took (scripts/clang-tidy.sh)
	clang-tidy-22
	# the Debian packages (packaging/build-packages.sh): dpkg-buildpackage,
	# debhelper, lintian, rpmspec (rpm), and the build dependencies not
	# listed above (packaging/debian/control)
	build-essential dpkg-dev debhelper fakeroot lintian rpm libsystemd-dev scdoc
	# the man test renders every page with man --warnings
	man-db groff-base
)

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: run as root (apt-get needs it)" >&2
	exit 1
fi

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#packages[@]} packages present"
	exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
