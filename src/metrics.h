/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.h - --metrics ADDR:PORT: "metrics" over HTTP for Prometheus
 *
 * metrics_open()	bind and listen on @a, make the control thread's
 *			request eventfd (start-up, before priv_drop(): the
 *			running daemon creates no network socket); 0 or
 *			-errno.
 * metrics_start()	start libmicrohttpd's thread on that socket (after
 *			priv_drop(), before the seccomp filter: the thread
 *			inherits the dropped privileges and gets the filter
 *			by TSYNC); 0 or -errno.
 * metrics_close()	stop serving, free what is left (shutdown; a no-op
 *			without metrics_open()).
 */
#ifndef VHOSTD_METRICS_H
#define VHOSTD_METRICS_H

#include "port/port.h"

int metrics_open(const union port_addr *a);
int metrics_start(void);
void metrics_close(void);

#endif /* VHOSTD_METRICS_H */
