#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/guest/mq.sh - a real QEMU guest with 4 queue pairs: every pair
# carries traffic, both ways (issue 10's acceptance)
#
#   netns vhg-mq-PID
#   +------------------------------------------------------------------+
#   |  vh0 198.18.0.1/24: iperf3 servers on 5201..5204                 |
#   |   |  tap                                                         |
#   |  vhostd  port host (tap vh0)   port vm4 DIR/vm4.sock, queues=4   |
#   |   |  vhost-user, 4 queue pairs                                   |
#   |  QEMU g4 -smp 4, virtio-net-pci mq=on,vectors=0 (TCG)           |
#   |  eth0 198.18.0.14/24                                             |
#   +------------------------------------------------------------------+
#
# In the guest: "ethtool -L eth0 combined 4" (Linux already takes
# min(pairs, CPUs) at probe: the command must leave 4 in use), XPS maps
# CPU i to TX queue i, and iperf3 client i, pinned to CPU i, sends to
# server 520(i+1) for MQ_SECONDS.  iperf3 3.12 runs its streams in one
# thread, so "-P 4" in one process sends every stream from whichever CPU
# that thread is on: one client per CPU is what puts a flow on each TX
# queue.  vhostd answers each flow (the server's ACKs, through the TAP)
# on the pair whose TX queue sent it.
#
# Asserts: 4 pairs negotiated (MQ), offered, enabled and started in
# "vhostctl ports"; ethtool reports 4 combined channels in use; every
# iperf3 client received data; and vm4's "queues" counters grew during
# the run on every pair in both directions (rx_packets: frames from the
# guest's TX queue i; tx_packets: frames into its RX queue i), each
# pair's share of the tx matching its share of the rx within a factor
# of 3, as each pair's flow gets its own replies, and at least a quarter of
# the frames to the guest read from the TAP straight into the buffers of
# their flow's pair (a tun queue per pair).  The per-queue numbers
# go into the result line.
#
# Prints "PASS|FAIL guest-mq4 DETAIL" (appended to $TEST_RESULTS when
# set, tests/run.sh); exit 1 on failure.  Root (netns, tap).
# Environment: VHOSTD (default build/vhostd), VHOSTCTL (next to it),
# MQ_SECONDS (iperf3 seconds, 4), KEEP=1 keeps the work directory.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"

VHOSTD=${VHOSTD:-$ROOT/build/vhostd}
VHOSTCTL=${VHOSTCTL:-$(dirname "$VHOSTD")/vhostctl}
MQ_SECONDS=${MQ_SECONDS:-4}
PAIRS=4
HOSTIP=198.18.0.1
GIP=198.18.0.14

[ "$(id -u)" = 0 ] || vg_die "needs root (netns, tap)"
[ -x "$VHOSTD" ] || vg_die "no vhostd binary at $VHOSTD (build it, or set VHOSTD=)"
[ -x "$VHOSTCTL" ] || vg_die "no vhostctl at $VHOSTCTL"
command -v jq >/dev/null || vg_die "jq missing"
vg_ensure_image
VHOSTD=$(realpath "$VHOSTD")

NS=vhg-mq-$$
NS_MADE=0
VHOSTD_PID=
VG_EXTRA_PIDS=()
VG_DIR=$(mktemp -d /tmp/vhg-mq.XXXXXX)
VLOG=$VG_DIR/vhostd.log
T0=$SECONDS

vg_precheck() { vg_vhostd_alive || vg_die "vhostd (pid $VHOSTD_PID) has exited"; }
# record KIND DETAIL: the one result line, to stdout and $TEST_RESULTS
record() {
	echo "$1 guest-mq4 $2"
	[ -n "${TEST_RESULTS:-}" ] && echo "$1 guest-mq4 $2" >>"$TEST_RESULTS"
	return 0
}

VG_FAIL=fail
trap vg_cleanup EXIT
trap 'exit 130' INT TERM

# fail DETAIL: the FAIL line, then out
fail() {
	record FAIL "$1"
	exit 1
}

# vm4 [JQ]: vm4's object in "vhostctl ports", or JQ applied to it
vm4() {
	timeout 10 "$VHOSTCTL" --json --ctl "$VG_DIR/ctl.sock" ports |
		jq -c ".ports[] | select(.name == \"vm4\") | ${1:-.}"
}

ip netns add "$NS"
NS_MADE=1
ip -n "$NS" link set lo up
have_vh0() { ip -n "$NS" link show vh0 >/dev/null 2>&1; }
ip netns exec "$NS" "$VHOSTD" \
	--port "vhost-user,path=$VG_DIR/vm4.sock,name=vm4,queues=$PAIRS" \
	--port "tap,ifname=vh0,name=host" \
	--ctl "$VG_DIR/ctl.sock" </dev/null >>"$VLOG" 2>&1 &
VHOSTD_PID=$!
vg_wait_for 10 "vm4.sock" test -S "$VG_DIR/vm4.sock"
vg_wait_for 10 "tap vh0" have_vh0
ip -n "$NS" addr add "$HOSTIP/24" dev vh0
ip -n "$NS" link set vh0 up

vg_boot g4 --ip "$GIP/24" --mac 52:54:00:18:00:14 --vhost "$VG_DIR/vm4.sock" \
	--netns "$NS" --queues "$PAIRS" --smp "$PAIRS"
vg_wait_ready g4 120 || fail "g4 did not boot"
started() { [ "$(vm4 .negotiated.queue_pairs_started)" = "$PAIRS" ]; }
vg_wait_for 30 "$PAIRS pairs started" started
neg=$(vm4 .negotiated)
jq -e --argjson n "$PAIRS" '.queue_pairs == $n and .queue_pairs_enabled == $n
	and (.features_names | index("MQ")) != null' <<<"$neg" >/dev/null ||
	fail "negotiated: $neg"

# Channels: Linux took min(pairs, CPUs) at probe; -L must leave 4.
out=$(vg_run g4 20 "ls /sys/class/net/eth0/queues | tr '\n' ' '
	/usr/bin/ethtool -L eth0 combined $PAIRS; echo \"L rc=\$?\"
	/usr/bin/ethtool -l eth0
	i=0; while [ \$i -lt $PAIRS ]; do
		printf '%x' \$((1 << i)) > /sys/class/net/eth0/queues/tx-\$i/xps_cpus || echo XPSFAIL
		i=\$((i + 1))
	done") || fail "guest setup: rc=$?: $out"
vg_log "guest channels: $(tr '\n' ' ' <<<"$out")"
grep -q XPSFAIL <<<"$out" && fail "cannot set XPS: $out"
cur=$(awk '/^Current hardware settings/ { c = 1 } c && /^Combined:/ { print $2; exit }' <<<"$out")
[ "$cur" = "$PAIRS" ] || fail "ethtool -l: $cur combined channels in use, not $PAIRS"
for i in $(seq 0 $((PAIRS - 1))); do
	grep -qw "tx-$i" <<<"$out" || fail "no tx-$i in /sys/class/net/eth0/queues"
done

for i in $(seq 0 $((PAIRS - 1))); do
	ip netns exec "$NS" iperf3 -s -1 -p $((5201 + i)) >"$VG_DIR/srv$i.log" 2>&1 &
	VG_EXTRA_PIDS+=($!)
done
listening() { [ "$(ip netns exec "$NS" ss -Hltn | grep -c ':520[1-4] ')" = "$PAIRS" ]; }
vg_wait_for 10 "iperf3 servers" listening

before=$(vm4 .queues)
dir0=$(vm4 .direct.packets)
t1=$SECONDS
out=$(vg_run g4 $((MQ_SECONDS + 60)) "i=0; while [ \$i -lt $PAIRS ]; do
		taskset \$((1 << i)) /usr/bin/iperf3 -c $HOSTIP -p \$((5201 + i)) \
			-t $MQ_SECONDS -J > /tmp/mq\$i.json 2>&1 &
		i=\$((i + 1))
	done; wait") || fail "iperf3 clients: rc=$?: $out"
after=$(vm4 .queues)
dir1=$(vm4 .direct.packets)
t2=$SECONDS
gbits=()
for i in $(seq 0 $((PAIRS - 1))); do
	j=$(vg_run g4 20 "cat /tmp/mq$i.json") || fail "iperf3 client $i: no output"
	read -r gb bytes < <(vg_iperf_json "$j") ||
		fail "iperf3 client $i: $(grep -m1 '"error"' <<<"$j" || tail -n 2 <<<"$j")"
	[ "$bytes" -gt 0 ] || fail "iperf3 client $i received nothing"
	gbits+=("$gb")
done

# Per pair: frames from the guest (rx) and to it (tx) during the run.
per=$(jq -nr --argjson a "$before" --argjson b "$after" '
	[range(0; $b | length) as $i |
	 "q\($i) rx=\($b[$i].rx_packets - $a[$i].rx_packets)" +
	 " tx=\($b[$i].tx_packets - $a[$i].tx_packets)"] | join(", ")')
# A flow's replies come back on its pair: each pair's share of the
# frames into the guest (the host's ACKs) must match its share of the
# frames from it (the data) within a factor of 3 (measured: within 1.3).
# Replies all on one RX queue, a few strays elsewhere, fail this.
idle=$(jq -nr --argjson a "$before" --argjson b "$after" '
	[range(0; $b | length) as $i |
	 {rx: ($b[$i].rx_packets - $a[$i].rx_packets),
	  tx: ($b[$i].tx_packets - $a[$i].tx_packets)}] as $d |
	([$d[].rx] | add) as $RX | ([$d[].tx] | add) as $TX |
	[range(0; $d | length) as $i | $d[$i] as $q |
	 (if $q.rx == 0 then "q\($i) rx" else empty end),
	 (if $q.tx == 0 then "q\($i) tx" else empty end),
	 (if $q.rx > 0 and $q.tx > 0 and
	     (($q.tx * $RX) > 3 * ($q.rx * $TX) or
	      3 * ($q.tx * $RX) < ($q.rx * $TX))
	  then "q\($i) tx/rx off" else empty end)] |
	join(" ")')
n=$(jq 'length' <<<"$after")
[ "$n" = "$PAIRS" ] || fail "vm4 shows $n queue pairs: $per"
txall=$(jq -nr --argjson a "$before" --argjson b "$after" '
	[range(0; $b | length) as $i | $b[$i].tx_packets - $a[$i].tx_packets] | add')
direct=$((dir1 - dir0))
detail="$PAIRS pairs (ethtool combined $cur), iperf3 ${MQ_SECONDS}s x$PAIRS pinned: ${gbits[*]} Gbit/s; frames per pair: $per (of the tx, $direct read from the TAP straight into the flow's pair); $((t2 - t1)) s traffic, $((SECONDS - T0)) s total"
[ -z "$idle" ] || fail "idle during the run, or the pair's share of tx not its share of rx: $idle; $detail"
# The TAP has a tun queue per pair, steered by flow: once a steering
# sync (once a second) has the new flows, the replies are read straight
# into the pair's buffers; a quarter of them at least, over the run.
[ $((4 * direct)) -ge "$txall" ] ||
	fail "only $direct of $txall frames to the guest read directly; $detail"
vg_precheck
record PASS "$detail"
