#!/usr/bin/env bats
# SPDX-License-Identifier: BSD-2-Clause
#
# xib's librdmacm.so.1 on the build machine (no kernel needed): every
# symbol and version node of Debian 12's librdmacm.so.1 (rdma-core 44),
# the 12 rdmacm-utils programs resolve through xib-run, and what the
# library decides alone (tests/c/rdmacm_host.c).

bats_require_minimum_version 1.5.0

setup() {
	BUILD=${XIB_BUILD:-$BATS_TEST_DIRNAME/../../../build}
	XR=$BUILD/bin/xib-run
	LIB=$BUILD/lib/xib/librdmacm.so.1
	[ -x "$XR" ] && [ -f "$LIB" ] || skip "librdmacm.so.1 not built (make userspace)"
	SYSLIB=/usr/lib/x86_64-linux-gnu/librdmacm.so.1
}

defined_syms() {
	nm -D --with-symbol-versions --defined-only "$1" | awk '{ print $2, $3 }' | sort
}

@test "librdmacm: every function and version node of rdma-core 44's" {
	[ -e "$SYSLIB" ] || skip "librdmacm1 not installed (make deps)"
	diff <(defined_syms "$SYSLIB") <(defined_syms "$LIB")
	# 68 functions in RDMACM_1.0 to 1.3, as counted on Debian 12
	[ "$(defined_syms "$LIB" | grep -c '^T ')" -eq 68 ]
	objdump -p "$LIB" | grep -q 'NEEDED.*libibverbs.so.1'
}

@test "librdmacm: the 12 rdmacm-utils programs resolve through xib-run" {
	local p path out
	for p in rping ucmatose udaddy mckey cmtime rdma_server rdma_client \
		 rdma_xserver rdma_xclient rstream riostream rcopy; do
		path=$(command -v "$p") || skip "rdmacm-utils not installed (make deps)"
		out=$("$XR" ldd -r "$path" 2>&1)
		echo "$out" | grep -q "$(dirname "$(readlink -f "$LIB")")/librdmacm.so.1" ||
			{ echo "$p: not ours: $out"; false; }
		! echo "$out" | grep -Eq 'undefined symbol|not found|version .* not found' ||
			{ echo "$p: $out"; false; }
	done
}

@test "librdmacm: what the library decides without a kernel (rdmacm_host)" {
	run "$XR" "$BUILD/tests/c/rdmacm_host"
	echo "$output"
	[ "$status" -eq 0 ]
	! echo "$output" | grep -q '^not ok'
}
