/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vhostctl.h - what the parts of vhostctl share
 *
 * vhostctl.c		options, the command table, the socket
 * vhostctl_capture.c	"capture": a pcap stream
 * vhostctl_json.c	a JSON reader for the daemon's replies
 * vhostctl_table.c	aligned columns, sizes and rates for people; the
 *			"ports", "fdb" and "captures" tables
 * vhostctl_show.c	"show PORT" for people
 * vhostctl_top.c	"top": rates per port, refreshed
 *
 * vhostctl_connect()	connect to the daemon at @path: fd, or -errno
 *			(the message printed).
 * vhostctl_fetch()	send one command line, read the whole reply: 0,
 *			1 (connection or daemon error, printed; an error
 *			reply printed as --json asks), @reply malloc'd.
 * vhostctl_capture()	"vhostctl capture ...": @argv from "capture" on;
 *			returns the exit status.
 * vhostctl_top()	"vhostctl top ...": @argv from "top" on; returns
 *			the exit status.
 */
#ifndef VHOSTCTL_H
#define VHOSTCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define VHOSTCTL_ERROR_PREFIX	"{\"error\""

int vhostctl_connect(const char *path);
int vhostctl_fetch(const char *path, const char *line, bool json,
		   char **reply, size_t *len);
int vhostctl_capture(const char *path, int argc, char **argv);
int vhostctl_top(const char *path, bool json, int argc, char **argv);

/* ---- vhostctl_json.c ---------------------------------------------------- */

/**
 * enum vj_type - what a JSON node is
 * @VJ_NULL:	null
 * @VJ_FALSE:	false
 * @VJ_TRUE:	true
 * @VJ_NUM:	a number (@num, and @u64 if not negative)
 * @VJ_STR:	a string (@str)
 * @VJ_ARR:	an array (@child, @n)
 * @VJ_OBJ:	an object (@child, @n; each member's @key)
 */
enum vj_type {
	VJ_NULL,
	VJ_FALSE,
	VJ_TRUE,
	VJ_NUM,
	VJ_STR,
	VJ_ARR,
	VJ_OBJ,
};

/**
 * struct vj_node - one value
 * @type:	enum vj_type
 * @key:	its name in the object holding it, NULL in an array
 * @str:	VJ_STR: the decoded text
 * @num:	VJ_NUM: the value
 * @u64:	VJ_NUM: the value as an integer (0 if negative)
 * @child:	VJ_ARR, VJ_OBJ: index of the first item, -1 if none
 * @next:	index of the next item of the same container, -1 if none
 * @n:		VJ_ARR, VJ_OBJ: items
 */
struct vj_node {
	enum vj_type type;
	const char *key;
	const char *str;
	double num;
	uint64_t u64;
	int child;
	int next;
	unsigned int n;
};

/**
 * struct vj - a parsed reply; the root is @v[0]
 * @v:		nodes
 * @n:		used
 * @cap:	allocated
 */
struct vj {
	struct vj_node *v;
	unsigned int n;
	unsigned int cap;
};

int vj_parse(struct vj *j, char *text, const char **err);
void vj_free(struct vj *j);
const struct vj_node *vj_get(const struct vj *j, const struct vj_node *o,
			     const char *key);
const struct vj_node *vj_first(const struct vj *j, const struct vj_node *o);
const struct vj_node *vj_next(const struct vj *j, const struct vj_node *c);
uint64_t vj_u64(const struct vj *j, const struct vj_node *v);
const char *vj_str(const struct vj_node *v, const char *def);
bool vj_true(const struct vj_node *v);

/* ---- vhostctl_table.c --------------------------------------------------- */

#define VT_COLS_MAX	16

/**
 * struct vt - a table being filled, printed in aligned columns
 * @ncol:	columns
 * @head:	their headings; one starting with '-' is left-aligned (the
 *		'-' not printed), others right-aligned (numbers)
 * @cells:	@nrows * @ncol cell texts, malloc'd
 * @ncells:	cells filled
 * @cap:	cells allocated
 * @indent:	blanks before each line
 * @oom:	an allocation failed: vt_print() says so
 */
struct vt {
	unsigned int ncol;
	char head[VT_COLS_MAX][24];
	char **cells;
	size_t ncells;
	size_t cap;
	unsigned int indent;
	bool oom;
};

void vt_init(struct vt *t, unsigned int indent, const char *heads);
void vt_cell(struct vt *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void vt_u64(struct vt *t, const struct vj *j, const struct vj_node *o,
	    const char *key);
void vt_fixed(struct vt *t, const struct vj *j, const struct vj_node *o,
	      const char *key, double div, int decimals);
int vt_print(struct vt *t, FILE *f);
const char *vh_bytes(char *buf, size_t len, uint64_t v);
const char *vh_count(char *buf, size_t len, double v);
const char *vh_age(char *buf, size_t len, uint64_t s);

/* Renderers of a parsed reply; return the exit status. */
int vhostctl_print_ports(const struct vj *j);
int vhostctl_print_fdb(const struct vj *j);
int vhostctl_print_captures(const struct vj *j);
int vhostctl_print_workers(const struct vj *j);
int vhostctl_print_show(const struct vj *j);

#endif /* VHOSTCTL_H */
