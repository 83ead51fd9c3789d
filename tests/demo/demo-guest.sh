#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo-guest.sh (runs inside the test VM, started by tests/demo/demo.sh)
#
# Unmodified Debian programs on xib: an xib device in each of two network
# namespaces over a veth pair (xib0 in xibA, xib1 in xibB), then an xib
# device (xib2, in xibB) facing rdma_rxe (rxe0, initial namespace) over
# another veth pair.  xib's side runs through xib-run, rxe's with the
# system's libibverbs.  One line per step goes to $XIB_OUT/demo.tsv:
#   step <TAB> PASS|FAIL <TAB> bandwidth <TAB> latency
# and each step's full output to $XIB_OUT/demo.log.
set -u

: "${XIB_ROOT:?}" "${XIB_MODDIR:?}" "${XIB_OUT:?}" "${XIB_BUILD:?}"
export PATH=$XIB_BUILD/userspace:$XIB_ROOT/tests/vm:$PATH
tsv=$XIB_OUT/demo.tsv
log=$XIB_OUT/demo.log
: >"$tsv"
: >"$log"
BATS_TEST_TMPDIR=$(mktemp -d)

# The bats helpers, outside bats: skip() just fails.
skip() { echo "skip: $*" >&2; return 1; }
# shellcheck source=tests/bats/helpers.bash
. "$XIB_ROOT/tests/bats/helpers.bash"
# shellcheck source=tests/bats/xib-apps.bash
. "$XIB_ROOT/tests/bats/xib-apps.bash"

row() {	# row STEP PASS|FAIL BW LAT
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "${3:--}" "${4:--}" >>"$tsv"
	printf '%-44s %-5s %s / %s\n' "$1" "$2" "${3:--}" "${4:--}"
}

# pingpong output: "N bytes in S seconds = B Mbit/sec", "N iters in S
# seconds = L usec/iter".
pp_bw() { sed -n 's/.* = \([0-9.]*\) Mbit\/sec.*/\1 Mbit\/s/p' <<<"$1" | head -1; }
pp_lat() { sed -n 's/.* = \([0-9.]*\) usec\/iter.*/\1 usec\/iter/p' <<<"$1" | head -1; }

# step NAME KIND: run after xib_pair; KIND pp|bw|lat picks the parser.
step() {
	local name=$1 kind=$2 ok=FAIL bw= lat= v
	{
		echo "=== $name"
		echo "--- server: $(cat "$srv_out")"
		echo "--- client: $cli_out"
	} >>"$log"
	case $kind in
	pp)
		bw=$(pp_bw "$cli_out")
		lat=$(pp_lat "$cli_out")
		[ "$cli_status" = 0 ] && [ "${srv_status:-x}" = 0 ] && [ -n "$bw" ] && ok=PASS
		;;
	bw)
		v=$(perf_bw "$cli_out")
		[ -n "$v" ] && bw="$v MB/s"
		[ "$cli_status" = 0 ] && [ "${srv_status:-x}" = 0 ] && positive "$v" && ok=PASS
		;;
	lat)
		v=$(perf_lat "$cli_out")
		[ -n "$v" ] && lat="$v usec"
		[ "$cli_status" = 0 ] && [ "${srv_status:-x}" = 0 ] && positive "$v" && ok=PASS
		;;
	esac
	row "$name" "$ok" "$bw" "$lat"
}

echo "# xib <-> xib: xib0 (xibA, 10.211.0.1) <-> xib1 (xibB, 10.211.0.2)"
if ! xib_apps_topology >>"$log" 2>&1; then
	row "set up two xib devices over veth" FAIL
	exit 0
fi
row "set up two xib devices over veth" PASS

out=$(inA "$XR" ibv_devices 2>&1)
echo "$out" >>"$log"
grep -q xib0 <<<"$out" && row "ibv_devices in xibA lists xib0" PASS ||
	row "ibv_devices in xibA lists xib0" FAIL

xib_pair 120 xibB xibA -- "$XR" ibv_rc_pingpong -d xib1 -g "$GIDB" \
	-- "$XR" ibv_rc_pingpong -d xib0 -g "$GIDA" 10.211.0.2 >/dev/null 2>&1
step "ibv_rc_pingpong xib0 -> xib1" pp

perf_pair 180 xibB xibA -- "$XR" ib_write_bw -d xib1 -x "$GIDB" \
	-- "$XR" ib_write_bw -d xib0 -x "$GIDA" 10.211.0.2 >/dev/null 2>&1
step "ib_write_bw xib0 -> xib1" bw

perf_pair 180 xibB xibA -- "$XR" ib_write_lat -d xib1 -x "$GIDB" -F \
	-- "$XR" ib_write_lat -d xib0 -x "$GIDA" -F 10.211.0.2 >/dev/null 2>&1
step "ib_write_lat xib0 -> xib1" lat

echo "# xib <-> rdma_rxe: xib2 (xibB, 10.212.0.2) <-> rxe0 (initial namespace, 10.212.0.1)"
if ! xib_apps_rxe_topology >>"$log" 2>&1; then
	row "set up rdma_rxe facing xib over veth" FAIL
	xib_apps_teardown >>"$log" 2>&1
	exit 0
fi
row "set up rdma_rxe facing xib over veth" PASS

xib_pair 120 xibB "" -- "$XR" ibv_rc_pingpong -d xib2 -g "$GIDX" \
	-- ibv_rc_pingpong -d rxe0 -g "$GIDR" 10.212.0.2 >/dev/null 2>&1
step "ibv_rc_pingpong rxe0 -> xib2" pp

xib_pair 120 "" xibB -- ibv_rc_pingpong -d rxe0 -g "$GIDR" \
	-- "$XR" ibv_rc_pingpong -d xib2 -g "$GIDX" 10.212.0.1 >/dev/null 2>&1
step "ibv_rc_pingpong xib2 -> rxe0" pp

perf_pair 180 xibB "" -- "$XR" ib_write_bw -d xib2 -x "$GIDX" \
	-- ib_write_bw -d rxe0 -x "$GIDR" 10.212.0.2 >/dev/null 2>&1
step "ib_write_bw rxe0 -> xib2" bw

perf_pair 180 "" xibB -- ib_write_bw -d rxe0 -x "$GIDR" \
	-- "$XR" ib_write_bw -d xib2 -x "$GIDX" 10.212.0.1 >/dev/null 2>&1
step "ib_write_bw xib2 -> rxe0" bw

xib_apps_teardown >>"$log" 2>&1
exit 0
