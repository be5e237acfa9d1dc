#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/vxlan.sh - the vxlan port type against Linux's own
# vxlan devices, in namespaces joined by veth pairs (198.18.0.0/15
# underlay and overlay, 2001:2::/48 for IPv6)
#
#   host A (ns $NA): vhostd, a TAP port vt0 (198.19.1.1, A's kernel as
#     the "guest") and a vxlan port vx0 (local 198.18.0.1, vni 42), over
#     veth ua (198.18.0.1) and ua2 (198.18.1.1)
#   host B (ns $NB): ub 198.18.0.2, a kernel vxlan vx0 (vni 42) in a
#     bridge with a veth to ns $NC, whose cc is 198.19.1.2
#   host D (ns $ND): ud 198.18.1.3, a kernel vxlan vx0 (vni 42) with an
#     address of its own
#
#   vxlan-kernel    ping, iperf3 both ways, 4 MiB each way byte for byte
#                   (sha256), the underlay captured with tcpdump: VXLAN
#                   to port 4789 with VNI 42 from ephemeral source ports,
#                   one encapsulation; the kernel's segments joined again
#                   (gro_joined); a datagram over the underlay's MTU
#                   counted as mtu_underlay, never fragmented
#   vxlan-rco       remote checksum offload against Linux's (udpcsum
#                   remcsumtx remcsumrx) with B's veth checksumming
#                   left to the device: ping, iperf3 both ways, 4 MiB each
#                   way intact; both directions' datagrams carry the RCO
#                   flag (tcpdump), vhostd takes them (remcsum_rx) and
#                   joins the kernel's segments unverified (gro_joined)
#   vxlan-move      C's MAC moves to host D: the first frame from D moves
#                   vhostd's entry (mac_moves), and A reaches it there
#   vxlan-static    vhostctl vxlan add/del: a static entry sends to its
#                   VTEP without flooding, a frame claiming its MAC from
#                   another VTEP is dropped as spoofed, bad keys are one
#                   line and exit status 1
#   vxlan-hostile   short, wrong-flag, wrong-VNI, group-source and
#                   stranger's datagrams: each counted by reason, vhostd
#                   serving on
#   vxlan-tenants   two VNIs, two bridge domains: vx42 (vni 42, vlan=10)
#                   to B and vx43 (vni 43, vlan=20) to D, whose kernel
#                   vxlan is VNI 43 now; a TAP in each VLAN, moved to a
#                   namespace of its own, all four stations on one
#                   subnet: each tenant reaches its own VNI's station
#                   only, and the underlay captures carry VNI 42 to B
#                   and VNI 43 to D, nothing else
#   vxlan-kernel6   the same link over an IPv6 underlay: ping and 4 MiB
#   vxlan-xdp       vx0 over an afxdp port on ua (via=, generic XDP), A's
#                   kernel without an address there: B's kernel resolves
#                   198.18.0.1 by ARP and pings it (vhostd answers), vhostd
#                   resolves B; ping, iperf3 both ways, 4 MiB each way
#                   intact; the capture: VXLAN vni 42 from 198.18.0.1's
#                   ephemeral ports, DF set; B's segments joined
#                   (gro_joined); a frame over ua's MTU counted
#                   (mtu_underlay); "port del" of the carrier refused
#   vxlan-xdp6      the same over IPv6: ND both ways, ping6 of the VTEP,
#                   ping and 4 MiB each way intact
#   vxlan-tap       vx0 over a TAP port (via=): vhostd a station of its
#                   own (198.18.3.1) behind A's kernel, which routes for
#                   it (ip_forward, proxy ARP on the TAP's side): A's
#                   kernel resolves and pings it, B's reaches it through
#                   a route; ping, iperf3 both ways, 4 MiB each way
#                   intact; the capture: VXLAN vni 42 from 198.18.3.1's
#                   ephemeral ports; on Linux 6.17+ A's TSO frames cross
#                   whole as UDP tunnel GSO frames (tunnel_gso), before
#                   it none is tried; B's segments joined (gro_joined);
#                   nothing of the tenants' on the carrier bare; "port
#                   del" of the carrier refused
#   vxlan-tap6      the same over IPv6 (2001:2:3::1, proxy NDP): the
#                   kernels ping it, ping and 4 MiB each way intact
#   vxlan-xdp-reload the ports from a --config file: a reload that drops
#                   the carrier (alone, or with its tunnel) is refused,
#                   nothing changed, the tunnel still carries a ping;
#                   "port del" of the tunnel, then of its carrier
#   vxlan-spec      bad specs refused at start-up with one line; ctl
#                   "port add vxlan" refused at run time
#
# The kernel's vxlan hands its inner frames to a veth with the checksum
# still to be done (CHECKSUM_PARTIAL), which a veth keeps across
# namespaces and a UDP socket cannot see: B's and D's underlay veths have
# TX checksumming off, as a real NIC finishes it (doc/ports.md).
#
# Usage: tests/integration/vxlan.sh [NAME-GLOB...]  (BUILD=dir, default
# build; VHOSTD_USER as lib.sh).  Root.
set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-vxlan.XXXXXX)
NS=vxl-$$
FILTER=("$@")
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

NA=vxa-$$
NB=vxb-$$
NC=vxc-$$
ND=vxd-$$
MADE=()
vx_cleanup() {
	local n
	for n in "${MADE[@]}"; do
		ip netns del "$n" 2>/dev/null
	done
}
IT_CLEANUP_HOOK=vx_cleanup

VX=(vxlan fdb)
ALL=(vxlan-kernel vxlan-rco vxlan-move vxlan-static vxlan-tenants vxlan-hostile
     vxlan-kernel6 vxlan-xdp vxlan-xdp6 vxlan-tap vxlan-tap6 vxlan-xdp-reload
     vxlan-spec)
for t in socat iperf3 tcpdump python3 ethtool; do
	if ! command -v $t >/dev/null; then
		for n in "${ALL[@]}"; do wanted "$n" && skip "$n" "no $t"; done
		it_summary
		exit
	fi
done
if [ "$(id -u)" != 0 ]; then
	for n in "${ALL[@]}"; do wanted "$n" && skip "$n" "needs root"; done
	it_summary
	exit
fi

# ns NAME: a namespace, lo up, IPv6 without duplicate address detection
ns() {
	ip netns add "$1" || return 1
	MADE+=("$1")
	ip -n "$1" link set lo up
	ip netns exec "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0
}

# topo 4|6 [rco]: the namespaces and links above (IPv6: A-B only,
#   2001:2::/64); rco: B's kernel vxlan speaks remote checksum offload
#   and B's veth keeps its checksumming (RCO carries what it leaves out)
topo() {
	local fam=$1 rco=()	# B's vxlan speaks RCO: its keys
	ns "$NA" && ns "$NB" && ns "$NC" || return 1
	ip link add ua netns "$NA" type veth peer name ub netns "$NB" || return 1
	ip -n "$NA" link set ua mtu 1600 up
	ip -n "$NB" link set ub mtu 1600 up
	if [ "${2:-}" = rco ]; then
		rco=(udpcsum remcsumtx remcsumrx)
	else
		ip netns exec "$NB" ethtool -K ub tx off >/dev/null || return 1
	fi
	if [ "$fam" = 4 ]; then
		ip -n "$NA" addr add 198.18.0.1/24 dev ua
		ip -n "$NB" addr add 198.18.0.2/24 dev ub
		ip -n "$NB" link add vx0 type vxlan id 42 local 198.18.0.2 \
			remote 198.18.0.1 dstport 4789 "${rco[@]}" || return 1
	else
		ip -n "$NA" addr add 2001:2::1/64 dev ua nodad
		ip -n "$NB" addr add 2001:2::2/64 dev ub nodad
		ip -n "$NB" link add vx0 type vxlan id 42 local 2001:2::2 \
			remote 2001:2::1 dstport 4789 || return 1
	fi
	ip -n "$NB" link set vx0 mtu 1500
	ip -n "$NB" link add br0 type bridge || return 1
	ip -n "$NB" link set vx0 master br0
	ip link add cb netns "$NB" type veth peer name cc netns "$NC" || return 1
	ip -n "$NB" link set cb master br0
	ip -n "$NB" link set cb up
	ip -n "$NB" link set vx0 up
	ip -n "$NB" link set br0 up
	ip -n "$NC" addr add 198.19.1.2/24 dev cc
	ip -n "$NC" link set cc up
	[ "$fam" = 6 ] && return 0

	ns "$ND" || return 1
	ip link add ua2 netns "$NA" type veth peer name ud netns "$ND" || return 1
	ip -n "$NA" link set ua2 mtu 1600 up
	ip -n "$ND" link set ud mtu 1600 up
	ip netns exec "$ND" ethtool -K ud tx off >/dev/null || return 1
	ip -n "$NA" addr add 198.18.1.1/24 dev ua2
	ip -n "$ND" addr add 198.18.1.3/24 dev ud
	ip -n "$ND" route add 198.18.0.0/24 via 198.18.1.1
	ip -n "$ND" link add vx0 type vxlan id 42 local 198.18.1.3 \
		remote 198.18.0.1 dstport 4789 || return 1
	ip -n "$ND" link set vx0 mtu 1500
}

# untopo: every namespace gone (the next test builds its own)
untopo() {
	vx_cleanup
	MADE=()
}

# vx_start SPEC-KEYS...: vhostd in $NA with vt0 (198.19.1.1) and vx0
#   (and, before vx0, the ports in the array PRE)
vx_start() {
	start_vhostd ip netns exec "$NA" -- 0 \
		--port "tap,ifname=vt0,name=tap0" "${PRE[@]}" \
		--port "vxlan,name=vx0,vni=42$(printf ',%s' "$@")" || return 1
	for _i in $(seq 100); do
		ip -n "$NA" link show vt0 >/dev/null 2>&1 && break
		sleep 0.05
	done
	# No IPv6 on the overlay: its multicast would blur the flood counts.
	ip netns exec "$NA" sysctl -qw net.ipv6.conf.vt0.disable_ipv6=1
	ip -n "$NA" addr add 198.19.1.1/24 dev vt0 &&
	ip -n "$NA" link set vt0 up
}

# fdb: "vxlan fdb vx0" as JSON
fdb() {
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" vxlan fdb vx0
}

# xfer FROM-NS TO-NS TO-IP: 4 MiB of random bytes over TCP, byte for byte
xfer() {
	local port=$((7000 + RANDOM % 1000)) want got
	head -c 4M /dev/urandom >"$TMP/blob"
	want=$(sha256sum <"$TMP/blob" | cut -d' ' -f1)
	ip netns exec "$2" timeout 30 socat -u TCP-LISTEN:$port,reuseaddr - \
		>"$TMP/blob.in" &
	local l=$!
	BGPIDS+=("$l")
	sleep 0.3
	ip netns exec "$1" timeout 30 socat -u FILE:"$TMP/blob" \
		TCP:"$3":$port,connect-timeout=5 ||
		{ ERR="${ERR:+$ERR; }socat $1 -> $3 failed"; wait $l; return 1; }
	wait $l
	got=$(sha256sum <"$TMP/blob.in" | cut -d' ' -f1)
	[ "$got" = "$want" ] ||
		{ ERR="${ERR:+$ERR; }4 MiB $1 -> $3: sha256 differs ($(stat -c %s "$TMP/blob.in") bytes)"; return 1; }
}

# iperf FROM-NS TO-NS TO-IP: a 2 s iperf3 stream; prints Mbit/s
iperf() {
	local port=$((5300 + RANDOM % 500)) out
	ip netns exec "$2" timeout 20 iperf3 -s -1 -p $port >/dev/null 2>&1 &
	BGPIDS+=("$!")
	sleep 0.3
	out=$(ip netns exec "$1" timeout 20 iperf3 -c "$3" -p $port -t 2 -J 2>/dev/null) ||
		{ ERR="${ERR:+$ERR; }iperf3 $1 -> $3 failed"; return 1; }
	jq -r '.end.sum_received.bits_per_second / 1e6 | floor' <<<"$out"
}

# captured_iperf N: iperf3 A -> C and C -> A (Mbit/s in $up and $down)
#   while the underlay is captured at ub (N datagrams, $TMP/ul.pcap)
captured_iperf() {
	local td
	ip netns exec "$NB" timeout 20 tcpdump -i ub -nn -c "$1" \
		-w "$TMP/ul.pcap" udp >/dev/null 2>&1 &
	td=$!
	BGPIDS+=("$td")
	sleep 0.5
	# (iperf runs in a subshell: its ERR is lost, its number not)
	up=$(iperf "$NA" "$NC" 198.19.1.2)
	[[ $up =~ ^[0-9]+$ ]] || ERR="${ERR:+$ERR; }iperf3 A -> C failed"
	down=$(iperf "$NC" "$NA" 198.19.1.1)
	[[ $down =~ ^[0-9]+$ ]] || ERR="${ERR:+$ERR; }iperf3 C -> A failed"
	wait "$td"
}

# exchange N: A and C talk: captured_iperf N, then 4 MiB each way byte
#   for byte
exchange() {
	captured_iperf "$1"
	xfer "$NA" "$NC" 198.19.1.2
	xfer "$NC" "$NA" 198.19.1.1
}

# ping_ok NS IP: three pings answered
ping_ok() {
	ip netns exec "$1" ping -c 3 -i 0.2 -W 2 "$2" >/dev/null 2>&1 ||
		{ ERR="${ERR:+$ERR; }ping $2 from $1 failed"; return 1; }
}

# finish NAME DETAIL: vhostd's clean exit, the result, the namespaces gone
finish() {
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result "$1" "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-$2}"
	ERR=
	untopo
}

# ---- vxlan-kernel ---------------------------------------------------------
if wanted vxlan-kernel; then
	ERR=
	if topo 4 && vx_start local=198.18.0.1 remote=198.18.0.2; then
		ping_ok "$NA" 198.19.1.2
		exchange 40
		# The capture: every datagram VXLAN to 4789, VNI 42, from an
		# ephemeral port (ours or the kernel's), one encapsulation.
		dump=$(tcpdump -r "$TMP/ul.pcap" -nn -v 2>/dev/null)
		nvx=$(grep -c 'VXLAN, flags \[I\] (0x08), vni 42' <<<"$dump")
		nall=$(tcpdump -r "$TMP/ul.pcap" -nn 2>/dev/null | grep -c '^[0-9]')
		[ "$nvx" -ge 20 ] && [ "$nvx" = "$nall" ] ||
			ERR="${ERR:+$ERR; }capture: $nvx VXLAN vni 42 of $nall UDP datagrams"
		from_a=$(tcpdump -r "$TMP/ul.pcap" -nn 2>/dev/null |
			 grep -c '198\.18\.0\.1\.[0-9]* > 198\.18\.0\.2\.4789:')
		[ "$from_a" -ge 1 ] ||
			ERR="${ERR:+$ERR; }capture: nothing from vhostd to 198.18.0.2:4789"
		tcpdump -r "$TMP/ul.pcap" -nn 2>/dev/null |
			grep -q '198\.18\.0\.1\.4789 > ' &&
			ERR="${ERR:+$ERR; }capture: vhostd sent from port 4789 (no entropy)"
		# 4789 inside 4789: the inner frame is never VXLAN again.
		grep -A3 'vni 42' <<<"$dump" | grep -q 'vni 42.*vni 42' &&
			ERR="${ERR:+$ERR; }capture: double encapsulation"
		# Over the underlay's MTU: refused, counted, not fragmented.
		ip -n "$NA" link set ua mtu 1500
		ip netns exec "$NA" ping -c 1 -W 1 -M do -s 1460 198.19.1.2 \
			>/dev/null 2>&1 &&
			ERR="${ERR:+$ERR; }a 1538-byte datagram crossed a 1500 MTU"
		check_ctr vx0 .mtu_underlay -ge 1
		# TSO frames over it: their UDP GSO sends are refused as an
		# overrun too (EMSGSIZE on this kernel), counted, and UDP GSO
		# stays on (it is switched off only when the kernel cannot do
		# it at all).
		mu=$(ctr vx0 .mtu_underlay)
		ip netns exec "$NC" timeout 3 socat -u TCP-LISTEN:7999,reuseaddr \
			- >/dev/null 2>&1 &
		BGPIDS+=("$!")
		sleep 0.3
		head -c 200000 /dev/zero | ip netns exec "$NA" timeout 2 socat -u \
			- TCP:198.19.1.2:7999,connect-timeout=1 >/dev/null 2>&1
		wait_ctr 5 vx0 .mtu_underlay -gt "$mu"
		grep -q 'refuses UDP GSO' "$TMP/vhostd.log" &&
			ERR="${ERR:+$ERR; }an MTU overrun turned UDP GSO off"
		ip -n "$NA" link set ua mtu 1600
		ping_ok "$NA" 198.19.1.2
		for c in bad_header bad_vni foreign; do
			check_ctr vx0 ".$c" -eq 0
		done
		check_ctr vx0 .rx_packets -gt 1000
		check_ctr vx0 .tx_packets -gt 1000
		# C's stream arrived as segments and left as TSO frames.
		check_ctr vx0 .gro_joined -gt 1000
		check_ctr vx0 .gro_frames -gt 100
		detail="ping; iperf3 A->C ${up:-?} Mbit/s, C->A ${down:-?} Mbit/s; 4 MiB each way intact; $nvx/$nall captured datagrams VXLAN vni 42; MTU overrun counted"
	else
		ERR="setup failed: $(tail -n 2 "$TMP/vhostd.log" 2>/dev/null)"
	fi
	finish vxlan-kernel "$detail"
fi

# ---- vxlan-rco ------------------------------------------------------------
if wanted vxlan-rco; then
	ERR=
	if topo 4 rco &&
	   vx_start local=198.18.0.1 remote=198.18.0.2 remcsum=on; then
		ping_ok "$NA" 198.19.1.2
		exchange 400
		# RCO datagrams both ways: flags 0x08 | 0x20 (tcpdump prints
		# the flags byte; the R bit is in the next one), so read the
		# VXLAN header's first two bytes off the raw capture.
		seen=$(python3 - "$TMP/ul.pcap" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off, n = 24, {}
while off + 16 <= len(d):
    incl = struct.unpack('<I', d[off + 8:off + 12])[0]
    p = d[off + 16:off + 16 + incl]
    off += 16 + incl
    if len(p) < 14 + 20 + 8 + 8 or p[12:14] != b'\x08\x00':
        continue
    ihl = (p[14] & 15) * 4
    udp = 14 + ihl
    if struct.unpack('!H', p[udp + 2:udp + 4])[0] != 4789:
        continue
    src = '.'.join(str(b) for b in p[26:30])
    ucs = struct.unpack('!H', p[udp + 6:udp + 8])[0]
    vx = p[udp + 8:udp + 16]
    k = (src, vx[0] == 8 and vx[1] == 0x20, ucs != 0)
    n[k] = n.get(k, 0) + 1
print(' '.join('%s,%s,%s=%d' % (a, int(b), int(c), v)
               for (a, b, c), v in sorted(n.items())))
PY
)
		for h in 198.18.0.1 198.18.0.2; do
			grep -q "$h,1,1=" <<<"$seen" ||
				ERR="${ERR:+$ERR; }capture: no RCO datagram with a UDP checksum from $h ($seen)"
		done
		check_ctr vx0 .remcsum_rx -gt 100
		check_ctr vx0 .gro_joined -gt 100
		for c in bad_header bad_vni foreign; do
			check_ctr vx0 ".$c" -eq 0
		done
		detail="ping; iperf3 A->C ${up:-?} Mbit/s, C->A ${down:-?} Mbit/s; 4 MiB each way intact; RCO both ways ($seen)"
	else
		ERR="setup failed: $(tail -n 2 "$TMP/vhostd.log" 2>/dev/null)"
	fi
	finish vxlan-rco "$detail"
fi

# ---- vxlan-move -----------------------------------------------------------
if wanted vxlan-move; then
	ERR=
	if topo 4 &&
	   vx_start local=198.18.0.1 remote=198.18.0.2 remote=198.18.1.3; then
		ping_ok "$NA" 198.19.1.2
		mac=$(ip -n "$NC" -j link show cc | jq -r '.[0].address')
		at=$(fdb | jq -r ".macs[] | select(.mac == \"$mac\") | .vtep")
		[ "$at" = 198.18.0.2 ] ||
			ERR="${ERR:+$ERR; }$mac learned at '$at', want 198.18.0.2"
		# The station moves: gone from C, up behind D's VTEP.
		ip -n "$NC" link set cc down
		ip -n "$ND" link set vx0 address "$mac"
		ip -n "$ND" addr add 198.19.1.2/24 dev vx0
		ip -n "$ND" link set vx0 up
		# Its first frame (an ARP request, flooded) moves the entry.
		ip netns exec "$ND" ping -c 1 -W 2 198.19.1.1 >/dev/null 2>&1 ||
			ERR="${ERR:+$ERR; }D cannot reach A"
		at=$(fdb | jq -r ".macs[] | select(.mac == \"$mac\") | .vtep")
		[ "$at" = 198.18.1.3 ] ||
			ERR="${ERR:+$ERR; }$mac at '$at' after the move, want 198.18.1.3"
		check_ctr vx0 .mac_moves -ge 1
		# A's neighbour entry is unchanged: its frames follow the MAC.
		ping_ok "$NA" 198.19.1.2
	else
		ERR="setup failed"
	fi
	finish vxlan-move "C's MAC moved to VTEP 198.18.1.3 on its first frame; A reached it there"
fi

# ---- vxlan-static ---------------------------------------------------------
if wanted vxlan-static; then
	ERR=
	SMAC=02:00:00:00:00:77
	if topo 4 &&
	   vx_start local=198.18.0.1 remote=198.18.0.2; then
		ping_ok "$NA" 198.19.1.2
		out=$("$VHOSTCTL" --json --ctl "$TMP/ctl" vxlan add "vx0,mac=$SMAC,vtep=198.18.1.3" 2>&1) ||
			ERR="${ERR:+$ERR; }vxlan add: $out"
		j=$(fdb)
		[ "$(jq -r ".macs[] | select(.mac == \"$SMAC\") | [.vtep, .static] | @tsv" <<<"$j")" = "198.18.1.3	true" ] ||
			ERR="${ERR:+$ERR; }static entry not shown: $j"
		[ "$(jq -r '.vteps[] | select(.vtep == "198.18.1.3") | .flood' <<<"$j")" = false ] ||
			ERR="${ERR:+$ERR; }static VTEP missing or flooded"
		# To the static MAC: one datagram to D, no flood copy.
		fl0=$(ctr vx0 .flood_copies)
		ip -n "$NA" neigh add 198.19.1.77 lladdr "$SMAC" dev vt0
		ip netns exec "$NA" ping -c 2 -i 0.2 -W 1 198.19.1.77 >/dev/null 2>&1
		tx=$(fdb | jq -r '.vteps[] | select(.vtep == "198.18.1.3") | .tx_packets')
		[ "${tx:-0}" -ge 2 ] || ERR="${ERR:+$ERR; }D's VTEP sent ${tx:-?} datagrams, want 2"
		[ "$(ctr vx0 .flood_copies)" = "$fl0" ] ||
			ERR="${ERR:+$ERR; }frames to a static MAC were flooded"
		# The static MAC claimed from B: spoofed.
		sp0=$(ctr vx0 .drops.spoofed)
		ip netns exec "$NB" python3 - "$SMAC" <<'EOF'
import socket, struct, sys
mac = bytes.fromhex(sys.argv[1].replace(':', ''))
frame = b'\xff' * 6 + mac + b'\x08\x06' + bytes(46)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('198.18.0.2', 0))
s.sendto(struct.pack('!II', 0x08000000, 42 << 8) + frame, ('198.18.0.1', 4789))
EOF
		wait_ctr 5 vx0 .drops.spoofed -ge $((sp0 + 1))
		# Bad keys and names: one line, exit status 1.
		for bad in "vx0,mac=zz" "vx0,mac=$SMAC,vtep=nowhere" "vx0,vtep=198.18.1.3" \
			   "nosuch,mac=$SMAC,vtep=198.18.1.3" "tap0,mac=$SMAC,vtep=198.18.1.3" \
			   "vx0,mac=$SMAC,vtep=2001:2::9" "vx0,mac=01:00:5e:00:00:01,vtep=198.18.1.3"; do
			out=$("$VHOSTCTL" --json --ctl "$TMP/ctl" vxlan add "$bad" 2>&1)
			rc=$?
			[ $rc = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] ||
				ERR="${ERR:+$ERR; }vxlan add $bad: rc $rc, '$out'"
		done
		out=$("$VHOSTCTL" --json --ctl "$TMP/ctl" vxlan del "vx0,mac=$SMAC" 2>&1) ||
			ERR="${ERR:+$ERR; }vxlan del: $out"
		j=$(fdb)
		[ -z "$(jq -r ".macs[] | select(.mac == \"$SMAC\")" <<<"$j")" ] ||
			ERR="${ERR:+$ERR; }entry still there after del"
		[ -z "$(jq -r '.vteps[] | select(.vtep == "198.18.1.3")' <<<"$j")" ] ||
			ERR="${ERR:+$ERR; }static-only VTEP kept after its last entry went"
		"$VHOSTCTL" --json --ctl "$TMP/ctl" vxlan del "vx0,mac=$SMAC" >/dev/null 2>&1 &&
			ERR="${ERR:+$ERR; }second del succeeded"
		ping_ok "$NA" 198.19.1.2
	else
		ERR="setup failed"
	fi
	finish vxlan-static "static entry to its VTEP only, spoof from another VTEP dropped, 7 bad commands refused, del frees the VTEP"
fi

# ---- vxlan-tenants --------------------------------------------------------
# tenant_tap NAME NS IP: move vhostd's TAP NAME into a new namespace NS
tenant_tap() {
	ns "$2" || return 1
	for _i in $(seq 100); do
		ip -n "$NA" link show "$1" >/dev/null 2>&1 && break
		sleep 0.05
	done
	ip -n "$NA" link set "$1" netns "$2" || return 1
	ip netns exec "$2" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip -n "$2" addr add "$3/24" dev "$1" &&
	ip -n "$2" link set "$1" up
}

if wanted vxlan-tenants; then
	ERR=
	NT1=vxt1-$$
	NT2=vxt2-$$
	if topo 4 &&
	   ip -n "$ND" link del vx0 &&
	   ip -n "$ND" link add vx0 type vxlan id 43 local 198.18.1.3 \
		remote 198.18.1.1 dstport 4789 &&
	   ip -n "$ND" link set vx0 mtu 1500 &&
	   ip -n "$ND" addr add 198.19.1.3/24 dev vx0 &&
	   ip -n "$ND" link set vx0 up &&
	   start_vhostd ip netns exec "$NA" -- 0 \
		--port "tap,ifname=vt10,name=t10,vlan=10" \
		--port "tap,ifname=vt20,name=t20,vlan=20" \
		--port "vxlan,name=vx42,vni=42,vlan=10,local=198.18.0.1,remote=198.18.0.2" \
		--port "vxlan,name=vx43,vni=43,vlan=20,local=198.18.1.1,remote=198.18.1.3" &&
	   tenant_tap vt10 "$NT1" 198.19.1.1 && tenant_tap vt20 "$NT2" 198.19.1.4; then
		ip netns exec "$NB" timeout 20 tcpdump -i ub -nn -w "$TMP/ub.pcap" \
			udp >/dev/null 2>&1 &
		tb=$!
		ip netns exec "$ND" timeout 20 tcpdump -i ud -nn -w "$TMP/ud.pcap" \
			udp >/dev/null 2>&1 &
		tdd=$!
		BGPIDS+=("$tb" "$tdd")
		sleep 0.5
		ping_ok "$NT1" 198.19.1.2
		ping_ok "$NT2" 198.19.1.3
		ip netns exec "$NT1" ping -c 2 -i 0.2 -W 1 198.19.1.3 >/dev/null 2>&1 &&
			ERR="${ERR:+$ERR; }VLAN 10 reached VNI 43's station"
		ip netns exec "$NT2" ping -c 2 -i 0.2 -W 1 198.19.1.2 >/dev/null 2>&1 &&
			ERR="${ERR:+$ERR; }VLAN 20 reached VNI 42's station"
		ip netns exec "$NC" ping -c 2 -i 0.2 -W 1 198.19.1.4 >/dev/null 2>&1 &&
			ERR="${ERR:+$ERR; }VNI 42's station reached VLAN 20"
		sleep 0.3
		kill -INT "$tb" "$tdd" 2>/dev/null
		wait "$tb" "$tdd" 2>/dev/null
		vb=$(tcpdump -r "$TMP/ub.pcap" -nn -v 2>/dev/null | grep -o 'vni [0-9]*' | sort | uniq -c | awk '{printf "%s:%s ", $3, $1}')
		vd=$(tcpdump -r "$TMP/ud.pcap" -nn -v 2>/dev/null | grep -o 'vni [0-9]*' | sort | uniq -c | awk '{printf "%s:%s ", $3, $1}')
		[[ $vb =~ ^42:[0-9]+\ $ ]] || ERR="${ERR:+$ERR; }B's underlay carried VNIs '$vb', want 42 only"
		[[ $vd =~ ^43:[0-9]+\ $ ]] || ERR="${ERR:+$ERR; }D's underlay carried VNIs '$vd', want 43 only"
		for c in bad_vni bad_header; do
			check_ctr vx42 ".$c" -eq 0
			check_ctr vx43 ".$c" -eq 0
		done
		detail="VNI 42 <-> VLAN 10, VNI 43 <-> VLAN 20, each tenant to its own station only; underlay VNI:datagrams B ${vb}D ${vd}"
	else
		ERR="setup failed: $(tail -n 2 "$TMP/vhostd.log" 2>/dev/null)"
	fi
	finish vxlan-tenants "$detail"
	for n in "$NT1" "$NT2"; do ip netns del "$n" 2>/dev/null; done
fi

# ---- vxlan-hostile --------------------------------------------------------
if wanted vxlan-hostile; then
	ERR=
	if topo 4 && vx_start local=198.18.0.1 remote=198.18.0.2; then
		ping_ok "$NA" 198.19.1.2
		ip -n "$NB" addr add 198.18.0.9/24 dev ub
		ip netns exec "$NB" python3 - <<'EOF'
import socket, struct
A = ('198.18.0.1', 4789)
def hdr(flags=0x08000000, vni=42):
    return struct.pack('!II', flags, vni << 8)
frame = b'\xff' * 6 + b'\x02\x00\x00\x00\x00\x42' + b'\x08\x06' + bytes(46)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('198.18.0.2', 0))
s.sendto(b'\x08\x00', A)                                  # short
s.sendto(hdr() + frame[:10], A)                           # short inner
s.sendto(hdr(0x0c000000) + frame, A)                      # flags
s.sendto(hdr(0x08000001) + frame, A)                      # reserved
s.sendto(hdr(vni=43) + frame, A)                          # VNI
s.sendto(hdr() + frame[:6] + b'\x01' + frame[7:], A)      # group source
s.sendto(hdr() + bytes(6) + bytes(6) + frame[12:], A)     # zero source
s.sendto(hdr() + frame + bytes(2000), A)                  # over mtu=
for n in range(200):                                      # random junk
    s.sendto(bytes((n * 7 + i) & 0xff for i in range(n % 90)), A)
f = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
f.bind(('198.18.0.9', 0))
f.sendto(hdr() + frame, A)                                # stranger
EOF
		wait_ctr 5 vx0 .foreign -ge 1
		check_ctr vx0 .bad_header -ge 4
		check_ctr vx0 .bad_vni -ge 1
		check_ctr vx0 .drops.spoofed -ge 2
		check_ctr vx0 .mtu_inner -ge 1
		at=$(fdb | jq -r '.macs[] | select(.mac == "02:00:00:00:00:42") | .vtep')
		[ -z "$at" ] || ERR="${ERR:+$ERR; }a refused datagram's MAC was learned ($at)"
		ping_ok "$NA" 198.19.1.2
	else
		ERR="setup failed"
	fi
	finish vxlan-hostile "short, flags, VNI, group/zero source, oversize, junk, stranger: each counted, nothing learned, ping on"
fi

# ---- vxlan-kernel6 --------------------------------------------------------
if wanted vxlan-kernel6; then
	ERR=
	if topo 6 && vx_start local=2001:2::1 remote=2001:2::2; then
		ping_ok "$NA" 198.19.1.2
		xfer "$NA" "$NC" 198.19.1.2
		xfer "$NC" "$NA" 198.19.1.1
		at=$(fdb | jq -r '.vteps[0].vtep')
		[ "$at" = 2001:2::2 ] || ERR="${ERR:+$ERR; }VTEP shown as '$at'"
	else
		ERR="setup failed: $(tail -n 2 "$TMP/vhostd.log" 2>/dev/null)"
	fi
	finish vxlan-kernel6 "IPv6 underlay: ping, 4 MiB each way intact"
fi

# iperf_captured SRC: iperf3 A -> C and C -> A ($up, $down Mbit/s) while
#   B's underlay is captured (into $dump): at least 20 VXLAN VNI 42
#   datagrams, some from SRC's ephemeral ports to 4789
iperf_captured() {
	local n re=${1//./\\.}
	captured_iperf 40
	dump=$(tcpdump -r "$TMP/ul.pcap" -nn -v 2>/dev/null)
	n=$(grep -c 'VXLAN, flags \[I\] (0x08), vni 42' <<<"$dump")
	[ "$n" -ge 20 ] || ERR="${ERR:+$ERR; }capture: $n VXLAN vni 42 datagrams"
	grep -Eq "$re"'\.(49[0-9]{3}|5[0-9]{4}|6[0-5][0-9]{3}) > 198\.18\.0\.2\.4789:' <<<"$dump" ||
		ERR="${ERR:+$ERR; }capture: nothing from vhostd's ephemeral ports to 4789"
}

# intact_clean: 4 MiB each way byte for byte, and nothing of vx0's
#   dropped as malformed or foreign (over a carrier, its underlay too)
intact_clean() {
	local c
	xfer "$NA" "$NC" 198.19.1.2
	xfer "$NC" "$NA" 198.19.1.1
	for c in bad_header bad_vni foreign underlay_bad; do
		check_ctr vx0 ".$c" -eq 0
	done
}

# carrier_kept PORT: "port del" of the carrier PORT is refused while it
#   carries, and the tunnel still carries a ping
carrier_kept() {
	local out rc
	out=$(timeout 10 "$VHOSTCTL" --ctl "$TMP/ctl" port del "$1" 2>&1)
	rc=$?
	[ $rc != 0 ] && grep -q 'carries' <<<"$out" ||
		ERR="${ERR:+$ERR; }port del of the carrier: rc $rc, '$out'"
	ping_ok "$NA" 198.19.1.2
}

# ---- vxlan-xdp, vxlan-xdp6 -----------------------------------------------
# xdp_case NAME 4|6: vx0 over an afxdp port on ua, which has no address
xdp_case() {
	local name=$1 fam=$2 l r td dump n df rc tso
	up= down=
	if [ "$fam" = 4 ]; then l=198.18.0.1 r=198.18.0.2; else l=2001:2::1 r=2001:2::2; fi
	ERR=
	# IPv4: tso=on, the carrier takes UDP GSO trains whole (B is a
	# kernel stack); IPv6: auto, off on a veth (every datagram through
	# AF_XDP).
	tso=auto
	[ "$fam" = 4 ] && tso=on
	PRE=(--port "afxdp,ifname=ua,name=xa,mode=generic,tso=$tso")
	if topo "$fam" && ip -n "$NA" addr flush dev ua &&
	   vx_start local=$l remote=$r via=xa; then
		# B's kernel finds vhostd's address (ARP or ND) and pings it.
		ping_ok "$NB" "$l"
		ip -n "$NB" neigh show "$l" | grep -q "$(ip -n "$NA" -br link show ua | awk '{print $3}')" ||
			ERR="${ERR:+$ERR; }B's neighbour entry for $l is not ua's MAC"
		ping_ok "$NA" 198.19.1.2
		if [ "$fam" = 4 ]; then
			iperf_captured 198.18.0.1
			df=$(grep -B1 '198\.18\.0\.1\.[0-9]* > 198\.18\.0\.2\.4789:' <<<"$dump" | grep -c 'flags \[DF\]')
			[ "$df" -ge 1 ] || ERR="${ERR:+$ERR; }capture: vhostd's datagrams lack DF"
			check_ctr vx0 .gro_joined -gt 100
		fi
		intact_clean
		check_ctr vx0 .underlay_sent -ge 2
		# The carrier is no switch port: nothing of the tenants' was
		# put on the underlay bare.
		check_ctr xa .tx_packets -eq 0
		# A's TSO frames left as UDP GSO trains (tso=on) or not.
		if [ "$tso" = on ]; then
			check_ctr xa .tso_kernel -gt 20
		else
			check_ctr xa .tso_kernel -eq 0
		fi
		# 4 MiB each way at least (TSO and joined frames: 64 KiB each).
		check_ctr vx0 .rx_packets -gt 60
		check_ctr vx0 .tx_packets -gt 60
		# ua's MTU less than a full datagram: counted, never sent.
		ip -n "$NA" link set ua mtu 1500
		ip -n "$NB" link set ub mtu 1500
		stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
		vx_start local=$l remote=$r via=xa || ERR="${ERR:+$ERR; }restart failed"
		ping_ok "$NA" 198.19.1.2
		ip netns exec "$NA" ping -c 1 -W 1 -M do -s 1460 198.19.1.2 \
			>/dev/null 2>&1 &&
			ERR="${ERR:+$ERR; }a full-size datagram crossed a 1500 MTU"
		check_ctr vx0 .mtu_underlay -ge 1
		carrier_kept xa
		detail="tso=$tso: B resolves and pings $l (vhostd's); ping; ${up:+iperf3 A->C $up Mbit/s, C->A $down Mbit/s; }4 MiB each way intact; MTU overrun counted; carrier kept"
	else
		ERR="setup failed: $(tail -n 2 "$TMP/vhostd.log" 2>/dev/null)"
	fi
	PRE=()
	finish "$name" "$detail"
}
PRE=()
wanted vxlan-xdp && xdp_case vxlan-xdp 4
wanted vxlan-xdp6 && xdp_case vxlan-xdp6 6

# ---- vxlan-tap, vxlan-tap6 ------------------------------------------------
# tap_case NAME 4|6: vx0 over TAP vc0 (via=tc0), vhostd's address behind
#   A's kernel (IPv4 198.18.3.1, proxy ARP; IPv6 2001:2:3::1, proxy NDP),
#   B's kernel vxlan sending to it through a route
tap_case() {
	local name=$1 fam=$2 l r net gw td dump n tnl rc
	up= down= detail=
	ERR=
	PRE=(--port "tap,ifname=vc0,name=tc0")
	if [ "$fam" = 4 ]; then
		l=198.18.3.1 r=198.18.0.2 net=198.18.3.0/24 gw=198.18.0.1
	else
		l=2001:2:3::1 r=2001:2::2 net=2001:2:3::/64 gw=2001:2::1
	fi
	if topo "$fam" &&
	   ip netns exec "$NA" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv6.conf.all.forwarding=1 &&
	   ip -n "$NB" route add "$net" via "$gw" &&
	   bridge -n "$NB" fdb append 00:00:00:00:00:00 dev vx0 dst "$l" &&
	   bridge -n "$NB" fdb del 00:00:00:00:00:00 dev vx0 dst "$gw" &&
	   vx_start local=$l remote=$r via=tc0 &&
	   ip -n "$NA" link set vc0 mtu 1600 up; then
		if [ "$fam" = 4 ]; then
			ip -n "$NA" addr add 198.18.3.254/24 dev vc0
			ip netns exec "$NA" sysctl -qw \
				net.ipv4.conf.vc0.proxy_arp=1 \
				net.ipv4.neigh.vc0.proxy_delay=0
		else
			ip -n "$NA" addr add 2001:2:3::fe/64 dev vc0 nodad
			ip netns exec "$NA" sysctl -qw \
				net.ipv6.conf.vc0.proxy_ndp=1 \
				net.ipv6.neigh.vc0.proxy_delay=0
			ip -n "$NA" -6 neigh add proxy "$r" dev vc0
		fi
		# A's kernel resolves vhostd's address and pings it; B's
		# reaches it through A.
		ping_ok "$NA" "$l"
		ping_ok "$NB" "$l"
		ping_ok "$NA" 198.19.1.2
		if [ "$fam" = 4 ]; then
			iperf_captured 198.18.3.1
			# B's segments (its veth cuts them: no checksum
			# offload) joined again.
			check_ctr vx0 .gro_joined -gt 100
		fi
		intact_clean
		# Its TSO frames whole through the kernel (Linux 6.17+), or
		# none tried.
		if grep -q 'UDP tunnel GSO on' "$TMP/vhostd.log"; then
			tnl=on
			check_ctr vx0 .tunnel_gso -gt 20
		else
			tnl=off
			check_ctr vx0 .tunnel_gso -eq 0
		fi
		# The carrier carried the tunnel's frames and no tenant's bare:
		# each frame it wrote is a datagram or an ARP or ND of
		# vhostd's own.
		check_ctr tc0 .tx_packets -gt 60
		check_ctr vx0 .rx_packets -gt 60
		[ "$(ctr tc0 .tx_packets)" -le \
		  "$(( $(ctr vx0 .tx_packets) + $(ctr vx0 .underlay_sent) ))" ] ||
			ERR="${ERR:+$ERR; }the carrier wrote more than the tunnel sent"
		carrier_kept tc0
		detail="UDP tunnel GSO $tnl; A and B ping $l (vhostd's); ping; ${up:+iperf3 A->C $up Mbit/s, C->A $down Mbit/s; }4 MiB each way intact; carrier kept"
	else
		ERR="setup failed: $(tail -n 2 "$TMP/vhostd.log" 2>/dev/null)"
	fi
	PRE=()
	finish "$name" "$detail"
}
wanted vxlan-tap && tap_case vxlan-tap 4
wanted vxlan-tap6 && tap_case vxlan-tap6 6

# ---- vxlan-xdp-reload ---------------------------------------------------
# xconf LINE...: the config file
xconf() {
	printf '%s\n' "$@" >"$TMP/vx.conf.new" && mv "$TMP/vx.conf.new" "$TMP/vx.conf"
	chmod 644 "$TMP/vx.conf"
}
if wanted vxlan-xdp-reload; then
	ERR=
	XT="port tap,ifname=vt0,name=tap0"
	XA="port afxdp,ifname=ua,name=xa,mode=generic"
	XV="port vxlan,name=vx0,vni=42,local=198.18.0.1,remote=198.18.0.2,via=xa"
	xconf "$XT" "$XA" "$XV"
	if topo 4 && ip -n "$NA" addr flush dev ua &&
	   start_vhostd ip netns exec "$NA" -- 0 --config "$TMP/vx.conf"; then
		for _i in $(seq 100); do
			ip -n "$NA" link show vt0 >/dev/null 2>&1 && break
			sleep 0.05
		done
		ip netns exec "$NA" sysctl -qw net.ipv6.conf.vt0.disable_ipv6=1
		ip -n "$NA" addr add 198.19.1.1/24 dev vt0
		ip -n "$NA" link set vt0 up
		ping_ok "$NA" 198.19.1.2
		for drop in carrier both; do
			if [ $drop = carrier ]; then xconf "$XT" "$XV"; else xconf "$XT"; fi
			out=$(timeout 10 "$VHOSTCTL" --ctl "$TMP/ctl" reload 2>&1)
			rc=$?
			[ $rc = 1 ] && grep -q 'carries a tunnel' <<<"$out" ||
				ERR="${ERR:+$ERR; }reload dropping the $drop: rc $rc, '$out'"
		done
		n=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" ports |
		    jq -r '[.ports[].name] | sort | join(" ")')
		[ "$n" = "tap0 vx0 xa" ] || ERR="${ERR:+$ERR; }ports after the refusals: '$n'"
		ping_ok "$NA" 198.19.1.2
		# The tunnel goes at run time; then its carrier may.
		for p in vx0 xa; do
			out=$(timeout 10 "$VHOSTCTL" --ctl "$TMP/ctl" port del $p 2>&1) ||
				ERR="${ERR:+$ERR; }port del $p: '$out'"
		done
		n=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" ports |
		    jq -r '[.ports[].name] | join(" ")')
		[ "$n" = "tap0" ] || ERR="${ERR:+$ERR; }ports after the deletions: '$n'"
	else
		ERR="setup failed: $(tail -n 2 "$TMP/vhostd.log" 2>/dev/null)"
	fi
	finish vxlan-xdp-reload "a reload dropping the carrier, or it and its tunnel, refused; the tunnel carries on; port del of the tunnel, then of the carrier"
fi

# ---- vxlan-spec -----------------------------------------------------------
if wanted vxlan-spec; then
	ERR=
	for bad in "vxlan,local=198.18.0.1,vni=16777216" \
		   "vxlan,local=198.18.0.1,remote=2001:2::2,vni=1" \
		   "vxlan,local=198.18.0.1,remote=198.18.0.1,vni=1" \
		   "vxlan,local=198.18.0.1,remote=198.18.0.2,remote=198.18.0.2,vni=1" \
		   "vxlan,local=nowhere,vni=1" "vxlan,vni=1" \
		   "vxlan,local=198.18.0.1" "vxlan,local=239.1.1.1,vni=1" \
		   "vxlan,local=198.18.0.1,vni=1,src-ports=0"; do
		out=$("$VHOSTD" --port "$bad" 2>&1)
		rc=$?
		[ $rc != 0 ] && [ "$(wc -l <<<"$out")" = 1 ] && [[ $out == *"$bad"* ]] ||
			ERR="${ERR:+$ERR; }'$bad': rc $rc, '$out'"
	done
	if ns "$NA" && start_vhostd ip netns exec "$NA" -- 1; then
		out=$("$VHOSTCTL" --json --ctl "$TMP/ctl" port add \
			"vxlan,local=127.0.0.1,remote=127.0.0.2,vni=5" 2>&1)
		rc=$?
		[ $rc = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] ||
			ERR="${ERR:+$ERR; }port add vxlan at run time: rc $rc, '$out'"
	else
		ERR="${ERR:+$ERR; }vhostd did not start"
	fi
	finish vxlan-spec "9 bad specs refused with one line each; run-time add refused"
fi

it_summary
