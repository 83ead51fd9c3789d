#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
#
# The smoke of make bench (tests/bench/bench.sh with XIB_BENCH_QUICK=1):
# every section runs once with few iterations, every row of the results
# is a number and both plots are PNG files, so that the benchmark cannot
# rot between the runs of make bench.  No figure is judged: benchmarks
# are not tests.  Stock kernel only (tests/check.sh debug_skip): stock
# programs over kernel paths the debug kernel's suites drive.

load helpers

setup() {
	xib_require_vm
	command -v iperf3 >/dev/null && command -v gnuplot >/dev/null ||
		skip "iperf3 or gnuplot missing (make deps)"
}

teardown() {
	# bench.sh cleans up after itself; a test that failed midway too
	ip netns del xbA 2>/dev/null || true
	ip netns del xbB 2>/dev/null || true
	ip link del xbr0 2>/dev/null || true
	xib-modules unload >/dev/null 2>&1 || true
}

@test "make bench smoke: every row a number, both plots PNG files" {
	local out=$BATS_TEST_TMPDIR/bench
	mkdir -p "$out"
	run env XIB_BENCH_QUICK=1 XIB_OUT="$out" "$XIB_ROOT/tests/bench/bench.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	# every section left figures: bandwidth, latency, QPs, memory per
	# QP, TCP, memcpy, loss, system calls, idle, cmtime
	for m in MBps typical_us p99_us Mpps cpu_s_per_GB bytes_per_qp Mbps syscalls_per_wr_strace \
		 syscalls_per_wr_perf kicks_per_wr cpu_ms connect; do
		awk -F'\t' -v m="$m" '$4 == m { n++ } END { exit !n }' "$out/bench.tsv" ||
			{ echo "no $m row" >&2; return 1; }
	done
	# no row without a number
	run awk -F'\t' '$5 !~ /^-?[0-9.]+$/' "$out/bench.tsv"
	[ -z "$output" ]
	for f in bench-bw.png bench-ratio.png; do
		[ "$(head -c 8 "$out/$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
	done
	# the profile of each loopback run (profile.sh): its packets sent
	for f in ib_write_bw ib_send_bw ib_send_lat; do
		grep -q "^profile: $f " "$out/bench.txt"
		awk '$1 == "xmit" && $3 > 0 { ok = 1 } END { exit !ok }' "$out/profile-$f.txt"
	done
}
