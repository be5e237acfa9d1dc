// SPDX-License-Identifier: GPL-2.0-or-later
/* ctl_capture.c - "capture": a port's frames streamed to a ctl client
 *
 * DOC: Theory of Operation
 *
 * Every other command is a request and a reply; a capture keeps its
 * connection.  The client (vhostctl capture) sends
 *
 *   capture NAME[,dir=rx|tx|both][,snaplen=N][,count=N][,buffer=SIZE]
 *          [,format=pcap|pcapng][,filter=N]
 *
 * and, with filter=N, N classic BPF instructions (struct bpf_insn, the
 * host's byte order: the client is on this host) right after the line's
 * newline; ctl.c reads exactly the line, so those bytes are still in the
 * socket.  The daemon answers one JSON line, {"ok":true,"capture":{..}}
 * or {"error":".."}, and after an ok the capture stream (capture_fmt.c)
 * until count= frames were sent, the port is removed (pcapng ends with
 * its statistics), or the client hangs up.
 *
 * The connection then belongs to the control thread's event loop, never
 * to a wait: a drain timer (CTL_CAPTURE_TICK_NS, armed while a capture
 * runs) moves frames from the session's rings (capture.c) into a buffer
 * and sends what the socket takes without blocking.  A client that reads
 * slowly leaves its buffer full, so the rings fill and the datapath
 * drops its copies (counted): it slows its own capture and nothing else.
 * A session that is ending gets CTL_CAPTURE_LINGER_NS to take its last
 * bytes.  A session is freed only after worker_quiesce(): a worker that
 * saw the session's bit just before capture_stop() may still be copying.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "capture.h"
#include "ctl.h"
#include "ctl_capture.h"
#include "ctl_int.h"
#include "evloop.h"
#include "log.h"
#include "switch.h"
#include "util.h"
#include "worker.h"

#define CTL_CAPTURE_OUT		(256U << 10)	/* bytes pending per client */
#define CTL_CAPTURE_TICK_NS	2000000L	/* drain period */
#define CTL_CAPTURE_BUDGET	(4U << 20)	/* bytes per client per tick */
#define CTL_CAPTURE_LINGER_NS	2000000000ULL	/* an ending client's last
						 * bytes */
#define CTL_CAPTURE_ERR_NS	200000000ULL	/* an error line, at least */

_Static_assert(CTL_CAPTURE_OUT > CAPTURE_SNAPLEN_MAX + 512,
	       "a frame's block always fits an empty buffer");

/**
 * struct ctl_capture_args - a capture command's keys
 * @port:	the port's index
 * @name:	its name
 * @dirs:	CAPTURE_RX | CAPTURE_TX (dir=, default both)
 * @snaplen:	bytes kept (snaplen=, default CAPTURE_SNAPLEN_MAX)
 * @count:	frames to send, 0: until the client hangs up (count=)
 * @buf:	bytes of rings (buffer=, default CAPTURE_BUF_DEFAULT)
 * @fmt:	format= (default pcap)
 * @insns:	filter instructions that follow the line (filter=, 0: none)
 */
struct ctl_capture_args {
	unsigned int port;
	char name[PORT_NAME_MAX];
	unsigned int dirs;
	uint32_t snaplen;
	uint64_t count;
	uint32_t buf;
	enum capture_fmt fmt;
	unsigned int insns;
};

/**
 * struct ctl_capture - a client receiving a capture
 * @used:	the slot is taken
 * @id:		its capture session (capture.c)
 * @fd:		the client's socket (non-blocking)
 * @args:	what it asked for
 * @sent:	frames put into the stream
 * @out:	CTL_CAPTURE_OUT bytes of stream not yet sent
 * @out_len:	bytes in @out
 * @out_off:	of which sent
 * @ending:	no more frames: send the rest and the tail, then close
 * @deadline:	now_ns() after which an ending client is closed regardless
 */
struct ctl_capture {
	bool used;
	int id;
	int fd;
	struct ctl_capture_args args;
	uint64_t sent;
	uint8_t *out;
	size_t out_len;
	size_t out_off;
	bool ending;
	uint64_t deadline;
};

static struct ctl_capture ctl_caps[CAPTURE_SESSIONS];
static int ctl_capture_timer = -1;
static unsigned int ctl_capture_live;	/* slots used */

/**
 * ctl_capture_port_find() - a port by name
 * @name:	its name
 * @len:	the name's length
 * Return: index, or -1
 */
static int ctl_capture_port_find(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < switch_port_count(); i++) {
		struct port *p = switch_port(i);

		if (p && p->in_use && strlen(p->name) == len &&
		    !memcmp(p->name, name, len))
			return (int)i;
	}
	return -1;
}

/**
 * ctl_capture_uint() - a decimal key's value in [@min, @max]
 * @val:	text
 * @min:	lowest
 * @max:	highest
 * @out:	the value
 * Return: true if valid
 */
static bool ctl_capture_uint(const char *val, uint64_t min, uint64_t max,
			     uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*val < '0' || *val > '9')
		return false;
	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

/**
 * ctl_capture_size() - buffer=: bytes with an optional K or M
 * @val:	text
 * @out:	bytes
 * Return: true if valid and within CAPTURE_RING_MIN .. CAPTURE_BUF_MAX
 */
static bool ctl_capture_size(const char *val, uint32_t *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (*val < '0' || *val > '9')
		return false;
	errno = 0;
	v = strtoull(val, &end, 10);
	if (errno)
		return false;
	if (*end == 'K' || *end == 'k')
		mul = 1ULL << 10;
	else if (*end == 'M' || *end == 'm')
		mul = 1ULL << 20;
	else if (*end)
		return false;
	if (*end && end[1])
		return false;
	if (v > CAPTURE_BUF_MAX / mul || v * mul < CAPTURE_RING_MIN)
		return false;
	*out = (uint32_t)(v * mul);
	return true;
}

/**
 * ctl_capture_parse() - a capture command's argument
 * @arg:	"NAME[,KEY=VALUE]..."
 * @a:		out: the keys
 * @err:	out: what is wrong, one line
 * @errlen:	its size
 * Return: 0, or -EINVAL
 *
 * Context: control thread (looks the port up)
 */
static int ctl_capture_parse(const char *arg, struct ctl_capture_args *a,
			     char *err, size_t errlen)
{
	char buf[CTL_LINE_MAX], *save = NULL, *kv;
	const char *comma = strchr(arg, ',');
	size_t nl = comma ? (size_t)(comma - arg) : strlen(arg);
	uint64_t v;
	int idx;

	*a = (struct ctl_capture_args){
		.dirs = CAPTURE_RX | CAPTURE_TX,
		.snaplen = CAPTURE_SNAPLEN_MAX,
		.buf = CAPTURE_BUF_DEFAULT,
		.fmt = CAPTURE_PCAP,
	};
	idx = ctl_capture_port_find(arg, nl);
	if (idx < 0) {
		snprintf(err, errlen, "capture: no port named '%.*s'",
			 (int)MIN(nl, (size_t)40), arg);
		return -EINVAL;
	}
	a->port = (unsigned int)idx;
	snprintf(a->name, sizeof(a->name), "%s", switch_port(a->port)->name);
	if (!comma)
		return 0;
	snprintf(buf, sizeof(buf), "%s", comma + 1);
	for (kv = strtok_r(buf, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *val = strchr(kv, '=');
		bool ok = false;

		if (val)
			*val++ = '\0';
		if (!val) {
			ok = false;
		} else if (!strcmp(kv, "dir")) {
			ok = true;
			if (!strcmp(val, "rx"))
				a->dirs = CAPTURE_RX;
			else if (!strcmp(val, "tx"))
				a->dirs = CAPTURE_TX;
			else if (!strcmp(val, "both"))
				a->dirs = CAPTURE_RX | CAPTURE_TX;
			else
				ok = false;
		} else if (!strcmp(kv, "snaplen")) {
			ok = ctl_capture_uint(val, 1, CAPTURE_SNAPLEN_MAX, &v);
			a->snaplen = (uint32_t)v;
		} else if (!strcmp(kv, "count")) {
			ok = ctl_capture_uint(val, 1, UINT64_MAX, &v);
			a->count = v;
		} else if (!strcmp(kv, "buffer")) {
			ok = ctl_capture_size(val, &a->buf);
		} else if (!strcmp(kv, "format")) {
			ok = true;
			if (!strcmp(val, "pcap"))
				a->fmt = CAPTURE_PCAP;
			else if (!strcmp(val, "pcapng"))
				a->fmt = CAPTURE_PCAPNG;
			else
				ok = false;
		} else if (!strcmp(kv, "filter")) {
			ok = ctl_capture_uint(val, 1, CAPTURE_INSNS_MAX, &v);
			a->insns = (unsigned int)v;
		} else {
			snprintf(err, errlen, "capture: unknown key '%.32s' "
				 "(dir, snaplen, count, buffer, format, filter)",
				 kv);
			return -EINVAL;
		}
		if (!ok) {
			snprintf(err, errlen, "capture: bad %.16s=%.32s", kv,
				 val ? val : "(no value)");
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * ctl_cmd_capture() - "capture" where it cannot stream (ctl_exec())
 * @b:		reply
 * @arg:	the command's argument
 * Return: 0 if it would start, else -EINVAL
 *
 * Unit tests and the fuzzer reach the parser here; a live daemon takes
 * capture lines in ctl_capture_start() instead.
 */
int ctl_cmd_capture(struct ctl_buf *b, const char *arg)
{
	struct ctl_capture_args a;
	char err[CTL_LINE_MAX];

	if (ctl_capture_parse(arg, &a, err, sizeof(err)) < 0) {
		ctl_printf(b, "{\"error\":");
		ctl_json_str(b, err);
		ctl_printf(b, "}\n");
		return -EINVAL;
	}
	ctl_printf(b, "{\"ok\":true,\"checked_only\":true}\n");
	return 0;
}

/**
 * ctl_capture_arm() - the drain timer on while a capture runs
 */
static void ctl_capture_arm(void)
{
	struct itimerspec its = { 0 };

	if (ctl_capture_live) {
		its.it_interval.tv_nsec = CTL_CAPTURE_TICK_NS;
		its.it_value.tv_nsec = CTL_CAPTURE_TICK_NS;
	}
	if (timerfd_settime(ctl_capture_timer, 0, &its, NULL) < 0)
		warn("capture: drain timer: %s", strerror(errno));
}

/**
 * ctl_capture_end() - close a client and free its session
 * @c:		the client
 * @why:	for the log
 *
 * Context: control thread, workers running (or stopped: shutdown)
 */
static void ctl_capture_end(struct ctl_capture *c, const char *why)
{
	struct capture_counts k;

	capture_stop(c->id);
	capture_counts_get(c->id, &k);
	info("capture on %s ended (%s): %llu frames sent, %llu dropped for "
	     "a slow reader, %llu refused by the filter", c->args.name, why,
	     (unsigned long long)c->sent, (unsigned long long)k.dropped,
	     (unsigned long long)k.filtered);
	evloop_del(c->fd);
	close(c->fd);
	/* A worker that saw the session's bits may still be copying. */
	worker_quiesce();
	capture_close(c->id);
	free(c->out);
	memset(c, 0, sizeof(*c));
	ctl_capture_live--;
	ctl_capture_arm();
}

/**
 * ctl_capture_flush() - send what the client's socket takes
 * @c:		the client
 * Return: 0 (all sent, or the socket is full), -errno: the client is gone
 */
static int ctl_capture_flush(struct ctl_capture *c)
{
	while (c->out_off < c->out_len) {
		ssize_t r = send(c->fd, c->out + c->out_off,
				 c->out_len - c->out_off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		c->out_off += (size_t)r;
	}
	c->out_len = c->out_off = 0;
	return 0;
}

/**
 * ctl_capture_fill() - frames from the rings into the client's buffer
 * @c:		the client, its buffer empty
 * Return: bytes added
 */
static size_t ctl_capture_fill(struct ctl_capture *c)
{
	const struct capture_rec *rec;
	size_t n;

	while (!(c->args.count && c->sent >= c->args.count) &&
	       (rec = capture_next(c->id))) {
		n = capture_fmt_frame(c->args.fmt, rec,
				      (const uint8_t *)(rec + 1),
				      c->out + c->out_len,
				      CTL_CAPTURE_OUT - c->out_len);
		if (!n)
			break;		/* the buffer is full */
		c->out_len += n;
		capture_take(c->id, rec);
		c->sent++;
	}
	return c->out_len;
}

/**
 * ctl_capture_finish() - no more frames: queue the stream's tail
 * @c:		the client, its buffer sent
 */
static void ctl_capture_finish(struct ctl_capture *c)
{
	struct capture_counts k;
	struct timespec ts;

	capture_stop(c->id);
	capture_counts_get(c->id, &k);
	/* isb_usrdeliv: what this stream got, not what the rings took. */
	k.captured = c->sent;
	clock_gettime(CLOCK_REALTIME, &ts);
	c->out_len = capture_fmt_tail(c->args.fmt, &k,
				      (uint64_t)ts.tv_sec * 1000000000ULL +
				      (uint64_t)ts.tv_nsec, c->out,
				      CTL_CAPTURE_OUT);
	c->out_off = 0;
	c->ending = true;
	c->deadline = now_ns() + CTL_CAPTURE_LINGER_NS;
}

/**
 * ctl_capture_drain() - one client's turn of the drain timer
 * @c:		the client
 */
static void ctl_capture_drain(struct ctl_capture *c)
{
	size_t moved = 0;
	int rc;

	for (;;) {
		rc = ctl_capture_flush(c);
		if (rc < 0) {
			ctl_capture_end(c, "client gone");
			return;
		}
		if (c->out_len)
			break;		/* the socket is full: next tick */
		if (c->ending) {
			ctl_capture_end(c, capture_gone(c->id) ? "port removed"
					: "count reached");
			return;
		}
		if (c->args.count && c->sent >= c->args.count) {
			ctl_capture_finish(c);
			continue;
		}
		if (moved >= CTL_CAPTURE_BUDGET)
			break;		/* others' turn */
		if (!ctl_capture_fill(c)) {
			if (capture_gone(c->id))
				ctl_capture_finish(c);
			else
				break;	/* the rings are empty */
			continue;
		}
		moved += c->out_len;
	}
	if (c->ending && now_ns() > c->deadline)
		ctl_capture_end(c, "client too slow to take the end");
}

/**
 * ctl_capture_on_timer() - the drain timer fired
 * @opaque:	unused
 * @fd:		the timerfd
 * @events:	unused
 */
static void ctl_capture_on_timer(void *opaque, int fd, uint32_t events)
{
	uint64_t expired;
	unsigned int i;

	if (read(fd, &expired, sizeof(expired)) != sizeof(expired))
		return;
	for (i = 0; i < CAPTURE_SESSIONS; i++)
		if (ctl_caps[i].used)
			ctl_capture_drain(&ctl_caps[i]);
}

/**
 * ctl_capture_on_client() - the client's socket: it hung up or wrote
 * @opaque:	its struct ctl_capture
 * @fd:		the socket
 * @events:	EPOLL* bits
 *
 * A client has nothing more to say after its filter: what it writes is
 * read and dropped, and end of file is the end of the capture.
 */
static void ctl_capture_on_client(void *opaque, int fd, uint32_t events)
{
	struct ctl_capture *c = opaque;
	char junk[256];
	ssize_t r;

	if (events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)) {
		ctl_capture_end(c, "client hung up");
		return;
	}
	r = recv(fd, junk, sizeof(junk), MSG_DONTWAIT);
	if (!r || (r < 0 && errno != EAGAIN && errno != EINTR))
		ctl_capture_end(c, "client hung up");
}

/**
 * ctl_capture_read_filter() - the instructions after the line
 * @fd:		client
 * @prog:	out: @n instructions
 * @n:		how many
 * @deadline:	now_ns() value after which we give up
 * Return: 0, or -errno
 */
static int ctl_capture_read_filter(int fd, struct bpf_insn *prog,
				   unsigned int n, uint64_t deadline)
{
	uint8_t *p = (uint8_t *)prog;
	size_t want = (size_t)n * sizeof(*prog), got = 0;

	while (got < want) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns();
		ssize_t r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1));
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		r = recv(fd, p + got, want - got, MSG_DONTWAIT);
		if (!r)
			return -ECONNRESET;
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		got += (size_t)r;
	}
	return 0;
}

/**
 * ctl_capture_reply() - the one JSON line before the stream
 * @fd:		client
 * @s:		the line
 * @deadline:	now_ns() value after which we give up
 * Return: 0 or -errno
 */
static int ctl_capture_reply(int fd, const char *s, uint64_t deadline)
{
	size_t len = strlen(s), off = 0;

	while (off < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		uint64_t now = now_ns();
		ssize_t r;

		if (now >= deadline)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)((deadline - now) / 1000000 + 1));
		if (r <= 0)
			continue;
		r = send(fd, s + off, len - off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		off += (size_t)r;
	}
	return 0;
}

/**
 * ctl_capture_fail() - an error line, then close
 * @fd:		client
 * @msg:	the error
 * @deadline:	for the write
 */
static void ctl_capture_fail(int fd, const char *msg, uint64_t deadline)
{
	struct ctl_buf b = { 0 };

	ctl_printf(&b, "{\"error\":");
	ctl_json_str(&b, msg);
	ctl_printf(&b, "}\n");
	/* A filter that never came used the deadline up: the error line
	 * gets a moment of its own.
	 */
	if (now_ns() + CTL_CAPTURE_ERR_NS > deadline)
		deadline = now_ns() + CTL_CAPTURE_ERR_NS;
	if (b.p)
		ctl_capture_reply(fd, b.p, deadline);
	free(b.p);
	close(fd);
}

/**
 * ctl_capture_start() - a live daemon's "capture" line (see the DOC)
 * @fd:		the client; ours from now on (closed on any failure)
 * @arg:	the command's argument
 * @deadline:	now_ns() by which the filter and the reply must pass
 *
 * Context: control thread
 */
void ctl_capture_start(int fd, const char *arg, uint64_t deadline)
{
	struct bpf_insn *prog = NULL;
	struct ctl_capture_args a;
	struct ctl_capture *c = NULL;
	char msg[CTL_LINE_MAX];
	unsigned int i;
	size_t hl;
	int rc, id;

	if (ctl_capture_parse(arg, &a, msg, sizeof(msg)) < 0)
		goto fail;
	for (i = 0; i < CAPTURE_SESSIONS && !c; i++)
		if (!ctl_caps[i].used)
			c = &ctl_caps[i];
	if (!c || ctl_capture_timer < 0) {
		snprintf(msg, sizeof(msg), "capture: %d captures run already",
			 CAPTURE_SESSIONS);
		goto fail;
	}
	if (a.insns) {
		prog = calloc(a.insns, sizeof(*prog));
		if (!prog) {
			snprintf(msg, sizeof(msg), "capture: out of memory");
			goto fail;
		}
		rc = ctl_capture_read_filter(fd, prog, a.insns, deadline);
		if (rc < 0) {
			snprintf(msg, sizeof(msg), "capture: filter of %u "
				 "instructions not received: %s", a.insns,
				 strerror(-rc));
			goto fail;
		}
		if (!capture_filter_ok(prog, a.insns)) {
			snprintf(msg, sizeof(msg), "capture: the filter is not "
				 "a valid BPF program");
			goto fail;
		}
	}
	c->out = malloc(CTL_CAPTURE_OUT);
	if (!c->out) {
		snprintf(msg, sizeof(msg), "capture: out of memory");
		goto fail;
	}
	hl = capture_fmt_head(a.fmt, a.name, a.snaplen, c->out,
			      CTL_CAPTURE_OUT);
	id = capture_open(a.port, a.dirs, a.snaplen, a.buf,
			  1 + worker_count_get(), prog, a.insns);
	if (id < 0) {
		snprintf(msg, sizeof(msg), "capture: %s", strerror(-id));
		goto fail_out;
	}
	snprintf(msg, sizeof(msg), "{\"ok\":true,\"capture\":{\"port\":\"%s\","
		 "\"dir\":\"%s\",\"snaplen\":%u,\"format\":\"%s\"}}\n", a.name,
		 a.dirs == CAPTURE_RX ? "rx" : a.dirs == CAPTURE_TX ? "tx" :
		 "both", a.snaplen, a.fmt == CAPTURE_PCAP ? "pcap" : "pcapng");
	rc = ctl_capture_reply(fd, msg, deadline);
	if (rc == 0)
		rc = evloop_add(fd, EPOLLIN | EPOLLRDHUP, ctl_capture_on_client,
				c);
	if (rc < 0) {
		capture_stop(id);
		worker_quiesce();
		capture_close(id);
		free(c->out);
		c->out = NULL;
		free(prog);
		close(fd);
		return;
	}
	free(prog);
	c->used = true;
	c->id = id;
	c->fd = fd;
	c->args = a;
	c->out_len = hl;
	c->out_off = 0;
	ctl_capture_live++;
	ctl_capture_arm();
	info("capture on %s started: dir %s, snaplen %u, %u filter "
	     "instructions", a.name, a.dirs == CAPTURE_RX ? "rx" :
	     a.dirs == CAPTURE_TX ? "tx" : "both", a.snaplen, a.insns);
	return;
fail_out:
	free(c->out);
	c->out = NULL;
fail:
	free(prog);
	ctl_capture_fail(fd, msg, deadline);
}

/**
 * ctl_cmd_captures() - "captures": the running captures (JSON)
 * @b:		reply
 * @arg:	unused
 * Return: 0
 */
int ctl_cmd_captures(struct ctl_buf *b, const char *arg)
{
	unsigned int i, n = 0;

	ctl_printf(b, "[");
	for (i = 0; i < CAPTURE_SESSIONS; i++) {
		const struct ctl_capture *c = &ctl_caps[i];
		struct capture_counts k;

		if (!c->used)
			continue;
		capture_counts_get(c->id, &k);
		ctl_printf(b, "%s{\"port\":", n++ ? "," : "");
		ctl_json_str(b, c->args.name);
		ctl_printf(b, ",\"dir\":\"%s\",\"snaplen\":%u,\"format\":\"%s\","
			   "\"filter_insns\":%u,\"count\":%llu,\"seen\":%llu,"
			   "\"captured\":%llu,\"filtered\":%llu,"
			   "\"dropped\":%llu,\"sent\":%llu}",
			   c->args.dirs == CAPTURE_RX ? "rx" :
			   c->args.dirs == CAPTURE_TX ? "tx" : "both",
			   c->args.snaplen,
			   c->args.fmt == CAPTURE_PCAP ? "pcap" : "pcapng",
			   c->args.insns, (unsigned long long)c->args.count,
			   (unsigned long long)k.seen,
			   (unsigned long long)k.captured,
			   (unsigned long long)k.filtered,
			   (unsigned long long)k.dropped,
			   (unsigned long long)c->sent);
	}
	ctl_printf(b, "]\n");
	return 0;
}

/**
 * ctl_capture_init() - the drain timer (start-up, before the sandbox)
 * Return: 0 or -errno
 */
int ctl_capture_init(void)
{
	int fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	int rc;

	if (fd < 0)
		return -errno;
	rc = evloop_add(fd, EPOLLIN, ctl_capture_on_timer, NULL);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	ctl_capture_timer = fd;
	return 0;
}

/**
 * ctl_capture_fini() - end every capture (shutdown, workers stopped)
 */
void ctl_capture_fini(void)
{
	unsigned int i;

	for (i = 0; i < CAPTURE_SESSIONS; i++)
		if (ctl_caps[i].used)
			ctl_capture_end(&ctl_caps[i], "vhostd stopping");
	if (ctl_capture_timer >= 0) {
		evloop_del(ctl_capture_timer);
		close(ctl_capture_timer);
		ctl_capture_timer = -1;
	}
}
