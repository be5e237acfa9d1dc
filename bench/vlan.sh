#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# vlan.sh - what a trunk's tag costs: access and trunk ports side by side
#
#   bench/vlan.sh ROUNDS SIZE [VHOSTD]
#
# Each round runs four configurations of the same vhostd (default
# BUILD/vhostd), in turn, as bench/ab.sh runs builds: vhostd on CPU 1 with
# --poll-us 50 and two vhost-user ports, vbench tput (CPU 0) for 2 s of
# SIZE-byte frames A -> B ("tso": 64 KiB TCP frames):
#   access  A vlan=10,          B vlan=10            (no tag anywhere)
#   pop     A trunk=10 (tagged), B vlan=10           (tag taken off)
#   push    A vlan=10,          B trunk=10 (tagged)  (tag put on)
#   trunk   A trunk=10 (tagged), B trunk=10 (tagged) (a new tag from the
#                                                     switch's copy)
# vbench's guests send and want the tags (--vlan-a, --vlan-b), so every
# frame B counts was checked with its tag.  One line per run, then per
# configuration the median of its per-round ratios to "access" (the
# machine is noisy: a ratio within a round is what compares).
# Unix sockets only.
set -u
[ $# -ge 2 ] || { sed -n 3,21p "$0"; exit 2; }
ROUNDS=$1 SIZE=$2
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
BUILD=${BUILD:-build-bench}
V=${3:-$BUILD/vhostd}
VBENCH=$BUILD/bench/vbench
[ -x "$VBENCH" ] && [ -x "$V" ] ||
	{ echo "vlan.sh: no $VBENCH or $V (make O=$BUILD $VBENCH $V)"; exit 2; }
T=$(mktemp -d /tmp/vhostd-vlanb.XXXXXX)
P=
trap 'bench_stop "$P" 10; rm -rf "$T"' EXIT

declare -A A_SPEC=([access]=vlan=10 [pop]=trunk=10 [push]=vlan=10 [trunk]=trunk=10)
declare -A B_SPEC=([access]=vlan=10 [pop]=vlan=10 [push]=trunk=10 [trunk]=trunk=10)
declare -A VB_ARGS=([access]="" [pop]="--vlan-a 10" [push]="--vlan-b 10"
	[trunk]="--vlan-a 10 --vlan-b 10")
CONFS=(access pop push trunk)

for r in $(seq "$ROUNDS"); do
	for c in "${CONFS[@]}"; do
		rm -f "$T/A.sock" "$T/B.sock"
		taskset -c 1 "$V" --poll-us 50 \
			--port "vhost-user,path=$T/A.sock,${A_SPEC[$c]}" \
			--port "vhost-user,path=$T/B.sock,${B_SPEC[$c]}" \
			>"$T/log" 2>&1 &
		P=$!
		bench_wait_socks "$P" "$T/log" "$c" "$T/A.sock" "$T/B.sock" ||
			exit 1
		# shellcheck disable=SC2086 # the arguments are words
		mpps=$(taskset -c 0 "$VBENCH" tput --a "$T/A.sock" --b "$T/B.sock" \
			--size "$SIZE" --seconds 2 --warmup-ms 300 --fwd-pid "$P" \
			${VB_ARGS[$c]} 2>"$T/err" | grep -o 'mpps=[0-9.]*' | head -n 1)
		bench_stop "$P" 20
		P=
		[ -n "$mpps" ] || { echo "vlan.sh: $c: no result: $(tail -n 3 "$T/err")" >&2; }
		echo "$r $c $SIZE ${mpps#mpps=}"
	done
done | tee "$T/out"
awk '$4 != "" { m[$1, $2] = $4; seen[$2] = 1 }
     END {
	n = split("access pop push trunk", c, " ")
	for (i = 2; i <= n; i++) {
		k = 0
		for (key in m) {
			split(key, p, SUBSEP)
			if (p[2] != c[i] || !((p[1], "access") in m) || m[p[1], "access"] == 0)
				continue
			x[++k] = m[key] / m[p[1], "access"]
		}
		if (!k) { printf "%s: no rounds\n", c[i]; continue }
		for (a = 1; a <= k; a++)
			for (b = a + 1; b <= k; b++)
				if (x[b] < x[a]) { t = x[a]; x[a] = x[b]; x[b] = t }
		med = k % 2 ? x[(k + 1) / 2] : (x[k / 2] + x[k / 2 + 1]) / 2
		printf "%s/access: median %.3f of %d rounds (min %.3f, max %.3f)\n", c[i], med, k, x[1], x[k]
		delete x
	}
     }' "$T/out"
