// SPDX-License-Identifier: GPL-2.0-or-later
/* kernel.c - the Linux kernel as test_gso's reference implementation
 *
 * Run only by tests/integration/gso_kernel_ref.sh, which starts test_gso
 * in its netns with GSO_KERNEL_REF="tap veth": test_gso then runs this
 * test alone (tests/run.sh's gso-kernel-ref step), and never lists it
 * otherwise, so a plain unit run has nothing skipped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>

#include "test_gso.h"

/* ---- the Linux kernel as reference implementation ----
 *
 * Only when tests/integration/gso_kernel_ref.sh runs us inside its netns
 * (GSO_KERNEL_REF="tap veth"): the GSO frame is written with its
 * virtio-net header to the TAP, the kernel bridges it to a veth whose TSO,
 * USO and checksum offloads are off, so the kernel segments and
 * checksums it in software; what arrives on the peer veth must be
 * byte-identical to our full-checksum segments.
 */
#ifndef TUN_F_USO4
#define TUN_F_USO4	0x20
#endif
#ifndef TUN_F_USO6
#define TUN_F_USO6	0x40
#endif

static int kref_open(const char *tap, const char *veth, int *pfd)
{
	struct ifreq ifr;
	struct sockaddr_ll sll;
	int fd, hs = sizeof(struct virtio_net_hdr_v1), one = 1 << 22;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", tap);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	assert_int_equal(ioctl(fd, TUNSETIFF, &ifr), 0);
	assert_int_equal(ioctl(fd, TUNSETVNETHDRSZ, &hs), 0);
	/* what we could receive; harmless either way for writes */
	(void)ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 |
		    TUN_F_TSO_ECN | TUN_F_USO4 | TUN_F_USO6);

	*pfd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	assert_true(*pfd >= 0);
	(void)setsockopt(*pfd, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one));
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)if_nametoindex(veth);
	assert_true(sll.sll_ifindex > 0);
	assert_int_equal(bind(*pfd, (struct sockaddr *)&sll, sizeof(sll)), 0);
	return fd;
}

/* Read segments from @pfd whose source MAC is @f's; 0 when none comes
 * within 300 ms.
 */
static ssize_t kref_recv(int pfd, const struct frame *f, uint8_t *buf,
			 size_t len)
{
	struct pollfd p = { .fd = pfd, .events = POLLIN };
	ssize_t n;

	while (poll(&p, 1, 300) == 1) {
		n = recv(pfd, buf, len, 0);
		if (n >= 12 && !memcmp(buf + 6, f->buf + 6, 6))
			return n;
	}
	return 0;
}

/**
 * kref_ready() - until a frame written to the TAP comes out of the veth
 * @fd:		TAP
 * @pfd:	AF_PACKET socket on the veth
 *
 * The bridge forwards only once its ports are up (carrier, forwarding
 * state): probe frames, one every 100 ms for at most 10 s, instead of a
 * fixed wait.  Probes carry their own source MAC, which kref_recv()
 * ignores.
 */
static void kref_ready(int fd, int pfd)
{
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0xee, 0x01 };
	struct virtio_net_hdr_v1 vnet = { 0 };
	uint8_t probe[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t buf[2048];
	struct iovec w[2] = {
		{ .iov_base = &vnet, .iov_len = sizeof(vnet) },
		{ .iov_base = probe, .iov_len = sizeof(probe) },
	};
	struct pollfd p = { .fd = pfd, .events = POLLIN };
	int i;

	memcpy(probe + 6, src, 6);
	probe[12] = 0x88;	/* local experimental EtherType */
	probe[13] = 0xb5;
	for (i = 0; i < 100; i++) {
		assert_int_equal(writev(fd, w, 2), (ssize_t)(sizeof(vnet) +
							     sizeof(probe)));
		while (poll(&p, 1, 100) == 1) {
			ssize_t n = recv(pfd, buf, sizeof(buf), 0);

			if (n >= 12 && !memcmp(buf + 6, src, 6))
				return;
		}
	}
	fail_msg("no probe frame crossed the bridge in 10 s");
}

void test_kernel_ref(void **state)
{
	static uint8_t hdrbuf[GSO_HDR_MAX], ours[FRAME_MAX], theirs[FRAME_MAX];
	const char *env = getenv("GSO_KERNEL_REF");
	char tap[IFNAMSIZ], veth[IFNAMSIZ];
	struct iovec out[PKT_IOV_MAX + 1];
	int fd, pfd, c, checked = 0;

	(void)state;
	if (!env || sscanf(env, "%15s %15s", tap, veth) != 2)
		fail_msg("GSO_KERNEL_REF must name a TAP and a veth");
	fd = kref_open(tap, veth, &pfd);
	kref_ready(fd, pfd);
	srand(17);
	for (c = 0; c < 48; c++) {
		struct spec s = {
			.v6 = c & 1, .udp = c & 2,
			.ipopt = c & 4 ? 12 : 0, .tcpopt = c & 8 ? 12 : 0,
			.tcp_flags = 0x10 | (c & 16 ? 0x08 | 0x01 : 0) |
				     (c & 32 ? 0x80 | 0x40 : 0),
			.mss = (uint16_t)(c < 32 ? 1400 : 500 + rand() % 1000),
			.pay_len = (uint32_t)(c < 32 ? 20000 : rand() % 60000),
		};
		struct iovec w[2];
		struct gso_iter it;
		struct gso_seg seg;
		int n, k = 0;

		if (s.v6)
			s.ipopt = 0;
		if (s.udp) {
			s.tcpopt = 0;
			s.tcp_flags = 0;
		}
		build(&fr, &s);
		/* unlike us, the kernel drops a GSO frame whose IPv4
		 * header checksum is stale (we recompute it regardless)
		 */
		if (!s.v6) {
			wr16(fr.buf + fr.l3 + 10, 0);
			wr16(fr.buf + fr.l3 + 10, (uint16_t)~ref_fold(
			     ref_add(0, fr.buf + fr.l3, fr.l4 - fr.l3)));
		}
		/* and it derives USO checksums from the big frame's UDP
		 * length and stored pseudo sum, which Linux guests fill in
		 */
		if (s.udp)
			wr16(fr.buf + fr.l4 + 4, (uint32_t)(fr.len - fr.l4));
		w[0].iov_base = &fr.pkt.vnet;
		w[0].iov_len = sizeof(fr.pkt.vnet);
		w[1].iov_base = fr.buf;
		w[1].iov_len = fr.len;
		assert_int_equal(writev(fd, w, 2), (ssize_t)(w[0].iov_len + fr.len));

		assert_int_equal(gso_init(&it, &fr.pkt, false), 0);
		while ((n = gso_next(&it, hdrbuf, out, PKT_IOV_MAX + 1,
				     &seg)) > 0) {
			size_t glen = 0;
			ssize_t got;
			int i;

			for (i = 0; i < n; i++) {
				memcpy(ours + glen, out[i].iov_base,
				       out[i].iov_len);
				glen += out[i].iov_len;
			}
			got = kref_recv(pfd, &fr, theirs, sizeof(theirs));
			if (got != (ssize_t)glen || memcmp(ours, theirs, glen))
				print_error("case %d (v6 %d udp %d) segment %d: "
					    "kernel %zd bytes, ours %zu\n", c,
					    s.v6, s.udp, k, got, glen);
			assert_int_equal(got, glen);
			assert_memory_equal(ours, theirs, glen);
			k++;
		}
		assert_int_equal(kref_recv(pfd, &fr, theirs, sizeof(theirs)), 0);
		checked += k;
	}
	print_message("kernel reference: %d segments identical\n", checked);
	close(pfd);
	close(fd);
}
