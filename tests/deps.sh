#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/deps.sh - install the Debian packages vhostd's build and tests need.
# Idempotent: does nothing when everything is already there.
set -euo pipefail

PKGS=(build-essential clang libcmocka-dev libbpf-dev libxdp-dev libcap-dev libseccomp-dev libpcap-dev libsystemd-dev cppcheck
      libmicrohttpd-dev
      qemu-system-x86 busybox-static iperf3 iperf iputils-ping iproute2
      cpio kmod socat procps psmisc jq ethtool tcpdump python3 dpdk-dev
      sockperf python3-matplotlib
      openvswitch-switch libvirt-daemon-system libvirt-clients
      libvirt-daemon-driver-qemu
      debhelper dpkg-dev lintian man-db systemd systemd-container
      curl prometheus)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# No package may start a daemon of its own here: openvswitch-switch's
	# postinst would start a system OVS in the default namespace (the
	# tests start theirs in a namespace of their own, tests/integration/
	# ovs.sh), libvirt-daemon-system's a libvirtd that autostarts its
	# "default" network, a bridge with NAT rules on the host
	# (tests/guest/libvirt.sh starts its own libvirtd, in namespaces),
	# prometheus's a server on :9090 (the tests want promtool alone,
	# tests/integration/metrics.sh).  invoke-rc.d and deb-systemd-invoke ask policy-rc.d; 101
	# is "action not allowed".  One already there (a container's) stays.
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\n# tests/deps.sh, during apt-get install\nexit 101\n' \
			>/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		trap 'rm -f /usr/sbin/policy-rc.d' EXIT
	fi
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
