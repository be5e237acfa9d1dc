// SPDX-License-Identifier: GPL-2.0-or-later
/* vhostctl_top.c - "vhostctl top": live rates per port
 *
 * Asks for "stats" every INTERVAL and prints, per port, what changed over
 * the last interval: frames per second and Gbit/s each way, drops per
 * second (every reason summed).  On a terminal the screen is cleared
 * before each refresh (plain ANSI: ESC[H ESC[2J, no curses); elsewhere
 * -n COUNT is required and each refresh follows the last, so a script or
 * a test can read them.  With --json each refresh is one JSON line.
 *
 * Rates are deltas of the daemon's counters over the time between two
 * replies, measured here (CLOCK_MONOTONIC).  A port that appeared since
 * the last sample, or whose counters went back (deleted and added again
 * under the same name), shows its first interval as zeros.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vhostctl.h"

#define TOP_PORTS_MAX	64	/* the switch has no more */

/**
 * struct top_sample - one port's counters at one time
 * @name:	its name
 * @type:	its type
 * @up:		forwarding
 * @rx_pkts:	rx_packets
 * @rx_bytes:	rx_bytes
 * @tx_pkts:	tx_packets
 * @tx_bytes:	tx_bytes
 * @drops:	every drop reason summed
 */
struct top_sample {
	char name[64];
	char type[32];
	bool up;
	uint64_t rx_pkts;
	uint64_t rx_bytes;
	uint64_t tx_pkts;
	uint64_t tx_bytes;
	uint64_t drops;
};

/**
 * struct top_snap - every port at one time
 * @t:		CLOCK_MONOTONIC seconds when the reply came
 * @n:		ports
 * @p:		them
 */
struct top_snap {
	double t;
	unsigned int n;
	struct top_sample p[TOP_PORTS_MAX];
};

/**
 * top_usage() - print usage
 * @f:		stdout or stderr
 */
static void top_usage(FILE *f)
{
	fprintf(f,
		"Usage: vhostctl [--ctl PATH] [--json] top [-n COUNT] "
		"[-d SECONDS]\n"
		"Frames/s, Gbit/s and drops/s per port, refreshed.\n"
		"\n"
		"  -n, --iterations COUNT  refresh COUNT times, then exit "
		"(required when\n"
		"                          stdout is not a terminal)\n"
		"  -d, --delay SECONDS     between refreshes (default 1, "
		"0.1 to 3600)\n"
		"  -h, --help              this text\n"
		"\n"
		"With --json each refresh is one line: "
		"{\"interval\":S,\"ports\":[...]}.\n");
}

/**
 * top_now() - monotonic seconds
 * Return: seconds
 */
static double top_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * top_sample_get() - one "stats" reply as a snapshot
 * @path:	control socket
 * @s:		out
 * Return: 0, or the exit status (the reason printed)
 */
static int top_sample_get(const char *path, struct top_snap *s)
{
	const struct vj_node *ports, *p;
	struct vj j = { 0 };
	const char *err;
	char *reply;
	size_t len;
	int rc;

	rc = vhostctl_fetch(path, "stats", false, &reply, &len);
	if (rc)
		return rc;
	s->t = top_now();
	s->n = 0;
	if (vj_parse(&j, reply, &err)) {
		fprintf(stderr, "vhostctl: top: cannot read the reply: %s\n",
			err);
		rc = 1;
		goto out;
	}
	ports = vj_get(&j, &j.v[0], "ports");
	for (p = vj_first(&j, ports); p && s->n < TOP_PORTS_MAX;
	     p = vj_next(&j, p)) {
		struct top_sample *x = &s->p[s->n++];

		snprintf(x->name, sizeof(x->name), "%s",
			 vj_str(vj_get(&j, p, "name"), "?"));
		snprintf(x->type, sizeof(x->type), "%s",
			 vj_str(vj_get(&j, p, "type"), "?"));
		x->up = vj_true(vj_get(&j, p, "up"));
		x->rx_pkts = vj_u64(&j, vj_get(&j, p, "rx_packets"));
		x->rx_bytes = vj_u64(&j, vj_get(&j, p, "rx_bytes"));
		x->tx_pkts = vj_u64(&j, vj_get(&j, p, "tx_packets"));
		x->tx_bytes = vj_u64(&j, vj_get(&j, p, "tx_bytes"));
		x->drops = vj_u64(&j, vj_get(&j, p, "drops"));
	}
out:
	vj_free(&j);
	free(reply);
	return rc;
}

/**
 * top_rate() - a counter's rate between two samples
 * @now:	counter now
 * @then:	counter before (NULL: a new port)
 * @dt:		seconds between them
 * Return: per second, 0 if it went back
 */
static double top_rate(uint64_t now, const uint64_t *then, double dt)
{
	if (!then || now < *then || dt <= 0)
		return 0;
	return (double)(now - *then) / dt;
}

/**
 * top_print() - one refresh
 * @a:		previous snapshot
 * @b:		this one
 * @json:	one JSON line instead of a table
 * @iter:	refresh number, from 1
 * @count:	refreshes in all, 0 = until interrupted
 * Return: exit status
 */
static int top_print(const struct top_snap *a, const struct top_snap *b,
		     bool json, unsigned long iter, unsigned long count)
{
	double dt = b->t - a->t;
	unsigned int i, k;
	struct vt t;

	if (json)
		printf("{\"interval\":%.3f,\"ports\":[", dt);
	else
		vt_init(&t, 0, "-NAME -TYPE -UP RX-PPS RX-GBIT/S TX-PPS "
			"TX-GBIT/S DROPS/S");
	for (i = 0; i < b->n; i++) {
		const struct top_sample *x = &b->p[i], *y = NULL;
		double rp, rb, tp, tb, dr;
		char c1[32], c2[32], c3[32];

		for (k = 0; k < a->n && !y; k++)
			if (!strcmp(a->p[k].name, x->name))
				y = &a->p[k];
		rp = top_rate(x->rx_pkts, y ? &y->rx_pkts : NULL, dt);
		rb = top_rate(x->rx_bytes, y ? &y->rx_bytes : NULL, dt) * 8;
		tp = top_rate(x->tx_pkts, y ? &y->tx_pkts : NULL, dt);
		tb = top_rate(x->tx_bytes, y ? &y->tx_bytes : NULL, dt) * 8;
		dr = top_rate(x->drops, y ? &y->drops : NULL, dt);
		if (json) {
			/* Names are [A-Za-z0-9_.-] (conf.c): no escaping. */
			printf("%s{\"name\":\"%s\",\"rx_pps\":%.0f,"
			       "\"rx_bps\":%.0f,\"tx_pps\":%.0f,\"tx_bps\":%.0f,"
			       "\"drops_ps\":%.0f}", i ? "," : "", x->name, rp,
			       rb, tp, tb, dr);
			continue;
		}
		vt_cell(&t, "%s", x->name);
		vt_cell(&t, "%s", x->type);
		vt_cell(&t, "%s", x->up ? "up" : "down");
		vt_cell(&t, "%s", vh_count(c1, sizeof(c1), rp));
		vt_cell(&t, "%.3f", rb / 1e9);
		vt_cell(&t, "%s", vh_count(c2, sizeof(c2), tp));
		vt_cell(&t, "%.3f", tb / 1e9);
		vt_cell(&t, "%s", vh_count(c3, sizeof(c3), dr));
	}
	if (json) {
		printf("]}\n");
	} else {
		char when[32];
		time_t now = time(NULL);

		strftime(when, sizeof(when), "%H:%M:%S", localtime(&now));
		if (count)
			printf("vhostd top  %s  over %.1f s  (%lu/%lu)\n", when,
			       dt, iter, count);
		else
			printf("vhostd top  %s  over %.1f s  (Ctrl-C ends)\n",
			       when, dt);
		if (vt_print(&t, stdout))
			return 1;
	}
	return fflush(stdout) ? 1 : 0;
}

/**
 * top_sleep() - wait @s seconds, through signals
 * @s:		seconds
 */
static void top_sleep(double s)
{
	struct timespec ts = {
		.tv_sec = (time_t)s,
		.tv_nsec = (long)((s - floor(s)) * 1e9),
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/**
 * vhostctl_top() - "vhostctl top [-n COUNT] [-d SECONDS]"
 * @path:	control socket
 * @json:	--json: one line per refresh
 * @argc:	words from "top" on
 * @argv:	those words
 * Return: exit status: 0, 1 (the daemon went away), 2 (usage)
 */
int vhostctl_top(const char *path, bool json, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iterations",	required_argument,	NULL, 'n' },
		{ "delay",	required_argument,	NULL, 'd' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 },
	};
	static struct top_snap snaps[2];
	bool tty = isatty(STDOUT_FILENO);
	unsigned long count = 0, i;
	double delay = 1;
	char *end;
	int opt, rc;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+n:d:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			errno = 0;
			count = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || !count ||
			    *optarg == '-') {
				fprintf(stderr, "vhostctl: top: -n: a count "
					"from 1, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'd':
			delay = strtod(optarg, &end);
			if (*end || !*optarg || !(delay >= 0.1) ||
			    delay > 3600) {
				fprintf(stderr, "vhostctl: top: -d: seconds "
					"from 0.1 to 3600, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'h':
			top_usage(stdout);
			return 0;
		default:
			top_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vhostctl: top: unexpected '%s'\n",
			argv[optind]);
		top_usage(stderr);
		return 2;
	}
	if (!tty && !count && !json) {
		fprintf(stderr, "vhostctl: top: stdout is not a terminal: "
			"give -n COUNT\n");
		return 2;
	}
	rc = top_sample_get(path, &snaps[0]);
	for (i = 1; !rc && (!count || i <= count); i++) {
		top_sleep(delay);
		rc = top_sample_get(path, &snaps[i & 1]);
		if (rc)
			break;
		if (tty && !json)
			fputs("\033[H\033[2J", stdout);
		else if (i > 1 && !json)
			putchar('\n');
		rc = top_print(&snaps[(i - 1) & 1], &snaps[i & 1], json, i,
			       count);
	}
	return rc;
}
