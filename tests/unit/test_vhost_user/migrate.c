// SPDX-License-Identifier: GPL-2.0-or-later
/* migrate.c - what a live migration asks of the device
 *
 * QEMU's order on the source: SET_LOG_BASE (a sealed memfd, LOG_SHMFD),
 * SET_FEATURES with VHOST_F_LOG_ALL, then SET_VRING_ADDR with the same
 * addresses and VHOST_VRING_F_LOG, all while the rings run: none of them
 * may stop a ring.  Marks land at guest page / 8, bit page % 8.  Refused
 * logs cost the connection (the request has a reply that cannot say
 * "failed"); SEND_RARP reaches the port's announce op.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "test_vhost_user.h"

#define PF_MQ		(1ull << 0)
#define PF_LOG_SHMFD	(1ull << 1)
#define PF_RARP		(1ull << 2)
#define PF_REPLY_ACK	(1ull << 3)
#define LOG_BYTES	(MEM_SIZE / 4096 / 8)	/* covers the 2 MiB */

/**
 * log_file_unsealed() - a memfd of @size bytes that may still shrink
 * @size:	file length
 *
 * Return: the fd
 */
static int log_file_unsealed(uint64_t size)
{
	int fd = memfd_create("vhost-log", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	return fd;
}

/**
 * log_file() - a memfd of @size bytes, sealed as QEMU makes the log
 * @size:	file length
 *
 * Return: the fd
 */
static int log_file(uint64_t size)
{
	int fd = log_file_unsealed(size);

	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW),
			 0);
	return fd;
}

/**
 * set_log_base() - SET_LOG_BASE with @fd attached
 * @fd:		the log's file
 * @size:	mmap_size
 * @off:	mmap_offset
 *
 * Return: vu_dev_handle()'s result
 */
static int set_log_base(int fd, uint64_t size, uint64_t off)
{
	struct vhost_user_log lg = { .mmap_size = size, .mmap_offset = off };

	return xfer(VHOST_USER_SET_LOG_BASE, 0, &lg, sizeof(lg), &fd, 1);
}

/**
 * set_addr() - SET_VRING_ADDR with the fixture's addresses
 * @q:		ring
 * @flags:	address flags (1 << VHOST_VRING_F_LOG)
 * @log:	log_guest_addr
 *
 * Return: vu_dev_handle()'s result
 */
static int set_addr(unsigned int q, uint32_t flags, uint64_t log)
{
	struct vhost_vring_addr a = {
		.index = q,
		.flags = flags,
		.desc_user_addr = UVA_BASE + DESC_OFF(q),
		.used_user_addr = UVA_BASE + USED_OFF(q),
		.avail_user_addr = UVA_BASE + AVAIL_OFF(q),
		.log_guest_addr = log,
	};

	return xfer(VHOST_USER_SET_VRING_ADDR, 0, &a, sizeof(a), NULL, 0);
}

/**
 * marked() - whether guest page @page is set in a log
 * @bits:	the log as the front end maps it
 * @page:	guest page number
 *
 * Return: true if set
 */
static bool marked(const uint8_t *bits, uint64_t page)
{
	return bits[page / 8] & (1u << (page % 8));
}

/**
 * nmarked() - pages set in a log
 * @bits:	log
 * @len:	its bytes
 *
 * Return: bits set
 */
static unsigned int nmarked(const uint8_t *bits, size_t len)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += (unsigned int)__builtin_popcount(bits[i]);
	return n;
}

/**
 * write_used() - what a worker does after an RX frame: push, flush
 * @q:		ring, started
 * @e:		a chain to mark as written (NULL: none)
 * @len:	bytes written into it
 */
static void write_used(unsigned int q, const struct virtq_elem *e,
		       uint32_t len)
{
	struct vu_queue *vq = &f.dev.q[q];

	vlock_lock(&vq->lock);
	if (e)
		virtq_log_elem(&vq->vq, e, len);
	virtq_push(&vq->vq, 0, len);
	virtq_flush(&vq->vq);
	vlock_unlock(&vq->lock);
}

void test_log_live(void **state)
{
	uint64_t feat = F_PROTO | (1ull << VIRTIO_F_VERSION_1);
	const uint64_t used_page = USED_OFF(0) / 4096;
	const uint64_t buf_page = BUF_OFF / 4096;
	struct virtq_elem e = { .in_num = 1, .in_len = 5000 };
	uint8_t *bits, *bits2;
	int fd, fd2;

	negotiate(PF_MQ | PF_LOG_SHMFD | PF_REPLY_ACK, feat);
	assert_int_equal(set_mem_table(0), 0);
	start_ring(0);
	start_ring(1);
	assert_true(f.dev.q[0].started && f.dev.q[1].started);
	e.iov[0].iov_base = guest_mem_gpa(&f.dev.mem, BUF_OFF + 100, 5000);
	e.iov[0].iov_len = 5000;
	assert_non_null(e.iov[0].iov_base);

	/* the log, then LOG_ALL, then the rings' flag: nothing stops */
	fd = log_file(LOG_BYTES);
	bits = mmap(NULL, LOG_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(bits != MAP_FAILED);
	f.loglen = 0;
	assert_int_equal(set_log_base(fd, LOG_BYTES, 0), 0);
	fe_reply(VHOST_USER_SET_LOG_BASE, NULL, 0);
	assert_null(f.dev.q[0].vq.log);	/* no LOG_ALL yet: no marks */
	write_used(0, &e, 5000);
	assert_int_equal(nmarked(bits, LOG_BYTES), 0);

	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES,
				 VHOST_USER_NEED_REPLY_MASK, feat | F_LOG_ALL),
			 0);
	assert_int_equal(ack(VHOST_USER_SET_FEATURES), 0);
	assert_ptr_equal(f.dev.q[0].vq.log, &f.dev.dlog);
	assert_ptr_equal(f.dev.q[1].vq.log, &f.dev.dlog);
	/* buffers are logged with LOG_ALL, the used ring only with the
	 * ring's flag
	 */
	write_used(0, &e, 5000);
	assert_true(marked(bits, buf_page));
	assert_true(marked(bits, buf_page + 1));
	assert_int_equal(nmarked(bits, LOG_BYTES), 2);
	memset(bits, 0, LOG_BYTES);

	assert_int_equal(set_addr(0, 1u << VHOST_VRING_F_LOG, USED_OFF(0)), 0);
	assert_true(f.dev.q[0].started && f.dev.q[0].vq.log_used);
	assert_int_equal(f.loglen, 0);	/* no ring stopped or started */
	write_used(0, NULL, 0);
	assert_true(marked(bits, used_page));
	assert_int_equal(nmarked(bits, LOG_BYTES), 1);
	/* the used ring is logged where log_guest_addr says (the spec) */
	memset(bits, 0, LOG_BYTES);
	assert_int_equal(set_addr(0, 1u << VHOST_VRING_F_LOG,
				  USED_OFF(0) + 0x3000), 0);
	write_used(0, NULL, 0);
	assert_true(marked(bits, used_page + 3));
	assert_int_equal(nmarked(bits, LOG_BYTES), 1);
	/* past the log's end: not written, counted */
	assert_int_equal(set_addr(0, 1u << VHOST_VRING_F_LOG, MEM_SIZE), 0);
	memset(bits, 0, LOG_BYTES);
	write_used(0, NULL, 0);
	assert_int_equal(nmarked(bits, LOG_BYTES), 0);
	assert_true(f.dev.dlog.missed > 0);
	assert_int_equal(set_addr(0, 1u << VHOST_VRING_F_LOG, USED_OFF(0)), 0);

	/* a new log while logging (QEMU resizing it): at its offset in a
	 * longer file, taken at once, the old one let go
	 */
	fd2 = log_file(8192);
	bits2 = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 0);
	assert_true(bits2 != MAP_FAILED);
	assert_int_equal(set_log_base(fd2, 2 * LOG_BYTES, 4096), 0);
	fe_reply(VHOST_USER_SET_LOG_BASE, NULL, 0);
	memset(bits, 0, LOG_BYTES);
	write_used(0, &e, 5000);
	assert_int_equal(nmarked(bits, LOG_BYTES), 0);
	assert_true(marked(bits2 + 4096, used_page));
	assert_true(marked(bits2 + 4096, buf_page));
	assert_int_equal(nmarked(bits2, 8192), 3);
	assert_int_equal(f.loglen, 0);

	/* logging off (a migration cancelled): no marks, rings run on */
	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES, 0, feat), 0);
	assert_null(f.dev.q[0].vq.log);
	memset(bits2, 0, 8192);
	write_used(0, &e, 5000);
	assert_int_equal(nmarked(bits2, 8192), 0);
	assert_true(f.dev.q[0].started && f.dev.q[1].started);
	assert_int_equal(f.loglen, 0);
	assert_int_equal(f.dev.stats.msg_errors, 0);

	/* and the ring's flag goes the same way */
	assert_int_equal(set_addr(0, 0, 0), 0);
	assert_false(f.dev.q[0].vq.log_used);
	assert_true(f.dev.q[0].started);
	assert_int_equal(f.loglen, 0);
	munmap(bits, LOG_BYTES);
	munmap(bits2, 8192);
	close(fd);
	close(fd2);
}

/**
 * refused() - a SET_LOG_BASE that must cost the connection, then a new one
 * @fd:		log file to send (closed here)
 * @size:	mmap_size
 * @off:	mmap_offset
 * @proto:	protocol features of the session
 */
static void refused(int fd, uint64_t size, uint64_t off, uint64_t proto)
{
	bool mapped;
	int sv[2], rc;

	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES, 0, proto),
			 0);
	assert_int_equal(set_mem_table(0), 0);
	rc = set_log_base(fd, size, off);
	close(fd);
	mapped = f.dev.dlog.bits;
	/* A fresh connection before judging: a failure leaves no fd. */
	vu_dev_detach(&f.dev);
	close(f.sock);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
				    sv), 0);
	vu_dev_attach(&f.dev, sv[0]);
	f.sock = sv[1];
	assert_true(rc < 0);
	assert_false(mapped);
}

void test_log_refused(void **state)
{
	const uint64_t pf = PF_LOG_SHMFD | PF_REPLY_ACK;
	int p[2];

	/* without LOG_SHMFD there is no way to share a log */
	refused(log_file(LOG_BYTES), LOG_BYTES, 0, PF_REPLY_ACK);
	/* too small for guest memory, empty, absurdly large */
	refused(log_file(LOG_BYTES), LOG_BYTES - 1, 0, pf);
	refused(log_file(LOG_BYTES), 0, 0, pf);
	refused(log_file(LOG_BYTES), 1ull << 40, 0, pf);
	/* a file shorter than offset + size, an offset that wraps */
	refused(log_file(LOG_BYTES), LOG_BYTES, 1, pf);
	refused(log_file(LOG_BYTES), LOG_BYTES, UINT64_MAX - 8, pf);
	/* not shared memory at all; a file that may still shrink */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	close(p[1]);
	refused(p[0], LOG_BYTES, 0, pf);
	refused(log_file_unsealed(LOG_BYTES), LOG_BYTES, 0, pf);
	assert_int_equal(f.dev.stats.msg_errors, 8);
}

void test_send_rarp(void **state)
{
	static const uint8_t mac[8] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };
	static const uint8_t group[8] = { 0x01, 0, 0x5e, 0, 0, 1 };
	uint64_t v;

	negotiate(PF_RARP | PF_REPLY_ACK, F_PROTO |
		  (1ull << VIRTIO_F_VERSION_1));
	memcpy(&v, mac, sizeof(v));
	assert_int_equal(set_u64(VHOST_USER_SEND_RARP,
				 VHOST_USER_NEED_REPLY_MASK, v), 0);
	assert_int_equal(ack(VHOST_USER_SEND_RARP), 0);
	assert_int_equal(f.nannounce, 1);
	assert_memory_equal(f.announced, mac, 6);
	/* a group address is nobody's: refused, the session kept */
	memcpy(&v, group, sizeof(v));
	assert_int_equal(set_u64(VHOST_USER_SEND_RARP,
				 VHOST_USER_NEED_REPLY_MASK, v), 0);
	assert_int_not_equal(ack(VHOST_USER_SEND_RARP), 0);
	/* not without the protocol feature */
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES, 0,
				 PF_REPLY_ACK), 0);
	memcpy(&v, mac, sizeof(v));
	assert_int_equal(set_u64(VHOST_USER_SEND_RARP,
				 VHOST_USER_NEED_REPLY_MASK, v), 0);
	assert_int_not_equal(ack(VHOST_USER_SEND_RARP), 0);
	assert_int_equal(f.nannounce, 1);
}
