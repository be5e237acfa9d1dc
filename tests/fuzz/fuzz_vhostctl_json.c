// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_vhostctl_json.c - libFuzzer harness for vhostctl's JSON reader
 *
 * Input: a reply as vhostctl would read it from the socket, up to the
 * first NUL (vhostctl stops there too).  vj_parse() must accept it or
 * refuse it with a reason, never crash or read past it; what it accepts
 * must be a well-formed tree: every index in range, each node reached
 * once from the root, an object's members all named, a container's @n
 * its items, and the lookups the tables make (vj_get() with a dotted
 * path, vj_u64() summing a group) safe on any shape.  The reader is
 * vhostctl's own file, compiled in here.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/vhostctl_json.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * walk() - check the subtree at @i, count its nodes
 * @j:		nodes
 * @i:		index
 * @seen:	one flag per node
 * Return: nodes in the subtree
 */
static unsigned int walk(const struct vj *j, int i, unsigned char *seen)
{
	const struct vj_node *v, *c;
	unsigned int n = 1, items = 0;

	if (i < 0 || (unsigned int)i >= j->n || seen[i])
		abort();
	seen[i] = 1;
	v = &j->v[i];
	if (v->type == VJ_STR && !v->str)
		abort();
	if (v->type != VJ_ARR && v->type != VJ_OBJ)
		return v->child == -1 ? 1 : (abort(), 0);
	for (c = vj_first(j, v); c; c = vj_next(j, c)) {
		if ((v->type == VJ_OBJ) != (c->key != NULL))
			abort();
		n += walk(j, (int)(c - j->v), seen);
		items++;
	}
	if (items != v->n)
		abort();
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vj j = { 0 };
	unsigned char *seen;
	const char *err = NULL;
	char *text;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (vj_parse(&j, text, &err)) {
		if (!err || !*err)
			abort();
	} else {
		seen = calloc(j.n, 1);
		if (!seen || walk(&j, 0, seen) != j.n)
			abort();
		free(seen);
		(void)vj_u64(&j, &j.v[0]);
		(void)vj_u64(&j, vj_get(&j, &j.v[0], "ports"));
		(void)vj_str(vj_get(&j, &j.v[0], "port.vhost.memory.bytes"), "");
		(void)vj_true(vj_get(&j, &j.v[0], "a.b.c.d"));
	}
	vj_free(&j);
	free(text);
	return 0;
}
