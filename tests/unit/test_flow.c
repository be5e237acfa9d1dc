// SPDX-License-Identifier: GPL-2.0-or-later
/* test_flow.c - the symmetric flow hash that picks a guest's RX queue
 *
 * A reply must hash as its request did (or a multiqueue guest would get
 * a flow's two directions on two CPUs); distinct flows must spread; a
 * frame cut short anywhere must neither be read past its end nor crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "../../src/net/flow.h"

/* build() - an Ethernet frame with IPv4 or IPv6 and TCP/UDP ports */
static size_t build(uint8_t *f, int v6, int vlan, uint8_t proto,
		    uint32_t a, uint32_t b, uint16_t sp, uint16_t dp)
{
	size_t off = 12;
	uint16_t t;

	memset(f, 0, 128);
	memcpy(f, "\x02\0\0\0\0\x02\x02\0\0\0\0\x01", 12);
	if (vlan) {
		t = htons(ETH_P_8021Q);
		memcpy(f + off, &t, 2);
		off += 4;
	}
	t = htons(v6 ? ETH_P_IPV6 : ETH_P_IP);
	memcpy(f + off, &t, 2);
	off += 2;
	if (!v6) {
		f[off] = 0x45;
		f[off + 9] = proto;
		memcpy(f + off + 12, &a, 4);
		memcpy(f + off + 16, &b, 4);
		off += 20;
	} else {
		f[off] = 0x60;
		f[off + 6] = proto;
		memcpy(f + off + 8 + 12, &a, 4);
		memcpy(f + off + 24 + 12, &b, 4);
		off += 40;
	}
	sp = htons(sp);
	dp = htons(dp);
	memcpy(f + off, &sp, 2);
	memcpy(f + off + 2, &dp, 2);
	return off + 20;
}

/* as_pkt() - @pkt describing @len bytes of @f in one segment */
static void as_pkt(struct pkt *pkt, uint8_t *f, size_t len)
{
	memset(pkt, 0, sizeof(*pkt));
	memcpy(&pkt->eth, f, ETH_HLEN);
	pkt->len = (uint32_t)len;
	pkt->iovcnt = 1;
	pkt->iov[0].iov_base = f;
	pkt->iov[0].iov_len = len;
}

/* swap_macs() - the reply's Ethernet header */
static void swap_macs(uint8_t *f)
{
	uint8_t m[6];

	memcpy(m, f, 6);
	memcpy(f, f + 6, 6);
	memcpy(f + 6, m, 6);
}

static void test_symmetric(void **state)
{
	uint8_t f[128], r[128];
	struct pkt p, q;
	int v6, vlan, pr;

	(void)state;
	for (v6 = 0; v6 < 2; v6++)
		for (vlan = 0; vlan < 2; vlan++)
			for (pr = 0; pr < 3; pr++) {
				uint8_t proto = pr == 0 ? 6 : pr == 1 ? 17 : 1;
				size_t n = build(f, v6, vlan, proto,
						 0x0a000001, 0x0a000002,
						 40000, 5201);

				build(r, v6, vlan, proto, 0x0a000002,
				      0x0a000001, 5201, 40000);
				swap_macs(r);
				as_pkt(&p, f, n);
				as_pkt(&q, r, n);
				assert_int_equal(pkt_flow_hash(&p),
						 pkt_flow_hash(&q));
			}
}

static void test_spreads(void **state)
{
	unsigned int buckets[4] = { 0 }, i;
	uint8_t f[128];
	struct pkt p;

	(void)state;
	/* 400 TCP flows differing only in the source port. */
	for (i = 0; i < 400; i++) {
		size_t n = build(f, 0, 0, 6, 0x0a000001, 0x0a000002,
				 (uint16_t)(40000 + i), 5201);

		as_pkt(&p, f, n);
		buckets[pkt_flow_hash(&p) % 4]++;
	}
	for (i = 0; i < 4; i++)
		assert_in_range(buckets[i], 60, 140);
}

static void test_truncated(void **state)
{
	uint8_t f[128];
	struct pkt p;
	size_t n, cut;
	int v6;

	(void)state;
	/* Every length a frame may be cut to: in bounds (ASan says so). */
	for (v6 = 0; v6 < 2; v6++) {
		n = build(f, v6, 1, 6, 1, 2, 3, 4);
		for (cut = 0; cut <= n; cut++) {
			uint8_t *copy = malloc(cut ? cut : 1);

			memcpy(copy, f, cut);
			as_pkt(&p, f, n);
			p.iov[0].iov_base = copy;
			p.iov[0].iov_len = cut;
			(void)pkt_flow_hash(&p);
			free(copy);
		}
	}
	as_pkt(&p, f, 0);
	p.iovcnt = 0;
	(void)pkt_flow_hash(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symmetric),
		cmocka_unit_test(test_spreads),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
