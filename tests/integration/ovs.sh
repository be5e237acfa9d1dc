#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/ovs.sh - the vxlan port type against Open vSwitch's
# VXLAN (userspace datapath, "userspace tunneling"), in namespaces joined
# by veth pairs (198.18.0.0/15 underlay and overlay, 2001:2::/64 for the
# IPv6 underlay)
#
#   host A (ns $NA): vhostd, a TAP port vt0 (198.19.1.1, A's kernel as
#     the "guest") and a vxlan port vx0 (local 198.18.0.1, vni 42) over
#     veth ua (198.18.0.1)
#   host B (ns $NB): ovsdb-server and ovs-vswitchd, started here with
#     every file under $TMP/ovs: bridge br-phy (datapath_type=netdev)
#     holding veth ub, its internal port carrying 198.18.0.2 (the
#     tunnel's route); bridge br-int (netdev) with a vxlan port
#     (remote_ip=198.18.0.1, key=42) and veth cb to ns $NC
#   host C (ns $NC): cc 198.19.1.2, the guest behind OVS
#
#   ovs-ping        ping A -> C and C -> A
#   ovs-iperf       iperf3 A -> C and C -> A (TCP, 2 s each)
#   ovs-xfer        4 MiB of random bytes each way, sha256-equal
#   ovs-capture     the underlay captured on ua with tcpdump: every
#                   datagram VXLAN to port 4789 with flags I and VNI 42,
#                   both VTEPs sending, one encapsulation
#   ovs-counters    vhostd: frames both ways, the stream from C joined
#                   again (gro_joined), no bad_header, bad_vni, foreign or
#                   MTU drop; OVS: A's MAC learned on its vxlan port,
#                   A's VTEP in its tunnel neighbour cache, no tunnel
#                   drop counted (ovs_drops); vhostd and ovs-vswitchd
#                   both exit cleanly
#   ovs-ipv6        the same link over an IPv6 underlay (2001:2::1,
#                   2001:2::2), OVS restarted: ping both ways, 4 MiB each
#                   way intact, A's VTEP in OVS's neighbour cache (ND),
#                   no drop either side, clean exits
#
# The veth checksum trap (doc/ports.md), twice over: OVS's netdev ports
# read and write frames through packet sockets, a userspace receiver like
# vhostd's UDP socket, so every kernel-side veth feeding one has TX
# checksumming off -- C's cc (its TCP checksums), and A's ua (the outer
# UDP checksum of vhostd's own datagrams, which A's kernel otherwise
# leaves to the "device"; OVS checks it and drops the datagram as
# datapath_drop_tunnel_pop_error).
#
# OVS needs no kernel module here: datapath_type=netdev is ovs-vswitchd's
# own datapath.  Nothing of OVS's runs in the default namespace, nothing
# is read from or written to /etc/openvswitch or /var/run/openvswitch
# (OVS_RUNDIR, OVS_DBDIR, OVS_LOGDIR, OVS_SYSCONFDIR and every --pidfile,
# --unixctl, --remote and --log-file point under $TMP/ovs), so runs can
# coexist; both daemons are our children, asked to exit ("ovs-appctl
# exit") and killed by their PID if they do not.
#
# Usage: tests/integration/ovs.sh [NAME-GLOB...]  (BUILD=dir, default
# build; VHOSTD_USER as lib.sh).  Root.
set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-ovs.XXXXXX)
NS=ovs-$$
FILTER=("$@")
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

NA=ovsa-$$
NB=ovsb-$$
NC=ovsc-$$
MADE=()
OVSDIR=$TMP/ovs
OVSDB_PID=
OVSVS_PID=

# ovs_stop: ovs-vswitchd, then ovsdb-server, asked to exit ("exit
#   --cleanup": the bridges' taps go too); 1 if either was gone already,
#   did not exit with status 0 within 10 s (then killed by the PID we
#   started) or could not be asked
ovs_stop() {
	local rc=0
	if [ -n "$OVSVS_PID" ]; then
		kill -0 "$OVSVS_PID" 2>/dev/null || rc=1
		appctl exit --cleanup >/dev/null 2>&1 || rc=1
		wait_exit "$OVSVS_PID" 10 || rc=1
	fi
	if [ -n "$OVSDB_PID" ]; then
		kill -0 "$OVSDB_PID" 2>/dev/null || rc=1
		ovs-appctl -t "$OVSDIR/ovsdb-server.ctl" --timeout=10 exit \
			>/dev/null 2>&1 || rc=1
		wait_exit "$OVSDB_PID" 10 || rc=1
	fi
	OVSVS_PID=
	OVSDB_PID=
	return $rc
}

ovs_cleanup() {
	local n
	ovs_stop
	for n in "${MADE[@]}"; do
		ip netns del "$n" 2>/dev/null
	done
}
IT_CLEANUP_HOOK=ovs_cleanup

ALL=(ovs-ping ovs-iperf ovs-xfer ovs-capture ovs-counters ovs-ipv6)
# skip_all WHY: every selected test skipped, the summary, exit
skip_all() {
	local n
	for n in "${ALL[@]}"; do wanted "$n" && skip "$n" "$1"; done
	it_summary
	exit
}
for t in socat iperf3 tcpdump ethtool ovsdb-tool ovsdb-server ovs-vswitchd \
	 ovs-vsctl ovs-appctl; do
	command -v $t >/dev/null ||
		skip_all "no $t (tests/deps.sh installs openvswitch-switch)"
done
SCHEMA=${OVS_PKGDATADIR:-/usr/share/openvswitch}/vswitch.ovsschema
[ -r "$SCHEMA" ] || skip_all "no $SCHEMA"
[ "$(id -u)" = 0 ] || skip_all "needs root"

# Every OVS tool run from here on looks under $OVSDIR only.
export OVS_RUNDIR=$OVSDIR OVS_DBDIR=$OVSDIR OVS_LOGDIR=$OVSDIR \
	OVS_SYSCONFDIR=$OVSDIR
vsctl() {
	ovs-vsctl --db="unix:$OVSDIR/db.sock" --timeout=10 "$@"
}
appctl() {
	ovs-appctl -t "$OVSDIR/ovs-vswitchd.ctl" --timeout=10 "$@"
}

# ns NAME [6]: a namespace, lo up; no IPv6 (its multicast would blur
#   counts), or with "6" IPv6 without duplicate address detection
ns() {
	ip netns add "$1" || return 1
	MADE+=("$1")
	ip -n "$1" link set lo up
	if [ "${2:-}" = 6 ]; then
		ip netns exec "$1" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0
	else
		ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
	fi
}

# ovs_start: ovsdb-server and ovs-vswitchd in $NB, our children
ovs_start() {
	mkdir -p "$OVSDIR" &&
	ovsdb-tool create "$OVSDIR/conf.db" "$SCHEMA" || return 1
	ip netns exec "$NB" ovsdb-server "$OVSDIR/conf.db" \
		--remote="punix:$OVSDIR/db.sock" \
		--unixctl="$OVSDIR/ovsdb-server.ctl" \
		--pidfile="$OVSDIR/ovsdb-server.pid" \
		--log-file="$OVSDIR/ovsdb-server.log" --no-chdir \
		>/dev/null 2>&1 &
	OVSDB_PID=$!
	wait_for "$OVSDIR/db.sock" || return 1
	vsctl --no-wait init || return 1
	ip netns exec "$NB" ovs-vswitchd "unix:$OVSDIR/db.sock" \
		--unixctl="$OVSDIR/ovs-vswitchd.ctl" \
		--pidfile="$OVSDIR/ovs-vswitchd.pid" \
		--log-file="$OVSDIR/ovs-vswitchd.log" --no-chdir \
		>/dev/null 2>&1 &
	OVSVS_PID=$!
	wait_for "$OVSDIR/ovs-vswitchd.ctl"
}

# topo 4|6 [VXLAN0-OPTIONS...]: the namespaces, links and OVS's bridges
#   above; with 6 the underlay is 2001:2::1 (A) and 2001:2::2 (B)
topo() {
	local fam=$1 la=198.18.0.1/24 lb=198.18.0.2/24 ra=198.18.0.1
	shift
	if [ "$fam" = 6 ]; then
		la=2001:2::1/64 lb=2001:2::2/64 ra=2001:2::1
	fi
	ns "$NA" "$fam" && ns "$NB" "$fam" && ns "$NC" || return 1
	ip link add ua netns "$NA" type veth peer name ub netns "$NB" || return 1
	ip -n "$NA" link set ua mtu 1600 up
	ip -n "$NB" link set ub mtu 1600 up
	ip netns exec "$NA" ethtool -K ua tx off >/dev/null || return 1
	ip -n "$NA" addr add "$la" dev ua
	ip link add cb netns "$NB" type veth peer name cc netns "$NC" || return 1
	ip netns exec "$NC" ethtool -K cc tx off >/dev/null || return 1
	ip -n "$NB" link set cb up
	ip -n "$NC" addr add 198.19.1.2/24 dev cc
	ip -n "$NC" link set cc up
	ovs_start || return 1
	# "Connecting VMs Using Tunnels (Userspace)" in OVS's docs: the
	# tunnel's underlay is a bridge of its own whose internal port holds
	# the local address; OVS's router and neighbour cache follow it.
	vsctl add-br br-phy -- set bridge br-phy datapath_type=netdev \
		-- set interface br-phy mtu_request=1600 || return 1
	vsctl add-port br-phy ub || return 1
	ip -n "$NB" addr add "$lb" dev br-phy &&
	ip -n "$NB" link set br-phy up || return 1
	vsctl add-br br-int -- set bridge br-int datapath_type=netdev \
		-- add-port br-int vxlan0 \
		-- set interface vxlan0 type=vxlan options:remote_ip="$ra" \
			options:key=42 options:dst_port=4789 "$@" \
		-- add-port br-int cb || return 1
}

# vx_start LOCAL REMOTE: vhostd in $NA with vt0 (198.19.1.1) and vx0
vx_start() {
	start_vhostd ip netns exec "$NA" -- 0 \
		--port "tap,ifname=vt0,name=tap0" \
		--port "vxlan,name=vx0,vni=42,local=$1,remote=$2" ||
		return 1
	for _i in $(seq 100); do
		ip -n "$NA" link show vt0 >/dev/null 2>&1 && break
		sleep 0.05
	done
	ip netns exec "$NA" sysctl -qw net.ipv6.conf.vt0.disable_ipv6=1
	ip -n "$NA" addr add 198.19.1.1/24 dev vt0 &&
	ip -n "$NA" link set vt0 up
}

# xfer FROM-NS TO-NS TO-IP: 4 MiB of random bytes over TCP, byte for byte
xfer() {
	local port=$((7000 + RANDOM % 1000)) want got l
	head -c 4M /dev/urandom >"$TMP/blob"
	want=$(sha256sum <"$TMP/blob" | cut -d' ' -f1)
	ip netns exec "$2" timeout 30 socat -u TCP-LISTEN:$port,reuseaddr - \
		>"$TMP/blob.in" &
	l=$!
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
		return 1
	jq -r '.end.sum_received.bits_per_second / 1e6 | floor' <<<"$out"
}

# ping_ok NS IP: three pings answered
ping_ok() {
	ip netns exec "$1" ping -c 3 -i 0.2 -W 2 "$2" >/dev/null 2>&1 ||
		{ ERR="${ERR:+$ERR; }ping $2 from $1 failed"; return 1; }
}

# ovs_drops: OVS's drop reasons for tunnel traffic (coverage counters;
#   a bad outer UDP checksum is tunnel_pop_error, a datagram OVS cannot
#   parse rx_invalid_packet) must all be 0, else a failure in $ERR.
#   Not every datapath_drop_*: about one IPv6 run in seven counts one
#   upcall_error (a failed flow-miss upcall inside ovs-vswitchd, never
#   a tunnel decap or encap), which TCP retransmits past.
ovs_drops() {
	local d
	d=$(appctl coverage/show 2>&1 |
	    grep -E '^datapath_drop_(tunnel_pop_error|tunnel_push_error|invalid_tnl_port|rx_invalid_packet|invalid_port) ' |
	    grep -v 'total: 0$' | awk '{ print $1 "=" $NF }' | tr '\n' ' ')
	[ -z "$d" ] || ERR="${ERR:+$ERR; }OVS dropped: $d"
}

# done_test NAME DETAIL: one result from $ERR; on failure the end of
#   ovs-vswitchd's log too
done_test() {
	result "$1" "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-$2}"
	[ -z "$ERR" ] || tail -n 6 "$OVSDIR/ovs-vswitchd.log" 2>/dev/null |
		sed 's/^/    ovs-vswitchd: /'
	ERR=
}

# any_wanted NAME...: is one of them selected
any_wanted() {
	local n
	for n in "$@"; do wanted "$n" && return 0; done
	return 1
}

# setup 4|6 LOCAL REMOTE TEST...: topo and vhostd; on failure each TEST
#   fails with the reason and the namespaces are gone again
setup() {
	local fam=$1 l=$2 r=$3 why n
	shift 3
	if ! topo "$fam"; then
		why="OVS setup failed: $(tail -n 2 "$OVSDIR/ovs-vswitchd.log" 2>/dev/null | tr '\n' ' ')"
	elif ! vx_start "$l" "$r"; then
		why="vhostd did not start: $(tail -n 2 "$TMP/vhostd.log" 2>/dev/null | tr '\n' ' ')"
	else
		# The first frames ARP across and teach both sides; a few
		# seconds' grace for OVS's own ARP (or ND) for A's VTEP
		# before a ping counts.
		for _i in $(seq 10); do
			ip netns exec "$NA" ping -c 1 -W 1 198.19.1.2 \
				>/dev/null 2>&1 && break
		done
		return 0
	fi
	for n in "$@"; do wanted "$n" && result "$n" 1 "$why"; done
	untopo
	return 1
}

# untopo: vhostd and OVS stopped, every namespace and OVS file gone
untopo() {
	[ -n "$VPID" ] && { kill "$VPID" 2>/dev/null; wait "$VPID" 2>/dev/null; VPID=; }
	ovs_cleanup
	MADE=()
	rm -rf "$OVSDIR"
}

ERR=
V4=(ovs-ping ovs-iperf ovs-xfer ovs-capture ovs-counters)
any_wanted "${V4[@]}" && setup 4 198.18.0.1 198.18.0.2 "${V4[@]}" && {

# ---- ovs-ping -------------------------------------------------------------
if wanted ovs-ping; then
	ping_ok "$NA" 198.19.1.2
	ping_ok "$NC" 198.19.1.1
	done_test ovs-ping "A -> C and C -> A through vhostd's and OVS's VTEPs"
fi

# The underlay from here on, for ovs-capture.
ip netns exec "$NA" timeout 30 tcpdump -i ua -nn -c 60 -w "$TMP/ul.pcap" \
	udp >/dev/null 2>&1 &
TD=$!
BGPIDS+=("$TD")
sleep 0.5

# ---- ovs-iperf ------------------------------------------------------------
if wanted ovs-iperf; then
	up=$(iperf "$NA" "$NC" 198.19.1.2)
	[[ $up =~ ^[0-9]+$ ]] || ERR="${ERR:+$ERR; }iperf3 A -> C failed"
	down=$(iperf "$NC" "$NA" 198.19.1.1)
	[[ $down =~ ^[0-9]+$ ]] || ERR="${ERR:+$ERR; }iperf3 C -> A failed"
	done_test ovs-iperf "A->C ${up:-?} Mbit/s, C->A ${down:-?} Mbit/s"
fi

# ---- ovs-xfer -------------------------------------------------------------
if wanted ovs-xfer; then
	xfer "$NA" "$NC" 198.19.1.2
	xfer "$NC" "$NA" 198.19.1.1
	done_test ovs-xfer "4 MiB A -> C and C -> A, sha256-equal"
fi

# ---- ovs-capture ----------------------------------------------------------
if wanted ovs-capture; then
	# Whatever the tests above did not send, a ping each way fills in.
	for _i in $(seq 30); do
		kill -0 "$TD" 2>/dev/null || break
		ip netns exec "$NA" ping -c 1 -W 1 198.19.1.2 >/dev/null 2>&1
		ip netns exec "$NC" ping -c 1 -W 1 198.19.1.1 >/dev/null 2>&1
	done
	wait "$TD"
	dump=$(tcpdump -r "$TMP/ul.pcap" -nn -v 2>/dev/null)
	brief=$(tcpdump -r "$TMP/ul.pcap" -nn 2>/dev/null)
	nvx=$(grep -c 'VXLAN, flags \[I\] (0x08), vni 42' <<<"$dump")
	nall=$(grep -c '^[0-9]' <<<"$brief")
	[ "$nvx" -ge 40 ] && [ "$nvx" = "$nall" ] ||
		ERR="${ERR:+$ERR; }capture: $nvx VXLAN vni 42 of $nall UDP datagrams"
	from_a=$(grep -c '198\.18\.0\.1\.[0-9]* > 198\.18\.0\.2\.4789:' <<<"$brief")
	from_b=$(grep -c '198\.18\.0\.2\.[0-9]* > 198\.18\.0\.1\.4789:' <<<"$brief")
	[ "$from_a" -ge 1 ] && [ "$from_b" -ge 1 ] ||
		ERR="${ERR:+$ERR; }capture: $from_a datagrams vhostd -> OVS, $from_b OVS -> vhostd"
	grep -q '198\.18\.0\.1\.4789 > ' <<<"$brief" &&
		ERR="${ERR:+$ERR; }capture: vhostd sent from port 4789 (no entropy)"
	grep -A3 'vni 42' <<<"$dump" | grep -q 'vni 42.*vni 42' &&
		ERR="${ERR:+$ERR; }capture: double encapsulation"
	done_test ovs-capture "$nvx/$nall datagrams VXLAN vni 42, $from_a vhostd -> OVS:4789, $from_b OVS -> vhostd:4789"
fi

# ---- ovs-counters ---------------------------------------------------------
if wanted ovs-counters; then
	# Run alone, it brings the traffic it counts.
	wanted ovs-iperf || wanted ovs-xfer || {
		xfer "$NA" "$NC" 198.19.1.2
		xfer "$NC" "$NA" 198.19.1.1
	}
	for c in bad_header bad_vni foreign mtu_underlay mtu_inner; do
		check_ctr vx0 ".$c" -eq 0
	done
	check_ctr vx0 .rx_packets -gt 1000
	# (a TSO frame from A's kernel counts once: 4 MiB each way alone
	# leave ~600)
	check_ctr vx0 .tx_packets -gt 200
	# OVS sends C's stream as MSS-sized segments: joined again.
	check_ctr vx0 .gro_joined -gt 100
	vtmac=$(ip -n "$NA" -j link show vt0 | jq -r '.[0].address')
	fdb=$(appctl fdb/show br-int 2>&1)
	ofport=$(vsctl get interface vxlan0 ofport 2>/dev/null)
	grep -Eq "^ *$ofport +0 +$vtmac " <<<"$fdb" ||
		ERR="${ERR:+$ERR; }OVS did not learn $vtmac on vxlan0 (ofport ${ofport:-?}): $(tr '\n' ' ' <<<"$fdb")"
	neigh=$(appctl tnl/neigh/show 2>&1)
	grep -q '^198\.18\.0\.1 ' <<<"$neigh" ||
		ERR="${ERR:+$ERR; }198.18.0.1 not in OVS's tunnel neighbours: $(tr '\n' ' ' <<<"$neigh")"
	ovs_drops
	rx=$(ctr vx0 .rx_packets)
	tx=$(ctr vx0 .tx_packets)
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	ovs_stop || ERR="${ERR:+$ERR; }ovs-vswitchd or ovsdb-server died or hung"
	done_test ovs-counters "vx0 rx ${rx:-?} tx ${tx:-?} packets, none refused; OVS learned $vtmac on vxlan0, no tunnel drop; both exited cleanly"
fi
untopo
}

# ---- ovs-ipv6 -------------------------------------------------------------
if wanted ovs-ipv6 && setup 6 2001:2::1 2001:2::2 ovs-ipv6; then
	ping_ok "$NA" 198.19.1.2
	ping_ok "$NC" 198.19.1.1
	xfer "$NA" "$NC" 198.19.1.2
	xfer "$NC" "$NA" 198.19.1.1
	for c in bad_header bad_vni foreign mtu_underlay mtu_inner; do
		check_ctr vx0 ".$c" -eq 0
	done
	neigh=$(appctl tnl/neigh/show 2>&1)
	grep -q '^2001:2::1 ' <<<"$neigh" ||
		ERR="${ERR:+$ERR; }2001:2::1 not in OVS's tunnel neighbours: $(tr '\n' ' ' <<<"$neigh")"
	ovs_drops
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	ovs_stop || ERR="${ERR:+$ERR; }ovs-vswitchd or ovsdb-server died or hung"
	done_test ovs-ipv6 "IPv6 underlay: ping both ways, 4 MiB each way intact, none refused"
	untopo
fi

it_summary
