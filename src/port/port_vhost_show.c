// SPDX-License-Identifier: GPL-2.0-or-later
/* port_vhost_show.c - a vhost-user port's state for ctl "show"
 *
 * What "show NAME" prints of a guest beyond its counters and its
 * negotiated features (port_vhost_peer()): the socket, the device's
 * state and the last error that cost a front end its session, the guest
 * memory table by guest physical address, and each ring: size, layout,
 * where our indexes stand, which fds the front end gave.
 *
 * Host addresses never appear: a ctl client who may read counters is not
 * thereby told where vhostd mapped a guest (or its rings) in its own
 * address space.  The memory table is the control thread's (it alone
 * replaces it, under every queue lock): read here without a lock.  Ring
 * indexes move under the queue lock, taken here one queue at a time, as
 * briefly as a datapath burst would.
 */
#include "port_vhost.h"
#include "../util.h"

/**
 * port_vhost_show_mem() - append ,"memory":{...}: the guest memory table
 * @o:		writer
 * @m:		the device's table (control thread: stable)
 */
static void port_vhost_show_mem(struct port_out *o, const struct guest_mem *m)
{
	uint64_t total = 0;
	unsigned int i;

	o->put(o, ",\"memory\":{\"regions\":[");
	for (i = 0; i < m->nregions; i++) {
		const struct guest_mem_region *r = &m->r[i];

		o->put(o, "%s{\"gpa\":\"0x%llx\",\"size\":%llu}", i ? "," : "",
		       (unsigned long long)r->gpa,
		       (unsigned long long)r->size);
		total += r->size;
	}
	o->put(o, "],\"bytes\":%llu,\"limit\":%llu}",
	       (unsigned long long)total, (unsigned long long)m->limit);
}

/**
 * port_vhost_show_ring() - append one ring's object
 * @o:		writer
 * @pv:		port
 * @qi:		queue index (even: RX, the guest's receive queue; odd: TX)
 * @first:	no comma before it
 *
 * Context: control thread; takes @qi's lock for the indexes
 */
static void port_vhost_show_ring(struct port_out *o, struct port_vhost *pv,
				 unsigned int qi, bool first)
{
	struct vu_queue *q = &pv->dev.q[qi];
	unsigned int held = 0;
	uint16_t avail, used;
	bool broken;

	vlock_lock(&q->lock);
	avail = q->vq.last_avail_idx;
	used = q->vq.used_idx;
	broken = q->vq.broken;
	if (!(qi & 1) && qi / 2 < pv->pairs)
		held = pv->rxq[qi / 2].held;
	vlock_unlock(&q->lock);

	o->put(o, "%s{\"q\":%u,\"pair\":%u,\"dir\":\"%s\",\"size\":%u,"
	       "\"layout\":\"%s\",\"enabled\":%s,\"started\":%s,"
	       "\"broken\":%s,\"last_avail\":%u,\"used\":%u", first ? "" : ",",
	       qi, qi / 2, qi & 1 ? "tx" : "rx", q->vq.num,
	       q->vq.packed ? "packed" : "split",
	       q->enabled ? "true" : "false", q->started ? "true" : "false",
	       broken ? "true" : "false", avail, used);
	o->put(o, ",\"kick_fd\":%s,\"call_fd\":%s,\"err_fd\":%s,"
	       "\"held\":%u}", q->kick_fd >= 0 ? "true" : "false",
	       q->vq.call_fd >= 0 ? "true" : "false",
	       q->err_fd >= 0 ? "true" : "false", held);
}

/**
 * port_vhost_show() - port_ops @show: socket, device, memory, rings
 * @p:		port
 * @o:		writer
 *
 * Context: control thread
 */
void port_vhost_show(const struct port *p, struct port_out *o)
{
	struct port_vhost *pv = p->priv;
	const struct vu_dev *dev = &pv->dev;
	unsigned int qi;

	o->put(o, ",\"vhost\":{\"path\":");
	port_out_str(o, pv->path);
	o->put(o, ",\"client\":%s,\"connected\":%s,\"owner\":%s,"
	       "\"broken\":%s,\"mtu\":%u,\"hdr_len\":%u,\"last_error\":",
	       pv->client ? "true" : "false", dev->fd >= 0 ? "true" : "false",
	       dev->owner ? "true" : "false",
	       __atomic_load_n(&dev->broken, __ATOMIC_ACQUIRE) ?
	       "true" : "false", dev->mtu, vu_dev_hdr_len(dev));
	if (dev->last_err_ns) {
		o->put(o, "{\"reason\":");
		port_out_str(o, dev->last_err);
		o->put(o, ",\"age_s\":%llu}", (unsigned long long)
		       ((now_ns() - dev->last_err_ns) / 1000000000ULL));
	} else {
		o->put(o, "null");
	}
	port_vhost_show_mem(o, &dev->mem);
	o->put(o, ",\"rings\":[");
	for (qi = 0; qi < 2 * pv->pairs; qi++)
		port_vhost_show_ring(o, pv, qi, !qi);
	o->put(o, "]}");
}
