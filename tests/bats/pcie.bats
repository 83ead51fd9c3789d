#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# xib's PCI front end (Documentation/pcie.rst): the guest has QEMU's
# ivshmem-doorbell function at 00:10.0, served by
# tests/vm/xib-ivshmem-server (tests/vm/vm-test gives it to every guest
# that runs this file).  xib_hca binds it only when its shared memory
# carries xib's signature, with MSI-X enabled and its own doorbell seen
# coming back as an interrupt on both vectors; unbind, hot removal and
# rescan, and module unload with the function bound free everything
# (the debug kernel's kmemleak and KASAN watch).

load helpers

bdf=0000:00:10.0
dev=/sys/bus/pci/devices/$bdf
drv=/sys/bus/pci/drivers/xib_hca

setup() {
	xib_require_vm
	# The harness gives this suite the function: its absence is a failure.
	[ "$(cat "$dev/vendor"):$(cat "$dev/device")" = 0x1af4:0x1110 ]
}

teardown() {
	# a test that changed the signature puts the device side's back
	[ -z "${saved_sig:-}" ] || sig restore "$saved_sig"
	xib-modules unload
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
	log_since_mark | grep -q "xib_hca $bdf: peer 0, 1048576 bytes shared, 2 MSI-X vectors, serial 02000000000000aa"
}

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
	for i in 1 2; do
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
