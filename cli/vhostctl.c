// SPDX-License-Identifier: GPL-2.0-or-later
/* vhostctl.c - command line client of vhostd's control socket
 *
 * Sends one command line to the daemon and prints its reply.  It builds
 * and runs without the daemon's library (libc, and libpcap for capture's
 * filters: vhostctl_capture.c), and knows nothing of the reply formats
 * beyond "an error is an object whose first key is error".
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

/**
 * struct vhostctl_cmd - a command the daemon understands
 * @name:	words sent on the socket
 * @arg:	the one argument it takes, for --help; NULL: none
 * @help:	one line for --help
 */
struct vhostctl_cmd {
	const char *name;
	const char *arg;
	const char *help;
};

static const struct vhostctl_cmd vhostctl_cmds[] = {
	{ "ports",	NULL,	"ports, state and counters (JSON)" },
	{ "stats",	NULL,	"same as ports" },
	{ "fdb",	NULL,	"learned MAC addresses: mac, port, age (JSON)" },
	{ "workers",	NULL,	"datapath threads: tid, pinned CPU, sources (JSON)" },
	{ "metrics",	NULL,	"counters in Prometheus text format" },
	{ "port add",	"SPEC",	"add a port, SPEC as for vhostd --port" },
	{ "port del",	"NAME",	"remove a port, with its MACs and counters" },
	{ "set",	"NAME,KEY=VALUE..",
	  "a port's rate limits: rate=, burst=, rx-rate=, tx-rate=, ..." },
	{ "log level",	"LEVEL", "log error, warning, info or debug from now on" },
	{ "reload",	NULL,	"re-read vhostd's --config: add, remove, re-create its ports" },
	{ "capture",	"PORT [OPT].. [FILTER]",
	  "stream PORT's frames as pcap (capture --help)" },
	{ "captures",	NULL,	"the captures running, their counters (JSON)" },
	{ "vxlan fdb",	"NAME",	"a vxlan port's VTEPs and MAC -> VTEP entries (JSON)" },
	{ "vxlan add",	"NAME,mac=MAC,vtep=IP",
	  "a static MAC -> VTEP entry on a vxlan port" },
	{ "vxlan del",	"NAME,mac=MAC", "remove a MAC's entry from a vxlan port" },
	{ "help",	NULL,	"the daemon's own command list" },
};

/**
 * vhostctl_usage() - print usage
 * @f:		stdout (--help) or stderr (usage error)
 */
static void vhostctl_usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"Usage: vhostctl [--ctl PATH] COMMAND [ARG]\n"
		"Query or change a running vhostd through its control socket.\n"
		"\n"
		"  -c, --ctl PATH   control socket (default: $VHOSTD_CTL, "
		"else %s)\n"
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
	size_t i;

	for (i = 0; i < sizeof(vhostctl_cmds) / sizeof(vhostctl_cmds[0]); i++) {
		const char *name = vhostctl_cmds[i].name;
		const char *sp = strchr(name, ' ');

		if (!sp && !strcmp(name, argv[0])) {
			*used = 1;
			return &vhostctl_cmds[i];
		}
		if (sp && argc >= 2 && strlen(argv[0]) == (size_t)(sp - name) &&
		    !strncmp(name, argv[0], (size_t)(sp - name)) &&
		    !strcmp(sp + 1, argv[1])) {
			*used = 2;
			return &vhostctl_cmds[i];
		}
	}
	return NULL;
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
 * vhostctl_run() - send @cmd, copy the reply to stdout (or stderr)
 * @fd:		connected socket
 * @cmd:	command words
 * @arg:	its argument, or NULL
 * Return: exit status
 */
static int vhostctl_run(int fd, const char *cmd, const char *arg)
{
	char buf[65536];
	size_t head = 0, total = 0;
	char first[sizeof(VHOSTCTL_ERROR_PREFIX) - 1];
	bool is_err = false;
	FILE *out = stdout;

	if (dprintf(fd, "%s%s%s\n", cmd, arg ? " " : "", arg ? arg : "") < 0) {
		fprintf(stderr, "vhostctl: send: %s\n", strerror(errno));
		return 1;
	}
	shutdown(fd, SHUT_WR);

	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "vhostctl: read: %s\n",
				errno == EAGAIN ? "timed out" :
				strerror(errno));
			return 1;
		}
		if (!r)
			break;
		/* Decide where the reply goes once its first bytes are
		 * known: an error object goes to stderr, exit 1.
		 */
		if (head < sizeof(first)) {
			size_t take = sizeof(first) - head;

			if (take > (size_t)r)
				take = (size_t)r;
			memcpy(first + head, buf, take);
			head += take;
			if (head == sizeof(first) &&
			    !memcmp(first, VHOSTCTL_ERROR_PREFIX, head)) {
				is_err = true;
				out = stderr;
			}
		}
		if (fwrite(buf, 1, (size_t)r, out) != (size_t)r) {
			fprintf(stderr, "vhostctl: write: %s\n",
				strerror(errno));
			return 1;
		}
		total += (size_t)r;
	}
	if (!total) {
		fprintf(stderr, "vhostctl: empty reply from vhostd\n");
		return 1;
	}
	if (fflush(out)) {
		fprintf(stderr, "vhostctl: write: %s\n", strerror(errno));
		return 1;
	}
	return is_err ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ctl",	required_argument,	NULL, 'c' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 },
	};
	const char *path = getenv("VHOSTD_CTL");
	const struct vhostctl_cmd *cmd;
	const char *arg = NULL;
	int opt, fd, rc, used, left;

	if (!path || !*path)
		path = VHOSTCTL_DEFAULT_PATH;
	while ((opt = getopt_long(argc, argv, "+c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			path = optarg;
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
	cmd = vhostctl_find(left, argv + optind, &used);
	if (!cmd) {
		fprintf(stderr, "vhostctl: unknown command '%s%s%s' (see "
			"--help)\n", argv[optind], left > 1 ? " " : "",
			left > 1 ? argv[optind + 1] : "");
		return 2;
	}
	if (left != used + !!cmd->arg) {
		fprintf(stderr, "vhostctl: %s: %s\n", cmd->name,
			left < used + !!cmd->arg ? "missing argument" :
			"one COMMAND at a time");
		vhostctl_usage(stderr);
		return 2;
	}
	if (cmd->arg) {
		arg = argv[optind + used];
		/* The daemon reads one line of blank-separated words. */
		if (!*arg || strpbrk(arg, " \t\n")) {
			fprintf(stderr, "vhostctl: %s: %s must be one word, "
				"without blanks or newlines\n", cmd->name,
				cmd->arg);
			return 2;
		}
	}

	fd = vhostctl_connect(path);
	if (fd < 0)
		return 1;
	rc = vhostctl_run(fd, cmd->name, arg);
	close(fd);
	return rc;
}
