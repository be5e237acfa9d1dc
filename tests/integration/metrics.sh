#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/metrics.sh - --metrics ADDR:PORT: "metrics" over HTTP
#
#   vdrv guests                                    HTTP clients (loopback)
#
#   A (p0, pinger 198.18.0.1)   B (p1, responder)   curl, promtool
#     |                           |                 50 silent sockets
#     +--------- vhostd --metrics 127.0.0.1:PORT <--+ (127.0.0.2, then
#                 --ctl ctl  <-- vhostctl metrics     50 addresses)
#
#   metrics-scrape     GET /metrics: 200, text/plain; version=0.0.4,
#                      "promtool check metrics" clean, per-queue and
#                      per-worker series; busy seconds > 0 after traffic,
#                      busy + idle within the worker's age
#   metrics-increase   a second scrape after more pings: the ports' and
#                      queues' packet counters and the workers' busy and
#                      idle seconds grew, no counter went back
#   metrics-same       the HTTP body and "vhostctl metrics" have the same
#                      HELP/TYPE lines and the same series (names and
#                      labels; values move)
#   metrics-http       404 for other paths, 405 (Allow: GET, HEAD) for
#                      POST/PUT/DELETE, HEAD: 200 with no body
#   metrics-hammer     4 clients scraping in a loop for 3 s (renderings
#                      shared for 100 ms): vhostctl stats answers within
#                      1 s, A's pings all answered
#   metrics-slowloris  50 silent connections from 127.0.0.2: a scrape from
#                      127.0.0.1 answers at once (per-address limit), the
#                      silent ones are closed within ~5 s, A's pings all
#                      answered meanwhile; 50 silent connections from 50
#                      addresses: a scrape still answers within two idle
#                      timeouts (~10 s)
#   metrics-ipv6       --metrics [::1]:PORT serves GET over IPv6
#   metrics-badspec    bad --metrics values: exit 2, one line naming
#                      --metrics; a port in use: exit 1, a line saying so
#   metrics-off        without --metrics vhostd has no TCP or UDP socket
#
# Usage: tests/integration/metrics.sh [NAME-GLOB...]  (BUILD=dir, default
# build; VHOSTD_USER=user: vhostd runs as that user, as in tests/run.sh)
# Prints one line per test and "N passed, M failed, K skipped"; exit 1 on
# any failure.  Loopback only; no netns.

set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-metrics.XXXXXX)
NS=vhmet$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
TOOL=$BUILD/tests/vdrv_tool

for f in "$VHOSTD" "$TOOL" "$(command -v curl)" "$(command -v promtool)" \
	 "$(command -v python3)" "$(command -v ss)"; do
	[ -x "$f" ] || { echo "missing ${f:-curl, promtool, python3 or ss} (make O=$BUILD; tests/deps.sh)"; exit 2; }
done

# free_port [HOST]: a TCP port nobody listens on now
free_port() {
	python3 -c 'import socket, sys
s = socket.socket(socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET)
s.bind((sys.argv[1], 0)); print(s.getsockname()[1])' "${1:-127.0.0.1}"
}

# scrape URL OUT: GET with curl; headers to OUT.h, body to OUT; the
#   status code printed
scrape() {
	curl -g -sS -m 10 -D "$2.h" -o "$2" -w '%{http_code}' "$1" 2>"$2.err"
}

# series FILE: "name{labels}" of every sample, sorted
series() {
	grep -v '^#' "$1" | sed 's/ [^ ]*$//' | sort
}

# sample FILE SERIES: the value of one series (exact name{labels})
sample() {
	awk -v s="$2" '$1 == s { print $2 }' "$1"
}

# pings N: A pings B N times (every one must be answered)
pings() {
	local out
	out=$(timeout 60 "$TOOL" pinger --sock "$TMP/p0.sock" --mac 02:00:00:00:0e:01 \
		--ip 198.18.0.1 --peer-ip 198.18.0.2 --count "$1" --interval-ms 20 \
		--expect "$1" 2>&1) || fail "pinger: $out"
}

# Silent clients: hold N connections to PORT from the source addresses
# given, report when the server closed them (at most HOLD seconds).
cat >"$TMP/hold.py" <<'EOF'
import socket, sys, time, select
n, port, srcs, hold = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(','), float(sys.argv[4])
socks, failed = [], 0
for i in range(n):
    s = socket.socket()
    try:
        s.bind((srcs[i % len(srcs)], 0))
        s.settimeout(2)
        s.connect(('127.0.0.1', port))
        socks.append(s)
    except OSError:
        failed += 1
print("OPEN %d failed %d" % (len(socks), failed), flush=True)
t0, closed = time.time(), {}
while time.time() - t0 < hold and len(closed) < len(socks):
    r, _, _ = select.select([s for s in socks if s not in closed], [], [], 0.1)
    for s in r:
        try:
            d = s.recv(100)
        except OSError:
            d = b''
        if not d:
            closed[s] = time.time() - t0
t = sorted(closed.values())
print("CLOSED %d of %d last %.1f" % (len(t), len(socks), t[-1] if t else -1), flush=True)
EOF

# hold_start N SRCS HOLD: hold.py in the background (HPID), output in
#   $TMP/hold.out, once its connections are open
hold_start() {
	: >"$TMP/hold.out"
	python3 "$TMP/hold.py" "$1" "$MPORT" "$2" "$3" >"$TMP/hold.out" 2>&1 &
	HPID=$!
	BGPIDS+=("$HPID")
	local end=$((SECONDS + 30))
	until grep -q '^OPEN' "$TMP/hold.out" || [ $SECONDS -ge $end ]; do
		sleep 0.05
	done
}

# ---- one vhostd for the scrape tests --------------------------------------
SCRAPES="metrics-scrape metrics-increase metrics-same metrics-http metrics-hammer
	 metrics-slowloris"
any=0
for t in $SCRAPES; do wanted "$t" && any=1; done
if [ $any = 1 ]; then
	ERR=
	MPORT=$(free_port)
	URL=http://127.0.0.1:$MPORT/metrics
	T_START=$(date +%s.%N)
	start_vhostd -- 2 --metrics "127.0.0.1:$MPORT" || fail "vhostd did not start"
	"$TOOL" responder --sock "$TMP/p1.sock" --mac 02:00:00:00:0e:02 \
		--ip 198.18.0.2 --seconds 120 >"$TMP/resp.out" 2>&1 &
	RPID=$!
	BGPIDS+=("$RPID")
	pings 10
	START_ERR=$ERR

	# ---- metrics-scrape
	if wanted metrics-scrape; then
		ERR=$START_ERR
		code=$(scrape "$URL" "$TMP/s1")
		now=$(date +%s.%N)
		[ "$code" = 200 ] || fail "GET: status $code $(cat "$TMP/s1.err")"
		grep -qi '^Content-Type: text/plain; version=0.0.4' "$TMP/s1.h" ||
			fail "Content-Type: $(grep -i '^content-type' "$TMP/s1.h")"
		promtool check metrics <"$TMP/s1" >"$TMP/promtool.out" 2>&1 ||
			fail "promtool: $(head -n 3 "$TMP/promtool.out" | tr '\n' ' ')"
		[ -s "$TMP/promtool.out" ] &&
			fail "promtool lint: $(head -n 3 "$TMP/promtool.out" | tr '\n' ' ')"
		for s in 'vhostd_queue_rx_packets_total{port="vu0",type="vhost-user",queue="0"}' \
			 'vhostd_queue_tx_packets_total{port="vu1",type="vhost-user",queue="0"}' \
			 'vhostd_worker_sources{worker="0"}' \
			 'vhostd_worker_poll_backoffs_total{worker="0"}' \
			 'vhostd_worker_poll_lost_seconds_total{worker="0"}'; do
			[ -n "$(sample "$TMP/s1" "$s")" ] || fail "no $s"
		done
		# A source's series, on whichever worker owns it: vu1's
		# responder stays connected (the pinger on vu0 left).
		for s in poll_window_seconds poll_hits_total sleeps_total \
			 wakeups_total poll_seconds_total sleep_seconds_total; do
			grep -qE "^vhostd_source_$s\\{port=\"vu1\",type=\"vhost-user\",source=\"1\",worker=\"[0-9]+\"\\} [0-9.]+$" "$TMP/s1" ||
				fail "no vhostd_source_$s of vu1's source 1"
		done
		grep -qE '^vhostd_source_poll_mode\{port="vu1",.*,mode="(learn|poll|sleep|bulk|backoff)"\} 1$' "$TMP/s1" ||
			fail "no vhostd_source_poll_mode of vu1"
		busy=$(sample "$TMP/s1" 'vhostd_worker_busy_seconds_total{worker="0"}')
		idle=$(sample "$TMP/s1" 'vhostd_worker_idle_seconds_total{worker="0"}')
		if [ -z "$busy" ] || [ -z "$idle" ]; then
			fail "no busy/idle seconds for worker 0"
		else
			# Traffic made it busy; busy + idle is the worker's age,
			# which is less than the time since we started vhostd.
			age=$(awk -v n="$now" -v s="$T_START" 'BEGIN { printf "%.3f", n - s }')
			awk -v b="$busy" -v i="$idle" -v a="$age" \
				'BEGIN { exit !(b > 0 && i > 0 && b < 1 && b + i <= a + 0.05 && b + i > a - 5) }' ||
				fail "worker 0: busy $busy idle $idle, age under $age s"
		fi
		result metrics-scrape "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-$(grep -vc '^#' "$TMP/s1") samples, promtool clean; worker 0 busy ${busy} s idle ${idle} s}"
	fi

	# ---- metrics-increase
	if wanted metrics-increase; then
		ERR=$START_ERR
		scrape "$URL" "$TMP/i1" >/dev/null
		pings 10
		scrape "$URL" "$TMP/i2" >/dev/null
		grow=0
		for s in 'vhostd_port_rx_packets_total{port="vu0",type="vhost-user"}' \
			 'vhostd_port_tx_packets_total{port="vu1",type="vhost-user"}' \
			 'vhostd_queue_rx_packets_total{port="vu0",type="vhost-user",queue="0"}' \
			 'vhostd_queue_tx_bytes_total{port="vu0",type="vhost-user",queue="0"}' \
			 'vhostd_worker_busy_seconds_total{worker="0"}' \
			 'vhostd_worker_idle_seconds_total{worker="0"}' \
			 "$(grep -o '^vhostd_source_wakeups_total{port="vu1",[^ ]*' "$TMP/i1")"; do
			a=$(sample "$TMP/i1" "$s")
			b=$(sample "$TMP/i2" "$s")
			awk -v a="${a:-x}" -v b="${b:-x}" 'BEGIN { exit !(a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > a) }' ||
				{ fail "$s: $a -> $b"; continue; }
			grow=$((grow + 1))
		done
		# No counter went back between the two scrapes.
		back=$(awk 'FNR == NR { if ($1 ~ /^# TYPE/ && $4 == "counter") c[$3] = 1
				       if ($1 !~ /^#/) v[$1] = $2; next }
			    $1 !~ /^#/ { n = $1; sub(/\{.*/, "", n)
				         if ((n in c) && ($1 in v) && $2 + 0 < v[$1] + 0) print $1 }' \
			"$TMP/i1" "$TMP/i2")
		[ -z "$back" ] || fail "counters went back: $back"
		result metrics-increase "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-$grow series grew over 10 pings, no counter went back}"
	fi

	# ---- metrics-same
	if wanted metrics-same; then
		ERR=$START_ERR
		scrape "$URL" "$TMP/h" >/dev/null
		timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" metrics >"$TMP/c" ||
			fail "vhostctl metrics failed"
		cmp -s <(grep '^#' "$TMP/h") <(grep '^#' "$TMP/c") ||
			fail "HELP/TYPE differ: $(diff <(grep '^#' "$TMP/h") <(grep '^#' "$TMP/c") | grep '^[<>]' | head -n 2 | tr '\n' ' ')"
		cmp -s <(series "$TMP/h") <(series "$TMP/c") ||
			fail "series differ: $(diff <(series "$TMP/h") <(series "$TMP/c") | grep '^[<>]' | head -n 2 | tr '\n' ' ')"
		# In the same order too: one renderer.
		cmp -s <(grep -v '^#' "$TMP/h" | sed 's/ [^ ]*$//') \
		       <(grep -v '^#' "$TMP/c" | sed 's/ [^ ]*$//') ||
			fail "series in another order"
		result metrics-same "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-$(series "$TMP/h" | wc -l) series and $(grep -c '^#' "$TMP/h") HELP/TYPE lines as vhostctl metrics}"
	fi

	# ---- metrics-http
	if wanted metrics-http; then
		ERR=$START_ERR
		base=http://127.0.0.1:$MPORT
		for p in / /metricsx /metrics/ /foo '/%00' /../metrics; do
			code=$(curl -g -sS -m 10 -o /dev/null -w '%{http_code}' --path-as-is "$base$p" 2>&1)
			[ "$code" = 404 ] || fail "GET $p: $code, want 404"
		done
		for m in POST PUT DELETE OPTIONS PATCH; do
			code=$(curl -sS -m 10 -X "$m" -d x -D "$TMP/m.h" -o /dev/null \
				-w '%{http_code}' "$URL" 2>&1)
			[ "$code" = 405 ] || fail "$m: $code, want 405"
			grep -qi '^Allow: GET, HEAD' "$TMP/m.h" || fail "$m: no Allow header"
		done
		code=$(curl -sS -m 10 -I -o "$TMP/head" -w '%{http_code}|%{size_download}' "$URL" 2>&1)
		[ "$code" = "200|0" ] || fail "HEAD: $code, want 200 and no body"
		# A request line far past the pool: refused, daemon still fine.
		long=$(head -c 40000 /dev/zero | tr '\0' a)
		code=$(curl -sS -m 10 -o /dev/null -w '%{http_code}' "$URL?$long" 2>/dev/null)
		case $code in 4??) ;; *) fail "40 KB URL: $code, want 4xx" ;; esac
		[ "$(scrape "$URL" "$TMP/after")" = 200 ] || fail "GET after the bad requests"
		result metrics-http "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-6 paths 404, 5 methods 405 with Allow, HEAD without body, 40 KB URL $code}"
	fi

	# ---- metrics-hammer
	if wanted metrics-hammer; then
		ERR=$START_ERR
		for k in 1 2 3 4; do
			# shellcheck disable=SC2016 # expanded by the inner shell
			URL=$URL OUT=$TMP/ham.$k bash -c '
				end=$((SECONDS + 3)); n=0
				while [ $SECONDS -lt $end ]; do
					c=$(curl -s -m 5 -o /dev/null -w "%{http_code}" "$URL")
					[ "$c" = 200 ] && n=$((n + 1))
				done
				echo $n >"$OUT"' &
			BGPIDS+=("$!")
		done
		worst=0
		for _ in $(seq 10); do
			t0=$(date +%s%N)
			timeout 10 "$VHOSTCTL" --json --ctl "$TMP/ctl" stats >/dev/null ||
				fail "stats failed while scraped in a loop"
			dt=$((($(date +%s%N) - t0) / 1000000))
			[ $dt -gt $worst ] && worst=$dt
		done
		pings 20
		wait "${BGPIDS[@]: -4}"
		served=$(cat "$TMP"/ham.* 2>/dev/null | awk '{ n += $1 } END { print n + 0 }')
		[ "$served" -gt 0 ] || fail "no scrape answered in the loops"
		[ $worst -le 1000 ] || fail "vhostctl stats took $worst ms"
		result metrics-hammer "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-4 curl loops, $served scrapes in 3 s; vhostctl stats at most $worst ms, 20/20 pings}"
	fi

	# ---- metrics-slowloris
	if wanted metrics-slowloris; then
		ERR=$START_ERR
		hold_start 50 127.0.0.2 8
		t0=$(date +%s%N)
		code=$(scrape "$URL" "$TMP/sl")
		dt=$((($(date +%s%N) - t0) / 1000000))
		[ "$code" = 200 ] || fail "scrape behind 50 silent connections: $code"
		[ $dt -le 2000 ] || fail "scrape took $dt ms behind 50 silent connections"
		pings 20
		wait "$HPID"
		held=$(cat "$TMP/hold.out" | tr '\n' ' ')
		# Each was closed: at once past the limit, after ~5 s of
		# silence within it.
		grep -q '^CLOSED 50 of 50 ' "$TMP/hold.out" ||
			fail "silent connections not all closed: $held"
		last=$(awk '/^CLOSED/ { print $NF }' "$TMP/hold.out")
		# 50 silent connections from 50 addresses: every slot taken,
		# the backlog full; the scrape waits at most two idle timeouts.
		srcs=$(seq -s, -f '127.0.1.%g' 1 50)
		hold_start 50 "$srcs" 15
		t0=$(date +%s%N)
		code=$(curl -sS -m 20 -o /dev/null -w '%{http_code}' "$URL" 2>&1)
		dt2=$((($(date +%s%N) - t0) / 1000000))
		[ "$code" = 200 ] || fail "scrape behind 50 silent addresses: $code"
		[ $dt2 -le 15000 ] || fail "scrape took $dt2 ms behind 50 silent addresses"
		wait "$HPID"
		result metrics-slowloris "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-scrape in $dt ms behind 50 silent sockets of one address (closed by ${last} s), 20/20 pings; in $dt2 ms behind 50 addresses}"
	fi

	kill "$RPID" 2>/dev/null
	wait "$RPID" 2>/dev/null
	ERR=
	stop_vhostd TERM ||
		result metrics-exit 1 "vhostd died or exited uncleanly${ERR:+: $ERR}"
fi

# ---- metrics-ipv6 ---------------------------------------------------------
if wanted metrics-ipv6; then
	ERR=
	if ! python3 -c 'import socket; socket.socket(socket.AF_INET6).bind(("::1", 0))' 2>/dev/null; then
		skip metrics-ipv6 "no ::1 on this machine"
	else
		MPORT=$(free_port ::1)
		start_vhostd -- 1 --metrics "[::1]:$MPORT" || fail "vhostd did not start"
		code=$(scrape "http://[::1]:$MPORT/metrics" "$TMP/v6")
		[ "$code" = 200 ] || fail "GET over IPv6: $code $(cat "$TMP/v6.err")"
		promtool check metrics <"$TMP/v6" >/dev/null 2>&1 || fail "promtool over IPv6"
		ss -Hltn "sport = :$MPORT" | grep -q '\[::1\]' || fail "not listening on [::1]:$MPORT"
		# IPv6 only: nothing on 127.0.0.1 at that port.
		curl -sS -m 5 -o /dev/null "http://127.0.0.1:$MPORT/metrics" 2>/dev/null &&
			fail "[::1] also answers on 127.0.0.1"
		stop_vhostd TERM || fail "vhostd died or exited uncleanly"
		result metrics-ipv6 "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-GET http://[::1]:$MPORT/metrics: 200, promtool clean}"
	fi
fi

# ---- metrics-badspec ------------------------------------------------------
if wanted metrics-badspec; then
	ERR=
	n=0
	for bad in "" localhost:9464 127.0.0.1 127.0.0.1: 127.0.0.1:0 127.0.0.1:65536 \
		   127.0.0.1:x 127.0.0.1:-1 ::1:9464 "[::1]" "[::1]9464" "[127.0.0.1]:9464" \
		   1.2.3:9464 "127.0.0.1:9464 " "[::1]:0"; do
		"$VHOSTD" --metrics "$bad" --port "vhost-user,path=$TMP/bad.sock" \
			>"$TMP/bad.log" 2>&1
		rc=$?
		n=$((n + 1))
		[ $rc = 2 ] || fail "--metrics '$bad': exit $rc, want 2"
		[ "$(wc -l <"$TMP/bad.log")" = 1 ] && grep -q -- "^vhostd: --metrics '" "$TMP/bad.log" ||
			fail "--metrics '$bad': $(head -c 120 "$TMP/bad.log")"
	done
	# A port someone listens on: a run-time start-up failure, exit 1.
	python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
print(s.getsockname()[1], flush=True); time.sleep(30)' >"$TMP/busy.port" &
	BUSY=$!
	BGPIDS+=("$BUSY")
	for _ in $(seq 100); do [ -s "$TMP/busy.port" ] && break; sleep 0.05; done
	bport=$(cat "$TMP/busy.port")
	timeout 20 "$VHOSTD" --metrics "127.0.0.1:$bport" \
		--port "vhost-user,path=$TMP/bad.sock" >"$TMP/bad.log" 2>&1
	rc=$?
	[ $rc = 1 ] || fail "--metrics on a port in use: exit $rc, want 1"
	grep -q -- "--metrics 127.0.0.1:$bport: Address already in use" "$TMP/bad.log" ||
		fail "port in use: $(grep -m1 -i error "$TMP/bad.log")"
	kill "$BUSY" 2>/dev/null
	wait "$BUSY" 2>/dev/null
	result metrics-badspec "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$n bad specs: exit 2, one line naming --metrics; a port in use: exit 1}"
fi

# ---- metrics-off ----------------------------------------------------------
if wanted metrics-off; then
	ERR=
	start_vhostd -- 2 || fail "vhostd did not start"
	inet=$(ss -Htuanp | grep -c "pid=$VPID,")
	[ "$inet" = 0 ] || fail "$inet TCP/UDP sockets: $(ss -Htuanp | grep "pid=$VPID," | head -n 2 | tr '\n' ' ')"
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result metrics-off "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-no TCP or UDP socket without --metrics}"
fi

it_summary
