#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/mq.sh - multiqueue guests, driven by a driver nobody
# here wrote: DPDK's virtio-user in testpmd
#
#   testpmd (flowgen, one lcore)               vhostd
#     net_virtio_user0 ---- p0.sock ---- vu0 (queues=2) \
#     net_virtio_user1 ---- p1.sock ---- vu1 (queues=2) /  L2 switch
#
#   mq-pairs      both ports with 2 queue pairs: testpmd sends many flows
#                 on both TX queues of both ports; every RX queue of both
#                 ports receives frames (xstats rx_qN_good_packets), every
#                 pair has frames both ways in vhostd's "queues" counters,
#                 and vhostd counts no violation
#   mq-packed     the same on packed rings (virtio-user packed_vq=1)
#   mq-fewer      a driver taking 1 pair of a port that offers 2: traffic
#                 flows on the one it took
#   mq-too-many   a driver that uses 3 pairs of a port that offers 2
#                 (virtio-user does not check GET_QUEUE_NUM) loses its
#                 session at the first message for ring 4, with a line
#                 naming the port's queue pairs; vhostd serves the next
#
# Usage: tests/integration/mq.sh [NAME-GLOB...]   (BUILD=dir, default build)
# Unix sockets only.  testpmd runs without hugepages (--no-huge: its
# memory is a memfd vhostd maps) and with its own --file-prefix.

set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-mq.XXXXXX)
NS=vhmq$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
TESTPMD=$(command -v dpdk-testpmd)

[ -x "$VHOSTD" ] || { echo "missing $VHOSTD (make O=$BUILD)"; exit 2; }
[ -n "$TESTPMD" ] || { echo "missing dpdk-testpmd (tests/deps.sh)"; exit 2; }

# mq_vhostd PAIRS: vhostd with vu0 and vu1 of PAIRS queue pairs each;
#   floods unlimited (flowgen's frames go to unknown MACs)
mq_vhostd() {
	start_vhostd -- 0 \
		--port "vhost-user,path=$TMP/p0.sock,name=vu0,queues=$1,flood-rate=0" \
		--port "vhost-user,path=$TMP/p1.sock,name=vu1,queues=$1,flood-rate=0" &&
		wait_for "$TMP/p0.sock" && wait_for "$TMP/p1.sock"
}

# testpmd_run QUEUES SECONDS OUT [DEVARGS]: flowgen on both ports for
#   SECONDS, then "show port xstats all" into OUT; DEVARGS (",packed_vq=1")
#   go to both virtio-user ports.  Return: testpmd's status
testpmd_run() {
	local q=$1 s=$2 out=$3 extra=${4:-}
	{
		sleep 2
		echo start
		sleep "$s"
		echo stop
		echo "show port xstats all"
		sleep 1
		echo quit
	} | timeout $((s + 30)) "$TESTPMD" -l 0,1 --no-pci --no-huge -m 512 \
		--no-shconf --file-prefix "vhmq$$" \
		--vdev "net_virtio_user0,path=$TMP/p0.sock,queues=$q$extra" \
		--vdev "net_virtio_user1,path=$TMP/p1.sock,queues=$q$extra" \
		-- -i --rxq="$q" --txq="$q" --nb-cores=1 --total-num-mbufs=8192 \
		--forward-mode=flowgen >"$out" 2>&1
}

# xstat OUT PORT NAME: the value of xstat NAME of PORT in testpmd's dump
xstat() {
	awk -v port="$2" -v name="$3" '
		/NIC extended statistics for port/ { p = $NF + 0 }
		p == port && $1 == name ":" { print $2; exit }' "$1"
}

# mq_violations: violations vhostd counted on vu0 and vu1 together
mq_violations() {
	"$VHOSTCTL" --ctl "$TMP/ctl" ports |
		jq '[.ports[] | .violations] | add'
}

for ring in split packed; do
name=mq-pairs
extra=
if [ $ring = packed ]; then
	name=mq-packed
	extra=,packed_vq=1
fi
if wanted $name; then
	ERR=
	out=$TMP/tp-$name.log
	if ! mq_vhostd 2; then
		ERR="vhostd did not start"
	elif ! testpmd_run 2 4 "$out" "$extra"; then
		ERR="testpmd failed: $(grep -m1 -iE 'error|cause' "$out")"
	else
		got=
		for port in 0 1; do
			for q in 0 1; do
				n=$(xstat "$out" "$port" "rx_q${q}_good_packets")
				got="$got p$port.rx$q=${n:-none}"
				[ "${n:-0}" -gt 0 ] ||
					ERR="${ERR:+$ERR; }port $port RX queue $q got nothing"
			done
		done
		v=$(mq_violations)
		[ "$v" = 0 ] || ERR="${ERR:+$ERR; }$v violations counted"
		# vhostd's own per-queue counters say the same.
		idle=$("$VHOSTCTL" --ctl "$TMP/ctl" ports | jq '[.ports[] |
			.queues[] | select(.rx_packets == 0 or
					   .tx_packets == 0)] | length')
		[ "$idle" = 0 ] ||
			ERR="${ERR:+$ERR; }$idle queue pairs idle in vhostd's counters"
	fi
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result $name "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$ring rings, 2 pairs each way, every RX queue fed:$got}"
fi
done

if wanted mq-fewer; then
	ERR=
	out=$TMP/tp-fewer.log
	if ! mq_vhostd 2; then
		ERR="vhostd did not start"
	elif ! testpmd_run 1 3 "$out"; then
		ERR="testpmd failed: $(grep -m1 -iE 'error|cause' "$out")"
	else
		n0=$(xstat "$out" 0 rx_q0_good_packets)
		n1=$(xstat "$out" 1 rx_q0_good_packets)
		[ "${n0:-0}" -gt 0 ] && [ "${n1:-0}" -gt 0 ] ||
			ERR="RX queue 0 got ${n0:-none} / ${n1:-none}"
	fi
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result mq-fewer "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-1 pair of 2 taken: $n0 and $n1 frames received}"
fi

if wanted mq-too-many; then
	ERR=
	out=$TMP/tp-many.log
	if ! mq_vhostd 2; then
		ERR="vhostd did not start"
	else
		testpmd_run 3 1 "$out"
		grep -q "ring 4 is beyond the device's 2 queue pair" \
			"$TMP/vhostd.log" ||
			ERR="no line about ring 4 beyond 2 queue pairs"
		out=$TMP/tp-after.log
		if ! testpmd_run 2 2 "$out"; then
			ERR="${ERR:+$ERR; }the next driver failed"
		else
			n=$(xstat "$out" 1 rx_q1_good_packets)
			[ "${n:-0}" -gt 0 ] ||
				ERR="${ERR:+$ERR; }next driver: nothing on RX queue 1"
		fi
	fi
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result mq-too-many "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-3 pairs: session dropped at ring 4, the next driver served}"
fi

it_summary
