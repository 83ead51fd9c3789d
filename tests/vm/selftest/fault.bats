#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: load the fault injector with fault=$XIB_FAULT.  The
# test itself passes; the harness must still turn the run red.

@test "inject kernel fault" {
	insmod "$(find "$XIB_MODDIR" -name xib_selftest_fault.ko -print -quit)" \
		fault="$XIB_FAULT"
	rmmod xib_selftest_fault
}
