#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The five modules: build metadata, load order, unload order, the
# generic-netlink family, and refusing to unload a module still in use.

load helpers

setup() {
	xib_require_vm
}

teardown() {
	xib-modules unload
}

modinfo_field() {
	modinfo -F "$2" "$(find "$XIB_MODDIR" -name "$1.ko" -print -quit)"
}

# stock only: modinfo reads what modpost wrote from the same sources for
# both kernels; no kernel code runs (and modinfo of the debug kernel's
# large objects costs most of a minute there).
# bats test_tags=stock-only
@test "every module declares the dependencies of the layering" {
	[ "$(modinfo_field xib_core depends)" = "" ]
	[ "$(modinfo_field xib_uverbs depends)" = "xib_core" ]
	[ "$(modinfo_field xib_cma depends)" = "xib_core" ]
	# xib_ucma calls into xib_cma (core/ucma -> core/cma) and into
	# xib_core for its per-uid channel count (core/user.c)
	[ "$(modinfo_field xib_ucma depends | tr ',' '\n' | sort | paste -sd,)" = \
		"xib_cma,xib_core" ]
	[ -z "$(modinfo_field xib_ucma softdep)" ]
	# and the kernel's UDP tunnel modules, for RoCEv2's UDP sockets
	[ "$(modinfo_field xib_hca depends | tr ',' '\n' | sort | paste -sd,)" = \
		"ip6_udp_tunnel,udp_tunnel,xib_core" ]
	for m in xib_core xib_uverbs xib_cma xib_ucma xib_hca; do
		[ "$(modinfo_field $m license)" = "GPL" ]
		[ -n "$(modinfo_field $m description)" ]
	done
}

@test "the dependency order puts xib_core first and xib_ucma after xib_cma" {
	run xib-modules order
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = xib_core ]
	local cma ucma i
	for i in "${!lines[@]}"; do
		[ "${lines[$i]}" = xib_cma ] && cma=$i
		[ "${lines[$i]}" = xib_ucma ] && ucma=$i
	done
	[ "${#lines[@]}" -eq 5 ]
	[ "$cma" -lt "$ucma" ]
}

@test "all modules load in dependency order and unload in reverse" {
	xib-modules load
	xib_modules_loaded
	for m in xib_core xib_uverbs xib_cma xib_ucma xib_hca; do
		[ "$(cat /sys/module/$m/initstate)" = live ]
	done
	# xib_core is held by the four modules that link against it, and
	# xib_cma by xib_ucma.
	[ "$(cat /sys/module/xib_core/refcnt)" -eq 4 ]
	[ "$(cat /sys/module/xib_cma/refcnt)" -eq 1 ]
	xib-modules unload
	xib_no_modules_loaded
	for m in xib_core xib_uverbs xib_cma xib_ucma xib_hca; do
		[ ! -e "/sys/module/$m" ]
	done
}

@test "loading a module loads what it depends on first" {
	xib-modules load xib_ucma
	[ -d /sys/module/xib_core ]
	[ -d /sys/module/xib_cma ]
	[ -d /sys/module/xib_ucma ]
	[ ! -d /sys/module/xib_uverbs ]
}

@test "the xib generic-netlink family is resolvable while xib_core is loaded" {
	xib_refute_with 'not there' xibctl dev show
	xib-modules load xib_core
	run genl ctrl get name xib
	[ "$status" -eq 0 ]
	[[ "$output" == *"Name: xib"* ]]
	xib-modules unload
	run genl ctrl get name xib
	[ "$status" -ne 0 ]
}

@test "dev show answers an empty list when there are no devices" {
	xib-modules load
	run xibctl dev show
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run xibctl -j dev show
	[ "$status" -eq 0 ]
	[ "$output" = "[]" ]
	xib_refute_with 'No such device' xibctl dev show nosuchdev
}

@test "unloading xib_core while a dependant is loaded fails cleanly" {
	xib-modules load xib_uverbs
	xib_refute_with 'in use|is used by' rmmod xib_core
	[ "$(cat /sys/module/xib_core/initstate)" = live ]
	# Still fully working afterwards.
	run xibctl dev show
	[ "$status" -eq 0 ]
	rmmod xib_uverbs
	rmmod xib_core
	xib_no_modules_loaded
}

@test "sysfs classes and the char device region come and go with the modules" {
	xib-modules load
	[ -d /sys/class/xib ]
	[ -d /sys/class/xib_uverbs ]
	grep -qw xib_uverbs /proc/devices
	xib-modules unload
	[ ! -e /sys/class/xib ]
	[ ! -e /sys/class/xib_uverbs ]
	! grep -qw xib_uverbs /proc/devices
}
