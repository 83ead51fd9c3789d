#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# xibctl's command line, on the build machine (no xib modules needed).

setup() {
	XIBCTL=${XIBCTL:-$BATS_TEST_DIRNAME/../../../build/userspace/xibctl}
	[ -x "$XIBCTL" ]
}

@test "--help prints the usage on stdout and exits 0" {
	run "$XIBCTL" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"xibctl link add NAME netdev IFNAME"* ]]
	[[ "$output" == *"xibctl dev [show [NAME]]"* ]]
}

@test "no arguments prints the usage and exits 2" {
	run "$XIBCTL"
	[ "$status" -eq 2 ]
	[[ "$output" == *"Usage: xibctl"* ]]
}

@test "usage errors exit 2 and name the problem" {
	run "$XIBCTL" frobnicate
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown object 'frobnicate'"* ]]
	run "$XIBCTL" --bogus dev
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown option '--bogus'"* ]]
	run "$XIBCTL" link add xib0
	[ "$status" -eq 2 ]
	[[ "$output" == *"'netdev IFNAME' is required"* ]]
	run "$XIBCTL" link add xib0 netdev
	[ "$status" -eq 2 ]
	[[ "$output" == *"'netdev' needs a value"* ]]
	run "$XIBCTL" link add xib0 netdev eth0 colour blue
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown link add option 'colour'"* ]]
	run "$XIBCTL" link add "$(printf 'x%.0s' {1..64})" netdev eth0
	[ "$status" -eq 2 ]
	[[ "$output" == *"invalid device name"* ]]
	run "$XIBCTL" link del
	[ "$status" -eq 2 ]
	run "$XIBCTL" dev show a b
	[ "$status" -eq 2 ]
	[[ "$output" == *"unexpected argument 'b'"* ]]
}

@test "--help lists every res show object, filter and option" {
	run "$XIBCTL" --help
	[ "$status" -eq 0 ]
	for obj in qp cq mr mw pd srq ah ctx cm_id; do
		[[ "$output" == *"  $obj  "* ]] || { echo "no $obj"; return 1; }
	done
	[[ "$output" == *"xibctl res show OBJECT [FILTER...]"* ]]
	[[ "$output" == *"dev NAME, pid PID"* ]]
	[[ "$output" == *"-d, --details"* ]]
}

@test "res show OBJECT: a bad filter is one line naming it, exit 2" {
	local args
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		run "$XIBCTL" res show $args
		[ "$status" -eq 2 ] || { echo "$args: status $status"; return 1; }
		[ "${#lines[@]}" -eq 1 ] || { echo "$args: $output"; return 1; }
		[[ "$output" == *"$want"* ]] || { echo "$args: $output"; return 1; }
	done <<'CASES'
qp colour blue|res show qp: unknown filter 'colour'
cq qpn 5|res show cq: unknown filter 'qpn'
mr state RTS|res show mr: unknown filter 'state'
qp qpn|res show qp: 'qpn' needs a value
qp qpn 0x1000000|invalid qpn '0x1000000'
qp qpn -1|invalid qpn '-1'
qp qpn 12abc|invalid qpn '12abc'
qp pid 0|invalid pid '0'
qp pid x|invalid pid 'x'
qp type XRC|invalid type 'XRC'
qp state SLEEPY|invalid state 'SLEEPY'
pd dev|'dev' needs a value
mw state bound|res show mw: unknown filter 'state'
cm_id qpn 5|res show cm_id: unknown filter 'qpn'
cm_id state RTS|invalid state 'RTS'
cm_id ps SCTP|invalid ps 'SCTP'
qp ps TCP|res show qp: unknown filter 'ps'
CASES
}

@test "without xib_core, commands say the module is missing and exit 1" {
	if genl ctrl get name xib >/dev/null 2>&1; then
		skip "this machine has the xib family loaded"
	fi
	run "$XIBCTL" dev show
	[ "$status" -eq 1 ]
	[[ "$output" == *"is the xib_core module loaded?"* ]]
}

@test "--help lists statistic show and reset" {
	run "$XIBCTL" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"xibctl statistic [show] [dev NAME] [qp N]"* ]]
	[[ "$output" == *"xibctl statistic reset [dev NAME]"* ]]
	[[ "$output" == *"xibctl trace NAME [qpn N] [-c COUNT] -w FILE"* ]]
	[[ "$output" == *"xibctl system [show]"* ]]
	[[ "$output" == *"xibctl system set netns shared|exclusive"* ]]
}

@test "system: a bad argument is one line naming it, exit 2" {
	local args
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		run "$XIBCTL" system $args
		[ "$status" -eq 2 ] || { echo "$args: status $status"; return 1; }
		[ "${#lines[@]}" -eq 1 ] || { echo "$args: $output"; return 1; }
		[[ "$output" == *"$want"* ]] || { echo "$args: $output"; return 1; }
	done <<'CASES'
frob|system: unknown command 'frob'
show netns|system show: unknown argument 'netns'
set|usage: system set netns shared|exclusive
set netns|usage: system set netns shared|exclusive
set mtu 9000|usage: system set netns shared|exclusive
set netns open|invalid netns mode 'open'
CASES
}

@test "trace: a bad argument is one line naming it, exit 2" {
	local args
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		run "$XIBCTL" trace $args
		[ "$status" -eq 2 ] || { echo "$args: status $status"; return 1; }
		[ "${#lines[@]}" -eq 1 ] || { echo "$args: $output"; return 1; }
		[[ "$output" == *"$want"* ]] || { echo "$args: $output"; return 1; }
	done <<'CASES'
|a device NAME is required
-w f|a device NAME is required
xib0|'-w FILE' is required
xib0 -w|needs a value: '-w'
xib0 qpn x -w f|invalid qpn 'x'
xib0 -c 0 -w f|invalid count '0'
xib0 colour blue -w f|unknown argument 'colour'
CASES
}

@test "statistic: a bad argument is one line naming it, exit 2" {
	local args
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086
		run "$XIBCTL" statistic $args
		[ "$status" -eq 2 ] || { echo "$args: status $status"; return 1; }
		[ "${#lines[@]}" -eq 1 ] || { echo "$args: $output"; return 1; }
		[[ "$output" == *"$want"* ]] || { echo "$args: $output"; return 1; }
	done <<'CASES'
show colour blue|statistic show: unknown argument 'colour'
reset qp 5|statistic reset: unknown argument 'qp'
show dev|'dev' needs a value
show qp 0x1000000|invalid qp '0x1000000'
show qp -3|invalid qp '-3'
dev x qp many|invalid qp 'many'
CASES
}

# Complete the words "$@" (the last one being completed) with xibctl's
# bash completion; the candidates in $output, one per line.
complete_words() {
	run bash -c '
		xibctl() { echo "[{\"index\":1,\"name\":\"xib0\"},{\"index\":2,\"name\":\"xib1\"}]"; }
		source "$1"; shift
		COMP_WORDS=(xibctl "$@"); COMP_CWORD=$#
		_xibctl; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$BATS_TEST_DIRNAME/../../../userspace/xibctl/xibctl.bash-completion" "$@"
}

@test "bash completion: objects, commands, filters and device names" {
	complete_words ""
	for w in dev link port res statistic --json; do
		[[ "$output" == *"$w"* ]] || { echo "no $w: $output"; return 1; }
	done
	complete_words statistic ""
	[[ "$output" == *reset* && "$output" == *show* ]]
	complete_words res show ""
	[[ "$output" == *qp* && "$output" == *ctx* && "$output" == *xib1* ]]
	[[ "$output" == *mw* && "$output" == *cm_id* ]]
	complete_words res show qp st
	[ "$output" = state ]
	complete_words res show qp state R
	[ "$(echo $output)" = "RESET RTR RTS" ]
	complete_words res show cm_id state L
	[ "$output" = LISTEN ]
	complete_words res show cm_id ps ""
	[ "$(echo $output)" = "TCP UDP IPOIB IB" ]
	complete_words res show cm_id p
	[ "$(echo $output)" = "pid ps" ]
	complete_words statistic show dev """"
	[ "$(echo $output)" = "xib0 xib1" ]
	complete_words system set netns ""
	[ "$(echo $output)" = "shared exclusive" ]
	complete_words trace ""
	[ "$(echo $output)" = "xib0 xib1" ]
}
