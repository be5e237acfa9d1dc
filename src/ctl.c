// SPDX-License-Identifier: GPL-2.0-or-later
/* ctl.c - the control socket: ports, counters, MAC table, metrics
 *
 * Owns the listening unix socket and the text of every reply.  One client
 * at a time, served to completion inside the control thread's event loop:
 * commands are read-only snapshots, cheap to build, so a thread of its own
 * would buy nothing.  What keeps a slow or hostile client from stalling
 * vhost-user handling is time: the command line must arrive, and the reply
 * must drain, within fixed deadlines, after which the client is dropped.
 *
 * No counter is named here: "ports"/"stats" and "metrics" print what the
 * counter tables describe (stats.h), stats_common for every port, then
 * the tables of its type (port_ops.counters).  Nor is a feature bit:
 * what a port negotiated with its peer (port_ops.peer, struct port_peer)
 * is printed with the names its type gives the bits.
 *
 * "port add SPEC" and "port del NAME" change the port table (portctl.c),
 * only in a daemon serving the socket (ctl_open()): ctl_exec() called
 * elsewhere -- unit tests, the fuzzer -- checks the argument and stops
 * there.  Whoever may connect may add and remove ports: --ctl-perm.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"
#include "fdb.h"
#include "log.h"
#include "portctl.h"
#include "stats.h"
#include "switch.h"
#include "usock.h"
#include "util.h"
#include "worker.h"

#define CTL_IO_TIMEOUT_MS	200		/* per read/write */
#define CTL_DEADLINE_NS		500000000ULL	/* whole exchange */
#define CTL_REPLY_MAX		(8U << 20)	/* bytes; fdb is ~300 KiB */
#define CTL_QUEUES_MAX		CONF_QUEUES_MAX	/* queue pairs shown per port */

/**
 * struct ctl_buf - a growing reply
 * @p:		bytes (NUL-terminated while @len < @cap)
 * @len:	bytes used
 * @cap:	bytes allocated
 * @oom:	an append failed: the reply is incomplete, send an error
 */
struct ctl_buf {
	char *p;
	size_t len;
	size_t cap;
	bool oom;
};

/* Identity of the socket we created, so ctl_close() never removes a file
 * another daemon put at the same path after us.
 */
static dev_t ctl_dev;
static ino_t ctl_ino;
/* --ctl-perm: the socket's peer allow-list, checked at each accept. */
static struct conf_sock ctl_sock;
/* The socket's path, which no port may take; set by ctl_open(), which
 * is also what lets "port add" and "port del" change anything.
 */
static char ctl_path[CONF_PATH_MAX];
static bool ctl_live;

/**
 * ctl_printf() - append to a reply
 * @b:		reply
 * @fmt:	printf format
 */
static void __attribute__((format(printf, 2, 3)))
ctl_printf(struct ctl_buf *b, const char *fmt, ...)
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
static void ctl_json_esc(struct ctl_buf *b, const char *s)
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
static void ctl_json_str(struct ctl_buf *b, const char *s)
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
static void ctl_prom_label(struct ctl_buf *b, const char *s)
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
 * ctl_port_table() - the @k-th counter table a port shows
 * @p:		port
 * @k:		0: stats_common, then the type's tables in their order
 * Return: the table, or NULL past the last
 */
static const struct stats_table *ctl_port_table(const struct port *p,
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
static bool ctl_port_has(const struct port *p, const struct stats_table *t)
{
	const struct stats_table *u;
	unsigned int k;

	for (k = 0; (u = ctl_port_table(p, k)); k++)
		if (u == t)
			return true;
	return false;
}

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
 * ctl_cmd_ports() - "ports" / "stats": every port, its state and the
 *		     counters of its tables (ctl_port_table())
 * @b:		reply
 * @arg:		unused
 * Return: 0
 */
static int ctl_cmd_ports(struct ctl_buf *b, const char *arg)
{
	unsigned int i, k, n = switch_port_count();
	const struct stats_table *t;
	bool first = true;

	ctl_printf(b, "{\"ports\":[");
	for (i = 0; i < n; i++) {
		const struct port *p = switch_port(i);

		if (!p)
			continue;
		ctl_printf(b, "%s\n{\"idx\":%u,\"name\":", first ? "" : ",",
			   p->idx);
		ctl_json_str(b, p->name);
		ctl_printf(b, ",\"type\":");
		ctl_json_str(b, p->ops->type);
		ctl_printf(b, ",\"up\":%s,\"macs\":%u",
			   __atomic_load_n(&p->up, __ATOMIC_RELAXED) ?
			   "true" : "false",
			   fdb_port_macs(switch_fdb(), (uint16_t)p->idx));
		for (k = 0; (t = ctl_port_table(p, k)); k++)
			ctl_json_table(b, p, t);
		ctl_json_peer(b, p);
		ctl_json_queues(b, p);
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
static int ctl_cmd_fdb(struct ctl_buf *b, const char *arg)
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
static int ctl_cmd_workers(struct ctl_buf *b, const char *arg)
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

/**
 * ctl_prom_port_labels() - append {port="..",type=".."} (without the
 *			    closing brace, so callers may add labels)
 * @b:		reply
 * @p:		port
 */
static void ctl_prom_port_labels(struct ctl_buf *b, const struct port *p)
{
	ctl_printf(b, "{port=");
	ctl_prom_label(b, p->name);
	ctl_printf(b, ",type=");
	ctl_prom_label(b, p->ops->type);
}

/**
 * ctl_prom_table() - append the families of table @t: for each counter,
 *		      HELP, TYPE and a sample per port that shows @t
 * @b:		reply
 * @t:		table
 *
 * A family's samples must be together (and a table's names are unique
 * across tables, see the unit test), so each table is printed once, for
 * every port that has it.
 */
static void ctl_prom_table(struct ctl_buf *b, const struct stats_table *t)
{
	unsigned int i, j, d, n = switch_port_count();

	for (i = 0; i < t->n; i++) {
		const struct stats_desc *sd = &t->desc[i];

		ctl_printf(b, "# HELP vhostd_port_%s %s\n"
			   "# TYPE vhostd_port_%s %s\n", sd->metric, sd->help,
			   sd->metric,
			   sd->kind == STATS_GAUGE ? "gauge" : "counter");
		for (j = 0; j < n; j++) {
			const struct port *p = switch_port(j);

			if (!p || !ctl_port_has(p, t))
				continue;
			for (d = 0; d < sd->n; d++) {
				ctl_printf(b, "vhostd_port_%s", sd->metric);
				ctl_prom_port_labels(b, p);
				if (sd->names) {
					ctl_printf(b, ",%s=", sd->label);
					ctl_prom_label(b, sd->names[d]);
				}
				ctl_printf(b, "} %llu\n", (unsigned long long)
					   stats_sum(p->stats, sd->off +
						     d * sizeof(uint64_t)));
			}
		}
	}
}

/**
 * ctl_prom_queues() - append the per queue pair families
 * @b:		reply
 *
 * vhostd_queue_{rx,tx}_{packets,bytes}_total{port,type,queue}: one
 * family at a time, a sample per queue pair of every port whose type
 * keeps them.
 */
static void ctl_prom_queues(struct ctl_buf *b)
{
	static const struct {
		const char *name;
		const char *help;
		size_t off;
	} fam[] = {
		{ "rx_packets", "Frames taken from the guest on the pair.",
		  offsetof(struct port_queue_stats, rx_packets) },
		{ "rx_bytes", "Bytes of those frames.",
		  offsetof(struct port_queue_stats, rx_bytes) },
		{ "tx_packets", "Frames delivered to the guest on the pair.",
		  offsetof(struct port_queue_stats, tx_packets) },
		{ "tx_bytes", "Bytes of those frames.",
		  offsetof(struct port_queue_stats, tx_bytes) },
	};
	unsigned int f, i, q, n = switch_port_count();
	struct port_queue_stats qs[CTL_QUEUES_MAX];

	for (f = 0; f < ARRAY_SIZE(fam); f++) {
		ctl_printf(b, "# HELP vhostd_queue_%s_total %s\n"
			   "# TYPE vhostd_queue_%s_total counter\n",
			   fam[f].name, fam[f].help, fam[f].name);
		for (i = 0; i < n; i++) {
			const struct port *p = switch_port(i);
			unsigned int nq;

			if (!p || !p->ops->queue_stats)
				continue;
			nq = p->ops->queue_stats(p, qs, CTL_QUEUES_MAX);
			for (q = 0; q < nq; q++) {
				uint64_t v;

				memcpy(&v, (const uint8_t *)&qs[q] + fam[f].off,
				       sizeof(v));
				ctl_printf(b, "vhostd_queue_%s_total",
					   fam[f].name);
				ctl_prom_port_labels(b, p);
				ctl_printf(b, ",queue=\"%u\"} %llu\n", q,
					   (unsigned long long)v);
			}
		}
	}
}

/**
 * ctl_prom_peer() - append the queue pair gauges of the ports that
 *		     negotiate with a peer
 * @b:		reply
 *
 * vhostd_port_queue_pairs{,_enabled,_started}{port,type}: one family at
 * a time, a sample per port whose type has a @peer hook (struct
 * port_peer says what each counts).
 */
static void ctl_prom_peer(struct ctl_buf *b)
{
	static const struct {
		const char *name;
		const char *help;
		size_t off;
	} fam[] = {
		{ "queue_pairs", "Queue pairs the port offers its peer.",
		  offsetof(struct port_peer, pairs) },
		{ "queue_pairs_enabled", "Queue pairs the peer has enabled.",
		  offsetof(struct port_peer, pairs_enabled) },
		{ "queue_pairs_started", "Queue pairs the datapath serves.",
		  offsetof(struct port_peer, pairs_started) },
	};
	unsigned int f, i, n = switch_port_count();

	for (f = 0; f < ARRAY_SIZE(fam); f++) {
		ctl_printf(b, "# HELP vhostd_port_%s %s\n"
			   "# TYPE vhostd_port_%s gauge\n",
			   fam[f].name, fam[f].help, fam[f].name);
		for (i = 0; i < n; i++) {
			const struct port *p = switch_port(i);
			struct port_peer pp;
			unsigned int v;

			if (!p || !p->ops->peer)
				continue;
			p->ops->peer(p, &pp);
			memcpy(&v, (const uint8_t *)&pp + fam[f].off,
			       sizeof(v));
			ctl_printf(b, "vhostd_port_%s", fam[f].name);
			ctl_prom_port_labels(b, p);
			ctl_printf(b, "} %u\n", v);
		}
	}
}

/**
 * ctl_cmd_metrics() - "metrics": Prometheus text exposition format
 * @b:		reply
 * @arg:		unused
 * Return: 0
 *
 * The port's state (up, MACs), then the counters of every table some
 * port shows, each table once: stats_common, then the types' tables in
 * the order the ports first show them.
 */
static int ctl_cmd_metrics(struct ctl_buf *b, const char *arg)
{
	unsigned int i, j, k, n = switch_port_count();
	const struct stats_table *t;

	ctl_printf(b, "# HELP vhostd_port_up Whether the switch forwards "
		   "to the port (1) or not (0).\n"
		   "# TYPE vhostd_port_up gauge\n");
	for (i = 0; i < n; i++) {
		const struct port *p = switch_port(i);

		if (!p)
			continue;
		ctl_printf(b, "vhostd_port_up");
		ctl_prom_port_labels(b, p);
		ctl_printf(b, "} %d\n",
			   __atomic_load_n(&p->up, __ATOMIC_RELAXED) ? 1 : 0);
	}

	ctl_prom_table(b, &stats_common);
	for (i = 0; i < n; i++) {
		const struct port *p = switch_port(i);

		if (!p)
			continue;
		for (k = 1; (t = ctl_port_table(p, k)); k++) {
			for (j = 0; j < i; j++) {
				const struct port *q = switch_port(j);

				if (q && ctl_port_has(q, t))
					break;		/* printed with q */
			}
			if (j == i)
				ctl_prom_table(b, t);
		}
	}

	ctl_prom_queues(b);
	ctl_prom_peer(b);

	ctl_printf(b, "# HELP vhostd_port_macs MACs the port has learned "
		   "(against its max-macs).\n"
		   "# TYPE vhostd_port_macs gauge\n");
	for (i = 0; i < n; i++) {
		const struct port *p = switch_port(i);

		if (!p)
			continue;
		ctl_printf(b, "vhostd_port_macs");
		ctl_prom_port_labels(b, p);
		ctl_printf(b, "} %u\n",
			   fdb_port_macs(switch_fdb(), (uint16_t)p->idx));
	}

	ctl_printf(b, "# HELP vhostd_fdb_entries MAC addresses in the "
		   "learning table.\n"
		   "# TYPE vhostd_fdb_entries gauge\n"
		   "vhostd_fdb_entries %u\n"
		   "# HELP vhostd_fdb_capacity Slots of the learning table.\n"
		   "# TYPE vhostd_fdb_capacity gauge\n"
		   "vhostd_fdb_capacity %u\n",
		   fdb_count(switch_fdb()), FDB_SIZE);
	return 0;
}

static int ctl_cmd_help(struct ctl_buf *b, const char *arg);

/**
 * ctl_error() - append an error object
 * @b:		reply
 * @msg:	one line
 * Return: -EINVAL
 */
static int ctl_error(struct ctl_buf *b, const char *msg)
{
	ctl_printf(b, "{\"error\":");
	ctl_json_str(b, msg);
	ctl_printf(b, "}\n");
	return -EINVAL;
}

/**
 * ctl_port_ok() - the reply to a port change: {"ok":true,"port":{...}}
 * @b:		reply
 * @name:	the port's name
 * @idx:	its index, or SWITCH_PORTS_MAX if only checked
 * Return: 0
 */
static int ctl_port_ok(struct ctl_buf *b, const char *name, int idx)
{
	ctl_printf(b, "{\"ok\":true,\"port\":{\"name\":");
	ctl_json_str(b, name);
	if (idx < SWITCH_PORTS_MAX)
		ctl_printf(b, ",\"idx\":%d}}\n", idx);
	else
		ctl_printf(b, "},\"checked_only\":true}\n");
	return 0;
}

/**
 * ctl_cmd_port_add() - "port add SPEC": a port, SPEC as --port takes it
 * @b:		reply
 * @arg:	SPEC
 * Return: 0, or -EINVAL (the reply is an error naming the key at fault)
 */
static int ctl_cmd_port_add(struct ctl_buf *b, const char *arg)
{
	char name[CONF_NAME_MAX], err[CTL_LINE_MAX];
	int rc = portctl_add(arg, ctl_path, ctl_live, name, err, sizeof(err));

	if (rc < 0)
		return ctl_error(b, err);
	return ctl_port_ok(b, name, rc);
}

/**
 * ctl_cmd_port_del() - "port del NAME": close a port, forget its MACs and
 *			counters
 * @b:		reply
 * @arg:	NAME
 * Return: 0, or -EINVAL (no such port)
 */
static int ctl_cmd_port_del(struct ctl_buf *b, const char *arg)
{
	char err[CTL_LINE_MAX];
	int rc = portctl_del(arg, ctl_live, err, sizeof(err));

	if (rc < 0)
		return ctl_error(b, err);
	return ctl_port_ok(b, arg, ctl_live ? rc : SWITCH_PORTS_MAX);
}

/**
 * struct ctl_cmd - one command
 * @name:	what the client sends
 * @fn:		builds the reply from the argument ("" if none); returns 0
 *		or -EINVAL (reply is an error)
 * @arg:	what follows @name and a blank, for "help"; NULL: nothing
 *		may follow
 * @help:	one line for "help"
 */
struct ctl_cmd {
	const char *name;
	int (*fn)(struct ctl_buf *b, const char *arg);
	const char *arg;
	const char *help;
};

static const struct ctl_cmd ctl_cmds[] = {
	{ "ports",	ctl_cmd_ports,	  NULL, "ports and counters (JSON)" },
	{ "stats",	ctl_cmd_ports,	  NULL, "same as ports" },
	{ "fdb",	ctl_cmd_fdb,	  NULL, "learned MAC addresses (JSON)" },
	{ "workers",	ctl_cmd_workers,  NULL,
	  "datapath threads: tid, CPU, sources (JSON)" },
	{ "metrics",	ctl_cmd_metrics,  NULL,
	  "counters, Prometheus text format" },
	{ "port add",	ctl_cmd_port_add, "SPEC",
	  "add a port; SPEC as vhostd --port takes it (JSON)" },
	{ "port del",	ctl_cmd_port_del, "NAME",
	  "remove a port, its MACs and counters (JSON)" },
	{ "help",	ctl_cmd_help,	  NULL, "this list" },
};

/**
 * ctl_cmd_help() - "help": the command list, plain text
 * @b:		reply
 * @arg:		unused
 * Return: 0
 */
static int ctl_cmd_help(struct ctl_buf *b, const char *arg)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ctl_cmds); i++) {
		char use[32];

		snprintf(use, sizeof(use), "%s%s%s", ctl_cmds[i].name,
			 ctl_cmds[i].arg ? " " : "",
			 ctl_cmds[i].arg ? ctl_cmds[i].arg : "");
		ctl_printf(b, "%-14s %s\n", use, ctl_cmds[i].help);
	}
	return 0;
}

/**
 * ctl_exec() - run one command line
 * @line:	command, surrounding blanks and a trailing newline ignored
 * @reply:	set to the malloc'd, NUL-terminated reply (NULL if out of
 *		memory); the caller frees it
 * @len:	set to the reply's length
 * Return: 0, or -EINVAL if the reply is an error object, -ENOMEM
 *
 * Context: control thread (reads the switch's port table).
 */
int ctl_exec(const char *line, char **reply, size_t *len)
{
	struct ctl_buf b = { 0 };
	const char *s = line, *e;
	unsigned int i;
	size_t n;
	int rc = -EINVAL;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' ||
			 e[-1] == '\t'))
		e--;
	n = (size_t)(e - s);

	for (i = 0; i < ARRAY_SIZE(ctl_cmds); i++) {
		size_t l = strlen(ctl_cmds[i].name);
		char arg[CTL_LINE_MAX];

		if (n < l || memcmp(ctl_cmds[i].name, s, l))
			continue;
		if (!ctl_cmds[i].arg) {
			if (n != l)
				continue;
			rc = ctl_cmds[i].fn(&b, "");
			break;
		}
		if (n > l && s[l] != ' ' && s[l] != '\t')
			continue;	/* "port added": another word */
		/* The argument: one word, blanks around it dropped. */
		s += l;
		n -= l;
		while (n && (*s == ' ' || *s == '\t')) {
			s++;
			n--;
		}
		if (!n) {
			snprintf(arg, sizeof(arg), "%s: missing %s",
				 ctl_cmds[i].name, ctl_cmds[i].arg);
			rc = ctl_error(&b, arg);
		} else if (n >= sizeof(arg) || memchr(s, ' ', n) ||
			   memchr(s, '\t', n)) {
			snprintf(arg, sizeof(arg), "%s: %s is one word, no "
				 "blanks", ctl_cmds[i].name, ctl_cmds[i].arg);
			rc = ctl_error(&b, arg);
		} else {
			memcpy(arg, s, n);
			arg[n] = '\0';
			rc = ctl_cmds[i].fn(&b, arg);
		}
		break;
	}
	if (i == ARRAY_SIZE(ctl_cmds)) {
		char cmd[48];

		/* Echo at most 40 bytes of whatever the client sent. */
		snprintf(cmd, sizeof(cmd), "%.*s", (int)MIN(n, (size_t)40),
			 s);
		ctl_printf(&b, "{\"error\":\"unknown command '");
		ctl_json_esc(&b, cmd);
		ctl_printf(&b, "' (try help)\"}\n");
	}
	if (b.oom) {
		free(b.p);
		b = (struct ctl_buf){ 0 };
		ctl_printf(&b, "{\"error\":\"reply too large or out of "
			   "memory\"}\n");
		rc = -EINVAL;
	}
	*reply = b.p;
	*len = b.len;
	return b.p ? rc : -ENOMEM;
}

/**
 * ctl_deadline_left() - milliseconds left until @deadline
 * @deadline:	now_ns() value
 * Return: milliseconds, 0 when passed
 */
static int ctl_deadline_left(uint64_t deadline)
{
	uint64_t now = now_ns();

	return now >= deadline ? 0 : (int)((deadline - now) / 1000000 + 1);
}

/**
 * ctl_wait() - wait until @fd is ready for @events, bounded in time
 * @fd:		client
 * @events:	POLLIN or POLLOUT
 * @deadline:	now_ns() value after which we give up
 * Return: 0 when ready, -EINTR (call again), -ETIMEDOUT or -errno
 */
static int ctl_wait(int fd, short events, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int ms = ctl_deadline_left(deadline);
	int r;

	if (!ms)
		return -ETIMEDOUT;
	r = poll(&pfd, 1, MIN(ms, CTL_IO_TIMEOUT_MS));
	if (r < 0)
		return -errno;
	return r ? 0 : -ETIMEDOUT;
}

/**
 * ctl_read_line() - read the command line, bounded in size and time
 * @fd:		client
 * @buf:	CTL_LINE_MAX bytes
 * @deadline:	now_ns() value after which we give up
 * Return: line length, or -errno (-EMSGSIZE: line too long)
 */
static int ctl_read_line(int fd, char *buf, uint64_t deadline)
{
	size_t n = 0;

	for (;;) {
		int rc = ctl_wait(fd, POLLIN, deadline);
		ssize_t r;

		if (rc == -EINTR)
			continue;
		if (rc)
			return rc;
		r = recv(fd, buf + n, CTL_LINE_MAX - 1 - n, MSG_DONTWAIT);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		n += (size_t)r;
		buf[n] = '\0';
		if (!r || memchr(buf, '\n', n))	/* EOF ends a line too */
			break;
		if (n == CTL_LINE_MAX - 1)
			return -EMSGSIZE;
	}
	if (memchr(buf, '\0', n))
		return -EINVAL;		/* embedded NUL: not a text line */
	*strchrnul(buf, '\n') = '\0';
	return (int)strlen(buf);
}

/**
 * ctl_write_all() - send a reply, bounded in time
 * @fd:		client
 * @p:		bytes
 * @len:	count
 * @deadline:	now_ns() value after which we give up
 * Return: 0 or -errno
 */
static int ctl_write_all(int fd, const char *p, size_t len,
			 uint64_t deadline)
{
	while (len) {
		int rc = ctl_wait(fd, POLLOUT, deadline);
		ssize_t r;

		if (rc == -EINTR)
			continue;
		if (rc)
			return rc;
		r = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/**
 * ctl_handle() - serve one client: read a command, reply, hang up
 * @lfd:	listening socket (non-blocking)
 *
 * Context: control thread.  Bounded: at most CTL_DEADLINE_NS (for the
 * whole exchange) whatever the client does; every socket call is
 * non-blocking behind poll() with a per-call timeout.
 */
void ctl_handle(int lfd)
{
	uint64_t deadline = now_ns() + CTL_DEADLINE_NS;
	struct usock_peer peer;
	char line[CTL_LINE_MAX];
	char *reply = NULL;
	size_t len = 0;
	int fd, n;

	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;		/* spurious wakeup, or the client gave up */
	if (!usock_peer_ok(fd, &ctl_sock, &peer)) {
		src_warn(NULL, "ctl: refusing client pid %d uid %u gid %u: not "
			 "on the --ctl-perm allow-list", peer.pid, peer.uid,
			 peer.gid);
		close(fd);
		return;
	}

	n = ctl_read_line(fd, line, deadline);
	if (n == -EMSGSIZE || n == -EINVAL) {
		static const char msg[] =
			"{\"error\":\"command line too long or not text\"}\n";

		ctl_write_all(fd, msg, sizeof(msg) - 1, deadline);
		goto out;
	}
	if (n < 0) {
		src_debug(NULL, "ctl: client dropped: %s", strerror(-n));
		goto out;
	}
	if (ctl_exec(line, &reply, &len) == -ENOMEM && !reply)
		goto out;
	n = ctl_write_all(fd, reply, len, deadline);
	if (n < 0)
		src_debug(NULL, "ctl: reply not delivered: %s", strerror(-n));
out:
	free(reply);
	close(fd);
}

/**
 * ctl_open() - create the control socket
 * @path:	filesystem path, shorter than sun_path
 * @s:		--ctl-perm: mode (default 0660: the commands only read, but
 *		counters and MAC addresses are still not for every local
 *		user), owner, group, peer allow-list
 * Return: listening fd (non-blocking), or -errno: -EADDRINUSE if another
 *	   process serves @path, -EEXIST if @path is not a socket
 *
 * Context: start-up.
 */
int ctl_open(const char *path, const struct conf_sock *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, rc;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;

	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			rc = -EEXIST;
			goto err;
		}
		/* A stale socket refuses connections: replace it.  A live
		 * one belongs to another daemon: leave it alone.
		 */
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
		    errno == EAGAIN) {
			rc = -EADDRINUSE;
			goto err;
		}
		close(fd);
		unlink(path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK |
			    SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
	}

	/* Nobody can connect before listen(): no window with a wider mode. */
	rc = usock_bind(fd, path, s);
	if (rc < 0)
		goto err;
	ctl_sock = *s;
	snprintf(ctl_path, sizeof(ctl_path), "%s", path);
	ctl_live = true;
	if (lstat(path, &st) < 0 || listen(fd, 16) < 0) {
		rc = -errno;
		unlink(path);
		goto err;
	}
	ctl_dev = st.st_dev;
	ctl_ino = st.st_ino;
	info("ctl: listening on %s", path);
	return fd;
err:
	close(fd);
	return rc;
}

/**
 * ctl_close() - stop serving and remove the socket file
 * @lfd:	listening socket from ctl_open()
 * @path:	its path
 */
void ctl_close(int lfd, const char *path)
{
	struct stat st;

	close(lfd);
	if (!lstat(path, &st) && st.st_dev == ctl_dev && st.st_ino == ctl_ino)
		unlink(path);
}
