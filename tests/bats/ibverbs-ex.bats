#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core 44's extended verbs on xib, and the verbs that used to be
# there only halfway (re-registration, CQ resize, the SRQ limit): the
# sections of tests/c/ibv_extended.c, each a test, through xib-run on one
# xib device (xib0 on a veth in namespace xibA, loopback between its QPs).
#
# XIB_EX_ITERS sets the rounds of the data-moving sections (20 on the
# stock kernel, 5 on the debug kernel).

load helpers
load xib-apps

XIB_EX=$XIB_BUILD/tests/c/ibv_extended

setup_file() {
	xib_apps_require
	if [ -z "${XIB_EX_ITERS:-}" ]; then
		XIB_EX_ITERS=20
		[ "${XIB_KERNEL:-}" = debug ] && XIB_EX_ITERS=5
	fi
	export XIB_EX_ITERS
	xib-modules load
	ip netns add xibA
	ip -n xibA link add xv0 type veth peer name xv1
	ip -n xibA addr add 10.211.0.1/24 dev xv0
	ip -n xibA link set lo up
	ip -n xibA link set xv0 up
	ip -n xibA link set xv1 up
	inA xibctl link add xib0 netdev xv0
	xib_gid_index xibA xib0 10.211.0.1 >/dev/null
}

teardown_file() {
	ip netns del xibA 2>/dev/null || true
	xib_wait_gone xib0 || true
	xib-modules unload
}

setup() {
	xib_apps_require
	[ -x "$XIB_EX" ] || skip "ibv_extended not built (make userspace)"
}

# Run one section; every check must pass, and there must be checks.
ex() {
	run inA timeout 300 "$XR" "$XIB_EX" -d xib0 -n "$XIB_EX_ITERS" -t "$1"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^1\.\.[1-9]' <<<"$output"
	! grep -q '^not ok' <<<"$output"
}

# stock only: the comparison is the library's; every suite queries the device.
# bats test_tags=stock-only
@test "ibv_query_device_ex and ibv_query_device are truthful" {
	ex devex
}

# stock only: the extended CQ's flags and read functions are the library's;
# the kernel creates a CQ as for ibv_create_cq.
# bats test_tags=stock-only
@test "ibv_create_cq_ex: refused wc_flags, read functions, start/next/end poll" {
	ex cqex
}

@test "ibv_create_qp_ex with ibv_wr_*: RC and UD data, atomics, memory windows, every wc_flags field checked" {
	ex qpex
}

# stock only: thread and parent domains are the library's objects; the
# kernel sees PDs and QPs as everywhere else.
# bats test_tags=stock-only
@test "thread and parent domains: PD semantics, traffic, destroy order" {
	ex td
}

@test "ibv_reg_mr_iova and ibv_reg_mr_iova2: RDMA addressed by iova" {
	ex iova
}

@test "ibv_rereg_mr in the kernel: each flag, traffic right after, keys kept" {
	ex rereg
}

@test "ibv_resize_cq below the unpolled completions is refused" {
	ex resize
}

@test "SRQ limit: SRQ_LIMIT_REACHED, then ibv_query_srq reports 0" {
	ex srq
}

@test "ibv_modify_srq IBV_SRQ_MAX_WR: grow and shrink keeping posted receives, refusals" {
	ex srqresize
}

@test "async events: COMM_EST in RTR, SQ_DRAINED from SQD, LAST_WQE_REACHED on an SRQ" {
	ex events
}

@test "RC_RNR_NAK_GEN is true: a SEND without a receive WQE is RNR NAKed" {
	ex rnrnak
}

# bats test_tags=stock-only
@test "XRC domains, SRQs and receive QPs: ibv_open_xrcd, ibv_create_srq_ex, ibv_open_qp, the seed's legacy calls" {
	ex xrc
}

# stock only: the new post-send API is the library's; the kernel's data
# path is the one ibv_create_qp_ex's test above drives.
# bats test_tags=stock-only
@test "ibv_rc_pingpong -N: the stock program's new post-send API path" {
	local gid
	gid=$(xib_gid_index xibA xib0 10.211.0.1)
	xib_pair 180 xibA xibA -- "$XR" ibv_rc_pingpong -d xib0 -g "$gid" -N -n 100 \
		-- "$XR" ibv_rc_pingpong -d xib0 -g "$gid" -N -n 100 127.0.0.1
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds' <<<"$cli_out"
}
