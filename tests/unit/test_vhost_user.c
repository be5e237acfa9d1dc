// SPDX-License-Identifier: GPL-2.0-or-later
/* test_vhost_user.c - vhost-user device over a socketpair, test plays QEMU
 *
 * Each test attaches a vu_dev to one end of a unix socketpair and sends
 * QEMU 7.2's messages (see QEMU-NOTES) from the other, with guest memory
 * in a memfd the test also maps to lay out rings.  vu_dev_handle() is
 * called once per message sent; replies are read back and checked.  The
 * port callbacks record when queues start and stop.  Every test checks
 * that the process holds the same descriptors at the end as at the start.
 *
 * The tests live in test_vhost_user/ (see test_vhost_user.h there); this
 * file holds the list cmocka runs.
 */
#include "test_vhost_user/test_vhost_user.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_qemu_sequence, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_enable_gating, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mem_slots, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reply_ack, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_packed_session, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stalled_peer, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dribbled_message, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_mtu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_mtu_not_negotiated,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_live, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_refused, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_send_rarp, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_control, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
