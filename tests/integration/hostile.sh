#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# hostile.sh - guests that make vhostd work or talk: bounded work per
# chain, per turn and per GSO frame; a rate limit per port on the log
#
#   evil-KIND: E commits KIND once (vdrv_itest evil:KIND), vhostd drops it,
#   A and B go on (KIND: long-chain, huge-indirect, same-head); the
#   packed-evil-KIND runs do the same over packed rings
#
#     A (p0) --+
#     B (p1) --+-- vhostd
#     E (p2) --+
#
#   hostile-KIND: one worker serves five guests; the A<->B round trip is
#   timed while C floods D (baseline) and while E feeds vhostd costly
#   chains (attack): p99 under attack within 2x of the flood's
#
#     A (p0) <-> B (p1)       timed round trips
#     C (p2)  -> D (p3)       an ordinary flood, 1514-byte frames
#     E (p4)                  every TX avail entry: one costly chain
#          all on vhostd --workers 1
#
#   gso-tiny: A sends a 64 KiB TSO frame with gso_size 1 to B (no
#   offloads) and C (every offload): dropped at both, counted in
#   drops.offload, the next frames arrive
#
#   stall: front ends on p2-p4 that would hold a blocking control thread
#   (half a message, a message a byte at a time, replies never read):
#   vhostctl answers within 100 ms throughout, p2 and p4 are dropped, p3
#   served; A and B exchange frames (vdrv_itest stall)
#
#   client-stall: a client port to a socket whose backlog is full (its
#   front end accepts nobody): vhostd starts, vhostctl answers within
#   100 ms, the other ports forward
#
#   log-flood: E reconnects and sends garbage in a loop for a few seconds
#   while B connects twice, cleanly:
#
#     A (p0)                  idle
#     B (p1)                  vdrv_tool info, twice (connect, close)
#     E (p2)                  vdrv_tool evil --kind garbage, in a loop
#
#   vu2's lines in vhostd's log stay within the budget (LOG_SRC_BURST,
#   then one a second) plus "suppressed" summaries; B's are all there.
#
# Usage: tests/integration/hostile.sh [NAME-GLOB...]
#   BUILD=dir   where vhostd, vhostctl and tests/ are (default: build)
# Builds nothing.  One line per test, then "N passed, M failed, K
# skipped"; exit 1 on any failure.  Traffic only over unix sockets.

set -u

TMP=$(mktemp -d /tmp/vhostd-hostile.XXXXXX)
NS=hostile$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
ITEST=$BUILD/tests/vdrv_itest
TOOL=$BUILD/tests/vdrv_tool

for f in "$VHOSTD" "$ITEST" "$TOOL"; do
	[ -x "$f" ] || { echo "missing $f (make O=$BUILD first)"; exit 2; }
done

# Kept in step with src/log.h (LOG_SRC_BURST, one line a second after).
LOG_BURST=10

ITEST_POST=post_checks

# post_checks NAME NPORTS: counter assertions while vhostd still runs
post_checks() {
	local p
	case "$1" in
	evil-*|packed-evil-*)
		check_ctr vu2 '.violations' -ge 1
		check_ctr vu0 '.violations' -eq 0
		check_ctr vu1 '.violations' -eq 0
		;;
	hostile-*|packed-hostile-*)
		# vdrv_itest checked E's count itself (violations or none).
		for p in vu0 vu1 vu2 vu3; do
			check_ctr $p '.violations' -eq 0
		done
		;;
	gso-tiny)
		check_ctr vu1 '.drops.offload' -eq 1
		check_ctr vu2 '.drops.offload' -eq 1
		for p in vu0 vu1 vu2; do
			check_ctr $p '.violations' -eq 0
		done
		;;
	esac
}

for k in long-chain huge-indirect same-head; do
	run_itest "evil-$k" "evil:$k" 3
	run_itest "packed-evil-$k" "packed:evil:$k" 3
done
# The longest legal chains and tables over packed rings cost no more.
for k in max-chain max-indirect; do
	run_itest "packed-hostile-$k" "packed:hostile-$k" 5 --workers 1
done
for k in long-chain huge-indirect same-head max-chain max-indirect \
	 call-block kick-steal; do
	run_itest "hostile-$k" "hostile-$k" 5 --workers 1
done
run_itest gso-tiny gso-tiny 3
run_itest stall stall 5

# ---- client-stall: a client port to a front end that accepts nobody --------

if wanted client-stall; then
	ERR=
	rm -f "$TMP/full.sock"
	"$ITEST" listen-full "$TMP/full.sock" >"$TMP/full.out" 2>&1 &
	LPID=$!
	BGPIDS+=("$LPID")
	for i in $(seq 100); do
		grep -q "backlog full" "$TMP/full.out" 2>/dev/null && break
		sleep 0.05
	done
	grep -q "backlog full" "$TMP/full.out" ||
		ERR="no listener: $(tail -n 1 "$TMP/full.out")"
	# A blocking connect() would hang vhostd's start-up right here.
	if [ -z "$ERR" ] && start_vhostd -- 3 \
		--port "vhost-user,path=$TMP/full.sock,name=vu3,client"; then
		slowest=0
		for i in $(seq 20); do
			t0=${EPOCHREALTIME/./}
			timeout 5 "$VHOSTCTL" --json --ctl "$TMP/ctl" stats >/dev/null ||
				ERR="vhostctl failed"
			ms=$(( (${EPOCHREALTIME/./} - t0) / 1000 ))
			[ "$ms" -gt "$slowest" ] && slowest=$ms
			sleep 0.1	# two of vhostd's reconnect ticks in all
		done
		# vhostctl's own start-up is in each figure: 100 ms is plenty
		[ "$slowest" -le 100 ] ||
			ERR="${ERR:+$ERR; }vhostctl took $slowest ms"
		basic 3
		check_ctr vu3 '.connects' -eq 0
		stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	else
		ERR="${ERR:-vhostd did not start}"
		stop_vhostd
	fi
	kill "$LPID" 2>/dev/null
	wait "$LPID" 2>/dev/null
	result client-stall "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-started and served, the front end of vu3 accepting nobody; slowest of 20 vhostctl runs $slowest ms; basic passed on vu0-vu2}"
fi

# ---- log-flood: one port's misbehaviour costs the log its budget ------------

# now_s: seconds since the epoch, with decimals
now_s() { echo "$EPOCHREALTIME"; }

if wanted log-flood; then
	ERR=
	t0=$(now_s)
	if start_vhostd -- 3; then
		end=$((SECONDS + 4))
		n=0
		b=0
		while [ $SECONDS -lt $end ]; do
			timeout 5 "$TOOL" evil --sock "$TMP/p2.sock" \
				--kind garbage --timeout-ms 200 >/dev/null 2>&1
			n=$((n + 1))
			# B connects twice, 2 s apart, in the thick of it
			if { [ $b = 0 ] && [ $n -ge 5 ]; } ||
			   { [ $b = 1 ] && [ $SECONDS -ge $((b_at + 2)) ]; }; then
				timeout 10 "$TOOL" info --sock "$TMP/p1.sock" \
					>/dev/null 2>&1 || ERR="B: info failed"
				b=$((b + 1))
				b_at=$SECONDS
			fi
		done
		# the tick prints the last summary once a token is back
		sleep 1.2
		stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	else
		ERR="vhostd did not start"
		stop_vhostd
	fi
	t1=$(now_s)
	log=$TMP/vhostd.log
	lines=$(grep -c ': vu2: ' "$log")
	supp=$(grep -c ': vu2: [0-9]* messages\? suppressed$' "$log")
	lost=$(grep -o 'vu2: [0-9]* messages\? suppressed$' "$log" |
		awk '{ s += $2 } END { print s + 0 }')
	# the budget over vhostd's whole life, one more for rounding
	budget=$(awk -v a="$t0" -v b="$t1" -v k=$LOG_BURST \
		'BEGIN { printf "%d", k + (b - a) + 1 }')
	[ "$n" -ge 20 ] || ERR="${ERR:+$ERR; }only $n attacks made"
	[ $((lines - supp)) -le "$budget" ] ||
		ERR="${ERR:+$ERR; }vu2: $((lines - supp)) lines, budget $budget"
	[ "$supp" -ge 1 ] && [ "$lost" -ge 1 ] ||
		ERR="${ERR:+$ERR; }vu2: no 'suppressed' summary"
	[ "$(grep -c 'vu1: vhost-user front end connected' "$log")" = 2 ] &&
		[ "$(grep -c 'vu1: vhost-user front end disconnected' "$log")" = 2 ] ||
		ERR="${ERR:+$ERR; }vu1: a connect or disconnect line is missing"
	grep -q 'vu1: .*suppressed' "$log" &&
		ERR="${ERR:+$ERR; }vu1's lines were suppressed"
	result log-flood "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$n attacks on vu2: $((lines - supp)) lines (budget $budget) + $supp summaries of $lost suppressed; vu1 whole}"
fi

it_summary
