// SPDX-License-Identifier: GPL-2.0-or-later
/* test_usock.c - who may reach a socket: the keys and --user on the
 *		  command line, the file's mode and owner, the peer check
 *
 *   conf_parse(): owner=, group=, mode=, allow-uid=, allow-gid= on a
 *   vhost-user port and in --ctl-perm, --user, --no-sandbox; names and
 *   numbers, and one clear line for each mistake
 *
 *   usock_bind() in a temp dir  --> stat: exactly mode=, owner=, group=
 *   usock_peer_ok(): a connection from this process, and (as root) from
 *   a forked child that became uid 65534 with a supplementary group
 *
 * Users and groups used: root/0 and nobody/65534, which every Debian
 * system has; a name that cannot exist for the error cases.
 */
#include <errno.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../src/conf.h"
#include "../../src/usock.h"

static struct conf c;
static char err[256];

/**
 * parse_argv() - conf_parse() of a NULL-terminated argument vector
 * @argv:	"vhostd", the arguments, NULL
 * Return: conf_parse()'s result (into the file's @c and @err)
 */
static int parse_argv(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return conf_parse(argc, argv, &c, err, sizeof(err));
}

/* parse("--user", "nobody"): the arguments after argv[0] */
#define parse(...)	parse_argv((char *[]){ "vhostd", __VA_ARGS__, NULL })

/**
 * parse_err() - the spec must be refused with a message containing @want
 * @spec:	--port spec
 * @want:	part of the one-line error
 */
static void parse_err(const char *spec, const char *want)
{
	assert_int_equal(parse("--port", (char *)spec), -EINVAL);
	if (!strstr(err, want))
		fail_msg("'%s': got '%s', want '%s'", spec, err, want);
}

/* The socket keys of port 0, through its type's option table. */
#define PORT0_ACL	((const struct usock_acl *)conf_port_opt(&c.ports[0], \
							 "mode"))

static void test_defaults(void **state)
{
	assert_int_equal(parse("--port", "vhost-user,path=/s"), 0);
	assert_non_null(PORT0_ACL);
	assert_int_equal(PORT0_ACL->uid, CONF_ID_NONE);
	assert_int_equal(PORT0_ACL->gid, CONF_ID_NONE);
	assert_int_equal(PORT0_ACL->mode, 0660);
	assert_int_equal(PORT0_ACL->n_uid + PORT0_ACL->n_gid, 0);
	assert_int_equal(c.ctl_sock.mode, 0660);
	assert_int_equal(c.user.uid, CONF_ID_NONE);
	assert_false(c.no_sandbox);
}

static void test_port_keys(void **state)
{
	const struct usock_acl *s;

	assert_int_equal(parse("--port", "vhost-user,path=/s,owner=nobody,"
			       "group=0,mode=0600,allow-uid=root:65534:1234,"
			       "allow-gid=nogroup"), 0);
	s = PORT0_ACL;
	assert_non_null(s);
	assert_int_equal(s->uid, 65534);
	assert_int_equal(s->gid, 0);
	assert_int_equal(s->mode, 0600);
	assert_int_equal(s->n_uid, 3);
	assert_int_equal(s->allow_uid[0], 0);
	assert_int_equal(s->allow_uid[1], 65534);
	assert_int_equal(s->allow_uid[2], 1234);	/* need not exist */
	assert_int_equal(s->n_gid, 1);
	assert_int_equal(s->allow_gid[0], 65534);
	assert_int_equal(parse("--port", "vhost-user,path=/s,mode=606"),
			 0);
	assert_int_equal(s->mode, 0606);
}

static void test_port_key_errors(void **state)
{
	parse_err("vhost-user,path=/s,owner=no-such-user-x",
		  "owner 'no-such-user-x': no such user");
	parse_err("vhost-user,path=/s,group=no-such-group-x",
		  "group 'no-such-group-x': no such group");
	parse_err("vhost-user,path=/s,mode=0800", "mode '0800' is not octal");
	parse_err("vhost-user,path=/s,mode=01777", "is not octal");
	parse_err("vhost-user,path=/s,mode=07777", "is not octal");
	parse_err("vhost-user,path=/s,mode=", "empty value");
	parse_err("vhost-user,path=/s,allow-uid=0::1", "empty item");
	parse_err("vhost-user,path=/s,allow-uid=0:1:2:3:4:5:6:7:8:9:10:11:"
		  "12:13:14:15:16", "more than 16 ids");
	parse_err("vhost-user,path=/s,allow-gid=0:no-such-group-x",
		  "allow-gid 'no-such-group-x': no such group");
	parse_err("vhost-user,path=/s,owner=4294967295", "no such user");
	parse_err("vhost-user,path=/s,mode=0600,mode=0600", "given twice");
	parse_err("vhost-user,path=/s,client,owner=root",
		  "not with 'client'");
	parse_err("tap,ifname=t0,owner=root", "unknown key 'owner'");
}

static void test_ctl_perm(void **state)
{
	assert_int_equal(parse("--ctl", "/c", "--ctl-perm",
			       "owner=0,mode=0640,allow-gid=0"), 0);
	assert_int_equal(c.ctl_sock.uid, 0);
	assert_int_equal(c.ctl_sock.mode, 0640);
	assert_int_equal(c.ctl_sock.n_gid, 1);
	assert_int_equal(parse("--ctl-perm", "mode=0600"), -EINVAL);
	assert_non_null(strstr(err, "--ctl-perm without --ctl"));
	assert_int_equal(parse("--ctl", "/c", "--ctl-perm", "path=/x"),
			 -EINVAL);
	assert_non_null(strstr(err, "unknown key 'path'"));
	assert_int_equal(parse("--ctl", "/c", "--ctl-perm", "mode"),
			 -EINVAL);
	assert_non_null(strstr(err, "needs a value"));
	assert_int_equal(parse("--ctl", "/c", "--ctl-perm", "mode=1,,"),
			 -EINVAL);
	assert_non_null(strstr(err, "empty item"));
}

static void test_user(void **state)
{
	assert_int_equal(parse("--user", "nobody", "--no-sandbox"), 0);
	assert_int_equal(c.user.uid, 65534);
	assert_int_equal(c.user.gid, 65534);
	assert_false(c.user.group_set);
	assert_string_equal(c.user.name, "nobody");
	assert_true(c.no_sandbox);
	assert_int_equal(parse("--user", "65534:root"), 0);
	assert_int_equal(c.user.uid, 65534);
	assert_int_equal(c.user.gid, 0);
	assert_true(c.user.group_set);
	assert_int_equal(parse("--user", "4242:4243"), 0);
	assert_int_equal(c.user.uid, 4242);
	assert_int_equal(c.user.gid, 4243);

	assert_int_equal(parse("--user", "4242"), -EINVAL);
	assert_non_null(strstr(err, "has no passwd entry: give USER:GROUP"));
	assert_int_equal(parse("--user", "no-such-user-x"), -EINVAL);
	assert_non_null(strstr(err, "no such user 'no-such-user-x'"));
	assert_int_equal(parse("--user", "nobody:no-such-group-x"),
			 -EINVAL);
	assert_non_null(strstr(err, "no such group 'no-such-group-x'"));
	assert_int_equal(parse("--user", "nobody:"), -EINVAL);
	assert_int_equal(parse("--user", ":root"), -EINVAL);
	assert_non_null(strstr(err, "want USER or USER:GROUP"));
}

/* ---- the socket file ------------------------------------------------ */

static char dir[64];

static int setup_dir(void **state)
{
	strcpy(dir, "/tmp/test_usock.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown_dir(void **state)
{
	return rmdir(dir);
}

/**
 * bind_stat() - usock_bind() a new socket at DIR/s, stat it, clean up
 * @s:		keys
 * @st:		the file's stat
 * Return: usock_bind()'s result
 */
static int bind_stat(const struct usock_acl *s, struct stat *st)
{
	char path[128];
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), rc;

	snprintf(path, sizeof(path), "%s/s", dir);
	rc = usock_bind(fd, path, s);
	if (!rc) {
		assert_int_equal(lstat(path, st), 0);
		assert_true(S_ISSOCK(st->st_mode));
		unlink(path);
	}
	close(fd);
	return rc;
}

static void test_bind_mode(void **state)
{
	static const unsigned int modes[] = { 0600, 0660, 0666, 0606, 0 };
	struct usock_acl s;
	struct stat st;
	mode_t old = umask(0);	/* the widest: mode= must still rule */
	unsigned int i;

	conf_sock_init(&s);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		s.mode = modes[i];
		assert_int_equal(bind_stat(&s, &st), 0);
		assert_int_equal(st.st_mode & 07777, modes[i]);
	}
	umask(077);
	s.mode = 0666;
	assert_int_equal(bind_stat(&s, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0666);
	assert_int_equal(umask(old), 077);	/* restored by usock_bind() */
}

static void test_bind_owner(void **state)
{
	struct usock_acl s;
	struct stat st;

	conf_sock_init(&s);
	assert_int_equal(bind_stat(&s, &st), 0);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(st.st_gid, getegid());
	if (geteuid() != 0)
		skip();		/* giving a file away needs CAP_CHOWN */
	s.uid = 65534;
	s.gid = 65534;
	s.mode = 0600;
	assert_int_equal(bind_stat(&s, &st), 0);
	assert_int_equal(st.st_uid, 65534);
	assert_int_equal(st.st_gid, 65534);
	assert_int_equal(st.st_mode & 07777, 0600);
}

static void test_bind_taken(void **state)
{
	char path[128];
	struct usock_acl s;
	struct stat st;
	FILE *f;

	conf_sock_init(&s);
	snprintf(path, sizeof(path), "%s/s", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	assert_int_equal(bind_stat(&s, &st), -EADDRINUSE);
	assert_int_equal(unlink(path), 0);	/* ours, untouched */
}

/* ---- the peer check --------------------------------------------------- */

/**
 * peer_check() - connect to a listening socket from a child with @uid,
 *		  @gid and supplementary group @sup, check it with @s
 * @s:		keys
 * @uid:	the child's uid (CONF_ID_NONE: stay as we are)
 * @gid:	its gid
 * @sup:	its one supplementary group
 * @peer:	what usock_peer_ok() saw
 * Return: usock_peer_ok()'s verdict
 */
static bool peer_check(const struct usock_acl *s, uint32_t uid, uint32_t gid,
		       uint32_t sup, struct usock_peer *peer)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct usock_acl open_sock;
	int l = socket(AF_UNIX, SOCK_STREAM, 0), a, st;
	bool ok;
	pid_t pid;

	conf_sock_init(&open_sock);
	open_sock.mode = 0666;
	assert_int_equal(chmod(dir, 0711), 0);	/* the child may pass */
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/s", dir);
	assert_int_equal(usock_bind(l, sa.sun_path, &open_sock), 0);
	assert_int_equal(listen(l, 1), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		gid_t g = sup;
		int fd;

		if (uid != CONF_ID_NONE &&
		    (setgroups(1, &g) || setgid(gid) || setuid(uid)))
			_exit(1);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			_exit(2);
		_exit(0);
	}
	/* The connection waits in the backlog after the child is gone:
	 * a child that could not connect fails here, never hangs accept().
	 */
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	a = accept4(l, NULL, NULL, SOCK_NONBLOCK);
	assert_true(a >= 0);
	ok = usock_peer_ok(a, s, peer);
	close(a);
	close(l);
	unlink(sa.sun_path);
	return ok;
}

static void test_peer_self(void **state)
{
	struct usock_peer peer;
	struct usock_acl s;

	conf_sock_init(&s);
	assert_true(peer_check(&s, CONF_ID_NONE, 0, 0, &peer));
	assert_int_equal(peer.uid, geteuid());
	assert_int_equal(peer.gid, getegid());
	assert_true(peer.pid > 0);
	s.allow_uid[s.n_uid++] = geteuid() + 1;
	assert_false(peer_check(&s, CONF_ID_NONE, 0, 0, &peer));
	s.allow_uid[s.n_uid++] = geteuid();
	assert_true(peer_check(&s, CONF_ID_NONE, 0, 0, &peer));
	s.n_uid = 0;
	s.allow_gid[s.n_gid++] = getegid();
	assert_true(peer_check(&s, CONF_ID_NONE, 0, 0, &peer));
}

static void test_peer_other_user(void **state)
{
	struct usock_peer peer;
	struct usock_acl s;

	if (geteuid() != 0)
		skip();		/* becoming another user needs root */
	conf_sock_init(&s);
	s.allow_uid[s.n_uid++] = 0;
	/* uid 65534, gid 65534, supplementary 4242 */
	assert_false(peer_check(&s, 65534, 65534, 4242, &peer));
	assert_int_equal(peer.uid, 65534);
	assert_int_equal(peer.gid, 65534);
	s.allow_gid[s.n_gid++] = 4242;	/* by a supplementary group */
	assert_true(peer_check(&s, 65534, 65534, 4242, &peer));
	s.allow_gid[0] = 65534;		/* by the primary group */
	assert_true(peer_check(&s, 65534, 65534, 4242, &peer));
	s.n_gid = 0;
	s.allow_uid[s.n_uid++] = 65534;	/* by uid */
	assert_true(peer_check(&s, 65534, 65534, 4242, &peer));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_port_keys),
		cmocka_unit_test(test_port_key_errors),
		cmocka_unit_test(test_ctl_perm),
		cmocka_unit_test(test_user),
		cmocka_unit_test_setup_teardown(test_bind_mode, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(test_bind_owner, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(test_bind_taken, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(test_peer_self, setup_dir,
						teardown_dir),
		cmocka_unit_test_setup_teardown(test_peer_other_user,
						setup_dir, teardown_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
