// SPDX-License-Identifier: GPL-2.0-or-later
/* switch.c - the L2 learning switch: port table and forwarding decisions
 *
 * DOC: Theory of Operation
 *
 * The switch owns a fixed table of ports and the MAC table.  Ports are
 * added and removed by the control thread only; workers read the table.
 * A slot's @in_use and @up flags are set with release semantics, so a
 * worker that sees a port up also sees its fully initialised state; they
 * are cleared and read seq_cst, so that after port_quiesce() no worker
 * still delivers to a port taken out (switch_port_del()).
 *
 * switch_forward() is the whole forwarding plane.  For a burst received
 * on one port it learns each frame's source MAC, picks destinations and
 * groups the burst per destination, then calls each destination's xmit
 * once with its group, so a destination takes its queue lock once per
 * burst and signals its guest at most once.  The frames are not copied
 * here: xmit copies them straight from the source's buffers into the
 * destination's (guest RX buffers, a TAP writev), which is the one copy
 * a frame takes between two guests.
 *
 * Decisions follow a plain 802.1D bridge: group-addressed destinations
 * (broadcast and multicast) and unknown unicast flood to every up port but
 * the source; known unicast goes to its port; a frame whose destination
 * sits on its own source port is filtered (no hairpin).
 *
 * Bridge domains keep tenants apart.  Every port is in one domain, named
 * by its VLAN (vlan=, default 1): MACs are learned and looked up per
 * (domain, MAC), so the same MAC may live in two domains, and floods reach
 * the members of the source's domain only.  A domain is an index into
 * @doms (at most FDB_DOMS in use, the FDB keys carry it) with a bitmask of
 * its member ports, so a flood is one AND and a walk over the set bits.
 * An isolated port (isolated=on) reaches only the non-isolated members of
 * its domain (private VLAN "isolated"): its floods skip the isolated ones,
 * its unicast to one is dropped (drops.isolated).  A port with vlan= given
 * refuses frames that carry a VLAN tag (drops.vlan) unless tagged=on; one
 * without is in the default domain and carries its peer's tags as payload,
 * as vhostd did before domains.
 *
 * L2 isolation, so that no guest can take another's traffic or drown it:
 *
 * - A port locked to a MAC (mac= port key) drops every frame from another
 *   source MAC (drops.spoofed); its MAC is a static FDB entry, which no
 *   frame from another port takes over (learn_refused.locked there).
 * - Every other port learns at most its max-macs MACs (fdb.c, quotas);
 *   the sources it is refused still forward (replies to them flood).
 * - Storm control: each source port may flood (broadcast, multicast,
 *   unknown unicast) flood-rate frames a second, in bursts of at most
 *   flood-burst; the rest are dropped at the source (drops.storm) before
 *   they cost any other port a copy.  A burst takes its tokens once, at
 *   its first flooded frame (one clock read, one atomic operation) and
 *   gives back what it did not use (storm.h).  The clock is
 *   CLOCK_MONOTONIC_COARSE: a few ns through the vDSO, ticking every 1-4
 *   ms, which the bucket depth (at least 20 ms of the rate) absorbs; a
 *   burst that floods nothing reads no clock.
 * The checks cost a known-unicast burst one compare per new source MAC
 * (the lock) and nothing per frame.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "log.h"
#include "net/eth.h"
#include "net/iov.h"
#include "storm.h"
#include "switch.h"
#include "util.h"

_Static_assert(SWITCH_PORTS_MAX <= FDB_PORTS,
	       "every port needs a learning quota in the FDB");

/**
 * struct switch_l2 - a port's isolation settings and storm budget
 * @storm:	flooded-frame budget, taken by the workers polling the port
 * @mac:	the MAC the port is locked to, if @locked
 * @locked:	only frames from @mac are accepted (static FDB entry, in
 *		each of its domains)
 * @rate:	rx= and tx= rate limits (rate.h), indexed by enum rate_dir
 * @hold_ns:	the port's sources get no turn before this (clock, ns; 0:
 *		none): it sent into a tx= limit past its tolerance
 * @dom:	index of its bridge domain in struct switch_ctx @doms; a
 *		trunk's native one, else that of its lowest VLAN
 * @isolated:	isolated=on
 * @tagged:	frames with a VLAN tag are taken from it (tagged=)
 * @trunk:	trunk=: its frames carry 802.1Q tags naming their domain
 * @native:	a trunk's untagged VLAN (native=), 0: none
 * @vlans:	the VLANs of its domains: an access port's one, a trunk's
 *		list (with @native); PORT_VLAN_WORDS words in struct
 *		switch_ctx @vlan_sets, out of the way of the hot fields
 *
 * Written by the control thread before the port is in use; then only
 * @storm and @rate change (atomically, storm.h, rate.h; @rate's settings
 * also by vhostctl set).
 */
struct switch_l2 {
	struct storm storm;
	struct rate rate[RATE_DIRS];
	uint64_t hold_ns;
	uint8_t mac[ETH_ALEN];
	bool locked;
	uint8_t dom;
	bool isolated;
	bool tagged;
	bool trunk;
	uint16_t native;
	uint64_t *vlans;
};

#define SWITCH_VID_MAX	4095	/* 802.1Q: 1-4094 name VLANs */
#define SWITCH_DOM_NONE	0xffff

/**
 * struct switch_dom - one bridge domain
 * @vid:	its VLAN, 0 while the slot is free
 * @refs:	ports in it (control thread)
 * @members:	bit i set: port i is in it.  Written by the control thread
 *		before the port goes up and after it went down; read by
 *		workers (relaxed: a port not up is skipped anyway)
 */
struct switch_dom {
	uint16_t vid;
	uint16_t refs;
	uint64_t members;
};

/**
 * struct switch_dom_ctr - one domain's counters, one copy per counting
 *			   thread (stats.h's slots)
 * @frames:	frames forwarded in it (accepted from a member)
 * @bytes:	their bytes
 * @flooded:	of them, flooded (group address or unknown unicast)
 */
struct switch_dom_ctr {
	uint64_t frames;
	uint64_t bytes;
	uint64_t flooded;
};

_Static_assert(SWITCH_PORTS_MAX <= 64, "a domain's members are a uint64_t");

/**
 * struct switch_ctx - the switch
 * @ports:	port table, indexed by port->idx
 * @nports:	highest slot in use + 1
 * @fdb:	MAC table
 * @l2:		per-port isolation and storm control, indexed like @ports
 * @spec:	the spec each port was made from, indexed like @ports, for
 *		ctl's checks of a port added at run time (portctl.c);
 *		control thread only
 * @doms:	bridge domains, by index
 * @vid_dom:	the domain index of each VLAN, SWITCH_DOM_NONE if unused
 *		(control thread)
 * @isolated:	bit i set: port i is isolated (read by workers, relaxed)
 * @dom_ctr:	per-domain counters, [stats slot][domain index]
 * @vlan_sets:	each port's VLANs (struct switch_l2 @vlans)
 */
static struct switch_ctx {
	struct port ports[SWITCH_PORTS_MAX];
	unsigned int nports;
	struct fdb fdb;
	struct switch_l2 l2[SWITCH_PORTS_MAX];
	struct port_spec spec[SWITCH_PORTS_MAX];
	struct switch_dom doms[FDB_DOMS];
	uint16_t vid_dom[SWITCH_VID_MAX + 1];
	uint64_t isolated;
	struct switch_dom_ctr dom_ctr[STATS_SLOTS][FDB_DOMS];
	uint64_t vlan_sets[SWITCH_PORTS_MAX][PORT_VLAN_WORDS];
} sw;

/**
 * switch_clock_ns() - the storm buckets' clock
 * Return: CLOCK_MONOTONIC_COARSE, ns (see the DOC for why coarse)
 */
static inline uint64_t switch_clock_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* MAC learning only needs to know which second it is, and ageing works
 * in whole seconds: the control thread's once-a-second tick is clock
 * enough, and saves every burst a clock read (a vDSO call is about as
 * dear as the rest of the learning).
 */
uint32_t switch_clock_s;

/**
 * switch_init() - empty switch
 * @age_s:	MAC table ageing time, seconds
 * Context: control thread, start-up
 */
void switch_init(uint32_t age_s)
{
	unsigned int i;

	memset(&sw.ports, 0, sizeof(sw.ports));
	memset(&sw.l2, 0, sizeof(sw.l2));
	memset(&sw.doms, 0, sizeof(sw.doms));
	memset(&sw.dom_ctr, 0, sizeof(sw.dom_ctr));
	memset(&sw.vlan_sets, 0, sizeof(sw.vlan_sets));
	for (i = 0; i < SWITCH_PORTS_MAX; i++) {
		sw.ports[i].idx = i;
		sw.l2[i].vlans = sw.vlan_sets[i];
	}
	for (i = 0; i <= SWITCH_VID_MAX; i++)
		sw.vid_dom[i] = SWITCH_DOM_NONE;
	sw.isolated = 0;
	sw.nports = 0;
	__atomic_store_n(&switch_clock_s, now_s(), __ATOMIC_RELAXED);
	fdb_init(&sw.fdb, age_s);
}

/**
 * switch_dom_get() - the domain of VLAN @vid, made if it is new
 * @vid:	1-4094
 *
 * A new domain starts with no entries: its index's old ones went when
 * its last port did (switch_dom_put()).
 *
 * Return: its index with one more reference, or -ENOSPC (FDB_DOMS VLANs
 *	   in use already), -EINVAL (@vid out of range)
 * Context: control thread
 */
static int switch_dom_get(unsigned int vid)
{
	unsigned int i, k;

	if (!vid || vid >= SWITCH_VID_MAX)
		return -EINVAL;
	if (sw.vid_dom[vid] != SWITCH_DOM_NONE) {
		sw.doms[sw.vid_dom[vid]].refs++;
		return sw.vid_dom[vid];
	}
	for (i = 0; i < FDB_DOMS; i++) {
		if (sw.doms[i].vid)
			continue;
		sw.doms[i].vid = (uint16_t)vid;
		sw.doms[i].refs = 1;
		sw.vid_dom[vid] = (uint16_t)i;
		for (k = 0; k < STATS_SLOTS; k++)
			memset(&sw.dom_ctr[k][i], 0, sizeof(sw.dom_ctr[k][i]));
		return (int)i;
	}
	return -ENOSPC;
}

/**
 * switch_dom_put() - a port leaves domain @dom; the last one frees it
 * @dom:	domain index
 *
 * Its entries go with it (static ones included: a port of another VLAN
 * may take the index next).  No worker looks the domain up any more: its
 * ports are all out of forwarding and quiesced.
 *
 * Context: control thread
 */
static void switch_dom_put(unsigned int dom)
{
	struct switch_dom *d = &sw.doms[dom];

	if (!d->vid || --d->refs)
		return;
	fdb_flush_dom(&sw.fdb, (uint8_t)dom);
	sw.vid_dom[d->vid] = SWITCH_DOM_NONE;
	d->vid = 0;
}

/**
 * switch_vlan_next() - the next VLAN of a port's set, in order
 * @l2:		the port
 * @vid:	the one before (0 to start)
 * Return: the next one in @l2->vlans after @vid, 0 past the last
 */
static unsigned int switch_vlan_next(const struct switch_l2 *l2,
				     unsigned int vid)
{
	unsigned int w = ++vid / 64;
	uint64_t m;

	if (vid > PORT_VLAN_MAX)
		return 0;
	m = l2->vlans[w] & (~0ULL << (vid % 64));
	while (!m && ++w < PORT_VLAN_WORDS)
		m = l2->vlans[w];
	return m ? w * 64 + (unsigned int)__builtin_ctzll(m) : 0;
}

#define switch_for_each_vlan(l2, vid)					\
	for ((vid) = switch_vlan_next((l2), 0); (vid);			\
	     (vid) = switch_vlan_next((l2), (vid)))

/**
 * switch_doms_leave() - port @idx leaves the domains of its VLANs below
 *			 @upto
 * @idx:	port index
 * @upto:	first VLAN not to leave (PORT_VLAN_MAX + 1: all)
 * Context: control thread; the port is out of forwarding
 */
static void switch_doms_leave(unsigned int idx, unsigned int upto)
{
	struct switch_l2 *l2 = &sw.l2[idx];
	unsigned int vid;

	switch_for_each_vlan(l2, vid) {
		unsigned int dom = sw.vid_dom[vid];

		if (vid >= upto)
			break;
		__atomic_fetch_and(&sw.doms[dom].members, ~(1ULL << idx),
				   __ATOMIC_RELAXED);
		switch_dom_put(dom);
	}
}

/**
 * switch_doms_join() - port @idx joins the domain of each of its VLANs
 * @idx:	port index, its @vlans set
 *
 * Each domain is made if it is new; a MAC lock is a static entry in each
 * (a trunk's guest uses its MAC on every VLAN).  All or nothing.
 *
 * Return: 0 or -errno (-ENOSPC: more VLANs than FDB_DOMS in use)
 * Context: control thread, before the port is in use
 */
static int switch_doms_join(unsigned int idx)
{
	struct switch_l2 *l2 = &sw.l2[idx];
	unsigned int vid;
	int dom, rc;

	switch_for_each_vlan(l2, vid) {
		dom = switch_dom_get(vid);
		rc = dom;
		if (dom >= 0 && l2->locked)
			rc = fdb_static_add(&sw.fdb, (uint8_t)dom, l2->mac,
					    (uint16_t)idx);
		if (rc < 0) {
			if (dom >= 0)
				switch_dom_put(dom);
			fdb_flush_port_static(&sw.fdb, (uint16_t)idx);
			switch_doms_leave(idx, vid);
			return rc;
		}
		__atomic_fetch_or(&sw.doms[dom].members, 1ULL << idx,
				  __ATOMIC_RELAXED);
	}
	return 0;
}

/**
 * switch_l2_init() - a new port's domains, isolation settings and storm
 *		      budget
 * @idx:	port index
 * @spec:	its spec (vlan, trunk, native, isolated, tagged, max-macs,
 *		mac, flood-rate, flood-burst)
 *
 * Return: 0 or -errno from switch_dom_get() or fdb_static_add()
 * Context: control thread, before the port is in use
 */
static int switch_l2_init(unsigned int idx, const struct port_spec *spec)
{
	struct switch_l2 *l2 = &sw.l2[idx];
	unsigned int vid;
	int rc;

	storm_init(&l2->storm, spec->flood_rate, spec->flood_burst,
		   switch_clock_ns());
	fdb_flush_port(&sw.fdb, (uint16_t)idx);
	fdb_set_max(&sw.fdb, (uint16_t)idx, spec->max_macs);
	rate_set(&l2->rate[RATE_RX], spec->rx_rate, spec->rx_burst, now_ns());
	__atomic_store_n(&l2->hold_ns, 0, __ATOMIC_RELAXED);
	rate_set(&l2->rate[RATE_TX], spec->tx_rate, spec->tx_burst, now_ns());

	memset(l2->vlans, 0, PORT_VLAN_WORDS * sizeof(*l2->vlans));
	l2->trunk = spec->is_trunk;
	l2->native = 0;
	if (l2->trunk) {
		memcpy(l2->vlans, spec->trunk,
		       PORT_VLAN_WORDS * sizeof(*l2->vlans));
		l2->native = (uint16_t)(port_vlan_has(spec->trunk, spec->native) ?
					spec->native : 0);
		vid = l2->native ? l2->native : switch_vlan_next(l2, 0);
	} else {
		vid = spec->vlan ? spec->vlan : PORT_VLAN_DEFAULT;
		if (vid > PORT_VLAN_MAX)
			return -EINVAL;
		port_vlan_add(l2->vlans, vid);
	}
	if (!vid)
		return -EINVAL;		/* a trunk of no VLAN */
	l2->isolated = spec->isolated;
	l2->tagged = spec->tagged && !l2->trunk;
	l2->locked = spec->has_mac;
	memcpy(l2->mac, spec->mac, ETH_ALEN);
	rc = switch_doms_join(idx);
	if (rc < 0) {
		l2->locked = false;
		return rc;
	}
	l2->dom = (uint8_t)sw.vid_dom[vid];
	if (l2->isolated)
		__atomic_fetch_or(&sw.isolated, 1ULL << idx, __ATOMIC_RELAXED);
	return 0;
}

/**
 * switch_l2_fini() - undo switch_l2_init() (domains, static entries)
 * @idx:	port index
 * Context: control thread
 */
static void switch_l2_fini(unsigned int idx)
{
	struct switch_l2 *l2 = &sw.l2[idx];

	__atomic_fetch_and(&sw.isolated, ~(1ULL << idx), __ATOMIC_RELAXED);
	/* The lock and every static entry vhostctl gave the port. */
	fdb_flush_port_static(&sw.fdb, (uint16_t)idx);
	l2->locked = false;
	switch_doms_leave(idx, PORT_VLAN_MAX + 1);
	memset(l2->vlans, 0, PORT_VLAN_WORDS * sizeof(*l2->vlans));
}

/**
 * switch_port_add() - create a port from its spec
 * @spec:	parsed --port spec
 *
 * Return: the new port's index, or -errno (-ENOSPC: table full,
 *	   -EINVAL: unknown type, or what the type's open returned)
 * Context: control thread
 */
int switch_port_add(const struct port_spec *spec)
{
	const struct port_ops *ops = port_ops_find(spec->type);
	struct port *p = NULL;
	unsigned int i;
	int rc;

	if (!ops)
		return -EINVAL;
	for (i = 0; i < SWITCH_PORTS_MAX; i++) {
		if (!sw.ports[i].in_use) {
			p = &sw.ports[i];
			break;
		}
	}
	if (!p)
		return -ENOSPC;

	memset(&p->stats, 0, sizeof(p->stats));
	sw.spec[i] = *spec;
	p->up = false;
	p->ops = ops;
	snprintf(p->name, sizeof(p->name), "%s", spec->name);
	log_src_init(&p->log, p->name);
	p->priv = calloc(1, ops->priv_size);
	if (!p->priv)
		return -ENOMEM;
	rc = switch_l2_init(i, spec);
	if (rc < 0) {
		free(p->priv);
		p->priv = NULL;
		return rc;
	}

	/* Visible to workers before open registers any fd with them. */
	__atomic_store_n(&p->in_use, true, __ATOMIC_RELEASE);
	if (i + 1 > sw.nports)
		__atomic_store_n(&sw.nports, i + 1, __ATOMIC_RELEASE);

	rc = ops->open(p, spec);
	if (rc < 0) {
		__atomic_store_n(&p->in_use, false, __ATOMIC_RELEASE);
		switch_l2_fini(i);
		free(p->priv);
		p->priv = NULL;
		return rc;
	}
	return (int)i;
}

/**
 * switch_port_del() - close a port and free its slot
 * @idx:	port index
 *
 * The port is taken out of forwarding first (@up and @in_use cleared,
 * seq_cst), then port_quiesce() waits until every worker has finished the
 * pass it was in: none is still delivering to it or forwarding from it,
 * and none will.  Only then does the port close and its state go.
 *
 * Its MACs are forgotten after the close (until then its own source
 * queues may still learn), and then the workers are waited for once
 * more: a pass that looked a MAC up before the flush may still hold the
 * slot's index and count a drop on it (drops.port_down), which must not
 * land in the counters of a port that takes the slot next.
 *
 * Context: control thread, workers running or not
 */
void switch_port_del(unsigned int idx)
{
	struct port *p = switch_port(idx);

	if (!p)
		return;
	/* Its captures end before the index can name another port. */
	capture_port_gone(idx);
	__atomic_store_n(&p->up, false, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->in_use, false, __ATOMIC_SEQ_CST);
	port_quiesce();
	p->ops->close(p);
	fdb_flush_port(&sw.fdb, (uint16_t)idx);
	switch_l2_fini(idx);
	port_quiesce();
	free(p->priv);
	p->priv = NULL;
	p->ops = NULL;
	memset(&sw.spec[idx], 0, sizeof(sw.spec[idx]));
}

/**
 * switch_rate() - a port's rate limit in one direction, if it has one
 * @p:		port
 * @dir:	RATE_RX (what it takes from its peer) or RATE_TX
 * Return: the bucket, or NULL when that direction is not limited
 * Context: any thread
 */
struct rate *switch_rate(const struct port *p, enum rate_dir dir)
{
	struct rate *r = &sw.l2[p->idx].rate[dir];

	return rate_on(r) ? r : NULL;
}

/**
 * switch_rate_get() - a port's limit, for ctl
 * @idx:	port index
 * @dir:	direction
 * @bps:	out: bits per second, 0 if none
 * @burst:	out: bytes
 */
void switch_rate_get(unsigned int idx, enum rate_dir dir, uint64_t *bps,
		     uint64_t *burst)
{
	const struct rate *r = &sw.l2[idx].rate[dir];

	*bps = __atomic_load_n(&r->bps, __ATOMIC_RELAXED);
	*burst = __atomic_load_n(&r->burst, __ATOMIC_RELAXED);
}

/**
 * switch_rate_set() - change a port's limit while it runs (vhostctl set)
 * @idx:	port index, in use
 * @dir:	direction
 * @bps:	bits per second, 0: none
 * @burst:	bytes, 0: the default for @bps
 *
 * The bucket starts full.  The port's spec is updated too, so that what
 * ctl shows and a restart from the --state file agree.
 *
 * Context: control thread
 */
void switch_rate_set(unsigned int idx, enum rate_dir dir, uint64_t bps,
		     uint64_t burst)
{
	struct port_spec *spec = &sw.spec[idx];

	rate_set(&sw.l2[idx].rate[dir], bps, burst, now_ns());
	if (dir == RATE_RX) {
		spec->rx_rate = bps;
		spec->rx_burst = burst;
	} else {
		spec->tx_rate = bps;
		spec->tx_burst = burst;
	}
}

/**
 * switch_set_up() - a port starts or stops taking frames (port_host)
 * @p:		port
 * @up:		taking frames from now on
 *
 * Going down forgets the MACs learned on the port: its guest may come
 * back with other ones, and frames for the old ones flood meanwhile
 * instead of vanishing into a port that takes nothing.
 *
 * Context: control thread
 */
void switch_set_up(struct port *p, bool up)
{
	__atomic_store_n(&p->up, up, __ATOMIC_SEQ_CST);
	if (!up)
		fdb_flush_port(&sw.fdb, (uint16_t)p->idx);
}

/**
 * switch_port() - port at a slot
 * @idx:	index
 * Return: the port, or NULL if @idx is out of range or free
 */
struct port *switch_port(unsigned int idx)
{
	if (idx >= SWITCH_PORTS_MAX ||
	    !__atomic_load_n(&sw.ports[idx].in_use, __ATOMIC_SEQ_CST))
		return NULL;
	return &sw.ports[idx];
}

/**
 * switch_port_find() - the port named @name
 * @name:	port name
 * Return: the port, or NULL
 * Context: control thread (names change only there)
 */
struct port *switch_port_find(const char *name)
{
	unsigned int i, n = switch_port_count();

	for (i = 0; i < n; i++) {
		struct port *p = switch_port(i);

		if (p && !strcmp(p->name, name))
			return p;
	}
	return NULL;
}

/**
 * switch_port_spec() - the spec a port was made from
 * @idx:	index
 * Return: the spec, or NULL if @idx is out of range or free
 * Context: control thread
 */
const struct port_spec *switch_port_spec(unsigned int idx)
{
	return switch_port(idx) ? &sw.spec[idx] : NULL;
}

/**
 * switch_port_count() - bound for iterating over ports
 * Return: highest slot ever used + 1
 */
unsigned int switch_port_count(void)
{
	return __atomic_load_n(&sw.nports, __ATOMIC_ACQUIRE);
}

static bool switch_port_is_up(const struct port *p)
{
	return __atomic_load_n(&p->in_use, __ATOMIC_SEQ_CST) &&
	       __atomic_load_n(&p->up, __ATOMIC_ACQUIRE);
}

static bool eth_is_group(const uint8_t *mac)
{
	return mac[0] & 1;
}

static bool eth_is_zero(const uint8_t *mac)
{
	return !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] | mac[5]);
}

/* An 802.1Q tag (or an 802.1ad service tag) follows the MACs. */
static inline bool eth_is_tagged(const struct ethhdr *eth)
{
	return eth->h_proto == htons(ETH_P_8021Q) ||
	       eth->h_proto == htons(ETH_P_8021AD);
}

/**
 * switch_learn_in() - learn @mac on @src in domain @dom, counting a refusal
 * @src:	port the frame came from
 * @dom:	the frame's domain (the port's own, or a trunk's tag's)
 * @mac:	its unicast, non-zero source MAC
 * @now:	switch_now_s()
 */
static void switch_learn_in(struct port *src, uint8_t dom, const uint8_t *mac,
			    uint32_t now)
{
	static const int8_t why[FDB_LEARN_COUNT] = {
		[FDB_LEARN_OK]		= -1,
		[FDB_LEARN_IGNORED]	= -1,
		[FDB_LEARN_QUOTA]	= STATS_LEARN_QUOTA,
		[FDB_LEARN_LOCKED]	= STATS_LEARN_LOCKED,
		[FDB_LEARN_FULL]	= STATS_LEARN_FULL,
	};
	enum fdb_learn_rc rc = fdb_learn(&sw.fdb, dom, mac, (uint16_t)src->idx,
					 now);

	if (unlikely(why[rc] >= 0))
		stats_add(&port_ctr(src)->learn_refused[why[rc]], 1);
}

/**
 * switch_learn() - learn @mac on @src, in its domain
 * @src:	port the frame came from
 * @mac:	its unicast, non-zero source MAC
 * @now:	switch_now_s()
 *
 * Context: the worker that polled @src (also switch_lend_rx()).
 */
void switch_learn(struct port *src, const uint8_t *mac, uint32_t now)
{
	switch_learn_in(src, sw.l2[src->idx].dom, mac, now);
}

/**
 * switch_src_ok() - may a frame from @smac on @src be forwarded; learn it
 * @src:	source port
 * @l2:		its isolation settings
 * @dom:	the frame's domain
 * @smac:	the frame's source MAC
 * @now:	switch_now_s()
 *
 * A guest may send any source MAC; only unicast ones are worth learning
 * (a multicast "source" would let it capture a group address).  A port
 * locked to a MAC accepts that one only, and need not learn it: it is a
 * static entry already.
 *
 * Return: false if the frame must be dropped as spoofed
 */
static inline bool switch_src_ok(struct port *src,
				 const struct switch_l2 *l2, uint8_t dom,
				 const uint8_t *smac, uint32_t now)
{
	if (l2->locked)
		return !memcmp(smac, l2->mac, ETH_ALEN);
	if (!eth_is_group(smac) && !eth_is_zero(smac))
		switch_learn_in(src, dom, smac, now);
	return true;
}

/**
 * switch_inject() - forward one frame a port made itself (port_host)
 * @src:	the port it comes from
 * @pkt:	the frame, in memory of the caller's
 *
 * A vhost-user port's RARP after a migration: learned, checked and
 * flooded like a frame its guest sent, so that a MAC lock or quota holds
 * for announcements too.  Counted as received on @src.
 *
 * Context: control thread; destinations take their own queue locks, and
 * the control thread holds none here
 */
void switch_inject(struct port *src, struct pkt *pkt)
{
	struct pkt *one = pkt;

	if (!switch_port_is_up(src))
		return;
	stats_add(&port_ctr(src)->rx_packets, 1);
	stats_add(&port_ctr(src)->rx_bytes, pkt->len);
	switch_forward(src, &one, 1);
}

/**
 * switch_rate_admit() - the frames of a burst that @p's tx= limit admits
 * @p:		destination port, its tx= limit on
 * @src:	the port they came from
 * @pkts:	the burst for it, compacted in place
 * @n:		frames in it
 *
 * Each frame is admitted on its own (rate.h) with RATE_SLACK tolerances
 * of debt, and once the bucket is past one, @src is held back (its
 * sources get no turn, worker.c) until half the burst is back: a guest
 * or a TAP sending into the limit slows down, its frames waiting in its
 * own ring or tun queue, rather than losing them.  What comes past the
 * slack anyway (many sources at once) is dropped, counted on @p as
 * "rate".
 *
 * Return: frames left in @pkts
 */
static unsigned int switch_rate_admit(struct port *p, struct port *src,
				      struct pkt **pkts, unsigned int n)
{
	struct rate *r = &sw.l2[p->idx].rate[RATE_TX];
	uint64_t now = now_ns(), wait, until, old;
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (rate_admit(r, now, pkts[i]->len, RATE_SLACK))
			pkts[k++] = pkts[i];
	if (k < n)
		stats_add(&port_ctr(p)->drops[STATS_DROP_RATE], n - k);
	if (rate_room(r, now) > 0)
		return k;
	wait = rate_wait(r, now);
	until = now + (wait ? wait : 1);
	old = __atomic_load_n(&sw.l2[src->idx].hold_ns, __ATOMIC_RELAXED);
	while (old < until &&
	       !__atomic_compare_exchange_n(&sw.l2[src->idx].hold_ns, &old,
					    until, true, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED))
		;
	return k;
}

/**
 * switch_port_held() - whether a port's sources are held back now
 * @p:		the source port
 * @until:	out: when they may run again, if held
 *
 * Held because it sent into another port's tx= limit (switch_rate_admit());
 * a hold that has run out is cleared, so that a port not held costs one
 * load.
 *
 * Return: true if held
 * Context: any worker, per turn
 */
bool switch_port_held(const struct port *p, uint64_t *until)
{
	uint64_t *h = &sw.l2[p->idx].hold_ns;
	uint64_t hold = __atomic_load_n(h, __ATOMIC_RELAXED), now;

	if (likely(!hold))
		return false;
	now = now_ns();
	if (now >= hold) {
		__atomic_compare_exchange_n(h, &hold, 0, false,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		return false;
	}
	*until = hold;
	return true;
}

/**
 * struct switch_tag - a frame's VLAN as the switch sees it
 * @tci:	802.1Q tag control: priority bits and the VLAN of its
 *		domain (host order)
 * @type:	the ethertype behind the tag, or the frame's own if it came
 *		untagged (network order)
 * @popped:	bytes 12-17 of the frame are a tag the switch took: no
 *		destination gets them as they lie
 *
 * Filled in for frames from a trunk (switch_trunk_in()); for a frame
 * from an access port, made at the destination (switch_out()).
 */
struct switch_tag {
	uint16_t tci;
	uint16_t type;
	bool popped;
};

#define SWITCH_TCI_VID	0x0fff

/**
 * struct switch_view - a frame with its Ethernet header made by the
 *			switch: the tag pushed or popped
 * @hdr:	MACs, [802.1Q tag,] ethertype, all from the switch's copies
 * @pkt:	the view: @hdr, then the frame's bytes past its header
 *
 * @hdr first: with the pkt's fields and first iovecs it fills two cache
 * lines, which is what making a view writes.
 */
struct switch_view {
	uint8_t hdr[ETH_HLEN + ETH_VLAN_HLEN];
	struct pkt pkt;
};

/**
 * struct switch_views - one burst's views, each made at most once
 * @view:	[1]: tagged, [0]: untagged, per frame of the burst
 * @built:	bit i of [t]: @view[t][i] is made for this burst
 * @bad:	bit i of [t]: it could not be (each destination that
 *		would have had it counts a drop)
 */
struct switch_views {
	struct switch_view view[2][SWITCH_BURST];
	uint32_t built[2];
	uint32_t bad[2];
};

_Static_assert(SWITCH_BURST <= 32, "a burst's views are a uint32_t mask");

/* Per thread: a view lives for one switch_forward(), which never nests. */
static __thread struct switch_views switch_tls_views;

/**
 * switch_trunk_in() - the domain of a frame from a trunk, its tag taken
 * @l2:		the trunk
 * @pkt:	the frame
 * @t:		out: its tag
 *
 * A tag (read once from the frame into @t; what follows looks at that
 * copy only) names the VLAN, which must be on the trunk's list.  An
 * untagged frame and a priority tag (VLAN 0) belong to the native VLAN;
 * without one they are dropped.  A service tag (802.1ad), tag 4095 and a
 * tag cut short are dropped too.
 *
 * Return: the domain index, or -1 to drop (drops.vlan)
 */
static int switch_trunk_in(const struct switch_l2 *l2, const struct pkt *pkt,
			   struct switch_tag *t)
{
	uint8_t b[ETH_VLAN_HLEN];
	unsigned int vid, pcp = 0;

	t->popped = false;
	t->type = pkt->eth.h_proto;
	if (pkt->eth.h_proto == htons(ETH_P_8021Q)) {
		if (pkt->len < ETH_HLEN + ETH_VLAN_HLEN)
			return -1;
		if (iov_peek(pkt->iov, pkt->iovcnt, ETH_HLEN, b,
			     sizeof(b)) != sizeof(b))
			return -1;
		t->popped = true;
		memcpy(&t->type, b + 2, sizeof(t->type));
		pcp = (unsigned int)(b[0] & 0xf0) << 8;
		vid = ((unsigned int)b[0] << 8 | b[1]) & SWITCH_TCI_VID;
		if (!vid)
			vid = l2->native;	/* priority-tagged */
		else if (!port_vlan_has(l2->vlans, vid))
			return -1;
	} else if (pkt->eth.h_proto == htons(ETH_P_8021AD)) {
		return -1;
	} else {
		vid = l2->native;
	}
	if (!vid)
		return -1;
	t->tci = (uint16_t)(pcp | vid);
	/* The trunk holds a reference on each of its VLANs' domains. */
	return __atomic_load_n(&sw.vid_dom[vid], __ATOMIC_RELAXED);
}

/**
 * switch_view() - a frame with a header of the switch's making
 * @v:		where to make it
 * @pkt:	the frame
 * @t:		its tag
 * @tag:	push @t's tag (else leave the frame untagged)
 *
 * The header is the switch's own copy (MACs from @pkt->eth, the tag and
 * ethertype from @t), never re-read from the source's memory: a guest
 * that rewrites its header behind the switch's back cannot name another
 * VLAN on a trunk.  The rest of the frame stays where it is, referenced,
 * for the destination's one copy.  The offload offsets move with the
 * header: csum_start always, hdr_len when it covers the header.
 *
 * Return: the view, or NULL if the frame cannot take it (too many
 *	   segments, offsets inside the header: drops.offload)
 */
static struct pkt *switch_view(struct switch_view *v, const struct pkt *pkt,
			       const struct switch_tag *t, bool tag)
{
	size_t skip = t->popped ? ETH_HLEN + ETH_VLAN_HLEN : ETH_HLEN;
	size_t hlen = tag ? ETH_HLEN + ETH_VLAN_HLEN : ETH_HLEN;
	struct pkt *o = &v->pkt;
	uint8_t *h = v->hdr;
	int rc;

	if (pkt->len < skip)
		return NULL;
	if (likely(pkt->iovcnt < PKT_IOV_MAX && pkt->iov[0].iov_len > skip)) {
		/* The usual frame: its first segment holds the header. */
		o->iov[1].iov_base = (uint8_t *)pkt->iov[0].iov_base + skip;
		o->iov[1].iov_len = pkt->iov[0].iov_len - skip;
		memcpy(o->iov + 2, pkt->iov + 1,
		       (pkt->iovcnt - 1) * sizeof(pkt->iov[0]));
		rc = (int)pkt->iovcnt;
	} else {
		rc = iov_slice(pkt->iov, pkt->iovcnt, skip, pkt->len - skip,
			       o->iov + 1, PKT_IOV_MAX - 1);
		if (rc < 0)
			return NULL;
	}
	memcpy(h, pkt->eth.h_dest, 2 * ETH_ALEN);
	if (tag) {
		h[12] = ETH_P_8021Q >> 8;
		h[13] = ETH_P_8021Q & 0xff;
		h[14] = (uint8_t)(t->tci >> 8);
		h[15] = (uint8_t)t->tci;
		memcpy(h + 16, &t->type, sizeof(t->type));
	} else {
		memcpy(h + 12, &t->type, sizeof(t->type));
	}
	memcpy(&o->eth, h, ETH_HLEN);
	o->iov[0].iov_base = h;
	o->iov[0].iov_len = hlen;
	o->iovcnt = (uint32_t)rc + 1;
	o->len = (uint32_t)(pkt->len - skip + hlen);
	o->vnet = pkt->vnet;
	o->src_feat = pkt->src_feat;
	if (o->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		size_t cs = le16toh(o->vnet.csum_start);

		if (cs < skip || cs - skip + hlen > UINT16_MAX)
			return NULL;
		o->vnet.csum_start = htole16((uint16_t)(cs - skip + hlen));
	}
	if (o->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE) {
		size_t hl = le16toh(o->vnet.hdr_len);

		if (hl >= skip && hl - skip + hlen <= UINT16_MAX)
			o->vnet.hdr_len = htole16((uint16_t)(hl - skip + hlen));
	}
	return o;
}

/**
 * switch_out() - a burst's frames as destination @dl2 gets them
 * @dl2:	the destination
 * @src_l2:	the source
 * @pkts:	the source's burst
 * @idx:	the frames for the destination, by index into @pkts
 * @n:		how many
 * @tags:	their tags, if the source is a trunk
 * @views:	this burst's views
 * @xp:		out: the frames to hand to the destination
 *
 * Between access ports, the frames as they are.  A trunk gets every
 * frame through a view: tagged with its VLAN, except the native VLAN's,
 * which leave untagged unless they carry a tag of their own (then they
 * are tagged too, so that no frame of the native VLAN is read as
 * another's).  An access port gets a trunk's frames with the tag popped.
 *
 * Return: frames in @xp; the rest are counted on @bad
 */
static unsigned int switch_out(const struct switch_l2 *dl2,
			       const struct switch_l2 *src_l2,
			       struct pkt *const *pkts, const uint8_t *idx,
			       unsigned int n, const struct switch_tag *tags,
			       struct switch_views *views, struct pkt **xp)
{
	unsigned int k, m = 0;

	if (likely(!dl2->trunk && !src_l2->trunk)) {
		for (k = 0; k < n; k++)
			xp[k] = pkts[idx[k]];
		return n;
	}
	for (k = 0; k < n; k++) {
		unsigned int i = idx[k];
		const struct pkt *pkt = pkts[i];
		struct switch_tag t;
		unsigned int tag;

		if (src_l2->trunk) {
			t = tags[i];
		} else {
			t.tci = sw.doms[src_l2->dom].vid;
			t.type = pkt->eth.h_proto;
			t.popped = false;
		}
		if (!dl2->trunk && !t.popped) {
			xp[m++] = pkts[i];
			continue;
		}
		tag = dl2->trunk &&
		      ((t.tci & SWITCH_TCI_VID) != dl2->native ||
		       t.type == htons(ETH_P_8021Q) ||
		       t.type == htons(ETH_P_8021AD));
		if (unlikely(views->bad[tag] & 1U << i))
			continue;
		if (!(views->built[tag] & 1U << i)) {
			if (!switch_view(&views->view[tag][i], pkt, &t, tag)) {
				views->bad[tag] |= 1U << i;
				continue;
			}
			views->built[tag] |= 1U << i;
		}
		xp[m++] = &views->view[tag][i].pkt;
	}
	return m;
}

/**
 * struct switch_dom_acc - one domain's share of a burst, counted once
 * @dom:	domain index
 * @fwd:	frames forwarded
 * @bytes:	their bytes
 * @flooded:	of them, flooded
 */
struct switch_dom_acc {
	uint8_t dom;
	unsigned int fwd;
	uint64_t bytes;
	unsigned int flooded;
};

static void switch_dom_flush(struct switch_dom_acc *a)
{
	struct switch_dom_ctr *dc = &sw.dom_ctr[stats_slot][a->dom];

	if (!a->fwd)
		return;
	stats_add(&dc->frames, a->fwd);
	stats_add(&dc->bytes, a->bytes);
	if (a->flooded)
		stats_add(&dc->flooded, a->flooded);
	a->fwd = a->flooded = 0;
	a->bytes = 0;
}

/**
 * switch_flood_set() - who a flood from @sidx in domain @dom reaches
 * @l2:		the source
 * @sidx:	its index
 * @dom:	the frame's domain
 * @iso:	the isolated ports
 * Return: the domain's members, not the source, and no isolated port if
 *	   the source is one
 */
static inline uint64_t switch_flood_set(const struct switch_l2 *l2,
					unsigned int sidx, uint8_t dom,
					uint64_t iso)
{
	uint64_t flood = __atomic_load_n(&sw.doms[dom].members,
					 __ATOMIC_RELAXED) & ~(1ULL << sidx);

	return unlikely(l2->isolated) ? flood & ~iso : flood;
}

/**
 * switch_forward() - forward a burst received on @src
 * @src:	port the frames came from
 * @pkts:	frames (at most SWITCH_BURST are looked at per call; callers
 *		never pass more)
 * @n:		number of frames
 *
 * Context: the worker that polled @src, with @src's source queue locked,
 * so the frames' buffers stay valid until this returns.  Destinations'
 * xmit ops take their own queue locks: a source queue lock is always
 * taken before a destination (RX) lock, never the other way round.
 */
void switch_forward(struct port *src, struct pkt *const *pkts,
		    unsigned int n)
{
	uint8_t out[SWITCH_PORTS_MAX][SWITCH_BURST];
	struct switch_tag tags[SWITCH_BURST];
	struct pkt *xp[SWITCH_BURST];
	unsigned int cnt[SWITCH_PORTS_MAX];
	unsigned int nports = switch_port_count();
	uint16_t sidx = (uint16_t)src->idx;
	struct switch_l2 *l2 = &sw.l2[sidx];
	struct switch_views *views = &switch_tls_views;
	const uint8_t *last_src = NULL, *last_dst = NULL;
	uint16_t last_to = FDB_NO_PORT;
	uint32_t now = switch_now_s();
	unsigned int i, d, tokens = 0, spoofed = 0, storm = 0;
	unsigned int vlan = 0, isolated = 0, offload = 0;
	struct switch_dom_acc acc = { .dom = l2->dom };
	uint64_t iso = __atomic_load_n(&sw.isolated, __ATOMIC_RELAXED);
	uint64_t flood;
	bool src_ok = true, took = false;

	if (n > SWITCH_BURST)
		n = SWITCH_BURST;
	flood = switch_flood_set(l2, sidx, acc.dom, iso);
	if (likely(!l2->isolated))
		iso = 0;
	memset(cnt, 0, sizeof(cnt[0]) * nports);
	views->built[0] = views->built[1] = 0;
	views->bad[0] = views->bad[1] = 0;
	capture_burst(sidx, CAPTURE_RX, pkts, n);

	for (i = 0; i < n; i++) {
		struct pkt *pkt = pkts[i];
		const uint8_t *dst = pkt->eth.h_dest;
		const uint8_t *smac = pkt->eth.h_source;
		uint64_t m;
		uint16_t to;

		if (unlikely(l2->trunk)) {
			int fd = switch_trunk_in(l2, pkt, &tags[i]);

			if (fd < 0) {
				vlan++;
				continue;
			}
			/* A new domain: its own table, members, counters. */
			if (fd != acc.dom) {
				switch_dom_flush(&acc);
				acc.dom = (uint8_t)fd;
				flood = switch_flood_set(l2, sidx, acc.dom,
							 iso);
				last_src = last_dst = NULL;
			}
		} else if (unlikely(!l2->tagged) &&
			   unlikely(eth_is_tagged(&pkt->eth))) {
			vlan++;
			continue;
		}
		/* A burst is mostly one flow: the source is checked and
		 * the table consulted once per new source and destination.
		 */
		if (!last_src || memcmp(smac, last_src, ETH_ALEN)) {
			src_ok = switch_src_ok(src, l2, acc.dom, smac, now);
			last_src = smac;
		}
		if (unlikely(!src_ok)) {
			spoofed++;
			continue;
		}

		if (!eth_is_group(dst)) {
			if (!last_dst || memcmp(dst, last_dst, ETH_ALEN)) {
				last_to = fdb_lookup(&sw.fdb, acc.dom, dst);
				last_dst = dst;
			}
			to = last_to;
			if (to == sidx)
				continue;	/* hairpin: filtered */
			if (to < nports) {
				struct port *p = &sw.ports[to];

				if (unlikely(iso & 1ULL << to)) {
					isolated++;
					continue;
				}
				acc.fwd++;
				acc.bytes += pkt->len;
				if (switch_port_is_up(p))
					out[to][cnt[to]++] = (uint8_t)i;
				else
					stats_add(&port_ctr(p)->drops[STATS_DROP_PORT_DOWN], 1);
				continue;
			}
		}
		/* Group address or unknown unicast: flood, within the
		 * source's budget.  The first flooded frame takes tokens
		 * for the whole rest of the burst; one it could not get is
		 * not there to get.
		 */
		if (l2->storm.on) {
			if (!tokens && !took) {
				tokens = storm_admit(&l2->storm, n - i,
						     switch_clock_ns);
				took = true;
			}
			if (!tokens) {
				storm++;
				continue;
			}
			tokens--;
		}
		acc.fwd++;
		acc.flooded++;
		acc.bytes += pkt->len;
		for (m = flood; m; m &= m - 1) {
			d = (unsigned int)__builtin_ctzll(m);
			if (d >= nports || !switch_port_is_up(&sw.ports[d]))
				continue;
			out[d][cnt[d]++] = (uint8_t)i;
		}
	}

	for (d = 0; d < nports; d++) {
		struct port *p = &sw.ports[d];
		unsigned int k;

		if (!cnt[d])
			continue;
		k = switch_out(&sw.l2[d], l2, pkts, out[d], cnt[d], tags, views,
			       xp);
		offload += cnt[d] - k;
		if (unlikely(rate_on(&sw.l2[d].rate[RATE_TX])))
			k = switch_rate_admit(p, src, xp, k);
		if (!k)
			continue;
		capture_burst(d, CAPTURE_TX, xp, k);
		p->ops->xmit(p, xp, k);
	}
	if (tokens)
		storm_give(&l2->storm, tokens);
	if (unlikely(spoofed))
		stats_add(&port_ctr(src)->drops[STATS_DROP_SPOOFED], spoofed);
	if (unlikely(storm))
		stats_add(&port_ctr(src)->drops[STATS_DROP_STORM], storm);
	if (unlikely(vlan))
		stats_add(&port_ctr(src)->drops[STATS_DROP_VLAN], vlan);
	if (unlikely(isolated))
		stats_add(&port_ctr(src)->drops[STATS_DROP_ISOLATED], isolated);
	if (unlikely(offload))
		stats_add(&port_ctr(src)->drops[STATS_DROP_OFFLOAD], offload);
	switch_dom_flush(&acc);
}

/**
 * enum switch_lend_stop - why switch_lend_some() returned
 * @SWITCH_LEND_BUDGET:	the budget is used up; the reader may have more
 * @SWITCH_LEND_DRY:	the reader had no more frames (or failed)
 * @SWITCH_LEND_FORWARD: a frame could not stay where it was read: it is
 *			in the reader's @pkt (bounce buffer), for
 *			switch_forward() like any frame
 * @SWITCH_LEND_BOUNCE:	the destination lends nothing now: the reader reads
 *			into its own buffers, and the frames are forwarded
 */
enum switch_lend_stop {
	SWITCH_LEND_BUDGET,
	SWITCH_LEND_DRY,
	SWITCH_LEND_FORWARD,
	SWITCH_LEND_BOUNCE,
};

/**
 * switch_lend_steer() - may a frame read into @dst's buffers stay there
 * @dst:	the port that lent them
 * @l2:		the reading port's isolation settings
 * @pkt:	the frame (our copy of its Ethernet header)
 *
 * What switch_forward() would decide, on vhostd's own copy of the header:
 * a group address floods, and the kernel's steering is a snapshot of the
 * MAC table, which may have moved or aged the entry since.  The lookup is
 * in the reader's domain: a MAC of another domain is not @dst's here.  A
 * frame from a port locked to a MAC that is not its lock MAC goes to
 * switch_forward() too, which drops it as spoofed; so do a tagged frame
 * the reader may not send and one between two isolated ports.
 *
 * Return: -1 if it may stay, else STATS_DIRECT_STEER
 */
static inline int switch_lend_steer(const struct port *dst,
				    const struct switch_l2 *l2,
				    const struct pkt *pkt)
{
	const uint8_t *d = pkt->eth.h_dest;

	if (eth_is_group(d) || fdb_lookup(&sw.fdb, l2->dom, d) != dst->idx)
		return STATS_DIRECT_STEER;
	if (unlikely(l2->locked) &&
	    memcmp(pkt->eth.h_source, l2->mac, ETH_ALEN))
		return STATS_DIRECT_STEER;
	if (unlikely(!l2->tagged) && unlikely(eth_is_tagged(&pkt->eth)))
		return STATS_DIRECT_STEER;
	if (unlikely(l2->isolated) && sw.l2[dst->idx].isolated)
		return STATS_DIRECT_STEER;
	/* A tag to push or pop is switch_forward()'s (switch_lenders()). */
	if (unlikely(l2->trunk) || unlikely(sw.l2[dst->idx].trunk))
		return STATS_DIRECT_STEER;
	return -1;
}

/**
 * switch_lend_some() - read frames from @rd straight into @dst's buffers
 * @src:	the reading port
 * @dst:	the lending port (lend_* ops)
 * @rd:		the reader
 * @budget:	most frames to read
 * @done:	out: frames read (delivered, dropped or the one to forward)
 * @why:	out: on FORWARD and BOUNCE, the enum stats_direct reason
 *
 * One lend_begin ... lend_end: @dst's queue lock is held throughout, no
 * other lock, and released before a fallback frame is forwarded.  Each
 * frame: reserve, one read into [our virtio-net header][our Ethernet
 * header][lent space], then the steering check here, then @dst's own
 * (lend_commit); a frame that may stay has its source MAC learned on
 * @src, as switch_forward() would (without it the MAC would age out
 * while all its frames take this path).
 *
 * Return: why it stopped
 */
static enum switch_lend_stop switch_lend_some(struct port *src,
					      struct port *dst,
					      struct port_reader *rd,
					      unsigned int budget,
					      unsigned int *done, int *why)
{
	const size_t hlen = PORT_LEND_VNET_LEN + ETH_HLEN;
	const struct switch_l2 *l2 = &sw.l2[src->idx];
	struct port_lend *l = &rd->lend;
	struct pkt *pkt = &rd->pkt;
	uint32_t fm = __atomic_load_n(&rd->frame_max, __ATOMIC_RELAXED);
	size_t cap = fm > ETH_HLEN ? fm - ETH_HLEN : 0;
	enum switch_lend_stop stop = SWITCH_LEND_BUDGET;
	unsigned int runts = 0, big = 0, ioerr = 0;
	uint32_t now = switch_now_s();
	uint8_t last[ETH_ALEN];
	bool have_last = false;
	bool capt = capture_any(src->idx) || capture_any(dst->idx);

	*done = 0;
	*why = -1;
	if (dst->ops->lend_begin(dst, l)) {
		*why = l->why;
		return SWITCH_LEND_BOUNCE;
	}
	l->vec[0].iov_base = &rd->vnet;
	l->vec[0].iov_len = PORT_LEND_VNET_LEN;
	l->vec[1].iov_base = &rd->eth;
	l->vec[1].iov_len = ETH_HLEN;

	while (*done < budget) {
		const uint8_t *smac = rd->eth.h_source;
		ssize_t r;
		int rc;

		if (dst->ops->lend_reserve(dst, l, cap)) {
			/* Leave the frame to the reader's own path, which
			 * drops or delivers it as before: reading nothing
			 * here would leave it readable and the worker
			 * spinning on it.
			 */
			*why = l->why;
			stop = SWITCH_LEND_BOUNCE;
			break;
		}
		r = rd->read(rd, l->vec, (int)(PORT_LEND_HDRS + l->niov));
		if (r <= 0) {
			if (r < 0 && r != -EAGAIN)
				ioerr++;
			stop = SWITCH_LEND_DRY;
			break;
		}
		(*done)++;
		/* tun reports a frame's full length even when it did not
		 * fit (the rest is lost): never trust more than we gave.
		 * The space stays reserved; nothing was committed.
		 */
		if ((size_t)r > hlen + l->cap) {
			big++;
			continue;
		}
		if ((size_t)r < hlen) {
			runts++;
			continue;
		}

		pkt->vnet = rd->vnet;
		pkt->vnet.num_buffers = 0;
		pkt->src_feat = rd->src_feat;
		pkt->eth = rd->eth;
		pkt->len = (uint32_t)((size_t)r - PORT_LEND_VNET_LEN);
		/* Cannot fail: the lender kept the vector within it. */
		rc = iov_slice(&l->vec[1], l->niov + 1, 0, pkt->len, pkt->iov,
			       PKT_IOV_MAX);
		pkt->iovcnt = rc < 0 ? 0 : (unsigned int)rc;

		*why = switch_lend_steer(dst, l2, pkt);
		if (*why < 0 && dst->ops->lend_commit(dst, l, pkt))
			*why = l->why;
		if (*why >= 0) {
			/* Out of the lent space into the reader's bounce
			 * buffer: everything later looks at that copy.
			 */
			iov_to_buf(pkt->iov, pkt->iovcnt, 0, rd->bounce,
				   pkt->len);
			pkt->iov[0].iov_base = rd->bounce;
			pkt->iov[0].iov_len = pkt->len;
			pkt->iovcnt = 1;
			stop = SWITCH_LEND_FORWARD;
			break;
		}
		if (unlikely(capt)) {
			capture_burst(src->idx, CAPTURE_RX, &pkt, 1);
			capture_burst(dst->idx, CAPTURE_TX, &pkt, 1);
		}
		if (l2->locked || (have_last && !memcmp(smac, last, ETH_ALEN)))
			continue;
		memcpy(last, smac, ETH_ALEN);
		have_last = true;
		if (!eth_is_group(smac) && !eth_is_zero(smac))
			switch_learn(src, smac, now);
	}
	dst->ops->lend_end(dst, l);

	if (stop == SWITCH_LEND_FORWARD) {
		stats_add(&port_ctr(src)->direct_fallbacks[*why], 1);
		stats_add(&port_ctr(dst)->direct_fallbacks[*why], 1);
		stats_add(&port_ctr(src)->rx_packets, 1);
		stats_add(&port_ctr(src)->rx_bytes, pkt->len);
	}
	if (l->sent) {
		struct switch_dom_ctr *dc = &sw.dom_ctr[stats_slot][l2->dom];

		stats_add(&port_ctr(src)->rx_packets, l->sent);
		stats_add(&port_ctr(src)->rx_bytes, l->bytes);
		stats_add(&port_ctr(src)->direct_packets, l->sent);
		stats_add(&dc->frames, l->sent);
		stats_add(&dc->bytes, l->bytes);
	}
	if (runts)
		stats_add(&port_ctr(src)->drops[STATS_DROP_RUNT], runts);
	if (big)
		stats_add(&port_ctr(src)->drops[STATS_DROP_TOO_BIG], big);
	if (ioerr)
		stats_add(&port_ctr(src)->drops[STATS_DROP_IO_ERROR], ioerr);
	return stop;
}

/**
 * switch_lend_rx() - a reader's turn into another port's buffers
 * @src:	the reading port
 * @rd:		its queue's reader, steered to port @rd->dst
 * @pkts:	out: frames for switch_forward()
 * @max:	room in @pkts
 * @turn:	the turn, as for rx_burst
 *
 * Reads straight into @rd->dst's lent buffers until the turn's budget is
 * spent, the reader runs dry, or a frame cannot stay (returned in @pkts,
 * from the reader's bounce buffer).  When @rd->dst lends nothing now
 * (gone, down, no buffers) the reader's own burst runs instead, and its
 * frames are counted as fallbacks on both ports.  struct port_host's
 * lend_rx.
 *
 * Return: frames in @pkts
 * Context: the worker that owns @rd's queue
 */
unsigned int switch_lend_rx(struct port *src, struct port_reader *rd,
			    struct pkt **pkts, unsigned int max,
			    struct port_turn *turn)
{
	struct port *dst = switch_port(rd->dst);

	while (turn->done < turn->budget) {
		enum switch_lend_stop stop = SWITCH_LEND_BOUNCE;
		int why = STATS_DIRECT_DOWN;
		unsigned int n = 0;

		if (unlikely(dst && rate_on(&sw.l2[dst->idx].rate[RATE_TX])))
			why = STATS_DIRECT_RATE;
		else if (dst && dst->ops->lend_begin)
			stop = switch_lend_some(src, dst, rd,
						turn->budget - turn->done, &n,
						&why);
		turn->done += n;
		switch (stop) {
		case SWITCH_LEND_BUDGET:
			break;
		case SWITCH_LEND_DRY:
			turn->dry = true;
			return 0;
		case SWITCH_LEND_FORWARD:
			pkts[0] = &rd->pkt;
			return 1;
		case SWITCH_LEND_BOUNCE:
			/* The old path, for as many frames as fit. */
			n = rd->burst(rd, pkts, max, turn);
			if (n) {
				stats_add(&port_ctr(src)->direct_fallbacks[why],
					  n);
				if (dst)
					stats_add(&port_ctr(dst)->direct_fallbacks[why],
						  n);
			}
			return n;
		}
	}
	return 0;
}

/**
 * switch_dom_vid() - the VLAN of domain index @dom
 * @dom:	domain index (struct fdb_entry @dom)
 * Return: 1-4094, or 0 if no domain has the index
 */
unsigned int switch_dom_vid(unsigned int dom)
{
	return dom < FDB_DOMS ? sw.doms[dom].vid : 0;
}

/**
 * switch_vid_dom() - the domain index of VLAN @vid
 * @vid:	VLAN
 * Return: the index, or -ENOENT if no port is in that VLAN
 * Context: control thread
 */
int switch_vid_dom(unsigned int vid)
{
	if (vid > SWITCH_VID_MAX || sw.vid_dom[vid] == SWITCH_DOM_NONE)
		return -ENOENT;
	return sw.vid_dom[vid];
}

/**
 * switch_dom_stats() - one domain's counters, summed over the threads
 * @dom:	domain index
 * @frames:	out: frames forwarded in it
 * @bytes:	out: their bytes
 * @flooded:	out: of them, flooded
 */
void switch_dom_stats(unsigned int dom, uint64_t *frames, uint64_t *bytes,
		      uint64_t *flooded)
{
	unsigned int k;

	*frames = *bytes = *flooded = 0;
	if (dom >= FDB_DOMS)
		return;
	for (k = 0; k < STATS_SLOTS; k++) {
		const struct switch_dom_ctr *c = &sw.dom_ctr[k][dom];

		*frames += __atomic_load_n(&c->frames, __ATOMIC_RELAXED);
		*bytes += __atomic_load_n(&c->bytes, __ATOMIC_RELAXED);
		*flooded += __atomic_load_n(&c->flooded, __ATOMIC_RELAXED);
	}
}

/**
 * switch_dom_members() - the ports of domain @dom
 * @dom:	domain index
 * Return: bit i set for port i
 */
uint64_t switch_dom_members(unsigned int dom)
{
	return dom < FDB_DOMS ?
	       __atomic_load_n(&sw.doms[dom].members, __ATOMIC_RELAXED) : 0;
}

/**
 * switch_port_in() - the domain of VLAN @vid, if port @idx is in it
 * @idx:	port index
 * @vid:	VLAN
 * Return: the domain index, or -ENOENT
 */
int switch_port_in(unsigned int idx, unsigned int vid)
{
	int dom = switch_vid_dom(vid);

	if (dom < 0 || idx >= SWITCH_PORTS_MAX ||
	    !(switch_dom_members((unsigned int)dom) & 1ULL << idx))
		return -ENOENT;
	return dom;
}

/**
 * switch_static_add() - a static MAC table entry (vhostctl fdb add)
 * @vid:	the VLAN of its domain
 * @mac:	unicast station address
 * @idx:	port, in use and in that domain
 *
 * Return: 0, -ENOENT (no port in VLAN @vid), -EXDEV (@idx is not in it),
 *	   -EEXIST (static there already, on another port) or -ENOSPC
 * Context: control thread
 */
int switch_static_add(unsigned int vid, const uint8_t *mac, unsigned int idx)
{
	int dom = switch_vid_dom(vid);

	if (dom < 0)
		return dom;
	if (!switch_port(idx) || switch_port_in(idx, vid) < 0)
		return -EXDEV;
	return fdb_static_add(&sw.fdb, (uint8_t)dom, mac, (uint16_t)idx);
}

/**
 * switch_static_del() - undo switch_static_add()
 * @vid:	VLAN
 * @mac:	address
 * @idx:	port
 *
 * A port's MAC lock (mac=) is not vhostctl's to remove: -EPERM.
 *
 * Return: 0, -ENOENT or -EPERM
 * Context: control thread
 */
int switch_static_del(unsigned int vid, const uint8_t *mac, unsigned int idx)
{
	int dom = switch_vid_dom(vid);

	if (dom < 0 || !switch_port(idx))
		return -ENOENT;
	if (sw.l2[idx].locked && !memcmp(sw.l2[idx].mac, mac, ETH_ALEN))
		return -EPERM;
	return fdb_static_del(&sw.fdb, (uint8_t)dom, mac, (uint16_t)idx);
}

/**
 * switch_reaches() - may frames from @src be delivered to port @dst
 * @src:	source port
 * @dst:	destination index
 *
 * Return: true if @dst is another port of one of @src's domains, and not
 *	   both are isolated
 */
bool switch_reaches(const struct port *src, unsigned int dst)
{
	const struct switch_l2 *l2 = &sw.l2[src->idx];
	unsigned int w;

	if (dst >= SWITCH_PORTS_MAX || dst == src->idx ||
	    (l2->isolated && sw.l2[dst].isolated))
		return false;
	for (w = 0; w < PORT_VLAN_WORDS; w++)
		if (l2->vlans[w] & sw.l2[dst].vlans[w])
			return true;
	return false;
}

/**
 * switch_lenders() - the ports that can lend RX buffers (port_host)
 * @src:	the asking reader's port: only ports its frames may reach
 *		(its domain, isolation) are listed
 * @src_feat:	offloads of the asking reader, for each port's lend_ok
 * @out:	filled in, index order
 * @max:	room in @out
 *
 * Return: entries in @out
 * Context: control thread
 */
unsigned int switch_lenders(const struct port *src, uint64_t src_feat,
			    struct port_lender *out, unsigned int max)
{
	unsigned int i, n = 0, np = switch_port_count();

	/* A trunk's tags are pushed and popped in switch_forward()'s views:
	 * a frame landed straight in a guest's buffers as the reader read it
	 * would keep or lack its tag.
	 */
	if (sw.l2[src->idx].trunk)
		return 0;
	for (i = 0; i < np && n < max; i++) {
		struct port *p = switch_port(i);

		if (!p || !p->ops->lend_begin || !switch_reaches(src, i) ||
		    sw.l2[i].trunk)
			continue;
		out[n].idx = i;
		out[n].ok = p->ops->lend_ok && p->ops->lend_ok(p, src_feat);
		out[n].pairs = 1;
		out[n].on = 1;
		if (p->ops->lend_flows)
			out[n].pairs = p->ops->lend_flows(p, NULL, &out[n].on);
		out[n].name = p->name;
		n++;
	}
	return n;
}

/**
 * switch_lend_flows() - a lender's pairs and flow table (port_host)
 * @idx:	the port's index
 * @table:	PORT_FLOWS bytes, or NULL
 * @on:		out: its running pairs
 *
 * Return: its pairs, 0 if it is gone or keeps no table
 * Context: control thread
 */
unsigned int switch_lend_flows(unsigned int idx, uint8_t *table,
			       uint32_t *on)
{
	struct port *p = switch_port(idx);

	*on = 0;
	if (!p || !p->ops->lend_flows)
		return 0;
	return p->ops->lend_flows(p, table, on);
}

/**
 * switch_mac_walk() - every MAC in the table, with its port (port_host)
 * @fn:		called with @arg, the MAC and its port index
 * @arg:	its argument
 *
 * Reads each slot the way ctl's "fdb" does (atomic loads): a MAC moving
 * meanwhile may be reported twice, at most FDB_SIZE are.
 * Context: control thread
 */
void switch_mac_walk(void (*fn)(void *arg, const uint8_t *mac,
				unsigned int port),
		     void *arg)
{
	struct fdb_entry e;
	unsigned int i;

	for (i = 0; i < FDB_SIZE; i++)
		if (fdb_entry_get(&sw.fdb, i, &e))
			fn(arg, e.mac, e.port);
}

/**
 * switch_timer() - once-a-second housekeeping
 * Context: control thread
 */
void switch_timer(void)
{
	unsigned int i, n = switch_port_count();
	uint32_t now = now_s();

	__atomic_store_n(&switch_clock_s, now, __ATOMIC_RELAXED);
	fdb_age(&sw.fdb, now);
	for (i = 0; i < n; i++) {
		struct port *p = switch_port(i);

		if (!p)
			continue;
		if (p->ops->timer)
			p->ops->timer(p);
		log_src_flush(&p->log);
	}
	log_src_flush(&log_src_global);
}

/**
 * switch_fdb() - the MAC table
 * Return: pointer to the switch's FDB
 */
struct fdb *switch_fdb(void)
{
	return &sw.fdb;
}

/**
 * switch_fini() - close every port
 * Context: control thread, after the workers stopped
 */
void switch_fini(void)
{
	unsigned int i = switch_port_count();

	/* Last first: a tunnel (vxlan via=) comes after its carrier. */
	while (i--)
		switch_port_del(i);
}
