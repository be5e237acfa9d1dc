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

#include <stdint.h>

#include "port/port.h"

#define WORKERS_MAX	16

/*
 * worker_init()	create @n workers (not started), polling window @poll_us;
 *			the workers become the ports' port_host.
 * worker_start()	start the threads.
 * worker_stop()	stop and join them (shutdown).
 * worker_src_add()	a worker owns source queue @q of @p from now on
 *			(struct port_host): its number, or -errno.
 * worker_src_del()	take it back; no turn at it runs when this returns.
 * worker_quiesce()	wait until every worker has finished its pass.
 */
int worker_init(unsigned int n, unsigned int poll_us);
int worker_start(void);
void worker_stop(void);
int worker_src_add(struct port *p, uint32_t q, int fd,
		   enum port_src_kind kind);
void worker_src_del(struct port *p, uint32_t q);
void worker_quiesce(void);

#endif /* VHOSTD_WORKER_H */
