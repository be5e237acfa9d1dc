/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vdrv_pkt.h - frames for tests and benchmarks: build, check, answer
 *
 * Test frames carry a self-describing payload (EtherType 0x88b5, local
 * experimental) with a tag, a sequence number, their own length and a
 * pattern derived from both, so a receiver can prove a frame arrived
 * intact, whole and from whom -- not just that "something" arrived.  ARP
 * and ICMP echo helpers let a vdrv port stand in for a host on an IPv4
 * subnet (answer pings, send them).  Addresses are in network byte order.
 */
#ifndef VDRV_PKT_H
#define VDRV_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VDRV_ETH_HLEN		14
#define VDRV_ETHERTYPE_TEST	0x88b5
#define VDRV_TEST_HLEN		(VDRV_ETH_HLEN + 16)

/**
 * struct vdrv_test_info - what vdrv_pkt_test_check() found in a test frame
 * @tag:	sender-chosen tag (e.g. the sending port's number)
 * @seq:	sequence number
 * @dst:	destination MAC
 * @src:	source MAC
 */
struct vdrv_test_info {
	uint32_t tag;
	uint32_t seq;
	uint8_t dst[6];
	uint8_t src[6];
};

int vdrv_pkt_parse_mac(const char *s, uint8_t mac[6]);
int vdrv_pkt_parse_ip4(const char *s, uint32_t *ip);
uint16_t vdrv_pkt_csum(const void *p, size_t len, uint32_t sum);

size_t vdrv_pkt_test_frame(uint8_t *buf, size_t len, const uint8_t dst[6],
			   const uint8_t src[6], uint32_t tag, uint32_t seq);
int vdrv_pkt_test_check(const uint8_t *buf, size_t len,
			struct vdrv_test_info *info);

size_t vdrv_pkt_arp(uint8_t *buf, uint16_t op, const uint8_t dst[6],
		    const uint8_t sha[6], uint32_t spa, const uint8_t tha[6],
		    uint32_t tpa);
size_t vdrv_pkt_icmp_echo(uint8_t *buf, size_t cap, const uint8_t dst[6],
			  const uint8_t src[6], uint32_t sip, uint32_t dip,
			  uint8_t type, uint16_t id, uint16_t seq,
			  size_t payload_len);
size_t vdrv_pkt_respond(const uint8_t *in, size_t len, const uint8_t mac[6],
			uint32_t ip, uint8_t *out, size_t cap);
bool vdrv_pkt_is_arp_reply(const uint8_t *in, size_t len, uint32_t spa,
			   uint8_t sha[6]);
bool vdrv_pkt_is_echo_reply(const uint8_t *in, size_t len, uint32_t sip,
			    uint16_t id, uint16_t *seq);

#endif /* VDRV_PKT_H */
