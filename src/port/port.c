// SPDX-License-Identifier: GPL-2.0-or-later
/* port.c - the registry of port types
 *
 * Port types are listed here once; conf.c checks a spec's type against
 * the same names through port_ops_find().
 */
#include <string.h>

#include "port.h"
#include "../util.h"

/* Set by the layer that runs the ports (worker_init()); without one
 * (unit tests) ports open and close, and nothing polls them.
 */
const struct port_host *port_host;

static const struct port_ops *const port_types[] = {
	&port_vhost_ops,
	&port_tap_ops,
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
