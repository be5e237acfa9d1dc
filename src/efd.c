// SPDX-License-Identifier: GPL-2.0-or-later
/* efd.c - a front end's eventfds: checked on arrival, never waited on
 *
 * DOC: Theory of Operation
 *
 * Kick, call and error fds come from the front end, and so does their
 * open file description: the front end still holds it and may set or
 * clear O_NONBLOCK on it at any time (the flags live in the description,
 * shared by every holder), fill its counter, or read it empty.  Any read
 * or write of ours that could sleep is a way for one guest to stop a
 * worker, and with it every port on that worker.  So:
 *
 * - Only eventfds are taken (efd_check()): /proc/self/fd/N must read
 *   "anon_inode:[eventfd]".  A pipe or socket could block or misbehave in
 *   ways an eventfd cannot.  Where /proc is missing, the fd must at least
 *   sit on the anonymous inode our own eventfds sit on (the kernel's
 *   other anonymous-inode files refuse an 8-byte write with EINVAL).
 * - Kick fds are never read: workers watch them edge-triggered
 *   (PORT_SRC_KICK, worker_src_add()), so a counter nobody drains is no
 *   problem.
 * - Call and error fds are written by efd_signal(), outside any queue
 *   lock (vu_queue_call_take()/_give()).  We set O_NONBLOCK on arrival;
 *   then a full counter gives EAGAIN, which means "an interrupt is
 *   pending" and is fine.  If the front end clears O_NONBLOCK and fills
 *   the counter, the write sleeps: each watched thread marks the span of
 *   its write with an odd sequence number, and the watchdog thread,
 *   every EFD_WATCH_MS, signals (EFD_SIG, a handler that does nothing,
 *   no SA_RESTART) a thread it finds in the same write twice running.
 *   The write returns EINTR, efd_signal() says -ETIMEDOUT, and the caller
 *   drops that front end.  A worker is held up for at most
 *   2 * EFD_WATCH_MS, and once per port: its device then sends every
 *   later interrupt through the slow lane (efd_signal_later()), a thread
 *   of its own that writes a dup() of the fd, under the same watchdog.
 *   Whatever a front end does to its fds there, it delays only the other
 *   front ends that did the same.
 *
 * A signal sent just as the write completes on its own lands on
 * whatever the thread does next: every sleeping call on the control
 * thread and the workers retries on EINTR (evloop, epoll_wait(), the
 * vhost-user socket, ctl's poll()).  The write must have been stuck for
 * EFD_WATCH_MS first, so that takes a front end that blocks it anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "efd.h"

#define EFD_SIG		(SIGRTMIN + 2)
#define EFD_LINK	"anon_inode:[eventfd]"

/**
 * struct efd_guard - one watched thread
 * @thread:	its handle, for pthread_kill()
 * @seq:	odd while it is inside a write, bumped on entry and exit
 * @seen:	@seq at the watchdog's last look (watchdog only)
 * @ready:	@thread is set
 */
struct efd_guard {
	pthread_t thread;
	unsigned long seq;
	unsigned long seen;
	bool ready;
} __attribute__((aligned(64)));

static struct efd_guard efd_guards[EFD_THREADS_MAX];
static unsigned int efd_nguards;
static __thread struct efd_guard *efd_self;
static uint64_t efd_stall_n;

static pthread_t efd_thread;
static bool efd_running;
static int efd_stop_fd = -1;	/* the slow lane stops */
static int efd_dog_fd = -1;	/* the watchdog stops, after the lane */

/* The slow lane: dup()s of call fds whose front end once blocked one. */
#define EFD_LANE_MAX	256
static pthread_t efd_lane_thread;
static pthread_mutex_t efd_lane_lock = PTHREAD_MUTEX_INITIALIZER;
static int efd_lane[EFD_LANE_MAX];
static unsigned int efd_lane_head, efd_lane_len;
static int efd_lane_wake = -1;
static uint64_t efd_lane_drop_n;
static int efd_ref_fd = -1;	/* one of ours: where eventfds' inode is */

/**
 * efd_ref() - our own eventfd, made once (before the sandbox, by
 *	       efd_watchdog_start(), or on first use)
 * Return: its fd, or -1
 */
static int efd_ref(void)
{
	int fd = __atomic_load_n(&efd_ref_fd, __ATOMIC_ACQUIRE);
	int expected = -1;

	if (fd >= 0)
		return fd;
	fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fd < 0)
		return -1;
	if (!__atomic_compare_exchange_n(&efd_ref_fd, &expected, fd, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		close(fd);
		return expected;
	}
	return fd;
}

/**
 * efd_check() - whether a front end's fd is an eventfd; make it
 *		 non-blocking
 * @fd:		descriptor
 * @what:	out: what @fd is when refused ("pipe:[1234]", a path...),
 *		printable; may be NULL
 * @len:	size of @what
 *
 * Return: 0; -EBADF if @fd is not open; -EINVAL if it is something else
 *	   (a pipe, a socket, a file...); -errno if its flags cannot be set
 */
int efd_check(int fd, char *what, size_t len)
{
	char path[32], link[64] = "unknown";
	struct stat st, ref;
	ssize_t n, i;
	int fl, r;

	if (what && len)
		snprintf(what, len, "not open");
	if (fd < 0 || fstat(fd, &st) < 0)
		return -EBADF;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n >= 0) {
		link[n] = '\0';
		for (i = 0; i < n; i++)	/* the peer named it: keep logs clean */
			if (link[i] < 0x20 || link[i] > 0x7e)
				link[i] = '?';
		r = strcmp(link, EFD_LINK) ? -EINVAL : 0;
	} else {
		/* No /proc: at least the eventfds' anonymous inode. */
		r = efd_ref();
		r = r < 0 || fstat(r, &ref) < 0 || st.st_dev != ref.st_dev ||
		    st.st_ino != ref.st_ino ? -EINVAL : 0;
	}
	if (r < 0) {
		if (what && len)
			snprintf(what, len, "%s", link);
		return r;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || (!(fl & O_NONBLOCK) &&
		       fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0))
		return -errno;
	return 0;
}

/**
 * efd_signal() - add one to an eventfd, never for long
 * @fd:		eventfd (efd_check() passed)
 *
 * Return: 0 when signalled or the counter is full; -ETIMEDOUT if the
 *	   write blocked and was broken off; -errno on other errors
 */
int efd_signal(int fd)
{
	struct efd_guard *g = efd_self;
	uint64_t one = 1;
	ssize_t n;
	int rc = 0;

	if (g)
		__atomic_store_n(&g->seq, g->seq + 1, __ATOMIC_RELEASE);
	n = write(fd, &one, sizeof(one));
	if (n < 0) {
		/* A non-blocking eventfd never sleeps, so never says EINTR. */
		if (errno == EINTR)
			rc = -ETIMEDOUT;
		else if (errno != EAGAIN)
			rc = -errno;
	} else if (n != sizeof(one)) {
		rc = -EIO;
	}
	if (g)
		__atomic_store_n(&g->seq, g->seq + 1, __ATOMIC_RELEASE);
	if (rc == -ETIMEDOUT)
		__atomic_fetch_add(&efd_stall_n, 1, __ATOMIC_RELAXED);
	return rc;
}

/**
 * efd_signal_later() - have the slow lane add one to an eventfd
 * @fd:		eventfd (efd_check() passed); still the caller's
 *
 * Return: 0 when queued; -ENOBUFS if the lane is full (the interrupt is
 *	   lost, counted), -ENOTCONN if it is not running, or -errno
 */
int efd_signal_later(int fd)
{
	int d;

	if (efd_lane_wake < 0)
		return -ENOTCONN;
	d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (d < 0)
		return -errno;
	pthread_mutex_lock(&efd_lane_lock);
	if (efd_lane_len == EFD_LANE_MAX) {
		pthread_mutex_unlock(&efd_lane_lock);
		close(d);
		__atomic_fetch_add(&efd_lane_drop_n, 1, __ATOMIC_RELAXED);
		return -ENOBUFS;
	}
	efd_lane[(efd_lane_head + efd_lane_len++) % EFD_LANE_MAX] = d;
	pthread_mutex_unlock(&efd_lane_lock);
	/* Ours, non-blocking: a full counter still wakes the lane. */
	if (eventfd_write(efd_lane_wake, 1) < 0 && errno != EAGAIN)
		return -errno;
	return 0;
}

/**
 * efd_lane_run() - thread body: the slow lane's writes
 * @arg:	unused
 * Return: NULL
 */
static void *efd_lane_run(void *arg)
{
	struct pollfd pfd[2] = {
		{ .fd = efd_stop_fd, .events = POLLIN },
		{ .fd = efd_lane_wake, .events = POLLIN },
	};
	eventfd_t v;

	(void)arg;
	efd_watch_thread();
	for (;;) {
		int fd;

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			return NULL;
		if (pfd[0].revents)
			break;
		if (eventfd_read(efd_lane_wake, &v) < 0 && errno != EAGAIN)
			return NULL;
		for (;;) {
			pthread_mutex_lock(&efd_lane_lock);
			if (!efd_lane_len) {
				pthread_mutex_unlock(&efd_lane_lock);
				break;
			}
			fd = efd_lane[efd_lane_head];
			efd_lane_head = (efd_lane_head + 1) % EFD_LANE_MAX;
			efd_lane_len--;
			pthread_mutex_unlock(&efd_lane_lock);
			efd_signal(fd);	/* -ETIMEDOUT: counted there */
			close(fd);
		}
	}
	/* Stopping: whatever is left goes unsent. */
	pthread_mutex_lock(&efd_lane_lock);
	while (efd_lane_len) {
		close(efd_lane[efd_lane_head]);
		efd_lane_head = (efd_lane_head + 1) % EFD_LANE_MAX;
		efd_lane_len--;
	}
	pthread_mutex_unlock(&efd_lane_lock);
	return NULL;
}

/**
 * efd_lane_drops() - interrupts the slow lane had no room for
 * Return: the count since start
 */
uint64_t efd_lane_drops(void)
{
	return __atomic_load_n(&efd_lane_drop_n, __ATOMIC_RELAXED);
}

/**
 * efd_stalls() - writes the watchdog broke off
 * Return: the count since start
 */
uint64_t efd_stalls(void)
{
	return __atomic_load_n(&efd_stall_n, __ATOMIC_RELAXED);
}

/**
 * efd_watch_thread() - put the calling thread under the watchdog
 *
 * Return: 0, or -ENOSPC if EFD_THREADS_MAX threads are watched already
 */
int efd_watch_thread(void)
{
	unsigned int i;

	if (efd_self)
		return 0;
	i = __atomic_fetch_add(&efd_nguards, 1, __ATOMIC_ACQ_REL);
	if (i >= EFD_THREADS_MAX)
		return -ENOSPC;
	efd_guards[i].thread = pthread_self();
	__atomic_store_n(&efd_guards[i].ready, true, __ATOMIC_RELEASE);
	efd_self = &efd_guards[i];
	return 0;
}

/**
 * efd_on_signal() - EFD_SIG: nothing to do, the interrupted write returns
 * @sig:	EFD_SIG
 */
static void efd_on_signal(int sig)
{
	(void)sig;
}

/**
 * efd_watchdog() - thread body: break off writes stuck for a whole period
 * @arg:	unused
 * Return: NULL
 */
static void *efd_watchdog(void *arg)
{
	struct pollfd pfd = { .fd = efd_dog_fd, .events = POLLIN };
	unsigned int i, n;

	(void)arg;
	for (;;) {
		if (poll(&pfd, 1, EFD_WATCH_MS) > 0)
			return NULL;
		n = __atomic_load_n(&efd_nguards, __ATOMIC_ACQUIRE);
		if (n > EFD_THREADS_MAX)
			n = EFD_THREADS_MAX;
		for (i = 0; i < n; i++) {
			struct efd_guard *g = &efd_guards[i];
			unsigned long s;

			if (!__atomic_load_n(&g->ready, __ATOMIC_ACQUIRE))
				continue;
			s = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
			/* Again each period: a signal that came just before
			 * the write began was lost on it.
			 */
			if ((s & 1) && s == g->seen)
				pthread_kill(g->thread, EFD_SIG);
			g->seen = s;
		}
	}
}

/**
 * efd_watchdog_start() - install EFD_SIG's handler, start the watchdog
 *
 * Return: 0 or -errno
 * Context: start-up, before the workers and the sandbox
 */
int efd_watchdog_start(void)
{
	struct sigaction sa;
	int rc;

	if (efd_running)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = efd_on_signal;
	sigfillset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: the write must end */
	if (sigaction(EFD_SIG, &sa, NULL) < 0)
		return -errno;
	if (efd_ref() < 0)
		return -errno;
	efd_stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	efd_dog_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	efd_lane_wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (efd_stop_fd < 0 || efd_dog_fd < 0 || efd_lane_wake < 0) {
		rc = errno;
		goto fail;
	}
	rc = pthread_create(&efd_thread, NULL, efd_watchdog, NULL);
	if (rc)
		goto fail;
	rc = pthread_create(&efd_lane_thread, NULL, efd_lane_run, NULL);
	if (rc) {
		eventfd_write(efd_dog_fd, 1);
		pthread_join(efd_thread, NULL);
		goto fail;
	}
	efd_running = true;
	return 0;
fail:
	if (efd_stop_fd >= 0)
		close(efd_stop_fd);
	if (efd_dog_fd >= 0)
		close(efd_dog_fd);
	if (efd_lane_wake >= 0)
		close(efd_lane_wake);
	efd_stop_fd = efd_dog_fd = efd_lane_wake = -1;
	return -rc;
}

/**
 * efd_watchdog_stop() - stop and join the watchdog
 * Context: shutdown, after the workers stopped
 */
void efd_watchdog_stop(void)
{
	if (!efd_running)
		return;
	/* The lane first: a write of its that blocks on a front end's
	 * full eventfd ends only when the watchdog breaks it, so the
	 * watchdog must outlive the lane.
	 */
	if (eventfd_write(efd_stop_fd, 1) == 0)
		pthread_join(efd_lane_thread, NULL);
	if (eventfd_write(efd_dog_fd, 1) == 0)
		pthread_join(efd_thread, NULL);
	close(efd_stop_fd);
	close(efd_dog_fd);
	close(efd_lane_wake);
	efd_stop_fd = efd_dog_fd = efd_lane_wake = -1;
	efd_running = false;
}
