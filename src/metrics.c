// SPDX-License-Identifier: GPL-2.0-or-later
/* metrics.c - --metrics ADDR:PORT: the Prometheus exposition over HTTP
 *
 * DOC: Theory of Operation
 *
 * One listening TCP socket, bound to the numeric address --metrics names
 * (loopback, as a rule), served by libmicrohttpd: GET or HEAD /metrics
 * answers the bytes "vhostctl metrics" prints (ctl_prom.c is the one
 * renderer), any other path 404, any other method 405.
 *
 * Threads.  libmicrohttpd runs one thread of its own
 * (MHD_USE_INTERNAL_POLLING_THREAD over epoll): it accepts, parses and
 * writes every connection, non-blocking, and enforces the limits below.
 * It never reads the port table: the exposition walks structures the
 * control thread owns and changes (port add/del), so the HTTP thread asks
 * the control thread for it.  It bumps a request number and writes an
 * eventfd in the control thread's event loop; the control thread renders
 * with ctl_exec("metrics"), exactly as for a ctl client, and hands the
 * buffer over under a mutex; the HTTP thread waits for it at most
 * METRICS_WAIT_MS (the control thread may be serving a slow ctl client,
 * up to 500 ms each) and answers 503 after that.  A rendering answers
 * every request of the next METRICS_FRESH_NS too, so that clients asking
 * in a loop cost the control thread ten renderings a second at most.
 * The control thread
 * never waits for the HTTP thread: it holds the mutex only to swap a
 * pointer.  The workers are not involved at all: their counters are read
 * as ctl reads them (stats.h, worker_info_get()).
 *
 * Privileges and the sandbox.  The socket is made, bound and listening
 * at start-up (metrics_open(), still root: a port below 1024 works); the
 * thread starts after priv_drop() and before the seccomp filter
 * (metrics_start(), from main_lockdown()): it runs as --user with no
 * capability, and the filter covers it (TSYNC).  At run time it makes
 * only calls on fds it has (strace of GET, HEAD, 404, 405 and a silent
 * client's timeout): epoll_wait, epoll_ctl, accept4, recvfrom, sendmsg,
 * setsockopt (TCP_NODELAY), shutdown, close, read and write (its own
 * inter-thread eventfd; ours), futex; every one was on the list already.
 * Never socket(), bind() or listen() for a network family (sandbox.c
 * allows AF_UNIX sockets only).
 *
 * What a client can do (doc/security.md): hold one of
 * METRICS_CONN_MAX connections, at most METRICS_PER_IP of them per source
 * address, each for METRICS_TIMEOUT_S of silence; send a request of at
 * most METRICS_POOL bytes of headers.  Past the per-IP limit a connection
 * is closed at accept; past the global one the socket's backlog waits.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>
#include <microhttpd.h>

#include "ctl.h"
#include "evloop.h"
#include "log.h"
#include "metrics.h"
#include "util.h"

#define METRICS_CONN_MAX	16	/* connections at once */
#define METRICS_PER_IP		8	/* of them from one source address */
#define METRICS_TIMEOUT_S	5	/* a silent connection is closed */
#define METRICS_POOL		(16U << 10)	/* request headers, bytes */
#define METRICS_BACKLOG		16
#define METRICS_WAIT_MS		2000	/* for the control thread to render */
/* A rendering younger than this answers the next request too: however
 * fast clients ask, the control thread renders at most 10 times a
 * second for them (a scrape every few seconds never notices).
 */
#define METRICS_FRESH_NS	100000000ULL
#define METRICS_PATH		"/metrics"
#define METRICS_TYPE		"text/plain; version=0.0.4; charset=utf-8"

/**
 * struct metrics_xchg - one exposition handed from the control thread to
 *			 the HTTP thread
 * @lock:	protects the rest
 * @cond:	@done moved (CLOCK_MONOTONIC)
 * @asked:	requests made (HTTP thread)
 * @done:	the request @text answers (control thread)
 * @text:	the exposition (malloc'd), or NULL; whoever takes it frees it
 * @len:	its length
 * @stopping:	shutdown: no more waiting
 */
struct metrics_xchg {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint64_t asked;
	uint64_t done;
	char *text;
	size_t len;
	bool stopping;
};

static struct metrics_xchg metrics_x = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
};
static int metrics_lfd = -1;	/* listening socket, until MHD owns it */
static int metrics_efd = -1;	/* HTTP thread -> control thread */
static struct MHD_Daemon *metrics_d;

/**
 * struct metrics_cache - the last exposition served (HTTP thread only)
 * @text:	malloc'd, or NULL
 * @len:	its length
 * @at_ns:	now_ns() when it was asked for
 */
static struct metrics_cache {
	char *text;
	size_t len;
	uint64_t at_ns;
} metrics_cache;

/**
 * metrics_on_ask() - the HTTP thread wants an exposition: render it
 * @opaque:	unused
 * @fd:		metrics_efd
 * @events:	unused
 *
 * Context: control thread.  Renders at most once per wakeup, for the
 * latest request; one nobody waits for any more is freed by the next.
 */
static void metrics_on_ask(void *opaque, int fd, uint32_t events)
{
	char *text = NULL, *old;
	size_t len = 0;
	eventfd_t v;
	uint64_t want;

	if (eventfd_read(fd, &v) < 0)
		return;
	pthread_mutex_lock(&metrics_x.lock);
	want = metrics_x.asked;
	pthread_mutex_unlock(&metrics_x.lock);
	if (ctl_exec("metrics", &text, &len) < 0) {
		free(text);	/* an error object, not an exposition */
		text = NULL;
	}
	pthread_mutex_lock(&metrics_x.lock);
	old = metrics_x.text;
	metrics_x.text = text;
	metrics_x.len = len;
	metrics_x.done = want;
	pthread_cond_broadcast(&metrics_x.cond);
	pthread_mutex_unlock(&metrics_x.lock);
	free(old);
}

/**
 * metrics_fetch() - ask the control thread for the exposition and wait
 * @len:	set to its length
 * Return: the malloc'd text (the caller owns it), or NULL when the
 *	   control thread did not answer in METRICS_WAIT_MS (or is stopping)
 *
 * Context: HTTP thread.
 */
static char *metrics_fetch(size_t *len)
{
	struct timespec dl;
	char *text = NULL;
	uint64_t gen;
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_sec += METRICS_WAIT_MS / 1000;
	dl.tv_nsec += (METRICS_WAIT_MS % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&metrics_x.lock);
	gen = ++metrics_x.asked;
	pthread_mutex_unlock(&metrics_x.lock);
	if (eventfd_write(metrics_efd, 1) < 0)
		return NULL;
	pthread_mutex_lock(&metrics_x.lock);
	while (metrics_x.done < gen && !metrics_x.stopping && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&metrics_x.cond, &metrics_x.lock,
					    &dl);
	if (metrics_x.done >= gen && metrics_x.text) {
		text = metrics_x.text;
		*len = metrics_x.len;
		metrics_x.text = NULL;
	}
	pthread_mutex_unlock(&metrics_x.lock);
	return text;
}

/**
 * metrics_reply() - queue a response
 * @c:		connection
 * @status:	HTTP status
 * @body:	bytes: static, or the cache's (MHD copies them)
 * @len:	their count
 * @type:	Content-Type
 * Return: MHD_YES, or MHD_NO (MHD closes the connection)
 */
static enum MHD_Result metrics_reply(struct MHD_Connection *c,
				     unsigned int status, char *body,
				     size_t len, const char *type)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body,
					    body == metrics_cache.text ?
					    MHD_RESPMEM_MUST_COPY :
					    MHD_RESPMEM_PERSISTENT);
	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/**
 * metrics_on_request() - MHD's access handler: one request
 * @cls:	unused
 * @c:		connection
 * @url:	path, without the query
 * @method:	request method
 * @version:	unused
 * @upload:	unused: a body is never read (the reply goes first)
 * @upload_len:	unused
 * @req_cls:	unused
 * Return: MHD_YES, or MHD_NO to close the connection
 *
 * Context: HTTP thread.  Whatever the client sent, the answer is one
 * of four; nothing the client sends reaches anything but this switch.
 */
static enum MHD_Result metrics_on_request(void *cls, struct MHD_Connection *c,
					  const char *url, const char *method,
					  const char *version,
					  const char *upload,
					  size_t *upload_len, void **req_cls)
{
	static char not_found[] = "not found: try " METRICS_PATH "\n";
	static char not_allowed[] = "method not allowed: GET or HEAD\n";
	static char busy[] = "vhostd is busy: try again\n";
	uint64_t now = now_ns();
	char *text;
	size_t len = 0;

	if (strcmp(url, METRICS_PATH))
		return metrics_reply(c, MHD_HTTP_NOT_FOUND, not_found,
				     sizeof(not_found) - 1,
				     "text/plain; charset=utf-8");
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return metrics_reply(c, MHD_HTTP_METHOD_NOT_ALLOWED,
				     not_allowed, sizeof(not_allowed) - 1,
				     "text/plain; charset=utf-8");
	if (!metrics_cache.text ||
	    now - metrics_cache.at_ns >= METRICS_FRESH_NS) {
		text = metrics_fetch(&len);
		if (!text)
			return metrics_reply(c, MHD_HTTP_SERVICE_UNAVAILABLE,
					     busy, sizeof(busy) - 1,
					     "text/plain; charset=utf-8");
		free(metrics_cache.text);
		metrics_cache = (struct metrics_cache){ text, len, now };
	}
	return metrics_reply(c, MHD_HTTP_OK, metrics_cache.text,
			     metrics_cache.len, METRICS_TYPE);
}

/**
 * metrics_log() - libmicrohttpd's messages, at debug level (a client's
 *		   bad request is not the operator's problem)
 * @cls:	unused
 * @fmt:	printf format
 * @ap:		arguments
 */
__attribute__((format(printf, 2, 0)))
static void metrics_log(void *cls, const char *fmt, va_list ap)
{
	char line[256];
	size_t n;

	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	debug("metrics: %s", line);
}

/**
 * metrics_open() - bind and listen on @a; the control thread's side
 * @a:		numeric address and port (AF_INET or AF_INET6)
 * Return: 0 or -errno (-EADDRINUSE: another process has it)
 *
 * Context: start-up, before priv_drop().
 */
int metrics_open(const union port_addr *a)
{
	pthread_condattr_t ca;
	socklen_t sl = a->sa.sa_family == AF_INET6 ?
		       sizeof(a->in6) : sizeof(a->in4);
	int one = 1, rc;

	if (a->sa.sa_family != AF_INET && a->sa.sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	/* The Date header's gmtime_r() reads the time zone once: here,
	 * while files can still be opened, not under the filter (which
	 * fails the open with EACCES, sandbox.c).
	 */
	tzset();
	if (pthread_condattr_init(&ca) ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&metrics_x.cond, &ca))
		return -ENOMEM;
	pthread_condattr_destroy(&ca);
	metrics_lfd = socket(a->sa.sa_family,
			     SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (metrics_lfd < 0)
		return -errno;
	/* A restart must not wait for the last run's TIME_WAITs; and
	 * [::]:PORT means IPv6 only (an IPv4 address is its own option).
	 */
	if (setsockopt(metrics_lfd, SOL_SOCKET, SO_REUSEADDR, &one,
		       sizeof(one)) < 0 ||
	    (a->sa.sa_family == AF_INET6 &&
	     setsockopt(metrics_lfd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
			sizeof(one)) < 0) ||
	    bind(metrics_lfd, &a->sa, sl) < 0 ||
	    listen(metrics_lfd, METRICS_BACKLOG) < 0)
		goto err;
	metrics_efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (metrics_efd < 0)
		goto err;
	rc = evloop_add(metrics_efd, EPOLLIN, metrics_on_ask, NULL);
	if (rc < 0) {
		close(metrics_efd);
		metrics_efd = -1;
		close(metrics_lfd);
		metrics_lfd = -1;
		return rc;
	}
	return 0;
err:
	rc = -errno;
	if (metrics_efd >= 0)
		close(metrics_efd);
	metrics_efd = -1;
	close(metrics_lfd);
	metrics_lfd = -1;
	return rc;
}

/**
 * metrics_start() - start libmicrohttpd's thread on the socket
 * Return: 0, or -EIO (libmicrohttpd refused; its reason is logged at
 *	   debug level)
 *
 * Context: start-up, after priv_drop(), before sandbox_install(); a
 * no-op without metrics_open().
 */
int metrics_start(void)
{
	if (metrics_lfd < 0)
		return 0;
	metrics_d = MHD_start_daemon(
		MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
		MHD_USE_ERROR_LOG, 0, NULL, NULL, metrics_on_request, NULL,
		MHD_OPTION_EXTERNAL_LOGGER, metrics_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, metrics_lfd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_CONN_MAX,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT,
		(unsigned int)METRICS_PER_IP,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_POOL,
		MHD_OPTION_END);
	if (!metrics_d)
		return -EIO;
	metrics_lfd = -1;	/* MHD's now: MHD_stop_daemon() closes it */
	return 0;
}

/**
 * metrics_close() - stop serving, free what is left
 *
 * Context: shutdown, control thread (which renders no more): a request
 * waiting for it is answered 503 at once.
 */
void metrics_close(void)
{
	if (metrics_efd < 0 && metrics_lfd < 0 && !metrics_d)
		return;		/* no --metrics */
	pthread_mutex_lock(&metrics_x.lock);
	metrics_x.stopping = true;
	pthread_cond_broadcast(&metrics_x.cond);
	pthread_mutex_unlock(&metrics_x.lock);
	if (metrics_d)
		MHD_stop_daemon(metrics_d);
	metrics_d = NULL;
	if (metrics_lfd >= 0)
		close(metrics_lfd);
	metrics_lfd = -1;
	if (metrics_efd >= 0) {
		evloop_del(metrics_efd);
		close(metrics_efd);
	}
	metrics_efd = -1;
	free(metrics_x.text);
	metrics_x.text = NULL;
	free(metrics_cache.text);	/* the HTTP thread has ended */
	metrics_cache.text = NULL;
}
