#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package xib's build and tests need, on Debian 12.
# Idempotent: does nothing when all are present, else one "apt-get update"
# and one install.
set -euo pipefail

packages=(
	# build
	build-essential bc bison flex libssl-dev libelf-dev dwarves pkg-config
	rsync xz-utils zstd gawk file
	linux-headers-amd64 linux-source-6.1 dkms
	# lint
	sparse cppcheck
	# test VM
	qemu-system-x86 linux-image-amd64 busybox-static cpio kmod procps
	# lspci in tests/bats/pcie.bats
	pciutils
	# user space and tests
	libmnl-dev libibverbs-dev librdmacm-dev ibverbs-utils rdmacm-utils
	perftest iproute2 bats ethtool strace jq
	# a device-mapper device whose reads wait (tests/bats/verbs.bats)
	dmsetup
	# decodes the pcap files of "xibctl trace" (tests/bats/verbs.bats)
	tshark
	# manual pages: man -l in tests/bats/host/man.bats
	man-db groff-base
	# more Debian objects that link the RDMA libraries, for
	# tests/bats/host/rdma-elf.bats (pyverbs' extension modules link
	# libmlx5 and libefa too)
	python3-pyverbs qperf
	# make bench: TCP over the same veth, the plots, system calls
	# counted without ptrace
	iperf3 gnuplot-nox linux-perf
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: all ${#packages[@]} packages installed"
	exit 0
fi

echo "deps: installing ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	sudo=sudo
else
	sudo=
fi
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
