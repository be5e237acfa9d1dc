// SPDX-License-Identifier: GPL-2.0-or-later
/* mq.c - vdrv_itest scenario: two guests with two queue pairs each
 *
 * vdrv drives both pairs of each device (opts.pairs = 2); vhostd's ports
 * are started with queues=2 (run.sh: PORT_OPTS).  vhostd remembers per
 * flow the TX pair a guest sent it by and steers what comes back for that
 * flow to the RX queue of the same pair.  Test frames carry no IP header,
 * so a flow is the MAC pair (src/net/flow.c): A<->B is one flow.
 *
 *   1. A broadcasts on pair 0: B gets it on one of its pairs
 *   2. A sends IT_MQ_N frames to B on pair 1: all arrive at B, intact
 *   3. B answers IT_MQ_N on pair 0: all land on A's pair 1 (the pair the
 *      flow came from), none on A's pair 0
 *   4. A sends IT_MQ_N more on pair 1: now all land on B's pair 0
 *
 * Then vhostd's per-queue counters ("queues"[i] of "stats", read from
 * $VDRV_ITEST_CTL) must equal what each pair of each driver counted.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/virtio_net.h>

#include "vdrv_itest.h"

#define IT_MQ_N		50u

/**
 * it_mq_send() - send one test frame on a chosen queue pair
 * @p:		port
 * @pair:	queue pair
 * @dst:	destination MAC
 * @tag:	tag
 */
static void it_mq_send(struct it_port *p, unsigned int pair,
		       const uint8_t dst[6], uint32_t tag)
{
	int ret;

	vdrv_pkt_test_frame(it_frame, 200, dst, p->mac, tag, ++it_seq);
	ret = vdrv_send(vdrv_pair(p->d, pair), it_frame, 200);
	if (ret)
		it_fail("%s: send on pair %u: %s", p->name, pair,
			strerror(-ret));
}

/**
 * it_mq_count() - receive what arrived on one pair until quiet
 * @p:		port
 * @pair:	queue pair
 * @tag:	tag every frame must carry
 * @quiet_ms:	stop after this long without a frame
 *
 * Return: frames received (each intact, from the tag's sender)
 */
static unsigned int it_mq_count(struct it_port *p, unsigned int pair,
				uint32_t tag, int quiet_ms)
{
	struct vdrv_dev *q = vdrv_pair(p->d, pair);
	struct vdrv_test_info ti;
	struct vdrv_rx_pkt pkt;
	unsigned int n = 0;
	int ret;

	for (;;) {
		memset(&pkt, 0, sizeof(pkt));
		pkt.buf = it_buf;
		pkt.cap = sizeof(it_buf);
		ret = vdrv_recv(q, &pkt, quiet_ms);
		if (ret < 0)
			it_fail("%s: receive on pair %u: %s", p->name, pair,
				strerror(-ret));
		if (!ret)
			return n;
		if (vdrv_pkt_test_check(it_buf, pkt.len, &ti))
			continue;	/* not a test frame: noise */
		if (ti.tag != tag)
			it_fail("%s: pair %u: tag %u, want %u", p->name, pair,
				ti.tag, tag);
		n++;
	}
}

/**
 * it_mq_settle() - every TX buffer of a pair came back
 * @p:		port
 * @pair:	queue pair
 */
static void it_mq_settle(struct it_port *p, unsigned int pair)
{
	struct vdrv_dev *q = vdrv_pair(p->d, pair);
	const struct vdrv_stats *st = vdrv_stats(q);
	int64_t end = it_ms() + 2000;

	while (st->tx_completed < st->tx_packets && it_ms() < end &&
	       vdrv_tx_reclaim(q) >= 0)
		usleep(1000);
	if (st->tx_completed != st->tx_packets || st->dev_errors)
		it_fail("%s: pair %u: %llu of %llu TX back, %llu dev errors",
			p->name, pair, (unsigned long long)st->tx_completed,
			(unsigned long long)st->tx_packets,
			(unsigned long long)st->dev_errors);
}

/**
 * sc_mq() - frames on pair 1 arrive; replies come back on the pair their
 *	     flow left by
 */
void sc_mq(void)
{
	struct it_port *a = &it_ports[0], *b = &it_ports[1];
	unsigned int i, n0, n1;

	it_need(2);
	a->o.pairs = b->o.pairs = 2;
	it_open_all();
	for (i = 0; i < 2; i++) {
		struct vdrv_dev *d = it_ports[i].d;

		if (vdrv_npairs(d) != 2 || vdrv_queue_num(d) < 2 ||
		    !(vdrv_features(d) & (1ULL << VIRTIO_NET_F_MQ)) ||
		    !vdrv_pair(d, 1) || vdrv_pair(d, 2))
			it_fail("%s: 2 pairs not set up (queue_num %u)",
				it_ports[i].name, vdrv_queue_num(d));
	}

	/* 1: A is learned. */
	it_mq_send(a, 0, it_bcast, 1);
	n0 = it_mq_count(b, 0, 1, 100);
	n1 = it_mq_count(b, 1, 1, 100);
	if (n0 + n1 != 1)
		it_fail("B: broadcast arrived %u + %u times", n0, n1);

	/* 2: A -> B on pair 1. */
	for (i = 0; i < IT_MQ_N; i++)
		it_mq_send(a, 1, b->mac, 2);
	n0 = it_mq_count(b, 0, 2, 200);
	n1 = it_mq_count(b, 1, 2, 200);
	if (n0 + n1 != IT_MQ_N)
		it_fail("B: %u + %u of %u frames from A's pair 1", n0, n1,
			IT_MQ_N);

	/* 3: B -> A on pair 0: A's flow left by pair 1, so they land there. */
	for (i = 0; i < IT_MQ_N; i++)
		it_mq_send(b, 0, a->mac, 3);
	n1 = it_mq_count(a, 1, 3, 200);
	n0 = it_mq_count(a, 0, 3, 200);
	if (n1 != IT_MQ_N || n0)
		it_fail("A: replies %u on pair 1, %u on pair 0; want %u, 0",
			n1, n0, IT_MQ_N);

	/* 4: B's side of the flow left by pair 0: A's next frames go there. */
	for (i = 0; i < IT_MQ_N; i++)
		it_mq_send(a, 1, b->mac, 4);
	n0 = it_mq_count(b, 0, 4, 200);
	n1 = it_mq_count(b, 1, 4, 200);
	if (n0 != IT_MQ_N || n1)
		it_fail("B: %u on pair 0, %u on pair 1; want %u, 0", n0, n1,
			IT_MQ_N);

	/* vhostd's per-queue counters: what each pair sent and received. */
	it_drain(100);
	for (i = 0; i < 4; i++) {
		struct it_port *p = &it_ports[i / 2];
		const struct vdrv_stats *st = vdrv_stats(vdrv_pair(p->d, i % 2));
		unsigned long long rx, tx;

		it_mq_settle(p, i % 2);
		/* vhostd's rx is what the guest sent, its tx what it got. */
		rx = it_queue_ctr(p->vu, i % 2, "rx_packets");
		tx = it_queue_ctr(p->vu, i % 2, "tx_packets");
		if (rx != st->tx_packets || tx != st->rx_packets)
			it_fail("%s pair %u: vhostd rx/tx %llu/%llu, driver "
				"sent/got %llu/%llu", p->name, i % 2, rx, tx,
				(unsigned long long)st->tx_packets,
				(unsigned long long)st->rx_packets);
		printf("%s pair %u: sent %llu got %llu (vhostd agrees)\n",
		       p->name, i % 2, rx, tx);
	}
	printf("mq: A pair 1 -> B, B pair 0 -> A's pair 1, A -> B's pair 0: "
	       "%u frames each way steered\n", IT_MQ_N);
	it_close_all();
}
