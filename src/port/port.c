// SPDX-License-Identifier: GPL-2.0-or-later
/* port.c - the registry of port types
 *
 * Port types are listed here once, one line each in PORT_TYPES; conf.c
 * checks a spec's type against the same names through port_ops_find()
 * and parses its keys from the type's own option table (port.h).  A new
 * type is its file under src/port/ and one line in PORT_TYPES.
 */
#include <string.h>

#include "port.h"
#include "../util.h"

/* Set by the layer that runs the ports (worker_init()); without one
 * (unit tests) ports open and close, and nothing polls them.
 */
const struct port_host *port_host;

/* See port.h: priv.c fills it in. */
struct port_env port_env;

/* X(ops): every port type, in the order --help and errors list them;
 * each line ends in a backslash, so a new type is one added line.
 */
#define PORT_TYPES(X)							\
	X(port_vhost_ops)						\
	X(port_tap_ops)							\
	X(port_dgram_ops)						\
	X(port_vxlan_ops)						\
	X(port_afxdp_ops)						\
	/* end of PORT_TYPES */

#define PORT_TYPE_DECL(ops)	extern const struct port_ops ops;
#define PORT_TYPE_REF(ops)	&ops,
PORT_TYPES(PORT_TYPE_DECL)

static const struct port_ops *const port_types[] = {
	PORT_TYPES(PORT_TYPE_REF)
};

/**
 * port_ops_find() - look up a port type by its --port name
 * @type:	"vhost-user", "tap", ...
 *
 * Return: the type's ops, or NULL if there is no such type
 */
const struct port_ops *port_ops_find(const char *type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(port_types); i++)
		if (!strcmp(port_types[i]->type, type))
			return port_types[i];
	return NULL;
}

/**
 * port_ops_at() - the registered types, one by one
 * @i:		index, from 0
 *
 * Return: the @i-th type's ops, or NULL past the last
 */
const struct port_ops *port_ops_at(unsigned int i)
{
	return i < ARRAY_SIZE(port_types) ? port_types[i] : NULL;
}

/**
 * port_out_str() - write @s to @o as a quoted JSON string
 * @o:		a port command's or show's writer
 * @s:		text the operator gave (an interface name, a socket path):
 *		quotes, backslashes and bytes outside printable ASCII are
 *		escaped, so no name can end the string or the object early
 */
void port_out_str(struct port_out *o, const char *s)
{
	o->put(o, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			o->put(o, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			o->put(o, "\\u%04x", c);
		else
			o->put(o, "%c", c);
	}
	o->put(o, "\"");
}
