# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/lib.sh - the harness the integration scripts share
# (source it; bash).
#
# The sourcing script sets, before sourcing:
#   TMP       a private temp dir (removed on exit)
#   NS        name of the netns it may create (NS_MADE=1 once it did)
#   FILTER    array of test-name globs from its command line
# and gets: VHOSTD, VHOSTCTL (from BUILD), VPID, BGPIDS (PIDs to kill on
# exit), PASS/FAIL counters, ERR, and the functions below.  Cleanup kills
# only the PIDs the script started and removes only what it created.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-$ROOT/build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
VHOSTD=$BUILD/vhostd
VHOSTCTL=$BUILD/vhostctl
VPID=
BGPIDS=()
NS_MADE=0
PASS=0
FAIL=0
ERR=
HAVE_CTL=0
[ -x "$VHOSTCTL" ] && command -v jq >/dev/null && HAVE_CTL=1

# it_cleanup: kill only what we started, then remove what we created.
it_cleanup() {
	local p
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

# result NAME RC DETAIL [OUTPUT-FILE]: count and print one test; on
# failure show the FAIL lines of OUTPUT-FILE and the end of vhostd's log
result() {
	if [ "$2" = 0 ]; then
		PASS=$((PASS + 1))
		printf 'PASS %-26s %s\n' "$1" "$3"
	else
		FAIL=$((FAIL + 1))
		printf 'FAIL %-26s %s\n' "$1" "$3"
		[ -n "${4:-}" ] && grep '^FAIL' "$4" | head -n 20 | sed 's/^/    /'
		[ -s "$TMP/vhostd.log" ] &&
			sed 's/^/    vhostd: /' "$TMP/vhostd.log" | tail -n 8
	fi
	return 0
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
# Ports vu0..vu(N-1) at $TMP/p<i>.sock, control socket $TMP/ctl.
start_vhostd() {
	local pre=() n i args=()
	while [ "$1" != "--" ]; do pre+=("$1"); shift; done
	shift
	n=$1; shift
	rm -f "$TMP"/p*.sock "$TMP/ctl"
	for i in $(seq 0 $((n - 1))); do
		args+=(--port "vhost-user,path=$TMP/p$i.sock,name=vu$i")
	done
	"${pre[@]}" "$VHOSTD" --ctl "$TMP/ctl" "${args[@]}" "$@" \
		>"$TMP/vhostd.log" 2>&1 &
	VPID=$!
	for i in $(seq 0 $((n - 1))); do
		wait_for "$TMP/p$i.sock" || return 1
	done
	wait_for "$TMP/ctl"
}

# stop_vhostd: 0 if it was still alive and exited cleanly on SIGTERM
stop_vhostd() {
	local rc=0
	[ -n "$VPID" ] || return 1
	kill -0 "$VPID" 2>/dev/null || rc=1
	kill "$VPID" 2>/dev/null
	wait "$VPID" || rc=1
	VPID=
	return $rc
}

# ctr PORT JQ-PATH: a counter from "vhostctl stats" (empty if unavailable)
ctr() {
	[ "$HAVE_CTL" = 1 ] || return 0
	"$VHOSTCTL" --ctl "$TMP/ctl" stats 2>/dev/null |
		jq -r ".ports[] | select(.name == \"$1\") | $2" 2>/dev/null
}

# check_ctr PORT JQ-PATH OP VALUE: append a failure to $ERR if it fails
check_ctr() {
	local v
	[ "$HAVE_CTL" = 1 ] || return 0
	v=$(ctr "$1" "$2")
	if ! [[ $v =~ ^[0-9]+$ ]] || ! test "$v" "$3" "$4"; then
		ERR="${ERR:+$ERR; }counter $1$2=$v, want $3 $4"
	fi
}
