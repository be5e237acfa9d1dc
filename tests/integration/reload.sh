#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/reload.sh - --config FILE, vhostctl reload and SIGHUP
#
#   A pinger (vu0, command line)     B responder (fb, in the file)
#        |                                |
#        +------------ vhostd ------------+---- x*, y, z: ports of the file
#                --config $TMP/vhostd.conf       that reloads add, remove
#                                                and change
#
#   reload-basic    the file's ports come up with vhostd; a reload adds
#                   x1, removes x2, re-creates x3 (a key changed), keeps
#                   an unnamed port's default name when a line is
#                   inserted above it, brings back a port "port del"
#                   removed, and leaves ports of the command line and of
#                   "port add" alone; the reply lists each
#   reload-traffic  A pings B back to back while the file is rewritten
#                   and reloaded 20 times (ports added, removed and
#                   changed, half by SIGHUP): vu0 and fb are untouched,
#                   A loses no ping; vhostd's log says each SIGHUP reload
#   reload-errors   a bad line (file:line named), a setting only start-up
#                   makes (workers), a tap port, a path a running port
#                   has, a file vhostd's user cannot read: each refused
#                   with one line, nothing applied (ports as before);
#                   start-up with the bad file exits 2 naming file:line;
#                   reload of a vhostd without --config refused
#   reload-child    the parsing process: killed, a reload says it is gone
#                   and vhostd runs on; it exits with vhostd
#
# Usage: tests/integration/reload.sh [NAME-GLOB...]  (BUILD=dir, default
# build; VHOSTD_USER=nobody as tests/run.sh runs it).  Unix sockets only;
# vdrv guests use 198.18.0.0/15 addresses inside vhostd alone.

set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-reload.XXXXXX)
NS=vhrl$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
TOOL=$BUILD/tests/vdrv_tool
CONF=$TMP/vhostd.conf

for f in "$VHOSTD" "$TOOL"; do
	[ -x "$f" ] || { echo "missing $f (make O=$BUILD)"; exit 2; }
done

MAC_A=02:00:00:00:1b:01
MAC_B=02:00:00:00:1b:02
IP_A=198.18.2.1
IP_B=198.18.2.2

# names: the ports' names, sorted, one line
names() {
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" ports |
		jq -r '[.ports[].name] | sort | join(" ")'
}

# conf LINE...: write the config file (the fb port first, always)
conf() {
	{
		echo "# vhostd.conf written by reload.sh"
		echo "port vhost-user,path=$TMP/fb.sock,name=fb"
		printf '%s\n' "$@"
	} >"$CONF.new" && mv "$CONF.new" "$CONF"
	chmod 644 "$CONF"
}

# reload_ok WHAT JQ: vhostctl reload must succeed with a reply matching JQ
reload_ok() {
	if ! vc reload; then
		fail "$1: reload failed: $(head -c 300 "$TMP/vc.err")"
		return 1
	fi
	jq -e "$2" "$TMP/vc.out" >/dev/null 2>&1 ||
		{ fail "$1: reply $(cat "$TMP/vc.out"), want $2"; return 1; }
}

# refused WHAT PATTERN: vhostctl reload must exit 1, its error matching
#   PATTERN, and the ports be what they were
refused() {
	local before rc msg
	before=$(names)
	vc reload
	rc=$?
	msg=$(jq -r '.error | strings' "$TMP/vc.err" 2>/dev/null)
	if [ $rc != 1 ] || ! [[ $msg =~ $2 ]]; then
		fail "$1: rc $rc, stderr '$(head -c 300 "$TMP/vc.err")', want /$2/"
		return 1
	fi
	[ "$(names)" = "$before" ] || fail "$1: ports changed: $(names), were $before"
	MSGS+=("$msg")
}

# start CONF-LINES...: vhostd with vu0 on the command line and the file
start() {
	conf "$@"
	start_vhostd -- 1 --config "$CONF" || { fail "vhostd did not start: $(tail -3 "$TMP/vhostd.log")"; return 1; }
	wait_for "$TMP/fb.sock" || fail "no fb socket"
}

# b_start: B responds on fb (BPID), until killed
b_start() {
	"$TOOL" responder --sock "$TMP/fb.sock" --mac "$MAC_B" --ip "$IP_B" \
		>"$TMP/b.out" 2>&1 &
	BPID=$!
	BGPIDS+=("$BPID")
	wait_up 10 fb
}

# reap PID: SIGTERM a guest we started and wait for it
reap() {
	kill -TERM "$1" 2>/dev/null
	wait_exit "$1" 10 >/dev/null 2>&1
	return 0
}

# done_test NAME DETAIL: vhostd must still be alive and exit cleanly
done_test() {
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result "$1" "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-$2}"
	ERR=
}

# ---- reload-basic ---------------------------------------------------------
if wanted reload-basic; then
	ERR=
	start "port vhost-user,path=$TMP/x2.sock,name=x2" \
	      "port vhost-user,path=$TMP/x3.sock,name=x3" \
	      "port vhost-user,path=$TMP/u.sock"
	[ "$(names)" = "fb vu0 vu4 x2 x3" ] || fail "at start: $(names)"
	vc port add "vhost-user,path=$TMP/ctl1.sock,name=ctl1" || fail "port add: $(cat "$TMP/vc.err")"
	conf "port vhost-user,path=$TMP/x1.sock,name=x1" \
	     "port vhost-user,path=$TMP/x3.sock,name=x3,max-macs=4" \
	     "port vhost-user,path=$TMP/u.sock"
	reload_ok first '.ok and .added == ["x1"] and .removed == ["x2"] and .changed == ["x3"] and .failed == [] and .unchanged == 2'
	[ "$(names)" = "ctl1 fb vu0 vu4 x1 x3" ] || fail "after reload: $(names)"
	[ -e "$TMP/x2.sock" ] && fail "x2's socket file left"
	[ -S "$TMP/x1.sock" ] || fail "no x1 socket"
	mm=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" ports | jq -r '.ports[] | select(.name == "x3") | .max_macs // empty')
	reload_ok again '.ok and .added == [] and .removed == [] and .changed == [] and .unchanged == 4'
	vc port del x1 || fail "port del x1"
	reload_ok restore '.ok and .added == ["x1"] and .unchanged == 3'
	[ "$(names)" = "ctl1 fb vu0 vu4 x1 x3" ] || fail "after restore: $(names)"
	# A line inserted above the unnamed port: it keeps its name.
	conf "port vhost-user,path=$TMP/y.sock,name=y" \
	     "port vhost-user,path=$TMP/x1.sock,name=x1" \
	     "port vhost-user,path=$TMP/x3.sock,name=x3,max-macs=4" \
	     "port vhost-user,path=$TMP/u.sock"
	reload_ok insert '.ok and .added == ["y"] and .unchanged == 4'
	[ "$(names)" = "ctl1 fb vu0 vu4 x1 x3 y" ] || fail "after insert: $(names)"
	# Removing everything but fb leaves the command line's and ctl's.
	conf
	reload_ok empty '.ok and (.removed | sort) == ["vu4","x1","x3","y"]'
	[ "$(names)" = "ctl1 fb vu0" ] || fail "after emptying: $(names)"
	done_test reload-basic "x1 added, x2 removed, x3 re-created${mm:+ (max_macs $mm)}, vu4 kept its name under an inserted line, x1 restored after port del; vu0 (command line) and ctl1 (port add) untouched"
fi

# ---- reload-traffic -------------------------------------------------------
if wanted reload-traffic; then
	ERR=
	start "port vhost-user,path=$TMP/z.sock,name=z"
	b_start
	t0=$(date +%s%N)
	ping_a 2000 "$TMP/base.out" || fail "baseline: $(cat "$TMP/base.out")"
	t1=$(date +%s%N)
	read -r _ br < <(sent_recv "$TMP/base.out")
	# About 8 s of the same stream: 20 reloads fit in it on 2 cores.
	count=$(( ${br:-0} * 8000000000 / (t1 - t0 + 1) ))
	[ $count -ge 2000 ] || count=2000
	ping_a "$count" "$TMP/a.out" &
	APID=$!
	BGPIDS+=("$APID")
	n=0 hups=0
	while [ $n -lt 20 ] || kill -0 "$APID" 2>/dev/null; do
		[ $n -lt 200 ] || break
		n=$((n + 1))
		if [ $((n % 2)) = 0 ]; then
			conf "port vhost-user,path=$TMP/z.sock,name=z,max-macs=$n" \
			     "port vhost-user,path=$TMP/w$n.sock,name=w$n"
		else
			conf "port vhost-user,path=$TMP/z.sock,name=z"
		fi
		if [ $((n % 4)) = 1 ]; then
			kill -HUP "$VPID"
			hups=$((hups + 1))
			sleep 0.2
		else
			reload_ok "reload $n" '.ok' || break
		fi
		sleep 0.1
	done
	wait "$APID"
	arc=$?
	read -r s r < <(sent_recv "$TMP/a.out")
	if [ $arc != 0 ] || [ "${s:-x}" != "${r:-y}" ]; then
		fail "A -> B across reloads: $(tail -2 "$TMP/a.out")"
	fi
	[ $n -ge 20 ] || fail "only $n reloads"
	got=$(grep -c 'reload: [0-9]* added' "$TMP/vhostd.log")
	[ "$got" -ge "$hups" ] || fail "$hups SIGHUPs, $got reload lines in the log"
	case $n in
	*[13579]) want="fb vu0 z" ;;
	*) want="fb vu0 w$n z" ;;
	esac
	[ "$(names)" = "$want" ] || fail "at the end: $(names), want $want"
	reap "$BPID"
	done_test reload-traffic "$n reloads ($hups by SIGHUP: z re-created, w* added and removed) while A pinged B back to back: ${s:-0} pings, $(( ${s:-0} - ${r:-0} )) lost"
fi

# ---- reload-errors --------------------------------------------------------
if wanted reload-errors; then
	ERR=
	MSGS=()
	start "port vhost-user,path=$TMP/e1.sock,name=e1"
	good=$(cat "$CONF")
	conf "port vhost-user,path=$TMP/e1.sock,name=e1" "bogus-option 1"
	refused "bad line" "vhostd.conf:4: unknown option 'bogus-option'.*nothing applied"
	conf "port vhost-user,path=$TMP/e1.sock,name=e1,nokey=1"
	refused "bad key" "vhostd.conf:3: --port .*unknown key 'nokey'"
	conf "port vhost-user,path=$TMP/e1.sock,name=e1" "workers 2"
	refused "workers" "'workers' differs .* only a restart"
	conf "port vhost-user,path=$TMP/e1.sock,name=e1" \
	     "port vhost-user,path=$TMP/e2.sock,name=e2" "port tap,ifname=vhrl0"
	refused "tap" "vhostd.conf:5: port 'tap[0-9]*': tap ports .*nothing applied"
	[ -e "$TMP/e2.sock" ] && fail "tap refusal: e2 was created"
	vc port add "vhost-user,path=$TMP/c9.sock,name=c9" || fail "port add c9"
	conf "port vhost-user,path=$TMP/c9.sock,name=e9"
	refused "clash" "path '$TMP/c9.sock' is already used by port 'c9'"
	if [ -n "$VHOSTD_USER" ]; then
		conf "port vhost-user,path=$TMP/e3.sock,name=e3"
		chmod 600 "$CONF"
		refused "unreadable" "Permission denied: nothing applied"
		chmod 644 "$CONF"
	fi
	printf '%s\n' "$good" >"$CONF"
	reload_ok "good again" '.ok and .unchanged == 2'
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	# Start-up with a bad file: exit 2, file:line named.
	conf "port vhost-user,path=$TMP/e1.sock,name=e1" "workers many"
	out=$(timeout 10 "$VHOSTD" --config "$CONF" 2>&1)
	rc=$?
	[ $rc = 2 ] || fail "start-up with a bad file: exit $rc"
	[[ $out =~ vhostd.conf:4:\ --workers\ \'many\':\ not\ a\ number ]] ||
		fail "start-up with a bad file said '$out'"
	MSGS+=("$out")
	# Without --config.
	start_vhostd -- 1 || fail "vhostd without --config did not start"
	vc reload
	rc=$?
	[ $rc = 1 ] && grep -q "without --config" "$TMP/vc.err" ||
		fail "reload without --config: rc $rc, $(cat "$TMP/vc.err")"
	MSGS+=("$(jq -r .error "$TMP/vc.err" 2>/dev/null)")
	kill -HUP "$VPID"
	sleep 0.3
	kill -0 "$VPID" 2>/dev/null || fail "SIGHUP without --config killed vhostd"
	done_test reload-errors "${#MSGS[@]} refusals, each one line, nothing applied: $(printf '%s | ' "${MSGS[@]:0:2}")..."
fi

# ---- reload-child ---------------------------------------------------------
if wanted reload-child; then
	ERR=
	start
	child=$(cat "/proc/$VPID/task/"*/children 2>/dev/null | tr ' ' '\n' | grep -m1 .)
	if [ -z "$child" ]; then
		fail "no child process of vhostd"
	else
		[ "$(cat "/proc/$child/comm" 2>/dev/null)" = vhostd-conf ] ||
			fail "child $child is '$(cat "/proc/$child/comm" 2>/dev/null)'"
		reload_ok "with the child" '.ok'
		# Not ours to kill by name: the PID is vhostd's child, read above.
		kill -KILL "$child"
		sleep 0.2
		vc reload
		rc=$?
		[ $rc = 1 ] && grep -q "is gone" "$TMP/vc.err" ||
			fail "reload with the child killed: rc $rc, $(cat "$TMP/vc.err")"
		vc ports || fail "vhostd does not answer after its child died"
	fi
	start_vhostd_pid=$VPID
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	# A second vhostd: its child goes when vhostd goes.
	start
	child=$(cat "/proc/$VPID/task/"*/children 2>/dev/null | tr ' ' '\n' | grep -m1 .)
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	for _ in $(seq 40); do
		[ -n "$child" ] && [ -d "/proc/$child" ] || break
		sleep 0.05
	done
	[ -n "$child" ] && [ -d "/proc/$child" ] &&
		[ "$(cat "/proc/$child/comm" 2>/dev/null)" = vhostd-conf ] &&
		fail "child $child outlived vhostd"
	VPID=
	result reload-child "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-the parsing process killed: reload refused with 'is gone', vhostd ran on; a second one exited with its vhostd (pid $start_vhostd_pid and after)}"
	ERR=
fi

it_summary
