#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Per-object resource dumps: xibctl res show qp|cq|mr|pd|srq|ah|ctx against
# the objects tests/c/xib_res_test creates and holds (17 QPs in known
# states, and a few of every other type): the numbers, the owner, -j,
# the filters, who sees what, and the dump emptying when the owner dies.
# No traffic: one device in the initial namespace, cheap on both kernels.

load helpers

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
	for p in "$bg_pid" "$bg2_pid"; do
		[ -n "$p" ] || continue
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$bin"
	ip link del xv0 2>/dev/null || true
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
	[[ "$output" == "dev xib0 ctxn "*" pd 2 mr 2 cq 2 qp 17 srq 1 ah 1 pid $bg_pid comm xib_res_test" ]]
}

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
