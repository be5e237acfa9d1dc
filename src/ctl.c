// SPDX-License-Identifier: GPL-2.0-or-later
/* ctl.c - the control socket: ports, counters, MAC table, metrics
 *
 * Owns the listening unix socket and the command table; the replies are
 * built in ctl_json.c and ctl_prom.c over ctl_out.c's buffer.  One client
 * at a time, served to completion inside the control thread's event loop:
 * commands are read-only snapshots, cheap to build, so a thread of its own
 * would buy nothing.  What keeps a slow or hostile client from stalling
 * vhost-user handling is time: the command line must arrive, and the reply
 * must drain, within fixed deadlines, after which the client is dropped.
 *
 * No counter is named in ctl*.c: "ports"/"stats" and "metrics" print what the
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "conf.h"
#include "ctl.h"
#include "ctl_capture.h"
#include "ctl_int.h"
#include "log.h"
#include "portctl.h"
#include "reload.h"
#include "port/port.h"
#include "switch.h"
#include "stats.h"
#include "usock.h"
#include "util.h"

#define CTL_IO_TIMEOUT_MS	200		/* per read/write */
#define CTL_DEADLINE_NS		500000000ULL	/* whole exchange */

/* Identity of the socket we created, so ctl_close() never removes a file
 * another daemon put at the same path after us.
 */
static dev_t ctl_dev;
static ino_t ctl_ino;
/* --ctl-perm: the socket's peer allow-list, checked at each accept. */
static struct usock_acl ctl_sock;
/* The socket's path, which no port may take; set by ctl_open(), which
 * is also what lets "port add" and "port del" change anything.
 */
static char ctl_path[CONF_PATH_MAX];
static bool ctl_live;

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
 * ctl_cmd_set() - "set NAME,KEY=VALUE...": a running port's rate limits
 * @b:		reply
 * @arg:	NAME and the keys
 * Return: 0, or -EINVAL (the reply is an error naming the key at fault)
 */
static int ctl_cmd_set(struct ctl_buf *b, const char *arg)
{
	char err[CTL_LINE_MAX], name[CONF_NAME_MAX];
	int rc = portctl_set(arg, ctl_live, err, sizeof(err));

	if (rc < 0)
		return ctl_error(b, err);
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, ","), arg);
	return ctl_port_ok(b, name, ctl_live ? rc : SWITCH_PORTS_MAX);
}

/**
 * ctl_cmd_log_level() - "log level LEVEL": the log level, from now on
 * @b:		reply
 * @arg:	error, warning, info or debug ("err", "warn" too)
 * Return: 0, or -EINVAL
 */
static int ctl_cmd_log_level(struct ctl_buf *b, const char *arg)
{
	int lvl = log_level_parse(arg);

	if (lvl < 0)
		return ctl_error(b, "log level: not error, warning, info or "
				 "debug");
	if (ctl_live && lvl != (int)log_get_level()) {
		log_set_level((enum log_level)lvl);
		info("ctl: log level %s", log_level_name((enum log_level)lvl));
	}
	ctl_printf(b, "{\"ok\":true,\"level\":");
	ctl_json_str(b, log_level_name((enum log_level)lvl));
	ctl_printf(b, ",\"sink\":");
	ctl_json_str(b, log_sink_name(log_sink()));
	ctl_printf(b, "}\n");
	return 0;
}

/**
 * ctl_json_names() - append ,"KEY":["NAME",...]
 * @b:		reply
 * @key:	the list's key
 * @names:	the names
 * @n:		how many
 */
static void ctl_json_names(struct ctl_buf *b, const char *key,
			   char names[][CONF_NAME_MAX], unsigned int n)
{
	unsigned int i;

	ctl_printf(b, ",\"%s\":[", key);
	for (i = 0; i < n; i++) {
		if (i)
			ctl_printf(b, ",");
		ctl_json_str(b, names[i]);
	}
	ctl_printf(b, "]");
}

/**
 * ctl_cmd_reload() - "reload": the --config file's ports, as it reads now
 * @b:		reply
 * @arg:	unused
 *
 * {"ok":true,"added":[..],"removed":[..],"changed":[..],"failed":[..],
 * "unchanged":N}; when a port failed to open, the same after "error"
 * and "ok":false; a plain error object when nothing was applied.
 *
 * Return: 0, or -EINVAL
 */
static int ctl_cmd_reload(struct ctl_buf *b, const char *arg)
{
	static struct reload_result r;
	int rc;

	if (!ctl_live)
		return ctl_error(b, "reload: not a running vhostd");
	rc = reload_run(&r);
	if (rc == -EINVAL)
		return ctl_error(b, r.err);
	/* A port that failed to open makes it an error reply (vhostctl:
	 * stderr, exit 1) that still lists what was done.
	 */
	if (rc < 0) {
		ctl_printf(b, "{\"error\":");
		ctl_json_str(b, r.err);
		ctl_printf(b, ",\"ok\":false");
	} else {
		ctl_printf(b, "{\"ok\":true");
	}
	ctl_json_names(b, "added", r.names[RELOAD_ADDED], r.n[RELOAD_ADDED]);
	ctl_json_names(b, "removed", r.names[RELOAD_REMOVED],
		       r.n[RELOAD_REMOVED]);
	ctl_json_names(b, "changed", r.names[RELOAD_CHANGED],
		       r.n[RELOAD_CHANGED]);
	ctl_json_names(b, "failed", r.names[RELOAD_FAILED],
		       r.n[RELOAD_FAILED]);
	ctl_printf(b, ",\"unchanged\":%u}\n", r.unchanged);
	return rc < 0 ? -EINVAL : 0;
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
	{ "fdb add",	ctl_cmd_fdb_add,  "VLAN,MAC,PORT",
	  "a static MAC table entry: never ages or moves (JSON)" },
	{ "fdb del",	ctl_cmd_fdb_del,  "VLAN,MAC,PORT",
	  "remove a static entry fdb add made (JSON)" },
	{ "domains",	ctl_cmd_domains,  NULL,
	  "bridge domains (VLANs): ports, MACs, frames (JSON)" },
	{ "workers",	ctl_cmd_workers,  NULL,
	  "datapath threads: tid, CPU, sources (JSON)" },
	{ "metrics",	ctl_cmd_metrics,  NULL,
	  "counters, Prometheus text format" },
	{ "port add",	ctl_cmd_port_add, "SPEC",
	  "add a port; SPEC as vhostd --port takes it (JSON)" },
	{ "port del",	ctl_cmd_port_del, "NAME",
	  "remove a port, its MACs and counters (JSON)" },
	{ "set",	ctl_cmd_set,	  "NAME,KEY=VALUE...",
	  "a port's rate limits: rate, burst, rx-/tx-rate, -burst (JSON)" },
	{ "log level",	ctl_cmd_log_level, "LEVEL",
	  "log error, warning, info or debug messages from now on (JSON)" },
	{ "reload",	ctl_cmd_reload,	  NULL,
	  "re-read --config, add and remove its ports (JSON)" },
	{ "capture",	ctl_cmd_capture,  "NAME[,KEYS]",
	  "stream a port's frames as pcap (vhostctl capture)" },
	{ "captures",	ctl_cmd_captures, NULL,
	  "the captures running and their counters (JSON)" },
	{ "show",	ctl_cmd_show,	  "NAME",
	  "one port: rings, memory, MACs, workers (JSON)" },
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
	const struct port_ops *ops;
	unsigned int i, t;

	for (i = 0; i < ARRAY_SIZE(ctl_cmds); i++) {
		char use[32];

		snprintf(use, sizeof(use), "%s%s%s", ctl_cmds[i].name,
			 ctl_cmds[i].arg ? " " : "",
			 ctl_cmds[i].arg ? ctl_cmds[i].arg : "");
		ctl_printf(b, "%-32s %s\n", use, ctl_cmds[i].help);
	}
	for (t = 0; (ops = port_ops_at(t)); t++)
		for (i = 0; i < ops->n_cmds; i++) {
			char use[64];

			snprintf(use, sizeof(use), "%s %s NAME%s", ops->type,
				 ops->cmds[i].verb, ops->cmds[i].keys);
			ctl_printf(b, "%-32s %s\n", use, ops->cmds[i].help);
		}
	return 0;
}

/**
 * ctl_type_cmd() - "TYPE VERB NAME[,KEYS]": a port type's own command
 * @b:		reply
 * @s:		the command line, trimmed
 * @n:		its length
 * @rc:		set to the command's result if it was one
 * Return: true if the line named a type's command (@b holds the reply)
 */
static bool ctl_type_cmd(struct ctl_buf *b, const char *s, size_t n,
			 int *rc)
{
	char line[CTL_LINE_MAX], err[CTL_LINE_MAX], *w[4], *save = NULL;
	struct port_out out = { ctl_out_put, b };
	const struct port_ops *ops;
	const struct port_cmd *c = NULL;
	struct port *p = NULL;
	unsigned int i, nw = 0;
	char *args, *tok;
	size_t nl;

	if (n >= sizeof(line))
		return false;
	memcpy(line, s, n);
	line[n] = '\0';
	for (tok = strtok_r(line, " \t", &save); tok && nw < 4;
	     tok = strtok_r(NULL, " \t", &save))
		w[nw++] = tok;
	if (nw < 2 || !(ops = port_ops_find(w[0])) || !ops->n_cmds)
		return false;
	for (i = 0; i < ops->n_cmds; i++)
		if (!strcmp(ops->cmds[i].verb, w[1]))
			c = &ops->cmds[i];
	if (!c)
		return false;
	if (nw != 3) {
		snprintf(err, sizeof(err), "%s %s: %s", w[0], w[1],
			 nw < 3 ? "missing NAME" : "NAME and its keys are "
			 "one word, no blanks");
		*rc = ctl_error(b, err);
		return true;
	}
	args = strchr(w[2], ',');
	nl = args ? (size_t)(args - w[2]) : strlen(w[2]);
	args = args ? args + 1 : w[2] + nl;
	for (i = 0; i < switch_port_count() && !p; i++) {
		struct port *q = switch_port(i);

		if (q && q->in_use && strlen(q->name) == nl &&
		    !memcmp(q->name, w[2], nl))
			p = q;
	}
	if (!p || p->ops != ops) {
		snprintf(err, sizeof(err), "%s %s: no %s port named '%.*s'",
			 w[0], w[1], ops->type, (int)MIN(nl, (size_t)40),
			 w[2]);
		*rc = ctl_error(b, err);
		return true;
	}
	*err = '\0';
	*rc = c->fn(p, args, &out, err, sizeof(err));
	if (*rc < 0) {
		b->len = 0;
		b->oom = false;
		*rc = ctl_error(b, *err ? err : "failed");
	}
	return true;
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
	if (i == ARRAY_SIZE(ctl_cmds) && !ctl_type_cmd(&b, s, n, &rc)) {
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
		/* Exactly the line is taken: what follows it (a capture's
		 * filter) stays in the socket for its command.
		 */
		r = recv(fd, buf + n, CTL_LINE_MAX - 1 - n,
			 MSG_DONTWAIT | MSG_PEEK);
		if (r > 0) {
			const char *nl = memchr(buf + n, '\n', (size_t)r);

			if (nl)
				r = nl - (buf + n) + 1;
			r = recv(fd, buf + n, (size_t)r, MSG_DONTWAIT);
		}
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
 * ctl_capture_line() - is @line a "capture" command
 * @line:	the command line
 * Return: its argument (blanks skipped), or NULL
 */
static const char *ctl_capture_line(const char *line)
{
	const char *s = line;

	while (*s == ' ' || *s == '\t')
		s++;
	if (strncmp(s, "capture", 7) || (s[7] != ' ' && s[7] != '\t'))
		return NULL;
	for (s += 7; *s == ' ' || *s == '\t'; s++)
		;
	return *s ? s : NULL;
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
	while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' ||
			 line[n - 1] == '\t'))
		line[--n] = '\0';
	if (ctl_live && ctl_capture_line(line)) {
		ctl_capture_start(fd, ctl_capture_line(line), deadline);
		return;		/* the capture has the client now */
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
int ctl_open(const char *path, const struct usock_acl *s)
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
	rc = ctl_capture_init();
	if (rc < 0) {
		unlink(path);
		goto err;
	}
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
 *
 * Context: shutdown, the workers stopped (a capture's rings are freed
 * here without waiting for them).
 */
void ctl_close(int lfd, const char *path)
{
	struct stat st;

	ctl_capture_fini();
	close(lfd);
	if (!lstat(path, &st) && st.st_dev == ctl_dev && st.st_ino == ctl_ino)
		unlink(path);
}
