#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/analyze.sh - static analysis as a test: cppcheck over every C file
# (the daemon, vhostctl, vdrv, the unit, fuzz and integration tests, bench).
# Suppressions live inline in the code, each with its reason.
set -euo pipefail
cd "$(dirname "$0")/.."
cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
	--inline-suppr --std=c11 -D_GNU_SOURCE -I src \
	src cli vdrv tests/unit tests/fuzz tests/integration bench
