// SPDX-License-Identifier: GPL-2.0-or-later
/* cpu.c - vbench's reading of a forwarder's CPU time, shared as is
 *
 * scale measures vhostd's threads exactly as vbench does; rather than a
 * copy, vbench's file is compiled into this program too.
 */
#include "../vbench/cpu.c"
