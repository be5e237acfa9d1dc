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
#                 and vhostd counts no violation.  While testpmd runs,
#                 "ports" shows what each port negotiated: split rings
#                 (no RING_PACKED), MQ, virtio-user's default IN_ORDER,
#                 2 pairs offered, enabled and started
#   mq-packed     the same on packed rings (virtio-user packed_vq=1):
#                 RING_PACKED negotiated, ring "packed"
#   mq-fewer      a driver taking 1 pair of a port that offers 2: traffic
#                 flows on the one it took, and "ports" shows 1 pair of 2
#                 started
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
# DPDK leaves its runtime directory behind, even with --no-shconf.
mq_cleanup() { rm -rf "/var/run/dpdk/vhmq$$"; }
IT_CLEANUP_HOOK=mq_cleanup

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

# mq_negotiated OUT PAIRS: poll "ports" (10 s) until both ports serve PAIRS
#   queue pairs, leaving the last reply in OUT.  Return: 1 on timeout
mq_negotiated() {
	local _
	for _ in $(seq 100); do
		"$VHOSTCTL" --json --ctl "$TMP/ctl" ports >"$1" 2>/dev/null &&
			jq -e --argjson n "$2" '[.ports[] |
				.negotiated.queue_pairs_started] == [$n, $n]' \
				"$1" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# mq_check_negotiated OUT RING PAIRS: what both ports of OUT negotiated
#   must be RING rings (split, packed), MQ and IN_ORDER (virtio-user's
#   default), RING_PACKED exactly with packed rings, 2 pairs offered and
#   PAIRS enabled.  Prints the problems, nothing if none
mq_check_negotiated() {
	jq -r --arg ring "$2" --argjson n "$3" '.ports[] | .name as $p |
		.negotiated as $g | ($g.features_names | index("RING_PACKED")
			!= null) as $pk |
		(if $g.ring != $ring then "\($p): ring \($g.ring)" else
			empty end),
		(if $pk != ($ring == "packed") then
			"\($p): RING_PACKED \(if $pk then "" else "not " end)" +
			"negotiated" else empty end),
		(["MQ", "IN_ORDER", "VERSION_1"][] as $f |
			if ($g.features_names | index($f)) == null then
				"\($p): no \($f)" else empty end),
		(if $g.queue_pairs != 2 or $g.queue_pairs_enabled != $n then
			"\($p): pairs \($g.queue_pairs_enabled) of " +
			"\($g.queue_pairs) enabled" else empty end)' "$1" |
		paste -sd ';'
}

# xstat OUT PORT NAME: the value of xstat NAME of PORT in testpmd's dump
xstat() {
	awk -v port="$2" -v name="$3" '
		/NIC extended statistics for port/ { p = $NF + 0 }
		p == port && $1 == name ":" { print $2; exit }' "$1"
}

# mq_violations: violations vhostd counted on vu0 and vu1 together
mq_violations() {
	"$VHOSTCTL" --json --ctl "$TMP/ctl" ports |
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
	neg=$TMP/ports-$name.json
	if ! mq_vhostd 2; then
		ERR="vhostd did not start"
	else
		testpmd_run 2 4 "$out" "$extra" &
		tp=$!
		if mq_negotiated "$neg" 2; then
			bad=$(mq_check_negotiated "$neg" $ring 2)
			[ -z "$bad" ] || ERR="negotiated: $bad"
		else
			ERR="2 pairs not started on both ports within 10 s"
		fi
		wait $tp || ERR="${ERR:+$ERR; }testpmd failed: $(grep -m1 -iE 'error|cause' "$out")"
	fi
	if [ -z "$ERR" ]; then
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
		idle=$("$VHOSTCTL" --json --ctl "$TMP/ctl" ports | jq '[.ports[] |
			.queues[] | select(.rx_packets == 0 or
					   .tx_packets == 0)] | length')
		[ "$idle" = 0 ] ||
			ERR="${ERR:+$ERR; }$idle queue pairs idle in vhostd's counters"
	fi
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result $name "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$ring rings, 2 pairs each way, every RX queue fed:$got; negotiated $(jq -r '.ports[0].negotiated | .features + " (" + (.features_names | join(",")) + ")"' "$neg")}"
fi
done

if wanted mq-fewer; then
	ERR=
	out=$TMP/tp-fewer.log
	neg=$TMP/ports-fewer.json
	if ! mq_vhostd 2; then
		ERR="vhostd did not start"
	else
		testpmd_run 1 3 "$out" &
		tp=$!
		if mq_negotiated "$neg" 1; then
			bad=$(jq -r '.ports[] | select(.negotiated.queue_pairs != 2 or
				.negotiated.queue_pairs_enabled != 1) | .name' "$neg")
			[ -z "$bad" ] || ERR="not 1 pair of 2 enabled on: $bad"
		else
			ERR="1 pair not started on both ports within 10 s"
		fi
		wait $tp || ERR="${ERR:+$ERR; }testpmd failed: $(grep -m1 -iE 'error|cause' "$out")"
	fi
	if [ -z "$ERR" ]; then
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
