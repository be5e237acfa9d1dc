// SPDX-License-Identifier: GPL-2.0-or-later
/* vhostctl_capture.c - "vhostctl capture": a port's frames as pcap
 *
 *   vhostctl capture PORT [-d rx|tx|both] [-c N] [-s SNAPLEN] [-B SIZE]
 *                         [--pcapng] [-q] [-w FILE|-] [FILTER...]
 *
 * The FILTER words are a tcpdump expression, compiled here with libpcap
 * (for Ethernet frames, snaplen SNAPLEN) into classic BPF, which vhostd
 * checks and runs on each frame before it copies it out (ctl_capture.c
 * in the daemon has the protocol).  The stream vhostd sends after its ok
 * line is copied as it comes to FILE, or to stdout ("-", or no -w with
 * stdout not a terminal), so that "vhostctl capture vm1 -w - | tcpdump
 * -r -" shows frames live.  Ctrl-C ends the capture; the frames received
 * are counted on stderr, as tcpdump does.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <pcap/pcap.h>

#include "vhostctl.h"

static volatile sig_atomic_t capture_stop_sig;

static void capture_on_signal(int sig)
{
	capture_stop_sig = sig;
}

/**
 * struct capture_count - frames seen in the stream, for the summary
 * @ng:		pcapng (blocks) rather than pcap (records)
 * @skip:	bytes still to pass before the next header
 * @hdr:	the next header's bytes so far
 * @have:	how many
 * @frames:	frames passed
 */
struct capture_count {
	bool ng;
	size_t skip;
	uint8_t hdr[16];
	size_t have;
	uint64_t frames;
};

/**
 * capture_count_feed() - walk the stream's framing over @n bytes
 * @c:		the walker
 * @p:		bytes
 * @n:		how many
 *
 * pcap: a 24-byte file header, then records of a 16-byte header (caplen
 * at offset 8) and caplen bytes.  pcapng: blocks of type, total length,
 * ...; type 6 is a frame.
 */
static void capture_count_feed(struct capture_count *c, const uint8_t *p,
			       size_t n)
{
	while (n) {
		size_t need = c->ng ? 8 : 16, take;
		uint32_t w0, w1;

		if (c->skip) {
			take = c->skip < n ? c->skip : n;
			c->skip -= take;
			p += take;
			n -= take;
			continue;
		}
		take = need - c->have < n ? need - c->have : n;
		memcpy(c->hdr + c->have, p, take);
		c->have += take;
		p += take;
		n -= take;
		if (c->have < need)
			return;
		c->have = 0;
		memcpy(&w0, c->hdr, 4);
		memcpy(&w1, c->hdr + (c->ng ? 4 : 8), 4);
		if (c->ng) {
			if (w0 == 6)
				c->frames++;
			c->skip = w1 >= 8 ? w1 - 8 : 0;
		} else {
			c->frames++;
			c->skip = w1;
		}
	}
}

/**
 * capture_usage() - the subcommand's options
 * @f:		where to
 */
static void capture_usage(FILE *f)
{
	fprintf(f,
		"Usage: vhostctl capture PORT [OPTION]... [FILTER...]\n"
		"Stream PORT's frames as pcap (tcpdump -r reads it).\n"
		"\n"
		"  -d, --dir rx|tx|both  rx: frames the port sent into vhostd, "
		"tx: frames\n"
		"                        vhostd gave the port (default both)\n"
		"  -c, --count N         stop after N frames\n"
		"  -s, --snaplen N       keep the first N bytes of each frame "
		"(default all)\n"
		"  -B, --buffer SIZE     vhostd's rings for this capture, "
		"K or M (default 4M)\n"
		"      --pcapng          pcapng: direction and offload metadata "
		"per frame,\n"
		"                        drop counts at the end\n"
		"  -w, --write FILE      write to FILE, '-' for stdout "
		"(default stdout\n"
		"                        unless it is a terminal)\n"
		"  -q, --quiet           no summary on stderr\n"
		"  FILTER                a tcpdump expression (pcap-filter(7)), "
		"run in vhostd\n"
		"\n"
		"Example: vhostctl capture vm1 -w - icmp | tcpdump -n -r -\n");
}

/**
 * capture_filter() - compile the expression
 * @expr:	tcpdump syntax, "" for none
 * @snaplen:	the capture's
 * @fp:		out: the program (pcap_freecode() it)
 * Return: 0, or 2 (usage error, message printed)
 */
static int capture_filter(const char *expr, unsigned int snaplen,
			  struct bpf_program *fp)
{
	pcap_t *p = pcap_open_dead(DLT_EN10MB, (int)snaplen);
	int rc = 0;

	if (!p) {
		fprintf(stderr, "vhostctl: capture: libpcap: out of memory\n");
		return 2;
	}
	if (pcap_compile(p, fp, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		fprintf(stderr, "vhostctl: capture: filter '%s': %s\n", expr,
			pcap_geterr(p));
		rc = 2;
	}
	pcap_close(p);
	return rc;
}

/**
 * capture_write_all() - all of @n bytes to @fd
 * @fd:		output
 * @p:		bytes
 * @n:		count
 * Return: 0, or -errno
 */
static int capture_write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t r = write(fd, p, n);

		if (r < 0) {
			if (errno == EINTR && !capture_stop_sig)
				continue;
			return -errno;
		}
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/**
 * capture_stream() - read the reply line, then copy the stream
 * @fd:		the daemon
 * @out:	output fd
 * @c:		frame counter
 * @quiet:	no messages but errors
 * Return: exit status
 */
static int capture_stream(int fd, int out, struct capture_count *c,
			  bool quiet)
{
	static uint8_t buf[1 << 16];
	char line[1024];
	size_t ll = 0;
	bool in_line = true;

	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));
		size_t off = 0;

		if (r < 0 && errno == EINTR) {
			if (capture_stop_sig)
				return 0;
			continue;
		}
		if (r < 0) {
			fprintf(stderr, "vhostctl: capture: read: %s\n",
				strerror(errno));
			return 1;
		}
		if (!r) {
			if (in_line) {
				fprintf(stderr, "vhostctl: capture: vhostd "
					"closed the connection\n");
				return 1;
			}
			return 0;
		}
		if (in_line) {
			uint8_t *nl = memchr(buf, '\n', (size_t)r);
			size_t take = nl ? (size_t)(nl - buf) + 1 : (size_t)r;

			if (ll + take >= sizeof(line)) {
				fprintf(stderr, "vhostctl: capture: reply line "
					"too long\n");
				return 1;
			}
			memcpy(line + ll, buf, take);
			ll += take;
			off = take;
			if (!nl)
				continue;
			line[ll] = '\0';
			in_line = false;
			if (!strncmp(line, VHOSTCTL_ERROR_PREFIX,
				     strlen(VHOSTCTL_ERROR_PREFIX))) {
				fputs(line, stderr);
				return 1;
			}
			if (!quiet)
				fprintf(stderr, "vhostctl: %s", line);
		}
		if ((size_t)r > off) {
			int rc = capture_write_all(out, buf + off,
						   (size_t)r - off);

			if (rc == -EPIPE)
				return 0;	/* the reader is done */
			if (rc < 0) {
				fprintf(stderr, "vhostctl: capture: write: "
					"%s\n", strerror(-rc));
				return 1;
			}
			capture_count_feed(c, buf + off, (size_t)r - off);
		}
	}
}

/**
 * vhostctl_capture() - the capture command (see the file's header)
 * @path:	control socket
 * @argc:	words from "capture" on
 * @argv:	those words
 * Return: exit status
 */
int vhostctl_capture(const char *path, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir",	required_argument,	NULL, 'd' },
		{ "count",	required_argument,	NULL, 'c' },
		{ "snaplen",	required_argument,	NULL, 's' },
		{ "buffer",	required_argument,	NULL, 'B' },
		{ "write",	required_argument,	NULL, 'w' },
		{ "pcapng",	no_argument,		NULL, 'n' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 },
	};
	const char *dir = "both", *file = NULL, *port, *buffer = NULL;
	unsigned long long count = 0;
	unsigned int snaplen = 65553;
	struct capture_count cnt = { 0 };
	struct bpf_program fp = { 0 };
	struct sigaction sa = { .sa_handler = capture_on_signal };
	char expr[1024] = "", keys[256];
	bool quiet = false, ng = false;
	int opt, fd, out = STDOUT_FILENO, rc, i;
	char *end;
	size_t el = 0;

	optind = 0;	/* glibc: a full restart, without the caller's "+" */
	while ((opt = getopt_long(argc, argv, "d:c:s:B:w:qh", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'd':
			dir = optarg;
			if (strcmp(dir, "rx") && strcmp(dir, "tx") &&
			    strcmp(dir, "both")) {
				fprintf(stderr, "vhostctl: capture: --dir is "
					"rx, tx or both\n");
				return 2;
			}
			break;
		case 'c':
			errno = 0;
			count = strtoull(optarg, &end, 10);
			if (errno || *end || !count || *optarg == '-') {
				fprintf(stderr, "vhostctl: capture: --count: "
					"a number above 0\n");
				return 2;
			}
			break;
		case 's':
			errno = 0;
			snaplen = (unsigned int)strtoul(optarg, &end, 10);
			if (errno || *end || !snaplen || snaplen > 65553 ||
			    *optarg == '-') {
				fprintf(stderr, "vhostctl: capture: --snaplen: "
					"1 to 65553\n");
				return 2;
			}
			break;
		case 'B':
			buffer = optarg;
			if (strpbrk(buffer, ", \t\n")) {
				fprintf(stderr, "vhostctl: capture: --buffer: "
					"SIZE, e.g. 16M\n");
				return 2;
			}
			break;
		case 'w':
			file = optarg;
			break;
		case 'n':
			ng = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			capture_usage(stdout);
			return 0;
		default:
			capture_usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "vhostctl: capture: missing PORT\n");
		capture_usage(stderr);
		return 2;
	}
	port = argv[optind++];
	if (!*port || strpbrk(port, ", \t\n")) {
		fprintf(stderr, "vhostctl: capture: PORT is a port's name\n");
		return 2;
	}
	for (i = optind; i < argc; i++) {
		int n = snprintf(expr + el, sizeof(expr) - el, "%s%s",
				 el ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(expr) - el) {
			fprintf(stderr, "vhostctl: capture: filter too long\n");
			return 2;
		}
		el += (size_t)n;
	}
	if (el && capture_filter(expr, snaplen, &fp))
		return 2;

	if (!file && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "vhostctl: capture: not writing pcap to a "
			"terminal: -w FILE, or pipe it (| tcpdump -r -)\n");
		pcap_freecode(&fp);
		return 2;
	}
	if (file && strcmp(file, "-")) {
		/* Guests' traffic: for the capturer's eyes only. */
		out = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			   0600);
		if (out < 0) {
			fprintf(stderr, "vhostctl: capture: %s: %s\n", file,
				strerror(errno));
			pcap_freecode(&fp);
			return 1;
		}
	}
	cnt.ng = ng;
	/* The file header: 24 bytes of pcap; pcapng's blocks walk alone. */
	cnt.skip = ng ? 0 : 24;

	fd = vhostctl_connect(path);
	if (fd < 0) {
		pcap_freecode(&fp);
		return 1;
	}
	snprintf(keys, sizeof(keys), ",dir=%s,snaplen=%u,format=%s", dir,
		 snaplen, ng ? "pcapng" : "pcap");
	if (count)
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys),
			 ",count=%llu", count);
	if (buffer)
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys),
			 ",buffer=%s", buffer);
	if (fp.bf_len)
		snprintf(keys + strlen(keys), sizeof(keys) - strlen(keys),
			 ",filter=%u", fp.bf_len);
	if (dprintf(fd, "capture %s%s\n", port, keys) < 0 ||
	    (fp.bf_len && capture_write_all(fd, (const uint8_t *)fp.bf_insns,
					    fp.bf_len *
					    sizeof(*fp.bf_insns)) < 0)) {
		fprintf(stderr, "vhostctl: capture: send: %s\n",
			strerror(errno));
		pcap_freecode(&fp);
		close(fd);
		return 1;
	}
	pcap_freecode(&fp);
	/* Frames may be minutes apart: no read timeout from here on.  A
	 * signal ends the read (no SA_RESTART) and the capture with it.
	 */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ 0 },
		   sizeof(struct timeval));
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	rc = capture_stream(fd, out, &cnt, quiet);
	close(fd);
	if (out != STDOUT_FILENO && close(out) < 0 && !rc) {
		fprintf(stderr, "vhostctl: capture: %s: %s\n", file,
			strerror(errno));
		rc = 1;
	}
	if (!quiet && (rc == 0 || cnt.frames))
		fprintf(stderr, "vhostctl: %llu frame%s captured\n",
			(unsigned long long)cnt.frames,
			cnt.frames == 1 ? "" : "s");
	return rc;
}
