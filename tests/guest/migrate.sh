#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/guest/migrate.sh - live migration of a running guest with a TCP
# stream through it: between two ports of one vhostd, between two vhostd
# "hosts", and over QEMU's own virtio-net + TAP for reference
#
#   netns vhg-mig1-PID ("host 1")              netns vhg-mig2-PID ("host 2")
#   +-------------------------------------+    +---------------------------+
#   | br1 198.18.0.1/24: ping, sender     |    | br2                       |
#   |  |-- t1 -- vhostd1: p1a.sock        |    |  |-- t2 -- vhostd2:       |
#   |  |               \   p1b.sock       |    |  |          p2a.sock      |
#   |  |-- qa, qb (QEMU's TAPs: "tap")    |    |  |                        |
#   |  '-- v1 ============ veth =================== v2                     |
#   +-------------------------------------+    +---------------------------+
#
#   case  guest hops between                  the move is learned by
#   port  p1a.sock <-> p1b.sock (one vhostd)  vhostd1's FDB
#   host  p1a.sock <-> p2a.sock (vhostd1, 2)  vhostd2, br2, br1 (via v2/v1)
#   tap   qa <-> qb (no vhostd)               br1
#   rarp  as host, the NIC without GUEST_ANNOUNCE: QEMU sends SEND_RARP
#         and vhostd2 (or 1) injects the RARP (otherwise the guest
#         announces itself)
#   dpdk  (on demand) DPDK 22.11's vhost as the back end instead: one
#         dpdk-testpmd, io forwarding net_vhost0 <-> net_tap0 and
#         net_vhost1 <-> net_tap1, both TAPs on br1; the guest moves
#         from one vhost port to the other, offloads off (testpmd's
#         TAP does not take partial checksums); another vhost-user back
#         end under the same QEMU, for MIG_VERIFY
#
# The guest (198.18.0.2) boots once per case; then MIG_RUNS times: it
# listens (nc | sha256sum), br1's side sends MIG_MB MiB of random data,
# paced over ~MIG_MB/3 s, and pings it every 10 ms; a second QEMU waits
# with -incoming, and the running one migrates to it (QMP "migrate",
# max-bandwidth 1 GiB/s; downtime-limit MIG_DOWNTIME ms when set) while
# the stream flows; the old QEMU quits.  QEMU stops the guest once what is
# left to send fits in the downtime limit at the bandwidth it measured:
# with its default of 300 ms a 256 MiB guest is stopped partway through
# the first pass, and the outage measures that estimate more than the
# move.  MIG_DOWNTIME=50 makes QEMU iterate over the dirty pages until
# they fit, which measures the move; it is not the default because QEMU
# 7.2's TCG then corrupts a guest now and then whatever its NIC
# (doc/migration.md, "Known limits"), which a CI step must not flake on.
# The sum the guest prints must equal the sender's, every run.  Outage: the
# longest gap between two ping replies around the move (10 ms is none),
# reported per case next to the "tap" case's, measured in the same run.
#
# MIG_VERIFY=1 checks the transfer itself: the new QEMU starts paused
# (-S), and once QEMU says "completed" both guests' memory is dumped
# (QMP pmemsave) and compared page by page before the new one runs; a
# page that differs fails the run and is listed with the rings'
# addresses.  Neither vhostd can write then (the old rings stopped, the
# new ones not started), so a difference is either a write vhostd made
# and did not log, or a guest write QEMU did not track.
#
# Environment: VHOSTD (default build/vhostd), MIG_RUNS (2; 20 on demand),
# MIG_MB (16), MIG_DOWNTIME (QEMU's), MIG_CASES ("port host rarp tap"),
# MIG_VHOSTD_ARGS (more options for both vhostd, e.g. --log-level debug),
# MIG_VERIFY, KEEP=1.  With $TEST_RESULTS
# set, one PASS/FAIL line per case.  Root; everything in the two netns.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
. "$HERE/lib.sh"

VHOSTD=${VHOSTD:-$ROOT/build/vhostd}
MIG_RUNS=${MIG_RUNS:-2}
MIG_MB=${MIG_MB:-16}
MIG_DOWNTIME=${MIG_DOWNTIME:-}
MIG_VERIFY=${MIG_VERIFY:-}
# VG_MEM in bytes (for pmemsave): 256M, 1G, or a byte count
MEM_BYTES=$(numfmt --from=iec "$VG_MEM")
MIG_CASES=${MIG_CASES:-port host rarp tap}
GUEST_IP=198.18.0.2
GUEST_MAC=52:54:00:18:00:02

[ "$(id -u)" = 0 ] || vg_die "needs root (netns, tap)"
[ -x "$VHOSTD" ] || vg_die "no vhostd binary at $VHOSTD"
command -v socat >/dev/null || vg_die "needs socat (tests/guest/setup.sh)"
vg_ensure_image
VHOSTD=$(realpath "$VHOSTD")

NS=vhg-mig1-$$
NS2=vhg-mig2-$$
NS_MADE=0
VHOSTD_PID=
VG_DIR=$(mktemp -d /tmp/vhg-mig.XXXXXX)
VLOG=$VG_DIR/vhostd1.log
VLOG2=$VG_DIR/vhostd2.log
VHOSTD2_PID=
DPDK_PID=
FAILS=0

vg_precheck() {
	vg_vhostd_alive || vg_die "vhostd1 (pid $VHOSTD_PID) has exited"
	kill -0 "$VHOSTD2_PID" 2>/dev/null || vg_die "vhostd2 has exited"
}
mig_cleanup() {
	local rc=$?
	set +e
	[ $rc != 0 ] && [ -s "$VLOG2" ] && { echo "---- vhostd2 log (tail) ----"; tail -n 20 "$VLOG2"; } >&2
	ip netns del "$NS2" 2>/dev/null || true
	if [ -n "$DPDK_PID" ]; then
		kill "$DPDK_PID" 2>/dev/null
		wait "$DPDK_PID" 2>/dev/null
		rm -rf "/var/run/dpdk/vhgmig$$"
	fi
	(exit $rc)
	vg_cleanup
}
trap mig_cleanup EXIT
trap 'exit 130' INT TERM

# ---- the two hosts -----------------------------------------------------

ip netns add "$NS"
NS_MADE=1
ip netns add "$NS2"
for n in "$NS" "$NS2"; do ip -n "$n" link set lo up; done
ip -n "$NS" link add br1 type bridge
ip -n "$NS2" link add br2 type bridge
ip -n "$NS" link add v1 type veth peer name v2 netns "$NS2"
ip -n "$NS" link set v1 master br1 up
ip -n "$NS2" link set v2 master br2 up
ip -n "$NS" addr add 198.18.0.1/24 dev br1
ip -n "$NS" link set br1 up
ip -n "$NS2" link set br2 up
for t in qa qb; do
	ip -n "$NS" tuntap add "$t" mode tap
	ip -n "$NS" link set "$t" master br1 up
done

# shellcheck disable=SC2086 # MIG_VHOSTD_ARGS: words, as on a command line
ip netns exec "$NS" "$VHOSTD" ${MIG_VHOSTD_ARGS:-} \
	--port "vhost-user,path=$VG_DIR/p1a.sock,name=p1a" \
	--port "vhost-user,path=$VG_DIR/p1b.sock,name=p1b" \
	--port "tap,ifname=t1,name=t1" --ctl "$VG_DIR/ctl1.sock" \
	</dev/null >"$VLOG" 2>&1 &
VHOSTD_PID=$!
# shellcheck disable=SC2086
ip netns exec "$NS2" "$VHOSTD" ${MIG_VHOSTD_ARGS:-} \
	--port "vhost-user,path=$VG_DIR/p2a.sock,name=p2a" \
	--port "tap,ifname=t2,name=t2" --ctl "$VG_DIR/ctl2.sock" \
	</dev/null >"$VLOG2" 2>&1 &
VHOSTD2_PID=$!
VG_EXTRA_PIDS+=("$VHOSTD2_PID")
have_link() { ip -n "$1" link show "$2" >/dev/null 2>&1; }
vg_wait_for 10 "p1a.sock" test -S "$VG_DIR/p1a.sock"
vg_wait_for 10 "p2a.sock" test -S "$VG_DIR/p2a.sock"
vg_wait_for 10 "tap t1" have_link "$NS" t1
vg_wait_for 10 "tap t2" have_link "$NS2" t2
ip -n "$NS" link set t1 master br1 up
ip -n "$NS2" link set t2 master br2 up

head -c $((MIG_MB << 20)) /dev/urandom >"$VG_DIR/data"
WANT=$(sha256sum "$VG_DIR/data" | cut -d' ' -f1)

# ---- one migration -----------------------------------------------------

# boot_at NAME WHERE [--incoming URI]: QEMU for the guest on WHERE (a
#   socket path, or tap:IF)
boot_at() {
	local name=$1 where=$2 net
	shift 2
	case $where in
	tap:*) net=(--tap "${where#tap:}") ;;
	*) net=(--vhost "$where") ;;
	esac
	vg_boot "$name" --ip "$GUEST_IP/24" --mac "$GUEST_MAC" "${net[@]}" \
		--netns "$NS" --qmp "$VG_DIR/$name.qmp" "$@"
}

# mig_status QMP: the migration's status on the source; its QMP answer
#   is kept in $VG_DIR/query (for the downtime QEMU measured)
mig_status() {
	vg_qmp "$1" '{"execute":"query-migrate"}' >"$VG_DIR/query" || true
	sed -n 's/.*"status": *"\([a-z-]*\)".*/\1/p' "$VG_DIR/query" |
		tail -n 1
}

# gap_ms PINGLOG: the longest gap between two replies, in ms
gap_ms() {
	sed -n 's/^\[\([0-9.]*\)\] .*bytes from.*/\1/p' "$1" |
		awk 'NR > 1 { g = ($1 - p) * 1000; if (g > m) m = g } { p = $1 }
		     END { printf "%d\n", m }'
}

# migrate FROM TO WHERE: move the running guest FROM to a new QEMU TO on
#   WHERE with a stream and pings through it; sets MIG_R to "ok GAP_MS LOST
#   DOWNTIME_MS" (the last as QEMU counts the guest stopped) or "FAIL why" (in this shell: the new guest must be known to it)
migrate() {
	local from=$1 to=$2 where=$3 ppid spid st end got lost sent recv down
	MIG_R=
	vg_run "$from" 10 "rm -f /tmp/sum; (/bin/busybox nc -l -p 5001 | /bin/busybox sha256sum > /tmp/sum) > /dev/null 2>&1 &" >/dev/null ||
		{ MIG_R="FAIL no listener"; return; }
	ip netns exec "$NS" ping -D -i 0.01 -W 1 "$GUEST_IP" >"$VG_DIR/ping.log" 2>&1 &
	ppid=$!
	sleep 0.3
	# Paced: 64 KiB every 20 ms, so the stream outlasts the move.
	ip netns exec "$NS" bash -c "
		for i in \$(seq 0 $((MIG_MB * 16 - 1))); do
			dd if='$VG_DIR/data' bs=65536 skip=\$i count=1 status=none
			sleep 0.02
		done | timeout 120 socat -u - TCP:$GUEST_IP:5001,retry=50,interval=0.1" \
		>"$VG_DIR/send.log" 2>&1 &
	spid=$!
	sleep 1.5
	boot_at "$to" "$where" --incoming "unix:$VG_DIR/$to.mig" \
		--paused "${MIG_VERIFY:+on}"
	vg_wait_for 20 "$to listening" test -S "$VG_DIR/$to.mig"
	vg_qmp "$VG_DIR/$from.qmp" \
		'{"execute":"migrate-set-parameters","arguments":{"max-bandwidth":1073741824'"${MIG_DOWNTIME:+,\"downtime-limit\":$MIG_DOWNTIME}"'}}' \
		"{\"execute\":\"migrate\",\"arguments\":{\"uri\":\"unix:$VG_DIR/$to.mig\"}}" \
		>"$VG_DIR/$from.migrate" || true
	end=$((SECONDS + 60))
	while :; do
		st=$(mig_status "$VG_DIR/$from.qmp")
		case $st in
		completed) break ;;
		failed|cancelled) break ;;
		esac
		[ $SECONDS -lt $end ] || { st="timeout ($st)"; break; }
		sleep 0.2
	done
	down=$(sed -n 's/.*"downtime": *\([0-9]*\).*/\1/p' "$VG_DIR/query")
	if [ "$st" != completed ]; then
		kill "$ppid" "$spid" 2>/dev/null || true
		wait "$ppid" "$spid" 2>/dev/null || true
		MIG_R="FAIL migration $st: $(tail -n 3 "$VG_DIR/$to.qemu.err" | tr '\n' ' ')"
		return
	fi
	if [ -n "$MIG_VERIFY" ]; then
		mem_verify "$from" "$to"
		if [ "$MIG_V" != 0 ]; then
			# The guest runs on from a copy that is not its own:
			# what it does next says nothing more.
			kill "$ppid" "$spid" 2>/dev/null || true
			wait "$ppid" "$spid" 2>/dev/null || true
			vg_stop "$from"
			MIG_R="FAIL memory differs after the transfer: $MIG_V pages ($VG_DIR/$to.memcmp)"
			return
		fi
		vg_qmp "$VG_DIR/$to.qmp" '{"execute":"cont"}' >/dev/null || true
	fi
	vg_stop "$from"
	# The stream ends, then the guest's sum.
	wait "$spid" || { kill "$ppid" || true; wait "$ppid" 2>/dev/null || true
		MIG_R="FAIL sender: $(tail -n 2 "$VG_DIR/send.log" | tr '\n' ' ')"; return; }
	got=$(vg_run "$to" 60 'while [ ! -s /tmp/sum ]; do sleep 0.1; done; cat /tmp/sum') ||
		{ kill "$ppid" || true; wait "$ppid" 2>/dev/null || true
		  MIG_R="FAIL no sum from the guest"; return; }
	got=${got%% *}
	sleep 0.3
	kill -INT "$ppid" 2>/dev/null; wait "$ppid" 2>/dev/null || true
	sent=$(sed -n 's/^\([0-9]*\) packets transmitted.*/\1/p' "$VG_DIR/ping.log")
	recv=$(sed -n 's/.* \([0-9]*\) received.*/\1/p' "$VG_DIR/ping.log")
	lost=$(( ${sent:-0} - ${recv:-0} ))
	if [ "$got" != "$WANT" ]; then
		MIG_R="FAIL sha256 $got, sent $WANT"
		return
	fi
	MIG_R="ok $(gap_ms "$VG_DIR/ping.log") $lost ${down:-0}"
}

# mem_dump NAME FILE: guest NAME's physical memory into FILE (pmemsave:
#   runs in QEMU's main loop, so the query-status answered after it on
#   the same monitor means the file is whole)
mem_dump() {
	vg_qmp "$VG_DIR/$1.qmp" \
		'{"execute":"pmemsave","arguments":{"val":0,"size":'"$MEM_BYTES"',"filename":"'"$2"'"}}' \
		>/dev/null || true
	local end=$((SECONDS + 30))
	while [ "$(stat -c %s "$2" 2>/dev/null || echo 0)" != "$MEM_BYTES" ]; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
	vg_qmp "$VG_DIR/$1.qmp" '{"execute":"query-status"}' >/dev/null
}

# mem_verify FROM TO: compare the stopped source's memory with the paused
#   destination's; MIG_V = pages that differ (listed in $VG_DIR/TO.memcmp
#   with the bytes that differ in each, then the rings' addresses)
mem_verify() {
	local from=$1 to=$2 a=$VG_DIR/$1.mem b=$VG_DIR/$2.mem out=$VG_DIR/$2.memcmp q
	MIG_V=0
	if ! mem_dump "$from" "$a" || ! mem_dump "$to" "$b"; then
		MIG_V="? (no memory dump)"
		rm -f "$a" "$b"
		return
	fi
	# cmp -l: one line per byte that differs, offsets from 1 (and
	# status 1 when any does: not this function's failure)
	{ cmp -l "$a" "$b" 2>/dev/null || true; } |
		awk '{ p = int(($1 - 1) / 4096); n[p]++ }
		     END { for (p in n) printf "gpa 0x%x: %d bytes differ\n", p * 4096, n[p] }' |
		sort >"$out"
	MIG_V=$(wc -l <"$out")
	for q in 0 1; do
		vg_qmp "$VG_DIR/$to.qmp" '{"execute":"x-query-virtio-queue-status","arguments":{"path":"/machine/peripheral-anon/device[0]/virtio-backend","queue":'"$q"'}}' |
			{ grep -o '"vring-[a-z]*": [0-9]*' || true; } | tr '\n' ' ' |
			sed "s/^/queue $q: /" >>"$out"
		echo >>"$out"
	done
	rm -f "$a" "$b"
	[ "$MIG_V" = 0 ] || vg_log "$to: $MIG_V pages differ from $from's after the transfer"
}

# fail_dump NAME WHERE: what a failed run leaves to look at, on stdout:
#   the guest's console tail, both vhostd's last lines and the ring state
#   of the port the guest moved to (its indexes against the guest's)
fail_dump() {
	local name=$1 where=$2 ctl=$VG_DIR/ctl1.sock port
	echo "--- $name: guest console, last lines"
	tail -n 25 "$VG_DIR/$name.log" 2>/dev/null | sed 's/^/    /'
	echo "--- vhostd1, vhostd2: last lines"
	tail -n 8 "$VLOG" | sed 's/^/    1 /'
	tail -n 8 "$VLOG2" | sed 's/^/    2 /'
	case $where in
	*/p2a.sock) ctl=$VG_DIR/ctl2.sock ;;
	tap:*) return 0 ;;
	*/d[01].sock) echo "--- testpmd, last lines"
		tail -n 8 "$VG_DIR/dpdk.log" | sed 's/^/    /'; return 0 ;;
	esac
	port=${where##*/}
	port=${port%.sock}
	echo "--- vhostctl show $port"
	"$(dirname "$VHOSTD")/vhostctl" --ctl "$ctl" show "$port" 2>&1 |
		sed 's/^/    /'
}

# start_dpdk: the dpdk case's back end, once (see the top)
start_dpdk() {
	[ -z "$DPDK_PID" ] || return 0
	command -v dpdk-testpmd >/dev/null ||
		vg_die "the dpdk case needs dpdk-testpmd (apt-get install dpdk)"
	mkfifo "$VG_DIR/dpdk.in"
	# The vdevs' order is the ports' (io forwarding pairs 0-1, 2-3).
	ip netns exec "$NS" dpdk-testpmd -l 0,1 --main-lcore 0 --no-pci \
		--no-huge -m 1024 --no-shconf --file-prefix vhgmig$$ \
		--vdev "net_vhost0,iface=$VG_DIR/d0.sock" --vdev net_tap0,iface=da \
		--vdev "net_vhost1,iface=$VG_DIR/d1.sock" --vdev net_tap1,iface=db \
		-- --forward-mode=io --auto-start --nb-cores=1 \
		--total-num-mbufs=16384 <"$VG_DIR/dpdk.in" >"$VG_DIR/dpdk.log" 2>&1 &
	DPDK_PID=$!
	VG_EXTRA_PIDS+=("$DPDK_PID")
	exec {DPDK_FD}>"$VG_DIR/dpdk.in"
	vg_wait_for 30 "d1.sock" test -S "$VG_DIR/d1.sock"
	vg_wait_for 10 "tap db" have_link "$NS" db
	ip -n "$NS" link set da master br1 up
	ip -n "$NS" link set db master br1 up
}

# median N...: the median of integers
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

# run_case CASE A B: boot on A, migrate MIG_RUNS times between A and B
declare -A OUTAGE
run_case() {
	local c=$1 a=$2 b=$3 i name prev where ok=0 gaps=() losts=() downs=() r why=
	local frozen=0
	prev=$c-0
	boot_at "$prev" "$a"
	vg_wait_ready "$prev" || { why="guest did not boot"; }
	for i in $(seq 1 "$MIG_RUNS"); do
		[ -z "$why" ] || break
		name=$c-$i
		where=$b
		[ $((i % 2)) = 0 ] && where=$a
		migrate "$prev" "$name" "$where"
		r=$MIG_R
		vg_log "$c run $i -> ${where##*/}: $r"
		# A TCG guest that freezes on arrival (soft lockup on its
		# console: its vCPU runs nothing but the watchdog's timer, so
		# no byte can arrive) is QEMU's, not the backend's: seen in 3
		# of ~100 runs, vhostd's counters and logs clean.  Such a run
		# is done again once, on a freshly booted guest, and said so
		# in the result line; any other failure is final.
		if [ "${r%% *}" = FAIL ] && [ "$frozen" = 0 ] &&
		   grep -q 'soft lockup' "$VG_DIR/$name.log" 2>/dev/null; then
			frozen=1
			vg_log "$c run $i: $name froze (soft lockup): once more"
			vg_stop_all
			prev=$c-0r
			boot_at "$prev" "$a"
			vg_wait_ready "$prev" || { why="guest did not boot"; break; }
			name=$c-${i}r
			where=$b
			[ $((i % 2)) = 0 ] && where=$a
			migrate "$prev" "$name" "$where"
			r=$MIG_R
			vg_log "$c run $i again -> ${where##*/}: $r"
		fi
		case $r in
		ok*) ok=$((ok + 1)); set -- $r; gaps+=("$2"); losts+=("$3")
		     downs+=("$4") ;;
		*) why="run $i: ${r#FAIL }"; fail_dump "$name" "$where"; break ;;
		esac
		prev=$name
	done
	vg_stop_all
	local med=- max=- lost=0 l down=-
	if [ ${#gaps[@]} -gt 0 ]; then
		med=$(median "${gaps[@]}")
		down=$(median "${downs[@]}")
		max=$(printf '%s\n' "${gaps[@]}" | sort -n | tail -n 1)
		for l in "${losts[@]}"; do lost=$((lost + l)); done
	fi
	OUTAGE[$c]=$med
	local detail="$ok/$MIG_RUNS migrations with sha256 intact, outage median $med ms (max $max; QEMU's downtime median $down ms), $lost pings lost"
	[ "$frozen" = 1 ] && detail="$detail (one run redone: the TCG guest froze on arrival)"
	local tname=guest-migrate-$c
	if [ "$ok" = "$MIG_RUNS" ]; then
		printf 'PASS %-22s %s\n' "$tname" "$detail"
		[ -n "${TEST_RESULTS:-}" ] && echo "PASS $tname $detail" >>"$TEST_RESULTS"
	else
		FAILS=$((FAILS + 1))
		printf 'FAIL %-22s %s; %s\n' "$tname" "$detail" "$why"
		[ -n "${TEST_RESULTS:-}" ] && echo "FAIL $tname $detail; $why" >>"$TEST_RESULTS"
	fi
	return 0
}

for c in $MIG_CASES; do
	case $c in
	port) run_case port "$VG_DIR/p1a.sock" "$VG_DIR/p1b.sock" ;;
	host) run_case host "$VG_DIR/p1a.sock" "$VG_DIR/p2a.sock" ;;
	rarp)
		VG_NIC_OPTS=guest_announce=off${VG_NIC_OPTS:+,$VG_NIC_OPTS} \
			run_case rarp "$VG_DIR/p1a.sock" "$VG_DIR/p2a.sock"
		# QEMU asked for the RARP (the guest could not announce)
		grep -q 'SEND_RARP' "$VLOG" "$VLOG2" || {
			echo "FAIL guest-migrate-rarp: no SEND_RARP reached vhostd"
			[ -n "${TEST_RESULTS:-}" ] &&
				echo "FAIL guest-migrate-rarp-sent no SEND_RARP reached vhostd" >>"$TEST_RESULTS"
			FAILS=$((FAILS + 1))
		}
		;;
	tap) run_case tap tap:qa tap:qb ;;
	dpdk)
		start_dpdk
		VG_NIC_OPTS=$VG_NO_OFFLOADS${VG_NIC_OPTS:+,$VG_NIC_OPTS} \
			run_case dpdk "$VG_DIR/d0.sock" "$VG_DIR/d1.sock" ;;
	*) vg_die "unknown case $c" ;;
	esac
done
echo "outage median (ms): port ${OUTAGE[port]:--}, host ${OUTAGE[host]:--}, rarp ${OUTAGE[rarp]:--}, QEMU virtio-net + TAP ${OUTAGE[tap]:--}${OUTAGE[dpdk]:+, DPDK vhost ${OUTAGE[dpdk]}}"
vg_vhostd_alive || { echo "FAIL vhostd1 exited"; FAILS=$((FAILS + 1)); }
# An ASan/UBSan build reports into its log and may carry on.
if grep -qE 'ERROR: AddressSanitizer|runtime error:' "$VLOG" "$VLOG2"; then
	echo "FAIL sanitizer: $(grep -hm1 -E 'ERROR: AddressSanitizer|runtime error:' "$VLOG" "$VLOG2")"
	[ -n "${TEST_RESULTS:-}" ] &&
		echo "FAIL guest-migrate-sanitizer a vhostd reported a sanitizer error" >>"$TEST_RESULTS"
	FAILS=$((FAILS + 1))
fi
kill -0 "$VHOSTD2_PID" 2>/dev/null || { echo "FAIL vhostd2 exited"; FAILS=$((FAILS + 1)); }
[ "$FAILS" = 0 ]
