/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vu_internal.h - what vu_dev.c and vu_msg.c share, inside src/vhost/
 *
 * vu_dev.c owns device state: the queue start/stop state machine, the
 * locks, attach/detach, and the per-message policy (read, check, reply).
 * vu_msg.c owns what each request does to that state.  The handlers need
 * the state machine's entry points, and vu_dev_handle() needs the
 * handler table; this header is that seam and nothing else.  Nothing
 * outside src/vhost/ includes it: the layer's interface is vu_dev.h.
 */
#ifndef VHOSTD_VU_INTERNAL_H
#define VHOSTD_VU_INTERNAL_H

#include <stdint.h>

#include "vhost_user.h"
#include "vu_dev.h"

#define VU_F_PROTOCOL_FEATURES	(1ull << VHOST_USER_F_PROTOCOL_FEATURES)

/* NET_SET_MTU range: virtio spec, "Device configuration layout" (mtu). */
#define VU_MTU_MIN		68
#define VU_MTU_MAX		65535

/* vu_dev.c: device state (kernel-doc there) */
void vu_dev_proto_err(struct vu_dev *dev, const struct vhost_user_msg *msg,
		      int rc, const char *what);
/* Every queue lock at once: more than the attributes can name (lock.h). */
void vu_dev_lock_all(struct vu_dev *dev) NO_TSA;
void vu_dev_unlock_all(struct vu_dev *dev) NO_TSA;
void vu_queue_stop(struct vu_dev *dev, unsigned int qi)
	EXCLUDES(dev->q[qi].lock);
void vu_queue_update(struct vu_dev *dev, unsigned int qi)
	EXCLUDES(dev->q[qi].lock);
void vu_dev_update_all(struct vu_dev *dev);
/* Called with every queue lock held (vu_dev_lock_all()). */
void vu_dev_mem_changed(struct vu_dev *dev, unsigned int *lost) NO_TSA;
void vu_dev_mem_finish(struct vu_dev *dev, unsigned int lost);
void vu_dev_reset(struct vu_dev *dev);
void vu_dev_log_apply(struct vu_dev *dev) NO_TSA;
void vu_dev_log_replace(struct vu_dev *dev, const struct dirty_log *nl);

/* vu_msg.c: request handlers (kernel-doc there) */
int vu_msg_apply(struct vu_dev *dev, struct vhost_user_msg *msg,
		 uint32_t *rsize);

#endif /* VHOSTD_VU_INTERNAL_H */
