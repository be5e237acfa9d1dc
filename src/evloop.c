// SPDX-License-Identifier: GPL-2.0-or-later
/* evloop.c - the control thread's epoll loop
 *
 * Owns the control epoll fd and a fixed table of registrations.  Only the
 * control thread calls anything here.  A handler may delete registrations
 * (including its own) while the loop is dispatching: a slot freed during
 * a dispatch round is skipped for the rest of that round by checking the
 * generation stored alongside the cookie.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "evloop.h"
#include "log.h"
#include "util.h"

/**
 * struct evloop_slot - one registration
 * @fd:		registered fd, -1 if the slot is free
 * @gen:	bumped on every reuse, so stale events are recognised
 * @fn:		handler
 * @opaque:	handler argument
 */
struct evloop_slot {
	int fd;
	uint32_t gen;
	evloop_fn fn;
	void *opaque;
};

static int evloop_epfd = -1;
static bool evloop_stopping;
static struct evloop_slot evloop_slots[EVLOOP_SLOTS];

/**
 * evloop_init() - create the epoll instance and empty the table
 * Return: 0 or -errno
 */
int evloop_init(void)
{
	unsigned int i;

	evloop_epfd = epoll_create1(EPOLL_CLOEXEC);
	if (evloop_epfd < 0)
		return -errno;
	for (i = 0; i < EVLOOP_SLOTS; i++)
		evloop_slots[i].fd = -1;
	evloop_stopping = false;
	return 0;
}

/**
 * evloop_add() - call @fn(@opaque, @fd, events) whenever @fd is ready
 * @fd:		file descriptor
 * @events:	EPOLLIN etc.
 * @fn:		handler
 * @opaque:	handler argument
 *
 * Return: 0, -ENOSPC if the table is full, or -errno from epoll_ctl()
 * Context: control thread
 */
int evloop_add(int fd, uint32_t events, evloop_fn fn, void *opaque)
{
	struct epoll_event ev = { .events = events };
	unsigned int i;

	for (i = 0; i < EVLOOP_SLOTS; i++)
		if (evloop_slots[i].fd < 0)
			break;
	if (i == EVLOOP_SLOTS)
		return -ENOSPC;

	evloop_slots[i].gen++;
	ev.data.u64 = (uint64_t)evloop_slots[i].gen << 32 | i;
	if (epoll_ctl(evloop_epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	evloop_slots[i].fd = fd;
	evloop_slots[i].fn = fn;
	evloop_slots[i].opaque = opaque;
	return 0;
}

/**
 * evloop_del() - stop watching @fd (before the caller closes it)
 * @fd:		file descriptor given to evloop_add()
 *
 * Return: 0, or -ENOENT if @fd was not registered
 * Context: control thread
 */
int evloop_del(int fd)
{
	unsigned int i;

	for (i = 0; i < EVLOOP_SLOTS; i++) {
		if (evloop_slots[i].fd != fd)
			continue;
		epoll_ctl(evloop_epfd, EPOLL_CTL_DEL, fd, NULL);
		evloop_slots[i].fd = -1;
		evloop_slots[i].gen++;
		return 0;
	}
	return -ENOENT;
}

/**
 * evloop_run() - dispatch events until evloop_stop()
 * Return: 0 when stopped, -errno if epoll_wait() failed for good
 * Context: control thread
 */
int evloop_run(void)
{
	struct epoll_event evs[32];

	while (!evloop_stopping) {
		int n = epoll_wait(evloop_epfd, evs, ARRAY_SIZE(evs), -1);
		int i;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (i = 0; i < n && !evloop_stopping; i++) {
			uint32_t idx = (uint32_t)evs[i].data.u64;
			uint32_t gen = (uint32_t)(evs[i].data.u64 >> 32);
			struct evloop_slot *s = &evloop_slots[idx];

			/* Deleted (or deleted and reused) earlier in this
			 * round: the event belongs to an fd that is gone.
			 */
			if (s->fd < 0 || s->gen != gen)
				continue;
			s->fn(s->opaque, s->fd, evs[i].events);
		}
	}
	return 0;
}

/**
 * evloop_stop() - make evloop_run() return after the current handler
 * Context: control thread (signal handling goes through a signalfd)
 */
void evloop_stop(void)
{
	evloop_stopping = true;
}

/**
 * evloop_fini() - close the epoll instance
 */
void evloop_fini(void)
{
	if (evloop_epfd >= 0)
		close(evloop_epfd);
	evloop_epfd = -1;
}
