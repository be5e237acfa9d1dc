// SPDX-License-Identifier: GPL-2.0-or-later
/* guest_fault.c - contain a SIGBUS in guest memory to its device
 *
 * DOC: Theory of Operation
 *
 * A mapping of a file raises SIGBUS on an access to a page past the
 * file's end.  We check the size when we map a region, but the front end
 * keeps the file and may shrink it at any time afterwards (a memfd sealed
 * with F_SEAL_SHRINK, QEMU's default for memory-backend-memfd, cannot be:
 * those regions are safe by construction; guest_mem.c says which).
 *
 * The table below lists every mapping of guest memory: start, length, the
 * page size of its file (4 KiB, or the huge page size on hugetlbfs) and
 * the owner's context.  The control thread fills a slot before the
 * mapping is used and empties it before munmap(); the handler only reads.
 * A slot is published by its length (release) and retired by zeroing the
 * length first, so the handler never trusts a half-written slot.
 *
 * On SIGBUS the handler looks for the slot holding si_addr.  Found: it maps
 * anonymous zero memory over the page that vanished (MAP_FIXED; on return
 * the faulting instruction runs again and completes on that private
 * page), counts the fault and calls the owner's guest_fault_fn, which
 * marks the device broken and shuts its socket down.  The control thread
 * sees the hang-up and drops the front end, unmapping the whole region
 * (zero pages included).  Reads of the lost page see zeros, writes go
 * nowhere: what the guest cannot observe any more anyway.
 *
 * Not found: the fault is ours.  The default action is restored and the
 * handler returns, so the access faults again and the process dies with
 * the usual core dump, as it would without this file.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include "guest_fault.h"

/**
 * struct guest_fault_slot - one registered mapping
 * @start:	first byte
 * @len:	bytes; 0 = free slot (written last on fill, first on retire)
 * @page:	page size of the backing file, a power of two
 * @ctx:	owner's context for the callback
 */
struct guest_fault_slot {
	uintptr_t start;
	size_t len;
	size_t page;
	void *ctx;
};

static struct guest_fault_slot guest_fault_slots[GUEST_FAULT_SLOTS];
static guest_fault_fn guest_fault_cb;
static uint64_t guest_fault_n;

/**
 * guest_fault_handler() - SIGBUS: guest memory that vanished, or our bug
 * @sig:	SIGBUS
 * @si:		fault details (si_addr)
 * @uc:		unused
 */
static void guest_fault_handler(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	unsigned int i;

	(void)uc;
	for (i = 0; i < GUEST_FAULT_SLOTS; i++) {
		struct guest_fault_slot *s = &guest_fault_slots[i];
		size_t len = __atomic_load_n(&s->len, __ATOMIC_ACQUIRE);
		uintptr_t page;

		if (!len || a - s->start >= len)
			continue;
		page = a & ~(uintptr_t)(s->page - 1);
		if (mmap((void *)page, s->page, PROT_READ | PROT_WRITE,
			 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
		    MAP_FAILED)
			break;
		__atomic_fetch_add(&guest_fault_n, 1, __ATOMIC_RELAXED);
		guest_fault_cb(s->ctx);
		return;
	}
	/* Not guest memory (or no way to patch it): die as we would have. */
	signal(sig, SIG_DFL);
}

/**
 * guest_fault_init() - install the SIGBUS handler
 * @fn:		called with a mapping's context when one of its pages vanished
 *
 * Return: 0 or -errno
 * Context: start-up, before any guest memory is mapped
 */
int guest_fault_init(guest_fault_fn fn)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guest_fault_handler;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	guest_fault_cb = fn;
	return sigaction(SIGBUS, &sa, NULL) ? -errno : 0;
}

/**
 * guest_fault_register() - a mapping of guest memory exists from now on
 * @addr:	what mmap() returned
 * @len:	its length
 * @page:	page size of the file behind it (power of two; @addr and @len
 *		are multiples of it)
 * @ctx:	passed to the callback on a fault in this mapping
 *
 * Return: 0, or -ENOSPC when every slot is taken (the caller unmaps and
 *	   refuses the region: an uncontained mapping could end vhostd)
 * Context: control thread
 */
int guest_fault_register(void *addr, size_t len, size_t page, void *ctx)
{
	unsigned int i;

	for (i = 0; i < GUEST_FAULT_SLOTS; i++) {
		struct guest_fault_slot *s = &guest_fault_slots[i];

		if (__atomic_load_n(&s->len, __ATOMIC_RELAXED))
			continue;
		s->start = (uintptr_t)addr;
		s->page = page;
		s->ctx = ctx;
		/* Pairs with the handler's acquire load of @len. */
		__atomic_store_n(&s->len, len, __ATOMIC_RELEASE);
		return 0;
	}
	return -ENOSPC;
}

/**
 * guest_fault_unregister() - the mapping at @addr is about to be unmapped
 * @addr:	what mmap() returned, as registered
 *
 * Context: control thread, before munmap(): once the range is unmapped
 * the kernel may reuse it for anything, which must not look like guest
 * memory to the handler
 */
void guest_fault_unregister(void *addr)
{
	unsigned int i;

	for (i = 0; i < GUEST_FAULT_SLOTS; i++) {
		struct guest_fault_slot *s = &guest_fault_slots[i];

		if (__atomic_load_n(&s->len, __ATOMIC_RELAXED) &&
		    s->start == (uintptr_t)addr) {
			__atomic_store_n(&s->len, 0, __ATOMIC_RELEASE);
			return;
		}
	}
}

/**
 * guest_fault_count() - faults contained since start-up
 *
 * Return: the count
 */
uint64_t guest_fault_count(void)
{
	return __atomic_load_n(&guest_fault_n, __ATOMIC_RELAXED);
}
