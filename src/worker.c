// SPDX-License-Identifier: GPL-2.0-or-later
/* worker.c - datapath threads: run-to-completion loops over port sources
 *
 * DOC: Theory of Operation
 *
 * A "source" is a (port, cookie) pair: a guest's TX queue, a TAP fd.  Its
 * fd sits in the worker's epoll set with the pair as the epoll cookie.
 *
 * A source is either *armed* (notifications on: the worker learns of
 * work through epoll) or *active* (notifications off: the worker polls it
 * every pass).  An event makes a source active.  Each pass polls every
 * active source once with WORKER_BUDGET frames, so a flooding guest gets
 * its budget and then waits for everybody else (vhost-net's weights),
 * while a quiet guest under the same worker is still looked at every
 * pass.  The budget is work, not just frames: a guest TX queue spends
 * it by descriptors and bytes as well (port_vhost_poll()), so a guest
 * whose chains are long or frames big gets fewer of them per turn, and
 * no source's turn costs much more than an ordinary flooder's.  Under
 * load nothing is re-armed: no guest kicks, no interrupts to us, no
 * epoll_wait sleeps -- the worker polls while it pays.
 *
 * When a whole pass finds nothing, the worker keeps polling for up to
 * --poll-us microseconds (the seed's "poll before sleeping"), then arms
 * every active source and sleeps.  Arming closes the race with a guest
 * that queued work just before: a source that reports work on arming
 * stays active.  With --poll-us 0 an idle worker sleeps at
 * once and costs no CPU.
 *
 * Nothing here knows port types; registration (worker_fd_add/del) is a
 * plain epoll_ctl() on the worker's epoll fd, safe from any thread.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "efd.h"
#include "log.h"
#include "switch.h"
#include "util.h"
#include "worker.h"

_Static_assert(WORKERS_MAX + 1 <= STATS_SLOTS,
	       "each worker needs its own counter slot (stats.h)");

#define WORKER_BUDGET		64	/* frames, or their worth, per source
					 * per pass (port_vhost_poll())
					 */
#define WORKER_EVENTS		64	/* epoll events per wait */
#define WORKER_SRC_MAX		(WORKER_EVENTS * 2)
#define WORKER_STOP_PORT	0xffffffffu
/* Pauses between two dry passes.  Measured with bench/: 4 cost request/
 * response ~10% in round trips per second against 0 or 1, with no gain
 * in one-way throughput; 1 keeps a little slack for a hyperthread twin.
 */
#define WORKER_SPIN_PAUSES	1
/* While sources are active, epoll_wait() is asked once every so many
 * passes: often while some registered source is not in the active list
 * (an armed queue's kick, a TAP fd turning readable must be heard within
 * microseconds); rarely while every source is polled anyway, when epoll
 * can only tell of a newly registered one -- a syscall every few passes
 * would otherwise stretch a request/response round trip's tail.
 */
#define WORKER_EPOLL_EVERY	64
#define WORKER_EPOLL_RARE	16384
#define WORKER_CLOCK_EVERY	32	/* dry passes per clock read: ~1.5 us */

/**
 * struct worker_src - a pollable source
 * @port:	port index (WORKER_STOP_PORT for the stop eventfd)
 * @cookie:	port-defined, e.g. the virtqueue index
 */
struct worker_src {
	uint32_t port;
	uint32_t cookie;
};

/**
 * struct worker - one datapath thread
 * @thread:	pthread handle
 * @epfd:	epoll set of this worker's sources
 * @stop_fd:	eventfd written by worker_stop()
 * @idx:	worker number
 * @nactive:	sources in @active
 * @nfds:	sources registered (worker_fd_add() less worker_fd_del()),
 *		written by control, read by the thread
 * @active:	sources polled every pass (notifications off)
 *
 * Everything but @epfd and @nfds (used by control) is private to the
 * thread.
 */
struct worker {
	pthread_t thread;
	int epfd;
	int stop_fd;
	unsigned int idx;
	unsigned int nactive;
	unsigned int nfds;
	struct worker_src active[WORKER_SRC_MAX];
} __cacheline_aligned;

static struct worker workers[WORKERS_MAX];
static unsigned int worker_count;
static unsigned int worker_next;
static unsigned int worker_poll_us;

static uint64_t worker_src_key(uint32_t port, uint32_t cookie)
{
	return (uint64_t)port << 32 | cookie;
}

/**
 * worker_init() - create the workers' epoll sets (threads start later)
 * @n:		number of workers, 1..WORKERS_MAX
 * @poll_us:	busy-poll window after sources run dry, microseconds
 *
 * Return: 0 or -errno
 * Context: control thread, start-up
 */
int worker_init(unsigned int n, unsigned int poll_us)
{
	unsigned int i;

	if (!n || n > WORKERS_MAX)
		return -EINVAL;
	worker_poll_us = poll_us;
	for (i = 0; i < n; i++) {
		struct worker *w = &workers[i];
		struct epoll_event ev = { .events = EPOLLIN };

		w->idx = i;
		w->epfd = epoll_create1(EPOLL_CLOEXEC);
		w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (w->epfd < 0 || w->stop_fd < 0)
			return -errno;
		ev.data.u64 = worker_src_key(WORKER_STOP_PORT, 0);
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->stop_fd, &ev) < 0)
			return -errno;
		worker_count = i + 1;
	}
	return 0;
}

/**
 * worker_add_src() - add @src to @list unless it is already there
 * @list:	sources
 * @n:		entries in @list, updated
 * @src:	source
 */
static void worker_add_src(struct worker_src *list, unsigned int *n,
			   struct worker_src src)
{
	unsigned int i;

	for (i = 0; i < *n; i++)
		if (list[i].port == src.port && list[i].cookie == src.cookie)
			return;
	if (*n < WORKER_SRC_MAX)
		list[(*n)++] = src;
}

/**
 * worker_poll_src() - give one source its turn
 * @src:	source
 * Return: frames the source processed
 */
static unsigned int worker_poll_src(struct worker_src src)
{
	struct port *p = switch_port(src.port);

	if (!p)
		return 0;
	return p->ops->poll(p, src.cookie, WORKER_BUDGET);
}

/**
 * worker_arm_src() - turn a dry source's notifications back on
 * @src:	source
 * Return: true if it has work after all and must stay active
 */
static bool worker_arm_src(struct worker_src src)
{
	struct port *p = switch_port(src.port);

	if (!p || !p->ops->arm)
		return false;
	return p->ops->arm(p, src.cookie);
}

/**
 * worker_stage_src() - let a dry source's port prepare for its next frame
 * @src:	source
 */
static void worker_stage_src(struct worker_src src)
{
	struct port *p = switch_port(src.port);

	if (p && p->ops->stage)
		p->ops->stage(p, src.cookie);
}

/**
 * worker_epoll_due() - whether this pass should ask epoll for events
 * @w:		worker
 * @polled:	passes since the last epoll_wait(), updated
 *
 * Always when nothing is active (the worker sleeps in epoll_wait());
 * otherwise see WORKER_EPOLL_EVERY and WORKER_EPOLL_RARE.
 *
 * Return: true to call epoll_wait() now
 */
static bool worker_epoll_due(const struct worker *w, unsigned int *polled)
{
	unsigned int every = WORKER_EPOLL_RARE;

	if (!w->nactive)
		return true;
	if (w->nactive < __atomic_load_n(&w->nfds, __ATOMIC_RELAXED))
		every = WORKER_EPOLL_EVERY;
	return ++*polled >= every;
}

/**
 * worker_window_open() - whether a dry worker should keep polling
 * @dry_since:	when the dry spell began (ns), 0 if it just began; updated
 * @dry_passes:	dry passes counted, updated
 *
 * The clock is read every WORKER_CLOCK_EVERY dry passes only: even
 * through the vDSO it costs about as much as a pass itself, and a late
 * look only stretches the window by a few passes.
 *
 * Return: true while within --poll-us of the last work
 */
static bool worker_window_open(uint64_t *dry_since, unsigned int *dry_passes)
{
	uint64_t t;

	if (*dry_since && ++*dry_passes % WORKER_CLOCK_EVERY)
		return true;
	t = now_ns();
	if (!*dry_since)
		*dry_since = t;
	return t - *dry_since < (uint64_t)worker_poll_us * 1000;
}

/**
 * worker_loop() - thread body
 * @arg:	struct worker
 * Return: NULL
 */
static void *worker_loop(void *arg)
{
	struct worker *w = arg;
	struct epoll_event evs[WORKER_EVENTS];
	uint64_t dry_since = 0;
	unsigned int polled = 0, dry_passes = 0;
	bool staged = true;

	stats_slot = 1 + w->idx;
	if (efd_watch_thread() < 0)
		warn("worker %u: not under the eventfd watchdog", w->idx);
	for (;;) {
		unsigned int i, nactive;
		bool work = false;
		int n = 0;

		if (worker_epoll_due(w, &polled)) {
			n = epoll_wait(w->epfd, evs, WORKER_EVENTS,
				       w->nactive ? 0 : -1);
			polled = 0;
		}
		if (n < 0 && errno != EINTR) {
			err("worker %u: epoll_wait: %s", w->idx, strerror(errno));
			return NULL;
		}
		for (i = 0; n > 0 && i < (unsigned int)n; i++) {
			struct worker_src src = {
				.port = (uint32_t)(evs[i].data.u64 >> 32),
				.cookie = (uint32_t)evs[i].data.u64,
			};

			if (src.port == WORKER_STOP_PORT)
				return NULL;
			worker_add_src(w->active, &w->nactive, src);
		}

		for (i = 0; i < w->nactive; i++)
			if (worker_poll_src(w->active[i]))
				work = true;
		if (work) {
			dry_since = 0;
			staged = false;
			continue;
		}

		/* The first dry pass after work: the ports get ready for
		 * their next frame (port_ops.stage) while nothing waits.
		 */
		if (!staged) {
			for (i = 0; i < w->nactive; i++)
				worker_stage_src(w->active[i]);
			staged = true;
		}

		/* A whole pass found nothing: spin out the poll window. */
		if (worker_poll_us && worker_window_open(&dry_since,
							 &dry_passes)) {
			/* Looking again at once would only pull the guest's
			 * avail index line away from the guest writing it.
			 */
			for (i = 0; i < WORKER_SPIN_PAUSES; i++)
				__builtin_ia32_pause();
			continue;
		}
		dry_since = 0;

		/* Sleep, unless arming reveals work that raced in. */
		nactive = w->nactive;
		w->nactive = 0;
		for (i = 0; i < nactive; i++)
			if (worker_arm_src(w->active[i]))
				w->active[w->nactive++] = w->active[i];
	}
}

/**
 * worker_start() - start every worker thread
 * Return: 0 or -errno
 * Context: control thread, start-up
 */
int worker_start(void)
{
	unsigned int i;

	for (i = 0; i < worker_count; i++) {
		int rc = pthread_create(&workers[i].thread, NULL, worker_loop,
					&workers[i]);

		if (rc)
			return -rc;
	}
	return 0;
}

/**
 * worker_stop() - stop and join every worker
 * Context: control thread, shutdown
 */
void worker_stop(void)
{
	unsigned int i;

	for (i = 0; i < worker_count; i++) {
		if (eventfd_write(workers[i].stop_fd, 1) < 0)
			warn("worker %u: cannot signal stop", i);
	}
	for (i = 0; i < worker_count; i++) {
		pthread_join(workers[i].thread, NULL);
		close(workers[i].epfd);
		close(workers[i].stop_fd);
	}
	worker_count = 0;
}

/**
 * worker_pick() - choose a worker for a new source (round robin)
 * Return: worker index
 * Context: control thread
 */
unsigned int worker_pick(void)
{
	unsigned int w = worker_next++ % (worker_count ? worker_count : 1);

	return w;
}

/**
 * worker_fd_add_events() - add @fd to worker @w's epoll set
 * @w:		worker index
 * @fd:		descriptor
 * @port_idx:	port to poll when it fires
 * @cookie:	passed to the port's poll op
 * @events:	epoll events
 *
 * Return: 0 or -errno
 */
static int worker_fd_add_events(unsigned int w, int fd, unsigned int port_idx,
				uint32_t cookie, uint32_t events)
{
	struct epoll_event ev = {
		.events = events,
		.data.u64 = worker_src_key(port_idx, cookie),
	};

	if (w >= worker_count)
		return -EINVAL;
	if (epoll_ctl(workers[w].epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	__atomic_fetch_add(&workers[w].nfds, 1, __ATOMIC_RELAXED);
	return 0;
}

/**
 * worker_fd_add() - make worker @w poll a source when @fd is readable
 * @w:		worker index
 * @fd:		fd to watch
 * @port_idx:	port index passed to the poll op
 * @cookie:	cookie passed to the poll op
 *
 * Return: 0 or -errno
 * Context: any thread
 */
int worker_fd_add(unsigned int w, int fd, unsigned int port_idx,
		  uint32_t cookie)
{
	return worker_fd_add_events(w, fd, port_idx, cookie, EPOLLIN);
}

/**
 * worker_kick_add() - watch a front end's kick eventfd for worker @w
 * @w:		worker index
 * @fd:		eventfd the guest writes
 * @port_idx:	port to poll
 * @cookie:	passed to its poll op
 *
 * Edge-triggered, and the fd is never read: reading or draining an fd
 * the front end shares is an operation it could make block (efd.c).
 * Every write to an eventfd is an edge.  EPOLLOUT is asked for too: an
 * eventfd is always readable or writable, so registration itself
 * reports one event, and the port polls the queue once at start.
 *
 * Return: 0 or -errno
 */
int worker_kick_add(unsigned int w, int fd, unsigned int port_idx,
		    uint32_t cookie)
{
	return worker_fd_add_events(w, fd, port_idx, cookie,
				    EPOLLIN | EPOLLOUT | EPOLLET);
}

/**
 * worker_fd_del() - stop watching @fd on worker @w
 * @w:		worker index
 * @fd:		fd given to worker_fd_add()
 *
 * Return: 0 or -errno
 * Context: any thread.  The worker may still be inside a poll of this
 * source when this returns; ports guard their state with their own locks.
 */
int worker_fd_del(unsigned int w, int fd)
{
	if (w >= worker_count)
		return -EINVAL;
	if (epoll_ctl(workers[w].epfd, EPOLL_CTL_DEL, fd, NULL) < 0)
		return -errno;
	__atomic_fetch_sub(&workers[w].nfds, 1, __ATOMIC_RELAXED);
	return 0;
}
