#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/l2.sh - L2 isolation and storm control: a hostile
# guest C against two victims A and B
#
#   vdrv guests in one vdrv_itest process (l2.c); MACs 02:12:00:00:00:0<i+1>
#
#     A (vu0, p0.sock)    B (vu1, p1.sock)    C (vu2, p2.sock)  <- attacker
#          \                   |                   /
#           +------------- vhostd ----------------+-- D (vu3, p3.sock)
#             --ctl ctl; per test: B and/or C locked      storm-bystander
#             (mac=), C's flood-rate / flood-burst        only
#
#   mac-lock     B, C locked to their MACs: C's frames from B's MAC and
#                B's from a foreign MAC are dropped (drops.spoofed exact),
#                A<->B intact; the FDB lists B's MAC static on vu1
#   mac-steal    only B locked: C (unlocked) sends from B's MAC: forwarded,
#                but B's static entry stays (learn_refused.locked = 1 at C)
#   mac-move     nobody locked: B's MAC moves to C with C's frame and back
#                with B's (the default, as VM migration needs)
#   mac-spray    C sprays 5000 source MACs (default max-macs 64): C owns
#                <= 64, learn_refused.quota >= 4936, A<->B stay learned
#                (C gets none of their frames), the FDB stays small, and
#                C at its quota cannot take B's MAC
#   storm        C floods broadcast + unknown unicast flat out for 3 s
#                (flood-rate=500, flood-burst=100) while A and B exchange
#                requests and responses: A and B each get at most
#                burst + rate x time (+10 %) of it, every exchange intact,
#                no no_buffer drops at A or B, drops.storm at C
#   storm-default the same with vhostd's default flood-rate (1000/s)
#   storm-bystander  D (vu3) joins, all on one worker: rounds alternate C
#                flooding D's MAC (ordinary) and C's storm; A<->B's
#                round-trip p99 under the storm (median of 5 rounds) within
#                2x of the ordinary flood's, or under 5 ms
#   conf-l2      bad mac=, max-macs=, flood-rate= values and two ports
#                locked to one MAC are refused with exit 2
#
# Usage: tests/integration/l2.sh [NAME-GLOB...]
#   BUILD=dir   where vhostd, vhostctl and tests/ are (default: build)
# Prints one line per test and "N passed, M failed, K skipped"; exits 1
# on any failure.  Traffic only over unix sockets in a temp dir.

set -u

TMP=$(mktemp -d /tmp/vhostd-l2.XXXXXX)
NS=vhl2$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
ITEST=$BUILD/tests/vdrv_itest

for f in "$VHOSTD" "$ITEST"; do
	[ -x "$f" ] || { echo "missing $f (make O=$BUILD first)"; exit 2; }
done

MAC_B=02:12:00:00:00:02
MAC_C=02:12:00:00:00:03

# l2_run NAME SCENARIO KEYS-A KEYS-B ... [-- VHOSTD-ARGS...]: vhostd with
#   one port per KEYS argument, vu0, vu1, ... (each spec followed by its
#   KEYS, "" for none), the scenario, then "post_NAME" if defined (checks
#   while vhostd runs), vhostd's clean exit, the result
l2_run() {
	local name=$1 sc=$2 i=0 rc ok=1 ports=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		ports+=(--port "vhost-user,path=$TMP/p$i.sock,name=vu$i$1")
		i=$((i + 1))
		shift
	done
	[ $# -gt 0 ] && shift
	wanted "$name" || return 0
	ERR=
	: >"$TMP/it.out"
	start_vhostd -- 0 "${ports[@]}" "$@" || ok=0
	for rc in $(seq 0 $((i - 1))); do
		wait_for "$TMP/p$rc.sock" || ok=0
	done
	if [ $ok = 1 ]; then
		# shellcheck disable=SC2046 # word splitting on purpose
		VDRV_ITEST_CTL=$TMP/ctl timeout 120 "$ITEST" "$sc" \
			$(socks "$i") >"$TMP/it.out" 2>&1
		rc=$?
		[ $rc = 0 ] || ERR="$(grep -m1 FAIL "$TMP/it.out" || echo "vdrv_itest rc $rc")"
		if declare -F "post_$name" >/dev/null; then
			"post_$name"
		fi
	else
		ERR="vhostd did not start"
	fi
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result "$name" "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$(tail -n 1 "$TMP/it.out")}" "$TMP/it.out"
	ERR=
}

# fdb_q JQ: evaluate JQ over "vhostctl fdb"; fails (empty) on no answer
fdb_q() {
	local out
	out=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" fdb 2>/dev/null) || return 1
	jq -e -r "$1" <<<"$out" 2>/dev/null
}

post_mac-lock() {
	[ "$(fdb_q "[.fdb[] | select(.mac == \"$MAC_B\")] | .[0] | \"\(.port) \(.static)\"")" = "vu1 true" ] ||
		ERR="${ERR:+$ERR; }fdb: $MAC_B not static on vu1"
	[ "$(fdb_q "[.fdb[] | select(.mac == \"$MAC_B\")] | length")" = 1 ] ||
		ERR="${ERR:+$ERR; }fdb: $MAC_B listed more than once"
	check_ctr vu0 '.drops.spoofed' -eq 0
	check_ctr vu1 '.learn_refused.locked' -eq 0
}

post_mac-steal() {
	[ "$(fdb_q "[.fdb[] | select(.mac == \"$MAC_B\")] | .[0] | \"\(.port) \(.static)\"")" = "vu1 true" ] ||
		ERR="${ERR:+$ERR; }fdb: $MAC_B not static on vu1"
	check_ctr vu2 '.learn_refused.locked' -eq 1
	check_ctr vu2 '.drops.spoofed' -eq 0
}

post_mac-spray() {
	local n
	n=$(fdb_q '.fdb | length')
	# C's quota, A's and B's MACs, the three probe senders are the same
	[[ $n =~ ^[0-9]+$ ]] && [ "$n" -le 70 ] ||
		ERR="${ERR:+$ERR; }fdb holds ${n:-?} entries after the spray"
	[ "$(fdb_q '[.fdb[] | select(.idx == 2)] | length')" -le 64 ] ||
		ERR="${ERR:+$ERR; }C owns more than 64 MACs in the fdb listing"
	check_ctr vu2 '.macs' -le 64
	check_ctr vu2 '.learn_refused.quota' -ge 4936
	check_ctr vu0 '.learn_refused.quota' -eq 0
	check_ctr vu1 '.learn_refused.quota' -eq 0
	# metrics carry the same numbers
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" metrics >"$TMP/m" 2>/dev/null
	grep -qE '^vhostd_port_learn_refused_total\{port="vu2",type="vhost-user",reason="quota"\} [0-9]+$' "$TMP/m" &&
	grep -qE '^vhostd_port_macs\{port="vu2",type="vhost-user"\} ([0-9]|[1-5][0-9]|6[0-4])$' "$TMP/m" ||
		ERR="${ERR:+$ERR; }metrics lack learn_refused/macs of vu2"
}

post_storm() {
	check_ctr vu2 '.drops.storm' -ge 1
	check_ctr vu0 '.drops.no_buffer' -eq 0
	check_ctr vu1 '.drops.no_buffer' -eq 0
}

l2_run mac-lock mac-lock "" ",mac=$MAC_B" ",mac=$MAC_C"
l2_run mac-steal mac-steal "" ",mac=$MAC_B" ""
l2_run mac-move mac-move "" "" ""
l2_run mac-spray mac-spray "" "" ""
L2_RATE=500 L2_BURST=100 \
	l2_run storm storm "" "" ",flood-rate=500,flood-burst=100"
post_storm-default() { post_storm; }
L2_RATE=1000 L2_BURST=128 \
	l2_run storm-default storm "" "" ""
l2_run storm-bystander storm-bystander "" "" "" "" -- --workers 1

# ---- conf-l2: what the command line refuses -------------------------------
if wanted conf-l2; then
	ERR=
	for spec in "mac=01:00:5e:00:00:01" "mac=00:00:00:00:00:00" \
		    "mac=02:12:00:00:00" "mac=02:12:00:00:00:0g" \
		    "mac=02-12-00-00-00-02" "max-macs=4097" "max-macs=-1" \
		    "flood-rate=100000001" "flood-burst=0" "max-macs=1,max-macs=2"; do
		out=$("$VHOSTD" --port "vhost-user,path=$TMP/x.sock,$spec" 2>&1)
		rc=$?
		[ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] ||
			ERR="${ERR:+$ERR; }'$spec': rc $rc: $out"
	done
	out=$("$VHOSTD" --port "tap,ifname=x0,mac=$MAC_B" 2>&1)
	[ $? = 2 ] || ERR="${ERR:+$ERR; }mac= accepted on a tap port"
	out=$("$VHOSTD" --port "vhost-user,path=$TMP/x.sock,mac=$MAC_B" \
		--port "vhost-user,path=$TMP/y.sock,mac=$MAC_B" 2>&1)
	[ $? = 2 ] && grep -q "both locked" <<<"$out" ||
		ERR="${ERR:+$ERR; }two ports locked to one MAC: $out"
	[ ! -e "$TMP/x.sock" ] || ERR="${ERR:+$ERR; }a refused command line created a socket"
	result conf-l2 "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-bad L2 keys refused with one line, exit 2}"
fi

it_summary
