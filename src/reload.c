// SPDX-License-Identifier: GPL-2.0-or-later
/* reload.c - vhostctl reload and SIGHUP: the ports of --config FILE, again
 *
 * The file's ports are matched to the ones it gave last time: by name,
 * or for a port without name= by its type and its socket path (ifname),
 * so that a line moved or inserted above it keeps its default name and
 * its guest.  A matched port whose spec is unchanged is left alone -- its
 * front end, rings, MACs and counters -- and so is every port that did
 * not come from the file.  Unmatched old ports go, unmatched new ones
 * come, and a matched one whose keys changed is removed and added again
 * (its front end reconnects).  A port of the file that is not running
 * (removed with "port del", or failed to open last time) comes back.
 *
 * The whole change is checked before any of it is made, with the checks
 * "port add" makes (portctl_check()), against the ports that stay: a type
 * the running daemon cannot open (tap), a name, path or MAC another port
 * has.  Then removals, then additions, each as portctl does them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "conf.h"
#include "log.h"
#include "portctl.h"
#include "reload.h"
#include "state.h"
#include "switch.h"
#include "util.h"

/* The running configuration (main's), for its settings and ctl path. */
static const struct conf *reload_conf;
/* The file's ports as last applied, with the names they run under. */
static struct port_spec reload_ports[CONF_PORTS_MAX];
static unsigned int reload_nports;
/* The log level the configuration asked for when last read. */
static int reload_level;

/**
 * reload_init() - remember the ports start-up took from the file
 * @c:		main's configuration, kept for the life of the process
 */
void reload_init(const struct conf *c)
{
	unsigned int i;

	reload_conf = c;
	reload_level = conf_log_level(c);
	reload_nports = 0;
	for (i = 0; i < c->nports; i++)
		if (c->from_file >> i & 1)
			reload_ports[reload_nports++] = c->ports[i];
}

/**
 * reload_same_port() - whether two specs name the same port
 * @a:		a port of the file as applied
 * @b:		a port of the file now
 * Return: true if both are named alike, or both unnamed with one type
 *	   and one socket path (ifname)
 */
static bool reload_same_port(const struct port_spec *a,
			     const struct port_spec *b)
{
	const char *va, *vb, *ka, *kb;
	bool path;

	if (a->named || b->named)
		return a->named && b->named && !strcmp(a->name, b->name);
	if (strcmp(a->type, b->type))
		return false;
	va = conf_port_unique(a, 0, &ka, &path);
	vb = conf_port_unique(b, 0, &kb, &path);
	return va && vb && *va && !strcmp(ka, kb) && !strcmp(va, vb);
}

/**
 * reload_note() - add a name to one of the result's lists
 * @r:		result
 * @list:	RELOAD_ADDED, ...
 * @name:	port name
 */
static void reload_note(struct reload_result *r, int list, const char *name)
{
	if (r->n[list] < CONF_PORTS_MAX)
		snprintf(r->names[list][r->n[list]++], CONF_NAME_MAX, "%s",
			 name);
}

/**
 * reload_name_free() - whether no port that stays, and no other port of
 *			the new list, has @name
 * @name:	candidate
 * @skip:	running ports that go
 * @list:	the new list
 * @n:		its length
 * @self:	the entry being named, not compared
 * Return: true if @name is free
 */
static bool reload_name_free(const char *name, uint64_t skip,
			     const struct port_spec *list, unsigned int n,
			     unsigned int self)
{
	int idx = portctl_find(name);
	unsigned int j;

	if (idx >= 0 && !(idx < 64 && (skip >> idx & 1)))
		return false;
	for (j = 0; j < n; j++)
		if (j != self && !strcmp(list[j].name, name))
			return false;
	return true;
}

/**
 * reload_run() - apply the file as it reads now
 * @r:		result, filled in
 *
 * Context: control thread, workers running (ctl "reload", SIGHUP)
 * Return: 0, -EINVAL (nothing applied: @r->err), -EIO (applied, but a
 *	   port in @r's failed list could not be opened: @r->err)
 */
int reload_run(struct reload_result *r)
{
	static struct conf next;
	static struct port_spec list[CONF_PORTS_MAX];
	unsigned int line[CONF_PORTS_MAX], n = 0, i, j, running = 0, adds = 0;
	int match[CONF_PORTS_MAX];	/* list[j]'s old entry, or -1 */
	bool add[CONF_PORTS_MAX], kept[CONF_PORTS_MAX] = { false };
	bool again[CONF_PORTS_MAX] = { false };	/* re-created */
	const char *file, *why;
	static char msg[sizeof(((struct reload_result *)0)->err) - 64];
	char prefix[CONF_FILE_PATH_MAX + 64];
	uint64_t skip = 0;
	int rc, idx;

	memset(r, 0, sizeof(*r));
	if (!reload_conf || !*reload_conf->config_path) {
		snprintf(r->err, sizeof(r->err), "reload: vhostd was started "
			 "without --config: there is nothing to read again");
		return -EINVAL;
	}
	file = reload_conf->config_path;
	rc = conf_child_parse(&next, msg, sizeof(msg));
	if (rc < 0) {
		snprintf(r->err, sizeof(r->err), "reload: %s: nothing applied",
			 strncmp(msg, "vhostd: ", 8) ? msg : msg + 8);
		return -EINVAL;
	}
	why = conf_same_settings(reload_conf, &next);
	if (why) {
		snprintf(r->err, sizeof(r->err), "reload: %s: '%s' differs "
			 "from what vhostd started with, and only a restart "
			 "changes it: nothing applied", file, why);
		return -EINVAL;
	}

	/* The one setting a reload applies, when the file changed it (a
	 * level set with "log level" since stays otherwise).
	 */
	if (conf_log_level(&next) != reload_level) {
		reload_level = conf_log_level(&next);
		log_set_level((enum log_level)reload_level);
		info("reload: log level %s",
		     log_level_name((enum log_level)reload_level));
	}

	for (i = 0; i < next.nports; i++) {
		if (!(next.from_file >> i & 1))
			continue;
		list[n] = next.ports[i];
		line[n++] = next.line[i];
	}

	/* Match, and what goes: an old port matched by none, or changed. */
	for (j = 0; j < n; j++) {
		match[j] = -1;
		add[j] = true;
		for (i = 0; i < reload_nports; i++) {
			if (kept[i] || !reload_same_port(&reload_ports[i],
							 &list[j]))
				continue;
			match[j] = (int)i;
			kept[i] = true;
			if (!list[j].named)	/* keeps its running name */
				memcpy(list[j].name, reload_ports[i].name,
				       sizeof(list[j].name));
			add[j] = memcmp(&list[j], &reload_ports[i],
					sizeof(list[j])) != 0;
			break;
		}
	}
	for (i = 0; i < reload_nports; i++) {
		bool changed = false;

		for (j = 0; j < n; j++)
			if (match[j] == (int)i && add[j])
				changed = true;
		if (kept[i] && !changed)
			continue;
		idx = portctl_find(reload_ports[i].name);
		if (idx >= 0 && idx < 64)
			skip |= 1ULL << idx;
	}
	/* A carrier of a tunnel's underlay (via=) goes only with a restart:
	 * the tunnel would be left sending into a port that is gone.
	 */
	for (i = 0; i < 64; i++) {
		const struct port *p = (skip >> i & 1) ? switch_port(i) : NULL;

		if (p && p->carrying) {
			snprintf(r->err, sizeof(r->err), "reload: %s: port "
				 "'%s' carries a tunnel port's underlay (its "
				 "via=): only a restart removes or changes it "
				 "(nothing applied)", file, p->name);
			return -EINVAL;
		}
	}
	/* A port kept as it was but not running comes back. */
	for (j = 0; j < n; j++)
		if (!add[j] && portctl_find(list[j].name) < 0)
			add[j] = true;

	/* Check every addition against what stays; name the unnamed. */
	for (j = 0; j < n; j++) {
		const struct port_ops *ops = port_ops_find(list[j].type);
		unsigned int k;

		if (!add[j])
			continue;
		adds++;
		for (k = j; !list[j].named && match[j] < 0 &&
			    !reload_name_free(list[j].name, skip, list, n, j);
		     k++)
			snprintf(list[j].name, sizeof(list[j].name), "%s%u",
				 ops ? ops->name_prefix : "port", k);
		snprintf(prefix, sizeof(prefix), "reload: %s:%u: port '%s': ",
			 file, line[j], list[j].name);
		rc = portctl_check(&list[j], reload_conf->ctl_path, skip,
				   prefix, msg, sizeof(msg));
		if (rc < 0) {
			snprintf(r->err, sizeof(r->err), "%s (nothing "
				 "applied)", msg);
			return -EINVAL;
		}
	}
	for (i = 0; i < switch_port_count(); i++)
		if (switch_port(i) && !(i < 64 && (skip >> i & 1)))
			running++;
	if (running + adds > SWITCH_PORTS_MAX) {
		snprintf(r->err, sizeof(r->err), "reload: %s: %u ports would "
			 "run, the table has %d (nothing applied)", file,
			 running + adds, SWITCH_PORTS_MAX);
		return -EINVAL;
	}

	/* Apply: what goes first, so that a re-created port's path is free. */
	for (i = 0; i < reload_nports; i++) {
		bool changed = false;

		idx = portctl_find(reload_ports[i].name);
		if (idx < 0 || idx >= 64 || !(skip >> idx & 1))
			continue;
		for (j = 0; j < n; j++)
			if (match[j] == (int)i)
				changed = again[j] = true;
		switch_port_del((unsigned int)idx);
		reload_note(r, changed ? RELOAD_CHANGED : RELOAD_REMOVED,
			    reload_ports[i].name);
		info("reload: port %s %s (index %d)", reload_ports[i].name,
		     changed ? "changed: re-created" : "removed", idx);
	}
	rc = 0;
	for (j = 0; j < n; j++) {
		int a;

		if (!add[j]) {
			r->unchanged++;
			continue;
		}
		a = switch_port_add(&list[j]);
		if (a < 0) {
			reload_note(r, RELOAD_FAILED, list[j].name);
			if (!rc)
				snprintf(r->err, sizeof(r->err), "reload: "
					 "%s:%u: port '%s': cannot open it: "
					 "%s", file, line[j], list[j].name,
					 strerror(-a));
			warn("reload: %s:%u: port %s: cannot open it: %s",
			     file, line[j], list[j].name, strerror(-a));
			rc = -EIO;
			continue;
		}
		if (!again[j])
			reload_note(r, RELOAD_ADDED, list[j].name);
		info("reload: port %s (%s) added, index %d", list[j].name,
		     list[j].type, a);
	}
	if (skip) {
		int s = state_save();	/* as portctl_del(): no ghosts */

		if (s < 0 && s != -EBADF)
			warn("state: cannot save after a reload: %s",
			     strerror(-s));
	}
	memcpy(reload_ports, list, n * sizeof(list[0]));
	reload_nports = n;
	return rc;
}
