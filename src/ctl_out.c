// SPDX-License-Identifier: GPL-2.0-or-later
/* ctl_out.c - the reply buffer, JSON and Prometheus quoting, the tables a
 * port shows, the writer a port's own output goes through
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctl_int.h"
#include "util.h"

/**
 * ctl_printf() - append to a reply
 * @b:		reply
 * @fmt:	printf format
 */
void ctl_printf(struct ctl_buf *b, const char *fmt, ...)
{
	va_list ap;

	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->len;
		char *np;
		int n;

		va_start(ap, fmt);
		n = vsnprintf(b->p ? b->p + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		if (b->len + (size_t)n + 1 > CTL_REPLY_MAX) {
			b->oom = true;
			return;
		}
		np = realloc(b->p, MAX(b->cap * 2, b->len + (size_t)n + 1));
		if (!np) {
			b->oom = true;
			return;
		}
		b->cap = MAX(b->cap * 2, b->len + (size_t)n + 1);
		b->p = np;
	}
}

/**
 * ctl_json_esc() - append @s escaped for the inside of a JSON string
 * @b:		reply
 * @s:		string; names are checked by conf.c, but escape anyway
 *
 * The output is ASCII: bytes from 0x80 up are escaped too (as U+0080 to
 * U+00FF), since @s may be a client's line -- any bytes, not UTF-8 --
 * and JSON text must be valid UTF-8 (RFC 8259 8.1).
 */
void ctl_json_esc(struct ctl_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			ctl_printf(b, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			ctl_printf(b, "\\u%04x", c);
		else
			ctl_printf(b, "%c", c);
	}
}

/**
 * ctl_json_str() - append @s as a quoted JSON string
 * @b:		reply
 * @s:		string
 */
void ctl_json_str(struct ctl_buf *b, const char *s)
{
	ctl_printf(b, "\"");
	ctl_json_esc(b, s);
	ctl_printf(b, "\"");
}

/**
 * ctl_prom_label() - append @s as a Prometheus label value (quoted)
 * @b:		reply
 * @s:		value
 */
void ctl_prom_label(struct ctl_buf *b, const char *s)
{
	ctl_printf(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			ctl_printf(b, "\\%c", *s);
		else if (*s == '\n')
			ctl_printf(b, "\\n");
		else
			ctl_printf(b, "%c", *s);
	}
	ctl_printf(b, "\"");
}

/**
 * ctl_out_put() - struct port_out's writer: into the reply
 * @o:		the writer (@ctx: struct ctl_buf)
 * @fmt:	printf format
 */
void ctl_out_put(struct port_out *o, const char *fmt, ...)
{
	struct ctl_buf *b = o->ctx;
	char line[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(line)) {
		b->oom = true;	/* a port's line is never this long */
		return;
	}
	ctl_printf(b, "%s", line);
}

/**
 * ctl_port_table() - the @k-th counter table a port shows
 * @p:		port
 * @k:		0: stats_common, then the type's tables in their order
 * Return: the table, or NULL past the last
 */
const struct stats_table *ctl_port_table(const struct port *p,
						unsigned int k)
{
	if (!k)
		return &stats_common;
	if (!p->ops->counters)
		return NULL;
	return p->ops->counters[k - 1];
}

/**
 * ctl_port_has() - whether @p shows the counters of table @t
 * @p:		port
 * @t:		table
 * Return: true if @t is among ctl_port_table()'s
 */
bool ctl_port_has(const struct port *p, const struct stats_table *t)
{
	const struct stats_table *u;
	unsigned int k;

	for (k = 0; (u = ctl_port_table(p, k)); k++)
		if (u == t)
			return true;
	return false;
}
