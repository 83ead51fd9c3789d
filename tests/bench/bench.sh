#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# bench.sh   (runs inside the test VM: "make bench")
#
# The same stock perftest binaries on xib and on rdma_rxe, in one boot:
#   loopback  server and client on one device: xib (through xib-run) and
#             rxe (the system libibverbs and its rxe provider)
#   2 ns      xib devices in two network namespaces over a veth pair
#   interop   xib in a namespace against rxe in the initial one
# then the RDMA CM's connection setup with stock cmtime (xib, rxe and
# both directions between them) and the system calls per work request of
# xib's data path (syscalls-per-wr.sh).  Prints one table, the ratios xib/rxe and a bar
# plot of them; a run that fails shows as "fail" and the script exits 1.
# A benchmark, not a test: the numbers are not judged, TCG makes them
# small, only their ratios mean something.
#
# XIB_BENCH_TOOLS overrides the perftest list (default: ib_write_bw
# ib_read_bw ib_send_bw ib_write_lat ib_send_lat ib_read_lat).
# XIB_BENCH_CM_CONNS sets the connections of each cmtime run (default 100).
set -uo pipefail

root=${XIB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${XIB_BUILD:-$root/build}
xibrun=$build/bin/xib-run
tools=${XIB_BENCH_TOOLS:-ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_send_lat ib_read_lat}
# shellcheck source=tests/bats/helpers.bash
. "$root/tests/bats/helpers.bash"

[ -x "$xibrun" ] || { echo "bench: $xibrun not built (make userspace)" >&2; exit 2; }
command -v ib_write_bw >/dev/null || { echo "bench: perftest is not installed" >&2; exit 2; }

status=0
declare -A res

cleanup() {
	ip netns del xbA 2>/dev/null
	ip netns del xbB 2>/dev/null
	ip link del xbr0 2>/dev/null
	rdma link del rxeb0 2>/dev/null
	xib_unload_rxe
	xib-modules unload >/dev/null 2>&1
}
trap cleanup EXIT

# setup: xib0 on xbv0 (ns xbA, 10.212.0.1), xib1 on xbv1 (ns xbB,
# 10.212.0.2); rxeb0 on xbr0 (initial ns, 10.213.0.1) whose peer xbr1
# (ns xbB, 10.213.0.2) carries xib2 for the interop runs.
xib-modules load || exit 1
xib_load_rxe || { echo "bench: cannot load rdma_rxe" >&2; exit 1; }
ip netns add xbA
ip netns add xbB
ip link add xbv0 netns xbA type veth peer name xbv1 netns xbB
ip link add xbr0 type veth peer name xbr1 netns xbB
ip -n xbA addr add 10.212.0.1/24 dev xbv0
ip -n xbB addr add 10.212.0.2/24 dev xbv1
ip addr add 10.213.0.1/24 dev xbr0
ip -n xbB addr add 10.213.0.2/24 dev xbr1
for l in "xbA lo" "xbB lo" "xbA xbv0" "xbB xbv1" "xbB xbr1"; do
	set -- $l
	ip -n "$1" link set "$2" up
done
ip link set xbr0 up
ip netns exec xbA xibctl link add xib0 netdev xbv0 || exit 1
ip netns exec xbB xibctl link add xib1 netdev xbv1 || exit 1
ip netns exec xbB xibctl link add xib2 netdev xbr1 || exit 1
rdma link add rxeb0 type rxe netdev xbr0 || exit 1
sleep 1

# run NAME TOOL SERVER-PREFIX SERVER-DEV CLIENT-PREFIX CLIENT-DEV ADDR
# A prefix is a command (possibly empty) put before the tool: namespace
# and library choice.  Stores the figure in res[NAME,TOOL].
run() {
	local name=$1 tool=$2 sp=$3 sdev=$4 cp=$5 cdev=$6 addr=$7 out spid fig
	out=$(mktemp)
	# shellcheck disable=SC2086
	timeout 300 $sp "$tool" -d "$sdev" -F >"$out.srv" 2>&1 &
	spid=$!
	sleep 2
	# shellcheck disable=SC2086
	timeout 300 $cp "$tool" -d "$cdev" -F "$addr" >"$out" 2>&1
	wait "$spid"
	# the data line: "#bytes #iterations ..." then numbers
	case $tool in
	*_bw) fig=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+/ { v = $4 } END { print v }' "$out") ;;
	*) fig=$(awk '/^ *[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+/ { v = $5 } END { print v }' "$out") ;;
	esac
	if [ -z "$fig" ]; then
		echo "--- $name $tool failed; client:"; cat "$out"
		echo "--- server:"; cat "$out.srv"
		fig=fail
		status=1
	fi
	res[$name,$tool]=$fig
	rm -f "$out" "$out.srv"
}

for t in $tools; do
	run xib-loop "$t" "ip netns exec xbA $xibrun" xib0 "ip netns exec xbA $xibrun" xib0 10.212.0.1
	run rxe-loop "$t" "" rxeb0 "" rxeb0 10.213.0.1
	run xib-2ns "$t" "ip netns exec xbB $xibrun" xib1 "ip netns exec xbA $xibrun" xib0 10.212.0.2
	run interop "$t" "ip netns exec xbB $xibrun" xib2 "" rxeb0 10.213.0.2
done

echo
echo "perftest, default options (bw: MB/s average; lat: usec typical)"
printf '%-14s %12s %12s %12s %12s %8s\n' tool xib-loop rxe-loop xib-2ns "rxe->xib" xib/rxe
for t in $tools; do
	a=${res[xib-loop,$t]} b=${res[rxe-loop,$t]}
	ratio=-
	if [[ $a =~ ^[0-9.]+$ && $b =~ ^[0-9.]+$ ]]; then
		case $t in
		*_bw) ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", a / b }') ;;
		*) ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a > 0) printf "%.2f", b / a }') ;;
		esac
	fi
	res[ratio,$t]=$ratio
	printf '%-14s %12s %12s %12s %12s %8s\n' "$t" "$a" "$b" "${res[xib-2ns,$t]}" \
		"${res[interop,$t]}" "$ratio"
done

echo
echo "xib/rxe, loopback (higher is better for xib; latency as rxe/xib)"
for t in $tools; do
	r=${res[ratio,$t]}
	bar=
	if [[ $r =~ ^[0-9.]+$ ]]; then
		n=$(awk -v r="$r" 'BEGIN { n = int(r * 10 + 0.5); print (n > 60 ? 60 : n) }')
		bar=$(printf '%*s' "$n" '' | tr ' ' '#')
	fi
	printf '%-14s %6s |%s\n' "$t" "$r" "$bar"
done
echo "               (one # = 0.1; 10 # = parity)"

# cm NAME SERVER-PREFIX CLIENT-PREFIX ADDR: stock cmtime, N connections
# set up at once and torn down; stores each step's microseconds per
# connection in cm[NAME,STEP].  cmtime's server keeps listening after
# its client is done, so it is stopped here.
declare -A cm
cm_steps="resolve_addr resolve_route connect disconnect"
cm() {
	local name=$1 sp=$2 cp=$3 addr=$4 out spid st
	out=$(mktemp)
	# shellcheck disable=SC2086
	timeout 300 $sp cmtime -b "$addr" -c "$cm_conns" >"$out.srv" 2>&1 &
	spid=$!
	sleep 2
	# shellcheck disable=SC2086
	if timeout 300 $cp cmtime -s "$addr" -c "$cm_conns" >"$out" 2>&1; then
		for st in $cm_steps; do
			cm[$name,$st]=$(awk -v s="${st/_/ }" -F: '$1 ~ "^"s" *$" { n = split($2, f, " "); print f[n] }' "$out")
		done
	else
		echo "--- cmtime $name failed; client:"; cat "$out"
		echo "--- server:"; cat "$out.srv"
		for st in $cm_steps; do cm[$name,$st]=fail; done
		status=1
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	rm -f "$out" "$out.srv"
}

cm_conns=${XIB_BENCH_CM_CONNS:-100}
cm xib-loop "ip netns exec xbA $xibrun" "ip netns exec xbA $xibrun" 10.212.0.1
cm rxe-loop "" "" 10.213.0.1
cm xib-2ns "ip netns exec xbB $xibrun" "ip netns exec xbA $xibrun" 10.212.0.2
cm "rxe->xib" "ip netns exec xbB $xibrun" "" 10.213.0.2
cm "xib->rxe" "" "ip netns exec xbB $xibrun" 10.213.0.1

echo
echo "RDMA CM connection setup: stock cmtime -c $cm_conns (usec per connection)"
printf '%-14s %10s %10s %10s %10s %10s\n' step xib-loop rxe-loop xib-2ns "rxe->xib" "xib->rxe"
for st in $cm_steps; do
	printf '%-14s %10s %10s %10s %10s %10s\n' "${st/_/ }" "${cm[xib-loop,$st]}" \
		"${cm[rxe-loop,$st]}" "${cm[xib-2ns,$st]}" "${cm[rxe->xib,$st]}" \
		"${cm[xib->rxe,$st]}"
done

echo
echo "system calls per work request (xib, 100000 RDMA WRITEs on one device):"
# the xib class is per namespace: look from xbA's sysfs
dev=$(ip netns exec xbA sh -c 'ls -d /sys/class/xib/xib0/uverbs* /sys/class/xib/xib0/*/uverbs* 2>/dev/null' | head -n1)
if [ -n "$dev" ]; then
	ip netns exec xbA "$root/tests/bench/syscalls-per-wr.sh" -d "/dev/xib/${dev##*/}" -n 100000 ||
		status=1
else
	echo "no uverbs node for xib0"
	status=1
fi
exit $status
