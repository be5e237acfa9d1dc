/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_gso.h - what the parts of test_gso share
 *
 * test_gso.c (the decision table, the test list) and the files next to
 * this header are one cmocka program, split by concern:
 *
 *   ref.c	the independent reference: byte sums, frame builder
 *   segment.c	segmentation checked segment by segment; hostile metadata
 *   csum.c	checksum completion (gso_csum_fill/store), UDP zero sums
 *   gro.c	GRO (net/gro.h) as segmentation's inverse, its refusals
 *   kernel.c	the Linux kernel as reference (gso_kernel_ref.sh only)
 */
#ifndef TEST_GSO_H
#define TEST_GSO_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../../src/net/gso.h"

#define FRAME_MAX	(70 * 1024)
#define T_TCP_FLAGS	13

/**
 * struct spec - a GSO frame to build
 * @v6:		IPv6 (else IPv4)
 * @udp:	UDP (USO; else TCP)
 * @vlan:	one 802.1Q tag
 * @partial:	segment in partial-checksum mode
 * @ipopt:	IPv4 option bytes, multiple of 4
 * @tcpopt:	TCP option bytes, multiple of 4
 * @tcp_flags:	TCP flags of the big frame
 * @urg:	TCP urgent pointer
 * @pay_len:	L4 payload bytes
 * @mss:	gso_size
 */
struct spec {
	bool v6, udp, vlan, partial;
	unsigned int ipopt, tcpopt;	/* option bytes, multiples of 4 */
	uint8_t tcp_flags;
	uint16_t urg;
	uint32_t pay_len;
	uint16_t mss;
};

/**
 * struct frame - a built frame and the packet that describes it
 * @buf:	the bytes
 * @len:	their count
 * @l3:		IP header offset
 * @l4:		TCP/UDP header offset
 * @pay:	payload offset
 * @pkt:	the library's view: virtio-net header, iovecs over @buf
 */
struct frame {
	uint8_t buf[FRAME_MAX];
	size_t len, l3, l4, pay;
	struct pkt pkt;
};

/* test_gso.c: the frame under test (one at a time) */
extern struct frame fr;

/* ref.c */
uint32_t ref_add(uint32_t s, const uint8_t *p, size_t len);
uint16_t ref_fold(uint32_t s);
uint16_t rd16(const uint8_t *p);
uint32_t rd32(const uint8_t *p);
void wr16(uint8_t *p, uint32_t v);
uint32_t ref_pseudo(const uint8_t *l3, bool v6, uint8_t proto,
		    uint32_t l4len);
void build(struct frame *f, const struct spec *s);
void random_spec(struct spec *s);

/* segment.c */
void rebuild_flat(struct frame *f);
void test_segment_random(void **state);
void test_segment_flat(void **state);
void test_gro_partial(void **state);
void test_segment_fixed(void **state);
void test_segment_edges(void **state);
void test_segment_nospc(void **state);
void test_hostile(void **state);
void test_mutate(void **state);

/* csum.c */
void test_csum_fill(void **state);
void test_csum_fill_hostile(void **state);
void test_udp_zero_csum(void **state);

/* gro.c */
void test_gro_roundtrip(void **state);
void test_gro_refusals(void **state);
void test_gro_two_frames(void **state);

/* kernel.c */
void test_kernel_ref(void **state);

#endif /* TEST_GSO_H */
