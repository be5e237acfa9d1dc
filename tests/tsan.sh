#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/tsan.sh - ThreadSanitizer over the unit and integration suites
#
#   make O=build/tsan  (clang -fsanitize=thread, -Werror): every program
#     |
#     +-- unit          each build/tsan/tests/test_* (cmocka): the FDB's
#     |                 learners/lookers/ager threads, a datapath thread
#     |                 bursting while the control thread remaps memory
#     |
#     +-- integration   tests/integration/run.sh (vdrv guests, TAP in a
#     +-- datapath      netns, offloads), datapath.sh and portctl.sh (ports
#     +-- portctl       added and removed under traffic), vxlan.sh and
#     +-- vxlan         afxdp.sh (the tunnel's table read and written by
#     +-- afxdp         the control socket while a worker learns; AF_XDP
#     +-- metrics       queues), metrics.sh (the HTTP thread handing
#                       requests to the control thread), BUILD=build/tsan:
#
#           vdrv guests (TSan) == unix sockets, memfd rings == vhostd (TSan)
#                                                    control thread + workers
#
# Every TSan-built process runs with halt_on_error=1 exitcode=66 and
# log_path under build/tsan/reports/STEP/: the first report ends that
# process with status 66 (so the harness fails the test: vhostd must exit
# 0 on SIGTERM, a guest must exit 0), and a step fails when any process,
# even one whose status nobody checks (a responder killed at the end),
# left a report file.  tests/tsan.supp, if present, is applied; each of
# its entries carries its reason.
#
# Nothing is left out.  datapath.sh runs whole under TSan: its fairness
# test asserts starvation (every ping answered within 3 s while the
# flood moves >= 20000 frames), not throughput, and TSan's slowdown is
# far inside that (about 0.6 M frames move during the pings); its idle
# tests measure CPU while nothing happens, where TSan adds nothing (its
# background thread sleeps).
#
# What TSan cannot see, and why that is not a gap here: the rings and
# buffers in guest memory are shared between processes (vhostd and its
# guests), and TSan sees only the threads of one process.  Inside vhostd
# a ring is touched only under its queue lock (src/lock.h, __atomic, so
# TSan sees it), never ordered by the smp_*() barriers of src/util.h
# alone; those pair with the guest, and TSan models no fence anyway
# (__atomic_thread_fence is a no-op to it), so a test that drove a ring
# from two threads of one process would need acquire/release accesses on
# the indexes, not different fences.  The guest-memory protocol is
# checked by the vdrv guests and the unit tests, not here.  Only the
# test programs and vhostd run under TSan; bench/ and the QEMU guests
# do not.
#
# Usage: tests/tsan.sh            (root for the netns/TAP tests; 2 cores:
#                                 about 3 minutes, 70 s of it test_fdb's
#                                 single-threaded differential runs)
#   TSAN_BUILD=dir   build directory (default build/tsan)
# One line per step (the build, each unit test binary, each integration
# script) with the suites' own summary lines, then "N passed, M failed,
# K skipped" over every test: the build, each cmocka case, each
# integration test; exit 1 on any failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
O=${TSAN_BUILD:-build/tsan}
case "$O" in /*) OABS=$O ;; *) OABS=$ROOT/$O ;; esac
REPORTS=$OABS/reports
LOGS=$OABS/logs
CFLAGS_TSAN="-O1 -g -fsanitize=thread -fno-omit-frame-pointer"
MAKEVARS=(O="$O" CC=clang CFLAGS="$CFLAGS_TSAN" LDFLAGS=-fsanitize=thread
	  WERROR=1)
pass=0
fail=0
skipped=0
failures=()
t_start=$SECONDS

# tsan_env STEP: print the TSAN_OPTIONS for STEP's processes; their
#   reports go to $REPORTS/STEP/tsan.PID (emptied here)
tsan_env() {
	local opts
	rm -rf "${REPORTS:?}/$1"
	mkdir -p "$REPORTS/$1"
	opts="halt_on_error=1 exitcode=66 second_deadlock_stack=1"
	opts="$opts history_size=4 log_path=$REPORTS/$1/tsan"
	[ -f "$ROOT/tests/tsan.supp" ] &&
		opts="$opts suppressions=$ROOT/tests/tsan.supp"
	echo "$opts"
}

# reports STEP: print the start of every TSan report STEP's processes
#   left; return 1 if there was any
reports() {
	local f n=0
	for f in "$REPORTS/$1"/tsan.*; do
		[ -e "$f" ] || continue
		n=$((n + 1))
		echo "--- $f"
		grep -m 1 -A 30 'WARNING: ThreadSanitizer\|ERROR: ThreadSanitizer' \
			"$f"
	done
	[ $n = 0 ]
}

# counts KIND LOG: "P F S" from a step's log.  cmocka: its "[  PASSED  ]",
#   "[  FAILED  ]" and "[  SKIPPED ]" totals; suite: the last line of an
#   integration script, "N passed, M failed, K skipped".
counts() {
	if [ "$1" = cmocka ]; then
		awk '/^\[  PASSED  \] [0-9]+ test/ { p = $4 }
		     /^\[  FAILED  \] [0-9]+ test/ { f = $4 }
		     /^\[  SKIPPED \] [0-9]+ test/ { s = $4 }
		     END { print p + 0, f + 0, s + 0 }' "$2"
	else
		grep -E '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -n 1 |
			awk '{ print $1 + 0, $3 + 0, $5 + 0 }'
	fi
}

# step KIND NAME CMD...: run CMD with TSan options, log to
#   $LOGS/NAME.log, add its tests to the totals.  It fails if CMD exits
#   non-zero or any process left a report; a failure its own counts do
#   not show (a crash, a report in a process nobody waits for) counts as
#   one more failed test.
step() {
	local kind=$1 name=$2 rc t0=$SECONDS p f s bad=0
	shift 2
	TSAN_OPTIONS=$(tsan_env "$name") TEST_RESULTS="" "$@" \
		>"$LOGS/$name.log" 2>&1
	rc=$?
	reports "$name" >"$LOGS/$name.reports" || bad=1
	read -r p f s < <(counts "$kind" "$LOGS/$name.log")
	[ -n "$p" ] || { p=0; f=0; s=0; }
	if [ $rc != 0 ] || [ $bad = 1 ]; then
		[ "$f" = 0 ] && f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	skipped=$((skipped + s))
	if [ $rc = 0 ] && [ $bad = 0 ] && [ "$f" = 0 ]; then
		printf 'PASS %-22s %s passed, %s skipped (%s s)\n' \
			"$name" "$p" "$s" "$((SECONDS - t0))"
		[ -n "${TEST_RESULTS:-}" ] &&
			echo "PASS tsan-$name $p passed, $s skipped" >>"$TEST_RESULTS"
		return 0
	fi
	failures+=("$name")
	printf 'FAIL %-22s exit status %s, %s TSan report(s), %s failed (%s s; log %s)\n' \
		"$name" "$rc" "$(find "$REPORTS/$name" -name "tsan.*" | wc -l)" "$f" \
		"$((SECONDS - t0))" "$O/logs/$name.log"
	[ -n "${TEST_RESULTS:-}" ] &&
		echo "FAIL tsan-$name exit status $rc, $f failed" >>"$TEST_RESULTS"
	sed 's/^/    /' "$LOGS/$name.reports"
	[ "$kind" = cmocka ] &&
		grep -E '^\[  (FAILED|ERROR)  ' "$LOGS/$name.log" |
		head -n 20 | sed 's/^/    /'
	return 1
}

mkdir -p "$LOGS" "$REPORTS"
command -v clang >/dev/null || { echo "tsan.sh: clang not installed"; exit 2; }

# ---- build ------------------------------------------------------------------
# The Makefile does not track flags: a tree built with others is rebuilt.
t0=$SECONDS
if [ "$(cat "$O/.tsan-flags" 2>/dev/null)" != "$CFLAGS_TSAN" ]; then
	MAKE_B=-B
else
	MAKE_B=
fi
if make -j2 $MAKE_B "${MAKEVARS[@]}" all >"$LOGS/build.log" 2>&1; then
	echo "$CFLAGS_TSAN" >"$O/.tsan-flags"
	pass=$((pass + 1))
	printf 'PASS %-22s (%s s)\n' build "$((SECONDS - t0))"
else
	echo "FAIL build (log $O/logs/build.log)"
	grep -m 10 -E 'error|Error' "$LOGS/build.log" | sed 's/^/    /'
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

# ---- unit tests: each binary a step ----------------------------------------------
for t in "$O"/tests/test_*; do
	[ -x "$t" ] || continue
	name=unit-$(basename "$t")
	step cmocka "$name" "$t"
	# a cmocka skip is named, not hidden
	grep -E '^\[  SKIPPED \] test_' "$LOGS/$name.log" | sed 's/^/    /'
done

# ---- integration ------------------------------------------------------------
for suite in run datapath portctl vxlan afxdp metrics; do
	name=integration-$suite
	step suite "$name" env BUILD="$O" tests/integration/$suite.sh
	# the suite's own lines: its skips and failures by name, its summary
	grep -E '^(SKIP|FAIL) ' "$LOGS/$name.log" | sed 's/^/    /'
	echo "    $suite.sh: $(grep -E '^[0-9]+ passed, [0-9]+ failed' \
		"$LOGS/$name.log" | tail -n 1)"
done

echo
echo "tsan.sh: $((SECONDS - t_start)) s"
[ $fail -gt 0 ] && echo "failed: ${failures[*]}"
echo "$pass passed, $fail failed, $skipped skipped"
[ $fail = 0 ]
