// SPDX-License-Identifier: GPL-2.0-or-later
/* c2c.c - cache-line round trip between two CPUs
 *
 * A vhost-user forwarder and its guests talk through shared rings: every
 * avail/used index update is a cache line moving from one core to the
 * other.  On a virtual machine the two vCPUs may sit on cores that share
 * a cache or on different chiplets, and the host may move them; that one
 * fact can change forwarding rates severalfold.  This probe measures it:
 * two threads, pinned to --cpu-a and --cpu-b, bounce a counter in one
 * cache line and report the mean round trip.  bench/run.sh runs it next
 * to every back-end run so results can be read against it.
 *
 *   c2c [--cpu-a N] [--cpu-b N] [--rounds N]
 *
 * Output: "RESULT mode=c2c ns_rt=..." (one line).
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
		{ NULL, 0, NULL, 0 },
	};
	static struct c2c c = { .rounds = 200000, .cpu_b = 1 };
	struct timespec t0, t1;
	int cpu_a = 0, o;
	pthread_t th;
	uint64_t i;
	double ns;

	while ((o = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (o) {
		case 'a': cpu_a = atoi(optarg); break;
		case 'b': c.cpu_b = atoi(optarg); break;
		case 'r': c.rounds = strtoull(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: c2c [--cpu-a N] [--cpu-b N] [--rounds N]\n");
			return 2;
		}
	}
	if (!c.rounds)
		return 2;
	if (pin(cpu_a) || pthread_create(&th, NULL, echo_thread, &c)) {
		fprintf(stderr, "c2c: cannot pin or start the echo thread\n");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < c.rounds; i++) {
		__atomic_store_n(&c.line, 2 * i + 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&c.line, __ATOMIC_ACQUIRE) != 2 * i + 2)
			;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(th, NULL);
	ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 +
	     (double)(t1.tv_nsec - t0.tv_nsec);
	printf("RESULT mode=c2c cpu_a=%d cpu_b=%d rounds=%llu ns_rt=%.0f\n",
	       cpu_a, c.cpu_b, (unsigned long long)c.rounds,
	       ns / (double)c.rounds);
	return 0;
}
