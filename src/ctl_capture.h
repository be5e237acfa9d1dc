/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl_capture.h - the control socket's capture streams (ctl_capture.c)
 *
 * ctl_capture_init()	the drain timer, at start-up: 0 or -errno.
 * ctl_capture_start()	a live daemon's "capture ARG" line: the client
 *			@fd is handed over (answered, streamed to, closed
 *			here), @deadline bounds the filter's arrival.
 * ctl_capture_fini()	end every capture (shutdown, workers stopped).
 */
#ifndef VHOSTD_CTL_CAPTURE_H
#define VHOSTD_CTL_CAPTURE_H

#include <stdint.h>

int ctl_capture_init(void);
void ctl_capture_start(int fd, const char *arg, uint64_t deadline);
void ctl_capture_fini(void);

#endif /* VHOSTD_CTL_CAPTURE_H */
