/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf.h - the command line, parsed and checked before anything starts
 *
 * Port specs follow QEMU's key=value convention:
 *   --port vhost-user,path=SOCK[,name=N][,client][,queues=N][,offload=on|off]
 *   --port tap,ifname=IF[,name=N][,offload=on|off][,direct=on|off]
 * Every error is one line naming the offending spec and key.
 */
#ifndef VHOSTD_CONF_H
#define VHOSTD_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CONF_PORTS_MAX	64
/* Guest memory a vhost-user port may map by default: 1 TiB, so that all
 * CONF_PORTS_MAX ports together stay within half of x86-64's 128 TiB of
 * user address space and no front end can leave another none.
 */
#define CONF_MAX_MEM_DEFAULT	(1ULL << 40)
/* Measured (doc/performance.md): 50 us of polling cut a 64-byte round
 * trip from ~55 us to ~3 us, and an idle worker still sleeps after it.
 */
#define CONF_POLL_US_DEFAULT	50
#define CONF_NAME_MAX	32
#define CONF_PATH_MAX	108	/* sun_path */
#define CONF_IFNAME_MAX	16	/* IFNAMSIZ */

/**
 * struct conf_port - one --port spec
 * @type:	"vhost-user" or "tap"
 * @name:	port name (default: type + index, e.g. "vu0", "tap1")
 * @path:	vhost-user socket path
 * @client:	vhost-user: connect to @path instead of listening
 * @queues:	vhost-user: queue pairs (1 until multiqueue lands)
 * @ifname:	tap: interface name
 * @offload:	offer checksum/segmentation offloads (offload=on|off)
 * @direct:	tap: read frames for a guest straight into its buffers
 *		through a steered queue per guest (direct=on|off, default on)
 * @max_mem:	vhost-user: bytes of guest memory the front end may have
 *		vhostd map (max-mem=, default CONF_MAX_MEM_DEFAULT)
 */
struct conf_port {
	char type[CONF_NAME_MAX];
	char name[CONF_NAME_MAX];
	char path[CONF_PATH_MAX];
	bool client;
	unsigned int queues;
	char ifname[CONF_IFNAME_MAX];
	bool offload;
	bool direct;
	uint64_t max_mem;
};

/**
 * struct conf - the whole command line
 * @nports:	ports in @ports
 * @ports:	port specs, in command line order
 * @ctl_path:	control socket path ("" = none)
 * @workers:	worker threads (>= 1)
 * @poll_us:	busy-poll window after a queue runs dry, microseconds
 * @fdb_age_s:	MAC table ageing time, seconds
 * @verbose:	log level bump
 */
struct conf {
	unsigned int nports;
	struct conf_port ports[CONF_PORTS_MAX];
	char ctl_path[CONF_PATH_MAX];
	unsigned int workers;
	unsigned int poll_us;
	unsigned int fdb_age_s;
	int verbose;
};

/*
 * conf_parse_port()	parse one spec into @out; on error write a one-line
 *			message to @err (size @errlen) and return -EINVAL.
 * conf_parse()		parse argv; 0 ok, 1 if --help/--version was printed
 *			(exit 0), -EINVAL with @err set (exit 2).
 * conf_usage()		print --help text to @f.
 */
int conf_parse_port(const char *spec, unsigned int index,
		    struct conf_port *out, char *err, size_t errlen);
int conf_parse(int argc, char **argv, struct conf *c, char *err,
	       size_t errlen);
void conf_usage(void *f);

#endif /* VHOSTD_CONF_H */
