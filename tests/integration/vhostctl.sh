#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/vhostctl.sh - vhostctl for people: tables, --json,
# show, top, and every command's errors
#
#   vdrv guests                             vhostctl
#
#   A (p0, pinger 198.18.0.1)   B (p1, responder 198.18.0.2)   p2: E
#                                                       (vdrv_tool evil)
#      |                            |                          |
#      +----------------------- vhostd --ctl ctl --------------+
#
#   ns $NS (vctl-show-tap):  vhostd with TAP port tp (vctltap0) + p0
#
#   vctl-ports       "ports" and "stats": a table (NAME ... PEER), one row
#                    per port, columns aligned, the same numbers as
#                    --json (which is valid JSON)
#   vctl-fdb         "fdb" after traffic: A's and B's MACs on vu0/vu1 (VLAN
#                    1) in a table, as --json lists them
#   vctl-workers     "workers": a table whose worker, tid and sources are
#                    what --json says
#   vctl-captures    no capture: "no captures running" / []; one running
#                    on vu0: its row, and its --json entry
#   vctl-show        "show vu1" with B connected: features by name, rings
#                    started with their sizes and indexes, the worker of
#                    the TX ring, memory regions by guest address, B's
#                    MAC, the TX source's polling row with its gap
#                    bounds; --json: the same, the gap histogram adding
#                    up to 1000 per mille, and no key naming a host
#                    address (uva, hva, mmap)
#   vctl-show-idle   "show vu2" (no front end): not connected, no memory,
#                    rings off
#   vctl-show-unknown "show nosuch": exit 1, one line on stderr, nothing
#                    on stdout; with --json the error object
#   vctl-show-broken E on vu2 breaks ring 1 (bad-head), then shrinks its
#                    memory (shrink): "show vu2" names each as the last
#                    error, kept after E was dropped
#   vctl-top         "top -n 2 -d 0.5" while A pings B: two refreshes,
#                    non-zero RX-PPS on vu0; --json: two lines, rx_pps > 0;
#                    without -n and without a tty: exit 2
#   vctl-metrics     "metrics": Prometheus text, the same with --json
#   vctl-help        "help" (the daemon's list) and --help (vhostctl's)
#                    both name show; top --help, capture --help: exit 0
#   vctl-errors      unknown command, bad option, missing/extra/blank
#                    argument, bad top options: exit 2, a message
#   vctl-no-daemon   a socket nobody serves, a missing one, a path too
#                    long: exit 1, "cannot connect" and why
#   vctl-completion  contrib/bash-completion/vhostctl: commands, options,
#                    the daemon's port names after show and port del
#   vctl-show-tap    "show tp" in a netns: interface, queues and the
#                    worker polling each (root; skipped otherwise)
#
# Usage: tests/integration/vhostctl.sh [NAME-GLOB...]  (BUILD=dir;
# VHOSTD_USER as lib.sh).  Unix sockets; root only for vctl-show-tap.
set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-vctl.XXXXXX)
NS=vctl$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
TOOL=$BUILD/tests/vdrv_tool
[ -x "$TOOL" ] || { echo "missing $TOOL (make O=$BUILD)"; exit 2; }

MAC_A=02:00:00:00:0e:01
MAC_B=02:00:00:00:0e:02

# vc ARGS...: vhostctl on our socket; stdout in $TMP/o, stderr in
#   $TMP/e; its exit status
vc() {
	timeout 20 "$VHOSTCTL" --ctl "$TMP/ctl" "$@" >"$TMP/o" 2>"$TMP/e"
}

# finish NAME DETAIL: the result of one test from $ERR
finish() {
	result "$1" "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-$2}"
	ERR=
}

# aligned FILE COL: every line of the table in FILE has its COL-th
#   heading's column starting at the same offset (left-aligned column)
aligned() {
	awk -v col="$2" 'NR == 1 {
		n = split($0, h, /  +/); want = index($0, h[col]); next }
		{ if (substr($0, want - 2, 2) != "  " || substr($0, want, 1) == " ") bad = 1 }
		END { exit bad }' "$1"
}

# pinger COUNT INTERVAL-MS: A pings B
pinger() {
	timeout 60 "$TOOL" pinger --sock "$TMP/p0.sock" --mac $MAC_A \
		--ip 198.18.0.1 --peer-ip 198.18.0.2 --count "$1" \
		--interval-ms "$2" --timeout-ms 5000
}

ERR=
if ! start_vhostd -- 3; then
	result vctl-setup 1 "vhostd did not start"
	it_summary
	exit
fi
"$TOOL" responder --sock "$TMP/p1.sock" --mac $MAC_B --ip 198.18.0.2 \
	--seconds 120 >"$TMP/resp.out" 2>&1 &
RPID=$!
BGPIDS+=("$RPID")
wait_up 10 vu1
out=$(pinger 5 10 2>&1) || fail "pings: $out"
[ -z "$ERR" ] || { result vctl-setup 1 "$ERR"; ERR=; }

# ---- vctl-ports -------------------------------------------------------
for c in ports stats; do
	wanted vctl-ports || break
	vc "$c" || fail "$c: rc $?: $(head -c 200 "$TMP/e")"
	cp "$TMP/o" "$TMP/table"
	head -n 1 "$TMP/table" | grep -qE '^NAME +TYPE +UP +VLAN +MACS +RX-PKTS +RX-BYTES +TX-PKTS +TX-BYTES +DROPS +VIOL +PEER$' ||
		fail "$c: heading '$(head -n 1 "$TMP/table")'"
	[ "$(wc -l <"$TMP/table")" = 4 ] || fail "$c: $(wc -l <"$TMP/table") lines, want 4"
	for col in 2 3 4 12; do
		aligned "$TMP/table" $col || fail "$c: column $col not aligned"
	done
	grep -qE '^vu1 +vhost-user +up +1 +1 +[0-9]+ +[0-9.]+ (B|KiB) .* split 1/1q$' "$TMP/table" ||
		fail "$c: vu1 row '$(grep '^vu1' "$TMP/table")'"
	grep -qE '^vu2 +vhost-user +down +1 +0 +0 +0 B +0 +0 B +0 +0 +no peer$' "$TMP/table" ||
		fail "$c: vu2 row '$(grep '^vu2' "$TMP/table")'"
	vc --json "$c" || fail "$c --json: rc $?"
	jq -e '.ports | map(.name) == ["vu0", "vu1", "vu2"]' "$TMP/o" >/dev/null ||
		fail "$c --json: $(head -c 200 "$TMP/o")"
	# The table's packet counts are the JSON's (no traffic meanwhile).
	for p in vu0 vu1; do
		want=$(jq -r ".ports[] | select(.name == \"$p\") | \"\(.rx_packets) \(.tx_packets)\"" "$TMP/o")
		# Each byte count is two words ("576 B").
		got=$(awk -v p=$p '$1 == p { print $6 " " $9 }' "$TMP/table")
		[ "$want" = "$got" ] || fail "$c: $p table '$got', JSON '$want'"
	done
done
wanted vctl-ports && finish vctl-ports "ports/stats: 3 rows, aligned, equal to --json"

# ---- vctl-fdb ---------------------------------------------------------
if wanted vctl-fdb; then
	# A's MAC lives while A is connected: the table read meanwhile.
	pinger 300 10 >"$TMP/ping0.out" 2>&1 &
	PPID0=$!
	for _ in $(seq 100); do
		vc --json fdb && [ "$(jq '.fdb | length' "$TMP/o")" = 2 ] && break
		sleep 0.05
	done
	vc fdb || fail "fdb: rc $?"
	head -n 1 "$TMP/o" | grep -qE '^VLAN +MAC +PORT +AGE +KIND$' || fail "fdb heading '$(head -n 1 "$TMP/o")'"
	grep -qE "^ *1 +$MAC_A +vu0 +[0-9]+s +learned$" "$TMP/o" || fail "A not listed: $(cat "$TMP/o")"
	grep -qE "^ *1 +$MAC_B +vu1 +[0-9]+s +learned$" "$TMP/o" || fail "B not listed: $(cat "$TMP/o")"
	tail -n 1 "$TMP/o" | grep -q '^2 entries, learned ones forgotten after 300 s idle$' ||
		fail "fdb footer '$(tail -n 1 "$TMP/o")'"
	head -n -1 "$TMP/o" >"$TMP/fdbt"	# the table without its footer
	aligned "$TMP/fdbt" 3 || fail "fdb: PORT not aligned"
	vc --json fdb || fail "fdb --json: rc $?"
	[ "$(jq -r '[.fdb[] | "\(.vlan) \(.mac) \(.port)"] | sort | join(",")' "$TMP/o")" = "1 $MAC_A vu0,1 $MAC_B vu1" ] ||
		fail "fdb --json: $(cat "$TMP/o")"
	wait "$PPID0" || fail "pings: $(cat "$TMP/ping0.out")"
	finish vctl-fdb "A and B learned on vu0/vu1, table = --json"
fi

# ---- vctl-workers ---------------------------------------------------------
if wanted vctl-workers; then
	vc workers || fail "workers: rc $?"
	head -n 1 "$TMP/o" | grep -qE '^WORKER +TID +CPU +SOURCES +PASSES +BUSY_S +POLL_S +LOST% +BACKOFFS +STATE$' ||
		fail "workers heading '$(head -n 1 "$TMP/o")'"
	# The last line says how polling is chosen (auto: the wake-up cost).
	tail -n 1 "$TMP/o" | grep -qE '^polling: auto, per source .*; a wake-up costs [0-9]+\.[0-9] us here$' ||
		fail "workers footer '$(tail -n 1 "$TMP/o")'"
	vc --json workers || fail "workers --json: rc $?"
	want=$(jq -r '.workers[] | "\(.idx) \(.tid) \(.sources) \(.backoffs)"' "$TMP/o")
	jq -e '.poll.mode == "auto" and .poll.wake_ns > 0 and
		all(.workers[]; .poll_ns >= 0 and .lost_ns <= .poll_ns and
		    (.backoff | type == "boolean"))' "$TMP/o" >/dev/null ||
		fail "workers --json polling: $(head -c 300 "$TMP/o")"
	vc workers
	sed '$d' "$TMP/o" >"$TMP/o.rows"
	got=$(awk 'NR > 1 { print $1, $2, $4, $9 }' "$TMP/o.rows")
	[ -n "$want" ] && [ "$got" = "$want" ] || fail "workers table '$got', --json '$want'"
	aligned "$TMP/o.rows" 10 || fail "workers: STATE not aligned"
	finish vctl-workers "table = --json ($(echo "$want" | wc -l) worker(s)), polling auto"
fi

# ---- vctl-captures ----------------------------------------------------
if wanted vctl-captures; then
	vc captures || fail "captures: rc $?"
	[ "$(cat "$TMP/o")" = "no captures running" ] || fail "idle captures: '$(cat "$TMP/o")'"
	vc --json captures && jq -e '. == []' "$TMP/o" >/dev/null || fail "idle captures --json: '$(cat "$TMP/o")'"
	"$VHOSTCTL" --ctl "$TMP/ctl" capture vu0 -q -c 1000 -w /dev/null icmp \
		2>"$TMP/cap.err" &
	CPID=$!
	BGPIDS+=("$CPID")
	for _ in $(seq 100); do
		vc --json captures && [ "$(jq length "$TMP/o")" = 1 ] && break
		sleep 0.05
	done
	jq -e '.[0] | .port == "vu0" and .count == 1000' "$TMP/o" >/dev/null ||
		fail "capture --json: $(cat "$TMP/o")"
	vc captures || fail "captures: rc $?"
	head -n 1 "$TMP/o" | grep -qE '^PORT +DIR +FORMAT +SNAPLEN +FILTER +SEEN +CAPTURED +FILTERED +DROPPED +SENT +LEFT$' ||
		fail "captures heading '$(head -n 1 "$TMP/o")'"
	grep -qE '^vu0 +both +pcap +[0-9.]+ KiB +[1-9][0-9]* +[0-9]+ +[0-9]+ +[0-9]+ +0 +[0-9]+ +[0-9]+$' "$TMP/o" ||
		fail "captures row: $(tail -n +2 "$TMP/o")"
	kill "$CPID" 2>/dev/null
	wait "$CPID" 2>/dev/null
	finish vctl-captures "none: one line; one on vu0: its row, as --json"
fi

# ---- vctl-show --------------------------------------------------------
if wanted vctl-show; then
	vc show vu1 || fail "show vu1: rc $?: $(cat "$TMP/e")"
	cp "$TMP/o" "$TMP/show"
	for re in '^vu1: vhost-user port 1, up$' \
		  '^  front end +connected, owner set$' \
		  '^  queue pairs +1 offered, 1 enabled, 1 started$' \
		  '^  ring layout +split, virtio-net header 12 B' \
		  '^  features +0x[0-9a-f]+$' ' VERSION_1( |$)' ' MRG_RXBUF( |$)' \
		  '^  protocol +0x[0-9a-f]+$' '^  last error +none$' \
		  '^  memory +[1-9][0-9]* regions?, ' \
		  '^    0x[0-9a-f]{12}-0x[0-9a-f]{12} +[0-9.]+ (B|KiB|MiB|GiB)$' \
		  '^    Q +PAIR +DIR +SIZE +LAYOUT +STATE +LAST-AVAIL +USED +KICK +CALL +WORKER +HELD$' \
		  '^    0 +0 +rx +256 +split +started +[0-9]+ +[0-9]+ +fd +fd +any +[0-9]+$' \
		  '^    1 +0 +tx +256 +split +started +[0-9]+ +[0-9]+ +fd +fd +w0 +0$' \
		  '^  polling +per source queue' \
		  '^    SOURCE +WORKER +MODE +WINDOW_US +POLLED_S +SLEPT_S +SLEEPS +WAKEUPS +HITS +GAP50 +GAP90$' \
		  '^ +1 +w0 +(learn|poll|sleep|bulk|backoff)(, armed)? +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +[0-9]+ +[0-9]+ +[<>][0-9]+(us|ms) +[<>][0-9]+(us|ms)$' \
		  "^    $MAC_B +[0-9]+s +learned$"; do
		grep -qE -- "$re" "$TMP/show" || fail "show vu1: no line /$re/"
	done
	vc --json show vu1 || fail "show --json: rc $?"
	jq -e --arg mac $MAC_B '.port | .name == "vu1" and .up and
		(.negotiated.features_names | index("VERSION_1")) and
		(.vhost.rings | length == 2 and all(.started and .size == 256)) and
		(.vhost.rings[1].used == .vhost.rings[1].last_avail) and
		(.vhost.memory.regions | length >= 1 and all(.gpa | test("^0x[0-9a-f]+$"))) and
		(.vhost.memory.bytes == ([.vhost.memory.regions[].size] | add)) and
		(.sources | map({q, worker}) == [{"q": 1, "worker": 0}]) and
		(.sources[0].poll | (.mode | test("^(learn|poll|sleep|bulk|backoff)$")) and
		 .target_ns == 0 and .hits + .sleeps > 0 and
		 .hits + .sleeps >= .wakeups and
		 (.gaps_pm | length == 20 and all(. >= 0 and . <= 1000) and
		  add > 980 and add <= 1000)) and
		(.addresses | map(.mac) == [$mac]) and .vhost.last_error == null' \
		"$TMP/o" >/dev/null || fail "show --json: $(head -c 300 "$TMP/o")"
	# Host addresses are never shown: no key names one.
	keys=$(jq -r '[paths | map(strings) | .[]] | unique | join(" ")' "$TMP/o")
	[[ " $keys " =~ \ (uva|hva|mmap_addr|host_addr|desc_uva|avail_uva|used_uva)\  ]] &&
		fail "show --json names a host address: $keys"
	finish vctl-show "vu1: features by name, 2 rings started, w0 on TX, memory by GPA, B's MAC; no host address"
fi

if wanted vctl-show-idle; then
	vc show vu2 || fail "show vu2: rc $?"
	grep -qE '^  front end +not connected$' "$TMP/o" || fail "vu2 connected? $(cat "$TMP/o")"
	grep -qE '^  memory +0 regions, 0 B' "$TMP/o" || fail "vu2 memory: $(grep memory "$TMP/o")"
	grep -qE '^    0 +0 +rx +0 +- +off ' "$TMP/o" || fail "vu2 rings: $(cat "$TMP/o")"
	vc --json show vu2 && jq -e '.port.vhost.connected == false and .port.sources == []' \
		"$TMP/o" >/dev/null || fail "show vu2 --json: $(head -c 200 "$TMP/o")"
	finish vctl-show-idle "vu2: not connected, no memory, rings off"
fi

if wanted vctl-show-unknown; then
	vc show nosuch
	rc=$?
	[ $rc = 1 ] && [ ! -s "$TMP/o" ] &&
		[ "$(cat "$TMP/e")" = "vhostctl: show: no port named 'nosuch'" ] ||
		fail "show nosuch: rc $rc, stdout '$(cat "$TMP/o")', stderr '$(cat "$TMP/e")'"
	vc --json show nosuch
	rc=$?
	[ $rc = 1 ] && [ "$(jq -r .error "$TMP/e")" = "show: no port named 'nosuch'" ] ||
		fail "show nosuch --json: rc $rc, stderr '$(cat "$TMP/e")'"
	finish vctl-show-unknown "exit 1, one line on stderr; --json: the error object"
fi

# ---- vctl-show-broken -------------------------------------------------
# evil KIND: E (on p2) commits KIND and is dropped
evil() {
	timeout 20 "$TOOL" evil --sock "$TMP/p2.sock" --kind "$1" >"$TMP/evil.out" 2>&1 ||
		fail "evil $1: $(cat "$TMP/evil.out")"
}
if wanted vctl-show-broken; then
	evil bad-head
	for _ in $(seq 40); do
		vc --json show vu2 && jq -e '.port.vhost.last_error != null' "$TMP/o" >/dev/null && break
		sleep 0.05
	done
	jq -e '.port.vhost.last_error | .reason == "guest broke ring 1 (TX of queue pair 0)" and .age_s <= 5' \
		"$TMP/o" >/dev/null || fail "after bad-head: $(jq -c .port.vhost.last_error "$TMP/o")"
	vc show vu2
	grep -qE '^  last error +guest broke ring 1 \(TX of queue pair 0\) \([0-9]+s ago\)$' "$TMP/o" ||
		fail "after bad-head: $(grep 'last error' "$TMP/o")"
	grep -qE '^  front end +not connected$' "$TMP/o" || fail "E still connected"
	grep -qE '^  dropped +0 \(violations [1-9][0-9]*\)$' "$TMP/o" || fail "no violation: $(grep dropped "$TMP/o")"
	evil shrink
	for _ in $(seq 40); do
		vc --json show vu2 && jq -e '.port.vhost.last_error.reason | startswith("guest memory shrank")' \
			"$TMP/o" >/dev/null && break
		sleep 0.05
	done
	jq -e '.port.vhost.last_error.reason | test("^guest memory shrank under its mapping \\([1-9][0-9]* faults? contained\\)$")' \
		"$TMP/o" >/dev/null || fail "after shrink: $(jq -c .port.vhost.last_error "$TMP/o")"
	finish vctl-show-broken "bad-head: ring 1 named; shrink: the memory fault; kept after E left"
fi

# ---- vctl-top ---------------------------------------------------------
if wanted vctl-top; then
	pinger 400 5 >"$TMP/ping1.out" 2>&1 &
	PPID1=$!
	sleep 0.3
	vc top -n 2 -d 0.5 || fail "top: rc $?: $(cat "$TMP/e")"
	cp "$TMP/o" "$TMP/top"
	[ "$(grep -c '^vhostd top ' "$TMP/top")" = 2 ] || fail "top: not 2 refreshes: $(cat "$TMP/top")"
	grep -qE '^vhostd top +[0-9:]+ +over 0\.5 s +\(2/2\)$' "$TMP/top" || fail "top: no 2/2 line"
	[ "$(grep -cE '^NAME +TYPE +UP +RX-PPS +RX-GBIT/S +TX-PPS +TX-GBIT/S +DROPS/S$' "$TMP/top")" = 2 ] ||
		fail "top: headings"
	grep -q $'\e' "$TMP/top" && fail "top: escape codes without a tty"
	awk '$1 == "vu0" && $4 + 0 > 0 { n++ } END { exit n ? 0 : 1 }' "$TMP/top" ||
		fail "top: vu0 RX-PPS never > 0: $(grep '^vu0' "$TMP/top" | tr '\n' '|')"
	vc --json top -n 2 -d 0.4 || fail "top --json: rc $?"
	[ "$(wc -l <"$TMP/o")" = 2 ] || fail "top --json: $(wc -l <"$TMP/o") lines"
	jq -se 'length == 2 and any(.[].ports[]; .name == "vu0" and .rx_pps > 0 and .rx_bps > 0)' \
		"$TMP/o" >/dev/null || fail "top --json: $(head -c 300 "$TMP/o")"
	wait "$PPID1" || fail "pings under top: $(cat "$TMP/ping1.out")"
	vc top -d 0.2
	rc=$?
	[ $rc = 2 ] && grep -q "not a terminal: give -n COUNT" "$TMP/e" ||
		fail "top without a tty or -n: rc $rc, '$(cat "$TMP/e")'"
	finish vctl-top "2 refreshes, vu0 RX-PPS > 0 under pings; --json 2 lines; no tty needs -n"
fi

# ---- vctl-metrics -----------------------------------------------------
if wanted vctl-metrics; then
	vc metrics || fail "metrics: rc $?"
	cp "$TMP/o" "$TMP/m1"
	grep -qE '^# TYPE vhostd_[a-z_]+ (counter|gauge)$' "$TMP/m1" || fail "metrics: no # TYPE line"
	grep -qE '^vhostd_port_rx_packets_total\{port="vu0"[^}]*\} [1-9][0-9]*$' "$TMP/m1" ||
		fail "metrics: no vu0 rx_packets sample: $(grep rx_packets "$TMP/m1" | head -n 3)"
	vc --json metrics || fail "metrics --json: rc $?"
	[ "$(grep -c '^# HELP' "$TMP/o")" = "$(grep -c '^# HELP' "$TMP/m1")" ] ||
		fail "metrics --json differs in its series"
	finish vctl-metrics "Prometheus text, vu0's frames counted, same series with --json"
fi

# ---- vctl-help --------------------------------------------------------
if wanted vctl-help; then
	vc help || fail "help: rc $?"
	grep -qE '^show NAME +one port' "$TMP/o" || fail "daemon help has no show: $(cat "$TMP/o")"
	"$VHOSTCTL" --help >"$TMP/o" 2>"$TMP/e" || fail "--help: rc $?"
	for re in '^Usage: vhostctl \[--ctl PATH\] \[--json\] COMMAND \[ARG\]$' \
		  '^  -j, --json ' '^  show PORT +one port' \
		  '^  top \[-n COUNT\] \[-d SECONDS\] +frames/s'; do
		grep -qE -- "$re" "$TMP/o" || fail "--help: no /$re/"
	done
	"$VHOSTCTL" top --help >"$TMP/o" 2>&1 && grep -q '^Usage: vhostctl .* top ' "$TMP/o" ||
		fail "top --help: $(head -n 1 "$TMP/o")"
	"$VHOSTCTL" capture --help >"$TMP/o" 2>&1 || fail "capture --help: rc $?"
	finish vctl-help "daemon help and --help list show and top; top --help"
fi

# ---- vctl-errors ------------------------------------------------------
# want2 WHAT RE ARGS...: vhostctl ARGS exits 2 with a stderr line matching RE
want2() {
	local what=$1 re=$2 rc
	shift 2
	vc "$@"
	rc=$?
	[ $rc = 2 ] && [ ! -s "$TMP/o" ] && grep -qE -- "$re" "$TMP/e" ||
		fail "$what: rc $rc, stderr '$(head -n 1 "$TMP/e")', want 2 /$re/"
}
if wanted vctl-errors; then
	want2 "unknown command" "^vhostctl: unknown command 'frobnicate' \(see --help\)$" frobnicate
	want2 "unknown two-word command" "^vhostctl: unknown command 'port list'" port list
	want2 "bad option" "unrecognized option '--bogus'" --bogus ports
	want2 "no command" "^vhostctl: missing COMMAND$"
	want2 "show without a port" "^vhostctl: show: missing argument$" show
	want2 "show two ports" "^vhostctl: show: one COMMAND at a time$" show vu0 vu1
	want2 "show a blank name" "^vhostctl: show: PORT must be one word" show "vu 0"
	want2 "ports with an argument" "^vhostctl: ports: one COMMAND at a time$" ports vu0
	want2 "top -n 0" "^vhostctl: top: -n: a count from 1, not '0'$" top -n 0
	want2 "top -n x" "^vhostctl: top: -n: a count from 1, not 'x'$" top -n x
	want2 "top -d 0" "^vhostctl: top: -d: seconds from 0.1 to 3600, not '0'$" top -n 1 -d 0
	want2 "top extra" "^vhostctl: top: unexpected 'vu0'$" top -n 1 vu0
	want2 "top bad option" "invalid option -- 'x'" top -x
	# The daemon's own refusal: exit 1, the message.
	vc port del nosuch
	rc=$?
	[ $rc = 1 ] && grep -qE "^vhostctl: port del: .*nosuch" "$TMP/e" ||
		fail "port del nosuch: rc $rc, '$(cat "$TMP/e")'"
	kill -0 "$VPID" || fail "vhostd died"
	finish vctl-errors "13 usage errors exit 2 with a message; a daemon refusal exits 1"
fi

# ---- vctl-no-daemon ---------------------------------------------------
if wanted vctl-no-daemon; then
	python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$TMP/dead.sock"
	for sock in "$TMP/dead.sock" "$TMP/missing.sock"; do
		timeout 10 "$VHOSTCTL" --ctl "$sock" ports >"$TMP/o" 2>"$TMP/e"
		rc=$?
		[ $rc = 1 ] && [ ! -s "$TMP/o" ] &&
			grep -qE "^vhostctl: cannot connect to $sock: .* \(is vhostd running with --ctl\?\)$" "$TMP/e" ||
			fail "$sock: rc $rc, '$(cat "$TMP/e")'"
	done
	timeout 10 "$VHOSTCTL" --ctl "$TMP/$(printf 'x%.0s' $(seq 120))" top -n 1 >"$TMP/o" 2>"$TMP/e"
	rc=$?
	[ $rc = 1 ] && grep -q "path too long" "$TMP/e" || fail "long path: rc $rc, '$(cat "$TMP/e")'"
	VHOSTD_CTL=$TMP/missing.sock timeout 10 "$VHOSTCTL" show vu0 >"$TMP/o" 2>"$TMP/e"
	rc=$?
	[ $rc = 1 ] && grep -q "cannot connect to $TMP/missing.sock" "$TMP/e" ||
		fail "VHOSTD_CTL: rc $rc, '$(cat "$TMP/e")'"
	finish vctl-no-daemon "refused, missing, too long, \$VHOSTD_CTL: exit 1 with the reason"
fi

# ---- vctl-completion --------------------------------------------------
# complete WORD...: what contrib/bash-completion/vhostctl offers for the
#   line "vhostctl --ctl CTL WORD..." (the last word being completed)
complete_words() {
	# shellcheck disable=SC2016 # expanded by the inner shell
	bash -c '. "$1/contrib/bash-completion/vhostctl"; shift
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _vhostctl
		echo "${COMPREPLY[*]}"' complete "$ROOT" "$VHOSTCTL" --ctl "$TMP/ctl" "$@"
}
if wanted vctl-completion; then
	[ "$(complete_words sh)" = "show" ] || fail "sh -> '$(complete_words sh)'"
	[ "$(complete_words show '')" = "vu0 vu1 vu2" ] || fail "show -> '$(complete_words show '')'"
	[ "$(complete_words port del vu)" = "vu0 vu1 vu2" ] || fail "port del vu -> '$(complete_words port del vu)'"
	[ "$(complete_words top -)" = "-n -d --help" ] || fail "top - -> '$(complete_words top -)'"
	[ "$(complete_words --j)" = "--json" ] || fail "--j -> '$(complete_words --j)'"
	finish vctl-completion "commands, options, and port names from the daemon"
fi

kill "$RPID" 2>/dev/null
wait "$RPID" 2>/dev/null
stop_vhostd TERM || result vctl-exit 1 "vhostd died or exited uncleanly: $ERR"
ERR=

# ---- vctl-show-tap ----------------------------------------------------
if wanted vctl-show-tap; then
	if netns_setup; then
		if start_vhostd ip netns exec "$NS" -- 1 --port tap,ifname=vctltap0,name=tp; then
			tap_up vctltap0 198.18.7.1/24 || fail "vctltap0 not up"
			vc show tp || fail "show tp: rc $?: $(cat "$TMP/e")"
			for re in '^tp: tap port 1, ' '^  interface +vctltap0, ' \
				  '^  offloads +(on|off) \(0x[0-9a-f]+\), frames up to ' \
				  '^    Q +STEERED-TO +WORKER$' '^    0 +flood/unknown +w0$'; do
				grep -qE -- "$re" "$TMP/o" || fail "show tp: no /$re/: $(cat "$TMP/o")"
			done
			vc --json show tp &&
			jq -e '.port | .type == "tap" and .tap.ifname == "vctltap0" and
				(.tap.queues | length >= 1) and (.sources | any(.q == 0 and .worker == 0))' \
				"$TMP/o" >/dev/null || fail "show tp --json: $(head -c 300 "$TMP/o")"
			stop_vhostd TERM || fail "vhostd died or exited uncleanly"
		else
			fail "vhostd with a TAP port did not start"
		fi
		finish vctl-show-tap "tp: interface vctltap0, queue 0 polled by w0"
	else
		no_netns vctl-show-tap
	fi
fi

it_summary
