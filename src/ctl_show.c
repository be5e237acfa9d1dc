// SPDX-License-Identifier: GPL-2.0-or-later
/* ctl_show.c - "show NAME": one port, all that is known of it
 *
 * The reply is {"port":{...}}: what "ports" prints of the port
 * (ctl_json_port()), then the MAC table's entries on it, the source
 * queues the workers own for it and which worker each is, and what the
 * port's type adds (port_ops @show: a guest's rings and memory table, a
 * TAP's interface and queues).  Everything is read on the control
 * thread: the port table and the source table are its own; the MAC table
 * is read with the datapath's atomic loads (a snapshot); the type takes
 * the locks its datapath takes for the rest.
 */
#include <stdio.h>
#include <string.h>

#include "ctl_int.h"
#include "fdb.h"
#include "switch.h"
#include "util.h"
#include "worker.h"

/* Source queues listed per port: a TAP's queues, a guest's TX queues. */
#define CTL_SHOW_SOURCES	64

/**
 * ctl_show_find() - the port named @name
 * @name:	port name
 * Return: the port, or NULL
 */
static const struct port *ctl_show_find(const char *name)
{
	unsigned int i, n = switch_port_count();

	for (i = 0; i < n; i++) {
		const struct port *p = switch_port(i);

		if (p && !strcmp(p->name, name))
			return p;
	}
	return NULL;
}

/**
 * ctl_show_macs() - append ,"addresses":[...]: the MAC table's entries on @p
 * @b:		reply
 * @p:		port
 */
static void ctl_show_macs(struct ctl_buf *b, const struct port *p)
{
	const struct fdb *f = switch_fdb();
	uint32_t now = now_s();
	bool first = true;
	unsigned int i;

	ctl_printf(b, ",\"addresses\":[");
	for (i = 0; i < FDB_SIZE; i++) {
		struct fdb_entry e;
		int32_t age;

		if (!fdb_entry_get(f, i, &e) || e.port != p->idx)
			continue;
		age = e.is_static ? 0 : (int32_t)(now - e.seen);
		ctl_printf(b, "%s{\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\","
			   "\"age\":%d,\"static\":%s}", first ? "" : ",",
			   e.mac[0], e.mac[1], e.mac[2], e.mac[3], e.mac[4],
			   e.mac[5], MAX(age, 0), e.is_static ? "true" : "false");
		first = false;
	}
	ctl_printf(b, "]");
}

/**
 * ctl_show_sources() - append ,"sources":[...]: @p's queues the workers
 *			poll, each with its worker and its polling state
 *			(struct worker_src_info: mode, window and target in
 *			ns, time polled dry and armed, windows that ran out,
 *			wake-ups, dry spells a poll ended, and its idle
 *			gaps: per mille in log2 buckets of microseconds,
 *			"gaps_pm"[k] those under 2^k us, the last the rest)
 * @b:		reply
 * @p:		port
 */
static void ctl_show_sources(struct ctl_buf *b, const struct port *p)
{
	struct worker_src_info si[CTL_SHOW_SOURCES];
	unsigned int i, k, n = worker_src_list(p, si, ARRAY_SIZE(si));

	ctl_printf(b, ",\"sources\":[");
	for (i = 0; i < n; i++) {
		ctl_printf(b, "%s{\"q\":%u,\"worker\":%u,\"poll\":{"
			   "\"mode\":\"%s\",\"window_ns\":%u,"
			   "\"target_ns\":%u,\"armed\":%s,\"poll_ns\":%llu,"
			   "\"sleep_ns\":%llu,\"sleeps\":%llu,"
			   "\"wakeups\":%llu,\"hits\":%llu,"
			   "\"frames_per_busy\":%u.%02u,\"gaps_pm\":[",
			   i ? "," : "", si[i].q, si[i].worker, si[i].mode,
			   si[i].window_ns, si[i].target_ns,
			   si[i].armed ? "true" : "false",
			   (unsigned long long)si[i].poll_ns,
			   (unsigned long long)si[i].sleep_ns,
			   (unsigned long long)si[i].sleeps,
			   (unsigned long long)si[i].wakeups,
			   (unsigned long long)si[i].hits,
			   si[i].busy_x16 / 16, si[i].busy_x16 % 16 * 100 / 16);
		for (k = 0; k < PW_BUCKETS; k++)
			ctl_printf(b, "%s%u", k ? "," : "", si[i].gaps_pm[k]);
		ctl_printf(b, "]}}");
	}
	ctl_printf(b, "]");
}

/**
 * ctl_cmd_show() - "show NAME": one port (see the top of the file)
 * @b:		reply
 * @arg:	the port's name
 * Return: 0, or -EINVAL (no such port)
 */
int ctl_cmd_show(struct ctl_buf *b, const char *arg)
{
	const struct port *p = ctl_show_find(arg);
	struct port_out out = { ctl_out_put, b };

	if (!p) {
		ctl_printf(b, "{\"error\":\"show: no port named '");
		ctl_json_esc(b, arg);
		ctl_printf(b, "'\"}\n");
		return -EINVAL;
	}
	ctl_printf(b, "{\"port\":{");
	ctl_json_port(b, p);
	ctl_show_macs(b, p);
	ctl_show_sources(b, p);
	if (p->ops->show)
		p->ops->show(p, &out);
	ctl_printf(b, "}}\n");
	return 0;
}
