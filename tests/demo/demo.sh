#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo.sh ("make demo"): unmodified Debian verbs programs on xib.
#
# Builds user space (libibverbs.so.1 and friends, xib-run) and the
# modules for Debian's stock kernel, boots the test VM once
# (tests/vm/run-vm) and runs tests/demo/demo-guest.sh there:
#   1. an xib device in each of two network namespaces over a veth pair;
#      ibv_devices, ibv_rc_pingpong, ib_write_bw, ib_write_lat between
#      them, all through xib-run;
#   2. an xib device facing rdma_rxe (the kernel's software RoCE, driven
#      by the system's libibverbs) over another veth pair;
#      ibv_rc_pingpong and ib_write_bw both ways.
# Then prints one line per step: PASS/FAIL, bandwidth, latency.  Numbers
# are from QEMU without KVM (TCG): they show that data moves, they are no
# benchmark.  Full outputs: $XIB_BUILD/vm/demo/demo.log.
#
# Exit status 0 only if every step passed.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
build=${XIB_BUILD:-$root/build}
out=$build/vm/demo

echo "== building user space and the stock kernel's modules"
make -s -C "$root" BUILD="$build" userspace >/dev/null || exit 1
make -s -C "$root" BUILD="$build" modules-vm KERNEL=stock >/dev/null 2>&1 || {
	echo "demo: building the modules failed (make modules-vm KERNEL=stock)" >&2
	exit 1
}

# shellcheck source=tests/vm/kernels.sh
. "$root/tests/vm/kernels.sh"
xib_kernel_paths stock || exit 1

echo "== booting the VM ($KREL, TCG) and running the demo"
rm -rf "$out"
mkdir -p "$out"
start=$(date +%s)
"$root/tests/vm/run-vm" --kernel stock --out "$out" --timeout 1200 -- \
	"export XIB_ROOT='$root' XIB_MODDIR='$build/modules/$KREL' XIB_OUT=/run/xib-out XIB_BUILD='$build' XIB_KERNEL=stock" \
	"exec '$root/tests/demo/demo-guest.sh'"
status=$?
elapsed=$(( $(date +%s) - start ))

if [ ! -s "$out/demo.tsv" ]; then
	echo "demo: the VM produced no results (run-vm status $status); last lines:" >&2
	tail -n 25 "$out/job.log" "$out/console.log" 2>/dev/null >&2
	exit 1
fi

echo
printf '%-44s  %-6s  %-18s  %s\n' STEP RESULT BANDWIDTH LATENCY
printf '%-44s  %-6s  %-18s  %s\n' "$(printf '%.0s-' {1..44})" ------ \
	"$(printf '%.0s-' {1..18})" "$(printf '%.0s-' {1..16})"
failed=0
while IFS=$'\t' read -r stepname result bw lat; do
	printf '%-44s  %-6s  %-18s  %s\n' "$stepname" "$result" "$bw" "$lat"
	[ "$result" = PASS ] || failed=$((failed + 1))
done <"$out/demo.tsv"
echo
echo "VM run ${elapsed}s (QEMU TCG: numbers show data moving, not performance)."
echo "Outputs of every step: $out/demo.log"
[ "$status" = 0 ] || { echo "demo: the VM run ended with status $status" >&2; failed=$((failed + 1)); }
[ "$failed" = 0 ]
