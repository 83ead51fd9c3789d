#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# RC over a hostile network: netem on both ends of the veth between the
# namespaces xibA (xib0 on xv0) and xibB (xib1 on xv1) with
#   loss 5% reorder 25% 50% duplicate 1% corrupt 0.1% delay 1ms
# (issue 15).  RC must deliver everything exactly once and in order, with
# no failed completion and no hang, within its retry budget.

load helpers
load xib-apps

IMPAIR=(loss 5% reorder 25% 50% duplicate 1% corrupt 0.1% delay 1ms)

setup_file() {
	xib_apps_require
	modprobe sch_netem 2>/dev/null || true
	xib_apps_topology
	export GIDA GIDB
}

teardown_file() {
	xib_apps_teardown
}

setup() {
	xib_apps_require
	bg_pid=
	inA tc qdisc replace dev xv0 root netem "${IMPAIR[@]}"
	inB tc qdisc replace dev xv1 root netem "${IMPAIR[@]}"
}

teardown() {
	xib_bg_stop
	inA tc qdisc del dev xv0 root 2>/dev/null || true
	inB tc qdisc del dev xv1 root 2>/dev/null || true
	# what the retransmission did, for the log of a failed test
	dmesg | grep 'xib_hca: QP' | tail -n 5 || true
}

@test "ibv_rc_pingpong -c -s 65536 under the combined impairment" {
	local n
	for n in ${XIB_HOSTILE_PP_ITERS:-300}; do
		xib_pair 900 xibB xibA -- "$XR" ibv_rc_pingpong -d xib1 -g "$GIDB" -c -s 65536 -n "$n" \
			-- "$XR" ibv_rc_pingpong -d xib0 -g "$GIDA" -c -s 65536 -n "$n" 10.211.0.2
		inA xibctl -d res show qp || true
		inB xibctl -d res show qp || true
		[ "$cli_status" -eq 0 ]
		[ "$srv_status" = 0 ]
		grep -q "^$((65536 * n * 2)) bytes in" <<<"$cli_out"
	done
}
