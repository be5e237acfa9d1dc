// SPDX-License-Identifier: GPL-2.0-or-later
/* vhostctl.c - command line client of vhostd's control socket
 *
 * Sends one command line to the daemon and prints its reply.  It builds
 * and runs without the daemon's library (libc, and libpcap for capture's
 * filters: vhostctl_capture.c).
 *
 * The daemon answers every command in one format, JSON (or Prometheus
 * text, or a pcap stream), and knows nothing of people: the listings
 * people read ("ports", "fdb", "captures", "show") are laid out here, from
 * that JSON (vhostctl_json.c, vhostctl_table.c, vhostctl_show.c), so
 * that scripts and people read the same numbers and the daemon has no
 * second renderer to keep in step.  --json prints the reply as it came.
 * An error reply is one line on stderr: "vhostctl: MESSAGE", or the
 * JSON object itself with --json.
 *
 * Exit status: 0 ok, 1 connection failure or error reply, 2 usage error.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "vhostctl.h"

#define VHOSTCTL_DEFAULT_PATH	"/run/vhostd/ctl.sock"
#define VHOSTCTL_TIMEOUT_S	5
#define VHOSTCTL_REPLY_MAX	(16U << 20)	/* the daemon's is 8 MiB */

/**
 * struct vhostctl_cmd - a command the daemon understands
 * @name:	words sent on the socket
 * @arg:	the one argument it takes, for --help; NULL: none
 * @help:	one line for --help
 * @print:	lays the parsed reply out for people; NULL: printed as it
 *		came, with or without --json
 *
 * An @arg of several blank-separated words takes that many words, sent
 * to the daemon joined by commas (its argument is one word).
 */
struct vhostctl_cmd {
	const char *name;
	const char *arg;
	const char *help;
	int (*print)(const struct vj *j);
};

static const struct vhostctl_cmd vhostctl_cmds[] = {
	{ "ports",	NULL,	"ports, state and counters (table)",
	  vhostctl_print_ports },
	{ "stats",	NULL,	"same as ports", vhostctl_print_ports },
	{ "show",	"PORT",	"one port: features, rings, memory, MACs",
	  vhostctl_print_show },
	{ "top",	"[-n COUNT] [-d SECONDS]",
	  "frames/s, Gbit/s, drops/s per port, live", NULL },
	{ "fdb",	NULL,	"MAC addresses: vlan, mac, port, age (table)",
	  vhostctl_print_fdb },
	{ "fdb add",	"VLAN MAC PORT",
	  "a static entry: MAC lives on PORT in VLAN, never ages or moves",
	  NULL },
	{ "fdb del",	"VLAN MAC PORT", "remove a static entry fdb add made",
	  NULL },
	{ "domains",	NULL,	"bridge domains (VLANs): ports, MACs, frames (JSON)",
	  NULL },
	{ "workers",	NULL,	"datapath threads: tid, pinned CPU, sources (table)",
	  vhostctl_print_workers },
	{ "metrics",	NULL,	"counters in Prometheus text format", NULL },
	{ "port add",	"SPEC",	"add a port, SPEC as for vhostd --port", NULL },
	{ "port del",	"NAME",	"remove a port, with its MACs and counters",
	  NULL },
	{ "set",	"NAME,KEY=VALUE..",
	  "a port's rate limits: rate=, burst=, rx-rate=, tx-rate=, ...",
	  NULL },
	{ "log level",	"LEVEL", "log error, warning, info or debug from now on",
	  NULL },
	{ "reload",	NULL,
	  "re-read vhostd's --config: add, remove, re-create its ports", NULL },
	{ "capture",	"PORT [OPT].. [FILTER]",
	  "stream PORT's frames as pcap (capture --help)", NULL },
	{ "captures",	NULL,	"the captures running, their counters (table)",
	  vhostctl_print_captures },
	{ "vxlan fdb",	"NAME",	"a vxlan port's VTEPs and MAC -> VTEP entries (JSON)",
	  NULL },
	{ "vxlan add",	"NAME,mac=MAC,vtep=IP",
	  "a static MAC -> VTEP entry on a vxlan port", NULL },
	{ "vxlan del",	"NAME,mac=MAC", "remove a MAC's entry from a vxlan port",
	  NULL },
	{ "help",	NULL,	"the daemon's own command list", NULL },
};

/**
 * vhostctl_usage() - print usage
 * @f:		stdout (--help) or stderr (usage error)
 */
static void vhostctl_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: vhostctl [--ctl PATH] [--json] COMMAND [ARG]\n"
		"Query or change a running vhostd through its control socket.\n"
		"\n"
		"  -c, --ctl PATH   control socket (default: $VHOSTD_CTL, "
		"else %s)\n"
		"  -j, --json       print replies as the daemon sends them "
		"(JSON), for scripts\n"
		"  -h, --help       this text\n"
		"\n"
		"Commands:\n", VHOSTCTL_DEFAULT_PATH);
	for (i = 0; i < sizeof(vhostctl_cmds) / sizeof(vhostctl_cmds[0]); i++) {
		char use[48];

		snprintf(use, sizeof(use), "%s%s%s", vhostctl_cmds[i].name,
			 vhostctl_cmds[i].arg ? " " : "",
			 vhostctl_cmds[i].arg ? vhostctl_cmds[i].arg : "");
		fprintf(f, "  %-32s %s\n", use, vhostctl_cmds[i].help);
	}
	fprintf(f, "\nExample: vhostctl port add "
		"vhost-user,path=/run/vhostd/vm3.sock,name=vm3\n"
		"\nExit status: 0 ok, 1 daemon unreachable or error "
		"reply (the message on stderr), 2 usage error.\n");
}

/**
 * vhostctl_find() - look a command up in the table
 * @argc:	words left on the command line
 * @argv:	those words
 * @used:	set to how many words the command's name takes
 * Return: the entry, or NULL
 */
static const struct vhostctl_cmd *vhostctl_find(int argc, char **argv,
						int *used)
{
	const struct vhostctl_cmd *one = NULL;
	size_t i;

	/* Two words first: "fdb add" is not "fdb" with an argument. */
	for (i = 0; i < sizeof(vhostctl_cmds) / sizeof(vhostctl_cmds[0]); i++) {
		const char *name = vhostctl_cmds[i].name;
		const char *sp = strchr(name, ' ');

		if (!sp && !strcmp(name, argv[0]))
			one = &vhostctl_cmds[i];
		if (sp && argc >= 2 && strlen(argv[0]) == (size_t)(sp - name) &&
		    !strncmp(name, argv[0], (size_t)(sp - name)) &&
		    !strcmp(sp + 1, argv[1])) {
			*used = 2;
			return &vhostctl_cmds[i];
		}
	}
	*used = 1;
	return one;
}

/**
 * vhostctl_connect() - connect to the daemon
 * @path:	socket path
 * Return: connected fd, or -errno (message printed)
 */
int vhostctl_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = VHOSTCTL_TIMEOUT_S };
	int fd, rc;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "vhostctl: %s: path too long\n", path);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		fprintf(stderr, "vhostctl: socket: %s\n", strerror(-rc));
		return rc;
	}
	/* A wedged daemon must not hang scripts forever. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		fprintf(stderr, "vhostctl: cannot connect to %s: %s%s\n", path,
			strerror(-rc),
			rc == -ENOENT || rc == -ECONNREFUSED ?
			" (is vhostd running with --ctl?)" : "");
		close(fd);
		return rc;
	}
	return fd;
}

/**
 * vhostctl_error() - print an error reply
 * @reply:	the reply, NUL-terminated: {"error":"MESSAGE"[,...]}
 * @json:	--json: the object as it came; else "vhostctl: MESSAGE",
 *		and the object after it if it says more than the message
 */
static void vhostctl_error(const char *reply, bool json)
{
	const struct vj_node *m;
	struct vj j = { 0 };
	char *copy = NULL;
	const char *err;

	if (json) {
		fputs(reply, stderr);
		return;
	}
	copy = strdup(reply);
	if (copy && !vj_parse(&j, copy, &err) &&
	    (m = vj_get(&j, &j.v[0], "error")) && m->type == VJ_STR) {
		fprintf(stderr, "vhostctl: %s\n", m->str);
		/* More than the message (reload's lists of what it did
		 * before it failed): the object too.
		 */
		if (j.v[0].n > 1)
			fputs(reply, stderr);
	} else {
		fprintf(stderr, "vhostctl: error reply from vhostd: %s", reply);
	}
	vj_free(&j);
	free(copy);
}

/**
 * vhostctl_fetch() - send one command line, read the whole reply
 * @path:	control socket
 * @line:	the command line, without its newline
 * @json:	--json: how an error reply is printed
 * @reply:	out: the reply, malloc'd and NUL-terminated (the caller
 *		frees it) when 0 is returned
 * @len:	out: its length
 * Return: 0, or 1: no reply (the reason printed) or an error reply
 *	   (printed on stderr, vhostctl_error())
 */
int vhostctl_fetch(const char *path, const char *line, bool json,
		   char **reply, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf;
	int fd;

	*reply = NULL;
	*len = 0;
	fd = vhostctl_connect(path);
	if (fd < 0)
		return 1;
	/* send(), not write(): a daemon that hung up (a deadline missed)
	 * is an error message, not a silent SIGPIPE.
	 */
	if (asprintf(&buf, "%s\n", line) < 0) {
		fprintf(stderr, "vhostctl: out of memory\n");
		close(fd);
		return 1;
	}
	n = strlen(buf);
	if (send(fd, buf, n, MSG_NOSIGNAL) != (ssize_t)n) {
		fprintf(stderr, "vhostctl: send: %s\n", strerror(errno));
		free(buf);
		close(fd);
		return 1;
	}
	free(buf);
	n = 0;
	shutdown(fd, SHUT_WR);
	buf = malloc(cap);
	for (;;) {
		ssize_t r;

		if (buf && n + 1 == cap) {
			char *nb = cap < VHOSTCTL_REPLY_MAX ?
				   realloc(buf, 2 * cap) : NULL;

			if (!nb) {
				fprintf(stderr, "vhostctl: reply too large\n");
				goto fail;
			}
			buf = nb;
			cap *= 2;
		}
		if (!buf) {
			fprintf(stderr, "vhostctl: out of memory\n");
			goto fail;
		}
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "vhostctl: read: %s\n",
				errno == EAGAIN ? "timed out" :
				strerror(errno));
			goto fail;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (!n) {
		fprintf(stderr, "vhostctl: empty reply from vhostd\n");
		free(buf);
		return 1;
	}
	if (!strncmp(buf, VHOSTCTL_ERROR_PREFIX,
		     strlen(VHOSTCTL_ERROR_PREFIX))) {
		vhostctl_error(buf, json);
		free(buf);
		return 1;
	}
	*reply = buf;
	*len = n;
	return 0;
fail:
	free(buf);
	close(fd);
	return 1;
}

/**
 * vhostctl_run() - run @cmd, print its reply
 * @path:	control socket
 * @cmd:	the command
 * @arg:	its argument, or NULL
 * @json:	--json: the reply as it came, even where a table exists
 * Return: exit status
 */
static int vhostctl_run(const char *path, const struct vhostctl_cmd *cmd,
			const char *arg, bool json)
{
	char line[4096], *reply;
	struct vj j = { 0 };
	const char *err;
	size_t len;
	int rc;

	if ((size_t)snprintf(line, sizeof(line), "%s%s%s", cmd->name,
			     arg ? " " : "", arg ? arg : "") >= sizeof(line)) {
		fprintf(stderr, "vhostctl: %s: argument too long\n",
			cmd->name);
		return 2;
	}
	rc = vhostctl_fetch(path, line, json, &reply, &len);
	if (rc)
		return rc;
	if (json || !cmd->print) {
		rc = fwrite(reply, 1, len, stdout) != len || fflush(stdout);
		if (rc)
			fprintf(stderr, "vhostctl: write: %s\n",
				strerror(errno));
		free(reply);
		return rc;
	}
	if (vj_parse(&j, reply, &err)) {
		fprintf(stderr, "vhostctl: %s: cannot read the reply: %s "
			"(--json prints it as it came)\n", cmd->name, err);
		rc = 1;
	} else {
		rc = cmd->print(&j);
		if (fflush(stdout)) {
			fprintf(stderr, "vhostctl: write: %s\n",
				strerror(errno));
			rc = 1;
		}
	}
	vj_free(&j);
	free(reply);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ctl",	required_argument,	NULL, 'c' },
		{ "json",	no_argument,		NULL, 'j' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 },
	};
	const char *path = getenv("VHOSTD_CTL");
	const struct vhostctl_cmd *cmd;
	const char *arg = NULL;
	char joined[1024];	/* the daemon's CTL_LINE_MAX */
	int opt, used, left, words, i;
	bool json = false;

	if (!path || !*path)
		path = VHOSTCTL_DEFAULT_PATH;
	while ((opt = getopt_long(argc, argv, "+c:jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			path = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			vhostctl_usage(stdout);
			return 0;
		default:
			vhostctl_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "vhostctl: missing COMMAND\n");
		vhostctl_usage(stderr);
		return 2;
	}
	left = argc - optind;
	/* Options and a filter of its own, and a stream for a reply. */
	if (!strcmp(argv[optind], "capture"))
		return vhostctl_capture(path, left, argv + optind);
	/* Options of its own, and a reply every interval. */
	if (!strcmp(argv[optind], "top"))
		return vhostctl_top(path, json, left, argv + optind);
	cmd = vhostctl_find(left, argv + optind, &used);
	if (!cmd) {
		fprintf(stderr, "vhostctl: unknown command '%s%s%s' (see "
			"--help)\n", argv[optind], left > 1 ? " " : "",
			left > 1 ? argv[optind + 1] : "");
		return 2;
	}
	words = 0;
	if (cmd->arg)
		for (words = 1, i = 0; cmd->arg[i]; i++)
			words += cmd->arg[i] == ' ';
	if (left != used + words) {
		fprintf(stderr, "vhostctl: %s: %s\n", cmd->name,
			left < used + words ? "missing argument" :
			"one COMMAND at a time");
		vhostctl_usage(stderr);
		return 2;
	}
	for (i = 0, joined[0] = '\0'; i < words; i++) {
		const char *w = argv[optind + used + i];

		/* The daemon reads one line of blank-separated words. */
		if (!*w || strpbrk(w, words > 1 ? " \t\n," : " \t\n") ||
		    strlen(joined) + strlen(w) + 2 > sizeof(joined)) {
			fprintf(stderr, "vhostctl: %s: %s must be %s, "
				"without blanks, commas or newlines\n",
				cmd->name, cmd->arg,
				words > 1 ? "separate words" : "one word");
			return 2;
		}
		if (i)
			strcat(joined, ",");
		strcat(joined, w);
		arg = joined;
	}
	return vhostctl_run(path, cmd, arg, json);
}
