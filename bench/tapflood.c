// SPDX-License-Identifier: GPL-2.0-or-later
/* tapflood.c - the kernel transmits a UDP flood on an interface (a TAP)
 *
 * The sender side of bench/tap_ab.sh: an AF_PACKET socket bound to
 * IFNAME hands the kernel SIZE-byte IPv4/UDP frames to DSTMAC, 64 per
 * sendmmsg(), with the qdisc bypassed, for SECONDS.  On a TAP port's
 * interface each frame goes through tun's queue selection (vhostd's eBPF
 * steering) to the tun queue a reader then lands in a guest's buffers:
 * the TAP -> guest one-copy path, with nothing but the kernel between.
 * Addresses are 198.18.0.1 -> 198.18.0.2, ports 5000 -> 5001.
 *
 *   tapflood IFNAME DSTMAC SIZE SECONDS
 *
 * Output: the number of frames the kernel took, one line.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* sendmmsg() */
#endif
#include <arpa/inet.h>
#include <net/if.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_packet.h>

#define TF_BATCH	64
#define TF_MIN		60	/* Ethernet minimum without FCS */
#define TF_MAX		1514

/**
 * tf_frame() - build one UDP/IPv4 frame
 * @f:		buffer, TF_MAX bytes, zeroed
 * @dst:	destination MAC
 * @len:	frame length, TF_MIN..TF_MAX
 */
static void tf_frame(uint8_t *f, const uint8_t dst[6], unsigned int len)
{
	static const uint8_t src[6] = { 0x02, 0x00, 0x00, 0x00, 0xab, 0x01 };
	unsigned int ip_len = len - 14, udp_len = len - 34;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;			/* IPv4 */
	f[14] = 0x45;
	f[16] = (uint8_t)(ip_len >> 8);
	f[17] = (uint8_t)ip_len;
	f[22] = 64;			/* TTL */
	f[23] = 17;			/* UDP */
	f[26] = 198; f[27] = 18; f[28] = 0; f[29] = 1;
	f[30] = 198; f[31] = 18; f[32] = 0; f[33] = 2;
	f[34] = 0x13; f[35] = 0x88;	/* 5000 */
	f[36] = 0x13; f[37] = 0x89;	/* 5001 */
	f[38] = (uint8_t)(udp_len >> 8);
	f[39] = (uint8_t)udp_len;
}

/**
 * main() - send the flood
 * @argc:	argument count
 * @argv:	IFNAME DSTMAC SIZE SECONDS
 * Return: 0, 1 if the socket cannot be had, 2 on usage errors
 */
int main(int argc, char **argv)
{
	static uint8_t f[TF_MAX];
	struct sockaddr_ll sa = { .sll_family = AF_PACKET, .sll_halen = 6 };
	struct mmsghdr mm[TF_BATCH];
	unsigned long long sent = 0;
	unsigned int len, i;
	struct iovec iov;
	uint8_t dst[6];
	time_t end;
	int s, one = 1;

	if (argc != 5 ||
	    sscanf(argv[2], "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &dst[0], &dst[1],
		   &dst[2], &dst[3], &dst[4], &dst[5]) != 6) {
		fprintf(stderr, "usage: tapflood IFNAME DSTMAC SIZE SECONDS\n");
		return 2;
	}
	len = (unsigned int)atoi(argv[3]);
	if (len < TF_MIN || len > TF_MAX) {
		fprintf(stderr, "tapflood: SIZE %d..%d\n", TF_MIN, TF_MAX);
		return 2;
	}
	sa.sll_ifindex = (int)if_nametoindex(argv[1]);
	s = socket(AF_PACKET, SOCK_RAW, 0);
	if (s < 0 || !sa.sll_ifindex ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("tapflood");
		return 1;
	}
	/* Straight to the driver: the qdisc would only add a lock. */
	setsockopt(s, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	tf_frame(f, dst, len);
	iov.iov_base = f;
	iov.iov_len = len;
	memset(mm, 0, sizeof(mm));
	for (i = 0; i < TF_BATCH; i++) {
		mm[i].msg_hdr.msg_iov = &iov;
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	end = time(NULL) + atoi(argv[4]);
	while (time(NULL) < end) {
		int r = sendmmsg(s, mm, TF_BATCH, 0);

		if (r > 0)
			sent += (unsigned int)r;
	}
	printf("%llu\n", sent);
	close(s);
	return 0;
}
