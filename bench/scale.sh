#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# scale.sh - issue 10, 7(a): N guests x 2 queue pairs on one vhostd
#
#   one bench/scale process, pinned to CPU 0, plays N guests (vdrv, 2 queue
#   pairs each) on N vhost-user ports of one vhostd:
#
#     vhostd --port vhost-user,path=p0.sock,queues=2 ... (x N)
#       worker thread on CPU 1, main (control) thread moved to CPU 0
#       as bench/run.sh does
#
#   Each point: announce every MAC, reachability (every guest to every
#   other, N*(N-1) frames, each must arrive once at the right guest), a
#   full-mesh flood of 64-byte frames for --seconds (fairness: max |rx_i -
#   mean| / mean over guests, must be <= 10 %), vhostd's cycles per
#   delivered packet (all its threads' utime+stime from /proc, times the
#   "cpu MHz" /proc/cpuinfo states, over frames delivered), and vhostd's
#   memory without the guests' memory (smaps Rss/Pss of every mapping but
#   the /memfd: ones) before the guests attach and after the flood.  See
#   bench/scale.c for the details.  bench/c2c runs before every point
#   (placement: the cache-line round trip between the two vCPUs).
#
#   Every repetition runs every N once (order rotated); per repetition the
#   cycles ratio of the largest N to the smallest is taken (same minute,
#   usually the same placement), and the medians of all are printed.
#
# Usage: bench/scale.sh [--reps R] [--seconds S] [--ns "2 8 32 64"]
#        (BUILD=dir, default build; VHOSTD_ARGS: more vhostd options;
#        SCALE_ARGS: more bench/scale options, e.g. --dst-run 8)
# Output: RESULT lines, then a markdown summary.  Exit 1 if any point
# failed reachability or fairness, or the ratio is above 1.25.

set -uo pipefail
BUILD=${BUILD:-build}
REPS=3
SECS=5
NS="2 8 32 64"
while [ $# -gt 0 ]; do
	case "$1" in
	--reps) REPS=$2; shift 2 ;;
	--seconds) SECS=$2; shift 2 ;;
	--ns) NS=$2; shift 2 ;;
	*) echo "usage: $0 [--reps R] [--seconds S] [--ns LIST]" >&2; exit 2 ;;
	esac
done
VHOSTD=$BUILD/vhostd
SCALE=$BUILD/bench/scale
C2C=$BUILD/bench/c2c
for b in "$VHOSTD" "$SCALE" "$C2C"; do
	[ -x "$b" ] || { echo "missing $b (make)" >&2; exit 2; }
done
TMP=$(mktemp -d /tmp/vhostd-scale.XXXXXX)
RAW=$TMP/raw.txt
: >"$RAW"
VPID=
cleanup() {
	[ -n "$VPID" ] && kill "$VPID" 2>/dev/null && wait "$VPID" 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# point REP N: one vhostd with N ports, one scale run; lines to $RAW
point() {
	local rep=$1 n=$2 i args=() out c2c
	rm -f "$TMP"/p*.sock
	for i in $(seq 0 $((n - 1))); do
		args+=(--port "vhost-user,path=$TMP/p$i.sock,name=g$i,queues=2")
	done
	# shellcheck disable=SC2086 # VHOSTD_ARGS: words on purpose
	taskset -c 1 "$VHOSTD" "${args[@]}" ${VHOSTD_ARGS:-} \
		>"$TMP/vhostd.log" 2>&1 &
	VPID=$!
	for i in $(seq 0 $((n - 1))); do
		for _ in $(seq 100); do
			[ -S "$TMP/p$i.sock" ] && break
			sleep 0.05
		done
	done
	taskset -p -c 0 "$VPID" >/dev/null
	c2c=$("$C2C" --cpu-a 0 --cpu-b 1 | sed -n 's/.*ns_rt=\([0-9]*\).*/\1/p')
	# shellcheck disable=SC2086 # SCALE_ARGS: words on purpose
	out=$(taskset -c 0 "$SCALE" --dir "$TMP" --n "$n" --fwd-pid "$VPID" \
		--seconds "$SECS" --label "rep$rep" ${SCALE_ARGS:-} 2>&1)
	echo "$out" | sed "s/^/rep=$rep n=$n c2c=${c2c:-0} load=$(cut -d' ' -f1 /proc/loadavg) /" |
		tee -a "$RAW"
	kill "$VPID" 2>/dev/null
	wait "$VPID" 2>/dev/null
	VPID=
}

echo "# bench/scale.sh: $(date -u '+%Y-%m-%d %H:%M UTC'), vhostd at $(git rev-parse --short HEAD 2>/dev/null), reps=$REPS seconds=$SECS"
read -ra NL <<<"$NS"
for rep in $(seq 1 "$REPS"); do
	k=$(( (rep - 1) % ${#NL[@]} ))
	for j in $(seq 0 $((${#NL[@]} - 1))); do
		point "$rep" "${NL[$(( (k + j) % ${#NL[@]} ))]}"
	done
done

# Summary: medians per N; per repetition cycles(N max) / cycles(N min).
awk -v nmin="${NL[0]}" -v nmax="${NL[${#NL[@]}-1]}" '
function kv(line, key,   m) {
	line = " " line
	if (match(line, " " key "=[^ ]*")) {
		m = substr(line, RSTART + length(key) + 2, RLENGTH - length(key) - 2)
		sub(/\(.*/, "", m)
		return m
	}
	return ""
}
function med(arr, n,   i, j, t) {
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
	return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
/ REACH / { n = kv($0, "n"); reach[n] = reach[n] " " kv($0, "reached") "/" ($0 ~ /of/ ? $NF : "?") }
/ RESULT / {
	n = kv($0, "n"); r = kv($0, "rep")
	c[n, ++cn[n]] = kv($0, "cycles_per_pkt")
	f[n, ++fn[n]] = kv($0, "fair_dev_pct")
	p[n, ++pn[n]] = kv($0, "mpps")
	w[n, ++wn[n]] = kv($0, "worker_wait_pct")
	cyc[r, n] = kv($0, "cycles_per_pkt")
	fmax[n] = (kv($0, "fair_dev_pct") + 0 > fmax[n] + 0) ? kv($0, "fair_dev_pct") : fmax[n]
	reps[r] = 1
}
/ MEM / {
	n = kv($0, "n")
	ip[n, ++in_[n]] = kv($0, "idle_pss_kib")
	ap[n, ++an[n]] = kv($0, "attached_pss_kib")
	ir[n, ++irn[n]] = kv($0, "idle_rss_kib")
	ar[n, ++arn[n]] = kv($0, "attached_rss_kib")
}
END {
	printf "\n| guests | reached (each rep) | Mpps | fairness max dev %% (median / worst) | vhostd cycles/pkt | worker CPU wait %% | vhostd PSS idle / attached KiB |\n"
	printf "|---:|---|---:|---:|---:|---:|---:|\n"
	for (n = 1; n <= 64; n++) {
		if (!cn[n]) continue
		for (i = 1; i <= cn[n]; i++) { a1[i] = c[n, i]; a2[i] = f[n, i]; a3[i] = p[n, i]; a4[i] = w[n, i] }
		for (i = 1; i <= in_[n]; i++) { b1[i] = ip[n, i]; b2[i] = ap[n, i] }
		mi[n] = med(b1, in_[n]); ma[n] = med(b2, an[n])
		printf "| %d |%s | %.3f | %.2f / %.2f | %.0f | %.1f | %d / %d |\n", n, reach[n],
			med(a3, cn[n]), med(a2, fn[n]), fmax[n], med(a1, cn[n]), med(a4, wn[n]), mi[n], ma[n]
		if (fmax[n] + 0 > 10) bad = 1
	}
	nr = 0
	for (r in reps) if (cyc[r, nmax] > 0 && cyc[r, nmin] > 0) rat[++nr] = cyc[r, nmax] / cyc[r, nmin]
	if (nr) {
		lo = hi = rat[1]
		for (i = 1; i <= nr; i++) { if (rat[i] < lo) lo = rat[i]; if (rat[i] > hi) hi = rat[i] }
		m = med(rat, nr)
		printf "\ncycles/pkt ratio %d guests / %d guests, per repetition: median %.3f (n=%d, %.3f-%.3f); limit 1.25\n", nmax, nmin, m, nr, lo, hi
		if (m > 1.25) bad = 1
	}
	if (in_[nmax] && in_[nmin] && nmax > nmin)
		printf "memory per port (PSS, guest memory excluded): configured %.1f KiB ((idle %d - idle %d) / %d), attached + flooded %.1f KiB ((attached - idle) / %d at %d guests)\n",
			(mi[nmax] - mi[nmin]) / (nmax - nmin), nmax, nmin, nmax - nmin,
			(ma[nmax] - mi[nmax]) / nmax, nmax, nmax
	if (bad) { print "FAIL: fairness above 10 % or cycles ratio above 1.25"; exit 1 }
}' "$RAW"
