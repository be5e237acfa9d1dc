// SPDX-License-Identifier: GPL-2.0-or-later
/* vhostctl_table.c - tables for people: "ports", "fdb", "workers", "captures"
 *
 * A table is filled cell by cell (struct vt) and printed once every
 * width is known: headings over aligned columns, text left-aligned and
 * numbers right-aligned, two blanks between.  Byte counts are shown in
 * 1024-based units (vh_bytes()), rates and large counts in 1000-based
 * ones (vh_count()); packet counters stay exact.  The numbers come from
 * the same JSON "--json" prints, read by vhostctl_json.c: a member the
 * daemon does not send shows as "-" or 0, never as garbage.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vhostctl.h"

/**
 * vt_init() - start a table
 * @t:		table
 * @indent:	blanks before each line
 * @heads:	headings, blank-separated; "-NAME" is a left-aligned column
 */
void vt_init(struct vt *t, unsigned int indent, const char *heads)
{
	const char *s = heads;

	*t = (struct vt){ .indent = indent };
	while (*s && t->ncol < VT_COLS_MAX) {
		size_t n = strcspn(s, " ");

		snprintf(t->head[t->ncol++], sizeof(t->head[0]), "%.*s",
			 (int)n, s);
		s += n;
		while (*s == ' ')
			s++;
	}
}

/**
 * vt_cell() - the next cell, row by row
 * @t:		table
 * @fmt:	printf format
 */
void vt_cell(struct vt *t, const char *fmt, ...)
{
	va_list ap;
	char *c;

	if (t->oom)
		return;
	if (t->ncells == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 64;
		char **nc = realloc(t->cells, cap * sizeof(*nc));

		if (!nc) {
			t->oom = true;
			return;
		}
		t->cells = nc;
		t->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&c, fmt, ap) < 0) {
		t->oom = true;
		c = NULL;
	}
	va_end(ap);
	if (c)
		t->cells[t->ncells++] = c;
}

/**
 * vt_u64() - a cell: @o's number @key, in decimal
 * @t:		table
 * @j:		reply
 * @o:		object holding @key
 * @key:	member name (a missing one reads 0)
 */
void vt_u64(struct vt *t, const struct vj *j, const struct vj_node *o,
	    const char *key)
{
	vt_cell(t, "%llu", (unsigned long long)vj_u64(j, vj_get(j, o, key)));
}

/**
 * vt_fixed() - a cell: @o's number @key divided by @div
 * @t:		table
 * @j:		reply
 * @o:		object holding @key
 * @key:	member name (a missing one reads 0)
 * @div:	divisor (1e9: ns as seconds)
 * @decimals:	digits after the point
 */
void vt_fixed(struct vt *t, const struct vj *j, const struct vj_node *o,
	      const char *key, double div, int decimals)
{
	vt_cell(t, "%.*f", decimals, (double)vj_u64(j, vj_get(j, o, key)) / div);
}

/**
 * vt_print() - print the table and free its cells
 * @t:		table
 * @f:		where
 * Return: 0, or 1 (out of memory, said on stderr)
 */
int vt_print(struct vt *t, FILE *f)
{
	size_t w[VT_COLS_MAX] = { 0 };
	size_t i, nrows = t->ncol ? t->ncells / t->ncol : 0;
	unsigned int c;
	int rc = 0;

	for (c = 0; c < t->ncol; c++)
		w[c] = strlen(t->head[c] + (t->head[c][0] == '-'));
	for (i = 0; i < nrows * t->ncol; i++) {
		size_t l = strlen(t->cells[i]);

		if (l > w[i % t->ncol])
			w[i % t->ncol] = l;
	}
	for (i = 0; !t->oom && i <= nrows; i++) {
		fprintf(f, "%*s", (int)t->indent, "");
		for (c = 0; c < t->ncol; c++) {
			bool left = t->head[c][0] == '-';
			const char *s = i ? t->cells[(i - 1) * t->ncol + c] :
					t->head[c] + left;
			bool last = c + 1 == t->ncol;

			if (left)
				fprintf(f, "%-*s", last ? 0 : (int)w[c], s);
			else
				fprintf(f, "%*s", (int)w[c], s);
			fputs(last ? "\n" : "  ", f);
		}
	}
	if (t->oom) {
		fprintf(stderr, "vhostctl: out of memory\n");
		rc = 1;
	}
	for (i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	*t = (struct vt){ 0 };
	return rc;
}

/**
 * vh_bytes() - a byte count for people: "512 B", "1.5 KiB", "20 GiB"
 * @buf:	out
 * @len:	its size
 * @v:		bytes
 * Return: @buf
 */
const char *vh_bytes(char *buf, size_t len, uint64_t v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB",
					    "PiB", "EiB" };
	double d = (double)v;
	unsigned int u = 0;

	while (d >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		d /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%llu B", (unsigned long long)v);
	else
		snprintf(buf, len, d < 10 ? "%.1f %s" : "%.0f %s", d, unit[u]);
	return buf;
}

/**
 * vh_count() - a count or rate for people: "950", "12.3k", "1.50M"
 * @buf:	out
 * @len:	its size
 * @v:		value, >= 0
 * Return: @buf
 */
const char *vh_count(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "", "k", "M", "G", "T", "P" };
	unsigned int u = 0;

	while (v >= 1000 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1000;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" :
			 "%.0f%s", v, unit[u]);
	return buf;
}

/**
 * vh_age() - seconds for people: "42s", "5m12s", "3h04m", "2d03h"
 * @buf:	out
 * @len:	its size
 * @s:		seconds
 * Return: @buf
 */
const char *vh_age(char *buf, size_t len, uint64_t s)
{
	if (s < 60)
		snprintf(buf, len, "%llus", (unsigned long long)s);
	else if (s < 3600)
		snprintf(buf, len, "%llum%02llus", (unsigned long long)s / 60,
			 (unsigned long long)s % 60);
	else if (s < 86400)
		snprintf(buf, len, "%lluh%02llum", (unsigned long long)s / 3600,
			 (unsigned long long)s / 60 % 60);
	else
		snprintf(buf, len, "%llud%02lluh",
			 (unsigned long long)s / 86400,
			 (unsigned long long)s / 3600 % 24);
	return buf;
}

/**
 * vhostctl_peer_brief() - what a port negotiated, in a few characters
 * @j:		reply
 * @p:		the port's object
 * @buf:	out
 * @len:	its size
 * Return: @buf: "-" (nothing to negotiate), "no peer", or the ring
 *	   layout and queue pairs started of those offered: "split 2/4q"
 */
static const char *vhostctl_peer_brief(const struct vj *j,
				       const struct vj_node *p, char *buf,
				       size_t len)
{
	const struct vj_node *n = vj_get(j, p, "negotiated");

	if (!n)
		snprintf(buf, len, "-");
	else if (!vj_true(vj_get(j, n, "connected")))
		snprintf(buf, len, "no peer");
	else
		snprintf(buf, len, "%s %llu/%lluq",
			 vj_str(vj_get(j, n, "ring"), "(none)"),
			 (unsigned long long)vj_u64(j, vj_get(j, n,
				"queue_pairs_started")),
			 (unsigned long long)vj_u64(j, vj_get(j, n,
				"queue_pairs")));
	return buf;
}

/**
 * vhostctl_print_ports() - "ports" / "stats" as a table
 * @j:		the reply: {"ports":[...]}
 * Return: exit status
 *
 * DROPS is the sum of every drop reason ("drops": {...}); the reasons
 * one by one are in "show PORT" and --json.  VLAN is an access port's
 * VLAN, or a trunk's list ("t10:20-29", native included), with "/i" for
 * an isolated port.
 */
int vhostctl_print_ports(const struct vj *j)
{
	const struct vj_node *ports = vj_get(j, &j->v[0], "ports"), *p;
	struct vt t;

	if (!ports || ports->type != VJ_ARR) {
		fprintf(stderr, "vhostctl: reply has no port list\n");
		return 1;
	}
	vt_init(&t, 0, "-NAME -TYPE -UP -VLAN MACS RX-PKTS RX-BYTES TX-PKTS "
		"TX-BYTES DROPS VIOL -PEER");
	for (p = vj_first(j, ports); p; p = vj_next(j, p)) {
		const struct vj_node *l2 = vj_get(j, p, "l2");
		char b1[32], b2[32], b3[32];
		const char *tr;

		vt_cell(&t, "%s", vj_str(vj_get(j, p, "name"), "?"));
		vt_cell(&t, "%s", vj_str(vj_get(j, p, "type"), "?"));
		vt_cell(&t, "%s", vj_true(vj_get(j, p, "up")) ? "up" : "down");
		tr = l2 ? vj_str(vj_get(j, l2, "trunk"), NULL) : NULL;
		if (!l2)
			vt_cell(&t, "-");
		else if (tr)
			vt_cell(&t, "t%.40s%s", tr,
				vj_true(vj_get(j, l2, "isolated")) ? "/i" : "");
		else
			vt_cell(&t, "%llu%s", (unsigned long long)
				vj_u64(j, vj_get(j, l2, "vlan")),
				vj_true(vj_get(j, l2, "isolated")) ? "/i" : "");
		vt_u64(&t, j, p, "macs");
		vt_u64(&t, j, p, "rx_packets");
		vt_cell(&t, "%s", vh_bytes(b1, sizeof(b1),
			vj_u64(j, vj_get(j, p, "rx_bytes"))));
		vt_u64(&t, j, p, "tx_packets");
		vt_cell(&t, "%s", vh_bytes(b2, sizeof(b2),
			vj_u64(j, vj_get(j, p, "tx_bytes"))));
		vt_u64(&t, j, p, "drops");
		vt_u64(&t, j, p, "violations");
		vt_cell(&t, "%s", vhostctl_peer_brief(j, p, b3, sizeof(b3)));
	}
	return vt_print(&t, stdout);
}

/**
 * vhostctl_print_fdb() - "fdb" as a table
 * @j:		the reply: {"age_limit":N,"fdb":[{"vlan","mac","port",...}]}
 * Return: exit status
 */
int vhostctl_print_fdb(const struct vj *j)
{
	const struct vj_node *fdb = vj_get(j, &j->v[0], "fdb"), *e;
	struct vt t;

	if (!fdb || fdb->type != VJ_ARR) {
		fprintf(stderr, "vhostctl: reply has no MAC table\n");
		return 1;
	}
	vt_init(&t, 0, "VLAN -MAC -PORT AGE -KIND");
	for (e = vj_first(j, fdb); e; e = vj_next(j, e)) {
		bool st = vj_true(vj_get(j, e, "static"));
		char age[32];

		vt_u64(&t, j, e, "vlan");
		vt_cell(&t, "%s", vj_str(vj_get(j, e, "mac"), "?"));
		vt_cell(&t, "%s", vj_str(vj_get(j, e, "port"), "?"));
		vt_cell(&t, "%s", st ? "-" : vh_age(age, sizeof(age),
			vj_u64(j, vj_get(j, e, "age"))));
		vt_cell(&t, "%s", st ? "static" : "learned");
	}
	if (vt_print(&t, stdout))
		return 1;
	printf("%u entries, learned ones forgotten after %llu s idle\n",
	       fdb->n, (unsigned long long)vj_u64(j, vj_get(j, &j->v[0],
						 "age_limit")));
	return 0;
}

/**
 * vhostctl_print_workers() - "workers" as a table
 * @j:		the reply: {"workers":[{"idx","tid","cpu","sources",...}]}
 * Return: exit status
 */
int vhostctl_print_workers(const struct vj *j)
{
	const struct vj_node *w = vj_get(j, &j->v[0], "workers"), *e, *poll;
	struct vt t;

	if (!w || w->type != VJ_ARR) {
		fprintf(stderr, "vhostctl: reply has no worker list\n");
		return 1;
	}
	vt_init(&t, 0, "WORKER TID CPU SOURCES PASSES BUSY_S POLL_S LOST% "
		"BACKOFFS -STATE");
	for (e = vj_first(j, w); e; e = vj_next(j, e)) {
		const struct vj_node *cpu = vj_get(j, e, "cpu");

		vt_u64(&t, j, e, "idx");
		vt_u64(&t, j, e, "tid");
		if (!cpu || cpu->type == VJ_NULL)
			vt_cell(&t, "-");
		else
			vt_cell(&t, "%llu", (unsigned long long)vj_u64(j, cpu));
		vt_u64(&t, j, e, "sources");
		vt_u64(&t, j, e, "passes");
		vt_fixed(&t, j, e, "busy_ns", 1e9, 2);
		vt_fixed(&t, j, e, "poll_ns", 1e9, 2);
		vt_fixed(&t, j, e, "lost_pm", 10, 1);
		vt_u64(&t, j, e, "backoffs");
		vt_cell(&t, "%s%s", vj_true(vj_get(j, e, "asleep")) ?
			"asleep" : "running",
			vj_true(vj_get(j, e, "backoff")) ? ", backoff" : "");
	}
	if (vt_print(&t, stdout))
		return 1;
	poll = vj_get(j, &j->v[0], "poll");
	if (poll && !strcmp(vj_str(vj_get(j, poll, "mode"), ""), "fixed"))
		printf("polling: fixed, %llu us after a source runs dry\n",
		       (unsigned long long)vj_u64(j, vj_get(j, poll,
							 "window_us")));
	else if (poll)
		printf("polling: auto, per source (vhostctl show PORT); a "
		       "wake-up costs %.1f us here\n",
		       (double)vj_u64(j, vj_get(j, poll, "wake_ns")) / 1000);
	return 0;
}

/**
 * vhostctl_print_captures() - "captures" as a table
 * @j:		the reply: [{...}, ...]
 * Return: exit status
 */
int vhostctl_print_captures(const struct vj *j)
{
	const struct vj_node *c;
	struct vt t;

	if (j->v[0].type != VJ_ARR) {
		fprintf(stderr, "vhostctl: reply is not a capture list\n");
		return 1;
	}
	if (!j->v[0].n) {
		printf("no captures running\n");
		return 0;
	}
	vt_init(&t, 0, "-PORT -DIR -FORMAT SNAPLEN FILTER SEEN CAPTURED "
		"FILTERED DROPPED SENT LEFT");
	for (c = vj_first(j, &j->v[0]); c; c = vj_next(j, c)) {
		uint64_t count = vj_u64(j, vj_get(j, c, "count"));
		uint64_t sent = vj_u64(j, vj_get(j, c, "sent"));
		char b[32];

		vt_cell(&t, "%s", vj_str(vj_get(j, c, "port"), "?"));
		vt_cell(&t, "%s", vj_str(vj_get(j, c, "dir"), "?"));
		vt_cell(&t, "%s", vj_str(vj_get(j, c, "format"), "?"));
		vt_cell(&t, "%s", vh_bytes(b, sizeof(b),
			vj_u64(j, vj_get(j, c, "snaplen"))));
		vt_u64(&t, j, c, "filter_insns");
		vt_u64(&t, j, c, "seen");
		vt_u64(&t, j, c, "captured");
		vt_u64(&t, j, c, "filtered");
		vt_u64(&t, j, c, "dropped");
		vt_cell(&t, "%llu", (unsigned long long)sent);
		if (count)
			vt_cell(&t, "%llu", (unsigned long long)
				(count > sent ? count - sent : 0));
		else
			vt_cell(&t, "-");
	}
	return vt_print(&t, stdout);
}
