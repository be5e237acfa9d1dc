#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tap_ab.sh - two vhostd builds side by side on the TAP -> guest direct path
#
#   bench/tap_ab.sh ROUNDS SECONDS SIZE VHOSTD_A VHOSTD_B      (root)
#
# Each build runs in a netns of its own, at the same time as the other,
# so that both see the same load (on a shared machine the load moves a
# single run by 2-5x; the two runs of a round move together): vhostd
# --workers 1 --poll-us 0 with a TAP port (offload=off) and one
# vhost-user port, vdrv_tool responder as the guest (BUILD's, default
# build), a ping to learn its MAC, the steering map synced, then
# bench/tapflood sends SECONDS of SIZE-byte frames to the guest from the
# TAP's side.  Per round and build: frames the guest got (vu0's
# tx_packets), how many by a direct read, vhostd's user and system CPU
# ticks.  Then per build the sums, ns of vhostd CPU per frame, and the
# ratio B/A of frames delivered and of CPU per frame.  The vhostctl next
# to each VHOSTD reads its counters.  Traffic stays in the two netns
# (198.18.0.0/24 in each).
set -u
[ $# -eq 5 ] || { sed -n 3,19p "$0"; exit 2; }
ROUNDS=$1 SECS=$2 SIZE=$3
BIN=([0]="$4" [1]="$5")
BUILD=${BUILD:-build}
TOOL=$BUILD/tests/vdrv_tool FLOOD=$BUILD/bench/tapflood
GMAC=02:00:00:00:ab:02
for f in "$TOOL" "$FLOOD" "${BIN[0]}" "${BIN[1]}"; do
	[ -x "$f" ] || { echo "tap_ab.sh: no $f"; exit 2; }
done
T=$(mktemp -d /tmp/vhostd-tapab.XXXXXX)
NS=([0]=vhtapa$$ [1]=vhtapb$$)
VP=() RP=()
cleanup() {
	local i
	for i in 0 1; do
		[ -n "${RP[$i]:-}" ] && kill "${RP[$i]}" 2>/dev/null
		[ -n "${VP[$i]:-}" ] && kill "${VP[$i]}" 2>/dev/null
	done
	wait 2>/dev/null
	for i in 0 1; do ip netns del "${NS[$i]}" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
for i in 0 1; do
	ip netns add "${NS[$i]}" && ip -n "${NS[$i]}" link set lo up || exit 1
	mkdir -p "$T/$i"
done

# say LINE: print a result line and keep it for the summary
say() {
	echo "$*"
	echo "$*" >>"$T/out"
}
# ctr I PORT JQ: a counter of build I's vhostd
ctr() {
	"$(dirname "${BIN[$1]}")/vhostctl" --json --ctl "$T/$1/ctl" stats |
		jq -r ".ports[] | select(.name == \"$2\") | $3"
}
# cpu I: "user system" clock ticks of build I's vhostd
cpu() {
	awk '{ print $14, $15 }' "/proc/${VP[$1]}/stat"
}

for r in $(seq "$ROUNDS"); do
	for i in 0 1; do
		rm -f "$T/$i"/*
		ip netns exec "${NS[$i]}" "${BIN[$i]}" --ctl "$T/$i/ctl" \
			--workers 1 --poll-us 0 \
			--port tap,ifname=tapab0,name=tap0,offload=off \
			--port "vhost-user,path=$T/$i/p0.sock,name=vu0" \
			>"$T/$i/log" 2>&1 &
		VP[i]=$!
	done
	for i in 0 1; do
		for _ in $(seq 100); do
			[ -S "$T/$i/p0.sock" ] && [ -S "$T/$i/ctl" ] && break
			sleep 0.05
		done
		ip -n "${NS[$i]}" addr add 198.18.0.1/24 dev tapab0
		ip -n "${NS[$i]}" link set tapab0 up
		"$TOOL" responder --sock "$T/$i/p0.sock" --mac $GMAC \
			--ip 198.18.0.2 --seconds $((SECS + 30)) >/dev/null 2>&1 &
		RP[i]=$!
	done
	for i in 0 1; do
		ip netns exec "${NS[$i]}" ping -q -c 3 -i 0.2 -W 2 198.18.0.2 \
			>/dev/null || echo "round $r: build $i's guest did not answer"
	done
	sleep 2.2	# the next steering sync has the guest's MAC
	declare -A t0 d0 c0
	for i in 0 1; do
		t0[$i]=$(ctr $i vu0 .tx_packets)
		d0[$i]=$(ctr $i tap0 .direct.packets)
		c0[$i]=$(cpu $i)
	done
	# Which flood starts first alternates: neither build always leads.
	ord="0 1"
	[ $((r % 2)) = 0 ] && ord="1 0"
	for i in $ord; do
		ip netns exec "${NS[$i]}" "$FLOOD" tapab0 $GMAC "$SIZE" "$SECS" \
			>"$T/$i/sent" &
	done
	wait %?tapflood 2>/dev/null
	sleep "$SECS"
	sleep 0.3
	for i in 0 1; do
		read -r u0 s0 <<<"${c0[$i]}"
		read -r u1 s1 <<<"$(cpu $i)"
		say "$r $i sent=$(cat "$T/$i/sent") got=$(($(ctr $i vu0 .tx_packets) - t0[$i])) direct=$(($(ctr $i tap0 .direct.packets) - d0[$i])) user=$((u1 - u0)) sys=$((s1 - s0))"
	done
	for i in 0 1; do
		kill "${RP[$i]}" "${VP[$i]}"
		wait "${RP[$i]}" "${VP[$i]}" 2>/dev/null
		RP[i]='' VP[i]=''
		ip -n "${NS[$i]}" link del tapab0 2>/dev/null
	done
done
hz=$(getconf CLK_TCK)
awk -v hz="$hz" '{
	for (f = 3; f <= NF; f++) { split($f, kv, "="); v[$2, kv[1]] += kv[2] }
} END {
	for (i = 0; i <= 1; i++) {
		ns[i] = (v[i, "user"] + v[i, "sys"]) * 1e9 / hz / (v[i, "got"] ? v[i, "got"] : 1)
		printf "build %d: got %d (direct %d), vhostd %.0f ns a frame (user %.0f)\n",
			i, v[i, "got"], v[i, "direct"], ns[i],
			v[i, "user"] * 1e9 / hz / (v[i, "got"] ? v[i, "got"] : 1)
	}
	if (v[0, "got"] && ns[0])
		printf "B/A: frames %.3f, CPU a frame %.3f\n",
			v[1, "got"] / v[0, "got"], ns[1] / ns[0]
}' "$T/out"
