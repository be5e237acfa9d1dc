// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_gso.c - libFuzzer harness for the offload code (gso.c, csum.c)
 *
 * Input layout (everything a hostile guest controls):
 *   [0]      mode: bit 0 want_partial_csum; bits 1-7 pick feature masks
 *   [1..10]  virtio_net_hdr_v1 minus num_buffers (flags, gso_type,
 *            hdr_len, gso_size, csum_start, csum_offset; little-endian)
 *   [11]     number of iovecs - 1 (mod 16)
 *   [12..]   one length byte per iovec but the last, then the frame
 * Each iovec gets its own exact-size heap block, so ASan flags any read
 * past a segment.  gso_plan(), gso_csum_fill() and the whole
 * gso_init()/gso_next() walk must never crash, read out of bounds, loop
 * forever, or hand out a slice outside the frame.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/net/gso.h"

#define HDR_BYTES	11

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * in_frame() - does @v lie inside one of the frame's segments?
 * @p:		frame
 * @v:		slice
 * Return: true if it does
 */
static bool in_frame(const struct pkt *p, const struct iovec *v)
{
	const uint8_t *b = v->iov_base;
	unsigned int i;

	for (i = 0; i < p->iovcnt; i++) {
		const uint8_t *s = p->iov[i].iov_base;

		if (b >= s && b + v->iov_len <= s + p->iov[i].iov_len)
			return true;
	}
	return false;
}

/**
 * LLVMFuzzerTestOneInput() - one fuzz case
 * @data:	input
 * @size:	input length
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t feats[4] = {
		0,
		~0ULL,
		(1ULL << VIRTIO_NET_F_CSUM) | (1ULL << VIRTIO_NET_F_HOST_TSO4) |
		(1ULL << VIRTIO_NET_F_HOST_TSO6) | (1ULL << VIRTIO_NET_F_HOST_USO),
		(1ULL << VIRTIO_NET_F_GUEST_CSUM) |
		(1ULL << VIRTIO_NET_F_GUEST_TSO4) |
		(1ULL << VIRTIO_NET_F_GUEST_USO6),
	};
	static struct pkt pkt;
	uint8_t hdrbuf[GSO_HDR_MAX];
	struct iovec out[PKT_IOV_MAX + 1];
	struct gso_iter it;
	struct gso_seg seg;
	struct gso_csum res;
	unsigned int n, i;
	size_t off, left;
	uint32_t segs = 0;
	int r;

	if (size < HDR_BYTES + 1)
		return 0;
	memset(&pkt, 0, sizeof(pkt));
	pkt.vnet.flags = data[1];
	pkt.vnet.gso_type = data[2];
	memcpy(&pkt.vnet.hdr_len, data + 3, 2);
	memcpy(&pkt.vnet.gso_size, data + 5, 2);
	memcpy(&pkt.vnet.csum_start, data + 7, 2);
	memcpy(&pkt.vnet.csum_offset, data + 9, 2);
	n = 1 + data[HDR_BYTES] % 16;
	off = HDR_BYTES + 1;
	if (size < off + n - 1)
		return 0;
	off += n - 1;
	left = size - off;
	for (i = 0; i < n; i++) {
		size_t l = i + 1 == n ? left : data[HDR_BYTES + 1 + i];

		if (l > left)
			l = left;
		/* malloc(0) may return NULL; keep a real, empty block */
		pkt.iov[i].iov_base = malloc(l ? l : 1);
		if (!pkt.iov[i].iov_base)
			abort();
		memcpy(pkt.iov[i].iov_base, data + off, l);
		pkt.iov[i].iov_len = l;
		off += l;
		left -= l;
	}
	pkt.iovcnt = n;
	pkt.len = (uint32_t)(size - HDR_BYTES - n);
	if (pkt.iov[0].iov_len >= ETH_HLEN)
		memcpy(&pkt.eth, pkt.iov[0].iov_base, sizeof(pkt.eth));

	(void)gso_plan(&pkt, feats[(data[0] >> 1) & 3],
		       feats[(data[0] >> 3) & 3]);
	if (gso_csum_fill(&pkt.vnet, pkt.iov, pkt.iovcnt, pkt.len, &res) == 0 &&
	    res.off + 2 > pkt.len)
		abort();

	if (gso_init(&it, &pkt, data[0] & 1) == 0) {
		uint32_t total = 0;

		while ((r = gso_next(&it, hdrbuf, out, PKT_IOV_MAX + 1,
				     &seg)) > 0) {
			if (++segs > gso_segs(&it) || seg.len > 0xffff + 64)
				abort();
			for (i = 1; i < (unsigned int)r; i++)
				if (!in_frame(&pkt, &out[i]))
					abort();
			total += seg.payload;
		}
		if (r != 0 || segs != gso_segs(&it) ||
		    total + it.h.pay_off != pkt.len)
			abort();
	}
	/* The flat walk copies each segment into exactly the frame's
	 * length (no segment is longer): ASan sees any byte past it.
	 */
	if (gso_init(&it, &pkt, data[0] & 1) == 0) {
		uint8_t *flat = malloc(pkt.len ? pkt.len : 1);
		uint32_t segs2 = 0;

		if (!flat)
			abort();
		while ((r = gso_next_flat(&it, flat, pkt.len, &seg)) > 0)
			if (++segs2 > segs || (uint32_t)r != seg.len)
				abort();
		if (r != 0 || segs2 != segs)
			abort();
		free(flat);
	}

	for (i = 0; i < n; i++)
		free(pkt.iov[i].iov_base);
	return 0;
}
