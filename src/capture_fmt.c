// SPDX-License-Identifier: GPL-2.0-or-later
/* capture_fmt.c - a capture's frames as pcap or pcapng
 *
 * Two formats, written in the host's byte order (both carry a magic
 * number that tells readers the order):
 *
 * - pcap (the tcpdump format), nanosecond timestamps (magic a1b23c4d),
 *   link type Ethernet.  Nothing but the frames.
 * - pcapng (draft-ietf-opsawg-pcapng): one section, one interface named
 *   after the port, nanosecond resolution; each frame an Enhanced Packet
 *   Block with its direction (epb_flags: inbound = the port gave it to
 *   vhostd, outbound = vhostd gave it to the port) and, when the frame
 *   carries offload metadata, a comment with it ("vnet: gso=tcpv4
 *   gso_size=1448 ..."): the virtio-net header that pcap has no field
 *   for, which is what explains a 64 KiB "frame" or a wrong checksum in
 *   the trace.  The end is an Interface Statistics Block with the
 *   session's counts (frames seen, taken by the filter, dropped for a
 *   slow reader).
 */
#include <stdio.h>
#include <string.h>

#include "capture.h"
#include "net/gso.h"
#include "util.h"

#define PCAP_MAGIC_NS		0xa1b23c4dU
#define LINKTYPE_ETHERNET	1U

#define PCAPNG_SHB		0x0a0d0d0aU
#define PCAPNG_IDB		0x00000001U
#define PCAPNG_ISB		0x00000005U
#define PCAPNG_EPB		0x00000006U
#define PCAPNG_BYTE_ORDER	0x1a2b3c4dU

#define OPT_END			0
#define OPT_COMMENT		1
#define SHB_USERAPPL		4
#define IF_NAME			2
#define IF_TSRESOL		9
#define EPB_FLAGS		2
#define ISB_IFRECV		4
#define ISB_FILTERACCEPT	6
#define ISB_OSDROP		7
#define ISB_USRDELIV		8

#define EPB_FLAG_INBOUND	0x1U
#define EPB_FLAG_OUTBOUND	0x2U

#define PAD4(x)			(((x) + 3U) & ~(size_t)3U)

/**
 * struct fmt_out - bytes being written into a caller's buffer
 * @p:		the buffer
 * @len:	bytes written
 * @cap:	its size
 * @full:	something did not fit: the whole block is abandoned
 */
struct fmt_out {
	uint8_t *p;
	size_t len;
	size_t cap;
	bool full;
};

static void fmt_put(struct fmt_out *o, const void *src, size_t n)
{
	if (!n)
		return;
	if (o->full || n > o->cap - o->len) {
		o->full = true;
		return;
	}
	memcpy(o->p + o->len, src, n);
	o->len += n;
}

static void fmt_u16(struct fmt_out *o, uint16_t v)
{
	fmt_put(o, &v, sizeof(v));
}

static void fmt_u32(struct fmt_out *o, uint32_t v)
{
	fmt_put(o, &v, sizeof(v));
}

static void fmt_u64(struct fmt_out *o, uint64_t v)
{
	fmt_put(o, &v, sizeof(v));
}

/* fmt_zero() - @n zero bytes (padding) */
static void fmt_zero(struct fmt_out *o, size_t n)
{
	static const uint8_t z[4];

	fmt_put(o, z, n);
}

/**
 * fmt_opt() - one pcapng option: code, length, value padded to 32 bits
 * @o:		output
 * @code:	option code
 * @v:		value
 * @n:		its length
 */
static void fmt_opt(struct fmt_out *o, uint16_t code, const void *v,
		    size_t n)
{
	fmt_u16(o, code);
	fmt_u16(o, (uint16_t)n);
	fmt_put(o, v, n);
	fmt_zero(o, PAD4(n) - n);
}

/**
 * fmt_block_end() - close a pcapng block begun at @start
 * @o:		output
 * @start:	offset of the block's type word
 *
 * The total length goes after the type and again at the end.
 */
static void fmt_block_end(struct fmt_out *o, size_t start)
{
	uint32_t total = (uint32_t)(o->len - start + 4);

	fmt_u32(o, total);
	if (!o->full)
		memcpy(o->p + start + 4, &total, sizeof(total));
}

/* fmt_block_begin() - type and a length word filled in by _end() */
static size_t fmt_block_begin(struct fmt_out *o, uint32_t type)
{
	size_t start = o->len;

	fmt_u32(o, type);
	fmt_u32(o, 0);
	return start;
}

/* fmt_done() - what the caller gets: all of it, or nothing */
static size_t fmt_done(const struct fmt_out *o)
{
	return o->full ? 0 : o->len;
}

/**
 * capture_fmt_head() - the file's header (capture.h)
 * @f:		format
 * @ifname:	the port's name (pcapng's interface)
 * @snaplen:	bytes kept per frame
 * @buf:	output
 * @cap:	its size
 * Return: bytes, 0 if they do not fit
 */
size_t capture_fmt_head(enum capture_fmt f, const char *ifname,
			uint32_t snaplen, uint8_t *buf, size_t cap)
{
	static const char appl[] = "vhostd";
	struct fmt_out o = { buf, 0, cap, false };
	const uint8_t tsresol = 9;	/* 10^-9 s */
	size_t b;

	if (f == CAPTURE_PCAP) {
		fmt_u32(&o, PCAP_MAGIC_NS);
		fmt_u16(&o, 2);
		fmt_u16(&o, 4);
		fmt_u32(&o, 0);		/* thiszone */
		fmt_u32(&o, 0);		/* sigfigs */
		fmt_u32(&o, snaplen);
		fmt_u32(&o, LINKTYPE_ETHERNET);
		return fmt_done(&o);
	}
	b = fmt_block_begin(&o, PCAPNG_SHB);
	fmt_u32(&o, PCAPNG_BYTE_ORDER);
	fmt_u16(&o, 1);
	fmt_u16(&o, 0);
	fmt_u64(&o, UINT64_MAX);	/* section length: not known */
	fmt_opt(&o, SHB_USERAPPL, appl, sizeof(appl) - 1);
	fmt_opt(&o, OPT_END, NULL, 0);
	fmt_block_end(&o, b);

	b = fmt_block_begin(&o, PCAPNG_IDB);
	fmt_u16(&o, LINKTYPE_ETHERNET);
	fmt_u16(&o, 0);
	fmt_u32(&o, snaplen);
	fmt_opt(&o, IF_NAME, ifname, strlen(ifname));
	fmt_opt(&o, IF_TSRESOL, &tsresol, 1);
	fmt_opt(&o, OPT_END, NULL, 0);
	fmt_block_end(&o, b);
	return fmt_done(&o);
}

/**
 * capture_fmt_vnet() - a frame's offload metadata as text
 * @v:		its virtio-net header
 * @s:		output
 * @n:		its size (at least 1)
 * Return: length of the text ("" when the frame has no metadata)
 */
size_t capture_fmt_vnet(const struct virtio_net_hdr_v1 *v, char *s,
			size_t n)
{
	static const char *const gso[] = {
		[VIRTIO_NET_HDR_GSO_TCPV4] = "tcpv4",
		[VIRTIO_NET_HDR_GSO_UDP] = "udp",
		[VIRTIO_NET_HDR_GSO_TCPV6] = "tcpv6",
		[VIRTIO_NET_HDR_GSO_UDP_L4] = "udp_l4",
	};
	unsigned int g = v->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
	size_t len = 0;
	int r;

	*s = '\0';
	if (!v->flags && v->gso_type == VIRTIO_NET_HDR_GSO_NONE)
		return 0;
	r = snprintf(s, n, "vnet:%s%s%s",
		     v->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM ? " needs_csum" : "",
		     v->flags & VIRTIO_NET_HDR_F_DATA_VALID ? " data_valid" : "",
		     v->flags & VIRTIO_NET_HDR_F_RSC_INFO ? " rsc_info" : "");
	if (r > 0)
		len = MIN((size_t)r, n - 1);
	if (v->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		r = snprintf(s + len, n - len, " csum_start=%u csum_offset=%u",
			     v->csum_start, v->csum_offset);
		if (r > 0)
			len = MIN(len + (size_t)r, n - 1);
	}
	if (v->gso_type != VIRTIO_NET_HDR_GSO_NONE) {
		char unknown[16];
		const char *name = g < ARRAY_SIZE(gso) && gso[g] ? gso[g] : NULL;

		if (!name) {
			snprintf(unknown, sizeof(unknown), "type%u", g);
			name = unknown;
		}
		r = snprintf(s + len, n - len, " gso=%s%s gso_size=%u hdr_len=%u",
			     name, v->gso_type & VIRTIO_NET_HDR_GSO_ECN ?
			     "+ecn" : "", v->gso_size, v->hdr_len);
		if (r > 0)
			len = MIN(len + (size_t)r, n - 1);
	}
	return len;
}

/**
 * capture_fmt_frame() - one frame's record or block (capture.h)
 * @f:		format
 * @rec:	the frame's entry
 * @data:	its @rec->caplen bytes
 * @buf:	output
 * @cap:	its size
 * Return: bytes, 0 if they do not fit
 */
size_t capture_fmt_frame(enum capture_fmt f, const struct capture_rec *rec,
			 const uint8_t *data, uint8_t *buf, size_t cap)
{
	struct fmt_out o = { buf, 0, cap, false };
	uint64_t ts = rec->ts_ns;
	char note[160];
	size_t b, nl;

	if (f == CAPTURE_PCAP) {
		fmt_u32(&o, (uint32_t)(ts / 1000000000ULL));
		fmt_u32(&o, (uint32_t)(ts % 1000000000ULL));
		fmt_u32(&o, rec->caplen);
		fmt_u32(&o, rec->len);
		fmt_put(&o, data, rec->caplen);
		return fmt_done(&o);
	}
	b = fmt_block_begin(&o, PCAPNG_EPB);
	fmt_u32(&o, 0);				/* interface */
	fmt_u32(&o, (uint32_t)(ts >> 32));
	fmt_u32(&o, (uint32_t)ts);
	fmt_u32(&o, rec->caplen);
	fmt_u32(&o, rec->len);
	fmt_put(&o, data, rec->caplen);
	fmt_zero(&o, PAD4(rec->caplen) - rec->caplen);
	fmt_u16(&o, EPB_FLAGS);
	fmt_u16(&o, 4);
	fmt_u32(&o, rec->dir == CAPTURE_RX ? EPB_FLAG_INBOUND :
		EPB_FLAG_OUTBOUND);
	nl = capture_fmt_vnet(&rec->vnet, note, sizeof(note));
	if (nl)
		fmt_opt(&o, OPT_COMMENT, note, nl);
	fmt_opt(&o, OPT_END, NULL, 0);
	fmt_block_end(&o, b);
	return fmt_done(&o);
}

/**
 * capture_fmt_tail() - the end of the stream (capture.h)
 * @f:		format
 * @c:		the session's counts
 * @ts_ns:	now, CLOCK_REALTIME ns
 * @buf:	output
 * @cap:	its size
 * Return: bytes (0 for pcap, or if they do not fit)
 */
size_t capture_fmt_tail(enum capture_fmt f, const struct capture_counts *c,
			uint64_t ts_ns, uint8_t *buf, size_t cap)
{
	struct fmt_out o = { buf, 0, cap, false };
	uint64_t taken = c->captured + c->dropped;
	size_t b;

	if (f == CAPTURE_PCAP)
		return 0;
	b = fmt_block_begin(&o, PCAPNG_ISB);
	fmt_u32(&o, 0);
	fmt_u32(&o, (uint32_t)(ts_ns >> 32));
	fmt_u32(&o, (uint32_t)ts_ns);
	fmt_opt(&o, ISB_IFRECV, &c->seen, sizeof(c->seen));
	fmt_opt(&o, ISB_FILTERACCEPT, &taken, sizeof(taken));
	fmt_opt(&o, ISB_OSDROP, &c->dropped, sizeof(c->dropped));
	fmt_opt(&o, ISB_USRDELIV, &c->captured, sizeof(c->captured));
	fmt_opt(&o, OPT_END, NULL, 0);
	fmt_block_end(&o, b);
	return fmt_done(&o);
}
