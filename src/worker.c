// SPDX-License-Identifier: GPL-2.0-or-later
/* worker.c - datapath threads: run-to-completion loops over port sources
 *
 * DOC: Theory of Operation
 *
 * A "source" is a (port, queue) pair a worker owns: a guest's TX queue,
 * a tun queue.  Its fd sits in the owner's epoll set.
 *
 * A source is either *armed* (notifications on: the worker learns of
 * work through epoll) or *active* (notifications off: the worker polls it
 * every pass).  An event makes a source active.  Each pass polls every
 * active source once with WORKER_BUDGET frames, so a flooding guest gets
 * its budget and then waits for everybody else (vhost-net's weights),
 * while a quiet guest under the same worker is still looked at every
 * pass.  The budget is work, not just frames: a guest TX queue spends
 * it by descriptors and bytes as well (port_vhost_rx_burst()), so a guest
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
 * A turn at a source is driven from here, in two phases (port.h): the
 * port describes a burst in place (rx_burst), the worker hands it to
 * switch_forward(), the port gives the buffers back (rx_done); rx_begin
 * and rx_end bracket the turn, so a guest's used index is published and
 * its interrupt sent once per turn.  Nothing here knows port types.
 *
 * Sources live in one table (worker_srcs), written by the control thread
 * only.  An epoll event and an active-list entry name a slot and its
 * generation; a turn runs only while the slot is live and of the same
 * generation, so a removed source is never polled again, and a slot
 * reused for another is not mistaken for the old one.
 *
 * Quiescence (worker_quiesce()): every worker counts its passes and says
 * when it sleeps.  The control thread unpublishes something (a source, a
 * port), then waits until each worker has started a new pass or is
 * asleep: no worker is inside a turn or a delivery that could still see
 * the old state, and it can be freed.  Port removal, source removal and
 * TAP close use it; it replaces per-type handshakes.
 *
 * Busy time (worker_info.busy_ns, "metrics"): the clock is read once at
 * the end of each pass that found work, and the time since the previous
 * read is added to the worker's busy count.  The other reads -- the
 * dry passes' poll window (every WORKER_CLOCK_EVERY of them) and a wake
 * from epoll_wait() -- only move the mark, so what lies between them is
 * idle.  A pass that found nothing costs no extra read; one that found
 * work costs one, whatever its number of frames or sources.  Error: up
 * to WORKER_CLOCK_EVERY dry passes (~1.5 us) before work count as busy.
 * Idle time is the rest of the worker's life (ctl_prom.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "efd.h"
#include "log.h"
#include "pollwin.h"
#include "switch.h"
#include "util.h"
#include "worker.h"

_Static_assert(WORKERS_MAX + 1 <= STATS_SLOTS,
	       "each worker needs its own counter slot (stats.h)");

#define WORKER_BUDGET		64	/* frames, or their worth, per source
					 * per pass (port_vhost_poll())
					 */
#define WORKER_EVENTS		64	/* epoll events per wait */
#define WORKER_SRCS		2048	/* source queues, all workers */
#define WORKER_SRC_STOP		0xffffffffu	/* the stop eventfd's slot */
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
#define WORKER_WOKE_MAX		16	/* dry spells ended per pass, timed
					 * together at its end
					 */

/**
 * struct worker_src - a source queue some worker owns
 * @port:	its port
 * @q:		the port's queue number (rx_* ops, arm, stage)
 * @fd:		the fd that wakes the worker
 * @worker:	the worker owning it
 * @gen:	bumped when the slot is freed (read by workers)
 * @live:	turns may run (seq_cst: see worker_quiesce())
 *
 * Written by the control thread; a worker reads a slot only after it
 * found @live set and @gen equal to its reference's.
 */
struct worker_src {
	struct port *port;
	uint32_t q;
	int fd;
	unsigned int worker;
	uint32_t gen;
	bool live;
};

/**
 * struct worker_ref - a slot of worker_srcs at one generation
 * @slot:	index in worker_srcs (WORKER_SRC_STOP: the stop eventfd)
 * @gen:	the slot's generation when the reference was made
 */
struct worker_ref {
	uint32_t slot;
	uint32_t gen;
};

/**
 * struct worker_timed - a source whose port asked to be called at a time
 * @ref:	the source
 * @due:	when (now_ns()) to call its port's tick op
 */
struct worker_timed {
	struct worker_ref ref;
	uint64_t due;
};

/**
 * struct worker - one datapath thread
 * @thread:	pthread handle
 * @epfd:	epoll set of this worker's sources
 * @stop_fd:	eventfd written by worker_stop()
 * @idx:	worker number
 * @nactive:	sources in @active
 * @nfds:	sources registered, written by control, read by the thread
 * @running:	the thread runs (control)
 * @pass:	passes begun (the thread; read by worker_quiesce())
 * @asleep:	blocked in epoll_wait(), between passes
 * @busy_ns:	time in passes that found work (the thread; read by ctl)
 * @start_ns:	when the thread's loop began (the thread, before @tid)
 * @active:	sources polled every pass (notifications off)
 * @nheld:	sources in @held
 * @held:	sources held back by their port's rx= rate limit while the
 *		worker sleeps: not armed (the guest need not kick), back in
 *		@active when the sleep ends
 * @wake_ns:	when the first of @held may run again
 * @poll_ns:	time it polled dry sources, not asleep (the thread; ctl)
 * @dry_read:	clock of the dry stretch's last read, 0 after work or a
 *		sleep (lost polling time, struct pw_contend)
 * @contend:	its contention state (the thread; ctl reads it racily)
 * @ntimed:	sources in @timed
 * @timed_next:	the earliest @timed due, UINT64_MAX with none (it may be
 *		earlier than any: then the next look only recomputes it)
 * @timed:	sources whose port put something off until a time
 *		(struct port_turn.due): a guest's TX-completion interrupt
 *
 * Everything but @epfd, @nfds, @running, @pass, @asleep, @busy_ns,
 * @poll_ns, @contend, @start_ns and @tid is private to the thread.
 */
struct worker {
	pthread_t thread;
	int epfd;
	int stop_fd;
	unsigned int idx;
	int cpu;
	int tid;
	unsigned int nactive;
	unsigned int nfds;
	bool running;
	uint64_t pass;
	bool asleep;
	uint64_t busy_ns;
	uint64_t start_ns;
	struct worker_ref active[WORKER_SRCS];
	unsigned int nheld;
	uint64_t wake_ns;
	struct worker_ref held[WORKER_SRCS];
	uint64_t poll_ns;
	uint64_t dry_read;
	struct pw_contend contend;
	unsigned int ntimed;
	uint64_t timed_next;
	struct worker_timed timed[WORKER_SRCS];
} __cacheline_aligned;

static struct worker workers[WORKERS_MAX];
static unsigned int worker_count;
static unsigned int worker_next;
static unsigned int worker_latency_us;
static struct worker_src worker_srcs[WORKER_SRCS];
/* Each source's polling state: reset by the control thread before the
 * slot goes live, then written by its worker only (ctl reads it racily).
 */
static struct pw_queue worker_pq[WORKER_SRCS];
static const struct port_host worker_host;

static uint64_t worker_ref_key(uint32_t slot, uint32_t gen)
{
	return (uint64_t)slot << 32 | gen;
}

/**
 * worker_init() - create the workers' epoll sets (threads start later)
 * @n:		number of workers, 1..WORKERS_MAX
 * @poll_us:	fixed busy-poll window after a source runs dry,
 *		microseconds; -1: each source's own (pollwin.h)
 * @latency_us:	the sources' latency target where their port sets none
 * @cpus:	CPUs to pin worker i to: @cpus[i % @ncpus]
 * @ncpus:	entries in @cpus, 0: no pinning
 *
 * Adaptive windows need the host's wake-up cost: measured here, ~20 ms
 * (pw_calibrate()).  The CPU pressure file is opened here for the
 * workers to read under the sandbox (their backoff, pollwin.c).
 *
 * Return: 0 or -errno
 * Context: control thread, start-up
 */
int worker_init(unsigned int n, int poll_us, unsigned int latency_us,
		const uint16_t *cpus, unsigned int ncpus)
{
	unsigned int i;
	int stall_fd;

	if (!n || n > WORKERS_MAX)
		return -EINVAL;
	worker_latency_us = latency_us;
	stall_fd = open("/proc/pressure/cpu", O_RDONLY | O_CLOEXEC);
	if (stall_fd >= 0 && pw_stall_read(stall_fd) < 0) {
		close(stall_fd);
		stall_fd = -1;
	}
	if (stall_fd < 0)
		info("no CPU pressure (/proc/pressure/cpu): polling backs "
		     "off on the workers' lost time alone");
	pw_init(poll_us < 0 ? pw_calibrate(16) : 0, poll_us, stall_fd);
	port_host = &worker_host;
	for (i = 0; i < n; i++) {
		struct worker *w = &workers[i];
		struct epoll_event ev = { .events = EPOLLIN };

		w->idx = i;
		w->timed_next = UINT64_MAX;
		w->cpu = ncpus ? cpus[i % ncpus] : -1;
		w->epfd = epoll_create1(EPOLL_CLOEXEC);
		w->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (w->epfd < 0 || w->stop_fd < 0)
			return -errno;
		ev.data.u64 = worker_ref_key(WORKER_SRC_STOP, 0);
		if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->stop_fd, &ev) < 0)
			return -errno;
		worker_count = i + 1;
	}
	return 0;
}

/**
 * worker_add_active() - add @ref to @w's active list unless it is there
 * @w:		worker
 * @ref:	source
 */
static void worker_add_active(struct worker *w, struct worker_ref ref)
{
	unsigned int i;

	for (i = 0; i < w->nactive; i++)
		if (w->active[i].slot == ref.slot)
			return;
	if (w->nactive < WORKER_SRCS)
		w->active[w->nactive++] = ref;
}

/**
 * worker_src_get() - the source @ref names, if it is still that one
 * @ref:	reference from an event or the active list
 * Return: the source, or NULL if it was removed (drop the reference)
 */
static const struct worker_src *worker_src_get(struct worker_ref ref)
{
	const struct worker_src *s = &worker_srcs[ref.slot];

	/* seq_cst: ordered after the pass count (worker_quiesce()). */
	if (!__atomic_load_n(&s->live, __ATOMIC_SEQ_CST) ||
	    __atomic_load_n(&s->gen, __ATOMIC_RELAXED) != ref.gen)
		return NULL;
	return s;
}

/**
 * worker_turn() - give one source its turn
 * @s:		source
 *
 * The two phases of port.h: the port describes a burst in place, the
 * switch forwards it, the port gives the buffers back; until the budget
 * is spent or the queue runs dry.
 *
 * A port held back for sending into another's tx= limit gets no turn;
 * a port with an rx= limit (rate.h) gets none while its bucket is
 * past the tolerance, and a turn of at most the room left otherwise; the
 * bytes it took, as its rx_bytes counter in this worker's slot grew (the
 * direct TAP path included), are charged after.
 *
 * Return: frames the source processed; 0 with @held_until set (clock,
 *	   ns) when the limit held it back
 */
static unsigned int worker_turn(const struct worker_src *s,
				uint64_t *held_until, uint64_t *due)
{
	const struct port_ops *ops = s->port->ops;
	struct port_turn turn = { .budget = WORKER_BUDGET };
	struct pkt *pkts[SWITCH_BURST];
	struct port *p = s->port;
	struct rate *lim = switch_rate(p, RATE_RX);
	uint64_t t = 0, b0 = 0;

	/* It sent into another port's tx= limit: it waits (switch.c). */
	if (unlikely(switch_port_held(p, held_until)))
		return 0;
	if (unlikely(lim)) {
		int64_t room;

		t = now_ns();
		room = rate_room(lim, t);
		if (room <= 0) {
			*held_until = t + rate_wait(lim, t);
			return 0;
		}
		turn.bytes = (uint64_t)room;
		b0 = port_ctr(p)->rx_bytes;
	}
	if (!ops->rx_begin(p, s->q, &turn))
		return 0;
	log_queue = (int)s->q;	/* VHOSTD_QUEUE of what the turn logs */
	while (turn.done < turn.budget && !turn.dry) {
		unsigned int before = turn.done, n;

		n = ops->rx_burst(p, s->q, pkts,
				  MIN(SWITCH_BURST, turn.budget - turn.done),
				  &turn);
		if (n)
			switch_forward(p, pkts, n);
		if (ops->rx_done)
			ops->rx_done(p, s->q, &turn);
		if (!n && turn.done == before)
			break;	/* the port broke its contract: no loop */
	}
	ops->rx_end(p, s->q, &turn);
	*due = turn.due;
	log_queue = -1;
	if (unlikely(lim))
		rate_charge(lim, t, port_ctr(p)->rx_bytes - b0);
	return turn.done;
}

/**
 * worker_held() - whether a source's port holds it back now (rx= limit)
 * @s:		source
 * @now:	clock, ns
 * @until:	out: when it may run again, if held
 * Return: true if held
 */
static bool worker_held(const struct worker_src *s, uint64_t now,
			uint64_t *until)
{
	struct rate *lim = switch_rate(s->port, RATE_RX);

	if (switch_port_held(s->port, until))
		return true;
	if (!lim || rate_room(lim, now) > 0)
		return false;
	*until = now + rate_wait(lim, now);
	return true;
}

/**
 * worker_sleep_ns() - how long a worker about to sleep may sleep
 * @w:		worker, nothing active
 * Return: -1 (until an event), or ns until its first held source may run
 *	   or its first timed one is due, at most a second
 */
static int64_t worker_sleep_ns(const struct worker *w)
{
	uint64_t now, until = UINT64_MAX;

	if (w->nheld)
		until = w->wake_ns;
	if (w->ntimed)
		until = MIN(until, w->timed_next);
	if (until == UINT64_MAX)
		return -1;
	now = now_ns();
	if (until <= now)
		return 0;
	return (int64_t)MIN(until - now, 1000000000ULL);
}

/**
 * worker_wait() - epoll_wait(), asleep for @ns at most (-1: no limit)
 * @w:		worker
 * @evs:	events out
 * @ns:		from worker_sleep_ns(), or 0 not to sleep
 *
 * A timed source's deadline is tens of microseconds away, finer than
 * epoll_wait()'s milliseconds: epoll_pwait2() takes a timespec.  A
 * kernel without it (before 5.11) gets the milliseconds, rounded up.
 *
 * Return: what epoll_wait() returns
 */
static int worker_wait(struct worker *w, struct epoll_event *evs, int64_t ns)
{
	static bool no_pwait2;
	struct timespec ts;
	int n;

	if (ns <= 0 || ns % 1000000 == 0 ||
	    __atomic_load_n(&no_pwait2, __ATOMIC_RELAXED))
		goto ms;
	ts.tv_sec = ns / 1000000000;
	ts.tv_nsec = ns % 1000000000;
	n = epoll_pwait2(w->epfd, evs, WORKER_EVENTS, &ts, NULL);
	if (n >= 0 || errno != ENOSYS)
		return n;
	__atomic_store_n(&no_pwait2, true, __ATOMIC_RELAXED);
ms:
	return epoll_wait(w->epfd, evs, WORKER_EVENTS,
			  ns < 0 ? -1 : (int)((ns + 999999) / 1000000));
}

/**
 * worker_timed_set() - call @ref's port's tick op at @due
 * @w:		worker owning the source
 * @ref:	the source
 * @due:	clock, ns; replaces what the source asked for before
 */
static void worker_timed_set(struct worker *w, struct worker_ref ref,
			     uint64_t due)
{
	unsigned int i;

	for (i = 0; i < w->ntimed; i++)
		if (w->timed[i].ref.slot == ref.slot)
			break;
	if (i == w->ntimed) {
		if (i == WORKER_SRCS)	/* one per source: cannot be */
			return;
		w->ntimed++;
	}
	w->timed[i].ref = ref;
	w->timed[i].due = due;
	if (due < w->timed_next)
		w->timed_next = due;
}

/**
 * worker_timed_run() - call the ports whose time has come
 * @w:		worker
 * @t:		clock, ns
 *
 * A source removed meanwhile is forgotten (its port's queue stop did
 * what was put off, port_vhost_queue_stop()).
 */
static void worker_timed_run(struct worker *w, uint64_t t)
{
	uint64_t next = UINT64_MAX;
	unsigned int i = 0;

	if (likely(t < w->timed_next))
		return;
	while (i < w->ntimed) {
		struct worker_timed *e = &w->timed[i];
		const struct worker_src *s;

		if (e->due <= t) {
			s = worker_src_get(e->ref);
			e->due = s && s->port->ops->tick ?
				 s->port->ops->tick(s->port, s->q, t) : 0;
			if (!e->due) {
				*e = w->timed[--w->ntimed];
				continue;
			}
		}
		next = MIN(next, e->due);
		i++;
	}
	w->timed_next = next;
}

/**
 * worker_arm_src() - turn a dry source's notifications back on
 * @s:		source
 * Return: true if it has work after all and must stay active
 */
static bool worker_arm_src(const struct worker_src *s)
{
	if (!s->port->ops->arm)
		return false;
	return s->port->ops->arm(s->port, s->q);
}

/**
 * worker_stage_src() - let a dry source's port prepare for its next frame
 * @s:		source
 */
static void worker_stage_src(const struct worker_src *s)
{
	if (s->port->ops->stage)
		s->port->ops->stage(s->port, s->q);
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
 * worker_dry_read() - a dry pass's clock read, every WORKER_CLOCK_EVERY
 * @w:		worker
 * @dry_passes:	dry passes counted, updated
 * @mark:	the busy-time mark, moved to the time read
 * @t:		out: the time read
 *
 * The clock is read on the first dry pass after work or a wake-up, then
 * every WORKER_CLOCK_EVERY dry passes only: even through the vDSO it
 * costs about as much as a pass itself, and a late look only stretches
 * a window by a few passes.  What lay between the last mark and this
 * read was polling; a read much later than the last dry one means the
 * worker did not run in between (lost time, struct pw_contend).
 *
 * Return: true if the clock was read
 */
static bool worker_dry_read(struct worker *w, unsigned int *dry_passes,
			    uint64_t *mark, uint64_t *t)
{
	if (w->dry_read && ++*dry_passes % WORKER_CLOCK_EVERY)
		return false;
	*t = now_ns();
	__atomic_store_n(&w->poll_ns, w->poll_ns + (*t - *mark),
			 __ATOMIC_RELAXED);
	if (w->dry_read && *t - w->dry_read > PW_GAP_NS)
		__atomic_store_n(&w->contend.lost_ns,
				 w->contend.lost_ns + (*t - w->dry_read),
				 __ATOMIC_RELAXED);
	w->dry_read = *t;
	*mark = *t;
	return true;
}

/**
 * worker_pq_add() - add the time since @since to a source's counter
 * @ctr:	poll_ns or sleep_ns of a struct pw_queue (ctl reads it)
 * @since:	start of the stretch, 0: none to count
 * @t:		clock, ns
 */
static void worker_pq_add(uint64_t *ctr, uint64_t since, uint64_t t)
{
	if (since && t > since)
		__atomic_store_n(ctr, *ctr + (t - since), __ATOMIC_RELAXED);
}

/**
 * worker_pq_work() - a source found work after a dry spell
 * @pq:		its polling state
 * @t:		clock, ns (the pass's end: within a pass of the truth)
 */
static void worker_pq_work(struct pw_queue *pq, uint64_t t)
{
	worker_pq_add(&pq->sleep_ns, pq->armed_at, t);
	if (pq->armed_at)
		__atomic_store_n(&pq->armed_at, 0, __ATOMIC_RELAXED);
	worker_pq_add(&pq->poll_ns, pq->poll_since, t);
	if (!pq->woken)
		__atomic_store_n(&pq->hits, pq->hits + 1, __ATOMIC_RELAXED);
	pw_gap(pq, t > pq->dry_since ? t - pq->dry_since : 0);
	pq->burst_woken = pq->woken;
	pq->dry_since = 0;
	pq->poll_since = 0;
	pq->woken = false;
}

/**
 * worker_pq_woken() - an event made an armed source active again
 * @pq:		its polling state
 * @t:		clock, ns
 */
static void worker_pq_woken(struct pw_queue *pq, uint64_t t)
{
	worker_pq_add(&pq->sleep_ns, pq->armed_at, t);
	__atomic_store_n(&pq->wakeups, pq->wakeups + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&pq->armed_at, 0, __ATOMIC_RELAXED);
	pq->poll_since = t;
	pq->woken = true;
}

/**
 * worker_windows() - arm the sources whose poll window ran out
 * @w:		worker, a whole pass dry
 * @t:		clock, ns
 * @held:	sources of the pass its rate limits held back
 *
 * A source's window counts from its own dry spell's start (pollwin.h);
 * one still inside it stays active.  Sources a rate limit holds back are
 * not armed: once every source left is one, they all go to @held and
 * the worker sleeps until the first may run (worker_sleep_ns()).
 */
static void worker_windows(struct worker *w, uint64_t t, unsigned int held)
{
	unsigned int i, left = 0, nactive = w->nactive;
	uint64_t until = 0, wake = UINT64_MAX;

	w->nactive = 0;
	for (i = 0; i < nactive; i++) {
		struct worker_ref ref = w->active[i];
		const struct worker_src *s = worker_src_get(ref);
		struct pw_queue *pq = &worker_pq[ref.slot];

		if (!s)
			continue;
		if (held && worker_held(s, t, &until)) {
			wake = MIN(wake, until);
			w->active[w->nactive++] = ref;
			continue;
		}
		if (!pq->dry_since)
			pq->dry_since = pq->poll_since = t;
		if (t - pq->dry_since < pw_window(pq, &w->contend, t)) {
			w->active[w->nactive++] = ref;
			left++;
			continue;
		}
		if (worker_arm_src(s)) {	/* work raced in */
			w->active[w->nactive++] = ref;
			left++;
			continue;
		}
		worker_pq_add(&pq->poll_ns, pq->poll_since, t);
		__atomic_store_n(&pq->sleeps, pq->sleeps + 1, __ATOMIC_RELAXED);
		pq->poll_since = 0;
		__atomic_store_n(&pq->armed_at, t, __ATOMIC_RELAXED);
	}
	if (left || !w->nactive)
		return;
	/* Only held sources are left: they wait in @held, unarmed. */
	if (!w->nheld || wake < w->wake_ns)
		w->wake_ns = wake;
	for (i = 0; i < w->nactive && w->nheld < WORKER_SRCS; i++)
		w->held[w->nheld++] = w->active[i];
	w->nactive = 0;
}

/**
 * worker_loop() - thread body
 * @arg:	struct worker
 * Return: NULL
 */
/**
 * worker_settle() - a new worker names itself and moves to its CPU
 * @w:		the calling thread's worker
 *
 * Done by the thread itself, after the seccomp filter is on: it may only
 * set its own affinity (pid 0) and its own name, nothing else's.  A CPU
 * taken away since start-up (main checked the list then) costs the
 * pinning, with a line, not the worker.
 */
static void worker_settle(struct worker *w)
{
	char name[16];

	snprintf(name, sizeof(name), "vhostd-w%u", w->idx);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			warn("worker %u: cannot run on CPU %d only: %s",
			     w->idx, w->cpu, strerror(errno));
			__atomic_store_n(&w->cpu, -1, __ATOMIC_RELAXED);
		}
	}
	__atomic_store_n(&w->start_ns, now_ns(), __ATOMIC_RELAXED);
	/* Last: worker_start() waits for it, so that ctl never shows a
	 * worker before its name and CPU are what it says.
	 */
	__atomic_store_n(&w->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
}

static void *worker_loop(void *arg)
{
	struct worker *w = arg;
	struct epoll_event evs[WORKER_EVENTS];
	uint64_t mark;
	unsigned int polled = 0, dry_passes = 0;
	bool staged = true;

	stats_slot = 1 + w->idx;
	worker_settle(w);
	mark = __atomic_load_n(&w->start_ns, __ATOMIC_RELAXED);
	if (efd_watch_thread() < 0)
		warn("worker %u: not under the eventfd watchdog", w->idx);
	for (;;) {
		unsigned int i, held = 0, nwoke = 0, done;
		uint32_t woke_slot[WORKER_WOKE_MAX];
		uint64_t until = 0, due, t;
		bool work = false, woke = false;
		int n = 0;

		/* A new pass: whatever was unpublished before this is not
		 * seen in it (worker_quiesce()).
		 */
		__atomic_fetch_add(&w->pass, 1, __ATOMIC_SEQ_CST);
		if (worker_epoll_due(w, &polled)) {
			bool sleep = !w->nactive;

			if (sleep)
				__atomic_store_n(&w->asleep, true,
						 __ATOMIC_SEQ_CST);
			n = worker_wait(w, evs, sleep ? worker_sleep_ns(w) : 0);
			if (sleep) {
				__atomic_store_n(&w->asleep, false,
						 __ATOMIC_SEQ_CST);
				__atomic_fetch_add(&w->pass, 1,
						   __ATOMIC_SEQ_CST);
				woke = true;
				mark = now_ns();	/* the sleep: idle */
				w->dry_read = 0;
				worker_timed_run(w, mark);
			}

			polled = 0;
		}
		if (n < 0 && errno != EINTR) {
			err("worker %u: epoll_wait: %s", w->idx, strerror(errno));
			return NULL;
		}
		/* Held sources are looked at again once their time has
		 * come (a turn holds them back once more if need be), or
		 * whenever the worker wakes from a sleep.
		 */
		if (unlikely(w->nheld) && (woke || now_ns() >= w->wake_ns)) {
			for (i = 0; i < w->nheld; i++)
				worker_add_active(w, w->held[i]);
			w->nheld = 0;
		}
		for (i = 0; n > 0 && i < (unsigned int)n; i++) {
			struct worker_ref ref = {
				.slot = (uint32_t)(evs[i].data.u64 >> 32),
				.gen = (uint32_t)evs[i].data.u64,
			};
			struct pw_queue *pq;

			if (ref.slot == WORKER_SRC_STOP)
				return NULL;
			if (ref.slot >= WORKER_SRCS)
				continue;
			pq = &worker_pq[ref.slot];
			if (worker_src_get(ref) && pq->armed_at)
				worker_pq_woken(pq, mark);
			worker_add_active(w, ref);
		}

		for (i = 0; i < w->nactive; i++) {
			struct worker_ref ref = w->active[i];
			const struct worker_src *s = worker_src_get(ref);
			struct pw_queue *pq = &worker_pq[ref.slot];

			if (!s) {	/* removed: forget it */
				w->active[i--] = w->active[--w->nactive];
				continue;
			}
			until = 0;
			due = 0;
			done = worker_turn(s, &until, &due);
			if (unlikely(due))
				worker_timed_set(w, ref, due);
			if (done) {
				work = true;
				pq->burst += done;
				/* Its dry spell ended: timed at the pass's
				 * end, with the clock read there anyway.
				 */
				if (unlikely(pq->dry_since)) {
					if (nwoke < WORKER_WOKE_MAX)
						woke_slot[nwoke++] = ref.slot;
					else
						worker_pq_work(pq, now_ns());
				}
			} else if (until) {
				held++;
			} else if (!pq->dry_since) {
				pq->dry_since = pq->poll_since = mark;
				pq->woken = false;
				pw_busy_end(pq);
			}
		}
		if (work) {
			t = now_ns();
			for (i = 0; i < nwoke; i++)
				worker_pq_work(&worker_pq[woke_slot[i]], t);
			worker_timed_run(w, t);
			/* One writer: a plain add, stored whole for ctl. */
			__atomic_store_n(&w->busy_ns, w->busy_ns + (t - mark),
					 __ATOMIC_RELAXED);
			mark = t;
			w->dry_read = 0;
			staged = false;
			continue;
		}

		/* The first dry pass after work: the ports get ready for
		 * their next frame (port_ops.stage) while nothing waits.
		 */
		if (!staged) {
			for (i = 0; i < w->nactive; i++) {
				const struct worker_src *s =
					worker_src_get(w->active[i]);

				if (s)
					worker_stage_src(s);
			}
			staged = true;
		}

		/* A whole pass found nothing: each source is polled on
		 * within its own window (pollwin.h), then armed; with none
		 * left active the next pass sleeps.  Arming closes the
		 * race with a peer that queued work just before: a source
		 * that reports work on arming stays active.
		 */
		if (!worker_dry_read(w, &dry_passes, &mark, &t)) {
			/* Looking again at once would only pull the guest's
			 * avail index line away from the guest writing it.
			 */
			for (i = 0; i < WORKER_SPIN_PAUSES; i++)
				__builtin_ia32_pause();
			continue;
		}
		worker_timed_run(w, t);
		pw_contend_sample(&w->contend, t, w->poll_ns);
		worker_windows(w, t, held);
		if (w->nactive)
			for (i = 0; i < WORKER_SPIN_PAUSES; i++)
				__builtin_ia32_pause();
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
		__atomic_store_n(&workers[i].running, true, __ATOMIC_SEQ_CST);
	}
	/* Settled (worker_settle()) before the control thread serves ctl. */
	for (i = 0; i < worker_count; i++) {
		const struct timespec ms = { .tv_nsec = 1000000 };
		unsigned int t;

		for (t = 0; t < 1000; t++) {
			if (__atomic_load_n(&workers[i].tid, __ATOMIC_ACQUIRE))
				break;
			nanosleep(&ms, NULL);
		}
	}
	return 0;
}

/**
 * worker_count_get() - number of workers
 * Return: as created by worker_init()
 */
unsigned int worker_count_get(void)
{
	return worker_count;
}

/**
 * worker_info_get() - what ctl shows of worker @i
 * @i:		worker number
 * @info:	filled in (racy reads of the worker's own counters)
 * Return: false if there is no worker @i
 * Context: control thread
 */
bool worker_info_get(unsigned int i, struct worker_info *info)
{
	const struct worker *w = &workers[i];

	if (i >= worker_count)
		return false;
	info->tid = __atomic_load_n(&w->tid, __ATOMIC_RELAXED);
	info->cpu = __atomic_load_n(&w->cpu, __ATOMIC_RELAXED);
	info->sources = __atomic_load_n(&w->nfds, __ATOMIC_RELAXED);
	info->passes = __atomic_load_n(&w->pass, __ATOMIC_RELAXED);
	info->asleep = __atomic_load_n(&w->asleep, __ATOMIC_RELAXED);
	info->busy_ns = __atomic_load_n(&w->busy_ns, __ATOMIC_RELAXED);
	info->start_ns = __atomic_load_n(&w->start_ns, __ATOMIC_RELAXED);
	info->poll_ns = __atomic_load_n(&w->poll_ns, __ATOMIC_RELAXED);
	info->lost_ns = __atomic_load_n(&w->contend.lost_ns, __ATOMIC_RELAXED);
	info->stall_pm = __atomic_load_n(&w->contend.stall_pm,
					 __ATOMIC_RELAXED);
	info->lost_pm = __atomic_load_n(&w->contend.lost_pm, __ATOMIC_RELAXED);
	info->backoffs = __atomic_load_n(&w->contend.backoffs,
					 __ATOMIC_RELAXED);
	info->backoff = pw_backoff(&w->contend, now_ns());
	return true;
}

/**
 * worker_src_list() - which worker owns each source queue of @p
 * @p:		port
 * @out:	filled with (queue, worker), in slot order
 * @max:	room in @out
 * Return: entries filled
 * Context: control thread, which alone writes the table: exact
 */
unsigned int worker_src_list(const struct port *p,
			     struct worker_src_info *out, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < WORKER_SRCS && n < max; i++) {
		const struct pw_queue *pq = &worker_pq[i];
		struct worker_src_info *o = &out[n];
		unsigned int mode;

		if (!worker_srcs[i].live || worker_srcs[i].port != p)
			continue;
		mode = __atomic_load_n(&pq->mode, __ATOMIC_RELAXED);
		o->q = worker_srcs[i].q;
		o->worker = worker_srcs[i].worker;
		o->window_ns = __atomic_load_n(&pq->window_ns, __ATOMIC_RELAXED);
		if (pw_fixed_us() >= 0) {
			mode = PW_FIXED;
			o->window_ns = (uint32_t)pw_fixed_us() * 1000;
		} else if (pw_backoff(&workers[o->worker].contend, now_ns())) {
			mode = PW_BACKOFF;
		}
		o->mode = pw_mode_name(mode);
		o->target_ns = pq->target_ns;
		o->poll_ns = __atomic_load_n(&pq->poll_ns, __ATOMIC_RELAXED);
		o->sleep_ns = __atomic_load_n(&pq->sleep_ns, __ATOMIC_RELAXED);
		o->sleeps = __atomic_load_n(&pq->sleeps, __ATOMIC_RELAXED);
		o->wakeups = __atomic_load_n(&pq->wakeups, __ATOMIC_RELAXED);
		o->hits = __atomic_load_n(&pq->hits, __ATOMIC_RELAXED);
		o->armed = __atomic_load_n(&pq->armed_at, __ATOMIC_RELAXED) != 0;
		o->busy_x16 = __atomic_load_n(&pq->busy_avg, __ATOMIC_RELAXED);
		pw_hist_pm(pq, o->gaps_pm);
		n++;
	}
	return n;
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
		__atomic_store_n(&workers[i].running, false, __ATOMIC_SEQ_CST);
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
static unsigned int worker_pick(void)
{
	return worker_next++ % (worker_count ? worker_count : 1);
}

/**
 * worker_quiesce() - wait until every worker has finished its pass
 *
 * The caller has unpublished something first (a source's @live, a port's
 * @up and @in_use, with seq_cst stores).  A worker that begins a pass
 * after that cannot see it (its pass count and every such load are
 * seq_cst); so once each running worker has begun a new pass, or is seen
 * asleep between passes, none is still inside a turn or a delivery that
 * began with the old state.  A pass is one budget per active source:
 * microseconds, at worst the eventfd watchdog's 25 ms (efd.c).
 *
 * Context: control thread, never a worker (it would wait for itself)
 */
void worker_quiesce(void)
{
	struct timespec ts = { .tv_nsec = 20000 };
	uint64_t seen[WORKERS_MAX];
	unsigned int i;

	for (i = 0; i < worker_count; i++)
		seen[i] = __atomic_load_n(&workers[i].pass, __ATOMIC_SEQ_CST);
	for (i = 0; i < worker_count; i++) {
		struct worker *w = &workers[i];

		while (__atomic_load_n(&w->running, __ATOMIC_SEQ_CST) &&
		       !__atomic_load_n(&w->asleep, __ATOMIC_SEQ_CST) &&
		       __atomic_load_n(&w->pass, __ATOMIC_SEQ_CST) == seen[i])
			nanosleep(&ts, NULL);
	}
}

/**
 * worker_src_find() - the live slot of (@p, @q)
 * @p:		port
 * @q:		queue
 * Return: slot index, or -1
 */
static int worker_src_find(const struct port *p, uint32_t q)
{
	unsigned int i;

	for (i = 0; i < WORKER_SRCS; i++)
		if (worker_srcs[i].live && worker_srcs[i].port == p &&
		    worker_srcs[i].q == q)
			return (int)i;
	return -1;
}

/**
 * worker_target_us() - the latency target of @p's sources
 * @p:		port
 * Return: its latency=, else --latency-us
 */
static unsigned int worker_target_us(const struct port *p)
{
	const struct port_spec *spec = switch_port_spec(p->idx);

	if (spec && spec->latency_us != PORT_LATENCY_UNSET)
		return spec->latency_us;
	return worker_latency_us;
}

/**
 * worker_src_add() - have a worker own source queue @q of @p
 * @p:		port
 * @q:		its queue number, passed to its rx_* ops
 * @fd:		fd that tells of work
 * @kind:	PORT_SRC_LEVEL: polled while readable; PORT_SRC_KICK: a
 *		front end's kick eventfd, edge-triggered and never read
 *		(reading an fd the front end shares is an operation it
 *		could make block, efd.c).  Every write to an eventfd is an
 *		edge; EPOLLOUT is asked for too, so registration itself
 *		reports one event and the queue gets a turn at once.
 *
 * Return: the worker's number, or -errno (-EEXIST: already owned,
 *	   -ENOSPC: table full)
 * Context: control thread
 */
int worker_src_add(struct port *p, uint32_t q, int fd,
		   enum port_src_kind kind)
{
	struct epoll_event ev = {
		.events = kind == PORT_SRC_KICK ?
			  EPOLLIN | EPOLLOUT | EPOLLET : EPOLLIN,
	};
	struct worker_src *s = NULL;
	unsigned int i, w;

	if (worker_src_find(p, q) >= 0)
		return -EEXIST;
	for (i = 0; i < WORKER_SRCS; i++) {
		if (!worker_srcs[i].port) {
			s = &worker_srcs[i];
			break;
		}
	}
	if (!s)
		return -ENOSPC;
	w = worker_pick();
	if (w >= worker_count)
		return -EINVAL;
	s->port = p;
	s->q = q;
	s->fd = fd;
	s->worker = w;
	pw_queue_init(&worker_pq[i], worker_target_us(p));
	__atomic_store_n(&s->live, true, __ATOMIC_SEQ_CST);
	ev.data.u64 = worker_ref_key(i, s->gen);
	if (epoll_ctl(workers[w].epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int rc = -errno;

		__atomic_store_n(&s->live, false, __ATOMIC_SEQ_CST);
		s->port = NULL;	/* never in an epoll set: nobody saw it */
		return rc;
	}
	__atomic_fetch_add(&workers[w].nfds, 1, __ATOMIC_RELAXED);
	return (int)w;
}

/**
 * worker_src_del() - take source queue @q of @p from its worker
 * @p:		port
 * @q:		queue
 *
 * When this returns, no turn at it runs and none will: the slot is
 * unpublished, its fd out of the epoll set, and every worker has finished
 * the pass it was in.  Nothing if (@p, @q) is not a source.
 *
 * Context: control thread
 */
void worker_src_del(struct port *p, uint32_t q)
{
	int i = worker_src_find(p, q);
	struct worker_src *s;

	if (i < 0)
		return;
	s = &worker_srcs[i];
	__atomic_store_n(&s->live, false, __ATOMIC_SEQ_CST);
	/* The fd may be closed already: epoll forgot it then. */
	epoll_ctl(workers[s->worker].epfd, EPOLL_CTL_DEL, s->fd, NULL);
	__atomic_fetch_sub(&workers[s->worker].nfds, 1, __ATOMIC_RELAXED);
	worker_quiesce();
	__atomic_store_n(&s->gen, s->gen + 1, __ATOMIC_RELAXED);
	s->port = NULL;
}

static const struct port_host worker_host = {
	.src_add = worker_src_add,
	.src_del = worker_src_del,
	.quiesce = worker_quiesce,
	.set_up = switch_set_up,
	.lenders = switch_lenders,
	.mac_walk = switch_mac_walk,
	.mac_max = FDB_SIZE,
	.lend_rx = switch_lend_rx,
	.lend_flows = switch_lend_flows,
	.forward = switch_forward,
	.find = switch_port_find,
	.inject = switch_inject,
};
