#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/integration/log.sh - where vhostd's messages go, and at which level
#
# The journal and syslog are stood in for by a listener of this test's
# own on their sockets (/run/systemd/journal/socket, /dev/log), inside a
# private mount namespace with a tmpfs over /run (over /dev for syslog):
# nothing of the host's journal or syslog is touched.
#
#   log-journal  --log journal: every message a datagram of the native
#                protocol with MESSAGE, PRIORITY and SYSLOG_IDENTIFIER; a
#                port's messages (a front end that breaks the protocol)
#                carry VHOSTD_PORT=vu0; nothing on stderr
#   log-auto     --log auto (the default) with $JOURNAL_STREAM naming
#                vhostd's stderr: the journal; without it: stderr
#   log-syslog   --log syslog: <PRIORITY>... vhostd[PID]: vu0: ... lines
#   log-level    vhostctl log level debug: debug lines from then on, info
#                after it: none; a bad level refused; a reload applies a
#                log-level line of the --config file
#
# Usage: tests/integration/log.sh [NAME-GLOB...]  (BUILD=dir, default
# build; VHOSTD_USER=nobody as tests/run.sh runs it).  Unix sockets only.

set -uo pipefail

TMP=$(mktemp -d /tmp/vhostd-log.XXXXXX)
NS=vhlg$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$(dirname "$0")/lib.sh"
TOOL=$BUILD/tests/vdrv_tool

for f in "$VHOSTD" "$TOOL" "$(command -v python3)" "$(command -v unshare)"; do
	[ -x "$f" ] || { echo "missing ${f:-python3/unshare}"; exit 2; }
done

# The listener: a unix datagram socket at $1, each datagram appended to
# $2 followed by a line "--", until its parent (vhostd, which it was
# started under) is gone.
cat >"$TMP/listen.py" <<'EOF'
import os, socket, sys
path, out = sys.argv[1], sys.argv[2]
parent = os.getppid()
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
os.chmod(path, 0o666)
s.settimeout(0.5)
with open(out, "ab", buffering=0) as f:
    while os.getppid() == parent:
        try:
            d = s.recv(65536)
        except socket.timeout:
            continue
        f.write(d + b"\n--\n")
EOF

# The wrapper vhostd runs under: a tmpfs over /run (journal) or /dev
# (syslog) in a mount namespace of its own, the listener on the socket,
# then vhostd itself (exec: the listener's parent).
cat >"$TMP/ns.sh" <<'EOF'
#!/bin/bash
kind=$1 tmp=$2
shift 2
if [ "$kind" = journal ]; then
	mount -t tmpfs -o mode=0755 vhostd-test /run || exit 1
	mkdir -p /run/systemd/journal
	sock=/run/systemd/journal/socket
else
	mount -t tmpfs -o mode=0755 vhostd-test /dev || exit 1
	mknod -m 666 /dev/null c 1 3
	mknod -m 666 /dev/zero c 1 5
	mknod -m 666 /dev/urandom c 1 9
	mknod -m 666 /dev/random c 1 8
	sock=/dev/log
fi
python3 "$tmp/listen.py" "$sock" "$tmp/$kind.out" &
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.02; done
[ -S "$sock" ] || exit 1
exec "$@"
EOF
chmod +x "$TMP/ns.sh"

# evil: a front end on vu0 that breaks the protocol (a port's warning)
evil() {
	timeout 20 "$TOOL" evil --sock "$TMP/p0.sock" --kind oob-desc \
		--timeout-ms 2000 >"$TMP/evil.out" 2>&1
}

# done_test NAME DETAIL
done_test() {
	stop_vhostd TERM || fail "vhostd died or exited uncleanly"
	result "$1" "$([ -z "$ERR" ] && echo 0 || echo 1)" "${ERR:-$2}"
	ERR=
}

# ---- log-journal ----------------------------------------------------------
if wanted log-journal; then
	ERR=
	rm -f "$TMP/journal.out"
	start_vhostd unshare -m --propagation private "$TMP/ns.sh" journal "$TMP" -- 1 --log journal ||
		fail "vhostd did not start: $(tail -3 "$TMP/vhostd.log")"
	evil
	for _ in $(seq 50); do
		grep -q '^VHOSTD_PORT=vu0' "$TMP/journal.out" 2>/dev/null && break
		sleep 0.1
	done
	j=$TMP/journal.out
	grep -q '^MESSAGE=running: 1 port' "$j" || fail "no 'running' message in the journal"
	grep -q '^SYSLOG_IDENTIFIER=vhostd$' "$j" || fail "no SYSLOG_IDENTIFIER"
	grep -q '^PRIORITY=6$' "$j" || fail "no PRIORITY=6 (info)"
	grep -q '^CODE_FILE=' "$j" && fail "CODE_FILE= sent (always log.c: noise)"
	# A port's message: VHOSTD_PORT in the same datagram.
	awk 'BEGIN { RS = "\n--\n" } /VHOSTD_PORT=vu0/ && /PRIORITY=4/ { n++ } END { exit !n }' "$j" ||
		fail "no warning datagram with VHOSTD_PORT=vu0: $(grep -c '^MESSAGE' "$j") messages"
	n=$(grep -c '^MESSAGE=' "$j")
	grep -q 'warning\|info:' "$TMP/vhostd.log" && fail "lines on stderr too: $(head -2 "$TMP/vhostd.log")"
	grep -q "seccomp" "$TMP/vhostd.log" && fail "$(grep -m1 seccomp "$TMP/vhostd.log")"
	done_test log-journal "$n messages as native journal datagrams, a port's warning with VHOSTD_PORT=vu0, stderr empty"
fi

# ---- log-auto -------------------------------------------------------------
if wanted log-auto; then
	ERR=
	rm -f "$TMP/journal.out"
	# $JOURNAL_STREAM as systemd sets it for StandardError=journal: the
	# device and inode of the stream, here the file stderr goes to.
	: >"$TMP/vhostd.log"
	js=$(stat -c '%d:%i' "$TMP/vhostd.log")
	JOURNAL_STREAM=$js start_vhostd unshare -m --propagation private "$TMP/ns.sh" journal "$TMP" -- 1 ||
		fail "vhostd did not start"
	for _ in $(seq 50); do
		grep -q '^MESSAGE=running' "$TMP/journal.out" 2>/dev/null && break
		sleep 0.1
	done
	grep -q '^MESSAGE=running' "$TMP/journal.out" 2>/dev/null || fail "JOURNAL_STREAM set: not in the journal"
	stop_vhostd TERM || fail "vhostd (journal) exited uncleanly"
	start_vhostd -- 1 || fail "vhostd did not start"
	for _ in $(seq 50); do
		grep -q 'info: running' "$TMP/vhostd.log" && break
		sleep 0.1
	done
	grep -q 'info: running' "$TMP/vhostd.log" || fail "without JOURNAL_STREAM: not on stderr"
	done_test log-auto "JOURNAL_STREAM naming stderr: the journal; without: stderr"
fi

# ---- log-syslog -----------------------------------------------------------
if wanted log-syslog; then
	ERR=
	rm -f "$TMP/syslog.out"
	start_vhostd unshare -m --propagation private "$TMP/ns.sh" syslog "$TMP" -- 1 --log syslog ||
		fail "vhostd did not start: $(tail -3 "$TMP/vhostd.log")"
	evil
	for _ in $(seq 50); do
		grep -q 'vu0: ' "$TMP/syslog.out" 2>/dev/null && break
		sleep 0.1
	done
	s=$TMP/syslog.out
	# LOG_DAEMON (3) * 8 + LOG_INFO (6) = 30, + LOG_WARNING (4) = 28
	grep -q "^<30>.*vhostd\[$VPID\]: running: 1 port" "$s" || fail "no '<30>... vhostd[$VPID]: running' line: $(head -c 300 "$s")"
	grep -q '^<28>.*vhostd\[[0-9]*\]: vu0: ' "$s" || fail "no '<28>... vu0: ' warning"
	n=$(grep -c 'vhostd\[' "$s")
	grep -q "seccomp" "$TMP/vhostd.log" && fail "$(grep -m1 seccomp "$TMP/vhostd.log")"
	done_test log-syslog "$n syslog lines, facility daemon, a port's warning as 'vu0: ...'"
fi

# ---- log-level ------------------------------------------------------------
if wanted log-level; then
	ERR=
	start_vhostd -- 1 || fail "vhostd did not start"
	timeout 10 "$TOOL" info --sock "$TMP/p0.sock" >/dev/null 2>&1
	sleep 0.2
	d0=$(grep -c ' debug: ' "$TMP/vhostd.log")
	vc log level debug || fail "log level debug: $(cat "$TMP/vc.err")"
	jq -e '.ok and .level == "debug" and .sink == "stderr"' "$TMP/vc.out" >/dev/null ||
		fail "reply $(cat "$TMP/vc.out")"
	timeout 10 "$TOOL" info --sock "$TMP/p0.sock" >/dev/null 2>&1
	sleep 0.2
	d1=$(grep -c ' debug: ' "$TMP/vhostd.log")
	vc log level info || fail "log level info"
	timeout 10 "$TOOL" info --sock "$TMP/p0.sock" >/dev/null 2>&1
	sleep 0.2
	d2=$(grep -c ' debug: ' "$TMP/vhostd.log")
	[ "$d0" = 0 ] || fail "$d0 debug lines at level info"
	[ "$d1" -gt 0 ] || fail "no debug line at level debug"
	[ "$d2" = "$d1" ] || fail "$((d2 - d1)) debug lines after going back to info"
	vc log level loud
	[ $? = 1 ] && grep -q "not error, warning, info or debug" "$TMP/vc.err" ||
		fail "bad level: $(cat "$TMP/vc.err")"
	stop_vhostd TERM || fail "vhostd exited uncleanly"
	# A reload applies the file's level.
	echo "port vhost-user,path=$TMP/f.sock,name=f" >"$TMP/c.conf"
	start_vhostd -- 1 --config "$TMP/c.conf" || fail "vhostd --config did not start"
	echo "log-level debug" >>"$TMP/c.conf"
	vc reload || fail "reload: $(cat "$TMP/vc.err")"
	grep -q 'reload: log level debug' "$TMP/vhostd.log" || fail "reload did not apply log-level debug"
	done_test log-level "debug lines: 0 at info, $d1 after 'log level debug', none more after 'log level info'; a bad level refused; a reload applied 'log-level debug'"
fi

it_summary
