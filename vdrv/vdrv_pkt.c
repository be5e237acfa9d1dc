// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_pkt.c - test frames, ARP and ICMP echo for vdrv users
 *
 * Everything a "guest" made of vdrv needs to say and check on the wire
 * without a network stack.  Parsers here read frames that came through the
 * switch under test, so they check every length before reading.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vdrv_pkt.h"

#define VDRV_TEST_MAGIC	0x56445256u	/* "VDRV" */

/**
 * vdrv_pkt_parse_mac() - "02:00:00:00:00:01" to bytes
 * @s:		text
 * @mac:	out
 * Return: 0 or -EINVAL
 */
int vdrv_pkt_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int b[6], i;
	char end;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &end) != 6)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			return -EINVAL;
		mac[i] = (uint8_t)b[i];
	}
	return 0;
}

/**
 * vdrv_pkt_parse_ip4() - dotted quad to a network-order address
 * @s:	text
 * @ip:	out
 * Return: 0 or -EINVAL
 */
int vdrv_pkt_parse_ip4(const char *s, uint32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return -EINVAL;
	*ip = a.s_addr;
	return 0;
}

/**
 * vdrv_pkt_csum() - Internet checksum (RFC 1071)
 * @p:		bytes
 * @len:	how many
 * @sum:	partial sum to start from (0 for none)
 * Return: the checksum, ready to store (network order in memory)
 */
uint16_t vdrv_pkt_csum(const void *p, size_t len, uint32_t sum)
{
	const uint8_t *b = p;

	while (len > 1) {
		sum += (uint32_t)(b[0] << 8 | b[1]);
		b += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)b[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

/**
 * vdrv_pkt_pattern() - the payload byte at @i of frame (@tag, @seq)
 * @tag:	frame tag
 * @seq:	frame sequence
 * @i:		byte offset in the frame
 * Return: the byte
 */
static uint8_t vdrv_pkt_pattern(uint32_t tag, uint32_t seq, size_t i)
{
	return (uint8_t)((i * 131u) ^ (seq * 7u) ^ (tag * 29u) ^ (i >> 8));
}

/**
 * vdrv_pkt_test_frame() - build a self-checking test frame
 * @buf:	destination, @len bytes
 * @len:	frame length, >= VDRV_TEST_HLEN
 * @dst:	destination MAC
 * @src:	source MAC
 * @tag:	sender tag
 * @seq:	sequence number
 * Return: @len, or 0 if @len is too small
 */
size_t vdrv_pkt_test_frame(uint8_t *buf, size_t len, const uint8_t dst[6],
			   const uint8_t src[6], uint32_t tag, uint32_t seq)
{
	uint32_t w[4] = { htonl(VDRV_TEST_MAGIC), htonl(tag), htonl(seq),
			  htonl((uint32_t)len) };
	size_t i;

	if (len < VDRV_TEST_HLEN)
		return 0;
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	buf[12] = VDRV_ETHERTYPE_TEST >> 8;
	buf[13] = VDRV_ETHERTYPE_TEST & 0xff;
	memcpy(buf + VDRV_ETH_HLEN, w, sizeof(w));
	for (i = VDRV_TEST_HLEN; i < len; i++)
		buf[i] = vdrv_pkt_pattern(tag, seq, i);
	return len;
}

/**
 * vdrv_pkt_test_check() - verify a frame built by vdrv_pkt_test_frame()
 * @buf:	frame
 * @len:	its received length
 * @info:	out: tag, sequence and addresses
 * Return: 0 if intact, -ENOMSG if not a test frame, -EBADMSG if its
 * length or any payload byte is wrong
 */
int vdrv_pkt_test_check(const uint8_t *buf, size_t len,
			struct vdrv_test_info *info)
{
	uint32_t w[4];
	size_t i;

	if (len < VDRV_TEST_HLEN || buf[12] != (VDRV_ETHERTYPE_TEST >> 8) ||
	    buf[13] != (VDRV_ETHERTYPE_TEST & 0xff))
		return -ENOMSG;
	memcpy(w, buf + VDRV_ETH_HLEN, sizeof(w));
	if (ntohl(w[0]) != VDRV_TEST_MAGIC)
		return -ENOMSG;
	memcpy(info->dst, buf, 6);
	memcpy(info->src, buf + 6, 6);
	info->tag = ntohl(w[1]);
	info->seq = ntohl(w[2]);
	if (ntohl(w[3]) != len)
		return -EBADMSG;
	for (i = VDRV_TEST_HLEN; i < len; i++)
		if (buf[i] != vdrv_pkt_pattern(info->tag, info->seq, i))
			return -EBADMSG;
	return 0;
}

/**
 * vdrv_pkt_eth() - write an Ethernet header
 * @buf:	destination
 * @dst:	destination MAC
 * @src:	source MAC
 * @type:	EtherType, host order
 */
static void vdrv_pkt_eth(uint8_t *buf, const uint8_t dst[6],
			 const uint8_t src[6], uint16_t type)
{
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	buf[12] = (uint8_t)(type >> 8);
	buf[13] = (uint8_t)type;
}

/**
 * vdrv_pkt_arp() - build an ARP request or reply (42 bytes)
 * @buf:	destination, >= 42 bytes
 * @op:		1 request, 2 reply
 * @dst:	Ethernet destination
 * @sha:	sender MAC
 * @spa:	sender IPv4
 * @tha:	target MAC
 * @tpa:	target IPv4
 * Return: frame length
 */
size_t vdrv_pkt_arp(uint8_t *buf, uint16_t op, const uint8_t dst[6],
		    const uint8_t sha[6], uint32_t spa, const uint8_t tha[6],
		    uint32_t tpa)
{
	uint8_t *a = buf + VDRV_ETH_HLEN;

	vdrv_pkt_eth(buf, dst, sha, 0x0806);
	a[0] = 0; a[1] = 1;		/* Ethernet */
	a[2] = 0x08; a[3] = 0x00;	/* IPv4 */
	a[4] = 6; a[5] = 4;
	a[6] = (uint8_t)(op >> 8); a[7] = (uint8_t)op;
	memcpy(a + 8, sha, 6);
	memcpy(a + 14, &spa, 4);
	memcpy(a + 18, tha, 6);
	memcpy(a + 24, &tpa, 4);
	return VDRV_ETH_HLEN + 28;
}

/**
 * vdrv_pkt_ip4() - write an IPv4 header (20 bytes) with its checksum
 * @ip:		destination
 * @proto:	protocol
 * @sip:	source
 * @dip:	destination
 * @payload:	bytes after the header
 */
static void vdrv_pkt_ip4(uint8_t *ip, uint8_t proto, uint32_t sip,
			 uint32_t dip, size_t payload)
{
	uint16_t tot = htons((uint16_t)(20 + payload)), c;

	memset(ip, 0, 20);
	ip[0] = 0x45;
	memcpy(ip + 2, &tot, 2);
	ip[6] = 0x40;			/* DF */
	ip[8] = 64;
	ip[9] = proto;
	memcpy(ip + 12, &sip, 4);
	memcpy(ip + 16, &dip, 4);
	c = vdrv_pkt_csum(ip, 20, 0);
	memcpy(ip + 10, &c, 2);
}

/**
 * vdrv_pkt_icmp_echo() - build an ICMP echo request or reply
 * @buf:	destination
 * @cap:	its size
 * @dst:	Ethernet destination
 * @src:	Ethernet source
 * @sip:	IPv4 source
 * @dip:	IPv4 destination
 * @type:	8 request, 0 reply
 * @id:		identifier, host order
 * @seq:	sequence, host order
 * @payload_len: bytes of pattern after the ICMP header
 * Return: frame length, or 0 if @cap is too small
 */
size_t vdrv_pkt_icmp_echo(uint8_t *buf, size_t cap, const uint8_t dst[6],
			  const uint8_t src[6], uint32_t sip, uint32_t dip,
			  uint8_t type, uint16_t id, uint16_t seq,
			  size_t payload_len)
{
	size_t len = VDRV_ETH_HLEN + 20 + 8 + payload_len, i;
	uint8_t *ic = buf + VDRV_ETH_HLEN + 20;
	uint16_t v;

	if (len > cap || payload_len > 65000)
		return 0;
	vdrv_pkt_eth(buf, dst, src, 0x0800);
	vdrv_pkt_ip4(buf + VDRV_ETH_HLEN, 1, sip, dip, 8 + payload_len);
	ic[0] = type;
	ic[1] = 0;
	ic[2] = ic[3] = 0;
	v = htons(id);
	memcpy(ic + 4, &v, 2);
	v = htons(seq);
	memcpy(ic + 6, &v, 2);
	for (i = 0; i < payload_len; i++)
		ic[8 + i] = (uint8_t)(i + seq);
	v = vdrv_pkt_csum(ic, 8 + payload_len, 0);
	memcpy(ic + 2, &v, 2);
	return len;
}

/**
 * vdrv_pkt_ip4_icmp() - locate a well-formed IPv4 ICMP message
 * @in:		frame
 * @len:	its length
 * @icmp_len:	out: ICMP bytes (header + data)
 * Return: pointer to the ICMP header, or NULL
 */
static const uint8_t *vdrv_pkt_ip4_icmp(const uint8_t *in, size_t len,
					size_t *icmp_len)
{
	const uint8_t *ip = in + VDRV_ETH_HLEN;
	size_t ihl, tot;

	if (len < VDRV_ETH_HLEN + 20 + 8 || in[12] != 0x08 || in[13] != 0x00)
		return NULL;
	ihl = (size_t)(ip[0] & 0xf) * 4;
	tot = (size_t)(ip[2] << 8 | ip[3]);
	if ((ip[0] >> 4) != 4 || ihl < 20 || tot < ihl + 8 ||
	    tot > len - VDRV_ETH_HLEN || ip[9] != 1)
		return NULL;
	*icmp_len = tot - ihl;
	return ip + ihl;
}

/**
 * vdrv_pkt_respond() - the answer a host at (@mac, @ip) gives to a frame
 * @in:		received frame
 * @len:	its length
 * @mac:	our MAC
 * @ip:		our IPv4
 * @out:	reply frame
 * @cap:	its size
 *
 * Answers ARP requests for @ip and ICMP echo requests to @ip.
 *
 * Return: reply length, 0 if the frame needs no answer
 */
size_t vdrv_pkt_respond(const uint8_t *in, size_t len, const uint8_t mac[6],
			uint32_t ip, uint8_t *out, size_t cap)
{
	const uint8_t *ic;
	size_t icl, tot;
	uint32_t sip, tpa;
	uint16_t c;

	if (len >= VDRV_ETH_HLEN + 28 && in[12] == 0x08 && in[13] == 0x06) {
		const uint8_t *a = in + VDRV_ETH_HLEN;

		memcpy(&tpa, a + 24, 4);
		if (a[0] || a[1] != 1 || a[2] != 8 || a[3] || a[4] != 6 ||
		    a[5] != 4 || a[6] || a[7] != 1 || tpa != ip || cap < 42)
			return 0;
		memcpy(&sip, a + 14, 4);
		return vdrv_pkt_arp(out, 2, a + 8, mac, ip, a + 8, sip);
	}
	ic = vdrv_pkt_ip4_icmp(in, len, &icl);
	if (!ic || ic[0] != 8 || memcmp(in + VDRV_ETH_HLEN + 16, &ip, 4))
		return 0;
	tot = (size_t)(ic - in) + icl;
	if (tot > cap)
		return 0;
	memcpy(out, in, tot);
	memcpy(out, in + 6, 6);
	memcpy(out + 6, mac, 6);
	memcpy(&sip, in + VDRV_ETH_HLEN + 12, 4);
	vdrv_pkt_ip4(out + VDRV_ETH_HLEN, 1, ip, sip, icl);
	/* vdrv_pkt_ip4() wrote a 20-byte header: options are dropped. */
	memmove(out + VDRV_ETH_HLEN + 20, ic, icl);
	out[VDRV_ETH_HLEN + 20] = 0;
	out[VDRV_ETH_HLEN + 22] = out[VDRV_ETH_HLEN + 23] = 0;
	c = vdrv_pkt_csum(out + VDRV_ETH_HLEN + 20, icl, 0);
	memcpy(out + VDRV_ETH_HLEN + 22, &c, 2);
	return VDRV_ETH_HLEN + 20 + icl;
}

/**
 * vdrv_pkt_is_arp_reply() - is this an ARP reply from @spa
 * @in:		frame
 * @len:	its length
 * @spa:	IPv4 whose MAC we asked for
 * @sha:	out: its MAC
 * Return: true if so
 */
bool vdrv_pkt_is_arp_reply(const uint8_t *in, size_t len, uint32_t spa,
			   uint8_t sha[6])
{
	const uint8_t *a = in + VDRV_ETH_HLEN;

	if (len < VDRV_ETH_HLEN + 28 || in[12] != 0x08 || in[13] != 0x06 ||
	    a[6] || a[7] != 2 || memcmp(a + 14, &spa, 4))
		return false;
	memcpy(sha, a + 8, 6);
	return true;
}

/**
 * vdrv_pkt_is_echo_reply() - is this an ICMP echo reply from @sip to us
 * @in:		frame
 * @len:	its length
 * @sip:	the peer we pinged
 * @id:		our identifier, host order
 * @seq:	out: its sequence number, host order
 * Return: true if so, with a valid ICMP checksum
 */
bool vdrv_pkt_is_echo_reply(const uint8_t *in, size_t len, uint32_t sip,
			    uint16_t id, uint16_t *seq)
{
	const uint8_t *ic;
	size_t icl;

	ic = vdrv_pkt_ip4_icmp(in, len, &icl);
	if (!ic || ic[0] != 0 || memcmp(in + VDRV_ETH_HLEN + 12, &sip, 4) ||
	    (uint16_t)(ic[4] << 8 | ic[5]) != id ||
	    vdrv_pkt_csum(ic, icl, 0) != 0)
		return false;
	*seq = (uint16_t)(ic[6] << 8 | ic[7]);
	return true;
}
