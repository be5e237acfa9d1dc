/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vu_dev.h - one vhost-user device: connection, protocol state, queues
 *
 * The control thread owns a vu_dev and runs the vhost-user protocol on it
 * (vhost_user.c reads and checks messages, vu_msg.c applies them to the
 * state vu_dev.c keeps).  The datapath (a worker, through the port that
 * embeds the device) only ever touches a queue while holding that
 * queue's @lock, and only while the queue is @started.  The control
 * thread takes the same lock before it changes anything a started queue
 * uses: ring addresses, the memory table (every queue lock, TX queues
 * first, see doc/architecture.md), call fd, the MTU.
 *
 * This layer includes nothing above it.  The port that embeds a device
 * learns of queues starting and stopping through struct vu_dev_ops.
 */
#ifndef VHOSTD_VU_DEV_H
#define VHOSTD_VU_DEV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "../lock.h"
#include "../log.h"
#include "dirty_log.h"
#include "guest_mem.h"
#include "vhost_user.h"
#include "virtq.h"

#define VU_MAX_QUEUE_PAIRS	16	/* queue pairs a device may have */
#define VU_MAX_QUEUES		(2 * VU_MAX_QUEUE_PAIRS)
#define VU_MAX_FDS		VHOST_USER_MAX_FDS
#define VU_NAME_MAX		32
#define VU_ERR_MAX		128	/* struct vu_dev @last_err */

struct vu_dev;

/**
 * struct vu_dev_ops - what the embedding port is told
 * @queue_start:	queue @q just became runnable (mapped, kick fd set,
 *			enabled, memory table present); start polling its
 *			kick fd (vu_dev_kick_fd()).  Called from the control
 *			thread without the queue lock.
 * @queue_stop:		queue @q stopped being runnable (it is already
 *			marked stopped under its lock, so the datapath will
 *			not use it); stop polling its kick fd before this
 *			returns, because the fd is closed right after.
 *			Called from the control thread without the lock.
 * @queue_release:	give back (virtq_unpop()) any chains of queue @q the
 *			port popped and still holds unpushed, because the
 *			ring is about to stop or be remapped: after this the
 *			avail index reported to the front end (GET_VRING_BASE)
 *			is right and no pointer into old mappings is kept.
 *			Called from the control thread WITH the queue lock
 *			held, while the queue is still started; may be NULL.
 * @announce:		the front end asks (SEND_RARP, after a migration)
 *			that the network learn the guest's MAC @mac is
 *			here now.  Control thread, no lock; may be NULL.
 */
struct vu_dev_ops {
	void (*queue_start)(struct vu_dev *dev, unsigned int q);
	void (*queue_stop)(struct vu_dev *dev, unsigned int q);
	void (*queue_release)(struct vu_dev *dev, unsigned int q);
	void (*announce)(struct vu_dev *dev, const uint8_t mac[6]);
};

/**
 * struct vu_queue - one virtqueue of a device and what guards it
 * @lock:	taken by the datapath once per burst, by control to change
 *		anything below
 * @vq:		ring state (virtq.h)
 * @kick_fd:	eventfd the guest kicks, -1 if none (or polling mode)
 * @err_fd:	eventfd for errors, -1 if none
 * @num_set:	SET_VRING_NUM seen
 * @addr_set:	SET_VRING_ADDR seen
 * @enabled:	SET_VRING_ENABLE state
 * @started:	handed to the datapath; the datapath checks it under @lock
 * @call_users:	datapath threads between vu_queue_call_take() and _give():
 *		they write @vq.call_fd with the lock released, so control
 *		waits for 0 (vu_queue_call_quiesce()) before closing it
 */
struct vu_queue {
	struct vlock lock;
	struct virtq vq;
	int kick_fd;
	int err_fd;
	bool num_set;
	bool addr_set;
	bool enabled;
	bool started;
	unsigned int call_users;
};

/**
 * struct vu_dev_stats - protocol counters (control thread only)
 * @msgs:		messages handled
 * @msg_errors:		messages rejected (malformed, unknown, out of order)
 * @connects:		connections accepted or made
 * @disconnects:	connections dropped (peer gone, error, broken ring)
 */
struct vu_dev_stats {
	uint64_t msgs;
	uint64_t msg_errors;
	uint64_t connects;
	uint64_t disconnects;
};

/**
 * struct vu_dev - a vhost-user device
 * @name:		for logs
 * @fd:			connected socket, -1 when no front end
 * @features_offered:	device feature bits (GET_FEATURES), set by the port
 * @features:		acked feature bits (SET_FEATURES)
 * @protocol_features:	acked protocol feature bits
 * @mtu:		MTU the front end gave the guest (NET_SET_MTU, sent
 *			only when the guest acked VIRTIO_NET_F_MTU), 68..65535;
 *			0 = unset.  Written by control with every queue
 *			lock held, so the datapath may read it under its
 *			queue lock; cleared on detach and RESET_OWNER
 * @pairs:		queue pairs this device has, 1..VU_MAX_QUEUE_PAIRS
 *			(GET_QUEUE_NUM; set by the port after vu_dev_init(),
 *			default 1): rings beyond them do not exist
 * @owner:		SET_OWNER seen
 * @broken:		the datapath found a ring violation; set with the
 *			queue lock held, read by control, cleared on detach
 * @mem:		memory table, see locking above
 * @dlog:		the migration dirty log (SET_LOG_BASE), replaced like
 *			@mem under every queue lock; each queue's @vq.log
 *			points here while VHOST_F_LOG_ALL is acked
 * @q:			queues: even = RX (device writes), odd = TX
 * @ops:		embedding port's callbacks
 * @opaque:		embedding port's pointer, for @ops
 * @stats:		protocol counters
 * @err_logged:		a protocol error was logged on this connection
 *			(later ones are only counted; control thread only)
 * @log:		rate limit of this device's log lines: the embedding
 *			port's (set by it after vu_dev_init()); NULL = the
 *			global source
 * @mem_faults:		accesses to guest memory the front end took away
 *			(a shrunk file), contained by guest_fault.c; any
 *			thread adds (atomically), control reads and clears
 *			on detach
 * @rx:			the message being received (control thread only):
 *			the socket is non-blocking, a message may come in
 *			pieces
 * @last_err:		the last protocol error or violation, one line, for
 *			ctl "show": why the last front end was dropped.
 *			Control thread only; kept across connections
 * @last_err_ns:	now_ns() when @last_err was set, 0 = never
 * @call_slow:		a write to one of this device's call fds blocked
 *			(efd.c): every later interrupt, on this connection
 *			or the next, goes through efd's slow lane.  Set
 *			once, atomically, by a worker; never cleared
 */
struct vu_dev {
	char name[VU_NAME_MAX];
	int fd;
	uint64_t features_offered;
	uint64_t features;
	uint64_t protocol_features;
	uint16_t mtu;
	unsigned int pairs;
	bool owner;
	bool broken;
	struct guest_mem mem;
	struct dirty_log dlog;
	struct vu_queue q[VU_MAX_QUEUES];
	const struct vu_dev_ops *ops;
	void *opaque;
	struct vu_dev_stats stats;
	bool err_logged;
	struct log_src *log;
	uint32_t mem_faults;
	struct vhost_user_rx rx;
	char last_err[VU_ERR_MAX];
	uint64_t last_err_ns;
	bool call_slow;
};

/*
 * Contract (kernel-doc on each function in the .c files):
 * vu_dev_init()	once at port creation: no connection, locks made.
 * vu_dev_fini()	once at port removal: detach, destroy locks.
 * vu_dev_attach()	a front end connected on @fd (accepted or connected);
 *			protocol state starts from scratch.
 * vu_dev_handle()	read what came of a message from @fd (with SCM_RIGHTS
 *			fds), never waiting; once it is whole, check it,
 *			apply it, reply if needed.  0 on success or while
 *			the message is incomplete, -errno
 *			if the connection must be dropped (peer closed,
 *			malformed message, violation): the caller then calls
 *			vu_dev_detach().  Never aborts on peer input.
 * vu_dev_check_stall()	control, once a second: -ETIMEDOUT if a message
 *			began more than a second ago and is still
 *			incomplete (the caller drops the peer).
 * vu_dev_detach()	stop every queue (ops->queue_stop), unmap memory,
 *			close fds and the socket; the device waits for the
 *			next front end.
 * vu_dev_note_err()	control: record @last_err (printf-style).
 * vu_dev_mark_broken()	datapath, queue lock held: note a guest violation
 *			and shut the socket down so the control thread sees
 *			the hang-up and detaches.
 * vu_queue_call_take()	datapath, queue lock held, after flushing used
 *			entries: the call fd to signal if the guest wants an
 *			interrupt (-1 if not).
 * vu_queue_call_owed()	the same for an interrupt the guest wanted earlier
 *			and was held back (tx-irq-us=): -1 only without a
 *			call fd.
 * vu_queue_call_give()	datapath, lock released: signal it (efd.c), never
 *			for long; a blocked write breaks the device.
 * vu_queue_call_quiesce() control, before closing a call fd swapped out:
 *			wait for writes begun outside the lock.
 * vu_dev_fault_init()	once at start-up: a SIGBUS in a device's guest
 *			memory (a shrunk file) breaks that device only.
 * vu_dev_hdr_len()	virtio-net header length implied by @features
 *			(12 with VERSION_1 or MRG_RXBUF, else 10).
 * vu_dev_pairs_enabled() control: queue pairs whose two rings the front
 *			end has enabled (both counted as vu_dev.c starts
 *			rings: always, without PROTOCOL_FEATURES).
 * vu_dev_pairs_started() control: queue pairs whose two rings are started
 *			(in the datapath's hands) now.
 */
void vu_dev_init(struct vu_dev *dev, const char *name,
		 uint64_t features_offered, const struct vu_dev_ops *ops,
		 void *opaque);
void vu_dev_fini(struct vu_dev *dev);
void vu_dev_attach(struct vu_dev *dev, int fd);
int vu_dev_handle(struct vu_dev *dev);
int vu_dev_check_stall(struct vu_dev *dev, uint64_t now);
void vu_dev_detach(struct vu_dev *dev);
void vu_dev_note_err(struct vu_dev *dev, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void vu_dev_mark_broken(struct vu_dev *dev);
int vu_queue_call_take(struct vu_queue *q) REQUIRES(q->lock);
int vu_queue_call_owed(struct vu_queue *q) REQUIRES(q->lock);
int vu_queue_call_give(struct vu_dev *dev, struct vu_queue *q, int fd)
	EXCLUDES(q->lock);
void vu_queue_call_quiesce(struct vu_queue *q) EXCLUDES(q->lock);
int vu_dev_fault_init(void);
unsigned int vu_dev_pairs_enabled(const struct vu_dev *dev);
unsigned int vu_dev_pairs_started(const struct vu_dev *dev);

/* Names of the virtio feature bits ([bit] = "MRG_RXBUF") and of the
 * vhost-user protocol feature bits, as the specifications spell them
 * without their prefixes; NULL where a bit has no name here.
 */
extern const char *const vu_feature_names[64];

/* VHOST_F_LOG_ALL: the vhost layer logs every write it makes into guest
 * memory while a migration asks for it (dirty_log.h); offered on every
 * device, in the vhost feature space above virtio's device bits.
 */
#define VU_F_LOG_ALL		(1ull << 26)
extern const char *const vu_protocol_feature_names[64];

/**
 * vu_dev_hdr_len() - virtio-net header size the guest uses
 * @dev:	device
 *
 * Inline: the datapath asks once per burst.
 *
 * Return: 12 with VIRTIO_F_VERSION_1 or VIRTIO_NET_F_MRG_RXBUF, else 10
 */
static inline unsigned int vu_dev_hdr_len(const struct vu_dev *dev)
{
	if (dev->features & ((1ull << 32) | (1ull << 15)))
		return 12;
	return 10;
}

#endif /* VHOSTD_VU_DEV_H */
