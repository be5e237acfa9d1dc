// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_switch.c - libFuzzer harness for switch_forward(): tagged input on
 *		   access ports and trunks, tags pushed and popped
 *
 * Seven dgram ports (unix sockets in a private directory, opened once
 * with a stub port_host), their xmit replaced by a checker:
 *   a0  vlan=10                a1  vlan=10,isolated
 *   a2  vlan=20,tagged=on      a3  (default domain, tags as payload)
 *   t0  trunk=10:20:1,native=1 t1  trunk=10:20,isolated
 *   t2  trunk=20:4094,native=20
 * Each input is one burst:
 *   [0]      bits 0-2: the source port (mod 7)
 *   then frames, each [len lo][len hi][flags][cut] and len bytes:
 *     flags bit 0: NEEDS_CSUM with csum_start = the next byte, offset 16;
 *     bit 1: GSO TCPv4, hdr_len = the next byte; cut: where the frame's
 *     bytes split into two segments (0: one)
 * Every frame lies in a buffer of exactly its size (so ASan sees a read
 * one byte past it) and is at least an Ethernet header, as every source
 * guarantees.  The checker reads every byte a destination is handed and
 * checks it against what the switch must keep: a length that matches the
 * segments, an Ethernet header equal to the pkt's copy, a tag on a trunk
 * that names one of its VLANs, none (or a frame's own, as payload) on an
 * access port.  Double tags, tags 0 and 4095,
 * priority tags, 802.1ad and tags cut short all come from the fuzzer.
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

#include "../../src/conf.h"
#include "../../src/log.h"
#include "../../src/switch.h"
#include "../../src/port/port.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NP	7

static const char *const specs[NP] = {
	"name=a0,vlan=10", "name=a1,vlan=10,isolated",
	"name=a2,vlan=20,tagged=on", "name=a3",
	"name=t0,trunk=10:20:1,native=1", "name=t1,trunk=10:20,isolated",
	"name=t2,trunk=20:4094,native=20",
};

static int idx[NP];
static struct port_ops rec_ops;
static char dir[64];
static bool ready;
static uint64_t delivered;

/* Up and down through the switch. */
#define STUB_SET_UP	switch_set_up
#include "../unit/stub_host.h"

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Every byte handed to a destination is read, and what must hold does. */
static unsigned int check_xmit(struct port *p, struct pkt *const *pkts,
			       unsigned int n)
{
	static uint8_t buf[PKT_FRAME_MAX + 8];
	const struct port_spec *sp = switch_port_spec(p->idx);
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		const struct pkt *pkt = pkts[i];
		size_t off = 0;

		if (pkt->len < ETH_HLEN || pkt->len > sizeof(buf) ||
		    !pkt->iovcnt || pkt->iovcnt > PKT_IOV_MAX)
			abort();
		for (k = 0; k < pkt->iovcnt; k++) {
			if (off + pkt->iov[k].iov_len > pkt->len)
				abort();
			memcpy(buf + off, pkt->iov[k].iov_base,
			       pkt->iov[k].iov_len);
			off += pkt->iov[k].iov_len;
		}
		if (off != pkt->len || memcmp(buf, &pkt->eth, ETH_HLEN))
			abort();
		if (sp->is_trunk) {
			/* a view: tagged with one of its VLANs, or untagged
			 * for its native one
			 */
			uint16_t type = rd16(buf + 12);

			if (type == ETH_P_8021Q) {
				if (pkt->len < ETH_HLEN + 4 ||
				    !port_vlan_has(sp->trunk, rd16(buf + 14) & 0xfff))
					abort();
			} else if (!sp->native || type == ETH_P_8021AD) {
				abort();
			}
		}
		delivered++;
	}
	return n;
}

static void setup(void)
{
	char spec[256], err[256];
	struct port_spec ps;
	unsigned int i;

	snprintf(dir, sizeof(dir), "/tmp/fuzz_switch.XXXXXX");
	if (!mkdtemp(dir))
		abort();
	log_set_level(LOG_LVL_ERR);
	port_host = &stub_host;
	switch_init(300);
	for (i = 0; i < NP; i++) {
		struct port *p;

		snprintf(spec, sizeof(spec), "dgram,path=%s/p%u,remote-path=%s/"
			 "peer,flood-rate=0,%s", dir, i, dir, specs[i]);
		if (conf_parse_port(spec, i, &ps, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			abort();
		}
		idx[i] = switch_port_add(&ps);
		if (idx[i] < 0)
			abort();
		p = switch_port((unsigned int)idx[i]);
		if (!rec_ops.type) {
			rec_ops = *p->ops;
			rec_ops.xmit = check_xmit;
		}
		p->ops = &rec_ops;
		switch_set_up(p, true);
	}
	ready = true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkt pkts[SWITCH_BURST], *ptrs[SWITCH_BURST];
	uint8_t *bufs[SWITCH_BURST];
	unsigned int n = 0, s, i;
	size_t off = 1;

	if (!ready)
		setup();
	if (size < 1)
		return 0;
	s = data[0] % NP;
	while (n < SWITCH_BURST && off + 4 <= size) {
		size_t len = data[off] | (size_t)data[off + 1] << 8;
		unsigned int flags = data[off + 2], cut = data[off + 3];
		struct pkt *pkt = &pkts[n];
		uint8_t extra = 0;

		off += 4;
		if (flags & 3) {
			if (off >= size)
				break;
			extra = data[off++];
		}
		if (len > size - off)
			len = size - off;
		if (len < ETH_HLEN)
			break;
		bufs[n] = malloc(len);
		if (!bufs[n])
			abort();
		memcpy(bufs[n], data + off, len);
		off += len;
		memset(pkt, 0, offsetof(struct pkt, iov));
		memcpy(&pkt->eth, bufs[n], ETH_HLEN);
		pkt->len = (uint32_t)len;
		pkt->src_feat = ~0ULL;
		if (flags & 1) {
			pkt->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
			pkt->vnet.csum_start = htole16(extra);
			pkt->vnet.csum_offset = htole16(16);
		}
		if (flags & 2) {
			pkt->vnet.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
			pkt->vnet.gso_size = htole16(1448);
			pkt->vnet.hdr_len = htole16(extra);
		}
		cut %= len;
		pkt->iov[0].iov_base = bufs[n];
		pkt->iov[0].iov_len = cut ? cut : len;
		pkt->iovcnt = 1;
		if (cut) {
			pkt->iov[1].iov_base = bufs[n] + cut;
			pkt->iov[1].iov_len = len - cut;
			pkt->iovcnt = 2;
		}
		ptrs[n] = pkt;
		n++;
	}
	if (n)
		switch_forward(switch_port((unsigned int)idx[s]), ptrs, n);
	for (i = 0; i < n; i++)
		free(bufs[i]);
	return 0;
}
