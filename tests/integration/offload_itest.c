// SPDX-License-Identifier: GPL-2.0-or-later
/* offload_itest.c - virtio-net offloads end to end, through a running vhostd
 *
 *   offload_itest matrix   SOCK_A SOCK_B0 ... SOCK_B7
 *   offload_itest negative SOCK_A SOCK_A2 SOCK_A3 SOCK_B SOCK_C
 *   offload_itest fuzz     SOCK_A SOCK_B SOCK_C
 *   offload_itest tap      IFNAME SOCK_A SOCK_B      (inside the netns)
 *
 * vdrv guests send TSO/USO/NEEDS_CSUM frames through vhostd and other vdrv
 * guests (or the kernel behind a TAP) receive them.  Every produced frame
 * is PARSED here, by code that shares nothing with vhostd (src/ is not
 * included): IPv4 header checksum, lengths, the TCP/UDP checksum over the
 * pseudo header -- complete when the receiver has no GUEST_CSUM; with
 * NEEDS_CSUM, csum_start/csum_offset must name the L4 checksum field and
 * completing it as the virtio spec says must give a correct frame -- and,
 * for software segments, everything against the original frame: headers
 * copied, IPv4 id + k, TCP sequence continuity, CWR only on the first,
 * FIN/PSH only on the last segment, payload <= gso_size and the payloads
 * concatenated equal to the original.
 *
 * What the destination must get is derived here from doc/offloads.md's
 * decision table and the features the receiver actually negotiated:
 * the frame whole with its header, the checksum completed, or segments
 * with partial or full checksums.
 *
 * Output: "ok   CASE -> RECEIVER: what" or "FAIL CASE -> RECEIVER: why",
 * "COUNTER PORT FIELD VALUE" lines for the runner to check with vhostctl;
 * exit 0 only if every case passed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_packet.h>
#include <linux/virtio_config.h>

#include "../../vdrv/vdrv.h"
#include "../../vdrv/vdrv_pkt.h"

#define OT_FRAME_MAX	(65535 + 14 + 4 + 64)
#define OT_TX_BUF	(12 + OT_FRAME_MAX)
#define OT_BIG_RXBUF	65600	/* no MRG_RXBUF: one buffer holds 64 KiB */
#define OT_PORTS_MAX	10
#define OT_ETH_IP	0x0800
#define OT_ETH_IP6	0x86dd
#define OT_ETH_VLAN	0x8100
#define OT_ETH_TEST	0x88b5
#define OT_PROTO_TCP	6
#define OT_PROTO_UDP	17
#define OT_IP_ID	0xfff0	/* id + k wraps within a 64 KiB frame */
#define OT_TCP_SEQ	0xffffe000u	/* so does the sequence number */
#define OT_TCP_ACK	0x11223344u

#define TH_FIN		0x01
#define TH_SYN		0x02
#define TH_PSH		0x08
#define TH_ACK		0x10
#define TH_ECE		0x40
#define TH_CWR		0x80

#define F(bit)		(1ULL << (bit))
#define OT_HOST_ALL	(F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4) | \
			 F(VIRTIO_NET_F_HOST_TSO6) | F(VIRTIO_NET_F_HOST_ECN) | \
			 F(VDRV_F_HOST_USO))
#define OT_GUEST_ALL	(F(VIRTIO_NET_F_GUEST_CSUM) |			\
			 F(VIRTIO_NET_F_GUEST_TSO4) |			\
			 F(VIRTIO_NET_F_GUEST_TSO6) |			\
			 F(VIRTIO_NET_F_GUEST_ECN) | F(VDRV_F_GUEST_USO4) | \
			 F(VDRV_F_GUEST_USO6))
#define OT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/**
 * struct ot_spec - a frame to build
 * @name:	case name
 * @proto:	OT_PROTO_TCP or OT_PROTO_UDP
 * @v6:		IPv6 (else IPv4)
 * @vlan:	one 802.1Q tag
 * @ipopt:	IPv4 option bytes (multiple of 4, <= 40)
 * @tcpopt:	TCP option bytes (multiple of 4, <= 40)
 * @flags:	TCP flags
 * @payload:	L4 payload bytes
 * @gso_size:	0: not a GSO frame
 * @ecn_bit:	GSO_ECN in gso_type
 * @csum:	NEEDS_CSUM (implied by @gso_size)
 */
struct ot_spec {
	const char *name;
	uint8_t proto;
	bool v6;
	bool vlan;
	uint8_t ipopt;
	uint8_t tcpopt;
	uint8_t flags;
	uint32_t payload;
	uint16_t gso_size;
	bool ecn_bit;
	bool csum;
};

/**
 * struct ot_parsed - where the headers of a frame are
 * @l3:		IP header offset
 * @l4:		TCP/UDP header offset
 * @pay:	payload offset
 * @paylen:	payload bytes
 * @proto:	OT_PROTO_TCP or OT_PROTO_UDP
 * @v6:		IPv6
 */
struct ot_parsed {
	uint32_t l3;
	uint32_t l4;
	uint32_t pay;
	uint32_t paylen;
	uint8_t proto;
	bool v6;
};

/**
 * struct ot_frame - a built frame and its virtio-net header
 * @buf:	the frame
 * @len:	its length
 * @hdr:	header sent with it
 * @p:		its layout
 * @s:		what it was built from
 */
struct ot_frame {
	uint8_t buf[OT_FRAME_MAX];
	uint32_t len;
	struct virtio_net_hdr_v1 hdr;
	struct ot_parsed p;
	struct ot_spec s;
};

/**
 * struct ot_port - one vdrv guest
 * @d:		device (NULL while closed)
 * @o:		options
 * @name:	for messages (also the vhostd port name where known)
 * @mac:	its MAC
 */
struct ot_port {
	struct vdrv_dev *d;
	struct vdrv_opts o;
	const char *name;
	uint8_t mac[6];
};

/**
 * enum ot_act - what a destination must receive (doc/offloads.md)
 * @OT_PLAIN:	the frame unchanged, flags 0
 * @OT_PASS:	the frame unchanged with its offload header
 * @OT_CSUM:	the frame with the checksum completed, flags 0
 * @OT_SEG_PARTIAL: segments with NEEDS_CSUM
 * @OT_SEG_FULL: segments fully checksummed
 * @OT_DROP:	nothing
 */
#define OT_VHOSTD_RX_BUFS	64	/* documented in doc/offloads.md */

enum ot_act {
	OT_PLAIN,
	OT_PASS,
	OT_CSUM,
	OT_SEG_PARTIAL,
	OT_SEG_FULL,
	OT_DROP,
};

static const char *const ot_act_names[] = {
	"plain", "pass whole", "checksum completed",
	"segmented, partial csum", "segmented, full csum", "dropped",
};

static struct ot_port ot_ports[OT_PORTS_MAX];
static struct ot_frame ot_f;
static uint8_t ot_rxbuf[OT_FRAME_MAX], ot_scratch[OT_FRAME_MAX];
static unsigned int ot_failed, ot_passed;
static char ot_why[256];

/**
 * ot_ms() - monotonic ms
 * Return: ms
 */
static int64_t ot_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * ot_fatal() - setup failure: report and exit 1
 * @fmt:	printf format
 */
static void __attribute__((format(printf, 1, 2), noreturn))
ot_fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("FAIL setup: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

/**
 * ot_err() - record why a check failed (first reason wins)
 * @fmt:	printf format
 * Return: false, for "return ot_err(...)"
 */
static bool __attribute__((format(printf, 1, 2))) ot_err(const char *fmt, ...)
{
	va_list ap;

	if (ot_why[0])
		return false;
	va_start(ap, fmt);
	vsnprintf(ot_why, sizeof(ot_why), fmt, ap);
	va_end(ap);
	return false;
}

/**
 * ot_report() - print one case's result and count it
 * @ok:		passed
 * @cas:	case name
 * @rcv:	receiver name
 * @what:	detail on success
 */
static void ot_report(bool ok, const char *cas, const char *rcv,
		      const char *what)
{
	if (ok) {
		ot_passed++;
		printf("ok   %-22s -> %-12s %s\n", cas, rcv, what);
	} else {
		ot_failed++;
		printf("FAIL %-22s -> %-12s %s\n", cas, rcv,
		       ot_why[0] ? ot_why : "?");
	}
	ot_why[0] = '\0';
}

/* ---- independent checksum and header arithmetic ------------------------- */

/**
 * ot_get16() - big-endian 16-bit load
 * @p:		bytes
 * Return: value
 */
static uint16_t ot_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/**
 * ot_get32() - big-endian 32-bit load
 * @p:		bytes
 * Return: value
 */
static uint32_t ot_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/**
 * ot_put16() - big-endian 16-bit store
 * @p:		bytes
 * @v:		value
 */
static void ot_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/**
 * ot_put32() - big-endian 32-bit store
 * @p:		bytes
 * @v:		value
 */
static void ot_put32(uint8_t *p, uint32_t v)
{
	ot_put16(p, (uint16_t)(v >> 16));
	ot_put16(p + 2, (uint16_t)v);
}

/**
 * ot_sum() - add big-endian 16-bit words (RFC 1071), the naive way
 * @p:		bytes, starting at an even offset of the summed range
 * @len:	count; an odd last byte is padded with zero
 * @sum:	sum so far
 * Return: new unfolded sum
 */
static uint64_t ot_sum(const uint8_t *p, size_t len, uint64_t sum)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += ot_get16(p + i);
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/**
 * ot_fold() - fold a ones' complement sum to 16 bits
 * @sum:	unfolded sum
 * Return: folded sum (not inverted)
 */
static uint16_t ot_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/**
 * ot_pseudo() - pseudo-header sum of a frame's L4 segment
 * @f:		frame
 * @p:		its layout
 * @l4len:	L4 header + payload bytes
 * Return: unfolded sum
 */
static uint64_t ot_pseudo(const uint8_t *f, const struct ot_parsed *p,
			  uint32_t l4len)
{
	uint64_t sum;

	if (p->v6) {
		sum = ot_sum(f + p->l3 + 8, 32, 0);
		return sum + (l4len >> 16) + (l4len & 0xffff) + p->proto;
	}
	sum = ot_sum(f + p->l3 + 12, 8, 0);
	return sum + p->proto + l4len;
}

/**
 * ot_csum_off() - offset of the L4 checksum field in its header
 * @proto:	OT_PROTO_TCP or OT_PROTO_UDP
 * Return: 16 or 6
 */
static uint16_t ot_csum_off(uint8_t proto)
{
	return proto == OT_PROTO_TCP ? 16 : 6;
}

/**
 * ot_l4_full_ok() - is the L4 checksum complete and correct
 * @f:		frame
 * @len:	its length
 * @p:		its layout
 * Return: true if so (a UDP checksum of 0, "none", is refused too)
 */
static bool ot_l4_full_ok(const uint8_t *f, uint32_t len,
			  const struct ot_parsed *p)
{
	uint32_t l4len = len - p->l4;
	uint16_t s = ot_fold(ot_pseudo(f, p, l4len) +
			     ot_sum(f + p->l4, l4len, 0));

	if (p->proto == OT_PROTO_UDP &&
	    !ot_get16(f + p->l4 + ot_csum_off(p->proto)))
		return ot_err("UDP checksum 0 (none)");
	if (s != 0xffff)
		return ot_err("L4 checksum wrong (sum 0x%04x, field 0x%04x)", s,
			      ot_get16(f + p->l4 + ot_csum_off(p->proto)));
	return true;
}

/**
 * ot_parse() - parse and validate Ethernet/VLAN, IPv4/IPv6, TCP/UDP
 * @f:		frame
 * @len:	its length
 * @p:		out: layout
 * Return: true if well formed: IPv4 header checksum right, IP lengths
 *	   equal to the frame's, L4 header inside the frame
 */
static bool ot_parse(const uint8_t *f, uint32_t len, struct ot_parsed *p)
{
	uint32_t off = 12;
	uint16_t et;

	memset(p, 0, sizeof(*p));
	if (len < 14)
		return ot_err("runt %u", len);
	et = ot_get16(f + off);
	off += 2;
	if (et == OT_ETH_VLAN) {
		if (len < 18)
			return ot_err("runt VLAN frame");
		et = ot_get16(f + off + 2);
		off += 4;
	}
	p->l3 = off;
	if (et == OT_ETH_IP) {
		uint32_t ihl;

		if (len < off + 20 || f[off] >> 4 != 4)
			return ot_err("bad IPv4 header");
		ihl = (f[off] & 15u) * 4;
		if (ihl < 20 || len < off + ihl)
			return ot_err("bad IPv4 ihl");
		if (ot_fold(ot_sum(f + off, ihl, 0)) != 0xffff)
			return ot_err("IPv4 header checksum wrong");
		if (ot_get16(f + off + 2) != len - off)
			return ot_err("IPv4 total length %u, frame has %u",
				      ot_get16(f + off + 2), len - off);
		if (ot_get16(f + off + 6) & 0x3fff)
			return ot_err("IPv4 fragment");
		p->proto = f[off + 9];
		p->l4 = off + ihl;
	} else if (et == OT_ETH_IP6) {
		if (len < off + 40 || f[off] >> 4 != 6)
			return ot_err("bad IPv6 header");
		if (ot_get16(f + off + 4) != len - off - 40)
			return ot_err("IPv6 payload length %u, frame has %u",
				      ot_get16(f + off + 4), len - off - 40);
		p->v6 = true;
		p->proto = f[off + 6];
		p->l4 = off + 40;
	} else {
		return ot_err("ethertype 0x%04x", et);
	}
	if (p->proto == OT_PROTO_TCP) {
		uint32_t doff;

		if (len < p->l4 + 20)
			return ot_err("short TCP header");
		doff = (uint32_t)(f[p->l4 + 12] >> 4) * 4;
		if (doff < 20 || len < p->l4 + doff)
			return ot_err("bad TCP doff");
		p->pay = p->l4 + doff;
	} else if (p->proto == OT_PROTO_UDP) {
		if (len < p->l4 + 8)
			return ot_err("short UDP header");
		if (ot_get16(f + p->l4 + 4) != len - p->l4)
			return ot_err("UDP length %u, datagram has %u",
				      ot_get16(f + p->l4 + 4), len - p->l4);
		p->pay = p->l4 + 8;
	} else {
		return ot_err("IP protocol %u", p->proto);
	}
	p->paylen = len - p->pay;
	return true;
}

/**
 * ot_check_l4() - the L4 checksum as the receiver must find it
 * @f:		frame
 * @len:	its length
 * @p:		its layout
 * @hdr:	virtio-net header it came with
 * @csum_ok:	the receiver negotiated GUEST_CSUM
 *
 * NEEDS_CSUM is completed on a copy as virtio says: ones' complement sum
 * from csum_start to the end, stored at csum_start + csum_offset; the
 * result must then be a correct checksum.
 *
 * Return: true if right
 */
static bool ot_check_l4(const uint8_t *f, uint32_t len,
			const struct ot_parsed *p,
			const struct virtio_net_hdr_v1 *hdr, bool csum_ok)
{
	uint16_t c;

	if (!(hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return ot_l4_full_ok(f, len, p);
	if (!csum_ok)
		return ot_err("NEEDS_CSUM to a receiver without GUEST_CSUM");
	if (hdr->csum_start != p->l4 ||
	    hdr->csum_offset != ot_csum_off(p->proto))
		return ot_err("csum_start/offset %u/%u, L4 at %u (+%u)",
			      hdr->csum_start, hdr->csum_offset, p->l4,
			      ot_csum_off(p->proto));
	memcpy(ot_scratch, f, len);
	c = (uint16_t)~ot_fold(ot_sum(ot_scratch + hdr->csum_start,
				      len - hdr->csum_start, 0));
	if (p->proto == OT_PROTO_UDP && !c)
		c = 0xffff;
	ot_put16(ot_scratch + hdr->csum_start + hdr->csum_offset, c);
	if (!ot_l4_full_ok(ot_scratch, len, p)) {
		ot_why[0] = '\0';
		return ot_err("partial checksum does not complete correctly");
	}
	return true;
}

/* ---- building frames ------------------------------------------------------ */

static const uint8_t ot_ip4_src[4] = { 198, 18, 0, 3 };
static const uint8_t ot_ip4_dst[4] = { 198, 18, 0, 2 };
static const uint8_t ot_ip6_src[16] = { 0x20, 0x01, 0, 2, [15] = 3 };
static const uint8_t ot_ip6_dst[16] = { 0x20, 0x01, 0, 2, [15] = 2 };

/**
 * ot_build() - build @s into @f, as a Linux guest would send it
 * @f:		out
 * @s:		spec
 * @dst:	destination MAC
 * @src:	source MAC
 * @ip_src:	source address (4 or 16 bytes), NULL for the default
 * @ip_dst:	destination address, NULL for the default
 * @sport:	L4 source port
 * @dport:	L4 destination port
 * @seed:	payload seed
 *
 * Offload frames carry NEEDS_CSUM with the pseudo-header sum (over the
 * real L4 length) in the checksum field; others a full checksum.  IP
 * lengths and the IPv4 header checksum are always right.
 */
static void ot_build(struct ot_frame *f, const struct ot_spec *s,
		     const uint8_t dst[6], const uint8_t src[6],
		     const uint8_t *ip_src, const uint8_t *ip_dst,
		     uint16_t sport, uint16_t dport, uint32_t seed)
{
	uint8_t *b = f->buf;
	uint32_t off = 12, l4hdr, l4len, i, x = seed * 2654435761u + 1;
	struct ot_parsed *p = &f->p;
	uint16_t c;

	f->len = 0;
	memset(f->buf, 0, 256);		/* every header byte starts zero */
	memset(&f->hdr, 0, sizeof(f->hdr));
	memset(&f->p, 0, sizeof(f->p));
	f->s = *s;
	memcpy(b, dst, 6);
	memcpy(b + 6, src, 6);
	if (s->vlan) {
		ot_put16(b + off, OT_ETH_VLAN);
		ot_put16(b + off + 2, 0x2064);	/* PCP 1, VID 100 */
		off += 4;
	}
	ot_put16(b + off, s->v6 ? OT_ETH_IP6 : OT_ETH_IP);
	off += 2;
	p->l3 = off;
	p->proto = s->proto;
	p->v6 = s->v6;
	l4hdr = s->proto == OT_PROTO_TCP ? 20u + s->tcpopt : 8u;
	l4len = l4hdr + s->payload;
	if (s->v6) {
		ot_put32(b + off, 0x60000000u | 0x2u << 20 | 0x12345);
		ot_put16(b + off + 4, (uint16_t)l4len);
		b[off + 6] = s->proto;
		b[off + 7] = 64;
		memcpy(b + off + 8, ip_src ? ip_src : ot_ip6_src, 16);
		memcpy(b + off + 24, ip_dst ? ip_dst : ot_ip6_dst, 16);
		p->l4 = off + 40;
	} else {
		uint32_t ihl = 20u + s->ipopt;

		b[off] = (uint8_t)(0x40 | ihl / 4);
		b[off + 1] = 0x02;	/* ECT(0) */
		ot_put16(b + off + 2, (uint16_t)(ihl + l4len));
		ot_put16(b + off + 4, OT_IP_ID);
		ot_put16(b + off + 6, 0x4000);	/* DF */
		b[off + 8] = 64;
		b[off + 9] = s->proto;
		memcpy(b + off + 12, ip_src ? ip_src : ot_ip4_src, 4);
		memcpy(b + off + 16, ip_dst ? ip_dst : ot_ip4_dst, 4);
		if (s->ipopt) {
			/* Router Alert, then NOPs, EOL last. */
			static const uint8_t ra[4] = { 0x94, 4, 0, 0 };

			memcpy(b + off + 20, ra, 4);
			memset(b + off + 24, 1, s->ipopt - 4u);
			b[off + ihl - 1] = 0;
		}
		ot_put16(b + off + 10, (uint16_t)~ot_fold(ot_sum(b + off, ihl,
								 0)));
		p->l4 = off + ihl;
	}
	off = p->l4;
	ot_put16(b + off, sport);
	ot_put16(b + off + 2, dport);
	if (s->proto == OT_PROTO_TCP) {
		ot_put32(b + off + 4, OT_TCP_SEQ);
		ot_put32(b + off + 8, OT_TCP_ACK);
		b[off + 12] = (uint8_t)((l4hdr / 4) << 4);
		b[off + 13] = s->flags;
		ot_put16(b + off + 14, 0x7210);
		if (s->tcpopt) {
			/* NOP NOP timestamps, then NOP NOP SACK blocks. */
			uint8_t *o = b + off + 20;

			memset(o, 1, s->tcpopt);
			o[2] = 8;
			o[3] = 10;
			ot_put32(o + 4, 0xa1b2c3d4);
			ot_put32(o + 8, 0x01020304);
			if (s->tcpopt >= 20) {
				o[14] = 5;
				o[15] = (uint8_t)(2 + (s->tcpopt - 16) / 8 * 8);
				for (i = 16; i < s->tcpopt; i++)
					o[i] = (uint8_t)(0x30 + i);
			}
		}
	} else {
		ot_put16(b + off + 4, (uint16_t)l4len);
	}
	p->pay = p->l4 + l4hdr;
	p->paylen = s->payload;
	for (i = 0; i < s->payload; i++) {
		x = x * 1103515245u + 12345u;
		b[p->pay + i] = (uint8_t)(x >> 16);
	}
	f->len = p->pay + s->payload;

	c = ot_fold(ot_pseudo(b, p, l4len));
	if (s->csum || s->gso_size) {
		/* What Linux puts there for CHECKSUM_PARTIAL. */
		ot_put16(b + off + ot_csum_off(s->proto), c);
		f->hdr.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		f->hdr.csum_start = (uint16_t)off;
		f->hdr.csum_offset = ot_csum_off(s->proto);
	} else {
		c = (uint16_t)~ot_fold(ot_pseudo(b, p, l4len) +
				      ot_sum(b + off, l4len, 0));
		if (s->proto == OT_PROTO_UDP && !c)
			c = 0xffff;
		ot_put16(b + off + ot_csum_off(s->proto), c);
	}
	if (s->gso_size) {
		f->hdr.gso_size = s->gso_size;
		f->hdr.gso_type = s->proto == OT_PROTO_UDP ? VDRV_GSO_UDP_L4 :
				  s->v6 ? VIRTIO_NET_HDR_GSO_TCPV6 :
					  VIRTIO_NET_HDR_GSO_TCPV4;
		if (s->ecn_bit)
			f->hdr.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
		f->hdr.hdr_len = (uint16_t)p->pay;
	}
}

/* ---- the decision table, written from doc/offloads.md --------------------- */

/**
 * ot_decide() - what a receiver with @feat must get for @f
 * @f:		frame (from a source entitled to its offloads)
 * @feat:	receiver's negotiated features
 * Return: action
 */
static enum ot_act ot_decide(const struct ot_frame *f, uint64_t feat)
{
	bool csum = feat & F(VIRTIO_NET_F_GUEST_CSUM);
	uint64_t need;

	if (!f->hdr.gso_type) {
		if (!f->hdr.flags)
			return OT_PLAIN;
		return csum ? OT_PASS : OT_CSUM;
	}
	if (f->s.proto == OT_PROTO_UDP)
		need = f->s.vlan ? F(VDRV_F_GUEST_USO4) | F(VDRV_F_GUEST_USO6) :
		       f->s.v6 ? F(VDRV_F_GUEST_USO6) : F(VDRV_F_GUEST_USO4);
	else
		need = f->s.v6 ? F(VIRTIO_NET_F_GUEST_TSO6) :
				 F(VIRTIO_NET_F_GUEST_TSO4);
	if (f->hdr.gso_type & VIRTIO_NET_HDR_GSO_ECN)
		need |= F(VIRTIO_NET_F_GUEST_ECN);
	if (csum && (feat & need) == need)
		return OT_PASS;
	return csum ? OT_SEG_PARTIAL : OT_SEG_FULL;
}

/* ---- checking what arrived --------------------------------------------------- */

/**
 * ot_check_whole() - a frame that must arrive as it was sent
 * @o:		original
 * @f:		received bytes
 * @len:	received length
 * @hdr:	received header
 * @act:	OT_PLAIN, OT_PASS or OT_CSUM
 * @feat:	receiver's features
 * @hdr_len_kept: the sender's hdr_len must survive (vhost to vhost)
 * Return: true if right
 */
static bool ot_check_whole(const struct ot_frame *o, const uint8_t *f,
			   uint32_t len, const struct virtio_net_hdr_v1 *hdr,
			   enum ot_act act, uint64_t feat, bool hdr_len_kept)
{
	bool csum_ok = feat & F(VIRTIO_NET_F_GUEST_CSUM);
	uint32_t cf = o->p.l4 + ot_csum_off(o->p.proto);
	struct ot_parsed p;

	if (len != o->len)
		return ot_err("length %u, sent %u", len, o->len);
	if (!ot_parse(f, len, &p))
		return false;
	if (act == OT_PASS) {
		if (hdr->flags != o->hdr.flags || hdr->gso_type != o->hdr.gso_type ||
		    hdr->gso_size != o->hdr.gso_size ||
		    hdr->csum_start != o->hdr.csum_start ||
		    hdr->csum_offset != o->hdr.csum_offset)
			return ot_err("header changed: flags %u gso %u/%u csum %u/%u, sent %u %u/%u %u/%u",
				      hdr->flags, hdr->gso_type, hdr->gso_size,
				      hdr->csum_start, hdr->csum_offset,
				      o->hdr.flags, o->hdr.gso_type,
				      o->hdr.gso_size, o->hdr.csum_start,
				      o->hdr.csum_offset);
		if (hdr_len_kept && hdr->hdr_len != o->hdr.hdr_len)
			return ot_err("hdr_len %u, sent %u", hdr->hdr_len,
				      o->hdr.hdr_len);
		if (memcmp(f, o->buf, len))
			return ot_err("bytes changed");
		return ot_check_l4(f, len, &p, hdr, csum_ok);
	}
	if (hdr->flags || hdr->gso_type)
		return ot_err("flags %u gso_type %u, want 0/0", hdr->flags,
			      hdr->gso_type);
	if (act == OT_CSUM) {
		if (memcmp(f, o->buf, cf) ||
		    memcmp(f + cf + 2, o->buf + cf + 2, len - cf - 2))
			return ot_err("bytes other than the checksum changed");
	} else if (memcmp(f, o->buf, len)) {
		return ot_err("bytes changed");
	}
	return ot_check_l4(f, len, &p, hdr, csum_ok);
}

/**
 * ot_check_seg() - one software segment against the original frame
 * @o:		original
 * @f:		segment bytes
 * @len:	its length
 * @hdr:	its header
 * @k:		segment index
 * @off:	payload offset so far (in/out)
 * @partial:	NEEDS_CSUM expected
 * @feat:	receiver's features
 * Return: true if right
 */
static bool ot_check_seg(const struct ot_frame *o, const uint8_t *f,
			 uint32_t len, const struct virtio_net_hdr_v1 *hdr,
			 uint32_t k, uint32_t *off, bool partial, uint64_t feat)
{
	const struct ot_parsed *op = &o->p;
	const uint8_t *ob = o->buf;
	uint32_t n, i, mss = o->hdr.gso_size;
	struct ot_parsed p;
	bool last;

	if (!ot_parse(f, len, &p))
		return false;
	if (p.l4 != op->l4 || p.pay != op->pay || p.proto != op->proto)
		return ot_err("seg %u: header layout differs", k);
	n = p.paylen;
	last = *off + n == op->paylen;
	if ((!n && op->paylen) || n > mss || (!last && n != mss))
		return ot_err("seg %u: %u payload bytes, gso_size %u", k, n, mss);
	if (*off + n > op->paylen)
		return ot_err("seg %u: payload beyond the original", k);
	if (hdr->gso_type)
		return ot_err("seg %u: gso_type %u", k, hdr->gso_type);
	if (partial != !!(hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return ot_err("seg %u: flags %u, want %s", k, hdr->flags,
			      partial ? "NEEDS_CSUM" : "0");
	if (memcmp(f, ob, op->l3))
		return ot_err("seg %u: L2 header differs", k);
	if (op->v6) {
		if (memcmp(f + p.l3, ob + op->l3, 4) ||
		    memcmp(f + p.l3 + 6, ob + op->l3 + 6, 34))
			return ot_err("seg %u: IPv6 header differs", k);
	} else {
		for (i = 0; i < op->l4 - op->l3; i++)
			if (i != 2 && i != 3 && i != 4 && i != 5 && i != 10 &&
			    i != 11 && f[p.l3 + i] != ob[op->l3 + i])
				return ot_err("seg %u: IPv4 header byte %u differs",
					      k, i);
		if (ot_get16(f + p.l3 + 4) != (uint16_t)(OT_IP_ID + k))
			return ot_err("seg %u: IPv4 id 0x%04x, want 0x%04x", k,
				      ot_get16(f + p.l3 + 4),
				      (uint16_t)(OT_IP_ID + k));
	}
	if (op->proto == OT_PROTO_TCP) {
		uint8_t want = ob[op->l4 + 13];

		if (k)
			want &= (uint8_t)~TH_CWR;
		if (!last)
			want &= (uint8_t)~(TH_FIN | TH_PSH);
		if (ot_get32(f + p.l4 + 4) != ot_get32(ob + op->l4 + 4) + *off)
			return ot_err("seg %u: seq 0x%08x, want 0x%08x", k,
				      ot_get32(f + p.l4 + 4),
				      ot_get32(ob + op->l4 + 4) + *off);
		if (f[p.l4 + 13] != want)
			return ot_err("seg %u: TCP flags 0x%02x, want 0x%02x", k,
				      f[p.l4 + 13], want);
		if (memcmp(f + p.l4, ob + op->l4, 4) ||
		    memcmp(f + p.l4 + 8, ob + op->l4 + 8, 5) ||
		    memcmp(f + p.l4 + 14, ob + op->l4 + 14, 2) ||
		    memcmp(f + p.l4 + 18, ob + op->l4 + 18, op->pay - op->l4 - 18))
			return ot_err("seg %u: TCP header/options differ", k);
	} else if (memcmp(f + p.l4, ob + op->l4, 4)) {
		return ot_err("seg %u: UDP ports differ", k);
	}
	if (memcmp(f + p.pay, ob + op->pay + *off, n))
		return ot_err("seg %u: payload differs at offset %u", k, *off);
	if (!ot_check_l4(f, len, &p, hdr, feat & F(VIRTIO_NET_F_GUEST_CSUM))) {
		char tmp[sizeof(ot_why)];

		memcpy(tmp, ot_why, sizeof(tmp));
		ot_why[0] = '\0';
		return ot_err("seg %u: %s", k, tmp);
	}
	*off += n;
	return true;
}

/* ---- checker self-test: spoil what arrived, the checks must notice ----------- */

/**
 * enum ot_mut - a corruption applied to every received frame
 * @OT_MUT_NONE:	none (normal runs)
 * @OT_MUT_PAYLOAD:	one payload byte changed
 * @OT_MUT_IPID:	IPv4 identification + 1
 * @OT_MUT_SEQ:		TCP sequence number + 1
 * @OT_MUT_FIN:		TCP FIN set
 * @OT_MUT_CWR:		TCP CWR set
 * @OT_MUT_TTL:		TTL / hop limit - 1
 * @OT_MUT_CSUM:	L4 checksum field's low bit flipped (no fix-up)
 * @OT_MUT_CSUM_START:	csum_start + 1
 * @OT_MUT_COUNT:	number of kinds
 *
 * Except for OT_MUT_CSUM, the IPv4 header checksum and a full L4
 * checksum are recomputed after the change, so only the semantic checks
 * (segment vs original) can catch it.
 */
enum ot_mut {
	OT_MUT_NONE,
	OT_MUT_PAYLOAD,
	OT_MUT_IPID,
	OT_MUT_SEQ,
	OT_MUT_FIN,
	OT_MUT_CWR,
	OT_MUT_TTL,
	OT_MUT_CSUM,
	OT_MUT_CSUM_START,
	OT_MUT_COUNT,
};

static const char *const ot_mut_names[OT_MUT_COUNT] = {
	"none", "payload", "ipid", "seq", "fin", "cwr", "ttl", "csum",
	"csum-start",
};

static enum ot_mut ot_mut;

/**
 * ot_mutate() - apply ot_mut to a received frame, then fix checksums
 * @f:		frame
 * @len:	length
 * @hdr:	its header
 */
static void ot_mutate(uint8_t *f, uint32_t len, struct virtio_net_hdr_v1 *hdr)
{
	struct ot_parsed p;
	bool ok = ot_parse(f, len, &p);
	uint16_t c;

	ot_why[0] = '\0';
	if (!ok || ot_mut == OT_MUT_NONE)
		return;
	switch (ot_mut) {
	case OT_MUT_PAYLOAD:
		if (p.paylen)
			f[p.pay + p.paylen / 2] ^= 0x10;
		break;
	case OT_MUT_IPID:
		if (!p.v6)
			ot_put16(f + p.l3 + 4, (uint16_t)(ot_get16(f + p.l3 + 4) + 1));
		break;
	case OT_MUT_SEQ:
		if (p.proto == OT_PROTO_TCP)
			ot_put32(f + p.l4 + 4, ot_get32(f + p.l4 + 4) + 1);
		break;
	case OT_MUT_FIN:
		if (p.proto == OT_PROTO_TCP)
			f[p.l4 + 13] |= TH_FIN;
		break;
	case OT_MUT_CWR:
		if (p.proto == OT_PROTO_TCP)
			f[p.l4 + 13] |= TH_CWR;
		break;
	case OT_MUT_TTL:
		f[p.l3 + (p.v6 ? 7 : 8)]--;
		break;
	case OT_MUT_CSUM:
		f[p.l4 + ot_csum_off(p.proto) + 1] ^= 1;
		return;
	case OT_MUT_CSUM_START:
		if (hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			hdr->csum_start++;
		return;
	default:
		return;
	}
	if (!p.v6) {
		uint32_t ihl = p.l4 - p.l3;

		ot_put16(f + p.l3 + 10, 0);
		ot_put16(f + p.l3 + 10,
			 (uint16_t)~ot_fold(ot_sum(f + p.l3, ihl, 0)));
	}
	if (!(hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)) {
		ot_put16(f + p.l4 + ot_csum_off(p.proto), 0);
		c = (uint16_t)~ot_fold(ot_pseudo(f, &p, len - p.l4) +
				      ot_sum(f + p.l4, len - p.l4, 0));
		if (p.proto == OT_PROTO_UDP && !c)
			c = 0xffff;
		ot_put16(f + p.l4 + ot_csum_off(p.proto), c);
	}
}

/* ---- vdrv plumbing ------------------------------------------------------------ */

/**
 * ot_open() - open a port, requiring exactly the offloads asked for
 * @p:		port (options filled)
 */
static void ot_open(struct ot_port *p)
{
	int ret = vdrv_open(&p->o, &p->d);

	if (ret)
		ot_fatal("%s: open %s: %s", p->name, p->o.path, strerror(-ret));
}

/**
 * ot_init_port() - options for a guest with offloads @off
 * @p:		port
 * @path:	socket
 * @name:	name
 * @idx:	MAC suffix
 * @off:	offload feature bits wanted (and required)
 */
static void ot_init_port(struct ot_port *p, const char *path, const char *name,
			 uint8_t idx, uint64_t off)
{
	vdrv_opts_init(&p->o, path);
	p->o.features |= off;
	p->o.required = off;
	p->name = name;
	memcpy(p->mac, (uint8_t[6]){ 0x02, 0x0f, 0, 0, 0, idx }, 6);
}

/**
 * ot_close() - close a port; the device must have kept the virtio rules
 * @p:		port
 * Return: true if clean
 */
static bool ot_close(struct ot_port *p)
{
	const struct vdrv_stats *st;
	uint64_t errs;
	int64_t end = ot_ms() + 2000;

	if (!p->d)
		return true;
	st = vdrv_stats(p->d);
	while (st->tx_completed < st->tx_packets && ot_ms() < end &&
	       vdrv_tx_reclaim(p->d) >= 0)
		usleep(1000);
	errs = st->dev_errors;
	vdrv_close(p->d, NULL);	/* the vhost-user side is not under test */
	p->d = NULL;
	if (errs) {
		printf("FAIL %s: device broke the virtio rules %llu times\n",
		       p->name, (unsigned long long)errs);
		ot_failed++;
		return false;
	}
	return true;
}

/**
 * ot_send() - send a frame with its header from @p
 * @p:		sender
 * @f:		frame
 */
static void ot_send(struct ot_port *p, const struct ot_frame *f)
{
	struct vdrv_tx_pkt t = { .data = f->buf, .len = f->len,
				 .hdr = &f->hdr };
	int ret = vdrv_tx_burst(p->d, &t, 1);

	if (ret == 0) {
		ret = vdrv_tx_wait(p->d, 2000);
		if (ret > 0)
			ret = vdrv_tx_burst(p->d, &t, 1);
	}
	if (ret != 1)
		ot_fatal("%s: send %s: %s", p->name, f->s.name,
			 ret < 0 ? strerror(-ret) : "no TX slot");
}

/**
 * ot_settle() - wait until vhostd has taken every frame @p sent
 * @p:		sender
 *
 * vhostd delivers a TX burst to its destinations before it returns the
 * buffers, so after this whatever those frames became is at the
 * receivers (or was dropped).
 */
static void ot_settle(struct ot_port *p)
{
	const struct vdrv_stats *st = vdrv_stats(p->d);
	int64_t end = ot_ms() + 5000;

	while (st->tx_completed < st->tx_packets) {
		if (vdrv_tx_reclaim(p->d) < 0 || ot_ms() > end)
			ot_fatal("%s: TX buffers never came back", p->name);
		usleep(200);
	}
}

/**
 * ot_recv() - next frame at @p that is not a probe or noise
 * @p:		port
 * @rx:		out (its buffer is ot_rxbuf)
 * @timeout_ms:	limit
 * @filter:	only frames this accepts count (NULL: all but probes)
 * Return: true if one arrived
 */
static bool ot_recv(struct ot_port *p, struct vdrv_rx_pkt *rx, int timeout_ms,
		    bool (*filter)(const uint8_t *, uint32_t))
{
	int64_t deadline = ot_ms() + timeout_ms;

	for (;;) {
		int64_t left = deadline - ot_ms();
		int ret;

		memset(rx, 0, sizeof(*rx));
		rx->buf = ot_rxbuf;
		rx->cap = sizeof(ot_rxbuf);
		ret = vdrv_recv(p->d, rx, left < 0 ? 0 : (int)left);
		if (ret < 0)
			ot_fatal("%s: receive: %s (dev_errors %llu)", p->name,
				 strerror(-ret), (unsigned long long)
				 vdrv_stats(p->d)->dev_errors);
		if (!ret)
			return false;
		if (rx->truncated)
			ot_fatal("%s: %u-byte frame truncated", p->name, rx->len);
		if (rx->len >= 14 && ot_get16(ot_rxbuf + 12) == OT_ETH_TEST)
			continue;
		if (filter && !filter(ot_rxbuf, rx->len))
			continue;
		ot_mutate(ot_rxbuf, rx->len, &rx->hdr);
		return true;
	}
}

/**
 * ot_drain() - discard frames at every open port for @ms
 * @n:		ports
 * @ms:		duration
 * @extra:	out per port: frames other than probes (may be NULL)
 */
static void ot_drain(unsigned int n, int ms, unsigned int *extra)
{
	int64_t end = ot_ms() + ms;
	unsigned int i;

	do {
		for (i = 0; i < n; i++) {
			struct vdrv_rx_pkt rx = { .buf = ot_rxbuf,
						  .cap = sizeof(ot_rxbuf) };

			if (!ot_ports[i].d)
				continue;
			while (vdrv_rx_burst(ot_ports[i].d, &rx, 1) > 0) {
				if (extra && !(rx.len >= 14 &&
					       ot_get16(ot_rxbuf + 12) ==
					       OT_ETH_TEST))
					extra[i]++;
				rx.buf = ot_rxbuf;
				rx.cap = sizeof(ot_rxbuf);
			}
		}
		usleep(5000);
	} while (ot_ms() < end);
}

/**
 * ot_sync() - wait until a broadcast from port 0 reaches ports 1..n-1
 * @n:		ports
 */
static void ot_sync(unsigned int n)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	int64_t deadline = ot_ms() + 5000;
	bool seen[OT_PORTS_MAX] = { false };
	unsigned int i, missing;
	uint8_t fr[64];

	do {
		vdrv_pkt_test_frame(fr, sizeof(fr), bc, ot_ports[0].mac, 0xfff00000u,
				    0);
		if (vdrv_send(ot_ports[0].d, fr, sizeof(fr)))
			ot_fatal("%s: probe failed", ot_ports[0].name);
		usleep(20000);
		missing = 0;
		for (i = 1; i < n; i++) {
			struct vdrv_rx_pkt rx = { .buf = ot_rxbuf,
						  .cap = sizeof(ot_rxbuf) };

			if (!ot_ports[i].d)
				continue;
			while (vdrv_rx_burst(ot_ports[i].d, &rx, 1) > 0) {
				if (rx.len >= 14 &&
				    ot_get16(ot_rxbuf + 12) == OT_ETH_TEST)
					seen[i] = true;
				rx.buf = ot_rxbuf;
				rx.cap = sizeof(ot_rxbuf);
			}
			if (!seen[i])
				missing++;
		}
	} while (missing && ot_ms() < deadline);
	if (missing)
		ot_fatal("%u ports never saw port 0's probe", missing);
	ot_drain(n, 50, NULL);
}

/**
 * ot_expect() - receive and check what @f must become at @b
 * @b:		receiver
 * @f:		frame as sent
 * @hdr_len_kept: see ot_check_whole()
 * @filter:	receive filter (NULL: all but probes)
 * @what:	out: description of what arrived (64 bytes)
 * Return: true if right
 */
static bool ot_expect(struct ot_port *b, const struct ot_frame *f,
		      bool hdr_len_kept,
		      bool (*filter)(const uint8_t *, uint32_t), char *what)
{
	uint64_t feat = vdrv_features(b->d);
	enum ot_act act = ot_decide(f, feat);
	struct vdrv_rx_pkt rx;
	uint32_t k, nseg, off = 0;

	/* vhostd spreads one frame over at most OT_VHOSTD_RX_BUFS merged
	 * buffers (doc/offloads.md); a GSO frame needing more reaches the
	 * guest as segments, with partial checksums (TSO implies
	 * GUEST_CSUM).
	 */
	if (act == OT_PASS && f->hdr.gso_type &&
	    (feat & F(VIRTIO_NET_F_MRG_RXBUF)) &&
	    (f->len + (uint32_t)vdrv_hdr_len(b->d) + b->o.rx_buf_len - 1) /
	    b->o.rx_buf_len > OT_VHOSTD_RX_BUFS)
		act = OT_SEG_PARTIAL;

	snprintf(what, 64, "%s", ot_act_names[act]);
	if (act <= OT_CSUM) {
		if (!ot_recv(b, &rx, 2000, filter))
			return ot_err("nothing arrived (want %s)",
				      ot_act_names[act]);
		if (!ot_check_whole(f, ot_rxbuf, rx.len, &rx.hdr, act, feat,
				    hdr_len_kept))
			return false;
		if (f->len > 30000 && (feat & F(VIRTIO_NET_F_MRG_RXBUF))) {
			uint32_t need = (f->len + (uint32_t)vdrv_hdr_len(b->d) +
					 b->o.rx_buf_len - 1) / b->o.rx_buf_len;

			if (rx.nbufs < need || rx.hdr.num_buffers != rx.nbufs)
				return ot_err("num_buffers %u, %u used, need %u",
					      rx.hdr.num_buffers, rx.nbufs, need);
			snprintf(what, 64, "%s, %u bytes in %u MRG buffers",
				 ot_act_names[act], rx.len, rx.nbufs);
		}
		return true;
	}
	nseg = f->p.paylen ? (f->p.paylen + f->hdr.gso_size - 1) /
			     f->hdr.gso_size : 1;
	for (k = 0; k < nseg; k++) {
		if (!ot_recv(b, &rx, 2000, filter))
			return ot_err("segment %u of %u never arrived", k, nseg);
		if (!ot_check_seg(f, ot_rxbuf, rx.len, &rx.hdr, k, &off,
				  act == OT_SEG_PARTIAL, feat))
			return false;
	}
	if (off != f->p.paylen)
		return ot_err("segments carry %u of %u bytes", off, f->p.paylen);
	snprintf(what, 64, "%s, %u segments", ot_act_names[act], nseg);
	return true;
}

/* ---- matrix: every frame kind to every kind of receiver ------------------------ */

/* Payloads that make 65549-byte frames (a 65535-byte IP packet behind
 * Ethernet; virtio's limit is 65550): IPv4 with 8 bytes of options and
 * TCP with 12, IPv6 likewise with its fixed 40-byte header.
 */
#define OT_TCP4_MAX	(65535 - 28 - 32)
#define OT_TCP6_MAX	(65535 - 40 - 32)
#define OT_UDP4_MAX	(65535 - 20 - 8)
#define OT_UDP6_MAX	(65535 - 40 - 8)

static const struct ot_spec ot_matrix_frames[] = {
	{ "tcp4-opts-64k", OT_PROTO_TCP, false, false, 8, 12,
	  TH_ACK | TH_PSH | TH_FIN, OT_TCP4_MAX, 1448, false, true },
	{ "tcp4-maxopts", OT_PROTO_TCP, false, false, 40, 40,
	  TH_ACK | TH_PSH, 30000, 1000, false, true },
	{ "tcp4-vlan", OT_PROTO_TCP, false, true, 0, 12, TH_ACK | TH_PSH,
	  40000, 1400, false, true },
	{ "tcp6-64k", OT_PROTO_TCP, true, false, 0, 12,
	  TH_ACK | TH_PSH | TH_FIN, OT_TCP6_MAX, 1428, false, true },
	{ "tcp6-vlan", OT_PROTO_TCP, true, true, 0, 20, TH_ACK, 20000, 1200,
	  false, true },
	{ "udp4-uso-64k", OT_PROTO_UDP, false, false, 0, 0, 0, OT_UDP4_MAX,
	  1472, false, true },
	{ "udp6-uso", OT_PROTO_UDP, true, false, 0, 0, 0, OT_UDP6_MAX, 1232,
	  false, true },
	{ "udp4-uso-vlan", OT_PROTO_UDP, false, true, 0, 0, 0, 30000, 1000,
	  false, true },
	{ "udp6-uso-vlan", OT_PROTO_UDP, true, true, 0, 0, 0, 9000, 1400,
	  false, true },
	{ "tcp4-ecn", OT_PROTO_TCP, false, false, 0, 12,
	  TH_ACK | TH_PSH | TH_CWR | TH_ECE, 20000, 1448, true, true },
	{ "tcp6-ecn", OT_PROTO_TCP, true, false, 0, 0,
	  TH_ACK | TH_CWR | TH_ECE, 10000, 1440, true, true },
	{ "tcp4-cwr-no-ecn-bit", OT_PROTO_TCP, false, false, 0, 0,
	  TH_ACK | TH_CWR, 8000, 1448, false, true },
	{ "tcp4-one-seg", OT_PROTO_TCP, false, false, 0, 12,
	  TH_ACK | TH_PSH | TH_FIN, 1000, 1448, false, true },
	{ "tcp4-mss-7", OT_PROTO_TCP, false, false, 4, 0, TH_ACK | TH_PSH,
	  500, 7, false, true },
	{ "udp4-uso-odd", OT_PROTO_UDP, false, false, 0, 0, 0, 4097, 1023,
	  false, true },
	{ "tcp4-csum-small", OT_PROTO_TCP, false, false, 8, 12, TH_ACK,
	  1001, 0, false, true },
	{ "udp6-csum-small", OT_PROTO_UDP, true, false, 0, 0, 0, 1201, 0,
	  false, true },
	{ "udp4-csum-vlan", OT_PROTO_UDP, false, true, 0, 0, 0, 333, 0,
	  false, true },
	{ "tcp4-plain", OT_PROTO_TCP, false, false, 0, 0, TH_ACK, 1400, 0,
	  false, false },
	/* Its completed checksum is 0, which UDP must send as 0xffff. */
	{ "udp4-csum-zero", OT_PROTO_UDP, false, false, 0, 0, 0, 100, 0,
	  false, true },
};

/**
 * ot_udp_zero_sum() - tune a UDP frame's payload so that its complete
 *		       checksum computes to 0 (to be sent as 0xffff)
 * @f:		NEEDS_CSUM UDP frame with at least 2 payload bytes
 */
static void ot_udp_zero_sum(struct ot_frame *f)
{
	uint8_t *b = f->buf, save[2];
	uint32_t cf = f->p.l4 + 6, l4len = f->len - f->p.l4;
	uint16_t s, d;

	memcpy(save, b + cf, 2);
	memset(b + cf, 0, 2);
	s = ot_fold(ot_pseudo(b, &f->p, l4len) + ot_sum(b + f->p.l4, l4len, 0));
	/* Adding d to one 16-bit word adds d to the sum: make it 0xffff. */
	d = (uint16_t)(0xffff - s);
	ot_put16(b + f->p.pay, ot_fold((uint64_t)ot_get16(b + f->p.pay) + d));
	if (ot_fold(ot_pseudo(b, &f->p, l4len) +
		    ot_sum(b + f->p.l4, l4len, 0)) != 0xffff)
		ot_fatal("udp4-csum-zero: sum not 0xffff");
	memcpy(b + cf, save, 2);
}

/**
 * struct ot_variant - a kind of receiver
 * @name:	name
 * @feat:	offload features it negotiates (exactly)
 * @clear:	default features it does without
 * @rx_buf_len:	RX buffer size (0 = vdrv's default)
 * @queue:	ring size (0 = default)
 */
struct ot_variant {
	const char *name;
	uint64_t feat;
	uint64_t clear;
	unsigned int rx_buf_len;
	unsigned int queue;
};

#define OT_NOMRG	F(VIRTIO_NET_F_MRG_RXBUF)
#define OT_LEGACY	(F(VIRTIO_NET_F_MRG_RXBUF) | F(VIRTIO_F_VERSION_1))

static const struct ot_variant ot_variants[] = {
	{ "B-full", OT_GUEST_ALL, 0, 0, 0 },
	{ "B-full-1536", OT_GUEST_ALL, 0, 1536, 0 },
	{ "B-full-512", OT_GUEST_ALL, 0, 512, 1024 },
	{ "B-full-nomrg", OT_GUEST_ALL, OT_NOMRG, OT_BIG_RXBUF, 64 },
	{ "B-csum", F(VIRTIO_NET_F_GUEST_CSUM), 0, 0, 0 },
	{ "B-none", 0, 0, 0, 0 },
	{ "B-none-nomrg", 0, OT_NOMRG, 0, 0 },
	{ "B-tso-noecn", F(VIRTIO_NET_F_GUEST_CSUM) |
	  F(VIRTIO_NET_F_GUEST_TSO4) | F(VIRTIO_NET_F_GUEST_TSO6), 0, 0, 0 },
	{ "B-uso4-legacy", F(VIRTIO_NET_F_GUEST_CSUM) | F(VDRV_F_GUEST_USO4),
	  OT_LEGACY, OT_BIG_RXBUF, 128 },
};

static const uint8_t ot_flood_mac[6] = { 0x02, 0x0f, 0xee, 0xee, 0xee, 0xee };

/**
 * sc_matrix() - A sends every frame kind once; every receiver variant
 *		 gets it by flooding and checks its own expectation
 * @socks:	A's socket, then one per variant
 * @n:		sockets
 */
static void sc_matrix(char **socks, unsigned int n)
{
	struct ot_port *a = &ot_ports[0];
	unsigned int i, v, nv = n - 1;
	unsigned int extra[OT_PORTS_MAX];

	if (nv < 1 || nv > OT_ARRAY_SIZE(ot_variants))
		ot_fatal("matrix needs 2..%zu sockets",
			 OT_ARRAY_SIZE(ot_variants) + 1);
	ot_init_port(a, socks[0], "A", 1, OT_HOST_ALL);
	a->o.tx_buf_len = OT_TX_BUF;
	a->o.queue_size = 64;
	a->o.tx_layout = VDRV_TX_SPLIT;
	for (v = 0; v < nv; v++) {
		struct ot_port *b = &ot_ports[1 + v];

		ot_init_port(b, socks[1 + v], ot_variants[v].name,
			     (uint8_t)(2 + v), ot_variants[v].feat);
		b->o.features &= ~ot_variants[v].clear;
		if (ot_variants[v].rx_buf_len)
			b->o.rx_buf_len = ot_variants[v].rx_buf_len;
		if (ot_variants[v].queue)
			b->o.queue_size = ot_variants[v].queue;
	}
	for (i = 0; i < n; i++)
		ot_open(&ot_ports[i]);
	for (v = 0; v < nv; v++) {
		uint64_t got = vdrv_features(ot_ports[1 + v].d) &
			       (OT_GUEST_ALL | OT_HOST_ALL);

		if (got != ot_variants[v].feat)
			ot_fatal("%s negotiated offloads 0x%llx, want 0x%llx",
				 ot_variants[v].name, (unsigned long long)got,
				 (unsigned long long)ot_variants[v].feat);
	}
	ot_sync(n);

	for (i = 0; i < OT_ARRAY_SIZE(ot_matrix_frames); i++) {
		const struct ot_spec *s = &ot_matrix_frames[i];

		ot_build(&ot_f, s, ot_flood_mac, a->mac, NULL, NULL,
			 (uint16_t)(40000 + i), 5001, i);
		if (!strcmp(s->name, "udp4-csum-zero"))
			ot_udp_zero_sum(&ot_f);
		ot_send(a, &ot_f);
		for (v = 0; v < nv; v++) {
			char what[64];
			bool ok = ot_expect(&ot_ports[1 + v], &ot_f, true, NULL,
					    what);

			ot_report(ok, s->name, ot_variants[v].name, what);
		}
		memset(extra, 0, sizeof(extra));
		ot_drain(n, 30, extra);
		for (v = 0; v < nv; v++)
			if (extra[1 + v]) {
				ot_err("%u unexpected extra frames", extra[1 + v]);
				ot_report(false, s->name, ot_variants[v].name, "");
			}
	}
	for (i = 0; i < n; i++)
		ot_close(&ot_ports[i]);
}

/* ---- negative: offloads a source may not use, hostile metadata ----------------- */

/**
 * enum ot_bad_kind - how a frame is spoilt
 * @OT_BAD_NONE:	not at all (sender lacks the feature, or a control)
 * @OT_BAD_CSUM_BEYOND:	csum_start 100 bytes past the end
 * @OT_BAD_CSUM_OFF1:	checksum field's second byte one past the end
 * @OT_BAD_CSUM_HUGE:	csum_start and csum_offset 0xffff
 * @OT_BAD_GSO0:	gso_size 0
 * @OT_BAD_NO_NEEDS_CSUM: GSO without NEEDS_CSUM
 * @OT_BAD_TYPE2:	gso_type 2 (undefined)
 * @OT_BAD_TUNNEL:	TCPV4 with a UDP-tunnel bit (0x20)
 * @OT_BAD_ECN_USO:	GSO_ECN on UDP_L4
 * @OT_BAD_ECN_NONE:	GSO_ECN on a non-GSO NEEDS_CSUM frame
 * @OT_BAD_UFO:		GSO_UDP (UFO), never offered
 * @OT_BAD_TCP4_ON_V6:	gso_type TCPV4 on an IPv6 frame
 * @OT_BAD_USO_ON_TCP:	gso_type UDP_L4 on a TCP frame
 * @OT_BAD_CSUM_AT_IP:	csum_start at the IP header
 * @OT_BAD_CSUM_OFF6:	TCP with csum_offset 6
 * @OT_BAD_SYN:		TSO frame with SYN
 * @OT_BAD_FRAG:	TSO frame with IPv4 MF set
 * @OT_BAD_EXTHDR:	TSO6 frame with a hop-by-hop header
 * @OT_BAD_DOFF:	TCP doff 15 in a frame too short for it
 * @OT_BAD_QINQ:	two VLAN tags
 * @OT_BAD_IHL4:	IPv4 ihl 4
 */
enum ot_bad_kind {
	OT_BAD_NONE,
	OT_BAD_CSUM_BEYOND,
	OT_BAD_CSUM_OFF1,
	OT_BAD_CSUM_HUGE,
	OT_BAD_GSO0,
	OT_BAD_NO_NEEDS_CSUM,
	OT_BAD_TYPE2,
	OT_BAD_TUNNEL,
	OT_BAD_ECN_USO,
	OT_BAD_ECN_NONE,
	OT_BAD_UFO,
	OT_BAD_TCP4_ON_V6,
	OT_BAD_USO_ON_TCP,
	OT_BAD_CSUM_AT_IP,
	OT_BAD_CSUM_OFF6,
	OT_BAD_SYN,
	OT_BAD_FRAG,
	OT_BAD_EXTHDR,
	OT_BAD_DOFF,
	OT_BAD_QINQ,
	OT_BAD_IHL4,
};

static const struct ot_spec ot_neg_tcp4 = {
	"tcp4", OT_PROTO_TCP, false, false, 0, 12, TH_ACK, 5000, 1000,
	false, true };
static const struct ot_spec ot_neg_tcp6 = {
	"tcp6", OT_PROTO_TCP, true, false, 0, 12, TH_ACK, 5000, 1000,
	false, true };
static const struct ot_spec ot_neg_udp4 = {
	"udp4", OT_PROTO_UDP, false, false, 0, 0, 0, 5000, 1000, false, true };
static const struct ot_spec ot_neg_tcp4_small = {
	"tcp4s", OT_PROTO_TCP, false, false, 0, 0, TH_ACK, 300, 0, false,
	true };
static const struct ot_spec ot_neg_udp4_small = {
	"udp4s", OT_PROTO_UDP, false, false, 0, 0, 0, 300, 0, false, true };
/* A 65589-byte frame: beyond virtio's 65550-byte maximum. */
static const struct ot_spec ot_neg_tcp6_huge = {
	"tcp6h", OT_PROTO_TCP, true, false, 0, 12, TH_ACK, 65535 - 32, 1400,
	false, true };
static const struct ot_spec ot_neg_tcp4_short = {
	"tcp4t", OT_PROTO_TCP, false, false, 0, 0, TH_ACK, 10, 1000, false,
	true };

/**
 * struct ot_bad - one negative case
 * @name:	case name
 * @sender:	port index sending it (0 A: all offloads; 1 A2: CSUM and
 *		HOST_TSO6 only; 2 A3: no offloads)
 * @base:	frame before spoiling
 * @kind:	how it is spoilt
 * @pass_b:	B (every GUEST_* offload) gets it whole: gso_plan() looks at
 *		metadata only, and the metadata asks for nothing B lacks
 * @control:	a valid frame: C gets it too, as gso_plan() says
 * @src_drop:	dropped where it enters (counted on the sender's port)
 */
struct ot_bad {
	const char *name;
	unsigned int sender;
	const struct ot_spec *base;
	enum ot_bad_kind kind;
	bool pass_b;
	bool control;
	bool src_drop;
};

static const struct ot_bad ot_bads[] = {
	{ "A2-tso4-no-HOST_TSO4", 1, &ot_neg_tcp4, OT_BAD_NONE, false, false, false },
	{ "A2-uso-no-HOST_USO", 1, &ot_neg_udp4, OT_BAD_NONE, false, false, false },
	{ "A2-tso6-control", 1, &ot_neg_tcp6, OT_BAD_NONE, true, true, false },
	{ "A3-csum-no-CSUM", 2, &ot_neg_tcp4_small, OT_BAD_NONE, false, false, false },
	{ "A3-tso4-no-features", 2, &ot_neg_tcp4, OT_BAD_NONE, false, false, false },
	{ "csum-start-beyond", 0, &ot_neg_udp4_small, OT_BAD_CSUM_BEYOND,
	  false, false, false },
	{ "csum-field-off-by-one", 0, &ot_neg_tcp4_small, OT_BAD_CSUM_OFF1,
	  false, false, false },
	{ "csum-start-0xffff", 0, &ot_neg_tcp4, OT_BAD_CSUM_HUGE, false,
	  false, false },
	{ "gso-size-0", 0, &ot_neg_tcp4, OT_BAD_GSO0, false, false, false },
	{ "gso-without-needs-csum", 0, &ot_neg_tcp4, OT_BAD_NO_NEEDS_CSUM,
	  false, false, false },
	{ "gso-type-2", 0, &ot_neg_tcp4, OT_BAD_TYPE2, false, false, false },
	{ "gso-udp-tunnel-bit", 0, &ot_neg_tcp4, OT_BAD_TUNNEL, false, false, false },
	{ "ecn-on-uso", 0, &ot_neg_udp4, OT_BAD_ECN_USO, false, false, false },
	{ "ecn-on-gso-none", 0, &ot_neg_tcp4_small, OT_BAD_ECN_NONE, false,
	  false, false },
	{ "ufo-not-offered", 0, &ot_neg_udp4, OT_BAD_UFO, false, false, false },
	{ "mismatch-tcpv4-on-ipv6", 0, &ot_neg_tcp6, OT_BAD_TCP4_ON_V6, true,
	  false, false },
	{ "mismatch-uso-on-tcp", 0, &ot_neg_tcp4, OT_BAD_USO_ON_TCP, true,
	  false, false },
	{ "mismatch-csum-at-ip", 0, &ot_neg_tcp4, OT_BAD_CSUM_AT_IP, true,
	  false, false },
	{ "mismatch-csum-offset-6", 0, &ot_neg_tcp4, OT_BAD_CSUM_OFF6, true,
	  false, false },
	{ "tso-with-syn", 0, &ot_neg_tcp4, OT_BAD_SYN, true, false, false },
	{ "tso-ipv4-fragment", 0, &ot_neg_tcp4, OT_BAD_FRAG, true, false, false },
	{ "tso6-hop-by-hop", 0, &ot_neg_tcp6, OT_BAD_EXTHDR, true, false, false },
	{ "tso-doff-beyond-frame", 0, &ot_neg_tcp4_short, OT_BAD_DOFF, true,
	  false, false },
	{ "tso-qinq", 0, &ot_neg_tcp4, OT_BAD_QINQ, true, false, false },
	{ "tso-ipv4-ihl-4", 0, &ot_neg_tcp4, OT_BAD_IHL4, true, false, false },
	{ "frame-over-65550", 0, &ot_neg_tcp6_huge, OT_BAD_NONE, false, false,
	  true },
};

/**
 * ot_insert() - open a gap of @n bytes at @at in the frame
 * @f:		frame
 * @at:		offset
 * @n:		bytes
 */
static void ot_insert(struct ot_frame *f, uint32_t at, uint32_t n)
{
	memmove(f->buf + at + n, f->buf + at, f->len - at);
	f->len += n;
	f->hdr.csum_start = (uint16_t)(f->hdr.csum_start + n);
}

/**
 * ot_ip4_fix() - recompute the IPv4 header checksum after a change
 * @f:		frame
 */
static void ot_ip4_fix(struct ot_frame *f)
{
	uint8_t *ip = f->buf + f->p.l3;
	uint32_t ihl = (ip[0] & 15u) * 4;

	if (ihl < 20)
		ihl = 20;
	ot_put16(ip + 10, 0);
	ot_put16(ip + 10, (uint16_t)~ot_fold(ot_sum(ip, ihl, 0)));
}

/**
 * ot_spoil() - apply @kind to a built frame
 * @f:		frame
 * @kind:	what to do
 */
static void ot_spoil(struct ot_frame *f, enum ot_bad_kind kind)
{
	struct virtio_net_hdr_v1 *h = &f->hdr;
	uint8_t *b = f->buf;

	switch (kind) {
	case OT_BAD_NONE:
		break;
	case OT_BAD_CSUM_BEYOND:
		h->csum_start = (uint16_t)(f->len + 100);
		break;
	case OT_BAD_CSUM_OFF1:
		h->csum_start = (uint16_t)(f->len - h->csum_offset - 1);
		break;
	case OT_BAD_CSUM_HUGE:
		h->csum_start = 0xffff;
		h->csum_offset = 0xffff;
		break;
	case OT_BAD_GSO0:
		h->gso_size = 0;
		break;
	case OT_BAD_NO_NEEDS_CSUM:
		h->flags = 0;
		break;
	case OT_BAD_TYPE2:
		h->gso_type = 2;
		break;
	case OT_BAD_TUNNEL:
		h->gso_type |= 0x20;
		break;
	case OT_BAD_ECN_USO:
	case OT_BAD_ECN_NONE:
		h->gso_type |= VIRTIO_NET_HDR_GSO_ECN;
		break;
	case OT_BAD_UFO:
		h->gso_type = VIRTIO_NET_HDR_GSO_UDP;
		break;
	case OT_BAD_TCP4_ON_V6:
		h->gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		break;
	case OT_BAD_USO_ON_TCP:
		h->gso_type = VDRV_GSO_UDP_L4;
		break;
	case OT_BAD_CSUM_AT_IP:
		h->csum_start = (uint16_t)f->p.l3;
		break;
	case OT_BAD_CSUM_OFF6:
		h->csum_offset = 6;
		break;
	case OT_BAD_SYN:
		b[f->p.l4 + 13] |= TH_SYN;
		break;
	case OT_BAD_FRAG:
		b[f->p.l3 + 6] |= 0x20;
		ot_ip4_fix(f);
		break;
	case OT_BAD_EXTHDR: {
		static const uint8_t hbh[8] = { OT_PROTO_TCP, 0, 1, 4 };
		uint8_t *ip = b + f->p.l3;

		ot_insert(f, f->p.l4, 8);
		memcpy(b + f->p.l4, hbh, 8);
		ip[6] = 0;
		ot_put16(ip + 4, (uint16_t)(ot_get16(ip + 4) + 8));
		break;
	}
	case OT_BAD_DOFF:
		b[f->p.l4 + 12] = 0xf0;
		break;
	case OT_BAD_QINQ:
		ot_insert(f, 12, 8);
		ot_put16(b + 12, OT_ETH_VLAN);
		ot_put16(b + 14, 7);
		ot_put16(b + 16, OT_ETH_VLAN);
		ot_put16(b + 18, 8);
		break;
	case OT_BAD_IHL4:
		b[f->p.l3] = 0x44;
		ot_ip4_fix(f);
		break;
	}
}

/**
 * ot_recv_any() - next frame at @p, probes included
 * @p:		port
 * @rx:		out (ot_rxbuf)
 * @timeout_ms:	limit
 * Return: true if one arrived
 */
static bool ot_recv_any(struct ot_port *p, struct vdrv_rx_pkt *rx,
			int timeout_ms)
{
	int ret;

	memset(rx, 0, sizeof(*rx));
	rx->buf = ot_rxbuf;
	rx->cap = sizeof(ot_rxbuf);
	ret = vdrv_recv(p->d, rx, timeout_ms);
	if (ret < 0)
		ot_fatal("%s: receive: %s", p->name, strerror(-ret));
	return ret > 0;
}

/**
 * ot_canary() - A sends a test frame to @r, which must get it next
 * @a:		sender
 * @r:		receiver
 * @seq:	sequence number
 * Return: true if it arrived intact and nothing came before it
 */
static bool ot_canary(struct ot_port *a, struct ot_port *r, uint32_t seq)
{
	struct vdrv_test_info ti;
	struct vdrv_rx_pkt rx;
	uint8_t fr[300];

	vdrv_pkt_test_frame(fr, sizeof(fr), r->mac, a->mac, 77, seq);
	if (vdrv_send(a->d, fr, sizeof(fr)))
		ot_fatal("%s: canary send failed", a->name);
	if (!ot_recv_any(r, &rx, 2000))
		return ot_err("canary never arrived: traffic stopped");
	if (vdrv_pkt_test_check(ot_rxbuf, rx.len, &ti) || ti.tag != 77 ||
	    ti.seq != seq)
		return ot_err("got a %u-byte frame (gso_type %u) before the canary",
			      rx.len, rx.hdr.gso_type);
	return true;
}

/**
 * ot_announce() - @p broadcasts a probe, so the switch learns its MAC
 * @p:		port
 */
static void ot_announce(struct ot_port *p)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t fr[64];

	vdrv_pkt_test_frame(fr, sizeof(fr), bc, p->mac, 0xfff00001u, 0);
	if (vdrv_send(p->d, fr, sizeof(fr)))
		ot_fatal("%s: announce failed", p->name);
}

/**
 * sc_negative() - frames that must be dropped (and counted), and life
 *		   going on after them
 * @socks:	A, A2, A3, B, C
 * @n:		5
 */
static void sc_negative(char **socks, unsigned int n)
{
	struct ot_port *b = &ot_ports[3], *c = &ot_ports[4];
	unsigned int i, drops_b = 0, drops_c = 0, too_big = 0;
	uint32_t seq = 0;

	if (n != 5)
		ot_fatal("negative needs 5 sockets: A A2 A3 B C");
	ot_init_port(&ot_ports[0], socks[0], "A", 1, OT_HOST_ALL);
	ot_init_port(&ot_ports[1], socks[1], "A2", 2,
		     F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO6));
	ot_init_port(&ot_ports[2], socks[2], "A3", 3, 0);
	/* A3 asks for nothing, but vdrv must not get CSUM from defaults. */
	ot_init_port(b, socks[3], "B", 4, OT_GUEST_ALL);
	ot_init_port(c, socks[4], "C", 5, 0);
	for (i = 0; i < 3; i++) {
		ot_ports[i].o.tx_buf_len = OT_TX_BUF;
		ot_ports[i].o.queue_size = 64;
	}
	for (i = 0; i < n; i++)
		ot_open(&ot_ports[i]);
	if (vdrv_features(ot_ports[1].d) & (F(VIRTIO_NET_F_HOST_TSO4) |
					    F(VDRV_F_HOST_USO)))
		ot_fatal("A2 negotiated HOST_TSO4/HOST_USO");
	if (vdrv_features(ot_ports[2].d) & OT_HOST_ALL)
		ot_fatal("A3 negotiated offloads");
	ot_sync(n);
	/* B and C make themselves known: what follows is unicast. */
	ot_announce(b);
	ot_announce(c);
	ot_drain(n, 100, NULL);

	for (i = 0; i < OT_ARRAY_SIZE(ot_bads); i++) {
		const struct ot_bad *bad = &ot_bads[i];
		struct ot_port *src = &ot_ports[bad->sender];
		unsigned int r;

		for (r = 0; r < 2; r++) {
			struct ot_port *dst = r ? c : b;
			bool pass = r ? bad->control : bad->pass_b;
			struct vdrv_rx_pkt rx;
			char what[64];
			bool ok = true;

			ot_build(&ot_f, bad->base, dst->mac, src->mac, NULL,
				 NULL, (uint16_t)(41000 + i), 5001, i);
			ot_spoil(&ot_f, bad->kind);
			ot_send(src, &ot_f);
			/* Dropped means: processed, and nothing came out. */
			ot_settle(src);
			snprintf(what, sizeof(what), "dropped, traffic goes on");
			if (bad->control) {
				ok = ot_expect(dst, &ot_f, true, NULL, what);
			} else if (pass) {
				/* Whole and untouched: the header is the
				 * receiver's to judge, as with Linux's tun.
				 */
				if (!ot_recv_any(dst, &rx, 2000))
					ok = ot_err("not passed whole");
				else if (rx.len != ot_f.len ||
					 memcmp(ot_rxbuf, ot_f.buf, rx.len) ||
					 rx.hdr.gso_type != ot_f.hdr.gso_type ||
					 rx.hdr.gso_size != ot_f.hdr.gso_size ||
					 rx.hdr.csum_start != ot_f.hdr.csum_start ||
					 rx.hdr.csum_offset != ot_f.hdr.csum_offset)
					ok = ot_err("passed, but changed");
				snprintf(what, sizeof(what),
					 "passed whole (metadata only is checked)");
			} else if (bad->src_drop) {
				too_big++;
			} else if (r) {
				drops_c++;
			} else {
				drops_b++;
			}
			ok = ok && ot_canary(&ot_ports[0], dst, ++seq);
			if (!ok && !pass)
				ot_drain(n, 100, NULL);
			ot_report(ok, bad->name, dst->name, what);
		}
	}
	printf("COUNTER vu3 offload %u\n", drops_b);
	printf("COUNTER vu4 offload %u\n", drops_c);
	printf("COUNTER vu0 too_big %u\n", too_big);
	for (i = 0; i < 3; i++)
		printf("COUNTER vu%u offload 0\n", i);
	for (i = 0; i < n; i++)
		ot_close(&ot_ports[i]);
}

/* ---- fuzz: random offload metadata on valid frames ------------------------------ */

/**
 * ot_rand() - xorshift32, reproducible from a fixed seed
 * Return: next value
 */
static uint32_t ot_rand(void)
{
	static uint32_t x = 0x2545f491;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/**
 * ot_rand_u16() - a 16-bit value biased towards the edges
 * @len:	frame length, for values near it
 * Return: value
 */
static uint16_t ot_rand_u16(uint32_t len)
{
	static const uint16_t edge[] = { 0, 1, 2, 6, 13, 14, 16, 17, 18, 34,
					 54, 0x7fff, 0xfffe, 0xffff };

	switch (ot_rand() % 4) {
	case 0:
		return edge[ot_rand() % OT_ARRAY_SIZE(edge)];
	case 1:
		return (uint16_t)(len - 20 + ot_rand() % 40);
	case 2:
		return (uint16_t)(ot_rand() % 80);
	default:
		return (uint16_t)ot_rand();
	}
}

/**
 * sc_fuzz() - A sends valid frames with random virtio-net headers to B
 *	       (every GUEST_* offload) and C (none); vhostd must stay up,
 *	       never hand C an offload header (vdrv counts that), and keep
 *	       forwarding: every 64 frames a canary must get through
 * @socks:	A, B, C
 * @n:		3
 */
static void sc_fuzz(char **socks, unsigned int n)
{
	static const uint8_t gso_types[] = { 0, 1, 3, 4, 5, 2, 6, 0x81, 0x84,
					     0x85, 0x80, 0x21, 0x41, 0xff };
	struct ot_port *a = &ot_ports[0], *b = &ot_ports[1], *c = &ot_ports[2];
	unsigned int i, iters = 3000;
	uint32_t seq = 0;

	if (n != 3)
		ot_fatal("fuzz needs A B C");
	ot_init_port(a, socks[0], "A", 1, OT_HOST_ALL);
	a->o.tx_buf_len = OT_TX_BUF;
	a->o.queue_size = 64;
	ot_init_port(b, socks[1], "B", 2, OT_GUEST_ALL);
	ot_init_port(c, socks[2], "C", 3, 0);
	for (i = 0; i < n; i++)
		ot_open(&ot_ports[i]);
	ot_sync(n);
	ot_announce(b);
	ot_announce(c);
	ot_drain(n, 50, NULL);
	for (i = 0; i < iters; i++) {
		const struct ot_spec *base =
			&ot_matrix_frames[ot_rand() % OT_ARRAY_SIZE(ot_matrix_frames)];
		struct virtio_net_hdr_v1 *h = &ot_f.hdr;
		struct ot_spec s = *base;

		s.payload = ot_rand() % (s.payload + 1);
		if (s.gso_size)
			s.gso_size = (uint16_t)(1 + ot_rand() % 9000);
		ot_build(&ot_f, &s, ot_flood_mac, a->mac, NULL, NULL, 46000,
			 5001, i);
		switch (ot_rand() % 6) {
		case 0:
			h->flags = (uint8_t)ot_rand();
			break;
		case 1:
			h->gso_type = gso_types[ot_rand() % sizeof(gso_types)];
			break;
		case 2:
			h->gso_size = ot_rand_u16(ot_f.len);
			break;
		case 3:
			h->csum_start = ot_rand_u16(ot_f.len);
			break;
		case 4:
			h->csum_offset = ot_rand_u16(ot_f.len);
			break;
		default:
			h->flags = (uint8_t)ot_rand();
			h->gso_type = gso_types[ot_rand() % sizeof(gso_types)];
			h->gso_size = ot_rand_u16(ot_f.len);
			h->csum_start = ot_rand_u16(ot_f.len);
			h->csum_offset = ot_rand_u16(ot_f.len);
			break;
		}
		ot_send(a, &ot_f);
		if (i % 8 == 7)
			ot_drain(n, 0, NULL);
		if (i % 64 == 63) {
			ot_settle(a);
			ot_drain(n, 20, NULL);
			if (!ot_canary(a, b, ++seq) || !ot_canary(a, c, ++seq)) {
				ot_report(false, "fuzz", "B/C", "");
				break;
			}
		}
	}
	ot_drain(n, 50, NULL);
	if (i == iters) {
		char what[64];

		snprintf(what, sizeof(what), "%u random headers, forwarding intact",
			 iters);
		ot_report(true, "fuzz", "B-full/C-none", what);
	}
	for (i = 0; i < n; i++)
		ot_close(&ot_ports[i]);
}

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
static void sc_tap(char **args, unsigned int n)
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

/**
 * main() - run one scenario
 * @argc:	count
 * @argv:	SCENARIO ARGS...
 * Return: 0 all passed, 1 a failure, 2 usage
 */
int main(int argc, char **argv)
{
	const char *sc;

	if (argc < 3) {
		fprintf(stderr, "usage: offload_itest matrix|negative|tap ARGS...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sc = argv[1];
	if (getenv("OT_MUTATE")) {
		for (ot_mut = OT_MUT_COUNT - 1; ot_mut; ot_mut--)
			if (!strcmp(getenv("OT_MUTATE"), ot_mut_names[ot_mut]))
				break;
		if (!ot_mut)
			fprintf(stderr, "unknown OT_MUTATE, none applied\n");
	}
	if (!strcmp(sc, "matrix"))
		sc_matrix(argv + 2, (unsigned int)(argc - 2));
	else if (!strcmp(sc, "negative"))
		sc_negative(argv + 2, (unsigned int)(argc - 2));
	else if (!strcmp(sc, "fuzz"))
		sc_fuzz(argv + 2, (unsigned int)(argc - 2));
	else if (!strcmp(sc, "tap"))
		sc_tap(argv + 2, (unsigned int)(argc - 2));
	else {
		fprintf(stderr, "unknown scenario %s\n", sc);
		return 2;
	}
	printf("%u passed, %u failed\n", ot_passed, ot_failed);
	return ot_failed ? 1 : 0;
}
