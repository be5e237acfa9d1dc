/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl_stats.h - vhostd's "stats" reply, for the integration programs
 *
 * The programs that check counters while they drive guests (vdrv_itest,
 * tapdirect_itest, dirtylog_itest) read them the way vhostctl does: one
 * "stats" line on the control socket, the JSON reply read to its end.
 * Each picks its numbers out of the text itself.
 */
#ifndef CTL_STATS_H
#define CTL_STATS_H

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

/**
 * ctl_stats() - ask vhostd for its counters
 * @ctl:	control socket path
 * @buf:	out: the reply, NUL-terminated (cut at @cap - 1 bytes)
 * @cap:	size of @buf, at least 1
 *
 * Return: bytes in @buf, or -errno (connect, write)
 */
static inline ssize_t ctl_stats(const char *ctl, char *buf, size_t cap)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = 0;
	ssize_t r;
	int fd, err;

	buf[0] = '\0';
	if (strlen(ctl) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, ctl, strlen(ctl) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    write(fd, "stats\n", 6) != 6) {
		err = errno ? -errno : -EIO;
		close(fd);
		return err;
	}
	while (len < cap - 1 && (r = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)r;
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

#endif /* CTL_STATS_H */
