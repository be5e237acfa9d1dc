/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stub_host.h - a struct port_host that runs nothing, for unit tests that
 * drive a port type (or the switch) through its ops themselves
 *
 * Include after port.h.  STUB_SET_UP names the set_up to use; without it,
 * set_up only flips the port's @up flag (no switch behind it).
 * STUB_FIND, if defined, names the port_host @find (a test's own ports
 * by name, for via=).
 */
#ifndef VHOSTD_TEST_STUB_HOST_H
#define VHOSTD_TEST_STUB_HOST_H

static int stub_src_add(struct port *p, uint32_t q, int fd,
			enum port_src_kind kind)
{
	return 0;
}

static void stub_src_del(struct port *p, uint32_t q)
{
}

static void stub_quiesce(void)
{
}

#ifndef STUB_SET_UP
static void stub_set_up(struct port *p, bool up)
{
	p->up = up;
}
#define STUB_SET_UP	stub_set_up
#endif

static const struct port_host stub_host = {
	.src_add = stub_src_add,
	.src_del = stub_src_del,
	.quiesce = stub_quiesce,
	.set_up = STUB_SET_UP,
#ifdef STUB_FIND
	.find = STUB_FIND,
#endif
};

#endif /* VHOSTD_TEST_STUB_HOST_H */
