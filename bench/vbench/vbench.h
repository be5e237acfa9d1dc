/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vbench.h - what the parts of vbench share
 *
 * vbench.c (command line, main) and the files next to this header are
 * one program, split by concern:
 *
 *   traffic.c	frames, their checks, the tput and rr loops: the per-frame
 *		path stays in one file, so it inlines as it did unsplit
 *   guest.c	the two guests: open, prefill, prime the path
 *   cpu.c	the forwarder's CPU time and run-queue waits, from /proc
 */
#ifndef VBENCH_H
#define VBENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/virtio_net.h>

#include "../../vdrv/vdrv.h"

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

#ifndef MIN
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#endif
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
 * @packed:	both guests ask for (and require) packed rings
 * @vlan_a:	A's frames carry an 802.1Q tag of this VLAN (0: none), as a
 *		guest behind a trunk port sends and expects them
 * @vlan_b:	the same for B
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
	bool packed;
	unsigned int vlan_a;
	unsigned int vlan_b;
};

/**
 * struct vb_tx - what A's (or B's) fill callback patches in
 * @off:	offset of struct vb_tag in the frame
 * @loff:	the same in the frame without its VLAN tag (what the other
 *		side checks, once it took its own tag off)
 * @len:	frame length
 * @seq:	next sequence number
 * @tag:	VB_TAG_* written into each frame
 */
struct vb_tx {
	uint32_t off;
	uint32_t loff;
	uint32_t len;
	uint32_t seq;
	uint32_t tag;
};

/**
 * struct vb_rx - B's verification state and counters
 * @off:	offset of struct vb_tag
 * @len:	expected frame length
 * @tag:	expected tag
 * @vlan:	frames must arrive with an 802.1Q tag of this VLAN, which
 *		is checked and taken off first (0: untagged)
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
	unsigned int vlan;
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

/* vbench.c: the guests' MACs */
extern const uint8_t mac_a[6], mac_b[6];

/* traffic.c */
int64_t now_ns(void);
uint32_t build_frame(uint8_t *buf, uint32_t len, bool tso,
		     const uint8_t dst[6], const uint8_t src[6], uint32_t tag);
int run_tput(const struct vb_cfg *cfg, struct vdrv_dev *a,
	     struct vdrv_dev *b, struct vb_tx *txa, uint8_t *big);
int run_rr(const struct vb_cfg *cfg, struct vdrv_dev *a,
	   struct vdrv_dev *b, struct vb_tx *txa, struct vb_tx *txb,
	   uint8_t *big);

/* guest.c */
int open_guest(const struct vb_cfg *cfg, const char *path, bool rx_side,
	       struct vdrv_dev **dp);
int prefill(struct vdrv_dev *d, const struct vb_cfg *cfg, unsigned int vid,
	    const uint8_t dst[6], const uint8_t src[6], uint32_t tag,
	    struct vb_tx *tx, uint8_t *scratch);
int prime(struct vdrv_dev *a, struct vdrv_dev *b, const struct vb_cfg *cfg);
uint32_t vlan_push(uint8_t *buf, uint32_t len, unsigned int vid);
bool vlan_pop(uint8_t *buf, uint32_t *len, uint32_t have, unsigned int vid);

/* cpu.c */
int cpu_read(int pid, struct vb_cpu *c);
double cpu_delta(const struct vb_cpu *a, const struct vb_cpu *b,
		 double *busiest, int *tid, double *wait);
double wait_pct(const struct vb_cpu *a, const struct vb_cpu *b,
		double fwd_wait, double win, double *bench);
double cpu_hz(void);

#endif /* VBENCH_H */
