// SPDX-License-Identifier: GPL-2.0-or-later
/* test_vxlan_via.c - the vxlan port over a carrier port (via=), and the
 *		      underlay frames it speaks (net/underlay.c)
 *
 * A fake carrier port type implements the port_ops underlay hooks: it
 * keeps every frame the tunnel puts, gives the tunnel's rx the frames
 * the test makes (as the remote VTEP would send them, built with
 * net/underlay.c from the remote's side), and the stub host finds it by
 * name.  For IPv4 and IPv6:
 *  - spec: via= to no port, to a port that carries nothing, a second
 *    tunnel on one carrier, via= with remcsum=: refused;
 *  - ARP / ND: a request or solicitation for local= is answered (the
 *    answer's fields and checksums exact), one for another address is
 *    the switch's, one from :: (DAD) is not answered;
 *  - a frame to a VTEP whose MAC is unknown is dropped (no_neigh) and
 *    the MAC asked for, once a second at most; the answer resolves it;
 *  - encapsulation: the datagram the remote receives classifies as good
 *    (checksums, ports, lengths), the inner frame byte for byte; a flood
 *    reaches both remotes;
 *  - decapsulation: a good datagram gives the inner frame in place; a
 *    stranger's is foreign; a bad UDP checksum, a zero one over IPv6, a
 *    fragment, a wrong port or another address are underlay_bad;
 *  - echo: a ping of local= is answered with good checksums;
 *  - a frame larger than the carrier's MTU: mtu_underlay, nothing sent;
 *  - a carrier that takes GSO frames whole: a TSO frame leaves as one
 *    UDP GSO train (metadata, partial checksum, each datagram's VXLAN
 *    header and a valid TCP segment, the payload in order); one that
 *    refuses them: the frame cut into datagrams after all, and never
 *    offered a train again.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "../../src/conf.h"
#include "../../src/stats.h"
#include "../../src/net/csum.h"
#include "../../src/net/gso.h"
#include "../../src/net/underlay.h"
#include "../../src/port/port.h"
#include "tcp4.h"

#define CTR(f)		stats_sum(port.stats, offsetof(struct port_stats, f))
/* The type's counters, as port_vxlan.c numbers them. */
#define VX_FLOOD	CTR(type[2])
#define VX_MTU_UNDERLAY	CTR(type[7])
#define VX_NO_NEIGH	CTR(type[11])
#define VX_UL_BAD	CTR(type[12])
#define VX_UL_SENT	CTR(type[13])
#define VX_TNL_GSO	CTR(type[14])
#define VX_BAD_HEADER	CTR(type[0])
#define VX_FOREIGN	CTR(peer_refused)

#define SENT_MAX	16

static const uint8_t MAC_US[6] = { 2, 0, 0, 0, 0xaa, 1 };
static const uint8_t MAC_R1[6] = { 2, 0, 0, 0, 0xbb, 1 };
static const uint8_t MAC_R2[6] = { 2, 0, 0, 0, 0xbb, 2 };
static const uint8_t MAC_G1[6] = { 2, 0, 0, 0, 0x11, 1 };	/* a guest */
static const uint8_t MAC_G2[6] = { 2, 0, 0, 0, 0x22, 2 };	/* remote's */

static struct port port, carrier, other;
static struct port_underlay *ul;	/* what the carrier carries */
static struct {
	uint8_t b[2048];
	uint32_t len;
} sent[SENT_MAX];
static unsigned int nsent, locked;
static bool fk_gso;			/* the carrier takes trains */
static int fk_gso_rc;			/* ul_tx_gso's answer */
static bool fk_tnl;			/* ... and UDP tunnel GSO frames */
static int fk_tnl_rc;			/* ul_tx_gso's answer to those */
static uint8_t train[70000];		/* the last train */
static size_t train_len;
static struct virtio_net_hdr_v1 train_vnet;
static bool train_has_tnl;
static struct port_ul_tnl train_tnl;
static unsigned int ntrains;
static int fam;				/* the case's family */
static struct ul_local us, r1, r2;	/* vhostd's end, the remotes */

/* ---- the fake carrier ---------------------------------------------- */

static int fk_attach(struct port *p, struct port_underlay *u)
{
	if (p->carrying)
		return -EBUSY;
	memcpy(u->mac, MAC_US, 6);
	u->frame_max = 1514;
	u->queues = 2;
	u->tnl_gso = u->tnl_csum = fk_tnl;
	u->gso = fk_gso;
	p->carrying = true;
	ul = u;
	return 0;
}

static void fk_detach(struct port *p)
{
	p->carrying = false;
	ul = NULL;
}

static void *fk_begin(struct port *p, unsigned int q)
{
	assert_true(q < 2);
	locked++;
	return &sent;
}

static uint8_t *fk_buf(struct port *p, void *q)
{
	assert_int_equal(locked, 1);
	return nsent < SENT_MAX ? sent[nsent].b : NULL;
}

static int fk_put(struct port *p, void *q, uint32_t len)
{
	assert_int_equal(locked, 1);
	assert_true(len <= 1514 && nsent < SENT_MAX);
	sent[nsent++].len = len;
	return 0;
}

static void fk_end(struct port *p, void *q)
{
	assert_int_equal(locked, 1);
	locked--;
}

static int fk_gso_send(struct port *p, void *q, const struct iovec *iov,
		       unsigned int cnt, const struct virtio_net_hdr_v1 *vnet,
		       const struct port_ul_tnl *tnl)
{
	size_t i;

	assert_int_equal(locked, 1);
	assert_true(fk_gso);
	if (tnl)
		assert_true(fk_tnl);
	if (tnl && fk_tnl_rc)
		return fk_tnl_rc;
	if (fk_gso_rc)
		return fk_gso_rc;
	train_len = 0;
	for (i = 0; i < cnt; i++) {
		assert_true(train_len + iov[i].iov_len <= sizeof(train));
		memcpy(train + train_len, iov[i].iov_base, iov[i].iov_len);
		train_len += iov[i].iov_len;
	}
	train_vnet = *vnet;
	train_has_tnl = tnl != NULL;
	if (tnl)
		train_tnl = *tnl;
	ntrains++;
	return 0;
}

static const struct port_ops fake_ops = {
	.type = "fake", .ul_attach = fk_attach, .ul_detach = fk_detach,
	.ul_tx_begin = fk_begin, .ul_tx_buf = fk_buf, .ul_tx_put = fk_put,
	.ul_tx_end = fk_end, .ul_tx_gso = fk_gso_send,
};

static const struct port_ops plain_ops = { .type = "plain" };

static struct port *stub_find(const char *name)
{
	if (!strcmp(name, "car"))
		return &carrier;
	if (!strcmp(name, "plain"))
		return &other;
	return NULL;
}

#define STUB_FIND	stub_find
#include "stub_host.h"

/* ---- helpers ------------------------------------------------------- */

/**
 * open_tunnel() - a vxlan port from @spec into @p
 * @p:		port struct (zeroed here)
 * @spec:	its spec
 * Return: open()'s result, or -EINVAL if the spec is refused
 */
static int open_tunnel(struct port *p, const char *spec)
{
	const struct port_ops *ops = port_ops_find("vxlan");
	char err[256];
	struct port_spec ps;

	if (conf_parse_port(spec, 0, &ps, err, sizeof(err)))
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", ps.name);
	p->ops = ops;
	p->priv = calloc(1, ops->priv_size);
	assert_non_null(p->priv);
	return ops->open(p, &ps);
}

static void close_tunnel(struct port *p)
{
	p->ops->close(p);
	free(p->priv);
	p->priv = NULL;
}

/* ends() - the three endpoints of family @f */
static void ends(int f)
{
	static const uint8_t ip6[16] = { 0x20, 0x01, 0, 0x02, [15] = 1 };

	fam = f;
	memset(&us, 0, sizeof(us));
	us.family = f;
	us.port = htons(4789);
	r2 = r1 = us;
	memcpy(us.mac, MAC_US, 6);
	memcpy(r1.mac, MAC_R1, 6);
	memcpy(r2.mac, MAC_R2, 6);
	if (f == AF_INET) {
		memcpy(us.ip, (uint8_t[]){ 198, 18, 0, 1 }, 4);
		memcpy(r1.ip, (uint8_t[]){ 198, 18, 0, 2 }, 4);
		memcpy(r2.ip, (uint8_t[]){ 198, 18, 0, 3 }, 4);
	} else {
		memcpy(us.ip, ip6, 16);
		memcpy(r1.ip, ip6, 16);
		memcpy(r2.ip, ip6, 16);
		r1.ip[15] = 2;
		r2.ip[15] = 3;
	}
}

/* opened() - the port asked for both remotes' MACs at once */
static int opened(int rc)
{
	struct ul_rx r;

	if (rc)
		return rc;
	assert_int_equal(nsent, 2);
	ul_classify(&r1, sent[0].b, sent[0].len, &r);
	assert_int_equal(r.kind, fam == AF_INET ? UL_ARP_REQ : UL_NS);
	assert_memory_equal(r.smac, MAC_US, 6);
	ul_classify(&r2, sent[1].b, sent[1].len, &r);
	assert_int_equal(r.kind, fam == AF_INET ? UL_ARP_REQ : UL_NS);
	nsent = 0;
	return 0;
}

/* setup_fam() - the tunnel of family @f over the fake carrier */
static int setup_fam(int f, const char *spec)
{
	port_host = &stub_host;
	memset(&carrier, 0, sizeof(carrier));
	carrier.ops = &fake_ops;
	snprintf(carrier.name, sizeof(carrier.name), "car");
	nsent = 0;
	ends(f);
	return opened(open_tunnel(&port, spec));
}

static int setup4(void **state)
{
	(void)state;
	return setup_fam(AF_INET, "vxlan,name=vx0,local=198.18.0.1,"
			 "remote=198.18.0.2,remote=198.18.0.3,vni=42,via=car");
}

static int setup4g(void **state)
{
	fk_gso = true;
	fk_gso_rc = 0;
	ntrains = 0;
	return setup4(state);
}

static int setup6(void **state);

static int setup6g(void **state)
{
	fk_gso = true;
	fk_gso_rc = 0;
	ntrains = 0;
	return setup6(state);
}

static int setup6(void **state)
{
	(void)state;
	return setup_fam(AF_INET6, "vxlan,name=vx0,local=2001:2::1,"
			 "remote=2001:2::2,remote=2001:2::3,vni=42,via=car");
}

static int setup4t(void **state)
{
	fk_tnl = true;
	fk_tnl_rc = 0;
	return setup4g(state);
}

static int setup6t(void **state)
{
	fk_tnl = true;
	fk_tnl_rc = 0;
	return setup6g(state);
}

static int teardown(void **state)
{
	(void)state;
	fk_gso = false;
	fk_tnl = false;
	close_tunnel(&port);
	assert_false(carrier.carrying);
	assert_null(ul);
	return 0;
}

/* rx() - frame @f of @len bytes through the carrier to the tunnel */
static enum port_ul_verdict rx(uint8_t *f, size_t len, struct pkt *pkt)
{
	assert_non_null(ul);
	return ul->rx(ul->client, f, len, NULL, pkt);
}

/* inner() - an inner frame: @dst, @src, IPv4 ethertype, @n bytes */
static size_t inner(uint8_t *f, const uint8_t *dst, const uint8_t *src,
		    size_t n)
{
	size_t i;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = 0x08;
	f[13] = 0x00;
	for (i = 14; i < n; i++)
		f[i] = (uint8_t)(i * 7 + 3);
	return n;
}

/* xmit1() - one inner frame into the tunnel; frames delivered */
static unsigned int xmit1(uint8_t *f, size_t len)
{
	struct pkt pkt, *pp = &pkt;

	memset(&pkt, 0, sizeof(pkt));
	pkt.len = (uint32_t)len;
	pkt.iovcnt = 1;
	pkt.iov[0].iov_base = f;
	pkt.iov[0].iov_len = len;
	memcpy(&pkt.eth, f, 14);
	return port.ops->xmit(&port, &pp, 1);
}

/* answer() - @from's answer to vhostd's question (ARP reply or NA) */
static size_t answer(const struct ul_local *from, uint8_t *out)
{
	return fam == AF_INET ? ul_arp(from, out, false, us.mac, us.ip) :
				ul_na(from, out, us.mac, us.ip);
}

/* question() - @from asks for vhostd's address (ARP request or NS) */
static size_t question(const struct ul_local *from, uint8_t *out)
{
	return fam == AF_INET ? ul_arp(from, out, true, NULL, us.ip) :
				ul_ns(from, out, us.ip);
}

/* datagram() - @from's VXLAN datagram with @vni carrying @in (@n bytes) */
static size_t datagram(const struct ul_local *from, uint8_t *out,
		       unsigned int vni, const uint8_t *in, size_t n)
{
	uint8_t *p = out + (fam == AF_INET ? UL_HLEN4 : UL_HLEN6);
	uint32_t sum;

	p[0] = 0x08;
	p[1] = p[2] = p[3] = 0;
	p[4] = (uint8_t)(vni >> 16);
	p[5] = (uint8_t)(vni >> 8);
	p[6] = (uint8_t)vni;
	p[7] = 0;
	memcpy(p + 8, in, n);
	sum = csum_partial(p, 8 + n, 0);
	return ul_udp(from, out, us.mac, us.ip, htons(50000), 8 + n, 1, true,
		      sum) + 8 + n;
}

static char reply[8192];

__attribute__((format(printf, 2, 3)))
static void out_put(struct port_out *o, const char *fmt, ...)
{
	size_t n = strlen(reply);
	va_list ap;

	(void)o;
	va_start(ap, fmt);
	vsnprintf(reply + n, sizeof(reply) - n, fmt, ap);
	va_end(ap);
}

/* fdb() - "vxlan fdb" into @reply; its return value */
static int fdb(void)
{
	struct port_out out = { out_put, NULL };
	char err[256];
	unsigned int i;

	reply[0] = '\0';
	for (i = 0; i < port.ops->n_cmds; i++)
		if (!strcmp(port.ops->cmds[i].verb, "fdb"))
			return port.ops->cmds[i].fn(&port, "", &out, err,
						    sizeof(err));
	return -1;
}

/* ---- cases --------------------------------------------------------- */

static void test_spec(void **state)
{
	struct port t;

	(void)state;
	/* The carrier carries vx0 already. */
	assert_int_equal(open_tunnel(&t, "vxlan,name=vx1,local=198.18.0.5,"
				     "vni=1,via=car"), -EBUSY);
	free(t.priv);
	assert_int_equal(open_tunnel(&t, "vxlan,name=vx1,local=198.18.0.5,"
				     "vni=1,via=nope"), -ENODEV);
	free(t.priv);
	memset(&other, 0, sizeof(other));
	other.ops = &plain_ops;
	assert_int_equal(open_tunnel(&t, "vxlan,name=vx1,local=198.18.0.5,"
				     "vni=1,via=plain"), -EINVAL);
	free(t.priv);
	assert_int_equal(open_tunnel(&t, "vxlan,name=vx1,local=198.18.0.5,"
				     "vni=1,via=car,remcsum=on"), -EINVAL);
	/* A limit the carrier's turns would not charge: refused. */
	assert_int_equal(open_tunnel(&t, "vxlan,name=vx1,local=198.18.0.5,"
				     "vni=1,via=car,rate=1G"), -EINVAL);
	free(t.priv);
	assert_true(carrier.carrying);
	assert_true(port.up);
}

static void test_neigh(void **state)
{
	uint8_t f[2048], in[200];
	struct ul_rx r;
	struct pkt pkt;
	size_t n;

	(void)state;
	assert_int_equal(fdb(), 0);
	assert_non_null(strstr(reply, "\"underlay_mac\":null"));
	/* Asked for our address: answered, to the asker, with our MAC. */
	n = question(&r1, f);
	assert_int_equal(rx(f, n, &pkt), PORT_UL_TAKEN);
	assert_int_equal(nsent, 1);
	assert_memory_equal(sent[0].b, MAC_R1, 6);
	assert_memory_equal(sent[0].b + 6, MAC_US, 6);
	ul_classify(&r1, sent[0].b, sent[0].len, &r);
	assert_int_equal(r.kind, UL_NEIGH);
	assert_true(r.neigh);
	assert_memory_equal(r.smac, MAC_US, 6);
	assert_memory_equal(r.sip, us.ip, fam == AF_INET ? 4 : 16);
	assert_int_equal(VX_UL_SENT, 3);	/* two questions at open */

	/* The asker is a VTEP: now known, a frame to it leaves at once. */
	nsent = 0;
	n = inner(in, MAC_G2, MAC_G1, 100);
	in[0] = 0xff;		/* broadcast: to both remotes */
	memset(in, 0xff, 6);
	assert_int_equal(xmit1(in, n), 0);	/* r2 unknown: a drop */
	assert_int_equal(VX_NO_NEIGH, 1);
	/* r1's copy left (and r2 was asked again if a second began). */
	assert_in_range(nsent, 1, 2);
	ul_classify(&r1, sent[0].b, sent[0].len, &r);
	assert_int_equal(r.kind, UL_UDP);
	assert_int_equal(r.len, 8 + n);
	assert_memory_equal(sent[0].b + r.off + 8, in, n);
	assert_true(ntohs(r.sport) >= 49152);

	/* Asked once a second at most: 15 frames, at most 2 questions. */
	{
		unsigned int i, asked = 0;

		for (i = 0; i < 15; i++) {
			nsent = 0;
			assert_int_equal(xmit1(in, n), 0);
			assert_in_range(nsent, 1, 2);
			if (nsent == 2) {
				ul_classify(&r2, sent[1].b, sent[1].len, &r);
				assert_int_equal(r.kind, fam == AF_INET ?
						 UL_ARP_REQ : UL_NS);
				asked++;
			}
		}
		assert_in_range(asked, 0, 2);
		assert_int_equal(VX_NO_NEIGH, 16);
	}

	/* r2 answers: both copies leave. */
	nsent = 0;
	assert_int_equal(rx(f, answer(&r2, f), &pkt), PORT_UL_TAKEN);
	assert_int_equal(xmit1(in, n), 1);
	assert_int_equal(nsent, 2);
	ul_classify(&r2, sent[1].b, sent[1].len, &r);
	assert_int_equal(r.kind, UL_UDP);
	assert_memory_equal(sent[1].b, MAC_R2, 6);
	assert_int_equal(VX_FLOOD, 2 * 17);

	/* The fdb says where each VTEP is on the wire. */
	assert_int_equal(fdb(), 0);
	assert_non_null(strstr(reply, "mac\":\"02:00:00:00:bb:01\""));
	assert_non_null(strstr(reply, "mac\":\"02:00:00:00:bb:02\""));

	/* Someone else's question is the switch's. */
	nsent = 0;
	memcpy(r.sip, r1.ip, 16);
	{
		struct ul_local other_end = us;

		other_end.ip[fam == AF_INET ? 3 : 15] = 9;
		n = fam == AF_INET ? ul_arp(&r1, f, true, NULL, other_end.ip) :
				     ul_ns(&r1, f, other_end.ip);
	}
	assert_int_equal(rx(f, n, &pkt), PORT_UL_PASS);
	assert_int_equal(nsent, 0);
	assert_int_equal(VX_UL_BAD, 0);
}

/* A unicast NS without a link-layer option (RFC 4861 7.2.2 allows it):
 * answered to its Ethernet source, nothing learned from it.
 */
static void test_ns_bare(void **state)
{
	uint8_t f[UL_CTL_MAX], *ip = f + 14, *m = ip + 40;
	struct ul_rx r;
	struct pkt pkt;
	size_t n = ul_ns(&r1, f, us.ip) - 8;	/* the option cut off */
	uint16_t c;

	(void)state;
	memcpy(f, MAC_US, 6);			/* unicast to us */
	memcpy(ip + 24, us.ip, 16);
	ip[5] = 24;				/* payload: 32 -> 24 */
	m[2] = m[3] = 0;
	c = csum_fold(csum_partial(m, 24, csum_pseudo_ipv6(
		ip + 8, ip + 24, IPPROTO_ICMPV6, 24, 0)));
	memcpy(m + 2, &c, 2);
	assert_int_equal(rx(f, n, &pkt), PORT_UL_TAKEN);
	assert_int_equal(nsent, 1);
	assert_memory_equal(sent[0].b, MAC_R1, 6);
	ul_classify(&r1, sent[0].b, sent[0].len, &r);
	assert_int_equal(r.kind, UL_NEIGH);
	assert_memory_equal(r.smac, MAC_US, 6);
	assert_int_equal(fdb(), 0);
	assert_null(strstr(reply, "bb:01"));	/* r1 not learned */
	assert_int_equal(VX_UL_BAD, 0);
}

static void test_decap(void **state)
{
	uint8_t f[2048], in[300];
	struct pkt pkt;
	size_t n, m;

	(void)state;
	m = inner(in, MAC_G1, MAC_G2, 300);
	n = datagram(&r1, f, 42, in, m);
	assert_int_equal(rx(f, n, &pkt), PORT_UL_FRAME);
	assert_int_equal(pkt.len, m);
	assert_int_equal(pkt.iovcnt, 1);
	assert_ptr_equal(pkt.iov[0].iov_base,
			 f + n - m);		/* in place */
	assert_memory_equal(pkt.iov[0].iov_base, in, m);
	assert_memory_equal(&pkt.eth, in, 14);

	/* The datagram's outer source MAC teaches nothing: a forged one
	 * from behind a router would aim the tunnel at the router.
	 */
	assert_int_equal(rx(f, answer(&r1, f), &pkt), PORT_UL_TAKEN);
	{
		struct ul_local forger = r1;

		forger.mac[5] = 0x66;
		n = datagram(&forger, f, 42, in, m);
		assert_int_equal(rx(f, n, &pkt), PORT_UL_FRAME);
		assert_int_equal(fdb(), 0);
		assert_non_null(strstr(reply, "mac\":\"02:00:00:00:bb:01\""));
		assert_null(strstr(reply, "bb:66"));
	}

	/* Another VNI, a stranger, bad checksums, a wrong port. */
	n = datagram(&r1, f, 43, in, m);
	assert_int_equal(rx(f, n, &pkt), PORT_UL_TAKEN);
	{
		struct ul_local stranger = r1;

		stranger.ip[fam == AF_INET ? 3 : 15] = 77;
		n = datagram(&stranger, f, 42, in, m);
		assert_int_equal(rx(f, n, &pkt), PORT_UL_TAKEN);
		assert_int_equal(VX_FOREIGN, 1);
	}
	n = datagram(&r1, f, 42, in, m);
	f[n - 1] ^= 1;
	assert_int_equal(rx(f, n, &pkt), PORT_UL_TAKEN);
	assert_int_equal(VX_UL_BAD, 1);
	n = datagram(&r1, f, 42, in, m);
	f[n - m - 8 - 8 + 2] ^= 1;		/* the destination port */
	assert_int_equal(rx(f, n, &pkt), PORT_UL_TAKEN);
	assert_int_equal(VX_UL_BAD, 2);
	n = datagram(&r1, f, 42, in, m);
	f[n - m - 8 - 2] = f[n - m - 8 - 1] = 0;	/* no UDP checksum */
	assert_int_equal(rx(f, n, &pkt),
			 fam == AF_INET ? PORT_UL_FRAME : PORT_UL_TAKEN);
	assert_int_equal(VX_UL_BAD, fam == AF_INET ? 2 : 3);
	if (fam == AF_INET) {
		n = datagram(&r1, f, 42, in, m);
		f[14 + 6] |= 0x20;		/* more fragments */
		f[24] = f[25] = 0;
		{
			uint16_t c = csum_fold(csum_partial(f + 14, 20, 0));

			memcpy(f + 24, &c, 2);
		}
		assert_int_equal(rx(f, n, &pkt), PORT_UL_TAKEN);
		assert_int_equal(VX_UL_BAD, 3);
		/* Truncated: the IP length beyond the frame. */
		n = datagram(&r1, f, 42, in, m);
		assert_int_equal(rx(f, n - 1, &pkt), PORT_UL_TAKEN);
		assert_int_equal(VX_UL_BAD, 4);
	}
	/* To another MAC: the switch's. */
	n = datagram(&r1, f, 42, in, m);
	f[5] ^= 1;
	assert_int_equal(rx(f, n, &pkt), PORT_UL_PASS);
	assert_int_equal(nsent, 0);
}

static void test_echo(void **state)
{
	uint8_t f[256];
	struct pkt pkt;
	struct ul_rx r;
	size_t n, l3 = fam == AF_INET ? 20 : 40, i;
	uint8_t *ip = f + 14, *m = ip + l3;
	uint16_t c;

	(void)state;
	/* A datagram header from r1, rewritten into an echo request. */
	n = ul_udp(&r1, f, us.mac, us.ip, htons(1), 64, 0, false, 0) + 64;
	for (i = l3 + 8; i < n - 14; i++)
		ip[i] = (uint8_t)i;
	m[0] = fam == AF_INET ? 8 : 128;
	m[1] = 0;
	m[2] = m[3] = 0;
	if (fam == AF_INET) {
		ip[9] = IPPROTO_ICMP;
		ip[10] = ip[11] = 0;
		c = csum_fold(csum_partial(ip, 20, 0));
		memcpy(ip + 10, &c, 2);
		c = csum_fold(csum_partial(m, n - 14 - 20, 0));
	} else {
		ip[6] = IPPROTO_ICMPV6;
		c = csum_fold(csum_partial(m, n - 54, csum_pseudo_ipv6(
			ip + 8, ip + 24, IPPROTO_ICMPV6,
			(uint32_t)(n - 54), 0)));
	}
	memcpy(m + 2, &c, 2);
	ul_classify(&us, f, n, &r);
	assert_int_equal(r.kind, UL_ECHO);
	assert_int_equal(rx(f, n, &pkt), PORT_UL_TAKEN);
	assert_int_equal(nsent, 1);
	assert_int_equal(sent[0].len, n);
	assert_memory_equal(sent[0].b, MAC_R1, 6);
	ip = sent[0].b + 14;
	m = ip + l3;
	assert_int_equal(m[0], fam == AF_INET ? 0 : 129);
	assert_memory_equal(m + 4, f + 14 + l3 + 4, n - 14 - l3 - 4);
	if (fam == AF_INET) {
		assert_int_equal(csum_fold(csum_partial(ip, 20, 0)), 0);
		assert_int_equal(csum_fold(csum_partial(m, n - 34, 0)), 0);
		assert_memory_equal(ip + 16, r1.ip, 4);
	} else {
		assert_int_equal(csum_fold(csum_partial(m, n - 54,
			csum_pseudo_ipv6(ip + 8, ip + 24, IPPROTO_ICMPV6,
					 (uint32_t)(n - 54), 0))), 0);
		assert_memory_equal(ip + 24, r1.ip, 16);
	}
}

static void test_mtu(void **state)
{
	uint8_t f[2048], in[1514];
	struct pkt pkt;
	size_t n;

	(void)state;
	n = answer(&r1, f);
	assert_int_equal(rx(f, n, &pkt), PORT_UL_TAKEN);
	n = inner(in, MAC_G2, MAC_G1, 1514);	/* IP 1500: fits mtu= */
	memcpy(in, MAC_G2, 6);
	/* Learn G2 at r1 so that the frame goes there only. */
	{
		uint8_t d[2048], g[60];
		size_t k = inner(g, MAC_G1, MAC_G2, sizeof(g));

		k = datagram(&r1, d, 42, g, k);

		assert_int_equal(rx(d, k, &pkt), PORT_UL_FRAME);
	}
	nsent = 0;
	assert_int_equal(xmit1(in, n), 0);
	assert_int_equal(nsent, 0);
	assert_int_equal(VX_MTU_UNDERLAY, 1);
	assert_int_equal(xmit1(in, n - 100), 1);	/* fits the wire */
	assert_int_equal(nsent, 1);
	assert_int_equal(sent[0].len, n - 100 + 8 +
			 (fam == AF_INET ? UL_HLEN4 : UL_HLEN6));
}

/* to_g2() - resolve r1 and learn G2 there, so that frames to G2 go to
 * r1 alone
 */
static void to_g2(void)
{
	uint8_t f[2048], g[60];
	struct pkt pkt;
	size_t k;

	assert_int_equal(rx(f, answer(&r1, f), &pkt), PORT_UL_TAKEN);
	k = inner(g, MAC_G1, MAC_G2, sizeof(g));
	k = datagram(&r1, f, 42, g, k);
	assert_int_equal(rx(f, k, &pkt), PORT_UL_FRAME);
	nsent = 0;
}

static void test_gso(void **state)
{
	static uint8_t f[66000];
	const size_t seg = 8 + 54 + 1000;	/* a datagram's payload */
	struct pkt pkt, *pp = &pkt;
	uint16_t c;
	size_t i;

	(void)state;
	to_g2();
	t4_tso_frame(&pkt, f, MAC_G2, MAC_G1, 2500, 1000);
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	assert_int_equal(ntrains, 1);
	assert_int_equal(nsent, 0);	/* nothing datagram by datagram */
	if (fam == AF_INET6) {
		/* The IPv6 underlay: its headers, the pseudo header's sum. */
		assert_int_equal(train_vnet.csum_start, 54);
		assert_int_equal(train_vnet.hdr_len, 62);
		assert_int_equal(train_len, 62 + 2 * seg + 8 + 54 + 500);
		assert_int_equal(train[12] << 8 | train[13], 0x86dd);
		assert_int_equal(train[18] << 8 | train[19],
				 train_len - 54);	/* payload length */
		assert_int_equal(train[56] << 8 | train[57], 4789);
		c = csum_reduce(csum_pseudo_ipv6(us.ip, r1.ip, IPPROTO_UDP,
						 (uint32_t)(train_len - 54),
						 0));
		assert_memory_equal(train + 60, &c, 2);
		for (i = 0; i < 3; i++)
			assert_true(t4_ok(train + 62 + i * seg + 8,
					  (i < 2 ? seg : 8 + 54 + 500) - 8));
		return;
	}
	assert_int_equal(train_vnet.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(train_vnet.gso_type, VIRTIO_NET_HDR_GSO_UDP_L4);
	assert_int_equal(train_vnet.gso_size, seg);
	assert_int_equal(train_vnet.csum_start, 34);
	assert_int_equal(train_vnet.csum_offset, 6);
	assert_int_equal(train_vnet.hdr_len, 42);
	/* Two full datagrams and a 500-byte one behind the outer headers. */
	assert_int_equal(train_len, 42 + 2 * seg + 8 + 54 + 500);
	assert_memory_equal(train, MAC_R1, 6);
	assert_int_equal(train[14 + 6] & 0x40, 0x40);		/* DF */
	assert_int_equal(train[36] << 8 | train[37], 4789);
	assert_int_equal(train[38] << 8 | train[39], train_len - 34);
	c = csum_reduce(csum_pseudo_ipv4(us.ip,
					 r1.ip, IPPROTO_UDP,
					 (uint32_t)(train_len - 34), 0));
	assert_memory_equal(train + 40, &c, 2);	/* left to the wire */
	for (i = 0; i < 3; i++) {
		const uint8_t *d = train + 42 + i * seg;
		size_t n = i < 2 ? seg : 8 + 54 + 500, j;

		assert_memory_equal(d, ((const uint8_t[]){ 8, 0, 0, 0, 0, 0,
							    42, 0 }), 8);
		assert_true(t4_ok(d + 8, n - 8));
		for (j = 0; j < n - 8 - 54; j++)
			assert_int_equal(d[8 + 54 + j],
					 (uint8_t)(i * 1000 + j));
	}

	/* A carrier that refuses trains: cut after all, once and for all. */
	fk_gso_rc = -EINVAL;
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	assert_int_equal(nsent, 3);
	assert_int_equal(ntrains, 1);
	nsent = 0;
	fk_gso_rc = 0;
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	assert_int_equal(nsent, 3);
	assert_int_equal(ntrains, 1);
}

/* rxv() - rx() with the carrier interface's metadata @vnet */
static enum port_ul_verdict rxv(uint8_t *f, size_t len,
				const struct virtio_net_hdr_v1 *vnet,
				struct pkt *pkt)
{
	assert_non_null(ul);
	return ul->rx(ul->client, f, len, vnet, pkt);
}

static void test_tnl(void **state)
{
	static uint8_t f[66000], w[67000];
	const size_t hl = fam == AF_INET ? UL_HLEN4 : UL_HLEN6, off = hl + 8;
	struct virtio_net_hdr_v1 vn, bad;
	struct pkt pkt, *pp = &pkt, in;
	uint16_t c;
	size_t n;

	(void)state;
	to_g2();
	t4_tso_frame(&pkt, f, MAC_G2, MAC_G1, 2500, 1000);
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	assert_int_equal(ntrains, 1);
	assert_int_equal(nsent, 0);
	assert_true(train_has_tnl);
	assert_int_equal(VX_TNL_GSO, 1);
	/* The frame whole behind the outer headers and the VXLAN header,
	 * the metadata the inner transport's, the layers' offsets.
	 */
	assert_int_equal(train_len, off + 54 + 2500);
	assert_memory_equal(train + off, f, 54 + 2500);
	assert_memory_equal(train + hl, ((const uint8_t[]){ 8, 0, 0, 0, 0, 0,
							     42, 0 }), 8);
	assert_memory_equal(train, MAC_R1, 6);
	assert_int_equal(train_vnet.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM |
			 (fam == AF_INET6 ? VIRTIO_NET_HDR_F_UDP_TUNNEL_CSUM :
			  0));
	assert_int_equal(train_vnet.gso_type, VIRTIO_NET_HDR_GSO_TCPV4 |
			 (fam == AF_INET ? VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4 :
			  VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV6));
	assert_int_equal(train_vnet.gso_size, 1000);
	assert_int_equal(train_vnet.csum_start, off + 34);
	assert_int_equal(train_vnet.csum_offset, 16);
	assert_int_equal(train_vnet.hdr_len, off + 54);
	assert_int_equal(train_tnl.outer_th, hl - 8);
	assert_int_equal(train_tnl.inner_nh, off + 14);
	assert_int_equal(train[hl - 8 + 2] << 8 | train[hl - 8 + 3], 4789);
	assert_int_equal(train[hl - 4] << 8 | train[hl - 3], train_len - hl + 8);
	if (fam == AF_INET) {
		assert_int_equal(train[16] << 8 | train[17], train_len - 14);
		assert_int_equal(train[hl - 2] | train[hl - 1], 0);
	} else {
		assert_int_equal(train[18] << 8 | train[19], train_len - 54);
		c = csum_reduce(csum_pseudo_ipv6(us.ip, r1.ip, IPPROTO_UDP,
						 (uint32_t)(train_len - 54),
						 0));
		assert_memory_equal(train + hl - 2, &c, 2);
	}

	/* The other way: r1's tunnel GSO frame as a TAP hands it over, the
	 * UDP checksum the kernel's (left partial: not summed here).
	 */
	n = ul_udp(&r1, w, us.mac, us.ip, htons(50000), 8 + 54 + 2500, 1,
		   false, 0);
	memcpy(w + hl, train + hl, 8 + 54 + 2500);
	n += 8 + 54 + 2500;
	w[hl - 2] = 0x12;
	w[hl - 1] = 0x34;		/* a partial sum, never checked */
	memset(&vn, 0, sizeof(vn));
	vn.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
	vn.gso_type = train_vnet.gso_type;
	vn.gso_size = 1000;
	vn.csum_start = (uint16_t)(off + 34);
	vn.csum_offset = 16;
	vn.hdr_len = (uint16_t)(off + 54);
	assert_int_equal(rxv(w, n, &vn, &in), PORT_UL_FRAME);
	assert_int_equal(in.len, 54 + 2500);
	assert_ptr_equal(in.iov[0].iov_base, w + off);
	assert_int_equal(in.vnet.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	assert_int_equal(in.vnet.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	assert_int_equal(in.vnet.gso_size, 1000);
	assert_int_equal(in.vnet.csum_start, 34);
	assert_int_equal(in.vnet.csum_offset, 16);
	assert_int_equal(in.vnet.hdr_len, 54);
	assert_true(in.src_feat & 1ULL << VIRTIO_NET_F_HOST_TSO4);
	assert_int_equal(gso_plan(&in, in.src_feat,
				  1ULL << VIRTIO_NET_F_GUEST_CSUM |
				  1ULL << VIRTIO_NET_F_GUEST_TSO4),
			 GSO_ACT_PASS);
	/* Without the kernel's word the partial sum is a bad checksum. */
	assert_int_equal(rx(w, n, &in), PORT_UL_TAKEN);
	assert_int_equal(VX_UL_BAD, 1);
	/* The outer checksum left partial, the inner frame whole. */
	{
		uint8_t g[600], d[700];
		size_t k = inner(g, MAC_G1, MAC_G2, sizeof(g));

		k = datagram(&r1, d, 42, g, k);

		d[hl - 2] ^= 0x55;
		bad = vn;
		bad.gso_type = 0;
		bad.csum_start = (uint16_t)(hl - 8);
		bad.csum_offset = 6;
		assert_int_equal(rxv(d, k, &bad, &in), PORT_UL_FRAME);
		assert_int_equal(in.len, sizeof(g));
		assert_int_equal(in.vnet.flags, 0);
		assert_int_equal(in.src_feat, 0);
		/* The inner checksum left partial: inside the frame only. */
		bad.csum_start = (uint16_t)(off + 34);
		bad.csum_offset = 16;
		assert_int_equal(rxv(d, k, &bad, &in), PORT_UL_FRAME);
		assert_int_equal(in.vnet.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
		assert_int_equal(in.vnet.csum_start, 34);
		assert_int_equal(in.src_feat, 1ULL << VIRTIO_NET_F_CSUM);
		bad.csum_start = (uint16_t)(k - 17);
		assert_int_equal(rxv(d, k, &bad, &in), PORT_UL_TAKEN);
		bad.csum_start = (uint16_t)(off + 2);
		bad.csum_offset = 0;
		assert_int_equal(rxv(d, k, &bad, &in), PORT_UL_TAKEN);
	}

	/* Metadata no kernel gives: each dropped and counted. */
	bad = vn;
	bad.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;	/* no tunnel bit */
	assert_int_equal(rxv(w, n, &bad, &in), PORT_UL_TAKEN);
	bad = vn;
	bad.csum_start = (uint16_t)(off + 4);		/* in the inner MACs */
	assert_int_equal(rxv(w, n, &bad, &in), PORT_UL_TAKEN);
	bad = vn;
	bad.csum_start = (uint16_t)(off - 4);		/* the VXLAN header */
	assert_int_equal(rxv(w, n, &bad, &in), PORT_UL_TAKEN);
	bad = vn;
	bad.csum_start = (uint16_t)(n - 10);		/* the end */
	assert_int_equal(rxv(w, n, &bad, &in), PORT_UL_TAKEN);
	bad = vn;
	bad.gso_size = 0;
	assert_int_equal(rxv(w, n, &bad, &in), PORT_UL_TAKEN);
	bad = vn;
	bad.gso_type = VIRTIO_NET_HDR_GSO_UDP_TUNNEL_IPV4 |
		       VIRTIO_NET_HDR_GSO_UDP_L4;	/* TCP's offset */
	assert_int_equal(rxv(w, n, &bad, &in), PORT_UL_TAKEN);
	bad = vn;
	bad.gso_type |= VIRTIO_NET_HDR_GSO_UDP;		/* unknown type */
	assert_int_equal(rxv(w, n, &bad, &in), PORT_UL_TAKEN);
	bad = vn;
	bad.gso_size = 1500;	/* segments beyond mtu= */
	assert_int_equal(rxv(w, n, &bad, &in), PORT_UL_TAKEN);
	assert_int_equal(VX_BAD_HEADER, 9);
	assert_int_equal(VX_UL_BAD, 1);

	/* The longest frame one outer IP packet holds (IPv4's length
	 * counts its header, IPv6's not) leaves whole; one byte more is
	 * cut into trains instead.
	 */
	{
		size_t most = 65535 - (fam == AF_INET ? 20 : 0) - 8 - 8 - 54;

		ntrains = 0;
		t4_tso_frame(&pkt, f, MAC_G2, MAC_G1, most, 1000);
		assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
		assert_true(train_has_tnl);
		assert_int_equal(train_len, off + 54 + most);
		assert_int_equal(VX_TNL_GSO, 2);
		t4_tso_frame(&pkt, f, MAC_G2, MAC_G1, most + 1, 1000);
		assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
		assert_false(train_has_tnl);
		assert_true(ntrains >= 2);
		assert_int_equal(VX_TNL_GSO, 2);
	}

	/* A carrier that refuses them: trains, once and for all. */
	fk_tnl_rc = -EINVAL;
	ntrains = 0;
	t4_tso_frame(&pkt, f, MAC_G2, MAC_G1, 2500, 1000);
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	assert_int_equal(ntrains, 1);
	assert_false(train_has_tnl);
	fk_tnl_rc = 0;
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	assert_int_equal(ntrains, 2);
	assert_false(train_has_tnl);
	assert_int_equal(VX_TNL_GSO, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_spec, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_neigh, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_neigh, setup6, teardown),
		cmocka_unit_test_setup_teardown(test_ns_bare, setup6, teardown),
		cmocka_unit_test_setup_teardown(test_decap, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_decap, setup6, teardown),
		cmocka_unit_test_setup_teardown(test_echo, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_echo, setup6, teardown),
		cmocka_unit_test_setup_teardown(test_mtu, setup4, teardown),
		cmocka_unit_test_setup_teardown(test_mtu, setup6, teardown),
		cmocka_unit_test_setup_teardown(test_gso, setup4g, teardown),
		cmocka_unit_test_setup_teardown(test_gso, setup6g, teardown),
		cmocka_unit_test_setup_teardown(test_tnl, setup4t, teardown),
		cmocka_unit_test_setup_teardown(test_tnl, setup6t, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
