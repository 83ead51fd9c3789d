#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# xib's PCI front end (Documentation/pcie.rst): the guest has QEMU's
# ivshmem-doorbell function at 01:00.0 (behind a PCIe root port), served by
# tests/vm/xib-ivshmem-server (tests/vm/vm-test gives it to every guest
# that runs this file).  xib_hca binds it only when its shared memory
# carries xib's signature, with MSI-X enabled and its own doorbell seen
# coming back as an interrupt on both vectors; unbind, hot removal and
# rescan, and module unload with the function bound free everything
# (the debug kernel's kmemleak and KASAN watch).
#
# An xib device on the function ("xibctl link add xibp netdev xv0 pci
# 0000:01:00.0" in namespace xibA, the topology of xib-apps.bash with
# xib1 in xibB as its peer): stock pingpongs with their data checked, the
# device's doorbells written by the library to the function's UAR (BAR0's
# page mapped into the process) and coming back as its doorbell vector's
# interrupts, with no KICK system call, its completion and async events
# delivered by its event vector, and a function level reset and hot
# removal of the function under traffic: the device goes, its users get
# DEVICE_FATAL.
#
# The debug kernel's time (KASAN under TCG) goes mostly to loading and
# unloading modules and to starting programs, so the tests share them: a
# test that passes leaves the modules loaded, and the topology up, for
# the next (each brings what it needs, the first finds nothing loaded);
# a test that fails cleans up everything, and teardown_file does at the
# end.

load helpers
load xib-apps

bdf=0000:01:00.0
dev=/sys/bus/pci/devices/$bdf
drv=/sys/bus/pci/drivers/xib_hca

setup() {
	xib_require_vm
	# The harness gives this suite the function: its absence is a failure.
	[ "$(cat "$dev/vendor"):$(cat "$dev/device")" = 0x1af4:0x1110 ]
}

# Everything back as the suite found it.
pcie_cleanup() {
	xib_ns_del xibA xibB
	xib_wait_gone xibp xib1
	# a test that removed the function brings it back
	[ -e "$dev" ] || echo 1 >/sys/bus/pci/rescan
	xib-modules unload
}

teardown() {
	# a test that changed the signature puts the device side's back
	[ -z "${saved_sig:-}" ] || sig restore "$saved_sig"
	xib_bg_stop
	[ -z "${watch_pid:-}" ] || kill -9 "$watch_pid" 2>/dev/null || true
	# a passing test leaves its modules and topology to the next
	[ "${BATS_TEST_COMPLETED:-}" = 1 ] || pcie_cleanup
}

teardown_file() {
	pcie_cleanup
}

debug_kernel() {
	[ "${XIB_KERNEL:-}" = debug ]
}

# The pingpongs' iterations: fewer in the debug kernel (KASAN under TCG).
pp_iters() {
	if debug_kernel; then echo 50; else echo 1000; fi
}

# xibp on the function in xibA, xib1 in xibB; GIDA and GIDB.  What an
# earlier test left is reused.
pci_topology() {
	xib-modules load
	[ -e /run/netns/xibA ] ||
		xib_ns_pair xibA xibB xv0 xv1 10.211.0.1/24 10.211.0.2/24
	# (a device in another namespace than the initial one's is not in its
	# /sys/class/xib)
	inA xibctl dev show xibp >/dev/null 2>&1 ||
		inA xibctl link add xibp netdev xv0 pci "$bdf"
	inB xibctl dev show xib1 >/dev/null 2>&1 || inB xibctl link add xib1 netdev xv1
	GIDA=$(xib_gid_index xibA xibp 10.211.0.1)
	GIDB=$(xib_gid_index xibB xib1 10.211.0.2)
	bg_pid=
}

# uar_check UVERBS-NODE...: XIB_UVERBS_GET_CONTEXT on each node (one
# context each, one process: python's start is slow in the debug guest)
# and, where db_kind is XIB_UVERBS_DB_MMIO, the UAR's mapping rules
# (include/uapi/xib/uverbs.h): only one writable, non-executable page
# maps; then RINGS doorbells through it.  Prints per node "kind REG
# VALUE" and the errnos of the refused mappings.
uar_check() {
	python3 -c '
import errno, fcntl, mmap, os, struct, sys
rings = int(sys.argv[1])
req = (3 << 30) | (40 << 16) | (0xb8 << 8) | 0x00	# _IOWR(0xb8, 0, 40)
def try_map(fd, size, prot, off):
    try:
        m = mmap.mmap(fd, size, flags=mmap.MAP_SHARED, prot=prot, offset=off)
    except OSError as e:
        return errno.errorcode[e.errno], None
    return "ok", m
for node in sys.argv[2:]:
    fd = os.open(node, os.O_RDWR)
    buf = bytearray(40)
    fcntl.ioctl(fd, req, buf, True)
    (abi, afd, ncv, dbsz, dboff, kind, reg, val, uaroff) = \
        struct.unpack("<IiIIQHHIQ", buf)
    out = ["kind %u reg %u value %#x" % (kind, reg, val)]
    if kind == 1:
        pg = mmap.PAGESIZE
        W, R, X = mmap.PROT_WRITE, mmap.PROT_READ, mmap.PROT_EXEC
        for name, size, prot in (("ro", pg, R), ("exec", pg, W | X),
                                 ("2pages", 2 * pg, W), ("rw", pg, R | W)):
            r, m = try_map(fd, size, prot, uaroff)
            out.append("%s %s" % (name, r))
            if m:
                m.close()
        r, m = try_map(fd, pg, W, uaroff)
        out.append("wo %s" % r)
        for _ in range(rings):
            struct.pack_into("<I", m, reg, val)
    print(" ".join(out))
' "$@"
}

# sig OP...: read or change the signature header at the start of BAR2,
# through sysfs (only while no driver has the function: a bound driver
# owns its BARs), in one process (python's start is slow in the debug
# guest).  OP is "save" (print the header in hex), "restore HEX" or
# "poke OFFSET STRUCT-FORMAT VALUE".
sig() {
	python3 -c '
import mmap, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_SYNC)
m = mmap.mmap(fd, 4096)
a = sys.argv[2:]
while a:
    if a[0] == "save":
        print(m[0:64].hex())
        a = a[1:]
    elif a[0] == "restore":
        m[0:64] = bytes.fromhex(a[1])
        a = a[2:]
    elif a[0] == "poke":
        off, fmt, val = int(a[1], 0), a[2], int(a[3], 0)
        m[off:off + struct.calcsize(fmt)] = struct.pack(fmt, val)
        a = a[4:]
    else:
        sys.exit("sig: bad op " + a[0])
' "$dev/resource2" "$@"
}

# The kernel log from a mark on (messages of this test only).
mark() {
	mark="xib-pcie-mark-$RANDOM$RANDOM"
	echo "$mark" >/dev/kmsg
}

log_since_mark() {
	dmesg | sed -n "/$mark/,\$p"
}

# Interrupts counted so far on the vector named $1 (xib-db or xib-ev).
irqs() {
	awk -v name="$1@$bdf" '$NF == name {
		n = 0; for (i = 2; i < NF; i++) if ($i ~ /^[0-9]+$/) n += $i; print n; found = 1 }
		END { if (!found) print -1 }' /proc/interrupts
}

bound() {
	[ "$(basename "$(readlink "$dev/driver" 2>/dev/null)")" = xib_hca ]
}

# The function's rings mapped for its DMA (dma_rings) or their pages
# (dma_pages), as xib_hca's debugfs counts them.
dma_count() {
	cat "/sys/kernel/debug/xib_hca/$bdf/dma_$1"
}

# dma_mapped: the endless ibv_rc_pingpong of traffic_start has its rings
# mapped for the function's DMA: its CQ, its QP's send and receive rings,
# each a header page and at least one page of slots.
dma_mapped() {
	local rings pages
	rings=$(dma_count rings)
	pages=$(dma_count pages)
	echo "# xibp under ibv_rc_pingpong: $rings rings, $pages pages DMA-mapped" >&3
	[ "$rings" -ge 3 ] && [ "$pages" -ge $((2 * rings)) ]
}

# ibv_asyncwatch on xibp (in xibA), its output in $BATS_TEST_TMPDIR/async.out,
# once it watches; $watch_pid is stopped by watch_stop (and by teardown).
watch_start() {
	local out=$BATS_TEST_TMPDIR/async.out
	ip netns exec xibA "$XR" stdbuf -oL ibv_asyncwatch -d xibp >"$out" 2>&1 &
	watch_pid=$!
	for _ in $(seq 100); do
		grep -q 'async event FD' "$out" && break
		sleep 0.1
	done
}

# watch_fatal PATTERN: the watcher printed PATTERN (the fatal event),
# within 10 s; what it printed goes to the test's output.
watch_fatal() {
	local out=$BATS_TEST_TMPDIR/async.out
	for _ in $(seq 100); do
		grep -q "$1" "$out" && break
		sleep 0.1
	done
	sed 's/^/# asyncwatch: /' "$out" >&3
	grep -q "$1" "$out"
}

watch_stop() {	# it may have ended by itself after the fatal event
	kill -9 "$watch_pid" 2>/dev/null || true
	wait "$watch_pid" 2>/dev/null || true
	watch_pid=
}

# traffic_start N: an endless ibv_rc_pingpong from xibp to xib1 (server
# in the background, client's pid in $cli_pid, output in
# $BATS_TEST_TMPDIR/cli.out), once xibp has sent N packets.
traffic_start() {
	local i
	xib_bg xibB "$BATS_TEST_TMPDIR/srv.out" "$XR" ibv_rc_pingpong -d xib1 -g "$GIDB" \
		-n 100000000
	xib_wait_listen xibB 18515 60
	ip netns exec xibA "$XR" ibv_rc_pingpong -d xibp -g "$GIDA" -n 100000000 10.211.0.2 \
		>"$BATS_TEST_TMPDIR/cli.out" 2>&1 &
	cli_pid=$!
	for ((i = 0; i < 300; i++)); do
		[ "$(stat_of xibA xibp tx_packets 2>/dev/null || echo 0)" -ge "$1" ] && break
		sleep 0.1
	done
	[ "$(stat_of xibA xibp tx_packets)" -ge "$1" ]
}

# The client of traffic_start fails within 30 s once its device is gone:
# it does not hang.
client_fails() {
	local i
	for ((i = 0; i < 300; i++)); do
		kill -0 "$cli_pid" 2>/dev/null || break
		sleep 0.1
	done
	! kill -0 "$cli_pid" 2>/dev/null ||
		{ kill -9 "$cli_pid"; cat "$BATS_TEST_TMPDIR/cli.out"; false; }
	wait "$cli_pid" && false || true
}

@test "xib_hca binds the function with MSI-X enabled and both vectors delivered" {
	! bound
	mark
	xib-modules load xib_hca
	bound
	run lspci -v -s "${bdf#0000:}"
	[ "$status" -eq 0 ]
	echo "$output"
	[[ $output == *"Kernel driver in use: xib_hca"* ]]
	[[ $output == *"MSI-X: Enable+ Count=2"* ]]
	[ "$(ls "$dev/msi_irqs" | wc -l)" -eq 2 ]
	# probe's self-test rang the doorbell register once per vector
	[ "$(irqs xib-db)" -ge 1 ]
	[ "$(irqs xib-ev)" -ge 1 ]
	# BAR0 has a page of its own (run-vm's pci=resource_alignment): a UAR
	log_since_mark | grep -q "xib_hca $bdf: peer 0, 1048576 bytes shared, 2 MSI-X vectors, serial 02000000000000aa, UAR"
}

# debug only, as the reset and hot-removal tests below: unbinding, a
# function level reset and a surprise removal tear the device down (its
# vectors, its DMA mappings, its rings) under the debug kernel's checks;
# every guest has the same emulated function, so the stock run adds no
# path.  Binding and the doorbells run in both kernels.
# bats test_tags=debug-only
@test "unbind and bind, hot removal and rescan, module unload with the function bound" {
	local i
	xib-modules load xib_hca
	bound
	echo "$bdf" >"$drv/unbind"
	! bound
	# the vectors are gone with the driver
	[ "$(irqs xib-db)" -eq -1 ]
	echo "$bdf" >"$drv/bind"
	bound
	echo 1 >"$dev/remove"
	[ ! -e "$dev" ]
	echo 1 >/sys/bus/pci/rescan
	[ -e "$dev" ]
	bound
	for i in 1 $(debug_kernel || echo 2); do
		xib-modules unload
		[ ! -e "$dev/driver" ]
		xib-modules load xib_hca
		bound
	done
	[ "$(irqs xib-ev)" -ge 1 ]
}

@test "a function with another magic is left alone, and bound once it has xib's" {
	xib-modules load xib_hca
	echo "$bdf" >"$drv/unbind"
	saved_sig=$(sig save poke 0 '<I' 0x12345678)
	mark
	run bash -c "echo $bdf >$drv/bind"
	[ "$status" -ne 0 ]
	! bound
	log_since_mark | grep -q "xib_hca $bdf: no xib signature (bad magic), not an xib device"
	sig restore "$saved_sig"
	saved_sig=
	echo "$bdf" >"$drv/bind"
	bound
}

# The rules are KUnit xib_hca_pci's (both kernels); the debug kernel's
# KASAN and kmemleak watch probe's refusal unwind in the bad magic test
# bats test_tags=stock-only
@test "a signature of an unknown version or with reserved bits set is refused" {
	xib-modules load xib_hca
	echo "$bdf" >"$drv/unbind"
	saved_sig=$(sig save poke 4 '<H' 2)
	mark
	run bash -c "echo $bdf >$drv/bind"
	[ "$status" -ne 0 ]
	! bound
	log_since_mark | grep -q "xib_hca $bdf: signature refused: unknown signature version"
	sig restore "$saved_sig" poke 32 '<Q' 1
	run bash -c "echo $bdf >$drv/bind"
	[ "$status" -ne 0 ]
	! bound
	log_since_mark | grep -q "xib_hca $bdf: signature refused: reserved field not zero"
	# a vector count beyond the function's MSI-X table
	sig restore "$saved_sig" poke 16 '<H' 3
	run bash -c "echo $bdf >$drv/bind"
	[ "$status" -ne 0 ]
	! bound
	log_since_mark | grep -q "xib_hca $bdf: signature refused: vector count out of range"
	sig restore "$saved_sig"
	saved_sig=
	echo "$bdf" >"$drv/bind"
	bound
}

# stock only: stock programs (tests/check.sh's debug_skip reasoning); in
# the debug kernel the function's data path, doorbells and vectors are
# driven by the hot-removal-under-traffic and event tests below.
# bats test_tags=stock-only
@test "link add binds an xib device to the function; stock pingpongs run on it, doorbells by its UAR" {
	xib_apps_require
	pci_topology
	# the device is the function's child, named by the device side's serial
	[ "$(basename "$(inA readlink -f /sys/class/xib/xibp/device)")" = "$bdf" ]
	run inA xibctl dev show xibp
	echo "$output"
	[[ $output == *"0200:0000:0000:00aa"* ]]
	# one device per function
	xib_refute_with 'already' inA xibctl link add xibq netdev xv0 pci "$bdf"
	xib_refute_with 'no PCI function' inA xibctl link add xibq netdev xv0 pci 0000:00:1f.7
	local db0 ev0 iters
	iters=$(pp_iters)
	db0=$(irqs xib-db)
	ev0=$(irqs xib-ev)
	# -e: both sides sleep on their completion channel; xibp's completion
	# events come by the function's event vector
	xib_pair 180 xibB xibA -- "$XR" ibv_rc_pingpong -d xib1 -g "$GIDB" -n "$iters" -c -e \
		-- "$XR" ibv_rc_pingpong -d xibp -g "$GIDA" -n "$iters" -c -e 10.211.0.2
	[ "$cli_status" = 0 ] && [ "$srv_status" = 0 ]
	[[ $cli_out == *"$iters iters in"* ]]
	local ev
	ev=$(( $(irqs xib-ev) - ev0 ))
	echo "# xibp: $ev event interrupts for $iters iterations with -e" >&3
	[ "$ev" -ge 1 ]
	xib_pair 180 xibB xibA -- "$XR" ibv_ud_pingpong -d xib1 -g "$GIDB" -s 1024 -n "$iters" -c \
		-- "$XR" ibv_ud_pingpong -d xibp -g "$GIDA" -s 1024 -n "$iters" -c 10.211.0.2
	[ "$cli_status" = 0 ] && [ "$srv_status" = 0 ]
	[[ $cli_out == *"$iters iters in"* ]]
	# the library wrote every doorbell to the UAR: no KICK system call,
	# and the interrupts that came back woke xibp's engine
	local kicks db
	kicks=$(stat_of xibA xibp kicks)
	db=$(( $(irqs xib-db) - db0 ))
	echo "# xibp: $kicks KICKs, $db doorbell interrupts" >&3
	[ "$kicks" -eq 0 ]
	[ "$db" -ge 1 ]
	# the programs' queues are destroyed: none of their rings is mapped
	[ "$(dma_count rings)" -eq 0 ] && [ "$(dma_count pages)" -eq 0 ]

	# The UAR as GET_CONTEXT describes it: XIB_UVERBS_DB_MMIO, the
	# Doorbell register (0x0c), peer 0's doorbell vector 0; mapped only
	# writable, not executable, exactly one page; xib1 has none.
	local nodep node1
	nodep=$(uverbs_in xibA xibp)
	node1=$(uverbs_in xibB xib1)
	db0=$(irqs xib-db)
	run uar_check 3 "$nodep" "$node1"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "kind 1 reg 12 value 0x0 ro EINVAL exec EPERM 2pages EINVAL rw ok wo ok" ]
	[ "${lines[1]}" = "kind 0 reg 0 value 0x0" ]
	# three doorbells written by hand came back as interrupts (eventfds
	# may merge them), and are no KICKs
	[ "$(irqs xib-db)" -gt "$db0" ]
	[ "$(stat_of xibA xibp kicks)" -eq 0 ]

	# link del lets go of the function: it takes a new device
	inA xibctl link del xibp
	xib_wait_gone xibp
	inA xibctl link add xibp netdev xv0 pci "$bdf"
}

@test "async events of the function's device come by its event vector, in order" {
	xib_apps_require
	local ex=$XIB_BUILD/tests/c/ibv_extended t ev0 ev ae
	[ -x "$ex" ] || skip "ibv_extended not built (make userspace)"
	pci_topology
	# tests/c/ibv_extended.c's oracles of the SRQ limit (SRQ_LIMIT_REACHED
	# twice, none while disarmed) and of the QP events (COMM_EST,
	# SQ_DRAINED, LAST_WQE_REACHED, each when due and no other), on
	# xibp: its CQs have no completion channel, so every interrupt of the
	# event vector in this window carried async events.  The debug kernel
	# runs the SRQ's only: it destroys a QP, a CQ and an SRQ too, which
	# drop their queued events.
	local sections=(srq events)
	! debug_kernel || sections=(srq)
	for t in "${sections[@]}"; do
		ev0=$(irqs xib-ev)
		run inA timeout 300 "$XR" "$ex" -d xibp -n 2 -t "$t"
		echo "$output"
		[ "$status" -eq 0 ]
		grep -q '^1\.\.[1-9]' <<<"$output"
		! grep -q '^not ok' <<<"$output"
		ev=$(( $(irqs xib-ev) - ev0 ))
		ae=$(grep -c '^ok .*IBV_EVENT_' <<<"$output")
		echo "# xibp, ibv_extended -t $t: $ae async events checked, $ev event interrupts" >&3
		[ "$ae" -ge 1 ]
		[ "$ev" -ge 2 ]
	done
}

# stock only: on the debug kernel the async event test drives the event
# vector and the function's event queue, which port events reach the same way.
# bats test_tags=stock-only
@test "port events of the function's device come by its event vector" {
	xib_apps_require
	command -v stdbuf >/dev/null || skip "stdbuf (coreutils) missing"
	local out=$BATS_TEST_TMPDIR/async.out ev0 ev
	pci_topology
	watch_start
	grep -q 'async event FD' "$out"
	# Nothing else of xibp raises events in this window (no CQ, no QP):
	# the event vector's interrupts are the port events'.  Each is waited
	# for before the next change, so each came by an interrupt of its own.
	ev0=$(irqs xib-ev)
	port_flap xibA xv0 "$out"
	ev=$(( $(irqs xib-ev) - ev0 ))
	watch_stop
	sed 's/^/# asyncwatch: /' "$out" >&3
	echo "# xibp: $ev event interrupts for the port going down and up" >&3
	port_events_ok "$out"
	# delivered by the vector's thread, not by the core directly
	[ "$ev" -ge 2 ]
	# the port is back: the next test's GIDs are there
	xib_gid_index xibA xibp 10.211.0.1 >/dev/null
}

# perftest is a stock program over the kernel paths the pingpongs drive
# in the debug kernel too (tests/check.sh's debug_skip has perftest.bats)
# bats test_tags=stock-only
@test "ib_send_bw on the function's device: system calls per WR, no KICK" {
	xib_apps_require
	pci_topology
	local n=2000 trace=$BATS_TEST_TMPDIR/strace.out kicks0 kicks calls ioctls db0 db
	kicks0=$(stat_of xibA xibp kicks)
	db0=$(irqs xib-db)
	perf_pair 300 xibB xibA -- "$XR" ib_send_bw -d xib1 -x "$GIDB" -n "$n" \
		-- strace -f -c -o "$trace" "$XR" ib_send_bw -d xibp -x "$GIDA" -n "$n" 10.211.0.2
	[ "$cli_status" -eq 0 ]
	[ "$srv_status" = 0 ]
	kicks=$(( $(stat_of xibA xibp kicks) - kicks0 ))
	db=$(( $(irqs xib-db) - db0 ))
	calls=$(awk '$NF == "total" { print $4; exit }' "$trace")
	ioctls=$(awk '$NF == "ioctl" { print $4; exit }' "$trace")
	echo "# ib_send_bw on xibp, $n WRs: $calls system calls, $ioctls ioctls, $kicks KICKs," \
		"$db doorbell interrupts" \
		"($(awk -v c="$calls" -v n="$n" 'BEGIN { printf "%.4f", c / n }') system calls per WR)" >&3
	[ "$calls" -gt 0 ]
	# whatever doorbells there were went to the UAR, none by system call.
	# How many there were is timing: a streaming run may find the engine
	# awake from its first post to its last and ring none (the gate saw
	# 0 once); the pingpong case above, which sleeps between messages,
	# asserts doorbell interrupts.
	[ "$kicks" -eq 0 ]
}

# Stock programs over the kernel paths the tests above drive in the debug
# kernel too (tests/check.sh's debug_skip has ibverbs-utils.bats and
# perftest.bats)
# bats test_tags=stock-only
@test "ibv_srq_pingpong, ib_send_lat and ib_write_lat on the function's device, and on a netdev device in its place" {
	xib_apps_require
	pci_topology
	local ev0 tool v dev lat=()
	xib_pair 300 xibB xibA -- "$XR" ibv_srq_pingpong -d xib1 -g "$GIDB" -q 4 -n 200 -c -e \
		-- "$XR" ibv_srq_pingpong -d xibp -g "$GIDA" -q 4 -n 200 -c -e 10.211.0.2
	[ "$cli_status" = 0 ] && [ "$srv_status" = 0 ]
	[[ $cli_out == *" iters in "* ]]
	# the latencies of the function's device, then of a netdev device on
	# the same interface (xibp's place): same topology, same run
	for dev in xibp xibn; do
		if [ "$dev" = xibn ]; then
			inA xibctl link del xibp
			xib_wait_gone xibp
			inA xibctl link add xibn netdev xv0
			GIDA=$(xib_gid_index xibA xibn 10.211.0.1)
		fi
		for tool in ib_send_lat ib_write_lat; do
			perf_pair 300 xibB xibA -- "$XR" "$tool" -d xib1 -x "$GIDB" -n 200 -F \
				-- "$XR" "$tool" -d "$dev" -x "$GIDA" -n 200 -F 10.211.0.2
			[ "$cli_status" -eq 0 ]
			[ "$srv_status" = 0 ]
			v=$(perf_lat "$cli_out")
			positive "$v"
			lat+=("$tool $dev t_avg $v usec")
		done
	done
	printf '# %s\n' "${lat[@]}" >&3
	inA xibctl link del xibn
	xib_wait_gone xibn
	inA xibctl link add xibp netdev xv0 pci "$bdf"
}

# The debug kernel resets the function under a context only (the hot
# removal below destroys the device under traffic there, as the reset
# does) and opens a context on the new device without traffic.
# bats test_tags=debug-only
@test "a function level reset: DEVICE_FATAL, the function stays bound and takes a new device" {
	xib_apps_require
	command -v stdbuf >/dev/null || skip "stdbuf (coreutils) missing"
	pci_topology
	# the root port's secondary bus reset: the function has no FLR of its own
	[ -e "$dev/reset" ]
	cli_pid=
	watch_start
	if ! debug_kernel; then
		traffic_start 50
		dma_mapped
	fi
	mark
	echo 1 >"$dev/reset"
	# the device went before the reset; the function is still bound, and
	# its doorbell came back as an interrupt on both vectors after it
	! inA xibctl dev show xibp >/dev/null 2>&1
	bound
	log_since_mark | grep -q "xib_hca $bdf: reset: the function works again"
	# the device's destroy retired every ring before the reset: no
	# mapping outlives it (the device's detach would WARN)
	[ "$(dma_count rings)" -eq 0 ] && [ "$(dma_count pages)" -eq 0 ]
	# the client fails, it does not hang; the watcher saw the fatal event
	if [ -n "$cli_pid" ]; then
		client_fails
	fi
	watch_fatal DEVICE_FATAL
	xib_bg_stop
	watch_stop
	# a new device on the reset function: a new context works
	inA xibctl link add xibp netdev xv0 pci "$bdf"
	GIDA=$(xib_gid_index xibA xibp 10.211.0.1)
	if debug_kernel; then
		run inA "$XR" ibv_devinfo -d xibp
		[ "$status" -eq 0 ]
		[[ $output == *"PORT_ACTIVE"* ]]
		return
	fi
	xib_pair 180 xibB xibA -- "$XR" ibv_rc_pingpong -d xib1 -g "$GIDB" -n 100 -c \
		-- "$XR" ibv_rc_pingpong -d xibp -g "$GIDA" -n 100 -c 10.211.0.2
	[ "$cli_status" = 0 ] && [ "$srv_status" = 0 ]
	[[ $cli_out == *"100 iters in"* ]]
}

# bats test_tags=debug-only
@test "hot removal of the function under traffic: DEVICE_FATAL, the device goes, rescan binds again" {
	xib_apps_require
	command -v stdbuf >/dev/null || skip "stdbuf (coreutils) missing"
	pci_topology
	watch_start
	traffic_start 200
	dma_mapped
	echo 1 >"$dev/remove"
	[ ! -e "$dev" ]
	inA test ! -e /sys/class/xib/xibp
	# the mappings went with the device, before the function (the
	# device's detach WARNs otherwise: the log check), and its counters
	# with the function
	[ ! -e "/sys/kernel/debug/xib_hca/$bdf" ]
	client_fails
	watch_fatal 'DEVICE_FATAL\|catastrophic'
	echo 1 >/sys/bus/pci/rescan
	bound
	[ "$(dma_count rings)" -eq 0 ]
	# module unload with a device on the function: the function's remove
	# takes the device first (the programs holding the modules are gone)
	xib_bg_stop
	watch_stop
	inA xibctl link add xibp netdev xv0 pci "$bdf"
	xib-modules unload
	[ ! -e /sys/class/xib/xibp ]	# and the class with the module
	! bound
}
