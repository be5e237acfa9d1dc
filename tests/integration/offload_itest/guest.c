// SPDX-License-Identifier: GPL-2.0-or-later
/* guest.c - offload_itest's vdrv guests: open, send, receive, expect
 *
 * The vhost-user guest side: ports with exactly the offloads a case
 * asks for, sending one frame at a time, receiving past probes and
 * noise, and the canaries that prove traffic still flows.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "offload_itest.h"

/* ---- vdrv plumbing ------------------------------------------------------------ */

/**
 * ot_open() - open a port, requiring exactly the offloads asked for
 * @p:		port (options filled)
 */
void ot_open(struct ot_port *p)
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
void ot_init_port(struct ot_port *p, const char *path, const char *name,
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
bool ot_close(struct ot_port *p)
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
void ot_send(struct ot_port *p, const struct ot_frame *f)
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
void ot_settle(struct ot_port *p)
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
bool ot_recv(struct ot_port *p, struct vdrv_rx_pkt *rx, int timeout_ms,
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
void ot_drain(unsigned int n, int ms, unsigned int *extra)
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
void ot_sync(unsigned int n)
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
bool ot_expect(struct ot_port *b, const struct ot_frame *f,
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
	if (act == OT_DROP) {
		/* Whatever comes is wrong: a frame or a segment of it. */
		if (ot_recv(b, &rx, 300, filter))
			return ot_err("a %u-byte frame arrived (gso_type %u), "
				      "want a drop", rx.len, rx.hdr.gso_type);
		return true;
	}
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

/**
 * ot_recv_any() - next frame at @p, probes included
 * @p:		port
 * @rx:		out (ot_rxbuf)
 * @timeout_ms:	limit
 * Return: true if one arrived
 */
bool ot_recv_any(struct ot_port *p, struct vdrv_rx_pkt *rx,
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
bool ot_canary(struct ot_port *a, struct ot_port *r, uint32_t seq)
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
void ot_announce(struct ot_port *p)
{
	static const uint8_t bc[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t fr[64];

	vdrv_pkt_test_frame(fr, sizeof(fr), bc, p->mac, 0xfff00001u, 0);
	if (vdrv_send(p->d, fr, sizeof(fr)))
		ot_fatal("%s: announce failed", p->name);
}
