#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/run.sh - the one test command: installs what it needs, builds with
# -Werror, then runs every suite and ends with "N passed, M failed".
#
#   sudo ./tests/run.sh            everything (about 15 minutes on 2 cores)
#   SKIP_GUEST=1 ./tests/run.sh    no QEMU guests
#   FUZZ_SECONDS=N                 per fuzz harness (default 30)
set -uo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
LOGDIR=${LOGDIR:-$ROOT/build/test-logs}
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
mkdir -p "$LOGDIR"

passed=0
failed=0
failures=()

# step NAME CMD... - run one suite, log to $LOGDIR/NAME.log, count it
step() {
	local name=$1; shift
	local t0=$SECONDS
	echo "=== $name"
	if "$@" >"$LOGDIR/$name.log" 2>&1; then
		passed=$((passed + 1))
		echo "PASS $name ($((SECONDS - t0)) s)"
	else
		failed=$((failed + 1))
		failures+=("$name")
		echo "FAIL $name ($((SECONDS - t0)) s) -- last lines of $LOGDIR/$name.log:"
		tail -n 40 "$LOGDIR/$name.log" | sed 's/^/    /'
	fi
}

if [ "$(id -u)" != 0 ]; then
	echo "tests/run.sh: needs root (netns, TAP, QEMU)" >&2
	exit 2
fi

step deps tests/deps.sh
step build make -j2 WERROR=1
step unit make -j2 WERROR=1 check
step unit-asan make -j2 O=build/asan CC=clang \
	CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
	LDFLAGS="-fsanitize=address,undefined" all check
# The kernel as the reference for vhostd's software segmentation.
step gso-kernel-ref tests/integration/gso_kernel_ref.sh build/tests/test_gso
step analyze tests/analyze.sh
step fuzz tests/fuzz/run.sh "$FUZZ_SECONDS"
# Integration tests drive the sanitizer build of vhostd: a memory error a
# hostile front end provokes fails the run instead of hiding.
step integration env BUILD=build/asan tests/integration/run.sh
step datapath tests/integration/datapath.sh
if [ -z "${SKIP_GUEST:-}" ]; then
	step guest-setup tests/guest/setup.sh
	step guest-e2e tests/guest/e2e.sh
fi

echo
if [ $failed -gt 0 ]; then
	echo "failed: ${failures[*]}"
fi
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
