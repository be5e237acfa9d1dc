// SPDX-License-Identifier: GPL-2.0-or-later
/* memcpy_bw.c - memcpy bandwidth of one core: the ceiling of a copying switch
 *
 * A vhost-user back end moves every byte once, from the sender's guest
 * memory into the receiver's, on one forwarding core.  So one core's
 * memcpy rate is the physical ceiling of single-queue forwarding.  We
 * measure it twice: with buffers far larger than the caches (the honest
 * DRAM ceiling) and with a 1 MiB working set (hot rings recycle buffers,
 * so forwarding can beat the DRAM figure).  Bytes copied per second are
 * reported (each byte is read once and written once).
 *
 *   memcpy_bw [--mib N] [--seconds S]
 *
 * Output: one "RESULT mode=memcpy ..." line per working set.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/**
 * now_s() - monotonic time in seconds
 * Return: seconds
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/**
 * measure() - copy @size bytes back and forth for about @seconds
 * @size:	working set per buffer
 * @seconds:	how long
 * Return: bytes copied per second, or a negative value without memory
 */
static double measure(size_t size, double seconds)
{
	char *a = malloc(size), *b = malloc(size);
	double t0, t, bytes = 0;
	volatile char sink;

	if (!a || !b) {
		free(a);
		free(b);
		return -1;
	}
	/* Touch every page first: we measure copying, not page faults. */
	memset(a, 0x5a, size);
	memset(b, 0xa5, size);
	memcpy(b, a, size);
	t0 = now_s();
	do {
		memcpy(b, a, size);
		memcpy(a, b, size);
		bytes += 2.0 * (double)size;
		t = now_s();
	} while (t - t0 < seconds);
	sink = a[size / 2] ^ b[size / 3];
	(void)sink;
	free(a);
	free(b);
	return bytes / (t - t0);
}

/**
 * main() - parse options, print one RESULT line per working set
 * @argc:	argument count
 * @argv:	arguments
 * Return: 0, 1 without memory, 2 on usage errors
 */
int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "mib", required_argument, NULL, 'm' },
		{ "seconds", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 },
	};
	size_t sizes[2] = { 256u << 20, 1u << 20 };
	double seconds = 1.0;
	int c, i;

	while ((c = getopt_long(argc, argv, "m:s:", lo, NULL)) != -1) {
		switch (c) {
		case 'm':
			sizes[0] = (size_t)strtoul(optarg, NULL, 0) << 20;
			break;
		case 's':
			seconds = strtod(optarg, NULL);
			break;
		default:
			fprintf(stderr, "usage: memcpy_bw [--mib N] [--seconds S]\n");
			return 2;
		}
	}
	if (!sizes[0] || seconds <= 0) {
		fprintf(stderr, "memcpy_bw: --mib and --seconds must be > 0\n");
		return 2;
	}
	for (i = 0; i < 2; i++) {
		double bw = measure(sizes[i], seconds);

		if (bw < 0) {
			fprintf(stderr, "memcpy_bw: %s\n", strerror(ENOMEM));
			return 1;
		}
		printf("RESULT mode=memcpy set=%s bytes=%zu gbytes_s=%.2f gbit_s=%.1f\n",
		       i ? "cache" : "dram", sizes[i], bw / 1e9, bw * 8 / 1e9);
	}
	return 0;
}
