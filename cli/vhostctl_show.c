// SPDX-License-Identifier: GPL-2.0-or-later
/* vhostctl_show.c - "show PORT" for people
 *
 * The daemon's "show NAME" reply is one object, {"port":{...}}: what
 * "ports" says of the port, its MAC table entries ("addresses"), the
 * queues the workers poll for it ("sources": queue, worker), and what its
 * type adds ("vhost": socket, device, memory, rings; "tap": interface,
 * queues).  This prints it as labelled lines and small tables; whatever
 * it does not know how to lay out is left to --json.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vhostctl.h"

/**
 * show_kv() - one "label  value" line
 * @label:	the label
 * @fmt:	printf format of the value
 */
__attribute__((format(printf, 2, 3)))
static void show_kv(const char *label, const char *fmt, ...)
{
	va_list ap;

	printf("  %-14s", label);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/**
 * show_names() - a feature set: its names, wrapped, then the hex value
 * @j:		reply
 * @o:		the "negotiated" object
 * @label:	line label
 * @key:	"features", "offered", "protocol_features"
 */
static void show_names(const struct vj *j, const struct vj_node *o,
		       const char *label, const char *key)
{
	char nkey[48];
	const struct vj_node *names, *n;
	size_t col = 0;

	snprintf(nkey, sizeof(nkey), "%s_names", key);
	names = vj_get(j, o, nkey);
	printf("  %-14s%s", label, vj_str(vj_get(j, o, key), "?"));
	for (n = vj_first(j, names); n; n = vj_next(j, n)) {
		const char *s = vj_str(n, "?");

		if (!col || col + strlen(s) + 1 > 60) {
			printf("\n  %-14s", "");
			col = 0;
		}
		col += printf("%s%s", col ? " " : "", s);
	}
	putchar('\n');
}

/**
 * show_worker() - the worker that polls queue @q, from "sources"
 * @j:		reply
 * @p:		the port's object
 * @q:		queue number, as the port's type numbers its sources
 * @buf:	out: "w0", or "-" if no worker polls it
 * @len:	size of @buf
 * Return: @buf
 */
static const char *show_worker(const struct vj *j, const struct vj_node *p,
			       uint64_t q, char *buf, size_t len)
{
	const struct vj_node *s;

	snprintf(buf, len, "-");
	for (s = vj_first(j, vj_get(j, p, "sources")); s; s = vj_next(j, s))
		if (vj_u64(j, vj_get(j, s, "q")) == q)
			snprintf(buf, len, "w%llu", (unsigned long long)
				 vj_u64(j, vj_get(j, s, "worker")));
	return buf;
}

/**
 * show_vhost() - a guest's socket, device, memory and rings
 * @j:		reply
 * @p:		the port's object
 * @v:		its "vhost" object
 */
static void show_vhost(const struct vj *j, const struct vj_node *p,
		       const struct vj_node *v)
{
	const struct vj_node *n = vj_get(j, p, "negotiated");
	const struct vj_node *mem = vj_get(j, v, "memory");
	const struct vj_node *err = vj_get(j, v, "last_error"), *r;
	char b1[32], b2[32];
	struct vt t;

	show_kv("socket", "%s (%s)", vj_str(vj_get(j, v, "path"), "?"),
		vj_true(vj_get(j, v, "client")) ? "vhostd connects" :
		"vhostd listens");
	show_kv("front end", "%s%s%s",
		vj_true(vj_get(j, v, "connected")) ? "connected" :
		"not connected",
		vj_true(vj_get(j, v, "owner")) ? ", owner set" : "",
		vj_true(vj_get(j, v, "broken")) ? ", BROKEN" : "");
	if (n) {
		show_kv("queue pairs", "%llu offered, %llu enabled, %llu "
			"started", (unsigned long long)
			vj_u64(j, vj_get(j, n, "queue_pairs")),
			(unsigned long long)
			vj_u64(j, vj_get(j, n, "queue_pairs_enabled")),
			(unsigned long long)
			vj_u64(j, vj_get(j, n, "queue_pairs_started")));
		uint64_t mtu = vj_u64(j, vj_get(j, v, "mtu"));

		snprintf(b1, sizeof(b1), "%llu", (unsigned long long)mtu);
		show_kv("ring layout", "%s, virtio-net header %llu B, MTU %s",
			vj_str(vj_get(j, n, "ring"), "none yet"),
			(unsigned long long)vj_u64(j, vj_get(j, v, "hdr_len")),
			mtu ? b1 : "not set");
		show_names(j, n, "features", "features");
		show_names(j, n, "protocol", "protocol_features");
		show_names(j, n, "offered", "offered");
	}
	if (err && err->type == VJ_OBJ)
		show_kv("last error", "%s (%s ago)",
			vj_str(vj_get(j, err, "reason"), "?"),
			vh_age(b1, sizeof(b1),
			       vj_u64(j, vj_get(j, err, "age_s"))));
	else
		show_kv("last error", "none");
	show_kv("memory", "%u region%s, %s (at most %s)",
		vj_get(j, mem, "regions") ? vj_get(j, mem, "regions")->n : 0,
		vj_get(j, mem, "regions") &&
		vj_get(j, mem, "regions")->n == 1 ? "" : "s",
		vh_bytes(b1, sizeof(b1), vj_u64(j, vj_get(j, mem, "bytes"))),
		vh_bytes(b2, sizeof(b2), vj_u64(j, vj_get(j, mem, "limit"))));
	r = vj_first(j, vj_get(j, mem, "regions"));
	if (r) {
		vt_init(&t, 4, "-GUEST-PHYSICAL SIZE");
		for (; r; r = vj_next(j, r)) {
			const char *gpa = vj_str(vj_get(j, r, "gpa"), "0x0");
			unsigned long long a = strtoull(gpa, NULL, 16);
			uint64_t sz = vj_u64(j, vj_get(j, r, "size"));

			vt_cell(&t, "0x%012llx-0x%012llx", a,
				a + (sz ? sz - 1 : 0));
			vt_cell(&t, "%s", vh_bytes(b1, sizeof(b1), sz));
		}
		vt_print(&t, stdout);
	}
	r = vj_first(j, vj_get(j, v, "rings"));
	if (!r)
		return;
	printf("  rings\n");
	vt_init(&t, 4, "Q PAIR -DIR SIZE -LAYOUT -STATE LAST-AVAIL USED -KICK "
		"-CALL -WORKER HELD");
	for (; r; r = vj_next(j, r)) {
		uint64_t q = vj_u64(j, vj_get(j, r, "q"));
		bool started = vj_true(vj_get(j, r, "started"));

		vt_cell(&t, "%llu", (unsigned long long)q);
		vt_u64(&t, j, r, "pair");
		vt_cell(&t, "%s", vj_str(vj_get(j, r, "dir"), "?"));
		vt_u64(&t, j, r, "size");
		vt_cell(&t, "%s", vj_u64(j, vj_get(j, r, "size")) ?
			vj_str(vj_get(j, r, "layout"), "?") : "-");
		vt_cell(&t, "%s", vj_true(vj_get(j, r, "broken")) ? "broken" :
			started ? "started" :
			vj_true(vj_get(j, r, "enabled")) ? "enabled" : "off");
		vt_u64(&t, j, r, "last_avail");
		vt_u64(&t, j, r, "used");
		vt_cell(&t, "%s", vj_true(vj_get(j, r, "kick_fd")) ? "fd" : "-");
		vt_cell(&t, "%s", vj_true(vj_get(j, r, "call_fd")) ? "fd" : "-");
		/* Guest TX rings are sources; RX rings are written by
		 * whichever worker forwards a frame to the guest.
		 */
		vt_cell(&t, "%s", q & 1 ? show_worker(j, p, q, b1, sizeof(b1)) :
			"any");
		vt_u64(&t, j, r, "held");
	}
	vt_print(&t, stdout);
}

/**
 * show_tap() - a TAP port's interface and queues
 * @j:		reply
 * @p:		the port's object
 * @v:		its "tap" object
 */
static void show_tap(const struct vj *j, const struct vj_node *p,
		     const struct vj_node *v)
{
	const struct vj_node *q;
	char b[32];
	struct vt t;

	show_kv("interface", "%s, %s", vj_str(vj_get(j, v, "ifname"), "?"),
		vj_true(vj_get(j, v, "multi_queue")) ?
		"multi-queue (steered per guest)" : "one queue");
	show_kv("offloads", "%s (%s), frames up to %s",
		vj_true(vj_get(j, v, "offload")) ? "on" : "off",
		vj_str(vj_get(j, v, "offloads"), "?"),
		vh_bytes(b, sizeof(b), vj_u64(j, vj_get(j, v, "frame_max"))));
	q = vj_first(j, vj_get(j, v, "queues"));
	if (!q)
		return;
	printf("  queues\n");
	vt_init(&t, 4, "Q -STEERED-TO -WORKER");
	for (; q; q = vj_next(j, q)) {
		const struct vj_node *to = vj_get(j, q, "steered_to");
		uint64_t qi = vj_u64(j, vj_get(j, q, "q"));

		vt_cell(&t, "%llu", (unsigned long long)qi);
		if (to && to->type == VJ_NUM)
			vt_cell(&t, "port %llu", (unsigned long long)to->u64);
		else
			vt_cell(&t, "flood/unknown");
		vt_cell(&t, "%s", show_worker(j, p, qi, b, sizeof(b)));
	}
	vt_print(&t, stdout);
}

/**
 * show_limit() - one direction's rate limit for people
 * @j:		reply
 * @l:		the port's "limits" object
 * @dir:	"rx" or "tx"
 * @buf:	out: "none", or "1.00G bit/s, burst 64 KiB"
 * @len:	size of @buf
 * Return: @buf
 */
static const char *show_limit(const struct vj *j, const struct vj_node *l,
			      const char *dir, char *buf, size_t len)
{
	char key[16], r[32], b[32];
	uint64_t rate;

	snprintf(key, sizeof(key), "%s_rate", dir);
	rate = vj_u64(j, vj_get(j, l, key));
	snprintf(key, sizeof(key), "%s_burst", dir);
	if (!rate)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%sbit/s, burst %s",
			 vh_count(r, sizeof(r), (double)rate),
			 vh_bytes(b, sizeof(b), vj_u64(j, vj_get(j, l, key))));
	return buf;
}

/**
 * gap_pct() - the bound under which @pct % of a source's idle gaps fall
 * @j:		reply
 * @o:		the source's "poll" object
 * @pct:	percentile
 * @buf:	out: "<64us", "<2ms", ">262ms" (the last bucket: past every
 *		bound), "-" (none)
 * @len:	its size
 *
 * Return: @buf
 */
static const char *gap_pct(const struct vj *j, const struct vj_node *o,
			   unsigned int pct, char *buf, size_t len)
{
	const struct vj_node *b = vj_first(j, vj_get(j, o, "gaps_pm"));
	uint64_t cum = 0, us = 1;
	unsigned int k = 0;

	snprintf(buf, len, "-");
	for (; b; b = vj_next(j, b), k++, us *= 2) {
		cum += vj_u64(j, b);
		if (cum && cum >= pct * 10u) {
			char op = '<';

			if (!vj_next(j, b)) {	/* past every bound */
				op = '>';
				us /= 2;
			}
			if (us >= 2000)
				snprintf(buf, len, "%c%llums", op,
					 (unsigned long long)us / 1000);
			else
				snprintf(buf, len, "%c%lluus", op,
					 (unsigned long long)us);
			break;
		}
	}
	return buf;
}

/**
 * show_polling() - each source queue's polling state, from "sources"
 * @j:		reply
 * @p:		the port's object
 *
 * MODE and WINDOW as the worker chose them (learn, poll, sleep, bulk,
 * backoff, fixed), the time polled dry and armed, windows that ran out,
 * wake-ups, dry spells a poll ended, and the bounds under which half
 * and nine tenths of its idle gaps fall (GAP50, GAP90).
 */
static void show_polling(const struct vj *j, const struct vj_node *p)
{
	const struct vj_node *s = vj_first(j, vj_get(j, p, "sources"));
	struct vt t;

	if (!s)
		return;
	show_kv("polling", "%s", "per source queue (vhostd --poll-us)");
	vt_init(&t, 4, "SOURCE WORKER -MODE WINDOW_US POLLED_S SLEPT_S SLEEPS "
		"WAKEUPS HITS GAP50 GAP90");
	for (; s; s = vj_next(j, s)) {
		const struct vj_node *o = vj_get(j, s, "poll");
		char g50[32], g90[32];

		vt_u64(&t, j, s, "q");
		vt_cell(&t, "w%llu", (unsigned long long)
			vj_u64(j, vj_get(j, s, "worker")));
		vt_cell(&t, "%s%s", vj_str(vj_get(j, o, "mode"), "?"),
			vj_true(vj_get(j, o, "armed")) ? ", armed" : "");
		vt_fixed(&t, j, o, "window_ns", 1000, 0);
		vt_fixed(&t, j, o, "poll_ns", 1e9, 3);
		vt_fixed(&t, j, o, "sleep_ns", 1e9, 3);
		vt_u64(&t, j, o, "sleeps");
		vt_u64(&t, j, o, "wakeups");
		vt_u64(&t, j, o, "hits");
		vt_cell(&t, "%s", gap_pct(j, o, 50, g50, sizeof(g50)));
		vt_cell(&t, "%s", gap_pct(j, o, 90, g90, sizeof(g90)));
	}
	vt_print(&t, stdout);
}

/**
 * vhostctl_print_show() - "show PORT" for people
 * @j:		the reply: {"port":{...}}
 * Return: exit status
 */
int vhostctl_print_show(const struct vj *j)
{
	const struct vj_node *p = vj_get(j, &j->v[0], "port"), *a, *v;
	char b1[32], b2[32];
	struct vt t;

	if (!p || p->type != VJ_OBJ) {
		fprintf(stderr, "vhostctl: reply has no port\n");
		return 1;
	}
	printf("%s: %s port %llu, %s\n", vj_str(vj_get(j, p, "name"), "?"),
	       vj_str(vj_get(j, p, "type"), "?"),
	       (unsigned long long)vj_u64(j, vj_get(j, p, "idx")),
	       vj_true(vj_get(j, p, "up")) ? "up" : "down");
	show_kv("received", "%llu frames, %s",
		(unsigned long long)vj_u64(j, vj_get(j, p, "rx_packets")),
		vh_bytes(b1, sizeof(b1), vj_u64(j, vj_get(j, p, "rx_bytes"))));
	show_kv("sent", "%llu frames, %s",
		(unsigned long long)vj_u64(j, vj_get(j, p, "tx_packets")),
		vh_bytes(b2, sizeof(b2), vj_u64(j, vj_get(j, p, "tx_bytes"))));
	show_kv("dropped", "%llu (violations %llu)",
		(unsigned long long)vj_u64(j, vj_get(j, p, "drops")),
		(unsigned long long)vj_u64(j, vj_get(j, p, "violations")));
	if ((v = vj_get(j, p, "limits")))
		show_kv("rate limits", "rx %s; tx %s",
			show_limit(j, v, "rx", b1, sizeof(b1)),
			show_limit(j, v, "tx", b2, sizeof(b2)));
	if ((v = vj_get(j, p, "vhost")))
		show_vhost(j, p, v);
	if ((v = vj_get(j, p, "tap")))
		show_tap(j, p, v);
	show_polling(j, p);
	a = vj_first(j, vj_get(j, p, "addresses"));
	show_kv("MACs", "%llu learned or static",
		(unsigned long long)vj_u64(j, vj_get(j, p, "macs")));
	if (a) {
		vt_init(&t, 4, "-MAC AGE -KIND");
		for (; a; a = vj_next(j, a)) {
			bool st = vj_true(vj_get(j, a, "static"));

			vt_cell(&t, "%s", vj_str(vj_get(j, a, "mac"), "?"));
			vt_cell(&t, "%s", st ? "-" : vh_age(b1, sizeof(b1),
				vj_u64(j, vj_get(j, a, "age"))));
			vt_cell(&t, "%s", st ? "static" : "learned");
		}
		if (vt_print(&t, stdout))
			return 1;
	}
	return 0;
}
