// SPDX-License-Identifier: GPL-2.0-or-later
/* vu_dev.c - vhost-user device state: apply messages, start/stop queues
 *
 * DOC: Theory of Operation
 *
 * vhost_user.c hands us well-formed messages; here they change device
 * state.  The interesting state is per queue: a queue is *started* (owned
 * by the datapath) exactly while it is runnable:
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
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "../log.h"
#include "../util.h"
#include "vhost_user.h"
#include "vu_dev.h"

#define VU_F_PROTOCOL_FEATURES	(1ull << VHOST_USER_F_PROTOCOL_FEATURES)
#define VU_SOCK_TIMEOUT_S	1

/**
 * vu_dev_proto_err() - count a protocol error, log the first per connection
 * @dev:	device
 * @msg:	offending message (may be NULL)
 * @rc:		-errno describing the failure
 * @what:	short description
 */
static void vu_dev_proto_err(struct vu_dev *dev,
			     const struct vhost_user_msg *msg, int rc,
			     const char *what)
{
	uint32_t req = msg ? msg->hdr.request : 0;

	dev->stats.msg_errors++;
	if (dev->err_logged) {
		debug("%s: vhost-user: %s: request %u (%s): %s", dev->name,
		      what, req, vhost_user_req_name(req), strerror(-rc));
		return;
	}
	dev->err_logged = true;
	warn("%s: vhost-user: %s: request %u (%s): %s (further errors on "
	     "this connection are only counted)", dev->name, what, req,
	     vhost_user_req_name(req), strerror(-rc));
}

/**
 * vu_dev_lock_all() - take every queue lock, TX (odd) queues first
 * @dev:	device
 *
 * TX first: a worker forwarding from one of our TX queues holds that lock
 * while it copies out of our memory into other devices' RX queues; taking
 * TX locks first means no such copy is in flight once we hold them all.
 */
static void vu_dev_lock_all(struct vu_dev *dev)
{
	unsigned int i;

	for (i = 1; i < VU_MAX_QUEUES; i += 2)
		pthread_mutex_lock(&dev->q[i].lock);
	for (i = 0; i < VU_MAX_QUEUES; i += 2)
		pthread_mutex_lock(&dev->q[i].lock);
}

/**
 * vu_dev_unlock_all() - release what vu_dev_lock_all() took, in reverse
 * @dev:	device
 */
static void vu_dev_unlock_all(struct vu_dev *dev)
{
	unsigned int i;

	for (i = VU_MAX_QUEUES; i-- > 0;)
		if (!(i & 1))
			pthread_mutex_unlock(&dev->q[i].lock);
	for (i = VU_MAX_QUEUES; i-- > 0;)
		if (i & 1)
			pthread_mutex_unlock(&dev->q[i].lock);
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
 * vu_queue_stop() - take queue @qi away from the datapath
 * @dev:	device
 * @qi:		queue index
 *
 * Context: control thread, no queue lock held
 */
static void vu_queue_stop(struct vu_dev *dev, unsigned int qi)
{
	struct vu_queue *q = &dev->q[qi];
	bool was;

	pthread_mutex_lock(&q->lock);
	was = q->started;
	q->started = false;
	pthread_mutex_unlock(&q->lock);
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
static void vu_queue_update(struct vu_dev *dev, unsigned int qi)
{
	struct vu_queue *q = &dev->q[qi];
	int rc;

	if (!vu_queue_runnable(dev, qi)) {
		vu_queue_stop(dev, qi);
		return;
	}
	if (q->started)
		return;

	pthread_mutex_lock(&q->lock);
	rc = virtq_map(&q->vq, &dev->mem);
	if (!rc)
		q->started = true;
	pthread_mutex_unlock(&q->lock);
	if (rc) {
		vu_dev_proto_err(dev, NULL, rc, "ring addresses do not map");
		return;
	}
	debug("%s: queue %u started at avail %u", dev->name, qi,
	      q->vq.last_avail_idx);
	if (dev->ops && dev->ops->queue_start)
		dev->ops->queue_start(dev, qi);
}

/**
 * vu_dev_update_all() - vu_queue_update() on every queue, TX first
 * @dev:	device
 */
static void vu_dev_update_all(struct vu_dev *dev)
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
static void vu_dev_mem_changed(struct vu_dev *dev, unsigned int *lost)
{
	unsigned int i;

	*lost = 0;
	for (i = 0; i < VU_MAX_QUEUES; i++) {
		struct vu_queue *q = &dev->q[i];

		if (!q->started)
			continue;
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
static void vu_dev_mem_finish(struct vu_dev *dev, unsigned int lost)
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

		pthread_mutex_lock(&q->lock);
		if (q->kick_fd >= 0)
			close(q->kick_fd);
		if (q->err_fd >= 0)
			close(q->err_fd);
		if (q->vq.call_fd >= 0)
			close(q->vq.call_fd);
		virtq_init(&q->vq);
		q->kick_fd = -1;
		q->err_fd = -1;
		q->num_set = false;
		q->addr_set = false;
		q->enabled = false;
		pthread_mutex_unlock(&q->lock);
	}
}

/**
 * vu_dev_reset() - back to "just connected": no queues, memory, features
 * @dev:	device
 */
static void vu_dev_reset(struct vu_dev *dev)
{
	vu_dev_reset_queues(dev);
	vu_dev_lock_all(dev);
	guest_mem_clear(&dev->mem);
	vu_dev_unlock_all(dev);
	dev->features = 0;
	dev->owner = false;
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
	dev->ops = ops;
	dev->opaque = opaque;
	guest_mem_init(&dev->mem);
	for (i = 0; i < VU_MAX_QUEUES; i++) {
		pthread_mutex_init(&dev->q[i].lock, NULL);
		virtq_init(&dev->q[i].vq);
		dev->q[i].kick_fd = -1;
		dev->q[i].err_fd = -1;
	}
}

/**
 * vu_dev_fini() - detach and release the device's locks
 * @dev:	device
 */
void vu_dev_fini(struct vu_dev *dev)
{
	unsigned int i;

	vu_dev_detach(dev);
	for (i = 0; i < VU_MAX_QUEUES; i++)
		pthread_mutex_destroy(&dev->q[i].lock);
}

/**
 * vu_dev_attach() - start a session with a front end connected on @fd
 * @dev:	device (any previous session is detached first)
 * @fd:		connected unix stream socket; owned by @dev from now on
 *
 * The socket is made blocking with 1 s send and receive timeouts:
 * vu_dev_handle() is called when it is readable and reads a whole
 * message, and a peer that stalls mid-message or never reads its replies
 * costs the control thread about a second, then its connection.
 */
void vu_dev_attach(struct vu_dev *dev, int fd)
{
	struct timeval tv = { .tv_sec = VU_SOCK_TIMEOUT_S };
	int fl;

	if (dev->fd >= 0)
		vu_dev_detach(dev);
	vu_dev_reset(dev);
	dev->protocol_features = 0;
	dev->err_logged = false;
	__atomic_store_n(&dev->broken, false, __ATOMIC_RELEASE);

	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_NONBLOCK))
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		warn("%s: cannot set socket timeouts: %s", dev->name,
		     strerror(errno));
	dev->fd = fd;
	dev->stats.connects++;
	info("%s: vhost-user front end connected", dev->name);
}

/**
 * vu_dev_detach() - end the session: stop queues, unmap, close everything
 * @dev:	device
 */
void vu_dev_detach(struct vu_dev *dev)
{
	vu_dev_reset(dev);
	dev->protocol_features = 0;
	if (dev->fd >= 0) {
		close(dev->fd);
		dev->fd = -1;
		dev->stats.disconnects++;
		info("%s: vhost-user front end disconnected", dev->name);
	}
	__atomic_store_n(&dev->broken, false, __ATOMIC_RELEASE);
}

/**
 * vu_dev_mark_broken() - the datapath found a guest ring violation
 * @dev:	device
 *
 * The socket is shut down, not closed: the control thread sees the
 * hang-up, and detaches (which needs this queue's lock, so @dev->fd is
 * still ours while the caller holds it).
 *
 * Context: datapath, queue lock held
 */
void vu_dev_mark_broken(struct vu_dev *dev)
{
	if (__atomic_exchange_n(&dev->broken, true, __ATOMIC_ACQ_REL))
		return;
	if (dev->fd >= 0)
		shutdown(dev->fd, SHUT_RDWR);
}

/**
 * vu_dev_hdr_len() - virtio-net header size the guest uses
 * @dev:	device
 *
 * Return: 12 with VIRTIO_F_VERSION_1 or VIRTIO_NET_F_MRG_RXBUF, else 10
 */
unsigned int vu_dev_hdr_len(const struct vu_dev *dev)
{
	if (dev->features & ((1ull << 32) | (1ull << 15)))
		return 12;
	return 10;
}


/*
 * Message handlers.  Each gets a message vhost_user_check() accepted, so
 * the payload has the request's size and the descriptor count is right;
 * the values themselves are still the peer's and are checked here.  A
 * handler that keeps a descriptor sets its msg->fds[] slot to -1; the
 * rest are closed by vu_dev_handle().  Requests with a reply of their own
 * write it into the message payload and set *@rsize.
 */

/**
 * typedef vu_handler_fn - apply one message
 * @dev:	device
 * @msg:	checked message, payload reused for the reply
 * @rsize:	out: reply payload size (requests with a reply only)
 *
 * Return: 0 or -errno (the request failed; acked as failure)
 */
typedef int (*vu_handler_fn)(struct vu_dev *dev, struct vhost_user_msg *msg,
			     uint32_t *rsize);

/**
 * vu_msg_queue() - queue named by a ring index from the peer
 * @idx:	index as sent
 *
 * Return: the index, or -EINVAL if we have no such queue
 */
static int vu_msg_queue(uint64_t idx)
{
	return idx < VU_MAX_QUEUES ? (int)idx : -EINVAL;
}

/**
 * vu_get_features() - GET_FEATURES: offered bits plus PROTOCOL_FEATURES
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_get_features(struct vu_dev *dev, struct vhost_user_msg *msg,
			   uint32_t *rsize)
{
	msg->u64 = dev->features_offered | VU_F_PROTOCOL_FEATURES;
	*rsize = sizeof(msg->u64);
	return 0;
}

/**
 * vu_set_features() - SET_FEATURES: ack virtio features, update rings
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_set_features(struct vu_dev *dev, struct vhost_user_msg *msg,
			   uint32_t *rsize)
{
	uint64_t f = msg->u64;
	unsigned int i;

	/* Acking what we never offered (LOG_ALL included) is a bug or an
	 * attack; refuse rather than run with semantics we do not have.
	 */
	if (f & ~(dev->features_offered | VU_F_PROTOCOL_FEATURES))
		return -EINVAL;
	dev->features = f;
	for (i = 0; i < VU_MAX_QUEUES; i++) {
		struct vu_queue *q = &dev->q[i];

		pthread_mutex_lock(&q->lock);
		q->vq.event_idx = f & (1ull << VIRTIO_RING_F_EVENT_IDX);
		q->vq.indirect = f & (1ull << VIRTIO_RING_F_INDIRECT_DESC);
		pthread_mutex_unlock(&q->lock);
	}
	/* PROTOCOL_FEATURES changes what "enabled" means. */
	vu_dev_update_all(dev);
	return 0;
}

/**
 * vu_get_protocol_features() - GET_PROTOCOL_FEATURES: what we offer
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_get_protocol_features(struct vu_dev *dev,
				    struct vhost_user_msg *msg,
				    uint32_t *rsize)
{
	msg->u64 = VHOST_USER_PROTOCOL_FEATURES;
	*rsize = sizeof(msg->u64);
	return 0;
}

/**
 * vu_set_protocol_features() - SET_PROTOCOL_FEATURES: ack a subset of the offer
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_set_protocol_features(struct vu_dev *dev,
				    struct vhost_user_msg *msg,
				    uint32_t *rsize)
{
	if (msg->u64 & ~VHOST_USER_PROTOCOL_FEATURES)
		return -EINVAL;
	dev->protocol_features = msg->u64;
	return 0;
}

/**
 * vu_get_queue_num() - GET_QUEUE_NUM: queue pairs we support
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_get_queue_num(struct vu_dev *dev, struct vhost_user_msg *msg,
			    uint32_t *rsize)
{
	msg->u64 = VU_MAX_QUEUE_PAIRS;
	*rsize = sizeof(msg->u64);
	return 0;
}

/**
 * vu_get_max_mem_slots() - GET_MAX_MEM_SLOTS: regions ADD_MEM_REG may add
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_get_max_mem_slots(struct vu_dev *dev,
				struct vhost_user_msg *msg, uint32_t *rsize)
{
	msg->u64 = GUEST_MEM_MAX_REGIONS;
	*rsize = sizeof(msg->u64);
	return 0;
}

/**
 * vu_set_owner() - SET_OWNER: the session has an owner
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_set_owner(struct vu_dev *dev, struct vhost_user_msg *msg,
			uint32_t *rsize)
{
	dev->owner = true;
	return 0;
}

/**
 * vu_reset_owner() - RESET_OWNER: forget queues, memory and features
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_reset_owner(struct vu_dev *dev, struct vhost_user_msg *msg,
			  uint32_t *rsize)
{
	vu_dev_reset(dev);
	return 0;
}

/**
 * vu_set_mem_table() - SET_MEM_TABLE: replace the whole memory table
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_set_mem_table(struct vu_dev *dev, struct vhost_user_msg *msg,
			    uint32_t *rsize)
{
	struct guest_mem nm, old;
	unsigned int i, lost;
	int rc;

	/* Map the new table before touching the old one: on failure the
	 * device keeps running on what it had.
	 */
	guest_mem_init(&nm);
	for (i = 0; i < msg->mem.nregions; i++) {
		const struct vhost_user_region *r = &msg->mem.regions[i];

		rc = guest_mem_add(&nm, msg->fds[i], r->gpa, r->size, r->uva,
				   r->mmap_offset);
		if (rc < 0) {
			guest_mem_clear(&nm);
			return rc;
		}
	}

	vu_dev_lock_all(dev);
	old = dev->mem;
	dev->mem = nm;
	vu_dev_mem_changed(dev, &lost);
	vu_dev_unlock_all(dev);
	guest_mem_clear(&old);
	vu_dev_mem_finish(dev, lost);
	return 0;
}

/**
 * vu_add_mem_reg() - ADD_MEM_REG: map one more region
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_add_mem_reg(struct vu_dev *dev, struct vhost_user_msg *msg,
			  uint32_t *rsize)
{
	const struct vhost_user_region *r = &msg->mem_reg.region;
	struct guest_mem nm = dev->mem;
	unsigned int lost;
	int rc;

	/* mmap() on a copy, outside the locks; the copy shares the old
	 * mappings, so it simply becomes the table.
	 */
	rc = guest_mem_add(&nm, msg->fds[0], r->gpa, r->size, r->uva,
			   r->mmap_offset);
	if (rc < 0)
		return rc;
	vu_dev_lock_all(dev);
	dev->mem = nm;
	vu_dev_mem_changed(dev, &lost);
	vu_dev_unlock_all(dev);
	vu_dev_mem_finish(dev, lost);
	return 0;
}

/**
 * vu_rem_mem_reg() - REM_MEM_REG: unmap the region matching gpa, size, uva
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_rem_mem_reg(struct vu_dev *dev, struct vhost_user_msg *msg,
			  uint32_t *rsize)
{
	const struct vhost_user_region *r = &msg->mem_reg.region;
	unsigned int lost = 0;
	int rc;

	vu_dev_lock_all(dev);
	rc = guest_mem_remove(&dev->mem, r->gpa, r->size, r->uva);
	if (!rc)
		vu_dev_mem_changed(dev, &lost);
	vu_dev_unlock_all(dev);
	if (!rc)
		vu_dev_mem_finish(dev, lost);
	return rc;
}

/**
 * vu_set_vring_num() - SET_VRING_NUM: ring size
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_set_vring_num(struct vu_dev *dev, struct vhost_user_msg *msg,
			    uint32_t *rsize)
{
	int qi = vu_msg_queue(msg->state.index);
	unsigned int num = msg->state.num;

	if (qi < 0)
		return qi;
	if (!num || num > VIRTQ_MAX_SIZE || (num & (num - 1)))
		return -EINVAL;
	vu_queue_stop(dev, qi);
	dev->q[qi].vq.num = (uint16_t)num;
	dev->q[qi].num_set = true;
	vu_queue_update(dev, qi);
	return 0;
}

/**
 * vu_set_vring_addr() - SET_VRING_ADDR: ring addresses (front end uvas)
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_set_vring_addr(struct vu_dev *dev, struct vhost_user_msg *msg,
			     uint32_t *rsize)
{
	const struct vhost_vring_addr *a = &msg->addr;
	int qi = vu_msg_queue(a->index);
	struct vu_queue *q;

	if (qi < 0)
		return qi;
	/* VHOST_VRING_F_LOG asks for dirty logging, which needs LOG_ALL;
	 * we never offer it, so the flag cannot be meaningful: ignored.
	 */
	q = &dev->q[qi];
	vu_queue_stop(dev, qi);
	q->vq.desc_uva = a->desc_user_addr;
	q->vq.avail_uva = a->avail_user_addr;
	q->vq.used_uva = a->used_user_addr;
	q->addr_set = true;
	vu_queue_update(dev, qi);
	return 0;
}

/**
 * vu_set_vring_base() - SET_VRING_BASE: next avail index to consume
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_set_vring_base(struct vu_dev *dev, struct vhost_user_msg *msg,
			     uint32_t *rsize)
{
	int qi = vu_msg_queue(msg->state.index);

	if (qi < 0)
		return qi;
	if (msg->state.num > UINT16_MAX)
		return -EINVAL;	/* split rings have 16-bit indexes */
	vu_queue_stop(dev, qi);
	dev->q[qi].vq.last_avail_idx = (uint16_t)msg->state.num;
	dev->q[qi].vq.used_idx = (uint16_t)msg->state.num;
	vu_queue_update(dev, qi);
	return 0;
}

/**
 * vu_get_vring_base() - GET_VRING_BASE: stop the ring, report its avail index
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_get_vring_base(struct vu_dev *dev, struct vhost_user_msg *msg,
			     uint32_t *rsize)
{
	int qi = vu_msg_queue(msg->state.index);
	struct vu_queue *q;

	if (qi < 0)
		return qi;
	q = &dev->q[qi];
	/* The spec's "stop the ring": after this the datapath is out, so
	 * last_avail_idx is final.  The kick fd goes too: the front end
	 * sends a new one when it starts the ring again.
	 */
	vu_queue_stop(dev, qi);
	pthread_mutex_lock(&q->lock);
	msg->state.num = q->vq.last_avail_idx;
	pthread_mutex_unlock(&q->lock);
	if (q->kick_fd >= 0) {
		close(q->kick_fd);
		q->kick_fd = -1;
	}
	*rsize = sizeof(msg->state);
	return 0;
}

/**
 * vu_msg_vring_fd() - ring index and descriptor of a KICK/CALL/ERR message
 * @msg:	message (descriptor count already checked against NOFD)
 * @fd:		out: the descriptor, now owned by the caller, or -1
 *
 * Return: queue index, or -EINVAL
 */
static int vu_msg_vring_fd(struct vhost_user_msg *msg, int *fd)
{
	uint64_t v = msg->u64;
	int qi;

	/* Bits other than index and NOFD are reserved. */
	if (v & ~(VHOST_USER_VRING_IDX_MASK | VHOST_USER_VRING_NOFD_MASK))
		return -EINVAL;
	qi = vu_msg_queue(v & VHOST_USER_VRING_IDX_MASK);
	if (qi < 0)
		return qi;
	*fd = -1;
	if (!(v & VHOST_USER_VRING_NOFD_MASK)) {
		*fd = msg->fds[0];
		msg->fds[0] = -1;
	}
	return qi;
}

/**
 * vu_set_vring_kick() - SET_VRING_KICK: eventfd the guest kicks
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_set_vring_kick(struct vu_dev *dev, struct vhost_user_msg *msg,
			     uint32_t *rsize)
{
	int fd, qi = vu_msg_vring_fd(msg, &fd);
	struct vu_queue *q;

	if (qi < 0)
		return qi;
	q = &dev->q[qi];
	/* The port polls the old fd: stop first, then it may be closed. */
	vu_queue_stop(dev, qi);
	if (q->kick_fd >= 0)
		close(q->kick_fd);
	q->kick_fd = fd;	/* -1: polling mode, which we do not start */
	vu_queue_update(dev, qi);
	return 0;
}

/**
 * vu_set_vring_call() - SET_VRING_CALL: eventfd we signal
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_set_vring_call(struct vu_dev *dev, struct vhost_user_msg *msg,
			     uint32_t *rsize)
{
	int old, fd, qi = vu_msg_vring_fd(msg, &fd);
	struct vu_queue *q;

	if (qi < 0)
		return qi;
	q = &dev->q[qi];
	/* A started queue may be signalling right now: swap under lock. */
	pthread_mutex_lock(&q->lock);
	old = q->vq.call_fd;
	q->vq.call_fd = fd;
	pthread_mutex_unlock(&q->lock);
	if (old >= 0)
		close(old);
	return 0;
}

/**
 * vu_set_vring_err() - SET_VRING_ERR: eventfd for ring errors
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_set_vring_err(struct vu_dev *dev, struct vhost_user_msg *msg,
			    uint32_t *rsize)
{
	int fd, qi = vu_msg_vring_fd(msg, &fd);
	struct vu_queue *q;

	if (qi < 0)
		return qi;
	q = &dev->q[qi];
	if (q->err_fd >= 0)
		close(q->err_fd);
	q->err_fd = fd;
	return 0;
}

/**
 * vu_set_vring_enable() - SET_VRING_ENABLE: enable or disable a ring
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_set_vring_enable(struct vu_dev *dev,
			       struct vhost_user_msg *msg, uint32_t *rsize)
{
	int qi = vu_msg_queue(msg->state.index);

	if (qi < 0)
		return qi;
	if (msg->state.num > 1)
		return -EINVAL;
	dev->q[qi].enabled = msg->state.num;
	vu_queue_update(dev, qi);
	return 0;
}

static const vu_handler_fn vu_handlers[VHOST_USER_REQ_COUNT] = {
	[VHOST_USER_GET_FEATURES]		= vu_get_features,
	[VHOST_USER_SET_FEATURES]		= vu_set_features,
	[VHOST_USER_SET_OWNER]			= vu_set_owner,
	[VHOST_USER_RESET_OWNER]		= vu_reset_owner,
	[VHOST_USER_SET_MEM_TABLE]		= vu_set_mem_table,
	[VHOST_USER_SET_VRING_NUM]		= vu_set_vring_num,
	[VHOST_USER_SET_VRING_ADDR]		= vu_set_vring_addr,
	[VHOST_USER_SET_VRING_BASE]		= vu_set_vring_base,
	[VHOST_USER_GET_VRING_BASE]		= vu_get_vring_base,
	[VHOST_USER_SET_VRING_KICK]		= vu_set_vring_kick,
	[VHOST_USER_SET_VRING_CALL]		= vu_set_vring_call,
	[VHOST_USER_SET_VRING_ERR]		= vu_set_vring_err,
	[VHOST_USER_GET_PROTOCOL_FEATURES]	= vu_get_protocol_features,
	[VHOST_USER_SET_PROTOCOL_FEATURES]	= vu_set_protocol_features,
	[VHOST_USER_GET_QUEUE_NUM]		= vu_get_queue_num,
	[VHOST_USER_SET_VRING_ENABLE]		= vu_set_vring_enable,
	[VHOST_USER_GET_MAX_MEM_SLOTS]		= vu_get_max_mem_slots,
	[VHOST_USER_ADD_MEM_REG]		= vu_add_mem_reg,
	[VHOST_USER_REM_MEM_REG]		= vu_rem_mem_reg,
};

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
		vu_dev_proto_err(dev, NULL, -EIO, "guest broke a ring");
		return -EIO;
	}

	rc = vhost_user_recv(dev->fd, &msg);
	if (rc == -ECONNRESET)
		return rc;
	if (rc < 0) {
		vu_dev_proto_err(dev, NULL, rc, "cannot read message");
		return rc;
	}
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

	debug("%s: vhost-user %s", dev->name,
	      vhost_user_req_name(msg.hdr.request));
	rc = vu_handlers[msg.hdr.request](dev, &msg, &rsize);
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
