#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/ctl.sh - vhostd's control socket: fdb, metrics, help,
# malformed lines, clients that hang, many clients at once
#
#   vdrv guests                                       clients of ctl
#
#   ctl-fdb:     A (p0) B (p1) C (p2)  (p3: no guest)  vhostctl (x50 at once)
#                vdrv_itest ctl-guests                 socat: raw bytes,
#   ctl-hostile: A (p0, 3000 MACs)  D (p1)  E (p2)       silence, no newline,
#                                   responder pinger     1 MB lines, readers
#                  |      |      |      |                that never read
#                  +------+------+-- vhostd --ctl ctl <------+
#
#   ctl-fdb        "fdb" lists exactly the MACs A, B, C announced, on their
#                  ports (and none once C left)
#   ctl-metrics    "metrics" passes a strict text-exposition check and every
#                  per-port sample equals the "stats" JSON of that port
#                  (the queue pair gauges its "negotiated" object)
#   ctl-help       "help" lists exactly the commands vhostctl knows; each
#                  that takes no argument answers (port add/del: portctl.sh)
#   ctl-malformed  unknown/empty/binary/NUL/unterminated/overlong lines:
#                  a JSON error (valid UTF-8) or a dropped connection
#   ctl-hostile    8 clients hang at once (silent, trickling a byte at a
#                  time, no newline, binary, never reading a 240+ KiB
#                  reply, a 1 MB line): "vhostctl stats" queued behind
#                  them still answers within 0.5 s per hanging client
#                  + 2 s, each reading one is dropped, and D answers all
#                  of E's pings meanwhile
#   ctl-workers    --workers 2 --cpus B,A: "workers" names each thread
#                  (tid), its CPU, and the sources it owns; the threads
#                  are vhostd-w0/1 and run on B and A only; bad lists
#                  are start-up errors (exit 2)
#   ctl-concurrent 50 clients at once all get complete, valid replies
#
# Usage: tests/integration/ctl.sh [NAME-GLOB...]   (BUILD=dir, default build)
# Prints one line per test and "N passed, M failed, K skipped"; exit 1 on
# any failure.  Unix sockets only: no netns, no root needed.

set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-ctl.XXXXXX)
NS=vhctl$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
ITEST=$BUILD/tests/vdrv_itest
TOOL=$BUILD/tests/vdrv_tool

for f in "$VHOSTD" "$ITEST" "$TOOL" "$(command -v socat)" \
	 "$(command -v iconv)"; do
	[ -x "$f" ] || { echo "missing ${f:-socat or iconv} (make O=$BUILD; tests/deps.sh)"; exit 2; }
done

# ms: monotonic-enough milliseconds for deadlines
ms() {
	echo $(($(date +%s%N) / 1000000))
}

# raw BYTES-FILE OUT: send the file's bytes to the ctl socket, half-close,
# save what comes back (socat's own status is ignored: a daemon that
# closes on a long line makes its later writes fail, which is fine)
raw() {
	timeout 10 socat -t 2 - "UNIX-CONNECT:$TMP/ctl" <"$1" >"$2" 2>/dev/null
	return 0
}

# json_error FILE: the reply is valid UTF-8, valid JSON, and an error
# object; prints the message
json_error() {
	iconv -f UTF-8 -t UTF-8 "$1" >/dev/null 2>&1 || { echo "not UTF-8"; return 1; }
	jq -e -r '.error | strings' "$1" 2>/dev/null || { echo "not a JSON error: $(head -c 200 "$1")"; return 1; }
}

HANG_PGIDS=()

# hang NAME FEED SOCAT-OPT...: one hanging client in the background, in a
#   process group of its own (killed by hang_end): socat connected to the
#   ctl socket, fed by the shell code FEED; what it read goes to
#   $TMP/hang.NAME.out, when it ended (ms after $T0) to $TMP/hang.NAME
hang() {
	local name=$1 feed=$2
	shift 2
	# shellcheck disable=SC2016 # expanded by the inner shell
	T0=$T0 OUT="$TMP/hang.$name" CTL="$TMP/ctl" FEED=$feed setsid bash -c '
		eval "$FEED" | { socat "$@" "UNIX-CONNECT:$CTL" >"$OUT.out" 2>/dev/null
				 echo $(($(date +%s%N) / 1000000 - T0)) >"$OUT"; }' \
		hang "$@" &
	HANG_PGIDS+=("$!")
}

# hang_end: kill every hanging client's process group
hang_end() {
	local g
	for g in "${HANG_PGIDS[@]}"; do
		kill -- "-$g" 2>/dev/null
		wait "$g" 2>/dev/null
	done
	HANG_PGIDS=()
}
IT_CLEANUP_HOOK=hang_end

# guests_start OUT SOCK...: vdrv_itest ctl-guests in the background
#   (GPID); waits for READY
guests_start() {
	local out=$1
	shift
	# No timeout(1) around it: the signals are for the guests.
	VDRV_ITEST_CTL=$TMP/ctl "$ITEST" ctl-guests "$@" >"$out" 2>&1 &
	GPID=$!
	BGPIDS+=("$GPID")
	local end=$((SECONDS + 30))
	until grep -q '^READY' "$out"; do
		kill -0 "$GPID" 2>/dev/null || { fail "guests: $(cat "$out")"; return 1; }
		[ $SECONDS -lt $end ] || { fail "guests never READY"; return 1; }
		sleep 0.05
	done
}

# guests_stop OUT: SIGTERM; they close cleanly (every buffer back, no device
#   error) and exit 0
guests_stop() {
	local rc
	kill -TERM "$GPID" 2>/dev/null
	wait_exit "$GPID" 20
	rc=$?
	[ $rc = 0 ] || fail "guests: $(grep -m1 FAIL "$1" || echo "exit status $rc")"
}

# fdb_lines: "mac port idx" per learned entry, sorted
fdb_lines() {
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" fdb |
		jq -r '.fdb[] | "\(.mac) \(.port) \(.idx)"' | sort
}

# fdb_wait WANT-FILE SECONDS: until the fdb is exactly WANT-FILE's lines;
#   0 or 1 (the difference in $ERR)
fdb_wait() {
	local end=$((SECONDS + $2))
	while :; do
		fdb_lines >"$TMP/fdb.have" 2>/dev/null
		cmp -s "$1" "$TMP/fdb.have" && return 0
		[ $SECONDS -lt $end ] || break
		sleep 0.1
	done
	fail "fdb differs from the announced MACs: $(diff "$1" "$TMP/fdb.have" | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
	return 1
}

# ---- ctl-fdb --------------------------------------------------------------
if wanted ctl-fdb; then
	ERR=
	start_vhostd -- 4 --fdb-age 120 || fail "vhostd did not start"
	# A, B, C on vu0..vu2; vu3 has no guest and must list nothing.
	if guests_start "$TMP/g.out" "$TMP/p0.sock" "$TMP/p1.sock" "$TMP/p2.sock"; then
		awk '/^MAC / { n = substr($2, 3); print $3, $2, n }' "$TMP/g.out" |
			sort >"$TMP/fdb.want"
		[ "$(wc -l <"$TMP/fdb.want")" = 6 ] ||
			fail "guests announced $(wc -l <"$TMP/fdb.want") MACs, want 6"
		fdb_wait "$TMP/fdb.want" 10
		out=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" fdb)
		jq -e '.age_limit == 120 and (.fdb | all(.age >= 0 and .age <= 120))' \
			<<<"$out" >/dev/null || fail "fdb age_limit/age wrong: $(head -c 200 <<<"$out")"
		# C leaves: its MACs go with it, the others stay.
		kill -USR1 "$GPID"
		end=$((SECONDS + 10))
		until grep -q '^CLOSED vu2' "$TMP/g.out" || [ $SECONDS -ge $end ]; do
			sleep 0.05
		done
		grep -v ' vu2 ' "$TMP/fdb.want" >"$TMP/fdb.want2"
		fdb_wait "$TMP/fdb.want2" 10
		guests_stop "$TMP/g.out"
	fi
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result ctl-fdb "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-6 MACs on vu0..vu2 listed exactly; those of vu2 gone with C}" "$TMP/g.out"
fi

# ---- ctl-metrics ----------------------------------------------------------

# prom_check FILE: strict check of the Prometheus text exposition format
#   (0.0.4); prints "line N: why" per violation and fails on any.  On
#   success the samples are in FILE.samples as "name{labels} value".
#   Beyond the grammar (names, label escapes, numbers, final newline) it
#   wants what promtool's lint wants of a producer: one HELP and one TYPE
#   per family before its samples, samples of a family together, no
#   duplicate series, counters named *_total and never negative.  (Tried
#   against "promtool check metrics" of Prometheus 2.42 on vhostd's output
#   and on broken inputs: they agree, except that this is stricter on
#   duplicate series, split families, negative counters and a trailing
#   comma in a label list.)
prom_check() {
	local f=$1
	[ -s "$f" ] || { echo "empty"; return 1; }
	[ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ] ||
		{ echo "no final newline"; return 1; }
	LC_ALL=C awk -v out="$f.samples" '
	function bad(why) { printf "line %d: %s: %s\n", NR, why, $0; err = 1 }
	function family(n,   b) {
		b = n
		if (n ~ /_(bucket|sum|count)$/) {
			sub(/_(bucket|sum|count)$/, "", b)
			if (type[b] == "histogram" || type[b] == "summary")
				return b
		}
		return n
	}
	BEGIN { err = 0; last = "" }
	/^# HELP / {
		n = $3
		if (n !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) bad("bad metric name")
		if (n in help) bad("second HELP")
		if (n in sampled) bad("HELP after samples")
		help[n] = 1
		t = $0; sub(/^# HELP [^ ]+ ?/, "", t)
		gsub(/\\\\|\\n/, "", t)
		if (t ~ /\\/) bad("bad escape in HELP")
		next
	}
	/^# TYPE / {
		n = $3
		if (NF != 4) bad("TYPE wants a name and a type")
		if ($4 !~ /^(counter|gauge|histogram|summary|untyped)$/) bad("bad type")
		if (n in type) bad("second TYPE")
		if (n in sampled) bad("TYPE after samples")
		type[n] = $4
		next
	}
	/^#/ { next }
	/^$/ { next }
	{
		line = $0
		if (!match(line, /^[a-zA-Z_:][a-zA-Z0-9_:]*/)) { bad("bad metric name"); next }
		name = substr(line, 1, RLENGTH)
		rest = substr(line, RLENGTH + 1)
		nl = 0
		split("", lseen)
		if (substr(rest, 1, 1) == "{") {
			rest = substr(rest, 2)
			while (substr(rest, 1, 1) != "}") {
				if (!match(rest, /^[a-zA-Z_][a-zA-Z0-9_]*="/)) { bad("bad label"); next }
				ln = substr(rest, 1, RLENGTH - 2)
				rest = substr(rest, RLENGTH + 1)
				if (ln in lseen) { bad("label twice"); next }
				lseen[ln] = 1
				v = ""
				while (1) {
					c = substr(rest, 1, 1)
					if (c == "") { bad("unterminated label value"); next }
					if (c == "\"") break
					if (c == "\\") {
						d = substr(rest, 2, 1)
						if (d != "\\" && d != "\"" && d != "n") { bad("bad escape"); next }
						v = v c d
						rest = substr(rest, 3)
						continue
					}
					v = v c
					rest = substr(rest, 2)
				}
				rest = substr(rest, 2)
				lab[++nl] = ln "=\"" v "\""
				c = substr(rest, 1, 1)
				if (c == ",") {
					rest = substr(rest, 2)
					if (substr(rest, 1, 1) == "}") { bad("trailing comma"); next }
				} else if (c != "}") { bad("label list"); next }
			}
			rest = substr(rest, 2)
		}
		if (!match(rest, /^ +[^ ]+( +-?[0-9]+)?$/)) { bad("want value[, timestamp]"); next }
		val = rest; sub(/^ +/, "", val); sub(/ .*/, "", val)
		if (val !~ /^[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?$/ &&
		    val !~ /^(NaN|[-+]Inf)$/) { bad("bad value"); next }
		fam = family(name)
		if (!(fam in type)) bad("sample without TYPE")
		if (!(fam in help)) bad("sample without HELP")
		if (fam != last && (fam in sampled)) bad("family not together")
		sampled[fam] = 1
		last = fam
		if (type[fam] == "counter") {
			if (name !~ /_total$/) bad("counter not named *_total")
			if (val !~ /^\+?[0-9.eE+]+$/) bad("negative or NaN counter")
		}
		# Series identity: labels in sorted order.
		for (i = 2; i <= nl; i++)
			for (j = i; j > 1 && lab[j - 1] > lab[j]; j--) {
				t = lab[j]; lab[j] = lab[j - 1]; lab[j - 1] = t
			}
		key = name "{"
		for (i = 1; i <= nl; i++) key = key (i > 1 ? "," : "") lab[i]
		key = key "}"
		if (key in series) bad("duplicate series")
		series[key] = 1
		print key, val > out
	}
	END { exit err }' "$f"
}

# expected_samples STATS FDB: the samples "metrics" must have, derived from
#   the JSON of "stats" and "fdb" (labels sorted as prom_check sorts them)
expected_samples() {
	jq -r --slurpfile fdb "$2" '
	def lab($p; $r): "{port=\"\($p.name)\"" +
		(if $r then ",reason=\"\($r)\"" else "" end) +
		",type=\"\($p.type)\"}";
	(.ports[] as $p | $p | to_entries[] |
		if .key == "idx" or .key == "name" or .key == "type" then empty
		elif .key == "up" then "vhostd_port_up\(lab($p; null)) \(if .value then 1 else 0 end)"
		elif .key == "drops" then .value | to_entries[] |
			"vhostd_port_drops_total\(lab($p; .key)) \(.value)"
		elif .key == "direct" then .value | to_entries[] |
			if .key == "packets" then
				"vhostd_port_direct_packets_total\(lab($p; null)) \(.value)"
			elif .key == "fallback" then .value | to_entries[] |
				"vhostd_port_direct_fallbacks_total\(lab($p; .key)) \(.value)"
			else "UNMAPPED direct.\(.key)" end
		elif .key == "learn_refused" then .value | to_entries[] |
			"vhostd_port_learn_refused_total\(lab($p; .key)) \(.value)"
		elif .key == "macs" then "vhostd_port_macs\(lab($p; null)) \(.value)"
		elif .key == "l2" then .value as $l | ("vlan", "isolated", "tagged", "trunk_vlans") as $k |
			"vhostd_port_\($k)\(lab($p; null)) \($l[$k] | if type == "boolean" then (if . then 1 else 0 end) else . end)"
		elif .key == "limits" then .value as $l | ("rx", "tx") as $d |
			("vhostd_port_rate_limit_bytes_per_second{direction=\"\($d)\",port=\"\($p.name)\",type=\"\($p.type)\"} \($l[$d + "_rate"] / 8 | floor)",
			 "vhostd_port_rate_limit_burst_bytes{direction=\"\($d)\",port=\"\($p.name)\",type=\"\($p.type)\"} \($l[$d + "_burst"])")
		elif .key == "negotiated" then .value as $g |
			("queue_pairs", "queue_pairs_enabled",
			 "queue_pairs_started") as $k |
			"vhostd_port_\($k)\(lab($p; null)) \($g[$k])"
		elif .key == "queues" then .value | to_entries[] | .key as $q |
			.value | to_entries[] |
			"vhostd_queue_\(.key)_total{port=\"\($p.name)\",queue=\"\($q)\",type=\"\($p.type)\"} \(.value)"
		elif (.value | type) == "number" then
			"vhostd_port_\(.key)_total\(lab($p; null)) \(.value)"
		else "UNMAPPED \(.key)" end),
	"vhostd_fdb_entries{} \($fdb[0].fdb | length)"' "$1"
}

if wanted ctl-metrics; then
	ERR=
	start_vhostd -- 3 || fail "vhostd did not start"
	"$TOOL" responder --sock "$TMP/p1.sock" --mac 02:00:00:00:0c:02 \
		--ip 198.18.0.2 --seconds 60 >"$TMP/resp.out" 2>&1 &
	RPID=$!
	BGPIDS+=("$RPID")
	out=$(timeout 30 "$TOOL" pinger --sock "$TMP/p0.sock" --mac 02:00:00:00:0c:01 \
		--ip 198.18.0.1 --peer-ip 198.18.0.2 --count 5 --interval-ms 200 \
		--expect 1 2>&1) ||
		fail "pinger: $out"
	# Counters settle once the pinger left; read until two "metrics" in a
	# row agree, with "stats" and "fdb" in between (counters only grow, so
	# those then saw the same values).  The workers' and the sources'
	# families are left out: idle and polling time grow by the clock
	# (tests/integration/metrics.sh).
	ok=0
	for i in $(seq 40); do
		timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" metrics >"$TMP/m1" &&
		timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" stats >"$TMP/s.json" &&
		timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" fdb >"$TMP/f.json" &&
		timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" metrics >"$TMP/m2" &&
		cmp -s <(grep -v -e '^vhostd_worker_' -e '^vhostd_source_' "$TMP/m1") \
		       <(grep -v -e '^vhostd_worker_' -e '^vhostd_source_' "$TMP/m2") &&
			{ ok=1; break; }
		sleep 0.1
	done
	[ $ok = 1 ] || fail "metrics never stable"
	if ! why=$(prom_check "$TMP/m1"); then
		fail "metrics format: $(head -n 3 <<<"$why" | tr '\n' ' ')"
	else
		# Per domain and per worker: vlan.sh and metrics.sh check those.
		grep -v -e '^vhostd_fdb_capacity' -e '^vhostd_worker_' \
			-e '^vhostd_domain_' -e '^vhostd_source_' "$TMP/m1.samples" |
			sort >"$TMP/m.have"
		expected_samples "$TMP/s.json" "$TMP/f.json" | sort >"$TMP/m.want"
		grep -q UNMAPPED "$TMP/m.want" &&
			fail "stats fields without a metric: $(grep UNMAPPED "$TMP/m.want" | tr '\n' ' ')"
		cmp -s "$TMP/m.want" "$TMP/m.have" ||
			fail "metrics != stats: $(diff "$TMP/m.want" "$TMP/m.have" | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
		grep -q '^vhostd_fdb_capacity{} [1-9][0-9]*$' "$TMP/m1.samples" ||
			fail "no vhostd_fdb_capacity"
		# The comparison must have had something to compare.
		[ "$(awk '$1 ~ /^vhostd_port_rx_packets_total.*vu0/ { print $2 }' "$TMP/m.have")" -ge 6 ] ||
			fail "vu0 rx_packets too small: traffic did not flow"
	fi
	kill "$RPID" 2>/dev/null
	wait "$RPID" 2>/dev/null
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result ctl-metrics "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$(wc -l <"$TMP/m.have") samples, strict format, equal to stats and fdb}"
fi

# ---- ctl-help -------------------------------------------------------------
if wanted ctl-help; then
	ERR=
	start_vhostd -- 2 || fail "vhostd did not start"
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" help >"$TMP/help" || fail "help failed"
	# A command is its first word, or two for "port add" and "port del"
	# and a port type's own ("vxlan fdb").  "top" is vhostctl's own: it
	# polls "stats".
	awk '{ print ($1 == "port" || $1 == "vxlan" || $1 == "log" ||
		($1 == "fdb" && ($2 == "add" || $2 == "del")) ? $1 " " $2 : $1) }' "$TMP/help" | sort >"$TMP/help.daemon"
	"$VHOSTCTL" --help | awk '/^Commands:/ { on = 1; next } on && NF == 0 { on = 0 }
		on && $1 != "top" { print ($1 == "port" || $1 == "vxlan" || $1 == "log" ||
			($1 == "fdb" && ($2 == "add" || $2 == "del")) ? $1 " " $2 : $1) }' | sort >"$TMP/help.cli"
	printf '%s\n' fdb 'fdb add' 'fdb del' domains help metrics 'port add' 'port del' ports stats workers \
		'vxlan add' 'vxlan del' 'vxlan fdb' capture captures set \
		'log level' reload show | sort >"$TMP/help.want"
	cmp -s "$TMP/help.want" "$TMP/help.daemon" ||
		fail "daemon help lists: $(tr '\n' ' ' <"$TMP/help.daemon")"
	cmp -s "$TMP/help.want" "$TMP/help.cli" ||
		fail "vhostctl --help lists: $(tr '\n' ' ' <"$TMP/help.cli")"
	grep -qv '^[a-z]\+ \+[^ ].*$' "$TMP/help" && fail "help line without a description"
	while read -r c; do
		# Those that take an argument or a --config: portctl.sh
		# (port), vxlan.sh (vxlan), capture.sh, ratelimit.sh (set),
		# log.sh (log level), reload.sh, vhostctl.sh (show), vlan.sh
		# (fdb add, fdb del).
		case $c in port\ *|vxlan\ *|fdb\ *|capture|set|log\ *|reload|show) continue ;; esac
		timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" "$c" >"$TMP/c.out" 2>&1 ||
			{ fail "$c failed: $(head -c 100 "$TMP/c.out")"; continue; }
		case $c in
		ports|stats)
			jq -e '.ports | length == 2 and (map(.name) == ["vu0", "vu1"])' \
				"$TMP/c.out" >/dev/null || fail "$c: bad JSON" ;;
		fdb)	jq -e '.fdb | type == "array"' "$TMP/c.out" >/dev/null ||
				fail "fdb: bad JSON" ;;
		domains) jq -e '.domains == [{"vlan":1,"ports":["vu0","vu1"],"macs":0,"frames":0,"bytes":0,"flooded":0}]' \
				"$TMP/c.out" >/dev/null || fail "domains: $(head -c 200 "$TMP/c.out")" ;;
		metrics) prom_check "$TMP/c.out" >/dev/null || fail "metrics: bad format" ;;
		help)	cmp -s "$TMP/c.out" "$TMP/help" || fail "help differs" ;;
		workers) jq -e '.workers | length == 1' "$TMP/c.out" >/dev/null ||
				fail "workers: bad JSON" ;;
		captures) jq -e 'type == "array"' "$TMP/c.out" >/dev/null ||
				fail "captures: bad JSON: $(head -c 100 "$TMP/c.out")" ;;
		esac
	done <"$TMP/help.daemon"
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result ctl-help "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$(tr '\n' ' ' <"$TMP/help.want")listed by both; each answers}"
fi

# ---- ctl-workers ----------------------------------------------------------

# task_of PID TID: "comm cpus-allowed-list" of thread TID of PID
task_of() {
	local t=/proc/$1/task/$2
	[ -d "$t" ] || return 1
	echo "$(cat "$t/comm") $(awk '/^Cpus_allowed_list:/ { print $2 }' "$t/status")"
}

if wanted ctl-workers; then
	ERR=
	# Two workers on the CPUs we may use, in reverse order (one CPU:
	# both on it), so that pinning by position is what is checked.
	mapfile -t ok < <(taskset -pc $$ | sed 's/.*: //' | tr ',' '\n' |
		awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) print c }')
	if [ "${#ok[@]}" -ge 2 ]; then
		list="${ok[1]},${ok[0]}"; want=("${ok[1]}" "${ok[0]}")
	else
		list="${ok[0]}"; want=("${ok[0]}" "${ok[0]}")
	fi
	start_vhostd -- 1 --workers 2 --cpus "$list" || fail "vhostd did not start"
	w=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" workers) || fail "workers failed"
	[ "$(jq '.workers | length' <<<"$w")" = 2 ] || fail "not 2 workers: $w"
	for i in 0 1; do
		tid=$(jq ".workers[$i].tid" <<<"$w")
		cpu=$(jq ".workers[$i].cpu" <<<"$w")
		[ "$cpu" = "${want[$i]}" ] || fail "worker $i: cpu $cpu, want ${want[$i]}"
		got=$(task_of "$VPID" "$tid") ||
			{ fail "worker $i: tid $tid is not a thread of vhostd"; continue; }
		[ "$got" = "vhostd-w$i ${want[$i]}" ] ||
			fail "worker $i: thread $tid is '$got', want 'vhostd-w$i ${want[$i]}'"
	done
	# A guest's TX queue is a source of exactly one worker.
	"$TOOL" responder --sock "$TMP/p0.sock" --mac 02:00:00:00:77:01 \
		--ip 198.18.0.77 --seconds 30 \
		>/dev/null 2>&1 &
	RPID=$!
	BGPIDS+=("$RPID")
	src=
	for _ in $(seq 100); do
		src=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" workers |
			jq '[.workers[].sources] | add')
		[ "$src" = 1 ] && break
		sleep 0.1
	done
	[ "$src" = 1 ] || fail "a guest attached: $src sources, want 1"
	kill "$RPID" 2>/dev/null
	wait "$RPID" 2>/dev/null
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	# Bad lists: start-up errors, exit status 2, a line naming the CPU.
	for bad in "1-0" "0,0" "x" "0,1,,2" "4096" "1023"; do
		"$VHOSTD" --cpus "$bad" --port "vhost-user,path=$TMP/bad.sock" \
			>"$TMP/bad.log" 2>&1
		rc=$?
		[ $rc = 2 ] || fail "--cpus $bad: exit $rc, want 2"
		grep -q -- "--cpus" "$TMP/bad.log" ||
			fail "--cpus $bad: no line naming --cpus"
	done
	result ctl-workers "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-2 workers pinned to $list, named vhostd-w0/1, bad lists refused}"
fi

# ---- ctl-malformed --------------------------------------------------------

# expect_error NAME BYTES-FILE PATTERN: the reply is a JSON error whose
#   message matches PATTERN (an extended regex)
expect_error() {
	local msg
	raw "$2" "$TMP/reply"
	if ! msg=$(json_error "$TMP/reply"); then
		fail "$1: $msg"
	elif ! [[ $msg =~ $3 ]]; then
		fail "$1: error '$msg'"
	fi
}

if wanted ctl-malformed; then
	ERR=
	start_vhostd -- 2 || fail "vhostd did not start"
	printf 'bogus\n' >"$TMP/b"
	expect_error unknown "$TMP/b" "^unknown command 'bogus' \(try help\)$"
	printf '\n' >"$TMP/b"
	expect_error empty "$TMP/b" "^unknown command '' "
	printf '   \t \r\n' >"$TMP/b"
	expect_error blanks "$TMP/b" "^unknown command '' "
	printf 'stats extra\n' >"$TMP/b"
	expect_error 'two words' "$TMP/b" "^unknown command 'stats extra'"
	# Bytes that are not text: high bytes, controls, quotes, backslash.
	printf '\xff\xfe\x80ab\x01\x1b[2J\x7f"\\\xc3\n' >"$TMP/b"
	expect_error binary "$TMP/b" "^unknown command '.*ab.*' \(try help\)$"
	for i in 1 2 3 4 5; do
		head -c 300 /dev/urandom | tr -d '\000\n' | head -c 200 >"$TMP/b"
		echo >>"$TMP/b"
		expect_error "random bytes $i" "$TMP/b" "^unknown command "
	done
	printf 'sta\000ts\n' >"$TMP/b"
	expect_error NUL "$TMP/b" "^command line too long or not text$"
	head -c 4096 /dev/zero | tr '\0' a >"$TMP/b"
	echo >>"$TMP/b"
	expect_error 'overlong (4 KiB)' "$TMP/b" "^command line too long or not text$"
	# A line ended by EOF instead of a newline, or by CR LF: a command.
	for l in 'stats' 'stats\r\n' '  stats  \n'; do
		# shellcheck disable=SC2059 # the escapes in $l are the point
		printf "$l" >"$TMP/b"
		raw "$TMP/b" "$TMP/reply"
		jq -e '.ports | length == 2' "$TMP/reply" >/dev/null ||
			fail "'$l': no stats reply: $(head -c 100 "$TMP/reply")"
	done
	# No newline and no EOF: dropped (no reply) within the 500 ms
	# deadline, though the client would wait 5 s.
	rm -f "$TMP"/hang.*
	T0=$(ms)
	hang unterm 'printf stats; sleep 10' -t 0 -
	end=$((SECONDS + 5))
	until [ -s "$TMP/hang.unterm" ] || [ $SECONDS -ge $end ]; do sleep 0.02; done
	dt=$(cat "$TMP/hang.unterm" 2>/dev/null)
	dt=${dt:-never}
	hang_end
	[ -s "$TMP/hang.unterm.out" ] && fail "unterminated line got a reply"
	if [ "$dt" = never ] || [ "$dt" -gt 3000 ]; then
		fail "unterminated line not dropped after ${dt} ms"
	fi
	# 1 MB without a newline: whatever the client sees, vhostd goes on.
	head -c 1000000 /dev/zero | tr '\0' a >"$TMP/b"
	raw "$TMP/b" "$TMP/reply"
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" stats | jq -e '.ports | length == 2' \
		>/dev/null || fail "stats after the malformed lines"
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result ctl-malformed "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-15 bad lines: JSON errors in UTF-8; unterminated one dropped after ${dt} ms}"
fi

# ---- ctl-hostile ----------------------------------------------------------
#
# vhostd serves one ctl client at a time, each for at most 500 ms
# (CTL_DEADLINE_NS; a silent one goes after 200 ms, CTL_IO_TIMEOUT_MS):
# K clients that hang delay the next one by at most K * 0.5 s.  The
# deadline asserted for "vhostctl stats" behind them is that plus 2 s for
# a loaded machine.  A client that reads its reply is dropped, so its
# socat ends long before its input (10 s of silence) does.
HOSTILE=8
HOSTILE_DEADLINE_MS=$((HOSTILE * 500 + 2000))
# The non-reader asks for "fdb", made bigger than what a unix socket takes
# before the writer must wait (~210-230 KiB): 3000 MACs behind a 31-byte
# port name, checked to be over 240 KiB.
LONG=a-port-with-a-name-of-31-bytes-
SPRAY=3000
# ctl_backlog: connections waiting in the ctl socket's accept queue
ctl_backlog() {
	ss -xlH "src $TMP/ctl" 2>/dev/null | awk '{ print $3; exit }'
}

if wanted ctl-hostile; then
	ERR=
	# max-macs: the spray must fill the table (a guest may own 64 MACs
	# by default)
	start_vhostd -- 0 --port "vhost-user,path=$TMP/p0.sock,name=$LONG,max-macs=4096" \
		--port "vhost-user,path=$TMP/p1.sock,name=vu1" \
		--port "vhost-user,path=$TMP/p2.sock,name=vu2" ||
		fail "vhostd did not start"
	for s in p0 p1 p2; do wait_for "$TMP/$s.sock" || fail "no $s.sock"; done
	VDRV_ITEST_SPRAY=$SPRAY guests_start "$TMP/g.out" "$TMP/p0.sock"
	"$TOOL" responder --sock "$TMP/p1.sock" --mac 02:00:00:00:0d:02 \
		--ip 198.18.0.2 --seconds 60 >"$TMP/resp.out" 2>&1 &
	RPID=$!
	BGPIDS+=("$RPID")
	size=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" fdb | wc -c)
	[ "$size" -gt 245760 ] || fail "fdb reply only $size bytes"
	# D answers E's pings all along (the datapath never waits for ctl).
	"$TOOL" pinger --sock "$TMP/p2.sock" --mac 02:00:00:00:0d:03 \
		--ip 198.18.0.3 --peer-ip 198.18.0.2 --count 8 \
		--interval-ms 1000 >"$TMP/ping.out" 2>&1 &
	PPID2=$!
	BGPIDS+=("$PPID2")
	sleep 0.5
	rm -f "$TMP"/hang.*
	head -c 1000000 /dev/zero | tr '\0' a >"$TMP/big"
	T0=$(ms)
	hang silent1 'sleep 10' -t 0 -
	hang silent2 'sleep 10' -t 0 -
	# shellcheck disable=SC2016 # FEED is shell code, run by hang
	hang trickle 'for i in $(seq 60); do printf s; sleep 0.15; done' -t 0 -
	hang nonewline 'printf stats; sleep 10' -t 0 -
	hang binary "printf '\\377\\001garbage'; sleep 10" -t 0 -
	hang noread-fdb "printf 'fdb\\n'; sleep 10" -u -
	hang noread-stats "printf 'stats\\n'; sleep 10" -u -
	hang 1mb "cat '$TMP/big'" -t 0 -
	# The worst case: stats queues behind the hanging clients.
	end=$((SECONDS + 5))
	until [ "$(ctl_backlog)" -ge 4 ] 2>/dev/null || [ $SECONDS -ge $end ]; do
		sleep 0.01
	done
	depth=$(ctl_backlog)
	[ "${depth:-0}" -ge 4 ] || fail "hanging clients never queued (backlog ${depth:-?})"
	t1=$(ms)
	timeout 20 "$VHOSTCTL" --json --ctl "$TMP/ctl" stats >"$TMP/s.json" 2>&1 ||
		fail "stats failed: $(head -c 100 "$TMP/s.json")"
	dt=$(($(ms) - t1))
	jq -e '.ports | length == 3' "$TMP/s.json" >/dev/null || fail "stats: bad JSON"
	[ $dt -le $HOSTILE_DEADLINE_MS ] ||
		fail "stats took ${dt} ms behind $HOSTILE hanging clients (deadline ${HOSTILE_DEADLINE_MS} ms)"
	# Each client that reads was dropped long before its input ended.
	for n in silent1 silent2 trickle nonewline binary 1mb; do
		end=$((SECONDS + 10))
		until [ -s "$TMP/hang.$n" ] || [ $SECONDS -ge $end ]; do sleep 0.05; done
		t=$(cat "$TMP/hang.$n" 2>/dev/null)
		if [ -z "$t" ] || [ "$t" -gt $((HOSTILE_DEADLINE_MS + 1000)) ]; then
			fail "$n not dropped (${t:-never} ms)"
		fi
	done
	hang_end
	wait "$PPID2" || fail "pings during the hang: $(cat "$TMP/ping.out")"
	grep -q 'sent 8 received 8' "$TMP/ping.out" ||
		fail "pings: $(cat "$TMP/ping.out")"
	timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" fdb | jq -e '.fdb | length > 2000' \
		>/dev/null || fail "fdb after the hostile clients"
	kill "$RPID" 2>/dev/null
	wait "$RPID" 2>/dev/null
	guests_stop "$TMP/g.out"
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result ctl-hostile "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-stats in ${dt} ms queued behind ${depth} of $HOSTILE hanging clients (fdb reply $size B unread by one); 8/8 pings meanwhile}"
fi

# ---- ctl-concurrent -------------------------------------------------------
if wanted ctl-concurrent; then
	ERR=
	start_vhostd -- 3 || fail "vhostd did not start"
	cmds=(stats ports fdb metrics help)
	help_lines=$(timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" help | wc -l)
	pids=()
	t0=$(ms)
	for i in $(seq 0 49); do
		c=${cmds[$((i % 5))]}
		timeout 30 "$VHOSTCTL" --json --ctl "$TMP/ctl" "$c" >"$TMP/cc.$i" 2>"$TMP/cc.$i.err" &
		pids+=("$!")
	done
	BGPIDS+=("${pids[@]}")
	bad=0
	for i in $(seq 0 49); do
		c=${cmds[$((i % 5))]}
		if ! wait "${pids[$i]}"; then
			bad=$((bad + 1))
			fail "client $i ($c): $(head -c 80 "$TMP/cc.$i.err")"
			continue
		fi
		case $c in
		stats|ports) jq -e '.ports | length == 3' "$TMP/cc.$i" >/dev/null ;;
		fdb) jq -e '.fdb | type == "array"' "$TMP/cc.$i" >/dev/null ;;
		metrics) prom_check "$TMP/cc.$i" >/dev/null ;;
		help) [ "$(wc -l <"$TMP/cc.$i")" = "$help_lines" ] ;;
		esac || { bad=$((bad + 1)); fail "client $i ($c): incomplete or invalid reply"; }
	done
	dt=$(($(ms) - t0))
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result ctl-concurrent "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-50 clients at once, 50 complete replies in ${dt} ms}"
fi

it_summary
