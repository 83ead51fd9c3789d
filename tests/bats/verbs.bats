#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The verbs data path from user space: the programs of tests/c (built by
# "make userspace" into $XIB_BUILD/tests/c) move data over xib_hca devices,
# on one device (loopback) and between two devices over a veth pair whose
# ends are in two network namespaces; UC, whole messages only under
# packet loss; atomics from several QPs on one
# counter, with and without packet loss; bad input; a process killed with
# work outstanding; devices removed while a process holds them.
#
# Every xib device lives in a namespace of its own (xibA, xibB), as on a
# node where rdma_rxe owns UDP port 4791 of the initial namespace.
#
# XIB_VERBS_BYTES sets the bytes moved per opcode (default 16M on the stock
# kernel, 2M on the debug kernel, whose KASAN makes copies slow);
# XIB_LOSS_BYTES the same for the tests with packet loss (4M, 1M).
# Longer runs are make soak's.

load helpers

C=${XIB_BUILD:-${XIB_ROOT:-.}/build}/tests/c

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
	[ -x "$C/xib_rc_test" ] || skip "tests/c not built (make userspace)"
	if [ -z "${XIB_VERBS_BYTES:-}" ]; then
		XIB_VERBS_BYTES=16M
		[ "${XIB_KERNEL:-}" = debug ] && XIB_VERBS_BYTES=2M
	fi
	XIB_LOSS_BYTES=${XIB_LOSS_BYTES:-4M}
	# the debug kernel's quick mode: 5 queue refills instead of 50
	RC_QUICK=()
	if [ "${XIB_KERNEL:-}" = debug ]; then
		XIB_LOSS_BYTES=${XIB_LOSS_BYTES_DEBUG:-1M}
		RC_QUICK=(-q)
	fi
	bg_pid=
	export XIB_DEBUG=1
	xib_modules_loaded || xib-modules load
	xib_ns_pair xibA xibB xv0 xv1 10.211.0.1/24 10.211.0.2/24
}

teardown() {
	if [ -n "$bg_pid" ]; then
		kill -9 "$bg_pid" 2>/dev/null || true
		wait "$bg_pid" 2>/dev/null || true
	fi
	xib_ns_del xibA xibB
	xib_wait_gone xib0 xib1
}

# Background programs are started with "ip netns exec" itself, never
# through these functions: $! must be the program (ip netns exec execs
# it), not a subshell that "kill -9" would kill in its place.
inA() {
	ip netns exec xibA "$@"
}

inB() {
	ip netns exec xibB "$@"
}

# xib0 on xv0 in xibA; dev0 is its node.
one_device() {
	inA xibctl link add xib0 netdev xv0
	dev0=$(inA bash -c "$(declare -f uverbs_of); uverbs_of xib0")
	[ -c "$dev0" ]
}

# xib0 on xv0 in xibA, xib1 on xv1 in xibB.
two_devices() {
	one_device
	inB xibctl link add xib1 netdev xv1
	dev1=$(inB bash -c "$(declare -f uverbs_of); uverbs_of xib1")
	[ -c "$dev1" ]
}

# Wait (at most $2 s) until file $1 has a line READY.
wait_ready() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		grep -q '^READY' "$1" 2>/dev/null && return 0
		kill -0 "$bg_pid" 2>/dev/null || { cat "$1"; return 1; }
		sleep 0.1
	done
	echo "not READY within $2 s" >&2
	cat "$1" >&2
	return 1
}

# Wait (at most $1 s) for the background process; its status in bg_status.
wait_bg() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		if ! kill -0 "$bg_pid" 2>/dev/null; then
			wait "$bg_pid" && bg_status=0 || bg_status=$?
			bg_pid=
			return 0
		fi
		sleep 0.1
	done
	echo "process $bg_pid still running after $1 s" >&2
	return 1
}

# "xibctl res show DEV" in namespace $1 until every count of device $2 is
# 0 (at most $3 s).
wait_res_zero() {
	local i out
	for ((i = 0; i < $3 * 10; i++)); do
		out=$(ip netns exec "$1" xibctl res show "$2")
		# the counts are there, and all of them are zero
		if grep -q ' qp 0' <<<"$out" &&
		   ! grep -qE ' (ctx|pd|mr|cq|qp|srq|ah|cm_id|mad_send) [1-9]' <<<"$out"; then
			echo "$out (after $((i / 10)).$((i % 10)) s)"
			return 0
		fi
		sleep 0.1
	done
	echo "resources left on $2: $out" >&2
	return 1
}

@test "RC loopback on one device: every opcode and size, content verified" {
	one_device
	run inA "$C/xib_rc_test" -d "$dev0" -t "$XIB_VERBS_BYTES" "${RC_QUICK[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
}

@test "RC between two devices in two namespaces over veth" {
	two_devices
	run inA "$C/xib_rc_test" -d "$dev0" -D "$dev1" -t "$XIB_VERBS_BYTES" "${RC_QUICK[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
}

# xib_hca's tx_loss parameter: one packet in $1 sent by either device is
# lost (requests, responses, ACKs and NAKs alike).
tx_loss() {
	echo "$1" >/sys/module/xib_hca/parameters/tx_loss
}

@test "RC with 2% of the packets lost: retransmission, data intact" {
	two_devices
	tx_loss 50
	# every opcode, 1 MiB messages included; checksums compared
	run inA "$C/xib_rc_test" -d "$dev0" -D "$dev1" -t "$XIB_LOSS_BYTES" "${RC_QUICK[@]}"
	tx_loss 0
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
}

# stock only: what it adds to the test above is loss below xib (netem
# on the veth); xib's retransmission paths are the same.
# bats test_tags=stock-only
@test "RC with 2% loss by netem on the veth" {
	modprobe sch_netem 2>/dev/null || true
	ip netns exec xibA tc qdisc add dev xv0 root netem loss 2%
	ip netns exec xibB tc qdisc add dev xv1 root netem loss 2%
	two_devices
	run inA "$C/xib_rc_test" -d "$dev0" -D "$dev1" -t "$XIB_LOSS_BYTES" "${RC_QUICK[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
}

# Atomics: XIB_ATOMIC_QPS threads, each with its own QP, increment one
# counter with FETCH_ADD and CMP_SWP XIB_ATOMIC_ITERS times each; the
# counter must end at the exact sum and every original value must come
# back once (xib_atomic_test).  Fewer on the debug kernel.
atomic_args() {
	local n=${XIB_ATOMIC_QPS:-4} i=${XIB_ATOMIC_ITERS:-500}
	if [ "${XIB_KERNEL:-}" = debug ]; then
		n=${XIB_ATOMIC_QPS:-2}
		i=${XIB_ATOMIC_ITERS:-100}
	fi
	echo "-n $n -i $i"
}

@test "RC atomics on one device and between two: exact sum, access and alignment checks" {
	two_devices
	# shellcheck disable=SC2046
	run inA "$C/xib_atomic_test" -d "$dev0" $(atomic_args)
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
	# shellcheck disable=SC2046
	run inA "$C/xib_atomic_test" -d "$dev0" -D "$dev1" $(atomic_args)
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
	[[ "$output" == *"VA not 8-byte aligned: REM_INV_REQ_ERR"* ]]
	[[ "$output" == *"MR without REMOTE_ATOMIC: REM_ACCESS_ERR"* ]]
}

@test "RC atomics with 2% of the packets lost: no atomic executed twice" {
	two_devices
	tx_loss 50
	# shellcheck disable=SC2046
	run inA "$C/xib_atomic_test" -d "$dev0" -D "$dev1" -c $(atomic_args)
	tx_loss 0
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
}

@test "RC with every packet lost: RETRY_EXC_ERR after retry_cnt, no stall" {
	two_devices
	tx_loss 1
	# timeout 14 (67 ms, backed off to 4x), retry_cnt 7: the first WR
	# fails within about 2 s
	SECONDS=0
	run inA "$C/xib_rc_test" -d "$dev0" -D "$dev1" -o send -t 1
	tx_loss 0
	echo "$output (after $SECONDS s)"
	[ "$status" -ne 0 ]
	[[ "$output" == *RETRY_EXC_ERR* ]]
	[ "$SECONDS" -lt 25 ]
}

# UC (xib_uc_test): rounds of every opcode and size, and messages sent
# under loss; fewer on the debug kernel, whose largest message is 256 KiB
# instead of 1 MiB: UC has no flow control, and a 1024-packet burst
# overflows the debug guest's receive backlog between two namespaces (a
# lost packet loses the message, as UC allows).
# UC has no flow control and no retransmission: a message whose packets
# a veth reorders (sent from two CPUs) or drops (a receiving CPU's backlog
# full) is lost, as the IBTA allows.  The debug guest, sharing two CPUs
# with the stock one in the gate, does that to bursts longer than one of
# the engine's passes (16 packets), so it sends at most 16 KiB there;
# the stock kernel sends 1 MiB.
uc_args() {
	if [ "${XIB_KERNEL:-}" = debug ]; then
		echo "-r ${XIB_UC_ROUNDS:-1} -M 16K"
	else
		echo "-r ${XIB_UC_ROUNDS:-2}"
	fi
}

uc_loss_msgs() {
	if [ "${XIB_KERNEL:-}" = debug ]; then
		echo "${XIB_UC_LOSS_MSGS:-120}"
	else
		echo "${XIB_UC_LOSS_MSGS:-300}"
	fi
}

@test "UC on one device and between two: every opcode and size, drops, READ refused" {
	two_devices
	# shellcheck disable=SC2046
	run inA "$C/xib_uc_test" -d "$dev0" $(uc_args)
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
	# shellcheck disable=SC2046
	run inA "$C/xib_uc_test" -d "$dev0" -D "$dev1" $(uc_args)
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"long SEND -> LOC_LEN_ERR, bad R_Key and bounds dropped"* ]]
	[[ "$output" == *PASS* ]]
}

@test "UC with 5% of the packets lost: only whole messages arrive, the QP keeps working" {
	two_devices
	# xib_uc_test sets tx_loss itself and clears it before its last batch
	# shellcheck disable=SC2046
	run inA "$C/xib_uc_test" -d "$dev0" -D "$dev1" $(uc_args) -r 1 -L 20 -m "$(uc_loss_msgs)"
	tx_loss 0
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"none partial"* ]]
	[[ "$output" == *PASS* ]]
}

@test "UD loopback: GRH area, byte_len, Q_Key check" {
	one_device
	run inA "$C/xib_ud_test" -d "$dev0"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "UD between two devices in two namespaces" {
	two_devices
	run inA "$C/xib_ud_test" -d "$dev0" -D "$dev1"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "bad input gives the documented status or errno, never a crash" {
	one_device
	run inA "$C/xib_bad_test" -d "$dev0"
	echo "$output"
	[ "$status" -eq 0 ]
	wait_res_zero xibA xib0 30
}

@test "a process killed with work outstanding leaves nothing behind" {
	one_device
	ip netns exec xibA "$C/xib_rc_test" -d "$dev0" -b 0 -s 4096 >"$BATS_TEST_TMPDIR/out" 2>&1 &
	bg_pid=$!
	wait_ready "$BATS_TEST_TMPDIR/out" 60
	run inA xibctl res show xib0
	echo "$output"
	[[ "$output" =~ qp\ 2 ]]
	kill -9 "$bg_pid"
	wait_bg 10
	wait_res_zero xibA xib0 30
	# and SENDs with receives outstanding
	ip netns exec xibA "$C/xib_rc_test" -d "$dev0" -b 0 -O send >"$BATS_TEST_TMPDIR/out" 2>&1 &
	bg_pid=$!
	wait_ready "$BATS_TEST_TMPDIR/out" 60
	kill -9 "$bg_pid"
	wait_bg 10
	wait_res_zero xibA xib0 30
	inA xibctl link del xib0
}

@test "a process killed while its peer on another device keeps sending" {
	two_devices
	ip netns exec xibA "$C/xib_rc_test" -d "$dev0" -D "$dev1" -b 0 -s 8192 >"$BATS_TEST_TMPDIR/out" 2>&1 &
	bg_pid=$!
	wait_ready "$BATS_TEST_TMPDIR/out" 60
	kill -9 "$bg_pid"
	wait_bg 10
	wait_res_zero xibA xib0 30
	wait_res_zero xibB xib1 30
}

@test "link del while a process holds the device: DEVICE_FATAL, EIO, no hang" {
	one_device
	ip netns exec xibA "$C/xib_hold_test" -d "$dev0" -c -T 60 >"$BATS_TEST_TMPDIR/out" 2>&1 &
	bg_pid=$!
	wait_ready "$BATS_TEST_TMPDIR/out" 60
	sleep 1
	timeout 30 ip netns exec xibA xibctl link del xib0
	wait_bg 30
	cat "$BATS_TEST_TMPDIR/out"
	[ "$bg_status" -eq 0 ]
	grep -q DEVICE_FATAL "$BATS_TEST_TMPDIR/out"
	[ ! -e /sys/class/xib/xib0 ]
}

@test "rmmod xib_hca while a process holds the device: DEVICE_FATAL, no hang" {
	one_device
	ip netns exec xibA "$C/xib_hold_test" -d "$dev0" -c -T 60 >"$BATS_TEST_TMPDIR/out" 2>&1 &
	bg_pid=$!
	wait_ready "$BATS_TEST_TMPDIR/out" 60
	sleep 1
	timeout 60 rmmod xib_hca
	wait_bg 30
	cat "$BATS_TEST_TMPDIR/out"
	[ "$bg_status" -eq 0 ]
	grep -q DEVICE_FATAL "$BATS_TEST_TMPDIR/out"
	# the process is gone: uverbs is no longer pinned
	timeout 30 rmmod xib_uverbs
}

@test "deleting the interface under a busy device: DEVICE_FATAL, no hang" {
	one_device
	ip netns exec xibA "$C/xib_hold_test" -d "$dev0" -c -T 60 >"$BATS_TEST_TMPDIR/out" 2>&1 &
	bg_pid=$!
	wait_ready "$BATS_TEST_TMPDIR/out" 60
	timeout 30 ip -n xibA link del xv0
	wait_bg 30
	cat "$BATS_TEST_TMPDIR/out"
	[ "$bg_status" -eq 0 ]
	grep -q DEVICE_FATAL "$BATS_TEST_TMPDIR/out"
}

# stock only: a figure of the rings and the library, which the debug
# kernel's checks do not change (under KASAN and ptrace: 3 minutes).
# bats test_tags=stock-only
@test "sustained RDMA WRITEs make at most 0.01 system calls per WR" {
	command -v strace >/dev/null || skip "strace not installed"
	one_device
	run inA "$XIB_ROOT/tests/bench/syscalls-per-wr.sh" -d "$dev0" -n 100000
	echo "$output"
	[ "$status" -eq 0 ]
}
