/* SPDX-License-Identifier: GPL-2.0-or-later */
/* worker.h - datapath threads
 *
 * Each worker is a run-to-completion loop over the source queues it owns
 * (guest TX queues, tun queues).  A queue's fd firing gives the queue a
 * turn (port.h: rx_begin, rx_burst and rx_done, rx_end); a turn that used
 * its whole budget gets another next pass, after every other ready source
 * had its turn.  Ports reach these through struct port_host.
 */
#ifndef VHOSTD_WORKER_H
#define VHOSTD_WORKER_H

#include <stdbool.h>
#include <stdint.h>

#include "pollwin.h"
#include "port/port.h"

#define WORKERS_MAX	16

/**
 * struct worker_info - what ctl shows of a worker
 * @tid:	kernel thread id (0 before the thread runs)
 * @cpu:	CPU it is pinned to, -1 if not pinned (or pinning failed)
 * @sources:	source queues it owns
 * @passes:	passes of its loop so far
 * @asleep:	blocked in epoll_wait() now
 * @busy_ns:	time spent in passes that found work, ns (worker.c says
 *		how it is measured)
 * @start_ns:	now_ns() when the thread began its loop (0 before)
 * @poll_ns:	time it polled dry sources (awake, nothing found)
 * @lost_ns:	polling time in which it did not run (pollwin.h)
 * @stall_pm:	CPU pressure over its last decided interval, per mille
 * @lost_pm:	its lost time over its polling time then, per mille
 * @backoffs:	times it turned polling off for CPU contention
 * @backoff:	polling is off for contention now
 */
struct worker_info {
	int tid;
	int cpu;
	unsigned int sources;
	uint64_t passes;
	bool asleep;
	uint64_t busy_ns;
	uint64_t start_ns;
	uint64_t poll_ns;
	uint64_t lost_ns;
	uint32_t stall_pm;
	uint32_t lost_pm;
	uint64_t backoffs;
	bool backoff;
};

/**
 * struct worker_src_info - one source queue of a port and its owner (ctl)
 * @q:		the port's queue number (as port_src_add() was given it)
 * @worker:	the worker that owns it
 * @mode:	its polling mode (pw_mode_name())
 * @window_ns:	its poll window now
 * @target_ns:	its latency target
 * @poll_ns:	time it was polled dry
 * @sleep_ns:	time it was armed
 * @sleeps:	windows that ran out (it was armed)
 * @wakeups:	events that woke it from armed
 * @hits:	dry spells a poll ended (work found, no kick needed)
 * @armed:	armed now
 * @busy_x16:	frames per busy period, decayed average, x16
 * @gaps_pm:	its idle gaps by log2 of microseconds, per mille
 *		(pw_hist_pm())
 */
struct worker_src_info {
	uint32_t q;
	unsigned int worker;
	const char *mode;
	uint32_t window_ns;
	uint32_t target_ns;
	uint64_t poll_ns;
	uint64_t sleep_ns;
	uint64_t sleeps;
	uint64_t wakeups;
	uint64_t hits;
	bool armed;
	uint32_t busy_x16;
	uint16_t gaps_pm[PW_BUCKETS];
};

/*
 * worker_init()	create @n workers (not started), a fixed polling window
 *			@poll_us (-1: adaptive, pollwin.h) and the sources'
 *			default latency target @latency_us,
 *			worker i pinned to @cpus[i % @ncpus] (@ncpus 0: not
 *			pinned); the workers become the ports' port_host.
 * worker_start()	start the threads.
 * worker_stop()	stop and join them (shutdown).
 * worker_src_add()	a worker owns source queue @q of @p from now on
 *			(struct port_host): its number, or -errno.
 * worker_src_del()	take it back; no turn at it runs when this returns.
 * worker_quiesce()	wait until every worker has finished its pass.
 * worker_count_get()	number of workers.
 * worker_info_get()	worker @i's state, racy reads (ctl); false past the
 *			last worker.
 * worker_src_list()	the source queues of @p and their workers, up to
 *			@max in @out (ctl "show"); how many.
 */
int worker_init(unsigned int n, int poll_us, unsigned int latency_us,
		const uint16_t *cpus, unsigned int ncpus);
int worker_start(void);
void worker_stop(void);
int worker_src_add(struct port *p, uint32_t q, int fd,
		   enum port_src_kind kind);
void worker_src_del(struct port *p, uint32_t q);
void worker_quiesce(void);
unsigned int worker_count_get(void);
bool worker_info_get(unsigned int i, struct worker_info *info);
unsigned int worker_src_list(const struct port *p,
			     struct worker_src_info *out, unsigned int max);

#endif /* VHOSTD_WORKER_H */
