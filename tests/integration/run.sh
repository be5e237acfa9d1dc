#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - vhostd integration tests: vdrv "guests" and a TAP in a netns
#
#   vdrv guests (build/tests/vdrv_itest, vdrv_tool), one per socket
#
#     A (p0.sock)   B (p1.sock)   C (p2.sock)   D (p3.sock)
#          \             |             |            /
#           +------------+------ vhostd -----------+
#                     (L2 learning switch, --ctl ctl.sock)
#
#   TAP tests: vhostd runs inside netns vdrvit<pid>
#
#     netns vdrvit<pid>                          default netns
#     +-----------------------------+
#     | vdrvtap0 198.18.0.1/24      |
#     |    |                        |
#     |  vhostd --port tap ---------+-- p0.sock -- vdrv_tool responder
#     |         --port vhost-user --+-- p1.sock -- vdrv_tool pinger
#     +-----------------------------+             (198.18.0.2, .3)
#
# Usage: tests/integration/run.sh [NAME-GLOB...]
#   BUILD=dir   where vhostd, vhostctl and tests/ are (default: build)
# Builds nothing.  Prints one line per test and "N passed, M failed,
# K skipped"; exits 1 on any failure.  The TAP tests need root (netns):
# without root they are skipped, as root a netns that cannot be made fails.

set -u

TMP=$(mktemp -d /tmp/vhostd-it.XXXXXX)
NS=vdrvit$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
ITEST=$BUILD/tests/vdrv_itest
TOOL=$BUILD/tests/vdrv_tool

for f in "$VHOSTD" "$ITEST" "$TOOL"; do
	[ -x "$f" ] || { echo "missing $f (make O=$BUILD first)"; exit 2; }
done

# Counter checks after a scenario, while vhostd still runs.
ITEST_POST=post_checks

# post_checks NAME NPORTS: counter assertions per scenario
post_checks() {
	case "$1" in
	oversize)
		# 5 x 1514 bytes into B's 512-byte buffers, without MRG_RXBUF.
		check_ctr vu1 '.drops.too_big + .drops.no_buffer' -ge 5
		check_ctr vu1 '.violations' -eq 0
		;;
	burst)
		check_ctr vu0 '.rx_packets' -ge 20000
		check_ctr vu1 '.tx_packets' -ge 20000
		check_ctr vu0 '.violations' -eq 0
		;;
	basic)
		# Every port received frames, and between them the worker had
		# dry passes: each guest's next RX buffer was staged ahead
		# (port_vhost_stage); it_close checked they all came back.
		for p in vu0 vu1 vu2; do
			check_ctr $p '.tx_packets' -ge 1
			check_ctr $p '.rx_staged' -ge 1
		done
		;;
	mq|packed-mq)
		# The scenario compared every queue's counters with its
		# driver's; A's pair 1 sent exactly the 100 test frames.
		check_ctr vu0 '.queues[1].rx_packets' -eq 100
		check_ctr vu1 '.queues[1].rx_packets' -eq 0
		check_ctr vu0 '.violations' -eq 0
		check_ctr vu1 '.violations' -eq 0
		;;
	irq-counters)
		# --poll-us 0: vhostd sleeps after every burst, so each port's
		# frames arrive by kick, and vdrv_recv() sleeps on its call fd.
		for p in vu0 vu1 vu2; do
			check_ctr $p '.kicks' -ge 1
			check_ctr $p '.irqs' -ge 1
		done
		;;
	evil-*|packed-evil-*)
		case "$1" in
		# Refused requests: counted by the protocol, not the ring.
		evil-unknown|evil-bad-ring|evil-kick-pipe|evil-call-pipe|\
		evil-err-socket|evil-mem-huge) ;;
		*) check_ctr vu2 '.violations' -ge 1 ;;
		esac
		check_ctr vu0 '.violations' -eq 0
		check_ctr vu1 '.violations' -eq 0
		;;
	esac
}

# ---- vdrv-only scenarios ---------------------------------------------------

run_itest basic basic 3
run_itest basic-4 basic 4
run_itest learning learning 3
run_itest flood flood 4
run_itest aging aging 3 --fdb-age 2
run_itest mrg-small-bufs mrg 3
run_itest no-mrg nomrg 3
run_itest oversize oversize 3
run_itest reconnect reconnect 2
run_itest burst burst 2
run_itest variants variants 2
run_itest workers-4 basic 4 --workers 4
run_itest irq-counters basic 3 --poll-us 0
PORT_OPTS=queues=2 run_itest mq mq 2
PORT_OPTS=queues=2 run_itest packed-mq packed:mq 2
# Packed rings (VIRTIO_F_RING_PACKED), between themselves and with split
# ones, and VIRTIO_F_IN_ORDER checked by every guest on both layouts.
run_itest packed-basic packed:basic 3
run_itest packed-mixed mixed:basic 4
run_itest packed-mrg packed:mrg 3
run_itest packed-no-mrg packed:nomrg 3
run_itest packed-burst packed:burst 2
run_itest packed-variants packed:variants 2
run_itest packed-reconnect packed:reconnect 2
run_itest packed-irq packed:basic 3 --poll-us 0
run_itest in-order-basic in-order:basic 3
run_itest in-order-packed-burst in-order:packed:burst 2
for k in garbage bad-size short unknown bad-version bad-ring mem-beyond-fd \
	 oob-desc oob-len loop loop-empty avail-jump bad-head indirect-nested \
	 indirect-oob rx-oob shrink kick-pipe call-pipe err-socket err-signal \
	 mem-huge indirect-next log-shrink; do
	run_itest "evil-$k" "evil:$k" 3
done
# The same rules over packed rings, where they apply, and the packed
# ones: a chain running into itself (loop), a wrap counter lie, INDIRECT
# beside NEXT or after plain descriptors.
for k in oob-desc oob-len loop loop-empty indirect-oob rx-oob \
	 mem-beyond-fd shrink err-signal wrap-lie indirect-next \
	 indirect-mixed log-shrink; do
	run_itest "packed-evil-$k" "packed:evil:$k" 3
done

# ---- client mode: vhostd connects to a socket vdrv listens on ----------------

if wanted client-mode; then
	ERR=
	rm -f "$TMP/c0.sock"
	timeout 60 "$ITEST" client "$TMP/c0.sock" "$TMP/p1.sock" \
		>"$TMP/client.out" 2>&1 &
	CPID=$!
	BGPIDS+=("$CPID")
	wait_for "$TMP/c0.sock" || ERR="vdrv never listened"
	"$VHOSTD" --ctl "$TMP/ctl" \
		--port "vhost-user,path=$TMP/c0.sock,name=vu0,client" \
		--port "vhost-user,path=$TMP/p1.sock,name=vu1" \
		>"$TMP/vhostd.log" 2>&1 &
	VPID=$!
	wait "$CPID" || ERR="$(grep -m1 FAIL "$TMP/client.out" || echo failed)"
	stop_vhostd || ERR="$ERR; vhostd died"
	result client-mode "$([ -z "$ERR" ] && echo 0 || echo 1)" "$ERR"
fi

# ---- TAP in a network namespace ------------------------------------------------

if wanted 'tap-*'; then
	if ! netns_setup; then
		no_netns tap-ping-responder tap-pinger tap-clean-exit tap-direct-off
	else
		ERR=
		start_vhostd ip netns exec "$NS" -- 2 \
			--port tap,ifname=vdrvtap0,name=tap0 || ERR="no start"
		tap_up vdrvtap0 198.18.0.1/24 || ERR="no vdrvtap0"

		"$TOOL" responder --sock "$TMP/p0.sock" --mac 02:00:00:00:01:02 \
			--ip 198.18.0.2 --seconds 60 >"$TMP/resp.out" 2>&1 &
		RPID=$!
		BGPIDS+=("$RPID")
		wait_up 10 vu0
		# Three requests, each answered within 5 s (ARP first).
		out=$(ip netns exec "$NS" ping -c 3 -i 0.3 -W 5 198.18.0.2 2>&1)
		echo "$out" | grep -q ' 3 received' ||
			ERR="${ERR:+$ERR; }ping: $(echo "$out" | grep -m1 received)"
		kill "$RPID"
		wait_exit "$RPID" 20 ||
			ERR="${ERR:+$ERR; }responder failed: $(cat "$TMP/resp.out")"
		grep -q 'answered [1-9]' "$TMP/resp.out" ||
			ERR="${ERR:+$ERR; }responder: $(cat "$TMP/resp.out")"
		check_ctr tap0 '.rx_packets' -ge 4
		check_ctr tap0 '.tx_packets' -ge 4
		kill -0 "$VPID" 2>/dev/null || ERR="$ERR; vhostd died"
		result tap-ping-responder "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-$(echo "$out" | grep received)}"

		# The other way: a vdrv guest pings the namespace's kernel.
		ERR=
		out=$(timeout 30 "$TOOL" pinger --sock "$TMP/p1.sock" \
			--mac 02:00:00:00:01:03 --ip 198.18.0.3 \
			--peer-ip 198.18.0.1 --count 5 --interval-ms 200 2>&1) ||
			ERR="$out"
		result tap-pinger "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-$out}"

		ERR=
		stop_vhostd || ERR="vhostd died or exited uncleanly"
		result tap-clean-exit "$([ -z "$ERR" ] && echo 0 || echo 1)" "$ERR"

		# direct=off: one tun queue, every frame through vhostd's
		# buffers (the escape hatch); the kernel's replies must still
		# reach the guest, and none by a direct read.  offload=off, so
		# that the pinger (no offload features) would qualify for a
		# steered queue if direct=off were ignored.
		ERR=
		start_vhostd ip netns exec "$NS" -- 1 \
			--port tap,ifname=vdrvtap2,name=tap0,offload=off,direct=off ||
			ERR="no start"
		tap_up vdrvtap2 198.18.2.1/24 || ERR="${ERR:+$ERR; }no vdrvtap2"
		out=$(timeout 30 "$TOOL" pinger --sock "$TMP/p0.sock" \
			--mac 02:00:00:00:02:03 --ip 198.18.2.3 \
			--peer-ip 198.18.2.1 --count 30 --interval-ms 100 2>&1) ||
			ERR="${ERR:+$ERR; }$out"
		check_ctr tap0 '.rx_packets' -ge 30
		check_ctr tap0 '.direct.packets' -eq 0
		grep -q 'direct=off' "$TMP/vhostd.log" ||
			ERR="${ERR:+$ERR; }no direct=off log line"
		stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
		result tap-direct-off "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-$out}"
	fi
fi

# ---- TAP -> guest straight into guest buffers (tapdirect_itest) --------------
#
#     netns vdrvit<pid>
#     +------------------------------------------+
#     | vdrvtap1 (offload=off), AF_PACKET inject |
#     |    | tun queue 0: flood/unknown          |
#     |    | queue per guest, eBPF-steered       |
#     |  vhostd --port tap ----------------------+-- p0.sock G0 (MRG)
#     |         --port vhost-user x4 ------------+-- p1.sock G1 (MRG)
#     |                                          +-- p2.sock G2 (no MRG)
#     |    | a queue per pair of G3              +-- p3.sock G3 (2 pairs)
#     +------------------------------------------+

if wanted 'tap-direct'; then
	if netns_setup; then
		ERR=
		# G3 has two pairs: the TAP makes a tun queue for each.
		start_vhostd ip netns exec "$NS" -- 3 \
			--port "vhost-user,path=$TMP/p3.sock,name=vu3,queues=2" \
			--port tap,ifname=vdrvtap1,name=tap0,offload=off ||
			ERR="no start"
		wait_for "$TMP/p3.sock" || ERR="${ERR:+$ERR; }no p3.sock"
		tap_up vdrvtap1 || ERR="${ERR:+$ERR; }no vdrvtap1"
		if [ -z "$ERR" ]; then
			timeout 120 ip netns exec "$NS" \
				"$BUILD/tests/tapdirect_itest" vdrvtap1 \
				"$TMP/ctl" "$TMP/p0.sock" "$TMP/p1.sock" \
				"$TMP/p2.sock" "$TMP/p3.sock" >"$TMP/td.out" 2>&1 ||
				ERR="$(grep -c '^FAIL' "$TMP/td.out") case(s) failed"
			[ -n "${TAPDIRECT_VERBOSE:-}" ] && sed 's/^/    /' "$TMP/td.out"
			check_ctr tap0 '.violations' -eq 0
			check_ctr tap0 '.direct.packets' -ge 128
			check_ctr vu0 '.violations' -eq 0
			check_ctr vu1 '.violations' -eq 0
			check_ctr vu3 '.violations' -eq 0
		fi
		stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
		result tap-direct "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-$(grep -c '^PASS' "$TMP/td.out") cases passed}" \
			"$TMP/td.out"
	else
		no_netns tap-direct
	fi
fi

# ---- live migration's dirty log (dirtylog_itest) ------------------------------
#
# Guest A (p0.sock) logs, B (p1.sock) and the kernel (over vdrvtap3,
# read straight into A's buffers) write into it; every page vhostd writes
# must be marked (see the program's header).  Split and packed rings.

for layout in split packed; do
	name=dirty-log${layout/split/}
	name=${name/packed/-packed}
	wanted "$name" || continue
	if netns_setup; then
		ERR=
		start_vhostd ip netns exec "$NS" -- 2 \
			--port tap,ifname=vdrvtap3,name=tap0,offload=off ||
			ERR="no start"
		tap_up vdrvtap3 || ERR="${ERR:+$ERR; }no vdrvtap3"
		if [ -z "$ERR" ]; then
			timeout 120 ip netns exec "$NS" \
				"$BUILD/tests/dirtylog_itest" \
				$([ $layout = packed ] && echo --packed) \
				"$TMP/ctl" "$TMP/p0.sock" "$TMP/p1.sock" vdrvtap3 \
				>"$TMP/dl.out" 2>&1 ||
				ERR="$(grep -m1 '^FAIL' "$TMP/dl.out" || tail -n 1 "$TMP/dl.out")"
			check_ctr vu0 '.violations' -eq 0
			check_ctr vu0 '.direct.packets' -ge 100
		fi
		stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
		result "$name" "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-$(grep -m1 '^PASS dirty' "$TMP/dl.out")}" \
			"$TMP/dl.out"
	else
		no_netns "$name"
	fi
done

# ---- offloads: tests/integration/offload.sh (its own vhostd and netns) -----------
#
# Its lines are shown as they come and its summary is added to ours; a
# script that ends early (its summary line missing) or exits non-zero
# fails here, so tests it never reached cannot vanish.

BUILD="$BUILD" "$ROOT/tests/integration/offload.sh" "${FILTER[@]}" 2>&1 |
	tee "$TMP/offload.out" | grep -v '^[0-9]* passed, [0-9]* failed, [0-9]* skipped$'
rc=${PIPESTATUS[0]}
sum=$(tail -n 1 "$TMP/offload.out")
if [[ $sum =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped$ ]]; then
	PASS=$((PASS + BASH_REMATCH[1]))
	FAIL=$((FAIL + BASH_REMATCH[2]))
	SKIP=$((SKIP + BASH_REMATCH[3]))
	[ $rc = 0 ] || [ "${BASH_REMATCH[2]}" != 0 ] ||
		result offload.sh 1 "exit status $rc with no test failed"
else
	result offload.sh 1 "ended early (exit status $rc, no summary line)"
fi

it_summary
