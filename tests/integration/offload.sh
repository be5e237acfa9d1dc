#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# offload.sh - virtio-net offloads end to end: vdrv guests and a TAP
#
#   offload-matrix: A sends every kind of offload frame once; it floods to
#   eight receivers that negotiated different GUEST_* features
#
#     A (p0, CSUM HOST_TSO4/6 HOST_ECN HOST_USO, 64 KiB TX slots)
#      |
#    vhostd --+-- B-full        p1  GUEST_CSUM TSO4/6 ECN USO4/6, MRG 2048
#             +-- B-full-1536   p2  same, 1536-byte MRG buffers
#             +-- B-full-nomrg  p3  same, no MRG, 65600-byte buffers
#             +-- B-csum        p4  GUEST_CSUM only
#             +-- B-none        p5  nothing
#             +-- B-none-nomrg  p6  nothing, no MRG
#             +-- B-tso-noecn   p7  GUEST_CSUM TSO4/6
#             +-- B-uso4-legacy p8  GUEST_CSUM USO4, 10-byte header
#
#   offload-negative: A (all offloads), A2 (CSUM + HOST_TSO6), A3 (none)
#   send spoilt or unentitled frames to B (every GUEST_* offload) and C
#   (none); counters checked with vhostctl.  A3's header is never read
#   (it negotiated no offload): its frames arrive plain.
#
#   offload-matrix-workers-4: the same with four datapath threads
#
#   offload-fuzz: A sends 3000 valid frames with random virtio-net
#   headers to B (every GUEST_* offload) and C (none): vhostd stays up,
#   C never gets an offload header, canaries get through
#
#   offload-selftest-KIND: the matrix again, every received frame
#   corrupted (KIND: payload, ipid, seq, fin, cwr, ttl, csum, csum-start);
#   it must fail, or the checker is blind
#
#   offload-tap: vhostd inside netns offit<pid>; the kernel's GSO frames
#   to B-full are read straight into its buffers (direct counter), B-no-uso
#   gets UDP GSO ones copied out and segmented (direct fallback), B-none
#   gets them segmented the old way
#
#     netns offit<pid>                               default netns
#     +--------------------------------------+
#     | offtap0 198.18.0.1/24, 2001:2::1/64  |
#     |   AF_PACKET capture/inject, UDP      |
#     |   sockets (offload_itest runs here)  |
#     |     |                                |
#     |  vhostd --port tap -----------------+-- p0.sock  A  (198.18.0.3)
#     |         --port vhost-user ----------+-- p1.sock  B  (198.18.0.2)
#     +--------------------------------------+
#
# Usage: tests/integration/offload.sh [NAME-GLOB...]
#   BUILD=dir   where vhostd, vhostctl and tests/offload_itest are
#               (default: build)
# Builds nothing.  One line per test, then "N passed, M failed, K
# skipped"; exit 1 on any failure.  The TAP test needs root (netns):
# without root it is skipped; as root, a netns that cannot be made fails.  Traffic stays on unix sockets and in the netns it creates.

set -u

TMP=$(mktemp -d /tmp/vhostd-off.XXXXXX)
NS=offit$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
OT=$BUILD/tests/offload_itest
MAC_A=02:0f:00:00:00:01
MAC_B=02:0f:00:00:00:02

for f in "$VHOSTD" "$OT"; do
	[ -x "$f" ] || { echo "missing $f (make O=$BUILD first)"; exit 2; }
done

# post_counters OUT: the COUNTER lines offload_itest printed, exactly;
# no port broke a virtio rule
post_counters() {
	local port field val p
	while read -r _ port field val; do
		check_ctr "$port" ".drops.$field" -eq "$val"
	done < <(grep '^COUNTER ' "$1")
	for p in $("$VHOSTCTL" --json --ctl "$TMP/ctl" stats | jq -r '.ports[].name'); do
		check_ctr "$p" '.violations' -eq 0
	done
}

# vdrv_case NAME SCENARIO NPORTS [VHOSTD-ARGS...]
vdrv_case() {
	local name=$1 sc=$2 n=$3 out=$TMP/$1.out i socks=()
	shift 3
	wanted "$name" || return 0
	ERR=
	if ! start_vhostd -- "$n" "$@"; then
		stop_vhostd
		result "$name" 1 "vhostd did not start"
		return
	fi
	for i in $(seq 0 $((n - 1))); do socks+=("$TMP/p$i.sock"); done
	timeout 300 "$OT" "$sc" "${socks[@]}" >"$out" 2>&1 ||
		ERR="$(grep -c '^FAIL' "$out") case(s) failed"
	post_counters "$out"
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result "$name" "$([ -z "$ERR" ] && echo 0 || echo 1)" \
		"${ERR:-$(tail -n 1 "$out")}" "$out"
	[ -n "${OFFLOAD_VERBOSE:-}" ] && sed 's/^/    /' "$out"
}

vdrv_case offload-matrix matrix 10
vdrv_case offload-matrix-workers-4 matrix 10 --workers 4
vdrv_case offload-negative negative 5
vdrv_case offload-fuzz fuzz 3

# The checker checks: with every received frame corrupted in one way
# (checksums fixed up again, so only the semantic checks can see it), every
# delivery the corruption applies to must fail its checks and every other
# one must pass.  offload_itest counts them itself ("selftest KIND: caught
# N of M mutated deliveries") and exits 0 only if it caught all M; a
# timeout, a crash or a setup failure is a non-zero exit and fails here.
for m in payload ipid seq fin cwr ttl csum csum-start; do
	name=offload-selftest-$m
	wanted "$name" || continue
	ERR=
	out=$TMP/$name.out
	if start_vhostd -- 10; then
		socks=()
		for i in $(seq 0 9); do socks+=("$TMP/p$i.sock"); done
		OT_MUTATE=$m timeout 300 "$OT" matrix "${socks[@]}" \
			>"$out" 2>&1 || ERR="exit status $?: $(grep -m1 '^FAIL' "$out")"
		sum=$(grep "^selftest $m: caught" "$out")
		[[ $sum =~ caught\ ([0-9]+)\ of\ ([0-9]+) ]] &&
			[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] &&
			[ "${BASH_REMATCH[2]}" -gt 0 ] ||
			ERR="${ERR:+$ERR; }${sum:-no selftest line}"
	else
		ERR="vhostd did not start"
	fi
	stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
	result "$name" "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-$sum}" "$out"
done

# ---- TAP in a network namespace ------------------------------------------------

if wanted offload-tap; then
	if ! netns_setup ipv6; then
		no_netns offload-tap
	else
		ERR=
		out=$TMP/tap.out
		start_vhostd ip netns exec "$NS" -- 2 \
			--port tap,ifname=offtap0,name=tap0 || ERR="no start"
		for i in $(seq 100); do
			ip -n "$NS" link show offtap0 >/dev/null 2>&1 && break
			sleep 0.05
		done
		{
			ip -n "$NS" addr add 198.18.0.1/24 dev offtap0 &&
			ip -n "$NS" addr add 2001:2::1/64 dev offtap0 nodad &&
			ip -n "$NS" link set offtap0 up &&
			ip -n "$NS" neigh replace 198.18.0.2 lladdr $MAC_B \
				dev offtap0 nud permanent &&
			ip -n "$NS" neigh replace 198.18.0.3 lladdr $MAC_A \
				dev offtap0 nud permanent &&
			ip -n "$NS" neigh replace 2001:2::2 lladdr $MAC_B \
				dev offtap0 nud permanent &&
			ip -n "$NS" neigh replace 2001:2::3 lladdr $MAC_A \
				dev offtap0 nud permanent
		} || ERR="cannot configure offtap0"
		if [ -z "$ERR" ]; then
			timeout 120 ip netns exec "$NS" "$OT" tap offtap0 \
				"$TMP/p0.sock" "$TMP/p1.sock" >"$out" 2>&1 ||
				ERR="$(grep -c '^FAIL' "$out") case(s) failed"
			post_counters "$out"
			# GSO frames from the kernel crossed the TAP whole
			# (12 of them, plus a little ND/RST noise): had the
			# kernel segmented, this would be in the hundreds.
			check_ctr tap0 '.rx_packets' -lt 40
			# B-full announced itself first: the kernel's frames
			# to it (2 UDP GSO sends, 4 injected GSO frames) were
			# read straight into its buffers, 64 KiB ones whole;
			# so were B-no-uso's TCP ones (3), while its 3 UDP GSO
			# frames were copied out and segmented.  B-none (no
			# GUEST_* offloads) is never steered to a queue of its
			# own: its segments come the old way.
			check_ctr vu1 '.direct.packets' -ge 9
			check_ctr tap0 '.direct.fallback.offload' -eq 3
			[ -n "${OFFLOAD_VERBOSE:-}" ] && echo "    tap0 rx_packets $(ctr tap0 .rx_packets)"
		fi
		stop_vhostd || ERR="${ERR:+$ERR; }vhostd died or exited uncleanly"
		result offload-tap "$([ -z "$ERR" ] && echo 0 || echo 1)" \
			"${ERR:-$(tail -n 1 "$out")}" "$out"
		[ -n "${OFFLOAD_VERBOSE:-}" ] && sed 's/^/    /' "$out"
	fi
fi

it_summary
