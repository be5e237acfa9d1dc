/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl.h - the control socket vhostctl talks to
 *
 * A unix stream socket served by the control thread: a client connects,
 * sends one command line, reads the reply until the daemon closes the
 * connection.  Replies are JSON (ports, stats, fdb), Prometheus text
 * (metrics) or plain text (help); an error is {"error":"..."}.  A client
 * can hold the control thread for a few hundred milliseconds at most.
 */
#ifndef VHOSTD_CTL_H
#define VHOSTD_CTL_H

#include <stddef.h>

#include "usock.h"

#define CTL_LINE_MAX	1024	/* longest command line: "port add " + a spec */

/*
 * ctl_open()	create the listening socket at @path with @s's mode, owner
 *		and group (a stale socket file is replaced; a live
 *		daemon's is not): fd or -errno.
 * ctl_handle()	@lfd is readable: serve one client, start to end (a
 *		client not on @s's allow-list is closed at once).
 * ctl_close()	close @lfd and remove @path if it is still ours.
 * ctl_exec()	run one command line; *@reply is a malloc'd NUL-terminated
 *		string the caller frees (NULL on -ENOMEM).  Returns 0, or
 *		-EINVAL when the reply is an error object.  For tests and
 *		fuzzing: ctl_handle() is transport around it.
 */
int ctl_open(const char *path, const struct usock_acl *s);
void ctl_handle(int lfd);
void ctl_close(int lfd, const char *path);
int ctl_exec(const char *line, char **reply, size_t *len);

#endif /* VHOSTD_CTL_H */
