#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/guest/init.sh - /init of the test guest (busybox initramfs).
#
#   host (lib.sh)                         guest (this script)
#   NAME.ch.in  --pipe chardev-->  /dev/ttyS1  "@@C <id> <base64 cmd>"
#   NAME.ch.out <--pipe chardev--  /dev/ttyS1  "@@O <id>" <base64 output> "@@E <id> <rc>"
#   NAME.log    <--file chardev--  /dev/ttyS0  kernel console, "VH-READY ..." marker
#
# Kernel command line: vh.ip=ADDR/LEN (eth0 address), vh.name=NAME,
# vh.mtu=N (optional).  Commands run one at a time with sh; a command that
# wants to run in the background must redirect its own output.
export PATH=/usr/bin:/bin:/sbin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp

con() { echo "$*" > /dev/ttyS0; }

ip='' name=guest mtu=''
for a in $(cat /proc/cmdline); do
	case "$a" in
	vh.ip=*) ip=${a#vh.ip=} ;;
	vh.name=*) name=${a#vh.name=} ;;
	vh.mtu=*) mtu=${a#vh.mtu=} ;;
	esac
done

for m in /modules/*.ko; do
	insmod "$m" || con "VH-WARN insmod $m failed"
done

ip link set lo up
# The NIC appears asynchronously after virtio_net loads.
i=0
while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
if [ -e /sys/class/net/eth0 ]; then
	[ -n "$mtu" ] && ip link set eth0 mtu "$mtu"
	[ -n "$ip" ] && ip addr add "$ip" dev eth0
	ip link set eth0 up
	mac=$(cat /sys/class/net/eth0/address)
else
	con "VH-WARN no eth0"
	mac=none
fi

# The command channel: raw, no echo, so bytes pass untouched both ways.
stty -F /dev/ttyS1 115200 raw -echo -echoe -echok -echoctl -echoke -ixon -ixoff
exec 3<>/dev/ttyS1
con "VH-READY name=$name ip=$ip mac=$mac"

while :; do
	line=
	read -r line <&3 || { sleep 0.1; continue; }
	set -- $line
	[ "$1" = "@@C" ] && [ $# -ge 2 ] || continue
	id=$2
	echo "$3" | base64 -d > /tmp/cmd.$id 2>/dev/null
	sh /tmp/cmd.$id < /dev/null > /tmp/out.$id 2>&1
	rc=$?
	{
		echo "@@O $id"
		base64 /tmp/out.$id
		echo "@@E $id $rc"
	} >&3
	rm -f /tmp/cmd.$id /tmp/out.$id
done
