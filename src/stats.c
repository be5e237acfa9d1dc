// SPDX-License-Identifier: GPL-2.0-or-later
/* stats.c - names and descriptions of the per-port counters
 *
 * The names are an interface: ctl prints them as JSON keys and as the
 * Prometheus "reason" label, and scripts match on them.  Add reasons at
 * the end; never rename one.
 *
 * Owns the tables of the counters every port has (stats_common) and of
 * those two port types share (stats_direct); a port type describes its
 * own counters in its file (port_ops.counters).  ctl prints whatever the
 * tables describe, so a counter is named once, here or there.
 */
#include "stats.h"
#include "util.h"

__thread unsigned int stats_slot;	/* 0 (control) unless a worker */

/* Indexed by enum stats_drop; the assertion below fails the build when a
 * reason is added to the enum without a name here.
 */
const char *const stats_drop_names[STATS_DROP_COUNT] = {
	[STATS_DROP_NO_BUFFER]	= "no_buffer",
	[STATS_DROP_BAD_DESC]	= "bad_desc",
	[STATS_DROP_RUNT]	= "runt",
	[STATS_DROP_TOO_BIG]	= "too_big",
	[STATS_DROP_PORT_DOWN]	= "port_down",
	[STATS_DROP_IO_ERROR]	= "io_error",
	[STATS_DROP_OFFLOAD]	= "offload",
	[STATS_DROP_SPOOFED]	= "spoofed",
	[STATS_DROP_STORM]	= "storm",
	[STATS_DROP_RATE]	= "rate",
	[STATS_DROP_VLAN]	= "vlan",
	[STATS_DROP_ISOLATED]	= "isolated",
};

_Static_assert(STATS_DROP_ISOLATED + 1 == STATS_DROP_COUNT,
	       "a new drop reason needs a name in stats_drop_names[]");

/* Indexed by enum stats_direct; same rules as stats_drop_names[]. */
const char *const stats_direct_names[STATS_DIRECT_COUNT] = {
	[STATS_DIRECT_NO_MRG]		= "no_mrg",
	[STATS_DIRECT_DOWN]		= "down",
	[STATS_DIRECT_NO_BUFFER]	= "no_buffer",
	[STATS_DIRECT_STEER]		= "steer",
	[STATS_DIRECT_OFFLOAD]		= "offload",
	[STATS_DIRECT_MTU]		= "mtu",
	[STATS_DIRECT_RATE]		= "rate",
};

_Static_assert(STATS_DIRECT_RATE + 1 == STATS_DIRECT_COUNT,
	       "a new direct fallback reason needs a name");

/* Indexed by enum stats_learn; same rules as stats_drop_names[]. */
const char *const stats_learn_names[STATS_LEARN_COUNT] = {
	[STATS_LEARN_QUOTA]	= "quota",
	[STATS_LEARN_LOCKED]	= "locked",
	[STATS_LEARN_FULL]	= "full",
};

_Static_assert(STATS_LEARN_FULL + 1 == STATS_LEARN_COUNT,
	       "a new learn refusal reason needs a name");

static const struct stats_desc stats_common_desc[] = {
	{ .key = "rx_packets", .metric = "rx_packets_total",
	  .help = "Frames received from the port's peer.",
	  STATS_AT(rx_packets) },
	{ .key = "rx_bytes", .metric = "rx_bytes_total",
	  .help = "Bytes of frames received from the port's peer.",
	  STATS_AT(rx_bytes) },
	{ .key = "tx_packets", .metric = "tx_packets_total",
	  .help = "Frames delivered to the port's peer.",
	  STATS_AT(tx_packets) },
	{ .key = "tx_bytes", .metric = "tx_bytes_total",
	  .help = "Bytes of frames delivered to the port's peer.",
	  STATS_AT(tx_bytes) },
	{ .key = "drops", .metric = "drops_total",
	  .help = "Frames dropped at the port, by reason.",
	  STATS_AT(drops), .label = "reason", .names = stats_drop_names },
	{ .key = "violations", .metric = "violations_total",
	  .help = "Protocol or ring violations by the peer.",
	  STATS_AT(violations) },
	{ .key = "learn_refused", .metric = "learn_refused_total",
	  .help = "Source MACs from the port not learned, by reason.",
	  STATS_AT(learn_refused), .label = "reason",
	  .names = stats_learn_names },
};

const struct stats_table stats_common = {
	stats_common_desc, ARRAY_SIZE(stats_common_desc)
};

static const struct stats_desc stats_direct_desc[] = {
	{ .key = "packets", .group = "direct",
	  .metric = "direct_packets_total",
	  .help = "Frames read from a TAP straight into a guest's buffers.",
	  STATS_AT(direct_packets) },
	{ .key = "fallback", .group = "direct",
	  .metric = "direct_fallbacks_total",
	  .help = "Frames of a steered TAP queue that took the bounce "
		  "buffer, by reason.",
	  STATS_AT(direct_fallbacks), .label = "reason",
	  .names = stats_direct_names },
};

const struct stats_table stats_direct = {
	stats_direct_desc, ARRAY_SIZE(stats_direct_desc)
};
