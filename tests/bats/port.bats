#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Ports follow their interface: state, MTU and the RoCEv2 GID table.

load helpers

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
	xib_modules_loaded || xib-modules load
	xib_veth xv0 xv1
	xibctl link add xib0 netdev xv0
}

teardown() {
	ip link del xv0 2>/dev/null || true
	xib_wait_no_devices
}

# Wait (the core updates ports from a work item) until "port show" output
# matches the regular expression $2 for device/port $1.
port_becomes() {
	local i
	for i in $(seq 100); do
		output=$(xibctl port show "$1")
		[[ "$output" =~ $2 ]] && return 0
		sleep 0.1
	done
	echo "port $1 never matched /$2/; last: $output" >&2
	return 1
}

@test "an up interface with carrier gives an ACTIVE port" {
	port_becomes xib0/1 'state ACTIVE physical_state LINK_UP active_mtu 1024 netdev xv0'
}

@test "the port goes DOWN with the interface or its carrier, and back" {
	port_becomes xib0/1 'state ACTIVE'
	ip link set xv0 down
	port_becomes xib0/1 'state DOWN physical_state DISABLED'
	ip link set xv0 up
	port_becomes xib0/1 'state ACTIVE'
	ip link set xv1 down		# the peer: xv0 loses carrier
	port_becomes xib0/1 'state DOWN'
	ip link set xv1 up
	port_becomes xib0/1 'state ACTIVE'
}

@test "the active MTU is the largest IB MTU the interface MTU carries" {
	ip link set xv0 mtu 9000
	port_becomes xib0/1 'active_mtu 4096'
	ip link set xv0 mtu 1500
	port_becomes xib0/1 'active_mtu 1024'
	ip link set xv0 mtu 1200
	port_becomes xib0/1 'active_mtu 1024'
	ip link set xv0 mtu 1100
	port_becomes xib0/1 'active_mtu 512'
}

@test "GID 0 is the default GID made from the current MAC" {
	ip link set xv0 address 02:11:22:33:44:55
	port_becomes xib0/1 'gid 0 fe80::11:22ff:fe33:4455 RoCEv2'
	ip link set xv0 address 02:11:22:33:44:66
	port_becomes xib0/1 'gid 0 fe80::11:22ff:fe33:4466 RoCEv2'
}

@test "IPv4 and IPv6 addresses appear as GIDs and keep their index" {
	ip addr add 192.0.2.1/24 dev xv0
	port_becomes xib0/1 'gid [0-9]+ ::ffff:192.0.2.1 RoCEv2'
	# Another subnet: deleting a primary address takes its secondaries.
	ip addr add 198.51.100.2/24 dev xv0
	port_becomes xib0/1 'gid [0-9]+ ::ffff:198.51.100.2 RoCEv2'
	local idx2
	idx2=$(xibctl port show xib0/1 | sed -n 's/.*gid \([0-9]*\) ::ffff:198.51.100.2 .*/\1/p')
	[ -n "$idx2" ]
	ip addr del 192.0.2.1/24 dev xv0
	for _ in $(seq 100); do
		xibctl port show xib0/1 | grep -q '::ffff:192.0.2.1 ' || break
		sleep 0.1
	done
	run xibctl port show xib0/1
	[[ "$output" != *"::ffff:192.0.2.1 "* ]]
	# The remaining address kept its index.
	[[ "$output" == *"gid $idx2 ::ffff:198.51.100.2 RoCEv2"* ]]
	ip -6 addr add 2001:db8::5/64 dev xv0 nodad
	port_becomes xib0/1 'gid [0-9]+ 2001:db8::5 RoCEv2'
}

# stock only: the output formats and messages of xibctl; the port dump
# itself is what every other test here polls, in both kernels.
# bats test_tags=stock-only
@test "port show: dump, one device, JSON and bad names" {
	xibctl link add xib1 netdev xv1
	port_becomes xib0/1 'state ACTIVE'
	run xibctl port show
	[ "$status" -eq 0 ]
	[[ "$output" == *"xib0/1: state"* ]]
	[[ "$output" == *"xib1/1: state"* ]]
	run xibctl port show xib1
	[[ "$output" != *"xib0/1"* ]]
	[[ "$output" == *"xib1/1: state"* ]]
	run xibctl -j port show xib0/1
	[[ "$output" == '[{"ifname":"xib0","port":1,"state":"ACTIVE"'*'"gids":[{"index":0,"gid":"fe80::'*'"type":"RoCEv2"}'*']}]' ]]
	xib_refute_with 'Invalid argument: no such port' xibctl port show xib0/2
	xib_refute_with 'No such device' xibctl port show nosuch/1
	xib_refute_with 'No such device' xibctl port show nosuch
	xib_refute_with 'invalid port' xibctl port show xib0/x
}
