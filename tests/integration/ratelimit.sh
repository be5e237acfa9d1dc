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
#   rate-tx      B tx-rate=50M (drops): A1 unlimited floods B, B gets 50
#                Mbit/s, the rest counted as B's "rate" drops, A1 not held
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

fail() {
	ERR="${ERR:+$ERR; }$*"
}

# vc ARGS...: vhostctl on our control socket; stdout to $TMP/vc.out,
#   stderr to $TMP/vc.err; its exit status
vc() {
	timeout 10 "$VHOSTCTL" --ctl "$TMP/ctl" "$@" >"$TMP/vc.out" 2>"$TMP/vc.err"
}

# port_field NAME JQ: one value of port NAME in "ports"
port_field() {
	timeout 10 "$VHOSTCTL" --ctl "$TMP/ctl" ports |
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
		[ "$(timeout 10 "$VHOSTCTL" --ctl "$TMP/ctl" fdb | jq -r --arg m "$MAC_B" '[.fdb[] | select(.mac == $m)] | length')" = 1 ] && return 0
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
	{
		date +%s%N
		timeout 10 "$VHOSTCTL" --ctl "$TMP/ctl" ports |
			jq -r '.ports[] | "\(.name) \(.rx_bytes) \(.tx_bytes)"'
	} >"$TMP/s$1"
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
	awk -v o="$offered" 'BEGIN { exit !(o > 100) }' ||
		fail "a1 offered only $offered Mbit/s: held back, or too slow to test"
	[ $((r1 - r0)) -gt 0 ] || fail "no rate drops counted on b"
	finish rate-tx "a1 offered $offered Mbit/s, b (tx-rate=50M) got $got; $((r1 - r0)) frames dropped as 'rate' on b"
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
