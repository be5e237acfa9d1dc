#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# lib.sh - what the benches that start back ends share (sourced)
#
# bench_stop PID [TENTHS]: TERM, wait up to TENTHS tenths of a second
#   (default 50), then KILL; reaps it.  Nothing for an empty PID.
# bench_wait_socks PID LOG NAME SOCK...: wait (BENCH_WAIT tenths of a
#   second, default 100) until every SOCK exists, giving up early if PID exits; on failure prints NAME and
#   the end of LOG on stderr and returns 1.
# Only PIDs the caller started are ever signalled.

bench_stop() {
	local pid=$1 tenths=${2:-50}

	[ -n "$pid" ] || return 0
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq "$tenths"); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

bench_wait_socks() {
	local pid=$1 log=$2 name=$3 s ok
	shift 3

	for _ in $(seq "${BENCH_WAIT:-100}"); do
		ok=1
		for s in "$@"; do [ -S "$s" ] || ok=; done
		[ -n "$ok" ] && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	for s in "$@"; do [ -S "$s" ] || ok=; done
	[ -n "$ok" ] && return 0
	echo "$name did not create its sockets:" >&2
	tail -20 "$log" >&2
	return 1
}
