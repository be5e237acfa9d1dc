/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tap_steer.h - which tun queue the kernel puts a frame on, by its MAC
 *
 * A multi-queue TAP port gives each vhost-user guest a tun queue of its
 * own per queue pair, so that frames for that guest can be read straight
 * into the RX buffers of the pair their flow belongs to.  The kernel
 * picks the queue of every frame it transmits on the TAP with an eBPF
 * program (TUNSETSTEERINGEBPF) that looks the destination MAC up in a
 * hash map and, for a guest with several pairs running, the frame's flow
 * in that guest's flow table; a miss (broadcast, multicast, unknown or
 * non-guest MACs) is queue 0.  tap_steer_sync() keeps the map
 * in step with the switch's MAC table, off the datapath.
 */
#ifndef VHOSTD_TAP_STEER_H
#define VHOSTD_TAP_STEER_H

#include <stdint.h>

#define TAP_STEER_FLOWS	256	/* flows remembered per port (PORT_FLOWS) */

/**
 * struct tap_steer_dst - where the frames for one port's MACs go: the map
 *			  value, as the program reads it
 * @base:	the port's first tun queue, >= 1; 0: not steered
 * @on:		its queue pairs that run (bit i: pair i, on queue @base + i)
 * @n_on:	bits set in @on
 * @order:	nibble k (bits 4k..4k+3): the k-th pair set in @on
 * @port:	the port's index: its row of the flow map
 * @pad:	zero
 *
 * One running pair (or none): queue @base + the first in @order.  More:
 * the frame's flow hash (flow_hash()) picks the pair its row of the flow
 * map names, if that pair runs, else the (hash >> 8) % @n_on-th in
 * @order: what port_vhost_pick() does with the same table.
 */
struct tap_steer_dst {
	uint16_t base;
	uint16_t on;
	uint32_t n_on;
	uint64_t order;
	uint32_t port;
	uint32_t pad;
};

/**
 * struct tap_steer_ent - one map entry, as the shadow copy keeps it
 * @key:	MAC in its first 6 bytes (memory order), 2 zero bytes
 * @val:	what the map says for it (@val.base >= 1)
 */
struct tap_steer_ent {
	uint64_t key;
	struct tap_steer_dst val;
};

/**
 * struct tap_steer - a TAP's steering program and map
 * @map_fd:	BPF hash map MAC -> struct tap_steer_dst, -1 when steering
 *		is off
 * @flows_fd:	BPF array map, port index -> TAP_STEER_FLOWS bytes: each
 *		flow slot's queue pair + 1, 0 unknown (the port's own table,
 *		copied by tap_steer_flows()); -1 when steering is off
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
	int flows_fd;
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
 *			port i goes where @dst[i] says (@dst[i].base 0:
 *			nowhere), for i < @nports.  Adds, moves, changes and
 *			removes entries.
 * tap_steer_flows()	copy port @port's flow table (TAP_STEER_FLOWS
 *			bytes, port_vhost's flow_pair) into the flow map.
 *			0 or -errno.
 * tap_steer_close()	detach the program from @tun_fd (unless -1: a
 *			persistent TAP outlives us) and free everything.
 * tap_steer_maps()	steering maps open now (for priv_drop()).
 */
int tap_steer_open(struct tap_steer *s);
int tap_steer_attach(struct tap_steer *s, int tun_fd);
void tap_steer_sync(struct tap_steer *s, const struct tap_steer_dst *dst,
		    unsigned int nports);
int tap_steer_flows(struct tap_steer *s, unsigned int port,
		    const uint8_t *table);
void tap_steer_close(struct tap_steer *s, int tun_fd);
unsigned int tap_steer_maps(void);

#endif /* VHOSTD_TAP_STEER_H */
