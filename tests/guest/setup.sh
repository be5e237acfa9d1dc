#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/guest/setup.sh - fetch a Debian kernel and build the test-guest initramfs.
#
# Idempotent; run as root on Debian 12.  Everything lands in tests/guest/cache/
# (git-ignored):
#
#   apt (Debian 12) ---> qemu-system-x86, busybox-static, iperf3, iperf, sockperf,
#        |                iputils-ping, iproute2, cpio, kmod, socat, ethtool
#        v
#   linux-image-$KVER.deb --dpkg-deb -x--> cache/kroot/ --depmod--> insmod order
#        |
#        v
#   cache/vmlinuz          the guest kernel
#   cache/initramfs.gz     busybox + init.sh + virtio-net and 8021q modules +
#                          iperf3/iperf/sockperf/ping/ethtool and the shared
#                          libraries they need
#
# Environment: KVER (default 6.1.0-57-cloud-amd64, the exact package name suffix;
# never a glob, which would download every version), SKIP_APT=1 to skip apt-get,
# VG_CACHE (another cache directory, e.g. bench/guests' generic kernel, which
# has e1000), VG_EXTRA_MODS (more modules for the initramfs, e.g. "e1000 8139cp";
# init.sh loads them all, so the guest's eth0 is whichever NIC QEMU gives it).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CACHE=${VG_CACHE:-$HERE/cache}
KVER_SET=${KVER:-}
# A cache made with a fallback kernel (see below) stays in use.
[ -z "$KVER_SET" ] && [ -s "$CACHE/kver" ] && KVER=$(cat "$CACHE/kver")
KVER=${KVER:-6.1.0-57-cloud-amd64}
KPKG=linux-image-$KVER
PKGS=(qemu-system-x86 busybox-static iperf3 iperf sockperf iputils-ping iproute2
      cpio kmod socat gzip coreutils ethtool)
# ethtool: busybox has none; mq.sh sets the guest's channels (-L) with it.
TOOLS=(/usr/bin/iperf3 /usr/bin/iperf /usr/bin/sockperf /usr/bin/ping /usr/sbin/ethtool)

log() { printf 'setup: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (apt-get, cpio owners)"
mkdir -p "$CACHE"

# 1. Debian packages (only what is missing, so a warm run costs nothing).
if [ "${SKIP_APT:-0}" != 1 ]; then
	missing=()
	for p in "${PKGS[@]}"; do
		st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		[ "$st" = "install ok installed" ] || missing+=("$p")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		log "installing ${missing[*]}"
		export DEBIAN_FRONTEND=noninteractive
		apt-get install -y -q --no-install-recommends "${missing[@]}" >&2 || {
			apt-get update -q >&2
			apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
		}
	fi
fi
export PATH=$PATH:/usr/sbin:/sbin

# 2. The kernel, by exact package name.
KROOT=$CACHE/kroot
if [ ! -e "$KROOT/boot/vmlinuz-$KVER" ] || [ ! -e "$KROOT/lib/modules/$KVER/modules.dep" ]; then
	policy=$(apt-cache policy "$KPKG" 2>/dev/null)
	if ! grep -q 'Candidate: [0-9]' <<<"$policy" && [ "${SKIP_APT:-0}" != 1 ]; then
		apt-get update -q >&2	# stale package lists on a fresh machine
		policy=$(apt-cache policy "$KPKG" 2>/dev/null)
	fi
	if ! grep -q 'Candidate: [0-9]' <<<"$policy"; then
		# Security updates bump the ABI number and retire old packages:
		# fall back to the newest 6.1 cloud kernel apt knows, by exact name.
		[ -z "${KVER_SET:-}" ] || die "Debian offers no $KPKG"
		alt=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-cloud-amd64$' |
			awk '{print $1}' | sort -V | tail -n 1)
		[ -n "$alt" ] || die "Debian offers no $KPKG and no other 6.1 cloud kernel"
		log "no $KPKG here; using $alt (record this version)"
		KPKG=$alt
		KVER=${alt#linux-image-}
		policy=$(apt-cache policy "$KPKG" 2>/dev/null)
	fi
	log "downloading $KPKG ($(awk '/Candidate:/{print $2}' <<<"$policy"))"
	rm -rf "$CACHE/deb" "$KROOT"
	mkdir -p "$CACHE/deb"
	# _apt cannot write into root-owned dirs; the warning is harmless.
	(cd "$CACHE/deb" && apt-get download "$KPKG" >&2 2>/dev/null) ||
		die "apt-get download $KPKG failed"
	dpkg-deb -x "$CACHE"/deb/"$KPKG"_*.deb "$KROOT"
	depmod -b "$KROOT" "$KVER"
	rm -rf "$CACHE/deb"
fi
# Copy only on change: the initramfs is rebuilt when it is older than these.
cmp -s "$KROOT/boot/vmlinuz-$KVER" "$CACHE/vmlinuz" || cp -f "$KROOT/boot/vmlinuz-$KVER" "$CACHE/vmlinuz"
[ "$(cat "$CACHE/kver" 2>/dev/null)" = "$KVER" ] || echo "$KVER" > "$CACHE/kver"

# 3. The initramfs.  Rebuilt when init.sh or this script is newer than it.
OUT=$CACHE/initramfs.gz
if [ -e "$OUT" ] && [ "$OUT" -nt "$HERE/init.sh" ] && [ "$OUT" -nt "$HERE/setup.sh" ] &&
   [ "$OUT" -nt "$CACHE/vmlinuz" ] && [ "$OUT" -nt "$CACHE/kver" ] &&
   [ "$(cat "$CACHE/mods" 2>/dev/null)" = "${VG_EXTRA_MODS:-}" ]; then
	log "initramfs up to date: $OUT"
	exit 0
fi
log "building $OUT"
STAGE=$(mktemp -d "$CACHE/stage.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE"/{bin,sbin,dev,proc,sys,tmp,etc,lib64,modules,usr/bin,run}
# The initramfs has no libc for busybox itself: it must be the static one.
ldd /bin/busybox >/dev/null 2>&1 && die "/bin/busybox is dynamic: install busybox-static"
cp /bin/busybox "$STAGE/bin/busybox"
for a in $("$STAGE/bin/busybox" --list); do
	[ "$a" = busybox ] || ln -sf busybox "$STAGE/bin/$a"
done
install -m 0755 "$HERE/init.sh" "$STAGE/init"

# Module chain in insmod order (virtio_pci first, then virtio_net), deduplicated.
# 8021q (with llc, stp, garp, mrp) too, where the kernel has it: vlan.sh's
# guest makes 802.1Q devices.  A guest that makes none sends no frame more
# for it: the module only registers VID 0 in virtio-net's VLAN filter
# (CTRL_VLAN, QEMU's control queue; vhostd does not filter).
n=0
seen=" "
for m in virtio_pci virtio_net 8021q ${VG_EXTRA_MODS:-}; do
	if [ "$m" = 8021q ] &&
	   ! modprobe -d "$KROOT" -S "$KVER" --show-depends 8021q >/dev/null 2>&1; then
		log "$KVER has no 8021q: the guests get no VLAN devices (vlan.sh fails)"
		continue
	fi
	while read -r _ path _; do
		b=$(basename "$path")
		case "$seen" in *" $b "*) continue ;; esac
		seen="$seen$b "
		n=$((n + 1))
		case "$path" in
		*.ko.xz) xz -dc "$path" > "$STAGE/modules/$(printf %02d "$n")-${b%.xz}" ;;
		*.ko.zst) zstd -qdc "$path" > "$STAGE/modules/$(printf %02d "$n")-${b%.zst}" ;;
		*) cp "$path" "$STAGE/modules/$(printf %02d "$n")-$b" ;;
		esac
	done < <(modprobe -d "$KROOT" -S "$KVER" --show-depends "$m" | grep '^insmod ')
done
[ "$n" -ge 2 ] || die "no virtio modules found for $KVER"

# Real tools plus their shared libraries (busybox ping lacks -f and friends).
for t in "${TOOLS[@]}"; do
	cp "$t" "$STAGE/usr/bin/"
	for lib in $(ldd "$t" | awk '/=> \//{print $3} /^[[:space:]]*\/lib/{print $1}'); do
		mkdir -p "$STAGE$(dirname "$lib")"
		cp -L "$lib" "$STAGE$lib"
	done
done
echo 'root:x:0:0:root:/:/bin/sh' > "$STAGE/etc/passwd"
echo 'root:x:0:' > "$STAGE/etc/group"
printf '127.0.0.1 localhost\n' > "$STAGE/etc/hosts"
printf 'ip 0 IP\nicmp 1 ICMP\ntcp 6 TCP\nudp 17 UDP\n' > "$STAGE/etc/protocols"

(cd "$STAGE" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
	gzip -6 > "$OUT.tmp"
mv -f "$OUT.tmp" "$OUT"
echo "${VG_EXTRA_MODS:-}" > "$CACHE/mods"
log "done: $CACHE/vmlinuz $OUT ($(du -h "$OUT" | cut -f1)), modules: $(ls "$STAGE/modules" | tr '\n' ' ')"
