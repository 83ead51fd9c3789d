#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# UD multicast (ibv_attach_mcast/ibv_detach_mcast, RoCEv2 over IP
# multicast): tests/c/xib_mcast_test between xib0 on veth end xv0 in
# namespace xibA (two attached QPs, and a loopback sender) and xib1 on xv1
# in xibB (the sender); the interface joins the IP group (IGMP) while a QP
# is attached and leaves it after; the same over IPv6 (MLD).

load helpers

C=${XIB_BUILD:-${XIB_ROOT:-.}/build}/tests/c
XR=${XIB_BUILD:-${XIB_ROOT:-.}/build}/bin/xib-run

setup_file() {
	xib_require_vm
	xib-modules load
}

teardown_file() {
	xib-modules unload
}

setup() {
	xib_require_vm
	[ -x "$C/xib_mcast_test" ] || skip "tests/c not built (make userspace)"
	bg_pid=
	xib_modules_loaded || xib-modules load
	xib_ns_pair xibA xibB xv0 xv1 10.213.0.1/24 10.213.0.2/24
}

teardown() {
	if [ -n "$bg_pid" ]; then
		kill -9 "$bg_pid" 2>/dev/null || true
		wait "$bg_pid" 2>/dev/null || true
	fi
	rm -f "$BATS_TEST_TMPDIR/go"
	xib_ns_del xibA xibB
	xib_wait_gone xib0 xib1
}

# Run xib_mcast_test in the background with -P; once it is READY, check
# that xv0 is a member of its group; let it finish; check that xv0 left.
run_paused() {
	local out=$BATS_TEST_TMPDIR/out group i
	ip netns exec xibA "$C/xib_mcast_test" -d "$dev0" -D "$dev1" \
		-P "$BATS_TEST_TMPDIR/go" "$@" >"$out" 2>&1 &
	bg_pid=$!
	for ((i = 0; i < 300; i++)); do
		grep -q '^READY' "$out" && break
		kill -0 "$bg_pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$out"
	group=$(sed -n 's/^READY //p' "$out")
	[ -n "$group" ]
	inA ip maddr show dev xv0 | grep -qw "$group"
	touch "$BATS_TEST_TMPDIR/go"
	wait "$bg_pid" && st=0 || st=$?
	bg_pid=
	cat "$out"
	[ "$st" -eq 0 ]
	grep -q PASS "$out"
	# every QP detached or destroyed: the interface left the group
	for ((i = 0; i < 50; i++)); do
		inA ip maddr show dev xv0 | grep -qw "$group" || break
		sleep 0.1
	done
	! inA ip maddr show dev xv0 | grep -qw "$group"
}

@test "UD multicast over IPv4: limits reported, every attached QP, loopback, detach, errors" {
	xib_two_devices
	run inA "$XR" ibv_devinfo -v -d xib0
	echo "$output"
	[ "$status" -eq 0 ]
	grep -Eq 'max_mcast_grp:[[:space:]]+1024' <<<"$output"
	grep -Eq 'max_mcast_qp_attach:[[:space:]]+32' <<<"$output"
	grep -Eq 'max_total_mcast_qp_attach:[[:space:]]+8192' <<<"$output"
	run_paused -L
}

@test "UD multicast over IPv6 (MLD)" {
	inA ip -6 addr add fd13::1/64 dev xv0 nodad
	inB ip -6 addr add fd13::2/64 dev xv1 nodad
	# only the IPv6 GIDs: the test picks IPv4-mapped ones when there are
	inA ip addr flush dev xv0 scope global
	inB ip addr flush dev xv1 scope global
	xib_two_devices
	run_paused
}
