// SPDX-License-Identifier: GPL-2.0-or-later
/* vbench.c - traffic source and sink for the vhostd vs DPDK benchmark
 *
 * One process plays two guests on one thread: A only sends, B only
 * receives (and, for request/response, answers).  Whatever forwards
 * between the two vhost-user sockets -- vhostd or DPDK testpmd -- sees the
 * same guests, the same features and the same traffic.
 *
 *   vbench tput --a SOCK --b SOCK --size N|tso [options]
 *   (--packed: both guests use packed rings)
 *   vbench rr   --a SOCK --b SOCK --size N [options]
 *
 * Every number comes from frames B counted and checked: each data frame
 * carries a magic, a sequence number, its own length and a position
 * pattern; every frame's header part is checked, every 16th burst's first
 * frame is checked whole.  Frames are written into A's TX slots once and
 * only the sequence number is patched per send (vdrv_tx_burst_inplace()),
 * as a real guest's driver points descriptors at data instead of copying.
 *
 * --vlan-a VID, --vlan-b VID: that guest sends its frames with an 802.1Q
 * tag and wants them tagged back, as a guest's VLAN device behind a
 * trunk port does; a frame without the tag counts as bad.
 *
 * "tso" sends 64 KiB TCP/IPv4 frames with a virtio-net header asking for
 * segmentation (gso_size 1448) and checksum completion; B negotiates
 * GUEST_TSO4 and GUEST_CSUM so the frame may cross whole.
 *
 * CPU cost: with --fwd-pid, the forwarder's threads' utime+stime are read
 * from /proc at the start and end of the measured window; the busiest
 * thread is the forwarding thread.
 *
 * Output: one "RESULT key=value ..." line.  Exit 0 ok, 1 when the point
 * failed (nothing delivered, corrupt frames, device errors), 2 usage,
 * 3 not applicable (a feature the point needs was not offered).
 *
 * The parts live in vbench/ (see vbench.h there); this file holds the
 * command line and main().
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vbench/vbench.h"

const uint8_t mac_a[6] = { 0x02, 0x76, 0x62, 0, 0, 0x0a };
const uint8_t mac_b[6] = { 0x02, 0x76, 0x62, 0, 0, 0x0b };

/**
 * usage() - print the synopsis
 */
static void usage(void)
{
	fprintf(stderr,
		"usage: vbench tput|rr --a SOCK --b SOCK --size N|tso\n"
		"              [--seconds S] [--warmup-ms MS] [--fwd-pid PID]\n"
		"              [--queue N] [--burst N] [--label TEXT]\n"
		"              [--packed] [--vlan-a VID] [--vlan-b VID]\n");
}

/**
 * parse() - command line into a point
 * @argc:	argument count
 * @argv:	arguments
 * @cfg:	out
 * Return: 0, or -EINVAL
 */
static int parse(int argc, char **argv, struct vb_cfg *cfg)
{
	static const struct option lo[] = {
		{ "a", required_argument, NULL, 'a' },
		{ "b", required_argument, NULL, 'b' },
		{ "size", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "warmup-ms", required_argument, NULL, 'w' },
		{ "fwd-pid", required_argument, NULL, 'p' },
		{ "queue", required_argument, NULL, 'q' },
		{ "burst", required_argument, NULL, 'n' },
		{ "label", required_argument, NULL, 'l' },
		{ "packed", no_argument, NULL, 'P' },
		{ "vlan-a", required_argument, NULL, 'A' },
		{ "vlan-b", required_argument, NULL, 'B' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	if (argc < 2)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = argv[1];
	cfg->seconds = 2;
	cfg->warmup_ms = 300;
	cfg->queue = 1024;
	cfg->burst = 32;
	cfg->label = "-";
	if (strcmp(cfg->mode, "tput") && strcmp(cfg->mode, "rr"))
		return -EINVAL;
	optind = 2;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'a': cfg->a_path = optarg; break;
		case 'b': cfg->b_path = optarg; break;
		case 's':
			if (!strcmp(optarg, "tso")) {
				cfg->tso = true;
				cfg->size = VB_TSO_LEN;
			} else {
				cfg->size = (uint32_t)strtoul(optarg, NULL, 0);
			}
			break;
		case 't': cfg->seconds = strtod(optarg, NULL); break;
		case 'w': cfg->warmup_ms = atoi(optarg); break;
		case 'p': cfg->fwd_pid = atoi(optarg); break;
		case 'q': cfg->queue = (unsigned int)atoi(optarg); break;
		case 'n': cfg->burst = (unsigned int)atoi(optarg); break;
		case 'l': cfg->label = optarg; break;
		case 'P': cfg->packed = true; break;
		case 'A': cfg->vlan_a = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'B': cfg->vlan_b = (unsigned int)strtoul(optarg, NULL, 0); break;
		default: return -EINVAL;
		}
	}
	if (!cfg->a_path || !cfg->b_path || cfg->seconds <= 0 ||
	    cfg->size < 14 + sizeof(struct vb_tag) || cfg->size > VB_TSO_LEN ||
	    !cfg->burst || cfg->burst > 256 || cfg->warmup_ms < 0 ||
	    cfg->vlan_a > 4094 || cfg->vlan_b > 4094)
		return -EINVAL;
	if (cfg->tso && strcmp(cfg->mode, "tput"))
		return -EINVAL;
	return 0;
}

/**
 * main() - open both guests, prime the path, run one point, report
 * @argc:	argument count
 * @argv:	arguments
 * Return: 0 ok, 1 failed, 2 usage, 3 not applicable
 */
int main(int argc, char **argv)
{
	struct vdrv_dev *a = NULL, *b = NULL;
	struct vb_tx txa, txb;
	struct vb_cfg cfg;
	uint8_t *big;
	int rc;

	if (parse(argc, argv, &cfg)) {
		usage();
		return 2;
	}
	big = malloc(VB_BIG);
	if (!big)
		return 1;
	rc = open_guest(&cfg, cfg.a_path, false, &a);
	if (!rc)
		rc = open_guest(&cfg, cfg.b_path, true, &b);
	if (rc)
		goto out;
	if (prime(a, b, &cfg)) {
		fprintf(stderr, "vbench: %s: no frame crossed between A and B in 10 s (ports down?)\n",
			cfg.label);
		rc = 1;
		goto out;
	}
	if (prefill(a, &cfg, cfg.vlan_a, mac_b, mac_a, VB_TAG_DATA, &txa, big) ||
	    prefill(b, &cfg, cfg.vlan_b, mac_a, mac_b, VB_TAG_REPLY, &txb, big)) {
		fprintf(stderr, "vbench: prefill failed\n");
		rc = 1;
		goto out;
	}
	if (!strcmp(cfg.mode, "tput"))
		rc = run_tput(&cfg, a, b, &txa, big);
	else
		rc = run_rr(&cfg, a, b, &txa, &txb, big);
out:
	if (rc == 3) {
		printf("RESULT mode=%s label=%s size=%s%u status=na\n", cfg.mode,
		       cfg.label, cfg.tso ? "tso" : "", cfg.size);
	}
	if (a)
		vdrv_close(a, NULL);
	if (b)
		vdrv_close(b, NULL);
	if (vdrv_dev_errors_freed()) {
		fprintf(stderr, "vbench: the back end broke virtio rules "
			"(%llu)\n", (unsigned long long)vdrv_dev_errors_freed());
		rc = 1;
	}
	free(big);
	fflush(stdout);
	return rc;
}
