#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Harness self-test: one bats case that fails on purpose.

@test "a case that passes" {
	true
}

@test "injected failure" {
	[ 1 -eq 2 ]
}
