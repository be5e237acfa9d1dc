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

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "../net/pkt.h"
#include "../conf.h"
#include "../log.h"
#include "../stats.h"

/* Frames per burst: per rx_burst, per xmit. */
#define PORT_BURST	32

struct port;

/**
 * enum port_src_kind - how a source queue's fd tells a worker of work
 * @PORT_SRC_LEVEL:	readable while frames wait (a tun queue)
 * @PORT_SRC_KICK:	a front end's kick eventfd: watched edge-triggered
 *			and never read (efd.c), one turn given at once
 */
enum port_src_kind {
	PORT_SRC_LEVEL,
	PORT_SRC_KICK,
};

/**
 * struct port_turn - one worker's turn at one source queue
 * @budget:	frames, or their worth, the turn may process (in)
 * @done:	frames processed so far, dropped ones included
 * @dry:	the queue has nothing more now
 *
 * A turn is rx_begin, then rx_burst and rx_done until the budget is
 * spent or the queue runs dry, then rx_end (struct port_ops).
 */
struct port_turn {
	unsigned int budget;
	unsigned int done;
	bool dry;
};

/**
 * struct port_queue_stats - one queue pair's counters, as ctl shows them
 * @rx_packets:	frames the port took from its peer on the pair (a guest's
 *		TX queue), as the port's rx_packets
 * @rx_bytes:	their bytes
 * @tx_packets:	frames delivered on the pair (a guest's RX queue)
 * @tx_bytes:	their bytes
 */
struct port_queue_stats {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t tx_packets;
	uint64_t tx_bytes;
};

/**
 * struct port_peer - what a port and its peer agreed on, as ctl shows it
 * @connected:	a peer is attached; without one the rest is what the port
 *		offers alone (@pairs, @offered) and zeros
 * @offered:	feature bits the port offers its peer
 * @features:	feature bits the peer acked (a subset of @offered and of
 *		whatever the protocol adds, e.g. vhost-user's bit 30)
 * @protocol:	protocol feature bits the peer acked, 0 where none
 * @pairs:	queue pairs the port offers
 * @pairs_enabled: pairs the peer enabled, both queues of each
 * @pairs_started: pairs the datapath serves now, both queues of each
 * @ring:	ring layout agreed ("split", "packed"), NULL while none is
 */
struct port_peer {
	bool connected;
	uint64_t offered;
	uint64_t features;
	uint64_t protocol;
	unsigned int pairs;
	unsigned int pairs_enabled;
	unsigned int pairs_started;
	const char *ring;
};

/**
 * struct port_ops - a port type
 * @type:	name used in --port specs ("vhost-user", "tap")
 * @priv_size:	bytes of per-port private state (port->priv)
 * @open:	create the port from @spec (control thread, start-up or
 *		ctl).  Return 0 or -errno; on failure nothing is left open.
 *		Source queues are handed to the workers with port_src_add().
 * @close:	undo @open (control thread); the port is already out of
 *		forwarding and every worker has finished the pass it was in
 *		(port_quiesce()): no xmit or turn runs any more.
 * @xmit:	switch -> port: deliver @n frames (any worker thread, may
 *		run concurrently with other workers delivering to the same
 *		port: serialise internally).  Copies what it accepts; the
 *		frames' buffers are untouched and belong to the caller.
 *		Return how many were delivered; the port counts the rest as
 *		drops by reason.  Never blocks.
 * @rx_begin:	worker, a turn at source queue @q begins: make it ready
 *		to read (a guest's TX queue: its lock, its kicks off) and
 *		return true; false if there is nothing to read now (stopped,
 *		broken): the turn ends without @rx_end.
 *		A source that can suppress its notifications (a guest's TX
 *		kicks) leaves them off: the worker keeps giving it turns
 *		until @arm.
 * @rx_burst:	worker, phase one: describe up to @max frames of @q in
 *		@pkts, in place (nothing copied: a struct pkt points into
 *		the port's or the guest's buffers), add every frame taken
 *		off the queue to @turn->done (dropped ones too), set
 *		@turn->dry when the queue ran out.  @turn->budget is work as
 *		much as frames: a port whose frames cost more (long
 *		descriptor chains, big frames) ends the turn earlier by
 *		setting @turn->done to @turn->budget.  The worker hands the
 *		frames to switch_forward().  Return the frames in @pkts; 0
 *		only with @turn->done grown or @turn->dry set.
 * @rx_done:	worker, phase two: every destination has copied the last
 *		burst: give its buffers back (not yet published).  May be
 *		NULL.
 * @rx_end:	worker, the turn ends: publish what @rx_done gave back,
 *		once, release what @rx_begin took, notify the peer.
 * @arm:	worker: the source ran dry and the worker is about to sleep:
 *		turn notifications back on and return true if work arrived
 *		meanwhile (then the worker polls again instead of sleeping).
 *		NULL for sources whose fd is simply level-triggered (TAP).
 * @stage:	worker: the source @q ran dry and the worker has a moment:
 *		get ready for the next frame *to* this port (a guest's next
 *		RX buffer, looked up and warmed) so that the delivery does
 *		not wait for it.  Must not block; may do nothing.  NULL if
 *		there is nothing to prepare (TAP).
 * @timer:	control thread, once a second: housekeeping (may be NULL)
 * @queue_stats: control thread (ctl): fill up to @max entries of @qs,
 *		one per queue pair, and return how many (may be NULL: no
 *		per-queue counters).  Racy reads of the workers' counts.
 * @peer:	control thread (ctl): fill @pp with what the port and its
 *		peer negotiated (may be NULL: nothing is negotiated).
 *		Reads control-thread state only: exact, not racy
 * @feature_names: the names of @peer's @offered and @features bits,
 *		[bit] = name, NULL where unnamed; 64 entries, or NULL
 * @protocol_names: the same for @peer's @protocol bits
 * @counters:	the type's counters beyond stats_common: NULL-terminated
 *		list of tables (stats.h), or NULL.  ctl shows a port these
 *		and the common ones, nothing else
 */
struct port_ops {
	const char *type;
	unsigned int priv_size;
	int (*open)(struct port *p, const struct conf_port *spec);
	void (*close)(struct port *p);
	unsigned int (*xmit)(struct port *p, struct pkt *const *pkts,
			     unsigned int n);
	bool (*rx_begin)(struct port *p, uint32_t q, struct port_turn *turn);
	unsigned int (*rx_burst)(struct port *p, uint32_t q, struct pkt **pkts,
				 unsigned int max, struct port_turn *turn);
	void (*rx_done)(struct port *p, uint32_t q, struct port_turn *turn);
	void (*rx_end)(struct port *p, uint32_t q, struct port_turn *turn);
	bool (*arm)(struct port *p, uint32_t q);
	void (*stage)(struct port *p, uint32_t q);
	void (*timer)(struct port *p);
	unsigned int (*queue_stats)(const struct port *p,
				    struct port_queue_stats *qs,
				    unsigned int max);
	void (*peer)(const struct port *p, struct port_peer *pp);
	const char *const *feature_names;
	const char *const *protocol_names;
	const struct stats_table *const *counters;
};

/**
 * struct port_host - what ports ask of the layers above them
 * @src_add:	have a worker own source queue @q of @p, woken by @fd
 *		(@kind); return the worker's number or -errno
 * @src_del:	the worker gives @q up; when this returns no turn at it
 *		runs or will run
 * @quiesce:	return once every worker has finished the pass it was in
 * @set_up:	@p starts or stops taking frames; stopping forgets the MACs
 *		learned on it
 *
 * Set once by the switch before any port opens (switch_init()); ports
 * call it through the port_*() helpers below, from the control thread.
 */
struct port_host {
	int (*src_add)(struct port *p, uint32_t q, int fd,
		       enum port_src_kind kind);
	void (*src_del)(struct port *p, uint32_t q);
	void (*quiesce)(void);
	void (*set_up)(struct port *p, bool up);
};

extern const struct port_host *port_host;

/**
 * struct port - one switch port
 * @idx:	index in the switch's table (stable while in use)
 * @in_use:	slot holds a port
 * @up:		forwarding enabled: the switch delivers to this port only
 *		while set (written by the port's control-side code)
 * @name:	user-visible name
 * @ops:	type
 * @stats:	counters, one slot per counting thread (see stats.h):
 *		write through port_ctr(), read by ctl through the tables
 *		of stats.h
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

extern const struct port_ops port_vhost_ops;
extern const struct port_ops port_tap_ops;

const struct port_ops *port_ops_find(const char *type);

/* port_src_add() - see struct port_host: a worker number, or -errno
 * (-ENODEV with no host: nothing runs ports' queues, e.g. unit tests)
 */
static inline int port_src_add(struct port *p, uint32_t q, int fd,
			       enum port_src_kind kind)
{
	return port_host ? port_host->src_add(p, q, fd, kind) : -ENODEV;
}

/* port_src_del() - see struct port_host */
static inline void port_src_del(struct port *p, uint32_t q)
{
	if (port_host)
		port_host->src_del(p, q);
}

/* port_quiesce() - see struct port_host; nothing to wait for without */
static inline void port_quiesce(void)
{
	if (port_host)
		port_host->quiesce();
}

/* port_set_up() - see struct port_host */
static inline void port_set_up(struct port *p, bool up)
{
	if (port_host)
		port_host->set_up(p, up);
	else
		__atomic_store_n(&p->up, up, __ATOMIC_SEQ_CST);
}

#endif /* VHOSTD_PORT_H */
