#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# Memory windows (ibv_alloc_mw, ibv_bind_mw, IBV_WR_BIND_MW, LOCAL_INV,
# SEND_WITH_INV; IBTA vol. 1 10.6.7): tests/c/xib_mw_test between xib0 on
# veth end xv0 in namespace xibA (the requester) and xib1 on xv1 in xibB
# (the target's memory and windows), and on one device: access inside a
# window works and outside it fails with REM_ACCESS_ERR, the window's
# rights and the QP of a type 2B window are enforced, binds that break
# the IBTA's rules fail with MW_BIND_ERR, LOCAL_INV and a remote
# SEND_WITH_INV invalidate, an MR with a bound window is not deregistered,
# another context's windows and MRs are out of reach, zero-based type 2
# windows and MRs are addressed by offset (type 1 binds refuse it).

load helpers

C=${XIB_BUILD:-${XIB_ROOT:-.}/build}/tests/c

setup_file() {
	xib_require_vm
	xib-modules load
}

teardown_file() {
	xib-modules unload
}

setup() {
	xib_require_vm
	[ -x "$C/xib_mw_test" ] || skip "tests/c not built (make userspace)"
	xib_modules_loaded || xib-modules load
	xib_ns_pair xibA xibB xv0 xv1 10.214.0.1/24 10.214.0.2/24
}

teardown() {
	xib_ns_del xibA xibB
	xib_wait_gone xib0 xib1
}

# Every check passed, and the ones that prove the checks can fail ran.
check_output() {
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *PASS* ]]
	[[ "$output" != *"not ok"* ]]
	grep -Eq '^1\.\.[0-9]+$' <<<"$output"
	grep -q '^ok .* type 1: WRITE one byte past the window: REM_ACCESS_ERR, requester QP in ERR$' <<<"$output"
	grep -q '^ok .* type 2: READ through a window bound to another QP: REM_ACCESS_ERR' <<<"$output"
	grep -q '^ok .* bind refused, MR without MW_BIND: MW_BIND_ERR$' <<<"$output"
	grep -q '^ok .* receiver: RECV SUCCESS, byte_len 3000, wc_flags 0x8' <<<"$output"
	grep -q '^ok .* DEREG_MR with a bound window: EBUSY$' <<<"$output"
	grep -q '^ok .* zero-based type 2: WRITE at offset 100 lands at window + 100: SUCCESS$' <<<"$output"
	grep -q '^ok .* zero-based type 2: WRITE one byte past the window.s length: REM_ACCESS_ERR, requester QP in ERR$' <<<"$output"
	grep -q '^ok .* bind refused, type 1 window ZERO_BASED (IBTA o10-36.2.2): MW_BIND_ERR$' <<<"$output"
	grep -q '^ok .* zero-based MRs: WRITE from SGE offset 512 to remote offset 20000: SUCCESS$' <<<"$output"
}

@test "memory windows between two namespaces (xib_mw_test)" {
	xib_two_devices
	run inA "$C/xib_mw_test" -d "$dev0" -D "$dev1"
	check_output
}

@test "memory windows on one device (loopback)" {
	xib_two_devices
	run inA "$C/xib_mw_test" -d "$dev0"
	check_output
}
