#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ab.sh - vhostd builds side by side: one way throughput, rounds alternating
#
#   bench/ab.sh ROUNDS SIZE VHOSTD [VHOSTD...]
#
# Each round runs every VHOSTD binary once, in the order given: started on
# CPU 1 with --poll-us 50 and two vhost-user ports, vbench tput (CPU 0,
# BUILD's, default build-bench) for 2 s of SIZE-byte frames A -> B.  One
# line per run: "round binary size Mpps", then the mean per binary.  For
# before/after questions between two commits (build each with make O=):
# bench/run.sh compares against testpmd, this compares builds directly.
# PACKED=1 has vbench drive packed rings (--packed).  Unix sockets only.
set -u
[ $# -ge 3 ] || { sed -n 3,12p "$0"; exit 2; }
ROUNDS=$1 SIZE=$2
shift 2
BUILD=${BUILD:-build-bench}
VBENCH=$BUILD/bench/vbench
[ -x "$VBENCH" ] || { echo "ab.sh: no $VBENCH (make O=$BUILD $VBENCH)"; exit 2; }
T=$(mktemp -d /tmp/vhostd-ab.XXXXXX)
P=
trap '[ -n "$P" ] && kill "$P" 2>/dev/null; rm -rf "$T"' EXIT
for r in $(seq "$ROUNDS"); do
	for v in "$@"; do
		rm -f "$T/A.sock" "$T/B.sock"
		taskset -c 1 "$v" --poll-us 50 --port "vhost-user,path=$T/A.sock" \
			--port "vhost-user,path=$T/B.sock" >"$T/log" 2>&1 &
		P=$!
		for _ in $(seq 100); do [ -S "$T/B.sock" ] && break; sleep 0.02; done
		mpps=$(taskset -c 0 "$VBENCH" tput --a "$T/A.sock" --b "$T/B.sock" \
			--size "$SIZE" --seconds 2 --warmup-ms 300 --fwd-pid "$P" \
			${PACKED:+--packed} \
			2>/dev/null | grep -o 'mpps=[0-9.]*' | head -n 1)
		kill "$P"
		wait "$P" 2>/dev/null
		P=
		echo "$r $v $SIZE ${mpps#mpps=}"
	done
done | tee "$T/out"
awk '$4 != "" { s[$2] += $4; n[$2]++ }
     END { for (b in s) printf "mean %s %.3f Mpps (%d runs)\n", b, s[b] / n[b], n[b] }' "$T/out"
