# SPDX-License-Identifier: GPL-2.0
# Helpers of the suites that run stock rdma-core/perftest programs on xib
# (ibverbs-utils.bats, perftest.bats, rxe-interop.bats, rdmacm.bats,
# rdmacm-rxe.bats) and of make demo (tests/demo/demo-guest.sh).  Loaded
# after helpers.bash.
#
# Topology (xib_apps_topology):
#   namespace xibA: veth xv0 10.211.0.1/24, xib0 on it
#   namespace xibB: veth xv1 10.211.0.2/24, xib1 on it
# and, with xib_apps_rxe_topology, rdma_rxe in the initial namespace:
#   initial:  veth xr0 10.212.0.1/24, rxe0 on it (system libibverbs + rxe)
#   xibB:     veth xr1 10.212.0.2/24, xib2 on it
#
# xib's side always runs through xib-run ($XR); rxe's side never does.

XIB_BUILD=${XIB_BUILD:-${XIB_ROOT:-.}/build}
XR=$XIB_BUILD/bin/xib-run
XIB_SEM=$XIB_BUILD/tests/c/ibv_semantics

xib_apps_require() {
	xib_require_vm
	[ -x "$XR" ] || skip "xib-run not built (make userspace)"
	[ -f "$XIB_BUILD/lib/xib/libibverbs.so.1" ] ||
		skip "libibverbs.so.1 not built (make userspace)"
}

# Wait (at most $3 s, default 20) until port $2 of device $1 (in namespace
# $NS, "" for the initial one) is ACTIVE and has a RoCEv2 GID for IPv4
# address $4.  Prints the GID index.
xib_gid_index() {
	local ns=$1 dev=$2 ip=$3 t=${4:-20} i out idx
	for ((i = 0; i < t * 10; i++)); do
		out=$(ip netns exec "$ns" xibctl port show "$dev/1" 2>/dev/null)
		idx=$(sed -n "s/.*gid \([0-9]*\) ::ffff:$ip RoCEv2.*/\1/p" <<<"$out")
		if [[ "$out" == *"state ACTIVE"* ]] && [ -n "$idx" ]; then
			echo "$idx"
			return 0
		fi
		xib_nap 0.1
	done
	echo "xib_gid_index: $dev in $ns never ACTIVE with ::ffff:$ip: $out" >&2
	return 1
}

# rdma_rxe device $1: the index of its RoCE v2 GID for IPv4 address $2.
rxe_gid_index() {
	local dev=$1 ip=$2 t=${3:-20} i f n want
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${ip//./ })
	for ((i = 0; i < t * 10; i++)); do
		for f in /sys/class/infiniband/"$dev"/ports/1/gids/*; do
			n=${f##*/}
			[ "$(cat "$f" 2>/dev/null)" = "$want" ] || continue
			[ "$(cat /sys/class/infiniband/"$dev"/ports/1/gid_attrs/types/"$n" 2>/dev/null)" = "RoCE v2" ] ||
				continue
			echo "$n"
			return 0
		done
		xib_nap 0.1
	done
	echo "rxe_gid_index: no RoCE v2 GID $want on $dev" >&2
	return 1
}

xib_apps_topology() {
	xib-modules load
	xib_ns_pair xibA xibB xv0 xv1 10.211.0.1/24 10.211.0.2/24 || return 1
	inA xibctl link add xib0 netdev xv0
	inB xibctl link add xib1 netdev xv1
	GIDA=$(xib_gid_index xibA xib0 10.211.0.1) || return 1
	GIDB=$(xib_gid_index xibB xib1 10.211.0.2) || return 1
	bg_pid=
}

xib_apps_rxe_topology() {
	xib-modules load
	xib_load_rxe || return 1
	[ -e /run/netns/xibB ] || ip netns add xibB
	ip link add xr0 type veth peer name xr1 netns xibB
	ip addr add 10.212.0.1/24 dev xr0
	ip -n xibB addr add 10.212.0.2/24 dev xr1
	ip -n xibB link set lo up
	ip link set xr0 up
	ip -n xibB link set xr1 up
	rdma link add rxe0 type rxe netdev xr0 || return 1
	inB xibctl link add xib2 netdev xr1
	GIDX=$(xib_gid_index xibB xib2 10.212.0.2) || return 1
	GIDR=$(rxe_gid_index rxe0 10.212.0.1) || return 1
	bg_pid=
}

xib_apps_teardown() {
	xib_bg_stop
	rdma link delete rxe0 2>/dev/null || true
	ip link del xr0 2>/dev/null || true
	xib_ns_del xibA xibB
	xib_wait_gone xib0 xib1 xib2
	xib-modules unload
	xib_unload_rxe
}

# xib_bg NS OUTFILE COMMAND...: start a server in namespace NS ("" = the
# initial one) in the background; its pid in bg_pid.  The command is
# exec'ed by "ip netns exec" (and by xib-run), so bg_pid is the program.
xib_bg() {
	local ns=$1 out=$2
	shift 2
	if [ -n "$ns" ]; then
		ip netns exec "$ns" "$@" >"$out" 2>&1 &
	else
		"$@" >"$out" 2>&1 &
	fi
	bg_pid=$!
}

xib_bg_stop() {
	if [ -n "${bg_pid:-}" ]; then
		kill -9 "$bg_pid" 2>/dev/null || true
		wait "$bg_pid" 2>/dev/null || true
		bg_pid=
	fi
}

# Wait (at most $3 s) until TCP port $2 listens in namespace $1 ("" = the
# initial one), or the server died: process $4, by default $bg_pid.
xib_wait_listen() {
	local ns=$1 port=$2 t=$3 pid=${4:-${bg_pid:-}} i
	for ((i = 0; i < t * 10; i++)); do
		if [ -n "$ns" ]; then
			ip netns exec "$ns" ss -ltnH "sport = :$port" | grep -q . && return 0
		else
			ss -ltnH "sport = :$port" | grep -q . && return 0
		fi
		kill -0 "$pid" 2>/dev/null || { echo "server exited before listening" >&2; return 1; }
		xib_nap 0.1
	done
	echo "nothing listens on port $port in ${ns:-the initial namespace} after $t s" >&2
	return 1
}

# Wait (at most $2 s) until process $1 listens on an RDMA CM: on
# /dev/xib/rdma_cm (xib's librdmacm; the channel's fdinfo counts its
# listeners) or on the kernel's /dev/infiniband/rdma_cm (the system's
# librdmacm over rdma_rxe; "rdma resource show cm_id" lists its ids).
wait_cm_listen() {
	local pid=$1 t=$2 i fd dev
	for ((i = 0; i < t * 10; i++)); do
		for fd in /proc/"$pid"/fd/*; do
			dev=$(readlink "$fd" 2>/dev/null) || continue
			if [ "$dev" = /dev/xib/rdma_cm ]; then
				grep -q '^listeners:[[:space:]]*[1-9]' \
					/proc/"$pid"/fdinfo/"${fd##*/}" 2>/dev/null && return 0
			elif [ "$dev" = /dev/infiniband/rdma_cm ]; then
				rdma resource show cm_id 2>/dev/null |
					grep -q "state LISTEN .*pid $pid " && return 0
			fi
		done
		kill -0 "$pid" 2>/dev/null || { echo "server $pid exited before listening" >&2; return 1; }
		xib_nap 0.1
	done
	echo "server $pid does not listen after $t s" >&2
	return 1
}

# Wait (at most $1 s) for the background server; its status in bg_status.
xib_bg_wait() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		if ! kill -0 "$bg_pid" 2>/dev/null; then
			wait "$bg_pid" && bg_status=0 || bg_status=$?
			bg_pid=
			return 0
		fi
		sleep 0.1
	done
	echo "server $bg_pid still running after $1 s" >&2
	return 1
}

# xib_pair TIMEOUT SERVER_NS CLIENT_NS -- SERVER_CMD... -- CLIENT_CMD...
# Run a client/server pair on TCP port 18515 (pingpongs, perftest): the
# server in the background, the client in the foreground once the server
# listens.  Sets srv_out, srv_status, cli_out, cli_status; prints both.
xib_pair() {
	local t=$1 sns=$2 cns=$3 srv=() cli=()
	shift 3
	[ "$1" = -- ] && shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	srv_out=$BATS_TEST_TMPDIR/server.out
	xib_bg "$sns" "$srv_out" "${srv[@]}"
	if ! xib_wait_listen "$sns" 18515 "$t"; then
		cat "$srv_out"
		return 1
	fi
	cli_status=0
	if [ -n "$cns" ]; then
		cli_out=$(ip netns exec "$cns" timeout "$t" "${cli[@]}" 2>&1) || cli_status=$?
	else
		cli_out=$(timeout "$t" "${cli[@]}" 2>&1) || cli_status=$?
	fi
	srv_status=
	# A failed client leaves many servers waiting for ever: 5 s is plenty.
	local sw=$t
	[ "$cli_status" = 0 ] || sw=5
	if xib_bg_wait "$sw"; then
		srv_status=$bg_status
	else
		xib_bg_stop
	fi
	echo "--- server (${sns:-initial namespace}): ${srv[*]} -> ${srv_status:-still running}"
	cat "$srv_out"
	echo "--- client (${cns:-initial namespace}): ${cli[*]} -> $cli_status"
	echo "$cli_out"
}

# The average bandwidth (MB/s) of a perftest BW report in file/string $1:
# the line after the "#bytes" header, column "BW average[MB/sec]" (4th).
perf_bw() {
	awk '/^ *#bytes/ { h = 1; next } h && NF >= 4 && $1 ~ /^[0-9]+$/ { print $4; exit }' <<<"$1"
}

# The average latency (usec) of a perftest latency report: column t_avg (6th).
perf_lat() {
	awk '/^ *#bytes/ { h = 1; next } h && NF >= 6 && $1 ~ /^[0-9]+$/ { print $6; exit }' <<<"$1"
}

# port_flap NS IF OUT: take IF (in namespace NS) down until ibv_asyncwatch's
# output OUT shows PORT_ERR, then up until it shows PORT_ACTIVE, 10 s each
# at most; port_events_ok OUT then checks both events of port 1, in order.
port_flap() {
	ip netns exec "$1" ip link set "$2" down
	for _ in $(seq 100); do
		grep -q PORT_ERR "$3" && break
		xib_nap 0.1
	done
	ip netns exec "$1" ip link set "$2" up
	for _ in $(seq 100); do
		grep -q PORT_ACTIVE "$3" && break
		xib_nap 0.1
	done
}

port_events_ok() {
	grep -Eq 'event_type IBV_EVENT_PORT_ERR \(10\), port 1' "$1"
	grep -Eq 'event_type IBV_EVENT_PORT_ACTIVE \(9\), port 1' "$1"
	[ "$(grep -n PORT_ERR "$1" | head -1 | cut -d: -f1)" -lt \
	  "$(grep -n PORT_ACTIVE "$1" | tail -1 | cut -d: -f1)" ]
}

# A positive finite number?
positive() {
	awk -v v="$1" 'BEGIN { exit !(v ~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ && v + 0 > 0) }'
}

# perf_pair: xib_pair for perftest, run again (at most 3 runs in all) only
# when the report failed because perftest could not measure the TSC rate
# in the VM (see perftest.bats).
perf_pair() {
	local i
	for i in 1 2 3; do
		xib_pair "$@"
		grep -q "Can't produce a report" <<<"$cli_out" || return 0
		echo "# run $i: perftest could not time the run (TSC fit); again"
	done
}
