// SPDX-License-Identifier: GPL-2.0-or-later
/* vdrv_log.c - the front end's half of a live migration's dirty log
 *
 * What QEMU 7.2 does on the source when a migration starts
 * (hw/virtio/vhost.c, vhost_migration_log()), from the vhost-user spec
 * ("Migration"): a log of one bit per 4 KiB guest page, covering guest
 * memory from address 0, in a sealed memfd sent with SET_LOG_BASE (whose
 * reply, with LOG_SHMFD, it waits for); then SET_FEATURES with
 * VHOST_F_LOG_ALL (bit 26) and, per ring, SET_VRING_ADDR with the same
 * addresses, VHOST_VRING_F_LOG and log_guest_addr set to the guest
 * address of the device area.  The rings keep running throughout.
 * Stopping logging is the reverse, the log kept.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/vhost_types.h>

#include "vdrv_priv.h"

#define VDRV_F_LOG_ALL		26	/* VHOST_F_LOG_ALL */
#define VDRV_LOG_PAGE		4096	/* VHOST_LOG_PAGE */

/**
 * vdrv_hva_gpa() - guest address of one of our pointers into guest memory
 * @d:		device
 * @p:		pointer into a region of one of its pairs
 * @gpa:	out: the address
 *
 * Return: 0, or -ENOENT if @p is in no region
 */
static int vdrv_hva_gpa(const struct vdrv_dev *d, const void *p, uint64_t *gpa)
{
	const uint8_t *b = p;
	unsigned int i, k;

	for (k = 0; k < d->npairs; k++) {
		const struct vdrv_mem *m = &d->pairs[k]->mem;

		for (i = 0; i < m->nregions; i++) {
			const struct vdrv_region *r = &m->r[i];

			if (b >= r->hva && (uint64_t)(b - r->hva) < r->size) {
				*gpa = r->gpa + (uint64_t)(b - r->hva);
				return 0;
			}
		}
	}
	return -ENOENT;
}

/**
 * vdrv_regions() - the guest memory regions of every pair
 * @d:		device (not a pair handle)
 * @out:	filled with up to @max regions
 * @max:	room in @out
 *
 * Return: regions there are (may be more than @max)
 */
unsigned int vdrv_regions(struct vdrv_dev *d, struct vdrv_region_view *out,
			  unsigned int max)
{
	unsigned int i, k, n = 0;

	for (k = 0; k < d->npairs; k++) {
		const struct vdrv_mem *m = &d->pairs[k]->mem;

		for (i = 0; i < m->nregions; i++, n++)
			if (n < max)
				out[n] = (struct vdrv_region_view){
					.hva = m->r[i].hva,
					.gpa = m->r[i].gpa,
					.size = m->r[i].size,
				};
	}
	return n;
}

/**
 * vdrv_log_ring_addr() - SET_VRING_ADDR again, with or without the log flag
 * @d:		device
 * @r:		ring
 * @log:	set VHOST_VRING_F_LOG
 *
 * Return: 0 or -errno
 */
static int vdrv_log_ring_addr(struct vdrv_dev *d, const struct vdrv_ring *r,
			      bool log)
{
	struct vhost_vring_addr a = {
		.index = r->index,
		.flags = log ? 1u << VHOST_VRING_F_LOG : 0,
		.desc_user_addr = (uintptr_t)r->area[0],
		.avail_user_addr = (uintptr_t)r->area[1],
		.used_user_addr = (uintptr_t)r->area[2],
	};
	uint64_t gpa = 0;
	int ret;

	ret = vdrv_hva_gpa(d, r->area[2], &gpa);
	if (ret)
		return ret;
	a.log_guest_addr = gpa;
	return vdrv_proto_set(&d->conn, VDRV_REQ_SET_VRING_ADDR, &a, sizeof(a),
			      NULL, 0);
}

/**
 * vdrv_log_features() - SET_FEATURES with LOG_ALL on or off, then every ring
 * @d:		device
 * @on:		logging on
 *
 * Return: 0 or -errno
 */
static int vdrv_log_features(struct vdrv_dev *d, bool on)
{
	uint64_t f = d->features;
	unsigned int i;
	int ret;

	if (d->dev_features & (1ULL << VDRV_F_PROTOCOL_FEATURES))
		f |= 1ULL << VDRV_F_PROTOCOL_FEATURES;
	if (on)
		f |= 1ULL << VDRV_F_LOG_ALL;
	ret = vdrv_proto_set_u64(&d->conn, VDRV_REQ_SET_FEATURES, f);
	for (i = 0; !ret && i < VDRV_NRINGS * d->npairs; i++)
		ret = vdrv_log_ring_addr(d, &d->pairs[i / 2]->rings[i % 2], on);
	return ret;
}

/**
 * vdrv_log_share() - share a dirty log and turn logging on, rings running
 * @d:		device (not a pair handle), LOG_SHMFD negotiated
 * @sealed:	seal the log against shrinking and growing, as QEMU does
 *
 * The log covers every pair's memory from guest address 0.  A second
 * call sends a new log (QEMU resizing it) and turns logging on again.
 *
 * Return: 0, -ENOTSUP without LOG_SHMFD or LOG_ALL, or -errno
 */
static int vdrv_log_share(struct vdrv_dev *d, bool sealed)
{
	uint64_t end = 0, sz[2];
	struct vdrv_region_view v[VDRV_MEM_REGIONS * VDRV_PAIRS_MAX];
	unsigned int i, n;
	size_t len;
	void *p;
	int fd, ret;

	if (d->parent || !(d->proto_features & (1ULL << VDRV_PF_LOG_SHMFD)) ||
	    !(d->dev_features & (1ULL << VDRV_F_LOG_ALL)))
		return -ENOTSUP;
	n = vdrv_regions(d, v, VDRV_ARRAY_SIZE(v));
	for (i = 0; i < n && i < VDRV_ARRAY_SIZE(v); i++)
		if (v[i].gpa + v[i].size > end)
			end = v[i].gpa + v[i].size;
	len = (size_t)(((end + VDRV_LOG_PAGE - 1) / VDRV_LOG_PAGE + 7) / 8);

	fd = memfd_create("vdrv-log", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)len) < 0 || (sealed &&
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		ret = -errno;
		close(fd);
		return ret;
	}

	sz[0] = len;	/* mmap_size */
	sz[1] = 0;	/* mmap_offset */
	ret = vdrv_proto_send(&d->conn, VDRV_REQ_SET_LOG_BASE, 0, sz,
			      sizeof(sz), &fd, 1);
	if (!ret)
		ret = vdrv_proto_recv(&d->conn, VDRV_REQ_SET_LOG_BASE, NULL, 0);
	if (ret) {
		munmap(p, len);
		close(fd);
		return ret;
	}
	vdrv_log_free(d);
	d->log_fd = fd;
	d->log = p;
	d->log_len = len;
	return vdrv_log_features(d, true);
}

/**
 * vdrv_log_start() - share a sealed dirty log, logging on (QEMU's way)
 * @d:		device (not a pair handle), LOG_SHMFD negotiated
 *
 * Return: as vdrv_log_share()
 */
int vdrv_log_start(struct vdrv_dev *d)
{
	return vdrv_log_share(d, true);
}

/**
 * vdrv_log_evil_shrink() - an unsealed log, logging on, then the log
 *			    truncated to nothing and a TX frame sent
 * @d:		device, LOG_SHMFD negotiated
 *
 * A back end may refuse the log (vhostd does: it takes only logs sealed
 * against shrinking) and drop us then.  One that takes it meets, at its
 * next mark (the TX used ring's), a page that is no longer there: SIGBUS
 * in the back end, which must cost this connection only (vdrv_evil(),
 * VDRV_EVIL_LOG_SHRINK).
 *
 * Return: 0 (refused and dropped, or the frame sent), or -errno
 */
int vdrv_log_evil_shrink(struct vdrv_dev *d)
{
	static const uint8_t fr[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					0x02, 0xee, 0, 0, 0, 0x01 };
	int ret = vdrv_log_share(d, false);

	if (ret && d->conn.hung_up)
		return 0;	/* refused: the connection is going */
	if (ret)
		return ret;
	munmap(d->log, d->log_len);	/* ours would fault as well */
	d->log = NULL;
	if (ftruncate(d->log_fd, 0) < 0) {
		ret = -errno;
		close(d->log_fd);
		return ret;
	}
	close(d->log_fd);
	d->log_len = 0;
	return vdrv_send(d, fr, sizeof(fr));
}

/**
 * vdrv_log_stop() - turn logging off (a migration cancelled), rings running
 * @d:		device, logging
 *
 * The log stays mapped: vdrv_log_bits() still reads it.
 *
 * Return: 0 or -errno
 */
int vdrv_log_stop(struct vdrv_dev *d)
{
	if (d->parent || !d->log)
		return -EINVAL;
	return vdrv_log_features(d, false);
}

/**
 * vdrv_log_bits() - the log, as the back end marks it
 * @d:		device
 * @len:	out: its bytes
 *
 * The caller reads and clears bits with atomic exchanges, as QEMU does.
 *
 * Return: the log, or NULL if none
 */
uint8_t *vdrv_log_bits(struct vdrv_dev *d, size_t *len)
{
	*len = d->log_len;
	return d->log;
}

/**
 * vdrv_log_free() - unmap and close the log, if any
 * @d:		device
 */
void vdrv_log_free(struct vdrv_dev *d)
{
	if (!d->log)
		return;
	munmap(d->log, d->log_len);
	close(d->log_fd);
	d->log = NULL;
	d->log_len = 0;
}

/**
 * vdrv_send_rarp() - SEND_RARP, as QEMU on a migration's destination
 * @d:		device, RARP protocol feature negotiated
 * @mac:	the guest's MAC
 *
 * Return: 0, -ENOTSUP without the feature, -EREMOTEIO if refused (acks)
 */
int vdrv_send_rarp(struct vdrv_dev *d, const uint8_t mac[6])
{
	uint64_t v = 0;

	if (!(d->proto_features & (1ULL << VDRV_PF_RARP)))
		return -ENOTSUP;
	memcpy(&v, mac, 6);
	return vdrv_proto_set_u64(&d->conn, VDRV_REQ_SEND_RARP, v);
}
