#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/package.sh - make install, the systemd unit, the Debian package
#
#   source tree --make install DESTDIR--> $TMP/dest    file list, uninstall
#        |                                   |
#        |                                   +-- vhostd.service: systemd-analyze
#        |                                       verify, security <= SECURITY_MAX
#        +--copy--> $TMP/src --dpkg-buildpackage--> vhostd_*.deb --> lintian
#                                                        |
#                                               dpkg -i (this machine)
#                                                        |
#        +------------------------------------------+----------------------------+
#        | pkg-run: a netns + a mount ns (tmpfs on  | pkg-service: systemd boots |
#        | /run/vhostd); setpriv as the unit's      | this machine's / read-only |
#        | User=, capabilities, no_new_privs; its   | in nspawn and starts       |
#        | ExecStart, VHOSTD_OPTS (--config), ports | vhostd.service itself      |
#        |        <-- vhostctl                      | <-- vdrv, ctl, reload      |
#        +------------------------------------------+----------------------------+
#                                                        |
#                                               dpkg --purge: nothing left
#
#   pkg-install      make install DESTDIR: exactly the expected files, modes,
#                    the unit's @...@ substituted; PREFIX=/usr moves them;
#                    an edited /etc/default/vhostd survives install/uninstall
#                    (the unedited /etc/vhostd/vhostd.conf does not)
#   pkg-uninstall    make uninstall: no file or link left under DESTDIR
#   pkg-unit-verify  systemd-analyze verify of the installed unit (its
#                    ExecStart pointed at the DESTDIR binary)
#   pkg-unit-security systemd-analyze security --offline: the exposure
#                    score, printed, at most SECURITY_MAX (3.0)
#   pkg-deb-build    dpkg-buildpackage -us -uc -b in a copy of the tree
#                    (make check included): the .deb holds the same files
#   pkg-lintian      lintian: no error or warning that is not overridden
#                    (debian/vhostd.lintian-overrides, each with a reason)
#   pkg-deb-install  dpkg -i: vhostd --version/--help, vhostctl --help,
#                    man -w, the vhostd user, /run/vhostd (tmpfiles), the
#                    unit enabled and verified where it is installed
#   pkg-run          the installed vhostd started as the unit starts it
#                    (above): ctl answers, a TAP and a vhost-user port
#                    under /run/vhostd, CapEff none, NoNewPrivs, seccomp;
#                    exit 0 on SIGTERM, sockets gone
#   pkg-service      systemd 252 boots this machine's / (read-only, /var
#                    a tmpfs, private network) in systemd-nspawn and runs
#                    vhostd.service itself: user vhostd, no capability
#                    left, both filters; a vdrv guest pings another
#                    through it, a socket handed to nobody (CAP_CHOWN), a
#                    TAP with eBPF steering, port add, a port added to
#                    /etc/vhostd/vhostd.conf and `systemctl reload`,
#                    --state under /var/lib/vhostd, the online security
#                    score; stop: success, /run/vhostd removed.  SKIP
#                    without nspawn
#   pkg-purge        dpkg --purge: every file of the package gone, the
#                    conffile, the enable link, /var/lib/vhostd
#
# Usage: tests/package.sh [NAME-GLOB...]   (root for the deb-install
# tests; BUILD=dir, default build; SECURITY_MAX=N).  Installs the package
# on this machine and purges it again; refuses (skips) when a vhostd
# package is installed already.  A vhostd user and /run/vhostd that the
# test's install created are removed again at the end.

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
SECURITY_MAX=${SECURITY_MAX:-3.0}
# The programs lib.sh and the service test need, built like `make` does.
make -s -C "$ROOT" O="$BUILD" "$BUILD/vhostd" "$BUILD/vhostctl" \
	"$BUILD/tests/vdrv_tool" || exit 2

TMP=$(mktemp -d /tmp/vhostd-pkg.XXXXXX)
NS=vhpkg$$
FILTER=("$@")
# shellcheck source=tests/integration/lib.sh
. "$ROOT/tests/integration/lib.sh"

for c in systemd-analyze dpkg-buildpackage lintian setpriv unshare; do
	command -v "$c" >/dev/null ||
		{ echo "missing $c (tests/deps.sh)"; exit 2; }
done

DEB=
INSTALLED=0		# this script installed the package (cleanup purges)
USER_BEFORE=0		# a vhostd user existed before
RUNDIR_BEFORE=0		# /run/vhostd existed before
getent passwd vhostd >/dev/null && USER_BEFORE=1
[ -e /run/vhostd ] && RUNDIR_BEFORE=1

pkg_cleanup() {
	if [ "$INSTALLED" = 1 ]; then
		dpkg --purge vhostd >/dev/null 2>&1
		pkg_restore
	fi
}
IT_CLEANUP_HOOK=pkg_cleanup

# pkg_restore: what the package's install made on this machine and a
#   purge keeps (the system user, the tmpfiles directory), removed when
#   it was not there before the test
pkg_restore() {
	[ "$RUNDIR_BEFORE" = 0 ] && rm -rf /run/vhostd
	if [ "$USER_BEFORE" = 0 ] && getent passwd vhostd >/dev/null; then
		userdel vhostd 2>/dev/null
		getent group vhostd >/dev/null && groupdel vhostd 2>/dev/null
	fi
	INSTALLED=0
}

# fail TEXT: one failure of the current test, in $ERR
fail() {
	ERR="${ERR:+$ERR; }$1"
}

# finish NAME DETAIL: the current test's result from $ERR
finish() {
	if [ -z "$ERR" ]; then
		result "$1" 0 "$2"
	else
		result "$1" 1 "$ERR"
	fi
	ERR=
}

# score FILE-OR-UNIT [OPTIONS...]: systemd-analyze security's exposure
score() {
	systemd-analyze security "$@" 2>&1 | tee "$TMP/security.txt" |
		sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'
}

# le A B: A <= B, decimals
le() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && a + 0 <= b + 0) }'
}

# The files make install puts under DESTDIR with its defaults.
EXPECT_LOCAL="etc/default/vhostd 644
etc/vhostd/vhostd.conf 644
usr/local/bin/vhostctl 755
usr/local/lib/systemd/system/vhostd.service 644
usr/local/lib/sysusers.d/vhostd.conf 644
usr/local/lib/tmpfiles.d/vhostd.conf 644
usr/local/sbin/vhostd 755
usr/local/share/bash-completion/completions/vhostctl 644
usr/local/share/man/man8/vhostctl.8 644
usr/local/share/man/man8/vhostd.8 644"

DEST=$TMP/dest
UNIT=$DEST/usr/local/lib/systemd/system/vhostd.service

# --- make install / uninstall -------------------------------------------
if wanted pkg-install || wanted pkg-uninstall || wanted 'pkg-unit-*'; then
	make -s -C "$ROOT" O="$BUILD" install DESTDIR="$DEST" >"$TMP/install.log" 2>&1 ||
		fail "make install failed: $(tail -n 1 "$TMP/install.log")"
	got=$(cd "$DEST" 2>/dev/null && find . \( -type f -o -type l \) -printf '%P %m\n' | sort)
	[ "$got" = "$EXPECT_LOCAL" ] ||
		fail "installed files differ: $(diff <(echo "$EXPECT_LOCAL") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
	grep -q '@[A-Z]*@' "$UNIT" 2>/dev/null && fail "unit keeps a placeholder: $(grep -m1 '@[A-Z]*@' "$UNIT")"
	# shellcheck disable=SC2016 # the unit's literal $VHOSTD_OPTS
	grep -qx 'ExecStart=/usr/local/sbin/vhostd $VHOSTD_OPTS' "$UNIT" ||
		fail "ExecStart: $(grep ExecStart= "$UNIT")"
	grep -qx 'EnvironmentFile=-/etc/default/vhostd' "$UNIT" ||
		fail "EnvironmentFile: $(grep EnvironmentFile= "$UNIT")"
	grep -q '^vhostd ' <<<"$("$DEST/usr/local/sbin/vhostd" --version 2>&1)" ||
		fail "installed vhostd --version"
	# PREFIX moves everything but the configuration.
	make -s -C "$ROOT" O="$BUILD" install DESTDIR="$TMP/dest-usr" PREFIX=/usr \
		SYSTEMDUNITDIR=/lib/systemd/system >/dev/null 2>&1 || fail "make install PREFIX=/usr"
	for f in usr/sbin/vhostd usr/bin/vhostctl usr/share/man/man8/vhostd.8 \
		 lib/systemd/system/vhostd.service usr/lib/sysusers.d/vhostd.conf \
		 usr/lib/tmpfiles.d/vhostd.conf etc/default/vhostd etc/vhostd/vhostd.conf; do
		[ -e "$TMP/dest-usr/$f" ] || fail "PREFIX=/usr: no $f"
	done
	# shellcheck disable=SC2016 # the unit's literal $VHOSTD_OPTS
	grep -qx 'ExecStart=/usr/sbin/vhostd $VHOSTD_OPTS' \
		"$TMP/dest-usr/lib/systemd/system/vhostd.service" 2>/dev/null ||
		fail "PREFIX=/usr: ExecStart not /usr/sbin/vhostd"
	# An edited configuration survives a reinstall and an uninstall.
	cp -a "$DEST" "$TMP/dest-edit"
	echo 'VHOSTD_OPTS="--ctl /run/vhostd/ctl.sock --fdb-age 60"' >>"$TMP/dest-edit/etc/default/vhostd"
	cp "$TMP/dest-edit/etc/default/vhostd" "$TMP/edited"
	make -s -C "$ROOT" O="$BUILD" install DESTDIR="$TMP/dest-edit" >/dev/null 2>&1
	make -s -C "$ROOT" O="$BUILD" uninstall DESTDIR="$TMP/dest-edit" >/dev/null 2>&1
	cmp -s "$TMP/edited" "$TMP/dest-edit/etc/default/vhostd" ||
		fail "an edited /etc/default/vhostd was replaced or removed"
	[ "$(find "$TMP/dest-edit" -type f | wc -l)" = 1 ] ||
		fail "uninstall with an edited configuration left more than it"
	wanted pkg-install && finish pkg-install "$(echo "$EXPECT_LOCAL" | wc -l) files under /usr/local and /etc"
	ERR=
fi

if wanted 'pkg-unit-*'; then
	# verify runs ExecStart's command: point it at the binary in DESTDIR.
	mkdir -p "$TMP/verify"
	sed "s|^ExecStart=/usr/local/sbin/vhostd|ExecStart=$DEST/usr/local/sbin/vhostd|" \
		"$UNIT" >"$TMP/verify/vhostd.service"
	if systemd-analyze verify --man=no "$TMP/verify/vhostd.service" >"$TMP/verify.log" 2>&1 &&
	   [ ! -s "$TMP/verify.log" ]; then
		wanted pkg-unit-verify && result pkg-unit-verify 0 "no finding"
	else
		wanted pkg-unit-verify && result pkg-unit-verify 1 "$(head -n 3 "$TMP/verify.log" | tr '\n' ' ')"
	fi
	if wanted pkg-unit-security; then
		s=$(score --offline=yes "$UNIT")
		grep -E '^✗' "$TMP/security.txt" | sed 's/^/    /'
		if le "$s" "$SECURITY_MAX"; then
			result pkg-unit-security 0 "exposure $s (at most $SECURITY_MAX)"
		else
			result pkg-unit-security 1 "exposure ${s:-unreadable} above $SECURITY_MAX"
		fi
	fi
fi

if wanted pkg-uninstall; then
	make -s -C "$ROOT" O="$BUILD" uninstall DESTDIR="$DEST" >"$TMP/uninstall.log" 2>&1 ||
		fail "make uninstall failed"
	left=$(find "$DEST" \( -type f -o -type l \) -printf '%P ' 2>/dev/null)
	[ -z "$left" ] || fail "left behind: $left"
	finish pkg-uninstall "nothing left under DESTDIR"
fi

# --- the Debian package -------------------------------------------------
DEB_WANTED=0
for t in pkg-deb-build pkg-lintian pkg-deb-install pkg-run pkg-service pkg-purge; do
	wanted "$t" && DEB_WANTED=1
done

if [ "$DEB_WANTED" = 1 ]; then
	# A copy of the tree without build outputs: the build happens out of
	# the source directory and leaves nothing in it.
	mkdir -p "$TMP/src/vhostd"
	if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$ROOT" && git ls-files -co --exclude-standard -z |
			tar --null -cf - -T -) | tar -xf - -C "$TMP/src/vhostd"
	else
		tar -C "$ROOT" --exclude='./build*' -cf - . | tar -xf - -C "$TMP/src/vhostd"
	fi
	(cd "$TMP/src/vhostd" && dpkg-buildpackage -us -uc -b) >"$TMP/deb.log" 2>&1
	rc=$?
	DEB=$(find "$TMP/src" -maxdepth 1 -name 'vhostd_*_*.deb' | head -n 1)
	if [ $rc != 0 ] || [ -z "$DEB" ]; then
		fail "dpkg-buildpackage exit $rc: $(grep -m1 -iE 'error|unmet' "$TMP/deb.log")"
		tail -n 20 "$TMP/deb.log" | sed 's/^/    | /'
	else
		files=$(dpkg-deb -c "$DEB" | awk '{print $6}')
		for f in ./usr/sbin/vhostd ./usr/bin/vhostctl ./usr/share/man/man8/vhostd.8.gz \
			 ./usr/share/man/man8/vhostctl.8.gz ./lib/systemd/system/vhostd.service \
			 ./usr/lib/sysusers.d/vhostd.conf ./usr/lib/tmpfiles.d/vhostd.conf \
			 ./etc/default/vhostd ./etc/vhostd/vhostd.conf \
			 ./usr/share/bash-completion/completions/vhostctl; do
			grep -qx "$f" <<<"$files" || fail "the .deb lacks $f"
		done
		grep -q 'PASSED' "$TMP/deb.log" || fail "dh_auto_test ran no unit test"
	fi
	wanted pkg-deb-build && finish pkg-deb-build "$(basename "${DEB:-none}"), $(grep -c '^\[  PASSED' "$TMP/deb.log") unit binaries passed in dh_auto_test"
	ERR=
fi

if wanted pkg-lintian; then
	if [ -z "$DEB" ]; then
		skip pkg-lintian "no .deb built"
	else
		lintian -I --pedantic --show-overrides "$TMP"/src/vhostd_*.changes \
			>"$TMP/lintian.log" 2>&1
		lintian --fail-on error,warning "$TMP"/src/vhostd_*.changes \
			>"$TMP/lintian-fail.log" 2>&1
		rc=$?
		grep -E '^[EWIPO]:' "$TMP/lintian.log" | sed 's/^/    /'
		tags=$(grep -cE '^[EW]:' "$TMP/lintian.log")
		over=$(grep -cE '^O:' "$TMP/lintian.log")
		if [ $rc = 0 ] && [ "$tags" = 0 ]; then
			result pkg-lintian 0 "no error or warning ($over overridden, each with its reason)"
		else
			result pkg-lintian 1 "exit $rc, $tags errors/warnings: $(grep -m1 -E '^[EW]:' "$TMP/lintian.log")"
		fi
	fi
fi

# Tests on this machine's package database.
CAN_INSTALL=
if [ "$(id -u)" != 0 ]; then
	CAN_INSTALL="needs root"
elif grep -q installed <<<"$(dpkg-query -W -f='${Status}' vhostd 2>/dev/null)"; then
	CAN_INSTALL="a vhostd package is installed already"
elif [ -z "$DEB" ]; then
	CAN_INSTALL="no .deb built"
fi

# Docker's minimal Debian images tell dpkg to leave out manual pages.
MAN_EXCLUDED=
grep -qs '^path-exclude=*/usr/share/man' /etc/dpkg/dpkg.cfg.d/* && MAN_EXCLUDED=1

if [ -z "$CAN_INSTALL" ] && { wanted pkg-deb-install || wanted pkg-run ||
			      wanted pkg-service || wanted pkg-purge; }; then
	INSTALLED=1
	DEBIAN_FRONTEND=noninteractive dpkg -i "$DEB" >"$TMP/dpkg-i.log" 2>&1 ||
		fail "dpkg -i: $(grep -m1 -iE 'error|depend' "$TMP/dpkg-i.log")"
	dpkg -L vhostd >"$TMP/dpkg-L" 2>/dev/null
	v=$(dpkg-deb -f "$DEB" Version)
	[ "$(/usr/sbin/vhostd --version 2>&1)" = "vhostd $v" ] ||
		fail "vhostd --version: '$(/usr/sbin/vhostd --version 2>&1)', package $v"
	# Not "| grep -q" under pipefail: grep's early exit would make
	# vhostd's last write fail with SIGPIPE, now and then.
	grep -q -- '--port' <<<"$(/usr/sbin/vhostd --help 2>&1)" || fail "vhostd --help"
	/usr/bin/vhostctl --help >/dev/null 2>&1 || fail "vhostctl --help"
	if [ -z "$MAN_EXCLUDED" ]; then
		for m in vhostd vhostctl; do
			[ "$(man -w "$m" 2>/dev/null)" = /usr/share/man/man8/$m.8.gz ] ||
				fail "man -w $m: '$(man -w "$m" 2>&1)'"
		done
	fi
	getent passwd vhostd >/dev/null || fail "no vhostd user (sysusers)"
	[ "$(stat -c %U 2>/dev/null /run/vhostd)" = vhostd ] ||
		fail "/run/vhostd not made for vhostd (tmpfiles)"
	[ -L /etc/systemd/system/multi-user.target.wants/vhostd.service ] ||
		fail "unit not enabled"
	for f in /etc/default/vhostd /etc/vhostd/vhostd.conf; do
		grep -q "$f" <<<"$(dpkg-query -W -f='${Conffiles}' vhostd)" ||
			fail "$f is no conffile"
	done
	if ! systemd-analyze verify /lib/systemd/system/vhostd.service \
		>"$TMP/verify-deb.log" 2>&1 || [ -s "$TMP/verify-deb.log" ]; then
		fail "systemd-analyze verify: $(head -n 2 "$TMP/verify-deb.log" | tr '\n' ' ')"
	fi
	wanted pkg-deb-install && finish pkg-deb-install \
		"$v: --version, --help, ${MAN_EXCLUDED:+(man pages excluded by dpkg.cfg.d) }man -w, user, /run/vhostd, enabled, verify"
	ERR=
else
	for t in pkg-deb-install pkg-run pkg-service pkg-purge; do
		wanted "$t" && skip "$t" "$CAN_INSTALL"
	done
fi

# unit_key KEY: the installed unit's value of KEY (the last one)
unit_key() {
	sed -n "s/^$1=//p" /lib/systemd/system/vhostd.service | tail -n 1
}

if [ "$INSTALLED" = 1 ] && wanted pkg-run; then
	# As the unit starts it, without systemd: its User=, Group=,
	# AmbientCapabilities= and CapabilityBoundingSet= through setpriv,
	# no_new_privs, ExecStart with /etc/default/vhostd's VHOSTD_OPTS, a
	# tmpfs for RuntimeDirectory=, in a netns of its own for the TAP.
	caps=$(unit_key AmbientCapabilities | tr '[:upper:]' '[:lower:]' | sed 's/cap_/+/g; s/ /,/g')
	bound=$(unit_key CapabilityBoundingSet | tr '[:upper:]' '[:lower:]' | sed 's/cap_/+/g; s/ /,/g')
	exe=$(unit_key ExecStart | sed 's/ .*//')
	cat >"$TMP/run.sh" <<-EOF
	#!/bin/bash
	set -u
	. /etc/default/vhostd
	mount -t tmpfs -o mode=0755 tmpfs /run/vhostd || exit 3
	chown $(unit_key User):$(unit_key Group) /run/vhostd
	setpriv --reuid=$(unit_key User) --regid=$(unit_key Group) --init-groups \\
		--inh-caps=-all,$caps --ambient-caps=-all,$caps \\
		--bounding-set=-all,$bound --no-new-privs -- \\
		$exe \$VHOSTD_OPTS --port vhost-user,path=/run/vhostd/vm1.sock,name=vm1 \\
		--port tap,ifname=vh0,name=host >$TMP/run-vhostd.log 2>&1 &
	pid=\$!
	for i in \$(seq 100); do [ -S /run/vhostd/ctl.sock ] && break; sleep 0.05; done
	grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs|Seccomp):' /proc/\$pid/status >$TMP/run-status
	stat -c '%n %U %a' /run/vhostd/vm1.sock /run/vhostd/ctl.sock >$TMP/run-stat
	/usr/bin/vhostctl --json ports >$TMP/run-ports 2>&1
	ip -br link show vh0 >$TMP/run-link 2>&1
	kill -TERM \$pid
	wait \$pid
	echo \$? >$TMP/run-rc
	ls -A /run/vhostd >$TMP/run-left
	EOF
	ip netns add "$NS" && NS_MADE=1
	timeout 30 ip netns exec "$NS" unshare -m --propagation private bash "$TMP/run.sh"
	uid=$(id -u vhostd)
	grep -q "^Uid:[[:space:]]*${uid}[[:space:]]" "$TMP/run-status" 2>/dev/null || fail "not uid $uid: $(grep Uid "$TMP/run-status" 2>/dev/null)"
	grep -qE '^CapEff:[[:space:]]*0+$|^CapEff:[[:space:]]*0*8000000000$' "$TMP/run-status" 2>/dev/null ||
		fail "capabilities left: $(grep CapEff "$TMP/run-status" 2>/dev/null)"
	grep -q '^NoNewPrivs:[[:space:]]*1' "$TMP/run-status" 2>/dev/null || fail "no no_new_privs"
	grep -q '^Seccomp:[[:space:]]*2' "$TMP/run-status" 2>/dev/null || fail "no seccomp filter"
	[ "$(jq -r '[.ports[].name] | join(",")' "$TMP/run-ports" 2>/dev/null)" = vm1,host ] ||
		fail "vhostctl ports: $(head -c 200 "$TMP/run-ports" 2>/dev/null)"
	grep -q '^vh0 ' "$TMP/run-link" 2>/dev/null || fail "no TAP vh0"
	grep -q '/run/vhostd/vm1.sock vhostd 660' "$TMP/run-stat" 2>/dev/null ||
		fail "socket: $(cat "$TMP/run-stat" 2>/dev/null)"
	[ "$(cat "$TMP/run-rc" 2>/dev/null)" = 0 ] || fail "exit status $(cat "$TMP/run-rc" 2>/dev/null) on SIGTERM"
	if [ ! -e "$TMP/run-left" ] || [ -s "$TMP/run-left" ]; then
		fail "left in /run/vhostd: $(cat "$TMP/run-left" 2>/dev/null)"
	fi
	[ -n "$ERR" ] && sed 's/^/    vhostd: /' "$TMP/run-vhostd.log" | tail -n 8
	finish pkg-run "uid vhostd, caps $caps then none, ctl + vhost-user + TAP, exit 0"
	ip netns del "$NS" 2>/dev/null
	NS_MADE=0
fi

if [ "$INSTALLED" = 1 ] && wanted pkg-service; then
	if ! command -v systemd-nspawn >/dev/null; then
		skip pkg-service "no systemd-nspawn (systemd-container)"
	else
		N=$TMP/ns
		mkdir -p "$N/out" "$N/root"
		cp "$BUILD/tests/vdrv_tool" "$N/out/"
		# The package's /etc/default/vhostd (--config) with this file
		# bound over /etc/vhostd/vhostd.conf, writable: check.sh adds a
		# port to it and reloads.
		cat >"$N/out/vhostd.conf" <<-'EOF'
		ctl /run/vhostd/ctl.sock
		state /var/lib/vhostd/state
		port vhost-user,path=/run/vhostd/vm1.sock,name=vm1
		port vhost-user,path=/run/vhostd/vm2.sock,name=vm2,owner=nobody,mode=0600
		port tap,ifname=vh0,name=host
		EOF
		cat >"$N/check.service" <<-'EOF'
		[Unit]
		Description=tests/package.sh: vhostd.service checked from inside
		After=vhostd.service multi-user.target
		SuccessAction=poweroff
		FailureAction=poweroff
		[Service]
		Type=oneshot
		ExecStart=/run/out/check.sh
		EOF
		cat >"$N/out/check.sh" <<-'EOF'
		#!/bin/bash
		# Runs inside the container as the last unit; writes /run/out/*.
		cd /run/out || exit 1
		systemctl start vhostd.service
		for i in $(seq 100); do [ -S /run/vhostd/ctl.sock ] && break; sleep 0.05; done
		systemctl show -p ActiveState,SubState,User vhostd >show
		pid=$(systemctl show -p MainPID --value vhostd)
		grep -E '^(Uid|Cap[A-Za-z]+|NoNewPrivs|Seccomp|Seccomp_filters):' /proc/$pid/status >status
		stat -c '%n %U %a' /run/vhostd/*.sock >stat
		vhostctl --json ports >ports 2>&1
		./vdrv_tool responder --sock /run/vhostd/vm2.sock --mac 52:54:00:00:00:02 \
			--ip 198.18.0.2 --seconds 30 >responder 2>&1 &
		./vdrv_tool pinger --sock /run/vhostd/vm1.sock --mac 52:54:00:00:00:01 \
			--ip 198.18.0.1 --peer-ip 198.18.0.2 --count 5 --expect 5 >pinger 2>&1
		echo $? >pinger-rc
		kill $!
		vhostctl port add vhost-user,path=/run/vhostd/vm3.sock,name=vm3 >portadd 2>&1
		echo 'port vhost-user,path=/run/vhostd/vm4.sock,name=vm4' >>/etc/vhostd/vhostd.conf
		systemctl reload vhostd.service
		for i in $(seq 100); do [ -S /run/vhostd/vm4.sock ] && break; sleep 0.05; done
		vhostctl --json ports >reloaded 2>&1
		ip -br link show vh0 >link 2>&1
		systemd-analyze security vhostd.service >security 2>&1
		systemctl stop vhostd.service
		systemctl show -p Result,ExecMainStatus vhostd >stopped
		ls -A /run/vhostd >rundir 2>&1
		stat -c '%n %U %a' /var/lib/vhostd/state >state 2>&1
		journalctl -u vhostd --no-pager -o cat >journal 2>&1
		echo done >done
		EOF
		chmod 755 "$N/out/check.sh"
		# The host's / bound without its submounts and read-only, in a
		# mount namespace of its own: the container sees the installed
		# package and can change nothing of this machine.  Where systemd
		# is PID 1 here, nspawn asks it for a scope of its own; where it
		# is not, it runs in the cgroup it was started in.
		scope=(--register=no --keep-unit)
		[ -d /run/systemd/system ] && scope=(--register=no)
		# shellcheck disable=SC2016 # expanded by the inner bash
		timeout 120 unshare -m --propagation private bash -c '
			mount --bind / "$1" && mount -o remount,bind,ro "$1" || exit 1
			d=$1 n=$2; shift 2
			exec systemd-nspawn "$@" -q -D "$d" \
				--volatile=state --private-network \
				--capability=CAP_BPF,CAP_NET_ADMIN --system-call-filter=bpf \
				--bind="$n/out:/run/out" \
				--bind-ro="$n/check.service:/run/systemd/system/check.service" \
				--bind="$n/out/vhostd.conf:/etc/vhostd/vhostd.conf" \
				-b -- systemd.unit=multi-user.target systemd.wants=check.service
			' nspawn "$N/root" "$N" "${scope[@]}" >"$N/boot.log" 2>&1
		rc=$?
		O=$N/out
		if [ ! -e "$O/show" ]; then
			skip pkg-service "the container did not boot here (nspawn exit $rc: $(grep -m1 -iE 'fail|error|not supported' "$N/boot.log"))"
		else
			uid=$(id -u vhostd)
			grep -qx 'ActiveState=active' "$O/show" || fail "vhostd.service not active: $(tr '\n' ' ' <"$O/show")"
			grep -qx 'User=vhostd' "$O/show" || fail "not User=vhostd"
			grep -q "^Uid:[[:space:]]*${uid}[[:space:]]" "$O/status" || fail "not uid $uid"
			grep -qE '^CapEff:[[:space:]]*0+$|^CapEff:[[:space:]]*0*8000000000$' "$O/status" ||
				fail "capabilities left: $(grep CapEff "$O/status")"
			grep -q '^NoNewPrivs:[[:space:]]*1' "$O/status" || fail "no no_new_privs"
			grep -q '^Seccomp:[[:space:]]*2' "$O/status" || fail "no seccomp"
			f=$(sed -n 's/^Seccomp_filters:[[:space:]]*//p' "$O/status")
			[ "${f:-0}" -ge 2 ] || fail "Seccomp_filters $f: not systemd's and vhostd's"
			grep -q '^/run/vhostd/vm2.sock nobody 600$' "$O/stat" || fail "vm2 socket: $(grep vm2 "$O/stat")"
			grep -q '^/run/vhostd/vm1.sock vhostd 660$' "$O/stat" || fail "vm1 socket: $(grep vm1 "$O/stat")"
			[ "$(jq -r '[.ports[].name] | join(",")' "$O/ports" 2>/dev/null)" = vm1,vm2,host ] ||
				fail "vhostctl ports: $(head -c 200 "$O/ports")"
			[ "$(cat "$O/pinger-rc")" = 0 ] || fail "pinger: $(cat "$O/pinger")"
			grep -q '"ok":true' "$O/portadd" || fail "port add: $(cat "$O/portadd")"
			[ "$(jq -r '[.ports[].name] | join(",")' "$O/reloaded" 2>/dev/null)" = vm1,vm2,host,vm3,vm4 ] ||
				fail "after systemctl reload: $(jq -c '[.ports[].name]' "$O/reloaded" 2>&1)"
			grep -q 'reload: 1 added, 0 removed' "$O/journal" || fail "no reload line in the journal"
			grep -q '^vh0 ' "$O/link" || fail "no TAP vh0"
			grep -q 'a steered queue per guest' "$O/journal" || fail "TAP without eBPF steering"
			grep -qx 'Result=success' "$O/stopped" || fail "stop: $(tr '\n' ' ' <"$O/stopped")"
			grep -qx 'ExecMainStatus=0' "$O/stopped" || fail "exit: $(tr '\n' ' ' <"$O/stopped")"
			grep -q 'No such file' "$O/rundir" || fail "/run/vhostd after stop: $(cat "$O/rundir")"
			grep -q '^/var/lib/vhostd/state vhostd' "$O/state" || fail "--state: $(cat "$O/state")"
			s=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$O/security")
			le "$s" "$SECURITY_MAX" || fail "online exposure ${s:-unreadable} above $SECURITY_MAX"
			[ -n "$ERR" ] && sed 's/^/    journal: /' "$O/journal" | tail -n 12
			finish pkg-service "systemd $(systemctl --version | sed -n '1s/systemd \([0-9]*\).*/\1/p') in nspawn: $(sed -n 's/^pinger: //p' "$O/pinger"), online exposure $s"
		fi
	fi
fi

if [ "$INSTALLED" = 1 ] && wanted pkg-purge; then
	DEBIAN_FRONTEND=noninteractive dpkg --purge vhostd >"$TMP/purge.log" 2>&1 ||
		fail "dpkg --purge: $(tail -n 1 "$TMP/purge.log")"
	grep -q 'ok installed' <<<"$(dpkg-query -W -f='${Status}' vhostd 2>/dev/null)" &&
		fail "still installed"
	while IFS= read -r f; do
		[ -d "$f" ] && continue		# /usr, /etc/default...: shared
		[ -e "$f" ] || [ -L "$f" ] && fail "left: $f"
	done <"$TMP/dpkg-L"
	[ -e /etc/default/vhostd ] && fail "conffile /etc/default/vhostd left"
	[ -e /etc/systemd/system/multi-user.target.wants/vhostd.service ] && fail "enable link left"
	[ -e /var/lib/vhostd ] && fail "/var/lib/vhostd left"
	finish pkg-purge "$(wc -l <"$TMP/dpkg-L") paths of dpkg -L checked; the vhostd user stays, as Debian keeps system users (the test removes the one it made)"
	pkg_restore
fi

it_summary
