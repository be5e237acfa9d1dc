// SPDX-License-Identifier: GPL-2.0-or-later
/* tap_steer.c - the TAP's eBPF queue steering and its MAC map
 *
 * DOC: Theory of Operation
 *
 * tun calls the steering program from its ndo_select_queue for every
 * frame the kernel transmits on the TAP; the program's return value
 * modulo the number of queues is the queue.  Ours is written out here as
 * struct bpf_insn (assembled by ts_emit() and friends, which resolve the
 * jumps), so building vhostd needs no BPF compiler:
 *
 *	key = dst MAC;  v = map[key];  if !v: return 0
 *	if v->n_on <= 1: return v->base + (v->order & 15)
 *	h = flow_hash(frame)		(net/flow.c, the same function)
 *	e = flows[v->port][h % 256]	(the guest's pair + 1 for the flow)
 *	if e && e <= 16 && v->on has bit e - 1: return v->base + e - 1
 *	k = (h >> 8) % v->n_on;  return v->base + nibble k of v->order
 *
 * Every byte is read with bpf_skb_load_bytes_relative() from the MAC
 * header, which fails (and zeroes) beyond the linear data: the hash
 * falls back exactly where flow_hash() does when a header is out of
 * reach.  The MAC map is a hash of 8-byte keys (the destination MAC,
 * zero padded) to struct tap_steer_dst, sized like the switch's MAC
 * table (struct port_host's mac_max); the flow map an array of one
 * TAP_STEER_FLOWS-byte row per port index.  Queue indexes are tun's: the
 * order in which queue fds were attached, which stays put as long as no
 * queue detaches (we never detach one but at close).
 *
 * The guest's own choice of pair for a flow (the TX queue it sent it on,
 * port_vhost_rx_burst()) reaches the flow map once a second, and the
 * running pairs with it: until then, or if the guest changed its mind, a
 * frame may land on another pair's queue, where the lender's re-check
 * (port_vhost_lend_commit()) refuses it and the switch delivers it to
 * the right pair.  A stale map costs copies, never a misdelivery.
 *
 * Sync runs once a second on the control thread: it has the switch walk
 * its MAC table (struct port_host's mac_walk, atomic loads of each slot
 * as ctl's "fdb" does), builds the sorted list the map should hold and
 * applies the difference to the map against a sorted shadow of what it
 * holds.  A frame steered to the wrong port's queue is checked against
 * the MAC table again by the reader and forwarded by the switch like any
 * other.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
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
#define R0	BPF_REG_0
#define R1	BPF_REG_1
#define R2	BPF_REG_2
#define R3	BPF_REG_3
#define R4	BPF_REG_4
#define R5	BPF_REG_5
#define R6	BPF_REG_6
#define R7	BPF_REG_7
#define R8	BPF_REG_8
#define R10	BPF_REG_10
#define MOV(d, s)	TS_INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOVI(d, i)	TS_INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADDI(d, i)	TS_INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define ADD(d, s)	TS_INSN(BPF_ALU64 | BPF_ADD | BPF_X, d, s, 0, 0)
#define ANDI(d, i)	TS_INSN(BPF_ALU64 | BPF_AND | BPF_K, d, 0, 0, i)
#define LSHI(d, i)	TS_INSN(BPF_ALU64 | BPF_LSH | BPF_K, d, 0, 0, i)
#define RSH(d, s)	TS_INSN(BPF_ALU64 | BPF_RSH | BPF_X, d, s, 0, 0)
#define SUBI(d, i)	TS_INSN(BPF_ALU64 | BPF_SUB | BPF_K, d, 0, 0, i)
/* 32-bit ALU, for the hash: flow_hash() computes in uint32_t. */
#define MOV32(d, s)	TS_INSN(BPF_ALU | BPF_MOV | BPF_X, d, s, 0, 0)
#define XOR32(d, s)	TS_INSN(BPF_ALU | BPF_XOR | BPF_X, d, s, 0, 0)
#define RSH32I(d, i)	TS_INSN(BPF_ALU | BPF_RSH | BPF_K, d, 0, 0, i)
#define LSH32I(d, i)	TS_INSN(BPF_ALU | BPF_LSH | BPF_K, d, 0, 0, i)
#define MUL32I(d, i)	TS_INSN(BPF_ALU | BPF_MUL | BPF_K, d, 0, 0, (int32_t)(i))
#define MOD32(d, s)	TS_INSN(BPF_ALU | BPF_MOD | BPF_X, d, s, 0, 0)
#define ST_DW(d, o, i)	TS_INSN(BPF_ST | BPF_MEM | BPF_DW, d, 0, o, i)
#define STX_W(d, s, o)	TS_INSN(BPF_STX | BPF_MEM | BPF_W, d, s, o, 0)
#define LDX_B(d, s, o)	TS_INSN(BPF_LDX | BPF_MEM | BPF_B, d, s, o, 0)
#define LDX_H(d, s, o)	TS_INSN(BPF_LDX | BPF_MEM | BPF_H, d, s, o, 0)
#define LDX_W(d, s, o)	TS_INSN(BPF_LDX | BPF_MEM | BPF_W, d, s, o, 0)
#define LDX_DW(d, s, o)	TS_INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define JMPI(op, d, i)	TS_INSN(BPF_JMP | (op) | BPF_K, d, 0, 0, i)
#define JA()		TS_INSN(BPF_JMP | BPF_JA, 0, 0, 0, 0)
#define CALL(f)		TS_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()		TS_INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* Stack: the MAC key, the Ethernet header (and a VLAN tag), L3, ports. */
#define SK_KEY		(-8)	/* 8 bytes */
#define SK_ETH		(-32)	/* 18 bytes, in 24 */
#define SK_L3		(-72)	/* 40 bytes */
#define SK_PORT		(-76)	/* the flow map's key */
#define SK_L4		(-80)	/* two ports */

/* Layout of struct tap_steer_dst, as the program reads it. */
_Static_assert(offsetof(struct tap_steer_dst, base) == 0 &&
	       offsetof(struct tap_steer_dst, on) == 2 &&
	       offsetof(struct tap_steer_dst, n_on) == 4 &&
	       offsetof(struct tap_steer_dst, order) == 8 &&
	       offsetof(struct tap_steer_dst, port) == 16 &&
	       sizeof(struct tap_steer_dst) == 24, "the program's offsets");

enum ts_label {
	L_MISS, L_MULTI, L_ETH14, L_TYPE, L_V4, L_V4L4, L_V6, L_V6L4, L_PORTS,
	L_MAC, L_MIX, L_SPREAD, L_COUNT,
};

#define TS_MAX_INSNS	256
#define TS_MAX_JUMPS	48

/**
 * struct ts_asm - the program being written, and its forward jumps
 * @insn:	instructions so far
 * @n:		how many
 * @label:	instruction index of each label, -1 until placed
 * @jump_at:	instructions that jump to a label
 * @jump_to:	the label each jumps to
 * @njumps:	entries in @jump_at
 * @bad:	ran out of room (our bug: the program is not loaded)
 */
struct ts_asm {
	struct bpf_insn insn[TS_MAX_INSNS];
	unsigned int n;
	int label[L_COUNT];
	unsigned int jump_at[TS_MAX_JUMPS];
	enum ts_label jump_to[TS_MAX_JUMPS];
	unsigned int njumps;
	bool bad;
};

static void ts_emit(struct ts_asm *a, struct bpf_insn insn)
{
	if (a->n >= TS_MAX_INSNS) {
		a->bad = true;
		return;
	}
	a->insn[a->n++] = insn;
}

/* A jump to @to, its offset filled in by ts_link(). */
static void ts_jump(struct ts_asm *a, struct bpf_insn insn, enum ts_label to)
{
	if (a->njumps >= TS_MAX_JUMPS) {
		a->bad = true;
		return;
	}
	a->jump_at[a->njumps] = a->n;
	a->jump_to[a->njumps++] = to;
	ts_emit(a, insn);
}

static void ts_label(struct ts_asm *a, enum ts_label l)
{
	a->label[l] = (int)a->n;
}

/* Resolve the jumps; false if one names a label never placed. */
static bool ts_link(struct ts_asm *a)
{
	unsigned int i;

	for (i = 0; i < a->njumps; i++) {
		int to = a->label[a->jump_to[i]];

		if (to < 0)
			return false;
		a->insn[a->jump_at[i]].off = (int16_t)(to - (int)a->jump_at[i] - 1);
	}
	return !a->bad;
}

/* @len bytes at the MAC header + the offset in R2 (set by the caller)
 * into the stack at @at: R0 is 0, or non-zero (and the bytes zero) when
 * they are not all there.
 */
static void ts_load_at(struct ts_asm *a, int at, int len)
{
	ts_emit(a, MOV(R1, R6));
	ts_emit(a, MOV(R3, R10));
	ts_emit(a, ADDI(R3, at));
	ts_emit(a, MOVI(R4, len));
	ts_emit(a, MOVI(R5, BPF_HDR_START_MAC));
	ts_emit(a, CALL(BPF_FUNC_skb_load_bytes_relative));
}

/* R8 ^= the 32-bit word at the stack offset @at */
static void ts_xor_w(struct ts_asm *a, int at)
{
	ts_emit(a, LDX_W(R1, R10, at));
	ts_emit(a, XOR32(R8, R1));
}

/* R8 ^= the 16-bit word at the stack offset @at, shifted left @sh */
static void ts_xor_h(struct ts_asm *a, int at, int sh)
{
	ts_emit(a, LDX_H(R1, R10, at));
	if (sh)
		ts_emit(a, LSH32I(R1, sh));
	ts_emit(a, XOR32(R8, R1));
}

/* R8 ^= R8 >> @n */
static void ts_fold(struct ts_asm *a, int n)
{
	ts_emit(a, MOV32(R1, R8));
	ts_emit(a, RSH32I(R1, n));
	ts_emit(a, XOR32(R8, R1));
}

/**
 * ts_l3() - hash an L3 header's addresses and protocol, go on to its ports
 * @a:		assembler; R8 holds the header's offset
 * @len:	bytes of the header to load (the frame must have them)
 * @addr:	offset of the addresses in it
 * @words:	32-bit words of both addresses
 * @proto:	offset of the protocol byte
 * @l4:		label placed after: TCP and UDP go on there, other
 *		protocols to L_MIX; a header cut short goes to L_MAC
 */
static void ts_l3(struct ts_asm *a, int len, int addr, int words, int proto,
		  enum ts_label l4)
{
	int i;

	ts_emit(a, MOV(R2, R8));
	ts_load_at(a, SK_L3, len);
	ts_jump(a, JMPI(BPF_JNE, R0, 0), L_MAC);
	ts_emit(a, LDX_W(R8, R10, SK_L3 + addr));
	for (i = 1; i < words; i++)
		ts_xor_w(a, SK_L3 + addr + 4 * i);
	ts_emit(a, LDX_B(R1, R10, SK_L3 + proto));
	ts_emit(a, XOR32(R8, R1));
	ts_jump(a, JMPI(BPF_JEQ, R1, 6), l4);
	ts_jump(a, JMPI(BPF_JNE, R1, 17), L_MIX);
	ts_label(a, l4);
}

/* Load a map's fd into @reg (two instructions). */
static void ts_ld_map(struct ts_asm *a, int reg, int fd)
{
	ts_emit(a, TS_INSN(BPF_LD | BPF_DW | BPF_IMM, reg, BPF_PSEUDO_MAP_FD,
			   0, fd));
	ts_emit(a, TS_INSN(0, 0, 0, 0, 0));
}

/* R0 = the value of map @fd for the key at the stack offset @key; a
 * miss jumps to @miss.
 */
static void ts_lookup(struct ts_asm *a, int fd, int key, enum ts_label miss)
{
	ts_ld_map(a, R1, fd);
	ts_emit(a, MOV(R2, R10));
	ts_emit(a, ADDI(R2, key));
	ts_emit(a, CALL(BPF_FUNC_map_lookup_elem));
	ts_jump(a, JMPI(BPF_JEQ, R0, 0), miss);
}

/**
 * tap_steer_prog() - write the steering program (see the DOC above)
 * @a:		assembler, zeroed
 * @map_fd:	the MAC map
 * @flows_fd:	the flow map
 *
 * Registers: R6 the skb, R7 the MAC map's value, R8 the hash.  The hash
 * is flow_hash() step by step; byte order as there (memory order loads).
 *
 * Return: true if written and linked
 */
static bool tap_steer_prog(struct ts_asm *a, int map_fd, int flows_fd)
{
	unsigned int i;

	for (i = 0; i < L_COUNT; i++)
		a->label[i] = -1;

	/* v = map[dst MAC] */
	ts_emit(a, MOV(R6, R1));
	ts_emit(a, ST_DW(R10, SK_KEY, 0));
	ts_emit(a, MOVI(R2, 0));
	ts_load_at(a, SK_KEY, ETH_ALEN);
	ts_jump(a, JMPI(BPF_JNE, R0, 0), L_MISS);
	ts_lookup(a, map_fd, SK_KEY, L_MISS);
	ts_emit(a, MOV(R7, R0));
	ts_emit(a, LDX_W(R0, R7, 4));			/* n_on */
	ts_jump(a, JMPI(BPF_JGT, R0, 1), L_MULTI);
	/* One pair running, or none: base + the first in order. */
	ts_emit(a, LDX_DW(R1, R7, 8));
	ts_emit(a, ANDI(R1, 15));
	ts_emit(a, LDX_H(R0, R7, 0));
	ts_emit(a, ADD(R0, R1));
	ts_emit(a, EXIT());

	/* The Ethernet header and what may be a VLAN tag. */
	ts_label(a, L_MULTI);
	ts_emit(a, ST_DW(R10, SK_ETH, 0));
	ts_emit(a, ST_DW(R10, SK_ETH + 8, 0));
	ts_emit(a, ST_DW(R10, SK_ETH + 16, 0));
	ts_emit(a, MOVI(R2, 0));
	ts_load_at(a, SK_ETH, ETH_HLEN + 4);
	ts_jump(a, JMPI(BPF_JNE, R0, 0), L_ETH14);
	ts_emit(a, MOVI(R8, ETH_HLEN));			/* L3 offset */
	ts_emit(a, LDX_H(R2, R10, SK_ETH + 12));
	ts_jump(a, JMPI(BPF_JNE, R2, 0x0081), L_TYPE);	/* htons(0x8100) */
	ts_emit(a, LDX_H(R2, R10, SK_ETH + 16));
	ts_emit(a, MOVI(R8, ETH_HLEN + 4));
	ts_jump(a, JA(), L_TYPE);
	ts_label(a, L_ETH14);				/* under 18 bytes */
	ts_emit(a, MOVI(R2, 0));
	ts_load_at(a, SK_ETH, ETH_HLEN);
	ts_jump(a, JMPI(BPF_JNE, R0, 0), L_MAC);
	ts_emit(a, MOVI(R8, ETH_HLEN));
	ts_emit(a, LDX_H(R2, R10, SK_ETH + 12));
	ts_label(a, L_TYPE);
	/* R2: the type as it lies; R8: where L3 starts, saved at SK_PORT
	 * too, as R8 becomes the hash once the L3 header is read.
	 */
	ts_emit(a, STX_W(R10, R8, SK_PORT));
	ts_jump(a, JMPI(BPF_JEQ, R2, 0x0008), L_V4);	/* htons(0x0800) */
	ts_jump(a, JMPI(BPF_JEQ, R2, 0xdd86), L_V6);	/* htons(0x86dd) */
	ts_jump(a, JA(), L_MAC);

	/* IPv4: addresses and protocol; ports unless a fragment. */
	ts_label(a, L_V4);
	ts_l3(a, 20, 12, 2, 9, L_V4L4);
	ts_emit(a, LDX_H(R2, R10, SK_L3 + 6));
	ts_emit(a, ANDI(R2, 0xff3f));			/* MF and offset */
	ts_jump(a, JMPI(BPF_JNE, R2, 0), L_MIX);
	ts_emit(a, LDX_B(R2, R10, SK_L3));
	ts_emit(a, ANDI(R2, 15));
	ts_emit(a, LSHI(R2, 2));
	ts_jump(a, JMPI(BPF_JLT, R2, 20), L_MIX);
	ts_emit(a, LDX_W(R1, R10, SK_PORT));		/* L3 offset */
	ts_emit(a, ADD(R2, R1));
	ts_jump(a, JA(), L_PORTS);

	/* IPv6: both addresses and the next header; its ports. */
	ts_label(a, L_V6);
	ts_l3(a, 40, 8, 8, 6, L_V6L4);
	ts_emit(a, LDX_W(R2, R10, SK_PORT));
	ts_emit(a, ADDI(R2, 40));

	/* R2: where the ports are; both of them, XORed, << 8. */
	ts_label(a, L_PORTS);
	ts_load_at(a, SK_L4, 4);
	ts_jump(a, JMPI(BPF_JNE, R0, 0), L_MIX);
	ts_emit(a, LDX_H(R1, R10, SK_L4));
	ts_emit(a, LDX_H(R2, R10, SK_L4 + 2));
	ts_emit(a, XOR32(R1, R2));
	ts_emit(a, LSH32I(R1, 8));
	ts_emit(a, XOR32(R8, R1));
	ts_jump(a, JA(), L_MIX);

	/* Neither, or out of reach: the two MACs (zero if unread). */
	ts_label(a, L_MAC);
	ts_emit(a, MOVI(R8, 0));
	for (i = 0; i < 2 * ETH_ALEN; i += 2)
		ts_xor_h(a, SK_ETH + (int)i, i % 6 == 2 ? 16 : 0);

	/* murmur3's fmix32, as flow_mix() */
	ts_label(a, L_MIX);
	ts_fold(a, 16);
	ts_emit(a, MUL32I(R8, 0x85ebca6bu));
	ts_fold(a, 13);
	ts_emit(a, MUL32I(R8, 0xc2b2ae35u));
	ts_fold(a, 16);

	/* e = flows[v->port][h % 256] */
	ts_emit(a, LDX_W(R1, R7, 16));
	ts_emit(a, STX_W(R10, R1, SK_PORT));
	ts_lookup(a, flows_fd, SK_PORT, L_SPREAD);
	ts_emit(a, MOV32(R1, R8));
	ts_emit(a, ANDI(R1, TAP_STEER_FLOWS - 1));
	ts_emit(a, ADD(R0, R1));
	ts_emit(a, LDX_B(R1, R0, 0));
	ts_jump(a, JMPI(BPF_JEQ, R1, 0), L_SPREAD);
	ts_jump(a, JMPI(BPF_JGT, R1, 16), L_SPREAD);
	ts_emit(a, SUBI(R1, 1));
	ts_emit(a, LDX_H(R2, R7, 2));			/* on */
	ts_emit(a, RSH(R2, R1));
	ts_emit(a, ANDI(R2, 1));
	ts_jump(a, JMPI(BPF_JEQ, R2, 0), L_SPREAD);
	ts_emit(a, LDX_H(R0, R7, 0));
	ts_emit(a, ADD(R0, R1));
	ts_emit(a, EXIT());

	/* The flow's pair is not known (or not running): spread. */
	ts_label(a, L_SPREAD);
	ts_emit(a, MOV32(R1, R8));
	ts_emit(a, RSH32I(R1, 8));
	ts_emit(a, LDX_W(R2, R7, 4));			/* n_on, > 1 */
	ts_emit(a, MOD32(R1, R2));
	ts_emit(a, ANDI(R1, 15));			/* k < n_on <= 16 */
	ts_emit(a, LSHI(R1, 2));
	ts_emit(a, LDX_DW(R2, R7, 8));			/* order */
	ts_emit(a, RSH(R2, R1));
	ts_emit(a, ANDI(R2, 15));
	ts_emit(a, LDX_H(R0, R7, 0));
	ts_emit(a, ADD(R0, R2));
	ts_emit(a, EXIT());

	ts_label(a, L_MISS);
	ts_emit(a, MOVI(R0, 0));
	ts_emit(a, EXIT());
	return ts_link(a);
}

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
 * tap_steer_load() - load the steering program over the two maps
 * @map_fd:	the MAC map
 * @flows_fd:	the flow map
 *
 * Return: program fd or -errno
 */
static int tap_steer_load(int map_fd, int flows_fd)
{
	static struct ts_asm a;
	static char vlog[1 << 18];
	struct bpf_prog_load_opts opts = {
		.sz = sizeof(opts),
		.log_buf = vlog,
		.log_size = sizeof(vlog),
		.log_level = 1,
	};
	int fd, rc;

	memset(&a, 0, sizeof(a));
	if (!tap_steer_prog(&a, map_fd, flows_fd)) {
		debug("tap steering program not assembled (%u insns)", a.n);
		return -EINVAL;
	}
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "vhostd_steer", "GPL",
			   a.insn, a.n, NULL);
	if (fd >= 0)
		return fd;
	rc = -errno;
	/* Once more with the verifier's log, for the reason. */
	vlog[0] = '\0';
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "vhostd_steer", "GPL",
			   a.insn, a.n, &opts);
	if (fd >= 0)
		return fd;
	/* The end of the log says why; its start is the walk to it. */
	debug("tap steering program refused: %s",
	      vlog + (strlen(vlog) > 400 ? strlen(vlog) - 400 : 0));
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
	s->flows_fd = -1;
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
				   sizeof(struct tap_steer_dst), s->max, NULL);
	if (s->map_fd < 0) {
		rc = -errno;
		s->map_fd = -1;
		goto err;
	}
	s->flows_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "vhostd_flows",
				     sizeof(uint32_t), TAP_STEER_FLOWS,
				     PORT_IDX_MAX, NULL);
	if (s->flows_fd < 0) {
		rc = -errno;
		s->flows_fd = -1;
		goto err;
	}
	s->prog_fd = tap_steer_load(s->map_fd, s->flows_fd);
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
	if (s->flows_fd >= 0)
		close(s->flows_fd);
	s->prog_fd = -1;
	s->map_fd = -1;
	s->flows_fd = -1;
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
 * @dst:	where each port index's MACs go (base 0: nowhere)
 * @nports:	entries in @dst
 * @n:		entries in @s->next so far
 */
struct tap_steer_walk {
	struct tap_steer *s;
	const struct tap_steer_dst *dst;
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

	if (port >= w->nports || !w->dst[port].base || w->n >= w->s->max)
		return;
	memcpy(key, mac, ETH_ALEN);
	memcpy(&w->s->next[w->n].key, key, sizeof(key));
	w->s->next[w->n].val = w->dst[port];
	w->n++;
}

/**
 * tap_steer_want() - the entries the map should hold, sorted, one per MAC
 * @s:		state; fills @s->next
 * @dst:	where each port index's MACs go
 * @nports:	entries in @dst
 *
 * Return: entries in @s->next
 */
static unsigned int tap_steer_want(struct tap_steer *s,
				   const struct tap_steer_dst *dst,
				   unsigned int nports)
{
	struct tap_steer_walk w = {
		.s = s, .dst = dst, .nports = nports,
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
 * @dst:	where each port index's MACs go (base 0: nowhere)
 * @nports:	entries in @dst
 *
 * Context: control thread
 */
void tap_steer_sync(struct tap_steer *s, const struct tap_steer_dst *dst,
		    unsigned int nports)
{
	unsigned int n, i = 0, j = 0, m;
	struct tap_steer_ent *t;

	if (s->map_fd < 0)
		return;
	n = tap_steer_want(s, dst, nports);

	while (i < s->n || j < n) {
		if (j == n || (i < s->n && s->cur[i].key < s->next[j].key)) {
			/* Gone from the table (aged, flushed, now elsewhere). */
			bpf_map_delete_elem(s->map_fd, &s->cur[i].key);
			i++;
			continue;
		}
		if (i < s->n && s->cur[i].key == s->next[j].key) {
			i++;
			if (!memcmp(&s->cur[i - 1].val, &s->next[j].val,
				    sizeof(s->next[j].val))) {
				j++;
				continue;
			}
		}
		/* New, moved or changed.  A failed update is left out of
		 * the shadow, so the next sync tries again.
		 */
		if (bpf_map_update_elem(s->map_fd, &s->next[j].key,
					&s->next[j].val, BPF_ANY) < 0) {
			/* One per MAC and second, as many as a guest
			 * sprays: rate limited.
			 */
			src_debug(NULL, "tap steering map update: %s",
				  strerror(errno));
			bpf_map_delete_elem(s->map_fd, &s->next[j].key);
			s->next[j].val.base = 0;
		}
		j++;
	}
	for (i = 0, m = 0; i < n; i++)
		if (s->next[i].val.base)
			s->next[m++] = s->next[i];
	t = s->cur;
	s->cur = s->next;
	s->next = t;
	s->n = m;
}

/**
 * tap_steer_flows() - copy one port's flow table into the flow map
 * @s:		state (does nothing while steering is off)
 * @port:	the port's index, < PORT_IDX_MAX
 * @table:	TAP_STEER_FLOWS bytes: each flow slot's pair + 1, 0 unknown
 *
 * Return: 0 or -errno
 * Context: control thread
 */
int tap_steer_flows(struct tap_steer *s, unsigned int port,
		    const uint8_t *table)
{
	uint32_t key = port;

	if (s->flows_fd < 0)
		return 0;
	if (port >= PORT_IDX_MAX)
		return -EINVAL;
	if (bpf_map_update_elem(s->flows_fd, &key, table, BPF_ANY) < 0)
		return -errno;
	return 0;
}
