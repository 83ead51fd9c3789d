#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh: the whole test gate ("make check", and so CI).
#
#   lint          checkpatch --strict, kernel-doc, sparse, cppcheck
#   build         modules for the stock and debug kernels, user space
#   host          bats suites of user space on this machine
#   stock VM      bats suites in Debian's 6.1 kernel
#   debug VM      KUnit suites, then the bats suites, in the debug kernel
#                 (KASAN, lockdep, kmemleak: any report fails)
#   dkms          dkms add/build/remove in a scratch tree
#
# The VM items run in two lanes (one per core): lane 1 boots the stock
# kernel; lane 2 the debug kernel, then the stock one if stock items are
# left.  The guests of one kernel share a work queue and claim its items
# one by one (tests/vm/runner).  Lane 1 never boots a second debug guest:
# a debug guest keeps both of its vCPUs busy, and two side by side ran
# at less than half speed each (res.bats took 458 s beside a debug guest,
# 348 s beside a stock one and 165 s alone), so the debug items left
# when the stock queue empties run sooner in the one debug guest alone.
#
# Prints TAP lines as it goes, each item's and each part's time, every
# skipped test with its reason, and at the end "N passed, N failed, N
# skipped".  A skip that tests/expected-skips does not list fails the
# run.  Exits non-zero if anything failed.  Logs are under build/check/.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
log=$root/build/check
rm -rf "$log"
mkdir -p "$log"
tap=$log/all.tap
: >"$tap"

# Every suite; make check runs them in both VM kernels.  The KUnit
# modules are those tests/kunit/Kbuild builds (xib_*_test), as one item:
# one kmemleak check for them all.
kunit_mods=$(sed -n 's/^obj-m += \(xib_[a-z0-9_]*_test\)\.o$/\1/p' tests/kunit/Kbuild | paste -sd,)
kunit_items=("kunit:$kunit_mods")
# The longest suites first, so that no lane is left with one long item
# while the other idles.
first=(verbs link rdmacm rdmacm-rxe hostile ibverbs-ex port netns rsockets uverbs-smoke ibverbs-utils rxe-interop perftest)
bats_items=()
for f in "${first[@]}"; do
	[ -f "tests/bats/$f.bats" ] && bats_items+=("bats:tests/bats/$f.bats")
done
for f in tests/bats/*.bats; do
	[[ " ${bats_items[*]} " == *" bats:$f "* ]] || bats_items+=("bats:$f")
done
# Suites the debug kernel does not run.  They drive stock programs
# (rdma-core's utilities, perftest, rsockets' tools, rdma_rxe as the
# peer) over kernel paths that the debug kernel's suites cover (verbs,
# uverbs-smoke, ibverbs-ex, port, rdmacm); what they add, the programs'
# behaviour, user-space protocols and the wire against rdma_rxe, does
# not depend on KASAN, lockdep or kmemleak, and at half a second per
# process there they would double the gate.  bench.bats is make bench's
# smoke: stock programs too.  modules.bats checks what user space sees
# of loading and unloading (order, classes, the netlink family), while
# every debug item loads and unloads the modules under kmemleak anyway;
# mcast.bats' attach, IGMP and MLD paths are driven there by
# rdmacm.bats' mckey cases over IPv4 and IPv6, and mw.bats' windows by
# ibverbs-ex.bats, res.bats and the xib_mw_test KUnit suite (the gate
# ran over its time budget).
debug_skip=(ibverbs-utils perftest rxe-interop rsockets rdmacm-rxe bench modules mcast mw)
# And the other way: tests tagged debug-only ("# bats test_tags=debug-only"
# above a test, with its reason) run in the debug kernel alone here
# (XIB_GATE=1 below: tests/vm/runner): those whose worth is the debug
# kernel's checks on paths that unwind, tear down or walk live objects
# (socket and device lifetimes, refusals, dumps, processes killed with
# work outstanding, devices and PCI functions removed under open
# contexts, races with destroy), with the same program in both kernels,
# where the files' other tests (what user space sees: formats, counts,
# filters, stock programs) run in the stock kernel.  Each such test
# runs once.  The debug guest is the gate's critical path
# (it keeps both of its vCPUs busy where a stock guest waits; two debug
# guests side by side ran at less than half speed each), so what needs
# no sanitizer goes to the stock guest.  make soak runs them in both.
stock_items=("${bats_items[@]}")
debug_items=("${kunit_items[@]}")
for i in "${bats_items[@]}"; do
	f=${i##*/}
	[[ " ${debug_skip[*]} " == *" ${f%.bats} "* ]] || debug_items+=("$i")
done

emit() {	# copy TAP from stdin to the terminal and the summary
	tee -a "$tap"
}

part_name=
part_start=
times=()
section() {	# a part of the run; its time goes to the summary
	local now
	now=$(date +%s)
	[ -z "$part_name" ] || times+=("$((now - part_start))s $part_name")
	part_name=$*
	part_start=$now
	[ -n "$part_name" ] || return 0
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

section "VMs: stock and debug kernels in two lanes"
rm -rf "$log/queue-stock" "$log/queue-debug"
mkdir -p "$log/queue-stock" "$log/queue-debug"
# a lane that boots no guest this time must not report the last run's times
rm -rf "$root"/build/vm/stock-lane* "$root"/build/vm/debug-lane*

items_of() {	# items_of KERNEL: the item list of that kernel's queue
	if [ "$1" = stock ]; then
		printf '%s\n' "${stock_items[@]}"
	else
		printf '%s\n' "${debug_items[@]}"
	fi
}

pending() {	# pending KERNEL: whether some of its items are unclaimed
	local claimed
	claimed=$(find "$log/queue-$1" -mindepth 1 -maxdepth 1 -type d | wc -l)
	[ "$claimed" -lt "$(items_of "$1" | wc -l)" ]
}

# lane NAME KERNEL...: boot each kernel in turn while its queue has items.
# A guest takes items from its queue until none is left, so how long it
# runs depends on the other lane and on the machine, not on a fixed
# share: guests of both kernels get 4500 s, more than run-vm's default,
# so that a guest that took most of the items on a slow or loaded
# machine is not cut off as hung with its tests passing (a CI run's
# debug guest was, at 3300 s; a loaded local run's stock guest, at
# 2400 s).  run-vm's idle watchdog still ends a guest that stops making
# progress, and the gate's own limit bounds the whole.
lane() {
	local name=$1 k items
	shift
	for k in "$@"; do
		pending "$k" || continue
		mapfile -t items < <(items_of "$k")
		tests/vm/vm-test --kernel "$k" --queue "$log/queue-$k" --lane "$name" \
			--out "$root/build/vm/$k-$name" \
			--timeout 4500 "${items[@]}" \
			>"$log/vm-$k-$name.out" 2>&1
		echo $? >"$log/vm-$k-$name.status"
	done
}
rm -f "$log"/vm-*.out "$log"/vm-*.status
# Every guest gets xib's PCI function (run-vm --pcie: one ivshmem server
# per guest), so that tests/bats/pcie.bats joins the queues like any
# suite instead of costing a boot of its own; the function is passive
# until a suite loads xib_hca, whose probe rings it once per vector.
export XIB_VM_PCIE=1
# the gate's split of the tests between the kernels (debug-only above)
export XIB_GATE=1
lane lane1 stock &
lane1=$!
lane lane2 debug stock &
lane2=$!
wait "$lane1" "$lane2"
for o in "$log"/vm-stock-*.out "$log"/vm-debug-*.out; do
	[ -f "$o" ] || continue
	name=$(basename "$o" .out)
	run_tap "${name#vm-} VM" report_vm "$(cat "${o%.out}.status")" "$o"
done

# Every item ran to its end in some guest: a guest that hung or died
# leaves its item (and the ones nobody claimed after it) behind.
for k in stock debug; do
	n=0
	while IFS= read -r item; do
		n=$((n + 1))
		if [ ! -d "$log/queue-$k/$n" ]; then
			echo "not ok - $k $item: never started (no guest was left to run it)"
		elif [ ! -f "$log/queue-$k/$n/done" ]; then
			echo "not ok - $k $item: did not finish ($(cat "$log/queue-$k/$n/item" 2>/dev/null))"
		fi
	done < <(items_of "$k") | emit
done

section dkms
run_tap dkms tests/dkms-check.sh

section ""

# Skips: each one is listed with its reason; one the gate does not expect
# (tests/expected-skips) is a failure, so that a skip cannot hide a
# regression.
skip_re='^ok .* # [Ss][Kk][Ii][Pp]'
expected_skip() {	# expected_skip LINE: whether tests/expected-skips lists it
	local pat why
	while IFS=$'\t' read -r pat why; do
		case $pat in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2053
		[[ "$1" == $pat ]] && return 0
	done <tests/expected-skips
	return 1
}
grep -E "$skip_re" "$tap" | sed 's/^ok - //' >"$log/skipped" || true
while IFS= read -r line; do
	echo "# skipped: $line"
	expected_skip "$line" || echo "not ok - unexpected skip: $line"
done <"$log/skipped" | emit

echo "# not run in the debug kernel (stock programs over covered paths): ${debug_skip[*]}"
# and the single tests tagged stock-only (tests/vm/runner), each with a
# comment in its file that says why
echo "# tests tagged stock-only (their kernel paths are driven by others there):"
awk '/^# bats test_tags=.*stock-only/ { tag = 1; next }
     tag && /^@test / { sub(/^@test "/, ""); sub(/" \{$/, "")
			 n = split(FILENAME, p, "/"); print "#   " p[n] ": " $0 }
     { tag = 0 }' tests/bats/*.bats
echo "# tests tagged debug-only (the stock kernel does not run them here):"
awk '/^# bats test_tags=.*debug-only/ { tag = 1; next }
     tag && /^@test / { sub(/^@test "/, ""); sub(/" \{$/, "")
			 n = split(FILENAME, p, "/"); print "#   " p[n] ": " $0 }
     { tag = 0 }' tests/bats/*.bats
echo "# time of each part:"
printf '#   %s\n' "${times[@]}"
echo "# time of each VM item (seconds, kernel, lane, item), longest first:"
for t in "$root"/build/vm/stock-lane*/times "$root"/build/vm/debug-lane*/times; do
	[ -f "$t" ] || continue
	d=$(basename "$(dirname "$t")")
	sed "s|\t|\t${d%-*}\t${d#*-}\t|" "$t"
done | sort -rn | awk -F'\t' '{ printf "#   %5ss  %-5s %s  %s\n", $1, $2, $3, $4 }'
echo "# the 15 slowest bats tests (seconds, kernel, test):"
for t in "$root"/build/vm/*/test-times; do
	[ -f "$t" ] || continue
	d=$(basename "$(dirname "$t")")
	sed "s|\t|\t${d%-*}\t|" "$t"
done | sort -rn | head -n 15 | awk -F'\t' '{ printf "#   %5.0fs  %-5s %s\n", $1 / 1000, $2, $3 }'

# Last, so that the tail of the output CI keeps shows it: each failed
# VM test with the first 40 lines bats printed after it (its diagnostics,
# from the lane's log; the next test's own "# " lines may follow them),
# which is often all there is to go on for a rare failure.
for j in "$root"/build/vm/stock-lane*/job.log "$root"/build/vm/debug-lane*/job.log; do
	[ -f "$j" ] || continue
	d=$(basename "$(dirname "$j")")
	awk -v lane="$d" '
	/^(not )?ok [0-9]/ || /^### / { p = 0 }
	/^not ok [0-9]/ { p = 1; n = 0; print "# failed (" lane "): " $0; next }
	p && n++ < 40 { print "#     " $0 }' "$j"
done

skipped=$(wc -l <"$log/skipped")
passed=$(( $(grep -c '^ok ' "$tap") - skipped ))
failed=$(grep -c '^not ok ' "$tap")
echo "# make check took $(( $(date +%s) - start ))s; logs in $log"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
