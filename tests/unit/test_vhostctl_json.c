// SPDX-License-Identifier: GPL-2.0-or-later
/* test_vhostctl_json.c - unit tests of vhostctl's JSON reader
 *
 * vhostctl lays its tables out from the daemon's JSON (cli/vhostctl_json.c,
 * compiled in here): the replies ctl_exec() builds must read back whole,
 * strings decode as the daemon escapes them, numbers read as counters
 * (negative, fractional and huge ones without undefined behaviour), and
 * anything malformed is refused with a reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "../../cli/vhostctl_json.c"
#include "../../src/ctl.h"

/* parse() - vj_parse() of a copy of @s; the copy is the caller's (free) */
static int parse(struct vj *j, const char *s, char **copy, const char **err)
{
	*copy = strdup(s);
	assert_non_null(*copy);
	*j = (struct vj){ 0 };
	return vj_parse(j, *copy, err);
}

static void test_reply(void **state)
{
	const char *s = "{\"ports\":[\n{\"idx\":0,\"name\":\"vu0\",\"up\":true,"
			"\"drops\":{\"no_buffer\":3,\"runt\":4},\"rx_bytes\":"
			"18446744073709551615,\"negotiated\":{\"ring\":\"split\","
			"\"queue_pairs\":2}},\n{\"idx\":1,\"name\":\"t0\","
			"\"up\":false,\"ring\":null}\n]}\n";
	const struct vj_node *ports, *p;
	const char *err;
	struct vj j;
	char *c;

	assert_int_equal(parse(&j, s, &c, &err), 0);
	ports = vj_get(&j, &j.v[0], "ports");
	assert_non_null(ports);
	assert_int_equal(ports->type, VJ_ARR);
	assert_int_equal(ports->n, 2);
	p = vj_first(&j, ports);
	assert_string_equal(vj_str(vj_get(&j, p, "name"), "?"), "vu0");
	assert_true(vj_true(vj_get(&j, p, "up")));
	assert_int_equal(vj_u64(&j, vj_get(&j, p, "drops")), 7);
	assert_true(vj_u64(&j, vj_get(&j, p, "rx_bytes")) == UINT64_MAX);
	assert_string_equal(vj_str(vj_get(&j, p, "negotiated.ring"), "?"),
			    "split");
	assert_int_equal(vj_u64(&j, vj_get(&j, p, "negotiated.queue_pairs")),
			 2);
	assert_null(vj_get(&j, p, "negotiated.ring.x"));
	assert_null(vj_get(&j, p, "nosuch"));
	p = vj_next(&j, p);
	assert_string_equal(vj_str(vj_get(&j, p, "name"), "?"), "t0");
	assert_false(vj_true(vj_get(&j, p, "up")));
	assert_int_equal(vj_get(&j, p, "ring")->type, VJ_NULL);
	assert_string_equal(vj_str(vj_get(&j, p, "ring"), "none"), "none");
	assert_null(vj_next(&j, p));
	assert_int_equal(vj_u64(&j, NULL), 0);
	vj_free(&j);
	free(c);
}

static void test_strings(void **state)
{
	const char *err;
	struct vj j;
	char *c;

	/* As ctl_json_esc() writes them, and what RFC 8259 adds. */
	assert_int_equal(parse(&j, "[\"a\\u0027b\\u00e9\\u20ac\\ud800\\\\\\\""
			       "\\/\\n\\t\\u0000\"]", &c, &err), 0);
	assert_string_equal(vj_first(&j, &j.v[0])->str,
			    "a'b\xc3\xa9\xe2\x82\xac?\\\"/\n\t?");
	vj_free(&j);
	free(c);
	assert_int_equal(parse(&j, "{\"\":\"\",\"k\\u0041\":1}", &c, &err), 0);
	assert_int_equal(vj_u64(&j, vj_get(&j, &j.v[0], "kA")), 1);
	vj_free(&j);
	free(c);
}

static void test_numbers(void **state)
{
	const struct vj_node *v;
	const char *err;
	struct vj j;
	char *c;

	assert_int_equal(parse(&j, "[-5, 1e3, 2.5, 1e300, -1e300, 0]", &c,
			       &err), 0);
	v = vj_first(&j, &j.v[0]);
	assert_true(v->num == -5 && v->u64 == 0);
	v = vj_next(&j, v);
	assert_true(v->u64 == 1000);
	v = vj_next(&j, v);
	assert_true(v->num == 2.5 && v->u64 == 2);
	v = vj_next(&j, v);
	assert_true(v->u64 == UINT64_MAX);
	v = vj_next(&j, v);
	assert_true(v->u64 == 0);
	vj_free(&j);
	free(c);
}

static void test_refused(void **state)
{
	static const char *const bad[] = {
		"", " ", "{", "[", "[1,]", "{\"a\"}", "{\"a\":}", "{a:1}",
		"tru", "nul", "\"abc", "[1] x", "[\"a\nb\"]", "[\"\\x\"]",
		"[\"\\u12\"]", "-", "[1 2]", "{\"a\":1,}", "}",
	};
	char deep[80];
	const char *err;
	unsigned int i;
	struct vj j;
	char *c;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = NULL;
		assert_int_equal(parse(&j, bad[i], &c, &err), -EINVAL);
		assert_non_null(err);
		vj_free(&j);
		free(c);
	}
	/* 32 arrays deep is read; 33 is refused. */
	memset(deep, 0, sizeof(deep));
	memset(deep, '[', 32);
	memset(deep + 32, ']', 32);
	assert_int_equal(parse(&j, deep, &c, &err), 0);
	vj_free(&j);
	free(c);
	memset(deep, '[', 33);
	memset(deep + 33, ']', 33);
	assert_int_equal(parse(&j, deep, &c, &err), -EINVAL);
	assert_string_equal(err, "nested too deep");
	vj_free(&j);
	free(c);
}

/* What the daemon answers without ports reads back. */
static void test_daemon_replies(void **state)
{
	static const char *const cmds[] = { "ports", "fdb", "captures",
					    "workers", "show nosuch" };
	unsigned int i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		const char *err = NULL;
		struct vj j = { 0 };
		char *reply = NULL;
		size_t len;

		ctl_exec(cmds[i], &reply, &len);
		assert_non_null(reply);
		assert_int_equal(vj_parse(&j, reply, &err), 0);
		if (i == 4)
			assert_string_equal(vj_str(vj_get(&j, &j.v[0],
							  "error"), "?"),
					    "show: no port named 'nosuch'");
		vj_free(&j);
		free(reply);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reply),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_daemon_replies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
