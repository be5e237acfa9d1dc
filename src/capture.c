// SPDX-License-Identifier: GPL-2.0-or-later
/* capture.c - capture sessions: their rings, the switch's copy, the drain
 *
 * DOC: Theory of Operation
 *
 * A session belongs to one port and one control client (ctl_capture.c).
 * Frames reach it from every thread that forwards: the workers polling
 * the port's queues (RX) and those polling whatever sends to it (TX),
 * and the control thread (switch_inject()).  Each of those threads has a
 * stats slot (stats.h); the session has a ring per slot, so each ring has
 * one producer and one consumer (the control thread) and neither ever
 * waits for the other: the producer reserves an entry, copies the frame's
 * first snaplen bytes into it, runs the filter on the copy, and publishes
 * the entry only if the filter took it (a release store of @head, paired
 * with the acquire load in capture_next()); the consumer frees entries
 * with a release store of @tail, paired with the producer's acquire load
 * before it reuses the space.  An entry that does not fit is a drop,
 * counted in the producer's ring: the datapath never waits for a reader.
 *
 * The filter is classic BPF, compiled by vhostctl with libpcap from a
 * tcpdump expression, checked here with libpcap's bpf_validate() (jumps
 * forward and in range, scratch indexes in range, ends in a return) and
 * run with libpcap's bpf_filter(), which bounds every load by the bytes
 * given: a hostile program can refuse or take frames, nothing else.  It
 * sees the bytes kept (snaplen), as tcpdump -s does.
 *
 * Starting: the rings are allocated and the session published before its
 * bits in capture_on[] are set with release semantics, so a thread that
 * sees the bit sees the rings (capture_burst()'s acquire load).
 * Stopping: the bits are cleared; a thread that read them just before
 * may still be copying, which is why capture_close() is only called once
 * the workers have quiesced (ctl_capture.c, worker_quiesce()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "capture.h"
#include "net/iov.h"
#include "util.h"

uint8_t capture_on[PORT_IDX_MAX];

/**
 * struct capture_ring - one thread's frames for one session
 * @buf:	@mask + 1 bytes (a power of two), mmap()ed
 * @mask:	size - 1
 * @head:	bytes ever published; written by the producer only (release)
 * @seen:	producer: frames offered
 * @filtered:	producer: frames the filter refused
 * @dropped:	producer: frames taken with no room
 * @tail:	bytes ever freed; written by the consumer only (release)
 */
struct capture_ring {
	uint8_t *buf;
	uint64_t mask;
	uint64_t head __cacheline_aligned;
	uint64_t seen;
	uint64_t filtered;
	uint64_t dropped;
	uint64_t tail __cacheline_aligned;
};

/**
 * struct capture_sess - one capture
 * @used:	the slot is taken (control thread)
 * @gone:	stopped because its port went (control thread)
 * @port:	the port's index
 * @dirs:	CAPTURE_RX | CAPTURE_TX
 * @snaplen:	bytes kept of each frame
 * @nslots:	rings in @ring (stats slots 0 .. @nslots - 1)
 * @prog:	the filter, @prog_len instructions (NULL: take all)
 * @prog_len:	instructions in @prog
 * @ring:	one per stats slot
 */
struct capture_sess {
	bool used;
	bool gone;
	unsigned int port;
	unsigned int dirs;
	uint32_t snaplen;
	unsigned int nslots;
	struct bpf_insn *prog;
	unsigned int prog_len;
	struct capture_ring ring[STATS_SLOTS];
};

static struct capture_sess capture_sess[CAPTURE_SESSIONS];

_Static_assert(CAPTURE_SESSIONS * 2 <= 8, "capture_on[] is 8 bits");

#define CAPTURE_ALIGN(x)	(((x) + 7U) & ~(uint64_t)7U)

/* A ring's counter, written by its one producer, read by ctl (relaxed). */
static inline void capture_inc(uint64_t *c)
{
	__atomic_store_n(c, *c + 1, __ATOMIC_RELAXED);
}

/**
 * capture_ts_ns() - the frame's timestamp
 * Return: CLOCK_REALTIME, ns (a vDSO read: only while capturing)
 */
static uint64_t capture_ts_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/**
 * capture_one() - copy one frame into this thread's ring of @s
 * @s:		the session
 * @r:		this thread's ring
 * @dir:	CAPTURE_RX or CAPTURE_TX
 * @pkt:	the frame
 * @ts:		its timestamp
 *
 * Context: the ring's one producer
 */
static void capture_one(struct capture_sess *s, struct capture_ring *r,
			unsigned int dir, const struct pkt *pkt, uint64_t ts)
{
	const uint64_t size = r->mask + 1;
	uint32_t caplen = MIN(pkt->len, s->snaplen);
	uint64_t need = CAPTURE_ALIGN(sizeof(struct capture_rec) + caplen);
	uint64_t head = r->head, off = head & r->mask, pad = 0, tail;
	struct capture_rec *rec;
	uint8_t *data;

	capture_inc(&r->seen);
	if (off + need > size)
		pad = size - off;	/* the entry starts at the ring's start */
	/* Pairs with the release store in capture_take(): the space the
	 * consumer freed is no longer read.
	 */
	tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	if (head + pad + need - tail > size) {
		capture_inc(&r->dropped);
		return;
	}
	rec = (struct capture_rec *)(void *)(r->buf + ((head + pad) & r->mask));
	data = (uint8_t *)(rec + 1);
	caplen = (uint32_t)iov_to_buf(pkt->iov, pkt->iovcnt, 0, data, caplen);
	if (s->prog && !bpf_filter(s->prog, data, pkt->len, caplen)) {
		capture_inc(&r->filtered);
		return;
	}
	if (pad) {
		struct capture_rec *p = (void *)(r->buf + off);

		/* Entries and the ring are 8-aligned: @size and @dir fit. */
		p->size = (uint32_t)pad;
		p->dir = 0;
	}
	rec->size = (uint32_t)CAPTURE_ALIGN(sizeof(*rec) + caplen);
	rec->dir = dir;
	rec->ts_ns = ts;
	rec->caplen = caplen;
	rec->len = pkt->len;
	rec->vnet = pkt->vnet;
	rec->vnet.num_buffers = 0;
	/* Pairs with the acquire load in capture_next(). */
	__atomic_store_n(&r->head, head + pad + rec->size, __ATOMIC_RELEASE);
}

/**
 * capture_copy() - capture_burst()'s slow path: the port has captures
 * @port:	port index
 * @on:		its capture_on[] bits for this direction, non-zero
 * @pkts:	frames
 * @n:		how many
 *
 * Context: a thread that forwards, its stats slot its ring
 */
void capture_copy(unsigned int port, unsigned int on,
		  struct pkt *const *pkts, unsigned int n)
{
	uint64_t ts = capture_ts_ns();
	unsigned int id, i;

	for (id = 0; id < CAPTURE_SESSIONS; id++) {
		struct capture_sess *s = &capture_sess[id];
		unsigned int bits = (on >> (2 * id)) & 3U;
		struct capture_ring *r;

		if (!bits || stats_slot >= s->nslots)
			continue;
		r = &s->ring[stats_slot];
		for (i = 0; i < n; i++)
			capture_one(s, r, bits & CAPTURE_RX ? CAPTURE_RX :
				    CAPTURE_TX, pkts[i], ts);
	}
}

/**
 * capture_filter_ok() - may we run this filter
 * @prog:	instructions
 * @len:	how many (0: no filter)
 * Return: true if it is one bpf_filter() runs safely
 */
bool capture_filter_ok(const struct bpf_insn *prog, unsigned int len)
{
	if (!len)
		return true;
	if (len > CAPTURE_INSNS_MAX)
		return false;
	return bpf_validate(prog, (int)len) != 0;
}

/**
 * capture_ring_bytes() - each ring's size for a session's buffer
 * @buf:	buffer= bytes for all rings
 * @nslots:	rings
 * Return: a power of two, at least CAPTURE_RING_MIN
 */
static uint64_t capture_ring_bytes(uint32_t buf, unsigned int nslots)
{
	uint64_t each = buf / nslots, size = CAPTURE_RING_MIN;

	while (size * 2 <= each)
		size *= 2;
	return size;
}

/**
 * capture_free() - undo the allocations of session @s
 * @s:		the session, stopped and quiesced (or never started)
 */
static void capture_free(struct capture_sess *s)
{
	unsigned int i;

	for (i = 0; i < STATS_SLOTS; i++)
		if (s->ring[i].buf)
			munmap(s->ring[i].buf, s->ring[i].mask + 1);
	free(s->prog);
	memset(s, 0, sizeof(*s));
}

/**
 * capture_open() - start a session (see capture.h)
 * @port:	port index
 * @dirs:	CAPTURE_RX | CAPTURE_TX, not 0
 * @snaplen:	bytes kept per frame, 1 .. CAPTURE_SNAPLEN_MAX
 * @buf:	bytes of rings in all, at most CAPTURE_BUF_MAX
 * @nslots:	threads that forward (1 + workers), at most STATS_SLOTS
 * @prog:	filter or NULL
 * @len:	its instructions (0 with NULL)
 * Return: session id, or -EINVAL, -EBUSY, -ENOMEM
 *
 * Context: control thread
 */
int capture_open(unsigned int port, unsigned int dirs, uint32_t snaplen,
		 uint32_t buf, unsigned int nslots,
		 const struct bpf_insn *prog, unsigned int len)
{
	struct capture_sess *s = NULL;
	uint64_t size;
	unsigned int i;
	int id;

	if (port >= PORT_IDX_MAX || !dirs || dirs & ~(CAPTURE_RX | CAPTURE_TX) ||
	    !snaplen || snaplen > CAPTURE_SNAPLEN_MAX || buf > CAPTURE_BUF_MAX ||
	    !nslots || nslots > STATS_SLOTS || (len && !prog) ||
	    !capture_filter_ok(prog, len))
		return -EINVAL;
	for (id = 0; id < CAPTURE_SESSIONS && !s; id++)
		if (!capture_sess[id].used)
			s = &capture_sess[id];
	if (!s)
		return -EBUSY;
	id--;

	size = capture_ring_bytes(buf, nslots);
	for (i = 0; i < nslots; i++) {
		void *m = mmap(NULL, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			goto nomem;
		s->ring[i].buf = m;
		s->ring[i].mask = size - 1;
	}
	if (len) {
		s->prog = calloc(len, sizeof(*prog));
		if (!s->prog)
			goto nomem;
		memcpy(s->prog, prog, len * sizeof(*prog));
		s->prog_len = len;
	}
	s->used = true;
	s->port = port;
	s->dirs = dirs;
	s->snaplen = snaplen;
	s->nslots = nslots;
	/* Pairs with the acquire load in capture_burst(): the rings above
	 * are there before any thread sees the bits.
	 */
	__atomic_fetch_or(&capture_on[port], (uint8_t)(dirs << (2 * id)),
			  __ATOMIC_RELEASE);
	return id;
nomem:
	capture_free(s);
	return -ENOMEM;
}

/**
 * capture_stop() - no more frames into session @id
 * @id:		a session capture_open() returned
 *
 * Context: control thread.  A thread may still be copying into it until
 * the workers have quiesced.
 */
void capture_stop(int id)
{
	struct capture_sess *s = &capture_sess[id];

	__atomic_fetch_and(&capture_on[s->port], (uint8_t)~(3U << (2 * id)),
			   __ATOMIC_SEQ_CST);
}

/**
 * capture_close() - free session @id
 * @id:		stopped, and every worker quiesced since
 *
 * Context: control thread
 */
void capture_close(int id)
{
	capture_free(&capture_sess[id]);
}

/**
 * capture_port_gone() - the port at @port is being removed
 * @port:	its index (soon another port's)
 *
 * Context: control thread, before the port's slot can be reused: its
 * sessions take no more frames and report capture_gone().
 */
void capture_port_gone(unsigned int port)
{
	int id;

	for (id = 0; id < CAPTURE_SESSIONS; id++) {
		struct capture_sess *s = &capture_sess[id];

		if (s->used && s->port == port && !s->gone) {
			capture_stop(id);
			s->gone = true;
		}
	}
}

/**
 * capture_gone() - was session @id's port removed
 * @id:		a session
 * Return: true if so
 */
bool capture_gone(int id)
{
	return capture_sess[id].gone;
}

/**
 * capture_ring_peek() - the first frame of ring @r, padding skipped
 * @r:		a ring
 * Return: the entry, or NULL if the ring is empty
 *
 * Context: the ring's consumer
 */
static struct capture_rec *capture_ring_peek(struct capture_ring *r)
{
	for (;;) {
		/* Pairs with the release store in capture_one(). */
		uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		struct capture_rec *rec;

		if (r->tail == head)
			return NULL;
		rec = (void *)(r->buf + (r->tail & r->mask));
		if (rec->dir)
			return rec;
		__atomic_store_n(&r->tail, r->tail + rec->size,
				 __ATOMIC_RELEASE);
	}
}

/**
 * capture_next() - the oldest frame of a session not yet taken
 * @id:		the session
 * Return: it, or NULL if every ring is empty
 *
 * Context: control thread.  The rings are merged by timestamp, so frames
 * copied by several workers come out in the order they were copied
 * (to the clock's resolution).
 */
const struct capture_rec *capture_next(int id)
{
	struct capture_sess *s = &capture_sess[id];
	struct capture_rec *best = NULL;
	unsigned int i;

	for (i = 0; i < s->nslots; i++) {
		struct capture_rec *rec = capture_ring_peek(&s->ring[i]);

		if (rec && (!best || rec->ts_ns < best->ts_ns))
			best = rec;
	}
	return best;
}

/**
 * capture_take() - free the entry capture_next() returned
 * @id:		the session
 * @rec:	the entry (its data no longer used)
 *
 * Context: control thread
 */
void capture_take(int id, const struct capture_rec *rec)
{
	struct capture_sess *s = &capture_sess[id];
	unsigned int i;

	for (i = 0; i < s->nslots; i++) {
		struct capture_ring *r = &s->ring[i];

		if ((const uint8_t *)rec >= r->buf &&
		    (const uint8_t *)rec < r->buf + r->mask + 1) {
			/* Pairs with the acquire load in capture_one(). */
			__atomic_store_n(&r->tail, r->tail + rec->size,
					 __ATOMIC_RELEASE);
			return;
		}
	}
}

/**
 * capture_counts_get() - a session's counters
 * @id:		the session
 * @c:		out: sums over its rings (each a racy read of a counter
 *		its producer writes alone)
 *
 * Context: control thread
 */
void capture_counts_get(int id, struct capture_counts *c)
{
	struct capture_sess *s = &capture_sess[id];
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < s->nslots; i++) {
		const struct capture_ring *r = &s->ring[i];
		uint64_t seen = __atomic_load_n(&r->seen, __ATOMIC_RELAXED);
		uint64_t filt = __atomic_load_n(&r->filtered, __ATOMIC_RELAXED);
		uint64_t drop = __atomic_load_n(&r->dropped, __ATOMIC_RELAXED);

		c->seen += seen;
		c->filtered += filt;
		c->dropped += drop;
		c->captured += seen - filt - drop;
	}
}
