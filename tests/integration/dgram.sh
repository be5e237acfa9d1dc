#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/dgram.sh - the dgram port type: Ethernet frames, one
# per datagram (QEMU's -netdev dgram format), over UDP and unix sockets
#
#   dgram-pair      two vhostd, A (guest X, pinger) and B (guest Y,
#                   responder), linked by a UDP dgram port each on
#                   127.0.0.1: X resolves Y by ARP across the link and
#                   pings it 300 times, none lost; each side's link
#                   tx_packets equals the other side's rx_packets, and
#                   no link counts a drop or a foreign datagram
#   dgram-pair6     the same over [::1]
#   dgram-hostile   one vhostd (guest Y responding on vu0); a unix dgram
#                   port added at run time (as nobody, seccomp on); the
#                   test's own socket, the peer, sends a runt, a 70000-
#                   byte datagram and an ARP request for Y, and a
#                   stranger's socket sends a frame: runt 1, too_big 1,
#                   foreign 1, rx_packets 1, and Y's ARP reply reaches
#                   the peer; a UDP dgram port added at run time is
#                   refused with one line; vhostd alive, exits cleanly,
#                   no sanitizer report; its socket file gone after del
#
# Usage: tests/integration/dgram.sh [NAME-GLOB...]  (BUILD=dir, default
# build; VHOSTD_USER=nobody as tests/run.sh runs it).  Loopback UDP on
# 127.0.0.1 and unix sockets in a private directory; guest addresses in
# 198.18.0.0/15 exist only inside vdrv.

set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-dgram.XXXXXX)
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
TOOL=$BUILD/tests/vdrv_tool

for f in "$VHOSTD" "$TOOL"; do
	[ -x "$f" ] || { echo "missing $f (make O=$BUILD)"; exit 2; }
done
command -v python3 >/dev/null || { echo "python3 needed"; exit 2; }

MAC_X=02:00:00:00:2d:01
MAC_Y=02:00:00:00:2d:02
IP_X=198.18.2.1
IP_Y=198.18.2.2

# ctr_at CTL PORT JQ-PATH: a counter of PORT from the vhostd at CTL
ctr_at() {
	timeout 10 "$VHOSTCTL" --json --ctl "$1" stats 2>/dev/null |
		jq -e -r ".ports[] | select(.name == \"$2\") | $3" 2>/dev/null
}

# free_udp_ports FAMILY: two free UDP ports on the loopback address of
#   FAMILY (4 or 6), space separated
free_udp_ports() {
	python3 - "$1" <<'EOF'
import socket, sys
fam, host = ((socket.AF_INET, "127.0.0.1") if sys.argv[1] == "4" else
             (socket.AF_INET6, "::1"))
s = [socket.socket(fam, socket.SOCK_DGRAM) for _ in range(2)]
for x in s:
    x.bind((host, 0))
print(*(x.getsockname()[1] for x in s))
EOF
}

# pair_test NAME FAMILY HOST: the dgram-pair test over HOST (127.0.0.1,
#   [::1])
pair_test() {
	local name=$1 host=$3 PA PB BPID YPID out sr atx arx btx brx c d f
	ERR=
	read -r PA PB < <(free_udp_ports "$2")
	# B: its own control socket and guest socket; run as A is.
	USER_ARGS=()
	[ -n "$VHOSTD_USER" ] && USER_ARGS=(--user "$VHOSTD_USER")
	[ -n "$VHOSTD_USER" ] && chown "$VHOSTD_USER" "$TMP"
	rm -f "$TMP/ctl.b" "$TMP/b.sock"
	"$VHOSTD" --ctl "$TMP/ctl.b" "${USER_ARGS[@]}" \
		--port "vhost-user,path=$TMP/b.sock,name=gy" \
		--port "dgram,local=$host:$PB,remote=$host:$PA,name=link" \
		>"$TMP/vhostd-b.log" 2>&1 &
	BPID=$!
	BGPIDS+=("$BPID")
	start_vhostd -- 1 \
		--port "dgram,local=$host:$PA,remote=$host:$PB,name=link" ||
		fail "vhostd A did not start"
	wait_for "$TMP/b.sock" && wait_for "$TMP/ctl.b" || fail "vhostd B did not start"
	"$TOOL" responder --sock "$TMP/b.sock" --mac "$MAC_Y" --ip "$IP_Y" \
		--seconds 60 >"$TMP/y.out" 2>&1 &
	YPID=$!
	BGPIDS+=("$YPID")
	out=$(timeout 120 "$TOOL" pinger --sock "$TMP/p0.sock" --mac "$MAC_X" \
		--ip "$IP_X" --peer-ip "$IP_Y" --count 300 --interval-ms 0 \
		--timeout-ms 3000 2>&1) || fail "X -> Y across the link: $out"
	sr=$(sed -n 's/^pinger: sent \([0-9]*\) received \([0-9]*\).*/\1 \2/p' <<<"$out")
	[ "$sr" = "300 300" ] || fail "X: sent/received '$sr', want 300 300"
	sleep 0.2	# the last reply's counters
	atx=$(ctr_at "$TMP/ctl" link .tx_packets)
	arx=$(ctr_at "$TMP/ctl" link .rx_packets)
	btx=$(ctr_at "$TMP/ctl.b" link .tx_packets)
	brx=$(ctr_at "$TMP/ctl.b" link .rx_packets)
	[ -n "$atx" ] && [ "$atx" = "$brx" ] || fail "A link tx $atx != B link rx $brx"
	[ -n "$btx" ] && [ "$btx" = "$arx" ] || fail "B link tx $btx != A link rx $arx"
	[ "${atx:-0}" -ge 300 ] || fail "A link tx $atx < 300"
	for c in "$TMP/ctl" "$TMP/ctl.b"; do
		d=$(ctr_at "$c" link '[.drops[]] | add')
		f=$(ctr_at "$c" link .foreign)
		[ "$d" = 0 ] && [ "$f" = 0 ] || fail "$c link: drops $d foreign $f"
	done
	kill -TERM "$YPID" 2>/dev/null
	wait_exit "$YPID" 10 >/dev/null 2>&1
	kill -TERM "$BPID" 2>/dev/null
	wait_exit "$BPID" "$STOP_TIMEOUT"
	[ $? = 0 ] || fail "vhostd B exited uncleanly"
	grep -qE "$SAN_RE" "$TMP/vhostd-b.log" &&
		fail "B: $(grep -m1 -E "$SAN_RE" "$TMP/vhostd-b.log")"
	stop_vhostd TERM || fail "vhostd A died or exited uncleanly"
	result "$name" "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-300/300 pings X -> Y over UDP $host:$PA <-> :$PB; link tx = peer rx ($atx, $btx); 0 drops}"
	ERR=
}

# ---- dgram-pair, dgram-pair6 ----------------------------------------------
wanted dgram-pair && pair_test dgram-pair 4 127.0.0.1
wanted dgram-pair6 && pair_test dgram-pair6 6 '[::1]'

# ---- dgram-hostile --------------------------------------------------------
if wanted dgram-hostile; then
	ERR=
	start_vhostd -- 1 || fail "vhostd did not start"
	"$TOOL" responder --sock "$TMP/p0.sock" --mac "$MAC_Y" --ip "$IP_Y" \
		--seconds 60 >"$TMP/y.out" 2>&1 &
	YPID=$!
	BGPIDS+=("$YPID")
	wait_up 10 vu0
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" port add \
		"dgram,path=$TMP/dg.sock,remote-path=$TMP/peer.sock,name=dg" \
		>"$TMP/add.out" 2>&1 || fail "port add dgram (unix): $(cat "$TMP/add.out")"
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" port add \
		"dgram,local=127.0.0.1:9,remote=127.0.0.1:9" >"$TMP/udp.out" 2>&1
	rc=$?
	msg=$(jq -r '.error | strings' "$TMP/udp.out" 2>/dev/null)
	[[ $rc = 1 && $msg =~ ^port\ add:\ dgram\ ports\ with\ local=\ need ]] ||
		fail "UDP port add: rc $rc, '$(head -c 200 "$TMP/udp.out")'"
	# The peer and a stranger; the peer's socket writable by vhostd's
	# user, as QEMU would make it for its backend.
	cat >"$TMP/peer.py" <<'EOF'
import socket, sys, os
tmp, mac_y, ip_y = sys.argv[1], sys.argv[2], sys.argv[3]
me = bytes.fromhex("020000002d09")
peer = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
peer.bind(tmp + "/peer.sock")
os.chmod(tmp + "/peer.sock", 0o666)
stranger = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
stranger.bind(tmp + "/stranger.sock")
ip = lambda s: socket.inet_aton(s)
arp = (b"\xff" * 6 + me + b"\x08\x06" + b"\x00\x01\x08\x00\x06\x04\x00\x01" +
       me + ip("198.18.2.9") + b"\x00" * 6 + ip(ip_y))
dst = tmp + "/dg.sock"
peer.sendto(b"\x01\x02\x03", dst)			# runt
peer.sendto(b"\x02" * 70000, dst)			# larger than a frame
stranger.sendto(arp, dst)				# not the peer
peer.sendto(arp, dst)					# the real one
peer.settimeout(5)
while True:
    f = peer.recv(70000)
    if f[12:14] == b"\x08\x06" and f[20:22] == b"\x00\x02":
        print("arp-reply from", f[6:12].hex(":"))
        break
EOF
	out=$(python3 "$TMP/peer.py" "$TMP" "$MAC_Y" "$IP_Y" 2>&1) ||
		fail "peer: no ARP reply from Y ($(tail -n 1 <<<"$out"))"
	[ "$out" = "arp-reply from $MAC_Y" ] || fail "peer got '$out'"
	check_ctr dg .drops.runt -eq 1
	check_ctr dg .drops.too_big -eq 1
	check_ctr dg .foreign -eq 1
	check_ctr dg .drops.spoofed -eq 1
	check_ctr dg .rx_packets -eq 1
	check_ctr dg .tx_packets -ge 1
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" port del dg >/dev/null 2>&1 ||
		fail "port del dg"
	[ -e "$TMP/dg.sock" ] && fail "dg.sock left after port del"
	kill -TERM "$YPID" 2>/dev/null
	wait_exit "$YPID" 10 >/dev/null 2>&1
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result dgram-hostile "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-unix dgram added at run time: runt, 70000 B and foreign datagrams counted (1 each), ARP across, Y replied to the peer; UDP add refused with one line; socket gone after del}"
	ERR=
fi

it_summary
