/* SPDX-License-Identifier: GPL-2.0-or-later */
/* virtq_int.h - what the split (virtq.c) and packed (virtq_packed.c)
 * walkers share; not for users of the virtq API
 *
 * Both layouts end up in the same place: a descriptor's buffer, read
 * once, checked and turned into host segments by virtq_add_seg(), so the
 * two walkers apply the same rules (readable before writable, 4 GiB per
 * chain, every byte through guest_mem) and differ only in how they find
 * the next descriptor.
 */
#ifndef VHOSTD_VIRTQ_INT_H
#define VHOSTD_VIRTQ_INT_H

#include <errno.h>

#include "virtq.h"

/**
 * struct virtq_walk - state of one chain walk
 * @table:	descriptor table being walked (ring or indirect)
 * @table_num:	entries in @table
 * @indirect:	@table is an indirect table
 * @writable:	a writable segment was seen (readable ones must come first)
 */
struct virtq_walk {
	const struct vring_desc *table;
	uint32_t table_num;
	bool indirect;
	bool writable;
};

/**
 * virtq_add_seg() - append one descriptor's buffer to @elem
 * @vq:		queue
 * @elem:	element being built
 * @w:		walk state
 * @addr:	guest physical address (already read once)
 * @len:	length (already read once)
 * @write:	device-writable
 *
 * Return: VIRTQ_POP_OK to continue, or DROP/BROKEN
 */
static inline enum virtq_pop_result virtq_add_seg(struct virtq *vq,
						  struct virtq_elem *elem,
						  struct virtq_walk *w,
						  uint64_t addr, uint32_t len,
						  bool write)
{
	unsigned int used = elem->out_num + elem->in_num;
	uint32_t *total = write ? &elem->in_len : &elem->out_len;
	int n;

	/* The first reason to drop ends the walk: what follows is never
	 * looked at, so a hostile chain costs no more than its prefix.
	 */
	if (!write && w->writable)
		return VIRTQ_POP_DROP;	/* virtio: readable before writable */
	w->writable |= write;
	if (len > UINT32_MAX - *total)
		return VIRTQ_POP_BROKEN; /* a chain over 4 GiB is a lie */
	*total += len;

	n = guest_mem_iov_hint(vq->mem, &vq->mem_hint, addr, len,
			       &elem->iov[used], VIRTQ_ELEM_IOV_MAX - used);
	if (n == -E2BIG)
		return VIRTQ_POP_DROP;	/* more segments than we take */
	if (n < 0)
		return VIRTQ_POP_BROKEN; /* outside guest memory */
	if (write)
		elem->in_num = (uint16_t)(elem->in_num + n);
	else
		elem->out_num = (uint16_t)(elem->out_num + n);
	return VIRTQ_POP_OK;
}

/**
 * virtq_log_used() - mark bytes of the used ring (packed: device area)
 * @vq:		queue
 * @off:	offset of the first byte written
 * @len:	bytes written
 *
 * Logged at the ring's log_guest_addr, as the vhost-user spec asks, and
 * only with VHOST_VRING_F_LOG.
 */
static inline void virtq_log_used(struct virtq *vq, uint64_t off,
				  uint64_t len)
{
	if (__builtin_expect(vq->log != NULL, 0) && vq->log_used)
		dirty_log_gpa(vq->log, vq->log_addr + off, len);
}

void virtq_packed_init(struct virtq *vq);
int virtq_packed_map(struct virtq *vq, const struct guest_mem *mem);
unsigned int virtq_packed_avail_count(struct virtq *vq);
unsigned int virtq_packed_prefetch(struct virtq *vq, unsigned int n);
void virtq_packed_prefetch_used(struct virtq *vq, unsigned int n);
enum virtq_pop_result virtq_packed_pop(struct virtq *vq,
				       struct virtq_elem *elem);
unsigned int virtq_packed_pop_burst(struct virtq *vq,
				    struct virtq_elem *const *elems,
				    unsigned int n, unsigned int descs,
				    enum virtq_pop_result *last);
void virtq_packed_unpop(struct virtq *vq, unsigned int n);
void virtq_packed_push(struct virtq *vq, uint16_t id, uint32_t len);
void virtq_packed_push_burst(struct virtq *vq, const uint16_t *ids,
			     const uint32_t *lens, unsigned int n);
void virtq_packed_flush(struct virtq *vq);
bool virtq_packed_should_notify(struct virtq *vq);
bool virtq_packed_enable_notify(struct virtq *vq);
void virtq_packed_disable_notify(struct virtq *vq);

#endif /* VHOSTD_VIRTQ_INT_H */
