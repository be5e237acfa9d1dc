/* SPDX-License-Identifier: GPL-2.0-or-later */
/* offload_itest.h - what the parts of offload_itest share
 *
 * offload_itest.c (main, results) and the files next to this header are
 * one program, split by concern:
 *
 *   frame.c	independent checksum arithmetic, parser, frame builder
 *   check.c	the decision table, the reference checker, its self-test
 *   guest.c	vdrv guests: open, send, receive, expect, canaries
 *   matrix.c	scenarios "matrix" and "fuzz" (random headers on its frames)
 *   negative.c	scenario "negative": frames a source may not send
 *   tap.c	scenario "tap": the Linux kernel behind a TAP
 *
 * Nothing here is shared with vhostd (src/ is not included): the checker
 * must not inherit the daemon's mistakes.
 */
#ifndef OFFLOAD_ITEST_H
#define OFFLOAD_ITEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/virtio_config.h>

#include "../../../vdrv/vdrv.h"
#include "../../../vdrv/vdrv_pkt.h"

#define OT_FRAME_MAX	(65535 + 14 + 4 + 64)
#define OT_TX_BUF	(12 + OT_FRAME_MAX)
#define OT_BIG_RXBUF	65600	/* no MRG_RXBUF: one buffer holds 64 KiB */
#define OT_PORTS_MAX	10
#define OT_ETH_IP	0x0800
#define OT_ETH_IP6	0x86dd
#define OT_ETH_VLAN	0x8100
#define OT_ETH_TEST	0x88b5
#define OT_PROTO_TCP	6
#define OT_PROTO_UDP	17
#define OT_IP_ID	0xfff0	/* id + k wraps within a 64 KiB frame */
#define OT_TCP_SEQ	0xffffe000u	/* so does the sequence number */
#define OT_TCP_ACK	0x11223344u

#define TH_FIN		0x01
#define TH_SYN		0x02
#define TH_PSH		0x08
#define TH_ACK		0x10
#define TH_ECE		0x40
#define TH_CWR		0x80

#define F(bit)		(1ULL << (bit))
#define OT_HOST_ALL	(F(VIRTIO_NET_F_CSUM) | F(VIRTIO_NET_F_HOST_TSO4) | \
			 F(VIRTIO_NET_F_HOST_TSO6) | F(VIRTIO_NET_F_HOST_ECN) | \
			 F(VDRV_F_HOST_USO))
#define OT_GUEST_ALL	(F(VIRTIO_NET_F_GUEST_CSUM) |			\
			 F(VIRTIO_NET_F_GUEST_TSO4) |			\
			 F(VIRTIO_NET_F_GUEST_TSO6) |			\
			 F(VIRTIO_NET_F_GUEST_ECN) | F(VDRV_F_GUEST_USO4) | \
			 F(VDRV_F_GUEST_USO6))
#define OT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/**
 * struct ot_spec - a frame to build
 * @name:	case name
 * @proto:	OT_PROTO_TCP or OT_PROTO_UDP
 * @v6:		IPv6 (else IPv4)
 * @vlan:	one 802.1Q tag
 * @ipopt:	IPv4 option bytes (multiple of 4, <= 40)
 * @tcpopt:	TCP option bytes (multiple of 4, <= 40)
 * @flags:	TCP flags
 * @payload:	L4 payload bytes
 * @gso_size:	0: not a GSO frame
 * @ecn_bit:	GSO_ECN in gso_type
 * @csum:	NEEDS_CSUM (implied by @gso_size)
 */
struct ot_spec {
	const char *name;
	uint8_t proto;
	bool v6;
	bool vlan;
	uint8_t ipopt;
	uint8_t tcpopt;
	uint8_t flags;
	uint32_t payload;
	uint16_t gso_size;
	bool ecn_bit;
	bool csum;
};

/**
 * struct ot_parsed - where the headers of a frame are
 * @l3:		IP header offset
 * @l4:		TCP/UDP header offset
 * @pay:	payload offset
 * @paylen:	payload bytes
 * @proto:	OT_PROTO_TCP or OT_PROTO_UDP
 * @v6:		IPv6
 */
struct ot_parsed {
	uint32_t l3;
	uint32_t l4;
	uint32_t pay;
	uint32_t paylen;
	uint8_t proto;
	bool v6;
};

/**
 * struct ot_frame - a built frame and its virtio-net header
 * @buf:	the frame
 * @len:	its length
 * @hdr:	header sent with it
 * @p:		its layout
 * @s:		what it was built from
 */
struct ot_frame {
	uint8_t buf[OT_FRAME_MAX];
	uint32_t len;
	struct virtio_net_hdr_v1 hdr;
	struct ot_parsed p;
	struct ot_spec s;
};

/**
 * struct ot_port - one vdrv guest
 * @d:		device (NULL while closed)
 * @o:		options
 * @name:	for messages (also the vhostd port name where known)
 * @mac:	its MAC
 */
struct ot_port {
	struct vdrv_dev *d;
	struct vdrv_opts o;
	const char *name;
	uint8_t mac[6];
};

#define OT_VHOSTD_RX_BUFS	64	/* documented in doc/offloads.md */

/**
 * enum ot_act - what a destination must receive (doc/offloads.md)
 * @OT_PLAIN:	the frame unchanged, flags 0
 * @OT_PASS:	the frame unchanged with its offload header
 * @OT_CSUM:	the frame with the checksum completed, flags 0
 * @OT_SEG_PARTIAL: segments with NEEDS_CSUM
 * @OT_SEG_FULL: segments fully checksummed
 * @OT_DROP:	nothing
 */
enum ot_act {
	OT_PLAIN,
	OT_PASS,
	OT_CSUM,
	OT_SEG_PARTIAL,
	OT_SEG_FULL,
	OT_DROP,
};

/**
 * enum ot_mut - a corruption applied to every received frame
 * @OT_MUT_NONE:	none (normal runs)
 * @OT_MUT_PAYLOAD:	one payload byte changed
 * @OT_MUT_IPID:	IPv4 identification + 1
 * @OT_MUT_SEQ:		TCP sequence number + 1
 * @OT_MUT_FIN:		TCP FIN set
 * @OT_MUT_CWR:		TCP CWR set
 * @OT_MUT_TTL:		TTL / hop limit - 1
 * @OT_MUT_CSUM:	L4 checksum field's low bit flipped (no fix-up)
 * @OT_MUT_CSUM_START:	csum_start + 1
 * @OT_MUT_COUNT:	number of kinds
 *
 * Except for OT_MUT_CSUM, the IPv4 header checksum and a full L4
 * checksum are recomputed after the change, so only the semantic checks
 * (segment vs original) can catch it.
 */
enum ot_mut {
	OT_MUT_NONE,
	OT_MUT_PAYLOAD,
	OT_MUT_IPID,
	OT_MUT_SEQ,
	OT_MUT_FIN,
	OT_MUT_CWR,
	OT_MUT_TTL,
	OT_MUT_CSUM,
	OT_MUT_CSUM_START,
	OT_MUT_COUNT,
};

/* Payloads that make 65549-byte frames (a 65535-byte IP packet behind
 * Ethernet; virtio's limit is 65550): IPv4 with 8 bytes of options and
 * TCP with 12, IPv6 likewise with its fixed 40-byte header.
 */
#define OT_TCP4_MAX	(65535 - 28 - 32)
#define OT_TCP6_MAX	(65535 - 40 - 32)
#define OT_UDP4_MAX	(65535 - 20 - 8)
#define OT_UDP6_MAX	(65535 - 40 - 8)

/* offload_itest.c: results and the buffers every part uses.  One frame
 * is built and one received at a time, so one of each is enough.
 */
extern struct ot_port ot_ports[OT_PORTS_MAX];
extern struct ot_frame ot_f;
extern uint8_t ot_rxbuf[OT_FRAME_MAX], ot_scratch[OT_FRAME_MAX];
extern unsigned int ot_failed, ot_passed;
extern char ot_why[256];
extern const char *const ot_act_names[];

int64_t ot_ms(void);
void __attribute__((format(printf, 1, 2), noreturn))
ot_fatal(const char *fmt, ...);
bool __attribute__((format(printf, 1, 2))) ot_err(const char *fmt, ...);
void ot_report(bool ok, const char *cas, const char *rcv, const char *what);

/* frame.c */
extern const uint8_t ot_ip4_dst[4], ot_ip6_dst[16];

uint16_t ot_get16(const uint8_t *p);
uint32_t ot_get32(const uint8_t *p);
void ot_put16(uint8_t *p, uint16_t v);
void ot_put32(uint8_t *p, uint32_t v);
uint64_t ot_sum(const uint8_t *p, size_t len, uint64_t sum);
uint16_t ot_fold(uint64_t sum);
uint64_t ot_pseudo(const uint8_t *f, const struct ot_parsed *p,
		   uint32_t l4len);
uint16_t ot_csum_off(uint8_t proto);
bool ot_parse(const uint8_t *f, uint32_t len, struct ot_parsed *p);
bool ot_check_l4(const uint8_t *f, uint32_t len, const struct ot_parsed *p,
		 const struct virtio_net_hdr_v1 *hdr, bool csum_ok);
void ot_build(struct ot_frame *f, const struct ot_spec *s,
	      const uint8_t dst[6], const uint8_t src[6],
	      const uint8_t *ip_src, const uint8_t *ip_dst,
	      uint16_t sport, uint16_t dport, uint32_t seed);

/* check.c */
extern enum ot_mut ot_mut;
extern const char *const ot_mut_names[OT_MUT_COUNT];

enum ot_act ot_decide(const struct ot_frame *f, uint64_t feat);
bool ot_check_whole(const struct ot_frame *o, const uint8_t *f,
		    uint32_t len, const struct virtio_net_hdr_v1 *hdr,
		    enum ot_act act, uint64_t feat, bool hdr_len_kept);
bool ot_check_seg(const struct ot_frame *o, const uint8_t *f,
		  uint32_t len, const struct virtio_net_hdr_v1 *hdr,
		  uint32_t k, uint32_t *off, bool partial, uint64_t feat);
bool ot_mutate(uint8_t *f, uint32_t len, struct virtio_net_hdr_v1 *hdr);
extern unsigned int ot_mut_frames;

/* guest.c */
void ot_open(struct ot_port *p);
void ot_init_port(struct ot_port *p, const char *path, const char *name,
		  uint8_t idx, uint64_t off);
bool ot_close(struct ot_port *p);
void ot_send(struct ot_port *p, const struct ot_frame *f);
void ot_settle(struct ot_port *p);
bool ot_recv(struct ot_port *p, struct vdrv_rx_pkt *rx, int timeout_ms,
	     bool (*filter)(const uint8_t *, uint32_t));
void ot_drain(unsigned int n, int ms, unsigned int *extra);
void ot_sync(unsigned int n);
bool ot_expect(struct ot_port *b, const struct ot_frame *f,
	       bool hdr_len_kept,
	       bool (*filter)(const uint8_t *, uint32_t), char *what);
bool ot_recv_any(struct ot_port *p, struct vdrv_rx_pkt *rx, int timeout_ms);
bool ot_canary(struct ot_port *a, struct ot_port *r, uint32_t seq);
void ot_announce(struct ot_port *p);

/* The scenarios: matrix.c, negative.c, tap.c */
void sc_matrix(char **socks, unsigned int n);
void sc_fuzz(char **socks, unsigned int n);
void sc_negative(char **socks, unsigned int n);
void sc_tap(char **args, unsigned int n);

#endif /* OFFLOAD_ITEST_H */
