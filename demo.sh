#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# demo.sh - vhostd switching two real QEMU guests and the host, end to end.
#
#   netns vhostd-demo-PID (nothing touches the machine's own network)
#   +------------------------------------------------------------------+
#   |  vh0 198.18.0.1/24  <- "the host", a TAP port of vhostd          |
#   |   |                                                              |
#   |  vhostd --port vhost-user,path=vm1.sock  --port tap,ifname=vh0   |
#   |         --port vhost-user,path=vm2.sock  --ctl ctl.sock          |
#   |     | vhost-user                     | vhost-user                |
#   |  QEMU vm1 (virtio-net)            QEMU vm2 (virtio-net)          |
#   |  eth0 198.18.0.11/24              eth0 198.18.0.12/24            |
#   +------------------------------------------------------------------+
#
# Usage (root, Debian 12):  ./demo.sh
# Installs what it needs (tests/guest/setup.sh: QEMU, busybox, iperf3, a
# Debian cloud kernel), builds vhostd with make, runs the demo, and removes
# everything it created on exit.  Environment: BUILD (make output directory,
# default build), VHOSTD (binary, default $BUILD/vhostd), SKIP_BUILD=1,
# DEMO_SECONDS (iperf3 duration, default 5).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${BUILD:-build}
VHOSTD=${VHOSTD:-$ROOT/$BUILD/vhostd}
SECS=${DEMO_SECONDS:-5}

[ "$(id -u)" = 0 ] || { echo "demo.sh: run as root (netns, tap, apt-get)" >&2; exit 1; }

bold() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
show() { printf '\033[36m%s$ %s\033[0m\n' "$1" "$2"; }

bold "Installing guest image and tools (tests/guest/setup.sh)"
"$ROOT/tests/guest/setup.sh"
if [ "${SKIP_BUILD:-0}" != 1 ]; then
	bold "Building vhostd (make O=$BUILD)"
	# The build's libraries (Makefile DAEMON_LIBS): libbpf, libxdp (the
	# afxdp port), libcap, libseccomp, with their headers.
	need=0
	command -v cc >/dev/null || need=1
	for h in bpf/libbpf.h xdp/xsk.h sys/capability.h seccomp.h; do
		[ -e "/usr/include/$h" ] || need=1
	done
	if [ $need = 1 ]; then
		pkgs=(gcc make libc6-dev libbpf-dev libxdp-dev libcap-dev libseccomp-dev libpcap-dev libsystemd-dev)
		apt-get install -y -q --no-install-recommends "${pkgs[@]}" || {
			apt-get update -q
			apt-get install -y -q --no-install-recommends "${pkgs[@]}"
		}
	fi
	make -C "$ROOT" O="$BUILD" -j"$(nproc)" "$BUILD/vhostd" "$BUILD/vhostctl" >/dev/null
fi
[ -x "$VHOSTD" ] || { echo "demo.sh: no vhostd at $VHOSTD" >&2; exit 1; }

. "$ROOT/tests/guest/lib.sh"
NS=vhostd-demo-$$
NS_MADE=0
VHOSTD_PID=
VG_DIR=$(mktemp -d /tmp/vhostd-demo.XXXXXX)

cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	bold "Cleaning up"
	vg_stop_all
	if [ -n "$VHOSTD_PID" ]; then
		vg_kill_pid "$VHOSTD_PID" 30
		wait "$VHOSTD_PID" 2>/dev/null || true
	fi
	[ $NS_MADE = 1 ] && ip netns del "$NS" 2>/dev/null
	if [ $rc != 0 ]; then
		echo "demo failed (rc=$rc); vhostd log:" >&2
		tail -n 30 "$VG_DIR/vhostd.log" >&2 2>/dev/null || true
	fi
	rm -rf "$VG_DIR"
	echo "removed netns $NS, guests, vhostd and $VG_DIR"
	exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

alive() { kill -0 "$VHOSTD_PID" 2>/dev/null || vg_die "vhostd exited (log: $VG_DIR/vhostd.log)"; }
wait_for() {	# wait_for TIMEOUT DESC CMD...
	local end=$((SECONDS + $1)) desc=$2; shift 2
	until "$@"; do
		alive
		[ $SECONDS -lt $end ] || vg_die "timed out waiting for $desc"
		sleep 0.1
	done
}
# in_ns / in_vm: show a command, then run it.
in_ns() { show "host" "$*"; ip netns exec "$NS" "$@"; }
in_vm() { show "$1" "$2"; vg_run "$1" "$3" "$2"; }
# in_ns_iperf ARGS...: iperf3 from the host; a daemonised iperf3 server
#   re-opens its listening socket after each test, and a client that comes
#   in that moment is refused: try again, up to 3 times
in_ns_iperf() {
	local i
	show "host" "iperf3 $*"
	for i in 1 2 3; do
		ip netns exec "$NS" iperf3 "$@" 2>"$VG_DIR/iperf.err" && return 0
		grep -q 'unable to connect' "$VG_DIR/iperf.err" || break
		sleep 1
	done
	cat "$VG_DIR/iperf.err" >&2
	return 1
}

bold "Starting vhostd in network namespace $NS"
ip netns add "$NS"
NS_MADE=1
ip -n "$NS" link set lo up
show "host" "vhostd --port vhost-user,path=vm1.sock,name=vm1 --port vhost-user,path=vm2.sock,name=vm2 --port tap,ifname=vh0,name=host --ctl ctl.sock"
ip netns exec "$NS" "$VHOSTD" \
	--port "vhost-user,path=$VG_DIR/vm1.sock,name=vm1" \
	--port "vhost-user,path=$VG_DIR/vm2.sock,name=vm2" \
	--port "tap,ifname=vh0,name=host" \
	--ctl "$VG_DIR/ctl.sock" </dev/null >"$VG_DIR/vhostd.log" 2>&1 &
VHOSTD_PID=$!
wait_for 10 "vhostd sockets" test -S "$VG_DIR/vm2.sock"
have_vh0() { ip -n "$NS" link show vh0 >/dev/null 2>&1; }
wait_for 10 "tap vh0" have_vh0
ip -n "$NS" addr add 198.18.0.1/24 dev vh0
ip -n "$NS" link set vh0 up
in_ns ip -br addr show dev vh0

bold "Booting two QEMU guests on vhost-user (TCG, ~5 s)"
vg_boot vm1 --ip 198.18.0.11/24 --mac 52:54:00:18:00:11 --vhost "$VG_DIR/vm1.sock" --netns "$NS"
vg_boot vm2 --ip 198.18.0.12/24 --mac 52:54:00:18:00:12 --vhost "$VG_DIR/vm2.sock" --netns "$NS"
vg_wait_ready vm1 || vg_die "vm1 did not boot"
vg_wait_ready vm2 || vg_die "vm2 did not boot"
in_vm vm1 "ip addr show dev eth0" 10

bold "Guest to guest: ping"
in_vm vm1 "/usr/bin/ping -c 4 -i 0.2 198.18.0.12" 30
in_vm vm2 "/usr/bin/ping -c 4 -i 0.2 198.18.0.11" 30

bold "Host to guest: ping"
in_ns ping -c 4 -i 0.2 198.18.0.11

bold "Guest to guest: iperf3 vm1 -> vm2 (${SECS} s)"
vg_run vm2 10 "/usr/bin/iperf3 -s -D" >/dev/null
vg_run vm1 10 "/usr/bin/iperf3 -s -D" >/dev/null
in_vm vm1 "/usr/bin/iperf3 -c 198.18.0.12 -t $SECS -f g" $((SECS + 60))

bold "Host to guest: iperf3 host -> vm1 (${SECS} s)"
in_ns_iperf -c 198.18.0.11 -t "$SECS" -f g
bold "Guest to host: iperf3 vm1 -> host (${SECS} s, reverse)"
in_ns_iperf -c 198.18.0.11 -t "$SECS" -f g -R

VHOSTCTL=$(dirname "$VHOSTD")/vhostctl
if [ -x "$VHOSTCTL" ]; then
	bold "Port counters (vhostctl ports)"
	show "host" "vhostctl --ctl ctl.sock ports"
	timeout 10 "$VHOSTCTL" --ctl "$VG_DIR/ctl.sock" ports || true
fi

alive
bold "vhostd is still running (pid $VHOSTD_PID); its log:"
tail -n 15 "$VG_DIR/vhostd.log" || true
bold "Demo done"
