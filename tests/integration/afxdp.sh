#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/afxdp.sh - the afxdp port type on a veth pair whose
# peer lives in a namespace with the kernel's stack
#
#   ns A: vhostd, a TAP port tk (198.19.3.1, 2001:2:0:3::1: A's kernel
#         as the "guest") and an afxdp port on veth xa
#   ns B: xb, the other end of the veth (198.19.3.2, 2001:2:0:3::2)
#
#   afxdp-generic   mode=generic: XDP attached as xdpgeneric while vhostd
#                   runs; ARP and ping, IPv6 ND and ping6, iperf3 A -> B
#                   and B -> A, 4 MiB each way byte for byte (sha256);
#                   after a clean exit no XDP program on xa
#                   tso=on: A's TSO frames went to xa whole (tso_kernel)
#   afxdp-native    the same in mode=native (veth's driver XDP), tso=
#                   unset: auto, which on a veth is off (tso_kernel 0)
#   afxdp-tso-off   the same in generic mode with tso=off: every frame
#                   through AF_XDP, TSO frames cut in software
#   afxdp-mq        queues=2 on a 2-queue veth: two sockets, per-queue
#                   counters, ping
#   afxdp-crash     vhostd killed with SIGKILL: the program is gone from
#                   xa all the same (it hangs on a bpf_link)
#   afxdp-errors    one line and a non-zero exit for: mode=native on a
#                   bridge (no driver XDP), zerocopy=on on a veth,
#                   queues=2 on a 1-queue veth, no such interface, a bad
#                   mode= or tso=; ctl "port add afxdp" refused at run time
#
# B's veth has TX checksumming off: its TCP frames would otherwise reach
# XDP with the checksum still to be done (CHECKSUM_PARTIAL, which a veth
# keeps), and leave through the TAP unfinished (doc/ports.md).
#
# Usage: tests/integration/afxdp.sh [NAME-GLOB...]  (BUILD=dir; VHOSTD_USER
# as lib.sh).  Root.
set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-afxdp.XXXXXX)
NS=axl-$$
FILTER=("$@")
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

NA=axa-$$
NB=axb-$$
MADE=()
ax_cleanup() {
	local n
	for n in "${MADE[@]}"; do
		ip netns del "$n" 2>/dev/null
	done
}
IT_CLEANUP_HOOK=ax_cleanup

ALL=(afxdp-generic afxdp-native afxdp-tso-off afxdp-mq afxdp-crash
     afxdp-errors)
for t in socat iperf3 ethtool; do
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

# topo [QUEUES]: A and B, the veth between them (QUEUES queues each way)
topo() {
	local q=${1:-1} n
	for n in "$NA" "$NB"; do
		ip netns add "$n" || return 1
		MADE+=("$n")
		ip -n "$n" link set lo up
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.accept_dad=0 \
			net.ipv6.conf.default.accept_dad=0
	done
	ip link add xa netns "$NA" numtxqueues "$q" numrxqueues "$q" type veth \
		peer name xb netns "$NB" numtxqueues "$q" numrxqueues "$q" ||
		return 1
	ip -n "$NA" link set xa up
	ip netns exec "$NB" ethtool -K xb tx off >/dev/null || return 1
	ip -n "$NB" addr add 198.19.3.2/24 dev xb
	ip -n "$NB" addr add 2001:2:0:3::2/64 dev xb nodad
	ip -n "$NB" link set xb up
}

untopo() {
	ax_cleanup
	MADE=()
}

# ax_start KEYS: vhostd in A with tk (addressed, up) and xdp0 on xa
ax_start() {
	start_vhostd ip netns exec "$NA" -- 0 \
		--port "tap,ifname=tk,name=tk" \
		--port "afxdp,ifname=xa,name=xdp0$(printf ',%s' "$@")" || return 1
	for _i in $(seq 100); do
		ip -n "$NA" link show tk >/dev/null 2>&1 && break
		sleep 0.05
	done
	ip -n "$NA" addr add 198.19.3.1/24 dev tk &&
	ip -n "$NA" addr add 2001:2:0:3::1/64 dev tk nodad &&
	ip -n "$NA" link set tk up
}

# xdp_on WHAT: whether xa has our program attached as WHAT ("xdpgeneric",
#   "xdp" for native)
xdp_on() {
	ip -n "$NA" -d link show xa 2>/dev/null |
		grep -q "^[0-9]*: xa@.* $1 " &&
	ip -n "$NA" -d link show xa | grep -q 'prog/xdp .*name vhostd_xsk'
}

# xdp_gone: no XDP program on xa
xdp_gone() {
	! ip -n "$NA" -d link show xa 2>/dev/null | grep -q 'prog/xdp'
}

# xfer FROM-NS TO-NS TO-IP: 4 MiB over TCP, sha256 checked
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
		{ ERR="${ERR:+$ERR; }4 MiB $1 -> $3: sha256 differs"; return 1; }
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

ping_ok() {
	ip netns exec "$1" ping -c 3 -i 0.2 -W 2 "$2" >/dev/null 2>&1 ||
		{ ERR="${ERR:+$ERR; }ping $2 from $1 failed"; return 1; }
}

finish() {
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result "$1" "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-$2}"
	ERR=
	untopo
}

# mode_test NAME MODE SHOWN [TSO]: the traffic test in MODE, XDP shown
#   as SHOWN, tso=TSO (default: unset, auto)
mode_test() {
	local up down tso=${4:-auto}
	wanted "$1" || return 0
	ERR=
	if topo && ax_start "mode=$2" ${4:+"tso=$4"}; then
		xdp_on "$3" || ERR="${ERR:+$ERR; }no $3 program on xa while running"
		ping_ok "$NA" 198.19.3.2
		ping_ok "$NB" 198.19.3.1
		ping_ok "$NA" 2001:2:0:3::2
		ip -n "$NA" neigh show 198.19.3.2 | grep -q lladdr ||
			ERR="${ERR:+$ERR; }no ARP entry for B"
		ip -n "$NA" -6 neigh show 2001:2:0:3::2 | grep -q lladdr ||
			ERR="${ERR:+$ERR; }no ND entry for B"
		# Each step only while the ones before held: a broken queue
		# fails the test in one timeout, not in four.
		# (iperf runs in a subshell: its ERR is lost, its number not)
		[ -z "$ERR" ] && { up=$(iperf "$NA" "$NB" 198.19.3.2)
			[[ $up =~ ^[0-9]+$ ]] || ERR="iperf3 A -> B failed"; }
		[ -z "$ERR" ] && { down=$(iperf "$NB" "$NA" 198.19.3.1)
			[[ $down =~ ^[0-9]+$ ]] || ERR="iperf3 B -> A failed"; }
		[ -z "$ERR" ] && xfer "$NA" "$NB" 198.19.3.2
		[ -z "$ERR" ] && xfer "$NB" "$NA" 198.19.3.1
		check_ctr xdp0 .rx_packets -gt 1000
		check_ctr xdp0 .tx_packets -gt 1000
		check_ctr xdp0 .xsk_invalid -eq 0
		# A's iperf3 and socat sent TSO frames through the TAP: whole
		# to xa with tso=on, cut into AF_XDP frames otherwise (auto:
		# xa is a veth).
		if [ "$tso" = on ]; then
			check_ctr xdp0 .tso_kernel -gt 100
		else
			check_ctr xdp0 .tso_kernel -eq 0
		fi
		stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
		VPID=
		xdp_gone || ERR="${ERR:+$ERR; }XDP program left on xa after exit"
	else
		ERR="setup failed: $(tail -n 2 "$TMP/vhostd.log" 2>/dev/null)"
	fi
	result "$1" "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$3 XDP, tso=$tso: ARP, ND, ping, ping6; iperf3 A->B ${up:-?}, B->A ${down:-?} Mbit/s; 4 MiB each way intact; program gone at exit}"
	ERR=
	untopo
}

mode_test afxdp-generic generic xdpgeneric on
mode_test afxdp-native native xdp
mode_test afxdp-tso-off generic xdpgeneric off

# ---- afxdp-mq ---------------------------------------------------------------
if wanted afxdp-mq; then
	ERR=
	if topo 2 && ax_start "queues=2,mode=generic"; then
		ping_ok "$NA" 198.19.3.2
		n=$(ctr xdp0 '.queues | length')
		[ "$n" = 2 ] || ERR="${ERR:+$ERR; }$n queue entries, want 2"
		grep -q 'afxdp on xa, 2 queue(s)' "$TMP/vhostd.log" ||
			ERR="${ERR:+$ERR; }log does not say 2 queues"
	else
		ERR="setup failed: $(tail -n 2 "$TMP/vhostd.log" 2>/dev/null)"
	fi
	finish afxdp-mq "queues=2: two sockets, per-queue counters, ping"
fi

# ---- afxdp-crash ------------------------------------------------------------
if wanted afxdp-crash; then
	ERR=
	if topo && ax_start "mode=generic"; then
		ping_ok "$NA" 198.19.3.2
		xdp_on xdpgeneric || ERR="${ERR:+$ERR; }no program while running"
		kill -KILL "$VPID"
		wait "$VPID" 2>/dev/null
		VPID=
		for _i in $(seq 50); do xdp_gone && break; sleep 0.1; done
		xdp_gone || ERR="${ERR:+$ERR; }XDP program left on xa after SIGKILL"
		# And the stack has the interface back.
		ip -n "$NA" addr add 198.19.3.9/24 dev xa
		ping_ok "$NA" 198.19.3.2
	else
		ERR="setup failed"
	fi
	result afxdp-crash "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-SIGKILL: the bpf_link went with the process, xa back to the stack}"
	ERR=
	untopo
fi

# ---- afxdp-errors -----------------------------------------------------------
if wanted afxdp-errors; then
	ERR=
	if topo; then
		ip -n "$NA" link add d0 type bridge && ip -n "$NA" link set d0 up
		for bad in "afxdp,ifname=d0,mode=native:no native XDP" \
			   "afxdp,ifname=xa,zerocopy=on:" \
			   "afxdp,ifname=xa,queues=2:RX queue" \
			   "afxdp,ifname=nosuch0:no interface" \
			   "afxdp,ifname=xa,mode=fast:auto, native or generic" \
			   "afxdp,ifname=xa,tso=yes:auto, on or off"; do
			spec=${bad%%:*} want=${bad#*:}
			out=$(ip netns exec "$NA" "$VHOSTD" --port "$spec" 2>&1)
			rc=$?
			errs=$(grep -c 'error\|vhostd: --port' <<<"$out")
			[ $rc != 0 ] && [ "$errs" -ge 1 ] && [[ $out == *"$want"* ]] ||
				ERR="${ERR:+$ERR; }'$spec': rc $rc, '$(tr '\n' '|' <<<"$out" | cut -c1-200)'"
			xdp_gone || ERR="${ERR:+$ERR; }'$spec' left a program on xa"
		done
		if start_vhostd ip netns exec "$NA" -- 1; then
			out=$("$VHOSTCTL" --json --ctl "$TMP/ctl" port add "afxdp,ifname=xa" 2>&1)
			rc=$?
			[ $rc = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] ||
				ERR="${ERR:+$ERR; }port add afxdp at run time: rc $rc, '$out'"
		else
			ERR="${ERR:+$ERR; }vhostd did not start"
		fi
	else
		ERR="setup failed"
	fi
	finish afxdp-errors "native on a bridge, zero copy on a veth, too many queues, no interface, bad mode, bad tso: refused, nothing left attached; run-time add refused"
fi

it_summary
