#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/ratelimit.sh - rate limits: rx-rate=, tx-rate=, set
#
#   A1, A2 senders (vdrv_tool send)          B receiver (vdrv_tool recv)
#        |    |                                  |
#        +----+------------ vhostd --------------+
#
# Rates are measured from vhostd's own byte counters, sampled 10 s apart
# while the senders run flat out; each must be within 5 % of its limit.
#
#   rate-rx      A1 rx-rate=100M (back-pressure): A1 -> B at 100 Mbit/s,
#                nothing dropped on A1 (its chains waited in its ring),
#                and vhostd idle while it holds A1 back (CPU time)
#   rate-fair    A1 rx-rate=80M and A2 rx-rate=40M at once, both to B:
#                each gets its own rate
#   rate-tx      B tx-rate=50M: A1 (unlimited) sends to B flat out, B gets
#                50 Mbit/s and A1 is held back to it (its chains wait in
#                its ring), next to nothing dropped; A2 sending to B as
#                well shares the 50 Mbit/s with A1
#   rate-tcp     real TCP through two TAP ports, each in a namespace of
#                its own (vhrt<pid>a, vhrt<pid>b, 198.18.5.0/24): iperf3
#                with rx-rate=100M on the sending side's TAP (vhostd leaves
#                frames in the tun queue) runs at the limit (+-5 %) with
#                nothing dropped anywhere; the same with tx-rate=100M on
#                the receiving TAP: the sending TAP is held back in turn,
#                at the limit (+-5 %), next to nothing dropped
#   rate-set     vhostctl set under traffic: A1's limit changed from 100M
#                to 20M (measured again), lifted (rate jumps), errors
#                refused with one line; "ports" shows the limits
#
# Usage: tests/integration/ratelimit.sh [NAME-GLOB...]  (BUILD=dir,
# default build; VHOSTD_USER=nobody as tests/run.sh runs it).  Unix
# sockets only.

set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-rate.XXXXXX)
NS=vhrt$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
TOOL=$BUILD/tests/vdrv_tool
LEN=1400
WINDOW=10

for f in "$VHOSTD" "$TOOL"; do
	[ -x "$f" ] || { echo "missing $f (make O=$BUILD)"; exit 2; }
done

MAC_A1=02:00:00:00:1c:01
MAC_A2=02:00:00:00:1c:02
MAC_B=02:00:00:00:1c:0b

# port_field NAME JQ: one value of port NAME in "ports"
port_field() {
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" ports |
		jq -r --arg n "$1" ".ports[] | select(.name == \$n) | $2"
}

# start SPEC-A1 SPEC-A2 SPEC-B: vhostd with ports a1, a2, b (extra keys)
start() {
	local args=()
	rm -f "$TMP"/*.sock "$TMP/ctl"
	if [ -n "$VHOSTD_USER" ]; then
		chown "$VHOSTD_USER" "$TMP" || return 1
		args+=(--user "$VHOSTD_USER")
	fi
	"$VHOSTD" --ctl "$TMP/ctl" "${args[@]}" \
		--port "vhost-user,path=$TMP/a1.sock,name=a1$1" \
		--port "vhost-user,path=$TMP/a2.sock,name=a2$2" \
		--port "vhost-user,path=$TMP/b.sock,name=b$3" \
		>"$TMP/vhostd.log" 2>&1 &
	VPID=$!
	wait_for "$TMP/b.sock" && wait_for "$TMP/ctl"
}

# receiver: B takes everything (RPID), until killed
receiver() {
	"$TOOL" recv --sock "$TMP/b.sock" --queue-size 1024 --count 100000000 \
		--timeout-ms 600000 --expect 0 --announce --mac "$MAC_B" \
		>"$TMP/b.out" 2>&1 &
	RPID=$!
	BGPIDS+=("$RPID")
	wait_up 10 b
	# The announcement has taught the switch where B is.
	for _ in $(seq 50); do
		[ "$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" fdb | jq -r --arg m "$MAC_B" '[.fdb[] | select(.mac == $m)] | length')" = 1 ] && return 0
		sleep 0.1
	done
	fail "B's MAC never learned"
}

# sender NAME MAC: flat out to B, until killed (its PID in SPID_NAME)
sender() {
	"$TOOL" send --sock "$TMP/$1.sock" --mac "$2" --dst "$MAC_B" \
		--count 100000000 --len "$LEN" >"$TMP/$1.out" 2>&1 &
	eval "SPID_$1=$!"
	BGPIDS+=("$!")
	wait_up 10 "$1"
}

# sample: every port's rx_bytes and tx_bytes and the time, into $TMP/s<N>
sample() {
	local t0 t1 out
	t0=$(date +%s%N)
	out=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" ports |
		jq -r '.ports[] | "\(.name) \(.rx_bytes) \(.tx_bytes)"')
	t1=$(date +%s%N)
	# The counters were read somewhere in [t0, t1]: under load the
	# call alone can take a tenth of the window, so its midpoint.
	printf '%s\n%s\n' "$(( (t0 + t1) / 2 ))" "$out" >"$TMP/s$1"
}

# mbps N0 N1 NAME rx|tx: that counter's rate between samples, Mbit/s
mbps() {
	local t0 t1 b0 b1 col=2
	[ "$4" = tx ] && col=3
	t0=$(head -1 "$TMP/s$1")
	t1=$(head -1 "$TMP/s$2")
	b0=$(awk -v n="$3" -v c=$col '$1 == n { print $c }' "$TMP/s$1")
	b1=$(awk -v n="$3" -v c=$col '$1 == n { print $c }' "$TMP/s$2")
	awk -v b0="$b0" -v b1="$b1" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.2f", (b1 - b0) * 8 / ((t1 - t0) / 1e9) / 1e6 }'
}

# within GOT WANT PCT: whether GOT is within PCT % of WANT
within() {
	awk -v g="$1" -v w="$2" -v p="$3" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(d <= w * p / 100) }'
}

# cpu_s PID: user + system CPU seconds of a process so far
cpu_s() {
	awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat"
}

# drops NAME: the sum of port NAME's drop counters
drops() {
	port_field "$1" '[.drops[]] | add'
}

# finish NAME DETAIL: stop what we started, vhostd must exit cleanly
finish() {
	local p
	for p in "${BGPIDS[@]}"; do
		kill -TERM "$p" 2>/dev/null
		wait_exit "$p" 10 >/dev/null 2>&1
	done
	BGPIDS=()
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result "$1" "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-$2}"
	ERR=
}

# ---- rate-rx --------------------------------------------------------------
if wanted rate-rx; then
	ERR=
	start ",rx-rate=100M" "" "" || fail "vhostd did not start"
	receiver
	sender a1 "$MAC_A1"
	sleep 1
	sample 0
	c0=$(cpu_s "$VPID")
	sleep "$WINDOW"
	sample 1
	c1=$(cpu_s "$VPID")
	got=$(mbps 0 1 a1 rx)
	within "$got" 100 5 || fail "a1 took $got Mbit/s, limit 100"
	gotb=$(mbps 0 1 b tx)
	within "$gotb" 100 5 || fail "b got $gotb Mbit/s, a1 limited to 100"
	d=$(drops a1)
	[ "$d" = 0 ] || fail "a1 dropped $d frames: not held back"
	cpu=$(awk -v a="$c0" -v b="$c1" -v w="$WINDOW" 'BEGIN { printf "%.0f", (b - a) / w * 100 }')
	[ "$cpu" -le 40 ] || fail "vhostd used $cpu % of a CPU holding a1 back"
	finish rate-rx "a1 (rx-rate=100M) took $got Mbit/s over ${WINDOW} s, b got $gotb; 0 drops on a1; vhostd at $cpu % CPU"
fi

# ---- rate-fair ------------------------------------------------------------
if wanted rate-fair; then
	ERR=
	start ",rx-rate=80M" ",rx-rate=40M" "" || fail "vhostd did not start"
	receiver
	sender a1 "$MAC_A1"
	sender a2 "$MAC_A2"
	sleep 1
	sample 0
	sleep "$WINDOW"
	sample 1
	g1=$(mbps 0 1 a1 rx)
	g2=$(mbps 0 1 a2 rx)
	within "$g1" 80 5 || fail "a1 took $g1 Mbit/s, limit 80"
	within "$g2" 40 5 || fail "a2 took $g2 Mbit/s, limit 40"
	for n in a1 a2; do
		d=$(drops $n)
		[ "$d" = 0 ] || fail "$n dropped $d frames"
	done
	finish rate-fair "at once: a1 (80M) $g1 Mbit/s, a2 (40M) $g2 Mbit/s, 0 drops"
fi

# ---- rate-tx --------------------------------------------------------------
if wanted rate-tx; then
	ERR=
	start "" "" ",tx-rate=50M" || fail "vhostd did not start"
	receiver
	sender a1 "$MAC_A1"
	sleep 1
	sample 0
	r0=$(port_field b .drops.rate)
	sleep "$WINDOW"
	sample 1
	r1=$(port_field b .drops.rate)
	got=$(mbps 0 1 b tx)
	offered=$(mbps 0 1 a1 rx)
	within "$got" 50 5 || fail "b got $got Mbit/s, tx-rate 50"
	within "$offered" 50 5 || fail "a1 sent $offered Mbit/s: not held back to b's 50"
	# What a held source had in flight fits the slack: (next to) none lost.
	frames=$(awk -v m="$got" -v w="$WINDOW" -v l="$LEN" 'BEGIN { printf "%d", m * 1e6 * w / 8 / l }')
	[ $((r1 - r0)) -le $((frames / 100)) ] || fail "$((r1 - r0)) frames dropped as 'rate' of $frames"
	sender a2 "$MAC_A2"
	sleep 1
	sample 2
	sleep "$WINDOW"
	sample 3
	both=$(mbps 2 3 b tx)
	s1=$(mbps 2 3 a1 rx)
	s2=$(mbps 2 3 a2 rx)
	within "$both" 50 5 || fail "two senders: b got $both Mbit/s, tx-rate 50"
	awk -v a="$s1" -v b="$s2" 'BEGIN { exit !(a > 10 && b > 10) }' ||
		fail "two senders: a1 $s1, a2 $s2 Mbit/s: one starved"
	finish rate-tx "b (tx-rate=50M) got $got Mbit/s, a1 held back to $offered, $((r1 - r0)) of $frames frames dropped; a1 + a2: b got $both ($s1 + $s2)"
fi

# ---- rate-tcp -------------------------------------------------------------
NSA=${NS}a NSB=${NS}b
tcp_cleanup() {
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
}
# tcp_run SPEC-T1 SPEC-T2: vhostd in $NSA with TAPs vhrta (t1, stays) and
#   vhrtb (t2, moved to $NSB), iperf3 $NSA -> $NSB for 8 s; writes
#   "MBITS RETRANSMITS" to $TMP/tcp.out (not a subshell: VPID is ours)
tcp_run() {
	local args=()
	tcp_cleanup
	ip netns add "$NSA" && ip netns add "$NSB" || return 1
	rm -f "$TMP/ctl"
	if [ -n "$VHOSTD_USER" ]; then
		chown "$VHOSTD_USER" "$TMP"
		args+=(--user "$VHOSTD_USER")
	fi
	ip netns exec "$NSA" "$VHOSTD" --ctl "$TMP/ctl" "${args[@]}" \
		--port "tap,ifname=vhrta,name=t1$1" \
		--port "tap,ifname=vhrtb,name=t2$2" >"$TMP/vhostd.log" 2>&1 &
	VPID=$!
	wait_for "$TMP/ctl" || return 1
	ip netns exec "$NSA" ip link set vhrtb netns "$NSB" &&
	ip netns exec "$NSA" ip addr add 198.18.5.1/24 dev vhrta &&
	ip netns exec "$NSA" ip link set vhrta up &&
	ip netns exec "$NSB" ip addr add 198.18.5.2/24 dev vhrtb &&
	ip netns exec "$NSB" ip link set vhrtb up || return 1
	ip netns exec "$NSB" timeout 30 iperf3 -s -1 >/dev/null 2>&1 &
	BGPIDS+=("$!")
	sleep 0.5
	ip netns exec "$NSA" timeout 30 iperf3 -c 198.18.5.2 -t 8 -J 2>/dev/null |
		jq -r '"\(.end.sum_received.bits_per_second / 1e6) \(.end.sum_sent.retransmits)"' \
		>"$TMP/tcp.out"
}
if wanted rate-tcp; then
	ERR=
	IT_CLEANUP_HOOK=tcp_cleanup
	if ! ip netns add "$NSA" 2>/dev/null; then
		skip rate-tcp "no network namespaces (not root?)"
	else
		tcp_run ",rx-rate=100M" "" || fail "set-up failed"
		read -r bp rp <"$TMP/tcp.out"
		dq=$(ip netns exec "$NSA" cat /sys/class/net/vhrta/statistics/tx_dropped 2>/dev/null)
		d1=$(drops t1) d2=$(port_field t2 .drops.rate)
		within "${bp:-0}" 100 5 || fail "rx-rate=100M: iperf3 ${bp:-none} Mbit/s"
		[ "$d1" = 0 ] && [ "$d2" = 0 ] || fail "vhostd dropped: t1 $d1, t2 (rate) $d2"
		[ "${dq:-x}" = 0 ] || fail "the kernel dropped ${dq:-?} frames at the TAP"
		stop_vhostd TERM || fail "vhostd exited uncleanly: $(tail -2 "$TMP/vhostd.log")"
		tcp_run "" ",tx-rate=100M" || fail "set-up failed"
		read -r bd rd <"$TMP/tcp.out"
		dr=$(port_field t2 .drops.rate)
		within "${bd:-0}" 100 5 || fail "tx-rate=100M: iperf3 ${bd:-none} Mbit/s"
		finish rate-tcp "iperf3 through two TAPs: rx-rate=100M (held back) $(printf '%.1f' "$bp") Mbit/s, $rp retransmits, nothing dropped; tx-rate=100M (its senders held back) $(printf '%.1f' "${bd:-0}") Mbit/s, $rd retransmits, ${dr:-?} frames dropped"
		tcp_cleanup
	fi
	IT_CLEANUP_HOOK=
fi

# ---- rate-set -------------------------------------------------------------
if wanted rate-set; then
	ERR=
	MSGS=()
	start ",rx-rate=100M" "" "" || fail "vhostd did not start"
	receiver
	sender a1 "$MAC_A1"
	[ "$(port_field a1 .limits.rx_rate)" = 100000000 ] ||
		fail "ports shows rx_rate $(port_field a1 .limits.rx_rate)"
	vc set a1,rx-rate=20M || fail "set a1,rx-rate=20M: $(cat "$TMP/vc.err")"
	jq -e '.ok' "$TMP/vc.out" >/dev/null || fail "set reply $(cat "$TMP/vc.out")"
	[ "$(port_field a1 .limits.rx_rate)" = 20000000 ] ||
		fail "after set: rx_rate $(port_field a1 .limits.rx_rate)"
	sleep 1
	sample 0
	sleep "$WINDOW"
	sample 1
	got=$(mbps 0 1 a1 rx)
	within "$got" 20 5 || fail "after set rx-rate=20M a1 took $got Mbit/s"
	vc set a1,rx-rate=off || fail "set off: $(cat "$TMP/vc.err")"
	[ "$(port_field a1 .limits.rx_rate)" = 0 ] || fail "lifted: rx_rate $(port_field a1 .limits.rx_rate)"
	sleep 0.5
	sample 2
	sleep 2
	sample 3
	free=$(mbps 2 3 a1 rx)
	awk -v f="$free" 'BEGIN { exit !(f > 60) }' || fail "lifted, a1 took only $free Mbit/s"
	for bad in "zz,rate=1M:no port named 'zz'" "a1,foo=1:unknown key 'foo'" \
		   "a1,rate=1:out of range" "a1,rate=fast:not a rate" \
		   "a1,burst=1K:out of range" "a1:nothing to set" \
		   "a1,rate=1M,rate=2M:given twice" "a1,rx-rate=:needs a value"; do
		vc set "${bad%%:*}"
		rc=$?
		msg=$(jq -r '.error // empty' "$TMP/vc.err" 2>/dev/null)
		if [ $rc != 1 ] || [[ $msg != *"${bad#*:}"* ]]; then
			fail "set ${bad%%:*}: rc $rc, '$(cat "$TMP/vc.err")'"
		fi
		MSGS+=("$msg")
	done
	finish rate-set "100M -> set 20M: a1 took $got Mbit/s; lifted: $free Mbit/s; ${#MSGS[@]} bad sets refused (e.g. '${MSGS[1]:-}')"
fi

it_summary
