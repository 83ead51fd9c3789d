#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# xib_hca across network namespaces: two namespaces joined by a veth pair
# with an HCA in each, the RoCEv2 UDP port (4791) each namespace opens
# for its HCAs, the clash with rdma_rxe, which holds that port in the
# initial namespace, and device names, which are per namespace (sysfs
# shows a namespace its own devices; stock verbs programs through
# xib-run see and use theirs).
#
# In the gate each test runs in one kernel (tests/check.sh): those that
# open and close sockets and tear devices down with a namespace or an
# interface, and register names, in the debug kernel alone (debug-only:
# KASAN, lockdep and kmemleak watch those paths); the visibility rules
# and stock programs in the stock kernel (stock-only).  The clash with
# rdma_rxe runs in both (the stock kernel's rdma_rxe is the one users
# meet).

load helpers
load xib-apps

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
	xib_ns_pair xibA xibB xv0 xv1 10.77.0.1/24 10.77.0.2/24
	bg_pid=
}

teardown() {
	xib_bg_stop
	# what a test left (a command only then: each is half a second of
	# every teardown in the debug guest)
	[ ! -L /sys/class/xib/xib0 ] || xibctl link del xib0 2>/dev/null || true
	[ ! -e /sys/class/infiniband/rxe0 ] || rdma link delete rxe0 2>/dev/null || true
	[ ! -e /sys/class/net/xv9 ] || ip link del xv9 2>/dev/null || true
	xib_ns_del xibA xibB
	xib_wait_no_devices
	# rdma_rxe keeps UDP port 4791 of the initial namespace while loaded.
	xib_unload_rxe
}

# Number of sockets bound to UDP port 4791 (0x12B7) in namespace $1 ("" for
# the initial one): 2 when xib_hca has its IPv4 and IPv6 sockets open.
xib_roce_socks() {
	if [ -n "$1" ]; then
		ip netns exec "$1" cat /proc/net/udp /proc/net/udp6
	else
		cat /proc/net/udp /proc/net/udp6
	fi | awk '$2 ~ /:12B7$/ { n++ } END { print n + 0 }'
}

# Wait (at most $3 s) until namespace $1 has $2 RoCEv2 sockets.  A removed
# HCA leaves sysfs first and closes the namespace's sockets after an RCU
# grace period (xib_hca_destroy(): unregister, then detach), which takes a
# while on a loaded machine.
xib_wait_roce_socks() {
	local i n
	for ((i = 0; i < $3 * 10; i++)); do
		n=$(xib_roce_socks "$1")
		[ "$n" -eq "$2" ] && return 0
		sleep 0.1
	done
	echo "namespace ${1:-initial}: $n RoCEv2 sockets, not $2, after $3 s" >&2
	return 1
}

# bats test_tags=stock-only
@test "an HCA in each of two namespaces: each sees only its own" {
	ip netns exec xibA xibctl link add xibA0 netdev xv0
	ip netns exec xibB xibctl link add xibB0 netdev xv1
	run ip netns exec xibA xibctl dev show
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *" xibA0: "*" netdev xv0" ]]
	run ip netns exec xibB xibctl dev show
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *" xibB0: "*" netdev xv1" ]]
	run xibctl dev show
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	xib_refute_with 'No such device' ip netns exec xibA xibctl link del xibB0
	xib_refute_with 'No such device' xibctl link del xibA0
}

# bats test_tags=debug-only
@test "each namespace opens UDP port 4791 for its HCAs" {
	local before
	before=$(xib_roce_socks "")
	[ "$(xib_roce_socks xibA)" -eq 0 ]
	ip netns exec xibA xibctl link add xibA0 netdev xv0
	[ "$(xib_roce_socks xibA)" -eq 2 ]
	[ "$(xib_roce_socks xibB)" -eq 0 ]
	ip netns exec xibB xibctl link add xibB0 netdev xv1
	[ "$(xib_roce_socks xibB)" -eq 2 ]
	# Nothing changes in the initial namespace.
	[ "$(xib_roce_socks "")" -eq "$before" ]
	ip netns exec xibA xibctl link del xibA0
	[ "$(xib_roce_socks xibA)" -eq 0 ]
	[ "$(xib_roce_socks xibB)" -eq 2 ]
}

# bats test_tags=debug-only
@test "the port opens with the first HCA of a namespace and closes with the last" {
	ip link add xv8 netns xibA type veth peer name xv9
	ip -n xibA link set xv8 up
	ip netns exec xibA xibctl link add xibA0 netdev xv0
	ip netns exec xibA xibctl link add xibA1 netdev xv8
	[ "$(xib_roce_socks xibA)" -eq 2 ]
	ip netns exec xibA xibctl link del xibA0
	[ "$(xib_roce_socks xibA)" -eq 2 ]
	ip netns exec xibA xibctl link del xibA1
	[ "$(xib_roce_socks xibA)" -eq 0 ]
	# And opens again.
	ip netns exec xibA xibctl link add xibA1 netdev xv8
	[ "$(xib_roce_socks xibA)" -eq 2 ]
}

# bats test_tags=stock-only
@test "an interface carries at most one HCA" {
	ip netns exec xibA xibctl link add xibA0 netdev xv0
	xib_refute_with 'another xib device uses this network interface' \
		ip netns exec xibA xibctl link add xibA1 netdev xv0
	run ip netns exec xibA xibctl dev show
	[ "${#lines[@]}" -eq 1 ]
	inA test ! -e /sys/class/xib/xibA1
	[ "$(xib_roce_socks xibA)" -eq 2 ]
}

# bats test_tags=debug-only
@test "moving the interface to another namespace removes its HCA and closes the port" {
	ip netns exec xibA xibctl link add xibA0 netdev xv0
	ip -n xibA link set xv0 netns xibB
	# NETDEV_UNREGISTER cuts the HCA off at once and queues the rest of
	# its removal (it cannot wait for user space under RTNL).
	xib_wait_gone xibA0
	xib_wait_roce_socks xibA 0 10
	# The interface works for a new HCA in its new namespace.
	ip netns exec xibB xibctl link add xibB0 netdev xv0
	[ "$(xib_roce_socks xibB)" -eq 2 ]
}

# bats test_tags=debug-only
@test "destroying a namespace removes its HCAs and sockets" {
	ip netns exec xibA xibctl link add xibA0 netdev xv0
	ip netns exec xibB xibctl link add xibB0 netdev xv1
	ip netns del xibA
	xib_wait_gone xibA0 xibB0	# the veth peer goes too
	! xib_device_anywhere xibA0
	! xib_device_anywhere xibB0
	xib_wait_roce_socks xibB 0 10
}

@test "link add fails clearly where rdma_rxe holds UDP port 4791" {
	command -v rdma >/dev/null || skip "rdma (iproute2) not installed"
	xib_load_rxe
	ip link add xv9 type veth peer name xv10
	ip link set xv9 up
	rdma link add rxe0 type rxe netdev xv9 || skip "rdma_rxe not available"
	[ "$(xib_roce_socks "")" -ge 1 ]
	xib_refute_with 'Address already in use: UDP port 4791 is in use in this network namespace' \
		xibctl link add xib0 netdev xv9
	# Nothing is left behind.
	run xibctl dev show
	[ -z "$output" ]
	[ ! -e /sys/class/xib/xib0 ]
	# rdma_rxe only holds the initial namespace's port.
	ip netns exec xibA xibctl link add xibA0 netdev xv0
	[ "$(xib_roce_socks xibA)" -eq 2 ]
}

# ibv_devices' line for device $1 with node GUID $2 (xibctl's form).
devices_line() {
	grep -Eq "^[[:space:]]+$1[[:space:]]+${2//:/}\$"
}

# bats test_tags=debug-only
@test "names are per namespace: each of two namespaces has its xib0, in its sysfs; the name twice in one is refused" {
	local ia ib
	inA xibctl link add xib0 netdev xv0
	inB xibctl link add xib0 netdev xv1
	# the same name twice in one namespace is still refused
	ip link add xv8 netns xibA type veth peer name xv9
	xib_refute_with 'File exists.*an xib device with this name exists in this' \
		inA xibctl link add xib0 netdev xv8
	run inA xibctl dev show
	[ "${#lines[@]}" -eq 1 ]
	# each namespace's sysfs shows its own device only, the initial none
	[ "$(inA ls /sys/class/xib)" = xib0 ]
	[ "$(inB ls /sys/class/xib)" = xib0 ]
	[ ! -e /sys/class/xib/xib0 ]
	ia=$(inA xibctl -j dev show xib0 | jq '.[0].ifindex')
	ib=$(inB xibctl -j dev show xib0 | jq '.[0].ifindex')
	[ "$ia" != "$ib" ]
	[ "$(inA cat /sys/class/xib/xib0/index)" = "$ia" ]
	[ "$(inB cat /sys/class/xib/xib0/index)" = "$ib" ]
	# the global views: debugfs lists both; the profiles, global too,
	# are named with the index outside the initial namespace
	[ "$(awk '$2 == "xib0"' "$XIB_DEVICES_ALL" | wc -l)" -eq 2 ]
	[ -f "/sys/kernel/debug/xib_hca/xib0:$ia/profile" ]
	[ -f "/sys/kernel/debug/xib_hca/xib0:$ib/profile" ]
	# a third xib0, in the initial namespace
	xibctl link add xib0 netdev xv9
	[ "$(cat /sys/class/xib/xib0/index)" != "$ia" ]
	[ "$(awk '$2 == "xib0"' "$XIB_DEVICES_ALL" | wc -l)" -eq 3 ]
	xibctl link del xib0
	# deleting one namespace's xib0 leaves the other's
	inA xibctl link del xib0
	[ -z "$(inA ls /sys/class/xib)" ]
	[ "$(inB ls /sys/class/xib)" = xib0 ]
	[ "$(inB xibctl -j dev show xib0 | jq '.[0].ifindex')" = "$ib" ]
}

# stock only: what it adds to the test above is the library's view
# (ibv_devices, ibv_devinfo, the index check) and traffic, which the
# debug kernel's suites drive between namespaces already.
# bats test_tags=stock-only
@test "names are per namespace: stock programs in each namespace see and use its xib0, and only it" {
	local ia ga gb gida gidb ih
	xib_apps_require
	inA xibctl link add xib0 netdev xv0
	inB xibctl link add xib0 netdev xv1
	ip link add xv8 netns xibA type veth peer name xv9
	ia=$(inA xibctl -j dev show xib0 | jq '.[0].ifindex')
	# stock programs see their namespace's device
	ga=$(inA xibctl dev show xib0 | sed -n 's/.*node_guid \([0-9a-f:]*\) .*/\1/p')
	gb=$(inB xibctl dev show xib0 | sed -n 's/.*node_guid \([0-9a-f:]*\) .*/\1/p')
	[ -n "$ga" ] && [ -n "$gb" ] && [ "$ga" != "$gb" ]
	run inA "$XR" ibv_devices
	echo "$output"
	[ "$status" -eq 0 ]
	devices_line xib0 "$ga" <<<"$output"
	[ "$(grep -c xib0 <<<"$output")" -eq 1 ]
	run inB "$XR" ibv_devices
	echo "$output"
	devices_line xib0 "$gb" <<<"$output"
	[ "$(grep -c xib0 <<<"$output")" -eq 1 ]
	run inA "$XR" ibv_devinfo -d xib0
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"node_guid:"*"$ga"* && "$output" != *"$gb"* ]]
	run inB "$XR" ibv_devinfo -d xib0
	[ "$status" -eq 0 ]
	[[ "$output" == *"node_guid:"*"$gb"* && "$output" != *"$ga"* ]]
	# RC traffic between the two xib0s
	gida=$(xib_gid_index xibA xib0 10.77.0.1)
	gidb=$(xib_gid_index xibB xib0 10.77.0.2)
	xib_pair 120 xibB xibA -- "$XR" ibv_rc_pingpong -d xib0 -g "$gidb" -n 100 \
		-- "$XR" ibv_rc_pingpong -d xib0 -g "$gida" -n 100 10.77.0.2
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	grep -Eq '^[0-9]+ bytes in [0-9.]+ seconds' <<<"$cli_out"
	# a process of xibA with the initial namespace's sysfs (nsenter
	# enters the network namespace only) finds the initial xib0 under
	# /sys/class/xib/xib0: the library sees the index differ and lists
	# no xib0 rather than the wrong device
	xibctl link add xib0 netdev xv9
	ih=$(cat /sys/class/xib/xib0/index)
	[ "$ih" != "$ia" ]
	run nsenter --net=/run/netns/xibA "$XR" ibv_devices
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" != *xib0* ]]
	run "$XR" ibv_devices
	[ "$(grep -c xib0 <<<"$output")" -eq 1 ]
	xibctl link del xib0
	# deleting one namespace's xib0 leaves the other's, for programs too
	inA xibctl link del xib0
	run inB "$XR" ibv_devices
	devices_line xib0 "$gb" <<<"$output"
}
