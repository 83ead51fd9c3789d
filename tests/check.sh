#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the whole test gate ("make check", and so CI).
#
#   lint          checkpatch --strict, sparse, cppcheck
#   build         modules for the stock and debug kernels, user space
#   host          bats suites of user space on this machine
#   stock VM      bats suites in Debian's 6.1 kernel
#   debug VM      KUnit suites, then the bats suites, in the debug kernel
#                 (KASAN, lockdep, kmemleak: any report fails); the two
#                 VMs run side by side
#   dkms          dkms add/build/remove in a scratch tree
#
# Prints TAP lines as it goes, and at the end "N passed, N failed".  Exits
# non-zero if anything failed.  Logs are under build/check/.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
log=$root/build/check
rm -rf "$log"
mkdir -p "$log"
tap=$log/all.tap
: >"$tap"

# Every suite; make check runs them in both VM kernels.
# All KUnit modules are one item: one kmemleak check for them all.
kunit_items=(kunit:xib_ring_test,xib_core_test,xib_qp_state_test,xib_hca_wire_test,xib_verbs_test,xib_hca_net_test,xib_hca_retx_test,xib_mad_test)
bats_items=()
for f in tests/bats/*.bats; do
	bats_items+=("bats:$f")
done

emit() {	# copy TAP from stdin to the terminal and the summary
	tee -a "$tap"
}

section() {
	echo "# --- $* ($(date +%T))" | emit
}

step() {	# step NAME COMMAND...: one TAP line for a command
	local name=$1 slog
	shift
	slog=$log/$(tr -c 'a-zA-Z0-9-' _ <<<"$name").log
	if "$@" >"$slog" 2>&1; then
		echo "ok - $name" | emit
	else
		{
			echo "not ok - $name"
			tail -n 30 "$slog" | sed 's/^/#   /'
		} | emit
	fi
}

# run_tap NAME COMMAND...: a command that prints TAP itself.  If it fails
# without saying "not ok", that is one more failure, not a silent pass.
run_tap() {
	local name=$1 out status
	shift
	out=$log/$(tr -c 'a-zA-Z0-9-' _ <<<"$name").out
	"$@" 2>&1 | tee "$out" | emit
	status=${PIPESTATUS[0]}
	if [ "$status" != 0 ] && ! grep -q '^not ok' "$out"; then
		echo "not ok - $name: exited with status $status" | emit
	fi
}

# Host-side C tests: each compiles (static assertions included) and runs,
# printing its own TAP line.
host_c_tests() {
	local t bin status=0
	for t in tests/host/*.c; do
		bin=$log/$(basename "$t" .c)
		if cc -Wall -Wextra -Werror -std=gnu11 -Iinclude/uapi -o "$bin" "$t" \
			>"$bin.log" 2>&1; then
			"$bin" || status=1
		else
			echo "not ok - host: $t does not compile"
			sed 's/^/#   /' "$bin.log"
			status=1
		fi
	done
	return $status
}

report_vm() {	# report_vm STATUS OUTPUT: replay a VM run's TAP, keep its status
	cat "$2"
	return "$1"
}

host_bats() {
	bats --tap tests/bats/host | sed -E 's/^(not )?ok [0-9]+ /\1ok - host: /'
	return "${PIPESTATUS[0]}"
}

start=$(date +%s)

section lint
run_tap lint tests/lint.sh --tap

section build
step "build: user space (-Wall -Wextra -Werror)" make -s userspace
step "build: modules for the stock kernel" make -s modules-vm KERNEL=stock
step "build: debug kernel (cached) and modules for it" make -s modules-vm KERNEL=debug

section "host tests"
run_tap "host C tests" host_c_tests
run_tap "host bats" host_bats

# The two VMs each keep about one core busy: run them side by side, then
# report the stock VM's results and the debug VM's.
section "stock VM and debug VM, side by side"
tests/vm/vm-test --kernel stock "${bats_items[@]}" >"$log/stock-vm.out" 2>&1 &
stock_pid=$!
# The debug VM is the long pole (KASAN, lockdep, kmemleak under TCG):
# about 40 minutes on 2 cores, so it gets more than run-vm's default.
tests/vm/vm-test --kernel debug --timeout 3300 "${kunit_items[@]}" "${bats_items[@]}" \
	>"$log/debug-vm.out" 2>&1 &
debug_pid=$!
wait "$stock_pid"
run_tap "stock VM" report_vm $? "$log/stock-vm.out"
wait "$debug_pid"
run_tap "debug VM" report_vm $? "$log/debug-vm.out"

section dkms
run_tap dkms tests/dkms-check.sh

passed=$(grep -c '^ok ' "$tap")
failed=$(grep -c '^not ok ' "$tap")
echo "# make check took $(( $(date +%s) - start ))s; logs in $log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
