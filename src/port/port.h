/* SPDX-License-Identifier: GPL-2.0-or-later */
/* port.h - the interface every port type implements
 *
 * A port is one attachment to the switch: a vhost-user guest, a TAP
 * device, later AF_XDP and VXLAN.  Ports live in a fixed table owned by
 * the switch and are referred to by index across threads.  Each type
 * supplies a struct port_ops; the members' contracts are written here
 * once, and every implementation follows them.
 */
#ifndef VHOSTD_PORT_H
#define VHOSTD_PORT_H

#include <stdbool.h>
#include <stdint.h>

#include "../net/pkt.h"
#include "../conf.h"
#include "../log.h"
#include "../stats.h"

struct port;

/**
 * struct port_ops - a port type
 * @type:	name used in --port specs ("vhost-user", "tap")
 * @priv_size:	bytes of per-port private state (port->priv)
 * @open:	create the port from @spec (control thread, start-up or
 *		ctl).  Return 0 or -errno; on failure nothing is left open.
 * @close:	undo @open (control thread); the port is already removed
 *		from forwarding and no worker polls it.
 * @xmit:	switch -> port: deliver @n frames (any worker thread, may
 *		run concurrently with other workers delivering to the same
 *		port: serialise internally).  Copies what it accepts; the
 *		frames' buffers are untouched and belong to the caller.
 *		Return how many were delivered; the port counts the rest as
 *		drops by reason.  Never blocks.
 * @poll:	worker: the fd registered for @cookie became readable (or
 *		the worker polls): pull up to @budget frames from the port,
 *		hand them to switch_forward(), give their buffers back.
 *		@budget is work as much as frames: a port whose frames
 *		cost more (port_vhost: long descriptor chains, big frames)
 *		stops earlier.  Return frames processed; not 0 means "call
 *		again".
 *		A source that can suppress its notifications (a guest's TX
 *		kicks) leaves them off here: the worker keeps polling it
 *		until @arm.
 * @arm:	worker: the source ran dry and the worker is about to sleep:
 *		turn notifications back on and return true if work arrived
 *		meanwhile (then the worker polls again instead of sleeping).
 *		NULL for sources whose fd is simply level-triggered (TAP).
 * @stage:	worker: the source @cookie polled ran dry and the worker
 *		has a moment: get ready for the next frame *to* this port
 *		(a guest's next RX buffer, looked up and warmed) so that
 *		the delivery does not wait for it.  Must not block; may do
 *		nothing.  NULL if there is nothing to prepare (TAP).
 * @timer:	control thread, once a second: housekeeping (may be NULL)
 */
struct port_ops {
	const char *type;
	unsigned int priv_size;
	int (*open)(struct port *p, const struct conf_port *spec);
	void (*close)(struct port *p);
	unsigned int (*xmit)(struct port *p, struct pkt *const *pkts,
			     unsigned int n);
	unsigned int (*poll)(struct port *p, uint32_t cookie,
			     unsigned int budget);
	bool (*arm)(struct port *p, uint32_t cookie);
	void (*stage)(struct port *p, uint32_t cookie);
	void (*timer)(struct port *p);
};

/**
 * struct port - one switch port
 * @idx:	index in the switch's table (stable while in use)
 * @in_use:	slot holds a port
 * @up:		forwarding enabled: the switch delivers to this port only
 *		while set (written by the port's control-side code)
 * @name:	user-visible name
 * @ops:	type
 * @stats:	counters, one slot per counting thread (see stats.h):
 *		write through port_ctr(), read with port_stat()
 * @log:	rate limit of this port's log lines (log.h), any thread
 * @priv:	type-specific state, @ops->priv_size bytes
 */
struct port {
	unsigned int idx;
	bool in_use;
	bool up;
	char name[CONF_NAME_MAX];
	const struct port_ops *ops;
	struct port_stats stats[STATS_SLOTS];
	struct log_src log;
	void *priv;
};

/**
 * port_ctr() - the calling thread's counters of @p
 * @p:		port
 * Return: the slot to stats_add() into
 */
static inline struct port_stats *port_ctr(struct port *p)
{
	return &p->stats[stats_slot];
}

/* port_stat() - counter @field of @p summed over the threads */
#define port_stat(p, field)						\
	stats_sum((p)->stats, offsetof(struct port_stats, field))

extern const struct port_ops port_vhost_ops;
extern const struct port_ops port_tap_ops;

const struct port_ops *port_ops_find(const char *type);

#endif /* VHOSTD_PORT_H */
