// SPDX-License-Identifier: GPL-2.0-or-later
/* port_tap.c - a TAP interface as a switch port
 *
 * Owns a /dev/net/tun device opened with IFF_TAP | IFF_NO_PI |
 * IFF_VNET_HDR | IFF_MULTI_QUEUE, so every frame crossing it carries a
 * 12-byte virtio_net_hdr_v1: the same metadata struct pkt carries, mapped
 * 1:1.  Frames to the kernel are one writev() each on queue 0, straight
 * from the source's buffers (single copy).
 *
 * Frames from the kernel: queue 0 takes everything the steering program
 * (tap_steer.c) does not send elsewhere -- broadcast, multicast, unknown
 * and host-side MACs -- and reads it into buffers allocated once at open,
 * then switch_forward() copies it to its destinations.  Each port that
 * can lend RX buffers (a vhost-user guest: port_ops lend_*) gets a queue
 * of its own (opened at open or, for later ports, by the one-second
 * timer), steered by the port's learned MACs; the worker polling it
 * reads each frame straight into that port's buffers through the switch
 * (port_lend_rx(): the switch reserves, we read, the switch decides),
 * one copy.  Without eBPF or multi-queue support (old kernel, no
 * privileges, a persistent single-queue TAP) the port logs it once and
 * runs on queue 0 alone, as before.
 *
 * A TAP may carry a tunnel's underlay instead (vxlan via=, port.h): the
 * tunnel is a station on the TAP's link with an address of its own, the
 * kernel its router.  The port then leaves the switch, keeps queue 0
 * alone, and shows the tunnel every frame it reads; the tunnel writes
 * whole frames.  On Linux 6.17 and later the header grows to 24 bytes
 * (virtio_net_hdr_v1_hash_tunnel) and the TAP takes UDP tunnel GSO
 * frames both ways: a guest's 64 KiB TSO frame crosses the kernel and
 * the next host whole, as through the kernel's own vxlan device.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_tun.h>

#include "port.h"
#include "tap_steer.h"
#include "../lock.h"
#include "../net/gro.h"
#include "../net/gso.h"
#include "../log.h"
#include "../util.h"

#define TAP_VNET_HDR_LEN	12	/* sizeof(struct virtio_net_hdr_v1) */
/* With UDP tunnel GSO (a carrier's): virtio_net_hdr_v1_hash_tunnel, the
 * tunnel's offsets at 20 and 22.
 */
#define TAP_VNET_HDR_TNL	24
#define TAP_VNET_OFF_TNL	20
#define TAP_FRAME_MAX		PKT_FRAME_MAX
#define TAP_BUF_LEN		(TAP_VNET_HDR_TNL + TAP_FRAME_MAX)
#define TAP_UL_TXQ		4	/* a carrier's TX buffers (flows' hash) */
#define TAP_QUEUES_MAX		256	/* tun's MAX_TAP_QUEUES */
#define TAP_DIRECT_BUFS		8	/* bounce buffers of a guest's queue */
#define TAP_IFF			(IFF_TAP | IFF_NO_PI | IFF_VNET_HDR)

/* Newer than Debian 12's uapi headers (Linux 6.2). */
#ifndef TUN_F_USO4
#define TUN_F_USO4	0x20
#endif
#ifndef TUN_F_USO6
#define TUN_F_USO6	0x40
#endif
#ifndef TUN_F_UDP_TUNNEL_GSO		/* Linux 6.17 */
#define TUN_F_UDP_TUNNEL_GSO		0x080
#define TUN_F_UDP_TUNNEL_GSO_CSUM	0x100
#endif

/* What the kernel accepts on a write, as virtio-net GUEST_* bits. */
#define TAP_DST_FEAT							\
	(1ULL << VIRTIO_NET_F_GUEST_CSUM | 1ULL << VIRTIO_NET_F_GUEST_TSO4 | \
	 1ULL << VIRTIO_NET_F_GUEST_TSO6 | 1ULL << VIRTIO_NET_F_GUEST_ECN |  \
	 1ULL << VIRTIO_NET_F_GUEST_USO4 | 1ULL << VIRTIO_NET_F_GUEST_USO6)

_Static_assert(sizeof(struct virtio_net_hdr_v1) == TAP_VNET_HDR_LEN,
	       "TUNSETVNETHDRSZ must match struct pkt's header");

/**
 * struct tap_queue - one tun queue and what its worker reads into
 * @fd:		the queue's fd, non-blocking
 * @idx:	tun's queue index (attach order), also the worker cookie
 * @worker:	worker polling @fd
 * @port:	the TAP port
 * @nbufs:	receive buffers in @bufs
 * @bufs:	@nbufs buffers of TAP_BUF_LEN bytes; @rd.bounce is the
 *		first (used only between reads, by the same worker)
 * @pkts:	descriptors of the frames in @bufs for one burst
 * @rd:		queues >= 1: the reader that lands frames in the buffers of
 *		port @rd.dst, the port the queue is steered to
 *
 * Everything but @fd, @idx, @port and @rd.dst is the polling worker's.
 */
struct tap_queue {
	int fd;
	unsigned int idx;
	unsigned int worker;
	struct port *port;
	unsigned int nbufs;
	uint8_t *bufs;
	struct pkt pkts[PORT_BURST];
	struct port_reader rd;
};

/**
 * struct tap_ultx - a carrier's TX buffer, for one flow hash
 * @lock:	held from ul_tx_begin to ul_tx_end
 * @buf:	the header's room (TAP_VNET_HDR_TNL bytes), then the frame
 */
struct tap_ultx {
	struct vlock lock;
	uint8_t buf[TAP_BUF_LEN];
};

/**
 * struct tap_carry - what a TAP carrying a tunnel needs beyond a port's
 *		      state (allocated while it carries)
 * @tx:		TX buffers, one per flow hash
 * @upkts:	queue 0's burst: the tunnel's inner frames (its worker's)
 * @flow:	the TCP frame being joined from them
 * @gro_hdr:	each joined frame's headers
 */
struct tap_carry {
	struct tap_ultx tx[TAP_UL_TXQ];
	struct pkt upkts[PORT_BURST];
	struct gro_flow flow;
	uint8_t gro_hdr[PORT_BURST][GRO_HDR_MAX];
};

/**
 * struct tap_priv - state of one TAP port (port->priv)
 * @fd:		queue 0's fd: writes to the kernel go here
 * @src_feat:	offloads enabled with TUNSETOFFLOAD, as virtio-net HOST_*
 *		feature bits (struct pkt's @src_feat)
 * @ifname:	the interface's name, for attaching more queues
 * @mq:		multi-queue with eBPF steering is on
 * @offload:	offload=on was asked for
 * @frame_max:	largest frame the kernel may hand us (MTU-sized with
 *		offloads off); control writes, direct readers read
 * @nq:		queues set up in @q; stored with release after the queue
 *		is complete, so a worker sees whole queues only
 * @q:		the queues, @q[0] the flood/unknown one
 * @port_queue:	first queue steered to each port index, 0 = none,
 *		UINT16_MAX = tried and failed (control)
 * @port_pairs:	queues made for each port index from @port_queue on, one
 *		per queue pair of the port, in pair order (control)
 * @flows:	scratch for one port's flow table (control)
 * @steer:	the steering program's maps (control)
 * @gone:	a read said EBADFD: the interface was deleted under us
 *		(ip link del, its namespace removed); set by a worker,
 *		acted on by tap_timer() (atomic)
 * @gone_seen:	tap_timer() took the queues out of the workers (control)
 * @vhl:	the virtio-net header's length on the fd: 12, 24 while a
 *		tunnel with UDP tunnel GSO is carried (atomic)
 * @ul:		the tunnel carried, or NULL (atomic: readers look once a
 *		burst)
 * @carry:	while carrying: its buffers (struct tap_carry)
 */
struct tap_priv {
	int fd;
	uint64_t src_feat;
	char ifname[IFNAMSIZ];
	bool mq;
	bool offload;
	uint32_t frame_max;
	unsigned int nq;
	struct tap_queue *q[TAP_QUEUES_MAX];
	uint16_t port_queue[PORT_IDX_MAX];
	uint8_t port_pairs[PORT_IDX_MAX];
	uint8_t flows[PORT_FLOWS];
	struct tap_steer steer;
	bool gone;
	bool gone_seen;
	unsigned int vhl;
	struct port_underlay *ul;
	struct tap_carry *carry;
};

/**
 * tap_set_offload() - let the kernel hand us partial-checksum and GSO frames
 * @t:		port state
 * @ifname:	interface name, for messages
 * @on:		offload=on (the default); off enables nothing
 *
 * The switch completes checksums and segments in software for any
 * destination that cannot take a frame whole (net/gso.c), so the kernel
 * may give us everything it can: 64 KiB TCP (and, on kernels that know
 * it, UDP) segments with the checksum left partial.  What we enabled is
 * recorded as the virtio-net HOST_* bits a guest would have negotiated,
 * which is what destinations check frames from us against.
 *
 * Return: 0 or -errno
 */
static int tap_set_offload(struct tap_priv *t, const char *ifname,
			   bool on)
{
	unsigned long base = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 |
			     TUN_F_TSO_ECN;

	if (!on) {
		/* The kernel then hands us only complete, MTU-sized frames. */
		t->src_feat = 0;
		if (!ioctl(t->fd, TUNSETOFFLOAD, 0UL))
			return 0;
		err("tap %s: TUNSETOFFLOAD: %s", ifname, strerror(errno));
		return -errno;
	}

	t->src_feat = 1ULL << VIRTIO_NET_F_CSUM |
		      1ULL << VIRTIO_NET_F_HOST_TSO4 |
		      1ULL << VIRTIO_NET_F_HOST_TSO6 |
		      1ULL << VIRTIO_NET_F_HOST_ECN;
	if (!ioctl(t->fd, TUNSETOFFLOAD, base | TUN_F_USO4 | TUN_F_USO6)) {
		t->src_feat |= 1ULL << VIRTIO_NET_F_HOST_USO;
		return 0;
	}
	/* Kernels before 6.2 refuse the USO flags: TCP offloads only. */
	if (!ioctl(t->fd, TUNSETOFFLOAD, base))
		return 0;
	err("tap %s: TUNSETOFFLOAD: %s", ifname, strerror(errno));
	return -errno;
}

/**
 * tap_set_owner() - only vhostd's user may attach to a TAP it created
 * @fd:		a queue fd of the TAP
 * @ifname:	its name, for the message
 *
 * Anyone who can open /dev/net/tun may attach to a TAP without owner
 * (and read frames, or replace the steering program): one we created
 * goes to the uid we run as; a persistent one keeps its administrator's.
 */
static void tap_set_owner(int fd, const char *ifname)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	if (ioctl(fd, TUNGETIFF, &ifr) < 0 || (ifr.ifr_flags & IFF_PERSIST))
		return;
	if (ioctl(fd, TUNSETOWNER, (unsigned long)(port_env.uid_set ?
						   port_env.uid :
						   geteuid())) < 0)
		warn("tap %s: TUNSETOWNER: %s (any user may attach to it)",
		     ifname, strerror(errno));
}

static ssize_t tap_lend_read(struct port_reader *rd, const struct iovec *iov,
			     int n);
static unsigned int tap_lend_burst(struct port_reader *rd, struct pkt **pkts,
				   unsigned int max, struct port_turn *turn);

/**
 * tap_queue_new() - receive state for queue @idx on @fd
 * @p:		port
 * @t:		its state
 * @fd:		queue fd
 * @idx:	queue index
 * @nbufs:	receive buffers (<= PORT_BURST)
 *
 * Return: the queue, or NULL without memory
 */
static struct tap_queue *tap_queue_new(struct port *p, struct tap_priv *t,
				       int fd, unsigned int idx,
				       unsigned int nbufs)
{
	struct tap_queue *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->bufs = malloc((size_t)nbufs * TAP_BUF_LEN);
	if (!q->bufs) {
		free(q);
		return NULL;
	}
	q->fd = fd;
	q->idx = idx;
	q->port = p;
	q->nbufs = nbufs;
	q->rd.read = tap_lend_read;
	q->rd.burst = tap_lend_burst;
	q->rd.src_feat = t->src_feat;
	q->rd.frame_max = t->frame_max;
	q->rd.bounce = q->bufs;
	return q;
}

/**
 * tap_queue_free() - release what tap_queue_new() allocated
 * @q:		queue (may be NULL)
 */
static void tap_queue_free(struct tap_queue *q)
{
	if (!q)
		return;
	free(q->bufs);
	free(q);
}

/**
 * tap_ifreq() - an ioctl on the interface by name
 * @t:		state
 * @req:	SIOCGIFMTU, SIOCGIFHWADDR
 * @ifr:	out: the answer
 * Return: 0 or -errno
 */
static int tap_ifreq(const struct tap_priv *t, unsigned long req,
		     struct ifreq *ifr)
{
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc;

	if (s < 0)
		return -errno;
	memset(ifr, 0, sizeof(*ifr));
	memcpy(ifr->ifr_name, t->ifname, sizeof(ifr->ifr_name));
	rc = ioctl(s, req, ifr) < 0 ? -errno : 0;
	close(s);
	return rc;
}

/* tap_mtu() - the interface's MTU, 0 if it cannot be read */
static uint32_t tap_mtu(const struct tap_priv *t)
{
	struct ifreq ifr;

	if (tap_ifreq(t, SIOCGIFMTU, &ifr) < 0 || ifr.ifr_mtu <= 0)
		return 0;
	return (uint32_t)ifr.ifr_mtu;
}

/* tap_ul_frame_max() - a carrier's largest frame: its MTU's */
static uint32_t tap_ul_frame_max(const struct tap_priv *t)
{
	uint32_t mtu = tap_mtu(t);

	return MIN((mtu ? mtu : 1500) + ETH_HLEN, (uint32_t)TAP_FRAME_MAX);
}

/**
 * tap_frame_max() - largest frame the kernel may hand us now
 * @t:		state
 *
 * With offloads on, a 64 KiB GSO frame; with them off, the interface's
 * MTU plus Ethernet header and one VLAN tag, which is what a direct read
 * must find room for in a guest's buffers.
 *
 * Return: bytes, without the virtio-net header
 */
static uint32_t tap_frame_max(const struct tap_priv *t)
{
	uint32_t mtu = t->src_feat ? 0 : tap_mtu(t);

	if (!mtu)
		return TAP_FRAME_MAX;
	return MIN(mtu + ETH_HLEN + 4, (uint32_t)TAP_FRAME_MAX);
}

/**
 * tap_queue_add() - attach one more tun queue, steered to guest @dst
 * @p:		port
 * @t:		its state (multi-queue)
 * @dst:	port index of the guest
 * @pair:	the guest's queue pair whose buffers it reads into
 *
 * The new queue is the device's last, so its tun index is @t->nq; on
 * failure it is detached again, which moves no other queue.
 *
 * Return: 0 or -errno
 * Context: control thread
 */
static int tap_queue_add(struct port *p, struct tap_priv *t, unsigned int dst,
			 unsigned int pair)
{
	unsigned int idx = t->nq;
	struct tap_queue *q;
	struct ifreq ifr;
	int fd, rc;

	if (idx >= TAP_QUEUES_MAX)
		return -ENOSPC;
	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = TAP_IFF | IFF_MULTI_QUEUE;
	memcpy(ifr.ifr_name, t->ifname, sizeof(ifr.ifr_name));
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	q = tap_queue_new(p, t, fd, idx, TAP_DIRECT_BUFS);
	if (!q) {
		close(fd);
		return -ENOMEM;
	}
	q->rd.dst = dst;
	q->rd.lend.pair = pair;
	t->q[idx] = q;
	__atomic_store_n(&t->nq, idx + 1, __ATOMIC_RELEASE);
	rc = port_src_add(p, idx, fd, PORT_SRC_LEVEL);
	if (rc >= 0)
		q->worker = (unsigned int)rc;
	if (rc < 0) {
		/* Never polled: no worker can be inside it. */
		__atomic_store_n(&t->nq, idx, __ATOMIC_RELEASE);
		t->q[idx] = NULL;
		close(fd);
		tap_queue_free(q);
		return rc;
	}
	src_debug(&p->log, "port %s: tun queue %u for port %u pair %u "
		  "(worker %u)", p->name, idx, dst, pair, q->worker);
	return 0;
}

/**
 * tap_queues_add() - a tun queue for each queue pair of guest @l
 * @p:		port
 * @t:		its state (multi-queue)
 * @l:		the guest, as port_lenders() lists it
 *
 * Queues are attached in a row, so the guest's are @t->port_queue[idx]
 * and the @t->port_pairs[idx] - 1 after it; a failure part way keeps
 * those made (the pairs after them are not steered to).
 *
 * Return: 0 or -errno (none made)
 * Context: control thread, before start-up ends (port_env.sealed)
 */
static int tap_queues_add(struct port *p, struct tap_priv *t,
			  const struct port_lender *l)
{
	unsigned int base = t->nq, k, pairs = MAX(1U, MIN(l->pairs, 16U));
	int rc = 0;

	for (k = 0; k < pairs; k++) {
		rc = tap_queue_add(p, t, l->idx, k);
		if (rc < 0)
			break;
	}
	if (!k)
		return rc;
	if (rc < 0)
		src_warn(&p->log, "port %s: tun queues for %u of %s's %u "
			 "pairs (%s)", p->name, k, l->name, pairs,
			 strerror(-rc));
	t->port_queue[l->idx] = (uint16_t)base;
	t->port_pairs[l->idx] = (uint8_t)k;
	return 0;
}

/**
 * tap_dst() - where the steering program puts frames for guest @l
 * @p:		port
 * @t:		its state
 * @l:		the guest, with queues
 * @d:		filled in
 *
 * Its running pairs that have a queue, in order; with more than one, its
 * flow table goes to the flow map too.
 */
static void tap_dst(struct port *p, struct tap_priv *t,
		    const struct port_lender *l, struct tap_steer_dst *d)
{
	uint32_t on = l->on & ((1u << t->port_pairs[l->idx]) - 1), now;
	unsigned int k, n = 0;

	memset(d, 0, sizeof(*d));
	d->base = t->port_queue[l->idx];
	d->port = l->idx;
	d->on = (uint16_t)on;
	for (k = 0; k < 16; k++)
		if (on & 1u << k)
			d->order |= (uint64_t)k << (4 * n++);
	d->n_on = n;
	if (n > 1 && port_lend_flows(l->idx, t->flows, &now) &&
	    tap_steer_flows(&t->steer, l->idx, t->flows) < 0)
		src_debug(&p->log, "port %s: flow map update for %s failed",
			  p->name, l->name);
}

/**
 * tap_mq_update() - queues for new lenders, steering map from the MAC table
 * @p:		port
 * @t:		its state
 *
 * Every port that can lend RX buffers gets a tun queue; the map steers
 * the MACs of those whose lend_ok() takes our offloads whole to theirs.
 *
 * Context: control thread (open and the one-second timer)
 */
static void tap_mq_update(struct port *p, struct tap_priv *t)
{
	struct port_lender lenders[PORT_IDX_MAX];
	struct tap_steer_dst want[PORT_IDX_MAX];
	unsigned int i, n, nports = 0;
	uint32_t fm = tap_frame_max(t);

	if (!t->mq)
		return;
	if (fm != t->frame_max) {
		t->frame_max = fm;
		for (i = 1; i < t->nq; i++)
			__atomic_store_n(&t->q[i]->rd.frame_max, fm,
					 __ATOMIC_RELAXED);
	}
	memset(want, 0, sizeof(want));
	n = port_lenders(p, t->src_feat, lenders, ARRAY_SIZE(lenders));
	for (i = 0; i < n; i++) {
		unsigned int d = lenders[i].idx;
		int rc;

		if (d >= PORT_IDX_MAX)
			continue;
		nports = d + 1;
		if (!t->port_queue[d]) {
			/* A port added after start-up (ctl "port add"):
			 * the open() and TUNSETIFF of a queue are no longer
			 * ours to make (and not on the seccomp allow-list).
			 */
			rc = port_env.sealed ? -EPERM :
			     tap_queues_add(p, t, &lenders[i]);
			if (rc < 0) {
				src_warn(&p->log, "port %s: no tun queue for "
					 "%s (%s): its frames take the bounce "
					 "buffer", p->name, lenders[i].name,
					 strerror(-rc));
				t->port_queue[d] = UINT16_MAX;	/* tried */
				continue;
			}
		}
		if (t->port_queue[d] != UINT16_MAX && lenders[i].ok)
			tap_dst(p, t, &lenders[i], &want[d]);
	}
	tap_steer_sync(&t->steer, want, nports);
	if (t->steer.map_fd >= 0)
		stats_add(&port_ctr(p)->steer_syncs, 1);
}

/* Learned MACs a TAP may own by default: it may front a host bridge. */
#define TAP_MAX_MACS_DEFAULT	1024

/**
 * struct tap_opts - a TAP port's own spec keys
 * @ifname:	ifname= the interface ("%d" templates allowed)
 * @offload:	offload= offer checksum/segmentation offloads
 * @direct:	direct= read frames for a guest into its buffers
 */
struct tap_opts {
	char ifname[IFNAMSIZ];
	bool offload;
	bool direct;
};

static const struct port_opt tap_opts[] = {
	{ .key = "ifname", .type = PORT_OPT_IFNAME,
	  .flags = PORT_OPT_REQUIRED | PORT_OPT_UNIQUE,
	  PORT_OPT_AT(struct tap_opts, ifname),
	  .help = "IF: the TAP interface, created or attached" },
	{ .key = "offload", .type = PORT_OPT_BOOL,
	  PORT_OPT_AT(struct tap_opts, offload), .def = 1,
	  .help = "on|off: offer checksum/TSO/USO offloads" },
	{ .key = "direct", .type = PORT_OPT_BOOL,
	  PORT_OPT_AT(struct tap_opts, direct), .def = 1,
	  .help = "on|off: read frames for a guest into its buffers" },
	{ .key = "max-macs", .type = PORT_OPT_UINT, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, max_macs), .max = PORT_MAX_MACS_MAX,
	  .def = TAP_MAX_MACS_DEFAULT,
	  .help = "N: MACs it may have learned at once" },
};

/**
 * tap_open() - create or attach the TAP interface and start polling it
 * @p:		port, priv zeroed
 * @ps:		port spec (its ifname= may hold a "%d" template)
 * Return: 0 or -errno, with a log line naming the interface
 *
 * Context: control thread.
 */
static int tap_open(struct port *p, const struct port_spec *ps)
{
	const struct tap_opts *spec = port_spec_opts(ps);
	struct tap_priv *t = p->priv;
	int hdr_len = TAP_VNET_HDR_LEN;
	struct ifreq ifr;
	int rc;

	t->steer.map_fd = -1;
	t->steer.prog_fd = -1;
	t->vhl = TAP_VNET_HDR_LEN;
	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0) {
		rc = -errno;
		err("tap %s: open /dev/net/tun: %s", spec->ifname,
		    strerror(-rc));
		return rc;
	}

	memset(&ifr, 0, sizeof(ifr));
	/* conf.c guarantees it fits IFNAMSIZ with its NUL. */
	memcpy(ifr.ifr_name, spec->ifname,
	       MIN(strlen(spec->ifname), (size_t)IFNAMSIZ - 1));
	t->mq = false;
	if (!spec->direct) {
		info("tap %s: direct=off: one queue, TAP -> guest copies "
		     "twice", spec->ifname);
	} else {
		ifr.ifr_flags = TAP_IFF | IFF_MULTI_QUEUE;
		if (!ioctl(t->fd, TUNSETIFF, &ifr))
			t->mq = true;
		else	/* a persistent single-queue TAP: use it as it is */
			info("tap %s: multi-queue refused (%s): one queue, "
			     "TAP -> guest copies twice", spec->ifname,
			     strerror(errno));
	}
	if (!t->mq) {
		ifr.ifr_flags = TAP_IFF;
		if (ioctl(t->fd, TUNSETIFF, &ifr) < 0) {
			rc = -errno;
			err("tap %s: TUNSETIFF: %s", spec->ifname,
			    strerror(-rc));
			goto err_close;
		}
	}
	memcpy(t->ifname, ifr.ifr_name, sizeof(t->ifname));
	t->ifname[IFNAMSIZ - 1] = '\0';
	tap_set_owner(t->fd, t->ifname);
	if (ioctl(t->fd, TUNSETVNETHDRSZ, &hdr_len) < 0) {
		rc = -errno;
		err("tap %s: TUNSETVNETHDRSZ: %s", ifr.ifr_name,
		    strerror(-rc));
		goto err_close;
	}
	rc = tap_set_offload(t, ifr.ifr_name, spec->offload);
	if (rc < 0)
		goto err_close;
	t->offload = spec->offload;
	t->frame_max = tap_frame_max(t);

	t->q[0] = tap_queue_new(p, t, t->fd, 0, PORT_BURST);
	if (!t->q[0]) {
		err("tap %s: no memory for receive buffers", spec->ifname);
		rc = -ENOMEM;
		goto err_close;
	}
	t->nq = 1;

	if (t->mq) {
		rc = tap_steer_open(&t->steer);
		if (!rc) {
			rc = tap_steer_attach(&t->steer, t->fd);
			if (rc < 0)
				tap_steer_close(&t->steer, -1);
		}
		if (rc < 0) {
			info("tap %s: no eBPF queue steering (%s): TAP -> "
			     "guest copies twice", ifr.ifr_name,
			     strerror(-rc));
			t->mq = false;
		}
	}

	rc = port_src_add(p, 0, t->fd, PORT_SRC_LEVEL);
	if (rc < 0) {
		err("tap %s: cannot register with a worker: %s",
		    ifr.ifr_name, strerror(-rc));
		goto err_steer;
	}
	t->q[0]->worker = (unsigned int)rc;
	tap_mq_update(p, t);
	port_set_up(p, true);
	info("port %s: tap %s ready (worker %u%s)", p->name, ifr.ifr_name,
	     t->q[0]->worker, t->mq ? ", a steered queue per guest" : "");
	return 0;

err_steer:
	tap_steer_close(&t->steer, t->fd);
	tap_queue_free(t->q[0]);
	t->q[0] = NULL;
	t->nq = 0;
err_close:
	close(t->fd);
	t->fd = -1;
	return rc;
}

/**
 * tap_close() - stop polling and release the interface
 * @p:		port
 *
 * Context: control thread.  The switch took the port out of forwarding
 * and quiesced the workers (no xmit runs); each queue's source is taken
 * back from its worker, which waits out a turn still running, so nothing
 * runs on freed buffers or a reused fd number.
 */
static void tap_close(struct port *p)
{
	struct tap_priv *t = p->priv;
	unsigned int i;

	for (i = 0; i < t->nq; i++)
		port_src_del(p, i);
	tap_steer_close(&t->steer, t->fd);
	/* Last attached first: no queue index moves meanwhile. */
	for (i = t->nq; i-- > 0;) {
		close(t->q[i]->fd);
		tap_queue_free(t->q[i]);
		t->q[i] = NULL;
	}
	t->nq = 0;
	t->fd = -1;
	free(t->carry);
	t->carry = NULL;
}

/**
 * tap_timer() - once a second: queues for new guests, steering map sync
 * @p:		port
 *
 * Context: control thread
 */
static void tap_timer(struct port *p)
{
	struct tap_priv *t = p->priv;
	unsigned int i;

	/* The interface is gone: its fds report an error forever, which
	 * would keep a worker polling them.  Out of the workers, port down;
	 * the port stays listed (and counted) until removed.
	 */
	if (unlikely(__atomic_load_n(&t->gone, __ATOMIC_RELAXED)) &&
	    !t->gone_seen) {
		for (i = 0; i < t->nq; i++)
			port_src_del(p, i);
		port_set_up(p, false);
		t->gone_seen = true;
		err("tap %s: the interface is gone (deleted, or its network "
		    "namespace removed): port %s is down; remove it with "
		    "vhostctl port del %s", t->ifname, p->name, p->name);
		return;
	}
	if (!t->gone_seen)
		tap_mq_update(p, t);
	/* A carrier's MTU may have changed (ip link set mtu). */
	if (t->ul)
		__atomic_store_n(&t->ul->frame_max, tap_ul_frame_max(t),
				 __ATOMIC_RELAXED);
}

/**
 * tap_read_burst() - read up to @max frames into @q's buffers
 * @p:		port
 * @t:		its state
 * @q:		queue
 * @pkts:	out: the frames read, described in place
 * @max:	frames to read, <= @q->nbufs
 * @turn:	frames taken off the fd (dropped ones too) are added to
 *		@turn->done; @turn->dry is set when the fd ran out (or failed)
 * Return: frames in @pkts
 */
static unsigned int tap_read_burst(struct port *p, struct tap_priv *t,
				   struct tap_queue *q, struct pkt **pkts,
				   unsigned int max, struct port_turn *turn)
{
	unsigned int i, n = 0, runts = 0, big = 0, ioerr = 0;
	size_t vhl = __atomic_load_n(&t->vhl, __ATOMIC_RELAXED);
	uint64_t bytes = 0;

	for (i = 0; i < max; i++) {
		uint8_t *buf = q->bufs + (size_t)n * TAP_BUF_LEN;
		struct iovec iov[2] = {
			{ .iov_base = buf, .iov_len = vhl },
			{ .iov_base = buf + vhl, .iov_len = TAP_FRAME_MAX },
		};
		struct pkt *pkt = &q->pkts[n];
		ssize_t r;
		size_t len;

		r = readv(q->fd, iov, 2);
		if (r < 0) {
			if (errno == EINTR)
				continue;	/* bounded by @max */
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				ioerr++;
			if (errno == EBADFD)
				__atomic_store_n(&t->gone, true,
						 __ATOMIC_RELAXED);
			turn->dry = true;
			break;
		}
		if (r == 0) {
			turn->dry = true;
			break;
		}
		/* tun reports the frame's full length even if it did not
		 * fit: never trust more than we gave it.
		 */
		if ((size_t)r > vhl + TAP_FRAME_MAX) {
			big++;
			continue;
		}
		if ((size_t)r < vhl + ETH_HLEN) {
			runts++;
			continue;
		}
		len = (size_t)r - vhl;
		memcpy(&pkt->vnet, buf, TAP_VNET_HDR_LEN);
		pkt->src_feat = t->src_feat;
		memcpy(&pkt->eth, buf + vhl, ETH_HLEN);
		pkt->len = (uint32_t)len;
		pkt->iovcnt = 1;
		pkt->iov[0].iov_base = buf + vhl;
		pkt->iov[0].iov_len = len;
		pkts[n] = pkt;
		bytes += len;
		n++;
	}

	if (runts)
		stats_add(&port_ctr(p)->drops[STATS_DROP_RUNT], runts);
	if (big)
		stats_add(&port_ctr(p)->drops[STATS_DROP_TOO_BIG], big);
	if (ioerr)
		stats_add(&port_ctr(p)->drops[STATS_DROP_IO_ERROR], ioerr);
	if (n) {
		stats_add(&port_ctr(p)->rx_packets, n);
		stats_add(&port_ctr(p)->rx_bytes, bytes);
	}
	turn->done += n + runts + big;
	return n;
}

/**
 * tap_lend_read() - read one frame into a vector (struct port_reader)
 * @rd:		a steered queue's reader
 * @iov:	the vector: our virtio-net header, our Ethernet header, the
 *		space another port lent
 * @n:		its segments
 *
 * Return: bytes read (tun's full frame length, even when it did not fit),
 *	   0 or -EAGAIN if there is none, else -errno
 */
static ssize_t tap_lend_read(struct port_reader *rd, const struct iovec *iov,
			     int n)
{
	struct tap_queue *q = container_of(rd, struct tap_queue, rd);
	int tries = 0;
	ssize_t r;

	do {
		r = readv(q->fd, iov, n);
	} while (r < 0 && errno == EINTR && ++tries < 3);
	if (r >= 0)
		return r;
	if (errno == EBADFD) {
		struct tap_priv *t = q->port->priv;

		__atomic_store_n(&t->gone, true, __ATOMIC_RELAXED);
	}
	return errno == EWOULDBLOCK ? -EAGAIN : -errno;
}

/**
 * tap_lend_burst() - a steered queue's frames the old way (port_reader)
 * @rd:		its reader
 * @pkts:	out: frames read into the queue's buffers
 * @max:	room in @pkts
 * @turn:	the turn, as for rx_burst
 * Return: frames in @pkts
 */
static unsigned int tap_lend_burst(struct port_reader *rd, struct pkt **pkts,
				   unsigned int max, struct port_turn *turn)
{
	struct tap_queue *q = container_of(rd, struct tap_queue, rd);

	return tap_read_burst(q->port, q->port->priv, q, pkts,
			      MIN(max, q->nbufs), turn);
}

/**
 * tap_carry_burst() - a carrier's burst: every frame to the tunnel
 * @p:		port
 * @t:		its state
 * @q:		queue 0
 * @ul:		the tunnel's attachment
 * @pkts:	the burst's room (read into, none left for the switch)
 * @max:	room in @pkts
 * @turn:	the turn
 *
 * The tunnel's inner frames enter the switch as the tunnel's, straight
 * from our buffers, with the offload metadata the kernel gave the frame
 * (port.h); consecutive segments of one TCP flow (a peer whose NIC cut
 * its frames) join the frame before them, as the afxdp carrier's do
 * (net/gro.h).  Frames not the tunnel's are dropped: the link is the
 * underlay's, and the switch has none of it.
 *
 * Return: 0: nothing for the switch as this port's
 */
static unsigned int tap_carry_burst(struct port *p, struct tap_priv *t,
				    struct tap_queue *q,
				    struct port_underlay *ul,
				    struct pkt **pkts, unsigned int max,
				    struct port_turn *turn)
{
	struct tap_carry *cs = t->carry;
	struct pkt *inner[PORT_BURST];
	struct port_sink tun = {
		.pkts = cs->upkts, .out = inner, .flow = &cs->flow,
		.gro_hdr = cs->gro_hdr, .open = -1, .gro = ul->gro,
		.ctr = ul->gro_ctr,
	};
	unsigned int i, n, notours = 0;

	n = tap_read_burst(p, t, q, pkts, MIN(max, q->nbufs), turn);
	for (i = 0; i < n; i++) {
		struct pkt *u = &cs->upkts[tun.n];

		switch (ul->rx(ul->client, pkts[i]->iov[0].iov_base,
			       pkts[i]->len, &pkts[i]->vnet, u)) {
		case PORT_UL_FRAME:
			port_sink_take(&tun, u->iov[0].iov_base);
			break;
		case PORT_UL_TAKEN:
			break;
		default:
			notours++;
			break;
		}
	}
	if (notours)
		stats_add(&port_ctr(p)->drops[STATS_DROP_PORT_DOWN], notours);
	port_sink_end(&tun, ul->client);
	if (tun.n)
		port_forward(ul->client, inner, tun.n);
	return 0;
}

/**
 * tap_rx_begin() - a turn at a tun queue begins
 * @p:		port
 * @qi:		queue index
 * @turn:	the turn
 * Return: true if the queue exists
 */
static bool tap_rx_begin(struct port *p, uint32_t qi, struct port_turn *turn)
{
	struct tap_priv *t = p->priv;

	(void)turn;
	return qi < __atomic_load_n(&t->nq, __ATOMIC_ACQUIRE);
}

/**
 * tap_rx_burst() - read one burst from a tun queue (port.h)
 * @p:		port
 * @qi:		queue index, begun
 * @pkts:	out: frames for the switch, in the queue's buffers
 * @max:	room in @pkts
 * @turn:	the turn
 *
 * Context: the worker that owns the queue; the buffers are reused by the
 * next burst (every xmit copies).
 *
 * Return: frames in @pkts
 */
static unsigned int tap_rx_burst(struct port *p, uint32_t qi,
				 struct pkt **pkts, unsigned int max,
				 struct port_turn *turn)
{
	struct tap_priv *t = p->priv;
	struct tap_queue *q = t->q[qi];
	struct port_underlay *ul;

	if (qi)
		return port_lend_rx(p, &q->rd, pkts, max, turn);
	ul = __atomic_load_n(&t->ul, __ATOMIC_ACQUIRE);
	if (ul)
		return tap_carry_burst(p, t, q, ul, pkts, max, turn);
	return tap_read_burst(p, t, q, pkts, MIN(max, q->nbufs), turn);
}

/**
 * tap_rx_end() - a turn at a tun queue ends: nothing to publish
 * @p:		port
 * @qi:		queue index
 * @turn:	the turn
 */
static void tap_rx_end(struct port *p, uint32_t qi, struct port_turn *turn)
{
	(void)p;
	(void)qi;
	(void)turn;
}

/**
 * tap_xmit() - write frames to the kernel
 * @p:		port
 * @pkts:	frames (their buffers are read, never kept)
 * @n:		number of frames
 * Return: frames delivered; the rest are counted as drops
 *
 * Context: any worker, concurrently: one writev() per frame on a tun fd
 * is atomic, so no lock is needed.  Never blocks (O_NONBLOCK).
 */
static unsigned int tap_xmit(struct port *p, struct pkt *const *pkts,
			     unsigned int n)
{
	unsigned int i, sent = 0, drops[STATS_DROP_COUNT] = { 0 };
	struct tap_priv *t = p->priv;
	struct iovec iov[1 + PKT_IOV_MAX];
	uint64_t bytes = 0;
	union {
		struct virtio_net_hdr_v1 v;
		uint8_t b[TAP_VNET_HDR_TNL];
	} h = { .b = { 0 } };

	for (i = 0; i < n; i++) {
		const struct pkt *pkt = pkts[i];
		struct virtio_net_hdr_v1 hdr = pkt->vnet;
		int tries = 0;
		ssize_t r;

		if (pkt->iovcnt > PKT_IOV_MAX || pkt->len > TAP_FRAME_MAX) {
			drops[STATS_DROP_TOO_BIG]++;
			continue;
		}
		/* The kernel reads num_buffers only on mergeable RX, which
		 * a TAP write is not; keep it zero all the same.
		 */
		hdr.num_buffers = 0;
		/* The kernel takes any offload, but only what the source was
		 * entitled to send goes through (a guest that never
		 * negotiated TSO does not get to send 64 KiB frames).
		 */
		if ((hdr.flags || hdr.gso_type != VIRTIO_NET_HDR_GSO_NONE) &&
		    gso_plan(pkt, pkt->src_feat, TAP_DST_FEAT) != GSO_ACT_PASS) {
			drops[STATS_DROP_OFFLOAD]++;
			continue;
		}
		h.v = hdr;
		iov[0].iov_base = h.b;
		iov[0].iov_len = __atomic_load_n(&t->vhl, __ATOMIC_RELAXED);
		memcpy(&iov[1], pkt->iov, pkt->iovcnt * sizeof(iov[0]));
		do {
			r = writev(t->fd, iov, (int)pkt->iovcnt + 1);
		} while (r < 0 && errno == EINTR && ++tries < 3);
		if (r >= 0) {
			sent++;
			bytes += pkt->len;
			continue;
		}
		switch (errno) {
		case EAGAIN:
		case ENOBUFS:
			drops[STATS_DROP_NO_BUFFER]++;
			break;
		case EIO:	/* interface down */
			drops[STATS_DROP_PORT_DOWN]++;
			break;
		case EINVAL:	/* offload metadata the kernel refused */
			drops[STATS_DROP_OFFLOAD]++;
			break;
		default:
			drops[STATS_DROP_IO_ERROR]++;
			break;
		}
	}
	port_count_xmit(p, sent, bytes, drops);
	return sent;
}

/**
 * tap_ul_tnl_on() - the 24-byte header and UDP tunnel GSO, if the kernel
 *		     has them (Linux 6.17)
 * @t:		state
 * @ul:		the attachment: @tnl_gso, @tnl_csum set
 *
 * The header grows first: once tun takes tunnel GSO it writes 24 bytes
 * on every read.  A kernel without it refuses the flag; the header goes
 * back to 12 bytes and the tunnel cuts TSO frames itself.
 */
static void tap_ul_tnl_on(struct tap_priv *t, struct port_underlay *ul)
{
	unsigned long base = TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 |
			     TUN_F_TSO_ECN | TUN_F_USO4 | TUN_F_USO6;
	int big = TAP_VNET_HDR_TNL, small = TAP_VNET_HDR_LEN;

	if (!t->offload || ioctl(t->fd, TUNSETVNETHDRSZ, &big) < 0)
		return;
	__atomic_store_n(&t->vhl, TAP_VNET_HDR_TNL, __ATOMIC_RELEASE);
	if (!ioctl(t->fd, TUNSETOFFLOAD, base | TUN_F_UDP_TUNNEL_GSO |
		   TUN_F_UDP_TUNNEL_GSO_CSUM)) {
		ul->tnl_gso = ul->tnl_csum = true;
		return;
	}
	if (!ioctl(t->fd, TUNSETOFFLOAD, base | TUN_F_UDP_TUNNEL_GSO)) {
		ul->tnl_gso = true;
		return;
	}
	if (ioctl(t->fd, TUNSETVNETHDRSZ, &small) == 0)
		__atomic_store_n(&t->vhl, TAP_VNET_HDR_LEN, __ATOMIC_RELEASE);
}

/**
 * tap_ul_attach() - carry a tunnel's underlay (port_ops @ul_attach)
 * @p:		port
 * @ul:		the tunnel's attachment: @mac, @frame_max, @queues, @gso,
 *		@tnl_gso and @tnl_csum filled
 * Return: 0, or -EBUSY if the port carries one already, -ENOMEM
 *
 * The tunnel is a station of its own on the TAP's link: its MAC is the
 * interface's with the locally administered bit set and the last bit
 * turned, never the kernel's.  Queues steered to guests are closed and
 * the steering program goes: every frame comes to queue 0.
 *
 * Context: control thread, start-up
 */
static int tap_ul_attach(struct port *p, struct port_underlay *ul)
{
	struct tap_priv *t = p->priv;
	struct ifreq ifr;
	unsigned int i;

	if (p->carrying)
		return -EBUSY;
	t->carry = calloc(1, sizeof(*t->carry));
	if (!t->carry)
		return -ENOMEM;
	for (i = 0; i < TAP_UL_TXQ; i++)
		vlock_init(&t->carry->tx[i].lock);
	for (i = t->nq; i-- > 1;) {
		port_src_del(p, i);
		__atomic_store_n(&t->nq, i, __ATOMIC_RELEASE);
		close(t->q[i]->fd);
		tap_queue_free(t->q[i]);
		t->q[i] = NULL;
	}
	if (t->mq)
		tap_steer_close(&t->steer, t->fd);
	t->mq = false;

	if (tap_ifreq(t, SIOCGIFHWADDR, &ifr) == 0)
		memcpy(ul->mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	ul->mac[0] = (uint8_t)((ul->mac[0] & ~1U) | 2U);
	ul->mac[5] ^= 1;
	ul->frame_max = tap_ul_frame_max(t);
	ul->queues = TAP_UL_TXQ;
	ul->gso = t->offload;
	ul->tnl_gso = ul->tnl_csum = false;
	tap_ul_tnl_on(t, ul);
	p->carrying = true;
	/* The link is the underlay now, no segment of the switch's (as an
	 * afxdp carrier's wire).
	 */
	port_set_up(p, false);
	__atomic_store_n(&t->ul, ul, __ATOMIC_RELEASE);
	info("port %s: tap %s carries %s (UDP tunnel GSO %s)", p->name,
	     t->ifname, ul->client->name, ul->tnl_gso ? "on" :
	     "off: a kernel before 6.17, or offload=off");
	return 0;
}

/**
 * tap_ul_detach() - carry it no more (port_ops @ul_detach)
 * @p:		port
 *
 * Context: control thread
 */
static void tap_ul_detach(struct port *p)
{
	struct tap_priv *t = p->priv;
	int small = TAP_VNET_HDR_LEN;

	__atomic_store_n(&t->ul, NULL, __ATOMIC_RELEASE);
	port_quiesce();		/* no reader is in the tunnel's rx now */
	/* The header and offloads back as a switch port has them; once
	 * sealed (ctl "port del", shutdown) the ioctls are no longer ours
	 * (seccomp): the TAP keeps its 24-byte header, which its reads and
	 * writes follow (@vhl), and a tunnel GSO frame the kernel hands it
	 * is then dropped by the switch as an offload it cannot take.
	 */
	if (!port_env.sealed &&
	    __atomic_load_n(&t->vhl, __ATOMIC_RELAXED) != TAP_VNET_HDR_LEN) {
		tap_set_offload(t, t->ifname, t->offload);
		if (ioctl(t->fd, TUNSETVNETHDRSZ, &small) == 0)
			__atomic_store_n(&t->vhl, TAP_VNET_HDR_LEN,
					 __ATOMIC_RELEASE);
	}
	p->carrying = false;
	port_set_up(p, true);	/* a switch port again (one queue) */
}

/* tap_ul_tx_begin() - a TX buffer for flow hash @q (port_ops @ul_tx_begin) */
static void *tap_ul_tx_begin(struct port *p, unsigned int q)
	NO_TSA	/* unlocked by tap_ul_tx_end() */
{
	struct tap_priv *t = p->priv;
	struct tap_ultx *u = &t->carry->tx[q % TAP_UL_TXQ];

	vlock_lock(&u->lock);
	return u;
}

/* tap_ul_tx_buf() - where the frame goes (port_ops @ul_tx_buf) */
static uint8_t *tap_ul_tx_buf(struct port *p, void *txq) NO_TSA
{
	struct tap_ultx *u = txq;

	(void)p;
	return u->buf + TAP_VNET_HDR_TNL;
}

/**
 * tap_ul_write() - one frame to the kernel, behind its header
 * @p:		port
 * @t:		its state
 * @iov:	header (TAP_VNET_HDR_TNL bytes, the fd's length used), frame
 * @cnt:	pieces in @iov
 * @len:	the frame's bytes
 * Return: 0, -ENOBUFS (the kernel's queue is full), -EINVAL (it refused
 *	   the metadata) or another -errno
 */
static int tap_ul_write(struct port *p, struct tap_priv *t, struct iovec *iov,
			unsigned int cnt, size_t len)
{
	int tries = 0, rc;
	ssize_t r;

	iov[0].iov_len = __atomic_load_n(&t->vhl, __ATOMIC_RELAXED);
	do {
		r = writev(t->fd, iov, (int)cnt);
	} while (r < 0 && errno == EINTR && ++tries < 3);
	if (r >= 0) {
		stats_add(&port_ctr(p)->tx_packets, 1);
		stats_add(&port_ctr(p)->tx_bytes, len);
		return 0;
	}
	rc = errno == EAGAIN || errno == ENOBUFS ? -ENOBUFS : -errno;
	stats_add(&port_ctr(p)->drops[rc == -ENOBUFS ? STATS_DROP_NO_BUFFER :
				      rc == -EINVAL ? STATS_DROP_OFFLOAD :
				      STATS_DROP_IO_ERROR], 1);
	return rc;
}

/* tap_ul_tx_put() - the buffer's frame to the kernel (port_ops @ul_tx_put) */
static int tap_ul_tx_put(struct port *p, void *txq, uint32_t len) NO_TSA
{
	struct tap_ultx *u = txq;
	struct tap_priv *t = p->priv;
	size_t vhl = __atomic_load_n(&t->vhl, __ATOMIC_RELAXED);
	struct iovec iov[2];

	if (len > TAP_FRAME_MAX)
		return -ENOBUFS;
	memset(u->buf + TAP_VNET_HDR_TNL - vhl, 0, vhl);
	iov[0].iov_base = u->buf + TAP_VNET_HDR_TNL - vhl;
	iov[1].iov_base = u->buf + TAP_VNET_HDR_TNL;
	iov[1].iov_len = len;
	return tap_ul_write(p, t, iov, 2, len) == -ENOBUFS ? -ENOBUFS : 0;
}

/* tap_ul_tx_end() - unlock (port_ops @ul_tx_end): every put is sent */
static void tap_ul_tx_end(struct port *p, void *txq) NO_TSA
{
	struct tap_ultx *u = txq;

	(void)p;
	vlock_unlock(&u->lock);
}

/**
 * tap_ul_tx_gso() - a carried tunnel's frame whole, with its metadata
 *		     (port_ops @ul_tx_gso)
 * @p:		port
 * @txq:	the locked buffer (unused: the pieces go as they are)
 * @iov:	the frame
 * @cnt:	its pieces, at most 1 + PKT_IOV_MAX
 * @vnet:	its metadata
 * @tnl:	a UDP tunnel GSO frame's layers, or NULL
 * Return: 0, or -errno (-EOPNOTSUPP: no tunnel GSO on this TAP)
 */
static int tap_ul_tx_gso(struct port *p, void *txq, const struct iovec *iov,
			 unsigned int cnt, const struct virtio_net_hdr_v1 *vnet,
			 const struct port_ul_tnl *tnl) NO_TSA
{
	struct tap_priv *t = p->priv;
	struct iovec v[2 + PKT_IOV_MAX];
	uint8_t hdr[TAP_VNET_HDR_TNL] = { 0 };
	struct virtio_net_hdr_v1 h = *vnet;
	size_t len = 0;
	unsigned int i;
	uint16_t w;

	(void)txq;
	if (cnt > 1 + PKT_IOV_MAX ||
	    (tnl && __atomic_load_n(&t->vhl, __ATOMIC_RELAXED) !=
		    TAP_VNET_HDR_TNL))
		return -EOPNOTSUPP;
	h.num_buffers = 0;
	memcpy(hdr, &h, sizeof(h));
	if (tnl) {
		w = htole16(tnl->outer_th);
		memcpy(hdr + TAP_VNET_OFF_TNL, &w, 2);
		w = htole16(tnl->inner_nh);
		memcpy(hdr + TAP_VNET_OFF_TNL + 2, &w, 2);
	}
	v[0].iov_base = hdr;
	for (i = 0; i < cnt; i++) {
		v[1 + i] = iov[i];
		len += iov[i].iov_len;
	}
	return tap_ul_write(p, t, v, cnt + 1, len);
}

/* What a TAP port counts beyond stats_common (see stats.h). */
static const struct stats_desc tap_desc[] = {
	{ .key = "steer_syncs", .metric = "steer_syncs_total",
	  .help = "TAP steering map syncs with the MAC table.",
	  STATS_AT(steer_syncs) },
};

static const struct stats_table tap_stats = {
	tap_desc, ARRAY_SIZE(tap_desc)
};

/* Frames it hands straight to a guest: stats_direct, as on the guest. */
static const struct stats_table *const tap_counters[] = {
	&stats_direct, &tap_stats, NULL
};

/**
 * tap_show() - port_ops @show: the interface and its queues
 * @p:		port
 * @o:		writer
 *
 * Each queue with the port index of the guest it is steered to (null:
 * queue 0, the flood and unknown-destination one), from the control
 * thread's own tables; a carrier's tunnel, header length and whether it
 * takes UDP tunnel GSO frames.
 *
 * Context: control thread
 */
static void tap_show(const struct port *p, struct port_out *o)
{
	const struct tap_priv *t = p->priv;
	unsigned int i, d, nq = __atomic_load_n(&t->nq, __ATOMIC_ACQUIRE);

	o->put(o, ",\"tap\":{\"ifname\":");
	port_out_str(o, t->ifname);
	o->put(o, ",\"multi_queue\":%s,\"offload\":%s,\"offloads\":"
	       "\"0x%llx\",\"frame_max\":%u,\"queues\":[",
	       t->mq ? "true" : "false", t->offload ? "true" : "false",
	       (unsigned long long)t->src_feat, t->frame_max);
	for (i = 0; i < nq; i++) {
		int to = -1;

		for (d = 0; d < PORT_IDX_MAX && i; d++)
			if (t->port_queue[d] && t->port_queue[d] != UINT16_MAX &&
			    i >= t->port_queue[d] &&
			    i < (unsigned int)t->port_queue[d] + t->port_pairs[d])
				to = (int)d;
		o->put(o, "%s{\"q\":%u,\"steered_to\":", i ? "," : "", i);
		if (to >= 0)
			o->put(o, "%d}", to);
		else
			o->put(o, "null}");
	}
	o->put(o, "]");
	if (t->ul) {
		o->put(o, ",\"carries\":");
		port_out_str(o, t->ul->client->name);
		o->put(o, ",\"vnet_hdr_len\":%u,\"tunnel_gso\":%s",
		       __atomic_load_n(&t->vhl, __ATOMIC_RELAXED),
		       t->ul->tnl_gso ? "true" : "false");
	}
	o->put(o, "}");
}

const struct port_ops port_tap_ops = {
	.type		= "tap",
	.name_prefix	= "tap",
	.priv_size	= sizeof(struct tap_priv),
	.opts		= tap_opts,
	.n_opts		= ARRAY_SIZE(tap_opts),
	.opts_size	= sizeof(struct tap_opts),
	.runtime_refused = "tap ports need privileges vhostd dropped at "
			   "start-up; add them on the command line",
	.open		= tap_open,
	.close		= tap_close,
	.xmit		= tap_xmit,
	.rx_begin	= tap_rx_begin,
	.rx_burst	= tap_rx_burst,
	.rx_end		= tap_rx_end,
	.timer		= tap_timer,
	.show		= tap_show,
	.counters	= tap_counters,
	.ul_attach	= tap_ul_attach,
	.ul_detach	= tap_ul_detach,
	.ul_tx_begin	= tap_ul_tx_begin,
	.ul_tx_buf	= tap_ul_tx_buf,
	.ul_tx_put	= tap_ul_tx_put,
	.ul_tx_end	= tap_ul_tx_end,
	.ul_tx_gso	= tap_ul_tx_gso,
};
