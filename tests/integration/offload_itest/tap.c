// SPDX-License-Identifier: GPL-2.0-or-later
/* tap.c - offloads across a TAP port, the Linux kernel on the other side
 *
 * Scenario "tap", run inside offload.sh's netns: guest GSO frames into
 * the kernel (AF_PACKET capture, UDP sockets), the kernel's GSO frames
 * to guests with and without the offloads.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_packet.h>

#include "offload_itest.h"

/* ---- TAP: the Linux kernel on the other side ------------------------------------ */

static const uint8_t ot_ip4_tap[4] = { 198, 18, 0, 1 };
static const uint8_t ot_ip6_tap[16] = { 0x20, 0x01, 0, 2, [15] = 1 };

/**
 * struct ot_tap - the netns side
 * @ps:		AF_PACKET socket on the TAP, with virtio-net headers
 * @ifindex:	TAP's index
 * @mac:	TAP's MAC
 */
static struct ot_tap {
	int ps;
	int ifindex;
	uint8_t mac[6];
} ot_tap;

/**
 * struct ot_stream - payload expected over several frames or datagrams
 * @data:	expected payload
 * @len:	its length
 * @got:	bytes matched so far, in order
 * @frames:	frames seen
 * @gso_frames:	of which GSO frames (whole)
 * @max_pay:	largest payload of a non-GSO frame
 * @seq0:	TCP: sequence number of the first byte
 */
struct ot_stream {
	const uint8_t *data;
	uint32_t len;
	uint32_t got;
	uint32_t frames;
	uint32_t gso_frames;
	uint32_t max_pay;
	uint32_t seq0;
};

static uint16_t ot_filter_sport, ot_filter_dport;

/**
 * ot_filter_ports() - receive filter: TCP/UDP with ot_filter_sport/dport
 * @f:		frame
 * @len:	length
 * Return: true if it is one of ours
 */
static bool ot_filter_ports(const uint8_t *f, uint32_t len)
{
	struct ot_parsed p;
	bool ok = ot_parse(f, len, &p);

	ot_why[0] = '\0';	/* noise that does not parse is not an error */
	if (!ok)
		return false;
	return (!ot_filter_sport || ot_get16(f + p.l4) == ot_filter_sport) &&
	       (!ot_filter_dport || ot_get16(f + p.l4 + 2) == ot_filter_dport);
}

/**
 * ot_stream_add() - check one frame of a stream and account its payload
 * @st:		stream
 * @f:		frame
 * @len:	length
 * @hdr:	its virtio-net header
 * @csum_ok:	receiver accepts NEEDS_CSUM
 * Return: true if right
 */
static bool ot_stream_add(struct ot_stream *st, const uint8_t *f, uint32_t len,
			  const struct virtio_net_hdr_v1 *hdr, bool csum_ok)
{
	struct ot_parsed p;
	uint32_t n;

	if (!ot_parse(f, len, &p) || !ot_check_l4(f, len, &p, hdr, csum_ok))
		return false;
	n = p.paylen;
	if (p.proto == OT_PROTO_TCP) {
		if (!st->frames)
			st->seq0 = ot_get32(f + p.l4 + 4);
		if (ot_get32(f + p.l4 + 4) - st->seq0 != st->got)
			return ot_err("TCP seq gap at %u", st->got);
	}
	if (st->got + n > st->len || memcmp(f + p.pay, st->data + st->got, n))
		return ot_err("payload differs at %u (frame %u, %u bytes)",
			      st->got, st->frames, n);
	st->got += n;
	st->frames++;
	if (hdr->gso_type)
		st->gso_frames++;
	else if (n > st->max_pay)
		st->max_pay = n;
	return true;
}

/**
 * ot_tap_open() - AF_PACKET socket on @ifname, virtio-net headers on
 * @ifname:	the TAP
 */
static void ot_tap_open(const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_protocol = htons(0x0003) };
	int one = 1, big = 16 << 20;
	struct ifreq ifr;

	ot_tap.ps = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(0x0003));
	if (ot_tap.ps < 0)
		ot_fatal("AF_PACKET: %s", strerror(errno));
	if (setsockopt(ot_tap.ps, SOL_PACKET, PACKET_VNET_HDR, &one,
		       sizeof(one)))
		ot_fatal("PACKET_VNET_HDR: %s", strerror(errno));
	setsockopt(ot_tap.ps, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(ot_tap.ps, SIOCGIFINDEX, &ifr))
		ot_fatal("%s: %s", ifname, strerror(errno));
	ot_tap.ifindex = ifr.ifr_ifindex;
	if (ioctl(ot_tap.ps, SIOCGIFHWADDR, &ifr))
		ot_fatal("%s: MAC: %s", ifname, strerror(errno));
	memcpy(ot_tap.mac, ifr.ifr_hwaddr.sa_data, 6);
	sll.sll_ifindex = ot_tap.ifindex;
	if (bind(ot_tap.ps, (struct sockaddr *)&sll, sizeof(sll)))
		ot_fatal("bind AF_PACKET: %s", strerror(errno));
}

/**
 * ot_tap_capture() - collect frames the kernel received on the TAP
 * @st:		stream to fill
 * @timeout_ms:	limit
 * Return: true if the whole payload arrived, in order and correct
 */
static bool ot_tap_capture(struct ot_stream *st, int timeout_ms)
{
	int64_t deadline = ot_ms() + timeout_ms;

	while (st->got < st->len) {
		struct virtio_net_hdr_v1 hdr;
		struct sockaddr_ll from;
		struct iovec iov[2] = {
			{ .iov_base = &hdr, .iov_len = 10 },
			{ .iov_base = ot_rxbuf, .iov_len = sizeof(ot_rxbuf) },
		};
		struct msghdr mh = { .msg_name = &from,
				     .msg_namelen = sizeof(from),
				     .msg_iov = iov, .msg_iovlen = 2 };
		struct pollfd pfd = { .fd = ot_tap.ps, .events = POLLIN };
		int64_t left = deadline - ot_ms();
		ssize_t r;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return ot_err("%u of %u bytes captured in %u frames",
				      st->got, st->len, st->frames);
		memset(&hdr, 0, sizeof(hdr));
		r = recvmsg(ot_tap.ps, &mh, MSG_DONTWAIT);
		if (r < 10 || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		if (!ot_filter_ports(ot_rxbuf, (uint32_t)r - 10))
			continue;
		if (!ot_stream_add(st, ot_rxbuf, (uint32_t)r - 10, &hdr, true))
			return false;
	}
	return true;
}

/**
 * ot_tap_inject() - the kernel transmits @f on the TAP (AF_PACKET with a
 *		     virtio-net header: the skb keeps its GSO metadata)
 * @f:		frame
 */
static void ot_tap_inject(const struct ot_frame *f)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)&f->hdr, .iov_len = 10 },
		{ .iov_base = (void *)f->buf, .iov_len = f->len },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	if (sendmsg(ot_tap.ps, &mh, 0) != (ssize_t)(10 + f->len))
		ot_fatal("AF_PACKET send %s: %s", f->s.name, strerror(errno));
}

/**
 * ot_udp_sock() - UDP socket bound to port @port (IPv4 or IPv6 only)
 * @v6:		family
 * @port:	local port, 0 for none
 * Return: fd
 */
static int ot_udp_sock(bool v6, uint16_t port)
{
	int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int one = 1, big = 16 << 20;

	if (fd < 0)
		ot_fatal("UDP socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	if (v6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (port) {
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
					   .sin6_port = htons(port) };
		struct sockaddr_in s4 = { .sin_family = AF_INET,
					  .sin_port = htons(port) };

		if (v6 ? bind(fd, (struct sockaddr *)&s6, sizeof(s6)) :
			 bind(fd, (struct sockaddr *)&s4, sizeof(s4)))
			ot_fatal("UDP bind %u: %s", port, strerror(errno));
	}
	return fd;
}

/**
 * ot_udp_collect() - datagrams at @fd must carry @st's payload in order
 * @fd:		socket
 * @st:		stream
 * @mss:	largest datagram allowed
 * @timeout_ms:	limit
 * Return: true if all of it arrived
 */
static bool ot_udp_collect(int fd, struct ot_stream *st, uint32_t mss,
			   int timeout_ms)
{
	int64_t deadline = ot_ms() + timeout_ms;

	while (st->got < st->len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - ot_ms();
		ssize_t r;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			return ot_err("socket got %u of %u bytes in %u datagrams",
				      st->got, st->len, st->frames);
		r = recv(fd, ot_rxbuf, sizeof(ot_rxbuf), MSG_DONTWAIT);
		if (r < 0)
			continue;
		if ((uint32_t)r > mss || st->got + (uint32_t)r > st->len ||
		    memcmp(ot_rxbuf, st->data + st->got, (size_t)r))
			return ot_err("datagram %u: %zd bytes, wrong size or content",
				      st->frames, r);
		st->got += (uint32_t)r;
		st->frames++;
	}
	return true;
}

/**
 * ot_b_collect() - frames at @b (filtered) must carry @st's payload
 * @b:		receiver
 * @st:		stream
 * @timeout_ms:	limit
 * Return: true if all of it arrived, each frame correct for @b
 */
static bool ot_b_collect(struct ot_port *b, struct ot_stream *st,
			 int timeout_ms)
{
	uint64_t feat = vdrv_features(b->d);
	struct vdrv_rx_pkt rx;

	while (st->got < st->len) {
		if (!ot_recv(b, &rx, timeout_ms, ot_filter_ports))
			return ot_err("%u of %u bytes in %u frames", st->got,
				      st->len, st->frames);
		if (!ot_stream_add(st, ot_rxbuf, rx.len, &rx.hdr,
				   feat & F(VIRTIO_NET_F_GUEST_CSUM)))
			return false;
	}
	return true;
}

/**
 * ot_stream_what() - describe how a stream arrived
 * @st:		stream
 * @what:	out (64 bytes)
 */
static void ot_stream_what(const struct ot_stream *st, char *what)
{
	if (st->gso_frames == st->frames)
		snprintf(what, 64, "%u bytes in %u GSO frame(s), whole", st->len,
			 st->frames);
	else
		snprintf(what, 64, "%u bytes in %u frames (%u GSO), max %u",
			 st->len, st->frames, st->gso_frames, st->max_pay);
}

/**
 * ot_kernel_send() - the netns kernel sends @len bytes over UDP GSO
 * @v6:		family
 * @data:	payload
 * @len:	bytes
 * @gso:	UDP_SEGMENT size
 * Return: 0 or -errno
 */
static int ot_kernel_send(bool v6, const uint8_t *data, uint32_t len,
			  uint16_t gso)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(7002) };
	struct sockaddr_in s4 = { .sin_family = AF_INET,
				  .sin_port = htons(7002) };
	int fd = ot_udp_sock(v6, 0), seg = gso, ret = 0;
	ssize_t r = 0;

	memcpy(&s6.sin6_addr, ot_ip6_dst, 16);
	memcpy(&s4.sin_addr, ot_ip4_dst, 4);
	if (setsockopt(fd, IPPROTO_UDP, 103 /* UDP_SEGMENT */, &seg,
		       sizeof(seg)))
		ret = -errno;
	else if (v6)
		r = sendto(fd, data, len, 0, (struct sockaddr *)&s6, sizeof(s6));
	else
		r = sendto(fd, data, len, 0, (struct sockaddr *)&s4, sizeof(s4));
	if (!ret && r != (ssize_t)len)
		ret = r < 0 ? -errno : -EIO;
	close(fd);
	return ret;
}

/**
 * ot_tap_guest_to_kernel() - A's offload frames into the kernel
 * @a:		A
 * @us4:	UDP socket on 198.18.0.1:7001
 * @us6:	UDP socket on [2001:2::1]:7001
 */
static void ot_tap_guest_to_kernel(struct ot_port *a, int us4, int us6)
{
	static const struct ot_spec tcp4 = { "a-tso4-64k", OT_PROTO_TCP,
		false, false, 8, 12, TH_ACK | TH_PSH, OT_TCP4_MAX, 1448,
		false, true };
	static const struct ot_spec tcp6 = { "a-tso6-64k", OT_PROTO_TCP,
		true, false, 0, 12, TH_ACK | TH_PSH, OT_TCP6_MAX, 1428,
		false, true };
	static const struct ot_spec uso4 = { "a-uso4-to-socket",
		OT_PROTO_UDP, false, false, 0, 0, 0, 60000, 1400, false, true };
	static const struct ot_spec uso6 = { "a-uso6-to-socket",
		OT_PROTO_UDP, true, false, 0, 0, 0, 60000, 1232, false, true };
	static const struct ot_spec csum4 = { "a-csum-udp4-to-socket",
		OT_PROTO_UDP, false, false, 0, 0, 0, 777, 0, false, true };
	static const struct ot_spec bad4 = { "a-bad-csum-dropped",
		OT_PROTO_UDP, false, false, 0, 0, 0, 555, 0, false, false };
	const struct ot_spec *tcps[] = { &tcp4, &tcp6 };
	const struct ot_spec *udps[] = { &uso4, &uso6, &csum4 };
	struct ot_stream st;
	char what[64];
	unsigned int i;
	bool ok;

	for (i = 0; i < OT_ARRAY_SIZE(tcps); i++) {
		ot_build(&ot_f, tcps[i], ot_tap.mac, a->mac, NULL,
			 tcps[i]->v6 ? ot_ip6_tap : ot_ip4_tap,
			 (uint16_t)(43000 + i), 9, 100 + i);
		ot_filter_sport = (uint16_t)(43000 + i);
		ot_filter_dport = 0;
		memset(&st, 0, sizeof(st));
		st.data = ot_f.buf + ot_f.p.pay;
		st.len = ot_f.p.paylen;
		ot_send(a, &ot_f);
		ok = ot_tap_capture(&st, 2000);
		ot_stream_what(&st, what);
		ot_report(ok, tcps[i]->name, "kernel/tap", what);
	}
	for (i = 0; i < OT_ARRAY_SIZE(udps); i++) {
		const struct ot_spec *s = udps[i];

		ot_build(&ot_f, s, ot_tap.mac, a->mac, NULL,
			 s->v6 ? ot_ip6_tap : ot_ip4_tap, 7000, 7001, 200 + i);
		memset(&st, 0, sizeof(st));
		st.data = ot_f.buf + ot_f.p.pay;
		st.len = ot_f.p.paylen;
		ot_send(a, &ot_f);
		ok = ot_udp_collect(s->v6 ? us6 : us4, &st,
				    s->gso_size ? s->gso_size : st.len, 2000);
		snprintf(what, sizeof(what), "socket got %u datagram(s)",
			 st.frames);
		ot_report(ok, s->name, "kernel/udp", what);
	}
	/* Control: the kernel does check a complete checksum, so the
	 * deliveries above mean the offload metadata was right.
	 */
	ot_build(&ot_f, &bad4, ot_tap.mac, a->mac, NULL, ot_ip4_tap, 7000,
		 7001, 300);
	ot_f.buf[ot_f.p.l4 + 6] ^= 0x5a;
	ot_send(a, &ot_f);
	memset(&st, 0, sizeof(st));
	st.data = ot_f.buf + ot_f.p.pay;
	st.len = ot_f.p.paylen;
	ok = !ot_udp_collect(us4, &st, st.len, 300);
	ot_why[0] = '\0';
	if (!ok)
		ot_err("kernel accepted a datagram with a wrong checksum");
	ot_report(ok, bad4.name, "kernel/udp", "not delivered");
}

/**
 * ot_tap_kernel_to_guest() - kernel offload frames to B
 * @b:		receiver (open)
 */
static void ot_tap_kernel_to_guest(struct ot_port *b)
{
	static const struct ot_spec inj[] = {
		/* Below 64 KiB with its Ethernet header: Linux segments
		 * an skb of gso_max_size (65536) or more in software
		 * before the TAP sees it.
		 */
		{ "b-inject-tso4", OT_PROTO_TCP, false, false, 8, 12,
		  TH_ACK | TH_PSH | TH_FIN, 65000, 1448, false, true },
		{ "b-inject-tso6", OT_PROTO_TCP, true, false, 0, 12,
		  TH_ACK | TH_PSH, 40000, 1428, false, true },
		{ "b-inject-tso4-ecn", OT_PROTO_TCP, false, false, 0, 12,
		  TH_ACK | TH_CWR | TH_ECE, 20000, 1448, true, true },
		{ "b-inject-uso4-vlan", OT_PROTO_UDP, false, true, 0, 0, 0,
		  20000, 1400, false, true },
	};
	static uint8_t data[60000];
	struct ot_stream st;
	char what[64];
	unsigned int i, v;
	bool ok;
	int ret;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + (i >> 8));
	/* A real socket with UDP_SEGMENT: the kernel's own USO frames. */
	for (v = 0; v < 2; v++) {
		ot_filter_sport = 0;
		ot_filter_dport = 7002;
		memset(&st, 0, sizeof(st));
		st.data = data;
		st.len = sizeof(data);
		ret = ot_kernel_send(v, data, sizeof(data), 1400);
		if (ret)
			ok = ot_err("UDP_SEGMENT send: %s", strerror(-ret));
		else
			ok = ot_b_collect(b, &st, 2000);
		if (ok && st.gso_frames && st.gso_frames != st.frames)
			ok = ot_err("mixed GSO and plain frames");
		if (ok && !st.gso_frames && st.max_pay > 1400)
			ok = ot_err("segment payload %u > 1400", st.max_pay);
		ot_stream_what(&st, what);
		ot_report(ok, v ? "b-kernel-udp6-gso" : "b-kernel-udp4-gso",
			  b->name, what);
		ot_drain(2, 50, NULL);
	}
	/* Frames the kernel transmits with our GSO metadata. */
	for (i = 0; i < OT_ARRAY_SIZE(inj); i++) {
		ot_build(&ot_f, &inj[i], b->mac, ot_tap.mac,
			 inj[i].v6 ? ot_ip6_tap : ot_ip4_tap, NULL,
			 (uint16_t)(44000 + i), 5001, 400 + i);
		ot_filter_sport = (uint16_t)(44000 + i);
		ot_filter_dport = 0;
		ot_tap_inject(&ot_f);
		ok = ot_expect(b, &ot_f, false, ot_filter_ports, what);
		ot_report(ok, inj[i].name, b->name, what);
		ot_drain(2, 50, NULL);
	}
}

/**
 * ot_announce_steered() - @p announces itself, then the steering sync runs
 * @p:		port (open)
 *
 * Once vhostd's once-a-second steering sync has run, the kernel puts
 * frames for @p on @p's own tun queue and vhostd reads them straight into
 * @p's buffers (offload.sh checks the direct counter).
 */
static void ot_announce_steered(struct ot_port *p)
{
	ot_announce(p);
	usleep(1500000);
	ot_drain(2, 50, NULL);
}

/**
 * ot_close_base() - close @p, checking its RX ring's final index
 * @p:		port
 *
 * vhostd may hold popped RX chains for its next direct TAP read; when
 * the ring stops they must go back (virtq_unpop), so GET_VRING_BASE
 * reports exactly the buffers @p received.
 */
static void ot_close_base(struct ot_port *p)
{
	uint16_t bases[VDRV_NRINGS] = { 0, 0 };
	struct vdrv_rx_pkt rx = { .buf = ot_rxbuf, .cap = sizeof(ot_rxbuf) };
	uint16_t used;
	int rc;

	while (vdrv_rx_burst(p->d, &rx, 1) > 0) {
		rx.buf = ot_rxbuf;
		rx.cap = sizeof(ot_rxbuf);
	}
	used = (uint16_t)vdrv_stats(p->d)->rx_bufs_used;
	rc = vdrv_close(p->d, bases);
	p->d = NULL;
	ot_why[0] = '\0';
	if (rc || bases[0] != used)
		ot_err("RX base %u, buffers received %u (rc %d)", bases[0],
		       used, rc);
	ot_report(!rc && bases[0] == used, "rx-ring-base", p->name,
		  "all held RX chains returned");
}

/**
 * sc_tap() - offloads across a TAP port, run inside the netns
 * @args:	IFNAME SOCK_A SOCK_B
 * @n:		3
 */
void sc_tap(char **args, unsigned int n)
{
	struct ot_port *a = &ot_ports[0], *b = &ot_ports[1];
	int us4, us6;

	if (n != 3)
		ot_fatal("tap needs IFNAME SOCK_A SOCK_B");
	ot_tap_open(args[0]);
	us4 = ot_udp_sock(false, 7001);
	us6 = ot_udp_sock(true, 7001);
	ot_init_port(a, args[1], "A", 1, OT_HOST_ALL);
	a->o.tx_buf_len = OT_TX_BUF;
	a->o.queue_size = 64;
	ot_init_port(b, args[2], "B-full", 2, OT_GUEST_ALL);
	ot_open(a);
	ot_open(b);
	ot_sync(2);

	ot_tap_guest_to_kernel(a, us4, us6);
	ot_announce_steered(b);
	ot_tap_kernel_to_guest(b);
	ot_close_base(b);
	/* Steered too (USO is not required for that), so its UDP GSO frames
	 * are read into its buffers, found unfit, copied out and segmented.
	 */
	ot_init_port(b, args[2], "B-no-uso", 2,
		     OT_GUEST_ALL & ~(F(VDRV_F_GUEST_USO4) | F(VDRV_F_GUEST_USO6)));
	ot_open(b);
	ot_sync(2);
	ot_announce_steered(b);
	ot_tap_kernel_to_guest(b);
	ot_close_base(b);
	ot_init_port(b, args[2], "B-none", 2, 0);
	ot_open(b);
	ot_sync(2);
	ot_tap_kernel_to_guest(b);
	ot_close(b);

	/* A guest that did not negotiate HOST_TSO4 cannot reach the
	 * kernel with a TSO frame: the TAP port drops and counts it.
	 */
	ot_close(a);
	ot_init_port(a, args[1], "A-csum-only", 1, F(VIRTIO_NET_F_CSUM));
	a->o.tx_buf_len = OT_TX_BUF;
	a->o.queue_size = 64;
	ot_open(a);
	{
		static const struct ot_spec s = { "a-tso4-no-HOST_TSO4",
			OT_PROTO_TCP, false, false, 0, 0, TH_ACK, 20000, 1448,
			false, true };
		struct ot_stream st = { .len = 20000 };
		bool ok;

		ot_build(&ot_f, &s, ot_tap.mac, a->mac, NULL, ot_ip4_tap,
			 45000, 9, 500);
		st.data = ot_f.buf + ot_f.p.pay;
		ot_filter_sport = 45000;
		ot_filter_dport = 0;
		/* The port may not be up yet: retry the send for a while. */
		ot_send(a, &ot_f);
		ok = !ot_tap_capture(&st, 500) && !st.got;
		ot_why[0] = '\0';
		if (!ok)
			ot_err("the kernel received %u bytes of it", st.got);
		ot_report(ok, s.name, "kernel/tap", "dropped");
		printf("COUNTER tap0 offload 1\n");
	}
	ot_close(a);
	close(us4);
	close(us6);
	close(ot_tap.ps);
}
