/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats.h - per-port counters
 *
 * Counters are only ever added to, with relaxed atomics, once per burst
 * where possible; readers (ctl) may see a slightly stale value.
 */
#ifndef VHOSTD_STATS_H
#define VHOSTD_STATS_H

#include <stdint.h>

/**
 * enum stats_drop - why a frame was dropped
 * @STATS_DROP_NO_BUFFER:	destination had no (or too small) RX buffers
 * @STATS_DROP_BAD_DESC:	unusable descriptor chain from the guest
 * @STATS_DROP_RUNT:		shorter than an Ethernet header
 * @STATS_DROP_TOO_BIG:		larger than we or the destination accept
 * @STATS_DROP_PORT_DOWN:	destination not ready (no guest, ring stopped)
 * @STATS_DROP_IO_ERROR:	read/write on a host fd failed
 * @STATS_DROP_OFFLOAD:		offload metadata we cannot honour
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
	STATS_DROP_COUNT,
};

extern const char *const stats_drop_names[STATS_DROP_COUNT];

/**
 * struct port_stats - counters of one port, seen from the port
 * @rx_packets:	frames received from the port's peer (into the switch)
 * @rx_bytes:	their bytes
 * @tx_packets:	frames delivered to the peer (out of the switch)
 * @tx_bytes:	their bytes
 * @drops:	frames lost, by reason (either direction)
 * @violations:	guest/peer protocol or ring violations
 */
struct port_stats {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t drops[STATS_DROP_COUNT];
	uint64_t violations;
};

static inline void stats_add(uint64_t *ctr, uint64_t v)
{
	__atomic_fetch_add(ctr, v, __ATOMIC_RELAXED);
}

static inline uint64_t stats_read(const uint64_t *ctr)
{
	return __atomic_load_n(ctr, __ATOMIC_RELAXED);
}

#endif /* VHOSTD_STATS_H */
