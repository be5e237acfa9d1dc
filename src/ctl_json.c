// SPDX-License-Identifier: GPL-2.0-or-later
/* ctl_json.c - the JSON replies: "ports" (and "stats"), "fdb", "workers"
 */
#include <stdio.h>
#include <string.h>

#include "ctl_int.h"
#include "fdb.h"
#include "switch.h"
#include "util.h"
#include "worker.h"

/**
 * ctl_json_table() - append the counters of table @t of port @p, each as
 *		      ',"key":value' or ',"key":{"name":value,...}'
 * @b:		reply
 * @p:		port
 * @t:		table
 *
 * Descriptors with a group go into one object of that name, opened at
 * the first of them and closed after the last.
 */
static void ctl_json_table(struct ctl_buf *b, const struct port *p,
			   const struct stats_table *t)
{
	const char *group = NULL;
	bool first = false;
	unsigned int i, d;

	for (i = 0; i < t->n; i++) {
		const struct stats_desc *sd = &t->desc[i];

		if (group && (!sd->group || strcmp(group, sd->group))) {
			ctl_printf(b, "}");
			group = NULL;
		}
		if (sd->group && !group) {
			ctl_printf(b, ",");
			ctl_json_str(b, sd->group);
			ctl_printf(b, ":{");
			group = sd->group;
			first = true;
		}
		ctl_printf(b, "%s", group && first ? "" : ",");
		first = false;
		ctl_json_str(b, sd->key);
		ctl_printf(b, ":");
		if (!sd->names) {
			ctl_printf(b, "%llu", (unsigned long long)
				   stats_sum(p->stats, sd->off));
			continue;
		}
		ctl_printf(b, "{");
		for (d = 0; d < sd->n; d++) {
			ctl_printf(b, "%s", d ? "," : "");
			ctl_json_str(b, sd->names[d]);
			ctl_printf(b, ":%llu", (unsigned long long)
				   stats_sum(p->stats, sd->off +
					     d * sizeof(uint64_t)));
		}
		ctl_printf(b, "}");
	}
	if (group)
		ctl_printf(b, "}");
}

/**
 * ctl_json_queues() - append ,"queues":[...], a port's per queue pair
 *		       counters, if its type keeps them
 * @b:		reply
 * @p:		port
 */
static void ctl_json_queues(struct ctl_buf *b, const struct port *p)
{
	struct port_queue_stats qs[CTL_QUEUES_MAX];
	unsigned int i, n;

	if (!p->ops->queue_stats)
		return;
	n = p->ops->queue_stats(p, qs, CTL_QUEUES_MAX);
	ctl_printf(b, ",\"queues\":[");
	for (i = 0; i < n; i++)
		ctl_printf(b, "%s{\"rx_packets\":%llu,\"rx_bytes\":%llu,"
			   "\"tx_packets\":%llu,\"tx_bytes\":%llu}",
			   i ? "," : "",
			   (unsigned long long)qs[i].rx_packets,
			   (unsigned long long)qs[i].rx_bytes,
			   (unsigned long long)qs[i].tx_packets,
			   (unsigned long long)qs[i].tx_bytes);
	ctl_printf(b, "]");
}

/**
 * ctl_json_bits() - append ,"KEY":"0x...","KEY_names":[...]: feature bits,
 *		     in hex and by the names the port's type gives them
 * @b:		reply
 * @key:	JSON key
 * @bits:	feature bits
 * @names:	[bit] = name, NULL where unnamed, 64 entries; or NULL
 *
 * A bit without a name is in the hex value only.
 */
static void ctl_json_bits(struct ctl_buf *b, const char *key, uint64_t bits,
			  const char *const *names)
{
	bool first = true;
	unsigned int i;

	ctl_printf(b, ",\"%s\":\"0x%llx\",\"%s_names\":[", key,
		   (unsigned long long)bits, key);
	for (i = 0; i < 64 && names; i++) {
		if (!(bits & (1ULL << i)) || !names[i])
			continue;
		ctl_printf(b, "%s", first ? "" : ",");
		ctl_json_str(b, names[i]);
		first = false;
	}
	ctl_printf(b, "]");
}

/**
 * ctl_json_limits() - append ,"limits":{...}: the port's rate limits
 * @b:		reply
 * @p:		port
 *
 * {"rx_rate":bits/s,"rx_burst":bytes,"tx_rate":..,"tx_burst":..}, a
 * rate of 0 (and burst 0) where a direction is not limited.
 */
static void ctl_json_limits(struct ctl_buf *b, const struct port *p)
{
	uint64_t rr, rb, tr, tb;

	switch_rate_get(p->idx, RATE_RX, &rr, &rb);
	switch_rate_get(p->idx, RATE_TX, &tr, &tb);
	ctl_printf(b, ",\"limits\":{\"rx_rate\":%llu,\"rx_burst\":%llu,"
		   "\"tx_rate\":%llu,\"tx_burst\":%llu}",
		   (unsigned long long)rr, (unsigned long long)rb,
		   (unsigned long long)tr, (unsigned long long)tb);
}

/**
 * ctl_json_peer() - append ,"negotiated":{...}, what a port and its peer
 *		     agreed on, if its type negotiates anything
 * @b:		reply
 * @p:		port
 */
static void ctl_json_peer(struct ctl_buf *b, const struct port *p)
{
	struct port_peer pp;

	if (!p->ops->peer)
		return;
	p->ops->peer(p, &pp);
	ctl_printf(b, ",\"negotiated\":{\"connected\":%s",
		   pp.connected ? "true" : "false");
	ctl_json_bits(b, "offered", pp.offered, p->ops->feature_names);
	ctl_json_bits(b, "features", pp.features, p->ops->feature_names);
	ctl_json_bits(b, "protocol_features", pp.protocol,
		      p->ops->protocol_names);
	ctl_printf(b, ",\"queue_pairs\":%u,\"queue_pairs_enabled\":%u,"
		   "\"queue_pairs_started\":%u,\"ring\":", pp.pairs,
		   pp.pairs_enabled, pp.pairs_started);
	if (pp.ring)
		ctl_json_str(b, pp.ring);
	else
		ctl_printf(b, "null");
	ctl_printf(b, "}");
}

/**
 * ctl_json_port() - append one port's members (no braces): its state,
 *		     its rate limits, the counters of its tables
 *		     (ctl_port_table()), what it negotiated, its per queue
 *		     pair counters
 * @b:		reply
 * @p:		port
 */
void ctl_json_port(struct ctl_buf *b, const struct port *p)
{
	const struct stats_table *t;
	unsigned int k;

	ctl_printf(b, "\"idx\":%u,\"name\":", p->idx);
	ctl_json_str(b, p->name);
	ctl_printf(b, ",\"type\":");
	ctl_json_str(b, p->ops->type);
	ctl_printf(b, ",\"up\":%s,\"macs\":%u",
		   __atomic_load_n(&p->up, __ATOMIC_RELAXED) ? "true" : "false",
		   fdb_port_macs(switch_fdb(), (uint16_t)p->idx));
	ctl_json_limits(b, p);
	for (k = 0; (t = ctl_port_table(p, k)); k++)
		ctl_json_table(b, p, t);
	ctl_json_peer(b, p);
	ctl_json_queues(b, p);
}

/**
 * ctl_cmd_ports() - "ports" / "stats": every port (ctl_json_port())
 * @b:		reply
 * @arg:		unused
 * Return: 0
 */
int ctl_cmd_ports(struct ctl_buf *b, const char *arg)
{
	unsigned int i, n = switch_port_count();
	bool first = true;

	ctl_printf(b, "{\"ports\":[");
	for (i = 0; i < n; i++) {
		const struct port *p = switch_port(i);

		if (!p)
			continue;
		ctl_printf(b, "%s\n{", first ? "" : ",");
		ctl_json_port(b, p);
		ctl_printf(b, "}");
		first = false;
	}
	ctl_printf(b, "%s]}\n", first ? "" : "\n");
	return 0;
}

/**
 * ctl_cmd_fdb() - "fdb": the MAC table, learned and static entries
 * @b:		reply
 * @arg:		unused
 * Return: 0
 *
 * Reads slots with the same atomic loads as the datapath; the listing is
 * a snapshot that may be stale by the time it is printed.
 */
int ctl_cmd_fdb(struct ctl_buf *b, const char *arg)
{
	const struct fdb *f = switch_fdb();
	uint32_t now = now_s();
	bool first = true;
	unsigned int i;

	ctl_printf(b, "{\"age_limit\":%u,\"fdb\":[", f->age_s);
	for (i = 0; i < FDB_SIZE; i++) {
		const struct port *p;
		struct fdb_entry e;
		int32_t age;

		if (!fdb_entry_get(f, i, &e))
			continue;
		age = e.is_static ? 0 : (int32_t)(now - e.seen);
		p = switch_port(e.port);
		ctl_printf(b, "%s\n{\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\","
			   "\"port\":", first ? "" : ",", e.mac[0], e.mac[1],
			   e.mac[2], e.mac[3], e.mac[4], e.mac[5]);
		ctl_json_str(b, p ? p->name : "");
		ctl_printf(b, ",\"idx\":%u,\"age\":%d,\"static\":%s}",
			   e.port, MAX(age, 0), e.is_static ? "true" : "false");
		first = false;
	}
	ctl_printf(b, "%s]}\n", first ? "" : "\n");
	return 0;
}

/**
 * ctl_cmd_workers() - "workers": each datapath thread, its CPU and load
 * @b:		reply
 * @arg:	unused
 *
 * "tid" finds the thread in top -H or /proc; "cpu" is the CPU it is
 * pinned to (--cpus), null when it is not.
 *
 * Return: 0
 */
int ctl_cmd_workers(struct ctl_buf *b, const char *arg)
{
	struct worker_info wi;
	unsigned int i;

	ctl_printf(b, "{\"workers\":[");
	for (i = 0; worker_info_get(i, &wi); i++) {
		ctl_printf(b, "%s\n{\"idx\":%u,\"tid\":%d,\"cpu\":", i ? "," : "",
			   i, wi.tid);
		if (wi.cpu >= 0)
			ctl_printf(b, "%d", wi.cpu);
		else
			ctl_printf(b, "null");
		ctl_printf(b, ",\"sources\":%u,\"passes\":%llu,"
			   "\"asleep\":%s}", wi.sources,
			   (unsigned long long)wi.passes,
			   wi.asleep ? "true" : "false");
	}
	ctl_printf(b, "%s]}\n", i ? "\n" : "");
	return 0;
}
