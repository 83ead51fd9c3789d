#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Debian's own rdma-core programs (ibverbs-utils, rdmacm-utils, perftest:
# the 28 binaries of shared/research/abi-compat.md section 1), unmodified,
# on xib through xib-run: ibv_devices, ibv_devinfo, the pingpongs (XRC's
# ibv_xsrq_pingpong too) and ibv_asyncwatch between an xib device in
# namespace xibA (xib0 on xv0, 10.211.0.1) and one in xibB (xib1 on xv1,
# 10.211.0.2); the library semantics of tests/c/ibv_semantics.c.  That
# every import of the 28 resolves against xib's libraries is checked on
# the build machine (tests/bats/host/xib-run.bats).
#
# Clients run in xibA, servers in xibB.  XIB_PP_ITERS sets the pingpongs'
# iterations (default: the programs' 1000 on the stock kernel, 100 on the
# debug kernel, where KASAN under TCG makes each exchange slow).

load helpers
load xib-apps

# One topology for the whole file (setting it up and tearing it down
# costs tens of seconds under TCG); each test stops what it started.
setup_file() {
	xib_apps_require
	if [ -z "${XIB_PP_ITERS:-}" ]; then
		XIB_PP_ITERS=1000
		[ "${XIB_KERNEL:-}" = debug ] && XIB_PP_ITERS=100
	fi
	export XIB_PP_ITERS
	xib_apps_topology
	export GIDA GIDB
}

teardown_file() {
	xib_apps_teardown
}

setup() {
	xib_apps_require
	bg_pid=
}

teardown() {
	xib_bg_stop
	starve_stop
	# the profile test's switch, should it fail half-way
	echo N >/sys/module/xib_hca/parameters/profile 2>/dev/null || true
}

# starve_start: the engine threads of xib0 and xib1 on CPU 1, polling for
# ever instead of sleeping, and a SCHED_FIFO busy loop on CPU 1 that
# leaves them only what RT throttling gives back (50 ms a second); the
# programs of the test run on CPU 0.  starve_stop undoes it.
hog_pid=
spin_before=
yield_before=
starve_start() {
	local p
	[ "$(nproc)" -ge 2 ] || skip "needs two CPUs"
	spin_before=$(cat /sys/module/xib_hca/parameters/idle_spin_us)
	yield_before=$(cat /sys/module/xib_hca/parameters/idle_spin_yield)
	echo 100000000 >/sys/module/xib_hca/parameters/idle_spin_us
	# polling even though the hog wants the CPU: no doze, no sleep
	echo N >/sys/module/xib_hca/parameters/idle_spin_yield
	for p in $(pgrep -x 'xib_hca/xib[01]'); do
		taskset -p -c 1 "$p" >/dev/null
	done
	[ "$(pgrep -xc 'xib_hca/xib[01]')" = 2 ]
	chrt -f 50 taskset -c 1 sh -c 'while :; do :; done' &
	hog_pid=$!
}

starve_stop() {
	local p
	if [ -n "$hog_pid" ]; then
		kill -9 "$hog_pid" 2>/dev/null || true
		wait "$hog_pid" 2>/dev/null || true
		hog_pid=
	fi
	if [ -n "$spin_before" ]; then
		echo "$spin_before" >/sys/module/xib_hca/parameters/idle_spin_us
		echo "$yield_before" >/sys/module/xib_hca/parameters/idle_spin_yield
		spin_before=
		for p in $(pgrep -x 'xib_hca/xib[01]'); do
			taskset -p -c 0-"$(($(nproc) - 1))" "$p" >/dev/null
		done
	fi
}

@test "ibv_devices lists the namespace's device with its node GUID" {
	local guid
	guid=$(inA xibctl dev show xib0 | sed -n 's/.*node_guid \([0-9a-f:]*\) .*/\1/p')
	[ -n "$guid" ]
	run inA "$XR" ibv_devices
	echo "$output"
	[ "$status" -eq 0 ]
	# ibv_devices prints the GUID as 16 hex digits, most significant first.
	grep -Eq "^[[:space:]]+xib0[[:space:]]+${guid//:/}\$" <<<"$output"
	[[ "$output" != *xib1* ]]
	run inB "$XR" ibv_devices
	[[ "$output" == *xib1* && "$output" != *xib0* ]]
}

@test "ibv_devinfo -v: truthful port, MTU and GIDs" {
	local guid
	guid=$(inA xibctl dev show xib0 | sed -n 's/.*node_guid \([0-9a-f:]*\) .*/\1/p')
	run inA "$XR" ibv_devinfo -v -d xib0
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"hca_id:	xib0"* ]]
	[[ "$output" == *"transport:			InfiniBand (0)"* ]]
	[[ "$output" == *"node_guid:			$guid"* ]]
	# one device, one system image; xib's own vendor (uverbs.h)
	[[ "$output" == *"sys_image_guid:			$guid"* ]]
	[[ "$output" == *"vendor_id:			0x7a6962"* ]]
	[[ "$output" == *"vendor_part_id:			1"* ]]
	# the capabilities the device honours, and none it does not
	# (xib_hca_set_attrs()): CURR_QP_STATE_MOD, PORT_ACTIVE_EVENT,
	# SYS_IMAGE_GUID, RC_RNR_NAK_GEN, SRQ_RESIZE, MEM_WINDOW,
	# MEM_WINDOW_TYPE_2B (memory windows of type 1 and 2B, mw.bats),
	# XRC (every operation to an XRC target, verbs.bats)
	grep -Eq 'device_cap_flags:[[:space:]]+0x01123c80$' <<<"$output"
	grep -Eq '^[[:space:]]+CURR_QP_STATE_MOD$' <<<"$output"
	grep -Eq '^[[:space:]]+PORT_ACTIVE_EVENT$' <<<"$output"
	grep -Eq '^[[:space:]]+SYS_IMAGE_GUID$' <<<"$output"
	grep -Eq '^[[:space:]]+RC_RNR_NAK_GEN$' <<<"$output"
	grep -Eq '^[[:space:]]+SRQ_RESIZE$' <<<"$output"
	grep -Eq '^[[:space:]]+MEM_WINDOW$' <<<"$output"
	grep -Eq '^[[:space:]]+MEM_WINDOW_TYPE_2B$' <<<"$output"
	grep -Eq '^[[:space:]]+XRC$' <<<"$output"
	grep -Eq 'max_mw:[[:space:]]+16384$' <<<"$output"
	[[ "$output" != *"Unknown flags"* ]]
	# RC atomics, atomic among every QP of the device; 16 READs or
	# atomics outstanding per QP either way
	grep -Eq 'atomic_cap:[[:space:]]+ATOMIC_HCA \(1\)' <<<"$output"
	grep -Eq 'max_qp_rd_atom:[[:space:]]+16$' <<<"$output"
	grep -Eq 'max_qp_init_rd_atom:[[:space:]]+16$' <<<"$output"
	grep -Eq 'state:[[:space:]]+PORT_ACTIVE \(4\)' <<<"$output"
	grep -Eq 'link_layer:[[:space:]]+Ethernet' <<<"$output"
	# veth MTU 1500: the largest IB MTU it carries is 1024
	grep -Eq 'active_mtu:[[:space:]]+1024 \(3\)' <<<"$output"
	grep -Eq 'GID\[ *0\]:[[:space:]]+fe80:' <<<"$output"
	grep -Eq "GID\\[ *$GIDA\\]:[[:space:]]+(::ffff:10\\.211\\.0\\.1|0000:0000:0000:0000:0000:ffff:0ad3:0001), RoCE v2" <<<"$output"
	# and it follows the interface
	inA ip link set xv0 mtu 9000
	for _ in $(seq 50); do
		inA xibctl port show xib0/1 | grep -q 'active_mtu 4096' && break
		sleep 0.1
	done
	run inA "$XR" ibv_devinfo -v -d xib0
	inA ip link set xv0 mtu 1500
	grep -Eq 'active_mtu:[[:space:]]+4096 \(5\)' <<<"$output"
	for _ in $(seq 50); do
		inA xibctl port show xib0/1 | grep -q 'active_mtu 1024' && break
		sleep 0.1
	done
}

@test "ibv_rc_pingpong between two namespaces (RoCEv2 GID)" {
	xib_pair 180 xibB xibA -- "$XR" ibv_rc_pingpong -d xib1 -g "$GIDB" -n "$XIB_PP_ITERS" \
		-- "$XR" ibv_rc_pingpong -d xib0 -g "$GIDA" -n "$XIB_PP_ITERS" 10.211.0.2
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec' <<<"$cli_out"
	grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec' "$srv_out"
}

@test "ibv_uc_pingpong between two namespaces" {
	# UC: 4096-byte messages of four 1024-byte packets, no ACKs; a lost
	# packet would lose its message and stall the pingpong, so this also
	# says nothing was dropped on a clean link
	xib_pair 180 xibB xibA -- "$XR" ibv_uc_pingpong -d xib1 -g "$GIDB" -n "$XIB_PP_ITERS" \
		-- "$XR" ibv_uc_pingpong -d xib0 -g "$GIDA" -n "$XIB_PP_ITERS" 10.211.0.2
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec' <<<"$cli_out"
	grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec' "$srv_out"
	grep -q "^$((4096 * XIB_PP_ITERS * 2)) bytes in" <<<"$cli_out"
}

@test "ibv_ud_pingpong between two namespaces" {
	# Messages must fit the port MTU (1024 with the veth's 1500).
	xib_pair 180 xibB xibA -- "$XR" ibv_ud_pingpong -d xib1 -g "$GIDB" -s 1024 -n "$XIB_PP_ITERS" \
		-- "$XR" ibv_ud_pingpong -d xib0 -g "$GIDA" -s 1024 -n "$XIB_PP_ITERS" 10.211.0.2
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds' <<<"$cli_out"
}

@test "ibv_srq_pingpong between two namespaces (16 QPs on one SRQ)" {
	xib_pair 300 xibB xibA -- "$XR" ibv_srq_pingpong -d xib1 -g "$GIDB" -n "$XIB_PP_ITERS" \
		-- "$XR" ibv_srq_pingpong -d xib0 -g "$GIDA" -n "$XIB_PP_ITERS" 10.211.0.2
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds' <<<"$cli_out"
}

# XRC: each side owns an XRC target QP and an XRC SRQ in its domain, and
# sends through an XRC_SEND QP to the other side's SRQ number.  xib<->xib
# only: rdma_rxe in Linux 6.1 has no XRC, so there is no rxe interop.
@test "ibv_xsrq_pingpong between two namespaces (XRC_SEND to XRC_RECV, XRC SRQs)" {
	xib_pair 180 xibB xibA -- "$XR" ibv_xsrq_pingpong -d xib1 -g "$GIDB" -n 50 \
		-- "$XR" ibv_xsrq_pingpong -d xib0 -g "$GIDA" -n 50 10.211.0.2
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	grep -q '^success$' <<<"$cli_out"
	grep -q '^success$' "$srv_out"
	grep -Eq '^ *remote: LID [0-9a-f]+, QPN RECV [0-9a-f]{6} SEND [0-9a-f]{6}, PSN [0-9a-f]{6}, SRQN [0-9a-f]{6}' <<<"$cli_out"
}

@test "ibv_asyncwatch sees PORT_ERR and PORT_ACTIVE when the veth goes down and up" {
	local out=$BATS_TEST_TMPDIR/async.out
	command -v stdbuf >/dev/null || skip "stdbuf (coreutils) missing"
	xib_bg xibA "$out" "$XR" stdbuf -oL ibv_asyncwatch -d xib0
	for _ in $(seq 100); do
		grep -q 'async event FD' "$out" && break
		sleep 0.1
	done
	port_flap xibA xv0 "$out"
	xib_bg_stop
	cat "$out"
	grep -q 'xib0: async event FD' "$out"
	port_events_ok "$out"
}

@test "ibv_semantics: the library's own behaviour (tests/c/ibv_semantics.c)" {
	local guid
	[ -x "$XIB_SEM" ] || skip "ibv_semantics not built (make userspace)"
	guid=$(inA xibctl dev show xib0 | sed -n 's/.*node_guid \([0-9a-f:]*\) .*/\1/p')
	local s1 s2
	run inA "$XR" "$XIB_SEM" -d xib0 -G "$guid"
	s1=$status
	echo "$output"
	# a namespace without an xib device: an empty list, not NULL
	ip netns add xibC
	run ip netns exec xibC "$XR" "$XIB_SEM" -n
	s2=$status
	ip netns del xibC
	echo "$output" | grep -v '^ok'
	[ "$s1" -eq 0 ]
	[ "$s2" -eq 0 ]
}

# The engines are RUNNING (they never sleep here) but get no CPU: a post
# that waited for them would wait up to a second.  With
# XIB_STALE_KICK_POLLS set, libxib sees that the engine made no step while
# it polled an empty CQ and kicks the QP, which runs its requester in the
# poster's context (hca-abi.h).  Not a timing test but one of progress: in
# the stock VM 600 round trips take about 12 s that way and about 170 s
# without the kicks (the default), so a pace that needs the engine fails
# the 100 s limit.
@test "XIB_STALE_KICK_POLLS: ibv_rc_pingpong keeps its pace while the engines get no CPU" {
	starve_start
	xib_pair 100 xibB xibA -- taskset -c 0 env XIB_STALE_KICK_POLLS=2000 "$XR" \
		ibv_rc_pingpong -d xib1 -g "$GIDB" -n 600 \
		-- taskset -c 0 env XIB_STALE_KICK_POLLS=2000 "$XR" \
		ibv_rc_pingpong -d xib0 -g "$GIDA" -n 600 10.211.0.2
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds = [0-9.]+ Mbit/sec' <<<"$cli_out"
}

# The debugfs profile of xib0 (in xibA) or xib1 (in xibB).
prof_file() {
	case $1 in
	xib0) xib_prof_file xibA xib0 ;;
	xib1) xib_prof_file xibB xib1 ;;
	esac
}

# Profile column $3 (count) of stage $2 in device $1's profile; "all":
# the sum of every stage's count.
prof_count() {
	awk -v s="$2" 'NR > 2 && (s == "all" || $1 == s) { n += $3 } END { print n + 0 }' \
		"$(prof_file "$1")"
}

# A short validated exchange: $1 iterations of 4 KiB messages each way
# (four 1 KiB packets each) between xib0 and xib1.
prof_pingpong() {
	xib_pair 60 xibB xibA -- "$XR" ibv_rc_pingpong -d xib1 -g "$GIDB" -n "$1" -c \
		-- "$XR" ibv_rc_pingpong -d xib0 -g "$GIDA" -n "$1" -c 10.211.0.2
	[ "$cli_status" -eq 0 ] && [ "$srv_status" = 0 ]
}

@test "xib_hca profile (debugfs): off counts nothing, on counts the traffic, reset zeroes" {
	local d n=20 dev P0 P1
	mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
	P0=$(prof_file xib0)
	P1=$(prof_file xib1)
	for d in xib0 xib1; do
		[ -f "$(prof_file $d)" ]
	done
	# off by default: traffic counts nothing
	[ "$(cat /sys/module/xib_hca/parameters/profile)" = N ]
	echo 0 >"$P0"
	echo 0 >"$P1"
	prof_pingpong "$n"
	[ "$(prof_count xib0 all)" -eq 0 ]
	[ "$(prof_count xib1 all)" -eq 0 ]
	grep -q '^# profile off' "$P0"

	# on (through either device's file: the switch is the module's)
	echo on >"$P0"
	[ "$(cat /sys/module/xib_hca/parameters/profile)" = Y ]
	echo reset >"$P1"
	echo 0 >"$P0"
	prof_pingpong "$n"
	cat "$P0" "$P1"
	grep -q '^# profile on' "$P0"
	for dev in xib0 xib1; do
		# n messages of 4 packets sent, n received, over the veth
		[ "$(prof_count $dev req)" -ge 1 ]
		[ "$(prof_count $dev req.fetch)" -ge "$n" ]
		[ "$(prof_count $dev req.build)" -ge $((4 * n)) ]
		[ "$(prof_count $dev req.payload)" -ge $((4 * n)) ]
		[ "$(prof_count $dev xmit)" -ge $((4 * n)) ]
		[ "$(prof_count $dev xmit.icrc)" -ge $((4 * n)) ]
		[ "$(prof_count $dev xmit.out)" -ge $((4 * n)) ]
		[ "$(prof_count $dev xmit.loop)" -eq 0 ]
		[ "$(prof_count $dev rx.wire)" -ge $((4 * n)) ]
		[ "$(prof_count $dev rx.icrc)" -ge $((4 * n)) ]
		[ "$(prof_count $dev rx.pkt)" -ge $((4 * n)) ]
		[ "$(prof_count $dev rx.resp)" -ge $((4 * n)) ]
		[ "$(prof_count $dev rx.comp)" -ge 1 ]
		[ "$(prof_count $dev ack)" -ge 1 ]
		# a send and a receive completion per message
		[ "$(prof_count $dev cq.post)" -ge $((2 * n)) ]
	done
	# no more requests reach a responder than its peer built
	[ "$(prof_count xib1 rx.resp)" -le "$(prof_count xib0 req.build)" ]
	[ "$(prof_count xib0 rx.resp)" -le "$(prof_count xib1 req.build)" ]
	# the packets a device received are those that crossed its wire
	[ "$(prof_count xib0 rx.pkt)" -le "$(prof_count xib0 rx.wire)" ]

	# off, then reset: zero, and it stays zero with traffic
	echo off >"$P1"
	[ "$(cat /sys/module/xib_hca/parameters/profile)" = N ]
	echo 0 >"$P0"
	echo 0 >"$P1"
	[ "$(prof_count xib0 all)" -eq 0 ]
	prof_pingpong "$n"
	[ "$(prof_count xib0 all)" -eq 0 ]
	[ "$(prof_count xib1 all)" -eq 0 ]
	# anything else is refused
	run sh -c 'echo bogus >"$1"' _ "$P0"
	[ "$status" -ne 0 ]
}
