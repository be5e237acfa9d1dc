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
# vh.mtu=N (optional), vh.ping=ADDR (optional: once up, ping ADDR and
# report on the console, "VH-PING ..." lines, then "VH-PING-DONE rc=N";
# for a guest with no command channel, such as libvirt.sh's, which has
# only ttyS0).  Commands run one at a time with sh; a command that wants
# to run in the background must redirect its own output.
export PATH=/usr/bin:/bin:/sbin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mount -t tmpfs tmp /tmp

con() { echo "$*" > /dev/ttyS0; }

ip='' name=guest mtu='' ping=''
for a in $(cat /proc/cmdline); do
	case "$a" in
	vh.ip=*) ip=${a#vh.ip=} ;;
	vh.name=*) name=${a#vh.name=} ;;
	vh.mtu=*) mtu=${a#vh.mtu=} ;;
	vh.ping=*) ping=${a#vh.ping=} ;;
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
# Without a second serial port there is none (an exec redirection that
# fails would end /init, and the kernel with it).
chan=0
if stty -F /dev/ttyS1 115200 raw -echo -echoe -echok -echoctl -echoke -ixon -ixoff 2>/dev/null
then
	exec 3<>/dev/ttyS1
	chan=1
fi
con "VH-READY name=$name ip=$ip mac=$mac"
if [ -n "$ping" ]; then
	(
		/usr/bin/ping -c 5 -i 0.2 -w 30 "$ping" > /tmp/ping.out 2>&1
		rc=$?
		while IFS= read -r l; do con "VH-PING $l"; done < /tmp/ping.out
		con "VH-PING-DONE rc=$rc"
	) &
fi
if [ $chan = 0 ]; then
	con "VH-NOTE no command channel (no ttyS1)"
	while :; do sleep 3600; done
fi

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
