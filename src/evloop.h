/* SPDX-License-Identifier: GPL-2.0-or-later */
/* evloop.h - the control thread's epoll loop
 *
 * Everything slow or untrusted-but-rare runs here: listening sockets,
 * vhost-user connections, the ctl socket, the once-a-second timer,
 * signals.  A registration is a slot in a fixed table holding a callback
 * and its argument; the epoll cookie is the slot index.  Callbacks rather
 * than one central switch on a type let lower layers (ports) register
 * their own fds without main.c knowing their types (see
 * doc/architecture.md, "Deviations from DESIGN.md").
 */
#ifndef VHOSTD_EVLOOP_H
#define VHOSTD_EVLOOP_H

#include <stdint.h>

#define EVLOOP_SLOTS	256

/**
 * typedef evloop_fn - handler of a ready fd
 * @opaque:	what was registered with it
 * @fd:		the fd
 * @events:	EPOLL* bits
 */
typedef void (*evloop_fn)(void *opaque, int fd, uint32_t events);

int evloop_init(void);
int evloop_add(int fd, uint32_t events, evloop_fn fn, void *opaque);
int evloop_del(int fd);
int evloop_run(void);
void evloop_stop(void);
void evloop_fini(void);

#endif /* VHOSTD_EVLOOP_H */
