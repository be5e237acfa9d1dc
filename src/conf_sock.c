// SPDX-License-Identifier: GPL-2.0-or-later
/* conf_sock.c - command-line keys for who may reach vhostd and whom it
 *		 runs as: a listening socket's owner=, group=, mode=,
 *		 allow-uid=, allow-gid=, and --user USER[:GROUP]
 *
 * Users and groups are given as names or numbers and resolved here, at
 * parse time, so that an unknown name is one line naming the option and
 * the key, before anything is created (conf.c's promise).  The lookups
 * go through NSS (getpwnam_r(), getgrnam_r()) with buffers on the stack.
 */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "util.h"

/* NSS entries larger than this are refused with a clear error. */
#define CONF_NSS_BUF	16384

static const char *const conf_sock_keys[CONF_SOCK_KEYS] = {
	"owner", "group", "mode", "allow-uid", "allow-gid",
};

enum { CONF_SOCK_OWNER, CONF_SOCK_GROUP, CONF_SOCK_MODE, CONF_SOCK_AUID,
       CONF_SOCK_AGID };

/**
 * conf_sock_err() - format a one-line error, as conf.c's conf_err()
 * @err:	buffer
 * @errlen:	its size
 * @fmt:	printf format
 * Return: -EINVAL
 */
static int __attribute__((format(printf, 3, 4)))
conf_sock_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	char *c;

	if (!err || !errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	/* It quotes the user's text: no control character, one line. */
	for (c = err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -EINVAL;
}

/**
 * conf_sock_init() - defaults for a listening socket
 * @s:		socket keys
 */
void conf_sock_init(struct usock_acl *s)
{
	memset(s, 0, sizeof(*s));
	s->uid = CONF_ID_NONE;
	s->gid = CONF_ID_NONE;
	s->mode = CONF_SOCK_MODE_DEFAULT;
}

/**
 * conf_sock_key() - whether @key is one of the socket keys
 * @key:	key of a spec item
 * Return: its index (< CONF_SOCK_KEYS), or -1
 */
int conf_sock_key(const char *key)
{
	int i;

	for (i = 0; i < CONF_SOCK_KEYS; i++)
		if (!strcmp(key, conf_sock_keys[i]))
			return i;
	return -1;
}

/**
 * conf_id_number() - a decimal id, all digits, below CONF_ID_NONE
 * @s:		text
 * @out:	the id
 * Return: true if @s is such a number
 */
static bool conf_id_number(const char *s, uint32_t *out)
{
	unsigned long v;
	const char *p;

	if (!*s || strlen(s) > 10)
		return false;
	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	v = strtoul(s, NULL, 10);
	if (v >= CONF_ID_NONE)	/* (uid_t)-1 means "unchanged" to chown */
		return false;
	*out = (uint32_t)v;
	return true;
}

/**
 * conf_lookup_user() - a user by name or number
 * @s:		name, or decimal uid
 * @uid:	its uid
 * @gid:	its primary gid (CONF_ID_NONE for a number without an entry)
 * @name:	its name ("" for a number without an entry), may be NULL
 * @namelen:	size of @name
 * Return: 0, -ENOENT (no such user) or -ENAMETOOLONG
 */
static int conf_lookup_user(const char *s, uint32_t *uid, uint32_t *gid,
			    char *name, size_t namelen)
{
	char buf[CONF_NSS_BUF];
	struct passwd pw, *res = NULL;
	uint32_t n;
	int rc;

	if (conf_id_number(s, &n)) {
		*uid = n;
		*gid = CONF_ID_NONE;
		if (name)
			*name = '\0';
		rc = getpwuid_r(n, &pw, buf, sizeof(buf), &res);
	} else {
		rc = getpwnam_r(s, &pw, buf, sizeof(buf), &res);
		if (rc == ERANGE)
			return -ENAMETOOLONG;
		if (!res)
			return -ENOENT;
	}
	if (rc == ERANGE)
		return -ENAMETOOLONG;
	if (!res)
		return 0;	/* a bare number: a uid need not exist */
	if (name && snprintf(name, namelen, "%s", pw.pw_name) >= (int)namelen)
		return -ENAMETOOLONG;
	*uid = pw.pw_uid;
	*gid = pw.pw_gid;
	return 0;
}

/**
 * conf_lookup_group() - a group by name or number
 * @s:		name, or decimal gid (need not exist)
 * @gid:	its gid
 * Return: 0, -ENOENT or -ENAMETOOLONG
 */
static int conf_lookup_group(const char *s, uint32_t *gid)
{
	char buf[CONF_NSS_BUF];
	struct group gr, *res = NULL;
	int rc;

	if (conf_id_number(s, gid))
		return 0;
	rc = getgrnam_r(s, &gr, buf, sizeof(buf), &res);
	if (rc == ERANGE)
		return -ENAMETOOLONG;
	if (rc || !res)
		return -ENOENT;
	*gid = gr.gr_gid;
	return 0;
}

/**
 * conf_sock_list() - allow-uid=A[:B...] or allow-gid=
 * @val:	colon-separated names or numbers
 * @group:	groups, not users
 * @ids:	result
 * @n:		entries written
 * @bad:	the item that failed, on error (a pointer into @copy)
 * @copy:	scratch, at least strlen(@val) + 1 bytes
 * Return: 0, -EINVAL (empty item), -E2BIG, -ENOENT, -ENAMETOOLONG
 */
static int conf_sock_list(const char *val, bool group, uint32_t *ids,
			  unsigned int *n, const char **bad, char *copy)
{
	char *item = copy, *next;
	int rc;

	strcpy(copy, val);	/* the caller sized it */
	*n = 0;
	for (; item; item = next) {
		uint32_t gid;

		next = strchr(item, ':');
		if (next)
			*next++ = '\0';
		*bad = item;
		if (!*item)
			return -EINVAL;
		if (*n >= CONF_ALLOW_MAX)
			return -E2BIG;
		rc = group ? conf_lookup_group(item, &ids[*n]) :
			     conf_lookup_user(item, &ids[*n], &gid, NULL, 0);
		if (rc)
			return rc;
		(*n)++;
	}
	return 0;
}

/**
 * conf_sock_parse() - the value of one socket key
 * @s:		socket keys being filled
 * @k:		conf_sock_key() of the key
 * @val:	its value
 * @opt:	option, for the message ("--port", "--ctl-perm")
 * @spec:	the whole spec, for the message
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL
 */
int conf_sock_parse(struct usock_acl *s, int k, const char *val,
		    const char *opt, const char *spec, char *err,
		    size_t errlen)
{
	char copy[CONF_PATH_MAX * 5];
	const char *what = conf_sock_keys[k], *bad = val;
	uint32_t gid;
	int rc;

	if (strlen(val) >= sizeof(copy))
		return conf_sock_err(err, errlen, "vhostd: %s '%s': %s value "
				     "too long", opt, spec, what);
	switch (k) {
	case CONF_SOCK_OWNER:
		rc = conf_lookup_user(val, &s->uid, &gid, NULL, 0);
		break;
	case CONF_SOCK_GROUP:
		rc = conf_lookup_group(val, &s->gid);
		break;
	case CONF_SOCK_MODE: {
		const char *p = val;
		unsigned long m;

		for (; *p >= '0' && *p <= '7'; p++)
			;
		m = strtoul(val, NULL, 8);
		/* Permission bits only: setuid/sticky mean nothing here. */
		if (*p || p - val > 4 || m > 0777)
			return conf_sock_err(err, errlen, "vhostd: %s '%s': "
					     "mode '%s' is not octal "
					     "permissions (0-0777)", opt,
					     spec, val);
		s->mode = (unsigned int)m;
		return 0;
	}
	case CONF_SOCK_AUID:
		rc = conf_sock_list(val, false, s->allow_uid, &s->n_uid, &bad,
				    copy);
		break;
	default:
		rc = conf_sock_list(val, true, s->allow_gid, &s->n_gid, &bad,
				    copy);
		break;
	}
	switch (rc) {
	case 0:
		return 0;
	case -E2BIG:
		return conf_sock_err(err, errlen, "vhostd: %s '%s': %s: more "
				     "than %d ids", opt, spec, what,
				     CONF_ALLOW_MAX);
	case -EINVAL:
		return conf_sock_err(err, errlen, "vhostd: %s '%s': %s: empty "
				     "item in '%s'", opt, spec, what, val);
	case -ENAMETOOLONG:
		return conf_sock_err(err, errlen, "vhostd: %s '%s': %s '%s': "
				     "entry too long", opt, spec, what, bad);
	default:
		return conf_sock_err(err, errlen, "vhostd: %s '%s': %s '%s': "
				     "no such %s", opt, spec, what, bad,
				     k == CONF_SOCK_GROUP ||
				     k == CONF_SOCK_AGID ? "group" : "user");
	}
}

/**
 * conf_sock_parse_spec() - socket keys alone: "owner=U,mode=0660,..."
 * @spec:	comma-separated KEY=VALUE items (no value here contains a
 *		comma, so there is no ",," escape)
 * @s:		the socket's keys, defaults already set
 * @opt:	option, for the message ("--ctl-perm")
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL
 */
int conf_sock_parse_spec(const char *spec, struct usock_acl *s,
			 const char *opt, char *err, size_t errlen)
{
	char copy[CONF_PATH_MAX * 5];
	char *item = copy, *next;
	unsigned int seen = 0;

	if (strlen(spec) >= sizeof(copy))
		return conf_sock_err(err, errlen, "vhostd: %s: longer than "
				     "%zu bytes", opt, sizeof(copy) - 1);
	strcpy(copy, spec);
	for (; item; item = next) {
		char *val;
		int k;

		next = strchr(item, ',');
		if (next)
			*next++ = '\0';
		val = strchr(item, '=');
		if (val)
			*val++ = '\0';
		if (!*item)
			return conf_sock_err(err, errlen, "vhostd: %s '%s': "
					     "empty item", opt, spec);
		k = conf_sock_key(item);
		if (k < 0)
			return conf_sock_err(err, errlen, "vhostd: %s '%s': "
					     "unknown key '%s'", opt, spec,
					     item);
		if (seen & 1U << k)
			return conf_sock_err(err, errlen, "vhostd: %s '%s': "
					     "key '%s' given twice", opt, spec,
					     item);
		seen |= 1U << k;
		if (!val || !*val)
			return conf_sock_err(err, errlen, "vhostd: %s '%s': "
					     "key '%s' needs a value", opt,
					     spec, item);
		if (conf_sock_parse(s, k, val, opt, spec, err, errlen))
			return -EINVAL;
	}
	return 0;
}

/**
 * conf_parse_user() - --user USER[:GROUP]
 * @val:	argument: a user name or uid, optionally ':' and a group
 *		name or gid
 * @u:		result
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL
 */
int conf_parse_user(const char *val, struct conf_user *u, char *err,
		    size_t errlen)
{
	char user[CONF_NAME_MAX * 4];
	const char *group = strchr(val, ':');
	size_t ulen = group ? (size_t)(group - val) : strlen(val);
	int rc;

	if (!ulen || (group && !group[1]))
		return conf_sock_err(err, errlen, "vhostd: --user '%s': want "
				     "USER or USER:GROUP", val);
	if (ulen >= sizeof(user))
		return conf_sock_err(err, errlen, "vhostd: --user '%s': name "
				     "too long", val);
	memcpy(user, val, ulen);
	user[ulen] = '\0';
	rc = conf_lookup_user(user, &u->uid, &u->gid, u->name,
			      sizeof(u->name));
	if (rc == -ENAMETOOLONG)
		return conf_sock_err(err, errlen, "vhostd: --user '%s': user "
				     "entry too long", val);
	if (rc)
		return conf_sock_err(err, errlen, "vhostd: --user '%s': no "
				     "such user '%s'", val, user);
	u->group_set = group != NULL;
	if (group) {
		rc = conf_lookup_group(group + 1, &u->gid);
		if (rc)
			return conf_sock_err(err, errlen, "vhostd: --user "
					     "'%s': no such group '%s'", val,
					     group + 1);
	} else if (u->gid == CONF_ID_NONE) {
		return conf_sock_err(err, errlen, "vhostd: --user '%s': uid "
				     "%s has no passwd entry: give USER:GROUP",
				     val, user);
	}
	return 0;
}
