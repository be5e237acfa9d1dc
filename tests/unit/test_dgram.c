// SPDX-License-Identifier: GPL-2.0-or-later
/* test_dgram.c - the dgram port type through its port_ops, no switch
 *
 * A dgram port over unix datagram sockets in a private directory, opened
 * through port_dgram's ops with a stub port_host (no workers), and the
 * test's own socket as its peer:
 *  - xmit of a plain frame: one datagram, byte for byte;
 *  - xmit of a NEEDS_CSUM frame: one datagram, its TCP checksum
 *    completed (no peer of this format takes offloads);
 *  - xmit of a 5000-byte TSO frame: gso_size segments, each a valid IPv4
 *    TCP frame, payloads in order, the whole payload once;
 *  - rx_burst of a runt, an oversized datagram, a stranger's datagram and
 *    a good frame: one frame out, each other one counted under its reason;
 *  - the socket file is removed at close.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <arpa/inet.h>
#include <cmocka.h>

#include "../../src/conf.h"
#include "../../src/stats.h"
#include "../../src/port/port.h"
#include "tcp4.h"

static char dir[64];
static struct port port;
static int peer = -1;

/* A host that runs nothing: the test drives the turns itself. */
#include "stub_host.h"

/**
 * bind_unix() - a unix datagram socket bound to @path
 * @path:	path
 * Return: fd
 */
static int bind_unix(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(a.sun_path, sizeof(a.sun_path), "%s", path);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	return fd;
}

static int setup(void **state)
{
	char spec[256], err[256], path[128];
	const struct port_ops *ops = port_ops_find("dgram");
	struct port_spec ps;
	struct timeval tv = { .tv_sec = 2 };

	snprintf(dir, sizeof(dir), "/tmp/test_dgram.XXXXXX");
	if (!mkdtemp(dir) || !ops)
		return -1;
	snprintf(path, sizeof(path), "%s/peer", dir);
	peer = bind_unix(path);
	setsockopt(peer, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	snprintf(spec, sizeof(spec), "dgram,path=%s/port,remote-path=%s/peer",
		 dir, dir);
	if (conf_parse_port(spec, 0, &ps, err, sizeof(err)))
		return -1;
	port_host = &stub_host;
	memset(&port, 0, sizeof(port));
	snprintf(port.name, sizeof(port.name), "%s", ps.name);
	port.ops = ops;
	port.priv = calloc(1, ops->priv_size);
	if (!port.priv || ops->open(&port, &ps))
		return -1;
	return port.up ? 0 : -1;
}

static int teardown(void **state)
{
	char path[128];

	port.ops->close(&port);
	free(port.priv);
	snprintf(path, sizeof(path), "%s/port", dir);
	assert_int_equal(access(path, F_OK), -1);	/* removed at close */
	close(peer);
	snprintf(path, sizeof(path), "%s/peer", dir);
	unlink(path);
	rmdir(dir);
	port_host = NULL;
	return 0;
}

/* Sum of the counter at byte offset @off over every slot. */
#define CTR(field)	stats_sum(port.stats, offsetof(struct port_stats, field))

/* The TCP frames' MACs (t4_tso_frame()) */
static const uint8_t mac_dst[6] = { 2, 0, 0, 0, 0x2e, 2 };
static const uint8_t mac_src[6] = { 2, 0, 0, 0, 0x2e, 1 };

/* A plain frame: one datagram, the frame's bytes exactly. */
static void test_xmit_plain(void **state)
{
	uint8_t f[100], got[200];
	struct pkt pkt, *pp = &pkt;
	ssize_t r;

	memset(f, 0xab, sizeof(f));
	memset(&pkt, 0, sizeof(pkt));
	pkt.len = sizeof(f);
	pkt.iovcnt = 1;
	pkt.iov[0].iov_base = f;
	pkt.iov[0].iov_len = sizeof(f);
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	r = recv(peer, got, sizeof(got), 0);
	assert_int_equal(r, sizeof(f));
	assert_memory_equal(got, f, sizeof(f));
}

/* NEEDS_CSUM: completed here, the source left as it was. */
static void test_xmit_csum(void **state)
{
	uint8_t f[200], copy[200], got[300];
	struct pkt pkt, *pp = &pkt;
	size_t len = 54 + 100;
	ssize_t r;

	t4_tso_frame(&pkt, f, mac_dst, mac_src, 100, 0);
	memcpy(copy, f, len);
	assert_false(t4_ok(f, len));
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	r = recv(peer, got, sizeof(got), 0);
	assert_int_equal(r, (ssize_t)len);
	assert_true(t4_ok(got, len));
	assert_memory_equal(f, copy, len);
}

/* TSO: cut into gso_size segments, each a valid frame, payload in order. */
static void test_xmit_tso(void **state)
{
	static uint8_t f[6000], got[2000];
	struct pkt pkt, *pp = &pkt;
	unsigned int segs = 0;
	size_t pay = 0;
	ssize_t r;

	t4_tso_frame(&pkt, f, mac_dst, mac_src, 5000, 1000);
	assert_int_equal(port.ops->xmit(&port, &pp, 1), 1);
	while (pay < 5000) {
		r = recv(peer, got, sizeof(got), 0);
		assert_true(r > 54);
		assert_true(t4_ok(got, (size_t)r));
		assert_true((size_t)r - 54 <= 1000);
		/* payload continues where the last segment ended */
		assert_int_equal(got[54], (uint8_t)pay);
		pay += (size_t)r - 54;
		segs++;
	}
	assert_int_equal(pay, 5000);
	assert_int_equal(segs, 5);
	assert_true(CTR(tx_packets) >= 1);
}

/* A turn: runt, oversized and foreign datagrams counted, one frame out. */
static void test_rx(void **state)
{
	static uint8_t big[70000];
	uint8_t frame[60] = { 2, 0, 0, 0, 0x2e, 1, 2, 0, 0, 0, 0x2e, 2, 8, 6 };
	struct sockaddr_un to = { .sun_family = AF_UNIX };
	struct port_turn turn = { .budget = 64 };
	struct pkt *pkts[PORT_BURST];
	char path[128];
	unsigned int n;
	int stranger;

	snprintf(to.sun_path, sizeof(to.sun_path), "%s/port", dir);
	snprintf(path, sizeof(path), "%s/stranger", dir);
	stranger = bind_unix(path);
	assert_int_equal(sendto(peer, "abc", 3, 0, (struct sockaddr *)&to,
				sizeof(to)), 3);
	assert_int_equal(sendto(peer, big, sizeof(big), 0,
				(struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)sizeof(big));
	assert_int_equal(sendto(stranger, frame, sizeof(frame), 0,
				(struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)sizeof(frame));
	assert_int_equal(sendto(peer, frame, sizeof(frame), 0,
				(struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)sizeof(frame));

	assert_true(port.ops->rx_begin(&port, 0, &turn));
	n = port.ops->rx_burst(&port, 0, pkts, PORT_BURST, &turn);
	port.ops->rx_end(&port, 0, &turn);
	assert_int_equal(n, 1);
	assert_true(turn.dry);
	assert_int_equal(turn.done, 4);
	assert_int_equal(pkts[0]->len, sizeof(frame));
	assert_memory_equal(pkts[0]->iov[0].iov_base, frame, sizeof(frame));
	assert_memory_equal(&pkts[0]->eth, frame, ETH_HLEN);
	assert_int_equal(pkts[0]->src_feat, 0);
	assert_int_equal(CTR(drops[STATS_DROP_RUNT]), 1);
	assert_int_equal(CTR(drops[STATS_DROP_TOO_BIG]), 1);
	assert_int_equal(CTR(drops[STATS_DROP_SPOOFED]), 1);
	assert_int_equal(CTR(rx_packets), 1);
	close(stranger);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xmit_plain),
		cmocka_unit_test(test_xmit_csum),
		cmocka_unit_test(test_xmit_tso),
		cmocka_unit_test(test_rx),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
