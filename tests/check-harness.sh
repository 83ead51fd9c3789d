#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-harness.sh: prove that the test harness turns red on each kind of
# defect it exists to catch.  Each fault runs through the same vm-test as
# "make check"; the fault must make it exit non-zero and say why:
#
#   a failing KUnit case         debug VM, KUnit suite xib_selftest
#   a failing bats case          stock VM, tests/vm/selftest/fail.bats
#   a guest hang                 stock VM, every CPU spinning, IRQs off
#   a KASAN report               debug VM, a use-after-free in a module
#   a kmemleak report            debug VM, an allocation nobody points to
#   a WARN                       stock VM, WARN() in a module
#
# and that two guests sharing a work queue (tests/check.sh's lanes) run
# each item exactly once.
#
# Prints one TAP line per fault and "N passed, N failed".
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
log=$root/build/check-harness
rm -rf "$log"
mkdir -p "$log"
passed=0
failed=0

make -s userspace modules-vm KERNEL=stock >"$log/build.log" 2>&1 &&
	make -s modules-vm KERNEL=debug >>"$log/build.log" 2>&1 || {
	cat "$log/build.log"
	echo "0 passed, 1 failed"
	exit 1
}

# expect NAME PATTERN VM-TEST-ARGS...: vm-test must fail, printing PATTERN.
expect() {
	local name=$1 pattern=$2 out=$log/$3.out
	shift 3
	"$root/tests/vm/vm-test" --out "$log/$name" "$@" >"$out" 2>&1
	local status=$?
	if [ "$status" != 0 ] && grep -qE "$pattern" "$out"; then
		echo "ok - harness catches $name"
		grep -E "$pattern" "$out" | head -n 1 | sed 's/^/#   /'
		passed=$((passed + 1))
	else
		echo "not ok - harness catches $name (vm-test exited $status)"
		sed 's/^/#   /' "$out" | tail -n 20
		failed=$((failed + 1))
	fi
}

expect "a failing KUnit case" '^not ok - kunit xib_selftest: xib_selftest_fails' kunit \
	--kernel debug kunit:xib_selftest_kunit
expect "a failing bats case" '^not ok - stock fail.bats: injected failure' bats \
	--kernel stock bats:tests/vm/selftest/fail.bats
XIB_FAULT=hang expect "a guest hang" '^not ok - stock VM: guest hang' hang \
	--kernel stock --idle 60 bats:tests/vm/selftest/fault.bats
XIB_FAULT=kasan expect "a KASAN report" '^not ok - debug kernel log: report during bats:tests/vm/selftest/fault.bats: BUG: KASAN' kasan \
	--kernel debug bats:tests/vm/selftest/fault.bats
XIB_FAULT=leak expect "a kmemleak report" '^not ok - debug kernel log: report during bats:tests/vm/selftest/fault.bats: .*(kmemleak|memory leak)' leak \
	--kernel debug bats:tests/vm/selftest/fault.bats
XIB_FAULT=warn expect "a WARNING" '^not ok - stock kernel log: report during bats:tests/vm/selftest/fault.bats: WARNING' warn \
	--kernel stock bats:tests/vm/selftest/fault.bats

# Two guests, one queue of four items: each item claimed, finished and
# reported exactly once, whichever guest ran it.
q=$log/queue
rm -rf "$q"
mkdir -p "$q/items"
items=()
for i in 1 2 3 4; do
	items+=(sh:tests/vm/selftest/queue-item.sh)
done
"$root/tests/vm/vm-test" --kernel stock --queue "$q/items" --lane l1 --out "$q/l1" \
	"${items[@]}" >"$q/l1.out" 2>&1 &
l1=$!
"$root/tests/vm/vm-test" --kernel stock --queue "$q/items" --lane l2 --out "$q/l2" \
	"${items[@]}" >"$q/l2.out" 2>&1
st=$?
wait "$l1" || st=1
ran=$(cat "$q/l1.out" "$q/l2.out" | grep -c '^ok - stock queue-item$')
done_n=$(find "$q/items" -name done | wc -l)
if [ "$st" = 0 ] && [ "$ran" = 4 ] && [ "$done_n" = 4 ]; then
	echo "ok - two guests sharing a queue run each item once"
	passed=$((passed + 1))
else
	echo "not ok - two guests sharing a queue run each item once ($ran reported, $done_n done)"
	cat "$q/l1.out" "$q/l2.out" | sed 's/^/#   /'
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
