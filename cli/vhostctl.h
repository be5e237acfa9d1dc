/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vhostctl.h - what vhostctl.c and its capture command share
 *
 * vhostctl_connect()	connect to the daemon at @path: fd, or -errno
 *			(the message printed).
 * vhostctl_capture()	"vhostctl capture ...": @argv from "capture" on;
 *			returns the exit status.
 */
#ifndef VHOSTCTL_H
#define VHOSTCTL_H

#define VHOSTCTL_ERROR_PREFIX	"{\"error\""

int vhostctl_connect(const char *path);
int vhostctl_capture(const char *path, int argc, char **argv);

#endif /* VHOSTCTL_H */
