// SPDX-License-Identifier: GPL-2.0-or-later
/* test_portctl.c - unit tests of ctl's "port add" and "port del" checks
 *
 * ctl_exec() outside a daemon serving the control socket only checks a
 * port change (ctl.c): here every check runs against ports of a real
 * switch -- client-mode vhost-user ports whose sockets do not exist, so
 * nothing is opened -- and every refusal is compared with its one-line
 * message.  What an accepted change does (sockets, traffic, counters)
 * is tests/integration/portctl.sh's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../../src/conf.h"
#include "../../src/ctl.h"
#include "../../src/portctl.h"
#include "../../src/switch.h"
#include "../../src/worker.h"

#define DIR	"/nonexistent/vhostd-test-portctl/"

/**
 * port_make() - a port of the switch that opens nothing
 * @name:	its name
 * @extra:	more keys ("" or ",mac=...")
 */
static void port_make(const char *name, const char *extra)
{
	char spec[256], err[256];
	struct port_spec cp;

	snprintf(spec, sizeof(spec), "vhost-user,path=" DIR "%s.sock,client,"
		 "name=%s%s", name, name, extra);
	assert_int_equal(conf_parse_port(spec, 0, &cp, err, sizeof(err)), 0);
	assert_true(switch_port_add(&cp) >= 0);
}

/**
 * reply() - ctl_exec() of @line
 * @line:	command line
 * @rc:		set to its return value
 * Return: the reply (static, overwritten by the next call)
 */
static const char *reply(const char *line, int *rc)
{
	static char buf[2048];
	char *text = NULL;
	size_t len = 0;

	*rc = ctl_exec(line, &text, &len);
	assert_non_null(text);
	snprintf(buf, sizeof(buf), "%s", text);
	free(text);
	return buf;
}

/**
 * expect() - @line gets exactly @want, with return value @want_rc
 * @line:	command line
 * @want_rc:	0 or -EINVAL
 * @want:	the whole reply
 */
static void expect(const char *line, int want_rc, const char *want)
{
	int rc;
	const char *got = reply(line, &rc);

	if (strcmp(got, want) || rc != want_rc)
		fail_msg("'%s': got %d '%s', want %d '%s'", line, rc, got,
			 want_rc, want);
}

static int setup(void **state)
{
	switch_init(300);
	port_make("vu0", "");
	port_make("vm1", ",mac=02:00:00:00:00:01");
	return 0;
}

static int teardown(void **state)
{
	unsigned int i;

	for (i = 0; i < SWITCH_PORTS_MAX; i++)
		switch_port_del(i);
	return 0;
}

/* Accepted specs: checked only here, named as a daemon would name them. */
static void test_add_ok(void **state)
{
	expect("port add vhost-user,path=" DIR "x.sock,name=vm3", 0,
	       "{\"ok\":true,\"port\":{\"name\":\"vm3\"},"
	       "\"checked_only\":true}\n");
	/* No name=: the slot's "vu2". */
	expect("port add vhost-user,path=" DIR "x.sock", 0,
	       "{\"ok\":true,\"port\":{\"name\":\"vu2\"},"
	       "\"checked_only\":true}\n");
	/* Blanks around the argument do not matter. */
	expect("  port add \t vhost-user,path=" DIR "x.sock,name=a  \r\n", 0,
	       "{\"ok\":true,\"port\":{\"name\":\"a\"},"
	       "\"checked_only\":true}\n");
	expect("port del vm1", 0, "{\"ok\":true,\"port\":{\"name\":\"vm1\"},"
	       "\"checked_only\":true}\n");
	/* Nothing changed. */
	assert_non_null(switch_port(1));
	assert_null(switch_port(2));
}

/* A default name taken by a port named so is skipped, not reused. */
static void test_default_name(void **state)
{
	port_make("vu2", "");	/* slot 2 */
	port_make("vu4", "");	/* slot 3 */
	/* Slot 4: "vu4" is taken, "vu5" is not. */
	expect("port add vhost-user,path=" DIR "x.sock", 0,
	       "{\"ok\":true,\"port\":{\"name\":\"vu5\"},"
	       "\"checked_only\":true}\n");
}

/* Every refusal: one line naming what is wrong. */
static void test_refused(void **state)
{
	unsigned int i;
	char name[16];

	expect("port add vhost-user,path=" DIR "x.sock,name=vu0", -EINVAL,
	       "{\"error\":\"port add: name 'vu0' is already in use "
	       "(port 0)\"}\n");
	expect("port add vhost-user,path=" DIR "vm1.sock,name=x", -EINVAL,
	       "{\"error\":\"port add: path '" DIR "vm1.sock' is already "
	       "used by port 'vm1'\"}\n");
	expect("port add vhost-user,path=" DIR "x.sock,mac=02:00:00:00:00:01",
	       -EINVAL, "{\"error\":\"port add: mac 02:00:00:00:00:01 is "
	       "already locked to port 'vm1'\"}\n");
	expect("port add vhost-user,path=" DIR "x.sock,colour=blue", -EINVAL,
	       "{\"error\":\"port add: 'vhost-user,path=" DIR "x.sock,"
	       "colour=blue': unknown key 'colour'\"}\n");
	expect("port add tap,ifname=t0", -EINVAL,
	       "{\"error\":\"port add: tap ports need privileges vhostd "
	       "dropped at start-up; add them on the command line\"}\n");
	/* dgram: UDP needs socket(AF_INET), forbidden after start-up */
	expect("port add dgram,local=127.0.0.1:1,remote=127.0.0.1:2", -EINVAL,
	       "{\"error\":\"port add: dgram ports with local= need what "
	       "vhostd gives up at start-up (a network socket); add them on "
	       "the command line\"}\n");
	/* a path is unique among ports, whatever their types */
	expect("port add dgram,path=" DIR "vm1.sock,remote-path=/x", -EINVAL,
	       "{\"error\":\"port add: path '" DIR "vm1.sock' is already "
	       "used by port 'vm1'\"}\n");
	expect("port add", -EINVAL,
	       "{\"error\":\"port add: missing SPEC\"}\n");
	expect("port add a b", -EINVAL,
	       "{\"error\":\"port add: SPEC is one word, no blanks\"}\n");
	expect("port del", -EINVAL,
	       "{\"error\":\"port del: missing NAME\"}\n");
	expect("port del nosuch", -EINVAL,
	       "{\"error\":\"port del: no port named 'nosuch'\"}\n");
	expect("port added", -EINVAL,
	       "{\"error\":\"unknown command 'port added' (try help)\"}\n");
	expect("port", -EINVAL,
	       "{\"error\":\"unknown command 'port' (try help)\"}\n");

	for (i = 2; i < SWITCH_PORTS_MAX; i++) {
		snprintf(name, sizeof(name), "f%u", i);
		port_make(name, "");
	}
	expect("port add vhost-user,path=" DIR "x.sock,name=x", -EINVAL,
	       "{\"error\":\"port add: the port table is full (64 "
	       "ports)\"}\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_add_ok, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_name, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	};

	/* Ports reach the workers through port_host: set up, never
	 * started, so that removing one has nobody to wait for.
	 */
	if (worker_init(1, 0, 1, NULL, 0) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
