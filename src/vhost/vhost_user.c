// SPDX-License-Identifier: GPL-2.0-or-later
/* vhost_user.c - vhost-user wire protocol: read, check and answer messages
 *
 * DOC: Theory of Operation
 *
 * This file knows the bytes, vu_dev.c knows what they mean.  A message is
 * read whole (header, payload, SCM_RIGHTS descriptors) before anything
 * looks at it, then checked against a per-request table: payload size,
 * number of descriptors, whether the request has a reply of its own.  A
 * message that fails these checks is malformed and the connection is
 * dropped; a well-formed message we do not implement is the caller's to
 * refuse politely.
 *
 * The peer is untrusted: sizes are bounded before we read, descriptors
 * beyond what a request takes are closed, and a peer that stops sending
 * mid-message costs us at most VHOST_USER_MSG_TIMEOUT_NS (plus one socket
 * timeout), never the control thread.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "../util.h"
#include "vhost_user.h"

#define VHOST_USER_MSG_TIMEOUT_NS	1000000000ULL

/* How many descriptors a request carries. */
enum vhost_user_fds {
	VHOST_USER_FDS_NONE,		/* exactly zero */
	VHOST_USER_FDS_ONE,		/* exactly one */
	VHOST_USER_FDS_VRING,		/* one, or zero with the NOFD bit */
	VHOST_USER_FDS_MEM_TABLE,	/* one per region */
	VHOST_USER_FDS_OPTIONAL,	/* zero or one (ignored) */
};

#define VHOST_USER_SIZE_MEM_TABLE	UINT16_MAX	/* checked apart */

/**
 * struct vhost_user_req_info - what a request looks like on the wire
 * @name:	for logs; NULL for requests we do not implement
 * @size:	exact payload size, or VHOST_USER_SIZE_MEM_TABLE
 * @fds:	enum vhost_user_fds
 * @reply:	the request has a reply of its own (NEED_REPLY is ignored)
 */
struct vhost_user_req_info {
	const char *name;
	uint16_t size;
	uint8_t fds;
	bool reply;
};

#define REQ(r, sz, f, rep) \
	[VHOST_USER_##r] = { #r, sz, VHOST_USER_FDS_##f, rep }

static const struct vhost_user_req_info vhost_user_reqs[VHOST_USER_REQ_COUNT] = {
	REQ(GET_FEATURES, 0, NONE, true),
	REQ(SET_FEATURES, 8, NONE, false),
	REQ(SET_OWNER, 0, NONE, false),
	REQ(RESET_OWNER, 0, NONE, false),
	REQ(SET_MEM_TABLE, VHOST_USER_SIZE_MEM_TABLE, MEM_TABLE, false),
	REQ(SET_LOG_BASE, sizeof(struct vhost_user_log), ONE, true),
	REQ(SET_VRING_NUM, sizeof(struct vhost_vring_state), NONE, false),
	REQ(SET_VRING_ADDR, sizeof(struct vhost_vring_addr), NONE, false),
	REQ(SET_VRING_BASE, sizeof(struct vhost_vring_state), NONE, false),
	REQ(GET_VRING_BASE, sizeof(struct vhost_vring_state), NONE, true),
	REQ(SET_VRING_KICK, 8, VRING, false),
	REQ(SET_VRING_CALL, 8, VRING, false),
	REQ(SET_VRING_ERR, 8, VRING, false),
	REQ(GET_PROTOCOL_FEATURES, 0, NONE, true),
	REQ(SET_PROTOCOL_FEATURES, 8, NONE, false),
	REQ(GET_QUEUE_NUM, 0, NONE, true),
	REQ(SET_VRING_ENABLE, sizeof(struct vhost_vring_state), NONE, false),
	REQ(SEND_RARP, 8, NONE, false),
	REQ(NET_SET_MTU, 8, NONE, false),
	REQ(GET_MAX_MEM_SLOTS, 0, NONE, true),
	REQ(ADD_MEM_REG, sizeof(struct vhost_user_mem_reg), ONE, false),
	REQ(REM_MEM_REG, sizeof(struct vhost_user_mem_reg), OPTIONAL, false),
};

/**
 * vhost_user_req_name() - request name for logs
 * @request:	request number from the wire
 *
 * Return: name, or "unknown"
 */
const char *vhost_user_req_name(uint32_t request)
{
	if (request < VHOST_USER_REQ_COUNT && vhost_user_reqs[request].name)
		return vhost_user_reqs[request].name;
	return "unknown";
}

/**
 * vhost_user_has_reply() - whether a request is answered with its own reply
 * @request:	request number (valid, see vhost_user_check())
 *
 * Return: true for GET_* requests and SET_LOG_BASE (which, with
 *	   LOG_SHMFD, the only way we take it, QEMU waits to see answered)
 */
bool vhost_user_has_reply(uint32_t request)
{
	return request < VHOST_USER_REQ_COUNT && vhost_user_reqs[request].reply;
}

/**
 * vhost_user_close_fds() - close every descriptor a handler did not take
 * @msg:	message
 */
void vhost_user_close_fds(struct vhost_user_msg *msg)
{
	unsigned int i;

	for (i = 0; i < msg->nfds; i++) {
		if (msg->fds[i] >= 0)
			close(msg->fds[i]);
		msg->fds[i] = -1;
	}
	msg->nfds = 0;
}

/**
 * vhost_user_take_fds() - move SCM_RIGHTS descriptors into @msg
 * @mh:		received message header
 * @msg:	message collecting descriptors
 *
 * Every descriptor the kernel installed is either stored or closed here,
 * so nothing leaks whatever the peer sent.
 *
 * Return: 0, or -EPROTO if the peer sent more than VHOST_USER_MAX_FDS or the
 *	   ancillary data was truncated
 */
static int vhost_user_take_fds(struct msghdr *mh, struct vhost_user_msg *msg)
{
	struct cmsghdr *c;
	int rc = 0;

	for (c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		size_t i, n;
		int fd;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (msg->nfds < VHOST_USER_MAX_FDS) {
				msg->fds[msg->nfds++] = fd;
			} else {
				close(fd);
				rc = -EPROTO;
			}
		}
	}
	/* The kernel drops what did not fit: the message is incomplete. */
	if (mh->msg_flags & MSG_CTRUNC)
		rc = -EPROTO;
	return rc;
}

/**
 * vhost_user_recv_some() - read what has arrived of the current message
 * @sock:	connected socket, non-blocking
 * @rx:		reassembly state: @rx->got bytes of @rx->msg so far
 *
 * Never waits: the control thread serves every front end and ctl client,
 * so a peer that dribbles a message in pieces only gets its bytes stored
 * until the rest comes (or its deadline passes, vhost_user_rx_stalled()).
 * Never reads past the current message: the next one, and the
 * descriptors sent with it, stay in the socket.
 *
 * Return: 1 when @rx->msg is whole (the caller takes it and resets @rx),
 *	   0 when more is to come, -ECONNRESET if the peer closed, -EPROTO
 *	   for a payload over VHOST_USER_PAYLOAD_MAX or bad ancillary data,
 *	   or another -errno; on error @rx is reset and holds no descriptor
 */
int vhost_user_recv_some(int sock, struct vhost_user_rx *rx)
{
	struct vhost_user_msg *msg = &rx->msg;
	int rc;

	for (;;) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * VHOST_USER_MAX_FDS)];
			struct cmsghdr align;
		} ctl;
		struct iovec iov;
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = ctl.buf,
			.msg_controllen = sizeof(ctl.buf),
		};
		ssize_t n;

		if (rx->got < VHOST_USER_HDR_SIZE) {
			iov.iov_base = (char *)&msg->hdr + rx->got;
			iov.iov_len = VHOST_USER_HDR_SIZE - rx->got;
		} else {
			/* Checked before reading: a hostile size must not
			 * drive the read.
			 */
			if (msg->hdr.size > VHOST_USER_PAYLOAD_MAX) {
				rc = -EPROTO;
				goto err;
			}
			if (rx->got == VHOST_USER_HDR_SIZE + msg->hdr.size)
				return 1;
			iov.iov_base = msg->raw + (rx->got -
						   VHOST_USER_HDR_SIZE);
			iov.iov_len = VHOST_USER_HDR_SIZE + msg->hdr.size -
				      rx->got;
		}
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			rc = -errno;
			goto err;
		}
		rc = vhost_user_take_fds(&mh, msg);
		if (rc < 0)
			goto err;
		if (n == 0) {
			rc = -ECONNRESET;
			goto err;
		}
		if (!rx->got)
			rx->deadline = now_ns() + VHOST_USER_MSG_TIMEOUT_NS;
		rx->got += (uint32_t)n;
	}
err:
	vhost_user_rx_reset(rx);
	return rc;
}

/**
 * vhost_user_rx_reset() - forget a message begun, close its descriptors
 * @rx:		reassembly state
 */
void vhost_user_rx_reset(struct vhost_user_rx *rx)
{
	vhost_user_close_fds(&rx->msg);
	rx->got = 0;
}

/**
 * vhost_user_rx_stalled() - whether a message begun is overdue
 * @rx:		reassembly state
 * @now:	CLOCK_MONOTONIC ns
 *
 * Return: true if part of a message came more than
 *	   VHOST_USER_MSG_TIMEOUT_NS ago and the rest did not
 */
bool vhost_user_rx_stalled(const struct vhost_user_rx *rx, uint64_t now)
{
	return rx->got && now > rx->deadline;
}

/**
 * vhost_user_check_mem_table() - SET_MEM_TABLE size and descriptor count
 * @msg:	message
 *
 * Return: 0 or -EPROTO
 */
static int vhost_user_check_mem_table(const struct vhost_user_msg *msg)
{
	uint32_t size = msg->hdr.size, n;

	if (size < 8 || size > sizeof(struct vhost_user_mem_table))
		return -EPROTO;
	n = msg->mem.nregions;
	if (n > VHOST_USER_MEM_REGIONS_MAX ||
	    size < 8 + n * sizeof(struct vhost_user_region) || msg->nfds != n)
		return -EPROTO;
	return 0;
}

/**
 * vhost_user_check() - check a message against its request's shape
 * @msg:	message as received
 *
 * Return: 0 if well-formed, -EPROTO if malformed (bad version or flags,
 *	   wrong payload size, wrong descriptor count), -ENOSYS if the
 *	   request is well-formed but not one we implement
 */
int vhost_user_check(const struct vhost_user_msg *msg)
{
	const struct vhost_user_req_info *ri;
	uint32_t req = msg->hdr.request;
	unsigned int want;

	if ((msg->hdr.flags & VHOST_USER_VERSION_MASK) != VHOST_USER_VERSION ||
	    (msg->hdr.flags & VHOST_USER_REPLY_MASK))
		return -EPROTO;
	if (req >= VHOST_USER_REQ_COUNT || !vhost_user_reqs[req].name)
		return -ENOSYS;
	ri = &vhost_user_reqs[req];

	if (ri->size == VHOST_USER_SIZE_MEM_TABLE)
		return vhost_user_check_mem_table(msg);
	if (msg->hdr.size != ri->size)
		return -EPROTO;

	switch (ri->fds) {
	case VHOST_USER_FDS_ONE:
		want = 1;
		break;
	case VHOST_USER_FDS_VRING:
		want = (msg->u64 & VHOST_USER_VRING_NOFD_MASK) ? 0 : 1;
		break;
	case VHOST_USER_FDS_OPTIONAL:
		/* The spec lets old front ends attach one; it is closed. */
		return msg->nfds <= 1 ? 0 : -EPROTO;
	default:
		want = 0;
		break;
	}
	return msg->nfds == want ? 0 : -EPROTO;
}

/**
 * vhost_user_send_reply() - answer @req with @size bytes of @payload
 * @sock:	connected socket (blocking, with SO_SNDTIMEO)
 * @req:	request being answered
 * @payload:	reply payload
 * @size:	its length
 *
 * Return: 0, -ETIMEDOUT if the peer does not read, or -errno
 */
int vhost_user_send_reply(int sock, const struct vhost_user_msg *req,
			  const void *payload, uint32_t size)
{
	struct vhost_user_hdr hdr = {
		.request = req->hdr.request,
		.flags = VHOST_USER_VERSION | VHOST_USER_REPLY_MASK,
		.size = size,
	};
	struct iovec iov[2] = {
		{ .iov_base = &hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)payload, .iov_len = size },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	size_t left = sizeof(hdr) + size;

	while (left) {
		ssize_t n = sendmsg(sock, &mh, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return -ETIMEDOUT;
			return -errno;
		}
		left -= (size_t)n;
		/* Partial send (timeout hit mid-way): skip what went out. */
		while (n > 0 && mh.msg_iovlen) {
			size_t k = MIN((size_t)n, mh.msg_iov->iov_len);

			mh.msg_iov->iov_base = (char *)mh.msg_iov->iov_base + k;
			mh.msg_iov->iov_len -= k;
			n -= (ssize_t)k;
			if (!mh.msg_iov->iov_len) {
				mh.msg_iov++;
				mh.msg_iovlen--;
			}
		}
	}
	return 0;
}
