#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# poll.sh - auto polling against the fixed windows, with free CPUs
#
#   bench/poll.sh ROUNDS [VHOSTD]
#
# Each round runs every point with three configurations of the same
# vhostd (default BUILD/vhostd), in an order that rotates per round (the
# second of two back-to-back runs is ~5 % slower on this machine, see
# bench/ab.sh): auto (no --poll-us: the default), --poll-us 0 and
# --poll-us 50.  vhostd runs on CPU 1 with two vhost-user ports, vbench
# (one thread playing both guests) on CPU 0, 2 s per point:
#   rr64 rr256 rr1024   request/response, round trips/s, forwarder CPU
#                       per round trip
#   tput64 tput1514     one way, Mpps, forwarder CPU per frame
# One line per run; then per point the median of each configuration's
# value, the median of its per-round ratio to the best fixed setting of
# that round, and its CPU per transaction or frame (ns of vhostd's
# threads).  Then the contention signals over each run, medians: the
# system's CPU pressure (PSI some) and the worker's run delay
# (schedstat) per mille of the run's wall time, its lost polling time
# per mille of its polling time, and auto's backoffs -- with CPUs to
# spare all of them should say "nobody waits".  Unix sockets only.
set -u
[ $# -ge 1 ] || { sed -n 3,20p "$0"; exit 2; }
ROUNDS=$1
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
BUILD=${BUILD:-build-bench}
V=${2:-$BUILD/vhostd}
VBENCH=$BUILD/bench/vbench
POINTS=${POINTS:-"rr64 rr256 rr1024 tput64 tput1514"}
[ -x "$VBENCH" ] && [ -x "$V" ] ||
	{ echo "poll.sh: no $VBENCH or $V (make O=$BUILD $VBENCH $V)"; exit 2; }
T=$(mktemp -d /tmp/vhostd-pollb.XXXXXX)
P=
trap 'bench_stop "$P" 10; rm -rf "$T"' EXIT

# signals PID [BEFORE...]: "wall_ns psi_us rundelay_ns poll_ns lost_ns
# backoffs" of vhostd PID now; with the six values of an earlier call,
# the per mille figures over the time between (psi, run delay, lost)
# and the backoffs.
signals() {
	local p=$1 t rd=0 w now psi
	shift
	now=$(date +%s%N)
	psi=$(awk '/^some/ { for (i = 2; i <= NF; i++) if ($i ~ /^total=/)
		print substr($i, 7) }' /proc/pressure/cpu 2>/dev/null)
	for t in /proc/"$p"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = vhostd-w0 ] &&
			rd=$(awk '{ print $2 }' "$t/schedstat")
	done
	w=$("$BUILD/vhostctl" --json --ctl "$T/ctl" workers 2>/dev/null |
		jq -r '.workers[0] | "\(.poll_ns) \(.lost_ns) \(.backoffs)"')
	if [ $# -eq 0 ]; then
		echo "$now ${psi:-0} $rd ${w:-0 0 0}"
		return
	fi
	# shellcheck disable=SC2086 # the numbers are words
	awk -v a="$*" -v b="$now ${psi:-0} $rd ${w:-0 0 0}" 'BEGIN {
		split(a, x, " "); split(b, y, " "); wall = y[1] - x[1]
		dp = y[4] - x[4]; psi = (y[2] - x[2]) * 1e6 / wall
		rd = (y[3] - x[3]) * 1e3 / wall; lost = 0
		if (dp > 0) lost = (y[5] - x[5]) * 1e3 / dp
		printf "%.1f %.1f %.1f %d", psi, rd, lost, y[6] - x[6] }'
}

declare -A ARGS=([auto]="" [p0]="--poll-us 0" [p50]="--poll-us 50")
CONFS=(auto p0 p50)

for r in $(seq "$ROUNDS"); do
	for pt in $POINTS; do
		mode=${pt%%[0-9]*} size=${pt#"$mode"}
		for k in 0 1 2; do
			c=${CONFS[$(( (k + r) % 3 ))]}
			rm -f "$T/A.sock" "$T/B.sock"
			# shellcheck disable=SC2086 # the arguments are words
			taskset -c 1 "$V" ${ARGS[$c]} --ctl "$T/ctl" \
				--port "vhost-user,path=$T/A.sock" \
				--port "vhost-user,path=$T/B.sock" \
				>"$T/log" 2>&1 &
			P=$!
			bench_wait_socks "$P" "$T/log" "$c" "$T/A.sock" \
				"$T/B.sock" || exit 1
			sig0=$(signals "$P")
			line=$(taskset -c 0 "$VBENCH" "$mode" --a "$T/A.sock" \
				--b "$T/B.sock" --size "$size" --seconds 2 \
				--warmup-ms 300 --fwd-pid "$P" 2>"$T/err" |
				grep '^RESULT' | head -n 1)
			sig=$(signals "$P" $sig0)
			bench_stop "$P" 20
			P=
			if [ "$mode" = rr ]; then
				v=$(grep -o ' rtt_per_s=[0-9.]*' <<<"$line")
				n=$(grep -o ' rtts=[0-9]*' <<<"$line")
				n=${n#*=}
			else
				v=$(grep -o ' mpps=[0-9.]*' <<<"$line")
				w=$(grep -o ' win_s=[0-9.]*' <<<"$line")
				n=$(awk -v m="${v#*=}" -v s="${w#*=}" \
					'BEGIN { print m * 1e6 * s }')
			fi
			cpu=$(grep -o ' cpu_all_s=[0-9.]*' <<<"$line")
			win=$(grep -o ' win_s=[0-9.]*' <<<"$line")
			[ -n "$v" ] || { echo "poll.sh: $c $pt: no result: $(tail -n 3 "$T/err")" >&2; continue; }
			echo "$r $pt $c ${v#*=} ${cpu#*=} ${win#*=} $n $sig"
		done
	done
done | tee "$T/out"

echo
echo "point  conf  median  ratio-to-best-fixed  cpu-ns-per-op"
awk '
{ v[$1" "$2" "$3] = $4; cpu[$2" "$3] = cpu[$2" "$3] " " ($5 * 1e9 / ($7 > 0 ? $7 : 1));
  val[$2" "$3] = val[$2" "$3] " " $4; pts[$2] = 1; rounds[$1] = 1 }
function med(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0
}
END {
	for (p in pts) {
		for (r in rounds) {
			b = v[r" "p" p0"] + 0; f = v[r" "p" p50"] + 0
			best = b > f ? b : f
			if (best > 0) {
				rat[p" auto"] = rat[p" auto"] " " v[r" "p" auto"] / best
				rat[p" p0"] = rat[p" p0"] " " b / best
				rat[p" p50"] = rat[p" p50"] " " f / best
			}
		}
		split("auto p0 p50", cs, " ")
		for (i = 1; i <= 3; i++)
			printf "%-8s %-5s %10.4g  %6.3f  %8.0f\n", p, cs[i],
			       med(val[p" "cs[i]]), med(rat[p" "cs[i]]),
			       med(cpu[p" "cs[i]])
	}
}' "$T/out" | sort

echo
echo "point  conf  psi-some-pm  run-delay-pm  lost-pm-of-polling  backoffs"
awk '
function med(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n ? (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) : 0
}
NF >= 11 { k = $2" "$3; psi[k] = psi[k] " " $8; rd[k] = rd[k] " " $9
	   lost[k] = lost[k] " " $10; bo[k] = bo[k] " " $11 }
END { for (k in psi) printf "%-14s %8.1f %8.1f %8.1f %4d\n", k, med(psi[k]),
	med(rd[k]), med(lost[k]), med(bo[k]) }' "$T/out" | sort
