// SPDX-License-Identifier: GPL-2.0-or-later
/* tap_steer.c - the TAP's eBPF queue steering and its MAC map
 *
 * DOC: Theory of Operation
 *
 * tun calls the steering program from its ndo_select_queue for every
 * frame the kernel transmits on the TAP, with skb->data at the Ethernet
 * header; the program's return value modulo the number of queues is the
 * queue.  Ours is twenty instructions, written out here as struct
 * bpf_insn so building vhostd needs no BPF compiler:
 *
 *	key = 0;  bpf_skb_load_bytes_relative(skb, 0, &key, 6, MAC header)
 *	q = map[key];  return q ? *q : 0;
 *
 * The map is a hash of 8-byte keys (the destination MAC, zero padded) to
 * u32 queue indexes, sized like the switch's MAC table (struct
 * port_host's mac_max).  Queue indexes
 * are tun's: the order in which queue fds were attached, which stays put
 * as long as no queue detaches (we never detach one but at close).
 *
 * Sync runs once a second on the control thread: it has the switch walk
 * its MAC table (struct port_host's mac_walk, atomic loads of each slot
 * as ctl's "fdb" does), builds the sorted list the map should hold and applies the difference to the map against
 * a sorted shadow of what it holds.  A stale map costs nothing but
 * copies: a frame steered to the wrong queue is checked against the MAC
 * table again by the reader and forwarded by the switch like any other.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <linux/if_tun.h>

#include "port.h"
#include "tap_steer.h"
#include "../log.h"
#include "../util.h"

/* Instruction encodings (the kernel's filter.h macros are not uapi). */
#define TS_INSN(c, d, s, o, i)						\
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s),	\
			    .off = (o), .imm = (i) })
#define TS_MOV_REG(d, s)	TS_INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define TS_MOV_IMM(d, i)	TS_INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define TS_ADD_IMM(d, i)	TS_INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define TS_ST_DW(d, o, i)	TS_INSN(BPF_ST | BPF_MEM | BPF_DW, d, 0, o, i)
#define TS_LDX_W(d, s, o)	TS_INSN(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define TS_JNE_IMM(d, i, o)	TS_INSN(BPF_JMP | BPF_JNE | BPF_K, d, 0, o, i)
#define TS_JEQ_IMM(d, i, o)	TS_INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define TS_CALL(f)		TS_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define TS_EXIT()		TS_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define TS_LD_MAP(d, fd)						\
	TS_INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd),	\
	TS_INSN(0, 0, 0, 0, 0)

/* Steering maps open (control thread): priv_drop() keeps CAP_BPF for
 * them where the kernel wants it for map updates.
 */
static unsigned int tap_steer_nmaps;

/**
 * tap_steer_maps() - how many steering maps are open
 * Return: maps of open TAP ports with steering on
 */
unsigned int tap_steer_maps(void)
{
	return tap_steer_nmaps;
}

/**
 * tap_steer_load() - load the steering program over @map_fd
 * @map_fd:	the MAC map
 *
 * Return: program fd or -errno
 */
static int tap_steer_load(int map_fd)
{
	const struct bpf_insn insns[] = {
		TS_MOV_REG(BPF_REG_6, BPF_REG_1),
		TS_ST_DW(BPF_REG_10, -8, 0),
		TS_MOV_REG(BPF_REG_1, BPF_REG_6),
		TS_MOV_IMM(BPF_REG_2, 0),
		TS_MOV_REG(BPF_REG_3, BPF_REG_10),
		TS_ADD_IMM(BPF_REG_3, -8),
		TS_MOV_IMM(BPF_REG_4, ETH_ALEN),
		TS_MOV_IMM(BPF_REG_5, BPF_HDR_START_MAC),
		TS_CALL(BPF_FUNC_skb_load_bytes_relative),
		TS_JNE_IMM(BPF_REG_0, 0, 8),		/* -> miss */
		TS_LD_MAP(BPF_REG_1, map_fd),
		TS_MOV_REG(BPF_REG_2, BPF_REG_10),
		TS_ADD_IMM(BPF_REG_2, -8),
		TS_CALL(BPF_FUNC_map_lookup_elem),
		TS_JEQ_IMM(BPF_REG_0, 0, 2),		/* -> miss */
		TS_LDX_W(BPF_REG_0, BPF_REG_0, 0),
		TS_EXIT(),
		/* miss: */
		TS_MOV_IMM(BPF_REG_0, 0),
		TS_EXIT(),
	};
	static char vlog[8192];
	struct bpf_prog_load_opts opts = {
		.sz = sizeof(opts),
		.log_buf = vlog,
		.log_size = sizeof(vlog),
		.log_level = 1,
	};
	int fd, rc;

	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "vhostd_steer", "GPL",
			   insns, ARRAY_SIZE(insns), NULL);
	if (fd >= 0)
		return fd;
	rc = -errno;
	/* Once more with the verifier's log, for the reason. */
	vlog[0] = '\0';
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "vhostd_steer", "GPL",
			   insns, ARRAY_SIZE(insns), &opts);
	if (fd >= 0)
		return fd;
	debug("tap steering program refused: %s", vlog);
	return rc;
}

/**
 * tap_steer_open() - create the map and load the program
 * @s:		state, zeroed
 *
 * Return: 0 or -errno; on failure @s is closed (map_fd -1)
 */
int tap_steer_open(struct tap_steer *s)
{
	int rc;

	s->map_fd = -1;
	s->prog_fd = -1;
	s->n = 0;
	/* Without a host there is no MAC table to steer by. */
	s->max = port_host ? port_host->mac_max : 0;
	if (!s->max) {
		rc = -ENODEV;
		goto err;
	}
	s->cur = calloc(s->max, sizeof(*s->cur));
	s->next = calloc(s->max, sizeof(*s->next));
	if (!s->cur || !s->next) {
		rc = -ENOMEM;
		goto err;
	}
	s->map_fd = bpf_map_create(BPF_MAP_TYPE_HASH, "vhostd_macq", 8,
				   sizeof(uint32_t), s->max, NULL);
	if (s->map_fd < 0) {
		rc = -errno;
		s->map_fd = -1;
		goto err;
	}
	s->prog_fd = tap_steer_load(s->map_fd);
	if (s->prog_fd < 0) {
		rc = s->prog_fd;
		s->prog_fd = -1;
		goto err;
	}
	tap_steer_nmaps++;
	return 0;

err:
	tap_steer_close(s, -1);
	return rc;
}

/**
 * tap_steer_attach() - make the TAP behind @tun_fd use the program
 * @s:		state, open
 * @tun_fd:	any queue fd of the TAP
 *
 * Return: 0 or -errno
 */
int tap_steer_attach(struct tap_steer *s, int tun_fd)
{
	if (ioctl(tun_fd, TUNSETSTEERINGEBPF, &s->prog_fd) < 0)
		return -errno;
	return 0;
}

/**
 * tap_steer_close() - detach the program, free the map and the shadow
 * @s:		state (fds may be -1: nothing to undo)
 * @tun_fd:	a queue fd of the TAP the program is attached to, or -1
 */
void tap_steer_close(struct tap_steer *s, int tun_fd)
{
	int none = -1;

	/* A persistent TAP keeps its program after we are gone; the next
	 * multi-queue user must not inherit our steering.
	 */
	if (tun_fd >= 0 && s->prog_fd >= 0 &&
	    ioctl(tun_fd, TUNSETSTEERINGEBPF, &none) < 0)
		debug("tap: cannot detach steering program: %s",
		      strerror(errno));
	if (s->prog_fd >= 0) {
		close(s->prog_fd);
		tap_steer_nmaps--;	/* only a complete open set it */
	}
	if (s->map_fd >= 0)
		close(s->map_fd);
	s->prog_fd = -1;
	s->map_fd = -1;
	free(s->cur);
	free(s->next);
	s->cur = s->next = NULL;
	s->n = 0;
}

static int tap_steer_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct tap_steer_ent *)a)->key;
	uint64_t y = ((const struct tap_steer_ent *)b)->key;

	return x < y ? -1 : x > y;
}

/**
 * struct tap_steer_walk - what tap_steer_add() collects into
 * @s:		state; entries go to @s->next
 * @port_queue:	queue per port index (0: none)
 * @nports:	entries in @port_queue
 * @n:		entries in @s->next so far
 */
struct tap_steer_walk {
	struct tap_steer *s;
	const uint16_t *port_queue;
	unsigned int nports;
	unsigned int n;
};

/**
 * tap_steer_add() - one MAC of the switch's table (port_host mac_walk)
 * @arg:	struct tap_steer_walk
 * @mac:	the MAC
 * @port:	the port it was learned on
 */
static void tap_steer_add(void *arg, const uint8_t *mac, unsigned int port)
{
	struct tap_steer_walk *w = arg;
	uint8_t key[8] = { 0 };

	if (port >= w->nports || !w->port_queue[port] || w->n >= w->s->max)
		return;
	memcpy(key, mac, ETH_ALEN);
	memcpy(&w->s->next[w->n].key, key, sizeof(key));
	w->s->next[w->n].queue = w->port_queue[port];
	w->n++;
}

/**
 * tap_steer_want() - the entries the map should hold, sorted, one per MAC
 * @s:		state; fills @s->next
 * @port_queue:	queue per port index (0: none)
 * @nports:	entries in @port_queue
 *
 * Return: entries in @s->next
 */
static unsigned int tap_steer_want(struct tap_steer *s,
				   const uint16_t *port_queue,
				   unsigned int nports)
{
	struct tap_steer_walk w = {
		.s = s, .port_queue = port_queue, .nports = nports,
	};
	unsigned int i, m;

	port_host->mac_walk(tap_steer_add, &w);
	qsort(s->next, w.n, sizeof(s->next[0]), tap_steer_cmp);
	/* A MAC moving while we read may show up twice: keep one. */
	for (i = 0, m = 0; i < w.n; i++) {
		if (m && s->next[m - 1].key == s->next[i].key)
			continue;
		s->next[m++] = s->next[i];
	}
	return m;
}

/**
 * tap_steer_sync() - bring the map in line with the MAC table
 * @s:		state (does nothing while steering is off)
 * @port_queue:	queue per port index (0: none)
 * @nports:	entries in @port_queue
 *
 * Context: control thread
 */
void tap_steer_sync(struct tap_steer *s, const uint16_t *port_queue,
		    unsigned int nports)
{
	unsigned int n, i = 0, j = 0, m;
	struct tap_steer_ent *t;

	if (s->map_fd < 0)
		return;
	n = tap_steer_want(s, port_queue, nports);

	while (i < s->n || j < n) {
		if (j == n || (i < s->n && s->cur[i].key < s->next[j].key)) {
			/* Gone from the table (aged, flushed, now elsewhere). */
			bpf_map_delete_elem(s->map_fd, &s->cur[i].key);
			i++;
			continue;
		}
		if (i < s->n && s->cur[i].key == s->next[j].key) {
			i++;
			if (s->cur[i - 1].queue == s->next[j].queue) {
				j++;
				continue;
			}
		}
		/* New or moved.  A failed update is left out of the shadow,
		 * so the next sync tries again.
		 */
		if (bpf_map_update_elem(s->map_fd, &s->next[j].key,
					&s->next[j].queue, BPF_ANY) < 0) {
			/* One per MAC and second, as many as a guest
			 * sprays: rate limited.
			 */
			src_debug(NULL, "tap steering map update: %s",
				  strerror(errno));
			bpf_map_delete_elem(s->map_fd, &s->next[j].key);
			s->next[j].queue = 0;
		}
		j++;
	}
	for (i = 0, m = 0; i < n; i++)
		if (s->next[i].queue)
			s->next[m++] = s->next[i];
	t = s->cur;
	s->cur = s->next;
	s->next = t;
	s->n = m;
}
