// SPDX-License-Identifier: GPL-2.0-or-later
/* main.c - vhostd: start-up, the control thread, shutdown
 *
 * Start-up is the only place allowed to die(): a bad command line exits 2
 * with one line on stderr, a port that cannot be created exits 1.  It
 * ends with main_lockdown(): --user, capabilities, no_new_privs and the
 * seccomp filter, before the workers start.  After that the control
 * thread runs the event loop until SIGINT/SIGTERM, and nothing a guest,
 * front end or ctl client sends can end the process.  SIGHUP reloads the
 * --config file's ports (reload.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "conf.h"
#include "ctl.h"
#include "efd.h"
#include "evloop.h"
#include "log.h"
#include "metrics.h"
#include "port/tap_steer.h"
#include "priv.h"
#include "reload.h"
#include "sandbox.h"
#include "state.h"
#include "switch.h"
#include "vhost/vu_dev.h"
#include "pollwin.h"
#include "worker.h"

static struct conf conf;
static int main_argc;
static char **main_argv;

static bool main_state;	/* --state file open */

/**
 * main_reload() - SIGHUP: the --config file again, the outcome logged
 */
static void main_reload(void)
{
	static struct reload_result r;
	int rc = reload_run(&r);

	if (rc == -EINVAL) {
		err("%s", r.err);
		return;
	}
	if (rc < 0)
		warn("%s", r.err);
	info("reload: %u added, %u removed, %u re-created, %u unchanged%s",
	     r.n[RELOAD_ADDED], r.n[RELOAD_REMOVED], r.n[RELOAD_CHANGED],
	     r.unchanged, rc < 0 ? ", some failed" : "");
}

/**
 * main_on_signal() - SIGINT/SIGTERM: leave the event loop; SIGHUP: reload
 * @opaque:	unused
 * @fd:		signalfd
 * @events:	unused
 */
static void main_on_signal(void *opaque, int fd, uint32_t events)
{
	struct signalfd_siginfo si;

	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return;
	if (si.ssi_signo == SIGHUP) {
		info("signal %u (SIGHUP): reloading %s", si.ssi_signo,
		     *conf.config_path ? conf.config_path : "nothing");
		main_reload();
		return;
	}
	info("signal %u, shutting down", si.ssi_signo);
	evloop_stop();
}

/**
 * main_on_timer() - once a second: FDB ageing, port housekeeping; the
 *		     state file every STATE_PERIOD_S
 * @opaque:	unused
 * @fd:		timerfd
 * @events:	unused
 */
static void main_on_timer(void *opaque, int fd, uint32_t events)
{
	static unsigned int ticks;
	uint64_t expired;
	int rc;

	if (read(fd, &expired, sizeof(expired)) != sizeof(expired))
		return;
	switch_timer();
	if (main_state && !(++ticks % STATE_PERIOD_S)) {
		rc = state_save();
		if (rc < 0)
			debug("state: cannot save: %s", strerror(-rc));
	}
}

/**
 * main_on_ctl() - a ctl client is connecting
 * @opaque:	unused
 * @fd:		listening ctl socket
 * @events:	unused
 */
static void main_on_ctl(void *opaque, int fd, uint32_t events)
{
	ctl_handle(fd);
}

/**
 * main_setup_signals() - route SIGINT/SIGTERM through a signalfd
 * Return: the signalfd
 */
static int main_setup_signals(void)
{
	sigset_t set;
	int fd;

	/* A front end that vanishes mid-reply must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	if (pthread_sigmask(SIG_BLOCK, &set, NULL))
		die("cannot block signals");
	fd = signalfd(-1, &set, SFD_CLOEXEC);
	if (fd < 0 || evloop_add(fd, EPOLLIN, main_on_signal, NULL) < 0)
		die("signalfd: %s", strerror(errno));
	return fd;
}

/**
 * main_setup_timer() - the control thread's one-second tick
 * Return: the timerfd
 */
static int main_setup_timer(void)
{
	struct itimerspec its = {
		.it_interval = { .tv_sec = 1 },
		.it_value = { .tv_sec = 1 },
	};
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);

	if (fd < 0 || timerfd_settime(fd, 0, &its, NULL) < 0 ||
	    evloop_add(fd, EPOLLIN, main_on_timer, NULL) < 0)
		die("timerfd: %s", strerror(errno));
	return fd;
}

/**
 * main_check_cpus() - every --cpus CPU must be one we may run on
 * @c:		configuration
 *
 * A worker pins itself once it runs (worker.c), after the seccomp filter
 * is on, where a bad CPU could only be a warning; checked here against
 * our affinity (taskset, cgroup cpusets) it is a start-up error with
 * exit status 2, like any other bad option.
 */
static void main_check_cpus(const struct conf *c)
{
	cpu_set_t set;
	unsigned int i;

	if (!c->ncpus)
		return;
	if (sched_getaffinity(0, sizeof(set), &set) < 0) {
		err("--cpus: cannot read our CPU affinity: %s",
		    strerror(errno));
		exit(2);
	}
	for (i = 0; i < c->ncpus; i++) {
		if (!CPU_ISSET(c->cpus[i], &set)) {
			err("--cpus: CPU %u is not one vhostd may run on "
			    "(%d allowed)", c->cpus[i], CPU_COUNT(&set));
			exit(2);
		}
	}
	if (c->ncpus > c->workers)
		info("--cpus: %u CPUs for %u worker(s): CPUs past the first "
		     "%u are not used", c->ncpus, c->workers, c->workers);
}

/**
 * main_config_child() - the process that parses --config for a reload
 *
 * It reads the file as the user vhostd now runs as: one it cannot read
 * is said now, at start-up, rather than at the first reload.
 */
static void main_config_child(void)
{
	static struct conf probe;
	char msg[1024];
	int rc = conf_child_start(main_argc, main_argv);

	if (rc < 0) {
		warn("--config: no process to re-read %s (%s): reloads will "
		     "fail", conf.config_path, strerror(-rc));
		return;
	}
	rc = conf_child_parse(&probe, msg, sizeof(msg));
	if (rc < 0)
		warn("--config: a reload as uid %u would fail now: %s",
		     (unsigned int)getuid(), msg);
}

/**
 * main_lockdown() - start-up is over: give up what running does not need
 *
 * Every port's timer runs once first, so that what one port sets up for
 * the others while it still may is in place: a TAP attaches a tun queue
 * for each guest port (privileged), so none is attached later.  Then
 * priv_drop() (--user, capabilities, no_new_privs) and the seccomp
 * filter, before the workers start: they inherit both.  The HTTP
 * thread of --metrics starts in between: it inherits the dropped
 * privileges, the filter reaches it by TSYNC, and what it needs to
 * start (its epoll set, its eventfd, the thread) is made unfiltered.
 */
static void main_lockdown(void)
{
	int rc;

	switch_timer();
	priv_drop(tap_steer_maps() > 0);
	if (*conf.config_path)
		main_config_child();
	/* After the fork: the parsing process is made while the only
	 * threads are ours (it closes the metrics socket it inherits).
	 */
	rc = metrics_start();
	if (rc < 0)
		die("--metrics: cannot start the HTTP server: %s",
		    strerror(-rc));
	if (conf.no_sandbox) {
		warn("--no-sandbox: running without the seccomp filter");
		return;
	}
	rc = sandbox_install();
	if (rc < 0)
		die("seccomp: cannot install the filter: %s", strerror(-rc));
}

/**
 * main_addr_str() - "IPV4:PORT" or "[IPV6]:PORT", for log lines
 * @a:		address
 * @out:	text
 * @size:	its size
 */
static void main_addr_str(const union port_addr *a, char *out, size_t size)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (a->sa.sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &a->in6.sin6_addr, host, sizeof(host));
		snprintf(out, size, "[%s]:%u", host, ntohs(a->in6.sin6_port));
	} else {
		inet_ntop(AF_INET, &a->in4.sin_addr, host, sizeof(host));
		snprintf(out, size, "%s:%u", host, ntohs(a->in4.sin_port));
	}
}

int main(int argc, char **argv)
{
	char errbuf[256];
	int sig_fd, timer_fd, ctl_fd = -1;
	unsigned int i;
	int rc;

	main_argc = argc;
	main_argv = argv;
	rc = conf_parse(argc, argv, &conf, errbuf, sizeof(errbuf));
	if (rc > 0)
		return 0;
	if (rc < 0) {
		fprintf(stderr, "%s\n", errbuf);
		return 2;
	}
	log_set_level((enum log_level)conf_log_level(&conf));
	rc = log_open((enum log_sink)conf.log_sink);
	if (rc < 0)
		warn("--log %s: %s: logging to stderr",
		     log_sink_name((enum log_sink)conf.log_sink),
		     strerror(-rc));
	priv_init(&conf.user);	/* --user is possible, or exit 2 now */

	/* Workers inherit the blocked signal mask: only the control
	 * thread's signalfd sees SIGINT/SIGTERM.
	 */
	if (evloop_init() < 0)
		die("epoll: %s", strerror(errno));
	sig_fd = main_setup_signals();
	/* Before any port maps guest memory: a front end that shrinks a
	 * file behind it breaks its own device, not vhostd.
	 */
	rc = vu_dev_fault_init();
	if (rc < 0)
		die("SIGBUS handler: %s", strerror(-rc));
	/* No write to a front end's eventfd may hold a thread for long. */
	rc = efd_watchdog_start();
	if (rc < 0 || (rc = efd_watch_thread()) < 0)
		die("eventfd watchdog: %s", strerror(-rc));
	switch_init(conf.fdb_age_s);
	main_check_cpus(&conf);
	rc = worker_init(conf.workers, conf.poll_us, conf.latency_us, conf.cpus,
			 conf.ncpus);
	if (rc < 0)
		die("cannot create workers: %s", strerror(-rc));

	for (i = 0; i < conf.nports; i++) {
		rc = switch_port_add(&conf.ports[i]);
		if (rc < 0) {
			err("port %s (%s): %s", conf.ports[i].name,
			    conf.ports[i].type, strerror(-rc));
			switch_fini();
			return 1;
		}
	}

	reload_init(&conf);

	/* Before the lockdown, which closes open(); before any traffic. */
	if (conf.state_path[0]) {
		rc = state_open(conf.state_path);
		if (rc < 0) {
			warn("state: %s: %s: running without", conf.state_path,
			     rc == -EPERM ? "not a regular file of ours "
			     "alone" : strerror(-rc));
		} else {
			main_state = true;
			state_restore();
		}
	}

	if (conf.ctl_path[0]) {
		ctl_fd = ctl_open(conf.ctl_path, &conf.ctl_sock);
		if (ctl_fd < 0 ||
		    evloop_add(ctl_fd, EPOLLIN, main_on_ctl, NULL) < 0) {
			err("ctl socket %s: %s", conf.ctl_path,
			    strerror(ctl_fd < 0 ? -ctl_fd : ENOSPC));
			switch_fini();
			return 1;
		}
	}
	/* Bound and listening as root, before the drop; served after it. */
	if (conf.metrics.sa.sa_family != AF_UNSPEC) {
		char addr[64];

		rc = metrics_open(&conf.metrics);
		main_addr_str(&conf.metrics, addr, sizeof(addr));
		if (rc < 0) {
			err("--metrics %s: %s", addr, strerror(-rc));
			switch_fini();
			return 1;
		}
		info("metrics: serving http://%s/metrics", addr);
	}
	timer_fd = main_setup_timer();
	main_lockdown();

	rc = worker_start();
	if (rc < 0)
		die("cannot start workers: %s", strerror(-rc));
	if (conf.poll_us == CONF_POLL_AUTO)
		info("running: %u port(s), %u worker(s), polling auto "
		     "(latency target %u us, a wake-up costs %u ns here)",
		     conf.nports, conf.workers, conf.latency_us, pw_wake_ns());
	else
		info("running: %u port(s), %u worker(s), poll %d us",
		     conf.nports, conf.workers, conf.poll_us);

	rc = evloop_run();
	if (rc < 0)
		err("event loop: %s", strerror(-rc));

	metrics_close();
	conf_child_stop();
	worker_stop();
	if (main_state)
		state_close();	/* the final counts */
	switch_fini();
	efd_watchdog_stop();
	if (ctl_fd >= 0)
		ctl_close(ctl_fd, conf.ctl_path);
	close(timer_fd);
	close(sig_fd);
	evloop_fini();
	return rc < 0 ? 1 : 0;
}
