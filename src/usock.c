// SPDX-License-Identifier: GPL-2.0-or-later
/* usock.c - unix sockets vhostd listens on: file mode, owner and group,
 *	     and the peer-credential allow-list checked at accept
 *
 * Who may connect is decided twice.  The file system first: connect()
 * needs write permission on the socket file, so mode=, owner= and group=
 * (e.g. owner=libvirt-qemu,mode=0600) keep everyone else out.  Then, if
 * the socket has an allow-list, the kernel's record of the peer
 * (SO_PEERCRED: uid and gid as of connect(); SO_PEERGROUPS: its
 * supplementary groups) must name an allowed uid or gid: a second line
 * for sockets in directories whose permissions vhostd does not control.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "usock.h"
#include "util.h"

#ifndef SO_PEERGROUPS
#define SO_PEERGROUPS	59	/* Linux 4.13 */
#endif

/* Supplementary groups of a peer looked at; a peer in more is judged
 * by the groups that fit (the kernel then returns ERANGE and none: such
 * a peer is admitted by uid or primary gid only).
 */
#define USOCK_PEER_GROUPS	256

/**
 * usock_bind() - bind to @path with mode=, then owner= and group=
 * @fd:		AF_UNIX socket, not yet bound
 * @path:	file system path, shorter than sun_path
 * @s:		the socket's keys
 *
 * The file is created with exactly @s->mode (the umask is set to its
 * complement for the call), then handed to owner= and group= with
 * lchown() semantics: a symlink put in its place meanwhile is not
 * followed.  The caller listen()s after: nobody can connect before, so
 * no peer ever sees wider permissions than asked for.
 *
 * Return: 0, or -errno (the file is removed again)
 * Context: start-up (the umask is process-wide)
 */
int usock_bind(int fd, const char *path, const struct usock_acl *s)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int rc = 0;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	old = umask(~s->mode & 0777);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		rc = -errno;
	umask(old);
	if (rc)
		return rc;
	/* A default ACL on the directory overrides the umask. */
	if (!lstat(path, &st) && S_ISSOCK(st.st_mode) &&
	    (st.st_mode & 0777) != s->mode && chmod(path, s->mode) < 0)
		rc = -errno;
	/* USOCK_ID_NONE is (uid_t)-1: "leave it" to chown. */
	if (!rc && (s->uid != USOCK_ID_NONE || s->gid != USOCK_ID_NONE) &&
	    fchownat(AT_FDCWD, path, s->uid, s->gid, AT_SYMLINK_NOFOLLOW) < 0)
		rc = -errno;
	if (rc)
		unlink(path);
	return rc;
}

/**
 * usock_has_acl() - whether a socket checks its peers' credentials
 * @s:		the socket's keys
 * Return: true with an allow-uid= or allow-gid= list
 */
bool usock_has_acl(const struct usock_acl *s)
{
	return s->n_uid || s->n_gid;
}

/**
 * usock_id_in() - whether @id is one of @n ids
 * @ids:	list
 * @n:		its length
 * @id:		id looked for
 * Return: true if listed
 */
static bool usock_id_in(const uint32_t *ids, unsigned int n, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/**
 * usock_peer_ok() - whether the peer of @fd may use this socket
 * @fd:		accepted connection
 * @s:		the listening socket's keys
 * @peer:	filled with the peer's pid, uid and gid (zeros if the kernel
 *		does not say)
 *
 * With no allow-list every peer is admitted (the file mode already
 * decided).  Else the peer's uid must be in allow-uid=, or its gid or one
 * of its supplementary groups in allow-gid=.  Credentials are the
 * kernel's record of the peer at connect(), not anything it sends: a
 * peer cannot forge them.  Unknown credentials are refused.
 *
 * Return: true to serve the peer
 */
bool usock_peer_ok(int fd, const struct usock_acl *s, struct usock_peer *peer)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	uint32_t groups[USOCK_PEER_GROUPS];
	unsigned int i;

	memset(peer, 0, sizeof(*peer));
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 ||
	    len != sizeof(cr))
		return !usock_has_acl(s);
	peer->pid = cr.pid;
	peer->uid = cr.uid;
	peer->gid = cr.gid;
	if (!usock_has_acl(s))
		return true;
	if (usock_id_in(s->allow_uid, s->n_uid, cr.uid) ||
	    usock_id_in(s->allow_gid, s->n_gid, cr.gid))
		return true;
	if (!s->n_gid)
		return false;
	len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) < 0)
		return false;
	for (i = 0; i < len / sizeof(groups[0]); i++)
		if (usock_id_in(s->allow_gid, s->n_gid, groups[i]))
			return true;
	return false;
}
