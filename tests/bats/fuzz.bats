#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The fuzzers of issue 12 (Documentation/security.rst, "Fuzzers"), in
# bounded runs: the gate's about a minute per kernel; make soak runs long
# ones (XIB_FUZZ_ABI_OPS, XIB_FUZZ_PKTS override the volumes, XIB_FUZZ_SEED
# the seed; the seed of a failing run is in its output):
# - xib_abi_fuzz: random command sequences on /dev/xib/uverbsN and
#   /dev/xib/rdma_cm, several threads on one file, fork, close racing
#   commands, mmap of every offset, rings scribbled while the engine runs;
#   as root and as nobody; the device works afterwards;
# - xib_pkt_fuzz: crafted and mutated RoCEv2 packets from a third
#   namespace while a checked transfer runs; the data arrive intact, and
#   the drop counters grow by at least the packets that must be dropped,
#   the bad-ICRC ones exactly.
# The harness fails the run on any KASAN, lockdep, kmemleak or WARN report.
#
# Topology, made once for the file: xibA (xv0 10.211.0.1, xib0) and xibB
# (xv1 10.211.0.2, xib1) joined by a veth pair; xibC joined to each by
# another pair (10.215.1.0/24 to xibA, 10.215.2.0/24 to xibB), its routes
# to B through A and to A through B, so that what it sends arrives on
# xv1 and xv0, the devices' interfaces.  10.211.0.3 is nobody's.

load helpers

C=${XIB_BUILD:-${XIB_ROOT:-.}/build}/tests/c

setup_file() {
	xib_require_vm
	xib-modules load
	xib_ns_pair xibA xibB xv0 xv1 10.211.0.1/24 10.211.0.2/24
	printf 'netns add xibC\nlink add xc0 netns xibC type veth peer name xa1 netns xibA\nlink add xc1 netns xibC type veth peer name xb1 netns xibB\n' |
		ip -batch -
	printf 'addr add 10.215.1.2/24 dev xc0\naddr add 10.215.2.2/24 dev xc1\nlink set lo up\nlink set xc0 up\nlink set xc1 up\nroute add 10.211.0.2/32 via 10.215.1.1\nroute add 10.211.0.1/32 via 10.215.2.1\n' |
		ip -n xibC -batch -
	printf 'addr add 10.215.1.1/24 dev xa1\nlink set xa1 up\n' | ip -n xibA -batch -
	printf 'addr add 10.215.2.1/24 dev xb1\nlink set xb1 up\n' | ip -n xibB -batch -
	# forward what xibC sends, whatever its source (the peer's own
	# address included)
	for ns in xibA xibB; do
		ip netns exec $ns sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward
			for c in /proc/sys/net/ipv4/conf/*/rp_filter; do echo 0 > $c; done
			for c in /proc/sys/net/ipv4/conf/*/accept_local; do echo 1 > $c; done'
	done
	inA xibctl link add xib0 netdev xv0
	inB xibctl link add xib1 netdev xv1
}

teardown_file() {
	xib_ns_del xibA xibB xibC
	xib_wait_gone xib0 xib1
	xib-modules unload
}

setup() {
	xib_require_vm
	[ -x "$C/xib_abi_fuzz" ] || skip "tests/c not built (make userspace)"
	dev0=$(uverbs_in xibA xib0)
	dev1=$(uverbs_in xibB xib1)
	SEED=${XIB_FUZZ_SEED:-$((0x5eed))}
	ABI_OPS=${XIB_FUZZ_ABI_OPS:-100000}
	PKTS=${XIB_FUZZ_PKTS:-100000}
	if [ "${XIB_KERNEL:-}" = debug ]; then
		ABI_OPS=${XIB_FUZZ_ABI_OPS:-30000}
		PKTS=${XIB_FUZZ_PKTS:-20000}
	fi
}

# The sum of a device's receive drop counters.
drops() {
	ip netns exec "$1" xibctl -j statistic show dev "$2" |
		jq -e '.[0] | to_entries | map(select(.key | test("^rx_(icrc_errors|malformed|drop_)")) | .value) | add'
}

icrc_errors() {
	ip netns exec "$1" xibctl -j statistic show dev "$2" | jq -e '.[0].rx_icrc_errors'
}

abi_fuzz() {
	run inA "$@" "$C/xib_abi_fuzz" -d "$dev0" -r /dev/xib/rdma_cm -s "$SEED" -n "$ABI_OPS"
	echo "$output"
	grep -v 'unexpected errno' <<<"$output" | sed 's/^/# /' >&3
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
	[[ "$output" == *"ok - the device still works"* ]]
	# every command of the table was tried
	[ "$(grep -cE '^(CM )?[A-Z_]+ +[0-9]+ +[0-9]+$' <<<"$output")" -ge 40 ]
	# nothing is left behind: no object of xib0 in any context
	no_objects xibA xib0
}

# Wait (at most 10 s) until device $2 in namespace $1 has no context and
# no object left.
no_objects() {
	local i o n
	for ((i = 0; i < 100; i++)); do
		n=0
		for o in ctx qp cq srq ah mr pd; do
			n=$((n + $(ip netns exec "$1" xibctl -j res show "$o" dev "$2" | jq length)))
		done
		[ "$n" -eq 0 ] && return 0
		sleep 0.1
	done
	for o in ctx qp cq srq ah mr pd; do
		ip netns exec "$1" xibctl res show "$o" dev "$2"
	done
	return 1
}

@test "ABI fuzzer as root: uverbs and rdma_cm commands, fork, close races, mmap, scribbled rings" {
	abi_fuzz
}

@test "ABI fuzzer as nobody" {
	command -v setpriv >/dev/null || skip "setpriv not installed"
	abi_fuzz setpriv --reuid=65534 --regid=65534 --clear-groups
}

@test "packet fuzzer: every opcode, bad lengths, P_Keys, QPNs, ICRCs from a third namespace; transfer intact, drops counted" {
	inA xibctl statistic reset dev xib0
	inB xibctl statistic reset dev xib1
	run inA "$C/xib_pkt_fuzz" -d "$dev0" -D "$dev1" -c /run/netns/xibC -x 10.211.0.3 \
		-s "$SEED" -n "$PKTS"
	echo "$output"
	sed 's/^/# /' <<<"$output" >&3
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
	read -r mA iA < <(sed -n 's/^to A: must-drop \([0-9]*\) icrc \([0-9]*\)$/\1 \2/p' <<<"$output")
	read -r mB iB < <(sed -n 's/^to B: must-drop \([0-9]*\) icrc \([0-9]*\)$/\1 \2/p' <<<"$output")
	(( mA > 0 && mB > 0 && iA > 0 && iB > 0 ))
	dA=$(drops xibA xib0)
	dB=$(drops xibB xib1)
	cA=$(icrc_errors xibA xib0)
	cB=$(icrc_errors xibB xib1)
	echo "# xib0: drops $dA (must $mA), ICRC errors $cA (sent $iA)" >&3
	echo "# xib1: drops $dB (must $mB), ICRC errors $cB (sent $iB)" >&3
	[ "$cA" -eq "$iA" ]
	[ "$cB" -eq "$iB" ]
	[ "$dA" -ge "$mA" ]
	[ "$dB" -ge "$mB" ]
}
