// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_proto.c - vhost-user front end: the socket and its messages
 *
 * Messages are a 12-byte header (request, flags, size) and a payload, file
 * descriptors riding along as SCM_RIGHTS (qemu docs/interop/vhost-user.rst,
 * "Message Specification").  Replies are checked strictly: same request
 * code, REPLY flag and version 1 set, exactly the payload size the request
 * defines.  With REPLY_ACK negotiated every request that has no reply of its
 * own is sent with NEED_REPLY and its u64 ack must be zero.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include <linux/vhost_types.h>

#include "vdrv_priv.h"

/**
 * vdrv_proto_ms() - monotonic milliseconds, for deadlines
 * Return: CLOCK_MONOTONIC in ms
 */
static int64_t vdrv_proto_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * vdrv_proto_addr() - fill a unix socket address
 * @sa:		address to fill
 * @path:	socket path
 *
 * Return: 0, or -ENAMETOOLONG
 */
static int vdrv_proto_addr(struct sockaddr_un *sa, const char *path)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	return 0;
}

/**
 * vdrv_proto_accept() - listen on @path and take one connection
 * @c:		connection to fill
 * @sa:		address of @path
 * @timeout_ms:	how long to wait for the back end to connect
 *
 * Return: 0 or -errno
 */
static int vdrv_proto_accept(struct vdrv_conn *c, const struct sockaddr_un *sa,
			     int timeout_ms)
{
	struct pollfd pfd;
	struct stat st;
	int lfd, ret;

	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		return -errno;
	/* A stale socket of an earlier run; never remove anything else. */
	if (!lstat(sa->sun_path, &st) && S_ISSOCK(st.st_mode))
		unlink(sa->sun_path);
	if (bind(lfd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 ||
	    listen(lfd, 1) < 0) {
		ret = -errno;
		goto out;
	}
	pfd.fd = lfd;
	pfd.events = POLLIN;
	ret = poll(&pfd, 1, timeout_ms);
	if (ret <= 0) {
		ret = ret < 0 ? -errno : -ETIMEDOUT;
		goto out_unlink;
	}
	c->sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	ret = c->sock < 0 ? -errno : 0;
out_unlink:
	unlink(sa->sun_path);
out:
	close(lfd);
	return ret;
}

/**
 * vdrv_proto_connect() - open the vhost-user connection
 * @c:		connection to fill
 * @path:	socket path
 * @listen:	listen and accept one connection instead of connecting
 * @timeout_ms:	limit; connecting retries while the socket is not there yet
 *
 * Return: 0 or -errno
 */
int vdrv_proto_connect(struct vdrv_conn *c, const char *path, bool listen,
		       int timeout_ms)
{
	int64_t deadline = vdrv_proto_ms() + timeout_ms;
	struct sockaddr_un sa;
	int ret;

	memset(c, 0, sizeof(*c));
	c->sock = -1;
	c->timeout_ms = timeout_ms;
	ret = vdrv_proto_addr(&sa, path);
	if (ret)
		return ret;
	if (listen)
		return vdrv_proto_accept(c, &sa, timeout_ms);

	for (;;) {
		c->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (c->sock < 0)
			return -errno;
		if (!connect(c->sock, (struct sockaddr *)&sa, sizeof(sa)))
			return 0;
		ret = -errno;
		close(c->sock);
		c->sock = -1;
		/* The daemon may still be starting (no socket yet) or busy
		 * with its previous connection on this path.
		 */
		if ((ret != -ENOENT && ret != -ECONNREFUSED &&
		     ret != -EAGAIN) || vdrv_proto_ms() >= deadline)
			return ret;
		usleep(20000);
	}
}

/**
 * vdrv_proto_close() - close the socket
 * @c:	connection
 */
void vdrv_proto_close(struct vdrv_conn *c)
{
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
}

/**
 * vdrv_proto_send() - send one message, with file descriptors
 * @c:		connection
 * @req:	request code
 * @flags:	flags besides the version (NEED_REPLY, ...)
 * @payload:	payload, @size bytes
 * @size:	payload size, written into the header as is
 * @fds:	descriptors for SCM_RIGHTS
 * @nfds:	how many, at most VDRV_MAX_FDS
 *
 * Return: 0 or -errno
 */
int vdrv_proto_send(struct vdrv_conn *c, uint32_t req, uint32_t flags,
		    const void *payload, uint32_t size, const int *fds,
		    unsigned int nfds)
{
	uint32_t hdr[3] = { req, flags | VDRV_MSG_VERSION, size };
	union {
		char buf[CMSG_SPACE(sizeof(int) * VDRV_MAX_FDS)];
		struct cmsghdr align;
	} cbuf;
	struct iovec iov[2] = {
		{ .iov_base = hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)payload, .iov_len = payload ? size : 0 },
	};
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	size_t total = iov[0].iov_len + iov[1].iov_len;
	ssize_t n;

	if (c->sock < 0)
		return -ENOTCONN;
	if (nfds > VDRV_MAX_FDS)
		return -EINVAL;
	if (nfds) {
		struct cmsghdr *cm;

		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	}
	/* The descriptors travel with the first byte; the rest of a short
	 * write goes out plain.
	 */
	while (total) {
		n = sendmsg(c->sock, &mh, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE || errno == ECONNRESET)
				c->hung_up = true;
			return -errno;
		}
		total -= (size_t)n;
		mh.msg_control = NULL;
		mh.msg_controllen = 0;
		while (n && mh.msg_iovlen) {
			size_t k = (size_t)n < mh.msg_iov->iov_len ?
				   (size_t)n : mh.msg_iov->iov_len;

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

/**
 * vdrv_proto_read() - read exactly @len bytes within the reply timeout
 * @c:		connection
 * @buf:	destination
 * @len:	bytes
 *
 * Descriptors a back end sends with a reply are closed: none of our
 * requests expects one.
 *
 * Return: 0, -ETIMEDOUT, -ECONNRESET on EOF, or -errno
 */
static int vdrv_proto_read(struct vdrv_conn *c, void *buf, size_t len)
{
	int64_t deadline = vdrv_proto_ms() + c->timeout_ms;
	char *p = buf;

	while (len) {
		union {
			char buf[CMSG_SPACE(sizeof(int) * VDRV_MAX_FDS)];
			struct cmsghdr align;
		} cbuf;
		struct iovec iov = { .iov_base = p, .iov_len = len };
		struct msghdr mh = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf.buf,
			.msg_controllen = sizeof(cbuf.buf),
		};
		struct pollfd pfd = { .fd = c->sock, .events = POLLIN };
		int64_t left = deadline - vdrv_proto_ms();
		struct cmsghdr *cm;
		ssize_t n;
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (!r)
			return -ETIMEDOUT;
		n = recvmsg(c->sock, &mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			c->hung_up = true;
			return n < 0 ? -errno : -ECONNRESET;
		}
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SCM_RIGHTS) {
				int *fds = (int *)(void *)CMSG_DATA(cm);
				size_t i, k = (cm->cmsg_len - CMSG_LEN(0)) /
					      sizeof(int);

				for (i = 0; i < k; i++)
					close(fds[i]);
			}
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * vdrv_proto_recv() - read the reply to @req and check its header
 * @c:		connection
 * @req:	request we sent
 * @payload:	where the reply payload goes
 * @size:	exact payload size the request's reply has
 *
 * Return: 0, -EPROTO for a malformed reply, or -errno
 */
int vdrv_proto_recv(struct vdrv_conn *c, uint32_t req, void *payload,
		    uint32_t size)
{
	uint32_t hdr[3];
	char junk[256];
	int ret;

	ret = vdrv_proto_read(c, hdr, sizeof(hdr));
	if (ret)
		return ret;
	if (hdr[0] != req || !(hdr[1] & VDRV_MSG_REPLY) ||
	    (hdr[1] & VDRV_MSG_VERSION_MASK) != VDRV_MSG_VERSION ||
	    hdr[2] != size) {
		/* Swallow a small wrong payload so the stream stays in step
		 * for a caller that wants to carry on anyway.
		 */
		if (hdr[2] <= sizeof(junk))
			vdrv_proto_read(c, junk, hdr[2]);
		return -EPROTO;
	}
	return vdrv_proto_read(c, payload, size);
}

/**
 * vdrv_proto_get_u64() - a request without payload answered by a u64
 * @c:		connection
 * @req:	GET_FEATURES, GET_PROTOCOL_FEATURES, GET_QUEUE_NUM
 * @val:	out: the answer
 *
 * Return: 0 or -errno
 */
int vdrv_proto_get_u64(struct vdrv_conn *c, uint32_t req, uint64_t *val)
{
	int ret = vdrv_proto_send(c, req, 0, NULL, 0, NULL, 0);

	return ret ? ret : vdrv_proto_recv(c, req, val, sizeof(*val));
}

/**
 * vdrv_proto_set() - a request without reply of its own, acked if we can
 * @c:		connection
 * @req:	request code
 * @payload:	payload
 * @size:	its size
 * @fds:	descriptors to pass
 * @nfds:	how many
 *
 * Return: 0, -EREMOTEIO if the back end acked with an error, or -errno
 */
int vdrv_proto_set(struct vdrv_conn *c, uint32_t req, const void *payload,
		   uint32_t size, const int *fds, unsigned int nfds)
{
	uint64_t ack;
	int ret;

	ret = vdrv_proto_send(c, req, c->reply_ack ? VDRV_MSG_NEED_REPLY : 0,
			      payload, size, fds, nfds);
	if (ret || !c->reply_ack)
		return ret;
	ret = vdrv_proto_recv(c, req, &ack, sizeof(ack));
	if (ret)
		return ret;
	return ack ? -EREMOTEIO : 0;
}

/**
 * vdrv_proto_set_u64() - vdrv_proto_set() with a u64 payload
 * @c:		connection
 * @req:	request code
 * @val:	payload
 *
 * Return: as vdrv_proto_set()
 */
int vdrv_proto_set_u64(struct vdrv_conn *c, uint32_t req, uint64_t val)
{
	return vdrv_proto_set(c, req, &val, sizeof(val), NULL, 0);
}

/**
 * vdrv_proto_set_state() - vdrv_proto_set() with a vring state payload
 * @c:		connection
 * @req:	SET_VRING_NUM, SET_VRING_BASE, SET_VRING_ENABLE
 * @index:	vring index
 * @num:	value
 *
 * Return: as vdrv_proto_set()
 */
int vdrv_proto_set_state(struct vdrv_conn *c, uint32_t req,
			 unsigned int index, unsigned int num)
{
	struct vhost_vring_state s = { .index = index, .num = num };

	return vdrv_proto_set(c, req, &s, sizeof(s), NULL, 0);
}

/**
 * vdrv_proto_set_fd() - SET_VRING_KICK/CALL/ERR
 * @c:		connection
 * @req:	request code
 * @index:	vring index (bits 0-7 of the payload)
 * @fd:		eventfd, or -1 for "no fd" (bit 8, polling)
 *
 * Return: as vdrv_proto_set()
 */
int vdrv_proto_set_fd(struct vdrv_conn *c, uint32_t req, unsigned int index,
		      int fd)
{
	uint64_t v = (index & 0xff) | (fd < 0 ? VDRV_VRING_NOFD : 0);

	return vdrv_proto_set(c, req, &v, sizeof(v), fd < 0 ? NULL : &fd,
			      fd < 0 ? 0 : 1);
}

/**
 * vdrv_proto_get_vring_base() - stop a ring and learn where it stopped
 * @c:		connection
 * @index:	vring index
 * @packed:	the ring is packed: all 32 bits mean something
 * @base:	out: the device's next avail index (packed: avail position
 *		and wrap counter in bits 0-15, used ones in 16-31)
 *
 * Return: 0, -EPROTO if the reply names another ring or a split base
 * beyond 16 bits, or -errno
 */
int vdrv_proto_get_vring_base(struct vdrv_conn *c, unsigned int index,
			      bool packed, uint32_t *base)
{
	struct vhost_vring_state s = { .index = index };
	int ret;

	ret = vdrv_proto_send(c, VDRV_REQ_GET_VRING_BASE, 0, &s, sizeof(s),
			      NULL, 0);
	if (!ret)
		ret = vdrv_proto_recv(c, VDRV_REQ_GET_VRING_BASE, &s,
				      sizeof(s));
	if (ret)
		return ret;
	if (s.index != index || (!packed && s.num > 0xffff))
		return -EPROTO;
	*base = s.num;
	return 0;
}

/**
 * vdrv_proto_wait_hangup() - wait for the back end to close the connection
 * @c:		connection
 * @timeout_ms:	limit
 * @ack:	out: payload of a u64 reply that arrived instead
 * @got_ack:	out: such a reply arrived (we return at once)
 *
 * Return: 0 when the peer hung up or a reply arrived, -ETIMEDOUT, -errno
 */
int vdrv_proto_wait_hangup(struct vdrv_conn *c, int timeout_ms,
			   uint64_t *ack, bool *got_ack)
{
	int64_t deadline = vdrv_proto_ms() + timeout_ms;
	int saved = c->timeout_ms, ret;

	*got_ack = false;
	if (c->hung_up)
		return 0;
	for (;;) {
		struct pollfd pfd = { .fd = c->sock,
				      .events = POLLIN | POLLRDHUP };
		int64_t left = deadline - vdrv_proto_ms();
		uint32_t hdr[3];

		if (left <= 0)
			return -ETIMEDOUT;
		ret = poll(&pfd, 1, (int)left);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return -errno;
		if (!ret)
			return -ETIMEDOUT;
		c->timeout_ms = 200;
		ret = vdrv_proto_read(c, hdr, sizeof(hdr));
		if (!ret && hdr[2] == sizeof(*ack))
			ret = vdrv_proto_read(c, ack, sizeof(*ack));
		else if (!ret)
			ret = -EPROTO;
		c->timeout_ms = saved;
		if (c->hung_up)
			return 0;
		if (!ret) {
			*got_ack = true;
			return 0;
		}
		if (ret != -ETIMEDOUT && ret != -EPROTO)
			return ret;
	}
}
