// SPDX-License-Identifier: GPL-2.0-or-later
/* vhostctl_json.c - a small JSON reader for the daemon's replies
 *
 * vhostctl prints tables from the same JSON that scripts read, so the
 * daemon has one reply format per command and nothing to render.  This
 * reads a whole reply (RFC 8259, no extensions) into a flat array of
 * nodes linked by index: the text is decoded in place (strings are
 * unescaped where they lie and NUL-terminated, which never needs more
 * room than their escaped form), numbers are converted once.  One
 * allocation that grows, one release: vj_free().
 *
 * The daemon is trusted to be vhostd, not to be bug-free: any input is
 * either read or refused with a reason, nesting is bounded (VJ_DEPTH_MAX)
 * and a missing member reads as absent, never as a crash.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vhostctl.h"

#define VJ_DEPTH_MAX	32	/* the replies nest 5 deep */

/**
 * struct vj_parser - the reader's state
 * @j:		the nodes made so far
 * @p:		next byte of the text
 * @depth:	arrays and objects open
 * @err:	why it failed (static text), NULL while it has not
 */
struct vj_parser {
	struct vj *j;
	char *p;
	unsigned int depth;
	const char *err;
};

static int vj_value(struct vj_parser *ps, const char *key);

/**
 * vj_ws() - skip blanks
 * @ps:		reader
 */
static void vj_ws(struct vj_parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' ||
	       *ps->p == '\r')
		ps->p++;
}

/**
 * vj_fail() - note a failure
 * @ps:		reader
 * @why:	static text
 * Return: -1
 */
static int vj_fail(struct vj_parser *ps, const char *why)
{
	if (!ps->err)
		ps->err = why;
	return -1;
}

/**
 * vj_new() - a new node
 * @ps:		reader
 * @type:	its type
 * @key:	its member name, or NULL in an array
 * Return: its index, or -1 (out of memory)
 */
static int vj_new(struct vj_parser *ps, enum vj_type type, const char *key)
{
	struct vj *j = ps->j;
	struct vj_node *v;

	if (j->n == j->cap) {
		unsigned int cap = j->cap ? 2 * j->cap : 256;

		v = realloc(j->v, cap * sizeof(*v));
		if (!v)
			return vj_fail(ps, "out of memory");
		j->v = v;
		j->cap = cap;
	}
	v = &j->v[j->n];
	*v = (struct vj_node){ .type = type, .key = key, .next = -1,
			       .child = -1 };
	return (int)j->n++;
}

/**
 * vj_hex4() - four hex digits
 * @s:		text
 * Return: their value, or -1
 */
static long vj_hex4(const char *s)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		int c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/**
 * vj_string() - read a string at ps->p (on its opening quote), in place
 * @ps:		reader
 * Return: the decoded, NUL-terminated text, or NULL
 *
 * \uXXXX becomes UTF-8 (at most 3 bytes for the 6 of the escape);
 * a surrogate, which vhostd never writes, becomes '?'.
 */
static char *vj_string(struct vj_parser *ps)
{
	char *r = ps->p + 1, *w = r, *s = r;

	for (;;) {
		unsigned char c = (unsigned char)*r;
		long u;

		if (!c) {
			vj_fail(ps, "unterminated string");
			return NULL;
		}
		if (c < 0x20) {
			vj_fail(ps, "control character in a string");
			return NULL;
		}
		if (c == '"')
			break;
		if (c != '\\') {
			*w++ = (char)c;
			r++;
			continue;
		}
		r++;
		switch (*r) {
		case '"': case '\\': case '/':
			*w++ = *r++;
			continue;
		case 'b': *w++ = '\b'; r++; continue;
		case 'f': *w++ = '\f'; r++; continue;
		case 'n': *w++ = '\n'; r++; continue;
		case 'r': *w++ = '\r'; r++; continue;
		case 't': *w++ = '\t'; r++; continue;
		case 'u':
			break;
		default:
			vj_fail(ps, "bad escape in a string");
			return NULL;
		}
		u = vj_hex4(r + 1);
		if (u < 0) {
			vj_fail(ps, "bad \\u escape");
			return NULL;
		}
		r += 5;
		if (u < 0x80) {
			*w++ = (char)(u ? u : '?');	/* no NUL inside */
		} else if (u < 0x800) {
			*w++ = (char)(0xc0 | (u >> 6));
			*w++ = (char)(0x80 | (u & 0x3f));
		} else if (u >= 0xd800 && u < 0xe000) {
			*w++ = '?';
		} else {
			*w++ = (char)(0xe0 | (u >> 12));
			*w++ = (char)(0x80 | ((u >> 6) & 0x3f));
			*w++ = (char)(0x80 | (u & 0x3f));
		}
	}
	ps->p = r + 1;
	*w = '\0';	/* w <= r: on or before the closing quote */
	return s;
}

/**
 * vj_number() - read a number at ps->p
 * @ps:		reader
 * @v:		its node
 * Return: 0 or -1
 */
static int vj_number(struct vj_parser *ps, struct vj_node *v)
{
	char *e;

	v->num = strtod(ps->p, &e);
	if (e == ps->p)
		return vj_fail(ps, "bad number");
	if (*ps->p != '-') {
		char *eu;

		errno = 0;
		v->u64 = strtoull(ps->p, &eu, 10);
		/* A fraction, an exponent, or too large: from the double,
		 * which may be beyond any uint64_t (1e300).
		 */
		if (errno || eu != e)
			v->u64 = !(v->num > 0) ? 0 :
				 v->num >= 18446744073709551616.0 ? UINT64_MAX :
				 (uint64_t)v->num;
	}
	ps->p = e;
	return 0;
}

/**
 * vj_children() - read the members of an object or the items of an array
 * @ps:		reader, on the '{' or '['
 * @idx:	the container's node
 * @close:	'}' or ']'
 * Return: 0 or -1
 */
static int vj_children(struct vj_parser *ps, int idx, char close)
{
	int last = -1;

	if (++ps->depth > VJ_DEPTH_MAX)
		return vj_fail(ps, "nested too deep");
	ps->p++;
	vj_ws(ps);
	if (*ps->p == close) {
		ps->p++;
		ps->depth--;
		return 0;
	}
	for (;;) {
		const char *key = NULL;
		int c;

		vj_ws(ps);
		if (close == '}') {
			if (*ps->p != '"')
				return vj_fail(ps, "expected a member name");
			key = vj_string(ps);
			if (!key)
				return -1;
			vj_ws(ps);
			if (*ps->p != ':')
				return vj_fail(ps, "expected ':'");
			ps->p++;
		}
		c = vj_value(ps, key);
		if (c < 0)
			return -1;
		if (last < 0)
			ps->j->v[idx].child = c;
		else
			ps->j->v[last].next = c;
		ps->j->v[idx].n++;
		last = c;
		vj_ws(ps);
		if (*ps->p == ',') {
			ps->p++;
			continue;
		}
		if (*ps->p != close)
			return vj_fail(ps, close == '}' ? "expected ',' or '}'" :
				       "expected ',' or ']'");
		ps->p++;
		ps->depth--;
		return 0;
	}
}

/**
 * vj_value() - read one value
 * @ps:		reader
 * @key:	its member name, or NULL
 * Return: its node's index, or -1
 */
static int vj_value(struct vj_parser *ps, const char *key)
{
	int idx;

	vj_ws(ps);
	switch (*ps->p) {
	case '{':
	case '[':
		idx = vj_new(ps, *ps->p == '{' ? VJ_OBJ : VJ_ARR, key);
		if (idx < 0 || vj_children(ps, idx, *ps->p == '{' ? '}' : ']'))
			return -1;
		return idx;
	case '"': {
		char *s;

		idx = vj_new(ps, VJ_STR, key);
		if (idx < 0 || !(s = vj_string(ps)))
			return -1;
		ps->j->v[idx].str = s;
		return idx;
	}
	case 't':
	case 'f':
	case 'n': {
		static const char *const words[] = { "true", "false", "null" };
		static const enum vj_type types[] = { VJ_TRUE, VJ_FALSE,
						      VJ_NULL };
		unsigned int i;

		for (i = 0; i < 3; i++)
			if (!strncmp(ps->p, words[i], strlen(words[i])))
				break;
		if (i == 3)
			return vj_fail(ps, "unknown word");
		ps->p += strlen(words[i]);
		return vj_new(ps, types[i], key);
	}
	default:
		if (*ps->p != '-' && (*ps->p < '0' || *ps->p > '9'))
			return vj_fail(ps, *ps->p ? "unexpected character" :
				       "unexpected end");
		idx = vj_new(ps, VJ_NUM, key);
		if (idx < 0 || vj_number(ps, &ps->j->v[idx]))
			return -1;
		return idx;
	}
}

/**
 * vj_parse() - read one JSON text
 * @j:		out: the nodes, the root at index 0 (zeroed by the caller)
 * @text:	NUL-terminated; decoded in place, and must outlive @j
 * @err:	out: why it failed (static text)
 * Return: 0, or -EINVAL (@j holds what was read: vj_free() it)
 */
int vj_parse(struct vj *j, char *text, const char **err)
{
	struct vj_parser ps = { .j = j, .p = text };

	if (vj_value(&ps, NULL) < 0) {
		*err = ps.err ? ps.err : "bad reply";
		return -EINVAL;
	}
	vj_ws(&ps);
	if (*ps.p) {
		*err = "text after the reply";
		return -EINVAL;
	}
	return 0;
}

/**
 * vj_free() - release what vj_parse() made
 * @j:		nodes
 */
void vj_free(struct vj *j)
{
	free(j->v);
	*j = (struct vj){ 0 };
}

/**
 * vj_get() - member @key of object @o
 * @j:		nodes
 * @o:		object, or NULL
 * @key:	member name; "a.b" goes through member a to its member b
 * Return: the member, or NULL (no such member, @o not an object)
 */
const struct vj_node *vj_get(const struct vj *j, const struct vj_node *o,
			     const char *key)
{
	const char *dot = strchr(key, '.');
	size_t len = dot ? (size_t)(dot - key) : strlen(key);
	const struct vj_node *c;

	if (!o || o->type != VJ_OBJ)
		return NULL;
	for (c = vj_first(j, o); c; c = vj_next(j, c))
		if (strlen(c->key) == len && !memcmp(c->key, key, len))
			return dot ? vj_get(j, c, dot + 1) : c;
	return NULL;
}

/**
 * vj_first() - the first member or item of @o
 * @j:		nodes
 * @o:		object or array, or NULL
 * Return: it, or NULL
 */
const struct vj_node *vj_first(const struct vj *j, const struct vj_node *o)
{
	if (!o || (o->type != VJ_OBJ && o->type != VJ_ARR) || o->child < 0)
		return NULL;
	return &j->v[o->child];
}

/**
 * vj_next() - the member or item after @c
 * @j:		nodes
 * @c:		a member or item
 * Return: it, or NULL
 */
const struct vj_node *vj_next(const struct vj *j, const struct vj_node *c)
{
	return c->next < 0 ? NULL : &j->v[c->next];
}

/**
 * vj_u64() - a counter's value
 * @v:		node, or NULL
 * Return: its value if a non-negative number; the sum of the numbers in
 *	   it if an object (a counter group such as "drops"); else 0
 */
uint64_t vj_u64(const struct vj *j, const struct vj_node *v)
{
	const struct vj_node *c;
	uint64_t sum = 0;

	if (!v)
		return 0;
	if (v->type == VJ_NUM)
		return v->u64;
	if (v->type != VJ_OBJ)
		return 0;
	for (c = vj_first(j, v); c; c = vj_next(j, c))
		sum += vj_u64(j, c);
	return sum;
}

/**
 * vj_str() - a string's text
 * @v:		node, or NULL
 * @def:	what to return for anything but a string
 * Return: the text or @def
 */
const char *vj_str(const struct vj_node *v, const char *def)
{
	return v && v->type == VJ_STR ? v->str : def;
}

/**
 * vj_true() - whether @v is true
 * @v:		node, or NULL
 * Return: true only for the literal true
 */
bool vj_true(const struct vj_node *v)
{
	return v && v->type == VJ_TRUE;
}
