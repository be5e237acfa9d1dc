// SPDX-License-Identifier: GPL-2.0-or-later
/* traffic.c - vbench's frames, their checks, and the two measurement loops
 *
 * A writes a template frame into its TX slots once and patches only the
 * sequence number per send; B checks the head of every frame and the
 * whole of some.  run_tput() and run_rr() are the measured loops: what
 * they call per frame (rx_check(), pattern(), now_ns(), tx_fill()) is
 * in this file so the compiler may inline it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include "vbench.h"

/**
 * now_ns() - monotonic nanoseconds
 * Return: CLOCK_MONOTONIC in ns
 */
int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/**
 * pattern() - the byte every frame carries at offset @i
 * @i:	offset in the frame
 * Return: byte value; depends on the position only, so a slot written
 * once stays valid whatever sequence number is patched in
 */
static inline uint8_t pattern(uint32_t i)
{
	return (uint8_t)(i * 31u + 7u + (i >> 8));
}

/**
 * build_frame() - a data frame: Ethernet (+ IPv4/TCP for tso), tag, pattern
 * @buf:	output, at least @len bytes
 * @len:	frame length
 * @tso:	TCP/IPv4 frame for segmentation offload
 * @dst:	destination MAC
 * @src:	source MAC
 * @tag:	VB_TAG_*
 * Return: offset of the struct vb_tag in the frame
 */
uint32_t build_frame(uint8_t *buf, uint32_t len, bool tso,
		     const uint8_t dst[6], const uint8_t src[6],
		     uint32_t tag)
{
	struct vb_tag t = { .magic = VB_MAGIC, .len = len, .tag = tag };
	uint32_t off = tso ? VB_TSO_HLEN : 14, i;

	for (i = 0; i < len; i++)
		buf[i] = pattern(i);
	memcpy(buf, dst, 6);
	memcpy(buf + 6, src, 6);
	if (tso) {
		uint8_t *ip = buf + 14, *tcp = buf + 34;
		uint16_t tot = (uint16_t)(len - 14), v;
		uint32_t sum;

		buf[12] = 0x08;
		buf[13] = 0x00;
		memset(ip, 0, 40);
		ip[0] = 0x45;
		v = htons(tot);
		memcpy(ip + 2, &v, 2);
		ip[6] = 0x40;		/* DF */
		ip[8] = 64;
		ip[9] = 6;		/* TCP */
		ip[12] = 198; ip[13] = 18; ip[14] = 0; ip[15] = 1;
		ip[16] = 198; ip[17] = 18; ip[18] = 0; ip[19] = 2;
		sum = 0;
		for (i = 0; i < 20; i += 2)
			sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		v = htons((uint16_t)~sum);
		memcpy(ip + 10, &v, 2);
		tcp[0] = 0x13; tcp[1] = 0x89;	/* 5001 */
		tcp[2] = 0x14; tcp[3] = 0x51;	/* 5201 */
		tcp[7] = 1;			/* seq 1 */
		tcp[12] = 5 << 4;		/* data offset */
		tcp[13] = 0x18;			/* PSH, ACK */
		tcp[14] = 0xff; tcp[15] = 0xff;	/* window */
		/* NEEDS_CSUM: the field holds the pseudo-header sum, folded,
		 * not complemented; the payload is summed by whoever
		 * completes it.
		 */
		sum = 198 << 8 | 18;
		sum += 0 << 8 | 1;
		sum += 198 << 8 | 18;
		sum += 0 << 8 | 2;
		sum += 6;
		sum += (uint32_t)(tot - 20);
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		v = htons((uint16_t)sum);
		memcpy(tcp + 16, &v, 2);
	} else {
		buf[12] = 0x88;
		buf[13] = 0xb5;
	}
	memcpy(buf + off, &t, sizeof(t));
	return off;
}

/**
 * vlan_push() - give a frame an 802.1Q tag, as a guest's VLAN device does
 * @buf:	the frame, with room for 4 more bytes
 * @len:	its length
 * @vid:	VLAN (0: leave it untagged)
 * Return: its new length
 */
uint32_t vlan_push(uint8_t *buf, uint32_t len, unsigned int vid)
{
	if (!vid)
		return len;
	memmove(buf + 16, buf + 12, len - 12);
	buf[12] = 0x81;
	buf[13] = 0x00;
	buf[14] = (uint8_t)(vid >> 8 & 0x0f);
	buf[15] = (uint8_t)vid;
	return len + 4;
}

/**
 * vlan_pop() - check a frame's 802.1Q tag and take it off
 * @buf:	the frame (or its first @have bytes)
 * @len:	its length, less 4 on success
 * @have:	bytes of it in @buf
 * @vid:	the VLAN it must carry (0: it must carry none: nothing done)
 * Return: true if it carried @vid's tag (or @vid is 0)
 */
bool vlan_pop(uint8_t *buf, uint32_t *len, uint32_t have, unsigned int vid)
{
	if (!vid)
		return true;
	if (have < 18 || *len < 18 || buf[12] != 0x81 || buf[13] != 0x00 ||
	    ((unsigned int)(buf[14] & 0x0f) << 8 | buf[15]) != vid)
		return false;
	memmove(buf + 12, buf + 16, MIN(have, *len) - 16);
	*len -= 4;
	return true;
}

/**
 * tx_fill() - vdrv fill callback: patch the sequence number in place
 * @ctx:	struct vb_tx
 * @hdr:	virtio-net header (prefilled, left alone)
 * @frame:	frame (prefilled)
 * @room:	slot size
 * Return: frame length
 */
static uint32_t tx_fill(void *ctx, uint8_t *hdr, uint8_t *frame,
			uint32_t room)
{
	struct vb_tx *t = ctx;

	memcpy(frame + t->off + 4, &t->seq, 4);
	t->seq++;
	return t->len;
}

/**
 * tcp4_csum_ok() - does a whole TCP/IPv4 frame carry a correct checksum
 * @f:		frame (Ethernet, IPv4 without options, TCP)
 * @len:	its length
 * Return: true if pseudo-header + segment sum to 0xffff
 */
static bool tcp4_csum_ok(const uint8_t *f, uint32_t len)
{
	uint32_t seg = len - 34, sum = 0, i;

	for (i = 26; i < 34; i += 2)	/* source and destination address */
		sum += (uint32_t)(f[i] << 8 | f[i + 1]);
	sum += 6 + seg;
	for (i = 34; i + 1 < len; i += 2)
		sum += (uint32_t)(f[i] << 8 | f[i + 1]);
	if (i < len)
		sum += (uint32_t)f[i] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

/**
 * rx_check() - verify one received frame and count it
 * @v:		verification state
 * @p:		frame as vdrv returned it (buf holds a prefix or all of it)
 * @full:	@p->buf holds the whole frame: check every byte
 * @seq:	out: the frame's sequence number (data frames)
 * Return: true for a good data frame, false for a bad or foreign one
 */
static bool rx_check(struct vb_rx *v, const struct vdrv_rx_pkt *in, bool full,
		     uint32_t *seq)
{
	struct vdrv_rx_pkt q = *in;
	const struct vdrv_rx_pkt *p = &q;
	struct vb_tag t;
	uint32_t i;

	/* A tag of the wrong VLAN, or none, is somebody else's frame. */
	if (v->vlan && !vlan_pop(q.buf, &q.len, full ? q.len : MIN(q.len, q.cap),
				 v->vlan)) {
		if (!v->bad)
			snprintf(v->first_bad, sizeof(v->first_bad),
				 "len %u: not tagged with VLAN %u", q.len,
				 v->vlan);
		v->bad++;
		return false;
	}

	if (p->len < v->off + sizeof(t)) {
		if (p->len == v->len)	/* ours by size, yet unreadable */
			goto bad_len;
		v->foreign++;
		return false;
	}
	memcpy(&t, p->buf + v->off, sizeof(t));
	if (t.magic != VB_MAGIC || t.tag != v->tag) {
		if (t.magic == VB_MAGIC && t.tag == VB_TAG_PRIME) {
			v->foreign++;
			return false;
		}
		if (!v->bad)
			snprintf(v->first_bad, sizeof(v->first_bad),
				 "len %u: magic %#x tag %u", p->len, t.magic,
				 t.tag);
		v->bad++;
		return false;
	}
	if (p->len != v->len || t.len != v->len)
		goto bad_len;
	if (t.seq < v->next) {
		if (!v->bad)
			snprintf(v->first_bad, sizeof(v->first_bad),
				 "seq %u after %u: duplicate or reordered",
				 t.seq, v->next - 1);
		v->bad++;
		return false;
	}
	if (full) {
		for (i = v->off + sizeof(t); i < p->len; i++) {
			if (p->buf[i] != pattern(i)) {
				if (!v->bad)
					snprintf(v->first_bad,
						 sizeof(v->first_bad),
						 "seq %u: byte %u is %#x, not %#x",
						 t.seq, i, p->buf[i],
						 pattern(i));
				v->bad++;
				return false;
			}
		}
		v->full_checked++;
		/* A TCP frame that lost NEEDS_CSUM must carry a complete
		 * checksum, or the receiving guest drops it.
		 */
		if (v->off == VB_TSO_HLEN &&
		    !(p->hdr.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) &&
		    !tcp4_csum_ok(p->buf, p->len))
			v->csum_bad++;
	}
	if (p->hdr.gso_type != VIRTIO_NET_HDR_GSO_NONE)
		v->gso++;
	if (p->hdr.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM)
		v->csum_partial++;
	if (p->hdr.flags & VIRTIO_NET_HDR_F_DATA_VALID)
		v->csum_valid++;
	v->next = t.seq + 1;
	v->frames++;
	v->bytes += p->len;
	*seq = t.seq;
	return true;

bad_len:
	if (!v->bad)
		snprintf(v->first_bad, sizeof(v->first_bad),
			 "length %u, expected %u", p->len, v->len);
	v->bad++;
	return false;
}

/**
 * report_common() - key=value pairs every RESULT line carries
 * @cfg:	point
 * @a:		guest A
 * @b:		guest B
 */
static void report_common(const struct vb_cfg *cfg, struct vdrv_dev *a,
			  struct vdrv_dev *b)
{
	printf("RESULT mode=%s label=%s size=%s%u feat_a=%#llx feat_b=%#llx",
	       cfg->mode, cfg->label, cfg->tso ? "tso" : "", cfg->size,
	       (unsigned long long)vdrv_features(a),
	       (unsigned long long)vdrv_features(b));
}

/**
 * run_tput() - one-way throughput A -> B
 * @cfg:	point
 * @a:		guest A (prefilled)
 * @b:		guest B
 * @txa:	A's patch state
 * @big:	VB_BIG bytes for whole-frame checks
 * Return: 0, or 1 if the point failed
 */
int run_tput(const struct vb_cfg *cfg, struct vdrv_dev *a,
	     struct vdrv_dev *b, struct vb_tx *txa, uint8_t *big)
{
	static uint8_t prefix[VB_RX_BURST][VB_PREFIX];
	struct vdrv_rx_pkt pk[VB_RX_BURST];
	struct vb_rx v = { .off = txa->loff, .len = cfg->size,
			   .tag = VB_TAG_DATA, .vlan = cfg->vlan_b };
	int64_t t0 = now_ns(), ws = t0 + (int64_t)cfg->warmup_ms * 1000000;
	int64_t we = ws + (int64_t)(cfg->seconds * 1e9), t, last_rx, ws_real = 0,
		we_real = 0;
	uint64_t win_frames = 0, win_bytes = 0, f0 = 0, b0 = 0, bursts = 0;
	uint64_t tx_calls = 0, tx_short = 0, rx_calls = 0, rx_empty = 0;
	struct vb_cpu c0 = { 0 }, c1 = { 0 };
	double cpu_fwd = 0, cpu_all = 0, win, hz = cpu_hz(), fwait = 0, bwait = 0,
	       fwd_wait = 0;
	bool in_win = false, sending = true, full;
	const struct vdrv_stats *sa, *sb;
	int fwd_tid = 0, n, i, rc = 0;
	uint32_t seq;

	last_rx = t0;
	for (;;) {
		t = now_ns();
		if (!in_win && sending && t >= ws) {
			in_win = true;
			ws_real = t;
			/* A stalled warm-up must not eat the window. */
			we = t + (int64_t)(cfg->seconds * 1e9);
			f0 = v.frames;
			b0 = v.bytes;
			if (cfg->fwd_pid)
				cpu_read(cfg->fwd_pid, &c0);
		}
		if (in_win && t >= we) {
			in_win = false;
			sending = false;
			we_real = t;
			win_frames = v.frames - f0;
			win_bytes = v.bytes - b0;
			if (cfg->fwd_pid)
				cpu_read(cfg->fwd_pid, &c1);
		}
		if (sending) {
			n = vdrv_tx_burst_inplace(a, cfg->burst, tx_fill, txa);
			if (n < 0) {
				fprintf(stderr, "vbench: A: tx: %s\n",
					strerror(-n));
				return 1;
			}
			/* A's ring full: the forwarder is the bottleneck. */
			if (in_win) {
				tx_calls++;
				tx_short += (unsigned int)n < cfg->burst;
			}
		} else if (v.frames >= txa->seq ||
			   t - last_rx > 300000000) {
			break;	/* all in, or nothing for 300 ms */
		}
		/* The first frame of every 16th burst is copied and checked
		 * whole; of the others only the head (tag, seq, length).
		 */
		full = (bursts & 15) == 0;
		for (i = 0; i < (int)VB_RX_BURST; i++) {
			pk[i].buf = full && !i ? big : prefix[i];
			pk[i].cap = full && !i ? VB_BIG : VB_PREFIX;
		}
		n = vdrv_rx_burst(b, pk, VB_RX_BURST);
		if (n < 0) {
			fprintf(stderr, "vbench: B: rx: %s\n", strerror(-n));
			return 1;
		}
		if (n > 0) {
			last_rx = t;
			bursts++;
		}
		if (in_win) {
			rx_calls++;
			rx_empty += n == 0;
		}
		for (i = 0; i < n; i++)
			rx_check(&v, &pk[i], full && !i && !pk[i].truncated,
				 &seq);
	}

	win = (double)(we_real - ws_real) / 1e9;
	if (cfg->fwd_pid && c0.n && c1.n) {
		cpu_all = cpu_delta(&c0, &c1, &cpu_fwd, &fwd_tid, &fwd_wait);
		fwait = wait_pct(&c0, &c1, fwd_wait, win, &bwait);
	}
	sa = vdrv_stats(a);
	sb = vdrv_stats(b);
	report_common(cfg, a, b);
	printf(" sent=%u rx=%llu drops=%lld bad=%llu foreign=%llu full_checked=%llu"
	       " gso=%llu csum_partial=%llu csum_valid=%llu csum_bad=%llu"
	       " a_full_pct=%.1f b_empty_pct=%.1f"
	       " win_s=%.3f win_rx=%llu mpps=%.4f gbps=%.3f"
	       " cpu_fwd_s=%.2f cpu_all_s=%.2f fwd_tid=%d cpu_hz=%.0f cyc_pkt=%.0f"
	       " fwd_wait_pct=%.1f bench_wait_pct=%.1f kicks_a=%llu dev_err=%llu\n",
	       txa->seq, (unsigned long long)v.frames,
	       (long long)txa->seq - (long long)v.frames,
	       (unsigned long long)v.bad, (unsigned long long)v.foreign,
	       (unsigned long long)v.full_checked,
	       (unsigned long long)v.gso, (unsigned long long)v.csum_partial,
	       (unsigned long long)v.csum_valid,
	       (unsigned long long)v.csum_bad,
	       tx_calls ? 100.0 * (double)tx_short / (double)tx_calls : 0,
	       rx_calls ? 100.0 * (double)rx_empty / (double)rx_calls : 0, win,
	       (unsigned long long)win_frames,
	       win > 0 ? (double)win_frames / win / 1e6 : 0,
	       win > 0 ? (double)win_bytes * 8 / win / 1e9 : 0,
	       cpu_fwd, cpu_all, fwd_tid, hz,
	       win_frames ? cpu_fwd * hz / (double)win_frames : 0, fwait, bwait,
	       (unsigned long long)sa->kicks,
	       (unsigned long long)(sa->dev_errors + sb->dev_errors));
	if (!win_frames || !v.frames) {
		fprintf(stderr, "vbench: %s size %u: B received %llu of %u frames -- nothing delivered\n",
			cfg->label, cfg->size, (unsigned long long)v.frames,
			txa->seq);
		rc = 1;
	}
	if (v.bad) {
		fprintf(stderr, "vbench: %s: %llu bad frames, first: %s\n",
			cfg->label, (unsigned long long)v.bad, v.first_bad);
		rc = 1;
	}
	if (!v.full_checked && v.frames) {
		fprintf(stderr, "vbench: %s: no frame was checked whole\n",
			cfg->label);
		rc = 1;
	}
	if (sa->dev_errors + sb->dev_errors) {
		fprintf(stderr, "vbench: %s: the back end broke virtio rules (%llu)\n",
			cfg->label,
			(unsigned long long)(sa->dev_errors + sb->dev_errors));
		rc = 1;
	}
	return rc;
}

/**
 * cmp_u32() - qsort comparator
 * @x:	a uint32_t
 * @y:	another
 * Return: <0, 0, >0
 */
static int cmp_u32(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	return a < b ? -1 : a > b;
}

/**
 * poll_one() - busy-poll @d for the data frame with sequence @want
 * @d:		device
 * @v:		verification state (its tag says which frames count)
 * @want:	sequence number
 * @big:	buffer for the whole frame
 * @cap:	its size
 * Return: 1 got it, 0 timeout (1 s), -errno
 */
static int poll_one(struct vdrv_dev *d, struct vb_rx *v, uint32_t want,
		    uint8_t *big, uint32_t cap)
{
	struct vdrv_rx_pkt p;
	unsigned int spins = 0;
	int64_t end = 0;
	uint32_t seq;
	int n;

	for (;;) {
		p.buf = big;
		p.cap = cap;
		n = vdrv_rx_burst(d, &p, 1);
		if (n < 0)
			return n;
		if (n == 1) {
			if (rx_check(v, &p, true, &seq) && seq == want)
				return 1;
			continue;	/* stale, foreign or bad: counted */
		}
		if ((++spins & 1023) == 0) {
			if (!end)
				end = now_ns() + 1000000000;
			else if (now_ns() > end)
				return 0;
		}
	}
}

/**
 * run_rr() - ping-pong A -> B -> A, one frame in flight
 * @cfg:	point
 * @a:		guest A (prefilled with A->B frames)
 * @b:		guest B (prefilled with B->A replies)
 * @txa:	A's patch state
 * @txb:	B's patch state
 * @big:	VB_BIG bytes
 * Return: 0, or 1 if the point failed
 */
int run_rr(const struct vb_cfg *cfg, struct vdrv_dev *a,
	   struct vdrv_dev *b, struct vb_tx *txa, struct vb_tx *txb,
	   uint8_t *big)
{
	struct vb_rx va = { .off = txb->loff, .len = cfg->size,
			    .tag = VB_TAG_REPLY, .vlan = cfg->vlan_a };
	struct vb_rx vb = { .off = txa->loff, .len = cfg->size,
			    .tag = VB_TAG_DATA, .vlan = cfg->vlan_b };
	int64_t t0 = now_ns(), ws = t0 + (int64_t)cfg->warmup_ms * 1000000;
	int64_t we = ws + (int64_t)(cfg->seconds * 1e9), t1, tr, ws_real = 0;
	double cpu_fwd = 0, cpu_all = 0, win, hz = cpu_hz(), fwait = 0, bwait = 0,
	       fwd_wait = 0;
	uint64_t lost = 0, nrtt = 0;
	struct vb_cpu c0 = { 0 }, c1 = { 0 };
	const struct vdrv_stats *sa, *sb;
	int fwd_tid = 0, ret, rc = 0;
	uint32_t *rtt;

	rtt = malloc(VB_MAX_RTT * sizeof(*rtt));
	if (!rtt)
		return 1;
	for (;;) {
		uint32_t seq = txa->seq;

		tr = now_ns();
		if (!ws_real && tr >= ws) {
			ws_real = tr;
			we = tr + (int64_t)(cfg->seconds * 1e9);
			nrtt = 0;
			if (cfg->fwd_pid)
				cpu_read(cfg->fwd_pid, &c0);
		}
		if (ws_real && tr >= we)
			break;
		ret = vdrv_tx_burst_inplace(a, 1, tx_fill, txa);
		if (ret == 1)
			ret = poll_one(b, &vb, seq, big, VB_BIG);
		if (ret == 1) {
			txb->seq = seq;	/* the reply carries the request's seq */
			ret = vdrv_tx_burst_inplace(b, 1, tx_fill, txb);
		}
		if (ret == 1)
			ret = poll_one(a, &va, seq, big, VB_BIG);
		if (ret < 0) {
			fprintf(stderr, "vbench: rr: %s\n", strerror(-ret));
			free(rtt);
			return 1;
		}
		if (ret == 0) {
			lost++;
			continue;
		}
		t1 = now_ns();
		if (ws_real && nrtt < VB_MAX_RTT)
			rtt[nrtt++] = (uint32_t)(t1 - tr);
	}
	win = (double)(tr - ws_real) / 1e9;
	if (cfg->fwd_pid) {
		cpu_read(cfg->fwd_pid, &c1);
		if (c0.n && c1.n) {
			cpu_all = cpu_delta(&c0, &c1, &cpu_fwd, &fwd_tid,
					    &fwd_wait);
			fwait = wait_pct(&c0, &c1, fwd_wait, win, &bwait);
		}
	}
	qsort(rtt, nrtt, sizeof(*rtt), cmp_u32);
	sa = vdrv_stats(a);
	sb = vdrv_stats(b);
	report_common(cfg, a, b);
	printf(" rtts=%llu lost=%llu bad=%llu rtt_per_s=%.0f min_us=%.2f p50_us=%.2f"
	       " p99_us=%.2f max_us=%.2f win_s=%.3f cpu_fwd_s=%.2f cpu_all_s=%.2f"
	       " fwd_tid=%d cpu_hz=%.0f cyc_pkt=%.0f fwd_wait_pct=%.1f bench_wait_pct=%.1f"
	       " kicks_a=%llu kicks_b=%llu"
	       " dev_err=%llu\n",
	       (unsigned long long)nrtt, (unsigned long long)lost,
	       (unsigned long long)(va.bad + vb.bad),
	       win > 0 ? (double)nrtt / win : 0,
	       nrtt ? rtt[0] / 1e3 : 0, nrtt ? rtt[nrtt / 2] / 1e3 : 0,
	       nrtt ? rtt[nrtt * 99 / 100] / 1e3 : 0,
	       nrtt ? rtt[nrtt - 1] / 1e3 : 0, win, cpu_fwd, cpu_all, fwd_tid,
	       hz, nrtt ? cpu_fwd * hz / (2.0 * (double)nrtt) : 0, fwait, bwait,
	       (unsigned long long)sa->kicks, (unsigned long long)sb->kicks,
	       (unsigned long long)(sa->dev_errors + sb->dev_errors));
	free(rtt);
	if (!nrtt) {
		fprintf(stderr, "vbench: %s rr size %u: no round trip completed\n",
			cfg->label, cfg->size);
		rc = 1;
	}
	if (va.bad + vb.bad) {
		fprintf(stderr, "vbench: %s rr: bad frames: %s%s\n", cfg->label,
			vb.first_bad, va.first_bad);
		rc = 1;
	}
	if (sa->dev_errors + sb->dev_errors)
		rc = 1;
	return rc;
}
