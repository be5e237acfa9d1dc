// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_vxlan.c - libFuzzer harness for the vxlan port's decapsulation,
 *		  learning and table (port_vxlan.c), through real sockets
 *
 * One vxlan port on 127.0.0.1 (remotes 127.0.0.2 and .3), opened once
 * with a stub port_host.  Each input is what the underlay controls:
 *   [0]      bits 0-1: the datagram's source, 127.0.0.2, .3, .9 (a
 *            stranger) or .4 (a VTEP known only by a static entry);
 *            bit 2: send the frames taken back out through xmit (the
 *            table's lookups, flooding, offload-free encapsulation);
 *            bit 3: run the one-second timer (ageing);
 *            bit 4: the rest is also a "vxlan add" argument, bit 5 a
 *            "vxlan del" one (the command parser, VTEP allocation)
 *   [1..]    the datagram, header and all
 * The port takes remote checksum offload (remcsum=on), so the RCO flag
 * and its start/offset byte are the input's too, and frames sent back
 * out leave with RCO where their metadata allows.
 * The datagram goes to the port with sendto() and is taken with its
 * rx_burst; every frame out must lie inside the port's buffer and be as
 * long as the datagram less the header, and a checksum it leaves to the
 * receiver must lie inside it.  Nothing may crash, leak or read
 * out of bounds (ASan, UBSan).
 */
#include <endian.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "../../src/conf.h"
#include "../../src/port/port.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct port port;
static int from[4] = { -1, -1, -1, -1 };
static struct sockaddr_in to;
static bool ready;

#include "../unit/stub_host.h"

__attribute__((format(printf, 2, 3)))
static void out_put(struct port_out *o, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	(void)o;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
}

/* fz_open() - the port and the senders, once; false if they cannot be */
static bool fz_open(void)
{
	static const unsigned int last[4] = { 2, 3, 9, 4 };
	const struct port_ops *ops = port_ops_find("vxlan");
	unsigned int i, dport = 20000 + (unsigned int)getpid() % 30000;
	char spec[160], err[256];
	struct port_spec ps;

	snprintf(spec, sizeof(spec), "vxlan,local=127.0.0.1,remote=127.0.0.2,"
		 "remote=127.0.0.3,vni=77,dstport=%u,ageing=1,remcsum=on",
		 dport);
	if (!ops || conf_parse_port(spec, 0, &ps, err, sizeof(err)))
		return false;
	port_host = &stub_host;
	snprintf(port.name, sizeof(port.name), "fz");
	port.ops = ops;
	port.priv = calloc(1, ops->priv_size);
	if (!port.priv || ops->open(&port, &ps))
		return false;
	for (i = 0; i < 4; i++) {
		struct sockaddr_in a = { .sin_family = AF_INET };

		from[i] = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		a.sin_addr.s_addr = htonl(0x7f000000U | last[i]);
		if (from[i] < 0 ||
		    bind(from[i], (struct sockaddr *)&a, sizeof(a)))
			return false;
	}
	to.sin_family = AF_INET;
	to.sin_port = htons((uint16_t)dport);
	to.sin_addr.s_addr = htonl(0x7f000001);
	return true;
}

/* fz_cmd() - run the type's command @verb on the input's text */
static void fz_cmd(const char *verb, const uint8_t *data, size_t size)
{
	struct port_out out = { out_put, NULL };
	char args[200], err[256];
	unsigned int i;

	size = size < sizeof(args) - 1 ? size : sizeof(args) - 1;
	memcpy(args, data, size);
	args[size] = '\0';
	for (i = 0; i < port.ops->n_cmds; i++)
		if (!strcmp(port.ops->cmds[i].verb, verb))
			port.ops->cmds[i].fn(&port, args, &out, err,
					     sizeof(err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct port_turn turn = { .budget = 64 };
	struct pkt *pkts[PORT_BURST];
	unsigned int n, i, rounds;
	uint8_t mode;

	if (!ready) {
		if (!fz_open())
			abort();
		ready = true;
	}
	if (size < 1)
		return 0;
	mode = data[0];
	data++;
	size--;
	if (mode & 0x10)
		fz_cmd("add", data, size);
	if (mode & 0x20)
		fz_cmd("del", data, size);
	if (size <= 65507)
		sendto(from[mode & 3], data, size, 0, (struct sockaddr *)&to,
		       sizeof(to));

	/* Loopback has delivered it; take everything there is. */
	for (rounds = 0; rounds < 4; rounds++) {
		turn.dry = false;
		if (!port.ops->rx_begin(&port, 0, &turn))
			abort();
		n = port.ops->rx_burst(&port, 0, pkts, PORT_BURST, &turn);
		for (i = 0; i < n; i++) {
			const struct virtio_net_hdr_v1 *v = &pkts[i]->vnet;

			if (pkts[i]->iovcnt != 1 || pkts[i]->len < 14 ||
			    pkts[i]->iov[0].iov_len != pkts[i]->len ||
			    memcmp(&pkts[i]->eth, pkts[i]->iov[0].iov_base, 14))
				abort();
			if ((v->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
			    (uint32_t)le16toh(v->csum_start) +
			    le16toh(v->csum_offset) + 2 > pkts[i]->len)
				abort();
		}
		if (n && (mode & 4))
			port.ops->xmit(&port, pkts, n);
		port.ops->rx_end(&port, 0, &turn);
		if (turn.dry)
			break;
	}
	if (mode & 8)
		port.ops->timer(&port);
	return 0;
}
