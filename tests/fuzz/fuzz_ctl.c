// SPDX-License-Identifier: GPL-2.0-or-later
/* fuzz_ctl.c - libFuzzer harness for the control socket's command lines
 *
 * Input: the bytes a ctl client sends, up to the first NUL (the socket
 * code stops a line there too).  ctl_exec() must answer every line with
 * a complete reply: no crash, no read past the line, and a reply that is
 * printable ASCII and newlines only (JSON text must be UTF-8, and an echo
 * of a client's bytes must not smuggle control characters into a
 * terminal); an unknown command gets a JSON error object.  "port add"
 * and "port del" only check their argument here (no control socket is
 * open: ctl.c), so a fuzzed spec never creates a socket file.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line, *reply = NULL;
	size_t len = 0, i;
	int rc;

	line = malloc(size + 1);
	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	rc = ctl_exec(line, &reply, &len);
	if (!reply || strlen(reply) != len || !len || reply[len - 1] != '\n')
		abort();
	for (i = 0; i < len; i++)
		if ((reply[i] < 0x20 || reply[i] > 0x7e) && reply[i] != '\n')
			abort();
	if (rc == -EINVAL && strncmp(reply, "{\"error\":\"", 10))
		abort();
	free(reply);
	free(line);
	return 0;
}
