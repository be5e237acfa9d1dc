#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/vlan.sh - bridge domains, isolated ports and a trunk,
# with the kernel's stack as six "guests"
#
#   vhostd in netns $NS with six TAP ports; each TAP's interface is moved
#   into a namespace of its own ($NS-e1 .. $NS-e5), where it is that
#   endpoint's only link (198.18.16.N/24, one subnet for all, IPv6 off so
#   nothing but the test's frames moves):
#
#     vl1  vlan=10                   e1  MAC ..:01
#     vl2  vlan=10                   e2  MAC ..:02
#     vl3  vlan=20,tagged=on         e3  MAC ..:03
#     vl4  vlan=20,isolated,tagged=on e4  MAC ..:01 (e1's: same MAC, two
#                                         domains)
#     vl5  vlan=20,isolated          e5  MAC ..:05
#     vl6  trunk=10:20               e6  MAC ..:06 (tags by hand: AF_PACKET)
#
#   vlan-reach    e1<->e2 and e3<->e4, e3<->e5 answer; e1->e3 (another
#                 domain) and e4->e5 (both isolated) do not
#   vlan-count    every frame each endpoint receives, counted on its
#                 interface: 100 broadcasts and 50 unknown-unicast floods
#                 from e1 reach e2 and the trunk e6 and nobody else (0
#                 frames at e3, e4, e5); 100 broadcasts from isolated e4
#                 reach e3 and e6 only
#   vlan-samemac  e1's MAC is in the MAC table twice, VLAN 10 on vl1 and
#                 VLAN 20 on vl4
#   vlan-isolated e5's MAC learned; a unicast from e4 to it (static
#                 neighbour) is dropped, drops.isolated on vl4
#   vlan-tagged   802.1Q-tagged broadcasts written by hand (this kernel
#                 has no VLAN devices): e1's 40 are refused by vl1
#                 (vlan= without tagged=on: drops.vlan) and reach nobody;
#                 e3's 40 (VID 30, priority 1) and 10 priority-tagged
#                 (VID 0) are carried inside domain 20 (tagged=on) to e4
#                 and e5, exactly 50 each
#   vlan-trunk    e6's side of the trunk: what it receives carries the
#                 tag of its VLAN (10 from e1, 20 from e3, read back
#                 through PACKET_AUXDATA, none untagged); what it sends
#                 tagged 10 reaches e1 and e2 only, tagged 20 e3, e4 and
#                 e5 only, exactly; VLAN 30 (not on the list), untagged
#                 and priority-tagged frames (no native=), tag 4095 and
#                 802.1ad frames reach nobody and are counted
#                 (drops.vlan); a tagged unicast to e2 reaches e2 alone
#   vlan-ctl      vhostctl domains (ports, MACs, frames), fdb add/del of
#                 a static entry and its errors, the domain series in
#                 the metrics
#   vlan-conf     vlan=0, vlan=4095, vlan=x, isolated=maybe, trunk=0,
#                 trunk=10-4095, trunk=5:x, native= without trunk=,
#                 trunk= with vlan=: exit 2, the message naming the key
#
# Usage: tests/integration/vlan.sh [NAME-GLOB...]
#   BUILD=dir   where vhostd and vhostctl are (default: build)
# Needs root (namespaces, TAP).  Prints one line per test and "N passed,
# M failed, K skipped"; exits 1 on any failure.

set -u

TMP=$(mktemp -d /tmp/vhostd-vlan.XXXXXX)
NS=vhvl$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"

EPS=(1 2 3 4 5 6)
declare -A SPEC=(
	[1]="vlan=10" [2]="vlan=10" [3]="vlan=20,tagged=on"
	[4]="vlan=20,isolated,tagged=on" [5]="vlan=20,isolated"
	[6]="trunk=10:20"
)
declare -A MAC=(
	[1]=02:16:00:00:00:01 [2]=02:16:00:00:00:02 [3]=02:16:00:00:00:03
	[4]=02:16:00:00:00:01 [5]=02:16:00:00:00:05 [6]=02:16:00:00:00:06
)
EP_MADE=()

vlan_cleanup() {
	local e
	for e in "${EP_MADE[@]}"; do
		ip netns del "$NS-e$e" 2>/dev/null
	done
}
IT_CLEANUP_HOOK=vlan_cleanup

# ex N CMD...: run CMD in endpoint N's namespace
ex() {
	local n=$1
	shift
	ip netns exec "$NS-e$n" "$@"
}

# rx N: frames endpoint N's interface has received
rx() {
	ex "$1" cat "/sys/class/net/vl$1/statistics/rx_packets"
}

# reach A B: endpoint A pings B (3 of 3 answered)
reach() {
	ex "$1" ping -q -c 3 -i 0.2 -W 1 "198.18.16.$2" >/dev/null 2>&1
}

# unreach A B: endpoint A pings B, nothing answers
unreach() {
	! ex "$1" ping -q -c 2 -i 0.2 -W 1 "198.18.16.$2" >/dev/null 2>&1
}

setup() {
	local e f args=()
	netns_setup || return 1
	for e in "${EPS[@]}"; do
		args+=(--port "tap,ifname=vl$e,name=vl$e,flood-rate=0,${SPEC[$e]}")
	done
	[ -n "$VHOSTD_USER" ] && { chown "$VHOSTD_USER" "$TMP"; args+=(--user "$VHOSTD_USER"); }
	rm -f "$TMP/ctl"
	ip netns exec "$NS" "$VHOSTD" --ctl "$TMP/ctl" "${args[@]}" \
		>"$TMP/vhostd.log" 2>&1 &
	VPID=$!
	wait_for "$TMP/ctl" || { ERR="vhostd did not start"; return 1; }
	for e in "${EPS[@]}"; do
		tap_up "vl$e" || { ERR="no vl$e"; return 1; }
		ip netns add "$NS-e$e" || { ERR="netns e$e"; return 1; }
		EP_MADE+=("$e")
		ex "$e" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		ex "$e" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
		ip -n "$NS" link set "vl$e" down
		ip -n "$NS" link set "vl$e" netns "$NS-e$e" || { ERR="move vl$e"; return 1; }
		ex "$e" sysctl -qw "net.ipv6.conf.vl$e.disable_ipv6=1"
		ex "$e" ip link set lo up
		ex "$e" ip link set "vl$e" address "${MAC[$e]}"
		ex "$e" ip addr add "198.18.16.$e/24" dev "vl$e"
		ex "$e" ip link set "vl$e" up || { ERR="vl$e up"; return 1; }
	done
	# Every neighbour is known for good (a permanent entry is never
	# probed): no frame moves but the test's own.
	for e in "${EPS[@]}"; do
		for f in "${EPS[@]}"; do
			[ "$e" = "$f" ] && continue
			ex "$e" ip neigh replace "198.18.16.$f" lladdr "${MAC[$f]}" \
				nud permanent dev "vl$e"
		done
	done
	# Nobody answers a broadcast ping (the default, made sure of): what
	# an endpoint receives is the test's frames alone.
	for e in "${EPS[@]}"; do
		ex "$e" sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=1
	done
	return 0
}

t_reach() {
	ERR=
	reach 1 2 || fail "e1 -> e2 (VLAN 10) unanswered"
	reach 2 1 || fail "e2 -> e1 unanswered"
	reach 3 4 || fail "e3 -> e4 (VLAN 20, e4 isolated) unanswered"
	reach 5 3 || fail "e5 -> e3 unanswered"
	unreach 1 3 || fail "e1 (VLAN 10) reached e3 (VLAN 20)"
	unreach 2 5 || fail "e2 (VLAN 10) reached e5 (VLAN 20)"
	unreach 4 5 || fail "isolated e4 reached isolated e5"
	result vlan-reach "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-VLAN 10 and 20 each among themselves, isolated pair apart}"
}

# counts: "r1 r2 r3 r4 r5 r6"
counts() {
	local e out=()
	for e in "${EPS[@]}"; do out+=("$(rx "$e")"); done
	echo "${out[@]}"
}

# during CMD...: run CMD; D[i] is then what endpoint i+1 received
#   meanwhile (its frames counted before and 0.3 s after)
D=()
during() {
	local b a i
	read -r -a b <<<"$(counts)"
	"$@" >/dev/null 2>&1
	sleep 0.3
	read -r -a a <<<"$(counts)"
	for i in "${!EPS[@]}"; do D[i]=$((a[i] - b[i])); done
}

# e1_floods: 100 broadcasts and 50 unknown-unicast frames from e1
e1_floods() {
	ex 1 ping -q -b -c 100 -i 0.01 -W 1 198.18.16.255 >/dev/null 2>&1
	ex 1 ip neigh replace 198.18.16.99 lladdr 02:16:00:00:00:99 nud permanent dev vl1
	ex 1 ping -q -c 50 -i 0.01 -W 1 198.18.16.99 >/dev/null 2>&1
}

t_count() {
	local d
	ERR=
	# Quiet first: ARP answered, caches warm, nothing in flight.
	sleep 0.5
	during e1_floods
	d=("${D[@]}")
	[ "${d[1]}" -ge 150 ] || fail "e2 got ${d[1]} of e1's 150 floods"
	[ "${d[5]}" -ge 150 ] || fail "trunk e6 got ${d[5]} of e1's 150 floods"
	[ "${d[2]}${d[3]}${d[4]}" = 000 ] ||
		fail "VLAN 20 got e1's frames: e3 ${d[2]}, e4 ${d[3]}, e5 ${d[4]}"
	local r1="from e1: e2 ${d[1]}, e6 ${d[5]}, e3 ${d[2]}, e4 ${d[3]}, e5 ${d[4]}"
	during ex 4 ping -q -b -c 100 -i 0.01 -W 1 198.18.16.255
	d=("${D[@]}")
	[ "${d[2]}" -ge 100 ] || fail "e3 got ${d[2]} of isolated e4's 100"
	[ "${d[5]}" -ge 100 ] || fail "trunk e6 got ${d[5]} of isolated e4's 100"
	[ "${d[0]}${d[1]}${d[4]}" = 000 ] ||
		fail "e4's broadcasts reached e1 ${d[0]}, e2 ${d[1]}, isolated e5 ${d[4]}"
	result vlan-count "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$r1; from e4: e3 ${d[2]}, e6 ${d[5]}, e1 ${d[0]}, e2 ${d[1]}, e5 ${d[4]}}"
}

t_samemac() {
	local n
	ERR=
	reach 1 2 && reach 4 3 || fail "pings to learn the MACs failed"
	vc fdb || fail "vhostctl fdb failed"
	n=$(jq -r --arg m "${MAC[1]}" '[.fdb[] | select(.mac == $m) |
		"\(.vlan):\(.port)"] | sort | join(" ")' "$TMP/vc.out")
	[ "$n" = "10:vl1 20:vl4" ] || fail "e1's MAC in the table: '$n', want '10:vl1 20:vl4'"
	result vlan-samemac "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-one MAC, two domains: $n}"
}

t_isolated() {
	local before
	ERR=
	reach 5 3 || fail "e5 -> e3 failed (to learn e5)"
	before=$(ctr vl4 '.drops.isolated')
	ex 4 ip neigh replace 198.18.16.5 lladdr "${MAC[5]}" nud permanent dev vl4
	unreach 4 5 || fail "isolated e4 reached isolated e5 by unicast"
	wait_ctr 3 vl4 '.drops.isolated' -ge $((before + 2))
	local now
	now=$(ctr vl4 '.drops.isolated')
	result vlan-isolated "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-unicast e4 -> e5 dropped: drops.isolated $now}"
}

# send_tagged N COUNT TCI: endpoint N sends COUNT broadcast frames with
#   an 802.1Q tag (TCI) from its MAC, through an AF_PACKET socket: this
#   host's kernel has no 802.1Q devices (no 8021q, no bridge VLAN
#   filtering), so the tags are written by hand
send_tagged() {
	ex "$1" /usr/bin/python3 - "vl$1" "$2" "$3" "${MAC[$1]}" <<'PY'
import socket, struct, sys
ifname, count, tci, mac = sys.argv[1], int(sys.argv[2]), int(sys.argv[3], 0), sys.argv[4]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
src = bytes.fromhex(mac.replace(':', ''))
frame = b'\xff' * 6 + src + struct.pack('!HHH', 0x8100, tci, 0x88b5) + b'vhostd-vlan-test'.ljust(46, b'.')
for _ in range(count):
    s.send(frame)
PY
}

# tagged_mix: e1's 40 tagged frames, e3's 40 tagged and 10 priority-tagged
tagged_mix() {
	local v
	v=$(ctr vl1 '.drops.vlan')
	send_tagged 1 40 30 || fail "could not send from e1"
	wait_ctr 3 vl1 '.drops.vlan' -ge $((v + 40))
	send_tagged 3 40 0x2030 || fail "could not send from e3"
	send_tagged 3 10 0 || fail "priority-tagged frames from e3"
}

t_tagged() {
	local d x
	ERR=
	sleep 0.3
	during tagged_mix
	d=("${D[@]}")
	[ "${d[1]}" = 0 ] || fail "e2 got ${d[1]} of e1's tagged frames (vl1 refuses tags)"
	[ "${d[3]}" = 50 ] && [ "${d[4]}" = 50 ] ||
		fail "e3's 50 tagged frames (tagged=on): e4 got ${d[3]}, e5 ${d[4]}"
	[ "${d[0]}" = 0 ] || fail "e1 got ${d[0]} of VLAN 20's tagged frames"
	x=$(ctr vl1 '.drops.vlan')
	result vlan-tagged "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-40 tags refused at vl1 (drops.vlan $x), e2 0; e3 tags to e4 ${d[3]}, e5 ${d[4]}}"
}

# send_frames N COUNT TPID TCI DST: endpoint N sends COUNT frames to DST
#   (a MAC) from its MAC, with one tag TPID/TCI (TPID 0: untagged)
send_frames() {
	ex "$1" /usr/bin/python3 - "vl$1" "$2" "$3" "$4" "$5" "${MAC[$1]}" <<'PY'
import socket, struct, sys
ifname, count, tpid, tci, dst, mac = sys.argv[1:7]
count, tpid, tci = int(count), int(tpid, 0), int(tci, 0)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((ifname, 0))
hdr = bytes.fromhex(dst.replace(':', '')) + bytes.fromhex(mac.replace(':', ''))
if tpid:
    hdr += struct.pack('!HH', tpid, tci)
frame = hdr + struct.pack('!H', 0x88b5) + b'vhostd-trunk-test'.ljust(46, b'.')
for _ in range(count):
    s.send(frame)
PY
}

# listen N SECONDS: what endpoint N receives meanwhile, by VLAN tag, as
#   "VID:COUNT ..." sorted ("u" for untagged), only our test ethertypes
#   (0x88b5) and ICMP-carrying IPv4 counted
listen() {
	ex "$1" /usr/bin/timeout $(($2 + 5)) /usr/bin/python3 - "vl$1" "$2" <<'PY'
import socket, struct, sys, time, select
ifname, secs = sys.argv[1], float(sys.argv[2])
SOL_PACKET, PACKET_AUXDATA, TP_STATUS_VLAN_VALID = 263, 8, 1 << 4
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((ifname, 0))
s.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)
end, n = time.time() + secs, {}
print("ready", flush=True)
while time.time() < end:
    if not select.select([s], [], [], 0.1)[0]:
        continue
    data, anc, _, addr = s.recvmsg(2048, socket.CMSG_SPACE(64))
    if addr[2] == socket.PACKET_OUTGOING:
        continue
    vid = 'u'
    for lvl, typ, d in anc:
        if lvl == SOL_PACKET and typ == PACKET_AUXDATA:
            st, _, _, _, _, tci, tpid = struct.unpack('IIIHHHH', d[:20].ljust(20, b'\0'))
            if st & TP_STATUS_VLAN_VALID:
                vid = str(tci & 0xfff)
    n[vid] = n.get(vid, 0) + 1
print(' '.join('%s:%d' % kv for kv in sorted(n.items())), flush=True)
PY
}

# trunk_rx: e1's 30 and e3's 20 broadcasts, as e6 hears them
trunk_rx() {
	local got
	{ listen 6 3 >"$TMP/listen.out" 2>&1; } &
	local lp=$!
	for _ in $(seq 50); do grep -q ready "$TMP/listen.out" 2>/dev/null && break; sleep 0.1; done
	send_frames 1 30 0 0 ff:ff:ff:ff:ff:ff || fail "e1 could not send"
	send_frames 3 20 0 0 ff:ff:ff:ff:ff:ff || fail "e3 could not send"
	wait "$lp"
	got=$(tail -n 1 "$TMP/listen.out")
	[ "$got" = "10:30 20:20" ] || fail "e6 heard '$got', want '10:30 20:20'"
	TRX=$got
}

# trunk_tx: e6's tagged, untagged and foreign frames; their drops
trunk_tx() {
	local v d
	v=$(ctr vl6 '.drops.vlan')
	during send_frames 6 40 0x8100 10 ff:ff:ff:ff:ff:ff
	d=("${D[@]}")
	[ "${d[*]:0:5}" = "40 40 0 0 0" ] ||
		fail "VLAN 10 from the trunk reached e1..e5: ${d[*]:0:5}, want 40 40 0 0 0"
	during send_frames 6 40 0x8100 0x6014 ff:ff:ff:ff:ff:ff
	d=("${D[@]}")
	[ "${d[*]:0:5}" = "0 0 40 40 40" ] ||
		fail "VLAN 20 (priority 3) from the trunk reached e1..e5: ${d[*]:0:5}, want 0 0 40 40 40"
	during bash -c "$(declare -f send_frames ex); MAC=([6]=${MAC[6]}); NS=$NS
		send_frames 6 40 0x8100 30 ff:ff:ff:ff:ff:ff
		send_frames 6 20 0 0 ff:ff:ff:ff:ff:ff
		send_frames 6 10 0x8100 0 ff:ff:ff:ff:ff:ff
		send_frames 6 10 0x8100 4095 ff:ff:ff:ff:ff:ff
		send_frames 6 10 0x88a8 10 ff:ff:ff:ff:ff:ff"
	d=("${D[@]}")
	[ "${d[*]:0:5}" = "0 0 0 0 0" ] ||
		fail "foreign frames from the trunk reached e1..e5: ${d[*]:0:5}"
	wait_ctr 3 vl6 '.drops.vlan' -ge $((v + 90))
	TDROP=$(( $(ctr vl6 '.drops.vlan') - v ))
	[ "$TDROP" = 90 ] || fail "drops.vlan on vl6 rose by $TDROP, want 90"
	# e2's MAC is known in VLAN 10 (its pings): a unicast reaches it alone.
	reach 2 1 || fail "e2 -> e1 (to learn e2)"
	during send_frames 6 25 0x8100 10 "${MAC[2]}"
	d=("${D[@]}")
	[ "${d[*]:0:5}" = "0 25 0 0 0" ] ||
		fail "unicast to e2 over the trunk reached e1..e5: ${d[*]:0:5}, want 0 25 0 0 0"
}

t_trunk() {
	ERR=
	TRX= TDROP=
	sleep 0.3
	trunk_rx
	trunk_tx
	result vlan-trunk "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-e6 heard $TRX (VID:frames); its VLAN 10 to e1+e2, VLAN 20 to e3+e4+e5, 40 each; 90 foreign dropped (drops.vlan); unicast to e2 alone}"
}

t_ctl() {
	local m=02:16:00:00:00:77 out
	ERR=
	vc domains || fail "vhostctl domains failed"
	out=$(jq -r '[.domains[] | "\(.vlan)=\(.ports | join("+"))"] | join(" ")' "$TMP/vc.out")
	[ "$out" = "10=vl1+vl2+vl6 20=vl3+vl4+vl5+vl6" ] || fail "domains: '$out'"
	jq -e '.domains[] | select(.vlan == 10) | .frames > 0 and .flooded > 0 and .macs >= 2' \
		"$TMP/vc.out" >/dev/null || fail "VLAN 10's counters: $(jq -c '.domains[0]' "$TMP/vc.out")"
	vc fdb add 10 "$m" vl2 || fail "fdb add: $(cat "$TMP/vc.err")"
	vc fdb
	jq -e --arg m "$m" '.fdb[] | select(.mac == $m and .vlan == 10 and .port == "vl2" and .static)' \
		"$TMP/vc.out" >/dev/null || fail "static entry not listed"
	# e1 sends to it: unicast to vl2 only, no flood.
	vc fdb add 20 "$m" vl2 && fail "fdb add into a VLAN vl2 is not in"
	grep -q "not in VLAN 20" "$TMP/vc.err" || fail "wrong error: $(cat "$TMP/vc.err")"
	vc fdb add 99 "$m" vl1 && fail "fdb add into VLAN 99 (no port)"
	vc fdb add 10 01:00:5e:00:00:01 vl1 && fail "fdb add of a group MAC"
	vc fdb add 10 "$m" && fail "fdb add without a port (usage)"
	vc fdb del 10 "$m" vl2 || fail "fdb del: $(cat "$TMP/vc.err")"
	vc fdb del 10 "$m" vl2 && fail "fdb del twice"
	vc fdb
	jq -e --arg m "$m" '[.fdb[] | select(.mac == $m)] | length == 0' "$TMP/vc.out" \
		>/dev/null || fail "static entry still listed after del"
	vc stats || fail "stats"
	out=$(jq -c '.ports[] | select(.name == "vl6") | .l2' "$TMP/vc.out")
	[ "$out" = '{"vlan":0,"isolated":false,"tagged":false,"trunk_vlans":2,"trunk":"10:20"}' ] ||
		fail "vl6's l2: $out"
	vc metrics || fail "metrics"
	grep -q '^vhostd_port_trunk_vlans{port="vl6",type="tap"} 2$' "$TMP/vc.out" ||
		fail "no vhostd_port_trunk_vlans 2 for vl6"
	grep -q '^vhostd_domain_frames_total{vlan="20"} [1-9]' "$TMP/vc.out" ||
		fail "no vhostd_domain_frames_total for VLAN 20"
	grep -q '^vhostd_domain_macs{vlan="10"} [1-9]' "$TMP/vc.out" ||
		fail "no vhostd_domain_macs for VLAN 10"
	result vlan-ctl "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-domains 10=vl1+vl2+vl6 20=vl3+vl4+vl5+vl6; trunk vl6 l2 and gauge; fdb add/del and its 5 errors; metrics}"
}

t_conf() {
	local v rc k
	ERR=
	for v in vlan=0 vlan=4095 vlan=x isolated=maybe tagged=2 trunk=0 \
		 trunk=10-4095 trunk=5:x native=5 trunk=10,vlan=10; do
		timeout 10 "$VHOSTD" --ctl "$TMP/ctl2" \
			--port "vhost-user,path=$TMP/c.sock,$v" >"$TMP/conf.out" 2>&1
		rc=$?
		[ $rc = 2 ] || fail "$v: exit $rc, want 2"
		k=${v##*,}
		grep -q "${k%%=*}" "$TMP/conf.out" || fail "$v: message does not name the key"
	done
	result vlan-conf "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-10 bad values refused, exit 2}"
}

if ! setup; then
	if [ "$(id -u)" != 0 ]; then
		skip vlan "$ERR"
		it_summary
		exit $?
	fi
	result vlan-setup 1 "$ERR"
	it_summary
	exit 1
fi
wanted vlan-reach && t_reach
wanted vlan-count && t_count
wanted vlan-samemac && t_samemac
wanted vlan-isolated && t_isolated
wanted vlan-tagged && t_tagged
wanted vlan-trunk && t_trunk
wanted vlan-ctl && t_ctl
stop_vhostd || result vlan-exit 1 "${ERR:-vhostd died or exited uncleanly}"
wanted vlan-conf && t_conf
it_summary
