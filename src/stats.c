// SPDX-License-Identifier: GPL-2.0-or-later
/* stats.c - names of the per-port counters
 *
 * The names are an interface: ctl prints them as JSON keys and as the
 * Prometheus "reason" label, and scripts match on them.  Add reasons at
 * the end; never rename one.
 */
#include "stats.h"

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
};

_Static_assert(STATS_DROP_STORM + 1 == STATS_DROP_COUNT,
	       "a new drop reason needs a name in stats_drop_names[]");

/* Indexed by enum stats_direct; same rules as stats_drop_names[]. */
const char *const stats_direct_names[STATS_DIRECT_COUNT] = {
	[STATS_DIRECT_NO_MRG]		= "no_mrg",
	[STATS_DIRECT_DOWN]		= "down",
	[STATS_DIRECT_NO_BUFFER]	= "no_buffer",
	[STATS_DIRECT_STEER]		= "steer",
	[STATS_DIRECT_OFFLOAD]		= "offload",
	[STATS_DIRECT_MTU]		= "mtu",
};

_Static_assert(STATS_DIRECT_MTU + 1 == STATS_DIRECT_COUNT,
	       "a new direct fallback reason needs a name");

/* Indexed by enum stats_learn; same rules as stats_drop_names[]. */
const char *const stats_learn_names[STATS_LEARN_COUNT] = {
	[STATS_LEARN_QUOTA]	= "quota",
	[STATS_LEARN_LOCKED]	= "locked",
	[STATS_LEARN_FULL]	= "full",
};

_Static_assert(STATS_LEARN_FULL + 1 == STATS_LEARN_COUNT,
	       "a new learn refusal reason needs a name");
