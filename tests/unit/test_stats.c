// SPDX-License-Identifier: GPL-2.0-or-later
/* test_stats.c - unit tests of the counter tables and of ctl's output
 *
 * The tables (stats_common, stats_direct, each port type's) are the only
 * description of the counters: checked here are their names (unique, in
 * the form JSON and Prometheus want), their offsets (inside struct
 * port_stats, no two on one word, no word but spare[] left out), and
 * that ctl shows a port each counter of its tables exactly once, with
 * its value summed over the slots, in the right JSON object -- and none
 * of another type's.  A port of the switch is made with a client-mode
 * vhost-user spec whose socket does not exist (nothing is opened), and
 * its ops swapped for the type under test: ctl reads only ->type and
 * ->counters of them.
 */
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
#include "../../src/stats.h"
#include "../../src/switch.h"
#include "../../src/util.h"
#include "../../src/worker.h"
#include "../../src/port/port.h"

#define WORDS		(sizeof(struct port_stats) / sizeof(uint64_t))
#define SPARE		(offsetof(struct port_stats, spare) / sizeof(uint64_t))
#define TABLES_MAX	16

/* The registered port types, from port.c's registry (types_init()). */
#define TYPES_MAX	8
static const char *types[TYPES_MAX];
static unsigned int ntypes;

/**
 * types_init() - every registered port type's name into types[]
 */
static void types_init(void)
{
	const struct port_ops *ops;

	for (ntypes = 0; (ops = port_ops_at(ntypes)); ntypes++) {
		assert_true(ntypes < TYPES_MAX);
		types[ntypes] = ops->type;
	}
	assert_true(ntypes >= 3);	/* vhost-user, tap, dgram at least */
}

/* A type with no counters of its own: only stats_common shows. */
static const struct port_ops fake_ops = { .type = "fake" };

/* JSON keys of a port that are not counters (ctl_cmd_ports()). */
static const char *const reserved[] = { "idx", "name", "type", "up", "macs" };

static const struct stats_table *tables[TABLES_MAX];
static unsigned int ntables;

/**
 * tables_collect() - stats_common and every distinct table of every type
 */
static void tables_collect(void)
{
	unsigned int i, k, j;

	ntables = 0;
	tables[ntables++] = &stats_common;
	types_init();
	for (i = 0; i < ntypes; i++) {
		const struct port_ops *ops = port_ops_find(types[i]);

		assert_non_null(ops);
		for (k = 0; ops->counters && ops->counters[k]; k++) {
			/* ctl prints stats_common for every port already */
			assert_ptr_not_equal(ops->counters[k], &stats_common);
			for (j = 0; j < ntables; j++)
				if (tables[j] == ops->counters[k])
					break;
			if (j == ntables) {
				assert_true(ntables < TABLES_MAX);
				tables[ntables++] = ops->counters[k];
			}
		}
	}
}

/**
 * name_ok() - @s is a non-empty [a-z0-9_]+ starting with a letter
 * @s:		name
 * Return: true if so
 */
static bool name_ok(const char *s)
{
	if (!s || !(*s >= 'a' && *s <= 'z'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

/**
 * ends_with() - whether @s ends in @tail
 * @s:		string
 * @tail:	suffix
 * Return: true if so
 */
static bool ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);

	return a >= b && !strcmp(s + a - b, tail);
}

/**
 * same_group() - whether @a and @b sit in one JSON object of a group
 * @a:		descriptor
 * @b:		descriptor
 * Return: true if both have a group, the same
 */
static bool same_group(const struct stats_desc *a, const struct stats_desc *b)
{
	return a->group && b->group && !strcmp(a->group, b->group);
}

/* Names are well formed; metric names unique over every table. */
static void test_names(void **state)
{
	const char *metrics[64];
	unsigned int nm = 0, t, i, j, d;

	tables_collect();
	for (t = 0; t < ntables; t++) {
		for (i = 0; i < tables[t]->n; i++) {
			const struct stats_desc *sd = &tables[t]->desc[i];

			assert_true(name_ok(sd->key));
			assert_true(name_ok(sd->metric));
			assert_true(!sd->group || name_ok(sd->group));
			assert_true(sd->help && *sd->help);
			assert_null(strpbrk(sd->help, "\\\n"));
			if (sd->kind == STATS_COUNTER)
				assert_true(ends_with(sd->metric, "_total"));
			else
				assert_false(ends_with(sd->metric, "_total"));
			/* An array has a label and a name per element. */
			assert_true(sd->n >= 1);
			assert_true(!sd->names == !sd->label);
			if (sd->names) {
				assert_true(name_ok(sd->label));
				for (d = 0; d < sd->n; d++) {
					assert_true(name_ok(sd->names[d]));
					for (j = 0; j < d; j++)
						assert_string_not_equal(
							sd->names[j],
							sd->names[d]);
				}
			} else {
				assert_int_equal(sd->n, 1);
			}
			/* A group's descriptors are consecutive. */
			for (j = 0; sd->group && j < i; j++)
				if (same_group(&tables[t]->desc[j], sd))
					break;
			for (; sd->group && j < i; j++)
				assert_true(same_group(&tables[t]->desc[j],
						       sd));
			for (j = 0; j < nm; j++)
				assert_string_not_equal(metrics[j], sd->metric);
			assert_true(nm < ARRAY_SIZE(metrics));
			metrics[nm++] = sd->metric;
		}
	}
}

/**
 * keys_check() - the JSON keys a port of type @ops shows are unique
 * @ops:	port type
 *
 * At the port's level: the reserved ones, the keys without a group and
 * the group names (one each); inside a group: its keys.
 */
static void keys_check(const struct port_ops *ops)
{
	const char *top[64], *in[64], *ingroup[64];
	unsigned int nt = 0, ni = 0, k, i, j;
	const struct stats_table *t;

	for (i = 0; i < ARRAY_SIZE(reserved); i++)
		top[nt++] = reserved[i];
	for (k = 0; (t = k ? (ops->counters ? ops->counters[k - 1] : NULL) :
			    &stats_common); k++) {
		for (i = 0; i < t->n; i++) {
			const struct stats_desc *sd = &t->desc[i];
			const char *name = sd->group ? sd->group : sd->key;
			bool seen = false;

			if (sd->group) {
				for (j = 0; j < ni; j++) {
					if (!strcmp(ingroup[j], sd->group))
						assert_string_not_equal(
							in[j], sd->key);
				}
				assert_true(ni < ARRAY_SIZE(in));
				ingroup[ni] = sd->group;
				in[ni++] = sd->key;
				/* the group's object, once per table */
				seen = i && t->desc[i - 1].group &&
				       !strcmp(t->desc[i - 1].group, sd->group);
			}
			if (seen)
				continue;
			for (j = 0; j < nt; j++)
				assert_string_not_equal(top[j], name);
			assert_true(nt < ARRAY_SIZE(top));
			top[nt++] = name;
		}
	}
}

/* No port type shows one JSON key twice. */
static void test_keys(void **state)
{
	unsigned int i;

	keys_check(&fake_ops);
	types_init();
	for (i = 0; i < ntypes; i++)
		keys_check(port_ops_find(types[i]));
}

/**
 * layout_count() - add the words table @t describes to @seen
 * @t:		table
 * @seen:	per word of struct port_stats, how often described
 */
static void layout_count(const struct stats_table *t, unsigned int *seen)
{
	unsigned int i, w;

	for (i = 0; i < t->n; i++) {
		const struct stats_desc *sd = &t->desc[i];

		assert_int_equal(sd->off % sizeof(uint64_t), 0);
		assert_true(sd->off / sizeof(uint64_t) + sd->n <= SPARE);
		for (w = 0; w < sd->n; w++)
			seen[sd->off / sizeof(uint64_t) + w]++;
	}
}

/* Every word of struct port_stats but spare[] is described by some
 * table, and no port type shows one word twice (two types may each show
 * a word under a name of their own: dgram's "foreign" is the word
 * vhost-user calls "peer_refused").
 */
static void test_layout(void **state)
{
	unsigned int any[WORDS] = { 0 };
	unsigned int t, k, w;

	tables_collect();
	for (t = 0; t < ntables; t++)
		layout_count(tables[t], any);
	for (w = 0; w < WORDS; w++)
		assert_int_equal(!!any[w], w < SPARE ? 1 : 0);
	for (t = 0; t < ntypes; t++) {
		const struct port_ops *ops = port_ops_find(types[t]);
		unsigned int seen[WORDS] = { 0 };

		layout_count(&stats_common, seen);
		for (k = 0; ops->counters && ops->counters[k]; k++)
			layout_count(ops->counters[k], seen);
		for (w = 0; w < WORDS; w++)
			if (seen[w] > 1)
				fail_msg("%s shows word %u %u times",
					 ops->type, w, seen[w]);
	}
}

/**
 * value() - what word @w of the test port's counters sums to
 * @w:		word index in struct port_stats
 * Return: a value no other word has, not a prefix of another's digits
 */
static uint64_t value(unsigned int w)
{
	return 1000001ULL + w * 1009ULL;
}

/**
 * port_fill() - give every word of @p's counters its value(): most in
 *		 slot 0, 1 in the last slot (ctl must sum them)
 * @p:		port
 */
static void port_fill(struct port *p)
{
	unsigned int w;

	memset(p->stats, 0, sizeof(p->stats));
	for (w = 0; w < WORDS; w++) {
		((uint64_t *)(void *)&p->stats[0])[w] = value(w) - 1;
		((uint64_t *)(void *)&p->stats[STATS_SLOTS - 1])[w] = 1;
	}
}

/**
 * count() - occurrences of @needle in @hay
 * @hay:	text
 * @needle:	text
 * Return: how many (not overlapping)
 */
static unsigned int count(const char *hay, const char *needle)
{
	unsigned int n = 0;
	const char *s = hay;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/**
 * json_value() - where ":V" followed by ',' or '}' is in @json
 * @json:	reply
 * @v:		value
 * @n:		set to how many there are
 * Return: the position of the first ':' (NULL if none)
 */
static const char *json_value(const char *json, uint64_t v, unsigned int *n)
{
	const char *s = json, *first = NULL;
	char pat[32];

	snprintf(pat, sizeof(pat), ":%llu", (unsigned long long)v);
	*n = 0;
	while ((s = strstr(s, pat))) {
		s += strlen(pat);
		if (*s == ',' || *s == '}') {
			if (!first)
				first = s - strlen(pat);
			(*n)++;
		}
	}
	return first;
}

/**
 * key_before() - the JSON key before @pos (which is at its ':')
 * @json:	reply
 * @pos:	a ':' in @json
 * @key:	set to the key, without quotes
 * @size:	of @key
 */
static void key_before(const char *json, const char *pos, char *key,
		       size_t size)
{
	const char *e = pos - 1, *s;

	assert_true(e > json && *e == '"');
	for (s = e - 1; s > json && *s != '"'; s--)
		;
	assert_true(*s == '"' && (size_t)(e - s) < size);
	memcpy(key, s + 1, (size_t)(e - s - 1));
	key[e - s - 1] = '\0';
}

/**
 * enclosing() - the object @pos is in: the key it is the value of
 * @json:	reply
 * @pos:	position inside an object
 * @key:	set to the key, or "" for the port's own object (whose '{'
 *		starts a line)
 * @size:	of @key
 * Return: position of the object's '{'
 */
static const char *enclosing(const char *json, const char *pos, char *key,
			     size_t size)
{
	const char *s;
	int depth = 0;

	for (s = pos - 1; s >= json; s--) {
		if (*s == '}') {
			depth++;
		} else if (*s == '{' && depth) {
			depth--;
		} else if (*s == '{') {
			if (s > json && s[-1] == ':')
				key_before(json, s - 1, key, size);
			else
				key[0] = '\0';
			return s;
		}
	}
	fail_msg("no object around offset %td", pos - json);
	return NULL;
}

/**
 * shown() - whether a port of type @ops shows descriptor table @t
 * @ops:	port type
 * @t:		table
 * Return: true if @t is stats_common or in @ops->counters
 */
static bool shown(const struct port_ops *ops, const struct stats_table *t)
{
	unsigned int k;

	if (t == &stats_common)
		return true;
	for (k = 0; ops->counters && ops->counters[k]; k++)
		if (ops->counters[k] == t)
			return true;
	return false;
}

/**
 * check_json() - "stats" shows each counter of @ops's tables once, with
 *		  its value, in its object; no other word of the counters
 * @ops:	the port's type
 */
static void check_json(const struct port_ops *ops)
{
	bool described[WORDS] = { false };
	unsigned int t, i, d, n, w;
	char key[64], obj[64];
	char *json = NULL;
	const char *at, *o;
	size_t len;

	assert_int_equal(ctl_exec("stats", &json, &len), 0);
	for (t = 0; t < ntables; t++) {
		if (!shown(ops, tables[t]))
			continue;
		for (i = 0; i < tables[t]->n; i++) {
			const struct stats_desc *sd = &tables[t]->desc[i];

			for (d = 0; d < sd->n; d++) {
				w = (unsigned int)(sd->off / sizeof(uint64_t)) + d;
				described[w] = true;
				at = json_value(json, value(w), &n);
				if (n != 1)
					fail_msg("%s: %s[%u] shown %u times",
						 ops->type, sd->key, d, n);
				key_before(json, at, key, sizeof(key));
				o = enclosing(json, at, obj, sizeof(obj));
				if (sd->names) {
					assert_string_equal(key, sd->names[d]);
					assert_string_equal(obj, sd->key);
					o = enclosing(json, o, obj, sizeof(obj));
				} else {
					assert_string_equal(key, sd->key);
				}
				if (sd->group) {
					assert_string_equal(obj, sd->group);
					o = enclosing(json, o, obj, sizeof(obj));
				}
				assert_string_equal(obj, "");
			}
		}
	}
	for (w = 0; w < WORDS; w++) {
		if (described[w])
			continue;
		json_value(json, value(w), &n);
		if (n)
			fail_msg("%s: word %u shown, not in its tables",
				 ops->type, w);
	}
	free(json);
}

/**
 * check_metrics() - "metrics" has one family per counter of @ops's
 *		     tables, each sample once with its value; nothing of
 *		     the other tables
 * @ops:	the port's type
 * @port:	the port's name
 */
static void check_metrics(const struct port_ops *ops, const char *port)
{
	bool described[WORDS] = { false };
	unsigned int t, i, d, w;
	char line[256];
	char *text = NULL;
	size_t len;

	assert_int_equal(ctl_exec("metrics", &text, &len), 0);
	for (t = 0; t < ntables; t++) {
		for (i = 0; i < tables[t]->n; i++) {
			const struct stats_desc *sd = &tables[t]->desc[i];
			unsigned int want = shown(ops, tables[t]) ? 1 : 0;

			snprintf(line, sizeof(line), "# HELP vhostd_port_%s %s\n",
				 sd->metric, sd->help);
			assert_int_equal(count(text, line), want);
			snprintf(line, sizeof(line), "# TYPE vhostd_port_%s %s\n",
				 sd->metric, sd->kind == STATS_GAUGE ?
				 "gauge" : "counter");
			assert_int_equal(count(text, line), want);
			for (d = 0; want && d < sd->n; d++) {
				w = (unsigned int)(sd->off / sizeof(uint64_t)) + d;
				described[w] = true;
				if (sd->names)
					snprintf(line, sizeof(line),
						 "vhostd_port_%s{port=\"%s\","
						 "type=\"%s\",%s=\"%s\"} %llu\n",
						 sd->metric, port, ops->type,
						 sd->label, sd->names[d],
						 (unsigned long long)value(w));
				else
					snprintf(line, sizeof(line),
						 "vhostd_port_%s{port=\"%s\","
						 "type=\"%s\"} %llu\n",
						 sd->metric, port, ops->type,
						 (unsigned long long)value(w));
				if (count(text, line) != 1)
					fail_msg("no (or a second) %s", line);
			}
		}
	}
	for (w = 0; w < WORDS; w++) {
		snprintf(line, sizeof(line), " %llu\n",
			 (unsigned long long)value(w));
		assert_int_equal(count(text, line), described[w] ? 1 : 0);
	}
	free(text);
}

/**
 * families_together() - every metric's samples are in one run, after its
 *			 single # TYPE line
 * @text:	"metrics" reply
 */
static void families_together(const char *text)
{
	char done[128][64], last[64] = "", name[64];
	unsigned int ndone = 0, i;
	const char *s, *e;

	for (s = text; *s; s = e + 1) {
		size_t n;

		e = strchr(s, '\n');
		assert_non_null(e);
		if (*s == '#')
			continue;
		n = strcspn(s, "{ ");
		assert_true(n < sizeof(name));
		memcpy(name, s, n);
		name[n] = '\0';
		if (!strcmp(name, last))
			continue;
		for (i = 0; i < ndone; i++)
			if (!strcmp(done[i], name))
				fail_msg("%s: samples not together", name);
		if (*last) {
			assert_true(ndone < ARRAY_SIZE(done));
			strcpy(done[ndone++], last);
		}
		strcpy(last, name);
		snprintf(name, sizeof(name), "# TYPE %s ", last);
		assert_int_equal(count(text, name), 1);
	}
}

/**
 * samples_of() - @p has the samples of its tables' counters, no others
 * @text:	"metrics" reply
 * @p:		port
 */
static void samples_of(const char *text, const struct port *p)
{
	const struct stats_desc *sd;
	unsigned int t, i, n;
	char pre[128];

	for (t = 0; t < ntables; t++) {
		for (i = 0; i < tables[t]->n; i++) {
			sd = &tables[t]->desc[i];
			snprintf(pre, sizeof(pre), "\nvhostd_port_%s{port=\"%s\",",
				 sd->metric, p->name);
			n = count(text, pre);
			if (n != (shown(p->ops, tables[t]) ? sd->n : 0))
				fail_msg("%s (%s): %u samples of %s", p->name,
					 p->ops->type, n, sd->metric);
		}
	}
}

/**
 * port_make() - a port of the switch that opens nothing
 * @name:	its name
 * Return: the port (type vhost-user, client of a socket not there)
 */
static struct port *port_make(const char *name)
{
	char spec[128], err[128];
	struct port_spec cp;
	int idx;

	snprintf(spec, sizeof(spec), "vhost-user,path=/nonexistent/vhostd-"
		 "test-stats/%s.sock,client,name=%s", name, name);
	assert_int_equal(conf_parse_port(spec, 0, &cp, err, sizeof(err)), 0);
	idx = switch_port_add(&cp);
	assert_true(idx >= 0);
	return switch_port((unsigned int)idx);
}

/* One port of each type: exactly its tables, values summed. */
static void test_ctl_each_type(void **state)
{
	struct port *p;
	unsigned int i;

	tables_collect();
	switch_init(300);
	p = port_make("p0");
	port_fill(p);

	p->ops = &fake_ops;
	check_json(&fake_ops);
	check_metrics(&fake_ops, "p0");
	for (i = 0; i < ntypes; i++) {
		void *own = p->priv;

		/* A type's ctl hooks (queue_stats, peer) read its own
		 * state: give it a zeroed one, a port of it opened nothing.
		 */
		p->ops = port_ops_find(types[i]);
		if (p->ops != &port_vhost_ops)
			p->priv = calloc(1, p->ops->priv_size);
		check_json(p->ops);
		check_metrics(p->ops, "p0");
		if (p->priv != own)
			free(p->priv);
		p->priv = own;
	}
	p->ops = &port_vhost_ops;
	switch_port_del(p->idx);
}

/* Ports of several types at once: each family printed once, together. */
static void test_ctl_mixed(void **state)
{
	struct port *p[TYPES_MAX * 2 + 1];
	void *own[TYPES_MAX * 2 + 1];
	char name[16], *text = NULL;
	unsigned int i, n;
	size_t len;

	types_init();
	n = ntypes * 2 + 1;
	switch_init(300);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%u", i);
		p[i] = port_make(name);
		p[i]->ops = i == n - 1 ? &fake_ops :
			    port_ops_find(types[i % ntypes]);
		own[i] = p[i]->priv;	/* see test_ctl_each_type() */
		if (p[i]->ops != &port_vhost_ops && p[i]->ops != &fake_ops)
			p[i]->priv = calloc(1, p[i]->ops->priv_size);
	}
	tables_collect();
	assert_int_equal(ctl_exec("metrics", &text, &len), 0);
	families_together(text);
	for (i = 0; i < n; i++)
		samples_of(text, p[i]);
	free(text);
	assert_int_equal(ctl_exec("stats", &text, &len), 0);
	assert_int_equal(count(text, "\n{\"idx\":"), n);
	free(text);
	for (i = 0; i < n; i++) {
		if (p[i]->priv != own[i])
			free(p[i]->priv);
		p[i]->priv = own[i];
		p[i]->ops = &port_vhost_ops;
		switch_port_del(p[i]->idx);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_ctl_each_type),
		cmocka_unit_test(test_ctl_mixed),
	};

	/* The switch's ports reach the workers through port_host (source
	 * queues, quiescence): set up, never started, so that a quiesce
	 * has nobody to wait for.
	 */
	if (worker_init(1, 0, 1, NULL, 0) < 0)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
