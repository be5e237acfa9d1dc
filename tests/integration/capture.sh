#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/capture.sh - vhostctl capture against a running vhostd
#
#   ns $NS: vhostd with TAP ports host (t0, 198.18.9.1) and peer (t1,
#     moved to ns $NB, 198.18.9.2): the two kernels' traffic crosses
#     vhostd, and "host" is the port captured
#
#   capture-pcap     ping: "capture host -c 6 icmp" to a file holds
#                    exactly 6 frames, all ICMP (the ARP before them
#                    filtered out in vhostd: "refused by the filter" in
#                    its log), read back by tcpdump
#   capture-live     "-w - | tcpdump -r -": frames arrive while the
#                    capture runs (-c 4 ends it)
#   capture-dir      -d tx: only the echo replies (vhostd -> host)
#   capture-pcapng   iperf3, --pcapng -d rx -s 128: every frame kept to
#                    128 bytes, inbound, with its offload metadata as a
#                    comment (gso=tcpv4 gso_size=...), the statistics
#                    block at the end
#   capture-slow     a reader that does not read: its frames are dropped
#                    and counted (captures: dropped > 0) while a flood
#                    ping still gets its answers through the port
#   capture-portdel  a capture of a port removed at run time ends (exit 0,
#                    pcapng's statistics block written), nothing left
#   capture-hangup   a client killed mid-capture: its session is gone
#   capture-errors   unknown port, bad filter, bad key, a filter that is
#                    not valid BPF, one that never arrives, a fifth
#                    capture: each one error line, vhostd serving on
#
# Usage: tests/integration/capture.sh [NAME-GLOB...]  (BUILD=dir; VHOSTD_USER
# as lib.sh).  Root.
set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-cap.XXXXXX)
NS=vcap-$$
NB=vcapb-$$
FILTER=("$@")
. "$(dirname "$0")/lib.sh"

for t in tcpdump iperf3 python3 socat; do
	command -v $t >/dev/null || { echo "missing $t (tests/deps.sh)"; exit 2; }
done

NB_MADE=0
cap_cleanup() {
	[ "$NB_MADE" = 1 ] && ip netns del "$NB" 2>/dev/null
	return 0
}
IT_CLEANUP_HOOK=cap_cleanup
CTL=$TMP/ctl

# vc ARGS...: vhostctl in $NS against our control socket
vc() {
	ip netns exec "$NS" timeout 30 "$VHOSTCTL" --json --ctl "$CTL" "$@"
}

# captures_n: how many captures vhostd reports running
captures_n() {
	vc captures | jq length
}

# wait_captures N: until N captures run (5 s)
wait_captures() {
	local i
	for i in $(seq 100); do
		[ "$(captures_n)" = "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# frames FILE: tcpdump's one-line summaries of FILE
frames() {
	tcpdump -n -r "$1" 2>/dev/null
}

setup() {
	netns_setup || return 1
	ip netns add "$NB" || return 1
	NB_MADE=1
	ip -n "$NB" link set lo up
	USER_ARGS=()
	if [ -n "$VHOSTD_USER" ]; then
		USER_ARGS=(--user "$VHOSTD_USER")
		chown "$VHOSTD_USER" "$TMP"
	fi
	ip netns exec "$NS" "$VHOSTD" --port tap,ifname=t0,name=host \
		--port tap,ifname=t1,name=peer --ctl "$CTL" "${USER_ARGS[@]}" \
		>"$TMP/vhostd.log" 2>&1 &
	VPID=$!
	wait_for "$CTL" || return 1
	tap_up t0 198.18.9.1/24 || return 1
	ip -n "$NS" link set t1 netns "$NB" || return 1
	ip -n "$NB" addr add 198.18.9.2/24 dev t1 &&
	ip -n "$NB" link set t1 up || return 1
	ip netns exec "$NS" ping -c 1 -W 2 198.18.9.2 >/dev/null ||
		ip netns exec "$NS" ping -c 2 -W 2 198.18.9.2 >/dev/null
}

# capture in the background: CAP_PID; waits until vhostd runs it
cap_bg() {
	local before
	before=$(captures_n)
	ip netns exec "$NS" "$VHOSTCTL" --json --ctl "$CTL" capture "$@" \
		2>>"$TMP/cap.err" &
	CAP_PID=$!
	wait_captures $((before + 1))
}

t_pcap() {
	local n
	ERR=
	: >"$TMP/cap.err"
	cap_bg host -c 6 -w "$TMP/a.pcap" icmp || fail "capture did not start"
	ip -n "$NS" neigh flush dev t0 2>/dev/null	# an ARP first
	ip netns exec "$NS" ping -c 3 -i 0.2 -W 1 198.18.9.2 >/dev/null ||
		fail "ping failed"
	timeout 10 tail --pid="$CAP_PID" -f /dev/null || fail "capture did not end at -c 6"
	wait "$CAP_PID" || fail "vhostctl capture exit $?"
	n=$(frames "$TMP/a.pcap" | wc -l)
	[ "$n" = 6 ] || fail "$n frames, want 6"
	frames "$TMP/a.pcap" | grep -qv ICMP && fail "a frame that is not ICMP: $(frames "$TMP/a.pcap" | grep -v ICMP | head -n 1)"
	[ "$(frames "$TMP/a.pcap" | grep -c 'echo request')" = 3 ] || fail "not 3 requests"
	grep -q "6 frames captured" "$TMP/cap.err" || fail "no summary: $(cat "$TMP/cap.err")"
	grep -qE "capture on host ended \(count reached\): 6 frames sent, 0 dropped for a slow reader, [1-9][0-9]* refused by the filter" "$TMP/vhostd.log" ||
		fail "vhostd's log does not show the ARP refused by the filter"
	result capture-pcap "$( [ -z "$ERR" ]; echo $?)" "${ERR:-6 ICMP frames of 3 pings, ARP filtered in vhostd, tcpdump reads them}"
}

t_live() {
	ERR=
	ip netns exec "$NS" bash -c "timeout 20 '$VHOSTCTL' --json --ctl '$CTL' capture host -q -c 4 -w - icmp | tcpdump -l -n -r - > '$TMP/live.txt' 2>/dev/null" &
	local p=$!
	wait_captures 1 || fail "capture did not start"
	ip netns exec "$NS" ping -c 2 -i 0.2 -W 1 198.18.9.2 >/dev/null
	wait "$p" || fail "pipeline exit $?"
	[ "$(grep -c ICMP "$TMP/live.txt")" = 4 ] || fail "tcpdump -r - printed: $(cat "$TMP/live.txt")"
	result capture-live "$( [ -z "$ERR" ]; echo $?)" "${ERR:-vhostctl capture -w - | tcpdump -r -: 4 ICMP frames}"
}

t_dir() {
	ERR=
	cap_bg host -q -d tx -c 3 -w "$TMP/d.pcap" icmp || fail "capture did not start"
	ip netns exec "$NS" ping -c 3 -i 0.2 -W 1 198.18.9.2 >/dev/null
	wait "$CAP_PID" || fail "vhostctl capture exit $?"
	[ "$(frames "$TMP/d.pcap" | grep -c 'echo reply')" = 3 ] || fail "want 3 replies: $(frames "$TMP/d.pcap")"
	frames "$TMP/d.pcap" | grep -q 'echo request' && fail "a request in a tx capture"
	result capture-dir "$( [ -z "$ERR" ]; echo $?)" "${ERR:--d tx: the 3 echo replies only}"
}

# pcapng_check FILE: "frames comments inbound bigcap isb" of a pcapng file
pcapng_check() {
	python3 - "$1" <<'EOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
o = frames = comments = inbound = big = isb = 0
while o + 8 <= len(d):
    t, l = struct.unpack_from('<II', d, o)
    if l < 12 or o + l > len(d):
        break
    if t == 6:
        frames += 1
        cl = struct.unpack_from('<I', d, o + 20)[0]
        big += cl > 128
        p = o + 28 + ((cl + 3) & ~3)
        while p + 4 <= o + l - 4:
            c, n = struct.unpack_from('<HH', d, p)
            if c == 0:
                break
            v = d[p + 4:p + 4 + n]
            if c == 1 and b'gso=tcpv4 gso_size=' in v:
                comments += 1
            if c == 2 and struct.unpack('<I', v)[0] & 3 == 1:
                inbound += 1
            p += 4 + ((n + 3) & ~3)
    if t == 5:
        isb += 1
    o += l
print(frames, comments, inbound, big, isb)
EOF
}

t_pcapng() {
	local r
	ERR=
	ip netns exec "$NB" iperf3 -s -1 -D --logfile "$TMP/iperf.s" || fail "iperf3 -s"
	sleep 0.3
	cap_bg host -q --pcapng -d rx -s 128 -c 50 -w "$TMP/b.pcapng" tcp || fail "capture did not start"
	ip netns exec "$NS" timeout 20 iperf3 -c 198.18.9.2 -t 2 >"$TMP/iperf.c" 2>&1 || fail "iperf3: $(tail -n 2 "$TMP/iperf.c")"
	timeout 10 tail --pid="$CAP_PID" -f /dev/null
	wait "$CAP_PID" || fail "vhostctl capture exit $?"
	read -r -a r < <(pcapng_check "$TMP/b.pcapng")
	[ "${r[0]}" = 50 ] || fail "${r[0]} frames, want 50"
	[ "${r[2]}" = 50 ] || fail "${r[2]} inbound, want 50"
	[ "${r[3]}" = 0 ] || fail "${r[3]} frames kept over 128 bytes"
	[ "${r[1]}" -ge 1 ] || fail "no frame with gso=tcpv4 metadata"
	[ "${r[4]}" = 1 ] || fail "no statistics block at the end"
	frames "$TMP/b.pcapng" | grep -q "198.18.9.1.* > 198.18.9.2.5201" || fail "tcpdump cannot read it"
	result capture-pcapng "$( [ -z "$ERR" ]; echo $?)" "${ERR:-50 inbound frames cut to 128 B, ${r[1]} with TSO metadata, statistics block}"
}

t_slow() {
	local d
	ERR=
	# A reader that takes nothing for 8 s: vhostd's socket buffer, then
	# the 128 KiB rings fill.
	mkfifo "$TMP/slow"
	{ sleep 8; head -c 100000 >/dev/null; } <"$TMP/slow" &
	local rd=$!
	cap_bg host -q -B 128K -w "$TMP/slow" || fail "capture did not start"
	ip netns exec "$NS" timeout 20 ping -f -c 5000 -s 1400 198.18.9.2 >"$TMP/flood" 2>&1 ||
		fail "flood ping through a port under a stalled capture: $(tail -n 2 "$TMP/flood")"
	d=$(vc captures | jq '.[0].dropped')
	[[ $d =~ ^[0-9]+$ ]] && [ "$d" -gt 0 ] || fail "dropped=$d, want > 0"
	# The reader takes 100 kB and leaves: vhostctl's next write fails
	# (EPIPE), it exits 0, and vhostd sees it hang up.
	wait "$rd" 2>/dev/null
	timeout 10 tail --pid="$CAP_PID" -f /dev/null || fail "vhostctl did not end with its reader"
	wait "$CAP_PID" || fail "vhostctl capture exit $?"
	wait_captures 0 || { sleep 3; wait_captures 0; } || fail "capture still running after its reader went"
	local rate
	rate=$(grep -o '[0-9]* received, [0-9.]*% packet loss' "$TMP/flood")
	result capture-slow "$( [ -z "$ERR" ]; echo $?)" "${ERR:-stalled reader: $d copies dropped and counted; flood ping through the port: $rate}"
}

t_portdel() {
	local r
	ERR=
	vc port add "vhost-user,path=$TMP/extra.sock,name=extra" >/dev/null || fail "port add"
	cap_bg extra -q --pcapng -w "$TMP/e.pcapng" || fail "capture did not start"
	vc port del extra >/dev/null || fail "port del"
	timeout 10 tail --pid="$CAP_PID" -f /dev/null || fail "capture did not end with its port"
	wait "$CAP_PID" || fail "vhostctl capture exit $?"
	read -r -a r < <(pcapng_check "$TMP/e.pcapng")
	[ "${r[4]}" = 1 ] || fail "no statistics block"
	wait_captures 0 || fail "a capture left running"
	grep -q "capture on extra ended (port removed)" "$TMP/vhostd.log" || fail "no log line"
	result capture-portdel "$( [ -z "$ERR" ]; echo $?)" "${ERR:-capture ended with its port, statistics block written}"
}

t_hangup() {
	ERR=
	cap_bg host -q -w "$TMP/h.pcap" || fail "capture did not start"
	kill -KILL "$CAP_PID"
	wait "$CAP_PID" 2>/dev/null
	wait_captures 0 || fail "session of a killed client still there"
	result capture-hangup "$( [ -z "$ERR" ]; echo $?)" "${ERR:-the session of a killed client ended}"
}

# raw LINE [HEX]: send LINE (and bytes) on the ctl socket, print the reply
raw() {
	ip netns exec "$NS" python3 - "$CTL" "$1" "${2:-}" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(sys.argv[2].encode() + b'\n' + bytes.fromhex(sys.argv[3]))
r = b''
while not r.endswith(b'\n'):
    b = s.recv(4096)
    if not b:
        break
    r += b
print(r.decode(errors='replace').split('\n')[0])
EOF
}

t_errors() {
	local out rc i pids=()
	ERR=
	out=$(vc capture nosuch -w /dev/null 2>&1); rc=$?
	[ $rc = 1 ] && [[ $out == *"no port named 'nosuch'"* ]] || fail "unknown port: rc $rc: $out"
	out=$(vc capture host -w /dev/null tcp port 2>&1); rc=$?
	[ $rc = 2 ] && [[ $out == *"filter 'tcp port'"* ]] || fail "bad filter: rc $rc: $out"
	out=$(vc capture host -c 0 -w /dev/null 2>&1); rc=$?
	[ $rc = 2 ] || fail "-c 0: rc $rc"
	out=$(raw "capture host,bogus=1")
	[[ $out == *"unknown key 'bogus'"* ]] || fail "bad key: $out"
	out=$(raw "capture host,snaplen=0")
	[[ $out == *"bad snaplen=0"* ]] || fail "snaplen=0: $out"
	# Two instructions: a load from scratch slot 99, a return.
	out=$(raw "capture host,filter=2" "600000006300000006000000ffff0000")
	[[ $out == *"not a valid BPF program"* ]] || fail "invalid BPF: $out"
	out=$(raw "capture host,filter=3" "0600000000000000")
	[[ $out == *"not received"* ]] || fail "short filter: $out"
	for i in 1 2 3 4; do
		cap_bg host -q -w /dev/null || fail "capture $i did not start"
		pids+=("$CAP_PID")
	done
	out=$(vc capture host -w /dev/null 2>&1); rc=$?
	[ $rc = 1 ] && [[ $out == *"4 captures run already"* ]] || fail "fifth capture: rc $rc: $out"
	kill "${pids[@]}" 2>/dev/null
	wait "${pids[@]}" 2>/dev/null
	wait_captures 0 || fail "captures left"
	kill -0 "$VPID" || fail "vhostd died"
	vc ports >/dev/null || fail "ctl not answering"
	result capture-errors "$( [ -z "$ERR" ]; echo $?)" "${ERR:-7 bad requests refused with one line each; a fifth capture refused}"
}

ALL=(capture-pcap capture-live capture-dir capture-pcapng capture-slow capture-portdel capture-hangup capture-errors)
if ! setup; then
	for t in "${ALL[@]}"; do
		wanted "$t" && result "$t" 1 "set-up failed: ${ERR:-see the vhostd log}"
	done
	it_summary
	exit
fi
wanted capture-pcap && t_pcap
wanted capture-live && t_live
wanted capture-dir && t_dir
wanted capture-pcapng && t_pcapng
wanted capture-slow && t_slow
wanted capture-portdel && t_portdel
wanted capture-hangup && t_hangup
wanted capture-errors && t_errors
stop_vhostd || result capture-exit 1 "vhostd did not stop cleanly"
it_summary
