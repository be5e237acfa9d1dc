// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_tool.c - a vdrv "guest" for shell scripts
 *
 *   vdrv_tool info      --sock S                  negotiate, print, close
 *   vdrv_tool responder --sock S --mac M --ip IP [--seconds N]
 *   vdrv_tool pinger    --sock S --mac M --ip IP --peer-ip P
 *                       [--count N] [--expect K] [--interval-ms MS]
 *                       [--timeout-ms MS]     (per reply, and for ARP)
 *   vdrv_tool evil      --sock S --kind KIND [--timeout-ms MS]
 *   vdrv_tool send      --sock S --mac M --dst M2 [--count N] [--len L]
 *                       [--tag T] [--want-calls] [--gap-us US]
 *                       [--gap-every N] [--window N]
 *   vdrv_tool recv      --sock S [--count N] [--timeout-ms MS] [--tag T]
 *                       [--announce --mac M]
 *
 * Device options for all: --listen (accept one connection on S, for a
 * back end in client mode), --queue-size N, --rx-buf-len N, --rx-segs N,
 * --tx-layout flat|split|indirect, --no-mrg, --no-event-idx,
 * --no-indirect, --no-reply-ack, --packed (packed rings, required),
 * --in-order (VIRTIO_F_IN_ORDER asked for, and checked).
 *
 * Every command prints one summary line on stdout and exits 0 on success,
 * 1 on a failed expectation, 2 on usage errors.  A device that broke a
 * virtio rule (vdrv's dev_errors), or a close the back end did not answer,
 * is a failed expectation for every command.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "../../vdrv/vdrv.h"
#include "../../vdrv/vdrv_pkt.h"

#define TOOL_BURST	32
#define TOOL_FRAME_MAX	9216

/**
 * struct tool_args - parsed command line
 * @o:		device options
 * @mac:	our MAC
 * @dst:	destination MAC for send
 * @ip:		our IPv4
 * @peer_ip:	pinger target
 * @seconds:	responder run time (0 = until signalled)
 * @count:	frames/pings
 * @expect:	replies/frames needed for success (-1 = @count)
 * @interval_ms: between pings
 * @timeout_ms:	evil/recv wait
 * @len:	send frame length
 * @tag:	send/recv tag (-1 = any for recv)
 * @kind:	evil kind
 * @announce:	recv: first send one broadcast frame from @mac, so the
 *		switch learns where we are and unicast to us is not flooded
 * @calls:	send: ask for a TX-completion interrupt after every frame,
 *		as Linux's napi-tx does (vdrv_tx_calls())
 * @gap_us:	send: sleep so long after each frame (a slow guest)...
 * @gap_every:	... or after every so many frames (0, 1: each)
 * @window:	send: at most so many frames in flight; past them, wait for
 *		the device's interrupt (--timeout-ms), as a guest whose
 *		socket's send buffer is full (0: the ring's room)
 */
struct tool_args {
	struct vdrv_opts o;
	uint8_t mac[6];
	uint8_t dst[6];
	uint32_t ip;
	uint32_t peer_ip;
	unsigned int seconds;
	unsigned int count;
	int expect;
	unsigned int interval_ms;
	int timeout_ms;
	unsigned int len;
	long tag;
	int kind;
	bool announce;
	bool calls;
	unsigned int gap_us;
	unsigned int gap_every;
	unsigned int window;
};

static volatile sig_atomic_t tool_stop;

/**
 * tool_on_signal() - SIGINT/SIGTERM: finish the loop, print the summary
 * @sig:	signal
 */
static void tool_on_signal(int sig)
{
	(void)sig;
	tool_stop = 1;
}

/**
 * tool_ms() - monotonic ms
 * Return: ms
 */
static int64_t tool_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * tool_usage() - print usage, exit 2
 */
static void tool_usage(void)
{
	fputs("usage: vdrv_tool info|responder|pinger|evil|send|recv --sock S "
	      "[options]\n  see doc/testing.md\n", stderr);
	exit(2);
}

/**
 * tool_open() - open the device or die with a message
 * @a:	arguments
 * Return: the device
 */
static struct vdrv_dev *tool_open(const struct tool_args *a)
{
	struct vdrv_dev *d;
	int ret = vdrv_open(&a->o, &d);

	if (ret) {
		fprintf(stderr, "vdrv_tool: open %s: %s\n", a->o.path,
			strerror(-ret));
		exit(1);
	}
	return d;
}

/**
 * tool_close() - stop the rings and disconnect; any device error fails
 * @d:		device; freed
 * @who:	command name for the message
 *
 * A device that broke a virtio rule (vdrv counts it in dev_errors) fails
 * the command whatever else went right, as does a close the back end did
 * not answer (GET_VRING_BASE lost, or every TX buffer not returned).
 *
 * Return: 0 or 1 (exit status contribution)
 */
static int tool_close(struct vdrv_dev *d, const char *who)
{
	uint64_t errs = vdrv_stats(d)->dev_errors;
	int ret = vdrv_close(d, NULL);

	if (errs)
		printf("%s: FAIL: the device broke %llu virtio rules\n", who,
		       (unsigned long long)errs);
	if (ret)
		printf("%s: FAIL: close: %s\n", who, strerror(-ret));
	return errs || ret ? 1 : 0;
}

/**
 * tool_info() - negotiate, print what was agreed, close
 * @a:	arguments
 * Return: exit status
 */
static int tool_info(const struct tool_args *a)
{
	struct vdrv_dev *d = tool_open(a);
	uint16_t bases[VDRV_NRINGS] = { 0, 0 };
	int ret;

	printf("info: device_features=0x%llx features=0x%llx "
	       "protocol_features=0x%llx queue_num=%u hdr_len=%zu",
	       (unsigned long long)vdrv_device_features(d),
	       (unsigned long long)vdrv_features(d),
	       (unsigned long long)vdrv_protocol_features(d),
	       vdrv_queue_num(d), vdrv_hdr_len(d));
	ret = vdrv_close(d, bases);
	printf(" close=%d bases=%u,%u\n", ret, bases[0], bases[1]);
	return ret ? 1 : 0;
}

/**
 * tool_responder() - answer ARP and ping for our address
 * @a:	arguments
 * Return: exit status
 */
static int tool_responder(const struct tool_args *a)
{
	static uint8_t in[TOOL_BURST][TOOL_FRAME_MAX], out[TOOL_BURST][2048];
	struct vdrv_rx_pkt rx[TOOL_BURST];
	struct vdrv_tx_pkt tx[TOOL_BURST];
	int64_t end = a->seconds ? tool_ms() + a->seconds * 1000LL : 0;
	struct vdrv_dev *d = tool_open(a);
	unsigned long answered = 0, seen = 0;
	int n, i, ntx, ret = 0;

	while (!tool_stop && (!end || tool_ms() < end)) {
		for (i = 0; i < TOOL_BURST; i++) {
			rx[i].buf = in[i];
			rx[i].cap = TOOL_FRAME_MAX;
		}
		n = vdrv_rx_burst(d, rx, TOOL_BURST);
		if (n < 0) {
			ret = n;
			break;
		}
		if (!n) {
			n = vdrv_rx_wait(d, 200);
			if (n < 0) {
				ret = n;
				break;
			}
			continue;
		}
		seen += (unsigned long)n;
		for (i = 0, ntx = 0; i < n; i++) {
			size_t l = vdrv_pkt_respond(in[i], rx[i].len, a->mac,
						    a->ip, out[ntx],
						    sizeof(out[0]));

			if (!l || rx[i].truncated)
				continue;
			tx[ntx].data = out[ntx];
			tx[ntx].len = (uint32_t)l;
			tx[ntx].hdr = NULL;
			ntx++;
		}
		if (ntx) {
			int s = vdrv_tx_burst(d, tx, (unsigned int)ntx);

			if (s < 0) {
				ret = s;
				break;
			}
			answered += (unsigned long)s;
		}
	}
	printf("responder: seen %lu answered %lu%s%s\n", seen, answered,
	       ret ? " error " : "", ret ? strerror(-ret) : "");
	return tool_close(d, "responder") || ret ? 1 : 0;
}

/**
 * tool_pinger_wait() - wait for the echo reply with sequence @seq
 * @d:		device
 * @a:		arguments
 * @id:		our ICMP id
 * @seq:	sequence number wanted
 * @deadline:	give up at this tool_ms()
 *
 * Replies to earlier requests that come late are not counted again: each
 * request is answered once or counts as lost.
 *
 * Return: 1 got it, 0 not by @deadline, -errno from the device
 */
static int tool_pinger_wait(struct vdrv_dev *d, const struct tool_args *a,
			    uint16_t id, uint16_t seq, int64_t deadline)
{
	static uint8_t buf[TOOL_FRAME_MAX];
	uint16_t s;
	int ret;

	while (tool_ms() < deadline && !tool_stop) {
		struct vdrv_rx_pkt p = { .buf = buf, .cap = sizeof(buf) };

		ret = vdrv_recv(d, &p, (int)(deadline - tool_ms()));
		if (ret < 0)
			return ret;
		if (ret > 0 &&
		    vdrv_pkt_is_echo_reply(buf, p.len, a->peer_ip, id, &s) &&
		    s == seq)
			return 1;
	}
	return 0;
}

/**
 * tool_pinger() - resolve the peer by ARP, ping it, count replies
 * @a:	arguments
 *
 * One request every --interval-ms; each reply may take up to
 * --timeout-ms (the next request waits for it or for that deadline), so
 * a loaded machine delays the test but does not fail it.  Round-trip
 * times are printed, never asserted.
 *
 * Return: exit status
 */
static int tool_pinger(const struct tool_args *a)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t zero[6];
	static uint8_t buf[TOOL_FRAME_MAX], frame[256];
	struct vdrv_dev *d = tool_open(a);
	uint16_t id = (uint16_t)getpid();
	unsigned int sent = 0, got = 0, i;
	int expect = a->expect < 0 ? (int)a->count : a->expect;
	int64_t deadline, t0, rtt, rtt_max = 0, rtt_sum = 0;
	uint8_t peer[6];
	bool resolved = false;
	size_t l;
	int ret = 0;

	/* ARP: a request every 250 ms until --timeout-ms has passed. */
	deadline = tool_ms() + a->timeout_ms;
	while (!resolved && !tool_stop && tool_ms() < deadline) {
		int64_t next = tool_ms() + 250;

		l = vdrv_pkt_arp(frame, 1, bcast, a->mac, a->ip, zero,
				 a->peer_ip);
		ret = vdrv_send(d, frame, (uint32_t)l);
		if (ret)
			goto out;
		while (!resolved && tool_ms() < next) {
			struct vdrv_rx_pkt p = { .buf = buf, .cap = sizeof(buf) };

			ret = vdrv_recv(d, &p, (int)(next - tool_ms()));
			if (ret < 0)
				goto out;
			if (ret > 0)
				resolved = vdrv_pkt_is_arp_reply(buf, p.len,
								 a->peer_ip,
								 peer);
		}
		ret = 0;
	}
	if (!resolved) {
		printf("pinger: sent 0 received 0 (no ARP reply)\n");
		tool_close(d, "pinger");
		return 1;
	}
	for (i = 0; i < a->count && !tool_stop; i++) {
		l = vdrv_pkt_icmp_echo(frame, sizeof(frame), peer, a->mac,
				       a->ip, a->peer_ip, 8, id, (uint16_t)i,
				       56);
		t0 = tool_ms();
		ret = vdrv_send(d, frame, (uint32_t)l);
		if (ret)
			break;
		sent++;
		ret = tool_pinger_wait(d, a, id, (uint16_t)i,
				       t0 + a->timeout_ms);
		if (ret < 0)
			break;
		if (ret) {
			rtt = tool_ms() - t0;
			rtt_sum += rtt;
			rtt_max = rtt > rtt_max ? rtt : rtt_max;
			got++;
		}
		ret = 0;
		/* Keep the pace when the reply came early. */
		if (tool_ms() < t0 + a->interval_ms)
			usleep((useconds_t)(t0 + a->interval_ms - tool_ms()) *
			       1000);
	}
out:
	printf("pinger: sent %u received %u rtt avg %lld max %lld ms%s%s\n",
	       sent, got, got ? (long long)(rtt_sum / got) : 0LL,
	       (long long)rtt_max, ret ? " error " : "",
	       ret ? strerror(-ret) : "");
	return tool_close(d, "pinger") || ret || (int)got < expect ? 1 : 0;
}

/**
 * tool_evil() - commit one violation, report what the back end did
 * @a:	arguments
 * Return: 0 if the back end dropped us, 3 if it nacked and kept us, 1
 * otherwise
 */
static int tool_evil(const struct tool_args *a)
{
	struct vdrv_dev *d = tool_open(a);
	const char *name = vdrv_evil_names[a->kind];
	int ret;

	ret = vdrv_evil(d, (enum vdrv_evil)a->kind);
	if (ret) {
		printf("evil %s: could not commit: %s\n", name,
		       strerror(-ret));
		vdrv_abort(d);
		return 1;
	}
	ret = vdrv_wait_hangup(d, a->timeout_ms);
	switch (ret) {
	case 0:
		printf("evil %s: dropped\n", name);
		break;
	case 1:
		printf("evil %s: nacked\n", name);
		break;
	case -EPROTO:
		printf("evil %s: accepted (zero ack)\n", name);
		break;
	case -ETIMEDOUT:
		printf("evil %s: alive (connection kept)\n", name);
		break;
	default:
		printf("evil %s: error %s\n", name, strerror(-ret));
	}
	vdrv_abort(d);
	return ret == 0 ? 0 : ret == 1 ? 3 : 1;
}

/**
 * tool_send() - send test frames
 * @a:	arguments
 * Return: exit status
 */
static int tool_send(const struct tool_args *a)
{
	static uint8_t frame[TOOL_FRAME_MAX];
	struct vdrv_dev *d = tool_open(a);
	unsigned int i, sent = 0;
	int64_t end;
	int ret = 0;

	for (i = 0; i < a->count && !tool_stop; i++) {
		vdrv_pkt_test_frame(frame, a->len, a->dst, a->mac,
				    (uint32_t)a->tag, i);
		ret = vdrv_send(d, frame, a->len);
		if (!ret && a->calls)
			ret = vdrv_tx_calls(d);
		if (!ret && a->window)
			ret = vdrv_tx_wait_most(d, a->window - 1,
						a->timeout_ms);
		if (ret)
			break;
		sent++;
		if (a->gap_us &&
		    (a->gap_every <= 1 || sent % a->gap_every == 0))
			usleep(a->gap_us);
	}
	/* Let the device finish reading before the memory goes away. */
	end = tool_ms() + 1000;
	while (vdrv_stats(d)->tx_completed < sent && tool_ms() < end &&
	       vdrv_tx_reclaim(d) >= 0)
		usleep(1000);
	printf("send: sent %u%s%s\n", sent, ret ? " error " : "",
	       ret ? strerror(-ret) : "");
	return tool_close(d, "send") || ret ? 1 : 0;
}

/**
 * tool_recv() - receive and verify test frames
 * @a:	arguments
 * Return: exit status
 */
static int tool_recv(const struct tool_args *a)
{
	static uint8_t buf[TOOL_FRAME_MAX];
	struct vdrv_dev *d = tool_open(a);
	int64_t deadline = tool_ms() + a->timeout_ms;
	unsigned int good = 0, bad = 0, other = 0;
	int expect = a->expect < 0 ? (int)a->count : a->expect;
	int ret = 0;

	if (a->announce) {
		static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff,
						  0xff };

		vdrv_pkt_test_frame(buf, 64, bcast, a->mac, 0, 0);
		ret = vdrv_send(d, buf, 64);
	}
	while (!ret && good < a->count && !tool_stop) {
		struct vdrv_rx_pkt p = { .buf = buf, .cap = sizeof(buf) };
		struct vdrv_test_info ti;
		int64_t left = deadline - tool_ms();

		if (left <= 0)
			break;
		ret = vdrv_recv(d, &p, (int)left);
		if (ret < 0)
			break;
		ret = 0;
		if (!p.len)
			continue;
		switch (vdrv_pkt_test_check(buf, p.truncated ? p.cap : p.len,
					    &ti)) {
		case 0:
			if (a->tag < 0 || ti.tag == (uint32_t)a->tag)
				good++;
			else
				other++;
			break;
		case -ENOMSG:
			other++;
			break;
		default:
			bad++;
		}
	}
	printf("recv: good %u bad %u other %u%s%s\n", good, bad, other,
	       ret ? " error " : "", ret ? strerror(-ret) : "");
	return tool_close(d, "recv") || ret || bad || (int)good < expect ?
	       1 : 0;
}

/**
 * tool_parse() - command line to @a
 * @argc:	count
 * @argv:	vector (argv[1] is the command)
 * @a:		out
 */
static void tool_parse(int argc, char **argv, struct tool_args *a)
{
	static const struct option opts[] = {
		{ "sock", 1, NULL, 's' }, { "mac", 1, NULL, 'm' },
		{ "dst", 1, NULL, 'D' }, { "ip", 1, NULL, 'i' },
		{ "peer-ip", 1, NULL, 'p' }, { "seconds", 1, NULL, 'S' },
		{ "count", 1, NULL, 'c' }, { "expect", 1, NULL, 'e' },
		{ "interval-ms", 1, NULL, 'I' }, { "timeout-ms", 1, NULL, 't' },
		{ "len", 1, NULL, 'l' }, { "tag", 1, NULL, 'T' },
		{ "kind", 1, NULL, 'k' }, { "listen", 0, NULL, 'L' },
		{ "queue-size", 1, NULL, 'q' }, { "rx-buf-len", 1, NULL, 'r' },
		{ "rx-segs", 1, NULL, 'R' }, { "tx-layout", 1, NULL, 'x' },
		{ "no-mrg", 0, NULL, 'M' }, { "no-event-idx", 0, NULL, 'E' },
		{ "no-indirect", 0, NULL, 'N' }, { "no-reply-ack", 0, NULL, 'A' },
		{ "announce", 0, NULL, 'a' }, { "want-calls", 0, NULL, 'w' },
		{ "gap-us", 1, NULL, 'g' }, { "gap-every", 1, NULL, 'G' },
		{ "window", 1, NULL, 'W' },
		{ "packed", 0, NULL, 'P' }, { "in-order", 0, NULL, 'O' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	vdrv_opts_init(&a->o, NULL);
	a->count = 3;
	a->expect = -1;
	a->interval_ms = 300;
	a->timeout_ms = 3000;
	a->len = 128;
	a->tag = -1;
	a->kind = -1;
	memcpy(a->mac, "\x02\x00\x00\x00\x00\x01", 6);
	memset(a->dst, 0xff, 6);

	while ((c = getopt_long(argc - 1, argv + 1, "", opts, NULL)) != -1) {
		switch (c) {
		case 's': a->o.path = optarg; break;
		case 'm':
			if (vdrv_pkt_parse_mac(optarg, a->mac))
				tool_usage();
			break;
		case 'D':
			if (vdrv_pkt_parse_mac(optarg, a->dst))
				tool_usage();
			break;
		case 'i':
			if (vdrv_pkt_parse_ip4(optarg, &a->ip))
				tool_usage();
			break;
		case 'p':
			if (vdrv_pkt_parse_ip4(optarg, &a->peer_ip))
				tool_usage();
			break;
		case 'S': a->seconds = (unsigned int)atoi(optarg); break;
		case 'c': a->count = (unsigned int)atoi(optarg); break;
		case 'e': a->expect = atoi(optarg); break;
		case 'I': a->interval_ms = (unsigned int)atoi(optarg); break;
		case 't': a->timeout_ms = atoi(optarg); break;
		case 'l': a->len = (unsigned int)atoi(optarg); break;
		case 'T': a->tag = atol(optarg); break;
		case 'k':
			a->kind = vdrv_evil_parse(optarg);
			if (a->kind < 0)
				tool_usage();
			/* That kind needs a log to shrink. */
			if (a->kind == VDRV_EVIL_LOG_SHRINK)
				a->o.protocol_features |=
					1ULL << VDRV_PF_LOG_SHMFD;
			break;
		case 'L': a->o.listen = true; break;
		case 'a': a->announce = true; break;
		case 'w': a->calls = true; break;
		case 'g': a->gap_us = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'G': a->gap_every = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'W': a->window = (unsigned int)strtoul(optarg, NULL, 0);
			break;
		case 'q': a->o.queue_size = (unsigned int)atoi(optarg); break;
		case 'r': a->o.rx_buf_len = (unsigned int)atoi(optarg); break;
		case 'R': a->o.rx_segs = (unsigned int)atoi(optarg); break;
		case 'x':
			if (!strcmp(optarg, "flat"))
				a->o.tx_layout = VDRV_TX_FLAT;
			else if (!strcmp(optarg, "split"))
				a->o.tx_layout = VDRV_TX_SPLIT;
			else if (!strcmp(optarg, "indirect"))
				a->o.tx_layout = VDRV_TX_INDIRECT;
			else
				tool_usage();
			break;
		case 'M': a->o.features &= ~(1ULL << VIRTIO_NET_F_MRG_RXBUF);
			break;
		case 'E': a->o.features &= ~(1ULL << 29); break;
		case 'N': a->o.features &= ~(1ULL << 28); break;
		case 'A': a->o.protocol_features &= ~(1ULL << VDRV_PF_REPLY_ACK);
			break;
		case 'P': a->o.packed = true; break;
		case 'O': a->o.in_order = true; break;
		default: tool_usage();
		}
	}
	if (!a->o.path || a->len < VDRV_TEST_HLEN || a->len > TOOL_FRAME_MAX)
		tool_usage();
}

/**
 * main() - dispatch the command
 * @argc:	count
 * @argv:	vector
 * Return: exit status
 */
int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = tool_on_signal };
	struct tool_args a;
	const char *cmd;
	int ret = 2;

	if (argc < 2)
		tool_usage();
	cmd = argv[1];
	tool_parse(argc, argv, &a);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (!strcmp(cmd, "info"))
		ret = tool_info(&a);
	else if (!strcmp(cmd, "responder"))
		ret = tool_responder(&a);
	else if (!strcmp(cmd, "pinger"))
		ret = tool_pinger(&a);
	else if (!strcmp(cmd, "evil") && a.kind >= 0)
		ret = tool_evil(&a);
	else if (!strcmp(cmd, "send"))
		ret = tool_send(&a);
	else if (!strcmp(cmd, "recv"))
		ret = tool_recv(&a);
	else
		tool_usage();
	/* Whatever the command looked at, no device may have broken a rule
	 * (the evil command's own device included).
	 */
	if (vdrv_dev_errors_freed()) {
		printf("vdrv_tool: FAIL: the device broke %llu virtio rules\n",
		       (unsigned long long)vdrv_dev_errors_freed());
		ret = 1;
	}
	return ret;
}
