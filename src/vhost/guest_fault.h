/* SPDX-License-Identifier: GPL-2.0-or-later */
/* guest_fault.h - a SIGBUS in guest memory costs one device, not vhostd
 *
 * A front end can shrink (ftruncate) the file behind a region after we
 * mapped it; the next access to a page past the new end raises SIGBUS,
 * which would end the process and every guest's network with it.  Every
 * mapping of guest memory is registered here; the SIGBUS handler finds
 * the mapping that holds the faulting address, maps a private zero page
 * over the page that vanished (so the faulting access completes, on
 * memory nobody else sees) and tells the owner, which marks its device
 * broken: the control thread then drops that front end.  A SIGBUS
 * anywhere else is a bug of ours and ends the process as before.
 */
#ifndef VHOSTD_GUEST_FAULT_H
#define VHOSTD_GUEST_FAULT_H

#include <stddef.h>
#include <stdint.h>

/* Mappings tracked at once: every region of every device, and a second
 * table per device while SET_MEM_TABLE replaces the first.
 */
#define GUEST_FAULT_SLOTS	4096

/**
 * typedef guest_fault_fn - told that a page of one of its mappings vanished
 * @ctx:	what the owner registered
 *
 * Context: the SIGBUS handler, on whichever thread touched the page; may
 * only do what is async-signal-safe (atomics, shutdown(), write())
 */
typedef void (*guest_fault_fn)(void *ctx);

int guest_fault_init(guest_fault_fn fn);
int guest_fault_register(void *addr, size_t len, size_t page, void *ctx);
void guest_fault_unregister(void *addr);
uint64_t guest_fault_count(void);

#endif /* VHOSTD_GUEST_FAULT_H */
