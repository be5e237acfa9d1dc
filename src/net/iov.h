/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iov.h - copying between scatter-gather lists
 *
 * The datapath's only copy happens here: from a source frame's iovec
 * (guest TX buffers, a TAP read buffer) into a destination's (guest RX
 * buffers).  A cursor walks the source once per frame, so a frame spread
 * over many destination buffers is not re-scanned from the start.
 */
#ifndef VHOSTD_IOV_H
#define VHOSTD_IOV_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

/**
 * struct iov_cursor - read position in an iovec array
 * @iov:	segments
 * @cnt:	number of segments
 * @i:		current segment
 * @off:	offset in the current segment
 */
struct iov_cursor {
	const struct iovec *iov;
	unsigned int cnt;
	unsigned int i;
	size_t off;
};

void iov_cursor_init(struct iov_cursor *c, const struct iovec *iov,
		     unsigned int cnt);
size_t iov_cursor_copy(struct iov_cursor *c, const struct iovec *dst,
		       unsigned int dcnt, size_t doff, size_t len);
size_t iov_to_buf(const struct iovec *iov, unsigned int cnt, size_t off,
		  void *buf, size_t len);
size_t iov_from_buf(const struct iovec *iov, unsigned int cnt, size_t off,
		    const void *buf, size_t len);
unsigned int iov_tail(const struct iovec *iov, unsigned int cnt, size_t off,
		      struct iovec *out, unsigned int max);
int iov_slice(const struct iovec *iov, unsigned int cnt, size_t off,
	      size_t len, struct iovec *out, unsigned int max);
size_t iov_size(const struct iovec *iov, unsigned int cnt);

/**
 * iov_peek() - iov_to_buf() for a few header bytes, which lie in the first
 *		segment with every driver we know: then one memcpy, no call
 * @iov:	segments
 * @cnt:	number of segments
 * @off:	offset in @iov
 * @buf:	destination
 * @len:	bytes
 * Return: bytes copied, as iov_to_buf()
 */
static inline size_t iov_peek(const struct iovec *iov, unsigned int cnt,
			      size_t off, void *buf, size_t len)
{
	if (cnt && iov[0].iov_len >= off + len) {
		memcpy(buf, (const uint8_t *)iov[0].iov_base + off, len);
		return len;
	}
	return iov_to_buf(iov, cnt, off, buf, len);
}

#endif /* VHOSTD_IOV_H */
