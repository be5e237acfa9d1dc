/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h - logging to stderr (and syslog-style levels), rate limited
 *
 * Datapath code must not log per packet: it counts, and logs once per
 * device ("broken") through log_once-style flags kept by the caller.
 */
#ifndef VHOSTD_LOG_H
#define VHOSTD_LOG_H

#include <stdarg.h>

enum log_level {
	LOG_LVL_ERR,
	LOG_LVL_WARN,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
	LOG_LVL_COUNT,
};

void log_set_level(enum log_level lvl);
void log_msg(enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define err(...)	log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define warn(...)	log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define info(...)	log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define debug(...)	log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

/* Start-up only: print and exit(2).  Never after start-up. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif /* VHOSTD_LOG_H */
