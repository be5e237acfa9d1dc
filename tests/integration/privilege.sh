#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/privilege.sh - vhostd with least privilege: --user,
# capabilities, no_new_privs, seccomp, socket ownership, peer allow-lists
#
#   priv-user          A (p0)  B (p1)  C (p2)   vdrv_itest basic, as root
#                        \       |       /
#                         vhostd --user nobody       /proc/PID/status:
#                         (vhost-user ports only)    uid/gid 65534, no
#                                                    capability, NoNewPrivs 1,
#                                                    Seccomp 2; sockets gone
#                                                    after a clean exit
#   priv-no-sandbox    the same with --no-sandbox: Seccomp 0, the rest as is
#   priv-root-nocaps   vhostd as root without --user: uid 0, no capability
#   priv-unprivileged  vhostd started as nobody (setpriv), no --user: runs,
#                      filtered, and forwards (vdrv_itest basic)
#   priv-tap           netns vhpriv<pid>
#                      +---------------------------------------------+
#                      | vhprivtap0 198.18.3.1/24 (owner 65534)      |
#                      |   |  tun queue 0 + a steered queue per guest|
#                      | vhostd --user nobody                        |
#                      |   --port vhost-user (vu0) ------------------+-- p0 R: responder .2
#                      |   --port tap,offload=off                    |
#                      |   --port vhost-user (vu1, after the TAP) ---+-- p1 P: pinger .3
#                      +---------------------------------------------+
#                      vu1's tun queue is attached by the start-up tick
#                      (the TAP's open only sees ports before it), before
#                      privileges go; both guests connect after start-up;
#                      kernel <-> guest pings both ways; P's replies are
#                      read straight into its buffers (direct.packets);
#                      capabilities: none, or only CAP_BPF where the kernel
#                      wants it for the steering map
#   priv-sock-perms    p0 owner=nobody,group=nogroup,mode=0600; p1 default;
#                      --ctl-perm group=nogroup,mode=0640: stat shows exactly
#                      that; nobody (setpriv) may connect to p0, not to p1
#   priv-peercred      p0 mode=0666,allow-uid=0; p1 mode=0666,allow-gid=4242;
#                      --ctl-perm mode=0666,allow-uid=0:
#                        vdrv_tool as nobody on p0 -> refused (peer_refused 1,
#                        log line), as root -> served; nobody with
#                        supplementary group 4242 on p1 -> served, without it
#                        refused; vhostctl as nobody refused, as root served
#   priv-errors        --user no-such-user: exit 2 with one line; --user root
#                      when not root: exit 2, "needs root"
#
# The filter's verdicts on syscalls themselves are the unit test's
# (tests/unit/test_sandbox.c: a forked child under the filter is killed by
# SIGSYS for socket(AF_INET), execve, ...); here the point is that the
# running daemon is under it and still does all its work.
#
# Usage: tests/integration/privilege.sh [NAME-GLOB...]  (BUILD=dir, default
# build).  Needs root (users, netns); without root every test is skipped.
# Prints one line per test and "N passed, M failed, K skipped"; exit 1 on
# any failure.  Addresses: 198.18.3.0/24, inside the netns made here.

set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-priv.XXXXXX)
NS=vhpriv$$
FILTER=("$@")
# Each test says whom vhostd runs as: not lib.sh's suite-wide --user.
# shellcheck disable=SC2034 # read by lib.sh's start_vhostd
VHOSTD_USER=
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
ITEST=$BUILD/tests/vdrv_itest
TOOL=$BUILD/tests/vdrv_tool
NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
ALL=(priv-user priv-no-sandbox priv-root-nocaps priv-unprivileged priv-tap
     priv-sock-perms priv-peercred priv-errors)

for f in "$VHOSTD" "$ITEST" "$TOOL" "$(command -v setpriv)"; do
	[ -x "$f" ] || { echo "missing ${f:-setpriv} (make O=$BUILD; util-linux)"; exit 2; }
done
if [ "$(id -u)" != 0 ]; then
	for t in "${ALL[@]}"; do
		wanted "$t" && skip "$t" "needs root"
	done
	it_summary
	exit
fi
# Front ends running as nobody must reach sockets in $TMP.
chmod 0711 "$TMP"

# pstat FIELD: FIELD of vhostd's /proc/PID/status, fields joined by spaces
pstat() {
	awk -v f="$1:" '$1 == f { $1 = ""; sub(/^ +/, ""); print; exit }' \
		"/proc/$VPID/status" 2>/dev/null
}

# started: vhostd listens before it locks itself down; wait (up to 5 s) for
#   its "running:" line, logged once privileges and the filter are in place
started() {
	local i
	for i in $(seq 100); do
		grep -q "info: running: " "$TMP/vhostd.log" && return 0
		kill -0 "$VPID" 2>/dev/null || break
		sleep 0.05
	done
	return 1
}

# want_status FIELD VALUE: append a failure unless FIELD is VALUE
want_status() {
	local v
	v=$(pstat "$1")
	[ "$v" = "$2" ] || fail "$1 is '$v', want '$2'"
}

# done_test NAME DETAIL [OUTFILE]: stop vhostd if running, record result
done_test() {
	if [ -n "$VPID" ]; then
		stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	fi
	result "$1" "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-$2}" "${3:-}"
	ERR=
}

NOCAPS=0000000000000000
ALL_GONE="$NOCAPS"

# ---- --user nobody, vhost-user ports only ------------------------------------

if wanted priv-user; then
	ERR=
	chown nobody "$TMP"	# its runtime directory: it removes its sockets
	{ start_vhostd -- 3 --user nobody && started; } || fail "vhostd did not start"
	want_status Uid "65534 65534 65534 65534"
	want_status Gid "65534 65534 65534 65534"
	want_status Groups "65534"
	want_status CapEff "$NOCAPS"
	want_status CapPrm "$NOCAPS"
	want_status CapInh "$NOCAPS"
	want_status CapAmb "$NOCAPS"
	want_status CapBnd "$ALL_GONE"
	want_status NoNewPrivs 1
	want_status Seccomp 2
	basic 3
	check_ctr vu0 .tx_packets -ge 1
	grep -q "privileges: uid 65534 gid 65534.*capabilities 'none'" \
		"$TMP/vhostd.log" || fail "no privileges log line"
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	for s in p0.sock p1.sock p2.sock ctl; do
		[ -e "$TMP/$s" ] && fail "$s left behind"
	done
	chown root "$TMP"
	done_test priv-user "uid/gid 65534, no capability, NoNewPrivs 1, Seccomp 2; basic passed"
fi

if wanted priv-no-sandbox; then
	ERR=
	{ start_vhostd -- 3 --user nobody --no-sandbox && started; } || fail "vhostd did not start"
	want_status Uid "65534 65534 65534 65534"
	want_status CapEff "$NOCAPS"
	want_status NoNewPrivs 1
	want_status Seccomp 0
	grep -q -- "--no-sandbox: running without the seccomp filter" \
		"$TMP/vhostd.log" || fail "no --no-sandbox warning"
	basic 3
	done_test priv-no-sandbox "Seccomp 0 with --no-sandbox (2 without: priv-user)"
fi

if wanted priv-root-nocaps; then
	ERR=
	{ start_vhostd -- 2 && started; } || fail "vhostd did not start"
	want_status Uid "0 0 0 0"
	want_status CapEff "$NOCAPS"
	want_status CapPrm "$NOCAPS"
	want_status CapBnd "$ALL_GONE"
	want_status NoNewPrivs 1
	want_status Seccomp 2
	done_test priv-root-nocaps "uid 0 without --user: still no capability, filtered"
fi

# ---- started unprivileged: no --user needed ----------------------------------

if wanted priv-unprivileged; then
	ERR=
	chown nobody "$TMP"
	{ start_vhostd "${NOBODY[@]}" -- 3 && started; } || fail "vhostd did not start"
	want_status Uid "65534 65534 65534 65534"
	want_status CapEff "$NOCAPS"
	want_status NoNewPrivs 1
	want_status Seccomp 2
	basic 3
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	chown root "$TMP"
	done_test priv-unprivileged "runs as nobody without --user, filtered; basic passed"
fi

# ---- a TAP: queues attached at start-up, nothing privileged after ------------

if wanted priv-tap; then
	if ! netns_setup; then
		no_netns priv-tap
	else
		ERR=
		start_vhostd ip netns exec "$NS" -- 1 --user nobody \
			--port tap,ifname=vhprivtap0,name=tap0,offload=off \
			--port "vhost-user,path=$TMP/p1.sock,name=vu1" &&
			started || fail "vhostd did not start"
		tap_up vhprivtap0 198.18.3.1/24 || fail "no vhprivtap0"
		want_status Uid "65534 65534 65534 65534"
		want_status NoNewPrivs 1
		want_status Seccomp 2
		# None; CAP_BPF (bit 39) alone where the kernel wants it for
		# steering map updates (Linux before 6.5 with
		# unprivileged_bpf_disabled set).
		caps=$(pstat CapEff)
		case "$caps" in
		"$NOCAPS"|0000008000000000) ;;
		*) fail "CapEff $caps: more than CAP_BPF" ;;
		esac
		[ "$(pstat CapPrm)" = "$caps" ] || fail "CapPrm $(pstat CapPrm), CapEff $caps"
		owner=$(ip netns exec "$NS" cat /sys/class/net/vhprivtap0/owner)
		[ "$owner" = 65534 ] || fail "TAP owner '$owner', want 65534"
		"$TOOL" responder --sock "$TMP/p0.sock" --mac 02:00:00:00:03:02 \
			--ip 198.18.3.2 --seconds 60 >"$TMP/resp.out" 2>&1 &
		RPID=$!
		BGPIDS+=("$RPID")
		wait_up 10 vu0
		out=$(ip netns exec "$NS" ping -c 3 -i 0.3 -W 5 198.18.3.2 2>&1)
		echo "$out" | grep -q ' 3 received' ||
			fail "ping to the responder: $(echo "$out" | grep -m1 received)"
		# The pinger's MAC is learned and steered once a second: its
		# later replies from the kernel are read straight into it.
		out=$(timeout 30 "$TOOL" pinger --sock "$TMP/p1.sock" \
			--mac 02:00:00:00:03:03 --ip 198.18.3.3 \
			--peer-ip 198.18.3.1 --count 30 --interval-ms 100 2>&1) ||
			fail "pinger: $out"
		check_ctr tap0 .direct.packets -ge 1
		check_ctr vu1 .direct.packets -ge 1
		check_ctr tap0 .steer_syncs -ge 1
		kill "$RPID"
		wait_exit "$RPID" 20 || fail "responder: $(cat "$TMP/resp.out")"
		grep -q "seccomp: syscall" "$TMP/vhostd.log" &&
			fail "$(grep -m1 'seccomp: syscall' "$TMP/vhostd.log")"
		done_test priv-tap "uid 65534, CapEff $caps, TAP owner 65534; pings both ways, direct reads into a guest that came after start-up"
	fi
fi

# ---- socket files: owner, group, mode --------------------------------------

# perm PATH: "user:group mode" of PATH
perm() {
	stat -c '%U:%G %a' "$1" 2>/dev/null
}

if wanted priv-sock-perms; then
	ERR=
	rm -f "$TMP"/p*.sock "$TMP/ctl"
	"$VHOSTD" --ctl "$TMP/ctl" --ctl-perm group=nogroup,mode=0640 \
		--port "vhost-user,path=$TMP/p0.sock,name=vu0,owner=nobody,group=nogroup,mode=0600" \
		--port "vhost-user,path=$TMP/p1.sock,name=vu1" \
		>"$TMP/vhostd.log" 2>&1 &
	VPID=$!
	wait_for "$TMP/ctl" || fail "vhostd did not start"
	[ "$(perm "$TMP/p0.sock")" = "nobody:nogroup 600" ] ||
		fail "p0.sock is '$(perm "$TMP/p0.sock")'"
	[ "$(perm "$TMP/p1.sock")" = "root:root 660" ] ||
		fail "p1.sock is '$(perm "$TMP/p1.sock")'"
	[ "$(perm "$TMP/ctl")" = "root:nogroup 640" ] ||
		fail "ctl is '$(perm "$TMP/ctl")'"
	# The file decides: nobody owns p0, has no access to p1.
	"${NOBODY[@]}" timeout 20 "$TOOL" info --sock "$TMP/p0.sock" \
		>"$TMP/n0.out" 2>&1 || fail "nobody on p0: $(cat "$TMP/n0.out")"
	"${NOBODY[@]}" timeout 20 "$TOOL" info --sock "$TMP/p1.sock" \
		>"$TMP/n1.out" 2>&1 && fail "nobody got through p1's mode 0660"
	grep -q "Permission denied" "$TMP/n1.out" ||
		fail "nobody on p1: $(cat "$TMP/n1.out")"
	done_test priv-sock-perms "p0 nobody:nogroup 600, p1 root:root 660, ctl root:nogroup 640; nobody on p0 only"
fi

# ---- peer credentials: allow-uid=, allow-gid= --------------------------------

if wanted priv-peercred; then
	ERR=
	rm -f "$TMP"/p*.sock "$TMP/ctl"
	"$VHOSTD" --ctl "$TMP/ctl" --ctl-perm mode=0666,allow-uid=0 \
		--port "vhost-user,path=$TMP/p0.sock,name=vu0,mode=0666,allow-uid=0" \
		--port "vhost-user,path=$TMP/p1.sock,name=vu1,mode=0666,allow-gid=4242" \
		>"$TMP/vhostd.log" 2>&1 &
	VPID=$!
	wait_for "$TMP/ctl" || fail "vhostd did not start"
	"${NOBODY[@]}" timeout 20 "$TOOL" info --sock "$TMP/p0.sock" \
		>"$TMP/n0.out" 2>&1 && fail "nobody was served on p0 (allow-uid=0)"
	wait_ctr 5 vu0 .peer_refused -eq 1
	grep -q "vu0: refusing front end pid [0-9]* uid 65534 gid 65534: not on the allow-list" \
		"$TMP/vhostd.log" || fail "no refusal line for vu0"
	timeout 20 "$TOOL" info --sock "$TMP/p0.sock" >"$TMP/r0.out" 2>&1 ||
		fail "root refused on p0: $(cat "$TMP/r0.out")"
	check_ctr vu0 .peer_refused -eq 1
	# allow-gid= matches supplementary groups too.
	setpriv --reuid=65534 --regid=65534 --groups=4242 timeout 20 \
		"$TOOL" info --sock "$TMP/p1.sock" >"$TMP/g1.out" 2>&1 ||
		fail "nobody in group 4242 refused on p1: $(cat "$TMP/g1.out")"
	check_ctr vu1 .peer_refused -eq 0
	"${NOBODY[@]}" timeout 20 "$TOOL" info --sock "$TMP/p1.sock" \
		>"$TMP/n1.out" 2>&1 && fail "nobody without group 4242 served on p1"
	wait_ctr 5 vu1 .peer_refused -eq 1
	# The control socket: same keys, same check.
	"${NOBODY[@]}" timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" ports \
		>"$TMP/c.out" 2>&1 && fail "nobody got a ctl reply"
	grep -q "ctl: refusing client pid [0-9]* uid 65534" "$TMP/vhostd.log" ||
		fail "no refusal line for ctl"
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" ports >/dev/null 2>&1 ||
		fail "root got no ctl reply"
	check_ctr vu0 .violations -eq 0
	done_test priv-peercred "refused: nobody on vu0 (uid), on vu1 without group 4242, on ctl; served: root, nobody in group 4242"
fi

# ---- mistakes: one line, exit 2 -------------------------------------------------

if wanted priv-errors; then
	ERR=
	out=$("$VHOSTD" --user no-such-user-x \
		--port "vhost-user,path=$TMP/e.sock" 2>&1)
	rc=$?
	[ $rc = 2 ] || fail "--user no-such-user-x: exit $rc, want 2"
	[[ $out == *"no such user 'no-such-user-x'"* ]] ||
		fail "--user no-such-user-x said: $out"
	chown nobody "$TMP"
	out=$("${NOBODY[@]}" "$VHOSTD" --user root \
		--port "vhost-user,path=$TMP/e.sock" 2>&1)
	rc=$?
	chown root "$TMP"
	[ $rc = 2 ] || fail "--user root as nobody: exit $rc, want 2"
	[[ $out == *"needs root"* ]] || fail "--user root as nobody said: $out"
	[ -e "$TMP/e.sock" ] && fail "a socket was created before the error"
	result priv-errors "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-unknown user and --user without root: exit 2, one line}"
	ERR=
fi

it_summary
