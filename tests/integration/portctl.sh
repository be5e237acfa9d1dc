#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/portctl.sh - ports added and removed at run time:
# vhostctl port add SPEC, vhostctl port del NAME
#
#   vdrv guests (vdrv_tool)                     vhostctl
#
#   A pinger (p0)   B responder (p1)   C pinger (p2)    port add / port del
#        |               |                  |           of "vm9"/"churn"
#        +---------------+----- vhostd -----+---- vm9.sock / churn.sock
#                              --ctl ctl                 |
#                                                  X responder, sometimes
#
#   portctl-basic   add vm9 at run time, X on it answers A's pings (both
#                   ways through vm9), fdb has X's MAC on vm9; del vm9
#                   with X attached: socket file gone, not in "ports",
#                   none of its MACs in "fdb"; re-added under the same
#                   name: every counter 0, A pings X again
#   portctl-client  a client-mode port added before its peer listens:
#                   vhostd connects once X listens (retried once a
#                   second), A pings X; removed, X sees the hang-up
#   portctl-errors  duplicate name, duplicate path, the ctl path, an
#                   unknown key, tap at run time, table full (64 ports),
#                   del of an unknown name: each a one-line message on
#                   stderr naming what is wrong, exit 1; a default name
#                   skips names in use; vhostd unaffected (A pings B)
#   portctl-churn   A pings B as fast as replies come (every request and
#                   reply counted) while "churn" is added and removed at
#                   least 20 times, every other time with X attached and
#                   C pinging X: A loses no ping; the same stream without
#                   churn first, as the baseline
#   portctl-tap     netns vhpc<pid>: vhostd --port tap (vhpctap0
#                   198.18.4.1/24, multi-queue), vm9 added at run time
#                   with X (198.18.4.9) on it: the kernel pings X, the
#                   TAP's timer attaches no tun queue for vm9 (one
#                   warning; no seccomp kill in the ASan build, which
#                   allows open()); the TAP port removed (interface
#                   gone) and refused when added back
#   portctl-tap-gone the TAP's interface deleted under a running vhostd
#                   (ip link del): the port goes down with one line
#                   instead of a worker spinning on EBADFD; the guests go
#                   on; port del removes it
#   portctl-state   --state: vu1 with counters and a MAC removed, vhostd
#                   killed (SIGKILL) at once and restarted with vu1 on
#                   its command line: vu1 comes back empty, not with the
#                   removed port's counters or MACs
#
# Usage: tests/integration/portctl.sh [NAME-GLOB...]  (BUILD=dir, default
# build; VHOSTD_USER=nobody as tests/run.sh runs it).  Unix sockets, and
# for portctl-tap a netns made here (root; skipped without); addresses
# are 198.18.0.0/15, never outside vdrv or that netns.

set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-portctl.XXXXXX)
NS=vhpc$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
TOOL=$BUILD/tests/vdrv_tool

for f in "$VHOSTD" "$TOOL"; do
	[ -x "$f" ] || { echo "missing $f (make O=$BUILD)"; exit 2; }
done

MAC_A=02:00:00:00:1a:01
MAC_B=02:00:00:00:1a:02
MAC_C=02:00:00:00:1a:03
MAC_X=02:00:00:00:1a:09
IP_A=198.18.1.1
IP_B=198.18.1.2
IP_C=198.18.1.3
IP_X=198.18.1.9

# add SPEC: port add that must succeed; prints the reply's index
add() {
	vc port add "$1" || { fail "port add $1: $(cat "$TMP/vc.err")"; return 1; }
	jq -e -r 'select(.ok == true) | .port.idx' "$TMP/vc.out" 2>/dev/null ||
		{ fail "port add $1: reply $(cat "$TMP/vc.out")"; return 1; }
}

# del NAME: port del that must succeed
del() {
	vc port del "$1" || { fail "port del $1: $(cat "$TMP/vc.err")"; return 1; }
	jq -e 'select(.ok == true)' "$TMP/vc.out" >/dev/null 2>&1 ||
		{ fail "port del $1: reply $(cat "$TMP/vc.out")"; return 1; }
}

# refused WHAT PATTERN ARGS...: vhostctl ARGS must exit 1 with a JSON
#   error on stderr whose message matches PATTERN, nothing on stdout
refused() {
	local what=$1 re=$2 rc msg
	shift 2
	vc "$@"
	rc=$?
	msg=$(jq -r '.error | strings' "$TMP/vc.err" 2>/dev/null)
	if [ $rc != 1 ] || [ -s "$TMP/vc.out" ] || ! [[ $msg =~ $re ]]; then
		fail "$what: rc $rc, stderr '$(head -c 200 "$TMP/vc.err")', want /$re/"
		return 1
	fi
	MSGS+=("$msg")
}

# listed NAME: whether "ports" lists NAME
listed() {
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" ports |
		jq -e --arg n "$1" '[.ports[] | select(.name == $n)] | length > 0' >/dev/null
}

# fdb_has MAC-OR-PORT: whether "fdb" has an entry with that MAC or port
fdb_has() {
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" fdb |
		jq -e --arg k "$1" '[.fdb[] | select(.mac == $k or .port == $k)] | length > 0' >/dev/null
}

# ctr_sum NAME: the sum of every counter of port NAME (idx, macs, what it
#   negotiated and its l2 settings left out: those are state, not counters)
ctr_sum() {
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" stats |
		jq -e -r --arg n "$1" '[.ports[] | select(.name == $n) |
			del(.idx, .macs, .negotiated, .l2) | .. | numbers] | add // 0'
}

# responder SOCK SECONDS: X on SOCK in the background (XPID)
responder() {
	"$TOOL" responder --sock "$1" --mac "$MAC_X" --ip "$IP_X" \
		--seconds "$2" >"$TMP/x.out" 2>&1 &
	XPID=$!
	BGPIDS+=("$XPID")
}

# reap PID: wait for a guest we started (SIGTERM first); status ignored:
#   a guest whose port vanished under it reports that, on purpose here
reap() {
	kill -TERM "$1" 2>/dev/null
	wait_exit "$1" 10 >/dev/null 2>&1
	return 0
}

# ab_start: B responds on p1 (BPID), until killed
ab_start() {
	"$TOOL" responder --sock "$TMP/p1.sock" --mac "$MAC_B" --ip "$IP_B" \
		>"$TMP/b.out" 2>&1 &
	BPID=$!
	BGPIDS+=("$BPID")
	wait_up 10 vu1
}

# done_test NAME DETAIL: vhostd must still be alive and exit cleanly
done_test() {
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result "$1" "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-$2}"
	ERR=
}

# ---- portctl-basic --------------------------------------------------------
if wanted portctl-basic; then
	ERR=
	start_vhostd -- 2 || fail "vhostd did not start"
	SPEC="vhost-user,path=$TMP/vm9.sock,name=vm9"
	idx=$(add "$SPEC")
	[ -S "$TMP/vm9.sock" ] || fail "no socket file after port add"
	listed vm9 || fail "ports does not list vm9"
	responder "$TMP/vm9.sock" 60
	wait_up 10 vm9
	out=$(timeout 60 "$TOOL" pinger --sock "$TMP/p0.sock" --mac "$MAC_A" \
		--ip "$IP_A" --peer-ip "$IP_X" --count 20 --interval-ms 0 \
		--timeout-ms 3000 2>&1) || fail "A -> vm9: $out"
	check_ctr vm9 .rx_packets -ge 20
	check_ctr vm9 .tx_packets -ge 20
	fdb_has "$MAC_X" || fail "fdb lacks X's MAC"
	del vm9
	[ -e "$TMP/vm9.sock" ] && fail "socket file left after port del"
	listed vm9 && fail "ports still lists vm9"
	fdb_has "$MAC_X" && fail "fdb still has X's MAC"
	fdb_has vm9 && fail "fdb still has an entry on vm9"
	reap "$XPID"
	idx2=$(add "$SPEC")
	[ "$idx2" = "$idx" ] || fail "re-added in slot $idx2, not $idx"
	sum=$(ctr_sum vm9)
	[ "$sum" = 0 ] || fail "re-added vm9 starts with counters summing to $sum"
	responder "$TMP/vm9.sock" 60
	wait_up 10 vm9
	out=$(timeout 60 "$TOOL" pinger --sock "$TMP/p0.sock" --mac "$MAC_A" \
		--ip "$IP_A" --peer-ip "$IP_X" --count 5 --interval-ms 0 \
		--timeout-ms 3000 2>&1) || fail "A -> re-added vm9: $out"
	reap "$XPID"
	done_test portctl-basic "added at run time, 20 pings each way, removed (socket, ports, fdb clean), re-added in slot $idx with counters 0, pings again"
fi

# ---- portctl-client -------------------------------------------------------
if wanted portctl-client; then
	ERR=
	start_vhostd -- 1 || fail "vhostd did not start"
	add "vhost-user,path=$TMP/cl.sock,client,name=cl" >/dev/null
	[ -e "$TMP/cl.sock" ] && fail "a client port created its path"
	# The peer comes after: vhostd's once-a-second retry finds it.
	sleep 1.2
	"$TOOL" responder --listen --sock "$TMP/cl.sock" --mac "$MAC_X" \
		--ip "$IP_X" --seconds 60 >"$TMP/x.out" 2>&1 &
	XPID=$!
	BGPIDS+=("$XPID")
	# X runs as root: let vhostd (VHOSTD_USER) connect to its socket.
	wait_for "$TMP/cl.sock" && chmod 0666 "$TMP/cl.sock"
	wait_up 10 cl
	out=$(timeout 60 "$TOOL" pinger --sock "$TMP/p0.sock" --mac "$MAC_A" \
		--ip "$IP_A" --peer-ip "$IP_X" --count 10 --interval-ms 0 \
		--timeout-ms 3000 2>&1) || fail "A -> cl: $out"
	check_ctr cl .connects -eq 1
	del cl
	# X is told: its connection hangs up and it exits.
	wait_exit "$XPID" 10 >/dev/null 2>&1
	[ $? = 124 ] && fail "X did not see the hang-up"
	listed cl && fail "ports still lists cl"
	done_test portctl-client "added before its peer listened, connected by the retry, 10 pings, removed: the peer saw the hang-up"
fi

# ---- portctl-errors -------------------------------------------------------
if wanted portctl-errors; then
	ERR=
	MSGS=()
	start_vhostd -- 2 || fail "vhostd did not start"
	add "vhost-user,path=$TMP/vm9.sock,name=vm9" >/dev/null
	refused "duplicate name" "^port add: name 'vu0' is already in use" \
		port add "vhost-user,path=$TMP/x.sock,name=vu0"
	refused "duplicate path" "^port add: path '$TMP/p1.sock' is already used by port 'vu1'$" \
		port add "vhost-user,path=$TMP/p1.sock,name=x"
	refused "ctl path" "^port add: path '$TMP/ctl' is the control socket's$" \
		port add "vhost-user,path=$TMP/ctl,name=x"
	refused "bad key" "^port add: '.*': unknown key 'colour'$" \
		port add "vhost-user,path=$TMP/x.sock,colour=blue"
	refused "bad value" "^port add: '.*': offload takes on or off, not 'maybe'$" \
		port add "vhost-user,path=$TMP/x.sock,offload=maybe"
	refused "no path" "^port add: '.*': missing required key 'path'$" \
		port add "vhost-user,name=x"
	refused "tap" "^port add: tap ports need privileges vhostd dropped at start-up; add them on the command line$" \
		port add "tap,ifname=vhpc0"
	refused "unknown del" "^port del: no port named 'nosuch'$" \
		port del nosuch
	[ -e "$TMP/x.sock" ] && fail "a refused spec left $TMP/x.sock"
	# A default name is the slot's "vu<N>", or the next one nobody has.
	add "vhost-user,path=$TMP/d3.sock,name=vu4" >/dev/null
	add "vhost-user,path=$TMP/d4.sock" >/dev/null
	jq -e '.port.name == "vu5" and .port.idx == 4' "$TMP/vc.out" >/dev/null ||
		fail "default name: $(cat "$TMP/vc.out")"
	# Fill the table: 64 ports.
	n=5
	while [ $n -lt 64 ]; do
		vc port add "vhost-user,path=$TMP/f$n.sock,name=f$n" ||
			{ fail "port $n: $(cat "$TMP/vc.err")"; break; }
		n=$((n + 1))
	done
	refused "table full" "^port add: the port table is full \(64 ports\)$" \
		port add "vhost-user,path=$TMP/x.sock,name=x"
	n=5
	while [ $n -lt 64 ]; do
		del "f$n" || break
		n=$((n + 1))
	done
	left=$(find "$TMP" -maxdepth 1 -name 'f*.sock' | wc -l)
	[ "$left" = 0 ] || fail "$left socket files left after port del"
	# Usage errors never reach the daemon: exit 2.
	vc port add; [ $? = 2 ] || fail "port add without SPEC: not exit 2"
	vc port add "a b"; [ $? = 2 ] || fail "port add 'a b': not exit 2"
	vc port del x y; [ $? = 2 ] || fail "port del x y: not exit 2"
	# Still forwarding, still answering.
	ab_start
	ping_a 20 || fail "A -> B after the errors: $(cat "$TMP/a.out")"
	reap "$BPID"
	[ "$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" ports | jq '.ports | length')" = 5 ] ||
		fail "ports: not the 5 expected"
	done_test portctl-errors "${#MSGS[@]} refusals, each one line naming the key or port, exit 1; table filled to 64 and emptied; default name skips names in use; A pings B after"
fi

# ---- portctl-churn --------------------------------------------------------
if wanted portctl-churn; then
	ERR=
	start_vhostd -- 3 || fail "vhostd did not start"
	ab_start
	# The baseline: the stream alone.  Its pace sizes the churn run.
	t0=$(date +%s%N)
	ping_a 3000 "$TMP/base.out" || fail "baseline: $(cat "$TMP/base.out")"
	t1=$(date +%s%N)
	read -r bs br < <(sent_recv "$TMP/base.out")
	rate=$(( ${br:-0} * 1000000000 / (t1 - t0 + 1) ))
	# About 12 s of the same stream, enough for 20 cycles on 2 cores.
	count=$(( rate * 12 ))
	[ $count -ge 2000 ] || count=2000
	ping_a "$count" "$TMP/a.out" &
	APID=$!
	BGPIDS+=("$APID")
	cycles=0 attached=0 cgot=0
	SPEC="vhost-user,path=$TMP/churn.sock,name=churn"
	while [ $cycles -lt 20 ] || kill -0 "$APID" 2>/dev/null; do
		[ $cycles -lt 200 ] || break
		add "$SPEC" >/dev/null || break
		if [ $((cycles % 2)) = 0 ]; then
			responder "$TMP/churn.sock" 60
			if wait_up 10 churn; then
				"$TOOL" pinger --sock "$TMP/p2.sock" --mac "$MAC_C" \
					--ip "$IP_C" --peer-ip "$IP_X" --count 1000000 \
					--interval-ms 0 --timeout-ms 200 --expect 0 \
					>"$TMP/c.out" 2>&1 &
				CPID=$!
				BGPIDS+=("$CPID")
				sleep 0.3
				attached=$((attached + 1))
			fi
		fi
		del churn || break
		[ -e "$TMP/churn.sock" ] && { fail "cycle $cycles: socket file left"; break; }
		if [ $((cycles % 2)) = 0 ]; then
			reap "$XPID"
			reap "${CPID:-}"
			CPID=
			read -r _ cr < <(sent_recv "$TMP/c.out")
			cgot=$((cgot + ${cr:-0}))
		fi
		cycles=$((cycles + 1))
	done
	wait "$APID"
	arc=$?
	read -r s r < <(sent_recv "$TMP/a.out")
	if [ $arc != 0 ] || [ "${s:-x}" != "${r:-y}" ]; then
		fail "A -> B under churn: $(cat "$TMP/a.out")"
	fi
	[ $cycles -ge 20 ] || fail "only $cycles add/del cycles"
	[ $cgot -gt 0 ] || fail "X never answered C: no traffic through churn"
	listed churn && fail "ports still lists churn"
	fdb_has churn && fail "fdb has entries on churn"
	fdb_has "$MAC_X" && fail "fdb still has X's MAC"
	reap "$BPID"
	done_test portctl-churn "baseline $bs pings, $((bs - br)) lost; under $cycles add/del cycles ($attached with X attached, answering $cgot of C's pings): $s pings, $((s - r)) lost"
fi

# ---- portctl-tap ----------------------------------------------------------
if wanted portctl-tap; then
	# shellcheck disable=SC2119 # no argument: IPv6 off
	if ! netns_setup; then
		no_netns portctl-tap
	else
		ERR=
		start_vhostd ip netns exec "$NS" -- 1 \
			--port tap,ifname=vhpctap0,name=tap0,offload=off ||
			fail "vhostd did not start"
		tap_up vhpctap0 198.18.4.1/24 || fail "no vhpctap0"
		add "vhost-user,path=$TMP/vm9.sock,name=vm9" >/dev/null
		"$TOOL" responder --sock "$TMP/vm9.sock" --mac "$MAC_X" \
			--ip 198.18.4.9 --seconds 60 >"$TMP/x.out" 2>&1 &
		XPID=$!
		BGPIDS+=("$XPID")
		wait_up 10 vm9
		out=$(ip netns exec "$NS" ping -c 3 -i 0.3 -W 5 198.18.4.9 2>&1)
		echo "$out" | grep -q ' 3 received' ||
			fail "ping to vm9: $(echo "$out" | grep -m1 received)"
		# The TAP's timer has seen vm9 (once a second) and let it be.
		sleep 1.5
		grep -q "tap0: no tun queue for vm9" "$TMP/vhostd.log" ||
			fail "no 'no tun queue for vm9' line"
		del vm9
		reap "$XPID"
		del tap0
		ip -n "$NS" link show vhpctap0 >/dev/null 2>&1 &&
			fail "vhpctap0 still there after port del tap0"
		MSGS=()
		refused "tap again" "^port add: tap ports need privileges" \
			port add "tap,ifname=vhpctap0,name=tap0"
		grep -q "seccomp: syscall" "$TMP/vhostd.log" &&
			fail "$(grep -m1 'seccomp: syscall' "$TMP/vhostd.log")"
		done_test portctl-tap "vm9 added next to a multi-queue TAP: 3/3 kernel pings, no tun queue attached (bounce path), no seccomp kill; the TAP removed and refused back"
	fi
fi

# ---- portctl-tap-gone -----------------------------------------------------
if wanted portctl-tap-gone; then
	# shellcheck disable=SC2119 # no argument: IPv6 off
	if ! netns_setup; then
		no_netns portctl-tap-gone
	else
		ERR=
		start_vhostd ip netns exec "$NS" -- 2 \
			--port tap,ifname=vhpctap1,name=tap1 ||
			fail "vhostd did not start"
		tap_up vhpctap1 198.18.4.1/24 || fail "no vhpctap1"
		ab_start
		# The interface deleted under vhostd: its fds fail with EBADFD
		# from then on, which must not keep a worker spinning.
		ip -n "$NS" link del vhpctap1 || fail "cannot delete vhpctap1"
		sleep 2.5
		c0=$(awk '{ print $14 + $15 }' "/proc/$VPID/stat")
		sleep 2
		c1=$(awk '{ print $14 + $15 }' "/proc/$VPID/stat")
		ticks=$((c1 - c0))
		[ $ticks -le 20 ] || fail "vhostd used $ticks ticks in 2 s after the TAP went (spinning)"
		[ "$(ctr tap1 .up)" = false ] || fail "tap1 still up"
		grep -q "tap vhpctap1: the interface is gone" "$TMP/vhostd.log" ||
			fail "no 'the interface is gone' line"
		ping_a 20 || fail "A -> B after the TAP went: $(cat "$TMP/a.out")"
		del tap1
		reap "$BPID"
		done_test portctl-tap-gone "the TAP's interface deleted under vhostd: port down within 1 s, one line, $ticks CPU ticks in the 2 s after; A still pings B; port del tap1 works"
	fi
fi

# ---- portctl-state --------------------------------------------------------
if wanted portctl-state; then
	ERR=
	rm -f "$TMP/state"
	start_vhostd -- 2 --state "$TMP/state" || fail "vhostd did not start"
	ab_start
	ping_a 20 || fail "A -> B: $(cat "$TMP/a.out")"
	reap "$BPID"
	# Saved once with vu1's counters and B's MAC (every 5 s).
	sleep 6
	del vu1
	kill -KILL "$VPID"
	wait "$VPID" 2>/dev/null
	VPID=
	start_vhostd -- 2 --state "$TMP/state" || fail "vhostd did not restart"
	sum=$(ctr_sum vu1)
	[ "$sum" = 0 ] || fail "vu1 came back with counters summing to $sum"
	fdb_has "$MAC_B" && fail "B's MAC came back"
	check_ctr vu0 .tx_packets -ge 20
	done_test portctl-state "vu1 removed, SIGKILL at once: restarted with vu1 empty (counters 0, no MAC), vu0's counters restored"
fi

it_summary
