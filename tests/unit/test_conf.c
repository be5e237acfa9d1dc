// SPDX-License-Identifier: GPL-2.0-or-later
/* test_conf.c - unit tests of the command line parser
 *
 * A table of port specs (good ones with the fields they must produce, bad
 * ones with a substring their one-line error must contain), then whole
 * command lines through conf_parse().
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "../../src/conf.h"
#include "../../src/pollwin.h"

/**
 * struct spec_case - one --port spec and what it must give
 * @spec:	the spec
 * @err:	NULL if valid, else a substring of the error message
 * @type:	expected type
 * @name:	expected name (index 3)
 * @path:	expected path
 * @ifname:	expected ifname
 * @client:	expected client flag
 * @no_offload:	expected offload=off
 * @no_direct:	expected direct=off
 */
struct spec_case {
	const char *spec;
	const char *err;
	const char *type, *name, *path, *ifname;
	bool client;
	bool no_offload;
	bool no_direct;
};

/* Paths of 108 (does not fit sun_path with its NUL) and 107 bytes. */
#define P107 "/tmp/" A51 A51
#define P108 P107 "a"
#define A51 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

#define BAD(s, e)	{ .spec = (s), .err = (e) }

/* A key's value in a parsed spec, through the type's table; what a type
 * without the key would mean (@none) otherwise.
 */
static const char *opt_str(const struct port_spec *p, const char *key)
{
	const char *v = conf_port_opt(p, key);

	return v ? v : "";
}

static bool opt_bool(const struct port_spec *p, const char *key, bool none)
{
	const bool *v = conf_port_opt(p, key);

	return v ? *v : none;
}

static unsigned int opt_uint(const struct port_spec *p, const char *key,
			     unsigned int none)
{
	const unsigned int *v = conf_port_opt(p, key);

	return v ? *v : none;
}

static uint64_t opt_size(const struct port_spec *p, const char *key)
{
	const uint64_t *v = conf_port_opt(p, key);

	return v ? *v : 0;
}

static const struct spec_case spec_cases[] = {
	/* good */
	{ "vhost-user,path=/run/vm1.sock", NULL, "vhost-user", "vu3",
	  "/run/vm1.sock", "", false, false, false },
	{ "vhost-user,path=/s,name=vm1,client", NULL, "vhost-user", "vm1",
	  "/s", "", true, false, false },
	{ "vhost-user,client,path=/s", NULL, "vhost-user", "vu3", "/s", "",
	  true, false, false },
	{ "vhost-user,path=/s,client=off", NULL, "vhost-user", "vu3", "/s",
	  "", false, false, false },
	{ "vhost-user,path=/s,queues=1", NULL, "vhost-user", "vu3", "/s", "",
	  false, false, false },
	{ "vhost-user,path=/a,,b", NULL, "vhost-user", "vu3", "/a,b", "",
	  false, false, false },
	{ "vhost-user,path=/s,,", NULL, "vhost-user", "vu3", "/s,", "",
	  false, false, false },
	{ "vhost-user,path=" P107, NULL, "vhost-user", "vu3", P107, "",
	  false, false, false },
	{ "tap,ifname=vh0", NULL, "tap", "tap3", "", "vh0", false, false, false },
	{ "tap,ifname=vh%d,name=host-1.x_y", NULL, "tap", "host-1.x_y", "",
	  "vh%d", false, false, false },
	{ "tap,ifname=abcdefghijklmno", NULL, "tap", "tap3", "",
	  "abcdefghijklmno", false, false, false },
	{ "vhost-user,path=/s,offload=off", NULL, "vhost-user", "vu3", "/s",
	  "", false, true, false },
	{ "vhost-user,offload=on,path=/s", NULL, "vhost-user", "vu3", "/s",
	  "", false, false, false },
	{ "tap,ifname=t,offload=off", NULL, "tap", "tap3", "", "t", false,
	  true, false },
	{ "tap,ifname=t,direct=off", NULL, "tap", "tap3", "", "t", false,
	  false, true },
	{ "tap,direct=on,ifname=t", NULL, "tap", "tap3", "", "t", false,
	  false, false },

	/* bad */
	BAD("", "missing port type"),
	BAD(",path=/s", "missing port type"),
	BAD("vhost", "unknown port type 'vhost'"),
	BAD("vhost-user,pth=x", "unknown key 'pth'"),
	BAD("vhost-user,pth=x", "--port 'vhost-user,pth=x'"),
	BAD("vhost-user", "missing required key 'path'"),
	BAD("vhost-user,name=x", "missing required key 'path'"),
	BAD("vhost-user,path=", "empty value for 'path'"),
	BAD("vhost-user,path=/s,", "empty item"),
	BAD("vhost-user,,path=/s", "unknown port type"),
	BAD("vhost-user,path", "key 'path' needs a value"),
	BAD("vhost-user,=x,path=/s", "empty key"),
	BAD("vhost-user,path=/s,path=/t", "given twice"),
	BAD("vhost-user,path=" P108, "path too long"),
	BAD("vhost-user,path=/s,queues=17", "out of range (1-16)"),
	BAD("vhost-user,path=/s,queues=0", "out of range"),
	BAD("vhost-user,path=/s,queues=1x", "not a number"),
	BAD("vhost-user,path=/s,queues=-1", "not a number"),
	BAD("vhost-user,path=/s,queues= 1", "not a number"),
	BAD("vhost-user,path=/s,queues=99999999999999999999",
	    "out of range"),
	BAD("vhost-user,path=/s,client=yes", "client takes no value"),
	BAD("vhost-user,path=/s,ifname=x", "unknown key 'ifname'"),
	BAD("vhost-user,path=/s,name=a b", "may only contain"),
	BAD("vhost-user,path=/s,name=a\"b", "may only contain"),
	BAD("vhost-user,path=/s,name=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    "name too long"),
	BAD("tap", "missing required key 'ifname'"),
	BAD("tap,path=/s", "unknown key 'path'"),
	BAD("tap,ifname=x,client", "unknown key 'client'"),
	BAD("tap,ifname=x,offload", "needs a value"),
	BAD("tap,ifname=x,offload=yes", "offload takes on or off"),
	BAD("vhost-user,path=/s,offload=on,offload=off", "given twice"),
	BAD("tap,ifname=x,direct=maybe", "direct takes on or off"),
	BAD("tap,ifname=x,direct", "needs a value"),
	BAD("tap,ifname=x,direct=on,direct=off", "given twice"),
	BAD("vhost-user,path=/s,direct=off", "unknown key 'direct'"),
	BAD("tap,ifname=abcdefghijklmnop", "ifname too long"),
	BAD("tap,ifname=a/b", "not a valid interface name"),
	BAD("tap,ifname=..", "not a valid interface name"),
	BAD("tap,ifname=a:1", "not a valid interface name"),
	BAD("tap,ifname=x,name=", "empty value for 'name'"),
	/* the generic parser's every way out (port.h's option tables) */
	BAD("vhost", "unknown port type 'vhost' (vhost-user"),
	BAD("vhost-user,path=/s,client,client", "key 'client' given twice"),
	BAD("vhost-user,path=/s,client=on,client=off", "given twice"),
	BAD("vhost-user,path=/s,name=a,name=b", "key 'name' given twice"),
	BAD("tap,ifname=t,max-macs=1,max-macs=2", "'max-macs' given twice"),
	BAD("vhost-user,path=/s,max-mem", "key 'max-mem' needs a value"),
	BAD("vhost-user,path=/s,mac", "key 'mac' needs a value"),
	BAD("vhost-user,path=/s,mode", "key 'mode' needs a value"),
	BAD("vhost-user,path=/s,flood-rate", "'flood-rate' needs a value"),
	BAD("vhost-user,path=/s,client,mode=0600", "not with 'client'"),
	BAD("vhost-user,path=/s,client,allow-uid=0", "not with 'client'"),
	BAD("vhost-user,path=/s,offload=", "empty value for 'offload'"),
	BAD("vhost-user,path=/s,flood-burst=10000001",
	    "flood-burst '10000001' out of range (1-10000000)"),
	BAD("tap,ifname=t,max-macs=4097", "max-macs '4097' out of range "
	    "(0-4096)"),
	BAD("tap,ifname=t,queues=2", "unknown key 'queues'"),
	BAD("tap,ifname=t,max-mem=1G", "unknown key 'max-mem'"),
	BAD("tap,ifname=t,mode=0600", "unknown key 'mode'"),
	BAD("vhost-user,path=/s,mode=999", "mode"),
	BAD("vhost-user,path=/s,owner=no-such-user-here", "owner"),
	/* quoted back, but never as a second line or a terminal escape */
	BAD("v\nx", "unknown port type 'v?x'"),
	BAD("vhost-user,path=/s,name=a\033[2J", "'a?[2J' may only"),
};

static void test_port_specs(void **state)
{
	unsigned int i;

	for (i = 0; i < sizeof(spec_cases) / sizeof(spec_cases[0]); i++) {
		const struct spec_case *t = &spec_cases[i];
		struct port_spec p;
		char err[256] = "";
		int r;

		r = conf_parse_port(t->spec, 3, &p, err, sizeof(err));
		if (!t->err) {
			if (r)
				fail_msg("'%s': unexpected error: %s", t->spec,
					 err);
			assert_string_equal(p.type, t->type);
			assert_string_equal(p.name, t->name);
			assert_string_equal(opt_str(&p, "path"), t->path);
			assert_string_equal(opt_str(&p, "ifname"), t->ifname);
			assert_int_equal(opt_bool(&p, "client", false),
					 t->client);
			assert_int_equal(opt_bool(&p, "offload", true),
					 !t->no_offload);
			assert_int_equal(opt_bool(&p, "direct", true),
					 !t->no_direct);
			assert_int_equal(opt_uint(&p, "queues", 1), 1);
			continue;
		}
		if (r != -EINVAL)
			fail_msg("'%s': accepted, expected '%s'", t->spec,
				 t->err);
		if (!strstr(err, t->err))
			fail_msg("'%s': error '%s' lacks '%s'", t->spec, err,
				 t->err);
		/* One line, prefixed like every vhostd error. */
		assert_null(strchr(err, '\n'));
		assert_memory_equal(err, "vhostd: ", 8);
	}
}

/* L2 keys: mac= (vhost-user only, a station address), max-macs=
 * (0-4096, default by type), flood-rate= (0 = off), flood-burst= (>= 1).
 */
static void test_l2_keys(void **state)
{
	static const char *const bad[] = {
		"vhost-user,path=/s,mac=01:00:5e:00:00:01", "not a station",
		"vhost-user,path=/s,mac=00:00:00:00:00:00", "not a station",
		"vhost-user,path=/s,mac=02:00:00:00:00", "not a MAC",
		"vhost-user,path=/s,mac=02:00:00:00:00:0g", "not a MAC",
		"vhost-user,path=/s,mac=02-00-00-00-00-01", "not a MAC",
		"vhost-user,path=/s,mac=02:00:00:00:00:011", "not a MAC",
		"vhost-user,path=/s,mac= 2:00:00:00:00:01", "not a MAC",
		"tap,ifname=t,mac=02:00:00:00:00:01", "unknown key 'mac'",
		"vhost-user,path=/s,max-macs=4097", "out of range (0-4096)",
		"vhost-user,path=/s,max-macs=x", "not a number",
		"tap,ifname=t,flood-rate=100000001", "out of range",
		"tap,ifname=t,flood-burst=0", "out of range (1-",
		"vhost-user,path=/s,flood-rate=1,flood-rate=2", "given twice",
		"vhost-user,path=/s,mac=02:00:00:00:00:01,mac=02:00:00:00:00:01",
		"given twice",
	};
	struct port_spec p;
	char err[256];
	unsigned int i;

	(void)state;
	assert_int_equal(conf_parse_port("vhost-user,path=/s", 0, &p, err,
					 sizeof(err)), 0);
	assert_int_equal(p.max_macs, PORT_MAX_MACS_DEFAULT);
	assert_int_equal(p.flood_rate, CONF_FLOOD_RATE_DEFAULT);
	assert_int_equal(p.flood_burst, 0);
	assert_false(p.has_mac);
	assert_int_equal(conf_parse_port("tap,ifname=t", 0, &p, err,
					 sizeof(err)), 0);
	assert_int_equal(p.max_macs, 1024);	/* TAP's own default */
	assert_int_equal(conf_parse_port("vhost-user,path=/s,mac=52:54:00:Ab:"
					 "cD:ef,max-macs=0,flood-rate=0,"
					 "flood-burst=7", 0, &p, err,
					 sizeof(err)), 0);
	assert_true(p.has_mac);
	assert_memory_equal(p.mac, ((uint8_t[6]){ 0x52, 0x54, 0, 0xab, 0xcd,
						   0xef }), 6);
	assert_int_equal(p.max_macs, 0);
	assert_int_equal(p.flood_rate, 0);
	assert_int_equal(p.flood_burst, 7);
	assert_int_equal(conf_parse_port("tap,ifname=t,max-macs=4096", 0, &p,
					 err, sizeof(err)), 0);
	assert_int_equal(p.max_macs, 4096);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i += 2) {
		if (conf_parse_port(bad[i], 0, &p, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		if (!strstr(err, bad[i + 1]))
			fail_msg("'%s': error '%s' lacks '%s'", bad[i], err,
				 bad[i + 1]);
		assert_null(strchr(err, '\n'));
	}
}

/* Two ports locked to one MAC: refused by conf_parse(). */
static void test_l2_same_mac(void **state)
{
	char *argv[] = { "vhostd", "--port",
			 "vhost-user,path=/a,mac=02:00:00:00:00:01", "--port",
			 "vhost-user,path=/b,mac=02:00:00:00:00:01", NULL };
	struct conf *c = calloc(1, sizeof(*c));
	char err[256];

	(void)state;
	assert_non_null(c);
	assert_int_equal(conf_parse(5, argv, c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "both locked to mac 02:00:00:00:00:01"));
	argv[4] = "vhost-user,path=/b,mac=02:00:00:00:00:02";
	assert_int_equal(conf_parse(5, argv, c, err, sizeof(err)), 0);
	free(c);
}

/* max-mem=: default 1 TiB, sizes with a 1024-based suffix, never 0. */
static void test_max_mem(void **state)
{
	static const struct { const char *v; uint64_t want; } good[] = {
		{ "4096", 4096 }, { "64K", 64ULL << 10 }, { "16G", 16ULL << 30 },
		{ "2T", 2ULL << 40 }, { "1M", 1ULL << 20 },
	};
	static const char *const bad[] = {
		"0", "0G", "1X", "1GB", "G", "-1", " 1", "1 G",
		"99999999999999999999", "16777216T",
	};
	struct port_spec p;
	char spec[128], err[256];
	unsigned int i;

	(void)state;
	assert_int_equal(conf_parse_port("vhost-user,path=/s", 0, &p, err,
					 sizeof(err)), 0);
	assert_true(opt_size(&p, "max-mem") == 1ULL << 40);
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(spec, sizeof(spec), "vhost-user,path=/s,max-mem=%s",
			 good[i].v);
		if (conf_parse_port(spec, 0, &p, err, sizeof(err)))
			fail_msg("'%s': %s", spec, err);
		assert_true(opt_size(&p, "max-mem") == good[i].want);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(spec, sizeof(spec), "vhost-user,path=/s,max-mem=%s",
			 bad[i]);
		if (conf_parse_port(spec, 0, &p, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' accepted", spec);
		assert_non_null(strstr(err, "is not a size"));
	}
	/* a TAP has no guest memory */
	assert_int_equal(conf_parse_port("tap,ifname=x,max-mem=1G", 0, &p, err,
					 sizeof(err)), -EINVAL);
	assert_int_equal(conf_parse_port("vhost-user,path=/s,max-mem=1G,"
					 "max-mem=2G", 0, &p, err,
					 sizeof(err)), -EINVAL);
}

/* Every type's option table is one the generic parser can trust: fields
 * inside the options struct (or struct port_spec), sized as their value
 * type stores, unique keys, a default name prefix, one help line each.
 */
static void test_option_tables(void **state)
{
	const struct port_ops *ops;
	unsigned int t, i, j;

	(void)state;
	for (t = 0; (ops = port_ops_at(t)); t++) {
		assert_non_null(ops->name_prefix);
		assert_true(ops->opts_size <= PORT_OPTS_SIZE);
		assert_true(ops->n_opts <= 32);
		assert_ptr_equal(port_ops_find(ops->type), ops);
		for (i = 0; i < ops->n_opts; i++) {
			const struct port_opt *o = &ops->opts[i];
			size_t room = o->flags & PORT_OPT_COMMON ?
				      sizeof(struct port_spec) :
				      ops->opts_size;
			size_t want = 0;

			assert_non_null(o->key);
			assert_non_null(o->help);
			assert_true(o->off + o->size <= room);
			switch (o->type) {
			case PORT_OPT_BOOL: want = sizeof(bool); break;
			case PORT_OPT_UINT: want = sizeof(unsigned int); break;
			case PORT_OPT_SIZE: want = sizeof(uint64_t); break;
			case PORT_OPT_MAC: want = 6; break;
			case PORT_OPT_ADDR: want = sizeof(union port_addr);
				break;
			case PORT_OPT_IP:
				want = o->flags & PORT_OPT_LIST ?
				       o->size - o->size %
				       sizeof(struct port_ip) :
				       sizeof(struct port_ip);
				if (o->flags & PORT_OPT_LIST)
					assert_true(o->size >=
						    sizeof(struct port_ip));
				break;
			case PORT_OPT_ACL: want = sizeof(struct usock_acl);
				break;
			default: want = o->size; break;	/* text: any */
			}
			if (o->size != want)
				fail_msg("%s %s: field of %u bytes, type "
					 "stores %zu", ops->type, o->key,
					 o->size, want);
			if (o->type == PORT_OPT_UINT)
				assert_true(o->min <= o->max &&
					    o->max <= UINT32_MAX);
			for (j = 0; j < i; j++)
				assert_string_not_equal(o->key,
							ops->opts[j].key);
		}
	}
	assert_true(t >= 2);
	assert_null(port_ops_at(t));
}

/* conf_port_opt(): a key's field, as its table types it; none for a key
 * the type does not have.
 */
static void test_port_opt(void **state)
{
	struct port_spec p;
	char err[256];

	(void)state;
	assert_int_equal(conf_parse_port("tap,ifname=t0,name=x", 0, &p, err,
					 sizeof(err)), 0);
	assert_string_equal(opt_str(&p, "ifname"), "t0");
	assert_string_equal(opt_str(&p, "name"), "x");
	assert_null(conf_port_opt(&p, "path"));
	assert_null(conf_port_opt(&p, "no-such-key"));
	assert_int_equal(opt_uint(&p, "max-macs", 0), 1024);
	assert_int_equal(opt_uint(&p, "flood-rate", 0),
			 CONF_FLOOD_RATE_DEFAULT);
	strcpy(p.type, "no-such-type");
	assert_null(conf_port_opt(&p, "name"));
}

/* dgram: UDP (numeric IPv4 or [IPv6] with a port) or unix, never both,
 * each transport complete; UDP keys are start-up only.
 */
static void test_dgram(void **state)
{
	static const char *const bad[] = {
		"dgram", "missing local= and remote=",
		"dgram,local=127.0.0.1:1", "UDP needs both",
		"dgram,remote=127.0.0.1:1", "UDP needs both",
		"dgram,path=/a", "needs both path= and remote-path=",
		"dgram,remote-path=/a", "needs both path= and remote-path=",
		"dgram,local=127.0.0.1:1,remote=127.0.0.1:2,path=/a",
		"do not mix",
		"dgram,local=127.0.0.1:1,remote=[::1]:2", "not of one address",
		"dgram,local=127.0.0.1,remote=127.0.0.1:2", "not an address",
		"dgram,local=127.0.0.1:,remote=127.0.0.1:2", "not an address",
		"dgram,local=127.0.0.1:65536,remote=127.0.0.1:2",
		"not an address",
		"dgram,local=127.0.0.1:1x,remote=127.0.0.1:2", "not an address",
		"dgram,local=localhost:1,remote=127.0.0.1:2", "not an address",
		"dgram,local=::1:1,remote=127.0.0.1:2", "not an address",
		"dgram,local=[127.0.0.1]:1,remote=127.0.0.1:2",
		"not an address",
		"dgram,local=[::1],remote=[::1]:2", "not an address",
		"dgram,local=[::1:1,remote=[::1]:2", "not an address",
		"dgram,local=:1,remote=127.0.0.1:2", "not an address",
		"dgram,local=1.2.3.4.5:1,remote=127.0.0.1:2", "not an address",
		"dgram,local=127.0.0.1:1,local=127.0.0.1:1,remote=127.0.0.1:2",
		"given twice",
		"dgram,local", "needs a value",
		"dgram,path=/a,remote-path=/b,mac=02:00:00:00:00:01",
		"unknown key 'mac'",
		"dgram,path=/a,remote-path=/b,queues=2", "unknown key 'queues'",
	};
	const union port_addr *a;
	struct port_spec p;
	char err[256];
	unsigned int i;

	(void)state;
	assert_int_equal(conf_parse_port("dgram,local=127.0.0.1:5001,"
					 "remote=127.0.0.1:5002", 4, &p, err,
					 sizeof(err)), 0);
	assert_string_equal(p.name, "dg4");
	a = conf_port_opt(&p, "remote");
	assert_int_equal(a->sa.sa_family, AF_INET);
	assert_int_equal(ntohs(a->in4.sin_port), 5002);
	assert_int_equal(ntohl(a->in4.sin_addr.s_addr), 0x7f000001);
	assert_string_equal(conf_port_startup_key(&p), "local");
	assert_int_equal(p.max_macs, PORT_MAX_MACS_DEFAULT);

	assert_int_equal(conf_parse_port("dgram,local=[::1]:0,remote=[2001:2::"
					 "1]:65535,name=l6", 0, &p, err,
					 sizeof(err)), 0);
	a = conf_port_opt(&p, "local");
	assert_int_equal(a->sa.sa_family, AF_INET6);
	assert_int_equal(ntohs(a->in6.sin6_port), 0);
	a = conf_port_opt(&p, "remote");
	assert_int_equal(ntohs(a->in6.sin6_port), 65535);
	assert_int_equal(a->in6.sin6_addr.s6_addr[1], 0x01);

	assert_int_equal(conf_parse_port("dgram,path=/run/a,,b,remote-path=/b",
					 0, &p, err, sizeof(err)), 0);
	assert_string_equal(opt_str(&p, "path"), "/run/a,b");
	assert_string_equal(opt_str(&p, "remote-path"), "/b");
	assert_null(conf_port_startup_key(&p));
	a = conf_port_opt(&p, "local");
	assert_int_equal(a->sa.sa_family, AF_UNSPEC);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i += 2) {
		if (conf_parse_port(bad[i], 0, &p, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		if (!strstr(err, bad[i + 1]))
			fail_msg("'%s': error '%s' lacks '%s'", bad[i], err,
				 bad[i + 1]);
		assert_null(strchr(err, '\n'));
		assert_memory_equal(err, "vhostd: --port '", 16);
	}
}

/**
 * file_text() - a whole file, NUL-terminated
 * @path:	relative to the repository root (make check runs there)
 * Return: malloc()ed text, or NULL if it cannot be read
 */
static char *file_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 &&
	    !fseek(f, 0, SEEK_SET) && (buf = calloc(1, (size_t)n + 1)))
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
	fclose(f);
	return buf;
}

/* vxlan: local= and remote= are bare IPs of one family, remote= repeats
 * (at most 16, never twice the same), vni= in 24 bits; start-up only.
 */
static void test_vxlan(void **state)
{
	static const char *const bad[] = {
		"vxlan,vni=1", "missing required key 'local'",
		"vxlan,local=198.18.0.1", "missing required key 'vni'",
		"vxlan,local=198.18.0.1,vni=16777216", "out of range",
		"vxlan,local=198.18.0.1:4789,vni=1", "not an IP address",
		"vxlan,local=host,vni=1", "not an IP address",
		"vxlan,local=[198.18.0.1,vni=1", "not an IP address",
		"vxlan,local=198.18.0.1,remote=2001:2::1,vni=1",
		"one address family",
		"vxlan,local=198.18.0.1,remote=198.18.0.1,vni=1",
		"is local= itself",
		"vxlan,local=198.18.0.1,remote=198.18.0.2,remote=198.18.0.2",
		"'198.18.0.2' given twice",
		"vxlan,local=198.18.0.1,local=198.18.0.3,vni=1", "given twice",
		"vxlan,local=224.0.0.1,vni=1", "multicast",
		"vxlan,local=ff02::1,vni=1", "multicast",
		"vxlan,local=198.18.0.1,vni=1,dstport=0", "out of range",
		"vxlan,local=198.18.0.1,vni=1,src-ports=33", "out of range",
		"vxlan,local=198.18.0.1,vni=1,mtu=67", "out of range",
		"vxlan,local=198.18.0.1,vni=1,remote", "needs a value",
	};
	char spec[1024], err[512];
	const struct port_ip *ip;
	struct port_spec p;
	unsigned int i;
	int n;

	(void)state;
	assert_int_equal(conf_parse_port("vxlan,local=198.18.0.1,remote=198.18."
					 "0.2,remote=198.18.1.3,vni=42", 2, &p,
					 err, sizeof(err)), 0);
	assert_string_equal(p.name, "vx2");
	assert_string_equal(conf_port_startup_key(&p), "local");
	ip = conf_port_opt(&p, "remote");
	assert_int_equal(ip[0].family, AF_INET);
	assert_int_equal(ip[0].a[3], 2);
	assert_int_equal(ip[1].a[2], 1);
	assert_int_equal(ip[1].a[3], 3);
	assert_int_equal(ip[2].family, AF_UNSPEC);
	assert_int_equal(*(const unsigned int *)conf_port_opt(&p, "dstport"),
			 4789);

	assert_int_equal(conf_parse_port("vxlan,local=[2001:2::1],remote=2001:"
					 "2::2,vni=0", 0, &p, err, sizeof(err)),
			 0);
	ip = conf_port_opt(&p, "local");
	assert_int_equal(ip->family, AF_INET6);
	assert_int_equal(ip->a[15], 1);

	/* Sixteen remotes fit, a seventeenth is one line. */
	n = snprintf(spec, sizeof(spec), "vxlan,local=198.18.0.1,vni=1");
	for (i = 0; i < 16; i++)
		n += snprintf(spec + n, sizeof(spec) - (size_t)n,
			      ",remote=198.18.2.%u", i + 1);
	assert_int_equal(conf_parse_port(spec, 0, &p, err, sizeof(err)), 0);
	snprintf(spec + n, sizeof(spec) - (size_t)n, ",remote=198.18.3.1");
	assert_int_equal(conf_parse_port(spec, 0, &p, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "given more than 16 times"));

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i += 2) {
		if (conf_parse_port(bad[i], 0, &p, err, sizeof(err)) != -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		if (!strstr(err, bad[i + 1]))
			fail_msg("'%s': error '%s' lacks '%s'", bad[i], err,
				 bad[i + 1]);
		assert_null(strchr(err, '\n'));
	}
}

/* Every key of every type's table is documented in the manual (as roff
 * writes it, '-' as '\-') and in doc/operations.md's key table: the
 * tables are what the parser takes, so a key added there and not in
 * the docs fails here.  --help needs no check: it is printed from them.
 */
static void test_docs_list_keys(void **state)
{
	char *man = file_text("doc/vhostd.8");
	char *ops_md = file_text("doc/operations.md");
	const struct port_ops *ops;
	char want[64], *w;
	const char *k;
	unsigned int t, i;

	(void)state;
	if (!man || !ops_md) {
		free(man);
		free(ops_md);
		skip();
	}
	for (t = 0; (ops = port_ops_at(t)); t++) {
		for (i = 0; i < ops->n_opts; i++) {
			for (k = ops->opts[i].key, w = want; *k; k++) {
				if (*k == '-')
					*w++ = '\\';
				*w++ = *k;
			}
			*w = '\0';
			if (!strstr(man, want))
				fail_msg("doc/vhostd.8 lacks %s's key %s",
					 ops->type, ops->opts[i].key);
			snprintf(want, sizeof(want), "`%s`", ops->opts[i].key);
			if (!strstr(ops_md, want))
				fail_msg("doc/operations.md lacks %s's key %s",
					 ops->type, ops->opts[i].key);
		}
	}
	free(man);
	free(ops_md);
}

/**
 * parse() - run conf_parse() on a NULL-terminated list of arguments
 * @c:		result
 * @err:	error buffer, 256 bytes
 * @...:	arguments after argv[0], then NULL
 * Return: conf_parse()'s return
 */
static int parse(struct conf *c, char *err, ...)
{
	char *argv[32] = { "vhostd" };
	int argc = 1;
	va_list ap;

	va_start(ap, err);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	return conf_parse(argc, argv, c, err, 256);
}

static struct conf conf;

static void test_defaults(void **state)
{
	char err[256];

	assert_int_equal(parse(&conf, err, "--port", "tap,ifname=t0",
			       "--port", "vhost-user,path=/s", (char *)NULL), 0);
	assert_int_equal(conf.nports, 2);
	assert_string_equal(conf.ports[0].name, "tap0");
	assert_string_equal(conf.ports[1].name, "vu1");
	assert_int_equal(conf.workers, 1);
	assert_int_equal(conf.poll_us, CONF_POLL_AUTO);
	assert_int_equal(conf.latency_us, PW_TARGET_DEFAULT_US);
	assert_int_equal(conf.ports[0].latency_us, PORT_LATENCY_UNSET);
	assert_int_equal(conf.fdb_age_s, 300);
	assert_string_equal(conf.ctl_path, "");
	assert_int_equal(conf.verbose, 0);
}

static void test_options(void **state)
{
	char err[256];

	assert_int_equal(parse(&conf, err, "--port", "vhost-user,path=/a",
			       "--ctl", "/run/ctl.sock", "--workers", "4",
			       "--poll-us=0", "--fdb-age", "0", "-v", "-v",
			       (char *)NULL), 0);
	assert_string_equal(conf.ctl_path, "/run/ctl.sock");
	assert_int_equal(conf.workers, 4);
	assert_int_equal(conf.poll_us, 0);
	assert_int_equal(conf.fdb_age_s, 0);
	assert_int_equal(conf.verbose, 2);
	assert_int_equal(parse(&conf, err, "--port",
			       "vhost-user,path=/a,latency=30", "--poll-us",
			       "50", "--latency-us", "7", (char *)NULL), 0);
	assert_int_equal(conf.poll_us, 50);
	assert_int_equal(conf.latency_us, 7);
	assert_int_equal(conf.ports[0].latency_us, 30);
	assert_int_equal(parse(&conf, err, "--poll-us", "50", "--poll-us",
			       "auto", (char *)NULL), 0);
	assert_int_equal(conf.poll_us, CONF_POLL_AUTO);
	assert_int_equal(conf.ncpus, 0);	/* not pinned by default */
	assert_int_equal(parse(&conf, err, "--cpus", "3,0-1,7", (char *)NULL),
			 0);
	assert_int_equal(conf.ncpus, 4);
	assert_int_equal(conf.cpus[0], 3);
	assert_int_equal(conf.cpus[1], 0);
	assert_int_equal(conf.cpus[2], 1);
	assert_int_equal(conf.cpus[3], 7);
	assert_int_equal(parse(&conf, err, "--cpus=1023", (char *)NULL), 0);
	assert_int_equal(conf.ncpus, 1);
	assert_int_equal(conf.cpus[0], 1023);
	/* Zero ports is allowed: ports may come later through ctl. */
	assert_int_equal(parse(&conf, err, (char *)NULL), 0);
	assert_int_equal(conf.nports, 0);
}

/* --metrics: numeric IPv4:PORT or [IPv6]:PORT, off by default. */
static void test_metrics(void **state)
{
	static const char *const bad[] = {
		"", "localhost:9464", "127.0.0.1", "127.0.0.1:", "127.0.0.1:0",
		"127.0.0.1:65536", "::1:9464", "[::1]", "[::1]:0",
		"[127.0.0.1]:1", "1.2.3:4", "127.0.0.1:9464 ", " 127.0.0.1:1",
	};
	char err[256];
	unsigned int i;

	assert_int_equal(parse(&conf, err, (char *)NULL), 0);
	assert_int_equal(conf.metrics.sa.sa_family, AF_UNSPEC);
	assert_int_equal(parse(&conf, err, "--metrics", "127.0.0.1:9464",
			       (char *)NULL), 0);
	assert_int_equal(conf.metrics.sa.sa_family, AF_INET);
	assert_int_equal(ntohs(conf.metrics.in4.sin_port), 9464);
	assert_int_equal(ntohl(conf.metrics.in4.sin_addr.s_addr), 0x7f000001);
	assert_int_equal(parse(&conf, err, "--metrics=[::1]:65535",
			       (char *)NULL), 0);
	assert_int_equal(conf.metrics.sa.sa_family, AF_INET6);
	assert_int_equal(ntohs(conf.metrics.in6.sin6_port), 65535);
	assert_true(IN6_IS_ADDR_LOOPBACK(&conf.metrics.in6.sin6_addr));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(parse(&conf, err, "--metrics", bad[i],
				       (char *)NULL), -EINVAL);
		if (strncmp(err, "vhostd: --metrics '", 19) || strchr(err, '\n'))
			fail_msg("--metrics '%s': %s", bad[i], err);
	}
}

/**
 * struct argv_case - a bad command line and its error substring
 * @args:	arguments, NULL-terminated
 * @err:	substring of the error
 */
struct argv_case {
	const char *args[8];
	const char *err;
};

static const struct argv_case argv_cases[] = {
	{ { "--workers", "0" }, "--workers '0': out of range" },
	{ { "--workers", "17" }, "out of range (1-16)" },
	{ { "--workers", "2x" }, "--workers '2x': not a number" },
	{ { "--workers", "" }, "not a number" },
	{ { "--poll-us", "1000001" }, "out of range" },
	{ { "--poll-us", "automatic" }, "not a number" },
	{ { "--latency-us", "1000001" }, "out of range" },
	{ { "--latency-us", "-1" }, "not a number" },
	{ { "--port", "tap,ifname=a,latency=1000001" }, "out of range" },
	{ { "--fdb-age", "-5" }, "not a number" },
	{ { "--workers" }, "needs an argument" },
	{ { "--bogus" }, "unknown option '--bogus'" },
	{ { "-x" }, "unknown option '-x'" },
	{ { "stray" }, "unexpected argument 'stray'" },
	{ { "--ctl", "" }, "--ctl: empty path" },
	{ { "--ctl", P108 }, "--ctl: path too long" },
	{ { "--state", "" }, "--state: empty path" },
	{ { "--state", P108 }, "--state: path too long" },
	{ { "--port", "tap,ifname=a", "--port", "tap,ifname=a" },
	  "both use ifname 'a'" },
	{ { "--port", "tap,ifname=a,name=x", "--port",
	    "tap,ifname=b,name=x" }, "both named 'x'" },
	{ { "--port", "tap,ifname=a", "--port", "tap,ifname=b,name=tap0" },
	  "both named 'tap0'" },
	{ { "--port", "vhost-user,path=/s", "--port",
	    "vhost-user,path=/s,name=b" }, "both use path '/s'" },
	{ { "--ctl", "/s", "--port", "vhost-user,path=/s" },
	  "uses the --ctl path" },
	{ { "--port", "vhost-user,path=/s,queues=99" }, "out of range (1-16)" },
	{ { "--cpus", "" }, "--cpus '': not a CPU list" },
	{ { "--cpus", "1-0" }, "not a CPU list" },
	{ { "--cpus", "0,,1" }, "not a CPU list" },
	{ { "--cpus", "0," }, "not a CPU list" },
	{ { "--cpus", "-1" }, "not a CPU list" },
	{ { "--cpus", "1-" }, "not a CPU list" },
	{ { "--cpus", "0 1" }, "not a CPU list" },
	{ { "--cpus", "+1" }, "not a CPU list" },
	{ { "--cpus", "1024" }, "CPU 1024 is past 1023" },
	{ { "--cpus", "99999999999999999999999" }, "is past 1023" },
	{ { "--cpus", "0-2,2" }, "CPU 2 named twice" },
	{ { "--cpus", "0-64" }, "more than 64 CPUs" },
	{ { "--cpus" }, "needs an argument" },
	/* unique values compare across types; remote-path= is not unique */
	{ { "--port", "vhost-user,path=/s", "--port",
	    "dgram,path=/s,remote-path=/r" }, "both use path '/s'" },
	{ { "--ctl", "/c", "--port", "dgram,path=/c,remote-path=/r" },
	  "uses the --ctl path '/c'" },
	{ { "--port", "dgram,path=/a,remote-path=/r", "--port",
	    "dgram,path=/a,remote-path=/q" }, "both use path '/a'" },
};

static void test_bad_command_lines(void **state)
{
	unsigned int i;

	for (i = 0; i < sizeof(argv_cases) / sizeof(argv_cases[0]); i++) {
		const struct argv_case *t = &argv_cases[i];
		char *argv[10] = { "vhostd" };
		char err[256] = "";
		int argc = 1, r;

		while (t->args[argc - 1]) {
			argv[argc] = (char *)t->args[argc - 1];
			argc++;
		}
		r = conf_parse(argc, argv, &conf, err, sizeof(err));
		if (r != -EINVAL)
			fail_msg("case %u: returned %d, expected error '%s'",
				 i, r, t->err);
		if (!strstr(err, t->err))
			fail_msg("case %u: error '%s' lacks '%s'", i, err,
				 t->err);
		assert_null(strchr(err, '\n'));
	}
}

static void test_too_many_ports(void **state)
{
	char *argv[2 * CONF_PORTS_MAX + 4] = { "vhostd" };
	char specs[CONF_PORTS_MAX + 1][32];
	char err[256];
	int argc = 1, i;

	for (i = 0; i <= CONF_PORTS_MAX; i++) {
		snprintf(specs[i], sizeof(specs[i]), "tap,ifname=t%d", i);
		argv[argc++] = "--port";
		argv[argc++] = specs[i];
	}
	assert_int_equal(conf_parse(argc - 2, argv, &conf, err, sizeof(err)),
			 0);
	assert_int_equal(conf.nports, CONF_PORTS_MAX);
	assert_int_equal(conf_parse(argc, argv, &conf, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "more than 64 ports"));
}

/**
 * conf_file() - write @text to a fresh temporary file
 * @path:	its name, out (a mkstemp() template is filled in)
 * @text:	contents
 */
static void conf_file(char *path, const char *text)
{
	int fd;

	strcpy(path, "/tmp/vhostd-test-conf.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* --config FILE: the same options, one per line, in place of --config */
static void test_config_file(void **state)
{
	static const struct {
		const char *text;
		const char *err;	/* NULL: parses */
	} bad[] = {
		{ "workers 2\nbogus 1\n", ":2: unknown option 'bogus'" },
		{ "\n# c\nport vhost-user,path=/a,nokey=1\n",
		  ":3: --port 'vhost-user,path=/a,nokey=1': unknown key" },
		{ "workers\n", ":1: 'workers' needs a value" },
		{ "verbose 2\n", ":1: 'verbose' takes no value" },
		{ "help\n", ":1: 'help' is for the command line" },
		{ "config /etc/x\n", ":1: config may not name another file" },
		{ "workers 99\n", ":1: --workers '99': out of range" },
		{ "port vhost-user,path=/a\nport vhost-user,path=/a\n",
		  "both use path '/a'" },
	};
	char path[64], err[256];
	unsigned int i;

	(void)state;
	conf_file(path, "# vhostd.conf\n"
		  "  workers 2   \n"
		  "\n"
		  "port vhost-user,path=/run/vm1.sock,name=vm1\n"
		  "--port=vhost-user,path=/run/vm2.sock\r\n"
		  "\t# indented comment\n"
		  "poll-us = 0\n"
		  "verbose");
	assert_int_equal(parse(&conf, err, "--port", "vhost-user,path=/c",
			       "--config", path, "--fdb-age", "7",
			       (char *)NULL), 0);
	assert_int_equal(conf.nports, 3);
	assert_string_equal(conf.ports[0].name, "vu0");
	assert_string_equal(conf.ports[1].name, "vm1");
	assert_string_equal(conf.ports[2].name, "vu2");
	assert_int_equal(conf.from_file, 6);	/* ports 1 and 2 */
	assert_int_equal(conf.line[1], 4);
	assert_int_equal(conf.line[2], 5);
	assert_int_equal(conf.workers, 2);
	assert_int_equal(conf.poll_us, 0);
	assert_int_equal(conf.fdb_age_s, 7);
	assert_int_equal(conf.verbose, 1);
	assert_string_equal(conf.config_path, path);
	/* The command line after --config overrides it. */
	assert_int_equal(parse(&conf, err, "--config", path, "--workers", "3",
			       (char *)NULL), 0);
	assert_int_equal(conf.workers, 3);
	assert_int_equal(parse(&conf, err, "--config", path, "--config", path,
			       (char *)NULL), -EINVAL);
	assert_non_null(strstr(err, "--config given twice"));
	unlink(path);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		conf_file(path, bad[i].text);
		if (!bad[i].err) {
			assert_int_equal(parse(&conf, err, "--config", path,
					       (char *)NULL), 0);
		} else {
			assert_int_equal(parse(&conf, err, "--config", path,
					       (char *)NULL), -EINVAL);
			if (!strstr(err, bad[i].err) ||
			    strncmp(err, "vhostd: ", 8))
				fail_msg("%u: '%s' lacks '%s'", i, err,
					 bad[i].err);
			if (bad[i].err[0] == ':' && !strstr(err, path))
				fail_msg("%u: '%s' lacks the file name", i,
					 err);
		}
		unlink(path);
	}
	assert_int_equal(parse(&conf, err, "--config", "/nonexistent/x",
			       (char *)NULL), -EINVAL);
	assert_non_null(strstr(err, "No such file"));
	assert_int_equal(parse(&conf, err, "--config", "/tmp", (char *)NULL),
			 -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
}

/* What a reload may not change is named, the ports aside. */
static void test_same_settings(void **state)
{
	static struct conf other;
	char err[256];

	(void)state;
	assert_int_equal(parse(&conf, err, "--port", "vhost-user,path=/a",
			       "--workers", "2", (char *)NULL), 0);
	assert_int_equal(parse(&other, err, "--port", "vhost-user,path=/b",
			       "--workers", "2", (char *)NULL), 0);
	assert_null(conf_same_settings(&conf, &other));
	assert_int_equal(parse(&other, err, "--workers", "3", (char *)NULL), 0);
	assert_string_equal(conf_same_settings(&conf, &other), "workers");
	assert_int_equal(parse(&other, err, "--workers", "2", "--poll-us", "1",
			       (char *)NULL), 0);
	assert_string_equal(conf_same_settings(&conf, &other), "poll-us");
}

static void test_help_version(void **state)
{
	char err[256];
	FILE *saved = stdout;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem;

	/* --help goes to stdout and asks main to exit 0. */
	mem = open_memstream(&buf, &len);
	assert_non_null(mem);
	stdout = mem;
	assert_int_equal(parse(&conf, err, "--help", (char *)NULL), 1);
	assert_int_equal(parse(&conf, err, "-V", (char *)NULL), 1);
	stdout = saved;
	fclose(mem);
	assert_non_null(strstr(buf, "--port vhost-user,path=SOCK"));
	assert_non_null(strstr(buf, "--fdb-age"));
	assert_non_null(strstr(buf, "vhostd 0"));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_port_specs),
		cmocka_unit_test(test_option_tables),
		cmocka_unit_test(test_port_opt),
		cmocka_unit_test(test_dgram),
		cmocka_unit_test(test_vxlan),
		cmocka_unit_test(test_docs_list_keys),
		cmocka_unit_test(test_max_mem),
		cmocka_unit_test(test_l2_keys),
		cmocka_unit_test(test_l2_same_mac),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_bad_command_lines),
		cmocka_unit_test(test_too_many_ports),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_config_file),
		cmocka_unit_test(test_same_settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
