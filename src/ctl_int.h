/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl_int.h - what the parts of the control socket share
 *
 * ctl.c owns the socket and the command table; the replies are built in
 * ctl_out.c (the buffer, JSON and Prometheus quoting, which counter
 * tables a port shows), ctl_json.c ("ports", "fdb", "workers"),
 * ctl_prom.c ("metrics"), ctl_capture.c ("capture", "captures") and
 * ctl_show.c ("show").  Nothing outside ctl*.c includes this.
 */
#ifndef VHOSTD_CTL_INT_H
#define VHOSTD_CTL_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "conf.h"
#include "port/port.h"
#include "stats.h"

#define CTL_REPLY_MAX		(8U << 20)	/* bytes; fdb is ~300 KiB */
#define CTL_QUEUES_MAX		CONF_QUEUES_MAX	/* queue pairs shown per port */

/**
 * struct ctl_buf - a growing reply
 * @p:		bytes (NUL-terminated while @len < @cap)
 * @len:	bytes used
 * @cap:	bytes allocated
 * @oom:	an append failed: the reply is incomplete, send an error
 */
struct ctl_buf {
	char *p;
	size_t len;
	size_t cap;
	bool oom;
};

void ctl_printf(struct ctl_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ctl_json_esc(struct ctl_buf *b, const char *s);
void ctl_json_str(struct ctl_buf *b, const char *s);
void ctl_prom_label(struct ctl_buf *b, const char *s);
const struct stats_table *ctl_port_table(const struct port *p,
					 unsigned int k);
bool ctl_port_has(const struct port *p, const struct stats_table *t);
void ctl_out_put(struct port_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void ctl_json_port(struct ctl_buf *b, const struct port *p);

/* Commands: build the reply from the argument ("" if none); 0 or -EINVAL. */
int ctl_cmd_ports(struct ctl_buf *b, const char *arg);
int ctl_cmd_fdb(struct ctl_buf *b, const char *arg);
int ctl_cmd_fdb_add(struct ctl_buf *b, const char *arg);
int ctl_cmd_fdb_del(struct ctl_buf *b, const char *arg);
int ctl_cmd_domains(struct ctl_buf *b, const char *arg);
int ctl_cmd_workers(struct ctl_buf *b, const char *arg);
int ctl_cmd_metrics(struct ctl_buf *b, const char *arg);
int ctl_cmd_capture(struct ctl_buf *b, const char *arg);
int ctl_cmd_captures(struct ctl_buf *b, const char *arg);
int ctl_cmd_show(struct ctl_buf *b, const char *arg);

#endif /* VHOSTD_CTL_INT_H */
