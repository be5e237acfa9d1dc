// SPDX-License-Identifier: GPL-2.0-or-later
/* ctl_prom.c - "metrics": the counters in the Prometheus text format
 *
 * The one renderer of the exposition: "vhostctl metrics" and the HTTP
 * endpoint (metrics.c, --metrics) both get these bytes, built in the
 * control thread, which owns the port table they walk.
 */
#include <stdio.h>
#include <string.h>

#include "ctl_int.h"
#include "fdb.h"
#include "switch.h"
#include "util.h"
#include "worker.h"

/* Idle seconds last shown per worker: a counter never goes back (see
 * ctl_prom_workers()).  Control thread only.
 */
static uint64_t ctl_prom_idle_ns[WORKERS_MAX];

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
 * ctl_prom_limits() - the ports' rate limits (rx-rate=, tx-rate=) as
 *		       gauges, 0 where a direction is not limited; in bytes
 *		       per second, Prometheus' base unit (the keys say bits)
 * @b:		reply
 * @n:		port slots
 */
static void ctl_prom_limits(struct ctl_buf *b, unsigned int n)
{
	static const char *const fam[2] = {
		"vhostd_port_rate_limit_bytes_per_second",
		"vhostd_port_rate_limit_burst_bytes",
	};
	static const char *const help[2] = {
		"the port's rate limit in bytes per second (rx-rate= / 8; 0: "
		"none) per direction: rx what it takes from its peer, tx what "
		"it delivers",
		"how far ahead of the rate limit the port may run",
	};
	unsigned int f, i, d;

	for (f = 0; f < 2; f++) {
		ctl_printf(b, "# HELP %s %s.\n# TYPE %s gauge\n", fam[f],
			   help[f], fam[f]);
		for (i = 0; i < n; i++) {
			const struct port *p = switch_port(i);

			if (!p)
				continue;
			for (d = 0; d < RATE_DIRS; d++) {
				uint64_t bps, burst;

				switch_rate_get(i, (enum rate_dir)d, &bps,
						&burst);
				ctl_printf(b, "%s{direction=\"%s\",port=",
					   fam[f], d == RATE_RX ? "rx" : "tx");
				ctl_prom_label(b, p->name);
				ctl_printf(b, ",type=");
				ctl_prom_label(b, p->ops->type);
				ctl_printf(b, "} %llu\n", (unsigned long long)
					   (f ? burst : bps / 8));
			}
		}
	}
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
 * ctl_prom_secs() - append nanoseconds as decimal seconds, exactly
 * @b:		reply
 * @ns:		nanoseconds
 */
static void ctl_prom_secs(struct ctl_buf *b, uint64_t ns)
{
	ctl_printf(b, "%llu.%09llu\n", (unsigned long long)(ns / 1000000000ULL),
		   (unsigned long long)(ns % 1000000000ULL));
}

/**
 * ctl_prom_l2() - append each port's bridge domain settings, as gauges
 * @b:		reply
 * @n:		ports to look at (switch_port_count())
 */
static void ctl_prom_l2(struct ctl_buf *b, unsigned int n)
{
	static const char *const fam[][2] = {
		{ "vhostd_port_vlan", "The VLAN of the port's bridge domain "
		  "(a trunk's native VLAN, 0 if none)." },
		{ "vhostd_port_isolated",
		  "Whether the port is isolated (1) or not (0)." },
		{ "vhostd_port_tagged",
		  "Whether the port takes VLAN-tagged frames (1) or not (0)." },
		{ "vhostd_port_trunk_vlans",
		  "VLANs a trunk port carries tagged (0: an access port)." },
	};
	unsigned int i, k;

	for (k = 0; k < ARRAY_SIZE(fam); k++) {
		ctl_printf(b, "# HELP %s %s\n# TYPE %s gauge\n", fam[k][0],
			   fam[k][1], fam[k][0]);
		for (i = 0; i < n; i++) {
			const struct port_spec *sp = switch_port_spec(i);
			const struct port *p = switch_port(i);
			unsigned int v;

			if (!p || !sp)
				continue;
			v = k == 0 ? sp->vlan :
			    k == 1 ? sp->isolated :
			    k == 2 ? sp->tagged : port_spec_trunk_vlans(sp);
			ctl_printf(b, "%s", fam[k][0]);
			ctl_prom_port_labels(b, p);
			ctl_printf(b, "} %u\n", v);
		}
	}
}

/**
 * ctl_prom_domains() - append the per bridge domain families
 * @b:		reply
 *
 * One series per domain in use, labelled with its VLAN: frames forwarded
 * in it, their bytes, the flooded ones, and the MACs in it.
 */
static void ctl_prom_domains(struct ctl_buf *b)
{
	static const struct {
		const char *name, *help;
	} fam[] = {
		{ "vhostd_domain_frames_total",
		  "Frames forwarded in the bridge domain (VLAN)." },
		{ "vhostd_domain_bytes_total", "Bytes of those frames." },
		{ "vhostd_domain_flooded_total",
		  "Of them, flooded to every member (group address or unknown "
		  "unicast)." },
		{ "vhostd_domain_macs", "MAC addresses in the domain." },
	};
	unsigned int macs[FDB_DOMS] = { 0 };
	struct fdb_entry e;
	unsigned int d, i;

	for (i = 0; i < FDB_SIZE; i++)
		if (fdb_entry_get(switch_fdb(), i, &e))
			macs[e.dom]++;
	for (i = 0; i < ARRAY_SIZE(fam); i++) {
		ctl_printf(b, "# HELP %s %s\n# TYPE %s %s\n", fam[i].name,
			   fam[i].help, fam[i].name, i < 3 ? "counter" : "gauge");
		for (d = 0; d < FDB_DOMS; d++) {
			uint64_t v[4];

			if (!switch_dom_vid(d))
				continue;
			switch_dom_stats(d, &v[0], &v[1], &v[2]);
			v[3] = macs[d];
			ctl_printf(b, "%s{vlan=\"%u\"} %llu\n", fam[i].name,
				   switch_dom_vid(d), (unsigned long long)v[i]);
		}
	}
}

/**
 * ctl_prom_worker_secs() - one per-worker seconds counter family
 * @b:		reply
 * @name:	metric name
 * @help:	its HELP text
 * @wi:		the workers
 * @n:		how many
 * @off:	offsetof() the ns field of struct worker_info
 */
static void ctl_prom_worker_secs(struct ctl_buf *b, const char *name,
				 const char *help, const struct worker_info *wi,
				 unsigned int n, size_t off)
{
	unsigned int i;

	ctl_printf(b, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
	for (i = 0; i < n; i++) {
		ctl_printf(b, "%s{worker=\"%u\"} ", name, i);
		ctl_prom_secs(b, *(const uint64_t *)((const char *)&wi[i] + off));
	}
}

/**
 * ctl_prom_worker_poll() - the workers' polling and contention series
 * @b:		reply
 * @wi:		the workers, as ctl_prom_workers() read them
 * @n:		how many
 *
 * vhostd_worker_poll_seconds_total: time polling dry sources;
 * vhostd_worker_poll_lost_seconds_total: polling time it did not run
 * (preempted: the contention signal, pollwin.h);
 * vhostd_worker_poll_backoffs_total, vhostd_worker_poll_backoff (1 while
 * one holds); vhostd_worker_cpu_pressure_ratio: the system's CPU "some"
 * pressure over its last sampled interval (with the lost time, what it
 * backs off on).
 */
static void ctl_prom_worker_poll(struct ctl_buf *b,
				 const struct worker_info *wi, unsigned int n)
{
	unsigned int i;

	ctl_prom_worker_secs(b, "vhostd_worker_poll_seconds_total",
			     "Time the worker busy-polled dry sources.", wi, n,
			     offsetof(struct worker_info, poll_ns));
	ctl_prom_worker_secs(b, "vhostd_worker_poll_lost_seconds_total",
			     "Polling time in which the worker did not run "
			     "(another task had its CPU).", wi, n,
			     offsetof(struct worker_info, lost_ns));
	ctl_printf(b, "# HELP vhostd_worker_poll_backoffs_total Times the "
		   "worker stopped polling because it took CPU from others.\n"
		   "# TYPE vhostd_worker_poll_backoffs_total counter\n");
	for (i = 0; i < n; i++)
		ctl_printf(b, "vhostd_worker_poll_backoffs_total{worker=\"%u\"} "
			   "%llu\n", i, (unsigned long long)wi[i].backoffs);
	ctl_printf(b, "# HELP vhostd_worker_poll_backoff Whether a "
		   "contention backoff holds now (1) or not (0).\n"
		   "# TYPE vhostd_worker_poll_backoff gauge\n");
	for (i = 0; i < n; i++)
		ctl_printf(b, "vhostd_worker_poll_backoff{worker=\"%u\"} %d\n",
			   i, wi[i].backoff ? 1 : 0);
	ctl_printf(b, "# HELP vhostd_worker_cpu_pressure_ratio The system's "
		   "CPU pressure (PSI some) over the worker's last sampled "
		   "interval.\n"
		   "# TYPE vhostd_worker_cpu_pressure_ratio gauge\n");
	for (i = 0; i < n; i++)
		ctl_printf(b, "vhostd_worker_cpu_pressure_ratio{worker=\"%u\"} "
			   "%u.%03u\n", i, wi[i].stall_pm / 1000,
			   wi[i].stall_pm % 1000);
}

/**
 * ctl_prom_workers() - append the per worker families
 * @b:		reply
 *
 * vhostd_worker_busy_seconds_total{worker}: time in passes that found
 * work (worker.c measures it); vhostd_worker_idle_seconds_total{worker}:
 * the rest of the worker's life, so busy + idle is its age.  The idle
 * count is derived (age - busy); busy is added a pass at a time, when
 * the pass ends, so the difference can step back by one pass: the last
 * value shown is kept, and a smaller one is never shown.
 * vhostd_worker_sources{worker}: source queues it owns.
 *
 * Context: control thread (ctl_prom_idle_ns).
 */
static void ctl_prom_workers(struct ctl_buf *b)
{
	unsigned int n = MIN(worker_count_get(), (unsigned int)WORKERS_MAX);
	struct worker_info wi[WORKERS_MAX];
	uint64_t now;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!worker_info_get(i, &wi[i]))
			n = i;
	/* After busy_ns: each busy_ns was published at or before now. */
	now = now_ns();
	ctl_prom_worker_secs(b, "vhostd_worker_busy_seconds_total",
			     "Time the worker spent in passes that found work.",
			     wi, n, offsetof(struct worker_info, busy_ns));
	ctl_printf(b, "# HELP vhostd_worker_idle_seconds_total Time the "
		   "worker polled dry or slept (its age less busy time).\n"
		   "# TYPE vhostd_worker_idle_seconds_total counter\n");
	for (i = 0; i < n; i++) {
		uint64_t age = wi[i].start_ns && now > wi[i].start_ns ?
			       now - wi[i].start_ns : 0;
		uint64_t idle = age > wi[i].busy_ns ? age - wi[i].busy_ns : 0;

		idle = MAX(idle, ctl_prom_idle_ns[i]);
		ctl_prom_idle_ns[i] = idle;
		ctl_printf(b, "vhostd_worker_idle_seconds_total{worker=\"%u\"} ",
			   i);
		ctl_prom_secs(b, idle);
	}
	ctl_printf(b, "# HELP vhostd_worker_sources Source queues the worker "
		   "owns.\n"
		   "# TYPE vhostd_worker_sources gauge\n");
	for (i = 0; i < n; i++)
		ctl_printf(b, "vhostd_worker_sources{worker=\"%u\"} %u\n", i,
			   wi[i].sources);
	ctl_prom_worker_poll(b, wi, n);
}

/**
 * ctl_prom_sources() - each source queue's polling series
 * @b:		reply
 * @n:		port slots
 *
 * Labels port, type, source (the port's queue number: a guest's TX
 * virtqueue, a tun queue) and worker.  vhostd_source_poll_seconds_total
 * (dry and polled), vhostd_source_sleep_seconds_total (armed),
 * vhostd_source_sleeps_total (windows that ran out),
 * vhostd_source_wakeups_total, vhostd_source_poll_hits_total (dry spells
 * a poll ended), and the gauges vhostd_source_poll_window_seconds and
 * vhostd_source_poll_mode (1, the mode as a label).
 */
static void ctl_prom_sources(struct ctl_buf *b, unsigned int n)
{
	static const struct {
		const char *name, *type, *help;
	} series[] = {
		{ "poll_seconds_total", "counter",
		  "Time the source queue was dry and still polled." },
		{ "sleep_seconds_total", "counter",
		  "Time it was armed (notifications on)." },
		{ "sleeps_total", "counter",
		  "Poll windows that ran out: it was armed." },
		{ "wakeups_total", "counter",
		  "Events that woke it while armed." },
		{ "poll_hits_total", "counter",
		  "Dry spells a poll ended: work found, no kick needed." },
		{ "poll_window_seconds", "gauge",
		  "How long it is polled after it runs dry." },
		{ "poll_mode", "gauge",
		  "Its polling mode (the mode label), always 1." },
	};
	struct worker_src_info si[64];
	unsigned int k, i, j, m;

	for (k = 0; k < ARRAY_SIZE(series); k++) {
		ctl_printf(b, "# HELP vhostd_source_%s %s\n"
			   "# TYPE vhostd_source_%s %s\n", series[k].name,
			   series[k].help, series[k].name, series[k].type);
		for (i = 0; i < n; i++) {
			const struct port *p = switch_port(i);

			if (!p)
				continue;
			m = worker_src_list(p, si, ARRAY_SIZE(si));
			for (j = 0; j < m; j++) {
				const struct worker_src_info *o = &si[j];

				ctl_printf(b, "vhostd_source_%s", series[k].name);
				ctl_prom_port_labels(b, p);
				ctl_printf(b, ",source=\"%u\",worker=\"%u\"",
					   o->q, o->worker);
				if (k == 0 || k == 1 || k == 5) {
					ctl_printf(b, "} ");
					ctl_prom_secs(b, k == 0 ? o->poll_ns :
						      k == 1 ? o->sleep_ns :
						      o->window_ns);
				} else if (k == 6) {
					ctl_printf(b, ",mode=\"%s\"} 1\n",
						   o->mode);
				} else {
					ctl_printf(b, "} %llu\n",
						   (unsigned long long)(
						   k == 2 ? o->sleeps :
						   k == 3 ? o->wakeups : o->hits));
				}
			}
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
int ctl_cmd_metrics(struct ctl_buf *b, const char *arg)
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

	ctl_prom_l2(b, n);
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

	ctl_prom_limits(b, n);

	ctl_printf(b, "# HELP vhostd_fdb_entries MAC addresses in the "
		   "learning table.\n"
		   "# TYPE vhostd_fdb_entries gauge\n"
		   "vhostd_fdb_entries %u\n"
		   "# HELP vhostd_fdb_capacity Slots of the learning table.\n"
		   "# TYPE vhostd_fdb_capacity gauge\n"
		   "vhostd_fdb_capacity %u\n",
		   fdb_count(switch_fdb()), FDB_SIZE);

	ctl_prom_domains(b);
	ctl_prom_workers(b);
	ctl_prom_sources(b, n);
	return 0;
}
