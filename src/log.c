// SPDX-License-Identifier: GPL-2.0-or-later
/* log.c - level-filtered messages to stderr, the journal or syslog, rate
 *	   limited per source
 *
 * One write(2) (or one datagram) per message so lines from the control
 * thread and workers never interleave mid-line.  The per-source token
 * bucket and the sinks are described in log.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
/* CODE_FILE= would always be this file: left out */
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "log.h"
#include "util.h"

static enum log_level log_level = LOG_LVL_INFO;
static const char *const log_names[LOG_LVL_COUNT] = {
	"error", "warning", "info", "debug",
};
/* syslog(3) priorities, which the journal's PRIORITY= uses too */
static const int log_prio[LOG_LVL_COUNT] = {
	LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG,
};
static const char *const log_sink_names[] = {
	[LOG_SINK_AUTO] = "auto", [LOG_SINK_STDERR] = "stderr",
	[LOG_SINK_JOURNAL] = "journal", [LOG_SINK_SYSLOG] = "syslog",
};
static enum log_sink log_to = LOG_SINK_STDERR;

struct log_src log_src_global = { .name = "vhostd" };
__thread int log_queue = -1;

/**
 * log_level_name() - a level's name, as --log-level takes it
 * @lvl:	level
 * Return: "error", "warning", "info" or "debug"
 */
const char *log_level_name(enum log_level lvl)
{
	return lvl < LOG_LVL_COUNT ? log_names[lvl] : "?";
}

/**
 * log_level_parse() - a level by name
 * @s:		"error"/"err", "warning"/"warn", "info", "debug"
 * Return: the level, or -EINVAL
 */
int log_level_parse(const char *s)
{
	static const char *const alias[LOG_LVL_COUNT] = {
		"err", "warn", "info", "debug",
	};
	int i;

	for (i = 0; i < LOG_LVL_COUNT; i++)
		if (!strcmp(s, log_names[i]) || !strcmp(s, alias[i]))
			return i;
	return -EINVAL;
}

/**
 * log_sink_name() - a sink's name, as --log takes it
 * @sink:	sink
 * Return: its name
 */
const char *log_sink_name(enum log_sink sink)
{
	return sink <= LOG_SINK_SYSLOG ? log_sink_names[sink] : "?";
}

/**
 * log_sink_parse() - a sink by name
 * @s:		"auto", "stderr", "journal" or "syslog"
 * Return: the sink, or -EINVAL
 */
int log_sink_parse(const char *s)
{
	int i;

	for (i = 0; i <= LOG_SINK_SYSLOG; i++)
		if (!strcmp(s, log_sink_names[i]))
			return i;
	return -EINVAL;
}

/**
 * log_stderr_is_journal() - whether stderr is systemd's journal stream
 * Return: true if $JOURNAL_STREAM names stderr's device and inode
 */
static bool log_stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 ||
	    fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

/**
 * log_open() - choose where messages go, and connect there now
 * @sink:	--log
 *
 * Start-up, before the sandbox: the journal's and syslog's sockets are
 * made here, by a first message, so the running daemon only sends (a
 * socket lost later is made again: socket(AF_UNIX) and connect() are on
 * the allow-list for vhost-user client ports).
 *
 * Return: 0, or -errno if the journal is not there (stderr is kept)
 */
int log_open(enum log_sink sink)
{
	int rc;

	if (sink == LOG_SINK_AUTO)
		sink = log_stderr_is_journal() ? LOG_SINK_JOURNAL :
						 LOG_SINK_STDERR;
	if (sink == LOG_SINK_JOURNAL) {
		rc = sd_journal_send("MESSAGE=logging to the journal",
				     "PRIORITY=%d", LOG_DEBUG,
				     "SYSLOG_IDENTIFIER=vhostd", NULL);
		if (rc < 0)
			return rc;
	}
	if (sink == LOG_SINK_SYSLOG) {
		openlog("vhostd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
		syslog(LOG_DEBUG, "logging to syslog");
	}
	__atomic_store_n(&log_to, sink, __ATOMIC_RELAXED);
	return 0;
}

/**
 * log_sink() - where messages go now
 * Return: LOG_SINK_STDERR, _JOURNAL or _SYSLOG
 */
enum log_sink log_sink(void)
{
	return __atomic_load_n(&log_to, __ATOMIC_RELAXED);
}

/**
 * log_get_level() - the most verbose level printed
 * Return: the level
 */
enum log_level log_get_level(void)
{
	return __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

/**
 * log_set_level() - set the most verbose level printed
 * @lvl:	level
 *
 * Context: any thread (start-up, ctl "log level"); workers see it at
 * their next message
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
 * log_stderr() - one line on stderr, "vhostd[SEC.MS] LEVEL: text", in one
 *		  write
 * @lvl:	severity (its name is printed)
 * @text:	the message
 */
static void log_stderr(enum log_level lvl, const char *text)
{
	char buf[1100];
	uint64_t t = now_ns();
	int n;

	n = snprintf(buf, sizeof(buf) - 1, "vhostd[%llu.%03llu] %s: %s",
		     (unsigned long long)(t / 1000000000ULL),
		     (unsigned long long)(t / 1000000ULL % 1000ULL),
		     log_names[lvl], text);
	if (n < 0)
		return;
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(STDERR_FILENO, buf, (size_t)n) < 0)
		return; /* nowhere left to complain */
}

/**
 * log_journal() - one message to the journal, with its fields
 * @lvl:	severity (PRIORITY=)
 * @text:	the message (MESSAGE=)
 * @port:	VHOSTD_PORT=, or NULL
 * @q:		VHOSTD_QUEUE=, or -1
 * Return: sd_journal_sendv()'s
 */
static int log_journal(enum log_level lvl, const char *text,
		       const char *port, int q)
{
	char msg[1040], prio[16], pf[64], qf[32];
	struct iovec iov[5];
	int k = 0;

	iov[k].iov_base = msg;
	iov[k++].iov_len = (size_t)snprintf(msg, sizeof(msg), "MESSAGE=%s",
					    text);
	iov[k].iov_base = prio;
	iov[k++].iov_len = (size_t)snprintf(prio, sizeof(prio), "PRIORITY=%d",
					    log_prio[lvl]);
	iov[k].iov_base = (void *)"SYSLOG_IDENTIFIER=vhostd";
	iov[k++].iov_len = strlen("SYSLOG_IDENTIFIER=vhostd");
	if (port) {
		iov[k].iov_base = pf;
		iov[k++].iov_len = (size_t)snprintf(pf, sizeof(pf),
						    "VHOSTD_PORT=%s", port);
	}
	if (q >= 0) {
		iov[k].iov_base = qf;
		iov[k++].iov_len = (size_t)snprintf(qf, sizeof(qf),
						    "VHOSTD_QUEUE=%d", q);
	}
	return sd_journal_sendv(iov, k);
}

/**
 * log_vmsg() - one message to the sink: in one write, or one datagram
 * @s:		its source (a port's: VHOSTD_PORT), or NULL
 * @lvl:	severity
 * @fmt:	printf format
 * @ap:		its arguments
 */
static void __attribute__((format(printf, 3, 0)))
log_vmsg(const struct log_src *s, enum log_level lvl, const char *fmt,
	 va_list ap)
{
	const char *port = s && s != &log_src_global ? s->name : NULL;
	enum log_sink sink = log_sink();
	int q = log_queue;
	char text[1024];

	if (vsnprintf(text, sizeof(text), fmt, ap) < 0)
		return;
	switch (sink) {
	case LOG_SINK_JOURNAL:
		if (log_journal(lvl, text, port, q) >= 0)
			return;
		break;	/* journald gone: say it somewhere */
	case LOG_SINK_SYSLOG:
		if (port && q >= 0)
			syslog(log_prio[lvl], "%s[%d]: %s", port, q, text);
		else if (port)
			syslog(log_prio[lvl], "%s: %s", port, text);
		else
			syslog(log_prio[lvl], "%s", text);
		return;
	default:
		break;
	}
	log_stderr(lvl, text);
}

/**
 * log_vmsg_ap() - log_vmsg() with the arguments inline, no level check
 * @s:		source, or NULL
 * @lvl:	severity (its name is printed)
 * @fmt:	printf format
 */
static void __attribute__((format(printf, 3, 4)))
log_vmsg_ap(const struct log_src *s, enum log_level lvl, const char *fmt,
	    ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(s, lvl, fmt, ap);
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
	log_vmsg(NULL, lvl, fmt, ap);
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
		log_vmsg_ap(s, LOG_LVL_WARN, "%s: %llu message%s suppressed",
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
	log_vmsg(s, lvl, fmt, ap);
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
	log_vmsg(NULL, LOG_LVL_ERR, fmt, ap);
	va_end(ap);
	exit(2);
}
