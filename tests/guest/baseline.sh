#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/guest/baseline.sh - reference numbers: two guests on QEMU's own
# virtio-net + TAP + a Linux bridge (no vhostd involved).
#
#   netns vhg-base-PID
#   +---------------------------------------------------------------+
#   |            br0  198.18.0.1/24  (the "host" end)               |
#   |           /                \                                  |
#   |        tap1                 tap2                              |
#   |          |                    |                               |
#   |   QEMU g1 virtio-net    QEMU g2 virtio-net   (vhost=off, TCG) |
#   |   eth0 198.18.0.11/24   eth0 198.18.0.12/24                   |
#   +---------------------------------------------------------------+
#
# Runs the suite of lib.sh (ping g1<->g2, host<->g1, iperf3 g1->g2 -t,
# g2->g1 -n 100M, host->g1, g1->host) and prints a table.
# Environment: VG_DURATION (10), VG_REPS (1), VG_RESULTS (file for
# compare.sh), KEEP=1 keeps the work directory.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$HERE/lib.sh"

[ "$(id -u)" = 0 ] || vg_die "needs root (netns, tap)"
vg_ensure_image

NS=vhg-base-$$
NS_MADE=0
VG_DIR=$(mktemp -d /tmp/vhg-base.XXXXXX)
trap vg_cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$NS"
NS_MADE=1
ip -n "$NS" link set lo up
ip -n "$NS" link add br0 type bridge
ip -n "$NS" addr add 198.18.0.1/24 dev br0
for t in tap1 tap2; do
	ip -n "$NS" tuntap add dev $t mode tap
	ip -n "$NS" link set $t master br0
	ip -n "$NS" link set $t up
done
ip -n "$NS" link set br0 up

vg_boot g1 --ip 198.18.0.11/24 --mac 52:54:00:18:00:11 --tap tap1 --netns "$NS"
vg_boot g2 --ip 198.18.0.12/24 --mac 52:54:00:18:00:12 --tap tap2 --netns "$NS"
vg_wait_ready g1 || vg_die "g1 did not boot"
vg_wait_ready g2 || vg_die "g2 did not boot"

rc=0
vg_suite "$NS" 198.18.0.1 g1 198.18.0.11 g2 198.18.0.12 || rc=1
echo "== baseline: QEMU virtio-net + tap + Linux bridge ($(date -u +%F), TCG)"
vg_print_table
[ $rc = 0 ] && echo "PASS baseline" || echo "FAIL baseline ($VG_FAILS failed)"
exit $rc
