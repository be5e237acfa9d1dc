# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/lib.sh - the harness the integration scripts share
# (source it; bash).
#
# The sourcing script sets, before sourcing:
#   TMP       a private temp dir (removed on exit)
#   NS        name of the netns it may create (NS_MADE=1 once it did)
#   FILTER    array of test-name globs from its command line
# and gets: VHOSTD, VHOSTCTL (from BUILD), VPID, BGPIDS (PIDs to kill on
# exit), PASS/FAIL/SKIP counters, ERR, and the functions below.  Cleanup
# kills only the PIDs the script started and removes only what it created.
#
# Every script ends with it_summary: the last line is exactly
# "N passed, M failed, K skipped" and the exit status is 1 on any failure.
# A test that cannot run (a missing prerequisite) is reported with skip,
# never folded into a pass.  With TEST_RESULTS set (tests/run.sh sets it),
# every PASS/FAIL/SKIP line is also appended to that file, so the top-level
# summary counts tests, not scripts.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
VHOSTD=$BUILD/vhostd
VHOSTCTL=$BUILD/vhostctl
VPID=
BGPIDS=()
NS_MADE=0
# Counters are read with vhostctl and jq: without them every counter
# check would be blind, so a script that sources this fails at once.
for _f in "$VHOSTCTL" "$(command -v jq)"; do
	[ -x "$_f" ] || { echo "missing ${_f:-jq} (make O=$BUILD; apt-get install jq)"; exit 2; }
done
PASS=0
FAIL=0
SKIP=0
ERR=
# VHOSTD_USER: run every vhostd start_vhostd starts with --user
#   VHOSTD_USER (the suite under least privilege); $TMP is then handed to
#   that user, as its runtime directory would be, so that vhostd can
#   remove its socket files at exit
VHOSTD_USER=${VHOSTD_USER:-}
# Seconds vhostd gets to exit on SIGTERM before it counts as hung.
STOP_TIMEOUT=${STOP_TIMEOUT:-20}
# A sanitizer report in vhostd's log (stop_vhostd fails on one).
SAN_RE='AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer|runtime error:'

# it_cleanup: kill only what we started, then remove what we created.
#   A script with more to undo names a function in IT_CLEANUP_HOOK; it
#   runs first.
IT_CLEANUP_HOOK=
it_cleanup() {
	local p
	[ -n "$IT_CLEANUP_HOOK" ] && "$IT_CLEANUP_HOOK"
	for p in "${BGPIDS[@]}" $VPID; do
		kill "$p" 2>/dev/null
	done
	for p in "${BGPIDS[@]}" $VPID; do
		wait "$p" 2>/dev/null
	done
	[ "$NS_MADE" = 1 ] && ip netns del "$NS" 2>/dev/null
	rm -rf "$TMP"
}
trap it_cleanup EXIT
trap 'exit 130' INT TERM

# fail TEXT: append a failure to $ERR (what result reports)
fail() {
	ERR="${ERR:+$ERR; }$*"
}

# vc ARGS...: vhostctl --json on the control socket $TMP/ctl; stdout to
#   $TMP/vc.out, stderr to $TMP/vc.err; its exit status.  A script whose
#   socket is elsewhere defines its own.
vc() {
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" "$@" >"$TMP/vc.out" 2>"$TMP/vc.err"
}

# ping_a COUNT [OUT]: vdrv guest A ($MAC_A, $IP_A on $TMP/p0.sock) pings
#   B ($IP_B) COUNT times back to back ($TOOL: the script's vdrv_tool);
#   "sent S received R" in OUT (default $TMP/a.out); the pinger's status
ping_a() {
	timeout 300 "$TOOL" pinger --sock "$TMP/p0.sock" --mac "$MAC_A" \
		--ip "$IP_A" --peer-ip "$IP_B" --count "$1" --interval-ms 0 \
		--timeout-ms 3000 >"${2:-$TMP/a.out}" 2>&1
}

# sent_recv FILE: "SENT RECEIVED" from a pinger's summary line
sent_recv() {
	sed -n 's/^pinger: sent \([0-9]*\) received \([0-9]*\).*/\1 \2/p' "$1"
}

# wanted NAME: is the test selected by the command line globs
wanted() {
	local g
	[ ${#FILTER[@]} = 0 ] && return 0
	for g in "${FILTER[@]}"; do
		# shellcheck disable=SC2053 # glob match on purpose
		[[ $1 == $g ]] && return 0
	done
	return 1
}

# it_record KIND NAME DETAIL: print one result line; append it to
#   $TEST_RESULTS when set
it_record() {
	printf '%s %-26s %s\n' "$1" "$2" "$3"
	[ -n "${TEST_RESULTS:-}" ] &&
		printf '%s %s %s\n' "$1" "$2" "$3" >>"$TEST_RESULTS"
	return 0
}

# result NAME RC DETAIL [OUTPUT-FILE]: count and print one test; on
# failure show the FAIL lines of OUTPUT-FILE and the end of vhostd's log
result() {
	if [ "$2" = 0 ]; then
		PASS=$((PASS + 1))
		it_record PASS "$1" "$3"
	else
		FAIL=$((FAIL + 1))
		it_record FAIL "$1" "$3"
		[ -n "${4:-}" ] && grep '^FAIL' "$4" | head -n 20 | sed 's/^/    /'
		[ -s "$TMP/vhostd.log" ] &&
			sed 's/^/    vhostd: /' "$TMP/vhostd.log" | tail -n 8
	fi
	return 0
}

# skip NAME WHY: a test that could not run; counted apart, never a pass
skip() {
	SKIP=$((SKIP + 1))
	it_record SKIP "$1" "($2)"
}

# it_summary: the last line, "N passed, M failed, K skipped"; non-zero
#   status on any failure (skips are the caller's to judge)
it_summary() {
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" = 0 ]
}

# wait_for PATH: until PATH exists (5 s)
wait_for() {
	local i
	for i in $(seq 100); do
		[ -e "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# start_vhostd [PREFIX-CMD...] -- NPORTS [VHOSTD-ARGS...]
# Ports vu0..vu(N-1) at $TMP/p<i>.sock, control socket $TMP/ctl;
# $PORT_OPTS, if set, is appended to each port's spec (e.g. queues=2).
start_vhostd() {
	local pre=() n i args=()
	while [ "$1" != "--" ]; do pre+=("$1"); shift; done
	shift
	n=$1; shift
	rm -f "$TMP"/p*.sock "$TMP/ctl"
	if [ -n "$VHOSTD_USER" ]; then
		chown "$VHOSTD_USER" "$TMP" || return 1
		args+=(--user "$VHOSTD_USER")
	fi
	for i in $(seq 0 $((n - 1))); do
		args+=(--port "vhost-user,path=$TMP/p$i.sock,name=vu$i${PORT_OPTS:+,$PORT_OPTS}")
	done
	"${pre[@]}" "$VHOSTD" --ctl "$TMP/ctl" "${args[@]}" "$@" \
		>"$TMP/vhostd.log" 2>&1 &
	VPID=$!
	for i in $(seq 0 $((n - 1))); do
		wait_for "$TMP/p$i.sock" || return 1
	done
	wait_for "$TMP/ctl"
}

# wait_exit PID SECONDS: wait for our child PID to exit; after SECONDS
#   it is killed (SIGKILL) and the status is 124.  Return: its exit status
wait_exit() {
	local i
	for i in $(seq $(($2 * 20))); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		return 124
	fi
	wait "$1"
}

# stop_vhostd [SIGNAL]: 0 if vhostd was still alive, exited with status 0
#   within $STOP_TIMEOUT s of SIGNAL (default TERM) and its log holds no
#   sanitizer report.  A vhostd that hangs is killed and reported in $ERR,
#   so a hang fails the test, not the suite; so is a report.
stop_vhostd() {
	local rc=0 st
	[ -n "$VPID" ] || return 1
	kill -0 "$VPID" 2>/dev/null || rc=1
	kill -"${1:-TERM}" "$VPID" 2>/dev/null
	wait_exit "$VPID" "$STOP_TIMEOUT"
	st=$?
	if [ $st = 124 ]; then
		ERR="${ERR:+$ERR; }vhostd hung on SIG${1:-TERM} (killed after ${STOP_TIMEOUT} s)"
	fi
	[ $st = 0 ] || rc=1
	if grep -qE "$SAN_RE" "$TMP/vhostd.log" 2>/dev/null; then
		ERR="${ERR:+$ERR; }sanitizer: $(grep -m1 -E "$SAN_RE" "$TMP/vhostd.log")"
		rc=1
	fi
	VPID=
	return $rc
}

# socks N: the socket paths of ports vu0..vu(N-1), space separated
socks() {
	local i
	for i in $(seq 0 $(($1 - 1))); do
		printf '%s ' "$TMP/p$i.sock"
	done
}

# tap_up IF [ADDR/LEN]: wait for vhostd to create IF in $NS, address it if
#   asked, bring it up; non-zero if any step fails
tap_up() {
	local i
	for i in $(seq 100); do
		ip -n "$NS" link show "$1" >/dev/null 2>&1 && break
		sleep 0.05
	done
	if [ -n "${2:-}" ]; then
		ip -n "$NS" addr add "$2" dev "$1" || return 1
	fi
	ip -n "$NS" link set "$1" up
}

# basic N: vdrv_itest's basic scenario over ports p0..p(N-1); a failure
#   is appended to $ERR
basic() {
	# shellcheck disable=SC2046 # word splitting on purpose
	VDRV_ITEST_CTL=$TMP/ctl timeout 60 "$ITEST" basic $(socks "$1") \
		>"$TMP/it.out" 2>&1 ||
		ERR="${ERR:+$ERR; }basic: $(grep -m1 FAIL "$TMP/it.out" || tail -n 1 "$TMP/it.out")"
}

# run_itest NAME SCENARIO NPORTS [VHOSTD-ARGS...]: vhostd with NPORTS
#   vhost-user ports, one scenario of $ITEST (vdrv_itest; the control
#   socket in VDRV_ITEST_CTL), then "$ITEST_POST NAME NPORTS" if the
#   caller set it (counter checks while vhostd runs), vhostd's clean exit,
#   and the result
ITEST_POST=
run_itest() {
	local name=$1 sc=$2 n=$3 rc
	shift 3
	wanted "$name" || return 0
	ERR=
	: >"$TMP/it.out"
	if start_vhostd -- "$n" "$@"; then
		# shellcheck disable=SC2046 # word splitting on purpose
		VDRV_ITEST_CTL=$TMP/ctl timeout 120 "$ITEST" "$sc" \
			$(socks "$n") >"$TMP/it.out" 2>&1
		rc=$?
		[ $rc = 0 ] || ERR="$(grep -m1 FAIL "$TMP/it.out" || echo "vdrv_itest rc $rc")"
		[ -n "$ITEST_POST" ] && "$ITEST_POST" "$name" "$n"
	else
		ERR="vhostd did not start"
	fi
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result "$name" "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$(tail -n 1 "$TMP/it.out")}" "$TMP/it.out"
	ERR=
}

# ctr PORT JQ-PATH: a counter from "vhostctl stats"; prints nothing and
#   fails if the control socket does not answer or the port is unknown
ctr() {
	local out
	out=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" stats 2>/dev/null) || return 1
	jq -e -r ".ports[] | select(.name == \"$1\") | $2" <<<"$out" 2>/dev/null
}

# check_ctr PORT JQ-PATH OP VALUE: append a failure to $ERR if it fails
check_ctr() {
	local v
	v=$(ctr "$1" "$2")
	if ! [[ $v =~ ^[0-9]+$ ]] || ! test "$v" "$3" "$4"; then
		ERR="${ERR:+$ERR; }counter $1$2=$v, want $3 $4"
	fi
}

# wait_ctr SECONDS PORT JQ-PATH OP VALUE: poll a counter until the check
#   holds (0) or SECONDS pass (1, with the failure appended to $ERR).  For
#   "until it happened" conditions; never a fixed sleep before a count.
wait_ctr() {
	local end=$((SECONDS + $1)) v
	shift
	while :; do
		v=$(ctr "$1" "$2")
		[[ $v =~ ^[0-9]+$ ]] && test "$v" "$3" "$4" && return 0
		[ $SECONDS -lt $end ] || break
		sleep 0.05
	done
	ERR="${ERR:+$ERR; }counter $1$2=$v, want $3 $4 (waited)"
	return 1
}

# wait_up SECONDS PORT: until PORT's rings are up (its guest connected)
wait_up() {
	local end=$((SECONDS + $1))
	until [ "$(ctr "$2" .up)" = true ]; do
		if [ $SECONDS -ge $end ]; then
			ERR="${ERR:+$ERR; }port $2 not up after $1 s"
			return 1
		fi
		sleep 0.05
	done
}

# netns_setup [ipv6]: create $NS once, lo up, IPv6 off (with "ipv6": on,
#   without duplicate address detection); non-zero, the reason in $ERR,
#   if it cannot
netns_setup() {
	[ "$NS_MADE" = 1 ] && return 0
	if [ "$(id -u)" != 0 ]; then
		ERR="needs root for ip netns"
		return 1
	fi
	ERR=$(ip netns add "$NS" 2>&1) || return 1
	NS_MADE=1
	ip -n "$NS" link set lo up || return 1
	if [ "${1:-}" = ipv6 ]; then
		ip netns exec "$NS" sysctl -qw net.ipv6.conf.default.accept_dad=0
	else
		ip netns exec "$NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 &&
		ip netns exec "$NS" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
	fi
}

# no_netns NAME...: the tests that need $NS and cannot have it (after
#   netns_setup failed): skipped when not root (a prerequisite missing),
#   failed when root (netns must work on the project's machines)
no_netns() {
	local t why=$ERR
	for t in "$@"; do
		if [ "$(id -u)" != 0 ]; then
			skip "$t" "$why"
		else
			result "$t" 1 "no netns: $why"
		fi
	done
	ERR=
}
