// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - timestamped, level-filtered messages on stderr
 *
 * One write(2) per message so lines from the control thread and workers
 * never interleave mid-line.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

static enum log_level log_level = LOG_LVL_INFO;
static const char *const log_names[LOG_LVL_COUNT] = {
	"error", "warning", "info", "debug",
};

/**
 * log_set_level() - set the most verbose level printed
 * @lvl:	level
 */
void log_set_level(enum log_level lvl)
{
	log_level = lvl;
}

static void __attribute__((format(printf, 2, 0)))
log_vmsg(enum log_level lvl, const char *fmt, va_list ap)
{
	char buf[1024];
	uint64_t t = now_ns();
	int n;

	n = snprintf(buf, sizeof(buf), "vhostd[%llu.%03llu] %s: ",
		     (unsigned long long)(t / 1000000000ULL),
		     (unsigned long long)(t / 1000000ULL % 1000ULL),
		     log_names[lvl]);
	if (n < 0)
		return;
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return; /* nowhere left to complain */
}

/**
 * log_msg() - print a message if @lvl is enabled
 * @lvl:	severity
 * @fmt:	printf format
 */
void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (lvl > log_level)
		return;
	va_start(ap, fmt);
	log_vmsg(lvl, fmt, ap);
	va_end(ap);
}

/**
 * die() - report a start-up failure and exit with status 2
 * @fmt:	printf format
 */
void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_LVL_ERR, fmt, ap);
	va_end(ap);
	exit(2);
}
