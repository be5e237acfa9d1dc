// SPDX-License-Identifier: GPL-2.0-or-later
/* port_afxdp.c - a NIC's queues straight into the switch (AF_XDP)
 *
 * DOC: Theory of Operation
 *
 * "afxdp,ifname=IF[,queues=N][,mode=auto|native|generic][,zerocopy=on|off]":
 * one AF_XDP socket (XSK, libxdp's xsk.h) per NIC queue 0..N-1, each with
 * a UMEM of its own and each a source queue of the switch, owned by a
 * worker.  Frames from the wire land in UMEM (the kernel's copy, or the
 * NIC's DMA with zero copy), the switch copies them once into the
 * destination (a guest's buffers); frames to the wire are copied once
 * from the guest's buffers into UMEM.  Nothing of the host's stack is on
 * the path: no skb, no bridge, no TAP.
 *
 * The XDP program is ours, six instructions assembled here: redirect a
 * frame to the XSK of its RX queue (an XSKMAP), and to the kernel's stack
 * (XDP_PASS) when that queue has none.  It is attached through a bpf_link,
 * not netlink: a link belongs to its file descriptor, so when vhostd
 * exits -- cleanly, or killed -- the kernel detaches the program; a crash
 * never leaves an interface redirecting into a dead socket.  mode=native
 * asks the driver's XDP (an error naming the interface if it has none),
 * generic the kernel's SKB path (any device), auto native then generic.
 * zerocopy=on binds with XDP_ZEROCOPY (an error if the driver cannot),
 * off with XDP_COPY; unset, the kernel chooses.
 *
 * UMEM, per queue: AFXDP_FRAMES frames of AFXDP_FRAME bytes, the first
 * half for receiving (all in the fill ring, or in the RX ring, or held by
 * the switch for the burst in flight), the second for sending (a free
 * stack, the TX ring, or the completion ring).  A turn peeks the RX ring,
 * describes the frames in place, joins consecutive TCP segments of one
 * flow into TSO frames (net/gro.h, as the vxlan port does), and gives the
 * frames back to the fill ring at rx_done (the destinations have copied
 * them).  xmit may run on every
 * worker at once: a queue's TX side has its lock; the queue is chosen by
 * the frame's flow hash, so that a flow stays in order.  Offloads are
 * finished in software toward the wire (checksums completed, TSO/USO cut
 * into segments, net/gso.h), as the NIC sees ordinary frames; frames over
 * the interface's MTU are dropped and counted.
 *
 * The kernel's own XSK counters (drops for a full RX ring, an empty fill
 * ring, invalid descriptors) are read once a second (XDP_STATISTICS).
 */
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <linux/if_link.h>
#include <linux/if_packet.h>
#include <linux/if_xdp.h>
#include <xdp/xsk.h>

#include "port.h"
#include "../lock.h"
#include "../net/flow.h"
#include "../net/gro.h"
#include "../net/gso.h"
#include "../net/iov.h"
#include "../util.h"

#define AFXDP_QUEUES_MAX	16U
#define AFXDP_FRAME		XSK_UMEM__DEFAULT_FRAME_SIZE	/* 4096 */
#define AFXDP_FRAMES		4096U
#define AFXDP_RX_FRAMES		(AFXDP_FRAMES / 2)
#define AFXDP_TX_FRAMES		(AFXDP_FRAMES - AFXDP_RX_FRAMES)
#define AFXDP_RING		AFXDP_RX_FRAMES	/* every ring's size */

/* The type's counters, in struct port_stats @type (see afxdp_desc[]). */
enum {
	AX_C_RX_DROPPED,
	AX_C_RX_RING_FULL,
	AX_C_FILL_EMPTY,
	AX_C_INVALID,
	AX_C_TX_FULL,
	AX_C_MTU,
	AX_C_GRO_JOINED,
	AX_C_GRO_FRAMES,
	AX_C_TSO_KERNEL,
	AX_C_COUNT,
};

/**
 * struct afxdp_opts - an afxdp port's spec keys
 * @ifname:	ifname= the interface
 * @queues:	queues= its RX/TX queues to take, from 0
 * @mode:	mode= auto, native or generic
 * @zerocopy:	zerocopy= XDP_ZEROCOPY or XDP_COPY (unset: the kernel's
 *		choice)
 * @tso:	tso= auto, on or off: TSO/USO frames to the interface whole
 *		(a packet socket)
 */
struct afxdp_opts {
	char ifname[PORT_IFNAME_MAX];
	unsigned int queues;
	char mode[8];
	bool zerocopy;
	char tso[8];
};

#define AX_OPT(f)	PORT_OPT_AT(struct afxdp_opts, f)

enum { AX_IFNAME, AX_QUEUES, AX_MODE, AX_ZEROCOPY, AX_TSO };

static const struct port_opt afxdp_opts[] = {
	[AX_IFNAME] = {
		.key = "ifname", .type = PORT_OPT_IFNAME, AX_OPT(ifname),
		.flags = PORT_OPT_REQUIRED | PORT_OPT_UNIQUE,
		.help = "IF: the interface whose queues the port takes" },
	[AX_QUEUES] = {
		.key = "queues", .type = PORT_OPT_UINT, AX_OPT(queues),
		.min = 1, .max = AFXDP_QUEUES_MAX, .def = 1,
		.help = "N: its queues 0..N-1, one AF_XDP socket each" },
	[AX_MODE] = {
		.key = "mode", .type = PORT_OPT_NAME, AX_OPT(mode),
		.help = "auto|native|generic: the driver's XDP, the kernel's, "
			"or native if it can (default auto)" },
	[AX_ZEROCOPY] = {
		.key = "zerocopy", .type = PORT_OPT_BOOL, AX_OPT(zerocopy),
		.help = "on: zero copy or fail; off: copy mode (default: the "
			"kernel's choice)" },
	[AX_TSO] = { .key = "tso", .type = PORT_OPT_NAME, AX_OPT(tso),
	  .help = "auto|on|off: TSO/USO frames go to the interface whole, "
		  "through a packet socket (the NIC segments them), or are "
		  "cut into AF_XDP frames; auto (default): whole, but on "
		  "a veth" },
};

_Static_assert(sizeof(struct afxdp_opts) <= PORT_OPTS_SIZE,
	       "afxdp options fit a port spec");

/**
 * struct afxdp_q - one NIC queue's socket and UMEM
 * @area:	the UMEM, AFXDP_FRAMES frames
 * @umem:	libxdp's handle
 * @xsk:	the socket
 * @fd:		its fd
 * @fill:	fill ring (the reading worker)
 * @comp:	completion ring (under @txlock)
 * @rx:		RX ring (the reading worker)
 * @tx:		TX ring (under @txlock)
 * @txlock:	serialises the senders (any worker)
 * @txfree:	free TX frames' addresses, @ntxfree of them (under @txlock)
 * @ntxfree:	their number
 * @held:	RX frames of the burst in flight, @nheld of them: back to
 *		the fill ring at rx_done
 * @nheld:	their number
 * @pkts:	that burst's frames, described in place
 * @flow:	the TCP frame being joined from the burst's segments
 * @gro_hdr:	the headers of each joined frame, by its index in @pkts
 * @upkts:	the burst's inner frames of a carried tunnel (via=),
 *		described in place by the tunnel
 * @uflow:	their TCP frame being joined
 * @ugro_hdr:	their joined frames' headers
 * @qs:		per-queue counters (relaxed; the reader and the senders):
 *		every frame on the wire, a carried tunnel's too
 */
struct afxdp_q {
	uint8_t *area;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	int fd;
	struct xsk_ring_prod fill;
	struct xsk_ring_cons comp;
	struct xsk_ring_cons rx;
	struct xsk_ring_prod tx;
	struct vlock txlock;
	uint64_t txfree[AFXDP_TX_FRAMES];
	unsigned int ntxfree;
	uint64_t held[AFXDP_RX_FRAMES];
	unsigned int nheld;
	struct pkt pkts[PORT_BURST];
	struct gro_flow flow;
	uint8_t gro_hdr[PORT_BURST][GRO_HDR_MAX];
	struct pkt upkts[PORT_BURST];
	struct gro_flow uflow;
	uint8_t ugro_hdr[PORT_BURST][GRO_HDR_MAX];
	struct port_queue_stats qs;
};

/**
 * struct afxdp_priv - an afxdp port's state
 * @nq:		queues taken
 * @ifindex:	the interface
 * @frame_max:	largest frame sent: the MTU, its Ethernet header, a tag
 * @map_fd:	the XSKMAP, -1 when none
 * @prog_fd:	the XDP program, -1 when none
 * @link_fd:	its link to the interface, -1 when none (closing it
 *		detaches the program)
 * @native:	attached in driver mode (else generic)
 * @ul:		the tunnel whose underlay the port carries, NULL if none
 *		(atomic: the readers load it once a burst)
 * @ifname:	the interface
 * @mac:	its MAC
 * @pfd:	tso=on: a packet socket on the interface that sends only
 *		(PACKET_VNET_HDR: a frame and its GSO metadata), -1 if none
 * @q:		the queues
 */
struct afxdp_priv {
	unsigned int nq;
	int ifindex;
	struct port_underlay *ul;
	char ifname[PORT_IFNAME_MAX];
	uint8_t mac[ETH_ALEN];
	int pfd;
	uint32_t frame_max;
	int map_fd;
	int prog_fd;
	int link_fd;
	bool native;
	struct afxdp_q q[AFXDP_QUEUES_MAX];
};

/* The program's instructions (struct bpf_insn, linux/bpf.h). */
#define AX_INSN(c, d, s, o, i)						\
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s),	\
			    .off = (o), .imm = (i) })

/**
 * afxdp_prog() - load the XDP program: each frame to its queue's XSK
 * @map_fd:	the XSKMAP (key: RX queue index)
 * Return: the program's fd, or -errno
 *
 *	r2 = ctx->rx_queue_index
 *	r1 = &xskmap
 *	r3 = XDP_PASS		(no socket on the queue: the kernel's stack)
 *	return bpf_redirect_map(r1, r2, r3)
 */
static int afxdp_prog(int map_fd)
{
	const struct bpf_insn insn[] = {
		AX_INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1,
			offsetof(struct xdp_md, rx_queue_index), 0),
		AX_INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1,
			BPF_PSEUDO_MAP_FD, 0, map_fd),
		AX_INSN(0, 0, 0, 0, 0),
		AX_INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0,
			XDP_PASS),
		AX_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_redirect_map),
		AX_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "vhostd_xsk", "GPL", insn,
			   ARRAY_SIZE(insn), NULL);
	return fd < 0 ? -errno : fd;
}

/**
 * afxdp_check() - mode= is one of its words (port_ops @check)
 * @opts:	struct afxdp_opts, parsed
 * @given:	bit i: afxdp_opts[i] was given
 * Return: NULL, or what is wrong
 */
static const char *afxdp_check(const void *opts, uint32_t given)
{
	const struct afxdp_opts *o = opts;

	if ((given & 1U << AX_MODE) && strcmp(o->mode, "auto") &&
	    strcmp(o->mode, "native") && strcmp(o->mode, "generic"))
		return "mode= is auto, native or generic";
	if ((given & 1U << AX_TSO) && strcmp(o->tso, "auto") &&
	    strcmp(o->tso, "on") && strcmp(o->tso, "off"))
		return "tso= is auto, on or off";
	return NULL;
}

/**
 * afxdp_rx_queues() - the interface's RX queues, from sysfs
 * @ifname:	interface
 * Return: how many (at least 1 if the interface exists), 0 if unknown
 */
static unsigned int afxdp_rx_queues(const char *ifname)
{
	char path[96];
	unsigned int n;

	for (n = 0; n < 1024; n++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-%u",
			 ifname, n);
		if (access(path, F_OK))
			break;
	}
	return n;
}

/**
 * afxdp_ifinfo() - the interface's MTU, MAC and whether it is a veth
 * @ifname:	interface
 * @mac:	out: its MAC (left zero if it cannot be read)
 * @veth:	out: its driver says "veth" (false if it cannot be read)
 * Return: the MTU, or 1500 if it cannot be read
 *
 * @veth is tso=auto's question.  A frame leaves a NIC cut to the MTU
 * and checksummed whatever the far end runs.  Into a veth whose far end
 * runs an XDP program (another vhostd's afxdp port) a TSO frame crosses
 * cut to the MTU, the veth's TSO being off toward XDP, but with its
 * checksums still partial, a state AF_XDP does not carry: nothing of
 * the stream arrives intact (bench/afxdp.sh tcp, mode afxdp-tso).
 */
static unsigned int afxdp_ifinfo(const char *ifname, uint8_t *mac,
				 bool *veth)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { 0 };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	unsigned int mtu = 1500;

	*veth = false;
	if (fd < 0)
		return mtu;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (!ioctl(fd, SIOCGIFMTU, &ifr) && ifr.ifr_mtu > 0)
		mtu = (unsigned int)ifr.ifr_mtu;
	if (!ioctl(fd, SIOCGIFHWADDR, &ifr))
		memcpy(mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	ifr.ifr_data = (void *)&di;
	if (!ioctl(fd, SIOCETHTOOL, &ifr))
		*veth = !strcmp(di.driver, "veth");
	close(fd);
	return mtu;
}

/**
 * afxdp_q_open() - one queue's UMEM and socket, its fill ring full
 * @p:		port (for messages)
 * @x:		port state
 * @q:		the queue
 * @qid:	its index
 * @o:		options
 * @zc_given:	zerocopy= was in the spec
 * Return: 0 or -errno, with a log line
 */
static int afxdp_q_open(struct port *p, struct afxdp_priv *x,
			struct afxdp_q *q, unsigned int qid,
			const struct afxdp_opts *o, bool zc_given)
{
	const struct xsk_umem_config ucfg = {
		.fill_size = AFXDP_RING, .comp_size = AFXDP_RING,
		.frame_size = AFXDP_FRAME, .frame_headroom = 0,
	};
	struct xsk_socket_config scfg = {
		.rx_size = AFXDP_RING, .tx_size = AFXDP_RING,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP,
	};
	size_t len = (size_t)AFXDP_FRAMES * AFXDP_FRAME;
	uint32_t idx;
	unsigned int i;
	int rc;

	if (zc_given)
		scfg.bind_flags |= o->zerocopy ? XDP_ZEROCOPY : XDP_COPY;
	q->fd = -1;
	q->area = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (q->area == MAP_FAILED) {
		q->area = NULL;
		rc = -errno;
		err("%s: afxdp: UMEM of %zu bytes: %s", p->name, len,
		    strerror(-rc));
		return rc;
	}
	rc = xsk_umem__create(&q->umem, q->area, len, &q->fill, &q->comp,
			      &ucfg);
	if (rc) {
		err("%s: afxdp: UMEM for queue %u: %s", p->name, qid,
		    strerror(-rc));
		return rc;
	}
	rc = xsk_socket__create(&q->xsk, o->ifname, qid, q->umem, &q->rx,
				&q->tx, &scfg);
	if (rc) {
		err("%s: afxdp: socket on %s queue %u: %s%s", p->name,
		    o->ifname, qid, strerror(-rc),
		    zc_given && o->zerocopy && rc == -EOPNOTSUPP ?
		    " (the driver has no zero copy: zerocopy=off)" : "");
		return rc;
	}
	q->fd = xsk_socket__fd(q->xsk);
	rc = xsk_socket__update_xskmap(q->xsk, x->map_fd);
	if (rc) {
		err("%s: afxdp: queue %u into the XSKMAP: %s", p->name, qid,
		    strerror(-rc));
		return rc;
	}
	if (xsk_ring_prod__reserve(&q->fill, AFXDP_RX_FRAMES, &idx) !=
	    AFXDP_RX_FRAMES) {
		err("%s: afxdp: fill ring of queue %u", p->name, qid);
		return -ENOSPC;
	}
	for (i = 0; i < AFXDP_RX_FRAMES; i++)
		*xsk_ring_prod__fill_addr(&q->fill, idx + i) =
			(uint64_t)i * AFXDP_FRAME;
	xsk_ring_prod__submit(&q->fill, AFXDP_RX_FRAMES);
	for (i = 0; i < AFXDP_TX_FRAMES; i++)
		q->txfree[i] = (uint64_t)(AFXDP_RX_FRAMES + i) * AFXDP_FRAME;
	q->ntxfree = AFXDP_TX_FRAMES;
	vlock_init(&q->txlock);
	return 0;
}

/**
 * afxdp_q_close() - undo afxdp_q_open(), whatever of it was done
 * @q:		the queue
 */
static void afxdp_q_close(struct afxdp_q *q)
{
	if (q->xsk)
		xsk_socket__delete(q->xsk);
	q->xsk = NULL;
	q->fd = -1;
	if (q->umem)
		xsk_umem__delete(q->umem);
	q->umem = NULL;
	if (q->area)
		munmap(q->area, (size_t)AFXDP_FRAMES * AFXDP_FRAME);
	q->area = NULL;
}

/**
 * afxdp_attach() - the program onto the interface, through a link
 * @p:		port (for messages)
 * @x:		port state (@prog_fd, @ifindex); @link_fd, @native set
 * @mode:	"auto", "native" or "generic"
 * @ifname:	the interface's name, for messages
 * Return: 0 or -errno, with a log line
 */
static int afxdp_attach(struct port *p, struct afxdp_priv *x,
			const char *mode, const char *ifname)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo);
	int fd, rc;

	if (strcmp(mode, "generic")) {
		lo.flags = XDP_FLAGS_DRV_MODE;
		fd = bpf_link_create(x->prog_fd, x->ifindex, BPF_XDP, &lo);
		if (fd >= 0) {
			x->link_fd = fd;
			x->native = true;
			return 0;
		}
		rc = -errno;
		if (!strcmp(mode, "native")) {
			err("%s: afxdp: %s has no native XDP (%s): use "
			    "mode=generic", p->name, ifname, strerror(-rc));
			return rc;
		}
		info("%s: afxdp: no native XDP on %s (%s): generic mode",
		     p->name, ifname, strerror(-rc));
	}
	lo.flags = XDP_FLAGS_SKB_MODE;
	fd = bpf_link_create(x->prog_fd, x->ifindex, BPF_XDP, &lo);
	if (fd < 0) {
		rc = -errno;
		err("%s: afxdp: cannot attach XDP to %s: %s%s", p->name, ifname,
		    strerror(-rc), rc == -EBUSY ?
		    " (another XDP program is attached)" : "");
		return rc;
	}
	x->link_fd = fd;
	x->native = false;
	return 0;
}

/**
 * afxdp_teardown() - everything open() made, in reverse
 * @p:		port
 * @x:		port state
 * @nsrc:	source queues handed to workers so far
 */
static void afxdp_teardown(struct port *p, struct afxdp_priv *x,
			   unsigned int nsrc)
{
	unsigned int i;

	for (i = 0; i < nsrc; i++)
		port_src_del(p, i);
	if (x->link_fd >= 0)
		close(x->link_fd);	/* the program is off the interface */
	x->link_fd = -1;
	if (x->pfd >= 0)
		close(x->pfd);
	x->pfd = -1;
	for (i = 0; i < AFXDP_QUEUES_MAX; i++)
		afxdp_q_close(&x->q[i]);
	if (x->prog_fd >= 0)
		close(x->prog_fd);
	if (x->map_fd >= 0)
		close(x->map_fd);
	x->prog_fd = x->map_fd = -1;
}

/**
 * afxdp_packet_socket() - the send-only packet socket for TSO/USO frames
 * @p:		port (for messages)
 * @x:		port state (@ifindex)
 * Return: its fd, or -1 (a warning: frames are then cut in software)
 *
 * Protocol 0: it receives nothing.  PACKET_VNET_HDR: each write is a
 * virtio-net header and a frame, the kernel builds a GSO skb from it
 * (virtio_net_hdr_to_skb(), as for a TAP, checking what the guest
 * wrote); PACKET_QDISC_BYPASS: straight to the driver, as AF_XDP's own
 * frames go.
 */
static int afxdp_packet_socket(struct port *p, struct afxdp_priv *x)
{
	struct sockaddr_ll ll = {
		.sll_family = AF_PACKET, .sll_ifindex = x->ifindex,
	};
	int fd, one = 1;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ll, sizeof(ll))) {
		warn("%s: afxdp: no packet socket for TSO frames (%s): they "
		     "are cut in software", p->name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	return fd;
}

/**
 * afxdp_open() - map, program, a socket per queue, the link, the workers
 * @p:		port, priv zeroed
 * @spec:	parsed spec (struct afxdp_opts)
 * Return: 0 or -errno, with a log line
 *
 * Context: control thread, at start-up (privileges and bpf() needed)
 */
static int afxdp_open(struct port *p, const struct port_spec *spec)
{
	const struct afxdp_opts *o = port_spec_opts(spec);
	const char *mode = *o->mode ? o->mode : "auto";
	struct afxdp_priv *x = p->priv;
	unsigned int i, have, nsrc = 0;
	bool veth;
	int rc;

	x->map_fd = x->prog_fd = x->link_fd = x->pfd = -1;
	for (i = 0; i < AFXDP_QUEUES_MAX; i++)
		x->q[i].fd = -1;
	x->ifindex = (int)if_nametoindex(o->ifname);
	if (!x->ifindex) {
		err("%s: afxdp: no interface %s", p->name, o->ifname);
		return -ENODEV;
	}
	have = afxdp_rx_queues(o->ifname);
	if (have && o->queues > have) {
		err("%s: afxdp: %s has %u RX queue(s), queues=%u asked",
		    p->name, o->ifname, have, o->queues);
		return -EINVAL;
	}
	x->nq = o->queues;
	snprintf(x->ifname, sizeof(x->ifname), "%s", o->ifname);
	x->frame_max = afxdp_ifinfo(o->ifname, x->mac, &veth) + ETH_HLEN + 4;
	if (x->frame_max > AFXDP_FRAME)
		x->frame_max = AFXDP_FRAME;

	x->map_fd = bpf_map_create(BPF_MAP_TYPE_XSKMAP, "vhostd_xsks",
				   sizeof(int), sizeof(int), AFXDP_QUEUES_MAX,
				   NULL);
	if (x->map_fd < 0) {
		rc = -errno;
		err("%s: afxdp: XSKMAP: %s", p->name, strerror(-rc));
		goto err;
	}
	x->prog_fd = afxdp_prog(x->map_fd);
	if (x->prog_fd < 0) {
		rc = x->prog_fd;
		err("%s: afxdp: loading the XDP program: %s", p->name,
		    strerror(-rc));
		goto err;
	}
	for (i = 0; i < x->nq; i++) {
		rc = afxdp_q_open(p, x, &x->q[i], i, o,
				  spec->given & 1U << AX_ZEROCOPY);
		if (rc)
			goto err;
	}
	rc = afxdp_attach(p, x, mode, o->ifname);
	if (rc)
		goto err;
	if (!strcmp(o->tso, "on") ||
	    (strcmp(o->tso, "off") && !veth))
		x->pfd = afxdp_packet_socket(p, x);
	for (nsrc = 0; nsrc < x->nq; nsrc++) {
		rc = port_src_add(p, nsrc, x->q[nsrc].fd, PORT_SRC_LEVEL);
		if (rc < 0) {
			err("%s: afxdp: cannot register queue %u with a worker: "
			    "%s", p->name, nsrc, strerror(-rc));
			goto err;
		}
	}
	port_set_up(p, true);
	info("port %s: afxdp on %s, %u queue(s), %s XDP, frames up to %u B%s",
	     p->name, o->ifname, x->nq, x->native ? "native" : "generic",
	     x->frame_max, x->pfd >= 0 ? ", TSO/USO to the kernel whole" : "");
	return 0;

err:
	afxdp_teardown(p, x, nsrc);
	return rc;
}

/**
 * afxdp_close() - undo afxdp_open() (port out of forwarding, quiesced)
 * @p:		port
 */
static void afxdp_close(struct port *p)
{
	struct afxdp_priv *x = p->priv;

	afxdp_teardown(p, x, x->nq);
}

/**
 * afxdp_rx_begin() - a turn at queue @q begins
 * @p:		port
 * @q:		queue
 * @turn:	the turn
 * Return: true while the queue's socket is open
 */
static bool afxdp_rx_begin(struct port *p, uint32_t q, struct port_turn *turn)
{
	struct afxdp_priv *x = p->priv;

	(void)turn;
	return q < x->nq && x->q[q].xsk;
}

/**
 * afxdp_rx_burst() - up to @max frames of queue @q, in UMEM
 * @p:		port
 * @q:		queue
 * @pkts:	out: the frames
 * @max:	room in @pkts
 * @turn:	frames taken added to @turn->done; @turn->dry when the RX
 *		ring is empty
 *
 * With a tunnel carried (via=), every frame is the tunnel's to judge:
 * what it keeps of the burst enters the switch here, as its frames
 * (straight from UMEM, joined as the port's own would be); the rest is
 * dropped (drops.port_down: the port is no switch port meanwhile).
 *
 * Context: the worker owning the queue
 * Return: frames in @pkts
 */
static unsigned int afxdp_rx_burst(struct port *p, uint32_t q,
				   struct pkt **pkts, unsigned int max,
				   struct port_turn *turn)
{
	struct afxdp_priv *x = p->priv;
	struct afxdp_q *aq = &x->q[q];
	struct port_underlay *ul = __atomic_load_n(&x->ul, __ATOMIC_ACQUIRE);
	struct pkt *upkts[PORT_BURST];
	struct port_sink own = {
		.pkts = aq->pkts, .out = pkts, .flow = &aq->flow,
		.gro_hdr = aq->gro_hdr, .open = -1, .gro = true,
		.ctr = AX_C_GRO_JOINED,
	};
	struct port_sink tun = {
		.pkts = aq->upkts, .out = upkts, .flow = &aq->uflow,
		.gro_hdr = aq->ugro_hdr, .open = -1,
	};
	unsigned int i, r, bad = 0, notours = 0;
	uint64_t wire = 0;
	uint32_t idx;

	max = MIN(max, (unsigned int)PORT_BURST);
	r = xsk_ring_cons__peek(&aq->rx, max, &idx);
	if (!r) {
		/* Nothing: the kernel may wait for a kick to fill. */
		if (xsk_ring_prod__needs_wakeup(&aq->fill))
			recvfrom(aq->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		turn->dry = true;
		return 0;
	}
	if (ul) {
		tun.gro = ul->gro;
		tun.ctr = ul->gro_ctr;
	}
	for (i = 0; i < r; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&aq->rx,
								  idx + i);
		uint64_t base = xsk_umem__extract_addr(d->addr);
		uint64_t off = xsk_umem__add_offset_to_addr(d->addr);
		struct pkt *pkt = &aq->pkts[own.n];
		uint8_t *f = aq->area + off;

		aq->held[aq->nheld++] = base;
		/* The kernel's descriptor, checked all the same. */
		if (base >= (uint64_t)AFXDP_RX_FRAMES * AFXDP_FRAME ||
		    off + d->len > base + AFXDP_FRAME || d->len < ETH_HLEN) {
			bad++;
			continue;
		}
		wire += d->len;
		if (ul) {
			struct pkt *u = &aq->upkts[tun.n];

			switch (ul->rx(ul->client, f, d->len, NULL, u)) {
			case PORT_UL_FRAME:
				port_sink_take(&tun, u->iov[0].iov_base);
				continue;
			case PORT_UL_TAKEN:
				continue;
			default:
				/* Not the tunnel's: the switch has none of
				 * this wire (afxdp_ul_attach()).
				 */
				notours++;
				continue;
			}
		}
		memset(&pkt->vnet, 0, sizeof(pkt->vnet));
		pkt->src_feat = 0;	/* the wire: no offload metadata */
		pkt->len = d->len;
		pkt->iovcnt = 1;
		pkt->iov[0].iov_base = f;
		pkt->iov[0].iov_len = d->len;
		memcpy(&pkt->eth, f, ETH_HLEN);
		port_sink_take(&own, f);
	}
	xsk_ring_cons__release(&aq->rx, r);
	if (r < max)
		turn->dry = true;
	turn->done += r;
	if (bad)
		stats_add(&port_ctr(p)->drops[STATS_DROP_RUNT], bad);
	if (notours)
		stats_add(&port_ctr(p)->drops[STATS_DROP_PORT_DOWN], notours);
	port_sink_end(&own, p);
	if (ul) {
		port_sink_end(&tun, ul->client);
		if (tun.n)
			port_forward(ul->client, upkts, tun.n);
	}
	if (r > bad) {
		__atomic_fetch_add(&aq->qs.rx_packets, r - bad,
				   __ATOMIC_RELAXED);
		__atomic_fetch_add(&aq->qs.rx_bytes, wire, __ATOMIC_RELAXED);
	}
	return own.n;
}

/**
 * afxdp_rx_done() - the burst's frames back to the fill ring
 * @p:		port
 * @q:		queue
 * @turn:	the turn
 */
static void afxdp_rx_done(struct port *p, uint32_t q, struct port_turn *turn)
{
	struct afxdp_q *aq = &((struct afxdp_priv *)p->priv)->q[q];
	unsigned int i;
	uint32_t idx;

	(void)turn;
	if (!aq->nheld)
		return;
	/* The fill ring holds every RX frame: there is always room. */
	if (xsk_ring_prod__reserve(&aq->fill, aq->nheld, &idx) != aq->nheld)
		return;		/* kept in @held: next time */
	for (i = 0; i < aq->nheld; i++)
		*xsk_ring_prod__fill_addr(&aq->fill, idx + i) = aq->held[i];
	xsk_ring_prod__submit(&aq->fill, aq->nheld);
	aq->nheld = 0;
}

/**
 * afxdp_rx_end() - a turn ends: what the last burst held goes back
 * @p:		port
 * @q:		queue
 * @turn:	the turn
 */
static void afxdp_rx_end(struct port *p, uint32_t q, struct port_turn *turn)
{
	afxdp_rx_done(p, q, turn);
}

/**
 * afxdp_reclaim() - sent frames back to the free stack
 * @aq:		queue, its TX lock held
 */
static void afxdp_reclaim(struct afxdp_q *aq) REQUIRES(aq->txlock)
{
	uint32_t idx, n, i;

	n = xsk_ring_cons__peek(&aq->comp, AFXDP_RING, &idx);
	for (i = 0; i < n && aq->ntxfree < AFXDP_TX_FRAMES; i++)
		aq->txfree[aq->ntxfree++] =
			xsk_umem__extract_addr(*xsk_ring_cons__comp_addr(
				&aq->comp, idx + i));
	if (n)
		xsk_ring_cons__release(&aq->comp, n);
}

/**
 * afxdp_push() - the top free TX frame, its first @len bytes written,
 *		  into the TX ring
 * @aq:		queue, its TX lock held
 * @len:	the frame's length
 * Return: 0, or -ENOBUFS (no free frame, or the ring is full: the frame
 *	   stays free)
 */
static int afxdp_push(struct afxdp_q *aq, uint32_t len) REQUIRES(aq->txlock)
{
	struct xdp_desc *d;
	uint32_t idx;

	if (!aq->ntxfree || xsk_ring_prod__reserve(&aq->tx, 1, &idx) != 1)
		return -ENOBUFS;
	d = xsk_ring_prod__tx_desc(&aq->tx, idx);
	d->addr = aq->txfree[--aq->ntxfree];
	d->len = len;
	d->options = 0;
	xsk_ring_prod__submit(&aq->tx, 1);
	return 0;
}

/**
 * afxdp_put() - one wire frame into a TX frame and the TX ring
 * @aq:		queue, its TX lock held
 * @iov:	the frame's bytes
 * @cnt:	pieces in @iov
 * @len:	its length
 * Return: 0, or the drop reason
 */
static int afxdp_put(struct afxdp_q *aq, const struct iovec *iov,
		     unsigned int cnt, size_t len) REQUIRES(aq->txlock)
{
	if (!aq->ntxfree)
		afxdp_reclaim(aq);
	if (!aq->ntxfree)
		return STATS_DROP_NO_BUFFER;
	if (iov_to_buf(iov, cnt, 0, aq->area + aq->txfree[aq->ntxfree - 1],
		       len) != len)
		return STATS_DROP_OFFLOAD;
	return afxdp_push(aq, (uint32_t)len) ? STATS_DROP_NO_BUFFER : 0;
}

/**
 * afxdp_kick() - have the kernel send what the TX ring holds
 * @aq:		queue, its TX lock held
 *
 * Copy mode sends on a kick only (zero copy when the ring asks), and at
 * most 32 frames a kick (the kernel's TX_BATCH_SIZE, EAGAIN for the
 * rest): kick until the ring is taken, room made in the completion ring
 * between tries, so that no frame waits for the next xmit.
 */
static void afxdp_kick(struct afxdp_q *aq) REQUIRES(aq->txlock)
{
	unsigned int i;

	if (!xsk_ring_prod__needs_wakeup(&aq->tx))
		return;
	for (i = 0; i < AFXDP_RING / 32 + 1; i++) {
		if (sendto(aq->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
			return;
		if (errno != EAGAIN && errno != EINTR)
			return;	/* ENOBUFS, ENETDOWN, EBUSY: a later kick */
		afxdp_reclaim(aq);
	}
}

/**
 * struct afxdp_emit - gso_emit()'s state for one frame
 * @x:		port state
 * @aq:		its queue, the TX lock held
 * @mtu:	set when a wire frame was over the MTU
 */
struct afxdp_emit {
	struct afxdp_priv *x;
	struct afxdp_q *aq;
	bool mtu;
};

/* afxdp_emit() - gso_emit()'s callback: one wire frame into the TX ring */
static int afxdp_emit(void *arg, const struct iovec *iov, unsigned int cnt,
		      size_t len) NO_TSA	/* @aq's lock: afxdp_xmit() */
{
	struct afxdp_emit *e = arg;

	if (len > e->x->frame_max) {
		e->mtu = true;
		return STATS_DROP_TOO_BIG;
	}
	return afxdp_put(e->aq, iov, cnt, len);
}

/**
 * afxdp_vnet_send() - a frame and its virtio-net metadata to the packet
 *		       socket, after what the queue's ring holds
 * @x:		port state (@pfd open)
 * @aq:		queue, its TX lock held (its ring is kicked first: a flow
 *		stays in order in copy mode)
 * @iov:	the frame, at most PKT_IOV_MAX pieces
 * @cnt:	its pieces
 * @vnet:	its metadata (the first 10 bytes: struct virtio_net_hdr)
 * Return: writev()'s
 */
static ssize_t afxdp_vnet_send(struct afxdp_priv *x, struct afxdp_q *aq,
			       const struct iovec *iov, unsigned int cnt,
			       const struct virtio_net_hdr_v1 *vnet)
	REQUIRES(aq->txlock)
{
	struct iovec v[PKT_IOV_MAX + 1];

	v[0].iov_base = (void *)(uintptr_t)vnet;
	v[0].iov_len = sizeof(struct virtio_net_hdr);
	memcpy(v + 1, iov, cnt * sizeof(v[0]));
	afxdp_kick(aq);
	return writev(x->pfd, v, (int)cnt + 1);
}

/**
 * afxdp_tso() - a TSO/USO frame to the interface whole (tso=on)
 * @x:		port state (@pfd open)
 * @aq:		the frame's queue, its TX lock held
 * @pkt:	frame (read, never written)
 * @mtu:	set when its segments would be over the MTU
 * @tso:	incremented when sent so
 * Return: 0 if sent, -reason if dropped, 1 if it is to be cut in software
 *	   after all (the kernel refused it as such)
 *
 * AF_XDP has no GSO: a 64 KiB frame cut into 45 frames is 45 skbs in
 * copy mode and 45 descriptors on the wire.  A packet socket takes it
 * whole with its metadata, and the NIC (TSO), or the kernel as late as
 * it can, cuts it.  What the queue's ring holds goes first, so that a
 * flow stays in order in copy mode (in zero-copy mode the socket is a
 * queue of the NIC's own, and the packet socket's frames may pass it).
 */
static int afxdp_tso(struct afxdp_priv *x, struct afxdp_q *aq,
		     const struct pkt *pkt, bool *mtu, unsigned int *tso)
	REQUIRES(aq->txlock)
{
	uint8_t head[GSO_HDR_MAX];
	struct eth_hdrs h;
	size_t n;

	if (gso_plan(pkt, pkt->src_feat, 0) != GSO_ACT_SEGMENT ||
	    pkt->iovcnt > PKT_IOV_MAX)
		return 1;
	/* Each segment within the MTU: its headers and gso_size. */
	n = iov_peek(pkt->iov, pkt->iovcnt, 0, head,
		     MIN(sizeof(head), (size_t)pkt->len));
	if (eth_parse(head, n, &h))
		return 1;
	if (h.pay_off + le16toh(pkt->vnet.gso_size) > x->frame_max) {
		*mtu = true;
		return -STATS_DROP_TOO_BIG;
	}
	if (afxdp_vnet_send(x, aq, pkt->iov, pkt->iovcnt, &pkt->vnet) >= 0) {
		(*tso)++;
		return 0;
	}
	return errno == ENOBUFS || errno == EAGAIN ? -STATS_DROP_NO_BUFFER : 1;
}

/**
 * afxdp_frame() - one frame to the wire, its offloads finished
 * @x:		port state
 * @aq:		queue, its TX lock held
 * @pkt:	frame (read, never written)
 * @mtu:	set when a segment or the frame is over the MTU
 * @tso:	incremented when it went to the kernel whole (afxdp_tso())
 * Return: 0, or the drop reason
 */
static int afxdp_frame(struct afxdp_priv *x, struct afxdp_q *aq,
		       const struct pkt *pkt, bool *mtu, unsigned int *tso)
	REQUIRES(aq->txlock)
{
	struct afxdp_emit e = { x, aq, false };
	int rc;

	if (pkt->len < ETH_HLEN)
		return STATS_DROP_RUNT;
	if (x->pfd >= 0 && pkt->vnet.gso_type != VIRTIO_NET_HDR_GSO_NONE) {
		rc = afxdp_tso(x, aq, pkt, mtu, tso);
		if (rc <= 0)
			return -rc;
	}
	rc = gso_emit(pkt, afxdp_emit, &e);
	*mtu = e.mtu;
	return rc < 0 ? STATS_DROP_OFFLOAD : rc;
}

/**
 * afxdp_xmit() - frames to the wire, each on its flow's queue
 * @p:		port
 * @pkts:	frames (their buffers are read, never kept)
 * @n:		number of frames
 * Return: frames handed to the TX rings; the rest are counted as drops
 *
 * Context: any worker, concurrently: each queue's TX side under its lock
 */
static unsigned int afxdp_xmit(struct port *p, struct pkt *const *pkts,
			       unsigned int n)
{
	unsigned int i, sent = 0, drops[STATS_DROP_COUNT] = { 0 }, big = 0;
	unsigned int tso = 0;
	struct afxdp_priv *x = p->priv;
	uint8_t which[PORT_BURST];
	unsigned int qi, c, m, left;
	uint64_t bytes = 0;

	/* A chunk at a time: each frame's queue (its flow's), then a queue
	 * at a time, one lock and at most one kick per queue and chunk.
	 */
	for (c = 0; c < n; c += m) {
		m = MIN(n - c, (unsigned int)PORT_BURST);
		for (i = 0; i < m; i++)
			which[i] = (uint8_t)(x->nq > 1 ?
					     pkt_flow_hash(pkts[c + i]) % x->nq :
					     0);
		left = m;
		for (qi = 0; qi < x->nq && left; qi++) {
			struct afxdp_q *aq = &x->q[qi];
			unsigned int qsent = 0;
			uint64_t qbytes = 0;

			vlock_lock(&aq->txlock);
			for (i = 0; i < m; i++) {
				const struct pkt *pkt = pkts[c + i];
				bool mtu = false;
				int why;

				if (which[i] != qi)
					continue;
				left--;
				why = afxdp_frame(x, aq, pkt, &mtu, &tso);
				if (mtu)
					big++;
				if (why) {
					drops[why]++;
					continue;
				}
				qsent++;
				qbytes += pkt->len;
			}
			if (qsent)
				afxdp_kick(aq);
			vlock_unlock(&aq->txlock);
			sent += qsent;
			bytes += qbytes;
			if (qsent) {
				__atomic_fetch_add(&aq->qs.tx_packets, qsent,
						   __ATOMIC_RELAXED);
				__atomic_fetch_add(&aq->qs.tx_bytes, qbytes,
						   __ATOMIC_RELAXED);
			}
		}
	}
	if (big)
		stats_add(&port_ctr(p)->type[AX_C_MTU], big);
	if (tso)
		stats_add(&port_ctr(p)->type[AX_C_TSO_KERNEL], tso);
	if (drops[STATS_DROP_NO_BUFFER])
		stats_add(&port_ctr(p)->type[AX_C_TX_FULL],
			  drops[STATS_DROP_NO_BUFFER]);
	port_count_xmit(p, sent, bytes, drops);
	return sent;
}

/**
 * afxdp_ul_attach() - carry a tunnel's underlay (port_ops @ul_attach)
 * @p:		port
 * @ul:		the tunnel's attachment: @mac and @frame_max filled
 * Return: 0, or -EBUSY if the port carries one already
 *
 * Context: control thread, start-up
 */
static int afxdp_ul_attach(struct port *p, struct port_underlay *ul)
{
	struct afxdp_priv *x = p->priv;

	if (p->carrying)
		return -EBUSY;
	memcpy(ul->mac, x->mac, ETH_ALEN);
	ul->frame_max = x->frame_max - 4;	/* untagged */
	ul->queues = x->nq;
	ul->gso = x->pfd >= 0;
	p->carrying = true;
	/* The wire is the underlay now, no segment of the switch's: in the
	 * tunnel's bridge domain it would loop the tunnel into itself (a
	 * flood out of both, back in through the other end) and put the
	 * tenants' frames on the underlay bare.
	 */
	port_set_up(p, false);
	__atomic_store_n(&x->ul, ul, __ATOMIC_RELEASE);
	return 0;
}

/**
 * afxdp_ul_detach() - carry it no more (port_ops @ul_detach)
 * @p:		port
 *
 * Context: control thread
 */
static void afxdp_ul_detach(struct port *p)
{
	struct afxdp_priv *x = p->priv;

	__atomic_store_n(&x->ul, NULL, __ATOMIC_RELEASE);
	port_quiesce();		/* no reader is in the tunnel's rx now */
	p->carrying = false;
	port_set_up(p, true);	/* a switch port again */
}

/**
 * afxdp_ul_tx_begin() - lock a TX queue (port_ops @ul_tx_begin)
 * @p:		port
 * @q:		the queue, below @nq
 * Return: the queue
 */
static void *afxdp_ul_tx_begin(struct port *p, unsigned int q)
	NO_TSA	/* unlocked by afxdp_ul_tx_end() */
{
	struct afxdp_priv *x = p->priv;
	struct afxdp_q *aq = &x->q[q < x->nq ? q : 0];

	vlock_lock(&aq->txlock);
	return aq;
}

/**
 * afxdp_ul_tx_buf() - a free TX frame (port_ops @ul_tx_buf)
 * @p:		port
 * @txq:	the locked queue
 * Return: its bytes (AFXDP_FRAME of them), or NULL if none is free
 */
static uint8_t *afxdp_ul_tx_buf(struct port *p, void *txq) NO_TSA
{
	struct afxdp_q *aq = txq;

	if (!aq->ntxfree)
		afxdp_reclaim(aq);
	if (!aq->ntxfree) {
		stats_add(&port_ctr(p)->type[AX_C_TX_FULL], 1);
		return NULL;
	}
	return aq->area + aq->txfree[aq->ntxfree - 1];
}

/**
 * afxdp_ul_tx_put() - the frame in the last buffer into the TX ring
 *		       (port_ops @ul_tx_put)
 * @p:		port
 * @txq:	the locked queue
 * @len:	the frame's length
 * Return: 0, or -ENOBUFS (the ring is full)
 */
static int afxdp_ul_tx_put(struct port *p, void *txq, uint32_t len) NO_TSA
{
	struct afxdp_q *aq = txq;

	if (len > AFXDP_FRAME || afxdp_push(aq, len)) {
		stats_add(&port_ctr(p)->type[AX_C_TX_FULL], 1);
		return -ENOBUFS;
	}
	__atomic_fetch_add(&aq->qs.tx_packets, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&aq->qs.tx_bytes, len, __ATOMIC_RELAXED);
	return 0;
}

/**
 * afxdp_ul_tx_end() - send what was put, unlock (port_ops @ul_tx_end)
 * @p:		port
 * @txq:	the locked queue
 */
static void afxdp_ul_tx_end(struct port *p, void *txq) NO_TSA
{
	struct afxdp_q *aq = txq;

	(void)p;
	afxdp_kick(aq);
	vlock_unlock(&aq->txlock);
}

/**
 * afxdp_ul_tx_gso() - a carried tunnel's GSO frame whole, through the
 *		       packet socket (port_ops @ul_tx_gso)
 * @p:		port
 * @txq:	the locked queue (its ring is flushed first: order)
 * @iov:	the frame
 * @cnt:	its pieces, at most PKT_IOV_MAX
 * @vnet:	its metadata
 * @tnl:	NULL (a packet socket has no UDP tunnel GSO: -EOPNOTSUPP)
 * Return: 0, or -errno
 */
static int afxdp_ul_tx_gso(struct port *p, void *txq, const struct iovec *iov,
			   unsigned int cnt,
			   const struct virtio_net_hdr_v1 *vnet,
			   const struct port_ul_tnl *tnl) NO_TSA
{
	struct afxdp_priv *x = p->priv;
	struct afxdp_q *aq = txq;
	ssize_t n;

	if (x->pfd < 0 || cnt > PKT_IOV_MAX || tnl)
		return -EOPNOTSUPP;
	n = afxdp_vnet_send(x, aq, iov, cnt, vnet);
	if (n < 0)
		return -errno;
	stats_add(&port_ctr(p)->type[AX_C_TSO_KERNEL], 1);
	__atomic_fetch_add(&aq->qs.tx_packets, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&aq->qs.tx_bytes,
			   (uint64_t)n - sizeof(struct virtio_net_hdr),
			   __ATOMIC_RELAXED);
	return 0;
}

/**
 * afxdp_timer() - once a second: the kernel's XSK counters
 * @p:		port
 *
 * Context: control thread; its counter slot holds the totals
 */
static void afxdp_timer(struct port *p)
{
	struct afxdp_priv *x = p->priv;
	uint64_t sum[AX_C_COUNT] = { 0 };
	struct xdp_statistics st;
	unsigned int i;

	for (i = 0; i < x->nq; i++) {
		socklen_t len = sizeof(st);

		if (x->q[i].fd < 0 ||
		    getsockopt(x->q[i].fd, SOL_XDP, XDP_STATISTICS, &st, &len))
			continue;
		sum[AX_C_RX_DROPPED] += st.rx_dropped;
		sum[AX_C_RX_RING_FULL] += st.rx_ring_full;
		sum[AX_C_FILL_EMPTY] += st.rx_fill_ring_empty_descs;
		sum[AX_C_INVALID] += st.rx_invalid_descs + st.tx_invalid_descs;
	}
	for (i = AX_C_RX_DROPPED; i <= AX_C_INVALID; i++)
		__atomic_store_n(&p->stats[0].type[i], sum[i],
				 __ATOMIC_RELAXED);
}

/**
 * afxdp_queue_stats() - per queue counters
 * @p:		port
 * @qs:		out
 * @max:	room in @qs
 * Return: entries written
 */
static unsigned int afxdp_queue_stats(const struct port *p,
				      struct port_queue_stats *qs,
				      unsigned int max)
{
	const struct afxdp_priv *x = p->priv;
	unsigned int i;

	for (i = 0; i < x->nq && i < max; i++) {
		qs[i].rx_packets = __atomic_load_n(&x->q[i].qs.rx_packets,
						   __ATOMIC_RELAXED);
		qs[i].rx_bytes = __atomic_load_n(&x->q[i].qs.rx_bytes,
						 __ATOMIC_RELAXED);
		qs[i].tx_packets = __atomic_load_n(&x->q[i].qs.tx_packets,
						   __ATOMIC_RELAXED);
		qs[i].tx_bytes = __atomic_load_n(&x->q[i].qs.tx_bytes,
						 __ATOMIC_RELAXED);
	}
	return i;
}

/* What an afxdp port counts beyond stats_common (see stats.h). */
static const struct stats_desc afxdp_desc[] = {
	{ .key = "xsk_rx_dropped", .metric = "afxdp_xsk_rx_dropped_total",
	  .help = "Frames the kernel dropped for the port's sockets.",
	  STATS_AT(type[AX_C_RX_DROPPED]) },
	{ .key = "xsk_rx_ring_full", .metric = "afxdp_xsk_rx_ring_full_total",
	  .help = "Frames dropped: a socket's RX ring was full.",
	  STATS_AT(type[AX_C_RX_RING_FULL]) },
	{ .key = "xsk_fill_empty", .metric = "afxdp_xsk_fill_empty_total",
	  .help = "Times the kernel found a fill ring empty.",
	  STATS_AT(type[AX_C_FILL_EMPTY]) },
	{ .key = "xsk_invalid", .metric = "afxdp_xsk_invalid_total",
	  .help = "Invalid RX or TX descriptors the kernel saw.",
	  STATS_AT(type[AX_C_INVALID]) },
	{ .key = "tx_full", .metric = "afxdp_tx_full_total",
	  .help = "Frames dropped: no free TX frame or TX ring slot.",
	  STATS_AT(type[AX_C_TX_FULL]) },
	{ .key = "mtu", .metric = "afxdp_mtu_total",
	  .help = "Frames dropped: larger than the interface's MTU.",
	  STATS_AT(type[AX_C_MTU]) },
	{ .key = "gro_joined", .metric = "afxdp_gro_joined_total",
	  .help = "TCP segments from the wire joined to the one before.",
	  STATS_AT(type[AX_C_GRO_JOINED]) },
	{ .key = "gro_frames", .metric = "afxdp_gro_frames_total",
	  .help = "Frames made of more than one segment from the wire.",
	  STATS_AT(type[AX_C_GRO_FRAMES]) },
	{ .key = "tso_kernel", .metric = "afxdp_tso_kernel_total",
	  .help = "TSO/USO frames sent whole through the packet socket "
		  "(tso=on).",
	  STATS_AT(type[AX_C_TSO_KERNEL]) },
	{ .key = "bursts", .metric = "afxdp_bursts_total",
	  .help = "Worker turns that took frames from a socket.",
	  STATS_AT(polls) },
};

static const struct stats_table afxdp_stats = {
	afxdp_desc, ARRAY_SIZE(afxdp_desc)
};

static const struct stats_table *const afxdp_counters[] = {
	&afxdp_stats, NULL
};

const struct port_ops port_afxdp_ops = {
	.type		= "afxdp",
	.name_prefix	= "xdp",
	.priv_size	= sizeof(struct afxdp_priv),
	.opts		= afxdp_opts,
	.n_opts		= ARRAY_SIZE(afxdp_opts),
	.opts_size	= sizeof(struct afxdp_opts),
	.check		= afxdp_check,
	.runtime_refused = "an AF_XDP port needs what vhostd gives up at "
			   "start-up (bpf(), raw sockets)",
	.open		= afxdp_open,
	.close		= afxdp_close,
	.xmit		= afxdp_xmit,
	.rx_begin	= afxdp_rx_begin,
	.rx_burst	= afxdp_rx_burst,
	.rx_done	= afxdp_rx_done,
	.rx_end		= afxdp_rx_end,
	.timer		= afxdp_timer,
	.queue_stats	= afxdp_queue_stats,
	.counters	= afxdp_counters,
	.ul_attach	= afxdp_ul_attach,
	.ul_detach	= afxdp_ul_detach,
	.ul_tx_begin	= afxdp_ul_tx_begin,
	.ul_tx_buf	= afxdp_ul_tx_buf,
	.ul_tx_put	= afxdp_ul_tx_put,
	.ul_tx_end	= afxdp_ul_tx_end,
	.ul_tx_gso	= afxdp_ul_tx_gso,
};
