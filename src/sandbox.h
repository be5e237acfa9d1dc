/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sandbox.h - the seccomp allow-list of the running daemon
 *
 * Installed once start-up is over (after priv_drop(), before the workers
 * start, so every thread inherits it); a syscall not on the list ends
 * the process with one log line naming it (SIGSYS).  The list, with the
 * reason for each entry, is in sandbox.c.
 */
#ifndef VHOSTD_SANDBOX_H
#define VHOSTD_SANDBOX_H

#include <stdbool.h>

/*
 * sandbox_install()	load the filter for this process (every thread it
 *			has and will have): 0 or -errno.
 * sandbox_sanitizer()	whether a sanitizer runtime (ASan, UBSan, TSan,
 *			LSan, MSan) is linked in: its runtime needs more
 *			syscalls, which the filter then allows too.
 */
int sandbox_install(void);
bool sandbox_sanitizer(void);

#endif /* VHOSTD_SANDBOX_H */
