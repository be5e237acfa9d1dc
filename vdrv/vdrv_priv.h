/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vdrv_priv.h - internals shared by the vdrv files, not for users
 *
 * Three layers, each in its own file: guest memory (vdrv_mem.c), the
 * driver side of a virtqueue (vdrv_ring.c, split; vdrv_ring_packed.c,
 * packed) and vhost-user messages (vdrv_proto.c).  vdrv.c puts them together into a virtio-net device and
 * vdrv_evil.c breaks the rules on purpose.
 */
#ifndef VDRV_PRIV_H
#define VDRV_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <linux/virtio_ring.h>

#include "vdrv.h"

#define VDRV_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define VDRV_ALIGN(x, a)	(((x) + (a) - 1) & ~((uint64_t)(a) - 1))

/* Barriers of the virtio memory model; each use names its pair. */
#define vdrv_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define vdrv_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define vdrv_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define VDRV_READ_ONCE(x)	(*(const volatile __typeof__(x) *)&(x))
#define VDRV_WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

/* ---- guest memory (vdrv_mem.c) ---------------------------------------- */

#define VDRV_MEM_REGIONS	2

/**
 * struct vdrv_region - one guest memory region, backed by its own memfd
 * @fd:		memfd, sent with SET_MEM_TABLE
 * @gpa:	guest-physical base (deliberately not the host address)
 * @size:	bytes
 * @hva:	our mapping (MAP_SHARED); sent as userspace_addr
 * @used:	bump allocator: bytes handed out
 */
struct vdrv_region {
	int fd;
	uint64_t gpa;
	uint64_t size;
	uint8_t *hva;
	uint64_t used;
};

/**
 * struct vdrv_mem - the guest's memory
 * @nregions:	regions in use
 * @r:		the regions, ascending guest-physical address
 */
struct vdrv_mem {
	unsigned int nregions;
	struct vdrv_region r[VDRV_MEM_REGIONS];
};

int vdrv_mem_init(struct vdrv_mem *m, const uint64_t sizes[VDRV_MEM_REGIONS]);
int vdrv_mem_init_at(struct vdrv_mem *m, const uint64_t sizes[VDRV_MEM_REGIONS],
		     uint64_t gpa_off);
void vdrv_mem_fini(struct vdrv_mem *m);
void *vdrv_mem_alloc(struct vdrv_mem *m, unsigned int region, uint64_t size,
		     uint64_t align, uint64_t *gpa);

/* ---- driver side of a virtqueue (vdrv_ring.c, vdrv_ring_packed.c) ----- */

/**
 * struct vdrv_pend - one buffer a packed ring's device gave back
 * @bpos:	position of the used descriptor that names it or, in order,
 *		the batch it ends or is skipped in (bit 16: wrap counter)
 * @bend:	position after that batch (bit 16: wrap counter)
 * @len:	bytes written (0 for a buffer skipped in a batch)
 * @head:	the buffer's head
 * @bdone:	descriptors of the batch up to and including this buffer
 * @last:	the last buffer of its batch (the one the descriptor names)
 */
struct vdrv_pend {
	uint32_t bpos;
	uint32_t bend;
	uint32_t len;
	uint16_t head;
	uint16_t bdone;
	bool last;
};

/**
 * struct vdrv_ring - driver view of one virtqueue, split or packed
 * @index:	vring index (VDRV_RX_RING / VDRV_TX_RING)
 * @num:	queue size
 * @event_idx:	VIRTIO_RING_F_EVENT_IDX negotiated
 * @packed:	VIRTIO_F_RING_PACKED negotiated: @desc is a staging table
 *		in our own memory, in split format, from which
 *		vdrv_ring_add() copies each chain into the ring (@pring),
 *		so that callers write chains the same way for both layouts;
 *		@avail and @used are NULL
 * @in_order:	VIRTIO_F_IN_ORDER negotiated: every used buffer must be
 *		the oldest in flight (checked; a device batching used
 *		entries, which the spec allows, is not supported)
 * @desc:	descriptor table (in guest memory), or the staging table
 * @avail:	driver area (split)
 * @used:	device area (split)
 * @area:	the three addresses for SET_VRING_ADDR: descriptor table
 *		or ring, driver area, device area
 * @pring:	packed: the descriptor ring (guest memory)
 * @drv_ev:	packed: driver event suppression (ours, guest memory)
 * @dev_ev:	packed: device event suppression (the device's)
 * @p_next:	packed: next ring position we make available
 * @p_wrap:	packed: driver ring wrap counter at @p_next
 * @p_kicked:	packed: @p_next at the previous kick decision
 * @p_kicked_wrap: packed: @p_wrap then
 * @p_used:	packed: next position a used descriptor appears at
 * @p_used_wrap: packed: the device's wrap counter expected there
 * @p_batch:	packed: chains added since the last publish
 * @p_batch_pos: packed: head position of the first of them, whose flags
 *		vdrv_ring_publish() stores last
 * @p_batch_flags: packed: those flags
 * @p_chain:	packed: per head, ring descriptors its chain took
 * @p_used_skip: packed, in order: descriptors of the buffers of the
 *		batch at @p_used already consumed
 * @p_pend:	packed: the buffers vdrv_ring_used_pending() found
 * @p_pend_off: packed: entries of @p_pend already consumed
 * @p_npend:	packed: entries found and not yet consumed
 * @order:	in order: heads in the order they were made available
 * @order_first: in order: oldest entry of @order
 * @order_n:	in order: entries in @order
 * @used_event:	&avail->ring[num], our "call me past here" hint
 * @avail_event: &used->ring[num], the device's "kick me past here" hint
 * @avail_idx:	next avail index we will publish (shadow of avail->idx)
 * @kicked_idx:	avail->idx at the previous kick decision
 * @last_used:	next used entry to consume
 * @stride:	descriptors per buffer; heads are multiples of it
 * @inflight:	per head: buffer is owned by the device
 * @cap:	per head: bytes the device may write (RX) / 0 (TX)
 * @ninflight:	heads owned by the device
 * @kick_fd:	eventfd we write to notify the device
 * @call_fd:	eventfd the device writes to notify us
 * @err_fd:	eventfd for SET_VRING_ERR
 * @stats:	owner's counters (kicks, dev_errors, ...)
 */
struct vdrv_ring {
	unsigned int index;
	uint16_t num;
	bool event_idx;
	bool packed;
	bool in_order;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	void *area[3];
	struct vring_packed_desc *pring;
	struct vring_packed_desc_event *drv_ev;
	struct vring_packed_desc_event *dev_ev;
	uint16_t p_next;
	bool p_wrap;
	uint16_t p_kicked;
	bool p_kicked_wrap;
	uint16_t p_used;
	bool p_used_wrap;
	bool p_batch;
	uint16_t p_batch_pos;
	uint16_t p_batch_flags;
	uint16_t *p_chain;
	uint16_t p_used_skip;
	struct vdrv_pend *p_pend;
	unsigned int p_pend_off;
	unsigned int p_npend;
	uint16_t *order;
	unsigned int order_first;
	unsigned int order_n;
	uint16_t *used_event;
	uint16_t *avail_event;
	uint16_t avail_idx;
	uint16_t kicked_idx;
	uint16_t last_used;
	uint16_t stride;
	bool *inflight;
	uint32_t *cap;
	unsigned int ninflight;
	int kick_fd;
	int call_fd;
	int err_fd;
	struct vdrv_stats *stats;
};

/* Ring layout and options for vdrv_ring_init(). */
#define VDRV_RING_EVENT_IDX	(1u << 0)
#define VDRV_RING_PACKED	(1u << 1)
#define VDRV_RING_IN_ORDER	(1u << 2)

int vdrv_ring_init(struct vdrv_ring *r, unsigned int index, uint16_t num,
		   uint16_t stride, unsigned int flags, struct vdrv_mem *m,
		   struct vdrv_stats *stats);
void vdrv_ring_fini(struct vdrv_ring *r);
void vdrv_ring_add(struct vdrv_ring *r, uint16_t head);
bool vdrv_ring_publish(struct vdrv_ring *r);
void vdrv_ring_kick(struct vdrv_ring *r);
void vdrv_ring_flush(struct vdrv_ring *r);
int vdrv_ring_used_pending(struct vdrv_ring *r);
int vdrv_ring_used_get(struct vdrv_ring *r, unsigned int nth, uint16_t *head,
		       uint32_t *len);
int vdrv_ring_used_take(struct vdrv_ring *r, uint16_t head);
void vdrv_ring_used_consume(struct vdrv_ring *r, unsigned int count);
bool vdrv_ring_enable_cb(struct vdrv_ring *r);
void vdrv_ring_disable_cb(struct vdrv_ring *r);
uint32_t vdrv_ring_used_end(struct vdrv_ring *r);
bool vdrv_ring_order_check(struct vdrv_ring *r, unsigned int nth,
			   uint16_t head);

/* vdrv_ring_packed.c: the packed halves of the calls above */
int vdrv_ring_packed_init(struct vdrv_ring *r, struct vdrv_mem *m);
unsigned int vdrv_ring_packed_write(struct vdrv_ring *r, uint16_t head,
				    uint16_t id);
void vdrv_ring_packed_add(struct vdrv_ring *r, uint16_t head);
bool vdrv_ring_packed_publish(struct vdrv_ring *r);
int vdrv_ring_packed_used_pending(struct vdrv_ring *r);
int vdrv_ring_packed_used_get(struct vdrv_ring *r, unsigned int nth,
			      uint16_t *head, uint32_t *len);
void vdrv_ring_packed_used_consume(struct vdrv_ring *r, unsigned int count);
uint32_t vdrv_ring_packed_used_end(struct vdrv_ring *r);
bool vdrv_ring_packed_enable_cb(struct vdrv_ring *r);
void vdrv_ring_packed_disable_cb(struct vdrv_ring *r);
void vdrv_ring_packed_table(void *table, unsigned int n);

/* ---- vhost-user messages (vdrv_proto.c) ------------------------------- */

/* Front-end request codes (spec "Front-end message types"). */
enum vdrv_req {
	VDRV_REQ_GET_FEATURES = 1,
	VDRV_REQ_SET_FEATURES = 2,
	VDRV_REQ_SET_OWNER = 3,
	VDRV_REQ_SET_MEM_TABLE = 5,
	VDRV_REQ_SET_LOG_BASE = 6,
	VDRV_REQ_SET_VRING_NUM = 8,
	VDRV_REQ_SET_VRING_ADDR = 9,
	VDRV_REQ_SET_VRING_BASE = 10,
	VDRV_REQ_GET_VRING_BASE = 11,
	VDRV_REQ_SET_VRING_KICK = 12,
	VDRV_REQ_SET_VRING_CALL = 13,
	VDRV_REQ_SET_VRING_ERR = 14,
	VDRV_REQ_GET_PROTOCOL_FEATURES = 15,
	VDRV_REQ_SET_PROTOCOL_FEATURES = 16,
	VDRV_REQ_GET_QUEUE_NUM = 17,
	VDRV_REQ_SET_VRING_ENABLE = 18,
	VDRV_REQ_SEND_RARP = 19,
	VDRV_REQ_NET_SET_MTU = 20,
};

#define VDRV_MSG_VERSION	0x1u
#define VDRV_MSG_VERSION_MASK	0x3u
#define VDRV_MSG_REPLY		(1u << 2)
#define VDRV_MSG_NEED_REPLY	(1u << 3)
#define VDRV_MSG_HDR_SIZE	12u
#define VDRV_VRING_NOFD		(1ULL << 8)
#define VDRV_MAX_FDS		8

/**
 * struct vdrv_msg_region - one region of SET_MEM_TABLE (spec layout)
 * @guest_phys_addr:	guest address of the region
 * @memory_size:	its size
 * @userspace_addr:	front-end (our) virtual address of it
 * @mmap_offset:	offset of the region in its fd
 */
struct vdrv_msg_region {
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	uint64_t mmap_offset;
};

/**
 * struct vdrv_msg_mem - SET_MEM_TABLE payload
 * @nregions:	regions that follow
 * @padding:	zero
 * @regions:	at most 8, one fd each in the ancillary data
 */
struct vdrv_msg_mem {
	uint32_t nregions;
	uint32_t padding;
	struct vdrv_msg_region regions[8];
};

/**
 * struct vdrv_conn - the vhost-user connection
 * @sock:	connected unix stream socket, -1 when closed
 * @reply_ack:	REPLY_ACK negotiated: ask for and check acks
 * @timeout_ms:	per-reply limit
 * @hung_up:	the peer closed the connection (EOF or error seen)
 */
struct vdrv_conn {
	int sock;
	bool reply_ack;
	int timeout_ms;
	bool hung_up;
};

int vdrv_proto_connect(struct vdrv_conn *c, const char *path, bool listen,
		       int timeout_ms);
void vdrv_proto_close(struct vdrv_conn *c);
int vdrv_proto_send(struct vdrv_conn *c, uint32_t req, uint32_t flags,
		    const void *payload, uint32_t size, const int *fds,
		    unsigned int nfds);
int vdrv_proto_recv(struct vdrv_conn *c, uint32_t req, void *payload,
		    uint32_t size);
int vdrv_proto_get_u64(struct vdrv_conn *c, uint32_t req, uint64_t *val);
int vdrv_proto_set(struct vdrv_conn *c, uint32_t req, const void *payload,
		   uint32_t size, const int *fds, unsigned int nfds);
int vdrv_proto_set_u64(struct vdrv_conn *c, uint32_t req, uint64_t val);
int vdrv_proto_set_state(struct vdrv_conn *c, uint32_t req,
			 unsigned int index, unsigned int num);
int vdrv_proto_set_fd(struct vdrv_conn *c, uint32_t req, unsigned int index,
		      int fd);
int vdrv_proto_get_vring_base(struct vdrv_conn *c, unsigned int index,
			      bool packed, uint32_t *base);
int vdrv_proto_wait_hangup(struct vdrv_conn *c, int timeout_ms,
			   uint64_t *ack, bool *got_ack);

/* ---- the device (vdrv.c) ---------------------------------------------- */

/**
 * struct vdrv_dev - one virtio-net device driven over vhost-user
 * @opts:	options it was opened with (path not owned)
 * @conn:	the vhost-user connection
 * @mem:	guest memory
 * @rings:	RX and TX virtqueues of this queue pair
 * @dev_features: what GET_FEATURES offered
 * @features:	negotiated virtio features (what SET_FEATURES sent, less
 *		bit 30)
 * @proto_features: negotiated protocol features
 * @queue_num:	GET_QUEUE_NUM answer (1 without MQ)
 * @hdr_len:	virtio-net header length on the wire (10 or 12)
 * @rx_len:	per RX head: bytes of the buffer (whole chain)
 * @rx_hva:	per RX head: our address of the buffer's first byte
 * @rx_done:	RX heads consumed since the last refill
 * @nrx_done:	entries in @rx_done
 * @tx_hva:	per TX head: our address of the slot (header first)
 * @tx_free:	stack of free TX heads
 * @ntx_free:	entries in @tx_free
 * @tx_ind:	per TX head: indirect table (VDRV_TX_INDIRECT)
 * @tx_gpa:	per TX head: guest address of the slot
 * @tx_ind_gpa:	per TX head: guest address of its indirect table
 * @tx_slots:	TX heads in all
 * @rx_nbufs:	RX buffers in all
 * @broken:	the device broke the ring protocol; the data path is off
 * @pair_idx:	queue pair this struct drives (its rings are vrings
 *		2 * @pair_idx and 2 * @pair_idx + 1)
 * @parent:	for a pair other than 0: the device (which owns the
 *		connection; our @conn is a copy of its socket number);
 *		NULL for the device itself
 * @npairs:	device: queue pairs driven (opts.pairs, at least 1)
 * @pairs:	device: per pair, the struct driving it ([0] = itself)
 * @log_fd:	device: the dirty log's memfd (vdrv_log.c), -1 if none
 * @log:	device: our mapping of it
 * @log_len:	its bytes
 * @evil_ind:	indirect table of vdrv_evil_chain(), NULL until needed
 * @evil_ind_gpa: its guest address
 * @evil_ind_n:	its entries
 * @stats:	counters
 */
struct vdrv_dev {
	struct vdrv_opts opts;
	struct vdrv_conn conn;
	struct vdrv_mem mem;
	struct vdrv_ring rings[VDRV_NRINGS];
	uint64_t dev_features;
	uint64_t features;
	uint64_t proto_features;
	unsigned int queue_num;
	size_t hdr_len;
	uint32_t *rx_len;
	uint8_t **rx_hva;
	uint16_t *rx_done;
	unsigned int nrx_done;
	uint8_t **tx_hva;
	uint16_t *tx_free;
	unsigned int ntx_free;
	struct vring_desc **tx_ind;
	uint64_t *tx_gpa;
	uint64_t *tx_ind_gpa;
	unsigned int tx_slots;
	unsigned int rx_nbufs;
	bool broken;
	unsigned int pair_idx;
	struct vdrv_dev *parent;
	unsigned int npairs;
	struct vdrv_dev *pairs[VDRV_PAIRS_MAX];
	int log_fd;
	uint8_t *log;
	size_t log_len;
	struct vring_desc *evil_ind;
	uint64_t evil_ind_gpa;
	unsigned int evil_ind_n;
	struct vdrv_stats stats;
};

void vdrv_log_free(struct vdrv_dev *d);
int vdrv_log_evil_shrink(struct vdrv_dev *d);

/**
 * vdrv_ms() - monotonic milliseconds, for deadlines
 * Return: CLOCK_MONOTONIC in ms
 */
static inline int64_t vdrv_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * vdrv_has() - is a feature negotiated
 * @d:		device
 * @bit:	feature bit
 * Return: true if negotiated
 */
static inline bool vdrv_has(const struct vdrv_dev *d, unsigned int bit)
{
	return d->features & (1ULL << bit);
}

/* vdrv_txrx.c */
void vdrv_tx_describe(struct vdrv_dev *d, uint16_t head, uint32_t len);

#endif /* VDRV_PRIV_H */
