/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vdrv_itest.h - what the parts of vdrv_itest share
 *
 * vdrv_itest.c (the scenario table, main) and the files next to this
 * header are one program, split by concern:
 *
 *   it.c		the guests: open, close (checked), send, receive,
 *			expect, sync; vhostd's counters through its ctl socket
 *   switching.c	forwarding: basic, learning, flood, aging, mrg, nomrg,
 *			oversize, burst, variants
 *   limits.c		a guest's MTU (NET_SET_MTU), many ports (scale)
 *   lifecycle.c	guests leaving and coming back: reconnect, evil,
 *			client mode, rings disabled and re-enabled, vhostd
 *			shutting down under a flood
 *   ctl_guests.c	guests that stand still for ctl.sh: known MACs on
 *			known ports, until a signal
 *   hostile.c		a guest feeding vhostd costly descriptor chains
 *			while a bystander pair's round trips are timed; a
 *			TSO frame of 65,000 segments (gso-tiny)
 *   l2.c		a hostile guest against two others: spoofed source
 *			MACs, a MAC spray, a flood (for l2.sh)
 *   stall.c		front ends that would hold a blocking control
 *			plane: half a message, a message a byte at a time,
 *			replies never read; a listener that never accepts
 *
 * Nothing here includes src/: the guests are vdrv (written from the
 * vhost-user and virtio specifications), so a misreading cannot hide on
 * both sides of a test.
 */
#ifndef VDRV_ITEST_H
#define VDRV_ITEST_H

#include <stdbool.h>
#include <stdint.h>

#include "../../../vdrv/vdrv.h"
#include "../../../vdrv/vdrv_pkt.h"

#define IT_PORTS_MAX	32
#define IT_FRAME_MAX	9216
#define IT_PROBE_TAG	0xfffff000u
#define IT_QUIET_MS	300
#define IT_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/**
 * struct it_port - one vdrv guest of the test
 * @d:		device, NULL while closed
 * @path:	its socket
 * @mac:	its MAC (02:00:00:00:<run>:<idx+1>)
 * @o:		options it is opened with
 * @name:	"A", "B", ... (index 26 and up: "a", "b", ...)
 * @vu:		its port's name in vhostd as the runners start it (vu<index>),
 *		for the counters
 */
struct it_port {
	struct vdrv_dev *d;
	const char *path;
	uint8_t mac[6];
	struct vdrv_opts o;
	char name[2];
	char vu[8];
};

extern struct it_port it_ports[IT_PORTS_MAX];
extern unsigned int it_nports;
extern uint8_t it_buf[IT_FRAME_MAX];
extern uint8_t it_frame[IT_FRAME_MAX];
extern uint32_t it_seq;
extern const uint8_t it_bcast[6];

/* it.c */
void it_fail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
int64_t it_ms(void);
void it_open(struct it_port *p);
void it_close(struct it_port *p);
void it_tx_settle(struct it_port *p);
void it_send(struct it_port *p, const uint8_t dst[6], uint32_t tag,
	     uint32_t seq, uint32_t len);
bool it_recv(struct it_port *p, struct vdrv_test_info *ti,
	     struct vdrv_rx_pkt *pkt, int timeout_ms);
unsigned int it_expect(struct it_port *p, uint32_t tag, uint32_t seq,
		       uint32_t len, const char *what);
void it_expect_none(struct it_port *p, const char *what);
void it_drain(int ms);
void it_sync(void);
void it_exchange(struct it_port *a, struct it_port *b, unsigned int n,
		 const char *what);
void it_setup(int argc, char **argv);
void it_need(unsigned int n);
void it_open_all(void);
void it_learn_all(void);
void it_close_all(void);
unsigned long long it_ctr(const char *port, const char *key);
unsigned long long it_queue_ctr(const char *port, unsigned int q,
				const char *key);
bool it_port_up(const char *port);

/* switching.c */
void sc_basic(void);
void sc_learning(void);
void sc_flood(void);
void sc_aging(void);
void sc_mrg(void);
void sc_nomrg(void);
void sc_oversize(void);
void sc_burst(void);
void sc_variants(void);

/* limits.c */
void sc_mtu(void);
void sc_scale(void);
void sc_mq(void);

/* lifecycle.c */
void sc_reconnect(void);
void sc_evil(const char *kind);
void sc_client(void);
void sc_client_rounds(void);
void sc_ring_enable(void);
void sc_flood_hangup(void);

/* ctl_guests.c */
void sc_ctl_guests(void);

/* stall.c */
void sc_stall(void);
void sc_listen_full(void);

/* hostile.c */
void sc_gso_tiny(void);
void sc_hostile_long_chain(void);
void sc_hostile_huge_indirect(void);
void sc_hostile_same_head(void);
void sc_hostile_max_chain(void);
void sc_hostile_max_indirect(void);
void sc_hostile_call_block(void);
void sc_hostile_kick_steal(void);

/* l2.c */
void sc_mac_lock(void);
void sc_mac_steal(void);
void sc_mac_move(void);
void sc_mac_spray(void);
void sc_storm(void);
void sc_storm_bystander(void);

#endif /* VDRV_ITEST_H */
