// SPDX-License-Identifier: GPL-2.0-or-later
/* pollwin.c - per-queue polling windows from idle gaps, a latency target
 *	       and the host's wake-up cost; a worker's contention backoff
 *
 * DOC: Theory of Operation
 *
 * When a source queue runs dry its worker may poll it (notifications
 * stay off, so the peer does not kick and vhostd does not wake: on this
 * project's 2-core machine a polled 64 B round trip takes ~1 us, a slept
 * one 9-55 us) or arm it and sleep.  Polling is worth its CPU only when
 * the next frame comes soon.  So each queue keeps a histogram of its own
 * idle gaps -- from the turn that found it dry to the turn that found
 * work again, whether it was polled or slept in between -- in log2
 * buckets of microseconds, decayed so that the last few hundred gaps
 * count.
 *
 * The window: a frame that comes while its queue sleeps waits about one
 * sleep/wake cycle, C (pw_calibrate(): a cross-CPU eventfd wake-up from
 * idle, measured at start-up; ~52 us on this nested VM, ~1.5 us when
 * both threads share a CPU).  With a window W the expected delay per gap
 * is (1 - F(W)) * C, F the fraction of gaps shorter than W.  A queue
 * takes the smallest bucket bound W that brings this to its latency
 * target T (--latency-us, a port's latency=): T >= C sleeps at once;
 * otherwise F(W) >= 1 - T/C.  Where no W up to PW_CAP_NS reaches that,
 * the queue polls PW_CAP_NS if that still catches at least half of its
 * gaps, and sleeps at once if not (long gaps: polling would mostly burn
 * the window for nothing).  The choice is remade every PW_RECHOOSE gaps.
 * A slept gap is a cycle longer than a polled one, so a queue that
 * sleeps sees longer gaps than it would polling; the cap bounds what
 * that can cost, and a queue whose polled gaps are short learns it as
 * soon as it polls.
 *
 * Contention (struct pw_contend): polling is free only on a CPU nobody
 * else wants.  Every PW_SAMPLE_NS a polling worker reads the kernel's
 * CPU pressure (PSI, /proc/pressure/cpu "some": time in which at least
 * one task was runnable and waited for a CPU).  Over an interval in
 * which it polled at least PW_POLL_MIN_NS, the interval's stall rate
 * feeds a decayed average (a quarter per interval: one interval is a few
 * waits, the average is the load); at PW_STALL_PM per mille, or when
 * the worker itself lost PW_LOST_PM of its polling time (its clock
 * jumped between two dry looks: it did not run), it turns polling off
 * for its queues for a hold that doubles while this repeats
 * (PW_HOLD_MIN_NS up to PW_HOLD_MAX_NS) and halves after clean
 * intervals; the interval after a hold polls again and decides again.
 * Without PSI the lost time alone decides, at PW_LOST_ONLY_PM.
 *
 * Why these (doc/performance.md, "Issue 15", has the tables): with two
 * TCG guests on this 2-CPU host, PSI read 360-500 per mille under
 * guest -> guest TCP and 160-195 under request/response, 6-24 with CPUs
 * to spare (a vbench round trip); two, three and four spinning threads
 * on two CPUs 1-4, 501 and 928.  The worker's own lost polling time did
 * not separate: 40-50 per mille under TCP but 100-110 under polled
 * request/response, whose vCPUs preempt the worker briefly and often.
 * The worker's run delay (schedstat) separates as well as PSI (350-490
 * under TCP, 30-105 under request/response) but its file cannot be
 * opened once the sandbox is on; involuntary switches count preemptions,
 * not their length.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "pollwin.h"
#include "util.h"

#define PW_UNIT			16	/* histogram weight of one gap */
#define PW_WEIGHT_MAX		4096	/* halve the histogram past it */
#define PW_RECHOOSE		8	/* gaps between two choices */
#define PW_LEARN_GAPS		8	/* gaps before the first choice */
#define PW_SAMPLE_NS		20000000ull	/* pressure sample interval */
#define PW_SAMPLE_MAX_NS	100000000ull	/* longer: a new baseline */
#define PW_POLL_MIN_NS		1000000ull	/* polling that can be blamed */
#define PW_STALL_PM		250	/* contended: CPU pressure, decayed */
#define PW_LOST_PM		200	/* contended: polling time lost */
#define PW_LOST_ONLY_PM		50	/* the same, where PSI cannot be read */
#define PW_HOLD_MIN_NS		100000000ull
#define PW_HOLD_MAX_NS		5000000000ull
#define PW_WAKE_DEFAULT_NS	10000u	/* if calibration fails */

static uint32_t pw_wake = PW_WAKE_DEFAULT_NS;
static int pw_fixed = -1;
static int pw_stall_fd = -1;

/**
 * pw_init() - set the host's wake cost and the mode
 * @wake_ns:	a sleep/wake cycle, ns (pw_calibrate()), 0: the default
 * @fixed_us:	--poll-us N, or -1: adaptive
 * @stall_fd:	/proc/pressure/cpu, opened at start-up, or -1
 * Context: start-up, before the workers run
 */
void pw_init(uint32_t wake_ns, int fixed_us, int stall_fd)
{
	pw_wake = wake_ns ? wake_ns : PW_WAKE_DEFAULT_NS;
	pw_fixed = fixed_us;
	pw_stall_fd = stall_fd;
}

/**
 * pw_wake_ns() - the sleep/wake cost the windows are chosen with
 * Return: ns
 */
uint32_t pw_wake_ns(void)
{
	return pw_wake;
}

/**
 * pw_fixed_us() - the fixed window
 * Return: --poll-us N, or -1 when windows are adaptive
 */
int pw_fixed_us(void)
{
	return pw_fixed;
}

/**
 * pw_queue_init() - a fresh queue: no history, first window PW_FIRST_NS
 * @q:		state to reset
 * @target_us:	its latency target, microseconds
 */
void pw_queue_init(struct pw_queue *q, uint32_t target_us)
{
	memset(q, 0, sizeof(*q));
	q->target_ns = (uint32_t)MIN((uint64_t)target_us * 1000, UINT32_MAX);
	q->window_ns = PW_FIRST_NS;
	q->mode = PW_LEARN;
}

/**
 * pw_bucket() - the histogram bucket of a gap
 * @gap_ns:	gap
 * Return: 0 for gaps under 1 us, k for [2^(k-1), 2^k) us, the last
 *	   bucket for everything longer
 */
static unsigned int pw_bucket(uint64_t gap_ns)
{
	uint64_t us = gap_ns / 1000;
	unsigned int k;

	if (!us)
		return 0;
	k = 64 - (unsigned int)__builtin_clzll(us);
	return MIN(k, PW_BUCKETS - 1);
}

/**
 * pw_bound_ns() - the upper bound of bucket @k
 * @k:		bucket
 * Return: 2^k microseconds, in ns
 */
static uint64_t pw_bound_ns(unsigned int k)
{
	return 1000ull << k;
}

/**
 * pw_bulk() - whether the queue streams (enum pw_mode, PW_BULK)
 * @q:		queue
 * Return: true if most gaps are under 1 us or wake-ups find batches
 */
static bool pw_bulk(const struct pw_queue *q)
{
	return (uint32_t)q->hist[0] * 2 > q->weight ||
	       q->wake_burst >= PW_BULK_FRAMES * 16;
}

/**
 * pw_busy_end() - the queue ran dry; a busy period a wake-up began counts
 * @q:		queue
 *
 * The frames a wake-up found tell a stream from request/response: a
 * round trip's wake finds one or two, a stream's finds what came while
 * the worker woke.
 */
void pw_busy_end(struct pw_queue *q)
{
	uint32_t b = MIN(q->burst, 1024u) * 16;

	if (q->burst_woken)
		q->wake_burst = q->wake_burst - q->wake_burst / 8 + b / 8;
	__atomic_store_n(&q->busy_avg, q->busy_avg - q->busy_avg / 8 + b / 8,
			 __ATOMIC_RELAXED);
	q->burst = 0;
	q->burst_woken = false;
}

/**
 * pw_set() - a queue's new window and mode (ctl reads them racily)
 * @q:		queue
 * @window_ns:	window
 * @mode:	enum pw_mode
 */
static void pw_set(struct pw_queue *q, uint32_t window_ns, uint8_t mode)
{
	__atomic_store_n(&q->window_ns, window_ns, __ATOMIC_RELAXED);
	__atomic_store_n(&q->mode, mode, __ATOMIC_RELAXED);
}

/**
 * pw_choose() - pick the queue's window from its histogram (see the DOC)
 * @q:		queue
 */
static void pw_choose(struct pw_queue *q)
{
	uint64_t need, cum = 0, cap_cum = 0, cap_bound = 0;
	unsigned int k;

	if (q->target_ns >= pw_wake) {
		pw_set(q, 0, PW_SLEEP);
		return;
	}
	if (pw_bulk(q)) {
		pw_set(q, 0, PW_BULK);
		return;
	}
	/* Gaps to catch: weight * (1 - T/C), rounded up. */
	need = ((uint64_t)q->weight * (pw_wake - q->target_ns) + pw_wake - 1) /
	       pw_wake;
	for (k = 0; k < PW_BUCKETS && pw_bound_ns(k) <= PW_CAP_NS; k++) {
		cum += q->hist[k];
		if (cum >= need) {
			pw_set(q, (uint32_t)pw_bound_ns(k), PW_POLL);
			return;
		}
		cap_cum = cum;
		cap_bound = pw_bound_ns(k);
	}
	if (cap_cum * 2 >= q->weight && cap_bound) {
		pw_set(q, (uint32_t)cap_bound, PW_POLL);
		return;
	}
	pw_set(q, 0, PW_SLEEP);
}

/**
 * pw_gap() - the queue found work @gap_ns after it ran dry
 * @q:		queue
 * @gap_ns:	the idle gap
 */
void pw_gap(struct pw_queue *q, uint64_t gap_ns)
{
	unsigned int k;

	k = pw_bucket(gap_ns);
	/* The only writer; ctl reads the buckets (pw_hist_pm()). */
	__atomic_store_n(&q->hist[k], (uint16_t)(q->hist[k] + PW_UNIT),
			 __ATOMIC_RELAXED);
	q->weight += PW_UNIT;
	if (q->weight > PW_WEIGHT_MAX) {
		q->weight = 0;
		for (k = 0; k < PW_BUCKETS; k++) {
			__atomic_store_n(&q->hist[k], (uint16_t)(q->hist[k] >> 1),
					 __ATOMIC_RELAXED);
			q->weight += q->hist[k];
		}
	}
	if (++q->seen < (q->mode == PW_LEARN ? PW_LEARN_GAPS : PW_RECHOOSE))
		return;
	q->seen = 0;
	pw_choose(q);
}

/**
 * pw_hist_pm() - a queue's gap histogram, per mille of its weight
 * @q:		queue (its worker writes it meanwhile)
 * @pm:		out: bucket k holds gaps under 2^k us (k = 0: under 1 us; the
 *		last, everything longer), per mille, rounded down; all 0
 *		while no gap has been seen
 *
 * Sums its own copy of the buckets, so a racy read still adds up.
 */
void pw_hist_pm(const struct pw_queue *q, uint16_t pm[PW_BUCKETS])
{
	uint32_t h[PW_BUCKETS], sum = 0;
	unsigned int k;

	for (k = 0; k < PW_BUCKETS; k++) {
		h[k] = __atomic_load_n(&q->hist[k], __ATOMIC_RELAXED);
		sum += h[k];
	}
	for (k = 0; k < PW_BUCKETS; k++)
		pm[k] = sum ? (uint16_t)(h[k] * 1000ull / sum) : 0;
}

/**
 * pw_window() - how long the queue may be polled dry now
 * @q:		queue
 * @c:		its worker's contention state
 * @now:	clock, ns
 * Return: ns from @q->dry_since; 0: arm it at once
 */
uint32_t pw_window(struct pw_queue *q, const struct pw_contend *c,
		   uint64_t now)
{
	if (pw_fixed >= 0)
		return (uint32_t)MIN((uint64_t)pw_fixed * 1000, UINT32_MAX);
	if (pw_backoff(c, now))
		return 0;
	return q->window_ns;
}

/**
 * pw_backoff() - whether a contention backoff holds
 * @c:		a worker's state (its own, or ctl's racy look)
 * @now:	clock, ns
 * Return: true while polling is off for contention
 */
bool pw_backoff(const struct pw_contend *c, uint64_t now)
{
	return now < __atomic_load_n(&c->until_ns, __ATOMIC_RELAXED);
}

/**
 * pw_stall_read() - the system's CPU pressure, "some" total
 * @fd:		/proc/pressure/cpu
 * Return: microseconds in which some task waited for a CPU, or -1
 */
int64_t pw_stall_read(int fd)
{
	char buf[256], *p;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (strncmp(buf, "some ", 5))
		return -1;
	p = strstr(buf, "total=");
	if (!p || p > strchr(buf, '\n'))
		return -1;
	return (int64_t)strtoull(p + 6, NULL, 10);
}

/**
 * pw_contend_sample() - a pressure sample, and a backoff if it is due
 * @c:		the worker's state
 * @now:	clock, ns (a dry pass's read)
 * @poll_ns:	the worker's polling time so far
 *
 * See the DOC: a decision only over an interval of PW_SAMPLE_NS up to
 * PW_SAMPLE_MAX_NS in which the worker polled PW_POLL_MIN_NS or more;
 * a longer interval (the worker slept) only starts a new one.
 */
void pw_contend_sample(struct pw_contend *c, uint64_t now, uint64_t poll_ns)
{
	uint64_t dt = now - c->last_ns, dpoll;
	int64_t stall;
	bool hot;

	if (c->last_ns && dt < PW_SAMPLE_NS)
		return;
	stall = pw_stall_read(pw_stall_fd);
	dpoll = poll_ns - c->last_poll_ns;
	if (c->last_ns && dt <= PW_SAMPLE_MAX_NS && dpoll >= PW_POLL_MIN_NS) {
		uint64_t lost = c->lost_ns - c->last_lost_ns;

		uint32_t lost_pm = (uint32_t)MIN(lost * 1000 / dpoll, 1000);

		/* ctl reads these racily: stored whole. */
		__atomic_store_n(&c->lost_pm, lost_pm, __ATOMIC_RELAXED);
		if (stall >= 0 && (uint64_t)stall >= c->last_stall_us) {
			uint32_t pm = (uint32_t)MIN(((uint64_t)stall -
						     c->last_stall_us) *
						    1000000 / dt, 1000);

			__atomic_store_n(&c->stall_pm, pm, __ATOMIC_RELAXED);
			/* One interval's stall is a few waits; the decayed
			 * rate is the load.
			 */
			c->stall_avg = c->stall_avg - c->stall_avg / 4 + pm / 4;
		}
		hot = stall >= 0 ? c->stall_avg >= PW_STALL_PM ||
				   lost_pm >= PW_LOST_PM :
				   lost_pm >= PW_LOST_ONLY_PM;
		/* A fixed window is measured, never changed. */
		hot = hot && pw_fixed < 0;
		if (!c->hold_ns)
			c->hold_ns = PW_HOLD_MIN_NS;
		if (hot) {
			__atomic_store_n(&c->until_ns, now + c->hold_ns,
					 __ATOMIC_RELAXED);
			c->hold_ns = MIN(c->hold_ns * 2, PW_HOLD_MAX_NS);
			__atomic_store_n(&c->backoffs, c->backoffs + 1,
					 __ATOMIC_RELAXED);
		} else if (c->hold_ns > PW_HOLD_MIN_NS) {
			c->hold_ns /= 2;
		}
	}
	c->last_ns = now;
	c->last_stall_us = stall >= 0 ? (uint64_t)stall : 0;
	c->last_poll_ns = poll_ns;
	c->last_lost_ns = c->lost_ns;
}

/**
 * pw_mode_name() - a mode as ctl shows it
 * @mode:	enum pw_mode
 * Return: static text
 */
const char *pw_mode_name(unsigned int mode)
{
	static const char *const names[] = {
		[PW_LEARN] = "learn", [PW_POLL] = "poll", [PW_SLEEP] = "sleep",
		[PW_FIXED] = "fixed", [PW_BACKOFF] = "backoff",
		[PW_BULK] = "bulk",
	};

	return mode < ARRAY_SIZE(names) ? names[mode] : "?";
}

/**
 * struct pw_cal - the calibration's two threads
 * @ep:		epoll set the sleeper waits in
 * @kick:	eventfd the waker writes
 * @done:	eventfd the sleeper answers on
 * @cpu:	CPU the sleeper runs on, -1: unpinned
 * @stamp:	clock when the waker wrote @kick
 * @lat:	wake-up latencies, ns
 * @rounds:	entries in @lat
 */
struct pw_cal {
	int ep;
	int kick;
	int done;
	int cpu;
	uint64_t stamp;
	uint32_t lat[64];
	unsigned int rounds;
};

/**
 * pw_pin() - pin the calling thread to @cpu
 * @cpu:	CPU, -1: leave it
 */
static void pw_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	(void)sched_setaffinity(0, sizeof(set), &set);
}

/**
 * pw_cal_sleeper() - wait in epoll_wait() @rounds times, timing each wake
 * @arg:	struct pw_cal
 * Return: NULL
 */
static void *pw_cal_sleeper(void *arg)
{
	struct pw_cal *c = arg;
	unsigned int i;

	pw_pin(c->cpu);
	for (i = 0; i < c->rounds; i++) {
		struct epoll_event ev;
		eventfd_t v;

		if (epoll_wait(c->ep, &ev, 1, 1000) != 1)
			break;
		c->lat[i] = (uint32_t)MIN(now_ns() -
					  __atomic_load_n(&c->stamp,
							  __ATOMIC_ACQUIRE),
					  UINT32_MAX);
		(void)eventfd_read(c->kick, &v);
		(void)eventfd_write(c->done, 1);
	}
	return NULL;
}

static int pw_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/**
 * pw_calibrate() - what a sleeping worker takes to wake, on this host
 * @rounds:	samples, at most 64
 *
 * A thread sleeps in epoll_wait() on the first CPU the caller may use;
 * this one, on another online CPU, waits 1 ms (the sleeper's CPU goes
 * idle, as a worker's does), stamps the clock and writes the eventfd:
 * the sleeper's latency from the stamp to its return is a worker's
 * wake-up as a guest's kick causes it.  With one CPU both share it.
 * The caller's affinity is put back.
 *
 * Return: the median, ns; 0 if it could not be measured
 * Context: start-up (threads, affinity, sleeps)
 */
uint32_t pw_calibrate(unsigned int rounds)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct pw_cal c = { .ep = -1, .kick = -1, .done = -1, .cpu = -1 };
	const struct timespec ms = { .tv_nsec = 1000000 };
	cpu_set_t old;
	bool pinned;
	uint32_t med = 0;
	pthread_t t;
	unsigned int i, n = 0;
	int me = -1;

	c.rounds = MIN(rounds, ARRAY_SIZE(c.lat));
	pinned = !sched_getaffinity(0, sizeof(old), &old);
	/* The sleeper where a worker would run, the waker on any other
	 * online CPU (a guest's vCPU is rarely the worker's): the first
	 * one that takes this thread.
	 */
	if (pinned) {
		long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

		for (i = 0; i < CPU_SETSIZE && c.cpu < 0; i++)
			if (CPU_ISSET(i, &old))
				c.cpu = (int)i;
		for (i = 0; ncpu > 1 && i < (unsigned int)MIN(ncpu, CPU_SETSIZE) &&
			    me < 0; i++) {
			cpu_set_t one;

			if ((int)i == c.cpu)
				continue;
			CPU_ZERO(&one);
			CPU_SET(i, &one);
			if (!sched_setaffinity(0, sizeof(one), &one))
				me = (int)i;
		}
		if (me < 0)
			c.cpu = -1;	/* one CPU: both share it */
	}
	c.ep = epoll_create1(EPOLL_CLOEXEC);
	c.kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	c.done = eventfd(0, EFD_CLOEXEC);
	if (c.ep < 0 || c.kick < 0 || c.done < 0 ||
	    epoll_ctl(c.ep, EPOLL_CTL_ADD, c.kick, &ev) < 0 ||
	    pthread_create(&t, NULL, pw_cal_sleeper, &c))
		goto out;
	for (n = 0; n < c.rounds; n++) {
		eventfd_t v;

		nanosleep(&ms, NULL);
		__atomic_store_n(&c.stamp, now_ns(), __ATOMIC_RELEASE);
		if (eventfd_write(c.kick, 1) < 0 || eventfd_read(c.done, &v) < 0)
			break;
	}
	pthread_join(t, NULL);
	if (pinned)
		(void)sched_setaffinity(0, sizeof(old), &old);
	if (n) {
		qsort(c.lat, n, sizeof(c.lat[0]), pw_cmp_u32);
		med = c.lat[n / 2];
	}
out:
	if (c.ep >= 0)
		close(c.ep);
	if (c.kick >= 0)
		close(c.kick);
	if (c.done >= 0)
		close(c.done);
	return med;
}
