// SPDX-License-Identifier: GPL-2.0-or-later
/* vu_dev.c - vhost-user device state: queues, locks, attach/detach
 *
 * DOC: Theory of Operation
 *
 * vhost_user.c reads and checks messages, vu_dev_handle() here decides
 * what a failure costs the session and replies, and the handlers in
 * vu_msg.c change device state through the functions below (shared via
 * vu_internal.h).  The interesting state is per queue: a queue is
 * *started* (owned by the datapath) exactly while it is runnable:
 *
 *   num set && addr set && kick fd && enabled && memory table non-empty
 *   && the ring maps (virtq_map) && device not broken
 *
 * "enabled" is SET_VRING_ENABLE's value once VHOST_USER_F_PROTOCOL_FEATURES
 * is acked, and always true otherwise (vhost-user spec, "Ring states").
 * After every message that touches one of these inputs, vu_queue_update()
 * compares and starts or stops the queue.  Starting maps the ring under
 * the queue lock, sets @started, drops the lock, then calls
 * ops->queue_start.  Stopping clears @started under the lock (the datapath
 * finishes its burst first, since it holds the lock for a whole burst),
 * drops it, then calls ops->queue_stop; only then are fds closed.
 *
 * A memory table change cannot stop the world per queue: the datapath of
 * one queue may be copying out of this device's memory into another's.
 * It takes every queue lock of the device, TX (odd) queues first, swaps
 * the table and remaps the started rings in place.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/virtio_config.h>
#include <linux/virtio_net.h>
#include <linux/virtio_ring.h>

#include "../efd.h"
#include "../log.h"
#include "../net/gso.h"
#include "../util.h"
#include "guest_fault.h"
#include "vhost_user.h"
#include "vu_dev.h"
#include "vu_internal.h"


/**
 * vu_dev_proto_err() - count a protocol error, log the first per connection
 * @dev:	device
 * @msg:	offending message (may be NULL)
 * @rc:		-errno describing the failure
 * @what:	short description
 */
void vu_dev_proto_err(struct vu_dev *dev, const struct vhost_user_msg *msg,
		      int rc, const char *what)
{
	uint32_t req = msg ? msg->hdr.request : 0;

	dev->stats.msg_errors++;
	if (msg)
		vu_dev_note_err(dev, "%s: request %u (%s): %s", what, req,
				vhost_user_req_name(req), strerror(-rc));
	else
		vu_dev_note_err(dev, "%s: %s", what, strerror(-rc));
	if (dev->err_logged) {
		src_debug(dev->log, "%s: vhost-user: %s: request %u (%s): %s",
			  dev->name, what, req, vhost_user_req_name(req),
			  strerror(-rc));
		return;
	}
	dev->err_logged = true;
	src_warn(dev->log, "%s: vhost-user: %s: request %u (%s): %s (further "
		 "errors on this connection are only counted)", dev->name,
		 what, req, vhost_user_req_name(req), strerror(-rc));
}

/**
 * vu_dev_note_err() - record why the session went wrong, for ctl "show"
 * @dev:	device
 * @fmt:	printf format: one line (cut at VU_ERR_MAX - 1 bytes)
 *
 * Context: control thread
 */
void vu_dev_note_err(struct vu_dev *dev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dev->last_err, sizeof(dev->last_err), fmt, ap);
	va_end(ap);
	dev->last_err_ns = now_ns();
}

/**
 * vu_dev_broken_queue() - the first queue the datapath found broken
 * @dev:	device, marked broken
 * Return: its index, or -1 (a fault in guest memory, not a ring)
 *
 * Context: control thread; each queue's lock taken in turn (the datapath
 * sets the ring's @broken under it)
 */
static int vu_dev_broken_queue(struct vu_dev *dev)
{
	unsigned int i;
	bool broken;

	for (i = 0; i < 2 * dev->pairs; i++) {
		vlock_lock(&dev->q[i].lock);
		broken = dev->q[i].vq.broken;
		vlock_unlock(&dev->q[i].lock);
		if (broken)
			return (int)i;
	}
	return -1;
}

/**
 * vu_dev_lock_all() - take every queue lock, TX (odd) queues first
 * @dev:	device
 *
 * TX first: a worker forwarding from one of our TX queues holds that lock
 * while it copies out of our memory into other devices' RX queues; taking
 * TX locks first means no such copy is in flight once we hold them all.
 */
void vu_dev_lock_all(struct vu_dev *dev)
{
	unsigned int i;

	for (i = 1; i < VU_MAX_QUEUES; i += 2)
		vlock_lock(&dev->q[i].lock);
	for (i = 0; i < VU_MAX_QUEUES; i += 2)
		vlock_lock(&dev->q[i].lock);
}

/**
 * vu_dev_unlock_all() - release what vu_dev_lock_all() took, in reverse
 * @dev:	device
 */
void vu_dev_unlock_all(struct vu_dev *dev)
{
	unsigned int i;

	for (i = VU_MAX_QUEUES; i-- > 0;)
		if (!(i & 1))
			vlock_unlock(&dev->q[i].lock);
	for (i = VU_MAX_QUEUES; i-- > 0;)
		if (i & 1)
			vlock_unlock(&dev->q[i].lock);
}

/**
 * vu_queue_runnable() - whether queue @qi should be in the datapath's hands
 * @dev:	device
 * @qi:		queue index
 *
 * Return: true if every start condition except "ring maps" holds
 */
static bool vu_queue_runnable(const struct vu_dev *dev, unsigned int qi)
{
	const struct vu_queue *q = &dev->q[qi];
	bool enabled = q->enabled || !(dev->features & VU_F_PROTOCOL_FEATURES);

	return dev->fd >= 0 && q->num_set && q->addr_set && q->kick_fd >= 0 &&
	       enabled && dev->mem.nregions &&
	       !__atomic_load_n(&dev->broken, __ATOMIC_ACQUIRE);
}

/**
 * vu_queue_release() - the port gives back chains it holds on queue @qi
 * @dev:	device
 * @qi:		queue index, started
 *
 * Context: control thread, @qi's lock held
 */
static void vu_queue_release(struct vu_dev *dev, unsigned int qi)
	REQUIRES(dev->q[qi].lock)
{
	if (dev->ops && dev->ops->queue_release)
		dev->ops->queue_release(dev, qi);
}

/**
 * vu_queue_stop() - take queue @qi away from the datapath
 * @dev:	device
 * @qi:		queue index
 *
 * Context: control thread, no queue lock held
 */
void vu_queue_stop(struct vu_dev *dev, unsigned int qi)
{
	struct vu_queue *q = &dev->q[qi];
	bool was;

	vlock_lock(&dev->q[qi].lock);
	was = q->started;
	if (was)
		vu_queue_release(dev, qi);
	q->started = false;
	vlock_unlock(&dev->q[qi].lock);
	if (was && dev->ops && dev->ops->queue_stop)
		dev->ops->queue_stop(dev, qi);
}

/**
 * vu_queue_update() - start or stop queue @qi to match its state
 * @dev:	device
 * @qi:		queue index
 *
 * Context: control thread, no queue lock held
 */
void vu_queue_update(struct vu_dev *dev, unsigned int qi)
{
	struct vu_queue *q = &dev->q[qi];
	uint16_t base;
	int rc;

	if (!vu_queue_runnable(dev, qi)) {
		vu_queue_stop(dev, qi);
		return;
	}
	if (q->started)
		return;

	vlock_lock(&q->lock);
	base = q->vq.last_avail_idx;
	rc = virtq_map(&q->vq, &dev->mem);
	if (!rc)
		q->started = true;
	vlock_unlock(&q->lock);
	if (rc) {
		vu_dev_proto_err(dev, NULL, rc, "ring addresses do not map");
		return;
	}
	/* A split ring resumes from its used index (virtq_map()): said,
	 * since it means the front end's base was not what the guest saw.
	 */
	if (!q->vq.packed && q->vq.last_avail_idx != base)
		src_info(dev->log, "%s: queue %u resumes at used index %u, "
			 "not at the base %u given", dev->name, qi,
			 q->vq.last_avail_idx, base);
	src_debug(dev->log, "%s: queue %u started at avail %u", dev->name, qi,
		  q->vq.last_avail_idx);
	if (dev->ops && dev->ops->queue_start)
		dev->ops->queue_start(dev, qi);
}

/**
 * vu_dev_update_all() - vu_queue_update() on every queue, TX first
 * @dev:	device
 */
void vu_dev_update_all(struct vu_dev *dev)
{
	unsigned int i;

	for (i = 1; i < VU_MAX_QUEUES; i += 2)
		vu_queue_update(dev, i);
	for (i = 0; i < VU_MAX_QUEUES; i += 2)
		vu_queue_update(dev, i);
}

/**
 * vu_dev_mem_changed() - remap started rings after the table changed
 * @dev:	device, every queue lock held (vu_dev_lock_all())
 * @lost:	out: bit i set if started queue i no longer maps
 *
 * A ring whose memory went away is marked stopped here, under the lock;
 * the caller tells the port (vu_dev_mem_finish()) after unlocking.
 */
void vu_dev_mem_changed(struct vu_dev *dev, unsigned int *lost)
{
	unsigned int i;

	*lost = 0;
	for (i = 0; i < VU_MAX_QUEUES; i++) {
		struct vu_queue *q = &dev->q[i];

		if (!q->started)
			continue;
		/* Held chains point into the old mappings. */
		vu_queue_release(dev, i);
		if (!dev->mem.nregions || virtq_map(&q->vq, &dev->mem)) {
			q->started = false;
			*lost |= 1u << i;
		}
	}
}

/**
 * vu_dev_mem_finish() - tell the port about lost rings, start new ones
 * @dev:	device, no lock held
 * @lost:	from vu_dev_mem_changed()
 */
void vu_dev_mem_finish(struct vu_dev *dev, unsigned int lost)
{
	unsigned int i;

	for (i = 0; i < VU_MAX_QUEUES; i++)
		if ((lost & (1u << i)) && dev->ops && dev->ops->queue_stop)
			dev->ops->queue_stop(dev, i);
	vu_dev_update_all(dev);
}

/**
 * vu_dev_reset_queues() - stop every queue and forget its configuration
 * @dev:	device
 */
static void vu_dev_reset_queues(struct vu_dev *dev)
{
	unsigned int i;

	for (i = 1; i < VU_MAX_QUEUES; i += 2)
		vu_queue_stop(dev, i);
	for (i = 0; i < VU_MAX_QUEUES; i += 2)
		vu_queue_stop(dev, i);

	for (i = 0; i < VU_MAX_QUEUES; i++) {
		struct vu_queue *q = &dev->q[i];
		int call_fd;

		vlock_lock(&q->lock);
		call_fd = q->vq.call_fd;
		virtq_init(&q->vq);
		vlock_unlock(&q->lock);
		/* A worker may still be signalling the old call fd. */
		vu_queue_call_quiesce(q);
		if (call_fd >= 0)
			close(call_fd);
		if (q->kick_fd >= 0)
			close(q->kick_fd);
		if (q->err_fd >= 0)
			close(q->err_fd);
		q->kick_fd = -1;
		q->err_fd = -1;
		q->num_set = false;
		q->addr_set = false;
		q->enabled = false;
	}
}

/**
 * vu_dev_signal_err() - a broken ring: tell the front end on its error fds
 * @dev:	device, broken, before its queues are reset
 *
 * SET_VRING_ERR's purpose (QEMU reports "vhost vring error").  Bounded
 * like every eventfd write of ours (efd.c).
 */
static void vu_dev_signal_err(struct vu_dev *dev)
{
	unsigned int i;

	for (i = 0; i < VU_MAX_QUEUES; i++)
		if (dev->q[i].err_fd >= 0 && efd_signal(dev->q[i].err_fd))
			src_debug(dev->log, "%s: error fd of queue %u: not signalled",
				  dev->name, i);
}

/**
 * vu_dev_reset() - back to "just connected": no queues, memory, features, MTU
 * @dev:	device
 */
void vu_dev_reset(struct vu_dev *dev)
{
	static const struct dirty_log none;

	vu_dev_reset_queues(dev);
	vu_dev_lock_all(dev);
	guest_mem_clear(&dev->mem);
	dev->mtu = 0;
	dev->features = 0;
	vu_dev_unlock_all(dev);
	vu_dev_log_replace(dev, &none);
	dev->owner = false;
}

/**
 * vu_dev_log_replace() - install a new dirty log, unmap the old one
 * @dev:	device, no queue lock held
 * @nl:		the new log (mapped, or empty for none); copied
 *
 * Swapped under every queue lock, so that no worker marks the old log
 * once it is unmapped.
 */
void vu_dev_log_replace(struct vu_dev *dev, const struct dirty_log *nl)
{
	struct dirty_log old;

	vu_dev_lock_all(dev);
	old = dev->dlog;
	dev->dlog = *nl;
	vu_dev_log_apply(dev);
	vu_dev_unlock_all(dev);
	/* Marks that missed the old log were the front end's own doing
	 * (a ring's log address outside it): said once per log.
	 */
	if (old.missed)
		src_warn(dev->log, "%s: %llu dirty log marks fell outside the "
			 "log", dev->name, (unsigned long long)old.missed);
	dirty_log_unmap(&old);
}

/**
 * vu_dev_log_apply() - point every queue at the log while logging is on
 * @dev:	device, every queue lock held (vu_dev_lock_all())
 *
 * Logging is on while VHOST_F_LOG_ALL is acked and a log is mapped; a
 * log without the feature (set up ahead, or left after a migration was
 * cancelled) marks nothing.
 */
void vu_dev_log_apply(struct vu_dev *dev)
{
	struct dirty_log *l = NULL;
	unsigned int i;

	if ((dev->features & VU_F_LOG_ALL) && dev->dlog.bits)
		l = &dev->dlog;
	for (i = 0; i < VU_MAX_QUEUES; i++)
		dev->q[i].vq.log = l;
}

/**
 * vu_dev_init() - set up a device with no front end
 * @dev:		device
 * @name:		for logs
 * @features_offered:	virtio feature bits for GET_FEATURES
 * @ops:		port callbacks (may be NULL)
 * @opaque:		port pointer for @ops
 */
void vu_dev_init(struct vu_dev *dev, const char *name,
		 uint64_t features_offered, const struct vu_dev_ops *ops,
		 void *opaque)
{
	unsigned int i;

	memset(dev, 0, sizeof(*dev));
	snprintf(dev->name, sizeof(dev->name), "%s", name ? name : "vhost");
	dev->fd = -1;
	dev->features_offered = features_offered;
	dev->pairs = 1;
	dev->ops = ops;
	dev->opaque = opaque;
	guest_mem_init(&dev->mem);
	dev->mem.owner = dev;	/* guest_fault.c calls vu_dev_on_fault() */
	for (i = 0; i < VU_MAX_QUEUES; i++) {
		vlock_init(&dev->q[i].lock);
		virtq_init(&dev->q[i].vq);
		dev->q[i].kick_fd = -1;
		dev->q[i].err_fd = -1;
	}
}

/**
 * vu_dev_fini() - detach: close every fd, unmap the memory
 * @dev:	device
 */
void vu_dev_fini(struct vu_dev *dev)
{
	vu_dev_detach(dev);
}

/**
 * vu_dev_attach() - start a session with a front end connected on @fd
 * @dev:	device (any previous session is detached first)
 * @fd:		connected unix stream socket; owned by @dev from now on
 *
 * The socket is made non-blocking: vu_dev_handle() takes what has come
 * of a message and returns, so a front end that dribbles its messages or
 * never reads its replies holds the control thread for no time at all
 * (a reply that does not fit in the socket's buffer, a message not whole
 * after a second, cost the connection).
 */
void vu_dev_attach(struct vu_dev *dev, int fd)
{
	int fl;

	if (dev->fd >= 0)
		vu_dev_detach(dev);
	vu_dev_reset(dev);
	dev->protocol_features = 0;
	dev->err_logged = false;
	vhost_user_rx_reset(&dev->rx);
	__atomic_store_n(&dev->broken, false, __ATOMIC_RELEASE);

	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (!(fl & O_NONBLOCK) &&
		       fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0))
		src_warn(dev->log, "%s: cannot make the socket non-blocking: "
			 "%s", dev->name, strerror(errno));
	dev->fd = fd;
	dev->stats.connects++;
	src_info(dev->log, "%s: vhost-user front end connected", dev->name);
}

/**
 * vu_dev_check_stall() - whether the front end left a message half sent
 * @dev:	device
 * @now:	CLOCK_MONOTONIC ns
 *
 * Return: 0, or -ETIMEDOUT (counted as a protocol error): the caller
 *	   drops the connection
 * Context: control thread, from its one-second tick
 */
int vu_dev_check_stall(struct vu_dev *dev, uint64_t now)
{
	if (dev->fd < 0 || !vhost_user_rx_stalled(&dev->rx, now))
		return 0;
	vu_dev_proto_err(dev, &dev->rx.msg, -ETIMEDOUT,
			 "message incomplete for a second");
	return -ETIMEDOUT;
}

/**
 * vu_dev_detach() - end the session: stop queues, unmap, close everything
 * @dev:	device
 */
void vu_dev_detach(struct vu_dev *dev)
{
	if (__atomic_load_n(&dev->broken, __ATOMIC_ACQUIRE))
		vu_dev_signal_err(dev);
	vu_dev_reset(dev);
	dev->protocol_features = 0;
	vhost_user_rx_reset(&dev->rx);
	if (dev->fd >= 0) {
		close(dev->fd);
		dev->fd = -1;
		dev->stats.disconnects++;
		src_info(dev->log, "%s: vhost-user front end disconnected",
			 dev->name);
	}
	__atomic_store_n(&dev->broken, false, __ATOMIC_RELEASE);
}

/**
 * vu_dev_on_fault() - a page of this device's guest memory vanished
 * @ctx:	the device (its memory table's owner)
 *
 * The front end shrank a file behind a region; guest_fault.c has mapped
 * a zero page over the lost one.  The device is broken from now on: its
 * socket is shut down and the control thread drops the front end.
 *
 * Context: SIGBUS handler, any thread: atomics and shutdown() only
 */
static void vu_dev_on_fault(void *ctx)
{
	struct vu_dev *dev = ctx;

	__atomic_fetch_add(&dev->mem_faults, 1, __ATOMIC_RELAXED);
	vu_dev_mark_broken(dev);
}

/**
 * vu_dev_fault_init() - contain SIGBUS in any device's guest memory
 *
 * Return: 0 or -errno
 * Context: start-up, before any device maps memory
 */
int vu_dev_fault_init(void)
{
	return guest_fault_init(vu_dev_on_fault);
}

/**
 * vu_dev_mark_broken() - the datapath found a guest ring violation
 * @dev:	device
 *
 * The socket is shut down, not closed: the control thread sees the
 * hang-up, and detaches (which needs this queue's lock, so @dev->fd is
 * still ours while the caller holds it).
 *
 * Context: datapath, queue lock held; or the SIGBUS handler
 * (vu_dev_on_fault()), hence atomics and shutdown() only
 */
void vu_dev_mark_broken(struct vu_dev *dev)
{
	if (__atomic_exchange_n(&dev->broken, true, __ATOMIC_ACQ_REL))
		return;
	if (dev->fd >= 0)
		shutdown(dev->fd, SHUT_RDWR);
}

/**
 * vu_queue_call_take() - the call fd to signal once the lock is released
 * @q:		queue, locked and started, used entries flushed
 *
 * The guest's wish (event index or NO_INTERRUPT) is read here, under the
 * lock; the write itself, which a front end might make slow, is done by
 * vu_queue_call_give() after the caller unlocked.  Every fd returned
 * must be given back.
 *
 * Return: the call fd if the guest wants an interrupt, else -1
 * Context: datapath, @q's lock held
 */
int vu_queue_call_take(struct vu_queue *q)
{
	if (q->vq.call_fd < 0 || !virtq_should_notify(&q->vq))
		return -1;
	/* Seen by control after it takes the lock (vu_queue_call_quiesce()). */
	__atomic_fetch_add(&q->call_users, 1, __ATOMIC_RELAXED);
	return q->vq.call_fd;
}

/**
 * vu_queue_call_owed() - the call fd for an interrupt held back earlier
 * @q:		queue, locked
 *
 * The guest's wish was read (and its event index moved on) when the
 * interrupt was held back; it is sent now whatever the guest asked
 * since: a spurious interrupt costs a look at the used ring, a lost one
 * a stalled queue.  Give it back as vu_queue_call_take()'s.
 *
 * Return: the call fd, -1 if there is none
 * Context: datapath or control, @q's lock held
 */
int vu_queue_call_owed(struct vu_queue *q)
{
	if (q->vq.call_fd < 0)
		return -1;
	__atomic_fetch_add(&q->call_users, 1, __ATOMIC_RELAXED);
	return q->vq.call_fd;
}

/**
 * vu_queue_call_give() - signal a call fd from vu_queue_call_take()
 * @dev:	device
 * @q:		queue, no longer locked by the caller
 * @fd:		what vu_queue_call_take() returned; nothing done if -1
 *
 * A write that blocked (efd.c) marks @dev broken: its front end made the
 * fd blocking and filled it, and the connection is dropped.  From then
 * on the device's interrupts take the slow lane, so that the next
 * connection cannot hold a worker again.
 *
 * Return: 0; -ETIMEDOUT for the blocked write; another -errno if the
 *	   interrupt was not sent (the slow lane full, ...)
 * Context: datapath, @q's lock not held
 */
int vu_queue_call_give(struct vu_dev *dev, struct vu_queue *q, int fd)
{
	int rc;

	if (fd < 0)
		return 0;
	if (__atomic_load_n(&dev->call_slow, __ATOMIC_RELAXED))
		rc = efd_signal_later(fd);
	else
		rc = efd_signal(fd);
	if (rc == -ETIMEDOUT) {
		__atomic_store_n(&dev->call_slow, true, __ATOMIC_RELAXED);
		/* Under the lock: mark_broken() shuts dev->fd down. */
		vlock_lock(&q->lock);
		if (q->started)
			vu_dev_mark_broken(dev);
		vlock_unlock(&q->lock);
	}
	__atomic_fetch_sub(&q->call_users, 1, __ATOMIC_RELEASE);
	return rc;
}

/**
 * vu_queue_call_quiesce() - wait until no thread signals @q's old call fd
 * @q:		queue whose call fd was just swapped out under its lock
 *
 * Short: a write lasts microseconds, or EFD_WATCH_MS ticks if it blocks.
 *
 * Context: control thread, @q's lock not held
 */
void vu_queue_call_quiesce(struct vu_queue *q)
{
	while (__atomic_load_n(&q->call_users, __ATOMIC_ACQUIRE))
		sched_yield();
}

/**
 * vu_dev_ack() - answer NEED_REPLY for a request with no reply of its own
 * @dev:	device
 * @msg:	request
 * @rc:		its result
 *
 * Return: 0 or -errno from the send
 */
static int vu_dev_ack(struct vu_dev *dev, const struct vhost_user_msg *msg,
		      int rc)
{
	uint64_t ack = rc ? 1 : 0;

	if (!(msg->hdr.flags & VHOST_USER_NEED_REPLY_MASK) ||
	    !(dev->protocol_features &
	      (1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK)))
		return 0;
	return vhost_user_send_reply(dev->fd, msg, &ack, sizeof(ack));
}

/**
 * vu_dev_handle() - read, check and apply one message from the front end
 * @dev:	attached device
 *
 * Return: 0, or -errno if the connection must be dropped (peer closed,
 *	   malformed message, failed reply, broken ring): the caller then
 *	   calls vu_dev_detach()
 *
 * Context: control thread, when @dev->fd is readable
 */
int vu_dev_handle(struct vu_dev *dev)
{
	struct vhost_user_msg msg;
	uint32_t rsize = 0;
	int rc, src;

	if (dev->fd < 0)
		return -ENOTCONN;
	if (__atomic_load_n(&dev->broken, __ATOMIC_ACQUIRE)) {
		int q = vu_dev_broken_queue(dev);

		vu_dev_proto_err(dev, NULL, -EIO, "guest broke a ring");
		if (q >= 0)
			vu_dev_note_err(dev, "guest broke ring %d (%s of "
					"queue pair %d)", q, q & 1 ? "TX" : "RX",
					q / 2);
		else
			vu_dev_note_err(dev, "device broken: guest memory "
					"vanished or an interrupt eventfd "
					"blocked");
		return -EIO;
	}

	rc = vhost_user_recv_some(dev->fd, &dev->rx);
	if (rc == 0)
		return 0;	/* the rest later: never wait for it */
	if (rc == -ECONNRESET)
		return rc;
	if (rc < 0) {
		vu_dev_proto_err(dev, NULL, rc, "cannot read message");
		return rc;
	}
	/* Ours now (descriptors included); the next message starts anew. */
	msg = dev->rx.msg;
	dev->rx.msg.nfds = 0;
	dev->rx.got = 0;
	dev->stats.msgs++;

	rc = vhost_user_check(&msg);
	if (rc == -ENOSYS) {
		/* Well-formed but not ours: refuse, keep the session. */
		vu_dev_proto_err(dev, &msg, rc, "unsupported request");
		vhost_user_close_fds(&msg);
		return vhost_user_has_reply(msg.hdr.request) ? rc :
		       vu_dev_ack(dev, &msg, rc);
	}
	if (rc < 0) {
		vu_dev_proto_err(dev, &msg, rc, "malformed message");
		vhost_user_close_fds(&msg);
		return rc;
	}

	src_debug(dev->log, "%s: vhost-user %s", dev->name,
		  vhost_user_req_name(msg.hdr.request));
	rc = vu_msg_apply(dev, &msg, &rsize);
	vhost_user_close_fds(&msg);

	if (vhost_user_has_reply(msg.hdr.request)) {
		/* No way to say "failed" in a GET reply: drop the peer. */
		if (rc < 0) {
			vu_dev_proto_err(dev, &msg, rc, "request failed");
			return rc;
		}
		src = vhost_user_send_reply(dev->fd, &msg, msg.raw, rsize);
	} else {
		if (rc < 0)
			vu_dev_proto_err(dev, &msg, rc, "request failed");
		src = vu_dev_ack(dev, &msg, rc);
	}
	if (src < 0)
		vu_dev_proto_err(dev, &msg, src, "cannot send reply");
	return src;
}

/**
 * vu_queue_enabled() - whether the front end has enabled queue @qi
 * @dev:	device
 * @qi:		queue index
 *
 * Return: true if connected and enabled as vu_queue_runnable() counts it
 */
static bool vu_queue_enabled(const struct vu_dev *dev, unsigned int qi)
{
	return dev->fd >= 0 && (dev->q[qi].enabled ||
				!(dev->features & VU_F_PROTOCOL_FEATURES));
}

/**
 * vu_dev_pairs_enabled() - queue pairs whose two rings are enabled
 * @dev:	device
 *
 * Return: pairs among the device's @pairs
 * Context: control thread (the state it reads is the control thread's)
 */
unsigned int vu_dev_pairs_enabled(const struct vu_dev *dev)
{
	unsigned int i, n = 0;

	for (i = 0; i < dev->pairs; i++)
		n += vu_queue_enabled(dev, 2 * i) &&
		     vu_queue_enabled(dev, 2 * i + 1);
	return n;
}

/**
 * vu_dev_pairs_started() - queue pairs whose two rings are started
 * @dev:	device
 *
 * Return: pairs among the device's @pairs
 * Context: control thread: @started is written only there (under the
 * queue lock, for the datapath's sake), so reading it needs no lock
 */
unsigned int vu_dev_pairs_started(const struct vu_dev *dev)
{
	unsigned int i, n = 0;

	for (i = 0; i < dev->pairs; i++)
		n += dev->q[2 * i].started && dev->q[2 * i + 1].started;
	return n;
}

/* virtio 1.2, 5.1.3 and 6: the feature bits a virtio-net device may
 * offer, and VHOST_USER_F_PROTOCOL_FEATURES on bit 30.
 */
const char *const vu_feature_names[64] = {
	[VIRTIO_NET_F_CSUM]			= "CSUM",
	[VIRTIO_NET_F_GUEST_CSUM]		= "GUEST_CSUM",
	[VIRTIO_NET_F_CTRL_GUEST_OFFLOADS]	= "CTRL_GUEST_OFFLOADS",
	[VIRTIO_NET_F_MTU]			= "MTU",
	[VIRTIO_NET_F_MAC]			= "MAC",
	[VIRTIO_NET_F_GUEST_TSO4]		= "GUEST_TSO4",
	[VIRTIO_NET_F_GUEST_TSO6]		= "GUEST_TSO6",
	[VIRTIO_NET_F_GUEST_ECN]		= "GUEST_ECN",
	[VIRTIO_NET_F_GUEST_UFO]		= "GUEST_UFO",
	[VIRTIO_NET_F_HOST_TSO4]		= "HOST_TSO4",
	[VIRTIO_NET_F_HOST_TSO6]		= "HOST_TSO6",
	[VIRTIO_NET_F_HOST_ECN]			= "HOST_ECN",
	[VIRTIO_NET_F_HOST_UFO]			= "HOST_UFO",
	[VIRTIO_NET_F_MRG_RXBUF]		= "MRG_RXBUF",
	[VIRTIO_NET_F_STATUS]			= "STATUS",
	[VIRTIO_NET_F_CTRL_VQ]			= "CTRL_VQ",
	[VIRTIO_NET_F_CTRL_RX]			= "CTRL_RX",
	[VIRTIO_NET_F_CTRL_VLAN]		= "CTRL_VLAN",
	[VIRTIO_NET_F_CTRL_RX_EXTRA]		= "CTRL_RX_EXTRA",
	[VIRTIO_NET_F_GUEST_ANNOUNCE]		= "GUEST_ANNOUNCE",
	[VIRTIO_NET_F_MQ]			= "MQ",
	[VIRTIO_NET_F_CTRL_MAC_ADDR]		= "CTRL_MAC_ADDR",
	[VIRTIO_F_NOTIFY_ON_EMPTY]		= "NOTIFY_ON_EMPTY",
	[VIRTIO_F_ANY_LAYOUT]			= "ANY_LAYOUT",
	[VIRTIO_RING_F_INDIRECT_DESC]		= "INDIRECT_DESC",
	[VIRTIO_RING_F_EVENT_IDX]		= "EVENT_IDX",
	[26]	/* VHOST_F_LOG_ALL, vhost's */	= "LOG_ALL",
	[VHOST_USER_F_PROTOCOL_FEATURES]	= "PROTOCOL_FEATURES",
	[VIRTIO_F_VERSION_1]			= "VERSION_1",
	[VIRTIO_F_ACCESS_PLATFORM]		= "ACCESS_PLATFORM",
	[VIRTIO_F_RING_PACKED]			= "RING_PACKED",
	[VIRTIO_F_IN_ORDER]			= "IN_ORDER",
	[VIRTIO_F_ORDER_PLATFORM]		= "ORDER_PLATFORM",
	[VIRTIO_F_SR_IOV]			= "SR_IOV",
	[38]	/* not in Debian 12 headers */	= "NOTIFICATION_DATA",
	[VIRTIO_F_RING_RESET]			= "RING_RESET",
	[VIRTIO_NET_F_GUEST_USO4]		= "GUEST_USO4",
	[VIRTIO_NET_F_GUEST_USO6]		= "GUEST_USO6",
	[VIRTIO_NET_F_HOST_USO]			= "HOST_USO",
	[VIRTIO_NET_F_HASH_REPORT]		= "HASH_REPORT",
	[VIRTIO_NET_F_RSS]			= "RSS",
	[VIRTIO_NET_F_RSC_EXT]			= "RSC_EXT",
	[VIRTIO_NET_F_STANDBY]			= "STANDBY",
	[VIRTIO_NET_F_SPEED_DUPLEX]		= "SPEED_DUPLEX",
};

/* The vhost-user specification's protocol feature bits. */
const char *const vu_protocol_feature_names[64] = {
	[VHOST_USER_PROTOCOL_F_MQ]			= "MQ",
	[VHOST_USER_PROTOCOL_F_LOG_SHMFD]		= "LOG_SHMFD",
	[VHOST_USER_PROTOCOL_F_RARP]			= "RARP",
	[VHOST_USER_PROTOCOL_F_REPLY_ACK]		= "REPLY_ACK",
	[VHOST_USER_PROTOCOL_F_NET_MTU]			= "NET_MTU",
	[5]						= "BACKEND_REQ",
	[6]						= "CROSS_ENDIAN",
	[7]						= "CRYPTO_SESSION",
	[8]						= "PAGEFAULT",
	[9]						= "CONFIG",
	[10]						= "BACKEND_SEND_FD",
	[11]						= "HOST_NOTIFIER",
	[12]						= "INFLIGHT_SHMFD",
	[13]						= "RESET_DEVICE",
	[14]						= "INBAND_NOTIFICATIONS",
	[VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS]	= "CONFIGURE_MEM_SLOTS",
	[16]						= "STATUS",
	[17]						= "XEN_MMAP",
};
