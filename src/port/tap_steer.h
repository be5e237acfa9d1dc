/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap_steer.h - which tun queue the kernel puts a frame on, by its MAC
 *
 * A multi-queue TAP port gives each vhost-user guest a tun queue of its
 * own, so that frames for that guest can be read straight into its RX
 * buffers.  The kernel picks the queue of every frame it transmits on
 * the TAP with a tiny eBPF program (TUNSETSTEERINGEBPF) that looks the
 * destination MAC up in a hash map; a miss (broadcast, multicast,
 * unknown or non-guest MACs) is queue 0.  tap_steer_sync() keeps the map
 * in step with the switch's MAC table, off the datapath.
 */
#ifndef VHOSTD_TAP_STEER_H
#define VHOSTD_TAP_STEER_H

#include <stdint.h>

/**
 * struct tap_steer_ent - one map entry, as the shadow copy keeps it
 * @key:	MAC in its first 6 bytes (memory order), 2 zero bytes
 * @queue:	tun queue index, >= 1
 */
struct tap_steer_ent {
	uint64_t key;
	uint32_t queue;
};

/**
 * struct tap_steer - a TAP's steering program and map
 * @map_fd:	BPF hash map MAC -> queue, -1 when steering is off
 * @prog_fd:	the steering program, -1 when steering is off
 * @n:		entries in @cur
 * @max:	entries the map, @cur and @next hold: the switch's
 *		MAC table size (struct port_host's mac_max)
 * @cur:	what the map holds, sorted by key (@max entries)
 * @next:	scratch for the next sync (@max entries)
 *
 * Control thread only.
 */
struct tap_steer {
	int map_fd;
	int prog_fd;
	unsigned int n;
	unsigned int max;
	struct tap_steer_ent *cur;
	struct tap_steer_ent *next;
};

/*
 * tap_steer_open()	create the map and load the program.  0 or -errno
 *			(no BPF, old kernel, no privileges, no port_host
 *			to ask for the MAC table): @s closed,
 *			@s->map_fd -1.
 * tap_steer_attach()	make the tun device behind @tun_fd use it
 *			(TUNSETSTEERINGEBPF).  0 or -errno.
 * tap_steer_sync()	make the map say: every MAC the switch learned on
 *			port i goes to queue @port_queue[i] (0: none), for
 *			i < @nports.  Adds, moves and removes entries.
 * tap_steer_close()	detach the program from @tun_fd (unless -1: a
 *			persistent TAP outlives us) and free everything.
 * tap_steer_maps()	steering maps open now (for priv_drop()).
 */
int tap_steer_open(struct tap_steer *s);
int tap_steer_attach(struct tap_steer *s, int tun_fd);
void tap_steer_sync(struct tap_steer *s, const uint16_t *port_queue,
		    unsigned int nports);
void tap_steer_close(struct tap_steer *s, int tun_fd);
unsigned int tap_steer_maps(void);

#endif /* VHOSTD_TAP_STEER_H */
