// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_conf.c - libFuzzer harness for the command line and port specs
 *
 * Input: arguments separated by NUL bytes (argv[0] is supplied).  The
 * first argument is also fed to conf_parse_port() alone.  Whatever the
 * operator (or a wrapper script built from user input) passes, parsing
 * must end in a result or one clear error line: no crash, no read past a
 * buffer, an error message that is one line starting "vhostd: ", and on
 * success values inside their documented ranges.
 *
 * The same input, whole, is also a --config file: written to a file of
 * this process' own and parsed as "vhostd --config FILE".
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/conf.h"

#define FUZZ_ARGS	32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/**
 * check_err() - an error message is one "vhostd: " line
 * @err:	message
 */
static void check_err(const char *err)
{
	if (strncmp(err, "vhostd: ", 8) || strchr(err, '\n'))
		abort();
}

/**
 * check_port() - a parsed spec holds what the parser promises
 * @p:		spec
 */
static void check_port(const struct port_spec *p)
{
	const struct port_ops *ops = port_ops_find(p->type);
	unsigned int i;

	if (!ops || !p->name[0])
		abort();
	/* Every key of the type's table: required text there, numbers in
	 * their range (or the default), sizes non-zero.
	 */
	for (i = 0; i < ops->n_opts; i++) {
		const struct port_opt *o = &ops->opts[i];
		const void *f = conf_port_opt(p, o->key);

		if (!f)
			abort();
		if ((o->flags & PORT_OPT_REQUIRED) &&
		    (o->type == PORT_OPT_STR || o->type == PORT_OPT_PATH ||
		     o->type == PORT_OPT_IFNAME || o->type == PORT_OPT_NAME) &&
		    !*(const char *)f)
			abort();
		if (o->type == PORT_OPT_UINT &&
		    *(const unsigned int *)f != o->def &&
		    (*(const unsigned int *)f < o->min ||
		     *(const unsigned int *)f > o->max))
			abort();
		if (o->type == PORT_OPT_SIZE && o->def &&
		    !*(const uint64_t *)f)
			abort();
	}
}

/**
 * check_file() - the input as a --config file
 * @data:	file contents
 * @size:	their length
 * @c:		result buffer
 */
static void check_file(const uint8_t *data, size_t size, struct conf *c)
{
	static char path[64];
	char *argv[] = { "vhostd", "--config", path, NULL };
	char err[1024];
	unsigned int i;
	FILE *f;
	int rc;

	if (!*path)
		snprintf(path, sizeof(path), "/tmp/fuzz_conf.%d", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return;
	if (size && fwrite(data, 1, size, f) != size) {
		fclose(f);
		return;
	}
	fclose(f);
	err[0] = '\0';
	rc = conf_parse(3, argv, c, err, sizeof(err));
	unlink(path);
	if (rc < 0) {
		check_err(err);
	} else if (rc == 0) {
		if (c->nports > CONF_PORTS_MAX || !c->workers ||
		    c->from_file != (c->nports == 64 ? ~0ULL :
				     (1ULL << c->nports) - 1))
			abort();
		for (i = 0; i < c->nports; i++)
			if (!c->line[i])
				abort();
			else
				check_port(&c->ports[i]);
	} else {
		abort();	/* help and version are refused in a file */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct conf c;
	char *argv[FUZZ_ARGS + 2] = { "vhostd" };
	char err[256], *buf;
	struct port_spec p;
	unsigned int i;
	int argc = 1, rc;
	size_t off = 0;

	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	while (off <= size && argc < FUZZ_ARGS + 1) {
		argv[argc++] = buf + off;
		off += strlen(buf + off) + 1;
	}
	argv[argc] = NULL;

	err[0] = '\0';
	rc = conf_parse_port(argv[1], 0, &p, err, sizeof(err));
	if (rc)
		check_err(err);
	else
		check_port(&p);

	/* --help and --version print to stdout: keep the fuzzer quiet. */
	for (i = 1; i < (unsigned int)argc; i++)
		if (!strncmp(argv[i], "-h", 2) || !strncmp(argv[i], "-V", 2) ||
		    !strncmp(argv[i], "--h", 3) || !strncmp(argv[i], "--v", 3))
			goto out;
	err[0] = '\0';
	rc = conf_parse(argc, argv, &c, err, sizeof(err));
	if (rc < 0) {
		check_err(err);
	} else if (!rc) {
		/* No port at all is allowed (ports may come at run time). */
		if (c.nports > CONF_PORTS_MAX || !c.workers)
			abort();
		for (i = 0; i < c.nports; i++)
			check_port(&c.ports[i]);
	}
out:
	free(buf);
	check_file(data, size, &c);
	return 0;
}
