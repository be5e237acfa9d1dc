// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_vxlan_via.c - libFuzzer harness for what a vxlan port over a
 *		      carrier (via=) takes from the wire: ARP, ND, echo,
 *		      outer IPv4/IPv6/UDP headers, VXLAN decapsulation
 *		      (port_vxlan.c, net/underlay.c)
 *
 * Two ports, IPv4 (198.18.0.1, remotes .2 and .3) and IPv6 (2001:2::1,
 * remotes ::2 and ::3), each over a fake carrier that keeps what the
 * tunnel sends.  Each input:
 *   [0]      bit 0: the IPv6 port; bit 1: send the frame taken back out
 *            through xmit; bit 2: run the one-second timer; bit 3: the
 *            frame comes with the carrier interface's metadata (a TAP's
 *            virtio-net header, UDP tunnel GSO and all)
 *   [1..12]  with bit 3: that header
 *   [..]     a frame from the wire, Ethernet header and all
 * The frame is copied into a buffer of its exact size (ASan sees any read
 * past it); an inner frame handed on must lie inside it and be described
 * exactly, its offload metadata inside it too; every frame the tunnel
 * sends must fit the carrier's MTU, every frame it hands the carrier
 * whole must be described consistently (its layers in order, inside it).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <endian.h>

#include "../../src/conf.h"
#include "../../src/port/port.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct port port[2], carrier[2];
static struct port_underlay *ul[2];
static uint8_t txbuf[1514];
static bool ready;

static int fk_attach(struct port *p, struct port_underlay *u)
{
	static const uint8_t mac[6] = { 2, 0, 0, 0, 0xaa, 1 };

	memcpy(u->mac, mac, 6);
	u->frame_max = sizeof(txbuf);
	u->queues = 2;
	u->gso = u->tnl_gso = u->tnl_csum = true;
	ul[p == &carrier[1]] = u;
	return 0;
}

static void fk_detach(struct port *p)
{
}

static void *fk_begin(struct port *p, unsigned int q)
{
	if (q >= 2)
		abort();
	return txbuf;
}

static uint8_t *fk_buf(struct port *p, void *q)
{
	return txbuf;
}

static int fk_put(struct port *p, void *q, uint32_t len)
{
	if (len > sizeof(txbuf) || len < 14)
		abort();
	return 0;
}

static void fk_end(struct port *p, void *q)
{
}

/* fk_gso() - a frame handed whole: its pieces and metadata agree */
static int fk_gso(struct port *p, void *q, const struct iovec *iov,
		  unsigned int cnt, const struct virtio_net_hdr_v1 *vnet,
		  const struct port_ul_tnl *tnl)
{
	size_t len = 0, cs = le16toh(vnet->csum_start);
	unsigned int i;

	if (!cnt || cnt > 1 + PKT_IOV_MAX)
		abort();
	for (i = 0; i < cnt; i++) {
		if (!iov[i].iov_base && iov[i].iov_len)
			abort();
		len += iov[i].iov_len;
	}
	if (len < 14 || len > 65535 + 14 + 64 ||
	    !(vnet->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) ||
	    cs + le16toh(vnet->csum_offset) + 2 > len ||
	    le16toh(vnet->hdr_len) > len)
		abort();
	if (tnl && (tnl->outer_th + 8 > tnl->inner_nh ||
		    tnl->inner_nh + 20 > cs || !vnet->gso_size))
		abort();
	return 0;
}

static const struct port_ops fake_ops = {
	.type = "fake", .ul_attach = fk_attach, .ul_detach = fk_detach,
	.ul_tx_begin = fk_begin, .ul_tx_buf = fk_buf, .ul_tx_put = fk_put,
	.ul_tx_end = fk_end, .ul_tx_gso = fk_gso,
};

static struct port *stub_find(const char *name)
{
	return name[3] == '1' ? &carrier[1] : &carrier[0];
}

#define STUB_FIND	stub_find
#include "../unit/stub_host.h"

/* fz_open() - both ports, once; false if they cannot be */
static bool fz_open(void)
{
	static const char *const spec[2] = {
		"vxlan,local=198.18.0.1,remote=198.18.0.2,remote=198.18.0.3,"
		"vni=77,ageing=1,via=car0",
		"vxlan,local=2001:2::1,remote=2001:2::2,remote=2001:2::3,"
		"vni=77,ageing=1,via=car1",
	};
	const struct port_ops *ops = port_ops_find("vxlan");
	char err[256];
	struct port_spec ps;
	unsigned int i;

	port_host = &stub_host;
	for (i = 0; i < 2; i++) {
		carrier[i].ops = &fake_ops;
		if (!ops || conf_parse_port(spec[i], 0, &ps, err, sizeof(err)))
			return false;
		port[i].ops = ops;
		port[i].priv = calloc(1, ops->priv_size);
		if (!port[i].priv || ops->open(&port[i], &ps) || !ul[i])
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct virtio_net_hdr_v1 vnet, *vp = NULL;
	struct pkt pkt, *pp = &pkt;
	unsigned int k;
	uint8_t *f;
	int v;

	if (!ready) {
		if (!fz_open())
			abort();
		ready = true;
	}
	if (size < 1 || size > 65536 + 12)
		return 0;
	k = data[0] & 1;
	if (data[0] & 8) {
		if (size < 1 + sizeof(vnet))
			return 0;
		memcpy(&vnet, data + 1, sizeof(vnet));
		vp = &vnet;
		data += sizeof(vnet);
		size -= sizeof(vnet);
	}
	f = malloc(size - 1 ? size - 1 : 1);
	if (!f)
		return 0;
	memcpy(f, data + 1, size - 1);
	v = ul[k]->rx(&port[k], f, size - 1, vp, &pkt);
	if (v == PORT_UL_FRAME) {
		const uint8_t *b = pkt.iov[0].iov_base;

		if (pkt.iovcnt != 1 || pkt.len < 14 ||
		    pkt.iov[0].iov_len != pkt.len || b < f ||
		    b + pkt.len > f + size - 1 ||
		    memcmp(&pkt.eth, b, 14))
			abort();
		/* Metadata handed on describes the frame handed on. */
		if ((pkt.vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
		    (le16toh(pkt.vnet.csum_start) < 14 ||
		     le16toh(pkt.vnet.csum_start) +
		     le16toh(pkt.vnet.csum_offset) + 2 > pkt.len))
			abort();
		if (pkt.vnet.gso_type && (!pkt.vnet.gso_size ||
					  le16toh(pkt.vnet.hdr_len) > pkt.len ||
					  !(pkt.vnet.flags &
					    VIRTIO_NET_HDR_F_NEEDS_CSUM)))
			abort();
		if (data[0] & 2)
			port[k].ops->xmit(&port[k], &pp, 1);
	} else if (v != PORT_UL_PASS && v != PORT_UL_TAKEN) {
		abort();
	}
	if (data[0] & 4)
		port[k].ops->timer(&port[k]);
	free(f);
	return 0;
}
