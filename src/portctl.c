// SPDX-License-Identifier: GPL-2.0-or-later
/* portctl.c - ports added and removed at run time (ctl "port add/del")
 *
 * A spec from ctl is held to what conf.c holds the command line to: the
 * same parser (conf_parse_port()), then the checks conf_check_ports()
 * makes between ports, against the ports there are now: a name, a socket
 * path and a locked MAC belong to one port only, and no port takes the
 * control socket's path.  A port without name= gets the first free
 * "vu<N>" from its slot's index up, so a default name never collides.
 *
 * A type whose port_ops says why it cannot be added at run time
 * (@runtime_refused) is refused with that line: TAP, because creating or
 * attaching a TAP needs CAP_NET_ADMIN (open of /dev/net/tun, TUNSETIFF),
 * which priv_drop() gave up at the end of start-up in every
 * configuration, and the seccomp filter does not allow TUNSETIFF either.
 * A vhost-user port needs only what the running daemon keeps
 * (doc/security.md, "Ports added at run time").  A spec with a key its
 * table marks PORT_OPT_STARTUP (dgram's local=/remote=: a UDP socket,
 * which the seccomp filter forbids) is refused the same way.
 *
 * Removal is switch_port_del(): out of forwarding, workers quiesced,
 * closed, its MACs and counters gone with its slot.  The --state file is
 * saved at once, so that a restart within the save period does not bring
 * back the counters or MACs of a port that is gone.
 *
 * Every error is one line, prefixed "port add: " or "port del: ", naming
 * the key or the port at fault.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "log.h"
#include "portctl.h"
#include "state.h"
#include "switch.h"
#include "util.h"

/* What conf.c's messages start with, replaced by our own prefix. */
#define PORTCTL_CONF_PREFIX	"vhostd: --port "

/**
 * portctl_find() - the port named @name
 * @name:	port name
 * Return: its index, or -1
 */
int portctl_find(const char *name)
{
	const struct port *p = switch_port_find(name);

	return p ? (int)p->idx : -1;
}

/**
 * portctl_free_slot() - the slot switch_port_add() will take
 * Return: its index, or SWITCH_PORTS_MAX if the table is full
 */
static unsigned int portctl_free_slot(void)
{
	unsigned int i;

	for (i = 0; i < SWITCH_PORTS_MAX; i++)
		if (!switch_port(i))
			break;
	return i;
}

/**
 * portctl_check() - whether @cp may be added now: a type and keys the
 *		     running daemon can open, and no name, unique value
 *		     (path, ifname) or locked MAC of a port there is, nor
 *		     the control socket's path
 * @cp:		parsed spec, named
 * @ctl_path:	control socket path ("" if none)
 * @skip:	bit i: port i does not count (a reload removes it first)
 * @prefix:	what the message starts with ("port add: ")
 * @err:	the one-line message, on refusal
 * @errlen:	its size
 * Return: 0, or -EPERM (type or key) or -EEXIST (clash) with @err set
 */
int portctl_check(const struct port_spec *cp, const char *ctl_path,
		  uint64_t skip, const char *prefix, char *err, size_t errlen)
{
	const struct port_ops *ops = port_ops_find(cp->type);
	unsigned int i, n = switch_port_count();
	const char *key, *val;
	bool path;

	if (ops && ops->runtime_refused) {
		snprintf(err, errlen, "%s%s", prefix, ops->runtime_refused);
		return -EPERM;
	}
	key = conf_port_startup_key(cp);
	if (key) {
		snprintf(err, errlen, "%s%s ports with %s= need what vhostd "
			 "gives up at start-up (a network socket); add them on "
			 "the command line", prefix, cp->type, key);
		return -EPERM;
	}
	for (i = 0; (val = conf_port_unique(cp, i, &key, &path)); i++) {
		if (path && !strcmp(val, ctl_path)) {
			snprintf(err, errlen, "%s%s '%s' is the control "
				 "socket's", prefix, key, val);
			return -EEXIST;
		}
	}
	for (i = 0; i < n; i++) {
		const struct port_spec *o = switch_port_spec(i);
		const struct port *p = switch_port(i);

		if (!o || !p || (i < 64 && (skip >> i & 1)))
			continue;
		if (!strcmp(cp->name, p->name)) {
			snprintf(err, errlen, "%sname '%s' is already in use "
				 "(port %u)", prefix, cp->name, i);
			return -EEXIST;
		}
		val = conf_port_clash(cp, o, &key);
		if (val) {
			snprintf(err, errlen, "%s%s '%s' is already used by "
				 "port '%s'", prefix, key, val, p->name);
			return -EEXIST;
		}
		if (cp->has_mac && o->has_mac &&
		    !memcmp(cp->mac, o->mac, sizeof(cp->mac))) {
			snprintf(err, errlen, "%smac "
				 "%02x:%02x:%02x:%02x:%02x:%02x is already "
				 "locked to port '%s'", prefix, cp->mac[0],
				 cp->mac[1], cp->mac[2], cp->mac[3], cp->mac[4],
				 cp->mac[5], p->name);
			return -EEXIST;
		}
	}
	return 0;
}

/**
 * portctl_default_name() - a default name no port has
 * @cp:		parsed spec without name=; its name is replaced
 * @slot:	the slot it will take
 */
static void portctl_default_name(struct port_spec *cp, unsigned int slot)
{
	const struct port_ops *ops = port_ops_find(cp->type);
	unsigned int k;

	/* At most SWITCH_PORTS_MAX names are taken: one of as many + 1
	 * candidates is free.
	 */
	for (k = slot; k <= slot + SWITCH_PORTS_MAX; k++) {
		snprintf(cp->name, sizeof(cp->name), "%s%u",
			 ops ? ops->name_prefix : "port", k);
		if (portctl_find(cp->name) < 0)
			return;
	}
}

/**
 * portctl_add() - parse, check and (if @apply) create a port
 * @spec:	a --port spec, e.g. "vhost-user,path=/run/vhostd/vm3.sock"
 * @ctl_path:	the control socket's path ("" if none)
 * @apply:	create the port; false: check only (unit tests, fuzzing)
 * @name:	the port's name, CONF_NAME_MAX bytes (set on success)
 * @err:	one-line message on failure
 * @errlen:	its size
 *
 * Return: the new port's index (SWITCH_PORTS_MAX if not @apply), or
 *	   -errno with @err set: -EINVAL bad spec, -EPERM a type that
 *	   cannot be added at run time (TAP), -EEXIST a
 *	   name, path or MAC taken, -ENOSPC table full, else what the
 *	   port's open returned
 * Context: control thread, workers running
 */
int portctl_add(const char *spec, const char *ctl_path, bool apply,
		char *name, char *err, size_t errlen)
{
	unsigned int slot = portctl_free_slot();
	const char *what, *key;
	struct port_spec cp;
	bool path;
	int rc;

	if (conf_parse_port(spec, slot, &cp, err, errlen) < 0) {
		size_t l = strlen(PORTCTL_CONF_PREFIX);
		char msg[1024];

		/* "vhostd: --port 'SPEC': unknown key 'x'" from conf.c */
		snprintf(msg, sizeof(msg), "port add: %s",
			 strncmp(err, PORTCTL_CONF_PREFIX, l) ? err : err + l);
		snprintf(err, errlen, "%s", msg);
		return -EINVAL;
	}
	if (!cp.named)
		portctl_default_name(&cp, slot);
	rc = portctl_check(&cp, ctl_path, 0, "port add: ", err, errlen);
	if (rc < 0)
		return rc;
	if (slot >= SWITCH_PORTS_MAX) {
		snprintf(err, errlen, "port add: the port table is full (%d "
			 "ports)", SWITCH_PORTS_MAX);
		return -ENOSPC;
	}
	snprintf(name, CONF_NAME_MAX, "%s", cp.name);
	if (!apply)
		return SWITCH_PORTS_MAX;

	/* What names the port to the user: its path, its ifname. */
	what = conf_port_unique(&cp, 0, &key, &path);
	if (!what)
		what = cp.type;
	rc = switch_port_add(&cp);
	if (rc < 0) {
		snprintf(err, errlen, "port add: '%s': cannot open %s: %s",
			 cp.name, what, strerror(-rc));
		return rc;
	}
	info("ctl: port %s (%s %s) added, index %d", cp.name, cp.type,
	     what, rc);
	return rc;
}

/**
 * portctl_del() - remove the port named @name
 * @name:	port name
 * @apply:	remove it; false: check only
 * @err:	one-line message on failure
 * @errlen:	its size
 *
 * Return: the removed port's index, or -ENOENT or -EBUSY (it carries a
 *	   tunnel's underlay) with @err set
 * Context: control thread, workers running
 */
int portctl_del(const char *name, bool apply, char *err, size_t errlen)
{
	int idx = portctl_find(name), rc;

	if (idx < 0) {
		snprintf(err, errlen, "port del: no port named '%.*s'",
			 CONF_NAME_MAX, name);
		return -ENOENT;
	}
	if (switch_port((unsigned int)idx)->carrying) {
		snprintf(err, errlen, "port del: %.*s carries a tunnel port's "
			 "underlay (its via=): remove that port first",
			 CONF_NAME_MAX, name);
		return -EBUSY;
	}
	if (!apply)
		return idx;
	switch_port_del((unsigned int)idx);
	info("ctl: port %s removed (index %d)", name, idx);
	/* Without a --state file this is -EBADF, and nothing to do. */
	rc = state_save();
	if (rc < 0 && rc != -EBADF)
		warn("state: cannot save after removing %s: %s", name,
		     strerror(-rc));
	return idx;
}

/**
 * portctl_set() - change a running port's rate limits
 * @arg:	"NAME,KEY=VALUE[,KEY=VALUE]...": rate= and burst= for both
 *		directions, rx-rate=, rx-burst=, tx-rate=, tx-burst= for one;
 *		a rate of 0 or off lifts the limit, a direction whose rate
 *		is set without a burst gets the default burst
 * @apply:	change it; false: check only
 * @err:	one-line message on failure
 * @errlen:	its size
 *
 * Nothing is changed unless every item parses.  The bucket restarts
 * full.
 *
 * Return: the port's index, or -EINVAL / -ENOENT with @err set
 * Context: control thread, workers running
 */
int portctl_set(const char *arg, bool apply, char *err, size_t errlen)
{
	static const char *const keys[] = {
		"rate", "burst", "rx-rate", "rx-burst", "tx-rate", "tx-burst",
	};
	char buf[512], *item, *save = NULL, name[CONF_NAME_MAX];
	uint64_t rate[RATE_DIRS], burst[RATE_DIRS], v;
	bool set_rate[RATE_DIRS] = { false }, set_burst[RATE_DIRS] = { false };
	const struct port_spec *spec;
	unsigned int k, d, given = 0;
	int idx, rc;

	if (strlen(arg) >= sizeof(buf)) {
		snprintf(err, errlen, "set: argument longer than %zu bytes",
			 sizeof(buf) - 1);
		return -EINVAL;
	}
	memcpy(buf, arg, strlen(arg) + 1);
	item = strtok_r(buf, ",", &save);
	if (!item) {
		snprintf(err, errlen, "set: NAME,KEY=VALUE... needed (keys: "
			 "rate, burst, rx-rate, rx-burst, tx-rate, tx-burst)");
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%.*s", CONF_NAME_MAX - 1, item);
	idx = portctl_find(item);
	if (idx < 0) {
		snprintf(err, errlen, "set: no port named '%.*s'",
			 CONF_NAME_MAX, item);
		return -ENOENT;
	}
	while ((item = strtok_r(NULL, ",", &save))) {
		char *val = strchr(item, '=');

		if (val)
			*val++ = '\0';
		for (k = 0; k < ARRAY_SIZE(keys); k++)
			if (!strcmp(item, keys[k]))
				break;
		if (k == ARRAY_SIZE(keys)) {
			snprintf(err, errlen, "set: unknown key '%.32s' (rate, "
				 "burst, rx-rate, rx-burst, tx-rate, tx-burst)",
				 item);
			return -EINVAL;
		}
		if (!val || !*val) {
			snprintf(err, errlen, "set: %s needs a value",
				 keys[k]);
			return -EINVAL;
		}
		if (given & 1U << k) {
			snprintf(err, errlen, "set: %s given twice", keys[k]);
			return -EINVAL;
		}
		given |= 1U << k;
		if (k % 2 == 0) {
			rc = conf_parse_rate(val, &v);
			if (rc) {
				snprintf(err, errlen, "set: %s '%.32s': %s",
					 keys[k], val, rc == -ERANGE ?
					 "out of range (0, or 8000 bits/s to "
					 "10T)" : "not a rate (bits/s, with k, "
					 "M, G or T; 0 or off: none)");
				return -EINVAL;
			}
		} else {
			rc = conf_parse_size(val, &v);
			if (!rc && (v < RATE_BURST_MIN || v > RATE_BURST_MAX))
				rc = -ERANGE;
			if (rc) {
				snprintf(err, errlen, "set: %s '%.32s': %s",
					 keys[k], val, rc == -ERANGE ?
					 "out of range (64K-4G bytes)" :
					 "not a size (bytes, with K, M or G)");
				return -EINVAL;
			}
		}
		for (d = 0; d < RATE_DIRS; d++) {
			/* rate/burst: both; rx-*: RATE_RX; tx-*: RATE_TX */
			if (k >= 2 && (k - 2) / 2 != d)
				continue;
			if (k >= 2 || !(given & 1U << (k + 2 + 2 * d))) {
				if (k % 2 == 0) {
					rate[d] = v;
					set_rate[d] = true;
				} else {
					burst[d] = v;
					set_burst[d] = true;
				}
			}
		}
	}
	if (!given) {
		snprintf(err, errlen, "set: nothing to set for '%s' (keys: "
			 "rate, burst, rx-rate, rx-burst, tx-rate, tx-burst)",
			 name);
		return -EINVAL;
	}
	if (!apply)
		return idx;
	spec = switch_port_spec((unsigned int)idx);
	for (d = 0; d < RATE_DIRS; d++) {
		uint64_t old_rate = d == RATE_RX ? spec->rx_rate : spec->tx_rate;
		uint64_t old_burst = d == RATE_RX ? spec->rx_burst :
						    spec->tx_burst;

		if (!set_rate[d] && !set_burst[d])
			continue;
		if (!set_rate[d])
			rate[d] = old_rate;
		if (!set_burst[d])
			burst[d] = set_rate[d] ? 0 : old_burst;
		switch_rate_set((unsigned int)idx, (enum rate_dir)d, rate[d],
				burst[d]);
		if (!rate[d])
			info("ctl: port %s: %s limit lifted", name,
			     d == RATE_RX ? "rx" : "tx");
		else
			info("ctl: port %s: %s limit %llu bit/s, burst %llu "
			     "bytes", name, d == RATE_RX ? "rx" : "tx",
			     (unsigned long long)rate[d],
			     (unsigned long long)(burst[d] ? burst[d] :
						  rate_default_burst(rate[d])));
	}
	return idx;
}
