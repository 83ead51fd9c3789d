#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# profile.sh   (runs inside the stock test VM: from bench.sh, or alone:
#               tests/vm/vm-test --kernel stock sh:tests/bench/profile.sh)
#
# xib_hca's in-module profile (debugfs xib_hca/<device>[:<index>]/profile,
# Documentation/counters.rst) of three stock perftest runs with server and
# client on one xib device, through xib-run:
#   ib_write_bw -s 65536, ib_send_bw -s 64, ib_send_lat -s 2
# The profile is switched on, reset before each run and written after it
# to $XIB_OUT/profile-TOOL.txt, and printed as "profile: TOOL" with the
# tool's result line and that of the same run with the profile off just
# before (the profile's own cost; the quick smoke skips that run).  The switch is left as it was found.
#
# Alone, it sets up its own device (xibp0 on a veth in namespace xpA,
# 10.214.0.1); bench.sh passes its xib-loop device instead:
# XIB_PROFILE_NS, XIB_PROFILE_DEV, XIB_PROFILE_ADDR.  XIB_BENCH_QUICK=1:
# few iterations (the smoke run; the figures mean nothing).
# A measurement, not a test: exits 1 only if a run or the profile failed.
set -uo pipefail

root=${XIB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${XIB_BUILD:-$root/build}
xibrun=$build/bin/xib-run
outdir=${XIB_OUT:-$(mktemp -d)}
quick=${XIB_BENCH_QUICK:-0}
ns=${XIB_PROFILE_NS:-}
dev=${XIB_PROFILE_DEV:-}
addr=${XIB_PROFILE_ADDR:-}
param=/sys/module/xib_hca/parameters/profile
status=0
own=0

# shellcheck source=tests/bats/helpers.bash
. "$root/tests/bats/helpers.bash"
# shellcheck source=tests/bats/xib-apps.bash
. "$root/tests/bats/xib-apps.bash"

[ -x "$xibrun" ] || { echo "profile: $xibrun not built (make userspace)" >&2; exit 2; }

cleanup() {
	[ -n "${was:-}" ] && echo "$was" >"$param" 2>/dev/null
	if [ "$own" = 1 ]; then
		ip netns del xpA 2>/dev/null
		xib-modules unload >/dev/null 2>&1
	fi
}
trap cleanup EXIT

if [ -z "$ns" ]; then
	own=1
	ns=xpA dev=xibp0 addr=10.214.0.1
	xib-modules load || exit 1
	ip netns add xpA || exit 1
	ip link add xpv0 netns xpA type veth peer name xpv1 netns xpA
	ip -n xpA addr add 10.214.0.1/24 dev xpv0
	for l in lo xpv0 xpv1; do
		ip -n xpA link set "$l" up
	done
	ip netns exec xpA xibctl link add xibp0 netdev xpv0 || exit 1
	xib_gid_index xpA xibp0 10.214.0.1 >/dev/null || exit 1
fi

mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug
prof=$(xib_prof_file "$ns" "$dev")
[ -w "$prof" ] || { echo "profile: no $prof" >&2; exit 1; }
was=$(cat "$param")
echo on >"$prof" || exit 1

# pair TOOL SIZE ITERS OUT: one server/client pair on $dev; the client's
# output in OUT.cli, the server's in OUT.srv.
pair() {
	local spid
	timeout 300 ip netns exec "$ns" "$xibrun" "$1" -d "$dev" -F -s "$2" -n "$3" \
		>"$4.srv" 2>&1 &
	spid=$!
	if xib_wait_listen "$ns" 18515 20 "$spid"; then
		timeout 300 ip netns exec "$ns" "$xibrun" "$1" -d "$dev" -F -s "$2" \
			-n "$3" "$addr" >"$4.cli" 2>&1
	fi
	wait "$spid"
}

# result SIZE FILE: the result line of a perftest client's output.
result() {
	awk -v s="$1" '$1 == s && NF >= 5 && $2 ~ /^[0-9]+$/ { l = $0 } END { print l }' \
		"$2" 2>/dev/null
}

# run TOOL SIZE ITERS: the pair with the profile off (for the figure the
# profile's own cost changes; not in the quick smoke, where the figures
# mean nothing), then on, reset before and dumped after.
run() {
	local tool=$1 size=$2 iters=$3 out=$outdir/profile-$1 line off="not run (quick)"
	if [ "$quick" != 1 ]; then
		echo off >"$prof"
		pair "$tool" "$size" "$iters" "$out.off"
		off=$(result "$size" "$out.off.cli")
		off=${off:-failed}
	fi
	echo on >"$prof"
	echo 0 >"$prof"
	pair "$tool" "$size" "$iters" "$out"
	cat "$prof" >"$out.txt"
	line=$(result "$size" "$out.cli")
	echo ""
	echo "profile: $tool -s $size -n $iters ($dev, server and client on it)"
	if [ -z "$line" ]; then
		echo "--- $tool failed:"
		tail -n 20 "$out.cli" "$out.srv" 2>/dev/null
		status=1
	else
		awk '/^ *#bytes/ { print; exit }' "$out.cli"
		echo "$line"
		echo "$off   (profile off)"
	fi
	cat "$out.txt"
}

if [ "$quick" = 1 ]; then
	run ib_write_bw 65536 100
	run ib_send_bw 64 200
	run ib_send_lat 2 100
else
	run ib_write_bw 65536 1000
	run ib_send_bw 64 5000
	run ib_send_lat 2 1000
fi
exit $status
