#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# syscalls-per-wr.sh [-d DEV] [-D DEV2] [-n WRS] [-O write|send] [-s SIZE] [-m MAX]
#
# The kernel-bypass claim, measured: run a sustained loop of WRS (default
# 100000) RDMA WRITEs (or SENDs) of SIZE bytes (default 64) with
# xib_rc_test -b under "strace -c -f" (or, without strace, "perf stat -e
# raw_syscalls:sys_enter") and print the system calls the whole process
# made per WR, setup included, and the KICK calls among them.  Exit status
# 1 if that is above MAX (default 0.01).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${XIB_BUILD:-$root/build}/tests/c/xib_rc_test
dev=/dev/xib/uverbs0
dev2=
wrs=100000
op="write"
size=64
max=0.01
while getopts d:D:n:O:s:m: o; do
	case $o in
	d) dev=$OPTARG ;;
	D) dev2=$OPTARG ;;
	n) wrs=$OPTARG ;;
	O) op=$OPTARG ;;
	s) size=$OPTARG ;;
	m) max=$OPTARG ;;
	*) sed -n '4,13p' "$0" >&2; exit 2 ;;
	esac
done
[ -x "$bin" ] || { echo "syscalls-per-wr: $bin not built (make userspace)" >&2; exit 2; }
args=(-d "$dev" -b "$wrs" -O "$op" -s "$size")
[ -n "$dev2" ] && args+=(-D "$dev2")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if command -v strace >/dev/null; then
	tool=strace
	strace -f -c -o "$tmp/trace" "$bin" "${args[@]}" >"$tmp/out" 2>&1 ||
		{ cat "$tmp/out" "$tmp/trace" >&2; exit 1; }
	# "% time  seconds  usecs/call  calls  [errors]  syscall": calls is $4
	calls=$(awk '$NF == "total" { print $4; exit }' "$tmp/trace")
	ioctls=$(awk '$NF == "ioctl" { print $4; exit }' "$tmp/trace")
elif command -v perf >/dev/null; then
	tool=perf
	perf stat -x, -e raw_syscalls:sys_enter -o "$tmp/trace" "$bin" "${args[@]}" >"$tmp/out" 2>&1 ||
		{ cat "$tmp/out" "$tmp/trace" >&2; exit 1; }
	calls=$(awk -F, '/raw_syscalls:sys_enter/ { print $1 }' "$tmp/trace")
	ioctls="?"
else
	echo "syscalls-per-wr: neither strace nor perf is installed" >&2
	exit 2
fi

line=$(grep ' wrs ' "$tmp/out") || { cat "$tmp/out" >&2; exit 1; }
done_wrs=$(sed -n 's/.* wrs \([0-9]*\) .*/\1/p' <<<"$line")
kicks=$(sed -n 's/.* kicks \([0-9]*\) .*/\1/p' <<<"$line")
if [ -z "$calls" ] || [ -z "$done_wrs" ] || [ "$done_wrs" -eq 0 ]; then
	echo "syscalls-per-wr: cannot parse the results" >&2
	cat "$tmp/out" "$tmp/trace" >&2
	exit 1
fi
per=$(awk -v c="$calls" -v w="$done_wrs" 'BEGIN { printf "%.5f", c / w }')
echo "$line"
echo "syscalls-per-wr ($tool): $calls system calls for $done_wrs ${op} WRs of $size bytes" \
	"(KICKs $kicks, ioctls ${ioctls:-?}): $per per WR (target <= $max)"
[ "$tool" = strace ] && sort -k4 -n -r "$tmp/trace" | sed -n '1,12p'
awk -v p="$per" -v m="$max" 'BEGIN { exit !(p <= m) }'
