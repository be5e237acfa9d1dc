// SPDX-License-Identifier: GPL-2.0-or-later
/* vbench.c - traffic source and sink for the vhostd vs DPDK benchmark
 *
 * One process plays two guests on one thread: A only sends, B only
 * receives (and, for request/response, answers).  Whatever forwards
 * between the two vhost-user sockets -- vhostd or DPDK testpmd -- sees the
 * same guests, the same features and the same traffic.
 *
 *   vbench tput --a SOCK --b SOCK --size N|tso [options]
 *   vbench rr   --a SOCK --b SOCK --size N [options]
 *
 * Every number comes from frames B counted and checked: each data frame
 * carries a magic, a sequence number, its own length and a position
 * pattern; every frame's header part is checked, every 16th burst's first
 * frame is checked whole.  Frames are written into A's TX slots once and
 * only the sequence number is patched per send (vdrv_tx_burst_inplace()),
 * as a real guest's driver points descriptors at data instead of copying.
 *
 * "tso" sends 64 KiB TCP/IPv4 frames with a virtio-net header asking for
 * segmentation (gso_size 1448) and checksum completion; B negotiates
 * GUEST_TSO4 and GUEST_CSUM so the frame may cross whole.
 *
 * CPU cost: with --fwd-pid, the forwarder's threads' utime+stime are read
 * from /proc at the start and end of the measured window; the busiest
 * thread is the forwarding thread.
 *
 * Output: one "RESULT key=value ..." line.  Exit 0 ok, 1 when the point
 * failed (nothing delivered, corrupt frames, device errors), 2 usage,
 * 3 not applicable (a feature the point needs was not offered).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/virtio_net.h>

#include "../vdrv/vdrv.h"

#define VB_MAGIC	0x5642454eu	/* "VBEN" */
#define VB_TAG_DATA	1u
#define VB_TAG_PRIME	2u
#define VB_TAG_REPLY	3u
#define VB_TSO_MSS	1448u
#define VB_TSO_SEGS	45u
#define VB_TSO_HLEN	54u		/* Ethernet + IPv4 + TCP */
#define VB_TSO_LEN	(VB_TSO_HLEN + VB_TSO_MSS * VB_TSO_SEGS)
#define VB_BIG		(VB_TSO_LEN + 64)
#define VB_PREFIX	128u
#define VB_RX_BURST	64u
#define VB_MAX_TIDS	128
#define VB_MAX_RTT	(16u << 20)

/**
 * struct vb_tag - the bench header inside every data frame's payload
 * @magic:	VB_MAGIC
 * @seq:	sequence number (patched per send)
 * @len:	frame length
 * @tag:	VB_TAG_*
 */
struct vb_tag {
	uint32_t magic;
	uint32_t seq;
	uint32_t len;
	uint32_t tag;
};

/**
 * struct vb_cfg - one measurement point
 * @mode:	"tput" or "rr"
 * @a_path:	socket of the sending guest A
 * @b_path:	socket of the receiving guest B
 * @size:	frame length (tso: VB_TSO_LEN)
 * @tso:	send 64 KiB GSO frames
 * @seconds:	measured window
 * @warmup_ms:	traffic before the window
 * @fwd_pid:	forwarder to sample CPU time of (0: none)
 * @queue:	ring size of both guests
 * @burst:	TX burst size
 * @label:	free text echoed in the RESULT line
 */
struct vb_cfg {
	const char *mode;
	const char *a_path;
	const char *b_path;
	uint32_t size;
	bool tso;
	double seconds;
	int warmup_ms;
	int fwd_pid;
	unsigned int queue;
	unsigned int burst;
	const char *label;
};

/**
 * struct vb_tx - what A's (or B's) fill callback patches in
 * @off:	offset of struct vb_tag in the frame
 * @len:	frame length
 * @seq:	next sequence number
 * @tag:	VB_TAG_* written into each frame
 */
struct vb_tx {
	uint32_t off;
	uint32_t len;
	uint32_t seq;
	uint32_t tag;
};

/**
 * struct vb_rx - B's verification state and counters
 * @off:	offset of struct vb_tag
 * @len:	expected frame length
 * @tag:	expected tag
 * @next:	lowest sequence number still expected
 * @frames:	verified data frames
 * @bytes:	their bytes
 * @full_checked: frames whose every byte was checked
 * @bad:	frames that failed a check (length, magic, pattern, order)
 * @foreign:	frames that are not ours (priming, strays)
 * @gso:	frames that arrived with a GSO type in their header
 * @csum_partial: frames that arrived with NEEDS_CSUM
 * @csum_valid:	frames that arrived with DATA_VALID
 * @csum_bad:	whole-checked TCP frames without NEEDS_CSUM whose TCP
 *		checksum is wrong (a guest would drop them)
 * @first_bad:	description of the first bad frame
 */
struct vb_rx {
	uint32_t off;
	uint32_t len;
	uint32_t tag;
	uint32_t next;
	uint64_t frames;
	uint64_t bytes;
	uint64_t full_checked;
	uint64_t bad;
	uint64_t foreign;
	uint64_t gso;
	uint64_t csum_partial;
	uint64_t csum_valid;
	uint64_t csum_bad;
	char first_bad[160];
};

/**
 * struct vb_cpu - CPU time of the forwarder's threads, and run-queue waits
 * @n:		forwarder threads seen
 * @tid:	their ids
 * @ticks:	utime + stime of each, in clock ticks
 * @wait_ns:	of each: time runnable but not running (schedstat)
 * @self_wait_ns: the same for this (the bench) thread
 */
struct vb_cpu {
	int n;
	int tid[VB_MAX_TIDS];
	uint64_t ticks[VB_MAX_TIDS];
	uint64_t wait_ns[VB_MAX_TIDS];
	uint64_t self_wait_ns;
};

static const uint8_t mac_a[6] = { 0x02, 0x76, 0x62, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0x76, 0x62, 0, 0, 0x0b };

/**
 * now_ns() - monotonic nanoseconds
 * Return: CLOCK_MONOTONIC in ns
 */
static int64_t now_ns(void)
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
static uint32_t build_frame(uint8_t *buf, uint32_t len, bool tso,
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
static bool rx_check(struct vb_rx *v, const struct vdrv_rx_pkt *p, bool full,
		     uint32_t *seq)
{
	struct vb_tag t;
	uint32_t i;

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
 * sched_wait() - nanoseconds a thread spent runnable but not running
 * @path:	its /proc/.../schedstat
 * Return: wait time, 0 if unknown
 *
 * Other jobs (teammates' builds, fuzzers, VMs) may share these CPUs; a
 * forwarder or bench thread that waits for a CPU measures that, not
 * itself.  The wait share is reported with every point.
 */
static uint64_t sched_wait(const char *path)
{
	unsigned long long run, wait = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &run, &wait) != 2)
		wait = 0;
	fclose(f);
	return wait;
}

/**
 * cpu_read() - utime+stime of every thread of @pid
 * @pid:	process
 * @c:		out
 * Return: 0 or -errno
 */
static int cpu_read(int pid, struct vb_cpu *c)
{
	char path[64], line[512];
	struct dirent *de;
	DIR *dir;

	c->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && c->n < VB_MAX_TIDS) {
		unsigned long long ut, st;
		char *s;
		FILE *f;
		int tid = atoi(de->d_name);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid,
			 tid);
		f = fopen(path, "r");
		if (!f)
			continue;
		s = fgets(line, sizeof(line), f);
		fclose(f);
		/* The name may hold spaces and ')': fields follow the last
		 * ')'; utime and stime are the 12th and 13th after it.
		 */
		s = s ? strrchr(line, ')') : NULL;
		if (!s || sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				 &ut, &st) != 2)
			continue;
		c->tid[c->n] = tid;
		c->ticks[c->n] = ut + st;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid,
			 tid);
		c->wait_ns[c->n] = sched_wait(path);
		c->n++;
	}
	closedir(dir);
	c->self_wait_ns = sched_wait("/proc/thread-self/schedstat");
	return c->n ? 0 : -ESRCH;
}

/**
 * cpu_delta() - CPU seconds between two samples
 * @a:		earlier sample
 * @b:		later sample
 * @busiest:	out: CPU seconds of the forwarding thread (the one that ran
 *		or waited to run the longest)
 * @tid:	out: its id
 * @wait:	out: seconds it waited for a CPU
 * Return: seconds of all threads together
 */
static double cpu_delta(const struct vb_cpu *a, const struct vb_cpu *b,
			double *busiest, int *tid, double *wait)
{
	double hz = (double)sysconf(_SC_CLK_TCK), total = 0, best = 0, w;
	int i, j;

	*busiest = 0;
	*tid = 0;
	*wait = 0;
	for (i = 0; i < b->n; i++) {
		uint64_t before = 0, wbefore = 0;
		double s;

		for (j = 0; j < a->n; j++)
			if (a->tid[j] == b->tid[i]) {
				before = a->ticks[j];
				wbefore = a->wait_ns[j];
			}
		s = (double)(b->ticks[i] - before) / hz;
		w = (double)(b->wait_ns[i] - wbefore) / 1e9;
		total += s;
		/* The forwarding thread wants the CPU all the time: running
		 * or, when others take it, waiting for it.
		 */
		if (s + w > best) {
			best = s + w;
			*busiest = s;
			*tid = b->tid[i];
			*wait = w;
		}
	}
	return total;
}

/**
 * wait_pct() - run-queue wait of the forwarder and the bench, in percent
 * @a:		earlier sample
 * @b:		later sample
 * @fwd_wait:	forwarder thread's wait, seconds (from cpu_delta())
 * @win:	seconds between the samples
 * @bench:	out: the bench thread's wait share, percent
 * Return: the forwarder thread's wait share, percent
 */
static double wait_pct(const struct vb_cpu *a, const struct vb_cpu *b,
		       double fwd_wait, double win, double *bench)
{
	if (win <= 0) {
		*bench = 0;
		return 0;
	}
	*bench = 100.0 * (double)(b->self_wait_ns - a->self_wait_ns) / 1e9 /
		 win;
	return 100.0 * fwd_wait / win;
}

/**
 * cpu_hz() - nominal core clock from /proc/cpuinfo
 * Return: Hz, 0 if unknown
 */
static double cpu_hz(void)
{
	char line[256];
	double mhz = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
			break;
	fclose(f);
	return mhz * 1e6;
}

/**
 * open_guest() - open one guest with the point's features and buffers
 * @cfg:	point
 * @path:	socket
 * @rx_side:	B (wants GUEST_* offloads) rather than A (HOST_*)
 * @dp:		out: device
 * Return: 0, 3 (not applicable: offload not offered), or 1 on errors
 */
static int open_guest(const struct vb_cfg *cfg, const char *path,
		      bool rx_side, struct vdrv_dev **dp)
{
	uint64_t off = rx_side ?
		(1ULL << VIRTIO_NET_F_GUEST_CSUM | 1ULL << VIRTIO_NET_F_GUEST_TSO4) :
		(1ULL << VIRTIO_NET_F_CSUM | 1ULL << VIRTIO_NET_F_HOST_TSO4);
	struct vdrv_opts o;
	int ret;

	vdrv_opts_init(&o, path);
	o.queue_size = cfg->queue;
	o.rx_buf_len = cfg->size > 1514 ? 4096 : 2048;
	o.tx_buf_len = (cfg->size + 12 + 63) & ~63u;
	if (o.tx_buf_len < 2048)
		o.tx_buf_len = 2048;
	o.timeout_ms = 10000;
	if (cfg->tso)
		o.features |= off;
	ret = vdrv_open(&o, dp);
	if (ret) {
		fprintf(stderr, "vbench: open %s: %s\n", path, strerror(-ret));
		return 1;
	}
	if (cfg->tso && (vdrv_features(*dp) & off) != off) {
		fprintf(stderr, "vbench: %s: the back end does not offer %s (needed for tso)\n",
			path, rx_side ? "GUEST_CSUM+GUEST_TSO4" : "CSUM+HOST_TSO4");
		vdrv_close(*dp, NULL);
		*dp = NULL;
		return 3;
	}
	return 0;
}

/**
 * prefill() - write the template frame into every TX slot of @d
 * @d:		device
 * @cfg:	point
 * @dst:	destination MAC
 * @src:	source MAC
 * @tag:	VB_TAG_*
 * @tx:		out: patch state for tx_fill()
 * @scratch:	VB_BIG bytes
 * Return: 0 or -errno
 */
static int prefill(struct vdrv_dev *d, const struct vb_cfg *cfg,
		   const uint8_t dst[6], const uint8_t src[6], uint32_t tag,
		   struct vb_tx *tx, uint8_t *scratch)
{
	struct virtio_net_hdr_v1 h = { 0 };
	struct vdrv_tx_pkt p = { .data = scratch, .len = cfg->size };

	tx->off = build_frame(scratch, cfg->size, cfg->tso, dst, src, tag);
	tx->len = cfg->size;
	tx->seq = 0;
	tx->tag = tag;
	if (cfg->tso) {
		h.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h.gso_type = VIRTIO_NET_HDR_GSO_TCPV4;
		h.hdr_len = VB_TSO_HLEN;
		h.gso_size = VB_TSO_MSS;
		h.csum_start = 34;
		h.csum_offset = 16;
		p.hdr = &h;
	}
	/* Priming frames may still be in flight: wait for them (1 s). */
	for (int i = 0; i < 1000; i++) {
		int ret = vdrv_tx_reclaim(d);

		if (ret < 0)
			return ret;
		ret = vdrv_tx_prefill(d, &p);
		if (ret != -EBUSY)
			return ret;
		usleep(1000);
	}
	return -EBUSY;
}

/**
 * send_prime() - one small frame from @d to @dst so a switch learns @src
 * @d:		device
 * @dst:	destination MAC
 * @src:	source MAC
 * Return: 0 or -errno
 */
static int send_prime(struct vdrv_dev *d, const uint8_t dst[6],
		      const uint8_t src[6])
{
	uint8_t f[64];

	build_frame(f, sizeof(f), false, dst, src, VB_TAG_PRIME);
	return vdrv_send(d, f, sizeof(f));
}

/**
 * wait_prime() - wait up to @ms for a priming frame on @d
 * @d:	device
 * @ms:	limit
 * Return: true if one arrived
 */
static bool wait_prime(struct vdrv_dev *d, int ms)
{
	int64_t end = now_ns() + (int64_t)ms * 1000000;
	uint8_t buf[VB_PREFIX];
	struct vdrv_rx_pkt p;
	struct vb_tag t;

	while (now_ns() < end) {
		p.buf = buf;
		p.cap = sizeof(buf);
		if (vdrv_recv(d, &p, 10) != 1)
			continue;
		memcpy(&t, buf + 14, sizeof(t));
		if (p.len >= 14 + sizeof(t) && t.magic == VB_MAGIC &&
		    t.tag == VB_TAG_PRIME)
			return true;
	}
	return false;
}

/**
 * prime() - make the path work both ways before measuring
 * @a:	guest A
 * @b:	guest B
 *
 * B speaks first (a switch learns B), then A (it learns A).  Retried for
 * up to 10 s: a back end may bring its ports up a moment after the
 * handshake (DPDK does so from its vhost event thread).
 *
 * Return: 0, or -ETIMEDOUT if the path never worked
 */
static int prime(struct vdrv_dev *a, struct vdrv_dev *b)
{
	int64_t end = now_ns() + 10 * 1000000000LL;
	bool ab = false, ba = false;
	struct vdrv_rx_pkt p;

	while (now_ns() < end && !(ab && ba)) {
		if (!ba && !send_prime(b, mac_a, mac_b))
			ba = wait_prime(a, 100);
		if (ba && !ab && !send_prime(a, mac_b, mac_a))
			ab = wait_prime(b, 100);
	}
	if (!(ab && ba))
		return -ETIMEDOUT;
	/* Late duplicates of retried primes: drain for a moment. */
	end = now_ns() + 50000000;
	while (now_ns() < end) {
		p.buf = NULL;
		vdrv_rx_burst(a, &p, 1);
		p.buf = NULL;
		vdrv_rx_burst(b, &p, 1);
	}
	return 0;
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
static int run_tput(const struct vb_cfg *cfg, struct vdrv_dev *a,
		    struct vdrv_dev *b, struct vb_tx *txa, uint8_t *big)
{
	static uint8_t prefix[VB_RX_BURST][VB_PREFIX];
	struct vdrv_rx_pkt pk[VB_RX_BURST];
	struct vb_rx v = { .off = txa->off, .len = cfg->size,
			   .tag = VB_TAG_DATA };
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
static int run_rr(const struct vb_cfg *cfg, struct vdrv_dev *a,
		  struct vdrv_dev *b, struct vb_tx *txa, struct vb_tx *txb,
		  uint8_t *big)
{
	struct vb_rx va = { .off = txb->off, .len = cfg->size,
			    .tag = VB_TAG_REPLY };
	struct vb_rx vb = { .off = txa->off, .len = cfg->size,
			    .tag = VB_TAG_DATA };
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

/**
 * usage() - print the synopsis
 */
static void usage(void)
{
	fprintf(stderr,
		"usage: vbench tput|rr --a SOCK --b SOCK --size N|tso\n"
		"              [--seconds S] [--warmup-ms MS] [--fwd-pid PID]\n"
		"              [--queue N] [--burst N] [--label TEXT]\n");
}

/**
 * parse() - command line into a point
 * @argc:	argument count
 * @argv:	arguments
 * @cfg:	out
 * Return: 0, or -EINVAL
 */
static int parse(int argc, char **argv, struct vb_cfg *cfg)
{
	static const struct option lo[] = {
		{ "a", required_argument, NULL, 'a' },
		{ "b", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "warmup-ms", required_argument, NULL, 'w' },
		{ "fwd-pid", required_argument, NULL, 'p' },
		{ "queue", required_argument, NULL, 'q' },
		{ "burst", required_argument, NULL, 'n' },
		{ "label", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	if (argc < 2)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = argv[1];
	cfg->seconds = 2;
	cfg->warmup_ms = 300;
	cfg->queue = 1024;
	cfg->burst = 32;
	cfg->label = "-";
	if (strcmp(cfg->mode, "tput") && strcmp(cfg->mode, "rr"))
		return -EINVAL;
	optind = 2;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'a': cfg->a_path = optarg; break;
		case 'b': cfg->b_path = optarg; break;
		case 's':
			if (!strcmp(optarg, "tso")) {
				cfg->tso = true;
				cfg->size = VB_TSO_LEN;
			} else {
				cfg->size = (uint32_t)strtoul(optarg, NULL, 0);
			}
			break;
		case 't': cfg->seconds = strtod(optarg, NULL); break;
		case 'w': cfg->warmup_ms = atoi(optarg); break;
		case 'p': cfg->fwd_pid = atoi(optarg); break;
		case 'q': cfg->queue = (unsigned int)atoi(optarg); break;
		case 'n': cfg->burst = (unsigned int)atoi(optarg); break;
		case 'l': cfg->label = optarg; break;
		default: return -EINVAL;
		}
	}
	if (!cfg->a_path || !cfg->b_path || cfg->seconds <= 0 ||
	    cfg->size < 14 + sizeof(struct vb_tag) || cfg->size > VB_TSO_LEN ||
	    !cfg->burst || cfg->burst > 256 || cfg->warmup_ms < 0)
		return -EINVAL;
	if (cfg->tso && strcmp(cfg->mode, "tput"))
		return -EINVAL;
	return 0;
}

/**
 * main() - open both guests, prime the path, run one point, report
 * @argc:	argument count
 * @argv:	arguments
 * Return: 0 ok, 1 failed, 2 usage, 3 not applicable
 */
int main(int argc, char **argv)
{
	struct vdrv_dev *a = NULL, *b = NULL;
	struct vb_tx txa, txb;
	struct vb_cfg cfg;
	uint8_t *big;
	int rc;

	if (parse(argc, argv, &cfg)) {
		usage();
		return 2;
	}
	big = malloc(VB_BIG);
	if (!big)
		return 1;
	rc = open_guest(&cfg, cfg.a_path, false, &a);
	if (!rc)
		rc = open_guest(&cfg, cfg.b_path, true, &b);
	if (rc)
		goto out;
	if (prime(a, b)) {
		fprintf(stderr, "vbench: %s: no frame crossed between A and B in 10 s (ports down?)\n",
			cfg.label);
		rc = 1;
		goto out;
	}
	if (prefill(a, &cfg, mac_b, mac_a, VB_TAG_DATA, &txa, big) ||
	    prefill(b, &cfg, mac_a, mac_b, VB_TAG_REPLY, &txb, big)) {
		fprintf(stderr, "vbench: prefill failed\n");
		rc = 1;
		goto out;
	}
	if (!strcmp(cfg.mode, "tput"))
		rc = run_tput(&cfg, a, b, &txa, big);
	else
		rc = run_rr(&cfg, a, b, &txa, &txb, big);
out:
	if (rc == 3) {
		printf("RESULT mode=%s label=%s size=%s%u status=na\n", cfg.mode,
		       cfg.label, cfg.tso ? "tso" : "", cfg.size);
	}
	if (a)
		vdrv_close(a, NULL);
	if (b)
		vdrv_close(b, NULL);
	free(big);
	fflush(stdout);
	return rc;
}
