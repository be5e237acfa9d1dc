// SPDX-License-Identifier: GPL-2.0-or-later
/* hostile.c - a front end that breaks the protocol
 *
 * Malformed messages (each on a fresh connection), a peer that stops
 * mid-message, and a device marked broken: errors and counters, never
 * a crash or a hang.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

#include "test_vhost_user.h"

/**
 * expect_proto_err() - the last message must have been refused as malformed
 * @rc:		vu_dev_handle()'s result
 */
static void expect_proto_err(int rc)
{
	assert_int_equal(rc, -EPROTO);
	vu_dev_detach(&f.dev);
}

void test_malformed(void **state)
{
	uint64_t v = 0;
	int sv[2], efd = eventfd(0, EFD_CLOEXEC), fds[9], i;
	struct vhost_user_mem_table t = { .nregions = 2 };

	/* each case on a fresh connection */
#define RECONNECT()							\
	do {								\
		if (f.sock >= 0)					\
			close(f.sock);					\
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM |	\
					    SOCK_CLOEXEC, 0, sv), 0);	\
		vu_dev_attach(&f.dev, sv[0]);				\
		f.sock = sv[1];						\
	} while (0)

	fe_send(VHOST_USER_GET_FEATURES, 2, NULL, 0, NULL, 0);	/* version */
	expect_proto_err(vu_dev_handle(&f.dev));
	RECONNECT();
	fe_send(VHOST_USER_GET_FEATURES, 0x5, NULL, 0, NULL, 0); /* reply */
	expect_proto_err(vu_dev_handle(&f.dev));
	RECONNECT();
	expect_proto_err(xfer(VHOST_USER_SET_FEATURES, 0, &v, 4, NULL, 0));
	RECONNECT();
	expect_proto_err(xfer(VHOST_USER_GET_FEATURES, 0, &v, 8, NULL, 0));
	RECONNECT();
	{
		struct vhost_user_hdr h = { 2, 1, 100000 };

		/* a header announcing a huge payload */
		RECONNECT();
		assert_int_equal(send(f.sock, &h, sizeof(h), 0), sizeof(h));
		expect_proto_err(vu_dev_handle(&f.dev));
	}
	RECONNECT();
	/* kick without fd and without NOFD; call with fd and NOFD */
	expect_proto_err(xfer(VHOST_USER_SET_VRING_KICK, 0, &v, 8, NULL, 0));
	RECONNECT();
	v = VHOST_USER_VRING_NOFD_MASK;
	expect_proto_err(xfer(VHOST_USER_SET_VRING_CALL, 0, &v, 8, &efd, 1));
	RECONNECT();
	/* fd on a request that takes none */
	expect_proto_err(xfer(VHOST_USER_GET_FEATURES, 0, NULL, 0, &efd, 1));
	RECONNECT();
	/* mem table: 2 regions, 1 fd; too short for its count; 9 regions */
	expect_proto_err(xfer(VHOST_USER_SET_MEM_TABLE, 0, &t,
			      8 + 2 * 32, &f.memfd, 1));
	RECONNECT();
	expect_proto_err(xfer(VHOST_USER_SET_MEM_TABLE, 0, &t, 8 + 32,
			      (int[]){ f.memfd, f.memfd }, 2));
	RECONNECT();
	t.nregions = 9;
	expect_proto_err(xfer(VHOST_USER_SET_MEM_TABLE, 0, &t, sizeof(t),
			      NULL, 0));
	RECONNECT();
	/* more descriptors than we accept */
	for (i = 0; i < 9; i++)
		fds[i] = efd;
	expect_proto_err(xfer(VHOST_USER_SET_OWNER, 0, NULL, 0, fds, 9));
	RECONNECT();
	/* REM_MEM_REG with two fds */
	{
		struct vhost_user_mem_reg r = { 0 };

		expect_proto_err(xfer(VHOST_USER_REM_MEM_REG, 0, &r, sizeof(r),
				      (int[]){ efd, efd }, 2));
	}
	RECONNECT();
	/* truncated message, then the peer leaves */
	{
		struct vhost_user_hdr h = { 2, 1, 8 };

		assert_int_equal(send(f.sock, &h, sizeof(h), 0), sizeof(h));
		assert_int_equal(send(f.sock, &v, 3, 0), 3);
		close(f.sock);
		f.sock = -1;
		assert_int_equal(vu_dev_handle(&f.dev), -ECONNRESET);
		vu_dev_detach(&f.dev);
	}
	RECONNECT();
	/* GET_VRING_BASE of a ring we do not have: no reply possible */
	assert_int_equal(set_state(VHOST_USER_GET_VRING_BASE, 0, 7, 0),
			 -EINVAL);
	vu_dev_detach(&f.dev);
	close(efd);
	assert_int_equal(f.dev.stats.msg_errors, 14);
#undef RECONNECT
}

void test_stalled_peer(void **state)
{
	struct vhost_user_hdr h = { 2, 1, 8 };
	uint64_t t0;

	/* half a message and then silence: never waited for, and given
	 * up on by the next tick after a second
	 */
	assert_int_equal(send(f.sock, &h, sizeof(h), 0), sizeof(h));
	t0 = now_ns();
	assert_int_equal(vu_dev_handle(&f.dev), 0);
	assert_true(now_ns() - t0 < 100000000ull);
	assert_int_equal(vu_dev_check_stall(&f.dev, now_ns()), 0);
	assert_int_equal(vu_dev_check_stall(&f.dev, now_ns() + 2000000000ull),
			 -ETIMEDOUT);
}

void test_dribbled_message(void **state)
{
	struct vhost_user_hdr h = { VHOST_USER_GET_FEATURES, 1, 0 };
	struct vhost_user_hdr rh;
	uint8_t reply[64];
	unsigned int i;
	uint64_t v;

	/* one byte at a time: each call takes what came and returns */
	for (i = 0; i < sizeof(h); i++) {
		assert_int_equal(send(f.sock, (char *)&h + i, 1, 0), 1);
		assert_int_equal(vu_dev_handle(&f.dev), 0);
		if (i + 1 < sizeof(h))
			assert_int_equal(recv(f.sock, reply, sizeof(reply),
					      MSG_DONTWAIT), -1);
	}
	/* whole: handled once, answered */
	assert_int_equal(recv(f.sock, reply, sizeof(reply), MSG_DONTWAIT),
			 sizeof(rh) + sizeof(v));
	memcpy(&rh, reply, sizeof(rh));
	memcpy(&v, reply + sizeof(rh), sizeof(v));
	assert_int_equal(rh.request, VHOST_USER_GET_FEATURES);
	assert_int_equal(v & f.dev.features_offered, f.dev.features_offered);
	assert_int_equal(vu_dev_check_stall(&f.dev, now_ns() + 2000000000ull),
			 0);
}

void test_broken(void **state)
{
	assert_int_equal(set_mem_table(0), 0);
	start_ring(0);
	assert_int_equal(f.nstart[0], 1);
	vlock_lock(&f.dev.q[0].lock);
	vu_dev_mark_broken(&f.dev);
	vu_dev_mark_broken(&f.dev);
	vlock_unlock(&f.dev.q[0].lock);
	assert_true(f.dev.broken);
	assert_true(vu_dev_handle(&f.dev) < 0);
	vu_dev_detach(&f.dev);
	assert_int_equal(f.nstop[0], 1);
	assert_false(f.dev.broken);
	assert_int_equal(f.dev.fd, -1);
	assert_int_equal(vu_dev_handle(&f.dev), -ENOTCONN);
}
