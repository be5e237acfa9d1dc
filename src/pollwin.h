/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pollwin.h - how long each source queue busy-polls after it runs dry
 *
 * A worker polls a dry queue (notifications off: the peer need not kick,
 * vhostd need not wake) only while that is likely to pay: each queue
 * keeps a histogram of its own idle gaps and picks the window that would
 * have caught enough of them to meet its latency target, given what a
 * sleep/wake cycle costs on this host; a worker whose polling takes CPU
 * from tasks that wait for one backs off (struct pw_contend).  pollwin.c
 * has the reasoning and the numbers.
 */
#ifndef VHOSTD_POLLWIN_H
#define VHOSTD_POLLWIN_H

#include <stdbool.h>
#include <stdint.h>

#define PW_BUCKETS		20	/* gaps < 1 us, < 2 us, ... >= 2^18 us */
#define PW_CAP_NS		256000u	/* the longest adaptive window */
#define PW_FIRST_NS		50000u	/* the window before a queue has a
					 * history: the old --poll-us default
					 */
#define PW_TARGET_DEFAULT_US	0	/* --latency-us */
#define PW_BULK_FRAMES		16	/* a wake-up's batch that says bulk */
#define PW_TARGET_MAX_US	1000000u

/**
 * enum pw_mode - why a queue's window is what it is (ctl)
 * @PW_LEARN:	too few gaps seen yet: PW_FIRST_NS
 * @PW_POLL:	its gaps say polling meets the target, or most gaps are
 *		caught within PW_CAP_NS
 * @PW_SLEEP:	sleeping meets the target, or its gaps are too long
 * @PW_FIXED:	--poll-us N
 * @PW_BACKOFF:	the worker found its polling takes CPU others wait for
 * @PW_BULK:	it streams: most gaps are under a microsecond (vhostd is
 *		only faster than its producer) or a wake-up finds a batch
 *		of PW_BULK_FRAMES or more waiting; it sleeps at once and
 *		takes its frames in batches
 */
enum pw_mode {
	PW_LEARN,
	PW_POLL,
	PW_SLEEP,
	PW_FIXED,
	PW_BACKOFF,
	PW_BULK,
};

/**
 * struct pw_queue - one source queue's polling state, owned by its worker
 * @dry_since:	when its turns began finding nothing (ns), 0 while it has
 *		work: its gap starts there
 * @poll_since:	since when it is polled dry (ns), 0 while armed or busy
 * @armed_at:	when it was armed (ns), 0 while it is polled
 * @woken:	an event, not a poll, ended this dry spell's sleep
 * @burst:	frames of the busy period now running
 * @burst_woken: that busy period began with a wake-up
 * @wake_burst:	frames a wake-up found, decayed average, x16
 * @busy_avg:	frames per busy period, polled or woken, decayed average,
 *		x16 (ctl)
 * @window_ns:	the window its history gives (PW_FIXED: the fixed one)
 * @target_ns:	its latency target
 * @hist:	decayed counts of idle gaps, 16 per gap, by log2 of the
 *		gap in microseconds (ctl reads them: relaxed atomic stores)
 * @weight:	sum of @hist
 * @seen:	gaps since the window was last chosen
 * @mode:	enum pw_mode
 * @poll_ns:	time it was dry and still polled (ctl; the worker writes
 *		these with relaxed atomic stores)
 * @sleep_ns:	time it was armed
 * @sleeps:	dry spells that ended in arming: its window ran out
 * @wakeups:	events that made an armed queue active again
 * @hits:	dry spells that ended in work while it was polled: a kick
 *		and a wake-up saved
 */
struct pw_queue {
	uint64_t dry_since;
	uint64_t poll_since;
	uint64_t armed_at;
	bool woken;
	bool burst_woken;
	uint32_t burst;
	uint32_t wake_burst;
	uint32_t busy_avg;
	uint32_t window_ns;
	uint32_t target_ns;
	uint16_t hist[PW_BUCKETS];
	uint32_t weight;
	uint16_t seen;
	uint8_t mode;
	uint64_t poll_ns;
	uint64_t sleep_ns;
	uint64_t sleeps;
	uint64_t wakeups;
	uint64_t hits;
};

/**
 * struct pw_contend - a worker's view of CPU contention
 * @last_ns:	clock at the last pressure sample, 0: none yet
 * @last_stall_us: the system's CPU "some" stall total then (PSI)
 * @last_poll_ns: the worker's polling time then
 * @last_lost_ns: the worker's lost polling time then
 * @until_ns:	polling is off until then (a backoff)
 * @hold_ns:	the next backoff's length
 * @stall_pm:	stall rate of the last decided interval, per mille of
 *		wall time (ctl)
 * @lost_pm:	lost time over polling time in it, per mille (ctl)
 * @stall_avg:	@stall_pm decayed over the intervals (a quarter each)
 * @backoffs:	backoffs so far (ctl)
 * @lost_ns:	polling time the worker did not run: the gaps between two
 *		of its clock reads in a dry stretch beyond PW_GAP_NS
 */
struct pw_contend {
	uint64_t last_ns;
	uint64_t last_stall_us;
	uint64_t last_poll_ns;
	uint64_t last_lost_ns;
	uint64_t until_ns;
	uint64_t hold_ns;
	uint32_t stall_pm;
	uint32_t lost_pm;
	uint32_t stall_avg;
	uint64_t backoffs;
	uint64_t lost_ns;
};

#define PW_GAP_NS		20000u	/* a dry stretch's clock read this
					 * late: the worker did not run
					 */

/*
 * pw_init()		the host's sleep/wake cost (measured, ns), a fixed
 *			window (--poll-us N) or adaptive (@fixed_us < 0),
 *			and the pressure file (-1: none).
 * pw_wake_ns()		the measured cost; pw_fixed_us() -1 or the fixed.
 * pw_queue_init()	a new source queue, latency target @target_us.
 * pw_gap()		the queue had work again @gap_ns after it ran dry.
 * pw_busy_end()	it ran dry after a busy period of @frames.
 * pw_window()		its window now, ns (0: arm at once), given the
 *			worker's contention state.
 * pw_contend_sample()	at a dry clock read: take a pressure sample if
 *			one is due, and back off if polling stole CPU.
 * pw_backoff()		whether a backoff of @c holds at @now (any thread).
 * pw_calibrate()	measure a cross-CPU eventfd wake-up from idle, the
 *			median of @rounds, ns (start-up: it sleeps and
 *			creates a thread).
 * pw_stall_read()	the CPU pressure file's "some" total, us, or -1.
 * pw_mode_name()	enum pw_mode as ctl shows it.
 * pw_hist_pm()		the gap histogram as per mille of its weight, for
 *			ctl (any thread; a racy but untorn copy).
 */
void pw_init(uint32_t wake_ns, int fixed_us, int stall_fd);
uint32_t pw_wake_ns(void);
int pw_fixed_us(void);
void pw_queue_init(struct pw_queue *q, uint32_t target_us);
void pw_gap(struct pw_queue *q, uint64_t gap_ns);
void pw_busy_end(struct pw_queue *q);
uint32_t pw_window(struct pw_queue *q, const struct pw_contend *c,
		   uint64_t now);
void pw_contend_sample(struct pw_contend *c, uint64_t now, uint64_t poll_ns);
bool pw_backoff(const struct pw_contend *c, uint64_t now);
uint32_t pw_calibrate(unsigned int rounds);
int64_t pw_stall_read(int fd);
const char *pw_mode_name(unsigned int mode);
void pw_hist_pm(const struct pw_queue *q, uint16_t pm[PW_BUCKETS]);

#endif /* VHOSTD_POLLWIN_H */
