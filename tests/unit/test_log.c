// SPDX-License-Identifier: GPL-2.0-or-later
/* test_log.c - the per-source log rate limit (log.c)
 *
 * The bucket is driven with injected times (log_src_admit()), against
 * the budget log.h states: LOG_SRC_BURST at once, then one per
 * LOG_SRC_INTERVAL_NS.  The printing side (log_src_msg(),
 * log_src_flush()) is checked by reading back what it wrote to stderr,
 * redirected into a pipe; there the clock is real, so time is moved by
 * shifting the bucket's state instead.
 */
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../src/log.h"

#define SEC	LOG_SRC_INTERVAL_NS
#define T0	(1000 * SEC)	/* an arbitrary "now", far from 0 */

/**
 * admit_n() - try @n messages at @now
 * @s:		source
 * @now:	time, ns
 * @n:		attempts
 * @supp:	out: sum of the suppressed counts handed back
 * Return: how many were admitted
 */
static unsigned int admit_n(struct log_src *s, uint64_t now, unsigned int n,
			    uint64_t *supp)
{
	unsigned int i, ok = 0;
	uint64_t x;

	*supp = 0;
	for (i = 0; i < n; i++) {
		if (log_src_admit(s, now, &x)) {
			ok++;
			*supp += x;
		}
	}
	return ok;
}

/* A full bucket lets the burst through, then exactly one per interval. */
static void test_bucket_burst_refill(void **state)
{
	struct log_src s;
	uint64_t supp;

	(void)state;
	log_src_init(&s, "t");
	assert_int_equal(admit_n(&s, T0, 100, &supp), LOG_SRC_BURST);
	assert_int_equal(supp, 0);
	/* Half an interval later: nothing new. */
	assert_int_equal(admit_n(&s, T0 + SEC / 2, 5, &supp), 0);
	/* One interval: one token, and it carries the 95 refusals. */
	assert_int_equal(admit_n(&s, T0 + SEC, 5, &supp), 1);
	assert_int_equal(supp, 90 + 5);
	assert_int_equal(admit_n(&s, T0 + 3 * SEC, 5, &supp), 2);
	assert_int_equal(supp, 4);
	/* A long silence refills to the burst, never beyond it. */
	assert_int_equal(admit_n(&s, T0 + 3600 * SEC, 100, &supp),
			 LOG_SRC_BURST);
}

/* A steady trickle below the rate is never refused. */
static void test_bucket_trickle(void **state)
{
	struct log_src s;
	unsigned int ok = 0;
	uint64_t supp, t;

	(void)state;
	log_src_init(&s, "t");
	for (t = T0; t < T0 + 100 * SEC; t += SEC + 1)
		assert_int_equal(admit_n(&s, t, 1, &supp), 1);
	/* A message every millisecond for 20 s: the burst, then one at each
	 * whole second after the first.
	 */
	log_src_init(&s, "t");
	for (t = T0; t < T0 + 20 * SEC; t += SEC / 1000)
		ok += log_src_admit(&s, t, &supp);
	assert_int_equal(ok, LOG_SRC_BURST + 20 - 1);
}

/* Two sources never share a bucket. */
static void test_bucket_independent(void **state)
{
	struct log_src a, b;
	uint64_t supp;

	(void)state;
	log_src_init(&a, "a");
	log_src_init(&b, "b");
	assert_int_equal(admit_n(&a, T0, 1000, &supp), LOG_SRC_BURST);
	assert_int_equal(admit_n(&b, T0, LOG_SRC_BURST, &supp),
			 LOG_SRC_BURST);
}

#define THREADS	4
#define TRIES	20000

/**
 * struct hammer - one thread's share of test_bucket_threads
 * @s:		shared source
 * @ok:		admitted
 * @supp:	suppressed counts handed back to this thread
 */
struct hammer {
	struct log_src *s;
	unsigned int ok;
	uint64_t supp;
};

static void *hammer_fn(void *arg)
{
	struct hammer *h = arg;

	h->ok = admit_n(h->s, T0, TRIES, &h->supp);
	return NULL;
}

/* Threads at once take distinct tokens; every refusal is counted once. */
static void test_bucket_threads(void **state)
{
	struct hammer h[THREADS];
	pthread_t th[THREADS];
	struct log_src s;
	unsigned int i, ok = 0;
	uint64_t supp = 0, left;

	(void)state;
	log_src_init(&s, "t");
	for (i = 0; i < THREADS; i++) {
		h[i].s = &s;
		assert_int_equal(pthread_create(&th[i], NULL, hammer_fn, &h[i]),
				 0);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(th[i], NULL);
		ok += h[i].ok;
		supp += h[i].supp;
	}
	assert_int_equal(ok, LOG_SRC_BURST);
	assert_true(log_src_admit(&s, T0 + SEC, &left));
	assert_int_equal(supp + left, THREADS * TRIES - LOG_SRC_BURST);
}

/* ---- what reaches stderr ---------------------------------------------- */

static int saved_stderr = -1;
static int cap_rd = -1;

/**
 * cap_start() - send stderr into a pipe
 */
static void cap_start(void)
{
	int p[2];

	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	assert_true(saved_stderr >= 0);
	assert_true(dup2(p[1], STDERR_FILENO) >= 0);
	close(p[1]);
	cap_rd = p[0];
}

/**
 * cap_stop() - restore stderr, return what was written (static buffer)
 * Return: captured text, NUL-terminated
 */
static const char *cap_stop(void)
{
	static char buf[65536];
	ssize_t n, len = 0;

	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	while ((n = read(cap_rd, buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += n;
	close(cap_rd);
	buf[len] = '\0';
	return buf;
}

/**
 * count() - occurrences of @needle in @hay
 * @hay:	text
 * @needle:	what to count
 * Return: count
 */
static unsigned int count(const char *hay, const char *needle)
{
	unsigned int n = 0;

	while ((hay = strstr(hay, needle))) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* A flood prints the burst; a refill prints the summary, then the line. */
static void test_msg_flood_summary(void **state)
{
	struct log_src a, b;
	const char *out;
	unsigned int i;

	(void)state;
	log_set_level(LOG_LVL_INFO);
	log_src_init(&a, "portA");
	log_src_init(&b, "portB");
	cap_start();
	for (i = 0; i < 500; i++)
		src_warn(&a, "portA: flood %u", i);
	src_info(&b, "portB: still heard");
	/* Below the level: neither printed nor charged. */
	for (i = 0; i < 50; i++)
		src_debug(&b, "portB: chatter");
	for (i = 1; i < LOG_SRC_BURST; i++)
		src_info(&b, "portB: line %u", i);
	/* One interval passes for A (its whole window moves back). */
	a.tat -= LOG_SRC_INTERVAL_NS;
	src_err(&a, "portA: after the refill");
	out = cap_stop();

	assert_int_equal(count(out, "portA: flood"), LOG_SRC_BURST);
	assert_int_equal(count(out, "portA: 490 messages suppressed\n"), 1);
	assert_int_equal(count(out, "portA: after the refill"), 1);
	assert_true(strstr(out, "suppressed") < strstr(out, "after the refill"));
	assert_int_equal(count(out, "portB:"), LOG_SRC_BURST);
	assert_int_equal(count(out, "chatter"), 0);
	assert_int_equal(count(out, "portB: 1"), 0);	/* no summary for B */
}

/* The tick prints a pending summary once a token is back, and only then. */
static void test_flush(void **state)
{
	struct log_src a;
	const char *out;
	unsigned int i;

	(void)state;
	log_set_level(LOG_LVL_INFO);
	log_src_init(&a, "portA");
	cap_start();
	log_src_flush(&a);			/* nothing pending */
	for (i = 0; i < LOG_SRC_BURST + 7; i++)
		src_info(&a, "portA: x");
	log_src_flush(&a);			/* pending, bucket empty */
	a.tat -= LOG_SRC_INTERVAL_NS;
	log_src_flush(&a);			/* refilled: summary */
	log_src_flush(&a);			/* nothing pending any more */
	out = cap_stop();
	assert_int_equal(count(out, "portA: x"), LOG_SRC_BURST);
	assert_int_equal(count(out, "suppressed"), 1);
	assert_int_equal(count(out, "portA: 7 messages suppressed\n"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_burst_refill),
		cmocka_unit_test(test_bucket_trickle),
		cmocka_unit_test(test_bucket_independent),
		cmocka_unit_test(test_bucket_threads),
		cmocka_unit_test(test_msg_flood_summary),
		cmocka_unit_test(test_flush),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
