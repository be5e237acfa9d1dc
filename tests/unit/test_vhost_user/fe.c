// SPDX-License-Identifier: GPL-2.0-or-later
/* fe.c - test_vhost_user's fixture and front end (the test plays QEMU)
 *
 * A vu_dev on one end of a socketpair, guest memory in a memfd, port
 * callbacks that record queue starts and stops; and the front end's
 * side: messages with descriptors, replies, QEMU 7.2's opening and
 * per-ring sequences.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "test_vhost_user.h"

struct fixture f;

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
 * hold it for a burst: retry for up to two seconds, and fail only if it
 * stays taken (which is what calling us with the lock held would look
 * like).  Time, not a count of tries, bounds it: test_concurrent_control's
 * worker takes the lock again a few instructions after it lets it go, and
 * a yield between tries missed that window 100000 times in a row in 3 of
 * 8 runs here.  So watch the lock word and try the moment it reads free,
 * as vlock_lock() does.
 */
static int lock_soon(struct vlock *l)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		unsigned int i;

		for (i = 0; i < 4096; i++) {
			if (!__atomic_load_n(&l->held, __ATOMIC_RELAXED) &&
			    vlock_trylock(l))
				return 0;
			__builtin_ia32_pause();
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000000000L +
		    (t.tv_nsec - t0.tv_nsec) > 2000000000L)
			return EBUSY;
		sched_yield();
	}
}

static void on_start(struct vu_dev *dev, unsigned int q)
{
	assert_ptr_equal(dev, &f.dev);
	/* called without the lock, after started was set under it */
	assert_int_equal(lock_soon(&dev->q[q].lock), 0);
	assert_true(dev->q[q].started);
	vlock_unlock(&dev->q[q].lock);
	f.nstart[q]++;
	ev('S', q);
}

static void on_stop(struct vu_dev *dev, unsigned int q)
{
	assert_int_equal(lock_soon(&dev->q[q].lock), 0);
	assert_false(dev->q[q].started);
	/* the kick fd is still open: the port may unregister it */
	vlock_unlock(&dev->q[q].lock);
	f.nstop[q]++;
	ev('s', q);
}

static void on_announce(struct vu_dev *dev, const uint8_t mac[6])
{
	assert_ptr_equal(dev, &f.dev);
	memcpy(f.announced, mac, sizeof(f.announced));
	f.nannounce++;
}

static const struct vu_dev_ops ops = {
	.queue_start = on_start,
	.queue_stop = on_stop,
	.announce = on_announce,
};

int setup(void **state)
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

int teardown(void **state)
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
void fe_send(uint32_t req, uint32_t flags, const void *p,
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
int xfer(uint32_t req, uint32_t flags, const void *p, uint32_t size,
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
void fe_reply(uint32_t req, void *p, uint32_t size)
{
	struct vhost_user_hdr h;

	assert_int_equal(recv(f.sock, &h, sizeof(h), MSG_DONTWAIT),
			 sizeof(h));
	assert_int_equal(h.request, req);
	assert_int_equal(h.flags, 0x5);
	assert_int_equal(h.size, size);
	if (size)	/* an empty reply has nothing to read */
		assert_int_equal(recv(f.sock, p, size, MSG_DONTWAIT),
				 (ssize_t)size);
}

/**
 * no_reply() - the device sent nothing back
 */
void no_reply(void)
{
	char c;

	assert_int_equal(recv(f.sock, &c, 1, MSG_DONTWAIT), -1);
	assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
}

uint64_t get_u64(uint32_t req)
{
	uint64_t v;

	assert_int_equal(xfer(req, 0, NULL, 0, NULL, 0), 0);
	fe_reply(req, &v, sizeof(v));
	return v;
}

int set_u64(uint32_t req, uint32_t flags, uint64_t v)
{
	return xfer(req, flags, &v, sizeof(v), NULL, 0);
}

uint64_t ack(uint32_t req)
{
	uint64_t v;

	fe_reply(req, &v, sizeof(v));
	return v;
}

int set_state(uint32_t req, uint32_t flags, unsigned int idx,
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
int set_vring_fd(uint32_t req, unsigned int q)
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
int set_mem_table(uint32_t flags)
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
void negotiate(uint64_t proto, uint64_t features)
{
	unsigned int q;

	assert_int_equal(get_u64(VHOST_USER_GET_FEATURES),
			 OFFERED | F_PROTO | F_LOG_ALL);
	assert_int_equal(get_u64(VHOST_USER_GET_PROTOCOL_FEATURES),
			 (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | (1 << 4) |
			 (1 << 15));
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES, 0, proto),
			 0);
	assert_int_equal(get_u64(VHOST_USER_GET_QUEUE_NUM), 1);
	assert_int_equal(xfer(VHOST_USER_SET_OWNER, 0, NULL, 0, NULL, 0), 0);
	assert_int_equal(get_u64(VHOST_USER_GET_FEATURES),
			 OFFERED | F_PROTO | F_LOG_ALL);
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
void start_ring(unsigned int q)
{
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM, 0, q, RING_NUM),
			 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_BASE, 0, q, 0), 0);
	assert_int_equal(set_vring_addr(q), 0);
	assert_false(f.dev.q[q].started);	/* no kick fd yet */
	assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_KICK, q), 0);
	assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_CALL, q), 0);
}
