/* SPDX-License-Identifier: GPL-2.0-or-later */
/* worker.h - datapath threads
 *
 * Each worker is a run-to-completion loop over the fds registered with
 * it (vhost kick eventfds, TAP fds).  A readable fd means "call the
 * port's poll op with this cookie"; a poll that used its whole budget is
 * called again next pass, after every other ready source had its turn.
 * Registration is epoll_ctl() on the worker's epoll fd, safe from the
 * control thread at any time.
 */
#ifndef VHOSTD_WORKER_H
#define VHOSTD_WORKER_H

#include <stdint.h>

#define WORKERS_MAX	16

/*
 * worker_init()	create @n workers (not started), polling window @poll_us.
 * worker_start()	start the threads.
 * worker_stop()	stop and join them (shutdown).
 * worker_pick()	worker index for a new queue (round robin).
 * worker_fd_add()	poll @fd on worker @w: when readable, call
 *			ops->poll(port @port_idx, @cookie).
 * worker_kick_add()	the same for a front end's kick eventfd: edge-
 *			triggered, never read, polled once at once.
 * worker_fd_del()	stop polling @fd on worker @w.  After it returns,
 *			the worker may still finish a poll it already began
 *			for this fd: ports guard with their own state.
 */
int worker_init(unsigned int n, unsigned int poll_us);
int worker_start(void);
void worker_stop(void);
unsigned int worker_pick(void);
int worker_fd_add(unsigned int w, int fd, unsigned int port_idx,
		  uint32_t cookie);
int worker_kick_add(unsigned int w, int fd, unsigned int port_idx,
		    uint32_t cookie);
int worker_fd_del(unsigned int w, int fd);

#endif /* VHOSTD_WORKER_H */
