// SPDX-License-Identifier: GPL-2.0-or-later
/* test_vhost_user.c - vhost-user device over a socketpair, test plays QEMU
 *
 * Each test attaches a vu_dev to one end of a unix socketpair and sends
 * QEMU 7.2's messages (see QEMU-NOTES) from the other, with guest memory
 * in a memfd the test also maps to lay out rings.  vu_dev_handle() is
 * called once per message sent; replies are read back and checked.  The
 * port callbacks record when queues start and stop.  Every test checks
 * that the process holds the same descriptors at the end as at the start.
 */
#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <cmocka.h>

#include "../../src/util.h"
#include "../../src/vhost/vhost_user.h"
#include "../../src/vhost/vu_dev.h"

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
		 (1ull << VIRTIO_RING_F_INDIRECT_DESC))
#define F_PROTO	(1ull << VHOST_USER_F_PROTOCOL_FEATURES)

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
};

static struct fixture f;

/**
 * count_fds() - open descriptors of this process
 * Return: entries in /proc/self/fd
 */
static int count_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	assert_non_null(dir);
	while ((de = readdir(dir)))
		if (de->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

static void ev(char c, unsigned int q)
{
	if (f.loglen + 2 < sizeof(f.log)) {
		f.log[f.loglen++] = c;
		f.log[f.loglen++] = (char)('0' + q);
		f.log[f.loglen] = '\0';
	}
}

/* The callbacks run without the queue lock, but a concurrent worker may
 * hold it for a burst: retry a while, and fail only if it stays taken
 * (which is what calling us with the lock held would look like).
 */
static int lock_soon(pthread_mutex_t *m)
{
	int i, rc = EBUSY;

	for (i = 0; i < 100000 && rc == EBUSY; i++) {
		rc = pthread_mutex_trylock(m);
		if (rc == EBUSY)
			sched_yield();
	}
	return rc;
}

static void on_start(struct vu_dev *dev, unsigned int q)
{
	assert_ptr_equal(dev, &f.dev);
	/* called without the lock, after started was set under it */
	assert_int_equal(lock_soon(&dev->q[q].lock), 0);
	assert_true(dev->q[q].started);
	pthread_mutex_unlock(&dev->q[q].lock);
	f.nstart[q]++;
	ev('S', q);
}

static void on_stop(struct vu_dev *dev, unsigned int q)
{
	assert_int_equal(lock_soon(&dev->q[q].lock), 0);
	assert_false(dev->q[q].started);
	/* the kick fd is still open: the port may unregister it */
	pthread_mutex_unlock(&dev->q[q].lock);
	f.nstop[q]++;
	ev('s', q);
}

static const struct vu_dev_ops ops = {
	.queue_start = on_start,
	.queue_stop = on_stop,
};

static int setup(void **state)
{
	int sv[2];

	memset(&f, 0, sizeof(f));
	f.fds_before = count_fds();
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv), 0);
	f.memfd = memfd_create("guest", MFD_CLOEXEC);
	assert_true(f.memfd >= 0);
	assert_int_equal(ftruncate(f.memfd, MEM_SIZE), 0);
	f.mem = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		     f.memfd, 0);
	assert_true(f.mem != MAP_FAILED);
	vu_dev_init(&f.dev, "test0", OFFERED, &ops, NULL);
	vu_dev_attach(&f.dev, sv[0]);
	f.sock = sv[1];
	return 0;
}

static int teardown(void **state)
{
	vu_dev_fini(&f.dev);
	if (f.sock >= 0)
		close(f.sock);
	munmap(f.mem, MEM_SIZE);
	close(f.memfd);
	assert_int_equal(count_fds(), f.fds_before);
	return 0;
}

/**
 * fe_send() - send one message as a front end would
 * @req:	request
 * @flags:	header flags (version added unless @raw_flags)
 * @p:		payload
 * @size:	payload size
 * @fds:	descriptors to attach
 * @nfds:	how many
 */
static void fe_send(uint32_t req, uint32_t flags, const void *p,
		    uint32_t size, const int *fds, unsigned int nfds)
{
	struct vhost_user_hdr h = { req, flags, size };
	union {
		char buf[CMSG_SPACE(sizeof(int) * 16)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov[2] = {
		{ &h, sizeof(h) }, { (void *)p, size },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = p ? 2 : 1 };

	if (nfds) {
		struct cmsghdr *c;

		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	assert_int_equal(sendmsg(f.sock, &mh, MSG_NOSIGNAL),
			 (ssize_t)(sizeof(h) + (p ? size : 0)));
}

/**
 * xfer() - send a message (version 1 flags) and let the device handle it
 * @req:	request
 * @flags:	extra header flags (NEED_REPLY)
 * @p:		payload
 * @size:	payload size
 * @fds:	descriptors
 * @nfds:	how many
 *
 * Return: vu_dev_handle()'s result
 */
static int xfer(uint32_t req, uint32_t flags, const void *p, uint32_t size,
		const int *fds, unsigned int nfds)
{
	fe_send(req, VHOST_USER_VERSION | flags, p, size, fds, nfds);
	return vu_dev_handle(&f.dev);
}

/**
 * fe_reply() - read a reply and check its header
 * @req:	request it must answer
 * @p:		payload out
 * @size:	expected payload size
 */
static void fe_reply(uint32_t req, void *p, uint32_t size)
{
	struct vhost_user_hdr h;

	assert_int_equal(recv(f.sock, &h, sizeof(h), MSG_DONTWAIT),
			 sizeof(h));
	assert_int_equal(h.request, req);
	assert_int_equal(h.flags, 0x5);
	assert_int_equal(h.size, size);
	assert_int_equal(recv(f.sock, p, size, MSG_DONTWAIT), (ssize_t)size);
}

/**
 * no_reply() - the device sent nothing back
 */
static void no_reply(void)
{
	char c;

	assert_int_equal(recv(f.sock, &c, 1, MSG_DONTWAIT), -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
}

static uint64_t get_u64(uint32_t req)
{
	uint64_t v;

	assert_int_equal(xfer(req, 0, NULL, 0, NULL, 0), 0);
	fe_reply(req, &v, sizeof(v));
	return v;
}

static int set_u64(uint32_t req, uint32_t flags, uint64_t v)
{
	return xfer(req, flags, &v, sizeof(v), NULL, 0);
}

static uint64_t ack(uint32_t req)
{
	uint64_t v;

	fe_reply(req, &v, sizeof(v));
	return v;
}

static int set_state(uint32_t req, uint32_t flags, unsigned int idx,
		     unsigned int num)
{
	struct vhost_vring_state s = { idx, num };

	return xfer(req, flags, &s, sizeof(s), NULL, 0);
}

/**
 * set_vring_fd() - SET_VRING_KICK/CALL/ERR with a fresh eventfd
 * @req:	request
 * @q:		ring
 *
 * Return: vu_dev_handle()'s result
 */
static int set_vring_fd(uint32_t req, unsigned int q)
{
	uint64_t v = q;
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK), rc;

	assert_true(efd >= 0);
	rc = xfer(req, 0, &v, sizeof(v), &efd, 1);
	close(efd);	/* the device has its own copy */
	return rc;
}

/**
 * set_mem_table() - SET_MEM_TABLE with QEMU's two-region split of @memfd
 * @flags:	extra header flags
 *
 * Return: vu_dev_handle()'s result
 */
static int set_mem_table(uint32_t flags)
{
	struct vhost_user_mem_table t = {
		.nregions = 2,
		.regions = {
			{ 0, MEM_SIZE / 2, UVA_BASE, 0 },
			{ MEM_SIZE / 2, MEM_SIZE / 2, UVA_BASE + MEM_SIZE / 2,
			  MEM_SIZE / 2 },
		},
	};
	int fds[2] = { f.memfd, f.memfd };

	/* QEMU sends only the used part of the regions array */
	return xfer(VHOST_USER_SET_MEM_TABLE, flags, &t,
		    8 + 2 * sizeof(t.regions[0]), fds, 2);
}

static int set_vring_addr(unsigned int q)
{
	struct vhost_vring_addr a = {
		.index = q,
		.desc_user_addr = UVA_BASE + DESC_OFF(q),
		.used_user_addr = UVA_BASE + USED_OFF(q),
		.avail_user_addr = UVA_BASE + AVAIL_OFF(q),
	};

	return xfer(VHOST_USER_SET_VRING_ADDR, 0, &a, sizeof(a), NULL, 0);
}

/**
 * negotiate() - QEMU 7.2's opening: features, protocol features, owner
 * @proto:	protocol features to ack
 * @features:	virtio features to ack (SET_FEATURES)
 */
static void negotiate(uint64_t proto, uint64_t features)
{
	unsigned int q;

	assert_int_equal(get_u64(VHOST_USER_GET_FEATURES), OFFERED | F_PROTO);
	assert_int_equal(get_u64(VHOST_USER_GET_PROTOCOL_FEATURES),
			 (1 << 0) | (1 << 3) | (1 << 4) | (1 << 15));
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES, 0, proto),
			 0);
	assert_int_equal(get_u64(VHOST_USER_GET_QUEUE_NUM), 1);
	assert_int_equal(xfer(VHOST_USER_SET_OWNER, 0, NULL, 0, NULL, 0), 0);
	assert_int_equal(get_u64(VHOST_USER_GET_FEATURES), OFFERED | F_PROTO);
	for (q = 0; q < 2; q++) {
		assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_CALL, q), 0);
		assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_ERR, q), 0);
	}
	for (q = 0; q < 2; q++)
		assert_int_equal(set_state(VHOST_USER_SET_VRING_ENABLE, 0, q,
					   1), 0);
	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES, 0, features), 0);
	assert_int_equal(f.dev.features, features);
}

/**
 * start_ring() - QEMU's per-ring start: NUM, BASE, ADDR, KICK, CALL
 * @q:		ring
 */
static void start_ring(unsigned int q)
{
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM, 0, q, RING_NUM),
			 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_BASE, 0, q, 0), 0);
	assert_int_equal(set_vring_addr(q), 0);
	assert_false(f.dev.q[q].started);	/* no kick fd yet */
	assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_KICK, q), 0);
	assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_CALL, q), 0);
}

static void test_qemu_sequence(void **state)
{
	uint64_t feat = F_PROTO | (1ull << VIRTIO_F_VERSION_1) |
			(1ull << VIRTIO_RING_F_EVENT_IDX);
	struct vring_desc *desc = (void *)(f.mem + DESC_OFF(1));
	struct vring_avail *avail = (void *)(f.mem + AVAIL_OFF(1));
	struct vring_used *used = (void *)(f.mem + USED_OFF(1));
	struct vhost_vring_state st = { 1, 0 };
	struct virtq_elem e;

	negotiate((1 << 0) | (1 << 3), feat);
	assert_int_equal(vu_dev_hdr_len(&f.dev), 12);
	assert_true(f.dev.q[0].vq.event_idx);
	assert_false(f.dev.q[0].vq.indirect);

	assert_int_equal(set_mem_table(VHOST_USER_NEED_REPLY_MASK), 0);
	assert_int_equal(ack(VHOST_USER_SET_MEM_TABLE), 0);
	assert_int_equal(f.dev.mem.nregions, 2);

	start_ring(0);
	start_ring(1);
	assert_string_equal(f.log, "S0S1");
	assert_true(f.dev.q[1].started);

	/* the guest sends a frame on TX (queue 1): the datapath pops it */
	memcpy(f.mem + BUF_OFF, "hello", 5);
	desc[3] = (struct vring_desc){ BUF_OFF, 5, 0, 0 };
	avail->ring[0] = 3;
	avail->idx = 1;
	pthread_mutex_lock(&f.dev.q[1].lock);
	assert_true(f.dev.q[1].started);
	assert_int_equal(virtq_pop(&f.dev.q[1].vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.out_len, 5);
	assert_memory_equal(e.iov[0].iov_base, "hello", 5);
	virtq_push(&f.dev.q[1].vq, e.head, 0);
	virtq_flush(&f.dev.q[1].vq);
	virtq_notify(&f.dev.q[1].vq);
	pthread_mutex_unlock(&f.dev.q[1].lock);
	assert_int_equal(used->idx, 1);
	assert_int_equal(used->ring[0].id, 3);
	assert_int_equal(f.dev.q[1].vq.stat_notifies, 1);

	/* stop: GET_VRING_BASE per ring returns where we are */
	assert_int_equal(set_state(VHOST_USER_GET_VRING_BASE, 0, 1, 0), 0);
	fe_reply(VHOST_USER_GET_VRING_BASE, &st, sizeof(st));
	assert_int_equal(st.index, 1);
	assert_int_equal(st.num, 1);
	assert_int_equal(set_state(VHOST_USER_GET_VRING_BASE, 0, 0, 0), 0);
	fe_reply(VHOST_USER_GET_VRING_BASE, &st, sizeof(st));
	assert_int_equal(st.num, 0);
	assert_string_equal(f.log, "S0S1s1s0");
	assert_int_equal(f.dev.q[0].kick_fd, -1);

	/* restart: base 0 is sent, but the used ring shows 1 completed */
	start_ring(1);
	assert_string_equal(f.log, "S0S1s1s0S1");
	assert_int_equal(f.dev.q[1].vq.last_avail_idx, 1);

	/* QEMU goes away */
	close(f.sock);
	f.sock = -1;
	assert_int_equal(vu_dev_handle(&f.dev), -ECONNRESET);
	vu_dev_detach(&f.dev);
	assert_string_equal(f.log, "S0S1s1s0S1s1");
	assert_int_equal(f.dev.stats.connects, 1);
	assert_int_equal(f.dev.stats.disconnects, 1);
	assert_int_equal(f.dev.stats.msg_errors, 0);
	assert_int_equal(f.dev.mem.nregions, 0);
}

static void test_enable_gating(void **state)
{
	/* PROTOCOL_FEATURES acked: rings start disabled */
	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES, 0, F_PROTO), 0);
	assert_int_equal(set_mem_table(0), 0);
	start_ring(0);
	assert_int_equal(f.nstart[0], 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_ENABLE, 0, 0, 1), 0);
	assert_int_equal(f.nstart[0], 1);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_ENABLE, 0, 0, 0), 0);
	assert_int_equal(f.nstop[0], 1);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_ENABLE, 0, 0, 2), 0);
	assert_int_equal(f.dev.stats.msg_errors, 1);

	/* not acked: a ring runs as soon as it has a kick fd */
	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES, 0, 0), 0);
	assert_int_equal(f.nstart[0], 2);
	/* a new kick fd replaces the old one: stop, then start again */
	assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_KICK, 0), 0);
	assert_string_equal(f.log, "S0s0S0s0S0");
	/* RESET_OWNER stops everything */
	assert_int_equal(xfer(VHOST_USER_RESET_OWNER, 0, NULL, 0, NULL, 0), 0);
	assert_string_equal(f.log, "S0s0S0s0S0s0");
	assert_int_equal(f.dev.mem.nregions, 0);
}

static void test_mem_slots(void **state)
{
	struct vhost_user_mem_reg r = {
		.region = { 0, MEM_SIZE / 2, UVA_BASE, 0 },
	};
	struct vhost_user_mem_reg r2 = {
		.region = { MEM_SIZE / 2, MEM_SIZE / 2, UVA_BASE + MEM_SIZE / 2,
			    MEM_SIZE / 2 },
	};
	uint8_t *old_desc;

	negotiate((1 << 3) | (1 << 15), 0);
	assert_int_equal(get_u64(VHOST_USER_GET_MAX_MEM_SLOTS),
			 GUEST_MEM_MAX_REGIONS);
	assert_int_equal(xfer(VHOST_USER_ADD_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r, sizeof(r),
			      &f.memfd, 1), 0);
	assert_int_equal(ack(VHOST_USER_ADD_MEM_REG), 0);
	start_ring(0);
	assert_int_equal(f.nstart[0], 1);
	old_desc = (uint8_t *)f.dev.q[0].vq.desc;

	/* adding a region remaps in place: no stop */
	assert_int_equal(xfer(VHOST_USER_ADD_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r2, sizeof(r2),
			      &f.memfd, 1), 0);
	assert_int_equal(ack(VHOST_USER_ADD_MEM_REG), 0);
	assert_int_equal(f.nstop[0], 0);
	assert_ptr_equal(f.dev.q[0].vq.desc, old_desc);
	/* the same region twice overlaps: refused */
	assert_int_equal(xfer(VHOST_USER_ADD_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r2, sizeof(r2),
			      &f.memfd, 1), 0);
	assert_int_not_equal(ack(VHOST_USER_ADD_MEM_REG), 0);

	/* removing the rings' region stops the ring; fd attached is fine */
	assert_int_equal(xfer(VHOST_USER_REM_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r, sizeof(r),
			      &f.memfd, 1), 0);
	assert_int_equal(ack(VHOST_USER_REM_MEM_REG), 0);
	assert_int_equal(f.nstop[0], 1);
	assert_false(f.dev.q[0].started);
	assert_int_equal(xfer(VHOST_USER_REM_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r, sizeof(r),
			      NULL, 0), 0);
	assert_int_not_equal(ack(VHOST_USER_REM_MEM_REG), 0);
	/* and adding it back starts it again */
	assert_int_equal(xfer(VHOST_USER_ADD_MEM_REG, 0, &r, sizeof(r),
			      &f.memfd, 1), 0);
	no_reply();
	assert_int_equal(f.nstart[0], 2);

	/* a full SET_MEM_TABLE replaces everything; rings remapped */
	assert_int_equal(set_mem_table(0), 0);
	assert_true(f.dev.q[0].started);
	assert_int_equal(f.nstop[0], 1);
	assert_int_equal(f.dev.mem.nregions, 2);
	/* an empty table takes the ring away */
	{
		uint32_t empty[2] = { 0, 0 };

		assert_int_equal(xfer(VHOST_USER_SET_MEM_TABLE, 0, empty,
				      sizeof(empty), NULL, 0), 0);
	}
	assert_int_equal(f.nstop[0], 2);
}

static void test_reply_ack(void **state)
{
	/* REPLY_ACK not negotiated yet: NEED_REPLY is ignored */
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM,
				   VHOST_USER_NEED_REPLY_MASK, 0, 256), 0);
	no_reply();
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES,
				 VHOST_USER_NEED_REPLY_MASK, 1 << 3), 0);
	assert_int_equal(ack(VHOST_USER_SET_PROTOCOL_FEATURES), 0);

	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM,
				   VHOST_USER_NEED_REPLY_MASK, 0, 256), 0);
	assert_int_equal(ack(VHOST_USER_SET_VRING_NUM), 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM,
				   VHOST_USER_NEED_REPLY_MASK, 0, 100), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_VRING_NUM), 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM,
				   VHOST_USER_NEED_REPLY_MASK, 0, 65536), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_VRING_NUM), 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM,
				   VHOST_USER_NEED_REPLY_MASK, 2, 256), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_VRING_NUM), 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_BASE,
				   VHOST_USER_NEED_REPLY_MASK, 0, 0x10000), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_VRING_BASE), 0);
	/* features never offered (LOG_ALL) are refused */
	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES,
				 VHOST_USER_NEED_REPLY_MASK, 1ull << 26), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_FEATURES), 0);
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES,
				 VHOST_USER_NEED_REPLY_MASK, 1ull << 1), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_PROTOCOL_FEATURES), 0);
	/* unknown request: refused, session kept */
	assert_int_equal(xfer(99, VHOST_USER_NEED_REPLY_MASK, NULL, 0, NULL,
			      0), 0);
	assert_int_not_equal(ack(99), 0);
	assert_int_equal(set_u64(VHOST_USER_SET_LOG_BASE,
				 VHOST_USER_NEED_REPLY_MASK, 0), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_LOG_BASE), 0);
	/* reserved bits in a vring fd message */
	assert_int_equal(set_u64(VHOST_USER_SET_VRING_CALL,
				 VHOST_USER_NEED_REPLY_MASK,
				 VHOST_USER_VRING_NOFD_MASK | (1 << 12)), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_VRING_CALL), 0);
	assert_int_equal(set_u64(VHOST_USER_SET_VRING_CALL,
				 VHOST_USER_NEED_REPLY_MASK,
				 VHOST_USER_VRING_NOFD_MASK | 1), 0);
	assert_int_equal(ack(VHOST_USER_SET_VRING_CALL), 0);
	assert_int_equal(f.dev.stats.msg_errors, 9);
	assert_true(f.dev.err_logged);
}

/**
 * expect_proto_err() - the last message must have been refused as malformed
 * @rc:		vu_dev_handle()'s result
 */
static void expect_proto_err(int rc)
{
	assert_int_equal(rc, -EPROTO);
	vu_dev_detach(&f.dev);
}

static void test_malformed(void **state)
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

static void test_stalled_peer(void **state)
{
	struct vhost_user_hdr h = { 2, 1, 8 };
	uint64_t t0;
	int rc;

	/* half a message and then silence: given up on, not hung */
	assert_int_equal(send(f.sock, &h, sizeof(h), 0), sizeof(h));
	t0 = now_ns();
	rc = vu_dev_handle(&f.dev);
	assert_int_equal(rc, -ETIMEDOUT);
	assert_true(now_ns() - t0 < 3000000000ull);
}

static void test_broken(void **state)
{
	assert_int_equal(set_mem_table(0), 0);
	start_ring(0);
	assert_int_equal(f.nstart[0], 1);
	pthread_mutex_lock(&f.dev.q[0].lock);
	vu_dev_mark_broken(&f.dev);
	vu_dev_mark_broken(&f.dev);
	pthread_mutex_unlock(&f.dev.q[0].lock);
	assert_true(f.dev.broken);
	assert_true(vu_dev_handle(&f.dev) < 0);
	vu_dev_detach(&f.dev);
	assert_int_equal(f.nstop[0], 1);
	assert_false(f.dev.broken);
	assert_int_equal(f.dev.fd, -1);
	assert_int_equal(vu_dev_handle(&f.dev), -ENOTCONN);
}

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

static void test_net_mtu(void **state)
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

static void test_net_mtu_not_negotiated(void **state)
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
		pthread_mutex_lock(&q->lock);
		if (q->started) {
			while (virtq_pop(&q->vq, &e) == VIRTQ_POP_OK)
				virtq_push(&q->vq, e.head, 0);
			virtq_flush(&q->vq);
			virtq_notify(&q->vq);
			virtq_enable_notify(&q->vq);
			bursts++;
		}
		pthread_mutex_unlock(&q->lock);
	}
	return (void *)bursts;
}

static void test_concurrent_control(void **state)
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_qemu_sequence, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_enable_gating, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mem_slots, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reply_ack, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stalled_peer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_mtu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_mtu_not_negotiated,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_control, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
