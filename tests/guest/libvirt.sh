#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/guest/libvirt.sh - README.md's libvirt setup, run by Debian's libvirtd
#
#   netns vhg-lv-PID + a private mount namespace (holder: a sleep of ours)
#   +----------------------------------------------------------------------+
#   |  /run               = DIR/run    (/run/vhostd, /run/libvirt)          |
#   |  /etc/libvirt       = DIR/etc    (this test's libvirtd.conf, qemu.conf)|
#   |  /var/lib/libvirt   = DIR/lib    (boot/vmlinuz, boot/initramfs.gz)    |
#   |  /var/log/libvirt   = DIR/log    (qemu/vm1.log, qemu/vm1-serial.log)  |
#   |  /var/cache/libvirt = DIR/cache                                       |
#   |                                                                      |
#   |  vh0 198.18.0.1/24 --tap-- vhostd (README's command line)            |
#   |                            /run/vhostd/vm1.sock libvirt-qemu 0600    |
#   |                              ^ vhost-user (allow-uid=libvirt-qemu)   |
#   |  libvirtd (ours) --> QEMU as libvirt-qemu, TCG, README's vm1.xml     |
#   |                       eth0 198.18.0.11/24, pings 198.18.0.1          |
#   +----------------------------------------------------------------------+
#
# The vhostd command line and the domain XML are taken from README.md's
# "### libvirt" section and run as they are written there: the private
# mount namespace gives them the paths they name (/run/vhostd,
# /var/lib/libvirt/boot, /var/log/libvirt/qemu) without touching the
# host's, hides any system libvirt's state and domains, and gives
# libvirtd an /etc/libvirt with no network to autostart.  libvirtd and
# vhostd are children of this script (no systemd), in the test's netns.
#
# Checks: QEMU runs as libvirt-qemu with the memfd shared, vectors=0 and
# erms off on its command line; the guest's console (libvirt's serial
# log file) shows its ping of vh0 without loss; the host pings the guest;
# vhostd's counters (vhostctl): vm1 up, one connection, frames both ways;
# nobody else gets in: a user other than libvirt-qemu is refused by the
# socket's mode, root (who passes any mode) by allow-uid (peer_refused);
# vhostd restarted under the domain: QEMU reconnects (<reconnect>), the
# host pings the guest again; then virsh destroy and undefine, libvirtd stopped, nothing left.
# SKIP only when libvirtd cannot start here at all.
#
# Environment: VHOSTD (default build/vhostd; vhostctl next to it), KEEP=1,
# README (default README.md).  With $TEST_RESULTS set, one PASS/FAIL/SKIP
# line.  Root; addresses 198.18.0.0/24 in the test's netns only.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"

README=${README:-$ROOT/README.md}
vg_need_vhostd "netns, mounts, libvirtd" libvirtd virsh jq nsenter unshare \
	setpriv socat
id libvirt-qemu >/dev/null 2>&1 || vg_die "no user libvirt-qemu (libvirt-daemon-system)"
vg_ensure_image

# result STATUS DETAIL: the one line for tests/run.sh
result() {
	echo "$1 guest-libvirt  $2"
	[ -n "${TEST_RESULTS:-}" ] && echo "$1 guest-libvirt $2" >>"$TEST_RESULTS"
	return 0
}
ERR=
fail() {
	ERR="${ERR:+$ERR; }$*"
	vg_log "FAIL: $*"
}

# ---- README.md's text ------------------------------------------------------

# readme_block LANG: the first ```LANG block of the "### libvirt" section
readme_block() {
	awk -v lang="$1" '
		/^### / { sec = ($0 == "### libvirt") }
		/^## / { sec = 0 }
		sec && !inb && $0 == "```" lang && !done { inb = 1; next }
		inb && /^```/ { inb = 0; done = 1 }
		inb { print }' "$README"
}
XML=$(readme_block xml)
SH=$(readme_block sh)
[ -n "$XML" ] || vg_die "no \`\`\`xml block in $README's ### libvirt section"
# The vhostd command: its line and the continuation lines after it.
VCMD=$(awk '/^vhostd / { on = 1 } on { print } on && !/\\$/ { exit }' <<<"$SH" |
	sed 's/\\$//; s/&[[:space:]]*$//' | tr -s ' \n' '  ')
read -r -a VARGS <<<"$VCMD"
[ "${VARGS[0]:-}" = vhostd ] || vg_die "no vhostd command line in $README's ### libvirt section"
VARGS=("${VARGS[@]:1}")
vg_log "README vhostd:${VCMD#vhostd}"
vm=$(sed -n 's:.*<name>\(.*\)</name>.*:\1:p' <<<"$XML" | head -n 1)
console=$(sed -n "s:.*<source path='\(/var/log/libvirt/[^']*\)'/>.*:\1:p" <<<"$XML" | head -n 1)
kernel=$(sed -n 's:.*<kernel>\(.*\)</kernel>.*:\1:p' <<<"$XML")
initrd=$(sed -n 's:.*<initrd>\(.*\)</initrd>.*:\1:p' <<<"$XML")
sock=$(sed -n "s:.*<source type='unix' path='\([^']*\)'.*:\1:p" <<<"$XML")
gip=$(sed -n 's:.*vh\.ip=\([0-9.]*\)/.*:\1:p' <<<"$XML")
hip=$(sed -n 's:.*vh\.ping=\([0-9.]*\).*:\1:p' <<<"$XML")
# vh0's address: README's "ip addr add" line.
haddr=$(sed -n 's:^ip addr add \([0-9./]*\) dev vh0.*:\1:p' <<<"$SH")
[ "${haddr%/*}" = "$hip" ] || vg_die "README: vh0 gets ${haddr:-no address}, the guest pings $hip"
for v in vm console kernel initrd sock gip hip; do
	[ -n "${!v}" ] || vg_die "README's domain XML: no $v found"
done
case "$kernel $initrd $console $sock" in
*/var/lib/libvirt/boot/*/var/lib/libvirt/boot/*/var/log/libvirt/*/run/vhostd/*) ;;
*) vg_die "README's XML paths moved: kernel $kernel initrd $initrd console $console socket $sock" ;;
esac

# ---- the namespaces ---------------------------------------------------------

NS=vhg-lv-$$
NS_MADE=0
VHOSTD_PID=
LIBVIRTD_PID=
HOLDER=
VG_DIR=$(mktemp -d /tmp/vhg-lv.XXXXXX)
VLOG=$VG_DIR/vhostd.log
LVLOG=$VG_DIR/libvirtd.out
DEFINED=0

# nsx CMD...: CMD in the test's netns and mount namespace.  A daemon is
# started with nsenter itself, not nsx: nsenter execs CMD without
# forking, so $! is the daemon's own PID (a function sent to the
# background would be a subshell of its own).
nsx() { nsenter -t "$HOLDER" -m -n -- "$@"; }
# wait_until TIMEOUT CMD...: poll CMD until true; 1 after TIMEOUT seconds
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}
lv_virsh() { nsx timeout 60 virsh -q -c qemu:///system "$@"; }
# ctl_stats: vhostd's counters as JSON
ctl_stats() { nsx timeout 10 "$VHOSTCTL" --json --ctl /run/vhostd/ctl.sock stats; }
qemu_pid() { cat "$VG_DIR/run/libvirt/qemu/$vm.pid" 2>/dev/null; }
have_qemu_pid() { [ -s "$VG_DIR/run/libvirt/qemu/$vm.pid" ]; }

# lv_teardown: the domain, then libvirtd, then whatever is still in our
#   mount namespace (only processes this test or its libvirtd started
#   can be there).  Idempotent; the rest goes in vg_cleanup.
lv_teardown() {
	local p q mnt
	if [ -n "$LIBVIRTD_PID" ] && kill -0 "$LIBVIRTD_PID" 2>/dev/null; then
		if [ $DEFINED = 1 ]; then
			lv_virsh destroy "$vm" >/dev/null 2>&1 || true
			lv_virsh undefine "$vm" >/dev/null 2>&1 || true
			DEFINED=0
		fi
		vg_kill_pid "$LIBVIRTD_PID" 150
		wait "$LIBVIRTD_PID" 2>/dev/null || true
	fi
	LIBVIRTD_PID=
	q=$(qemu_pid) || true
	[ -n "$q" ] && vg_kill_pid "$q" 50
	if [ -n "$HOLDER" ] && mnt=$(readlink "/proc/$HOLDER/ns/mnt"); then
		for p in /proc/[0-9]*; do
			p=${p#/proc/}
			[ "$p" = "$HOLDER" ] || [ "$p" = "${VHOSTD_PID:-x}" ] && continue
			[ "$(readlink "/proc/$p/ns/mnt" 2>/dev/null)" = "$mnt" ] || continue
			vg_log "left in the namespace: pid $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
			vg_kill_pid "$p" 20
		done
	fi
}
lv_cleanup() {
	local rc=$?
	set +e
	lv_teardown
	if [ $rc != 0 ]; then
		{
			echo "---- libvirtd (tail, full: $LVLOG, $VG_DIR/log/libvirtd.log) ----"
			tail -n 15 "$LVLOG" "$VG_DIR/log/libvirtd.log" 2>/dev/null
			echo "---- QEMU log (tail, full: $VG_DIR/log/qemu/$vm.log) ----"
			tail -n 10 "$VG_DIR/log/qemu/$vm.log" 2>/dev/null
			echo "---- guest console (tail) ----"
			tail -n 20 "$VG_DIR/log${console#/var/log/libvirt}" 2>/dev/null | tr -d '\r'
		} >&2
	fi
	(exit $rc)
	vg_cleanup
}
trap lv_cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$NS"
NS_MADE=1
ip -n "$NS" link set lo up
mkdir -p "$VG_DIR"/{run/vhostd,etc/qemu,lib/boot,log/qemu,cache}
chmod 755 "$VG_DIR"/{run,run/vhostd,etc,lib,lib/boot,log,log/qemu,cache}
cp "$VG_CACHE/vmlinuz" "$VG_DIR/lib${kernel#/var/lib/libvirt}"
cp "$VG_CACHE/initramfs.gz" "$VG_DIR/lib${initrd#/var/lib/libvirt}"
printf '%s\n' "$XML" >"$VG_DIR/$vm.xml"
# Only root may use this libvirtd, through its own socket; no polkit
# (no D-Bus here).  Warnings and errors to the log.
cat >"$VG_DIR/etc/libvirtd.conf" <<'EOF'
# tests/guest/libvirt.sh
auth_unix_ro = "none"
auth_unix_rw = "none"
unix_sock_ro_perms = "0700"
unix_sock_rw_perms = "0700"
log_outputs = "3:file:/var/log/libvirt/libvirtd.log"
EOF
# Debian's defaults (QEMU as libvirt-qemu, DAC labels, a /dev namespace
# per guest) but for two: QEMU's stderr to a file (no virtlogd to
# start), and no cgroups (none is mounted inside ip netns exec's /sys).
cat >"$VG_DIR/etc/qemu.conf" <<'EOF'
# tests/guest/libvirt.sh
stdio_handler = "file"
cgroup_controllers = [ ]
EOF

# The holder: unshare makes the mount namespace, private, and execs sleep.
ip netns exec "$NS" unshare --mount --propagation private sleep 100000 \
	</dev/null >/dev/null 2>&1 &
HOLDER=$!
VG_EXTRA_PIDS+=("$HOLDER")
holder_ready() { [ "$(cat "/proc/$HOLDER/comm" 2>/dev/null)" = sleep ]; }
end=$((SECONDS + 10))
until holder_ready; do
	[ $SECONDS -lt $end ] || vg_die "the namespace holder did not start"
	sleep 0.05
done
for m in run:/run etc:/etc/libvirt lib:/var/lib/libvirt log:/var/log/libvirt \
	 cache:/var/cache/libvirt; do
	nsx mount --bind "$VG_DIR/${m%%:*}" "${m#*:}" || vg_die "mount --bind $VG_DIR/${m%%:*} ${m#*:}"
done

# ---- vhostd, as README.md has it ------------------------------------------

# start_vhostd: README's vhostd, vh0 addressed and up (again after a
#   restart: the TAP goes with the process)
have_vh0() { ip -n "$NS" link show vh0 >/dev/null 2>&1; }
start_vhostd() {
	nsenter -t "$HOLDER" -m -n -- "$VHOSTD" "${VARGS[@]}" </dev/null >>"$VLOG" 2>&1 &
	VHOSTD_PID=$!
	vg_log "vhostd pid $VHOSTD_PID"
	vg_wait_for 10 "$sock" test -S "$VG_DIR$sock"
	vg_wait_for 10 "tap vh0" have_vh0
	ip -n "$NS" addr add "$haddr" dev vh0
	ip -n "$NS" link set vh0 up
}
start_vhostd
perm=$(stat -c '%U:%G %a' "$VG_DIR$sock")
vg_log "$sock: $perm"
[[ $perm == "libvirt-qemu:"*" 600" ]] || fail "socket $perm, not libvirt-qemu's alone"

# ---- libvirtd ----------------------------------------------------------------

# start_libvirtd: libvirtd in our namespaces, its QEMU capability cache
#   empty (it probes qemu-system-* as it starts)
start_libvirtd() {
	rm -rf "${VG_DIR:?}/cache/qemu"
	nsenter -t "$HOLDER" -m -n -- libvirtd --pid-file /run/libvirtd.pid \
		</dev/null >>"$LVLOG" 2>&1 &
	LIBVIRTD_PID=$!
	vg_log "libvirtd pid $LIBVIRTD_PID"
}
# stop_libvirtd: SIGTERM, up to 15 s; its exit status in LV_ST ("hung"
#   if it had to be killed; not a $(...) subshell, which cannot wait)
stop_libvirtd() {
	local st=hung
	kill -TERM "$LIBVIRTD_PID" 2>/dev/null
	for _ in $(seq 150); do
		kill -0 "$LIBVIRTD_PID" 2>/dev/null || { wait "$LIBVIRTD_PID" && st=0 || st=$?; break; }
		sleep 0.1
	done
	if [ "$st" = hung ]; then
		kill -KILL "$LIBVIRTD_PID" 2>/dev/null
		wait "$LIBVIRTD_PID" 2>/dev/null
	fi
	LIBVIRTD_PID=
	LV_ST=$st
}
# A probe of qemu-system-x86_64 that went wrong leaves libvirtd without
# an emulator for x86_64 ("Cannot find suitable emulator").  Seen here
# once in a dozen runs, QMP garbled on the probe's own socket ("QMP input
# member 'xeecute' is unexpected"): nothing of vhostd's or this test's.
# libvirtd is started once more, with an empty cache, and the result line
# says so; a second failure fails the test.
PROBE_FAIL='Failed to probe capabilities for /usr/bin/qemu-system-x86_64'
probe_failed() { grep -q "$PROBE_FAIL" "$VG_DIR/log/libvirtd.log" 2>/dev/null; }
RETRIED=
t0=$SECONDS
start_libvirtd
until lv_virsh version >"$VG_DIR/virsh-version" 2>&1; do
	if ! kill -0 "$LIBVIRTD_PID" 2>/dev/null; then
		wait "$LIBVIRTD_PID" && st=0 || st=$?
		LIBVIRTD_PID=
		why=$(cat "$LVLOG" "$VG_DIR/log/libvirtd.log" 2>/dev/null | grep ' error : ' | tail -n 1) || true
		why=${why#*error : }
		result SKIP "libvirtd cannot start here (exit status $st: ${why:-$(tail -n 1 "$LVLOG")})"
		exit 0
	fi
	if probe_failed; then
		why=$(grep -h "$PROBE_FAIL" "$VG_DIR/log/libvirtd.log" | tail -n 1)
		why=${why#*qemu-system-x86_64: }
		[ -z "$RETRIED" ] || vg_die "libvirtd's probe of QEMU failed twice: $why"
		RETRIED=" (libvirtd started twice: its first probe of QEMU failed: $why)"
		vg_log "libvirtd's probe of QEMU failed ($why): starting it again"
		stop_libvirtd
		mv "$VG_DIR/log/libvirtd.log" "$VG_DIR/log/libvirtd-1.log"
		start_libvirtd
	fi
	[ $((SECONDS - t0)) -lt 90 ] || vg_die "libvirtd not answering after 90 s"
	sleep 0.5
done
lvver=$(awk '/^Using library:/ { l = $3 " " $4 } /^Running hypervisor:/ { h = $3 " " $4 }
	END { print l ", " h }' "$VG_DIR/virsh-version")
vg_log "libvirtd up in $((SECONDS - t0)) s: $lvver"

# ---- the domain, as README.md has it ------------------------------------------

lv_virsh define "$VG_DIR/$vm.xml" >/dev/null || vg_die "virsh define failed"
DEFINED=1
lv_virsh start "$vm" >/dev/null || vg_die "virsh start failed"
vg_log "domain $vm started"
vg_wait_for 10 "QEMU's pid file" have_qemu_pid
qpid=$(qemu_pid)
quid=$(awk '/^Uid:/ { print $2 }' "/proc/$qpid/status")
[ "$quid" = "$(id -u libvirt-qemu)" ] || fail "QEMU (pid $qpid) runs as uid $quid, not libvirt-qemu"
qlog=$VG_DIR/log/qemu/$vm.log
for want in '"qom-type":"memory-backend-memfd","id":"pc.ram","share":true' \
	    '"vectors":0' '-cpu max,erms=off' '-accel tcg'; do
	grep -qF -- "$want" "$qlog" || fail "QEMU's command line lacks $want"
done

clog=$VG_DIR/log${console#/var/log/libvirt}
ping_done() { grep -q '^VH-PING-DONE' "$clog" 2>/dev/null; }
t1=$SECONDS
end=$((SECONDS + 90))
until ping_done; do
	[ -n "$(qemu_pid)" ] && kill -0 "$qpid" 2>/dev/null || vg_die "QEMU exited (guest console: $clog)"
	vg_vhostd_alive || vg_die "vhostd exited"
	[ $SECONDS -lt $end ] || vg_die "no VH-PING-DONE on the guest's console after 90 s"
	sleep 0.2
done
con=$(tr -d '\r' <"$clog")
vg_log "guest: $(grep -a '^VH-READY' <<<"$con")"
gping=$(sed -n 's/^VH-PING //p' <<<"$con")
avg=$(vg_ping_check "$gping" "$hip") && grep -q '^VH-PING-DONE rc=0' <<<"$con" ||
	fail "guest -> $hip on the console: $(grep -a 'packet loss\|VH-PING-DONE' <<<"$con" | tr '\n' ' ')"
vg_log "guest -> vh0 ($hip): 0% loss, avg ${avg:-?} ms, $((SECONDS - t1)) s after start"
out=$(ip netns exec "$NS" ping -c 5 -i 0.2 -w 20 "$gip" 2>&1) || true
havg=$(vg_ping_check "$out" "$gip") || fail "host -> guest $gip: $(grep -a 'packet loss' <<<"$out")"

# ---- vhostd's counters, and who may connect --------------------------------------

j=$(ctl_stats) || vg_die "vhostctl stats"
printf '%s\n' "$j" >"$VG_DIR/stats-1.json"
p=$(jq -c '.ports[] | select(.name == "vm1")' <<<"$j")
[ "$(jq -r .up <<<"$p")" = true ] || fail "vm1 not up"
[ "$(jq -r .connects <<<"$p")" = 1 ] || fail "vm1 connects=$(jq -r .connects <<<"$p"), want 1"
[ "$(jq -r .peer_refused <<<"$p")" = 0 ] || fail "vm1 peer_refused=$(jq -r .peer_refused <<<"$p") before any probe"
rx=$(jq -r .rx_packets <<<"$p")
tx=$(jq -r .tx_packets <<<"$p")
# 5 requests and 5 replies each way, and ARP.
[ "$rx" -ge 10 ] && [ "$tx" -ge 10 ] || fail "vm1 rx_packets=$rx tx_packets=$tx, want >= 10 each"
hp=$(jq -c '.ports[] | select(.name == "host")' <<<"$j")
[ "$(jq -r .rx_packets <<<"$hp")" -ge 10 ] && [ "$(jq -r .tx_packets <<<"$hp")" -ge 10 ] ||
	fail "host port rx/tx $(jq -r '"\(.rx_packets)/\(.tx_packets)"' <<<"$hp"), want >= 10 each"

# Another user: the socket's mode says no (connect fails, EACCES; the
# path to it, /run/vhostd, is open to all).
if nsx setpriv --reuid=nobody --regid=nogroup --clear-groups \
	timeout 5 socat -u /dev/null "UNIX-CONNECT:$sock" 2>"$VG_DIR/nobody.err"; then
	fail "nobody connected to $sock"
elif ! grep -q 'Permission denied' "$VG_DIR/nobody.err"; then
	fail "nobody's connect: $(head -n 1 "$VG_DIR/nobody.err")"
fi
# Root passes any mode: allow-uid closes it at accept.
nsx timeout 5 socat -u /dev/null "UNIX-CONNECT:$sock" 2>/dev/null || true
refused() {
	[ "$(ctl_stats | jq -r '.ports[] | select(.name == "vm1") | .peer_refused')" = 1 ]
}
wait_until 10 refused || fail "vm1 peer_refused not 1 after root's connect"

grep -q 'refusing front end' "$VLOG" || fail "no 'refusing front end' in vhostd's log"
# ... and the guest is none the worse for it.
out=$(ip netns exec "$NS" ping -c 3 -i 0.2 -w 20 "$gip" 2>&1) || true
vg_ping_check "$out" "$gip" >/dev/null || fail "host -> guest after the probes: $(grep -a 'packet loss' <<<"$out")"
p=$(ctl_stats | jq -c '.ports[] | select(.name == "vm1")') || true
[ "$(jq -r .connects <<<"$p")" = 1 ] && [ "$(jq -r .up <<<"$p")" = true ] ||
	fail "vm1 after the probes: up=$(jq -r .up <<<"$p") connects=$(jq -r .connects <<<"$p")"

# ---- vhostd restarted under the domain: <reconnect> brings QEMU back ---------

kill -TERM "$VHOSTD_PID"
st=0
wait "$VHOSTD_PID" || st=$?
VHOSTD_PID=
[ $st = 0 ] || fail "vhostd on SIGTERM, guest on: exit status $st"
start_vhostd
up() { [ "$(ctl_stats | jq -r '.ports[] | select(.name == "vm1") | .up')" = true ]; }
if wait_until 30 up; then
	out=$(ip netns exec "$NS" ping -c 3 -i 0.2 -W 5 -w 30 "$gip" 2>&1) || true
	vg_ping_check "$out" "$gip" >/dev/null ||
		fail "host -> guest after the restart: $(grep -a 'packet loss' <<<"$out")"
else
	fail "vm1 not up 30 s after vhostd's restart"
fi

# ---- and back: destroy, undefine, libvirtd stopped --------------------------------

lv_virsh destroy "$vm" >/dev/null || fail "virsh destroy"
lv_virsh undefine "$vm" >/dev/null || fail "virsh undefine"
DEFINED=0
[ -z "$(lv_virsh list --all --name | tr -d '[:space:]')" ] || fail "domains left: $(lv_virsh list --all --name)"
kill -0 "$qpid" 2>/dev/null && fail "QEMU (pid $qpid) still runs after destroy"
down() { [ "$(ctl_stats | jq -r '.ports[] | select(.name == "vm1") | .up')" = false ]; }
wait_until 10 down || fail "vm1 still up 10 s after destroy"
stop_libvirtd
[ "$LV_ST" = 0 ] || fail "libvirtd on SIGTERM: exit status $LV_ST"
vg_precheck() { :; }
vg_vhostd_alive || fail "vhostd exited"
grep -qE 'AddressSanitizer|LeakSanitizer|runtime error:' "$VLOG" && fail "sanitizer report in $VLOG"

detail="$lvver: README's vm1.xml defined and started, QEMU as libvirt-qemu; console: guest -> vh0 0% loss (avg ${avg:-?} ms), host -> guest (avg ${havg:-?} ms); vm1 rx/tx $rx/$tx; nobody refused by mode 0600, root by allow-uid; vhostd restarted, guest back; destroyed, undefined, libvirtd exit 0${RETRIED}"
if [ -z "$ERR" ]; then
	result PASS "$detail"
else
	result FAIL "$ERR"
	exit 1
fi
