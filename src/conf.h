/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf.h - the command line, parsed and checked before anything starts
 *
 * Port specs follow QEMU's key=value convention:
 *   --port vhost-user,path=SOCK[,name=N][,client][,queues=N][,offload=on|off]
 *          [,mac=M]
 *   --port tap,ifname=IF[,name=N][,offload=on|off][,direct=on|off]
 *   both:  [,max-macs=N][,flood-rate=N][,flood-burst=N]
 * Every error is one line naming the offending spec and key.
 */
#ifndef VHOSTD_CONF_H
#define VHOSTD_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "usock.h"

#define CONF_PORTS_MAX	64
#define CONF_QUEUES_MAX	16U	/* queue pairs of a vhost-user port */
/* Guest memory a vhost-user port may map by default: 1 TiB, so that all
 * CONF_PORTS_MAX ports together stay within half of x86-64's 128 TiB of
 * user address space and no front end can leave another none.
 */
#define CONF_MAX_MEM_DEFAULT	(1ULL << 40)
/* Measured (doc/performance.md): 50 us of polling cut a 64-byte round
 * trip from ~55 us to ~3 us, and an idle worker still sleeps after it.
 */
#define CONF_POLL_US_DEFAULT	50
#define CONF_CPUS_MAX	64	/* entries of a --cpus list */
#define CONF_CPU_MAX	1023	/* highest CPU number (CPU_SETSIZE - 1) */
/* Learned MACs a port may own (max-macs=): a guest has one or two, a TAP
 * may front a host bridge.  64 ports at 64 fill at most a table's worth.
 */
#define CONF_MAX_MACS_VHOST	64
#define CONF_MAX_MACS_TAP	1024
/* Flooded frames a port may send per second (flood-rate=): far above
 * what ARP, ND, DHCP and mDNS need, far below what fills a ring.
 */
#define CONF_FLOOD_RATE_DEFAULT	1000
#define CONF_NAME_MAX	32
#define CONF_PATH_MAX	108	/* sun_path */
#define CONF_IFNAME_MAX	16	/* IFNAMSIZ */
#define CONF_ALLOW_MAX	USOCK_ALLOW_MAX
#define CONF_ID_NONE	USOCK_ID_NONE	/* no owner= / group= / --user */
#define CONF_SOCK_MODE_DEFAULT	USOCK_MODE_DEFAULT

/**
 * struct conf_user - --user USER[:GROUP], resolved at parse time
 * @uid:	user id (CONF_ID_NONE: no --user)
 * @gid:	group id: GROUP's, else the user's primary group
 * @group_set:	GROUP was given: no supplementary groups
 * @name:	the user's name, for its supplementary groups ("" if USER
 *		was a number with no passwd entry)
 */
struct conf_user {
	uint32_t uid;
	uint32_t gid;
	bool group_set;
	char name[CONF_NAME_MAX];
};

/**
 * struct conf_port - one --port spec
 * @type:	"vhost-user" or "tap"
 * @name:	port name (default: type + index, e.g. "vu0", "tap1")
 * @named:	@name was given (name=), not the default
 * @path:	vhost-user socket path
 * @client:	vhost-user: connect to @path instead of listening
 * @queues:	vhost-user: queue pairs offered (queues=, 1..16,
 *		default 1)
 * @ifname:	tap: interface name
 * @offload:	offer checksum/segmentation offloads (offload=on|off)
 * @direct:	tap: read frames for a guest straight into its buffers
 *		through a steered queue per guest (direct=on|off, default on)
 * @max_mem:	vhost-user: bytes of guest memory the front end may have
 *		vhostd map (max-mem=, default CONF_MAX_MEM_DEFAULT)
 * @max_macs:	MACs the port may own in the MAC table (max-macs=, 0-4096,
 *		0 = learn none; default CONF_MAX_MACS_VHOST / _TAP)
 * @has_mac:	vhost-user: locked to @mac (mac=)
 * @mac:	the only source MAC accepted from the guest, a static entry
 * @flood_rate:	flooded frames per second the port may send (flood-rate=,
 *		0 = no limit; default CONF_FLOOD_RATE_DEFAULT)
 * @flood_burst: bucket depth for @flood_rate (flood-burst=, 0 = default:
 *		storm_default_burst())
 * @sock:	vhost-user server: owner=, group=, mode=, allow-uid=,
 *		allow-gid= of the listening socket
 */
struct conf_port {
	char type[CONF_NAME_MAX];
	char name[CONF_NAME_MAX];
	bool named;
	char path[CONF_PATH_MAX];
	bool client;
	unsigned int queues;
	char ifname[CONF_IFNAME_MAX];
	bool offload;
	bool direct;
	uint64_t max_mem;
	unsigned int max_macs;
	bool has_mac;
	uint8_t mac[6];
	unsigned int flood_rate;
	unsigned int flood_burst;
	struct usock_acl sock;
};

/**
 * struct conf - the whole command line
 * @nports:	ports in @ports
 * @ports:	port specs, in command line order
 * @ctl_path:	control socket path ("" = none)
 * @workers:	worker threads (>= 1)
 * @cpus:	--cpus: worker i runs on CPU @cpus[i % @ncpus]
 * @ncpus:	entries in @cpus; 0: workers are not pinned
 * @poll_us:	busy-poll window after a queue runs dry, microseconds
 * @fdb_age_s:	MAC table ageing time, seconds
 * @verbose:	log level bump
 * @ctl_sock:	--ctl-perm: owner, group, mode and allow-lists of @ctl_path
 * @user:	--user: whom to run as after start-up
 * @no_sandbox:	--no-sandbox: no seccomp filter (debugging)
 */
struct conf {
	unsigned int nports;
	struct conf_port ports[CONF_PORTS_MAX];
	char ctl_path[CONF_PATH_MAX];
	unsigned int workers;
	uint16_t cpus[CONF_CPUS_MAX];
	unsigned int ncpus;
	unsigned int poll_us;
	unsigned int fdb_age_s;
	int verbose;
	struct usock_acl ctl_sock;
	struct conf_user user;
	bool no_sandbox;
	char state_path[CONF_PATH_MAX];
};

/*
 * conf_parse_port()	parse one spec into @out; on error write a one-line
 *			message to @err (size @errlen) and return -EINVAL.
 * conf_parse()		parse argv; 0 ok, 1 if --help/--version was printed
 *			(exit 0), -EINVAL with @err set (exit 2).
 * conf_usage()		print --help text to @f.
 * conf_parse_cpus()	--cpus LIST into @c->cpus; -EINVAL with @err set.
 *
 * conf_sock.c, the keys of a listening socket and --user:
 * conf_sock_init()	defaults: owner and group as created, mode 0660,
 *			no allow-lists.
 * conf_sock_key()	index of a socket key (owner, group, mode,
 *			allow-uid, allow-gid), or -1.
 * conf_sock_parse()	the value of key @k; -EINVAL with @err set, which
 *			names @opt (e.g. "--port") and @spec.
 * conf_sock_parse_spec() "KEY=VALUE[,KEY=VALUE]..." of socket keys alone
 *			(--ctl-perm); -EINVAL with @err set.
 * conf_parse_user()	--user USER[:GROUP], names or numbers.
 */
int conf_parse_port(const char *spec, unsigned int index,
		    struct conf_port *out, char *err, size_t errlen);
int conf_parse(int argc, char **argv, struct conf *c, char *err,
	       size_t errlen);
void conf_usage(void *f);
int conf_parse_cpus(const char *val, struct conf *c, char *err,
		    size_t errlen);

#define CONF_SOCK_KEYS	5
void conf_sock_init(struct usock_acl *s);
int conf_sock_key(const char *key);
int conf_sock_parse(struct usock_acl *s, int k, const char *val,
		    const char *opt, const char *spec, char *err,
		    size_t errlen);
int conf_sock_parse_spec(const char *spec, struct usock_acl *s,
			 const char *opt, char *err, size_t errlen);
int conf_parse_user(const char *val, struct conf_user *u, char *err,
		    size_t errlen);

#endif /* VHOSTD_CONF_H */
