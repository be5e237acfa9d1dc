#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/guest/vxlan.sh - two real QEMU guests on two vhostd "hosts",
# joined only by the vhostd's vxlan ports
#
#   netns vhg-vx1-PID ("host 1")          netns vhg-vx2-PID ("host 2")
#   vhostd1: vm1.sock, vx (198.18.0.1)    vhostd2: vm2.sock, vx (198.18.0.2)
#        |                                     |
#   guest g1 198.19.2.1 ----- VXLAN vni 42 over veth u1 == u2 ----- g2 198.19.2.2
#
# Checks, guest to guest across the tunnel: ping both ways without loss;
# iperf3 TCP both ways (-t VX_SECONDS, at least 100 MB each); 8 MiB from
# g1 to g2 over TCP with its sha256 equal at both ends; sockperf TCP
# ping-pong at 256 bytes (request/response, p50 and p99 reported); then
# both vxlan ports' counters: datagrams both ways, TSO frames joined again
# (gro_joined), no bad header, VNI, foreign datagram or MTU drop; both
# vhostd alive and no sanitizer report in their logs.
#
# Environment: VHOSTD (default build/vhostd), VX_SECONDS (5), KEEP=1,
# VX_KEYS (more vxlan port keys for both, e.g. ",remcsum=on": then both
# ports must also have taken RCO datagrams, remcsum_rx), VX_VIA=1 (each
# vxlan port over an afxdp port on its veth, via=: each vhostd owns its
# underlay address, the kernel has none; then both must have answered
# ARP, underlay_sent, and dropped nothing as underlay_bad or no_neigh
# after the first second), VX_VIA=tap (each vxlan port over a TAP port,
# each vhostd a station of its own, 198.18.1.1 and 198.18.2.1, behind
# its host's kernel, which routes over the veth; the same checks, and on
# Linux 6.17+ the guests' TSO frames crossed whole, tunnel_gso).
# With $TEST_RESULTS set, one PASS/FAIL line.  Root; everything stays in
# the two netns (198.18.0.0/24 underlay, 198.19.2.0/24 overlay).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"

VX_SECONDS=${VX_SECONDS:-5}
VX_KEYS=${VX_KEYS:-}
VX_VIA=${VX_VIA:-0}
NAME=guest-vxlan
[ "$VX_VIA" = 1 ] && NAME=guest-vxlan-via
[ "$VX_VIA" = tap ] && NAME=guest-vxlan-tap
vg_need_vhostd netns jq
vg_ensure_image

NS=vhg-vx1-$$
NS2=vhg-vx2-$$
NS_MADE=0
VHOSTD_PID=
VHOSTD2_PID=
VG_DIR=$(mktemp -d /tmp/vhg-vx.XXXXXX)
VLOG=$VG_DIR/vhostd1.log
VLOG2=$VG_DIR/vhostd2.log
ERR=

vg_precheck() {
	vg_vhostd_alive || vg_die "vhostd1 (pid $VHOSTD_PID) has exited"
	kill -0 "$VHOSTD2_PID" 2>/dev/null || vg_die "vhostd2 has exited"
}
vx_cleanup() {
	local rc=$?
	set +e
	[ $rc != 0 ] && [ -s "$VLOG2" ] && { echo "---- vhostd2 log (tail) ----"; tail -n 20 "$VLOG2"; } >&2
	ip netns del "$NS2" 2>/dev/null || true
	(exit $rc)
	vg_cleanup
}
trap vx_cleanup EXIT
trap 'exit 130' INT TERM

# fail WHY: one more failure, kept for the result line
fail() {
	ERR="${ERR:+$ERR; }$*"
	vg_log "FAIL: $*"
}

# ---- the two hosts -----------------------------------------------------

ip netns add "$NS"
NS_MADE=1
ip netns add "$NS2"
for n in "$NS" "$NS2"; do ip -n "$n" link set lo up; done
ip -n "$NS" link add u1 type veth peer name u2 netns "$NS2"
VIA1=() VIA2=()
L1=198.18.0.1 L2=198.18.0.2
if [ "$VX_VIA" = 1 ]; then
	VIA1=(--port "afxdp,ifname=u1,name=xa")
	VIA2=(--port "afxdp,ifname=u2,name=xa")
	VX_KEYS="$VX_KEYS,via=xa"
else
	ip -n "$NS" addr add 198.18.0.1/24 dev u1
	ip -n "$NS2" addr add 198.18.0.2/24 dev u2
fi
if [ "$VX_VIA" = tap ]; then
	# Each vhostd behind its host's kernel, on a subnet of its own.
	VIA1=(--port "tap,ifname=vxc,name=xt")
	VIA2=(--port "tap,ifname=vxc,name=xt")
	VX_KEYS="$VX_KEYS,via=xt"
	L1=198.18.1.1 L2=198.18.2.1
fi
# Room for a 1500-byte inner packet and its 50 bytes of VXLAN.
ip -n "$NS" link set u1 mtu 1600 up
ip -n "$NS2" link set u2 mtu 1600 up
if [ "$VX_VIA" = tap ]; then
	ip -n "$NS" route add 198.18.2.0/24 via 198.18.0.2
	ip -n "$NS2" route add 198.18.1.0/24 via 198.18.0.1
	for n in "$NS" "$NS2"; do
		ip netns exec "$n" sysctl -qw net.ipv4.ip_forward=1
	done
fi

ip netns exec "$NS" "$VHOSTD" \
	--port "vhost-user,path=$VG_DIR/vm1.sock,name=vm1" "${VIA1[@]}" \
	--port "vxlan,local=$L1,remote=$L2,vni=42,name=vx$VX_KEYS" \
	--ctl "$VG_DIR/ctl1.sock" </dev/null >"$VLOG" 2>&1 &
VHOSTD_PID=$!
ip netns exec "$NS2" "$VHOSTD" \
	--port "vhost-user,path=$VG_DIR/vm2.sock,name=vm2" "${VIA2[@]}" \
	--port "vxlan,local=$L2,remote=$L1,vni=42,name=vx$VX_KEYS" \
	--ctl "$VG_DIR/ctl2.sock" </dev/null >"$VLOG2" 2>&1 &
VHOSTD2_PID=$!
VG_EXTRA_PIDS+=("$VHOSTD2_PID")
vg_wait_for 10 "vm1.sock" test -S "$VG_DIR/vm1.sock"
vg_wait_for 10 "vm2.sock" test -S "$VG_DIR/vm2.sock"
if [ "$VX_VIA" = tap ]; then
	# The kernel's side of each carrier: an address on the vhostd's
	# subnet, proxy ARP for the far one (at once: proxy_delay 0).
	i=1
	for n in "$NS" "$NS2"; do
		vg_wait_for 10 "vxc in $n" ip -n "$n" link show vxc
		ip -n "$n" link set vxc mtu 1600 up
		ip -n "$n" addr add "198.18.$i.254/24" dev vxc
		ip netns exec "$n" sysctl -qw net.ipv4.conf.vxc.proxy_arp=1 \
			net.ipv4.neigh.vxc.proxy_delay=0
		i=2
	done
fi

vg_boot g1 --ip 198.19.2.1/24 --mac 52:54:00:19:02:01 --vhost "$VG_DIR/vm1.sock" --netns "$NS"
vg_boot g2 --ip 198.19.2.2/24 --mac 52:54:00:19:02:02 --vhost "$VG_DIR/vm2.sock" --netns "$NS2"
vg_wait_ready g1
vg_wait_ready g2

# ---- guest to guest ------------------------------------------------------

for pair in "g1 198.19.2.2" "g2 198.19.2.1"; do
	set -- $pair
	out=$(vg_run "$1" 40 "/usr/bin/ping -c 20 -i 0.2 -w 30 $2") || true
	avg=$(vg_ping_check "$out" "$2") || { fail "ping $1 -> $2: $(grep -a 'packet loss' <<<"$out")"; continue; }
	vg_log "ping $1 -> $2: 0% loss, avg ${avg} ms"
done

vg_run g1 20 '/usr/bin/iperf3 -s -D' >/dev/null || fail "iperf3 -s in g1"
vg_run g2 20 '/usr/bin/iperf3 -s -D' >/dev/null || fail "iperf3 -s in g2"
declare -A GB
for pair in "g1 198.19.2.2" "g2 198.19.2.1"; do
	set -- $pair
	out=$(vg_run "$1" $((VX_SECONDS + 40)) "/usr/bin/iperf3 -J -i 0 -c $2 -t $VX_SECONDS") || true
	if read -r gb bytes < <(vg_iperf_json "$out") && [ "$bytes" -ge 100000000 ]; then
		GB[$1]=$gb
		vg_log "iperf3 $1 -> $2: $gb Gbit/s, $bytes bytes"
	else
		fail "iperf3 $1 -> $2: ${bytes:-no} bytes"
	fi
done

# 8 MiB byte for byte: sha256 at both ends.
want=$(vg_run g1 30 'head -c 8388608 /dev/urandom > /tmp/blob; sha256sum /tmp/blob') ||
	fail "blob in g1"
want=${want%% *}
# busybox nc ends a connection when its own stdin ends: the listener's
# is a pipe kept open, the sender's the file (it closes after the last
# byte).
vg_run g2 10 "rm -f /tmp/sum; (sleep 120 | /bin/busybox nc -l -p 7000 | /bin/busybox tee /tmp/got | /bin/busybox sha256sum > /tmp/sum) > /dev/null 2>&1 &" >/dev/null ||
	fail "nc -l in g2"
sleep 0.5
vg_run g1 60 '/bin/busybox nc 198.19.2.2 7000 < /tmp/blob' >/dev/null ||
	fail "nc g1 -> g2"
got=$(vg_run g2 30 'while [ ! -s /tmp/sum ]; do sleep 0.1; done; cat /tmp/sum') || true
got=${got%% *}
[ -n "$want" ] && [ "$got" = "$want" ] ||
	fail "8 MiB g1 -> g2: sha256 ${got:-none}, want $want ($(vg_run g2 10 'wc -c < /tmp/got') bytes arrived)"

# Request/response, 256 bytes, TCP.
vg_run g2 10 '/usr/bin/sockperf sr --tcp -p 11111 --daemonize >/dev/null 2>&1' >/dev/null ||
	fail "sockperf server in g2"
sleep 0.5
rr=$(vg_run g1 40 "/usr/bin/sockperf pp --tcp -i 198.19.2.2 -p 11111 -t $VX_SECONDS -m 256 2>&1") || true
p50=$(sed -n 's/.*percentile 50.000 = *\([0-9.]*\).*/\1/p' <<<"$rr" | head -1)
p99=$(sed -n 's/.*percentile 99.000 = *\([0-9.]*\).*/\1/p' <<<"$rr" | head -1)
[ -n "$p50" ] || fail "sockperf ping-pong: $(tail -n 2 <<<"$rr" | tr '\n' ' ')"
vg_log "sockperf pp 256 B: p50 ${p50:-?} us, p99 ${p99:-?} us"

# ---- the tunnel's counters ------------------------------------------------

for c in 1 2; do
	j=$(timeout 10 "$VHOSTCTL" --json --ctl "$VG_DIR/ctl$c.sock" stats) || { fail "vhostd$c stats"; continue; }
	vx=$(jq -c '.ports[] | select(.name == "vx")' <<<"$j")
	want=(rx_packets tx_packets gro_joined)
	[[ $VX_KEYS == *remcsum=on* ]] && want+=(remcsum_rx)
	[ "$VX_VIA" != 0 ] && want+=(underlay_sent)
	[ "$VX_VIA" = tap ] && grep -q 'UDP tunnel GSO on' "$VLOG" &&
		want+=(tunnel_gso)
	for k in "${want[@]}"; do
		v=$(jq -r ".$k" <<<"$vx")
		[ "${v:-0}" -gt 0 ] || fail "vhostd$c vx $k=$v"
	done
	bad=(bad_header bad_vni foreign mtu_inner mtu_underlay drops.too_big drops.spoofed)
	[ "$VX_VIA" != 0 ] && bad+=(underlay_bad no_neigh)
	for k in "${bad[@]}"; do
		v=$(jq -r ".$k" <<<"$vx")
		[ "$v" = 0 ] || fail "vhostd$c vx $k=$v"
	done
done
vg_precheck
for l in "$VLOG" "$VLOG2"; do
	grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$l" && fail "sanitizer report in $l"
done

detail="g1<->g2 over VXLAN: ping both ways, iperf3 ${GB[g1]:-?}/${GB[g2]:-?} Gbit/s, 8 MiB sha256 intact, sockperf 256 B p50 ${p50:-?} us p99 ${p99:-?} us, GRO on both ends${VX_KEYS:+ ($VX_KEYS)}"
if [ -z "$ERR" ]; then
	echo "PASS $NAME  $detail"
	[ -z "${TEST_RESULTS:-}" ] || echo "PASS $NAME $detail" >>"$TEST_RESULTS"
else
	echo "FAIL $NAME  $ERR"
	[ -n "${TEST_RESULTS:-}" ] && echo "FAIL $NAME $ERR" >>"$TEST_RESULTS"
	exit 1
fi
