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

/**
 * port_sink_take() - the frame described at @s->pkts[@s->n] into the
 *		      burst, or joined to the TCP frame before it
 * @s:		sink
 * @l2:		the frame's bytes (its Ethernet header first)
 *
 * Consecutive segments of one TCP flow join the frame before them
 * (net/gro.h): the guest gets TSO frames again.
 */
void port_sink_take(struct port_sink *s, const uint8_t *l2)
{
	struct pkt *pkt = &s->pkts[s->n];

	if (s->open >= 0 &&
	    gro_join(s->flow, s->out[s->open], l2, pkt->len, &pkt->vnet)) {
		s->joined++;
		return;
	}
	if (s->open >= 0 && s->flow->segs > 1) {
		gro_finish(s->flow, s->out[s->open], s->gro_hdr[s->open]);
		s->frames++;
	}
	s->open = s->gro && gro_start(s->flow, l2, pkt->len, &pkt->vnet) ?
		  (int)s->n : -1;
	s->out[s->n++] = pkt;
}

/**
 * port_sink_end() - the burst is read: finish the frame being joined,
 *		     count
 * @s:		sink
 * @p:		its source port
 */
void port_sink_end(struct port_sink *s, struct port *p)
{
	uint64_t bytes = 0;
	unsigned int i;

	if (s->open >= 0 && s->flow->segs > 1) {
		gro_finish(s->flow, s->out[s->open], s->gro_hdr[s->open]);
		s->frames++;
	}
	for (i = 0; i < s->n; i++)
		bytes += s->out[i]->len;
	if (s->joined) {
		stats_add(&port_ctr(p)->type[s->ctr], s->joined);
		stats_add(&port_ctr(p)->type[s->ctr + 1], s->frames);
	}
	if (s->n) {
		stats_add(&port_ctr(p)->rx_packets, s->n);
		stats_add(&port_ctr(p)->rx_bytes, bytes);
		stats_add(&port_ctr(p)->polls, 1);
	}
}
