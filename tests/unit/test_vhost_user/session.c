// SPDX-License-Identifier: GPL-2.0-or-later
/* session.c - QEMU 7.2's vhost-user session, message by message
 *
 * The start sequence and its replies, SET_VRING_ENABLE gating the
 * queue callbacks, memory slots (ADD/REM_MEM_REG), and REPLY_ACK.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "test_vhost_user.h"

void test_qemu_sequence(void **state)
{
	uint64_t feat = F_PROTO | (1ull << VIRTIO_F_VERSION_1) |
			(1ull << VIRTIO_RING_F_EVENT_IDX);
	struct vring_desc *desc = (void *)(f.mem + DESC_OFF(1));
	struct vring_avail *avail = (void *)(f.mem + AVAIL_OFF(1));
	struct vring_used *used = (void *)(f.mem + USED_OFF(1));
	struct vhost_vring_state st = { 1, 0 };
	struct virtq_elem e;

	negotiate((1 << 0) | (1 << 3), feat);
	assert_int_equal(vu_dev_hdr_len(&f.dev), 12);
	assert_true(f.dev.q[0].vq.event_idx);
	assert_false(f.dev.q[0].vq.indirect);

	assert_int_equal(set_mem_table(VHOST_USER_NEED_REPLY_MASK), 0);
	assert_int_equal(ack(VHOST_USER_SET_MEM_TABLE), 0);
	assert_int_equal(f.dev.mem.nregions, 2);

	start_ring(0);
	start_ring(1);
	assert_string_equal(f.log, "S0S1");
	assert_true(f.dev.q[1].started);

	/* the guest sends a frame on TX (queue 1): the datapath pops it */
	memcpy(f.mem + BUF_OFF, "hello", 5);
	desc[3] = (struct vring_desc){ BUF_OFF, 5, 0, 0 };
	avail->ring[0] = 3;
	avail->idx = 1;
	vlock_lock(&f.dev.q[1].lock);
	assert_true(f.dev.q[1].started);
	assert_int_equal(virtq_pop(&f.dev.q[1].vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.out_len, 5);
	assert_memory_equal(e.iov[0].iov_base, "hello", 5);
	virtq_push(&f.dev.q[1].vq, e.head, 0);
	virtq_flush(&f.dev.q[1].vq);
	virtq_notify(&f.dev.q[1].vq);
	vlock_unlock(&f.dev.q[1].lock);
	assert_int_equal(used->idx, 1);
	assert_int_equal(used->ring[0].id, 3);
	assert_int_equal(f.dev.q[1].vq.stat_notifies, 1);

	/* stop: GET_VRING_BASE per ring returns where we are */
	assert_int_equal(set_state(VHOST_USER_GET_VRING_BASE, 0, 1, 0), 0);
	fe_reply(VHOST_USER_GET_VRING_BASE, &st, sizeof(st));
	assert_int_equal(st.index, 1);
	assert_int_equal(st.num, 1);
	assert_int_equal(set_state(VHOST_USER_GET_VRING_BASE, 0, 0, 0), 0);
	fe_reply(VHOST_USER_GET_VRING_BASE, &st, sizeof(st));
	assert_int_equal(st.num, 0);
	assert_string_equal(f.log, "S0S1s1s0");
	assert_int_equal(f.dev.q[0].kick_fd, -1);

	/* restart: base 0 is sent, but the used ring shows 1 completed */
	start_ring(1);
	assert_string_equal(f.log, "S0S1s1s0S1");
	assert_int_equal(f.dev.q[1].vq.last_avail_idx, 1);

	/* QEMU goes away */
	close(f.sock);
	f.sock = -1;
	assert_int_equal(vu_dev_handle(&f.dev), -ECONNRESET);
	vu_dev_detach(&f.dev);
	assert_string_equal(f.log, "S0S1s1s0S1s1");
	assert_int_equal(f.dev.stats.connects, 1);
	assert_int_equal(f.dev.stats.disconnects, 1);
	assert_int_equal(f.dev.stats.msg_errors, 0);
	assert_int_equal(f.dev.mem.nregions, 0);
}

void test_enable_gating(void **state)
{
	/* PROTOCOL_FEATURES acked: rings start disabled */
	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES, 0, F_PROTO), 0);
	assert_int_equal(set_mem_table(0), 0);
	start_ring(0);
	assert_int_equal(f.nstart[0], 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_ENABLE, 0, 0, 1), 0);
	assert_int_equal(f.nstart[0], 1);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_ENABLE, 0, 0, 0), 0);
	assert_int_equal(f.nstop[0], 1);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_ENABLE, 0, 0, 2), 0);
	assert_int_equal(f.dev.stats.msg_errors, 1);

	/* not acked: a ring runs as soon as it has a kick fd */
	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES, 0, 0), 0);
	assert_int_equal(f.nstart[0], 2);
	/* a new kick fd replaces the old one: stop, then start again */
	assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_KICK, 0), 0);
	assert_string_equal(f.log, "S0s0S0s0S0");
	/* RESET_OWNER stops everything */
	assert_int_equal(xfer(VHOST_USER_RESET_OWNER, 0, NULL, 0, NULL, 0), 0);
	assert_string_equal(f.log, "S0s0S0s0S0s0");
	assert_int_equal(f.dev.mem.nregions, 0);
}

void test_mem_slots(void **state)
{
	struct vhost_user_mem_reg r = {
		.region = { 0, MEM_SIZE / 2, UVA_BASE, 0 },
	};
	struct vhost_user_mem_reg r2 = {
		.region = { MEM_SIZE / 2, MEM_SIZE / 2, UVA_BASE + MEM_SIZE / 2,
			    MEM_SIZE / 2 },
	};
	uint8_t *old_desc;
	int other;

	negotiate((1 << 3) | (1 << 15), 0);
	assert_int_equal(get_u64(VHOST_USER_GET_MAX_MEM_SLOTS),
			 GUEST_MEM_MAX_REGIONS);
	assert_int_equal(xfer(VHOST_USER_ADD_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r, sizeof(r),
			      &f.memfd, 1), 0);
	assert_int_equal(ack(VHOST_USER_ADD_MEM_REG), 0);
	start_ring(0);
	assert_int_equal(f.nstart[0], 1);
	old_desc = (uint8_t *)f.dev.q[0].vq.desc;

	/* adding a region remaps in place: no stop */
	assert_int_equal(xfer(VHOST_USER_ADD_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r2, sizeof(r2),
			      &f.memfd, 1), 0);
	assert_int_equal(ack(VHOST_USER_ADD_MEM_REG), 0);
	assert_int_equal(f.nstop[0], 0);
	assert_ptr_equal(f.dev.q[0].vq.desc, old_desc);
	/* the same region again (QEMU before 8.0 adds each once per queue
	 * pair): acked, a reference, nothing remapped or stopped
	 */
	assert_int_equal(xfer(VHOST_USER_ADD_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r2, sizeof(r2),
			      &f.memfd, 1), 0);
	assert_int_equal(ack(VHOST_USER_ADD_MEM_REG), 0);
	assert_int_equal(f.dev.mem.nregions, 2);
	assert_int_equal(f.nstop[0], 0);
	/* the same addresses from another file overlap: refused */
	other = memfd_create("test_vhost_user_other", MFD_CLOEXEC);
	assert_true(other >= 0);
	assert_int_equal(ftruncate(other, MEM_SIZE), 0);
	assert_int_equal(xfer(VHOST_USER_ADD_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r2, sizeof(r2),
			      &other, 1), 0);
	assert_int_not_equal(ack(VHOST_USER_ADD_MEM_REG), 0);
	close(other);
	/* one remove per add: the first only drops the reference */
	assert_int_equal(xfer(VHOST_USER_REM_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r2, sizeof(r2),
			      NULL, 0), 0);
	assert_int_equal(ack(VHOST_USER_REM_MEM_REG), 0);
	assert_int_equal(f.dev.mem.nregions, 2);
	assert_ptr_equal(f.dev.q[0].vq.desc, old_desc);

	/* removing the rings' region stops the ring; fd attached is fine */
	assert_int_equal(xfer(VHOST_USER_REM_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r, sizeof(r),
			      &f.memfd, 1), 0);
	assert_int_equal(ack(VHOST_USER_REM_MEM_REG), 0);
	assert_int_equal(f.nstop[0], 1);
	assert_false(f.dev.q[0].started);
	assert_int_equal(xfer(VHOST_USER_REM_MEM_REG,
			      VHOST_USER_NEED_REPLY_MASK, &r, sizeof(r),
			      NULL, 0), 0);
	assert_int_not_equal(ack(VHOST_USER_REM_MEM_REG), 0);
	/* and adding it back starts it again */
	assert_int_equal(xfer(VHOST_USER_ADD_MEM_REG, 0, &r, sizeof(r),
			      &f.memfd, 1), 0);
	no_reply();
	assert_int_equal(f.nstart[0], 2);

	/* a full SET_MEM_TABLE replaces everything; rings remapped */
	assert_int_equal(set_mem_table(0), 0);
	assert_true(f.dev.q[0].started);
	assert_int_equal(f.nstop[0], 1);
	assert_int_equal(f.dev.mem.nregions, 2);
	/* an empty table takes the ring away */
	{
		uint32_t empty[2] = { 0, 0 };

		assert_int_equal(xfer(VHOST_USER_SET_MEM_TABLE, 0, empty,
				      sizeof(empty), NULL, 0), 0);
	}
	assert_int_equal(f.nstop[0], 2);
}

void test_reply_ack(void **state)
{
	/* REPLY_ACK not negotiated yet: NEED_REPLY is ignored */
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM,
				   VHOST_USER_NEED_REPLY_MASK, 0, 256), 0);
	no_reply();
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES,
				 VHOST_USER_NEED_REPLY_MASK, 1 << 3), 0);
	assert_int_equal(ack(VHOST_USER_SET_PROTOCOL_FEATURES), 0);

	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM,
				   VHOST_USER_NEED_REPLY_MASK, 0, 256), 0);
	assert_int_equal(ack(VHOST_USER_SET_VRING_NUM), 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM,
				   VHOST_USER_NEED_REPLY_MASK, 0, 100), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_VRING_NUM), 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM,
				   VHOST_USER_NEED_REPLY_MASK, 0, 65536), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_VRING_NUM), 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM,
				   VHOST_USER_NEED_REPLY_MASK, 2, 256), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_VRING_NUM), 0);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_BASE,
				   VHOST_USER_NEED_REPLY_MASK, 0, 0x10000), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_VRING_BASE), 0);
	/* features never offered (MQ, here) are refused */
	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES,
				 VHOST_USER_NEED_REPLY_MASK, 1ull << 22), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_FEATURES), 0);
	assert_int_equal(set_u64(VHOST_USER_SET_PROTOCOL_FEATURES,
				 VHOST_USER_NEED_REPLY_MASK, 1ull << 5), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_PROTOCOL_FEATURES), 0);
	/* unknown request: refused, session kept */
	assert_int_equal(xfer(99, VHOST_USER_NEED_REPLY_MASK, NULL, 0, NULL,
			      0), 0);
	assert_int_not_equal(ack(99), 0);
	assert_int_equal(set_u64(VHOST_USER_SET_LOG_FD,
				 VHOST_USER_NEED_REPLY_MASK, 0), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_LOG_FD), 0);
	/* reserved bits in a vring fd message */
	assert_int_equal(set_u64(VHOST_USER_SET_VRING_CALL,
				 VHOST_USER_NEED_REPLY_MASK,
				 VHOST_USER_VRING_NOFD_MASK | (1 << 12)), 0);
	assert_int_not_equal(ack(VHOST_USER_SET_VRING_CALL), 0);
	assert_int_equal(set_u64(VHOST_USER_SET_VRING_CALL,
				 VHOST_USER_NEED_REPLY_MASK,
				 VHOST_USER_VRING_NOFD_MASK | 1), 0);
	assert_int_equal(ack(VHOST_USER_SET_VRING_CALL), 0);
	assert_int_equal(f.dev.stats.msg_errors, 9);
	assert_true(f.dev.err_logged);
}

/* A packed ring through the protocol: any size, the base's two halves
 * (avail and used, each with its wrap counter) in and out, ring
 * addresses meaning ring / driver area / device area, and a switch of
 * layout by SET_FEATURES stopping the ring it changes.
 */
void test_packed_session(void **state)
{
	uint64_t feat = F_PROTO | (1ull << VIRTIO_F_VERSION_1) |
			(1ull << VIRTIO_F_RING_PACKED) |
			(1ull << VIRTIO_F_IN_ORDER);
	struct vring_packed_desc *ring = (void *)(f.mem + DESC_OFF(1));
	struct vhost_vring_state st = { 1, 0 };
	struct virtq_elem e;
	uint16_t flags;

	negotiate((1 << 0) | (1 << 3), feat);
	assert_true(f.dev.q[1].vq.packed);
	assert_int_equal(set_mem_table(0), 0);
	/* no power of two needed, but no more than 2^15 */
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM, 0, 1, 32769), 0);
	assert_int_equal(f.dev.stats.msg_errors, 1);
	assert_int_equal(set_state(VHOST_USER_SET_VRING_NUM, 0, 1, 100), 0);
	/* resume at avail 99 (wrap 1), used 99 (wrap 1) */
	assert_int_equal(set_state(VHOST_USER_SET_VRING_BASE, 0, 1,
				   99 | 1u << 15 | 99u << 16 | 1u << 31), 0);
	{
		struct vhost_vring_addr a = {
			.index = 1,
			.desc_user_addr = UVA_BASE + DESC_OFF(1),
			.used_user_addr = UVA_BASE + USED_OFF(1),
			.avail_user_addr = UVA_BASE + AVAIL_OFF(1),
		};

		assert_int_equal(xfer(VHOST_USER_SET_VRING_ADDR, 0, &a,
				      sizeof(a), NULL, 0), 0);
	}
	assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_KICK, 1), 0);
	assert_true(f.dev.q[1].started);

	/* a two-descriptor chain straddling the end of the ring */
	memcpy(f.mem + BUF_OFF, "hello", 5);
	ring[0] = (struct vring_packed_desc){ BUF_OFF + 3, 2, 4,
		1u << VRING_PACKED_DESC_F_USED };	/* wrap 0 lap */
	ring[99] = (struct vring_packed_desc){ BUF_OFF, 3, 4,
		VRING_DESC_F_NEXT | 1u << VRING_PACKED_DESC_F_AVAIL };
	vlock_lock(&f.dev.q[1].lock);
	assert_int_equal(virtq_pop(&f.dev.q[1].vq, &e), VIRTQ_POP_OK);
	assert_int_equal(e.head, 4);
	assert_int_equal(e.out_len, 5);
	virtq_push(&f.dev.q[1].vq, e.head, 0);
	virtq_flush(&f.dev.q[1].vq);
	vlock_unlock(&f.dev.q[1].lock);
	flags = ring[99].flags;
	assert_int_equal(ring[99].id, 4);
	assert_true(flags & 1u << VRING_PACKED_DESC_F_AVAIL);
	assert_true(flags & 1u << VRING_PACKED_DESC_F_USED);

	/* stop: both halves now at 1, with wrap counters 0 */
	assert_int_equal(set_state(VHOST_USER_GET_VRING_BASE, 0, 1, 0), 0);
	fe_reply(VHOST_USER_GET_VRING_BASE, &st, sizeof(st));
	assert_int_equal(st.num, 1 | 1u << 16);

	/* a base past the ring end is refused when the ring would start */
	assert_int_equal(set_state(VHOST_USER_SET_VRING_BASE, 0, 1, 100), 0);
	assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_KICK, 1), 0);
	assert_false(f.dev.q[1].started);
	assert_int_equal(f.dev.stats.msg_errors, 2);

	/* back to split: a size of 100 cannot be mapped any more */
	assert_int_equal(set_state(VHOST_USER_SET_VRING_BASE, 0, 1, 0), 0);
	assert_int_equal(set_vring_fd(VHOST_USER_SET_VRING_KICK, 1), 0);
	assert_true(f.dev.q[1].started);
	assert_int_equal(set_u64(VHOST_USER_SET_FEATURES, 0,
				 feat & ~(1ull << VIRTIO_F_RING_PACKED)), 0);
	assert_false(f.dev.q[1].vq.packed);
	assert_false(f.dev.q[1].started);
	assert_int_equal(f.dev.stats.msg_errors, 3);
}
