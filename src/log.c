// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - timestamped, level-filtered messages on stderr, rate limited
 *	   per source
 *
 * One write(2) per message so lines from the control thread and workers
 * never interleave mid-line.  The per-source token bucket is described
 * in log.h.
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

struct log_src log_src_global = { .name = "vhostd" };

/**
 * log_set_level() - set the most verbose level printed
 * @lvl:	level
 *
 * Context: start-up, before the workers run
 */
void log_set_level(enum log_level lvl)
{
	__atomic_store_n(&log_level, lvl, __ATOMIC_RELAXED);
}

/**
 * log_enabled() - whether messages of @lvl are printed
 * @lvl:	level
 *
 * Return: true if @lvl is at or above the log level
 */
bool log_enabled(enum log_level lvl)
{
	return lvl <= __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

/**
 * log_vmsg() - print one line, "vhostd[SEC.MS] LEVEL: ...", in one write
 * @lvl:	severity (its name is printed)
 * @fmt:	printf format
 * @ap:		its arguments
 */
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
 * log_vmsg_ap() - log_vmsg() with the arguments inline, no level check
 * @lvl:	severity (its name is printed)
 * @fmt:	printf format
 */
static void __attribute__((format(printf, 2, 3)))
log_vmsg_ap(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(lvl, fmt, ap);
	va_end(ap);
}

/**
 * log_msg() - print a message if @lvl is enabled
 * @lvl:	severity
 * @fmt:	printf format
 */
void log_msg(enum log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (!log_enabled(lvl))
		return;
	va_start(ap, fmt);
	log_vmsg(lvl, fmt, ap);
	va_end(ap);
}

/**
 * log_src_init() - a full bucket
 * @s:		source
 * @name:	its name for the summary line; must outlive @s
 */
void log_src_init(struct log_src *s, const char *name)
{
	s->name = name;
	__atomic_store_n(&s->tat, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&s->suppressed, 0, __ATOMIC_RELAXED);
}

/**
 * log_src_take() - take a token from @s's bucket
 * @s:		source
 * @now:	current time, ns
 *
 * GCRA: @tat is when the bucket will be full again.  A token is there
 * while @tat lies at most (LOG_SRC_BURST - 1) intervals ahead of @now;
 * taking it pushes @tat one interval further.  The compare-and-swap loop
 * makes concurrent callers take distinct tokens.
 *
 * Return: true if a token was taken
 */
static bool log_src_take(struct log_src *s, uint64_t now)
{
	const uint64_t tau = (LOG_SRC_BURST - 1) * LOG_SRC_INTERVAL_NS;
	uint64_t tat = __atomic_load_n(&s->tat, __ATOMIC_RELAXED), next;

	do {
		uint64_t base = tat > now ? tat : now;

		if (base - now > tau)
			return false;
		next = base + LOG_SRC_INTERVAL_NS;
	} while (!__atomic_compare_exchange_n(&s->tat, &tat, next, true,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return true;
}

/**
 * log_src_admit() - take a token from @s's bucket, or count a refusal
 * @s:		source
 * @now:	current time, ns (injected so that tests control it)
 * @suppressed:	out, when admitted: messages refused since the last
 *		admitted one (the caller prints the summary); 0 if none
 *
 * Return: true if the message may be printed
 * Context: any thread
 */
bool log_src_admit(struct log_src *s, uint64_t now, uint64_t *suppressed)
{
	if (!log_src_take(s, now)) {
		__atomic_fetch_add(&s->suppressed, 1, __ATOMIC_RELAXED);
		return false;
	}
	*suppressed = __atomic_exchange_n(&s->suppressed, 0, __ATOMIC_RELAXED);
	return true;
}

/**
 * log_src_summary() - print "NAME: N messages suppressed" if N > 0
 * @s:		source
 * @n:		messages refused
 */
static void log_src_summary(const struct log_src *s, uint64_t n)
{
	if (n)
		log_vmsg_ap(LOG_LVL_WARN, "%s: %llu message%s suppressed",
			    s->name ? s->name : "?", (unsigned long long)n,
			    n == 1 ? "" : "s");
}

/**
 * log_src_msg() - print a message from @s if @lvl is enabled and @s's
 *		   bucket has a token
 * @s:		source, NULL for log_src_global
 * @lvl:	severity
 * @fmt:	printf format
 *
 * Context: any thread; no allocation, no lock
 */
void log_src_msg(struct log_src *s, enum log_level lvl, const char *fmt, ...)
{
	uint64_t n;
	va_list ap;

	if (!log_enabled(lvl))
		return;
	if (!s)
		s = &log_src_global;
	if (!log_src_admit(s, now_ns(), &n))
		return;
	log_src_summary(s, n);
	va_start(ap, fmt);
	log_vmsg(lvl, fmt, ap);
	va_end(ap);
}

/**
 * log_src_flush() - print @s's pending summary once its bucket refilled
 * @s:		source
 *
 * For the one-second tick: a source that went quiet after a flood still
 * tells how much it lost, without waiting for its next message.  The
 * summary takes a token like any line.
 *
 * Context: any thread (the control thread's timer)
 */
void log_src_flush(struct log_src *s)
{
	uint64_t n;

	if (!__atomic_load_n(&s->suppressed, __ATOMIC_RELAXED) ||
	    !log_src_take(s, now_ns()))
		return;
	n = __atomic_exchange_n(&s->suppressed, 0, __ATOMIC_RELAXED);
	log_src_summary(s, n);
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
