// SPDX-License-Identifier: GPL-2.0-or-later
/* port_vxlan.c - a VXLAN tunnel endpoint (RFC 7348) as a switch port
 *
 * DOC: Theory of Operation
 *
 * "vxlan,local=IP,remote=IP[,remote=IP...],vni=N[,dstport=4789]": every
 * frame the switch hands this port leaves as a UDP datagram to another
 * VXLAN tunnel endpoint (VTEP) -- a Linux vxlan device, OVS, a switch, a
 * second vhostd -- behind an 8-byte VXLAN header carrying the port's VNI;
 * every such datagram arriving on local=:dstport with that VNI enters the
 * switch as the frame it carries.  The underlay is the host's own UDP
 * stack (IPv4 or IPv6, the family of local=), so routing, ARP/ND and the
 * NIC's offloads below stay the kernel's.
 *
 * Where a frame goes: a table of MAC -> VTEP, learned from the inner
 * source MAC of what arrives (flood-and-learn, as Linux's "learning"),
 * aged after ageing= seconds, at most vtep-max-macs= learned MACs per
 * VTEP, plus static entries that never age or move, set by the control
 * socket ("vxlan add vx0,mac=MAC,vtep=IP", "vxlan del", "vxlan fdb") so
 * that an orchestrator or an EVPN speaker can program them.  A unicast
 * frame to a known MAC goes to its VTEP; broadcast, multicast and
 * unknown unicast go to every remote= (head-end replication, as Linux's
 * all-zeros fdb entries).  Only datagrams from a known VTEP -- a remote=
 * or the VTEP of a static entry -- are taken: the UDP port is open to the
 * world, and a stranger's datagram is dropped and counted (foreign).  A
 * frame whose source MAC is statically bound to another VTEP is dropped
 * as spoofed: static entries win.
 *
 * The table is lock-free for readers (every worker's xmit): 1024 buckets
 * of 4 ways, each way one 64-bit word (valid, static, VTEP, MAC), the
 * bucket chosen by a hash keyed with a per-port random seed, so that a
 * remote cannot aim its MACs at one bucket it can predict.  Writers (the
 * worker reading the socket learning a new or moved MAC, the control
 * thread adding, removing and ageing entries) take the port's mutex; a
 * refresh of a known entry's age is one relaxed store, no lock.  A VTEP
 * slot freed (its last static entry deleted, its last learned MAC aged)
 * is reused only after port_quiesce(): no worker still sends to it.
 *
 * Datapath.  One source queue, level-triggered: a turn reads up to a
 * burst with one recvmmsg() into the port's buffers and describes the
 * inner frames in place (nothing is published back).  xmit finishes
 * offloads in software, as the wire takes none: checksums completed and
 * TSO/USO frames cut into gso_size segments (net/gso.h) before
 * encapsulation, each segment its own datagram; then sendmmsg() in
 * batches from the frame's own iovec behind one shared header, no copy.
 * Source-port entropy (RFC 7348 section 5): datagrams leave from one of
 * src-ports= sockets, each bound to its own ephemeral port, chosen by the
 * inner flow's hash, so that ECMP and RSS in the underlay spread flows
 * and keep each one in order.  Those sockets read nothing (a filter drops
 * all they would receive).  Every socket has path-MTU discovery "do": a
 * datagram larger than the underlay's MTU is refused by the kernel and
 * counted (mtu_underlay), never fragmented; a frame larger than mtu=
 * (the inner IP MTU) is counted as mtu_inner.
 *
 * Hostile input.  A datagram shorter than a VXLAN header and an Ethernet
 * header, with flags other than exactly I (0x08) in the first word, with
 * another VNI, larger than a frame, or carrying a group or zero source
 * MAC, is dropped and counted by reason; nothing of it is kept.
 *
 * Sandbox: the sockets are made at start-up (socket(AF_INET*) is not
 * allowed afterwards), so the keys are PORT_OPT_STARTUP and ctl "port
 * add" refuses a vxlan port with one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <sys/random.h>
#include <sys/socket.h>

#include "port.h"
#include "../lock.h"
#include "../net/csum.h"
#include "../net/flow.h"
#include "../net/gro.h"
#include "../net/gso.h"
#include "../net/iov.h"
#include "../net/underlay.h"
#include "../util.h"

#define VXLAN_HLEN		8
#define VXLAN_FLAGS_I		0x08000000U	/* host order: I flag only */
/* Remote checksum offload (draft-herbert-vxlan-rco, as Linux's vxlan
 * remcsumtx/remcsumrx speak it): the R flag, and in the VNI word's low
 * byte the inner checksum's start / 2 and a bit for UDP (else TCP).
 */
#define VXLAN_FLAGS_RCO		0x00200000U
#define VXLAN_RCO_UDP		0x80U
#define VXLAN_RCO_START_MAX	(0x7fU << 1)
#define VXLAN_VNI_MAX		0xffffffU
#define VXLAN_REMOTES		16	/* remote= keys in a spec */
#define VXLAN_VTEPS		64	/* VTEPs one port knows */
#define VXLAN_BUCKETS		1024
#define VXLAN_WAYS		4
#define VXLAN_SLOTS		(VXLAN_BUCKETS * VXLAN_WAYS)
#define VXLAN_SRC_PORTS_MAX	32
#define VXLAN_BATCH		32	/* datagrams per sendmmsg() */
/* Datagrams one turn may read: a burst, and more while a TCP frame is
 * being joined from them (a 64 KiB one is 45).
 */
#define VXLAN_RX_SLOTS		64
#define VXLAN_IOV		(PKT_IOV_MAX + 3)
/* A datagram's room: header, the largest frame, one byte to see more. */
#define VXLAN_BUF_LEN		(VXLAN_HLEN + PKT_FRAME_MAX + 1)
#define VXLAN_SOCKBUF		(4 << 20)
#define VXLAN_NEIGH_REFRESH	60	/* via=: s before a VTEP's MAC is asked
					 * for again
					 */
/* UDP GSO (UDP_SEGMENT): one send carries up to this many datagrams of
 * one size (Linux's UDP_MAX_SEGMENTS, 64 before 6.x raised it), at most
 * this many bytes of them (an IPv4 datagram's limit less its headers).
 */
#define VXLAN_GSO_SEGS		64
#define VXLAN_GSO_BYTES		65507

/* What a UDP tunnel GSO frame's inner frame may carry whole. */
#define VXLAN_TNL_FEAT							\
	(1ULL << VIRTIO_NET_F_GUEST_CSUM | 1ULL << VIRTIO_NET_F_GUEST_TSO4 | \
	 1ULL << VIRTIO_NET_F_GUEST_TSO6 | 1ULL << VIRTIO_NET_F_GUEST_ECN)

/* A MAC table word: bit 63 valid, bit 62 static, bits 48-55 the VTEP,
 * bits 0-47 the MAC.
 */
#define VX_W_VALID		(1ULL << 63)
#define VX_W_STATIC		(1ULL << 62)
#define VX_W_VTEP(w)		((unsigned int)((w) >> 48) & 0xffU)
#define VX_W_MAC		0xffffffffffffULL

/* The type's counters, in struct port_stats @type (see vxlan_desc[]). */
enum {
	VX_C_BAD_HEADER,
	VX_C_BAD_VNI,
	VX_C_FLOOD,
	VX_C_NO_VTEP,
	VX_C_LEARN_LIMIT,
	VX_C_MOVES,
	VX_C_MTU_INNER,
	VX_C_MTU_UNDERLAY,
	VX_C_GRO_JOINED,
	VX_C_GRO_FRAMES,
	VX_C_RCO_RX,
	VX_C_NO_NEIGH,
	VX_C_UL_BAD,
	VX_C_UL_SENT,
	VX_C_TNL_GSO,
};

/**
 * struct vxlan_opts - a vxlan port's spec keys
 * @local:	local= underlay address to bind
 * @remote:	remote= VTEPs that get flooded frames, in the order given
 * @vni:	vni= the VXLAN Network Identifier, 0-16777215
 * @dstport:	dstport= UDP port, ours and the remotes' (4789)
 * @mtu:	mtu= largest inner IP packet (the frame less its Ethernet
 *		header and one VLAN tag)
 * @ageing:	ageing= seconds a learned MAC lives without a frame
 * @vtep_max_macs: vtep-max-macs= learned MACs one VTEP may own
 * @src_ports:	src-ports= sending sockets, one ephemeral port each
 * @learning:	learning= learn MACs from arriving frames
 * @gro:	gro= join arriving TCP segments into GSO frames
 * @remcsum:	remcsum= remote checksum offload, both ways
 * @via:	via= the port whose frames carry the datagrams (empty: the
 *		host's UDP sockets)
 */
struct vxlan_opts {
	struct port_ip local;
	struct port_ip remote[VXLAN_REMOTES];
	unsigned int vni;
	unsigned int dstport;
	unsigned int mtu;
	unsigned int ageing;
	unsigned int vtep_max_macs;
	unsigned int src_ports;
	bool learning;
	bool gro;
	bool remcsum;
	char via[PORT_NAME_MAX];
};

#define VX_OPT(f)	PORT_OPT_AT(struct vxlan_opts, f)

enum { VX_LOCAL, VX_REMOTE, VX_VNI };

static const struct port_opt vxlan_opts[] = {
	[VX_LOCAL] = {
		.key = "local", .type = PORT_OPT_IP, VX_OPT(local),
		.flags = PORT_OPT_REQUIRED | PORT_OPT_STARTUP,
		.help = "IP: underlay address to bind (IPv4 or IPv6)" },
	[VX_REMOTE] = {
		.key = "remote", .type = PORT_OPT_IP, VX_OPT(remote),
		.flags = PORT_OPT_LIST | PORT_OPT_STARTUP,
		.help = "IP: a VTEP that gets broadcast, multicast and "
			"unknown unicast" },
	[VX_VNI] = {
		.key = "vni", .type = PORT_OPT_UINT, VX_OPT(vni),
		.flags = PORT_OPT_REQUIRED, .max = VXLAN_VNI_MAX,
		.help = "N: VXLAN network identifier" },
	{ .key = "dstport", .type = PORT_OPT_UINT, VX_OPT(dstport),
	  .min = 1, .max = 65535, .def = 4789,
	  .help = "PORT: UDP port, ours and the remotes'" },
	{ .key = "mtu", .type = PORT_OPT_UINT, VX_OPT(mtu),
	  .min = 68, .max = 65535, .def = 1500,
	  .help = "BYTES: largest inner IP packet" },
	{ .key = "ageing", .type = PORT_OPT_UINT, VX_OPT(ageing),
	  .min = 1, .max = 86400, .def = 300,
	  .help = "SECONDS: a learned MAC's life without a frame" },
	{ .key = "vtep-max-macs", .type = PORT_OPT_UINT,
	  VX_OPT(vtep_max_macs), .min = 0, .max = VXLAN_SLOTS, .def = 256,
	  .help = "N: learned MACs one VTEP may own" },
	{ .key = "src-ports", .type = PORT_OPT_UINT, VX_OPT(src_ports),
	  .min = 1, .max = VXLAN_SRC_PORTS_MAX, .def = 8,
	  .help = "N: UDP source ports flows are spread over" },
	{ .key = "learning", .type = PORT_OPT_BOOL, VX_OPT(learning),
	  .def = 1, .help = "learn MAC -> VTEP from arriving frames" },
	{ .key = "gro", .type = PORT_OPT_BOOL, VX_OPT(gro),
	  .def = 1, .help = "join arriving TCP segments into one frame" },
	{ .key = "remcsum", .type = PORT_OPT_BOOL, VX_OPT(remcsum),
	  .def = 0, .help = "remote checksum offload both ways: inner "
	  "checksums left to the receiver, under the outer UDP checksum "
	  "(a Linux peer needs udpcsum remcsumtx remcsumrx)" },
	{ .key = "via", .type = PORT_OPT_NAME, VX_OPT(via),
	  .flags = PORT_OPT_STARTUP,
	  .help = "PORT: an afxdp port (named before this one) whose "
		  "interface carries the datagrams: local= is vhostd's own "
		  "address there (ARP, ND, echo answered)" },
};

_Static_assert(sizeof(struct vxlan_opts) <= PORT_OPTS_SIZE,
	       "vxlan options fit a port spec");
_Static_assert(VXLAN_VTEPS <= 256, "a VTEP index fits a table word");
_Static_assert(VXLAN_VTEPS <= 64, "a set of VTEPs fits a word (via=)");
_Static_assert(VX_C_UL_SENT < sizeof(((struct port_stats *)0)->type) /
	       sizeof(uint64_t), "the counters fit struct port_stats");
_Static_assert(VXLAN_REMOTES <= VXLAN_BATCH,
	       "a flooded datagram's copies fit one batch");

/**
 * union vxlan_sa - an underlay address
 * @sa:		family
 * @in4:	IPv4
 * @in6:	IPv6
 */
union vxlan_sa {
	struct sockaddr sa;
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
};

/**
 * struct vxlan_vtep - one remote tunnel endpoint
 * @sa:		its address, with dstport (what datagrams are sent to)
 * @live:	1: in use; 0: free; 2: freed, reusable after a quiesce
 *		(atomic: workers read it)
 * @flood:	a remote=: gets flooded frames, never freed
 * @statics:	static MAC entries that point here (under the lock)
 * @learned:	learned MAC entries that point here (under the lock)
 * @rx:		datagrams taken from it (the reading worker; relaxed)
 * @tx:		datagrams sent to it (any worker; atomic adds)
 * @hw:		via=: its MAC on the carrier's wire, VX_W_VALID and the
 *		MAC's key, 0 while unknown (atomic: any worker)
 * @asked:	via=: the second its MAC was last asked for, plus one; 0
 *		never (atomic)
 * @heard:	via=: the second an ARP or ND message last told its MAC
 *		(relaxed)
 */
struct vxlan_vtep {
	union vxlan_sa sa;
	unsigned int live;
	bool flood;
	unsigned int statics;
	unsigned int learned;
	uint64_t rx;
	uint64_t tx;
	uint64_t hw;
	uint32_t asked;
	uint32_t heard;
};

/**
 * struct vxlan_priv - a vxlan port's state
 * @fd:		the receiving socket, bound to local=:dstport; -1 closed
 * @tx:		the sending sockets, @ntx of them, -1 where closed
 * @ntx:	their number (src-ports=)
 * @family:	the underlay's address family (local='s)
 * @salen:	length of the family's socket address
 * @hdr:	the VXLAN header every datagram carries (flags, VNI)
 * @vni_word:	the second word of a header with our VNI (network order,
 *		the reserved low byte masked off)
 * @dport:	dstport=, network order
 * @mtu:	mtu=
 * @ageing:	ageing=
 * @vtep_max:	vtep-max-macs=
 * @learning:	learning=
 * @gro:	gro=
 * @remcsum:	remcsum=
 * @udp_gso:	the sending sockets take UDP_SEGMENT: a segmented frame's
 *		datagrams leave in one send (cleared, once, if the kernel
 *		refuses it: no checksum offload on the route, an old kernel)
 * @seed:	hash key of the MAC table's buckets
 * @lock:	serialises writers of @mac, @vtep's allocation and counts
 *		(a spinlock: every holder is brief; readers take none)
 * @vtep:	VTEPs by index; the @nflood remote= ones first, for good
 * @nflood:	remote= VTEPs
 * @last:	the last source VTEP (a lookup hint; relaxed atomics: with
 *		via= the carrier's workers share it)
 * @mac:	the MAC table's words (atomic)
 * @age:	CLOCK_MONOTONIC second each entry was last seen (relaxed)
 * @bufs:	VXLAN_RX_SLOTS receive buffers of VXLAN_BUF_LEN bytes
 *		(touched only as far as datagrams reach)
 * @pkts:	the frames of the current burst, pointing into @bufs
 * @flow:	the TCP frame being joined from the burst's segments (gro=)
 * @gro_hdr:	the headers of each joined frame of the burst, by its index
 * @msgs:	recvmmsg()'s headers
 * @iovs:	their buffers
 * @src:	their source addresses
 * @ctl:	their control messages (UDP_GRO's segment size)
 * @rxq:	the last batch read and what of it is still to be taken
 * @rxq.base:	its first slot
 * @rxq.got:	its messages
 * @rxq.mi:	the message to take from next
 * @rxq.off:	where in it the next datagram starts
 * @rxq.drained: the read came back short: the socket had no more
 * @via:	via=: the carrier, NULL with sockets
 * @ul_gso:	via=: segmented frames leave as UDP GSO trains through the
 *		carrier (@ul.gso; cleared, once, if the kernel refuses them)
 * @ul_tnl:	via=: TSO frames leave whole as UDP tunnel GSO frames
 *		(@ul.tnl_gso; cleared, once, if the kernel refuses them)
 * @ul:		via=: the attachment to it
 * @loc:	via=: our underlay addresses and port
 */
struct vxlan_priv {
	int fd;
	int tx[VXLAN_SRC_PORTS_MAX];
	unsigned int ntx;
	sa_family_t family;
	socklen_t salen;
	uint32_t hdr[2];
	uint32_t vni_word;
	uint16_t dport;
	unsigned int mtu;
	unsigned int ageing;
	unsigned int vtep_max;
	bool learning;
	bool gro;
	bool remcsum;
	bool udp_gso;
	uint64_t seed;
	struct vlock lock;
	struct vxlan_vtep vtep[VXLAN_VTEPS];
	unsigned int nflood;
	unsigned int last;
	uint64_t mac[VXLAN_SLOTS];
	uint32_t age[VXLAN_SLOTS];
	uint8_t *bufs;
	struct pkt pkts[PORT_BURST];
	struct gro_flow flow;
	uint8_t gro_hdr[PORT_BURST][GRO_HDR_MAX];
	struct mmsghdr msgs[VXLAN_RX_SLOTS];
	struct iovec iovs[VXLAN_RX_SLOTS];
	union vxlan_sa src[VXLAN_RX_SLOTS];
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl[VXLAN_RX_SLOTS];
	struct {
		unsigned int base;
		unsigned int got;
		unsigned int mi;
		size_t off;
		bool drained;
	} rxq;
	struct port *via;
	bool ul_gso;
	bool ul_tnl;
	struct port_underlay ul;
	struct ul_local loc;
};

/* vxlan_ul_max() - the carrier's largest frame now (a TAP's MTU may
 * change while it runs: struct port_underlay @frame_max)
 */
static uint32_t vxlan_ul_max(const struct vxlan_priv *v)
{
	return __atomic_load_n(&v->ul.frame_max, __ATOMIC_RELAXED);
}

/* vxlan_now() - CLOCK_MONOTONIC seconds, for ageing */
static uint32_t vxlan_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint32_t)ts.tv_sec;
}

/* vxlan_ctr() - the calling thread's slot of type counter @c */
static inline uint64_t *vxlan_ctr(struct port *p, unsigned int c)
{
	return &port_ctr(p)->type[c];
}

/**
 * vxlan_mac_key() - a MAC as the low 48 bits of a word
 * @mac:	6 bytes
 * Return: the key
 */
static inline uint64_t vxlan_mac_key(const uint8_t *mac)
{
	return (uint64_t)mac[0] << 40 | (uint64_t)mac[1] << 32 |
	       (uint64_t)mac[2] << 24 | (uint64_t)mac[3] << 16 |
	       (uint64_t)mac[4] << 8 | mac[5];
}

/**
 * vxlan_bucket() - the first slot of a key's bucket
 * @v:		port state (@seed)
 * @key:	vxlan_mac_key()
 * Return: slot index, a multiple of VXLAN_WAYS
 */
static inline unsigned int vxlan_bucket(const struct vxlan_priv *v,
					uint64_t key)
{
	uint64_t x = (key ^ v->seed) * 0x9e3779b97f4a7c15ULL;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	return (unsigned int)(x >> 54) * VXLAN_WAYS;	/* 10 bits */
}

/**
 * vxlan_find() - the slot holding a MAC
 * @v:		port state
 * @key:	vxlan_mac_key()
 * @word:	set to the slot's word when found
 * Return: the slot, or -1
 *
 * Context: any thread, no lock (a word read whole, atomically)
 */
static int vxlan_find(const struct vxlan_priv *v, uint64_t key,
		      uint64_t *word)
{
	unsigned int b = vxlan_bucket(v, key), i;

	for (i = b; i < b + VXLAN_WAYS; i++) {
		uint64_t w = __atomic_load_n(&v->mac[i], __ATOMIC_ACQUIRE);

		if ((w & VX_W_VALID) && (w & VX_W_MAC) == key) {
			*word = w;
			return (int)i;
		}
	}
	return -1;
}

/**
 * vxlan_free_slot() - a free way in a key's bucket
 * @v:		port state
 * @key:	vxlan_mac_key()
 * Return: the slot, or -1 if the bucket is full
 *
 * Context: under @v->lock
 */
static int vxlan_free_slot(struct vxlan_priv *v, uint64_t key)
	REQUIRES(v->lock)
{
	unsigned int b = vxlan_bucket(v, key), i;

	for (i = b; i < b + VXLAN_WAYS; i++)
		if (!(v->mac[i] & VX_W_VALID))
			return (int)i;
	return -1;
}

/**
 * vxlan_sa_same() - whether two underlay addresses are one host
 * @a:		an address
 * @b:		another, of the port's family
 * Return: true if their IP addresses are equal (ports are not compared:
 *	   a sender's source port is its flow entropy)
 */
static bool vxlan_sa_same(const union vxlan_sa *a, const union vxlan_sa *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET)
		return a->in4.sin_addr.s_addr == b->in4.sin_addr.s_addr;
	return !memcmp(&a->in6.sin6_addr, &b->in6.sin6_addr,
		       sizeof(a->in6.sin6_addr));
}

/**
 * vxlan_vtep_find() - the live VTEP at an address
 * @v:		port state
 * @sa:		address
 * Return: its index, or -1
 *
 * Context: any thread
 */
static int vxlan_vtep_find(const struct vxlan_priv *v,
			   const union vxlan_sa *sa)
{
	unsigned int i;

	for (i = 0; i < VXLAN_VTEPS; i++)
		if (__atomic_load_n(&v->vtep[i].live, __ATOMIC_ACQUIRE) == 1 &&
		    vxlan_sa_same(&v->vtep[i].sa, sa))
			return (int)i;
	return -1;
}

/**
 * vxlan_sa_set() - an underlay address from an IP and the port
 * @sa:		out
 * @ip:		the IP
 * @port:	UDP port, host order
 * Return: the address's length
 */
static socklen_t vxlan_sa_set(union vxlan_sa *sa, const struct port_ip *ip,
			      unsigned int port)
{
	memset(sa, 0, sizeof(*sa));
	if (ip->family == AF_INET) {
		sa->in4.sin_family = AF_INET;
		sa->in4.sin_port = htons((uint16_t)port);
		memcpy(&sa->in4.sin_addr, ip->a, 4);
		return sizeof(sa->in4);
	}
	sa->in6.sin6_family = AF_INET6;
	sa->in6.sin6_port = htons((uint16_t)port);
	memcpy(&sa->in6.sin6_addr, ip->a, 16);
	return sizeof(sa->in6);
}

/* vxlan_sa_ip() - an underlay address's IP bytes, network order */
static const uint8_t *vxlan_sa_ip(const union vxlan_sa *sa)
{
	return sa->sa.sa_family == AF_INET ?
	       (const uint8_t *)&sa->in4.sin_addr :
	       (const uint8_t *)&sa->in6.sin6_addr;
}

/**
 * vxlan_sa_str() - an underlay address's IP as text
 * @sa:		address
 * @buf:	out, INET6_ADDRSTRLEN bytes
 * Return: @buf
 */
static const char *vxlan_sa_str(const union vxlan_sa *sa, char *buf)
{
	if (!inet_ntop(sa->sa.sa_family, vxlan_sa_ip(sa), buf,
		       INET6_ADDRSTRLEN))
		snprintf(buf, INET6_ADDRSTRLEN, "?");
	return buf;
}

/**
 * vxlan_check() - the keys go together (port_ops @check)
 * @opts:	struct vxlan_opts, parsed
 * @given:	bit i: vxlan_opts[i] was given
 * Return: NULL, or what is wrong
 */
static const char *vxlan_check(const void *opts, uint32_t given)
{
	const struct vxlan_opts *o = opts;
	unsigned int i;

	(void)given;
	for (i = 0; i < VXLAN_REMOTES && o->remote[i].family; i++) {
		if (o->remote[i].family != o->local.family)
			return "local= and every remote= are of one address "
			       "family";
		if (!memcmp(o->remote[i].a, o->local.a, sizeof(o->local.a)))
			return "a remote= is local= itself";
	}
	if (o->local.family == AF_INET6 && o->local.a[0] == 0xff)
		return "local= is a multicast address";
	if (o->local.family == AF_INET && (o->local.a[0] & 0xf0) == 0xe0)
		return "local= is a multicast address";
	if (o->via[0] && o->remcsum)
		return "remcsum= is for the socket underlay, not via=";
	return NULL;
}

/**
 * vxlan_socket() - one underlay socket, bound
 * @p:		port (for messages)
 * @v:		port state (@salen)
 * @bindto:	address to bind
 * @rx:		the receiving socket (else a sending one, which reads
 *		nothing)
 * Return: the fd, or -errno with a log line
 */
static int vxlan_socket(struct port *p, const struct vxlan_priv *v,
			const union vxlan_sa *bindto, bool rx)
{
	static struct sock_filter drop_all[] = {
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { ARRAY_SIZE(drop_all), drop_all };
	int fd, rc, one = 1, buf = VXLAN_SOCKBUF, pmtu;
	char a[INET6_ADDRSTRLEN];

	fd = socket(bindto->sa.sa_family,
		    SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		rc = -errno;
		err("%s: vxlan socket: %s", p->name, strerror(-rc));
		return rc;
	}
	/* Never fragment a datagram: one larger than the path's MTU is an
	 * EMSGSIZE we count (RFC 7348 section 4.3).
	 */
	if (bindto->sa.sa_family == AF_INET) {
		pmtu = IP_PMTUDISC_DO;
		rc = setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &pmtu,
				sizeof(pmtu));
	} else {
		pmtu = IPV6_PMTUDISC_DO;
		rc = setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
				sizeof(one));
		if (!rc)
			rc = setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER,
					&pmtu, sizeof(pmtu));
	}
	if (!rc && !rx)
		rc = setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
				sizeof(prog));
	/* Datagrams the kernel coalesced (GRO, or a peer's UDP GSO send
	 * that crossed a veth whole) come up as one, cut here: one copy
	 * and one message for up to 64 of them.  Best effort.
	 */
	if (!rc && rx)
		setsockopt(fd, SOL_UDP, UDP_GRO, &one, sizeof(one));
	if (rc) {
		rc = -errno;
		err("%s: vxlan socket options: %s", p->name, strerror(-rc));
		close(fd);
		return rc;
	}
	/* Best effort: the system's limits may cap it. */
	setsockopt(fd, SOL_SOCKET, rx ? SO_RCVBUF : SO_SNDBUF, &buf,
		   sizeof(buf));
	if (bind(fd, &bindto->sa, v->salen) < 0) {
		rc = -errno;
		err("%s: vxlan: cannot bind %s port %u: %s", p->name,
		    vxlan_sa_str(bindto, a),
		    ntohs(bindto->sa.sa_family == AF_INET ?
			  bindto->in4.sin_port : bindto->in6.sin6_port),
		    strerror(-rc));
		close(fd);
		return rc;
	}
	return fd;
}

/**
 * vxlan_close_fds() - close every socket of the port
 * @v:		port state
 */
static void vxlan_close_fds(struct vxlan_priv *v)
{
	unsigned int i;

	if (v->fd >= 0)
		close(v->fd);
	v->fd = -1;
	for (i = 0; i < VXLAN_SRC_PORTS_MAX; i++) {
		if (v->tx[i] >= 0)
			close(v->tx[i]);
		v->tx[i] = -1;
	}
}

/**
 * vxlan_remotes() - the remote= VTEPs, the first of the table
 * @v:		port state
 * @o:		options
 */
static void vxlan_remotes(struct vxlan_priv *v, const struct vxlan_opts *o)
{
	unsigned int i;

	for (i = 0; i < VXLAN_REMOTES && o->remote[i].family; i++) {
		vxlan_sa_set(&v->vtep[i].sa, &o->remote[i], o->dstport);
		v->vtep[i].flood = true;
		v->vtep[i].live = 1;
	}
	v->nflood = i;
}

static int vxlan_open_via(struct port *p, struct vxlan_priv *v,
			  const struct vxlan_opts *o);

/**
 * vxlan_open() - bind the sockets, the remotes as VTEPs, hand the
 *		  receiving socket to a worker
 * @p:		port, priv zeroed
 * @spec:	parsed spec (struct vxlan_opts)
 * Return: 0 or -errno, with a log line
 *
 * Context: control thread, at start-up
 */
static int vxlan_open(struct port *p, const struct port_spec *spec)
{
	const struct vxlan_opts *o = port_spec_opts(spec);
	struct vxlan_priv *v = p->priv;
	union vxlan_sa local;
	unsigned int i;
	int rc;

	v->fd = -1;
	for (i = 0; i < VXLAN_SRC_PORTS_MAX; i++)
		v->tx[i] = -1;
	v->hdr[0] = htonl(VXLAN_FLAGS_I);
	v->hdr[1] = htonl(o->vni << 8);
	v->vni_word = v->hdr[1];
	v->dport = htons((uint16_t)o->dstport);
	v->mtu = o->mtu;
	v->ageing = o->ageing;
	v->vtep_max = o->vtep_max_macs;
	v->learning = o->learning;
	v->gro = o->gro;
	v->remcsum = o->remcsum;
	if (getrandom(&v->seed, sizeof(v->seed), GRND_NONBLOCK) !=
	    (ssize_t)sizeof(v->seed))
		v->seed = (uint64_t)vxlan_now() * 0x9e3779b97f4a7c15ULL ^
			  (uint64_t)(uintptr_t)v;
	vlock_init(&v->lock);

	if (o->via[0]) {
		/* Its frames enter the switch in the carrier's turns, which
		 * charge no limit of the tunnel's: refused, not ignored.
		 */
		if (spec->rx_rate && spec->rx_rate != PORT_RATE_UNSET) {
			err("%s: vxlan: rx-rate= (or rate=) is not applied to "
			    "a via= tunnel's frames: limit the ports they go "
			    "to (tx-rate=)", p->name);
			return -EINVAL;
		}
		v->salen = vxlan_sa_set(&local, &o->local, o->dstport);
		v->family = local.sa.sa_family;
		vxlan_remotes(v, o);
		rc = vxlan_open_via(p, v, o);
		if (rc)
			return rc;
		port_set_up(p, true);
		info("port %s: vxlan vni %u, %u remote(s), over %s", p->name,
		     o->vni, v->nflood, o->via);
		return 0;
	}
	v->bufs = malloc((size_t)VXLAN_RX_SLOTS * VXLAN_BUF_LEN);
	if (!v->bufs) {
		rc = -ENOMEM;
		goto err;
	}
	for (i = 0; i < VXLAN_RX_SLOTS; i++) {
		v->iovs[i].iov_base = v->bufs + (size_t)i * VXLAN_BUF_LEN;
		v->iovs[i].iov_len = VXLAN_BUF_LEN;
	}

	v->salen = vxlan_sa_set(&local, &o->local, o->dstport);
	v->family = local.sa.sa_family;
	v->fd = vxlan_socket(p, v, &local, true);
	if (v->fd < 0) {
		rc = v->fd;
		goto err;
	}
	vxlan_sa_set(&local, &o->local, 0);
	for (i = 0; i < o->src_ports; i++) {
		v->tx[i] = vxlan_socket(p, v, &local, false);
		if (v->tx[i] < 0) {
			rc = v->tx[i];
			goto err;
		}
	}
	v->ntx = o->src_ports;
	v->udp_gso = true;
	vxlan_remotes(v, o);

	rc = port_src_add(p, 0, v->fd, PORT_SRC_LEVEL);
	if (rc < 0) {
		err("%s: vxlan: cannot register with a worker: %s", p->name,
		    strerror(-rc));
		goto err;
	}
	port_set_up(p, true);
	info("port %s: vxlan vni %u, %u remote(s), %u source ports "
	     "(worker %d)", p->name, o->vni, v->nflood, v->ntx, rc);
	return 0;

err:
	vxlan_close_fds(v);
	free(v->bufs);
	v->bufs = NULL;
	return rc;
}

/**
 * vxlan_close() - undo vxlan_open() (port out of forwarding, quiesced)
 * @p:		port
 */
static void vxlan_close(struct port *p)
{
	struct vxlan_priv *v = p->priv;

	if (v->via) {
		v->via->ops->ul_detach(v->via);
		v->via = NULL;
	}
	port_src_del(p, 0);
	vxlan_close_fds(v);
	free(v->bufs);
	v->bufs = NULL;
}

/**
 * vxlan_rx_begin() - a turn begins: nothing to take
 * @p:		port
 * @q:		queue (0)
 * @turn:	the turn
 * Return: true while the socket is open
 */
static bool vxlan_rx_begin(struct port *p, uint32_t q, struct port_turn *turn)
{
	(void)turn;
	return q == 0 && ((struct vxlan_priv *)p->priv)->fd >= 0;
}

/**
 * vxlan_learn() - the inner source MAC of a frame from VTEP @vt
 * @p:		port
 * @v:		port state
 * @mac:	the source MAC (a station address)
 * @vt:		the VTEP it came from
 * @now:	vxlan_now()
 * Return: false if the MAC is statically bound to another VTEP (the
 *	   frame is spoofed), true otherwise (learned or not)
 *
 * Context: the worker reading the socket
 */
static bool vxlan_learn(struct port *p, struct vxlan_priv *v,
			const uint8_t *mac, unsigned int vt, uint32_t now)
{
	uint64_t key = vxlan_mac_key(mac), w = 0;
	int s = vxlan_find(v, key, &w);

	if (s >= 0) {
		if (VX_W_VTEP(w) == vt) {
			if (!(w & VX_W_STATIC) &&
			    __atomic_load_n(&v->age[s], __ATOMIC_RELAXED) != now)
				__atomic_store_n(&v->age[s], now,
						 __ATOMIC_RELAXED);
			return true;
		}
		if (w & VX_W_STATIC)
			return false;
	}
	if (!v->learning)
		return true;

	vlock_lock(&v->lock);
	s = vxlan_find(v, key, &w);		/* again, under the lock */
	if (s >= 0 && (w & VX_W_STATIC)) {
		vlock_unlock(&v->lock);
		return VX_W_VTEP(w) == vt;
	}
	if (s >= 0 && VX_W_VTEP(w) == vt)
		goto out;
	if (v->vtep[vt].learned >= v->vtep_max) {
		stats_add(vxlan_ctr(p, VX_C_LEARN_LIMIT), 1);
		goto out;
	}
	if (s >= 0) {
		v->vtep[VX_W_VTEP(w)].learned--;
		stats_add(vxlan_ctr(p, VX_C_MOVES), 1);
	} else {
		s = vxlan_free_slot(v, key);
		if (s < 0) {
			stats_add(&port_ctr(p)->learn_refused[STATS_LEARN_FULL],
				  1);
			goto out;
		}
	}
	v->vtep[vt].learned++;
	__atomic_store_n(&v->age[s], now, __ATOMIC_RELAXED);
	__atomic_store_n(&v->mac[s], VX_W_VALID | (uint64_t)vt << 48 | key,
			 __ATOMIC_RELEASE);
out:
	vlock_unlock(&v->lock);
	return true;
}

/**
 * struct vxlan_carried - what a carrier's interface said of a datagram's
 *			  frame (a TAP's, via=)
 * @vnet:	its offload metadata
 * @off:	the datagram's offset in the frame
 */
struct vxlan_carried {
	const struct virtio_net_hdr_v1 *vnet;
	size_t off;
};

/**
 * vxlan_carried_meta() - a carried frame's offloads, as its inner frame's
 * @c:		the carrier's word on it
 * @f:		the inner frame
 * @flen:	its length
 * @pkt:	its descriptor: @vnet and @src_feat set if anything is left
 *		to do for the inner frame, else untouched
 * @seg:	out: the longest frame on a wire it stands for (a GSO
 *		frame's first segment), for the MTU check
 * Return: 0, or a drop reason
 *
 * The kernel forwarding a UDP tunnel GSO frame to a TAP hands it whole
 * (gso_type UDP_TUNNEL_IPV4/6 and the inner type, the checksum fields
 * the inner transport's, offsets from the outer frame's start): the
 * inner frame goes on as the TSO frame it was, the kernel's to vouch
 * for.  A checksum left partial in the outer UDP header leaves the
 * inner frame complete.
 */
static int vxlan_carried_meta(const struct vxlan_carried *c, const uint8_t *f,
			      size_t flen, struct pkt *pkt, size_t *seg)
{
	const struct virtio_net_hdr_v1 *cv = c->vnet;
	uint8_t tnl = cv->gso_type & (VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4 |
				      VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6);
	uint8_t gt = (uint8_t)(cv->gso_type & ~tnl);
	size_t ioff = c->off + VXLAN_HLEN, l4, l4h, gs;
	size_t cs = le16toh(cv->csum_start), co = le16toh(cv->csum_offset);

	*seg = flen;
	if (!(cv->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) || cs < ioff)
		/* Checked, or the outer checksum is what is left: the
		 * inner frame is whole; a GSO frame cannot be.
		 */
		return cv->gso_type == VIRTIO_NET_HDR_GSO_NONE ? 0 :
		       STATS_DROP_OFFLOAD;
	l4 = cs - ioff;
	if (l4 < ETH_HLEN || l4 + co + 2 > flen)
		return STATS_DROP_BAD_DESC;
	memset(&pkt->vnet, 0, sizeof(pkt->vnet));
	pkt->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	pkt->vnet.csum_start = htole16((uint16_t)l4);
	pkt->vnet.csum_offset = htole16((uint16_t)co);
	pkt->src_feat = 1ULL << VIRTIO_NET_F_CSUM;
	if (cv->gso_type == VIRTIO_NET_HDR_GSO_NONE)
		return 0;
	if (!tnl)
		return STATS_DROP_OFFLOAD;
	switch (gt & ~VIRTIO_NET_HDR_GSO_ECN) {
	case VIRTIO_NET_HDR_GSO_TCPV4:
	case VIRTIO_NET_HDR_GSO_TCPV6:
		if (co != ETH_TCP_OFF_CSUM || l4 + ETH_TCP_HLEN_MIN > flen)
			return STATS_DROP_BAD_DESC;
		l4h = (size_t)(f[l4 + ETH_TCP_OFF_DOFF] >> 4) * 4;
		break;
	case VIRTIO_NET_HDR_GSO_UDP_L4:
		if (co != ETH_UDP_OFF_CSUM)
			return STATS_DROP_BAD_DESC;
		l4h = ETH_UDP_HLEN;
		break;
	default:
		return STATS_DROP_OFFLOAD;
	}
	gs = le16toh(cv->gso_size);
	if (!gs || l4h < ETH_UDP_HLEN || l4 + l4h > flen)
		return STATS_DROP_BAD_DESC;
	pkt->vnet.gso_type = gt;
	pkt->vnet.gso_size = cv->gso_size;
	pkt->vnet.hdr_len = htole16((uint16_t)(l4 + l4h));
	pkt->src_feat |= 1ULL << VIRTIO_NET_F_HOST_TSO4 |
			 1ULL << VIRTIO_NET_F_HOST_TSO6 |
			 1ULL << VIRTIO_NET_F_HOST_ECN |
			 1ULL << VIRTIO_NET_F_HOST_USO;
	*seg = MIN(flen, l4 + l4h + gs);
	return 0;
}

/**
 * vxlan_decap() - one datagram: its frame, if it is a good one
 * @p:		port
 * @v:		port state
 * @buf:	the datagram
 * @len:	its length (never truncated: the caller drops those)
 * @src:	its source
 * @srclen:	the source's length
 * @now:	vxlan_now()
 * @pkt:	out: the inner frame, in place
 * @vtp:	out: the VTEP it came from
 * @cm:		what the carrier's interface said of it (via= a TAP), or
 *		NULL
 * Return: 0 with @pkt and @vtp set, else the drop reason (enum
 *	   stats_drop), counted here by its VXLAN reason
 *
 * Context: the reading worker, or with via= any of the carrier's: @last
 * is a hint, read and written relaxed
 */
static int vxlan_decap(struct port *p, struct vxlan_priv *v, uint8_t *buf,
		       size_t len, const union vxlan_sa *src,
		       socklen_t srclen, uint32_t now, struct pkt *pkt,
		       unsigned int *vtp, const struct vxlan_carried *cm)
{
	uint32_t hdr[2];
	const uint8_t *smac;
	unsigned int vt = __atomic_load_n(&v->last, __ATOMIC_RELAXED);
	size_t flen, l3, seg;
	int i, why;

	if (srclen < v->salen || src->sa.sa_family != v->family)
		goto foreign;
	if (__atomic_load_n(&v->vtep[vt].live, __ATOMIC_ACQUIRE) != 1 ||
	    !vxlan_sa_same(&v->vtep[vt].sa, src)) {
		i = vxlan_vtep_find(v, src);
		if (i < 0)
			goto foreign;
		vt = (unsigned int)i;
		__atomic_store_n(&v->last, vt, __ATOMIC_RELAXED);
	}
	*vtp = vt;
	__atomic_store_n(&v->vtep[vt].rx,
			 __atomic_load_n(&v->vtep[vt].rx, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);

	if (len < VXLAN_HLEN + ETH_HLEN) {
		stats_add(vxlan_ctr(p, VX_C_BAD_HEADER), 1);
		return STATS_DROP_RUNT;
	}
	if (len - VXLAN_HLEN > PKT_FRAME_MAX)
		return STATS_DROP_TOO_BIG;
	memcpy(hdr, buf, sizeof(hdr));
	if (hdr[0] != htonl(VXLAN_FLAGS_I) &&
	    (!v->remcsum || hdr[0] != htonl(VXLAN_FLAGS_I | VXLAN_FLAGS_RCO))) {
		stats_add(vxlan_ctr(p, VX_C_BAD_HEADER), 1);
		return STATS_DROP_BAD_DESC;
	}
	if ((hdr[1] & htonl(0xffffff00U)) != v->vni_word) {
		stats_add(vxlan_ctr(p, VX_C_BAD_VNI), 1);
		return STATS_DROP_BAD_DESC;
	}

	flen = len - VXLAN_HLEN;
	memcpy(&pkt->eth, buf + VXLAN_HLEN, ETH_HLEN);
	smac = pkt->eth.h_source;
	if ((smac[0] & 1) || !(smac[0] | smac[1] | smac[2] | smac[3] |
			       smac[4] | smac[5]))
		return STATS_DROP_SPOOFED;
	memset(&pkt->vnet, 0, sizeof(pkt->vnet));
	pkt->src_feat = 0;	/* the wire carries no offload metadata */
	seg = flen;
	if (cm) {
		why = vxlan_carried_meta(cm, buf + VXLAN_HLEN, flen, pkt, &seg);
		if (why) {
			stats_add(vxlan_ctr(p, VX_C_BAD_HEADER), 1);
			return why;
		}
	}
	l3 = seg - ETH_HLEN;
	if (pkt->eth.h_proto == htons(ETH_P_8021Q) && l3 >= 4)
		l3 -= 4;
	if (l3 > v->mtu) {
		stats_add(vxlan_ctr(p, VX_C_MTU_INNER), 1);
		return STATS_DROP_TOO_BIG;
	}
	if (!vxlan_learn(p, v, smac, vt, now))
		return STATS_DROP_SPOOFED;

	if ((hdr[0] & htonl(VXLAN_FLAGS_RCO)) && !pkt->vnet.flags) {
		/* The sender left the inner checksum to us, its field the
		 * pseudo-header sum: it goes on as NEEDS_CSUM, its bytes
		 * vouched for by the outer UDP checksum the kernel verified.
		 */
		uint32_t rco = ntohl(hdr[1]) & 0xffU;
		uint32_t start = (rco & ~VXLAN_RCO_UDP) << 1;
		uint32_t off = rco & VXLAN_RCO_UDP ? ETH_UDP_OFF_CSUM :
			       ETH_TCP_OFF_CSUM;

		if (start < ETH_HLEN || start + off + 2 > flen) {
			stats_add(vxlan_ctr(p, VX_C_BAD_HEADER), 1);
			return STATS_DROP_BAD_DESC;
		}
		pkt->vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		pkt->vnet.csum_start = htole16((uint16_t)start);
		pkt->vnet.csum_offset = htole16((uint16_t)off);
		pkt->src_feat = 1ULL << VIRTIO_NET_F_CSUM;
		stats_add(vxlan_ctr(p, VX_C_RCO_RX), 1);
	}
	pkt->len = (uint32_t)flen;
	pkt->iovcnt = 1;
	pkt->iov[0].iov_base = buf + VXLAN_HLEN;
	pkt->iov[0].iov_len = flen;
	return 0;

foreign:
	stats_add(&port_ctr(p)->peer_refused, 1);
	return STATS_DROP_SPOOFED;
}

/**
 * vxlan_fetch() - one recvmmsg() into the slots from @start on
 * @p:		port
 * @v:		port state (@rxq becomes the new batch)
 * @start:	first slot, with room for PORT_BURST after it or less
 * Return: messages received, 0 if none (the socket is dry, or failed)
 */
static unsigned int vxlan_fetch(struct port *p, struct vxlan_priv *v,
				unsigned int start)
{
	unsigned int i, want = MIN((unsigned int)PORT_BURST,
				   VXLAN_RX_SLOTS - start);
	int r;

	for (i = start; i < start + want; i++) {
		struct msghdr *m = &v->msgs[i].msg_hdr;

		m->msg_name = &v->src[i];
		m->msg_namelen = sizeof(v->src[i]);
		m->msg_iov = &v->iovs[i];
		m->msg_iovlen = 1;
		m->msg_control = v->ctl[i].buf;
		m->msg_controllen = sizeof(v->ctl[i].buf);
		m->msg_flags = 0;
	}
	r = want ? recvmmsg(v->fd, &v->msgs[start], want, MSG_DONTWAIT, NULL) :
		   0;
	if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
	    errno != EINTR && errno != ECONNREFUSED)
		stats_add(&port_ctr(p)->drops[STATS_DROP_IO_ERROR], 1);
	v->rxq.base = start;
	v->rxq.got = r > 0 ? (unsigned int)r : 0;
	v->rxq.mi = 0;
	v->rxq.off = 0;
	v->rxq.drained = want && r < (int)want;
	return v->rxq.got;
}

/**
 * vxlan_seg_size() - the datagram size of a received message
 * @m:		the message
 * Return: UDP GRO's segment size if the kernel joined datagrams into
 *	   it, else its length: one datagram
 */
static size_t vxlan_seg_size(const struct mmsghdr *m)
{
	const struct msghdr *h = &m->msg_hdr;
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR((struct msghdr *)h, c))
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO &&
		    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int gs;

			memcpy(&gs, CMSG_DATA(c), sizeof(gs));
			if (gs > 0 && (size_t)gs < m->msg_len)
				return (size_t)gs;
		}
	return m->msg_len;
}

/**
 * vxlan_rx_burst() - up to @max frames from the socket, in place
 * @p:		port
 * @q:		queue (0)
 * @pkts:	out: frames for the switch, in the port's buffers
 * @max:	room in @pkts
 * @turn:	datagrams taken (dropped ones too) added to @turn->done;
 *		@turn->dry set when the socket ran out
 *
 * Messages come in batches of one recvmmsg(); with UDP_GRO a message is
 * many datagrams of one size, so a batch may hold more frames than
 * @max: what is left waits in @v->rxq for the next burst (a turn that
 * ends early gets another at once: this burst did work), never for the
 * socket, which has nothing more to say about it.  While the burst's
 * last frame is a TCP frame still joining segments and there is room,
 * the next batch is read at once into the slots after this one.
 *
 * Context: the worker owning the queue; the buffers are reused by a
 * later burst (every destination copies).
 * Return: frames in @pkts
 */
static unsigned int vxlan_rx_burst(struct port *p, uint32_t q,
				   struct pkt **pkts, unsigned int max,
				   struct port_turn *turn)
{
	unsigned int drops[STATS_DROP_COUNT] = { 0 }, i, taken = 0;
	struct vxlan_priv *v = p->priv;
	struct port_sink s = {
		.pkts = v->pkts, .out = pkts, .flow = &v->flow,
		.gro_hdr = v->gro_hdr, .open = -1, .gro = v->gro,
		.ctr = VX_C_GRO_JOINED,
	};
	uint32_t now = vxlan_now();
	bool fetched = false;
	unsigned int vt;
	int why;

	(void)q;
	max = MIN(max, (unsigned int)PORT_BURST);
	while (s.n < max) {
		unsigned int slot;
		struct mmsghdr *m;
		size_t seg, len;
		uint8_t *buf;

		if (v->rxq.mi == v->rxq.got) {
			/* Nothing pending: read a batch, after the slots this
			 * burst's frames are in; a second one only to let a
			 * joining TCP frame grow.
			 */
			if (fetched && (v->rxq.drained || s.open < 0 ||
					!v->flow.open))
				break;
			if (!vxlan_fetch(p, v, fetched || taken ?
					 v->rxq.base + v->rxq.got : 0))
				break;
			fetched = true;
		}
		slot = v->rxq.base + v->rxq.mi;
		m = &v->msgs[slot];
		buf = v->iovs[slot].iov_base;
		if (m->msg_hdr.msg_flags & MSG_TRUNC) {
			drops[STATS_DROP_TOO_BIG]++;
			taken++;
			v->rxq.mi++;
			v->rxq.off = 0;
			continue;
		}
		/* The message's next datagram (UDP GRO: one of many). */
		seg = vxlan_seg_size(m);
		len = MIN(seg, (size_t)m->msg_len - v->rxq.off);
		buf += v->rxq.off;
		v->rxq.off += len;
		if (v->rxq.off >= m->msg_len) {
			v->rxq.mi++;
			v->rxq.off = 0;
		}
		taken++;

		why = vxlan_decap(p, v, buf, len, &v->src[slot],
				  m->msg_hdr.msg_namelen, now, &v->pkts[s.n],
				  &vt, NULL);
		if (why) {
			drops[why]++;
			continue;
		}
		/* Consecutive segments of one TCP flow join the frame
		 * before them (net/gro.h): the switch and the guest get one
		 * frame.
		 */
		port_sink_take(&s, buf + VXLAN_HLEN);
	}
	port_sink_end(&s, p);
	if (v->rxq.mi == v->rxq.got && v->rxq.drained)
		turn->dry = true;	/* level-triggered: back if more */
	for (i = 0; i < STATS_DROP_COUNT; i++)
		if (drops[i])
			stats_add(&port_ctr(p)->drops[i], drops[i]);
	turn->done += taken;
	if (!s.n && !taken)
		turn->dry = true;
	return s.n;
}

/**
 * vxlan_rx_end() - a turn ends: nothing to publish
 * @p:		port
 * @q:		queue
 * @turn:	the turn
 */
static void vxlan_rx_end(struct port *p, uint32_t q, struct port_turn *turn)
{
	(void)p;
	(void)q;
	(void)turn;
}

/**
 * struct vxlan_tx - one xmit's datagrams on their way to sendmmsg()
 * @msg:	the batch; a flooded datagram's copies share one @iov
 * @frame:	the frame (index in the xmit) each message carries
 * @iov:	per message slot: header, then the datagram's pieces
 * @hdr:	per message slot: a segment's rebuilt headers, or a checksum
 * @vxh:	per message slot: its VXLAN header when it is not the
 *		port's (remote checksum offload: the checksum's place in it)
 * @n:		messages in the batch
 * @fd:		the socket they leave from
 * @why:	per frame of the xmit: the first drop reason, 0 if none
 * @mtu_under:	datagrams refused for the underlay's MTU
 * @gso_refused: a UDP_SEGMENT send was refused as such (EIO, EINVAL)
 * @giov:	a UDP GSO send's one piece, @gbuf
 * @gbuf:	its datagrams end to end, each its VXLAN header and a
 *		segment copied with its checksum finished (gso_next_flat():
 *		the payload is read once, to copy and sum it)
 * @gctl:	the send's control message (UDP_SEGMENT, its size)
 */
struct vxlan_tx {
	struct mmsghdr msg[VXLAN_BATCH];
	uint8_t frame[VXLAN_BATCH];
	struct iovec iov[VXLAN_BATCH][VXLAN_IOV];
	uint8_t hdr[VXLAN_BATCH][GSO_HDR_MAX];
	uint32_t vxh[VXLAN_BATCH][2];
	unsigned int n;
	int fd;
	uint8_t why[PORT_BURST];
	unsigned int mtu_under;
	bool gso_refused;
	struct iovec giov[1];
	uint8_t gbuf[VXLAN_BUF_LEN];
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} gctl;
};

/**
 * vxlan_errno_why() - a failed send's drop reason
 * @e:		errno
 * Return: enum stats_drop
 */
static int vxlan_errno_why(int e)
{
	switch (e) {
	case EAGAIN:
	case ENOBUFS:
		return STATS_DROP_NO_BUFFER;
	case EMSGSIZE:
		return STATS_DROP_TOO_BIG;
	case ECONNREFUSED:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case EHOSTDOWN:
	case ENETDOWN:
		return STATS_DROP_PORT_DOWN;
	default:
		return STATS_DROP_IO_ERROR;
	}
}

/**
 * vxlan_flush() - send the batch
 * @v:		port state
 * @t:		the batch, empty afterwards
 */
static void vxlan_flush(struct vxlan_priv *v, struct vxlan_tx *t)
{
	unsigned int i = 0, k, tries = 0;
	int r;

	(void)v;
	while (i < t->n) {
		r = sendmmsg(t->fd, &t->msg[i], t->n - i,
			     MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0 && errno == EINTR && ++tries < 3)
			continue;
		if (r > 0) {
			for (k = i; k < i + (unsigned int)r; k++) {
				struct vxlan_vtep *vt = container_of(
					(union vxlan_sa *)
					t->msg[k].msg_hdr.msg_name,
					struct vxlan_vtep, sa);

				__atomic_fetch_add(&vt->tx, 1,
						   __ATOMIC_RELAXED);
			}
			i += (unsigned int)r;
			continue;
		}
		/* The message at @i failed (sendmmsg() reports the first
		 * failure only): count it against its frame, go on.
		 */
		if (!t->why[t->frame[i]])
			t->why[t->frame[i]] = (uint8_t)vxlan_errno_why(errno);
		if (errno == EMSGSIZE)
			t->mtu_under++;
		if (t->msg[i].msg_hdr.msg_control &&
		    (errno == EIO || errno == EINVAL || errno == ENOPROTOOPT))
			t->gso_refused = true;
		i++;
	}
	t->n = 0;
}

/**
 * vxlan_room() - make room in the batch for a datagram's @nt copies
 * @v:		port state
 * @t:		the batch
 * @nt:		copies to come, at most VXLAN_BATCH (one, or a copy per
 *		remote=)
 */
static void vxlan_room(struct vxlan_priv *v, struct vxlan_tx *t,
		       unsigned int nt)
{
	if (t->n + nt > VXLAN_BATCH)
		vxlan_flush(v, t);
}

/**
 * vxlan_queue() - one datagram of frame @f to its VTEPs
 * @v:		port state
 * @t:		the batch, with room for @nt messages (vxlan_room()): slot
 *		@t->n holds the datagram, its @iov from index 1 on (@cnt
 *		pieces), maybe pointing into its @hdr; the copies share it
 * @vxh:	its VXLAN header (8 bytes, kept until the batch is sent)
 * @cnt:	pieces after the VXLAN header
 * @f:		the frame's index in the xmit
 * @targets:	VTEP indexes, @nt of them
 * @nt:		how many
 */
static void vxlan_queue(struct vxlan_priv *v, struct vxlan_tx *t,
			const uint32_t *vxh, unsigned int cnt, unsigned int f,
			const uint8_t *targets, unsigned int nt)
{
	struct iovec *iov = t->iov[t->n];
	unsigned int k;

	iov[0].iov_base = (void *)(uintptr_t)vxh;
	iov[0].iov_len = VXLAN_HLEN;
	for (k = 0; k < nt; k++) {
		struct msghdr *m = &t->msg[t->n].msg_hdr;

		memset(m, 0, sizeof(*m));
		m->msg_name = &v->vtep[targets[k]].sa;
		m->msg_namelen = v->salen;
		m->msg_iov = iov;
		m->msg_iovlen = cnt + 1;
		t->frame[t->n] = (uint8_t)f;
		t->n++;
	}
}

/**
 * vxlan_targets() - the VTEPs a frame goes to
 * @v:		port state
 * @pkt:	the frame
 * @out:	VTEP indexes, room for VXLAN_VTEPS
 * Return: how many; 0 if none (no remote= to flood to)
 *
 * Context: any worker, no lock
 */
static unsigned int vxlan_targets(const struct vxlan_priv *v,
				  const struct pkt *pkt, uint8_t *out)
{
	const uint8_t *dst = pkt->eth.h_dest;
	unsigned int i, n = 0;
	uint64_t w;

	if (!(dst[0] & 1) && vxlan_find(v, vxlan_mac_key(dst), &w) >= 0 &&
	    __atomic_load_n(&v->vtep[VX_W_VTEP(w)].live,
			    __ATOMIC_ACQUIRE) == 1) {
		out[0] = (uint8_t)VX_W_VTEP(w);
		return 1;
	}
	for (i = 0; i < v->nflood; i++)
		out[n++] = (uint8_t)i;
	return n;
}

/**
 * vxlan_l3_len() - a frame's length past its Ethernet header and one tag
 * @pkt:	frame
 * @len:	its length (or a segment's)
 * Return: what the inner MTU limits
 */
static size_t vxlan_l3_len(const struct pkt *pkt, size_t len)
{
	size_t l3 = len - MIN(len, (size_t)ETH_HLEN);

	if (pkt->eth.h_proto == htons(ETH_P_8021Q) && l3 >= 4)
		l3 -= 4;
	return l3;
}

/**
 * vxlan_rco() - whether a frame leaves with its checksum to the receiver
 * @v:		port state
 * @pkt:	frame (NEEDS_CSUM validated by gso_plan())
 * @vxh:	out: its VXLAN header with the checksum's place (if true)
 * Return: true with remcsum= on and a TCP or UDP checksum the header can
 *	   describe (start even, at most 254 bytes in), as Linux's
 *	   remcsumtx decides it
 */
static bool vxlan_rco(const struct vxlan_priv *v, const struct pkt *pkt,
		      uint32_t vxh[2])
{
	uint32_t start = le16toh(pkt->vnet.csum_start);
	uint32_t off = le16toh(pkt->vnet.csum_offset);

	if (!v->remcsum || !(pkt->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) ||
	    start < ETH_HLEN || (start & 1) || start > VXLAN_RCO_START_MAX ||
	    (off != ETH_TCP_OFF_CSUM && off != ETH_UDP_OFF_CSUM) ||
	    start + off + 2 > pkt->len)
		return false;
	vxh[0] = htonl(VXLAN_FLAGS_I | VXLAN_FLAGS_RCO);
	vxh[1] = v->hdr[1] | htonl((start >> 1) | (off == ETH_UDP_OFF_CSUM ?
						   VXLAN_RCO_UDP : 0));
	return true;
}

/**
 * vxlan_train() - the next UDP GSO train of a segmented frame
 * @it:		the frame's segments (gso_init())
 * @buf:	where the train goes: datagrams end to end, each a VXLAN
 *		header and a segment
 * @room:	bytes at @buf
 * @vxh:	the VXLAN header
 * @total:	out: the train's bytes
 * @size:	out: its datagrams' size (the first's: the last may be
 *		shorter), what UDP_SEGMENT or gso_size says
 *
 * Up to VXLAN_GSO_SEGS datagrams or VXLAN_GSO_BYTES bytes; each segment
 * is copied and summed in one read of the frame (gso_next_flat()).
 *
 * Return: datagrams in the train, 0 when the frame is done, -1 on error
 */
static int vxlan_train(struct gso_iter *it, uint8_t *buf, size_t room,
		       const uint32_t *vxh, size_t *total, size_t *size)
{
	unsigned int segs = 0;
	struct gso_seg seg;
	int n;

	*total = 0;
	while (segs < VXLAN_GSO_SEGS &&
	       (!segs || *total + *size <= VXLAN_GSO_BYTES)) {
		uint8_t *d = buf + *total;

		n = gso_next_flat(it, d + VXLAN_HLEN,
				  room - *total - VXLAN_HLEN, &seg);
		if (n < 0)
			return -1;
		if (!n)
			break;
		if (!segs)
			*size = VXLAN_HLEN + seg.len;
		memcpy(d, vxh, VXLAN_HLEN);
		*total += VXLAN_HLEN + seg.len;
		segs++;
	}
	return (int)segs;
}

/**
 * vxlan_gso() - a segmented frame's datagrams in UDP GSO sends
 * @p:		port
 * @v:		port state
 * @t:		the batch (flushed first: its GSO buffers are one send's)
 * @pkt:	frame
 * @f:		its index in the xmit
 * @targets:	its VTEPs
 * @nt:		how many
 * Return: 0, or the drop reason
 *
 * The segments are laid end to end, each behind its VXLAN header, as
 * datagrams of one size (the last may be shorter): the kernel cuts them
 * at that size (UDP_SEGMENT), late, often not before the wire or never
 * (a veth to a GRO reader).  One send takes as many as fit 64 KiB, so a
 * 64 KiB TSO frame is two sends per VTEP instead of 45 datagrams.  The
 * datagrams are built in one flat buffer (gso_next_flat(): the payload
 * read once, to copy and checksum it), so the kernel copies one piece
 * per send instead of three per datagram.
 */
static int vxlan_gso(struct port *p, struct vxlan_priv *v, struct vxlan_tx *t,
		     const struct pkt *pkt, unsigned int f,
		     const uint8_t *targets, unsigned int nt)
{
	uint32_t rco[2];
	const uint32_t *vxh = vxlan_rco(v, pkt, rco) ? rco : v->hdr;
	struct gso_iter it;
	size_t size = 0, total;
	bool first = true;
	int segs;

	/* With remote checksum offload the segments keep the pseudo-header
	 * sum (partial) and the payload is only copied.
	 */
	if (gso_init(&it, pkt, vxh == rco))
		return STATS_DROP_OFFLOAD;
	for (;;) {
		struct cmsghdr *c;
		unsigned int k;
		uint16_t gs;

		if (t->n)
			vxlan_flush(v, t);
		segs = vxlan_train(&it, t->gbuf, sizeof(t->gbuf), vxh, &total,
				   &size);
		if (segs < 0)
			return STATS_DROP_OFFLOAD;
		if (!segs)
			break;
		/* The first datagram is the largest */
		if (first && vxlan_l3_len(pkt, size - VXLAN_HLEN) > v->mtu) {
			stats_add(vxlan_ctr(p, VX_C_MTU_INNER), 1);
			return STATS_DROP_TOO_BIG;
		}
		first = false;
		t->giov[0].iov_base = t->gbuf;
		t->giov[0].iov_len = total;

		gs = (uint16_t)size;
		c = (struct cmsghdr *)t->gctl.buf;
		c->cmsg_level = SOL_UDP;
		c->cmsg_type = UDP_SEGMENT;
		c->cmsg_len = CMSG_LEN(sizeof(gs));
		memcpy(CMSG_DATA(c), &gs, sizeof(gs));
		for (k = 0; k < nt; k++) {
			struct msghdr *m = &t->msg[t->n].msg_hdr;

			memset(m, 0, sizeof(*m));
			m->msg_name = &v->vtep[targets[k]].sa;
			m->msg_namelen = v->salen;
			m->msg_iov = t->giov;
			m->msg_iovlen = 1;
			if (segs > 1) {
				m->msg_control = t->gctl.buf;
				m->msg_controllen = sizeof(t->gctl.buf);
			}
			t->frame[t->n] = (uint8_t)f;
			t->n++;
		}
		vxlan_flush(v, t);
	}
	return 0;
}

/**
 * vxlan_frame() - queue one frame's datagrams, its offloads finished
 * @p:		port
 * @v:		port state
 * @t:		the batch
 * @pkt:	frame (read, never written)
 * @f:		its index in the xmit
 * Return: 0, or the drop reason (nothing queued, or what was queued of
 *	   a segmented frame stays queued)
 */
static int vxlan_frame(struct port *p, struct vxlan_priv *v,
		       struct vxlan_tx *t, const struct pkt *pkt,
		       unsigned int f)
{
	uint8_t targets[VXLAN_VTEPS];
	uint32_t res_vxh[2];
	struct gso_csum res;
	struct gso_iter it;
	struct gso_seg seg;
	unsigned int nt, fd;
	bool rco;
	struct iovec *iov;
	int a, b, n;

	if (pkt->iovcnt > PKT_IOV_MAX || pkt->len > PKT_FRAME_MAX ||
	    pkt->len < ETH_HLEN)
		return STATS_DROP_TOO_BIG;
	nt = vxlan_targets(v, pkt, targets);
	if (!nt) {
		stats_add(vxlan_ctr(p, VX_C_NO_VTEP), 1);
		return STATS_DROP_PORT_DOWN;
	}
	if (nt > 1 || (pkt->eth.h_dest[0] & 1))
		stats_add(vxlan_ctr(p, VX_C_FLOOD), nt);

	/* One flow, one source port: the underlay keeps it in order. */
	fd = v->ntx > 1 ? pkt_flow_hash(pkt) % v->ntx : 0;
	if (t->n && t->fd != v->tx[fd])
		vxlan_flush(v, t);
	t->fd = v->tx[fd];

	vxlan_room(v, t, nt);
	iov = t->iov[t->n];
	if (!pkt->vnet.flags && pkt->vnet.gso_type == VIRTIO_NET_HDR_GSO_NONE)
		goto pass;
	switch (gso_plan(pkt, pkt->src_feat, 0)) {
	case GSO_ACT_PASS:
		goto pass;
	case GSO_ACT_CSUM:
		if (vxlan_l3_len(pkt, pkt->len) > v->mtu)
			goto mtu;
		if (vxlan_rco(v, pkt, t->vxh[t->n])) {
			memcpy(iov + 1, pkt->iov,
			       pkt->iovcnt * sizeof(iov[0]));
			vxlan_queue(v, t, t->vxh[t->n], pkt->iovcnt, f,
				    targets, nt);
			return 0;
		}
		/* Up to the checksum, the checksum from the slot, the rest:
		 * the source is never written.
		 */
		if (gso_csum_fill(&pkt->vnet, pkt->iov, pkt->iovcnt, pkt->len,
				  &res))
			return STATS_DROP_OFFLOAD;
		a = iov_slice(pkt->iov, pkt->iovcnt, 0, res.off, iov + 1,
			      PKT_IOV_MAX);
		if (a < 0)
			return STATS_DROP_OFFLOAD;
		memcpy(t->hdr[t->n], &res.csum, sizeof(res.csum));
		iov[1 + a].iov_base = t->hdr[t->n];
		iov[1 + a].iov_len = sizeof(res.csum);
		b = iov_slice(pkt->iov, pkt->iovcnt, res.off + sizeof(res.csum),
			      pkt->len - res.off - sizeof(res.csum),
			      &iov[2 + a], PKT_IOV_MAX + 1 - (unsigned int)a);
		if (b < 0)
			return STATS_DROP_OFFLOAD;
		vxlan_queue(v, t, v->hdr, (unsigned int)(a + 1 + b), f,
			    targets, nt);
		return 0;
	case GSO_ACT_SEGMENT:
		if (__atomic_load_n(&v->udp_gso, __ATOMIC_RELAXED))
			return vxlan_gso(p, v, t, pkt, f, targets, nt);
		rco = vxlan_rco(v, pkt, res_vxh);
		if (gso_init(&it, pkt, rco))
			return STATS_DROP_OFFLOAD;
		for (;;) {
			vxlan_room(v, t, nt);
			iov = t->iov[t->n];
			memcpy(t->vxh[t->n], rco ? res_vxh : v->hdr,
			       sizeof(res_vxh));
			n = gso_next(&it, t->hdr[t->n], iov + 1, VXLAN_IOV - 1,
				     &seg);
			if (n <= 0)
				break;
			if (vxlan_l3_len(pkt, seg.len) > v->mtu)
				goto mtu;
			vxlan_queue(v, t, t->vxh[t->n], (unsigned int)n, f,
				    targets, nt);
		}
		return n < 0 ? STATS_DROP_OFFLOAD : 0;
	default:
		return STATS_DROP_OFFLOAD;
	}

pass:
	if (vxlan_l3_len(pkt, pkt->len) > v->mtu)
		goto mtu;
	memcpy(iov + 1, pkt->iov, pkt->iovcnt * sizeof(iov[0]));
	vxlan_queue(v, t, v->hdr, pkt->iovcnt, f, targets, nt);
	return 0;
mtu:
	stats_add(vxlan_ctr(p, VX_C_MTU_INNER), 1);
	return STATS_DROP_TOO_BIG;
}

/*
 * The underlay through a carrier port (via=, net/underlay.h): vhostd
 * owns local= on the carrier's wire.  Datagrams leave as whole frames
 * written into the carrier's TX buffers: outer headers built here, the
 * inner frame (its offloads finished, each segment its own datagram)
 * copied once behind them.  A VTEP's MAC comes from ARP or ND, asked
 * once a second while unknown and again after VXLAN_NEIGH_REFRESH
 * seconds without news (never from a datagram's outer source: anyone
 * routing a forged one to us could aim the tunnel); a frame for a VTEP
 * whose MAC is not known yet is dropped (no_neigh) and the question
 * asked.  The remotes are on the carrier's link: no routing.
 */

/* vxlan_key_mac() - the MAC of a table or neighbour word */
static void vxlan_key_mac(uint64_t w, uint8_t *mac)
{
	unsigned int i;

	for (i = 0; i < 6; i++)
		mac[i] = (uint8_t)(w >> (40 - 8 * i));
}

/**
 * vxlan_put_mac() - @pre, then the MAC of a table or neighbour word as a
 *		     JSON string
 * @out:	where the command's reply goes
 * @pre:	text before it (a comma, a key)
 * @w:		the word
 */
static void vxlan_put_mac(struct port_out *out, const char *pre, uint64_t w)
{
	uint8_t m[6];

	vxlan_key_mac(w, m);
	out->put(out, "%s\"%02x:%02x:%02x:%02x:%02x:%02x\"", pre, m[0], m[1],
		 m[2], m[3], m[4], m[5]);
}

/* vxlan_ip_sa() - vxlan_sa_set() from address bytes and a port in
 * network order, as a frame carries them
 */
static void vxlan_ip_sa(union vxlan_sa *sa, sa_family_t family,
			const uint8_t *ip, uint16_t port)
{
	struct port_ip pi = { .family = family };

	memcpy(pi.a, ip, family == AF_INET ? 4 : 16);
	vxlan_sa_set(sa, &pi, ntohs(port));
}

/* vxlan_hw_set() - VTEP @e is at @mac, as ARP or ND said at @now */
static void vxlan_hw_set(struct vxlan_vtep *e, const uint8_t *mac,
			 uint32_t now)
{
	uint64_t w = VX_W_VALID | vxlan_mac_key(mac);

	if (__atomic_load_n(&e->hw, __ATOMIC_RELAXED) != w)
		__atomic_store_n(&e->hw, w, __ATOMIC_RELAXED);
	if (__atomic_load_n(&e->heard, __ATOMIC_RELAXED) != now)
		__atomic_store_n(&e->heard, now, __ATOMIC_RELAXED);
}

/**
 * vxlan_neigh() - note a neighbour an ARP or ND message taught, if it is
 *		   a VTEP
 * @v:		port state
 * @rx:		the message's findings (@neigh set)
 */
static void vxlan_neigh(struct vxlan_priv *v, const struct ul_rx *rx)
{
	union vxlan_sa sa;
	int vt;

	vxlan_ip_sa(&sa, v->family, rx->sip, 0);
	vt = vxlan_vtep_find(v, &sa);
	if (vt >= 0)
		vxlan_hw_set(&v->vtep[vt], rx->smac, vxlan_now());
}

/**
 * vxlan_ul_ctl() - one frame of the port's own (ARP, ND, echo) through
 *		    the carrier
 * @p:		port
 * @v:		port state
 * @f:		the frame; NULL: ul_echo() builds it from @req
 * @len:	its length
 * @req:	an echo request (@f NULL), @len bytes
 */
static void vxlan_ul_ctl(struct port *p, struct vxlan_priv *v,
			 const uint8_t *f, size_t len, const uint8_t *req)
{
	const struct port_ops *c = v->via->ops;
	void *q = c->ul_tx_begin(v->via, 0);
	uint8_t *b = c->ul_tx_buf(v->via, q);

	if (b && !f)
		len = ul_echo(&v->loc, b, vxlan_ul_max(v), req, len);
	else if (b && len <= vxlan_ul_max(v))
		memcpy(b, f, len);
	else
		len = 0;
	if (len && !c->ul_tx_put(v->via, q, (uint32_t)len))
		stats_add(vxlan_ctr(p, VX_C_UL_SENT), 1);
	c->ul_tx_end(v->via, q);
}

/**
 * vxlan_solicit() - ask for VTEP @vt's MAC, at most once a second
 * @p:		port
 * @v:		port state
 * @vt:		the VTEP
 * @now:	vxlan_now()
 *
 * Context: any thread: of those asking in one second, one asks
 */
static void vxlan_solicit(struct port *p, struct vxlan_priv *v,
			  unsigned int vt, uint32_t now)
{
	struct vxlan_vtep *e = &v->vtep[vt];
	uint32_t was = __atomic_load_n(&e->asked, __ATOMIC_RELAXED);
	uint8_t f[UL_CTL_MAX];
	size_t n;

	if (was == now + 1 ||
	    !__atomic_compare_exchange_n(&e->asked, &was, now + 1, false,
					 __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	if (v->family == AF_INET)
		n = ul_arp(&v->loc, f, true, NULL, vxlan_sa_ip(&e->sa));
	else
		n = ul_ns(&v->loc, f, vxlan_sa_ip(&e->sa));
	vxlan_ul_ctl(p, v, f, n, NULL);
}

/**
 * vxlan_ul_rx() - a frame the carrier read: ours, or the switch's
 *		   (struct port_underlay @rx)
 * @p:		port
 * @f:		the frame (read-only)
 * @len:	its length
 * @vnet:	its offload metadata from the carrier's interface, or NULL
 * @pkt:	out: the inner frame, with PORT_UL_FRAME
 * Return: enum port_ul_verdict
 *
 * Context: any of the carrier's workers
 */
static enum port_ul_verdict vxlan_ul_rx(struct port *p, uint8_t *f,
					size_t len,
					const struct virtio_net_hdr_v1 *vnet,
					struct pkt *pkt)
{
	struct vxlan_priv *v = p->priv;
	uint8_t out[UL_CTL_MAX];
	struct vxlan_carried cm;
	union vxlan_sa sa;
	struct ul_rx rx;
	unsigned int vt;
	int why;

	/* A frame whose checksum the kernel left to be done, or checked:
	 * its UDP checksum is the kernel's word, not to be summed.
	 */
	ul_classify_vouched(&v->loc, f, len, vnet && vnet->flags &
			    (VIRTIO_NET_HDR_F_NEEDS_CSUM |
			     VIRTIO_NET_HDR_F_DATA_VALID), &rx);
	switch (rx.kind) {
	case UL_OTHER:
		if (rx.neigh)
			vxlan_neigh(v, &rx);	/* a gratuitous ARP */
		return PORT_UL_PASS;
	case UL_UDP:
		vxlan_ip_sa(&sa, v->family, rx.sip, rx.sport);
		cm.vnet = vnet;
		cm.off = rx.off;
		why = vxlan_decap(p, v, f + rx.off, rx.len, &sa, v->salen,
				  vxlan_now(), pkt, &vt, vnet ? &cm : NULL);
		if (why) {
			stats_add(&port_ctr(p)->drops[why], 1);
			return PORT_UL_TAKEN;
		}
		/* Its outer source MAC teaches nothing: whoever can route a
		 * datagram with a VTEP's source address to us could aim our
		 * tunnel at a MAC of its choosing (a router's).  ARP and ND
		 * only, as the kernel's neighbour table.
		 */
		return PORT_UL_FRAME;
	case UL_ARP_REQ:
		if (rx.neigh)
			vxlan_neigh(v, &rx);
		vxlan_ul_ctl(p, v, out, ul_arp(&v->loc, out, false, rx.smac,
					       rx.sip), NULL);
		return PORT_UL_TAKEN;
	case UL_NS:
		/* From :: (duplicate address detection): no answer.  A
		 * unicast one may leave its link-layer address out (RFC 4861
		 * 7.2.2): the answer goes to its Ethernet source then, and
		 * it teaches nothing.
		 */
		if (rx.neigh)
			vxlan_neigh(v, &rx);
		if (memcmp(rx.sip, (const uint8_t[16]){ 0 }, 16))
			vxlan_ul_ctl(p, v, out, ul_na(&v->loc, out, rx.smac,
						      rx.sip), NULL);
		return PORT_UL_TAKEN;
	case UL_NEIGH:
		if (rx.neigh)
			vxlan_neigh(v, &rx);
		return PORT_UL_TAKEN;
	case UL_ECHO:
		vxlan_ul_ctl(p, v, NULL, len, f);
		return PORT_UL_TAKEN;
	default:
		stats_add(vxlan_ctr(p, VX_C_UL_BAD), 1);
		return PORT_UL_TAKEN;
	}
}

/**
 * struct vxlan_ul_tx - one frame's datagrams on their way to the carrier
 * @p:		port
 * @v:		port state
 * @pkt:	the frame
 * @q:		the carrier's TX queue, locked
 * @targets:	the frame's VTEPs, @nt of them
 * @nt:		how many
 * @sport:	its datagrams' source port (network order)
 * @hash:	its flow's hash
 * @why:	the first drop reason of a copy, 0 if none
 * @no_neigh:	a VTEP's MAC was unknown
 * @ask:	VTEPs whose MAC to ask for, bit i: VTEP i (after the
 *		queue is unlocked: the question takes a queue's lock)
 */
struct vxlan_ul_tx {
	struct port *p;
	struct vxlan_priv *v;
	const struct pkt *pkt;
	void *q;
	uint8_t targets[VXLAN_VTEPS];
	unsigned int nt;
	uint16_t sport;
	uint32_t hash;
	int why;
	bool no_neigh;
	uint64_t ask;
};

/**
 * vxlan_ul_mac() - the MAC of the frame's @k-th VTEP on the carrier
 * @t:		the frame's state: asks for it (@ask, @no_neigh, @why)
 *		if it is not known yet
 * @k:		index in @t->targets
 * @mac:	out: the MAC
 * Return: true if known
 */
static bool vxlan_ul_mac(struct vxlan_ul_tx *t, unsigned int k, uint8_t *mac)
{
	struct vxlan_vtep *e = &t->v->vtep[t->targets[k]];
	uint64_t hw = __atomic_load_n(&e->hw, __ATOMIC_RELAXED);

	if (!(hw & VX_W_VALID)) {
		t->no_neigh = true;
		t->ask |= 1ULL << t->targets[k];
		t->why = STATS_DROP_PORT_DOWN;
		return false;
	}
	vxlan_key_mac(hw, mac);
	return true;
}

/**
 * vxlan_ul_emit() - one wire frame (a segment, or the frame whole) into
 *		     a datagram per VTEP (gso_emit()'s callback)
 * @arg:	struct vxlan_ul_tx
 * @iov:	the inner frame, its offloads finished
 * @cnt:	its pieces
 * @len:	its length
 * Return: 0, or a drop reason when no copy can leave (the frame stops)
 */
static int vxlan_ul_emit(void *arg, const struct iovec *iov, unsigned int cnt,
			 size_t len) NO_TSA	/* the queue: vxlan_ul_xmit() */
{
	struct vxlan_ul_tx *t = arg;
	struct vxlan_priv *v = t->v;
	const struct port_ops *c = v->via->ops;
	size_t hl = v->family == AF_INET ? UL_HLEN4 : UL_HLEN6;
	size_t flen = hl + VXLAN_HLEN + len;
	uint8_t *first = NULL, mac[6];
	unsigned int k, sent = 0;
	uint32_t sum = 0;
	int why = 0;

	if (vxlan_l3_len(t->pkt, len) > v->mtu) {
		stats_add(vxlan_ctr(t->p, VX_C_MTU_INNER), 1);
		return STATS_DROP_TOO_BIG;
	}
	if (flen > vxlan_ul_max(v)) {
		stats_add(vxlan_ctr(t->p, VX_C_MTU_UNDERLAY), 1);
		return STATS_DROP_TOO_BIG;
	}
	for (k = 0; k < t->nt; k++) {
		struct vxlan_vtep *e = &v->vtep[t->targets[k]];
		uint64_t hw = __atomic_load_n(&e->hw, __ATOMIC_RELAXED);
		uint8_t *b;

		if (!(hw & VX_W_VALID)) {
			t->no_neigh = true;
			t->ask |= 1ULL << t->targets[k];
			why = STATS_DROP_PORT_DOWN;
			continue;
		}
		b = c->ul_tx_buf(v->via, t->q);
		if (!b) {
			why = STATS_DROP_NO_BUFFER;
			continue;
		}
		/* The datagram once, the other VTEPs' copies from it. */
		if (!first) {
			uint8_t *d = b + hl + VXLAN_HLEN;

			memcpy(b + hl, v->hdr, VXLAN_HLEN);
			if (v->family == AF_INET6)
				sum = csum_copy_iov(d, iov, cnt, len,
						    csum_partial(v->hdr,
								 VXLAN_HLEN,
								 0));
			else if (iov_to_buf(iov, cnt, 0, d, len) != len)
				return STATS_DROP_OFFLOAD;
			first = b;
		} else if (b != first) {
			memcpy(b + hl, first + hl, VXLAN_HLEN + len);
		}
		vxlan_key_mac(hw, mac);
		ul_udp(&v->loc, b, mac, vxlan_sa_ip(&e->sa), t->sport,
		       VXLAN_HLEN + len, t->hash, false, sum);
		if (c->ul_tx_put(v->via, t->q, (uint32_t)flen)) {
			why = STATS_DROP_NO_BUFFER;
			continue;
		}
		__atomic_fetch_add(&e->tx, 1, __ATOMIC_RELAXED);
		sent++;
	}
	if (why && !t->why)
		t->why = why;
	return sent ? 0 : why;
}

/**
 * vxlan_ul_gso() - a segmented frame as UDP GSO trains, whole to the
 *		    carrier, which has the interface cut them
 * @t:		the frame's state (@q locked, @targets, @sport, @hash)
 * @pkt:	the frame (gso_plan(): GSO_ACT_SEGMENT)
 * @buf:	UL_HLEN_MAX + VXLAN_GSO_BYTES bytes
 * Return: 0 when every train left to every resolved VTEP, a drop reason,
 *	   or -1: nothing left, cut it in software instead
 *
 * As the socket path's UDP GSO sends (vxlan_gso()): the segments laid
 * end to end, each behind its VXLAN header, each copied and summed in
 * one read (gso_next_flat()); up to 64 datagrams or 64 KiB a train, the
 * outer headers in front with the UDP checksum left to the interface
 * (NEEDS_CSUM, gso_type UDP_L4 of the datagram's size).  A NIC cuts the
 * train with its UDP segmentation offload, or the kernel as late as it
 * can: a 64 KiB TSO frame is one or two sends instead of 45 AF_XDP
 * frames.
 */
static int vxlan_ul_gso(struct vxlan_ul_tx *t, const struct pkt *pkt,
			uint8_t *buf) NO_TSA	/* @t->q: vxlan_ul_xmit() */
{
	struct vxlan_priv *v = t->v;
	const struct port_ops *c = v->via->ops;
	size_t hl = v->family == AF_INET ? UL_HLEN4 : UL_HLEN6;
	struct virtio_net_hdr_v1 vnet;
	struct gso_iter it;
	unsigned int trains = 0;
	size_t size = 0, total;
	int segs;

	if (gso_init(&it, pkt, false))
		return -1;
	for (;;) {
		unsigned int k, sent = 0;
		struct iovec iov;
		uint8_t mac[6];

		segs = vxlan_train(&it, buf + hl, VXLAN_GSO_BYTES, v->hdr,
				   &total, &size);
		if (segs < 0)
			return trains ? STATS_DROP_OFFLOAD : -1;
		if (!segs)
			break;
		/* The first datagram is the largest */
		if (!trains) {
			if (vxlan_l3_len(pkt, size - VXLAN_HLEN) > v->mtu) {
				stats_add(vxlan_ctr(t->p, VX_C_MTU_INNER), 1);
				return STATS_DROP_TOO_BIG;
			}
			if (hl + size > vxlan_ul_max(v)) {
				stats_add(vxlan_ctr(t->p, VX_C_MTU_UNDERLAY),
					  1);
				return STATS_DROP_TOO_BIG;
			}
		}
		memset(&vnet, 0, sizeof(vnet));
		vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vnet.csum_start = htole16((uint16_t)(hl - ETH_UDP_HLEN));
		vnet.csum_offset = htole16(ETH_UDP_OFF_CSUM);
		vnet.hdr_len = htole16((uint16_t)hl);
		if (segs > 1) {
			vnet.gso_type = VIRTIO_NET_HDR_GSO_UDP_L4;
			vnet.gso_size = htole16((uint16_t)size);
		}
		iov.iov_base = buf;
		iov.iov_len = hl + total;
		for (k = 0; k < t->nt; k++) {
			struct vxlan_vtep *e = &v->vtep[t->targets[k]];
			int rc;

			if (!vxlan_ul_mac(t, k, mac))
				continue;
			ul_udp_partial(&v->loc, buf, mac, vxlan_sa_ip(&e->sa),
				       t->sport, total, t->hash);
			rc = c->ul_tx_gso(v->via, t->q, &iov, 1, &vnet, NULL);
			if (rc) {
				if ((rc == -EINVAL || rc == -EOPNOTSUPP) &&
				    !trains && !sent)
					return -2;	/* the kernel says no */
				t->why = STATS_DROP_IO_ERROR;
				continue;
			}
			__atomic_fetch_add(&e->tx, segs, __ATOMIC_RELAXED);
			sent++;
		}
		if (!sent)
			return t->why ? t->why : STATS_DROP_PORT_DOWN;
		trains++;
	}
	return 0;
}

/**
 * vxlan_ul_tnl() - a TSO frame whole to the carrier, as one UDP tunnel GSO
 *		    frame per VTEP (a TAP's, Linux 6.17+)
 * @t:		the frame's state (@q locked, @targets, @sport, @hash)
 * @pkt:	the frame: TCP GSO, its checksum partial (vxlan_ul_tnl_ok())
 * Return: 0 when it left to every resolved VTEP, a drop reason, -1: not
 *	   this way (too long to wrap in one IP packet, headers out of
 *	   reach), cut it instead, or -2: the carrier refuses such frames
 *
 * The outer headers and the VXLAN header go in front of the frame's own
 * pieces: no payload byte is read or copied here.  The kernel takes the
 * whole of it as one skb, routes it and hands it on (a veth, another
 * TAP) whole, or cuts it where it must, into datagrams with the inner
 * checksums done -- as its own vxlan device does.  IPv4's outer UDP
 * checksum is 0 (RFC 7348 section 5); IPv6's is left to the kernel
 * (the carrier's @tnl_csum).
 */
static int vxlan_ul_tnl(struct vxlan_ul_tx *t, const struct pkt *pkt)
	NO_TSA	/* @t->q: vxlan_ul_xmit() */
{
	struct vxlan_priv *v = t->v;
	const struct port_ops *c = v->via->ops;
	bool v6 = v->family == AF_INET6;
	size_t hl = v6 ? UL_HLEN6 : UL_HLEN4, off = hl + VXLAN_HLEN, seg;
	uint8_t head[UL_HLEN_MAX + VXLAN_HLEN], peek[GRO_HDR_MAX], mac[6];
	struct iovec iov[1 + PKT_IOV_MAX];
	struct virtio_net_hdr_v1 vnet;
	struct port_ul_tnl tnl;
	struct eth_hdrs h;
	unsigned int k, sent = 0;
	size_t got;

	if (v6 && !v->ul.tnl_csum)
		return -1;
	got = iov_to_buf(pkt->iov, pkt->iovcnt, 0, peek,
			 MIN(sizeof(peek), (size_t)pkt->len));
	/* The outer IP length field: IPv4's counts its header, IPv6's not. */
	if (eth_parse(peek, got, &h) || h.l4_proto != IPPROTO_TCP ||
	    le16toh(pkt->vnet.csum_start) != h.l4_off ||
	    off + pkt->len - ETH_HLEN - (v6 ? ETH_IPV6_HLEN : 0) > 65535U)
		return -1;
	/* Its segments' size on the wire, for both MTUs. */
	seg = h.pay_off + le16toh(pkt->vnet.gso_size);
	if (vxlan_l3_len(pkt, seg) > v->mtu) {
		stats_add(vxlan_ctr(t->p, VX_C_MTU_INNER), 1);
		return STATS_DROP_TOO_BIG;
	}
	if (off + seg > vxlan_ul_max(v)) {
		stats_add(vxlan_ctr(t->p, VX_C_MTU_UNDERLAY), 1);
		return STATS_DROP_TOO_BIG;
	}
	vnet = pkt->vnet;
	vnet.num_buffers = 0;
	vnet.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM |
		     (v6 ? VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM : 0);
	vnet.gso_type |= v6 ? VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6 :
			      VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4;
	vnet.csum_start = htole16((uint16_t)(off + h.l4_off));
	vnet.hdr_len = htole16((uint16_t)(off + h.pay_off));
	tnl.outer_th = (uint16_t)(hl - ETH_UDP_HLEN);
	tnl.inner_nh = (uint16_t)(off + h.l3_off);
	memcpy(head + hl, v->hdr, VXLAN_HLEN);
	iov[0].iov_base = head;
	iov[0].iov_len = off;
	memcpy(&iov[1], pkt->iov, pkt->iovcnt * sizeof(iov[0]));
	for (k = 0; k < t->nt; k++) {
		struct vxlan_vtep *e = &v->vtep[t->targets[k]];
		int rc;

		if (!vxlan_ul_mac(t, k, mac))
			continue;
		if (v6)
			ul_udp_partial(&v->loc, head, mac, vxlan_sa_ip(&e->sa),
				       t->sport, VXLAN_HLEN + pkt->len,
				       t->hash);
		else
			ul_udp(&v->loc, head, mac, vxlan_sa_ip(&e->sa),
			       t->sport, VXLAN_HLEN + pkt->len, t->hash, false,
			       0);
		rc = c->ul_tx_gso(v->via, t->q, iov, 1 + pkt->iovcnt, &vnet,
				  &tnl);
		if (rc) {
			if ((rc == -EINVAL || rc == -EOPNOTSUPP) && !sent)
				return -2;
			t->why = STATS_DROP_IO_ERROR;
			continue;
		}
		__atomic_fetch_add(&e->tx, 1, __ATOMIC_RELAXED);
		sent++;
	}
	if (!sent)
		return t->why ? t->why : STATS_DROP_PORT_DOWN;
	stats_add(vxlan_ctr(t->p, VX_C_TNL_GSO), 1);
	return 0;
}

/* vxlan_ul_tnl_ok() - whether @pkt may leave whole as a UDP tunnel GSO
 * frame (via= a carrier that takes them): a TCP GSO frame its source
 * was entitled to send
 */
static bool vxlan_ul_tnl_ok(struct vxlan_priv *v, const struct pkt *pkt)
{
	uint8_t gt = pkt->vnet.gso_type & ~VIRTIO_NET_HDR_GSO_ECN;

	return __atomic_load_n(&v->ul_tnl, __ATOMIC_RELAXED) &&
	       (gt == VIRTIO_NET_HDR_GSO_TCPV4 ||
		gt == VIRTIO_NET_HDR_GSO_TCPV6) &&
	       (pkt->vnet.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
	       gso_plan(pkt, pkt->src_feat, VXLAN_TNL_FEAT) == GSO_ACT_PASS;
}

/* vxlan_ul_gso_ok() - whether @pkt leaves as UDP GSO trains (via=) */
static bool vxlan_ul_gso_ok(struct vxlan_priv *v, const struct pkt *pkt)
{
	return __atomic_load_n(&v->ul_gso, __ATOMIC_RELAXED) &&
	       pkt->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE &&
	       gso_plan(pkt, pkt->src_feat, 0) == GSO_ACT_SEGMENT;
}

/* vxlan_sport() - a flow's source port: 49152-65535 (RFC 6335's dynamic
 * range, what Linux's default ephemeral range ends in), network order
 */
static uint16_t vxlan_sport(uint32_t hash)
{
	return htons((uint16_t)(49152U | (hash & 0x3fffU)));
}

/**
 * vxlan_ul_xmit() - frames into the tunnel through the carrier (via=)
 * @p:		port
 * @pkts:	frames (read, never kept)
 * @n:		number of frames
 * Return: frames every datagram of which went to the carrier's rings
 *
 * Context: any worker, concurrently: each of the carrier's TX queues is
 * locked while frames go into it, a chunk's frames of one queue at once
 * (a frame's queue is its flow's: a flow stays in order)
 */
static unsigned int vxlan_ul_xmit(struct port *p, struct pkt *const *pkts,
				  unsigned int n)
{
	unsigned int i, c, m, qi, sent = 0, drops[STATS_DROP_COUNT] = { 0 };
	unsigned int no_neigh = 0, flood = 0, no_vtep = 0;
	struct vxlan_priv *v = p->priv;
	const struct port_ops *ops = v->via->ops;
	unsigned int nq = v->ul.queues ? v->ul.queues : 1;
	uint32_t hash[PORT_BURST];
	uint8_t train[UL_HLEN_MAX + VXLAN_GSO_BYTES];
	struct vxlan_ul_tx t;
	uint64_t bytes = 0;

	t.p = p;
	t.v = v;
	t.ask = 0;
	for (c = 0; c < n; c += m) {
		m = MIN(n - c, (unsigned int)PORT_BURST);
		for (i = 0; i < m; i++)
			hash[i] = pkt_flow_hash(pkts[c + i]);
		for (qi = 0; qi < nq; qi++) {
			t.q = NULL;
			for (i = 0; i < m; i++) {
				const struct pkt *pkt = pkts[c + i];
				int why;

				if (hash[i] % nq != qi)
					continue;
				if (pkt->iovcnt > PKT_IOV_MAX ||
				    pkt->len > PKT_FRAME_MAX ||
				    pkt->len < ETH_HLEN) {
					drops[STATS_DROP_TOO_BIG]++;
					continue;
				}
				t.nt = vxlan_targets(v, pkt, t.targets);
				if (!t.nt) {
					no_vtep++;
					drops[STATS_DROP_PORT_DOWN]++;
					continue;
				}
				if (t.nt > 1 || (pkt->eth.h_dest[0] & 1))
					flood += t.nt;
				if (!t.q)
					t.q = ops->ul_tx_begin(v->via, qi);
				t.pkt = pkt;
				t.hash = hash[i];
				t.sport = vxlan_sport(hash[i]);
				t.why = 0;
				t.no_neigh = false;
				why = -1;
				if (vxlan_ul_tnl_ok(v, pkt))
					why = vxlan_ul_tnl(&t, pkt);
				if (why == -2 &&
				    __atomic_exchange_n(&v->ul_tnl, false,
							__ATOMIC_RELAXED))
					warn("%s: vxlan: %s refuses UDP tunnel "
					     "GSO frames: TSO frames are cut "
					     "here", p->name, v->via->name);
				if (why < 0 && vxlan_ul_gso_ok(v, pkt))
					why = vxlan_ul_gso(&t, pkt, train);
				if (why == -2 &&
				    __atomic_exchange_n(&v->ul_gso, false,
							__ATOMIC_RELAXED))
					warn("%s: vxlan: %s refuses UDP GSO "
					     "trains: segmented frames leave "
					     "one datagram at a time", p->name,
					     v->via->name);
				if (why < 0) {
					t.why = 0;
					t.no_neigh = false;
					why = gso_emit(pkt, vxlan_ul_emit, &t);
					if (why < 0)
						why = STATS_DROP_OFFLOAD;
				}
				if (!why)
					why = t.why;
				no_neigh += t.no_neigh;
				if (why) {
					drops[why]++;
					continue;
				}
				sent++;
				bytes += pkt->len;
			}
			if (t.q)
				ops->ul_tx_end(v->via, t.q);
		}
	}
	for (i = 0; t.ask; i++, t.ask >>= 1)
		if (t.ask & 1)
			vxlan_solicit(p, v, i, vxlan_now());
	if (no_neigh)
		stats_add(vxlan_ctr(p, VX_C_NO_NEIGH), no_neigh);
	if (flood)
		stats_add(vxlan_ctr(p, VX_C_FLOOD), flood);
	if (no_vtep)
		stats_add(vxlan_ctr(p, VX_C_NO_VTEP), no_vtep);
	port_count_xmit(p, sent, bytes, drops);
	return sent;
}

/**
 * vxlan_open_via() - the underlay through another port (via=)
 * @p:		port
 * @v:		port state, its VTEPs set
 * @o:		options
 * Return: 0 or -errno, with a log line
 *
 * Context: control thread, at start-up
 */
static int vxlan_open_via(struct port *p, struct vxlan_priv *v,
			  const struct vxlan_opts *o)
{
	struct port *c = port_find(o->via);
	unsigned int i;
	int rc;

	if (!c || c == p) {
		err("%s: vxlan: via=%s: no such port before this one", p->name,
		    o->via);
		return -ENODEV;
	}
	if (!c->ops->ul_attach) {
		err("%s: vxlan: via=%s is a %s port: via= takes an afxdp or "
		    "tap port",
		    p->name, o->via, c->ops->type);
		return -EINVAL;
	}
	v->loc.family = o->local.family;
	memcpy(v->loc.ip, o->local.a, sizeof(v->loc.ip));
	v->loc.port = v->dport;
	v->ul.client = p;
	v->ul.rx = vxlan_ul_rx;
	v->ul.gro = v->gro;
	v->ul.gro_ctr = VX_C_GRO_JOINED;
	/* Written before the carrier shows us a frame (its release). */
	v->via = c;
	rc = c->ops->ul_attach(c, &v->ul);
	if (rc) {
		v->via = NULL;
		if (rc == -EBUSY)
			err("%s: vxlan: via=%s carries another tunnel already",
			    p->name, o->via);
		else
			err("%s: vxlan: via=%s cannot carry it: %s", p->name,
			    o->via, strerror(-rc));
		return rc;
	}
	memcpy(v->loc.mac, v->ul.mac, sizeof(v->loc.mac));
	v->ul_gso = v->ul.gso;
	v->ul_tnl = v->ul.tnl_gso;
	/* The remotes' MACs asked for now, not at a guest's first frame. */
	for (i = 0; i < v->nflood; i++)
		vxlan_solicit(p, v, i, vxlan_now());
	return 0;
}

/**
 * vxlan_xmit() - frames into the tunnel, one datagram (or one per
 *		  segment) each, to its VTEP or to every remote
 * @p:		port
 * @pkts:	frames (their buffers are read, never kept)
 * @n:		number of frames
 * Return: frames delivered (every datagram of theirs taken by the
 *	   kernel); the rest are counted as drops
 *
 * Context: any worker, concurrently: the batch is on the caller's stack,
 * each sendmmsg() is whole datagrams, the table is read without a lock.
 * Never blocks (MSG_DONTWAIT).
 */
static unsigned int vxlan_xmit(struct port *p, struct pkt *const *pkts,
			       unsigned int n)
{
	unsigned int i, j, sent = 0, drops[STATS_DROP_COUNT] = { 0 };
	struct vxlan_priv *v = p->priv;
	uint64_t bytes = 0;
	struct vxlan_tx t;

	if (v->via)
		return vxlan_ul_xmit(p, pkts, n);
	t.n = 0;
	t.fd = -1;
	t.mtu_under = 0;
	t.gso_refused = false;
	for (i = 0; i < n; i += PORT_BURST) {
		unsigned int m = MIN(n - i, (unsigned int)PORT_BURST);

		memset(t.why, 0, m);
		for (j = 0; j < m; j++) {
			int why = vxlan_frame(p, v, &t, pkts[i + j], j);

			if (why && !t.why[j])
				t.why[j] = (uint8_t)why;
		}
		if (t.n)
			vxlan_flush(v, &t);
		for (j = 0; j < m; j++) {
			if (t.why[j]) {
				drops[t.why[j]]++;
				continue;
			}
			sent++;
			bytes += pkts[i + j]->len;
		}
	}
	if (t.mtu_under)
		stats_add(vxlan_ctr(p, VX_C_MTU_UNDERLAY), t.mtu_under);
	if (t.gso_refused &&
	    __atomic_exchange_n(&v->udp_gso, false, __ATOMIC_RELAXED))
		warn("%s: vxlan: the kernel refuses UDP GSO here: segmented "
		     "frames leave one datagram at a time", p->name);
	port_count_xmit(p, sent, bytes, drops);
	return sent;
}

/**
 * vxlan_vtep_unref() - a VTEP lost an entry: free it if nothing holds it
 * @v:		port state
 * @vt:		its index
 * Return: true if freed (the caller quiesces before it is reused)
 *
 * Context: under @v->lock
 */
static bool vxlan_vtep_unref(struct vxlan_priv *v, unsigned int vt)
	REQUIRES(v->lock)
{
	struct vxlan_vtep *e = &v->vtep[vt];

	if (e->flood || e->statics || e->learned)
		return false;
	__atomic_store_n(&e->live, 2, __ATOMIC_RELEASE);
	return true;
}

/**
 * vxlan_drain() - VTEPs just freed become reusable, once no worker can
 *		   still be sending to them (port_quiesce())
 * @v:		port state
 *
 * Context: control thread, the lock not held
 */
static void vxlan_drain(struct vxlan_priv *v)
{
	unsigned int i;

	port_quiesce();

	vlock_lock(&v->lock);
	for (i = 0; i < VXLAN_VTEPS; i++)
		if (v->vtep[i].live == 2) {
			memset(&v->vtep[i].sa, 0, sizeof(v->vtep[i].sa));
			v->vtep[i].rx = v->vtep[i].tx = 0;
			__atomic_store_n(&v->vtep[i].hw, 0, __ATOMIC_RELAXED);
			__atomic_store_n(&v->vtep[i].asked, 0,
					 __ATOMIC_RELAXED);
			__atomic_store_n(&v->vtep[i].live, 0, __ATOMIC_RELEASE);
		}
	vlock_unlock(&v->lock);
}

/**
 * vxlan_timer() - once a second: learned MACs past their age go
 * @p:		port
 *
 * Context: control thread
 */
static void vxlan_timer(struct port *p)
{
	struct vxlan_priv *v = p->priv;
	uint32_t now = vxlan_now();
	bool freed = false;
	unsigned int i;

	vlock_lock(&v->lock);
	for (i = 0; i < VXLAN_SLOTS; i++) {
		uint64_t w = v->mac[i];

		if (!(w & VX_W_VALID) || (w & VX_W_STATIC) ||
		    now - __atomic_load_n(&v->age[i], __ATOMIC_RELAXED) <=
		    v->ageing)
			continue;
		__atomic_store_n(&v->mac[i], 0, __ATOMIC_RELEASE);
		v->vtep[VX_W_VTEP(w)].learned--;
		freed |= vxlan_vtep_unref(v, VX_W_VTEP(w));
	}
	vlock_unlock(&v->lock);
	if (freed)
		vxlan_drain(v);
	/* via=: a VTEP whose MAC is unknown is asked for, once a second;
	 * one not heard of for VXLAN_NEIGH_REFRESH seconds too (its entry
	 * stays meanwhile: a NIC replaced is found within a minute).
	 */
	for (i = 0; v->via && i < VXLAN_VTEPS; i++) {
		const struct vxlan_vtep *e = &v->vtep[i];

		if (__atomic_load_n(&e->live, __ATOMIC_ACQUIRE) == 1 &&
		    (!__atomic_load_n(&e->hw, __ATOMIC_RELAXED) ||
		     now - __atomic_load_n(&e->heard, __ATOMIC_RELAXED) >
		     VXLAN_NEIGH_REFRESH))
			vxlan_solicit(p, v, i, now);
	}
}

/**
 * vxlan_args() - the keys of a command: mac= and vtep=
 * @args:	"mac=MAC[,vtep=IP]"
 * @mac:	out: the MAC
 * @vtep:	out: the VTEP's IP, family AF_UNSPEC if not given
 * @err:	one line on failure
 * @errlen:	its size
 * Return: 0 or -EINVAL
 */
static int vxlan_args(const char *args, uint8_t mac[6], struct port_ip *vtep,
		      char *err, size_t errlen)
{
	char buf[160], *save = NULL, *kv;
	bool has_mac = false;
	unsigned int i;

	memset(vtep, 0, sizeof(*vtep));
	if (strlen(args) >= sizeof(buf)) {
		snprintf(err, errlen, "keys too long");
		return -EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", args);
	for (kv = strtok_r(buf, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *val = strchr(kv, '=');

		if (!val) {
			snprintf(err, errlen, "'%.40s' is not KEY=VALUE", kv);
			return -EINVAL;
		}
		*val++ = '\0';
		if (!strcmp(kv, "mac") && !has_mac) {
			unsigned int b[6];
			char end;

			if (strlen(val) != 17 ||
			    sscanf(val, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0],
				   &b[1], &b[2], &b[3], &b[4], &b[5],
				   &end) != 6) {
				snprintf(err, errlen, "mac '%.40s' is not a MAC "
					 "address (aa:bb:cc:dd:ee:ff)", val);
				return -EINVAL;
			}
			for (i = 0; i < 6; i++)
				mac[i] = (uint8_t)b[i];
			if ((mac[0] & 1) || !(mac[0] | mac[1] | mac[2] |
					      mac[3] | mac[4] | mac[5])) {
				snprintf(err, errlen, "mac '%s' is not a "
					 "station address", val);
				return -EINVAL;
			}
			has_mac = true;
		} else if (!strcmp(kv, "vtep") && !vtep->family) {
			if (inet_pton(AF_INET, val, vtep->a) == 1) {
				vtep->family = AF_INET;
			} else if (inet_pton(AF_INET6, val, vtep->a) == 1) {
				vtep->family = AF_INET6;
			} else {
				snprintf(err, errlen, "vtep '%.46s' is not an "
					 "IP address", val);
				return -EINVAL;
			}
		} else {
			snprintf(err, errlen, "unknown or repeated key "
				 "'%.20s' (mac=, vtep=)", kv);
			return -EINVAL;
		}
	}
	if (!has_mac) {
		snprintf(err, errlen, "missing mac=");
		return -EINVAL;
	}
	return 0;
}

/**
 * vxlan_cmd_add() - "vxlan add NAME,mac=MAC,vtep=IP": a static entry
 * @p:		port
 * @args:	the keys
 * @out:	reply
 * @err:	one line on failure
 * @errlen:	its size
 * Return: 0 or -EINVAL
 *
 * Context: control thread.  An entry already there (learned or static)
 * is replaced; the VTEP joins the known ones if it is new (it then takes
 * datagrams, but gets no flooded frames: only a remote= does).
 */
static int vxlan_cmd_add(struct port *p, const char *args,
			 struct port_out *out, char *err, size_t errlen)
{
	struct vxlan_priv *v = p->priv;
	struct vxlan_vtep *e;
	union vxlan_sa sa;
	struct port_ip ip;
	uint8_t mac[6];
	uint64_t key, w = 0;
	bool freed = false;
	unsigned int vt;
	int s, i;

	if (vxlan_args(args, mac, &ip, err, errlen))
		return -EINVAL;
	if (!ip.family) {
		snprintf(err, errlen, "missing vtep=");
		return -EINVAL;
	}
	if ((ip.family == AF_INET) != (v->salen == sizeof(sa.in4))) {
		snprintf(err, errlen, "vtep= is not of the underlay's address "
			 "family (local=)");
		return -EINVAL;
	}
	vxlan_sa_set(&sa, &ip, ntohs(v->dport));
	key = vxlan_mac_key(mac);

	vlock_lock(&v->lock);
	i = vxlan_vtep_find(v, &sa);
	if (i < 0) {
		for (i = 0; i < VXLAN_VTEPS && v->vtep[i].live; i++)
			;
		if (i == VXLAN_VTEPS) {
			vlock_unlock(&v->lock);
			snprintf(err, errlen, "%d VTEPs known already (or "
				 "being freed)", VXLAN_VTEPS);
			return -EINVAL;
		}
	}
	vt = (unsigned int)i;
	e = &v->vtep[vt];
	s = vxlan_find(v, key, &w);
	if (s < 0)
		s = vxlan_free_slot(v, key);
	if (s < 0) {
		vlock_unlock(&v->lock);
		snprintf(err, errlen, "no room in the MAC table's bucket for "
			 "this MAC");
		return -EINVAL;
	}
	if (!e->live) {
		e->sa = sa;
		e->flood = false;
		e->statics = 0;
		e->learned = 0;
		__atomic_store_n(&e->live, 1, __ATOMIC_RELEASE);
	}
	if (w & VX_W_VALID) {
		if (w & VX_W_STATIC)
			v->vtep[VX_W_VTEP(w)].statics--;
		else
			v->vtep[VX_W_VTEP(w)].learned--;
	}
	e->statics++;
	__atomic_store_n(&v->mac[s], VX_W_VALID | VX_W_STATIC |
			 (uint64_t)vt << 48 | key, __ATOMIC_RELEASE);
	if ((w & VX_W_VALID) && VX_W_VTEP(w) != vt)
		freed = vxlan_vtep_unref(v, VX_W_VTEP(w));
	vlock_unlock(&v->lock);
	if (freed)
		vxlan_drain(v);
	out->put(out, "{\"ok\":true}\n");
	return 0;
}

/**
 * vxlan_cmd_del() - "vxlan del NAME,mac=MAC": an entry goes, static or
 *		     learned
 * @p:		port
 * @args:	the keys
 * @out:	reply
 * @err:	one line on failure
 * @errlen:	its size
 * Return: 0 or -EINVAL (no such entry)
 *
 * Context: control thread
 */
static int vxlan_cmd_del(struct port *p, const char *args,
			 struct port_out *out, char *err, size_t errlen)
{
	struct vxlan_priv *v = p->priv;
	struct port_ip ip;
	uint8_t mac[6];
	uint64_t w = 0;
	bool freed;
	int s;

	if (vxlan_args(args, mac, &ip, err, errlen))
		return -EINVAL;
	if (ip.family) {
		snprintf(err, errlen, "del takes mac= only");
		return -EINVAL;
	}
	vlock_lock(&v->lock);
	s = vxlan_find(v, vxlan_mac_key(mac), &w);
	if (s < 0) {
		vlock_unlock(&v->lock);
		snprintf(err, errlen, "no entry for that MAC");
		return -EINVAL;
	}
	__atomic_store_n(&v->mac[s], 0, __ATOMIC_RELEASE);
	if (w & VX_W_STATIC)
		v->vtep[VX_W_VTEP(w)].statics--;
	else
		v->vtep[VX_W_VTEP(w)].learned--;
	freed = vxlan_vtep_unref(v, VX_W_VTEP(w));
	vlock_unlock(&v->lock);
	if (freed)
		vxlan_drain(v);
	out->put(out, "{\"ok\":true}\n");
	return 0;
}

/**
 * vxlan_cmd_fdb() - "vxlan fdb NAME": the VTEPs and the MAC table (JSON)
 * @p:		port
 * @args:	"" (no keys)
 * @out:	reply
 * @err:	one line on failure
 * @errlen:	its size
 * Return: 0 or -EINVAL
 *
 * Context: control thread; the counters are racy reads
 */
static int vxlan_cmd_fdb(struct port *p, const char *args,
			 struct port_out *out, char *err, size_t errlen)
{
	struct vxlan_priv *v = p->priv;
	uint32_t now = vxlan_now();
	char a[INET6_ADDRSTRLEN];
	struct vxlan_snap {
		struct vxlan_vtep vtep[VXLAN_VTEPS];
		uint64_t mac[VXLAN_SLOTS];
		uint32_t age[VXLAN_SLOTS];
	} *sn;
	unsigned int i, n = 0;

	if (*args) {
		snprintf(err, errlen, "fdb takes no keys");
		return -EINVAL;
	}
	/* A copy under the lock, printed without it: the reading worker
	 * may need the lock to learn meanwhile.
	 */
	sn = malloc(sizeof(*sn));
	if (!sn) {
		snprintf(err, errlen, "out of memory");
		return -EINVAL;
	}
	vlock_lock(&v->lock);
	for (i = 0; i < VXLAN_SLOTS; i++) {
		sn->mac[i] = __atomic_load_n(&v->mac[i], __ATOMIC_RELAXED);
		sn->age[i] = __atomic_load_n(&v->age[i], __ATOMIC_RELAXED);
	}
	/* Field by field: the datagram counts are the workers' (atomic),
	 * the rest is written under the lock (or before the port opened).
	 */
	for (i = 0; i < VXLAN_VTEPS; i++) {
		const struct vxlan_vtep *e = &v->vtep[i];

		sn->vtep[i].sa = e->sa;
		sn->vtep[i].live = __atomic_load_n(&e->live, __ATOMIC_RELAXED);
		sn->vtep[i].flood = e->flood;
		sn->vtep[i].statics = e->statics;
		sn->vtep[i].learned = e->learned;
		sn->vtep[i].rx = __atomic_load_n(&e->rx, __ATOMIC_RELAXED);
		sn->vtep[i].tx = __atomic_load_n(&e->tx, __ATOMIC_RELAXED);
		sn->vtep[i].hw = __atomic_load_n(&e->hw, __ATOMIC_RELAXED);
	}
	vlock_unlock(&v->lock);

	out->put(out, "{\"port\":\"%s\",\"vni\":%u,\"vteps\":[", p->name,
		 ntohl(v->vni_word) >> 8);
	for (i = 0; i < VXLAN_VTEPS; i++) {
		const struct vxlan_vtep *e = &sn->vtep[i];

		if (e->live != 1)
			continue;
		out->put(out, "%s{\"vtep\":\"%s\",\"flood\":%s,"
			 "\"static_macs\":%u,\"learned_macs\":%u,"
			 "\"rx_packets\":%llu,\"tx_packets\":%llu",
			 n++ ? "," : "", vxlan_sa_str(&e->sa, a),
			 e->flood ? "true" : "false", e->statics, e->learned,
			 (unsigned long long)e->rx, (unsigned long long)e->tx);
		/* via=: its MAC on the carrier's wire, null while unknown */
		if (v->via && (e->hw & VX_W_VALID)) {
			vxlan_put_mac(out, ",\"underlay_mac\":", e->hw);
		} else if (v->via) {
			out->put(out, ",\"underlay_mac\":null");
		}
		out->put(out, "}");
	}
	out->put(out, "],\"macs\":[");
	for (i = n = 0; i < VXLAN_SLOTS; i++) {
		uint64_t w = sn->mac[i];
		bool st = w & VX_W_STATIC;

		if (!(w & VX_W_VALID))
			continue;
		vxlan_put_mac(out, n++ ? ",{\"mac\":" : "{\"mac\":", w);
		out->put(out, ",\"vtep\":\"%s\",\"static\":%s,\"age\":%u}",
			 vxlan_sa_str(&sn->vtep[VX_W_VTEP(w)].sa, a),
			 st ? "true" : "false", st ? 0 : now - sn->age[i]);
	}
	out->put(out, "]}\n");
	free(sn);
	return 0;
}

static const struct port_cmd vxlan_cmds[] = {
	{ "fdb", "", "VTEPs and MAC -> VTEP entries (JSON)", vxlan_cmd_fdb },
	{ "add", ",mac=MAC,vtep=IP",
	  "a static MAC -> VTEP entry (never ages or moves)", vxlan_cmd_add },
	{ "del", ",mac=MAC", "remove a MAC's entry, static or learned",
	  vxlan_cmd_del },
};

/* What a vxlan port counts beyond stats_common (see stats.h). */
static const struct stats_desc vxlan_desc[] = {
	{ .key = "foreign", .metric = "vxlan_foreign_total",
	  .help = "Datagrams dropped: not from a known VTEP.",
	  STATS_AT(peer_refused) },
	{ .key = "bad_header", .metric = "vxlan_bad_header_total",
	  .help = "Datagrams dropped: short, or flags other than I.",
	  STATS_AT(type[VX_C_BAD_HEADER]) },
	{ .key = "bad_vni", .metric = "vxlan_bad_vni_total",
	  .help = "Datagrams dropped: another VNI.",
	  STATS_AT(type[VX_C_BAD_VNI]) },
	{ .key = "flood_copies", .metric = "vxlan_flood_copies_total",
	  .help = "Frames sent to every remote (broadcast, multicast, "
		  "unknown unicast), one per copy.",
	  STATS_AT(type[VX_C_FLOOD]) },
	{ .key = "no_vtep", .metric = "vxlan_no_vtep_total",
	  .help = "Frames dropped: no VTEP to send them to.",
	  STATS_AT(type[VX_C_NO_VTEP]) },
	{ .key = "learn_limit", .metric = "vxlan_learn_limit_total",
	  .help = "MACs not learned: their VTEP owns vtep-max-macs already.",
	  STATS_AT(type[VX_C_LEARN_LIMIT]) },
	{ .key = "mac_moves", .metric = "vxlan_mac_moves_total",
	  .help = "Learned MACs that moved to another VTEP.",
	  STATS_AT(type[VX_C_MOVES]) },
	{ .key = "mtu_inner", .metric = "vxlan_mtu_inner_total",
	  .help = "Frames dropped: inner packet larger than mtu=.",
	  STATS_AT(type[VX_C_MTU_INNER]) },
	{ .key = "mtu_underlay", .metric = "vxlan_mtu_underlay_total",
	  .help = "Datagrams the kernel refused: larger than the underlay "
		  "path MTU.",
	  STATS_AT(type[VX_C_MTU_UNDERLAY]) },
	{ .key = "gro_joined", .metric = "vxlan_gro_joined_total",
	  .help = "Arriving TCP segments joined to the one before (gro=).",
	  STATS_AT(type[VX_C_GRO_JOINED]) },
	{ .key = "gro_frames", .metric = "vxlan_gro_frames_total",
	  .help = "Frames made of more than one arriving segment (gro=).",
	  STATS_AT(type[VX_C_GRO_FRAMES]) },
	{ .key = "remcsum_rx", .metric = "vxlan_remcsum_rx_total",
	  .help = "Datagrams whose sender left the inner checksum to us "
		  "(remcsum=).",
	  STATS_AT(type[VX_C_RCO_RX]) },
	{ .key = "no_neigh", .metric = "vxlan_no_neigh_total",
	  .help = "Frames dropped: their VTEP's MAC on the carrier is not "
		  "known yet (via=; ARP or ND asked).",
	  STATS_AT(type[VX_C_NO_NEIGH]) },
	{ .key = "underlay_bad", .metric = "vxlan_underlay_bad_total",
	  .help = "Frames to our underlay address dropped: malformed, a "
		  "bad checksum, a fragment, another protocol (via=).",
	  STATS_AT(type[VX_C_UL_BAD]) },
	{ .key = "underlay_sent", .metric = "vxlan_underlay_sent_total",
	  .help = "ARP, ND and echo frames of our own sent (via=).",
	  STATS_AT(type[VX_C_UL_SENT]) },
	{ .key = "tunnel_gso", .metric = "vxlan_tunnel_gso_total",
	  .help = "TSO frames handed whole to the carrier as UDP tunnel GSO "
		  "frames (via= a TAP).",
	  STATS_AT(type[VX_C_TNL_GSO]) },
	{ .key = "bursts", .metric = "vxlan_bursts_total",
	  .help = "Worker turns that took datagrams from the socket (with "
		  "via=: carrier bursts with datagrams of ours).",
	  STATS_AT(polls) },
};

static const struct stats_table vxlan_stats = {
	vxlan_desc, ARRAY_SIZE(vxlan_desc)
};

static const struct stats_table *const vxlan_counters[] = {
	&vxlan_stats, NULL
};

const struct port_ops port_vxlan_ops = {
	.type		= "vxlan",
	.name_prefix	= "vx",
	.priv_size	= sizeof(struct vxlan_priv),
	.opts		= vxlan_opts,
	.n_opts		= ARRAY_SIZE(vxlan_opts),
	.opts_size	= sizeof(struct vxlan_opts),
	.check		= vxlan_check,
	.open		= vxlan_open,
	.close		= vxlan_close,
	.xmit		= vxlan_xmit,
	.rx_begin	= vxlan_rx_begin,
	.rx_burst	= vxlan_rx_burst,
	.rx_end		= vxlan_rx_end,
	.timer		= vxlan_timer,
	.counters	= vxlan_counters,
	.cmds		= vxlan_cmds,
	.n_cmds		= ARRAY_SIZE(vxlan_cmds),
};
