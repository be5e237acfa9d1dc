/* SPDX-License-Identifier: GPL-2.0-or-later */
/* state.h - learned MACs and counters kept across a restart (--state)
 *
 * state_open()		open (or create) the file, before the sandbox and
 *			before privileges are dropped; 0, or -errno (the
 *			caller warns and runs without).  A file that is not
 *			ours (not a regular file, another owner, writable
 *			by others) is refused.
 * state_restore()	after the ports exist, before traffic: add the
 *			saved counters of each port that exists by name,
 *			learn its saved MACs (within its max-macs).  A
 *			corrupt, truncated or foreign file is ignored with
 *			a warning.  Return: MACs restored, or -errno.
 * state_save()		write the current state (control thread: every
 *			STATE_PERIOD_S from the tick, and at exit).
 * state_close()	save, then close.
 */
#ifndef VHOSTD_STATE_H
#define VHOSTD_STATE_H

#define STATE_PERIOD_S	5

int state_open(const char *path);
int state_restore(void);
int state_save(void);
void state_close(void);

#endif /* VHOSTD_STATE_H */
