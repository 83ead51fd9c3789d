#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Security checks of issue 12 (Documentation/security.rst):
# - forged RoCEv2 packets (built whole, ICRC included, sent through raw
#   sockets) from an address that is not the peer's do not touch a
#   connected QP: a WRITE with the right QPN, R_Key and PSN writes
#   nothing, an ACK completes nothing, a NAK does not fail the QP; the
#   same packets from the peer's address do (so they are well formed);
#   over IPv4 and over IPv6; a fresh device's first QP number and R_Key
#   are random;
# - controlled Q_Keys (bit 31) need CAP_NET_RAW; a WR's Q_Key with bit 31
#   set sends the QP's own;
# - DESTROY_QP racing incoming datagrams (the receive path may drop the
#   last reference; the release must not sleep there: DEBUG_ATOMIC_SLEEP,
#   KASAN and lockdep of the debug kernel watch);
# - a memory cgroup pays for the QPs its processes create, in proportion
#   to their size, and bounds them (ENOMEM, no OOM kill, nothing left);
# - namespaces: in exclusive mode a device opens only from its interface's
#   namespace, only the initial namespace's admin sets the mode, and a
#   user namespace's root cannot create devices;
# - per-user limits: one uid's user contexts (every device together) and
#   RDMA CM channels stop at max_contexts_per_user / max_channels_per_user
#   with EMFILE, other uids and CAP_SYS_RESOURCE are not held back, and a
#   dead holder's count returns; in user namespaces a container's uids
#   together stop at its owner's limit, another owner's container is not
#   affected, and the counts return.
#
# Topology, made once for the file: namespaces xibA (xv0 10.211.0.1, xib0)
# and xibB (xv1 10.211.0.2, xib1); 10.211.0.3 is nobody's.

load helpers

C=${XIB_BUILD:-${XIB_ROOT:-.}/build}/tests/c

setup_file() {
	xib_require_vm
	xib-modules load
	xib_ns_pair xibA xibB xv0 xv1 10.211.0.1/24 10.211.0.2/24
	inA xibctl link add xib0 netdev xv0
	inB xibctl link add xib1 netdev xv1
}

teardown_file() {
	xib_ns_del xibA xibB
	xib_wait_gone xib0 xib1
	xib-modules unload
}

teardown() {
	# a failed namespace test must not leave the stack exclusive
	xibctl system set netns shared 2>/dev/null || true
	# nor a failed per-user test its holder and lowered limits
	[ -z "${hold_job:-}" ] || hold_end
	userns_end
	echo 256 >/sys/module/xib_core/parameters/max_contexts_per_user 2>/dev/null || true
	echo 256 >/sys/module/xib_ucma/parameters/max_channels_per_user 2>/dev/null || true
}

setup() {
	xib_require_vm
	[ -x "$C/xib_spoof" ] || skip "tests/c not built (make userspace)"
	dev0=$(uverbs_in xibA xib0)
	dev1=$(uverbs_in xibB xib1)
}

@test "forged RC WRITE, ACK and NAK from a third address are dropped; the transfer completes; QPNs and R_Keys random" {
	inA xibctl statistic reset dev xib0
	inB xibctl statistic reset dev xib1
	run inA "$C/xib_spoof" -d "$dev0" -D "$dev1" -n /run/netns/xibB -x 10.211.0.3
	echo "$output"
	sed 's/^/# /' <<<"$output" >&3
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
	[ "$(grep -c '^ok - ' <<<"$output")" -eq 6 ]
	# the 16 forged WRITEs reached xib1, the forged ACK and NAK xib0: all
	# counted as not from the peer
	[ "$(inB xibctl -j statistic show dev xib1 | jq -e '.[0].rx_drop_addr')" -ge 16 ]
	[ "$(inA xibctl -j statistic show dev xib0 | jq -e '.[0].rx_drop_addr')" -ge 2 ]
	# sequential numbers would give both fresh devices QPN 0x10, key 0x100
	read -r qa qb < <(sed -n 's/^first qpn A \(0x[0-9a-f]*\) B \(0x[0-9a-f]*\)$/\1 \2/p' <<<"$output")
	read -r ka kb < <(sed -n 's/^first rkey A \(0x[0-9a-f]*\) B \(0x[0-9a-f]*\)$/\1 \2/p' <<<"$output")
	[ -n "$qa" ] && [ -n "$ka" ]
	[ "$qa" != "$qb" ]
	[ "$ka" != "$kb" ]
	(( qa >= 16 && qb >= 16 && qa < 0x1000000 && qb < 0x1000000 ))
}

@test "forged RC WRITE, ACK and NAK over IPv6 from a third address are dropped; the transfer completes" {
	local ga gb
	inA ip addr add fd12::1/64 dev xv0 nodad
	inB ip addr add fd12::2/64 dev xv1 nodad
	ga=$(gid6_index xibA xib0 fd12::1)
	gb=$(gid6_index xibB xib1 fd12::2)
	inA xibctl statistic reset dev xib0
	inB xibctl statistic reset dev xib1
	run inA "$C/xib_spoof" -d "$dev0" -D "$dev1" -n /run/netns/xibB -x fd12::3 \
		-g "$ga" -G "$gb"
	inA ip addr del fd12::1/64 dev xv0
	inB ip addr del fd12::2/64 dev xv1
	echo "$output"
	sed 's/^/# /' <<<"$output" | grep -v '^# first' >&3
	[ "$status" -eq 0 ]
	[[ "$output" == *"over IPv6"* ]]
	[[ "$output" == *PASS* ]]
	# the same six checks as over IPv4, the controls included: the forged
	# frames (UDP checksum, ICRC with IPv6's masks) are well formed
	[ "$(grep -c '^ok - ' <<<"$output")" -eq 6 ]
	[ "$(inB xibctl -j statistic show dev xib1 | jq -e '.[0].rx_drop_addr')" -ge 16 ]
	[ "$(inA xibctl -j statistic show dev xib0 | jq -e '.[0].rx_drop_addr')" -ge 2 ]
}

@test "controlled Q_Key: EPERM without CAP_NET_RAW, allowed to root; a WR's bit 31 sends the QP's own Q_Key" {
	run inA "$C/xib_qkey_test" -d "$dev0"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
	run inA "$C/xib_qkey_test" -d "$dev0" -m
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok - root may set the controlled Q_Key"* ]]
	# rings are locked memory: nobody's RLIMIT_MEMLOCK must allow them
	run inA prlimit --memlock=unlimited:unlimited setpriv --reuid=nobody --regid=nogroup \
		--clear-groups "$C/xib_qkey_test" -d "$dev0" -m
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok - uid 65534: controlled Q_Key refused (EPERM)"* ]]
}

# qps_gone: xib0 (in xibA) has no QP left, within 5 s (the release of a
# destroyed QP may be deferred to a work queue); prints the counts.
qps_gone() {
	local i out
	for ((i = 0; i < 50; i++)); do
		out=$(inA xibctl res show xib0)
		grep -qE ' qp 0( |$)' <<<"$out" && break
		sleep 0.1
	done
	echo "$out"
	grep -qE ' qp 0( |$)' <<<"$out"
}

# debug only: what it checks (no sleep in atomic context, nothing
# leaks) is DEBUG_ATOMIC_SLEEP's, lockdep's and kmemleak's to see.
# bats test_tags=debug-only
@test "DESTROY_QP racing incoming datagrams (loopback and veth): no sleep in atomic context, nothing leaks" {
	run inA "$C/xib_destroy_race" -d "$dev0" -D "$dev1" -t 3
	echo "$output"
	grep rounds <<<"$output" | sed 's/^/# /' >&3
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
	# every object is gone once the process is (releases may be deferred)
	qps_gone
}

# Run xib_qpmem_test ARGS... in the memory cgroup $cg.  In the initial
# namespace (devices open from any in the default shared mode): ip netns
# exec mounts a sysfs of its own, without /sys/fs/cgroup.
qpmem() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cg" "$C/xib_qpmem_test" "$@"
}

@test "a memory cgroup pays for QPs in proportion to their size and bounds them: ENOMEM, nothing left" {
	local small big out
	cg=/sys/fs/cgroup/xib-qpmem
	grep -qw memory /sys/fs/cgroup/cgroup.controllers
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	rmdir "$cg" 2>/dev/null || true
	mkdir "$cg"
	# one QP of 16384 send WQEs: with one SGE, and with the device's
	# largest SGE list and inline size.  Rings and the requester's copies
	# are charged to the creator; a one-SGE QP's copies are sized for one
	# SGE (they were sized for the device's 32 SGEs, which made it cost
	# half of the largest QP: 12 of 26 MiB)
	run qpmem -d "$dev0" -w 16384 -s 1 -i 0
	echo "$output"
	[ "$status" -eq 0 ]
	small=$(awk '$1 == "qp_bytes" { print $2 }' <<<"$output")
	[ "$(awk '$1 == "left_bytes" { print $2 }' <<<"$output")" -lt $((1 << 20)) ]
	run qpmem -d "$dev0" -w 16384 -s 32 -i 512
	echo "$output"
	[ "$status" -eq 0 ]
	big=$(awk '$1 == "qp_bytes" { print $2 }' <<<"$output")
	echo "# one QP of 16384 WQEs: 1 SGE $((small >> 10)) KiB, 32 SGEs/512 B inline $((big >> 10)) KiB" >&3
	# at least the send ring (16384 slots of 128 bytes) is charged
	[ "$small" -ge $((2 << 20)) ]
	[ $((small * 3)) -lt "$big" ]
	# 40 MiB hold a few such QPs; the next creation fails with ENOMEM (no
	# OOM kill: the allocations may fail), and everything is freed
	echo $((40 << 20)) >"$cg/memory.max"
	run qpmem -d "$dev0" -w 16384 -s 32 -i 512 -n 64
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"errno 12"* ]]
	[[ "$output" == *destroyed* ]]
	[ "$(awk '$1 == "created" { print $2 }' <<<"$output")" -ge 1 ]
	[ "$(awk '$1 == "oom_kill" { print $2 }' "$cg/memory.events")" -eq 0 ]
	out=$(inA xibctl res show xib0)
	grep -qE ' qp 0( |$)' <<<"$out"
	rmdir "$cg"
}

# The debug kernel's KASAN and kmemleak make 16384 creations slow there;
# its other cases drive the same create and destroy paths.
# bats test_tags=stock-only
@test "16384 QPs on one device in one context: xibctl res counts them, then none" {
	local res=$BATS_TEST_TMPDIR/res out
	cg=/sys/fs/cgroup/xib-qpmany
	grep -qw memory /sys/fs/cgroup/cgroup.controllers
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	rmdir "$cg" 2>/dev/null || true
	mkdir "$cg"
	# the device and a context allow 16384 QPs (the device's max_qp,
	# max_qp_per_context); small RC QPs all on one pair of CQs, and
	# xibctl res reads while they exist
	[ "$(inA "${C%/tests/c}/bin/xib-run" ibv_devinfo -v -d xib0 |
		awk -F: '$1 ~ /^[ \t]*max_qp$/ { print $2 + 0 }')" -ge 16384 ]
	run qpmem -d "$dev0" -w 16 -r 16 -s 1 -i 0 -n 16384 \
		-x "ip netns exec xibA xibctl res show xib0 >$res"
	echo "$output"
	cat "$res"
	[ "$status" -eq 0 ]
	[[ "$output" == *"created 16384 errno 0"* ]]
	[[ "$output" == *destroyed* ]]
	grep -qE ' qp 16384( |$)' "$res"
	echo "# 16384 QPs of 16 WRs: $(awk '$1 == "qp_bytes" { print $2 }' <<<"$output") bytes each" >&3
	# all gone once destroyed (releases may be deferred)
	qps_gone
	rmdir "$cg"
}

# Open /dev/xib node $2 for reading and writing in namespace $1 (a context
# is created and dropped); prints the shell's error if it fails.
open_in() {
	ip netns exec "$1" bash -c 'exec 3<>"$1"' _ "$2" 2>&1
}

@test "netns exclusive: a device opens only from its own namespace; only the initial namespace sets it" {
	local bin
	[ "$(xibctl system show)" = "netns shared" ]
	[ "$(xibctl -j system show | jq -r .netns)" = shared ]
	# shared (the default, as ib_core's): any namespace may open any device
	open_in xibA "$dev1"
	# a namespace's admin may not change the mode, nor may nobody
	run inA xibctl system set netns exclusive
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"only the initial network namespace"* ]]
	bin=$(mktemp -d /tmp/xib-sys.XXXXXX)
	chmod 755 "$bin"
	install -m 755 "$(command -v xibctl)" "$bin/"
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$bin/xibctl" system set netns exclusive
	rm -rf "$bin"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Operation not permitted"* ]]
	[ "$(xibctl system show)" = "netns shared" ]
	# exclusive: xib1 (xv1 is in xibB) opens from xibB only
	xibctl system set netns exclusive
	[ "$(xibctl system show)" = "netns exclusive" ]
	run open_in xibA "$dev1"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	open_in xibA "$dev0"
	open_in xibB "$dev1"
	# a program still sees and uses its own namespace's device
	run inA "$C/xib_ud_test" -d "$dev0" -n 1
	echo "$output"
	[ "$status" -eq 0 ]
	# back to shared: the cross-namespace open works again
	xibctl system set netns shared
	open_in xibA "$dev1"
}

# As uid $1 (gid the same, no groups, no capabilities), open each of the
# files $3... for reading and writing and keep them; $2 is "hold" (print
# "READY PID", then sleep as PID until killed) or "once" (exit).  Prints
# the shell's error if an open fails.
as_uid_open() {
	local uid=$1 mode=$2
	shift 2
	setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all \
		bash -c '
		mode=$1; shift
		for f; do exec {fd}<>"$f" || exit 1; done
		[ "$mode" = hold ] || exit 0
		echo "READY $$"; exec sleep 120' _ "$mode" "$@" 2>&1
}

# As uid $2 of user namespace $1 (the pid of a process in it), the rest
# as as_uid_open's.  nsenter enters the user namespace only and takes the
# uid and gid; the capabilities go with the change from root.
as_ns_open() {
	local pid=$1 uid=$2 mode=$3
	shift 3
	nsenter --target "$pid" --user --setuid "$uid" --setgid "$uid" \
		bash -c '
		mode=$1; shift
		for f; do exec {fd}<>"$f" || exit 1; done
		[ "$mode" = hold ] || exit 0
		echo "READY $$"; exec sleep 120' _ "$mode" "$@" 2>&1
}

# Start as_uid_open UID hold FILES... in the background, its output in
# $hold_out; wait until it holds them all.  Sets hold_pid (the holder)
# and hold_job (the background shell, its parent).  hold_with FUNC ARGS:
# the same with another opener (as_ns_open).
hold_as() {
	hold_with as_uid_open "$@"
}

hold_with() {
	hold_out=$(mktemp /tmp/xib-hold.XXXXXX)
	"$@" >"$hold_out" &
	hold_job=$!
	for ((i = 0; i < 100; i++)); do
		hold_pid=$(sed -n 's/^READY \([0-9]*\)$/\1/p' "$hold_out")
		[ -n "$hold_pid" ] && return 0
		kill -0 "$hold_job" 2>/dev/null || break
		sleep 0.1
	done
	cat "$hold_out"
	return 1
}

# Kill the holder; when its parent has reaped it, its files are closed.
hold_end() {
	[ -z "${hold_pid:-}" ] || kill "$hold_pid" 2>/dev/null || true
	wait "$hold_job" 2>/dev/null || true
	rm -f "$hold_out"
	hold_pid= hold_job=
}

@test "per-user limits: a uid's user contexts and RDMA CM channels stop at the limit (EMFILE); other uids and CAP_SYS_RESOURCE still open; the count returns" {
	local pc=/sys/module/xib_core/parameters/max_contexts_per_user
	local pm=/sys/module/xib_ucma/parameters/max_channels_per_user
	local cm=/dev/xib/rdma_cm
	[ "$(cat "$pc")" -eq 256 ]
	[ "$(cat "$pm")" -eq 256 ]
	echo 4 >"$pc"
	echo 2 >"$pm"
	# the limit counts a uid's contexts of every device together
	hold_as 65534 hold "$dev0" "$dev0" "$dev1" "$dev1" "$cm" "$cm"
	run as_uid_open 65534 once "$dev1"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$dev1: Too many open files"* ]]
	run as_uid_open 65534 once "$cm"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$cm: Too many open files"* ]]
	# not the process's file limit: the same user opens other files
	as_uid_open 65534 once /dev/null /dev/null /dev/null
	# another uid has counts of its own
	as_uid_open 1 once "$dev0" "$dev0" "$dev0" "$dev0" "$cm" "$cm"
	# a lowered limit keeps what is open; root (CAP_SYS_RESOURCE) goes
	# past it, root without the capability does not
	echo 0 >"$pc"
	echo 0 >"$pm"
	kill -0 "$hold_pid"
	bash -c 'exec 3<>"$1" 4<>"$2"' _ "$dev0" "$cm"
	run setpriv --bounding-set=-sys_resource --inh-caps=-sys_resource bash -c 'exec 3<>"$1"' _ "$dev0"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Too many open files"* ]]
	run setpriv --bounding-set=-sys_resource --inh-caps=-sys_resource bash -c 'exec 3<>"$1"' _ "$cm"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Too many open files"* ]]
	# the holder's death returns its count: it opens as many again
	hold_end
	echo 4 >"$pc"
	echo 2 >"$pm"
	as_uid_open 65534 once "$dev1" "$dev1" "$dev0" "$dev0" "$cm" "$cm"
	run as_uid_open 65534 once "$dev0" "$dev0" "$dev0" "$dev0" "$dev0"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Too many open files"* ]]
	echo 256 >"$pc"
	echo 256 >"$pm"
	# every context is gone (none of xib0 is left)
	inA xibctl res show xib0 | grep -qE ' ctx 0( |$)'
}

# userns_start OWNER FIRST: a user namespace made by uid OWNER (as an
# unprivileged container is), its uids 0-9 mapped by root to FIRST..FIRST+9
# (as newuidmap would from /etc/subuid).  Appends the pid of the process
# that keeps it to userns_pids and sets userns_pid.
userns_pids=()
userns_start() {
	local owner=$1 first=$2 pid i
	setpriv --reuid="$owner" --regid="$owner" --clear-groups --inh-caps=-all \
		unshare --user sleep 300 &
	pid=$!
	userns_pids+=("$pid")
	for ((i = 0; i < 100; i++)); do
		[ "$(readlink "/proc/$pid/ns/user")" != "$(readlink /proc/self/ns/user)" ] &&
			[ "$(readlink "/proc/$pid/exe")" = "$(readlink -f "$(command -v sleep)")" ] && break
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.1
	done
	echo "0 $first 10" >"/proc/$pid/uid_map"
	echo "0 $first 10" >"/proc/$pid/gid_map"
	userns_pid=$pid
}

userns_end() {
	local p
	for p in "${userns_pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	userns_pids=()
}

@test "per-user limits in user namespaces: a container's uids together stop at its owner's limit; another owner's container is not affected; the counts return" {
	local pc=/sys/module/xib_core/parameters/max_contexts_per_user
	local pm=/sys/module/xib_ucma/parameters/max_channels_per_user
	local cm=/dev/xib/rdma_cm c1 c2
	command -v nsenter >/dev/null || skip "nsenter not installed"
	# an unprivileged user may make a user namespace (Debian's default)
	[ "$(cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null || echo 1)" = 1 ]
	echo 3 >"$pc"
	echo 2 >"$pm"
	# container c1 of uid 65534 (uids 200000-200009), c2 of uid 1
	userns_start 65534 200000
	c1=$userns_pid
	userns_start 1 300000
	c2=$userns_pid
	[ "$(nsenter --target "$c1" --user --setuid 1 --setgid 1 id -u)" = 1 ]
	# c1's uid 1 holds two contexts and a channel
	hold_with as_ns_open "$c1" 1 hold "$dev0" "$dev1" "$cm"
	# c1's uid 2, which holds nothing, gets one more, not two: the
	# owner's count (65534 in the initial namespace) is at the limit
	as_ns_open "$c1" 2 once "$dev0"
	as_ns_open "$c1" 2 once "$cm"
	run as_ns_open "$c1" 2 once "$dev0" "$dev0"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$dev0: Too many open files"* ]]
	run as_ns_open "$c1" 2 once "$cm" "$cm"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$cm: Too many open files"* ]]
	# the owner itself shares that count
	as_uid_open 65534 once "$dev0"
	run as_uid_open 65534 once "$dev0" "$dev1"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Too many open files"* ]]
	# c2 (another owner) and its owner are not affected, up to the limit
	as_ns_open "$c2" 1 once "$dev0" "$dev0" "$dev1" "$cm" "$cm"
	run as_ns_open "$c2" 1 once "$dev0" "$dev0" "$dev1" "$dev1"
	[ "$status" -eq 1 ]
	as_uid_open 1 once "$dev0" "$dev0" "$dev1" "$cm" "$cm"
	# the holder's death returns its counts at both levels
	hold_end
	as_ns_open "$c1" 2 once "$dev0" "$dev0" "$dev1" "$cm" "$cm"
	as_uid_open 65534 once "$dev0" "$dev0" "$dev1" "$cm" "$cm"
	# the namespaces go with their charges dropped; nothing is left
	userns_end
	echo 256 >"$pc"
	echo 256 >"$pm"
	inA xibctl res show xib0 | grep -qE ' ctx 0( |$)'
	inB xibctl res show xib1 | grep -qE ' ctx 0( |$)'
}

@test "a user namespace's root cannot create or delete devices" {
	command -v unshare >/dev/null || skip "unshare not installed"
	# root of a new user namespace (and network namespace) has
	# CAP_NET_ADMIN there, but a device costs the host a thread and a
	# socket: link add needs the initial user namespace's
	run unshare --user --map-root-user --net xibctl link add xibu netdev lo
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Operation not permitted"* ]]
	run inA unshare --user --map-root-user xibctl link del xib0
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"Operation not permitted"* ]]
	inA xibctl dev show xib0
}
