// SPDX-License-Identifier: GPL-2.0-or-later
/* conf_child.c - the process that parses the configuration for a reload
 *
 * A reload (vhostctl reload, SIGHUP) parses the command line again, the
 * --config file included.  The running daemon cannot do that itself: its
 * seccomp filter refuses open(), and names in the file (owner=, group=,
 * allow-uid=, --user) are looked up through NSS, which opens files and
 * sockets.  So at the end of start-up, after priv_drop() and before the
 * daemon's filter, vhostd forks this process: it has the daemon's user
 * and capabilities (none, or CAP_BPF), no_new_privs, and a filter of its
 * own that allows reading files and little else.  On each request byte
 * it runs conf_parse() over the start-up argv it inherited and writes
 * back the result, struct conf whole; the daemon checks what it reads
 * (sizes, strings terminated, known port types) before using any of it.
 *
 * The file is therefore read at a reload as vhostd's --user: one that
 * user cannot read fails the reload with EACCES, which start-up checks
 * once and warns about.  The process exits when its socket closes (the
 * daemon ended) or, through PR_SET_PDEATHSIG, when the daemon dies.  An
 * answer that does not come within CONF_CHILD_TIMEOUT_MS fails that
 * reload and retires the process: reloads fail from then on, with a
 * line saying so, and a restart brings it back.
 */
#include <errno.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include "conf.h"
#include "port/port.h"
#include "util.h"

#define CONF_CHILD_TIMEOUT_MS	3000

/**
 * struct conf_reply - one answer: conf_parse()'s return, message, result
 * @rc:		0, 1 (--help/--version: not a configuration) or -EINVAL
 * @err:	conf_parse()'s message when @rc is -EINVAL
 * @conf:	the configuration when @rc is 0
 */
struct conf_reply {
	int32_t rc;
	char err[1024];
	struct conf conf;
};

static int conf_child_fd = -1;
static pid_t conf_child_pid;

/**
 * conf_child_filter() - the child's syscall allow-list
 *
 * Reading files (the --config file, NSS's /etc/passwd and /etc/group),
 * memory for NSS and the sanitizers, its socket; anything else fails
 * with EPERM rather than killing it, so that an NSS module that tries a
 * socket falls back as it would without one.
 *
 * Return: 0 or -errno
 */
static int conf_child_filter(void)
{
	static const int allow[] = {
		SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(openat),
		SCMP_SYS(open), SCMP_SYS(close), SCMP_SYS(fstat),
		SCMP_SYS(newfstatat), SCMP_SYS(statx), SCMP_SYS(lseek),
		SCMP_SYS(pread64), SCMP_SYS(mmap), SCMP_SYS(munmap),
		SCMP_SYS(mprotect), SCMP_SYS(madvise), SCMP_SYS(brk),
		SCMP_SYS(futex), SCMP_SYS(getpid), SCMP_SYS(gettid),
		SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid),
		SCMP_SYS(getegid), SCMP_SYS(rt_sigreturn),
		SCMP_SYS(rt_sigprocmask), SCMP_SYS(exit),
		SCMP_SYS(exit_group), SCMP_SYS(clock_gettime),
		SCMP_SYS(sched_yield), SCMP_SYS(getrandom),
		/* the sanitizers' runtime, on its own paths */
		SCMP_SYS(sigaltstack), SCMP_SYS(rt_sigaction),
		SCMP_SYS(prlimit64), SCMP_SYS(readlink),
		SCMP_SYS(sched_getaffinity), SCMP_SYS(prctl),
	};
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	unsigned int i;
	int rc = 0;

	if (!ctx)
		return -ENOMEM;
	for (i = 0; !rc && i < ARRAY_SIZE(allow); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, allow[i], 0);
	if (!rc)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	return rc;
}

/**
 * conf_child_write() - all of @buf to @fd
 * @fd:		socket
 * @buf:	data
 * @len:	its length
 * Return: 0 or -errno
 */
static int conf_child_write(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * conf_child_serve() - the child: answer each request byte, then exit
 * @fd:		its end of the socket pair
 * @argc:	the start-up argument count
 * @argv:	the start-up arguments
 */
static void __attribute__((noreturn))
conf_child_serve(int fd, int argc, char **argv)
{
	static struct conf_reply r;
	sigset_t none;
	char req;
	ssize_t n;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(1);
	prctl(PR_SET_NAME, "vhostd-conf");
	/* Nothing of the daemon's but the socket and stdio. */
	if (fd != 3) {
		if (dup2(fd, 3) < 0)
			_exit(1);
		fd = 3;
	}
	if (syscall(SYS_close_range, 4U, ~0U, 0) < 0)
		_exit(1);
	if (conf_child_filter() < 0)
		_exit(1);

	for (;;) {
		n = read(fd, &req, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(0);
		memset(&r, 0, sizeof(r));
		r.rc = conf_parse(argc, argv, &r.conf, r.err, sizeof(r.err));
		if (conf_child_write(fd, &r, sizeof(r)) < 0)
			_exit(0);
	}
}

/**
 * conf_child_start() - fork the parsing process
 * @argc:	the start-up argument count
 * @argv:	the start-up arguments (kept by the child, never freed)
 *
 * Context: end of start-up, control thread, after priv_drop() and before
 * sandbox_install() and the workers.
 * Return: 0 or -errno
 */
int conf_child_start(int argc, char **argv)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (!pid) {
		close(sv[0]);
		conf_child_serve(sv[1], argc, argv);
	}
	close(sv[1]);
	conf_child_fd = sv[0];
	conf_child_pid = pid;
	return 0;
}

/**
 * conf_child_read() - the whole reply, within the deadline
 * @fd:		socket
 * @buf:	reply
 * @len:	its size
 * @deadline:	CLOCK_MONOTONIC nanoseconds
 * Return: 0, -ETIMEDOUT or -errno (-EPIPE: the child is gone)
 */
static int conf_child_read(int fd, void *buf, size_t len, uint64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char *p = buf;
	ssize_t n;

	while (len) {
		struct timespec ts;
		uint64_t now;
		int rc;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ULL +
		      (uint64_t)ts.tv_nsec;
		if (now >= deadline)
			return -ETIMEDOUT;
		rc = poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1));
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc < 0)
			return -errno;
		if (!rc)
			continue;
		n = read(fd, p, len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/**
 * conf_child_check() - the reply's configuration is well formed
 * @c:		configuration read from the child
 * Return: NULL, or what is wrong
 */
static const char *conf_child_check(struct conf *c)
{
	unsigned int i;

	if (c->nports > CONF_PORTS_MAX || c->workers < 1 ||
	    c->ncpus > CONF_CPUS_MAX)
		return "counts out of range";
	if (c->nports < 64 && c->from_file >> c->nports)
		return "file ports past the last port";
	for (i = 0; i < c->nports; i++) {
		struct port_spec *s = &c->ports[i];

		if (!memchr(s->type, '\0', sizeof(s->type)) ||
		    !memchr(s->name, '\0', sizeof(s->name)) ||
		    !port_ops_find(s->type))
			return "a port of no known type";
	}
	if (!memchr(c->ctl_path, '\0', sizeof(c->ctl_path)) ||
	    !memchr(c->state_path, '\0', sizeof(c->state_path)) ||
	    !memchr(c->config_path, '\0', sizeof(c->config_path)))
		return "an unterminated path";
	return NULL;
}

/**
 * conf_child_retire() - no more reloads: the child failed us
 */
static void conf_child_retire(void)
{
	if (conf_child_fd >= 0)
		close(conf_child_fd);
	conf_child_fd = -1;
}

/**
 * conf_child_parse() - the configuration as it reads now
 * @out:	result, on success
 * @err:	the message on failure: conf_parse()'s (with its "vhostd: "
 *		and FILE:LINE), or why there is no answer
 * @errlen:	size of @err
 *
 * Context: control thread; blocks up to CONF_CHILD_TIMEOUT_MS.
 * Return: 0, -EINVAL (the configuration does not parse), -ECHILD (no
 *	   parsing process any more), -ETIMEDOUT or -EPROTO (retired now)
 */
int conf_child_parse(struct conf *out, char *err, size_t errlen)
{
	static struct conf_reply r;
	struct timespec ts;
	uint64_t deadline;
	const char *why;
	char req = 'p';
	int rc;

	if (conf_child_fd < 0) {
		snprintf(err, errlen, "no configuration process (it failed "
			 "an earlier reload, or vhostd runs without --config): "
			 "restart vhostd");
		return -ECHILD;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	deadline = (uint64_t)ts.tv_sec * 1000000000ULL +
		   (uint64_t)ts.tv_nsec +
		   CONF_CHILD_TIMEOUT_MS * 1000000ULL;
	rc = conf_child_write(conf_child_fd, &req, 1);
	if (!rc)
		rc = conf_child_read(conf_child_fd, &r, sizeof(r), deadline);
	if (rc < 0) {
		snprintf(err, errlen, "the configuration process (pid %d) %s",
			 (int)conf_child_pid, rc == -ETIMEDOUT ?
			 "did not answer in time" : "is gone");
		conf_child_retire();
		return rc == -ETIMEDOUT ? rc : -ECHILD;
	}
	r.err[sizeof(r.err) - 1] = '\0';
	if (r.rc == -EINVAL) {
		snprintf(err, errlen, "%s", r.err);
		return -EINVAL;
	}
	why = r.rc ? "not a configuration (--help or --version)" :
		     conf_child_check(&r.conf);
	if (why) {
		snprintf(err, errlen, "the configuration process answered "
			 "nonsense: %s", why);
		conf_child_retire();
		return -EPROTO;
	}
	memcpy(out, &r.conf, sizeof(*out));
	return 0;
}

/**
 * conf_child_stop() - close the socket: the child exits
 */
void conf_child_stop(void)
{
	conf_child_retire();
}
