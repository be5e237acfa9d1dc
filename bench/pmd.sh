#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# pmd.sh - benchmark: DPDK's own virtio-user driving vhostd vs testpmd
#
# The driver is code nobody here wrote: one dpdk-testpmd with two
# virtio-user ports (DPDK's virtio PMD in a process, the same driver a
# DPDK guest runs), one forwarding lcore on CPU 0.  The back end under
# test connects the two ports on CPU 1:
#
#   driver testpmd (mac fwd, CPU 0)            back end (CPU 1)
#     net_virtio_user0 --- A.sock ---+
#                                    +-- vhostd, two vhost-user ports
#     net_virtio_user1 --- B.sock ---+   or testpmd net_vhost0/1 (io fwd)
#
# Closed loop: "start tx_first 4" puts 4 bursts of SIZE-byte frames on
# every TX queue of both ports (src = the port's MAC, dst = the other
# port's); the driver's mac forwarding sends each frame it receives on one
# port out of the other with the same pair of MACs, so the same frames
# circle between the driver and the back end, at most 128 per queue and
# direction (half a 256-entry ring: no ring can overflow, nothing is
# lost by design).  Rate = frames the driver received, both ports, over
# the window.  Both back ends see the same driver, the same frames and
# the same negotiated features: the driver asks for no offloads, so no
# offload feature is negotiated on either side; ring type and queue
# count are the driver's devargs (packed_vq=1, queues=N).
#
# Back ends: vhostd --workers 1 (the worker on CPU 1, its control thread
# on CPU 0), vhostd --workers 2 (2-queue points only: workers free to
# use both CPUs, as a user would run it on this 2-core machine), and
# testpmd with net_vhost (busy-polling io forwarding on CPU 1).  Order
# rotates per repetition; a fresh back end and driver each sample.
#
# --instructions: each back end runs under callgrind instead (vhostd
# --workers 1 only), and each sample also gives the instructions its
# forwarding thread (vhostd's worker, testpmd's forwarding lcore) ran in
# the window per frame the driver received: a count that moves little
# with the host's placement of the vCPUs or other jobs, as rates here do
# (2x between runs of one binary).  Under callgrind the back end is the
# slow side, always busy: the window has no idle polling in it (testpmd
# polls without pause before and after it).
#
# Usage: bench/pmd.sh [--reps N] [--seconds S] [--sizes "64 256 1514"]
#                     [--rings "split packed"] [--queues "1 2"]
#                     [--instructions]
#   BUILD=dir   vhostd build directory (default build-bench, built here)
#   PEER=dir    another vhostd build (a directory with vhostd in it, made
#               by the caller) takes testpmd's place as the reference:
#               the same table, ratios this build / that one (an A/B of
#               two commits with DPDK's driver)
# Prints one RESULT line per sample, then medians and paired ratios
# (vhostd sample / testpmd sample of the same repetition; with
# --instructions also instructions per frame, and their ratio).  Not a test:
# no thresholds.  Unix sockets only; kills only the PIDs it started.

set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build-bench}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
REPS=3
SECS=3
SIZES="64 256 1514"
RINGS="split packed"
QUEUES="1 2"
IR=
while [ $# -gt 0 ]; do
	case "$1" in
	--reps) REPS=$2; shift ;;
	--seconds) SECS=$2; shift ;;
	--sizes) SIZES=$2; shift ;;
	--rings) RINGS=$2; shift ;;
	--queues) QUEUES=$2; shift ;;
	--instructions) IR=1 ;;
	-h|--help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "pmd.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done

command -v dpdk-testpmd >/dev/null ||
	{ echo "pmd.sh: dpdk-testpmd missing (apt-get install dpdk-dev)" >&2; exit 2; }
# Under callgrind: the back end's command's prefix; starting up takes
# seconds, not tenths.
VG=()
if [ -n "$IR" ]; then
	command -v valgrind >/dev/null ||
		{ echo "pmd.sh: valgrind missing (apt-get install valgrind)" >&2; exit 2; }
	BENCH_WAIT=600
	export BENCH_WAIT
fi
make -s -C "$ROOT" O="$BUILD" "$BUILD/vhostd" "$BUILD/vhostctl" >&2 || exit 2
VHOSTD=$BUILD/vhostd
VHOSTCTL=$BUILD/vhostctl
REF=testpmd
if [ -n "${PEER:-}" ]; then
	[ -x "$PEER/vhostd" ] || { echo "pmd.sh: no $PEER/vhostd" >&2; exit 2; }
	REF=peer
fi

TMP=$(mktemp -d /tmp/vhostd-pmd.XXXXXX)
BE_PID=
DRV_PID=
MAC0=02:70:6d:64:00:01
MAC1=02:70:6d:64:00:02

# shellcheck source=bench/lib.sh
. "$ROOT/bench/lib.sh"

cleanup() {
	exec 7>&- 8>&-
	bench_stop "$DRV_PID"
	bench_stop "$BE_PID"
	# DPDK's runtime directories outlive testpmd, even with --no-shconf
	rm -rf "/var/run/dpdk/pmdbe$$" "/var/run/dpdk/pmddrv$$"
	[ -n "${KEEP:-}" ] && echo "kept $TMP" >&2 || rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# start_backend NAME QUEUES: sockets $TMP/A.sock and B.sock
start_backend() {
	rm -f "$TMP/A.sock" "$TMP/B.sock" "$TMP"/cg.out*
	[ -n "$IR" ] && VG=(valgrind --tool=callgrind --separate-threads=yes
			    --instr-atstart=no
			    --callgrind-out-file="$TMP/cg.out")
	case "$1" in
	vhostd-w1|peer)
		local bin=$VHOSTD
		[ "$1" = peer ] && bin=$PEER/vhostd
		# valgrind makes system calls of its own that the filter
		# would refuse; the filter costs no user-space instruction.
		[ -n "$IR" ] && set -- "$1" "$2" --no-sandbox
		taskset -c 1 "${VG[@]}" "$bin" --workers 1 "${@:3}" \
			--port "vhost-user,path=$TMP/A.sock,queues=$2" \
			--port "vhost-user,path=$TMP/B.sock,queues=$2" \
			--ctl "$TMP/ctl.sock" >"$TMP/be.log" 2>&1 &
		BE_PID=$!
		;;
	vhostd-w2)
		"$VHOSTD" --workers 2 \
			--port "vhost-user,path=$TMP/A.sock,queues=$2" \
			--port "vhost-user,path=$TMP/B.sock,queues=$2" \
			--ctl "$TMP/ctl.sock" >"$TMP/be.log" 2>&1 &
		BE_PID=$!
		;;
	testpmd)
		rm -f "$TMP/be.in"
		mkfifo "$TMP/be.in"
		# Under callgrind every thread runs in turn anyway: all of
		# them on CPU 1, away from the driver's (whose vhost-user
		# replies otherwise came too late for it), and only the
		# log lines read here (debug ones slow it down).
		local lc=(-l 0,1) pin=() ll=debug
		[ -n "$IR" ] && { lc=(--lcores 0@1,1@1); pin=(taskset -c 1); ll=info; }
		"${pin[@]}" "${VG[@]}" dpdk-testpmd "${lc[@]}" --main-lcore 0 \
			--no-pci --no-huge -m 1024 --no-shconf \
			--file-prefix pmdbe$$ \
			--log-level=lib.vhost.config:$ll \
			--vdev "net_vhost0,iface=$TMP/A.sock,queues=$2" \
			--vdev "net_vhost1,iface=$TMP/B.sock,queues=$2" \
			-- --forward-mode=io --auto-start --rxq="$2" --txq="$2" \
			--nb-cores=1 --total-num-mbufs=16384 <"$TMP/be.in" \
			>"$TMP/be.log" 2>&1 &
		BE_PID=$!
		exec 7>"$TMP/be.in"
		;;
	esac
	bench_wait_socks "$BE_PID" "$TMP/be.log" "pmd.sh: $1" \
		"$TMP/A.sock" "$TMP/B.sock" || return 1
	# vhostd-w1: only the worker stays on CPU 1 (the main thread
	# answers vhost-user messages, like DPDK's control threads on 0).
	case $1 in vhostd-w1|peer) taskset -p -c 0 "$BE_PID" >/dev/null ;; esac
	return 0
}

stop_backend() {
	[ "$1" = testpmd ] && exec 7>&-
	# callgrind writes its counts at the exit: give it the time
	bench_stop "$BE_PID" "$([ -n "$IR" ] && echo 600 || echo 50)"
	BE_PID=
}

# backend_ready NAME QUEUES: wait (10 s at most) until the back end has
#   both devices ready, so that no frame of tx_first is lost
backend_ready() {
	local i
	for i in $(seq "${BENCH_WAIT:-100}"); do
		case "$1" in
		vhostd-*|peer)
			[ "$("$VHOSTCTL" --json --ctl "$TMP/ctl.sock" ports 2>/dev/null |
			     jq "[.ports[] | select(.up)] | length")" = 2 ] &&
				return 0 ;;
		testpmd)
			[ "$(grep -c 'is now ready for processing' \
			     "$TMP/be.log")" -ge 2 ] && return 0 ;;
		esac
		sleep 0.1
	done
	return 1
}

# backend_drops NAME: frames the back end dropped so far (vhostd), or
#   stops it and prints what it dropped (testpmd, whose totals come at
#   its exit)
backend_drops() {
	case "$1" in
	vhostd-*|peer)
		"$VHOSTCTL" --json --ctl "$TMP/ctl.sock" ports |
			jq '[.ports[] | .drops[]] | add' ;;
	testpmd)
		echo >&7
		for _ in $(seq 50); do
			grep -q 'Accumulated forward statistics' "$TMP/be.log" &&
				break
			sleep 0.1
		done
		sleep 0.2
		awk '/Accumulated forward statistics/ { a = 1 }
		     a && /TX-dropped:/ { print $4; exit }' \
			"$TMP/be.log" ;;
	esac
}

# backend_ir FRAMES: instructions per frame of the back end just stopped:
#   its busiest thread's (the forwarding one's) callgrind count, taken
#   over the window alone (callgrind_control -i on/off), over the FRAMES
#   the driver received in it (in the closed loop, what the back end
#   forwarded)
backend_ir() {
	local top

	top=$(cat "$TMP"/cg.out* 2>/dev/null |
		awk '/^totals:/ { if ($2 > m) m = $2 } END { print m + 0 }')
	awk -v t="$top" -v f="$1" 'BEGIN {
		if (t > 0 && f > 0) printf "%.0f", t / f; else print "unknown" }'
}

# backend_features NAME: the virtio features the back end negotiated on
#   A.sock (hex), as it reports them
backend_features() {
	case "$1" in
	vhostd-*|peer)
		"$VHOSTCTL" --json --ctl "$TMP/ctl.sock" ports |
			jq -r '.ports[0].negotiated.features' ;;
	testpmd)
		sed -n 's/.*(.*A\.sock) negotiated Virtio features: //p' \
			"$TMP/be.log" | tail -1 ;;
	esac
}

# drive BACKEND SIZE RING QUEUES: prints "frames seconds drops features":
#   what the driver received in the window, what the back end dropped,
#   and the features it negotiated
drive() {
	local be=$1 size=$2 ring=$3 q=$4 extra=
	[ "$ring" = packed ] && extra=,packed_vq=1
	rm -f "$TMP/drv.in"
	mkfifo "$TMP/drv.in"
	# --instructions: the driver whole on CPU 0, the back end's alone
	local lc=(-l 0,1)
	[ -n "$IR" ] && lc=(--lcores 0@0,1@0)
	dpdk-testpmd "${lc[@]}" --main-lcore 1 --no-pci --no-huge -m 1024 \
		--no-shconf --file-prefix pmddrv$$ \
		--vdev "net_virtio_user0,path=$TMP/A.sock,queues=$q,mac=$MAC0$extra" \
		--vdev "net_virtio_user1,path=$TMP/B.sock,queues=$q,mac=$MAC1$extra" \
		-- -i --rxq="$q" --txq="$q" --nb-cores=1 \
		--total-num-mbufs=16384 --forward-mode=mac \
		--eth-peer=0,$MAC1 --eth-peer=1,$MAC0 \
		<"$TMP/drv.in" >"$TMP/drv.log" 2>&1 &
	DRV_PID=$!
	exec 8>"$TMP/drv.in"
	backend_ready "$be" "$q" ||
		echo "pmd.sh: $be not ready after $((${BENCH_WAIT:-100} / 10)) s" >&2
	sleep 0.5
	echo "set txpkts $size" >&8
	echo "start tx_first 4" >&8
	sleep 1
	[ -n "$IR" ] && callgrind_control -i on "$BE_PID" >/dev/null
	echo "clear port stats all" >&8
	sleep "$SECS"
	echo "show port stats all" >&8
	[ -n "$IR" ] && callgrind_control -i off "$BE_PID" >/dev/null
	sleep 0.5
	feat=$(backend_features "$be")
	drops=$(backend_drops "$be")
	echo "stop" >&8
	echo "quit" >&8
	exec 8>&-
	for _ in $(seq 50); do
		kill -0 "$DRV_PID" 2>/dev/null || break
		sleep 0.1
	done
	bench_stop "$DRV_PID"
	DRV_PID=
	# The last "show port stats" before "stop": RX-packets of both ports.
	awk -v s="$SECS" '
		/#+ NIC statistics for port/ { blk++; in_nic = 1; next }
		/Forward statistics/ { in_nic = 0 }
		in_nic && /RX-packets:/ { rx[blk] = $2 }
		END {
			if (blk < 2) { print "0", s, d, f; exit }
			print rx[1] + rx[2], s, d, f
		}' d="${drops:-unknown}" f="${feat:-unknown}" "$TMP/drv.log"
}

RAW=$TMP/raw
: >"$RAW"
for rep in $(seq "$REPS"); do
	for ring in $RINGS; do
		for q in $QUEUES; do
			bes="vhostd-w1 $REF"
			[ "$q" -gt 1 ] && [ -z "$IR" ] &&
				bes="vhostd-w1 vhostd-w2 $REF"
			# rotate the order per repetition
			set -- $bes
			for _ in $(seq $((rep % $#))); do
				set -- "$@" "$1"
				shift
			done
			for size in $SIZES; do
				for be in "$@"; do
					start_backend "$be" "$q" || continue
					read -r n s d f < <(drive "$be" "$size" "$ring" "$q")
					stop_backend "$be"
					mpps=$(awk -v n="$n" -v s="$s" \
						'BEGIN { printf "%.4f", n / s / 1e6 }')
					ir=
					[ -n "$IR" ] && ir=" ir=$(backend_ir "$n")"
					echo "RESULT rep=$rep be=$be ring=$ring queues=$q size=$size mpps=$mpps drops=$d features=$f$ir" |
						tee -a "$RAW"
				done
			done
		done
	done
done

# Medians per point and back end, then paired ratios vhostd / testpmd
# (or / the peer build).
awk -v ref="$REF" '
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
	delete f
	for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if (f["drops"] != "0") { lossy++; next }	# a broken loop
	pt = f["ring"] " q" f["queues"] " " f["size"] "B"
	if (!(pt in seen)) { seen[pt] = 1; order[++np] = pt }
	v[pt, f["be"]] = v[pt, f["be"]] " " f["mpps"]
	s[pt, f["be"], f["rep"]] = f["mpps"]
	if (f["ir"] != "" && f["ir"] != "unknown") {
		iv[pt, f["be"]] = iv[pt, f["be"]] " " f["ir"]
		has_ir = 1
	}
	reps[f["rep"]] = 1
	# Features as each back end reports them (printed below the table:
	# with 2 queues testpmd also offers CTRL_RX, bit 18, which needs a
	# control queue neither side uses here).
	ft = sprintf("%s", f["features"])
	feats[pt, (f["be"] == ref ? "t" : "v")] = ft
}
END {
	if (lossy)
		printf "\n%d sample(s) left out: the back end dropped frames\n", lossy
	printf "\n| point | %s Mpps | vhostd-w1 Mpps | w1 / %s | vhostd-w2 Mpps | w2 / %s |\n", ref, ref, ref
	printf "|---|---:|---:|---:|---:|---:|\n"
	for (k = 1; k <= np; k++) {
		pt = order[k]
		line = sprintf("| %s | %s", pt, med(v[pt, ref]))
		split("vhostd-w1 vhostd-w2", bes, " ")
		for (b = 1; b <= 2; b++) {
			be = bes[b]; r = ""
			for (rp in reps)
				if ((pt, be, rp) in s && (pt, ref, rp) in s &&
				    s[pt, ref, rp] > 0)
					r = r " " s[pt, be, rp] / s[pt, ref, rp]
			line = line sprintf(" | %s | %s", med(v[pt, be]),
				r == "" ? "" : sprintf("%.3f", med(r)))
		}
		print line " |"
	}
	if (has_ir) {
		# Instructions: deterministic, so the medians compare directly.
		printf "\n| point | %s instr/frame | vhostd-w1 instr/frame | w1 / %s |\n", ref, ref
		printf "|---|---:|---:|---:|\n"
		for (k = 1; k <= np; k++) {
			pt = order[k]
			a = med(iv[pt, ref]); b = med(iv[pt, "vhostd-w1"])
			printf "| %s | %s | %s | %s |\n", pt, a, b,
				(a > 0 && b > 0) ? sprintf("%.3f", b / a) : ""
		}
	}
	for (k = 1; k <= np; k++) {
		pt = order[k]
		if (!((pt, "t") in feats) || !((pt, "v") in feats))
			continue
		printf "%s features: %s %s, vhostd %s\n", pt, ref,
			feats[pt, "t"], feats[pt, "v"]
	}
}' "$RAW"
