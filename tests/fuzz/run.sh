#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz/run.sh SECONDS - build every libFuzzer harness (clang,
# ASan+UBSan) and run each for SECONDS from its seed corpus.
#
# Every tests/fuzz/fuzz_*.c must build and run: a harness that is missing
# after the build, crashes, or executes no input fails the run.  One line
# per harness ("PASS fuzz_x: N runs" / "FAIL fuzz_x: why"), then
# "N passed, M failed, 0 skipped".
set -uo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-30}
pass=0
fail=0

# record KIND NAME DETAIL: one result line (and into $TEST_RESULTS)
record() {
	echo "$1 $2: $3"
	[ -n "${TEST_RESULTS:-}" ] && echo "$1 $2 $3" >>"$TEST_RESULTS"
	if [ "$1" = PASS ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}

make -j2 O=build/fuzz fuzz || { echo "fuzz: build failed"; exit 1; }
for src in tests/fuzz/fuzz_*.c; do
	name=$(basename "$src" .c)
	h=build/fuzz/fuzz/$name
	if [ ! -x "$h" ]; then
		record FAIL "$name" "no harness built at $h"
		continue
	fi
	corpus=build/fuzz/corpus/$name
	log=build/fuzz/$name.log
	mkdir -p "$corpus"
	seeds=()
	[ -d tests/fuzz/seeds/"$name" ] && seeds=(tests/fuzz/seeds/"$name")
	echo "fuzz: $name for ${secs}s"
	"$h" -max_total_time="$secs" -print_final_stats=1 "$corpus" \
		"${seeds[@]}" >"$log" 2>&1
	rc=$?
	tail -n 12 "$log"
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ $rc != 0 ]; then
		record FAIL "$name" "exit status $rc (log: $log)"
	elif ! [[ $runs =~ ^[0-9]+$ ]] || [ "$runs" = 0 ]; then
		record FAIL "$name" "executed no input"
	else
		record PASS "$name" "$runs runs in ${secs}s"
	fi
done
echo "$pass passed, $fail failed, 0 skipped"
[ $fail = 0 ]
