#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/vlan.sh - bridge domains and isolated ports, with the
# kernel's stack as five "guests"
#
#   vhostd in netns $NS with five TAP ports; each TAP's interface is moved
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
#
#   vlan-reach    e1<->e2 and e3<->e4, e3<->e5 answer; e1->e3 (another
#                 domain) and e4->e5 (both isolated) do not
#   vlan-count    every frame each endpoint receives, counted on its
#                 interface: 100 broadcasts and 50 unknown-unicast floods
#                 from e1 reach e2 and nobody else (0 frames at e3, e4,
#                 e5); 100 broadcasts from isolated e4 reach e3 only
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
#   vlan-ctl      vhostctl domains (ports, MACs, frames), fdb add/del of
#                 a static entry and its errors, the domain series in
#                 the metrics
#   vlan-conf     vlan=0, vlan=4095, vlan=x, isolated=maybe: exit 2
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

EPS=(1 2 3 4 5)
declare -A SPEC=(
	[1]="vlan=10" [2]="vlan=10" [3]="vlan=20,tagged=on"
	[4]="vlan=20,isolated,tagged=on" [5]="vlan=20,isolated"
)
declare -A MAC=(
	[1]=02:16:00:00:00:01 [2]=02:16:00:00:00:02 [3]=02:16:00:00:00:03
	[4]=02:16:00:00:00:01 [5]=02:16:00:00:00:05
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

# counts: "r1 r2 r3 r4 r5"
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
	for i in 0 1 2 3 4; do D[i]=$((a[i] - b[i])); done
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
	[ "${d[2]}${d[3]}${d[4]}" = 000 ] ||
		fail "VLAN 20 got e1's frames: e3 ${d[2]}, e4 ${d[3]}, e5 ${d[4]}"
	local r1="from e1: e2 ${d[1]}, e3 ${d[2]}, e4 ${d[3]}, e5 ${d[4]}"
	during ex 4 ping -q -b -c 100 -i 0.01 -W 1 198.18.16.255
	d=("${D[@]}")
	[ "${d[2]}" -ge 100 ] || fail "e3 got ${d[2]} of isolated e4's 100"
	[ "${d[0]}${d[1]}${d[4]}" = 000 ] ||
		fail "e4's broadcasts reached e1 ${d[0]}, e2 ${d[1]}, isolated e5 ${d[4]}"
	result vlan-count "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$r1; from e4: e3 ${d[2]}, e1 ${d[0]}, e2 ${d[1]}, e5 ${d[4]}}"
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

t_ctl() {
	local m=02:16:00:00:00:77 out
	ERR=
	vc domains || fail "vhostctl domains failed"
	out=$(jq -r '[.domains[] | "\(.vlan)=\(.ports | join("+"))"] | join(" ")' "$TMP/vc.out")
	[ "$out" = "10=vl1+vl2 20=vl3+vl4+vl5" ] || fail "domains: '$out'"
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
	vc metrics || fail "metrics"
	grep -q '^vhostd_domain_frames_total{vlan="20"} [1-9]' "$TMP/vc.out" ||
		fail "no vhostd_domain_frames_total for VLAN 20"
	grep -q '^vhostd_domain_macs{vlan="10"} [1-9]' "$TMP/vc.out" ||
		fail "no vhostd_domain_macs for VLAN 10"
	result vlan-ctl "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-domains $out; fdb add/del and its 5 errors; metrics}"
}

t_conf() {
	local v rc
	ERR=
	for v in vlan=0 vlan=4095 vlan=x isolated=maybe tagged=2; do
		timeout 10 "$VHOSTD" --ctl "$TMP/ctl2" \
			--port "vhost-user,path=$TMP/c.sock,$v" >"$TMP/conf.out" 2>&1
		rc=$?
		[ $rc = 2 ] || fail "$v: exit $rc, want 2"
		grep -q "${v%%=*}" "$TMP/conf.out" || fail "$v: message does not name the key"
	done
	result vlan-conf "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-5 bad values refused, exit 2}"
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
wanted vlan-ctl && t_ctl
stop_vhostd || result vlan-exit 1 "${ERR:-vhostd died or exited uncleanly}"
wanted vlan-conf && t_conf
it_summary
