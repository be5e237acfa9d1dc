// SPDX-License-Identifier: GPL-2.0-or-later
/* runtime.c - control messages while the device is in use
 *
 * NET_SET_MTU with and without its protocol feature, and memory, ring
 * and MTU changes while a worker thread runs bursts under the queue
 * lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "test_vhost_user.h"

/**
 * set_mtu() - NET_SET_MTU with NEED_REPLY, as QEMU 7.2 sends it
 * @mtu:	payload (a u64 on the wire)
 *
 * Return: the ack (0 = accepted)
 */
static uint64_t set_mtu(uint64_t mtu)
{
	assert_int_equal(set_u64(VHOST_USER_NET_SET_MTU,
				 VHOST_USER_NEED_REPLY_MASK, mtu), 0);
	return ack(VHOST_USER_NET_SET_MTU);
}

void test_net_mtu(void **state)
{
	uint64_t feat = F_PROTO | (1ull << VIRTIO_F_VERSION_1);

	/* QEMU 7.2 with host_mtu=: NET_MTU and REPLY_ACK acked, then at
	 * DRIVER_OK NET_SET_MTU comes before SET_FEATURES, so it must not
	 * depend on VIRTIO_NET_F_MTU being acked to us.
	 */
	assert_int_equal(get_u64(VHOST_USER_GET_PROTOCOL_FEATURES) &
			 (1 << VHOST_USER_PROTOCOL_F_NET_MTU),
			 1 << VHOST_USER_PROTOCOL_F_NET_MTU);
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES, 0,
				 (1 << 3) | (1 << 4)), 0);
	assert_int_equal(f.dev.mtu, 0);
	assert_int_equal(set_mtu(9000), 0);
	assert_int_equal(f.dev.mtu, 9000);
	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES, 0, feat), 0);
	assert_int_equal(f.dev.mtu, 9000);

	/* the spec's range, ends included */
	assert_int_equal(set_mtu(68), 0);
	assert_int_equal(f.dev.mtu, 68);
	assert_int_equal(set_mtu(65535), 0);
	assert_int_equal(f.dev.mtu, 65535);
	assert_int_equal(f.dev.stats.msg_errors, 0);

	/* out of range: refused, value kept, session kept */
	assert_int_not_equal(set_mtu(67), 0);
	assert_int_not_equal(set_mtu(0), 0);
	assert_int_not_equal(set_mtu(65536), 0);
	/* a u64 that truncates to 1500 is still out of range */
	assert_int_not_equal(set_mtu((1ull << 32) | 1500), 0);
	assert_int_not_equal(set_mtu(UINT64_MAX), 0);
	assert_int_equal(f.dev.mtu, 65535);
	assert_int_equal(f.dev.stats.msg_errors, 5);
	assert_int_equal(set_mtu(1500), 0);
	assert_int_equal(f.dev.mtu, 1500);

	/* RESET_OWNER forgets it (QEMU resends it at the next start) */
	assert_int_equal(xfer(VHOST_USER_RESET_OWNER, 0, NULL, 0, NULL, 0), 0);
	assert_int_equal(f.dev.mtu, 0);
	assert_int_equal(set_mtu(1500), 0);

	/* a payload that is not a u64 is malformed: connection dropped */
	assert_int_equal(xfer(VHOST_USER_NET_SET_MTU, 0, "\xdc\x05\0\0", 4,
			      NULL, 0), -EPROTO);
	assert_int_equal(f.dev.mtu, 1500);
	vu_dev_detach(&f.dev);
	assert_int_equal(f.dev.mtu, 0);
}

void test_net_mtu_not_negotiated(void **state)
{
	/* NET_MTU offered but not acked: NET_SET_MTU is out of protocol */
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES, 0, 1 << 3),
			 0);
	assert_int_not_equal(set_mtu(1500), 0);
	assert_int_equal(f.dev.mtu, 0);
	assert_int_equal(f.dev.stats.msg_errors, 1);
	/* without REPLY_ACK either: refused silently, session kept */
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES, 0, 0), 0);
	assert_int_equal(set_u64(VHOST_USER_NET_SET_MTU,
				 VHOST_USER_NEED_REPLY_MASK, 1500), 0);
	no_reply();
	assert_int_equal(f.dev.mtu, 0);
	assert_int_equal(f.dev.stats.msg_errors, 2);
	/* the session still works */
	assert_int_equal(get_u64(VHOST_USER_GET_QUEUE_NUM), 1);
	/* protocol features from a previous connection do not carry over */
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES, 0, 1 << 4),
			 0);
	assert_int_equal(set_u64(VHOST_USER_NET_SET_MTU, 0, 1500), 0);
	assert_int_equal(f.dev.mtu, 1500);
	{
		int sv[2];

		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM |
					    SOCK_CLOEXEC, 0, sv), 0);
		close(f.sock);
		vu_dev_attach(&f.dev, sv[0]);
		f.sock = sv[1];
	}
	assert_int_equal(f.dev.mtu, 0);
	assert_int_equal(set_u64(VHOST_USER_NET_SET_MTU, 0, 1500), 0);
	assert_int_equal(f.dev.mtu, 0);
}

static volatile int worker_stop;

/**
 * worker() - a datapath thread: bursts on queue 1 under its lock
 * @arg:	unused
 *
 * Return: NULL
 */
static void *worker(void *arg)
{
	struct vu_queue *q = &f.dev.q[1];
	struct virtq_elem e;
	unsigned long bursts = 0;

	while (!__atomic_load_n(&worker_stop, __ATOMIC_ACQUIRE)) {
		vlock_lock(&q->lock);
		if (q->started) {
			while (virtq_pop(&q->vq, &e) == VIRTQ_POP_OK)
				virtq_push(&q->vq, e.head, 0);
			virtq_flush(&q->vq);
			virtq_notify(&q->vq);
			virtq_enable_notify(&q->vq);
			bursts++;
		}
		vlock_unlock(&q->lock);
	}
	return (void *)bursts;
}

void test_concurrent_control(void **state)
{
	pthread_t t;
	unsigned int i;
	void *bursts;

	/* control remaps memory, toggles the ring and changes the MTU
	 * while a worker runs
	 */
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES, 0, 1 << 4),
			 0);
	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES, 0, F_PROTO), 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_ENABLE, 0, 1, 1), 0);
	assert_int_equal(set_mem_table(0), 0);
	start_ring(1);
	assert_int_equal(pthread_create(&t, NULL, worker, NULL), 0);
	for (i = 0; i < 200; i++) {
		assert_int_equal(set_mem_table(0), 0);
		if (i % 10 == 0) {
			assert_int_equal(set_state(VHOST_USER_SET_VRING_ENABLE,
						   0, 1, 0), 0);
			assert_int_equal(set_state(VHOST_USER_SET_VRING_ENABLE,
						   0, 1, 1), 0);
		}
		assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_CALL, 1), 0);
		assert_int_equal(set_u64(VHOST_USER_NET_SET_MTU, 0, 1300 + i),
				 0);
	}
	__atomic_store_n(&worker_stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, &bursts);
	assert_true(f.dev.q[1].started);
	assert_int_equal(f.nstart[1], 1 + 20);
	assert_int_equal(f.dev.mtu, 1300 + 199);
	assert_int_equal(f.dev.stats.msg_errors, 0);
	vu_dev_detach(&f.dev);
}
