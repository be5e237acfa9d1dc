#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz/run.sh SECONDS - build every libFuzzer harness (clang,
# ASan+UBSan) and run each for SECONDS; any crash fails.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-30}
make -j2 O=build/fuzz fuzz
for h in build/fuzz/fuzz/fuzz_*; do
	[ -x "$h" ] || continue
	name=$(basename "$h")
	corpus=build/fuzz/corpus/$name
	mkdir -p "$corpus"
	echo "fuzz: $name for ${secs}s"
	seeds=()
	[ -d tests/fuzz/seeds/"$name" ] && seeds=(tests/fuzz/seeds/"$name")
	"$h" -max_total_time="$secs" -print_final_stats=1 "$corpus" \
		"${seeds[@]}" 2>&1 | tail -n 12
done
