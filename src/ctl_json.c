// SPDX-License-Identifier: GPL-2.0-or-later
/* ctl_json.c - the JSON replies: "ports" (and "stats"), "fdb", "workers"
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "ctl_int.h"
#include "fdb.h"
#include "pollwin.h"
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
 * ctl_json_vlans() - a trunk's VLANs, as ,"trunk":"10:20-30"
 * @b:		output
 * @set:	PORT_VLAN_WORDS words (struct port_spec @trunk)
 *
 * The form trunk= takes, in runs: at most 2047 of them, a few KiB.
 */
static void ctl_json_vlans(struct ctl_buf *b, const uint64_t *set)
{
	unsigned int v = 1, a;
	bool first = true;

	ctl_printf(b, ",\"trunk\":\"");
	while (v <= PORT_VLAN_MAX) {
		if (!port_vlan_has(set, v)) {
			v++;
			continue;
		}
		for (a = v; v + 1 <= PORT_VLAN_MAX && port_vlan_has(set, v + 1);)
			v++;
		ctl_printf(b, first ? "%u" : ":%u", a);
		if (v > a)
			ctl_printf(b, "-%u", v);
		first = false;
		v++;
	}
	ctl_printf(b, "\"");
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
	if (switch_port_spec(p->idx)) {
		const struct port_spec *sp = switch_port_spec(p->idx);

		ctl_printf(b, ",\"l2\":{\"vlan\":%u,\"isolated\":%s,"
			   "\"tagged\":%s,\"trunk_vlans\":%u",
			   sp->vlan,
			   sp->isolated ? "true" : "false",
			   sp->tagged ? "true" : "false",
			   port_spec_trunk_vlans(sp));
		if (sp->is_trunk)
			ctl_json_vlans(b, sp->trunk);
		ctl_printf(b, "}");
	}
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
		ctl_printf(b, ",\"idx\":%u,\"vlan\":%u,\"age\":%d,"
			   "\"static\":%s}", e.port, switch_dom_vid(e.dom),
			   MAX(age, 0), e.is_static ? "true" : "false");
		first = false;
	}
	ctl_printf(b, "%s]}\n", first ? "" : "\n");
	return 0;
}

/**
 * ctl_json_err() - an error reply, printf-style
 * @b:		reply
 * @fmt:	one line
 * Return: -EINVAL
 */
static int __attribute__((format(printf, 2, 3)))
ctl_json_err(struct ctl_buf *b, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ctl_printf(b, "{\"error\":");
	ctl_json_str(b, msg);
	ctl_printf(b, "}\n");
	return -EINVAL;
}

/**
 * ctl_fdb_args() - "VLAN,MAC,PORT" of fdb add and fdb del (vhostctl joins
 *		    its three words with commas: the argument is one word)
 * @b:		reply, for the error
 * @arg:	the text
 * @vid:	out: VLAN
 * @mac:	out: MAC
 * @idx:	out: port index
 * Return: 0, or -EINVAL with the error written
 */
static int ctl_fdb_args(struct ctl_buf *b, const char *arg, unsigned int *vid,
			uint8_t *mac, unsigned int *idx)
{
	char name[PORT_NAME_MAX + 1], rest;
	unsigned int m[6], v, i, np = switch_port_count();
	int n;

	n = sscanf(arg, "%4u,%2x:%2x:%2x:%2x:%2x:%2x,%32[^,]%c", &v, &m[0],
		   &m[1], &m[2], &m[3], &m[4], &m[5], name, &rest);
	if (n != 8)
		return ctl_json_err(b, "usage: VLAN,MAC,PORT (vhostctl: VLAN MAC "
				 "PORT, e.g. 10 02:00:00:00:00:01 vm1)");
	if (!v || v > 4094)
		return ctl_json_err(b, "VLAN %u: not 1-4094", v);
	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)m[i];
	if ((mac[0] & 1) || !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] |
			      mac[5]))
		return ctl_json_err(b, "MAC: not a station address");
	for (i = 0; i < np; i++) {
		const struct port *p = switch_port(i);

		if (p && !strcmp(p->name, name)) {
			*vid = v;
			*idx = i;
			return 0;
		}
	}
	return ctl_json_err(b, "no port '%s'", name);
}

/**
 * ctl_cmd_fdb_add() - "fdb add VLAN,MAC,PORT": a static entry
 * @b:		reply
 * @arg:	VLAN,MAC,PORT
 *
 * The entry never ages, moves or is flushed with the port's learned MACs;
 * frames from that MAC on another port of the domain are still forwarded
 * but not learned there (learn_refused.locked).  It goes with its port.
 *
 * Return: 0 or -EINVAL
 */
int ctl_cmd_fdb_add(struct ctl_buf *b, const char *arg)
{
	unsigned int vid, idx;
	uint8_t mac[6];
	int rc;

	if (ctl_fdb_args(b, arg, &vid, mac, &idx))
		return -EINVAL;
	rc = switch_static_add(vid, mac, idx);
	if (rc == -ENOENT)
		return ctl_json_err(b, "no port is in VLAN %u", vid);
	if (rc == -EXDEV)
		return ctl_json_err(b, "port %s is not in VLAN %u",
				 switch_port(idx)->name, vid);
	if (rc == -EEXIST)
		return ctl_json_err(b, "that MAC is static on another port of "
				 "VLAN %u", vid);
	if (rc < 0)
		return ctl_json_err(b, "the MAC table has no room for it");
	ctl_printf(b, "{\"added\":true}\n");
	return 0;
}

/**
 * ctl_cmd_fdb_del() - "fdb del VLAN,MAC,PORT": remove a static entry
 * @b:		reply
 * @arg:	VLAN,MAC,PORT
 * Return: 0 or -EINVAL
 */
int ctl_cmd_fdb_del(struct ctl_buf *b, const char *arg)
{
	unsigned int vid, idx;
	uint8_t mac[6];
	int rc;

	if (ctl_fdb_args(b, arg, &vid, mac, &idx))
		return -EINVAL;
	rc = switch_static_del(vid, mac, idx);
	if (rc == -EPERM)
		return ctl_json_err(b, "that is port %s's mac= lock: change its "
				 "spec instead", switch_port(idx)->name);
	if (rc < 0)
		return ctl_json_err(b, "no such static entry");
	ctl_printf(b, "{\"deleted\":true}\n");
	return 0;
}

/**
 * ctl_cmd_domains() - "domains": every bridge domain (VLAN) in use
 * @b:		reply
 * @arg:	unused
 *
 * Per domain: its ports, the MACs in it, and the frames forwarded in it
 * (accepted from a member), their bytes and how many were flooded.
 *
 * Return: 0
 */
int ctl_cmd_domains(struct ctl_buf *b, const char *arg)
{
	unsigned int macs[FDB_DOMS] = { 0 };
	const struct fdb *f = switch_fdb();
	struct fdb_entry e;
	unsigned int d, i, n = 0;

	for (i = 0; i < FDB_SIZE; i++)
		if (fdb_entry_get(f, i, &e))
			macs[e.dom]++;
	ctl_printf(b, "{\"domains\":[");
	for (d = 0; d < FDB_DOMS; d++) {
		uint64_t mem = switch_dom_members(d), fr, by, fl;
		unsigned int vid = switch_dom_vid(d);
		bool first = true;

		if (!vid)
			continue;
		switch_dom_stats(d, &fr, &by, &fl);
		ctl_printf(b, "%s\n{\"vlan\":%u,\"ports\":[", n++ ? "," : "",
			   vid);
		for (i = 0; i < SWITCH_PORTS_MAX; i++) {
			const struct port *p = switch_port(i);

			if (!p || !(mem & 1ULL << i))
				continue;
			ctl_printf(b, "%s", first ? "" : ",");
			ctl_json_str(b, p->name);
			first = false;
		}
		ctl_printf(b, "],\"macs\":%u,\"frames\":%llu,\"bytes\":%llu,"
			   "\"flooded\":%llu}", macs[d], (unsigned long long)fr,
			   (unsigned long long)by, (unsigned long long)fl);
	}
	ctl_printf(b, "%s]}\n", n ? "\n" : "");
	return 0;
}

/**
 * ctl_cmd_workers() - "workers": each datapath thread, its CPU and load
 * @b:		reply
 * @arg:	unused
 *
 * "tid" finds the thread in top -H or /proc; "cpu" is the CPU it is
 * pinned to (--cpus), null when it is not.  Polling (pollwin.h): time
 * busy and polling dry, lost polling time, the CPU pressure and lost
 * share of its last decided interval (per mille), backoffs so far and
 * whether one holds now.  A top-level "poll" says the mode, and for
 * auto the latency target and the measured wake-up cost.
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
			   "\"asleep\":%s,\"busy_ns\":%llu,\"poll_ns\":%llu,"
			   "\"lost_ns\":%llu,\"stall_pm\":%u,\"lost_pm\":%u,"
			   "\"backoffs\":%llu,\"backoff\":%s}", wi.sources,
			   (unsigned long long)wi.passes,
			   wi.asleep ? "true" : "false",
			   (unsigned long long)wi.busy_ns,
			   (unsigned long long)wi.poll_ns,
			   (unsigned long long)wi.lost_ns, wi.stall_pm,
			   wi.lost_pm, (unsigned long long)wi.backoffs,
			   wi.backoff ? "true" : "false");
	}
	ctl_printf(b, "%s],\"poll\":{", i ? "\n" : "");
	if (pw_fixed_us() >= 0)
		ctl_printf(b, "\"mode\":\"fixed\",\"window_us\":%d}}\n",
			   pw_fixed_us());
	else
		ctl_printf(b, "\"mode\":\"auto\",\"wake_ns\":%u}}\n",
			   pw_wake_ns());
	return 0;
}
