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

#define USOCK_ALLOW_MAX	16		/* ids in one allow-uid= / allow-gid= */
#define USOCK_ID_NONE	UINT32_MAX	/* owner= / group= not given */
#define USOCK_MODE_DEFAULT	0660

/**
 * struct usock_acl - who may reach a unix socket vhostd listens on
 *		(the owner=, group=, mode=, allow-uid=, allow-gid= keys)
 * @uid:	owner= (USOCK_ID_NONE: vhostd's own, as created)
 * @gid:	group= (USOCK_ID_NONE: vhostd's own, as created)
 * @mode:	mode= permission bits (default USOCK_MODE_DEFAULT)
 * @n_uid:	ids in @allow_uid
 * @allow_uid:	allow-uid=: SO_PEERCRED uids accepted
 * @n_gid:	ids in @allow_gid
 * @allow_gid:	allow-gid=: SO_PEERCRED gids accepted; with both lists
 *		empty any peer the file mode lets in is accepted, else a
 *		peer whose uid or gid is listed
 */
struct usock_acl {
	uint32_t uid;
	uint32_t gid;
	unsigned int mode;
	unsigned int n_uid;
	uint32_t allow_uid[USOCK_ALLOW_MAX];
	unsigned int n_gid;
	uint32_t allow_gid[USOCK_ALLOW_MAX];
};

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
int usock_bind(int fd, const char *path, const struct usock_acl *s);
bool usock_peer_ok(int fd, const struct usock_acl *s, struct usock_peer *peer);
bool usock_has_acl(const struct usock_acl *s);

#endif /* VHOSTD_USOCK_H */
