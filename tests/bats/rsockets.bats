#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# rsockets: xib's implementation (userspace/librdmacm/rsocket*.c) against
# rdma-core 44's, on the wire.
#
# Part 1, over rdma_rxe: the stock rdmacm-utils programs (rstream, rcopy,
# riostream, udpong) run on one side with the system's librdmacm, and on
# the other side with xib's rsockets preloaded (build/tests/lib/
# librsocket-sys.so: the same rsocket sources built against the system's
# rdma_cm and verbs, since the protocol is what is under test here).
# Both directions, and xib against xib.  rxe works only in the initial
# namespace, so both ends use rxe0 on veth xrs0 (10.213.0.1); rxe loops
# the packets back.
#
# Part 2, xib <-> xib across namespaces through xib's own librdmacm.so.1
# (xib-run), over the kernel RDMA CM (/dev/xib/rdma_cm).  Those tests
# fail, they do not skip, when xib's CM cannot make a connection (see
# xib_cm_probe in setup_file).
#
# Sizes shrink on the debug kernel (KASAN in TCG).

load helpers
load xib-apps

RS_IP=10.213.0.1

setup_file() {
	xib_require_vm
	RSLIB=${XIB_BUILD:-$XIB_ROOT/build}/tests/lib/librsocket-sys.so
	[ -f "$RSLIB" ] || skip "librsocket-sys.so not built (make userspace)"
	export RSLIB
	if [ "${XIB_KERNEL:-}" = debug ]; then
		RS_SIZES=${XIB_RS_SIZES:-"64 4096 65536"}
		RS_COUNT=${XIB_RS_COUNT:-20}
		RS_BYTES=${XIB_RS_BYTES:-1048576}
		RS_FILE_KB=${XIB_RS_FILE_KB:-256}
	else
		# inline, one transfer, segmented (make soak: more of each)
		RS_SIZES=${XIB_RS_SIZES:-"64 4096 1048576"}
		RS_COUNT=${XIB_RS_COUNT:-50}
		RS_BYTES=${XIB_RS_BYTES:-4194304}
		RS_FILE_KB=${XIB_RS_FILE_KB:-2048}
	fi
	export RS_SIZES RS_COUNT RS_BYTES RS_FILE_KB
	xib_load_rxe || return 1
	# the stock kernel has the RDMA CM as modules, the debug kernel built in
	modprobe -q rdma_ucm 2>/dev/null || true
	[ -e /dev/infiniband/rdma_cm ] || { echo "no /dev/infiniband/rdma_cm" >&2; return 1; }
	ip link add xrs0 type veth peer name xrs1
	ip addr add $RS_IP/24 dev xrs0
	ip link set xrs0 up
	ip link set xrs1 up
	rdma link add rxs0 type rxe netdev xrs0 || return 1
	rxe_gid_index rxs0 $RS_IP >/dev/null || return 1
	export XIB_LOADED_RXE
	# part 2: xib0 in xibA (10.211.0.1), xib1 in xibB (10.211.0.2)
	xib_apps_topology || return 1
	export GIDA GIDB
	XIB_CM_OK=
	xib_cm_probe && XIB_CM_OK=1
	export XIB_CM_OK
	RS_PORT_FILE=$BATS_FILE_TMPDIR/port
	echo 7500 >"$RS_PORT_FILE"
	export RS_PORT_FILE
}

# Can xib's own librdmacm.so.1 make an RDMA CM connection between xibA
# and xibB at all?  Probed with rdma-core's rdma_server/rdma_client (not
# an rsockets program, so no rsockets bug can turn part 2 into skips).
xib_cm_probe() {
	local out=$BATS_FILE_TMPDIR/cm-probe.out pid st=0
	[ -e /dev/xib/rdma_cm ] || { echo "# no /dev/xib/rdma_cm" >&3; return 1; }
	ip netns exec xibA "$XR" rdma_server -s 10.211.0.1 -p 7399 >"$out" 2>&1 &
	pid=$!
	if wait_cm_listen "$pid" 30 >>"$out" 2>&1; then
		ip netns exec xibB timeout 30 "$XR" rdma_client -s 10.211.0.1 -p 7399 >>"$out" 2>&1 || st=$?
	else
		st=listen
	fi
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	if [ "$st" != 0 ]; then
		echo "# xib's RDMA CM cannot connect (rdma_client: $st), part 2 fails:" >&3
		sed 's/^/#   /' "$out" >&3
		return 1
	fi
	return 0
}

teardown_file() {
	if [ -z "${XIB_MODDIR:-}" ]; then
		return 0
	fi
	xib_apps_teardown
	# (every test's teardown stopped its server: a server left behind
	# would keep rxs0 busy and its removal waiting)
	rdma link delete rxs0 2>/dev/null || true
	ip link del xrs0 2>/dev/null || true
	xib_unload_rxe
}

setup() {
	xib_require_vm
	bg_pid=
	# a fresh port per test: no waiting for the CM's time-wait
	RS_PORT=$(($(cat "$RS_PORT_FILE") + 1))
	echo $RS_PORT >"$RS_PORT_FILE"
}

teardown() {
	xib_bg_stop
}

# rs_run stock|xib PROGRAM ARGS...: the program with the system's
# rsockets or with xib's preloaded.
rs_run() {
	local who=$1
	shift
	if [ "$who" = xib ]; then
		LD_PRELOAD=$RSLIB "$@"
	else
		"$@"
	fi
}

# rs_bg stock|xib OUTFILE PROGRAM ARGS...: a server in the background; its
# pid (the program's own, so that teardown's kill reaches it) in bg_pid.
rs_bg() {
	local who=$1 out=$2
	shift 2
	if [ "$who" = xib ]; then
		LD_PRELOAD=$RSLIB "$@" >"$out" 2>&1 &
	else
		"$@" >"$out" 2>&1 &
	fi
	bg_pid=$!
}

# Wait (at most $1 s) until an rdma_cm id listens on $RS_PORT.
rs_wait_listen() {
	local i
	for ((i = 0; i < $1 * 10; i++)); do
		rdma res show cm_id 2>/dev/null | grep -q "state LISTEN.*:$RS_PORT\b" && return 0
		rdma res show cm_id 2>/dev/null | grep -q "src-addr [0-9.]*:$RS_PORT .*LISTEN" && return 0
		kill -0 "$bg_pid" 2>/dev/null || { echo "server exited before listening" >&2; return 1; }
		sleep 0.1
	done
	echo "nothing listens on rdma_cm port $RS_PORT after $1 s" >&2
	rdma res show cm_id >&2
	return 1
}

# rs_pair SERVER_WHO CLIENT_WHO TIMEOUT -- SERVER_CMD... -- CLIENT_CMD...
# Sets srv_out, srv_status, cli_out, cli_status and prints both.
rs_pair() {
	local sw=$1 cw=$2 t=$3 srv=() cli=()
	shift 3
	[ "$1" = -- ] && shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	srv_out=$BATS_TEST_TMPDIR/server.out
	rs_bg "$sw" "$srv_out" "${srv[@]}"
	if ! rs_wait_listen 20; then
		cat "$srv_out"
		return 1
	fi
	cli_status=0
	cli_out=$(rs_run "$cw" timeout "$t" "${cli[@]}" 2>&1) || cli_status=$?
	srv_status=
	local w=$t
	[ "$cli_status" = 0 ] || w=5
	if xib_bg_wait "$w"; then
		srv_status=$bg_status
	fi
	echo "# server (${srv[*]}):"
	sed 's/^/#   /' "$srv_out"
	echo "# client (${cli[*]}): status $cli_status"
	sed 's/^/#   /' <<<"$cli_out"
}

# Transfers of $1 bytes: $RS_COUNT, fewer for big sizes (RS_BYTES in all).
rs_count() {
	local n=$((RS_BYTES / $1))
	[ "$n" -gt "$RS_COUNT" ] && n=$RS_COUNT
	[ "$n" -lt 2 ] && n=2
	echo $n
}

# A size as rstream/riostream print it (common.c's size_str): 4k, 64k, 1m.
rs_size_str() {
	if [ "$1" -ge 1048576 ] && [ $(($1 % 1048576)) -eq 0 ]; then
		echo "$(($1 / 1048576))m"
	elif [ "$1" -ge 1024 ] && [ $(($1 % 1024)) -eq 0 ]; then
		echo "$(($1 / 1024))k"
	else
		echo "$1"
	fi
}

# PROGRAM between SERVER_WHO and CLIENT_WHO for every size, options $4...
# Both sides print "custom SIZE TRANSFERS ..." once all data went through
# (and, with -T v, was verified).
#
# -B 500000: the tools' default buffer option (512 KiB) makes 1 MiB
# receive rings, 256 pages, and 6.1's rdma_rxe reads one pointer past its
# page map (rxe_mr_copy: map++ after the last buffer of the last map)
# whenever an RDMA WRITE ends exactly at the end of such a memory region,
# which KASAN reports on the debug kernel.  That is rxe's bug, hit by any
# rsockets implementation (rdma-core's too); rings of 1,000,000 bytes
# (245 pages) stay clear of it.
rs_matrix() {
	local prog=$1 s=$2 c=$3 size n shown
	shift 3
	for size in $RS_SIZES; do
		n=$(rs_count "$size")
		shown=$(rs_size_str "$size")
		rs_pair "$s" "$c" 120 -- "$prog" -b $RS_IP -p "$RS_PORT" -C "$n" -S "$size" -B 500000 "$@" \
			-- "$prog" -s $RS_IP -p "$RS_PORT" -C "$n" -S "$size" -B 500000 "$@"
		[ "$cli_status" -eq 0 ]
		[ "$srv_status" = 0 ]
		grep -Eq "^custom[[:space:]]+$shown[[:space:]]+$n[[:space:]]" <<<"$cli_out"
		grep -Eq "^custom[[:space:]]+$shown[[:space:]]+$n[[:space:]]" "$srv_out"
		RS_PORT=$((RS_PORT + 1))
		echo $RS_PORT >"$RS_PORT_FILE"
	done
}

rstream_matrix() {
	rs_matrix rstream "$@"
}

@test "rstream -T v (verify, nonblocking+poll): stock server, xib client" {
	rstream_matrix stock xib -T v
}

@test "rstream -T v (verify, nonblocking+poll): xib server, stock client" {
	rstream_matrix xib stock -T v
}

@test "rstream -T bv (blocking, verify): stock server, xib client" {
	rstream_matrix stock xib -T b -T v
}

@test "rstream -T bv (blocking, verify): xib server, stock client" {
	rstream_matrix xib stock -T b -T v
}

@test "rstream -T av (async: rpoll, verify): xib server, xib client" {
	rstream_matrix xib xib -T a -T v
}

# rcopy FILE to a server of SERVER_WHO from a client of CLIENT_WHO.
rcopy_check() {
	local src=$BATS_TEST_TMPDIR/src dst=$BATS_TEST_TMPDIR/dst
	head -c $((RS_FILE_KB * 1024 + 123)) /dev/urandom >"$src"
	rs_bg "$1" "$BATS_TEST_TMPDIR/server.out" rcopy -p "$RS_PORT"
	rs_wait_listen 20 || { cat "$BATS_TEST_TMPDIR/server.out"; return 1; }
	run rs_run "$2" timeout 120 rcopy "$src" "$RS_IP:$dst" -p "$RS_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(sha256sum <"$src")" = "$(sha256sum <"$dst")" ]
}

@test "rcopy: stock server, xib client, checksums equal" {
	rcopy_check stock xib
}

@test "rcopy: xib server, stock client, checksums equal" {
	rcopy_check xib stock
}

# riostream: riomap/riowrite between SERVER_WHO and CLIENT_WHO.
riostream_check() {
	rs_matrix riostream "$1" "$2" -T v
}

@test "riostream -T v (iomap writes): stock server, xib client" {
	riostream_check stock xib
}

@test "riostream -T v (iomap writes): xib server, stock client" {
	riostream_check xib stock
}

# udpong (datagram rsockets over UD) with echo: SERVER_WHO, CLIENT_WHO.
# The server runs until killed; the client exits 0 once every message
# came back, and counts each message both ways (2 x n transfers).
udpong_check() {
	local size=${3:-1000} n=${4:-200}
	rs_bg "$1" "$BATS_TEST_TMPDIR/server.out" udpong -b $RS_IP -p "$RS_PORT"
	xib_wait_udp "$RS_PORT" 20 || { cat "$BATS_TEST_TMPDIR/server.out"; return 1; }
	run rs_run "$2" timeout 120 udpong -s $RS_IP -p "$RS_PORT" -C "$n" -S "$size" -T e
	echo "$output"
	sed 's/^/# server: /' "$BATS_TEST_TMPDIR/server.out"
	[ "$status" -eq 0 ]
	grep -Eq "^custom[[:space:]]+$size[[:space:]]+$((2 * n))[[:space:]]" <<<"$output"
}

# Wait (at most $2 s) for a UDP socket on port $1 (a datagram rsocket's).
xib_wait_udp() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		ss -lunH "sport = :$1" | grep -q . && return 0
		kill -0 "$bg_pid" 2>/dev/null || { echo "server exited" >&2; return 1; }
		sleep 0.1
	done
	echo "no UDP socket on port $1 after $2 s" >&2
	return 1
}

@test "udpong -T e (datagrams over UD): xib server, xib client" {
	udpong_check xib xib
}

# rdma-core 44's datagram rsockets cannot run over RoCE: each UD QP gets
# an address handle to itself without a GRH, which a RoCE port refuses, so
# its rconnect/rsendto fails (ENOENT) before a packet leaves.  Datagram
# interop with rdma-core is possible only on InfiniBand, which the test VM
# does not have.  This pins that fact down: should a later rdma-core work
# here, this fails and the interop tests belong here instead.
@test "udpong: rdma-core's own datagram rsockets fail on RoCE (rxe), hence no interop test" {
	rs_bg xib "$BATS_TEST_TMPDIR/server.out" udpong -b $RS_IP -p "$RS_PORT"
	xib_wait_udp "$RS_PORT" 20
	run timeout 60 udpong -s $RS_IP -p "$RS_PORT" -C 10 -S 100 -T e
	echo "$output"
	[ "$status" -ne 0 ]
	grep -q "rconnect: No such file or directory" <<<"$output"
}

# tests/c/rsocket_api.c: API semantics, both ends in one process; the
# same checks against rdma-core's rsockets (the reference) and xib's.
rs_api() {
	local bin=${XIB_BUILD:-$XIB_ROOT/build}/tests/c/rsocket_api
	[ -x "$bin" ] || { echo "rsocket_api not built (make userspace)"; return 1; }
	run rs_run "$1" timeout 120 "$bin" $RS_IP $((RS_PORT * 10 % 60000 + 1000)) ${2:-}
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -q '^not ok' <<<"$output"
	[ "$(grep -c '^ok' <<<"$output")" -eq 7 ]
}

# rdma-core 44 stalls now and then with a blocking sender and a blocking
# receiver on one socket (one of two runs here): no reference for that one.
@test "rsocket_api (rpoll+pipe, nonblocking, peek, shutdown; no threads): rdma-core's" {
	rs_api stock nothreads
}

@test "rsocket_api (threads, rpoll+pipe, nonblocking, peek, shutdown): xib's" {
	rs_api xib
}

# --- part 2: xib <-> xib through xib's librdmacm.so.1 ----------------------

# They fail, not skip, when xib_cm_probe could not connect: the RDMA CM
# is part of xib, and its failure is a failure of these tests.
xib_cm_require() {
	if [ -z "${XIB_CM_OK:-}" ]; then
		echo "xib's RDMA CM could not connect rdma_server and rdma_client (see the file's setup output)" >&2
		return 1
	fi
}

# xib_pair_rs TIMEOUT -- SERVER_CMD... -- CLIENT_CMD...: server in xibA,
# client in xibB, both through xib-run.
xib_pair_rs() {
	local t=$1 srv=() cli=()
	shift 2
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	srv_out=$BATS_TEST_TMPDIR/server.out
	xib_bg xibA "$srv_out" "$XR" "${srv[@]}"
	if ! wait_cm_listen "$bg_pid" 30; then
		cat "$srv_out"
		return 1
	fi
	cli_status=0
	cli_out=$(ip netns exec xibB timeout "$t" "$XR" "${cli[@]}" 2>&1) || cli_status=$?
	srv_status=
	if xib_bg_wait $([ "$cli_status" = 0 ] && echo "$t" || echo 5); then
		srv_status=$bg_status
	fi
	echo "# server: $(cat "$srv_out")"
	echo "# client: status $cli_status: $cli_out"
}

@test "xib <-> xib (namespaces, xib-run): rstream -T v, every size" {
	local size n
	xib_cm_require
	for size in $RS_SIZES; do
		n=$(rs_count "$size")
		xib_pair_rs 120 -- rstream -b 10.211.0.1 -p "$RS_PORT" -C "$n" -S "$size" -T v \
			-B 500000 -- rstream -s 10.211.0.1 -p "$RS_PORT" -C "$n" -S "$size" -T v -B 500000
		[ "$cli_status" -eq 0 ]
		[ "$srv_status" = 0 ]
		grep -Eq "^custom[[:space:]]+$(rs_size_str "$size")[[:space:]]+$n[[:space:]]" <<<"$cli_out"
		RS_PORT=$((RS_PORT + 1))
	done
}

@test "xib <-> xib (namespaces, xib-run): rcopy, checksums equal" {
	local src=$BATS_TEST_TMPDIR/src dst=$BATS_TEST_TMPDIR/dst
	xib_cm_require
	head -c $((RS_FILE_KB * 1024 + 7)) /dev/urandom >"$src"
	xib_bg xibA "$BATS_TEST_TMPDIR/server.out" "$XR" rcopy -p "$RS_PORT"
	wait_cm_listen "$bg_pid" 30 || { cat "$BATS_TEST_TMPDIR/server.out"; return 1; }
	run ip netns exec xibB timeout 120 "$XR" rcopy "$src" "10.211.0.1:$dst" -p "$RS_PORT"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(sha256sum <"$src")" = "$(sha256sum <"$dst")" ]
}

@test "xib <-> xib (namespaces, xib-run): riostream -T v" {
	local size=65536 n
	xib_cm_require
	n=$(rs_count $size)
	xib_pair_rs 120 -- riostream -b 10.211.0.1 -p "$RS_PORT" -C "$n" -S $size -T v \
		-- riostream -s 10.211.0.1 -p "$RS_PORT" -C "$n" -S $size -T v
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
}
