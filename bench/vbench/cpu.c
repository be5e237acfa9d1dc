// SPDX-License-Identifier: GPL-2.0-or-later
/* cpu.c - the forwarder's CPU time and run-queue waits, from /proc
 *
 * Sampled at the start and end of the measured window only: nothing
 * here runs per frame.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vbench.h"

/**
 * sched_wait() - nanoseconds a thread spent runnable but not running
 * @path:	its /proc/.../schedstat
 * Return: wait time, 0 if unknown
 *
 * Other jobs (teammates' builds, fuzzers, VMs) may share these CPUs; a
 * forwarder or bench thread that waits for a CPU measures that, not
 * itself.  The wait share is reported with every point.
 */
static uint64_t sched_wait(const char *path)
{
	unsigned long long run, wait = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	if (fscanf(f, "%llu %llu", &run, &wait) != 2)
		wait = 0;
	fclose(f);
	return wait;
}

/**
 * cpu_read() - utime+stime of every thread of @pid
 * @pid:	process
 * @c:		out
 * Return: 0 or -errno
 */
int cpu_read(int pid, struct vb_cpu *c)
{
	char path[64], line[512];
	struct dirent *de;
	DIR *dir;

	c->n = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((de = readdir(dir)) && c->n < VB_MAX_TIDS) {
		unsigned long long ut, st;
		char *s;
		FILE *f;
		int tid = atoi(de->d_name);

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", pid,
			 tid);
		f = fopen(path, "r");
		if (!f)
			continue;
		s = fgets(line, sizeof(line), f);
		fclose(f);
		/* The name may hold spaces and ')': fields follow the last
		 * ')'; utime and stime are the 12th and 13th after it.
		 */
		s = s ? strrchr(line, ')') : NULL;
		if (!s || sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
				 &ut, &st) != 2)
			continue;
		c->tid[c->n] = tid;
		c->ticks[c->n] = ut + st;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", pid,
			 tid);
		c->wait_ns[c->n] = sched_wait(path);
		c->n++;
	}
	closedir(dir);
	c->self_wait_ns = sched_wait("/proc/thread-self/schedstat");
	return c->n ? 0 : -ESRCH;
}

/**
 * cpu_delta() - CPU seconds between two samples
 * @a:		earlier sample
 * @b:		later sample
 * @busiest:	out: CPU seconds of the forwarding thread (the one that ran
 *		or waited to run the longest)
 * @tid:	out: its id
 * @wait:	out: seconds it waited for a CPU
 * Return: seconds of all threads together
 */
double cpu_delta(const struct vb_cpu *a, const struct vb_cpu *b,
		 double *busiest, int *tid, double *wait)
{
	double hz = (double)sysconf(_SC_CLK_TCK), total = 0, best = 0, w;
	int i, j;

	*busiest = 0;
	*tid = 0;
	*wait = 0;
	for (i = 0; i < b->n; i++) {
		uint64_t before = 0, wbefore = 0;
		double s;

		for (j = 0; j < a->n; j++)
			if (a->tid[j] == b->tid[i]) {
				before = a->ticks[j];
				wbefore = a->wait_ns[j];
			}
		s = (double)(b->ticks[i] - before) / hz;
		w = (double)(b->wait_ns[i] - wbefore) / 1e9;
		total += s;
		/* The forwarding thread wants the CPU all the time: running
		 * or, when others take it, waiting for it.
		 */
		if (s + w > best) {
			best = s + w;
			*busiest = s;
			*tid = b->tid[i];
			*wait = w;
		}
	}
	return total;
}

/**
 * wait_pct() - run-queue wait of the forwarder and the bench, in percent
 * @a:		earlier sample
 * @b:		later sample
 * @fwd_wait:	forwarder thread's wait, seconds (from cpu_delta())
 * @win:	seconds between the samples
 * @bench:	out: the bench thread's wait share, percent
 * Return: the forwarder thread's wait share, percent
 */
double wait_pct(const struct vb_cpu *a, const struct vb_cpu *b,
		double fwd_wait, double win, double *bench)
{
	if (win <= 0) {
		*bench = 0;
		return 0;
	}
	*bench = 100.0 * (double)(b->self_wait_ns - a->self_wait_ns) / 1e9 /
		 win;
	return 100.0 * fwd_wait / win;
}

/**
 * cpu_hz() - nominal core clock from /proc/cpuinfo
 * Return: Hz, 0 if unknown
 */
double cpu_hz(void)
{
	char line[256];
	double mhz = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "cpu MHz : %lf", &mhz) == 1)
			break;
	fclose(f);
	return mhz * 1e6;
}
