// SPDX-License-Identifier: GPL-2.0-or-later
/* vu_msg.c - vhost-user requests: what each one does to a device
 *
 * DOC: Theory of Operation
 *
 * vhost_user.c checked the message's shape; vu_dev_handle() (vu_dev.c)
 * read it, will reply to it and decides what a failure costs the
 * session.  In between, vu_msg_apply() looks the request up in a table
 * and runs its handler here.  Handlers change device state only through
 * the state machine in vu_dev.c: anything a started queue uses changes
 * with the queue stopped (vu_queue_stop(), then vu_queue_update()) or
 * under its lock, and the memory table under every queue lock.
 *
 * The payload's size and descriptor count are right by the time a
 * handler runs, but every value in it is still the peer's: ring indexes,
 * sizes, feature bits and the MTU are checked here before use.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/virtio_config.h>

#include "../efd.h"
#include "../log.h"
#include "vhost_user.h"
#include "vu_dev.h"
#include "vu_internal.h"

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
 * @dev:	device
 * @idx:	index as sent
 *
 * Return: the index, or -EINVAL if the device has no such queue (beyond
 *	   its @pairs)
 */
static int vu_msg_queue(const struct vu_dev *dev, uint64_t idx)
{
	if (idx < 2ULL * dev->pairs)
		return (int)idx;
	src_warn(dev->log, "%s: ring %llu is beyond the device's %u queue "
		 "pair(s) (port key queues=)", dev->name,
		 (unsigned long long)idx, dev->pairs);
	return -EINVAL;
}

/**
 * vu_msg_get_features() - GET_FEATURES: offered bits plus PROTOCOL_FEATURES
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_get_features(struct vu_dev *dev, struct vhost_user_msg *msg,
			       uint32_t *rsize)
{
	msg->u64 = dev->features_offered | VU_F_PROTOCOL_FEATURES |
		   VU_F_LOG_ALL;
	*rsize = sizeof(msg->u64);
	return 0;
}

/**
 * vu_msg_set_features() - SET_FEATURES: ack virtio features, update rings
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_features(struct vu_dev *dev, struct vhost_user_msg *msg,
			       uint32_t *rsize)
{
	bool was_logging = dev->features & VU_F_LOG_ALL;
	uint64_t f = msg->u64;
	unsigned int i;

	/* Acking what we never offered is a bug or an attack; refuse
	 * rather than run with semantics we do not have.
	 */
	if (f & ~(dev->features_offered | VU_F_PROTOCOL_FEATURES |
		  VU_F_LOG_ALL))
		return -EINVAL;
	for (i = 0; i < VU_MAX_QUEUES; i++) {
		struct vu_queue *q = &dev->q[i];
		bool packed = f & (1ull << VIRTIO_F_RING_PACKED);

		/* The layout changes what every ring address means: a
		 * started ring stops and is mapped again as the new kind.
		 */
		if (q->vq.packed != packed)
			vu_queue_stop(dev, i);
		vlock_lock(&q->lock);
		q->vq.packed = packed;
		q->vq.in_order = f & (1ull << VIRTIO_F_IN_ORDER);
		q->vq.event_idx = f & (1ull << VIRTIO_RING_F_EVENT_IDX);
		q->vq.indirect = f & (1ull << VIRTIO_RING_F_INDIRECT_DESC);
		vlock_unlock(&q->lock);
	}
	/* QEMU turns logging on and off with this message while the rings
	 * run (the rest of the word unchanged): nothing here stops them,
	 * and workers read the features under their queue's lock.
	 */
	vu_dev_lock_all(dev);
	dev->features = f;
	vu_dev_log_apply(dev);
	vu_dev_unlock_all(dev);
	if (was_logging != !!(f & VU_F_LOG_ALL))
		src_info(dev->log, "%s: migration dirty logging %s%s", dev->name,
			 f & VU_F_LOG_ALL ? "on" : "off",
			 f & VU_F_LOG_ALL && !dev->dlog.bits ?
			 " (no log yet: SET_LOG_BASE)" : "");
	/* PROTOCOL_FEATURES changes what "enabled" means. */
	vu_dev_update_all(dev);
	return 0;
}

/**
 * vu_msg_get_protocol_features() - GET_PROTOCOL_FEATURES: what we offer
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_get_protocol_features(struct vu_dev *dev,
					struct vhost_user_msg *msg,
					uint32_t *rsize)
{
	msg->u64 = VHOST_USER_PROTOCOL_FEATURES;
	*rsize = sizeof(msg->u64);
	return 0;
}

/**
 * vu_msg_set_protocol_features() - SET_PROTOCOL_FEATURES: ack a subset
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_protocol_features(struct vu_dev *dev,
					struct vhost_user_msg *msg,
					uint32_t *rsize)
{
	if (msg->u64 & ~VHOST_USER_PROTOCOL_FEATURES)
		return -EINVAL;
	dev->protocol_features = msg->u64;
	return 0;
}

/**
 * vu_msg_get_queue_num() - GET_QUEUE_NUM: the device's queue pairs
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_get_queue_num(struct vu_dev *dev, struct vhost_user_msg *msg,
				uint32_t *rsize)
{
	msg->u64 = dev->pairs;
	*rsize = sizeof(msg->u64);
	return 0;
}

/**
 * vu_msg_get_max_mem_slots() - GET_MAX_MEM_SLOTS: regions ADD_MEM_REG may add
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_get_max_mem_slots(struct vu_dev *dev,
				    struct vhost_user_msg *msg, uint32_t *rsize)
{
	msg->u64 = GUEST_MEM_MAX_REGIONS;
	*rsize = sizeof(msg->u64);
	return 0;
}

/**
 * vu_msg_set_owner() - SET_OWNER: the session has an owner
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_owner(struct vu_dev *dev, struct vhost_user_msg *msg,
			    uint32_t *rsize)
{
	dev->owner = true;
	return 0;
}

/**
 * vu_msg_reset_owner() - RESET_OWNER: forget queues, memory and features
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_reset_owner(struct vu_dev *dev, struct vhost_user_msg *msg,
			      uint32_t *rsize)
{
	vu_dev_reset(dev);
	return 0;
}

/**
 * vu_msg_mem_refused() - say why a region was not mapped
 * @dev:	device (the connection is dropped after this)
 * @r:		the region
 * @rc:		guest_mem_add()'s or guest_mem_ref()'s error
 */
static void vu_msg_mem_refused(const struct vu_dev *dev,
			       const struct vhost_user_region *r, int rc)
{
	const char *why = rc == -ENOMEM ? "over the port's max-mem" :
			  rc == -ENOSPC ? "table full, or the region added "
					  "too often" :
			  rc == -EINVAL ? "bad range, or not a file on tmpfs "
					  "or hugetlbfs at least that long" :
			  strerror(-rc);

	src_warn(dev->log, "%s: guest memory region at 0x%llx, %llu bytes, "
		 "refused: %s", dev->name, (unsigned long long)r->gpa,
		 (unsigned long long)r->size, why);
}

/**
 * vu_msg_log_covers() - while logging, a new table must fit in the log
 * @dev:	device
 * @nm:		the table about to be installed
 *
 * QEMU grows the log before it grows guest memory; a table the log does
 * not cover would have writes we cannot mark, and the guest would arrive
 * with pages the destination never got.
 *
 * Return: 0, or -EINVAL (logged)
 */
static int vu_msg_log_covers(const struct vu_dev *dev,
			     const struct guest_mem *nm)
{
	uint64_t need = dirty_log_need(nm);

	if (!(dev->features & VU_F_LOG_ALL) || !dev->dlog.bits ||
	    need <= dev->dlog.size)
		return 0;
	src_warn(dev->log, "%s: guest memory needs a dirty log of %llu bytes, "
		 "the log has %llu: table refused", dev->name,
		 (unsigned long long)need, (unsigned long long)dev->dlog.size);
	return -EINVAL;
}

/**
 * vu_msg_set_mem_table() - SET_MEM_TABLE: replace the whole memory table
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_mem_table(struct vu_dev *dev, struct vhost_user_msg *msg,
				uint32_t *rsize)
{
	struct guest_mem nm, old;
	unsigned int i, lost;
	int rc;

	/* Map the new table before touching the old one: on failure the
	 * device keeps running on what it had.
	 */
	guest_mem_init_as(&nm, &dev->mem);
	for (i = 0; i < msg->mem.nregions; i++) {
		const struct vhost_user_region *r = &msg->mem.regions[i];

		rc = guest_mem_add(&nm, msg->fds[i], r->gpa, r->size, r->uva,
				   r->mmap_offset);
		if (rc < 0) {
			vu_msg_mem_refused(dev, r, rc);
			guest_mem_clear(&nm);
			return rc;
		}
	}
	rc = vu_msg_log_covers(dev, &nm);
	if (rc < 0) {
		guest_mem_clear(&nm);
		return rc;
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
 * vu_msg_add_mem_reg() - ADD_MEM_REG: map one more region
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_add_mem_reg(struct vu_dev *dev, struct vhost_user_msg *msg,
			      uint32_t *rsize)
{
	const struct vhost_user_region *r = &msg->mem_reg.region;
	struct guest_mem nm;
	unsigned int lost;
	int rc;

	/* The same region again (QEMU before 8.0 adds each once per queue
	 * pair, guest_mem.c): a reference, no mapping, no ring moves.
	 */
	vu_dev_lock_all(dev);
	rc = guest_mem_ref(&dev->mem, msg->fds[0], r->gpa, r->size, r->uva,
			   r->mmap_offset);
	vu_dev_unlock_all(dev);
	if (rc != -ENOENT) {
		if (rc < 0)
			vu_msg_mem_refused(dev, r, rc);
		return rc;
	}

	/* mmap() on a copy, outside the locks; the copy shares the old
	 * mappings, so it simply becomes the table.
	 */
	nm = dev->mem;
	rc = guest_mem_add(&nm, msg->fds[0], r->gpa, r->size, r->uva,
			   r->mmap_offset);
	if (rc < 0) {
		vu_msg_mem_refused(dev, r, rc);
		return rc;
	}
	rc = vu_msg_log_covers(dev, &nm);
	if (rc < 0) {
		/* Only the new region is the copy's own. */
		guest_mem_remove(&nm, r->gpa, r->size, r->uva);
		return rc;
	}
	vu_dev_lock_all(dev);
	dev->mem = nm;
	vu_dev_mem_changed(dev, &lost);
	vu_dev_unlock_all(dev);
	vu_dev_mem_finish(dev, lost);
	return 0;
}

/**
 * vu_msg_rem_mem_reg() - REM_MEM_REG: unmap the region matching gpa, size,
 *			  uva, once every ADD_MEM_REG of it is matched
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_rem_mem_reg(struct vu_dev *dev, struct vhost_user_msg *msg,
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
	return rc < 0 ? rc : 0;		/* 1: a reference dropped */
}

/**
 * vu_msg_set_vring_num() - SET_VRING_NUM: ring size
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_vring_num(struct vu_dev *dev, struct vhost_user_msg *msg,
				uint32_t *rsize)
{
	int qi = vu_msg_queue(dev, msg->state.index);
	unsigned int num = msg->state.num;

	if (qi < 0)
		return qi;
	/* Packed rings may have any size up to 2^15 (SET_FEATURES came
	 * first); virtq_map() checks again against the final layout.
	 */
	if (!num || num > VIRTQ_MAX_SIZE ||
	    ((num & (num - 1)) && !dev->q[qi].vq.packed))
		return -EINVAL;
	vu_queue_stop(dev, qi);
	dev->q[qi].vq.num = (uint16_t)num;
	dev->q[qi].num_set = true;
	vu_queue_update(dev, qi);
	return 0;
}

/**
 * vu_msg_set_vring_addr() - SET_VRING_ADDR: ring addresses (front end uvas)
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_vring_addr(struct vu_dev *dev, struct vhost_user_msg *msg,
				 uint32_t *rsize)
{
	const struct vhost_vring_addr *a = &msg->addr;
	int qi = vu_msg_queue(dev, a->index);
	struct vu_queue *q;

	if (qi < 0)
		return qi;
	if (a->flags & ~(1u << VHOST_VRING_F_LOG))
		return -EINVAL;	/* no other flag is defined */
	q = &dev->q[qi];
	/* The same addresses again, for a started ring: QEMU turning the
	 * used ring's logging (VHOST_VRING_F_LOG) on or off as a migration
	 * starts or ends.  The ring keeps running.
	 */
	if (q->started && q->vq.desc_uva == a->desc_user_addr &&
	    q->vq.avail_uva == a->avail_user_addr &&
	    q->vq.used_uva == a->used_user_addr) {
		vlock_lock(&q->lock);
		q->vq.log_used = a->flags & (1u << VHOST_VRING_F_LOG);
		q->vq.log_addr = a->log_guest_addr;
		vlock_unlock(&q->lock);
		return 0;
	}
	vu_queue_stop(dev, qi);
	q->vq.log_used = a->flags & (1u << VHOST_VRING_F_LOG);
	q->vq.log_addr = a->log_guest_addr;
	q->vq.desc_uva = a->desc_user_addr;
	q->vq.avail_uva = a->avail_user_addr;
	q->vq.used_uva = a->used_user_addr;
	q->addr_set = true;
	vu_queue_update(dev, qi);
	return 0;
}

/**
 * vu_msg_set_vring_base() - SET_VRING_BASE: where the ring resumes
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_vring_base(struct vu_dev *dev, struct vhost_user_msg *msg,
				 uint32_t *rsize)
{
	int qi = vu_msg_queue(dev, msg->state.index);
	int rc;

	if (qi < 0)
		return qi;
	if (!dev->q[qi].vq.packed && msg->state.num > UINT16_MAX)
		return -EINVAL;	/* split rings have 16-bit indexes */
	vu_queue_stop(dev, qi);
	/* Split: 16 bits; packed: positions and wrap counters (virtq.h). */
	rc = virtq_set_base(&dev->q[qi].vq, msg->state.num);
	if (rc)
		return rc;
	vu_queue_update(dev, qi);
	return 0;
}

/**
 * vu_msg_get_vring_base() - GET_VRING_BASE: stop the ring, report where
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_get_vring_base(struct vu_dev *dev, struct vhost_user_msg *msg,
				 uint32_t *rsize)
{
	int qi = vu_msg_queue(dev, msg->state.index);
	struct vu_queue *q;

	if (qi < 0)
		return qi;
	q = &dev->q[qi];
	/* The spec's "stop the ring": after this the datapath is out, so
	 * last_avail_idx is final.  The kick fd goes too: the front end
	 * sends a new one when it starts the ring again.
	 */
	vu_queue_stop(dev, qi);
	vlock_lock(&q->lock);
	msg->state.num = virtq_get_base(&q->vq);
	vlock_unlock(&q->lock);
	if (q->kick_fd >= 0) {
		close(q->kick_fd);
		q->kick_fd = -1;
	}
	*rsize = sizeof(msg->state);
	return 0;
}

/**
 * vu_msg_vring_fd() - ring index and descriptor of a KICK/CALL/ERR message
 * @dev:	device
 * @msg:	message (descriptor count already checked against NOFD)
 * @fd:		out: the descriptor, now owned by the caller, or -1
 *
 * Return: queue index, or -EINVAL
 */
static int vu_msg_vring_fd(const struct vu_dev *dev,
			   struct vhost_user_msg *msg, int *fd)
{
	uint64_t v = msg->u64;
	int qi;

	/* Bits other than index and NOFD are reserved. */
	if (v & ~(VHOST_USER_VRING_IDX_MASK | VHOST_USER_VRING_NOFD_MASK))
		return -EINVAL;
	qi = vu_msg_queue(dev, v & VHOST_USER_VRING_IDX_MASK);
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
 * vu_msg_check_efd() - a KICK/CALL/ERR fd must be an eventfd
 * @dev:	device
 * @msg:	the message, for the log
 * @qi:		queue index
 * @fd:		the fd it carried, or -1; closed if refused
 *
 * Anything else (a pipe, a socket, a file) could block us or lie about
 * its state (efd.c); refused with a clear line and the request fails.
 *
 * Return: 0 or -errno
 */
static int vu_msg_check_efd(struct vu_dev *dev,
			    const struct vhost_user_msg *msg, int qi, int fd)
{
	char what[64];
	int rc;

	if (fd < 0)
		return 0;
	rc = efd_check(fd, what, sizeof(what));
	if (!rc)
		return 0;
	close(fd);
	src_warn(dev->log, "%s: %s: queue %d: %s is not an eventfd, refused",
		 dev->name, vhost_user_req_name(msg->hdr.request), qi,
		 rc == -EINVAL ? what : strerror(-rc));
	return rc;
}

/**
 * vu_msg_set_vring_kick() - SET_VRING_KICK: eventfd the guest kicks
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_vring_kick(struct vu_dev *dev, struct vhost_user_msg *msg,
				 uint32_t *rsize)
{
	int rc, fd, qi = vu_msg_vring_fd(dev, msg, &fd);
	struct vu_queue *q;

	if (qi < 0)
		return qi;
	rc = vu_msg_check_efd(dev, msg, qi, fd);
	if (rc < 0)
		return rc;
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
 * vu_msg_set_vring_call() - SET_VRING_CALL: eventfd we signal
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_vring_call(struct vu_dev *dev, struct vhost_user_msg *msg,
				 uint32_t *rsize)
{
	int rc, old, fd, qi = vu_msg_vring_fd(dev, msg, &fd);
	struct vu_queue *q;

	if (qi < 0)
		return qi;
	rc = vu_msg_check_efd(dev, msg, qi, fd);
	if (rc < 0)
		return rc;
	q = &dev->q[qi];
	/* A started queue may be signalling right now: swap under lock,
	 * then wait for writes of the old fd begun before (outside it).
	 */
	vlock_lock(&q->lock);
	old = q->vq.call_fd;
	q->vq.call_fd = fd;
	vlock_unlock(&q->lock);
	vu_queue_call_quiesce(q);
	if (old >= 0)
		close(old);
	return 0;
}

/**
 * vu_msg_set_vring_err() - SET_VRING_ERR: eventfd for ring errors
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_vring_err(struct vu_dev *dev, struct vhost_user_msg *msg,
				uint32_t *rsize)
{
	int rc, fd, qi = vu_msg_vring_fd(dev, msg, &fd);
	struct vu_queue *q;

	if (qi < 0)
		return qi;
	rc = vu_msg_check_efd(dev, msg, qi, fd);
	if (rc < 0)
		return rc;
	q = &dev->q[qi];
	if (q->err_fd >= 0)
		close(q->err_fd);
	q->err_fd = fd;
	return 0;
}

/**
 * vu_msg_set_vring_enable() - SET_VRING_ENABLE: enable or disable a ring
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_vring_enable(struct vu_dev *dev,
				   struct vhost_user_msg *msg, uint32_t *rsize)
{
	int qi = vu_msg_queue(dev, msg->state.index);

	if (qi < 0)
		return qi;
	if (msg->state.num > 1)
		return -EINVAL;
	dev->q[qi].enabled = msg->state.num;
	vu_queue_update(dev, qi);
	return 0;
}

/**
 * vu_msg_net_set_mtu() - NET_SET_MTU: the MTU the guest was told
 * @dev:	device
 * @msg:	checked message
 * @rsize:	out: reply payload size
 *
 * QEMU sends this once per vhost start, before SET_FEATURES, when the
 * guest acked VIRTIO_NET_F_MTU and NET_MTU was negotiated; so it is gated
 * on the protocol feature only.  A front end sending it without NET_MTU
 * is out of protocol: refused.  The value is the peer's: the virtio spec
 * allows 68..65535, and a wider u64 must not be truncated into range.
 * With REPLY_ACK, QEMU turns our refusal into "MTU not supported by the
 * backend" and does not start the device, as the spec intends.
 *
 * Return: 0, -ENOTSUP without NET_MTU, -EINVAL out of range
 */
static int vu_msg_net_set_mtu(struct vu_dev *dev, struct vhost_user_msg *msg,
			      uint32_t *rsize)
{
	uint64_t mtu = msg->u64;

	if (!(dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_NET_MTU)))
		return -ENOTSUP;
	if (mtu < VU_MTU_MIN || mtu > VU_MTU_MAX)
		return -EINVAL;
	/* The port's datapath may read it under a queue lock. */
	vu_dev_lock_all(dev);
	dev->mtu = (uint16_t)mtu;
	vu_dev_unlock_all(dev);
	src_info(dev->log, "%s: guest MTU %u", dev->name, dev->mtu);
	return 0;
}

/**
 * vu_msg_set_log_base() - SET_LOG_BASE: map the migration dirty log
 * @dev:	device
 * @msg:	checked message (one fd: the log's file)
 * @rsize:	out: reply payload size (an empty reply: QEMU waits for it)
 *
 * Only with LOG_SHMFD, the one way a back end in another process can be
 * given a log.  The log must cover guest memory as it is; a file that
 * is not shared memory, shorter than it says or a size beyond reason is
 * refused, and a request with a reply that fails costs the connection.
 * The new log replaces the old one under every queue lock, so no worker
 * marks the old one once it is unmapped.
 *
 * Return: 0 or -errno
 */
static int vu_msg_set_log_base(struct vu_dev *dev, struct vhost_user_msg *msg,
			       uint32_t *rsize)
{
	const struct vhost_user_log *lg = &msg->log;
	struct dirty_log nl;
	uint64_t need;
	int rc;

	if (!(dev->protocol_features &
	      (1ull << VHOST_USER_PROTOCOL_F_LOG_SHMFD)))
		return -ENOTSUP;
	rc = dirty_log_map(&nl, msg->fds[0], lg->mmap_size, lg->mmap_offset,
			   dev);
	if (rc < 0) {
		src_warn(dev->log, "%s: dirty log of %llu bytes at offset %llu "
			 "refused: %s", dev->name,
			 (unsigned long long)lg->mmap_size,
			 (unsigned long long)lg->mmap_offset,
			 rc == -EINVAL ? "bad size, or not a file on tmpfs "
			 "or hugetlbfs at least that long" :
			 rc == -EPERM ? "not sealed against shrinking "
			 "(F_SEAL_SHRINK)" : strerror(-rc));
		return rc;
	}
	need = dirty_log_need(&dev->mem);
	if (nl.size < need) {
		src_warn(dev->log, "%s: dirty log of %llu bytes refused: guest "
			 "memory needs %llu", dev->name,
			 (unsigned long long)nl.size,
			 (unsigned long long)need);
		dirty_log_unmap(&nl);
		return -EINVAL;
	}
	vu_dev_log_replace(dev, &nl);
	src_debug(dev->log, "%s: dirty log of %llu bytes", dev->name,
		  (unsigned long long)nl.size);
	*rsize = 0;
	return 0;
}

/**
 * vu_msg_send_rarp() - SEND_RARP: announce the guest's MAC after a move
 * @dev:	device
 * @msg:	checked message: the MAC in the payload's first 6 bytes
 * @rsize:	out: reply payload size
 *
 * QEMU sends it on the destination of a migration, for a guest that
 * cannot announce itself (no GUEST_ANNOUNCE).  The port makes the RARP,
 * as if the guest sent it, under the same rules as the guest's frames
 * (its MAC lock, its quota of MACs).
 *
 * Return: 0, -ENOTSUP without the RARP protocol feature, -EINVAL for a
 *	   group or zero address
 */
static int vu_msg_send_rarp(struct vu_dev *dev, struct vhost_user_msg *msg,
			    uint32_t *rsize)
{
	const uint8_t *mac = msg->raw;

	if (!(dev->protocol_features & (1ull << VHOST_USER_PROTOCOL_F_RARP)))
		return -ENOTSUP;
	if ((mac[0] & 1) || !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] |
			      mac[5]))
		return -EINVAL;
	src_info(dev->log, "%s: front end announces %02x:%02x:%02x:%02x:%02x:"
		 "%02x here (SEND_RARP)", dev->name, mac[0], mac[1], mac[2],
		 mac[3], mac[4], mac[5]);
	if (dev->ops && dev->ops->announce)
		dev->ops->announce(dev, mac);
	return 0;
}

static const vu_handler_fn vu_msg_handlers[VHOST_USER_REQ_COUNT] = {
	[VHOST_USER_GET_FEATURES]		= vu_msg_get_features,
	[VHOST_USER_SET_FEATURES]		= vu_msg_set_features,
	[VHOST_USER_SET_OWNER]			= vu_msg_set_owner,
	[VHOST_USER_RESET_OWNER]		= vu_msg_reset_owner,
	[VHOST_USER_SET_MEM_TABLE]		= vu_msg_set_mem_table,
	[VHOST_USER_SET_LOG_BASE]		= vu_msg_set_log_base,
	[VHOST_USER_SET_VRING_NUM]		= vu_msg_set_vring_num,
	[VHOST_USER_SET_VRING_ADDR]		= vu_msg_set_vring_addr,
	[VHOST_USER_SET_VRING_BASE]		= vu_msg_set_vring_base,
	[VHOST_USER_GET_VRING_BASE]		= vu_msg_get_vring_base,
	[VHOST_USER_SET_VRING_KICK]		= vu_msg_set_vring_kick,
	[VHOST_USER_SET_VRING_CALL]		= vu_msg_set_vring_call,
	[VHOST_USER_SET_VRING_ERR]		= vu_msg_set_vring_err,
	[VHOST_USER_GET_PROTOCOL_FEATURES]	= vu_msg_get_protocol_features,
	[VHOST_USER_SET_PROTOCOL_FEATURES]	= vu_msg_set_protocol_features,
	[VHOST_USER_GET_QUEUE_NUM]		= vu_msg_get_queue_num,
	[VHOST_USER_SET_VRING_ENABLE]		= vu_msg_set_vring_enable,
	[VHOST_USER_SEND_RARP]			= vu_msg_send_rarp,
	[VHOST_USER_NET_SET_MTU]		= vu_msg_net_set_mtu,
	[VHOST_USER_GET_MAX_MEM_SLOTS]		= vu_msg_get_max_mem_slots,
	[VHOST_USER_ADD_MEM_REG]		= vu_msg_add_mem_reg,
	[VHOST_USER_REM_MEM_REG]		= vu_msg_rem_mem_reg,
};

/**
 * vu_msg_apply() - run the handler of a checked request
 * @dev:	device
 * @msg:	message vhost_user_check() accepted; payload reused for the
 *		reply, descriptors a handler keeps set to -1 in @msg->fds
 * @rsize:	out: reply payload size (requests with a reply only)
 *
 * Return: 0, or -errno: the request was refused (-ENOSYS if no handler,
 *	   which vhost_user_check() already rules out for named requests)
 *
 * Context: control thread, no queue lock held
 */
int vu_msg_apply(struct vu_dev *dev, struct vhost_user_msg *msg,
		 uint32_t *rsize)
{
	uint32_t req = msg->hdr.request;

	if (req >= VHOST_USER_REQ_COUNT || !vu_msg_handlers[req])
		return -ENOSYS;
	return vu_msg_handlers[req](dev, msg, rsize);
}
