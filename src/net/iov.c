// SPDX-License-Identifier: GPL-2.0-or-later
/* iov.c - copying between scatter-gather lists
 *
 * Pure functions over caller-validated iovecs: every segment passed in
 * already lies inside a mapping (guest_mem did that), so nothing here
 * re-checks addresses; lengths are respected exactly.
 */
#include <string.h>

#include "iov.h"
#include "../util.h"

/**
 * iov_cursor_init() - start reading @iov from its first byte
 * @c:		cursor
 * @iov:	segments
 * @cnt:	number of segments
 */
void iov_cursor_init(struct iov_cursor *c, const struct iovec *iov,
		     unsigned int cnt)
{
	c->iov = iov;
	c->cnt = cnt;
	c->i = 0;
	c->off = 0;
}

/**
 * iov_cursor_copy() - copy from the cursor into a destination iovec
 * @c:		source cursor, advanced past what was copied
 * @dst:	destination segments
 * @dcnt:	number of destination segments
 * @doff:	offset into @dst to start writing at
 * @len:	most bytes to copy
 *
 * Return: bytes copied: less than @len if the source or the destination
 *	   (after @doff) ran out
 */
size_t iov_cursor_copy(struct iov_cursor *c, const struct iovec *dst,
		       unsigned int dcnt, size_t doff, size_t len)
{
	unsigned int d = 0;
	size_t done = 0;

	while (d < dcnt && doff >= dst[d].iov_len)
		doff -= dst[d++].iov_len;

	while (done < len && d < dcnt && c->i < c->cnt) {
		const struct iovec *s = &c->iov[c->i];
		size_t n = MIN(s->iov_len - c->off, dst[d].iov_len - doff);

		n = MIN(n, len - done);
		memcpy((char *)dst[d].iov_base + doff,
		       (const char *)s->iov_base + c->off, n);
		done += n;
		doff += n;
		c->off += n;
		if (c->off == s->iov_len) {
			c->i++;
			c->off = 0;
		}
		if (doff == dst[d].iov_len) {
			d++;
			doff = 0;
		}
	}
	return done;
}

/**
 * iov_to_buf() - gather bytes from an iovec into a flat buffer
 * @iov:	segments
 * @cnt:	number of segments
 * @off:	offset of the first byte to copy
 * @buf:	destination
 * @len:	bytes wanted
 *
 * Return: bytes copied (short if the iovec ends first)
 */
size_t iov_to_buf(const struct iovec *iov, unsigned int cnt, size_t off,
		  void *buf, size_t len)
{
	struct iovec d = { .iov_base = buf, .iov_len = len };
	struct iov_cursor c;
	unsigned int i = 0;

	while (i < cnt && off >= iov[i].iov_len)
		off -= iov[i++].iov_len;
	if (i == cnt)
		return 0;
	iov_cursor_init(&c, iov + i, cnt - i);
	c.off = off;
	return iov_cursor_copy(&c, &d, 1, 0, len);
}

/**
 * iov_from_buf() - scatter a flat buffer into an iovec
 * @iov:	destination segments
 * @cnt:	number of segments
 * @off:	offset in @iov to start writing at
 * @buf:	source
 * @len:	bytes to write
 *
 * Return: bytes copied (short if the iovec ends first)
 */
size_t iov_from_buf(const struct iovec *iov, unsigned int cnt, size_t off,
		    const void *buf, size_t len)
{
	struct iovec s = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_cursor c;

	iov_cursor_init(&c, &s, 1);
	return iov_cursor_copy(&c, iov, cnt, off, len);
}

/**
 * iov_tail() - describe the bytes of @iov from @off on, without copying
 * @iov:	segments
 * @cnt:	number of segments
 * @off:	bytes to skip
 * @out:	resulting segments
 * @max:	capacity of @out
 *
 * Return: segments written to @out (empty segments are skipped)
 */
unsigned int iov_tail(const struct iovec *iov, unsigned int cnt, size_t off,
		      struct iovec *out, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < cnt && n < max; i++) {
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		out[n].iov_base = (char *)iov[i].iov_base + off;
		out[n].iov_len = iov[i].iov_len - off;
		off = 0;
		n++;
	}
	return n;
}

/**
 * iov_slice() - describe bytes [@off, @off + @len) of @iov, without copying
 * @iov:	segments
 * @cnt:	number of segments
 * @off:	first byte
 * @len:	bytes wanted
 * @out:	resulting segments
 * @max:	capacity of @out
 *
 * Return: segments written to @out, or -1 if more than @max were needed
 *	   (a @len running past the end of @iov is cut short)
 */
int iov_slice(const struct iovec *iov, unsigned int cnt, size_t off,
	      size_t len, struct iovec *out, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < cnt && len; i++) {
		size_t take;

		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		if (n == max)
			return -1;
		take = MIN(iov[i].iov_len - off, len);
		out[n].iov_base = (char *)iov[i].iov_base + off;
		out[n].iov_len = take;
		len -= take;
		off = 0;
		n++;
	}
	return (int)n;
}

/**
 * iov_size() - total bytes in an iovec
 * @iov:	segments
 * @cnt:	number of segments
 * Return: sum of the segment lengths
 */
size_t iov_size(const struct iovec *iov, unsigned int cnt)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < cnt; i++)
		n += iov[i].iov_len;
	return n;
}
