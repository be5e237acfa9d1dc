#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/deps.sh - install the Debian packages vhostd's build and tests need.
# Idempotent: does nothing when everything is already there.
set -euo pipefail

PKGS=(build-essential clang libcmocka-dev libbpf-dev libxdp-dev libcap-dev libseccomp-dev cppcheck
      qemu-system-x86 busybox-static iperf3 iperf iputils-ping iproute2
      cpio kmod socat procps psmisc jq ethtool tcpdump python3 dpdk-dev)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
