// SPDX-License-Identifier: GPL-2.0-or-later
/* state.c - learned MACs and counters kept across a restart (--state)
 *
 * DOC: Theory of Operation
 *
 * vhostd killed (SIGKILL, a crash, an upgrade) and started again finds its
 * guests reconnecting (doc/security.md, "Restart and crash recovery"),
 * but without this file it would start with an empty MAC table -- every
 * frame to a guest floods to all ports until that guest speaks again --
 * and with counters back at zero, which monitoring reads as a reset.
 *
 * The file holds two copies (slots) of the state, written in turn with
 * one pwrite() each: a copy is never half-written over the other, so a
 * kill in the middle of a save leaves the last whole one.  Each copy has
 * a header (magic, version, the counter layout's size, counts, a
 * generation) and an FNV-1a checksum over header and body; the loader
 * takes the valid copy with the highest generation.  Everything in it is
 * checked before use -- counts against the table sizes, port names
 * against the ports configured now (a port that no longer exists is
 * skipped), MACs for being station addresses -- and MACs are learned
 * through fdb_learn(), within each port's max-macs like any other.  A
 * corrupt or foreign file (another version, another counter layout) is
 * ignored with a warning and overwritten by the next save.
 *
 * The file is opened once at start-up, before privileges are dropped and
 * the sandbox closes open(); it must be a regular file of our own user,
 * writable by nobody else.  The control thread saves every
 * STATE_PERIOD_S seconds and at a clean exit: what a kill loses is the
 * last few seconds of counts and learning.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "fdb.h"
#include "log.h"
#include "port/port.h"
#include "state.h"
#include "stats.h"
#include "switch.h"
#include "util.h"

#define STATE_MAGIC	"VHSTATE\n"
#define STATE_VERSION	2
#define STATE_NCTR	(sizeof(struct port_stats) / sizeof(uint64_t))
#define STATE_PORTS	CONF_PORTS_MAX
#define STATE_MACS	FDB_SIZE

/**
 * struct state_hdr - the head of one copy
 * @magic:	STATE_MAGIC
 * @version:	STATE_VERSION
 * @nctr:	64-bit counters per port (the layout of struct port_stats
 *		when written: another layout is another file)
 * @nports:	entries of the port array that follows
 * @nmacs:	entries of the MAC array after it
 * @gen:	generation: the highest valid one is the newest copy
 * @saved_at:	CLOCK_REALTIME seconds, for the log line only
 * @sum:	FNV-1a 64 over the header (with @sum 0) and the body
 */
struct state_hdr {
	char magic[8];
	uint32_t version;
	uint32_t nctr;
	uint32_t nports;
	uint32_t nmacs;
	uint64_t gen;
	uint64_t saved_at;
	uint64_t sum;
};

/**
 * struct state_port - one port's counters, by name
 * @name:	NUL-terminated port name
 * @ctr:	struct port_stats summed over the threads, as 64-bit words
 */
struct state_port {
	char name[CONF_NAME_MAX];
	uint64_t ctr[STATE_NCTR];
};

/**
 * struct state_mac - one learned MAC
 * @mac:	station address
 * @port:	index into the copy's port array
 * @vid:	the VLAN of its bridge domain
 */
struct state_mac {
	uint8_t mac[6];
	uint16_t port;
	uint16_t vid;
};

#define STATE_BODY_MAX	(STATE_PORTS * sizeof(struct state_port) + \
			 STATE_MACS * sizeof(struct state_mac))
/* One copy, header and the largest body, rounded up to 4 KiB. */
#define STATE_SLOT	((sizeof(struct state_hdr) + STATE_BODY_MAX + 4095) & \
			 ~(size_t)4095)

static int state_fd = -1;
static char state_path[CONF_PATH_MAX];
static uint64_t state_gen;
static unsigned char state_buf[STATE_SLOT] __attribute__((aligned(64)));

/**
 * state_fnv() - FNV-1a 64 of a byte range, continued from @h
 * @h:		running hash (start with 0xcbf29ce484222325)
 * @p:		bytes
 * @n:		how many
 * Return: the new hash
 */
static uint64_t state_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--) {
		h ^= *b++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/**
 * state_len() - bytes of a copy with @nports ports and @nmacs MACs
 * @nports:	ports
 * @nmacs:	MACs
 * Return: header and body
 */
static size_t state_len(uint32_t nports, uint32_t nmacs)
{
	return sizeof(struct state_hdr) +
	       nports * sizeof(struct state_port) +
	       nmacs * sizeof(struct state_mac);
}

/**
 * state_sum() - checksum of the copy in @buf
 * @buf:	copy, header first, counts already checked
 * Return: FNV-1a 64 with the header's sum taken as 0
 */
static uint64_t state_sum(const unsigned char *buf)
{
	struct state_hdr h;

	memcpy(&h, buf, sizeof(h));
	h.sum = 0;
	return state_fnv(state_fnv(0xcbf29ce484222325ULL, &h, sizeof(h)),
			 buf + sizeof(h),
			 state_len(h.nports, h.nmacs) - sizeof(h));
}

/**
 * state_open() - open or create the state file
 * @path:	file
 *
 * Return: 0, or -errno: -EPERM for a file that is not ours alone
 * Context: start-up, before privileges are dropped and the sandbox
 */
int state_open(const char *path)
{
	struct stat st;
	int fd;

	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	/* Someone else's file, or one they may write: not ours to trust. */
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		close(fd);
		return -EPERM;
	}
	snprintf(state_path, sizeof(state_path), "%s", path);
	state_fd = fd;
	return 0;
}

/**
 * state_check() - whether the copy in state_buf is whole and ours
 * @got:	bytes read into state_buf
 * @h:		out: its header
 * Return: true if valid
 */
static bool state_check(ssize_t got, struct state_hdr *h)
{
	if (got < (ssize_t)sizeof(*h))
		return false;
	memcpy(h, state_buf, sizeof(*h));
	if (memcmp(h->magic, STATE_MAGIC, sizeof(h->magic)) ||
	    h->version != STATE_VERSION || h->nctr != STATE_NCTR ||
	    h->nports > STATE_PORTS || h->nmacs > STATE_MACS ||
	    (size_t)got < state_len(h->nports, h->nmacs))
		return false;
	return state_sum(state_buf) == h->sum;
}

/**
 * state_load() - read the newest valid copy into state_buf
 * @h:		out: its header
 * Return: 1 if one was found, 0 if the file is empty, -EINVAL if no copy
 *	   is valid, -errno on a read error
 */
static int state_load(struct state_hdr *h)
{
	struct state_hdr cand;
	int best = -1, i;
	bool empty = true;

	for (i = 0; i < 2; i++) {
		ssize_t n = pread(state_fd, state_buf, STATE_SLOT,
				  (off_t)i * (off_t)STATE_SLOT);

		if (n < 0)
			return -errno;
		if (n > 0)
			empty = false;
		if (state_check(n, &cand) && (best < 0 || cand.gen > h->gen)) {
			*h = cand;
			best = i;
		}
	}
	if (best < 0)
		return empty ? 0 : -EINVAL;
	if (pread(state_fd, state_buf, STATE_SLOT,
		  (off_t)best * (off_t)STATE_SLOT) <
	    (ssize_t)state_len(h->nports, h->nmacs))
		return -EIO;
	return 1;
}

/**
 * state_restore() - counters and MACs back from the newest valid copy
 *
 * Return: MACs restored (0 with no file content), or -errno (-EINVAL:
 *	   corrupt or foreign, ignored)
 * Context: start-up, ports added, workers not started
 */
int state_restore(void)
{
	const struct state_port *sp;
	const struct state_mac *sm;
	struct port *live[STATE_PORTS];
	unsigned int i, k, nports = 0, macs = 0, skipped = 0;
	int dom;
	struct state_hdr h = { 0 };
	uint32_t now = now_s();
	long long age;
	int rc;

	if (state_fd < 0)
		return -EBADF;
	rc = state_load(&h);
	if (rc <= 0) {
		if (rc == -EINVAL)
			warn("state: %s holds no valid copy (corrupt, or from "
			     "another version): ignored, overwritten at the "
			     "next save", state_path);
		else if (rc < 0)
			warn("state: %s: %s: ignored", state_path,
			     strerror(-rc));
		return rc;
	}
	state_gen = h.gen;
	sp = (const struct state_port *)(state_buf + sizeof(h));
	sm = (const struct state_mac *)(sp + h.nports);

	for (i = 0; i < h.nports; i++) {
		char name[CONF_NAME_MAX];
		struct port *p;

		live[i] = NULL;
		memcpy(name, sp[i].name, sizeof(name));
		if (!memchr(name, '\0', sizeof(name)))
			continue;	/* not a name: its entries go too */
		p = switch_port_find(name);
		if (!p)
			continue;
		live[i] = p;
		nports++;
		/* Into the control thread's slot: the sums go on from the
		 * saved totals.  No worker runs yet.
		 */
		for (k = 0; k < STATE_NCTR; k++) {
			uint64_t *c = (uint64_t *)(void *)&p->stats[0] + k;

			__atomic_store_n(c, *c + sp[i].ctr[k],
					 __ATOMIC_RELAXED);
		}
	}
	for (i = 0; i < h.nmacs; i++) {
		struct state_mac m = sm[i];

		if (m.port >= h.nports || !live[m.port] || (m.mac[0] & 1) ||
		    !memcmp(m.mac, "\0\0\0\0\0\0", 6)) {
			skipped++;
			continue;
		}
		/* Only into a domain the port is in now. */
		dom = switch_port_in(live[m.port]->idx, m.vid);
		if (dom >= 0 &&
		    fdb_learn(switch_fdb(), (uint8_t)dom, m.mac,
			      (uint16_t)live[m.port]->idx, now) == FDB_LEARN_OK)
			macs++;
		else
			skipped++;
	}
	age = (long long)time(NULL) - (long long)h.saved_at;
	info("state: restored the counters of %u port(s) and %u MAC(s) "
	     "from %s (saved %lld s ago)%s", nports, macs, state_path,
	     age >= 0 && h.saved_at ? age : -1LL,
	     skipped ? ", some entries skipped" : "");
	return (int)macs;
}

/**
 * state_save() - write the current counters and learned MACs
 *
 * Return: 0 or -errno
 * Context: control thread
 */
int state_save(void)
{
	struct state_port *sp = (struct state_port *)(state_buf +
						       sizeof(struct state_hdr));
	uint16_t map[STATE_PORTS];
	unsigned int i, k, n = switch_port_count();
	struct state_hdr h = { 0 };
	struct state_mac *sm;
	size_t len;
	ssize_t w;

	if (state_fd < 0)
		return -EBADF;
	for (i = 0; i < n && i < STATE_PORTS; i++) {
		const struct port *p = switch_port(i);

		map[i] = UINT16_MAX;
		if (!p)
			continue;
		memset(&sp[h.nports], 0, sizeof(sp[h.nports]));
		snprintf(sp[h.nports].name, sizeof(sp[h.nports].name), "%s",
			 p->name);
		for (k = 0; k < STATE_NCTR; k++)
			sp[h.nports].ctr[k] = stats_sum(p->stats,
							k * sizeof(uint64_t));
		map[i] = (uint16_t)h.nports++;
	}
	sm = (struct state_mac *)(sp + h.nports);
	for (i = 0; i < FDB_SIZE; i++) {
		struct fdb_entry e;

		/* Static entries come from the configuration again. */
		if (!fdb_entry_get(switch_fdb(), i, &e) || e.is_static ||
		    e.port >= n || e.port >= STATE_PORTS ||
		    map[e.port] == UINT16_MAX)
			continue;
		memcpy(sm[h.nmacs].mac, e.mac, 6);
		sm[h.nmacs].port = map[e.port];
		sm[h.nmacs].vid = (uint16_t)switch_dom_vid(e.dom);
		h.nmacs++;
	}
	memcpy(h.magic, STATE_MAGIC, sizeof(h.magic));
	h.version = STATE_VERSION;
	h.nctr = STATE_NCTR;
	h.gen = ++state_gen;
	h.saved_at = (uint64_t)time(NULL);
	memcpy(state_buf, &h, sizeof(h));
	h.sum = state_sum(state_buf);
	memcpy(state_buf, &h, sizeof(h));
	len = state_len(h.nports, h.nmacs);
	/* The other copy stays whole while this one is written. */
	w = pwrite(state_fd, state_buf, len,
		   (off_t)(h.gen & 1) * (off_t)STATE_SLOT);
	if (w < 0)
		return -errno;
	return (size_t)w == len ? 0 : -EIO;
}

/**
 * state_close() - a last save, then close the file
 * Context: shutdown, workers stopped
 */
void state_close(void)
{
	int rc;

	if (state_fd < 0)
		return;
	rc = state_save();
	if (rc < 0)
		warn("state: %s: cannot save: %s", state_path, strerror(-rc));
	close(state_fd);
	state_fd = -1;
}
