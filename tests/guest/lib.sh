# SPDX-License-Identifier: GPL-2.0-or-later
# tests/guest/lib.sh - boot QEMU test guests and run commands in them (bash, source me).
#
#   vg_boot NAME --ip A/L --mac M (--tap IF | --vhost SOCK) [--netns NS]
#        |
#        v  qemu-system-x86_64 (background, -pidfile) -kernel cache/vmlinuz
#   +-----------------------------------------------+
#   | guest NAME   ttyS0 -> $VG_DIR/NAME.log         |  vg_wait_ready NAME [TMO]
#   |              ttyS1 <-> $VG_DIR/NAME.ch.{in,out} |  vg_run NAME TMO 'cmd'
#   |              eth0  -> tap IF | vhost-user SOCK |  vg_stop NAME / vg_stop_all
#   +-----------------------------------------------+
#
# vg_run prints the command's output (stdout+stderr) and returns its exit
# status; 124 when the guest does not answer within TMO seconds, 125 when
# QEMU died, 126 when vg_precheck (e.g. "vhostd still running") failed.  Nothing here
# sleeps without a deadline, so a hung guest fails a test instead of hanging it.
# Requires: VG_DIR (a private work directory) set before vg_boot.

VG_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VG_CACHE=${VG_CACHE:-$VG_HERE/cache}
VG_QEMU=${VG_QEMU:-qemu-system-x86_64}
VG_MEM=${VG_MEM:-256M}
VG_ACCEL=${VG_ACCEL:-tcg,thread=multi}
# The guest CPU: "max" less ERMS.  With ERMS the guest kernel copies with
# REP MOVSB (copy to/from user, memcpy), which TCG runs one byte per loop
# turn; without it, REP MOVSQ, eight bytes per turn.  Measured here: TSO
# guest -> guest iperf3 1.15 -> 3.5 Gbit/s, the same guests' copies having
# bounded every figure before.  See doc/performance.md.
VG_CPU=${VG_CPU:-max,-erms}
VG_BOOT_TMO=${VG_BOOT_TMO:-60}
# Extra virtio-net-pci properties, e.g. VG_NIC_OPTS=$VG_NO_OFFLOADS.
VG_NIC_OPTS=${VG_NIC_OPTS:-}
# VG_DEBUG_THREADS=1: QEMU names its threads (CPU 0/TCG, worker, ...), so
# bench/guests can show each thread's CPU time.
VG_NO_OFFLOADS=csum=off,guest_csum=off,gso=off,host_tso4=off,host_tso6=off,host_ecn=off,host_ufo=off,guest_tso4=off,guest_tso6=off,guest_ecn=off,guest_ufo=off
declare -gA VG_RFD VG_WFD VG_PID
declare -g VG_SEQ=0
VG_NAMES=()
VG_EXTRA_PIDS=()

# vg_image_mods: the modules in the guest image, in insmod order, one line
vg_image_mods() {
	gzip -dc "$VG_CACHE/initramfs.gz" | cpio -t --quiet 2>/dev/null |
		sed -n 's,^modules/[0-9]*-\(.*\)\.ko$,\1,p' | tr '\n' ' '
}

# vg_ensure_image [MODULE...]: the guest image must exist (run setup.sh, as
# root, once); rebuild it without apt when init.sh changed since, or when
# it lacks a MODULE the test needs (e.g. 8021q, which setup.sh adds where
# the kernel has it: an image built before it did has none).  The rebuild
# keeps the cache's extra modules (cache/mods, e.g. bench/guests' e1000).
vg_ensure_image() {
	local m need=0 have
	[ -e "$VG_CACHE/initramfs.gz" ] && [ -e "$VG_CACHE/vmlinuz" ] ||
		vg_die "no guest image in $VG_CACHE: run tests/guest/setup.sh"
	[ "$VG_HERE/init.sh" -nt "$VG_CACHE/initramfs.gz" ] && need=1
	have=" $(vg_image_mods)"
	for m in "$@"; do
		case "$have" in *" $m "*) ;; *) need=1 ;; esac
	done
	if [ $need = 1 ]; then
		VG_CACHE=$VG_CACHE SKIP_APT=1 \
			VG_EXTRA_MODS=${VG_EXTRA_MODS-$(cat "$VG_CACHE/mods" 2>/dev/null)} \
			"$VG_HERE/setup.sh" || vg_die "rebuilding the initramfs failed"
		have=" $(vg_image_mods)"
		for m in "$@"; do
			case "$have" in *" $m "*) ;; *)
				vg_die "the guest image in $VG_CACHE has no $m ($(cat "$VG_CACHE/kver" 2>/dev/null) lacks it?)" ;;
			esac
		done
	fi
}

vg_log() { printf '[%(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
vg_die() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

# vg_need_vhostd WHY TOOL...: a script's start: root (WHY: what it is
# needed for), VHOSTD (default build/vhostd) and the vhostctl beside it,
# both made absolute, and each TOOL on the PATH
vg_need_vhostd() {
	local why=$1 t
	shift
	VHOSTD=${VHOSTD:-$(cd "$VG_HERE/../.." && pwd)/build/vhostd}
	VHOSTCTL=$(dirname "$VHOSTD")/vhostctl
	[ "$(id -u)" = 0 ] || vg_die "needs root ($why)"
	[ -x "$VHOSTD" ] && [ -x "$VHOSTCTL" ] ||
		vg_die "no vhostd/vhostctl at $VHOSTD"
	for t in "$@"; do
		command -v "$t" >/dev/null || vg_die "needs $t (tests/deps.sh)"
	done
	VHOSTD=$(realpath "$VHOSTD")
	VHOSTCTL=$(realpath "$VHOSTCTL")
}

# vg_boot NAME --ip ADDR/LEN --mac MAC (--tap IFNAME | --vhost SOCK |
#         --vhost-server SOCK) [--netns NS] [--mtu N] [--queues N] [--smp N]
#         [--qmp SOCK] [--incoming URI] [--model M] [--tap-vhost on|off]
#   --vhost: QEMU connects to SOCK (reconnect=1); --vhost-server: QEMU
#   listens on SOCK and waits for the back end (vhostd's "client" port);
#   --queues N: N queue pairs (vhost-user only; N > 1 adds mq=on to the
#   NIC); --smp N: N virtual CPUs (default 1); --qmp SOCK: a QMP monitor
#   listening on SOCK (vg_qmp); --incoming URI: no boot, wait for a
#   migration on URI (the guest then continues here: its console and
#   command channel are NAME's); --paused on: start stopped (-S; after
#   --incoming the guest waits for QMP "cont"); --model M: the NIC with --tap (default
#   virtio-net-pci; e1000 or rtl8139 need a guest kernel with their driver,
#   bench/guests' generic one); --tap-vhost on: the kernel's vhost-net
#   behind the TAP (needs /dev/vhost-net; QEMU aborts without it)
vg_boot() {
	local name=$1; shift
	local ip='' mac='' tap='' sock='' ns='' mtu='' q=1 server= smp=1 mq=
	local model=virtio-net-pci tvh=off
	local extra=()
	while [ $# -gt 0 ]; do
		case $1 in
		--qmp) extra+=(-qmp "unix:$2,server=on,wait=off") ;;
		--incoming) extra+=(-incoming "$2") ;;
		--paused) [ "$2" = on ] && extra+=(-S) ;;
		--ip) ip=$2 ;;
		--mac) mac=$2 ;;
		--tap) tap=$2 ;;
		--vhost) sock=$2 ;;
		--vhost-server) sock=$2; server=,server=on,wait=off ;;
		--netns) ns=$2 ;;
		--mtu) mtu=$2 ;;
		--queues) q=$2 ;;
		--smp) smp=$2 ;;
		--model) model=$2 ;;
		--tap-vhost) tvh=$2 ;;
		*) vg_die "vg_boot: unknown option $1" ;;
		esac
		shift 2
	done
	[ -n "${VG_DIR:-}" ] || vg_die "vg_boot: VG_DIR not set"
	[ -e "$VG_CACHE/vmlinuz" ] && [ -e "$VG_CACHE/initramfs.gz" ] ||
		vg_die "no guest image in $VG_CACHE: run tests/guest/setup.sh"
	local base=$VG_DIR/$name
	rm -f "$base".{log,pid,ch.in,ch.out,qemu.err}
	mkfifo "$base.ch.in" "$base.ch.out"
	: > "$base.log"

	local net=()
	if [ -n "$tap" ]; then
		local dev="$model,netdev=n0,mac=$mac"
		[ "$model" = virtio-net-pci ] && dev="$dev,vectors=0${VG_NIC_OPTS:+,$VG_NIC_OPTS}"
		net=(-netdev "tap,id=n0,ifname=$tap,script=no,downscript=no,vhost=$tvh"
		     -device "$dev")
	elif [ -n "$sock" ]; then
		# Still vectors=0 with several pairs: MSI-X is what crashes.
		[ "$q" -gt 1 ] && mq=,mq=on
		net=(-chardev "socket,id=c0,path=$sock${server:-,reconnect=1}"
		     -netdev "vhost-user,id=n0,chardev=c0,queues=$q"
		     -device "virtio-net-pci,netdev=n0,mac=$mac$mq,vectors=0${VG_NIC_OPTS:+,$VG_NIC_OPTS}")
	else
		vg_die "vg_boot $name: need --tap or --vhost"
	fi
	local cmdline="console=ttyS0 panic=-1 quiet mitigations=off vh.name=$name vh.ip=$ip"
	[ -n "$mtu" ] && cmdline="$cmdline vh.mtu=$mtu"
	local pre=()
	[ -n "$ns" ] && pre=(ip netns exec "$ns")

	# The pipe chardev is opened O_RDWR by QEMU, and by us: no open blocks.
	local rfd wfd
	exec {rfd}<>"$base.ch.out" {wfd}<>"$base.ch.in"
	VG_RFD[$name]=$rfd
	VG_WFD[$name]=$wfd
	"${pre[@]}" "$VG_QEMU" -name "$name${VG_DEBUG_THREADS:+,debug-threads=on}" \
		-accel "$VG_ACCEL" -cpu "$VG_CPU" -m "$VG_MEM" -smp "$smp" \
		-object "memory-backend-memfd,id=mem,size=$VG_MEM,share=on" \
		-machine pc,memory-backend=mem \
		-display none -nodefaults -no-reboot \
		-kernel "$VG_CACHE/vmlinuz" -initrd "$VG_CACHE/initramfs.gz" \
		-append "$cmdline" \
		-serial "file:$base.log" -serial "pipe:$base.ch" \
		"${net[@]}" "${extra[@]}" \
		-pidfile "$base.pid" \
		</dev/null >"$base.qemu.err" 2>&1 &
	VG_PID[$name]=$!
	VG_NAMES+=("$name")
	vg_log "booting $name ($ip, ${tap:+tap $tap}${sock:+vhost-user $sock}) pid ${VG_PID[$name]}"
}

# vg_qmp SOCK JSON...: send QMP commands (after qmp_capabilities) to the
#   monitor on SOCK, print the replies one per line
vg_qmp() {
	local sock=$1 c
	shift
	{
		echo '{"execute":"qmp_capabilities"}'
		for c in "$@"; do echo "$c"; done
		sleep 0.2
	} | socat -t 2 - "UNIX-CONNECT:$sock" 2>/dev/null | grep -v '"QMP"'
}

# vg_alive NAME: true while QEMU of NAME runs.
vg_alive() {
	local pid=${VG_PID[$1]:-}
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null
}

# vg_wait_ready NAME [TIMEOUT]: wait for the VH-READY marker.
vg_wait_ready() {
	local name=$1 tmo=${2:-$VG_BOOT_TMO} base=$VG_DIR/$1
	local end=$((SECONDS + tmo))
	while [ $SECONDS -lt $end ]; do
		if grep -q '^VH-READY' "$base.log" 2>/dev/null; then
			vg_log "$name ready: $(grep -a '^VH-READY' "$base.log" | head -1)"
			return 0
		fi
		if ! vg_alive "$name"; then
			vg_log "$name: QEMU exited during boot"
			vg_dump "$name"
			return 1
		fi
		sleep 0.2
	done
	vg_log "$name: not ready after ${tmo}s"
	vg_dump "$name"
	return 1
}

# vg_dump NAME: show QEMU's stderr and the console tail (for failures).
vg_dump() {
	local base=$VG_DIR/$1
	{
		echo "---- $1 qemu stderr ----"
		tail -n 20 "$base.qemu.err" 2>/dev/null
		echo "---- $1 console (tail) ----"
		tail -n 30 "$base.log" 2>/dev/null | tr -d '\r'
		echo "----"
	} >&2
}

# vg_run NAME TIMEOUT CMD: run CMD (one string, /bin/sh syntax) in the guest;
# print its output, return its exit status (124: no answer in time).
vg_run() {
	local name=$1 tmo=$2 cmd=$3
	local rfd=${VG_RFD[$name]} wfd=${VG_WFD[$name]}
	VG_SEQ=$((VG_SEQ + 1))
	local id=$BASHPID.${EPOCHREALTIME/./}.$VG_SEQ
	printf '@@C %s %s\n' "$id" "$(printf '%s' "$cmd" | base64 -w0)" >&"$wfd"
	local end=$((SECONDS + tmo)) line chunk part='' state=wait b64='' left
	while :; do
		left=$((end - SECONDS))
		if [ $left -le 0 ]; then
			vg_log "$name: command timed out after ${tmo}s: $cmd"
			return 124
		fi
		# Wake at least once a second to notice a dead QEMU early.  A
		# read that times out keeps what it got of a line: carry it over.
		chunk=
		if ! IFS= read -r -t 1 -u "$rfd" chunk; then
			part+=$chunk
			vg_alive "$name" || { vg_log "$name: QEMU died"; return 125; }
			# (a subshell: vg_precheck may exit)
			(vg_precheck) 2>/dev/null || { vg_log "$name: precheck failed"; return 126; }
			continue
		fi
		line=$part$chunk
		part=
		line=${line%$'\r'}
		case $state:$line in
		wait:"@@O $id") state=body ;;
		body:"@@E $id "*)
			[ -n "$b64" ] && printf '%s' "$b64" | base64 -d
			return "${line##* }"
			;;
		body:*) b64+=$line ;;
		esac
	done
}

# vg_kill_pid PID TRIES: SIGTERM a PID we started, give it TRIES tenths of
# a second to exit, then SIGKILL it.
vg_kill_pid() {
	local pid=$1 tries=$2 i
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq "$tries"); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
}

# vg_stop NAME: kill the QEMU we started (by its -pidfile PID) and wait for it.
vg_stop() {
	local name=$1 pid
	pid=$(cat "$VG_DIR/$name.pid" 2>/dev/null || true)
	[ -n "$pid" ] || pid=${VG_PID[$name]:-}
	[ -n "$pid" ] && vg_kill_pid "$pid" 50
	# Reap our background job (the ip-netns-exec'd QEMU) if it is ours.
	[ -n "${VG_PID[$name]:-}" ] && wait "${VG_PID[$name]}" 2>/dev/null || true
	unset "VG_PID[$name]"
	if [ -n "${VG_RFD[$name]:-}" ]; then
		local rfd=${VG_RFD[$name]} wfd=${VG_WFD[$name]}
		exec {rfd}<&- {wfd}>&-
		unset "VG_RFD[$name]" "VG_WFD[$name]"
	fi
}

vg_stop_all() {
	local n
	for n in "${VG_NAMES[@]}"; do
		[ -n "${VG_PID[$n]:-}" ] && vg_stop "$n"
	done
	return 0
}

# ---- a test that runs its own vhostd in its own netns ----
#
# The caller sets VHOSTD_PID (once vhostd runs, if it runs one), VLOG
# (its log), NS and
# NS_MADE=1 once it made the netns, and may list more PIDs it started in
# VG_EXTRA_PIDS.  VG_FAIL names the function a failed wait calls with a
# message (default vg_die; it must not return).  Then:
#   trap vg_cleanup EXIT; trap 'exit 130' INT TERM

# vg_vhostd_alive: the test's vhostd still runs
vg_vhostd_alive() { [ -n "${VHOSTD_PID:-}" ] && kill -0 "$VHOSTD_PID" 2>/dev/null; }

# vg_show_vhostd_log: the end of $VLOG on stderr
vg_show_vhostd_log() {
	[ -n "${VLOG:-}" ] || return 0
	echo "---- vhostd log (tail, full: $VLOG) ----" >&2
	tail -n 40 "$VLOG" >&2 2>/dev/null || true
	echo "----" >&2
}

# vg_cleanup: guests, VG_EXTRA_PIDS, vhostd, the netns; the work
#   directory goes unless KEEP=1 or the test failed (then vhostd's log
#   tail is shown).  Exits with the status the test had.
vg_cleanup() {
	local rc=$? p
	vg_stop_all
	for p in "${VG_EXTRA_PIDS[@]}"; do
		vg_kill_pid "$p" 10
		wait "$p" 2>/dev/null || true
	done
	if [ -n "${VHOSTD_PID:-}" ]; then
		vg_kill_pid "$VHOSTD_PID" 30
		wait "$VHOSTD_PID" 2>/dev/null || true
	fi
	[ "${NS_MADE:-0}" = 1 ] && ip netns del "$NS" 2>/dev/null
	if [ "${KEEP:-0}" = 1 ] || [ $rc != 0 ]; then
		[ $rc != 0 ] && vg_show_vhostd_log
		echo "work directory kept: $VG_DIR" >&2
	else
		rm -rf "$VG_DIR"
	fi
	exit $rc
}

# vg_wait_for TIMEOUT DESC CMD...: poll CMD until true; $VG_FAIL on a
#   timeout or if vhostd died meanwhile
vg_wait_for() {
	local tmo=$1 desc=$2 fail=${VG_FAIL:-vg_die}
	local end=$((SECONDS + tmo))
	shift 2
	until "$@"; do
		vg_vhostd_alive || "$fail" "vhostd exited while waiting for $desc"
		[ $SECONDS -lt $end ] || "$fail" "timed out (${tmo}s) waiting for $desc"
		sleep 0.1
	done
}

# ---- result parsing helpers (host side, plain bash/awk) ----

# vg_ping_check OUTPUT FROM_ADDR: assert 0% loss and replies from FROM_ADDR.
# Prints the "rtt" summary (avg ms) on success.
vg_ping_check() {
	local out=$1 addr=$2
	grep -q " 0% packet loss" <<<"$out" || { printf '%s\n' "$out" >&2; return 1; }
	grep -q "bytes from $addr:" <<<"$out" || { printf '%s\n' "$out" >&2; return 1; }
	awk -F'/' '/^rtt|^round-trip/ {print $5; exit}' <<<"$out"
}

# vg_iperf_json JSON: print "GBITS BYTES" of the receiver side (sum_received).
vg_iperf_json() {
	# iperf3 3.12 -J: "sum_received": { ..., "bytes": N, "bits_per_second": X, ... }
	awk '
		/"sum_received"[[:space:]]*:/ { in_r = 1 }
		in_r && /"bytes"[[:space:]]*:/ { gsub(/[^0-9]/, "", $2); bytes = $2 }
		in_r && /"bits_per_second"[[:space:]]*:/ {
			gsub(/[^0-9.e+]/, "", $2); bps = $2; in_r = 0
		}
		END {
			if (bytes == "") exit 1
			printf "%.3f %s\n", bps / 1e9, bytes
		}' FS=':' <<<"$1"
}

# vg_median N...: the median of the numbers given (lower middle for even counts).
vg_median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}

# ---- the measurement suite shared by baseline.sh, e2e.sh and compare.sh ----
#
# vg_suite NS HOSTIP G1 IP1 G2 IP2 [LABEL]
#   Expects both guests ready and reachable on one L2 segment with the netns
#   NS holding HOSTIP.  Runs: ping G1<->G2, ping NS->G1, iperf3 G1->G2 (-t),
#   iperf3 G2->G1 (-n 100M), iperf3 NS->G1 and G1->NS (-t), each iperf3 test
#   VG_REPS times (median reported).  Asserts 0% loss, replies from the right
#   address, >= 100 MB received per iperf3 run.  Prints a table; appends
#   "LABEL.key value" lines to $VG_RESULTS when set.  Returns 1 on any failure.
VG_REPS=${VG_REPS:-1}
VG_DURATION=${VG_DURATION:-10}
VG_MIN_BYTES=${VG_MIN_BYTES:-100000000}
VG_ROWS=()
VG_NOTES=()
VG_FAILS=0

# vg_precheck: called before every suite step; e2e.sh overrides it to stop
# at once when vhostd has died instead of waiting out every timeout.
vg_precheck() { :; }

vg_row() {
	VG_ROWS+=("$(printf '%-32s %-5s %8s %12s %s' "$@")")
	[ "$2" = ok ] || VG_FAILS=$((VG_FAILS + 1))
}

vg_print_table() {
	printf '\n%-32s %-5s %8s %12s %s\n' TEST RESULT GBIT/S MIN-BYTES NOTE
	printf '%s\n' "------------------------------------------------------------------------------------------"
	printf '%s\n' "${VG_ROWS[@]}"
	[ ${#VG_NOTES[@]} -gt 0 ] && printf '%s\n' "${VG_NOTES[@]}"
	printf '\n'
}

vg_result() {
	[ -n "${VG_RESULTS:-}" ] && printf '%s %s\n' "$1" "$2" >> "$VG_RESULTS"
	return 0
}

# vg_ping_test LABEL OUTPUT-PRODUCING-RC FROM_ADDR: record one ping row.
vg_ping_row() {
	local label=$1 rc=$2 out=$3 addr=$4 avg
	if [ "$rc" = 0 ] && avg=$(vg_ping_check "$out" "$addr"); then
		vg_row "$label" ok - - "0% loss, avg rtt ${avg} ms"
	else
		vg_row "$label" FAIL - - "rc=$rc: $(grep -a 'packet loss' <<<"$out" | head -1)"
	fi
}

# vg_iperf_rows LABEL KEY CMD-KIND ...: run an iperf3 test VG_REPS times.
#   kind "guest NAME ARGS" runs iperf3 ARGS in guest NAME; kind "host NS ARGS"
#   runs it in the netns.
vg_iperf_test() {
	local label=$1 key=$2 kind=$3 where=$4 args=$5
	local r out rc gb bytes gbs=() minb='' ok=1 tmo
	tmo=$((VG_DURATION + 30))
	for r in $(seq "$VG_REPS"); do
		vg_precheck
		rc=0
		if [ "$kind" = guest ]; then
			out=$(vg_run "$where" "$tmo" "/usr/bin/iperf3 -J -i 0 $args") || rc=$?
		else
			out=$(ip netns exec "$where" timeout "$tmo" iperf3 -J -i 0 $args 2>&1) || rc=$?
		fi
		if [ "$rc" != 0 ] || ! read -r gb bytes < <(vg_iperf_json "$out"); then
			vg_log "$label: iperf3 failed (rc=$rc)"
			printf '%s\n' "$out" | grep -a '"error"' >&2 || printf '%s\n' "$out" | tail -5 >&2
			ok=0
			break
		fi
		vg_log "$label rep $r: $gb Gbit/s, $bytes bytes"
		gbs+=("$gb")
		if [ "$bytes" -lt "$VG_MIN_BYTES" ]; then ok=0; fi
		if [ -z "$minb" ] || [ "$bytes" -lt "$minb" ]; then minb=$bytes; fi
	done
	if [ $ok = 1 ]; then
		gb=$(vg_median "${gbs[@]}")
		vg_row "$label" ok "$gb" "$minb" "median of ${#gbs[@]}: ${gbs[*]}"
		vg_result "$key.gbps" "$gb"
		vg_result "$key.runs" "${gbs[*]}"
	else
		vg_row "$label" FAIL "${gb:--}" "${bytes:--}" "need >= $VG_MIN_BYTES bytes"
		vg_result "$key.gbps" FAIL
	fi
}

vg_suite() {
	local ns=$1 hip=$2 g1=$3 ip1=$4 g2=$5 ip2=$6 out rc
	local d=$VG_DURATION
	VG_NOTES+=("$g1 virtio-net features: $(vg_features "$g1")")
	vg_result features "$(vg_features "$g1")"
	# iperf3 servers (daemonised, so they leave the command channel free).
	vg_run "$g1" 20 '/usr/bin/iperf3 -s -D' >/dev/null || vg_die "iperf3 -s in $g1"
	vg_run "$g2" 20 '/usr/bin/iperf3 -s -D' >/dev/null || vg_die "iperf3 -s in $g2"

	vg_precheck
	rc=0; out=$(vg_run "$g1" 30 "/usr/bin/ping -c 5 -i 0.2 -w 20 $ip2") || rc=$?
	vg_ping_row "ping $g1 -> $g2" "$rc" "$out" "$ip2"
	rc=0; out=$(vg_run "$g2" 30 "/usr/bin/ping -c 5 -i 0.2 -w 20 $ip1") || rc=$?
	vg_ping_row "ping $g2 -> $g1" "$rc" "$out" "$ip1"
	rc=0; out=$(ip netns exec "$ns" ping -c 5 -i 0.2 -w 20 "$ip1" 2>&1) || rc=$?
	vg_ping_row "ping host -> $g1" "$rc" "$out" "$ip1"
	rc=0; out=$(vg_run "$g1" 30 "/usr/bin/ping -c 5 -i 0.2 -w 20 $hip") || rc=$?
	vg_ping_row "ping $g1 -> host" "$rc" "$out" "$hip"

	vg_iperf_test "iperf3 $g1 -> $g2 (-t $d)" g2g guest "$g1" "-c $ip2 -t $d"
	VG_REPS=1 vg_iperf_test "iperf3 $g2 -> $g1 (-n 100M)" g2g100M guest "$g2" "-c $ip1 -n 100M"
	vg_iperf_test "iperf3 host -> $g1 (-t $d)" h2g host "$ns" "-c $ip1 -t $d"
	vg_iperf_test "iperf3 $g1 -> host (-t $d -R)" g2h host "$ns" "-c $ip1 -t $d -R"
	[ "$VG_FAILS" = 0 ]
}

# vg_features NAME: the virtio-net feature names the guest's driver negotiated
# (from sysfs), for the report: offloads decide most of the throughput.
vg_features() {
	local bits
	bits=$(vg_run "$1" 10 'cat /sys/class/net/eth0/device/features') || return 0
	awk -v b="$bits" 'BEGIN {
		split("0 CSUM 1 GUEST_CSUM 2 CTRL_GUEST_OFFLOADS 3 MTU 5 MAC 7 GUEST_TSO4 8 GUEST_TSO6 9 GUEST_ECN 10 GUEST_UFO 11 HOST_TSO4 12 HOST_TSO6 13 HOST_ECN 14 HOST_UFO 15 MRG_RXBUF 16 STATUS 17 CTRL_VQ 18 CTRL_RX 19 CTRL_VLAN 21 GUEST_ANNOUNCE 23 CTRL_MAC_ADDR 22 MQ 28 INDIRECT_DESC 29 EVENT_IDX 32 VERSION_1 33 ACCESS_PLATFORM 34 RING_PACKED 35 IN_ORDER 40 RING_RESET", f, " ")
		for (i = 1; i < length(f); i += 2) name[f[i]] = f[i + 1]
		s = ""
		for (i = 1; i <= length(b); i++)
			if (substr(b, i, 1) == "1")
				s = s " " ((i - 1) in name ? name[i - 1] : "bit" (i - 1))
		print substr(s, 2)
	}'
}
