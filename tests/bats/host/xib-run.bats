#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# xib-run and the compat libraries, on the build machine (no device
# needed): the wrapper's command line, its library path, and what
# librdmacm does without the kernel's /dev/xib/rdma_cm.

bats_require_minimum_version 1.5.0

setup() {
	BUILD=${XIB_BUILD:-$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)/build}
	XR=$BUILD/bin/xib-run
	LIBDIR=$BUILD/lib/xib
	[ -x "$XR" ]
}

@test "--help and --version" {
	run "$XR" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"usage: xib-run PROGRAM [ARGS...]"* ]]
	[[ "$output" == *"$LIBDIR"* ]]
	run "$XR" --version
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^xib-run\ \(xib\)\ [0-9] ]]
}

@test "usage errors exit 2" {
	run "$XR"
	[ "$status" -eq 2 ]
	[[ "$output" == *usage:* ]]
	run "$XR" --bogus
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown option '--bogus'"* ]]
}

@test "runs the program with xib's libraries first on the search path" {
	[ -f "$LIBDIR/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
	run env LD_LIBRARY_PATH=/somewhere "$XR" sh -c 'echo "$LD_LIBRARY_PATH"; exit 3'
	[ "$status" -eq 3 ]
	[ "$output" = "$LIBDIR:/somewhere" ]
	run env -u LD_LIBRARY_PATH "$XR" sh -c 'echo "$LD_LIBRARY_PATH"'
	[ "$output" = "$LIBDIR" ]
	run "$XR" ldd "$(command -v ibv_devices)"
	[[ "$output" == *"libibverbs.so.1 => $LIBDIR/libibverbs.so.1"* ]]
}

@test "missing libraries or program: a clear error, status 127" {
	run -127 env XIB_LIBDIR=/nonexistent "$XR" true
	[ "$status" -eq 127 ]
	[[ "$output" == *"xib's libraries are missing from /nonexistent: libibverbs.so.1 librdmacm.so.1 libmlx5.so.1 libefa.so.1 libmlx4.so.1 libmana.so.1"* ]]
	[ -f "$LIBDIR/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
	run -127 "$XR" no-such-program-xib
	[ "$status" -eq 127 ]
	[[ "$output" == *"no-such-program-xib: command not found"* ]]
}

@test "librdmacm without /dev/xib/rdma_cm: a one-time message, no crash" {
	[ -f "$LIBDIR/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
	command -v rping >/dev/null || skip "rdmacm-utils not installed"
	[ ! -e /dev/xib/rdma_cm ] || skip "/dev/xib/rdma_cm exists on this machine"
	run "$XR" rping -s
	[ "$status" -ne 0 ] && [ "$status" -lt 128 ]
	[ "$(grep -c 'xib: /dev/xib/rdma_cm is missing: the RDMA CM needs the xib_ucma module' <<<"$output")" -eq 1 ]
}

@test "the stub libraries export rdma-core 44's version nodes" {
	local syms
	syms=$(readelf --dyn-syms -W "$LIBDIR/librdmacm.so.1" | awk '$7 != "UND" && $8 ~ /@@RDMACM_/' | wc -l)
	[ "$syms" -eq 68 ]
	readelf --dyn-syms -W "$LIBDIR/libmlx5.so.1" | grep -q 'mlx5dv_dek_destroy@@MLX5_1.21'
	readelf --dyn-syms -W "$LIBDIR/libefa.so.1" | grep -q 'efadv_query_device@@EFA_1.1'
}

@test "ldd -r: the 28 Debian binaries resolve every symbol and version against xib's libraries" {
	local b path out bad=0 absent=() lib
	[ -f "$LIBDIR/libibverbs.so.1" ] || skip "libibverbs.so.1 not built"
	for b in ibv_devices ibv_devinfo ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong \
		 ibv_srq_pingpong ibv_xsrq_pingpong ibv_asyncwatch rping ucmatose udaddy mckey \
		 rdma_server rdma_client rdma_xserver rdma_xclient cmtime rcopy riostream rstream \
		 ib_send_bw ib_send_lat ib_write_bw ib_write_lat ib_read_bw ib_read_lat \
		 ib_atomic_bw ib_atomic_lat; do
		path=$(command -v "$b") || { absent+=("$b"); continue; }
		out=$("$XR" ldd -r "$path" 2>&1)
		if grep -Eq 'undefined symbol|not found|no version information' <<<"$out"; then
			echo "$b: $out"
			bad=1
		fi
		# each RDMA library comes from xib's directory, never the system's
		for lib in libibverbs.so.1 librdmacm.so.1 libmlx5.so.1 libefa.so.1; do
			if grep -q "$lib =>" <<<"$out" &&
			   ! grep -q "$lib => $(readlink -f "$LIBDIR")/$lib" <<<"$out"; then
				echo "$b: $(grep "$lib =>" <<<"$out")"
				bad=1
			fi
		done
	done
	[ "$bad" = 0 ]
	[ ${#absent[@]} -eq 0 ] || skip "not installed: ${absent[*]}"
}
