#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# gso_kernel_ref.sh - vhostd's software GSO against the Linux kernel's
#
#   netns gsoref-PID (IPv6 off: no stray traffic)
#
#   test_gso ---writev(vnet hdr + GSO frame)---> tap0 (vnet_hdr)
#      ^                                          |
#      |                                        br0 (no STP)
#      |                                          |
#   AF_PACKET <--- v1 <======== veth ========== v0  tso/uso/gso/tx-csum off:
#                                                   the kernel segments and
#                                                   checksums in software
#
# test_kernel_ref in tests/unit/test_gso/kernel.c writes each frame, segments it
# itself in full-checksum mode and demands byte-identical segments.
# Needs root and ethtool (tests/deps.sh installs it); tests/run.sh runs it
# as the gso-kernel-ref step.  Touches nothing outside its namespace.
#
#   tests/integration/gso_kernel_ref.sh [path/to/test_gso]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-build/tests/test_gso}
[ -x "$bin" ] || { echo "gso_kernel_ref: build $bin first" >&2; exit 2; }
command -v ethtool >/dev/null || { echo "gso_kernel_ref: needs ethtool" >&2; exit 2; }

ns=gsoref-$$
cleanup() { ip netns del "$ns" 2>/dev/null || true; }
trap cleanup EXIT
ip netns add "$ns"
nx() { ip netns exec "$ns" "$@"; }

nx sysctl -qw net.ipv6.conf.all.disable_ipv6=1
nx sysctl -qw net.ipv6.conf.default.disable_ipv6=1
nx ip tuntap add dev tap0 mode tap vnet_hdr
nx ip link add br0 type bridge stp_state 0 forward_delay 0
nx ip link add v0 type veth peer name v1
for l in tap0 br0 v0 v1; do nx ip link set "$l" mtu 9000; done
nx ip link set tap0 master br0
nx ip link set v0 master br0
# v0 takes no offloads: a GSO skb forwarded to it is segmented in software.
# Were one left on, the kernel would pass the frame whole and the test
# would compare nothing like what it claims: the features must read off.
nx ethtool -K v0 tx off tso off gso off tx-udp-segmentation off >/dev/null 2>&1 || true
feat=$(nx ethtool -k v0 | grep -E '^(tcp-segmentation-offload|tx-udp-segmentation|tx-checksumming):')
echo "$feat"
if grep -qv ': off' <<<"$feat" || [ "$(wc -l <<<"$feat")" != 3 ]; then
	echo "gso_kernel_ref: FAIL: cannot turn v0's offloads off"
	exit 1
fi
for l in tap0 br0 v0 v1; do nx ip link set "$l" up; done

log=$(mktemp)
trap 'cleanup; rm -f "$log"' EXIT
rc=0
GSO_KERNEL_REF="tap0 v1" nx "$bin" >"$log" 2>&1 || rc=$?
cat "$log"
if [ "$rc" != 0 ] || ! grep -q 'kernel reference: .* identical' "$log"; then
	echo "gso_kernel_ref: FAIL"
	exit 1
fi
echo "gso_kernel_ref: PASS"
