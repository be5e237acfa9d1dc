/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vhost_user.h - vhost-user wire format: messages, requests, fd passing
 *
 * Internal to src/vhost/.  The layout follows docs/interop/vhost-user.rst
 * in QEMU: a 12-byte header (request, flags, size) then @size bytes of
 * payload, with file descriptors in SCM_RIGHTS ancillary data.  Vring
 * state and address payloads reuse the kernel's uapi structs.
 */
#ifndef VHOSTD_VHOST_USER_H
#define VHOSTD_VHOST_USER_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/vhost_types.h>

#define VHOST_USER_MAX_FDS	8	/* SCM_RIGHTS fds accepted per message */

/* Requests (front end -> back end) we know by number. */
enum vhost_user_req {
	VHOST_USER_NONE = 0,
	VHOST_USER_GET_FEATURES = 1,
	VHOST_USER_SET_FEATURES = 2,
	VHOST_USER_SET_OWNER = 3,
	VHOST_USER_RESET_OWNER = 4,
	VHOST_USER_SET_MEM_TABLE = 5,
	VHOST_USER_SET_LOG_BASE = 6,
	VHOST_USER_SET_LOG_FD = 7,
	VHOST_USER_SET_VRING_NUM = 8,
	VHOST_USER_SET_VRING_ADDR = 9,
	VHOST_USER_SET_VRING_BASE = 10,
	VHOST_USER_GET_VRING_BASE = 11,
	VHOST_USER_SET_VRING_KICK = 12,
	VHOST_USER_SET_VRING_CALL = 13,
	VHOST_USER_SET_VRING_ERR = 14,
	VHOST_USER_GET_PROTOCOL_FEATURES = 15,
	VHOST_USER_SET_PROTOCOL_FEATURES = 16,
	VHOST_USER_GET_QUEUE_NUM = 17,
	VHOST_USER_SET_VRING_ENABLE = 18,
	VHOST_USER_SEND_RARP = 19,
	VHOST_USER_NET_SET_MTU = 20,
	VHOST_USER_GET_MAX_MEM_SLOTS = 36,
	VHOST_USER_ADD_MEM_REG = 37,
	VHOST_USER_REM_MEM_REG = 38,
	VHOST_USER_REQ_COUNT = 41,	/* table size; unknown beyond */
};

/* Header flags. */
#define VHOST_USER_VERSION_MASK		0x3u
#define VHOST_USER_VERSION		0x1u
#define VHOST_USER_REPLY_MASK		(1u << 2)
#define VHOST_USER_NEED_REPLY_MASK	(1u << 3)

/* SET_VRING_KICK/CALL/ERR payload: ring index and "no fd attached". */
#define VHOST_USER_VRING_IDX_MASK	0xffull
#define VHOST_USER_VRING_NOFD_MASK	(1ull << 8)

/* Virtio feature bit that gates the protocol feature negotiation. */
#define VHOST_USER_F_PROTOCOL_FEATURES	30

/* Protocol feature bits (GET/SET_PROTOCOL_FEATURES). */
#define VHOST_USER_PROTOCOL_F_MQ			0
#define VHOST_USER_PROTOCOL_F_LOG_SHMFD			1
#define VHOST_USER_PROTOCOL_F_RARP			2
#define VHOST_USER_PROTOCOL_F_REPLY_ACK			3
#define VHOST_USER_PROTOCOL_F_NET_MTU			4
#define VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS	15

#define VHOST_USER_PROTOCOL_FEATURES			\
	((1ull << VHOST_USER_PROTOCOL_F_MQ) |		\
	 (1ull << VHOST_USER_PROTOCOL_F_LOG_SHMFD) |	\
	 (1ull << VHOST_USER_PROTOCOL_F_RARP) |		\
	 (1ull << VHOST_USER_PROTOCOL_F_REPLY_ACK) |	\
	 (1ull << VHOST_USER_PROTOCOL_F_NET_MTU) |	\
	 (1ull << VHOST_USER_PROTOCOL_F_CONFIGURE_MEM_SLOTS))

#define VHOST_USER_HDR_SIZE		12
#define VHOST_USER_MEM_REGIONS_MAX	8	/* in one SET_MEM_TABLE */
#define VHOST_USER_PAYLOAD_MAX		4096	/* bigger = malformed */

/**
 * struct vhost_user_hdr - message header as on the wire
 * @request:	enum vhost_user_req
 * @flags:	version (bits 0-1), REPLY (bit 2), NEED_REPLY (bit 3)
 * @size:	payload bytes that follow
 */
struct vhost_user_hdr {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
};

/**
 * struct vhost_user_region - one memory region description
 * @gpa:		guest physical address
 * @size:		length
 * @uva:		front end virtual address
 * @mmap_offset:	offset of the region in its fd
 */
struct vhost_user_region {
	uint64_t gpa;
	uint64_t size;
	uint64_t uva;
	uint64_t mmap_offset;
};

/**
 * struct vhost_user_mem_table - SET_MEM_TABLE payload
 * @nregions:	regions used (and fds attached)
 * @padding:	zero
 * @regions:	the first @nregions are meaningful
 */
struct vhost_user_mem_table {
	uint32_t nregions;
	uint32_t padding;
	struct vhost_user_region regions[VHOST_USER_MEM_REGIONS_MAX];
};

/**
 * struct vhost_user_mem_reg - ADD_MEM_REG / REM_MEM_REG payload
 * @padding:	zero
 * @region:	the region
 */
struct vhost_user_mem_reg {
	uint64_t padding;
	struct vhost_user_region region;
};

/**
 * struct vhost_user_log - SET_LOG_BASE payload
 * @mmap_size:		bytes of log
 * @mmap_offset:	where the log starts in the attached fd
 */
struct vhost_user_log {
	uint64_t mmap_size;
	uint64_t mmap_offset;
};

/**
 * struct vhost_user_msg - one message, header and payload apart
 * @hdr:	header (kept apart so the payload union stays aligned)
 * @u64:	payload as a u64 (features, ring index + NOFD, MTU, ack)
 * @state:	payload as vring state (index, num)
 * @addr:	payload as vring addresses
 * @mem:	payload as a memory table
 * @mem_reg:	payload as one memory region
 * @log:	payload as a log description
 * @raw:	payload as bytes
 * @fds:	received descriptors, -1 once a handler took ownership
 * @nfds:	entries in @fds
 */
struct vhost_user_msg {
	struct vhost_user_hdr hdr;
	union {
		uint64_t u64;
		struct vhost_vring_state state;
		struct vhost_vring_addr addr;
		struct vhost_user_mem_table mem;
		struct vhost_user_mem_reg mem_reg;
		struct vhost_user_log log;
		uint8_t raw[VHOST_USER_PAYLOAD_MAX];
	};
	int fds[VHOST_USER_MAX_FDS];
	unsigned int nfds;
};

/**
 * struct vhost_user_rx - a message being reassembled from a non-blocking
 *			  socket
 * @msg:	the message so far, descriptors included
 * @got:	bytes of it received (header, then payload)
 * @deadline:	CLOCK_MONOTONIC ns by which it must be whole (set by its
 *		first byte)
 */
struct vhost_user_rx {
	struct vhost_user_msg msg;
	uint32_t got;
	uint64_t deadline;
};

int vhost_user_recv_some(int sock, struct vhost_user_rx *rx);
void vhost_user_rx_reset(struct vhost_user_rx *rx);
bool vhost_user_rx_stalled(const struct vhost_user_rx *rx, uint64_t now);
int vhost_user_check(const struct vhost_user_msg *msg);
bool vhost_user_has_reply(uint32_t request);
int vhost_user_send_reply(int sock, const struct vhost_user_msg *req,
			  const void *payload, uint32_t size);
void vhost_user_close_fds(struct vhost_user_msg *msg);
const char *vhost_user_req_name(uint32_t request);

#endif /* VHOSTD_VHOST_USER_H */
