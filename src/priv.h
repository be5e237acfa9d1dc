/* SPDX-License-Identifier: GPL-2.0-or-later */
/* priv.h - whom vhostd runs as after start-up, and with which capabilities
 *
 * Start-up needs privileges (a TAP, its queues and eBPF program, socket
 * files given to another owner); the running daemon needs almost none.
 * priv_drop() ends start-up: it switches to --user, keeps only the
 * capabilities the running daemon still uses (none, or CAP_BPF where the
 * kernel wants it for the TAP steering map), and sets no_new_privs.
 */
#ifndef VHOSTD_PRIV_H
#define VHOSTD_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "conf.h"

/*
 * priv_init()		start-up, before any port: check that --user can be
 *			honoured and look up its supplementary groups; die()
 *			with the reason if not.
 * priv_run_uid()	the uid vhostd runs as once start-up is over (--user's,
 *			else the current one): what a TAP is handed to.
 * priv_drop()		end of start-up, before the workers start: switch
 *			user, drop capabilities but what @steer_maps needs,
 *			set no_new_privs; die() naming the step that failed.
 * priv_dropped()	whether priv_drop() has run: start-up is over, and
 *			what needs a capability (a TAP, its queues) cannot
 *			be done any more.
 */
void priv_init(const struct conf_user *u);
uint32_t priv_run_uid(void);
void priv_drop(bool steer_maps);
bool priv_dropped(void);

#endif /* VHOSTD_PRIV_H */
