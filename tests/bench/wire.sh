#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
#
# wire.sh [--out DIR] [--port PORT]   (on the host: "make bench-wire")
# wire.sh --table TSV                 (only the table of a run's figures)
#
# The two-VM wire benchmark: two stock guests at once (2 vCPUs, 1 GiB
# each), joined by an emulated wire (run-vm --wire: virtio-net NICs on a
# QEMU dgram netdev), run tests/bench/wire-guest.sh, one as the server
# (side a), one as the client (side b), coordinated through a queue
# directory both share.  Over the same wire, rdma_rxe against rdma_rxe
# and then xib against xib (stock programs through xib-run): ib_write_bw
# 64 KiB, ib_send_bw 64 B message rate, ib_send_lat 2 B typical and 99th
# percentile, and validated ibv_rc_pingpong 64 KiB goodput under netem
# loss 0, 1 and 5 %; and the wire's own ping RTT and TCP bandwidth.
#
# Writes DIR/wire.tsv (the client's figures: CONFIG, TEST, SIZE, METRIC,
# VALUE), DIR/wire.txt (the table, also on stdout) and DIR/wire-ratio.png
# (xib against rxe per measure; 1 = parity).  DIR defaults to
# build/bench-wire; the guests' own output is in DIR/server and
# DIR/client (console.log, job.log, each step's output).  A benchmark,
# not a test: no figure is judged.  Exit status 1 when a row has no
# number, a guest failed or hung, or a guest's kernel log has a BUG,
# WARNING, KASAN or lockdep report.  Under TCG both guests share the
# host's CPUs: only the ratios of one run mean something.
#
# It takes the VM lock (/tmp/xib-vm.lock, XIB_VM_LOCK) around the two
# guests' run itself.  XIB_WIRE_QUICK=1 runs few iterations; PORT
# (default 47910) and PORT+1 are the wire's UDP ports on 127.0.0.1.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${XIB_BUILD:-$root/build}
out=$build/bench-wire
port=47910
table=

while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$2; shift 2 ;;
	--port) port=$2; shift 2 ;;
	--table) table=$2; shift 2 ;;
	*) echo "usage: wire.sh [--out DIR] [--port PORT] | --table TSV" >&2; exit 2 ;;
	esac
done

# ratio A B HIGHER: A/B when higher is better, B/A when lower is
ratio() {
	awk -v a="$1" -v b="$2" -v h="$3" 'BEGIN {
		if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || a + 0 == 0 || b + 0 == 0) { print "-"; exit }
		printf "%.2f", h ? a / b : b / a }'
}

# render TSV: the table of a run's figures on stdout, and the ratios as
# "LABEL RATIO" lines on fd 3.  Exit status 1 when a row has no number.
render() {
	local tsv=$1 st=0 label c t s m h a b r clean p
	declare -A v
	while IFS=$'\t' read -r c t s m a; do
		v[$c,$t,$s,$m]=$a
		[ -n "$a" ] && [ "$a" != fail ] || st=1
	done <"$tsv"
	get() {
		echo "${v[$1,$2,$3,$4]:--}"
	}
	echo "two-VM wire: two stock guests, virtio-net over a QEMU dgram netdev (TCG)"
	echo "ratio: xib/rxe, for latency rxe/xib (above 1: xib is better)"
	printf '%-34s %10s %10s %8s\n' measure xib rxe ratio
	while IFS='|' read -r label t s m h; do
		a=$(get xib "$t" "$s" "$m") b=$(get rxe "$t" "$s" "$m")
		r=$(ratio "$a" "$b" "$h")
		printf '%-34s %10s %10s %8s\n' "$label" "$a" "$b" "$r"
		[ "$r" = - ] || echo "${label// /_} $r" >&3
	done <<-EOF
		ib_write_bw 64 KiB, MB/s|ib_write_bw|65536|MBps|1
		ib_send_bw 64 B, Mpps|ib_send_bw|64|Mpps|1
		ib_send_bw 64 B, MB/s|ib_send_bw|64|MBps|1
		ib_send_lat 2 B typical, usec|ib_send_lat|2|typical_us|0
		ib_send_lat 2 B 99th pct, usec|ib_send_lat|2|p99_us|0
	EOF
	echo ""
	echo "goodput under netem loss (both NICs): validated ibv_rc_pingpong -c -s 65536, Mbit/s (% of clean)"
	printf '%-10s %20s %20s %8s\n' loss xib rxe ratio
	for l in 0 1 5; do
		line=$(printf '%-10s' "$l%")
		for c in xib rxe; do
			a=$(get "$c" ibv_rc_pingpong "loss$l" Mbps)
			clean=$(get "$c" ibv_rc_pingpong loss0 Mbps)
			p=$(awk -v a="$a" -v c="$clean" 'BEGIN {
				if (a ~ /^[0-9.]+$/ && c + 0 > 0) printf "%.0f%%", 100 * a / c; else print "-" }')
			line+=$(printf ' %20s' "$a ($p)")
		done
		r=$(ratio "$(get xib ibv_rc_pingpong "loss$l" Mbps)" "$(get rxe ibv_rc_pingpong "loss$l" Mbps)" 1)
		[ "$r" = - ] || echo "pingpong_loss_$l% $r" >&3
		echo "$line$(printf ' %8s' "$r")"
	done
	echo ""
	echo "the wire itself: ping RTT $(get wire ping 64 rtt_ms) ms, TCP (iperf3) $(get wire iperf3 - MBps) MB/s"
	if [ "$st" != 0 ]; then
		echo ""
		echo "rows without a number:"
		awk -F'\t' '$5 == "fail" || $5 == "" { print $1, $2, $3, $4 }' "$tsv"
	fi
	return "$st"
}

if [ -n "$table" ]; then
	render "$table" 3>/dev/null
	exit
fi

# --- the run --------------------------------------------------------------
# shellcheck source=tests/vm/kernels.sh
. "$root/tests/vm/kernels.sh"
xib_kernel_paths stock || exit 2
moddir=$build/modules/$KREL
for p in "$build/bin/xib-run" "$moddir/drivers/hca/xib_hca.ko"; do
	[ -e "$p" ] || { echo "wire: $p not built (make userspace modules-vm KERNEL=stock)" >&2; exit 2; }
done
rm -rf "$out"
mkdir -p "$out/queue"
out=$(cd "$out" && pwd)

# the VM lock of the test runs (the brief of every VM user), held until
# both guests are down
exec 9>"${XIB_VM_LOCK:-/tmp/xib-vm.lock}"
echo "wire: waiting for the VM lock" >&2
flock 9
start=$(date +%s)
pids=()
for r in server:a client:b; do
	role=${r%:*}
	"$root/tests/vm/run-vm" --kernel stock --out "$out/$role" --mem 1024 \
		--queue "$out/queue" --wire "${r#*:}:$port" --idle 900 --timeout 1800 -- \
		"export XIB_ROOT='$root' XIB_MODDIR='$moddir' XIB_OUT=/run/xib-out XIB_BUILD='$build' XIB_KERNEL=stock" \
		"export XIB_QUEUE=/run/xib-queue XIB_WIRE_QUICK='${XIB_WIRE_QUICK:-0}'" \
		"exec '$here/wire-guest.sh' $role" &
	pids+=($!)
done
status=0
i=0
for role in server client; do
	wait "${pids[i]}"
	st=$?
	i=$((i + 1))
	[ "$st" = 0 ] && continue
	status=1
	echo "wire: the $role guest ended with $st$([ -f "$out/$role/hang" ] && echo " ($(cat "$out/$role/hang"))"); last lines of its job:"
	tail -n 25 "$out/$role/job.log" 2>/dev/null | sed 's/^/#   /'
	[ ! -f "$out/queue/abort" ] || sed 's/^/#   abort: /' "$out/queue/abort"
done
elapsed=$(( $(date +%s) - start ))

# the kernel reports that fail a test run (tests/vm/vm-test) fail this one
bad='BUG:|WARNING:|KASAN|UBSAN|kernel BUG at|Oops|general protection fault|Kernel panic|'
bad+='blocked for more than|detected stall|possible recursive locking|refcount_t:|'
bad+='unregister_netdevice: waiting for'
for role in server client; do
	if grep -Eq "$bad" "$out/$role/console.log" 2>/dev/null; then
		echo "wire: the $role guest's kernel log has a report ($out/$role/console.log):"
		grep -E "$bad" "$out/$role/console.log" | head -n 5 | sed 's/^/#   /'
		status=1
	fi
done

tsv=$out/client/wire.tsv
if [ ! -s "$tsv" ]; then
	echo "wire: no figures ($tsv)"
	exit 1
fi
cp "$tsv" "$out/wire.tsv"
render "$out/wire.tsv" >"$out/wire.txt" 3>"$out/wire-ratio.dat" || status=1
echo "# two guests, ${elapsed}s" >>"$out/wire.txt"
cat "$out/wire.txt"

if [ -s "$out/wire-ratio.dat" ] && command -v gnuplot >/dev/null; then
	gnuplot >"$out/gnuplot.log" 2>&1 <<-EOF || { echo "wire: gnuplot failed ($out/gnuplot.log)"; status=1; }
		set terminal pngcairo size 900,540 noenhanced
		set output "$out/wire-ratio.png"
		set title "two-VM wire: xib against rdma_rxe (xib/rxe; latency rxe/xib; 1 = parity)"
		set logscale y 2
		set style data histogram
		set style fill solid 0.6
		set boxwidth 0.8
		set xtics rotate by -30 font ",8"
		set ylabel "ratio"
		set key off
		plot "$out/wire-ratio.dat" using 2:xtic(1), 1 with lines
	EOF
fi
echo "results: $out/wire.txt, $out/wire.tsv$( [ -f "$out/wire-ratio.png" ] && echo ", $out/wire-ratio.png")"
exit $status
