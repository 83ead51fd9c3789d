#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The two-VM wire benchmark's pieces on the build machine, no guest
# booted (make bench-wire runs the benchmark itself): the wire this
# QEMU must accept (run-vm --wire), the guest script's step walk, and
# the table the host makes of a run's figures.

bats_require_minimum_version 1.5.0

setup() {
	ROOT=$(cd "$BATS_TEST_DIRNAME/../../.." && pwd)
	# shellcheck source=tests/vm/wire.bash
	. "$ROOT/tests/vm/wire.bash"
}

# qemu_accepts ARGS...: QEMU starts (stopped, -S) with ARGS on run-vm's
# machine and quits when asked over QMP.
qemu_accepts() {
	printf '{"execute":"qmp_capabilities"}\n{"execute":"quit"}\n' |
		timeout 60 qemu-system-x86_64 -machine q35 -accel tcg -nodefaults -display none \
			-S -qmp stdio "$@"
}

@test "wire: both sides' NIC and netdev start in this QEMU, on crossed ports" {
	command -v qemu-system-x86_64 || skip "no qemu-system-x86_64 (make deps)"
	xib_wire_args a:47930
	a=("${WIRE_ARGS[@]}")
	xib_wire_args b:47930
	b=("${WIRE_ARGS[@]}")
	[[ ${a[1]} == *local.port=47930,*remote.port=47931 ]]
	[[ ${b[1]} == *local.port=47931,*remote.port=47930 ]]
	[[ ${a[3]} == *mac=$XIB_WIRE_MAC_A ]]
	[[ ${b[3]} == *mac=$XIB_WIRE_MAC_B ]]
	[ "$XIB_WIRE_MAC_A" != "$XIB_WIRE_MAC_B" ]
	run qemu_accepts "${a[@]}"
	[ "$status" -eq 0 ]
	[[ $output == *host-qmp-quit* ]]
	run qemu_accepts "${b[@]}"
	[ "$status" -eq 0 ]
	[[ $output == *host-qmp-quit* ]]
}

@test "wire: run-vm refuses a bad --wire spec before booting" {
	for spec in c a:80 b:x a:65535; do
		run "$ROOT/tests/vm/run-vm" --wire "$spec"
		[ "$status" -eq 2 ]
		[[ $output == wire:* ]]
	done
}

@test "wire: the guest script and the driver parse; usage errors exit 2" {
	bash -n "$ROOT/tests/bench/wire-guest.sh"
	bash -n "$ROOT/tests/bench/wire.sh"
	run "$ROOT/tests/bench/wire-guest.sh" sideways
	[ "$status" -eq 2 ]
	run "$ROOT/tests/bench/wire.sh" --nonsense
	[ "$status" -eq 2 ]
}

# a run's figures: rxe at half of xib everywhere, rxe's 5 % loss failed
figures() {
	local f=$BATS_TEST_TMPDIR/wire.tsv
	printf '%s\t%s\t%s\t%s\t%s\n' \
		wire ping 64 rtt_ms 1.5 wire iperf3 - MBps 40.1 \
		rxe ib_write_bw 65536 MBps 65.00 xib ib_write_bw 65536 MBps 130.00 \
		rxe ib_send_bw 64 Mpps 0.016 xib ib_send_bw 64 Mpps 0.032 \
		rxe ib_send_bw 64 MBps 1.0 xib ib_send_bw 64 MBps 2.0 \
		rxe ib_send_lat 2 typical_us 22000 xib ib_send_lat 2 typical_us 11000 \
		rxe ib_send_lat 2 p99_us 40000 xib ib_send_lat 2 p99_us 10000 \
		rxe ibv_rc_pingpong loss0 Mbps 100 xib ibv_rc_pingpong loss0 Mbps 200 \
		rxe ibv_rc_pingpong loss1 Mbps 50 xib ibv_rc_pingpong loss1 Mbps 150 \
		rxe ibv_rc_pingpong loss5 Mbps "$1" xib ibv_rc_pingpong loss5 Mbps 100 >"$f"
	echo "$f"
}

@test "wire: the table shows each figure with xib against rxe" {
	run "$ROOT/tests/bench/wire.sh" --table "$(figures 25)"
	[ "$status" -eq 0 ]
	[[ $output =~ "ib_write_bw 64 KiB, MB/s"\ +130.00\ +65.00\ +2.00 ]]
	[[ $output =~ "ib_send_bw 64 B, Mpps"\ +0.032\ +0.016\ +2.00 ]]
	# latency: rxe/xib, so that above 1 is xib being better
	[[ $output =~ "ib_send_lat 2 B typical, usec"\ +11000\ +22000\ +2.00 ]]
	[[ $output =~ "ib_send_lat 2 B 99th pct, usec"\ +10000\ +40000\ +4.00 ]]
	[[ $output =~ 1%\ +"150 (75%)"\ +"50 (50%)"\ +3.00 ]]
	[[ $output =~ 5%\ +"100 (50%)"\ +"25 (25%)"\ +4.00 ]]
	[[ $output == *"ping RTT 1.5 ms, TCP (iperf3) 40.1 MB/s"* ]]
	[[ $output != *"without a number"* ]]
}

@test "wire: a row without a number is shown and fails the table" {
	run "$ROOT/tests/bench/wire.sh" --table "$(figures fail)"
	[ "$status" -eq 1 ]
	[[ $output =~ 5%\ +"100 (50%)"\ +"fail (-)"\ +-$'\n' ]]
	[[ $output == *"rows without a number:"*"rxe ibv_rc_pingpong loss5 Mbps"* ]]
}
