// SPDX-License-Identifier: GPL-2.0-or-later
/* c2c.c - cache-line round trip between two CPUs
 *
 * A vhost-user forwarder and its guests talk through shared rings: every
 * avail/used index update is a cache line moving from one core to the
 * other.  On a virtual machine the two vCPUs may sit on cores that share
 * a cache or on different chiplets, and the host may move them; that one
 * fact can change forwarding rates severalfold.  This probe measures it:
 * two threads, pinned to --cpu-a and --cpu-b, bounce a counter in one
 * cache line and report the round trip.  bench/run.sh runs it just before
 * and just after every measured point (back end paused) and labels the
 * point by it, so results are compared placement for placement.
 *
 * The rounds are split into --chunks equal chunks (4000 round trips each
 * by default, well under a millisecond) and ns_rt is the smallest chunk
 * mean: other jobs on the machine preempt one of the two threads now and
 * then, and a chunk that is hit measures the scheduler, not the
 * placement; one clean chunk is enough to see the placement.  ns_med and
 * ns_max show how disturbed the rest was.
 *
 *   c2c [--cpu-a N] [--cpu-b N] [--rounds N] [--chunks N]
 *
 * Output: "RESULT mode=c2c ... ns_rt=... ns_med=... ns_max=..." (one line).
 */
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/**
 * struct c2c - the shared line and the thread's parameters
 * @line:	counter bounced between the threads (its own cache line)
 * @rounds:	round trips to do
 * @cpu_b:	CPU of the echoing thread
 */
struct c2c {
	_Alignas(64) volatile uint64_t line;
	_Alignas(64) uint64_t rounds;
	int cpu_b;
};

/**
 * pin() - bind the calling thread to one CPU
 * @cpu:	CPU number
 * Return: 0 or an error number
 */
static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/**
 * echo_thread() - answer every odd value with the next even one
 * @arg:	struct c2c
 * Return: NULL
 */
static void *echo_thread(void *arg)
{
	struct c2c *c = arg;
	uint64_t i;

	pin(c->cpu_b);
	for (i = 0; i < c->rounds; i++) {
		while (__atomic_load_n(&c->line, __ATOMIC_ACQUIRE) != 2 * i + 1)
			;
		__atomic_store_n(&c->line, 2 * i + 2, __ATOMIC_RELEASE);
	}
	return NULL;
}

/**
 * now_ns() - monotonic clock
 * Return: nanoseconds
 */
static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/**
 * cmp_double() - qsort comparator, ascending
 * @a:	first double
 * @b:	second double
 * Return: <0, 0 or >0
 */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/**
 * main() - parse, bounce, print
 * @argc:	argument count
 * @argv:	arguments
 * Return: 0, 1 on thread errors, 2 on usage errors
 */
int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "cpu-a", required_argument, NULL, 'a' },
		{ "cpu-b", required_argument, NULL, 'b' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "chunks", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	static struct c2c c = { .rounds = 200000, .cpu_b = 1 };
	double chunk_ns[256], med, t0;
	int cpu_a = 0, chunks = 50, o, k;
	uint64_t i, per, end;
	pthread_t th;

	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 'a': cpu_a = atoi(optarg); break;
		case 'b': c.cpu_b = atoi(optarg); break;
		case 'r': c.rounds = strtoull(optarg, NULL, 0); break;
		case 'c': chunks = atoi(optarg); break;
		default:
			fprintf(stderr, "usage: c2c [--cpu-a N] [--cpu-b N] [--rounds N] [--chunks N]\n");
			return 2;
		}
	}
	/* Every chunk needs rounds; at most as many as chunk_ns holds. */
	if (chunks < 1 || chunks > 256 || c.rounds < (uint64_t)chunks)
		return 2;
	per = c.rounds / (uint64_t)chunks;
	c.rounds = per * (uint64_t)chunks;
	if (pin(cpu_a) || pthread_create(&th, NULL, echo_thread, &c)) {
		fprintf(stderr, "c2c: cannot pin or start the echo thread\n");
		return 1;
	}
	for (k = 0, i = 0; k < chunks; k++) {
		t0 = now_ns();
		for (end = i + per; i < end; i++) {
			__atomic_store_n(&c.line, 2 * i + 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&c.line, __ATOMIC_ACQUIRE) != 2 * i + 2)
				;
		}
		chunk_ns[k] = (now_ns() - t0) / (double)per;
	}
	pthread_join(th, NULL);
	qsort(chunk_ns, (size_t)chunks, sizeof(chunk_ns[0]), cmp_double);
	med = chunks % 2 ? chunk_ns[chunks / 2] :
	      (chunk_ns[chunks / 2 - 1] + chunk_ns[chunks / 2]) / 2;
	printf("RESULT mode=c2c cpu_a=%d cpu_b=%d rounds=%llu chunks=%d ns_rt=%.0f ns_med=%.0f ns_max=%.0f\n",
	       cpu_a, c.cpu_b, (unsigned long long)c.rounds, chunks,
	       chunk_ns[0], med, chunk_ns[chunks - 1]);
	return 0;
}
