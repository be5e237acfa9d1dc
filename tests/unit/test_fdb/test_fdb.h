/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_fdb.h - what the parts of test_fdb share
 *
 * test_fdb.c (sequential behaviour, the shared helpers, the test list)
 * and the files next to this header are one cmocka program:
 *
 *   ref.c	a naive reference table (quotas and static entries too)
 *		and the differential tests against it
 *   conc.c	threads: learners, lookers, an ager and flushes at once;
 *		sprayers overfilling the table against a victim
 */
#ifndef TEST_FDB_H
#define TEST_FDB_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../../src/fdb.h"

extern struct fdb fdb;

/* test_fdb.c */
void mac_of(uint32_t n, uint8_t mac[6]);
int slot_of(const uint8_t mac[6]);
void same_home(uint8_t cand[FDB_PROBE + 1][6]);
unsigned int port_entries(uint16_t port);

/* ref.c */
void test_differential_exact(void **state);
void test_differential_quota(void **state);
void test_differential_overfull(void **state);

/* conc.c */
void test_concurrent(void **state);
void test_concurrent_pressure(void **state);

#endif /* TEST_FDB_H */
