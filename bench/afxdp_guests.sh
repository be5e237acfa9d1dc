#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# afxdp_guests.sh - a real QEMU guest to the wire three ways, side by side:
#   vhostd's afxdp port, vhostd's TAP port bridged to the wire, and QEMU's
#   own virtio-net on a TAP bridged to the wire (no vhostd)
#
#   bench/afxdp_guests.sh [ROUNDS [SECONDS]]     (root; default 2 5)
#
#   netns V ("the host", one per path)             netns W ("the wire's far end")
#   guest g 198.18.0.11 -- afxdp: vhostd vhost-user + afxdp on wv ---+
#                       -- tap:   vhostd vhost-user + tap tk, br wv -+- wv == ww 198.18.0.1
#                       -- qemu:  QEMU virtio-net + tap0, br wv -----+   iperf3 -s
#
# The veth pair wv/ww is the wire; W's kernel stack is the far host.  Per
# round the three paths run in turn (a guest booted for each, TCG), each
# the same tests from the guest: TCP (iperf3, the guest's TSO frames),
# UDP with 64-byte and 1514-byte frames (iperf3 -u -b 0, counted as
# received by W), request/response with 256 bytes each way (sockperf
# ping-pong over TCP to W).  One line per run, then per test the medians and the
# ratios afxdp/tap and afxdp/qemu.  The guest's CPU is TCG's, so all three
# share its cost and the ratios show what the host side adds or saves;
# bench/afxdp.sh measures the paths with a vbench "guest" instead.
# PATHS (default "afxdp tap qemu") may add afxdp0 and tap0: the same with
# the guest's port at tx-irq-us=0 (each TX-completion interrupt at once),
# then compared with the default too.
# vhostd: BUILD's (default build).  Everything stays in the namespaces made
# here (198.18.0.0/24) and is removed at the end.
set -euo pipefail
ROUNDS=${1:-2}
SECS=${2:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
VHOSTD=${VHOSTD:-${BUILD:-$ROOT/build}/vhostd}
. "$ROOT/tests/guest/lib.sh"
[ "$(id -u)" = 0 ] || vg_die "afxdp_guests.sh: needs root (namespaces)"
[ -x "$VHOSTD" ] || vg_die "no $VHOSTD (make)"
command -v iperf3 >/dev/null || vg_die "no iperf3"
vg_ensure_image

NS=abg-v-$$
NSW=abg-w-$$
NS_MADE=0
VHOSTD_PID=
VG_DIR=$(mktemp -d /tmp/abg.XXXXXX)
OUT=$VG_DIR/out
SRV=
RRSRV=

ab_cleanup() {
	local rc=$?
	set +e
	[ -n "$SRV" ] && { vg_kill_pid "$SRV" 10; wait "$SRV" 2>/dev/null; }
	[ -n "$RRSRV" ] && { vg_kill_pid "$RRSRV" 10; wait "$RRSRV" 2>/dev/null; }
	ip netns del "$NSW" 2>/dev/null
	(exit $rc)
	vg_cleanup
}
trap ab_cleanup EXIT
trap 'exit 130' INT TERM

# wire: the two namespaces and the veth, W's address and iperf3 server
wire() {
	ip netns add "$NS"
	NS_MADE=1
	ip netns add "$NSW"
	for n in "$NS" "$NSW"; do
		ip -n "$n" link set lo up
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
	done
	ip -n "$NS" link add wv type veth peer name ww netns "$NSW"
	ip -n "$NSW" addr add 198.18.0.1/24 dev ww
	# W's checksums done in software, as a NIC would finish them: a
	# veth hands CHECKSUM_PARTIAL on, which AF_XDP cannot carry
	# (doc/ports.md, the veth checksum trap); all three paths alike.
	ip netns exec "$NSW" ethtool -K ww tx off >/dev/null
	ip -n "$NS" link set wv up
	ip -n "$NSW" link set ww up
	ip netns exec "$NSW" iperf3 -s -p 5501 >/dev/null 2>&1 &
	SRV=$!
	ip netns exec "$NSW" sockperf sr --tcp -i 198.18.0.1 -p 11111 \
		>/dev/null 2>&1 &
	RRSRV=$!
}

# unwire: both namespaces gone (the next path starts clean)
unwire() {
	[ -n "$SRV" ] && { vg_kill_pid "$SRV" 10; wait "$SRV" 2>/dev/null || true; }
	[ -n "$RRSRV" ] && { vg_kill_pid "$RRSRV" 10; wait "$RRSRV" 2>/dev/null || true; }
	SRV= RRSRV=
	ip netns del "$NSW" 2>/dev/null || true
	ip netns del "$NS" 2>/dev/null || true
	NS_MADE=0
}

# bridge_wire IF: IF in a bridge with the wire's end wv
bridge_wire() {
	ip -n "$NS" link add br0 type bridge
	ip -n "$NS" link set wv master br0
	ip -n "$NS" link set "$1" master br0
	ip -n "$NS" link set "$1" up
	ip -n "$NS" link set br0 up
}

# start PATH: the host side of PATH and the guest g on it
start() {
	case $1 in
	afxdp|tap|afxdp0|tap0)
		# tso=on: the far end is W's stack, which takes the guest's
		# TSO frames whole (auto is off on a veth, for a far XDP).
		local port="afxdp,ifname=wv,mode=native,tso=on,name=x" irq=
		[ "${1%0}" = tap ] && port="tap,ifname=tk,name=tk"
		# afxdp0, tap0: every TX-completion interrupt at once
		[ "${1%0}" != "$1" ] && irq=,tx-irq-us=0
		ip netns exec "$NS" "$VHOSTD" --ctl "$VG_DIR/ctl.sock" \
			--port "vhost-user,path=$VG_DIR/vm.sock,name=vm$irq" \
			--port "$port" </dev/null >>"$VG_DIR/vhostd.log" 2>&1 &
		VHOSTD_PID=$!
		vg_wait_for 10 "vm.sock" test -S "$VG_DIR/vm.sock"
		if [ "${1%0}" = tap ]; then
			vg_wait_for 10 "tk" ip netns exec "$NS" test -e /sys/class/net/tk
			bridge_wire tk
		fi
		vg_boot g --ip 198.18.0.11/24 --mac 52:54:00:18:00:11 \
			--vhost "$VG_DIR/vm.sock" --netns "$NS"
		;;
	qemu)
		ip -n "$NS" tuntap add dev tap0 mode tap
		bridge_wire tap0
		vg_boot g --ip 198.18.0.11/24 --mac 52:54:00:18:00:11 \
			--tap tap0 --netns "$NS" --model virtio-net-pci
		;;
	esac
	vg_wait_ready g
	vg_run g 20 "/usr/bin/ping -c 3 -i 0.2 -W 5 198.18.0.1" >"$VG_DIR/ping.$1" ||
		vg_log "$1: the guest cannot reach the wire's far end"
}

# stop: the guest and vhostd gone
stop() {
	vg_stop_all
	VG_NAMES=()
	if [ -n "$VHOSTD_PID" ]; then
		vg_kill_pid "$VHOSTD_PID" 30
		wait "$VHOSTD_PID" 2>/dev/null || true
		VHOSTD_PID=
	fi
	rm -f "$VG_DIR/vm.sock"
}

# counters PATH TEST: vhostd's view of the guest's port over TEST, a
#   "#" line (frames from the guest, interrupts sent and held, kicks)
CTR_LAST=
counters() {
	local now
	[ "$1" = qemu ] && return 0
	now=$(ip netns exec "$NS" "${VHOSTCTL:-$(dirname "$VHOSTD")/vhostctl}" \
		--json --ctl "$VG_DIR/ctl.sock" stats 2>/dev/null |
		jq -r '.ports[] | select(.name == "vm") |
			"\(.rx_packets) \(.irqs) \(.irqs_held) \(.kicks)"') || return 0
	[ -n "$CTR_LAST" ] && awk -v a="$CTR_LAST" -v b="$now" -v t="$2" -v p="$1" 'BEGIN {
		split(a, x); split(b, y)
		printf "#   %s %s: frames %d, interrupts %d (%d held), kicks %d\n",
			p, t, y[1] - x[1], y[2] - x[2], y[3] - x[3], y[4] - x[4] }'
	CTR_LAST=$now
}

# measure PATH ROUND: the tests from the guest, one line each
measure() {
	CTR_LAST=
	counters "$1" start
	local j v t
	j=$(vg_run g $((SECS + 40)) "/usr/bin/iperf3 -J -c 198.18.0.1 -p 5501 -t $SECS" 2>/dev/null) || true
	j=$(sed -n '/^{/,$p' <<<"$j")	# past iperf3's warnings
	echo "$j" >"$VG_DIR/$1.$2.tcp.json"
	v=$(jq -r '.end.sum_received.bits_per_second / 1e9' <<<"$j" 2>/dev/null) || v=0
	echo "$2 tcp $1 gbps=${v:-0}" | tee -a "$OUT"
	counters "$1" tcp
	for t in 64:22 1514:1472; do
		j=$(vg_run g $((SECS + 40)) "/usr/bin/iperf3 -J -u -b 0 -l ${t#*:} -c 198.18.0.1 -p 5501 -t $SECS" 2>/dev/null) || true
		j=$(sed -n '/^{/,$p' <<<"$j")
		echo "$j" >"$VG_DIR/$1.$2.${t%%:*}.json"
		v=$(jq -r "(.end.sum.packets - .end.sum.lost_packets) / $SECS / 1e6" <<<"$j" 2>/dev/null) || v=0
		echo "$2 ${t%%:*} $1 mpps=${v:-0}" | tee -a "$OUT"
		counters "$1" "${t%%:*}"
	done
	# request/response, 256 B each way over TCP (the seeds' RR test):
	# round trips per second, and the median round trip
	j=$(vg_run g $((SECS + 40)) "/usr/bin/sockperf pp --tcp -i 198.18.0.1 -p 11111 -t $SECS -m 256 --full-rtt" 2>&1) || true
	echo "$j" >"$VG_DIR/$1.$2.rr.txt"
	v=$(sed 's/\x1b\[[0-9;]*m//g' <<<"$j" | sed -n 's/.*RunTime=\([0-9.]*\) sec; SentMessages=[0-9]*; ReceivedMessages=\([0-9]*\).*/\2 \1/p' |
		awk 'NR == 1 && $2 > 0 { printf "%.0f", $1 / $2 }')
	echo "$2 rr $1 tps=${v:-0}" | tee -a "$OUT"
	v=$(sed 's/\x1b\[[0-9;]*m//g' <<<"$j" | sed -n 's/.*percentile 50\.000 = *\([0-9.]*\).*/\1/p' | head -n 1)
	echo "$2 rrp50 $1 us=${v:-0}" | tee -a "$OUT"
	counters "$1" rr
}

: >"$OUT"
for r in $(seq "$ROUNDS"); do
	for path in ${PATHS:-afxdp tap qemu}; do
		wire
		start "$path"
		measure "$path" "$r"
		stop
		unwire
	done
done

echo "medians; ratios afxdp/tap and afxdp/qemu (TCP in Gbit/s, UDP in Mpps received,"
echo "rr: 256-byte TCP round trips per second, rrp50: their median in us):"
# med PATH: the median of test $t's figures on PATH, 0 if it did not run
med() { { grep " $t $1 " "$OUT" || true; } | grep -o '=[0-9.]*' | cut -c2- |
	sort -g | awk '{a[NR]=$1} END {print NR ? a[int((NR+1)/2)] : 0}'; }
for t in tcp 64 1514 rr rrp50; do
	a=$(med afxdp) p=$(med tap) q=$(med qemu)
	awk -v t="$t" -v a="$a" -v p="$p" -v q="$q" 'BEGIN {
		printf "  %-5s afxdp %.3f  tap %.3f  qemu %.3f  afxdp/tap %.2f  afxdp/qemu %.2f\n",
			t, a, p, q, (p > 0 ? a / p : 0), (q > 0 ? a / q : 0) }'
done
if grep -q " afxdp0 \| tap0 " "$OUT"; then
	echo "tx-irq-us=300 (the default) against 0, medians and ratios:"
	for t in tcp 64 1514 rr rrp50; do
		awk -v t="$t" -v a="$(med afxdp)" -v a0="$(med afxdp0)" \
		    -v p="$(med tap)" -v p0="$(med tap0)" 'BEGIN {
			printf "  %-5s afxdp %.3f / %.3f = %.2f  tap %.3f / %.3f = %.2f\n",
				t, a, a0, (a0 > 0 ? a / a0 : 0),
				p, p0, (p0 > 0 ? p / p0 : 0) }'
	done
fi
