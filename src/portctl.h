/* SPDX-License-Identifier: GPL-2.0-or-later */
/* portctl.h - ports added and removed at run time, for ctl
 *
 * portctl_add()	parse a --port spec, check it against the ports
 *			there are, create the port (if @apply); its index,
 *			or -errno with a one-line message in @err.
 * portctl_del()	remove the port named @name (if @apply); its index,
 *			or -ENOENT with a one-line message in @err.
 * portctl_set()	"NAME,KEY=VALUE,...": change a running port's rate
 *			limits (rate, burst, rx-rate, rx-burst, tx-rate,
 *			tx-burst; if @apply); its index, or -errno with a
 *			one-line message in @err.
 * portctl_find()	the index of the port named @name, or -1.
 * portctl_check()	whether a parsed, named spec may be added now, the
 *			ports in @skip aside; -errno with @err (starting
 *			with @prefix) if not.  reload.c checks a whole
 *			file's changes with it before applying any.
 *
 * Both run on the control thread while the workers run; with @apply
 * false they only check (what ctl_exec() does outside a daemon: the unit
 * tests and the fuzzer).
 */
#ifndef VHOSTD_PORTCTL_H
#define VHOSTD_PORTCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct port_spec;

int portctl_add(const char *spec, const char *ctl_path, bool apply,
		char *name, char *err, size_t errlen);
int portctl_del(const char *name, bool apply, char *err, size_t errlen);
int portctl_set(const char *arg, bool apply, char *err, size_t errlen);
int portctl_find(const char *name);
int portctl_check(const struct port_spec *cp, const char *ctl_path,
		  uint64_t skip, const char *prefix, char *err, size_t errlen);

#endif /* VHOSTD_PORTCTL_H */
