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
#include <arpa/inet.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>

#include "conf.h"
#include "log.h"
#include "pollwin.h"
#include "rate.h"
#include "util.h"
#include "worker.h"

#ifndef VHOSTD_VERSION
#define VHOSTD_VERSION "0.1.0"
#endif

#define CONF_POLL_US_MAX	1000000U	/* 1 s of busy polling */
#define CONF_FDB_AGE_MAX	(7U * 24 * 3600)
#define CONF_SPEC_MAX		512		/* longest --port spec */

_Static_assert(WORKERS_MAX == 16, "conf_usage() documents --workers 1-16");
_Static_assert(PORT_MAX_MACS_MAX == FDB_SIZE,
	       "max-macs= goes up to the MAC table's size");

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
 * conf_parse_rate() - bits per second, as rate= and vhostctl set take it
 * @s:		"0", "off", or digits and nothing or one of k, K, M, G, T
 *		(1000-based: 100M is 100 000 000 bit/s)
 * @out:	result, 0 for "0" and "off"
 * Return: 0, -EINVAL (not a rate) or -ERANGE (not 0 and outside
 *	   RATE_MIN_BPS..RATE_MAX_BPS)
 */
int conf_parse_rate(const char *s, uint64_t *out)
{
	static const char units[] = "kMGT";
	unsigned long long v, mul = 1;
	char *end;

	if (!strcmp(s, "off")) {
		*out = 0;
		return 0;
	}
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end) {
		const char *u = strchr(units, *end == 'K' ? 'k' : *end);
		long i;

		if (!u || end[1])
			return -EINVAL;
		for (i = 0; i <= u - units; i++)
			mul *= 1000;
	}
	if (v && (v > RATE_MAX_BPS / mul || v * mul < RATE_MIN_BPS))
		return -ERANGE;
	*out = v * mul;
	return 0;
}

/**
 * conf_parse_size() - a byte count with an optional binary suffix
 * @s:		text: digits, then nothing or one of K, M, G, T (1024-based)
 * @out:	result, non-zero
 * Return: 0, -EINVAL (not a size) or -ERANGE (0, or past 2^64)
 */
int conf_parse_size(const char *s, uint64_t *out)
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

#define CONF_FLOOD_RATE_MAX	100000000U	/* frames/s */
#define CONF_FLOOD_BURST_MAX	10000000U	/* frames */

/* The keys every port type has, read by the switch (struct port_spec).
 * A type's own table is searched first: it may take one of these over
 * (TAP's max-macs= default).
 */
static const struct port_opt conf_common_opts[] = {
	{ .key = "name", .type = PORT_OPT_NAME, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, name),
	  .help = "NAME: the port's name (default: vu<i>, tap<i>...)" },
	{ .key = "max-macs", .type = PORT_OPT_UINT, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, max_macs), .max = PORT_MAX_MACS_MAX,
	  .def = PORT_MAX_MACS_DEFAULT,
	  .help = "N: MACs it may have learned at once" },
	{ .key = "flood-rate", .type = PORT_OPT_UINT, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, flood_rate),
	  .max = CONF_FLOOD_RATE_MAX, .def = CONF_FLOOD_RATE_DEFAULT,
	  .help = "N: flood frames/s (0: any)" },
	{ .key = "flood-burst", .type = PORT_OPT_UINT,
	  .flags = PORT_OPT_COMMON, PORT_OPT_AT(struct port_spec, flood_burst),
	  .min = 1, .max = CONF_FLOOD_BURST_MAX,
	  .help = "N: flood burst (default max(128, rate/50))" },
	{ .key = "rate", .type = PORT_OPT_RATE, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, rate), .def = PORT_RATE_UNSET,
	  .min = RATE_MIN_BPS, .max = RATE_MAX_BPS,
	  .help = "BITS: rx-rate and tx-rate both (e.g. 100M; 0: none)" },
	{ .key = "burst", .type = PORT_OPT_SIZE, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, burst), .min = RATE_BURST_MIN,
	  .max = RATE_BURST_MAX,
	  .help = "BYTES: rx-burst and tx-burst both" },
	{ .key = "rx-rate", .type = PORT_OPT_RATE, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, rx_rate), .def = PORT_RATE_UNSET,
	  .min = RATE_MIN_BPS, .max = RATE_MAX_BPS,
	  .help = "BITS: bits/s taken from the peer, held back (default "
		  "none)" },
	{ .key = "rx-burst", .type = PORT_OPT_SIZE, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, rx_burst), .min = RATE_BURST_MIN,
	  .max = RATE_BURST_MAX,
	  .help = "BYTES: rx-rate's burst (default 25 ms of it, >= 64K)" },
	{ .key = "tx-rate", .type = PORT_OPT_RATE, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, tx_rate), .def = PORT_RATE_UNSET,
	  .min = RATE_MIN_BPS, .max = RATE_MAX_BPS,
	  .help = "BITS: bits/s delivered to the peer, the rest dropped "
		  "(default none)" },
	{ .key = "tx-burst", .type = PORT_OPT_SIZE, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, tx_burst), .min = RATE_BURST_MIN,
	  .max = RATE_BURST_MAX,
	  .help = "BYTES: tx-rate's burst (default 25 ms of it, >= 64K)" },
	{ .key = "vlan", .type = PORT_OPT_UINT, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, vlan), .min = 1, .max = 4094,
	  .help = "N: access port of VLAN N's bridge domain (default 1)" },
	{ .key = "isolated", .type = PORT_OPT_BOOL,
	  .flags = PORT_OPT_COMMON | PORT_OPT_BARE,
	  PORT_OPT_AT(struct port_spec, isolated),
	  .help = "on|off: talks to no other isolated port of its domain" },
	{ .key = "tagged", .type = PORT_OPT_BOOL, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, tagged),
	  .help = "on|off: frames with a VLAN tag are taken, as payload of "
		  "its domain (default: on without vlan=, off with it)" },
	{ .key = "trunk", .type = PORT_OPT_VLANS,
	  .flags = PORT_OPT_COMMON | PORT_OPT_LIST,
	  PORT_OPT_AT(struct port_spec, trunk),
	  .help = "VLANS: trunk port: frames of these VLANs (N, A-B, joined "
		  "by ':') leave and arrive tagged with 802.1Q" },
	{ .key = "latency", .type = PORT_OPT_UINT, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, latency_us), .max = PW_TARGET_MAX_US,
	  .def = PORT_LATENCY_UNSET,
	  .help = "US: latency target of its queues' auto polling (default "
		  "--latency-us)" },
	{ .key = "native", .type = PORT_OPT_UINT, .flags = PORT_OPT_COMMON,
	  PORT_OPT_AT(struct port_spec, native), .min = 1, .max = 4094,
	  .help = "N: a trunk's untagged frames are VLAN N's (default: "
		  "dropped)" },
};

#define CONF_OPT_COMMON_BIT	32	/* given-bit of conf_common_opts[0] */

_Static_assert(ARRAY_SIZE(conf_common_opts) <= 64 - CONF_OPT_COMMON_BIT,
	       "given-bits of the common keys fit a uint64_t");

/**
 * conf_parse_vlans() - add a list of VLANs to a set
 * @s:		"N", "A-B", several joined by ':' (1 <= A <= B <= 4094)
 * @set:	PORT_VLAN_WORDS words, bits added (left as they were on
 *		error only as far as the items before the bad one)
 * Return: 0 or -EINVAL
 */
static int conf_parse_vlans(const char *s, uint64_t *set)
{
	char item[16];

	while (*s) {
		size_t n = strcspn(s, ":");
		unsigned int a, b, v;
		char *dash;

		if (!n || n >= sizeof(item))
			return -EINVAL;
		memcpy(item, s, n);
		item[n] = '\0';
		dash = strchr(item, '-');
		if (dash)
			*dash++ = '\0';
		if (conf_parse_uint(item, 1, PORT_VLAN_MAX, &a))
			return -EINVAL;
		b = a;
		if (dash && conf_parse_uint(dash, a, PORT_VLAN_MAX, &b))
			return -EINVAL;
		for (v = a; v <= b; v++)
			port_vlan_add(set, v);
		s += n;
		if (*s == ':' && !*++s)
			return -EINVAL;
	}
	return 0;
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
 * conf_parse_addr() - a numeric socket address, IPv4:PORT or [IPv6]:PORT
 * @s:		text; no host names (nothing is resolved at start-up or,
 *		worse, under the sandbox)
 * @a:		result
 * Return: 0 or -EINVAL
 */
static int conf_parse_addr(const char *s, union port_addr *a)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *h = s;
	unsigned int port;
	size_t n;

	memset(a, 0, sizeof(*a));
	if (*s == '[') {
		colon = strstr(s, "]:");
		h = s + 1;
		if (!colon)
			return -EINVAL;
		n = (size_t)(colon - h);
		colon++;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return -EINVAL;
		n = (size_t)(colon - s);
	}
	if (!n || n >= sizeof(host))
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	if (conf_parse_uint(colon + 1, 0, 65535, &port))
		return -EINVAL;
	if (*s != '[' && inet_pton(AF_INET, host, &a->in4.sin_addr) == 1) {
		a->in4.sin_family = AF_INET;
		a->in4.sin_port = htons((uint16_t)port);
		return 0;
	}
	if (*s == '[' && inet_pton(AF_INET6, host, &a->in6.sin6_addr) == 1) {
		a->in6.sin6_family = AF_INET6;
		a->in6.sin6_port = htons((uint16_t)port);
		return 0;
	}
	memset(a, 0, sizeof(*a));
	return -EINVAL;
}

/**
 * conf_parse_ip() - a numeric IPv4 or IPv6 address, no port
 * @s:		text: dotted quad, or IPv6 with or without [brackets]
 * @a:		result
 * Return: 0 or -EINVAL
 */
static int conf_parse_ip(const char *s, struct port_ip *a)
{
	char host[INET6_ADDRSTRLEN + 1];
	size_t n = strlen(s);

	memset(a, 0, sizeof(*a));
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	if (!n || n >= sizeof(host))
		return -EINVAL;
	memcpy(host, s, n);
	host[n] = '\0';
	if (inet_pton(AF_INET, host, a->a) == 1) {
		a->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, host, a->a) == 1) {
		a->family = AF_INET6;
		return 0;
	}
	memset(a, 0, sizeof(*a));
	return -EINVAL;
}

/**
 * conf_opt_field() - where an option's value lives
 * @o:		option
 * @out:	the spec being parsed
 * Return: pointer to the field
 */
static void *conf_opt_field(const struct port_opt *o, struct port_spec *out)
{
	if (o->flags & PORT_OPT_COMMON)
		return (unsigned char *)out + o->off;
	return out->opts + o->off;
}

/**
 * conf_opt_find() - the table entry of @key for a port of type @ops
 * @ops:	the port's type
 * @key:	key of a spec item
 * @bit:	its given-bit: the entry's index in @ops->opts, or
 *		CONF_OPT_COMMON_BIT + its index in conf_common_opts
 * Return: the entry, or NULL if the type has no such key
 */
static const struct port_opt *conf_opt_find(const struct port_ops *ops,
					    const char *key, unsigned int *bit)
{
	unsigned int i;

	for (i = 0; i < ops->n_opts; i++) {
		if (!strcmp(ops->opts[i].key, key)) {
			*bit = i;
			return &ops->opts[i];
		}
	}
	for (i = 0; i < ARRAY_SIZE(conf_common_opts); i++) {
		if (!strcmp(conf_common_opts[i].key, key)) {
			*bit = CONF_OPT_COMMON_BIT + i;
			return &conf_common_opts[i];
		}
	}
	return NULL;
}

/**
 * conf_opt_default() - write an option's default into the spec
 * @o:		option
 * @out:	spec, zeroed before the first default
 */
static void conf_opt_default(const struct port_opt *o, struct port_spec *out)
{
	void *f = conf_opt_field(o, out);

	switch (o->type) {
	case PORT_OPT_BOOL:
		*(bool *)f = o->def;
		break;
	case PORT_OPT_UINT:
		*(unsigned int *)f = (unsigned int)o->def;
		break;
	case PORT_OPT_SIZE:
	case PORT_OPT_RATE:
		*(uint64_t *)f = o->def;
		break;
	case PORT_OPT_ACL:
		conf_sock_init(f);	/* the same for each of its keys */
		break;
	default:			/* text, MAC, address: zero */
		break;
	}
}

/**
 * conf_opt_parse() - parse one item's value into the spec
 * @spec:	the whole spec, for the message
 * @o:		the key's entry
 * @val:	the value, NULL if the key stood alone
 * @out:	spec being parsed
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL
 */
static int conf_opt_parse(const char *spec, const struct port_opt *o,
			  const char *val, struct port_spec *out, char *err,
			  size_t errlen)
{
	void *f = conf_opt_field(o, out);
	const char *k = o->key;
	unsigned int u;
	int r;

#define OPT_ERR(...)							\
	return conf_err(err, errlen, "vhostd: --port '%s': " __VA_ARGS__)

	if (o->type == PORT_OPT_BOOL) {
		if (!val && (o->flags & PORT_OPT_BARE))
			val = "on";	/* a flag, as QEMU's "server" */
		if (val && !strcmp(val, "on"))
			*(bool *)f = true;
		else if (val && !strcmp(val, "off"))
			*(bool *)f = false;
		else if (o->flags & PORT_OPT_BARE)
			OPT_ERR("%s takes no value, or on/off, not '%s'", spec,
				k, val);
		else if (val)
			OPT_ERR("%s takes on or off, not '%s'", spec, k, val);
		else
			OPT_ERR("key '%s' needs a value", spec, k);
		return 0;
	}
	if (!val)
		OPT_ERR("key '%s' needs a value", spec, k);

	switch (o->type) {
	case PORT_OPT_STR:
	case PORT_OPT_NAME:
	case PORT_OPT_IFNAME:
	case PORT_OPT_PATH:
		if (!conf_copy(f, o->size, val))
			OPT_ERR("%s too long (max %u bytes)", spec, k,
				o->size - 1);
		if (o->type == PORT_OPT_NAME && !conf_name_ok(val))
			OPT_ERR("%s '%s' may only contain letters, digits, "
				"'_', '.' and '-'", spec, k, val);
		if (o->type == PORT_OPT_IFNAME && !conf_ifname_ok(val))
			OPT_ERR("%s '%s' is not a valid interface name", spec,
				k, val);
		return 0;
	case PORT_OPT_UINT:
		r = conf_parse_uint(val, (unsigned long)o->min,
				    (unsigned long)o->max, &u);
		if (r == -EINVAL)
			OPT_ERR("%s '%s' is not a number", spec, k, val);
		if (r)
			OPT_ERR("%s '%s' out of range (%llu-%llu)", spec, k,
				val, (unsigned long long)o->min,
				(unsigned long long)o->max);
		*(unsigned int *)f = u;
		return 0;
	case PORT_OPT_SIZE:
		if (conf_parse_size(val, f))
			OPT_ERR("%s '%s' is not a size (bytes, or a number "
				"with K, M, G or T)", spec, k, val);
		if (o->max && (*(uint64_t *)f < o->min ||
			       *(uint64_t *)f > o->max))
			OPT_ERR("%s '%s' out of range (%llu-%llu bytes)", spec,
				k, val, (unsigned long long)o->min,
				(unsigned long long)o->max);
		return 0;
	case PORT_OPT_RATE:
		r = conf_parse_rate(val, f);
		if (r == -EINVAL)
			OPT_ERR("%s '%s' is not a rate (bits/s, or a number "
				"with k, M, G or T; 0 or off: none)", spec, k,
				val);
		if (r)
			OPT_ERR("%s '%s' out of range (0, or %llu-%llu bits/s)",
				spec, k, val, (unsigned long long)o->min,
				(unsigned long long)o->max);
		return 0;
	case PORT_OPT_MAC:
		r = conf_parse_mac(val, f);
		if (r == -ERANGE)
			OPT_ERR("%s '%s' is not a station address "
				"(multicast or zero)", spec, k, val);
		if (r)
			OPT_ERR("%s '%s' is not a MAC address "
				"(aa:bb:cc:dd:ee:ff)", spec, k, val);
		return 0;
	case PORT_OPT_ADDR:
		if (conf_parse_addr(val, f))
			OPT_ERR("%s '%s' is not an address (IPV4:PORT or "
				"[IPV6]:PORT, numeric)", spec, k, val);
		return 0;
	case PORT_OPT_IP: {
		struct port_ip *ip = f;
		unsigned int i, n = 1;

		if (o->flags & PORT_OPT_LIST) {
			n = o->size / sizeof(*ip);
			for (i = 0; i < n && ip->family; i++)
				ip++;
			if (i == n)
				OPT_ERR("%s given more than %u times", spec, k,
					n);
		}
		if (conf_parse_ip(val, ip))
			OPT_ERR("%s '%s' is not an IP address (numeric IPv4 "
				"or IPv6)", spec, k, val);
		if (o->flags & PORT_OPT_LIST) {
			for (i = 0; &((struct port_ip *)f)[i] != ip; i++)
				if (!memcmp(&((struct port_ip *)f)[i], ip,
					    sizeof(*ip)))
					OPT_ERR("%s '%s' given twice", spec, k,
						val);
		}
		return 0;
	}
	case PORT_OPT_VLANS:
		r = conf_parse_vlans(val, f);
		if (r)
			OPT_ERR("%s '%s' is not a list of VLANs (N or A-B, "
				"1-4094, joined by ':')", spec, k, val);
		return 0;
	case PORT_OPT_ACL:
		return conf_sock_parse(f, conf_sock_key(k), val, "--port",
				       spec, err, errlen);
	case PORT_OPT_BOOL:
		break;
	}
	OPT_ERR("key '%s' has no parser", spec, k);
#undef OPT_ERR
}

/**
 * conf_type_list() - the registered types, for a message
 * @buf:	output, "vhost-user, tap or dgram"
 * @size:	its size
 * Return: @buf
 */
static const char *conf_type_list(char *buf, size_t size)
{
	const struct port_ops *ops;
	unsigned int i;
	size_t n = 0;

	*buf = '\0';
	for (i = 0; (ops = port_ops_at(i)) && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s",
				      !i ? "" : port_ops_at(i + 1) ? ", " :
				      " or ", ops->type);
	return buf;
}

/**
 * conf_check_trunk() - trunk=, native=, vlan= and tagged= together
 * @ops:	the port's type
 * @out:	the spec, parsed
 * @given:	its given-bits
 *
 * A trunk's VLANs are named by its tags, so vlan= (an access port's one
 * VLAN) and tagged= (an access port's tags as payload) mean nothing on
 * it; its untagged VLAN is native=, which joins the list.
 *
 * Return: NULL, or why the combination is refused
 */
static const char *conf_check_trunk(const struct port_ops *ops,
				    struct port_spec *out, uint64_t given)
{
	unsigned int bit;
	bool tagged_given = conf_opt_find(ops, "tagged", &bit) &&
			    (given & 1ULL << bit);

	if (!conf_opt_find(ops, "trunk", &bit) || !(given & 1ULL << bit)) {
		if (out->native)
			return "native= is a trunk's untagged VLAN: it needs "
			       "trunk=";
		return NULL;
	}
	if (out->vlan_set)
		return "vlan= makes an access port; a trunk's untagged VLAN "
		       "is native=";
	if (tagged_given)
		return "tagged= is for access ports; a trunk takes the tags "
		       "of its trunk= VLANs";
	out->is_trunk = true;
	out->tagged = false;
	out->vlan = out->native;
	if (out->native)
		port_vlan_add(out->trunk, out->native);
	return NULL;
}

/**
 * conf_parse_port() - parse one --port spec
 * @spec:	"TYPE,KEY=VALUE,..." (",," is a literal comma): the keys of
 *		conf_common_opts and of the type's table (port.h)
 * @index:	port index, for the default name
 * @out:	result (fully written on success, garbage on error)
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL
 */
int conf_parse_port(const char *spec, unsigned int index,
		    struct port_spec *out, char *err, size_t errlen)
{
	char item[CONF_SPEC_MAX], types[128];
	const struct port_ops *ops;
	const struct port_opt *o;
	const char *p = spec, *why;
	uint64_t given = 0;
	unsigned int i, bit;
	bool more;
	int n;

	memset(out, 0, sizeof(*out));

#define SPEC_ERR(...)							\
	return conf_err(err, errlen, "vhostd: --port '%s': " __VA_ARGS__)

	if (strlen(spec) >= CONF_SPEC_MAX)
		return conf_err(err, errlen,
				"vhostd: --port: spec longer than %d bytes",
				CONF_SPEC_MAX - 1);

	n = conf_next_item(&p, item, sizeof(item), &more);
	if (n <= 0)
		SPEC_ERR("missing port type (%s)", spec,
			 conf_type_list(types, sizeof(types)));
	ops = port_ops_find(item);
	if (!ops)
		SPEC_ERR("unknown port type '%s' (%s)", spec, item,
			 conf_type_list(types, sizeof(types)));
	if (ops->opts_size > sizeof(out->opts) || ops->n_opts > 32)
		SPEC_ERR("type '%s' declares more options than fit", spec,
			 ops->type);
	snprintf(out->type, sizeof(out->type), "%s", ops->type);

	for (i = 0; i < ARRAY_SIZE(conf_common_opts); i++)
		conf_opt_default(&conf_common_opts[i], out);
	for (i = 0; i < ops->n_opts; i++)
		conf_opt_default(&ops->opts[i], out);

	while (more) {
		char *key = item, *val;

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
		o = conf_opt_find(ops, key, &bit);
		if (!o)
			SPEC_ERR("unknown key '%s'", spec, key);
		if ((given & 1ULL << bit) && !(o->flags & PORT_OPT_LIST))
			SPEC_ERR("key '%s' given twice", spec, key);
		given |= 1ULL << bit;
		if (conf_opt_parse(spec, o, val, out, err, errlen))
			return -EINVAL;
	}

	for (i = 0; i < ops->n_opts; i++)
		if ((ops->opts[i].flags & PORT_OPT_REQUIRED) &&
		    !(given & 1ULL << i))
			SPEC_ERR("missing required key '%s'", spec,
				 ops->opts[i].key);
	why = ops->check ? ops->check(out->opts, (uint32_t)given) : NULL;
	if (why)
		SPEC_ERR("%s", spec, why);

	/* rx-/tx- keys, else rate= and burst=, else none and default. */
	if (out->rx_rate == PORT_RATE_UNSET)
		out->rx_rate = out->rate == PORT_RATE_UNSET ? 0 : out->rate;
	if (out->tx_rate == PORT_RATE_UNSET)
		out->tx_rate = out->rate == PORT_RATE_UNSET ? 0 : out->rate;
	if (!out->rx_burst)
		out->rx_burst = out->burst;
	if (!out->tx_burst)
		out->tx_burst = out->burst;

	/* vlan= makes a tenant's access port, which refuses VLAN tags
	 * unless told; a port without it is in the default domain and
	 * carries its peer's tags as before domains existed.
	 */
	out->vlan_set = out->vlan != 0;
	if (!out->vlan_set)
		out->vlan = PORT_VLAN_DEFAULT;
	if (conf_opt_find(ops, "tagged", &bit) && !(given & 1ULL << bit))
		out->tagged = !out->vlan_set;
	why = conf_check_trunk(ops, out, given);
	if (why)
		SPEC_ERR("%s", spec, why);

	out->given = (uint32_t)given;
	out->has_mac = out->mac[0] | out->mac[1] | out->mac[2] | out->mac[3] |
		       out->mac[4] | out->mac[5];
	out->named = *out->name;
	if (!out->named)
		snprintf(out->name, sizeof(out->name), "%s%u",
			 ops->name_prefix, index);
#undef SPEC_ERR
	return 0;
}

/**
 * conf_port_opt() - find a key's value in a parsed spec
 * @s:		parsed spec
 * @key:	a key of its type's table, or a common key
 * Return: the field (its type as the table says), or NULL if the type
 *	   has no such key
 */
const void *conf_port_opt(const struct port_spec *s, const char *key)
{
	const struct port_ops *ops = port_ops_find(s->type);
	const struct port_opt *o;
	unsigned int bit;

	if (!ops || !(o = conf_opt_find(ops, key, &bit)))
		return NULL;
	return conf_opt_field(o, (struct port_spec *)s);
}

/**
 * conf_port_startup_key() - a key given in @s that only start-up allows
 * @s:		parsed spec
 * Return: the key (PORT_OPT_STARTUP), or NULL if the port may be added
 *	   at run time as far as its keys go
 */
const char *conf_port_startup_key(const struct port_spec *s)
{
	const struct port_ops *ops = port_ops_find(s->type);
	unsigned int i;

	for (i = 0; ops && i < ops->n_opts; i++)
		if ((ops->opts[i].flags & PORT_OPT_STARTUP) &&
		    (s->given & 1U << i))
			return ops->opts[i].key;
	return NULL;
}

/**
 * conf_port_unique() - the @i-th value of @s that no other port may share
 * @s:		parsed spec
 * @i:		index, from 0
 * @key:	out: its key
 * @path:	out: whether it is a filesystem path (PORT_OPT_PATH)
 * Return: the value (text), or NULL past the last
 */
const char *conf_port_unique(const struct port_spec *s, unsigned int i,
			     const char **key, bool *path)
{
	const struct port_ops *ops = port_ops_find(s->type);
	unsigned int j;

	for (j = 0; ops && j < ops->n_opts; j++) {
		const struct port_opt *o = &ops->opts[j];
		bool text = o->type == PORT_OPT_STR ||
			    o->type == PORT_OPT_NAME ||
			    o->type == PORT_OPT_IFNAME ||
			    o->type == PORT_OPT_PATH;

		if (!(o->flags & PORT_OPT_UNIQUE) || !text)
			continue;
		if (i--)
			continue;
		*key = o->key;
		*path = o->type == PORT_OPT_PATH;
		return conf_opt_field(o, (struct port_spec *)s);
	}
	return NULL;
}

/**
 * conf_port_clash() - whether two ports would share a unique value
 * @a:		parsed spec
 * @b:		another
 * @key:	out: the key they share
 * Return: the shared value (of @a, never empty), or NULL
 */
const char *conf_port_clash(const struct port_spec *a,
			    const struct port_spec *b, const char **key)
{
	const char *va, *vb, *kb;
	unsigned int i, j;
	bool path;

	for (i = 0; (va = conf_port_unique(a, i, key, &path)); i++) {
		if (!*va)
			continue;
		for (j = 0; (vb = conf_port_unique(b, j, &kb, &path)); j++)
			if (!strcmp(*key, kb) && !strcmp(va, vb))
				return va;
	}
	return NULL;
}

/**
 * conf_check_ports() - reject two ports sharing a name, a unique value
 *			(path, ifname) or a locked MAC
 * @c:		parsed configuration
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL
 */
static int conf_check_ports(const struct conf *c, char *err, size_t errlen)
{
	const char *key, *val;
	unsigned int i, j;
	bool path;

	for (i = 0; i < c->nports; i++) {
		const struct port_spec *a = &c->ports[i];

		for (j = 0; j < i; j++) {
			const struct port_spec *b = &c->ports[j];

			if (!strcmp(a->name, b->name))
				return conf_err(err, errlen,
						"vhostd: ports %u and %u are "
						"both named '%s'", j, i,
						a->name);
			val = conf_port_clash(a, b, &key);
			if (val)
				return conf_err(err, errlen,
						"vhostd: ports '%s' and '%s' "
						"both use %s '%s'", b->name,
						a->name, key, val);
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
		for (j = 0; *c->ctl_path &&
			    (val = conf_port_unique(a, j, &key, &path)); j++)
			if (path && !strcmp(val, c->ctl_path))
				return conf_err(err, errlen,
						"vhostd: port '%s' uses the "
						"--ctl path '%s'", a->name,
						val);
	}
	return 0;
}

/**
 * conf_usage_opt() - one key's --help line, from its table entry
 * @f:		FILE * to print to
 * @o:		the key
 *
 * @o->help is "VALUE: what" or, for a key that takes none, "what".
 */
static void conf_usage_opt(FILE *f, const struct port_opt *o)
{
	const char *colon = strstr(o->help, ": ");
	char left[48];

	/* "VALUE: what": VALUE is one word */
	if (colon && memchr(o->help, ' ', (size_t)(colon - o->help)))
		colon = NULL;

	if (colon && o->type != PORT_OPT_BOOL)
		snprintf(left, sizeof(left), "%s=%.*s", o->key,
			 (int)(colon - o->help), o->help);
	else if (o->type == PORT_OPT_BOOL && !(o->flags & PORT_OPT_BARE))
		snprintf(left, sizeof(left), "%s=on|off", o->key);
	else
		snprintf(left, sizeof(left), "%s", o->key);
	fprintf(f, "      %-18s %s", left, colon ? colon + 2 : o->help);
	if (o->type == PORT_OPT_VLANS)
		fputs(" (repeatable)", f);
	else if (o->flags & PORT_OPT_LIST)
		fprintf(f, " (repeatable, at most %zu)",
			o->size / sizeof(struct port_ip));
	if (o->flags & PORT_OPT_REQUIRED)
		fputs(" (required)", f);
	else if (o->type == PORT_OPT_UINT && !strstr(o->help, "default"))
		fprintf(f, " (%llu-%llu, default %llu)",
			(unsigned long long)o->min, (unsigned long long)o->max,
			(unsigned long long)o->def);
	else if (o->type == PORT_OPT_UINT)
		fprintf(f, " (%llu-%llu)", (unsigned long long)o->min,
			(unsigned long long)o->max);
	else if (o->type == PORT_OPT_BOOL && !(o->flags & PORT_OPT_BARE) &&
		 !strstr(o->help, "default"))
		fprintf(f, " (default %s)", o->def ? "on" : "off");
	fputc('\n', f);
}

/**
 * conf_usage() - print the --help text
 * @f:		FILE * to print to
 *
 * The keys of each port type come from the type's option table, so the
 * list cannot drift from what the parser takes.
 */
void conf_usage(void *f)
{
	const struct port_ops *ops;
	unsigned int t, i;

	fputs(
"Usage: vhostd --port SPEC [--port SPEC]... [OPTION]...\n"
"Userspace vhost-user virtio-net backend and L2 learning switch.\n"
"\n"
"Ports (repeatable, at most 64): --port TYPE,KEY=VALUE,...  Keys are comma\n"
"separated, ',,' is a literal comma inside a value.  The types and their\n"
"keys:\n", (FILE *)f);
	for (t = 0; (ops = port_ops_at(t)); t++) {
		fprintf(f, "  --port %s", ops->type);
		for (i = 0; i < ops->n_opts; i++)
			if (ops->opts[i].flags & PORT_OPT_REQUIRED)
				fprintf(f, ",%s=%.*s", ops->opts[i].key,
					(int)strcspn(ops->opts[i].help, ":"),
					ops->opts[i].help);
		fputs("[,KEY=VALUE]...\n", f);
		for (i = 0; i < ops->n_opts; i++)
			conf_usage_opt(f, &ops->opts[i]);
	}
	fputs("  every type also takes:\n", f);
	for (i = 0; i < ARRAY_SIZE(conf_common_opts); i++)
		conf_usage_opt(f, &conf_common_opts[i]);
	fputs(
"  vhost-user: vhostd listens on SOCK (QEMU: -chardev socket,path=SOCK,\n"
"        reconnect=1); the guest's memory must be on tmpfs (memfd) or\n"
"        hugetlbfs.  tap: created or attached in vhostd's network\n"
"        namespace, not configured.  Beyond max-macs sources are not\n"
"        learned; flood-rate limits broadcast, multicast and unknown-\n"
"        unicast frames.  Names use letters, digits, '_', '.', '-'.\n"
"\n"
"Options:\n"
"      --config FILE    read options from FILE, one per line: \"port SPEC\",\n"
"                       \"workers 2\", '#' comments; vhostctl reload or\n"
"                       SIGHUP adds and removes its ports to match it\n"
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
"      --metrics ADDR:PORT  serve \"vhostctl metrics\" over HTTP for\n"
"                       Prometheus: GET /metrics on a numeric address,\n"
"                       127.0.0.1:9464 or [::1]:9464 (default: none)\n"
"  -w, --workers N      datapath threads, 1-16 (default 1)\n"
"      --cpus LIST      pin worker i to the i-th CPU of LIST (as taskset\n"
"                       -c: 1,3 or 0-3; reused from the start when LIST\n"
"                       is shorter than --workers; default: not pinned)\n"
"  -P, --poll-us auto|N how long a dry queue is busy-polled before its\n"
"                       worker sleeps: auto (default) chooses per queue\n"
"                       from its traffic, --latency-us and CPU\n"
"                       contention; N: a fixed N microseconds, 0-1000000\n"
"                       (0: sleep at once), for experiments\n"
"      --latency-us N   latency target of auto polling: the delay per\n"
"                       frame a sleeping queue may add, 0-1000000\n"
"                       (default 0; a port's latency= overrides it)\n"
"  -a, --fdb-age S      forget MACs unseen for S seconds, 0-604800\n"
"                       (default 300; 0: never)\n"
"  -v, --verbose        debug messages too (as --log-level debug)\n"
"      --log SINK       auto (default: the journal if stderr is it, else\n"
"                       stderr), stderr, journal or syslog\n"
"      --log-level L    error, warning, info (default) or debug; changed\n"
"                       at run time with vhostctl log level L\n"
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
	CONF_OPT_METRICS,
	CONF_OPT_CONFIG,
	CONF_OPT_LOG,
	CONF_OPT_LOG_LEVEL,
	CONF_OPT_LATENCY,
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
	{ "metrics",	required_argument,	NULL, CONF_OPT_METRICS },
	{ "config",	required_argument,	NULL, CONF_OPT_CONFIG },
	{ "log",	required_argument,	NULL, CONF_OPT_LOG },
	{ "log-level",	required_argument,	NULL, CONF_OPT_LOG_LEVEL },
	{ "poll-us",	required_argument,	NULL, 'P' },
	{ "latency-us",	required_argument,	NULL, CONF_OPT_LATENCY },
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
 * conf_parse_metrics() - --metrics ADDR:PORT
 * @val:	"IPV4:PORT" or "[IPV6]:PORT", numeric (nothing is resolved)
 * @c:		result: @c->metrics
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0 or -EINVAL
 */
static int conf_parse_metrics(const char *val, struct conf *c, char *err,
			      size_t errlen)
{
	if (conf_parse_addr(val, &c->metrics))
		return conf_err(err, errlen,
				"vhostd: --metrics '%s': not an address "
				"(IPV4:PORT or [IPV6]:PORT, numeric: e.g. "
				"127.0.0.1:9464 or [::1]:9464)", val);
	if ((c->metrics.sa.sa_family == AF_INET && !c->metrics.in4.sin_port) ||
	    (c->metrics.sa.sa_family == AF_INET6 &&
	     !c->metrics.in6.sin6_port)) {
		memset(&c->metrics, 0, sizeof(c->metrics));
		return conf_err(err, errlen,
				"vhostd: --metrics '%s': port 0 (a scraper "
				"needs to know the port)", val);
	}
	return 0;
}

/**
 * struct conf_state - what conf_parse() tracks across options
 * @ctl_perm:	--ctl-perm was given
 * @file:	the --config file being read, or NULL on the command line
 * @line:	its line number
 */
struct conf_state {
	bool ctl_perm;
	const char *file;
	unsigned int line;
};

static int conf_load(struct conf *c, const char *path, struct conf_state *st,
		     char *err, size_t errlen);

/**
 * conf_apply() - one option, from the command line or a --config line
 * @c:		configuration so far
 * @opt:	its getopt value (conf_options)
 * @val:	its argument, or NULL
 * @st:		parse state
 * @err:	one-line error message on failure
 * @errlen:	size of @err
 * Return: 0, 1 if --help or --version was printed, or -EINVAL
 */
static int conf_apply(struct conf *c, int opt, const char *val,
		      struct conf_state *st, char *err, size_t errlen)
{
	int r;

	switch (opt) {
	case 'p':
		if (c->nports >= CONF_PORTS_MAX)
			return conf_err(err, errlen, "vhostd: --port '%s': more "
					"than %d ports", val, CONF_PORTS_MAX);
		r = conf_parse_port(val, c->nports, &c->ports[c->nports], err,
				    errlen);
		if (r)
			return r;
		if (st->file) {
			c->from_file |= 1ULL << c->nports;
			c->line[c->nports] = st->line;
		}
		c->nports++;
		return 0;
	case 'c':
		return conf_parse_path_opt("ctl", val, c->ctl_path,
					   sizeof(c->ctl_path), err, errlen);
	case CONF_OPT_CTL_PERM:
		st->ctl_perm = true;
		return conf_sock_parse_spec(val, &c->ctl_sock, "--ctl-perm",
					    err, errlen);
	case CONF_OPT_USER:
		return conf_parse_user(val, &c->user, err, errlen);
	case CONF_OPT_NO_SANDBOX:
		c->no_sandbox = true;
		return 0;
	case CONF_OPT_STATE:
		return conf_parse_path_opt("state", val, c->state_path,
					   sizeof(c->state_path), err, errlen);
	case CONF_OPT_CONFIG:
		if (st->file)
			return conf_err(err, errlen, "vhostd: config may not "
					"name another file");
		if (*c->config_path)
			return conf_err(err, errlen, "vhostd: --config given "
					"twice");
		r = conf_parse_path_opt("config", val, c->config_path,
					sizeof(c->config_path), err, errlen);
		return r ? r : conf_load(c, val, st, err, errlen);
	case 'w':
		return conf_parse_num_opt("workers", val, 1, WORKERS_MAX,
					  &c->workers, err, errlen);
	case CONF_OPT_CPUS:
		return conf_parse_cpus(val, c, err, errlen);
	case CONF_OPT_METRICS:
		return conf_parse_metrics(val, c, err, errlen);
	case 'P': {
		unsigned int us;
		int rc;

		if (!strcmp(val, "auto")) {
			c->poll_us = CONF_POLL_AUTO;
			return 0;
		}
		rc = conf_parse_num_opt("poll-us", val, 0, CONF_POLL_US_MAX,
					&us, err, errlen);
		if (!rc)
			c->poll_us = (int)us;
		return rc;
	}
	case CONF_OPT_LATENCY:
		return conf_parse_num_opt("latency-us", val, 0,
					  PW_TARGET_MAX_US, &c->latency_us,
					  err, errlen);
	case 'a':
		return conf_parse_num_opt("fdb-age", val, 0, CONF_FDB_AGE_MAX,
					  &c->fdb_age_s, err, errlen);
	case 'v':
		c->verbose++;
		return 0;
	case CONF_OPT_LOG:
		r = log_sink_parse(val);
		if (r < 0)
			return conf_err(err, errlen, "vhostd: --log '%s': not "
					"auto, stderr, journal or syslog", val);
		c->log_sink = r;
		return 0;
	case CONF_OPT_LOG_LEVEL:
		r = log_level_parse(val);
		if (r < 0)
			return conf_err(err, errlen, "vhostd: --log-level '%s': "
					"not error, warning, info or debug", val);
		c->log_level = r;
		return 0;
	case 'h':
		conf_usage(stdout);
		return 1;
	case 'V':
		printf("vhostd %s\n", VHOSTD_VERSION);
		return 1;
	}
	return conf_err(err, errlen, "vhostd: option %d not handled", opt);
}

/**
 * conf_file_line() - one line of a --config file: "OPTION [VALUE]"
 * @c:		configuration so far
 * @text:	the line, without its newline; changed (split in place)
 * @st:		parse state, @st->file and @st->line set
 * @err:	one-line error message on failure, without the file and line
 * @errlen:	size of @err
 *
 * OPTION is a long option without its dashes (they may be given), VALUE
 * what follows it and blanks or one '=', up to the last non-blank.  A
 * line whose first non-blank is '#', or that is blank, is skipped.
 *
 * Return: 0 or -EINVAL
 */
static int conf_file_line(struct conf *c, char *text, struct conf_state *st,
			  char *err, size_t errlen)
{
	const struct option *o;
	char *key = text, *val, *end;

	while (*key == ' ' || *key == '\t')
		key++;
	end = key + strlen(key);
	while (end > key && (end[-1] == ' ' || end[-1] == '\t' ||
			     end[-1] == '\r'))
		*--end = '\0';
	if (!*key || *key == '#')
		return 0;
	if (key[0] == '-' && key[1] == '-')
		key += 2;
	val = key + strcspn(key, " \t=");
	if (*val) {
		bool eq = *val == '=';

		*val++ = '\0';
		while (*val == ' ' || *val == '\t')
			val++;
		if (!eq && *val == '=') {	/* "port = SPEC" */
			val++;
			while (*val == ' ' || *val == '\t')
				val++;
		}
	}
	for (o = conf_options; o->name; o++)
		if (!strcmp(o->name, key))
			break;
	if (!o->name)
		return conf_err(err, errlen, "vhostd: unknown option '%s'",
				key);
	if (o->val == 'h' || o->val == 'V')
		return conf_err(err, errlen, "vhostd: '%s' is for the command "
				"line", key);
	if (o->has_arg == required_argument && !*val)
		return conf_err(err, errlen, "vhostd: '%s' needs a value", key);
	if (o->has_arg == no_argument && *val)
		return conf_err(err, errlen, "vhostd: '%s' takes no value "
				"('%s')", key, val);
	return conf_apply(c, o->val, val, st, err, errlen);
}

/**
 * conf_load() - read a --config file and apply its lines in order
 * @c:		configuration so far
 * @path:	the file
 * @st:		parse state
 * @err:	one-line error message on failure: "vhostd: FILE:LINE: ..."
 * @errlen:	size of @err
 *
 * The whole file is checked before conf_parse() returns, and nothing is
 * applied by anyone unless all of it parses: start-up exits 2, a reload
 * (conf_child.c) changes nothing.
 *
 * Return: 0 or -EINVAL
 */
static int conf_load(struct conf *c, const char *path, struct conf_state *st,
		     char *err, size_t errlen)
{
	static char buf[CONF_FILE_MAX + 1];
	char msg[1024], *line, *next;
	size_t len = 0;
	struct stat sb;
	ssize_t n;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return conf_err(err, errlen, "vhostd: --config %s: %s", path,
				strerror(errno));
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return conf_err(err, errlen, "vhostd: --config %s: not a "
				"regular file", path);
	}
	while (len < sizeof(buf) &&
	       (n = read(fd, buf + len, sizeof(buf) - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = errno;
			close(fd);
			return conf_err(err, errlen, "vhostd: --config %s: %s",
					path, strerror(r));
		}
		len += (size_t)n;
	}
	close(fd);
	if (len > CONF_FILE_MAX)
		return conf_err(err, errlen, "vhostd: --config %s: larger than "
				"%d bytes", path, CONF_FILE_MAX);
	if (memchr(buf, '\0', len))
		return conf_err(err, errlen, "vhostd: --config %s: a NUL byte "
				"(not a text file)", path);
	buf[len] = '\0';

	st->file = path;
	st->line = 0;
	for (line = buf; line && r == 0; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!next && !*line)
			break;
		st->line++;
		r = conf_file_line(c, line, st, msg, sizeof(msg));
	}
	st->file = NULL;
	if (r < 0) {
		size_t l = strlen("vhostd: ");

		return conf_err(err, errlen, "vhostd: %s:%u: %s", path,
				st->line, strncmp(msg, "vhostd: ", l) ?
				msg : msg + l);
	}
	return 0;
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
 * Context: start-up, and conf_child.c's process for a reload; uses
 * getopt_long()'s global state (reset here, so it may be called again).
 */
int conf_parse(int argc, char **argv, struct conf *c, char *err,
	       size_t errlen)
{
	struct conf_state st = { 0 };
	int opt, r;

	memset(c, 0, sizeof(*c));
	c->workers = 1;
	c->poll_us = CONF_POLL_AUTO;
	c->latency_us = PW_TARGET_DEFAULT_US;
	c->fdb_age_s = 300;
	conf_sock_init(&c->ctl_sock);
	c->user.uid = CONF_ID_NONE;
	c->user.gid = CONF_ID_NONE;
	c->log_sink = LOG_SINK_AUTO;
	c->log_level = -1;
	if (err && errlen)
		*err = '\0';

	optind = 0;	/* GNU: full re-initialisation */
	opterr = 0;	/* we print our own one-line errors */
	while ((opt = getopt_long(argc, argv, ":p:c:w:P:a:vhV", conf_options,
				  NULL)) != -1) {
		switch (opt) {
		case ':':
			return conf_err(err, errlen,
					"vhostd: option '%s' needs an argument",
					argv[optind - 1]);
		case '?':
			if (optopt)
				return conf_err(err, errlen,
						"vhostd: unknown option '-%c' "
						"(see --help)", optopt);
			return conf_err(err, errlen,
					"vhostd: unknown option '%s' "
					"(see --help)", argv[optind - 1]);
		}
		r = conf_apply(c, opt, optarg, &st, err, errlen);
		if (r)
			return r;
	}
	if (optind < argc)
		return conf_err(err, errlen,
				"vhostd: unexpected argument '%s' (see --help)",
				argv[optind]);
	if (st.ctl_perm && !*c->ctl_path)
		return conf_err(err, errlen,
				"vhostd: --ctl-perm without --ctl");
	return conf_check_ports(c, err, errlen);
}

/**
 * conf_log_level() - the log level a configuration asks for
 * @c:		parsed configuration
 * Return: --log-level's, else LOG_LVL_DEBUG with -v, else LOG_LVL_INFO
 */
int conf_log_level(const struct conf *c)
{
	if (c->log_level >= 0)
		return c->log_level;
	return c->verbose ? LOG_LVL_DEBUG : LOG_LVL_INFO;
}

/**
 * conf_same_settings() - whether two parses agree on all but their ports
 * @a:		one (the running configuration)
 * @b:		the other (a reload's)
 *
 * What is not a port is set up once, at start-up (workers, sockets, the
 * user, the sandbox): a reload that would change it is refused whole.
 * The log level is not compared: a reload applies it (reload.c).
 *
 * Return: NULL if they agree, else the option that differs first
 */
const char *conf_same_settings(const struct conf *a, const struct conf *b)
{
	if (a->workers != b->workers)
		return "workers";
	if (a->ncpus != b->ncpus ||
	    memcmp(a->cpus, b->cpus, a->ncpus * sizeof(a->cpus[0])))
		return "cpus";
	if (a->poll_us != b->poll_us)
		return "poll-us";
	if (a->latency_us != b->latency_us)
		return "latency-us";
	if (a->fdb_age_s != b->fdb_age_s)
		return "fdb-age";
	if (strcmp(a->ctl_path, b->ctl_path))
		return "ctl";
	if (memcmp(&a->ctl_sock, &b->ctl_sock, sizeof(a->ctl_sock)))
		return "ctl-perm";
	if (a->user.uid != b->user.uid || a->user.gid != b->user.gid ||
	    a->user.group_set != b->user.group_set)
		return "user";
	if (a->no_sandbox != b->no_sandbox)
		return "no-sandbox";
	if (strcmp(a->state_path, b->state_path))
		return "state";
	if (a->log_sink != b->log_sink)
		return "log";
	if (strcmp(a->config_path, b->config_path))
		return "config";
	return NULL;
}
