#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/datapath.sh - fairness and idle behaviour of the workers
#
#   fairness (one worker, so the flood and the pings share it): C's 50
#   pings must all be answered (each within 3 s: starvation, not latency,
#   is what this asserts; bench/ measures latency) while A's flood runs.
#
#     A (p0) ==== flood, 64 B frames ====> B (p1, draining)
#     C (p2) ---- ICMP echo, 50 x ------> D (p3, responder 198.18.0.4)
#               vhostd --workers 1 --port vhost-user x4
#
#   idle: vhostd with two connected but silent guests, polling off, and
#   with a 20 ms polling window after a burst: CPU time over 3 s of
#   silence must be ~0 (it must go back to sleep); the same with the
#   default --poll-us auto.
#
#   poll-contend: --poll-us auto backs off when its worker's CPU is
#   wanted: the worker pinned beside a busy loop, back-to-back pings;
#   backoffs must show in "vhostctl workers";
#   without the loop, most replies must be found by a poll.
#
#   tx-irq: tx-irq-us= holds a guest's TX-completion interrupts back: a
#   slow driver that asks for one after every frame (Linux's napi-tx)
#   gets at most one per 2 ms or 32 frames, where without the key it gets
#   one per frame; a driver that waits for each (a few frames in flight)
#   still gets every one.
#
#   BUILD=dir (default build): where vhostd, vhostctl, tests/vdrv_tool are;
#   test-name globs as arguments select tests.
#   Prints one line per test and "N passed, M failed, K skipped"; exit 1
#   on failure.
set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-dp.XXXXXX)
NS=vhdp$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
TOOL=$BUILD/tests/vdrv_tool

[ -x "$TOOL" ] || { echo "missing $TOOL"; exit 2; }

# cpu_ticks PID: user+system clock ticks of every thread of PID
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}

# ---- fairness --------------------------------------------------------------
ERR=
start_vhostd -- 4 --workers 1 || ERR="vhostd did not start"
"$TOOL" recv --sock "$TMP/p1.sock" --mac 02:00:00:00:0d:02 --announce \
	--count 100000000 --expect 0 --timeout-ms 30000 >"$TMP/b.out" 2>&1 &
BPID=$!; BGPIDS+=("$BPID")
"$TOOL" responder --sock "$TMP/p3.sock" --mac 02:00:00:00:0d:04 \
	--ip 198.18.0.4 --seconds 40 >"$TMP/d.out" 2>&1 &
DPID=$!; BGPIDS+=("$DPID")
wait_up 10 vu1 && wait_up 10 vu3
"$TOOL" send --sock "$TMP/p0.sock" --mac 02:00:00:00:0d:01 \
	--dst 02:00:00:00:0d:02 --len 64 --count 100000000 \
	>"$TMP/a.out" 2>&1 &
APID=$!; BGPIDS+=("$APID")
# The flood is on once it has moved a first 10000 frames.
wait_ctr 20 vu0 .rx_packets -ge 10000
flood0=$(ctr vu0 .rx_packets)
out=$("$TOOL" pinger --sock "$TMP/p2.sock" --mac 02:00:00:00:0d:03 \
	--ip 198.18.0.3 --peer-ip 198.18.0.4 --count 50 --interval-ms 20 \
	--timeout-ms 3000 2>&1) || ERR="${ERR:+$ERR; }pinger: $out"
flood1=$(ctr vu0 .rx_packets)
kill -0 "$APID" 2>/dev/null || ERR="${ERR:+$ERR; }the flood ended early: $(cat "$TMP/a.out")"
# The flood must really have been on while the pings went through.
[ $((flood1 - flood0)) -ge 20000 ] ||
	ERR="${ERR:+$ERR; }flood moved only $((flood1 - flood0)) frames during the pings"
[ "$(ctr vu2 '.drops | add')" = 0 ] || ERR="${ERR:+$ERR; }drops on C"
# Stopped by SIGTERM, each guest still closes cleanly: its device kept
# the virtio rules and B got no corrupt frame.
kill "$APID" "$BPID" "$DPID" 2>/dev/null
for g in "A $APID a" "B $BPID b" "D $DPID d"; do
	read -r gname gpid gout <<<"$g"
	wait_exit "$gpid" 20 ||
		ERR="${ERR:+$ERR; }$gname: $(tail -n 2 "$TMP/$gout.out")"
done
BGPIDS=()
stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
result fairness "$([ -z "$ERR" ] && echo 0 || echo 1)" \
	"${ERR:-$out; flood $((flood1 - flood0)) frames meanwhile}"

# ---- idle CPU --------------------------------------------------------------
HZ=$(getconf CLK_TCK)
# 0: sleep at once; 20000: a fixed 20 ms window; auto: the default, whose
# windows never exceed 256 us, so a second after the traffic it sleeps.
for mode in 0 20000 auto; do
	ERR=
	start_vhostd -- 2 --poll-us "$mode" || ERR="vhostd did not start"
	"$TOOL" responder --sock "$TMP/p1.sock" --mac 02:00:00:00:0e:02 \
		--ip 198.18.0.6 --seconds 20 >"$TMP/r.out" 2>&1 &
	RPID=$!; BGPIDS+=("$RPID")
	wait_up 10 vu1
	# Traffic first, so the polling window is entered; then silence.
	out=$("$TOOL" pinger --sock "$TMP/p0.sock" --mac 02:00:00:00:0e:01 \
		--ip 198.18.0.5 --peer-ip 198.18.0.6 --count 5 \
		--interval-ms 10 2>&1) || ERR="pinger: $out"
	# The pinger closed its port; keep one guest connected and idle.
	sleep 1
	t0=$(cpu_ticks "$VPID")
	sleep 3
	t1=$(cpu_ticks "$VPID")
	pct=$(( (t1 - t0) * 100 / (3 * HZ) ))
	[ "$pct" -le 2 ] || ERR="${ERR:+$ERR; }$pct% of a core while idle"
	kill "$RPID"
	wait "$RPID" || ERR="${ERR:+$ERR; }responder: $(cat "$TMP/r.out")"
	BGPIDS=()
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result "idle-cpu-poll-$mode" "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$((t1 - t0)) ticks in 3 s idle ($pct% of a core)}"
done

# ---- tx-irq ----------------------------------------------------------------
# A slow guest (two frames every 100 us and more) asks for an interrupt
# after each frame (--want-calls): with tx-irq-us=2000 it gets at most one
# per 2 ms of the send or per 32 frames, plus the first and the one its
# close flushes; without the key about one per pair.  Then a guest that keeps
# at most 4 frames in flight (--window 4, a full socket buffer) waits for
# each held interrupt: it must come (5 s per wait, a failure), at the
# same rate.  B, without the key, only receives.
if wanted tx-irq; then
	ERR=
	start_vhostd -- 0 \
		--port "vhost-user,path=$TMP/p0.sock,name=vu0,tx-irq-us=2000" \
		--port "vhost-user,path=$TMP/p1.sock,name=vu1" &&
		wait_for "$TMP/p0.sock" && wait_for "$TMP/p1.sock" ||
		ERR="vhostd did not start"
	"$TOOL" recv --sock "$TMP/p1.sock" --mac 02:00:00:00:0f:02 --announce \
		--count 100000000 --expect 0 --timeout-ms 60000 \
		>"$TMP/b.out" 2>&1 &
	BPID=$!; BGPIDS+=("$BPID")
	wait_up 10 vu1
	said=
	irqs0=0
	for how in "--want-calls --gap-us 100 --gap-every 2:2000" "--window 4:400"; do
		n=${how#*:}
		t0=$(date +%s%N)
		# shellcheck disable=SC2086 # the options split on purpose
		out=$("$TOOL" send --sock "$TMP/p0.sock" \
			--mac 02:00:00:00:0f:01 --dst 02:00:00:00:0f:02 \
			--len 64 --count "$n" --queue-size 1024 ${how%:*} \
			--timeout-ms 5000 2>&1) ||
			ERR="${ERR:+$ERR; }send ${how%:*}: $out"
		t1=$(date +%s%N)
		ms=$(( (t1 - t0) / 1000000 ))
		irqs=$(ctr vu0 .irqs)
		[[ $irqs =~ ^[0-9]+$ ]] || { ERR="${ERR:+$ERR; }no irqs"; break; }
		most=$(( ms / 2 + n / 32 + 3 ))
		[ $((irqs - irqs0)) -le "$most" ] ||
			ERR="${ERR:+$ERR; }${how%:*}: $((irqs - irqs0)) interrupts for $n frames in $ms ms, want <= $most"
		said="${said:+$said, }${how%:*}: $((irqs - irqs0)) for $n frames in $ms ms"
		irqs0=$irqs
	done
	held=$(ctr vu0 .irqs_held)
	[[ $held =~ ^[0-9]+$ ]] && [ "$held" -ge 1 ] ||
		ERR="${ERR:+$ERR; }irqs_held ${held:-none}, want some"
	kill "$BPID" 2>/dev/null
	wait "$BPID" 2>/dev/null
	BGPIDS=()
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result tx-irq "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-interrupts $said ($held held)}"
fi

# ---- poll-contend ----------------------------------------------------------
# --poll-us auto gives a CPU back when someone else needs it: the worker
# pinned to one CPU (--cpus) beside a busy loop pinned there too, while
# back-to-back pings keep its queues polled between frames.  The loop
# waits for the worker's CPU (CPU pressure) and the worker loses polling
# time to it: it must back off (vhostctl workers: backoffs), and every
# ping must still be answered.  The same
# without the loop is shown for comparison, not asserted (a loaded CI
# host may preempt the worker too).
if wanted poll-contend; then
	for hog in 0 1; do
		ERR=
		start_vhostd -- 2 --cpus 0 || ERR="vhostd did not start"
		"$TOOL" responder --sock "$TMP/p1.sock" --mac 02:00:00:00:0e:12 \
			--ip 198.18.0.8 --seconds 30 >"$TMP/r.out" 2>&1 &
		RPID=$!; BGPIDS+=("$RPID")
		wait_up 10 vu1
		HPID=
		if [ "$hog" = 1 ]; then
			taskset -c 0 sh -c 'while :; do :; done' &
			HPID=$!; BGPIDS+=("$HPID")
		fi
		out=$(taskset -c 1 "$TOOL" pinger --sock "$TMP/p0.sock" \
			--mac 02:00:00:00:0e:11 --ip 198.18.0.7 \
			--peer-ip 198.18.0.8 --count 4000 --interval-ms 0 \
			--timeout-ms 5000 2>&1) || ERR="pinger: $out"
		w=$("$VHOSTCTL" --json --ctl "$TMP/ctl" workers) ||
			ERR="${ERR:+$ERR; }workers: rc $?"
		hits=$("$VHOSTCTL" --json --ctl "$TMP/ctl" show vu1 |
			jq -r '.port.sources[0].poll.hits')
		backoffs=$(jq -r '.workers[0].backoffs' <<<"$w")
		lost=$(jq -r '.workers[0].lost_ns / 1e6 | floor' <<<"$w")
		polled=$(jq -r '.workers[0].poll_ns / 1e6 | floor' <<<"$w")
		[ -n "$HPID" ] && { kill "$HPID"; wait "$HPID" 2>/dev/null; }
		kill "$RPID"
		wait "$RPID" || ERR="${ERR:+$ERR; }responder: $(cat "$TMP/r.out")"
		BGPIDS=()
		stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
		if [ "$hog" = 1 ]; then
			[ "${backoffs:-0}" -ge 1 ] ||
				ERR="${ERR:+$ERR; }no backoff beside the loop: backoffs $backoffs, lost $lost ms of $polled ms polled"
			result poll-contend "$([ -z "$ERR" ] && echo 0 || echo 1)" \
				"${ERR:-beside a busy loop: $backoffs backoffs, $lost ms lost of $polled ms polled (alone: $alone)}"
		else
			alone="$backoffs backoffs, $lost ms lost of $polled ms polled, $hits replies found by a poll"
			# Alone, the replies' queue is polled between them: most
			# of its dry spells end in a poll, not a kick.
			[ "${hits:-0}" -ge 400 ] ||
				ERR="${ERR:+$ERR; }alone: only ${hits:-none} of 4000 replies found by a poll"
			[ -z "$ERR" ] || { result poll-contend 1 "alone: $ERR"; break; }
		fi
	done
fi

it_summary
