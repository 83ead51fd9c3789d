#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# xib_uverbs smoke test: the ioctl command set, mmap, close-time cleanup
# and disassociation on device removal, with tests/c/uverbs_smoke.c
# (built on the host by make userspace).

load helpers

# The modules stay loaded for the whole file (loading and unloading them
# for every test costs most of a minute in the debug guest); a test that
# unloads one gets them back in the next setup.  The runner unloads them
# after the file and fails it if that is not possible.
setup_file() {
	xib_require_vm
	xib-modules load
}

teardown_file() {
	xib-modules unload
}

setup() {
	xib_require_vm
	xib_modules_loaded || xib-modules load
	xib_veth xv0 xv1
	xibctl link add xib0 netdev xv0
	SMOKE=${XIB_BUILD:-$XIB_ROOT/build}/tests/c/uverbs_smoke
}

teardown() {
	ip link del xv0 2>/dev/null || true
	xib_wait_no_devices
}

# Fail unless "res show xib0" reports no object and no context.
no_resources() {
	run xibctl res show xib0
	[[ "$output" =~ ctx\ 0\ pd\ 0\ mr\ 0\ cq\ 0\ qp\ 0\ srq\ 0\ ah\ 0 ]] || {
		echo "leaked: $output" >&2
		return 1
	}
}

run_smoke() {
	run "$SMOKE" "$@"
	[ "$status" -ne 77 ] || skip "the device has no verbs yet"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "commands, argument checks, mmap and destroy" {
	run_smoke basic
	no_resources
}

# debug only, as the two removal tests below: a context's release and
# its disassociation by a device's removal, racing commands and mappings,
# are teardown paths for KASAN, lockdep and kmemleak; the program is
# tests/c's in both kernels.
# bats test_tags=debug-only
@test "close destroys everything a context left behind" {
	run_smoke leak
	no_resources
}

# Start "uverbs_smoke $1 FILE" in the background and wait until it is
# ready; sets pid and ready.
start_smoke() {
	ready=$BATS_TEST_TMPDIR/ready
	"$SMOKE" "$1" "$ready" >"$BATS_TEST_TMPDIR/out" 2>&1 &
	pid=$!
	local i
	for i in $(seq 100); do
		[ -e "$ready" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
}

@test "a port going down queues PORT_ERR on the async event fd" {
	start_smoke portev
	[ -e "$ready" ] || { cat "$BATS_TEST_TMPDIR/out"; false; }
	ip link set xv0 down
	local status=0
	wait "$pid" || status=$?
	cat "$BATS_TEST_TMPDIR/out"
	[ "$status" -eq 0 ]
}

# bats test_tags=debug-only
@test "device removal disassociates an open context" {
	start_smoke hold
	if [ ! -e "$ready" ]; then
		local st=0
		wait "$pid" || st=$?
		[ "$st" -ne 77 ] || skip "the device has no verbs yet"
		cat "$BATS_TEST_TMPDIR/out"
		false
	fi
	xibctl link del xib0
	local status=0
	wait "$pid" || status=$?
	cat "$BATS_TEST_TMPDIR/out"
	[ "$status" -eq 0 ]
	[ ! -e /dev/xib/uverbs0 ]
}

# bats test_tags=debug-only
@test "device removal races with commands and mappings of two threads" {
	start_smoke race
	[ -e "$ready" ] || { cat "$BATS_TEST_TMPDIR/out"; false; }
	sleep 1
	xibctl link del xib0
	local status=0
	wait "$pid" || status=$?
	cat "$BATS_TEST_TMPDIR/out"
	[ "$status" -eq 0 ]
}
