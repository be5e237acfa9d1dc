// SPDX-License-Identifier: GPL-2.0-or-later
/* guest.c - vbench's two guests: open, prefill, prime the path
 *
 * Everything before the measurement: features and buffers per point,
 * the template frame in every TX slot, and priming frames both ways so
 * a learning switch knows A and B before the window opens.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vbench.h"

/**
 * open_guest() - open one guest with the point's features and buffers
 * @cfg:	point
 * @path:	socket
 * @rx_side:	B (wants GUEST_* offloads) rather than A (HOST_*)
 * @dp:		out: device
 * Return: 0, 3 (not applicable: offload not offered), or 1 on errors
 */
int open_guest(const struct vb_cfg *cfg, const char *path,
	       bool rx_side, struct vdrv_dev **dp)
{
	uint64_t off = rx_side ?
		(1ULL << VIRTIO_NET_F_GUEST_CSUM | 1ULL << VIRTIO_NET_F_GUEST_TSO4) :
		(1ULL << VIRTIO_NET_F_CSUM | 1ULL << VIRTIO_NET_F_HOST_TSO4);
	struct vdrv_opts o;
	int ret;

	vdrv_opts_init(&o, path);
	o.queue_size = cfg->queue;
	o.rx_buf_len = cfg->size > 1514 ? 4096 : 2048;
	o.tx_buf_len = (cfg->size + 12 + 63) & ~63u;
	if (o.tx_buf_len < 2048)
		o.tx_buf_len = 2048;
	o.timeout_ms = 10000;
	o.packed = cfg->packed;
	if (cfg->tso)
		o.features |= off;
	ret = vdrv_open(&o, dp);
	if (ret) {
		fprintf(stderr, "vbench: open %s: %s\n", path, strerror(-ret));
		return 1;
	}
	if (cfg->tso && (vdrv_features(*dp) & off) != off) {
		fprintf(stderr, "vbench: %s: the back end does not offer %s (needed for tso)\n",
			path, rx_side ? "GUEST_CSUM+GUEST_TSO4" : "CSUM+HOST_TSO4");
		vdrv_close(*dp, NULL);
		*dp = NULL;
		return 3;
	}
	return 0;
}

/**
 * prefill() - write the template frame into every TX slot of @d
 * @d:		device
 * @cfg:	point
 * @dst:	destination MAC
 * @src:	source MAC
 * @tag:	VB_TAG_*
 * @tx:		out: patch state for tx_fill()
 * @scratch:	VB_BIG bytes
 * Return: 0 or -errno
 */
int prefill(struct vdrv_dev *d, const struct vb_cfg *cfg, unsigned int vid,
	    const uint8_t dst[6], const uint8_t src[6], uint32_t tag,
	    struct vb_tx *tx, uint8_t *scratch)
{
	struct virtio_net_hdr_v1 h = { 0 };
	struct vdrv_tx_pkt p = { .data = scratch };
	uint32_t vl = vid ? 4 : 0;

	tx->loff = build_frame(scratch, cfg->size, cfg->tso, dst, src, tag);
	tx->off = tx->loff + vl;
	tx->len = vlan_push(scratch, cfg->size, vid);
	p.len = tx->len;
	tx->seq = 0;
	tx->tag = tag;
	if (cfg->tso) {
		h.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		h.hdr_len = (uint16_t)(VB_TSO_HLEN + vl);
		h.gso_size = VB_TSO_MSS;
		h.csum_start = (uint16_t)(34 + vl);
		h.csum_offset = 16;
		p.hdr = &h;
	}
	/* Priming frames may still be in flight: wait for them (1 s). */
	for (int i = 0; i < 1000; i++) {
		int ret = vdrv_tx_reclaim(d);

		if (ret < 0)
			return ret;
		ret = vdrv_tx_prefill(d, &p);
		if (ret != -EBUSY)
			return ret;
		usleep(1000);
	}
	return -EBUSY;
}

/**
 * send_prime() - one small frame from @d to @dst so a switch learns @src
 * @d:		device
 * @dst:	destination MAC
 * @src:	source MAC
 * @vid:	its VLAN tag (0: none)
 * Return: 0 or -errno
 */
static int send_prime(struct vdrv_dev *d, const uint8_t dst[6],
		      const uint8_t src[6], unsigned int vid)
{
	uint8_t f[68];

	build_frame(f, 64, false, dst, src, VB_TAG_PRIME);
	return vdrv_send(d, f, vlan_push(f, 64, vid));
}

/**
 * wait_prime() - wait up to @ms for a priming frame on @d
 * @d:	device
 * @ms:	limit
 * @vid:	the VLAN tag it must carry (0: none)
 * Return: true if one arrived
 */
static bool wait_prime(struct vdrv_dev *d, int ms, unsigned int vid)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	uint8_t buf[VB_PREFIX];
	struct vdrv_rx_pkt p;
	struct vb_tag t;

	while (now_ns() < end) {
		p.buf = buf;
		p.cap = sizeof(buf);
		if (vdrv_recv(d, &p, 10) != 1)
			continue;
		if (!vlan_pop(buf, &p.len, MIN(p.len, (uint32_t)sizeof(buf)), vid))
			continue;
		memcpy(&t, buf + 14, sizeof(t));
		if (p.len >= 14 + sizeof(t) && t.magic == VB_MAGIC &&
		    t.tag == VB_TAG_PRIME)
			return true;
	}
	return false;
}

/**
 * prime() - make the path work both ways before measuring
 * @a:	guest A
 * @b:	guest B
 * @cfg:	point (each side's VLAN tag)
 *
 * B speaks first (a switch learns B), then A (it learns A).  Retried for
 * up to 10 s: a back end may bring its ports up a moment after the
 * handshake (DPDK does so from its vhost event thread).
 *
 * Return: 0, or -ETIMEDOUT if the path never worked
 */
int prime(struct vdrv_dev *a, struct vdrv_dev *b, const struct vb_cfg *cfg)
{
	int64_t end = now_ns() + 10 * 1000000000LL;
	bool ab = false, ba = false;
	struct vdrv_rx_pkt p;

	while (now_ns() < end && !(ab && ba)) {
		if (!ba && !send_prime(b, mac_a, mac_b, cfg->vlan_b))
			ba = wait_prime(a, 100, cfg->vlan_a);
		if (ba && !ab && !send_prime(a, mac_b, mac_a, cfg->vlan_a))
			ab = wait_prime(b, 100, cfg->vlan_b);
	}
	if (!(ab && ba))
		return -ETIMEDOUT;
	/* Late duplicates of retried primes: drain for a moment. */
	end = now_ns() + 50000000;
	while (now_ns() < end) {
		p.buf = NULL;
		vdrv_rx_burst(a, &p, 1);
		p.buf = NULL;
		vdrv_rx_burst(b, &p, 1);
	}
	return 0;
}
