#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/analyze.sh - static analysis as a test:
#  1. cppcheck over every C file (the daemon, vhostctl, vdrv, the unit,
#     fuzz and integration tests, bench); suppressions live inline in the
#     code, each with its reason;
#  2. clang's thread-safety analysis over src/ (src/lock.h: who holds which
#     lock, written as attributes on the functions), every finding an
#     error; first a file that breaks the rules must fail, so that a
#     compiler that ignored the attributes cannot pass silently.
set -euo pipefail
cd "$(dirname "$0")/.."
cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
	--inline-suppr --std=c11 -D_GNU_SOURCE -I src \
	src cli vdrv tests/unit tests/fuzz tests/integration bench

TSA_FLAGS=(-fsyntax-only -std=c11 -D_GNU_SOURCE -I src -Wthread-safety
	   -Wthread-safety-beta -Werror)
bad=$(mktemp /tmp/vhostd-tsa.XXXXXX.c)
trap 'rm -f "$bad"' EXIT
cat >"$bad" <<'C'
#include "lock.h"
static void needs(struct vlock *l) REQUIRES(*l);
static void needs(struct vlock *l) { (void)l; }
void broken(struct vlock *l);
void broken(struct vlock *l) { needs(l); }	/* not held: an error */
C
if clang "${TSA_FLAGS[@]}" "$bad" 2>/dev/null; then
	echo "analyze: clang accepted a call without the lock it requires" >&2
	exit 1
fi
for f in src/*.c src/*/*.c; do
	clang "${TSA_FLAGS[@]}" "$f"
done
