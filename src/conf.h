/* SPDX-License-Identifier: GPL-2.0-or-later */
/* conf.h - the command line, parsed and checked before anything starts
 *
 * Port specs follow QEMU's key=value convention, "TYPE,KEY=VALUE,...":
 * the keys are the common ones (name=, max-macs=, flood-rate=,
 * flood-burst=) and those the type declares in its option table
 * (port.h); conf.c knows no type.  Every error is one line naming the
 * offending spec and key.
 */
#ifndef VHOSTD_CONF_H
#define VHOSTD_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "port/port.h"
#include "switch.h"
#include "usock.h"

#define CONF_PORTS_MAX	SWITCH_PORTS_MAX
#define CONF_QUEUES_MAX	PORT_QUEUES_MAX
/* --poll-us auto (the default): each queue's window is its own
 * (pollwin.h); a number is a fixed window, for experiments.
 */
#define CONF_POLL_AUTO		(-1)
#define CONF_CPUS_MAX	64	/* entries of a --cpus list */
#define CONF_CPU_MAX	1023	/* highest CPU number (CPU_SETSIZE - 1) */
/* Flooded frames a port may send per second (flood-rate=): far above
 * what ARP, ND, DHCP and mDNS need, far below what fills a ring.
 */
#define CONF_FLOOD_RATE_DEFAULT	1000
#define CONF_NAME_MAX	PORT_NAME_MAX
#define CONF_PATH_MAX	PORT_PATH_MAX
#define CONF_ALLOW_MAX	USOCK_ALLOW_MAX
#define CONF_ID_NONE	USOCK_ID_NONE	/* no owner= / group= / --user */
#define CONF_SOCK_MODE_DEFAULT	USOCK_MODE_DEFAULT
#define CONF_FILE_PATH_MAX	4096	/* --config FILE, NUL included */
#define CONF_FILE_MAX		(256 * 1024)	/* its size */

_Static_assert(CONF_PORTS_MAX <= 64, "struct conf @from_file is 64 bits");

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
 * struct conf - the whole command line
 * @nports:	ports in @ports
 * @ports:	port specs, in command line order
 * @ctl_path:	control socket path ("" = none)
 * @workers:	worker threads (>= 1)
 * @cpus:	--cpus: worker i runs on CPU @cpus[i % @ncpus]
 * @ncpus:	entries in @cpus; 0: workers are not pinned
 * @poll_us:	fixed busy-poll window after a queue runs dry,
 *		microseconds; CONF_POLL_AUTO: adaptive (pollwin.h)
 * @latency_us:	--latency-us: auto polling's default latency target
 * @fdb_age_s:	MAC table ageing time, seconds
 * @verbose:	log level bump
 * @ctl_sock:	--ctl-perm: owner, group, mode and allow-lists of @ctl_path
 * @user:	--user: whom to run as after start-up
 * @no_sandbox:	--no-sandbox: no seccomp filter (debugging)
 * @state_path:	--state FILE ("" = none)
 * @config_path: --config FILE ("" = none)
 * @from_file:	bit i: @ports[i] was a "port" line of @config_path
 * @line:	for such a port, its line number there
 * @log_sink:	--log: enum log_sink
 * @log_level:	--log-level: enum log_level, -1 if not given (then -v)
 * @metrics:	--metrics: the HTTP endpoint's address (family AF_UNSPEC:
 *		none)
 */
struct conf {
	unsigned int nports;
	struct port_spec ports[CONF_PORTS_MAX];
	char ctl_path[CONF_PATH_MAX];
	unsigned int workers;
	uint16_t cpus[CONF_CPUS_MAX];
	unsigned int ncpus;
	int poll_us;
	unsigned int latency_us;
	unsigned int fdb_age_s;
	int verbose;
	struct usock_acl ctl_sock;
	struct conf_user user;
	bool no_sandbox;
	char state_path[CONF_PATH_MAX];
	char config_path[CONF_FILE_PATH_MAX];
	uint64_t from_file;
	unsigned int line[CONF_PORTS_MAX];
	int log_sink;
	int log_level;
	union port_addr metrics;
};

/*
 * conf_parse_port()	parse one spec into @out; on error write a one-line
 *			message to @err (size @errlen) and return -EINVAL.
 * conf_port_opt()	the field of key @key in a parsed spec, as its
 *			table types it, or NULL (tests, messages).
 * conf_port_unique()	the @i-th text value of @s no other port may share
 *			(PORT_OPT_UNIQUE: a socket path, an ifname), or NULL.
 * conf_port_clash()	the value @a and @b share, or NULL (with @key).
 * conf_port_startup_key() a key given in @s that only start-up allows
 *			(PORT_OPT_STARTUP), or NULL.
 * conf_parse()		parse argv; 0 ok, 1 if --help/--version was printed
 *			(exit 0), -EINVAL with @err set (exit 2).
 * conf_usage()		print --help text to @f.
 * conf_parse_cpus()	--cpus LIST into @c->cpus; -EINVAL with @err set.
 * conf_log_level()	the log level @c asks for: --log-level, else debug
 *			with -v, else info (enum log_level).
 * conf_parse_rate()	bits per second, "100M" or "0"/"off" (rate=, and
 *			vhostctl set): 0, -EINVAL or -ERANGE.
 * conf_parse_size()	bytes, with an optional K, M, G or T (1024-based),
 *			non-zero: 0, -EINVAL or -ERANGE.
 * conf_same_settings() whether two parses agree on everything but their
 *			ports; if not, the first option that differs.
 *
 * --config FILE reads the same options from FILE, one per line, at the
 * place --config appears (a later option overrides a setting, ports
 * add up).  conf_child.c re-parses the command line, FILE included, for
 * a reload:
 * conf_child_start()	end of start-up, after priv_drop(), before the
 *			seccomp filter: fork the process that will parse
 *			(as vhostd's user, under a filter of its own), so
 *			the daemon itself never opens a file.
 * conf_child_parse()	conf_parse() of the start-up command line, done by
 *			that process now; 0, -EINVAL with @err its message,
 *			or -errno with @err saying why there is no answer.
 * conf_child_stop()	let it go (it exits when its socket closes).
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
		    struct port_spec *out, char *err, size_t errlen);
const void *conf_port_opt(const struct port_spec *s, const char *key);
const char *conf_port_unique(const struct port_spec *s, unsigned int i,
			     const char **key, bool *path);
const char *conf_port_startup_key(const struct port_spec *s);
const char *conf_port_clash(const struct port_spec *a,
			    const struct port_spec *b, const char **key);
int conf_parse(int argc, char **argv, struct conf *c, char *err,
	       size_t errlen);
void conf_usage(void *f);
int conf_parse_cpus(const char *val, struct conf *c, char *err,
		    size_t errlen);
const char *conf_same_settings(const struct conf *a, const struct conf *b);
int conf_parse_rate(const char *s, uint64_t *out);
int conf_log_level(const struct conf *c);
int conf_parse_size(const char *s, uint64_t *out);
int conf_child_start(int argc, char **argv);
int conf_child_parse(struct conf *out, char *err, size_t errlen);
void conf_child_stop(void);

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
