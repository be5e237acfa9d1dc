#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/lifecycle.sh - vhostd through things coming and going:
# peers, rings, links, signals; plus a guest's MTU and many ports
#
#   client-mode-rounds   vhostd --port vhost-user,path=c0.sock,client
#                          vhostd ----connects----> c0.sock  A (vdrv, listens;
#                            |                               leaves, returns)
#                            +---- p1.sock  B
#   ring-enable          A (p0) -- vhostd -- B (p1, SET_VRING_ENABLE 0/1)
#                                    |
#                                    C (p2)
#   mtu                  A (p0) -- vhostd -- B (p1, NET_SET_MTU 1000)
#                                    +------ C (p2, no MTU)
#   scale                16 guests (p0..p15) -- vhostd --workers 6
#   sigterm-flood        A (p0) ==flood==> vhostd ==> B (p1); SIGTERM
#   sigint-clean         guests on p0, p1; a client port to a socket vhostd
#                        does not own; SIGINT; what is left on disk
#   state-restart        guests on p0..p2; vhostd --state FILE killed
#                        (SIGKILL) and started again: their MACs are in the
#                        table at once, the counters go on; again after a
#                        clean exit
#   state-corrupt        FILE of random bytes: ignored, rewritten whole
#   state-foreign        FILE world-writable, or a symlink: refused
#   tap-down-up          netns vhlc<pid>
#                        +---------------------------------+
#                        | vhlctap0 198.18.1.1/24          |
#                        |   |  (ip link set down / up)    |
#                        | vhostd --port tap --------------+-- p0 F: flood to tap
#                        |        --port vhost-user x3 ----+-- p1 R: responder .2
#                        +---------------------------------+-- p2 P: pinger .3
#
# Usage: tests/integration/lifecycle.sh [NAME-GLOB...]  (BUILD=dir,
# default build; CI runs it against the ASan+UBSan build).  Prints one
# line per test and "N passed, M failed, K skipped"; exit 1 on any
# failure.  tap-down-up needs root (netns): skipped without, failed as
# root if the netns cannot be made.  Addresses: 198.18.1.0/24, only
# inside the netns this script creates.

set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-lc.XXXXXX)
NS=vhlc$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
ITEST=$BUILD/tests/vdrv_itest
TOOL=$BUILD/tests/vdrv_tool

for f in "$VHOSTD" "$ITEST" "$TOOL"; do
	[ -x "$f" ] || { echo "missing $f (make O=$BUILD first)"; exit 2; }
done

# Sanitizer reports in vhostd's log: SAN_RE (lib.sh).
if grep -q __asan_init "$VHOSTD" 2>/dev/null; then
	SAN="ASan build"
else
	SAN="not a sanitizer build"
fi

# done_test NAME DETAIL [OUTFILE]: stop vhostd if still running, check its
#   log for sanitizer reports, record the result
done_test() {
	if [ -n "$VPID" ]; then
		stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	fi
	grep -qE "$SAN_RE" "$TMP/vhostd.log" 2>/dev/null &&
		fail "sanitizer: $(grep -m1 -E "$SAN_RE" "$TMP/vhostd.log")"
	result "$1" "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-$2}" "${3:-}"
	ERR=
}

# Counter checks after each run_itest scenario, while vhostd still runs.
ITEST_POST=itest_post

# itest_post NAME NPORTS: counters vhostd must show after the scenario
itest_post() {
	local i
	for i in $(seq 0 $(($2 - 1))); do
		check_ctr "vu$i" .violations -eq 0
	done
	case $1 in
	scale|packed-scale)
		grep -q "running: $2 port(s), 6 worker(s)" "$TMP/vhostd.log" ||
			fail "vhostd did not run $2 ports on 6 workers"
		# Each guest sent 2 broadcasts and 2 x 15 unicasts, and got
		# 2 x 15 of each (probes come on top).
		for i in $(seq 0 $(($2 - 1))); do
			check_ctr "vu$i" .rx_packets -ge 32
			check_ctr "vu$i" .tx_packets -ge 60
		done
		;;
	esac
}

# ---- client mode: vhostd first, the listening peer comes and goes -------------
if wanted client-mode-rounds; then
	ERR=
	rm -f "$TMP/c0.sock"
	"$VHOSTD" --ctl "$TMP/ctl" \
		--port "vhost-user,path=$TMP/c0.sock,name=vu0,client" \
		--port "vhost-user,path=$TMP/p1.sock,name=vu1" \
		>"$TMP/vhostd.log" 2>&1 &
	VPID=$!
	wait_for "$TMP/ctl" || fail "vhostd did not start"
	grep -q 'vu0: .*not reachable yet' "$TMP/vhostd.log" ||
		fail "vu0 did not report its peer missing"
	# Let vhostd retry at least once against the missing socket.
	sleep 1.5
	VDRV_ITEST_CTL=$TMP/ctl timeout 120 "$ITEST" client-rounds \
		"$TMP/c0.sock" "$TMP/p1.sock" >"$TMP/it.out" 2>&1 ||
		fail "$(grep -m1 FAIL "$TMP/it.out" || echo "vdrv_itest failed")"
	# Counted, not read from the log: the log is rate limited per port.
	check_ctr vu0 .connects -eq 7
	check_ctr vu0 .violations -eq 0
	check_ctr vu1 .violations -eq 0
	done_test client-mode-rounds \
		"7 connections by vhostd (6 rounds: clean/abrupt, at once, after ENOENT, after ECONNREFUSED)" \
		"$TMP/it.out"
fi

# ---- rings disabled and re-enabled, MTU, many ports --------------------------
run_itest ring-enable ring-enable 3
run_itest mtu mtu 3
run_itest scale scale 16 --workers 6
# The same over packed rings (held RX chains given back across a
# disable, wrap counters and all), and half the ports packed at scale.
run_itest packed-ring-enable packed:ring-enable 3
run_itest packed-scale mixed:scale 16 --workers 6

# ---- SIGTERM under a flood ------------------------------------------------------
if wanted sigterm-flood; then
	ERR=
	start_vhostd -- 2 || fail "vhostd did not start"
	"$ITEST" flood-hangup "$TMP/p0.sock" "$TMP/p1.sock" >"$TMP/it.out" 2>&1 &
	FPID=$!
	BGPIDS+=("$FPID")
	end=$((SECONDS + 30))
	until grep -q '^FLOWING' "$TMP/it.out"; do
		if ! kill -0 "$FPID" 2>/dev/null || [ $SECONDS -ge $end ]; then
			fail "flood never flowing: $(grep -m1 FAIL "$TMP/it.out")"
			break
		fi
		sleep 0.05
	done
	check_ctr vu1 .tx_packets -ge 2000
	t0=$(date +%s%N)
	kill -TERM "$VPID"
	wait_exit "$VPID" 10
	st=$?
	dt=$((($(date +%s%N) - t0) / 1000000))
	VPID=
	[ $st = 0 ] || fail "vhostd exit status $st on SIGTERM under a flood (124: still running after 10 s)"
	# The guests see their connections closed (not a hang) and got only
	# intact frames in order.
	wait_exit "$FPID" 15 ||
		fail "guests: $(grep -m1 FAIL "$TMP/it.out" || echo "no hang-up seen")"
	grep -q 'signal 15, shutting down' "$TMP/vhostd.log" || fail "no shutdown logged"
	done_test sigterm-flood \
		"exit 0 in ${dt} ms under a flood; guests saw the hang-up $(grep -o '[0-9]* ms after FLOWING' "$TMP/it.out"), $(grep -o 'B got [0-9]* of [0-9]* frames' "$TMP/it.out"); no sanitizer report ($SAN)" \
		"$TMP/it.out"
fi

# ---- SIGINT: exit 0, and the files vhostd made are gone -------------------------
if wanted sigint-clean; then
	ERR=
	# A socket file vhostd does not own: its client port's peer, gone.
	# socat leaves it behind (unlink-close=0): connects are refused.
	socat "UNIX-LISTEN:$TMP/other.sock,unlink-close=0" /dev/null &
	SPID=$!
	wait_for "$TMP/other.sock" || fail "no peer socket"
	kill "$SPID"
	wait "$SPID" 2>/dev/null
	start_vhostd -- 2 --port "vhost-user,path=$TMP/other.sock,name=cl,client" ||
		fail "vhostd did not start"
	"$TOOL" responder --sock "$TMP/p0.sock" --mac 02:00:00:00:0e:01 \
		--ip 198.18.1.5 --seconds 30 >"$TMP/r.out" 2>&1 &
	RPID=$!
	BGPIDS+=("$RPID")
	wait_up 10 vu0
	t0=$(date +%s%N)
	kill -INT "$VPID"
	wait_exit "$VPID" 10
	st=$?
	dt=$((($(date +%s%N) - t0) / 1000000))
	VPID=
	[ $st = 0 ] || fail "exit status $st on SIGINT"
	grep -q 'signal 2, shutting down' "$TMP/vhostd.log" || fail "no shutdown logged"
	# doc/vhostd.8: the control socket file is removed; so are the
	# sockets vhostd listened on; the peer's is not vhostd's to remove.
	for f in ctl p0.sock p1.sock; do
		[ -e "$TMP/$f" ] && fail "$f left behind"
	done
	[ -S "$TMP/other.sock" ] || fail "the client port's peer socket was removed"
	# The guest saw the connection close: its next wait ends in an error.
	wait_exit "$RPID" 10
	rc=$?
	[ $rc != 124 ] || fail "responder still running 10 s after vhostd left"
	done_test sigint-clean "exit 0 in ${dt} ms; ctl and port sockets removed, the peer's kept ($SAN)"
fi

# ---- --state: learned MACs and counters across a restart -----------------------

# guests_up OUT: vdrv_itest ctl-guests on p0..p2 in the background (GPID),
#   until READY; its "MAC vu<i> <mac>" lines are what the FDB must hold
guests_up() {
	# shellcheck disable=SC2046 # word splitting on purpose
	VDRV_ITEST_CTL=$TMP/ctl "$ITEST" ctl-guests $(socks 3) >"$1" 2>&1 &
	GPID=$!
	BGPIDS+=("$GPID")
	local end=$((SECONDS + 30))
	until grep -q '^READY' "$1" 2>/dev/null; do
		kill -0 "$GPID" 2>/dev/null || { fail "guests: $(tail -n 1 "$1")"; return 1; }
		[ $SECONDS -lt $end ] || { fail "guests never READY"; return 1; }
		sleep 0.05
	done
}

# fdb_holds OUT: every "MAC vu<i> <mac>" line of OUT is in vhostd's fdb
fdb_holds() {
	local fdb port mac n=0
	fdb=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" fdb) || { fail "no fdb"; return 1; }
	while read -r _ port mac; do
		grep -q "\"mac\":\"$mac\",\"port\":\"$port\"" <<<"$fdb" ||
			fail "$mac on $port not in the MAC table"
		n=$((n + 1))
	done < <(grep '^MAC ' "$1")
	[ "$n" -ge 3 ] || fail "only $n MACs announced"
	MACS=$n
}

if wanted state-restart; then
	ERR=
	rm -f "$TMP/state"
	start_vhostd -- 3 --state "$TMP/state" || fail "vhostd did not start"
	guests_up "$TMP/g.out"
	# Idle guests from here: the counters stand still.  One periodic
	# save (every 5 s) must have happened before the kill.
	sleep 6
	before=()
	for p in vu0 vu1 vu2; do
		before+=("$(ctr $p .rx_packets)/$(ctr $p .tx_packets)")
	done
	kill -KILL "$VPID"
	wait "$VPID" 2>/dev/null
	VPID=
	kill -KILL "$GPID" 2>/dev/null
	wait "$GPID" 2>/dev/null
	start_vhostd -- 3 --state "$TMP/state" || fail "vhostd did not restart"
	grep -q "state: restored the counters of 3 port(s) and [1-9][0-9]* MAC(s)" \
		"$TMP/vhostd.log" || fail "no restore line: $(grep -m1 state: "$TMP/vhostd.log")"
	fdb_holds "$TMP/g.out"
	i=0
	for p in vu0 vu1 vu2; do
		now="$(ctr $p .rx_packets)/$(ctr $p .tx_packets)"
		[ "$now" = "${before[$i]}" ] ||
			fail "$p rx/tx $now after the restart, ${before[$i]} before"
		i=$((i + 1))
	done
	# A clean exit saves too: the next start finds them again.
	stop_vhostd TERM || fail "vhostd exited uncleanly"
	start_vhostd -- 3 --state "$TMP/state" || fail "vhostd did not restart"
	fdb_holds "$TMP/g.out"
	done_test state-restart "SIGKILL under 3 guests, restarted: ${MACS:-0} MACs on their ports, rx/tx counters ${before[*]} as before; again after SIGTERM"
fi

if wanted state-corrupt; then
	ERR=
	# Two copies of garbage: nothing valid in either slot.
	head -c 300000 /dev/urandom >"$TMP/state"
	chmod 600 "$TMP/state"
	start_vhostd -- 3 --state "$TMP/state" || fail "vhostd did not start"
	grep -q "state: $TMP/state holds no valid copy" "$TMP/vhostd.log" ||
		fail "no warning about the corrupt file"
	check_ctr vu0 .rx_packets -eq 0
	basic 3
	stop_vhostd TERM || fail "vhostd exited uncleanly"
	start_vhostd -- 3 --state "$TMP/state" || fail "vhostd did not restart"
	grep -q "state: restored the counters of 3 port(s)" "$TMP/vhostd.log" ||
		fail "the file was not rewritten whole at exit"
	check_ctr vu0 .rx_packets -ge 1
	done_test state-corrupt "random bytes: ignored with a warning, counters from 0, forwarding; rewritten whole at exit"
fi

if wanted state-foreign; then
	ERR=
	for kind in writable symlink; do
		rm -f "$TMP/state" "$TMP/state.real"
		case $kind in
		writable) : >"$TMP/state"; chmod 666 "$TMP/state" ;;
		symlink) : >"$TMP/state.real"; ln -s "$TMP/state.real" "$TMP/state" ;;
		esac
		start_vhostd -- 3 --state "$TMP/state" || fail "$kind: vhostd did not start"
		grep -q "state: $TMP/state: .*: running without" "$TMP/vhostd.log" ||
			fail "$kind: no refusal logged"
		basic 3
		stop_vhostd TERM || fail "$kind: vhostd exited uncleanly"
		[ -s "$TMP/state" ] || [ -s "$TMP/state.real" ] &&
			fail "$kind: written although refused"
	done
	rm -f "$TMP/state" "$TMP/state.real"
	done_test state-foreign "world-writable file, symlink: refused with a warning, vhostd runs without, writes nothing"
fi

# ---- TAP link down/up under traffic --------------------------------------------
TAP=vhlctap0

# kernel_pings N: the netns kernel pings R N times; all must be answered
kernel_pings() {
	local out
	out=$(ip netns exec "$NS" ping -c "$1" -i 0.2 -W 5 198.18.1.2 2>&1)
	grep -q " $1 received" <<<"$out" ||
		fail "kernel -> R: $(grep -m1 -E 'received|unreachable' <<<"$out")"
}

# guest_pings N: a fresh vdrv pinger P resolves and pings the kernel
guest_pings() {
	local out
	out=$(timeout 60 "$TOOL" pinger --sock "$TMP/p2.sock" \
		--mac 02:00:00:00:1c:03 --ip 198.18.1.3 --peer-ip 198.18.1.1 \
		--count "$1" --interval-ms 1000 2>&1) || fail "P -> kernel: $out"
}

if wanted tap-down-up; then
	if ! netns_setup; then
		no_netns tap-down-up
	else
		ERR=
		start_vhostd ip netns exec "$NS" -- 3 \
			--port "tap,ifname=$TAP,name=tap0" || fail "vhostd did not start"
		for i in $(seq 100); do
			ip -n "$NS" link show "$TAP" >/dev/null 2>&1 && break
			sleep 0.05
		done
		if ! ip -n "$NS" addr add 198.18.1.1/24 dev "$TAP" ||
		   ! ip -n "$NS" link set "$TAP" up; then
			fail "cannot set up $TAP"
		fi
		tapmac=$(ip -n "$NS" -j link show "$TAP" | jq -r '.[0].address')
		"$TOOL" responder --sock "$TMP/p1.sock" --mac 02:00:00:00:1c:02 \
			--ip 198.18.1.2 --seconds 120 >"$TMP/r.out" 2>&1 &
		RPID=$!
		BGPIDS+=("$RPID")
		"$TOOL" send --sock "$TMP/p0.sock" --mac 02:00:00:00:1c:01 \
			--dst "$tapmac" --len 200 --count 1000000000 \
			>"$TMP/f.out" 2>&1 &
		FPID=$!
		BGPIDS+=("$FPID")
		wait_up 10 vu1
		kernel_pings 3
		tx=$(ctr tap0 .tx_packets)
		wait_ctr 20 tap0 .tx_packets -ge $((${tx:-0} + 500))
		for _ in 1 2; do
			down=$(ctr tap0 .drops.port_down)
			ip -n "$NS" link set "$TAP" down || fail "link down"
			# The flood keeps coming: every frame is refused (EIO) and
			# counted at tap0 as port_down.
			wait_ctr 20 tap0 .drops.port_down -ge $((${down:-0} + 500))
			kill -0 "$VPID" 2>/dev/null || fail "vhostd died with $TAP down"
			ip -n "$NS" link set "$TAP" up || fail "link up"
			tx=$(ctr tap0 .tx_packets)
			wait_ctr 20 tap0 .tx_packets -ge $((${tx:-0} + 500))
			down=$(ctr tap0 .drops.port_down)
			kernel_pings 3
			guest_pings 3
			# While up, nothing more is refused as "down".
			check_ctr tap0 .drops.port_down -eq "${down:-x}"
		done
		kill -0 "$FPID" 2>/dev/null || fail "the flood stopped: $(cat "$TMP/f.out")"
		for p in tap0 vu0 vu1 vu2; do
			check_ctr $p .violations -eq 0
		done
		kill "$FPID" "$RPID" 2>/dev/null
		wait "$FPID" "$RPID" 2>/dev/null
		total=$(ctr tap0 .drops.port_down)
		# SIGINT: the TAP vhostd created goes with it (doc/vhostd.8).
		stop_vhostd INT || fail "vhostd exit status on SIGINT"
		ip -n "$NS" link show "$TAP" >/dev/null 2>&1 &&
			fail "$TAP still there after vhostd exited"
		done_test tap-down-up \
			"2 rounds: down -> ${total:-?} frames counted port_down, up -> flood, 3+3 pings each way; $TAP gone on SIGINT ($SAN)"
	fi
fi

it_summary
