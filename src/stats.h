/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.h - per-port counters
 *
 * Every thread that counts has its own copy of each port's counters (its
 * slot, stats_slot): workers count into theirs with plain adds, readers
 * (ctl) sum the slots and may see a slightly stale value.  A locked add
 * per counter per burst was not free: besides its own cycles it waits for
 * the stores before it, which on the datapath are the frame just copied
 * into a guest's buffers, lines another core will read.
 */
#ifndef VHOSTD_STATS_H
#define VHOSTD_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Slot 0: the control thread; slot 1 + i: worker i (WORKERS_MAX of them,
 * checked in worker.c).
 */
#define STATS_SLOTS	17

extern __thread unsigned int stats_slot;

/**
 * enum stats_drop - why a frame was dropped
 * @STATS_DROP_NO_BUFFER:	destination had no (or too small) RX buffers
 * @STATS_DROP_BAD_DESC:	unusable descriptor chain from the guest
 * @STATS_DROP_RUNT:		shorter than an Ethernet header
 * @STATS_DROP_TOO_BIG:		larger than we or the destination accept
 * @STATS_DROP_PORT_DOWN:	destination not ready (no guest, ring stopped)
 * @STATS_DROP_IO_ERROR:	read/write on a host fd failed
 * @STATS_DROP_OFFLOAD:		offload metadata we cannot honour
 * @STATS_DROP_SPOOFED:		from a source MAC other than the one the
 *				port is locked to (mac= port key)
 * @STATS_DROP_STORM:		flooded frame (broadcast, multicast, unknown
 *				unicast) beyond the source port's flood-rate
 * @STATS_DROP_RATE:		over the destination's tx-rate= limit
 * @STATS_DROP_VLAN:		carries a VLAN tag the port may not send
 *				(tagged=off), or a reserved VLAN (4095)
 * @STATS_DROP_ISOLATED:	from an isolated port to another isolated
 *				port (isolated=)
 * @STATS_DROP_COUNT:		number of reasons
 */
enum stats_drop {
	STATS_DROP_NO_BUFFER,
	STATS_DROP_BAD_DESC,
	STATS_DROP_RUNT,
	STATS_DROP_TOO_BIG,
	STATS_DROP_PORT_DOWN,
	STATS_DROP_IO_ERROR,
	STATS_DROP_OFFLOAD,
	STATS_DROP_SPOOFED,
	STATS_DROP_STORM,
	STATS_DROP_RATE,
	STATS_DROP_VLAN,
	STATS_DROP_ISOLATED,
	STATS_DROP_COUNT,
};

extern const char *const stats_drop_names[STATS_DROP_COUNT];

/**
 * enum stats_direct - why a frame read from a TAP queue steered to one
 *		       guest did not go straight into that guest's buffers
 *		       (doc/architecture.md, "TAP -> guest")
 * @STATS_DIRECT_NO_MRG:	the guest did not negotiate MRG_RXBUF
 * @STATS_DIRECT_DOWN:		the guest's RX queue was not running
 * @STATS_DIRECT_NO_BUFFER:	the guest had posted too few RX buffers to
 *				hold the largest frame the TAP may hand over
 * @STATS_DIRECT_STEER:		the MAC table no longer sends the frame to
 *				that guest (moved, aged, group address)
 * @STATS_DIRECT_OFFLOAD:	the guest cannot take the frame whole (needs
 *				a software checksum or segmentation, or the
 *				metadata is unusable)
 * @STATS_DIRECT_MTU:		larger than the guest's MTU
 * @STATS_DIRECT_RATE:		the guest has a tx-rate= limit: its frames are
 *				admitted one by one on the forwarding path
 * @STATS_DIRECT_COUNT:		number of reasons
 */
enum stats_direct {
	STATS_DIRECT_NO_MRG,
	STATS_DIRECT_DOWN,
	STATS_DIRECT_NO_BUFFER,
	STATS_DIRECT_STEER,
	STATS_DIRECT_OFFLOAD,
	STATS_DIRECT_MTU,
	STATS_DIRECT_RATE,
	STATS_DIRECT_COUNT,
};

extern const char *const stats_direct_names[STATS_DIRECT_COUNT];

/**
 * enum stats_learn - why a source MAC seen on a port was not learned there
 *		      (the frame itself is still forwarded)
 * @STATS_LEARN_QUOTA:	the port owns its max-macs learned MACs already
 * @STATS_LEARN_LOCKED:	the MAC is locked (mac=) to another port
 * @STATS_LEARN_FULL:	the MAC table has no room for it
 * @STATS_LEARN_COUNT:	number of reasons
 */
enum stats_learn {
	STATS_LEARN_QUOTA,
	STATS_LEARN_LOCKED,
	STATS_LEARN_FULL,
	STATS_LEARN_COUNT,
};

extern const char *const stats_learn_names[STATS_LEARN_COUNT];

/**
 * struct port_stats - counters of one port, seen from the port
 * @rx_packets:	frames received from the port's peer (into the switch)
 * @rx_bytes:	their bytes
 * @tx_packets:	frames delivered to the peer (out of the switch)
 * @tx_bytes:	their bytes
 * @drops:	frames lost, by reason (either direction)
 * @violations:	guest/peer protocol or ring violations
 * @direct_packets: frames read from a TAP straight into a guest's RX
 *		buffers (one copy); counted on the TAP and on the guest
 * @direct_fallbacks: frames of a steered TAP queue that took the bounce
 *		buffer path instead, by reason; counted on both as well
 * @irqs:	interrupts sent to the guest (call eventfd writes)
 * @kicks:	guest kicks that woke the port's poller (the rest of the
 *		time it polled with kicks off)
 * @rx_staged:	RX buffers taken from the guest ahead of a frame, while
 *		the worker was idle (port_vhost_stage()); they are filled by
 *		the next frames, or given back when the ring stops
 * @steer_syncs: TAP ports with eBPF queue steering: syncs of the steering
 *		map with the MAC table (once a second); a MAC learned before
 *		a sync began is steered once it ended.  0 on other ports
 * @learn_refused: source MACs of frames from the port that were not
 *		learned, by reason (counted once per burst and MAC)
 * @peer_refused: vhost-user server: connections closed at accept because
 *		the peer's uid/gid is not on the allow-list (allow-uid=,
 *		allow-gid=)
 * @polls:	worker turns that took frames from the port (a guest's TX
 *		queue): rx_packets / polls is the frames per turn, at most
 *		the worker's budget, fewer for long chains or big frames
 * @connects:	vhost-user: front end connections accepted or made (what
 *		the rate-limited log may no longer show line by line)
 * @type:	a port type's own counters, as its table (port_ops.counters)
 *		names them (vxlan's, for now: every word is some table's)
 * @irqs_held:	vhost-user: TX-completion interrupts the guest wanted that
 *		waited for the queue's tx-irq-us= to pass (each then went
 *		with the later ones of its wait, as one)
 * @spare:	the rest of the last cache line, so that the struct has no
 *		padding the compiler adds unseen: a new counter takes a word
 *		from here (or adds a line) and goes into a table (stats_desc)
 *
 * Which counters a port shows is said by tables, not here: stats_common
 * for every port, the port type's own (port_ops.counters) for the rest.
 * The layout stays one flat struct for every type, so the datapath adds
 * into a field it names, with no lookup.
 */
struct port_stats {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t drops[STATS_DROP_COUNT];
	uint64_t violations;
	uint64_t direct_packets;
	uint64_t direct_fallbacks[STATS_DIRECT_COUNT];
	uint64_t irqs;
	uint64_t kicks;
	uint64_t rx_staged;
	uint64_t steer_syncs;
	uint64_t learn_refused[STATS_LEARN_COUNT];
	uint64_t peer_refused;
	uint64_t polls;
	uint64_t connects;
	uint64_t type[15];
	uint64_t irqs_held;
	uint64_t spare[5];
} __attribute__((aligned(64)));	/* one thread's slot per cache line run */

/* @spare ends the struct: every other word is a counter, described. */
_Static_assert(offsetof(struct port_stats, spare) +
	       sizeof(((struct port_stats *)0)->spare) ==
	       sizeof(struct port_stats),
	       "struct port_stats: resize spare[] to the end of its line");

/**
 * enum stats_kind - what a value does over time (Prometheus # TYPE)
 * @STATS_COUNTER:	only grows; its metric name ends in _total
 * @STATS_GAUGE:	goes up and down
 */
enum stats_kind {
	STATS_COUNTER,
	STATS_GAUGE,
};

/**
 * struct stats_desc - one counter of struct port_stats, or one array of
 *		       them indexed by a reason, described once for every
 *		       output (ctl's JSON and Prometheus text)
 * @key:	JSON key in "ports"/"stats"
 * @group:	JSON object the key sits in ("direct" for "direct.packets"),
 *		or NULL for the port's own object.  Descriptors of one group
 *		are consecutive in one table
 * @metric:	Prometheus metric name without the "vhostd_port_" prefix
 * @help:	its # HELP text: one line, no backslash
 * @kind:	counter or gauge
 * @off:	offset of the (first) counter in struct port_stats
 * @n:		counters: 1, or the array's length
 * @label:	Prometheus label carrying the array index ("reason"), NULL
 *		for a single counter
 * @names:	for an array, @n names: JSON keys of the array's object and
 *		values of @label; NULL for a single counter
 *
 * The names are an interface: scripts match on them.  Never rename one.
 */
struct stats_desc {
	const char *key;
	const char *group;
	const char *metric;
	const char *help;
	enum stats_kind kind;
	size_t off;
	unsigned int n;
	const char *label;
	const char *const *names;
};

/* STATS_AT() - .off and .n of counter (or array) @field of port_stats */
#define STATS_AT(field)							\
	.off = offsetof(struct port_stats, field),			\
	.n = sizeof(((struct port_stats *)0)->field) / sizeof(uint64_t)

/**
 * struct stats_table - counters described together, shown together
 * @desc:	descriptors, in output order
 * @n:		how many
 */
struct stats_table {
	const struct stats_desc *desc;
	unsigned int n;
};

/* Every port's counters (traffic, drops, violations, learning). */
extern const struct stats_table stats_common;
/* Direct reads from a TAP into a guest, counted on both ends: the tables
 * of both port types list it.
 */
extern const struct stats_table stats_direct;

/**
 * stats_add() - count into the calling thread's own slot
 * @ctr:	counter in the slot of this thread (see port_ctr())
 * @v:		amount
 *
 * One writer per slot: a plain add, stored atomically so that a reader
 * never sees a torn value.
 */
static inline void stats_add(uint64_t *ctr, uint64_t v)
{
	__atomic_store_n(ctr, __atomic_load_n(ctr, __ATOMIC_RELAXED) + v,
			 __ATOMIC_RELAXED);
}

/**
 * stats_sum() - one counter summed over every slot
 * @slots:	STATS_SLOTS copies of the counters
 * @off:	the counter's offset in struct port_stats
 *
 * Return: the total
 */
static inline uint64_t stats_sum(const struct port_stats *slots, size_t off)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < STATS_SLOTS; i++)
		sum += __atomic_load_n((const uint64_t *)(const void *)
				       ((const char *)&slots[i] + off),
				       __ATOMIC_RELAXED);
	return sum;
}

#endif /* VHOSTD_STATS_H */
