/* SPDX-License-Identifier: GPL-2.0-or-later */
/* flow.h - a frame's flow, as a hash both directions share
 *
 * A guest with several queue pairs sends each flow on the TX queue its
 * stack chose (XPS, the sending CPU) and expects the flow's replies on
 * the RX queue of the same pair, so that one CPU keeps handling it.  The
 * hash is symmetric: a reply hashes as its request did.
 */
#ifndef VHOSTD_FLOW_H
#define VHOSTD_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "pkt.h"

uint32_t flow_hash(const struct ethhdr *eth, const uint8_t *b, size_t len);
uint32_t pkt_flow_hash(const struct pkt *pkt);

#endif /* VHOSTD_FLOW_H */
