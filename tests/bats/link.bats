#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# xib_hca devices over netlink: link add/del/show, the character device
# of each device, removal with the interface, with the module and across
# network namespaces.
#
# In the gate each test runs in one kernel (tests/check.sh): link add's
# refusals, link del and the removal of devices with their interface,
# their module or their namespace in the debug kernel alone (debug-only:
# KASAN, lockdep and kmemleak watch the unwinding and teardown); what
# user space sees (formats, messages, counts, the node's permissions) in
# the stock kernel (stock-only).

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
}

teardown() {
	xib_ns_del xibns
	ip link del xv0 2>/dev/null || true
	xib_wait_no_devices
}

# stock only: the output formats of xibctl; every debug test adds a device
# and dumps it.
# bats test_tags=stock-only
@test "link add creates a device that dev show, link show and sysfs report" {
	xibctl link add xib0 netdev xv0
	run xibctl dev show
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" =~ ^[0-9]+:\ xib0:\ node_guid\ [0-9a-f:]{19}\ ports\ 1\ driver\ xib_hca\ netdev\ xv0$ ]]
	run xibctl link show
	[ "$output" = "link xib0/1 netdev xv0" ]
	run xibctl -j dev show xib0
	[[ "$output" == '[{"ifindex":'*'"ifname":"xib0"'*'"netdev":"xv0"}]' ]]
	[ -d /sys/class/xib/xib0 ]
}

# bats test_tags=stock-only
@test "res show counts a device's objects: none, then one user context per open" {
	xibctl link add xib0 netdev xv0
	run xibctl res show xib0
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^[0-9]+:\ xib0:\ ctx\ 0\ pd\ 0\ mr\ 0\ cq\ 0\ qp\ 0\ srq\ 0\ ah\ 0\ mw\ 0\ xrcd\ 0\ cm_id\ 0\ mad_send\ 0$ ]]
	exec 8</dev/xib/uverbs0
	run xibctl -j res show xib0
	exec 8<&-
	[[ "$output" == '[{"ifindex":'*'"ifname":"xib0","ctx":1,"pd":0,"mr":0,"cq":0,"qp":0,"srq":0,"ah":0,"mw":0,"xrcd":0,"cm_id":0,"mad_send":0}]' ]]
	run xibctl res show xib0
	[[ "$output" == *" ctx 0 "* ]]
}

# stock only: arithmetic on the MAC; link add is driven by every test.
# bats test_tags=stock-only
@test "the node GUID is the interface MAC as a modified EUI-64" {
	ip link set xv0 address 02:11:22:33:44:55
	xibctl link add xib0 netdev xv0
	run xibctl dev show xib0
	[[ "$output" == *"node_guid 0011:22ff:fe33:4455 "* ]]
}

# bats test_tags=stock-only
@test "each device gets a world-usable /dev/xib/uverbsN that opens" {
	xibctl link add xib0 netdev xv0
	[ -c /dev/xib/uverbs0 ]
	[ "$(stat -c %a /dev/xib/uverbs0)" = 666 ]
	exec 8</dev/xib/uverbs0
	exec 8<&-
	xibctl link add xib1 netdev xv1
	[ -c /dev/xib/uverbs1 ]
	xibctl link del xib0
	[ ! -e /dev/xib/uverbs0 ]
	[ -c /dev/xib/uverbs1 ]
}

# bats test_tags=debug-only
@test "bad link add requests fail with a clear error and change nothing" {
	xib_refute_with 'No such device' xibctl link add xib0 netdev nosuch0
	xib_refute_with 'netdev IFNAME. is required' xibctl link add xib0
	xib_refute_with 'Invalid argument: invalid xib device name' \
		xibctl link add 'bad/name' netdev xv0
	xib_refute_with 'not supported: unknown link type; is its driver loaded' \
		xibctl link add xib0 netdev xv0 type nosuchtype
	xib_refute_with 'Invalid argument: xib_hca needs an Ethernet interface' \
		xibctl link add xib0 netdev lo
	run xibctl dev show
	[ -z "$output" ]
	xibctl link add xib0 netdev xv0
	xib_refute_with 'File exists: an xib device with this name exists' \
		xibctl link add xib0 netdev xv1
	run xibctl dev show
	[ "${#lines[@]}" -eq 1 ]
}

# bats test_tags=debug-only
@test "link del removes the device; deleting it twice fails" {
	xibctl link add xib0 netdev xv0
	xibctl link del xib0
	run xibctl dev show
	[ -z "$output" ]
	[ ! -e /sys/class/xib/xib0 ]
	xib_refute_with 'No such device' xibctl link del xib0
}

# stock only: a message of xibctl; unloading xib_hca is tested in the
# debug kernel with devices present, below and in modules.bats.
# bats test_tags=stock-only
@test "link add without xib_hca says which module is missing" {
	rmmod xib_hca
	xib_refute_with 'not supported: .*xib_hca' xibctl link add xib0 netdev xv0
}

# bats test_tags=debug-only
@test "deleting the interface removes its device" {
	xibctl link add xib0 netdev xv0
	xibctl link add xib1 netdev xv1
	ip link del xv0		# takes its peer xv1 with it
	run xibctl dev show
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# bats test_tags=debug-only
@test "unloading xib_hca removes its devices, even with a node held open" {
	xibctl link add xib0 netdev xv0
	exec 8</dev/xib/uverbs0
	rmmod xib_uverbs 2>/dev/null && false	# the open node pins uverbs
	rmmod xib_hca
	run xibctl dev show
	[ -z "$output" ]
	[ ! -e /dev/xib/uverbs0 ]
	exec 8<&-
	rmmod xib_uverbs
}

# bats test_tags=debug-only
@test "an open node does not keep its interface from going away" {
	xibctl link add xib0 netdev xv0
	exec 8</dev/xib/uverbs0
	ip link del xv0
	[ ! -e /sys/class/net/xv0 ]
	# Cut off at once; the rest of the removal is queued (not under RTNL).
	xib_wait_gone xib0
	# The node is dead but the file is still a file: ioctls fail cleanly.
	exec 8<&-
}

# stock only: link del is tested in the debug kernel above; this one
# checks the interface's own behaviour after it.
# bats test_tags=stock-only
@test "the netdev stays usable after its device is gone" {
	xibctl link add xib0 netdev xv0
	xibctl link del xib0
	ip link set xv0 mtu 1400
	[ "$(cat /sys/class/net/xv0/mtu)" = 1400 ]
}

# bats test_tags=debug-only
@test "devices live in the namespace of their interface" {
	ip netns add xibns
	ip link set xv1 netns xibns
	ip netns exec xibns ip link set xv1 up
	xibctl link add xib0 netdev xv0
	# Names are per namespace, like sysfs: the child has its own xib0.
	ip netns exec xibns xibctl link add xib0 netdev xv1
	run xibctl dev show
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *" xib0: "*" netdev xv0" ]]
	run ip netns exec xibns xibctl dev show
	[ "${#lines[@]}" -eq 1 ]
	[[ "${lines[0]}" == *" xib0: "*" netdev xv1" ]]
	[ "$(ls /sys/class/xib)" = xib0 ]
	[ "$(ip netns exec xibns ls /sys/class/xib)" = xib0 ]
	# Each namespace's xib0 is its own: deleting one leaves the other.
	xibctl link del xib0
	run ip netns exec xibns xibctl dev show
	[[ "${lines[0]}" == *" xib0: "*" netdev xv1" ]]
	xib_refute_with 'No such device' xibctl link del xib0
	ip netns exec xibns xibctl link del xib0
}

# bats test_tags=debug-only
@test "destroying a namespace removes the devices on its interfaces" {
	ip netns add xibns
	ip link set xv1 netns xibns
	ip netns exec xibns xibctl link add xib1 netdev xv1
	ip netns del xibns
	# Namespace cleanup is asynchronous; the veth pair goes with it.
	xib_wait_gone xib1
}

# stock only: on the debug kernel security.bats' user-namespace case drives the
# same permission checks of LINK_ADD and LINK_DEL.
# bats test_tags=stock-only
@test "link add and del need CAP_NET_ADMIN" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	xib_refute_with 'Operation not permitted' \
		setpriv --reuid=65534 --regid=65534 --clear-groups xibctl link add xib0 netdev xv0
	xibctl link add xib0 netdev xv0
	xib_refute_with 'Operation not permitted' \
		setpriv --reuid=65534 --regid=65534 --clear-groups xibctl link del xib0
	run setpriv --reuid=65534 --regid=65534 --clear-groups xibctl dev show
	[ "$status" -eq 0 ]
	[[ "$output" == *xib0* ]]
}
