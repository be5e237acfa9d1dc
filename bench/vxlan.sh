#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# vxlan.sh - guest to remote guest through vhostd's vxlan port, against
#	     the same through a TAP port, a bridge and the kernel's vxlan
#
#   bench/vxlan.sh [ROUNDS [SECONDS [SIZES]]]     (root; default 3 2 "64 1514 tcp tcpk")
#
# Two "hosts", namespaces A and B joined by a veth pair (198.18.0.1 and
# .2, MTU 9000 so that 1514-byte frames and their 50 bytes of VXLAN fit),
# each with a vhostd and one vhost-user port; vbench plays a guest on
# each (A sends, B counts and checks every frame).  Per round and size,
# alternating:
#   vxlan   each vhostd has a vxlan port (vni 42) to the other host
#   xdp     the vxlan port over an afxdp port on the veth (via=): each
#           vhostd owns its host's underlay address (the kernel's is
#           removed for the run), no UDP socket, no kernel UDP stack
#   vtap    the vxlan port over a TAP port (via=): each vhostd is a
#           station of its own (198.18.1.1, 198.18.2.1) behind its
#           host's kernel, which routes its datagrams over the veth; on
#           Linux 6.17+ a TSO frame crosses whole (UDP tunnel GSO)
#   kernel  each vhostd has a TAP port instead, in a bridge with a kernel
#           vxlan device (vni 42, dstport 4789) to the other host: what a
#           vhostd user has without the vxlan port
# "tcp" is one iperf3 TCP stream between the two hosts' own stacks, 64
# KiB TSO frames and GRO as the kernel does them: vxlan runs it over a
# TAP port of each vhostd (the TAP standing in for a guest's NIC) and
# its vxlan port (rco: with remcsum=on at both ends, so that neither end
# sums the payload; xdp: via= an afxdp port, vtap: via= a TAP port, as
# above); tapbr over the same TAP port and a second TAP port
# bridged to a kernel vxlan device (what the vbench "kernel" mode is for
# a guest); kernel over a kernel vxlan device holding the address itself
# (no vhostd at all: the TAP hops are then vhostd's handicap alone).
# "tcpk" is the stream from A's stack to B's kernel vxlan device holding
# the address, A through its vhostd: the vxlan port via= an afxdp port
# with tso=on (xdpk: its TSO frames leave as UDP GSO trains), the vxlan
# port over sockets (vxk) or via= a TAP (vtk), or a TAP bridged to a
# kernel vxlan (tapk).  MODES="..." runs only those modes of each size,
# IPERF_ARGS="..." is added to iperf3's client (-P 4, say), KEEP_LOGS=1
# leaves the last run's logs in /tmp/vxb-logs.  ("tso", vbench's 64 KiB
# frames, counts every frame not exactly as sent as bad: a receiver that
# joins segments again, as vhostd's gro= and any GRO does, cannot pass
# it; the kernel path passes only because nothing in it ever segments.)
# One line per run (Mpps and Gbit/s received), then per size each mode's
# median and its ratio to the size's baseline: kernel (vbench sizes),
# tapbr (tcp; and to kernel alone), tapk (tcpk).  vhostd: BUILD's (default build), vbench:
# BENCH_BUILD's (default build-bench).  Everything stays in the two
# namespaces and is removed at the end (Ctrl-C included).
set -u
ROUNDS=${1:-3}
SECS=${2:-2}
SIZES=${3:-64 1514 tcp tcpk}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
VHOSTD=$BUILD/vhostd
VBENCH=${BENCH_BUILD:-$ROOT/build-bench}/bench/vbench
for f in "$VHOSTD" "$VBENCH"; do
	[ -x "$f" ] || { echo "vxlan.sh: no $f (make; make O=build-bench)"; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "vxlan.sh: needs root (namespaces)"; exit 2; }
T=$(mktemp -d /tmp/vhostd-vxb.XXXXXX)
NA=vxba-$$
NB=vxbb-$$
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
[ -n "${KEEP_LOGS:-}" ] && trap 'cp -r "$T" /tmp/vxb-logs; cleanup' EXIT
trap 'exit 130' INT TERM

ip netns add "$NA" && ip netns add "$NB" || exit 1
for n in "$NA" "$NB"; do
	ip -n "$n" link set lo up
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
done
ip link add ua netns "$NA" type veth peer name ub netns "$NB" || exit 1
ip -n "$NA" addr add 198.18.0.1/24 dev ua
ip -n "$NB" addr add 198.18.0.2/24 dev ub
for n in "$NA" "$NB"; do
	u=ua; [ "$n" = "$NB" ] && u=ub
	# Offloads as a veth has them: each mode has the same software at
	# both ends (vhostd and vhostd, kernel and kernel), so an inner
	# checksum left to the device (CHECKSUM_PARTIAL) is never a UDP
	# socket's to see (doc/ports.md).
	ip -n "$n" link set "$u" mtu 9000 up
	# vtap: each vhostd's own underlay subnet behind its host's kernel
	ip netns exec "$n" sysctl -qw net.ipv4.ip_forward=1
done
ip -n "$NA" route add 198.18.2.0/24 via 198.18.0.2
ip -n "$NB" route add 198.18.1.0/24 via 198.18.0.1

# xdp_ports I [TSO]: the afxdp and vxlan ports of host I's vhostd in mode
#   xdp (the afxdp port's tso=TSO, default auto: off on a veth), its
#   veth's address given up to vhostd
xdp_ports() {
	local n=$NA u=ua me=198.18.0.$(($1 + 1)) peer=198.18.0.$((2 - $1))
	[ "$1" = 1 ] && n=$NB u=ub
	ip -n "$n" addr flush dev "$u"
	echo "--port afxdp,ifname=$u,name=xa${2:+,tso=$2}"
	echo "--port vxlan,local=$me,remote=$peer,vni=42,mtu=8950,name=vx,via=xa"
}

# vtap_start I REMOTE SPEC: host I's vhostd in mode vtap, its port SPEC
#   first (the guest's or the host stack's), then a TAP carrier and a
#   vxlan port over it to VTEP REMOTE; then the host's side of the
#   carrier: the kernel routes for the vhostd's address and answers ARP
#   for the far subnet at once (proxy ARP without its 0.8 s delay)
vtap_start() {
	local n=$NA
	[ "$1" = 1 ] && n=$NB
	ip netns exec "$n" "$VHOSTD" --poll-us 0 --port "$3" \
		--port "tap,ifname=tc,name=tc" \
		--port "vxlan,local=198.18.$(($1 + 1)).1,remote=$2,vni=42,mtu=8950,name=vx,via=tc" \
		>"$T/log$1" 2>&1 &
	PIDS+=("$!")
	for _ in $(seq 100); do
		ip -n "$n" link show tc >/dev/null 2>&1 && break
		sleep 0.05
	done
	ip -n "$n" link set tc mtu 9000 up
	ip -n "$n" addr add "198.18.$(($1 + 1)).254/24" dev tc
	# (again: xdp's address flush took the route with it)
	ip -n "$n" route replace "198.18.$((2 - $1)).0/24" via "198.18.0.$((2 - $1))"
	ip netns exec "$n" sysctl -qw net.ipv4.conf.tc.proxy_arp=1 \
		net.ipv4.neigh.tc.proxy_delay=0
}

# start_pair MODE: a vhostd per host for MODE (vxlan|xdp|vtap|kernel)
start_pair() {
	local n me peer i=0
	for n in "$NA" "$NB"; do
		me=198.18.0.$((i + 1)) peer=198.18.0.$((2 - i))
		rm -f "$T/$i.sock"
		if [ "$1" = vxlan ]; then
			ip netns exec "$n" "$VHOSTD" --poll-us 0 \
				--port "vhost-user,path=$T/$i.sock,name=g" \
				--port "vxlan,local=$me,remote=$peer,vni=42,mtu=8950,name=vx" \
				>"$T/log$i" 2>&1 &
		elif [ "$1" = xdp ]; then
			mapfile -t xp < <(xdp_ports $i)
			# shellcheck disable=SC2086
			ip netns exec "$n" "$VHOSTD" --poll-us 0 \
				--port "vhost-user,path=$T/$i.sock,name=g" \
				${xp[0]} ${xp[1]} >"$T/log$i" 2>&1 &
		elif [ "$1" = vtap ]; then
			vtap_start $i "198.18.$((2 - i)).1" \
				"vhost-user,path=$T/$i.sock,name=g"
			i=$((i + 1))
			continue
		else
			ip -n "$n" link add vk type vxlan id 42 local "$me" \
				remote "$peer" dstport 4789
			ip -n "$n" link set vk mtu 8950
			ip -n "$n" link add brk type bridge
			ip -n "$n" link set vk master brk
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
	if [ "$1" = kernel ]; then
		for n in "$NA" "$NB"; do
			for _ in $(seq 100); do
				ip -n "$n" link show tk >/dev/null 2>&1 && break
				sleep 0.05
			done
			ip -n "$n" link set tk mtu 8950
			ip -n "$n" link set tk master brk
			ip -n "$n" link set tk up
			ip -n "$n" link set vk up
			ip -n "$n" link set brk up
		done
	fi
}

# start_tcp MODE: the hosts' stacks on 198.19.1.1 and .2 over MODE; a
#   MODE ending in "k" (xdpk, vxk, tapk) is xdp (with tso=on), vxlan or
#   tapbr on A only, B a kernel vxlan device holding the address, its
#   veth's checksumming in software (a NIC's; a veth would hand A's XDP
#   the inner checksums unfinished)
start_tcp() {
	local n me peer i=0 m tso=
	for n in "$NA" "$NB"; do
		me=198.18.0.$((i + 1)) peer=198.18.0.$((2 - i))
		m=$1
		case $1 in
		xdpk) m=xdp tso=on ;;
		vxk) m=vxlan ;;
		vtk) m=vtap ;;
		tapk) m=tapbr ;;
		esac
		if [ "$m" != "$1" ] && [ $i = 1 ]; then
			m=kernel
			ip netns exec "$NB" ethtool -K ub tx off >/dev/null
		fi
		if [ "$m" = vxlan ] || [ "$m" = rco ]; then
			rco=
			[ "$m" = rco ] && rco=,remcsum=on
			ip netns exec "$n" "$VHOSTD" --poll-us 0 \
				--port "tap,ifname=tk,name=tk" \
				--port "vxlan,local=$me,remote=$peer,vni=42,mtu=8950,name=vx$rco" \
				>"$T/log$i" 2>&1 &
			PIDS+=("$!")
			for _ in $(seq 100); do
				ip -n "$n" link show tk >/dev/null 2>&1 && break
				sleep 0.05
			done
			dev=tk
		elif [ "$m" = vtap ]; then
			# to the other vhostd, or (vtk) to B's kernel vxlan
			peer=198.18.$((2 - i)).1
			[ "$1" = vtk ] && peer=198.18.0.2
			vtap_start $i "$peer" "tap,ifname=tk,name=tk"
			dev=tk
		elif [ "$m" = xdp ]; then
			mapfile -t xp < <(xdp_ports $i $tso)
			# shellcheck disable=SC2086
			ip netns exec "$n" "$VHOSTD" --poll-us 0 \
				--port "tap,ifname=tk,name=tk" \
				${xp[0]} ${xp[1]} >"$T/log$i" 2>&1 &
			PIDS+=("$!")
			for _ in $(seq 100); do
				ip -n "$n" link show tk >/dev/null 2>&1 && break
				sleep 0.05
			done
			dev=tk
		elif [ "$m" = tapbr ]; then
			ip -n "$n" link add vk type vxlan id 42 local "$me" \
				remote "$peer" dstport 4789
			ip -n "$n" link add brk type bridge
			ip -n "$n" link set vk master brk
			ip netns exec "$n" "$VHOSTD" --poll-us 0 \
				--port "tap,ifname=tk,name=tk" \
				--port "tap,ifname=tb,name=tb" >"$T/log$i" 2>&1 &
			PIDS+=("$!")
			for _ in $(seq 100); do
				ip -n "$n" link show tb >/dev/null 2>&1 && break
				sleep 0.05
			done
			ip -n "$n" link set tb master brk
			for d in tb vk brk; do ip -n "$n" link set "$d" up; done
			dev=tk
		else
			# (vtk: A's vhostd is a station behind A's kernel)
			[ "$1" = vtk ] && peer=198.18.1.1
			ip -n "$n" link add vk type vxlan id 42 local "$me" \
				remote "$peer" dstport 4789
			dev=vk
		fi
		ip -n "$n" link set "$dev" mtu 1500
		ip -n "$n" addr add 198.19.1.$((i + 1))/24 dev "$dev"
		ip -n "$n" link set "$dev" up
		i=$((i + 1))
	done
	# (xdp: the first ping may go while vhostd asks for its peer's MAC)
	ip netns exec "$NA" ping -c 2 -W 5 198.19.1.2 >/dev/null 2>&1
}

# size_modes SIZE: the modes run for SIZE (MODES= overrides)
size_modes() {
	local m="vxlan xdp vtap kernel"
	[ "$1" = tcp ] && m="vxlan rco xdp vtap tapbr kernel"
	[ "$1" = tcpk ] && m="xdpk vxk vtk tapk"
	echo "${MODES:-$m}"
}

# stop_pair: both vhostd gone, the kernel devices too
stop_pair() {
	local p n
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	PIDS=()
	for n in "$NA" "$NB"; do
		ip -n "$n" link del brk 2>/dev/null
		ip -n "$n" link del vk 2>/dev/null
		ip -n "$n" link del tk 2>/dev/null
		ip -n "$n" link del tb 2>/dev/null
	done
	# xdp took the veths' addresses: back (a no-op otherwise); the *k
	# modes B's checksumming
	ip -n "$NA" addr replace 198.18.0.1/24 dev ua
	ip -n "$NB" addr replace 198.18.0.2/24 dev ub
	ip netns exec "$NB" ethtool -K ub tx on >/dev/null
}

: >"$T/out"
for r in $(seq "$ROUNDS"); do
	for size in $SIZES; do
		modes=$(size_modes "$size")
		for mode in $modes; do
			if [ "$size" = tcp ] || [ "$size" = tcpk ]; then
				start_tcp "$mode"
				ip netns exec "$NB" timeout $((SECS + 20)) iperf3 -s -1 \
					-p 5301 >/dev/null 2>&1 &
				srv=$!
				sleep 0.3
				# shellcheck disable=SC2086 # (IPERF_ARGS: words)
				g=$(ip netns exec "$NA" timeout $((SECS + 15)) iperf3 \
					-c 198.19.1.2 -p 5301 -t "$SECS" ${IPERF_ARGS:-} -J 2>"$T/ip.err" |
					tee "$T/ip.json" | jq -r '(.end.sum_received.bits_per_second // 0) as $r |
						(if $r > 0 then $r else .end.sum_sent.bits_per_second end) / 1e9' 2>/dev/null)
				[ -n "$g" ] || { echo "iperf3: $(jq -r .error "$T/ip.json" 2>/dev/null) $(cat "$T/ip.err")" >&2; }
				wait "$srv" 2>/dev/null
				stop_pair
				echo "$r $size $mode mpps=0 gbps=${g:-0} bad=-" |
					tee -a "$T/out"
				continue
			fi
			start_pair "$mode"
			# (xdp: the guests' first frames may go while the hosts ask
			# for each other's MAC: the warm-up covers it)
			res=$(timeout 60 "$VBENCH" tput --a "$T/0.sock" --b "$T/1.sock" \
				--size "$size" --seconds "$SECS" --warmup-ms 500 \
				2>"$T/vb.err" | grep '^RESULT')
			stop_pair
			mpps=$(grep -o ' mpps=[0-9.]*' <<<"$res" | cut -d= -f2)
			gbps=$(grep -o ' gbps=[0-9.]*' <<<"$res" | cut -d= -f2)
			bad=$(grep -o ' bad=[0-9]*' <<<"$res" | cut -d= -f2)
			echo "$r $size $mode mpps=${mpps:-0} gbps=${gbps:-0} bad=${bad:--}" |
				tee -a "$T/out"
		done
	done
done

echo "median per size and mode; ratio to the size's baseline (tcp: also to kernel alone):"
for size in $SIZES; do
	med() { grep " $size $1 " "$T/out" | grep -o "$2=[0-9.]*" | cut -d= -f2 |
		sort -g | awk '{a[NR]=$1} END {print NR ? a[int((NR+1)/2)] : 0}'; }
	base=kernel
	[ "$size" = tcp ] && base=tapbr
	[ "$size" = tcpk ] && base=tapk
	bg=$(med $base gbps) kg=$(med kernel gbps)
	for mode in $(size_modes "$size"); do
		awk -v s="$size" -v m="$mode" -v g="$(med "$mode" gbps)" \
		    -v p="$(med "$mode" mpps)" -v bg="$bg" -v b="$base" \
		    -v kg="$kg" 'BEGIN {
			printf "  %-5s %-6s %7.3f Gbit/s", s, m, g
			if (s != "tcp" && s != "tcpk")
				printf " (%.3f Mpps)", p
			if (m != b)
				printf "  / %s %.2f", b, (bg > 0 ? g / bg : 0)
			if (s == "tcp" && m != "kernel")
				printf "  / kernel alone %.2f", (kg > 0 ? g / kg : 0)
			printf "\n" }'
	done
done
