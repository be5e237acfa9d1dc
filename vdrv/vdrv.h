/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vdrv.h - in-process virtio-net driver and vhost-user front end
 *
 * vdrv lets a test or a benchmark be "a guest" without QEMU: it owns guest
 * memory (memfds, shared with the back end through SET_MEM_TABLE), the
 * split or packed virtqueues of one or more virtio-net queue pairs (pair p:
 * RX = vring 2p, TX = vring 2p + 1) and the vhost-user connection.  It follows the vhost-user specification
 * (qemu docs/interop/vhost-user.rst) and virtio 1.x split rings, and shares
 * nothing with vhostd but the kernel uapi wire structs, so a misreading of
 * either spec cannot hide on both sides of a test.
 *
 * The data path is burst oriented: vdrv_tx_burst() and vdrv_rx_burst() move
 * many frames per call with one avail-index publish and at most one kick,
 * honouring VRING_USED_F_NO_NOTIFY / event idx; consumed RX buffers are
 * refilled in one batch.  Every value the device writes (used ids, lengths,
 * num_buffers) is validated; a device error is counted and makes the
 * affected call fail, so tests catch back-end bugs.
 *
 * Not thread safe: one thread per struct vdrv_dev.
 */
#ifndef VDRV_H
#define VDRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/virtio_net.h>

/* Vring indexes of the first queue pair (pair p: 2p and 2p + 1). */
#define VDRV_RX_RING		0
#define VDRV_TX_RING		1
#define VDRV_NRINGS		2

/* Queue pairs one device may drive: each pair has its own two memory
 * regions, and one SET_MEM_TABLE carries at most 8.
 */
#define VDRV_PAIRS_MAX		4

/* Bit 30 of the feature word: vhost-user protocol features. */
#define VDRV_F_PROTOCOL_FEATURES	30

/* vhost-user protocol feature bits (spec "Protocol features"). */
#define VDRV_PF_MQ		0
#define VDRV_PF_LOG_SHMFD	1
#define VDRV_PF_RARP		2
#define VDRV_PF_REPLY_ACK	3
#define VDRV_PF_NET_MTU		4

/* UDP segmentation offload (virtio 1.3), newer than some uapi headers. */
#define VDRV_GSO_UDP_L4		5	/* VIRTIO_NET_HDR_GSO_UDP_L4 */
#define VDRV_F_GUEST_USO4	54
#define VDRV_F_GUEST_USO6	55
#define VDRV_F_HOST_USO		56

/* Default virtio features asked for by vdrv_opts_init(). */
#define VDRV_DEFAULT_FEATURES						\
	((1ULL << 32 /* VIRTIO_F_VERSION_1 */) |			\
	 (1ULL << 15 /* VIRTIO_NET_F_MRG_RXBUF */) |			\
	 (1ULL << 29 /* VIRTIO_RING_F_EVENT_IDX */) |			\
	 (1ULL << 28 /* VIRTIO_RING_F_INDIRECT_DESC */))

/**
 * enum vdrv_tx_layout - how a TX frame is laid out in descriptors
 * @VDRV_TX_FLAT:	one descriptor: header immediately followed by frame
 * @VDRV_TX_SPLIT:	two chained descriptors: header, then frame
 * @VDRV_TX_INDIRECT:	one INDIRECT descriptor pointing at a two-entry
 *			table (header, frame); needs INDIRECT_DESC
 */
enum vdrv_tx_layout {
	VDRV_TX_FLAT,
	VDRV_TX_SPLIT,
	VDRV_TX_INDIRECT,
};

/**
 * struct vdrv_opts - how to open a device; fill with vdrv_opts_init() first
 * @path:		vhost-user unix socket path
 * @listen:		listen on @path and accept one connection (for a back
 *			end in client mode) instead of connecting to it
 * @features:		virtio features wanted (VERSION_1, MRG_RXBUF, ...);
 *			what the device does not offer is left out;
 *			VIRTIO_NET_F_MQ follows @pairs, whatever is here
 * @required:		features that must be negotiated, else -ENOTSUP
 * @protocol_features:	vhost-user protocol features wanted
 * @queue_size:		ring size for both rings, <= 32768, a power of two
 *			unless @packed
 * @rx_buf_len:		bytes per RX buffer (one descriptor or, with
 *			@rx_segs > 1, the whole chain), header included
 * @rx_segs:		descriptors chained per RX buffer (1 = one each)
 * @rx_bufs:		RX buffers posted (0 = queue_size / rx_segs)
 * @tx_buf_len:		bytes per TX slot, header included
 * @tx_layout:		descriptor layout of TX frames
 * @timeout_ms:		limit for connect/accept and each reply
 * @early_enable:	send SET_VRING_CALL/ERR and SET_VRING_ENABLE before
 *			SET_FEATURES as QEMU 7.2 does (default true)
 * @packed:		use packed rings: VIRTIO_F_RING_PACKED is asked for
 *			and required (vdrv_open() fails with -ENOTSUP
 *			without it); @queue_size need not be a power of two
 * @in_order:		ask for VIRTIO_F_IN_ORDER (not required) and, if
 *			negotiated, check that the device uses buffers in
 *			the order they were made available (dev_errors)
 * @mtu:		if not 0, announce this MTU with NET_SET_MTU after
 *			SET_FEATURES, as QEMU does for host_mtu=; needs
 *			the NET_MTU protocol feature (asked for), else
 *			vdrv_open() fails with -ENOTSUP
 * @pairs:		queue pairs to drive, 1..VDRV_PAIRS_MAX (0 = 1).
 *			More than one asks for and requires VIRTIO_NET_F_MQ
 *			and the MQ protocol feature, and GET_QUEUE_NUM must
 *			be >= @pairs (else -ENOTSUP).  Every ring of every
 *			pair is set up and enabled with SET_VRING_ENABLE,
 *			as QEMU does for a vhost-user back end (which sees
 *			no control virtqueue); each pair has its own memory,
 *			rings and buffers of the sizes above, reached with
 *			vdrv_pair()
 */
struct vdrv_opts {
	const char *path;
	bool listen;
	uint64_t features;
	uint64_t required;
	uint64_t protocol_features;
	unsigned int queue_size;
	unsigned int rx_buf_len;
	unsigned int rx_segs;
	unsigned int rx_bufs;
	unsigned int tx_buf_len;
	enum vdrv_tx_layout tx_layout;
	int timeout_ms;
	bool early_enable;
	bool packed;
	bool in_order;
	uint16_t mtu;
	unsigned int pairs;
};

/**
 * struct vdrv_stats - what the driver saw; all counters only grow
 * @tx_packets:		frames made available on TX
 * @tx_bytes:		their bytes, header excluded
 * @tx_full:		frames refused because no TX slot was free
 * @tx_completed:	TX buffers the device returned
 * @rx_packets:		frames received
 * @rx_bytes:		their bytes, header excluded
 * @rx_bufs_used:	RX buffers consumed (> rx_packets with MRG_RXBUF)
 * @rx_truncated:	frames longer than the caller's buffer
 * @kicks:		kick eventfd writes
 * @kicks_suppressed:	publishes where the device asked for no kick
 * @calls:		call eventfd wake-ups read
 * @dev_errors:		device broke the ring protocol (bad used id, length
 *			beyond the buffer, bad num_buffers, ...)
 * @quirks:		legal but odd device behaviour (non-zero used length
 *			on TX, num_buffers != 1 without MRG_RXBUF)
 */
struct vdrv_stats {
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t tx_full;
	uint64_t tx_completed;
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t rx_bufs_used;
	uint64_t rx_truncated;
	uint64_t kicks;
	uint64_t kicks_suppressed;
	uint64_t calls;
	uint64_t dev_errors;
	uint64_t quirks;
};

/**
 * struct vdrv_tx_pkt - one frame to send
 * @data:	Ethernet frame (no virtio header)
 * @len:	its length
 * @hdr:	virtio-net header to send with it; NULL = all zero
 */
struct vdrv_tx_pkt {
	const void *data;
	uint32_t len;
	const struct virtio_net_hdr_v1 *hdr;
};

/**
 * struct vdrv_rx_pkt - one received frame
 * @buf:	in: where to copy the frame; NULL = do not copy (count only)
 * @cap:	in: size of @buf
 * @hdr:	out: the virtio-net header as the device wrote it
 * @len:	out: frame length (header excluded), even if truncated
 * @nbufs:	out: RX buffers the frame occupied
 * @truncated:	out: @len > @cap, only @cap bytes were copied
 */
struct vdrv_rx_pkt {
	uint8_t *buf;
	uint32_t cap;
	struct virtio_net_hdr_v1 hdr;
	uint32_t len;
	uint16_t nbufs;
	bool truncated;
};

struct vdrv_dev;

/* Lifecycle (vdrv.c). */
void vdrv_opts_init(struct vdrv_opts *o, const char *path);
int vdrv_open(const struct vdrv_opts *o, struct vdrv_dev **devp);
int vdrv_close(struct vdrv_dev *d, uint16_t bases[VDRV_NRINGS]);
int vdrv_close_used(struct vdrv_dev *d, uint16_t bases[VDRV_NRINGS],
		    uint16_t used[VDRV_NRINGS]);
void vdrv_abort(struct vdrv_dev *d);
int vdrv_set_vring_enable(struct vdrv_dev *d, unsigned int ring, bool enable);
uint64_t vdrv_dev_errors_freed(void);

/* Queue pairs: the handle of pair N takes every data-path call below and
 * vdrv_stats(), vdrv_avail_base(), vdrv_call_fd() (ring 0/1 of that pair);
 * lifecycle and vdrv_evil*() calls take the device (pair 0's handle) only.
 */
struct vdrv_dev *vdrv_pair(struct vdrv_dev *d, unsigned int pair);
unsigned int vdrv_npairs(const struct vdrv_dev *d);

/* Introspection. */
uint64_t vdrv_features(const struct vdrv_dev *d);
uint64_t vdrv_device_features(const struct vdrv_dev *d);
uint64_t vdrv_protocol_features(const struct vdrv_dev *d);
unsigned int vdrv_queue_num(const struct vdrv_dev *d);
size_t vdrv_hdr_len(const struct vdrv_dev *d);
const struct vdrv_stats *vdrv_stats(const struct vdrv_dev *d);
uint16_t vdrv_avail_base(const struct vdrv_dev *d, unsigned int ring);
bool vdrv_packed(const struct vdrv_dev *d);
int vdrv_sock_fd(const struct vdrv_dev *d);
int vdrv_call_fd(const struct vdrv_dev *d, unsigned int ring);

/* Data path (vdrv.c). */
int vdrv_tx_burst(struct vdrv_dev *d, const struct vdrv_tx_pkt *pkts,
		  unsigned int n);
int vdrv_tx_reclaim(struct vdrv_dev *d);
unsigned int vdrv_tx_free(const struct vdrv_dev *d);
int vdrv_tx_wait(struct vdrv_dev *d, int timeout_ms);
int vdrv_tx_calls(struct vdrv_dev *d);
int vdrv_tx_wait_most(struct vdrv_dev *d, unsigned int most, int timeout_ms);
int vdrv_rx_burst(struct vdrv_dev *d, struct vdrv_rx_pkt *pkts,
		  unsigned int n);
int vdrv_rx_wait(struct vdrv_dev *d, int timeout_ms);
int vdrv_recv(struct vdrv_dev *d, struct vdrv_rx_pkt *pkt, int timeout_ms);
int vdrv_send(struct vdrv_dev *d, const void *frame, uint32_t len);

/**
 * typedef vdrv_tx_fill_fn - write (or patch) one frame in its TX slot
 * @ctx:	caller's context
 * @hdr:	the slot's virtio-net header (vdrv_hdr_len() bytes)
 * @frame:	the slot's frame area, holding what was last written there
 * @room:	bytes available at @frame
 *
 * Return: frame length (<= @room), or 0 to end the burst here
 */
typedef uint32_t (*vdrv_tx_fill_fn)(void *ctx, uint8_t *hdr, uint8_t *frame,
				    uint32_t room);

/* Data path without a copy, for benchmarks (vdrv_inplace.c). */
int vdrv_tx_prefill(struct vdrv_dev *d, const struct vdrv_tx_pkt *p);
int vdrv_tx_burst_inplace(struct vdrv_dev *d, unsigned int n,
			  vdrv_tx_fill_fn fill, void *ctx);

/**
 * struct vdrv_region_view - one region of guest memory, for tests that
 *			     compare it with a copy
 * @hva:	our mapping
 * @gpa:	guest physical address of its first byte
 * @size:	bytes
 */
struct vdrv_region_view {
	uint8_t *hva;
	uint64_t gpa;
	uint64_t size;
};

/* Live migration, the front end's half (vdrv_log.c): a dirty log as QEMU
 * shares it (LOG_SHMFD: asked for in opts.protocol_features), logging
 * turned on and off while the rings run, and the guest's memory to copy.
 */
int vdrv_log_start(struct vdrv_dev *d);
int vdrv_log_stop(struct vdrv_dev *d);
uint8_t *vdrv_log_bits(struct vdrv_dev *d, size_t *len);
unsigned int vdrv_regions(struct vdrv_dev *d, struct vdrv_region_view *out,
			  unsigned int max);
int vdrv_send_rarp(struct vdrv_dev *d, const uint8_t mac[6]);

/* Connection state. */
int vdrv_wait_hangup(struct vdrv_dev *d, int timeout_ms);

/* Hostile operations for robustness tests (vdrv_evil.c). */

/**
 * enum vdrv_evil - a protocol or ring violation vdrv can commit
 * @VDRV_EVIL_GARBAGE:	  random bytes instead of a message header
 * @VDRV_EVIL_BAD_SIZE:	  SET_VRING_NUM claiming a 256 MiB payload
 * @VDRV_EVIL_SHORT:	  SET_VRING_ADDR with a 4-byte payload
 * @VDRV_EVIL_UNKNOWN:	  request 9999 with NEED_REPLY
 * @VDRV_EVIL_BAD_VERSION: SET_OWNER with flags version 0
 * @VDRV_EVIL_BAD_RING:	  SET_VRING_NUM for vring index 200
 * @VDRV_EVIL_MEM_BEYOND_FD: SET_MEM_TABLE with a region larger than its
 *			  memfd, then a TX descriptor in the missing part
 * @VDRV_EVIL_OOB_DESC:	  TX descriptor whose address is in no region
 * @VDRV_EVIL_OOB_LEN:	  TX descriptor starting inside a region and
 *			  running past its end
 * @VDRV_EVIL_LOOP:	  TX descriptor chain a -> b -> a
 * @VDRV_EVIL_LOOP_EMPTY: the same with both descriptors 0 bytes long: only
 *			  a loop check ends it (no length ever adds up)
 * @VDRV_EVIL_AVAIL_JUMP: TX avail index queue_size + 7 ahead
 * @VDRV_EVIL_BAD_HEAD:	  TX avail entry naming descriptor >= queue_size
 * @VDRV_EVIL_INDIRECT_NESTED: indirect table containing an INDIRECT entry
 * @VDRV_EVIL_INDIRECT_OOB: INDIRECT descriptor pointing outside memory
 * @VDRV_EVIL_RX_OOB:	  RX descriptor outside memory (hit by delivery)
 * @VDRV_EVIL_SHRINK:	  the last memory region's memfd truncated to 0
 *			  after SET_MEM_TABLE, then a TX frame in it (the
 *			  back end's next touch raises SIGBUS; our own
 *			  mapping of it is poisoned too: abort the device)
 * @VDRV_EVIL_LONG_CHAIN: one TX chain of 255 readable descriptors (the
 *			  spec allows up to the ring size; no virtio-net
 *			  driver builds one longer than ~48)
 * @VDRV_EVIL_HUGE_INDIRECT: one INDIRECT descriptor to a 32768-entry
 *			  table (the spec caps a chain at the ring size)
 * @VDRV_EVIL_SAME_HEAD:  every TX avail entry names one chain of 254
 *			  ring descriptors and a 32768-entry table
 * @VDRV_EVIL_WRAP_LIE:	  packed only: a two-descriptor TX chain whose
 *			  second descriptor is not marked available for
 *			  its position (the previous lap's AVAIL/USED bits)
 * @VDRV_EVIL_INDIRECT_NEXT: INDIRECT descriptor with NEXT set, followed by
 *			  a plain one (both layouts forbid it)
 * @VDRV_EVIL_INDIRECT_MIXED: packed only: a plain descriptor chained to
 *			  an INDIRECT one (a packed list is one kind only)
 * @VDRV_EVIL_KICK_PIPE:  SET_VRING_KICK (TX) with a pipe: the back end
 *			  must refuse it (NACK) and keep the ring it had
 * @VDRV_EVIL_CALL_PIPE:  SET_VRING_CALL (RX) with a pipe's write end: the
 *			  same
 * @VDRV_EVIL_ERR_SOCKET: SET_VRING_ERR (TX) with a socket: the same
 * @VDRV_EVIL_ERR_SIGNAL: error eventfds set on both rings, then an
 *			  out-of-range TX descriptor: the back end drops us
 *			  and should signal them (vdrv_err_count())
 * @VDRV_EVIL_MEM_HUGE:	  SET_MEM_TABLE adding a 2 TiB region of a sparse
 *			  memfd (address space, not memory): the back end
 *			  must refuse it (over its max-mem) and keep the
 *			  table it had
 * @VDRV_EVIL_LOG_SHRINK: a dirty log (LOG_SHMFD, asked for in the
 *			  options) not sealed against shrinking: the back
 *			  end refuses it (and drops us), or takes it, and
 *			  then the log's file is truncated to 0 and a TX
 *			  frame sent: its mark of the used entry raises
 *			  SIGBUS there, which must cost this connection only
 * @VDRV_EVIL_COUNT:	  number of kinds
 */
enum vdrv_evil {
	VDRV_EVIL_GARBAGE,
	VDRV_EVIL_BAD_SIZE,
	VDRV_EVIL_SHORT,
	VDRV_EVIL_UNKNOWN,
	VDRV_EVIL_BAD_VERSION,
	VDRV_EVIL_BAD_RING,
	VDRV_EVIL_MEM_BEYOND_FD,
	VDRV_EVIL_OOB_DESC,
	VDRV_EVIL_OOB_LEN,
	VDRV_EVIL_LOOP,
	VDRV_EVIL_LOOP_EMPTY,
	VDRV_EVIL_AVAIL_JUMP,
	VDRV_EVIL_BAD_HEAD,
	VDRV_EVIL_INDIRECT_NESTED,
	VDRV_EVIL_INDIRECT_OOB,
	VDRV_EVIL_RX_OOB,
	VDRV_EVIL_SHRINK,
	VDRV_EVIL_LONG_CHAIN,
	VDRV_EVIL_HUGE_INDIRECT,
	VDRV_EVIL_SAME_HEAD,
	VDRV_EVIL_WRAP_LIE,
	VDRV_EVIL_INDIRECT_NEXT,
	VDRV_EVIL_INDIRECT_MIXED,
	VDRV_EVIL_KICK_PIPE,
	VDRV_EVIL_CALL_PIPE,
	VDRV_EVIL_ERR_SOCKET,
	VDRV_EVIL_ERR_SIGNAL,
	VDRV_EVIL_MEM_HUGE,
	VDRV_EVIL_LOG_SHRINK,
	VDRV_EVIL_COUNT,
};

/* Most entries vdrv_evil_chain() puts in an indirect table. */
#define VDRV_EVIL_IND_MAX	32768

extern const char *const vdrv_evil_names[VDRV_EVIL_COUNT];

int vdrv_evil_parse(const char *name);
int vdrv_evil(struct vdrv_dev *d, enum vdrv_evil kind);
int vdrv_evil_send_raw(struct vdrv_dev *d, const void *buf, size_t len);
int vdrv_evil_chain(struct vdrv_dev *d, const void *frame, uint32_t len,
		    unsigned int nring, unsigned int nind, unsigned int copies);
int vdrv_evil_block_calls(struct vdrv_dev *d);
int vdrv_evil_steal_kicks(struct vdrv_dev *d);
unsigned int vdrv_evil_drain_kicks(struct vdrv_dev *d);
uint64_t vdrv_err_count(struct vdrv_dev *d, int timeout_ms);

#endif /* VDRV_H */
