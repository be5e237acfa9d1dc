/* SPDX-License-Identifier: GPL-2.0-or-later */
/* port.h - the interface every port type implements
 *
 * A port is one attachment to the switch: a vhost-user guest, a TAP
 * device, later AF_XDP and VXLAN.  Ports live in a fixed table owned by
 * the switch and are referred to by index across threads.  Each type
 * supplies a struct port_ops; the members' contracts are written here
 * once, and every implementation follows them.
 */
#ifndef VHOSTD_PORT_H
#define VHOSTD_PORT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "../net/gro.h"
#include "../net/pkt.h"
#include "../log.h"
#include "../stats.h"
#include "../usock.h"

/* Frames per burst: per rx_burst, per xmit. */
#define PORT_BURST	32
/* Port indexes are below this (the switch's table is no larger). */
#define PORT_IDX_MAX	64
/* A lending read: our virtio-net header, our Ethernet header, then at
 * most this many segments of lent space, so that the frame (Ethernet
 * header and the rest) fits a struct pkt's vector.
 */
#define PORT_LEND_HDRS		2
#define PORT_LEND_IOV_MAX	(PKT_IOV_MAX - 1)
#define PORT_LEND_VNET_LEN	sizeof(struct virtio_net_hdr_v1)

#define PORT_NAME_MAX	32	/* a port's name, a type's name, with NUL */
#define PORT_PATH_MAX	108	/* sun_path */
#define PORT_IFNAME_MAX	16	/* IFNAMSIZ */
#define PORT_OPTS_SIZE	512	/* room for a type's options (opts_size) */
#define PORT_QUEUES_MAX	16U	/* queue pairs of one port */
/* Learned MACs a port may own by default (max-macs=): a guest has one or
 * two.  64 ports at 64 fill at most a table's worth.
 */
#define PORT_MAX_MACS_DEFAULT	64
#define PORT_VLAN_DEFAULT	1	/* a port without vlan= (Linux: pvid 1) */
#define PORT_VLAN_MAX		4094	/* 802.1Q: 0 and 4095 name no VLAN */
#define PORT_VLAN_WORDS		64	/* a set of VLAN IDs, a bit each */
#define PORT_RATE_UNSET		UINT64_MAX	/* rate= etc. not given */
#define PORT_LATENCY_UNSET	UINT32_MAX	/* latency= not given */
#define PORT_MAX_MACS_MAX	4096	/* max-macs= at most: the MAC table's
					 * size (FDB_SIZE, checked in conf.c)
					 */

struct port;

/**
 * DOC: Theory of Operation - port specs and option tables
 *
 * A port is made from a spec, "TYPE,KEY=VALUE,..." as QEMU writes its
 * -netdev options.  The keys every type has (name=, max-macs=,
 * flood-rate=, flood-burst=) are read by the switch and live in struct
 * port_spec; a type's own keys are declared by the type, in a table of
 * struct port_opt in its port_ops (@opts), each naming a field of the
 * type's own options struct (@opts_size bytes, kept in @port_spec.opts)
 * by offset.  conf.c parses every spec against the common table plus the
 * type's, with no knowledge of any type: unknown, repeated, missing or
 * malformed keys are one line naming the key and the spec.  A type's
 * table may also name a field of struct port_spec itself
 * (PORT_OPT_COMMON): that is how vhost-user takes mac= and how TAP sets
 * its own default for max-macs=.  The type's open() reads its options
 * from port_spec_opts().
 */

/**
 * enum port_opt_type - how a key's value is written and stored
 * @PORT_OPT_STR:	text, stored NUL-terminated in a char[@size]
 * @PORT_OPT_NAME:	text of [A-Za-z0-9_.-] only, as PORT_OPT_STR
 * @PORT_OPT_IFNAME:	a network interface name (dev_valid_name()), as
 *			PORT_OPT_STR
 * @PORT_OPT_PATH:	a filesystem path, as PORT_OPT_STR; with
 *			PORT_OPT_UNIQUE also never the control socket's
 * @PORT_OPT_BOOL:	on|off, a bool (@def: 0 or 1); with PORT_OPT_BARE
 *			the key alone means on
 * @PORT_OPT_UINT:	decimal in [@min, @max], an unsigned int (@def)
 * @PORT_OPT_SIZE:	bytes, with an optional K, M, G or T (1024-based),
 *			non-zero, a uint64_t (@def); in [@min, @max] if
 *			@max is set
 * @PORT_OPT_RATE:	bits per second, with an optional k, M, G or T
 *			(1000-based), or 0 or off (no limit), a uint64_t
 *			(@def); in [@min, @max] unless 0
 * @PORT_OPT_MAC:	a unicast station address aa:bb:cc:dd:ee:ff, a
 *			uint8_t[6] left zero when not given
 * @PORT_OPT_ADDR:	a numeric IPv4 HOST:PORT or [IPv6]:PORT, a union
 *			port_addr (family AF_UNSPEC when not given)
 * @PORT_OPT_IP:	a numeric IPv4 or IPv6 address without a port, a
 *			struct port_ip (family AF_UNSPEC when not given);
 *			with PORT_OPT_LIST an array of them, the key
 *			repeatable, filled in the order given
 * @PORT_OPT_VLANS:	VLAN IDs 1-4094, one or a range A-B, several joined
 *			by ':'; the key may repeat, adding to the set (a
 *			uint64_t[PORT_VLAN_WORDS] bitmap, empty when not
 *			given)
 * @PORT_OPT_ACL:	one key of a listening socket's struct usock_acl:
 *			the key is owner, group, mode, allow-uid or
 *			allow-gid; users and groups are resolved at parse
 *			time
 */
enum port_opt_type {
	PORT_OPT_STR,
	PORT_OPT_NAME,
	PORT_OPT_IFNAME,
	PORT_OPT_PATH,
	PORT_OPT_BOOL,
	PORT_OPT_UINT,
	PORT_OPT_SIZE,
	PORT_OPT_RATE,
	PORT_OPT_MAC,
	PORT_OPT_ADDR,
	PORT_OPT_IP,
	PORT_OPT_VLANS,
	PORT_OPT_ACL,
};

/* struct port_opt @flags */
#define PORT_OPT_REQUIRED	0x1U	/* a spec without the key is refused */
#define PORT_OPT_BARE		0x2U	/* a bool key may stand alone: on */
#define PORT_OPT_UNIQUE		0x4U	/* no two ports have the same value
					 * of keys of this name (text types)
					 */
#define PORT_OPT_COMMON		0x8U	/* @off is into struct port_spec */
#define PORT_OPT_STARTUP	0x10U	/* given, the port needs what only
					 * start-up has (a network socket
					 * under the sandbox): refused at
					 * run time (ctl "port add")
					 */
#define PORT_OPT_LIST		0x20U	/* PORT_OPT_IP: the key may repeat,
					 * each value the next entry of an
					 * array of @size bytes
					 */

/**
 * struct port_opt - one key of a port type's spec
 * @key:	the key, as written in a spec
 * @type:	value syntax and storage (enum port_opt_type)
 * @flags:	PORT_OPT_*
 * @off:	offset of the field in the type's options struct (or in
 *		struct port_spec with PORT_OPT_COMMON)
 * @size:	the field's size (PORT_OPT_AT())
 * @min:	PORT_OPT_UINT: lowest value
 * @max:	PORT_OPT_UINT: highest value
 * @def:	default of PORT_OPT_BOOL, _UINT, _SIZE (others: zero)
 * @help:	one line for --help and the manual: "VALUE: what it does"
 */
struct port_opt {
	const char *key;
	enum port_opt_type type;
	unsigned int flags;
	uint32_t off;
	uint32_t size;
	uint64_t min;
	uint64_t max;
	uint64_t def;
	const char *help;
};

/* PORT_OPT_AT() - @off and @size of field @f of struct type @st */
#define PORT_OPT_AT(st, f)						\
	.off = offsetof(st, f), .size = sizeof(((st *)0)->f)

/**
 * union port_addr - a PORT_OPT_ADDR value
 * @sa:		family (AF_UNSPEC: not given)
 * @in4:	AF_INET
 * @in6:	AF_INET6
 */
union port_addr {
	struct sockaddr sa;
	struct sockaddr_in in4;
	struct sockaddr_in6 in6;
};

/**
 * struct port_ip - a PORT_OPT_IP value
 * @family:	AF_INET, AF_INET6, or AF_UNSPEC: not given
 * @a:		the address, network order (IPv4: the first 4 bytes)
 */
struct port_ip {
	uint16_t family;
	uint8_t a[16];
};

/**
 * struct port_spec - one port's spec, parsed (conf.c)
 * @type:	the type's name (struct port_ops @type)
 * @name:	port name (name=; default: the type's @name_prefix and the
 *		port's index)
 * @named:	@name was given, not the default
 * @max_macs:	MACs the port may own in the MAC table (max-macs=, 0 =
 *		learn none)
 * @mac:	the only source MAC accepted from the port, a static MAC
 *		table entry (mac=, for types that take it)
 * @has_mac:	@mac was given
 * @flood_rate:	flooded frames per second the port may send (flood-rate=,
 *		0 = no limit)
 * @flood_burst: bucket depth for @flood_rate (flood-burst=, 0 = default)
 * @rate:	bits/s both ways (rate=; PORT_RATE_UNSET when not given)
 * @burst:	bytes both ways (burst=; 0: not given)
 * @rx_rate:	bits/s the port may take from its peer (rx-rate=, else
 *		rate=; 0: no limit), resolved by conf.c
 * @rx_burst:	its burst, bytes (rx-burst=, else burst=; 0: default)
 * @tx_rate:	bits/s delivered to the peer (tx-rate=, else rate=)
 * @tx_burst:	its burst (tx-burst=, else burst=)
 * @vlan:	the VLAN of the port's bridge domain, 1-4094 (vlan=;
 *		PORT_VLAN_DEFAULT when not given); a trunk's native VLAN, 0
 *		if it has none
 * @vlan_set:	vlan= was given
 * @isolated:	talks to no other isolated port of its domain (isolated=)
 * @tagged:	frames carrying a VLAN tag are taken from the peer, as
 *		payload of the domain (tagged=; default: !@vlan_set)
 * @trunk:	a trunk port's VLANs (trunk=), bit v of word v / 64: VLAN
 *		v; all zero for an access port
 * @is_trunk:	trunk= was given
 * @native:	a trunk's untagged VLAN (native=; 0: untagged frames are
 *		dropped), also in @trunk
 * @latency_us:	latency target of its queues' auto polling, us (latency=;
 *		PORT_LATENCY_UNSET: --latency-us)
 * @given:	bit i: the type's @opts[i] was in the spec
 * @opts:	the type's options struct, @ops->opts_size bytes
 */
struct port_spec {
	char type[PORT_NAME_MAX];
	char name[PORT_NAME_MAX];
	bool named;
	unsigned int max_macs;
	uint8_t mac[6];
	bool has_mac;
	unsigned int flood_rate;
	unsigned int flood_burst;
	uint64_t rate;
	uint64_t burst;
	uint64_t rx_rate;
	uint64_t rx_burst;
	uint64_t tx_rate;
	uint64_t tx_burst;
	unsigned int vlan;
	bool vlan_set;
	bool isolated;
	bool tagged;
	bool is_trunk;
	unsigned int native;
	uint64_t trunk[PORT_VLAN_WORDS];
	unsigned int latency_us;
	uint32_t given;
	_Alignas(16) unsigned char opts[PORT_OPTS_SIZE];
};

/**
 * port_vlan_has() - whether VLAN @vid is in a set (struct port_spec
 *		     @trunk)
 * @set:	PORT_VLAN_WORDS words
 * @vid:	VLAN ID, any value (out of 1-4094: never in it)
 * Return: true if in it
 */
static inline bool port_vlan_has(const uint64_t *set, unsigned int vid)
{
	return vid && vid <= PORT_VLAN_MAX && (set[vid / 64] >> (vid % 64) & 1);
}

/**
 * port_vlan_add() - put VLAN @vid into a set
 * @set:	PORT_VLAN_WORDS words
 * @vid:	1-4094
 */
static inline void port_vlan_add(uint64_t *set, unsigned int vid)
{
	set[vid / 64] |= 1ULL << (vid % 64);
}

/**
 * port_spec_trunk_vlans() - how many VLANs a trunk carries tagged
 * @spec:	parsed spec
 * Return: its trunk= VLANs but the native one; 0 for an access port
 */
static inline unsigned int port_spec_trunk_vlans(const struct port_spec *spec)
{
	unsigned int w, n = 0;

	if (!spec->is_trunk)
		return 0;
	for (w = 0; w < PORT_VLAN_WORDS; w++)
		n += (unsigned int)__builtin_popcountll(spec->trunk[w]);
	return n - (spec->native ? 1 : 0);
}

/**
 * port_spec_opts() - a spec's type-specific options
 * @spec:	parsed spec
 * Return: the type's options struct (struct port_ops @opts_size bytes)
 */
static inline const void *port_spec_opts(const struct port_spec *spec)
{
	return spec->opts;
}

/**
 * enum port_src_kind - how a source queue's fd tells a worker of work
 * @PORT_SRC_LEVEL:	readable while frames wait (a tun queue)
 * @PORT_SRC_KICK:	a front end's kick eventfd: watched edge-triggered
 *			and never read (efd.c), one turn given at once
 */
enum port_src_kind {
	PORT_SRC_LEVEL,
	PORT_SRC_KICK,
};

/**
 * struct port_turn - one worker's turn at one source queue
 * @budget:	frames, or their worth, the turn may process (in)
 * @done:	frames processed so far, dropped ones included
 * @dry:	the queue has nothing more now
 * @bytes:	bytes the turn may take (in; 0: no limit): the port's
 *		rx= rate limit (rate.h).  A port that can stop by bytes
 *		stops once they are spent (the last frame may overshoot);
 *		the others overshoot by a turn, charged all the same
 * @due:	out of @rx_end, 0 in: when (now_ns()) the port wants @tick
 *		on this queue for something it put off; 0: nothing
 *
 * A turn is rx_begin, then rx_burst and rx_done until the budget is
 * spent or the queue runs dry, then rx_end (struct port_ops).
 */
struct port_turn {
	unsigned int budget;
	unsigned int done;
	bool dry;
	uint64_t bytes;
	uint64_t due;
};

/**
 * struct port_queue_stats - one queue pair's counters, as ctl shows them
 * @rx_packets:	frames the port took from its peer on the pair (a guest's
 *		TX queue), as the port's rx_packets
 * @rx_bytes:	their bytes
 * @tx_packets:	frames delivered on the pair (a guest's RX queue)
 * @tx_bytes:	their bytes
 */
struct port_queue_stats {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t tx_packets;
	uint64_t tx_bytes;
};

/**
 * struct port_peer - what a port and its peer agreed on, as ctl shows it
 * @connected:	a peer is attached; without one the rest is what the port
 *		offers alone (@pairs, @offered) and zeros
 * @offered:	feature bits the port offers its peer
 * @features:	feature bits the peer acked (a subset of @offered and of
 *		whatever the protocol adds, e.g. vhost-user's bit 30)
 * @protocol:	protocol feature bits the peer acked, 0 where none
 * @pairs:	queue pairs the port offers
 * @pairs_enabled: pairs the peer enabled, both queues of each
 * @pairs_started: pairs the datapath serves now, both queues of each
 * @ring:	ring layout agreed ("split", "packed"), NULL while none is
 */
struct port_peer {
	bool connected;
	uint64_t offered;
	uint64_t features;
	uint64_t protocol;
	unsigned int pairs;
	unsigned int pairs_enabled;
	unsigned int pairs_started;
	const char *ring;
};

/**
 * struct port_lend - RX buffer space a port lends to a reader
 * @pair:	queue pair to lend from (in, before @lend_begin)
 * @vec:	the read vector: @vec[0] and @vec[1] are the reader's (its
 *		virtio-net and Ethernet header scratch, set by the switch);
 *		@lend_reserve fills @vec[PORT_LEND_HDRS] on with the space
 *		lent for the rest of one frame
 * @niov:	segments @lend_reserve put after the headers
 * @cap:	bytes they hold
 * @why:	enum stats_direct: why the last op refused
 * @sent:	frames committed since @lend_begin
 * @bytes:	their bytes (Ethernet header included)
 * @cookie:	the lender's (its locked queue)
 * @bad:	the lender's: unusable buffers the peer posted, given back
 *		empty since @lend_begin (@lend_end publishes and counts them)
 *
 * Owned by the worker running the reader's turn; see port_ops's lend_*
 * members for the protocol.
 */
struct port_lend {
	unsigned int pair;
	struct iovec vec[PORT_LEND_HDRS + PORT_LEND_IOV_MAX];
	unsigned int niov;
	size_t cap;
	int why;
	unsigned int sent;
	uint64_t bytes;
	void *cookie;
	unsigned int bad;
};

/**
 * struct port_reader - a source queue that can read one frame where it is
 *			told, so another port's buffers can take it directly
 * @read:	read ONE frame into @iov (@n segments: the first is
 *		PORT_LEND_VNET_LEN bytes for the frame's virtio-net header,
 *		which a source without one fills in itself, zeroed).  Return
 *		its length with that header, the frame's full length even
 *		when it did not fit (tun does); 0 or -EAGAIN if there is none
 *		now; another -errno on a failure (counted, the turn ends)
 * @burst:	the reader's ordinary path, as rx_burst: read frames into
 *		its own buffers for switch_forward() (when no buffers can
 *		be lent now)
 * @dst:	index of the port whose buffers the frames should land in
 * @src_feat:	offloads of the frames read (struct pkt's @src_feat)
 * @frame_max:	largest frame @read may return, without the virtio-net
 *		header: the space reserved before each read (control
 *		writes, relaxed)
 * @bounce:	PKT_FRAME_MAX bytes: a frame that cannot stay where it was
 *		read is copied here
 * @pkt:	that frame, described in @bounce
 * @vnet:	a frame's virtio-net header lands here, never in lent space
 * @eth:	its Ethernet header lands here: what the switch decides on
 *		(learning, steering) is never memory a peer can rewrite
 * @lend:	the destination's lent space
 *
 * Owned by the one worker that polls the source queue.
 */
struct port_reader {
	ssize_t (*read)(struct port_reader *rd, const struct iovec *iov,
			int n);
	unsigned int (*burst)(struct port_reader *rd, struct pkt **pkts,
			      unsigned int max, struct port_turn *turn);
	unsigned int dst;
	uint64_t src_feat;
	uint32_t frame_max;
	uint8_t *bounce;
	struct pkt pkt;
	struct virtio_net_hdr_v1 vnet;
	struct ethhdr eth;
	struct port_lend lend;
};

/**
 * struct port_lender - a port that can lend RX buffers, as the host lists it
 * @idx:	its index
 * @ok:	its lend_ok() for the asker's offloads, now (a hint)
 * @pairs:	queue pairs it has (1 without lend_flows)
 * @on:		those whose RX side runs now (bit i: pair i)
 * @name:	its name, for messages (control thread: stable meanwhile)
 */
struct port_lender {
	unsigned int idx;
	bool ok;
	unsigned int pairs;
	uint32_t on;
	const char *name;
};

#define PORT_FLOWS	256	/* flow slots a port remembers pairs for */

/**
 * struct port_out - where a port command writes its reply
 * @put:	append text, printf-style (ctl's buffer)
 * @ctx:	the writer's
 *
 * What a command writes is one JSON object.  A port builds it from its
 * own numbers and addresses (nothing a peer wrote reaches it
 * unformatted); text the operator gave (an interface name, a path) goes
 * through port_out_str(), which quotes and escapes it.
 */
struct port_out {
	void (*put)(struct port_out *o, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
	void *ctx;
};

/**
 * struct port_cmd - a command of one port type on the control socket
 * @verb:	"TYPE VERB NAME[,KEY=VALUE...]" runs it on port NAME
 * @keys:	for help: the keys after NAME, e.g. ",mac=MAC,vtep=IP", or
 *		"" if none
 * @help:	one line
 * @fn:		control thread: run on @p with @args (the text after NAME
 *		and its comma, "" if none).  Write one JSON object to @out
 *		and return 0, or return -EINVAL with one line in @err (then
 *		nothing written to @out counts)
 */
struct port_cmd {
	const char *verb;
	const char *keys;
	const char *help;
	int (*fn)(struct port *p, const char *args, struct port_out *out,
		  char *err, size_t errlen);
};

/**
 * DOC: Theory of Operation - one port carrying another's underlay (via=)
 *
 * A tunnel port (vxlan) may have its datagrams carried by another port's
 * raw frames (afxdp) instead of the host's sockets: the tunnel owns an
 * underlay address on the carrier's wire (net/underlay.h), the carrier
 * shows it every frame it reads (@rx: the tunnel keeps its datagrams,
 * ARP and ND for its address), and the tunnel writes whole frames into
 * the carrier's TX buffers (port_ops @ul_tx_*).  Meanwhile the carrier
 * is no switch port (down, its other frames dropped): its wire is the
 * underlay, and in the tunnel's bridge domain it would loop the tunnel
 * into itself and put the tenants' frames on the underlay bare.  The tunnel's
 * inner frames enter the switch from the carrier's worker, as the
 * tunnel's (port_forward()), straight from the carrier's buffers.
 */

/**
 * enum port_ul_verdict - what a carried frame is to its tunnel
 * @PORT_UL_PASS:	not the tunnel's (the carrier drops it)
 * @PORT_UL_TAKEN:	the tunnel's, used up (answered, noted, dropped
 *			and counted)
 * @PORT_UL_FRAME:	the tunnel's: the inner frame it carries, in place,
 *			is described in @pkt, to enter the switch from the
 *			tunnel
 */
enum port_ul_verdict {
	PORT_UL_PASS,
	PORT_UL_TAKEN,
	PORT_UL_FRAME,
};

/**
 * struct port_underlay - a tunnel port's attachment to its carrier
 * @client:	the tunnel port (set by it)
 * @rx:		the tunnel's (carrier's worker, any of its queues at once):
 *		what frame @f (@len bytes, read-only, valid until the
 *		carrier's rx_done) is to it; with PORT_UL_FRAME @pkt
 *		describes the inner frame inside @f.  @vnet: the offload
 *		metadata the carrier's interface gave the frame (a TAP's:
 *		a UDP tunnel GSO frame whole, a checksum left partial), or
 *		NULL (a wire's frame: none)
 * @gro:	the tunnel's: join the TCP segments it keeps (net/gro.h)
 * @gro_ctr:	the tunnel's: its "segments joined" counter's index in
 *		struct port_stats @type, "frames joined" the next
 * @mac:	the carrier's (set by @ul_attach): its interface's MAC
 * @frame_max:	the carrier's: the largest frame it sends (its MTU and an
 *		Ethernet header; a TAP's follows its MTU, atomic)
 * @queues:	the carrier's: its TX queues (@ul_tx_begin's @q below this)
 * @gso:	the carrier's: it takes frames with GSO metadata whole
 *		(@ul_tx_gso)
 * @tnl_gso:	the carrier's: it takes UDP tunnel GSO frames whole
 *		(@ul_tx_gso with a struct port_ul_tnl: the inner TSO frame
 *		behind the tunnel's headers, cut by the kernel as late as
 *		it can, or never)
 * @tnl_csum:	the carrier's: with @tnl_gso, the outer UDP checksum may
 *		be left to it (VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM)
 */
struct port_underlay {
	struct port *client;
	enum port_ul_verdict (*rx)(struct port *client, uint8_t *f,
				   size_t len,
				   const struct virtio_net_hdr_v1 *vnet,
				   struct pkt *pkt);
	bool gro;
	unsigned int gro_ctr;
	uint8_t mac[6];
	uint32_t frame_max;
	unsigned int queues;
	bool gso;
	bool tnl_gso;
	bool tnl_csum;
};

/**
 * struct port_ul_tnl - where a UDP tunnel GSO frame's layers start
 *			(virtio 1.4's virtio_net_hdr_v1_hash_tunnel)
 * @outer_th:	the outer UDP header's offset in the frame
 * @inner_nh:	the inner network header's
 *
 * With it, a struct virtio_net_hdr_v1's gso_type carries
 * VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4 or _IPV6 beside the inner type, and
 * its csum_start, csum_offset and hdr_len are the inner transport's.
 */
struct port_ul_tnl {
	uint16_t outer_th;
	uint16_t inner_nh;
};

/* Linux 6.17's uapi (virtio_net.h), newer than the headers built on. */
#ifndef VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4
#define VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4	0x20
#define VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6	0x40
#endif
#ifndef VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM
#define VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM	8
#endif

/**
 * struct port_ops - a port type
 * @type:	name used in --port specs ("vhost-user", "tap")
 * @name_prefix: default port name, before the port's index ("vu")
 * @priv_size:	bytes of per-port private state (port->priv)
 * @opts:	the type's spec keys, @n_opts of them (see the DOC above)
 * @n_opts:	entries in @opts (at most 32)
 * @opts_size:	bytes of the type's options struct, <= PORT_OPTS_SIZE
 * @check:	conf.c, after every key parsed: NULL if the options go
 *		together, else what is wrong, one phrase for the error line.
 *		@given has bit i set if @opts[i] was in the spec.  May be
 *		NULL
 * @runtime_refused: NULL if a port of this type can be added at run
 *		time (ctl "port add"), else why not, one phrase
 * @open:	create the port from @spec (control thread, start-up or
 *		ctl).  Return 0 or -errno; on failure nothing is left open.
 *		Source queues are handed to the workers with port_src_add().
 * @close:	undo @open (control thread); the port is already out of
 *		forwarding and every worker has finished the pass it was in
 *		(port_quiesce()): no xmit or turn runs any more.
 * @xmit:	switch -> port: deliver @n frames (any worker thread, may
 *		run concurrently with other workers delivering to the same
 *		port: serialise internally).  Copies what it accepts; the
 *		frames' buffers are untouched and belong to the caller.
 *		Return how many were delivered; the port counts the rest as
 *		drops by reason.  Never blocks.
 * @rx_begin:	worker, a turn at source queue @q begins: make it ready
 *		to read (a guest's TX queue: its lock, its kicks off) and
 *		return true; false if there is nothing to read now (stopped,
 *		broken): the turn ends without @rx_end.
 *		A source that can suppress its notifications (a guest's TX
 *		kicks) leaves them off: the worker keeps giving it turns
 *		until @arm.
 * @rx_burst:	worker, phase one: describe up to @max frames of @q in
 *		@pkts, in place (nothing copied: a struct pkt points into
 *		the port's or the guest's buffers), add every frame taken
 *		off the queue to @turn->done (dropped ones too), set
 *		@turn->dry when the queue ran out.  @turn->budget is work as
 *		much as frames: a port whose frames cost more (long
 *		descriptor chains, big frames) ends the turn earlier by
 *		setting @turn->done to @turn->budget.  The worker hands the
 *		frames to switch_forward().  Return the frames in @pkts; 0
 *		only with @turn->done grown or @turn->dry set.
 * @rx_done:	worker, phase two: every destination has copied the last
 *		burst: give its buffers back (not yet published).  May be
 *		NULL.
 * @rx_end:	worker, the turn ends: publish what @rx_done gave back,
 *		once, release what @rx_begin took, notify the peer.
 * @arm:	worker: the source ran dry and the worker is about to sleep:
 *		turn notifications back on and return true if work arrived
 *		meanwhile (then the worker polls again instead of sleeping).
 *		NULL for sources whose fd is simply level-triggered (TAP).
 * @stage:	worker: the source @q ran dry and the worker has a moment:
 *		get ready for the next frame *to* this port (a guest's next
 *		RX buffer, looked up and warmed) so that the delivery does
 *		not wait for it.  Must not block; may do nothing.  NULL if
 *		there is nothing to prepare (TAP).
 * @tick:	worker: the time an @rx_end set in @turn->due has come:
 *		do what was put off then (a guest's TX-completion interrupt
 *		held back, port_vhost_dp.c).  Return 0, or a later time to
 *		be called again.  Must not block.  May be NULL if @rx_end
 *		never sets @turn->due
 * @timer:	control thread, once a second: housekeeping (may be NULL)
 * @queue_stats: control thread (ctl): fill up to @max entries of @qs,
 *		one per queue pair, and return how many (may be NULL: no
 *		per-queue counters).  Racy reads of the workers' counts.
 * @peer:	control thread (ctl): fill @pp with what the port and its
 *		peer negotiated (may be NULL: nothing is negotiated).
 *		Reads control-thread state only: exact, not racy
 * @feature_names: the names of @peer's @offered and @features bits,
 *		[bit] = name, NULL where unnamed; 64 entries, or NULL
 * @protocol_names: the same for @peer's @protocol bits
 * @show:	control thread (ctl "show NAME"): write what the port is
 *		beyond its counters and @peer, as JSON members, each
 *		',"key":value', to @out: its rings or queues, guest memory
 *		regions (guest addresses and sizes only: a host address would
 *		show a ctl client vhostd's layout), its device.  Takes the
 *		locks the datapath does for what the workers write.  May be
 *		NULL
 * @counters:	the type's counters beyond stats_common: NULL-terminated
 *		list of tables (stats.h), or NULL.  ctl shows a port these
 *		and the common ones, nothing else
 * @cmds:	the type's own control commands (struct port_cmd), @n_cmds
 *		of them, or NULL
 * @n_cmds:	entries in @cmds
 *
 * Lending RX buffers (optional, all five or none): a reader of another
 * port (a TAP queue; VXLAN, AF_XDP) lands frames straight in this port's
 * buffers, one copy, through the switch (port_lend_rx()), which alone
 * decides whether a frame may stay.  Every lend_* runs on the reader's
 * worker; between @lend_begin and @lend_end the port's queue is locked
 * (a destination lock: nothing else is taken meanwhile).
 * @lend_ok:	control thread: whether frames with offloads @src_feat
 *		suit this port whole (a hint for steering: every frame is
 *		checked again at @lend_commit)
 * @lend_begin:	lock the RX queue of pair @l->pair; 0, or -1 with @l->why
 *		(down, no mergeable buffers): nothing is held then and
 *		@lend_end is not called
 * @lend_reserve: hold buffers for @cap bytes after a frame's headers and
 *		describe them in @l (@vec from PORT_LEND_HDRS, @niov, @cap
 *		>= the asked @cap); 0, or -1 with @l->why (too few buffers,
 *		broken).  Buffers held and not committed stay held for the
 *		next reserve (or the peer gets them back when the queue
 *		stops): cancelling is not committing
 * @lend_commit: the frame @pkt (our copy of its headers; @pkt->len bytes
 *		with the Ethernet header, the rest read into the reserved
 *		space) stays: write the headers, return the buffers it used
 *		(not yet published); 0, or -1 with @l->why (MTU, offloads
 *		the peer cannot take): nothing returned, still reserved
 * @lend_end:	publish what was committed, unlock, notify the peer once,
 *		count the frames delivered
 * @lend_flows:	optional, control thread: the port's queue pairs (the
 *		return value), those running (@on), and, if @table is not
 *		NULL, the pair + 1 each flow slot (flow_hash() % PORT_FLOWS)
 *		goes to, 0 for none known: where a reader should put a
 *		flow's frames (a hint: @lend_commit checks the pair).
 *		Without it a port has one pair
 *
 * Carrying a tunnel's underlay (optional, all six or none; see struct
 * port_underlay):
 * @ul_attach:	control thread, start-up: show @ul every frame read from
 *		now on and fill its @mac, @frame_max and @queues; leave the
 *		switch (down) meanwhile; 0, or -EBUSY if a tunnel is
 *		attached already
 * @ul_detach:	control thread: no more, a switch port again; returns
 *		once no worker is in @ul->rx
 * @ul_tx_begin: any thread: lock TX queue @q (a flow's: its hash modulo
 *		@queues) and return it (a cookie for the calls below)
 * @ul_tx_buf:	a free TX buffer of @frame_max bytes on queue @txq, or NULL
 *		(none: the frame is dropped); the same one until put
 * @ul_tx_put:	send the first @len bytes of the buffer @ul_tx_buf gave;
 *		0, or -ENOBUFS (the TX ring full: the buffer stays free)
 * @ul_tx_end:	have what was put sent, unlock
 * @ul_tx_gso:	with @ul->gso, under @ul_tx_begin: send the frame @iov
 *		(@cnt pieces) whole with its virtio-net metadata @vnet
 *		(a UDP GSO train of datagrams, say), after what was put
 *		before it; the interface segments it.  @tnl: NULL, or
 *		(with @ul->tnl_gso) a UDP tunnel GSO frame's layers.
 *		0 or -errno (then the tunnel cuts it itself)
 */
struct port_ops {
	const char *type;
	const char *name_prefix;
	unsigned int priv_size;
	const struct port_opt *opts;
	unsigned int n_opts;
	unsigned int opts_size;
	const char *(*check)(const void *opts, uint32_t given);
	const char *runtime_refused;
	int (*open)(struct port *p, const struct port_spec *spec);
	void (*close)(struct port *p);
	unsigned int (*xmit)(struct port *p, struct pkt *const *pkts,
			     unsigned int n);
	bool (*rx_begin)(struct port *p, uint32_t q, struct port_turn *turn);
	unsigned int (*rx_burst)(struct port *p, uint32_t q, struct pkt **pkts,
				 unsigned int max, struct port_turn *turn);
	void (*rx_done)(struct port *p, uint32_t q, struct port_turn *turn);
	void (*rx_end)(struct port *p, uint32_t q, struct port_turn *turn);
	bool (*arm)(struct port *p, uint32_t q);
	void (*stage)(struct port *p, uint32_t q);
	uint64_t (*tick)(struct port *p, uint32_t q, uint64_t now);
	void (*timer)(struct port *p);
	unsigned int (*queue_stats)(const struct port *p,
				    struct port_queue_stats *qs,
				    unsigned int max);
	void (*peer)(const struct port *p, struct port_peer *pp);
	const char *const *feature_names;
	const char *const *protocol_names;
	void (*show)(const struct port *p, struct port_out *out);
	const struct stats_table *const *counters;
	const struct port_cmd *cmds;
	unsigned int n_cmds;
	bool (*lend_ok)(struct port *p, uint64_t src_feat);
	int (*lend_begin)(struct port *p, struct port_lend *l);
	int (*lend_reserve)(struct port *p, struct port_lend *l, size_t cap);
	int (*lend_commit)(struct port *p, struct port_lend *l,
			   const struct pkt *pkt);
	void (*lend_end)(struct port *p, struct port_lend *l);
	unsigned int (*lend_flows)(struct port *p, uint8_t *table,
				   uint32_t *on);
	int (*ul_attach)(struct port *p, struct port_underlay *ul);
	void (*ul_detach)(struct port *p);
	void *(*ul_tx_begin)(struct port *p, unsigned int q);
	uint8_t *(*ul_tx_buf)(struct port *p, void *txq);
	int (*ul_tx_put)(struct port *p, void *txq, uint32_t len);
	void (*ul_tx_end)(struct port *p, void *txq);
	int (*ul_tx_gso)(struct port *p, void *txq, const struct iovec *iov,
			 unsigned int cnt,
			 const struct virtio_net_hdr_v1 *vnet,
			 const struct port_ul_tnl *tnl);
};

/**
 * struct port_host - what ports ask of the layers above them
 * @src_add:	have a worker own source queue @q of @p, woken by @fd
 *		(@kind); return the worker's number or -errno
 * @src_del:	the worker gives @q up; when this returns no turn at it
 *		runs or will run
 * @quiesce:	return once every worker has finished the pass it was in
 * @set_up:	@p starts or stops taking frames; stopping forgets the MACs
 *		learned on it
 * @lenders:	fill up to @max entries of @out with the ports that can
 *		lend RX buffers (lend_* ops) and that frames from @src may
 *		reach (bridge domain, isolation), in index order, each with
 *		its lend_ok(@src_feat); return how many
 * @mac_walk:	call @fn(@arg, mac, port index) for every MAC in the
 *		switch's table, at most @mac_max of them (racy: a MAC
 *		moving meanwhile may be reported twice)
 * @mac_max:	most MACs @mac_walk reports
 * @lend_rx:	worker, a turn at @src's queue of @rd: land frames in the
 *		buffers of port @rd->dst, as many as the turn allows (see
 *		port_lend_rx()); return frames in @pkts for switch_forward()
 * @lend_flows:	port @idx's lend_flows(@table, @on), or 0 if it is gone or
 *		has none
 * @forward:	worker: frames of port @src, read by another port on its
 *		behalf (a carried tunnel's), into the switch as @src's
 * @find:	control thread: the port named @name, or NULL
 * @inject:	control thread: forward one frame of the port's own making
 *		(a RARP announcing a migrated guest) as if @src received it,
 *		under the rules @src's frames follow (MAC lock, quota,
 *		storm control)
 *
 * Set once by the worker layer before any port opens (worker_init());
 * ports call it through the port_*() helpers below, from the control
 * thread but for @lend_rx.
 */
struct port_host {
	int (*src_add)(struct port *p, uint32_t q, int fd,
		       enum port_src_kind kind);
	void (*src_del)(struct port *p, uint32_t q);
	void (*quiesce)(void);
	void (*set_up)(struct port *p, bool up);
	unsigned int (*lenders)(const struct port *src, uint64_t src_feat,
				struct port_lender *out, unsigned int max);
	void (*mac_walk)(void (*fn)(void *arg, const uint8_t *mac,
				    unsigned int port),
			 void *arg);
	unsigned int mac_max;
	unsigned int (*lend_rx)(struct port *src, struct port_reader *rd,
				struct pkt **pkts, unsigned int max,
				struct port_turn *turn);
	unsigned int (*lend_flows)(unsigned int idx, uint8_t *table,
				   uint32_t *on);
	void (*forward)(struct port *src, struct pkt *const *pkts,
			unsigned int n);
	struct port *(*find)(const char *name);
	void (*inject)(struct port *src, struct pkt *pkt);
};

extern const struct port_host *port_host;

/**
 * struct port_env - what the layers above tell ports about the process
 * @sealed:	start-up is over (priv_drop()): ports may no longer open
 *		devices, e.g. a TAP's further tun queues
 * @uid_set:	@uid is --user's (priv_init())
 * @uid:	the uid vhostd runs as after start-up if @uid_set, else
 *		the effective uid is: the owner of devices a port creates
 *
 * Control thread only.
 */
struct port_env {
	bool sealed;
	bool uid_set;
	uint32_t uid;
};

extern struct port_env port_env;

/**
 * struct port - one switch port
 * @idx:	index in the switch's table (stable while in use)
 * @in_use:	slot holds a port
 * @up:		forwarding enabled: the switch delivers to this port only
 *		while set (written by the port's control-side code)
 * @name:	user-visible name
 * @ops:	type
 * @stats:	counters, one slot per counting thread (see stats.h):
 *		write through port_ctr(), read by ctl through the tables
 *		of stats.h
 * @log:	rate limit of this port's log lines (log.h), any thread
 * @carrying:	the port carries a tunnel's underlay (port_ops @ul_attach):
 *		it cannot be removed before the tunnel (control thread)
 * @priv:	type-specific state, @ops->priv_size bytes
 */
struct port {
	unsigned int idx;
	bool in_use;
	bool up;
	char name[PORT_NAME_MAX];
	const struct port_ops *ops;
	struct port_stats stats[STATS_SLOTS];
	struct log_src log;
	bool carrying;
	void *priv;
};

/**
 * port_ctr() - the calling thread's counters of @p
 * @p:		port
 * Return: the slot to stats_add() into
 */
static inline struct port_stats *port_ctr(struct port *p)
{
	return &p->stats[stats_slot];
}

extern const struct port_ops port_vhost_ops;
extern const struct port_ops port_tap_ops;

/*
 * port_ops_find()	the type named @type, or NULL.
 * port_ops_at()	the @i-th registered type, or NULL past the last
 *			(for listing them: errors, --help).
 * port_out_str()	write a quoted, escaped JSON string to @o.
 */
const struct port_ops *port_ops_find(const char *type);
const struct port_ops *port_ops_at(unsigned int i);
void port_out_str(struct port_out *o, const char *s);

/**
 * port_count_xmit() - an xmit's accounting: what went out, what was dropped
 * @p:		port
 * @sent:	frames delivered
 * @bytes:	their bytes
 * @drops:	frames dropped, by enum stats_drop reason
 *
 * Context: the calling worker's counter slot (port_ctr())
 */
static inline void port_count_xmit(struct port *p, unsigned int sent,
				   uint64_t bytes,
				   const unsigned int drops[STATS_DROP_COUNT])
{
	unsigned int i;

	if (sent) {
		stats_add(&port_ctr(p)->tx_packets, sent);
		stats_add(&port_ctr(p)->tx_bytes, bytes);
	}
	for (i = 0; i < STATS_DROP_COUNT; i++)
		if (drops[i])
			stats_add(&port_ctr(p)->drops[i], drops[i]);
}

/* port_src_add() - see struct port_host: a worker number, or -errno
 * (-ENODEV with no host: nothing runs ports' queues, e.g. unit tests)
 */
static inline int port_src_add(struct port *p, uint32_t q, int fd,
			       enum port_src_kind kind)
{
	return port_host ? port_host->src_add(p, q, fd, kind) : -ENODEV;
}

/* port_src_del() - see struct port_host */
static inline void port_src_del(struct port *p, uint32_t q)
{
	if (port_host)
		port_host->src_del(p, q);
}

/* port_quiesce() - see struct port_host; nothing to wait for without */
static inline void port_quiesce(void)
{
	if (port_host)
		port_host->quiesce();
}

/* port_set_up() - see struct port_host */
static inline void port_set_up(struct port *p, bool up)
{
	if (port_host)
		port_host->set_up(p, up);
	else
		__atomic_store_n(&p->up, up, __ATOMIC_SEQ_CST);
}

/* port_inject() - see struct port_host; dropped without a host */
static inline void port_inject(struct port *src, struct pkt *pkt)
{
	if (port_host && port_host->inject)
		port_host->inject(src, pkt);
}

/**
 * struct port_sink - one burst's frames for one source port (a reader's
 *		       own, or a tunnel's it carries), consecutive TCP
 *		       segments joined (net/gro.h)
 * @pkts:	where the frames are described (the next one at [@n])
 * @out:	the frames handed on
 * @flow:	the TCP frame being joined
 * @gro_hdr:	joined frames' headers, by index
 * @n:		frames in @out
 * @open:	the index of the frame being joined, -1 if none
 * @gro:	join TCP segments
 * @ctr:	the source port's "joined" counter in its type[] (the next
 *		one: "frames")
 * @joined:	segments joined to the frame before
 * @frames:	frames made of more than one
 */
struct port_sink {
	struct pkt *pkts;
	struct pkt **out;
	struct gro_flow *flow;
	uint8_t (*gro_hdr)[GRO_HDR_MAX];
	unsigned int n;
	int open;
	bool gro;
	unsigned int ctr;
	unsigned int joined;
	unsigned int frames;
};

void port_sink_take(struct port_sink *s, const uint8_t *l2);
void port_sink_end(struct port_sink *s, struct port *p);

/* port_forward() - see struct port_host; dropped without a host */
static inline void port_forward(struct port *src, struct pkt *const *pkts,
				unsigned int n)
{
	if (port_host && port_host->forward)
		port_host->forward(src, pkts, n);
}

/* port_find() - see struct port_host; NULL without a host */
static inline struct port *port_find(const char *name)
{
	return port_host && port_host->find ? port_host->find(name) : NULL;
}

/* port_lenders() - see struct port_host; none without a host */
static inline unsigned int port_lenders(const struct port *src,
					uint64_t src_feat,
					struct port_lender *out,
					unsigned int max)
{
	return port_host ? port_host->lenders(src, src_feat, out, max) : 0;
}

/* port_lend_flows() - see struct port_host; none without a host */
static inline unsigned int port_lend_flows(unsigned int idx, uint8_t *table,
					   uint32_t *on)
{
	*on = 0;
	return port_host && port_host->lend_flows ?
	       port_host->lend_flows(idx, table, on) : 0;
}

/**
 * port_lend_rx() - a reader's turn: frames straight into @rd->dst's buffers
 * @src:	the reading port
 * @rd:		its queue's reader
 * @pkts:	out: frames for switch_forward() (a frame that could not
 *		stay, or a burst @rd->burst read when no buffers could be
 *		lent)
 * @max:	room in @pkts
 * @turn:	the turn, as for rx_burst
 *
 * Return: frames in @pkts (see struct port_host); without a host, what
 * @rd->burst reads
 */
static inline unsigned int port_lend_rx(struct port *src,
					struct port_reader *rd,
					struct pkt **pkts, unsigned int max,
					struct port_turn *turn)
{
	if (port_host)
		return port_host->lend_rx(src, rd, pkts, max, turn);
	return rd->burst(rd, pkts, max, turn);
}

#endif /* VHOSTD_PORT_H */
