// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_vhost_user.c - libFuzzer harness: arbitrary vhost-user streams
 *
 * The input is a sequence of records, each sent with one sendmsg() on
 * the front end's side of a socketpair:
 *
 *   u8 ctl | u16 len (LE) | len bytes
 *
 * ctl bits 0-1: how many descriptors to attach (0-3); bit 2: attach the
 * guest-memory memfd instead of an eventfd.  The memfd (64 KiB) is
 * refilled with the input itself, so a SET_MEM_TABLE/ADD_MEM_REG the
 * fuzzer builds maps rings with fuzzer-chosen contents; when a queue
 * starts, the port callback pops from it like a worker would.  After the
 * last record the front end shuts its write side, and vu_dev_handle()
 * runs until it reports an error.  Replies are drained and discarded.
 * A stream that shares a log (SET_LOG_BASE with the memfd: seed
 * migration_log) and acks LOG_ALL has every write of the pops marked.
 * FZ_DEBUG=1 in the environment shows the device's log lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "../../src/log.h"
#include "../../src/util.h"
#include "../../src/vhost/vu_dev.h"

#define MEMFD_SIZE	0x10000
#define MAX_INPUT	16384
#define MAX_RECORDS	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfd = -1, evfd = -1;

/**
 * fz_queue_start() - behave like a worker: one burst on the new queue
 * @dev:	device
 * @q:		queue
 */
static void fz_queue_start(struct vu_dev *dev, unsigned int q)
{
	struct vu_queue *vu = &dev->q[q];
	struct virtq_elem e;
	unsigned int n;

	vlock_lock(&vu->lock);
	for (n = 0; vu->started && n < 64; n++) {
		enum virtq_pop_result r = virtq_pop(&vu->vq, &e);

		if (r == VIRTQ_POP_EMPTY)
			break;
		if (r == VIRTQ_POP_BROKEN) {
			vu_dev_mark_broken(dev);
			break;
		}
		if (r == VIRTQ_POP_OK && e.in_num) {
			memset(e.iov[e.out_num].iov_base, 0,
			       e.iov[e.out_num].iov_len);
			/* a stream that set up a log marks what it wrote */
			virtq_log_elem(&vu->vq, &e, e.in_len);
		}
		virtq_push(&vu->vq, e.head, r == VIRTQ_POP_OK ? e.in_len : 0);
	}
	virtq_flush(&vu->vq);
	virtq_notify(&vu->vq);
	virtq_enable_notify(&vu->vq);
	vlock_unlock(&vu->lock);
}

/**
 * fz_queue_stop() - nothing to unregister in the harness
 * @dev:	device
 * @q:		queue
 */
static void fz_queue_stop(struct vu_dev *dev, unsigned int q)
{
}

static const struct vu_dev_ops fz_ops = {
	.queue_start = fz_queue_start,
	.queue_stop = fz_queue_stop,
};

/**
 * fz_send() - send one record with @nfds descriptors
 * @sock:	front end socket (non-blocking)
 * @p:		bytes
 * @len:	length (may be 0: then one zero byte is not sent, only fds
 *		need a byte to travel, so records of length 0 carry none)
 * @nfds:	descriptors to attach
 * @fd:		which descriptor
 *
 * Return: 0, or -1 if the socket is full
 */
static int fz_send(int sock, const uint8_t *p, size_t len, unsigned int nfds,
		   int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int) * 3)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	unsigned int i;

	if (!len)
		return 0;
	if (nfds) {
		struct cmsghdr *c;

		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		for (i = 0; i < nfds; i++)
			memcpy(CMSG_DATA(c) + i * sizeof(int), &fd, sizeof(fd));
	}
	return sendmsg(sock, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/**
 * LLVMFuzzerTestOneInput() - one connection's worth of messages
 * @data:	input
 * @size:	its length
 *
 * Return: 0
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vu_dev dev;
	const uint8_t *p = data, *end = data + size;
	unsigned int nrec = 0, n;
	char drain[4096];
	int sv[2];

	if (size > MAX_INPUT)
		return 0;
	if (memfd < 0) {
		log_set_level(getenv("FZ_DEBUG") ? LOG_LVL_DEBUG : LOG_LVL_ERR);
		memfd = memfd_create("fuzz_guest",
				     MFD_CLOEXEC | MFD_ALLOW_SEALING);
		evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		/* Sealed against shrinking: it can serve as a dirty log. */
		if (memfd < 0 || evfd < 0 || ftruncate(memfd, MEMFD_SIZE) ||
		    fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW))
			__builtin_trap();
	}
	/* Guest memory contents: the input, repeated. */
	for (n = 0; size && n < MEMFD_SIZE; n += (unsigned int)size)
		if (pwrite(memfd, data, MIN(size, MEMFD_SIZE - n), n) < 0)
			break;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	/* VERSION_1, EVENT_IDX, INDIRECT_DESC, MRG_RXBUF, RING_PACKED and
	 * IN_ORDER: a stream that acks RING_PACKED has its rings read as
	 * packed ones.
	 */
	vu_dev_init(&dev, "fuzz", 0x1ull << 32 | 0x3ull << 28 | 1ull << 15 |
		    0x3ull << 34, &fz_ops, NULL);
	vu_dev_attach(&dev, sv[0]);

	while (p + 3 <= end && nrec++ < MAX_RECORDS) {
		uint8_t c = p[0];
		size_t len = (size_t)p[1] | (size_t)p[2] << 8;

		p += 3;
		len = MIN(len, (size_t)(end - p));
		if (fz_send(sv[1], p, len, c & 3, (c & 4) ? memfd : evfd))
			break;
		p += len;
	}
	shutdown(sv[1], SHUT_WR);

	for (n = 0; n < 4 * MAX_RECORDS; n++) {
		int rc = vu_dev_handle(&dev);

		while (recv(sv[1], drain, sizeof(drain), MSG_DONTWAIT) > 0)
			;
		if (rc < 0)
			break;
	}
	vu_dev_fini(&dev);
	close(sv[1]);
	return 0;
}
