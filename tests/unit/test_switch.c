// SPDX-License-Identifier: GPL-2.0-or-later
/* test_switch.c - switch_forward()'s decisions against a naive model
 *
 * Bridge domains, isolated ports and the tagged= rule, under random port
 * configurations and random frames: a differential test.  The ports are
 * dgram ports (unix sockets in a private directory, opened for real so
 * that switch_port_add() runs as in vhostd) whose xmit is replaced by a
 * recorder, so every delivery of every frame is seen.
 *
 * The model is a plain map (VLAN, MAC) -> port and the rules written out
 * as the issue states them:
 *   - a frame with a VLAN tag from a port with tagged=off is dropped,
 *     before anything is learned;
 *   - its unicast source MAC is learned in the source's domain;
 *   - known unicast goes to its port (none if that is the source, none
 *     if both are isolated, none if the port is down); anything else
 *     floods to every up port of the domain but the source, skipping the
 *     isolated ones if the source is isolated.
 * With bursts of one frame the switch must do exactly that; with random
 * bursts (where the switch caches lookups within a burst, so a MAC moving
 * inside one may be seen late) the invariants must hold: no delivery
 * outside the source's domain, none between two isolated ports, none
 * back to the source, nothing from a refused tagged frame.
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
#include "../../src/port/port.h"

#define NPORTS	12
#define NMACS	10
#define FRAMES	1000000

/* Up and down through the switch: going down forgets the port's MACs. */
#define STUB_SET_UP	switch_set_up
#include "stub_host.h"

/**
 * struct cfg - one port's configuration, as the model sees it
 * @vlan:	its domain
 * @isolated:	isolated=on
 * @tagged:	tagged=on
 * @up:		forwarding
 * @idx:	its switch index
 */
struct cfg {
	unsigned int vlan;
	bool isolated;
	bool tagged;
	bool up;
	int idx;
};

static char dir[64];
static struct cfg cfg[NPORTS];
static struct port_ops rec_ops;
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

/* Deliveries of the current burst: got[frame][port index]. */
static unsigned char got[SWITCH_BURST][SWITCH_PORTS_MAX];
static struct pkt burst[SWITCH_BURST];

/* The model's MAC table: port index + 1 by [vlan][mac], 0: unknown. */
static unsigned char model[4095][NMACS];

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static unsigned int rec_xmit(struct port *p, struct pkt *const *pkts,
			     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		ptrdiff_t f = pkts[i] - burst;

		assert_true(f >= 0 && f < SWITCH_BURST);
		assert_int_equal(got[f][p->idx], 0);	/* once per port */
		got[f][p->idx] = 1;
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

/**
 * port_make() - (re)create model port @i with a random configuration
 * @i:		model index
 */
static void port_make(unsigned int i)
{
	static const unsigned int vlans[] = { 1, 10, 20, 4094 };
	char spec[256], err[256];
	struct port_spec ps;
	struct port *p;
	int idx;

	cfg[i].vlan = vlans[rnd(4)];
	cfg[i].isolated = !rnd(3);
	cfg[i].tagged = rnd(2);
	snprintf(spec, sizeof(spec), "dgram,name=p%u,path=%s/p%u,"
		 "remote-path=%s/peer,flood-rate=0,max-macs=4096,vlan=%u,"
		 "isolated=%s,tagged=%s", i, dir, i, dir, cfg[i].vlan,
		 cfg[i].isolated ? "on" : "off", cfg[i].tagged ? "on" : "off");
	assert_int_equal(conf_parse_port(spec, i, &ps, err, sizeof(err)), 0);
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
 * model_expect() - where the model sends one frame
 * @s:		source model port
 * @smac:	source station (index, may be >= NMACS: group, not learned)
 * @dmac:	destination (index; NMACS and above: group)
 * @tag:	the frame carries a VLAN tag
 * @want:	out: want[switch index] set for each delivery
 * Return: whether the frame was accepted (counted in its domain)
 */
static bool model_expect(unsigned int s, unsigned int smac,
			 unsigned int dmac, bool tag, unsigned char *want)
{
	unsigned int v = cfg[s].vlan, i;

	memset(want, 0, SWITCH_PORTS_MAX);
	if (tag && !cfg[s].tagged)
		return false;
	if (smac < NMACS)
		model[v][smac] = (unsigned char)(cfg[s].idx + 1);
	if (dmac < NMACS && model[v][dmac]) {
		int to = model_of(model[v][dmac] - 1);

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
		if (i == s || cfg[i].vlan != v || !cfg[i].up)
			continue;
		if (cfg[s].isolated && cfg[i].isolated)
			continue;
		want[cfg[i].idx] = 1;
	}
	return true;
}

static void frame_fill(struct pkt *pkt, unsigned int smac, unsigned int dmac,
		       bool tag)
{
	memset(pkt, 0, offsetof(struct pkt, iov));
	mac_of(dmac, pkt->eth.h_dest);
	mac_of(smac, pkt->eth.h_source);
	pkt->eth.h_proto = htons(tag ? (rnd(4) ? ETH_P_8021Q : ETH_P_8021AD) :
				 ETH_P_IP);
	pkt->len = 60;
	pkt->iovcnt = 1;
	pkt->iov[0].iov_base = pkt;	/* never read: the recorder sends */
	pkt->iov[0].iov_len = 60;
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

/* Bursts of one: the switch decides exactly as the model. */
static void test_exact(void **state)
{
	unsigned char want[SWITCH_PORTS_MAX];
	uint64_t accepted = 0, base = dom_frames();
	unsigned int n;

	for (n = 0; n < FRAMES; n++) {
		unsigned int s = rnd(NPORTS), smac = rnd(NMACS + 2);
		unsigned int dmac = rnd(NMACS + 2);
		bool tag = !rnd(8);
		struct pkt *one = &burst[0];

		if (!rnd(5000))
			churn();
		if (!cfg[s].up)
			continue;
		frame_fill(&burst[0], smac, dmac, tag);
		memset(got, 0, sizeof(got));
		accepted += model_expect(s, smac, dmac, tag, want);
		switch_forward(switch_port((unsigned int)cfg[s].idx), &one, 1);
		if (memcmp(got[0], want, sizeof(want))) {
			unsigned int i;

			for (i = 0; i < NPORTS; i++)
				print_error("port %u (idx %d) vlan %u iso %d "
					    "tagged %d up %d: got %d want %d\n",
					    i, cfg[i].idx, cfg[i].vlan,
					    cfg[i].isolated, cfg[i].tagged,
					    cfg[i].up, got[0][cfg[i].idx],
					    want[cfg[i].idx]);
			fail_msg("frame %u from p%u smac %u dmac %u tag %d", n,
				 s, smac, dmac, tag);
		}
	}
	/* Every accepted frame counted once, in its domain. */
	assert_true(dom_frames() - base <= accepted);
	(void)state;
}

/* Random bursts: the invariants. */
static void test_bursts(void **state)
{
	struct pkt *ptrs[SWITCH_BURST];
	unsigned int n, f, d, k;
	bool tagged[SWITCH_BURST];

	for (n = 0; n < FRAMES / 8; n++) {
		unsigned int s = rnd(NPORTS), len = 1 + rnd(SWITCH_BURST);

		if (!rnd(1000))
			churn();
		if (!cfg[s].up)
			continue;
		for (f = 0; f < len; f++) {
			tagged[f] = !rnd(6);
			frame_fill(&burst[f], rnd(NMACS + 2), rnd(NMACS + 2),
				   tagged[f]);
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
				assert_int_equal(cfg[k].vlan, cfg[s].vlan);
				assert_true(cfg[k].up);
				assert_false(cfg[k].isolated &&
					     cfg[s].isolated);
				assert_false(tagged[f] && !cfg[s].tagged);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test_setup_teardown(test_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bursts, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
