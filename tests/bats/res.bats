#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Per-object resource dumps: xibctl res show qp|cq|mr|pd|srq|ah|ctx against
# the objects tests/c/xib_res_test creates and holds (17 QPs in known
# states, and a few of every other type): the numbers, the owner, -j,
# the filters, who sees what, and the dump emptying when the owner dies.
# No traffic: one device in the initial namespace.  In the gate each test
# runs in one kernel (tests/check.sh): the dumps of every object type,
# the dump spread over several buffers, the cm_ids and the dump emptying
# as the owner dies in the debug kernel alone (debug-only: KASAN, lockdep
# and kmemleak watch the walks over live objects); what the numbers,
# filters and owners say in the stock kernel (stock-only).

load helpers
load xib-apps

C=${XIB_BUILD:-${XIB_ROOT:-.}/build}/tests/c

setup_file() {
	xib_require_vm
	xib-modules load
}

teardown_file() {
	xib-modules unload
}

setup() {
	xib_require_vm
	[ -x "$C/xib_res_test" ] || skip "tests/c not built (make userspace)"
	bg_pid=
	bg2_pid=
	bg3_pid=
	xib_modules_loaded || xib-modules load
	xib_veth xv0 xv1
	xibctl link add xib0 netdev xv0
	dev0=
	for d in /sys/class/xib/xib0/uverbs* /sys/class/xib/xib0/*/uverbs*; do
		[ -e "$d" ] && dev0=/dev/xib/${d##*/}
	done
	[ -c "$dev0" ]
	# a copy every user may run, for the unprivileged tests
	bin=$(mktemp -d /tmp/xib-res.XXXXXX)
	chmod 755 "$bin"
	install -m 755 "$C/xib_res_test" "$(command -v xibctl)" "$bin/"
}

teardown() {
	local p
	for p in "$bg_pid" "$bg2_pid" "$bg3_pid"; do
		[ -n "$p" ] || continue
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$bin"
	ip link del xv0 2>/dev/null || true
	xib_ns_del xresA xresB
	xib_wait_no_devices
}

# Wait (at most $2 s) until file $1 has a line READY; process $3 must live.
wait_ready() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		grep -q '^READY' "$1" 2>/dev/null && return 0
		kill -0 "$3" 2>/dev/null || { cat "$1"; return 1; }
		sleep 0.1
	done
	echo "not READY within $2 s" >&2
	cat "$1" >&2
	return 1
}

# Start xib_res_test as root; its listing in $out, its pid in $bg_pid.
start_holder() {
	out=$BATS_TEST_TMPDIR/out
	"$bin/xib_res_test" -d "$dev0" >"$out" 2>&1 &
	bg_pid=$!
	wait_ready "$out" 60 "$bg_pid"
}

# Lines of the listing $1 of kind $2, without the kind.
listed() {
	awk -v k="$2" '$1 == k { $1 = ""; sub(/^ /, ""); print }' "$1"
}

# bats test_tags=stock-only
@test "res show qp: exactly the 17 QPs, with type, state, owner pid and comm" {
	start_holder
	run xibctl res show qp
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 17 ]
	while read -r qpn type state _; do
		[[ "$output" == *"dev xib0 lqpn $qpn "*"type $type state $state "*"pid $bg_pid comm xib_res_test"* ]] ||
			{ echo "missing: qp $qpn $type $state"; return 1; }
	done < <(listed "$out" qp)
	# the same set, state by state, from the JSON
	run xibctl -j -d res show qp
	[ "$status" -eq 0 ]
	diff <(listed "$out" qp | awk '{ print $1, $2, $3, $4 }' | sort) \
		<(jq -r '.[] | "\(.lqpn) \(.type) \(.state) \(.["rq-wrs"])"' <<<"$output" | sort)
	# every QP is the holder's; RC PSNs as set (0x123), nothing retransmitted
	[ "$(jq "[.[] | select(.pid == $bg_pid and .comm == \"xib_res_test\")] | length" <<<"$output")" -eq 17 ]
	[ "$(jq '[.[] | select(.type == "RC" and (.state == "RTR" or .state == "RTS") and .["rq-psn"] == 291)] | length' <<<"$output")" -eq 5 ]
	[ "$(jq '[.[] | select(.type == "RC" and .state == "RTS" and .["sq-psn"] == 291)] | length' <<<"$output")" -eq 3 ]
	[ "$(jq '[.[] | select(.retransmits == 0 and .["rnr-naks"] == 0 and .["sq-wrs"] == 0)] | length' <<<"$output")" -eq 17 ]
	# connected QPs past RTR name their destination (here: themselves)
	[ "$(jq '[.[] | select(.type == "RC" and .rqpn == .lqpn)] | length' <<<"$output")" -eq 5 ]
	[ "$(jq '[.[] | select(.rqpn != null)] | length' <<<"$output")" -eq 5 ]
	# CQ numbers the QPs use are the holder's CQs
	cqs=$(listed "$out" cq | awk '{ print $1 }' | sort -n | tr '\n' ' ')
	[ "$(jq -r '[.[] | .scqn, .rcqn] | unique | map(tostring) | join(" ")' <<<"$output") " = "$cqs" ]
}

# bats test_tags=debug-only
@test "res show cq|mr|pd|srq|ah|ctx: -j numbers match what the owner created" {
	start_holder
	run xibctl -j -d res show cq
	[ "$status" -eq 0 ]
	diff <(listed "$out" cq | sort) \
		<(jq -r '.[] | "\(.cqn) \(.cqe)"' <<<"$output" | sort)
	# every QP uses both CQs; no completions are waiting
	[ "$(jq '[.[] | select(.users == 17 and .fill == 0 and .pid > 0)] | length' <<<"$output")" -eq 2 ]

	run xibctl -j -d res show mr
	[ "$status" -eq 0 ]
	diff <(listed "$out" mr | sort) \
		<(jq -r '.[] | "\(.lkey) \(.rkey) \(.mrlen)"' <<<"$output" | sort)
	[ "$(jq -r '[.[] | .access] | sort | join(" ")' <<<"$output")" = \
		"local_write local_write,remote_write,remote_read" ]

	run xibctl -j res show pd
	[ "$status" -eq 0 ]
	diff <(listed "$out" pd | sort) <(jq -r '.[] | "\(.pdn)"' <<<"$output" | sort)
	# the first PD: 17 QPs, an MR, the SRQ and the AH; the second: an MR
	[ "$(jq -r '[.[] | .users] | sort | map(tostring) | join(" ")' <<<"$output")" = "1 20" ]

	run xibctl -j res show srq
	[ "$status" -eq 0 ]
	diff <(listed "$out" srq) <(jq -r '.[] | "\(.srqn) \(.["max-wr"]) \(.limit)"' <<<"$output")

	run xibctl -j res show ah
	[ "$status" -eq 0 ]
	diff <(listed "$out" ah) <(jq -r '.[] | "\(.ahn)"' <<<"$output")
	[ "$(jq -r '.[0].dgid' <<<"$output")" != null ]

	run xibctl -j res show ctx
	[ "$status" -eq 0 ]
	echo "$output"
	[ "$(jq -c '[.[] | [.pid, .comm, .pd, .mr, .cq, .qp, .srq, .ah]]' <<<"$output")" = \
		"[[$bg_pid,\"xib_res_test\",2,2,2,17,1,1]]" ]
	# text form of one object
	run xibctl res show ctx
	[[ "$output" == "dev xib0 ctxn "*" pd 2 mr 2 cq 2 qp 17 srq 1 ah 1 mw 0 xrcd 0 pid $bg_pid comm xib_res_test" ]]
}

# bats test_tags=stock-only
@test "res show qp filters: dev, qpn, pid, type, state" {
	start_holder
	qpn=$(listed "$out" qp | awk 'NR == 4 { print $1 }')
	count() {
		run xibctl res show qp "$@"
		[ "$status" -eq 0 ] || { echo "$output"; return 1; }
		[ -n "$output" ] || { echo 0; return 0; }
		echo "${#lines[@]}"
	}
	[ "$(count dev xib0)" -eq 17 ]
	[ "$(count qpn "$qpn")" -eq 1 ]
	run xibctl res show qp qpn "$qpn"
	[[ "$output" == *"lqpn $qpn type RC state INIT "* ]]
	[ "$(count qpn 1)" -eq 0 ]
	[ "$(count pid "$bg_pid")" -eq 17 ]
	[ "$(count pid 1)" -eq 0 ]
	[ "$(count type UD)" -eq 7 ]
	[ "$(count type rc)" -eq 10 ]
	[ "$(count state RTS)" -eq 6 ]
	[ "$(count state RESET)" -eq 5 ]
	[ "$(count type RC state RTR dev xib0 pid "$bg_pid")" -eq 2 ]
	[ "$(count type UC)" -eq 0 ]
	[ "$(xibctl res show cq dev xib0 | wc -l)" -eq 2 ]
	[ "$(xibctl res show mr pid "$bg_pid" | wc -l)" -eq 2 ]

	run xibctl res show qp dev nosuch
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"no such xib device"* ]]
	run xibctl res show qp state SLEEPY
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"invalid state 'SLEEPY'"* ]]
	run xibctl res show cq qpn 5
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown filter 'qpn'"* ]]
}

# bats test_tags=stock-only
@test "res show: a user sees only its own objects and no MR keys; other pid namespaces hide owners" {
	start_holder
	# a second holder, run by nobody (its rings and MRs are locked memory)
	out2=$BATS_TEST_TMPDIR/out2
	prlimit --memlock=unlimited:unlimited setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$bin/xib_res_test" -d "$dev0" >"$out2" 2>&1 &
	bg2_pid=$!
	wait_ready "$out2" 60 "$bg2_pid"

	# root (CAP_NET_ADMIN) sees both, with keys
	run xibctl -j res show qp
	[ "$(jq length <<<"$output")" -eq 34 ]
	run xibctl -j res show mr
	[ "$(jq '[.[] | select(.rkey != null and .lkey != null)] | length' <<<"$output")" -eq 4 ]

	# nobody sees its own 17 QPs, no key, and one context: its own
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin/xibctl" -j -d res show qp
	[ "$status" -eq 0 ]
	[ "$(jq "[.[] | select(.pid == $bg2_pid and .uid == 65534)] | length" <<<"$output")" -eq 17 ]
	[ "$(jq length <<<"$output")" -eq 17 ]
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin/xibctl" -j res show mr
	[ "$(jq length <<<"$output")" -eq 2 ]
	[ "$(jq '[.[] | select(.rkey != null or .lkey != null)] | length' <<<"$output")" -eq 0 ]
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin/xibctl" res show ctx
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"pid $bg2_pid comm xib_res_test"* ]]
	# the per-device counts stay visible to all
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin/xibctl" res show
	[[ "$output" == *" qp 34 "* ]]

	# in a new pid namespace no owner has a pid: nothing shows
	run unshare --pid --fork xibctl res show qp
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# bats test_tags=debug-only
@test "a dump longer than one buffer, over two devices, lists every QP once" {
	start_holder
	xibctl link add xib1 netdev xv1
	dev1=
	for d in /sys/class/xib/xib1/uverbs* /sys/class/xib/xib1/*/uverbs*; do
		[ -e "$d" ] && dev1=/dev/xib/${d##*/}
	done
	out2=$BATS_TEST_TMPDIR/out2
	"$bin/xib_res_test" -d "$dev1" -x 183 >"$out2" 2>&1 &
	bg2_pid=$!
	wait_ready "$out2" 120 "$bg2_pid"
	# about 35 QPs fit in xibctl's 8 KiB buffer: 217 take several rounds
	run xibctl -j res show qp
	[ "$status" -eq 0 ]
	[ "$(jq length <<<"$output")" -eq 217 ]
	diff <(cat <(listed "$out" qp | sed 's/^/xib0 /') <(listed "$out2" qp | sed 's/^/xib1 /') |
		awk '{ print $1, $2 }' | sort) \
		<(jq -r '.[] | "\(.ifname) \(.lqpn)"' <<<"$output" | sort)
	# devices in index order, QPs in number order within each
	[ "$(jq -r '[.[].ifname] | unique | join(" ")' <<<"$output")" = "xib0 xib1" ]
	jq -e '. as $a | [range(1; length) | select($a[. - 1].ifname == $a[.].ifname and
		$a[. - 1].lqpn >= $a[.].lqpn)] | length == 0' <<<"$output"
	[ "$(xibctl res show qp dev xib1 | wc -l)" -eq 200 ]
	[ "$(xibctl res show qp dev xib1 state RESET | wc -l)" -eq 188 ]
}

# bats test_tags=debug-only
@test "res show empties when the owner is killed" {
	start_holder
	[ "$(xibctl res show qp | wc -l)" -eq 17 ]
	kill -9 "$bg_pid"
	wait "$bg_pid" 2>/dev/null || true
	bg_pid=
	for obj in qp cq mr pd srq ah ctx; do
		for ((i = 0; i < 100; i++)); do
			[ -z "$(xibctl res show $obj)" ] && break
			sleep 0.1
		done
		run xibctl res show $obj
		[ "$status" -eq 0 ]
		[ -z "$output" ] || { echo "$obj left: $output"; return 1; }
	done
	run xibctl -j res show qp
	[ "$output" = "[]" ]
}

# bats test_tags=debug-only
@test "res show mw: type, state, bound range and QP; keys to CAP_NET_ADMIN only" {
	out=$BATS_TEST_TMPDIR/out
	"$bin/xib_res_test" -d "$dev0" -w >"$out" 2>&1 &
	bg_pid=$!
	wait_ready "$out" 60 "$bg_pid"
	run xibctl res show mw
	[ "$status" -eq 0 ]
	echo "$output"
	[ "${#lines[@]}" -eq 3 ]
	[[ "$output" == *"dev xib0 rkey 0x"*" type 1 state bound len 8192 pid $bg_pid comm xib_res_test"* ]]
	[[ "$output" == *" type 2 state free pid $bg_pid comm xib_res_test"* ]]
	# every window as the owner printed it: type, state, rkey, QPN, length
	run xibctl -j -d res show mw
	[ "$status" -eq 0 ]
	diff <(listed "$out" mw | sort) \
		<(jq -r '.[] | "\(.type) \(.state) \(.rkey) \(.qpn // 0) \(.len // 0)"' <<<"$output" | sort)
	# bound windows: the MR they are bound to, its range and the rights
	mr3=$(awk '$1 == "mr" { k = $2 } END { print k }' "$out")
	[ "$(jq -r "[.[] | select(.state == \"bound\" and .[\"mr-lkey\"] == \"$mr3\")] | length" <<<"$output")" -eq 2 ]
	[ "$(jq -r '[.[] | select(.type == 1) | .access] | join(" ")' <<<"$output")" = remote_read ]
	[ "$(jq -r '[.[] | select(.type == 2 and .state == "bound") | .access] | join(" ")' <<<"$output")" = \
		remote_write,remote_read ]
	run xibctl res show mw pid "$bg_pid" dev xib0
	[ "${#lines[@]}" -eq 3 ]
	run xibctl res show mw qpn 1
	[ "$status" -eq 2 ]

	# another user sees none of them; its own, but no key
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin/xibctl" res show mw
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	out2=$BATS_TEST_TMPDIR/out2
	prlimit --memlock=unlimited:unlimited setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$bin/xib_res_test" -d "$dev0" -w >"$out2" 2>&1 &
	bg2_pid=$!
	wait_ready "$out2" 60 "$bg2_pid"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin/xibctl" -j -d res show mw
	[ "$status" -eq 0 ]
	[ "$(jq "[.[] | select(.pid == $bg2_pid and .rkey == null and .[\"mr-lkey\"] == null)] | length" <<<"$output")" -eq 3 ]
	[ "$(jq length <<<"$output")" -eq 3 ]
	[ "$(xibctl res show mw | wc -l)" -eq 6 ]

	kill -9 "$bg_pid" "$bg2_pid"
	wait "$bg_pid" "$bg2_pid" 2>/dev/null || true
	bg_pid= bg2_pid=
	for ((i = 0; i < 100; i++)); do
		[ -z "$(xibctl res show mw)" ] && break
		sleep 0.1
	done
	[ -z "$(xibctl res show mw)" ]
}

# rping through xib-run between two namespaces: xresA 10.213.0.1 (xib2),
# xresB 10.213.0.2 (xib3).
cm_topology() {
	xib_ns_pair xresA xresB xc0 xc1 10.213.0.1/24 10.213.0.2/24
	ip netns exec xresA xibctl link add xib2 netdev xc0
	ip netns exec xresB xibctl link add xib3 netdev xc1
	xib_gid_index xresA xib2 10.213.0.1 >/dev/null
	xib_gid_index xresB xib3 10.213.0.2 >/dev/null
}

cm_teardown() {
	local p
	for p in "$@"; do
		[ -n "$p" ] || continue
		kill -CONT "$p" 2>/dev/null || true
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	xib_ns_del xresA xresB
	xib_wait_gone xib2 xib3
}

# Wait (at most $3 s) until "xibctl res show cm_id" in namespace $1 has $2 lines.
wait_cm_ids() {
	local i n
	for ((i = 0; i < $3 * 10; i++)); do
		n=$(ip netns exec "$1" xibctl res show cm_id | wc -l)
		[ "$n" -eq "$2" ] && return 0
		sleep 0.1
	done
	echo "$1: $n cm ids, not $2, after $3 s" >&2
	ip netns exec "$1" xibctl -d res show cm_id >&2
	return 1
}

# bats test_tags=debug-only
@test "res show cm_id: rping's listener, both ends of a connection, who sees them, gone with the owner" {
	xib_apps_require
	cm_topology
	srv=$BATS_TEST_TMPDIR/srv cli=$BATS_TEST_TMPDIR/cli
	ip netns exec xresB "$XR" rping -s -a 10.213.0.2 -C 1000000 -S 64 >"$srv" 2>&1 &
	bg_pid=$!
	wait_cm_listen "$bg_pid" 60 || { cat "$srv"; cm_teardown "$bg_pid"; return 1; }
	run ip netns exec xresB xibctl res show cm_id
	echo "$output"
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == "cm-idn "*" dev xib3 port 1 qp-type RC state LISTEN ps TCP src-addr 10.213.0.2:7174 backlog "*" pid $bg_pid comm rping" ]]
	# ids are per network namespace: none in the initial one, none in xresA
	[ -z "$(xibctl res show cm_id)" ]
	[ -z "$(ip netns exec xresA xibctl res show cm_id)" ]

	# a client, stopped while connected (its pings hold both ends still)
	ip netns exec xresA "$XR" rping -c -a 10.213.0.2 -C 1000000 -S 64 >"$cli" 2>&1 &
	bg2_pid=$!
	for ((i = 0; i < 300; i++)); do
		ip netns exec xresA xibctl res show cm_id state ESTABLISHED | grep -q . && break
		sleep 0.1
	done
	kill -STOP "$bg2_pid"
	wait_cm_ids xresB 2 30
	run ip netns exec xresA xibctl -j res show cm_id
	echo "$output"
	[ "$(jq length <<<"$output")" -eq 1 ]
	[ "$(jq -r '.[0] | "\(.ifname) \(.port) \(.state) \(.ps) \(.["qp-type"]) \(.["src-addr"]) \(.["dst-addr"]) \(.["dst-port"]) \(.pid) \(.comm)"' <<<"$output")" = \
		"xib2 1 ESTABLISHED TCP RC 10.213.0.1 10.213.0.2 7174 $bg2_pid rping" ]
	cport=$(jq '.[0]["src-port"]' <<<"$output")
	cqpn=$(jq '.[0].lqpn' <<<"$output")
	[ "$(ip netns exec xresA xibctl -j res show qp pid "$bg2_pid" | jq "[.[] | select(.lqpn == $cqpn)] | length")" -eq 1 ]
	# the server's end: the listener's owner owns it, it names the client
	run ip netns exec xresB xibctl -j res show cm_id state ESTABLISHED
	[ "$(jq -r '.[0] | "\(.ifname) \(.["src-addr"]):\(.["src-port"]) \(.["dst-addr"]):\(.["dst-port"]) \(.pid) \(.comm) \(.backlog)"' <<<"$output")" = \
		"xib3 10.213.0.2:7174 10.213.0.1:$cport $bg_pid rping null" ]
	sqpn=$(jq '.[0].lqpn' <<<"$output")
	[ "$(ip netns exec xresB xibctl -j res show qp pid "$bg_pid" | jq "[.[] | select(.lqpn == $sqpn and .rqpn == $cqpn)] | length")" -eq 1 ]
	# filters
	[ "$(ip netns exec xresB xibctl res show cm_id ps TCP pid "$bg_pid" dev xib3 | wc -l)" -eq 2 ]
	[ -z "$(ip netns exec xresB xibctl res show cm_id ps UDP)" ]
	[ "$(ip netns exec xresB xibctl res show cm_id state listen | wc -l)" -eq 1 ]
	run ip netns exec xresB xibctl res show cm_id state LISTENING
	[ "$status" -eq 2 ]
	run ip netns exec xresB xibctl res show cm_id dev nosuch
	[ "$status" -eq 1 ]

	# another user sees none of them, but its own listener (bound to no
	# device: IPv6's wildcard address); in another pid namespace, nothing
	mkdir "$bin/lib"
	cp -L "$XIB_BUILD"/lib/xib/lib*.so.1 "$bin/lib/"
	chmod -R a+rX "$bin/lib"
	ip netns exec xresB setpriv --reuid=nobody --regid=nogroup --clear-groups \
		env LD_LIBRARY_PATH="$bin/lib" rping -s -a :: -p 7175 >"$BATS_TEST_TMPDIR/srv3" 2>&1 &
	bg3_pid=$!
	wait_cm_listen "$bg3_pid" 60 || { cat "$BATS_TEST_TMPDIR/srv3"; cm_teardown "$bg_pid" "$bg2_pid" "$bg3_pid"; return 1; }
	run ip netns exec xresB setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin/xibctl" -j -d res show cm_id
	echo "$output"
	[ "$(jq -r '.[] | "\(.ifname) \(.state) \(.["src-addr"]) \(.["src-port"]) \(.pid) \(.uid)"' <<<"$output")" = \
		"null LISTEN :: 7175 $bg3_pid 65534" ]
	run ip netns exec xresB setpriv --reuid=nobody --regid=nogroup --clear-groups "$bin/xibctl" res show cm_id
	[[ "$output" == "cm-idn "*" qp-type RC state LISTEN ps TCP src-addr [::]:7175 backlog "*" pid $bg3_pid comm rping" ]]
	run ip netns exec xresB xibctl res show cm_id
	[ "${#lines[@]}" -eq 3 ]
	[ -z "$(ip netns exec xresB unshare --pid --fork xibctl res show cm_id)" ]

	# the owners killed at once: their ids go (both ends of the
	# connection destroyed together: their DREQs may cross)
	kill -CONT "$bg2_pid"
	kill -9 "$bg_pid" "$bg2_pid" "$bg3_pid"
	wait "$bg_pid" "$bg2_pid" "$bg3_pid" 2>/dev/null || true
	bg_pid= bg2_pid= bg3_pid=
	wait_cm_ids xresB 0 30
	wait_cm_ids xresA 0 30
	cm_teardown
}
