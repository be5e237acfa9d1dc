#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/run.sh - the one test command: installs what it needs, builds with
# -Werror, then runs every suite and ends with "N passed, M failed, K
# skipped".
#
#   sudo ./tests/run.sh            everything (about 20 minutes on 2 cores)
#   SKIP_GUEST=1 ./tests/run.sh    no QEMU guests (reported as skipped)
#   FUZZ_SECONDS=N                 per fuzz harness (default 30)
#   SOAK_SECONDS=N                 the soak step (default 30)
#
# Counting.  Each step runs with TEST_RESULTS pointing at a file of its
# own; the suites that have tests of their own (integration, ctl,
# vhostctl, portctl, lifecycle, privilege, l2, metrics, hostile, mq, datapath,
# soak, ovs, mutants, fuzz, tsan, guest-e2e, guest-migrate) append one
# "PASS|FAIL|SKIP name detail" line per test there, and the summary counts those lines.  A step
# without such lines counts as one test, by its exit status; cmocka's
# "[  SKIPPED ]" lines in a step's log count as skips.  A step that exits
# non-zero without a FAIL line of its own (it crashed or stopped early)
# is one failure more, so tests it never reached cannot vanish.
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
LOGDIR=${LOGDIR:-$ROOT/build/test-logs}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
mkdir -p "$LOGDIR"

passed=0
failed=0
skipped=0
failures=()
skips=()

# step NAME CMD... - run one suite, log to $LOGDIR/NAME.log, count it
step() {
	local name=$1 res=$LOGDIR/$1.results t0=$SECONDS rc p f s l
	shift
	echo "=== $name"
	rm -f "$res"
	: >"$res"
	TEST_RESULTS=$res "$@" >"$LOGDIR/$name.log" 2>&1
	rc=$?
	grep -E '^\[  SKIPPED \] ' "$LOGDIR/$name.log" |
		sed "s/^\[  SKIPPED \] /SKIP /; s/\$/ (cmocka)/" >>"$res"
	if [ $rc != 0 ] && ! grep -q '^FAIL ' "$res"; then
		echo "FAIL $name exit status $rc" >>"$res"
	fi
	p=$(grep -c '^PASS ' "$res")
	f=$(grep -c '^FAIL ' "$res")
	s=$(grep -c '^SKIP ' "$res")
	[ $((p + f + s)) = 0 ] && p=1	# a step with no tests of its own
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	while IFS= read -r l; do
		skips+=("$name: ${l#SKIP }")
	done < <(grep '^SKIP ' "$res")
	if [ "$f" = 0 ] && [ $rc = 0 ]; then
		echo "PASS $name ($((SECONDS - t0)) s, $p passed, $s skipped)"
		# The mutants' kills are the point: each is shown.
		[ "$name" = mutants ] && sed 's/^/    /' "$res"
	else
		failures+=("$name")
		echo "FAIL $name ($((SECONDS - t0)) s, $f failed) -- failures and the last lines of $LOGDIR/$name.log:"
		grep '^FAIL ' "$res" | head -n 20 | sed 's/^/    /'
		tail -n 30 "$LOGDIR/$name.log" | sed 's/^/    | /'
	fi
}

# skip_step NAME WHY - a step deliberately left out: counted as skipped
skip_step() {
	echo "=== $1"
	echo "SKIP $1 ($2)"
	skipped=$((skipped + 1))
	skips+=("$1: $2")
}

if [ "$(id -u)" != 0 ]; then
	echo "tests/run.sh: needs root (netns, TAP, QEMU)" >&2
	exit 2
fi

step deps tests/deps.sh
step build make -j2 WERROR=1
step unit make -j2 WERROR=1 check
step unit-asan make -j2 O=build/asan CC=clang \
	CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
	LDFLAGS="-fsanitize=address,undefined" all check
# The kernel as the reference for vhostd's software segmentation.
step gso-kernel-ref tests/integration/gso_kernel_ref.sh build/tests/test_gso
step analyze tests/analyze.sh
# No #include in src/ points up or sideways (tests/layers.txt).
step layers tests/layers.sh
step fuzz tests/fuzz/run.sh "$FUZZ_SECONDS"
# Integration tests drive the sanitizer build of vhostd: a memory error a
# hostile front end provokes fails the run instead of hiding.
# ... as nobody, with the seccomp filter on (no TAP test needs more than
# what vhostd keeps: see doc/security.md, "Least privilege").
step integration env BUILD=build/asan VHOSTD_USER=nobody tests/integration/run.sh
step ctl env BUILD=build/asan VHOSTD_USER=nobody tests/integration/ctl.sh
# vhostctl for people: tables, --json, show, top, every command's errors.
step vhostctl env BUILD=build/asan VHOSTD_USER=nobody tests/integration/vhostctl.sh
# Ports added and removed at run time, under the filter as nobody.
step portctl env BUILD=build/asan VHOSTD_USER=nobody tests/integration/portctl.sh
# --config FILE, vhostctl reload and SIGHUP: ports of the file added,
# removed and re-created under traffic, refusals that apply nothing.
step reload env BUILD=build/asan VHOSTD_USER=nobody tests/integration/reload.sh
# Rate limits: rx-rate by back-pressure, tx-rate by counted drops, two
# limited guests at once, vhostctl set; each rate within 5 % over 10 s.
step ratelimit env BUILD=build/asan VHOSTD_USER=nobody tests/integration/ratelimit.sh
# --log journal|syslog|auto against listeners of the test's own (in a
# mount namespace), and the log level changed at run time.
step log env BUILD=build/asan VHOSTD_USER=nobody tests/integration/log.sh
step lifecycle env BUILD=build/asan VHOSTD_USER=nobody tests/integration/lifecycle.sh
step privilege env BUILD=build/asan tests/integration/privilege.sh
step l2 env BUILD=build/asan VHOSTD_USER=nobody tests/integration/l2.sh
# The dgram port type: two vhostd linked over UDP on 127.0.0.1, and a
# unix one added at run time under the filter, fed hostile datagrams.
step dgram env BUILD=build/asan VHOSTD_USER=nobody tests/integration/dgram.sh
# The vxlan port type against Linux's vxlan devices, in namespaces: ping,
# iperf3, payloads checked, the underlay captured, hostile datagrams.
step vxlan env BUILD=build/asan VHOSTD_USER=nobody tests/integration/vxlan.sh
# ... and against Open vSwitch's VXLAN (userspace datapath, its daemons
# started in a namespace of the test's own): ping, iperf3, payloads,
# the underlay captured, both sides' counters.
step ovs env BUILD=build/asan VHOSTD_USER=nobody tests/integration/ovs.sh
# Bridge domains (vlan=), isolated ports and tagged=, five TAP ports each
# moved into a namespace of its own: every frame each endpoint receives
# counted, fdb add/del, domains, the per-domain metrics.
step vlan env BUILD=build/asan VHOSTD_USER=nobody tests/integration/vlan.sh
# The afxdp port on a veth into a namespace: generic and native XDP,
# traffic checked, the program gone after an exit and after SIGKILL.
step afxdp env BUILD=build/asan VHOSTD_USER=nobody tests/integration/afxdp.sh
# vhostctl capture: pcap and pcapng read back by tcpdump, filters run in
# vhostd, offload metadata, a stalled reader's drops counted, errors.
step capture env BUILD=build/asan VHOSTD_USER=nobody tests/integration/capture.sh
# --metrics: the exposition over HTTP (promtool, curl), 404/405, silent
# clients, IPv6, bad specs; nothing listens without it.
step metrics env BUILD=build/asan VHOSTD_USER=nobody tests/integration/metrics.sh
step hostile env BUILD=build/asan VHOSTD_USER=nobody tests/integration/hostile.sh
# Multiqueue, driven by DPDK's virtio-user (testpmd).
step mq env BUILD=build/asan VHOSTD_USER=nobody tests/integration/mq.sh
step datapath tests/integration/datapath.sh
# Mixed traffic, a MAC spray, storms and port churn; every byte checked.
step soak tests/soak/run.sh "${SOAK_SECONDS:-30}"
# The guards that matter most, removed one at a time: the tests that
# claim them must fail (tests/mutants/README.md).
step mutants tests/mutants/run.sh --ci
# ThreadSanitizer over the unit and integration suites (its own build).
step tsan tests/tsan.sh
# make install/uninstall, the systemd unit (verify, security score), the
# .deb built, lintian, installed, run as the unit runs it and under
# systemd in systemd-nspawn, purged.
step package tests/package.sh
if [ -z "${SKIP_GUEST:-}" ]; then
	step guest-setup tests/guest/setup.sh
	step guest-e2e tests/guest/e2e.sh
	# Live migration with a TCP stream through it, against the ASan
	# vhostd: port to port, vhostd to vhostd, and QEMU + TAP beside.
	step guest-migrate env VHOSTD=build/asan/vhostd MIG_RUNS=1 \
		tests/guest/migrate.sh
	# Two guests on two vhostd joined only by their vxlan ports.
	step guest-vxlan env VHOSTD=build/asan/vhostd tests/guest/vxlan.sh
	# The same over afxdp carriers (via=): each vhostd owns its
	# underlay address, ARP between them.
	step guest-vxlan-via env VHOSTD=build/asan/vhostd VX_VIA=1 \
		tests/guest/vxlan.sh
	# And over TAP carriers: each vhostd behind its host's kernel, the
	# guests' TSO frames whole across (UDP tunnel GSO, Linux 6.17+).
	step guest-vxlan-tap env VHOSTD=build/asan/vhostd VX_VIA=tap \
		tests/guest/vxlan.sh
	# A guest's own 802.1Q devices on a trunk port, three access ports.
	step guest-vlan env VHOSTD=build/asan/vhostd tests/guest/vlan.sh
	# README.md's libvirt setup, its vhostd line and domain XML as
	# written, run by a libvirtd of the test's own (in its namespaces).
	step guest-libvirt env VHOSTD=build/asan/vhostd tests/guest/libvirt.sh
	# The seeds' experiments, bench/guests --quick: every NIC
	# configuration produced every figure (not their values, which a
	# CI machine cannot judge), and the report's parsers on fixed texts.
	step guest-bench bash -c 'bench/guests --selftest &&
		rm -rf build/guest-bench &&
		bench/guests --quick --out build/guest-bench &&
		bench/guests --check build/guest-bench/run.json'
else
	skip_step guest-setup "SKIP_GUEST set"
	skip_step guest-e2e "SKIP_GUEST set"
	skip_step guest-migrate "SKIP_GUEST set"
	skip_step guest-vxlan "SKIP_GUEST set"
	skip_step guest-vxlan-via "SKIP_GUEST set"
	skip_step guest-vxlan-tap "SKIP_GUEST set"
	skip_step guest-vlan "SKIP_GUEST set"
	skip_step guest-libvirt "SKIP_GUEST set"
	skip_step guest-bench "SKIP_GUEST set"
fi

echo
[ ${#failures[@]} -gt 0 ] && echo "failed steps: ${failures[*]}"
if [ ${#skips[@]} -gt 0 ]; then
	echo "skipped:"
	printf '    %s\n' "${skips[@]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
