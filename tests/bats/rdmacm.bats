#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The RDMA CM from user space: /dev/xib/rdma_cm (xib_ucma over xib_cma)
# through xib's librdmacm.so.1, with an xib device in each of two network
# namespaces joined by a veth pair (the topology of xib-apps.bash):
#   xibA: xv0 10.211.0.1/24, xib0        xibB: xv1 10.211.0.2/24, xib1
#
# - the seed's checklist (tests/c/rdmacm_checklist.c): what one device
#   answers, the per-file limits, then both sides of the connection
#   scenarios;
# - rdmacm-utils run unmodified through xib-run, xib <-> xib across the
#   namespaces: ucmatose, rping, udaddy, cmtime, rdma_server/rdma_client,
#   rdma_xserver/rdma_xclient (XRC ids),
#   mckey (a multicast group, IPv4 and IPv6; the interface a member of
#   the IP group while joined only);
# - tests/c/rdmacm_race: an event thread against rdma_destroy_qp on the
#   same ids (cmtime's client), on one device;
# - failure paths: nobody listens (REJECTED in bounded time), the peer
#   process killed (DISCONNECTED), the device removed (DEVICE_REMOVAL),
#   and a killed process leaves no id, QP or MAD send behind;
# - scale: SIM simultaneous connections to one listener (cmtime), CYCLES
#   connect/disconnect cycles in one process, and "xibctl res show" back
#   to zero on both devices afterwards;
# - a kill -9 storm during connection setup: STORM server/client pairs
#   killed at random moments (XIB_KILL_STORM; make soak runs 1000; the
#   gate 20, the debug kernel 4: each pair costs about a second there).
#
# On the debug kernel (KASAN under TCG) the message and connection counts
# are scaled down (XIB_KERNEL=debug): every exec there costs ~0.3 s and
# each connection much more than on the stock kernel.

load helpers
load xib-apps

CL=$XIB_BUILD/tests/c/rdmacm_checklist
A=10.211.0.1
B=10.211.0.2

# One topology for the whole file: setting it up and tearing it down
# (modules, namespaces, devices) costs seconds on the stock kernel and
# most of a minute on the debug one, more than most tests here.  Each
# test stops what it started; setup() puts back what a test removed (the
# xib_ucma module, device xib0).
setup_file() {
	xib_apps_require
	xib_apps_topology
}

teardown_file() {
	xib_apps_teardown
}

setup() {
	xib_apps_require
	[ -x "$CL" ] || skip "tests/c/rdmacm_checklist not built (make userspace)"
	MSGS=10 CONNS=4 TIMES=20 SIM=256 CYCLES=1000 STORM=${XIB_KILL_STORM:-20}
	if [ "${XIB_KERNEL:-}" = debug ]; then
		MSGS=4 CONNS=2 TIMES=4 SIM=16 CYCLES=50 STORM=${XIB_KILL_STORM_DEBUG:-4}
	fi
	bg_pid=
	xib_modules_loaded || xib-modules load
	# (xib0 lives in xibA, where this namespace's sysfs does not show
	# it: the test that deletes it leaves a mark)
	if [ -e "$BATS_FILE_TMPDIR/xib0-deleted" ]; then
		inA xibctl link add xib0 netdev xv0
		xib_gid_index xibA xib0 $A >/dev/null
		rm "$BATS_FILE_TMPDIR/xib0-deleted"
	fi
}

teardown() {
	xib_bg_stop
	if [ -n "${v6_added:-}" ]; then
		inA ip -6 addr del fd11::1/64 dev xv0 || true
		inB ip -6 addr del fd11::2/64 dev xv1 || true
	fi
}

# The checklist's TAP output: print it, fail on any "not ok" or on exit
# status $2 (default 0) differing.
tap_ok() {
	echo "$1"
	! grep -q '^not ok' <<<"$1" || return 1
	grep -q '^1\.\.[1-9]' <<<"$1" || { echo "no plan: the checklist died"; return 1; }
}

# Wait (at most $3 s) until file $1 has a line $2.
wait_line() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q "^$2" "$1" 2>/dev/null && return 0
		kill -0 "$bg_pid" 2>/dev/null || { cat "$1"; return 1; }
		sleep 0.1
	done
	echo "no '$2' in $1 after $3 s" >&2
	cat "$1" >&2
	return 1
}

# cm_pair TIMEOUT -- SERVER_CMD... -- CLIENT_CMD...: the server in xibB,
# once it listens the client in xibA; both through xib-run.  Sets
# srv_status, cli_status, srv_out, cli_out.
cm_pair() {
	local t=$1 srv=() cli=()
	shift
	[ "$1" = -- ] && shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	srv_out=$BATS_TEST_TMPDIR/server.out
	xib_bg xibB "$srv_out" "$XR" "${srv[@]}"
	if ! wait_cm_listen "$bg_pid" "$t"; then
		cat "$srv_out"
		return 1
	fi
	cli_status=0
	cli_out=$(inA timeout "$t" "$XR" "${cli[@]}" 2>&1) || cli_status=$?
	srv_status=
	local sw=$t
	[ "$cli_status" = 0 ] || sw=5
	if xib_bg_wait "$sw"; then
		srv_status=$bg_status
	else
		xib_bg_stop
	fi
	echo "--- server (xibB): ${srv[*]} -> ${srv_status:-still running}"
	cat "$srv_out"
	echo "--- client (xibA): ${cli[*]} -> $cli_status"
	echo "$cli_out"
}

# Count $3 (qp, cm_id, ...) of device $2 in namespace $1 ("res show").
res_count() {
	ip netns exec "$1" xibctl res show "$2" | sed -n "s/.* $3 \([0-9]*\).*/\1/p"
}

# "res show" of a device nothing uses: no verbs object, no user context,
# no RDMA CM id bound to it, no MAD send outstanding.
RES0='ctx 0 pd 0 mr 0 cq 0 qp 0 srq 0 ah 0 mw 0 xrcd 0 cm_id 0 mad_send 0'

# Wait (at most $3 s) until the counts of device $2 in namespace $1 ("res
# show" after "N: DEV: ") match the extended regex $4 in full: RES0, or
# what must hold while a process still has its context open.  Prints the
# line and how long it took.
wait_res() {
	local i out re="^[0-9]+: $2: ($4)\$"
	for ((i = 0; i < $3 * 10; i++)); do
		out=$(ip netns exec "$1" xibctl res show "$2")
		if [[ "$out" =~ $re ]]; then
			echo "$1: $out (after $((i / 10)).$((i % 10)) s)"
			return 0
		fi
		sleep 0.1
	done
	echo "$1: $2 is not back to '$4' after $3 s: $out" >&2
	return 1
}

@test "/dev/xib/rdma_cm: a misc device anyone may open, one channel per open" {
	[ -c /dev/xib/rdma_cm ]
	[ "$(stat -c %a /dev/xib/rdma_cm)" = 666 ]
	[ -e /sys/class/misc/xib_rdma_cm ]
	# without xib_ucma the node goes and librdmacm says why
	rmmod xib_ucma
	[ ! -e /dev/xib/rdma_cm ]
	run inA "$XR" "$CL" local $A $B
	[[ "$output" == *"needs the xib_ucma module"* ]]
	xib-modules load xib_ucma
	[ -c /dev/xib/rdma_cm ]
}

@test "checklist: what one device answers (ids, bind, resolution, acks, errors, ABI)" {
	run inA "$XR" "$CL" local $A $B
	tap_ok "$output"
	[ "$status" -eq 0 ]
	# an unresolvable address gives ADDR_ERROR and its status, for each
	# of the three (nobody answers, no route, an interface without xib)
	[ "$(grep -cE '^ok .*(nobody answers|without a route|without xib): ADDR_ERROR' <<<"$output")" -eq 6 ]
}

@test "checklist: per-channel limits on ids and queued events (ENOMEM beyond)" {
	local p=/sys/module/xib_ucma/parameters
	[ "$(cat $p/max_ids_per_file)" = 4096 ]
	[ "$(cat $p/max_events_per_file)" = 4096 ]
	echo 8 >$p/max_ids_per_file
	echo 3 >$p/max_events_per_file
	run inA "$XR" "$CL" limits $A $B 8 3
	echo 4096 >$p/max_ids_per_file
	echo 4096 >$p/max_events_per_file
	tap_ok "$output"
	[ "$status" -eq 0 ]
}

# debug only: the removal of a device under its CM ids is a teardown
# path (the ids' references, the events queued to a closing channel);
# the program is tests/c's in both kernels.
# bats test_tags=debug-only
@test "device removed: DEVICE_REMOVAL on its ids, which can then be destroyed" {
	local out=$BATS_TEST_TMPDIR/removal.out
	xib_bg xibA "$out" "$XR" "$CL" wait-removal $A $B 20
	wait_line "$out" READY 20
	touch "$BATS_FILE_TMPDIR/xib0-deleted"
	inA xibctl link del xib0
	xib_bg_wait 30
	cat "$out"
	[ "$bg_status" -eq 0 ]
	tap_ok "$(cat "$out")"
}

@test "checklist: the connection scenarios, both sides (RC, reject, CONNECT_RESPONSE, UD)" {
	cm_pair 60 -- "$CL" server $B 7471 -- "$CL" client $B 7471
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	tap_ok "$cli_out"
	tap_ok "$(cat "$srv_out")"
}

# Every MAD device $2 in namespace $1 sent was a CM message, sent once or
# resent by the MAD layer: mad_tx = the cm_tx_* counters + mad_retries.
# (One reading of the counters.)
mads_are_cm() {
	ip netns exec "$1" xibctl -j statistic show dev "$2" | jq -e '.[0] |
		([to_entries[] | select(.key | test("^cm_tx_")) | .value] | add) as $cm |
		"mad_tx \(.mad_tx) = cm_tx_* \($cm) + mad_retries \(.mad_retries)?" as $m |
		. as $o | ($m | stderr) | $o | .mad_tx == $cm + .mad_retries'
}

# stock only: a stock program; in the debug kernel the checklist's
# connection scenarios (tests/c/rdmacm_checklist.c: RC connect, data,
# disconnect, reject, UD) and the connect/disconnect cycles drive the
# same CM paths.
# bats test_tags=stock-only
@test "ucmatose: RC connections, data and disconnect, xib <-> xib" {
	inA xibctl statistic reset dev xib0
	inB xibctl statistic reset dev xib1
	cm_pair 60 -- ucmatose -b $B -c $CONNS -C $MSGS -- ucmatose -s $B -c $CONNS -C $MSGS
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	[[ "$cli_out" == *"data transfers complete"* ]]
	[[ "$cli_out" == *"test complete"* ]]
	grep -q "test complete" "$srv_out"
	# the CM's counters: one REQ, REP and RTU per connection (the
	# answers may be resent for a duplicate), one DREQ per disconnection
	inA xibctl statistic show dev xib0
	inB xibctl statistic show dev xib1
	[ "$(stat_of xibA xib0 cm_tx_req)" -eq "$CONNS" ]
	[ "$(stat_of xibB xib1 cm_rx_req)" -ge "$CONNS" ]
	[ "$(stat_of xibB xib1 cm_tx_rep)" -ge "$CONNS" ]
	[ "$(stat_of xibA xib0 cm_rx_rep)" -ge "$CONNS" ]
	[ "$(stat_of xibA xib0 cm_tx_rtu)" -ge "$CONNS" ]
	[ "$(stat_of xibB xib1 cm_rx_rtu)" -ge "$CONNS" ]
	[ "$(stat_sum xibA xib0 '^cm_[rt]x_dreq$')" -ge "$CONNS" ]
	[ "$(stat_of xibB xib1 cm_tx_req)" -eq 0 ]
	[ "$(stat_of xibA xib0 cm_tx_rej)" -eq 0 ]
	[ "$(stat_of xibB xib1 cm_tx_rej)" -eq 0 ]
	mads_are_cm xibA xib0
	mads_are_cm xibB xib1
}

# stock only: rping's kernel paths (RC connect, READ, WRITE) run on the debug
# kernel under ucmatose and verbs.bats.
# bats test_tags=stock-only
@test "rping -v -V -C 10: RDMA read/write ping, validated, xib <-> xib" {
	cm_pair 60 -- rping -s -v -V -C 10 -a $B -- rping -c -v -V -C 10 -a $B
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	[ "$(grep -c '^ping data: rdma-ping-' <<<"$cli_out")" -eq 10 ]
	[ "$(grep -c '^server ping data: rdma-ping-' "$srv_out")" -eq 10 ]
}

# stock only: a stock program; in the debug kernel the checklist's UD
# scenario drives the same SIDR exchange and UD QP setup.
# bats test_tags=stock-only
@test "udaddy: UD lookup (SIDR) and datagrams, xib <-> xib" {
	inA xibctl statistic reset dev xib0
	inB xibctl statistic reset dev xib1
	cm_pair 60 -- udaddy -b $B -c $CONNS -C $MSGS -- udaddy -s $B -c $CONNS -C $MSGS
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	[[ "$cli_out" == *"test complete"* ]]
	grep -q "test complete" "$srv_out"
	# one SIDR_REQ per id, answered; no connection messages
	[ "$(stat_of xibA xib0 cm_tx_sidr_req)" -eq "$CONNS" ]
	[ "$(stat_of xibB xib1 cm_rx_sidr_req)" -ge "$CONNS" ]
	[ "$(stat_of xibB xib1 cm_tx_sidr_rep)" -ge "$CONNS" ]
	[ "$(stat_of xibA xib0 cm_rx_sidr_rep)" -ge "$CONNS" ]
	[ "$(stat_sum xibA xib0 '^cm_[rt]x_(req|rep|rtu|dreq|drep)$')" -eq 0 ]
	mads_are_cm xibA xib0
	mads_are_cm xibB xib1
}

# mckey_pair GROUP RECV_ADDR SEND_ADDR: mckey in xibB joins GROUP (bound
# to RECV_ADDR) and waits for MSGS datagrams; xv1 must be a member of the
# IP group while it is joined and not before or after; mckey -s in xibA
# (bound to SEND_ADDR) joins and sends them.
mckey_pair() {
	local g=$1 rb=$2 sb=$3 out=$BATS_TEST_TMPDIR/mckey.out i
	! inB ip maddr show dev xv1 | grep -qw "$g"
	xib_bg xibB "$out" "$XR" stdbuf -oL mckey -m "$g" -b "$rb" -C $MSGS
	wait_line "$out" "mckey: joined" 20
	# the IGMP/MLD join is carried out by a work item: give it a moment
	for ((i = 0; i < 50; i++)); do
		inB ip maddr show dev xv1 | grep -qw "$g" && break
		sleep 0.1
	done
	inB ip maddr show dev xv1
	inB ip maddr show dev xv1 | grep -qw "$g"
	run inA timeout 30 "$XR" mckey -m "$g" -b "$sb" -s -C $MSGS
	echo "--- sender (xibA): $output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"data transfers complete"* ]]
	xib_bg_wait 30
	echo "--- receiver (xibB) -> $bg_status"
	cat "$out"
	[ "$bg_status" -eq 0 ]
	grep -q "receiving data transfers" "$out"
	grep -q "data transfers complete" "$out"
	for ((i = 0; i < 50; i++)); do
		inB ip maddr show dev xv1 | grep -qw "$g" || break
		sleep 0.1
	done
	! inB ip maddr show dev xv1 | grep -qw "$g"
}

@test "mckey: a multicast group over IPv4, xib <-> xib, the IP group joined while joined only" {
	mckey_pair 239.1.3.1 $B $A
}

@test "mckey: a multicast group over IPv6 (MLD), xib <-> xib" {
	local i
	v6_added=1	# teardown takes them away
	inA ip -6 addr add fd11::1/64 dev xv0 nodad
	inB ip -6 addr add fd11::2/64 dev xv1 nodad
	for ((i = 0; i < 50; i++)); do
		inB xibctl port show xib1/1 | grep -q 'fd11::2' &&
			inA xibctl port show xib0/1 | grep -q 'fd11::1' && break
		sleep 0.1
	done
	mckey_pair ff0e::1:3 fd11::2 fd11::1
}

@test "checklist: multicast joins per id bounded (max_mcast_per_id)" {
	local p=/sys/module/xib_ucma/parameters
	[ "$(cat $p/max_mcast_per_id)" = 64 ]
	echo 1 >$p/max_mcast_per_id
	run inA "$XR" "$CL" mc-limit $A $B
	echo 64 >$p/max_mcast_per_id
	tap_ok "$output"
	[ "$status" -eq 0 ]
}

# stock only: the debug kernel sets up and tears down connections with
# cmtime below (16 at once) and the kill storm.
# bats test_tags=stock-only
@test "cmtime: many connections set up and torn down, xib <-> xib" {
	# rdma-core 44's cmtime server keeps listening after the client is
	# done: it must still be running then (not dead of an error).
	local out=$BATS_TEST_TMPDIR/cmtime-server.out
	xib_bg xibB "$out" "$XR" cmtime -b $B -c $TIMES
	wait_cm_listen "$bg_pid" 30
	run inA timeout 60 "$XR" cmtime -s $B -c $TIMES
	echo "$output"
	[ "$status" -eq 0 ]
	# every step is timed
	for step in "create id" "resolve addr" "resolve route" "create qp" \
		    connect disconnect destroy; do
		grep -q "^$step *:" <<<"$output"
	done
	kill -0 "$bg_pid"
	xib_bg_stop
	cat "$out"
}

# debug only: a race between a thread and destroy; lockdep and KASAN
# are what can tell it went wrong.
# bats test_tags=debug-only
@test "the event thread vs rdma_destroy_qp on the same ids (cmtime's client), tests/c/rdmacm_race" {
	# cmtime's client disconnects and destroys each QP in its main
	# thread while its event thread takes the DISCONNECTED events: the
	# library must not move a QP rdma_destroy_qp is destroying (it did,
	# and cmtime died of SIGSEGV).  One device, loopback; the interleaving
	# pinned for 3 connections, then $TIMES connections at once, twice.
	local race=$XIB_BUILD/tests/c/rdmacm_race
	[ -x "$race" ] || skip "tests/c/rdmacm_race not built (make userspace)"
	run inA timeout 120 "$XR" "$race" $A 7474 $TIMES 2
	tap_ok "$output"
	[ "$status" -eq 0 ]
}

# stock only: the synchronous API is librdmacm's; its kernel commands are
# the ones ucmatose and the checklist drive on the debug kernel.
# bats test_tags=stock-only
@test "rdma_server / rdma_client: the synchronous API (rdma_getaddrinfo, rdma_create_ep)" {
	cm_pair 60 -- rdma_server -s $B -- rdma_client -s $B
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	[[ "$cli_out" == *"rdma_client: end 0"* ]]
	grep -q "rdma_server: end 0" "$srv_out"
}

# XRC over the RDMA CM: rdma_xserver -c x listens with an XRC target id
# (RDMA_PS_IB, IBV_QPT_XRC_RECV), makes an XRC SRQ on the request and
# sends its number in the REP's private data; rdma_xclient -c x connects
# an XRC initiator (IBV_QPT_XRC_SEND), sends 16 bytes to that SRQ and
# waits for the send's completion.  "rdma_xserver: end 0" comes only
# after rdma_get_recv_comp() returned the SRQ's receive completion: the
# message arrived.  Then neither device keeps anything of them (XRC
# domain, target QP and SRQ included).
@test "rdma_xserver / rdma_xclient -c x: XRC ids (initiator and target), the message received" {
	cm_pair 30 -- rdma_xserver -c x -p 7476 -- rdma_xclient -c x -s $B -p 7476
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	[[ "$cli_out" == *"rdma_xclient: end 0"* ]]
	grep -q "rdma_xserver: end 0" "$srv_out"
	wait_res xibA xib0 10 "${RES0% 0} [01]"
	wait_res xibB xib1 10 "${RES0% 0} [01]"
}

@test "rdma_xclient -c x where nobody listens: refused within 10 s, no hang" {
	run inA timeout 10 "$XR" rdma_xclient -c x -s $B -p 7998
	echo "$output"
	[ "$status" -ne 0 ] && [ "$status" -ne 124 ]
	[[ "$output" == *"rdma_connect"* ]]
	[[ "$output" == *"rdma_xclient: end -1"* ]]
}

@test "connect where nobody listens: REJECTED within 10 s" {
	run inA "$XR" "$CL" no-listener $B 7999 10
	tap_ok "$output"
	[ "$status" -eq 0 ]
}

# debug only, as the kill storm below: a process's death with
# connections up is a teardown path (ids, QPs and MAD sends released
# from the channel's close) for the debug kernel's checks; the stock
# kernel runs "the client killed while connected" with stock programs.
# bats test_tags=debug-only
@test "the peer process killed: DISCONNECTED; it leaves no id, QP or MAD send behind" {
	local out=$BATS_TEST_TMPDIR/client.out srv cli
	wait_res xibA xib0 10 "$RES0"
	wait_res xibB xib1 10 "$RES0"
	xib_bg xibB "$BATS_TEST_TMPDIR/hold.out" "$XR" "$CL" hold $B 7472
	srv=$bg_pid
	wait_cm_listen "$srv" 30
	xib_bg xibA "$out" "$XR" "$CL" wait-disconnect $B 7472 30
	cli=$bg_pid
	wait_line "$out" ESTABLISHED 30
	# the server: its listener and the connection's id; the client: one
	[ "$(res_count xibB xib1 qp)" -eq 1 ]
	[ "$(res_count xibB xib1 cm_id)" -eq 2 ]
	[ "$(res_count xibA xib0 cm_id)" -eq 1 ]
	kill -9 "$srv"
	wait "$srv" 2>/dev/null || true
	# the dead server's ids and QP are gone at once (its DREQ may wait
	# for the client's DREP a little longer)
	wait_res xibB xib1 10 "ctx 0 pd 0 mr 0 cq 0 qp 0 srq 0 ah 0 mw 0 xrcd 0 cm_id 0 mad_send [01]"
	xib_bg_wait 40
	cat "$out"
	[ "$bg_status" -eq 0 ]
	tap_ok "$(cat "$out")"
	wait_res xibB xib1 10 "$RES0"
	wait_res xibA xib0 10 "$RES0"
	# and its port is free
	xib_bg xibB "$BATS_TEST_TMPDIR/hold2.out" "$XR" "$CL" hold $B 7472
	wait_cm_listen "$bg_pid" 30
	[ "$(res_count xibB xib1 cm_id)" -eq 1 ]
	xib_bg_stop
	wait_res xibB xib1 10 "$RES0"
}

# stock only: on the debug kernel "the peer process killed" drives the same
# teardown of connected ids by a process's exit.
# bats test_tags=stock-only
@test "the client killed while connected: nothing of it is left; the live server keeps what it accepted until it exits" {
	local out=$BATS_TEST_TMPDIR/server.out cli
	xib_bg xibB "$out" "$XR" "$CL" hold $B 7474
	wait_cm_listen "$bg_pid" 30
	# not through inA: $! must be the client itself (ip netns exec and
	# xib-run exec it), not a subshell that kill -9 would kill instead
	ip netns exec xibA "$XR" "$CL" wait-disconnect $B 7474 30 >"$BATS_TEST_TMPDIR/client.out" 2>&1 &
	cli=$!
	wait_line "$out" ESTABLISHED 30
	[ "$(res_count xibA xib0 cm_id)" -eq 1 ]
	kill -9 "$cli"
	wait "$cli" 2>/dev/null || true
	# The dead client's id and QP are gone at once.  Its DREQ may still
	# wait for the DREP (mad_send 1): the server's id answers it when its
	# consumer disconnects or destroys it, and hold does neither while it
	# lives (as with Linux's RDMA CM, the DREP is the consumer's).
	wait_res xibA xib0 10 "ctx 0 pd 0 mr 0 cq 0 qp 0 srq 0 ah 0 mw 0 xrcd 0 cm_id 0 mad_send [01]"
	# the server keeps what it accepted while it lives
	wait_res xibB xib1 10 "ctx 1 pd 1 .* qp 1 srq 0 ah 0 mw 0 xrcd 0 cm_id 2 mad_send 0"
	kill -0 "$bg_pid"
	xib_bg_stop
	# its id's destroy answers the DREQ: nothing is left on either side
	wait_res xibB xib1 10 "$RES0"
	wait_res xibA xib0 10 "$RES0"
}

@test "cmtime: 256 (debug: 16) simultaneous connections to one listener, res show back to zero" {
	local out=$BATS_TEST_TMPDIR/cmtime-server.out t0 t1
	wait_res xibA xib0 10 "$RES0"
	wait_res xibB xib1 10 "$RES0"
	xib_bg xibB "$out" "$XR" cmtime -b $B -c $SIM
	wait_cm_listen "$bg_pid" 30
	[ "$(res_count xibB xib1 cm_id)" -eq 1 ]
	t0=$(date +%s.%N)
	run inA timeout 90 "$XR" cmtime -s $B -c $SIM
	t1=$(date +%s.%N)
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "^connect *:" <<<"$output"
	{
		echo "# cmtime -c $SIM: client run $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
		sed 's/^/#   /' <<<"$output"
	} >&3
	# the client is gone: nothing of it is left
	wait_res xibA xib0 20 "$RES0"
	# the server still listens: only its listener's id
	kill -0 "$bg_pid"
	wait_res xibB xib1 20 ".* qp 0 srq 0 ah 0 mw 0 xrcd 0 cm_id 1 mad_send 0"
	xib_bg_stop
	cat "$out"
	wait_res xibB xib1 20 "$RES0"
}

# Both ends of a connection killed at random moments of its setup: the
# listener, the REQ, REP, RTU and the first DREQ all happen within the
# first 300 ms on the stock kernel.  One end first, then the other a
# moment later, so that each side dies alone with the other still
# answering (or retrying) as well as both at once.
# bats test_tags=debug-only
@test "kill -9 storm during connection setup: 20 (debug: 4) pairs, nothing left, the CM works after" {
	local i srv cli first port
	wait_res xibA xib0 10 "$RES0"
	wait_res xibB xib1 10 "$RES0"
	for ((i = 0; i < STORM; i++)); do
		port=$((7600 + i % 64))
		# not through inB/inA: $! must be the program (ip netns exec
		# and xib-run exec it)
		ip netns exec xibB "$XR" "$CL" hold $B $port >/dev/null 2>&1 &
		srv=$!
		sleep "0.0$((RANDOM % 10))"
		ip netns exec xibA "$XR" "$CL" wait-disconnect $B $port 5 >/dev/null 2>&1 &
		cli=$!
		sleep "0.$(printf '%03d' $((RANDOM % 300)))"
		case $((RANDOM % 3)) in
		0) first=$srv ;;
		1) first=$cli ;;
		*) first="$srv $cli" ;;
		esac
		kill -9 $first 2>/dev/null || true
		sleep "0.0$((RANDOM % 10))"
		kill -9 "$srv" "$cli" 2>/dev/null || true
		wait "$srv" "$cli" 2>/dev/null || true
	done
	# every id, QP and MAD send of the dead goes (a DREQ or REQ of a
	# destroyed id may retry until its timeout first)
	wait_res xibA xib0 60 "$RES0"
	wait_res xibB xib1 60 "$RES0"
	# and the CM still connects both ways
	cm_pair 60 -- "$CL" cycles-server $B 7473 2 -- "$CL" cycles $B 7473 2
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	wait_res xibA xib0 20 "$RES0"
	wait_res xibB xib1 20 "$RES0"
}

# stock only: on the debug kernel cmtime's 16 connections and the kill storm
# set connections up and tear them down, and kmemleak sees a leak of one.
# bats test_tags=stock-only
@test "1000 (debug: 50) connect/disconnect cycles in one process against one listener" {
	wait_res xibA xib0 10 "$RES0"
	wait_res xibB xib1 10 "$RES0"
	cm_pair 120 -- "$CL" cycles-server $B 7473 $CYCLES -- "$CL" cycles $B 7473 $CYCLES
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" -eq 0 ]
	tap_ok "$cli_out"
	tap_ok "$(cat "$srv_out")"
	grep '^# cycles:' <<<"$cli_out" >&3
	wait_res xibA xib0 20 "$RES0"
	wait_res xibB xib1 20 "$RES0"
}
