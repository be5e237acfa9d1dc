#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# afxdp.sh - guest to the wire and back through vhostd's afxdp port,
#	     against the same through a TAP port and a kernel bridge
#
#   bench/afxdp.sh [ROUNDS [SECONDS [SIZES]]]     (root; default 3 2 "64 1514 tcp wire")
#
# Two namespaces, each a "host" with a vhostd and one vhost-user port
# (vbench plays a guest on each, A sending, B counting and checking every
# frame), joined by a veth pair (the wire).  Per round and size,
# alternating:
#   afxdp   each vhostd has an afxdp port on its end of the veth (native
#           XDP): guest -> UMEM -> wire -> UMEM -> guest
#   tap     each vhostd has a TAP port bridged with its end of the veth:
#           guest -> TAP -> bridge -> wire -> bridge -> TAP -> guest, what
#           a vhostd user has without the afxdp port
# "tcp" is one iperf3 stream between the two hosts' own stacks over a TAP
# port of each vhostd (standing in for a guest's NIC): 64 KiB TSO frames
# cut for the wire and joined again (afxdp), or kept whole through TAP,
# bridge and veth (tap: the TAP port's frames cross as the kernel's GSO);
# afxdp-tso: both afxdp ports with tso=on, the frames handed to the veth
# whole (the kernel cuts them before the far XDP program).
# "wire" is the same stream from A's stack to B's kernel holding
# 198.19.4.2 on the veth itself, no vhostd in B: guest -> wire, the far
# end a host's stack as behind a NIC.  afxdp then runs with tso=on (its
# TSO frames whole through a packet socket, as auto does on a NIC: on a
# veth auto is off, for the XDP program a far vhostd would run), afxdp-sw
# with tso=off (every segment an AF_XDP frame), tap through a second TAP
# port bridged with the veth.
# One line per run (Mpps B received), then the medians and the ratio
# afxdp/tap per size.  vhostd: BUILD's (default build), vbench:
# BENCH_BUILD's (default build-bench).  Everything stays in the two
# namespaces and is removed at the end (Ctrl-C included).
set -u
ROUNDS=${1:-3}
SECS=${2:-2}
SIZES=${3:-64 1514 tcp wire}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VHOSTD=$BUILD/vhostd
VBENCH=${BENCH_BUILD:-$ROOT/build-bench}/bench/vbench
for f in "$VHOSTD" "$VBENCH"; do
	[ -x "$f" ] || { echo "afxdp.sh: no $f (make; make O=build-bench)"; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "afxdp.sh: needs root (namespaces)"; exit 2; }
T=$(mktemp -d /tmp/vhostd-axb.XXXXXX)
NA=axba-$$
NB=axbb-$$
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	ip netns del "$NA" 2>/dev/null
	ip netns del "$NB" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$NA" && ip netns add "$NB" || exit 1
for n in "$NA" "$NB"; do
	ip -n "$n" link set lo up
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done
ip link add wa netns "$NA" type veth peer name wb netns "$NB" || exit 1
ip -n "$NA" link set wa up
ip -n "$NB" link set wb up

# start_pair MODE: a vhostd per host for MODE (afxdp|tap)
start_pair() {
	local n w i=0
	for n in "$NA" "$NB"; do
		w=wa; [ "$n" = "$NB" ] && w=wb
		rm -f "$T/$i.sock"
		if [ "$1" = afxdp ]; then
			ip netns exec "$n" "$VHOSTD" --poll-us 0 \
				--port "vhost-user,path=$T/$i.sock,name=g" \
				--port "afxdp,ifname=$w,mode=native,name=x" \
				>"$T/log$i" 2>&1 &
		else
			ip -n "$n" link add brk type bridge
			ip -n "$n" link set "$w" master brk
			ip netns exec "$n" "$VHOSTD" --poll-us 0 \
				--port "vhost-user,path=$T/$i.sock,name=g" \
				--port "tap,ifname=tk,name=tk" >"$T/log$i" 2>&1 &
		fi
		PIDS+=("$!")
		i=$((i + 1))
	done
	for i in 0 1; do
		for _ in $(seq 100); do [ -S "$T/$i.sock" ] && break; sleep 0.05; done
	done
	if [ "$1" = tap ]; then
		for n in "$NA" "$NB"; do
			for _ in $(seq 100); do
				ip -n "$n" link show tk >/dev/null 2>&1 && break
				sleep 0.05
			done
			ip -n "$n" link set tk master brk
			ip -n "$n" link set tk up
			ip -n "$n" link set brk up
		done
	fi
}

# start_tcp MODE: the hosts' stacks on 198.19.4.1 and .2 over MODE: a TAP
#   port "tk" of each vhostd, and its afxdp port (afxdp-tso: tso=on), or
#   a second TAP port bridged with the veth
start_tcp() {
	local n w i=0 tso=auto
	[ "$1" = afxdp-tso ] && tso=on
	for n in "$NA" "$NB"; do
		w=wa; [ "$n" = "$NB" ] && w=wb
		if [ "$1" != tap ]; then
			ip netns exec "$n" "$VHOSTD" --poll-us 0 \
				--port "tap,ifname=tk,name=tk" \
				--port "afxdp,ifname=$w,mode=native,tso=$tso,name=x" \
				>"$T/log$i" 2>&1 &
		else
			ip -n "$n" link add brk type bridge
			ip -n "$n" link set "$w" master brk
			ip netns exec "$n" "$VHOSTD" --poll-us 0 \
				--port "tap,ifname=tk,name=tk" \
				--port "tap,ifname=tb,name=tb" >"$T/log$i" 2>&1 &
		fi
		PIDS+=("$!")
		for _ in $(seq 100); do
			ip -n "$n" link show tk >/dev/null 2>&1 && break
			sleep 0.05
		done
		if [ "$1" = tap ]; then
			for _ in $(seq 100); do
				ip -n "$n" link show tb >/dev/null 2>&1 && break
				sleep 0.05
			done
			ip -n "$n" link set tb master brk
			ip -n "$n" link set tb up
			ip -n "$n" link set brk up
		fi
		ip -n "$n" addr add 198.19.4.$((i + 1))/24 dev tk
		ip -n "$n" link set tk up
		i=$((i + 1))
	done
	ip netns exec "$NA" ping -c 1 -W 5 198.19.4.2 >/dev/null 2>&1
}

# start_wire MODE: A's stack on 198.19.4.1 over vhostd (TAP "tk", then
#   an afxdp port with tso=on (afxdp) or off (afxdp-sw), or a second TAP
#   port bridged with the veth), B's kernel on 198.19.4.2 on wb itself
start_wire() {
	local tso=on
	[ "$1" = afxdp-sw ] && tso=off
	if [ "$1" = tap ]; then
		ip -n "$NA" link add brk type bridge
		ip -n "$NA" link set wa master brk
		ip netns exec "$NA" "$VHOSTD" --poll-us 0 \
			--port "tap,ifname=tk,name=tk" \
			--port "tap,ifname=tb,name=tb" >"$T/log0" 2>&1 &
	else
		ip netns exec "$NA" "$VHOSTD" --poll-us 0 \
			--port "tap,ifname=tk,name=tk" \
			--port "afxdp,ifname=wa,mode=native,tso=$tso,name=x" \
			>"$T/log0" 2>&1 &
	fi
	PIDS+=("$!")
	for _ in $(seq 100); do
		ip -n "$NA" link show tk >/dev/null 2>&1 && break
		sleep 0.05
	done
	if [ "$1" = tap ]; then
		for _ in $(seq 100); do
			ip -n "$NA" link show tb >/dev/null 2>&1 && break
			sleep 0.05
		done
		ip -n "$NA" link set tb master brk
		ip -n "$NA" link set tb up
		ip -n "$NA" link set brk up
	fi
	ip -n "$NA" addr add 198.19.4.1/24 dev tk
	ip -n "$NA" link set tk up
	ip -n "$NB" addr add 198.19.4.2/24 dev wb
	# B's kernel finishes its checksums itself, as a NIC would: through
	# a veth they would reach A's XDP still to be done (CHECKSUM_PARTIAL
	# is a veth's), and leave A's TAP unfinished (doc/ports.md).  Both
	# modes alike.
	ip netns exec "$NB" ethtool -K wb tx off >/dev/null
	ip netns exec "$NA" ping -c 1 -W 5 198.19.4.2 >/dev/null 2>&1
}

# stop_pair: both vhostd gone, the bridges too
stop_pair() {
	local p n
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	PIDS=()
	for n in "$NA" "$NB"; do
		ip -n "$n" link del brk 2>/dev/null
		ip -n "$n" link del tk 2>/dev/null
		ip -n "$n" link del tb 2>/dev/null
	done
	ip -n "$NB" addr flush dev wb	# start_wire's
	ip netns exec "$NB" ethtool -K wb tx on >/dev/null
}

: >"$T/out"
for r in $(seq "$ROUNDS"); do
	for size in $SIZES; do
		modes="afxdp tap"
		[ "$size" = tcp ] && modes="afxdp afxdp-tso tap"
		[ "$size" = wire ] && modes="afxdp afxdp-sw tap"
		for mode in $modes; do
			if [ "$size" = tcp ] || [ "$size" = wire ]; then
				if [ "$size" = tcp ]; then
					start_tcp "$mode"
				else
					start_wire "$mode"
				fi
				ip netns exec "$NB" timeout $((SECS + 20)) iperf3 -s -1 \
					-p 5401 >/dev/null 2>&1 &
				srv=$!
				sleep 0.3
				g=$(ip netns exec "$NA" timeout $((SECS + 15)) iperf3 \
					-c 198.19.4.2 -p 5401 -t "$SECS" -J 2>/dev/null |
					jq -r '(.end.sum_received.bits_per_second // 0) as $r |
						(if $r > 0 then $r else .end.sum_sent.bits_per_second end) / 1e9' 2>/dev/null)
				wait "$srv" 2>/dev/null
				stop_pair
				echo "$r $size $mode mpps=0 gbps=${g:-0}" | tee -a "$T/out"
				continue
			fi
			start_pair "$mode"
			res=$(timeout 60 "$VBENCH" tput --a "$T/0.sock" --b "$T/1.sock" \
				--size "$size" --seconds "$SECS" --warmup-ms 500 \
				2>"$T/vb.err" | grep '^RESULT')
			stop_pair
			mpps=$(grep -o ' mpps=[0-9.]*' <<<"$res" | cut -d= -f2)
			gbps=$(grep -o ' gbps=[0-9.]*' <<<"$res" | cut -d= -f2)
			echo "$r $size $mode mpps=${mpps:-0} gbps=${gbps:-0}" |
				tee -a "$T/out"
		done
	done
done

echo "median Mpps (and Gbit/s) per size; ratio afxdp/tap:"
for size in $SIZES; do
	med() { grep " $size $1 " "$T/out" | grep -o "$2=[0-9.]*" | cut -d= -f2 |
		sort -g | awk '{a[NR]=$1} END {print NR ? a[int((NR+1)/2)] : 0}'; }
	am=$(med afxdp mpps) tm=$(med tap mpps)
	ag=$(med afxdp gbps) tg=$(med tap gbps)
	awk -v s="$size" -v am="$am" -v tm="$tm" -v ag="$ag" -v tg="$tg" 'BEGIN {
		if (s == "tcp" || s == "wire") r = tg > 0 ? ag / tg : 0
		else r = tm > 0 ? am / tm : 0
		printf "  %-5s afxdp %.3f Mpps (%.3f Gbit/s)  tap %.3f Mpps (%.3f Gbit/s)  ratio %.2f\n",
			s, am, ag, tm, tg, r }'
	if [ "$size" = tcp ]; then
		sg=$(med afxdp-tso gbps)
		awk -v sg="$sg" -v tg="$tg" 'BEGIN {
			printf "  tcp   afxdp tso=on  %.3f Gbit/s  tap %.3f Gbit/s  ratio %.2f\n",
				sg, tg, (tg > 0 ? sg / tg : 0) }'
	fi
	if [ "$size" = wire ]; then
		sg=$(med afxdp-sw gbps)
		awk -v sg="$sg" -v tg="$tg" 'BEGIN {
			printf "  wire  afxdp tso=off %.3f Gbit/s  tap %.3f Gbit/s  ratio %.2f\n",
				sg, tg, (tg > 0 ? sg / tg : 0) }'
	fi
done
