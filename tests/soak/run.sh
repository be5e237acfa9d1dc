#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/soak/run.sh - vhostd under mixed traffic, a MAC spray, broadcast
# storms and port churn for a while; every payload byte checked, memory
# flat at the end
#
#     T0 (p0) ---+                        +--- T3 (p3)
#     T1 (p1) ---+-- vhostd --workers 2 --+--- S  (p4): random source
#     T2 (p2) ---+                        |         MACs, broadcast storm
#                                         +--- C  (p5): leaves and comes
#                                                   back every 1.5 s
#     T0..T3 send unicast test frames (60..1514 B) to each other and to C
#     (build/tests/soak plays all six guests; tests/integration/soak.c)
#
# Usage: tests/soak/run.sh [SECONDS]   (default $SOAK_SECONDS or 30; CI
#   runs the default, run it for 600 or more on demand)
#   BUILD=dir (default build): where vhostd, vhostctl and tests/soak are.
# Asserts: the soak program's checks (no corrupt, misdelivered or
# reordered frame, every talker pair moved frames, no virtio rule
# broken), vhostd's anonymous RSS at the end within max(4 MiB, 10 %) of it a
# quarter into the run, no violation counted on any port (every guest
# here keeps the rules; the sprayer's frames are legal), vhostd alive and
# exiting 0 on SIGTERM.  Prints one line and "N passed, M failed, K
# skipped".  Unix sockets only.
set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-soak.XXXXXX)
NS=vhsoak$$
FILTER=()
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/../integration/lib.sh"
SOAK=$BUILD/tests/soak
SECS=${1:-${SOAK_SECONDS:-30}}
[ -x "$SOAK" ] || { echo "missing $SOAK (make O=$BUILD first)"; exit 2; }

# rss_kb PID: anonymous resident memory in KiB (heap, stacks: what a leak
#   grows; guest memory is file-backed and comes and goes with guests)
rss_kb() {
	awk '/^RssAnon:/ { print $2 }' "/proc/$1/status"
}

ERR=
start_vhostd -- 6 --workers 2 || ERR="vhostd did not start"
# shellcheck disable=SC2046 # word splitting on purpose
timeout $((SECS + 60)) "$SOAK" "$SECS" $(socks 6) >"$TMP/soak.out" 2>&1 &
SPID=$!
BGPIDS+=("$SPID")
sleep $((SECS / 4 + 1))
rss0=$(rss_kb "$VPID")
wait "$SPID" || ERR="${ERR:+$ERR; }$(grep -m1 FAIL "$TMP/soak.out" || echo "soak exited $?")"
BGPIDS=()
rss1=$(rss_kb "$VPID")
if [[ $rss0 =~ ^[0-9]+$ ]] && [[ $rss1 =~ ^[0-9]+$ ]]; then
	slack=$((rss0 / 10 > 4096 ? rss0 / 10 : 4096))
	[ "$rss1" -le $((rss0 + slack)) ] ||
		ERR="${ERR:+$ERR; }anonymous RSS grew from $rss0 to $rss1 KiB"
else
	ERR="${ERR:+$ERR; }cannot read vhostd's RSS"
fi
for i in 0 1 2 3 4 5; do
	check_ctr "vu$i" .violations -eq 0
done
stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
result soak "$([ -z "$ERR" ] && echo 0 || echo 1)" \
	"${ERR:-${SECS} s: $(tail -n 1 "$TMP/soak.out" | sed 's/^PASS soak: //'); anon RSS $rss0 -> $rss1 KiB}" \
	"$TMP/soak.out"
it_summary
