// SPDX-License-Identifier: GPL-2.0-or-later
/* priv.c - drop root and capabilities once start-up is over
 *
 * DOC: What needs privileges, and when
 *
 * Start-up (as root, or with the capabilities below):
 *   - a TAP: creating it (CAP_NET_ADMIN), attaching its queues
 *     (TUNSETIFF on an existing multi-queue TAP: CAP_NET_ADMIN unless the
 *     TAP's owner/group admit us, plus /dev/net/tun's file mode), loading
 *     the eBPF steering program and creating its map (CAP_BPF or
 *     CAP_SYS_ADMIN where kernel.unprivileged_bpf_disabled is set);
 *   - socket files given to another owner (CAP_CHOWN), in directories
 *     only root may write.
 * Every TAP queue is attached during start-up (main runs the ports'
 * timer once before priv_drop(), which attaches a queue for each guest
 * port), so the running daemon opens nothing: it reads and writes the
 * fds it has.  What is left is the steering map: updating an existing
 * map needs no capability on kernels since 6.5 ("unprivileged_bpf_disabled
 * only guards object creation"), but CAP_BPF before that.  priv_drop()
 * asks the kernel (a probe, below) and keeps CAP_BPF only if the answer
 * is EPERM and a TAP has a steering map; with no TAP it keeps nothing.
 *
 * The switch: the bounding set loses every capability not kept (while we
 * still have CAP_SETPCAP), then setgroups() (the user's supplementary
 * groups, or none with USER:GROUP), setresgid(), setresuid() -- glibc's,
 * which apply to every thread -- with PR_SET_KEEPCAPS so that the kept
 * capability survives, then permitted = effective = what is kept,
 * inheritable and ambient empty.  no_new_privs is set in every case,
 * also when vhostd was started unprivileged and has nothing to drop.
 */
#include <errno.h>
#include <grp.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/bpf.h>

#include "log.h"
#include "port/port.h"
#include "priv.h"
#include "sandbox.h"

#define PRIV_GROUPS_MAX	64

/**
 * struct priv_user - --user, resolved
 * @set:	--user was given
 * @uid:	its uid
 * @gid:	its gid
 * @ngroups:	supplementary groups in @groups
 * @groups:	supplementary groups (USER alone: the user's, from the group
 *		database; USER:GROUP or a bare uid: none)
 */
static struct priv_user {
	bool set;
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[PRIV_GROUPS_MAX];
} priv;

/* priv_drop() has run (control thread writes it once; read by the
 * control thread, which is the only one that adds ports or TAP queues).
 */
static bool priv_done;

/**
 * priv_have() - whether the calling thread has @cap in its effective set
 * @cap:	capability
 * Return: true if so
 */
static bool priv_have(cap_value_t cap)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t c = cap_get_proc();

	if (!c)
		return false;
	if (cap_get_flag(c, cap, CAP_EFFECTIVE, &v) < 0)
		v = CAP_CLEAR;
	cap_free(c);
	return v == CAP_SET;
}

/**
 * priv_is_user() - whether we already run as --user (nothing to switch)
 * Return: true if every uid and gid is already the target's
 */
static bool priv_is_user(void)
{
	uid_t r, e, s;
	gid_t rg, eg, sg;

	return !getresuid(&r, &e, &s) && !getresgid(&rg, &eg, &sg) &&
	       r == priv.uid && e == priv.uid && s == priv.uid &&
	       rg == priv.gid && eg == priv.gid && sg == priv.gid;
}

/**
 * priv_init() - check --user before anything is created
 * @u:		--user as parsed (uid CONF_ID_NONE: not given)
 *
 * Context: start-up; NSS lookups happen here, never after the sandbox.
 */
void priv_init(const struct conf_user *u)
{
	if (u->uid == CONF_ID_NONE)
		return;
	priv.set = true;
	priv.uid = u->uid;
	priv.gid = u->gid;
	port_env.uid_set = true;
	port_env.uid = u->uid;
	priv.ngroups = 0;
	if (!u->group_set && u->name[0]) {
		int n = PRIV_GROUPS_MAX;

		if (getgrouplist(u->name, u->gid, priv.groups, &n) < 0)
			die("--user %s: member of more than %d groups",
			    u->name, PRIV_GROUPS_MAX);
		priv.ngroups = n;
	}
	if (!priv_is_user() &&
	    (!priv_have(CAP_SETUID) || !priv_have(CAP_SETGID)))
		die("--user: switching to uid %u gid %u needs root "
		    "(CAP_SETUID and CAP_SETGID)", u->uid, u->gid);
}

/**
 * priv_run_uid() - the uid vhostd runs as after start-up
 * Return: --user's uid, else the current effective uid
 */
uint32_t priv_run_uid(void)
{
	return priv.set ? priv.uid : geteuid();
}

/**
 * priv_bound() - drop from the bounding set every capability not kept
 * @keep:	capabilities kept (NULL if none)
 * @n:		how many
 *
 * Only with CAP_SETPCAP (started as root); without it the bounding set
 * cannot be changed, and does not matter: it limits what an execve()
 * may gain, and no_new_privs plus the seccomp filter forbid that.
 */
static void priv_bound(const cap_value_t *keep, int n)
{
	cap_value_t v, max = cap_max_bits();
	int i;

	if (!priv_have(CAP_SETPCAP))
		return;
	for (v = 0; v < max; v++) {
		bool kept = false;

		for (i = 0; i < n; i++)
			kept |= keep[i] == v;
		if (!kept && cap_drop_bound(v) < 0)
			die("privileges: cannot drop capability %d from the "
			    "bounding set: %s", v, strerror(errno));
	}
}

/**
 * priv_switch() - become --user: groups, gid, uid
 *
 * PR_SET_KEEPCAPS keeps the permitted set across setresuid(), so that
 * priv_caps() can still keep what is needed; it is cleared again after.
 */
static void priv_switch(void)
{
	if (priv_is_user())
		return;		/* started as that user already */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		die("--user: PR_SET_KEEPCAPS: %s", strerror(errno));
	if (setgroups((size_t)priv.ngroups, priv.groups) < 0)
		die("--user: setgroups: %s", strerror(errno));
	if (setresgid(priv.gid, priv.gid, priv.gid) < 0)
		die("--user: setresgid(%u): %s", priv.gid, strerror(errno));
	if (setresuid(priv.uid, priv.uid, priv.uid) < 0)
		die("--user: setresuid(%u): %s", priv.uid, strerror(errno));
	if (prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0) < 0)
		die("--user: PR_SET_KEEPCAPS: %s", strerror(errno));
	if (!priv_is_user())
		die("--user: still not uid %u gid %u after the switch",
		    priv.uid, priv.gid);
}

/**
 * priv_caps() - permitted and effective sets to @keep, the rest empty
 * @keep:	capabilities to keep (dropped silently if not held)
 * @n:		how many
 * @effective:	raise @keep in the effective set too
 * Return: how many of @keep are held now
 */
static int priv_caps(const cap_value_t *keep, int n, bool effective)
{
	cap_t cur = cap_get_proc(), want = cap_init();
	int i, held = 0;

	if (!cur || !want)
		die("privileges: cap_get_proc: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		cap_flag_value_t v = CAP_CLEAR;

		if (cap_get_flag(cur, keep[i], CAP_PERMITTED, &v) < 0 ||
		    v != CAP_SET)
			continue;
		cap_set_flag(want, CAP_PERMITTED, 1, &keep[i], CAP_SET);
		if (effective)
			cap_set_flag(want, CAP_EFFECTIVE, 1, &keep[i], CAP_SET);
		held++;
	}
	/* Lowering the inheritable set also empties the ambient one. */
	if (cap_set_proc(want) < 0)
		die("privileges: cannot drop capabilities: %s",
		    strerror(errno));
	cap_free(cur);
	cap_free(want);
	return held;
}

/**
 * priv_bpf_needs_cap() - whether this kernel wants a capability for BPF
 *			  map updates (kernel.unprivileged_bpf_disabled
 *			  before Linux 6.5 guards every bpf() command)
 *
 * A delete on fd -1 fails either way: with EPERM where the capability
 * check comes first, with EBADF where it does not.  The caller's
 * effective set must not hold CAP_BPF or CAP_SYS_ADMIN.
 *
 * Return: true on EPERM
 */
static bool priv_bpf_needs_cap(void)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)-1;
	return syscall(__NR_bpf, BPF_MAP_DELETE_ELEM, &attr, sizeof(attr)) < 0 &&
	       errno == EPERM;
}

/**
 * priv_drop() - end of start-up: run as --user with what is still needed
 * @steer_maps:	a TAP port has an eBPF steering map to keep in sync
 *
 * Context: control thread, before the workers start (the capability
 * sets are per thread: threads created later inherit these).
 */
void priv_drop(bool steer_maps)
{
	cap_value_t keep[1];
	int nkeep = 0;
	bool need;
	char *text;
	cap_t now;

	if (steer_maps && CAP_IS_SUPPORTED(CAP_BPF))
		keep[nkeep++] = CAP_BPF;
	priv_bound(keep, nkeep);
	if (priv.set)
		priv_switch();
	/* Nothing effective while we ask the kernel what it needs. */
	priv_caps(keep, nkeep, false);
	need = steer_maps && priv_bpf_needs_cap();
	if (!need)
		nkeep = 0;
	if (priv_caps(keep, nkeep, true) < nkeep || (need && !nkeep))
		warn("privileges: this kernel wants CAP_BPF to update the TAP "
		     "steering map and it is not held: steering keeps the "
		     "MACs of start-up (frames still arrive, copied twice)");
	/* The sanitizers' leak check (LeakSanitizer) ptraces this process
	 * from a helper of the same uid: it must stay dumpable, which a uid
	 * change ends.  Release builds stay undumpable, so that no process
	 * of the same uid can read guest memory through ptrace or /proc.
	 */
	if (sandbox_sanitizer() && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
		die("privileges: PR_SET_DUMPABLE: %s", strerror(errno));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		die("privileges: PR_SET_NO_NEW_PRIVS: %s", strerror(errno));

	now = cap_get_proc();
	text = now ? cap_to_text(now, NULL) : NULL;
	info("privileges: uid %u gid %u, %d supplementary group(s), "
	     "capabilities '%s', no_new_privs", (unsigned int)geteuid(),
	     (unsigned int)getegid(), getgroups(0, NULL),
	     text && strcmp(text, "=") ? text : "none");
	cap_free(text);
	cap_free(now);
	priv_done = true;
	port_env.sealed = true;
}

/**
 * priv_dropped() - whether start-up's privileges are gone
 * Return: true once priv_drop() has run
 */
bool priv_dropped(void)
{
	return priv_done;
}
