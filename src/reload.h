/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reload.h - vhostctl reload and SIGHUP: the ports of --config FILE, again
 *
 * reload_init()	start-up, after the ports exist: remember which ports
 *			came from the --config file (@c is main's, kept).
 * reload_run()		parse the command line and the file again (through
 *			conf_child.c) and make the file's ports what it now
 *			says: ports no longer there removed, new ones added,
 *			changed ones re-created, the others (and every port
 *			of the command line or of "port add") untouched.
 *			Everything is checked first: a file that does not
 *			parse, changes a setting that only start-up makes, or
 *			asks for a port that cannot be added now, changes
 *			nothing (-EINVAL, @r->err says why and where).  A port
 *			that then fails to open (its socket's directory gone)
 *			is the one exception: the rest is applied, -EIO, and
 *			the next reload tries it again.
 */
#ifndef VHOSTD_RELOAD_H
#define VHOSTD_RELOAD_H

#include "conf.h"

/**
 * struct reload_result - what a reload did
 * @n:		names in each list: added, removed, changed (re-created),
 *		failed (to open)
 * @names:	the lists
 * @unchanged:	ports of the file left as they were
 * @err:	why nothing was applied, or the first port that failed
 */
struct reload_result {
	unsigned int n[4];
	char names[4][CONF_PORTS_MAX][CONF_NAME_MAX];
	unsigned int unchanged;
	char err[CONF_FILE_PATH_MAX + 2048];
};

enum { RELOAD_ADDED, RELOAD_REMOVED, RELOAD_CHANGED, RELOAD_FAILED };

void reload_init(const struct conf *c);
int reload_run(struct reload_result *r);

#endif /* VHOSTD_RELOAD_H */
