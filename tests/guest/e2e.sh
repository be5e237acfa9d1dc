#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/guest/e2e.sh - two real QEMU guests switched by vhostd, plus a rogue
# vhost-user client that must not disturb them.
#
#   netns vhg-e2e-PID
#   +------------------------------------------------------------------+
#   |  vh0 198.18.0.1/24 (host end)                                    |
#   |   |  tap                                                         |
#   |  +-----------------------------------------------------------+  |
#   |  | vhostd  port host (tap vh0)   --ctl DIR/ctl.sock           |  |
#   |  |         port vm1  DIR/vm1.sock   port vm2  DIR/vm2.sock    |  |
#   |  |         port rogue DIR/rogue.sock <-- malformed messages   |  |
#   |  +-----------------------------------------------------------+  |
#   |        | vhost-user              | vhost-user                    |
#   |   QEMU g1 virtio-net        QEMU g2 virtio-net   (TCG, vectors=0)|
#   |   eth0 198.18.0.11/24       eth0 198.18.0.12/24                  |
#   +------------------------------------------------------------------+
#
# Steps: the suite of lib.sh (ping g1<->g2, host<->g1, iperf3 g1->g2 -t,
# g2->g1 -n 100M, host->g1, g1->host), then (unless E2E_ROGUE=0) the
# robustness step: g1 pings g2 continuously while malformed vhost-user
# messages hit the rogue port; vhostd must stay up and the ping lose nothing.
# Environment: VHOSTD (default build/vhostd), VHOSTD_ARGS (extra options),
# E2E_PORT_OPTS (appended to every --port spec, e.g. ",offload=off"),
# E2E_RESTART (default 1: a third guest g3 whose QEMU listens, reached by
# vhostd's client port vm3, and after the suite vhostd killed with SIGKILL
# and started again: all three guests must talk again without a reboot),
# VDRV_TOOL (default build/tests/vdrv_tool, used when present), VG_DURATION,
# VG_REPS, VG_RESULTS, E2E_ROGUE, E2E_MQ (default 1: at the end, mq.sh's
# guest with 4 queue pairs), KEEP=1 keeps the work directory.
# With $TEST_RESULTS set (tests/run.sh), one line for the whole table and
# mq.sh's own.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"

VHOSTD=${VHOSTD:-$ROOT/build/vhostd}
VDRV_TOOL=${VDRV_TOOL:-$(dirname "$VHOSTD")/tests/vdrv_tool}
E2E_ROGUE=${E2E_ROGUE:-1}
E2E_RESTART=${E2E_RESTART:-1}
E2E_MQ=${E2E_MQ:-1}
read -r -a VHOSTD_EXTRA <<<"${VHOSTD_ARGS:-}"
# Appended to every --port spec, e.g. ",offload=off" (compare.sh).
PORT_OPTS=${E2E_PORT_OPTS:-}

[ "$(id -u)" = 0 ] || vg_die "needs root (netns, tap)"
[ -x "$VHOSTD" ] || vg_die "no vhostd binary at $VHOSTD (build it, or set VHOSTD=)"
vg_ensure_image
VHOSTD=$(realpath "$VHOSTD")

NS=vhg-e2e-$$
NS_MADE=0
VHOSTD_PID=
VG_DIR=$(mktemp -d /tmp/vhg-e2e.XXXXXX)
VLOG=$VG_DIR/vhostd.log

vg_precheck() { vg_vhostd_alive || vg_die "vhostd (pid $VHOSTD_PID) has exited"; }
trap vg_cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$NS"
NS_MADE=1
ip -n "$NS" link set lo up

# start_vhostd: vhostd in the netns, its TAP vh0 addressed and up
#   (again after a restart: a non-persistent TAP goes with the process).
#   ip netns exec execs the program, so $! is vhostd's own PID.
have_vh0() { ip -n "$NS" link show vh0 >/dev/null 2>&1; }
VM3_PORT=()
[ "$E2E_RESTART" = 1 ] &&
	VM3_PORT=(--port "vhost-user,path=$VG_DIR/vm3.sock,name=vm3,client$PORT_OPTS")
start_vhostd() {
	ip netns exec "$NS" "$VHOSTD" \
		--port "vhost-user,path=$VG_DIR/vm1.sock,name=vm1$PORT_OPTS" \
		--port "vhost-user,path=$VG_DIR/vm2.sock,name=vm2$PORT_OPTS" \
		--port "vhost-user,path=$VG_DIR/rogue.sock,name=rogue$PORT_OPTS" \
		"${VM3_PORT[@]}" \
		--port "tap,ifname=vh0,name=host$PORT_OPTS" \
		--ctl "$VG_DIR/ctl.sock" "${VHOSTD_EXTRA[@]}" \
		</dev/null >>"$VLOG" 2>&1 &
	VHOSTD_PID=$!
	vg_log "vhostd pid $VHOSTD_PID: $VHOSTD"
	vg_wait_for 10 "vm1.sock" test -S "$VG_DIR/vm1.sock"
	vg_wait_for 10 "vm2.sock" test -S "$VG_DIR/vm2.sock"
	vg_wait_for 10 "tap vh0" have_vh0
	ip -n "$NS" addr add 198.18.0.1/24 dev vh0
	ip -n "$NS" link set vh0 up
}
start_vhostd

vg_boot g1 --ip 198.18.0.11/24 --mac 52:54:00:18:00:11 --vhost "$VG_DIR/vm1.sock" --netns "$NS"
vg_boot g2 --ip 198.18.0.12/24 --mac 52:54:00:18:00:12 --vhost "$VG_DIR/vm2.sock" --netns "$NS"
# g3's QEMU listens; vhostd's client port vm3 connects to it.
[ "$E2E_RESTART" = 1 ] &&
	vg_boot g3 --ip 198.18.0.13/24 --mac 52:54:00:18:00:13 --vhost-server "$VG_DIR/vm3.sock" --netns "$NS"
vg_wait_ready g1 || vg_die "g1 did not boot"
vg_wait_ready g2 || vg_die "g2 did not boot"
[ "$E2E_RESTART" = 1 ] && { vg_wait_ready g3 || vg_die "g3 did not boot"; }

rc=0
vg_suite "$NS" 198.18.0.1 g1 198.18.0.11 g2 198.18.0.12 || rc=1
# vhostd in client mode: g3 (QEMU as server) reaches g1.
if [ "$E2E_RESTART" = 1 ]; then
	rc2=0; out=$(vg_run g3 40 "/usr/bin/ping -c 3 -i 0.2 -W 5 -w 30 198.18.0.11") || rc2=$?
	vg_ping_row "ping g3 -> g1 (client port)" "$rc2" "$out" 198.18.0.11
	[ "$rc2" = 0 ] || rc=1
fi
if vg_vhostd_alive; then
	vg_row "vhostd alive after suite" ok - - "pid $VHOSTD_PID"
else
	vg_row "vhostd alive after suite" FAIL - - "vhostd exited"
	rc=1
fi

# vhostctl (when built next to vhostd) must list the ports.
VHOSTCTL=${VHOSTCTL:-$(dirname "$VHOSTD")/vhostctl}
if [ -x "$VHOSTCTL" ]; then
	r=0; out=$(timeout 10 "$VHOSTCTL" --json --ctl "$VG_DIR/ctl.sock" ports 2>&1) || r=$?
	printf '%s\n' "$out" > "$VG_DIR/vhostctl-ports.json"
	if [ $r = 0 ] && grep -q '"vm1"' <<<"$out" && grep -q '"vm2"' <<<"$out"; then
		vg_row "vhostctl ports" ok - - "lists vm1, vm2 (saved: vhostctl-ports.json)"
	else
		vg_row "vhostctl ports" FAIL - - "rc=$r: ${out:0:60}"
		rc=1
	fi
fi

# host -> g1 (ping, iperf3) crossed the TAP: with eBPF steering on, the
# frames were read straight into g1's buffers (vm1's direct counter).  A
# kernel without it logs "no eBPF queue steering" and the row says so.
if [ -x "$VHOSTCTL" ] && command -v jq >/dev/null; then
	d=$(timeout 10 "$VHOSTCTL" --json --ctl "$VG_DIR/ctl.sock" stats 2>/dev/null |
		jq -r '.ports[] | select(.name == "vm1") | .direct.packets' 2>/dev/null) || d=
	if [[ $d =~ ^[0-9]+$ ]] && [ "$d" -gt 0 ]; then
		vg_row "host -> vm1 direct TAP reads" ok - - "$d frames read straight into g1"
	elif grep -q "no eBPF queue steering\|multi-queue refused" "$VLOG"; then
		vg_row "host -> vm1 direct TAP reads" ok - - "steering unavailable here (logged): two copies"
	else
		vg_row "host -> vm1 direct TAP reads" FAIL - - "vm1 direct.packets=${d:-?}"
		rc=1
	fi
fi

# ---- robustness: malformed vhost-user input on a third port ----
le32() {
	local n=$(($1 & 0xffffffff))
	printf "\\x$(printf %02x $((n & 255)))\\x$(printf %02x $(((n >> 8) & 255)))"
	printf "\\x$(printf %02x $(((n >> 16) & 255)))\\x$(printf %02x $(((n >> 24) & 255)))"
}
le64() { le32 $(($1 & 0xffffffff)); le32 $((($1 >> 32) & 0xffffffff)); }
hdr() { le32 "$1"; le32 "${3:-1}"; le32 "$2"; }	# request size [flags=version 1]

# One malformed stream per connection, named for the log.
rogue_msg() {
	case $1 in
	random) head -c 512 /dev/urandom ;;
	huge-size) hdr 1 0xffffffff ;;				# GET_FEATURES, size 4 GiB
	truncated) hdr 9 40; le64 0 ;;				# SET_VRING_ADDR cut short
	bad-version) hdr 1 0 0x7 ;;				# flags: version 7
	memtable-nofd) hdr 5 40; le32 1; le32 0			# SET_MEM_TABLE, no fd
		le64 0; le64 0x10000000; le64 0x7f0000000000; le64 0 ;;
	memtable-many) hdr 5 8; le32 1000; le32 0 ;;		# 1000 regions, no body
	vring-oob) hdr 3 0					# SET_OWNER, then bad rings
		hdr 8 8; le32 0xffff; le32 256			# VRING_NUM bad index
		hdr 8 8; le32 0; le32 0x8001			# VRING_NUM not pow2/huge
		hdr 9 40; le32 0; le32 0; le64 0xdeadbeef000	# VRING_ADDR, no memory
		le64 0xdeadbeef800; le64 0xdeadbef0000; le64 0
		hdr 10 8; le32 0; le32 0xffff			# VRING_BASE
		hdr 12 8; le64 0					# VRING_KICK, no fd
		hdr 11 8; le32 5; le32 0			# GET_VRING_BASE idx 5
		hdr 999 0 ;;					# unknown request
	reply-then-close) hdr 1 0 ;;				# GET_FEATURES, gone
	esac
}

# vdrv's enum vdrv_evil, protocol and ring violations (vdrv/vdrv.h).
EVIL_KINDS="garbage bad-size short unknown bad-version bad-ring mem-beyond-fd oob-desc
	oob-len loop loop-empty avail-jump bad-head indirect-nested indirect-oob rx-oob shrink
	long-chain huge-indirect same-head"

rogue_step() {
	local sock=$VG_DIR/rogue.sock k n=0 bad=0 out r evil_ok=0 kept=
	for k in random huge-size truncated bad-version memtable-nofd memtable-many \
		 vring-oob reply-then-close; do
		rogue_msg "$k" | timeout 5 socat -u -t 0.2 - "UNIX-CONNECT:$sock" 2>/dev/null || true
		n=$((n + 1))
		sleep 0.2
		vg_vhostd_alive || { vg_log "vhostd died after rogue message '$k'"; bad=1; break; }
	done
	# Connect/disconnect churn.
	for _ in $(seq 20); do
		timeout 2 socat -u /dev/null "UNIX-CONNECT:$sock" 2>/dev/null || true
	done
	if [ -x "$VDRV_TOOL" ] && vg_vhostd_alive; then
		for k in ${ROGUE_KINDS:-$EVIL_KINDS}; do
			out=$(timeout 20 "$VDRV_TOOL" evil --sock "$sock" --kind "$k" \
				--timeout-ms 500 2>&1) && r=0 || r=$?
			vg_log "vdrv_tool evil --kind $k: rc=$r: $(head -c 200 <<<"$out" | head -1)"
			[ $r = 2 ] && continue		# kind unknown to this build of the tool
			n=$((n + 1))
			case $r in
			0 | 3) evil_ok=$((evil_ok + 1)) ;;	# dropped / nacked
			# rx-oob breaks only at a delivery to the rogue port,
			# and nothing is sent to it here (evil-rx-oob in the
			# integration suite floods it): its connection stays.
			1) [ "$k" = rx-oob ] && grep -q 'alive (connection kept)' <<<"$out" &&
				evil_ok=$((evil_ok + 1)) || kept+=${kept:+,}$k ;;
			*) kept+=${kept:+,}$k ;;		# tool error
			esac
			vg_vhostd_alive || { vg_log "vhostd died after vdrv_tool --kind $k"; bad=1; break; }
		done
	else
		vg_log "no $VDRV_TOOL: raw malformed messages only"
	fi
	echo "$n $bad $evil_ok ${kept:--}"
}

if [ "$E2E_ROGUE" = 1 ] && vg_vhostd_alive; then
	# Both guests ping each other at 10 Hz, in rounds of 10, until told to
	# stop after the attack; every round must be lossless.
	for g in g1:198.18.0.12 g2:198.18.0.11; do
		vg_run "${g%%:*}" 10 "rm -f /tmp/stop /tmp/bg.log; (while [ ! -e /tmp/stop ]; do
			/usr/bin/ping -c 10 -i 0.1 -w 20 ${g#*:} >> /tmp/bg.log 2>&1 ||
			echo PINGFAIL >> /tmp/bg.log; done; echo BGDONE >> /tmp/bg.log) &" >/dev/null ||
			vg_die "cannot start background ping in ${g%%:*}"
	done
	sleep 1
	read -r nmsg bad evil_ok kept < <(rogue_step)
	if [ -x "$VDRV_TOOL" ]; then
		if [ "$kept" = - ]; then
			vg_row "rogue vdrv_tool evil kinds" ok - - "$evil_ok kinds handled as expected"
		else
			vg_row "rogue vdrv_tool evil kinds" FAIL - - "not dropped or nacked: $kept"
			rc=1
		fi
	fi
	if [ "$bad" = 0 ] && vg_vhostd_alive; then
		vg_row "rogue client: vhostd alive" ok - - "$nmsg malformed streams survived"
	else
		vg_row "rogue client: vhostd alive" FAIL - - "vhostd exited"
		rc=1
	fi
	for g in g1:198.18.0.12:g2 g2:198.18.0.11:g1; do
		IFS=: read -r gs gip gd <<<"$g"
		out=$(vg_run "$gs" 60 'touch /tmp/stop; while ! grep -q "^BGDONE" /tmp/bg.log; do
			sleep 0.2; done; cat /tmp/bg.log') || true
		rounds=$(grep -c ' packet loss' <<<"$out" || true)
		clean=$(grep -c ' 0% packet loss' <<<"$out" || true)
		if [ "$rounds" -gt 0 ] && [ "$rounds" = "$clean" ] && ! grep -q PINGFAIL <<<"$out" &&
		   grep -q "bytes from $gip:" <<<"$out"; then
			vg_row "ping $gs -> $gd during rogue" ok - - "$((rounds * 10)) pkts, 0% loss"
		else
			vg_row "ping $gs -> $gd during rogue" FAIL - - \
				"$clean of $rounds rounds lossless: $(grep -a 'packet loss' <<<"$out" |
				grep -v ' 0% packet loss' | head -1)"
			rc=1
		fi
	done
	# The datapath still works after the attack.
	rc2=0; out=$(vg_run g2 30 "/usr/bin/ping -c 3 -i 0.2 -w 20 198.18.0.11") || rc2=$?
	vg_ping_row "ping g2 -> g1 after rogue" "$rc2" "$out" 198.18.0.11
	[ "$rc2" = 0 ] || rc=1
fi

if vg_vhostd_alive && [ -x "$VHOSTCTL" ]; then
	timeout 10 "$VHOSTCTL" --json --ctl "$VG_DIR/ctl.sock" ports > "$VG_DIR/vhostctl-ports-end.json" 2>&1 || true
fi
if vg_vhostd_alive; then
	read -r -a st < <(sed 's/^.*) //' "/proc/$VHOSTD_PID/stat")
	cpu=$(awk -v u="${st[11]}" -v s="${st[12]}" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "%.1f", (u + s) / hz }')
	VG_NOTES+=("vhostd CPU time: ${cpu} s (user+sys) over ${SECONDS} s of test")
	vg_result vhostd_cpu_s "$cpu"
fi
# ---- crash and restart: SIGKILL under running guests, then start again --
# QEMU (reconnect=1) comes back by itself, and vhostd's client port
# reconnects to g3's QEMU: the guests must talk again, to each other and
# through the TAP, without a reboot.
if [ "$E2E_RESTART" = 1 ] && vg_vhostd_alive; then
	kill -KILL "$VHOSTD_PID"
	wait "$VHOSTD_PID" 2>/dev/null || true
	VHOSTD_PID=
	start_vhostd
	up2() {
		timeout 5 "$VHOSTCTL" --json --ctl "$VG_DIR/ctl.sock" stats 2>/dev/null |
			jq -e '[.ports[] | select(.name == "vm1" or .name == "vm2" or
				.name == "vm3") | .up] == [true, true, true]' >/dev/null
	}
	if [ -x "$VHOSTCTL" ]; then
		vg_wait_for 30 "the guests reconnected" up2
	fi
	for g in g1:198.18.0.12:g2 g2:198.18.0.11:g1 g3:198.18.0.11:g1; do
		IFS=: read -r gs gip gd <<<"$g"
		rc2=0; out=$(vg_run "$gs" 40 "/usr/bin/ping -c 3 -i 0.2 -W 5 -w 30 $gip") || rc2=$?
		vg_ping_row "ping $gs -> $gd after SIGKILL" "$rc2" "$out" "$gip"
		[ "$rc2" = 0 ] || rc=1
	done
	rc2=0; out=$(ip netns exec "$NS" ping -c 3 -i 0.2 -W 5 -w 30 198.18.0.11 2>&1) || rc2=$?
	vg_ping_row "ping host -> g1 after SIGKILL" "$rc2" "$out" 198.18.0.11
	[ "$rc2" = 0 ] || rc=1
fi

# vhostd must leave cleanly on SIGTERM while both guests are connected:
# exit status 0 within 20 s, not a hang or a crash.
if vg_vhostd_alive; then
	kill -TERM "$VHOSTD_PID"
	st=0
	for _ in $(seq 200); do
		kill -0 "$VHOSTD_PID" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$VHOSTD_PID" 2>/dev/null; then
		kill -KILL "$VHOSTD_PID"
		wait "$VHOSTD_PID" 2>/dev/null
		st=hung
	else
		wait "$VHOSTD_PID" || st=$?
	fi
	VHOSTD_PID=
	if [ "$st" = 0 ]; then
		vg_row "vhostd SIGTERM, guests on" ok - - "exit status 0"
	else
		vg_row "vhostd SIGTERM, guests on" FAIL - - "exit status $st"
		rc=1
	fi
fi
# ---- a guest with 4 queue pairs: tests/guest/mq.sh, its own vhostd ----
# After the others are gone: its 4 vCPUs want both cores.  It appends
# its own result line to $TEST_RESULTS.
if [ "$E2E_MQ" = 1 ]; then
	vg_stop_all
	r=0; out=$(VHOSTD="$VHOSTD" VHOSTCTL="$VHOSTCTL" timeout 300 "$HERE/mq.sh" 2>&1) || r=$?
	line=$(grep -E '^(PASS|FAIL) guest-mq4 ' <<<"$out" | tail -n 1) || true
	if [ $r = 0 ] && [ "${line%% *}" = PASS ]; then
		vg_row "guest with 4 queue pairs" ok - - "${line#PASS guest-mq4 }"
	else
		vg_row "guest with 4 queue pairs" FAIL - - "rc=$r: ${line:-$(tail -n 3 <<<"$out" | tr '\n' ' ')}"
		rc=1
	fi
fi

echo "== e2e: vhostd ($VHOSTD) ($(date -u +%F), TCG)"
vg_print_table
[ "$VG_FAILS" = 0 ] || rc=1
if [ $rc = 0 ]; then
	echo "PASS e2e"
	[ -n "${TEST_RESULTS:-}" ] && echo "PASS guest-e2e ${#VG_ROWS[@]} rows" >>"$TEST_RESULTS"
else
	echo "FAIL e2e ($VG_FAILS failed)"
	[ -n "${TEST_RESULTS:-}" ] && echo "FAIL guest-e2e $VG_FAILS of ${#VG_ROWS[@]} rows failed" >>"$TEST_RESULTS"
fi
exit $rc
