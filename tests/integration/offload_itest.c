// SPDX-License-Identifier: GPL-2.0-or-later
/* offload_itest.c - virtio-net offloads end to end, through a running vhostd
 *
 *   offload_itest matrix   SOCK_A SOCK_B0 ... SOCK_B7
 *   offload_itest negative SOCK_A SOCK_A2 SOCK_A3 SOCK_B SOCK_C
 *   offload_itest fuzz     SOCK_A SOCK_B SOCK_C
 *   offload_itest tap      IFNAME SOCK_A SOCK_B      (inside the netns)
 *
 * vdrv guests send TSO/USO/NEEDS_CSUM frames through vhostd and other vdrv
 * guests (or the kernel behind a TAP) receive them.  Every produced frame
 * is PARSED here, by code that shares nothing with vhostd (src/ is not
 * included): IPv4 header checksum, lengths, the TCP/UDP checksum over the
 * pseudo header -- complete when the receiver has no GUEST_CSUM; with
 * NEEDS_CSUM, csum_start/csum_offset must name the L4 checksum field and
 * completing it as the virtio spec says must give a correct frame -- and,
 * for software segments, everything against the original frame: headers
 * copied, IPv4 id + k, TCP sequence continuity, CWR only on the first,
 * FIN/PSH only on the last segment, payload <= gso_size and the payloads
 * concatenated equal to the original.
 *
 * What the destination must get is derived here from doc/offloads.md's
 * decision table and the features the receiver actually negotiated:
 * the frame whole with its header, the checksum completed, or segments
 * with partial or full checksums.
 *
 * Output: "ok   CASE -> RECEIVER: what" or "FAIL CASE -> RECEIVER: why",
 * "COUNTER PORT FIELD VALUE" lines for the runner to check with vhostctl;
 * exit 0 only if every case passed.
 *
 * The parts live in offload_itest/ (see offload_itest.h there); this
 * file holds the results and main().
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "offload_itest/offload_itest.h"

const char *const ot_act_names[] = {
	"plain", "pass whole", "checksum completed",
	"segmented, partial csum", "segmented, full csum", "dropped",
};

struct ot_port ot_ports[OT_PORTS_MAX];
struct ot_frame ot_f;
uint8_t ot_rxbuf[OT_FRAME_MAX], ot_scratch[OT_FRAME_MAX];
unsigned int ot_failed, ot_passed;
char ot_why[256];

/**
 * ot_ms() - monotonic ms
 * Return: ms
 */
int64_t ot_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/**
 * ot_fatal() - setup failure: report and exit 1
 * @fmt:	printf format
 */
void __attribute__((format(printf, 1, 2), noreturn))
ot_fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("FAIL setup: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	exit(1);
}

/**
 * ot_err() - record why a check failed (first reason wins)
 * @fmt:	printf format
 * Return: false, for "return ot_err(...)"
 */
bool __attribute__((format(printf, 1, 2))) ot_err(const char *fmt, ...)
{
	va_list ap;

	if (ot_why[0])
		return false;
	va_start(ap, fmt);
	vsnprintf(ot_why, sizeof(ot_why), fmt, ap);
	va_end(ap);
	return false;
}

/**
 * ot_report() - print one case's result and count it
 * @ok:		passed
 * @cas:	case name
 * @rcv:	receiver name
 * @what:	detail on success
 */
void ot_report(bool ok, const char *cas, const char *rcv,
	       const char *what)
{
	if (ok) {
		ot_passed++;
		printf("ok   %-22s -> %-12s %s\n", cas, rcv, what);
	} else {
		ot_failed++;
		printf("FAIL %-22s -> %-12s %s\n", cas, rcv,
		       ot_why[0] ? ot_why : "?");
	}
	ot_why[0] = '\0';
}

/**
 * main() - run one scenario
 * @argc:	count
 * @argv:	SCENARIO ARGS...
 * Return: 0 all passed, 1 a failure, 2 usage
 */
int main(int argc, char **argv)
{
	const char *sc;

	if (argc < 3) {
		fprintf(stderr, "usage: offload_itest matrix|negative|tap ARGS...\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	sc = argv[1];
	if (getenv("OT_MUTATE")) {
		for (ot_mut = OT_MUT_COUNT - 1; ot_mut; ot_mut--)
			if (!strcmp(getenv("OT_MUTATE"), ot_mut_names[ot_mut]))
				break;
		if (!ot_mut)
			fprintf(stderr, "unknown OT_MUTATE, none applied\n");
	}
	if (!strcmp(sc, "matrix"))
		sc_matrix(argv + 2, (unsigned int)(argc - 2));
	else if (!strcmp(sc, "negative"))
		sc_negative(argv + 2, (unsigned int)(argc - 2));
	else if (!strcmp(sc, "fuzz"))
		sc_fuzz(argv + 2, (unsigned int)(argc - 2));
	else if (!strcmp(sc, "tap"))
		sc_tap(argv + 2, (unsigned int)(argc - 2));
	else {
		fprintf(stderr, "unknown scenario %s\n", sc);
		return 2;
	}
	/* Every device, looked at or not, must have kept the virtio rules. */
	if (vdrv_dev_errors_freed()) {
		printf("FAIL device: %llu virtio rules broken\n",
		       (unsigned long long)vdrv_dev_errors_freed());
		ot_failed++;
	}
	printf("%u passed, %u failed\n", ot_passed, ot_failed);
	return ot_failed ? 1 : 0;
}
