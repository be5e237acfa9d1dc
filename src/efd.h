/* SPDX-License-Identifier: GPL-2.0-or-later */
/* efd.h - a front end's eventfds: checked on arrival, never waited on
 *
 * efd_check()		0 if @fd is an eventfd (made non-blocking), else
 *			-EBADF / -EINVAL (not an eventfd: @what says what
 *			it is) / -errno.
 * efd_signal()		add 1 to the eventfd @fd.  0: done, or the counter
 *			was full (an interrupt is pending anyway); -ETIMEDOUT:
 *			the write blocked (a front end made the fd blocking
 *			and filled it) and the watchdog broke it off; -errno.
 * efd_signal_later()	the same by the slow lane, a thread of its own:
 *			for a front end that made a write block once.
 *			0 when queued; -ENOBUFS when full (lost, counted).
 * efd_watch_thread()	put the calling thread under the watchdog: its
 *			efd_signal() calls that block end within
 *			2 * EFD_WATCH_MS.  Threads not watched still never
 *			block on a non-blocking fd, but trust its flags.
 * efd_watchdog_start()	start the watchdog and slow lane threads (before
 *			the sandbox).
 * efd_watchdog_stop()	stop and join them.
 * efd_stalls()		writes the watchdog broke off, since start.
 * efd_lane_drops()	slow lane writes lost for want of room.
 */
#ifndef VHOSTD_EFD_H
#define VHOSTD_EFD_H

#include <stddef.h>
#include <stdint.h>

#define EFD_WATCH_MS	25	/* watchdog period */
#define EFD_THREADS_MAX	32	/* threads it watches: control + workers */

int efd_check(int fd, char *what, size_t len);
int efd_signal(int fd);
int efd_signal_later(int fd);
int efd_watch_thread(void);
int efd_watchdog_start(void);
void efd_watchdog_stop(void);
uint64_t efd_stalls(void);
uint64_t efd_lane_drops(void);

#endif /* VHOSTD_EFD_H */
