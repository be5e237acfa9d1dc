// SPDX-License-Identifier: GPL-2.0-or-later
/* negative.c - offloads a source may not use, hostile metadata
 *
 * Scenario "negative": spoilt or unentitled frames must be dropped and
 * counted (or passed whole where only metadata is judged), and traffic
 * must go on after each.
 */
#include <stdio.h>
#include <string.h>

#include "offload_itest.h"

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
 * @plain:	the sender negotiated no offload, so its header is never
 *		read (it can ask for nothing): B and C get the frame whole,
 *		with an empty header, and nothing is counted
 */
struct ot_bad {
	const char *name;
	unsigned int sender;
	const struct ot_spec *base;
	enum ot_bad_kind kind;
	bool pass_b;
	bool control;
	bool src_drop;
	bool plain;
};

static const struct ot_bad ot_bads[] = {
	{ "A2-tso4-no-HOST_TSO4", 1, &ot_neg_tcp4, OT_BAD_NONE,
	  false, false, false, false },
	{ "A2-uso-no-HOST_USO", 1, &ot_neg_udp4, OT_BAD_NONE,
	  false, false, false, false },
	{ "A2-tso6-control", 1, &ot_neg_tcp6, OT_BAD_NONE,
	  true, true, false, false },
	{ "A3-csum-no-CSUM", 2, &ot_neg_tcp4_small, OT_BAD_NONE, false, false,
	  false, true },
	{ "A3-tso4-no-features", 2, &ot_neg_tcp4, OT_BAD_NONE, false, false,
	  false, true },
	{ "csum-start-beyond", 0, &ot_neg_udp4_small, OT_BAD_CSUM_BEYOND,
	  false, false, false, false },
	{ "csum-field-off-by-one", 0, &ot_neg_tcp4_small, OT_BAD_CSUM_OFF1,
	  false, false, false, false },
	{ "csum-start-0xffff", 0, &ot_neg_tcp4, OT_BAD_CSUM_HUGE, false,
	  false, false, false },
	{ "gso-size-0", 0, &ot_neg_tcp4, OT_BAD_GSO0,
	  false, false, false, false },
	{ "gso-without-needs-csum", 0, &ot_neg_tcp4, OT_BAD_NO_NEEDS_CSUM,
	  false, false, false, false },
	{ "gso-type-2", 0, &ot_neg_tcp4, OT_BAD_TYPE2,
	  false, false, false, false },
	{ "gso-udp-tunnel-bit", 0, &ot_neg_tcp4, OT_BAD_TUNNEL,
	  false, false, false, false },
	{ "ecn-on-uso", 0, &ot_neg_udp4, OT_BAD_ECN_USO,
	  false, false, false, false },
	{ "ecn-on-gso-none", 0, &ot_neg_tcp4_small, OT_BAD_ECN_NONE, false,
	  false, false, false },
	{ "ufo-not-offered", 0, &ot_neg_udp4, OT_BAD_UFO,
	  false, false, false, false },
	{ "mismatch-tcpv4-on-ipv6", 0, &ot_neg_tcp6, OT_BAD_TCP4_ON_V6, true,
	  false, false, false },
	{ "mismatch-uso-on-tcp", 0, &ot_neg_tcp4, OT_BAD_USO_ON_TCP, true,
	  false, false, false },
	{ "mismatch-csum-at-ip", 0, &ot_neg_tcp4, OT_BAD_CSUM_AT_IP, true,
	  false, false, false },
	{ "mismatch-csum-offset-6", 0, &ot_neg_tcp4, OT_BAD_CSUM_OFF6, true,
	  false, false, false },
	{ "tso-with-syn", 0, &ot_neg_tcp4, OT_BAD_SYN,
	  true, false, false, false },
	{ "tso-ipv4-fragment", 0, &ot_neg_tcp4, OT_BAD_FRAG,
	  true, false, false, false },
	{ "tso6-hop-by-hop", 0, &ot_neg_tcp6, OT_BAD_EXTHDR,
	  true, false, false, false },
	{ "tso-doff-beyond-frame", 0, &ot_neg_tcp4_short, OT_BAD_DOFF, true,
	  false, false, false },
	{ "tso-qinq", 0, &ot_neg_tcp4, OT_BAD_QINQ, true, false, false, false },
	{ "tso-ipv4-ihl-4", 0, &ot_neg_tcp4, OT_BAD_IHL4,
	  true, false, false, false },
	{ "frame-over-65550", 0, &ot_neg_tcp6_huge, OT_BAD_NONE, false, false,
	  true, false },
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
 * sc_negative() - frames that must be dropped (and counted), and life
 *		   going on after them
 * @socks:	A, A2, A3, B, C
 * @n:		5
 */
void sc_negative(char **socks, unsigned int n)
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
			if (bad->plain) {
				if (!ot_recv_any(dst, &rx, 2000))
					ok = ot_err("plain frame not delivered");
				else if (rx.len != ot_f.len ||
					 memcmp(ot_rxbuf, ot_f.buf, rx.len) ||
					 rx.hdr.flags ||
					 rx.hdr.gso_type != VIRTIO_NET_HDR_GSO_NONE)
					ok = ot_err("header read, or frame changed");
				snprintf(what, sizeof(what),
					 "header not read: delivered plain");
			} else if (bad->control) {
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
