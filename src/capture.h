/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.h - copies of a port's frames for vhostctl capture
 *
 * The switch hands every burst it takes from a port (RX: the port sent
 * it) and every group it gives a port (TX: the port is to send it) to
 * capture_burst(), which costs one load and a branch while no capture
 * runs on that port.  A capture session copies what its BPF filter
 * accepts into rings of its own, one per thread that forwards (stats
 * slots), and the control thread drains them (ctl_capture.c) into the
 * client's pcap or pcapng stream.  A ring that is full drops the copy
 * and counts it: a slow reader loses frames of its capture, never time
 * of the datapath.  capture_fmt.c writes the file formats.
 */
#ifndef VHOSTD_CAPTURE_H
#define VHOSTD_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <pcap/bpf.h>
#include <linux/virtio_net.h>

#include "net/pkt.h"
#include "port/port.h"
#include "stats.h"

#define CAPTURE_SESSIONS	4 		/* at once, the whole daemon */
#define CAPTURE_SNAPLEN_MAX	PKT_FRAME_MAX	/* bytes kept of a frame */
#define CAPTURE_INSNS_MAX	4096		/* a filter's instructions (the
						 * kernel's BPF_MAXINSNS) */
/* buffer=: all of a session's rings together, split between the threads
 * that forward; each ring at least CAPTURE_RING_MIN.
 */
#define CAPTURE_BUF_DEFAULT	(4U << 20)
#define CAPTURE_BUF_MAX		(256U << 20)
#define CAPTURE_RING_MIN	(128U << 10)

/* Directions, as seen from the port: frames it gave vhostd, frames vhostd
 * gave it.  A session's @dirs is a mask of these.
 */
#define CAPTURE_RX	0x1U
#define CAPTURE_TX	0x2U

/**
 * struct capture_rec - one frame in a ring, its bytes after it
 * @size:	bytes this entry takes in the ring (8-aligned); an entry
 *		with @dir 0 is padding to the ring's end, nothing else of it
 *		is written
 * @dir:	CAPTURE_RX or CAPTURE_TX; 0: padding
 * @ts_ns:	CLOCK_REALTIME when copied, nanoseconds
 * @caplen:	bytes kept (at most the session's snaplen)
 * @len:	the frame's length
 * @vnet:	its offload metadata as the switch saw it (num_buffers 0)
 */
struct capture_rec {
	uint32_t size;
	uint32_t dir;
	uint64_t ts_ns;
	uint32_t caplen;
	uint32_t len;
	struct virtio_net_hdr_v1 vnet;
};

/**
 * struct capture_counts - what a session saw, summed over its rings
 * @seen:	frames of the port in the session's directions
 * @captured:	frames the filter took and a ring had room for
 * @filtered:	frames the filter refused
 * @dropped:	frames the filter took but no ring had room for (a slow
 *		reader)
 */
struct capture_counts {
	uint64_t seen;
	uint64_t captured;
	uint64_t filtered;
	uint64_t dropped;
};

/* capture_on[port]: bit 2s: session s takes the port's RX, bit 2s + 1 its
 * TX.  Set (release) by the control thread once the session's rings are
 * ready, read (acquire) once per burst by the switch.
 */
extern uint8_t capture_on[PORT_IDX_MAX];

#define CAPTURE_ON_RX	0x55U
#define CAPTURE_ON_TX	0xaaU

void capture_copy(unsigned int port, unsigned int on,
		  struct pkt *const *pkts, unsigned int n);

/**
 * capture_burst() - the switch's hook: copy frames to the port's captures
 * @port:	port index
 * @dir:	CAPTURE_RX (the port sent them) or CAPTURE_TX (it is given
 *		them)
 * @pkts:	the frames
 * @n:		how many
 *
 * Context: any thread that forwards (a worker, or the control thread
 * for switch_inject()); the frames' buffers valid for the call.
 */
static inline void capture_burst(unsigned int port, unsigned int dir,
				 struct pkt *const *pkts, unsigned int n)
{
	unsigned int on = __atomic_load_n(&capture_on[port], __ATOMIC_ACQUIRE);

	on &= dir == CAPTURE_RX ? CAPTURE_ON_RX : CAPTURE_ON_TX;
	if (__builtin_expect(!on, 1))
		return;
	capture_copy(port, on, pkts, n);
}

/* capture_any() - is any capture running on @port (a path that checks
 * once and copies per frame)
 */
static inline bool capture_any(unsigned int port)
{
	return __atomic_load_n(&capture_on[port], __ATOMIC_ACQUIRE) != 0;
}

/*
 * Control thread:
 * capture_filter_ok()	is @prog (@len instructions) a filter we run:
 *			libpcap's bpf_validate(), and a length in range.
 * capture_open()	a session on port @port, directions @dirs, keeping
 *			@snaplen bytes, @buf bytes of rings over @nslots
 *			threads (stats slots 0 .. @nslots - 1), filter @prog
 *			(copied; @len 0: every frame).  Returns its id or
 *			-errno (-EBUSY: CAPTURE_SESSIONS running).
 * capture_stop()	no more frames into session @id.  Its rings are
 *			freed by capture_close(), once no thread can still
 *			be copying (worker_quiesce()).
 * capture_close()	free session @id (stopped, threads quiesced).
 * capture_port_gone()	stop every session on @port (port removed); they
 *			report capture_gone().
 * capture_gone()	was session @id stopped by capture_port_gone().
 * capture_next()	the oldest frame of session @id not yet taken, over
 *			all its rings, or NULL; capture_take() takes it.
 * capture_counts_get()	session @id's counters (racy sums).
 */
bool capture_filter_ok(const struct bpf_insn *prog, unsigned int len);
int capture_open(unsigned int port, unsigned int dirs, uint32_t snaplen,
		 uint32_t buf, unsigned int nslots,
		 const struct bpf_insn *prog, unsigned int len);
void capture_stop(int id);
void capture_close(int id);
void capture_port_gone(unsigned int port);
bool capture_gone(int id);
const struct capture_rec *capture_next(int id);
void capture_take(int id, const struct capture_rec *rec);
void capture_counts_get(int id, struct capture_counts *c);

/**
 * enum capture_fmt - the stream a client gets
 * @CAPTURE_PCAP:	classic pcap, nanosecond timestamps, Ethernet
 * @CAPTURE_PCAPNG:	pcapng: the port's name on its interface, each
 *			frame's direction (epb_flags) and offload metadata
 *			(a comment), drop counts at the end (an ISB)
 */
enum capture_fmt {
	CAPTURE_PCAP,
	CAPTURE_PCAPNG,
};

/*
 * capture_fmt.c, each returning bytes written to @buf (at most @cap), or
 * 0 if they do not fit:
 * capture_fmt_head()	the file's header: pcap's, or pcapng's section
 *			and interface blocks (interface @ifname).
 * capture_fmt_frame()	one frame @rec, its bytes @data.
 * capture_fmt_tail()	pcapng: statistics block with @c at @ts_ns; pcap:
 *			nothing (returns 0, which is not an error there).
 * capture_fmt_vnet()	the offload metadata as text ("" when it has
 *			none), for pcapng's comment and tests: bytes
 *			written to @s (NUL-terminated, at most @n).
 */
size_t capture_fmt_head(enum capture_fmt f, const char *ifname,
			uint32_t snaplen, uint8_t *buf, size_t cap);
size_t capture_fmt_frame(enum capture_fmt f, const struct capture_rec *rec,
			 const uint8_t *data, uint8_t *buf, size_t cap);
size_t capture_fmt_tail(enum capture_fmt f, const struct capture_counts *c,
			uint64_t ts_ns, uint8_t *buf, size_t cap);
size_t capture_fmt_vnet(const struct virtio_net_hdr_v1 *v, char *s,
			size_t n);

#endif /* VHOSTD_CAPTURE_H */
