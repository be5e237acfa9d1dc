// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_evil.c - protocol and ring violations, committed on purpose
 *
 * A back end serving many guests must survive any one of them going
 * rogue: drop that connection, keep forwarding for everybody else.  Each
 * kind here breaks exactly one rule of the vhost-user or virtio spec, on a
 * device that was opened correctly, so a robustness test can check the
 * back end noticed that rule.  Every message or ring write stays inside
 * our own memory and socket; the harm is only to the back end's
 * assumptions.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <linux/vhost_types.h>
#include <linux/virtio_ring.h>

#include "vdrv_priv.h"

#define VDRV_EVIL_BAD_GPA	0xdead00000000ULL

const char *const vdrv_evil_names[VDRV_EVIL_COUNT] = {
	[VDRV_EVIL_GARBAGE] = "garbage",
	[VDRV_EVIL_BAD_SIZE] = "bad-size",
	[VDRV_EVIL_SHORT] = "short",
	[VDRV_EVIL_UNKNOWN] = "unknown",
	[VDRV_EVIL_BAD_VERSION] = "bad-version",
	[VDRV_EVIL_BAD_RING] = "bad-ring",
	[VDRV_EVIL_MEM_BEYOND_FD] = "mem-beyond-fd",
	[VDRV_EVIL_OOB_DESC] = "oob-desc",
	[VDRV_EVIL_OOB_LEN] = "oob-len",
	[VDRV_EVIL_LOOP] = "loop",
	[VDRV_EVIL_LOOP_EMPTY] = "loop-empty",
	[VDRV_EVIL_AVAIL_JUMP] = "avail-jump",
	[VDRV_EVIL_BAD_HEAD] = "bad-head",
	[VDRV_EVIL_INDIRECT_NESTED] = "indirect-nested",
	[VDRV_EVIL_INDIRECT_OOB] = "indirect-oob",
	[VDRV_EVIL_RX_OOB] = "rx-oob",
	[VDRV_EVIL_SHRINK] = "shrink",
	[VDRV_EVIL_LONG_CHAIN] = "long-chain",
	[VDRV_EVIL_HUGE_INDIRECT] = "huge-indirect",
	[VDRV_EVIL_SAME_HEAD] = "same-head",
	[VDRV_EVIL_WRAP_LIE] = "wrap-lie",
	[VDRV_EVIL_INDIRECT_NEXT] = "indirect-next",
	[VDRV_EVIL_INDIRECT_MIXED] = "indirect-mixed",
	[VDRV_EVIL_KICK_PIPE] = "kick-pipe",
	[VDRV_EVIL_CALL_PIPE] = "call-pipe",
	[VDRV_EVIL_ERR_SOCKET] = "err-socket",
	[VDRV_EVIL_ERR_SIGNAL] = "err-signal",
	[VDRV_EVIL_MEM_HUGE] = "mem-huge",
	[VDRV_EVIL_LOG_SHRINK] = "log-shrink",
};

/**
 * vdrv_evil_parse() - kind by name
 * @name:	one of vdrv_evil_names
 * Return: the kind, or -EINVAL
 */
int vdrv_evil_parse(const char *name)
{
	unsigned int i;

	for (i = 0; i < VDRV_EVIL_COUNT; i++)
		if (!strcmp(name, vdrv_evil_names[i]))
			return (int)i;
	return -EINVAL;
}

/**
 * vdrv_evil_send_raw() - write arbitrary bytes on the vhost-user socket
 * @d:		device
 * @buf:	bytes
 * @len:	how many
 * Return: 0 or -errno
 */
int vdrv_evil_send_raw(struct vdrv_dev *d, const void *buf, size_t len)
{
	struct vdrv_conn *c = &d->conn;
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = send(c->sock, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * vdrv_evil_msg() - send a header with any size field and a payload
 * @d:		device
 * @req:	request code
 * @flags:	full flags word (version included)
 * @size:	size field, need not match @plen
 * @payload:	bytes after the header
 * @plen:	their length
 * Return: 0 or -errno
 */
static int vdrv_evil_msg(struct vdrv_dev *d, uint32_t req, uint32_t flags,
			 uint32_t size, const void *payload, size_t plen)
{
	uint8_t buf[VDRV_MSG_HDR_SIZE + 64];
	uint32_t hdr[3] = { req, flags, size };

	if (plen > sizeof(buf) - sizeof(hdr))
		return -EINVAL;
	memcpy(buf, hdr, sizeof(hdr));
	if (plen)
		memcpy(buf + sizeof(hdr), payload, plen);
	return vdrv_evil_send_raw(d, buf, sizeof(hdr) + plen);
}

/**
 * vdrv_evil_tx_head() - a free TX head with a plausible frame in its slot
 * @d:		device
 * @head:	out: the head, now ours to abuse
 * Return: 0, or -ENOBUFS
 */
static int vdrv_evil_tx_head(struct vdrv_dev *d, uint16_t *head)
{
	static const uint8_t frame[60] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x02, 0xee, 0xee, 0xee, 0xee, 0x01, 0x88, 0xb5,
	};

	vdrv_tx_reclaim(d);
	if (!d->ntx_free)
		return -ENOBUFS;
	*head = d->tx_free[--d->ntx_free];
	memset(d->tx_hva[*head], 0, d->hdr_len);
	memcpy(d->tx_hva[*head] + d->hdr_len, frame, sizeof(frame));
	return 0;
}

/**
 * vdrv_evil_post() - make @head available on TX and kick unconditionally
 * @d:		device
 * @head:	head whose descriptors were already (mis)written
 */
static void vdrv_evil_post(struct vdrv_dev *d, uint16_t head)
{
	struct vdrv_ring *r = &d->rings[VDRV_TX_RING];

	vdrv_ring_add(r, head);
	vdrv_ring_publish(r);
	vdrv_ring_kick(r);
}

/**
 * vdrv_evil_ring() - the ring violations
 * @d:		device
 * @kind:	which
 * Return: 0 or -errno
 */
static int vdrv_evil_ring(struct vdrv_dev *d, enum vdrv_evil kind)
{
	struct vdrv_ring *tx = &d->rings[VDRV_TX_RING];
	struct vdrv_ring *rx = &d->rings[VDRV_RX_RING];
	struct vdrv_region *r1 = &d->mem.r[d->mem.nregions - 1];
	struct vring_desc *desc = tx->desc, *t;
	uint16_t h, h2;
	uint64_t gpa;
	unsigned int i;
	int ret;

	if (kind == VDRV_EVIL_RX_OOB) {
		/* Posted RX buffers now point nowhere; the next delivery to
		 * us must be refused, not written to a wild address.  A
		 * packed ring holds its own copy of each descriptor.
		 */
		for (i = 0; i < rx->num; i++) {
			rx->desc[i].addr = VDRV_EVIL_BAD_GPA + i * 4096ULL;
			if (rx->packed)
				VDRV_WRITE_ONCE(rx->pring[i].addr,
						VDRV_EVIL_BAD_GPA +
						i * 4096ULL);
		}
		return 0;
	}
	/* Split rules with no packed counterpart (no avail index, no head
	 * index to get wrong, a nested table is ignored by the device),
	 * and packed rules with no split one.
	 */
	if (tx->packed && (kind == VDRV_EVIL_AVAIL_JUMP ||
			   kind == VDRV_EVIL_BAD_HEAD ||
			   kind == VDRV_EVIL_INDIRECT_NESTED))
		return -ENOTSUP;
	if (!tx->packed && (kind == VDRV_EVIL_WRAP_LIE ||
			    kind == VDRV_EVIL_INDIRECT_MIXED))
		return -ENOTSUP;
	if (kind == VDRV_EVIL_SHRINK) {
		/* The file behind the last region loses every page: the
		 * back end's mapping of it now raises SIGBUS wherever it is
		 * touched.  Half the TX and RX buffers live there; one TX
		 * frame pointing into it is made available without us
		 * writing it (our own mapping is poisoned as well).
		 */
		if (ftruncate(r1->fd, 0) < 0)
			return -errno;
		if (!d->ntx_free)
			return -ENOBUFS;
		h = d->tx_free[--d->ntx_free];
		desc[h].addr = r1->gpa + 4096;
		desc[h].len = 128;
		desc[h].flags = 0;
		desc[h].next = 0;
		vdrv_evil_post(d, h);
		return 0;
	}
	if (kind == VDRV_EVIL_AVAIL_JUMP) {
		/* More buffers "available" than the ring has entries. */
		vdrv_wmb();
		VDRV_WRITE_ONCE(tx->avail->idx,
				(uint16_t)(tx->avail_idx + tx->num + 7));
		vdrv_ring_kick(tx);
		return 0;
	}
	if (kind == VDRV_EVIL_BAD_HEAD) {
		tx->avail->ring[tx->avail_idx & (tx->num - 1)] =
			(uint16_t)(tx->num + 3);
		tx->avail_idx++;
		vdrv_wmb();
		VDRV_WRITE_ONCE(tx->avail->idx, tx->avail_idx);
		vdrv_ring_kick(tx);
		return 0;
	}

	ret = vdrv_evil_tx_head(d, &h);
	if (ret)
		return ret;
	desc[h].flags = 0;
	desc[h].next = 0;
	switch (kind) {
	case VDRV_EVIL_OOB_DESC:
		desc[h].addr = VDRV_EVIL_BAD_GPA;
		desc[h].len = 128;
		break;
	case VDRV_EVIL_OOB_LEN:
		/* Starts 16 bytes before the end of the last region. */
		desc[h].addr = r1->gpa + r1->size - 16;
		desc[h].len = 4096;
		break;
	case VDRV_EVIL_LOOP:
	case VDRV_EVIL_LOOP_EMPTY:
		ret = vdrv_evil_tx_head(d, &h2);
		if (ret)
			return ret;
		/* With lengths, a back end without a loop check still stops
		 * once the chain passes 4 GiB; without, it never would.
		 */
		desc[h].addr = d->tx_gpa[h];
		desc[h].len = kind == VDRV_EVIL_LOOP ? (uint32_t)d->hdr_len : 0;
		desc[h].flags = VRING_DESC_F_NEXT;
		desc[h].next = h2;
		desc[h2].addr = d->tx_gpa[h2];
		desc[h2].len = kind == VDRV_EVIL_LOOP ? 64 : 0;
		desc[h2].flags = VRING_DESC_F_NEXT;
		desc[h2].next = h;
		break;
	case VDRV_EVIL_INDIRECT_NESTED:
		t = vdrv_mem_alloc(&d->mem, 0, 2 * sizeof(*t), 16, &gpa);
		if (!t)
			return -ENOMEM;
		/* The spec forbids INDIRECT inside an indirect table. */
		t[0].addr = gpa;
		t[0].len = 2 * sizeof(*t);
		t[0].flags = VRING_DESC_F_INDIRECT;
		desc[h].addr = gpa;
		desc[h].len = 2 * sizeof(*t);
		desc[h].flags = VRING_DESC_F_INDIRECT;
		break;
	case VDRV_EVIL_INDIRECT_OOB:
		desc[h].addr = VDRV_EVIL_BAD_GPA;
		desc[h].len = 2 * sizeof(*t);
		desc[h].flags = VRING_DESC_F_INDIRECT;
		break;
	case VDRV_EVIL_WRAP_LIE:
	case VDRV_EVIL_INDIRECT_NEXT:
	case VDRV_EVIL_INDIRECT_MIXED:
		ret = vdrv_evil_tx_head(d, &h2);
		if (ret)
			return ret;
		/* A valid one-entry table: the frame, in packed format if
		 * the ring is.
		 */
		t = vdrv_mem_alloc(&d->mem, 0, sizeof(*t), 16, &gpa);
		if (!t)
			return -ENOMEM;
		t[0].addr = d->tx_gpa[h];
		t[0].len = (uint32_t)d->hdr_len + 60;
		t[0].flags = 0;
		t[0].next = 0;
		if (tx->packed)
			vdrv_ring_packed_table(t, 1);
		desc[h].addr = d->tx_gpa[h];
		desc[h].len = (uint32_t)d->hdr_len;
		desc[h].flags = VRING_DESC_F_NEXT;
		desc[h].next = h2;
		desc[h2].addr = d->tx_gpa[h] + d->hdr_len;
		desc[h2].len = 60;
		desc[h2].flags = 0;
		desc[h2].next = 0;
		if (kind == VDRV_EVIL_INDIRECT_NEXT) {
			desc[h].addr = gpa;
			desc[h].len = sizeof(*t);
			desc[h].flags |= VRING_DESC_F_INDIRECT;
		} else if (kind == VDRV_EVIL_INDIRECT_MIXED) {
			desc[h2].addr = gpa;
			desc[h2].len = sizeof(*t);
			desc[h2].flags = VRING_DESC_F_INDIRECT;
		}
		if (kind == VDRV_EVIL_WRAP_LIE) {
			/* Written as it should be, then the second one
			 * turned back a lap before the batch is published.
			 */
			vdrv_ring_add(tx, h);
			i = tx->p_next ? tx->p_next - 1u : tx->num - 1u;
			tx->pring[i].flags ^= 1u << VRING_PACKED_DESC_F_AVAIL |
					      1u << VRING_PACKED_DESC_F_USED;
			vdrv_ring_publish(tx);
			vdrv_ring_kick(tx);
			return 0;
		}
		break;
	case VDRV_EVIL_MEM_BEYOND_FD:
		/* Inside the region as announced, beyond its memfd. */
		desc[h].addr = r1->gpa + r1->size + 8192;
		desc[h].len = 128;
		break;
	default:
		return -EINVAL;
	}
	vdrv_evil_post(d, h);
	return 0;
}

/**
 * vdrv_evil_mem_beyond_fd() - announce region 1 larger than its memfd
 * @d:	device
 * Return: 0 or -errno (a NACK is fine: the descriptor that follows is
 * then outside the memory table altogether)
 */
static int vdrv_evil_mem_beyond_fd(struct vdrv_dev *d)
{
	struct vdrv_msg_mem mt;
	int fds[VDRV_MEM_REGIONS];
	unsigned int i;
	int ret;

	memset(&mt, 0, sizeof(mt));
	mt.nregions = d->mem.nregions;
	for (i = 0; i < d->mem.nregions; i++) {
		mt.regions[i].guest_phys_addr = d->mem.r[i].gpa;
		mt.regions[i].memory_size = d->mem.r[i].size;
		mt.regions[i].userspace_addr = (uintptr_t)d->mem.r[i].hva;
		fds[i] = d->mem.r[i].fd;
	}
	/* A back end that maps this without checking the fd's size takes
	 * SIGBUS on the first access past the end.
	 */
	mt.regions[mt.nregions - 1].memory_size += 1ULL << 30;
	ret = vdrv_proto_set(&d->conn, VDRV_REQ_SET_MEM_TABLE, &mt,
			     8 + mt.nregions * sizeof(mt.regions[0]), fds,
			     d->mem.nregions);
	if (ret && ret != -EREMOTEIO)
		return ret;
	return vdrv_evil_ring(d, VDRV_EVIL_MEM_BEYOND_FD);
}

/**
 * vdrv_evil_chains() - the chain kinds, sized to the TX ring (256:
 *			255 descriptors in one chain, the ring's longest)
 * @d:		device
 * @kind:	LONG_CHAIN, HUGE_INDIRECT or SAME_HEAD
 * Return: 0 or -errno
 */
static int vdrv_evil_chains(struct vdrv_dev *d, enum vdrv_evil kind)
{
	unsigned int q = d->rings[VDRV_TX_RING].num;
	int ret;

	if (kind == VDRV_EVIL_LONG_CHAIN)
		ret = vdrv_evil_chain(d, NULL, 0, q - 1, 0, 1);
	else if (kind == VDRV_EVIL_HUGE_INDIRECT)
		ret = vdrv_evil_chain(d, NULL, 0, 0, VDRV_EVIL_IND_MAX, 1);
	else
		ret = vdrv_evil_chain(d, NULL, 0, q - 2, VDRV_EVIL_IND_MAX, q);
	return ret < 0 ? ret : 0;
}

/**
 * vdrv_evil_mem_huge() - our regions plus a sparse 2 TiB one
 * @d:		device
 *
 * The memfd takes no memory (nothing is ever written to it), only the
 * back end's address space if it maps it: a few of these per port would
 * leave other ports none.
 *
 * Return: 0 if the back end refused the table (NACK), -EPROTO if it took
 *	   it, -errno
 */
static int vdrv_evil_mem_huge(struct vdrv_dev *d)
{
	struct vdrv_msg_mem mt;
	int fds[VDRV_MEM_REGIONS + 1];
	const struct vdrv_region *last;
	unsigned int i;
	int ret, fd;

	fd = memfd_create("vdrv-huge", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)(2ULL << 40))) {
		ret = -errno;
		close(fd);
		return ret;
	}
	memset(&mt, 0, sizeof(mt));
	for (i = 0; i < d->mem.nregions; i++) {
		mt.regions[i].guest_phys_addr = d->mem.r[i].gpa;
		mt.regions[i].memory_size = d->mem.r[i].size;
		mt.regions[i].userspace_addr = (uintptr_t)d->mem.r[i].hva;
		fds[i] = d->mem.r[i].fd;
	}
	/* Above every region, in guest and in "QEMU" addresses alike. */
	last = &d->mem.r[d->mem.nregions - 1];
	mt.regions[i].guest_phys_addr = last->gpa + last->size + (1ULL << 30);
	mt.regions[i].memory_size = 2ULL << 40;
	mt.regions[i].userspace_addr = (uintptr_t)last->hva + last->size +
				       (1ULL << 30);
	fds[i] = fd;
	mt.nregions = d->mem.nregions + 1;
	ret = vdrv_proto_set(&d->conn, VDRV_REQ_SET_MEM_TABLE, &mt,
			     8 + mt.nregions * sizeof(mt.regions[0]), fds,
			     mt.nregions);
	close(fd);
	if (ret == -EREMOTEIO)
		return 0;
	return ret ? ret : -EPROTO;
}

/**
 * vdrv_evil_not_efd() - KICK/CALL/ERR with something other than an eventfd
 * @d:		device
 * @req:	VDRV_REQ_SET_VRING_KICK, _CALL or _ERR
 * @ring:	ring index
 * @sock:	a socket pair instead of a pipe
 *
 * Return: 0 if the back end refused it (NACK, or hung up), -EPROTO if it
 *	   took it, -errno
 */
static int vdrv_evil_not_efd(struct vdrv_dev *d, uint32_t req,
			     unsigned int ring, bool sock)
{
	int fds[2], ret;

	if (sock ? socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) :
		   pipe2(fds, O_CLOEXEC))
		return -errno;
	/* The pipe's read end (what a kick fd is read from); its write
	 * end for a call fd (what is written): both would block.
	 */
	ret = vdrv_proto_set_fd(&d->conn, req, ring,
				req == VDRV_REQ_SET_VRING_KICK ? fds[0] : fds[1]);
	close(fds[0]);
	close(fds[1]);
	if (ret == -EREMOTEIO)
		return 0;
	return ret ? ret : -EPROTO;
}

/**
 * vdrv_evil_err_signal() - error eventfds on, then a ring violation
 * @d:		device
 * Return: 0 or -errno
 */
static int vdrv_evil_err_signal(struct vdrv_dev *d)
{
	unsigned int i;
	int ret;

	for (i = 0; i < VDRV_NRINGS; i++) {
		ret = vdrv_proto_set_fd(&d->conn, VDRV_REQ_SET_VRING_ERR, i,
					d->rings[i].err_fd);
		if (ret)
			return ret;
	}
	return vdrv_evil_ring(d, VDRV_EVIL_OOB_DESC);
}

/**
 * vdrv_err_count() - what the back end signalled on our error eventfds
 * @d:		device (after a hang-up too)
 * @timeout_ms:	how long to wait for a first signal
 *
 * The back end may see to its error fds after the hang-up we noticed.
 *
 * Return: the sum of both counters, read (and so cleared)
 */
uint64_t vdrv_err_count(struct vdrv_dev *d, int timeout_ms)
{
	struct pollfd pfd[VDRV_NRINGS];
	uint64_t v, sum = 0;
	unsigned int i;

	for (i = 0; i < VDRV_NRINGS; i++) {
		pfd[i].fd = d->rings[i].err_fd;
		pfd[i].events = POLLIN;
	}
	if (poll(pfd, VDRV_NRINGS, timeout_ms) <= 0)
		return 0;
	for (i = 0; i < VDRV_NRINGS; i++)
		if (d->rings[i].err_fd >= 0 &&
		    read(d->rings[i].err_fd, &v, sizeof(v)) == sizeof(v))
			sum += v;
	return sum;
}

/**
 * vdrv_evil_block_calls() - make the back end's interrupts block
 * @d:		device, open
 *
 * The call eventfds' file status flags are shared with the back end: we
 * clear O_NONBLOCK (which the back end may have set), fill the counters
 * to their maximum, and ask for a call on both rings.  A back end that
 * writes one of them now sleeps until somebody reads it; nobody will.
 *
 * Return: 0 or -errno
 */
int vdrv_evil_block_calls(struct vdrv_dev *d)
{
	uint64_t v, full = 0xfffffffffffffffeULL;
	unsigned int i;

	for (i = 0; i < VDRV_NRINGS; i++) {
		int fd = d->rings[i].call_fd;
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0)
			return -errno;
		/* Empty it first (still non-blocking), then fill it. */
		if (read(fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			return -errno;
		if (write(fd, &full, sizeof(full)) != sizeof(full))
			return -errno;
		if (fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
			return -errno;
		vdrv_ring_enable_cb(&d->rings[i]);
	}
	return 0;
}

/**
 * vdrv_evil_steal_kicks() - make our TX kick eventfd blocking
 * @d:		device, open
 *
 * Together with vdrv_evil_drain_kicks() after each kick: a back end that
 * reads its kick fd when epoll said "readable" finds it empty and sleeps.
 *
 * Return: 0 or -errno
 */
int vdrv_evil_steal_kicks(struct vdrv_dev *d)
{
	int fd = d->rings[VDRV_TX_RING].kick_fd;
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/**
 * vdrv_evil_drain_kicks() - read our own TX kick eventfd, never blocking
 * @d:		device
 *
 * RWF_NOWAIT: the fd itself is blocking now (vdrv_evil_steal_kicks()).
 *
 * Return: 1 if a kick was taken back, else 0
 */
unsigned int vdrv_evil_drain_kicks(struct vdrv_dev *d)
{
	uint64_t v;
	struct iovec iov = { .iov_base = &v, .iov_len = sizeof(v) };

	return preadv2(d->rings[VDRV_TX_RING].kick_fd, &iov, 1, -1,
		       RWF_NOWAIT) == sizeof(v);
}

/**
 * vdrv_evil() - commit one violation on an open device
 * @d:		device; after this only vdrv_wait_hangup() and vdrv_abort()
 *		make sense
 * @kind:	which violation
 *
 * Return: 0 once committed (or if the back end already hung up), -errno
 */
int vdrv_evil(struct vdrv_dev *d, enum vdrv_evil kind)
{
	struct vhost_vring_state s = { .index = 200, .num = 256 };
	uint8_t junk[64];
	unsigned int i;
	int ret;

	switch (kind) {
	case VDRV_EVIL_GARBAGE:
		for (i = 0; i < sizeof(junk); i++)
			junk[i] = (uint8_t)(0xa5 ^ (i * 37));
		ret = vdrv_evil_send_raw(d, junk, sizeof(junk));
		break;
	case VDRV_EVIL_BAD_SIZE:
		ret = vdrv_evil_msg(d, VDRV_REQ_SET_VRING_NUM, VDRV_MSG_VERSION,
				    256u << 20, &s, sizeof(s));
		break;
	case VDRV_EVIL_SHORT:
		ret = vdrv_evil_msg(d, VDRV_REQ_SET_VRING_ADDR,
				    VDRV_MSG_VERSION, 4, &s, 4);
		break;
	case VDRV_EVIL_UNKNOWN:
		ret = vdrv_evil_msg(d, 9999, VDRV_MSG_VERSION |
				    VDRV_MSG_NEED_REPLY, 0, NULL, 0);
		break;
	case VDRV_EVIL_BAD_VERSION:
		ret = vdrv_evil_msg(d, VDRV_REQ_SET_OWNER, 0, 0, NULL, 0);
		break;
	case VDRV_EVIL_BAD_RING:
		ret = vdrv_evil_msg(d, VDRV_REQ_SET_VRING_NUM,
				    VDRV_MSG_VERSION | VDRV_MSG_NEED_REPLY,
				    sizeof(s), &s, sizeof(s));
		break;
	case VDRV_EVIL_MEM_BEYOND_FD:
		ret = vdrv_evil_mem_beyond_fd(d);
		break;
	case VDRV_EVIL_OOB_DESC:
	case VDRV_EVIL_OOB_LEN:
	case VDRV_EVIL_LOOP:
	case VDRV_EVIL_LOOP_EMPTY:
	case VDRV_EVIL_AVAIL_JUMP:
	case VDRV_EVIL_BAD_HEAD:
	case VDRV_EVIL_INDIRECT_NESTED:
	case VDRV_EVIL_INDIRECT_OOB:
	case VDRV_EVIL_RX_OOB:
	case VDRV_EVIL_SHRINK:
	case VDRV_EVIL_WRAP_LIE:
	case VDRV_EVIL_INDIRECT_NEXT:
	case VDRV_EVIL_INDIRECT_MIXED:
		ret = vdrv_evil_ring(d, kind);
		break;
	case VDRV_EVIL_LONG_CHAIN:
	case VDRV_EVIL_HUGE_INDIRECT:
	case VDRV_EVIL_SAME_HEAD:
		ret = vdrv_evil_chains(d, kind);
		break;
	case VDRV_EVIL_KICK_PIPE:
		ret = vdrv_evil_not_efd(d, VDRV_REQ_SET_VRING_KICK,
					VDRV_TX_RING, false);
		break;
	case VDRV_EVIL_CALL_PIPE:
		ret = vdrv_evil_not_efd(d, VDRV_REQ_SET_VRING_CALL,
					VDRV_RX_RING, false);
		break;
	case VDRV_EVIL_ERR_SOCKET:
		ret = vdrv_evil_not_efd(d, VDRV_REQ_SET_VRING_ERR,
					VDRV_TX_RING, true);
		break;
	case VDRV_EVIL_ERR_SIGNAL:
		ret = vdrv_evil_err_signal(d);
		break;
	case VDRV_EVIL_MEM_HUGE:
		ret = vdrv_evil_mem_huge(d);
		break;
	case VDRV_EVIL_LOG_SHRINK:
		ret = vdrv_log_evil_shrink(d);
		break;
	default:
		return -EINVAL;
	}
	if (ret && d->conn.hung_up)
		return 0;
	if (ret == -EPIPE || ret == -ECONNRESET)
		return 0;
	return ret;
}
