#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/guest/vlan.sh - a real QEMU guest's own 802.1Q devices (its Linux
# kernel's 8021q) on a vhostd trunk port, three TAP access ports beside
#
#   netns vhg-vl-PID: vhostd --ctl DIR/ctl.sock
#     port g1  vhost-user DIR/g1.sock  trunk=10:20 (no native VLAN)
#     port t10 tap, vlan=10   --moved-->  netns vhg-vl-PID-t10  198.18.20.2/24
#     port t20 tap, vlan=20   --moved-->  netns vhg-vl-PID-t20  198.18.21.2/24
#     port t30 tap, vlan=30   --moved-->  netns vhg-vl-PID-t30  198.18.20.3/24
#          |                                  (VLAN 10's subnet, VLAN 30)
#     QEMU g1 (TCG, vectors=0): eth0 up, no address, IPv6 off
#          eth0.10 198.18.20.1/24   eth0.20 198.18.21.1/24   (vconfig)
#          eth0.30 198.18.24.1/24   (a VLAN the trunk does not carry)
#     netns vhg-vl-PID-far: far0 198.18.25.2/24 (rx csum off) == veth ==
#          f10 198.18.25.1/24 (tx csum off) in t10's netns, which routes
#
# IPv6 is off everywhere and every neighbour on the trunk is a permanent
# entry, so the only frames that move are the test's own.  Checks:
#   ping t10 <-> eth0.10 and t20 <-> eth0.20 both ways, no loss, also at
#   1472 bytes unfragmented (1518-byte frames on the trunk);
#   t30 pings 198.18.20.1 (ARP, then a permanent entry naming the guest's
#   MAC: unknown unicast in VLAN 30) and gets no answer;
#   a counted window of floods: VL_FLOOD broadcasts each from t10, t20,
#   t30, the guest's eth0.10 and eth0.20, and VL_FLOOD untagged (eth0,
#   a scratch address) and VLAN 30 (eth0.30) ones from the guest; the
#   interfaces' rx_packets must grow by exactly: t10 and t20 VL_FLOOD (the
#   guest's of their VLAN), t30 0, the guest's eth0 2 x VL_FLOOD (t10's and
#   t20's, nothing of t30's), eth0.10 and eth0.20 VL_FLOOD each, eth0.30
#   0; g1's drops.vlan by exactly 2 x VL_FLOOD (untagged without native=,
#   VLAN 30);
#   iperf3 TCP t10 -> eth0.10 and back (-R), VL_SECONDS each (TSO and
#   checksum offload through the tag's push and pop): at least VL_MIN_MBPS
#   Mbit/s, retransmits under 1 per 1000 segments' worth of bytes, the
#   sender's frames into vhostd >= 3000 bytes on average (TSO kept; where
#   the guest negotiated GUEST_TSO4, HOST_TSO4);
#   vhostctl domains (10: g1+t10, 20: g1+t20, 30: t30), fdb (the guest's
#   MAC in 10 and 20, nowhere in 30), stats (g1's l2.trunk 10:20; no
#   drops but g1's drops.vlan, no_buffer <= 100; t10..t30 drops.vlan 0;
#   without GUEST_TSO4 neither no_buffer nor retransmits are judged);
#   checksums filled in at csum_start by a forwarding kernel and verified
#   by the receiver, both ways of the tag (iperf3, >= VL_MIN_MBPS): pop,
#   guest -> t10 -> far (t10's kernel fills them: f10 tx off); push,
#   t10 -> guest -> t20 and back (the guest fills them: eth0.X tx off);
#   no drop but no_buffer (a TCG router's RX ring overruns);
#   native=30: g1 deleted and added again with native=30 (port del/add,
#   QEMU reconnects): l2 says VLAN 30 and trunk 10:20:30; the guest's
#   untagged eth0 (198.18.22.1) <-> t30's 198.18.22.3 pings, eth0.10 still
#   reaches t10; counted: t30's VL_FLOOD broadcasts reach the guest's eth0
#   untagged (eth0.30: 0), the guest's untagged ones and its eth0.30 ones
#   (the native VLAN's own tag) reach t30, 2 x VL_FLOOD, none tagged
#   (tcpdump), t10 and t20 0, drops.vlan 0;
#   vhostd alive and no sanitizer report in its log.
#
# Environment: VHOSTD (default build/vhostd; the ASan build works too),
# VL_SECONDS (4), VL_FLOOD (100), VL_MIN_MBPS (50), KEEP=1, VG_NIC_OPTS
# (e.g. $VG_NO_OFFLOADS: the same checks without TSO), VG_CACHE (the
# image, which needs 8021q: setup.sh puts it in; an older image is rebuilt
# by vg_ensure_image, keeping its extra modules).
# With $TEST_RESULTS set, one PASS/FAIL line.  Root; everything stays in
# the five netns (198.18.20.0/24, .21, .25, and .22, .24 in the guest).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"

VL_SECONDS=${VL_SECONDS:-4}
VL_FLOOD=${VL_FLOOD:-100}
VL_MIN_MBPS=${VL_MIN_MBPS:-50}
vg_need_vhostd "netns, tap" jq
vg_ensure_image 8021q

NS=vhg-vl-$$
NS_MADE=0
VHOSTD_PID=
VG_DIR=$(mktemp -d /tmp/vhg-vl.XXXXXX)
VLOG=$VG_DIR/vhostd.log
CTL=$VG_DIR/ctl.sock
ERR=
TAPS=(t10 t20 t30)
declare -A TIP=([t10]=198.18.20.2 [t20]=198.18.21.2 [t30]=198.18.20.3)
declare -A TMAC=([t10]=02:18:20:00:00:02 [t20]=02:18:21:00:00:02 [t30]=02:18:20:00:00:03)
declare -A TBCAST=([t10]=198.18.20.255 [t20]=198.18.21.255 [t30]=198.18.20.255)
GMAC=52:54:00:18:20:01
TNS_MADE=()

vg_precheck() { vg_vhostd_alive || vg_die "vhostd (pid $VHOSTD_PID) has exited"; }
vl_cleanup() {
	local rc=$? t
	set +e
	# The guest and vhostd before the namespaces that hold vhostd's TAPs
	# (vg_cleanup's order, with the TAP namespaces last).
	vg_stop_all
	if [ -n "$VHOSTD_PID" ]; then
		vg_kill_pid "$VHOSTD_PID" 30
		wait "$VHOSTD_PID" 2>/dev/null
	fi
	for t in "${TNS_MADE[@]}"; do ip netns del "$NS-$t" 2>/dev/null; done
	(exit $rc)
	vg_cleanup
}
trap vl_cleanup EXIT
trap 'exit 130' INT TERM

# fail WHY: one more failure, kept for the result line
fail() {
	ERR="${ERR:+$ERR; }$*"
	vg_log "FAIL: $*"
}

# tx T CMD...: run CMD in TAP endpoint T's namespace
tx() {
	local t=$1
	shift
	ip netns exec "$NS-$t" "$@"
}

# trx T: frames endpoint T's interface has received
trx() { tx "$1" cat "/sys/class/net/$1/statistics/rx_packets"; }

# grx IF...: frames the guest's interfaces have received, one line
grx() {
	local c='' i
	for i in "$@"; do c="$c cat /sys/class/net/$i/statistics/rx_packets;"; done
	vg_run g1 10 "$c" | tr '\n' ' '
	echo
}

# ctl ARGS...: vhostctl --json on our vhostd
ctl() { timeout 10 "$VHOSTCTL" --json --ctl "$CTL" "$@"; }

# port_stat PORT FILTER: jq FILTER (e.g. .drops.vlan) on one port's stats
port_stat() {
	ctl stats | jq -r --arg p "$1" ".ports[] | select(.name == \$p) | $2"
}

# have_tap T: vhostd's TAP T is there (in its netns)
have_tap() { ip -n "$NS" link show "$1" >/dev/null 2>&1; }

# ---- vhostd, the TAP endpoints, the guest ------------------------------

ip netns add "$NS"
NS_MADE=1
ip -n "$NS" link set lo up

ip netns exec "$NS" "$VHOSTD" \
	--port "vhost-user,path=$VG_DIR/g1.sock,name=g1,trunk=10:20" \
	--port "tap,ifname=t10,name=t10,vlan=10" \
	--port "tap,ifname=t20,name=t20,vlan=20" \
	--port "tap,ifname=t30,name=t30,vlan=30" \
	--ctl "$CTL" </dev/null >"$VLOG" 2>&1 &
VHOSTD_PID=$!
vg_wait_for 10 "g1.sock" test -S "$VG_DIR/g1.sock"
vg_wait_for 10 "ctl.sock" test -S "$CTL"

for t in "${TAPS[@]}"; do
	vg_wait_for 10 "TAP $t" have_tap "$t"
	ip netns add "$NS-$t"
	TNS_MADE+=("$t")
	tx "$t" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	tx "$t" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	tx "$t" sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=1
	tx "$t" ip link set lo up
	ip -n "$NS" link set "$t" down
	ip -n "$NS" link set "$t" netns "$NS-$t"
	tx "$t" sysctl -qw "net.ipv6.conf.$t.disable_ipv6=1"
	tx "$t" ip link set "$t" address "${TMAC[$t]}"
	tx "$t" ip addr add "${TIP[$t]}/24" dev "$t"
	tx "$t" ip link set "$t" up
done
# Permanent entries (never probed): no ARP in the counted window.  t30's
# for the guest's address comes later, after its ARP attempt.
tx t10 ip neigh replace 198.18.20.1 lladdr "$GMAC" nud permanent dev t10
tx t20 ip neigh replace 198.18.21.1 lladdr "$GMAC" nud permanent dev t20

vg_boot g1 --ip '' --mac "$GMAC" --vhost "$VG_DIR/g1.sock" --netns "$NS"
vg_wait_ready g1

# The guest's VLAN devices.  eth0 is up (init.sh), without an address.
out=$(vg_run g1 30 "
	set -e
	for s in all default eth0; do echo 1 > /proc/sys/net/ipv6/conf/\$s/disable_ipv6; done
	echo 1 > /proc/sys/net/ipv4/icmp_echo_ignore_broadcasts
	test -e /proc/net/vlan/config || { echo 'no 8021q in the guest kernel'; exit 1; }
	for v in 10 20 30; do
		vconfig add eth0 \$v >/dev/null
		echo 1 > /proc/sys/net/ipv6/conf/eth0.\$v/disable_ipv6
	done
	ip addr add 198.18.20.1/24 dev eth0.10
	ip addr add 198.18.21.1/24 dev eth0.20
	ip addr add 198.18.24.1/24 dev eth0.30
	for v in 10 20 30; do ip link set eth0.\$v up; done
	arp -i eth0.10 -s 198.18.20.2 ${TMAC[t10]}
	arp -i eth0.20 -s 198.18.21.2 ${TMAC[t20]}
	cat /proc/net/vlan/config
	head -n 3 /proc/net/vlan/eth0.10
	ethtool -k eth0.10 | grep -E '^(tcp-segmentation-offload|tx-checksumming|rx-checksumming):'
") || vg_die "guest VLAN devices: $out"
vg_log "guest VLAN devices:"
printf '    %s\n' "$out" >&2
FEATURES=$(vg_features g1)
vg_log "g1 virtio-net features: $FEATURES"
CONGESTS=1
case " $FEATURES " in *" GUEST_TSO4 "*) CONGESTS=0 ;; esac

# ---- reachability ------------------------------------------------------------

# ping_ok WHERE DEST [ARGS]: WHERE (a TAP endpoint or g1) pings DEST, no loss
ping_ok() {
	local out avg a=${3:-}
	if [ "$1" = g1 ]; then
		out=$(vg_run g1 30 "/usr/bin/ping -c 10 -i 0.2 -w 20 $a $2") || true
	else
		out=$(tx "$1" ping -c 10 -i 0.2 -w 20 $a "$2" 2>&1) || true
	fi
	avg=$(vg_ping_check "$out" "$2") ||
		{ fail "ping $1 -> $2${a:+ ($a)}: $(grep -a 'packet loss' <<<"$out")"; return; }
	vg_log "ping $1 -> $2${a:+ ($a)}: 0% loss, avg ${avg} ms"
}
ping_ok t10 198.18.20.1
ping_ok g1 198.18.20.2
ping_ok t20 198.18.21.1
ping_ok g1 198.18.21.2
# Full-sized, unfragmented: 1518-byte frames on the trunk, 1514 on the TAP.
ping_ok t10 198.18.20.1 '-s 1472 -M do'
ping_ok g1 198.18.21.2 '-s 1472 -M do'

# VLAN 30 shares VLAN 10's subnet: its ARP for the guest must find no one,
# nor its unicast to the guest's MAC (learned in 10 and 20, not in 30).
if tx t30 ping -c 3 -i 0.3 -W 1 198.18.20.1 >/dev/null 2>&1; then
	fail "t30 (VLAN 30) reached 198.18.20.1 by ARP"
fi
tx t30 ip neigh replace 198.18.20.1 lladdr "$GMAC" nud permanent dev t30
if tx t30 ping -c 3 -i 0.3 -W 1 198.18.20.1 >/dev/null 2>&1; then
	fail "t30 (VLAN 30) reached 198.18.20.1 by unicast to $GMAC"
fi
vg_log "t30 (VLAN 30, 198.18.20.3) cannot reach 198.18.20.1"

# ---- the counted window -------------------------------------------------------

# Broadcast pings: nobody answers (icmp_echo_ignore_broadcasts) and no
# ARP is needed, so each is exactly one frame.
n=$VL_FLOOD
declare -A T0 T1
for t in "${TAPS[@]}"; do T0[$t]=$(trx "$t"); done
read -r g0_eth0 g0_v10 g0_v20 g0_v30 < <(grx eth0 eth0.10 eth0.20 eth0.30)
dv0=$(port_stat g1 .drops.vlan)
pids=()
for t in "${TAPS[@]}"; do
	ip netns exec "$NS-$t" ping -q -b -c "$n" -i 0.01 -W 1 "${TBCAST[$t]}" >/dev/null 2>&1 &
	pids+=($!)
done
vg_run g1 60 "
	ip addr add 198.18.22.1/24 dev eth0
	for d in eth0.10:198.18.20.255 eth0.20:198.18.21.255 eth0.30:198.18.24.255 eth0:198.18.22.255; do
		/usr/bin/ping -q -b -c $n -i 0.01 -W 1 -I \${d%:*} \${d#*:} > /dev/null 2>&1 &
	done
	wait
	ip addr del 198.18.22.1/24 dev eth0" >/dev/null || fail "the guest's broadcasts"
for p in "${pids[@]}"; do wait "$p" || true; done
sleep 0.5	# the last frames through vhostd and a reading's burst
for t in "${TAPS[@]}"; do T1[$t]=$(trx "$t"); done
read -r g1_eth0 g1_v10 g1_v20 g1_v30 < <(grx eth0 eth0.10 eth0.20 eth0.30)
dv1=$(port_stat g1 .drops.vlan)

# want WHAT GOT WANT: a counted frame delta, exactly
want() {
	if [ "$2" != "$3" ]; then fail "$1: $2 frames, want $3"; fi
	return 0
}
want "t10 rx (guest's VLAN 10)" $((T1[t10] - T0[t10])) "$n"
want "t20 rx (guest's VLAN 20)" $((T1[t20] - T0[t20])) "$n"
want "t30 rx (VLAN 30: nobody else)" $((T1[t30] - T0[t30])) 0
want "guest eth0 rx (t10 + t20, none of t30)" $((g1_eth0 - g0_eth0)) $((2 * n))
want "guest eth0.10 rx" $((g1_v10 - g0_v10)) "$n"
want "guest eth0.20 rx" $((g1_v20 - g0_v20)) "$n"
want "guest eth0.30 rx" $((g1_v30 - g0_v30)) 0
want "g1 drops.vlan (untagged, VLAN 30)" $((dv1 - dv0)) $((2 * n))
vg_log "floods of $n: t10 +$((T1[t10] - T0[t10])), t20 +$((T1[t20] - T0[t20])), t30 +$((T1[t30] - T0[t30])), guest eth0 +$((g1_eth0 - g0_eth0)), g1 drops.vlan +$((dv1 - dv0))"

# ---- TCP through the tag's push and pop ---------------------------------------

vg_run g1 20 '/usr/bin/iperf3 -s -D -B 198.18.20.1' >/dev/null || fail "iperf3 -s in g1"
sleep 0.3
declare -A MBPS RETR FRAME
for dir in to from; do
	r=; [ $dir = from ] && r=-R
	read -r p0 b0 < <(port_stat "$([ $dir = to ] && echo t10 || echo g1)" '"\(.rx_packets) \(.rx_bytes)"')
	rc=0
	out=$(tx t10 timeout $((VL_SECONDS + 20)) iperf3 -J -i 0 -c 198.18.20.1 \
		-t "$VL_SECONDS" $r 2>&1) || rc=$?
	if [ $rc != 0 ] || ! read -r gb bytes < <(vg_iperf_json "$out"); then
		fail "iperf3 t10 $dir guest: rc=$rc $(jq -r '.error // empty' <<<"$out" 2>/dev/null)"
		continue
	fi
	retr=$(jq -r '.end.sum_sent.retransmits // 0' <<<"$out")
	# The sender's frames as vhostd took them: TSO frames stay whole
	# (64 KiB) through the tag's push or pop, not 1514-byte segments.
	read -r p1 b1 < <(port_stat "$([ $dir = to ] && echo t10 || echo g1)" '"\(.rx_packets) \(.rx_bytes)"')
	avgf=$(( (b1 - b0) / (p1 - p0 > 0 ? p1 - p0 : 1) ))
	FRAME[$dir]=$avgf
	# (Only where the guest's driver took the TSO feature of that way.)
	tso=GUEST_TSO4; [ $dir = from ] && tso=HOST_TSO4
	case " $FEATURES " in *" $tso "*)
		[ "$avgf" -ge 3000 ] ||
			fail "iperf3 t10 $dir guest: vhostd took frames of $avgf bytes on average (no TSO?)" ;;
	esac
	mbps=$(awk -v g="$gb" 'BEGIN { printf "%d", g * 1000 }')
	MBPS[$dir]=$mbps
	RETR[$dir]=$retr
	vg_log "iperf3 t10 $dir guest (VLAN 10): $mbps Mbit/s, $bytes bytes, $retr retransmits, frames of $avgf bytes on average"
	[ "$mbps" -ge "$VL_MIN_MBPS" ] || fail "iperf3 t10 $dir guest: $mbps Mbit/s < $VL_MIN_MBPS"
	# A storm: more than one in 1000 of the MSS-sized segments resent.
	# (Not judged without GUEST_TSO4, e.g. VG_NIC_OPTS=$VG_NO_OFFLOADS:
	# then vhostd cuts the TAP's 64 KiB frames into 1514-byte ones for the
	# guest, bursts a TCG guest's ring overruns, trunk or not.)
	if [ "$CONGESTS" = 0 ]; then
		[ "$retr" -le $((bytes / 1448 / 1000 + 10)) ] ||
			fail "iperf3 t10 $dir guest: $retr retransmits for $bytes bytes"
	fi
done

# ---- vhostd's view --------------------------------------------------------------

vg_precheck
dom=$(ctl domains) || fail "vhostctl domains"
printf '%s\n' "$dom" > "$VG_DIR/domains.json"
for d in "10 g1,t10" "20 g1,t20" "30 t30"; do
	set -- $d
	got=$(jq -r --argjson v "$1" '(.domains? // .)[] | select(.vlan == $v) | .ports | sort | join(",")' <<<"$dom" 2>/dev/null)
	[ "$got" = "$2" ] || fail "domain $1: ports '$got', want $2"
done
fdb=$(ctl fdb) || fail "vhostctl fdb"
printf '%s\n' "$fdb" > "$VG_DIR/fdb.json"
gv=$(jq -r --arg m "$GMAC" '(.entries? // .fdb? // .)[] | select(.mac == $m) | "\(.vlan):\(.port)"' <<<"$fdb" 2>/dev/null | sort | tr '\n' ' ')
[ "$gv" = "10:g1 20:g1 " ] || fail "fdb: the guest's MAC as '$gv', want 10:g1 20:g1"

st=$(ctl stats) || fail "vhostctl stats"
printf '%s\n' "$st" > "$VG_DIR/stats.json"
# p PORT KEY: a counter of the stats snapshot $st
p() { jq -r --arg p "$1" ".ports[] | select(.name == \$p) | .$2" <<<"$st"; }
# check_drops LABEL PORT...: none of the reasons that mean a frame vhostd
#   could not handle (no_buffer is congestion: a TCG guest is slow)
check_drops() {
	local label=$1 port k v
	shift
	for port in "$@"; do
		for k in drops.offload drops.too_big drops.bad_desc drops.runt drops.io_error \
			 drops.spoofed drops.isolated drops.port_down drops.storm drops.rate; do
			v=$(p "$port" "$k")
			[ "$v" = 0 ] || fail "$label$port $k=$v"
		done
	done
}
[ "$(p g1 l2.trunk)" = "10:20" ] || fail "g1 l2.trunk '$(p g1 l2.trunk)', want 10:20"
check_drops "" g1 t10 t20 t30
for port in g1 t10 t20 t30; do
	v=$(p "$port" drops.no_buffer)
	[ "$CONGESTS" = 1 ] || [ "${v:-0}" -le 100 ] || fail "$port drops.no_buffer=$v"
done
for port in t10 t20 t30; do
	v=$(p "$port" drops.vlan)
	[ "$v" = 0 ] || fail "$port drops.vlan=$v (the host sends no tags)"
done
vg_log "vhostd counters: $(for port in g1 t10 t20 t30; do
	printf '%s rx %s tx %s drops.vlan %s no_buffer %s; ' "$port" \
		"$(p "$port" rx_packets)" "$(p "$port" tx_packets)" \
		"$(p "$port" drops.vlan)" "$(p "$port" drops.no_buffer)"; done)"
# ---- checksums computed from csum_start, and checked ----------------------------

# Between kernels that trust offload metadata nothing checks a checksum:
# a CHECKSUM_PARTIAL frame is delivered as it is.  So each direction of
# the tag's trip also goes through a forwarding hop that fills the
# checksum in software at csum_start (a device with tx checksumming off)
# towards a receiver that verifies it (CHECKSUM_NONE):
#   pop:  guest eth0.10 (TSO, csum offload) -> vhostd -> t10, routed out
#         veth f10 (tx off) -> far0 (rx off) in netns vhg-vl-PID-far
#   push: t10 -> vhostd -> guest eth0.10, routed out eth0.20 (tx off) ->
#         vhostd -> t20, and back the same way (eth0.10 tx off)
# A csum_start not moved by the tag's 4 bytes makes every small segment's
# checksum land in the wrong place; the receiver drops them all.
ip netns add "$NS-far"
TNS_MADE+=(far)
tx far sysctl -qw net.ipv6.conf.all.disable_ipv6=1
tx far sysctl -qw net.ipv6.conf.default.disable_ipv6=1
tx far ip link set lo up
tx t10 ip link add f10 type veth peer name far0 netns "$NS-far"
tx t10 sysctl -qw net.ipv6.conf.f10.disable_ipv6=1 2>/dev/null || true
tx t10 ethtool -K f10 tx off >/dev/null
tx far ethtool -K far0 rx off >/dev/null
tx t10 ip addr add 198.18.25.1/24 dev f10
tx far ip addr add 198.18.25.2/24 dev far0
tx t10 ip link set f10 up
tx far ip link set far0 up
tx t10 sysctl -qw net.ipv4.ip_forward=1
tx far ip route add 198.18.20.0/24 via 198.18.25.1
tx t10 ip route add 198.18.21.0/24 via 198.18.20.1
tx t20 ip route add 198.18.20.0/24 via 198.18.21.1
vg_run g1 10 "echo 1 > /proc/sys/net/ipv4/ip_forward &&
	ip route add 198.18.25.0/24 via 198.18.20.2 dev eth0.10" >/dev/null ||
	fail "the guest's forwarding"
# (ip netns exec execs iperf3: $! is its PID, ours to stop.  Not through
# tx: a function run with & is a subshell, and $! would be that.)
ip netns exec "$NS-t20" iperf3 -s -B 198.18.21.2 </dev/null >"$VG_DIR/iperf3-t20.log" 2>&1 &
VG_EXTRA_PIDS+=($!)
t20_listens() { tx t20 ss -Hltn 'sport = :5201' | grep -q .; }
vg_wait_for 10 "iperf3 -s in t20" t20_listens

# hop_iperf WHERE DEST ARGS LABEL: iperf3 -c DEST in netns WHERE, >= VL_MIN_MBPS
hop_iperf() {
	local out rc=0 gb bytes mbps
	out=$(tx "$1" timeout $((VL_SECONDS + 20)) iperf3 -J -i 0 -c "$2" -t "$VL_SECONDS" $3 2>&1) || rc=$?
	if [ $rc != 0 ] || ! read -r gb bytes < <(vg_iperf_json "$out"); then
		fail "iperf3 $4: rc=$rc $(jq -r '.error // empty' <<<"$out" 2>/dev/null)"
		return
	fi
	mbps=$(awk -v g="$gb" 'BEGIN { printf "%d", g * 1000 }')
	HOP+=("$mbps")
	vg_log "iperf3 $4: $mbps Mbit/s, $bytes bytes, $(jq -r '.end.sum_sent.retransmits // 0' <<<"$out") retransmits"
	[ "$mbps" -ge "$VL_MIN_MBPS" ] || fail "iperf3 $4: $mbps Mbit/s < $VL_MIN_MBPS"
}
HOP=()
# pop: the guest's TSO frames, checksummed by t10's kernel at csum_start
hop_iperf far 198.18.20.1 -R "guest -> t10 -> far (pop; sw csum in t10)"
vg_run g1 10 'ethtool -K eth0.10 tx off && ethtool -K eth0.20 tx off' >/dev/null ||
	fail "ethtool -K eth0.10/eth0.20 tx off in the guest"
# push: the TAP's frames, checksummed by the guest at csum_start
hop_iperf t10 198.18.21.2 "" "t10 -> guest -> t20 (push; sw csum in the guest)"
hop_iperf t10 198.18.21.2 -R "t20 -> guest -> t10 (push; sw csum in the guest)"
vg_run g1 10 'ethtool -K eth0.10 tx on && ethtool -K eth0.20 tx on' >/dev/null || true
# Forwarding through a TCG guest overruns its RX ring (drops.no_buffer,
# TCP's retransmits): congestion, not counted against vhostd.  The rest
# must stay 0.
st=$(ctl stats) || fail "vhostctl stats"
check_drops "after forwarding: " g1 t10 t20 t30



# ---- native=30: the guest's untagged eth0 joins VLAN 30 -----------------------

# The same port again with native=30 (port del + port add; QEMU
# reconnects, the guest keeps running): untagged frames are VLAN 30's
# both ways, VLAN 10 stays tagged.  t30 gets a second address, in the
# subnet of the guest's eth0.
g1_up() { [ "$(port_stat g1 .up)" = true ]; }
NATIVE=0
if ctl port del g1 >/dev/null &&
   ctl port add "vhost-user,path=$VG_DIR/g1.sock,name=g1,trunk=10:20,native=30" >/dev/null; then
	vg_wait_for 30 "g1 back with native=30" g1_up
	NATIVE=1
else
	fail "port del/add g1 with native=30"
fi
if [ $NATIVE = 1 ]; then
	l2=$(port_stat g1 '"\(.l2.vlan) \(.l2.trunk)"')
	[ "$l2" = "30 10:20:30" ] || fail "g1 with native=30: l2.vlan, l2.trunk '$l2', want '30 10:20:30'"
	tx t30 ip addr add 198.18.22.3/24 dev t30
	tx t30 ip neigh replace 198.18.22.1 lladdr "$GMAC" nud permanent dev t30
	vg_run g1 10 "ip addr add 198.18.22.1/24 dev eth0 && arp -i eth0 -s 198.18.22.3 ${TMAC[t30]}" >/dev/null ||
		fail "eth0's address in the guest"
	ping_ok g1 198.18.22.3
	ping_ok t30 198.18.22.1
	ping_ok t10 198.18.20.1

	# Counted: t30's broadcasts reach the guest's eth0 untagged (not
	# eth0.30); the guest's untagged ones and its eth0.30 ones (the
	# native VLAN's tag) reach t30 without a tag; t10 and t20 nothing.
	for t in "${TAPS[@]}"; do T0[$t]=$(trx "$t"); done
	read -r g0_eth0 g0_v10 g0_v20 g0_v30 < <(grx eth0 eth0.10 eth0.20 eth0.30)
	dv0=$(port_stat g1 .drops.vlan)
	ip netns exec "$NS-t30" timeout 30 tcpdump -i t30 -nn -e -c $((2 * n)) -w "$VG_DIR/t30.pcap" \
		'not ether src '"${TMAC[t30]}" >/dev/null 2>&1 &
	dump=$!
	VG_EXTRA_PIDS+=("$dump")
	sleep 1	# tcpdump's socket open
	ip netns exec "$NS-t30" ping -q -b -c "$n" -i 0.01 -W 1 198.18.22.255 >/dev/null 2>&1 &
	pids=($!)
	vg_run g1 60 "
		for d in eth0.30:198.18.24.255 eth0:198.18.22.255; do
			/usr/bin/ping -q -b -c $n -i 0.01 -W 1 -I \${d%:*} \${d#*:} > /dev/null 2>&1 &
		done
		wait" >/dev/null || fail "the guest's broadcasts (native)"
	wait "${pids[0]}" || true
	sleep 0.5
	for t in "${TAPS[@]}"; do T1[$t]=$(trx "$t"); done
	read -r g1_eth0 g1_v10 g1_v20 g1_v30 < <(grx eth0 eth0.10 eth0.20 eth0.30)
	dv1=$(port_stat g1 .drops.vlan)
	want "native: t30 rx (the guest's untagged and VLAN 30)" $((T1[t30] - T0[t30])) $((2 * n))
	want "native: t10 rx" $((T1[t10] - T0[t10])) 0
	want "native: t20 rx" $((T1[t20] - T0[t20])) 0
	want "native: guest eth0 rx (t30's)" $((g1_eth0 - g0_eth0)) "$n"
	want "native: guest eth0.30 rx (untagged: none)" $((g1_v30 - g0_v30)) 0
	want "native: guest eth0.10 rx" $((g1_v10 - g0_v10)) 0
	want "native: g1 drops.vlan" $((dv1 - dv0)) 0
	vg_wait_for 10 "tcpdump in t30" eval '! kill -0 '"$dump"' 2>/dev/null'
	wait "$dump" 2>/dev/null || true
	tagged=$(tcpdump -r "$VG_DIR/t30.pcap" -nn -e 2>/dev/null | grep -c 'vlan ' || true)
	total=$(tcpdump -r "$VG_DIR/t30.pcap" -nn -e 2>/dev/null | grep -c . || true)
	[ "$total" = $((2 * n)) ] && [ "$tagged" = 0 ] ||
		fail "native: t30 captured $total frames, $tagged of them tagged (want $((2 * n)), 0)"
	vg_log "native=30: t30 +$((T1[t30] - T0[t30])) ($tagged tagged), guest eth0 +$((g1_eth0 - g0_eth0)), eth0.30 +$((g1_v30 - g0_v30)), t10 +$((T1[t10] - T0[t10]))"
fi

# The end: the guest goes, then vhostd, asked to stop (SIGTERM): it must
# exit 0, and its log hold no sanitizer report, LeakSanitizer's at exit
# included.
vg_precheck
vg_stop g1
kill -TERM "$VHOSTD_PID"
vrc=0
for _ in $(seq 100); do kill -0 "$VHOSTD_PID" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$VHOSTD_PID" 2>/dev/null; then
	fail "vhostd still running 10 s after SIGTERM"
else
	wait "$VHOSTD_PID" || vrc=$?
	VHOSTD_PID=
	[ $vrc = 0 ] || fail "vhostd exited $vrc after SIGTERM"
fi
grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$VLOG" && fail "sanitizer report in $VLOG"

detail="guest 8021q eth0.10/eth0.20 on trunk=10:20: pings both VLANs, VLAN 30 isolated (floods of $n counted exactly), native=30 untagged both ways, iperf3 to/from guest ${MBPS[to]:-?}/${MBPS[from]:-?} Mbit/s (retransmits ${RETR[to]:-?}/${RETR[from]:-?}, frames ${FRAME[to]:-?}/${FRAME[from]:-?} B avg), checksums at csum_start verified through pop/push/push ${HOP[*]:-?} Mbit/s"
if [ -z "$ERR" ]; then
	echo "PASS guest-vlan  $detail"
	[ -n "${TEST_RESULTS:-}" ] && echo "PASS guest-vlan $detail" >>"$TEST_RESULTS"
else
	echo "FAIL guest-vlan  $ERR"
	[ -n "${TEST_RESULTS:-}" ] && echo "FAIL guest-vlan $ERR" >>"$TEST_RESULTS"
	exit 1
fi
exit 0
