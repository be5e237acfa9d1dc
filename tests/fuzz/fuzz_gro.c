// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_gro.c - libFuzzer harness for GRO (net/gro.c)
 *
 * Input layout (what a VXLAN underlay controls):
 *   [0]      bit 0: fix each frame's IPv4 header and TCP checksums first
 *            (so that the search gets past the checksum to the rules);
 *            bit 1: each frame comes with NEEDS_CSUM at the TCP checksum
 *            of an untagged IPv4 (or, bit 2, IPv6) frame, as VXLAN's
 *            remote checksum offload hands it over (not verified);
 *            bits 4-7: frames - 1
 *   [1..]    per frame a 2-byte length (big-endian, cut to what is
 *            left), then the frames back to back
 * Each frame gets its own exact-size heap block (ASan sees any read past
 * it).  The frames go through gro_start()/gro_join()/gro_finish() as a
 * port's burst does; every joined frame's iovec must lie inside its
 * segments or its header buffer and add up to its length, and cutting it
 * again (gso_plan(), gso_init()/gso_next()) must work and give back all
 * its payload.
 */
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/net/csum.h"
#include "../../src/net/gro.h"
#include "../../src/net/gso.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_FRAMES	16

/* fz_fix() - a TCP/IPv4 or IPv6 frame's checksums made right */
static void fz_fix(uint8_t *f, size_t len)
{
	struct eth_hdrs h;
	uint32_t sum, l4len;
	uint16_t c;

	if (eth_parse(f, len, &h) || h.l4_proto != IPPROTO_TCP)
		return;
	l4len = (uint32_t)(len - h.l4_off);
	if (!h.ipv6) {
		size_t ihl = (size_t)(f[h.l3_off] & 0x0f) * 4;

		memset(f + h.l3_off + ETH_IPV4_OFF_CSUM, 0, 2);
		c = csum_fold(csum_partial(f + h.l3_off, ihl, 0));
		memcpy(f + h.l3_off + ETH_IPV4_OFF_CSUM, &c, 2);
		sum = csum_pseudo_ipv4(f + h.l3_off + ETH_IPV4_OFF_SADDR,
				       f + h.l3_off + ETH_IPV4_OFF_DADDR,
				       IPPROTO_TCP, l4len, 0);
	} else {
		sum = csum_pseudo_ipv6(f + h.l3_off + ETH_IPV6_OFF_SADDR,
				       f + h.l3_off + ETH_IPV6_OFF_DADDR,
				       IPPROTO_TCP, l4len, 0);
	}
	memset(f + h.l4_off + ETH_TCP_OFF_CSUM, 0, 2);
	c = csum_fold(csum_partial(f + h.l4_off, l4len, sum));
	memcpy(f + h.l4_off + ETH_TCP_OFF_CSUM, &c, 2);
}

/* fz_inside() - @v lies in one of the frames or in @hdr */
static bool fz_inside(const struct iovec *v, uint8_t *const *fr,
		      const size_t *len, unsigned int n, const uint8_t *hdr)
{
	const uint8_t *b = v->iov_base;
	unsigned int i;

	if (b >= hdr && b + v->iov_len <= hdr + GRO_HDR_MAX)
		return true;
	for (i = 0; i < n; i++)
		if (b >= fr[i] && b + v->iov_len <= fr[i] + len[i])
			return true;
	return false;
}

/* fz_check() - a frame gro_finish() handed on is sound and cuts whole */
static void fz_check(struct gro_flow *g, struct pkt *pkt, uint8_t *const *fr,
		     const size_t *len, unsigned int n, const uint8_t *hdr)
{
	struct iovec out[PKT_IOV_MAX + 1];
	uint8_t sh[GSO_HDR_MAX];
	struct gso_iter it;
	struct gso_seg seg;
	uint32_t total = 0, pay = 0;
	unsigned int i;
	int k;

	for (i = 0; i < pkt->iovcnt; i++) {
		if (!fz_inside(&pkt->iov[i], fr, len, n, hdr))
			abort();
		total += (uint32_t)pkt->iov[i].iov_len;
	}
	if (total != pkt->len)
		abort();
	if (g->segs < 2)
		return;
	if (gso_plan(pkt, pkt->src_feat, 0) != GSO_ACT_SEGMENT ||
	    gso_init(&it, pkt, false))
		abort();
	while ((k = gso_next(&it, sh, out, PKT_IOV_MAX + 1, &seg)) > 0)
		pay += seg.payload;
	if (k < 0 || pay != g->pay)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *fr[FZ_FRAMES] = { 0 }, hdr[FZ_FRAMES][GRO_HDR_MAX];
	struct pkt pkt[FZ_FRAMES];
	size_t len[FZ_FRAMES];
	const struct virtio_net_hdr_v1 *vnet;
	struct virtio_net_hdr_v1 rco;
	struct gro_flow g;
	unsigned int n, i, np = 0;
	int flow = -1;
	uint8_t mode;

	if (size < 1)
		return 0;
	mode = data[0];
	n = 1 + (mode >> 4);
	data++;
	size--;
	for (i = 0; i < n; i++) {
		size_t l;

		if (size < 2)
			break;
		l = (size_t)(data[0] << 8 | data[1]);
		data += 2;
		size -= 2;
		if (l > size)
			l = size;
		fr[i] = malloc(l ? l : 1);
		if (!fr[i])
			abort();
		memcpy(fr[i], data, l);
		len[i] = l;
		data += l;
		size -= l;
		if (mode & 1)
			fz_fix(fr[i], l);
	}
	n = i;

	/* Remote checksum offload's metadata, right or not for the frame:
	 * the IPv4 header checksum is still checked, the rest joins unseen.
	 */
	memset(&rco, 0, sizeof(rco));
	rco.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	rco.csum_start = htole16(mode & 4 ? ETH_HLEN + ETH_IPV6_HLEN :
				 ETH_HLEN + ETH_IPV4_HLEN_MIN);
	rco.csum_offset = htole16(ETH_TCP_OFF_CSUM);
	vnet = mode & 2 ? &rco : NULL;

	/* As a port's burst: each frame joins the one before or starts. */
	for (i = 0; i < n; i++) {
		struct pkt *p = &pkt[np];

		memset(p, 0, sizeof(*p));
		p->len = (uint32_t)len[i];
		p->iovcnt = 1;
		p->iov[0].iov_base = fr[i];
		p->iov[0].iov_len = len[i];
		if (flow >= 0 && gro_join(&g, &pkt[flow], fr[i], len[i], vnet))
			continue;
		if (flow >= 0) {
			gro_finish(&g, &pkt[flow], hdr[flow]);
			fz_check(&g, &pkt[flow], fr, len, n, hdr[flow]);
		}
		flow = gro_start(&g, fr[i], len[i], vnet) ? (int)np : -1;
		np++;
	}
	if (flow >= 0) {
		gro_finish(&g, &pkt[flow], hdr[flow]);
		fz_check(&g, &pkt[flow], fr, len, n, hdr[flow]);
	}
	for (i = 0; i < n; i++)
		free(fr[i]);
	return 0;
}
