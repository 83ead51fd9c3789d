#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# bench.sh   (runs inside the stock test VM: "make bench")
#
# The same stock programs on xib and on rdma_rxe, in one boot, side by
# side.  Configurations:
#   xib-loop  server and client on one xib device (through xib-run)
#   rxe-loop  server and client on one rxe device (the system libibverbs)
#   xib-2ns   two xib devices in two network namespaces over a veth pair
#   rxe->xib  rxe in the initial namespace against xib in a namespace
# Rows:
#   bw        ib_write_bw, ib_read_bw, ib_send_bw over message sizes
#             2 B .. 1 MiB (MB/s; perftest's average), message rate
#             (Mpps) at 64 B, CPU seconds per GB moved at 64 KiB
#   lat       ib_write_lat, ib_send_lat, ib_read_lat at 2 B: typical and
#             99th percentile (usec)
#   qps       ib_write_bw 64 KiB with 1, 16, 64 and 256 QPs (aggregate
#             MB/s; from 16 QPs on, fewer iterations per QP so that each
#             run moves 256 to 320 MiB), and xib-2ns's counters of each
#             run (packets, ACKs, probes, timeouts, budget holds,
#             duplicates, NAKs, backlog drops)
#   qpmem     kernel memory per xib QP (xib_qpmem_test in a memory cgroup
#             of its own: bytes charged per RC QP) at perftest's default
#             sizes (128 send, 512 receive WRs, 1 SGE; 256 of them,
#             averaged) and at the
#             device's largest (max_qp_wr WRs, max_sge SGEs, max_inline
#             bytes); and 16384 small QPs (16 WRs) created at once on one
#             device, with the bytes each cost
#   mtu       xib-2ns ib_write_bw 64 KiB and TCP (iperf3) over the same
#             veth at MTU 1500 and 9000
#   limits    the guest's memcpy bandwidth (memcpy_bw, 64 KiB copies)
#   loss      validated ibv_rc_pingpong -c -s 65536 goodput under netem
#             loss 0, 1 and 5 % (xib-2ns and rxe->xib), % of clean
#   syscalls  system calls per WR of stock ib_send_bw, ib_write_bw (64 B)
#             and ib_send_lat (2 B) across namespaces at default module
#             parameters, over the whole client process: strace -f -c
#             (slows every call: it perturbs the engine's timing) and
#             perf stat -e raw_syscalls:sys_enter (does not), and the
#             KICKs of both devices per WR
#   idle      CPU time of xib's engine threads over 10 idle seconds
#   cm        RDMA CM connection setup with stock cmtime
#   profile   the in-module profile of three xib-loop runs (profile.sh:
#             profile-TOOL.txt)
# and, with syscalls, the in-tree syscalls-per-wr.sh figure (one private
# program driving the rings: not the product's figure, kept to see the
# library's floor).
#
# Writes $XIB_OUT/bench.tsv (CONFIG, TEST, SIZE, METRIC, VALUE per line),
# bench.txt (the tables, also on stdout) and the plots bench-bw.png
# (bandwidth over message size) and bench-ratio.png (xib/rxe per
# measure).  A benchmark, not a test: no figure is judged; a row that
# produced no number shows "fail" and the script exits 1.  TCG makes
# every figure small: only ratios in one run mean something.
#
# XIB_BENCH_QUICK=1: the smoke make check runs (tests/bats/bench.bats: one
# tool, size and configuration per section, xib and rxe on one device
# for the ratios, few iterations) so that the benchmark cannot rot; its
# figures mean nothing.
# XIB_BENCH_TOOLS overrides the bandwidth and latency tool list;
# XIB_BENCH_CM_CONNS the connections of each cmtime run (default 100).
# XIB_BENCH_SECTIONS: the rows to run, a space-separated list of the row
# names above (bw lat qps qpmem mtu limits loss syscalls idle cm profile;
# default all).
# bw brings the plots, syscalls the in-tree floor; the tables show "-"
# for what did not run.  E.g. XIB_BENCH_SECTIONS=loss for the loss rows.
set -uo pipefail

root=${XIB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
build=${XIB_BUILD:-$root/build}
xibrun=$build/bin/xib-run
memcpy_bw=$build/tests/bench/memcpy_bw
outdir=${XIB_OUT:-$(mktemp -d)}
quick=${XIB_BENCH_QUICK:-0}
# shellcheck source=tests/bats/helpers.bash
. "$root/tests/bats/helpers.bash"
# shellcheck source=tests/bats/xib-apps.bash
. "$root/tests/bats/xib-apps.bash"

all_sections="bw lat qps qpmem mtu limits loss syscalls idle cm profile"
sections=${XIB_BENCH_SECTIONS:-$all_sections}
for p in $sections; do
	[[ " $all_sections " == *" $p "* ]] ||
		{ echo "bench: unknown section $p (XIB_BENCH_SECTIONS: $all_sections)" >&2; exit 2; }
done
# want SECTION: is the section to run?
want() {
	[[ " $sections " == *" $1 "* ]]
}

for p in "$xibrun" "$memcpy_bw"; do
	[ -x "$p" ] || { echo "bench: $p not built (make userspace)" >&2; exit 2; }
done
for c in ib_write_bw iperf3 strace perf gnuplot; do
	command -v "$c" >/dev/null || { echo "bench: $c is not installed (make deps)" >&2; exit 2; }
done

if [ "$quick" = 1 ]; then
	bw_tools=${XIB_BENCH_TOOLS:-ib_write_bw}
	lat_tools=${XIB_BENCH_TOOLS:-ib_send_lat}
	sizes="65536"
	qp_counts="2"
	losses="1"
	pp_iters=20
	sc_wrs=1000
	# one configuration of each kind where the full run has several
	run_configs="xib-loop rxe-loop"
	qp_configs="xib-loop"
	qpmem_many=0
	loss_configs="xib-2ns"
	sc_rows="ib_send_bw"
	idle_secs=2
	tcp_secs=1
	cm_conns=${XIB_BENCH_CM_CONNS:-10}
else
	bw_tools=${XIB_BENCH_TOOLS:-ib_write_bw ib_read_bw ib_send_bw}
	lat_tools=${XIB_BENCH_TOOLS:-ib_write_lat ib_send_lat ib_read_lat}
	sizes="2 64 1024 4096 65536 1048576"
	qp_counts="1 16 64 256"
	losses="0 1 5"
	pp_iters=300
	sc_wrs=100000
	idle_secs=10
	tcp_secs=5
	cm_conns=${XIB_BENCH_CM_CONNS:-100}
	run_configs="xib-loop rxe-loop xib-2ns rxe->xib"
	qp_configs="xib-loop rxe-loop xib-2ns"
	qpmem_many=16384
	loss_configs="xib-2ns rxe->xib"
	sc_rows="ib_send_bw ib_write_bw ib_send_lat"
fi
# keep only the tools of each kind from an override
bw_tools=$(printf '%s\n' $bw_tools | grep '_bw$' | paste -sd' ')
lat_tools=$(printf '%s\n' $lat_tools | grep '_lat$' | paste -sd' ')
mtus="1500 9000"
# the sections not asked for: nothing to run
want bw || bw_tools=""
want lat || lat_tools=""
want qps || qp_counts=""
want mtu || mtus=""
want loss || loss_configs=""
want syscalls || sc_rows=""

tsv=$outdir/bench.tsv
txt=$outdir/bench.txt
: >"$tsv"
: >"$txt"
status=0
declare -A res

# put CONFIG TEST SIZE METRIC VALUE: one figure, to the TSV and res[]
# (a ratio of figures that are not there, "-", is left out).
put() {
	[ "$5" != - ] || return 0
	printf '%s\t%s\t%s\t%s\t%s\n' "$@" >>"$tsv"
	res[$1,$2,$3,$4]=$5
}

# get CONFIG TEST SIZE METRIC: the figure or "-".
get() {
	echo "${res[$1,$2,$3,$4]:--}"
}

say() {
	echo "$*" | tee -a "$txt"
}

fail_row() {
	echo "--- $1 failed"
	shift
	for f in "$@"; do
		[ -s "$f" ] && { echo "--- ${f##*/}:"; tail -n 20 "$f"; }
	done
	status=1
}

cleanup() {
	ip netns del xbA 2>/dev/null
	ip netns del xbB 2>/dev/null
	ip link del xbr0 2>/dev/null
	rdma link del rxeb0 2>/dev/null
	rmdir /sys/fs/cgroup/xib-bench-qpmem 2>/dev/null
	xib_unload_rxe
	xib-modules unload >/dev/null 2>&1
}
trap cleanup EXIT

# setup: xib0 on xbv0 (ns xbA, 10.212.0.1), xib1 on xbv1 (ns xbB,
# 10.212.0.2); rxeb0 on xbr0 (initial ns, 10.213.0.1) whose peer xbr1
# (ns xbB, 10.213.0.2) carries xib2 for the rxe->xib runs.
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
# the RoCEv2 IPv4 GID of each device, for ibv_rc_pingpong -g
declare -A GID
GID[xib0]=$(xib_gid_index xbA xib0 10.212.0.1) || exit 1
GID[xib1]=$(xib_gid_index xbB xib1 10.212.0.2) || exit 1
GID[xib2]=$(xib_gid_index xbB xib2 10.213.0.2) || exit 1
GID[rxeb0]=$(rxe_gid_index rxeb0 10.213.0.1) || exit 1
# xib's outstanding READs per QP, for the runs against rdma_rxe (pt)
rd_atom=$(ip netns exec xbB "$xibrun" ibv_devinfo -v -d xib2 |
	awk '$1 == "max_qp_rd_atom:" { print $2; exit }')
[ -n "$rd_atom" ] || { echo "bench: no max_qp_rd_atom from ibv_devinfo -v" >&2; exit 1; }

# The configurations: server namespace and library, server device,
# client namespace and library, client device, the server's address.
declare -A S_PRE S_DEV C_PRE C_DEV ADDR S_NS
cfg() {
	S_PRE[$1]=$2 S_DEV[$1]=$3 C_PRE[$1]=$4 C_DEV[$1]=$5 ADDR[$1]=$6 S_NS[$1]=$7
}
cfg xib-loop "ip netns exec xbA $xibrun" xib0 "ip netns exec xbA $xibrun" xib0 10.212.0.1 xbA
cfg rxe-loop "" rxeb0 "" rxeb0 10.213.0.1 ""
cfg xib-2ns "ip netns exec xbB $xibrun" xib1 "ip netns exec xbA $xibrun" xib0 10.212.0.2 xbB
cfg "rxe->xib" "ip netns exec xbB $xibrun" xib2 "" rxeb0 10.213.0.2 xbB
configs=$run_configs

# busy_jiffies: the guest's non-idle CPU time so far, in USER_HZ ticks.
busy_jiffies() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}

# [pt_label=TEST] pt CONFIG TOOL SIZE ITERS [ARGS...]: one stock perftest
# pair; puts the figures of its result line under TEST (default: TOOL
# and ARGS).  bw: MB/s and Mpps (and CPU s/GB at 64 KiB);
# lat: typical and 99th percentile.
pt() {
	local c=$1 tool=$2 size=$3 iters=$4 test=$2 out spid line j0 j1 v a prev= nq=1
	shift 4
	# with -q N perftest posts ITERS on each of N QPs
	for a in "$@"; do
		[ "$prev" = -q ] && nq=$a
		prev=$a
	done
	[ $# -eq 0 ] || test="$tool $*"
	test=${pt_label:-$test}
	# READs between xib and rdma_rxe: perftest's requester asks for as
	# many outstanding READs as the peer advertises (rxe: 128), which
	# xib's ibv_modify_qp refuses beyond its own max_qp_init_rd_atom
	# (EINVAL); both sides ask for xib's (rxe-interop.bats does the same)
	case $c:$tool in
	*rxe*xib*:ib_read_* | *xib*rxe*:ib_read_*) set -- "$@" -o "$rd_atom" ;;
	esac
	out=$(mktemp)
	# shellcheck disable=SC2086
	timeout 300 ${S_PRE[$c]} "$tool" -d "${S_DEV[$c]}" -F -s "$size" -n "$iters" "$@" \
		>"$out.srv" 2>&1 &
	spid=$!
	if ! xib_wait_listen "${S_NS[$c]}" 18515 20 "$spid"; then
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		fail_row "$c $test -s $size (server)" "$out.srv"
		put "$c" "$test" "$size" error fail
		rm -f "$out" "$out.srv"
		return
	fi
	j0=$(busy_jiffies)
	# shellcheck disable=SC2086
	timeout 300 ${C_PRE[$c]} "$tool" -d "${C_DEV[$c]}" -F -s "$size" -n "$iters" "$@" \
		"${ADDR[$c]}" >"$out" 2>&1
	j1=$(busy_jiffies)
	wait "$spid"
	# the result line: "SIZE ITERS" then at least three figures
	line=$(awk -v s="$size" '$1 == s && NF >= 5 && $2 ~ /^[0-9]+$/ { l = $0 } END { print l }' "$out")
	if [ -z "$line" ]; then
		fail_row "$c $test -s $size" "$out" "$out.srv"
		case $tool in
		*_bw) put "$c" "$test" "$size" MBps fail ;;
		*) put "$c" "$test" "$size" typical_us fail ;;
		esac
	else
		set -- $line
		case $tool in
		*_bw)
			put "$c" "$test" "$size" MBps "$4"
			put "$c" "$test" "$size" Mpps "$5"
			# CPU seconds of the whole guest per GB moved
			v=$(awk -v j=$((j1 - j0)) -v hz="$(getconf CLK_TCK)" -v b="$((size * iters * nq))" \
				'BEGIN { if (b > 0) printf "%.2f", j / hz / (b / 1e9) }')
			put "$c" "$test" "$size" cpu_s_per_GB "$v"
			;;
		*)
			put "$c" "$test" "$size" typical_us "$5"
			put "$c" "$test" "$size" p99_us "$8"
			;;
		esac
	fi
	rm -f "$out" "$out.srv"
}

# iterations for a bandwidth run of SIZE bytes: about 64 MiB moved
# (5000 at most, 100 at least; the smoke: 200 and 20)
bw_iters() {
	local n=$(((64 << 20) / $1))
	[ "$quick" = 1 ] && n=$(((8 << 20) / $1))
	[ "$n" -gt 5000 ] && n=5000
	[ "$quick" = 1 ] && [ "$n" -gt 200 ] && n=200
	[ "$n" -lt 20 ] && n=20
	echo "$n"
}

# --- bandwidth and message rate over sizes -----------------------------
for t in $bw_tools; do
	for s in $sizes; do
		for c in $configs; do
			pt "$c" "$t" "$s" "$(bw_iters "$s")"
		done
	done
done

# --- latency ------------------------------------------------------------
lat_iters=1000
[ "$quick" = 1 ] && lat_iters=100
for t in $lat_tools; do
	for c in $configs; do
		pt "$c" "$t" 2 "$lat_iters"
	done
done

# --- QPs ----------------------------------------------------------------
# qp_counters: what xib-2ns's devices counted so far, for the qps rows:
# the client's (xib0) packets sent, tail_probes, local_ack_timeouts and
# rc_inflight_held, the server's (xib1) packets sent (its ACKs),
# rx_duplicate_requests and seq_naks_sent (a counter the driver lacks
# reads 0), and the packets the guest's receive backlogs dropped
# (/proc/net/softnet_stat's second column, over every CPU).
qp_cnames="tx_packets tail_probes local_ack_timeouts rc_inflight_held acks rx_duplicate_requests seq_naks_sent backlog_drops"
qp_counters() {
	local drops=0 d
	while read -r _ d _; do
		drops=$((drops + 16#$d))
	done </proc/net/softnet_stat
	{
		ip netns exec xbA xibctl -j statistic show dev xib0 |
			jq -r '.[0] | [.tx_packets, .tail_probes, .local_ack_timeouts,
				.rc_inflight_held] | map(. // 0) | @tsv'
		ip netns exec xbB xibctl -j statistic show dev xib1 |
			jq -r '.[0] | [.tx_packets, .rx_duplicate_requests, .seq_naks_sent] |
				map(. // 0) | @tsv'
		echo "$drops"
	} | paste -sd'\t'
}

# perftest posts the iterations on each QP: from 16 QPs on, 4 times one
# QP's volume in all (20 iterations per QP at least)
for q in $qp_counts; do
	n=$(bw_iters 65536)
	if [ "$q" -ge 16 ]; then
		n=$((4 * n / q))
		[ "$n" -lt 20 ] && n=20
	fi
	for c in $qp_configs; do
		[ "$c" != xib-2ns ] || read -ra q0 < <(qp_counters)
		pt "$c" ib_write_bw 65536 "$n" -q "$q"
		[ "$c" = xib-2ns ] || continue
		read -ra q1 < <(qp_counters)
		i=0
		for m in $qp_cnames; do
			put xib-2ns "ib_write_bw -q $q" 65536 "$m" $((${q1[i]:-0} - ${q0[i]:-0}))
			i=$((i + 1))
		done
	done
done

# --- kernel memory per QP -----------------------------------------------
# qpmem NAME ARGS...: xib_qpmem_test -d xib0's node ARGS in the memory
# cgroup $qpmem_cg (the initial namespace: ip netns exec mounts a sysfs
# without /sys/fs/cgroup); puts its qp_bytes (and, with -n, the QPs
# created) under NAME.
qpmem_cg=/sys/fs/cgroup/xib-bench-qpmem
qpmem() {
	local name=$1 out v
	shift
	out=$(mktemp)
	# shellcheck disable=SC2016
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$qpmem_cg" \
		"$build/tests/c/xib_qpmem_test" -d "$qpmem_dev" "$@" >"$out" 2>&1
	v=$(awk '$1 == "qp_bytes" { print $2 }' "$out")
	if [ -z "$v" ] || grep -q FAIL "$out"; then
		fail_row "qpmem $name" "$out"
		v=fail
	fi
	put xib qpmem "$name" bytes_per_qp "$v"
	if [ "$name" != max ]; then
		put xib qpmem "$name" created "$(awk '$1 == "created" { print $2 }' "$out")"
	fi
	rm -f "$out"
}
if want qpmem; then
	qpmem_dev=$(ip netns exec xbA sh -c 'ls -d /sys/class/xib/xib0/uverbs* /sys/class/xib/xib0/*/uverbs* 2>/dev/null' | head -n1)
	qpmem_dev=/dev/xib/${qpmem_dev##*/}
	qp_max=$(ip netns exec xbA "$xibrun" ibv_devinfo -v -d xib0 2>/dev/null |
		awk -F: '$1 ~ /^[ \t]*max_qp_wr$/ { print $2 + 0 }')
	sge_max=$(ip netns exec xbA "$xibrun" ibv_devinfo -v -d xib0 2>/dev/null |
		awk -F: '$1 ~ /^[ \t]*max_sge$/ { print $2 + 0 }')
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	rmdir "$qpmem_cg" 2>/dev/null
	mkdir "$qpmem_cg"
	# small QPs: the average of 256 (memory.current moves in the
	# per-CPU charge batches of the memory controller, 256 KiB)
	qpmem default -n 256 -w 128 -r 512 -s 1 -i 0
	# max_inline is not in ibv_devinfo: the device's 512 bytes
	qpmem max -w "${qp_max:-16384}" -r "${qp_max:-16384}" -s "${sge_max:-32}" -i 512
	[ "$qpmem_many" = 0 ] || qpmem many -n "$qpmem_many" -w 16 -r 16 -s 1 -i 0
	rmdir "$qpmem_cg"
fi

# --- MTU and the TCP ceiling over the same veth -------------------------
# tcp MTU: iperf3 from xbA to xbB, MB/s received
tcp() {
	local out
	out=$(mktemp)
	ip netns exec xbB iperf3 -s -1 >/dev/null 2>&1 &
	local spid=$!
	xib_wait_listen xbB 5201 20 "$spid" &&
		ip netns exec xbA iperf3 -c 10.212.0.2 -t "$tcp_secs" -J >"$out" 2>&1
	wait "$spid"
	v=$(jq -er '.end.sum_received.bits_per_second / 8e6 | . * 10 | round / 10' "$out" 2>/dev/null)
	if [ -z "$v" ]; then
		fail_row "tcp mtu $1" "$out"
		v=fail
	fi
	put tcp iperf3 "mtu$1" MBps "$v"
	rm -f "$out"
}

set_mtu() {
	ip -n xbA link set xbv0 mtu "$1"
	ip -n xbB link set xbv1 mtu "$1"
	# the ports follow the interface's MTU (port.bats); let them settle
	sleep 1
}

for m in $mtus; do
	set_mtu "$m"
	tcp "$m"
	pt_label="ib_write_bw mtu$m" pt xib-2ns ib_write_bw 65536 "$(bw_iters 65536)"
done
[ -z "$mtus" ] || set_mtu 1500

# --- the guest's copy bandwidth -----------------------------------------
if want limits; then
	v=$("$memcpy_bw" -s 65536 -t "$tcp_secs" | awk '{ print $3 }')
	put guest memcpy 65536 MBps "${v:-fail}"
	[ -n "$v" ] || fail_row "memcpy_bw"
fi

# --- goodput under loss -------------------------------------------------
# netem_loss CONFIG add|del [LOSS]: netem loss on both ends of the
# config's veth (xib-2ns: xbv0/xbv1; rxe->xib: xbr0/xbr1).
netem_loss() {
	local nq=(netem loss "${3:-0}%")
	[ "$2" = add ] || nq=()
	case $1 in
	xib-2ns)
		ip netns exec xbA tc qdisc "$2" dev xbv0 root "${nq[@]}"
		ip netns exec xbB tc qdisc "$2" dev xbv1 root "${nq[@]}"
		;;
	*)
		tc qdisc "$2" dev xbr0 root "${nq[@]}"
		ip netns exec xbB tc qdisc "$2" dev xbr1 root "${nq[@]}"
		;;
	esac
}

# rtx_counters CONFIG: the retransmission counters of the config's xib
# devices, summed: local_ack_timeouts tail_probes tail_probe_progress
# seq_naks_rcvd retries (a counter the driver lacks reads 0).
rtx_names="local_ack_timeouts tail_probes tail_probe_progress seq_naks_rcvd retries"
rtx_counters() {
	local devs d
	case $1 in
	xib-2ns) devs="xbA:xib0 xbB:xib1" ;;
	*) devs="xbB:xib2" ;;
	esac
	for d in $devs; do
		ip netns exec "${d%%:*}" xibctl -j statistic show dev "${d#*:}" |
			jq -r '.[0] | [.local_ack_timeouts, .tail_probes, .tail_probe_progress,
				.seq_naks_rcvd, .retries] | map(. // 0) | @tsv'
	done | awk '{ for (i = 1; i <= 5; i++) s[i] += $i }
		END { print s[1] + 0, s[2] + 0, s[3] + 0, s[4] + 0, s[5] + 0 }'
}

# pp CONFIG LOSS: validated ibv_rc_pingpong of pp_iters x 64 KiB under
# netem loss on both ends of the config's veth; Mbit/s as the client
# reports it, and what xib's requesters did (rtx_counters, the run's).
pp() {
	local c=$1 loss=$2 out spid v r0 r1 i n
	[ "$loss" = 0 ] || netem_loss "$c" add "$loss"
	read -ra r0 < <(rtx_counters "$c")
	out=$(mktemp)
	# shellcheck disable=SC2086
	timeout 300 ${S_PRE[$c]} ibv_rc_pingpong -d "${S_DEV[$c]}" -g "${GID[${S_DEV[$c]}]}" -c -s 65536 \
		-n "$pp_iters" >"$out.srv" 2>&1 &
	spid=$!
	if xib_wait_listen "${S_NS[$c]}" 18515 20 "$spid"; then
		# shellcheck disable=SC2086
		timeout 300 ${C_PRE[$c]} ibv_rc_pingpong -d "${C_DEV[$c]}" -g "${GID[${C_DEV[$c]}]}" -c -s 65536 \
			-n "$pp_iters" "${ADDR[$c]}" >"$out" 2>&1
	fi
	wait "$spid"
	v=$(awk '/Mbit\/sec/ { v = $(NF - 1) } END { print v }' "$out")
	if [ -z "$v" ] || ! grep -q "$pp_iters iters" "$out"; then
		fail_row "$c ibv_rc_pingpong loss $loss%" "$out" "$out.srv"
		v=fail
	fi
	put "$c" ibv_rc_pingpong "loss$loss" Mbps "$v"
	read -ra r1 < <(rtx_counters "$c")
	i=0
	for n in $rtx_names; do
		put "$c" ibv_rc_pingpong "loss$loss" "$n" $((${r1[i]:-0} - ${r0[i]:-0}))
		i=$((i + 1))
	done
	[ "$loss" = 0 ] || netem_loss "$c" del
	rm -f "$out" "$out.srv"
}

for c in $loss_configs; do
	for l in $losses; do
		pp "$c" "$l"
	done
done

# --- system calls per WR of stock perftest ------------------------------
# sc TOOL SIZE ITERS: the client of xib-2ns twice.  Under strace -f -c
# (the figure kept from the start, but ptrace makes each system call cost
# milliseconds under TCG, which slows the program it counts) and under
# perf stat -e raw_syscalls:sys_enter (counted in the kernel, no stop per
# call); both count the whole process, setup included, per WR.  With the
# perf run, the KICKs of both devices (their kicks counters) per WR: the
# steady-state figure, without the setup's calls.
sc_kicks() {
	echo $(($(stat_of xbA xib0 kicks) + $(stat_of xbB xib1 kicks)))
}
sc() {
	local tool=$1 size=$2 iters=$3 out spid calls ioctls mode k0 k1
	for mode in strace perf; do
		out=$(mktemp)
		timeout 300 ip netns exec xbB "$xibrun" "$tool" -d xib1 -F -s "$size" -n "$iters" \
			>"$out.srv" 2>&1 &
		spid=$!
		k0=$(sc_kicks)
		if xib_wait_listen xbB 18515 20 "$spid"; then
			if [ "$mode" = strace ]; then
				timeout 300 ip netns exec xbA strace -f -c -o "$out.trace" "$xibrun" "$tool" \
					-d xib0 -F -s "$size" -n "$iters" 10.212.0.2 >"$out" 2>&1
			else
				timeout 300 ip netns exec xbA perf stat -x, -e raw_syscalls:sys_enter \
					-o "$out.trace" "$xibrun" "$tool" -d xib0 -F -s "$size" -n "$iters" \
					10.212.0.2 >"$out" 2>&1
			fi
		fi
		wait "$spid"
		k1=$(sc_kicks)
		if [ "$mode" = strace ]; then
			calls=$(awk '$NF == "total" { print $4; exit }' "$out.trace" 2>/dev/null)
			ioctls=$(awk '$NF == "ioctl" { print $4; exit }' "$out.trace" 2>/dev/null)
		else
			calls=$(awk -F, '/raw_syscalls:sys_enter/ && $1 ~ /^[0-9]+$/ { print $1 }' \
				"$out.trace" 2>/dev/null)
		fi
		if [ -z "$calls" ] || ! grep -q "^ *$size " "$out"; then
			fail_row "syscalls $tool ($mode)" "$out" "$out.srv" "$out.trace"
			put xib-2ns "$tool" "$size" "syscalls_per_wr_$mode" fail
		else
			put xib-2ns "$tool" "$size" "syscalls_per_wr_$mode" \
				"$(awk -v c="$calls" -v n="$iters" 'BEGIN { printf "%.4f", c / n }')"
			if [ "$mode" = strace ]; then
				put xib-2ns "$tool" "$size" ioctls "${ioctls:-0}"
			else
				put xib-2ns "$tool" "$size" kicks_per_wr \
					"$(awk -v k=$((k1 - k0)) -v n="$iters" 'BEGIN { printf "%.4f", k / n }')"
			fi
		fi
		rm -f "$out" "$out.srv" "$out.trace"
	done
}

# perf's raw_syscalls tracepoint
[ -z "$sc_rows" ] || mountpoint -q /sys/kernel/tracing ||
	mount -t tracefs none /sys/kernel/tracing || status=1
for t in $sc_rows; do
	case $t in
	*_lat) sc "$t" 2 $((sc_wrs / 10)) ;;
	*) sc "$t" 64 "$sc_wrs" ;;
	esac
done

# --- an idle device's CPU -----------------------------------------------
# engine_ticks: CPU ticks (utime + stime) of every xib kernel thread
engine_ticks() {
	local p s=0 f
	for p in /proc/[0-9]*; do
		read -r f <"$p/comm" 2>/dev/null || continue
		[[ $f == xib* ]] || continue
		f=$(awk '{ print $14 + $15 }' "$p/stat" 2>/dev/null) || continue
		s=$((s + ${f:-0}))
	done
	echo "$s"
}
if want idle; then
	t0=$(engine_ticks)
	sleep "$idle_secs"
	t1=$(engine_ticks)
	put xib idle "${idle_secs}s" cpu_ms $(((t1 - t0) * 1000 / $(getconf CLK_TCK)))
fi

# --- RDMA CM connection setup -------------------------------------------
# cm NAME SERVER-PREFIX CLIENT-PREFIX ADDR: stock cmtime, cm_conns
# connections at once; each step's microseconds per connection.  cmtime's
# server keeps listening after its client is done, so it is stopped here.
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
			put "$name" cmtime "$cm_conns" "$st" "$(awk -v s="${st/_/ }" -F: \
				'$1 ~ "^"s" *$" { n = split($2, f, " "); print f[n] }' "$out")"
		done
	else
		fail_row "cmtime $name" "$out" "$out.srv"
		for st in $cm_steps; do put "$name" cmtime "$cm_conns" "$st" fail; done
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	rm -f "$out" "$out.srv"
}

want cm && cm xib-loop "ip netns exec xbA $xibrun" "ip netns exec xbA $xibrun" 10.212.0.1
if want cm && [ "$quick" != 1 ]; then
	cm rxe-loop "" "" 10.213.0.1
	cm xib-2ns "ip netns exec xbB $xibrun" "ip netns exec xbA $xibrun" 10.212.0.2
	cm "rxe->xib" "ip netns exec xbB $xibrun" "" 10.213.0.2
	cm "xib->rxe" "" "ip netns exec xbB $xibrun" 10.213.0.1
fi

# --- the tables ---------------------------------------------------------
# ratio A B HIGHER: A/B when higher is better, B/A when lower is
ratio() {
	awk -v a="$1" -v b="$2" -v h="$3" 'BEGIN {
		if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || a + 0 == 0 || b + 0 == 0) { print "-"; exit }
		printf "%.2f", h ? a / b : b / a }'
}

say ""
say "bandwidth, MB/s (perftest average); xib/rxe on one device"
for t in $bw_tools; do
	say "$(printf '%-12s %8s %10s %10s %10s %10s %8s' "$t" size xib-loop rxe-loop xib-2ns rxe-\>xib xib/rxe)"
	for s in $sizes; do
		a=$(get xib-loop "$t" "$s" MBps) b=$(get rxe-loop "$t" "$s" MBps)
		r=$(ratio "$a" "$b" 1)
		put ratio "$t" "$s" MBps "$r"
		say "$(printf '%-12s %8s %10s %10s %10s %10s %8s' "" "$s" "$a" "$b" \
			"$(get xib-2ns "$t" "$s" MBps)" "$(get 'rxe->xib' "$t" "$s" MBps)" "$r")"
	done
done

say ""
say "message rate, Mpps (ib_send_bw 64 B) and CPU seconds per GB (ib_write_bw 64 KiB)"
say "$(printf '%-22s %10s %10s %10s %10s %8s' measure xib-loop rxe-loop xib-2ns rxe-\>xib xib/rxe)"
for row in "ib_send_bw 64 Mpps 1" "ib_write_bw 65536 cpu_s_per_GB 0"; do
	set -- $row
	a=$(get xib-loop "$1" "$2" "$3") b=$(get rxe-loop "$1" "$2" "$3")
	r=$(ratio "$a" "$b" "$4")
	put ratio "$1" "$2" "$3" "$r"
	say "$(printf '%-22s %10s %10s %10s %10s %8s' "$3 $1" "$a" "$b" \
		"$(get xib-2ns "$1" "$2" "$3")" "$(get 'rxe->xib' "$1" "$2" "$3")" "$r")"
done

say ""
say "latency, usec at 2 B: typical / 99th percentile; rxe/xib on one device"
say "$(printf '%-14s %14s %14s %14s %14s %8s' tool xib-loop rxe-loop xib-2ns rxe-\>xib rxe/xib)"
for t in $lat_tools; do
	line=$(printf '%-14s' "$t")
	for c in xib-loop rxe-loop xib-2ns "rxe->xib"; do
		line+=$(printf ' %14s' "$(get "$c" "$t" 2 typical_us)/$(get "$c" "$t" 2 p99_us)")
	done
	r=$(ratio "$(get xib-loop "$t" 2 typical_us)" "$(get rxe-loop "$t" 2 typical_us)" 0)
	put ratio "$t" 2 typical_us "$r"
	say "$line$(printf ' %8s' "$r")"
done

say ""
say "QPs: ib_write_bw 64 KiB -q N, aggregate MB/s (and the share of one QP's)"
say "$(printf '%-6s %16s %16s %16s' "N" xib-loop rxe-loop xib-2ns)"
for q in $qp_counts; do
	line=$(printf '%-6s' "$q")
	for c in xib-loop rxe-loop xib-2ns; do
		a=$(get "$c" "ib_write_bw -q $q" 65536 MBps)
		one=$(get "$c" "ib_write_bw -q 1" 65536 MBps)
		line+=$(printf ' %16s' "$a ($(ratio "$a" "$one" 1))")
	done
	say "$line"
done
if want qps; then
	say ""
	say "xib-2ns QPs: the client's packets sent, the server's ACKs (per packet sent), tail-loss probes,"
	say "local ACK timeouts, times the device's budget held a QP back, duplicates received, sequence"
	say "NAKs sent, packets the receive backlogs dropped"
	say "$(printf '%-6s %10s %16s %7s %8s %8s %7s %6s %6s' N packets "acks (/pkt)" probes timeouts held dups naks drops)"
	for q in $qp_counts; do
		t="ib_write_bw -q $q"
		a=$(get xib-2ns "$t" 65536 acks) p=$(get xib-2ns "$t" 65536 tx_packets)
		say "$(printf '%-6s %10s %16s %7s %8s %8s %7s %6s %6s' "$q" "$p" "$a ($(ratio "$a" "$p" 3))" \
			"$(get xib-2ns "$t" 65536 tail_probes)" "$(get xib-2ns "$t" 65536 local_ack_timeouts)" \
			"$(get xib-2ns "$t" 65536 rc_inflight_held)" \
			"$(get xib-2ns "$t" 65536 rx_duplicate_requests)" \
			"$(get xib-2ns "$t" 65536 seq_naks_sent)" "$(get xib-2ns "$t" 65536 backlog_drops)")"
	done
fi

if want qpmem; then
	say ""
	say "kernel memory per xib QP (memory cgroup charge of one RC QP, KiB)"
	kib() {
		awk -v b="$1" 'BEGIN { if (b ~ /^[0-9]+$/) printf "%.1f", b / 1024; else print "-" }'
	}
	say "$(printf 'default (128 send / 512 receive WRs, 1 SGE)            %10s' \
		"$(kib "$(get xib qpmem default bytes_per_qp)")")"
	say "$(printf 'largest (%s WRs each way, %s SGEs, 512 B inline)  %10s' "${qp_max:-16384}" \
		"${sge_max:-32}" "$(kib "$(get xib qpmem max bytes_per_qp)")")"
	[ "$qpmem_many" = 0 ] ||
		say "$(printf '%s of %s QPs of 16 WRs created at once on one device, %s KiB each' \
			"$(get xib qpmem many created)" "$qpmem_many" \
			"$(kib "$(get xib qpmem many bytes_per_qp)")")"
fi

say ""
say "xib-2ns ib_write_bw 64 KiB against TCP over the same veth (iperf3), MB/s"
for m in $mtus; do
	a=$(get xib-2ns "ib_write_bw mtu$m" 65536 MBps) b=$(get tcp iperf3 "mtu$m" MBps)
	r=$(ratio "$a" "$b" 1)
	put ratio "tcp mtu$m" 65536 MBps "$r"
	say "$(printf 'MTU %-6s xib %10s   TCP %10s   xib/TCP %6s' "$m" "$a" "$b" "$r")"
done
a=$(get xib-loop ib_write_bw 65536 MBps) b=$(get guest memcpy 65536 MBps)
r=$(ratio "$a" "$b" 1)
put ratio memcpy 65536 MBps "$r"
say "$(printf 'memcpy 64 KiB %10s MB/s; xib-loop ib_write_bw 64 KiB / memcpy %6s' "$b" "$r")"

say ""
say "goodput under loss: validated ibv_rc_pingpong -c -s 65536 -n $pp_iters, Mbit/s (% of clean)"
for c in $loss_configs; do
	line=$(printf '%-10s' "$c")
	clean=$(get "$c" ibv_rc_pingpong loss0 Mbps)
	for l in $losses; do
		a=$(get "$c" ibv_rc_pingpong "loss$l" Mbps)
		p=$(awk -v a="$a" -v c="$clean" 'BEGIN {
			if (a ~ /^[0-9.]+$/ && c + 0 > 0) printf "%.0f%%", 100 * a / c; else print "-" }')
		line+=$(printf '   %s%%: %s (%s)' "$l" "$a" "$p")
	done
	say "$line"
done
say "xib's requesters in those runs: $rtx_names"
for c in $loss_configs; do
	for l in $losses; do
		line=$(printf '%-10s %3s%%:' "$c" "$l")
		for n in $rtx_names; do
			line+=" $(get "$c" ibv_rc_pingpong "loss$l" "$n")"
		done
		say "$line"
	done
done

say ""
say "system calls per WR, stock perftest client across namespaces (whole process, setup included;"
say "strace -f -c, which slows each call to milliseconds, and perf stat -e raw_syscalls:sys_enter;"
say "KICKs: both devices' kicks counters in the perf run; target <= 0.01)"
say "$(printf '%-12s %-4s %-8s %9s %9s %9s %7s' tool size WRs strace perf KICKs ioctls)"
for t in $sc_rows; do
	case $t in
	*_lat) set -- "$t" 2 $((sc_wrs / 10)) ;;
	*) set -- "$t" 64 "$sc_wrs" ;;
	esac
	say "$(printf '%-12s %-4s %-8s %9s %9s %9s %7s' "$1" "$2" "$3" \
		"$(get xib-2ns "$1" "$2" syscalls_per_wr_strace)" "$(get xib-2ns "$1" "$2" syscalls_per_wr_perf)" \
		"$(get xib-2ns "$1" "$2" kicks_per_wr)" "$(get xib-2ns "$1" "$2" ioctls)")"
done
say "idle: xib's kernel threads used $(get xib idle "${idle_secs}s" cpu_ms) ms of CPU in $idle_secs idle seconds"

say ""
say "RDMA CM connection setup: stock cmtime -c $cm_conns (usec per connection)"
say "$(printf '%-14s %10s %10s %10s %10s %10s' step xib-loop rxe-loop xib-2ns 'rxe->xib' 'xib->rxe')"
for st in $cm_steps; do
	line=$(printf '%-14s' "${st/_/ }")
	for c in xib-loop rxe-loop xib-2ns 'rxe->xib' 'xib->rxe'; do
		line+=$(printf ' %10s' "$(get "$c" cmtime "$cm_conns" "$st")")
	done
	say "$line"
done

# --- plots --------------------------------------------------------------
# bench-bw.png: ib_write_bw (the first bw tool) over sizes, per config;
# bench-ratio.png: the xib/rxe ratios (1 = parity)
plot() {
	local t=${bw_tools%% *} dat=$outdir/bench-bw.dat rat=$outdir/bench-ratio.dat c s
	{
		echo "size $configs"
		for s in $sizes; do
			line=$s
			for c in $configs; do
				v=$(get "$c" "$t" "$s" MBps)
				[[ $v =~ ^[0-9.]+$ ]] || v=NaN
				line+=" $v"
			done
			echo "$line"
		done
	} >"$dat"
	awk -F'\t' '$1 == "ratio" && $5 ~ /^[0-9.]+$/ {
		gsub(/ /, "_", $2); printf "\"%s %s %s\" %s\n", $2, $3, $4, $5 }' "$tsv" >"$rat"
	gnuplot <<-EOF || return 1
		set terminal pngcairo size 900,540 noenhanced
		set output "$outdir/bench-bw.png"
		set title "$t, MB/s over message size (stock perftest, TCG guest)"
		set logscale x 2
		set logscale y 10
		set format x "%.0b%B"
		set xlabel "message size, bytes (ki = 1024)"
		set ylabel "MB/s"
		set key top left
		set grid
		plot for [i=2:$(( $(wc -w <<<"$configs") + 1 ))] "$dat" using 1:i with linespoints title columnhead(i)
		set output "$outdir/bench-ratio.png"
		set title "xib / reference: rxe on one device, TCP over the veth, memcpy (1 = parity; latency and CPU as reference / xib)"
		unset logscale
		unset xlabel
		set format x "% h"
		set logscale y 2
		set style data histogram
		set style fill solid 0.6
		set boxwidth 0.8
		set xtics rotate by -45 font ",8"
		set ylabel "ratio"
		set key off
		plot "$rat" using 2:xtic(1), 1 with lines
	EOF
}
if want bw && ! plot >"$outdir/gnuplot.log" 2>&1; then
	fail_row plot "$outdir/gnuplot.log"
fi
want bw || plots=""
for f in ${plots-bench-bw.png bench-ratio.png}; do
	# a PNG starts with \x89 "PNG" \r \n \x1a \n
	if [ "$(head -c 8 "$outdir/$f" 2>/dev/null | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ]; then
		fail_row "plot $f is not a PNG" "$outdir/gnuplot.log"
	fi
done

# --- every row a number -------------------------------------------------
bad=$(awk -F'\t' '$5 == "fail" || $5 == "" { print $1, $2, $3, $4 }' "$tsv")
if [ -n "$bad" ]; then
	say ""
	say "rows without a number:"
	say "$bad"
	status=1
fi

# --- the in-module profile of three xib-loop runs (profile.sh) -----------
if want profile; then
	XIB_PROFILE_NS=xbA XIB_PROFILE_DEV=xib0 XIB_PROFILE_ADDR=${ADDR[xib-loop]} \
		XIB_OUT=$outdir XIB_BENCH_QUICK=$quick "$root/tests/bench/profile.sh" |
		tee -a "$txt" || status=1
fi

want syscalls || { say "results: $tsv, $txt"; exit $status; }
say ""
say "in-tree floor (one private program driving the rings, not perftest):"
dev=$(ip netns exec xbA sh -c 'ls -d /sys/class/xib/xib0/uverbs* /sys/class/xib/xib0/*/uverbs* 2>/dev/null' | head -n1)
if [ -n "$dev" ]; then
	# -m: a figure, not a judgement (verbs.bats judges it)
	ip netns exec xbA "$root/tests/bench/syscalls-per-wr.sh" -d "/dev/xib/${dev##*/}" \
		-n "$sc_wrs" -m 1000000 | tee -a "$txt" || status=1
else
	say "no uverbs node for xib0"
	status=1
fi
say "results: $tsv, $txt, $outdir/bench-bw.png, $outdir/bench-ratio.png"
exit $status
