#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The manual pages of man/: each renders with man(1) without a warning,
# and xibctl(8) documents every object and option xibctl --help lists.

bats_require_minimum_version 1.5.0

setup() {
	ROOT=$BATS_TEST_DIRNAME/../../..
	XIBCTL=${XIBCTL:-$ROOT/build/userspace/xibctl}
}

@test "every page of man/ renders with man -l, without warnings" {
	local page n=0
	for page in "$ROOT"/man/*.[1-8]; do
		run env MANWIDTH=80 man --warnings=w -l "$page"
		[ "$status" -eq 0 ]
		[[ "$output" == *NAME* ]]
		[[ "$output" == *DESCRIPTION* ]]
		# groff's own checks; anything on stderr is a warning
		run --separate-stderr groff -man -ww -z -Tutf8 "$page"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ] || { echo "$page: $stderr"; return 1; }
		n=$((n + 1))
	done
	[ "$n" -ge 1 ]
}

@test "xibctl(8) covers every command, object and option of --help" {
	[ -x "$XIBCTL" ]
	run env MANWIDTH=200 man -l "$ROOT/man/xibctl.8"
	[ "$status" -eq 0 ]
	page=$output
	for word in "dev [show" "link add NAME netdev IFNAME" "link del NAME" \
		"port [show" "res [show" "--json" "--details" "--help" \
		"EXIT STATUS" "CAP_NET_ADMIN"; do
		[[ "$page" == *"$word"* ]] || { echo "missing: $word"; return 1; }
	done
	for obj in qp cq mr pd srq ah ctx; do
		run "$XIBCTL" --help
		[[ "$output" == *"  $obj  "* ]] || { echo "--help lacks $obj"; return 1; }
		[[ "$page" =~ [[:space:]]$obj[[:space:]] ]] || { echo "page lacks $obj"; return 1; }
	done
	for filter in "dev NAME" "pid PID" "qpn N" "type RC|UC|UD" "state STATE"; do
		[[ "$page" == *"$filter"* ]] || { echo "missing filter: $filter"; return 1; }
	done
}

@test "xib-run(1) names every XIB_ variable the libraries read; xib_hca(4) every module parameter" {
	local v p page1 page4
	page1=$(MANWIDTH=200 man -l "$ROOT/man/xib-run.1")
	page4=$(MANWIDTH=200 man -l "$ROOT/man/xib_hca.4")
	for v in $(grep -rhoE 'getenv\("XIB_[A-Z_]+"\)' "$ROOT/userspace" |
		   sed 's/getenv("\(.*\)")/\1/' | sort -u) XIB_LIBDIR; do
		[[ "$page1" == *"$v"* ]] || { echo "xib-run(1) lacks $v"; return 1; }
	done
	for p in $(grep -rhoE 'module_param(_named|_cb)?\([a-z_]+' "$ROOT/core" "$ROOT/drivers" |
		   sed 's/.*(//' | sort -u); do
		[[ "$page4" == *"$p="* ]] || { echo "xib_hca(4) lacks $p"; return 1; }
	done
}
