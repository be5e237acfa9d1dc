/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_vhost_user.h - what the parts of test_vhost_user share
 *
 * test_vhost_user.c (the test list) and the files next to this header
 * are one cmocka program, split by concern:
 *
 *   fe.c		the fixture and the test's front end ("QEMU"): messages,
 *			replies, the opening and per-ring sequences
 *   session.c	QEMU 7.2's session: start, enable gating, memory slots,
 *			REPLY_ACK, and the same over a packed ring
 *   hostile.c	malformed messages, a stalled peer, a broken device
 *   runtime.c	NET_SET_MTU, and control changes under a running worker
 *   migrate.c	the dirty log (SET_LOG_BASE, LOG_ALL, VHOST_VRING_F_LOG)
 *			and SEND_RARP
 */
#ifndef TEST_VHOST_USER_H
#define TEST_VHOST_USER_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <cmocka.h>

#include "../../../src/util.h"
#include "../../../src/vhost/vhost_user.h"
#include "../../../src/vhost/vu_dev.h"

#define MEM_SIZE	0x200000ull		/* two regions of 1 MiB */
#define UVA_BASE	0x7f0000000000ull	/* "QEMU's" address of gpa 0 */
#define RING_NUM	256
#define RING_OFF(q)	(0x10000ull + (q) * 0x10000ull)
#define DESC_OFF(q)	RING_OFF(q)
#define AVAIL_OFF(q)	(RING_OFF(q) + 0x1000)
#define USED_OFF(q)	(RING_OFF(q) + 0x2000)
#define BUF_OFF		0x150000ull		/* in the second region */

#define OFFERED	((1ull << VIRTIO_F_VERSION_1) |			\
		 (1ull << VIRTIO_NET_F_MRG_RXBUF) |			\
		 (1ull << VIRTIO_RING_F_EVENT_IDX) |			\
		 (1ull << VIRTIO_RING_F_INDIRECT_DESC) |		\
		 (1ull << VIRTIO_F_RING_PACKED) |			\
		 (1ull << VIRTIO_F_IN_ORDER))
#define F_PROTO	(1ull << VHOST_USER_F_PROTOCOL_FEATURES)
/* Offered by the vhost layer on every device: VHOST_F_LOG_ALL. */
#define F_LOG_ALL	(1ull << 26)

/**
 * struct fixture - one test's world
 * @dev:	device under test
 * @sock:	the test's ("QEMU's") end of the socketpair
 * @memfd:	guest RAM
 * @mem:	the test's mapping of @memfd (the "guest")
 * @nstart:	queue_start calls per queue
 * @nstop:	queue_stop calls per queue
 * @log:	sequence of events, 'S'/'s' + queue digit (start/stop)
 * @loglen:	bytes in @log
 * @fds_before:	open descriptors before the test
 * @announced:	the MAC of the last announce (SEND_RARP)
 * @nannounce:	announce calls
 */
struct fixture {
	struct vu_dev dev;
	int sock;
	int memfd;
	uint8_t *mem;
	unsigned int nstart[VU_MAX_QUEUES];
	unsigned int nstop[VU_MAX_QUEUES];
	char log[64];
	unsigned int loglen;
	int fds_before;
	uint8_t announced[6];
	unsigned int nannounce;
};

/* fe.c: the fixture, reset by setup() before every test */
extern struct fixture f;

int setup(void **state);
int teardown(void **state);
void fe_send(uint32_t req, uint32_t flags, const void *p, uint32_t size,
	     const int *fds, unsigned int nfds);
int xfer(uint32_t req, uint32_t flags, const void *p, uint32_t size,
	 const int *fds, unsigned int nfds);
void fe_reply(uint32_t req, void *p, uint32_t size);
void no_reply(void);
uint64_t get_u64(uint32_t req);
int set_u64(uint32_t req, uint32_t flags, uint64_t v);
uint64_t ack(uint32_t req);
int set_state(uint32_t req, uint32_t flags, unsigned int idx,
	      unsigned int num);
int set_vring_fd(uint32_t req, unsigned int q);
int set_mem_table(uint32_t flags);
void negotiate(uint64_t proto, uint64_t features);
void start_ring(unsigned int q);

/* session.c */
void test_qemu_sequence(void **state);
void test_enable_gating(void **state);
void test_mem_slots(void **state);
void test_reply_ack(void **state);
void test_packed_session(void **state);

/* hostile.c */
void test_malformed(void **state);
void test_stalled_peer(void **state);
void test_dribbled_message(void **state);
void test_broken(void **state);

/* runtime.c */
void test_net_mtu(void **state);
void test_net_mtu_not_negotiated(void **state);
void test_concurrent_control(void **state);

/* migrate.c */
void test_log_live(void **state);
void test_log_refused(void **state);
void test_send_rarp(void **state);

#endif /* TEST_VHOST_USER_H */
