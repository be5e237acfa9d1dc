// SPDX-License-Identifier: GPL-2.0-or-later
/* ctl_guests.c - vdrv_itest scenario "ctl-guests": guests for ctl.sh
 *
 * Known MACs on known ports, held still while ctl.sh asks vhostd about
 * them.  Port i (0-based) sends one broadcast from its own MAC and from i
 * more (02:ee:00:<run>:<i>:<k>, k = 1..i), and prints "MAC vu<i> <mac>"
 * for each: exactly what "fdb" must list.  With $VDRV_ITEST_SPRAY = N,
 * port 0 then sends N frames from N more MACs (02:aa:<run>:...) to its own
 * MAC, which the switch learns and then filters as a hairpin: a big MAC
 * table without traffic anywhere; "SPRAY N" says how many.
 *
 * Then "READY", and the guests stay, draining their RX rings, until
 * SIGTERM/SIGINT (all close cleanly, "DONE") or SIGUSR1 (the last port
 * closes cleanly: "CLOSED vu<i>"), or until the runner (parent) is gone.
 * The probes of it_sync() are not used: their MACs would be learned too.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "vdrv_itest.h"

static volatile sig_atomic_t cg_stop, cg_close_last;

/**
 * cg_on_signal() - SIGTERM/SIGINT: stop; SIGUSR1: close the last port
 * @sig:	signal
 */
static void cg_on_signal(int sig)
{
	if (sig == SIGUSR1)
		cg_close_last = 1;
	else
		cg_stop = 1;
}

/**
 * cg_announce() - send one broadcast from @mac through @p, print it
 * @p:		port
 * @mac:	source MAC
 */
static void cg_announce(struct it_port *p, const uint8_t mac[6])
{
	int ret;

	vdrv_pkt_test_frame(it_frame, 64, it_bcast, mac, 70, ++it_seq);
	ret = vdrv_send(p->d, it_frame, 64);
	if (ret)
		it_fail("%s: announce: %d", p->name, ret);
	printf("MAC %s %02x:%02x:%02x:%02x:%02x:%02x\n", p->vu, mac[0],
	       mac[1], mac[2], mac[3], mac[4], mac[5]);
}

/**
 * sc_ctl_guests() - see the file comment
 */
void sc_ctl_guests(void)
{
	struct sigaction sa = { .sa_handler = cg_on_signal };
	const char *spray = getenv("VDRV_ITEST_SPRAY");
	unsigned int i, k, n = spray ? (unsigned int)atoi(spray) : 0;
	struct it_port *a = &it_ports[0];
	pid_t ppid = getppid();

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	it_need(1);
	for (i = 0; i < it_nports; i++)
		it_open(&it_ports[i]);
	for (i = 0; i < it_nports; i++) {
		struct it_port *p = &it_ports[i];

		cg_announce(p, p->mac);
		for (k = 1; k <= i; k++) {
			uint8_t mac[6] = { 0x02, 0xee, 0, p->mac[4],
					   (uint8_t)i, (uint8_t)k };

			cg_announce(p, mac);
		}
	}
	for (k = 0; k < n; k++) {
		uint8_t mac[6] = { 0x02, 0xaa, a->mac[4], (uint8_t)(k >> 16),
				   (uint8_t)(k >> 8), (uint8_t)k };
		int ret;

		vdrv_pkt_test_frame(it_frame, 64, a->mac, mac, 71, k);
		ret = vdrv_send(a->d, it_frame, 64);
		if (ret)
			it_fail("A: spray: %d", ret);
	}
	it_tx_settle(a);
	if (n)
		printf("SPRAY %u\n", n);
	printf("READY\n");
	while (!cg_stop) {
		/* Never outlive the runner that would signal us. */
		if (getppid() != ppid)
			it_fail("the runner went away");
		if (cg_close_last) {
			struct it_port *p = &it_ports[it_nports - 1];

			cg_close_last = 0;
			if (p->d) {
				it_close(p);
				printf("CLOSED %s\n", p->vu);
			}
		}
		it_drain(50);
	}
	it_close_all();
	printf("DONE\n");
}
