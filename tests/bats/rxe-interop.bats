#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# xib against the kernel's own RoCEv2 implementation, rdma_rxe, on the
# wire: rxe0 on veth end xr0 in the initial namespace (10.212.0.1), driven
# by the system's libibverbs and rxe provider (never through xib-run);
# xib2 on the other end, xr1, in namespace xibB (10.212.0.2), driven
# through xib-run.  Stock programs both ways: ibv_rc_pingpong,
# ibv_uc_pingpong, ibv_ud_pingpong, ib_write_bw, ib_read_bw, ib_send_bw
# and ib_write_bw on UC, ib_atomic_bw, ib_atomic_lat;
# and tests/c/ibv_mw_interop both ways: a type 2 memory window bound by
# the target, WRITE and READ through it, SEND_WITH_INV (the IETH on the
# wire) and the target's IBV_WC_WITH_INV completion.
#
# ib_read_bw, ib_atomic_bw and ib_atomic_lat run with -o (outstanding
# reads or atomics) set to xib's max_qp_rd_atom on both sides: perftest's
# requester asks for as many outstanding reads as the peer advertises,
# and rxe advertises 128, beyond xib's (and mlx5's) 16, which
# ibv_modify_qp to RTS rightly refuses with EINVAL.
#
# Iterations as in ibverbs-utils.bats and perftest.bats (fewer on the
# debug kernel: XIB_PP_ITERS, XIB_PERF_BW_ITERS).

load helpers
load xib-apps

setup_file() {
	xib_apps_require
	if [ -z "${XIB_PP_ITERS:-}" ]; then
		XIB_PP_ITERS=1000
		[ "${XIB_KERNEL:-}" = debug ] && XIB_PP_ITERS=100
	fi
	BW_ITERS=${XIB_PERF_BW_ITERS:-}
	[ "${XIB_KERNEL:-}" = debug ] && BW_ITERS=${BW_ITERS:-200}
	export XIB_PP_ITERS BW_ITERS
	xib_apps_rxe_topology
	export GIDX GIDR XIB_LOADED_RXE
	# perftest's READ requester takes max_rd_atomic from the peer's
	# outstanding-reads count; rxe offers 128, xib accepts 16 (as mlx5
	# does: more is EINVAL), so both sides get xib's limit with -o.
	RD_ATOM=$(ip netns exec xibB "$XR" ibv_devinfo -v -d xib2 |
		sed -n 's/.*max_qp_rd_atom:[[:space:]]*\([0-9]*\).*/\1/p')
	[ -n "$RD_ATOM" ] && [ "$RD_ATOM" -gt 0 ]
	export RD_ATOM
}

teardown_file() {
	xib_apps_teardown
}

setup() {
	xib_apps_require
	XIB_MW=$XIB_BUILD/tests/c/ibv_mw_interop
	bg_pid=
}

teardown() {
	xib_bg_stop
}

# rxe_pair xib-server|rxe-server TIMEOUT XIB_ARGS -- RXE_ARGS (a program
# and its options, without -d/-g/-x and the server address).
rxe_pair() {
	local who=$1 t=$2 xa=() ra=()
	shift 2
	while [ "$1" != -- ]; do xa+=("$1"); shift; done
	shift
	ra=("$@")
	if [ "$who" = xib-server ]; then
		perf_pair "$t" xibB "" -- "$XR" "${xa[@]}" -- "${ra[@]}" 10.212.0.2
	else
		perf_pair "$t" "" xibB -- "${ra[@]}" -- "$XR" "${xa[@]}" 10.212.0.1
	fi
}

pp_ok() {
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds' <<<"$cli_out"
	grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds' "$srv_out"
}

bw_ok() {
	local v
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	v=$(perf_bw "$cli_out")
	echo "# BW average $v MB/s"
	positive "$v"
}

@test "ibv_rc_pingpong: xib server, rxe client" {
	rxe_pair xib-server 180 ibv_rc_pingpong -d xib2 -g "$GIDX" -n "$XIB_PP_ITERS" \
		-- ibv_rc_pingpong -d rxe0 -g "$GIDR" -n "$XIB_PP_ITERS"
	pp_ok
}

@test "ibv_rc_pingpong: rxe server, xib client" {
	rxe_pair rxe-server 180 ibv_rc_pingpong -d xib2 -g "$GIDX" -n "$XIB_PP_ITERS" \
		-- ibv_rc_pingpong -d rxe0 -g "$GIDR" -n "$XIB_PP_ITERS"
	pp_ok
}

@test "ibv_uc_pingpong: xib server, rxe client" {
	rxe_pair xib-server 180 ibv_uc_pingpong -d xib2 -g "$GIDX" -n "$XIB_PP_ITERS" \
		-- ibv_uc_pingpong -d rxe0 -g "$GIDR" -n "$XIB_PP_ITERS"
	pp_ok
}

@test "ibv_uc_pingpong: rxe server, xib client" {
	rxe_pair rxe-server 180 ibv_uc_pingpong -d xib2 -g "$GIDX" -n "$XIB_PP_ITERS" \
		-- ibv_uc_pingpong -d rxe0 -g "$GIDR" -n "$XIB_PP_ITERS"
	pp_ok
}

@test "ibv_ud_pingpong: xib server, rxe client" {
	rxe_pair xib-server 180 ibv_ud_pingpong -d xib2 -g "$GIDX" -s 1024 -n "$XIB_PP_ITERS" \
		-- ibv_ud_pingpong -d rxe0 -g "$GIDR" -s 1024 -n "$XIB_PP_ITERS"
	pp_ok
}

@test "ibv_ud_pingpong: rxe server, xib client" {
	rxe_pair rxe-server 180 ibv_ud_pingpong -d xib2 -g "$GIDX" -s 1024 -n "$XIB_PP_ITERS" \
		-- ibv_ud_pingpong -d rxe0 -g "$GIDR" -s 1024 -n "$XIB_PP_ITERS"
	pp_ok
}

@test "ib_write_bw: xib server, rxe client" {
	local n=()
	[ -n "$BW_ITERS" ] && n=(-n "$BW_ITERS")
	rxe_pair xib-server 300 ib_write_bw -d xib2 -x "$GIDX" "${n[@]}" \
		-- ib_write_bw -d rxe0 -x "$GIDR" "${n[@]}"
	bw_ok
}

@test "ib_write_bw: rxe server, xib client" {
	local n=()
	[ -n "$BW_ITERS" ] && n=(-n "$BW_ITERS")
	rxe_pair rxe-server 300 ib_write_bw -d xib2 -x "$GIDX" "${n[@]}" \
		-- ib_write_bw -d rxe0 -x "$GIDR" "${n[@]}"
	bw_ok
}

@test "ib_read_bw: xib server, rxe client" {
	local n=()
	[ -n "$BW_ITERS" ] && n=(-n "$BW_ITERS")
	rxe_pair xib-server 300 ib_read_bw -d xib2 -x "$GIDX" -o "$RD_ATOM" "${n[@]}" \
		-- ib_read_bw -d rxe0 -x "$GIDR" -o "$RD_ATOM" "${n[@]}"
	bw_ok
}

@test "ib_read_bw: rxe server, xib client" {
	local n=()
	[ -n "$BW_ITERS" ] && n=(-n "$BW_ITERS")
	rxe_pair rxe-server 300 ib_read_bw -d xib2 -x "$GIDX" -o "$RD_ATOM" "${n[@]}" \
		-- ib_read_bw -d rxe0 -x "$GIDR" -o "$RD_ATOM" "${n[@]}"
	bw_ok
}

# UC (no ACKs, no retransmission): a run counts only if nothing was lost;
# short runs of 4-packet messages (RoCE MTU 1024 on the veth), every
# receive posted up front (-n below perftest's receive depth of 512), as
# in perftest.bats.
@test "ib_send_bw -c UC: xib server, rxe client" {
	rxe_pair xib-server 120 ib_send_bw -d xib2 -x "$GIDX" -c UC -n 200 -s 4096 \
		-- ib_send_bw -d rxe0 -x "$GIDR" -c UC -n 200 -s 4096
	bw_ok
}

@test "ib_send_bw -c UC: rxe server, xib client" {
	rxe_pair rxe-server 120 ib_send_bw -d xib2 -x "$GIDX" -c UC -n 200 -s 4096 \
		-- ib_send_bw -d rxe0 -x "$GIDR" -c UC -n 200 -s 4096
	bw_ok
}

@test "ib_write_bw -c UC: xib server, rxe client" {
	rxe_pair xib-server 120 ib_write_bw -d xib2 -x "$GIDX" -c UC -n 200 -s 4096 \
		-- ib_write_bw -d rxe0 -x "$GIDR" -c UC -n 200 -s 4096
	bw_ok
}

@test "ib_write_bw -c UC: rxe server, xib client" {
	rxe_pair rxe-server 120 ib_write_bw -d xib2 -x "$GIDX" -c UC -n 200 -s 4096 \
		-- ib_write_bw -d rxe0 -x "$GIDR" -c UC -n 200 -s 4096
	bw_ok
}

# ib_atomic_bw: FETCH_ADD both ways, rdma_rxe's responder answering xib's
# requests and the reverse; the report must show 8-byte messages and a
# positive message rate (MB/s of 8-byte messages rounds to 0.00 on the
# debug kernel).
atomic_ok() {
	local row
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	row=$(awk '/^ *#bytes/ { h = 1; next } h && NF >= 5 && $1 ~ /^[0-9]+$/ { print; exit }' \
		<<<"$cli_out")
	echo "# $row"
	[ "$(awk '{ print $1 }' <<<"$row")" = 8 ]
	positive "$(awk '{ print $5 }' <<<"$row")"
}

@test "ib_atomic_bw: xib server, rxe client" {
	local n=()
	[ -n "$BW_ITERS" ] && n=(-n "$BW_ITERS")
	rxe_pair xib-server 300 ib_atomic_bw -d xib2 -x "$GIDX" -o "$RD_ATOM" "${n[@]}" \
		-- ib_atomic_bw -d rxe0 -x "$GIDR" -o "$RD_ATOM" "${n[@]}"
	atomic_ok
}

@test "ib_atomic_bw: rxe server, xib client" {
	local n=()
	[ -n "$BW_ITERS" ] && n=(-n "$BW_ITERS")
	rxe_pair rxe-server 300 ib_atomic_bw -d xib2 -x "$GIDX" -o "$RD_ATOM" "${n[@]}" \
		-- ib_atomic_bw -d rxe0 -x "$GIDR" -o "$RD_ATOM" "${n[@]}"
	atomic_ok
}

# ib_atomic_lat: one FETCH_ADD at a time each way (-F: the VM's CPU
# frequency cannot be read; -o as above); 8-byte rows and a positive
# average latency.
atomic_lat_ok() {
	local v
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	[ "$(awk '/^ *#bytes/ { h = 1; next } h && $1 ~ /^[0-9]+$/ { print $1; exit }' \
		<<<"$cli_out")" = 8 ]
	v=$(perf_lat "$cli_out")
	echo "# t_avg $v usec"
	positive "$v"
}

@test "ib_atomic_lat: xib server, rxe client" {
	rxe_pair xib-server 120 ib_atomic_lat -d xib2 -x "$GIDX" -o "$RD_ATOM" -n 200 -F \
		-- ib_atomic_lat -d rxe0 -x "$GIDR" -o "$RD_ATOM" -n 200 -F
	atomic_lat_ok
}

@test "ib_atomic_lat: rxe server, xib client" {
	rxe_pair rxe-server 120 ib_atomic_lat -d xib2 -x "$GIDX" -o "$RD_ATOM" -n 200 -F \
		-- ib_atomic_lat -d rxe0 -x "$GIDR" -o "$RD_ATOM" -n 200 -F
	atomic_lat_ok
}

# ibv_mw_interop: target (server) and requester (client), each checking
# its side; the server's TAP is in $srv_out.
mw_ok() {
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	grep -q '^ok .* receive with IBV_WC_WITH_INV' "$srv_out"
	grep -q '^ok .* READ after the remote invalidation: REM_ACCESS_ERR' <<<"$cli_out"
	[ "$(grep -c '^not ok' "$srv_out" || true)" = 0 ]
	[ "$(grep -c '^not ok' <<<"$cli_out" || true)" = 0 ]
}

# -R on rxe's side: its provider reports a remote invalidation with the
# kernel's flag bit (tests/c/ibv_mw_interop.c says which).
@test "memory window and SEND_WITH_INV: xib target, rxe requester" {
	rxe_pair xib-server 120 "$XIB_MW" -d xib2 -g "$GIDX" -- "$XIB_MW" -d rxe0 -g "$GIDR" -R
	mw_ok
}

@test "memory window and SEND_WITH_INV: rxe target, xib requester" {
	rxe_pair rxe-server 120 "$XIB_MW" -d xib2 -g "$GIDX" -- "$XIB_MW" -d rxe0 -g "$GIDR" -R
	mw_ok
}
