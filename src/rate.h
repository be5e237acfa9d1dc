/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rate.h - rate limits: bits per second through a port, one direction
 *
 * A generic cell rate algorithm (GCRA, the virtual-scheduling form of a
 * token bucket): one 64-bit "theoretical arrival time" per bucket, moved
 * on by each frame's cost (its bytes at the configured rate), and a
 * tolerance, the burst: traffic may run ahead of the rate by at most the
 * burst's worth of time.  Taking and charging is one compare-and-swap on
 * that word, so any number of workers share a bucket lock-free (a
 * guest's queues on several workers, every worker delivering to one
 * guest), and a long run is exact: the clock, not a refill tick, is the
 * measure, so sleeping late costs nothing but burstiness.
 *
 * Two uses (switch.c, worker.c):
 * - the frames a port takes from its peer (rx=, a guest's transmit): by
 *   back-pressure.  A source whose bucket is past its tolerance gets no
 *   turn: its chains stay in the guest's ring, unread, kicks off, until
 *   rate_wait() has passed -- the guest's TCP sees a slow link, not
 *   loss.  A turn is given at most rate_room() bytes (ports that can
 *   stop by bytes do; the last frame may overshoot, charged after).
 * - the frames delivered to a port (tx=, a guest's receive): by counted
 *   drops (rate_admit() per frame), since the sources are many and some
 *   (a TAP, the wire) cannot be held back by this port.
 *
 * A bucket is off (rate 0) unless configured; an off bucket costs the
 * datapath one load and a branch.
 */
#ifndef VHOSTD_RATE_H
#define VHOSTD_RATE_H

#include <stdbool.h>
#include <stdint.h>

#define RATE_MIN_BPS		8000ULL			/* 1 kB/s */
#define RATE_MAX_BPS		10000000000000ULL	/* 10 Tbit/s */
#define RATE_BURST_MIN		(64U * 1024)	/* one GSO frame passes */
#define RATE_BURST_MAX		(1ULL << 32)	/* 4 GiB */
#define RATE_BURST_MS		10	/* default: 10 ms at the rate */
#define RATE_FS_PER_NS		1000000ULL

/**
 * enum rate_dir - which way a limit applies, as a port's counters say it
 * @RATE_RX:	frames the port takes from its peer (a guest's transmit)
 * @RATE_TX:	frames delivered to its peer (a guest's receive)
 * @RATE_DIRS:	number of directions
 */
enum rate_dir {
	RATE_RX,
	RATE_TX,
	RATE_DIRS,
};

/**
 * struct rate - one direction's limit
 * @tat_ns:	theoretical arrival time: when the traffic admitted so far
 *		would have been sent at exactly the rate (atomic)
 * @fs_per_byte: cost of a byte, femtoseconds (8e15 / bits per second);
 *		0: off.  Atomic: vhostctl set changes it while workers run
 * @tol_ns:	tolerance: the burst's bytes at the rate, nanoseconds
 * @bps:	the rate, bits per second (for ctl)
 * @burst:	the burst, bytes (for ctl)
 */
struct rate {
	uint64_t tat_ns;
	uint64_t fs_per_byte;
	uint64_t tol_ns;
	uint64_t bps;
	uint64_t burst;
} __attribute__((aligned(64)));

/*
 * rate_set()		configure: @bps bits/s (0: off), @burst bytes (0:
 *			RATE_BURST_MS of the rate, at least RATE_BURST_MIN);
 *			the bucket starts full at @now.
 * rate_default_burst()	the burst used when none is given.
 * rate_room()		bytes that may pass now (<= 0: none).
 * rate_wait()		ns until half the burst may pass again (0: now).
 * rate_charge()	account @bytes that passed (may run into debt).
 * rate_admit()		one frame of @len bytes: admitted and charged, or
 *			refused (nothing charged).
 */
void rate_set(struct rate *r, uint64_t bps, uint64_t burst, uint64_t now);
uint64_t rate_default_burst(uint64_t bps);
int64_t rate_room(const struct rate *r, uint64_t now);
uint64_t rate_wait(const struct rate *r, uint64_t now);
void rate_charge(struct rate *r, uint64_t now, uint64_t bytes);
bool rate_admit(struct rate *r, uint64_t now, uint32_t len);

/**
 * rate_on() - whether a limit is configured
 * @r:		bucket
 * Return: true if frames are limited
 */
static inline bool rate_on(const struct rate *r)
{
	return __atomic_load_n(&r->fs_per_byte, __ATOMIC_RELAXED) != 0;
}

#endif /* VHOSTD_RATE_H */
