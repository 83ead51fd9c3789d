#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# wire-guest.sh server|client   (runs inside one of the two stock guests
# of tests/bench/wire.sh, "make bench-wire")
#
# One side of the two-VM wire benchmark.  The server is the guest on wire
# side "a" (10.214.0.1), the client the one on side "b" (10.214.0.2);
# both walk the same list of steps (steps below) and meet at each one
# through barrier files in the queue directory both guests share
# ($XIB_QUEUE): the server starts its program, waits until it listens
# and writes ready.N; the client waits for ready.N, runs its program
# and writes done.N.  A side that gives up writes "abort" and the other
# stops at its next wait.
#
# Configurations, one after the other on the same NIC:
#   rxe  rdma_rxe on the NIC in the initial namespace (system libibverbs)
#   xib  xib on the same NIC moved into namespace "xw" (through xib-run);
#        rxe and xib cannot both bind UDP 4791 in one namespace
# Steps of each: ib_write_bw -s 65536 (MB/s), ib_send_bw -s 64 (Mpps),
# ib_send_lat -s 2 (typical and 99th percentile usec), and validated
# ibv_rc_pingpong -c -s 65536 (Mbit/s) under netem loss 0, 1 and 5 % on
# both NICs' egress.  Before them, the wire itself: ping RTT and TCP
# (iperf3).  The client writes the figures to $XIB_OUT/wire.tsv (CONFIG,
# TEST, SIZE, METRIC, VALUE; "fail" where a run gave no number); the host
# makes the table.
#
# XIB_WIRE_QUICK=1: few iterations (a figure that means nothing, for
# trying the machinery).
set -uo pipefail

role=${1:-}
case $role in
server) me=10.214.0.1 peer=10.214.0.2 ;;
client) me=10.214.0.2 peer=10.214.0.1 ;;
*) echo "usage: wire-guest.sh server|client" >&2; exit 2 ;;
esac

root=${XIB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${XIB_BUILD:-$root/build}
xibrun=$build/bin/xib-run
# xibctl and xib-modules, as tests/vm/runner has them
export PATH=$build/userspace:$root/tests/vm:$PATH
q=${XIB_QUEUE:?XIB_QUEUE must name the queue shared with the other guest}
outdir=${XIB_OUT:-$(mktemp -d)}
# shellcheck source=tests/bats/helpers.bash
. "$root/tests/bats/helpers.bash"
# shellcheck source=tests/bats/xib-apps.bash
. "$root/tests/bats/xib-apps.bash"
# shellcheck source=tests/vm/wire.bash
. "$root/tests/vm/wire.bash"

if [ "${XIB_WIRE_QUICK:-0}" = 1 ]; then
	bw_iters=100 rate_iters=500 lat_iters=50 pp_iters=20 tcp_secs=1
else
	bw_iters=1000 rate_iters=5000 lat_iters=300 pp_iters=200 tcp_secs=3
fi
losses="0 1 5"

# steps: the list both sides walk, one "CONFIG KIND [ARG]" a line.
steps() {
	echo "wire ping"
	echo "wire tcp"
	local c l
	for c in rxe xib; do
		echo "$c setup"
		echo "$c ib_write_bw 65536"
		echo "$c ib_send_bw 64"
		echo "$c ib_send_lat 2"
		for l in $losses; do
			echo "$c pingpong $l"
		done
	done
}

log() {
	echo "wire-guest $role: $*"
}

abort() {
	log "abort: $*"
	echo "$role: $*" >>"$q/abort"
	exit 1
}

# await FILE SECONDS: until FILE exists (0), the other side aborted or
# the time is up (1).
await() {
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		[ -e "$1" ] && return 0
		[ -e "$q/abort" ] && return 1
		sleep 0.2
	done
	return 1
}

tsv=$outdir/wire.tsv
[ "$role" = server ] || : >"$tsv"
put() {	# a figure that is not a number (perftest's "inf") is a failure
	local v=$5
	[[ $v =~ ^-?[0-9]+(\.[0-9]+)?$ ]] || v=fail
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$v" >>"$tsv"
}

# --- the NIC ------------------------------------------------------------
mac=$XIB_WIRE_MAC_A
[ "$role" = server ] || mac=$XIB_WIRE_MAC_B
modprobe virtio_net || abort "cannot load virtio_net"
nic=
for ((i = 0; i < 50; i++)); do
	for f in /sys/class/net/*/address; do
		[ "$(cat "$f")" = "$mac" ] && nic=$(basename "$(dirname "$f")")
	done
	[ -n "$nic" ] && break
	sleep 0.2
done
[ -n "$nic" ] || abort "no NIC with MAC $mac (run-vm --wire)"
if ! ip addr add "$me/24" dev "$nic" || ! ip link set "$nic" up; then
	abort "cannot set up $nic"
fi
log "$nic ($mac) is $me"
xib-modules load || abort "cannot load xib"
xib_load_rxe || abort "cannot load rdma_rxe"

# The configuration's namespace prefix, library prefix and device.
ns=() nsname='' lib=() dev='' gid=''

setup() {
	case $1 in
	rxe)
		rdma link add rxew0 type rxe netdev "$nic" || return 1
		dev=rxew0 ns=() lib=()
		gid=$(rxe_gid_index rxew0 "$me") || return 1
		;;
	xib)
		rdma link del rxew0 || return 1
		ip netns add xw || return 1
		ip link set "$nic" netns xw || return 1
		ip -n xw addr add "$me/24" dev "$nic" &&
			ip -n xw link set lo up && ip -n xw link set "$nic" up || return 1
		ip netns exec xw xibctl link add xibw0 netdev "$nic" || return 1
		dev=xibw0 ns=(ip netns exec xw) nsname=xw lib=("$xibrun")
		gid=$(xib_gid_index xw xibw0 "$me") || return 1
		;;
	esac
	log "$1: device $dev, GID index $gid"
}

# netem add|del [ARGS...]: the root qdisc of this side's NIC
netem() {
	local op=$1
	shift
	"${ns[@]}" tc qdisc "$op" dev "$nic" root "$@"
}

# cmd CONFIG KIND ARG: the program of this step, server side (no peer
# address) or client side.
cmd() {
	case $2 in
	ib_*) echo "$2 -d $dev -F -s $3 -n $(iters "$2")" ;;
	pingpong) echo "ibv_rc_pingpong -d $dev -g $gid -c -s 65536 -n $pp_iters" ;;
	tcp) echo "iperf3" ;;
	esac
}

iters() {
	case $1 in
	ib_write_bw) echo "$bw_iters" ;;
	ib_send_bw) echo "$rate_iters" ;;
	ib_send_lat) echo "$lat_iters" ;;
	esac
}

# record CONFIG KIND ARG OUTPUT: the client's figures of one step.
record() {
	local c=$1 k=$2 a=$3 f=$4 line v rows
	rows=$(wc -l <"$tsv")
	case $k in
	ping)
		v=$(sed -n 's|^round-trip .* = [0-9.]*/\([0-9.]*\)/.*|\1|p' "$f")
		put wire ping 64 rtt_ms "${v:-fail}"
		;;
	tcp)
		v=$(jq -er '.end.sum_received.bits_per_second / 8e6 | . * 10 | round / 10' "$f" 2>/dev/null)
		put wire iperf3 - MBps "${v:-fail}"
		;;
	ib_*)
		line=$(awk -v s="$a" '$1 == s && NF >= 5 && $2 ~ /^[0-9]+$/ { l = $0 } END { print l }' "$f")
		# shellcheck disable=SC2086
		set -- $line
		case $k in
		*_bw)
			put "$c" "$k" "$a" MBps "${4:-fail}"
			put "$c" "$k" "$a" Mpps "${5:-fail}"
			;;
		*)
			put "$c" "$k" "$a" typical_us "${5:-fail}"
			put "$c" "$k" "$a" p99_us "${8:-fail}"
			;;
		esac
		;;
	pingpong)
		v=$(awk '/Mbit\/sec/ { v = $(NF - 1) } END { print v }' "$f")
		grep -q "$pp_iters iters" "$f" || v=
		put "$c" ibv_rc_pingpong "loss$a" Mbps "${v:-fail}"
		;;
	esac
	if tail -n +$((rows + 1)) "$tsv" | grep -q $'\tfail$'; then
		log "$c $k $a: no figure; its output:"
		tail -n 20 "$f"
	fi
}

n=0
status=0
while read -r c k a; do
	n=$((n + 1))
	step="$n ($c $k${a:+ $a})"
	log "step $step"
	echo "$step" >"$outdir/progress"
	if [ "$k" = setup ]; then
		setup "$c" || abort "setting up $c failed"
		continue
	fi
	[ "$k" != pingpong ] || [ "$a" = 0 ] || netem add netem loss "$a%"
	out=$outdir/step$n.out
	if [ "$role" = server ]; then
		case $k in
		ping) touch "$q/ready.$n" ;;
		*)
			# shellcheck disable=SC2046
			timeout 600 "${ns[@]}" "${lib[@]}" $(cmd "$c" "$k" "$a") \
				$([ "$k" = tcp ] && echo "-s -1") >"$out" 2>&1 &
			spid=$!
			port=18515
			[ "$k" != tcp ] || port=5201
			xib_wait_listen "$nsname" "$port" 30 "$spid" || abort "step $step: the server does not listen"
			touch "$q/ready.$n"
			;;
		esac
		await "$q/done.$n" 900 || abort "step $step: the client did not finish"
		if [ -n "${spid:-}" ]; then
			# the server ends with its client; one that does not is stopped
			for ((i = 0; i < 100; i++)); do
				kill -0 "$spid" 2>/dev/null || break
				sleep 0.1
			done
			kill "$spid" 2>/dev/null
			wait "$spid" 2>/dev/null
			spid=
		fi
	else
		await "$q/ready.$n" 900 || abort "step $step: the server was not ready"
		case $k in
		# busybox's: the host root the guest runs on may have no ping
		ping) busybox ping -c 5 -i 0.5 -W 5 "$peer" >"$out" 2>&1 ;;
		tcp) timeout 120 iperf3 -c "$peer" -t "$tcp_secs" -J >"$out" 2>&1 ;;
		*)
			# shellcheck disable=SC2046
			timeout 600 "${ns[@]}" "${lib[@]}" $(cmd "$c" "$k" "$a") "$peer" >"$out" 2>&1
			;;
		esac
		record "$c" "$k" "$a" "$out"
		touch "$q/done.$n"
	fi
	[ "$k" != pingpong ] || [ "$a" = 0 ] || netem del
done < <(steps)

if [ "$role" = client ] && grep -q $'\tfail$' "$tsv"; then
	status=1
fi
ip netns exec xw xibctl link del xibw0 2>/dev/null
ip netns del xw 2>/dev/null
xib-modules unload >/dev/null 2>&1
xib_unload_rxe
log "done (status $status)"
exit $status
