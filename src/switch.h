/* SPDX-License-Identifier: GPL-2.0-or-later */
/* switch.h - the L2 switch: port table, MAC learning, forwarding
 *
 * One switch per process.  Ports live in a fixed table and are referred
 * to by index across threads.  switch_forward() runs in whichever worker
 * polled the source port: it learns the source MAC, picks destinations
 * (known unicast -> one port; broadcast, multicast, unknown -> flood to
 * every other port that is up; never back to the source), groups the
 * burst by destination and calls each destination's xmit once.
 */
#ifndef VHOSTD_SWITCH_H
#define VHOSTD_SWITCH_H

#include <stdint.h>

#include "fdb.h"
#include "rate.h"
#include "port/port.h"

#define SWITCH_PORTS_MAX	64
#define SWITCH_BURST		PORT_BURST	/* frames per burst and per xmit */

_Static_assert(SWITCH_PORTS_MAX <= PORT_IDX_MAX,
	       "port indexes must fit what ports size their tables by");

/*
 * switch_init()	empty switch, FDB ageing @age_s (control, start-up).
 * switch_port_add()	allocate a slot, run ops->open(); returns index or
 *			-errno (control thread).
 * switch_port_del()	out of forwarding, quiesce, ops->close(), free the
 *			slot (control thread, workers running or not).
 * switch_set_up()	the port starts or stops taking frames; down
 *			forgets its MACs (struct port_host's set_up).
 * switch_port()	port at @idx, or NULL if the slot is free.
 * switch_port_spec()	the spec port @idx was made from, or NULL (control).
 * switch_port_count()	highest index in use + 1.
 * switch_forward()	worker: forward @n frames received on @src.
 * switch_learn()	worker: learn a frame's unicast source @mac on @src.
 * switch_inject()	control: forward one frame of @src's own making
 *			(struct port_host's inject).
 * switch_lend_rx()	worker: a reader's turn straight into another
 *			port's RX buffers (struct port_host's lend_rx).
 * switch_lenders()	control: the ports that lend RX buffers (port_host).
 * switch_reaches()	whether frames from @src may be delivered to port
 *			@dst (a bridge domain in common, not both
 *			isolated).
 * switch_dom_vid()	the VLAN of a domain index (0: none).
 * switch_vid_dom()	the domain index of a VLAN, or -ENOENT.
 * switch_dom_stats()	a domain's frames, bytes and floods (any thread).
 * switch_dom_members()	a domain's ports, as a bitmask.
 * switch_port_in()	the domain index of VLAN @vid if port @idx is in
 *			it, else -ENOENT.
 * switch_static_add()	control: a static entry, VLAN + MAC -> port
 *			(vhostctl fdb add).
 * switch_static_del()	control: remove one (not a port's mac= lock).
 * switch_lend_flows()	control: one lender's pairs and flow table
 *			(port_host).
 * switch_mac_walk()	control: every MAC and its port (port_host).
 * switch_timer()	control, once a second: age the FDB, port timers.
 * switch_fdb()		the MAC table (for ctl and tests).
 * switch_now_s()	the switch's clock, seconds: now_s() as of the last
 *			switch_init()/switch_timer(), for MAC learning.
 * switch_fini()	close every port (control, shutdown).
 * switch_rate()	a port's rx= or tx= bucket, NULL if unlimited (any
 *			thread: the worker checks a source's rx= per turn).
 * switch_port_held()	whether a port's sources wait: it sent into another
 *			port's tx= limit (worker, per turn).
 * switch_rate_get()	a port's limit (bits/s, burst) for ctl.
 * switch_rate_set()	change it (control: vhostctl set).
 */
void switch_init(uint32_t age_s);
int switch_port_add(const struct port_spec *spec);
void switch_port_del(unsigned int idx);
void switch_set_up(struct port *p, bool up);
struct port *switch_port(unsigned int idx);
struct port *switch_port_find(const char *name);
const struct port_spec *switch_port_spec(unsigned int idx);
unsigned int switch_port_count(void);
void switch_forward(struct port *src, struct pkt *const *pkts,
		    unsigned int n);
void switch_learn(struct port *src, const uint8_t *mac, uint32_t now);
void switch_inject(struct port *src, struct pkt *pkt);
unsigned int switch_lend_rx(struct port *src, struct port_reader *rd,
			    struct pkt **pkts, unsigned int max,
			    struct port_turn *turn);
unsigned int switch_lenders(const struct port *src, uint64_t src_feat,
			    struct port_lender *out, unsigned int max);
bool switch_reaches(const struct port *src, unsigned int dst);
unsigned int switch_dom_vid(unsigned int dom);
int switch_vid_dom(unsigned int vid);
void switch_dom_stats(unsigned int dom, uint64_t *frames, uint64_t *bytes,
		      uint64_t *flooded);
uint64_t switch_dom_members(unsigned int dom);
int switch_port_in(unsigned int idx, unsigned int vid);
int switch_static_add(unsigned int vid, const uint8_t *mac, unsigned int idx);
int switch_static_del(unsigned int vid, const uint8_t *mac, unsigned int idx);
unsigned int switch_lend_flows(unsigned int idx, uint8_t *table,
			       uint32_t *on);
void switch_mac_walk(void (*fn)(void *arg, const uint8_t *mac,
				unsigned int port),
		     void *arg);
void switch_timer(void);
struct fdb *switch_fdb(void);

/* Written by the control thread once a second, read once per burst. */
extern uint32_t switch_clock_s;

static inline uint32_t switch_now_s(void)
{
	return __atomic_load_n(&switch_clock_s, __ATOMIC_RELAXED);
}
void switch_fini(void);
struct rate *switch_rate(const struct port *p, enum rate_dir dir);
bool switch_port_held(const struct port *p, uint64_t *until);
void switch_rate_get(unsigned int idx, enum rate_dir dir, uint64_t *bps,
		     uint64_t *burst);
void switch_rate_set(unsigned int idx, enum rate_dir dir, uint64_t bps,
		     uint64_t burst);

#endif /* VHOSTD_SWITCH_H */
