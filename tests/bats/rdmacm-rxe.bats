#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# xib's RDMA CM against the kernel's own (rdma_cm + ib_cm over rdma_rxe),
# on the wire, both directions.  The topology of xib-apps.bash's
# xib_apps_rxe_topology:
#   initial namespace: veth xr0 10.212.0.1, rxe0; the system's librdmacm
#                      and /dev/infiniband/rdma_cm (rdma_ucm), never
#                      through xib-run
#   namespace xibB:    veth xr1 10.212.0.2, xib2; xib's librdmacm.so.1
#                      and /dev/xib/rdma_cm, through xib-run
# rdma-core's rdmacm-utils, unmodified, each way: rping (RC, RDMA read and
# write, validated), ucmatose (several RC connections), udaddy (SIDR and
# UD datagrams), rdma_server/rdma_client (the synchronous API), cmtime
# (50 connections at once, an event thread), mckey (a multicast group of
# IPv4: the RDMA CM's join on each side, datagrams from the other); and a
# connect where nobody listens, which must be REJECTED (invalid service
# ID) quickly, not time out.
#
# Every test captures the RoCEv2 traffic on xr0; a failed test leaves its
# capture in $XIB_OUT/rdmacm-rxe/ (the VM run's output directory, e.g.
# build/vm/stock/rdmacm-rxe/ for make bats).
#
# Stock kernel lane only (tests/check.sh debug_skip): rdma_rxe is the peer.

load helpers
load xib-apps

X=10.212.0.2	# xib2 in xibB
R=10.212.0.1	# rxe0 in the initial namespace
CL=$XIB_BUILD/tests/c/rdmacm_checklist

setup_file() {
	xib_apps_require
	xib_apps_rxe_topology || return 1
	export GIDX GIDR XIB_LOADED_RXE
	# the stock kernel has the RDMA CM's user interface as a module
	modprobe -q rdma_ucm 2>/dev/null || true
	[ -e /dev/infiniband/rdma_cm ] || { echo "no /dev/infiniband/rdma_cm" >&2; return 1; }
	[ -e /dev/xib/rdma_cm ] || { echo "no /dev/xib/rdma_cm" >&2; return 1; }
}

teardown_file() {
	[ -n "${XIB_MODDIR:-}" ] || return 0
	xib_apps_teardown
}

setup() {
	xib_apps_require
	bg_pid=
	cap_pid=
	cap_file=$BATS_TEST_TMPDIR/roce.pcap
	cap_start
}

# Capture RoCEv2 on xr0 (tcpdump, or dumpcap if that is what there is);
# no capture (neither installed) is not a failure.
cap_start() {
	local err=$BATS_TEST_TMPDIR/capture.err i
	if command -v tcpdump >/dev/null; then
		tcpdump -i xr0 -U -n -w "$cap_file" udp port 4791 2>"$err" &
	elif command -v dumpcap >/dev/null; then
		dumpcap -P -i xr0 -f "udp port 4791" -w "$cap_file" 2>"$err" &
	else
		return 0
	fi
	cap_pid=$!
	for ((i = 0; i < 50; i++)); do
		grep -Eq 'listening on|Capturing on' "$err" 2>/dev/null && return 0
		kill -0 "$cap_pid" 2>/dev/null || break
		sleep 0.1
	done
	cat "$err" >&2
}

teardown() {
	xib_bg_stop
	if [ -n "${cap_pid:-}" ]; then
		kill -INT "$cap_pid" 2>/dev/null || true
		wait "$cap_pid" 2>/dev/null || true
	fi
	if [ -z "${BATS_TEST_COMPLETED:-}" ] && [ -n "${XIB_OUT:-}" ] && [ -s "$cap_file" ]; then
		mkdir -p "$XIB_OUT/rdmacm-rxe"
		cp "$cap_file" "$XIB_OUT/rdmacm-rxe/$BATS_TEST_NUMBER.pcap"
	fi
}

# xr_pair xib-server|rxe-server TIMEOUT -- SERVER_CMD... -- CLIENT_CMD...:
# the server in the background, the client once the server listens; xib's
# side in xibB through xib-run, rxe's side in the initial namespace with
# the system's libraries.  Sets srv_status, cli_status, srv_out, cli_out.
xr_pair() {
	local who=$1 t=$2 srv=() cli=() sns cns sw
	shift 2
	[ "$1" = -- ] && shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	# line-buffered: a program killed on timeout still shows how far it got
	srv=(stdbuf -oL -eL "${srv[@]}")
	cli=(stdbuf -oL -eL "${cli[@]}")
	srv_out=$BATS_TEST_TMPDIR/server.out
	if [ "$who" = xib-server ]; then
		sns=xibB cns=
		xib_bg xibB "$srv_out" "$XR" "${srv[@]}"
	else
		sns= cns=xibB
		xib_bg "" "$srv_out" "${srv[@]}"
	fi
	if ! wait_cm_listen "$bg_pid" "$t"; then
		cat "$srv_out"
		return 1
	fi
	cli_status=0
	if [ -n "$cns" ]; then
		cli_out=$(inB timeout "$t" "$XR" "${cli[@]}" 2>&1) || cli_status=$?
	else
		cli_out=$(timeout "$t" "${cli[@]}" 2>&1) || cli_status=$?
	fi
	srv_status=
	sw=$t
	[ "$cli_status" = 0 ] || sw=5
	if xib_bg_wait "$sw"; then
		srv_status=$bg_status
	else
		xib_bg_stop
	fi
	echo "--- server (${sns:-initial namespace}): ${srv[*]} -> ${srv_status:-still running}"
	cat "$srv_out"
	echo "--- client (${cns:-initial namespace}): ${cli[*]} -> $cli_status"
	echo "$cli_out"
}

rping_ok() {
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	[ "$(grep -c '^ping data: rdma-ping-' <<<"$cli_out")" -eq 10 ]
	[ "$(grep -c '^server ping data: rdma-ping-' "$srv_out")" -eq 10 ]
}

@test "rping -v -V -C 10: xib server, rxe client" {
	xr_pair xib-server 30 -- rping -s -v -V -C 10 -a $X -- rping -c -v -V -C 10 -a $X
	rping_ok
}

@test "rping -v -V -C 10: rxe server, xib client" {
	xr_pair rxe-server 30 -- rping -s -v -V -C 10 -a $R -- rping -c -v -V -C 10 -a $R
	rping_ok
}

ucmatose_ok() {
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	[[ "$cli_out" == *"data transfers complete"* ]]
	[[ "$cli_out" == *"test complete"* ]]
	grep -q "data transfers complete" "$srv_out"
	grep -q "test complete" "$srv_out"
}

@test "ucmatose -c 2 -C 10: xib server, rxe client" {
	xr_pair xib-server 30 -- ucmatose -b $X -c 2 -C 10 -- ucmatose -s $X -c 2 -C 10
	ucmatose_ok
}

@test "ucmatose -c 2 -C 10: rxe server, xib client" {
	xr_pair rxe-server 30 -- ucmatose -b $R -c 2 -C 10 -- ucmatose -s $R -c 2 -C 10
	ucmatose_ok
}

udaddy_ok() {
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	[[ "$cli_out" == *"data transfers complete"* ]]
	[[ "$cli_out" == *"test complete"* ]]
	grep -q "data transfers complete" "$srv_out"
	grep -q "test complete" "$srv_out"
}

@test "udaddy -c 2 -C 10: SIDR and UD datagrams, xib server, rxe client" {
	xr_pair xib-server 30 -- udaddy -b $X -c 2 -C 10 -- udaddy -s $X -c 2 -C 10
	udaddy_ok
}

@test "udaddy -c 2 -C 10: SIDR and UD datagrams, rxe server, xib client" {
	xr_pair rxe-server 30 -- udaddy -b $R -c 2 -C 10 -- udaddy -s $R -c 2 -C 10
	udaddy_ok
}

# xr_mckey xib-recv|rxe-recv GROUP: mckey joins GROUP and waits for 10
# datagrams on one side (its interface a member of the IP group while it
# waits), mckey -s joins it and sends them from the other.
xr_mckey() {
	local who=$1 g=$2 out=$BATS_TEST_TMPDIR/mckey.out i rns=() sns=() rif sb
	if [ "$who" = xib-recv ]; then
		xib_bg xibB "$out" "$XR" stdbuf -oL mckey -m "$g" -b $X -C 10
		rns=(ip netns exec xibB) rif=xr1 sb=$R
	else
		xib_bg "" "$out" stdbuf -oL mckey -m "$g" -b $R -C 10
		sns=(ip netns exec xibB "$XR") rif=xr0 sb=$X
	fi
	for ((i = 0; i < 200; i++)); do
		grep -q "^mckey: joined" "$out" && break
		kill -0 "$bg_pid" 2>/dev/null || break
		sleep 0.1
	done
	for ((i = 0; i < 50; i++)); do
		"${rns[@]}" ip maddr show dev $rif | grep -qw "$g" && break
		sleep 0.1
	done
	cat "$out"
	grep -q "^mckey: joined" "$out"
	"${rns[@]}" ip maddr show dev $rif | grep -qw "$g"
	run timeout 30 "${sns[@]}" mckey -m "$g" -b $sb -s -C 10
	echo "--- sender: $output"
	[ "$status" -eq 0 ]
	xib_bg_wait 30
	echo "--- receiver -> $bg_status"
	cat "$out"
	[ "$bg_status" -eq 0 ]
	grep -q "data transfers complete" "$out"
}

@test "mckey -C 10: a multicast group, xib receiver, rxe sender" {
	xr_mckey xib-recv 239.1.4.1
}

@test "mckey -C 10: a multicast group, rxe receiver, xib sender" {
	xr_mckey rxe-recv 239.1.4.2
}

rdma_ok() {
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	[[ "$cli_out" == *"rdma_client: end 0"* ]]
	grep -q "rdma_server: end 0" "$srv_out"
}

@test "rdma_server / rdma_client: xib server, rxe client" {
	xr_pair xib-server 30 -- rdma_server -s $X -- rdma_client -s $X
	rdma_ok
}

@test "rdma_server / rdma_client: rxe server, xib client" {
	xr_pair rxe-server 30 -- rdma_server -s $R -- rdma_client -s $R
	rdma_ok
}

# cmtime_pair xib-server|rxe-server ADDR: rdma-core 44's cmtime, 50
# connections set up and torn down at once.  Its client disconnects and
# destroys each QP in the main thread while its event thread takes the
# DISCONNECTED events (xib's librdmacm once moved a QP being destroyed
# there: SIGSEGV).  The server keeps listening after the client is done:
# it must still be running then, and is stopped.
cmtime_pair() {
	local who=$1 addr=$2 out=$BATS_TEST_TMPDIR/cmtime-server.out step
	if [ "$who" = xib-server ]; then
		xib_bg xibB "$out" "$XR" cmtime -b "$addr" -c 50
	else
		xib_bg "" "$out" cmtime -b "$addr" -c 50
	fi
	wait_cm_listen "$bg_pid" 30 || { cat "$out"; return 1; }
	if [ "$who" = xib-server ]; then
		run timeout 60 stdbuf -oL cmtime -s "$addr" -c 50
	else
		run inB timeout 60 "$XR" stdbuf -oL cmtime -s "$addr" -c 50
	fi
	echo "--- client -> $status"
	echo "$output"
	[ "$status" -eq 0 ]
	for step in "create id" "resolve addr" "resolve route" "create qp" \
		    connect disconnect destroy; do
		grep -q "^$step *:" <<<"$output"
	done
	kill -0 "$bg_pid"
	xib_bg_stop
	echo "--- server ($who)"
	cat "$out"
}

@test "cmtime -c 50: xib server, rxe client" {
	cmtime_pair xib-server $X
}

@test "cmtime -c 50: rxe server, xib client (its event thread vs rdma_destroy_qp)" {
	cmtime_pair rxe-server $R
}

# The checklist's no-listener mode is librdmacm's API only: through
# xib-run it is xib's CM, without it the system's (the kernel's CM).  The
# passive side's CM answers a REQ for an unknown service ID with a REJ,
# reason 8 (invalid service ID), which the active side reports as
# REJECTED with that status.  (The checklist has no RPATH: without
# xib-run it loads the system's librdmacm.)
@test "connect where nobody listens: rxe client REJECTED by xib (reason 8) within 10 s" {
	[ -x "$CL" ] || skip "tests/c/rdmacm_checklist not built (make userspace)"
	run timeout 30 "$CL" no-listener $X 7999 10
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^ok .*REJECTED: reason 8,' <<<"$output"
	! grep -q '^not ok' <<<"$output"
}

@test "connect where nobody listens: xib client REJECTED by rxe (reason 8) within 10 s" {
	[ -x "$CL" ] || skip "tests/c/rdmacm_checklist not built (make userspace)"
	run inB timeout 30 "$XR" "$CL" no-listener $R 7999 10
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^ok .*REJECTED: reason 8,' <<<"$output"
	! grep -q '^not ok' <<<"$output"
}
