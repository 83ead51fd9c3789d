#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# RC over a hostile network (issue 15): netem on both ends of each veth,
#   loss 5% reorder 25% 50% duplicate 1% corrupt 0.1% delay 1ms
# RC must deliver everything exactly once and in order, with no failed
# completion and no hang, within its retry budget; and a peer that is
# really gone must still end in RETRY_EXC_ERR in the time the QP's
# timeout and retry_cnt imply.
#
# Topology (xib-apps.bash): xib0 on xv0 in namespace xibA, xib1 on xv1 in
# xibB; on the stock kernel also rdma_rxe's rxe0 on xr0 (initial
# namespace) and xib2 on xr1 (xibB).
#
# Volumes (the gate's, chosen to fit its budget; make soak runs the
# issue's full ones, see the Makefile):
#   XIB_HOSTILE_PP_ITERS  ibv_rc_pingpong -s 65536 round trips (each moves
#                         128 KiB): stock 256 (32 MiB); soak 2048 (256 MiB)
#   XIB_HOSTILE_RXE_ITERS the same against rdma_rxe, each way: an eighth of
#                         XIB_HOSTILE_PP_ITERS (rxe's side is the slow one);
#                         soak 512
#   XIB_HOSTILE_BYTES     xib_rc_test bytes per opcode: stock 4M, debug 512K
#   XIB_HOSTILE_ATOMICS   xib_atomic_test iterations: stock 100, debug 50
#   XIB_HOSTILE_BW_ITERS  perftest -s 65536 iterations: 100
# The stock programs (ibv_rc_pingpong, perftest, rdma_rxe) run on the
# stock kernel only (tagged stock-only, as in tests/check.sh's debug_skip);
# the C tests run on both.  make soak runs all of them on the debug kernel
# too (XIB_ALL_TESTS=1) with the issue's debug volume.

load helpers
load xib-apps

IMPAIR=(loss 5% reorder 25% 50% duplicate 1% corrupt 0.1% delay 1ms)
C=$XIB_BUILD/tests/c

# with_rxe: whether the rdma_rxe tests run here (all but the debug gate)
with_rxe() {
	[ "${XIB_KERNEL:-}" != debug ] || [ "${XIB_ALL_TESTS:-0}" = 1 ]
}

setup_file() {
	xib_apps_require
	modprobe sch_netem 2>/dev/null || true
	xib_apps_topology
	export GIDA GIDB
	if with_rxe; then
		xib_apps_rxe_topology
		export GIDX GIDR XIB_LOADED_RXE
	fi
}

teardown_file() {
	xib_apps_teardown
}

impair() {	# impair NS IF: the combined impairment on IF ("" = initial ns)
	if [ -n "$1" ]; then
		ip netns exec "$1" tc qdisc replace dev "$2" root netem "${IMPAIR[@]}"
	else
		tc qdisc replace dev "$2" root netem "${IMPAIR[@]}"
	fi
}

setup() {
	xib_apps_require
	bg_pid=
	PP_ITERS=${XIB_HOSTILE_PP_ITERS:-256}
	BW_ITERS=${XIB_HOSTILE_BW_ITERS:-100}
	BYTES=${XIB_HOSTILE_BYTES:-4M}
	ATOMICS=${XIB_HOSTILE_ATOMICS:-100}
	QUICK=()
	if [ "${XIB_KERNEL:-}" = debug ]; then
		BYTES=${XIB_HOSTILE_BYTES:-512K}
		ATOMICS=${XIB_HOSTILE_ATOMICS:-50}
		QUICK=(-q)
	fi
	impair xibA xv0
	impair xibB xv1
	if with_rxe; then
		impair "" xr0
		impair xibB xr1
	fi
}

teardown() {
	xib_bg_stop
	inA tc qdisc del dev xv0 root 2>/dev/null || true
	inB tc qdisc del dev xv1 root 2>/dev/null || true
	tc qdisc del dev xr0 root 2>/dev/null || true
	inB tc qdisc del dev xr1 root 2>/dev/null || true
	inB ip link set xv1 up 2>/dev/null || true
	# what the retransmission did, for the log of a failed test
	dmesg | grep 'xib_hca: QP' | tail -n 5 || true
}

# pp_pair TIMEOUT SRV_NS CLI_NS BYTES -- SERVER... -- CLIENT...: xib_pair
# for ibv_rc_pingpong, run again (3 runs at most) in one case only: one
# side ends in "retry counter exceeded" after the other side received all
# of its messages and exited.  That is ibv_rc_pingpong's own race, not a
# transport failure: a program destroys its QP as soon as its own last
# send is acknowledged and its last receive arrived, so when the
# acknowledgment of the peer's last message is lost (5% here) the peer's
# retransmission finds no QP to acknowledge it, and its retries run out
# (as they would on any RC transport; the peer is gone).
#
# With $rxe_side set (srv or cli: which program is rdma_rxe's), the same
# race as rdma_rxe lives it: rxe in 6.1 takes retry_cnt 7, which
# ibv_rc_pingpong sets, as "retry for ever" (rxe_comp.c spends a retry
# only if retry_cnt is not 7, the rule of rnr_retry), so its side never
# fails: a server is still running when the client is done, a client
# runs into its timeout after the server is done.  Run again then too.
pp_pair() {
	local t=$1 sns=$2 cns=$3 bytes=$4 i
	shift 4
	for i in 1 2 3; do
		xib_pair "$t" "$sns" "$cns" "$@"
		if [ "$cli_status" != 0 ] && [ "$srv_status" = 0 ] &&
			grep -q "^$bytes bytes in" "$srv_out"; then
			if grep -q "retry counter exceeded" <<<"$cli_out"; then
				echo "# run $i: the server got everything and exited before its last ACK arrived; again" >&3
				continue
			fi
			if [ "${rxe_side:-}" = cli ] && [ "$cli_status" = 124 ]; then
				echo "# run $i: the server got everything and exited before its last ACK arrived; rxe's client retried for ever; again" >&3
				continue
			fi
		fi
		if [ "$srv_status" != 0 ] && [ "$cli_status" = 0 ] &&
			grep -q "^$bytes bytes in" <<<"$cli_out"; then
			if grep -q "retry counter exceeded" "$srv_out"; then
				echo "# run $i: the client got everything and exited before its last ACK arrived; again" >&3
				continue
			fi
			if [ "${rxe_side:-}" = srv ] && [ -z "$srv_status" ]; then
				echo "# run $i: the client got everything and exited before its last ACK arrived; rxe's server retried for ever; again" >&3
				continue
			fi
		fi
		return 0
	done
}

# After a failure: what the kernel said last (a QP that ran out of
# retries logs its retransmission counters) and the devices' counters.
klog_tail() {
	dmesg | tail -n 15
	inA xibctl -j stat show dev xib0 2>&1 | head -c 2000
	inB xibctl -j stat show dev xib1 2>&1 | head -c 2000
}

# ibv_rc_pingpong -c (the data of every message checked) moved it all
pp_ok() {
	local bytes=$1
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	grep -q "^$bytes bytes in" <<<"$cli_out"
	grep -q "^$bytes bytes in" "$srv_out"
	echo "# $bytes bytes, goodput $(grep -Eo '[0-9.]+ seconds = [0-9.]+ Mbit/sec' <<<"$cli_out")" >&3
}

# perftest: success on both sides, a positive average bandwidth
bw_ok() {
	local v
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	if grep -qi 'completion with error\|failed' <<<"$cli_out" ||
		grep -qi 'completion with error\|failed' "$srv_out"; then
		return 1
	fi
	v=$(perf_bw "$cli_out")
	echo "# $1: BW average $v MB/s" >&3
	awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }'
}

# recovery NS DEV: the device's counters of what loss recovery did,
# "SEQ_NAKS_SENT SEQ_RENAKS_SENT TAIL_PROBES LOCAL_ACK_TIMEOUTS RX_OOO_HELD"
recovery() {
	ip netns exec "$1" xibctl -j statistic show dev "$2" |
		jq -er '.[0] | "\(.seq_naks_sent) \(.seq_renaks_sent) \(.tail_probes) \(.local_ack_timeouts) \(.rx_ooo_held)"'
}

# Every byte arrives, checked; requests that netem's reordering delivers
# early are kept until the gap closes (hca_resp.c) rather than dropped and
# NAKed; and a gap whose NAK or retransmission was lost is NAKed again
# rather than left to the requester's timer: at 5% loss some of the
# hundreds of NAKs and retransmissions this moves are lost.
# bats test_tags=stock-only
@test "ibv_rc_pingpong -c -s 65536 xib<->xib" {
	local a0 a1 a2 a3 a4 b0 b1 b2 b3 b4 c0 c1 c2 c3 c4 d0 d1 d2 d3 d4
	read -r a0 a1 a2 a3 a4 < <(recovery xibA xib0)
	read -r b0 b1 b2 b3 b4 < <(recovery xibB xib1)
	pp_pair 900 xibB xibA $((65536 * PP_ITERS * 2)) \
		-- "$XR" ibv_rc_pingpong -d xib1 -g "$GIDB" -c -s 65536 -n "$PP_ITERS" \
		-- "$XR" ibv_rc_pingpong -d xib0 -g "$GIDA" -c -s 65536 -n "$PP_ITERS" 10.211.0.2
	pp_ok $((65536 * PP_ITERS * 2)) || { klog_tail; false; }
	read -r c0 c1 c2 c3 c4 < <(recovery xibA xib0)
	read -r d0 d1 d2 d3 d4 < <(recovery xibB xib1)
	echo "# sequence NAKs sent $((c0 - a0 + d0 - b0)) (again for a gap still open $((c1 - a1 + d1 - b1))), tail-loss probes $((c2 - a2 + d2 - b2)), local ACK timeouts $((c3 - a3 + d3 - b3)), early requests kept $((c4 - a4 + d4 - b4))" >&3
	[ $((c1 - a1 + d1 - b1)) -gt 0 ]
	[ $((c4 - a4 + d4 - b4)) -gt 0 ]
}

# tail_probes NS DEV: the device's tail-loss probes so far (and those
# followed by progress), "PROBES PROGRESS"
tail_probes() {
	ip netns exec "$1" xibctl -j statistic show dev "$2" |
		jq -er '.[0] | "\(.tail_probes) \(.tail_probe_progress)"'
}

# Loss alone (no reorder or delay to blur it): the last packets of a
# message, or their ACK, are lost often enough that the requesters send
# tail-loss probes (hca_comp.c) instead of waiting out the local ACK
# timeout, and every byte still arrives, checked.
# bats test_tags=stock-only
@test "ibv_rc_pingpong -c -s 65536 xib<->xib, loss 5% only: tail-loss probes sent, data intact" {
	local a0 a1 a2 a3 b0 b1 b2 b3 iters=$((PP_ITERS / 4))
	inA tc qdisc replace dev xv0 root netem loss 5%
	inB tc qdisc replace dev xv1 root netem loss 5%
	read -r a0 a1 < <(tail_probes xibA xib0)
	read -r b0 b1 < <(tail_probes xibB xib1)
	pp_pair 300 xibB xibA $((65536 * iters * 2)) \
		-- "$XR" ibv_rc_pingpong -d xib1 -g "$GIDB" -c -s 65536 -n "$iters" \
		-- "$XR" ibv_rc_pingpong -d xib0 -g "$GIDA" -c -s 65536 -n "$iters" 10.211.0.2
	pp_ok $((65536 * iters * 2)) || { klog_tail; false; }
	read -r a2 a3 < <(tail_probes xibA xib0)
	read -r b2 b3 < <(tail_probes xibB xib1)
	echo "# tail probes: xib0 $((a2 - a0)) ($((a3 - a1)) followed by progress), xib1 $((b2 - b0)) ($((b3 - b1)))" >&3
	[ $((a2 - a0 + b2 - b0)) -gt 0 ]
	[ $((a3 - a1 + b3 - b1)) -gt 0 ]
}

# bats test_tags=stock-only
@test "perftest ib_write_bw, ib_read_bw, ib_send_bw -s 65536 xib<->xib" {
	local t
	for t in ib_write_bw ib_read_bw ib_send_bw; do
		perf_pair 600 xibB xibA \
			-- "$XR" "$t" -d xib1 -x "$GIDB" -s 65536 -n "$BW_ITERS" \
			-- "$XR" "$t" -d xib0 -x "$GIDA" -s 65536 -n "$BW_ITERS" 10.211.0.2
		bw_ok "$t"
	done
}

# bats test_tags=stock-only
@test "ibv_rc_pingpong -c -s 65536 xib<->rxe, both directions" {
	local n=${XIB_HOSTILE_RXE_ITERS:-$((PP_ITERS / 8))} t rxe_side
	# what a side of rxe's that retries for ever costs (under the 300 s
	# the guest's watchdog allows a run that prints nothing): 2 s per
	# iteration, twice what one takes under the gate's load
	t=$((60 + 2 * n))
	rxe_side=cli
	pp_pair "$t" xibB "" $((65536 * n * 2)) \
		-- "$XR" ibv_rc_pingpong -d xib2 -g "$GIDX" -c -s 65536 -n "$n" \
		-- ibv_rc_pingpong -d rxe0 -g "$GIDR" -c -s 65536 -n "$n" 10.212.0.2
	pp_ok $((65536 * n * 2))
	rxe_side=srv
	pp_pair "$t" "" xibB $((65536 * n * 2)) \
		-- ibv_rc_pingpong -d rxe0 -g "$GIDR" -c -s 65536 -n "$n" \
		-- "$XR" ibv_rc_pingpong -d xib2 -g "$GIDX" -c -s 65536 -n "$n" 10.212.0.1
	pp_ok $((65536 * n * 2))
}

@test "every RC opcode, checksummed, exact completions (xib_rc_test, xib_atomic_test)" {
	local d0 d1
	d0=$(uverbs_in xibA xib0)
	d1=$(uverbs_in xibB xib1)
	run timeout 900 ip netns exec xibA "$C/xib_rc_test" -d "$d0" -D "$d1" -t "$BYTES" "${QUICK[@]}"
	echo "$output"
	[ "$status" -eq 0 ] || { klog_tail; false; }
	[[ "$output" == *PASS* ]]
	grep 'bytes in .* cycles verified' <<<"$output" | sed 's/^.*: */# /' >&3
	run timeout 600 ip netns exec xibA "$C/xib_atomic_test" -d "$d0" -D "$d1" -c -n 2 -i "$ATOMICS"
	echo "$output"
	[ "$status" -eq 0 ] || { klog_tail; false; }
	[[ "$output" == *PASS* ]]
}

@test "peer interface down: RETRY_EXC_ERR in the time timeout and retry_cnt imply, the rest flushed" {
	local d0 d1 qps=$BATS_TEST_TMPDIR/qps.json q
	d0=$(uverbs_in xibA xib0)
	d1=$(uverbs_in xibB xib1)
	# -X: the QPs' counters while they still exist, in ERR
	run timeout 120 ip netns exec xibA "$C/xib_rc_test" -d "$d0" -D "$d1" \
		-x "ip -n xibB link set xv1 down" \
		-X "xibctl -j -d res show qp dev xib0 >$qps"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"RETRY_EXC_ERR after"* ]]
	[[ "$output" == *PASS* ]]
	grep 'RETRY_EXC_ERR after' <<<"$output" | sed 's/^/# /' >&3
	# the sender's QP (the only one of xib0 in ERR): retry_cnt 7 spent in
	# one run without progress, the eighth expiry ended it
	cat "$qps"
	q=$(jq -ec '[.[] | select(.state == "ERR")] | .[0].counters' "$qps")
	echo "$q"
	[ "$(jq '[.[] | select(.state == "ERR")] | length' "$qps")" -eq 1 ]
	[ "$(jq .retry_run <<<"$q")" -eq 7 ]
	[ "$(jq .retry_run_max <<<"$q")" -eq 7 ]
	[ "$(jq .retries <<<"$q")" -ge 7 ]
	[ "$(jq .local_ack_timeouts <<<"$q")" -ge 8 ]
	[ "$(jq .rewinds <<<"$q")" -ge 7 ]
}
