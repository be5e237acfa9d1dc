/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h - logging to stderr, levels, and a rate limit per source
 *
 * DOC: Who may fill the log
 *
 * Plain err()/warn()/info()/debug() are for what only the operator
 * causes: start-up, shutdown, a port that cannot be created.  Anything a
 * peer can make happen again and again -- a front end connecting,
 * sending a bad message, breaking a ring; a ctl client; a guest spraying
 * MACs -- is logged through a struct log_src with the src_*() macros: a
 * token bucket per source (each port has one, struct port.log; what
 * belongs to no port uses log_src_global) lets LOG_SRC_BURST messages
 * through at once and then one per LOG_SRC_INTERVAL_NS.  What the bucket
 * refuses is counted, and the next message it admits, or the control
 * thread's one-second tick (log_src_flush()), first prints
 * "NAME: N messages suppressed".  One misbehaving front end therefore
 * costs the log a line a second, and never hides another port's lines.
 *
 * The bucket is one atomic word (GCRA, the "virtual scheduling" form of
 * a token bucket) plus an atomic counter: workers and the control thread
 * may log for the same source at once, without a lock.  A message below
 * the log level is dropped before the bucket and takes no token.
 *
 * Datapath code must not log per packet: it counts.  What it logs at all
 * (a kick read failing) goes through its port's source.
 *
 * DOC: Where it goes
 *
 * --log stderr: one line per message, "vhostd[SEC.MS] LEVEL: text".
 * --log journal: systemd's native protocol (sd_journal_send()), with
 * PRIORITY, SYSLOG_IDENTIFIER=vhostd, and VHOSTD_PORT (a port source's
 * name) and VHOSTD_QUEUE (the queue a worker's turn was at) where the
 * message has them, so "journalctl VHOSTD_PORT=vm1" is one port's log.
 * --log syslog: syslog(3), LOG_DAEMON, "port[queue]: " before the text.
 * --log auto (the default): journal when stderr is the journal already
 * ($JOURNAL_STREAM names it: systemd's StandardError=journal), else
 * stderr.  log_open() connects at start-up, so the running daemon only
 * sends on a socket it has.  The level (--log-level, -v) can be changed
 * while vhostd runs: vhostctl log level LEVEL.
 */
#ifndef VHOSTD_LOG_H
#define VHOSTD_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

enum log_level {
	LOG_LVL_ERR,
	LOG_LVL_WARN,
	LOG_LVL_INFO,
	LOG_LVL_DEBUG,
	LOG_LVL_COUNT,
};

/* A connect/disconnect cycle of a well-behaved front end logs 4-5 lines
 * (connected, port up, MTU, port down, disconnected): a burst of 10 lets
 * two of them, or one with its warnings, through whole.  After that one
 * line a second, the order of Linux's printk_ratelimit (10 per 5 s).
 */
#define LOG_SRC_BURST		10
#define LOG_SRC_INTERVAL_NS	1000000000ULL

/**
 * struct log_src - one rate-limited origin of log messages
 * @name:	printed in the "suppressed" summary (the port's name); not
 *		owned, must outlive the source
 * @tat:	GCRA theoretical arrival time (ns, CLOCK_MONOTONIC): the
 *		bucket is empty up to it; atomic
 * @suppressed:	messages refused since the last summary; atomic
 *
 * Embedded in its owner (no allocation); zero plus a name is a full
 * bucket (log_src_init()).
 */
struct log_src {
	const char *name;
	uint64_t tat;
	uint64_t suppressed;
};

/**
 * enum log_sink - where messages go (--log)
 * @LOG_SINK_AUTO:	journal if stderr is the journal, else stderr
 * @LOG_SINK_STDERR:	lines on stderr
 * @LOG_SINK_JOURNAL:	systemd journal, structured fields
 * @LOG_SINK_SYSLOG:	syslog(3)
 */
enum log_sink {
	LOG_SINK_AUTO,
	LOG_SINK_STDERR,
	LOG_SINK_JOURNAL,
	LOG_SINK_SYSLOG,
};

extern struct log_src log_src_global;
/* The queue the calling thread works on, for VHOSTD_QUEUE (-1: none). */
extern __thread int log_queue;

int log_open(enum log_sink sink);
enum log_sink log_sink(void);
const char *log_sink_name(enum log_sink sink);
int log_sink_parse(const char *s);
const char *log_level_name(enum log_level lvl);
int log_level_parse(const char *s);
enum log_level log_get_level(void);
void log_set_level(enum log_level lvl);
bool log_enabled(enum log_level lvl);
void log_msg(enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

void log_src_init(struct log_src *s, const char *name);
bool log_src_admit(struct log_src *s, uint64_t now, uint64_t *suppressed);
void log_src_msg(struct log_src *s, enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void log_src_flush(struct log_src *s);

#define err(...)	log_msg(LOG_LVL_ERR, __VA_ARGS__)
#define warn(...)	log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define info(...)	log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define debug(...)	log_msg(LOG_LVL_DEBUG, __VA_ARGS__)

/* Rate limited per source (@s: struct log_src *, NULL = global). */
#define src_err(s, ...)		log_src_msg(s, LOG_LVL_ERR, __VA_ARGS__)
#define src_warn(s, ...)	log_src_msg(s, LOG_LVL_WARN, __VA_ARGS__)
#define src_info(s, ...)	log_src_msg(s, LOG_LVL_INFO, __VA_ARGS__)
#define src_debug(s, ...)	log_src_msg(s, LOG_LVL_DEBUG, __VA_ARGS__)

/* Start-up only: print and exit(2).  Never after start-up. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif /* VHOSTD_LOG_H */
