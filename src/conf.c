// SPDX-License-Identifier: GPL-2.0-or-later
/* conf.c - the command line: options and QEMU-style port specs
 *
 * Everything the user can get wrong is found here, before a socket or
 * interface exists, and reported as one line naming the option, the spec
 * and the key.  Nothing here allocates or exits: conf_parse() returns and
 * main decides (exit 0 after --help, 2 after an error).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "util.h"
#include "worker.h"

#ifndef VHOSTD_VERSION
#define VHOSTD_VERSION "0.1.0"
#endif

#define CONF_POLL_US_MAX	1000000U	/* 1 s of busy polling */
#define CONF_FDB_AGE_MAX	(7U * 24 * 3600)
#define CONF_SPEC_MAX		512		/* longest --port spec */

_Static_assert(WORKERS_MAX == 16, "conf_usage() documents --workers 1-16");

/**
 * conf_err() - format a one-line error into the caller's buffer
 * @err:	buffer
 * @errlen:	its size
 * @fmt:	printf format
 * Return: -EINVAL, for "return conf_err(...)"
 */
static int __attribute__((format(printf, 3, 4)))
conf_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	char *c;

	if (!err || !errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	/* The message quotes what the user gave: a newline or an escape
	 * sequence in an argument must not make it two lines or reach the
	 * terminal.
	 */
	for (c = err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -EINVAL;
}

/**
 * conf_parse_uint() - strict decimal number in [@min, @max]
 * @s:		text: digits only, no sign, blanks or suffix
 * @min:	lowest accepted value
 * @max:	highest accepted value
 * @out:	result
 * Return: 0, -EINVAL (not a number) or -ERANGE
 */
static int conf_parse_uint(const char *s, unsigned long min,
			   unsigned long max, unsigned int *out)
{
	unsigned long v;
	const char *p;
	char *end;

	if (!*s)
		return -EINVAL;
	for (p = s; *p; p++)
		if (*p < '0' || *p > '9')
			return -EINVAL;	/* strtoul would take " -1" */
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = (unsigned int)v;
	return 0;
}

/**
 * conf_parse_size() - a byte count with an optional binary suffix
 * @s:		text: digits, then nothing or one of K, M, G, T (1024-based)
 * @out:	result, non-zero
 * Return: 0, -EINVAL (not a size) or -ERANGE (0, or past 2^64)
 */
static int conf_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	unsigned long long v;
	const char *u;
	char *end;
	int shift = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end) {
		u = strchr(units, *end);
		if (!u || end[1])
			return -EINVAL;
		shift = 10 * (int)(u - units + 1);
	}
	if (!v || v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

/**
 * conf_name_ok() - port names go into JSON keys, Prometheus labels and
 *		    log lines: keep them to a safe alphabet
 * @s:		name
 * Return: true if every character is [A-Za-z0-9_.-]
 */
static bool conf_name_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' ||
		      *s == '-'))
			return false;
	return true;
}

/**
 * conf_ifname_ok() - what the kernel's dev_valid_name() accepts
 * @s:		interface name, shorter than IFNAMSIZ
 * Return: true if valid
 */
static bool conf_ifname_ok(const char *s)
{
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if (*s == '/' || *s == ':' || *s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

/**
 * conf_next_item() - cut the next comma-separated item out of a spec
 * @p:		cursor into the spec; advanced past the item and its comma
 * @item:	output buffer (",," in the spec is a literal comma, as in
 *		QEMU, so paths may contain commas)
 * @size:	size of @item
 * @more:	set if a separating comma followed (another item, possibly
 *		empty, comes next)
 * Return: length of the item, or -ENAMETOOLONG
 */
static int conf_next_item(const char **p, char *item, size_t size,
			  bool *more)
{
	const char *s = *p;
	size_t n = 0;

	while (*s) {
		if (*s == ',') {
			if (s[1] != ',')
				break;
			s++;		/* ",," -> "," */
		}
		if (n + 1 >= size)
			return -ENAMETOOLONG;
		item[n++] = *s++;
	}
	item[n] = '\0';
	*more = *s == ',';
	*p = *more ? s + 1 : s;
	return (int)n;
}

/**
 * conf_copy() - copy a value into a fixed field, refusing truncation
 * @dst:	field
 * @size:	its size, including the terminating NUL
 * @val:	value
 * Return: true if it fit
 */
static bool conf_copy(char *dst, size_t size, const char *val)
{
	size_t n = strlen(val);

	if (n >= size)
		return false;
	memcpy(dst, val, n + 1);
	return true;
}

/**
 * enum conf_l2 - the port keys of L2 isolation and storm control
 * @CONF_L2_MAX_MACS:	max-macs=N
 * @CONF_L2_MAC:	mac=M (vhost-user only)
 * @CONF_L2_FLOOD_RATE:	flood-rate=N
 * @CONF_L2_FLOOD_BURST: flood-burst=N
 * @CONF_L2_COUNT:	number of keys
 */
enum conf_l2 {
	CONF_L2_MAX_MACS,
	CONF_L2_MAC,
	CONF_L2_FLOOD_RATE,
	CONF_L2_FLOOD_BURST,
	CONF_L2_COUNT,
};

static const char *const conf_l2_keys[CONF_L2_COUNT] = {
	[CONF_L2_MAX_MACS]	= "max-macs",
	[CONF_L2_MAC]		= "mac",
	[CONF_L2_FLOOD_RATE]	= "flood-rate",
	[CONF_L2_FLOOD_BURST]	= "flood-burst",
};

#define CONF_MAX_MACS_MAX	4096U		/* FDB_SIZE */
#define CONF_FLOOD_RATE_MAX	100000000U	/* frames/s */
#define CONF_FLOOD_BURST_MAX	10000000U	/* frames */

/**
 * conf_l2_key() - which L2 key @key is, for this port type
 * @key:	key of a spec item
 * @vhost:	the port is vhost-user (mac= is only for guests)
 * Return: enum conf_l2, or -1
 */
static int conf_l2_key(const char *key, bool vhost)
{
	int i;

	for (i = 0; i < CONF_L2_COUNT; i++)
		if (!strcmp(key, conf_l2_keys[i]))
			return i == CONF_L2_MAC && !vhost ? -1 : i;
	return -1;
}

/**
 * conf_parse_mac() - a unicast station address, aa:bb:cc:dd:ee:ff
 * @s:		text: six pairs of hex digits separated by ':'
 * @mac:	result
 * Return: 0, -EINVAL (not a MAC) or -ERANGE (multicast or all-zero:
 *	   not a station, a lock to it would only drop everything)
 */
static int conf_parse_mac(const char *s, uint8_t mac[6])
{
	unsigned int i;

	if (strlen(s) != 17)
		return -EINVAL;
	for (i = 0; i < 6; i++) {
		const char *h = s + 3 * i;
		char pair[3] = { h[0], h[1], '\0' };

		if (!isxdigit((unsigned char)h[0]) ||
		    !isxdigit((unsigned char)h[1]) ||
		    (i < 5 && h[2] != ':'))
			return -EINVAL;
		mac[i] = (uint8_t)strtoul(pair, NULL, 16);
	}
	if ((mac[0] & 1) || !(mac[0] | mac[1] | mac[2] | mac[3] | mac[4] |
			      mac[5]))
		return -ERANGE;
	return 0;
}

/**
 * conf_parse_l2() - the value of an L2 key
 * @spec:	the whole spec, for the message
 * @k:		enum conf_l2
 * @val:	value
 * @out:	port being parsed
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL
 */
static int conf_parse_l2(const char *spec, int k, const char *val,
			 struct conf_port *out, char *err, size_t errlen)
{
	static const unsigned long max[CONF_L2_COUNT] = {
		[CONF_L2_MAX_MACS]	= CONF_MAX_MACS_MAX,
		[CONF_L2_FLOOD_RATE]	= CONF_FLOOD_RATE_MAX,
		[CONF_L2_FLOOD_BURST]	= CONF_FLOOD_BURST_MAX,
	};
	unsigned int *field[CONF_L2_COUNT] = {
		[CONF_L2_MAX_MACS]	= &out->max_macs,
		[CONF_L2_FLOOD_RATE]	= &out->flood_rate,
		[CONF_L2_FLOOD_BURST]	= &out->flood_burst,
	};
	int r;

	if (k == CONF_L2_MAC) {
		r = conf_parse_mac(val, out->mac);
		if (r == -ERANGE)
			return conf_err(err, errlen, "vhostd: --port '%s': "
					"mac '%s' is not a station address "
					"(multicast or zero)", spec, val);
		if (r)
			return conf_err(err, errlen, "vhostd: --port '%s': "
					"mac '%s' is not a MAC address "
					"(aa:bb:cc:dd:ee:ff)", spec, val);
		out->has_mac = true;
		return 0;
	}
	r = conf_parse_uint(val, k == CONF_L2_FLOOD_BURST ? 1 : 0, max[k],
			    field[k]);
	if (r == -EINVAL)
		return conf_err(err, errlen, "vhostd: --port '%s': %s '%s' is "
				"not a number", spec, conf_l2_keys[k], val);
	if (r)
		return conf_err(err, errlen, "vhostd: --port '%s': %s '%s' out "
				"of range (%u-%lu)", spec, conf_l2_keys[k], val,
				k == CONF_L2_FLOOD_BURST ? 1U : 0U, max[k]);
	return 0;
}

/**
 * conf_parse_port() - parse one --port spec
 * @spec:	"vhost-user,path=SOCK[,name=N][,client][,queues=N][,offload=on|off]
 *		[,max-mem=SIZE][,mac=M]"
 *		or "tap,ifname=IF[,name=N][,offload=on|off][,direct=on|off]";
 *		both: "[,max-macs=N][,flood-rate=N][,flood-burst=N]"
 * @index:	port index, for the default name
 * @out:	result (fully written on success, garbage on error)
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL
 */
int conf_parse_port(const char *spec, unsigned int index,
		    struct conf_port *out, char *err, size_t errlen)
{
	char item[CONF_SPEC_MAX];
	bool vhost, seen_name = false, seen_path = false;
	bool seen_client = false, seen_queues = false, seen_ifname = false;
	bool seen_offload = false, seen_direct = false, seen_max_mem = false;
	unsigned int seen_l2 = 0, seen_sock = 0;
	const char *p = spec;
	bool more;
	int n;

	memset(out, 0, sizeof(*out));
	out->queues = 1;
	out->offload = true;
	out->direct = true;
	out->max_mem = CONF_MAX_MEM_DEFAULT;
	out->flood_rate = CONF_FLOOD_RATE_DEFAULT;
	conf_sock_init(&out->sock);

#define SPEC_ERR(...)							\
	return conf_err(err, errlen, "vhostd: --port '%s': " __VA_ARGS__)

	if (strlen(spec) >= CONF_SPEC_MAX)
		return conf_err(err, errlen,
				"vhostd: --port: spec longer than %d bytes",
				CONF_SPEC_MAX - 1);

	n = conf_next_item(&p, item, sizeof(item), &more);
	if (n <= 0)
		SPEC_ERR("missing port type (vhost-user or tap)", spec);
	if (!strcmp(item, "vhost-user")) {
		vhost = true;
	} else if (!strcmp(item, "tap")) {
		vhost = false;
	} else {
		SPEC_ERR("unknown port type '%s' (vhost-user or tap)", spec,
			 item);
	}
	strcpy(out->type, item);	/* fits: one of two literals */

	while (more) {
		char *key = item, *val;
		bool dup;
		int l2, sk;

		n = conf_next_item(&p, item, sizeof(item), &more);
		if (n < 0)
			SPEC_ERR("item too long", spec);
		if (!n)
			SPEC_ERR("empty item", spec);
		val = strchr(item, '=');
		if (val)
			*val++ = '\0';
		if (!*key)
			SPEC_ERR("empty key", spec);
		if (val && !*val)
			SPEC_ERR("empty value for '%s'", spec, key);

		if (!strcmp(key, "name")) {
			dup = seen_name;
			seen_name = true;
		} else if (vhost && !strcmp(key, "path")) {
			dup = seen_path;
			seen_path = true;
		} else if (vhost && !strcmp(key, "client")) {
			dup = seen_client;
			seen_client = true;
		} else if (vhost && !strcmp(key, "queues")) {
			dup = seen_queues;
			seen_queues = true;
		} else if (!vhost && !strcmp(key, "ifname")) {
			dup = seen_ifname;
			seen_ifname = true;
		} else if (!strcmp(key, "offload")) {
			dup = seen_offload;
			seen_offload = true;
		} else if (!vhost && !strcmp(key, "direct")) {
			dup = seen_direct;
			seen_direct = true;
		} else if (vhost && !strcmp(key, "max-mem")) {
			dup = seen_max_mem;
			seen_max_mem = true;
		} else if ((l2 = conf_l2_key(key, vhost)) >= 0) {
			dup = seen_l2 & 1U << l2;
			seen_l2 |= 1U << l2;
		} else if (vhost && (sk = conf_sock_key(key)) >= 0) {
			dup = seen_sock & 1U << sk;
			seen_sock |= 1U << sk;
		} else {
			SPEC_ERR("unknown key '%s'", spec, key);
		}
		if (dup)
			SPEC_ERR("key '%s' given twice", spec, key);

		if (!strcmp(key, "client")) {
			/* A flag, as in QEMU's "server"; =on/off also. */
			if (!val || !strcmp(val, "on"))
				out->client = true;
			else if (!strcmp(val, "off"))
				out->client = false;
			else
				SPEC_ERR("client takes no value, or on/off, "
					 "not '%s'", spec, val);
			continue;
		}
		if (!val)
			SPEC_ERR("key '%s' needs a value", spec, key);

		if (!strcmp(key, "offload")) {
			if (!strcmp(val, "on"))
				out->offload = true;
			else if (!strcmp(val, "off"))
				out->offload = false;
			else
				SPEC_ERR("offload takes on or off, not '%s'",
					 spec, val);
			continue;
		}
		if (!strcmp(key, "direct")) {
			if (!strcmp(val, "on"))
				out->direct = true;
			else if (!strcmp(val, "off"))
				out->direct = false;
			else
				SPEC_ERR("direct takes on or off, not '%s'",
					 spec, val);
			continue;
		}
		if (!strcmp(key, "max-mem")) {
			if (conf_parse_size(val, &out->max_mem))
				SPEC_ERR("max-mem '%s' is not a size (bytes, "
					 "or a number with K, M, G or T)",
					 spec, val);
			continue;
		}
		l2 = conf_l2_key(key, vhost);
		if (l2 >= 0) {
			if (conf_parse_l2(spec, l2, val, out, err, errlen))
				return -EINVAL;
			continue;
		}
		sk = conf_sock_key(key);
		if (sk >= 0) {
			if (conf_sock_parse(&out->sock, sk, val, "--port", spec,
					    err, errlen))
				return -EINVAL;
			continue;
		}

		if (!strcmp(key, "name")) {
			if (!conf_copy(out->name, sizeof(out->name), val))
				SPEC_ERR("name too long (max %zu bytes)", spec,
					 sizeof(out->name) - 1);
			if (!conf_name_ok(val))
				SPEC_ERR("name '%s' may only contain "
					 "letters, digits, '_', '.' and '-'",
					 spec, val);
		} else if (!strcmp(key, "path")) {
			if (!conf_copy(out->path, sizeof(out->path), val))
				SPEC_ERR("path too long (max %zu bytes)", spec,
					 sizeof(out->path) - 1);
		} else if (!strcmp(key, "ifname")) {
			if (!conf_copy(out->ifname, sizeof(out->ifname), val))
				SPEC_ERR("ifname too long (max %zu bytes)",
					 spec, sizeof(out->ifname) - 1);
			if (!conf_ifname_ok(val))
				SPEC_ERR("ifname '%s' is not a valid "
					 "interface name", spec, val);
		} else {	/* queues */
			int r = conf_parse_uint(val, 1, UINT32_MAX,
						&out->queues);

			if (r == -EINVAL)
				SPEC_ERR("queues '%s' is not a number", spec,
					 val);
			if (r || out->queues < 1)
				SPEC_ERR("queues '%s' out of range", spec, val);
			if (out->queues > CONF_QUEUES_MAX)
				SPEC_ERR("queues=%u: at most %u queue pairs",
					 spec, out->queues, CONF_QUEUES_MAX);
		}
	}

	if (!(seen_l2 & 1U << CONF_L2_MAX_MACS))
		out->max_macs = vhost ? CONF_MAX_MACS_VHOST : CONF_MAX_MACS_TAP;
	if (vhost && !seen_path)
		SPEC_ERR("missing required key 'path'", spec);
	if (seen_sock && out->client)
		SPEC_ERR("owner, group, mode, allow-uid and allow-gid are "
			 "for a socket vhostd listens on, not with 'client'",
			 spec);
	if (!vhost && !seen_ifname)
		SPEC_ERR("missing required key 'ifname'", spec);
	out->named = seen_name;
	if (!seen_name)
		snprintf(out->name, sizeof(out->name), "%s%u",
			 vhost ? "vu" : "tap", index);
#undef SPEC_ERR
	return 0;
}

/**
 * conf_check_ports() - reject two ports sharing a name, path, ifname or
 *			a locked MAC
 * @c:		parsed configuration
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL
 */
static int conf_check_ports(const struct conf *c, char *err, size_t errlen)
{
	unsigned int i, j;

	for (i = 0; i < c->nports; i++) {
		const struct conf_port *a = &c->ports[i];

		for (j = 0; j < i; j++) {
			const struct conf_port *b = &c->ports[j];

			if (!strcmp(a->name, b->name))
				return conf_err(err, errlen,
						"vhostd: ports %u and %u are "
						"both named '%s'", j, i,
						a->name);
			if (*a->path && !strcmp(a->path, b->path))
				return conf_err(err, errlen,
						"vhostd: ports '%s' and '%s' "
						"both use path '%s'", b->name,
						a->name, a->path);
			if (*a->ifname && !strcmp(a->ifname, b->ifname))
				return conf_err(err, errlen,
						"vhostd: ports '%s' and '%s' "
						"both use ifname '%s'",
						b->name, a->name, a->ifname);
			if (a->has_mac && b->has_mac &&
			    !memcmp(a->mac, b->mac, sizeof(a->mac)))
				return conf_err(err, errlen,
						"vhostd: ports '%s' and '%s' "
						"are both locked to mac "
						"%02x:%02x:%02x:%02x:%02x:%02x",
						b->name, a->name, a->mac[0],
						a->mac[1], a->mac[2], a->mac[3],
						a->mac[4], a->mac[5]);
		}
		if (*c->ctl_path && !strcmp(a->path, c->ctl_path))
			return conf_err(err, errlen,
					"vhostd: port '%s' uses the --ctl "
					"path '%s'", a->name, a->path);
	}
	return 0;
}

/**
 * conf_usage() - print the --help text
 * @f:		FILE * to print to
 */
void conf_usage(void *f)
{
	fputs(
"Usage: vhostd --port SPEC [--port SPEC]... [OPTION]...\n"
"Userspace vhost-user virtio-net backend and L2 learning switch.\n"
"\n"
"Ports (repeatable, at most 64; keys are comma separated, ',,' is a\n"
"literal comma inside a value):\n"
"  --port vhost-user,path=SOCK[,name=NAME][,client][,queues=N][,offload=on|off]\n"
"              [,max-mem=SIZE][,mac=MAC][,owner=U][,group=G][,mode=M]\n"
"              [,allow-uid=U[:U]...][,allow-gid=G[:G]...]\n"
"        a QEMU guest.  vhostd listens on the unix socket SOCK (QEMU:\n"
"        -chardev socket,path=SOCK,reconnect=1); with 'client' vhostd\n"
"        connects to SOCK instead (QEMU: -chardev socket,server=on).\n"
"        queues: queue pairs offered, 1-16 (default 1; QEMU:\n"
"        -netdev vhost-user,queues=N and -device virtio-net-pci,mq=on).\n"
"        max-mem: guest memory vhostd may map for it (K, M, G, T;\n"
"        default 1T); it must be on tmpfs (memfd) or hugetlbfs.\n"
"        owner, group, mode: of the socket file (default: vhostd's user\n"
"        and group, 0660); allow-uid/allow-gid: only peers with one of\n"
"        these uids or gids (SO_PEERCRED) are served.\n"
"        mac: the guest's MAC; frames from any other source MAC are\n"
"        dropped, and no other port can take this MAC over.\n"
"  --port tap,ifname=IF[,name=NAME][,offload=on|off][,direct=on|off]\n"
"        a TAP interface IF created (or attached, if persistent) in\n"
"        vhostd's network namespace; vhostd does not configure it.\n"
"        direct=off: no tun queue per guest (no eBPF steering); frames\n"
"        from the kernel are read into vhostd's buffers, then copied\n"
"        into the guest (default on: one read into the guest's buffers).\n"
"  max-macs=N: MACs the port may have learned at once, 0-4096 (default\n"
"        64, tap 1024; 0: none).  Beyond it sources are not learned.\n"
"  flood-rate=N: broadcast, multicast and unknown-unicast frames per\n"
"        second the port may send, 0-100000000 (default 1000; 0: no\n"
"        limit); flood-burst=N: at once (default max(128, rate/50)).\n"
"  offload=off: offer no checksum/TSO/USO offloads on this port (default\n"
"        on: 64 KiB TSO frames travel whole where both ends allow it).\n"
"  NAME defaults to vu<i> / tap<i>, i being the port's position (from 0)\n"
"  among all --port options.  Names use letters, digits, '_', '.', '-'.\n"
"\n"
"Options:\n"
"  -c, --ctl PATH       control socket for vhostctl (default: none)\n"
"      --ctl-perm KEYS  owner=U,group=G,mode=M,allow-uid=..,allow-gid=..\n"
"                       of the control socket (as on a vhost-user port)\n"
"      --user USER[:GROUP]  after start-up run as USER (root only),\n"
"                       keeping no capability a running vhostd does not\n"
"                       need; GROUP: no supplementary groups\n"
"      --no-sandbox     no seccomp syscall filter (for debugging)\n"
"      --state FILE     keep learned MACs and counters in FILE across\n"
"                       restarts (written every 5 s and at exit; a\n"
"                       corrupt or foreign file is ignored; default none)\n"
"  -w, --workers N      datapath threads, 1-16 (default 1)\n"
"      --cpus LIST      pin worker i to the i-th CPU of LIST (as taskset\n"
"                       -c: 1,3 or 0-3; reused from the start when LIST\n"
"                       is shorter than --workers; default: not pinned)\n"
"  -P, --poll-us N      busy-poll N microseconds after a queue runs dry\n"
"                       before sleeping, 0-1000000 (default 50; 0: sleep\n"
"                       at once)\n"
"  -a, --fdb-age S      forget MACs unseen for S seconds, 0-604800\n"
"                       (default 300; 0: never)\n"
"  -v, --verbose        more log output (repeat for debug)\n"
"  -h, --help           this text\n"
"  -V, --version        version\n"
"\n"
"Examples:\n"
"  vhostd --port vhost-user,path=/run/vhostd/vm1.sock,name=vm1 \\\n"
"         --port vhost-user,path=/run/vhostd/vm2.sock,name=vm2 \\\n"
"         --port tap,ifname=vh0,name=host --ctl /run/vhostd/ctl.sock\n"
"\n"
"  qemu-system-x86_64 ... \\\n"
"    -object memory-backend-memfd,id=mem,size=1G,share=on \\\n"
"    -machine pc,memory-backend=mem \\\n"
"    -chardev socket,id=c0,path=/run/vhostd/vm1.sock,reconnect=1 \\\n"
"    -netdev vhost-user,id=n0,chardev=c0 \\\n"
"    -device virtio-net-pci,netdev=n0,mac=52:54:00:00:00:01\n"
"\n"
"Exit status: 0 after a clean shutdown (SIGINT/SIGTERM), 1 on a run-time\n"
"failure, 2 on a usage or start-up error.  See vhostd(8), vhostctl(8).\n",
	      (FILE *)f);
}

/* Long-only options: values past any character. */
enum {
	CONF_OPT_CTL_PERM = 0x100,
	CONF_OPT_USER,
	CONF_OPT_NO_SANDBOX,
	CONF_OPT_STATE,
	CONF_OPT_CPUS,
};

static const struct option conf_options[] = {
	{ "port",	required_argument,	NULL, 'p' },
	{ "ctl",	required_argument,	NULL, 'c' },
	{ "ctl-perm",	required_argument,	NULL, CONF_OPT_CTL_PERM },
	{ "user",	required_argument,	NULL, CONF_OPT_USER },
	{ "no-sandbox",	no_argument,		NULL, CONF_OPT_NO_SANDBOX },
	{ "state",	required_argument,	NULL, CONF_OPT_STATE },
	{ "workers",	required_argument,	NULL, 'w' },
	{ "cpus",	required_argument,	NULL, CONF_OPT_CPUS },
	{ "poll-us",	required_argument,	NULL, 'P' },
	{ "fdb-age",	required_argument,	NULL, 'a' },
	{ "verbose",	no_argument,		NULL, 'v' },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL,		0,			NULL, 0 },
};

/**
 * conf_parse_path_opt() - a path option, with its error line
 * @opt:	option name, for the message
 * @val:	argument
 * @out:	result
 * @size:	size of @out, NUL included
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL (empty, or too long for @out)
 */
static int conf_parse_path_opt(const char *opt, const char *val, char *out,
			       size_t size, char *err, size_t errlen)
{
	if (!*val)
		return conf_err(err, errlen, "vhostd: --%s: empty path", opt);
	if (!conf_copy(out, size, val))
		return conf_err(err, errlen,
				"vhostd: --%s: path too long (max %zu bytes)",
				opt, size - 1);
	return 0;
}

/**
 * conf_parse_num_opt() - a numeric option, with its error line
 * @opt:	option name, for the message
 * @val:	argument
 * @min:	lowest accepted value
 * @max:	highest accepted value
 * @out:	result
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL
 */
static int conf_parse_num_opt(const char *opt, const char *val,
			      unsigned long min, unsigned long max,
			      unsigned int *out, char *err, size_t errlen)
{
	int r = conf_parse_uint(val, min, max, out);

	if (r == -EINVAL)
		return conf_err(err, errlen,
				"vhostd: --%s '%s': not a number", opt, val);
	if (r)
		return conf_err(err, errlen,
				"vhostd: --%s '%s': out of range (%lu-%lu)",
				opt, val, min, max);
	return 0;
}

/**
 * conf_parse_cpus() - a CPU list, as taskset -c and cpuset(7) write it
 * @val:	"N", "N-M", comma-separated ("0,2-3")
 * @c:		result: @c->cpus and @c->ncpus, in the order given
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 *
 * A CPU named twice is an error: two workers on one CPU is what a user
 * asks for by listing fewer CPUs than --workers, never by accident.
 *
 * Return: 0 or -EINVAL
 */
int conf_parse_cpus(const char *val, struct conf *c, char *err,
		    size_t errlen)
{
	uint64_t seen[(CONF_CPU_MAX + 1) / 64] = { 0 };
	const char *p = val;

	c->ncpus = 0;
	for (;;) {
		unsigned long lo, hi, cpu;
		char *end;

		if (!isdigit((unsigned char)*p))
			goto bad;
		lo = strtoul(p, &end, 10);
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			if (!isdigit((unsigned char)*p))
				goto bad;
			hi = strtoul(p, &end, 10);
			p = end;
		}
		if (lo > hi)
			goto bad;
		if (hi > CONF_CPU_MAX)
			return conf_err(err, errlen,
					"vhostd: --cpus '%s': CPU %lu is past "
					"%u", val, hi, CONF_CPU_MAX);
		for (cpu = lo; cpu <= hi; cpu++) {
			if (seen[cpu / 64] & (1ULL << (cpu % 64)))
				return conf_err(err, errlen,
						"vhostd: --cpus '%s': CPU %lu "
						"named twice", val, cpu);
			if (c->ncpus == CONF_CPUS_MAX)
				return conf_err(err, errlen,
						"vhostd: --cpus '%s': more "
						"than %u CPUs", val,
						CONF_CPUS_MAX);
			seen[cpu / 64] |= 1ULL << (cpu % 64);
			c->cpus[c->ncpus++] = (uint16_t)cpu;
		}
		if (!*p)
			return 0;
		if (*p++ != ',')
			goto bad;
	}
bad:
	c->ncpus = 0;
	return conf_err(err, errlen,
			"vhostd: --cpus '%s': not a CPU list (e.g. 1,3 or "
			"0-3)", val);
}

/**
 * conf_parse() - parse the whole command line
 * @argc:	argument count
 * @argv:	arguments
 * @c:		result, defaults filled in
 * @err:	one-line error message on failure (no trailing newline)
 * @errlen:	size of @err
 * Return: 0 to run, 1 if --help or --version was printed (exit 0),
 *	   -EINVAL on error (exit 2)
 *
 * Context: start-up; uses getopt_long()'s global state (reset here, so
 * tests may call it repeatedly).
 */
int conf_parse(int argc, char **argv, struct conf *c, char *err,
	       size_t errlen)
{
	bool ctl_perm = false;
	int opt, r;

	memset(c, 0, sizeof(*c));
	c->workers = 1;
	c->poll_us = CONF_POLL_US_DEFAULT;
	c->fdb_age_s = 300;
	conf_sock_init(&c->ctl_sock);
	c->user.uid = CONF_ID_NONE;
	c->user.gid = CONF_ID_NONE;
	if (err && errlen)
		*err = '\0';

	optind = 0;	/* GNU: full re-initialisation */
	opterr = 0;	/* we print our own one-line errors */
	while ((opt = getopt_long(argc, argv, ":p:c:w:P:a:vhV", conf_options,
				  NULL)) != -1) {
		switch (opt) {
		case 'p':
			if (c->nports >= CONF_PORTS_MAX)
				return conf_err(err, errlen,
						"vhostd: --port '%s': more "
						"than %d ports", optarg,
						CONF_PORTS_MAX);
			r = conf_parse_port(optarg, c->nports,
					    &c->ports[c->nports], err, errlen);
			if (r)
				return r;
			c->nports++;
			break;
		case 'c':
			r = conf_parse_path_opt("ctl", optarg, c->ctl_path,
						sizeof(c->ctl_path), err,
						errlen);
			if (r)
				return r;
			break;
		case CONF_OPT_CTL_PERM:
			r = conf_sock_parse_spec(optarg, &c->ctl_sock,
						 "--ctl-perm", err, errlen);
			if (r)
				return r;
			ctl_perm = true;
			break;
		case CONF_OPT_USER:
			r = conf_parse_user(optarg, &c->user, err, errlen);
			if (r)
				return r;
			break;
		case CONF_OPT_NO_SANDBOX:
			c->no_sandbox = true;
			break;
		case CONF_OPT_STATE:
			r = conf_parse_path_opt("state", optarg,
						c->state_path,
						sizeof(c->state_path), err,
						errlen);
			if (r)
				return r;
			break;
		case 'w':
			r = conf_parse_num_opt("workers", optarg, 1,
					       WORKERS_MAX, &c->workers, err,
					       errlen);
			if (r)
				return r;
			break;
		case CONF_OPT_CPUS:
			r = conf_parse_cpus(optarg, c, err, errlen);
			if (r)
				return r;
			break;
		case 'P':
			r = conf_parse_num_opt("poll-us", optarg, 0,
					       CONF_POLL_US_MAX, &c->poll_us,
					       err, errlen);
			if (r)
				return r;
			break;
		case 'a':
			r = conf_parse_num_opt("fdb-age", optarg, 0,
					       CONF_FDB_AGE_MAX,
					       &c->fdb_age_s, err, errlen);
			if (r)
				return r;
			break;
		case 'v':
			c->verbose++;
			break;
		case 'h':
			conf_usage(stdout);
			return 1;
		case 'V':
			printf("vhostd %s\n", VHOSTD_VERSION);
			return 1;
		case ':':
			return conf_err(err, errlen,
					"vhostd: option '%s' needs an argument",
					argv[optind - 1]);
		default:
			if (optopt)
				return conf_err(err, errlen,
						"vhostd: unknown option '-%c' "
						"(see --help)", optopt);
			return conf_err(err, errlen,
					"vhostd: unknown option '%s' "
					"(see --help)", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return conf_err(err, errlen,
				"vhostd: unexpected argument '%s' (see --help)",
				argv[optind]);
	if (ctl_perm && !*c->ctl_path)
		return conf_err(err, errlen,
				"vhostd: --ctl-perm without --ctl");
	return conf_check_ports(c, err, errlen);
}
