// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_state.c - libFuzzer harness for the --state file's loader
 *
 * The file lives in a directory an operator chose and outlives vhostd:
 * whatever it holds when vhostd starts (a crash's leftovers, another
 * version's layout, bytes someone put there), state_restore() must take
 * only what checks out: no crash, no read past the copy, MACs only on
 * ports that exist and within their max-macs.
 *
 * Input byte 0 picks the form:
 *   even: the rest is the file, as is (the checksum then stops nearly
 *         everything: the mode shows that it does);
 *   odd:  the rest is the body of one copy behind a header built here
 *         with a correct checksum, so the checks behind it are reached:
 *         port and MAC counts from bytes 1-3 (up to beyond the limits),
 *         the body padded with zeros to the length they declare; with
 *         bit 1 set, the port names become this vhostd's vu0..vu2.
 * The header layout mirrors src/state.c (a change there shows here as a
 * fuzzer that no longer gets past the checksum).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/conf.h"
#include "../../src/evloop.h"
#include "../../src/fdb.h"
#include "../../src/log.h"
#include "../../src/port/port.h"
#include "../../src/state.h"
#include "../../src/stats.h"
#include "../../src/switch.h"

#define FZ_PORTS	3
#define FZ_NCTR		(sizeof(struct port_stats) / sizeof(uint64_t))
#define FZ_PORT_LEN	(CONF_NAME_MAX + FZ_NCTR * sizeof(uint64_t))
#define FZ_MAC_LEN	10	/* struct state_mac: MAC, port, VLAN */
#define FZ_HDR_LEN	48
#define FZ_FILE_MAX	(1u << 20)

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char fz_dir[64], fz_path[96];
static uint8_t fz_file[FZ_FILE_MAX];

/**
 * LLVMFuzzerInitialize() - three vhost-user ports in a private directory
 * @argc:	unused
 * @argv:	unused
 * Return: 0
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	unsigned int i;

	(void)argc;
	(void)argv;
	log_set_level(LOG_LVL_ERR);	/* a warning per corrupt file */
	snprintf(fz_dir, sizeof(fz_dir), "/tmp/fuzz_state.XXXXXX");
	if (!mkdtemp(fz_dir) || evloop_init() < 0)
		abort();
	snprintf(fz_path, sizeof(fz_path), "%s/state", fz_dir);
	switch_init(300);
	for (i = 0; i < FZ_PORTS; i++) {
		struct port_spec p;
		char spec[160], err[256];

		snprintf(spec, sizeof(spec), "vhost-user,path=%s/p%u.sock,"
			 "name=vu%u", fz_dir, i, i);
		if (conf_parse_port(spec, i, &p, err, sizeof(err)) ||
		    switch_port_add(&p) < 0)
			abort();
	}
	return 0;
}

/**
 * fz_fnv() - FNV-1a 64, as state.c sums a copy
 * @h:		running hash
 * @p:		bytes
 * @n:		count
 * Return: the new hash
 */
static uint64_t fz_fnv(uint64_t h, const uint8_t *p, size_t n)
{
	while (n--) {
		h ^= *p++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/**
 * fz_build() - one copy with a valid header around fuzzed contents
 * @data:	input after the mode byte
 * @size:	its length
 * @names:	put vu0..vu2 into the port names
 * Return: bytes of the file
 */
static size_t fz_build(const uint8_t *data, size_t size, int names)
{
	uint32_t nports = 0, nmacs = 0, version = 2, nctr = FZ_NCTR, i;
	uint64_t gen = 7, at = 0, sum;
	size_t len, body;

	if (size >= 3) {
		nports = data[0] % 70;			/* 64 is the limit */
		nmacs = (uint32_t)(data[1] | data[2] << 8) % 4200; /* 4096 */
		data += 3;
		size -= 3;
	}
	body = nports * FZ_PORT_LEN + nmacs * FZ_MAC_LEN;
	len = FZ_HDR_LEN + body;
	if (len > sizeof(fz_file))
		return 0;
	memset(fz_file, 0, len);
	memcpy(fz_file, "VHSTATE\n", 8);
	memcpy(fz_file + 8, &version, 4);
	memcpy(fz_file + 12, &nctr, 4);
	memcpy(fz_file + 16, &nports, 4);
	memcpy(fz_file + 20, &nmacs, 4);
	memcpy(fz_file + 24, &gen, 8);
	memcpy(fz_file + 32, &at, 8);
	memcpy(fz_file + FZ_HDR_LEN, data, size < body ? size : body);
	for (i = 0; names && i < nports; i++)
		snprintf((char *)fz_file + FZ_HDR_LEN + i * FZ_PORT_LEN,
			 CONF_NAME_MAX, "vu%u", i % FZ_PORTS);
	/* With names, the MACs are in the ports' domain (VLAN 1), so that
	 * they get as far as being learned.
	 */
	for (i = 0; names && i < nmacs; i++) {
		uint16_t vid = 1;

		memcpy(fz_file + FZ_HDR_LEN + nports * FZ_PORT_LEN +
		       i * FZ_MAC_LEN + 8, &vid, 2);
	}
	sum = fz_fnv(0xcbf29ce484222325ULL, fz_file, len);
	memcpy(fz_file + 40, &sum, 8);
	return len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fdb_entry e;
	size_t len;
	unsigned int i;
	int fd;

	if (!size)
		return 0;
	if (data[0] & 1) {
		len = fz_build(data + 1, size - 1, data[0] & 2);
	} else {
		len = size - 1 < sizeof(fz_file) ? size - 1 : sizeof(fz_file);
		memcpy(fz_file, data + 1, len);
	}
	fd = open(fz_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, fz_file, len) != (ssize_t)len)
		abort();
	close(fd);

	if (state_open(fz_path))
		abort();
	state_restore();

	/* Only ports that exist, each within its quota. */
	for (i = 0; i < FDB_SIZE; i++)
		if (fdb_entry_get(switch_fdb(), i, &e) &&
		    (e.port >= FZ_PORTS || e.is_static || (e.mac[0] & 1)))
			abort();
	for (i = 0; i < FZ_PORTS; i++) {
		struct port *p = switch_port(i);

		if (fdb_port_macs(switch_fdb(), (uint16_t)i) > 64)
			abort();
		fdb_flush_port(switch_fdb(), (uint16_t)i);
		memset(&p->stats[0], 0, sizeof(p->stats[0]));
	}
	state_close();
	return 0;
}
