// SPDX-License-Identifier: GPL-2.0-or-later
/* test_switch.c - switch_forward()'s decisions against a naive model
 *
 * Bridge domains, trunks, isolated ports and the tagged= rule, under
 * random port configurations and random frames: a differential test.
 * The ports are dgram ports (unix sockets in a private directory, opened
 * for real so that switch_port_add() runs as in vhostd) whose xmit is
 * replaced by a recorder, so every delivery of every frame is seen, byte
 * by byte: a trunk's tags pushed and popped are checked too.
 *
 * The model is a plain map (VLAN, MAC) -> port and the rules written out
 * as the issue states them:
 *   - an access port's frame with a VLAN tag is dropped if the port has
 *     tagged=off, before anything is learned; otherwise it is in the
 *     port's VLAN, its tag payload;
 *   - a trunk's frame is in the VLAN of its 802.1Q tag, which must be on
 *     the trunk's list; untagged and priority-tagged (VLAN 0) frames are
 *     in the native VLAN, dropped without one; 802.1ad tags, tag 4095,
 *     VLANs not on the list and tags cut short are dropped;
 *   - its unicast source MAC is learned in its VLAN;
 *   - known unicast goes to its port (none if that is the source, none
 *     if both are isolated, none if the port is down); anything else
 *     floods to every up port in the VLAN but the source, skipping the
 *     isolated ones if the source is isolated;
 *   - a trunk receives the frame tagged with its VLAN (priority bits
 *     kept), untagged if that is the trunk's native VLAN and the frame
 *     carries no tag of its own; an access port receives it untagged;
 *     the bytes behind the header are the source's, and a checksum
 *     offset moves with the header.
 * With bursts of one frame the switch must do exactly that; with random
 * bursts (where the switch caches lookups within a burst, so a MAC moving
 * inside one may be seen late) the invariants must hold: no delivery
 * outside the frame's VLAN, none between two isolated ports, none back to
 * the source, nothing from a refused frame, every header as the model
 * says.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "../../src/conf.h"
#include "../../src/fdb.h"
#include "../../src/log.h"
#include "../../src/stats.h"
#include "../../src/switch.h"
#include "../../src/util.h"
#include "../../src/port/port.h"

#define NPORTS	12
#define NMACS	10
#define FRAMES	1000000

/* Up and down through the switch: going down forgets the port's MACs. */
#define STUB_SET_UP	switch_set_up
#include "stub_host.h"

#define NVLANS	4
#define FLEN	64	/* frame length before any tag is pushed */

static const unsigned int vlans[NVLANS] = { 1, 10, 20, 4094 };

/**
 * struct cfg - one port's configuration, as the model sees it
 * @trunk:	trunk= given
 * @set:	a trunk's VLANs, bit i: vlans[i] (native included)
 * @native:	a trunk's native VLAN, 0: none
 * @vlan:	an access port's VLAN
 * @isolated:	isolated=on
 * @tagged:	tagged=on
 * @up:		forwarding
 * @idx:	its switch index
 */
struct cfg {
	bool trunk;
	unsigned int set;
	unsigned int native;
	unsigned int vlan;
	bool isolated;
	bool tagged;
	bool up;
	int idx;
};

/**
 * struct seen - one delivery as the recorder saw it
 * @len:	frame length
 * @csum:	csum_start, if the frame asked for a checksum
 * @b:		its bytes
 */
struct seen {
	unsigned int len;
	unsigned int csum;
	uint8_t b[FLEN + 8];
};

static char dir[64];
static struct cfg cfg[NPORTS];
static struct port_ops rec_ops;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* Deliveries of the current burst: got[frame][port index]. */
static unsigned char got[SWITCH_BURST][SWITCH_PORTS_MAX];
static struct seen seen[SWITCH_BURST][SWITCH_PORTS_MAX];
static struct pkt burst[SWITCH_BURST];
static uint8_t bytes[SWITCH_BURST][FLEN];

/* The model's MAC table: port index + 1 by [vlan][mac], 0: unknown. */
static unsigned char model[4095][NMACS];

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

/* The frame's number sits in its last byte, wherever its header ends. */
static unsigned int rec_xmit(struct port *p, struct pkt *const *pkts,
			     unsigned int n)
{
	unsigned int i, f;

	for (i = 0; i < n; i++) {
		const struct pkt *pkt = pkts[i];
		struct seen sn = { .len = pkt->len };
		unsigned int k, off = 0;

		assert_true(pkt->len <= sizeof(sn.b) && pkt->len >= 14);
		for (k = 0; k < pkt->iovcnt; k++) {
			assert_true(off + pkt->iov[k].iov_len <= pkt->len);
			memcpy(sn.b + off, pkt->iov[k].iov_base,
			       pkt->iov[k].iov_len);
			off += (unsigned int)pkt->iov[k].iov_len;
		}
		assert_int_equal(off, pkt->len);
		assert_memory_equal(&pkt->eth, sn.b, 14);
		if (pkt->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
			sn.csum = pkt->vnet.csum_start;
		f = sn.b[pkt->len - 1];
		assert_true(f < SWITCH_BURST);
		assert_int_equal(got[f][p->idx], 0);	/* once per port */
		got[f][p->idx] = 1;
		seen[f][p->idx] = sn;
	}
	return n;
}

/* Station i, or the broadcast address (NMACS), or a multicast one. */
static void mac_of(unsigned int i, uint8_t *mac)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };

	if (i == NMACS)
		memcpy(mac, bcast, 6);
	else if (i > NMACS)
		memcpy(mac, mcast, 6);
	else {
		const uint8_t m[6] = { 0x02, 0, 0, 0, 0, (uint8_t)(i + 1) };

		memcpy(mac, m, 6);
	}
}

/* VLAN @v is on model port @k's list (access: is its VLAN). */
static bool port_in(unsigned int k, unsigned int v)
{
	unsigned int j;

	if (!cfg[k].trunk)
		return cfg[k].vlan == v;
	for (j = 0; j < NVLANS; j++)
		if (vlans[j] == v)
			return cfg[k].set >> j & 1;
	return false;
}

/**
 * port_make() - (re)create model port @i with a random configuration
 * @i:		model index
 */
static void port_make(unsigned int i)
{
	char spec[512], err[256], list[64];
	struct port_spec ps;
	struct port *p;
	unsigned int j;
	size_t n = 0;
	int idx;

	memset(&cfg[i], 0, sizeof(cfg[i]));
	cfg[i].trunk = !rnd(3);
	cfg[i].isolated = !rnd(3);
	if (cfg[i].trunk) {
		cfg[i].set = 1 + rnd((1U << NVLANS) - 1);
		list[0] = '\0';
		for (j = 0; j < NVLANS; j++)
			if (cfg[i].set >> j & 1)
				n += (size_t)snprintf(list + n, sizeof(list) - n,
						      "%s%u", n ? ":" : "",
						      vlans[j]);
		if (rnd(2)) {
			j = rnd(NVLANS);
			cfg[i].native = vlans[j];
			cfg[i].set |= 1U << j;
		}
		if (cfg[i].native)
			snprintf(list + n, sizeof(list) - n, ",native=%u",
				 cfg[i].native);
		snprintf(spec, sizeof(spec), "dgram,name=p%u,path=%s/p%u,"
			 "remote-path=%s/peer,flood-rate=0,max-macs=4096,"
			 "trunk=%s,isolated=%s", i, dir, i, dir, list,
			 cfg[i].isolated ? "on" : "off");
	} else {
		cfg[i].vlan = vlans[rnd(NVLANS)];
		cfg[i].tagged = rnd(2);
		snprintf(spec, sizeof(spec), "dgram,name=p%u,path=%s/p%u,"
			 "remote-path=%s/peer,flood-rate=0,max-macs=4096,"
			 "vlan=%u,isolated=%s,tagged=%s", i, dir, i, dir,
			 cfg[i].vlan, cfg[i].isolated ? "on" : "off",
			 cfg[i].tagged ? "on" : "off");
	}
	if (conf_parse_port(spec, i, &ps, err, sizeof(err)))
		fail_msg("%s: %s", spec, err);
	idx = switch_port_add(&ps);
	assert_true(idx >= 0);
	p = switch_port((unsigned int)idx);
	assert_non_null(p);
	if (!rec_ops.type) {
		rec_ops = *p->ops;
		rec_ops.xmit = rec_xmit;
	}
	p->ops = &rec_ops;
	switch_set_up(p, true);
	cfg[i].idx = idx;
	cfg[i].up = true;
}

/* The model port at switch index @idx, or -1. */
static int model_of(int idx)
{
	unsigned int i;

	for (i = 0; i < NPORTS; i++)
		if (cfg[i].idx == idx)
			return (int)i;
	return -1;
}

/* Forget model port @i's MACs (down, removed). */
static void model_flush(unsigned int i)
{
	unsigned int v, m;

	for (v = 0; v < 4095; v++)
		for (m = 0; m < NMACS; m++)
			if (model[v][m] == cfg[i].idx + 1)
				model[v][m] = 0;
}

/**
 * struct frame - what the model knows of one frame
 * @b:		its bytes (@len of them)
 * @len:	length
 * @csum:	csum_start asked for, 0: none
 * @smac:	source station index (>= NMACS: group, not learned)
 * @dmac:	destination index (>= NMACS: group)
 * @vid:	the VLAN the model puts it in, 0: dropped
 * @pcp:	the priority bits of its tag (TCI & 0xf000), 0 if none
 * @body:	offset of what follows the header the switch takes off: 12
 *		(the ethertype) or 16 (behind a trunk's tag)
 */
struct frame {
	const uint8_t *b;
	unsigned int len;
	unsigned int csum;
	unsigned int smac, dmac;
	unsigned int vid;
	unsigned int pcp;
	unsigned int body;
};

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The VLAN model port @s's frame @fr is in; 0 to drop it. */
static void model_classify(unsigned int s, struct frame *fr)
{
	uint16_t type = rd16(fr->b + 12);
	bool tag = type == 0x8100 || type == 0x88a8;
	unsigned int vid;

	fr->pcp = 0;
	fr->body = 12;
	fr->vid = 0;
	if (!cfg[s].trunk) {
		if (!tag || cfg[s].tagged)
			fr->vid = cfg[s].vlan;
		return;
	}
	if (type == 0x88a8 || (tag && fr->len < 18))
		return;
	if (!tag) {
		fr->vid = cfg[s].native;
		return;
	}
	vid = rd16(fr->b + 14) & 0xfff;
	fr->pcp = fr->b[14] & 0xf0;
	fr->body = 16;
	if (!vid)
		fr->vid = cfg[s].native;
	else if (port_in(s, vid))
		fr->vid = vid;
}

/**
 * model_expect() - where the model sends one frame
 * @s:		source model port
 * @fr:		the frame, classified
 * @want:	out: want[switch index] set for each delivery
 * Return: whether the frame was accepted (counted in its domain)
 */
static bool model_expect(unsigned int s, const struct frame *fr,
			 unsigned char *want)
{
	unsigned int v = fr->vid, i;

	memset(want, 0, SWITCH_PORTS_MAX);
	if (!v)
		return false;
	if (fr->smac < NMACS)
		model[v][fr->smac] = (unsigned char)(cfg[s].idx + 1);
	if (fr->dmac < NMACS && model[v][fr->dmac]) {
		int to = model_of(model[v][fr->dmac] - 1);

		assert_true(to >= 0);
		if ((unsigned int)to == s)
			return true;
		if (cfg[s].isolated && cfg[to].isolated)
			return true;
		if (cfg[to].up)
			want[cfg[to].idx] = 1;
		return true;
	}
	for (i = 0; i < NPORTS; i++) {
		if (i == s || !port_in(i, v) || !cfg[i].up)
			continue;
		if (cfg[s].isolated && cfg[i].isolated)
			continue;
		want[cfg[i].idx] = 1;
	}
	return true;
}

/* The delivery of @fr to model port @k must be what the model makes. */
static void check_seen(unsigned int k, const struct frame *fr,
		       const struct seen *sn)
{
	uint8_t want[FLEN + 8];
	uint16_t inner = rd16(fr->b + fr->body);
	bool tag = cfg[k].trunk &&
		   (fr->vid != cfg[k].native || inner == 0x8100 ||
		    inner == 0x88a8);
	unsigned int n = 12, hl;

	memcpy(want, fr->b, 12);
	if (tag) {
		want[12] = 0x81;
		want[13] = 0x00;
		want[14] = (uint8_t)(fr->pcp | fr->vid >> 8);
		want[15] = (uint8_t)fr->vid;
		n = 16;
	}
	memcpy(want + n, fr->b + fr->body, fr->len - fr->body);
	n += fr->len - fr->body;
	if (sn->len != n || memcmp(sn->b, want, n))
		fail_msg("to p%u (trunk %d native %u): %u bytes, want %u; "
			 "type %04x want %04x", k, cfg[k].trunk, cfg[k].native,
			 sn->len, n, rd16(sn->b + 12), rd16(want + 12));
	hl = tag ? 18 : 14;
	if (fr->csum)
		assert_int_equal(sn->csum, fr->csum - (fr->body + 2) + hl);
}

/**
 * frame_fill() - a random frame from model port @s
 * @pkt:	its pkt
 * @buf:	its bytes
 * @s:		source model port
 * @f:		its number in the burst (its last byte)
 * @fr:		out: what the model knows of it
 */
static void frame_fill(struct pkt *pkt, uint8_t *buf, unsigned int s,
		       unsigned int f, struct frame *fr)
{
	static const unsigned int vids[] = { 0, 1, 10, 20, 4094, 4095, 30 };
	unsigned int r = rnd(16), cut, n = 12, vid;
	uint16_t type = 0x0800;

	memset(pkt, 0, offsetof(struct pkt, iov));
	memset(fr, 0, sizeof(*fr));
	fr->smac = rnd(NMACS + 2);
	fr->dmac = rnd(NMACS + 2);
	mac_of(fr->dmac, buf);
	mac_of(fr->smac, buf + 6);
	/* Trunks mostly send tagged frames, access ports mostly not. */
	if (cfg[s].trunk ? r < 12 : r < 2) {
		vid = vids[rnd(ARRAY_SIZE(vids))];
		buf[n++] = rnd(8) ? 0x81 : 0x88;
		buf[n++] = buf[12] == 0x81 ? 0x00 : 0xa8;
		buf[n++] = (uint8_t)(rnd(16) << 4 | vid >> 8);
		buf[n++] = (uint8_t)vid;
		if (!rnd(8))
			type = 0x8100;	/* double-tagged */
	}
	buf[n] = (uint8_t)(type >> 8);
	buf[n + 1] = (uint8_t)type;
	for (r = n + 2; r < FLEN - 1; r++)
		buf[r] = (uint8_t)rnd(256);
	buf[FLEN - 1] = (uint8_t)f;
	fr->b = buf;
	fr->len = FLEN;
	/* A tag cut short now and then, from a trunk. */
	if (cfg[s].trunk && n == 16 && !rnd(32))
		fr->len = 14 + rnd(4);
	memcpy(&pkt->eth, buf, 14);
	pkt->len = fr->len;
	if (!rnd(4)) {
		fr->csum = n + 2 + 20;
		pkt->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		pkt->vnet.csum_start = (uint16_t)fr->csum;
		pkt->vnet.csum_offset = 16;
	}
	/* In one piece, or two cut anywhere. */
	cut = rnd(2) ? 1 + rnd(fr->len - 1) : fr->len;
	pkt->iov[0].iov_base = buf;
	pkt->iov[0].iov_len = cut;
	pkt->iovcnt = 1;
	if (cut < fr->len) {
		pkt->iov[1].iov_base = buf + cut;
		pkt->iov[1].iov_len = fr->len - cut;
		pkt->iovcnt = 2;
	}
	model_classify(s, fr);
}

/* Sum of every domain's frames counter. */
static uint64_t dom_frames(void)
{
	uint64_t sum = 0, f, b, fl;
	unsigned int d;

	for (d = 0; d < FDB_DOMS; d++) {
		switch_dom_stats(d, &f, &b, &fl);
		sum += f;
	}
	return sum;
}

static int setup(void **state)
{
	unsigned int i;

	snprintf(dir, sizeof(dir), "/tmp/test_switch.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	log_set_level(LOG_LVL_WARN);
	port_host = &stub_host;
	switch_init(300);
	for (i = 0; i < NPORTS; i++)
		port_make(i);
	memset(model, 0, sizeof(model));
	return 0;
}

static int teardown(void **state)
{
	char path[128];
	unsigned int i;

	switch_fini();
	for (i = 0; i < NPORTS; i++) {
		snprintf(path, sizeof(path), "%s/p%u", dir, i);
		unlink(path);
	}
	rmdir(dir);
	port_host = NULL;
	return 0;
}

/* Now and then: a port goes down or up, or is re-made in a new domain. */
static void churn(void)
{
	unsigned int i = rnd(NPORTS);
	struct port *p = switch_port((unsigned int)cfg[i].idx);

	switch (rnd(3)) {
	case 0:
		cfg[i].up = !cfg[i].up;
		switch_set_up(p, cfg[i].up);
		if (!cfg[i].up)
			model_flush(i);
		break;
	default:
		model_flush(i);
		switch_port_del((unsigned int)cfg[i].idx);
		port_make(i);
		break;
	}
}

/* Print the ports, for a failure's message. */
static void dump_ports(const unsigned char *g, const unsigned char *want)
{
	unsigned int i;

	for (i = 0; i < NPORTS; i++)
		print_error("p%u (idx %d) trunk %d set %x native %u vlan %u "
			    "iso %d tagged %d up %d: got %d want %d\n", i,
			    cfg[i].idx, cfg[i].trunk, cfg[i].set,
			    cfg[i].native, cfg[i].vlan, cfg[i].isolated,
			    cfg[i].tagged, cfg[i].up, g[cfg[i].idx],
			    want ? want[cfg[i].idx] : -1);
}

/* Bursts of one: the switch decides exactly as the model. */
static void test_exact(void **state)
{
	unsigned char want[SWITCH_PORTS_MAX];
	uint64_t accepted = 0, base = dom_frames(), trunked = 0;
	unsigned int n, k;

	for (n = 0; n < FRAMES; n++) {
		unsigned int s = rnd(NPORTS);
		struct pkt *one = &burst[0];
		struct frame fr;

		if (!rnd(5000))
			churn();
		if (!cfg[s].up)
			continue;
		frame_fill(&burst[0], bytes[0], s, 0, &fr);
		memset(got, 0, sizeof(got));
		accepted += model_expect(s, &fr, want);
		switch_forward(switch_port((unsigned int)cfg[s].idx), &one, 1);
		if (memcmp(got[0], want, sizeof(want))) {
			dump_ports(got[0], want);
			fail_msg("frame %u from p%u smac %u dmac %u vid %u "
				 "type %04x len %u", n, s, fr.smac, fr.dmac,
				 fr.vid, rd16(fr.b + 12), fr.len);
		}
		for (k = 0; k < NPORTS; k++) {
			if (!got[0][cfg[k].idx])
				continue;
			check_seen(k, &fr, &seen[0][cfg[k].idx]);
			trunked += cfg[k].trunk || cfg[s].trunk;
		}
	}
	/* Every accepted frame counted once, in its domain. */
	assert_true(dom_frames() - base <= accepted);
	/* The run went through trunks, both ways, many times. */
	assert_true(trunked > FRAMES / 10);
	(void)state;
}

/* Random bursts: the invariants. */
static void test_bursts(void **state)
{
	struct pkt *ptrs[SWITCH_BURST];
	struct frame fr[SWITCH_BURST];
	unsigned int n, f, d, k;

	for (n = 0; n < FRAMES / 8; n++) {
		unsigned int s = rnd(NPORTS), len = 1 + rnd(SWITCH_BURST);

		if (!rnd(1000))
			churn();
		if (!cfg[s].up)
			continue;
		for (f = 0; f < len; f++) {
			frame_fill(&burst[f], bytes[f], s, f, &fr[f]);
			ptrs[f] = &burst[f];
		}
		memset(got, 0, sizeof(got));
		switch_forward(switch_port((unsigned int)cfg[s].idx), ptrs,
			       len);
		for (f = 0; f < len; f++)
			for (d = 0; d < SWITCH_PORTS_MAX; d++) {
				int m;

				if (!got[f][d])
					continue;
				m = model_of((int)d);
				assert_true(m >= 0);
				k = (unsigned int)m;
				assert_int_not_equal(k, s);
				/* never outside the frame's VLAN */
				assert_int_not_equal(fr[f].vid, 0);
				if (!port_in(k, fr[f].vid)) {
					dump_ports(got[f], NULL);
					fail_msg("frame %u of VLAN %u to p%u", f,
						 fr[f].vid, k);
				}
				assert_true(cfg[k].up);
				assert_false(cfg[k].isolated &&
					     cfg[s].isolated);
				check_seen(k, &fr[f], &seen[f][d]);
			}
	}
	(void)state;
}

/* Defaults: no vlan= means VLAN 1 and tags carried; vlan= refuses them. */
static void test_defaults(void **state)
{
	struct port_spec ps;
	char err[256];

	assert_int_equal(conf_parse_port("dgram,path=/tmp/x,remote-path=/tmp/y",
					 0, &ps, err, sizeof(err)), 0);
	assert_int_equal(ps.vlan, 1);
	assert_false(ps.vlan_set);
	assert_true(ps.tagged);
	assert_false(ps.isolated);
	assert_int_equal(conf_parse_port("dgram,path=/tmp/x,remote-path=/tmp/y,"
					 "vlan=7", 0, &ps, err, sizeof(err)), 0);
	assert_int_equal(ps.vlan, 7);
	assert_false(ps.tagged);
	assert_int_equal(conf_parse_port("dgram,path=/tmp/x,remote-path=/tmp/y,"
					 "vlan=7,tagged=on,isolated", 0, &ps,
					 err, sizeof(err)), 0);
	assert_true(ps.tagged);
	assert_true(ps.isolated);
	assert_int_equal(conf_parse_port("dgram,path=/tmp/x,remote-path=/tmp/y,"
					 "vlan=4095", 0, &ps, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(conf_parse_port("dgram,path=/tmp/x,remote-path=/tmp/y,"
					 "vlan=0", 0, &ps, err, sizeof(err)),
			 -EINVAL);
	(void)state;
}

/* trunk= and native=: lists, ranges, repeats, and what they exclude. */
static void test_trunk_conf(void **state)
{
	static const char *const bad[] = {
		"trunk=0", "trunk=4095", "trunk=10-5", "trunk=", "trunk=1:",
		"trunk=:1", "trunk=1::2", "trunk=a", "trunk=1-", "trunk=-3",
		"trunk=10,vlan=10", "trunk=10,tagged=on", "native=10",
		"trunk=10,native=0", "trunk=10,native=4095",
		"trunk=99999999999999999999",
	};
	const char *base = "dgram,path=/tmp/x,remote-path=/tmp/y,";
	struct port_spec ps;
	char spec[256], err[256];
	unsigned int i, v, n;

	snprintf(spec, sizeof(spec), "%strunk=10:20-22,trunk=4094,native=7",
		 base);
	assert_int_equal(conf_parse_port(spec, 0, &ps, err, sizeof(err)), 0);
	assert_true(ps.is_trunk);
	assert_false(ps.tagged);
	assert_int_equal(ps.native, 7);
	for (v = 0, n = 0; v <= 4095; v++)
		n += port_vlan_has(ps.trunk, v);
	assert_int_equal(n, 6);		/* 7, 10, 20, 21, 22, 4094 */
	assert_true(port_vlan_has(ps.trunk, 21));
	assert_false(port_vlan_has(ps.trunk, 23));
	assert_false(port_vlan_has(ps.trunk, 0));
	snprintf(spec, sizeof(spec), "%strunk=1-4094", base);
	assert_int_equal(conf_parse_port(spec, 0, &ps, err, sizeof(err)), 0);
	assert_true(port_vlan_has(ps.trunk, 4094));
	assert_int_equal(ps.native, 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(spec, sizeof(spec), "%s%s", base, bad[i]);
		if (!conf_parse_port(spec, 0, &ps, err, sizeof(err)))
			fail_msg("'%s' was taken", bad[i]);
		assert_non_null(strstr(err, "--port"));
	}
	(void)state;
}

/* More VLANs than the switch has domains: refused whole, nothing left. */
static void test_trunk_full(void **state)
{
	struct port_spec ps;
	char spec[256], err[256];
	int idx;

	snprintf(spec, sizeof(spec), "dgram,name=big,path=%s/big,"
		 "remote-path=%s/peer,trunk=1-300", dir, dir);
	assert_int_equal(conf_parse_port(spec, 0, &ps, err, sizeof(err)), 0);
	assert_int_equal(switch_port_add(&ps), -ENOSPC);
	assert_int_equal(switch_vid_dom(300), -ENOENT);
	assert_int_equal(switch_vid_dom(2), -ENOENT);
	/* one that fits still does, and leaves cleanly */
	snprintf(spec, sizeof(spec), "dgram,name=big,path=%s/big,"
		 "remote-path=%s/peer,trunk=2-200,native=2", dir, dir);
	assert_int_equal(conf_parse_port(spec, 0, &ps, err, sizeof(err)), 0);
	idx = switch_port_add(&ps);
	assert_true(idx >= 0);
	assert_true(switch_vid_dom(200) >= 0);
	assert_int_equal(switch_port_in((unsigned int)idx, 150),
			 switch_vid_dom(150));
	assert_int_equal(switch_port_in((unsigned int)idx, 201), -ENOENT);
	switch_port_del((unsigned int)idx);
	assert_int_equal(switch_vid_dom(200), -ENOENT);
	snprintf(spec, sizeof(spec), "%s/big", dir);
	unlink(spec);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_trunk_conf),
		cmocka_unit_test_setup_teardown(test_trunk_full, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bursts, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
