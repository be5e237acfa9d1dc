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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "log.h"
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
 * @locked:	only frames from @mac are accepted (static FDB entry)
 * @rate:	rx= and tx= rate limits (rate.h), indexed by enum rate_dir
 *
 * Written by the control thread before the port is in use; then only
 * @storm and @rate change (atomically, storm.h, rate.h; @rate's settings
 * also by vhostctl set).
 */
struct switch_l2 {
	struct storm storm;
	struct rate rate[RATE_DIRS];
	uint8_t mac[ETH_ALEN];
	bool locked;
};

/**
 * struct switch_ctx - the switch
 * @ports:	port table, indexed by port->idx
 * @nports:	highest slot in use + 1
 * @fdb:	MAC table
 * @l2:		per-port isolation and storm control, indexed like @ports
 * @spec:	the spec each port was made from, indexed like @ports, for
 *		ctl's checks of a port added at run time (portctl.c);
 *		control thread only
 */
static struct switch_ctx {
	struct port ports[SWITCH_PORTS_MAX];
	unsigned int nports;
	struct fdb fdb;
	struct switch_l2 l2[SWITCH_PORTS_MAX];
	struct port_spec spec[SWITCH_PORTS_MAX];
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
	for (i = 0; i < SWITCH_PORTS_MAX; i++)
		sw.ports[i].idx = i;
	sw.nports = 0;
	__atomic_store_n(&switch_clock_s, now_s(), __ATOMIC_RELAXED);
	fdb_init(&sw.fdb, age_s);
}

/**
 * switch_l2_init() - a new port's isolation settings and storm budget
 * @idx:	port index
 * @spec:	its spec (max-macs, mac, flood-rate, flood-burst)
 *
 * Return: 0 or -errno from fdb_static_add()
 * Context: control thread, before the port is in use
 */
static int switch_l2_init(unsigned int idx, const struct port_spec *spec)
{
	struct switch_l2 *l2 = &sw.l2[idx];

	storm_init(&l2->storm, spec->flood_rate, spec->flood_burst,
		   switch_clock_ns());
	fdb_flush_port(&sw.fdb, (uint16_t)idx);
	fdb_set_max(&sw.fdb, (uint16_t)idx, spec->max_macs);
	rate_set(&l2->rate[RATE_RX], spec->rx_rate, spec->rx_burst, now_ns());
	rate_set(&l2->rate[RATE_TX], spec->tx_rate, spec->tx_burst, now_ns());
	l2->locked = spec->has_mac;
	memcpy(l2->mac, spec->mac, ETH_ALEN);
	if (!l2->locked)
		return 0;
	return fdb_static_add(&sw.fdb, l2->mac, (uint16_t)idx);
}

/**
 * switch_l2_fini() - undo switch_l2_init() (the static entry)
 * @idx:	port index
 * Context: control thread
 */
static void switch_l2_fini(unsigned int idx)
{
	struct switch_l2 *l2 = &sw.l2[idx];

	if (l2->locked)
		fdb_static_del(&sw.fdb, l2->mac, (uint16_t)idx);
	l2->locked = false;
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

/**
 * switch_learn() - learn @mac on @src, counting a refusal
 * @src:	port the frame came from
 * @mac:	its unicast, non-zero source MAC
 * @now:	switch_now_s()
 *
 * Context: the worker that polled @src (also switch_lend_rx()).
 */
void switch_learn(struct port *src, const uint8_t *mac, uint32_t now)
{
	static const int8_t why[FDB_LEARN_COUNT] = {
		[FDB_LEARN_OK]		= -1,
		[FDB_LEARN_IGNORED]	= -1,
		[FDB_LEARN_QUOTA]	= STATS_LEARN_QUOTA,
		[FDB_LEARN_LOCKED]	= STATS_LEARN_LOCKED,
		[FDB_LEARN_FULL]	= STATS_LEARN_FULL,
	};
	enum fdb_learn_rc rc = fdb_learn(&sw.fdb, mac, (uint16_t)src->idx,
					 now);

	if (unlikely(why[rc] >= 0))
		stats_add(&port_ctr(src)->learn_refused[why[rc]], 1);
}

/**
 * switch_src_ok() - may a frame from @smac on @src be forwarded; learn it
 * @src:	source port
 * @l2:		its isolation settings
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
				 const struct switch_l2 *l2,
				 const uint8_t *smac, uint32_t now)
{
	if (l2->locked)
		return !memcmp(smac, l2->mac, ETH_ALEN);
	if (!eth_is_group(smac) && !eth_is_zero(smac))
		switch_learn(src, smac, now);
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
 * @pkts:	the burst for it, compacted in place
 * @n:		frames in it
 *
 * Each frame is admitted or dropped on its own (rate.h): a small frame
 * may pass where a big one did not.  Drops are counted on @p as "rate".
 *
 * Return: frames left in @pkts
 */
static unsigned int switch_rate_admit(struct port *p, struct pkt **pkts,
				      unsigned int n)
{
	struct rate *r = &sw.l2[p->idx].rate[RATE_TX];
	uint64_t now = now_ns();
	unsigned int i, k = 0;

	for (i = 0; i < n; i++)
		if (rate_admit(r, now, pkts[i]->len))
			pkts[k++] = pkts[i];
	if (k < n)
		stats_add(&port_ctr(p)->drops[STATS_DROP_RATE], n - k);
	return k;
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
	struct pkt *out[SWITCH_PORTS_MAX][SWITCH_BURST];
	unsigned int cnt[SWITCH_PORTS_MAX];
	unsigned int nports = switch_port_count();
	uint16_t sidx = (uint16_t)src->idx;
	struct switch_l2 *l2 = &sw.l2[sidx];
	const uint8_t *last_src = NULL, *last_dst = NULL;
	uint16_t last_to = FDB_NO_PORT;
	uint32_t now = switch_now_s();
	unsigned int i, d, tokens = 0, spoofed = 0, storm = 0;
	bool src_ok = true, took = false;

	if (n > SWITCH_BURST)
		n = SWITCH_BURST;
	memset(cnt, 0, sizeof(cnt[0]) * nports);
	capture_burst(sidx, CAPTURE_RX, pkts, n);

	for (i = 0; i < n; i++) {
		struct pkt *pkt = pkts[i];
		const uint8_t *dst = pkt->eth.h_dest;
		const uint8_t *smac = pkt->eth.h_source;
		uint16_t to;

		/* A burst is mostly one flow: the source is checked and
		 * the table consulted once per new source and destination.
		 */
		if (!last_src || memcmp(smac, last_src, ETH_ALEN)) {
			src_ok = switch_src_ok(src, l2, smac, now);
			last_src = smac;
		}
		if (unlikely(!src_ok)) {
			spoofed++;
			continue;
		}

		if (!eth_is_group(dst)) {
			if (!last_dst || memcmp(dst, last_dst, ETH_ALEN)) {
				last_to = fdb_lookup(&sw.fdb, dst);
				last_dst = dst;
			}
			to = last_to;
			if (to == sidx)
				continue;	/* hairpin: filtered */
			if (to < nports) {
				struct port *p = &sw.ports[to];

				if (switch_port_is_up(p))
					out[to][cnt[to]++] = pkt;
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
		for (d = 0; d < nports; d++) {
			if (d == sidx || !switch_port_is_up(&sw.ports[d]))
				continue;
			out[d][cnt[d]++] = pkt;
		}
	}

	for (d = 0; d < nports; d++) {
		struct port *p = &sw.ports[d];

		if (!cnt[d])
			continue;
		if (unlikely(rate_on(&sw.l2[d].rate[RATE_TX]))) {
			cnt[d] = switch_rate_admit(p, out[d], cnt[d]);
			if (!cnt[d])
				continue;
		}
		capture_burst(d, CAPTURE_TX, out[d], cnt[d]);
		p->ops->xmit(p, out[d], cnt[d]);
	}
	if (tokens)
		storm_give(&l2->storm, tokens);
	if (unlikely(spoofed))
		stats_add(&port_ctr(src)->drops[STATS_DROP_SPOOFED], spoofed);
	if (unlikely(storm))
		stats_add(&port_ctr(src)->drops[STATS_DROP_STORM], storm);
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
 * MAC table, which may have moved or aged the entry since.  A frame from
 * a port locked to a MAC that is not its lock MAC goes to
 * switch_forward() too, which drops it as spoofed.
 *
 * Return: -1 if it may stay, else STATS_DIRECT_STEER
 */
static inline int switch_lend_steer(const struct port *dst,
				    const struct switch_l2 *l2,
				    const struct pkt *pkt)
{
	const uint8_t *d = pkt->eth.h_dest;

	if (eth_is_group(d) || fdb_lookup(&sw.fdb, d) != dst->idx)
		return STATS_DIRECT_STEER;
	if (unlikely(l2->locked) &&
	    memcmp(pkt->eth.h_source, l2->mac, ETH_ALEN))
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
		stats_add(&port_ctr(src)->rx_packets, l->sent);
		stats_add(&port_ctr(src)->rx_bytes, l->bytes);
		stats_add(&port_ctr(src)->direct_packets, l->sent);
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
 * switch_lenders() - the ports that can lend RX buffers (port_host)
 * @src_feat:	offloads of the asking reader, for each port's lend_ok
 * @out:	filled in, index order
 * @max:	room in @out
 *
 * Return: entries in @out
 * Context: control thread
 */
unsigned int switch_lenders(uint64_t src_feat, struct port_lender *out,
			    unsigned int max)
{
	unsigned int i, n = 0, np = switch_port_count();

	for (i = 0; i < np && n < max; i++) {
		struct port *p = switch_port(i);

		if (!p || !p->ops->lend_begin)
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
	unsigned int i, n = switch_port_count();

	for (i = 0; i < n; i++)
		switch_port_del(i);
}
