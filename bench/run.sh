#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# run.sh - benchmark: vhostd vs DPDK testpmd (net_vhost) between two guests
#
#   one vbench process (vdrv), pinned to CPU 0, plays both guests:
#
#     guest A (TX) -- A.sock --+                +-- B.sock -- guest B (RX)
#                              |  forwarder on  |
#                              +--   CPU 1    --+
#        vhostd --port vhost-user,path=A.sock --port vhost-user,path=B.sock
#   or   dpdk-testpmd --vdev net_vhost0,iface=A.sock --vdev net_vhost1,...
#                     --forward-mode=io   (port 0 <-> port 1)
#
#   vhostd runs twice: --poll-us 0 (sleep as soon as dry) and --poll-us 50
#   (the default: poll 50 us before sleeping); testpmd always busy-polls.
#   By default (--by point) each repetition runs every point on the three
#   back to back (order rotated), a fresh back end and pair of guests each
#   time, so the three samples of one point are seconds apart and usually
#   see the same placement (below): they are compared as a pair.  --by
#   backend runs all points on one back end, then the next (fewer starts,
#   but the back ends' samples are minutes apart).
#
#   Placement: on a VM the host may put the two vCPUs close (cache-line
#   round trip ~80 ns) or far apart (~350 ns) and move them at any time;
#   that alone changes rates severalfold.  bench/c2c runs just before and
#   just after every point (back end paused) and labels it fast (both below
#   C2C_SLOW_NS), slow (both at or above) or mixed.  The headline table
#   compares back ends state for state only (fast with fast, slow with
#   slow); mixed points, and "disturbed" ones (CPU wait above QUIET_PCT
#   even after the retries: other jobs), are shown but never in a ratio.
#   With --by point it leads with paired ratios: per repetition and point,
#   vhostd's sample over testpmd's when both saw the same placement, and
#   the median, count and range of those ratios.
#
# Usage: bench/run.sh [--quick] [--reps N] [--seconds S] [--no-install]
#   --quick       1 repetition of 0.5 s points (a smoke run, ~1 minute)
#   --reps N      repetitions (default 3); medians are reported
#   --seconds S   measured window per point (default 3)
#   --tries N     attempts of a point disturbed by other jobs (default 3)
#   --by point|backend  interleave back ends per point (default) or run
#                 each back end's points in one block
#   --from-raw F  only print the tables for raw RESULT lines in F (e.g. the
#                 block at the end of a results file)
#   BUILD=dir     build directory (default build-bench; built with make O=)
#   C2C_SLOW_NS=n c2c round trip (ns) from which a point counts as slow
#                 (default 200; also applies with --from-raw)
#
# Prints a table, writes bench/results/<date>.md (raw RESULT lines at the
# end).  Exit 1 if any point failed (nothing delivered, corrupt frames,
# device errors) -- the table says which; 0 otherwise.  No thresholds:
# this is a benchmark, not a test.
#
# Safety: traffic only over unix sockets in a temp dir; kills only the
# PIDs it started.

set -u

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"
BUILD=${BUILD:-build-bench}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
REPS=3
SECONDS_PT=3
MAX_TRIES=3		# attempts of a disturbed point
QUIET_PCT=10		# CPU wait (% of the window) that counts as disturbed
RETRY_BUDGET_S=420	# no more retries after this many seconds
WARMUP_MS=300
C2C_SLOW_NS=${C2C_SLOW_NS:-200}	# c2c ns_rt from which placement is "slow"
INSTALL=1
QUICK=0
FROM_RAW=
BY=point

while [ $# -gt 0 ]; do
	case "$1" in
	--quick) QUICK=1; REPS=1; SECONDS_PT=0.5; WARMUP_MS=150; MAX_TRIES=1 ;;
	--reps) REPS=$2; shift ;;
	--seconds) SECONDS_PT=$2; shift ;;
	--tries) MAX_TRIES=$2; shift ;;
	--by) BY=$2; shift
	      case "$BY" in point|backend) ;; *) echo "run.sh: --by point|backend" >&2; exit 2 ;; esac ;;
	--no-install) INSTALL=0 ;;
	--from-raw) FROM_RAW=$2; shift ;;
	-h|--help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

TPUT_SIZES="64 256 1514 9000 tso"
RR_SIZES="64 256 1024"
BACKENDS="vhostd-p0 vhostd-p50 testpmd"
CPU_BENCH=0
CPU_FWD=1

log() { echo "== $*" >&2; }

# ---- summary -----------------------------------------------------------------
# Medians over repetitions of each (back end, mode, size); one markdown
# table for throughput, one for request/response, one of ratios.
summarize() {
	awk -v slow="$C2C_SLOW_NS" -v quiet="$QUIET_PCT" -v cpua="$CPU_BENCH" -v cpub="$CPU_FWD" '
	function med(list,   n, a, i, j, t) {
		n = split(list, a, " ")
		if (!n) return ""
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) {
				t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
			}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	{
		be = $1
		if ($0 ~ /mode=memcpy/) {
			for (i = 3; i <= NF; i++)
				if (split($i, p, "=") == 2) m[p[1]] = p[2]
			if (m["set"] == "dram") dram = m["gbit_s"]
			next
		}
		delete kv
		for (i = 3; i <= NF; i++)
			if (split($i, p, "=") == 2) kv[p[1]] = p[2]
		rk = be SUBSEP $2
		if (!(rk in rseen)) { rseen[rk] = 1; rkeys[++nr] = rk }
		if (kv["mode"] == "c2c") {
			c2c[rk] = c2c[rk] (c2c[rk] == "" ? "" : " / ") kv["ns_rt"]
			next
		}
		if (kv["mode"] == "tput" && (kv["size"] == "64" || kv["size"] == "1514"))
			per[rk, kv["size"]] = kv["mpps"]
		if (kv["mode"] == "rr" && kv["size"] == "64")
			per[rk, "rr"] = kv["rtt_per_s"]
		key = be SUBSEP kv["mode"] SUBSEP kv["size"]
		if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
		fail[key] += ($NF == "FAILED")
		# Placement of this point: c2c just before and just after it.
		st = "?"
		if (("c2c_pre" in kv) && ("c2c_post" in kv)) {
			f0 = kv["c2c_pre"] + 0 < slow; f1 = kv["c2c_post"] + 0 < slow
			st = f0 && f1 ? "fast" : (!f0 && !f1 ? "slow" : "mixed")
		}
		# Still waiting for a CPU after the retries: it measured the
		# neighbours whatever the placement.
		if (kv["fwd_wait_pct"] + 0 > quiet || kv["bench_wait_pct"] + 0 > quiet)
			st = "disturbed"

		stl[rk] = stl[rk] substr(st, 1, 1)
		if ($NF != "FAILED") {
			pk = kv["mode"] SUBSEP kv["size"] SUBSEP $2
			if (!(pk in pkseen)) { pkseen[pk] = 1; pks[++npk] = pk }
			pval[be, pk] = kv["mode"] == "tput" ? kv["mpps"] : kv["rtt_per_s"]
			plat[be, pk] = kv["p50_us"]
			pst[be, pk] = st
			sv[key, st] = sv[key, st] " " (kv["mode"] == "tput" ? kv["mpps"] : kv["rtt_per_s"])
			sn[key, st]++
			nst[st]++
		}
		if (kv["mode"] == "tput") {
			cpu = kv["win_s"] + 0 > 0 ? 100 * kv["cpu_fwd_s"] / kv["win_s"] : 0
			dp = kv["sent"] + 0 > 0 ? 100 * kv["drops"] / kv["sent"] : 0
			v["mpps", key] = v["mpps", key] " " kv["mpps"]
			v["gbps", key] = v["gbps", key] " " kv["gbps"]
			v["cyc", key] = v["cyc", key] " " kv["cyc_pkt"]
			v["cpu", key] = v["cpu", key] " " cpu
			v["drop", key] = v["drop", key] " " dp
			v["afull", key] = v["afull", key] " " kv["a_full_pct"]
			v["gso", key] = v["gso", key] " " (kv["rx"] + 0 > 0 ? 100 * kv["gso"] / kv["rx"] : 0)
			v["cbad", key] = v["cbad", key] " " kv["csum_bad"]
			v["fw", key] = v["fw", key] " " kv["fwd_wait_pct"]
			v["bw", key] = v["bw", key] " " kv["bench_wait_pct"]
		} else {
			cpu = kv["win_s"] + 0 > 0 ? 100 * kv["cpu_fwd_s"] / kv["win_s"] : 0
			v["rtt", key] = v["rtt", key] " " kv["rtt_per_s"]
			v["p50", key] = v["p50", key] " " kv["p50_us"]
			v["p99", key] = v["p99", key] " " kv["p99_us"]
			v["cyc", key] = v["cyc", key] " " kv["cyc_pkt"]
			v["cpu", key] = v["cpu", key] " " cpu
			v["lost", key] = v["lost", key] " " kv["lost"]
			v["fw", key] = v["fw", key] " " kv["fwd_wait_pct"]
			v["bw", key] = v["bw", key] " " kv["bench_wait_pct"]
		}
	}
	function row_key(be, mode, size) { return be SUBSEP mode SUBSEP size }
	# ratio(x, k, t): x / t if point k was measured, else "-"
	function ratio(x, k, t) { return (k in seen) && t > 0 ? sprintf("%.2f", x / t) : "-" }
	function best(k0, a0, k5, a5) {
		if (!(k0 in seen) || !(k5 in seen)) return "-"
		return a0 >= a5 ? "p0" : "p50"
	}
	# cell(k, st, fmt): median (n) of state st, or the values for mixed
	function cell(k, st, fmt,   n, a, i, o) {
		if (!((k, st) in sn)) return "-"
		if (st == "fast" || st == "slow")
			return sprintf(fmt " (n=%d)", med(sv[k, st]), sn[k, st])
		n = split(sv[k, st], a, " ")
		for (i = 1; i <= n; i++) o = o (i > 1 ? ", " : "") sprintf(fmt, a[i])
		return o
	}
	# sratio(k, kt, st): state-for-state ratio, "-" unless both have it
	function sratio(k, kt, st,   t) {
		if (st != "fast" && st != "slow") return "-"
		if (!((k, st) in sn) || !((kt, st) in sn)) return "-"
		t = med(sv[kt, st])
		return t > 0 ? sprintf("%.2f", med(sv[k, st]) / t) : "-"
	}
	# rsum(list): "median (n=N, min-max)" of a list of ratios
	function rsum(list,   n, a, i, lo, hi) {
		n = split(list, a, " ")
		if (!n) return "-"
		lo = hi = a[1]
		for (i = 2; i <= n; i++) {
			if (a[i] + 0 < lo + 0) lo = a[i]
			if (a[i] + 0 > hi + 0) hi = a[i]
		}
		return sprintf("%.2f (n=%d, %.2f-%.2f)", med(list), n, lo, hi)
	}
	# pair(be, k, i): vhostd sample over testpmd sample of pair key k,
	# appended to pr[] (rates) and pl[] (rr p50 latency, testpmd/vhostd)
	# under its state and "all", when both saw the same placement
	function pair(be, k,   q, t, st, x, r) {
		t = pval["testpmd", k] + 0; st = pst["testpmd", k]
		if (t <= 0 || (st != "fast" && st != "slow")) return
		if (!((be, k) in pval) || pst[be, k] != st) return
		split(k, q, SUBSEP)
		r = sprintf("%.4f", pval[be, k] / t)
		pr[be, q[1], q[2], st] = pr[be, q[1], q[2], st] " " r
		pr[be, q[1], q[2], "all"] = pr[be, q[1], q[2], "all"] " " r
		if (q[1] == "rr" && plat[be, k] + 0 > 0) {
			x = sprintf("%.4f", plat["testpmd", k] / plat[be, k])
			pl[be, q[2], st] = pl[be, q[2], st] " " x
			pl[be, q[2], "all"] = pl[be, q[2], "all"] " " x
		}
		npairs++
	}
	END {
		split("64 256 1514 9000 tso65214", ts, " ")
		split("64 256 1024", rs, " ")
		split("vhostd-p0 vhostd-p50 testpmd", bes, " ")
		split("fast slow mixed disturbed ?", sts, " ")
		for (i = 1; i <= npk; i++) {
			pair("vhostd-p50", pks[i])
			pair("vhostd-p0", pks[i])
		}
		if (npairs) {
			printf "### Headline: paired ratios, vhostd / testpmd\n\n"
			printf "Per repetition and point, vhostd'"'"'s sample over testpmd'"'"'s (taken seconds\n"
			printf "apart with --by point, minutes with --by backend), when both saw the same vCPU\n"
			printf "placement (see below):\n"
			printf "median of those ratios (n pairs, lowest-highest).  >1: vhostd better.  RR\n"
			printf "rows: round trips/s, and p50 latency as testpmd'"'"'s over vhostd'"'"'s.\n\n"
			printf "| point | p50 / testpmd, fast | p50 / testpmd, slow | p50 / testpmd, all pairs | p0 / testpmd, all pairs |\n"
			printf "|---|---:|---:|---:|---:|\n"
			for (s = 1; s <= 8; s++) {
				if (s <= 5) { md = "tput"; sz = ts[s]; what = "Mpps" }
				else { md = "rr"; sz = rs[s - 5]; what = "round trips/s" }
				printf "| %s %s %s | %s | %s | %s | %s |\n", md, sz, what,
					rsum(pr["vhostd-p50", md, sz, "fast"]), rsum(pr["vhostd-p50", md, sz, "slow"]),
					rsum(pr["vhostd-p50", md, sz, "all"]), rsum(pr["vhostd-p0", md, sz, "all"])
				if (md == "rr")
					printf "| rr %s p50 latency (testpmd/vhostd) | %s | %s | %s | %s |\n", sz,
						rsum(pl["vhostd-p50", sz, "fast"]), rsum(pl["vhostd-p50", sz, "slow"]),
						rsum(pl["vhostd-p50", sz, "all"]), rsum(pl["vhostd-p0", sz, "all"])
			}
			printf "\n"
		}
		printf "### vhostd / testpmd, state for state (same vCPU placement)\n\n"
		printf "Each point is labelled by bench/c2c (CPU%s<->CPU%s cache-line round trip, back end\n", cpua, cpub
		printf "paused) just before and just after it: **fast** both < %d ns, **slow** both >= %d ns,\n", slow, slow
		printf "**mixed** they disagree (the host moved the vCPUs during the point).  Medians per\n"
		printf "back end and state with n = samples; ratios only fast/fast and slow/slow (>1: vhostd\n"
		printf "better).  **disturbed**: the forwarder or the bench waited for a CPU more than\n"
		printf "%d%% of the window even after retries (other jobs), whatever the placement.  Mixed\n", quiet
		printf "and disturbed samples are listed but in no ratio; failed points are left out.\n"
		printf "Points: %d fast, %d slow, %d mixed, %d disturbed%s.\n\n", nst["fast"], nst["slow"],
			nst["mixed"], nst["disturbed"],
			nst["?"] ? sprintf(", %d unlabelled (no c2c)", nst["?"]) : ""
		printf "| point | state | testpmd | vhostd-p0 | vhostd-p50 | p0 / testpmd | p50 / testpmd |\n"
		printf "|---|---|---:|---:|---:|---:|---:|\n"
		for (s = 1; s <= 8; s++) {
			if (s <= 5) { md = "tput"; sz = ts[s]; what = "Mpps"; fmt = "%.3f" }
			else { md = "rr"; sz = rs[s - 5]; what = "round trips/s"; fmt = "%.0f" }
			kt = row_key("testpmd", md, sz)
			k0 = row_key("vhostd-p0", md, sz); k5 = row_key("vhostd-p50", md, sz)
			for (j = 1; j <= 5; j++) {
				st = sts[j]
				if (!((kt, st) in sn) && !((k0, st) in sn) && !((k5, st) in sn)) continue
				printf "| %s %s %s | %s | %s | %s | %s | %s | %s |\n", md, sz, what, st,
					cell(kt, st, fmt), cell(k0, st, fmt), cell(k5, st, fmt),
					sratio(k0, kt, st), sratio(k5, kt, st)
			}
		}
		printf "\n### One-way throughput A -> B (medians)\n\n"
		printf "| frame | back end | Mpps | Gbit/s | %% of memcpy (DRAM) | fwd cycles/pkt | fwd CPU %% | drops %% | A ring full %% | CPU wait %% fwd/bench |\n"
		printf "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
		for (s = 1; s <= 5; s++) for (b = 1; b <= 3; b++) {
			k = row_key(bes[b], "tput", ts[s])
			if (!(k in seen)) continue
			g = med(v["gbps", k])
			extra = ""
			if (ts[s] == "tso65214")
				extra = sprintf(" (gso kept %.0f%%, bad csum %d)", med(v["gso", k]), med(v["cbad", k]))
			if (fail[k]) extra = extra " **FAILED " fail[k] "x**"
			printf "| %s | %s%s | %.3f | %.2f | %.0f%% | %.0f | %.0f | %.3f | %.0f | %.0f / %.0f |\n",
				ts[s], bes[b], extra, med(v["mpps", k]), g,
				(dram > 0 ? 100 * g / dram : 0), med(v["cyc", k]),
				med(v["cpu", k]), med(v["drop", k]), med(v["afull", k]),
				med(v["fw", k]), med(v["bw", k])
		}
		printf "\n### Request/response ping-pong A -> B -> A, one frame in flight (medians)\n\n"
		printf "| frame | back end | round trips/s | p50 us | p99 us | fwd cycles/pkt | fwd CPU %% | lost | CPU wait %% fwd/bench |\n"
		printf "|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
		for (s = 1; s <= 3; s++) for (b = 1; b <= 3; b++) {
			k = row_key(bes[b], "rr", rs[s])
			if (!(k in seen)) continue
			printf "| %s | %s%s | %.0f | %.1f | %.1f | %.0f | %.0f | %d | %.0f / %.0f |\n",
				rs[s], bes[b], fail[k] ? " **FAILED**" : "",
				med(v["rtt", k]), med(v["p50", k]), med(v["p99", k]),
				med(v["cyc", k]), med(v["cpu", k]), med(v["lost", k]),
				med(v["fw", k]), med(v["bw", k])
		}
		printf "\n### vhostd / testpmd ratios, all placements mixed together (>1: vhostd better, except cycles: <1 better)\n\n"
		printf "Medians over every sample whatever the placement: on a VM whose host moves the\n"
		printf "vCPUs these mix states; read the state-for-state table above instead.\n\n"
		printf "| point | vhostd-p0 | vhostd-p50 | best vhostd mode |\n|---|---:|---:|---|\n"
		for (s = 1; s <= 5; s++) {
			kt = row_key("testpmd", "tput", ts[s])
			k0 = row_key("vhostd-p0", "tput", ts[s]); k5 = row_key("vhostd-p50", "tput", ts[s])
			if (!(kt in seen)) continue
			t = med(v["mpps", kt]); a0 = med(v["mpps", k0]); a5 = med(v["mpps", k5])
			if (t + 0 <= 0) { printf "| tput %s | testpmd delivered nothing | | |\n", ts[s]; continue }
			printf "| tput %s Mpps | %s | %s | %s |\n", ts[s], ratio(a0, k0, t), ratio(a5, k5, t), best(k0, a0, k5, a5)
			t = med(v["cyc", kt])
			printf "| tput %s cycles/pkt | %s | %s | |\n", ts[s], ratio(med(v["cyc", k0]), k0, t), ratio(med(v["cyc", k5]), k5, t)
		}
		for (s = 1; s <= 3; s++) {
			kt = row_key("testpmd", "rr", rs[s])
			k0 = row_key("vhostd-p0", "rr", rs[s]); k5 = row_key("vhostd-p50", "rr", rs[s])
			if (!(kt in seen)) continue
			t = med(v["rtt", kt]); a0 = med(v["rtt", k0]); a5 = med(v["rtt", k5])
			if (t + 0 <= 0) { printf "| rr %s | testpmd completed nothing | | |\n", rs[s]; continue }
			printf "| rr %s round trips/s | %s | %s | %s |\n", rs[s], ratio(a0, k0, t), ratio(a5, k5, t), best(k0, a0, k5, a5)
			t = med(v["p50", kt])
			printf "| rr %s p50 latency (testpmd/vhostd) | %s | %s | |\n", rs[s],
				ratio(t, k0, med(v["p50", k0])), ratio(t, k5, med(v["p50", k5]))
		}
		printf "\n### Per repetition, with the CPU0<->CPU1 cache-line round trip\n\n"
		printf "c2c: bench/c2c just before the back end started / after it stopped.\n"
		printf "Point states: f(ast) s(low) m(ixed) d(isturbed) per point in run order (tput 64 256 1514\n"
		printf "9000 tso, rr 64 256 1024).\n\n"
		printf "| back end | rep | c2c ns | point states | tput 64 Mpps | tput 1514 Mpps | rr 64 round trips/s |\n"
		printf "|---|---:|---|---|---:|---:|---:|\n"
		for (i = 1; i <= nr; i++) {
			split(rkeys[i], q, SUBSEP)
			if (q[1] == "memcpy") continue
			printf "| %s | %s | %s | %s | %s | %s | %s |\n", q[1], q[2], c2c[rkeys[i]],
				stl[rkeys[i]], per[rkeys[i], "64"], per[rkeys[i], "1514"], per[rkeys[i], "rr"]
		}
	}' "$1"
}

if [ -n "$FROM_RAW" ]; then
	# Lines of a results file's raw block, or of raw.txt.
	grep " RESULT mode=" "$FROM_RAW" >/tmp/vbench-raw.$$ && summarize /tmp/vbench-raw.$$
	rc=$?
	rm -f /tmp/vbench-raw.$$
	exit $rc
fi

# ---- dependencies and build ------------------------------------------------
if [ "$INSTALL" = 1 ] && { ! command -v dpdk-testpmd >/dev/null ||
			   ! [ -e /usr/include/bpf/libbpf.h ]; }; then
	log "installing DPDK (dpdk-dev: testpmd; librte-net-vhost23: net_vhost) and libbpf-dev"
	DEBIAN_FRONTEND=noninteractive apt-get install -y \
		--no-install-recommends dpdk-dev librte-net-vhost23 jq libbpf-dev >&2 ||
		{ echo "run.sh: apt-get install failed" >&2; exit 2; }
fi
command -v dpdk-testpmd >/dev/null ||
	{ echo "run.sh: dpdk-testpmd missing (apt-get install dpdk-dev librte-net-vhost23)" >&2; exit 2; }
log "building in $BUILD"
# Only what the bench needs: a half-finished test elsewhere must not stop it.
make -C "$ROOT" O="$BUILD" -j"$(nproc)" "$BUILD/vhostd" "$BUILD/vhostctl" \
	"$BUILD/bench/vbench" "$BUILD/bench/memcpy_bw" "$BUILD/bench/c2c" \
	>/dev/null ||
	{ echo "run.sh: build failed" >&2; exit 2; }
VHOSTD=$BUILD/vhostd
VHOSTCTL=$BUILD/vhostctl
VBENCH=$BUILD/bench/vbench
MEMCPY=$BUILD/bench/memcpy_bw
C2C=$BUILD/bench/c2c
if [ "$(nproc)" -lt 2 ]; then
	echo "run.sh: needs 2 CPUs (bench on one, forwarder on the other)" >&2
	exit 2
fi

TMP=$(mktemp -d /tmp/vhostd-bench.XXXXXX)
RAW=$TMP/raw.txt
FAILS=$TMP/fails.txt
: >"$RAW"
: >"$FAILS"
FWD_PID=
cleanup() {
	# CONT: a TERM stays pending on a process stopped by c2c_now.
	[ -n "$FWD_PID" ] && kill "$FWD_PID" 2>/dev/null &&
		kill -CONT "$FWD_PID" 2>/dev/null && wait "$FWD_PID" 2>/dev/null
	exec 7>&- 2>/dev/null
	# DPDK's runtime directory outlives testpmd, even with --no-shconf
	rm -rf "$TMP" "/var/run/dpdk/vbench$$"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- back ends ---------------------------------------------------------------
# start_backend NAME: starts it, sets FWD_PID; sockets $TMP/A.sock, B.sock
start_backend() {
	rm -f "$TMP/A.sock" "$TMP/B.sock" "$TMP/ctl.sock"
	case "$1" in
	vhostd-p*)
		taskset -c $CPU_FWD "$VHOSTD" --poll-us "${1#vhostd-p}" \
			--port vhost-user,path="$TMP/A.sock" \
			--port vhost-user,path="$TMP/B.sock" \
			--ctl "$TMP/ctl.sock" >"$TMP/$1.log" 2>&1 &
		FWD_PID=$!
		;;
	testpmd)
		rm -f "$TMP/tp.in"
		mkfifo "$TMP/tp.in"
		# Main lcore (and DPDK's control threads) on the bench CPU,
		# the io forwarding lcore alone on CPU_FWD.  stdin is a fifo
		# held open: testpmd exits when its stdin ends.
		dpdk-testpmd -l $CPU_BENCH,$CPU_FWD --main-lcore $CPU_BENCH \
			--no-pci --no-huge -m 1024 --no-shconf \
			--file-prefix vbench$$ \
			--vdev "net_vhost0,iface=$TMP/A.sock,queues=1,tso=1" \
			--vdev "net_vhost1,iface=$TMP/B.sock,queues=1,tso=1" \
			-- --forward-mode=io --auto-start \
			--total-num-mbufs=16384 <"$TMP/tp.in" \
			>"$TMP/$1.log" 2>&1 &
		FWD_PID=$!
		exec 7>"$TMP/tp.in"
		;;
	esac
	bench_wait_socks "$FWD_PID" "$TMP/$1.log" "run.sh: $1" \
		"$TMP/A.sock" "$TMP/B.sock" || return 1
	# vhostd: its control thread (vhost-user messages) to the bench
	# CPU like DPDK's control threads; only the worker stays on CPU_FWD.
	case "$1" in vhostd-p*) taskset -p -c $CPU_BENCH "$FWD_PID" >/dev/null ;; esac
	return 0
}

# stop_backend NAME
stop_backend() {
	case "$1" in
	vhostd-p*)
		"$VHOSTCTL" --json --ctl "$TMP/ctl.sock" stats >"$TMP/$1.stats.json" 2>/dev/null
		;;
	esac
	bench_stop "$FWD_PID" 100
	FWD_PID=
	[ "$1" = testpmd ] && exec 7>&-
}

# c2c_probe BACKEND REP: cache-line round trip CPU_BENCH <-> CPU_FWD, while
# neither runs anything of ours.  On a VM it tells how far apart the host
# placed the two vCPUs, which moves every number below.
c2c_probe() {
	"$C2C" --cpu-a $CPU_BENCH --cpu-b $CPU_FWD | sed "s/^/$1 $2 /" >>"$RAW"
}

# c2c_now -> ns_rt of one bench/c2c run between two points.  The back end
# is stopped meanwhile (no guest is attached then): testpmd's busy-polling
# lcore on CPU_FWD would otherwise share the CPU with the echo thread.
c2c_now() {
	local ns
	[ -n "$FWD_PID" ] && kill -STOP "$FWD_PID" 2>/dev/null
	ns=$("$C2C" --cpu-a $CPU_BENCH --cpu-b $CPU_FWD |
		sed -n 's/.* ns_rt=\([0-9]*\).*/\1/p')
	[ -n "$FWD_PID" ] && kill -CONT "$FWD_PID" 2>/dev/null
	echo "${ns:-0}"
}

# state_of PRE POST -> fast, slow or mixed (see C2C_SLOW_NS)
state_of() {
	if [ "$1" -lt "$C2C_SLOW_NS" ] && [ "$2" -lt "$C2C_SLOW_NS" ]; then
		echo fast
	elif [ "$1" -ge "$C2C_SLOW_NS" ] && [ "$2" -ge "$C2C_SLOW_NS" ]; then
		echo slow
	else
		echo mixed
	fi
}

# max_wait "RESULT ..." -> the larger of fwd_wait_pct and bench_wait_pct
max_wait() {
	awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(fwd|bench)_wait_pct=/) {
		split($i, p, "="); if (p[2] + 0 > m) m = p[2] + 0 } }
	     END { print m + 0 }' <<<"$1"
}

# point BACKEND REP MODE SIZE
#
# Other jobs share this machine.  A point whose forwarder or bench thread
# waited for a CPU more than QUIET_PCT % of the window measured the
# neighbours: it is run again (up to MAX_TRIES, while the retry budget
# lasts) and the least disturbed attempt is kept, with its wait shown.
# Every attempt is bracketed by c2c_now; the kept one carries its pair
# (c2c_pre, c2c_post) and state in its RESULT line.
point() {
	local out rc w try best_out= best_rc= best_w=1000 best_err= why
	local pre post best_c2c=
	for try in $(seq "$MAX_TRIES"); do
		pre=$(c2c_now)
		out=$(taskset -c $CPU_BENCH "$VBENCH" "$3" --a "$TMP/A.sock" \
			--b "$TMP/B.sock" --size "$4" --seconds "$SECONDS_PT" \
			--warmup-ms "$WARMUP_MS" --fwd-pid "$FWD_PID" \
			--label "$1" 2>"$TMP/err")
		rc=$?
		post=$(c2c_now)
		out=$(grep RESULT <<<"$out")
		w=$(max_wait "$out")
		# Prefer a success, then the least waiting.
		if [ -z "$best_rc" ] || { [ "$rc" = 0 ] && [ "$best_rc" != 0 ]; } ||
		   { [ "$rc" = "$best_rc" ] && awk "BEGIN { exit !($w < $best_w) }"; }; then
			best_out=$out best_rc=$rc best_w=$w
			best_c2c="c2c_pre=$pre c2c_post=$post state=$(state_of "$pre" "$post")"
			best_err=$(tr '\n' ' ' <"$TMP/err")
		fi
		[ "$rc" = 3 ] && break
		[ "$rc" = 0 ] && awk "BEGIN { exit !($w <= $QUIET_PCT) }" && break
		[ $(( $(date +%s) - T0 )) -gt "$RETRY_BUDGET_S" ] && break
		sleep 1
	done
	if [ "$best_rc" = 0 ]; then
		echo "$1 $2 $best_out $best_c2c tries=$try" >>"$RAW"
		printf '   %-10s rep %s %-4s %-5s ok (tries %s, cpu wait %s%%, %s)\n' \
			"$1" "$2" "$3" "$4" "$try" "$best_w" "${best_c2c//c2c_/}" >&2
		return
	fi
	why=$best_err
	[ "$best_rc" = 3 ] && why="n/a: $why"
	if [ "$3 $4" = "tput tso" ] && [ "${1%%-*}" = vhostd ] &&
	   [ -S "$TMP/ctl.sock" ]; then
		why="$why (vhostd drops so far: $("$VHOSTCTL" --json --ctl "$TMP/ctl.sock" stats 2>/dev/null |
			jq -c '[.ports[] | {(.name): .drops | with_entries(select(.value > 0))}] | add' 2>/dev/null))"
	fi
	echo "$1 rep $2 $3 $4: $why" >>"$FAILS"
	printf '   %-10s rep %s %-4s %-5s FAILED: %s\n' "$1" "$2" "$3" "$4" "$why" >&2
	# Keep the partial numbers (e.g. 0 delivered) for the table.
	[ -n "$best_out" ] && echo "$1 $2 $best_out $best_c2c tries=$try FAILED" >>"$RAW"
}

# ---- run ---------------------------------------------------------------------
log "memcpy ceiling (CPU $CPU_FWD)"
MEMCPY_OUT=$(taskset -c $CPU_FWD "$MEMCPY" --seconds 1)
echo "$MEMCPY_OUT" >&2
echo "$MEMCPY_OUT" | sed 's/^/memcpy 0 /' >>"$RAW"
DRAM_GBIT=$(echo "$MEMCPY_OUT" | awk '/set=dram/ { sub("gbit_s=", "", $6); print $6 }')
CACHE_GBIT=$(echo "$MEMCPY_OUT" | awk '/set=cache/ { sub("gbit_s=", "", $6); print $6 }')

T0=$(date +%s)
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
set -- $BACKENDS
NB=$#
for rep in $(seq "$REPS"); do
	if [ "$BY" = backend ]; then
		# Rotate the order so no back end always runs first (or warm).
		order=""
		for k in $(seq 0 $((NB - 1))); do
			i=$(( (k + rep - 1) % NB + 1 ))
			order="$order ${!i}"
		done
		for be in $order; do
			log "rep $rep/$REPS: $be"
			c2c_probe "$be" "$rep"
			if ! start_backend "$be"; then
				echo "$be rep $rep: did not start" >>"$FAILS"
				stop_backend "$be"
				continue
			fi
			for s in $TPUT_SIZES; do point "$be" "$rep" tput "$s"; done
			for s in $RR_SIZES; do point "$be" "$rep" rr "$s"; done
			stop_backend "$be"
			c2c_probe "$be" "$rep"
		done
		continue
	fi
	log "rep $rep/$REPS"
	np=0
	for pt in $(for s in $TPUT_SIZES; do echo "tput:$s"; done) \
		  $(for s in $RR_SIZES; do echo "rr:$s"; done); do
		np=$((np + 1))
		for k in $(seq 0 $((NB - 1))); do
			# Rotated by repetition and point: no back end is
			# always first, or always next to the same one.
			i=$(( (k + rep + np - 2) % NB + 1 ))
			be=${!i}
			if ! start_backend "$be"; then
				echo "$be rep $rep ${pt%%:*} ${pt#*:}: did not start" >>"$FAILS"
				stop_backend "$be"
				continue
			fi
			point "$be" "$rep" "${pt%%:*}" "${pt#*:}"
			stop_backend "$be"
		done
	done
done
ELAPSED=$(( $(date +%s) - T0 ))


DATE=$(date +%Y-%m-%d-%H%M)
mkdir -p "$ROOT/bench/results"
RES=$ROOT/bench/results/$DATE$([ $QUICK = 1 ] && echo -quick).md
DPDK_VER=$(dpkg-query -W -f='${Version}' dpdk-dev 2>/dev/null)
REV=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)
git -C "$ROOT" diff --quiet HEAD -- src 2>/dev/null || REV="$REV+dirty(src)"
{
	echo "# vhostd vs DPDK testpmd: $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "Command: \`bench/run.sh$([ $QUICK = 1 ] && echo ' --quick') --reps $REPS --seconds $SECONDS_PT --tries $MAX_TRIES --by $BY\`" \
	     "(${ELAPSED} s). vhostd at $REV; DPDK $DPDK_VER (Debian)."
	echo
	echo "Hardware: $(lscpu | awk -F: '/Model name/ { gsub(/^ +/, "", $2); print $2 }')," \
	     "$(nproc) CPUs ($(lscpu | awk -F: '/Hypervisor vendor/ { gsub(/^ +/, "", $2); print $2 " guest" }'))," \
	     "$(awk '/cpu MHz/ { printf "%.0f MHz", $4; exit }' /proc/cpuinfo)," \
	     "L2 $(lscpu | awk -F: '/L2 cache/ { gsub(/^ +/, "", $2); print $2 }')," \
	     "L3 $(lscpu | awk -F: '/L3 cache/ { gsub(/^ +/, "", $2); print $2 }');" \
	     "kernel $(uname -r)."
	echo "memcpy on one core: ${DRAM_GBIT} Gbit/s with 256 MiB buffers (DRAM)," \
	     "${CACHE_GBIT} Gbit/s with 1 MiB (cache)."
	echo
	echo "Bench (vdrv guests A and B) on CPU $CPU_BENCH, forwarding thread on CPU $CPU_FWD."
	echo "Frames: size without FCS; Gbit/s counts Ethernet frame bytes delivered to B."
	echo "Rings 1024, RX buffers 2048 B (4096 B for 9000/tso) with MRG_RXBUF, EVENT_IDX."
	echo "CPU wait %: share of the window the forwarding thread / the bench thread sat"
	echo "runnable without a CPU (schedstat) -- other jobs on the machine.  Rows with"
	echo "more than a few percent measure the neighbours, not the forwarder; such"
	echo "points were retried (up to $MAX_TRIES tries) and the least disturbed kept."
	echo "Load average at start: $LOAD0; at end: $(cut -d' ' -f1-3 /proc/loadavg)."
	echo "Placement: c2c before/after every point, slow from $C2C_SLOW_NS ns (see the headline table)."
	echo
	summarize "$RAW"
	echo
	if [ -s "$FAILS" ]; then
		echo "### Failed points"
		echo
		sed 's/^/- /' "$FAILS"
		echo
	fi
	echo "<details><summary>raw RESULT lines</summary>"
	echo
	echo '```'
	cat "$RAW"
	echo '```'
	echo "</details>"
} >"$RES"

echo
sed -n '/^### /,/^### One-way/p' "$RES" | grep -v '^### One-way'
echo "results: $RES"
[ -s "$FAILS" ] && exit 1
exit 0
