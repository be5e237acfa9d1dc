// SPDX-License-Identifier: GPL-2.0-or-later
/* check.c - what a receiver must get, and checking that it did
 *
 * ot_decide() is doc/offloads.md's decision table; ot_check_whole() and
 * ot_check_seg() hold what arrived against the frame that was sent.
 * ot_mutate() spoils every received frame on request (OT_MUTATE), so
 * offload.sh can prove the checks are not blind.
 */
#include <stdio.h>
#include <string.h>

#include "offload_itest.h"

/* ---- the decision table, written from doc/offloads.md --------------------- */

/**
 * ot_decide() - what a receiver with @feat must get for @f
 * @f:		frame (from a source entitled to its offloads)
 * @feat:	receiver's negotiated features
 * Return: action
 */
enum ot_act ot_decide(const struct ot_frame *f, uint64_t feat)
{
	bool csum = feat & F(VIRTIO_NET_F_GUEST_CSUM);
	uint64_t need;

	if (!f->hdr.gso_type) {
		if (!f->hdr.flags)
			return OT_PLAIN;
		return csum ? OT_PASS : OT_CSUM;
	}
	/* Segments per frame are bounded, for every receiver alike: TCP's
	 * gso_size is at least 88, USO has at most 128 segments.
	 */
	if (f->s.proto == OT_PROTO_UDP ?
	    f->p.paylen > (uint32_t)f->hdr.gso_size * 128 :
	    f->hdr.gso_size < 88)
		return OT_DROP;
	if (f->s.proto == OT_PROTO_UDP)
		need = f->s.vlan ? F(VDRV_F_GUEST_USO4) | F(VDRV_F_GUEST_USO6) :
		       f->s.v6 ? F(VDRV_F_GUEST_USO6) : F(VDRV_F_GUEST_USO4);
	else
		need = f->s.v6 ? F(VIRTIO_NET_F_GUEST_TSO6) :
				 F(VIRTIO_NET_F_GUEST_TSO4);
	if (f->hdr.gso_type & VIRTIO_NET_HDR_GSO_ECN)
		need |= F(VIRTIO_NET_F_GUEST_ECN);
	if (csum && (feat & need) == need)
		return OT_PASS;
	return csum ? OT_SEG_PARTIAL : OT_SEG_FULL;
}

/* ---- checking what arrived --------------------------------------------------- */

/**
 * ot_check_whole() - a frame that must arrive as it was sent
 * @o:		original
 * @f:		received bytes
 * @len:	received length
 * @hdr:	received header
 * @act:	OT_PLAIN, OT_PASS or OT_CSUM
 * @feat:	receiver's features
 * @hdr_len_kept: the sender's hdr_len must survive (vhost to vhost)
 * Return: true if right
 */
bool ot_check_whole(const struct ot_frame *o, const uint8_t *f,
		    uint32_t len, const struct virtio_net_hdr_v1 *hdr,
		    enum ot_act act, uint64_t feat, bool hdr_len_kept)
{
	bool csum_ok = feat & F(VIRTIO_NET_F_GUEST_CSUM);
	uint32_t cf = o->p.l4 + ot_csum_off(o->p.proto);
	struct ot_parsed p;

	if (len != o->len)
		return ot_err("length %u, sent %u", len, o->len);
	if (!ot_parse(f, len, &p))
		return false;
	if (act == OT_PASS) {
		if (hdr->flags != o->hdr.flags || hdr->gso_type != o->hdr.gso_type ||
		    hdr->gso_size != o->hdr.gso_size ||
		    hdr->csum_start != o->hdr.csum_start ||
		    hdr->csum_offset != o->hdr.csum_offset)
			return ot_err("header changed: flags %u gso %u/%u csum %u/%u, sent %u %u/%u %u/%u",
				      hdr->flags, hdr->gso_type, hdr->gso_size,
				      hdr->csum_start, hdr->csum_offset,
				      o->hdr.flags, o->hdr.gso_type,
				      o->hdr.gso_size, o->hdr.csum_start,
				      o->hdr.csum_offset);
		if (hdr_len_kept && hdr->hdr_len != o->hdr.hdr_len)
			return ot_err("hdr_len %u, sent %u", hdr->hdr_len,
				      o->hdr.hdr_len);
		if (memcmp(f, o->buf, len))
			return ot_err("bytes changed");
		return ot_check_l4(f, len, &p, hdr, csum_ok);
	}
	if (hdr->flags || hdr->gso_type)
		return ot_err("flags %u gso_type %u, want 0/0", hdr->flags,
			      hdr->gso_type);
	if (act == OT_CSUM) {
		if (memcmp(f, o->buf, cf) ||
		    memcmp(f + cf + 2, o->buf + cf + 2, len - cf - 2))
			return ot_err("bytes other than the checksum changed");
	} else if (memcmp(f, o->buf, len)) {
		return ot_err("bytes changed");
	}
	return ot_check_l4(f, len, &p, hdr, csum_ok);
}

/**
 * ot_check_seg() - one software segment against the original frame
 * @o:		original
 * @f:		segment bytes
 * @len:	its length
 * @hdr:	its header
 * @k:		segment index
 * @off:	payload offset so far (in/out)
 * @partial:	NEEDS_CSUM expected
 * @feat:	receiver's features
 * Return: true if right
 */
bool ot_check_seg(const struct ot_frame *o, const uint8_t *f,
		  uint32_t len, const struct virtio_net_hdr_v1 *hdr,
		  uint32_t k, uint32_t *off, bool partial, uint64_t feat)
{
	const struct ot_parsed *op = &o->p;
	const uint8_t *ob = o->buf;
	uint32_t n, i, mss = o->hdr.gso_size;
	struct ot_parsed p;
	bool last;

	if (!ot_parse(f, len, &p))
		return false;
	if (p.l4 != op->l4 || p.pay != op->pay || p.proto != op->proto)
		return ot_err("seg %u: header layout differs", k);
	n = p.paylen;
	last = *off + n == op->paylen;
	if ((!n && op->paylen) || n > mss || (!last && n != mss))
		return ot_err("seg %u: %u payload bytes, gso_size %u", k, n, mss);
	if (*off + n > op->paylen)
		return ot_err("seg %u: payload beyond the original", k);
	if (hdr->gso_type)
		return ot_err("seg %u: gso_type %u", k, hdr->gso_type);
	if (partial != !!(hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM))
		return ot_err("seg %u: flags %u, want %s", k, hdr->flags,
			      partial ? "NEEDS_CSUM" : "0");
	if (memcmp(f, ob, op->l3))
		return ot_err("seg %u: L2 header differs", k);
	if (op->v6) {
		if (memcmp(f + p.l3, ob + op->l3, 4) ||
		    memcmp(f + p.l3 + 6, ob + op->l3 + 6, 34))
			return ot_err("seg %u: IPv6 header differs", k);
	} else {
		for (i = 0; i < op->l4 - op->l3; i++)
			if (i != 2 && i != 3 && i != 4 && i != 5 && i != 10 &&
			    i != 11 && f[p.l3 + i] != ob[op->l3 + i])
				return ot_err("seg %u: IPv4 header byte %u differs",
					      k, i);
		if (ot_get16(f + p.l3 + 4) != (uint16_t)(OT_IP_ID + k))
			return ot_err("seg %u: IPv4 id 0x%04x, want 0x%04x", k,
				      ot_get16(f + p.l3 + 4),
				      (uint16_t)(OT_IP_ID + k));
	}
	if (op->proto == OT_PROTO_TCP) {
		uint8_t want = ob[op->l4 + 13];

		if (k)
			want &= (uint8_t)~TH_CWR;
		if (!last)
			want &= (uint8_t)~(TH_FIN | TH_PSH);
		if (ot_get32(f + p.l4 + 4) != ot_get32(ob + op->l4 + 4) + *off)
			return ot_err("seg %u: seq 0x%08x, want 0x%08x", k,
				      ot_get32(f + p.l4 + 4),
				      ot_get32(ob + op->l4 + 4) + *off);
		if (f[p.l4 + 13] != want)
			return ot_err("seg %u: TCP flags 0x%02x, want 0x%02x", k,
				      f[p.l4 + 13], want);
		if (memcmp(f + p.l4, ob + op->l4, 4) ||
		    memcmp(f + p.l4 + 8, ob + op->l4 + 8, 5) ||
		    memcmp(f + p.l4 + 14, ob + op->l4 + 14, 2) ||
		    memcmp(f + p.l4 + 18, ob + op->l4 + 18, op->pay - op->l4 - 18))
			return ot_err("seg %u: TCP header/options differ", k);
	} else if (memcmp(f + p.l4, ob + op->l4, 4)) {
		return ot_err("seg %u: UDP ports differ", k);
	}
	if (memcmp(f + p.pay, ob + op->pay + *off, n))
		return ot_err("seg %u: payload differs at offset %u", k, *off);
	if (!ot_check_l4(f, len, &p, hdr, feat & F(VIRTIO_NET_F_GUEST_CSUM))) {
		char tmp[sizeof(ot_why)];

		memcpy(tmp, ot_why, sizeof(tmp));
		ot_why[0] = '\0';
		return ot_err("seg %u: %s", k, tmp);
	}
	*off += n;
	return true;
}

/* ---- checker self-test: spoil what arrived, the checks must notice ----------- */

/* OT_MUTATE's values, indexed by enum ot_mut; main() sets ot_mut. */
const char *const ot_mut_names[OT_MUT_COUNT] = {
	"none", "payload", "ipid", "seq", "fin", "cwr", "ttl", "csum",
	"csum-start",
};

enum ot_mut ot_mut;

/* Received frames ot_mutate() changed: a delivery during which this grew
 * must fail its checks (sc_matrix() counts it as caught).
 */
unsigned int ot_mut_frames;

/**
 * ot_mutate() - apply ot_mut to a received frame, then fix checksums
 * @f:		frame
 * @len:	length
 * @hdr:	its header
 *
 * Return: true if the frame was changed (the kind applies to it: a TCP
 * flag only to TCP, the IPv4 id only to IPv4, ...); counted in
 * ot_mut_frames
 */
bool ot_mutate(uint8_t *f, uint32_t len, struct virtio_net_hdr_v1 *hdr)
{
	struct ot_parsed p;
	bool ok = ot_parse(f, len, &p);
	bool fixup = true;
	uint16_t c;

	ot_why[0] = '\0';
	if (!ok || ot_mut == OT_MUT_NONE)
		return false;
	switch (ot_mut) {
	case OT_MUT_PAYLOAD:
		ok = p.paylen;
		if (ok)
			f[p.pay + p.paylen / 2] ^= 0x10;
		break;
	case OT_MUT_IPID:
		ok = !p.v6;
		if (ok)
			ot_put16(f + p.l3 + 4, (uint16_t)(ot_get16(f + p.l3 + 4) + 1));
		break;
	case OT_MUT_SEQ:
		ok = p.proto == OT_PROTO_TCP;
		if (ok)
			ot_put32(f + p.l4 + 4, ot_get32(f + p.l4 + 4) + 1);
		break;
	case OT_MUT_FIN:
		ok = p.proto == OT_PROTO_TCP && !(f[p.l4 + 13] & TH_FIN);
		if (ok)
			f[p.l4 + 13] |= TH_FIN;
		break;
	case OT_MUT_CWR:
		ok = p.proto == OT_PROTO_TCP && !(f[p.l4 + 13] & TH_CWR);
		if (ok)
			f[p.l4 + 13] |= TH_CWR;
		break;
	case OT_MUT_TTL:
		f[p.l3 + (p.v6 ? 7 : 8)]--;
		break;
	case OT_MUT_CSUM:
		f[p.l4 + ot_csum_off(p.proto) + 1] ^= 1;
		fixup = false;
		break;
	case OT_MUT_CSUM_START:
		ok = hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;
		if (ok)
			hdr->csum_start++;
		fixup = false;
		break;
	default:
		return false;
	}
	if (!ok)
		return false;
	ot_mut_frames++;
	if (!fixup)
		return true;
	if (!p.v6) {
		uint32_t ihl = p.l4 - p.l3;

		ot_put16(f + p.l3 + 10, 0);
		ot_put16(f + p.l3 + 10,
			 (uint16_t)~ot_fold(ot_sum(f + p.l3, ihl, 0)));
	}
	if (!(hdr->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)) {
		ot_put16(f + p.l4 + ot_csum_off(p.proto), 0);
		c = (uint16_t)~ot_fold(ot_pseudo(f, &p, len - p.l4) +
				      ot_sum(f + p.l4, len - p.l4, 0));
		if (p.proto == OT_PROTO_UDP && !c)
			c = 0xffff;
		ot_put16(f + p.l4 + ot_csum_off(p.proto), c);
	}
	return true;
}
