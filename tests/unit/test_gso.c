// SPDX-License-Identifier: GPL-2.0-or-later
/* test_gso.c - software segmentation and checksum completion, checked by
 * an independent naive parser
 *
 * Random GSO frames (IPv4/IPv6 x TCP/UDP, IPv4 and TCP options, VLAN tag,
 * random payload, random scatter over iovecs) are segmented; every segment
 * is flattened and re-parsed here with plain byte offsets and a 16-bit
 * at-a-time checksum, never with the library's helpers: header checksums,
 * L4 checksums (full, or partial then completed the way a receiver
 * would), lengths, TCP sequence continuity and flag placement, IPv4 id
 * steps, payload concatenation and segment sizes.  Hostile metadata and
 * mutated frames must give -EINVAL (or at least stay inside the frame).
 *
 * The tests live in test_gso/ (see test_gso.h there); this file holds
 * the decision table's test and the list cmocka runs.
 */
#include <stdlib.h>

#include "test_gso/test_gso.h"

struct frame fr;

/* ---- the decision table ---- */

#define F(b)	(1ULL << (b))

static void test_plan(void **state)
{
	const uint64_t host = F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4) |
			      F(VIRTIO_NET_F_HOST_TSO6) |
			      F(VIRTIO_NET_F_HOST_ECN) |
			      F(VIRTIO_NET_F_HOST_USO);
	const uint64_t guest = F(VIRTIO_NET_F_GUEST_CSUM) |
			       F(VIRTIO_NET_F_GUEST_TSO4) |
			       F(VIRTIO_NET_F_GUEST_TSO6) |
			       F(VIRTIO_NET_F_GUEST_ECN) |
			       F(VIRTIO_NET_F_GUEST_USO4) |
			       F(VIRTIO_NET_F_GUEST_USO6);
	struct spec s = { .tcp_flags = 0x10, .pay_len = 5000, .mss = 1400 };
	struct pkt *p = &fr.pkt;

	(void)state;
	build(&fr, &s);
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_PASS);
	assert_int_equal(gso_plan(p, host, F(VIRTIO_NET_F_GUEST_CSUM)),
			 GSO_ACT_SEGMENT);
	assert_int_equal(gso_plan(p, host, 0), GSO_ACT_SEGMENT);
	assert_int_equal(gso_plan(p, host & ~F(VIRTIO_NET_F_HOST_TSO4), guest),
			 GSO_ACT_DROP);
	/* TSO without GUEST_CSUM is not to be trusted */
	assert_int_equal(gso_plan(p, host, F(VIRTIO_NET_F_GUEST_TSO4)),
			 GSO_ACT_SEGMENT);
	p->vnet.gso_type |= VIRTIO_NET_HDR_GSO_ECN;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_PASS);
	assert_int_equal(gso_plan(p, host, guest & ~F(VIRTIO_NET_F_GUEST_ECN)),
			 GSO_ACT_SEGMENT);
	p->vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
	p->vnet.gso_size = 0;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_DROP);
	p->vnet.gso_size = 1400;
	p->vnet.flags = 0;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_DROP);
	p->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	p->vnet.gso_type = VIRTIO_NET_HDR_GSO_UDP;
	assert_int_equal(gso_plan(p, host | F(VIRTIO_NET_F_HOST_UFO),
				  guest), GSO_ACT_DROP);
	assert_int_equal(gso_plan(p, host | F(VIRTIO_NET_F_HOST_UFO),
				  guest | F(VIRTIO_NET_F_GUEST_UFO)),
			 GSO_ACT_PASS);
	p->vnet.gso_type = 0x42;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_DROP);

	/* USO follows the IP version */
	s.udp = true;
	build(&fr, &s);
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_PASS);
	assert_int_equal(gso_plan(p, host, guest & ~F(VIRTIO_NET_F_GUEST_USO4)),
			 GSO_ACT_SEGMENT);
	assert_int_equal(gso_plan(p, host, guest & ~F(VIRTIO_NET_F_GUEST_USO6)),
			 GSO_ACT_PASS);
	s.vlan = true;
	build(&fr, &s);
	assert_int_equal(gso_plan(p, host, guest & ~F(VIRTIO_NET_F_GUEST_USO6)),
			 GSO_ACT_SEGMENT);
	assert_int_equal(gso_plan(p, host & ~F(VIRTIO_NET_F_HOST_USO), guest),
			 GSO_ACT_DROP);

	/* checksum only */
	p->vnet.gso_type = 0;
	p->vnet.gso_size = 0;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_PASS);
	assert_int_equal(gso_plan(p, host, 0), GSO_ACT_CSUM);
	assert_int_equal(gso_plan(p, 0, 0), GSO_ACT_DROP);
	p->vnet.csum_start = (uint16_t)(p->len - 1);
	assert_int_equal(gso_plan(p, host, 0), GSO_ACT_DROP);
	p->vnet.flags = 0;
	assert_int_equal(gso_plan(p, 0, 0), GSO_ACT_PASS);
	p->vnet.gso_type = VIRTIO_NET_HDR_GSO_ECN;
	assert_int_equal(gso_plan(p, host, guest), GSO_ACT_DROP);
}

/**
 * plan_all() - gso_plan() for a full, a checksum-only and a plain
 *		destination, which must agree on DROP or not
 * @p:		frame
 * @host:	source features
 * @guest:	a destination with every offload
 * Return: true if dropped for all three, false if for none
 */
static bool plan_all(const struct pkt *p, uint64_t host, uint64_t guest)
{
	bool d = gso_plan(p, host, guest) == GSO_ACT_DROP;

	assert_int_equal(gso_plan(p, host, F(VIRTIO_NET_F_GUEST_CSUM)) ==
			 GSO_ACT_DROP, d);
	assert_int_equal(gso_plan(p, host, 0) == GSO_ACT_DROP, d);
	return d;
}

/* Segments per GSO frame are bounded (gso.h): TCP's gso_size has a floor
 * (a maximal frame gives at most 745 segments), USO at most 128
 * segments; beyond, the frame is dropped whatever the destination.
 */
static void test_plan_bounds(void **state)
{
	const uint64_t host = F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4) |
			      F(VIRTIO_NET_F_HOST_TSO6) |
			      F(VIRTIO_NET_F_HOST_USO);
	const uint64_t guest = F(VIRTIO_NET_F_GUEST_CSUM) |
			       F(VIRTIO_NET_F_GUEST_TSO4) |
			       F(VIRTIO_NET_F_GUEST_TSO6) |
			       F(VIRTIO_NET_F_GUEST_USO4) |
			       F(VIRTIO_NET_F_GUEST_USO6);
	struct spec s = { .tcp_flags = 0x10, .pay_len = 64000, .mss = 88 };
	struct pkt *p = &fr.pkt;
	struct gso_iter it;
	unsigned int v6;

	(void)state;
	for (v6 = 0; v6 < 2; v6++) {
		s.v6 = v6;
		s.udp = false;
		s.mss = 88;
		build(&fr, &s);
		assert_false(plan_all(p, host, guest));
		assert_int_equal(gso_init(&it, p, false), 0);
		assert_true(gso_segs(&it) <= 745);
		s.mss = 87;
		build(&fr, &s);
		assert_true(plan_all(p, host, guest));
		s.mss = 1;
		build(&fr, &s);
		assert_true(plan_all(p, host, guest));
		/* however short the frame */
		s.pay_len = 10;
		build(&fr, &s);
		assert_true(plan_all(p, host, guest));
		s.pay_len = 64000;

		/* USO: 64000 bytes in 500-byte segments is 128 */
		s.udp = true;
		s.mss = 500;
		build(&fr, &s);
		assert_false(plan_all(p, host, guest));
		assert_int_equal(gso_init(&it, p, false), 0);
		assert_int_equal(gso_segs(&it), 128);
		s.mss = 499;
		build(&fr, &s);
		assert_true(plan_all(p, host, guest));
		s.mss = 1;
		build(&fr, &s);
		assert_true(plan_all(p, host, guest));
		/* a small payload may use small segments */
		s.pay_len = 128;
		build(&fr, &s);
		assert_false(plan_all(p, host, guest));
		s.pay_len = 129;
		build(&fr, &s);
		assert_true(plan_all(p, host, guest));
		s.pay_len = 64000;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segment_fixed),
		cmocka_unit_test(test_segment_edges),
		cmocka_unit_test(test_segment_random),
		cmocka_unit_test(test_segment_flat),
		cmocka_unit_test(test_segment_nospc),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_mutate),
		cmocka_unit_test(test_csum_fill),
		cmocka_unit_test(test_csum_fill_hostile),
		cmocka_unit_test(test_udp_zero_csum),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_bounds),
		cmocka_unit_test(test_gro_roundtrip),
		cmocka_unit_test(test_gro_refusals),
		cmocka_unit_test(test_gro_partial),
		cmocka_unit_test(test_gro_two_frames),
	};
	const struct CMUnitTest kernel[] = {
		cmocka_unit_test(test_kernel_ref),
	};

	/* gso_kernel_ref.sh runs the kernel reference alone, in its netns. */
	if (getenv("GSO_KERNEL_REF"))
		return cmocka_run_group_tests(kernel, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
