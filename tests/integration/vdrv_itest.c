// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_itest.c - switch scenarios, played by vdrv "guests" against vhostd
 *
 *   vdrv_itest [packed:|mixed:|in-order:]...SCENARIO SOCK [SOCK...]
 *
 * run.sh and lifecycle.sh start vhostd with one vhost-user port per SOCK
 * and run one scenario; this program opens the ports itself (one vdrv
 * device each, all in this thread) and checks every frame's content, not
 * just counts: test frames carry tag, sequence, length and a pattern
 * (vdrv_pkt.h).  Scenarios that check vhostd's counters read them from
 * the control socket named by $VDRV_ITEST_CTL.  Exit status 0 = pass;
 * each failure prints "FAIL: why" on stderr.
 *
 * The scenarios live in vdrv_itest/ (see vdrv_itest.h there); this file
 * holds their table and main().
 */
#include <stdio.h>
#include <string.h>

#include "vdrv_itest/vdrv_itest.h"

/**
 * struct it_scenario - one scenario of the table
 * @name:	what the command line names
 * @fn:		runs it; returns only on success
 * @what:	one line for the usage text
 */
struct it_scenario {
	const char *name;
	void (*fn)(void);
	const char *what;
};

static const struct it_scenario it_scenarios[] = {
	{ "basic", sc_basic, "broadcast to all, learned unicast to one" },
	{ "learning", sc_learning, "unknown unicast floods until learned" },
	{ "flood", sc_flood, "broadcast/multicast/unknown to all others" },
	{ "aging", sc_aging, "a silent MAC floods again (--fdb-age 2)" },
	{ "mrg", sc_mrg, "MRG_RXBUF with 256-byte buffers, TX layouts" },
	{ "nomrg", sc_nomrg, "one buffer or chain per frame" },
	{ "oversize", sc_oversize, "too big for the receiver: dropped there" },
	{ "burst", sc_burst, "20000 frames in bursts, in order" },
	{ "variants", sc_variants, "feature and layout combinations" },
	{ "mtu", sc_mtu, "a guest with MTU 1000 gets nothing longer" },
	{ "scale", sc_scale, "every pair of many ports (16+)" },
	{ "mq", sc_mq,
	  "2 queue pairs each (queues=2): replies on the flow's pair" },
	{ "reconnect", sc_reconnect, "a guest leaves and comes back" },
	{ "client", sc_client, "vhostd connects to us (first SOCK)" },
	{ "client-rounds", sc_client_rounds,
	  "vhostd reconnects to a guest that leaves and comes back" },
	{ "ring-enable", sc_ring_enable,
	  "SET_VRING_ENABLE 0/1 under traffic (needs $VDRV_ITEST_CTL)" },
	{ "flood-hangup", sc_flood_hangup,
	  "flood until vhostd hangs up on every guest" },
	{ "ctl-guests", sc_ctl_guests,
	  "known MACs on known ports until SIGTERM, for ctl.sh" },
	{ "gso-tiny", sc_gso_tiny,
	  "A's 64 KiB TSO frame with gso_size 1: dropped at B and C" },
	{ "hostile-long-chain", sc_hostile_long_chain,
	  "E: 255-descriptor chains; A<->B latency vs a C->D flood" },
	{ "hostile-huge-indirect", sc_hostile_huge_indirect,
	  "E: 32768-entry indirect tables; same measure" },
	{ "hostile-same-head", sc_hostile_same_head,
	  "E: 254 descriptors + a 32768-entry table; same measure" },
	{ "hostile-max-chain", sc_hostile_max_chain,
	  "E: the longest legal chains (64); same measure" },
	{ "hostile-max-indirect", sc_hostile_max_indirect,
	  "E: the largest legal indirect tables (64); same measure" },
	{ "hostile-call-block", sc_hostile_call_block,
	  "E: call eventfds blocking and full; same measure" },
	{ "hostile-kick-steal", sc_hostile_kick_steal,
	  "E: reads back its own kicks (blocking fd); same measure" },
	{ "mac-lock", sc_mac_lock,
	  "B, C locked (mac=): spoofed frames dropped (l2.sh)" },
	{ "mac-steal", sc_mac_steal,
	  "B locked: C's frame from B's MAC moves nothing (l2.sh)" },
	{ "mac-move", sc_mac_move,
	  "nobody locked: a MAC moves with its frames (l2.sh)" },
	{ "mac-spray", sc_mac_spray,
	  "C sprays 5000 source MACs: quota holds (l2.sh)" },
	{ "stall", sc_stall,
	  "p2-p4 stall vhostd's control thread; ctl timed (hostile.sh)" },
	{ "listen-full", sc_listen_full,
	  "listen at SOCK, backlog full, accept nothing (hostile.sh)" },
	{ "storm", sc_storm,
	  "C floods flat out: A, B get its budget only (l2.sh)" },
	{ "storm-bystander", sc_storm_bystander,
	  "A<->B p99: C's storm vs C's ordinary flood (l2.sh)" },
};

/**
 * it_usage() - print the scenario list
 */
static void it_usage(void)
{
	unsigned int i;

	fprintf(stderr, "usage: vdrv_itest SCENARIO SOCK [SOCK...]\n"
		"scenarios:\n");
	for (i = 0; i < IT_ARRAY_SIZE(it_scenarios); i++)
		fprintf(stderr, "  %-14s %s\n", it_scenarios[i].name,
			it_scenarios[i].what);
	fprintf(stderr, "  %-14s %s\n", "evil:KIND",
		"the last of three ports commits KIND (vdrv_evil)");
	fprintf(stderr, "prefixes: packed: (all rings packed), mixed: (every "
		"other port's), in-order: (VIRTIO_F_IN_ORDER, checked)\n");
}

/**
 * it_ring_prefix() - apply ring layout prefixes of a scenario name
 * @sc:		scenario name, maybe "packed:", "mixed:" and/or
 *		"in-order:" in front
 *
 * packed: every port's rings are packed; mixed: every other port's (B,
 * D, ...), so frames cross between the layouts; in-order: every port
 * asks for VIRTIO_F_IN_ORDER and checks the device keeps it.  Scenarios
 * that set their own options later keep these unless they reset them.
 *
 * Return: the scenario name without the prefixes
 */
static const char *it_ring_prefix(const char *sc)
{
	unsigned int i;

	for (;;) {
		bool packed = !strncmp(sc, "packed:", 7);
		bool mixed = !strncmp(sc, "mixed:", 6);
		bool in_order = !strncmp(sc, "in-order:", 9);

		if (!packed && !mixed && !in_order)
			return sc;
		for (i = 0; i < it_nports; i++) {
			if (packed || (mixed && (i & 1)))
				it_ports[i].o.packed = true;
			if (in_order)
				it_ports[i].o.in_order = true;
		}
		sc = strchr(sc, ':') + 1;
	}
}

/**
 * it_done() - a scenario returned: no device it closed, whether the
 *	       scenario looked or not (the evil port's included), may have
 *	       broken a virtio rule
 *
 * Return: exit status, 0 or 1
 */
static int it_done(void)
{
	if (!vdrv_dev_errors_freed())
		return 0;
	fprintf(stderr, "FAIL: the devices broke %llu virtio rules\n",
		(unsigned long long)vdrv_dev_errors_freed());
	return 1;
}

/**
 * main() - run one scenario
 * @argc:	count
 * @argv:	SCENARIO SOCK...
 * Return: 0 pass, 1 fail, 2 usage
 */
int main(int argc, char **argv)
{
	unsigned int i;
	const char *sc;

	if (argc < 3) {
		it_usage();
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sc = argv[1];
	it_setup(argc, argv);
	sc = it_ring_prefix(sc);
	if (!strncmp(sc, "evil:", 5)) {
		sc_evil(sc + 5);
		return it_done();
	}
	for (i = 0; i < IT_ARRAY_SIZE(it_scenarios); i++) {
		if (!strcmp(sc, it_scenarios[i].name)) {
			it_scenarios[i].fn();
			return it_done();
		}
	}
	fprintf(stderr, "unknown scenario %s\n", sc);
	it_usage();
	return 2;
}
