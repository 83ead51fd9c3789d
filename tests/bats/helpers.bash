# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the in-VM bats suites.  The runner (tests/vm/runner)
# exports XIB_ROOT, XIB_MODDIR and XIB_KERNEL and puts xibctl and
# xib-modules on PATH.

xib_require_vm() {
	[ -n "${XIB_MODDIR:-}" ] && [ -d /sys/module ] ||
		skip "needs the test VM (make bats T=...)"
	xib_lean_trace
}

# Bats (1.8) finds the line of a failure with a DEBUG trap that records
# the call stack before every simple command of a test, its setup and
# teardown: about 0.6 ms a command on the host, tens of milliseconds in
# a TCG guest (link, port and ibverbs-ex.bats took 119 s in the stock
# guest with it, 67 s without).  Every VM
# test calls this first (xib_require_vm): the DEBUG trap goes, and an
# ERR trap records the same stack once, at the failing command, so a
# failure is reported exactly as bats would report it (function, file,
# line and the failed command).  A failure still fails the test: the ERR
# trap ends in bats' own handler, and errexit does the rest.
xib_lean_trace() {
	declare -F bats_capture_stack_trace >/dev/null &&
		declare -F bats_error_trap >/dev/null || return 0
	trap - DEBUG
	trap xib_err_trap ERR
}

# The ERR trap of xib_lean_trace: the failing command's stack, then bats'
# handler with the command's status as $?.
xib_err_trap() {
	local status=$?
	bats_capture_stack_trace
	xib_return "$status" || bats_error_trap
}

xib_return() {
	return "$1"
}

# Run "$@" and fail the test, showing the output, unless it fails with an
# error message matching the pattern $1.
xib_refute_with() {
	local pattern=$1
	shift
	run "$@"
	if [ "$status" -eq 0 ]; then
		echo "expected '$*' to fail, it succeeded: $output" >&2
		return 1
	fi
	if ! grep -qE "$pattern" <<<"$output"; then
		echo "expected '$*' to fail with /$pattern/, got: $output" >&2
		return 1
	fi
}

xib_modules_loaded() {
	local m
	for m in xib_core xib_uverbs xib_cma xib_ucma xib_hca; do
		[ -d "/sys/module/$m" ] || return 1
	done
}

xib_no_modules_loaded() {
	! grep -q '^xib_' /proc/modules
}

# A veth pair $1 <-> $2, both up, in the current namespace.
xib_veth() {
	ip link add "$1" type veth peer name "$2"
	ip link set "$1" up
	ip link set "$2" up
}

# Load rdma_rxe unless it is loaded; sets XIB_LOADED_RXE=1 if this call
# loaded it.  The stock kernel has it in /lib/modules; for the debug
# kernel, make modules-vm copies it next to the xib modules.  Fails if
# neither works.
xib_load_rxe() {
	local m
	grep -q '^rdma_rxe ' /proc/modules && return 0
	if ! modprobe -q rdma_rxe 2>/dev/null; then
		# crc32_generic: rxe allocates the "crc32" shash at link add
		for m in crc32_generic udp_tunnel ip6_udp_tunnel rdma_rxe; do
			[ -d "/sys/module/$m" ] ||
				insmod "$XIB_MODDIR/extern/$m.ko" || return 1
		done
	fi
	export XIB_LOADED_RXE=1
}

# Undo xib_load_rxe (if it loaded the module).
xib_unload_rxe() {
	[ -n "${XIB_LOADED_RXE:-}" ] || return 0
	rmmod rdma_rxe 2>/dev/null || true
	unset XIB_LOADED_RXE
}

# xib_ns_pair NSA NSB IFA IFB CIDRA CIDRB: network namespaces NSA and NSB
# joined by a veth pair, IFA in NSA with address CIDRA and IFB in NSB with
# CIDRB, loopback and both ends up.  Three processes (ip -batch): process
# creation is what the debug guest is slowest at (about half a second).
xib_ns_pair() {
	printf 'netns add %s\nnetns add %s\nlink add %s netns %s type veth peer name %s netns %s\n' \
		"$1" "$2" "$3" "$1" "$4" "$2" | ip -batch - || return 1
	printf 'addr add %s dev %s\nlink set lo up\nlink set %s up\n' "$5" "$3" "$3" |
		ip -n "$1" -batch - || return 1
	printf 'addr add %s dev %s\nlink set lo up\nlink set %s up\n' "$6" "$4" "$4" |
		ip -n "$2" -batch -
}

# xib_ns_del NS...: delete the namespaces that exist, in one process.
xib_ns_del() {
	local ns del=()
	for ns in "$@"; do
		[ -e "/run/netns/$ns" ] && del+=("netns del $ns")
	done
	[ ${#del[@]} -eq 0 ] || printf '%s\n' "${del[@]}" | ip -force -batch - 2>/dev/null || true
}

# How long (s) a removed xib device may take to go.  Deleting an
# interface or a namespace returns before the device goes: the HCA's
# removal runs from a work queue after the interface's unregistration, and
# a namespace's interfaces are unregistered only when the kernel cleans
# the namespace up, from its one netns work queue, after "ip netns del"
# has returned and behind the cleanups of the namespaces deleted before
# (each teardown here deletes two).  Each cleanup waits for several RCU
# grace periods, which the debug kernel (KASAN, lockdep, in TCG) makes
# seconds long on a loaded machine: 30 s is not enough there.  The waits
# return as soon as the device is gone, and poll with builtins (xib_nap),
# so that these are wall-clock bounds: with a process per check and a
# sleep(1) per turn, a turn took over a second in the debug guest and the
# bound was ten times what it said.
xib_gone_timeout() {
	if [ "${XIB_KERNEL:-}" = debug ]; then
		echo 300
	else
		echo 60
	fi
}

# The names of the xib devices of every network namespace, one a line
# (debugfs xib/devices: sysfs shows a namespace only its own devices, and
# names are per namespace, so a name may be listed more than once).
# Without debugfs, those /sys/class/xib shows.
XIB_DEVICES_ALL=/sys/kernel/debug/xib/devices
# Bash builtins only: the waits below call these in a loop, and in the
# debug guest every process costs about half a second (an awk and a grep
# made each check of xib_device_anywhere 0.7 s there, and a test's
# teardown wait 2.8 s for devices that were gone in 0.2).
xib_devices_all() {
	local d _x name
	if [ -r "$XIB_DEVICES_ALL" ]; then
		while read -r _x name _x; do
			[ -z "$name" ] || echo "$name"
		done <"$XIB_DEVICES_ALL"
		return 0
	fi
	for d in /sys/class/xib/*; do
		[ -L "$d" ] && echo "${d##*/}"
	done
	return 0
}

# Whether an xib device named $1 exists in any namespace.  The class's
# link is tested, not what it points to: an interface's removal first
# moves the device out from under the interface's sysfs directory, and a
# path resolved through the link during the move does not exist for a
# moment.
xib_device_anywhere() {
	local _x name
	[ -L "/sys/class/xib/$1" ] && return 0
	[ -r "$XIB_DEVICES_ALL" ] || return 1
	while read -r _x name _x; do
		[ "$name" = "$1" ] && return 0
	done <"$XIB_DEVICES_ALL"
	return 1
}

# xib_nap SECONDS: sleep without creating a process, for the waits that
# poll: read's timeout on a FIFO that nobody writes (opened read-write,
# so the open does not wait for a writer).  In the debug guest ten
# "sleep 0.1" took 4.9 s, ten naps 1.25 s.  Where the FIFO cannot be
# made or opened, sleep(1).
xib_nap() {
	local f=${TMPDIR:-/tmp}/xib-nap.$EUID
	[ -p "$f" ] || mkfifo "$f" 2>/dev/null || [ -p "$f" ] || { sleep "$1"; return 0; }
	{ read -rt "$1" || :; } <>"$f" 2>/dev/null || sleep "$1"
}

# The debugfs profile of xib_hca device $2 of namespace $1 ("" for the
# initial one): xib_hca/NAME/profile in the initial namespace,
# xib_hca/NAME:INDEX/profile in the others (debugfs is global, names are
# per namespace).
xib_prof_file() {
	local idx
	if [ -z "$1" ]; then
		echo "/sys/kernel/debug/xib_hca/$2/profile"
		return
	fi
	idx=$(ip netns exec "$1" cat "/sys/class/xib/$2/index") || return 1
	echo "/sys/kernel/debug/xib_hca/$2:$idx/profile"
}

# xib_wait_gone DEV...: wait (at most xib_gone_timeout) until no device of
# these names is left in any namespace.
xib_wait_gone() {
	local d i t
	t=$(xib_gone_timeout)
	for d in "$@"; do
		for ((i = 0; i < t * 10; i++)); do
			xib_device_anywhere "$d" || break
			xib_nap 0.1
		done
		! xib_device_anywhere "$d" || { echo "xib device $d still there after $t s" >&2; return 1; }
	done
}

# xib_wait_no_devices: wait (at most xib_gone_timeout) until no xib device
# is left, in any namespace (the teardown of suites that keep the modules
# loaded).
xib_wait_no_devices() {
	local i left t
	t=$(xib_gone_timeout)
	for ((i = 0; i < t * 10; i++)); do
		left=$(xib_devices_all)
		[ -z "$left" ] && return 0
		xib_nap 0.1
	done
	echo "xib devices left after $t s:" $left >&2
	return 1
}

# The /dev/xib/uverbsN node of xib device $1 (in the caller's namespace).
uverbs_of() {
	local d
	for d in /sys/class/xib/"$1"/uverbs* /sys/class/xib/"$1"/*/uverbs*; do
		if [ -e "$d" ]; then
			echo "/dev/xib/${d##*/}"
			return 0
		fi
	done
	echo "no uverbs node for $1" >&2
	return 1
}

# Counter $3 of device $2 in namespace $1 (xibctl statistic, -j).
stat_of() {
	ip netns exec "$1" xibctl -j statistic show dev "$2" | jq -er ".[0].$3"
}

# The sum of every counter of device $2 in namespace $1 whose name
# matches the jq regex $3 (default: all of them).
stat_sum() {
	ip netns exec "$1" xibctl -j statistic show dev "$2" |
		jq -e --arg re "${3:-.}" '[.[0] | to_entries[] |
			select(.key != "dev" and .key != "port" and (.key | test($re))) |
			.value] | add // 0'
}

# Commands in the suites' two namespaces.  Background programs are started
# with "ip netns exec" itself, never through these functions: $! must be
# the program (ip netns exec execs it), not a subshell that "kill -9"
# would kill in its place.
inA() { ip netns exec xibA "$@"; }
inB() { ip netns exec xibB "$@"; }

# The /dev/xib/uverbsN node of device $2, as namespace $1 sees it.
uverbs_in() {
	ip netns exec "$1" bash -c "$(declare -f uverbs_of); uverbs_of $2"
}

# The index of device $2's GID for IPv6 address $3 ("gid N ADDR RoCEv2"
# of xibctl port show) in namespace $1, once the GID table has it.
gid6_index() {
	local i idx
	for ((i = 0; i < 100; i++)); do
		idx=$(ip netns exec "$1" xibctl port show "$2/1" |
		      sed -n "s/.*gid \([0-9]*\) $3 RoCEv2.*/\1/p")
		[ -n "$idx" ] && { echo "$idx"; return 0; }
		xib_nap 0.1
	done
	echo "no GID for $3 on $2" >&2
	return 1
}

# xib0 on xv0 in xibA and xib1 on xv1 in xibB; their nodes in dev0, dev1.
xib_two_devices() {
	inA xibctl link add xib0 netdev xv0
	inB xibctl link add xib1 netdev xv1
	dev0=$(uverbs_in xibA xib0)
	dev1=$(uverbs_in xibB xib1)
	[ -c "$dev0" ] && [ -c "$dev1" ]
}
