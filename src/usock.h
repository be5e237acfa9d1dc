/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usock.h - unix sockets vhostd listens on: who may connect
 *
 * The socket file gets its mode at bind() (under a umask that leaves
 * exactly mode=) and its owner and group right after, before listen():
 * until listen() nobody can connect, so there is no window with wider
 * permissions.  At accept, the peer's credentials (SO_PEERCRED, and
 * SO_PEERGROUPS for its supplementary groups) are checked against the
 * allow-lists; a refused peer is closed by the caller, which counts it.
 */
#ifndef VHOSTD_USOCK_H
#define VHOSTD_USOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "conf.h"

/**
 * struct usock_peer - who is on the other end of an accepted socket
 * @pid:	its pid, as of connect()
 * @uid:	its effective uid, as of connect()
 * @gid:	its effective gid, as of connect()
 */
struct usock_peer {
	int32_t pid;
	uint32_t uid;
	uint32_t gid;
};

/*
 * usock_bind()		bind @fd (AF_UNIX) to @path with @s's mode, then
 *			owner and group: 0 or -errno (nothing left at @path
 *			on error).  Start-up: changes the umask for the call.
 * usock_peer_ok()	true if @s admits the peer of connected @fd (always
 *			with no allow-list); @peer filled when known.
 * usock_has_acl()	whether @s has an allow-list at all.
 */
int usock_bind(int fd, const char *path, const struct conf_sock *s);
bool usock_peer_ok(int fd, const struct conf_sock *s, struct usock_peer *peer);
bool usock_has_acl(const struct conf_sock *s);

#endif /* VHOSTD_USOCK_H */
